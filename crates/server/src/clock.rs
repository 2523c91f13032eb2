//! Chess clocks of server games: each side's time left, derived from the stored times of the
//! moves (so a clock survives a restart), with a Fischer increment, and the result of a flag.
//!
//! As on lichess, each side's first move is untimed; from the third ply on, a move costs its
//! side the time since the previous move and then earns the increment. The side to move's
//! clock runs from the previous move's time.

use rules::{Color, Position};
use serde_json::{json, Value};

/// A game's time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Each side's time at the start, in milliseconds.
    pub initial_ms: i64,
    /// Added after each timed move, in milliseconds.
    pub increment_ms: i64,
}

/// The plies before the clocks start (each side's first move).
const UNTIMED_PLIES: usize = 2;

impl Clock {
    /// The clock stored in a game's options (`{"clock": {"initial_ms": .., "increment_ms": ..}}`).
    pub fn of(options: &Value) -> Option<Clock> {
        let c = options.get("clock")?;
        Some(Clock { initial_ms: c["initial_ms"].as_i64()?, increment_ms: c["increment_ms"].as_i64().unwrap_or(0) })
    }

    /// The clock as stored in a game's options.
    pub fn to_json(self) -> Value {
        json!({ "initial_ms": self.initial_ms, "increment_ms": self.increment_ms })
    }

    /// Each side's time left (indexed by colour) after the moves made at `times` (Unix ms,
    /// ply 0 first, played by `first`), counting the running clock up to `now` if given.
    pub fn left(self, first: Color, times: &[i64], now: Option<i64>) -> [i64; 2] {
        let mut left = [self.initial_ms; 2];
        // The server's own downtime between a clean stop and a restart counts on no clock.
        let spent = |from: i64, to: i64| to - from - crate::pause::between(from, to);
        for k in UNTIMED_PLIES..times.len() {
            let side = mover(first, k);
            left[side.index()] += self.increment_ms - spent(times[k - 1], times[k]);
        }
        if let (Some(now), Some(side)) = (now, running(first, times.len())) {
            left[side.index()] -= spent(times[times.len() - 1], now);
        }
        left
    }

    /// When the side to move runs out of time (Unix ms), if its clock runs.
    pub fn flag_at(self, first: Color, times: &[i64]) -> Option<i64> {
        let side = running(first, times.len())?;
        let last = times[times.len() - 1];
        Some(last + self.left(first, times, None)[side.index()] + crate::pause::after(last))
    }

    /// The state's clock fields at `now` (for a finished game, `now` is when it ended: the
    /// clocks stopped then).
    pub fn state(self, first: Color, times: &[i64], now: i64, active: bool) -> Value {
        let left = self.left(first, times, Some(now));
        json!({
            "initial_ms": self.initial_ms,
            "increment_ms": self.increment_ms,
            "white_ms": left[0].max(0),
            "black_ms": left[1].max(0),
            "running": if active { running(first, times.len()).map(|c| c.to_string()) } else { None },
        })
    }
}

/// Who played ply `k`.
fn mover(first: Color, k: usize) -> Color {
    if k.is_multiple_of(2) {
        first
    } else {
        !first
    }
}

/// Whose clock runs after `plies` plies (nobody's before each side has moved once).
fn running(first: Color, plies: usize) -> Option<Color> {
    (plies >= UNTIMED_PLIES).then(|| mover(first, plies))
}

/// The result when `flagged` runs out of time in `pos`: the opponent wins, unless all it has
/// left is its royal piece (nothing else on the board or in hand), which cannot win: a draw.
pub fn flag_result(pos: &Position, flagged: Color) -> &'static str {
    let other = !flagged;
    let v = pos.variant();
    let royal = v.king();
    let board = pos.board();
    let others = (0..v.pieces.len())
        .map(|i| rules::Role(i as u8))
        .filter(|&r| Some(r) != royal)
        .any(|r| board.pieces(other, r).any())
        || !pos.hand(other).is_empty();
    match (others, flagged) {
        (false, _) => "1/2-1/2",
        (true, Color::White) => "0-1",
        (true, Color::Black) => "1-0",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Clock = Clock { initial_ms: 60_000, increment_ms: 2_000 };

    #[test]
    fn the_first_move_of_each_side_is_untimed() {
        assert_eq!(C.left(Color::White, &[], Some(50_000)), [60_000, 60_000]);
        assert_eq!(C.left(Color::White, &[10_000], Some(50_000)), [60_000, 60_000]);
        assert_eq!(C.flag_at(Color::White, &[10_000]), None);
        // After two plies White's clock runs from Black's move.
        assert_eq!(C.left(Color::White, &[10_000, 20_000], Some(25_000)), [55_000, 60_000]);
        assert_eq!(C.flag_at(Color::White, &[10_000, 20_000]), Some(80_000));
    }

    #[test]
    fn moves_cost_their_time_and_earn_the_increment() {
        // White thinks 5 s (ply 2), Black 8 s (ply 3), White 1 s (ply 4); Black to move.
        let times = [0, 1_000, 6_000, 14_000, 15_000];
        assert_eq!(
            C.left(Color::White, &times, None),
            [60_000 - 5_000 + 2_000 - 1_000 + 2_000, 60_000 - 8_000 + 2_000]
        );
        assert_eq!(C.flag_at(Color::White, &times), Some(15_000 + 54_000));
        // Black moved first (a FEN with Black to move): the roles swap.
        assert_eq!(C.left(Color::Black, &times, None), [54_000, 58_000]);
    }

    #[test]
    fn a_bare_king_cannot_win_on_time() {
        let v = rules::variants::by_name("chess").expect("chess");
        let pos = Position::from_fen(v, "8/8/4k3/8/8/3QK3/8/8 w - - 0 1").expect("fen");
        assert_eq!(flag_result(&pos, Color::White), "1/2-1/2");
        assert_eq!(flag_result(&pos, Color::Black), "1-0");
        let start = Position::start(v);
        assert_eq!(flag_result(&start, Color::White), "0-1");
    }
}
