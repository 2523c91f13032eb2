//! Game review (`engine::review`): lichess's judgements on games whose errors are known, the
//! same review twice under a node limit, and luck in a game with dice.

use engine::review::{review, Eval, Judgement, MateSequence, Review, ReviewLimits};
use engine::Limits;
use rules::record::read_pgn;
use rules::Color;

fn reviewed(pgn: &str) -> Review {
    reviewed_on(pgn, 1)
}

fn reviewed_on(pgn: &str, threads: usize) -> Review {
    let game = read_pgn(pgn).expect("the record reads");
    let mut calls = 0;
    let limits = ReviewLimits { per_position: Limits::nodes(20_000), threads, tables: None };
    let r = review(&game, &limits, |done, total| {
        calls += 1;
        assert_eq!(done, calls);
        assert!(done <= total);
    });
    assert_eq!(r.evals.len(), game.moves().len() + 1);
    assert_eq!(r.moves.len(), game.moves().len());
    r
}

#[test]
fn a_blunder_into_mate_is_a_blunder_that_makes_mate_unavoidable() {
    let r = reviewed("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0");
    let nf6 = &r.moves[5];
    assert_eq!((nf6.san.as_str(), nf6.mover), ("Nf6", Color::Black));
    assert_eq!(nf6.judgement, Some(Judgement::Blunder), "{nf6:?}");
    assert_eq!(nf6.mate, Some(MateSequence::Created), "{nf6:?}");
    assert!(matches!(nf6.after, Eval::Mate(m) if m > 0), "White mates after Nf6: {nf6:?}");
    assert!(nf6.best.as_deref().is_some_and(|b| ["g6", "Qe7", "Qf6"].contains(&b)), "{nf6:?}");
    // The mating move keeps its mate; the final position is White's win.
    let mate = &r.moves[6];
    assert_eq!((mate.san.as_str(), mate.judgement, mate.best.as_deref()), ("Qxf7#", None, None), "{mate:?}");
    assert_eq!(r.evals[7], Eval::Mate(1));
    assert_eq!(r.sides[1].blunders, 1);
    assert!(r.sides[0].accuracy > r.sides[1].accuracy, "{:?}", r.sides);
}

#[test]
fn a_queen_left_to_be_taken_is_a_blunder_and_its_capture_is_not() {
    let r = reviewed("1. e4 d5 2. Qg4 Bxg4 *");
    let qg4 = &r.moves[2];
    assert_eq!(qg4.san, "Qg4");
    assert_eq!(qg4.judgement, Some(Judgement::Blunder), "{qg4:?}");
    assert!(qg4.cp_loss >= 500, "{qg4:?}");
    assert!(qg4.accuracy < 20.0, "{qg4:?}");
    let bxg4 = &r.moves[3];
    assert_eq!((bxg4.judgement, bxg4.cp_loss), (None, 0), "{bxg4:?}");
    assert_eq!(bxg4.best, None, "the capture is the engine's choice: {bxg4:?}");
    assert_eq!((r.sides[0].blunders, r.sides[1].blunders), (1, 0));
    assert!(r.sides[0].acpl > 200.0 && r.sides[1].acpl < 50.0, "{:?}", r.sides);
    assert!(r.sides.iter().all(|s| s.luck.is_none()), "chess has no luck");
}

#[test]
fn a_review_under_a_node_limit_is_reproducible() {
    let pgn = "1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. Qc2 O-O 5. a3 Bxc3+ 6. Qxc3 b6 7. Bg5 Bb7 8. f3 h6 *";
    assert_eq!(reviewed(pgn), reviewed(pgn));
    // The same on three threads, whose searches finish in another order.
    assert_eq!(reviewed_on(pgn, 3), reviewed(pgn));
    let dice = probabilistic_record();
    assert_eq!(reviewed_on(&dice, 2), reviewed(&dice));
}

/// In Probabilistic chess a move is judged by its expected value; the dice then make luck:
/// failed moves are unlucky for their mover, taken together.
#[test]
fn dice_make_luck_and_moves_are_judged_by_their_expected_value() {
    let first = probabilistic_record();
    let game = read_pgn(&first).expect("the record reads");
    let r = reviewed(&first);
    let (mut failed, mut ok) = (0.0, 0.0);
    for (m, e) in r.moves.iter().zip(game.events()) {
        let luck = m.luck.expect("every move has its luck");
        assert!(luck.is_finite() && luck.abs() <= 100.0, "{m:?}");
        let w = |e: Eval| e.pov(m.mover).win_percent_at(r.win_scale);
        assert!((w(m.outcome) - w(m.after) - luck).abs() < 1e-9);
        if *e == rules::chance::Event::Failure {
            failed += luck;
        } else {
            ok += luck;
        }
    }
    assert!(failed < 0.0 && failed < ok, "failed moves' luck {failed}, successful ones' {ok}");
    let total: f64 = r.sides.iter().map(|s| s.luck.expect("luck")).sum();
    assert!((total - r.moves.iter().map(|m| m.luck.unwrap_or(0.0)).sum::<f64>()).abs() < 1e-9);
}

/// Two kings side by side on a map of 50 % squares: the side to move wins with 2/3 (it takes
/// first, at 1/2 each time: 1/2 + 1/4 * 1/2 + ...), so a failed capture costs its mover 1/3 of
/// a win and the capture that then succeeds earns its mover 1/3: the dice variants' values are
/// winning chances, read linearly, not centipawns through lichess's curve.
#[test]
fn dice_luck_is_counted_in_winning_chances() {
    let map = rules::square_map::SquareMap::uniform(50);
    let pgn = format!(
        "[Variant \"Probabilistic\"]\n[Probabilities \"{}\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/4k3/4K3/8/8/8 w - - 0 1 {map}\"]\n\n\
         1. Kxe5 {{50%: failed}} 1... Kxe4 {{50%: ok}} 0-1\n",
        map.write(rules::Bitboard::EMPTY, rules::Geometry::CHESS)
    );
    let r = reviewed(&pgn);
    assert!(r.win_scale > 0, "a dice variant's values are win-scaled");
    let percent = |e: Eval, side: Color| e.pov(side).win_percent_at(r.win_scale);
    let (kxe5, kxe4) = (&r.moves[0], &r.moves[1]);
    let near = |got: f64, want: f64, what: &str| assert!((got - want).abs() < 1.5, "{what}: {got}, not {want}");
    near(percent(r.evals[0], Color::White), 200.0 / 3.0, "white to move first");
    near(percent(kxe5.after, Color::White), 200.0 / 3.0, "Kxe5's expected value");
    near(kxe5.luck.expect("luck"), -100.0 / 3.0, "the failed roll");
    near(kxe4.luck.expect("luck"), 100.0 / 3.0, "the king captured");
    assert_eq!(percent(kxe4.outcome, Color::Black), 100.0, "a captured king is a sure win");
    assert_eq!((kxe5.judgement, kxe4.judgement), (None, None), "both played their best");
}

/// The engine's own choice is not judged: in this crazyhouse game (the audit's) 4. Nxe5 was
/// marked an inaccuracy with no better move to name, the searches before and after it
/// disagreeing by their horizons.
#[test]
fn the_engines_own_move_is_never_an_error() {
    let r = reviewed("[Variant \"Crazyhouse\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3# 0-1\n");
    for m in &r.moves {
        if m.judgement.is_some() {
            assert!(m.best.is_some(), "{} judged {:?} with no better move named", m.san, m.judgement);
        }
    }
}

/// The first game of `tests/data/records/probabilistic.pgn`: failed rolls, en passant, a king
/// captured.
fn probabilistic_record() -> String {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/records/probabilistic.pgn"))
            .expect("the records");
    text.split("\n[Event").nth(1).map(|g| format!("[Event{g}")).expect("a game")
}
