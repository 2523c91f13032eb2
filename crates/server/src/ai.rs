//! The AI's moves, off the request path: a search runs on a blocking thread once a worker slot is
//! free (a semaphore is the queue), then its move goes through the same path as a person's.

use crate::live::AiLevel;
use engine::engine::Report;
use engine::params::SearchParams;
use engine::{Engine, Limits};
use rules::{Move, Position};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Searches `pos` (with the hashes of the game's positions before it, for repetition) for
/// `movetime`, or until `cancel` is set (a takeback made the search pointless: its result is
/// then dropped by the caller).
/// A weaker level chooses among its lines with `seed` (see `engine::Handicap`).
pub fn think(
    level: AiLevel,
    pos: Position,
    hashes: Vec<u64>,
    movetime: Duration,
    seed: u64,
    cancel: &AtomicBool,
) -> Option<Move> {
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let v = pos.variant();
    let mut e = Engine::with_hash(8);
    e.set_params(Some(match level {
        AiLevel::Engine | AiLevel::Level(_) => SearchParams::for_variant(v),
        AiLevel::Blind => SearchParams::blind(v),
    }));
    e.set_handicap(level.handicap(), seed);
    e.set_tablebase(crate::analysis::tables().cloned());
    let (tx, rx) = std::sync::mpsc::channel();
    e.start(pos.clone(), hashes, Limits::movetime(movetime), move |r| {
        if let Report::Done(result) = r {
            let _ = tx.send(result);
        }
    });
    let result = loop {
        match rx.recv_timeout(Duration::from_millis(5)) {
            Ok(result) => break result,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if cancel.load(Ordering::Relaxed) => e.stop(),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            // The search thread could not start, or ended without a result.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return None,
        }
    };
    // Never trust a search with the rules: a move the position refuses is no move.
    result.best.filter(|m| pos.is_legal(*m))
}

/// A flag that cancels one AI search.
pub type Cancel = Arc<AtomicBool>;
