//! The unvalidated position a FEN describes, before legality checks.
//! `Position::from_setup` turns it into a playable position or a typed error.

use crate::board::Board;
use crate::color::Color;
use crate::hand::Hand;
use crate::square::Square;

/// A position as written, not yet checked against the variant's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// Placement (with piece state bytes, e.g. promoted flags).
    pub board: Board,
    /// Hands, indexed by colour.
    pub hands: [Hand; 2],
    /// Side to move.
    pub turn: Color,
    /// Castling rights `[K, Q, k, q]`.
    pub castling: [bool; 4],
    /// The rook file a castling right names by its letter (Chess960's X-FEN and Shredder-FEN:
    /// `HAha`); `None` where it is written `KQkq` (the outermost rook on that side).
    pub castling_files: [Option<u8>; 4],
    /// En-passant square as written.
    pub ep: Option<Square>,
    /// Halfmove clock.
    pub halfmoves: u32,
    /// Fullmove number.
    pub fullmoves: u32,
    /// The variant's byte per square (Probabilistic chess: the square map, `square_map.rs`).
    pub square_state: [u8; 64],
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            board: Board::empty(),
            hands: [Hand::default(); 2],
            turn: Color::White,
            castling: [false; 4],
            castling_files: [None; 4],
            ep: None,
            halfmoves: 0,
            fullmoves: 1,
            square_state: [0; 64],
        }
    }
}
