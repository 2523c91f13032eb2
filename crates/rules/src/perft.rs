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

/// [`divide`] that gives up, returning `None`, once `stop` is set (checked at every node two or
/// more plies above the leaves, so a long count ends within moments): for protocol loops that
/// must obey `stop` and `quit` during a long perft.
pub fn divide_until(pos: &Position, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<Vec<(Move, u64)>> {
    fn count(pos: &Position, depth: u32, stop: &std::sync::atomic::AtomicBool) -> Option<u64> {
        if depth <= 2 {
            return Some(perft(pos, depth));
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let mut nodes = 0;
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            nodes += count(&child, depth - 1, stop)?;
        }
        Some(nodes)
    }
    pos.legal_moves()
        .into_iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            Some((m, if depth <= 1 { 1 } else { count(&child, depth - 1, stop)? }))
        })
        .collect()
}

/// A benchmark case: name, variant, FEN and depth (the perft bench's here, the engine's search
/// bench's in `engine::bench`).
#[derive(Debug, Clone, Copy)]
pub struct BenchCase {
    /// Short name.
    pub name: &'static str,
    /// Built-in variant.
    pub variant: &'static str,
    /// The position.
    pub fen: &'static str,
    /// Full depth (perft: the quick run uses one less; search: the bench depth).
    pub depth: u32,
}

/// The fixed positions of `fairylab bench` and `cargo bench --bench perft`.
pub const BENCH: [BenchCase; 4] = [
    BenchCase {
        name: "chess start",
        variant: "chess",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        depth: 6,
    },
    BenchCase {
        name: "kiwipete",
        variant: "chess",
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        depth: 5,
    },
    BenchCase {
        name: "crazyhouse start",
        variant: "crazyhouse",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
        depth: 6,
    },
    BenchCase { name: "gardner start", variant: "gardner", fen: "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1", depth: 8 },
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// The stoppable split counts as [`divide`] does, and gives up once stopped.
    #[test]
    fn divide_until_counts_as_divide_and_stops() {
        let v = crate::variants::by_name("chess").expect("chess");
        let pos = Position::start(v);
        let go = AtomicBool::new(false);
        assert_eq!(divide_until(&pos, 4, &go), Some(divide(&pos, 4)));
        assert_eq!(divide_until(&pos, 2, &go), Some(divide(&pos, 2)));
        let stop = AtomicBool::new(true);
        assert_eq!(divide_until(&pos, 6, &stop), None);
        assert!(divide_until(&pos, 3, &stop).is_some(), "two plies below the root are not checked");
    }
}
