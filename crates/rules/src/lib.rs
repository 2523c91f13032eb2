//! fairylab's rules core: generic bitboard boards up to 8x8, fairy pieces from Betza or
//! FairyGen definitions, positions with hands and chance, move generation and notation.
//!
//! ```
//! use rules::{variants, Position, perft};
//! let chess = variants::by_name("chess").unwrap();
//! let start = Position::start(chess);
//! assert_eq!(perft(&start, 3), 8902);
//! ```
#![deny(missing_docs)]

pub mod betza;
pub mod bitboard;
pub mod board;
pub mod chance;
pub mod check;
pub mod color;
pub mod explain;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod gift;
pub mod hand;
pub mod magic;
pub mod movegen;
pub mod movement;
pub mod moves;
pub mod odds;
pub mod orders;
pub mod outcome;
pub mod path;
pub mod perft;
pub mod piece;
pub mod piecedef;
pub mod position;
pub mod predictor;
pub mod record;
pub mod san;
pub mod setup;
pub mod spec;
pub mod square;
pub mod square_map;
pub mod switches;
pub mod uci;
pub mod variant;
pub mod variants;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use color::Color;
pub use geometry::Geometry;
pub use moves::{Move, MoveKind, MoveList};
pub use perft::perft;
pub use piece::{Piece, Role, MAX_ROLES};
pub use position::Position;
pub use square::Square;
pub use variant::{Rules, Variant};
