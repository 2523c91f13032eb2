//! `fairylab sim`: Monte Carlo runs (fixed count, sequential to a half-width, or one shard)
//! and `fairylab sim merge` of shard results; parsing and output only, the work is in `sim`.

mod baby_report;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use sim::progress::Progress;
use sim::report::SimResult;
use sim::runner::{run, Ending, GameResult, RunConfig, Shard};
use sim::sequential::{run_sequential, Quantity, SequentialPlan};
use sim::Strategy;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

/// `fairylab sim ...`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct SimArgs {
    #[command(subcommand)]
    action: Option<SimAction>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Debug, Subcommand)]
enum SimAction {
    /// Merge the JSON results of shards of one run (`--shard i/N`) into one result.
    Merge(MergeArgs),
    /// Answer the Baby Chess seed's questions 1–4 in one run: report.md, results.json and
    /// SVG plots in a directory.
    Baby(baby_report::BabyArgs),
}

#[derive(Debug, Args)]
struct MergeArgs {
    /// Shard result files written by `fairylab sim --shard i/N --json F`.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Write the merged result here and print the summary (default: the JSON on stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("amount").args(["games", "half_width", "show_game"]).required(true)))]
struct RunArgs {
    #[command(flatten)]
    variant: crate::VariantArgs,
    /// Start every game here (default: the variant's start position). In Probabilistic chess
    /// every game is then played on this FEN's map; without it, each game draws its own.
    #[arg(long)]
    fen: Option<String>,
    /// White's strategy: random, random-piece, engine:depth=N or engine:nodes=N.
    #[arg(long, value_name = "STRATEGY", default_value = "random", value_parser = Strategy::from_str)]
    white: Strategy,
    /// Black's strategy (as --white).
    #[arg(long, value_name = "STRATEGY", default_value = "random", value_parser = Strategy::from_str)]
    black: Strategy,
    /// Play this many games.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = positive_u64)]
    games: Option<u64>,
    /// Sequential mode: play until every quantity's 95 % half-width is at most H.
    #[arg(long, value_name = "H", allow_hyphen_values = true, value_parser = half_width)]
    half_width: Option<f64>,
    /// Quantities sequential mode bounds, comma-separated (default white_win,black_win,draw).
    #[arg(long, value_name = "LIST", value_delimiter = ',', requires = "half_width", value_parser = Quantity::from_str)]
    quantities: Vec<Quantity>,
    /// Sequential mode never stops before this many games.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = positive_u64, requires = "half_width")]
    min_games: Option<u64>,
    /// Sequential mode gives up after this many games.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = positive_u64, requires = "half_width")]
    max_games: Option<u64>,
    /// The seed every game's random stream derives from.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = seed)]
    seed: u64,
    /// Worker threads, 1 to 256 (default: all cores); the results do not depend on it.
    #[arg(long, value_name = "T", allow_hyphen_values = true, value_parser = threads)]
    threads: Option<u64>,
    /// Write the JSON result here (docs/FORMATS.md, "Simulation results"); `-`: on stdout, the
    /// summary then on stderr.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Play only shard i of N (games whose index is i modulo N, i from 0); merge the shards'
    /// JSON with `fairylab sim merge`.
    #[arg(long, value_name = "i/N", allow_hyphen_values = true, value_parser = Shard::from_str, conflicts_with = "half_width")]
    shard: Option<Shard>,
    /// Stop a game after N plies and count it as unfinished (default: only the rules end games).
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = positive_u32)]
    max_plies: Option<u32>,
    /// Also write one CSV row per game played: `game,result,ending,plies,white_promoted,
    /// black_promoted` (the games are replayed after the run, in index order).
    #[arg(long, value_name = "FILE")]
    games_csv: Option<PathBuf>,
    /// Play only game N of the run (the game the run plays with index N, from 0) and print its
    /// PGN record, chance outcomes and square map included.
    #[arg(long, value_name = "N", conflicts_with_all = ["json", "games_csv", "shard"])]
    show_game: Option<u64>,
}

/// A game's end as the CSV writes it.
fn ending_name(e: Ending) -> &'static str {
    match e {
        Ending::Checkmate => "checkmate",
        Ending::Stalemate => "stalemate",
        Ending::KingCaptured => "king_captured",
        Ending::FiftyMoves => "fifty_moves",
        Ending::Repetition => "repetition",
        Ending::InsufficientMaterial => "insufficient_material",
        Ending::PlyLimit => "ply_limit",
        Ending::MaxPlies => "max_plies",
    }
}

/// `--games-csv`: the run's games replayed in index order (the same games: each depends only
/// on the seed and its index), one row each.
fn write_games_csv(cfg: &RunConfig, indices: &[u64], path: &Path) -> Result<()> {
    use rayon::prelude::*;
    let rows: Vec<String> = indices
        .par_iter()
        .map_init(
            || sim::runner::Scratch::new(cfg),
            |scratch, &i| {
                let g = sim::runner::play_game(cfg, i, scratch, None);
                let result = match g.result {
                    GameResult::WhiteWin => "1-0",
                    GameResult::BlackWin => "0-1",
                    GameResult::Draw => "1/2-1/2",
                    GameResult::Unfinished => "*",
                };
                let [w, b] = g.promoted.map(u8::from);
                let drawn = g.drawn.map_or_else(String::new, |n| format!(",{n}"));
                format!("{i},{result},{},{},{w},{b}{drawn}\n", ending_name(g.ending), g.plies)
            },
        )
        .collect();
    let mut text = String::from("game,result,ending,plies,white_promoted,black_promoted");
    // What each game drew for its start, where the run draws it.
    text.push_str(match cfg.draw {
        Some(sim::runner::StartDraw::Chess960) => ",chess960_start\n",
        Some(sim::runner::StartDraw::SnowfallPercent) => ",snowfall_percent\n",
        None => "\n",
    });
    text.extend(rows);
    write_atomically(path, &text)
}

/// `--show-game N`: the PGN record of game `index`.
fn show_game(cfg: &RunConfig, index: u64, out: &mut impl Write) -> Result<()> {
    let (start, line, _) = sim::runner::replay_game(cfg, index);
    let mut game = rules::game::Game::new(start);
    for (ply, &(m, e)) in line.iter().enumerate() {
        game.play_event(m, e).map_err(|err| anyhow::anyhow!("game {index}, ply {}: {err}", ply + 1))?;
    }
    let tags = [
        ("Event".to_string(), "fairylab sim".to_string()),
        ("Site".to_string(), "fairylab".to_string()),
        ("Round".to_string(), index.to_string()),
        ("White".to_string(), cfg.white.to_string()),
        ("Black".to_string(), cfg.black.to_string()),
        ("SimSeed".to_string(), cfg.seed.to_string()),
    ];
    write!(out, "{}", rules::record::write_pgn(&game, &tags))?;
    Ok(())
}

fn seed(s: &str) -> Result<u64, String> {
    s.trim().parse::<u64>().map_err(|_| format!("'{s}' is not a seed (a whole number from 0 to {})", u64::MAX))
}

fn positive_u64(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a positive whole number")),
    }
}

/// The most worker threads `--threads` may ask for: the engine's limit (each thread costs a
/// stack and a rayon worker; thousands make a run slow, millions never start it).
pub(crate) const MAX_THREADS: u64 = engine::protocol::MAX_THREADS as u64;

/// `--threads`: 1 to [`MAX_THREADS`].
pub(crate) fn threads(s: &str) -> Result<u64, String> {
    match positive_u64(s)? {
        n if n > MAX_THREADS => Err(format!("{n} threads: at most {MAX_THREADS}")),
        n => Ok(n),
    }
}

fn positive_u32(s: &str) -> Result<u32, String> {
    let n = positive_u64(s)?;
    u32::try_from(n).map_err(|_| format!("{n} is too large"))
}

fn half_width(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(h) if h.is_finite() && h > 0.0 => Ok(h),
        Ok(_) => Err(format!("'{s}' must be a positive number")),
        Err(_) => Err(format!("'{s}' is not a number")),
    }
}

/// Runs `fairylab sim`.
pub(crate) fn sim(a: &SimArgs, out: &mut impl Write) -> Result<()> {
    match &a.action {
        Some(SimAction::Merge(m)) => merge(m, out),
        Some(SimAction::Baby(b)) => baby_report::baby(b, out),
        None => simulate(&a.run, out),
    }
}

/// The temporary file `path` is written through: in the same directory (so renaming it is
/// atomic), hidden, and named by the process.
fn temporary(path: &Path) -> Result<PathBuf> {
    let name = path.file_name().with_context(|| format!("{} is not a file name", path.display()))?;
    let mut temp = std::ffi::OsString::from(".");
    temp.push(name);
    temp.push(format!(".{}.tmp", std::process::id()));
    Ok(path.with_file_name(temp))
}

/// Checks before a long run that `path` can be written: not a directory, in a directory where
/// a file can be created (a probe file, removed at once). Nothing is left at `path`, so an
/// interrupted run leaves no empty or partial file there (and an earlier file untouched).
/// The caller names the file in the error.
pub(crate) fn check_writable(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("{} is a directory", path.display());
    }
    let temp = temporary(path)?;
    std::fs::File::create(&temp)?;
    std::fs::remove_file(&temp)?;
    Ok(())
}

/// Writes `text` to `path` whole or not at all: into a temporary file in the same directory,
/// then renamed into place. The caller names the file in the error.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let temp = temporary(path)?;
    let written = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    Ok(written?)
}

/// "1 thread", "2 threads".
pub(crate) fn threads_text(n: usize) -> String {
    format!("{n} thread{}", if n == 1 { "" } else { "s" })
}

/// Worker threads: `--threads` if given, else every core.
pub(crate) fn thread_count(threads: Option<u64>) -> Result<usize> {
    match threads {
        Some(t) => usize::try_from(t).context("--threads is too large"),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// A rayon pool of `threads` worker threads.
pub(crate) fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .with_context(|| format!("cannot start {threads} threads"))
}

fn simulate(a: &RunArgs, out: &mut impl Write) -> Result<()> {
    let v = crate::in_turn(crate::variant(&a.variant)?)?;
    // A given start position is played as given, its probability map too; the variant's own
    // start gives each Probabilistic game its own map.
    let base = match a.fen.as_deref() {
        Some(fen) => RunConfig::from_position(crate::position(v, Some(fen))?, a.seed),
        None => RunConfig::new(v, a.seed),
    };
    // A SnowFall game without a chosen percentage draws its own, as `play` and the server's do.
    let draw = match base.draw {
        None if a.fen.is_none()
            && a.variant.snowfall.is_none()
            && a.variant.variant_file.is_none()
            && rules::variants::snowfall::percent(v).is_some() =>
        {
            Some(sim::runner::StartDraw::SnowfallPercent)
        }
        d => d,
    };
    let cfg = RunConfig { white: a.white, black: a.black, max_plies: a.max_plies, draw, ..base };
    // `--json -`: the JSON on stdout, the summary on stderr (as `egt --save -` writes its table).
    let json_file = a.json.as_deref().filter(|p| p.as_os_str() != "-");
    if let Some(path) = json_file {
        check_writable(path).with_context(|| format!("cannot write JSON file {}", path.display()))?;
    }
    if let Some(index) = a.show_game {
        return show_game(&cfg, index, out);
    }
    if let Some(path) = a.games_csv.as_deref() {
        check_writable(path).with_context(|| format!("cannot write CSV file {}", path.display()))?;
    }
    let threads = thread_count(a.threads)?;
    let pool = thread_pool(threads)?;
    let clock = Instant::now();
    let result = if let Some(h) = a.half_width {
        let mut plan = SequentialPlan::new(h);
        if !a.quantities.is_empty() {
            plan.quantities = a.quantities.clone();
        }
        if let Some(m) = a.min_games {
            plan.min_games = m;
        }
        if let Some(m) = a.max_games {
            plan.max_games = m;
        }
        if plan.max_games < plan.min_games {
            let given = if a.min_games.is_some() { "" } else { " (the default)" };
            bail!("--max-games {} is below --min-games {}{given}", plan.max_games, plan.min_games);
        }
        let progress = Progress::new(0);
        let outcome = pool.install(|| run_sequential(&cfg, &plan, &progress.callback()));
        progress.finish();
        SimResult::sequential(&cfg, &plan, outcome)
    } else {
        let games = a.games.context("give --games N or --half-width H")?;
        let shard = a.shard.unwrap_or(Shard::ALL);
        let progress = Progress::new(shard.games_in(0, games));
        let tally = pool.install(|| run(&cfg, games, shard, &progress.callback()));
        progress.finish();
        SimResult::new(&cfg, tally, shard, games, None)
    };
    let seconds = clock.elapsed().as_secs_f64();
    if a.json.is_some() && json_file.is_none() {
        eprint!("{}", result.summary());
        out.write_all(result.to_json().as_bytes())?;
    } else {
        out.write_all(result.summary().as_bytes())?;
    }
    if let Some(path) = json_file {
        write_atomically(path, &result.to_json())
            .with_context(|| format!("cannot write JSON file {}", path.display()))?;
    }
    if let Some(path) = a.games_csv.as_deref() {
        // The games the run played: its shard's of 0..games, or a sequential run's first ones.
        let shard = a.shard.unwrap_or(Shard::ALL);
        let indices: Vec<u64> = (0..result.games * u64::from(shard.count))
            .filter(|i| i % u64::from(shard.count) == u64::from(shard.index))
            .take(result.games as usize)
            .collect();
        pool.install(|| write_games_csv(&cfg, &indices, path))
            .with_context(|| format!("cannot write CSV file {}", path.display()))?;
    }
    out.flush()?;
    let speed = if seconds > 0.0 { result.games as f64 / seconds } else { 0.0 };
    eprintln!("time {seconds:.3} s, {speed:.0} games/s on {}", threads_text(threads));
    Ok(())
}

fn merge(a: &MergeArgs, out: &mut impl Write) -> Result<()> {
    let mut results = Vec::new();
    for path in &a.files {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let r = SimResult::from_json(&text)
            .with_context(|| format!("{} is not a fairylab simulation result", path.display()))?;
        results.push(r);
    }
    let merged = SimResult::merge(&results).context("cannot merge")?;
    match a.json.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            write_atomically(path, &merged.to_json())
                .with_context(|| format!("cannot write JSON file {}", path.display()))?;
            out.write_all(merged.summary().as_bytes())?;
        }
        None => out.write_all(merged.to_json().as_bytes())?,
    }
    Ok(())
}
