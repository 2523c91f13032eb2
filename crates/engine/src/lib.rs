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
pub use eval::Evaluator;
pub use params::SearchParams;
pub use score::{Score, Value};
pub use time::Limits;
