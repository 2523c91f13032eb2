//! Perft speed of fairylab against shakmaty, side by side in one process, single-threaded.
//! Both count leaves the same way (bulk counting: the legal move list's length at depth 1).
//!
//! Run with `cargo bench -p fairylab-rules --bench perft` (add `-- quick` for shallower depths).

use shakmaty::{CastlingMode, Chess};
use std::time::Instant;

fn shak_perft<P: shakmaty::Position + Clone>(pos: &P, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut n = 0;
    for m in &moves {
        let mut child = pos.clone();
        child.play_unchecked(*m);
        n += shak_perft(&child, depth - 1);
    }
    n
}

fn best_of<F: FnMut() -> u64>(runs: u32, mut f: F) -> (u64, f64) {
    let mut best = f64::MAX;
    let mut nodes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        nodes = std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    (nodes, best)
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let runs = if quick { 1 } else { 3 };
    println!(
        "{:<18} {:>5} {:>13} {:>10} {:>12} {:>12} {:>7}",
        "position", "depth", "leaves", "ours s", "ours M/s", "shakmaty M/s", "ratio"
    );
    for case in rules::perft::BENCH {
        let (name, variant, fen, depth) = (case.name, case.variant, case.fen, case.depth);
        let depth = if quick { depth - 1 } else { depth };
        let v = rules::variants::by_name(variant).expect("built-in variant");
        let ours = rules::Position::from_fen(v, fen).expect("valid FEN");
        let (n, t) = best_of(runs, || rules::perft(&ours, depth));
        let mps = n as f64 / t / 1e6;
        let shak = match variant {
            "chess" => {
                let setup: shakmaty::fen::Fen = fen.parse().expect("shakmaty FEN");
                let p: Chess = setup.into_position(CastlingMode::Standard).expect("shakmaty position");
                Some(best_of(runs, || shak_perft(&p, depth)))
            }
            "crazyhouse" => {
                let setup: shakmaty::fen::Fen = fen.parse().expect("shakmaty FEN");
                let p: shakmaty::variant::Crazyhouse =
                    setup.into_position(CastlingMode::Standard).expect("shakmaty position");
                Some(best_of(runs, || shak_perft(&p, depth)))
            }
            _ => None,
        };
        match shak {
            Some((sn, st)) => {
                assert_eq!(sn, n, "{name}: shakmaty and fairylab disagree");
                let smps = sn as f64 / st / 1e6;
                println!("{name:<18} {depth:>5} {n:>13} {t:>10.3} {mps:>12.1} {smps:>12.1} {:>6.2}x", mps / smps);
            }
            None => println!("{name:<18} {depth:>5} {n:>13} {t:>10.3} {mps:>12.1} {:>12} {:>7}", "-", "-"),
        }
    }
}
