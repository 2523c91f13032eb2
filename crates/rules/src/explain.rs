//! Why a move is not legal, in words a player understands ("white holds no queen", "it would
//! leave white's king in check"), for the refusals of the play server and `play`.

use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::uci::UciMove;

/// Why the move `u` is not legal in `pos` (call it for one that is not): the first reason found
/// of a drop of a piece not held, onto an occupied square or onto a rank a pawn may not take; a
/// move from an empty square or of the opponent's piece; a move the piece cannot make; or one
/// that would leave the mover's king in check (or not take it out of check).
pub fn why_illegal(pos: &Position, u: &UciMove) -> String {
    let v = pos.variant();
    let us = pos.turn();
    let mut pseudo = MoveList::new();
    pos.gen_pseudo(&mut pseudo);
    let same = |m: &Move| match *u {
        UciMove::Pass => m.is_pass(),
        UciMove::Drop { letter, to } => m.drop_role().is_some_and(|r| v.piece(r).letter == letter) && m.to() == to,
        UciMove::Normal { from, to, .. } => {
            !m.is_drop() && !m.is_pass() && m.from() == from && (m.to() == to || pos.castle_uci_to(*m) == to)
        }
    };
    match *u {
        UciMove::Pass => return "passing is not a move here".into(),
        UciMove::Drop { letter, to } => {
            let Some(role) = v.role_by_letter(letter) else {
                return format!("{} has no piece '{letter}'", v.name);
            };
            let name = &v.piece(role).name;
            if !v.drops {
                return format!("{} has no drops", v.name);
            }
            if pos.hand(us).count(role) == 0 {
                return format!("{us} holds no {name}");
            }
            if pos.board().occupied().contains(to) {
                return format!("{to} is not empty");
            }
            if !pseudo.iter().any(same) {
                return if Some(role) == v.pawn() {
                    "a pawn may not be dropped there (not on the first or last rank)".into()
                } else {
                    format!("a {name} may not be dropped on {to}")
                };
            }
        }
        UciMove::Normal { from, promotion, .. } => match pos.board().piece_at(from) {
            None => return format!("there is no piece on {from}"),
            Some(p) if p.color != us => {
                return format!("the {} on {from} is {}'s, and {us} is to move", v.piece(p.role).name, p.color)
            }
            Some(p) => {
                if !pseudo.iter().any(same) {
                    return format!("the {} on {from} cannot move so", v.piece(p.role).name);
                }
                if promotion.is_some() && !pseudo.iter().any(|m| same(m) && m.promotion_role().is_some()) {
                    return "that move is no promotion".into();
                }
                if promotion.is_none() && pseudo.iter().any(|m| same(m) && m.promotion_role().is_some()) {
                    return "a promotion needs its piece (e.g. a q at the end)".into();
                }
            }
        },
    }
    if pos.is_check() {
        format!("{us} is in check, and this move does not end it")
    } else {
        format!("it would leave {us}'s king in check")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variants;

    fn reason(variant: &str, fen: &str, uci: &str) -> String {
        let pos = Position::from_fen(variants::by_name(variant).expect("variant"), fen).expect("FEN");
        let u = UciMove::parse(uci).expect("reads");
        assert!(u.to_move(&pos).is_none(), "{uci} is legal");
        why_illegal(&pos, &u)
    }

    #[test]
    fn each_reason_is_said() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1";
        assert_eq!(reason("crazyhouse", start, "Q@e4"), "white holds no queen");
        let held = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QP] w KQkq - 0 1";
        assert_eq!(reason("crazyhouse", held, "Q@e2"), "e2 is not empty");
        let open = "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1";
        assert!(reason("crazyhouse", open, "P@d8").starts_with("a pawn may not be dropped there"));
        assert_eq!(reason("chess", start, "e3e4"), "there is no piece on e3");
        assert_eq!(reason("chess", start, "e7e5"), "the pawn on e7 is black's, and white is to move");
        assert_eq!(reason("chess", start, "g1g3"), "the knight on g1 cannot move so");
        assert_eq!(reason("chess", start, "Q@e4"), "chess has no drops");
        let pinned = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
        assert_eq!(reason("chess", pinned, "e2d3"), "it would leave white's king in check");
        let checked = "4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1";
        assert_eq!(reason("chess", checked, "a1a3"), "white is in check, and this move does not end it");
        let promoting = "4k3/P7/8/8/8/8/8/4K3 w - - 0 1";
        assert!(reason("chess", promoting, "a7a8").starts_with("a promotion needs its piece"));
    }
}
