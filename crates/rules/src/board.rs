//! Piece placement: bitboards by colour and by role, a mailbox, and per-piece state bytes.
//! The board knows nothing of rules; `Position` keeps it consistent with the variant.

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::piece::{Piece, Role, ROLE_SLOTS};
use crate::square::Square;

/// Bit of a piece's state byte marking a promoted piece (crazyhouse: it returns to hand as a pawn).
pub const PROMOTED: u8 = 0x80;

/// Bits of a piece's state byte counting its column switches (Baby Chess; at most 7).
pub const SWITCHES: u8 = 0x07;

/// Where the pieces stand. Each piece carries a state byte that moves with it
/// (bit 7: promoted; bits 0-2: column switches in Baby Chess; the rest free for variant counters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; ROLE_SLOTS],
    squares: [u8; 64],
    state: [u8; 64],
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    /// No pieces.
    pub const fn empty() -> Board {
        Board {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; ROLE_SLOTS],
            squares: [0; 64],
            state: [0; 64],
        }
    }

    /// All occupied squares.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The pieces of a colour.
    #[inline]
    pub fn by_color(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// The pieces of a role, both colours.
    #[inline]
    pub fn by_role(&self, r: Role) -> Bitboard {
        self.by_role[r.index() & (ROLE_SLOTS - 1)]
    }

    /// The pieces of a colour and role.
    #[inline]
    pub fn pieces(&self, c: Color, r: Role) -> Bitboard {
        self.by_color[c.index()] & self.by_role[r.index() & (ROLE_SLOTS - 1)]
    }

    /// The piece on a square.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.squares[sq.index()])
    }

    /// The role on a square (any colour).
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        let code = self.squares[sq.index()];
        if code == 0 {
            None
        } else {
            Some(Role((code & 0x0f) - 1))
        }
    }

    /// The state byte of the piece on a square (0 if empty).
    #[inline]
    pub fn state_at(&self, sq: Square) -> u8 {
        self.state[sq.index()]
    }

    /// Sets the state byte of the piece on `sq`.
    #[inline]
    pub fn set_state(&mut self, sq: Square, state: u8) {
        self.state[sq.index()] = state;
    }

    /// Squares with promoted pieces.
    pub fn promoted(&self) -> Bitboard {
        self.occupied().filter(|sq| self.state[sq.index()] & PROMOTED != 0).collect()
    }

    /// Puts a piece on an empty square.
    #[inline]
    pub fn put(&mut self, sq: Square, piece: Piece, state: u8) {
        debug_assert_eq!(self.squares[sq.index()], 0);
        let b = Bitboard::from_square(sq);
        self.by_color[piece.color.index()] |= b;
        self.by_role[piece.role.index() & (ROLE_SLOTS - 1)] |= b;
        self.squares[sq.index()] = piece.code();
        self.state[sq.index()] = state;
    }

    /// Removes and returns the piece on a square with its state.
    #[inline]
    pub fn take(&mut self, sq: Square) -> Option<(Piece, u8)> {
        let piece = Piece::from_code(self.squares[sq.index()])?;
        let b = Bitboard::from_square(sq);
        self.by_color[piece.color.index()] ^= b;
        self.by_role[piece.role.index() & (ROLE_SLOTS - 1)] ^= b;
        self.squares[sq.index()] = 0;
        let state = std::mem::take(&mut self.state[sq.index()]);
        Some((piece, state))
    }
}
