//! Probing as a chess user sees it: positions illegal in play refused (the tables keep their
//! values), moves leaving the royal attacked out of the answer, FEN fields checked, and the report's
//! example positions legal.

use egt::fen::{parse_fen, parse_legal_fen};
use egt::probe::{line, moves, probe, value};
use egt::{generate, BoardShape, EgtError, Family, Material, PieceSet, Request, TableRules, Value};

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
