//! The two sides of a game.
//! `Color` is White or Black, with helpers for indexing per-side tables.

use std::fmt;
use std::ops::Not;

/// A side: White moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first.
    White = 0,
    /// The side that moves second.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// Index for per-side tables (White 0, Black 1).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The colour from a FEN piece letter's case (upper case is White).
    pub fn from_case(c: char) -> Color {
        if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The FEN side-to-move letter.
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// `fold(white, black)` picks the value for this colour.
    #[inline]
    pub fn fold<T>(self, white: T, black: T) -> T {
        match self {
            Color::White => white,
            Color::Black => black,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.fold("white", "black"))
    }
}
