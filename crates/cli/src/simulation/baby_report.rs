//! `fairylab sim baby --report DIR`: the Baby Chess seed's questions 1–4 in one run.
//!
//! A sequential base run (random against random) until the 95 % half-width of every outcome
//! proportion, the promotion probability and the mean lengths is at most H answers questions
//! 1–3; a fixed run of the question-4 variant (White may double-step) answers question 4.
//! Everything is written into DIR: `report.md` (with timing), `results.json` (without: it
//! depends only on the seed and the options) and the SVG plots of `sim::plot`.
//! Every sentence of the report's interpretations is chosen from the numbers.

use super::{
    check_writable, half_width, positive_u64, thread_count, thread_pool, threads, threads_text, write_atomically,
};
use anyhow::{Context, Result};
use clap::Args;
use rules::variants::baby::{BabyOptions, BabySetup};
use serde::Serialize;
use sim::plot::write_run_plots;
use sim::progress::Progress;
use sim::report::{markdown_run, mean_interval_text, MeanStat, ProportionStat, SimResult};
use sim::runner::{run, RunConfig, Shard};
use sim::sequential::{run_sequential, Quantity, SequentialPlan};
use sim::stats::{Moments, CONFIDENCE, Z95};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// The half-width question 3 asks about.
const Q3_HALF_WIDTH: f64 = 0.01;

/// Added to the seed for the question-4 run, so its games are independent of the base run's.
const Q4_SEED_OFFSET: u64 = 0x9E37_79B9_7F4A_7C15;

/// The quantities the base run bounds.
const QUANTITIES: [Quantity; 7] = [
    Quantity::WhiteWin,
    Quantity::BlackWin,
    Quantity::Draw,
    Quantity::PromotionAny,
    Quantity::Plies,
    Quantity::FullMoves,
    Quantity::PliesGivenWhiteWin,
];

/// `--setup` of `sim baby`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Setup {
    /// kqbnr/ppppp/5/PPPPP/RNBQK (kings in opposite corners, the default).
    Baby,
    /// rnbqk/ppppp/5/PPPPP/RNBQK (Gardner's minichess setup).
    Gardner,
}

/// Arguments of `fairylab sim baby`.
#[derive(Debug, Args)]
pub(crate) struct BabyArgs {
    /// Write report.md, results.json and the SVG plots into this directory (created if missing).
    #[arg(long, value_name = "DIR")]
    report: PathBuf,
    /// The seed of the base run (the question-4 run uses a seed derived from it).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads, 1 to 256 (default: all cores); the results do not depend on it.
    #[arg(long, value_name = "T", allow_hyphen_values = true, value_parser = threads)]
    threads: Option<u64>,
    /// The start position.
    #[arg(long, value_enum, value_name = "SETUP", default_value = "baby")]
    setup: Setup,
    /// The base run plays until every bounded 95 % half-width is at most H.
    #[arg(long, value_name = "H", default_value_t = 0.01, allow_hyphen_values = true, value_parser = half_width)]
    half_width: f64,
    /// Games of the question-4 run (default: as many as the base run played, at most
    /// 4,000,000: half-widths of a few hundredths of a percentage point on its proportions).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = positive_u64)]
    q4_games: Option<u64>,
}

/// The question-4 run's default cap: Q4 repeats question 1, whose proportions need far
/// fewer games than the base run's conditional mean length.
const Q4_DEFAULT_GAMES: u64 = 4_000_000;

/// A difference of two proportions with its 95 % interval.
#[derive(Debug, Clone, Serialize)]
struct Difference {
    estimate: f64,
    lo: f64,
    hi: f64,
    /// Whether the interval excludes zero.
    significant: bool,
}

impl Difference {
    fn new(estimate: f64, lo: f64, hi: f64) -> Difference {
        Difference { estimate, lo, hi, significant: lo > 0.0 || hi < 0.0 }
    }
}

/// p_white − p_black from the same games: a Wald interval with the multinomial variance
/// (p_w + p_b − (p_w − p_b)²) / n.
fn first_mover(r: &SimResult) -> Difference {
    let (pw, pb) = (r.white_win.p, r.black_win.p);
    let d = pw - pb;
    let n = r.games.max(1) as f64;
    let h = Z95 * ((pw + pb - d * d).max(0.0) / n).sqrt();
    Difference::new(d, d - h, d + h)
}

/// p_b − p_a of two independent samples: Newcombe's hybrid score interval (1998, method 10),
/// built from the two Wilson intervals.
fn newcombe(a: &ProportionStat, b: &ProportionStat) -> Difference {
    let d = b.p - a.p;
    let lo = d - ((b.p - b.lo).powi(2) + (a.hi - a.p).powi(2)).sqrt();
    let hi = d + ((b.hi - b.p).powi(2) + (a.p - a.lo).powi(2)).sqrt();
    Difference::new(d, lo, hi)
}

/// A mean length with what a half-width of [`Q3_HALF_WIDTH`] needs.
#[derive(Debug, Clone, Serialize)]
struct LengthAnswer {
    /// The estimate (samples, mean, sd, 95 % Student-t interval).
    estimate: MeanStat,
    /// The 95 % Student-t half-width reached.
    half_width: f64,
    /// Samples needed: the smallest n with t(n − 1)·sd/√n ≤ 0.01 (games, or White wins for
    /// the conditional mean).
    required_samples: u64,
    /// Games needed: the samples divided by the share of games that give one (the
    /// observed White-win rate for the conditional mean), rounded up.
    required_games: u64,
}

impl LengthAnswer {
    fn new(m: Moments, games: u64) -> LengthAnswer {
        let samples = m.t_required_samples(Q3_HALF_WIDTH, CONFIDENCE);
        let share = if games == 0 { 0.0 } else { m.n as f64 / games as f64 };
        let required_games = if share > 0.0 { (samples as f64 / share).ceil() as u64 } else { u64::MAX };
        LengthAnswer {
            estimate: MeanStat::new(m),
            half_width: m.t_half_width(CONFIDENCE),
            required_samples: samples,
            required_games,
        }
    }
}

/// Moments of ⌈plies / 2⌉ from a length histogram (index = plies).
fn full_moves_of(histogram: &[u64]) -> Moments {
    let mut m = Moments::default();
    for (plies, &count) in histogram.iter().enumerate() {
        let x = u128::from((plies as u64).div_ceil(2));
        m.n += count;
        m.sum += x * u128::from(count);
        m.sum_sq += x * x * u128::from(count);
    }
    m
}

#[derive(Debug, Serialize)]
struct Lengths {
    plies: LengthAnswer,
    full_moves: LengthAnswer,
}

#[derive(Debug, Serialize)]
struct Q1 {
    white_win: ProportionStat,
    black_win: ProportionStat,
    draw: ProportionStat,
    /// p_white − p_black of the base run (Wald, multinomial variance).
    first_mover: Difference,
}

#[derive(Debug, Serialize)]
struct Q2 {
    promotion_any: ProportionStat,
    promotion_white: ProportionStat,
    promotion_black: ProportionStat,
    promotion_random_player: ProportionStat,
}

#[derive(Debug, Serialize)]
struct Q3 {
    /// The half-width the question asks about (0.01).
    target_half_width: f64,
    /// Games the sequential base run played.
    games_used: u64,
    /// Whether the sequential run reached its half-width for every bounded quantity.
    sequential_met: bool,
    length: Lengths,
    length_given_white_win: Lengths,
}

#[derive(Debug, Serialize)]
struct OutcomeDifferences {
    white_win: Difference,
    black_win: Difference,
    draw: Difference,
    promotion_white: Difference,
}

#[derive(Debug, Serialize)]
struct Q4 {
    seed: u64,
    games: u64,
    /// Q4 minus base, Newcombe's hybrid score interval.
    method: &'static str,
    differences: OutcomeDifferences,
    /// p_white − p_black of the Q4 run (Wald, multinomial variance).
    first_mover: Difference,
}

#[derive(Debug, Serialize)]
struct Questions {
    setup: &'static str,
    half_width: f64,
    quantities: Vec<&'static str>,
    q1: Q1,
    q2: Q2,
    q3: Q3,
    q4: Q4,
}

#[derive(Debug, Serialize)]
struct Results<'a> {
    base: &'a SimResult,
    q4: &'a SimResult,
    questions: &'a Questions,
}

fn questions(a: &BabyArgs, base: &SimResult, q4: &SimResult, q4_seed: u64) -> Questions {
    let t = &base.counts;
    let length = |m: Moments| LengthAnswer::new(m, t.games);
    Questions {
        setup: setup_name(a.setup),
        half_width: a.half_width,
        quantities: QUANTITIES.iter().map(|q| q.name()).collect(),
        q1: Q1 {
            white_win: base.white_win.clone(),
            black_win: base.black_win.clone(),
            draw: base.draw.clone(),
            first_mover: first_mover(base),
        },
        q2: Q2 {
            promotion_any: base.promotion_any.clone(),
            promotion_white: base.promotion_white.clone(),
            promotion_black: base.promotion_black.clone(),
            promotion_random_player: base.promotion_random_player.clone(),
        },
        q3: Q3 {
            target_half_width: Q3_HALF_WIDTH,
            games_used: base.games,
            sequential_met: base.sequential.as_ref().is_some_and(|s| s.met),
            length: Lengths { plies: length(t.plies), full_moves: length(t.full_moves) },
            length_given_white_win: Lengths {
                plies: length(t.plies_given_white_win),
                full_moves: length(full_moves_of(&t.histograms.white_win)),
            },
        },
        q4: Q4 {
            seed: q4_seed,
            games: q4.games,
            method: "newcombe-hybrid-score",
            differences: OutcomeDifferences {
                white_win: newcombe(&base.white_win, &q4.white_win),
                black_win: newcombe(&base.black_win, &q4.black_win),
                draw: newcombe(&base.draw, &q4.draw),
                promotion_white: newcombe(&base.promotion_white, &q4.promotion_white),
            },
            first_mover: first_mover(q4),
        },
    }
}

fn setup_name(s: Setup) -> &'static str {
    match s {
        Setup::Baby => "baby",
        Setup::Gardner => "gardner",
    }
}

/// Runs `fairylab sim baby`.
pub(crate) fn baby(a: &BabyArgs, out: &mut impl Write) -> Result<()> {
    let dir = &a.report;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create the report directory {}", dir.display()))?;
    // Fail before the long run if the directory cannot take the files (leaving none behind).
    check_writable(&dir.join("report.md"))
        .with_context(|| format!("cannot write the report into {}", dir.display()))?;
    let setup = match a.setup {
        Setup::Baby => BabySetup::Baby,
        Setup::Gardner => BabySetup::Gardner,
    };
    let threads = thread_count(a.threads)?;
    let pool = thread_pool(threads)?;

    let base_cfg = RunConfig::new(rules::variants::baby(BabyOptions { setup, white_double_step: false }), a.seed);
    let mut plan = SequentialPlan::new(a.half_width);
    plan.quantities = QUANTITIES.to_vec();
    let clock = Instant::now();
    let progress = Progress::new(0);
    let outcome = pool.install(|| run_sequential(&base_cfg, &plan, &progress.callback()));
    progress.finish();
    let base = SimResult::sequential(&base_cfg, &plan, outcome);
    let base_seconds = clock.elapsed().as_secs_f64();

    let q4_seed = a.seed.wrapping_add(Q4_SEED_OFFSET);
    let q4_cfg = RunConfig::new(rules::variants::baby(BabyOptions { setup, white_double_step: true }), q4_seed);
    let q4_games = a.q4_games.unwrap_or(base.games.min(Q4_DEFAULT_GAMES));
    let clock = Instant::now();
    let progress = Progress::new(q4_games);
    let tally = pool.install(|| run(&q4_cfg, q4_games, Shard::ALL, &progress.callback()));
    progress.finish();
    let q4 = SimResult::new(&q4_cfg, tally, Shard::ALL, q4_games, Some(a.half_width));
    let q4_seconds = clock.elapsed().as_secs_f64();

    let q = questions(a, &base, &q4, q4_seed);
    let mut json = serde_json::to_string_pretty(&Results { base: &base, q4: &q4, questions: &q })?;
    json.push('\n');
    let write = |name: &str, text: &str| {
        write_atomically(&dir.join(name), text).with_context(|| format!("cannot write {}", dir.join(name).display()))
    };
    write("results.json", &json)?;
    write_run_plots(dir, &[("base", &base), ("Q4 double step", &q4)])
        .with_context(|| format!("cannot write the plots into {}", dir.display()))?;
    let timing = Timing { base: base_seconds, q4: q4_seconds, threads };
    write("report.md", &report(a, &base, &q4, &q, &timing))?;

    out.write_all(base.summary().as_bytes())?;
    out.write_all(q4.summary().as_bytes())?;
    writeln!(out, "report: {}", dir.join("report.md").display())?;
    out.flush()?;
    let total = base_seconds + q4_seconds;
    let games = base.games + q4.games;
    eprintln!("time {total:.3} s, {:.0} games/s on {}", games as f64 / total.max(1e-9), threads_text(threads));
    Ok(())
}

struct Timing {
    base: f64,
    q4: f64,
    threads: usize,
}

/// A proportion as a percentage with two decimals.
fn pct(x: f64) -> String {
    format!("{:.2} %", 100.0 * x)
}

/// A difference in percentage points with its interval.
fn points(d: &Difference) -> String {
    // A value that rounds to zero prints as +0.00, never -0.00.
    let p = |x: f64| {
        let v = (100.0 * x * 100.0).round() / 100.0;
        if v == 0.0 {
            0.0
        } else {
            v
        }
    };
    format!("{:+.2} points [{:+.2}, {:+.2}]", p(d.estimate), p(d.lo), p(d.hi))
}

fn interval(p: &ProportionStat) -> String {
    format!("[{:.4}, {:.4}]", p.lo, p.hi)
}

fn count(n: u64) -> String {
    if n == u64::MAX {
        "∞".to_string()
    } else {
        n.to_string()
    }
}

fn command_line() -> String {
    std::env::args()
        .map(|a| if a.contains(char::is_whitespace) || a.is_empty() { format!("'{a}'") } else { a })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first-mover paragraph of a run.
fn first_mover_text(r: &SimResult, d: &Difference) -> String {
    let mut s = format!(
        "White won {} of the games (95 % interval [{}, {}]) and Black {} ([{}, {}]); {} were drawn. \
         The difference p_white − p_black is {} (95 % Wald interval with the multinomial variance \
         (p_w + p_b − (p_w − p_b)²)/n, from the same {} games). ",
        pct(r.white_win.p),
        pct(r.white_win.lo),
        pct(r.white_win.hi),
        pct(r.black_win.p),
        pct(r.black_win.lo),
        pct(r.black_win.hi),
        pct(r.draw.p),
        points(d),
        r.games
    );
    let ratio = if r.black_win.p > 0.0 { format!("{:.3}", r.white_win.p / r.black_win.p) } else { "–".to_string() };
    if d.lo > 0.0 {
        let _ = write!(
            s,
            "The interval lies above zero: under RANDOM play the first mover has a significant advantage, \
             White winning {:.2} percentage points more often than Black (p_white / p_black = {ratio}).",
            100.0 * d.estimate
        );
    } else if d.hi < 0.0 {
        let _ = write!(
            s,
            "The interval lies below zero: under RANDOM play there is no first-mover advantage; Black, who \
             moves second, wins significantly more often, by {:.2} percentage points (p_white / p_black = {ratio}).",
            -100.0 * d.estimate
        );
    } else {
        let _ = write!(
            s,
            "The interval contains zero: these games show no significant difference between White's and \
             Black's win probabilities, so no first-mover advantage is detectable at this precision \
             (p_white / p_black = {ratio})."
        );
    }
    s
}

/// "raises ... by", "lowers ... by" or "does not change ... significantly" for a difference.
fn change_text(what: &str, before: &ProportionStat, after: &ProportionStat, d: &Difference) -> String {
    let verb = if d.lo > 0.0 {
        format!("raises {what} by {:.2} percentage points", 100.0 * d.estimate)
    } else if d.hi < 0.0 {
        format!("lowers {what} by {:.2} percentage points", -100.0 * d.estimate)
    } else {
        format!("does not change {what} significantly (the interval contains zero)")
    };
    format!("the double step {verb}: {} against {}, difference {}", pct(after.p), pct(before.p), points(d))
}

fn report(a: &BabyArgs, base: &SimResult, q4: &SimResult, q: &Questions, timing: &Timing) -> String {
    let mut s = String::new();
    let setup = setup_name(a.setup);
    let _ = writeln!(s, "# Baby Chess under the RANDOM strategy: the seed's questions 1–4\n");

    // How the run was made.
    let _ = writeln!(s, "## How the run was made\n");
    let total = timing.base + timing.q4;
    let games = base.games + q4.games;
    let seq = base.sequential.as_ref();
    let _ = writeln!(s, "- Command: `{}`", command_line());
    let _ = writeln!(
        s,
        "- Setup `{setup}`: variant `{}` from `{}`; question 4: variant `{}`.",
        base.variant, base.start_fen, q4.variant
    );
    let _ = writeln!(
        s,
        "- Seed {} for the base run; {} (seed + 0x9E3779B97F4A7C15) for question 4, so the two runs are independent.",
        base.seed, q4.seed
    );
    let _ = writeln!(
        s,
        "- Base run (questions 1–3): sequential mode until the 95 % half-width of {} was at most {} \
         (at least {} games); {} after **{} games** (batches ending at {:?}).",
        q.quantities.join(", "),
        a.half_width,
        seq.map_or(0, |q| q.min_games),
        if q.q3.sequential_met { "reached" } else { "NOT reached" },
        base.games,
        seq.map_or(&[][..], |q| &q.batches[..])
    );
    let _ = writeln!(
        s,
        "- Question-4 run: **{} games** ({}).",
        q4.games,
        if a.q4_games.is_some() { "set by --q4-games" } else { "as many as the base run, at most 4,000,000" }
    );
    let speed = |g: u64, t: f64| if t > 0.0 { g as f64 / t } else { 0.0 };
    let _ = writeln!(
        s,
        "- Time: base {:.1} s ({:.0} games/s), question 4 {:.1} s ({:.0} games/s), total {:.1} s for {} games ({:.0} games/s) on {}. The results do not depend on the thread count.\n",
        timing.base,
        speed(base.games, timing.base),
        timing.q4,
        speed(q4.games, timing.q4),
        total,
        games,
        speed(games, total),
        threads_text(timing.threads)
    );

    // Rules.
    let _ = writeln!(s, "## Rules readings\n");
    let _ = writeln!(
        s,
        "The rules are those of docs/RULES.md, \"baby (Baby Chess) and its options\" (RULINGS § Baby Chess). The key readings:\n\n\
         - Setup: the seed's Figure 1 is missing; `baby` is `kqbnr/ppppp/5/PPPPP/RNBQK w` (kings in opposite corners), `gardner` is `rnbqk/ppppp/5/PPPPP/RNBQK w`. This run: `{}`.\n\
         - No backward moves: a move may not lower the rank for White (raise it for Black); sideways moves are allowed, so knights have only their forward jumps.\n\
         - Five column switches: every move ending on another file counts one; after five the piece may only move within its file; a promoted queen starts at zero.\n\
         - Check respects these restrictions (a square is attacked only by a move the enemy could really make).\n\
         - Promotion to a queen only, mandatory; no castling, en passant or double step.\n\
         - The game ends by checkmate (a win) or stalemate (the only draw); there are no other draw rules and every game ends.\n\
         - Question 4: White's pawns on their starting rank may advance two squares if both are empty; Black never; still no en passant.\n\
         - RANDOM: uniform over all legal moves (not a piece first).\n",
        base.start_fen
    );

    // Q1.
    let _ = writeln!(s, "## Question 1: outcome probabilities\n");
    let _ = writeln!(s, "| outcome | games | estimate | 95 % Wilson interval |\n|---|---:|---:|---|");
    for (name, p) in [("white_win", &base.white_win), ("black_win", &base.black_win), ("draw", &base.draw)] {
        let _ = writeln!(s, "| {name} | {} | {:.4} | {} |", p.count, p.p, interval(p));
    }
    let fm = &q.q1.first_mover;
    let _ = writeln!(
        s,
        "| p_white − p_black | {} | {:+.4} | [{:+.4}, {:+.4}] (Wald, multinomial) |\n",
        base.games, fm.estimate, fm.lo, fm.hi
    );
    let _ = writeln!(s, "**First-mover advantage.** {}\n", first_mover_text(base, fm));
    let _ = writeln!(
        s,
        "For comparison, the seed quotes human games of Gardner's 5×5 chess (with double steps, en passant and castling): \
         White 40 %, Black 28 %, draws 32 %. Those are purposeful players under other rules, so they are not directly comparable.\n"
    );
    let _ = writeln!(s, "![outcomes of the base run](run0-outcomes.svg)\n");

    // Q2.
    let _ = writeln!(s, "## Question 2: promotion\n");
    let _ = writeln!(s, "| a pawn promoted to a queen during the game by | count | trials | estimate | 95 % Wilson interval |\n|---|---:|---:|---:|---|");
    for (name, p, trials) in [
        ("any player", &base.promotion_any, base.games),
        ("White", &base.promotion_white, base.games),
        ("Black", &base.promotion_black, base.games),
        ("a player chosen at random", &base.promotion_random_player, 2 * base.games),
    ] {
        let _ = writeln!(s, "| {name} | {} | {trials} | {:.4} | {} |", p.count, p.p, interval(p));
    }
    let _ = writeln!(
        s,
        "\nIn {} of the games at least one pawn was promoted; a player chosen at random (White or Black with \
         probability 1/2) promoted in {} of games. The two players of one game are not independent trials: both \
         promoted in {} games, against {:.0} if they were. So that row's interval is Wilson's with the effective number of \
         trials n·p̂(1−p̂)/s² (s² the variance of a game's (White + Black)/2; 2n for independent players, n for players \
         who always agree), not with the 2n players.\n",
        pct(base.promotion_any.p),
        pct(base.promotion_random_player.p),
        (base.promotion_white.count + base.promotion_black.count).saturating_sub(base.promotion_any.count),
        base.promotion_white.count as f64 * base.promotion_black.count as f64 / base.games.max(1) as f64
    );

    // Q3.
    let q3 = &q.q3;
    let _ = writeln!(s, "## Question 3: game length\n");
    let _ = writeln!(
        s,
        "Lengths in plies (one player's move) and in full moves (⌈plies/2⌉, White's moves); intervals are Student-t \
         intervals with n − 1 degrees of freedom. Runs needed for a 95 % half-width of {}: the smallest n with \
         t(n − 1)·sd/√n ≤ h at the run's own sd (a few more than ⌈(z·sd/h)²⌉ for the normal quantile z = 1.959964, as t(n − 1) > z); for the mean \
         given a White win, that many White wins, divided by the observed White-win rate ({}) for the games in all.\n",
        q3.target_half_width,
        pct(base.white_win.p)
    );
    let _ = writeln!(
        s,
        "| quantity | samples | mean | sd | 95 % interval | half-width | samples needed | games needed |\n|---|---:|---:|---:|---|---:|---:|---:|"
    );
    for (name, l) in [
        ("length (plies)", &q3.length.plies),
        ("length (full moves)", &q3.length.full_moves),
        ("length given White wins (plies)", &q3.length_given_white_win.plies),
        ("length given White wins (full moves)", &q3.length_given_white_win.full_moves),
    ] {
        let e = &l.estimate;
        let _ = writeln!(
            s,
            "| {name} | {} | {} | {} | {} | {:.4} | {} | {} |",
            e.n,
            sim::report::fixed3(e.mean),
            sim::report::fixed3(e.sd),
            mean_interval_text(e),
            l.half_width,
            count(l.required_samples),
            count(l.required_games)
        );
    }
    let lp = &q3.length.plies;
    let lw = &q3.length_given_white_win.plies;
    let _ = writeln!(
        s,
        "\nA game lasts {} plies on average ({} full moves); a game White wins lasts {} plies ({} full moves). \
         The sequential mode used **{} games**; a half-width of {} needs {} games for the mean length in plies and {} games \
         ({} White wins) for the mean length given a White win in plies. {}\n",
        sim::report::fixed3(lp.estimate.mean),
        sim::report::fixed3(q3.length.full_moves.estimate.mean),
        sim::report::fixed3(lw.estimate.mean),
        sim::report::fixed3(q3.length_given_white_win.full_moves.estimate.mean),
        q3.games_used,
        q3.target_half_width,
        count(lp.required_games),
        count(lw.required_games),
        count(lw.required_samples),
        if q3.games_used >= lw.required_games.max(lp.required_games) {
            "The run played at least as many games as both need, so both half-widths are within the target."
        } else if a.half_width > Q3_HALF_WIDTH {
            "The run played fewer games than that (it stopped at its larger --half-width), so these counts are extrapolations from its sd."
        } else {
            "The run played fewer games than that (the sequential mode did not reach its target), so these counts are extrapolations from its sd."
        }
    );
    let _ = writeln!(s, "![game lengths of the base run](run0-lengths.svg)\n");

    // Q4.
    let d = &q.q4.differences;
    let _ = writeln!(s, "## Question 4: White may double-step\n");
    let _ = writeln!(
        s,
        "{} games of `{}` (White random with the double step, Black random without), seed {}. Differences are Q4 − base with \
         Newcombe's hybrid score interval for a difference of independent proportions (1998, method 10, from the two Wilson intervals).\n",
        q4.games, q4.variant, q4.seed
    );
    let _ = writeln!(
        s,
        "| outcome | base | base 95 % interval | Q4 | Q4 95 % interval | difference (Q4 − base) | 95 % interval |\n|---|---:|---|---:|---|---:|---|"
    );
    for (name, x, y, diff) in [
        ("white_win", &base.white_win, &q4.white_win, &d.white_win),
        ("black_win", &base.black_win, &q4.black_win, &d.black_win),
        ("draw", &base.draw, &q4.draw, &d.draw),
        ("promotion_white", &base.promotion_white, &q4.promotion_white, &d.promotion_white),
    ] {
        let _ = writeln!(
            s,
            "| {name} | {:.4} | {} | {:.4} | {} | {:+.4} | [{:+.4}, {:+.4}] |",
            x.p,
            interval(x),
            y.p,
            interval(y),
            diff.estimate,
            diff.lo,
            diff.hi
        );
    }
    let fm4 = &q.q4.first_mover;
    let _ = writeln!(
        s,
        "\n**Interpretation.** Compared with the base run, {}; {}; {}. White promotes: {}. \
         Within the Q4 games p_white − p_black is {}, so {}.\n",
        change_text("White's win probability", &base.white_win, &q4.white_win, &d.white_win),
        change_text("Black's win probability", &base.black_win, &q4.black_win, &d.black_win),
        change_text("the draw probability", &base.draw, &q4.draw, &d.draw),
        change_text(
            "the probability that White promotes",
            &base.promotion_white,
            &q4.promotion_white,
            &d.promotion_white
        ),
        points(fm4),
        if fm4.lo > 0.0 {
            "with the double step White, the first mover, has a significant advantage"
        } else if fm4.hi < 0.0 {
            "even with the double step Black wins significantly more often than White"
        } else {
            "with the double step neither side has a significant advantage"
        }
    );
    let _ = writeln!(s, "![base against Q4](comparison.svg)\n\n![outcomes of Q4](run1-outcomes.svg)\n\n![game lengths of Q4](run1-lengths.svg)\n");

    // Appendix.
    let _ = writeln!(s, "# Appendix: the full tables\n");
    s.push_str(&markdown_run("Base run", base));
    s.push_str(&markdown_run("Question-4 run", q4));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_that_round_to_zero_print_without_a_minus_sign() {
        let d = Difference { estimate: -0.000_01, lo: -0.000_2, hi: 0.000_1, significant: false };
        assert_eq!(points(&d), "+0.00 points [-0.02, +0.01]");
    }

    fn stat(count: u64, n: u64) -> ProportionStat {
        let p = sim::stats::Proportion::new(count, n);
        let i = p.wilson95();
        ProportionStat { count, p: p.estimate(), lo: i.lo, hi: i.hi }
    }

    #[test]
    fn newcombe_matches_the_published_example() {
        // Newcombe (1998), Table II, example (a): 56/70 against 48/80, method 10: 0.0524 to 0.3339.
        let d = newcombe(&stat(48, 80), &stat(56, 70));
        assert_eq!(format!("{:.4} {:.4}", d.lo, d.hi), "0.0524 0.3339");
        assert!(d.significant);
    }

    #[test]
    fn full_moves_round_up() {
        let m = full_moves_of(&[0, 1, 1, 1]);
        assert_eq!((m.n, m.sum, m.sum_sq), (3, 1 + 1 + 2, 1 + 1 + 4));
    }
}
