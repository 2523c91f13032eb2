//! UCI long algebraic notation: `e2e4`, `e7e8q`, castling as the king's move `e1g1` (in Chess960,
//! and on narrow boards where the king's move would read as a step, as the king taking its own
//! rook, `e1h1`, as UCI_Chess960 and Fairy-Stockfish write it), drops `Q@f2`.
//! Syntax errors (`ParseUciError`) are kept apart from moves that are not legal (`IllegalUciError`).

use crate::moves::{Move, MoveKind, MoveList};
use crate::position::Position;
use crate::square::Square;

/// The text is not UCI notation for this variant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid UCI move '{text}': {reason}")]
pub struct ParseUciError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

/// Errors turning UCI text into a legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UciError {
    /// Not UCI notation.
    #[error(transparent)]
    Syntax(#[from] ParseUciError),
    /// Well formed, but not legal here.
    #[error("illegal move '{text}' in {fen}")]
    Illegal {
        /// The text.
        text: String,
        /// The position.
        fen: String,
    },
}

/// A move as written in UCI, before it is matched against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UciMove {
    /// From, to and an optional promotion letter (lower case).
    Normal {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
        /// Promotion letter.
        promotion: Option<char>,
    },
    /// A drop of the piece with this (lower-case) letter.
    Drop {
        /// Piece letter.
        letter: char,
        /// Destination.
        to: Square,
    },
    /// `0000`: a pass, legal only where a side without a move passes.
    Pass,
}

impl std::fmt::Display for UciMove {
    /// The UCI text: `e7e8q`, `N@f3` (the letter upper case), `0000`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            UciMove::Normal { from, to, promotion: None } => write!(f, "{from}{to}"),
            UciMove::Normal { from, to, promotion: Some(p) } => write!(f, "{from}{to}{p}"),
            UciMove::Drop { letter, to } => write!(f, "{}@{to}", letter.to_ascii_uppercase()),
            UciMove::Pass => write!(f, "0000"),
        }
    }
}

impl std::str::FromStr for UciMove {
    type Err = ParseUciError;

    /// As [`UciMove::parse`].
    fn from_str(s: &str) -> Result<UciMove, ParseUciError> {
        UciMove::parse(s)
    }
}

impl UciMove {
    /// Parses UCI syntax.
    pub fn parse(text: &str) -> Result<UciMove, ParseUciError> {
        let err = |reason: &str| ParseUciError { text: text.to_string(), reason: reason.to_string() };
        if !text.is_ascii() {
            return Err(err("not ASCII"));
        }
        if text.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(err("contains whitespace (one move without spaces, such as e2e4)"));
        }
        if text == "0000" {
            return Ok(UciMove::Pass);
        }
        if let Some((piece, sq)) = text.split_once('@') {
            let mut chars = piece.chars();
            let letter = match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphabetic() => c.to_ascii_lowercase(),
                _ => return Err(err("a drop is a piece letter, '@' and a square")),
            };
            let to = Square::parse(sq).ok_or_else(|| err("bad square"))?;
            return Ok(UciMove::Drop { letter, to });
        }
        if text.len() != 4 && text.len() != 5 {
            return Err(err("expected 4 or 5 characters"));
        }
        let from = Square::parse(&text[0..2]).ok_or_else(|| err("bad origin square"))?;
        let to = Square::parse(&text[2..4]).ok_or_else(|| err("bad destination square"))?;
        let promotion = match text[4..].chars().next() {
            None => None,
            Some(c) if c.is_ascii_alphabetic() => Some(c.to_ascii_lowercase()),
            Some(_) => return Err(err("bad promotion letter")),
        };
        Ok(UciMove::Normal { from, to, promotion })
    }

    /// The legal move this denotes in `pos`.
    pub fn to_move(&self, pos: &Position) -> Option<Move> {
        let v = pos.variant();
        let mut legal = MoveList::new();
        pos.gen_legal(&mut legal);
        legal.iter().copied().find(|&m| match (*self, m.drop_role()) {
            (UciMove::Pass, _) => m.is_pass(),
            (_, _) if m.is_pass() => false,
            (UciMove::Drop { letter, to }, Some(r)) => v.piece(r).letter == letter && m.to() == to,
            // Chess960 castling is written as the king taking its own rook; in chess that is
            // read too (`e1h1`, as python-chess reads it), `e1g1` being how it is written.
            (UciMove::Normal { from, to, promotion: None }, None) if m.kind() == MoveKind::Castle => {
                m.from() == from && (pos.castle_uci_to(m) == to || pos.castle_rook_square(m) == Some(to))
            }
            (UciMove::Normal { from, to, promotion }, None) => {
                m.from() == from && m.to() == to && promotion == m.promotion_role().map(|r| v.piece(r).letter)
            }
            _ => false,
        })
    }
}

/// Parses UCI text and finds the legal move.
pub fn parse_uci(pos: &Position, text: &str) -> Result<Move, UciError> {
    let u = UciMove::parse(text)?;
    u.to_move(pos).ok_or_else(|| UciError::Illegal { text: text.to_string(), fen: pos.fen() })
}

/// Writes a move of `pos` in UCI.
pub fn to_uci(pos: &Position, m: Move) -> String {
    let v = pos.variant();
    match m.kind() {
        MoveKind::Drop => {
            // A role the variant does not have (a move made for another variant) is written '?'.
            let letter = m.drop_role().and_then(|r| v.get_piece(r)).map_or('?', |p| p.letter.to_ascii_uppercase());
            format!("{letter}@{}", m.to())
        }
        MoveKind::Pass => "0000".into(),
        MoveKind::Castle => format!("{}{}", m.from(), pos.castle_uci_to(m)),
        _ => {
            let mut s = format!("{}{}", m.from(), m.to());
            if let Some(r) = m.promotion_role() {
                s.push(v.get_piece(r).map_or('?', |p| p.letter));
            }
            s
        }
    }
}
