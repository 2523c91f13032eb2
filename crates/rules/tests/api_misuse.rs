//! The public API used wrongly: values built by hand, moves of another variant, extreme numbers.
//! Each gives an error (or a documented `None`), never a panic or a silently wrong answer.

use rules::chance::ChanceRule;
use rules::fen::parse_setup;
use rules::movement::{Atom, Movement};
use rules::position::PositionError;
use rules::uci::{parse_uci, UciMove};
use rules::variant::{Rules, Variant};
use rules::variants::chess960;
use rules::{variants, Color, Move, Piece, Position, Role, Square};

fn chess() -> &'static Variant {
    variants::by_name("chess").expect("chess")
}

fn sq(s: &str) -> Square {
    Square::parse(s).expect("a square")
}

/// A move made for a variant with more piece kinds is refused by `play` with its reason, its
/// unknown role written `?` (was: an index out of bounds while writing the error).
#[test]
fn a_move_of_another_variant_is_refused() {
    let zh =
        rules::spec::load_variant_str("name=\"zha\"\nparent=\"crazyhouse\"\n[[piece]]\nletter=\"a\"\nbetza=\"BN\"\n")
            .expect("the variant loads");
    let pos = Position::from_fen(zh, "4k3/8/8/8/8/8/8/4K3[A] w - - 0 1").expect("the FEN reads");
    let drop = parse_uci(&pos, "A@e4").expect("a legal drop there");
    let mut start = Position::start(chess());
    let e = start.play(drop).expect_err("not a chess move");
    assert_eq!(e.uci, "?@e4");
    let promo = Move::promotion(sq("e7"), sq("e8"), Role(11));
    let e = start.play(promo).expect_err("not a chess move");
    assert_eq!(e.uci, "e7e8?");
    let mut game = rules::game::Game::new(Position::start(chess()));
    assert!(game.play(drop).is_err());
}

/// Move constructors never let a role spill into the other fields: a promotion to role 15
/// was the double step e2e4, and legal.
#[test]
fn move_constructors_keep_their_fields() {
    let pos = Position::start(chess());
    for r in [12, 14, 15, 16, 63, 64, 200, 255] {
        let m = Move::promotion(sq("e2"), sq("e4"), Role(r));
        assert_ne!(m, Move::double_step(sq("e2"), sq("e4")), "role {r}");
        assert!(!pos.is_legal(m), "role {r}");
        let d = Move::drop(Role(r), sq("e4"));
        assert_eq!(d.to(), sq("e4"), "role {r}");
        assert!(!pos.is_legal(d), "role {r}");
    }
    assert_eq!(pos.moving_role(Move::PASS), None);
}

/// `with_castling` refuses files and bases it cannot build (was: `unreachable!`).
#[test]
fn chess960_files_out_of_order_are_refused() {
    let c960 = variants::by_name("chess960").expect("chess960");
    for (king, rooks) in [(0, [7, 0]), (9, [20, 30]), (4, [3, 0]), (4, [7, 5]), (4, [8, 0])] {
        let e = chess960::with_castling(c960, king, rooks).expect_err("files that cannot castle");
        assert!(e.to_string().contains("castling"), "{e}");
    }
    let gardner = variants::by_name("gardner").expect("gardner");
    assert!(chess960::with_castling(gardner, 2, [4, 0]).is_err());
    assert!(chess960::with_castling(chess(), 2, [4, 0]).is_err());
    let v = chess960::with_castling(c960, 1, [2, 0]).expect("king b, rooks a and c");
    assert_eq!(v.castling.map(|c| (c.king_file, c.rook_file)), Some((1, [2, 0])));
}

/// A setup holding a piece kind the variant does not have is refused (was: `Ok`, then a panic
/// in `fen()` or in the hash keys).
#[test]
fn setups_with_foreign_pieces_are_refused() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for role in [6, 9, 11, 15] {
        let mut s = parse_setup(chess(), start).expect("the start");
        s.board.put(sq("d4"), Piece { color: Color::White, role: Role(role) }, 0);
        assert_eq!(Position::from_setup(chess(), s).err(), Some(PositionError::UnknownPiece(sq("d4"))), "{role}");
    }
    let zh = variants::by_name("crazyhouse").expect("crazyhouse");
    let mut s = parse_setup(zh, "4k3/8/8/8/8/8/8/4K3[] w - - 0 1").expect("a crazyhouse FEN");
    assert_eq!(s.hands[1].add(Role(7)), Some(1));
    assert_eq!(Position::from_setup(zh, s).err(), Some(PositionError::UnknownHandPiece(Color::Black)));
    // Hands know no role beyond any variant's: nothing to count, add or remove.
    let mut h = rules::hand::Hand::default();
    assert_eq!((h.count(Role(12)), h.add(Role(12)), h.remove(Role(200))), (0, None, None));
}

/// The largest fullmove number a FEN may give: the ply count saturates (was: an overflow
/// panic in `outcome()` and `ply()`).
#[test]
fn the_largest_fullmove_numbers_do_not_overflow() {
    let pos = Position::from_fen(chess(), "4k3/8/8/8/8/8/8/4K2R b K - 0 4294967295").expect("reads");
    assert_eq!(pos.ply(), u32::MAX);
    assert_eq!(pos.outcome(), None);
    let p = variants::by_name("probabilistic").expect("probabilistic");
    let start = Position::start(p).fen();
    let fields: Vec<&str> = start.split(' ').collect();
    let fen = format!("{} {} {} {} {} 2147483649 {}", fields[0], fields[1], fields[2], fields[3], fields[4], fields[6]);
    let pos = Position::from_fen(p, &fen).expect("reads");
    // The ply limit (1000) has long passed: adjudicated, not wrapped round to an early ply.
    assert!(pos.outcome().is_some(), "{fen}");
}

/// Rules built by hand are checked as a variant file's are (were: accepted, then a division by
/// zero or a negation overflow).
#[test]
fn hand_built_rules_are_checked() {
    let refused = |r: Rules, what: &str| {
        let e = Variant::new(r).err().unwrap_or_else(|| panic!("{what}: accepted"));
        assert!(e.to_string().contains(what), "{e}");
    };
    let base = || variants::by_name("chess").expect("chess").rules().clone();
    let mut r = base();
    r.chance = ChanceRule::MoveSuccess { numerator: 1, denominator: 0 };
    refused(r, "1/0");
    let mut r = base();
    r.chance = ChanceRule::MoveSuccess { numerator: 3, denominator: 2 };
    refused(r, "3/2");
    let mut r = base();
    r.chance = ChanceRule::Gifts { percent: 17 };
    refused(r, "drops");
    let mut r = variants::by_name("crazyhouse").expect("crazyhouse").rules().clone();
    r.chance = ChanceRule::Gifts { percent: 101 };
    refused(r, "101");
    for atom in [Atom::leap(-128, 0), Atom::leap(0, -128), Atom::ride(-128, 1)] {
        let mut r = base();
        // Beside a step that fits, else the piece is refused as one that could never move.
        r.pieces[1].movement = Movement::new([Atom::leap(1, 0), atom]);
        refused(r, "out of range");
    }
    let mut r = base();
    r.pieces[1].movement = Movement::new([Atom::leap(0, 0)]);
    // `Movement` drops a step of (0,0), so such a piece has no moves.
    refused(r, "no moves");
}

/// UCI text with spaces says so (was: "bad promotion letter" for `e2e4 `).
#[test]
fn uci_text_with_spaces_says_so() {
    for text in ["e2e4 ", " e2e4", "e2 e4", "e2e4\n"] {
        let e = UciMove::parse(text).expect_err(text);
        assert!(e.to_string().contains("whitespace"), "{text:?}: {e}");
    }
}

/// Move lists hold `MOVE_LIST_CAPACITY` moves, and a variant whose positions could have more is
/// refused when it loads (was: the moves past 2048 silently dropped, legal moves called illegal).
/// Twelve piece kinds with drops and ten promotion pieces fit; the same with a pawn that rides
/// forward into the last rank (`fQ`) does not.
#[test]
fn variants_whose_move_lists_could_overflow_are_refused() {
    let pieces = "[[piece]]\nletter = \"a\"\nbetza = \"W\"\n[[piece]]\nletter = \"c\"\nbetza = \"F\"\n\
                  [[piece]]\nletter = \"d\"\nbetza = \"D\"\n[[piece]]\nletter = \"e\"\nbetza = \"A\"\n\
                  [[piece]]\nletter = \"f\"\nbetza = \"H\"\n[[piece]]\nletter = \"g\"\nbetza = \"G\"\n";
    let head =
        "parent = \"crazyhouse\"\npromotion = [\"n\", \"b\", \"r\", \"q\", \"a\", \"c\", \"d\", \"e\", \"f\", \"g\"]\n";
    let v = rules::spec::load_variant_str(&format!("name = \"twelve\"\n{head}{pieces}")).expect("fits");
    // A position with many moves: the list and perft agree with a count by destination.
    let pos = Position::from_fen(v, "k7/4P3/8/8/8/8/8/7K[QRBNACDEFGPqrbnacdefgp] w - - 0 1").expect("reads");
    let moves = pos.legal_moves();
    assert!(moves.len() > 500, "{}", moves.len());
    assert_eq!(rules::perft(&pos, 1), moves.len() as u64);
    let wide = format!("name = \"wide\"\n{head}[[piece]]\nletter = \"p\"\nbetza = \"fQ\"\npawn = true\n{pieces}");
    let e = rules::spec::load_variant_str(&wide).expect_err("could overflow");
    assert!(e.to_string().contains("a move list holds"), "{e}");
}

/// The conveniences a shakmaty user looks for: `FromStr` and `Display` on squares and UCI moves,
/// `is_checkmate` and `is_stalemate`.
#[test]
fn squares_uci_moves_and_game_ends_have_the_usual_traits() {
    assert_eq!("e4".parse::<Square>(), Ok(sq("e4")));
    assert!("i9".parse::<Square>().expect_err("no such square").to_string().contains("'i9'"));
    for text in ["e7e8q", "N@f3", "0000", "e2e4"] {
        assert_eq!(text.parse::<UciMove>().expect(text).to_string(), text);
    }
    let mate = Position::from_fen(chess(), "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").expect("reads");
    assert!(mate.is_checkmate() && !mate.is_stalemate());
    let stalemate = Position::from_fen(chess(), "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").expect("reads");
    assert!(stalemate.is_stalemate() && !stalemate.is_checkmate());
    let start = Position::start(chess());
    assert!(!start.is_checkmate() && !start.is_stalemate());
}
