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
                    let name = &v.piece(p.role).name;
                    let to = match *u {
                        UciMove::Normal { to, .. } => to,
                        _ => from,
                    };
                    // Baby Chess's two rules, named (the column-switch limit, no backward moves).
                    let limit = pos.switch_limit();
                    if limit > 0 && to.file() != from.file() && pos.switches_at(from) >= limit {
                        return format!(
                            "the {name} on {from} has switched columns {limit} times: it may only move within its column"
                        );
                    }
                    let ahead = |sq: crate::Square| match us {
                        crate::Color::White => i32::from(sq.rank()),
                        crate::Color::Black => -i32::from(sq.rank()),
                    };
                    let backwards = pos
                        .attacks(from, us, p.role, crate::Bitboard::EMPTY)
                        .into_iter()
                        .filter(|&t| ahead(t) < ahead(from))
                        .count()
                        > 0
                        || pseudo.iter().any(|m| !m.is_drop() && m.from() == from && ahead(m.to()) < ahead(from));
                    if Some(p.role) != v.pawn() && ahead(to) < ahead(from) && !backwards {
                        return format!("the {name} on {from} cannot move so: no piece moves backwards in {}", v.name);
                    }
                    return format!("the {name} on {from} cannot move so");
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
    check_reason(pos)
}

/// The reason left for a move its piece can make: the mover's king stays or comes in check.
fn check_reason(pos: &Position) -> String {
    let us = pos.turn();
    if pos.is_check() {
        format!("{us} is in check, and this move does not end it")
    } else {
        format!("it would leave {us}'s king in check")
    }
}

/// Why the text `text` (UCI or SAN, as a player types it) is not a legal move in `pos` (call it
/// for one that is not): [`why_illegal`] for well-formed UCI; for SAN the same reasons for the
/// move it names, or that no piece of the kind can reach the square, or which moves it could
/// mean when it is ambiguous; for anything else, how moves are written.
pub fn why_not(pos: &Position, text: &str) -> String {
    use crate::san::{read_san, SanForm};
    let text = text.trim();
    if let Ok(u) = UciMove::parse(text) {
        if u.to_move(pos).is_none() {
            return why_illegal(pos, &u);
        }
    }
    let Ok(form) = read_san(pos, text) else {
        return if pos.variant().drops {
            "it is neither UCI (e2e4, e7e8q, Q@f2) nor SAN (e4, Nf3, exd5, e8=Q, O-O, Q@f2)".into()
        } else {
            "it is neither UCI (e2e4, e7e8q) nor SAN (e4, Nf3, exd5, e8=Q, O-O)".into()
        };
    };
    let v = pos.variant();
    let us = pos.turn();
    let mut legal = MoveList::new();
    pos.gen_legal(&mut legal);
    let meant: Vec<String> =
        legal.iter().filter(|&&m| form.names(pos, m, true)).map(|&m| crate::san::to_san(pos, m)).collect();
    if meant.len() > 1 {
        return format!("it is ambiguous: {}", meant.join(" or "));
    }
    let mut pseudo = MoveList::new();
    pos.gen_pseudo(&mut pseudo);
    let candidates: Vec<Move> = pseudo.iter().copied().filter(|&m| form.names(pos, m, false)).collect();
    match form {
        SanForm::Pass => return "passing is not a move here".into(),
        SanForm::Castle(king_side) if candidates.is_empty() => {
            let side = if king_side { "king" } else { "queen" };
            return format!("{us} cannot castle {side}side here (the right is gone, or pieces stand between)");
        }
        SanForm::Drop(role, to) => return why_illegal(pos, &UciMove::Drop { letter: v.piece(role).letter, to }),
        SanForm::Piece { role, to, promotion, .. } => {
            let name = role.map_or("piece", |r| v.piece(r).name.as_str());
            if candidates.is_empty() {
                return match role {
                    Some(r) if pos.board().pieces(us, r).is_empty() => format!("{us} has no {name}"),
                    _ => format!("no {us} {name} can move to {to}"),
                };
            }
            let promotes = candidates.iter().any(|m| m.promotion_role().is_some());
            if promotion.is_none() && promotes {
                return format!("a promotion needs its piece (e.g. {to}=Q)");
            }
            if promotion.is_some() && !promotes {
                return "that move is no promotion".into();
            }
            if promotion.is_some() && !candidates.iter().any(|m| m.promotion_role() == promotion) {
                return format!("a {name} may not promote to that piece here");
            }
        }
        SanForm::Castle(_) => {}
    }
    check_reason(pos)
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
        // Baby Chess: the column-switch limit and no backward moves, each named.
        let switched = "k4/5/2R{5}2/5/4K w - - 0 1";
        assert_eq!(
            reason("baby", switched, "c3d3"),
            "the rook on c3 has switched columns 5 times: it may only move within its column"
        );
        assert_eq!(reason("baby", switched, "c3c2"), "the rook on c3 cannot move so: no piece moves backwards in baby");
        assert_eq!(
            reason("baby", "5/k4/5/3K1/5 b - - 0 1", "a4a5"),
            "the king on a4 cannot move so: no piece moves backwards in baby"
        );
    }

    fn san_reason(variant: &str, fen: &str, text: &str) -> String {
        let pos = Position::from_fen(variants::by_name(variant).expect("variant"), fen).expect("FEN");
        assert!(crate::san::parse_san(&pos, text).is_err(), "{text} is legal");
        why_not(&pos, text)
    }

    #[test]
    fn each_reason_is_said_for_san() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(san_reason("chess", start, "e5"), "no white pawn can move to e5");
        assert_eq!(san_reason("chess", start, "Nd4"), "no white knight can move to d4");
        assert_eq!(
            san_reason("chess", start, "O-O"),
            "white cannot castle kingside here (the right is gone, or pieces stand between)"
        );
        assert_eq!(san_reason("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "Qd4"), "white has no queen");
        assert_eq!(
            san_reason("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "hello"),
            "it is neither UCI (e2e4, e7e8q) nor SAN (e4, Nf3, exd5, e8=Q, O-O)"
        );
        assert_eq!(
            san_reason("crazyhouse", "4k3/8/8/8/8/8/8/4K3[] w - - 0 1", "hello"),
            "it is neither UCI (e2e4, e7e8q, Q@f2) nor SAN (e4, Nf3, exd5, e8=Q, O-O, Q@f2)"
        );
        assert_eq!(
            san_reason("chess", "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1", "Bd3"),
            "it would leave white's king in check"
        );
        assert_eq!(
            san_reason("chess", "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8"),
            "a promotion needs its piece (e.g. a8=Q)"
        );
        assert_eq!(san_reason("chess", "4k3/8/8/8/8/8/8/1N1K1N2 w - - 0 1", "Nd2"), "it is ambiguous: Nbd2 or Nfd2");
        assert_eq!(san_reason("crazyhouse", "4k3/8/8/8/8/8/8/4K3[] w - - 0 1", "Q@e4"), "white holds no queen");
        assert_eq!(san_reason("chess", start, "e3e4"), "there is no piece on e3");
        // Baby Chess: Kd1 leaves the king in check (the audit's case).
        assert_eq!(
            san_reason("baby", "1k1q1/5/2R{5}2/5/Q{4}3K w - - 0 1", "Kd1"),
            "it would leave white's king in check"
        );
    }
}
