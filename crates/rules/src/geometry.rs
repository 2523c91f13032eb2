//! Board sizes from 4x4 to 8x8 and their masks.
//! `Geometry` says which squares of the 8x8 frame are on the board.

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::square::Square;

/// Smallest supported board edge.
pub const MIN_EDGE: u8 = 4;
/// Largest supported board edge (the `u64` backend).
pub const MAX_EDGE: u8 = 8;

/// The size of a rectangular board, `files` x `ranks`, placed in the lower
/// left corner of the 8x8 frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Geometry {
    files: u8,
    ranks: u8,
    mask: Bitboard,
}

impl Geometry {
    /// Standard 8x8.
    pub const CHESS: Geometry = Geometry { files: 8, ranks: 8, mask: Bitboard::FULL };

    /// A board of `files` x `ranks`, each in `4..=8`.
    pub fn new(files: u8, ranks: u8) -> Option<Geometry> {
        if !(MIN_EDGE..=MAX_EDGE).contains(&files) || !(MIN_EDGE..=MAX_EDGE).contains(&ranks) {
            return None;
        }
        let mut mask = Bitboard::EMPTY;
        for r in 0..ranks {
            for f in 0..files {
                if let Some(sq) = Square::new(f, r) {
                    mask.set(sq);
                }
            }
        }
        Some(Geometry { files, ranks, mask })
    }

    /// Number of files.
    #[inline]
    pub const fn files(&self) -> u8 {
        self.files
    }

    /// Number of ranks.
    #[inline]
    pub const fn ranks(&self) -> u8 {
        self.ranks
    }

    /// The squares on the board.
    #[inline]
    pub const fn mask(&self) -> Bitboard {
        self.mask
    }

    /// Whether `sq` is on the board.
    #[inline]
    pub const fn contains(&self, sq: Square) -> bool {
        self.mask.contains(sq)
    }

    /// The square at (`file`, `rank`) if it is on the board.
    pub fn square(&self, file: i32, rank: i32) -> Option<Square> {
        if file >= 0 && rank >= 0 && file < self.files as i32 && rank < self.ranks as i32 {
            Square::new(file as u8, rank as u8)
        } else {
            None
        }
    }

    /// The rank as seen from `color` (0 = that side's first rank).
    #[inline]
    pub const fn relative_rank(&self, color: Color, sq: Square) -> u8 {
        match color {
            Color::White => sq.rank(),
            Color::Black => self.ranks - 1 - sq.rank(),
        }
    }

    /// All squares of the rank that `color` calls `rank` (0-based).
    #[inline]
    pub fn relative_rank_mask(&self, color: Color, rank: u8) -> Bitboard {
        let r = match color {
            Color::White => rank,
            Color::Black => self.ranks - 1 - rank,
        };
        Bitboard::rank(r) & self.mask
    }

    /// Number of squares on the board.
    pub const fn area(&self) -> u32 {
        self.files as u32 * self.ranks as u32
    }
}
