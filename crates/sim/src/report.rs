//! Simulation results: the JSON document (schema `fairylab-sim/1`, docs/FORMATS.md), exact
//! merging of shard results, the human summary table and Markdown reports of one or more runs.
//!
//! Every number in a [`SimResult`] is computed from its exact integer `counts` ([`Tally`])
//! by one function, so two results with equal counts and metadata serialise to equal bytes:
//! merging all shards of a run gives the very document the unsharded run writes.

use crate::runner::{GameResult, RunConfig, Shard, StartDraw};
use crate::sequential::{Quantity, SequentialOutcome, SequentialPlan};
use crate::stats::{Moments, Proportion, CONFIDENCE, Z95};
use crate::tally::Tally;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The schema name written into every result.
pub const SCHEMA: &str = "fairylab-sim/1";

/// The version of fairylab that writes results (`fairylab_version`); `merge` takes only its own.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The half-width for which `required_games` is reported when no sequential target is set.
pub const DEFAULT_TARGET_HALF_WIDTH: f64 = 0.01;

/// A proportion of games with its 95 % Wilson interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProportionStat {
    /// Games counted.
    pub count: u64,
    /// Estimate.
    pub p: f64,
    /// Lower end of the 95 % Wilson interval.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl ProportionStat {
    fn new(p: Proportion) -> ProportionStat {
        let i = p.wilson95();
        ProportionStat { count: p.successes, p: p.estimate(), lo: i.lo, hi: i.hi }
    }
}

/// A mean with its 95 % Student-t interval, n − 1 degrees of freedom (`mean` is null without
/// samples; `sd`, `lo` and `hi` with fewer than two: one sample gives no interval).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeanStat {
    /// Samples.
    pub n: u64,
    /// Sample mean.
    pub mean: Option<f64>,
    /// Sample standard deviation (divisor n − 1).
    pub sd: Option<f64>,
    /// Lower end of the 95 % Student-t interval.
    pub lo: Option<f64>,
    /// Upper end.
    pub hi: Option<f64>,
}

impl MeanStat {
    /// The statistic of `m`.
    pub fn new(m: Moments) -> MeanStat {
        let i = m.t_interval(CONFIDENCE);
        MeanStat {
            n: m.n,
            mean: (m.n > 0).then(|| m.mean()),
            sd: (m.n > 1).then(|| m.sd()),
            lo: i.map(|i| i.lo),
            hi: i.map(|i| i.hi),
        }
    }
}

/// A statistic to three decimals, or `-` where there is none.
pub fn fixed3(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |x| format!("{x:.3}"))
}

/// A mean's interval as text: `[lo, hi]`, `none (1 sample)`, or `none` without samples.
pub fn mean_interval_text(m: &MeanStat) -> String {
    match (m.lo, m.hi) {
        (Some(lo), Some(hi)) => format!("[{lo:.3}, {hi:.3}]"),
        _ if m.n == 1 => "none (1 sample)".to_string(),
        _ => "none".to_string(),
    }
}

/// Where the games' probability maps (Probabilistic chess) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SquareMaps {
    /// Every game drew its own random map from its own stream (`start_fen` has no map).
    PerGame,
    /// Every game was played on the map of `start_fen` (a given start position).
    Fixed,
}

/// The interval methods of a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalMethods {
    /// The confidence level of every interval (0.95).
    pub confidence: f64,
    /// Proportions' intervals: `"Wilson"` (score interval; for the random player with Kish's
    /// effective number of trials).
    pub proportions: String,
    /// Means' intervals: `"Student t"` (n − 1 degrees of freedom).
    pub means: String,
}

impl IntervalMethods {
    /// The methods this version uses.
    pub fn current() -> IntervalMethods {
        IntervalMethods { confidence: CONFIDENCE, proportions: "Wilson".into(), means: "Student t".into() }
    }
}

/// The strategies of the two sides, as canonical strategy texts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Strategies {
    /// White's.
    pub white: String,
    /// Black's.
    pub black: String,
}

/// Which shards of a planned run a result holds (absent when it holds the whole run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// Number of shards of the plan.
    pub count: u32,
    /// The shards held, ascending.
    pub indices: Vec<u32>,
    /// Games of the whole planned run.
    pub planned_games: u64,
}

/// How a sequential run stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SequentialInfo {
    /// Target 95 % half-width.
    pub half_width: f64,
    /// The quantities it applied to.
    pub quantities: Vec<String>,
    /// The minimum number of games.
    pub min_games: u64,
    /// Whether every quantity reached the target.
    pub met: bool,
    /// Total games after each batch.
    pub batches: Vec<u64>,
}

/// Games needed for a 95 % half-width, extrapolated from the run's estimates (normal quantile
/// for proportions, Student's t for means).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequiredGames {
    /// The half-width.
    pub half_width: f64,
    /// For any proportion whatever its value (p = 1/2).
    pub proportion_worst_case: u64,
    /// Per quantity (name → games; for conditional means, games overall).
    pub quantities: std::collections::BTreeMap<String, u64>,
}

/// One run's results: metadata, statistics with intervals, and the exact counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimResult {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The fairylab version that wrote it ([`VERSION`]; `None` in files written before it was
    /// recorded).
    #[serde(default)]
    pub fairylab_version: Option<String>,
    /// The variant's name.
    pub variant: String,
    /// The start position of every game (without the probability map when each game drew its own).
    pub start_fen: String,
    /// Probabilistic chess: whether each game drew its own map or all used `start_fen`'s
    /// (null for a variant without maps).
    #[serde(default)]
    pub square_maps: Option<SquareMaps>,
    /// What each game drew for its start (`chess960`: one of the 960, `start_fen` being the
    /// variant's orthodox one; `snowfall_percent`: its percentage from 10 to 24, `start_fen`'s
    /// variant being SnowFall at 17); null when every game started from `start_fen`.
    #[serde(default)]
    pub start_draw: Option<StartDraw>,
    /// The strategies.
    pub strategies: Strategies,
    /// The seed.
    pub seed: u64,
    /// Games in this result.
    pub games: u64,
    /// Whether the games are independent trials; false when both strategies are deterministic
    /// and the variant has no chance: every game is the same game and the intervals do not apply.
    #[serde(default = "independent_by_default")]
    pub independent: bool,
    /// The safety cap in plies, if any.
    pub max_plies: Option<u32>,
    /// Shard metadata (null for a complete run).
    pub shard: Option<ShardInfo>,
    /// Sequential mode's stopping record (null for a fixed number of games).
    pub sequential: Option<SequentialInfo>,
    /// The intervals' confidence level and methods (`None` in files written before it was recorded).
    #[serde(default)]
    pub intervals: Option<IntervalMethods>,
    /// White won.
    pub white_win: ProportionStat,
    /// Black won.
    pub black_win: ProportionStat,
    /// Drawn.
    pub draw: ProportionStat,
    /// Stopped by the cap.
    pub unfinished: ProportionStat,
    /// Somebody promoted.
    pub promotion_any: ProportionStat,
    /// White promoted.
    pub promotion_white: ProportionStat,
    /// Black promoted.
    pub promotion_black: ProportionStat,
    /// A player chosen at random promoted: (White's + Black's) / (2 · games). The two players
    /// of a game are not independent: the interval is [`crate::stats::paired_wilson95`]'s.
    pub promotion_random_player: ProportionStat,
    /// Plies of finished games.
    pub plies: MeanStat,
    /// Full moves of finished games (⌈plies / 2⌉).
    pub full_moves: MeanStat,
    /// Plies of White's wins.
    pub plies_given_white_win: MeanStat,
    /// Plies of Black's wins.
    pub plies_given_black_win: MeanStat,
    /// Plies of draws.
    pub plies_given_draw: MeanStat,
    /// Games needed for the target half-width.
    pub required_games: RequiredGames,
    /// The exact accumulators everything above derives from.
    pub counts: Tally,
}

fn independent_by_default() -> bool {
    true
}

/// Results that cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no results to merge")]
    Empty,
    /// A result of another schema.
    #[error("result {0} has schema '{1}', expected '{SCHEMA}'")]
    Schema(usize, String),
    /// A result written by another fairylab version, or by one that did not record it.
    #[error(
        "result {index} {}; this is fairylab {VERSION}: merge shards with the fairylab that ran them (it recomputes the statistics), or run the shard again",
        match .found { Some(v) => format!("was written by fairylab {v}"), None => "records no fairylab_version (an older fairylab wrote it)".to_string() }
    )]
    Version {
        /// Which result (from 1).
        index: usize,
        /// Its version, if it records one.
        found: Option<String>,
    },
    /// A result that is not a shard.
    #[error("result {0} is a complete run, not a shard: only shards of one run can be merged")]
    NotAShard(usize),
    /// Metadata differs.
    #[error("result {index} differs in {field}: '{found}' against '{expected}'")]
    Mismatch {
        /// Which result (from 1).
        index: usize,
        /// The field.
        field: &'static str,
        /// Its value there.
        found: String,
        /// The first result's value.
        expected: String,
    },
    /// A shard given twice.
    #[error("shard {0} appears more than once")]
    Overlap(u32),
    /// A shard index outside the run's shards.
    #[error("result {index} claims shard {shard}, but the run has shards 0 to {last}")]
    ShardIndex {
        /// Which result (from 1).
        index: usize,
        /// The shard it claims.
        shard: u32,
        /// The run's last shard.
        last: u32,
    },
    /// Counts that do not add up (an edited or damaged file).
    #[error("result {0}'s counts do not add up: {1}")]
    Inconsistent(usize, String),
}

/// A result's metadata: everything but the shard, the sequential record and the counts.
struct Meta {
    variant: String,
    start_fen: String,
    square_maps: Option<SquareMaps>,
    start_draw: Option<StartDraw>,
    strategies: Strategies,
    seed: u64,
    independent: bool,
    max_plies: Option<u32>,
}

/// A cap as text: the number or `none`.
fn cap_text(cap: Option<u32>) -> String {
    cap.map_or_else(|| "none".to_string(), |c| c.to_string())
}

fn start_draw_text(d: Option<StartDraw>) -> &'static str {
    match d {
        Some(StartDraw::Chess960) => "chess960",
        Some(StartDraw::SnowfallPercent) => "snowfall_percent",
        None => "null",
    }
}

fn square_maps_text(m: Option<SquareMaps>) -> &'static str {
    match m {
        Some(SquareMaps::PerGame) => "per_game",
        Some(SquareMaps::Fixed) => "fixed",
        None => "null",
    }
}

impl SimResult {
    /// The result of `tally` under `cfg`; `shard` and `planned_games` describe the plan the
    /// tally is part of, `target` is the half-width for `required_games` (default 0.01).
    pub fn new(cfg: &RunConfig, tally: Tally, shard: Shard, planned_games: u64, target: Option<f64>) -> SimResult {
        let shard =
            (shard.count > 1).then(|| ShardInfo { count: shard.count, indices: vec![shard.index], planned_games });
        let has_maps = rules::variants::probabilistic::options(cfg.variant()).is_some();
        let meta = Meta {
            variant: cfg.variant().name.clone(),
            start_fen: cfg.start_fen(),
            square_maps: has_maps.then_some(if cfg.random_maps { SquareMaps::PerGame } else { SquareMaps::Fixed }),
            start_draw: cfg.draw,
            strategies: Strategies { white: cfg.white.to_string(), black: cfg.black.to_string() },
            seed: cfg.seed,
            independent: cfg.games_independent(),
            max_plies: cfg.max_plies,
        };
        SimResult::build(meta, shard, None, target.unwrap_or(DEFAULT_TARGET_HALF_WIDTH), tally)
    }

    /// The result of a sequential run.
    pub fn sequential(cfg: &RunConfig, plan: &SequentialPlan, run: SequentialOutcome) -> SimResult {
        let mut r = SimResult::new(cfg, run.tally, Shard::ALL, 0, Some(plan.half_width));
        r.sequential = Some(SequentialInfo {
            half_width: plan.half_width,
            quantities: plan.quantities.iter().map(|q| q.name().to_string()).collect(),
            min_games: plan.min_games,
            met: run.met,
            batches: run.batches,
        });
        r
    }

    fn build(
        meta: Meta,
        shard: Option<ShardInfo>,
        sequential: Option<SequentialInfo>,
        target: f64,
        t: Tally,
    ) -> SimResult {
        let p = |k: u64| ProportionStat::new(t.of_games(k));
        let quantities = Quantity::ALL.iter().map(|q| (q.name().to_string(), q.required_games(&t, target))).collect();
        SimResult {
            schema: SCHEMA.to_string(),
            fairylab_version: Some(VERSION.to_string()),
            variant: meta.variant,
            start_fen: meta.start_fen,
            square_maps: meta.square_maps,
            start_draw: meta.start_draw,
            strategies: meta.strategies,
            seed: meta.seed,
            games: t.games,
            independent: meta.independent,
            max_plies: meta.max_plies,
            shard,
            sequential,
            intervals: Some(IntervalMethods::current()),
            white_win: p(t.white_wins),
            black_win: p(t.black_wins),
            draw: p(t.draws),
            unfinished: p(t.unfinished),
            promotion_any: p(t.promotion_any),
            promotion_white: p(t.promotion_white),
            promotion_black: p(t.promotion_black),
            promotion_random_player: {
                let (w, b) = (t.promotion_white, t.promotion_black);
                let i = crate::stats::paired_wilson95(w, b, t.promotion_any, t.games);
                // In floating point: the counts may come from a file of up to 2⁶⁴ − 1 games.
                let p = if t.games == 0 { 0.0 } else { (w as f64 + b as f64) / (2.0 * t.games as f64) };
                ProportionStat { count: w.saturating_add(b), p, lo: i.lo, hi: i.hi }
            },
            plies: MeanStat::new(t.plies),
            full_moves: MeanStat::new(t.full_moves),
            plies_given_white_win: MeanStat::new(t.plies_given_white_win),
            plies_given_black_win: MeanStat::new(t.plies_given_black_win),
            plies_given_draw: MeanStat::new(t.plies_given_draw),
            required_games: RequiredGames {
                half_width: target,
                proportion_worst_case: Proportion::required_trials_worst_case(target, Z95),
                quantities,
            },
            counts: t,
        }
    }

    /// The result as pretty JSON (with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|e| unreachable!("results serialise: {e}"));
        s.push('\n');
        s
    }

    /// Parses a result written by [`SimResult::to_json`].
    pub fn from_json(text: &str) -> Result<SimResult, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Merges shards of one run into one result. When every shard is present the result
    /// equals the unsharded run's, byte for byte, with `shard` null.
    ///
    /// Only shards written by this version of fairylab are taken (the merge recomputes every
    /// statistic, which another version may compute otherwise), and each shard's counts must
    /// be consistent ([`Tally::check`]) and hold exactly the games of its shards; all sums are
    /// checked, so a damaged file is refused, never wrapped around.
    pub fn merge(results: &[SimResult]) -> Result<SimResult, MergeError> {
        let first = results.first().ok_or(MergeError::Empty)?;
        let mut indices = Vec::new();
        let mut tally = Tally::default();
        let first_shard = first.shard.as_ref().ok_or(MergeError::NotAShard(1))?;
        for (i, r) in results.iter().enumerate() {
            let index = i + 1;
            if r.schema != SCHEMA {
                return Err(MergeError::Schema(index, r.schema.clone()));
            }
            if r.fairylab_version.as_deref() != Some(VERSION) {
                return Err(MergeError::Version { index, found: r.fairylab_version.clone() });
            }
            let shard = r.shard.as_ref().ok_or(MergeError::NotAShard(index))?;
            let check = |field: &'static str, found: String, expected: String| {
                if found == expected {
                    Ok(())
                } else {
                    Err(MergeError::Mismatch { index, field, found, expected })
                }
            };
            check("variant", r.variant.clone(), first.variant.clone())?;
            check("start_fen", r.start_fen.clone(), first.start_fen.clone())?;
            check(
                "square_maps",
                square_maps_text(r.square_maps).to_string(),
                square_maps_text(first.square_maps).to_string(),
            )?;
            check(
                "start_draw",
                start_draw_text(r.start_draw).to_string(),
                start_draw_text(first.start_draw).to_string(),
            )?;
            check("seed", r.seed.to_string(), first.seed.to_string())?;
            check("white strategy", r.strategies.white.clone(), first.strategies.white.clone())?;
            check("black strategy", r.strategies.black.clone(), first.strategies.black.clone())?;
            check("independent", r.independent.to_string(), first.independent.to_string())?;
            check("max_plies", cap_text(r.max_plies), cap_text(first.max_plies))?;
            check("shard count", shard.count.to_string(), first_shard.count.to_string())?;
            check("planned games", shard.planned_games.to_string(), first_shard.planned_games.to_string())?;
            check(
                "half-width target",
                r.required_games.half_width.to_string(),
                first.required_games.half_width.to_string(),
            )?;
            let t = &r.counts;
            let inconsistent = |what: String| MergeError::Inconsistent(index, what);
            if r.games != t.games {
                return Err(inconsistent(format!("{} games, but {} counted", r.games, t.games)));
            }
            t.check(r.max_plies).map_err(inconsistent)?;
            let mut expected = 0u64;
            for &s in &shard.indices {
                if s >= shard.count {
                    return Err(MergeError::ShardIndex { index, shard: s, last: shard.count.saturating_sub(1) });
                }
                if indices.contains(&s) {
                    return Err(MergeError::Overlap(s));
                }
                indices.push(s);
                // At most the planned games in all: no overflow.
                expected += Shard { index: s, count: shard.count }.games_in(0, shard.planned_games);
            }
            if t.games != expected {
                return Err(inconsistent(format!(
                    "{} games, but shard{} {:?} of a run of {} games in {} shards hold{} {expected}",
                    t.games,
                    if shard.indices.len() == 1 { "" } else { "s" },
                    shard.indices,
                    shard.planned_games,
                    shard.count,
                    if shard.indices.len() == 1 { "s" } else { "" },
                )));
            }
            tally = tally
                .checked_merge(&r.counts)
                .ok_or_else(|| inconsistent("the counts overflow when added to the other shards'".to_string()))?;
        }
        indices.sort_unstable();
        let complete = indices.len() == first_shard.count as usize;
        let shard = (!complete).then_some(ShardInfo {
            count: first_shard.count,
            indices,
            planned_games: first_shard.planned_games,
        });
        let meta = Meta {
            variant: first.variant.clone(),
            start_fen: first.start_fen.clone(),
            square_maps: first.square_maps,
            start_draw: first.start_draw,
            strategies: first.strategies.clone(),
            seed: first.seed,
            independent: first.independent,
            max_plies: first.max_plies,
        };
        Ok(SimResult::build(meta, shard, None, first.required_games.half_width, tally))
    }

    /// What makes the numbers mean less than they seem, to show before them: games that are
    /// not independent trials (one game repeated).
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if !self.independent {
            warnings.push(format!(
                "warning: both strategies are deterministic ({} against {}) and {} leaves nothing to chance, so every \
                 game repeats the first: these are not {} independent trials and the intervals do not apply. Let one \
                 side play random or random-piece (the engine strategy takes no random option).",
                self.strategies.white, self.strategies.black, self.variant, self.games
            ));
        }
        warnings
    }

    /// Notes a reader must see next to the numbers: where the probability maps came from, and
    /// means over the finished games only.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        match self.square_maps {
            Some(SquareMaps::PerGame) => notes.push(
                "probability maps: each game drew its own random map from its own stream (start_fen omits the map)"
                    .to_string(),
            ),
            Some(SquareMaps::Fixed) => notes.push(
                "probability map: every game was played on the map of the given start position (start_fen)".to_string(),
            ),
            None => {}
        }
        match self.start_draw {
            Some(StartDraw::Chess960) => notes.push(
                "start positions: each game drew one of the 960 Chess960 starts from its own stream (start_fen is the \
                 orthodox one; --games-csv and --show-game give each game's)"
                    .to_string(),
            ),
            Some(StartDraw::SnowfallPercent) => notes.push(
                "SnowFall percentage: each game drew its own from 10 to 24 %, as a SnowFall game does (--games-csv gives \
                 each game's; --snowfall N plays every game at N)"
                    .to_string(),
            ),
            None => {}
        }
        let unfinished = self.counts.unfinished;
        if unfinished > 0 {
            let finished = self.games - unfinished.min(self.games);
            notes.push(format!(
                "plies, full_moves: mean over the {finished} finished game{}; {unfinished} cut off at the cap of {} plies (unfinished)",
                if finished == 1 { "" } else { "s" },
                cap_text(self.max_plies)
            ));
        }
        notes
    }

    /// The statistics as a plain-text table for a terminal.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} game{} of {}, white {} vs black {}, seed {}{}",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.variant,
            self.strategies.white,
            self.strategies.black,
            self.seed,
            self.shard.as_ref().map_or(String::new(), |sh| format!(", shards {:?} of {}", sh.indices, sh.count))
        );
        for warning in self.warnings() {
            let _ = writeln!(s, "{warning}");
        }
        let _ = writeln!(s, "{:<24} {:>9} {:>10} {:>21}", "statistic", "count", "estimate", "95% interval");
        for (name, p) in self.proportions() {
            let _ =
                writeln!(s, "{name:<24} {:>9} {:>10.4} {:>21}", p.count, p.p, format!("[{:.4}, {:.4}]", p.lo, p.hi));
        }
        for (name, m) in self.means() {
            let interval = mean_interval_text(m);
            let _ = writeln!(s, "{name:<24} {:>9} {:>10} {interval:>21}  sd {}", m.n, fixed3(m.mean), fixed3(m.sd));
        }
        let _ = writeln!(s, "intervals: 95 %, Wilson for proportions, Student t (n - 1 degrees of freedom) for means");
        for note in self.notes() {
            let _ = writeln!(s, "{note}");
        }
        let e = &self.counts.endings;
        let _ = writeln!(
            s,
            "endings: checkmate {}, stalemate {}, other {} (king captured {}, fifty moves {}, repetition {}, insufficient material {}, ply limit {}), unfinished {}",
            e.checkmate,
            e.stalemate,
            e.other(),
            e.king_captured,
            e.fifty_moves,
            e.repetition,
            e.insufficient_material,
            e.ply_limit,
            e.max_plies
        );
        let q = &self.required_games;
        let needed: Vec<String> = q
            .quantities
            .iter()
            .map(|(name, n)| format!("{name} {}", if *n == u64::MAX { "∞".to_string() } else { n.to_string() }))
            .collect();
        let _ = writeln!(
            s,
            "games needed for a 95 % half-width of {}: {} (any proportion, worst case {})",
            q.half_width,
            needed.join(", "),
            q.proportion_worst_case
        );
        if let Some(q) = &self.sequential {
            let _ = writeln!(
                s,
                "sequential: half-width {} for {} {} after {} games (batches {:?})",
                q.half_width,
                q.quantities.join(", "),
                if q.met { "reached" } else { "NOT reached" },
                self.games,
                q.batches
            );
        }
        s
    }

    /// The proportion statistics with their JSON names, in report order.
    pub fn proportions(&self) -> [(&'static str, &ProportionStat); 8] {
        [
            ("white_win", &self.white_win),
            ("black_win", &self.black_win),
            ("draw", &self.draw),
            ("unfinished", &self.unfinished),
            ("promotion_any", &self.promotion_any),
            ("promotion_white", &self.promotion_white),
            ("promotion_black", &self.promotion_black),
            ("promotion_random_player", &self.promotion_random_player),
        ]
    }

    /// The mean statistics with their JSON names, in report order.
    pub fn means(&self) -> [(&'static str, &MeanStat); 5] {
        [
            ("plies", &self.plies),
            ("full_moves", &self.full_moves),
            ("plies_given_white_win", &self.plies_given_white_win),
            ("plies_given_black_win", &self.plies_given_black_win),
            ("plies_given_draw", &self.plies_given_draw),
        ]
    }
}

/// The Markdown section of one run: metadata, a proportion table and a mean table.
pub fn markdown_run(title: &str, r: &SimResult) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## {title}\n");
    let _ = writeln!(
        s,
        "Variant `{}` from `{}`; White `{}`, Black `{}`; seed {}; {} games{}.\n",
        r.variant,
        r.start_fen,
        r.strategies.white,
        r.strategies.black,
        r.seed,
        r.games,
        r.max_plies.map_or(String::new(), |m| format!(", capped at {m} plies"))
    );
    for warning in r.warnings() {
        let _ = writeln!(s, "**{warning}**\n");
    }
    let _ = writeln!(s, "| quantity | games | estimate | 95 % Wilson interval |\n|---|---:|---:|---|");
    for (name, p) in r.proportions() {
        let _ = writeln!(s, "| {name} | {} | {:.4} | [{:.4}, {:.4}] |", p.count, p.p, p.lo, p.hi);
    }
    let _ = writeln!(s, "\n| quantity | samples | mean | sd | 95 % Student-t interval |\n|---|---:|---:|---:|---|");
    for (name, m) in r.means() {
        let _ = writeln!(s, "| {name} | {} | {} | {} | {} |", m.n, fixed3(m.mean), fixed3(m.sd), mean_interval_text(m));
    }
    let notes = r.notes();
    if !notes.is_empty() {
        let _ = writeln!(s);
    }
    for note in notes {
        let _ = writeln!(s, "- {note}");
    }
    let q = &r.required_games;
    let _ = writeln!(
        s,
        "\nGames needed for a 95 % half-width of {}: {} for any proportion (worst case, normal quantile); from these \
         estimates (normal quantile for proportions, Student's t for means):",
        q.half_width, q.proportion_worst_case
    );
    for (name, n) in &q.quantities {
        let shown = if *n == u64::MAX { "∞".to_string() } else { n.to_string() };
        let _ = writeln!(s, "- {name}: {shown}");
    }
    let _ = writeln!(s);
    s
}

/// A Markdown report of several runs (e.g. a base run and a variation of it): one section
/// per run and, for two runs, a table of the outcome differences. Plots are linked by the
/// names [`crate::plot::write_run_plots`] and [`crate::plot::comparison_svg`] files use.
pub fn markdown_report(title: &str, runs: &[(&str, &SimResult)]) -> String {
    let mut s = format!("# {title}\n\n");
    for (i, (name, r)) in runs.iter().enumerate() {
        s.push_str(&markdown_run(name, r));
        let _ = writeln!(
            s,
            "![outcomes of {name}](run{i}-outcomes.svg)\n\n![game lengths of {name}](run{i}-lengths.svg)\n"
        );
    }
    if let [(a_name, a), (b_name, b)] = runs {
        let _ = writeln!(s, "## {b_name} against {a_name}\n");
        let _ = writeln!(s, "| outcome | {a_name} | {b_name} | difference |\n|---|---:|---:|---:|");
        for (name, x, y) in [
            ("white_win", &a.white_win, &b.white_win),
            ("black_win", &a.black_win, &b.black_win),
            ("draw", &a.draw, &b.draw),
        ] {
            let _ = writeln!(s, "| {name} | {:.4} | {:.4} | {:+.4} |", x.p, y.p, y.p - x.p);
        }
        let _ = writeln!(s, "\n![comparison](comparison.svg)\n");
    }
    s
}

/// The results in game-result order for plots: (label, result).
pub const RESULTS: [(&str, GameResult); 4] = [
    ("white win", GameResult::WhiteWin),
    ("black win", GameResult::BlackWin),
    ("draw", GameResult::Draw),
    ("unfinished", GameResult::Unfinished),
];
