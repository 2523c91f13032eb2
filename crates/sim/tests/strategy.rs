//! The random strategies choose with the right probabilities: `random` uniformly over moves,
//! `random-piece` uniformly over pieces first.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rules::{variants, MoveList, Position, Square};
use sim::strategy::Player;
use sim::Strategy;

/// White: king a1 with three moves (a2, b1, b2), pawn c2 with one (c3); Black: king e5.
const FEN: &str = "4k/5/5/2P2/K4 w - - 0 1";

fn pawn_share(strategy: Strategy, draws: u32) -> f64 {
    let v = variants::by_name("gardner").expect("gardner");
    let pos = Position::from_fen(v, FEN).expect("valid FEN");
    let mut legal = MoveList::new();
    pos.gen_legal(&mut legal);
    assert_eq!(legal.len(), 4, "{legal:?}");
    let pawn = Square::parse("c2").expect("square");
    let king = Square::parse("a1").expect("square");
    assert_eq!(legal.iter().filter(|m| m.from() == pawn).count(), 1);
    assert_eq!(legal.iter().filter(|m| m.from() == king).count(), 3);
    let mut player = Player::new(strategy);
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut pawn_moves = 0u32;
    for _ in 0..draws {
        let m = player.choose(&pos, &legal, &[], &mut rng);
        assert!(legal.contains(&m));
        pawn_moves += u32::from(m.from() == pawn);
    }
    f64::from(pawn_moves) / f64::from(draws)
}

fn within_four_standard_errors(share: f64, p: f64, n: u32) {
    let se = (p * (1.0 - p) / f64::from(n)).sqrt();
    assert!((share - p).abs() <= 4.0 * se, "share {share}, expected {p} ± {}", 4.0 * se);
}

#[test]
fn random_piece_picks_the_piece_first() {
    let n = 40_000;
    within_four_standard_errors(pawn_share(Strategy::RandomPiece, n), 0.5, n);
}

#[test]
fn random_picks_the_move_uniformly() {
    let n = 40_000;
    within_four_standard_errors(pawn_share(Strategy::Random, n), 0.25, n);
}

#[test]
fn only_the_engine_is_deterministic() {
    for (text, deterministic) in
        [("random", false), ("random-piece", false), ("engine:depth=2", true), ("engine:nodes=100", true)]
    {
        assert_eq!(text.parse::<Strategy>().expect("parses").is_deterministic(), deterministic, "{text}");
    }
}
