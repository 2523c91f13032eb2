//! The bench: a fixed list of positions from several variants searched to fixed depths
//! from a fresh table. Its total node count is the bench signature: any change to search
//! or evaluation behaviour changes it, and nothing else may.

use crate::engine::Engine;
use crate::time::Limits;
pub use rules::perft::BenchCase;
use rules::{variants, Position};
use std::time::Duration;

/// The bench positions.
pub const BENCH: &[BenchCase] = &[
    BenchCase {
        name: "chess-start",
        variant: "chess",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        depth: 13,
    },
    BenchCase {
        name: "chess-kiwipete",
        variant: "chess",
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        depth: 11,
    },
    BenchCase {
        name: "chess-italian",
        variant: "chess",
        fen: "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQK2R b KQkq - 0 5",
        depth: 12,
    },
    BenchCase {
        name: "chess-middlegame",
        variant: "chess",
        fen: "r2q1rk1/pp2bppp/2n1bn2/3p4/3P4/2NBBN2/PP3PPP/R2Q1RK1 w - - 4 11",
        depth: 12,
    },
    BenchCase { name: "chess-rook-ending", variant: "chess", fen: "8/5pk1/6p1/R7/5P2/6PK/r7/8 w - - 0 40", depth: 16 },
    BenchCase { name: "chess-pawn-race", variant: "chess", fen: "8/2k5/8/1p6/8/6P1/5K2/8 w - - 0 1", depth: 18 },
    BenchCase {
        name: "crazyhouse-start",
        variant: "crazyhouse",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
        depth: 9,
    },
    BenchCase {
        name: "crazyhouse-drops",
        variant: "crazyhouse",
        fen: "r1bqk2r/pppp1ppp/2n2n2/4p3/1bB1P3/2N2N2/PPPP1PPP/R1BQK2R[] w KQkq - 4 5",
        depth: 8,
    },
    BenchCase { name: "gardner-start", variant: "gardner", fen: "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1", depth: 14 },
    BenchCase {
        name: "coinflip-start",
        variant: "coinflip",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        depth: 4,
    },
];

/// The result of one bench position.
#[derive(Debug, Clone)]
pub struct BenchLine {
    /// The case.
    pub case: BenchCase,
    /// Depth searched.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
}

/// Runs the bench, `depth_offset` plies shallower or deeper than listed, calling `each`
/// after every position.
pub fn run(depth_offset: i32, mut each: impl FnMut(&BenchLine)) -> Vec<BenchLine> {
    let mut out = Vec::new();
    for case in BENCH {
        let Some(v) = variants::by_name(case.variant) else { continue };
        let Ok(pos) = Position::from_fen(v, case.fen) else { continue };
        let line = search_case(case, pos, depth_offset);
        each(&line);
        out.push(line);
    }
    out
}

/// Searches one case's position to its depth (plus `depth_offset`) with a fresh engine: the
/// signature must not depend on order or history.
fn search_case(case: &BenchCase, pos: Position, depth_offset: i32) -> BenchLine {
    let depth = (case.depth as i32 + depth_offset).max(1) as u32;
    let mut engine = Engine::with_hash(16);
    let r = engine.search(pos, &[], Limits::depth(depth), |_| {});
    BenchLine { case: *case, depth, nodes: r.nodes, time: r.time }
}

/// The Probabilistic chess bench (`fairylab bench --probabilistic`): positions with the random
/// map drawn from a fixed seed, searched by the expectimax player (chance nodes at every ply).
pub const PROBABILISTIC: &[(BenchCase, u64)] = &[
    (
        BenchCase {
            name: "prob-start",
            variant: "probabilistic",
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            depth: 8,
        },
        0,
    ),
    (
        BenchCase {
            name: "prob-italian",
            variant: "probabilistic",
            fen: "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQK2R b KQkq - 0 5",
            depth: 7,
        },
        1,
    ),
    (
        BenchCase {
            name: "prob-middlegame",
            variant: "probabilistic",
            fen: "r2q1rk1/pp2bppp/2n1bn2/3p4/3P4/2NBBN2/PP3PPP/R2Q1RK1 w - - 4 11",
            depth: 7,
        },
        2,
    ),
    (
        BenchCase {
            name: "prob-king-hunt",
            variant: "probabilistic",
            fen: "r1b2rk1/ppp2ppp/2n5/3qp3/3P4/2P2N2/P4PPP/R1BQKB1R w KQ - 0 10",
            depth: 7,
        },
        3,
    ),
    (
        BenchCase {
            name: "prob-king-double",
            variant: "probabilistic-king-double",
            fen: "8/5pk1/6p1/R7/5P2/6PK/r7/8 w - - 0 40",
            depth: 10,
        },
        4,
    ),
];

/// Runs the Probabilistic chess bench, `depth_offset` plies shallower or deeper than listed.
pub fn run_probabilistic(depth_offset: i32, mut each: impl FnMut(&BenchLine)) -> Vec<BenchLine> {
    let mut out = Vec::new();
    for (case, map_seed) in PROBABILISTIC {
        let Some(v) = variants::by_name(case.variant) else { continue };
        let map = variants::probabilistic::random_map(v, &mut rules::chance::seeded_rng(*map_seed));
        let Ok(pos) = Position::from_fen(v, &format!("{} {map}", case.fen)) else { continue };
        let line = search_case(case, pos, depth_offset);
        each(&line);
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn probabilistic_bench_positions_load() {
        assert_eq!(super::run_probabilistic(-6, |_| {}).len(), super::PROBABILISTIC.len());
    }
}
