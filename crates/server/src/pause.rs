//! The server's own downtime between a clean stop and the next start, which counts on no clock
//! and no deadline: a planned restart flags nobody.
//!
//! A process serving a SQLite file alone records its stop (`Store::record_stop`) and, on the next
//! start, closes it into a pause (`Store::resume`); the pauses are then held here for the
//! process's life. Clocks subtract the paused time within each move's interval
//! ([`between`]); deadlines (a flag, a first move, a Predictor ply) move later by the pauses
//! after their start ([`after`]). A crash records no stop: its pause runs from the process's
//! last heartbeat (`Store::alive`, every second) to the next start. Processes sharing
//! PostgreSQL take each other's games over instead.

use std::sync::RwLock;

static PAUSES: RwLock<Vec<(i64, i64)>> = RwLock::new(Vec::new());

/// Holds the pauses (Unix ms `[stopped, resumed)` each) for the process's life.
pub fn set(pauses: Vec<(i64, i64)>) {
    *PAUSES.write().unwrap_or_else(std::sync::PoisonError::into_inner) = pauses;
}

/// The paused milliseconds between `from` and `to`.
pub fn between(from: i64, to: i64) -> i64 {
    overlap(&PAUSES.read().unwrap_or_else(std::sync::PoisonError::into_inner), from, to)
}

/// The milliseconds of `pauses` between `from` and `to`.
fn overlap(pauses: &[(i64, i64)], from: i64, to: i64) -> i64 {
    pauses.iter().map(|&(a, b)| (b.min(to) - a.max(from)).max(0)).sum()
}

/// The paused milliseconds after `from`: how much later a deadline counted from `from` falls.
pub fn after(from: i64) -> i64 {
    between(from, i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the overlap counts; a deadline moves by the pauses after its start. (The process's
    /// own list stays empty here: other tests' clocks read it.)
    #[test]
    fn paused_time_is_the_overlap() {
        let pauses = [(1_000, 4_000), (10_000, 11_000)];
        assert_eq!(overlap(&pauses, 0, 500), 0);
        assert_eq!(overlap(&pauses, 0, 2_000), 1_000);
        assert_eq!(overlap(&pauses, 2_000, 12_000), 3_000);
        assert_eq!(overlap(&pauses, 3_000, i64::MAX), 2_000);
        assert_eq!(overlap(&pauses, 20_000, i64::MAX), 0);
        assert_eq!(after(0), 0);
    }
}
