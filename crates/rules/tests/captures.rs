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

#[test]
fn gives_check_agrees_with_playing_the_move() {
    let mut rng = rules::chance::seeded_rng(9);
    for v in variants::all() {
        let mut pos = Position::start(v);
        let mut checks = 0;
        for _ in 0..600 {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.halfmoves() > 100 {
                pos = Position::start(v);
                continue;
            }
            for &m in &moves {
                let mut after = pos.clone();
                after.play_unchecked(m);
                assert_eq!(
                    pos.gives_check(m),
                    after.is_check(),
                    "{} {} in {}",
                    rules::uci::to_uci(&pos, m),
                    pos.fen(),
                    v.name
                );
                checks += usize::from(after.is_check());
            }
            pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
        }
        assert!(checks > 0 || v.king().is_none(), "{}: no checking move seen", v.name);
    }
}
