//! Every way a table request, a table file or a probe can fail, each naming the problem.
//! One error type for the crate, so the CLI prints one clear line.

use rules::piecedef::PiecedefError;
use thiserror::Error;

/// A table-generation, file or probe error.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum EgtError {
    /// A `piecedef.ini` line is malformed.
    #[error("piecedef: {0}")]
    Piecedef(PiecedefError),
    /// A Betza definition is malformed.
    #[error("piece {letter}: bad Betza notation {text:?}: {reason}")]
    Betza {
        /// The piece's letter.
        letter: char,
        /// The notation as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A piece the generator cannot handle.
    #[error("piece {letter}: {reason}")]
    UnsupportedPiece {
        /// The piece's letter.
        letter: char,
        /// Why the generator cannot handle it.
        reason: String,
    },
    /// The material string names a piece letter nobody defined.
    #[error("unknown piece letter {letter:?} in {material:?} (known: {known}; define it with --pieces piecedef.ini or --betza X=NOTATION)")]
    UnknownPiece {
        /// The unknown letter.
        letter: char,
        /// The material string.
        material: String,
        /// The letters that are defined.
        known: String,
    },
    /// The material string is malformed.
    #[error("bad material {material:?}: {reason}")]
    BadMaterial {
        /// The material string.
        material: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The board size is outside 5x5..8x8 or malformed.
    #[error("bad board {board:?}: {reason}")]
    BadBoard {
        /// The board as given.
        board: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The tables would not fit in memory.
    #[error(
        "{material} needs {needed} of tables, more than the {limit} allowed here (fewer men, or raise --max-memory)"
    )]
    TooLarge {
        /// The ending.
        material: String,
        /// The memory the tables need, in words.
        needed: String,
        /// The memory allowed, in words.
        limit: String,
    },
    /// A distance beyond what one byte holds.
    #[error("{material}: a distance exceeds {max} moves, the most one byte per position holds")]
    DistanceOverflow {
        /// The ending.
        material: String,
        /// The longest distance a table holds.
        max: u32,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The failure.
        source: std::io::Error,
    },
    /// A table file is not one of ours, damaged, or from another version.
    #[error("{path}: not a valid table file: {reason}")]
    BadFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A table file was generated under other rules than the caller requires.
    #[error("{path}: generated under other rules: {field} is {found} in the file, {expected} required")]
    RulesMismatch {
        /// The file.
        path: String,
        /// The rule that differs.
        field: String,
        /// The file's value.
        found: String,
        /// The value required.
        expected: String,
    },
    /// A probe position is malformed or outside the table.
    #[error("bad position {fen:?}: {reason}")]
    BadPosition {
        /// The position as given.
        fen: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A probe position that chess does not allow (the tables value it under their pseudo-legal
    /// model, but a probe refuses it).
    #[error("illegal position {fen:?}: {reason}")]
    IllegalPosition {
        /// The position.
        fen: String,
        /// Why chess does not allow it.
        reason: String,
    },
}
