//! fairylab's endgame tables: retrograde generation for any material of a royal piece plus fairy
//! leapers and riders per side, on boards from 5x5 to 8x8, as FairyGen does and beyond it.
//!
//! A [`Family`] holds an ending and every sub-ending its captures reach, each [`Table`] a byte per
//! position and side to move ([`value`]). [`generate::generate`] builds one (in parallel,
//! deterministic), [`file`] saves and loads it, [`probe`] answers for single positions and
//! [`stats`] reports what FairyGen's `rep2.txt` reports, counted as FairyGen counts.

// Man and slot indices address several parallel arrays (squares, sides, move tables) at once.
#![deny(missing_docs)]
#![allow(clippy::needless_range_loop)]

pub mod bitmap;
pub mod board;
pub mod error;
pub mod fen;
pub mod file;
pub mod generate;
pub mod index;
pub mod material;
pub mod memory;
pub mod moves;
pub mod pieces;
pub mod probe;
pub mod stats;
pub mod symmetry;
pub mod table;
pub mod tablebase;
pub mod value;

pub use board::BoardShape;
pub use error::EgtError;
pub use generate::{generate, Progress, Request};
pub use material::Material;
pub use pieces::PieceSet;
pub use table::{Family, Table};
pub use value::{Metric, TableRules, Value};
