//! `Position::gen_captures` yields exactly the legal captures and promotions, and
//! `attacks_by_role` equals the per-piece union, and `gives_check` equals playing the move
//! and asking `is_check`, in every built-in variant (random playouts).

use rand::Rng;
use rules::{variants, MoveKind, MoveList, Position};

#[test]
fn captures_are_the_tactical_subset_of_legal_moves() {
    let mut rng = rules::chance::seeded_rng(7);
    for v in variants::all() {
        for _ in 0..300 {
            let mut pos = Position::start(v);
            for _ in 0..rng.gen_range(0..60) {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
                let mut caps = MoveList::new();
                pos.gen_captures(&mut caps);
                let theirs = pos.board().by_color(!pos.turn());
                let mut expected: Vec<u32> = pos
                    .legal_moves()
                    .iter()
                    .filter(|m| {
                        m.promotion_role().is_some()
                            || m.kind() == MoveKind::EnPassant
                            || (m.kind() == MoveKind::Normal && theirs.contains(m.to()))
                    })
                    .map(|m| m.raw())
                    .collect();
                let mut got: Vec<u32> = caps.iter().map(|m| m.raw()).collect();
                expected.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, expected, "{} in {}", pos.fen(), v.name);
            }
        }
    }
}

#[test]
fn attacks_by_role_is_the_union_of_piece_attacks() {
    let mut rng = rules::chance::seeded_rng(8);
    for v in variants::all() {
        let mut pos = Position::start(v);
        for _ in 0..400 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                pos = Position::start(v);
                continue;
            }
            pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            let occ = pos.board().occupied();
            for c in rules::Color::ALL {
                for r in v.roles() {
                    let mut expected = rules::Bitboard::EMPTY;
                    for sq in pos.board().pieces(c, r) {
                        expected |= pos.attacks(sq, c, r, occ);
                    }
                    assert_eq!(pos.attacks_by_role(c, r, occ), expected, "{} {c:?} role {r:?}", pos.fen());
                }
            }
        }
    }
}

/// Asserts `gives_check` against playing every legal move; returns the checks seen.
fn assert_gives_check(pos: &Position) -> usize {
    let mut checks = 0;
    for &m in &pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        assert_eq!(
            pos.gives_check(m),
            after.is_check(),
            "{} in {} ({})",
            rules::uci::to_uci(pos, m),
            pos.fen(),
            pos.variant().name
        );
        checks += usize::from(after.is_check());
    }
    checks
}

/// Random playouts from `start`, checking every position on the way. One ply in eight
/// is a pass (a failed move in a chance variant), so the side not to move may stand in check.
fn playouts(start: &Position, plies: usize, seed: u64) -> usize {
    let mut rng = rules::chance::seeded_rng(seed);
    let mut pos = start.clone();
    let mut checks = 0;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.halfmoves() > 100 {
            pos = start.clone();
            continue;
        }
        checks += assert_gives_check(&pos);
        if rng.gen_range(0..8) == 0 {
            pos.pass_turn();
        } else {
            pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
        }
    }
    checks
}

#[test]
fn gives_check_agrees_with_playing_the_move() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants/");
    let files = ["customleaper.toml", "losalamos.toml", "nightrider.toml"];
    let mut all: Vec<&'static rules::Variant> = variants::all().to_vec();
    all.extend(files.iter().map(|f| rules::spec::load_variant_file(format!("{root}{f}")).expect(f)));
    for v in all {
        let checks = playouts(&Position::start(v), 3000, 9);
        assert!(checks > 0 || v.king().is_none(), "{}: no checking move seen", v.name);
    }
}

/// The perft suite's positions are rich in pins, discovered checks, promotions and
/// en passant: check them and short playouts from each.
#[test]
fn gives_check_agrees_on_the_perft_suite() {
    let chess = variants::by_name("chess").expect("chess");
    let text = include_str!("../../../tests/data/perftsuite.epd");
    let mut checks = 0;
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let fen = line.split(';').next().expect("fen").trim();
        let pos = Position::from_fen(chess, fen).expect(fen);
        checks += playouts(&pos, 40, i as u64);
    }
    assert!(checks > 100, "only {checks} checking moves seen");
}
