//! Searching with several threads (Lazy SMP, `Engine::set_threads`): the same proven values as
//! one thread, legal moves in every position, stops and ponder hits heard, tables shared safely.

use engine::engine::Report;
use engine::{Engine, Limits, Score};
use rules::{variants, Position};
use std::sync::mpsc;
use std::time::Duration;

fn position(variant: &str, fen: &str) -> Position {
    Position::from_fen(variants::by_name(variant).expect("variant"), fen).expect("FEN")
}

/// The positions of Win At Chess, from the test data.
fn wac() -> Vec<Position> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/wac.epd");
    let text = std::fs::read_to_string(path).expect("wac.epd");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let fen: Vec<&str> = l.split_whitespace().take(4).collect();
            position("chess", &format!("{} 0 1", fen.join(" ")))
        })
        .collect()
}

#[test]
fn two_threads_claim_only_true_mates_and_legal_moves() {
    // Lazy SMP at a fixed depth is not the one-thread search: the helpers' table entries
    // (path-dependent repetition draws among them) can move the main thread's value either
    // way, so a mate one thread finds at depth 6 two threads may find or miss, and the other
    // way round. What must hold: every move legal, and every mate claimed real, which torn
    // table entries or a race between the threads would break.
    let mut one = Engine::new();
    let mut two = Engine::new();
    two.set_threads(2);
    let (mut claimed, mut by_one) = (0, 0);
    for pos in wac().iter().take(60) {
        let r1 = one.search(pos.clone(), &[], Limits::depth(6), |_| {});
        let r2 = two.search(pos.clone(), &[], Limits::depth(6), |_| {});
        let best = r2.best.expect("a move");
        assert!(pos.is_legal(best), "{best:?} in {}", pos.fen());
        for m in r2.pv.iter().take(1) {
            assert!(pos.is_legal(*m), "pv {m:?} in {}", pos.fen());
        }
        by_one += usize::from(matches!(r1.score, Score::Mate(_)));
        if let Score::Mate(m) = r2.score {
            claimed += 1;
            // A fresh single-threaded search deep enough for that mate finds one too.
            let depth = 2 * m.unsigned_abs() + 3;
            let deep = Engine::new().search(pos.clone(), &[], Limits::depth(depth), |_| {});
            assert!(
                matches!(deep.score, Score::Mate(k) if k.signum() == m.signum()),
                "{}: two threads claim {:?}, one thread at depth {depth} finds {:?}",
                pos.fen(),
                r2.score,
                deep.score
            );
        }
    }
    assert!(claimed >= 5, "only {claimed} mates claimed: the test checks too little");
    eprintln!("mates at depth 6: {by_one} by one thread, {claimed} by two threads (all confirmed)");
}

#[test]
fn many_short_threaded_searches_in_several_variants() {
    let mut e = Engine::new();
    e.set_threads(3);
    for (variant, fen) in [
        ("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
        ("crazyhouse", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 2 3"),
        ("gardner", "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1"),
        ("snowfall", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[QNn] b KQkq - 0 1"),
        // Chance nodes: every move succeeds only with its square's probability.
        ("probabilistic", "startpos"),
    ] {
        let mut pos = match fen {
            "startpos" => Position::start(variants::by_name(variant).expect("variant")),
            _ => position(variant, fen),
        };
        // The positions before the current one, for repetitions.
        let mut game = Vec::new();
        // A short game: every move the threaded engine's, each search a few thousand nodes.
        for _ in 0..12 {
            if pos.legal_moves().is_empty() {
                break;
            }
            let r = e.search(pos.clone(), &game, Limits::nodes(3000), |_| {});
            let m = r.best.expect("a move");
            assert!(pos.is_legal(m), "{variant}: {m:?}");
            // The budget is spent, unless a forced mate found well within the depth ended the
            // search (threads make that position-dependent: a helper may find it first).
            let mate = matches!(r.score, Score::Mate(_));
            assert!(
                r.nodes >= 3000 || mate,
                "{variant}: {} nodes and no mate ({} at depth {}) in {}",
                r.nodes,
                r.score,
                r.depth,
                pos.fen()
            );
            game.push(pos.hash());
            pos.play(m).expect("legal");
        }
    }
}

/// Starts a background search of `pos`; the receiver gets its result.
fn start(e: &mut Engine, pos: &Position, limits: Limits) -> mpsc::Receiver<engine::SearchResult> {
    let (tx, rx) = mpsc::channel();
    e.start(pos.clone(), Vec::new(), limits, move |r| {
        if let Report::Done(r) = r {
            let _ = tx.send(r);
        }
    });
    rx
}

#[test]
fn a_threaded_background_search_stops_and_hears_the_ponder_hit() {
    let mut e = Engine::new();
    e.set_threads(2);
    let pos = Position::start(variants::by_name("chess").expect("chess"));
    // Each search waits for its signal, then answers with a legal move.
    let answers_after = |e: &mut Engine, limits: Limits, signal: fn(&Engine), what: &str| {
        let rx = start(e, &pos, limits);
        std::thread::sleep(Duration::from_millis(150));
        assert!(rx.try_recv().is_err(), "the search answered before {what}");
        signal(e);
        let r = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("no result after {what}"));
        assert!(pos.is_legal(r.best.expect("a move")));
        e.wait();
    };
    answers_after(&mut e, Limits { infinite: true, ..Limits::default() }, Engine::stop, "stop");
    let ponder = Limits { movetime: Some(Duration::from_millis(30)), ponder: true, ..Limits::default() };
    answers_after(&mut e, ponder, Engine::ponderhit, "the ponder hit");
}

#[test]
fn a_node_limit_counts_every_threads_nodes() {
    let pos = position("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    let mut e = Engine::new();
    e.set_threads(2);
    let limit = 300_000;
    let r = e.search(pos.clone(), &[], Limits::nodes(limit), |_| {});
    assert!(r.best.is_some_and(|m| pos.is_legal(m)));
    // The main thread reads the helpers' count every 1024 of its own nodes, so the total passes
    // the limit by those reports, and by what a helper searches while the main thread waits
    // for the CPU (the tests share two cores); counting the main thread alone gave about 2N.
    assert!(r.nodes <= limit + limit / 4, "{} nodes for a limit of {limit}", r.nodes);
    assert!(r.nodes >= limit / 2, "{} nodes for a limit of {limit}", r.nodes);
}
