//! `fairylab match --white LEVEL --black LEVEL`: fairylab's own AI levels against each other,
//! chance events (gifts, dice) and Probabilistic maps drawn from a seeded stream, colours alternating.

use anyhow::{anyhow, bail, Context, Result};
use engine::montecarlo::MonteCarlo;
use engine::params::SearchParams;
use engine::tournament::score_stats;
use engine::{Engine, Limits};
use rules::chance::seeded_rng;
use rules::game::Game;
use rules::outcome::Outcome;
use rules::{Color, Position, Variant};
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// An AI level of fairylab's engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// The engine as it plays the variant: chance outcomes searched as chance nodes.
    Engine,
    /// The same engine searching as if every move had its plain outcome (no gifts arrive,
    /// every move succeeds).
    Blind,
    /// Research only: SnowFall's gift events searched as exact Star1/Star2 chance nodes after
    /// every move of the first plies (1 for `exact`, 2 for `exact2`: the next event and the one
    /// after the opponent's reply), valued in winning chances, instead of the engine's
    /// approximation (the drop-mate risk); elsewhere the same as `Engine`. About a hundred
    /// (`exact`) or a thousand (`exact2`) times the blind engine's nodes at equal depth: for
    /// matches at a fixed depth (`--depth`). `exact0`, their control, is the blind engine with
    /// their win-scaled evaluation.
    Exact(u8),
    /// Seeded playouts of the blind engine's top moves ([`engine::montecarlo`]).
    MonteCarlo,
    /// Research only: the engine, without chance nodes, told the chance outcome each of its root
    /// moves will draw from the referee's stream (`Engine::set_root_events`). Not a fair player:
    /// it measures how much anticipating chance could be worth at most.
    Oracle,
    /// Research only: the engine, without chance nodes, that knows the referee's stream and so
    /// the outcome of every chance event in its search, at every ply
    /// (`Engine::set_chance_stream`): what anticipating all chance could be worth at most.
    Seer,
    /// Research only: perfect-information Monte Carlo, the fair use of the seer's search. Each
    /// move, this many streams (`sampled`: 8, `sampledN`: N) drawn from the player's own
    /// generator (never the referee's), each searched as the seer searches its stream, from a
    /// cleared table, with the full limits; the move most of them chose is played, ties to the
    /// better mean value. That many times the seer's nodes: for matches at a fixed depth
    /// (`--depth`).
    Sampled(u16),
    /// The play server's weaker AI, `level1` to `level7` (`level8` is `engine`): the engine at
    /// handicap `engine::Handicap::level(N)`, its choices drawn from the player's seed.
    Skill(u8),
    /// Research only: the control of `sampled`. This many searches of the blind engine (`jitter`:
    /// 8, `jitterN`, `jitterNxA`), each from a cleared table with its own deterministic noise
    /// of up to A centipawns (default 25) on every static evaluation and no gifts; the move most
    /// of them chose. What the vote gains with no knowledge of chance.
    Jitter(u16, u16),
    /// For tuning the levels: the engine with the handicap `handicapDxW` (depth D, 1 to 64,
    /// weakness W, 1 to 255; `engine::Handicap`).
    Handicap(u8, u8),
}

impl Level {
    pub(crate) fn parse(s: &str) -> Result<Level> {
        match s.to_ascii_lowercase().as_str() {
            "engine" | "expectimax" | "aware" => Ok(Level::Engine),
            "blind" => Ok(Level::Blind),
            "exact0" => Ok(Level::Exact(0)),
            "exact" => Ok(Level::Exact(1)),
            "exact2" => Ok(Level::Exact(2)),
            "montecarlo" | "monte-carlo" => Ok(Level::MonteCarlo),
            "oracle" => Ok(Level::Oracle),
            "seer" => Ok(Level::Seer),
            "level8" => Ok(Level::Engine),
            l if l.starts_with("level") => match l["level".len()..].parse::<u8>() {
                Ok(n @ 1..=7) => Ok(Level::Skill(n)),
                _ => bail!("bad AI level '{s}': the play server's levels are level1 to level8"),
            },
            "sampled" => Ok(Level::Sampled(8)),
            l if l.starts_with("sampled") => match l["sampled".len()..].parse::<u16>() {
                Ok(n @ 1..=1024) => Ok(Level::Sampled(n)),
                _ => bail!("bad AI level '{s}': sampledN takes a number of futures from 1 to 1024, e.g. sampled32"),
            },
            l if l.starts_with("handicap") => {
                let spec = &l["handicap".len()..];
                let (d, w) = spec.split_once('x').unwrap_or((spec, ""));
                match (d.parse::<u8>(), w.parse::<u8>()) {
                    (Ok(d @ 1..=64), Ok(w @ 1..)) => Ok(Level::Handicap(d, w)),
                    _ => bail!(
                        "bad AI level '{s}': handicapDxW takes a depth from 1 to 64 and a weakness from 1 to 255, e.g. handicap4x100"
                    ),
                }
            }
            l if l.starts_with("jitter") => {
                let spec = match &l["jitter".len()..] {
                    "" => "8",
                    spec => spec,
                };
                let (n, a) = spec.split_once('x').unwrap_or((spec, "25"));
                match (n.parse::<u16>(), a.parse::<u16>()) {
                    (Ok(n @ 1..=1024), Ok(a @ 0..=1000)) => Ok(Level::Jitter(n, a)),
                    _ => bail!(
                        "bad AI level '{s}': jitterNxA takes 1 to 1024 searches and 0 to 1000 centipawns of noise, e.g. jitter8x25"
                    ),
                }
            }
            _ => bail!(
                "unknown AI level '{s}' (use engine, also called expectimax or aware; blind; montecarlo; level1 to level8; exact, exact2 or exact0; oracle; seer; sampled, sampledN; jitter, jitterN, jitterNxA; or handicapDxW)"
            ),
        }
    }

    /// The level's name in results: `engine` is called `expectimax` where chance nodes are dice.
    fn name(self, v: &Variant) -> &'static str {
        match self {
            Level::Engine if rules::variants::probabilistic::options(v).is_some() => "expectimax",
            Level::Engine => "engine",
            Level::Blind => "blind",
            Level::Exact(0) => "exact0",
            Level::Exact(1) => "exact",
            Level::Exact(_) => "exact2",
            Level::MonteCarlo => "montecarlo",
            Level::Oracle => "oracle",
            Level::Seer => "seer",
            Level::Sampled(_) => "sampled",
            Level::Jitter(..) => "jitter",
            Level::Handicap(..) => "handicap",
            Level::Skill(n) => {
                ["level1", "level2", "level3", "level4", "level5", "level6", "level7"][usize::from(n) - 1]
            }
        }
    }

    /// A player of this level; `seed` feeds the Monte Carlo playouts.
    fn player(self, v: &Variant, hash_mb: usize, seed: u64) -> Player {
        let engine = |params: SearchParams| {
            let mut e = Box::new(Engine::with_hash(hash_mb));
            e.set_params(Some(params));
            e
        };
        let foreseeing = SearchParams { chance_plies: 0, ..SearchParams::for_variant(v) };
        match self {
            Level::Engine => Player::Engine(engine(SearchParams::for_variant(v))),
            Level::Blind => Player::Engine(engine(SearchParams::blind(v))),
            Level::Exact(plies) => Player::Engine(engine(exact(v, plies.into()))),
            Level::MonteCarlo => Player::MonteCarlo(Box::new(MonteCarlo::new(seed))),
            // The research levels know the outcomes: no chance nodes of their own.
            Level::Oracle => Player::Oracle(engine(foreseeing)),
            Level::Seer => Player::Seer(engine(foreseeing)),
            Level::Sampled(n) => Player::Sampled(engine(foreseeing), seed, n.into()),
            Level::Jitter(n, a) => Player::Jitter(engine(SearchParams::blind(v)), seed, n.into(), a.into()),
            Level::Skill(n) => {
                let mut e = engine(SearchParams::for_variant(v));
                e.set_handicap(engine::Handicap::level(n), seed);
                Player::Engine(e)
            }
            Level::Handicap(depth, weakness) => {
                let mut e = engine(SearchParams::for_variant(v));
                e.set_handicap(Some(engine::Handicap { depth: depth.into(), weakness }), seed);
                Player::Engine(e)
            }
        }
    }
}

/// The `exact` levels' parameters: SnowFall's gift events of the first `plies` as Star1/Star2
/// chance nodes, valued in winning chances as the engine weighs its drop-mate risk (a logistic
/// of scale 200 is `s tanh(v / s)` with `s` = 400), so that a drop mate counts as a lost game
/// and not as -32,000 centipawns; elsewhere the engine's own. With no plies (`exact0`), the
/// blind engine with that evaluation: the control that tells the chance nodes' effect from
/// the evaluation's.
fn exact(v: &Variant, plies: usize) -> SearchParams {
    let p = SearchParams::for_variant(v);
    if !p.chance_correction {
        return p;
    }
    let gift_horizon = if plies == 0 { 0 } else { p.gift_horizon };
    SearchParams { chance_correction: false, chance_plies: plies, win_scale: 400, gift_horizon, ..p }
}

/// A level at play.
enum Player {
    Engine(Box<Engine>),
    Oracle(Box<Engine>),
    Seer(Box<Engine>),
    /// The engine, the player's own seed from which its futures are drawn, and their number.
    Sampled(Box<Engine>, u64, u64),
    /// The blind engine, the player's seed, the number of searches and the noise's amplitude.
    Jitter(Box<Engine>, u64, u64, i32),
    MonteCarlo(Box<MonteCarlo>),
}

impl Player {
    fn choose(
        &mut self,
        pos: &Position,
        game: &[u64],
        limits: Limits,
        stream: &rand_chacha::ChaCha8Rng,
    ) -> Option<rules::Move> {
        match self {
            Player::Engine(e) => e.search(pos.clone(), game, limits, |_| {}).best,
            Player::Oracle(e) => {
                // The event each root move would draw from the referee's stream.
                let events =
                    pos.legal_moves().into_iter().map(|m| (m, *pos.chance(m).sample(&mut stream.clone()))).collect();
                e.set_root_events(events);
                e.search(pos.clone(), game, limits, |_| {}).best
            }
            Player::Seer(e) => {
                e.set_chance_stream(Some(stream.clone()));
                e.search(pos.clone(), game, limits, |_| {}).best
            }
            Player::Sampled(e, seed, futures) => e.search_futures(pos, game, limits, *seed, *futures),
            Player::Jitter(e, seed, members, a) => e.search_jittered(pos, game, limits, *seed, *members, *a),
            Player::MonteCarlo(mc) => mc.choose(pos, game, limits),
        }
    }
}

/// What the internal match needs.
pub(crate) struct Duel {
    pub variant: &'static Variant,
    pub start: Position,
    /// Probabilistic chess: each pair of games draws its own square map from the pair's seed
    /// (both games of a pair share it); otherwise every game starts from `start`.
    pub random_maps: bool,
    /// SnowFall without `--snowfall`: each pair of games draws its percentage from the pair's
    /// seed (both games of a pair share it), as a SnowFall game does when it starts.
    pub random_percent: bool,
    /// Chess960: each pair of games starts from a position drawn from the pair's seed.
    pub random_960: bool,
    pub levels: [Level; 2],
    pub games: u32,
    /// Time per move of player A, then of player B (different for a time-odds match).
    pub movetime: [Duration; 2],
    /// A node budget per move instead of `movetime` (reproducible from the seed).
    pub nodes: Option<u64>,
    /// A fixed depth per move instead of `movetime` (players compared at equal depth).
    pub depth: Option<u32>,
    pub seed: u64,
    pub max_plies: u32,
    pub concurrency: usize,
    pub hash_mb: usize,
    /// Write every game in PGN (with its chance events) to this file as it ends.
    pub pgn: Option<std::path::PathBuf>,
}

/// One finished game of an internal match.
pub(crate) struct Played {
    /// 0-based.
    pub number: u32,
    /// Player A had White.
    pub a_white: bool,
    /// `None` for a draw.
    pub winner: Option<Color>,
    /// How it ended.
    pub reason: String,
    /// Its length.
    pub plies: usize,
    /// The last position.
    pub final_fen: String,
    /// The game's record, where the match keeps one (`--pgn`).
    pub record: Option<String>,
}

/// Plays game `number` (0-based): player A has White in even games; the chance stream of a
/// colour-swapped pair is the same seed.
fn play(d: &Duel, number: u32) -> Result<Played> {
    let a_white = number.is_multiple_of(2);
    let by_color = if a_white { [d.levels[0], d.levels[1]] } else { [d.levels[1], d.levels[0]] };
    let pair_seed = d.seed.wrapping_add(u64::from(number / 2));
    let mut rng = seeded_rng(pair_seed);
    let (variant, start) = if d.random_maps {
        (
            d.variant,
            rules::variants::probabilistic::start(
                d.variant,
                &rules::variants::probabilistic::random_map(d.variant, &mut rng),
            ),
        )
    } else if d.random_percent {
        let v = rules::variants::snowfall::variant(rules::variants::snowfall::draw_percent(&mut rng));
        (v, Position::start(v))
    } else if d.random_960 {
        let (n, fen) = rules::variants::chess960::random_start(d.variant, &mut rng);
        let start = Position::from_fen(d.variant, &fen).map_err(|e| anyhow::anyhow!("Chess960 position {n}: {e}"))?;
        (start.variant(), start)
    } else {
        (d.variant, d.start.clone())
    };
    let mut players = [0u64, 1].map(|c| by_color[c as usize].player(variant, d.hash_mb, pair_seed ^ (c << 32)));
    let mut game = Game::new(start);
    let (winner, reason) = loop {
        if let Some(o) = game.outcome() {
            break match o {
                Outcome::Decisive { winner, reason } => (Some(winner), reason.name().to_string()),
                Outcome::Draw { reason } => (None, reason.name().to_string()),
            };
        }
        if d.max_plies > 0 && game.moves().len() >= d.max_plies as usize {
            break (None, format!("adjudicated a draw after {} plies", d.max_plies));
        }
        let pos = game.position();
        let player = usize::from((pos.turn() == Color::White) != a_white);
        let limits = match (d.nodes, d.depth) {
            (Some(n), _) => Limits::nodes(n),
            (None, Some(depth)) => Limits::depth(depth),
            (None, None) => Limits::movetime(d.movetime[player]),
        };
        let m = players[pos.turn().index()]
            .choose(pos, game.history(), limits, &rng)
            .ok_or_else(|| anyhow!("the engine found no move in {}", pos.fen()))?;
        game.play_sampled(m, &mut rng).map_err(|e| anyhow!("game {}: {e}", number + 1))?;
    };
    let record = d.pgn.as_ref().map(|_| {
        let names = [d.levels[0], d.levels[1]].map(|l| l.name(d.variant).to_string());
        let (white, black) = if a_white { (&names[0], &names[1]) } else { (&names[1], &names[0]) };
        let tags = [
            ("Event", format!("fairylab match: {} vs {}", names[0], names[1])),
            ("Date", engine::tournament::pgn_date(std::time::SystemTime::now())),
            ("Round", (number + 1).to_string()),
            ("White", white.clone()),
            ("Black", black.clone()),
            ("Result", result_text(winner).to_string()),
            ("PlyCount", game.moves().len().to_string()),
            ("Termination", reason.clone()),
        ];
        rules::record::write_pgn(&game, &tags.map(|(n, v)| (n.to_string(), v)))
    });
    Ok(Played { number, a_white, winner, reason, plies: game.moves().len(), final_fen: game.position().fen(), record })
}

/// A game's result as PGN writes it.
fn result_text(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None => "1/2-1/2",
    }
}

/// Plays the match: a line per game on stderr, the summary on stdout.
pub(crate) fn run(d: &Duel) -> Result<ExitCode> {
    let names = d.levels.map(|l| l.name(d.variant));
    let [time_a, time_b] = d.movetime.map(|t| t.as_millis());
    let budget = match (d.nodes, d.depth) {
        (Some(n), _) => format!("{n} nodes per move"),
        (None, Some(depth)) => format!("depth {depth} per move"),
        _ if time_a == time_b => format!("{time_a} ms per move"),
        _ => format!("{time_a} ms against {time_b} ms per move"),
    };
    let percent = match rules::variants::snowfall::percent(d.variant) {
        Some(_) if d.random_percent => {
            let range = rules::variants::snowfall::PERCENTS;
            format!(" (SnowFall % drawn from {}..={} for each pair of games)", range.start(), range.end())
        }
        Some(n) => format!(" (SnowFall {n} %)"),
        None => String::new(),
    };
    eprintln!(
        "match: {} vs {}, {}{percent}, {} games, {budget}, seed {}, {} at a time",
        names[0], names[1], d.variant.name, d.games, d.seed, d.concurrency
    );
    run_games(names, &d.variant.name, &budget, d.games, d.concurrency, d.pgn.as_deref(), |n| play(d, n))
}

/// Plays games `0..games` with `concurrency` threads, printing a line per game on stderr as it
/// ends and the summary for player A (`names[0]`) on stdout: the score with its 95 % interval
/// and the average length; with `pgn`, the records of the games that keep one, in the order they
/// end. Shared by every internal match (`predictor_match.rs` too).
pub(crate) fn run_games(
    names: [&str; 2],
    variant: &str,
    budget: &str,
    games: u32,
    concurrency: usize,
    pgn: Option<&std::path::Path>,
    play: impl Fn(u32) -> Result<Played> + Sync,
) -> Result<ExitCode> {
    let [a, b] = names;
    let mut pgn = match pgn {
        Some(path) => Some(std::io::BufWriter::new(append_to(path)?)),
        None => None,
    };
    let next = AtomicU32::new(0);
    let (tx, rx) = mpsc::channel::<Result<Played>>();
    let (mut wins, mut draws, mut losses, mut plies) = (0u32, 0u32, 0u32, 0usize);
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..concurrency.max(1) {
            let tx = tx.clone();
            let (next, play) = (&next, &play);
            s.spawn(move || loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= games {
                    return;
                }
                let r = play(n);
                let failed = r.is_err();
                let _ = tx.send(r);
                if failed {
                    next.store(games, Ordering::Relaxed);
                }
            });
        }
        drop(tx);
        for r in rx {
            let g = r?;
            let a_color = if g.a_white { Color::White } else { Color::Black };
            match g.winner {
                Some(w) if w == a_color => wins += 1,
                Some(_) => losses += 1,
                None => draws += 1,
            }
            plies += g.plies;
            let result = result_text(g.winner);
            let (white, black) = if g.a_white { (a, b) } else { (b, a) };
            eprintln!(
                "game {:>3}: {white} - {black} {result} ({}, {} plies)  {a}: +{wins} ={draws} -{losses}  final {}",
                g.number + 1,
                g.reason,
                g.plies,
                g.final_fen
            );
            if let (Some(out), Some(record)) = (pgn.as_mut(), &g.record) {
                out.write_all(record.as_bytes())
                    .and_then(|()| out.write_all(b"\n"))
                    .and_then(|()| out.flush())
                    .context("cannot write the PGN file")?;
            }
        }
        Ok(())
    })?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let played = wins + draws + losses;
    writeln!(out, "{a} vs {b} ({variant}, {budget}): {played} games")?;
    writeln!(out, "{a}: +{wins} ={draws} -{losses}")?;
    if let Some(st) = score_stats(wins, draws, losses) {
        writeln!(
            out,
            "score {:.1} % [{:.1} %, {:.1} %] (95 %), Elo {:+.0} [{:+.0}, {:+.0}]",
            100.0 * st.score,
            100.0 * st.score_low,
            100.0 * st.score_high,
            st.elo,
            st.elo_low,
            st.elo_high
        )?;
    }
    if played > 0 {
        writeln!(out, "average length {:.1} plies", plies as f64 / f64::from(played))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A match's PGN file, opened to add its games after those already there (as cutechess-cli's
/// `-pgnout` and fastchess add them): a file reused for several matches keeps every game.
/// A file whose last game does not end its line gets the blank line a record needs before the
/// next one (else the next game's first tag would stick to the last one's result).
pub(crate) fn append_to(path: &std::path::Path) -> Result<std::fs::File> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let context = || format!("cannot open the PGN file {} to add the games", path.display());
    let mut file = std::fs::OpenOptions::new().create(true).read(true).append(true).open(path).with_context(context)?;
    let len = file.metadata().with_context(context)?.len();
    if len > 0 {
        let mut tail = [0u8; 2];
        let n = tail.len().min(len as usize);
        file.seek(SeekFrom::End(-(n as i64))).with_context(context)?;
        file.read_exact(&mut tail[..n]).with_context(context)?;
        let gap: &[u8] = match &tail[..n] {
            [.., b'\n', b'\n'] => b"",
            [.., b'\n'] => b"\n",
            _ => b"\n\n",
        };
        file.write_all(gap).with_context(context)?;
    }
    Ok(file)
}
