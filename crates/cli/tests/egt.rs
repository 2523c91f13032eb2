//! `fairylab egt`: generation with reports and files, probe, line and check on a saved file, the
//! options, fairy pieces from a piecedef file and Betza, and one clear error for bad input.

mod common;
use common::{assert_bad_input, assert_ok, fairylab, stdout, temp_path};

#[test]
fn generates_reports_saves_and_probes() {
    let file = temp_path("egt", "kqk.egt");
    let json = temp_path("egt", "kqk.json");
    let rep = temp_path("egt", "rep2.txt");
    let (f, j, r) = (file.to_str().unwrap(), json.to_str().unwrap(), rep.to_str().unwrap());
    let o = fairylab(&["egt", "KQ.K", "-m", "--out", f, "--json", j, "--report", r, "--threads", "2"]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(text.contains("longest white win: 10 moves"), "{text}");
    assert_eq!(std::fs::read_to_string(&rep).unwrap(), text);
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["longest_win_moves"], 10);
    for key in ["won_wtm", "won_btm"] {
        assert!(report["all_placements"][key].is_f64(), "{key}");
    }
    for key in ["won_wtm", "lost_btm"] {
        assert!(report["legal"][key].is_f64(), "{key}");
    }
    // Probe a longest win: the value and a best move one shorter.
    let fen = report["longest_wtm"]["fen"].as_str().unwrap().to_string();
    let o = fairylab(&["egt", "probe", f, "--fen", &fen]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(text.contains("White to move, win in 10"), "{text}");
    assert!(text.lines().nth(1).unwrap().contains("win in 10"), "best move first: {text}");
    let o = fairylab(&["egt", "probe", f, "--fen", &fen, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["value"], "win in 10");
    // The line ends in checkmate with White's 10th move.
    let o = fairylab(&["egt", "line", f, "--fen", &fen]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(text.trim_end().ends_with("(checkmate)"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(". White ")).count(), 10, "{text}");
    let o = fairylab(&["egt", "check", f, "--samples", "20000"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("all consistent"));
    // A file is refused under other rules, naming the field.
    assert_bad_input(&["egt", "probe", f, "--fen", &fen, "-s", "-m"], "-s (stalemate wins)");
}

#[test]
fn fairy_pieces_small_boards_and_options() {
    let defs = temp_path("egt", "piecedef.ini");
    std::fs::write(&defs, "C: 1,2,* 1,0,s*\nA: 1,2,* 1,1,s*\nX: 1,0,3*\n").unwrap();
    let d = defs.to_str().unwrap();
    let o = fairylab(&["egt", "KC.KA", "--pieces", d, "--quiet"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("black to move: 7.64 % won for White"), "{}", stdout(&o));
    let o = fairylab(&["egt", "KX.K", "--pieces", d, "--board", "5x5", "--quiet"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("KX.K on 5x5"));
    let o = fairylab(&["egt", "KY.K", "--betza", "Y=WfF", "--board", "6x6", "--quiet"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("symmetry 2-fold"), "{}", stdout(&o));
    let o = fairylab(&["egt", "KR.K", "-0", "--quiet"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("longest white win: 2 moves"), "{}", stdout(&o));
}

#[test]
fn bad_input_gets_one_clear_error() {
    let defs = temp_path("egt", "bad-piecedef.ini");
    std::fs::write(&defs, "N: 1,2,*\nZ: 1,1,s* 1,0s*\n").unwrap();
    let d = defs.to_str().unwrap();
    assert_bad_input(&["egt", "KQ.KZ"], "unknown piece letter 'Z'");
    assert_bad_input(&["egt", "KZ.K", "--pieces", d], "line 2");
    assert_bad_input(&["egt", "KQ.", "--quiet"], "royal");
    assert_bad_input(&["egt", ".KQ", "--quiet"], "royal");
    assert_bad_input(&["egt", "KQKR", "--quiet"], "period");
    assert_bad_input(&["egt", "KQ.KR", "--max-memory", "1M"], "needs");
    assert_bad_input(&["egt", "KQRBN.KQRBN"], "men");
    assert_bad_input(&["egt", "KNNNNNN.K"], "needs");
    assert_bad_input(&["egt", "KQ.K", "--board", "9x9"], "5 to 8");
    assert_bad_input(&["egt", "KQ.K", "--betza", "A=xyz"], "Betza");
    assert_bad_input(
        &["egt", "probe", "/nonexistent/file.egt", "--fen", "8/8/8/8/8/8/8/KQ5k w"],
        "/nonexistent/file.egt",
    );
    let junk = temp_path("egt", "junk.egt");
    std::fs::write(&junk, "not a table\n").unwrap();
    assert_bad_input(
        &["egt", "probe", junk.to_str().unwrap(), "--fen", "8/8/8/8/8/8/8/KQ5k w"],
        "not a valid table file",
    );
}

#[test]
fn probe_rejects_bad_positions() {
    let file = temp_path("egt", "krk.egt");
    let f = file.to_str().unwrap();
    assert_ok(&fairylab(&["egt", "KR.K", "--out", f, "--quiet"]));
    assert_bad_input(&["egt", "probe", f, "--fen", "8/8/8/8/8/8/KR6 w"], "ranks");
    assert_bad_input(&["egt", "probe", f, "--fen", "8/8/8/8/8/8/8/KQ5k w"], "none of this file's endings");
    assert_bad_input(&["egt", "probe", f, "--fen", "8/8/8/8/8/8/8/KR5k x"], "side to move");
    assert_bad_input(&["egt", "probe", f, "--fen", "9/8/8/8/8/8/8/KR5k w"], "rank 8");
    // A truncated file is refused before anything is allocated for it.
    let bytes = std::fs::read(&file).unwrap();
    let truncated = temp_path("egt", "truncated.egt");
    std::fs::write(&truncated, &bytes[..bytes.len() - 1]).unwrap();
    assert_bad_input(&["egt", "probe", truncated.to_str().unwrap(), "--fen", "8/8/8/8/8/8/8/KR5k w"], "payload bytes");
    // Damage one payload byte: the checksum refuses the file.
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let damaged = temp_path("egt", "damaged.egt");
    std::fs::write(&damaged, bytes).unwrap();
    assert_bad_input(&["egt", "probe", damaged.to_str().unwrap(), "--fen", "8/8/8/8/8/8/8/KR5k w"], "checksum");
}

#[test]
fn engines_use_table_files() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let file = temp_path("egt", "kqk-dtm.egt");
    let f = file.to_str().unwrap();
    assert_ok(&fairylab(&["egt", "KQ.K", "-m", "--out", f, "--quiet"]));
    // analyse: a KQK win in 10 is beyond depth 2, but the table knows it.
    let o = fairylab(&["analyse", "--fen", "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1", "--depth", "2", "--tables", f]);
    assert_ok(&o);
    assert!(stdout(&o).contains("score mate 10"), "{}", stdout(&o));
    // UCI: TablePath loads the file; a missing file is an error line and the engine goes on.
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairylab"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("uci starts");
    let input = format!(
        "uci\nsetoption name TablePath value /nonexistent.egt\nsetoption name TablePath value {f}\n\
         position fen 8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\ngo depth 2\nisready\nquit\n"
    );
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write");
    let out = child.wait_with_output().expect("uci ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("info string error: TablePath: /nonexistent.egt"), "{text}");
    assert!(text.contains("info string endgame tables: KQ.K (DTM)"), "{text}");
    assert!(text.contains("score mate 10"), "{text}");
    assert!(text.contains("readyok"), "{text}");
}

/// Probing checks only the options given against the file: the board and metric not given are
/// the file's (a 5x5 DTM table probed with `-m` alone is no mismatch); one given that differs is
/// named.
#[test]
fn a_probe_checks_only_the_options_given() {
    let file = temp_path("egt", "kqk55.egt");
    let f = file.to_str().unwrap();
    assert_ok(&fairylab(&["egt", "KQ.K", "--board", "5x5", "-m", "--out", f, "--quiet"]));
    let fen = "k4/5/5/5/1Q2K w - - 0 1";
    for extra in [&[][..], &["-m"][..], &["--board", "5x5"][..]] {
        let mut args = vec!["egt", "probe", f, "--fen", fen];
        args.extend_from_slice(extra);
        let o = fairylab(&args);
        assert_ok(&o);
        assert!(stdout(&o).contains("White to move"), "{extra:?}: {}", stdout(&o));
    }
    assert_bad_input(&["egt", "probe", f, "--fen", fen, "--board", "6x6"], "board is 5x5 in the file, 6x6 required");
    assert_bad_input(&["egt", "probe", f, "--fen", fen, "-0"], "-0 (null move)");
    assert_bad_input(&["egt", "probe", f, "--fen", fen, "--betza", "Q=N"], "piece Q");
}

/// A piece letter defined twice (two --betza, or --betza over the piece file) is refused, not
/// silently the last one; a review's node count and time cannot both be given.
#[test]
fn a_piece_defined_twice_is_refused() {
    assert_bad_input(
        &["egt", "KX.K", "--betza", "X=N", "--betza", "X=B"],
        "piece X is defined already, by --betza \"X=N\"",
    );
    let defs = temp_path("egt", "twice.ini");
    std::fs::write(&defs, "X: 1,2,*\n").unwrap();
    let d = defs.to_str().unwrap();
    assert_bad_input(
        &["egt", "KX.K", "--pieces", d, "--betza", "X=B"],
        "piece X is defined already, by the piece file",
    );
    // Redefining an orthodox letter is allowed once.
    assert_ok(&fairylab(&["egt", "KQ.K", "--betza", "Q=N", "--board", "5x5", "--quiet"]));
    assert_bad_input(&["review", "x.pgn", "--nodes", "1000", "--movetime", "10"], "cannot be used with");
}

/// `egt line --json` prints one JSON document: the probe's header fields (as `egt probe --json`
/// has them) and the line, each move with the position it leads to and how the line ends.
#[test]
fn line_json_is_one_document() {
    let file = temp_path("egt", "kqk-line.egt");
    let f = file.to_str().unwrap();
    assert_ok(&fairylab(&["egt", "KQ.K", "-m", "--out", f, "--quiet"]));
    let fen = "8/8/8/5k2/8/8/1Q6/K7 w";
    let o = fairylab(&["egt", "line", f, "--fen", fen, "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("stdout is one JSON document");
    let p: serde_json::Value =
        serde_json::from_str(&stdout(&fairylab(&["egt", "probe", f, "--fen", fen, "--json"]))).unwrap();
    for key in ["material", "fen", "side_to_move", "metric", "value"] {
        assert_eq!(v[key], p[key], "{key}");
    }
    assert_eq!(v["fen"], "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1");
    assert_eq!((&v["side_to_move"], &v["metric"], &v["value"]), (&"white".into(), &"DTM".into(), &"win in 10".into()));
    let line = v["line"].as_array().expect("line");
    assert_eq!(line.len(), 19, "{v}");
    assert_eq!(line[0]["value"], "win in 10");
    assert!(line[0]["text"].is_string() && line[0]["uci"].is_string() && line[0]["end"].is_null(), "{v}");
    assert_eq!(line[18]["end"], "checkmate");
    // --max-plies counts plies, and says so.
    let o = fairylab(&["egt", "line", f, "--fen", fen, "--json", "--max-plies", "3"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["line"].as_array().unwrap().len(), 3);
    let help = stdout(&fairylab(&["egt", "line", "--help"]));
    assert!(help.contains("stop after this many plies"), "{help}");
}

/// Positions chess does not allow are refused, as `perft` refuses them; moves leaving the king in
/// check are not answered; castling rights and en-passant squares are refused.
#[test]
fn probe_answers_legal_chess_only() {
    let kqk = temp_path("egt", "kqk-legal.egt");
    let kqkr = temp_path("egt", "kqkr-legal.egt");
    let (f, g) = (kqk.to_str().unwrap(), kqkr.to_str().unwrap());
    assert_ok(&fairylab(&["egt", "KQ.K", "--out", f, "--quiet"]));
    let o = fairylab(&["egt", "KQ.KR", "--out", g, "--quiet"]);
    assert_ok(&o);
    // The report's examples are legal; a class with only illegal positions says so.
    let report = stdout(&o);
    assert!(report.contains("  white to move: 31 moves, e.g. 8/8/2k5/r7/8/8/8/K2Q4 w - - 0 1"), "{report}");
    let report = stdout(&fairylab(&["egt", "KQ.K", "--quiet"]));
    assert!(report.contains("black wins, black to move: 0 moves, only in positions illegal in play"), "{report}");
    assert!(!report.contains("8/8/8/8/8/8/k7/KQ6 b"), "{report}");
    for action in ["probe", "line"] {
        assert_bad_input(
            &["egt", action, f, "--fen", "8/8/8/8/8/8/1Q6/Kk6 w"],
            "illegal position \"8/8/8/8/8/8/1Q6/Kk6 w\": the side not to move (Black) is in check",
        );
        assert_bad_input(&["egt", action, f, "--fen", "8/8/8/5k2/8/8/1Q6/K7 w KQkq - 0 1"], "castling field \"KQkq\"");
        assert_bad_input(&["egt", action, f, "--fen", "8/8/8/5k2/8/8/1Q6/K7 w - e3 0 1"], "en-passant field \"e3\"");
    }
    // The README's example: White in check from the rook has three legal moves.
    let o = fairylab(&["egt", "probe", g, "--fen", "8/8/2k5/r7/8/8/8/K2Q4 w"]);
    assert_ok(&o);
    let text = stdout(&o);
    assert_eq!(
        text,
        "8/8/2k5/r7/8/8/8/K2Q4 w - - 0 1 (KQ.KR DTC): White to move, win in 31\n  Ka1-b1     win in 31\n  \
         Ka1-b2     win in 31\n  Qd1-a4     loss in 1\n"
    );
    let o = fairylab(&["egt", "probe", g, "--fen", "8/8/2k5/r7/8/8/8/K2Q4 w - - 0 1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 3, "{v}");
}

/// The audit's `-b` commands: a capture that bares Black ends the line, marked; a win in 3 is a
/// line of three White moves; the finished position (White's king attacked, Black's bare) is
/// answered as the game's end with no move, with either side to move; a position no capture can
/// have left is still refused.
#[test]
fn a_bare_king_ends_lines_and_probes() {
    let krkn = temp_path("egt", "krkn_b.egt");
    let krkq = temp_path("egt", "krkq_b.egt");
    let (f, g) = (krkn.to_str().unwrap(), krkq.to_str().unwrap());
    assert_ok(&fairylab(&["egt", "KR.KN", "-b", "--quiet", "--out", f]));
    assert_ok(&fairylab(&["egt", "KR.KQ", "-b", "--quiet", "--out", g]));
    let o = fairylab(&["egt", "line", f, "--fen", "8/8/8/8/8/2k5/1n6/K6R w"]);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "8/8/8/8/8/2k5/1n6/K6R w - - 0 1 (KR.KN DTC): White to move, win in 1\n  \
         1. White Ka1xb2     win in 1     8/8/8/8/8/2k5/1K6/7R b - - 0 1  (conversion to KR.K, bare king)\n"
    );
    let o = fairylab(&["egt", "line", f, "--fen", "8/8/8/8/8/2k5/1n6/K6R w", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let line = v["line"].as_array().unwrap();
    assert_eq!(line.len(), 1, "{v}");
    assert_eq!((&line[0]["end"], &line[0]["conversion"]), (&"bare king".into(), &"KR.K".into()));

    let o = fairylab(&["egt", "line", g, "--fen", "8/8/8/6q1/7k/8/8/KR6 w", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["value"], "win in 3");
    let line = v["line"].as_array().unwrap();
    assert_eq!(line.len(), 5, "{v}");
    assert_eq!(line[4]["end"], "bare king");

    let o = fairylab(&["egt", "probe", g, "--fen", "8/8/8/6R1/8/8/8/K3k3 w"]);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "8/8/8/6R1/8/8/8/K3k3 w - - 0 1 (KR.K DTC): White to move, win in 0: the game is over (bare king)\n"
    );
    let o = fairylab(&["egt", "probe", f, "--fen", "8/8/8/8/8/2k5/1K6/7R b", "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((&v["value"], &v["end"]), (&"loss in 0".into(), &"bare king".into()));
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);
    assert_bad_input(
        &["egt", "probe", f, "--fen", "8/8/8/8/8/8/1k6/K6R b"],
        "the side not to move (White) is in check",
    );
}

/// A one-sided table does not know Black's wins: what it stores as a draw is printed as "not won
/// for White" (text and JSON), never "draw".
#[test]
fn one_sided_tables_say_not_won_for_white() {
    let file = temp_path("egt", "kqkr_1s.egt");
    let f = file.to_str().unwrap();
    let o = fairylab(&["egt", "KQ.KR", "--one-sided", "-m", "--quiet", "--out", f]);
    assert_ok(&o);
    assert!(!stdout(&o).contains("draw"), "{}", stdout(&o));
    let fen = "8/8/8/8/8/8/6r1/k1K5 w";
    for action in ["probe", "line"] {
        let text = stdout(&fairylab(&["egt", action, f, "--fen", fen]));
        assert!(text.contains("White to move, not won for White (one-sided table)"), "{action}: {text}");
        assert!(!text.contains("draw"), "{action}: {text}");
        let v: serde_json::Value =
            serde_json::from_str(&stdout(&fairylab(&["egt", action, f, "--fen", fen, "--json"])))
                .expect("one JSON document");
        assert_eq!(v["value"], "not won for White", "{action}");
    }
    // Its report gives Black's win fractions and longest wins as unknown, not as none.
    let report: serde_json::Value =
        serde_json::from_str(&stdout(&fairylab(&["egt", "KR.K", "--one-sided", "--quiet", "--json", "-"])))
            .expect("the report as JSON");
    assert_eq!(report["two_sided"], false);
    for (group, field) in [("all_placements", "lost_wtm"), ("legal", "won_btm")] {
        assert_eq!(report[group][field], serde_json::Value::Null, "{group}.{field}");
    }
    assert_eq!(report["longest_black_win_wtm"], serde_json::Value::Null);
    assert_eq!(report["all_placements"]["won_wtm"], 1.0);
}

/// Format 2 covers the header by a checksum: an edited metric is refused with a clear error
/// instead of answering under the wrong metric.
#[test]
fn an_edited_header_is_refused() {
    let file = temp_path("egt", "krk-header.egt");
    let f = file.to_str().unwrap();
    assert_ok(&fairylab(&["egt", "KR.K", "--out", f, "--quiet"]));
    let bytes = std::fs::read(&file).unwrap();
    let at = bytes.windows(5).position(|w| w == b"\"dtc\"").expect("the metric");
    let mut edited = bytes.clone();
    edited[at + 3] = b'm';
    let path = temp_path("egt", "krk-dtm-edited.egt");
    std::fs::write(&path, edited).unwrap();
    assert_bad_input(
        &["egt", "probe", path.to_str().unwrap(), "--fen", "8/8/8/8/8/2k5/8/K6R w"],
        "header checksum mismatch",
    );
    assert_bad_input(&["egt", "check", path.to_str().unwrap()], "header checksum mismatch");
}

/// The audit's minor points: `check --samples 0` checks nothing and says so; a board number too
/// large is out of range; `-` is standard output for `--json`, `--report` and `--out`; a probe
/// names checkmate and stalemate; a DTC line marks its conversions.
#[test]
fn minor_output_points() {
    let file = temp_path("egt", "kqk-minor.egt");
    let f = file.to_str().unwrap();
    assert_ok(&fairylab(&["egt", "KQ.K", "--out", f, "--quiet"]));
    assert_bad_input(&["egt", "check", f, "--samples", "0"], "nothing would be checked");
    assert_bad_input(&["egt", "KR.K", "--board", "65536x5"], "the number of files, 65536, is out of range");
    assert_bad_input(&["egt", "KR.K", "--board", "5x300"], "5 to 8");
    assert_bad_input(&["egt", "KR.K", "--board", "ax5"], "not a number");

    // `-` writes to standard output, no file named "-".
    let dir = temp_path("egt", "stdout-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_fairylab")).args(args).current_dir(&dir).output().unwrap()
    };
    let o = run(&["egt", "KR.K", "--quiet", "--json", "-"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("stdout is the JSON report");
    assert_eq!(v["material"], "KR.K");
    let o = run(&["egt", "KR.K", "--quiet", "--report", "-"]);
    assert!(stdout(&o).starts_with("KR.K on 8x8"), "{}", stdout(&o));
    let o = run(&["egt", "KR.K", "--quiet", "--out", "-"]);
    assert_ok(&o);
    assert!(o.stdout.starts_with(b"FAIRYLAB-EGT 2\n"));
    std::fs::write(dir.join("krk.egt"), &o.stdout).unwrap();
    assert_ok(&run(&["egt", "probe", "krk.egt", "--fen", "8/8/8/8/8/2k5/8/K6R w"]));
    assert!(!dir.join("-").exists(), "no file named -");
    assert_bad_input(&["egt", "KR.K", "--quiet", "--json", "-", "--out", "-"], "--out and --json both name -");

    let text = stdout(&fairylab(&["egt", "probe", f, "--fen", "k7/1Q6/1K6/8/8/8/8/8 b"]));
    assert_eq!(
        text,
        "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1 (KQ.K DTC): Black to move, loss in 0: the game is over (checkmate)\n"
    );
    let o = fairylab(&["egt", "probe", f, "--fen", "k7/2Q5/1K6/8/8/8/8/8 b", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((&v["value"], &v["end"]), (&"draw".into(), &"stalemate".into()));

    let file = temp_path("egt", "kqkr-minor.egt");
    let g = file.to_str().unwrap();
    assert_ok(&fairylab(&["egt", "KQ.KR", "--out", g, "--quiet"]));
    let text = stdout(&fairylab(&["egt", "line", g, "--fen", "8/8/2k5/r7/8/8/8/K2Q4 w"]));
    // The queen takes the rook on c8, mating at once: White's 31st move, as the value says.
    let capture = text.lines().find(|l| l.contains("Qd8xc8")).unwrap_or_else(|| panic!("{text}"));
    assert!(capture.starts_with(" 31. White") && capture.ends_with("(conversion to KQ.K, checkmate)"), "{text}");
    assert_eq!(text.matches("conversion").count(), 1, "{text}");
    let o = fairylab(&["egt", "line", g, "--fen", "8/8/2k5/r7/8/8/8/K2Q4 w", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let line = v["line"].as_array().unwrap();
    assert!(line.iter().any(|m| m["conversion"] == "KQ.K"), "{v}");
    assert!(line.iter().filter(|m| !m["text"].as_str().unwrap().contains('x')).all(|m| m["conversion"].is_null()));
}
