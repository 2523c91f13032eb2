//! The `fairylab` command line: its commands' arguments and output, and the drivers the other
//! crates leave to it (internal matches, the Baby Chess report, the load test); no rule lives here.
//!
//! `main` calls [`run`] and prints an error once, as one `error: ...` line with exit status 2.

use anyhow::{anyhow, bail, Context, Result};
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use rules::perft::divide;
use rules::san::to_san;
use rules::uci::to_uci;
use rules::variants::baby::{BabyOptions, BabySetup};
use rules::{perft, spec, variants, Move, Position, Variant};
use serde::Serialize;
use std::ffi::OsString;
use std::io::{BufRead, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

mod analysis;
mod duel;
mod export;
mod loadtest;
mod matches;
mod openings;
mod predictor;
mod predictor_match;
mod protocols;
mod review;
mod serve;
mod simulation;
mod snowfall;
mod tables;
mod verify;

/// fairylab: chess variants, fairy pieces, perft and move generation.
#[derive(Debug, Parser)]
#[command(name = "fairylab", version = engine::VERSION, about, disable_help_subcommand = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree to a depth (nodes on stdout, time and speed on stderr).
    Perft(PerftArgs),
    /// List the legal moves of a position (`SAN UCI` per line, with Baby Chess's switch count and
    /// FEN after the move; JSON; or batch mode).
    Moves(MovesArgs),
    /// List the built-in variants with their summaries.
    Variants,
    /// Search a fixed position list to a fixed depth: the bench signature (total nodes) and nodes/second.
    Bench(analysis::BenchArgs),
    /// Analyse a position: the best line with its score at each depth.
    Analyse(analysis::AnalyseArgs),
    /// Search the positions of an EPD test suite (bm/am) and count the solved ones.
    Solve(analysis::SolveArgs),
    /// Review a played game as lichess's computer analysis does: inaccuracies, mistakes and
    /// blunders, each side's average centipawn loss and accuracy, and with chance each side's luck.
    Review(review::ReviewArgs),
    /// The opening tree of a PGN collection: for a position, the moves its games played and how
    /// they scored, with 95 % intervals (as lichess's explorer shows a database).
    Openings(openings::OpeningsArgs),
    /// Play a game against the engine in the terminal.
    Play(analysis::PlayArgs),
    /// Speak UCI on stdin/stdout (Fairy-Stockfish's variant conventions).
    Uci(protocols::ProtocolArgs),
    /// Speak XBoard/CECP protocol 2 on stdin/stdout.
    Xboard(protocols::ProtocolArgs),
    /// Play a match between two UCI engines, adjudicated by fairylab's rules.
    Match(matches::MatchArgs),
    /// Monte Carlo simulation: many seeded games with a strategy per side, statistics with
    /// intervals, JSON results; `sim merge` joins shard results.
    Sim(simulation::SimArgs),
    /// Endgame tables for fairy pieces, FairyGen-style: `egt KQ.KR [-m] [-0] [-s] [-b]` generates and
    /// reports; `egt probe`, `egt line` and `egt check` read a saved table file.
    Egt(tables::EgtArgs),
    /// SnowFall chess tools: `snowfall odds --fen F` gives the exact gift odds of a position and the
    /// chances of mating, or being mated, next move thanks to a gift.
    Snowfall(snowfall::SnowfallArgs),
    /// Predictor chess tools: `predictor resolve` plays one ply from both sides' orders;
    /// `commit`, `reveal`, `verify` and `referee` play a ply by commit–reveal.
    Predictor(predictor::PredictorArgs),
    /// The play server: every variant over HTTP and WebSocket on SQLite (default) or PostgreSQL.
    Serve(serve::ServeArgs),
    /// Check a server game's record against its revealed seed: the drawn setup and every roll and
    /// gift replayed (every game of a file of several).
    VerifyGame(verify::VerifyGameArgs),
    /// Load a running play server: many concurrent games for a fixed time; moves/s and latency.
    Loadtest(loadtest::LoadtestArgs),
    /// A running play server's games as one PGN file (a club's archive; `verify-game` checks each).
    Export(export::ExportArgs),
}

/// Which variant to play: a built-in one or a variant file.
#[derive(Debug, Args)]
pub(crate) struct VariantArgs {
    /// A built-in variant (see `fairylab variants`); chess if neither this nor --variant-file is given.
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,
    /// A custom variant file in TOML (docs/FORMATS.md, "Variant files").
    #[arg(long, value_name = "FILE")]
    variant_file: Option<PathBuf>,
    /// Baby Chess only: the start position (`baby`: kqbnr/ppppp/5/PPPPP/RNBQK, `gardner`: rnbqk/ppppp/5/PPPPP/RNBQK).
    #[arg(long, value_enum, value_name = "SETUP")]
    setup: Option<SetupArg>,
    /// Baby Chess only: White's pawns may advance two squares from their start rank (the seed's question 4).
    #[arg(long)]
    white_double_step: bool,
    /// SnowFall only: the game's gift probability in percent. Without it, `play`, internal matches
    /// and `sim` draw it from 10..=24 (a match once per pair of games, `sim` for every game);
    /// elsewhere 17.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub(crate) snowfall: Option<u8>,
    /// Probabilistic chess only: end the game after N plies with a material adjudication
    /// (default 1000; 0 for no limit).
    #[arg(long, value_name = "N")]
    ply_limit: Option<u32>,
}

/// `--setup` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SetupArg {
    /// Kings in opposite corners (the default).
    Baby,
    /// Gardner's minichess setup.
    Gardner,
}

#[derive(Debug, Args)]
struct PerftArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The position (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Depth in plies (0 to 30).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=30))]
    depth: u32,
    /// Also print the count below each legal move (`uci: nodes`, sorted by move).
    #[arg(long)]
    divide: bool,
}

#[derive(Debug, Args)]
struct MovesArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The position (default: the variant's start).
    #[arg(long, conflicts_with = "batch")]
    fen: Option<String>,
    /// Print `{"fen": ..., "moves": [{"uci": ..., "san": ...}, ...]}` instead of lines.
    #[arg(long, conflicts_with = "batch")]
    json: bool,
    /// A file with one FEN per line (`-` for stdin): prints one line per FEN with its legal moves in UCI,
    /// sorted and space-separated (an empty line if there are none).
    #[arg(long, value_name = "FILE")]
    batch: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(std::env::args_os()) {
        Ok(code) => code,
        // A closed pipe (`fairylab moves ... | head`) is not an error worth a message.
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// Runs the command line `args` (program name first).
///
/// # Errors
///
/// Bad arguments, variants, variant files, FENs or batch files, and failures to write the output.
fn run(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> Result<ExitCode> {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                e.print()?;
                return Ok(ExitCode::SUCCESS);
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
                let names: Vec<String> = Cli::command().get_subcommands().map(|c| c.get_name().to_string()).collect();
                bail!("no command given: use one of {} (see fairylab --help)", names.join(", "));
            }
            _ => bail!(clap_message(&e)),
        },
    };
    // Interactive commands write to stdout themselves, line by line.
    let command = match cli.command {
        Command::Uci(a) => return protocols::uci(&a),
        Command::Xboard(a) => return protocols::xboard(&a),
        Command::Match(a) => return matches::run(&a),
        Command::Play(a) => return analysis::play(&a),
        Command::Serve(a) => return serve::serve(&a),
        other => other,
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match command {
        Command::Perft(a) => perft_command(&a, &mut out)?,
        Command::Moves(a) => moves_command(&a, &mut out)?,
        Command::Variants => variants_command(&mut out)?,
        Command::Bench(a) => analysis::bench(&a, &mut out)?,
        Command::Analyse(a) => analysis::analyse(&a, &mut out)?,
        Command::Solve(a) => analysis::solve(&a, &mut out)?,
        Command::Review(a) => review::run(&a, &mut out)?,
        Command::Openings(a) => openings::run(&a, &mut out)?,
        Command::Sim(a) => simulation::sim(&a, &mut out)?,
        Command::Egt(a) => tables::egt(&a, &mut out)?,
        Command::Snowfall(a) => snowfall::run(&a, &mut out)?,
        Command::Predictor(a) => {
            if !predictor::run(&a, &mut out)? {
                out.flush()?;
                return Ok(ExitCode::from(1));
            }
        }
        Command::VerifyGame(a) => verify::verify_game(&a, &mut out)?,
        Command::Loadtest(a) => loadtest::loadtest(&a, &mut out)?,
        Command::Export(a) => export::export(&a, &mut out)?,
        Command::Uci(_) | Command::Xboard(_) | Command::Match(_) | Command::Play(_) | Command::Serve(_) => {
            unreachable!("handled above")
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// clap's message without the usage and tips that follow it, on one line.
fn clap_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let text = text.trim_start().strip_prefix("error:").unwrap_or(&text);
    one_line(text.split("\n\n").next().unwrap_or(text))
}

/// The error and its causes on one line, leaving out a cause that its wrapper already quotes
/// (the rules crate's errors often print their source as part of their own message).
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = one_line(&cause.to_string());
        if !text.ends_with(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The variant the arguments name.
pub(crate) fn variant(a: &VariantArgs) -> Result<&'static Variant> {
    if a.setup.is_some() || a.white_double_step {
        if a.ply_limit.is_some() {
            bail!("--ply-limit applies only to the probabilistic variants, not to Baby Chess");
        }
        return baby_variant(a);
    }
    if let Some(path) = &a.variant_file {
        if a.snowfall.is_some() || a.ply_limit.is_some() {
            bail!("--snowfall and --ply-limit apply only to built-in variants, not to a variant file");
        }
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read variant file {}", path.display()))?;
        let v = spec::load_variant_str(&text).with_context(|| format!("variant file {}", path.display()))?;
        if let Some(name) = &a.variant {
            if !v.name.eq_ignore_ascii_case(name) {
                bail!(
                    "--variant {name} does not match the variant file {}, which defines '{}'",
                    path.display(),
                    v.name
                );
            }
        }
        return Ok(v);
    }
    let name = a.variant.as_deref().unwrap_or("chess");
    let v = variants::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = variants::all().iter().map(|v| v.name.as_str()).collect();
        anyhow!("unknown variant '{name}' (built-in variants: {}; or give --variant-file)", known.join(", "))
    })?;
    let v = match (a.snowfall, variants::snowfall::percent(v)) {
        (Some(n), Some(_)) => variants::snowfall::variant(n),
        (Some(_), None) => bail!("--snowfall applies only to --variant snowfall, not to '{name}'"),
        (None, _) => v,
    };
    match (a.ply_limit, variants::probabilistic::options(v)) {
        (Some(n), Some(options)) => {
            Ok(variants::probabilistic::variant(variants::probabilistic::ProbOptions { ply_limit: n, ..options }))
        }
        (Some(_), None) => bail!("--ply-limit applies only to the probabilistic variants, not to '{name}'"),
        (None, _) => Ok(v),
    }
}

/// `v` if its sides move in turn: the search, play and simulation tools refuse a variant of
/// simultaneous plies (Predictor chess), naming the tools that play it.
pub(crate) fn in_turn(v: &'static Variant) -> Result<&'static Variant> {
    if v.simultaneous {
        // `match` plays the built-in Predictor chess only, not a custom variant of it.
        let watch = if rules::variants::by_name(&v.name).is_some_and(|b| std::ptr::eq(b, v)) {
            format!(", or watch the AI with `fairylab match --variant {}`", v.name)
        } else {
            String::new()
        };
        bail!(
            "{} is played in simultaneous plies, not in turn: resolve plies with `fairylab predictor resolve` or play one \
             by commit–reveal with `fairylab predictor commit/reveal/referee`{watch}",
            v.name
        );
    }
    Ok(v)
}

/// `--variant baby` with `--setup` and `--white-double-step`.
fn baby_variant(a: &VariantArgs) -> Result<&'static Variant> {
    let flag = if a.setup.is_some() { "--setup" } else { "--white-double-step" };
    if a.variant_file.is_some() {
        bail!("{flag} applies only to --variant baby, not to a variant file");
    }
    match a.variant.as_deref() {
        Some(name) if name.eq_ignore_ascii_case("baby") => {}
        Some(name) => bail!("{flag} applies only to --variant baby, not to '{name}'"),
        None => bail!("{flag} applies only to --variant baby (the default variant is chess)"),
    }
    let setup = match a.setup {
        Some(SetupArg::Gardner) => BabySetup::Gardner,
        Some(SetupArg::Baby) | None => BabySetup::Baby,
    };
    Ok(variants::baby(BabyOptions { setup, white_double_step: a.white_double_step }))
}

/// The text of a file named on the command line, or of stdin for `-`; `what` names it in errors.
pub(crate) fn read_input(path: &std::path::Path, what: &str) -> Result<String> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .with_context(|| format!("reading {what} from stdin"))?;
    } else {
        bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    }
    let name = if path.as_os_str() == "-" { "stdin".to_string() } else { path.display().to_string() };
    Ok(text_of(bytes, &name))
}

/// A text file's bytes as text: UTF-8, or else Latin-1 (ISO 8859-1), which older chess
/// databases (ChessBase, SCID) write and every byte of which is a character; the fallback is
/// said on stderr with the line of the first byte that is not UTF-8.
pub(crate) fn text_of(bytes: Vec<u8>, name: &str) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
            eprintln!("note: {name} is not UTF-8 (line {line}); read as Latin-1");
            bytes.iter().map(|&b| char::from(b)).collect()
        }
    }
}

pub(crate) fn position(v: &'static Variant, fen: Option<&str>) -> Result<Position> {
    match fen {
        None => Ok(Position::start(v)),
        Some(f) => Position::from_fen(v, f).with_context(|| format!("FEN '{f}' for {}", v.name)),
    }
}

fn perft_command(a: &PerftArgs, out: &mut impl Write) -> Result<()> {
    let v = in_turn(variant(&a.variant)?)?;
    let pos = position(v, a.fen.as_deref())?;
    let start = Instant::now();
    let total = if a.divide && a.depth > 0 {
        let mut rows: Vec<(String, u64)> =
            divide(&pos, a.depth).into_iter().map(|(m, n)| (to_uci(&pos, m), n)).collect();
        rows.sort();
        for (uci, n) in &rows {
            writeln!(out, "{uci}: {n}")?;
        }
        writeln!(out)?;
        rows.iter().map(|(_, n)| n).sum()
    } else {
        perft(&pos, a.depth)
    };
    let seconds = start.elapsed().as_secs_f64();
    writeln!(out, "{total}")?;
    out.flush()?;
    let speed = if seconds > 0.0 { (total as f64 / seconds).round() } else { 0.0 };
    eprintln!("time {seconds:.3} s, {speed:.0} nodes/s");
    Ok(())
}

/// The legal moves of `pos` as JSON rows, sorted by UCI; in variants with a column-switch
/// limit each with the moved piece's switch count and the FEN after the move.
fn legal_moves(pos: &Position) -> Vec<JsonMove> {
    let limited = pos.switch_limit() != 0;
    let row = |m: Move| {
        let (switches, fen_after) = if limited {
            let mut after = pos.clone();
            after.play_unchecked(m);
            (Some(after.switches_at(m.to())), Some(after.fen()))
        } else {
            (None, None)
        };
        JsonMove { uci: to_uci(pos, m), san: to_san(pos, m), switches, fen_after }
    };
    let mut moves: Vec<JsonMove> = pos.legal_moves().into_iter().map(row).collect();
    moves.sort_by(|a, b| a.uci.cmp(&b.uci));
    moves
}

fn moves_command(a: &MovesArgs, out: &mut impl Write) -> Result<()> {
    let v = variant(&a.variant)?;
    if let Some(path) = &a.batch {
        return batch(in_turn(v)?, path, out);
    }
    let pos = position(v, a.fen.as_deref())?;
    if v.simultaneous {
        return primaries_listing(&pos, a.json, out);
    }
    let moves = legal_moves(&pos);
    // No move: say why (checkmate or stalemate), on stderr in text so stdout stays a move list.
    let outcome = pos.outcome().filter(|_| moves.is_empty());
    if a.json {
        let listing = MoveListing { fen: pos.fen(), moves, outcome: outcome.map(|o| o.to_string()) };
        writeln!(out, "{}", serde_json::to_string(&listing)?)?;
    } else {
        for m in &moves {
            match (m.switches, &m.fen_after) {
                (Some(n), Some(fen)) => writeln!(out, "{} {} {n} {fen}", m.san, m.uci)?,
                _ => writeln!(out, "{} {}", m.san, m.uci)?,
            }
        }
        if let Some(o) = outcome {
            eprintln!("no legal moves: the game is over, {o}");
        }
    }
    Ok(())
}

/// `moves` in a simultaneous variant (Predictor chess): each side's primaries, `SIDE SAN UCI` a
/// line (SAN without check marks, which assume turns), or `{fen, primaries: {white, black}}`.
fn primaries_listing(pos: &Position, json: bool, out: &mut impl Write) -> Result<()> {
    let listed = |side: rules::Color| -> Vec<(String, String)> {
        let view = rules::predictor::side_view(pos, side);
        let mut rows: Vec<(String, String)> = rules::predictor::primaries(&view)
            .iter()
            .map(|&m| (to_san(&view, m).trim_end_matches(['+', '#']).to_string(), to_uci(&view, m)))
            .collect();
        rows.sort_by(|a, b| a.1.cmp(&b.1));
        rows
    };
    let [white, black] = rules::Color::ALL.map(listed);
    if json {
        let side = |rows: &[(String, String)]| -> Vec<serde_json::Value> {
            rows.iter().map(|(san, uci)| serde_json::json!({ "uci": uci, "san": san })).collect()
        };
        let v = serde_json::json!({ "fen": pos.fen(), "primaries": { "white": side(&white), "black": side(&black) } });
        writeln!(out, "{v}")?;
    } else {
        for (name, rows) in [("white", &white), ("black", &black)] {
            for (san, uci) in rows {
                writeln!(out, "{name} {san} {uci}")?;
            }
        }
    }
    Ok(())
}

/// `moves --json` output.
#[derive(Debug, Serialize)]
struct MoveListing {
    fen: String,
    moves: Vec<JsonMove>,
    /// The game's end, when there is no legal move (checkmate, stalemate).
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<String>,
}

/// One move of [`MoveListing`].
#[derive(Debug, Serialize)]
struct JsonMove {
    uci: String,
    san: String,
    /// Column-switch variants: the moved piece's switch count after the move.
    #[serde(skip_serializing_if = "Option::is_none")]
    switches: Option<u8>,
    /// Column-switch variants: the FEN after the move (with its `{n}` switch counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    fen_after: Option<String>,
}

/// Batch mode: every line is checked before anything is printed, so a bad line leaves stdout empty.
fn batch(v: &'static Variant, path: &PathBuf, out: &mut impl Write) -> Result<()> {
    let name = path.display().to_string();
    let reader: Box<dyn BufRead> = if name == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("batch file {name}"))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut text = String::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("batch file {name}, line {}", i + 1))?;
        let fen = line.trim();
        let pos =
            Position::from_fen(v, fen).with_context(|| format!("batch file {name}, line {}: FEN '{fen}'", i + 1))?;
        let mut moves: Vec<String> = pos.legal_moves().into_iter().map(|m| to_uci(&pos, m)).collect();
        moves.sort();
        text.push_str(&moves.join(" "));
        text.push('\n');
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

fn variants_command(out: &mut impl Write) -> Result<()> {
    let all = variants::all();
    let width = all.iter().map(|v| v.name.len()).max().unwrap_or(0);
    for v in all {
        writeln!(out, "{:width$}  {}", v.name, v.summary)?;
    }
    Ok(())
}
