//! `fairylab analyse`, `solve`, `play` and `bench`: the engine from the command line (best
//! lines with scores, an EPD suite's solved count, a terminal game, the benches).
//!
//! `bench` measures the search (its node signature), and with its options perft, the
//! simulator, endgame-table generation and Probabilistic chess's expectimax.

use crate::{position, variant, VariantArgs};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use engine::{Engine, Info, Limits};
use rules::game::Game;
use rules::san::{parse_san, to_san};
use rules::uci::{parse_uci, to_uci};
use rules::{perft, variants, Color, Position};
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `fairylab bench`.
#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// Search every position this many plies shallower (a quick run).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=8))]
    shallower: u32,
    /// One ply less on every position (a quick run; applies to --perft too).
    #[arg(long)]
    quick: bool,
    /// Run the move-generation bench instead (perft over a fixed list).
    #[arg(long)]
    perft: bool,
    /// A reference engine run just before, side by side: the command line of a program
    /// whose `bench` subcommand reports `Nodes/second` (Stockfish, Fairy-Stockfish);
    /// prints its speed and the ratio of our chess nodes/s to it.
    #[arg(long, value_name = "CMD", conflicts_with = "sim")]
    reference: Option<String>,
    /// Run the simulator bench instead: random-vs-random Baby Chess games from the default
    /// setup, games/s on all threads against the target, then on one thread.
    #[arg(long, conflicts_with = "perft")]
    sim: bool,
    /// --sim: games to play on all threads (the one-thread line plays a quarter of them).
    #[arg(long, value_name = "N", requires = "sim", value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,
    /// --sim: worker threads (default: all cores).
    #[arg(long, value_name = "T", requires = "sim", value_parser = clap::value_parser!(u64).range(1..=1024))]
    threads: Option<u64>,
    /// Run the endgame-table bench instead: KQ.KR (DTC), KBB.KN (DTC, DTM), each in its own
    /// process on all cores: wall and CPU seconds and peak memory against FairyGen's figures
    /// and the targets (`--quick`: KQ.KR only).
    #[arg(long, conflicts_with_all = ["perft", "sim", "reference"])]
    egt: bool,
    /// Run the Probabilistic chess bench instead: the expectimax search's nodes/s on a fixed
    /// position list (maps from fixed seeds), and the depth it and the blind search reach in one
    /// second from the start position.
    #[arg(long, conflicts_with_all = ["perft", "sim", "reference", "egt"])]
    probabilistic: bool,
}

/// `bench --egt`: the endgames, FairyGen's CPU seconds (and MB) on this machine as the issue
/// quotes them, and the wall-second target with 2 threads.
const EGT_BENCH: [EgtBenchRow; 3] = [
    ("KQ.KR DTC", &["KQ.KR"], Some(2.6), None, 0.5),
    ("KBB.KN DTC", &["KBB.KN"], Some(132.0), Some(163.0), 15.0),
    ("KBB.KN DTM", &["KBB.KN", "-m"], None, None, 15.0),
];

/// One `bench --egt` line: name, `egt` arguments, FairyGen CPU s and MB, target wall s.
type EgtBenchRow = (&'static str, &'static [&'static str], Option<f64>, Option<f64>, f64);

/// `bench --egt`: each generation in a child process (so peak memory is its own), parsing the
/// summary line `generated in W s wall, C s CPU, peak memory M`.
fn egt_bench(quick: bool, out: &mut impl Write) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find the fairylab executable")?;
    writeln!(
        out,
        "{:<12} {:>9} {:>9} {:>10} {:>14} {:>14} {:>10}",
        "ending", "wall s", "CPU s", "peak MB", "FairyGen CPU s", "FairyGen MB", "target s"
    )?;
    out.flush()?;
    for (name, args, fg_cpu, fg_mb, target) in EGT_BENCH.iter().take(if quick { 1 } else { EGT_BENCH.len() }) {
        let o = std::process::Command::new(&exe)
            .arg("egt")
            .args(*args)
            .output()
            .with_context(|| format!("cannot run {} egt", exe.display()))?;
        let err = String::from_utf8_lossy(&o.stderr);
        if !o.status.success() {
            bail!("egt {}: {}", args.join(" "), err.lines().last().unwrap_or("failed"));
        }
        let line = err.lines().find(|l| l.starts_with("generated in ")).context("no summary line from egt")?;
        let num = |before: &str| -> Option<f64> {
            let i = line.find(before)?;
            line[..i].trim_end().rsplit([' ', ',']).next()?.parse().ok()
        };
        let (wall, cpu) = (num(" s wall").unwrap_or(f64::NAN), num(" s CPU").unwrap_or(f64::NAN));
        let mb = line.rsplit("peak memory ").next().and_then(|m| {
            let (n, unit) = m.trim().split_once(' ')?;
            let n: f64 = n.parse().ok()?;
            Some(match unit {
                "KB" => n / 1000.0,
                "GB" => n * 1000.0,
                _ => n,
            })
        });
        let opt = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.1}"));
        writeln!(
            out,
            "{name:<12} {wall:>9.2} {cpu:>9.2} {:>10} {:>14} {:>14} {:>10.1}{}",
            opt(mb),
            opt(*fg_cpu),
            opt(*fg_mb),
            target,
            if wall <= *target { "" } else { "  (slower than the target)" }
        )?;
        out.flush()?;
    }
    Ok(())
}

/// `bench --sim`: the target speed on this project's 2-core reference machine.
const SIM_TARGET_GAMES_PER_SECOND: f64 = 500_000.0;

/// Arguments of `fairylab analyse`.
#[derive(Debug, Args)]
pub(crate) struct AnalyseArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The position (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Moves played from the position first (UCI or SAN, space-separated).
    #[arg(long, default_value = "")]
    moves: String,
    /// Search depth in plies (without --depth or --movetime: depth 12).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100), conflicts_with = "movetime")]
    depth: Option<u32>,
    /// Search time in milliseconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Endgame table files (`fairylab egt ... --out FILE`) the search uses as exact knowledge.
    #[arg(long, value_name = "FILE")]
    tables: Vec<std::path::PathBuf>,
    /// Search as if chance played no part: every move has its plain outcome (no gift arrives,
    /// every move succeeds).
    #[arg(long)]
    blind: bool,
    /// The best N lines at every depth (each costs about one more search).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=500))]
    multipv: u32,
    /// Only these moves of the position analysed (UCI or SAN, space-separated), as UCI's
    /// `searchmoves`.
    #[arg(long, value_name = "MOVES")]
    searchmoves: Option<String>,
    /// Search threads (Lazy SMP, as UCI's `Threads`; with several the result is not
    /// reproducible node for node, and MultiPV searches on one).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: u32,
}

/// Arguments of `fairylab solve`.
#[derive(Debug, Args)]
pub(crate) struct SolveArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// An EPD file with `bm` (best move) or `am` (avoid move) opcodes in SAN; `#` starts a comment line.
    #[arg(long, value_name = "FILE")]
    epd: std::path::PathBuf,
    /// Search time per position in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: u64,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    hash: u64,
    /// Only the first N positions.
    #[arg(long)]
    limit: Option<usize>,
}

/// Arguments of `fairylab play`.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The start position (default: the variant's).
    #[arg(long)]
    fen: Option<String>,
    /// The side you play.
    #[arg(long, default_value = "white", value_parser = ["white", "black"])]
    color: String,
    /// The engine's time per move in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: u64,
    /// Seed for chance events (dice) in chance variants.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Endgame table files the engine uses as exact knowledge.
    #[arg(long, value_name = "FILE")]
    tables: Vec<std::path::PathBuf>,
    /// The engine's level, 1 (weakest) to 8 (full strength), as the play server's AI levels
    /// (each some 240-410 Elo above the one before; docs/MATCHES.md). Its choices among its
    /// lines are drawn from --seed.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=8))]
    level: u8,
}

/// The engine's endgame tables from `--tables` files (none given: none).
fn tablebase(files: &[std::path::PathBuf]) -> Result<Option<std::sync::Arc<egt::tablebase::Tablebase>>> {
    if files.is_empty() {
        return Ok(None);
    }
    let paths: Vec<&std::path::Path> = files.iter().map(|p| p.as_path()).collect();
    Ok(Some(std::sync::Arc::new(egt::tablebase::Tablebase::load(&paths)?)))
}

/// The search bench (or the perft bench with `--perft`).
pub(crate) fn bench(a: &BenchArgs, out: &mut impl Write) -> Result<()> {
    if a.perft {
        return perft_bench(a.quick, out);
    }
    if a.sim {
        return sim_bench(a.games.unwrap_or(2_000_000), a.threads, out);
    }
    if a.egt {
        return egt_bench(a.quick, out);
    }
    if a.probabilistic {
        return probabilistic_bench(-(a.shallower as i32) - i32::from(a.quick), out);
    }
    // The reference runs first, so a reference that fails stops the command before output.
    let reference = a.reference.as_deref().map(reference_nps).transpose()?;
    let offset = -(a.shallower as i32) - i32::from(a.quick);
    writeln!(out, "{:<20} {:>5} {:>12} {:>9} {:>10}", "position", "depth", "nodes", "seconds", "nodes/s")?;
    out.flush()?;
    let mut lines = Vec::new();
    engine::bench::run(offset, |l| {
        bench_line(out, l);
        lines.push(l.clone());
    });
    let total: u64 = lines.iter().map(|l| l.nodes).sum();
    let secs: f64 = lines.iter().map(|l| l.time.as_secs_f64()).sum::<f64>().max(1e-9);
    let chess: Vec<_> = lines.iter().filter(|l| l.case.variant == "chess").collect();
    let chess_nodes: u64 = chess.iter().map(|l| l.nodes).sum();
    let chess_secs: f64 = chess.iter().map(|l| l.time.as_secs_f64()).sum::<f64>().max(1e-9);
    writeln!(out, "{:<20} {:>5} {total:>12} {secs:>9.3} {:>10.0}", "total", "", total as f64 / secs)?;
    let chess_nps = chess_nodes as f64 / chess_secs;
    writeln!(out, "chess nodes/s: {chess_nps:.0}")?;
    writeln!(out, "bench signature: {total}")?;
    if let (Some(cmd), Some(nps)) = (&a.reference, reference) {
        writeln!(out, "reference nodes/s: {nps:.0} ({cmd} bench)")?;
        writeln!(out, "chess nodes/s / reference: {:.3}", chess_nps / nps.max(1.0))?;
    }
    Ok(())
}

/// One bench table row: position, depth, nodes, seconds, nodes/s (flushed at once).
fn bench_line(out: &mut impl Write, l: &engine::bench::BenchLine) {
    let secs = l.time.as_secs_f64().max(1e-9);
    let _ = writeln!(
        out,
        "{:<20} {:>5} {:>12} {:>9.3} {:>10.0}",
        l.case.name,
        l.depth,
        l.nodes,
        secs,
        l.nodes as f64 / secs
    );
    let _ = out.flush();
}

/// `fairylab bench --probabilistic`: expectimax nodes/s on the fixed list, then the depth the
/// expectimax and the blind searches complete in one second from the start position.
fn probabilistic_bench(offset: i32, out: &mut impl Write) -> Result<()> {
    writeln!(out, "{:<20} {:>5} {:>12} {:>9} {:>10}", "position", "depth", "nodes", "seconds", "nodes/s")?;
    out.flush()?;
    let lines = engine::bench::run_probabilistic(offset, |l| bench_line(out, l));
    let total: u64 = lines.iter().map(|l| l.nodes).sum();
    let secs: f64 = lines.iter().map(|l| l.time.as_secs_f64()).sum::<f64>().max(1e-9);
    writeln!(out, "{:<20} {:>5} {total:>12} {secs:>9.3} {:>10.0}", "total", "", total as f64 / secs)?;
    writeln!(out, "expectimax nodes/s: {:.0}", total as f64 / secs)?;
    let v = rules::variants::by_name("probabilistic").ok_or_else(|| anyhow!("probabilistic is built in"))?;
    for (name, params) in
        [("expectimax", engine::SearchParams::for_variant(v)), ("blind", engine::SearchParams::blind(v))]
    {
        let mut e = Engine::with_hash(64);
        e.set_params(Some(params));
        let r = e.search(Position::start(v), &[], Limits::movetime(Duration::from_secs(1)), |_| {});
        writeln!(
            out,
            "{name} depth in 1 s from the start position: {} ({} nodes, {:.3} s)",
            r.depth,
            r.nodes,
            r.time.as_secs_f64()
        )?;
    }
    Ok(())
}

/// Runs `<cmd> bench` and reads the `Nodes/second` figure it reports (on either stream).
fn reference_nps(cmd: &str) -> Result<f64> {
    let c = engine::uci_client::EngineCommand::parse(cmd)
        .map_err(|e| anyhow!("bad --reference command line {cmd:?}: {e}"))?;
    let output = std::process::Command::new(&c.program)
        .args(&c.args)
        .arg("bench")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| anyhow!("cannot run the reference engine {:?}: {e}", c.program))?;
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    text.lines()
        .find_map(|l| {
            let (key, value) = l.split_once(':')?;
            (key.trim() == "Nodes/second").then(|| value.trim().parse::<f64>().ok()).flatten()
        })
        .ok_or_else(|| anyhow!("the reference engine {cmd:?} printed no `Nodes/second : N` line for `bench`"))
}

/// Plays `games` random-vs-random Baby Chess games on a pool of `threads` threads and
/// returns the seconds taken.
fn time_sim(games: u64, threads: usize) -> Result<f64> {
    let pool = crate::simulation::thread_pool(threads)?;
    let baby = variants::by_name("baby").ok_or_else(|| anyhow!("the built-in variant baby is missing"))?;
    let cfg = sim::runner::RunConfig::new(baby, 1);
    let start = Instant::now();
    let tally = pool.install(|| sim::runner::run(&cfg, games, sim::runner::Shard::ALL, &|_| {}));
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    if tally.games != games {
        bail!("the simulator played {} games instead of {games}", tally.games);
    }
    Ok(secs)
}

/// `bench --sim`: simulator throughput on all threads (against the target) and on one.
fn sim_bench(games: u64, threads: Option<u64>, out: &mut impl Write) -> Result<()> {
    let threads = crate::simulation::thread_count(threads)?;
    let secs = time_sim(games, threads)?;
    let speed = games as f64 / secs;
    writeln!(out, "variant: baby (random vs random, default setup)")?;
    writeln!(out, "threads: {threads}")?;
    writeln!(out, "games: {games}")?;
    writeln!(out, "time: {secs:.3} s")?;
    writeln!(out, "games/s: {speed:.0}")?;
    let verdict = if speed >= SIM_TARGET_GAMES_PER_SECOND { "pass" } else { "FAIL" };
    writeln!(out, "target: >= {SIM_TARGET_GAMES_PER_SECOND:.0} games/s on the 2-core reference machine: {verdict}")?;
    out.flush()?;
    let single = games.div_ceil(4);
    let secs1 = time_sim(single, 1)?;
    writeln!(out, "1 thread: games: {single}, time: {secs1:.3} s, games/s: {:.0}", single as f64 / secs1)?;
    Ok(())
}

fn perft_bench(quick: bool, out: &mut impl Write) -> Result<()> {
    let mut total_nodes = 0u64;
    let mut total_secs = 0f64;
    writeln!(out, "{:<18} {:>5} {:>13} {:>9} {:>9}", "position", "depth", "nodes", "seconds", "Mnodes/s")?;
    for case in rules::perft::BENCH {
        let variant = variants::by_name(case.variant).ok_or_else(|| anyhow!("unknown variant {}", case.variant))?;
        let pos = Position::from_fen(variant, case.fen).with_context(|| format!("bench position {}", case.name))?;
        let depth = if quick { case.depth - 1 } else { case.depth };
        let start = Instant::now();
        let nodes = perft(&pos, depth);
        let secs = start.elapsed().as_secs_f64();
        total_nodes += nodes;
        total_secs += secs;
        writeln!(out, "{:<18} {depth:>5} {nodes:>13} {secs:>9.3} {:>9.1}", case.name, nodes as f64 / secs / 1e6)?;
    }
    writeln!(
        out,
        "{:<18} {:>5} {total_nodes:>13} {total_secs:>9.3} {:>9.1}",
        "total",
        "",
        total_nodes as f64 / total_secs / 1e6
    )?;
    Ok(())
}

/// A legal move written in UCI or SAN.
fn parse_move(pos: &Position, text: &str) -> Option<rules::Move> {
    parse_uci(pos, text).ok().filter(|&m| pos.is_legal(m)).or_else(|| parse_san(pos, text).ok())
}

/// Why `text` names no legal move in `pos`: ambiguous SAN says which moves it could mean, other
/// texts the reason `rules::explain::why_not` gives (as `play` and the server say).
fn refusal(what: &str, pos: &Position, text: &str) -> anyhow::Error {
    let why = rules::explain::why_not(pos, text);
    if why.starts_with("it is ambiguous") {
        anyhow!("{what} '{text}' in {}: {why}", pos.fen())
    } else {
        anyhow!("{what} '{text}' is not a legal move in {}: {why}", pos.fen())
    }
}

/// Plays `text` (UCI or SAN moves) on `game`.
fn play_moves(game: &mut Game, text: &str) -> Result<()> {
    for token in text.split_whitespace() {
        let pos = game.position();
        let m = parse_move(pos, token).ok_or_else(|| refusal("move", pos, token))?;
        game.play(m).map_err(|e| anyhow!("move '{token}': {e}"))?;
    }
    Ok(())
}

/// A line of SAN moves from `pos`.
fn san_line(pos: &Position, pv: &[rules::Move]) -> String {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for (i, &m) in pv.iter().enumerate() {
        if !p.is_legal(m) {
            break;
        }
        let number = if p.turn() == Color::White {
            format!("{}. ", p.fullmoves())
        } else if i == 0 {
            format!("{}... ", p.fullmoves())
        } else {
            String::new()
        };
        out.push(format!("{number}{}", to_san(&p, m)));
        // Chance variants: the line assumes every move succeeds.
        p.play_unchecked(m);
    }
    out.join(" ")
}

/// A score as text; in a dice variant (its values win-scaled with scale `scale`, see
/// `engine::review::Eval::winning_chances_at`) with the side to move's expected winning chance.
fn score_text(score: engine::Score, scale: i32) -> String {
    match score {
        engine::Score::Cp(cp) if scale > 0 => {
            let w = engine::review::Eval::Cp(cp).win_percent_at(scale);
            format!("{score} (wins {w:.1} %)")
        }
        _ => score.to_string(),
    }
}

fn format_info(pos: &Position, i: &Info, scale: i32) -> String {
    let bound = match i.lower_bound {
        Some(true) => " (lower bound)",
        Some(false) => " (upper bound)",
        None => "",
    };
    let line = if i.multipv > 1 { format!(" line {}", i.multipv) } else { String::new() };
    format!(
        "depth {:>2}/{:<2}{line} score {}{bound} nodes {} nps {} time {} ms  {}",
        i.depth,
        i.seldepth,
        score_text(i.score, scale),
        i.nodes,
        i.nps(),
        i.time.as_millis(),
        san_line(pos, &i.pv)
    )
}

/// `fairylab analyse`.
pub(crate) fn analyse(a: &AnalyseArgs, out: &mut impl Write) -> Result<()> {
    let v = crate::in_turn(variant(&a.variant)?)?;
    let mut game = Game::new(position(v, a.fen.as_deref())?);
    play_moves(&mut game, &a.moves)?;
    let pos = game.position().clone();
    if let Some(o) = game.outcome() {
        writeln!(out, "game over: {o}")?;
        return Ok(());
    }
    let limits = match (a.depth, a.movetime) {
        (Some(d), _) => Limits::depth(d),
        (None, Some(ms)) => Limits::movetime(Duration::from_millis(ms)),
        (None, None) => Limits::depth(12),
    };
    let mut engine = Engine::try_with_hash(a.hash as usize).map_err(|e| anyhow!("--hash {}: {e}", a.hash))?;
    engine.set_tablebase(tablebase(&a.tables)?);
    if a.blind {
        engine.set_params(Some(engine::SearchParams::blind(pos.variant())));
    }
    engine.set_multipv(a.multipv as usize);
    engine.set_threads(a.threads as usize);
    if let Some(text) = &a.searchmoves {
        let only = text
            .split_whitespace()
            .map(|t| parse_move(&pos, t).ok_or_else(|| refusal("--searchmoves: move", &pos, t)))
            .collect::<Result<Vec<_>>>()?;
        if only.is_empty() {
            bail!("--searchmoves needs at least one move");
        }
        engine.set_search_moves(only);
    }
    let params = if a.blind { engine::SearchParams::blind(v) } else { engine::SearchParams::for_variant(v) };
    let scale = params.win_scale;
    let mut lines = Vec::new();
    let result = engine.search(pos.clone(), game.history(), limits, |i| lines.push(format_info(&pos, i, scale)));
    for l in lines {
        writeln!(out, "{l}")?;
    }
    match result.best {
        Some(m) => writeln!(
            out,
            "bestmove {} ({}) score {}",
            to_uci(&pos, m),
            to_san(&pos, m),
            score_text(result.score, scale)
        )?,
        None => writeln!(out, "bestmove (none)")?,
    }
    Ok(())
}

/// `fairylab play`: you against the engine, moves in SAN or UCI on stdin.
pub(crate) fn play(a: &PlayArgs) -> Result<ExitCode> {
    let mut v = crate::in_turn(variant(&a.variant)?)?;
    let mut rng = rules::chance::seeded_rng(a.seed);
    if rules::variants::snowfall::percent(v).is_some() && a.variant.snowfall.is_none() {
        // A SnowFall game draws its percentage when it starts (RULINGS § SnowFall 1).
        v = rules::variants::snowfall::variant(rules::variants::snowfall::draw_percent(&mut rng));
    }
    if let Some(n) = rules::variants::snowfall::percent(v) {
        writeln!(std::io::stdout(), "SnowFall: {n} % (a gift event after every move with this probability)")?;
    }
    let start = match (rules::variants::probabilistic::options(v), a.fen.as_deref()) {
        // A Probabilistic game draws its map when it starts (RULINGS § Probabilistic chess 1).
        (Some(_), None) => {
            rules::variants::probabilistic::start(v, &rules::variants::probabilistic::random_map(v, &mut rng))
        }
        // A Chess960 game draws its start position.
        (None, None) if rules::variants::chess960::is_chess960(v) => {
            let (n, fen) = rules::variants::chess960::random_start(v, &mut rng);
            writeln!(std::io::stdout(), "{}: start position {n}", v.name)?;
            position(v, Some(&fen))?
        }
        _ => position(v, a.fen.as_deref())?,
    };
    let mut game = Game::new(start);
    let human = if a.color == "white" { Color::White } else { Color::Black };
    let mut engine = Engine::new();
    engine.set_tablebase(tablebase(&a.tables)?);
    engine.set_handicap(engine::Handicap::level(a.level), a.seed);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    // No takebacks where chance has drawn the outcomes (below): 'undo' is offered only without.
    let commands = format!(
        "Type moves in SAN or UCI;{} 'pgn' prints the record,{} 'help' says this again, 'quit' stops.",
        if v.chance == rules::chance::ChanceRule::None { " 'undo' takes back your last move," } else { "" },
        if rules::variants::snowfall::percent(v).is_some() { " 'odds' gives the next gift's odds," } else { "" }
    );
    writeln!(
        out,
        "fairylab play: {} ({}). You are {}, against the engine at level {} of 8. {commands}",
        v.name, v.summary, a.color, a.level,
    )?;
    // Chance variants have no takebacks: the seeded stream has drawn the move's outcome, and
    // playing again would draw another (a free re-roll).
    let chance = !matches!(v.chance, rules::chance::ChanceRule::None);
    loop {
        let pos = game.position().clone();
        writeln!(out, "\n{}\n{}", board_diagram(&pos), pos.fen())?;
        if let Some(o) = game.outcome() {
            writeln!(out, "game over: {o}")?;
            return Ok(ExitCode::SUCCESS);
        }
        let m = if pos.turn() == human {
            write!(out, "your move> ")?;
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                return Ok(ExitCode::SUCCESS);
            }
            let t = line.trim();
            match t {
                "quit" | "exit" => return Ok(ExitCode::SUCCESS),
                "help" | "?" => {
                    writeln!(out, "{commands}")?;
                    continue;
                }
                // An empty line asks again.
                "" => continue,
                "undo" | "takeback" => {
                    // Your last move goes, with the engine's reply if it has replied.
                    match game.last_move_by(human) {
                        _ if chance => writeln!(out, "{} has no takebacks: chance has spoken", v.name)?,
                        None => writeln!(out, "you have no move to take back")?,
                        Some(keep) => {
                            let gone = game.truncate(keep);
                            writeln!(out, "took back {gone} {}", if gone == 1 { "ply" } else { "plies" })?;
                        }
                    }
                    continue;
                }
                "odds" if crate::snowfall::live_odds(&mut out, &pos)? => continue,
                "pgn" | "record" => {
                    let tags = [
                        ("Event".to_string(), "fairylab play".to_string()),
                        ("White".to_string(), if human == Color::White { "you" } else { "fairylab" }.to_string()),
                        ("Black".to_string(), if human == Color::Black { "you" } else { "fairylab" }.to_string()),
                    ];
                    writeln!(out, "{}", rules::record::write_pgn(&game, &tags))?;
                    continue;
                }
                _ => {}
            }
            match parse_move(&pos, t) {
                Some(m) => m,
                None => {
                    // Its reason in words, UCI or SAN ("white holds no queen", "no white pawn can move to e5").
                    writeln!(out, "'{t}' is not a legal move here: {}", rules::explain::why_not(&pos, t))?;
                    continue;
                }
            }
        } else {
            let r =
                engine.search(pos.clone(), game.history(), Limits::movetime(Duration::from_millis(a.movetime)), |_| {});
            let Some(m) = r.best else { bail!("the engine found no move in a position that is not over") };
            writeln!(out, "engine plays {} (score {}, depth {})", to_san(&pos, m), r.score, r.depth)?;
            m
        };
        // Chance variants: the outcome is drawn from the seeded stream and shown.
        let dice = rules::variants::probabilistic::options(v).is_some() && !m.is_pass();
        let percent = pos.success_percent(m);
        match game.play_sampled(m, &mut rng).map_err(|e| anyhow!("{e}"))? {
            rules::chance::Event::Gift(g) => writeln!(
                out,
                "{}: a gift arrives: {g}",
                rules::san::to_san_event(&pos, m, rules::chance::Event::Gift(g))
            )?,
            rules::chance::Event::Failure if dice => {
                writeln!(out, "{} ({percent} %): the dice say no, nothing moves", to_san(&pos, m))?
            }
            rules::chance::Event::Failure => writeln!(out, "{} failed: nothing moves", to_san(&pos, m))?,
            rules::chance::Event::Success if dice => {
                writeln!(out, "{} ({percent} %): the dice say yes", to_san(&pos, m))?
            }
            _ => {}
        }
    }
}

/// A text diagram of the board, White at the bottom, with the hands.
fn board_diagram(pos: &Position) -> String {
    if rules::variants::probabilistic::options(pos.variant()).is_some() {
        return map_diagram(pos);
    }
    let g = pos.variant().geometry;
    // Baby Chess: beside the board, each piece's column switches left (its count is not on the board).
    let limit = pos.switch_limit();
    let mut s = String::new();
    for r in (0..g.ranks()).rev() {
        s.push_str(&format!("{} ", r + 1));
        let mut left = String::new();
        for f in 0..g.files() {
            let Some(sq) = rules::Square::new(f, r) else { continue };
            let piece = pos.board().piece_at(sq);
            s.push(piece.map_or('.', |p| pos.variant().piece(p.role).char(p.color)));
            s.push(' ');
            left.push(match piece {
                Some(_) => char::from_digit(u32::from(limit.saturating_sub(pos.switches_at(sq))), 36).unwrap_or('?'),
                None => '.',
            });
            left.push(' ');
        }
        if limit != 0 {
            s.push_str("   ");
            s.push_str(left.trim_end());
        }
        s.push('\n');
    }
    let files: String = (0..g.files()).map(|f| format!("{} ", (b'a' + f) as char)).collect();
    s.push_str("  ");
    s.push_str(&files);
    if limit != 0 {
        s.push_str(&format!(
            "   {}\n(right: each piece's column switches left of {limit}; at 0 it moves only along its file)",
            files.trim_end()
        ));
    }
    if pos.variant().drops {
        for c in Color::ALL {
            let hand: String = pos
                .hand(c)
                .iter()
                .flat_map(|(r, n)| std::iter::repeat_n(pos.variant().piece(r).char(c), n as usize))
                .collect();
            s.push_str(&format!("\n{c} hand: [{hand}]"));
        }
    }
    s
}

/// One test position of an EPD suite.
struct EpdCase {
    id: String,
    pos: Position,
    best: Vec<rules::Move>,
    avoid: Vec<rules::Move>,
}

/// Parses an EPD line: four FEN fields, then `opcode operands;` pairs.
fn parse_epd(v: &'static rules::Variant, line: &str, number: usize) -> Result<EpdCase> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        bail!("line {number}: an EPD line needs four FEN fields");
    }
    // Some tools write the FEN's two move counters before the opcodes: they are taken as such.
    let counters = fields.len() >= 6 && fields[4..6].iter().all(|f| f.bytes().all(|b| b.is_ascii_digit()));
    let (clocks, rest) = if counters { (fields[4..6].join(" "), &fields[6..]) } else { ("0 1".into(), &fields[4..]) };
    let fen = format!("{} {} {} {} {clocks}", fields[0], fields[1], fields[2], fields[3]);
    let pos = Position::from_fen(v, &fen).with_context(|| format!("line {number}: FEN '{fen}'"))?;
    let rest = rest.join(" ");
    let mut case = EpdCase { id: format!("line {number}"), pos, best: Vec::new(), avoid: Vec::new() };
    for op in rest.split(';').map(str::trim).filter(|o| !o.is_empty()) {
        let (code, operands) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        match code {
            "bm" | "am" => {
                for san in operands.split_whitespace() {
                    // EPD writes SAN; a legal move in coordinates (`a1a8`) is read too.
                    let uci = rules::uci::parse_uci(&case.pos, san).ok().filter(|m| case.pos.is_legal(*m));
                    let m = match (parse_san(&case.pos, san), uci) {
                        (Ok(m), _) | (Err(_), Some(m)) => m,
                        (Err(e), None) => bail!("line {number}: {code} move '{san}' in {fen}: {e}"),
                    };
                    if code == "bm" {
                        case.best.push(m)
                    } else {
                        case.avoid.push(m)
                    }
                }
            }
            "id" => case.id = operands.trim_matches('"').to_string(),
            _ => {}
        }
    }
    if case.best.is_empty() && case.avoid.is_empty() {
        bail!("line {number}: no bm or am opcode");
    }
    Ok(case)
}

/// `fairylab solve`: searches each EPD position for a fixed time; counts the solved ones.
pub(crate) fn solve(a: &SolveArgs, out: &mut impl Write) -> Result<()> {
    let v = crate::in_turn(variant(&a.variant)?)?;
    let bytes = std::fs::read(&a.epd).with_context(|| format!("cannot read {}", a.epd.display()))?;
    let text = crate::text_of(bytes, &a.epd.display().to_string());
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        cases.push(parse_epd(v, line, i + 1)?);
    }
    if cases.is_empty() {
        bail!("{} holds no EPD position", a.epd.display());
    }
    if let Some(n) = a.limit {
        cases.truncate(n);
    }
    let mut engine = Engine::try_with_hash(a.hash as usize).map_err(|e| anyhow!("--hash {}: {e}", a.hash))?;
    let mut solved = 0;
    let mut misses = Vec::new();
    for case in &cases {
        engine.clear();
        let r = engine.search(case.pos.clone(), &[], Limits::movetime(Duration::from_millis(a.movetime)), |_| {});
        let ok = r.best.is_some_and(|m| (case.best.is_empty() || case.best.contains(&m)) && !case.avoid.contains(&m));
        let played = r.best.map_or("(none)".to_string(), |m| to_san(&case.pos, m));
        let wanted: Vec<String> = case.best.iter().map(|&m| to_san(&case.pos, m)).collect();
        if ok {
            solved += 1;
        } else {
            misses.push(case.id.clone());
        }
        writeln!(
            out,
            "{:<10} {} played {played:<8} wanted {:<12} depth {:>2} score {}",
            case.id,
            if ok { "ok  " } else { "MISS" },
            wanted.join(" "),
            r.depth,
            r.score
        )?;
        out.flush()?;
    }
    writeln!(out, "solved {solved}/{} at {} ms per position", cases.len(), a.movetime)?;
    writeln!(out, "misses: {}", if misses.is_empty() { "none".to_string() } else { misses.join(" ") })?;
    Ok(())
}

/// A Probabilistic chess board: each square's piece and its success percentage (`#` marks a
/// square closed by the shrinking board).
fn map_diagram(pos: &Position) -> String {
    let g = pos.variant().geometry;
    let map = pos.square_map();
    let blocked = pos.blocked();
    let mut s = String::new();
    for r in (0..g.ranks()).rev() {
        s.push_str(&format!("{} ", r + 1));
        for f in 0..g.files() {
            let Some(sq) = rules::Square::new(f, r) else { continue };
            let c = pos.board().piece_at(sq).map_or('.', |p| pos.variant().piece(p.role).char(p.color));
            if blocked.contains(sq) {
                s.push_str(&format!(" {c}  #"));
            } else {
                s.push_str(&format!(" {c}{:>3}", map.percent(sq)));
            }
        }
        s.push('\n');
    }
    s.push_str("  ");
    for f in 0..g.files() {
        s.push_str(&format!(" {}   ", (b'a' + f) as char));
    }
    s.push_str("\n(each square: its piece and the percentage with which a move onto it succeeds)");
    s
}
