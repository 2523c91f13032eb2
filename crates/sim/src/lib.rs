//! fairylab's Monte Carlo simulator: seeded, parallel games of any variant with a strategy
//! per side, statistics with confidence intervals, sequential runs to a target half-width,
//! shards that merge exactly, JSON results, Markdown reports and SVG plots.
//!
//! ```
//! use sim::runner::{run, RunConfig, Shard};
//! use sim::report::SimResult;
//! let gardner = rules::variants::by_name("gardner").unwrap();
//! let cfg = RunConfig::new(gardner, 42);
//! let tally = run(&cfg, 200, Shard::ALL, &|_| {});
//! let result = SimResult::new(&cfg, tally, Shard::ALL, 200, None);
//! assert_eq!(result.games, 200);
//! assert_eq!(result.white_win.count + result.black_win.count + result.draw.count, 200);
//! ```
#![deny(missing_docs)]

pub mod baby;
pub mod plot;
pub mod progress;
pub mod report;
pub mod runner;
pub mod sequential;
pub mod stats;
pub mod strategy;
pub mod tally;

pub use report::SimResult;
pub use runner::{RunConfig, Shard};
pub use strategy::Strategy;
pub use tally::Tally;
