//! Baby Chess rules: column-switch counts (increment, freeze at 5, fresh count for a promoted
//! queen, hashing, copy-make), the `{n}` FEN extension, check that honours the restrictions,
//! checkmate and stalemate, and that random games end within 170 plies.

use rules::outcome::{EndReason, Outcome};
use rules::uci::{parse_uci, to_uci};
use rules::variants::baby::{BabyOptions, BabySetup};
use rules::{variants, Color, Position, Square, Variant};

fn baby() -> &'static Variant {
    variants::baby(BabyOptions::default())
}

fn pos(fen: &str) -> Position {
    Position::from_fen(baby(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn sq(s: &str) -> Square {
    Square::parse(s).expect("square")
}

fn play(p: &mut Position, uci: &str) {
    let m = parse_uci(p, uci).unwrap_or_else(|e| panic!("{uci} in {}: {e}", p.fen()));
    p.play(m).expect("legal");
}

fn moves_from(p: &Position, from: &str) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(|&m| to_uci(p, m)).filter(|u| u.starts_with(from)).collect();
    v.sort();
    v
}

#[test]
fn names_and_options() {
    for (o, name) in BabyOptions::ALL.iter().zip(["baby", "baby-gardner", "baby-double", "baby-gardner-double"]) {
        let v = variants::baby(*o);
        assert_eq!(v.name, name);
        assert!(std::ptr::eq(variants::by_name(name).expect("by name"), v));
        assert_eq!(v.column_switch_limit, Some(5));
        assert_eq!(v.double_step, [o.white_double_step, false]);
    }
    let g = variants::baby(BabyOptions { setup: BabySetup::Gardner, white_double_step: false });
    assert_eq!(Position::start(g).fen(), "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1");
    assert_eq!(Position::start(baby()).fen(), "kqbnr/ppppp/5/PPPPP/RNBQK w - - 0 1");
}

#[test]
fn a_file_change_counts_one_switch_and_the_count_travels() {
    let mut p = Position::start(baby());
    play(&mut p, "b1a3");
    assert_eq!(p.switches_at(sq("a3")), 1);
    assert_eq!(p.switches_at(sq("b1")), 0);
    play(&mut p, "e4e3");
    play(&mut p, "a3b5");
    assert_eq!(p.switches_at(sq("b5")), 2);
    // A pawn capture changes file and counts for the pawn.
    let mut p = pos("kq3/ppp2/1P3/5/4K w - - 0 1");
    play(&mut p, "b3a4");
    assert_eq!(p.switches_at(sq("a4")), 1);
    // A move along the file does not count.
    let mut p = pos("k4/5/5/2R{3}2/4K w - - 0 1");
    play(&mut p, "c2c4");
    assert_eq!(p.switches_at(sq("c4")), 3);
    assert_eq!(p.fen(), "k4/2R{3}2/5/5/4K b - - 1 1");
}

#[test]
fn five_switches_freeze_a_piece_in_its_file() {
    let p = pos("k4/5/5/2R{5}2/4K w - - 0 1");
    assert_eq!(moves_from(&p, "c2"), ["c2c3", "c2c4", "c2c5"]);
    let mut p = pos("k4/5/5/2R{4}2/4K w - - 0 1");
    assert_eq!(moves_from(&p, "c2"), ["c2a2", "c2b2", "c2c3", "c2c4", "c2c5", "c2d2", "c2e2"]);
    play(&mut p, "c2a2");
    assert_eq!(p.switches_at(sq("a2")), 5);
    play(&mut p, "a5b5");
    assert_eq!(moves_from(&p, "a2"), ["a2a3", "a2a4", "a2a5"]);
    // A frozen knight has no move at all (every jump changes file).
    let p = pos("k4/5/5/2N{5}2/4K w - - 0 1");
    assert!(moves_from(&p, "c2").is_empty());
}

#[test]
fn a_promoted_queen_starts_at_zero() {
    let mut p = pos("k2r1/2P{2}2/5/5/4K w - - 0 1");
    assert_eq!(moves_from(&p, "c4"), ["c4c5q", "c4d5q"]);
    let mut q = p.clone();
    play(&mut p, "c4c5q");
    assert_eq!(p.switches_at(sq("c5")), 0);
    // Capturing onto another file while promoting: the pawn's switch is not the queen's.
    play(&mut q, "c4d5q");
    assert_eq!(q.switches_at(sq("d5")), 0);
    assert_eq!(q.fen(), "k2Q1/5/5/5/4K b - - 0 1");
}

#[test]
fn the_count_is_hashed_and_restored_by_copy_make() {
    let a = pos("k4/5/5/2R{3}2/4K w - - 0 1");
    let b = pos("k4/5/5/2R{4}2/4K w - - 0 1");
    let c = pos("k4/5/5/2R2/4K w - - 0 1");
    assert_ne!(a.hash(), b.hash());
    assert_ne!(a.hash(), c.hash());
    assert_ne!(a, b);
    let mut child = a.clone();
    play(&mut child, "c2b2");
    assert_eq!(child.hash(), child.hash_from_scratch());
    assert_eq!(child.switches_at(sq("b2")), 4);
    assert_eq!(child.hash(), pos("k4/5/5/1R{4}3/4K b - - 1 1").hash());
    // The parent is untouched (copy-make is the undo).
    assert_eq!(a.hash(), a.hash_from_scratch());
    assert_eq!(a.switches_at(sq("c2")), 3);
    // Random play: the incremental hash always equals the hash from scratch.
    let mut p = Position::start(baby());
    let mut seed = 7u64;
    loop {
        let l = p.legal_moves();
        if l.is_empty() {
            break;
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        p.play_unchecked(l[(seed >> 33) as usize % l.len()]);
        assert_eq!(p.hash(), p.hash_from_scratch(), "{}", p.fen());
    }
}

#[test]
fn fen_switch_counts_round_trip_and_are_parsed_strictly() {
    for fen in [
        "kq3/ppp2/2R{5}2/3Q{4}P/4K w - - 0 1",
        "k1b2/p{1}1n{4}1p/2P{1}R{5}1/1P1Q{3}P/4K b - - 0 8",
        "kqbnr/ppppp/5/PPPPP/RNBQK w - - 0 1",
    ] {
        assert_eq!(pos(fen).fen(), fen);
    }
    assert_eq!(pos("k4/5/5/2R{0}2/4K w - - 0 1").fen(), "k4/5/5/2R2/4K w - - 0 1");
    let err = |fen: &str| Position::from_fen(baby(), fen).expect_err(fen).to_string();
    assert!(err("k4/5/5/2R{6}2/4K w - - 0 1").contains("switch count 6 at c2 is more than the limit 5"));
    assert!(err("k4/5/5/2{3}R2/4K w - - 0 1").contains("empty square"));
    assert!(err("k4/5/5/2R{x}2/4K w - - 0 1").contains("not a number"));
    assert!(err("k4/5/5/2R{12}2/4K w - - 0 1").contains("more than the limit"));
    assert!(err("k4/5/5/2R{3/4K w - - 0 1").contains("unterminated"));
    let chess = variants::by_name("chess").expect("chess");
    let e = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RN{1}BQKBNR w KQkq - 0 1")
        .expect_err("no switch counts in chess")
        .to_string();
    assert!(e.contains("no column-switch limit"), "{e}");
}

#[test]
fn check_ignores_backward_moves_and_moves_needing_a_sixth_switch() {
    // The white rook on c4 would need a backward move to reach the black king on c2.
    let p = pos("4K/2R2/5/2k2/5 b - - 0 1");
    assert!(!p.is_check());
    assert!(p.checkers().is_empty());
    // Black's king may step next to the rook's file below it, but not onto rank 4.
    assert_eq!(moves_from(&p, "c2"), ["c2b1", "c2b2", "c2c1", "c2d1", "c2d2"]);
    // A sideways attack needs a switch: with five used it is no attack.
    let frozen = pos("4K/5/5/R{5}1k2/5 b - - 0 1");
    assert!(!frozen.is_check());
    let free = pos("4K/5/5/R{4}1k2/5 b - - 0 1");
    assert!(free.is_check());
    assert_eq!(free.checkers(), rules::Bitboard::from_square(sq("a2")));
    // The same holds for squares the king would step on.
    assert!(moves_from(&frozen, "c2").contains(&"c2b2".to_string()));
    assert!(!moves_from(&free, "c2").contains(&"c2b2".to_string()));
    // And for a position where the side not to move would be "in check" only backwards: legal.
    assert!(Position::from_fen(baby(), "4K/2R2/5/2k2/5 w - - 0 1").is_ok());
}

#[test]
fn checkmate_and_stalemate() {
    let mate = pos("4K/5/5/5/k3R b - - 0 1");
    assert!(mate.is_check());
    assert!(mate.legal_moves().is_empty());
    assert_eq!(mate.outcome(), Some(Outcome::Decisive { winner: Color::White, reason: EndReason::Checkmate }));
    let stale = pos("5/5/5/5/k1K2 b - - 0 1");
    assert!(!stale.is_check());
    assert!(stale.legal_moves().is_empty());
    assert_eq!(stale.outcome(), Some(Outcome::Draw { reason: EndReason::Stalemate }));
    // No other draw rule: bare kings with moves left play on.
    assert_eq!(pos("k4/5/5/5/4K w - - 99 80").outcome(), None);
}

#[test]
fn random_games_end_by_mate_or_stalemate_within_170_plies() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut longest = 0;
    let (mut mates, mut stalemates) = (0, 0);
    for game in 0..4000 {
        let mut p = Position::start(variants::baby(BabyOptions::ALL[game % 4]));
        let mut plies = 0;
        let outcome = loop {
            if let Some(o) = p.outcome() {
                break o;
            }
            let l = p.legal_moves();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            p.play_unchecked(l[(seed % l.len() as u64) as usize]);
            plies += 1;
            assert!(plies <= 170, "game {game} passed 170 plies: {}", p.fen());
        };
        longest = longest.max(plies);
        match outcome {
            Outcome::Decisive { reason: EndReason::Checkmate, .. } => mates += 1,
            Outcome::Draw { reason: EndReason::Stalemate } => stalemates += 1,
            other => panic!("game {game} ended by {other}"),
        }
    }
    assert!(mates > 0 && stalemates > 0, "{mates} mates, {stalemates} stalemates");
    assert!(longest <= 170);
}
