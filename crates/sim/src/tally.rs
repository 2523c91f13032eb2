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

    fn checked_merge(&self, o: &Endings) -> Option<Endings> {
        Some(Endings {
            checkmate: self.checkmate.checked_add(o.checkmate)?,
            stalemate: self.stalemate.checked_add(o.stalemate)?,
            king_captured: self.king_captured.checked_add(o.king_captured)?,
            fifty_moves: self.fifty_moves.checked_add(o.fifty_moves)?,
            repetition: self.repetition.checked_add(o.repetition)?,
            insufficient_material: self.insufficient_material.checked_add(o.insufficient_material)?,
            ply_limit: self.ply_limit.checked_add(o.ply_limit)?,
            max_plies: self.max_plies.checked_add(o.max_plies)?,
        })
    }

    /// Every ending with its JSON name.
    fn named(&self) -> [(&'static str, u64); 8] {
        [
            ("checkmate", self.checkmate),
            ("stalemate", self.stalemate),
            ("king_captured", self.king_captured),
            ("fifty_moves", self.fifty_moves),
            ("repetition", self.repetition),
            ("insufficient_material", self.insufficient_material),
            ("ply_limit", self.ply_limit),
            ("max_plies", self.max_plies),
        ]
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

/// `a` and `b` added element by element (`None` if a count would overflow); the length is the
/// longer one's, so a histogram never ends in zeros that a single run would not have.
fn checked_add_histogram(a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut sum = long.to_vec();
    for (x, y) in sum.iter_mut().zip(short) {
        *x = x.checked_add(*y)?;
    }
    Some(sum)
}

/// The moments of the lengths in `histogram` (index = plies) mapped by `f`, in checked
/// 128-bit arithmetic (`None` on overflow).
fn histogram_moments(histograms: &[&[u64]], f: impl Fn(u64) -> u64) -> Option<Moments> {
    let mut m = Moments::default();
    for h in histograms {
        for (plies, &count) in h.iter().enumerate() {
            let x = u128::from(f(plies as u64));
            let c = u128::from(count);
            m.n = m.n.checked_add(count)?;
            m.sum = m.sum.checked_add(x.checked_mul(c)?)?;
            m.sum_sq = m.sum_sq.checked_add(x.checked_mul(x)?.checked_mul(c)?)?;
        }
    }
    Some(m)
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
    ///
    /// # Panics
    /// If a count passes 2⁶⁴ − 1: the runner's tallies never get there (see
    /// [`Tally::checked_merge`] for tallies read from files).
    pub fn merge(&mut self, o: &Tally) {
        match self.checked_merge(o) {
            Some(sum) => *self = sum,
            None => panic!("a tally's counts overflowed 64 bits"),
        }
    }

    /// The two merged.
    pub fn merged(mut self, o: Tally) -> Tally {
        self.merge(&o);
        self
    }

    /// The sum of two tallies, or `None` if any count would overflow.
    pub fn checked_merge(&self, o: &Tally) -> Option<Tally> {
        let h = (&self.histograms, &o.histograms);
        Some(Tally {
            games: self.games.checked_add(o.games)?,
            white_wins: self.white_wins.checked_add(o.white_wins)?,
            black_wins: self.black_wins.checked_add(o.black_wins)?,
            draws: self.draws.checked_add(o.draws)?,
            unfinished: self.unfinished.checked_add(o.unfinished)?,
            endings: self.endings.checked_merge(&o.endings)?,
            promotion_white: self.promotion_white.checked_add(o.promotion_white)?,
            promotion_black: self.promotion_black.checked_add(o.promotion_black)?,
            promotion_any: self.promotion_any.checked_add(o.promotion_any)?,
            plies: self.plies.checked_merge(&o.plies)?,
            full_moves: self.full_moves.checked_merge(&o.full_moves)?,
            plies_given_white_win: self.plies_given_white_win.checked_merge(&o.plies_given_white_win)?,
            plies_given_black_win: self.plies_given_black_win.checked_merge(&o.plies_given_black_win)?,
            plies_given_draw: self.plies_given_draw.checked_merge(&o.plies_given_draw)?,
            histograms: Histograms {
                white_win: checked_add_histogram(&h.0.white_win, &h.1.white_win)?,
                black_win: checked_add_histogram(&h.0.black_win, &h.1.black_win)?,
                draw: checked_add_histogram(&h.0.draw, &h.1.draw)?,
                unfinished: checked_add_histogram(&h.0.unfinished, &h.1.unfinished)?,
            },
        })
    }

    /// Checks that the counts could come from games (a tally read from a file may have been
    /// edited or damaged), naming the first fault with the numbers as they are in the tally:
    /// results and endings add up to the games, no count exceeds them, promotions agree with
    /// each other, the histograms hold as many games as their results and give exactly the
    /// length moments, without trailing zeros, and the lengths respect the cap `max_plies`.
    /// All sums are exact (128-bit or checked), so no wrapped total passes or is quoted.
    pub fn check(&self, max_plies: Option<u32>) -> Result<(), String> {
        let games = self.games;
        // Step 1. Results and endings add up to the games.
        let results = [
            ("white wins", self.white_wins),
            ("black wins", self.black_wins),
            ("draws", self.draws),
            ("unfinished", self.unfinished),
        ];
        let total: u128 = results.iter().map(|&(_, c)| u128::from(c)).sum();
        if total != u128::from(games) {
            let terms = results.map(|(name, c)| format!("{c} {name}")).join(" + ");
            return Err(format!("{games} games, but {terms} = {total}"));
        }
        let endings = self.endings.named();
        let total: u128 = endings.iter().map(|&(_, c)| u128::from(c)).sum();
        if total != u128::from(games) {
            let terms = endings.map(|(name, c)| format!("{name} {c}")).join(" + ");
            return Err(format!("{games} games, but endings {terms} = {total}"));
        }
        if self.endings.max_plies != self.unfinished {
            return Err(format!(
                "{} unfinished games, but endings.max_plies is {}",
                self.unfinished, self.endings.max_plies
            ));
        }
        // Step 2. No count above the games; promotions consistent.
        for (name, c) in [
            ("promotion_white", self.promotion_white),
            ("promotion_black", self.promotion_black),
            ("promotion_any", self.promotion_any),
        ] {
            if c > games {
                return Err(format!("{name} is {c}, more than the {games} games"));
            }
        }
        let (w, b, any) = (self.promotion_white, self.promotion_black, self.promotion_any);
        if any < w.max(b) || u128::from(any) > u128::from(w) + u128::from(b) {
            return Err(format!(
                "promotion_any is {any}, but promotion_white {w} and promotion_black {b} put it between {} and {}",
                w.max(b),
                u128::from(w) + u128::from(b)
            ));
        }
        // Step 3. Histograms: as many games as their results, no trailing zeros, within the cap.
        let h = &self.histograms;
        for (name, hist, count) in [
            ("white_win", &h.white_win, self.white_wins),
            ("black_win", &h.black_win, self.black_wins),
            ("draw", &h.draw, self.draws),
            ("unfinished", &h.unfinished, self.unfinished),
        ] {
            let held: u128 = hist.iter().map(|&c| u128::from(c)).sum();
            if held != u128::from(count) {
                let games = if held == 1 { "game" } else { "games" };
                return Err(format!("histograms.{name} holds {held} {games}, but the counts say {count}"));
            }
            if hist.last() == Some(&0) {
                return Err(format!("histograms.{name} ends in a zero count"));
            }
            let longest = hist.len().saturating_sub(1);
            match max_plies {
                Some(cap)
                    if name == "unfinished" && hist.iter().enumerate().any(|(i, &c)| c > 0 && i != cap as usize) =>
                {
                    return Err(format!("histograms.unfinished has games not stopped at the cap of {cap} plies"));
                }
                Some(cap) if longest > cap as usize => {
                    return Err(format!("histograms.{name} has a game of {longest} plies, beyond the cap of {cap}"));
                }
                None if name == "unfinished" && count > 0 => {
                    return Err(format!("{count} unfinished games, but the run had no cap (max_plies null)"));
                }
                _ => {}
            }
        }
        // Step 4. The moments are those of the histograms.
        let finished = [&h.white_win[..], &h.black_win[..], &h.draw[..]];
        for (name, stored, hists, full) in [
            ("plies", self.plies, &finished[..], false),
            ("full_moves", self.full_moves, &finished[..], true),
            ("plies_given_white_win", self.plies_given_white_win, &finished[..1], false),
            ("plies_given_black_win", self.plies_given_black_win, &finished[1..2], false),
            ("plies_given_draw", self.plies_given_draw, &finished[2..], false),
        ] {
            let Some(m) = histogram_moments(hists, |x| if full { x.div_ceil(2) } else { x }) else {
                return Err("the length histograms' sums overflow 128 bits".to_string());
            };
            if m != stored {
                return Err(format!(
                    "{name} has n {}, sum {}, sum_sq {}, but the length histograms give n {}, sum {}, sum_sq {}",
                    stored.n, stored.sum, stored.sum_sq, m.n, m.sum, m.sum_sq
                ));
            }
        }
        Ok(())
    }

    /// A proportion of all games.
    pub fn of_games(&self, count: u64) -> Proportion {
        Proportion::new(count, self.games)
    }
}
