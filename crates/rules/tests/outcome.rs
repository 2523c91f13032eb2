//! Game endings: checkmate, stalemate, the 50-move rule, threefold repetition (hands
//! and side to move included) and insufficient material, per variant.

use rules::game::Game;
use rules::outcome::{EndReason, Outcome};
use rules::{variants, Color, Position};

fn pos(variant: &str, fen: &str) -> Position {
    Position::from_fen(variants::by_name(variant).expect("built in"), fen).expect("valid FEN")
}

fn play(game: &mut Game, uci: &str) {
    let m = rules::uci::parse_uci(game.position(), uci).expect("legal move");
    game.play(m).expect("legal move");
}

#[test]
fn checkmate_and_stalemate() {
    let mate = pos("chess", "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_eq!(mate.outcome(), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::Checkmate }));
    let stalemate = pos("chess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(stalemate.outcome(), Some(Outcome::Draw { reason: EndReason::Stalemate }));
    let gardner_mate = pos("gardner", "k4/1Q3/1K3/5/5 b - - 0 1");
    assert_eq!(gardner_mate.outcome(), Some(Outcome::Decisive { winner: Color::White, reason: EndReason::Checkmate }));
    // Crazyhouse: a drop can block, so this check is not mate while a piece is in hand.
    let blocked = pos("crazyhouse", "4k3/8/8/8/8/8/PPPP1PPP/RNB1KBNR[Nq] w KQ - 0 1");
    assert_eq!(blocked.outcome(), None);
}

#[test]
fn fifty_move_rule_is_automatic_at_one_hundred_plies() {
    assert_eq!(pos("chess", "4k3/8/8/8/8/8/R7/4K3 w - - 99 80").outcome(), None);
    assert_eq!(
        pos("chess", "4k3/8/8/8/8/8/R7/4K3 w - - 100 80").outcome(),
        Some(Outcome::Draw { reason: EndReason::FiftyMoves })
    );
    // Checkmate on the hundredth ply still wins.
    assert_eq!(
        pos("chess", "R3k3/8/4K3/8/8/8/8/8 b - - 100 80").outcome(),
        Some(Outcome::Decisive { winner: Color::White, reason: EndReason::Checkmate })
    );
}

#[test]
fn threefold_repetition() {
    let mut game = Game::new(Position::start(variants::by_name("chess").expect("chess")));
    for _ in 0..2 {
        for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
            assert_eq!(game.outcome(), None);
            play(&mut game, m);
        }
    }
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.outcome(), Some(Outcome::Draw { reason: EndReason::Repetition }));
    // A search's history is every position before the current one: the root is not in it.
    assert_eq!(game.history(), &game.hashes()[..8]);
    assert_eq!(game.hashes().len(), 9);
    assert_eq!(game.hashes()[8], game.position().hash());
    assert!(Game::new(Position::start(variants::by_name("chess").expect("chess"))).history().is_empty());
    // A takeback of the last move: the repetition goes with it, and the game is as it was.
    let before = game.clone();
    assert_eq!(game.truncate(7), 1);
    assert_eq!((game.repetitions(), game.outcome()), (2, None));
    assert_eq!((game.moves(), game.hashes()), (&before.moves()[..7], &before.hashes()[..8]));
    assert_eq!(game.position().fen(), "rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 7 4");
    assert_eq!(game.truncate(9), 0, "nothing to take back past the end");
    play(&mut game, "f6g8");
    assert_eq!((game.hashes(), game.position().fen()), (before.hashes(), before.position().fen()));
    assert_eq!(game.truncate(0), 8);
    assert_eq!((game.position().fen(), game.hashes().len()), (before.start().fen(), 1));
}

#[test]
fn repetition_counts_hands_in_crazyhouse() {
    // The same placement recurs, but a pawn moved from board to hand: not a repetition.
    let v = variants::by_name("crazyhouse").expect("crazyhouse");
    let mut game = Game::new(Position::start(v));
    for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
        play(&mut game, m);
    }
    assert_eq!(game.repetitions(), 2);
    let with_hand = Position::from_fen(v, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 1").expect("FEN");
    assert_ne!(with_hand.hash(), game.position().hash());
}

#[test]
fn insufficient_material_fide() {
    let draw = |fen: &str| pos("chess", fen).is_insufficient_material();
    assert!(draw("8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
    assert!(draw("8/8/4k3/8/8/3K4/8/6N1 w - - 0 1"));
    assert!(draw("8/8/4k3/8/8/3K4/8/5B2 w - - 0 1"));
    // Bishops on one colour only (f1 and c4 are both light squares).
    assert!(draw("8/8/4k3/8/2b5/3K4/8/5B2 w - - 0 1"));
    assert!(!draw("8/8/4k3/8/2b5/3K4/8/6B1 w - - 0 1"));
    assert!(!draw("8/8/4k3/8/8/3K4/8/5NN1 w - - 0 1"));
    assert!(!draw("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1"));
    assert!(!draw("8/8/4k3/8/8/3K4/8/R7 w - - 0 1"));
    assert_eq!(
        pos("chess", "8/8/4k3/8/8/3K4/8/6N1 w - - 0 1").outcome(),
        Some(Outcome::Draw { reason: EndReason::InsufficientMaterial })
    );
}

#[test]
fn insufficient_material_crazyhouse_counts_hands() {
    let draw = |fen: &str| pos("crazyhouse", fen).is_insufficient_material();
    assert!(draw("8/8/4k3/8/8/3K4/8/8[] w - - 0 1"));
    assert!(draw("8/8/4k3/8/8/3K4/8/8[N] w - - 0 1"));
    assert!(!draw("8/8/4k3/8/8/3K4/8/8[P] w - - 0 1"));
    assert!(!draw("8/8/4k3/8/8/3K4/8/8[NB] w - - 0 1"));
    assert!(!draw("8/8/4k3/8/8/3K4/8/6Q~1[] w - - 0 1"));
}
