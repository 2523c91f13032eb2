//! Sequential mode: play batches of games until every requested quantity's confidence
//! half-width is at most a target, with batch sizes that depend only on the results so far.
//!
//! Half-widths are those of the reported 95 % intervals: Wilson's for proportions, Student's t
//! (n − 1 degrees of freedom) for means. Games needed are planned with the normal quantile for
//! proportions (z²p̂(1−p̂)/h²) and with t for means (the smallest n whose t half-width at the
//! current sd is within h), so a run stops exactly when the intervals it reports are narrow enough.
//!
//! Games are always numbered from 0, so a sequential run that stopped after n games has
//! exactly the tally of a fixed run of n games with the same seed.

use crate::runner::{run_range, RunConfig, Shard};
use crate::stats::{paired_required_games, paired_wilson95, CONFIDENCE, Z95};
use crate::tally::Tally;
use std::fmt;
use std::str::FromStr;

/// A statistic whose 95 % half-width sequential mode can bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quantity {
    /// P(White wins).
    WhiteWin,
    /// P(Black wins).
    BlackWin,
    /// P(draw).
    Draw,
    /// P(somebody promotes).
    PromotionAny,
    /// P(White promotes).
    PromotionWhite,
    /// P(Black promotes).
    PromotionBlack,
    /// P(a player chosen at random promotes): the two players of a game are not independent
    /// trials ([`crate::stats::paired_wilson95`]).
    PromotionRandomPlayer,
    /// Mean plies of finished games.
    Plies,
    /// Mean full moves of finished games.
    FullMoves,
    /// Mean plies of the games White won.
    PliesGivenWhiteWin,
    /// Mean plies of the games Black won.
    PliesGivenBlackWin,
    /// Mean plies of the drawn games.
    PliesGivenDraw,
}

impl Quantity {
    /// Every quantity, in report order.
    pub const ALL: [Quantity; 12] = [
        Quantity::WhiteWin,
        Quantity::BlackWin,
        Quantity::Draw,
        Quantity::PromotionAny,
        Quantity::PromotionWhite,
        Quantity::PromotionBlack,
        Quantity::PromotionRandomPlayer,
        Quantity::Plies,
        Quantity::FullMoves,
        Quantity::PliesGivenWhiteWin,
        Quantity::PliesGivenBlackWin,
        Quantity::PliesGivenDraw,
    ];

    /// The name, as in the JSON results.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::WhiteWin => "white_win",
            Quantity::BlackWin => "black_win",
            Quantity::Draw => "draw",
            Quantity::PromotionAny => "promotion_any",
            Quantity::PromotionWhite => "promotion_white",
            Quantity::PromotionBlack => "promotion_black",
            Quantity::PromotionRandomPlayer => "promotion_random_player",
            Quantity::Plies => "plies",
            Quantity::FullMoves => "full_moves",
            Quantity::PliesGivenWhiteWin => "plies_given_white_win",
            Quantity::PliesGivenBlackWin => "plies_given_black_win",
            Quantity::PliesGivenDraw => "plies_given_draw",
        }
    }

    /// The 95 % half-width of this quantity in `t` (infinite when it cannot be estimated).
    pub fn half_width(self, t: &Tally) -> f64 {
        if self == Quantity::PromotionRandomPlayer {
            return paired_wilson95(t.promotion_white, t.promotion_black, t.promotion_any, t.games).half_width();
        }
        match self.proportion_count(t) {
            Some(k) => t.of_games(k).wilson95().half_width(),
            None => self.moments(t).t_half_width(CONFIDENCE),
        }
    }

    /// Games needed in all for half-width `h`, extrapolated from the estimates in `t`: for a
    /// proportion with the normal quantile, for a mean with Student's t.
    pub fn required_games(self, t: &Tally, h: f64) -> u64 {
        if self == Quantity::PromotionRandomPlayer {
            return paired_required_games(t.promotion_white, t.promotion_black, t.promotion_any, t.games, h, Z95);
        }
        match self.proportion_count(t) {
            Some(k) => t.of_games(k).required_trials(h, Z95),
            None => {
                let m = self.moments(t);
                // Samples needed, scaled by the share of games that give a sample.
                let need = m.t_required_samples(h, CONFIDENCE) as f64;
                let share = if t.games == 0 { 0.0 } else { m.n as f64 / t.games as f64 };
                if share == 0.0 {
                    u64::MAX
                } else {
                    (need / share).ceil().min(u64::MAX as f64) as u64
                }
            }
        }
    }

    fn proportion_count(self, t: &Tally) -> Option<u64> {
        Some(match self {
            Quantity::WhiteWin => t.white_wins,
            Quantity::BlackWin => t.black_wins,
            Quantity::Draw => t.draws,
            Quantity::PromotionAny => t.promotion_any,
            Quantity::PromotionWhite => t.promotion_white,
            Quantity::PromotionBlack => t.promotion_black,
            _ => return None,
        })
    }

    fn moments(self, t: &Tally) -> crate::stats::Moments {
        match self {
            Quantity::FullMoves => t.full_moves,
            Quantity::PliesGivenWhiteWin => t.plies_given_white_win,
            Quantity::PliesGivenBlackWin => t.plies_given_black_win,
            Quantity::PliesGivenDraw => t.plies_given_draw,
            _ => t.plies,
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown quantity name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown quantity '{0}' (use {names})", names = Quantity::ALL.map(Quantity::name).join(", "))]
pub struct QuantityError(pub String);

impl FromStr for Quantity {
    type Err = QuantityError;

    fn from_str(s: &str) -> Result<Quantity, QuantityError> {
        let key = s.trim().to_ascii_lowercase().replace('-', "_");
        Quantity::ALL.into_iter().find(|q| q.name() == key).ok_or_else(|| QuantityError(s.to_string()))
    }
}

/// When to stop.
#[derive(Debug, Clone, PartialEq)]
pub struct SequentialPlan {
    /// The target 95 % half-width.
    pub half_width: f64,
    /// The quantities that must all reach it.
    pub quantities: Vec<Quantity>,
    /// Never stop before this many games (guards against a lucky early estimate).
    pub min_games: u64,
    /// Give up after this many games.
    pub max_games: u64,
}

/// The default minimum number of games.
pub const MIN_GAMES: u64 = 1000;

impl SequentialPlan {
    /// Outcome proportions (White, Black, draw) to half-width `h`, at least [`MIN_GAMES`]
    /// games, at most 10⁹.
    pub fn new(h: f64) -> SequentialPlan {
        SequentialPlan {
            half_width: h,
            quantities: vec![Quantity::WhiteWin, Quantity::BlackWin, Quantity::Draw],
            min_games: MIN_GAMES,
            max_games: 1_000_000_000,
        }
    }

    /// Whether every quantity of `t` is within the target.
    pub fn met(&self, t: &Tally) -> bool {
        t.games >= self.min_games && self.quantities.iter().all(|q| q.half_width(t) <= self.half_width)
    }

    /// The total after a batch that ended at `total` games: the largest extrapolated need
    /// (plus 5 %), at least 1,000 more and at most double, rounded up to a multiple of 1,000.
    fn next_total(&self, t: &Tally) -> u64 {
        let total = t.games;
        let need = self.quantities.iter().map(|q| q.required_games(t, self.half_width)).max().unwrap_or(0);
        let need = need.saturating_add(need / 20);
        let next = need.clamp(total + 1000, total.saturating_mul(2).max(total + 1000));
        next.div_ceil(1000).saturating_mul(1000).min(self.max_games)
    }
}

/// What a sequential run did.
#[derive(Debug, Clone, PartialEq)]
pub struct SequentialOutcome {
    /// Everything counted.
    pub tally: Tally,
    /// The totals after each batch.
    pub batches: Vec<u64>,
    /// Whether every half-width reached the target (false: stopped at `max_games`).
    pub met: bool,
}

/// Runs batches of games `0..n₁`, `n₁..n₂`, ... until `plan` is met or `max_games` is reached.
/// The batch ends depend only on the tallies, so the same seed stops at the same count.
pub fn run_sequential(cfg: &RunConfig, plan: &SequentialPlan, progress: &(dyn Fn(u64) + Sync)) -> SequentialOutcome {
    let mut tally = Tally::default();
    let mut batches = Vec::new();
    let mut end = plan.min_games.max(1).min(plan.max_games);
    loop {
        let batch = run_range(cfg, tally.games, end, Shard::ALL, progress);
        tally.merge(&batch);
        batches.push(tally.games);
        if plan.met(&tally) {
            return SequentialOutcome { tally, batches, met: true };
        }
        if tally.games >= plan.max_games {
            return SequentialOutcome { tally, batches, met: false };
        }
        end = plan.next_total(&tally).max(tally.games + 1);
    }
}
