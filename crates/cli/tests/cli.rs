//! End-to-end tests of the `fairylab` binary: output of perft, moves, batch mode and variants,
//! and bad input giving one `error:` line on stderr with exit status 2, never a panic.

mod common;

use common::{assert_bad_input, assert_ok, fairylab, fairylab_stdin, stderr, stdout};
use std::path::PathBuf;
use std::process::Output;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn data(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(rel).display().to_string()
}

fn temp_file(name: &str, text: &str) -> String {
    let path = common::temp_path("cli-test", name);
    std::fs::write(&path, text).expect("write temp file");
    path.display().to_string()
}

#[test]
fn perft_prints_the_node_count_and_speed() {
    let o = fairylab(&["perft", "--variant", "chess", "--depth", "3"]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "8902\n");
    assert!(stderr(&o).contains("nodes/s"), "{}", stderr(&o));

    let o = fairylab(&["perft", "--variant", "chess", "--fen", KIWIPETE, "--depth", "2"]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "2039\n");

    let o = fairylab(&["perft", "--variant", "gardner", "--depth", "4"]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "4775\n");
}

#[test]
fn perft_divide_lists_moves_sorted() {
    let o = fairylab(&["perft", "--fen", START, "--depth", "2", "--divide"]);
    assert_ok(&o);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 22, "{out}");
    assert_eq!(lines[0], "a2a3: 20");
    assert_eq!(lines[19], "h2h4: 20");
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "400");
    let moves: Vec<&str> = lines[..20].iter().map(|l| l.split(':').next().unwrap_or_default()).collect();
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
}

#[test]
fn perft_with_a_variant_file() {
    let file = data("variants/losalamos.toml");
    let o = fairylab(&["perft", "--variant-file", &file, "--depth", "3"]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "1212\n");
    let o = fairylab(&["perft", "--variant", "losalamos", "--variant-file", &file, "--depth", "1"]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "10\n");
}

#[test]
fn moves_lists_san_and_uci() {
    let o = fairylab(&["moves", "--variant", "gardner", "--fen", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "a3 a2a3\nNa3 b1a3\nNc3 b1c3\nb3 b2b3\nc3 c2c3\nd3 d2d3\ne3 e2e3\n");

    let o = fairylab(&["moves", "--variant", "crazyhouse", "--fen", "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1"]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.lines().any(|l| l == "Q@e7+ Q@e7"), "{out}");
    assert_eq!(out.lines().count(), 5 + 62, "{out}");
}

#[test]
fn moves_json() {
    let o = fairylab(&["moves", "--fen", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "--json"]);
    assert_ok(&o);
    assert_eq!(
        stdout(&o),
        "{\"fen\":\"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\",\"moves\":[],\"outcome\":\"1/2-1/2 (draw by stalemate)\"}\n"
    );
    // Text: no move lines, and the reason on stderr.
    let o = fairylab(&["moves", "--variant", "baby", "--fen", "k4/1Q3/1K3/5/5 b - - 0 1"]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("1-0 (white wins by checkmate)"), "{}", stderr(&o));
    let o = fairylab(&["moves", "--fen", "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "--json"]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("{\"uci\":\"f1f8\",\"san\":\"Qf8#\"}"), "{out}");
}

/// Predictor chess orders at once: `moves` lists each side's primaries (the king capture of an
/// attacked king included, en passant and check marks not); perft, which counts turns, refuses.
#[test]
fn predictor_moves_list_both_sides_primaries() {
    let fen = "4k3/p7/8/8/4R3/8/5PPP/r5K1 w - - 0 1";
    let o = fairylab(&["moves", "--variant", "predictor", "--fen", fen]);
    assert_ok(&o);
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(
        lines,
        [
            "white Re1 e4e1",
            "white Rxe8 e4e8",
            "black Rxg1 a1g1",
            "black Kd7 e8d7",
            "black Kd8 e8d8",
            "black Kf7 e8f7",
            "black Kf8 e8f8"
        ]
    );
    let o = fairylab(&["moves", "--variant", "predictor", "--fen", fen, "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["primaries"]["white"][1], serde_json::json!({ "uci": "e4e8", "san": "Rxe8" }));
    assert_bad_input(&["perft", "--variant", "predictor", "--depth", "2"], "simultaneous plies");
}

#[test]
fn moves_batch_prints_one_line_per_fen() {
    let input = "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1\nk4/5/5/5/R3K b - - 0 1\nk4/1Q3/2K2/5/5 b - - 0 1\n";
    let file = temp_file("batch.txt", input);
    let o = fairylab(&["moves", "--variant", "gardner", "--batch", &file]);
    assert_ok(&o);
    assert_eq!(stdout(&o), "a2a3 b1a3 b1c3 b2b3 c2c3 d2d3 e2e3\na5b4 a5b5\n\n");

    let o = fairylab_stdin(&["moves", "--variant", "gardner", "--batch", "-"], input);
    assert_ok(&o);
    assert_eq!(stdout(&o).lines().count(), 3);
}

#[test]
fn moves_batch_names_the_bad_line() {
    let file = temp_file("batch-bad.txt", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1\nrnbqk/ppppp/5/PPPPP w - - 0 1\n");
    assert_bad_input(&["moves", "--variant", "gardner", "--batch", &file], "line 2");
}

#[test]
fn variants_lists_every_builtin_with_its_summary() {
    let o = fairylab(&["variants"]);
    assert_ok(&o);
    let out = stdout(&o);
    for name in ["chess", "crazyhouse", "gardner"] {
        let line = out.lines().find(|l| l.split_whitespace().next() == Some(name));
        assert!(line.is_some_and(|l| l.len() > name.len() + 10), "{name} missing or without summary in {out}");
    }
}

#[test]
fn bad_input_is_one_error_line_with_status_2() {
    assert_bad_input(&["moves", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1"], "FEN");
    assert_bad_input(&["perft", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1", "--depth", "1"], "king");
    assert_bad_input(&["moves", "--fen", "rnbqkbnr/pppppppp/99999999999/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"], "FEN");
    assert_bad_input(&["perft", "--variant", "nosuchchess", "--depth", "1"], "nosuchchess");
    assert_bad_input(&["perft", "--depth", "x"], "--depth");
    assert_bad_input(&["perft", "--depth", "-1"], "-1");
    assert_bad_input(&["perft", "--depth", "31"], "--depth");
    assert_bad_input(&["perft"], "--depth");
    // Without --fen, the variant's start (as perft and analyse).
    assert_eq!(stdout(&fairylab(&["moves", "--variant", "gardner"])).lines().count(), 7);
    assert_bad_input(&["perft", "--depth", "1", "--bogus"], "--bogus");
    assert_bad_input(&["frobnicate"], "frobnicate");
    assert_bad_input(&[], "perft");
    assert_bad_input(&["perft", "--variant-file", "/nonexistent/x.toml", "--depth", "1"], "/nonexistent/x.toml");
    assert_bad_input(&["moves", "--variant", "gardner", "--batch", "/nonexistent/fens.txt"], "/nonexistent/fens.txt");
}

#[test]
fn bad_variant_files_are_one_error_line() {
    let syntax = temp_file("syntax.toml", "name = \"x\"\nparent = = \"chess\"\n");
    assert_bad_input(&["perft", "--variant-file", &syntax, "--depth", "1"], "line 2");
    let unknown = temp_file("unknown.toml", "name = \"x\"\nparent = \"chess\"\nfiels = 6\n");
    assert_bad_input(&["perft", "--variant-file", &unknown, "--depth", "1"], "fiels");
    let value = temp_file("value.toml", "name = \"x\"\nparent = \"chess\"\nfiles = 12\n");
    assert_bad_input(&["perft", "--variant-file", &value, "--depth", "1"], "files");
    let betza =
        temp_file("betza.toml", "name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"a\"\nbetza = \"QX\"\n");
    assert_bad_input(&["moves", "--variant-file", &betza, "--fen", START], "piece 'a'");
    let start = temp_file("start.toml", "name = \"x\"\nparent = \"chess\"\nstart = \"8/8/8/8/8/8/8/8 w - - 0 1\"\n");
    assert_bad_input(&["perft", "--variant-file", &start, "--depth", "1"], "start");
    let file = data("variants/losalamos.toml");
    assert_bad_input(&["perft", "--variant", "chess", "--variant-file", &file, "--depth", "1"], "losalamos");
}

#[test]
fn bench_prints_a_deterministic_node_count() {
    let o = fairylab(&["bench", "--perft", "--quick"]);
    assert_ok(&o);
    let out = stdout(&o);
    // chess start 5 + kiwipete 4 + crazyhouse start 5 + gardner start 7.
    let total: u64 = 4_865_609 + 4_085_603 + 4_888_832 + 6_947_252;
    let last = out.lines().last().expect("a total line");
    assert!(last.starts_with("total") && last.contains(&total.to_string()), "{out}");
}

fn signature(o: &Output) -> String {
    stdout(o).lines().find_map(|l| l.strip_prefix("bench signature: ").map(str::to_string)).expect("a signature line")
}

#[test]
fn search_bench_signature_is_deterministic() {
    let a = fairylab(&["bench", "--shallower", "5"]);
    assert_ok(&a);
    let b = fairylab(&["bench", "--shallower", "5"]);
    assert_eq!(signature(&a), signature(&b));
    assert!(stdout(&a).contains("chess nodes/s:"));
}

#[test]
fn bench_reports_the_ratio_to_a_reference_engine() {
    // A stand-in for `stockfish bench`: it prints the line Stockfish prints.
    let o = fairylab(&["bench", "--shallower", "8", "--reference", "sh -c 'echo \"Nodes/second    : 1000\" >&2'"]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("reference nodes/s: 1000 "), "{out}");
    let number = |prefix: &str| -> f64 {
        out.lines().find_map(|l| l.strip_prefix(prefix)?.parse().ok()).unwrap_or_else(|| panic!("{prefix}: {out}"))
    };
    let nps = number("chess nodes/s: ");
    let ratio = number("chess nodes/s / reference: ");
    assert!((ratio - nps / 1000.0).abs() < 0.01 * ratio, "{out}");
    assert_bad_input(&["bench", "--reference", "sh -c 'echo no figure here'"], "Nodes/second");
    assert_bad_input(&["bench", "--reference", "/nonexistent/engine"], "/nonexistent/engine");
    assert_bad_input(&["bench", "--reference", "'unclosed"], "unclosed");
}

#[test]
fn analyse_prints_lines_and_a_legal_best_move() {
    let o = fairylab(&["analyse", "--variant", "gardner", "--depth", "6"]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("depth  6"), "{out}");
    assert!(out.lines().last().is_some_and(|l| l.starts_with("bestmove ")), "{out}");
    // A mate in one is found and reported as a mate.
    let o = fairylab(&["analyse", "--fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "--depth", "4"]);
    assert!(stdout(&o).contains("bestmove a1a8 (Ra8#) score mate 1"), "{}", stdout(&o));
    // Moves given in SAN are played first.
    let o = fairylab(&["analyse", "--variant", "crazyhouse", "--moves", "e4 e5 Nf3", "--depth", "3"]);
    assert_ok(&o);
}

#[test]
fn analyse_with_threads_finds_the_mate() {
    let o = fairylab(&["analyse", "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--depth", "6", "--threads", "2"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("bestmove a1a8 (Ra8#) score mate 1"), "{}", stdout(&o));
    assert_bad_input(&["analyse", "--threads", "0"], "threads");
}

#[test]
fn analyse_multipv_prints_the_best_lines_of_each_depth() {
    // With Ra8# out of reach of the second line, line 2 is another move and scores less.
    let o = fairylab(&["analyse", "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--depth", "4", "--multipv", "2"]);
    assert_ok(&o);
    let out = stdout(&o);
    let last: Vec<&str> = out.lines().filter(|l| l.starts_with("depth  4")).collect();
    assert_eq!(last.len(), 2, "{out}");
    assert!(last[0].contains("score mate 1") && last[0].ends_with("1. Ra8#"), "{out}");
    assert!(last[1].contains(" line 2 score cp "), "{out}");
    assert!(out.contains("bestmove a1a8 (Ra8#) score mate 1"), "{out}");
    assert_bad_input(&["analyse", "--multipv", "0"], "multipv");
    // Only the moves given are searched: without Ra8 the king steps aside.
    let o = fairylab(&[
        "analyse",
        "--fen",
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        "--depth",
        "4",
        "--searchmoves",
        "Kf1 h3",
    ]);
    assert_ok(&o);
    let best = stdout(&o).lines().last().unwrap_or_default().to_string();
    assert!(best.starts_with("bestmove g1f1") || best.starts_with("bestmove h2h3"), "{}", stdout(&o));
    assert_bad_input(
        &["analyse", "--fen", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "--searchmoves", "Ke2"],
        "'Ke2' is not a legal move",
    );
}

#[test]
fn solve_counts_epd_positions() {
    let o = fairylab(&["solve", "--epd", &data("wac.epd"), "--movetime", "300", "--limit", "3"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("at 300 ms per position"), "{}", stdout(&o));
    // Lines with the FEN's move counters before the opcodes, as some tools write them.
    let counted = temp_file("counters.epd", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1 bm Ra8#; id \"back rank\";\n");
    let o = fairylab(&["solve", "--epd", &counted, "--movetime", "200"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("solved 1/1"), "{}", stdout(&o));
    // A best move written in coordinates is read as the legal move it names.
    let uci = temp_file("uci-bm.epd", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - bm a1a8; id \"uci bm\";\n");
    let o = fairylab(&["solve", "--epd", &uci, "--movetime", "200"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("solved 1/1"), "{}", stdout(&o));
}

#[test]
fn engine_commands_reject_bad_input() {
    assert_bad_input(&["analyse", "--fen", "not a fen", "--depth", "2"], "FEN");
    assert_bad_input(&["analyse", "--moves", "e2e5", "--depth", "2"], "e2e5");
    // The reason comes with the refusal: an ambiguous SAN names the moves it could mean.
    let two_knights = ["analyse", "--fen", "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "--depth", "2"];
    assert_bad_input(&[&two_knights[..], &["--moves", "Nd2"]].concat(), "ambiguous: Nbd2 or Nfd2");
    assert_bad_input(&[&two_knights[..], &["--searchmoves", "Nd2"]].concat(), "ambiguous: Nbd2 or Nfd2");
    assert_bad_input(&[&two_knights[..], &["--moves", "Nc4"]].concat(), "no white knight can move to c4");
    assert_bad_input(&["analyse", "--variant", "nosuch", "--depth", "2"], "nosuch");
    let bad = temp_file("bad.epd", "8/8/8/8/8/8/8/8 w - - bm Qg6;\n");
    assert_bad_input(&["solve", "--epd", &bad], "line 1");
    let no_op = temp_file("noop.epd", "6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"x\";\n");
    assert_bad_input(&["solve", "--epd", &no_op], "no bm or am");
    let empty = temp_file("empty.epd", "# nothing\n\n");
    assert_bad_input(&["solve", "--epd", &empty], "holds no EPD position");
}

#[test]
fn baby_perft_with_setup_and_double_step_flags() {
    for (args, nodes) in [
        (&["--variant", "baby"][..], "45324"),
        (&["--variant", "baby", "--setup", "gardner"][..], "46924"),
        (&["--variant", "baby", "--white-double-step"][..], "47225"),
        (&["--variant", "baby", "--setup", "gardner", "--white-double-step"][..], "48846"),
        (&["--variant", "baby-gardner-double"][..], "48846"),
    ] {
        let mut all = vec!["perft"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--depth", "5"]);
        let o = fairylab(&all);
        assert_ok(&o);
        assert_eq!(stdout(&o).trim(), nodes, "{all:?}");
    }
}

#[test]
fn baby_moves_show_switch_counts() {
    let fen = "kq3/ppp2/2R{5}2/3Q{4}P/4K w - - 0 1";
    let o = fairylab(&["moves", "--variant", "baby", "--setup", "baby", "--fen", fen]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.lines().any(|l| l == "Qc2 d2c2 5 kq3/ppp2/2R{5}2/2Q{5}1P/4K b - - 1 1"), "{out}");
    assert!(
        out.lines().any(|l| l == "Rc4 c3c4 5 kq3/ppR{5}2/5/3Q{4}P/4K b - - 0 1" || l.starts_with("Rxc4 c3c4 5 ")),
        "{out}"
    );
    let o = fairylab(&["moves", "--variant", "baby", "--fen", fen, "--json"]);
    assert_ok(&o);
    let json = stdout(&o);
    assert!(json.contains(r#""fen":"kq3/ppp2/2R{5}2/3Q{4}P/4K w - - 0 1""#), "{json}");
    assert!(
        json.contains(r#""uci":"d2c2","san":"Qc2","switches":5,"fen_after":"kq3/ppp2/2R{5}2/2Q{5}1P/4K b - - 1 1""#),
        "{json}"
    );
    // Other variants keep the plain listing.
    let o = fairylab(&["moves", "--variant", "chess", "--fen", START, "--json"]);
    assert!(!stdout(&o).contains("switches"));
}

#[test]
fn baby_flags_on_other_variants_are_one_error_line() {
    assert_bad_input(
        &["perft", "--variant", "chess", "--setup", "gardner", "--depth", "1"],
        "--setup applies only to --variant baby",
    );
    assert_bad_input(&["perft", "--setup", "baby", "--depth", "1"], "--setup applies only to --variant baby");
    assert_bad_input(
        &["moves", "--variant", "gardner", "--white-double-step", "--fen", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"],
        "--white-double-step applies only to --variant baby",
    );
    assert_bad_input(&["perft", "--variant", "baby", "--setup", "crazy", "--depth", "1"], "crazy");
    assert_bad_input(
        &["perft", "--variant", "baby", "--fen", "k4/5/5/2R{6}2/4K w - - 0 1", "--depth", "1"],
        "more than the limit 5",
    );
}

#[test]
fn play_at_a_weaker_level() {
    let o = fairylab_stdin(&["play", "--level", "1", "--movetime", "2000", "--seed", "5"], "e4\nd4\nquit\n");
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("against the engine at level 1 of 8"), "{out}");
    // Level 1 searches two plies and answers at once, whatever its time.
    let depths: Vec<&str> = out.lines().filter_map(|l| l.split("depth ").nth(1)).collect();
    assert_eq!(depths.len(), 2, "{out}");
    assert!(depths.iter().all(|d| *d == "2)"), "{depths:?}");
    assert_bad_input(&["play", "--level", "9"], "--level");
    assert_bad_input(&["play", "--level", "0"], "--level");
}

#[test]
fn play_takes_back_and_prints_the_record() {
    let o = fairylab_stdin(&["play", "--level", "1", "--seed", "5"], "undo\n\nhelp\ne4\nundo\nd4\npgn\nquit\n");
    assert_ok(&o);
    let out = stdout(&o);
    // An empty line asks again; `help` says the commands again.
    assert!(!out.contains("'' is not a legal move"), "{out}");
    assert_eq!(out.matches("'help' says this again").count(), 2, "{out}");
    assert!(out.contains("you have no move to take back"), "{out}");
    assert!(out.contains("took back 2 plies"), "{out}");
    // The record holds the game as played after the takeback.
    let record = out.split("[Event \"fairylab play\"]").nth(1).expect("a record");
    assert!(record.contains("[White \"you\"]") && record.contains("\n1. d4 "), "{record}");
    assert!(!record.contains("e4"), "{record}");
    // As Black: the engine's first move is never taken back alone (a6 is legal after any first move).
    let o = fairylab_stdin(&["play", "--level", "1", "--color", "black", "--seed", "5"], "undo\na6\nundo\nquit\n");
    let out = stdout(&o);
    assert!(out.contains("you have no move to take back") && out.contains("took back 2 plies"), "{out}");
    // Chance has spoken in SnowFall: no takebacks.
    let o = fairylab_stdin(&["play", "--variant", "snowfall", "--level", "1", "--seed", "5"], "e4\nundo\nquit\n");
    assert!(stdout(&o).contains("snowfall has no takebacks"), "{}", stdout(&o));
}

/// Baby Chess in the terminal: beside the board, each piece's column switches left, which the
/// board alone does not show (the knight that moved b1-c3 has 4 of 5 left; an empty square '.').
#[test]
fn play_shows_baby_chess_switches_left() {
    let o = fairylab_stdin(
        &["play", "--variant", "baby", "--level", "1", "--seed", "3", "--movetime", "50"],
        "Nc3\nquit\n",
    );
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("5 k q b n r    5 5 5 5 5\n"), "{out}");
    assert!(out.contains("3 . . N . .    . . 4 . .\n2 P P P P P    5 5 5 5 5\n1 R . B Q K    5 . 5 5 5\n"), "{out}");
    assert!(out.contains("column switches left of 5"), "{out}");
    // Without a limit the board stands alone.
    let o = fairylab_stdin(&["play", "--level", "1", "--seed", "5"], "quit\n");
    assert!(stdout(&o).contains("1 R N B Q K B N R \n"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("switches left"), "{}", stdout(&o));
}

/// In SnowFall, `odds` gives the next gift event's odds as the explainer computes them: at the
/// start, the event after White's first move gives White, its mover, a queen with 7 % and a
/// rook with 10.5 % (the seed's figures).
#[test]
fn play_gives_the_snowfall_odds() {
    let o = fairylab_stdin(&["play", "--variant", "snowfall", "--level", "1", "--seed", "5"], "odds\nquit\n");
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("'odds' gives the next gift's odds"), "{out}");
    // No takebacks where chance has spoken: 'undo' is not offered.
    assert!(!out.contains("'undo'"), "{out}");
    assert!(out.contains("  you receive: Q 7.00 %, R 10.50 %"), "{out}");
    assert!(out.contains("No move of yours lets the opponent mate next move, gift or not."), "{out}");
    // Outside SnowFall, `odds` is not a command (nor a move).
    let o = fairylab_stdin(&["play", "--level", "1", "--seed", "5"], "odds\nquit\n");
    assert!(!stdout(&o).contains("you receive"), "{}", stdout(&o));
}

/// `fairylab openings`: a collection's moves from the start and after 1. e4, each with its
/// games, results and score for the side that played it with a Wilson interval; games without
/// a result or of another variant skipped; SnowFall positions keyed with their hands; bad
/// positions and files refused with the reason.
#[test]
fn openings_tree_of_a_collection() {
    let pgn = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result \"0-1\"]\n\n1. e4 c5 0-1\n\n\
               1. d4 d5 1/2-1/2\n\n1. e4 e5 *\n\n[Variant \"crazyhouse\"]\n\n1. e4 1-0\n";
    let file = temp_file("openings.pgn", pgn);
    let o = fairylab(&["openings", &file]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(
        out.starts_with("openings: 3 games of chess (1 without a result and 1 of another variant skipped)"),
        "{out}"
    );
    assert!(out.contains("\ne4            2      1      0      1  50.0 % [9.5, 90.5]\n"), "{out}");
    assert!(out.contains("\nd4            1      0      1      0  50.0 % [5.5, 94.5]\n"), "{out}");
    let o = fairylab(&["openings", &file, "--play", "e2e4", "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let moves: Vec<(&str, f64)> = v["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| (m["san"].as_str().expect("san"), m["score"].as_f64().expect("score")))
        .collect();
    assert_eq!(moves, [("c5", 1.0), ("e5", 0.0)], "scored for Black, who plays them");
    // Counted plies: with one, nothing after the first move.
    let o = fairylab(&["openings", &file, "--play", "e2e4", "--plies", "1"]);
    assert!(stdout(&o).contains("no counted game played on from this position"), "{}", stdout(&o));
    // The crazyhouse game alone.
    let o = fairylab(&["openings", &file, "--variant", "crazyhouse", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(
        (v["games"].as_u64(), v["other_variant"].as_u64(), v["moves"][0]["uci"].as_str()),
        (Some(1), Some(4), Some("e2e4"))
    );
    // SnowFall: the position after a gift, named by its FEN with the hands.
    let sf = "[Variant \"SnowFall\"]\n[SnowFall \"20\"]\n\n1. e4 {H:Qq gift W:Q B:Q} e5 {H:Qq} 0-1\n";
    let sf_file = temp_file("openings-sf.pgn", sf);
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[Qq] b KQkq - 0 1";
    let o = fairylab(&["openings", &sf_file, "--fen", fen, "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!((v["moves"][0]["san"].as_str(), v["moves"][0]["score"].as_f64()), (Some("e5"), Some(1.0)));
    // Chess960: each game draws its start, so by default the tree starts where most games
    // began (here two of three), not at the variant's standard array.
    let c960 =
        |fen: &str, moves: &str| format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{moves}\n\n");
    let bn = "bnrqkrnb/pppppppp/8/8/8/8/PPPPPPPP/BNRQKRNB w KQkq - 0 1";
    let text = c960(bn, "1. g3 1-0")
        + &c960(bn, "1. b3 0-1")
        + &c960("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1", "1. e4 1-0");
    let file960 = temp_file("openings-960.pgn", &text);
    let o = fairylab(&["openings", &file960, "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!((v["fen"].as_str(), v["moves"].as_array().map(Vec::len)), (Some(bn), Some(2)), "{v}");
    // A custom variant's games, with its file.
    let la = temp_file(
        "openings-la.pgn",
        "[Variant \"losalamos\"]\n\n1. c3 c4 1-0\n\n[Variant \"losalamos\"]\n\n1. c3 d4 0-1\n",
    );
    let toml = format!("{}/../../tests/data/variants/losalamos.toml", env!("CARGO_MANIFEST_DIR"));
    let o = fairylab(&["openings", &la, "--variant-file", &toml, "--play", "c2c3", "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(
        (v["variant"].as_str(), v["games"].as_u64(), v["moves"].as_array().map(Vec::len)),
        (Some("losalamos"), Some(2), Some(2))
    );
    // A database with a bad game: the others are counted, the bad one named and skipped.
    let mixed = temp_file("openings-mixed.pgn", "1. e4 e5 1-0\n\n1. e4 e9 0-1\n\n1. d4 d5 0-1\n");
    let o = fairylab(&["openings", &mixed]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(
        out.starts_with("openings: 2 games of chess") && out.contains("skipped 1 game that does not read: game 2: "),
        "{out}"
    );
    let o = fairylab(&["openings", &mixed, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["unreadable"].as_array().map(Vec::len), Some(1), "{v}");
    for (args, mention) in [
        (vec!["openings", &la], "losalamos"),
        (vec!["openings", &file, "--play", "e2e5"], "move 1 of play, 'e2e5'"),
        (vec!["openings", &file, "--fen", "8/8"], "invalid FEN"),
        (vec!["openings", &file, "--variant", "nosuch"], "no variant 'nosuch' (known: chess, "),
        (vec!["openings", "/nonexistent/games.pgn"], "reading /nonexistent/games.pgn"),
    ] {
        let o = fairylab(&args);
        assert!(!o.status.success() && common::stderr(&o).contains(mention), "{args:?}: {}", common::stderr(&o));
    }
}

/// `fairylab review`: the scholar's mate reviewed in text and JSON (the blunder into mate, the
/// sides' totals), from a file and from stdin; bad records refused with the reason.
#[test]
fn review_judges_a_game_as_lichess_does() {
    let pgn = "[Event \"scholar\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let file = temp_file("review.pgn", pgn);
    let o = fairylab(&["review", &file, "--nodes", "20000"]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(
        text.lines().any(|l| l.starts_with("3... Nf6??") && l.contains("blunder: Checkmate is now unavoidable")),
        "{text}"
    );
    assert!(text.contains("black: 0 inaccuracies, 0 mistakes, 1 blunder, average centipawn loss"), "{text}");
    let o = fairylab_stdin(&["review", "-", "--nodes", "20000", "--json"], pgn);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["moves"].as_array().map(Vec::len), Some(7));
    let nf6 = &v["moves"][5];
    assert_eq!(
        (nf6["san"].as_str(), nf6["fullmove"].as_u64(), nf6["side"].as_str()),
        (Some("Nf6"), Some(3), Some("black"))
    );
    assert_eq!((nf6["judgement"].as_str(), nf6["glyph"].as_str()), (Some("blunder"), Some("??")));
    assert_eq!(v["sides"]["black"]["blunders"], 1);
    assert_eq!(v["win_percent"].as_array().map(Vec::len), Some(8));
    assert_eq!(v["sides"]["white"]["luck"], serde_json::Value::Null, "no luck in chess");
    // The annotated record: lichess's NAG and words on the blunder, an evaluation on every
    // move, and it reads back (reviewed again, the same judgement).
    let o = fairylab(&["review", &file, "--nodes", "20000", "--pgn"]);
    assert_ok(&o);
    let annotated = stdout(&o);
    let flat = annotated.replace('\n', " ");
    assert!(flat.contains("3... Nf6 $4 {[%eval #1] ("), "{annotated}");
    assert!(annotated.contains(") Checkmate is now unavoidable. "), "{annotated}");
    assert_eq!(annotated.matches("[%eval").count(), 6, "none after the mate: {annotated}");
    assert!(flat.contains("4. Qxf7# 1-0"), "{annotated}");
    let again = temp_file("review-annotated.pgn", &annotated);
    let o = fairylab(&["review", &again, "--nodes", "20000", "--json"]);
    let w: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(w["moves"], v["moves"]);
    // The record's first comment and its variations stay in the reviewed record.
    let commented = temp_file(
        "review-variations.pgn",
        "{A miniature} 1. e4 e5 2. Qh5 Nc6 (2... g6 $1 {better}) 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    );
    let o = fairylab(&["review", &commented, "--nodes", "20000", "--pgn"]);
    assert_ok(&o);
    let flat = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("{A miniature} 1. e4") && flat.contains("(2... g6 $1 {better}) 3. Bc4"), "{flat}");
    // Every game of a file, one JSON line each with its number and tags; dice give luck.
    let o = fairylab(&["review", &data("records/probabilistic.pgn"), "--all", "--nodes", "5000", "--json"]);
    assert_ok(&o);
    let games: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(games.iter().map(|g| g["game"].as_u64()).collect::<Vec<_>>(), [Some(1), Some(2), Some(3)]);
    assert_eq!(games[0]["tags"]["Event"], "Failures, en passant, king capture");
    assert!(games.iter().all(|g| g["sides"]["white"]["luck"].is_number() && g["sides"]["black"]["luck"].is_number()));
    // In text, a summary after the games: the means, and how often the luckier side won.
    let o = fairylab(&["review", &data("records/probabilistic.pgn"), "--all", "--nodes", "5000"]);
    assert_ok(&o);
    let last = stdout(&o).lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with("3 games: accuracy White ") && last.contains(" of 2 decided games"), "{last}");
    // A game that does not read is skipped and said (on stderr, and as a JSON line with its
    // number); the others are reviewed, as a database tool reads past one bad game.
    let mixed = temp_file(
        "review-mixed.pgn",
        "[Event \"a\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n[Event \"b\"]\n\n1. e4 e5 2. Ke3 *\n\n\
         [Event \"c\"]\n\n1. d4 d5 2. c4 e6 *\n",
    );
    let o = fairylab(&["review", &mixed, "--all", "--nodes", "3000", "--json"]);
    assert_ok(&o);
    let lines: Vec<serde_json::Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let numbers: Vec<_> = lines.iter().map(|g| (g["game"].as_u64(), g["error"].is_string())).collect();
    assert_eq!(numbers, [(Some(2), true), (Some(1), false), (Some(3), false)], "{}", stdout(&o));
    assert!(lines[0]["error"].as_str().is_some_and(|e| e.contains("Ke3")), "{}", lines[0]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("game 2 skipped: ") && err.contains("1 skipped"), "{err}");
    let only_bad = temp_file("review-only-bad.pgn", "1. e4 e5 2. Ke3 *\n\n1. Nf3 Nf6 3. Kf7 *\n");
    assert_bad_input(&["review", &only_bad, "--all"], "no game of the file reads (game 1");
    // Bad input.
    let (missing, empty, bad) = (
        data("no-such-file.pgn"),
        temp_file("empty-review.pgn", "[Event \"x\"]\n\n*\n"),
        temp_file("bad-review.pgn", "1. e4 e5 2. Ke3 *\n"),
    );
    assert_bad_input(&["review", &missing], "reading");
    assert_bad_input(&["review", &empty], "no moves");
    assert_bad_input(&["review", &bad], "record");
    assert_bad_input(&["review", &file, "--nodes", "0"], "nodes");
}

/// Output paths and servers are checked before the work: `egt --out` into a missing directory
/// or onto a directory fails before any table is built (nothing printed); `loadtest` refuses a
/// URL that is not one, or a server that does not answer, at once; `serve` names a database
/// that does not open.
#[test]
fn output_paths_and_servers_are_checked_first() {
    let dir = std::env::temp_dir();
    let dir = dir.to_str().expect("utf-8");
    for (flag, path, says) in [
        ("--out", "/nonexistent-dir/x.egt", "there is no directory /nonexistent-dir"),
        ("--json", "/nonexistent-dir/x.json", "there is no directory /nonexistent-dir"),
        ("--report", dir, "it is a directory"),
    ] {
        assert_bad_input(&["egt", "KQ.K", "--board", "5x5", flag, path], says);
    }
    assert_bad_input(
        &["loadtest", "--url", "garbage", "--games", "1", "--seconds", "1"],
        "is not an http:// or https:// URL",
    );
    assert_bad_input(&["loadtest", "--url", "http://127.0.0.1:1", "--games", "1", "--seconds", "1"], "does not answer");
    assert_bad_input(
        &["serve", "--listen", "127.0.0.1:0", "--database-url", "sqlite:///nonexistent-dir/x.sqlite3"],
        "cannot open the database sqlite:///nonexistent-dir/x.sqlite3",
    );
    assert_bad_input(&["serve", "--listen", "127.0.0.1:0", "--database-url", "sqlite://"], "names no file");
    assert_bad_input(&["serve", "--listen", "nosuchhost.invalid:80"], "is not HOST:PORT");
    assert_bad_input(&["serve", "--advertise", "nope"], "is not an http:// or https:// URL");
    // A port in use is named.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = taken.local_addr().expect("address").to_string();
    let db = std::env::temp_dir().join(format!("fairylab-serve-port-{}.sqlite3", std::process::id()));
    let url = format!("sqlite://{}", db.display());
    assert_bad_input(&["serve", "--listen", &addr, "--database-url", &url], &format!("cannot listen on {addr}"));
}

/// A record file in Latin-1 (as ChessBase and SCID write them) is read, its names right, with a
/// note saying so; a UTF-8 file gets no note.
#[test]
fn a_latin1_record_file_is_read_with_a_note() {
    let path = common::temp_path("cli-test", "latin1.pgn");
    let mut bytes = b"[Event \"Club\"]\n[White \"M".to_vec();
    bytes.push(0xFC); // ü in Latin-1
    bytes.extend_from_slice(
        b"ller\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n",
    );
    std::fs::write(&path, &bytes).expect("write");
    let file = path.display().to_string();
    let o = fairylab(&["review", &file, "--all", "--nodes", "2000", "--json"]);
    assert_ok(&o);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["tags"]["White"], "M\u{fc}ller");
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not UTF-8 (line 2); read as Latin-1"), "{o:?}");
    let o = fairylab(&["openings", &file]);
    assert_ok(&o);
    assert!(stdout(&o).contains("e4"), "{}", stdout(&o));
    let utf8 = temp_file("utf8.pgn", "[White \"M\u{fc}ller\"]\n\n1. e4 e5 *\n");
    let o = fairylab(&["openings", &utf8]);
    assert_ok(&o);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("Latin-1"));
}

/// The names a `--help` lists: its subcommands (`  name  Summary` under `Commands:`) or its
/// long flags.
fn help_names(args: &[&str], flags: bool) -> Vec<String> {
    let o = fairylab(args);
    assert_ok(&o);
    let text = stdout(&o);
    if flags {
        // A flag's own line begins with it (`--listen <LISTEN>`, `-h, --help`).
        return text
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with('-'))
            .filter_map(|l| l.split([' ', ',']).find(|w| w.starts_with("--")))
            .filter(|w| *w != "--help" && *w != "--version")
            .map(str::to_string)
            .collect();
    }
    text.split("Commands:")
        .nth(1)
        .expect("a command list")
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

/// The README's command list names every subcommand, and the server's settings are documented
/// in both places that list them (docs/OPERATIONS.md's table, docs/API.md's first line): a
/// flag added to the program and not to the docs fails here.
#[test]
fn the_docs_name_every_command_and_server_setting() {
    let doc = |name: &str| {
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(name)).expect(name)
    };
    let readme = doc("README.md");
    for command in help_names(&["--help"], false) {
        assert!(readme.contains(&format!("fairylab {command} ")), "README.md does not show `fairylab {command}`");
    }
    for command in help_names(&["predictor", "--help"], false) {
        assert!(readme.contains(&format!("fairylab predictor {command} ")), "README.md: `predictor {command}`");
    }
    let (operations, api) = (doc("docs/OPERATIONS.md"), doc("docs/API.md"));
    let serve = help_names(&["serve", "--help"], true);
    assert!(serve.len() >= 15 && serve.contains(&"--base-path".to_string()), "{serve:?}");
    for flag in serve {
        assert!(operations.contains(&format!("| `{flag}` |")), "docs/OPERATIONS.md's table lacks {flag}");
        assert!(
            api.lines().nth(2).is_some_and(|l| l.contains(&format!("[{flag}"))),
            "docs/API.md's line 3 lacks {flag}"
        );
    }
}
