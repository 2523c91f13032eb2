//! `fairylab predictor` end to end: `resolve` in text and JSON (the documented keys), a ply played
//! by commit, reveal, verify and referee into a record file, and bad input as one `error:` line
//! with nothing of the record lost.

mod common;

use common::{assert_bad_input, assert_ok, fairylab, stderr, stdout, temp_path};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let o = fairylab(args);
    assert_ok(&o);
    serde_json::from_str(&stdout(&o)).expect("JSON")
}

#[test]
fn resolve_gives_the_board_and_the_report() {
    // The seed's elaboration: 0-0-0 against ...Rb8-b1.
    let v = json(&[
        "predictor",
        "resolve",
        "--fen",
        "1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
        "--white",
        "e1c1",
        "--black",
        "b8b1",
        "--json",
    ]);
    assert_eq!(v["valid"], true);
    assert_eq!(v["board_after"], "4k3/8/8/8/8/8/8/2K5");
    assert_eq!(v["annihilated"], serde_json::json!(["Ra1", "rb8"]));
    assert_eq!(v["captured"], serde_json::json!([]));
    assert_eq!(v["white"]["primary"], "e1c1");
    assert_eq!(v["outcome"]["result"], "1/2-1/2");
    let v = json(&["predictor", "resolve", "--white", "e2e4 if e7e5 then d2d3", "--black", "e7e5", "--json"]);
    assert_eq!(v["white"]["fired"], true);
    assert_eq!(v["white"]["prediction"], "e7e5");
    assert_eq!(v["black"]["fired"], false);
    assert_eq!(v["ply_line"], "1. e2e4 if e7e5 then d2d3 | e7e5 {fired: white}");
    let o = fairylab(&["predictor", "resolve", "--white", "e2e4", "--black", "d7d5"]);
    assert_ok(&o);
    assert!(stdout(&o).starts_with("1. e2e4 | d7d5\n"), "{}", stdout(&o));
    // docs/FORMATS.md's ply line is one the program writes for the position it names.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMATS.md")).expect("FORMATS");
    let fen = "1r2k3/8/8/8/8/8/7P/R3K3 w Q - 0 1";
    let o = fairylab(&["predictor", "resolve", "--fen", fen, "--white", "e1c1 if b8b1 then h2h3", "--black", "b8b1"]);
    assert_ok(&o);
    let line = stdout(&o).lines().next().unwrap_or_default().to_string();
    assert!(doc.contains(&format!("`{fen}`")) && doc.contains(&format!("\n{line}\n")), "FORMATS.md lacks {line}");
}

/// Refused orders in JSON: printed, with exit status 1 (a script must not take them as played).
fn refused(args: &[&str]) -> Value {
    let o = fairylab(args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("JSON")
}

#[test]
fn rejected_orders_are_invalid_with_a_reason() {
    let v = refused(&["predictor", "resolve", "--white", "e2e4", "--black", "e2e4", "--json"]);
    assert_eq!(v["valid"], false);
    assert_eq!(v["side"], "black");
    assert_eq!(v["error"], "IllegalPrimary");
    let v = refused(&["predictor", "resolve", "--white", "e2e4 if e7e5 then b1c3", "--black", "e7e5", "--json"]);
    assert_eq!(v["error"], "ResponsePathOccupied");
    assert_bad_input(&["predictor", "resolve", "--white", "e2e4 if", "--black", "e7e5"], "PRIMARY if PREDICTION");
    assert_bad_input(&["predictor", "resolve", "--white", "e7e5", "--black", "e7e5"], "white's orders");
    // Black stalemated at the start of the ply: the game is over, whatever the orders.
    assert_bad_input(
        &["predictor", "resolve", "--fen", "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1", "--white", "g6g5", "--black", "h8g8"],
        "the game is over in this position, 1/2-1/2 (draw by stalemate)",
    );
    assert_bad_input(&["predictor", "resolve", "--fen", "8/8/8 w", "--white", "e2e4", "--black", "e7e5"], "FEN");
}

fn field(v: &Value, key: &str) -> String {
    v[key].as_str().expect("a string").to_string()
}

#[test]
fn a_ply_by_commit_reveal_into_a_record() {
    let record = temp_path("predictor", "market.pgn");
    let _ = std::fs::remove_file(&record);
    let rec = record.to_str().expect("utf-8 path");
    let seal = |ply: &str, side: &str, orders: &str| {
        json(&["predictor", "commit", "--game", "market-7", "--ply", ply, "--side", side, "--orders", orders, "--json"])
    };
    let w = seal("1", "white", "e2e4 if e7e5 then d2d3");
    let b = seal("1", "black", "E7E5");
    assert_eq!(field(&b, "orders"), "e7e5");
    // Equal orders, fresh nonces: different commitments.
    assert_ne!(field(&seal("1", "black", "e7e5"), "commitment"), field(&b, "commitment"));
    let o =
        fairylab(&["predictor", "verify", "--commitment", &field(&w, "commitment"), "--reveal", &field(&w, "reveal")]);
    assert_ok(&o);
    assert!(stdout(&o).starts_with("ok: "));
    // `reveal` rebuilds the same line from the orders and the nonce.
    let o = fairylab(&[
        "predictor",
        "reveal",
        "--game",
        "market-7",
        "--ply",
        "1",
        "--side",
        "white",
        "--orders",
        "e2e4 if e7e5 then d2d3",
        "--nonce",
        &field(&w, "nonce"),
        "--commitment",
        &field(&w, "commitment"),
    ]);
    assert_ok(&o);
    assert_eq!(stdout(&o).trim(), field(&w, "reveal"));
    // A changed move, the other side's commitment: refused.
    let forged = field(&w, "reveal").replace("d2d3", "d2d4");
    assert_bad_input(
        &["predictor", "verify", "--commitment", &field(&w, "commitment"), "--reveal", &forged],
        "does not match",
    );
    let referee = |w: &Value, b: &Value, extra: &[&str]| {
        let mut args = vec![
            "predictor".to_string(),
            "referee".into(),
            "--record".into(),
            rec.into(),
            "--white-commitment".into(),
            field(w, "commitment"),
            "--white-reveal".into(),
            field(w, "reveal"),
            "--black-commitment".into(),
            field(b, "commitment"),
            "--black-reveal".into(),
            field(b, "reveal"),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let args = referee(&w, &b, &["--game", "market-7", "--json"]);
    let v = json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(v["white"]["fired"], true);
    assert_eq!(v["board_after"], "rnbqkbnr/pppp1ppp/8/4p3/4P3/3P4/PPP2PPP/RNBQKBNR");
    let text = std::fs::read_to_string(&record).expect("the record");
    assert!(
        text.contains("[GameId \"market-7\"]")
            && text.contains("\n1. e2e4 if e7e5 then d2d3 | e7e5 {fired: white; commit: W ")
    );
    // Replaying ply 1's reveals as ply 2, or a reveal swapped in, fails and the record stays.
    let args = referee(&w, &b, &[]);
    assert_bad_input(&args.iter().map(String::as_str).collect::<Vec<_>>(), "ply 2");
    let w2 = seal("2", "white", "g1f3");
    let b2 = seal("2", "black", "b8c6");
    let args = referee(&w2, &w2, &[]);
    assert_bad_input(&args.iter().map(String::as_str).collect::<Vec<_>>(), "black's reveal");
    assert_eq!(std::fs::read_to_string(&record).expect("the record"), text, "nothing of the game lost");
    // Ply 2 goes on from the record.
    let args = referee(&w2, &b2, &[]);
    let o = fairylab(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_ok(&o);
    assert!(std::fs::read_to_string(&record).expect("the record").contains("\n2. g1f3 | b8c6 {commit: "));
    // --fen starts a new record, and only a new one (an existing record has its position).
    let args = referee(&w2, &b2, &["--fen", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"]);
    assert_bad_input(&args.iter().map(String::as_str).collect::<Vec<_>>(), "only starts a new record");
    let _ = std::fs::remove_file(&record);
    let fen = "r3k3/ppppp3/8/8/8/8/PPPPPPPP/RNBQKBNR w KQq - 0 1";
    let b1 = seal("1", "black", "a7a6");
    let args = referee(&w, &b1, &["--game", "market-7", "--fen", fen]);
    assert_ok(&fairylab(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    let text = std::fs::read_to_string(&record).expect("the record");
    assert!(
        text.contains(&format!("[FEN \"{fen}\"]")) && text.contains("\n1. e2e4 if e7e5 then d2d3 | a7a6 {"),
        "{text}"
    );
}

#[test]
fn bad_commitment_input_is_one_error_line() {
    assert_bad_input(
        &["predictor", "commit", "--game", "a b", "--ply", "1", "--side", "white", "--orders", "e2e4"],
        "game id",
    );
    assert_bad_input(
        &["predictor", "commit", "--game", "g", "--ply", "1", "--side", "red", "--orders", "e2e4"],
        "side",
    );
    assert_bad_input(
        &["predictor", "commit", "--game", "g", "--ply", "1", "--side", "white", "--orders", "e2"],
        "orders",
    );
    assert_bad_input(
        &[
            "predictor",
            "commit",
            "--game",
            "g",
            "--ply",
            "1",
            "--side",
            "white",
            "--orders",
            "e2e5",
            "--fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
        "not a legal move",
    );
    assert_bad_input(&["predictor", "verify", "--commitment", "xyz", "--reveal", "predictor-reveal v1"], "hexadecimal");
    assert_bad_input(
        &["predictor", "verify", "--commitment", &"0".repeat(64), "--reveal", "hello"],
        "predictor-reveal",
    );
    assert_bad_input(&["play", "--variant", "predictor"], "simultaneous");
}

#[test]
fn a_predictor_match_of_the_mixed_player_against_the_baseline() {
    let pgn = temp_path("predictor-match", "games.pgn");
    let o = fairylab(&[
        "match",
        "--variant",
        "predictor",
        "--white",
        "mixed",
        "--black",
        "baseline",
        "--games",
        "2",
        "--movetime",
        "20",
        "--max-plies",
        "12",
        "--seed",
        "3",
        "--pgn",
        pgn.to_str().expect("UTF-8 path"),
    ]);
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.starts_with("mixed vs baseline (predictor, 20 ms per ply): 2 games\n"), "{out}");
    assert!(out.contains("average length"), "{out}");
    // Each game's record reads back (a game cut at the ply limit ends by adjudication), colours
    // alternating.
    let text = std::fs::read_to_string(&pgn).expect("the records");
    let records: Vec<String> = text.split("[Event ").skip(1).map(|r| format!("[Event {r}")).collect();
    assert_eq!(records.len(), 2, "{text}");
    let mut whites = Vec::new();
    for r in &records {
        let rec = rules::predictor::record::read(r).unwrap_or_else(|e| panic!("{e}\n{r}"));
        assert!(rec.game.outcome().is_some() || rec.game.ended().is_some(), "{r}");
        assert!(rec.game.plies().len() <= 12, "{r}");
        whites.push(rec.tag("White").expect("White").to_string());
    }
    whites.sort();
    assert_eq!(whites, ["baseline", "mixed"], "{text}");
    assert_bad_input(
        &["match", "--variant", "predictor", "--white", "mixed", "--black", "wizard"],
        "unknown Predictor player",
    );
}

/// RULINGS § Predictor 7 at the command-line referee: a reveal that does not open its
/// commitment, or opens illegal orders, forfeits the game for its side (both: a draw), and the
/// record ends with the infraction.
#[test]
fn a_reveal_that_does_not_open_its_commitment_forfeits() {
    let seal = |side: &str, orders: &str| {
        json(&["predictor", "commit", "--game", "g9", "--ply", "1", "--side", side, "--orders", orders, "--json"])
    };
    let referee = |record: &str, w: (&str, &str), b: (&str, &str), json_out: bool| {
        let mut args = vec![
            "predictor",
            "referee",
            "--game",
            "g9",
            "--record",
            record,
            "--white-commitment",
            w.0,
            "--white-reveal",
            w.1,
            "--black-commitment",
            b.0,
            "--black-reveal",
            b.1,
        ];
        if json_out {
            args.push("--json");
        }
        fairylab(&args)
    };
    let (w, b) = (seal("white", "e2e4"), seal("black", "e7e5"));
    // White's reveal changed after the commitment: White forfeits.
    let record = temp_path("predictor", "forfeit-white.pgn");
    let _ = std::fs::remove_file(&record);
    let forged = field(&w, "reveal").replace("e2e4", "d2d4");
    let o = referee(
        record.to_str().expect("utf-8"),
        (&field(&w, "commitment"), &forged),
        (&field(&b, "commitment"), &field(&b, "reveal")),
        true,
    );
    assert_ok(&o);
    let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(v["outcome"]["result"], "0-1");
    assert_eq!(v["outcome"]["reason"], "forfeit");
    assert!(v["forfeit"]["white"].as_str().expect("white's fault").contains("does not open"));
    assert_eq!(v["forfeit"]["black"], Value::Null);
    let text = std::fs::read_to_string(&record).expect("the record");
    assert!(text.contains("[Result \"0-1\"]") && text.contains("[Termination \"rules infraction\"]"), "{text}");
    // The game is over: no further ply is refereed.
    let (w2, b2) = (seal("white", "d2d4"), seal("black", "d7d5"));
    let o = referee(
        record.to_str().expect("utf-8"),
        (&field(&w2, "commitment"), &field(&w2, "reveal")),
        (&field(&b2, "commitment"), &field(&b2, "reveal")),
        false,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("game is over"), "{}", stderr(&o));

    // Both reveal orders illegal in the position (committed without --fen): a draw.
    let record = temp_path("predictor", "forfeit-both.pgn");
    let _ = std::fs::remove_file(&record);
    let (w, b) = (seal("white", "e2e5"), seal("black", "e7e4"));
    let o = referee(
        record.to_str().expect("utf-8"),
        (&field(&w, "commitment"), &field(&w, "reveal")),
        (&field(&b, "commitment"), &field(&b, "reveal")),
        false,
    );
    assert_ok(&o);
    let out = stdout(&o);
    assert!(out.contains("white forfeits at ply 1: the revealed orders are illegal"), "{out}");
    assert!(out.contains("black forfeits at ply 1") && out.contains("1/2-1/2"), "{out}");
    assert!(std::fs::read_to_string(&record).expect("the record").contains("[Result \"1/2-1/2\"]"));
}
