//! `fairylab match`: two UCI engines play a match adjudicated by fairylab's rules; prints
//! the score with its 95 % interval and the Elo difference.

use anyhow::{bail, Context, Result};
use clap::Args;
use engine::tournament::{
    parse_openings, pgn_date, Adjudication, DrawRule, EngineSpec, GameRecord, Match, MatchConfig, Opening, ResignRule,
    Tally, TimeControl,
};
use engine::uci_client::EngineCommand;
use rules::{Position, Variant};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

/// Opening books built into the binary, used when `--openings` is not given.
const BOOKS: [(&str, &str); 3] = [
    ("chess", include_str!("../../../tests/data/openings/chess.epd")),
    ("gardner", include_str!("../../../tests/data/openings/gardner.epd")),
    ("crazyhouse", include_str!("../../../tests/data/openings/crazyhouse.epd")),
];

/// Arguments of `fairylab match`.
#[derive(Debug, Args)]
pub(crate) struct MatchArgs {
    /// Engine 1 (engine A, whose results are reported), as a command line: program and arguments.
    /// Default: this fairylab binary with `uci`.
    #[arg(long, value_name = "CMD")]
    engine1: Option<String>,
    /// Engine 2, as a command line, e.g. `/usr/games/stockfish`.
    #[arg(long, value_name = "CMD", required_unless_present_any = ["white", "black"])]
    engine2: Option<String>,
    /// Instead of UCI engines: fairylab's AI level for player A, White in odd games (`engine`,
    /// alias `expectimax`: chance outcomes as chance nodes; `blind`: as if chance played no part;
    /// `montecarlo`: dice playouts; `level1` to `level7`: the play server's weaker AI (`level8`
    /// is `engine`); `exact`, research only: SnowFall's next gift event as exact
    /// Star1/Star2 chance nodes after the root moves, in winning chances, in place of the
    /// engine's drop-mate risk, slow, for `--depth` matches; `exact2`: the event after the
    /// opponent's reply too; `exact0`: their control, the blind engine with their evaluation;
    /// `oracle`, research only: the engine told the outcome each of its moves will draw, a
    /// ceiling for anticipating the next event; `seer`, research only: the
    /// engine that knows every event the referee's stream will draw, at every ply of its search;
    /// `sampled` or `sampledN`, research only: 8 or N futures drawn from its own generator, each
    /// searched as the seer searches, the move most of them chose played; `jitter`, `jitterN` or
    /// `jitterNxA`, research only, their control: 8 or N searches of the blind engine, each with
    /// its own noise of up to A (25) centipawns on the evaluation, the move most of them chose;
    /// for `--depth` matches; `handicapDxW`, for tuning the levels: the engine stopping at depth
    /// D and choosing among 4 lines with weakness W, as the levels do).
    /// Chance events are drawn by the referee from `--seed`.
    #[arg(long, value_name = "LEVEL", requires = "black", conflicts_with_all = ["engine1", "engine2"])]
    white: Option<String>,
    /// fairylab's AI level for player B (see --white).
    #[arg(long, value_name = "LEVEL", requires = "white")]
    black: Option<String>,
    /// Internal matches: a node budget per move instead of --movetime, so that a match depends
    /// only on its seed.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Internal matches: a fixed search depth per move instead of --movetime (plies), so that
    /// players of unequal speed are compared at equal search depth; reproducible from the seed.
    #[arg(long, value_name = "PLIES", conflicts_with_all = ["nodes", "movetime2"], value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: Option<u32>,
    /// Internal matches: games played at once (each engine searches on one thread).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    concurrency: u32,
    /// An option for engine 1 (repeatable), sent as `setoption name NAME value VALUE`.
    #[arg(long = "option1", value_name = "NAME=VALUE")]
    option1: Vec<String>,
    /// An option for engine 2 (repeatable), e.g. `UCI_Elo=2000`.
    #[arg(long = "option2", value_name = "NAME=VALUE")]
    option2: Vec<String>,
    /// Engine 1's name in results and PGN (default: its `id name`).
    #[arg(long, value_name = "NAME")]
    name1: Option<String>,
    /// Engine 2's name in results and PGN (default: its `id name`).
    #[arg(long, value_name = "NAME")]
    name2: Option<String>,
    #[command(flatten)]
    variant: crate::VariantArgs,
    /// Number of games; each opening is played twice with colours swapped.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Milliseconds per move (`go movetime`).
    #[arg(long, value_name = "MS", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    movetime: u64,
    /// Internal matches: player B's milliseconds per move, for a time-odds match (default:
    /// --movetime). Calibrates a score: how much a doubling of time is worth in the variant.
    #[arg(long, value_name = "MS", conflicts_with = "nodes", value_parser = clap::value_parser!(u64).range(1..))]
    movetime2: Option<u64>,
    /// A clock instead of a fixed time per move: seconds per game plus increment, e.g. `10+0.1`.
    #[arg(long, value_name = "BASE+INC")]
    tc: Option<String>,
    /// Start positions, one FEN or EPD per line (`#` comments). Default: the built-in book of the
    /// variant (chess, gardner, crazyhouse), else the start position.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Shuffle the openings with this seed (default: file order).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Adjudicate a draw after this many plies by the engines (0: never).
    #[arg(long, value_name = "N", default_value_t = 400)]
    max_plies: u32,
    /// Resign rule: a win when both engines' scores agree for this many moves each (0: off).
    #[arg(long, value_name = "N", default_value_t = 5)]
    resign_moves: u32,
    /// Resign rule: the score, in centipawns, the winning side must have.
    #[arg(long, value_name = "CP", default_value_t = 1000)]
    resign_score: i32,
    /// Draw rule: a draw when both scores stay within ±draw-score for this many moves each,
    /// with no capture or pawn move (0: off).
    #[arg(long, value_name = "N", default_value_t = 10)]
    draw_moves: u32,
    /// Draw rule: the score window in centipawns.
    #[arg(long, value_name = "CP", default_value_t = 10)]
    draw_score: i32,
    /// Draw rule: applies only after this move number.
    #[arg(long, value_name = "N", default_value_t = 40)]
    draw_after: u32,
    /// Milliseconds an engine may overrun its time before it forfeits.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    margin: u64,
    /// Add every game in PGN to this file, after the games already there, as each ends.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
}

/// Plays the match: one line per game on stderr, the summary on stdout.
pub(crate) fn run(args: &MatchArgs) -> Result<ExitCode> {
    if let (Some(white), Some(black)) = (&args.white, &args.black) {
        return internal(args, white, black);
    }
    // Options of matches between fairylab's own levels, refused by name (clap said "required
    // arguments were not provided: --white --black", as if they were missing).
    for (given, flag) in [
        (args.nodes.is_some(), "--nodes"),
        (args.depth.is_some(), "--depth"),
        (args.movetime2.is_some(), "--movetime2"),
    ] {
        if given {
            bail!("{flag} applies to matches between fairylab's own levels (--white/--black), not to a match of UCI engines");
        }
    }
    if args.concurrency > 1 {
        bail!("--concurrency applies to matches between fairylab's own levels (--white/--black); a match of UCI engines plays one game at a time");
    }
    let config = config(args)?;
    let mut pgn = match &args.pgn {
        Some(path) => Some(BufWriter::new(crate::duel::append_to(path)?)),
        None => None,
    };
    let variant = config.variant;
    let openings = config.openings.len();
    let time = config.time;
    let games = config.games;
    let mut m = Match::start(config)?;
    let [a, b] = m.names().map(str::to_string);
    eprintln!(
        "match: {a} vs {b}, {}, {games} games, {time}, {}",
        variant.name,
        if openings == 0 { "from the start position".to_string() } else { format!("{openings} openings") }
    );
    let date = pgn_date(SystemTime::now());
    let event = format!("fairylab match: {a} vs {b}");
    let mut tally = Tally::default();
    while let Some(game) = m.next_game() {
        tally.add(&game);
        eprintln!("{}", progress_line(&game, &tally, games, &a));
        if let Some(out) = pgn.as_mut() {
            out.write_all(game.to_pgn(&event, &date).as_bytes())
                .and_then(|()| out.flush())
                .context("cannot write the PGN file")?;
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    write_summary(&mut out, &a, &b, variant, time, &tally)?;
    if let Some(why) = m.stopped() {
        eprintln!("error: the match stopped after {} of {games} games: {why}", tally.games());
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

/// A match between fairylab's own AI levels.
fn internal(args: &MatchArgs, white: &str, black: &str) -> Result<ExitCode> {
    if args.tc.is_some() || args.openings.is_some() {
        bail!("--tc and --openings apply to UCI matches, not to --white/--black AI levels");
    }
    let variant = crate::variant(&args.variant)?;
    if variant.simultaneous {
        if args.nodes.is_some() || args.movetime2.is_some() || args.depth.is_some() {
            bail!("--nodes, --depth and --movetime2 do not apply to Predictor chess players: use --movetime (per ply)");
        }
        return crate::predictor_match::run(&crate::predictor_match::PredictorMatch {
            variant,
            styles: [crate::predictor_match::parse_style(white)?, crate::predictor_match::parse_style(black)?],
            games: args.games,
            movetime: Duration::from_millis(args.movetime),
            seed: args.seed.unwrap_or(0),
            max_plies: args.max_plies,
            concurrency: args.concurrency as usize,
            pgn: args.pgn.clone(),
        });
    }
    crate::duel::run(&crate::duel::Duel {
        variant,
        start: Position::start(variant),
        random_maps: rules::variants::probabilistic::options(variant).is_some(),
        random_percent: rules::variants::snowfall::percent(variant).is_some() && args.variant.snowfall.is_none(),
        random_960: rules::variants::chess960::is_chess960(variant),
        levels: [crate::duel::Level::parse(white)?, crate::duel::Level::parse(black)?],
        games: args.games,
        movetime: [args.movetime, args.movetime2.unwrap_or(args.movetime)].map(Duration::from_millis),
        nodes: args.nodes,
        depth: args.depth,
        seed: args.seed.unwrap_or(0),
        max_plies: args.max_plies,
        concurrency: args.concurrency as usize,
        hash_mb: 16,
        pgn: args.pgn.clone(),
    })
}

/// The match configuration the arguments describe.
fn config(args: &MatchArgs) -> Result<MatchConfig> {
    let variant = crate::variant(&args.variant)?;
    let engine1 = match &args.engine1 {
        Some(line) => EngineCommand::parse(line).context("--engine1")?,
        None => {
            let exe = std::env::current_exe().context("cannot find this program to run it as engine 1")?;
            EngineCommand::new(exe.display().to_string(), ["uci"])
        }
    };
    let Some(engine2) = &args.engine2 else { bail!("--engine2 is required for a UCI match") };
    let engine2 = EngineCommand::parse(engine2).context("--engine2")?;
    let spec = |command: EngineCommand, options: &[String], name: &Option<String>, flag: &str| -> Result<EngineSpec> {
        let options = options
            .iter()
            .map(|o| match o.split_once('=') {
                Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.trim().to_string())),
                _ => bail!("{flag} '{o}': expected NAME=VALUE"),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(EngineSpec { command, options, name: name.clone() })
    };
    let engines = [
        spec(engine1, &args.option1, &args.name1, "--option1")?,
        spec(engine2, &args.option2, &args.name2, "--option2")?,
    ];
    let mut config = MatchConfig::new(variant, engines);
    config.openings = openings(args, variant)?;
    config.games = args.games;
    config.time = match &args.tc {
        Some(tc) => parse_tc(tc)?,
        None => TimeControl::MoveTime(Duration::from_millis(args.movetime)),
    };
    config.adjudication = Adjudication {
        max_plies: (args.max_plies > 0).then_some(args.max_plies),
        resign: (args.resign_moves > 0)
            .then_some(ResignRule { moves: args.resign_moves, score_cp: args.resign_score.abs() }),
        draw: (args.draw_moves > 0).then_some(DrawRule {
            after_move: args.draw_after,
            moves: args.draw_moves,
            score_cp: args.draw_score.abs(),
        }),
    };
    config.margin = Duration::from_millis(args.margin);
    config.seed = args.seed;
    Ok(config)
}

/// The openings file, the built-in book, or none (the start position).
fn openings(args: &MatchArgs, variant: &'static Variant) -> Result<Vec<Opening>> {
    if let Some(path) = &args.openings {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read openings file {}", path.display()))?;
        let openings = parse_openings(variant, &text).with_context(|| format!("openings file {}", path.display()))?;
        if openings.is_empty() {
            bail!("openings file {} has no positions", path.display());
        }
        return Ok(openings);
    }
    if rules::variants::chess960::is_chess960(variant) {
        // The book is the 960 start positions (shuffle them with --seed).
        let text: String = (0..rules::variants::chess960::POSITIONS)
            .filter_map(|n| {
                Some(format!("{} id \"Chess960 {n}\";\n", rules::variants::chess960::start_fen_in(variant, n)?))
            })
            .collect();
        return parse_openings(variant, &text).context("the Chess960 start positions");
    }
    match BOOKS.iter().find(|(name, _)| variant.name.eq_ignore_ascii_case(name)) {
        Some((name, text)) => parse_openings(variant, text).with_context(|| format!("built-in {name} openings")),
        None => {
            eprintln!("note: no built-in openings for {}: every game starts from the start position", variant.name);
            Ok(Vec::new())
        }
    }
}

/// `BASE+INC` in seconds, e.g. `10+0.1` or `60`.
fn parse_tc(text: &str) -> Result<TimeControl> {
    let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |s: &str| -> Result<Duration> {
        let v: f64 = s.trim().parse().with_context(|| format!("--tc '{text}': '{s}' is not a number of seconds"))?;
        if !v.is_finite() || v < 0.0 {
            bail!("--tc '{text}': '{s}' is not a number of seconds");
        }
        Ok(Duration::from_secs_f64(v))
    };
    let base = seconds(base)?;
    if base.is_zero() {
        bail!("--tc '{text}': the base time must be positive");
    }
    Ok(TimeControl::Clock { base, increment: seconds(inc)? })
}

/// `game 3/100  opening 2 "C40 ..."  A (white) - B (black)  1-0 checkmate  score 2.5/3 (+2 =1 -0)`.
fn progress_line(game: &GameRecord, tally: &Tally, games: u32, a: &str) -> String {
    let opening = match &game.opening_id {
        Some(id) => format!("opening {} \"{id}\"", game.opening + 1),
        None => format!("opening {}", game.opening + 1),
    };
    let mut line = format!(
        "game {}/{games}  {opening}  {} - {}  {} {}  {a}: {}/{} (+{} ={} -{})",
        game.number,
        game.white,
        game.black,
        game.result(),
        game.termination.label(),
        tally.points(),
        tally.games(),
        tally.wins,
        tally.draws,
        tally.losses
    );
    if let engine::tournament::Termination::Forfeit { .. } = game.termination {
        line.push_str(&format!("\n  {}", game.description()));
    }
    line
}

/// A signed Elo figure, `+inf` / `-inf` at the ends.
fn elo(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:+.1}")
    }
}

fn write_summary(
    out: &mut impl Write,
    a: &str,
    b: &str,
    variant: &Variant,
    time: TimeControl,
    tally: &Tally,
) -> Result<()> {
    writeln!(out, "Match: {a} vs {b}, {}, {time}", variant.name)?;
    writeln!(out, "Games: {}", tally.games())?;
    writeln!(out, "W/D/L: {}/{}/{} (for {a})", tally.wins, tally.draws, tally.losses)?;
    if let Some(s) = tally.stats() {
        writeln!(
            out,
            "Score: {:.1} % (95 % interval {:.1} % to {:.1} %)",
            100.0 * s.score,
            100.0 * s.score_low,
            100.0 * s.score_high
        )?;
        if s.score_low == s.score_high && s.games > 1 {
            writeln!(out, "  (every game had the same result: the interval has no width and means little)")?;
        }
        let margin = s.elo_margin();
        let margin = if margin.is_finite() { format!("{margin:.1}") } else { "inf".to_string() };
        writeln!(out, "Elo: {} ± {margin} (95 % interval {} to {})", elo(s.elo), elo(s.elo_low), elo(s.elo_high))?;
    }
    if let Some(draws) = tally.draw_ratio() {
        let los = tally.los().map_or_else(|| "none (no decisive game)".to_string(), |p| format!("{:.1} %", 100.0 * p));
        writeln!(out, "LOS: {los} (for {a}); draw ratio: {:.1} %", 100.0 * draws)?;
    }
    let mut reasons: Vec<(&String, &u32)> = tally.reasons.iter().collect();
    reasons.sort_by(|x, y| y.1.cmp(x.1).then(x.0.cmp(y.0)));
    let reasons: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
    writeln!(out, "Reasons: {}", reasons.join(", "))?;
    writeln!(out, "Average length: {:.1} plies", tally.average_plies())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls() {
        let tc = parse_tc("10+0.1").expect("valid");
        assert_eq!(tc, TimeControl::Clock { base: Duration::from_secs(10), increment: Duration::from_millis(100) });
        assert!(matches!(parse_tc("60").expect("valid"), TimeControl::Clock { increment: Duration::ZERO, .. }));
        assert!(parse_tc("x+1").is_err() && parse_tc("0+1").is_err() && parse_tc("-5").is_err());
    }

    #[test]
    fn built_in_books_load() {
        for (name, text) in BOOKS {
            let v = rules::variants::by_name(name).expect("built-in variant");
            assert!(!parse_openings(v, text).expect("valid book").is_empty(), "{name}");
        }
    }

    #[test]
    fn summary() {
        let mut tally = Tally { wins: 3, draws: 1, losses: 0, ..Tally::default() };
        tally.reasons.insert("checkmate".into(), 3);
        tally.reasons.insert("repetition".into(), 1);
        tally.plies = 200;
        let chess = rules::variants::by_name("chess").expect("chess");
        let mut out = Vec::new();
        write_summary(&mut out, "A", "B", chess, TimeControl::MoveTime(Duration::from_millis(100)), &tally)
            .expect("written");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(text.contains("W/D/L: 3/1/0 (for A)"), "{text}");
        assert!(text.contains("Score: 87.5 %"), "{text}");
        assert!(text.contains("Reasons: checkmate 3, repetition 1"), "{text}");
        assert!(text.contains("Average length: 50.0 plies"), "{text}");
    }
}
