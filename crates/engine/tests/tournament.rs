//! Matches against a fake UCI engine (a one-file Python script written to a temporary directory):
//! games end by the rules and by adjudication; illegal moves, crashes and hangs forfeit.

use engine::tournament::{
    parse_openings, Adjudication, DrawRule, EngineSpec, ForfeitKind, Match, MatchConfig, MatchError, ResignRule,
    StartError, Tally, Termination, TimeControl,
};
use engine::uci_client::{EngineCommand, UciEngine};
use rules::outcome::EndReason;
use rules::{variants, Color};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The fake engine. Usage: `fake.py [--name N] [--variants a,b] [--score CP] [--exit-at PLY]
/// [--hang-at PLY] [--random SEED] [--sleep MS] [--chess960] [MOVES...]`: at ply k of the game (counted from
/// the position it is given) it plays MOVES[k] (`0000` past the end), or a random legal move with
/// python-chess; it reports `score cp CP` if asked, exits at `--exit-at`, never answers at
/// `--hang-at`, and takes MS milliseconds over every move with `--sleep`; with `--chess960` it
/// has a `UCI_Chess960` option, and once it is set plays its random moves by Chess960's rules.
const FAKE_ENGINE: &str = r#"
import sys, time, random
args = sys.argv[1:]
name, variants, score, exit_at, hang_at, seed, script, pause = "fake", None, None, -1, -1, None, [], 0
has960, c960 = False, False
while args:
    a = args.pop(0)
    if a == "--name": name = args.pop(0)
    elif a == "--variants": variants = args.pop(0).split(",")
    elif a == "--score": score = int(args.pop(0))
    elif a == "--exit-at": exit_at = int(args.pop(0))
    elif a == "--hang-at": hang_at = int(args.pop(0))
    elif a == "--random": seed = int(args.pop(0))
    elif a == "--sleep": pause = int(args.pop(0)) / 1000
    elif a == "--chess960": has960 = True
    else: script.append(a)
fen, moves = None, []
def say(s):
    sys.stdout.write(s + "\n"); sys.stdout.flush()
for line in sys.stdin:
    t = line.split()
    if not t: continue
    if t[0] == "uci":
        say("id name " + name)
        if variants: say("option name UCI_Variant type combo default chess " + " ".join("var " + v for v in variants))
        say("option name Threads type spin default 1 min 1 max 4")
        if has960: say("option name UCI_Chess960 type check default false")
        say("uciok")
    elif t[0] == "isready": say("readyok")
    elif t[0] == "setoption" and t[2:3] == ["UCI_Chess960"]: c960 = t[-1] == "true"
    elif t[0] == "position":
        fen = " ".join(t[2:8]) if t[1] == "fen" else None
        moves = t[t.index("moves") + 1:] if "moves" in t else []
    elif t[0] == "go":
        ply = len(moves)
        if ply == exit_at:
            sys.stderr.write("fake engine: exiting at ply %d\n" % ply); sys.exit(3)
        if ply == hang_at:
            time.sleep(3600)
        time.sleep(pause)
        if seed is not None:
            import chess
            board = chess.Board(fen, chess960=c960)
            for m in moves: board.push_uci(m)
            legal = sorted(m.uci() for m in board.legal_moves)
            move = random.Random(seed * 1000 + ply).choice(legal)
        else:
            move = script[ply] if ply < len(script) else "0000"
        if score is not None: say("info depth 1 score cp %d nodes 1 pv %s" % (score, move))
        say("bestmove " + move)
    elif t[0] == "quit": break
"#;

/// Fool's mate, both sides' moves.
const FOOLS_MATE: [&str; 4] = ["f2f3", "e7e5", "g2g4", "d8h4"];
/// Knights out and back three times: the start position a third time after 8 plies.
const SHUFFLE: [&str; 12] =
    ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"];

/// Writes the fake engine once per test process; `None` (and a message) without python3.
fn fake_engine() -> Option<PathBuf> {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not found: skipping the match tests");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("fairylab-fake-uci-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("fake_uci.py");
    if !path.exists() {
        let tmp = dir.join(format!("fake_uci.py.{:?}", std::thread::current().id()));
        std::fs::write(&tmp, FAKE_ENGINE).expect("write fake engine");
        std::fs::rename(&tmp, &path).expect("rename fake engine");
    }
    Some(path)
}

fn spec(script: &Path, args: &[&str]) -> EngineSpec {
    let mut all = vec![script.display().to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    EngineSpec::new(EngineCommand::new("python3", all))
}

fn config(a: EngineSpec, b: EngineSpec) -> MatchConfig {
    let mut c = MatchConfig::new(variants::by_name("chess").expect("chess"), [a, b]);
    c.time = TimeControl::MoveTime(Duration::from_millis(10));
    c.adjudication = Adjudication { max_plies: None, resign: None, draw: None };
    c
}

/// Plays the whole match.
fn play(c: MatchConfig) -> (Vec<engine::tournament::GameRecord>, Tally) {
    let mut m = Match::start(c).expect("engines start");
    let mut tally = Tally::default();
    let mut games = Vec::new();
    while let Some(g) = m.next_game() {
        tally.add(&g);
        games.push(g);
    }
    (games, tally)
}

#[test]
fn games_end_by_checkmate_with_colours_swapped() {
    let Some(f) = fake_engine() else { return };
    let (games, tally) = play(config(spec(&f, &["--name", "A"]).with(&FOOLS_MATE), spec(&f, &FOOLS_MATE)));
    assert_eq!(games.len(), 2);
    for (g, a_white) in games.iter().zip([true, false]) {
        assert_eq!(g.a_white, a_white);
        assert_eq!(g.termination, Termination::Rules(EndReason::Checkmate));
        assert_eq!(g.winner, Some(Color::Black));
        let san: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(san, ["f3", "e5", "g4", "Qh4#"]);
    }
    assert_eq!((games[0].white.as_str(), games[0].black.as_str()), ("A", "fake"));
    assert_eq!((tally.wins, tally.draws, tally.losses), (1, 0, 1));
    assert_eq!(tally.reasons.get("checkmate"), Some(&2));
    assert!((tally.average_plies() - 4.0).abs() < 1e-9);
    let pgn = games[1].to_pgn("test", "2025.01.01");
    for needle in [
        "[White \"fake\"]",
        "[Black \"A\"]",
        "[Result \"0-1\"]",
        "[Variant \"chess\"]",
        "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]",
        "[Termination \"normal\"]",
        "1. f3 {",
        "2. g4 {",
        "Qh4# {",
        "{Black mates} 0-1",
    ] {
        assert!(pgn.contains(needle), "{needle} missing from\n{pgn}");
    }
}

#[test]
fn repetition_and_ply_limit_draw() {
    let Some(f) = fake_engine() else { return };
    let mut c = config(spec(&f, &SHUFFLE), spec(&f, &SHUFFLE));
    c.games = 1;
    let (games, _) = play(c.clone());
    assert_eq!(games[0].termination, Termination::Rules(EndReason::Repetition));
    assert_eq!((games[0].winner, games[0].moves.len()), (None, 8));
    c.adjudication.max_plies = Some(5);
    let (games, _) = play(c);
    assert_eq!((&games[0].termination, games[0].moves.len()), (&Termination::MaxPlies, 5));
}

#[test]
fn resign_and_draw_adjudication() {
    let Some(f) = fake_engine() else { return };
    // A always thinks it is winning, B that it is losing: A wins both games after 2 moves each.
    let mut c = config(spec(&f, &["--score", "1500"]).with(&SHUFFLE), spec(&f, &["--score", "-1500"]).with(&SHUFFLE));
    c.adjudication.resign = Some(ResignRule { moves: 2, score_cp: 1000 });
    let (games, tally) = play(c);
    assert!(games.iter().all(|g| g.termination == Termination::ResignAdjudication && g.moves.len() == 4));
    assert_eq!((tally.wins, tally.draws, tally.losses), (2, 0, 0));
    assert!(games[0].to_pgn("t", "?").contains("[Termination \"adjudication\"]"));

    // Both think it is level: a draw after 2 moves each (the rule applies from move 1 here).
    let mut c = config(spec(&f, &["--score", "5"]).with(&SHUFFLE), spec(&f, &["--score", "-3"]).with(&SHUFFLE));
    c.games = 1;
    c.adjudication.draw = Some(DrawRule { after_move: 0, moves: 2, score_cp: 10 });
    let (games, _) = play(c);
    assert_eq!(
        (&games[0].termination, games[0].winner, games[0].moves.len()),
        (&Termination::DrawAdjudication, None, 4)
    );
}

#[test]
fn an_illegal_move_forfeits() {
    let Some(f) = fake_engine() else { return };
    // B (Black in game 1) answers 1.f3 with the impossible e7e4; in game 2 it has White and
    // plays nothing at all after its script ends ("0000").
    let (games, tally) = play(config(spec(&f, &FOOLS_MATE), spec(&f, &["f2f3", "e7e4"])));
    let Termination::Forfeit { kind, detail } = &games[0].termination else { panic!("{:?}", games[0].termination) };
    assert_eq!(*kind, ForfeitKind::IllegalMove);
    assert!(detail.contains("'e7e4'") && detail.contains("rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq"));
    assert_eq!((games[0].winner, games[0].moves.len()), (Some(Color::White), 1));
    let Termination::Forfeit { kind, detail } = &games[1].termination else { panic!("{:?}", games[1].termination) };
    assert_eq!((*kind, games[1].winner), (ForfeitKind::IllegalMove, Some(Color::Black)));
    assert!(detail.contains("'0000'"), "{detail}");
    assert_eq!((tally.wins, tally.losses), (2, 0));
    assert_eq!(tally.reasons.get("illegal move"), Some(&2));
    let pgn = games[0].to_pgn("t", "?");
    assert!(pgn.contains("[Termination \"rules infraction\"]") && pgn.contains("{Black forfeits: "), "{pgn}");
}

#[test]
fn a_crashing_engine_forfeits_and_is_restarted() {
    let Some(f) = fake_engine() else { return };
    // B exits when asked for ply 1: as Black in game 1 it loses at once; restarted for game 2
    // (where it has White, moves at plies 0 and 2) it plays fool's mate to the end and loses.
    let (games, tally) = play(config(spec(&f, &FOOLS_MATE), spec(&f, &["--exit-at", "1"]).with(&FOOLS_MATE)));
    let Termination::Forfeit { kind, detail } = &games[0].termination else { panic!("{:?}", games[0].termination) };
    assert_eq!((*kind, games[0].winner), (ForfeitKind::Crash, Some(Color::White)));
    assert!(detail.contains("exited") && detail.contains("exiting at ply 1"), "{detail}");
    assert_eq!(games[1].termination, Termination::Rules(EndReason::Checkmate));
    assert_eq!((tally.wins, tally.draws, tally.losses), (2, 0, 0));
}

#[test]
fn a_hanging_engine_forfeits_on_time() {
    let Some(f) = fake_engine() else { return };
    let mut c = config(spec(&f, &FOOLS_MATE), spec(&f, &["--hang-at", "1"]));
    c.games = 1;
    c.margin = Duration::from_millis(300);
    let start = Instant::now();
    let (games, _) = play(c);
    assert!(start.elapsed() < Duration::from_secs(5));
    let Termination::Forfeit { kind, detail } = &games[0].termination else { panic!("{:?}", games[0].termination) };
    assert_eq!((*kind, games[0].winner), (ForfeitKind::TimeOut, Some(Color::White)));
    assert!(detail.contains("no bestmove within 310 ms"), "{detail}");
}

#[test]
fn clock_time_control() {
    let Some(f) = fake_engine() else { return };
    let mut c = config(spec(&f, &FOOLS_MATE), spec(&f, &FOOLS_MATE));
    c.games = 1;
    c.time = TimeControl::Clock { base: Duration::from_secs(2), increment: Duration::from_millis(100) };
    let (games, _) = play(c);
    assert_eq!(games[0].termination, Termination::Rules(EndReason::Checkmate));
    assert!(games[0].to_pgn("t", "?").contains("[TimeControl \"2+0.1\"]"));
}

/// Chess960 with an engine that does not list it by name: played as chess with `UCI_Chess960`
/// (as against Stockfish; it was refused, "no UCI_Variant option"); castling in the engines'
/// king-takes-rook form. An engine without the option is refused, saying so.
#[test]
fn chess960_is_played_with_uci_chess960() {
    let Some(f) = fake_engine() else { return };
    let chess960 = variants::by_name("chess960").expect("chess960");
    let mut c = config(spec(&f, &["--random", "1", "--chess960"]), spec(&f, &["--random", "2", "--chess960"]));
    c.variant = chess960;
    c.games = 6;
    c.adjudication = Adjudication { max_plies: Some(80), resign: None, draw: None };
    let book: String = [17, 331, 518, 959]
        .iter()
        .filter_map(|&n| Some(format!("{}\n", rules::variants::chess960::start_fen_in(chess960, n)?)))
        .collect();
    c.openings = engine::tournament::parse_openings(chess960, &book).expect("the starts");
    let (games, _) = play(c);
    assert_eq!(games.len(), 6);
    for g in &games {
        assert!(!matches!(g.termination, Termination::Forfeit { .. }), "{:?}", g.termination);
    }
    assert!(games.iter().any(|g| g.moves.len() > 40), "games of some length");
    let mut c = config(spec(&f, &["--random", "1"]), spec(&f, &["--random", "2", "--chess960"]));
    c.variant = chess960;
    let err = Match::start(c).expect_err("an engine without UCI_Chess960").to_string();
    assert!(err.contains("chess960") && err.contains("no UCI_Chess960 option"), "{err}");
}

/// An engine that crashes and then cannot be started again stops the match (the games left
/// were scored as its forfeits, as if played); the game it crashed in stays a forfeit.
#[test]
fn an_engine_that_cannot_be_restarted_stops_the_match() {
    let Some(f) = fake_engine() else { return };
    // B starts once: its command refuses to run a second time (a marker file), as an engine
    // binary deleted or broken during the match.
    let marker =
        std::env::temp_dir().join(format!("fairylab-once-{}-{:?}", std::process::id(), std::thread::current().id()));
    let _ = std::fs::remove_file(&marker);
    let once = format!(
        "if [ -e '{m}' ]; then echo 'cannot start' >&2; exit 1; fi; touch '{m}'; exec python3 '{f}' --exit-at 1",
        m = marker.display(),
        f = f.display()
    );
    let mut c = config(spec(&f, &FOOLS_MATE), EngineSpec::new(EngineCommand::new("sh", ["-c".to_string(), once])));
    c.games = 6;
    let mut m = Match::start(c).expect("engines start");
    let first = m.next_game().expect("the first game");
    assert!(
        matches!(first.termination, Termination::Forfeit { kind: ForfeitKind::Crash, .. }),
        "{:?}",
        first.termination
    );
    assert!(m.next_game().is_none(), "the match goes on without its engine");
    let why = m.stopped().expect("why it stopped");
    assert!(why.contains("restart failed") && why.contains("cannot start"), "{why}");
    let _ = std::fs::remove_file(&marker);
}

/// An engine that overruns its clock within the margin on every move loses on time once its
/// overruns add up to the margin (the clock was set back to zero at each, and it never lost).
#[test]
fn overruns_within_the_margin_add_up_to_a_time_forfeit() {
    let Some(f) = fake_engine() else { return };
    let mut c = config(spec(&f, &["--random", "1"]), spec(&f, &["--random", "2", "--sleep", "300"]));
    c.games = 1;
    c.time = TimeControl::Clock { base: Duration::from_millis(500), increment: Duration::ZERO };
    c.margin = Duration::from_millis(400);
    let (games, _) = play(c);
    let Termination::Forfeit { kind, .. } = &games[0].termination else { panic!("{:?}", games[0].termination) };
    assert_eq!((*kind, games[0].winner), (ForfeitKind::TimeOut, Some(Color::White)));
    // 500 ms on the clock and 400 of margin: the third move of 300 ms is the one that overruns.
    let black_moves = games[0].moves.len() / 2;
    assert!(black_moves <= 3, "{black_moves} moves of 300 ms each in 0.5 s with a 0.4 s margin");
}

#[test]
fn engines_that_cannot_play_are_refused_at_the_start() {
    let Some(f) = fake_engine() else { return };
    let missing = EngineSpec::new(EngineCommand::new("/nonexistent/engine", Vec::<String>::new()));
    let err = Match::start(config(spec(&f, &[]), missing)).expect_err("no such program");
    assert!(matches!(err, MatchError::Engine { number: 2, .. }), "{err}");

    let gardner = variants::by_name("gardner").expect("gardner");
    let mut c = config(spec(&f, &["--variants", "chess,gardner"]), spec(&f, &[]));
    c.variant = gardner;
    let err = Match::start(c).expect_err("B has no UCI_Variant");
    let MatchError::Engine { number: 2, source: StartError::Variant { .. }, .. } = &err else { panic!("{err}") };

    let mut c = config(spec(&f, &[]), spec(&f, &[]));
    c.engines[1].options.push(("Hsah".into(), "16".into()));
    let err = Match::start(c).expect_err("misspelt option");
    assert!(err.to_string().contains("no option 'Hsah'"), "{err}");

    // The handshake of a process that is not an engine times out.
    let sleeper = EngineCommand::new("python3", ["-c", "import time; time.sleep(60)"]);
    let start = Instant::now();
    let err = UciEngine::spawn(&sleeper, Duration::from_millis(200)).expect_err("no uciok");
    assert!(err.to_string().contains("no uciok within 200 ms") && start.elapsed() < Duration::from_secs(2));
}

#[test]
fn gardner_from_openings_file() {
    let Some(f) = fake_engine() else { return };
    let gardner = variants::by_name("gardner").expect("gardner");
    let text = "# two openings\nrnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1\nrnbqk/ppppp/5/PPPPP/RNBQK w - - id \"start\";\n";
    let mut c = config(spec(&f, &["--variants", "gardner"]).with(&["a2a3"]), spec(&f, &["--variants", "gardner"]));
    c.variant = gardner;
    c.openings = parse_openings(gardner, text).expect("openings");
    c.games = 4;
    let (games, _) = play(c);
    let scheduled: Vec<(usize, bool)> = games.iter().map(|g| (g.opening, g.a_white)).collect();
    assert_eq!(scheduled, [(0, true), (0, false), (1, true), (1, false)]);
    assert_eq!(games[2].opening_id.as_deref(), Some("start"));
    // A moves a2a3 as White and then nothing; B has no moves at all.
    assert_eq!(games[0].moves.len(), 1);
    assert_eq!(games[1].moves.len(), 0);
    assert!(games[0].to_pgn("t", "?").contains("[Variant \"gardner\"]"));
}

#[test]
fn random_movers_play_legal_games() {
    let Some(f) = fake_engine() else { return };
    if !Command::new("python3").args(["-c", "import chess"]).status().is_ok_and(|s| s.success()) {
        eprintln!("python-chess not installed: skipping random games (pip install chess)");
        return;
    }
    let mut c = config(spec(&f, &["--random", "1"]), spec(&f, &["--random", "2"]));
    c.adjudication.max_plies = Some(150);
    let (games, tally) = play(c);
    for g in &games {
        assert!(!matches!(g.termination, Termination::Forfeit { .. }), "{:?}", g.termination);
    }
    assert_eq!(tally.games(), 2);
}

#[test]
fn opening_books_are_legal_and_distinct() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/openings");
    for (variant, file, at_least) in
        [("chess", "chess.epd", 45), ("gardner", "gardner.epd", 20), ("crazyhouse", "crazyhouse.epd", 15)]
    {
        let v = variants::by_name(variant).expect("variant");
        let text = std::fs::read_to_string(dir.join(file)).expect("openings file");
        let openings = parse_openings(v, &text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(openings.len() >= at_least, "{file}: only {} openings", openings.len());
        let mut fens: Vec<String> = openings.iter().map(|o| o.position.fen()).collect();
        fens.sort();
        fens.dedup();
        assert_eq!(fens.len(), openings.len(), "{file}: duplicate positions");
        assert!(openings.iter().all(|o| o.id.is_some()), "{file}: every opening has an id");
    }
}

/// Appending a script's moves to an engine's arguments.
trait WithMoves {
    fn with(self, moves: &[&str]) -> EngineSpec;
}

impl WithMoves for EngineSpec {
    fn with(mut self, moves: &[&str]) -> EngineSpec {
        self.command.args.extend(moves.iter().map(|m| m.to_string()));
        self
    }
}
