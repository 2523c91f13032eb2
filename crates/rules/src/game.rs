//! A game in progress: start position, moves played and the history repetition needs.
//! `Game::outcome` adds threefold repetition to the position's own judgement.

use crate::chance::Event;
use crate::moves::Move;
use crate::outcome::{EndReason, Outcome};
use crate::position::{IllegalMove, Position};

/// A sequence of legal moves from a start position.
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// The chance outcome of each move ([`Event::Success`] where chance played no part).
    events: Vec<Event>,
    hashes: Vec<u64>,
}

impl Game {
    /// A game from a position.
    pub fn new(start: Position) -> Game {
        let h = start.hash();
        Game { position: start.clone(), start, moves: Vec::new(), events: Vec::new(), hashes: vec![h] }
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// Moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The chance outcome of every move, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The hash of every position of the game, the start first and the current one last.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// The hashes of the positions before the current one, oldest first: the history a
    /// search of the current position needs to see repetitions (its root excluded).
    pub fn history(&self) -> &[u64] {
        &self.hashes[..self.hashes.len().saturating_sub(1)]
    }

    /// Plays a legal move as if chance let it happen plainly ([`Event::Success`]).
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        self.play_event(m, Event::Success)
    }

    /// Plays a legal move with the chance outcome `event` (a failure, a gift, ...).
    /// The outcome is not checked against the move's distribution: records may hold any.
    pub fn play_event(&mut self, m: Move, event: Event) -> Result<(), IllegalMove> {
        if !self.position.is_legal(m) {
            return Err(IllegalMove { uci: crate::uci::to_uci(&self.position, m), fen: self.position.fen() });
        }
        self.position.play_event(m, event);
        self.moves.push(m);
        self.events.push(event);
        self.hashes.push(self.position.hash());
        Ok(())
    }

    /// Plays a legal move, drawing its chance outcome from `rng`; returns the outcome.
    pub fn play_sampled<R: rand::RngCore + ?Sized>(&mut self, m: Move, rng: &mut R) -> Result<Event, IllegalMove> {
        let event = *self.position.chance(m).sample(rng);
        self.play_event(m, event)?;
        Ok(event)
    }

    /// Keeps the first `plies` moves and takes back the rest (a takeback; positions are
    /// copied, not unmade, so the moves kept are played again from the start). Returns how many
    /// moves went.
    pub fn truncate(&mut self, plies: usize) -> usize {
        let gone = self.moves.len().saturating_sub(plies);
        if gone == 0 {
            return 0;
        }
        let mut position = self.start.clone();
        for (m, e) in self.moves[..plies].iter().zip(&self.events) {
            position.play_event(*m, *e);
        }
        self.position = position;
        self.moves.truncate(plies);
        self.events.truncate(plies);
        self.hashes.truncate(plies + 1);
        gone
    }

    /// The ply of `side`'s last move (0 for the first move of the game), `None` if it has not
    /// moved: the ply a takeback of its last move goes back to. Turns alternate ply by ply.
    pub fn last_move_by(&self, side: crate::color::Color) -> Option<usize> {
        let first = self.start.turn();
        (0..self.moves.len()).rev().find(|&ply| (ply % 2 == 0) == (side == first))
    }

    /// How often the current position occurred (since the last irreversible move).
    pub fn repetitions(&self) -> usize {
        let h = self.position.hash();
        let window = (self.position.halfmoves() as usize + 1).min(self.hashes.len());
        self.hashes[self.hashes.len() - window..].iter().filter(|&&x| x == h).count()
    }

    /// The outcome, threefold repetition included.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.position.outcome() {
            return Some(o);
        }
        if self.position.variant().draws.repetition && self.repetitions() >= 3 {
            return Some(Outcome::Draw { reason: EndReason::Repetition });
        }
        None
    }
}
