//! What gift awareness costs the search: the gift-aware and the blind SnowFall engines searched
//! side by side, for the same time, on the positions of a match record
//! (`fairylab match --variant snowfall ... --pgn FILE`).
//!
//! Every `EVERY`-th position of the first `GAMES` games is searched by each player with a fresh
//! table; the mean completed depth, the mean nodes and the share of positions where both chose
//! the same move are printed.
//!
//! ```sh
//! cargo run --release -p fairylab-engine --example gift_depth -- games.pgn [MS] [GAMES] [EVERY]
//! ```

use engine::{Engine, Limits, SearchParams};
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gift_depth: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The numeric argument at `i`, or `default`.
fn number(args: &[String], i: usize, default: u64) -> Result<u64, String> {
    args.get(i).map_or(Ok(default), |a| a.parse().map_err(|_| format!("{a:?} is not a number")))
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: gift_depth GAMES.pgn [MS] [GAMES] [EVERY]")?;
    let ms = number(&args, 1, 100)?;
    let games = number(&args, 2, 30)? as usize;
    let every = number(&args, 3, 6)?.max(1) as usize;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let records = rules::record::read_records(&text).map_err(|e| format!("{path}: {e}"))?;
    // Per player (aware, blind): the sums of depth and nodes.
    let (mut depth, mut nodes) = ([0u64; 2], [0u64; 2]);
    let (mut positions, mut same) = (0u64, 0u64);
    let mut engines = [Engine::new(), Engine::new()];
    for record in records.iter().take(games) {
        let game = &record.game;
        let mut pos = game.start().clone();
        for (i, (&m, &event)) in game.moves().iter().zip(game.events()).enumerate() {
            if i % every == every / 2 && pos.has_legal_move() {
                let mut best = [None, None];
                let params = [SearchParams::for_variant(pos.variant()), SearchParams::blind(pos.variant())];
                for (k, engine) in engines.iter_mut().enumerate() {
                    engine.set_params(Some(params[k]));
                    engine.clear();
                    let r = engine.search(pos.clone(), &[], Limits::movetime(Duration::from_millis(ms)), |_| {});
                    depth[k] += u64::from(r.depth);
                    nodes[k] += r.nodes;
                    best[k] = r.best;
                }
                positions += 1;
                same += u64::from(best[0] == best[1]);
            }
            pos.play_event(m, event);
        }
    }
    if positions == 0 {
        return Err(format!("{path}: no position to search"));
    }
    let n = positions as f64;
    println!("{positions} positions, {ms} ms each:");
    for (k, name) in ["gift-aware", "blind"].iter().enumerate() {
        println!("{name}: mean depth {:.2}, mean nodes {:.0}", depth[k] as f64 / n, nodes[k] as f64 / n);
    }
    println!("same move: {:.1} %", 100.0 * same as f64 / n);
    Ok(())
}
