//! Perft: counting the leaves of the legal move tree, the standard test of move generation.
//! Leaves at depth 1 are counted as the length of the legal move list (bulk counting).

use crate::moves::{Move, MoveList};
use crate::position::Position;

/// Number of leaf nodes `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Filled in place: returning an 8 KB move list by value would copy it.
    let mut moves = MoveList::new();
    pos.gen_legal(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &m in &moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        nodes += perft(&child, depth - 1);
    }
    nodes
}

/// Perft split by root move.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, if depth <= 1 { 1 } else { perft(&child, depth - 1) })
        })
        .collect()
}
