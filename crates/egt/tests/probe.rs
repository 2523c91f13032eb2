//! Probing as a chess user sees it: positions illegal in play refused (the tables keep their
//! values), moves leaving the royal attacked out of the answer, FEN fields checked, and the report's
//! example positions legal.

use egt::fen::{parse_fen, parse_legal_fen};
use egt::probe::{game_over, line, moves, probe, value};
use egt::{generate, BoardShape, EgtError, Family, Material, Metric, PieceSet, Request, TableRules, Value};

fn family(material: &str, rules: TableRules) -> Family {
    let pieces = PieceSet::orthodox();
    let req = Request {
        material: Material::parse(material, &pieces).expect("material"),
        board: BoardShape::new(8, 8).expect("board"),
        rules,
        pieces,
        max_memory: 4 << 30,
    };
    generate(&req, &mut |_| {}).expect("generate")
}

/// Adjacent kings: the tables value the position as won at once (the royal is captured), as
/// docs/RULES.md says, but a probe refuses it as chess does.
#[test]
fn the_side_not_to_move_in_check_is_refused() {
    let f = family("KQ.K", TableRules::default());
    let fen = "8/8/8/8/8/8/1Q6/Kk6 w";
    let pos = parse_fen(&f, fen).expect("the model holds it");
    assert_eq!(value(&f, &pos), Value::Win(0));
    let err = parse_legal_fen(&f, fen).expect_err("illegal in play");
    assert!(matches!(err, EgtError::IllegalPosition { .. }), "{err:?}");
    assert_eq!(err.to_string(), format!("illegal position {fen:?}: the side not to move (Black) is in check"));
    // The same kings with Black to move: White is the side in check. Black in check with Black to
    // move is an ordinary position.
    let err = parse_legal_fen(&f, "8/8/8/8/8/8/1Q6/Kk6 b").expect_err("kings adjacent");
    assert!(err.to_string().contains("(White) is in check"), "{err}");
    assert!(parse_legal_fen(&f, "8/8/8/8/8/8/1Q6/K1k5 b").is_ok(), "Black in check, Black to move");
}

/// KQ.KR, White in check from the rook: of its 23 pseudo-legal moves only the three that get out of
/// check are answered; the others stay in `moves` for the consistency check, marked illegal.
#[test]
fn moves_leaving_the_royal_attacked_are_left_out() {
    let f = family("KQ.KR", TableRules::default());
    let pos = parse_legal_fen(&f, "8/8/2k5/r7/8/8/8/K2Q4 w").expect("legal");
    let all = moves(&f, &pos);
    assert_eq!(all.len(), 23);
    for m in all.iter().filter(|m| !m.legal) {
        assert_eq!(m.value, Value::Loss(0), "{}", m.text);
    }
    let r = probe(&f, &pos);
    let texts: Vec<&str> = r.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["Ka1-b1", "Ka1-b2", "Qd1-a4"]);
    assert_eq!(r.value, Value::Win(31));
    assert_eq!((r.side_to_move, r.metric.as_str()), ("white", "DTC"));
    // The line plays legal moves only, and stops after the plies asked for.
    let l = line(&f, &pos, 5);
    assert_eq!(l.len(), 5);
    assert!(l.iter().all(|(m, _)| m.legal));
}

/// Under -0 Black may not pass while in check; under -b a capture that bares Black's royal wins
/// even though it puts White's royal next to Black's (the game ends first), so it is legal.
#[test]
fn passing_in_check_is_illegal_and_baring_captures_are_legal() {
    let f = family("KR.K", TableRules { null_move: true, ..TableRules::default() });
    let in_check = parse_legal_fen(&f, "k7/8/8/8/8/8/8/RK6 b").expect("legal");
    assert!(moves(&f, &in_check).iter().any(|m| m.text == "pass" && !m.legal));
    assert!(probe(&f, &in_check).moves.iter().all(|m| m.text != "pass"));
    let quiet = parse_legal_fen(&f, "k7/8/8/8/8/8/8/1R4K1 b").expect("legal");
    assert!(probe(&f, &quiet).moves.iter().any(|m| m.text == "pass"));

    let f = family("KR.KR", TableRules { bare_king_loses: true, ..TableRules::default() });
    let pos = parse_legal_fen(&f, "7R/8/8/8/8/3k4/3r4/3K4 w").expect("legal");
    let r = probe(&f, &pos);
    let bare = r.moves.iter().find(|m| m.text == "Kd1xd2").expect("Kxd2 is answered");
    assert!(matches!(bare.value, Value::Win(_)), "{:?}", bare.value);
    assert!(r.moves.iter().all(|m| m.text != "Kd1-e2"), "stays in check: {:?}", r.moves);
}

/// Castling rights and en-passant squares cannot exist in the tables: refused by name. Counters
/// must be numbers; nothing may follow them.
#[test]
fn fen_fields_beyond_the_side_to_move_are_checked() {
    let f = family("KQ.K", TableRules::default());
    for fen in [
        "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1",
        "8/8/8/5k2/8/8/1Q6/K7 w -",
        "8/8/8/5k2/8/8/1Q6/K7 b - - 12 40",
        "8/8/8/5k2/8/8/1Q6/K7 w - - 0 0",
    ] {
        assert!(parse_legal_fen(&f, fen).is_ok(), "{fen}");
    }
    for (fen, named) in [
        ("8/8/8/5k2/8/8/1Q6/K7 w KQkq - 0 1", "castling field \"KQkq\""),
        ("8/8/8/5k2/8/8/1Q6/K7 w K", "castling field \"K\""),
        ("8/8/8/5k2/8/8/1Q6/K7 w - e3 0 1", "en-passant field \"e3\""),
        ("8/8/8/5k2/8/8/1Q6/K7 w - - x 1", "halfmove clock \"x\""),
        ("8/8/8/5k2/8/8/1Q6/K7 w - - 0 x", "fullmove number \"x\""),
        ("8/8/8/5k2/8/8/1Q6/K7 w - - 0 1 z", "extra field \"z\""),
    ] {
        let err = parse_fen(&f, fen).expect_err(fen);
        assert!(matches!(err, EgtError::BadPosition { .. }), "{fen}: {err:?}");
        assert!(err.to_string().contains(named), "{fen}: {err}");
    }
}

/// The report's examples are legal positions; a class holding only illegal ones (in KQ.K Black
/// wins only by capturing a royal that White left next to it) keeps its length and says so. The
/// counts are FairyGen's, unchanged.
#[test]
fn report_examples_are_legal() {
    let f = family("KQ.K", TableRules::default());
    let r = egt::stats::report(&f);
    for l in [&r.longest_wtm, &r.longest_btm, &r.longest_black_win_wtm, &r.longest_black_win_btm] {
        if let Some(fen) = &l.fen {
            assert!(parse_legal_fen(&f, fen).is_ok(), "{fen}");
        }
    }
    assert_eq!((r.longest_wtm.moves, r.longest_wtm.only_illegal), (10, false));
    let b = &r.longest_black_win_btm;
    assert_eq!((b.moves, b.fen.as_deref(), b.only_illegal), (0, None, true));
    assert!(r.all_placements.lost_btm > 0.1, "the illegal black wins still count");
    let text = r.text();
    assert!(text.contains("black wins, black to move: 0 moves, only in positions illegal in play"), "{text}");
    assert!(!text.contains("k7/KQ6"), "{text}");
}

/// Under -b a capture that bares Black ends the game (docs/RULES.md): the line stops there, named,
/// and is as long as the claimed win; the finished position is answered, not refused, and offers
/// no move; a position no capture can have left stays refused.
#[test]
fn a_bare_king_ends_the_game() {
    let rules = TableRules { bare_king_loses: true, ..TableRules::default() };
    let f = family("KR.KN", rules);
    let pos = parse_legal_fen(&f, "8/8/8/8/8/2k5/1n6/K6R w").expect("legal");
    let l = line(&f, &pos, 300);
    let texts: Vec<&str> = l.iter().map(|(m, _)| m.text.as_str()).collect();
    assert_eq!(texts, ["Ka1xb2"], "the game ends with the capture");
    let (m, fen) = &l[0];
    assert_eq!((m.value, m.conversion.as_deref()), (Value::Win(1), Some("KR.K")));
    assert_eq!(fen, "8/8/8/8/8/2k5/1K6/7R b - - 0 1");
    assert_eq!(game_over(&f, m.next.as_ref().expect("a position")), Some("bare king"));

    // The position after it: White's king is attacked, but the game is over.
    let after = parse_legal_fen(&f, "8/8/8/8/8/2k5/1K6/7R b").expect("a finished game, not illegal");
    let r = probe(&f, &after);
    assert_eq!((r.value, r.end, r.moves.len()), (Value::Loss(0), Some("bare king"), 0));
    assert!(line(&f, &after, 300).is_empty());
    // No white capture can have left these: the kings stood side by side before any of them.
    for fen in ["8/8/8/8/8/8/1k6/K6R b", "8/8/8/8/8/2k5/1K6/7R w"] {
        let err = parse_legal_fen(&f, fen).expect_err(fen);
        assert!(matches!(err, EgtError::IllegalPosition { .. }), "{fen}: {err:?}");
    }

    let f = family("KR.KQ", rules);
    let pos = parse_legal_fen(&f, "8/8/8/6q1/7k/8/8/KR6 w").expect("legal");
    assert_eq!(value(&f, &pos), Value::Win(3));
    let l = line(&f, &pos, 300);
    assert_eq!(l.len(), 5, "three White moves: {:?}", l.iter().map(|(m, _)| &m.text).collect::<Vec<_>>());
    assert_eq!(l[4].0.conversion.as_deref(), Some("KR.K"));
    // With White to move the bare king has lost too: win in 0, no move offered.
    let done = parse_legal_fen(&f, "8/8/8/6R1/8/8/8/K3k3 w").expect("legal");
    let r = probe(&f, &done);
    assert_eq!((r.value, r.end, r.moves.len()), (Value::Win(0), Some("bare king"), 0));
}

/// A one-sided table's "draw" is only "not won for White" (Black's wins are not computed): so its
/// words say, in the JSON too. Two-sided tables keep "draw".
#[test]
fn one_sided_tables_say_not_won_for_white() {
    let f = family("KQ.KR", TableRules { one_sided: true, metric: Metric::Dtm, ..TableRules::default() });
    let pos = parse_legal_fen(&f, "8/8/8/8/8/8/6r1/k1K5 w").expect("legal");
    let r = probe(&f, &pos);
    assert_eq!((r.value, r.value_text.as_str()), (Value::Draw, "not won for White"));
    assert!(r.moves.iter().all(|m| m.value_text == "not won for White"), "{:?}", r.moves);
    let json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["value"], "not won for White");
    assert_eq!(json["moves"][0]["value"], "not won for White");

    let f = family("K.KR", TableRules::default());
    let r = probe(&f, &parse_legal_fen(&f, "8/8/8/8/8/8/6r1/k1K5 w").expect("legal"));
    assert!(r.value_text.starts_with("loss in "), "{}", r.value_text);
}

/// A probe names checkmate and stalemate (its `end`), and a line marks the captures that convert
/// into a sub-ending with the sub-ending's material.
#[test]
fn game_ends_and_conversions_are_named() {
    let f = family("KQ.K", TableRules::default());
    for (fen, end, v) in [
        ("k7/1Q6/1K6/8/8/8/8/8 b", Some("checkmate"), Value::Loss(0)),
        ("k7/2Q5/1K6/8/8/8/8/8 b", Some("stalemate"), Value::Draw),
        ("k7/2Q5/1K6/8/8/8/8/8 w", None, Value::Win(1)),
    ] {
        let r = probe(&f, &parse_legal_fen(&f, fen).expect(fen));
        assert_eq!((r.end, r.value), (end, v), "{fen}");
        assert_eq!(serde_json::to_value(&r).expect("json")["end"], serde_json::json!(end), "{fen}");
    }

    let f = family("KQ.KR", TableRules::default());
    let pos = parse_legal_fen(&f, "8/8/2k5/r7/8/8/8/K2Q4 w").expect("legal");
    let l = line(&f, &pos, 300);
    let captures: Vec<_> = l.iter().filter(|(m, _)| m.text.contains('x')).collect();
    assert!(!captures.is_empty());
    assert_eq!(captures[0].0.conversion.as_deref(), Some("KQ.K"), "{}", captures[0].0.text);
    assert!(l.iter().filter(|(m, _)| !m.text.contains('x')).all(|(m, _)| m.conversion.is_none()));
}

/// A position of the file's men with the colours exchanged is refused with the position to probe
/// instead: turned half round, colours and turn exchanged, with the same value (the server's
/// tables answer the exchanged position so, and it mates in as many moves).
#[test]
fn the_colours_exchanged_name_the_position_to_probe() {
    let f = family("KQ.K", TableRules::default());
    let err = parse_legal_fen(&f, "k7/1q6/8/8/2K5/8/8/8 b").expect_err("kqK is no ending of the file");
    let text = err.to_string();
    assert!(text.contains("form none of this file's endings (K.K, KQ.K)"), "{text}");
    let turned = "8/8/8/5k2/8/8/6Q1/7K w";
    assert!(text.contains(&format!("probe {turned:?}")), "{text}");
    let pos = parse_legal_fen(&f, turned).expect("the turned position probes");
    assert_eq!(value(&f, &pos), Value::Win(8), "the server's answer for the exchanged position");
    // A count with a leading zero is refused, as the rules' FEN reader refuses it.
    let err = parse_legal_fen(&f, "8/8/8/5k2/8/8/6Q1/07K w").expect_err("a zero count");
    assert!(err.to_string().contains("zero empty squares in rank 1"), "{err}");
    // Men that form no ending either way get no hint.
    let err = parse_legal_fen(&f, "k7/1r6/8/8/2K5/8/8/8 b").expect_err("no rook in the file");
    assert!(!err.to_string().contains("exchanged"), "{err}");
}
