//! MultiPV and root-move restriction (`searchmoves`) against per-move minimax: with pruning
//! that reads no evaluation, each line's value is the exact value of its root move.

use engine::{Engine, Limits, SearchParams};
use rules::{variants, Position};

/// Positions from the shared perft suite and Win At Chess (quiet and tactical).
const FENS: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
];

fn exact_engine() -> Engine {
    let chess = variants::by_name("chess").expect("chess is built in");
    let mut e = Engine::with_hash(4);
    e.set_params(Some(SearchParams::exact(chess)));
    e
}

#[test]
fn multipv_lines_are_the_best_root_moves_by_their_own_values() {
    let chess = variants::by_name("chess").unwrap();
    let depth = 3;
    for fen in FENS {
        let pos = Position::from_fen(chess, fen).unwrap();
        let mut e = exact_engine();
        // Each root move alone: its exact value at this depth.
        let mut each: Vec<(i32, rules::Move)> = pos
            .legal_moves()
            .into_iter()
            .map(|m| {
                e.clear();
                e.set_search_moves(vec![m]);
                let r = e.search(pos.clone(), &[], Limits::depth(depth), |_| {});
                assert_eq!(r.best, Some(m), "{fen}: searchmoves {m:?} played {:?}", r.best);
                (r.value, m)
            })
            .collect();
        each.sort_by_key(|&(v, _)| -v);
        e.set_search_moves(Vec::new());
        for lines in [1, 4] {
            e.clear();
            e.set_multipv(lines);
            let r = e.search(pos.clone(), &[], Limits::depth(depth), |_| {});
            assert_eq!(r.lines.len(), lines.min(each.len()), "{fen}");
            let got: Vec<i32> = r.lines.iter().map(|l| l.value).collect();
            let want: Vec<i32> = each.iter().take(lines).map(|&(v, _)| v).collect();
            assert_eq!(got, want, "{fen}: MultiPV {lines} values");
            for l in &r.lines {
                let m = l.pv[0];
                let own = each.iter().find(|&&(_, x)| x == m).unwrap().0;
                assert_eq!(l.value, own, "{fen}: line {m:?} has another value than its move alone");
            }
            assert_eq!(r.best, Some(r.lines[0].pv[0]));
            assert_eq!(r.value, r.lines[0].value);
        }
    }
}

#[test]
fn more_lines_than_moves_report_every_move_once() {
    let chess = variants::by_name("chess").unwrap();
    // The black king has three moves.
    let pos = Position::from_fen(chess, "7k/8/8/8/8/8/8/K6R b - - 0 1").unwrap();
    let mut e = exact_engine();
    e.set_multipv(10);
    let r = e.search(pos.clone(), &[], Limits::depth(3), |_| {});
    let mut firsts: Vec<rules::Move> = r.lines.iter().map(|l| l.pv[0]).collect();
    firsts.sort_by_key(|m| m.raw());
    let mut legal = pos.legal_moves().to_vec();
    legal.sort_by_key(|m| m.raw());
    assert_eq!(firsts, legal);
}

#[test]
fn a_search_stopped_mid_iteration_keeps_its_lines_consistent() {
    // Node budgets that stop the search inside an iteration, at the first line or a later one.
    let chess = variants::by_name("chess").unwrap();
    let mut stopped = 0;
    for fen in FENS {
        let pos = Position::from_fen(chess, fen).unwrap();
        let budgets = (0..40u64).map(|i| 300 + i * i * 37);
        for (lines, nodes) in budgets.flat_map(|n| [(1, n), (3, n)]) {
            let mut e = Engine::with_hash(4);
            e.set_multipv(lines);
            let r = e.search(pos.clone(), &[], Limits::nodes(nodes), |_| {});
            assert!(!r.lines.is_empty() && r.lines.len() <= lines, "{fen}: {r:?}");
            assert_eq!((r.lines[0].value, &r.lines[0].pv), (r.value, &r.pv), "{fen}: {lines} lines, {nodes} nodes");
            assert_eq!(r.best, r.pv.first().copied());
            let mut firsts: Vec<u32> = r.lines.iter().map(|l| l.pv[0].raw()).collect();
            firsts.sort_unstable();
            firsts.dedup();
            assert_eq!(firsts.len(), r.lines.len(), "{fen}: the same move twice in {:?}", r.lines);
            stopped += usize::from(r.nodes >= nodes);
        }
    }
    assert!(stopped >= 10, "only {stopped} searches were stopped by their budget");
}

/// A search stopped inside an iteration plays a root move that already beat the last completed
/// depth's best there, and reports that move's own value and line (was: the replaced move's
/// value beside a one-move line, and no ponder move). With pruning that reads no evaluation,
/// its value is the move's exact value at that depth, or a lower bound of it where it failed high.
#[test]
fn a_move_from_a_stopped_iteration_comes_with_its_own_value_and_line() {
    let chess = variants::by_name("chess").unwrap();
    let mut changed = 0;
    let mut with_line = 0;
    for fen in FENS {
        let pos = Position::from_fen(chess, fen).unwrap();
        for nodes in (0..60u64).map(|i| 500 + i * i * 29) {
            let mut e = exact_engine();
            let mut completed: Option<(u32, rules::Move)> = None;
            let r = e.search(pos.clone(), &[], Limits::nodes(nodes), |i| {
                if i.lower_bound.is_none() && i.multipv == 1 {
                    completed = i.pv.first().map(|&m| (i.depth, m));
                }
            });
            let (Some((depth, before)), Some(best)) = (completed, r.best) else { continue };
            if best == before || r.depth != depth {
                continue;
            }
            changed += 1;
            assert_eq!(r.pv.first(), Some(&best), "{fen} at {nodes} nodes");
            assert_eq!(r.ponder, r.pv.get(1).copied(), "{fen} at {nodes} nodes");
            with_line += usize::from(r.pv.len() > 1);
            // The move alone, searched to the depth it was found at.
            let mut alone = exact_engine();
            alone.set_search_moves(vec![best]);
            let own = alone.search(pos.clone(), &[], Limits::depth(depth + 1), |_| {}).value;
            if r.lower_bound {
                assert!(r.value <= own, "{fen} at {nodes} nodes: lower bound {} above the value {own}", r.value);
            } else {
                assert_eq!(r.value, own, "{fen} at {nodes} nodes: {best:?}");
            }
        }
    }
    assert!(
        changed >= 3 && with_line >= 1,
        "only {changed} stopped searches changed their move ({with_line} with a line)"
    );
}
