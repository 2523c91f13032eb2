//! Static exchange evaluation: whether a move wins at least a threshold of material once
//! every piece attacking its target square has joined in, cheapest first. Generic over
//! pieces: attackers are recomputed with the exchanged pieces removed, which reveals x-rays.

use crate::eval::Evaluator;
use rules::{Move, MoveKind, Position};

/// Whether the exchange started by `m` gains at least `threshold` centipawns for the mover.
pub fn see_ge(pos: &Position, eval: &Evaluator, m: Move, threshold: i32) -> bool {
    let board = pos.board();
    let to = m.to();
    let (mover_value, captured_value) = match m.kind() {
        MoveKind::Castle | MoveKind::Pass => return threshold <= 0,
        MoveKind::Drop => (m.drop_role().map_or(0, |r| eval.value(r)), 0),
        MoveKind::EnPassant => {
            let p = board.role_at(m.from()).map_or(0, |r| eval.value(r));
            (p, p)
        }
        _ => (board.role_at(m.from()).map_or(0, |r| eval.value(r)), board.role_at(to).map_or(0, |r| eval.value(r))),
    };
    let promo_gain = match m.promotion_role() {
        Some(r) => eval.value(r) - mover_value,
        None => 0,
    };
    let mover_value = mover_value + promo_gain;
    let mut swap = captured_value + promo_gain - threshold;
    if swap < 0 {
        return false;
    }
    swap = mover_value - swap;
    if swap <= 0 {
        return true;
    }
    let mut occ = board.occupied();
    if let Some(from) = m.from_square() {
        occ.clear(from);
    }
    occ.clear(to);
    if m.kind() == MoveKind::EnPassant {
        if let Some(victim) = rules::Square::new(to.file(), m.from().rank()) {
            occ.clear(victim);
        }
    }
    let mut stm = pos.turn();
    let mut res = true;
    loop {
        stm = !stm;
        let attackers = pos.attackers_to(to, stm, occ) & occ;
        if attackers.is_empty() {
            break;
        }
        res = !res;
        // The cheapest attacker joins.
        let mut best = None;
        let mut best_value = i32::MAX;
        for sq in attackers {
            let v = board.role_at(sq).map_or(0, |r| eval.value(r));
            if v < best_value {
                best_value = v;
                best = Some(sq);
            }
        }
        let Some(sq) = best else { break };
        if best_value >= 20_000 {
            // A king may only take last: if the other side still attacks, it cannot.
            let others = pos.attackers_to(to, !stm, occ ^ rules::bitboard::Bitboard::from_square(sq)) & occ;
            return if others.any() { !res } else { res };
        }
        swap = best_value - swap;
        if swap < res as i32 {
            break;
        }
        occ.clear(sq);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::{uci, variants};

    fn see(fen: &str, mv: &str, threshold: i32) -> bool {
        let v = variants::by_name("chess").unwrap();
        let pos = Position::from_fen(v, fen).unwrap();
        let m = uci::parse_uci(&pos, mv).unwrap();
        see_ge(&pos, &Evaluator::new(v), m, threshold)
    }

    #[test]
    fn exchanges() {
        // Rook takes an undefended pawn.
        assert!(see("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100));
        // Knight takes a pawn defended by knight and bishop, with x-ray support behind on
        // both sides: gives a knight for a pawn.
        assert!(!see("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", 1));
        assert!(see("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -300));
        // Quiet queen moves: next to a pawn, and onto a square it attacks.
        assert!(see("4k3/8/8/3p4/8/3Q4/8/4K3 w - - 0 1", "d3d4", 0));
        assert!(!see("4k3/8/8/3p4/8/3Q4/8/4K3 w - - 0 1", "d3e4", 0));
    }
}
