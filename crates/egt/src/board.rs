//! The table board: 5x5 to 8x8, squares numbered `rank * files + file` from a1, names and parsing.
//! Tables use their own dense numbering (not the rules core's 8-wide stride) so an index wastes nothing.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::EgtError;

/// Most files or ranks.
pub const MAX_SIDE: u8 = 8;
/// Fewest files or ranks.
pub const MIN_SIDE: u8 = 5;

/// A rectangular board of `files` x `ranks` squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BoardShape {
    /// Number of files (a, b, ...).
    pub files: u8,
    /// Number of ranks (1, 2, ...).
    pub ranks: u8,
}

impl Default for BoardShape {
    fn default() -> BoardShape {
        BoardShape { files: 8, ranks: 8 }
    }
}

impl BoardShape {
    /// A board of the given size.
    ///
    /// # Errors
    ///
    /// [`EgtError::BadBoard`] outside 5..=8 in either direction.
    pub fn new(files: u8, ranks: u8) -> Result<BoardShape, EgtError> {
        let ok = (MIN_SIDE..=MAX_SIDE).contains(&files) && (MIN_SIDE..=MAX_SIDE).contains(&ranks);
        if !ok {
            return Err(EgtError::BadBoard {
                board: format!("{files}x{ranks}"),
                reason: format!("files and ranks must each be {MIN_SIDE} to {MAX_SIDE}"),
            });
        }
        Ok(BoardShape { files, ranks })
    }

    /// Parses `FILESxRANKS`, e.g. `8x8` or `5x5`.
    ///
    /// # Errors
    ///
    /// [`EgtError::BadBoard`] naming the fault.
    pub fn parse(text: &str) -> Result<BoardShape, EgtError> {
        let bad = |reason: &str| EgtError::BadBoard { board: text.to_string(), reason: reason.to_string() };
        let (f, r) = text.split_once(['x', 'X']).ok_or_else(|| bad("expected FILESxRANKS, e.g. 8x8"))?;
        // A number too large for any board is out of range, not "not a number".
        let side = |part: &str, what: &str| -> Result<u8, EgtError> {
            let part = part.trim();
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(&format!("the number of {what} is not a number")));
            }
            match part.parse::<u8>() {
                Ok(n) if (MIN_SIDE..=MAX_SIDE).contains(&n) => Ok(n),
                _ => Err(bad(&format!(
                    "the number of {what}, {part}, is out of range: files and ranks must each be {MIN_SIDE} to {MAX_SIDE}"
                ))),
            }
        };
        BoardShape::new(side(f, "files")?, side(r, "ranks")?)
    }

    /// Number of squares.
    #[inline]
    pub fn squares(self) -> usize {
        usize::from(self.files) * usize::from(self.ranks)
    }

    /// Whether files and ranks are equal (diagonal symmetry possible).
    pub fn is_square(self) -> bool {
        self.files == self.ranks
    }

    /// The square at `(file, rank)`, if on the board.
    #[inline]
    pub fn square(self, file: i32, rank: i32) -> Option<u8> {
        let inside = (0..i32::from(self.files)).contains(&file) && (0..i32::from(self.ranks)).contains(&rank);
        inside.then(|| (rank * i32::from(self.files) + file) as u8)
    }

    /// The file (0-based) of a square.
    #[inline]
    pub fn file(self, sq: u8) -> u8 {
        sq % self.files
    }

    /// The rank (0-based) of a square.
    #[inline]
    pub fn rank(self, sq: u8) -> u8 {
        sq / self.files
    }

    /// A square's name, `a1` style.
    pub fn name(self, sq: u8) -> String {
        format!("{}{}", char::from(b'a' + self.file(sq)), self.rank(sq) + 1)
    }

    /// Parses a square name.
    pub fn parse_square(self, name: &str) -> Option<u8> {
        let mut chars = name.chars();
        let f = chars.next()?;
        let rank: i32 = chars.as_str().parse().ok()?;
        if !f.is_ascii_lowercase() {
            return None;
        }
        self.square(i32::from(f as u8 - b'a'), rank - 1)
    }
}

impl fmt::Display for BoardShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.files, self.ranks)
    }
}
