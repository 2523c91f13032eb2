//! Search limits (depth, nodes, move time, clocks) and the time budget derived from them.
//! A soft limit stops iterative deepening between iterations; a hard limit aborts a search.

use rules::Color;
use std::time::Duration;

/// The time kept back on the clock when no [`Limits::overhead`] is given.
pub const DEFAULT_OVERHEAD: Duration = Duration::from_millis(20);

/// The largest move overhead the protocols accept (UCI `Move Overhead`), in milliseconds.
pub const MAX_OVERHEAD_MS: u64 = 5000;

/// What bounds a search. [`Limits::default`] (nothing set) searches until stopped or
/// until the maximum depth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Exact time for this move.
    pub movetime: Option<Duration>,
    /// Clock times, `[white, black]`.
    pub time: [Option<Duration>; 2],
    /// Increments per move, `[white, black]`.
    pub inc: [Option<Duration>; 2],
    /// Moves until the next time control.
    pub movestogo: Option<u32>,
    /// Search for a mate in this many moves (UCI `go mate N`): the search ends once it has
    /// one of at most N moves, and otherwise goes on as without limits (as Stockfish's).
    pub mate: Option<u32>,
    /// Search until told to stop.
    pub infinite: bool,
    /// Ponder (UCI `go ponder`): search the position after the expected reply of the
    /// opponent; the time limits apply only from the ponder hit ([`crate::Engine::ponderhit`]),
    /// and the move waits for it or for a stop.
    pub ponder: bool,
    /// Time kept back on the clock for the move to reach the opponent (UCI `Move Overhead`:
    /// the GUI's and the network's lag); `None`: [`DEFAULT_OVERHEAD`]. A fixed `movetime` is
    /// not shortened by it.
    pub overhead: Option<Duration>,
}

impl Limits {
    /// A fixed depth.
    pub fn depth(d: u32) -> Limits {
        Limits { depth: Some(d), ..Limits::default() }
    }

    /// A fixed node count.
    pub fn nodes(n: u64) -> Limits {
        Limits { nodes: Some(n), ..Limits::default() }
    }

    /// A fixed time per move.
    pub fn movetime(t: Duration) -> Limits {
        Limits { movetime: Some(t), ..Limits::default() }
    }

    /// The time budget for the side to move: `(soft, hard)`, or `None` for no time limit.
    pub fn budget(&self, us: Color) -> Option<(Duration, Duration)> {
        if self.infinite {
            return None;
        }
        if let Some(t) = self.movetime {
            // Leave a little for the reply to travel.
            let t = t.saturating_sub(Duration::from_millis(5)).max(Duration::from_millis(1));
            return Some((t, t));
        }
        // A clock given for the opponent only, or only increments or moves to go: our own time
        // is taken as none left (as Fairy-Stockfish reads it), never as no limit at all.
        let clocked = self.time.iter().chain(&self.inc).any(Option::is_some) || self.movestogo.is_some();
        let left = match self.time[us.index()] {
            Some(t) => t,
            None if clocked => Duration::ZERO,
            None => return None,
        };
        let inc = self.inc[us.index()].unwrap_or_default();
        let usable = left.saturating_sub(self.overhead.unwrap_or(DEFAULT_OVERHEAD));
        let moves = self.movestogo.map_or(30, |m| m.clamp(1, 30));
        let mut soft = usable / moves + inc * 3 / 4;
        let cap = usable * 2 / 5;
        if moves == 1 {
            soft = usable * 9 / 10;
        }
        soft = soft.min(cap.max(Duration::from_millis(1)));
        let hard = (soft * 4).min(usable * 3 / 5).max(soft);
        Some((soft.max(Duration::from_millis(1)), hard.max(Duration::from_millis(1))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets() {
        let l = Limits { time: [Some(Duration::from_secs(60)), None], ..Limits::default() };
        let (soft, hard) = l.budget(Color::White).unwrap();
        assert!(soft > Duration::from_millis(1500) && soft < Duration::from_millis(2500));
        assert!(hard >= soft && hard < Duration::from_secs(30));
        // Black has no clock while White's runs: the least time, not an endless search.
        assert_eq!(l.budget(Color::Black), Some((Duration::from_millis(1), Duration::from_millis(1))));
        let inc_only = Limits { inc: [Some(Duration::from_millis(100)); 2], ..Limits::default() };
        assert_eq!(inc_only.budget(Color::White), Some((Duration::from_millis(1), Duration::from_millis(1))));
        assert_eq!(
            Limits { movestogo: Some(10), ..Limits::default() }.budget(Color::Black).map(|b| b.1),
            Some(Duration::from_millis(1))
        );
        assert_eq!(Limits::default().budget(Color::White), None);
        let l = Limits::movetime(Duration::from_millis(100));
        assert_eq!(l.budget(Color::Black), Some((Duration::from_millis(95), Duration::from_millis(95))));
        let tiny = Limits { time: [Some(Duration::from_millis(30)), None], ..Limits::default() };
        let (s, h) = tiny.budget(Color::White).unwrap();
        assert!(s <= h && h <= Duration::from_millis(30));
    }

    #[test]
    fn the_move_overhead_is_kept_back() {
        let clock = Limits { time: [Some(Duration::from_secs(60)), None], ..Limits::default() };
        let lagged = Limits { overhead: Some(Duration::from_secs(59)), ..clock };
        let (_, hard) = lagged.budget(Color::White).unwrap();
        assert!(hard <= Duration::from_millis(600), "{hard:?} of the second left");
        assert!(clock.budget(Color::White).unwrap().0 > Duration::from_secs(1));
        // More overhead than time: the search still gets a moment.
        let swamped = Limits { overhead: Some(Duration::from_secs(90)), ..clock };
        assert_eq!(swamped.budget(Color::White), Some((Duration::from_millis(1), Duration::from_millis(1))));
        // A fixed move time is not shortened.
        let fixed = Limits { overhead: Some(Duration::from_secs(1)), ..Limits::movetime(Duration::from_millis(100)) };
        assert_eq!(fixed.budget(Color::White), Some((Duration::from_millis(95), Duration::from_millis(95))));
    }
}
