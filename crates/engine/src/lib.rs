//! fairylab's engine: evaluation, iterative-deepening PVS with expectimax chance nodes
//! (Star1/Star2), time management, and the UCI and XBoard protocol loops that drive it.
//!
//! The search never prints: protocols, the CLI, the simulator and the server all use [`Engine`].
//!
//! ```
//! use engine::{Engine, Limits};
//! use rules::{variants, Position};
//! let chess = variants::by_name("chess").unwrap();
//! let mut engine = Engine::new();
//! let result = engine.search(Position::start(chess), &[], Limits::depth(3), |_| {});
//! assert!(result.best.is_some());
//! ```
#![deny(missing_docs)]

pub mod bench;
pub mod engine;
pub mod eval;
pub mod expectimax;
pub mod history;
pub mod material;
pub mod montecarlo;
pub mod params;
pub mod predictor;
pub mod protocol;
pub mod review;
pub mod score;
pub mod search;
pub mod see;
pub mod time;
pub mod tournament;
pub mod tt;
pub mod uci;
pub mod uci_client;
pub mod xboard;

pub use engine::{Engine, Handicap, Info, Line, SearchResult, MAX_SKILL};

/// The engine's name in UCI's `id name` and XBoard's `myname`: the version and, built from a git
/// checkout, the commit (`fairylab 0.3.1 (6acfc17)`), so that two builds tell apart in a GUI.
pub const NAME: &str = concat!("fairylab ", env!("CARGO_PKG_VERSION"), env!("FAIRYLAB_BUILD"));

/// The version with the commit, as in [`NAME`] (`0.3.1 (6acfc17)`; `fairylab --version`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), env!("FAIRYLAB_BUILD"));
pub use eval::Evaluator;
pub use params::SearchParams;
pub use score::{Score, Value};
pub use time::Limits;
