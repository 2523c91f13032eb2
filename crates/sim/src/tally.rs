//! The exact accumulator of a set of games: outcome counts, endings, promotions, length
//! moments and length histograms, all integers, merged by addition.
//!
//! Because merging is integer addition, a tally is the same whatever the order, chunking,
//! thread count or sharding of the games that fed it; JSON results carry it as `counts`.

use crate::runner::{Ending, GameRecord, GameResult};
use crate::stats::{Moments, Proportion};
use serde::{Deserialize, Serialize};

/// How many games ended each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endings {
    /// Checkmate.
    pub checkmate: u64,
    /// Stalemate (a draw in the orthodox rules).
    pub stalemate: u64,
    /// A royal piece captured.
    pub king_captured: u64,
    /// The fifty-move rule.
    pub fifty_moves: u64,
    /// Threefold repetition.
    pub repetition: u64,
    /// Insufficient material.
    pub insufficient_material: u64,
    /// The variant's ply limit (Probabilistic chess), adjudicated on material. Absent from
    /// results written before it was counted (read as 0).
    #[serde(default)]
    pub ply_limit: u64,
    /// Stopped by the `max_plies` safety cap (unfinished).
    pub max_plies: u64,
}

impl Endings {
    fn slot(&mut self, e: Ending) -> &mut u64 {
        match e {
            Ending::Checkmate => &mut self.checkmate,
            Ending::Stalemate => &mut self.stalemate,
            Ending::KingCaptured => &mut self.king_captured,
            Ending::FiftyMoves => &mut self.fifty_moves,
            Ending::Repetition => &mut self.repetition,
            Ending::InsufficientMaterial => &mut self.insufficient_material,
            Ending::PlyLimit => &mut self.ply_limit,
            Ending::MaxPlies => &mut self.max_plies,
        }
    }

    fn merge(&mut self, o: &Endings) {
        self.checkmate += o.checkmate;
        self.stalemate += o.stalemate;
        self.king_captured += o.king_captured;
        self.fifty_moves += o.fifty_moves;
        self.repetition += o.repetition;
        self.insufficient_material += o.insufficient_material;
        self.ply_limit += o.ply_limit;
        self.max_plies += o.max_plies;
    }

    /// Endings other than checkmate, stalemate and the cap.
    pub fn other(&self) -> u64 {
        self.king_captured + self.fifty_moves + self.repetition + self.insufficient_material + self.ply_limit
    }
}

/// Game lengths in plies, one count per length (index = plies), per result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histograms {
    /// Games White won.
    pub white_win: Vec<u64>,
    /// Games Black won.
    pub black_win: Vec<u64>,
    /// Drawn games.
    pub draw: Vec<u64>,
    /// Games stopped by the cap.
    pub unfinished: Vec<u64>,
}

impl Histograms {
    fn slot(&mut self, r: GameResult) -> &mut Vec<u64> {
        match r {
            GameResult::WhiteWin => &mut self.white_win,
            GameResult::BlackWin => &mut self.black_win,
            GameResult::Draw => &mut self.draw,
            GameResult::Unfinished => &mut self.unfinished,
        }
    }

    /// The histogram of one result.
    pub fn of(&self, r: GameResult) -> &[u64] {
        match r {
            GameResult::WhiteWin => &self.white_win,
            GameResult::BlackWin => &self.black_win,
            GameResult::Draw => &self.draw,
            GameResult::Unfinished => &self.unfinished,
        }
    }
}

/// Adds `b` into `a` element by element; the length is the longer one's, so a histogram
/// never ends in zeros that a single run would not have.
fn add_into(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// Everything counted over a set of games.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games played.
    pub games: u64,
    /// White won.
    pub white_wins: u64,
    /// Black won.
    pub black_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Stopped by the `max_plies` cap.
    pub unfinished: u64,
    /// How the games ended.
    pub endings: Endings,
    /// Games in which White promoted at least once.
    pub promotion_white: u64,
    /// Games in which Black promoted at least once.
    pub promotion_black: u64,
    /// Games in which somebody promoted.
    pub promotion_any: u64,
    /// Plies of finished games.
    pub plies: Moments,
    /// Full moves of finished games (⌈plies / 2⌉: the moves of the side that moved first).
    pub full_moves: Moments,
    /// Plies of the games White won.
    pub plies_given_white_win: Moments,
    /// Plies of the games Black won.
    pub plies_given_black_win: Moments,
    /// Plies of the drawn games.
    pub plies_given_draw: Moments,
    /// Length histograms per result.
    pub histograms: Histograms,
}

impl Tally {
    /// Counts one game.
    pub fn record(&mut self, g: &GameRecord) {
        self.games += 1;
        match g.result {
            GameResult::WhiteWin => self.white_wins += 1,
            GameResult::BlackWin => self.black_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::Unfinished => self.unfinished += 1,
        }
        *self.endings.slot(g.ending) += 1;
        self.promotion_white += u64::from(g.promoted[0]);
        self.promotion_black += u64::from(g.promoted[1]);
        self.promotion_any += u64::from(g.promoted[0] || g.promoted[1]);
        let plies = u64::from(g.plies);
        if g.result != GameResult::Unfinished {
            self.plies.push(plies);
            self.full_moves.push(plies.div_ceil(2));
        }
        match g.result {
            GameResult::WhiteWin => self.plies_given_white_win.push(plies),
            GameResult::BlackWin => self.plies_given_black_win.push(plies),
            GameResult::Draw => self.plies_given_draw.push(plies),
            GameResult::Unfinished => {}
        }
        let h = self.histograms.slot(g.result);
        let i = g.plies as usize;
        if h.len() <= i {
            h.resize(i + 1, 0);
        }
        h[i] += 1;
    }

    /// Adds another tally (exact, associative and commutative).
    pub fn merge(&mut self, o: &Tally) {
        self.games += o.games;
        self.white_wins += o.white_wins;
        self.black_wins += o.black_wins;
        self.draws += o.draws;
        self.unfinished += o.unfinished;
        self.endings.merge(&o.endings);
        self.promotion_white += o.promotion_white;
        self.promotion_black += o.promotion_black;
        self.promotion_any += o.promotion_any;
        self.plies.merge(&o.plies);
        self.full_moves.merge(&o.full_moves);
        self.plies_given_white_win.merge(&o.plies_given_white_win);
        self.plies_given_black_win.merge(&o.plies_given_black_win);
        self.plies_given_draw.merge(&o.plies_given_draw);
        add_into(&mut self.histograms.white_win, &o.histograms.white_win);
        add_into(&mut self.histograms.black_win, &o.histograms.black_win);
        add_into(&mut self.histograms.draw, &o.histograms.draw);
        add_into(&mut self.histograms.unfinished, &o.histograms.unfinished);
    }

    /// The two merged.
    pub fn merged(mut self, o: Tally) -> Tally {
        self.merge(&o);
        self
    }

    /// A proportion of all games.
    pub fn of_games(&self, count: u64) -> Proportion {
        Proportion::new(count, self.games)
    }
}
