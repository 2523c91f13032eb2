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

/// Best time of each side over `runs` rounds, the two sides alternating within a round so
/// that a slow spell of the machine (this VM varies by ±25 %) hits both alike.
fn best_of_interleaved(
    runs: u32,
    mut ours: impl FnMut() -> u64,
    mut theirs: Option<&mut dyn FnMut() -> u64>,
) -> [(u64, f64); 2] {
    let mut best = [(0, f64::MAX), (0, f64::MAX)];
    let time = |f: &mut dyn FnMut() -> u64, slot: &mut (u64, f64)| {
        let t = Instant::now();
        let n = std::hint::black_box(f());
        *slot = (n, slot.1.min(t.elapsed().as_secs_f64()));
    };
    for _ in 0..runs {
        let [a, b] = &mut best;
        time(&mut ours, a);
        if let Some(f) = theirs.as_deref_mut() {
            time(f, b);
        }
    }
    best
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let runs = if quick { 1 } else { 5 };
    println!(
        "{:<18} {:>5} {:>13} {:>10} {:>12} {:>12} {:>7}",
        "position", "depth", "leaves", "ours s", "ours M/s", "shakmaty M/s", "ratio"
    );
    for case in rules::perft::BENCH {
        let (name, variant, fen, depth) = (case.name, case.variant, case.fen, case.depth);
        let depth = if quick { depth - 1 } else { depth };
        let v = rules::variants::by_name(variant).expect("built-in variant");
        let ours = rules::Position::from_fen(v, fen).expect("valid FEN");
        let ours_run = || rules::perft(&ours, depth);
        let results = match variant {
            "chess" => {
                let setup: shakmaty::fen::Fen = fen.parse().expect("shakmaty FEN");
                let p: Chess = setup.into_position(CastlingMode::Standard).expect("shakmaty position");
                best_of_interleaved(runs, ours_run, Some(&mut || shak_perft(&p, depth)))
            }
            "crazyhouse" => {
                let setup: shakmaty::fen::Fen = fen.parse().expect("shakmaty FEN");
                let p: shakmaty::variant::Crazyhouse =
                    setup.into_position(CastlingMode::Standard).expect("shakmaty position");
                best_of_interleaved(runs, ours_run, Some(&mut || shak_perft(&p, depth)))
            }
            _ => best_of_interleaved(runs, ours_run, None),
        };
        let [(n, t), (sn, st)] = results;
        let mps = n as f64 / t / 1e6;
        let shak = (st < f64::MAX).then_some((sn, st));
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
