//! Probabilistic chess (RULINGS § Probabilistic chess): the destination square's percentage,
//! the king options, failed moves, castling, king capture, the random map, dice fairness, the
//! shrinking board, passes and the ply limit.

use rand::Rng;
use rules::chance::{seeded_rng, Event, KingMoves, Probability};
use rules::outcome::{EndReason, Outcome};
use rules::square_map::{ring, SquareMap, BLOCKED, KING_RANGE, RANDOM_RANGE};
use rules::uci::parse_uci;
use rules::variants::probabilistic::{self, ProbOptions};
use rules::{Bitboard, Color, Geometry, Move, MoveKind, Position, Square, Variant};

fn sq(name: &str) -> Square {
    Square::parse(name).expect("a square")
}

fn variant(king: KingMoves) -> &'static Variant {
    probabilistic::variant(ProbOptions { king, ..ProbOptions::default() })
}

fn success(pos: &Position, m: Move) -> Probability {
    pos.chance(m)
        .outcomes()
        .iter()
        .find(|(e, _)| *e == Event::Success)
        .map_or(Probability::from_integer(0), |(_, p)| *p)
}

/// Random games (every move succeeding or failing at random) under each king option: every
/// move's success probability is its destination's percentage (castling: the king's square),
/// king moves as the option says.
#[test]
fn a_move_succeeds_with_its_destination_squares_percentage() {
    let mut rng = seeded_rng(11);
    let mut seen = [0usize; 3]; // king moves, castlings, other moves
    for king in [KingMoves::Normal, KingMoves::Always, KingMoves::Double] {
        let v = variant(king);
        for game in 0..40 {
            let map = probabilistic::random_map(v, &mut seeded_rng(1000 + game));
            let mut pos = probabilistic::start(v, &map);
            for _ in 0..200 {
                if pos.outcome().is_some() {
                    break;
                }
                let moves = pos.legal_moves();
                for &m in &moves {
                    let pct = u64::from(map.percent(m.to()));
                    let is_king = pos.board().role_at(m.from()) == v.king();
                    let expected = match (is_king, king) {
                        (true, KingMoves::Always) => 100,
                        (true, KingMoves::Double) => (2 * pct).min(100),
                        _ => pct,
                    };
                    assert_eq!(success(&pos, m), Probability::new(expected, 100), "{m:?} in {}", pos.fen());
                    seen[if m.kind() == MoveKind::Castle { 1 } else { usize::from(!is_king) * 2 }] += 1;
                }
                let m = moves[rng.gen_range(0..moves.len())];
                pos.play_event(m, if rng.gen_bool(0.5) { Event::Success } else { Event::Failure });
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 100), "every kind of move was tried: {seen:?}");
}

/// A failed move changes nothing but the turn, the move counters and a lapsed en-passant right.
#[test]
fn a_failed_move_passes_the_turn_and_clears_en_passant() {
    let v = variant(KingMoves::Normal);
    let map = SquareMap::uniform(50);
    let mut pos = probabilistic::start(v, &map);
    for uci in ["e2e4", "a7a6", "e4e5", "d7d5"] {
        let m = parse_uci(&pos, uci).expect("legal");
        pos.play_event(m, Event::Success);
    }
    assert_eq!(pos.ep_square(), Some(sq("d6")), "e5xd6 en passant is possible");
    let before = pos.clone();
    let m = parse_uci(&pos, "e5d6").expect("en passant is legal");
    assert_eq!(m.kind(), MoveKind::EnPassant);
    pos.play_event(m, Event::Failure);
    assert_eq!(pos.board(), before.board(), "nothing moved");
    assert_eq!(pos.turn(), Color::Black);
    assert_eq!(pos.ep_square(), None, "the en-passant right lapsed");
    assert_eq!(pos.castling_rights(), before.castling_rights());
    assert_eq!(pos.hash(), pos.hash_from_scratch());
    assert_eq!(pos.square_map(), map, "the map is the game's");
    // After Black's move White cannot take en passant any more.
    let m = parse_uci(&pos, "h7h6").expect("legal");
    pos.play_event(m, Event::Success);
    assert!(parse_uci(&pos, "e5d6").is_err());
}

/// Castling needs an unmoved king and rook and empty squares between them; attacked squares do
/// not matter (out of, through and into check are all allowed). The king's square decides.
#[test]
fn castling_ignores_attacks_and_uses_the_kings_square() {
    let v = variant(KingMoves::Normal);
    let mut map = SquareMap::uniform(50);
    map.set(sq("g1"), 7);
    map.set(sq("f1"), 93);
    map.set(sq("c1"), 11);
    let fen = |board: &str| format!("{board} w KQ - 0 1 {}", map.write(Bitboard::EMPTY, Geometry::CHESS));
    // Black rooks attack e1 (check), f1 and d1, and g1 and c1 (the destinations).
    for board in ["4r2k/8/8/8/8/8/8/R3K2R", "5r1k/8/8/8/8/8/8/R3K2R", "2r3rk/8/8/8/8/8/8/R3K2R"] {
        let pos = Position::from_fen(v, &fen(board)).expect("valid");
        let short = parse_uci(&pos, "e1g1").expect("short castling is legal");
        let long = parse_uci(&pos, "e1c1").expect("long castling is legal");
        assert_eq!((short.kind(), long.kind()), (MoveKind::Castle, MoveKind::Castle));
        assert_eq!(success(&pos, short), Probability::new(7, 100), "the king's destination g1");
        assert_eq!(success(&pos, long), Probability::new(11, 100));
    }
    // A piece in between, or a right lost, forbids it.
    let pos = Position::from_fen(v, &fen("4k3/8/8/8/8/8/8/RN2K1NR")).expect("valid");
    assert!(parse_uci(&pos, "e1g1").is_err() && parse_uci(&pos, "e1c1").is_err());
    let pos = Position::from_fen(v, &fen("4k3/8/8/8/8/8/8/R3K2R").replace(" KQ ", " K ")).expect("valid");
    assert!(parse_uci(&pos, "e1g1").is_ok() && parse_uci(&pos, "e1c1").is_err());
}

/// Moving into check and leaving the king attacked are legal; taking the king wins at once.
#[test]
fn capturing_the_king_ends_the_game() {
    let v = variant(KingMoves::Normal);
    let map = SquareMap::uniform(40).to_string();
    let pos = Position::from_fen(v, &format!("4k3/8/8/8/8/8/4q3/4K3 w - - 0 1 {map}")).expect("valid");
    assert_eq!(pos.outcome(), None, "check is no game end");
    let moves: Vec<String> = pos.legal_moves().iter().map(|&m| rules::uci::to_uci(&pos, m)).collect();
    assert_eq!(moves.len(), 5, "every king move, into check too: {moves:?}");
    // White moves next to the queen; Black takes the king.
    let mut after = pos.clone();
    after.play_event(parse_uci(&pos, "e1d1").expect("legal"), Event::Success);
    let capture = parse_uci(&after, "e2d1").expect("the queen may take the king");
    let mut end = after.clone();
    end.play_event(capture, Event::Success);
    assert_eq!(end.outcome(), Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::KingCaptured }));
    assert!(end.legal_moves().is_empty(), "nothing is played after the king is taken");
    // The capture can fail: then the game goes on and White may take the queen.
    let mut failed = after.clone();
    failed.play_event(capture, Event::Failure);
    assert_eq!(failed.outcome(), None);
    assert!(parse_uci(&failed, "d1e2").is_ok());
}

/// 100,000 random maps: every square in 5..=99, the kings' start squares in 20..=99, and every
/// value of each range drawn.
#[test]
fn random_maps_respect_the_rulings_ranges() {
    let v = variant(KingMoves::Normal);
    let mut rng = seeded_rng(2026);
    let kings = [sq("e1"), sq("e8")];
    let (mut plain_seen, mut king_seen) = ([false; 101], [false; 101]);
    for _ in 0..100_000 {
        let map = probabilistic::random_map(v, &mut rng);
        for s in v.geometry.mask() {
            let p = map.percent(s);
            if kings.contains(&s) {
                assert!(KING_RANGE.contains(&p), "king square {s}: {p}");
                king_seen[usize::from(p)] = true;
            } else {
                assert!(RANDOM_RANGE.contains(&p), "{s}: {p}");
                plain_seen[usize::from(p)] = true;
            }
        }
    }
    assert!(RANDOM_RANGE.into_iter().all(|p| plain_seen[usize::from(p)]));
    assert!(KING_RANGE.into_iter().all(|p| king_seen[usize::from(p)]));
}

/// 1,000,000 seeded rolls on squares of 5, 37 and 99 %: the observed success rate lies within
/// four standard errors of the square's percentage.
#[test]
fn dice_are_fair() {
    let v = variant(KingMoves::Normal);
    for (target, pct) in [("e3", 5u8), ("d3", 37), ("c3", 99)] {
        let mut map = SquareMap::uniform(50);
        map.set(sq(target), pct);
        let pos = probabilistic::start(v, &map);
        let from = match target {
            "e3" => "e2",
            "d3" => "d2",
            _ => "c2",
        };
        let m = parse_uci(&pos, &format!("{from}{target}")).expect("legal");
        let mut rng = seeded_rng(u64::from(pct));
        let n = 1_000_000u32;
        let mut hits = 0u32;
        for _ in 0..n {
            let mut p = pos.clone();
            if p.play_sampled(m, &mut rng) == Event::Success {
                hits += 1;
            }
        }
        let p = f64::from(pct) / 100.0;
        let se = (p * (1.0 - p) / f64::from(n)).sqrt();
        let observed = f64::from(hits) / f64::from(n);
        assert!((observed - p).abs() <= 4.0 * se, "{pct} %: observed {observed}, 4 SE = {}", 4.0 * se);
    }
}

/// The map is part of the FEN, the position's identity and its hash.
#[test]
fn the_map_is_in_the_fen_and_the_hash() {
    let v = variant(KingMoves::Normal);
    let a = probabilistic::start(v, &probabilistic::random_map(v, &mut seeded_rng(1)));
    let b = probabilistic::start(v, &probabilistic::random_map(v, &mut seeded_rng(2)));
    assert_ne!(a.hash(), b.hash());
    assert_ne!(a, b);
    for pos in [&a, &b] {
        let back = Position::from_fen(v, &pos.fen()).expect("its own FEN");
        assert_eq!(&back, pos);
        assert_eq!(back.hash(), pos.hash());
    }
    assert_eq!(Position::start(v).square_map(), probabilistic::start_map(), "the listed start position's map");
}

/// The shrinking board: after 40 plies without a capture the outer ring closes (nothing may move
/// onto it, pieces on it may leave); a capture restarts the count; the innermost ring stays open.
#[test]
fn the_board_shrinks_after_forty_plies_without_a_capture() {
    let v = probabilistic::variant(ProbOptions { shrinking: true, ..ProbOptions::default() });
    let map = SquareMap::uniform(50).to_string();
    let mut pos = Position::from_fen(v, &format!("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 {map}")).expect("valid");
    let shuffle = ["a1a2", "e8d8", "a2a1", "d8e8"];
    for i in 0..39 {
        let m = parse_uci(&pos, shuffle[i % 4]).expect("legal");
        pos.play_event(m, Event::Success);
    }
    assert!(pos.blocked().is_empty(), "39 plies");
    // A failed move is a ply too.
    let m = parse_uci(&pos, shuffle[39 % 4]).expect("legal");
    pos.play_event(m, Event::Failure);
    assert_eq!(pos.blocked(), ring(Geometry::CHESS, 0), "the outer ring closed after 40 plies");
    assert_eq!(pos.halfmoves(), 0);
    assert_eq!(pos.hash(), pos.hash_from_scratch());
    assert!(Position::from_fen(v, &pos.fen()).is_ok_and(|p| p == pos), "blocked squares survive the FEN");
    // The king on the closed ring may leave it; the rook in the corner cannot (each of its
    // squares is on the ring), though sliders may pass over closed squares.
    let moves: Vec<String> = pos.legal_moves().iter().map(|&m| rules::uci::to_uci(&pos, m)).collect();
    assert_eq!(moves, ["e1d2", "e1e2", "e1f2"]);
    let ringed = format!(
        "4k3/8/8/8/8/8/1R6/4K3 w - - 0 1 {}",
        SquareMap::uniform(50).write(ring(Geometry::CHESS, 0), Geometry::CHESS)
    );
    let rook = Position::from_fen(v, &ringed).expect("valid");
    assert!(parse_uci(&rook, "b2b7").is_ok() && parse_uci(&rook, "b2b8").is_err() && parse_uci(&rook, "b2a2").is_err());
    // Rings close every 40 plies until only the centre is left.
    let mut plies = 0;
    while !ring(Geometry::CHESS, 2).intersects(pos.blocked()) && plies < 200 {
        let moves = pos.legal_moves();
        pos.play_event(moves[0], Event::Failure);
        plies += 1;
    }
    assert_eq!(plies, 80, "two more rings after 80 more plies");
    for _ in 0..200 {
        pos.play_event(pos.legal_moves()[0], Event::Failure);
    }
    assert!(!ring(Geometry::CHESS, 3).intersects(pos.blocked()), "the centre never closes");
    for k in 0..3 {
        assert!(ring(Geometry::CHESS, k).into_iter().all(|s| pos.square_state(s) & BLOCKED != 0));
    }
}

/// A side without any move passes (`Move::PASS`, UCI `0000`, SAN `--`); no stalemate.
#[test]
fn a_side_without_moves_passes() {
    // On a shrunken board: the white king in the corner, its pawn blocked, no capture open.
    let v = probabilistic::variant(ProbOptions { shrinking: true, ..ProbOptions::default() });
    let map = SquareMap::uniform(50).write(ring(Geometry::CHESS, 0), Geometry::CHESS);
    let pos = Position::from_fen(v, &format!("4k3/8/8/8/8/1p6/1P6/K7 w - - 0 1 {map}")).expect("valid");
    assert_eq!(pos.legal_moves().as_slice(), &[Move::PASS]);
    assert_eq!(pos.outcome(), None, "no stalemate");
    assert_eq!(rules::uci::to_uci(&pos, Move::PASS), "0000");
    assert_eq!(rules::san::to_san(&pos, Move::PASS), "--");
    assert_eq!(parse_uci(&pos, "0000"), Ok(Move::PASS));
    assert_eq!(rules::san::parse_san(&pos, "--"), Ok(Move::PASS));
    assert_eq!(pos.chance(Move::PASS).outcomes(), &[(Event::Success, Probability::from_integer(1))]);
    let mut after = pos.clone();
    after.play_unchecked(Move::PASS);
    assert_eq!((after.turn(), after.board()), (Color::Black, pos.board()));
    // Where a move exists, passing is not legal; and chess has no pass at all.
    let start = Position::start(v);
    assert!(parse_uci(&start, "0000").is_err());
    let chess = rules::variants::by_name("chess").expect("chess");
    assert!(parse_uci(&Position::start(chess), "0000").is_err());
}

/// At the ply limit the side with more material (1/3/3/5/9) wins; equal material is a draw.
#[test]
fn the_ply_limit_adjudicates_on_material() {
    let v = probabilistic::variant(ProbOptions { ply_limit: 10, ..ProbOptions::default() });
    let map = SquareMap::uniform(50).to_string();
    let at = |board: &str, full: u32, turn: &str| {
        Position::from_fen(v, &format!("{board} {turn} - - 0 {full} {map}")).expect("valid")
    };
    assert_eq!(at("4k3/8/8/8/8/8/8/R3K3", 5, "b").outcome(), None, "ply 9");
    assert_eq!(
        at("4k3/8/8/8/8/8/8/R3K3", 6, "w").outcome(),
        Some(Outcome::Decisive { winner: Color::White, reason: EndReason::PlyLimit })
    );
    assert_eq!(
        at("4k3/1nb5/8/8/8/8/8/R3K3", 6, "w").outcome(),
        Some(Outcome::Decisive { winner: Color::Black, reason: EndReason::PlyLimit }),
        "knight and bishop (6) beat a rook (5)"
    );
    assert_eq!(at("4k3/ppp5/8/8/8/8/8/N3K3", 6, "w").outcome(), Some(Outcome::Draw { reason: EndReason::PlyLimit }));
    assert_eq!(ProbOptions::default().ply_limit, 1000);
    let listed = rules::variants::by_name("probabilistic").expect("listed");
    assert_eq!(listed.ply_limit, Some(1000));
}

/// Any ply limit is a variant by its name (`-plies-N`, `-plies-0` for none), as RULES.md says,
/// the same variant as built from its options; malformed names are unknown.
#[test]
fn ply_limits_are_variants_by_name() {
    let by_name = rules::variants::by_name;
    let ten = by_name("probabilistic-plies-10").expect("a ply limit by name");
    assert!(std::ptr::eq(ten, probabilistic::variant(ProbOptions { ply_limit: 10, ..ProbOptions::default() })));
    assert_eq!(ten.ply_limit, Some(10));
    assert_eq!(by_name("probabilistic-plies-0").expect("no limit").ply_limit, None);
    let v = by_name("PROBABILISTIC-KING-DOUBLE-SHRINKING-PLIES-300").expect("every option");
    assert_eq!(v.name, "probabilistic-king-double-shrinking-plies-300");
    assert!(v.shrink_after.is_some());
    assert_eq!(by_name("probabilistic-plies-1000").map(|v| v.name.as_str()), Some("probabilistic"));
    for bad in [
        "probabilistic-plies-",
        "probabilistic-plies-010",
        "probabilistic-plies--1",
        "probabilistic-plies-4x",
        "probabilistic-plies-100001",
        "probabilistic-shrinking-king-double",
        "probabilistic-plies-10-shrinking",
        "probabilisticx",
    ] {
        assert!(by_name(bad).is_none(), "{bad}");
    }
}
