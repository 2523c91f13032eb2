//! The AI's moves, off the request path: a search runs on a blocking thread once a worker slot is
//! free (a semaphore is the queue), then its move goes through the same path as a person's.

use crate::live::AiLevel;
use engine::params::SearchParams;
use engine::{Engine, Limits};
use rules::{Move, Position};
use std::time::Duration;

/// Searches `pos` (with the hashes of the game's positions before it, for repetition) for
/// `movetime`.
/// A weaker level chooses among its lines with `seed` (see `engine::Handicap`).
pub fn think(level: AiLevel, pos: Position, hashes: Vec<u64>, movetime: Duration, seed: u64) -> Option<Move> {
    let v = pos.variant();
    let mut e = Engine::with_hash(8);
    e.set_params(Some(match level {
        AiLevel::Engine | AiLevel::Level(_) => SearchParams::for_variant(v),
        AiLevel::Blind => SearchParams::blind(v),
    }));
    e.set_handicap(level.handicap(), seed);
    e.set_tablebase(crate::analysis::tables().cloned());
    let best = e.search(pos.clone(), &hashes, Limits::movetime(movetime), |_| {}).best;
    // Never trust a search with the rules: a move the position refuses is no move.
    best.filter(|m| pos.is_legal(*m))
}
