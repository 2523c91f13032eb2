//! `fairylab uci` and `fairylab xboard` as processes: scripted sessions on stdin, and
//! python-chess playing whole chess and crazyhouse games against the engine as a real UCI client.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Instant;

fn session(command: &str, input: &str) -> Output {
    common::fairylab_stdin(&[command], input)
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect()
}

#[test]
fn uci_session_on_stdin() {
    let o = session(
        "uci",
        "uci\nisready\nsetoption name UCI_Variant value crazyhouse\n\
         position startpos moves e2e4 d7d5 e4d5 d8d5 P@e6\nnonsense\ngo depth 3\n",
    );
    assert!(o.status.success(), "{o:?}");
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = lines(&o);
    assert!(out.contains(&"uciok".to_string()) && out.contains(&"readyok".to_string()), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("info string variant crazyhouse files 8 ranks 8 pocket 6")));
    assert!(out.contains(&"info string error: unknown command 'nonsense'".to_string()));
    // The end of input lets the search finish.
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
}

#[test]
fn uci_quit_ends_with_success() {
    let o = session("uci", "go infinite\nquit\nisready\n");
    assert!(o.status.success(), "{o:?}");
    let out = lines(&o);
    assert!(out.last().is_some_and(|l| l.starts_with("bestmove ")), "{out:?}");
    assert!(!out.contains(&"readyok".to_string()));
}

#[test]
fn xboard_session_on_stdin() {
    let o = session("xboard", "xboard\nprotover 2\nnew\nvariant gardner\nsd 2\nusermove a2a3\nping 1\n");
    assert!(o.status.success(), "{o:?}");
    let out = lines(&o);
    assert!(out[0].starts_with("feature ") && out[0].contains("5x5+0_fairy"), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("setup (") && l.contains("5x5+0_fairy")), "{out:?}");
    assert!(out.iter().any(|l| l.starts_with("move ")), "{out:?}");
    assert!(out.contains(&"pong 1".to_string()), "{out:?}");
}

/// CECP's order: a `ping` sent while the engine thinks is answered after its move; bare moves
/// (after `rejected usermove`) that are not legal are illegal moves, other words unknown commands.
#[test]
fn xboard_pong_follows_the_move_and_bare_moves_are_moves() {
    let o = session("xboard", "xboard\nprotover 2\nrejected usermove\nnew\nst 0.3\ne2e4\nping 1\n");
    assert!(o.status.success(), "{o:?}");
    let out = lines(&o);
    assert!(out[0].contains(" playother=1 ") && out[0].contains(" nps=1 "), "{out:?}");
    let at = |prefix: &str| out.iter().position(|l| l.starts_with(prefix));
    assert!(at("move ").is_some() && at("move ") < at("pong 1"), "{out:?}");
    let o = session("xboard", "xboard\nprotover 2\nnew\nforce\ne1e2\nfoo\nKe2\n");
    assert_eq!(lines(&o)[1..], ["Illegal move: e1e2", "Error (unknown command): foo", "Illegal move: Ke2"]);
}

/// python-chess's node limit over XBoard (`nps 1`, `st 5000`): 5000 nodes, not 5000 seconds,
/// and none of the engine's features rejected; skipped with a notice when python-chess is missing.
#[test]
fn python_chess_limits_xboard_by_nodes() {
    if !python_chess("the python-chess node limit over XBoard") {
        return;
    }
    // A node limit has no time-out in python-chess: the alarm ends a search that ignores it.
    let script = "import chess, chess.engine, logging, signal, sys, time\n\
                  def timeout(*_): raise TimeoutError('no move within 60 s')\n\
                  signal.signal(signal.SIGALRM, timeout)\n\
                  signal.alarm(60)\n\
                  logging.basicConfig(level=logging.WARNING)\n\
                  e = chess.engine.SimpleEngine.popen_xboard([sys.argv[1], 'xboard'])\n\
                  try:\n    \
                      start = time.time()\n    \
                      r = e.play(chess.Board(), chess.engine.Limit(nodes=5000), info=chess.engine.INFO_ALL)\n    \
                      print(r.move, r.info.get('nodes'), time.time() - start)\n\
                  finally:\n    \
                      e.quit()\n";
    let o =
        Command::new("python3").args(["-c", script, env!("CARGO_BIN_EXE_fairylab")]).output().expect("python3 runs");
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{out}{err}");
    // python-chess logs a warning for each feature it rejects or misses (sigterm=0, no nps).
    assert!(!err.contains("WARNING"), "{err}");
    let fields: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(fields.len(), 3, "{out}");
    let nodes: u64 = fields[1].parse().expect("the nodes of the last thinking line");
    let seconds: f64 = fields[2].parse().expect("seconds");
    eprintln!("python-chess node limit: {} after {nodes} nodes in {seconds:.2} s", fields[0]);
    // Well under a second alone; the margin is for a loaded machine.
    assert!(nodes <= 5000 && seconds < 10.0, "{out}");
}

/// python-chess plays 10 chess and 10 crazyhouse games against the engine through UCI and
/// analyses a position of each with MultiPV and searchmoves (`scripts/uci_python_games.py`);
/// skipped with a notice when python-chess is missing.
#[test]
fn python_chess_plays_whole_games() {
    if !python_chess("the python-chess games") {
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/uci_python_games.py");
    let start = Instant::now();
    let o = Command::new("python3")
        .arg(&script)
        .args(["--bin", env!("CARGO_BIN_EXE_fairylab"), "--games", "10"])
        .output()
        .expect("python3 runs");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    eprintln!("{text}python-chess games: {:.1} s", start.elapsed().as_secs_f64());
    assert!(o.status.success(), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(" game ") && l.contains(" plies, ")).count(), 20, "{text}");
    assert!(text.contains("20 positions analysed with MultiPV 3 and searchmoves"), "{text}");
}

/// python-chess reads `fairylab review --pgn`'s annotated record as lichess's: every move's
/// `[%eval]` (the same values as the JSON review, from White's point of view) and the NAGs;
/// skipped with a notice when python-chess is missing.
#[test]
fn python_chess_reads_the_annotated_review() {
    if !python_chess("the annotated-record check") {
        return;
    }
    let pgn = "[Event \"Opera game\"]\n\n1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 \
               8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 \
               15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0\n";
    let dir = std::env::temp_dir().join(format!("fairylab-annotated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let game = dir.join("opera.pgn");
    std::fs::write(&game, pgn).expect("written");
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_fairylab")).args(args).output().expect("fairylab runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let path = game.to_str().expect("utf-8");
    let review: serde_json::Value =
        serde_json::from_str(&run(&["review", path, "--nodes", "20000", "--json"])).expect("JSON");
    let annotated = dir.join("annotated.pgn");
    std::fs::write(&annotated, run(&["review", path, "--nodes", "20000", "--pgn"])).expect("written");
    // White's evaluation after each move (cp, or mate as +/-100000 - n), and its NAGs.
    let script = "import chess.pgn, sys\n\
                  g = chess.pgn.read_game(open(sys.argv[1]))\n\
                  assert not g.errors, g.errors\n\
                  for n in g.mainline():\n    \
                      e = n.eval()\n    \
                      w = None if e is None else e.white().score(mate_score=100000)\n    \
                      print(n.san(), w, ','.join(str(x) for x in sorted(n.nags)))\n";
    let o = Command::new("python3").args(["-c", script, annotated.to_str().expect("utf-8")]).output().expect("python3");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<String> = String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect();
    let moves = review["moves"].as_array().expect("moves");
    assert_eq!(lines.len(), moves.len());
    for (line, m) in lines.iter().zip(moves) {
        let nag = match m["judgement"].as_str() {
            Some("inaccuracy") => "6",
            Some("mistake") => "2",
            Some("blunder") => "4",
            _ => "",
        };
        let white = match (m["outcome"]["cp"].as_i64(), m["outcome"]["mate"].as_i64()) {
            _ if m["ended"] == true => "None".to_string(),
            (Some(cp), _) => cp.to_string(),
            (_, Some(mate)) => (mate.signum() * (100_000 - mate.abs())).to_string(),
            _ => unreachable!("an evaluation"),
        };
        assert_eq!(line.trim_end(), format!("{} {white} {nag}", m["san"].as_str().expect("san")).trim_end(), "{m}");
    }
}

/// Whether python-chess can be imported; if not, says that `what` is skipped.
fn python_chess(what: &str) -> bool {
    let has = Command::new("python3").args(["-c", "import chess"]).output().is_ok_and(|o| o.status.success());
    if !has {
        eprintln!("python-chess not installed: skipping {what} (pip install chess)");
    }
    has
}

/// `fairylab uci --variant-path FILES` loads custom variants before the first `uci`, so a GUI
/// that reads the `UCI_Variant` list once (python-chess) can choose them, and `fairylab xboard
/// --variant-path` before `protover`; a file that does not load is one error line and exit
/// status 2.
#[test]
fn variant_path_on_the_command_line() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants");
    let files = format!("{data}/leapers.toml;{data}/chiral.toml");
    let o = common::fairylab_stdin(
        &["uci", "--variant-path", &files],
        "uci\nsetoption name UCI_Variant value chiral\nposition startpos\ngo perft 2\n",
    );
    common::assert_ok(&o);
    let out = common::stdout(&o);
    assert!(
        out.lines().any(|l| l.starts_with("option name UCI_Variant") && l.ends_with(" var leapers var chiral")),
        "{out}"
    );
    assert!(out.contains("Nodes searched: 289"), "{out}");
    common::assert_bad_input(&["uci", "--variant-path", &format!("{data}/missing.toml")], "missing.toml");
    // `fairylab xboard --variant-path` the same for XBoard's `variants` feature.
    let o = common::fairylab_stdin(&["xboard", "--variant-path", &files], "xboard\nprotover 2\nvariant chiral\n");
    common::assert_ok(&o);
    let out = common::stdout(&o);
    assert!(out.lines().next().is_some_and(|l| l.contains(",leapers,chiral\" done=1")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("setup (") && l.contains(" rybqkbzr/")), "{out}");
    common::assert_bad_input(&["xboard", "--variant-path", &format!("{data}/missing.toml")], "missing.toml");
}

/// A UCI match of fairylab against itself (chess960, played with `UCI_Chess960`): the summary
/// gives the score, the Elo, the LOS and the draw ratio; its PGN replays from the 960 starts.
#[test]
fn a_uci_match_sums_up_with_los_and_draw_ratio() {
    let engine = format!("{} uci", env!("CARGO_BIN_EXE_fairylab"));
    let o = common::fairylab(&[
        "match",
        "--engine2",
        &engine,
        "--variant",
        "chess960",
        "--games",
        "2",
        "--movetime",
        "10",
        "--max-plies",
        "16",
        "--seed",
        "5",
    ]);
    common::assert_ok(&o);
    let out = common::stdout(&o);
    assert!(out.contains("Games: 2\n") && out.contains("W/D/L: "), "{out}");
    let los = out.lines().find(|l| l.starts_with("LOS: ")).unwrap_or_else(|| panic!("no LOS line: {out}"));
    assert!(los.contains("draw ratio: ") && los.ends_with(" %"), "{los}");
}
