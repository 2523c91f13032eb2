//! Piece kinds of a variant (`Role`), coloured pieces (`Piece`) and piece definitions.
//! A role is an index into the variant's piece list, so fairy pieces need no new types.

use crate::color::Color;
use crate::movement::Movement;

/// The most piece kinds a variant may define.
pub const MAX_ROLES: usize = 12;

/// Slots in per-role arrays: a power of two above [`MAX_ROLES`], so an index masked
/// with `ROLE_SLOTS - 1` needs no bounds check.
pub const ROLE_SLOTS: usize = 16;

/// A piece kind: an index into [`Rules::pieces`](crate::Rules::pieces) ([`Variant::piece`](crate::Variant::piece) gives its definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role(pub u8);

impl Role {
    /// Index for per-role tables.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A piece of a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its side.
    pub color: Color,
    /// Its kind.
    pub role: Role,
}

impl Piece {
    /// Encodes the piece in a non-zero byte (for the mailbox).
    #[inline]
    pub const fn code(self) -> u8 {
        (self.role.0 + 1) | ((self.color as u8) << 4)
    }

    /// Decodes [`Piece::code`]; `None` for 0 (empty).
    #[inline]
    pub const fn from_code(code: u8) -> Option<Piece> {
        if code == 0 {
            None
        } else {
            let color = if code & 0x10 != 0 { Color::Black } else { Color::White };
            Some(Piece { color, role: Role((code & 0x0f).wrapping_sub(1) & 0x0f) })
        }
    }
}

/// A piece definition of a variant: its letter, name and movement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceType {
    /// Long name, e.g. `knight`.
    pub name: String,
    /// FEN letter in lower case (White's pieces print in upper case).
    pub letter: char,
    /// How it moves (the pawn's double step excluded; see the variant's rules).
    pub movement: Movement,
    /// Whether this is the royal piece (the king).
    pub royal: bool,
    /// Whether this is the pawn: it promotes, may double-step and be taken en passant.
    pub pawn: bool,
    /// The definition text it was read from (Betza or piecedef), for display.
    pub source: String,
}

impl PieceType {
    /// The SAN letter: upper case, empty for pawns.
    pub fn san_letter(&self) -> Option<char> {
        if self.pawn {
            None
        } else {
            Some(self.letter.to_ascii_uppercase())
        }
    }

    /// The FEN character for a colour.
    pub fn char(&self, color: Color) -> char {
        match color {
            Color::White => self.letter.to_ascii_uppercase(),
            Color::Black => self.letter,
        }
    }
}
