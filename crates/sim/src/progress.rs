//! The progress bar of a long run (indicatif): games done, games per second and ETA on
//! stderr, hidden when stderr is not a terminal so logs and tests stay clean.
//!
//! The runner only sees a `Fn(u64)` callback; [`Progress::callback`] provides one.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar over a number of games.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `total` games (0: unknown, as in sequential mode), drawn on stderr if it is
    /// a terminal.
    pub fn new(total: u64) -> Progress {
        let target =
            if std::io::stderr().is_terminal() { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let bar = if total > 0 {
            ProgressBar::with_draw_target(Some(total), target)
        } else {
            ProgressBar::with_draw_target(None, target)
        };
        let template = if total > 0 {
            "{bar:40} {pos}/{len} games, {per_sec}, ETA {eta}"
        } else {
            "{spinner} {pos} games, {per_sec}, {elapsed}"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Progress { bar }
    }

    /// A hidden bar.
    pub fn hidden() -> Progress {
        Progress { bar: ProgressBar::hidden() }
    }

    /// Counts `n` more games.
    pub fn add(&self, n: u64) {
        self.bar.inc(n);
    }

    /// A callback for the runner.
    pub fn callback(&self) -> impl Fn(u64) + Sync + '_ {
        move |n| self.add(n)
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
