//! A Predictor chess game: the start, every ply's orders and report (with the commitments that
//! sealed them, when the ply was played by commit–reveal), repetition and how the game ended.

use super::commit::{Commitment, Nonce};
use super::{outcome, resolve, OrderError, Orders, PlyReport};
use crate::color::Color;
use crate::outcome::{EndReason, Outcome};
use crate::position::Position;

/// How one side's orders were sealed before the ply: the published commitment and the nonce
/// revealed with the orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seal {
    /// The commitment published before the reveal.
    pub commitment: Commitment,
    /// The nonce revealed with the orders.
    pub nonce: Nonce,
}

/// One played ply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ply {
    /// What the ply did (both sides' orders included).
    pub report: PlyReport,
    /// The commitments and nonces, White's then Black's, when the ply was sealed.
    pub seals: Option<[Seal; 2]>,
}

/// Why a ply could not be added to a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameError {
    /// The game has ended.
    #[error("the game is over ({0})")]
    Over(Outcome),
    /// An order set is invalid in the current position.
    #[error("{side}'s orders: {error}")]
    Orders {
        /// The side.
        side: Color,
        /// Why.
        error: OrderError,
    },
}

/// A game of Predictor chess. The position after each ply is kept, so repetition is judged
/// exactly (the same side is always "to move": plies are simultaneous).
#[derive(Debug, Clone)]
pub struct PredictorGame {
    positions: Vec<Position>,
    plies: Vec<Ply>,
    ended: Option<Outcome>,
}

impl PredictorGame {
    /// A game from `start`.
    pub fn new(start: Position) -> PredictorGame {
        PredictorGame { positions: vec![start], plies: Vec::new(), ended: None }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().unwrap_or_else(|| unreachable!("a game always has its start"))
    }

    /// The position before ply `n` (1-based); `n = plies + 1` is the current position.
    pub fn position_before(&self, n: usize) -> Option<&Position> {
        n.checked_sub(1).and_then(|i| self.positions.get(i))
    }

    /// The plies played.
    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }

    /// The number of the next ply (1 for the first).
    pub fn next_ply(&self) -> u32 {
        self.plies.len() as u32 + 1
    }

    /// Resolves a ply from both sides' orders (validated first) and adds it.
    pub fn play(&mut self, white: &Orders, black: &Orders, seals: Option<[Seal; 2]>) -> Result<&Ply, GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::Over(o));
        }
        let pos = self.position();
        white.validate(pos, Color::White).map_err(|error| GameError::Orders { side: Color::White, error })?;
        black.validate(pos, Color::Black).map_err(|error| GameError::Orders { side: Color::Black, error })?;
        let (after, report) =
            resolve(pos, white, black).map_err(|error| GameError::Orders { side: Color::White, error })?;
        self.positions.push(after);
        self.plies.push(Ply { report, seals });
        Ok(self.plies.last().unwrap_or_else(|| unreachable!("just pushed")))
    }

    /// Parses both sides' orders text in the current position and plays the ply.
    pub fn play_text(&mut self, white: &str, black: &str) -> Result<&Ply, GameError> {
        let pos = self.position();
        let w =
            Orders::parse(pos, Color::White, white).map_err(|error| GameError::Orders { side: Color::White, error })?;
        let b =
            Orders::parse(pos, Color::Black, black).map_err(|error| GameError::Orders { side: Color::Black, error })?;
        self.play(&w, &b, None)
    }

    /// Ends the game for a reason outside the board (time, forfeit, resignation, agreement).
    /// A game already over keeps its result.
    pub fn end(&mut self, outcome: Outcome) {
        if self.outcome().is_none() {
            self.ended = Some(outcome);
        }
    }

    /// The result given by [`end`](Self::end), if any.
    pub fn ended(&self) -> Option<Outcome> {
        self.ended
    }

    /// How the game ended, if it did: by [`end`](Self::end), by the board after the last ply
    /// ([`outcome`]), or by the third occurrence of the same position (same placement,
    /// castling rights and en-passant square) after a ply.
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.ended {
            return Some(o);
        }
        let pos = self.position();
        if let Some(o) = outcome(pos) {
            return Some(o);
        }
        let repetition = pos.variant().draws.repetition;
        let h = pos.hash();
        if repetition && self.positions.iter().filter(|p| p.hash() == h).count() >= 3 {
            return Some(Outcome::Draw { reason: EndReason::Repetition });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> PredictorGame {
        PredictorGame::new(Position::start(crate::variants::predictor::variant()))
    }

    #[test]
    fn plies_accumulate_and_orders_are_checked() {
        let mut g = game();
        g.play_text("e2e4", "e7e5").expect("legal");
        assert_eq!(g.next_ply(), 2);
        assert!(matches!(g.play_text("e2e4", "d7d5"), Err(GameError::Orders { side: Color::White, .. })));
        assert!(matches!(g.play_text("d2d4", "e2e4"), Err(GameError::Orders { side: Color::Black, .. })));
        assert_eq!(g.plies().len(), 1, "a refused ply leaves the game as it was");
        assert_eq!(g.position_before(1), Some(g.start()));
    }

    #[test]
    fn threefold_repetition_draws() {
        let mut g = game();
        for _ in 0..2 {
            g.play_text("g1f3", "g8f6").expect("out");
            assert_eq!(g.outcome(), None);
            g.play_text("f3g1", "f6g8").expect("back");
        }
        assert_eq!(g.outcome(), Some(Outcome::Draw { reason: EndReason::Repetition }));
        assert!(matches!(g.play_text("e2e4", "e7e5"), Err(GameError::Over(_))));
    }

    #[test]
    fn either_king_may_stand_attacked() {
        // Both kings in check: no side "just moved" in a simultaneous variant.
        let fen = "4k3/8/8/8/8/8/r6K/4R3 w - - 0 1";
        assert!(Position::from_fen(crate::variants::predictor::variant(), fen).is_ok());
        assert!(Position::from_fen(crate::variants::by_name("chess").expect("chess"), fen).is_err());
        // The attacked king may be captured by a primary (RULINGS 6): Black answers the check by
        // taking the rook, which has left for e8, where the king stayed.
        let start = "4k3/8/8/8/8/8/6K1/r3R3 w - - 0 1";
        let mut g = PredictorGame::new(Position::from_fen(crate::variants::predictor::variant(), start).expect("fen"));
        let report = g.play_text("e1e8", "a1e1").expect("legal").report.clone();
        assert_eq!(report.captured.iter().map(|p| format!("{}{}", p.letter, p.square)).collect::<Vec<_>>(), ["ke8"]);
        assert_eq!(g.position().board_fen(), "4R3/8/8/8/8/8/6K1/4r3");
        assert_eq!(g.outcome(), Some(Outcome::Decisive { winner: Color::White, reason: EndReason::KingCaptured }));
        // Both kings attacked: each side may take the other's king though its own is in check;
        // both kings go, a draw.
        let both = "4k3/3Q4/8/8/8/8/8/r3K3 w - - 0 1";
        let mut g = PredictorGame::new(Position::from_fen(crate::variants::predictor::variant(), both).expect("fen"));
        g.play_text("d7e8", "a1e1").expect("king captures are primaries");
        assert_eq!(g.outcome(), Some(Outcome::Draw { reason: EndReason::KingCaptured }));
        // A side in check without a legal move is not checkmated while it can take the enemy king.
        let v = crate::variants::predictor::variant();
        let mated = Position::from_fen(v, "k7/1Q6/1K6/8/8/8/8/7r w - - 0 1").expect("fen");
        assert_eq!(
            super::super::outcome(&mated),
            Some(Outcome::Decisive { winner: Color::White, reason: EndReason::Checkmate })
        );
        let not_mated = Position::from_fen(v, "k7/1Q6/1K6/8/8/8/8/1r6 w - - 0 1").expect("fen");
        assert_eq!(super::super::outcome(&not_mated), None, "Black may take the king on b6");
    }

    #[test]
    fn an_ended_game_refuses_plies() {
        let mut g = game();
        g.end(Outcome::Decisive { winner: Color::Black, reason: EndReason::Resignation });
        assert!(matches!(g.play_text("e2e4", "e7e5"), Err(GameError::Over(_))));
    }
}
