//! Predictor chess's paths (RULINGS § Predictor chess 1 and 5): the squares a moving piece
//! visits, start excluded and target included, as the seed's "all pieces slide" has it.
//!
//! Sliders and pawns visit every square on their line; a knight slides in a **Z** (for a jump
//! two squares along y: one step along y, the sideways step, one more step along y; with the
//! axes swapped for a jump two squares along x); castling is two sub-moves, the king's and the
//! rook's, each with its own path. Paths are what Predictor chess's resolution intersects.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::square::Square;

/// One moving piece's part of a move: where it starts and the squares it visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leg {
    /// The square the piece leaves.
    pub from: Square,
    /// The square it ends on.
    pub to: Square,
    /// Every square visited, `from` excluded and `to` included.
    pub path: Bitboard,
}

/// The legs of `m` (a move of `pos`): one for every move, two for castling (the king's first,
/// then the rook's). A drop or a pass has none.
pub fn legs(pos: &Position, m: Move) -> Vec<Leg> {
    match m.kind() {
        MoveKind::Drop | MoveKind::Pass => Vec::new(),
        MoveKind::Castle => {
            let (from, to) = (m.from(), m.to());
            let mut out = vec![Leg { from, to, path: slide(from, to) }];
            if let Some(c) = pos.variant().castling {
                let side = c.side(to.file());
                if let (Some(rook_from), Some(rook_to)) =
                    (Square::new(c.rook_file[side], from.rank()), Square::new(c.rook_to[side], from.rank()))
                {
                    out.push(Leg { from: rook_from, to: rook_to, path: slide(rook_from, rook_to) });
                }
            }
            out
        }
        MoveKind::Normal | MoveKind::DoubleStep | MoveKind::EnPassant => {
            let (from, to) = (m.from(), m.to());
            let (dx, dy) =
                (i32::from(to.file()) - i32::from(from.file()), i32::from(to.rank()) - i32::from(from.rank()));
            let path = if (dx.abs(), dy.abs()) == (1, 2) || (dx.abs(), dy.abs()) == (2, 1) {
                knight_z(from, dx, dy)
            } else {
                slide(from, to)
            };
            vec![Leg { from, to, path }]
        }
    }
}

/// The squares from `from` (excluded) to `to` (included) along a line, or just `to` when the
/// two are not on one line.
fn slide(from: Square, to: Square) -> Bitboard {
    let (dx, dy) = (i32::from(to.file()) - i32::from(from.file()), i32::from(to.rank()) - i32::from(from.rank()));
    let mut path = Bitboard::from_square(to);
    if dx != 0 && dy != 0 && dx.abs() != dy.abs() {
        return path;
    }
    let n = dx.abs().max(dy.abs());
    for k in 1..n {
        if let Some(sq) = at(from, k * dx.signum(), k * dy.signum()) {
            path.set(sq);
        }
    }
    path
}

/// The knight's Z: along the long axis one step, the sideways step, the last step along the
/// long axis (Ng1-f3: g2, f2, f3; Nb1-d2: c1, c2, d2).
fn knight_z(from: Square, dx: i32, dy: i32) -> Bitboard {
    let (sx, sy) = (dx.signum(), dy.signum());
    let steps = if dy.abs() == 2 { [(0, sy), (sx, sy), (sx, 2 * sy)] } else { [(sx, 0), (sx, sy), (2 * sx, sy)] };
    let mut path = Bitboard::EMPTY;
    for (x, y) in steps {
        if let Some(sq) = at(from, x, y) {
            path.set(sq);
        }
    }
    path
}

fn at(from: Square, dx: i32, dy: i32) -> Option<Square> {
    let (f, r) = (i32::from(from.file()) + dx, i32::from(from.rank()) + dy);
    if (0..8).contains(&f) && (0..8).contains(&r) {
        Square::new(f as u8, r as u8)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uci::parse_uci;

    fn squares(b: Bitboard) -> Vec<String> {
        let mut v: Vec<String> = b.into_iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    fn legs_of(fen: &str, uci: &str) -> Vec<(String, String, Vec<String>)> {
        let chess = crate::variants::by_name("chess").expect("chess");
        let pos = Position::from_fen(chess, fen).expect("valid");
        let m = parse_uci(&pos, uci).expect("legal");
        legs(&pos, m).into_iter().map(|l| (l.from.to_string(), l.to.to_string(), squares(l.path))).collect()
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn the_rulings_examples() {
        // RULINGS 1: Ng1-f3 visits g2, f2, f3; Nb1-d2 (here from a position where d2 is free)
        // visits c1, c2, d2.
        assert_eq!(legs_of(START, "g1f3"), [("g1".into(), "f3".into(), vec!["f2".into(), "f3".into(), "g2".into()])]);
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(legs_of(fen, "b1d2"), [("b1".into(), "d2".into(), vec!["c1".into(), "c2".into(), "d2".into()])]);
        // RULINGS 5: 0-0-0 is the king e1-c1 (d1, c1) and the rook a1-d1 (b1, c1, d1).
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(
            legs_of(fen, "e1c1"),
            [
                ("e1".into(), "c1".into(), vec!["c1".into(), "d1".into()]),
                ("a1".into(), "d1".into(), vec!["b1".into(), "c1".into(), "d1".into()])
            ]
        );
        assert_eq!(legs_of(fen, "e1g1")[1], ("h1".into(), "f1".into(), vec!["f1".into(), "g1".into()]));
    }

    #[test]
    fn sliders_and_pawns_visit_their_line() {
        assert_eq!(legs_of(START, "e2e4")[0].2, ["e3", "e4"]);
        assert_eq!(legs_of(START, "a2a3")[0].2, ["a3"]);
        let fen = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1";
        assert_eq!(legs_of(fen, "a1d4")[0].2, ["b2", "c3", "d4"]);
        assert_eq!(legs_of(fen, "a1a8")[0].2.len(), 7);
        // Knights in the other Z: two along x, with a step down.
        let fen = "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1";
        assert_eq!(legs_of(fen, "d4b3")[0].2, ["b3", "c3", "c4"]);
        assert_eq!(legs_of(fen, "d4c6")[0].2, ["c5", "c6", "d5"]);
    }
}
