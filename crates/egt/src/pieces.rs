//! The pieces a table may use: letters bound to movements, from the built-in orthodox set, a
//! FairyGen `piecedef.ini`, or Betza definitions; refuses what retrograde generation cannot handle.

use rules::betza::parse_betza;
use rules::movement::{Atom, Movement};
use rules::piecedef::{parse_piecedef, parse_piecedef_lenient};

use crate::error::EgtError;

/// One piece kind: its letter (upper case) and movement as seen by White.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceKind {
    /// The letter, upper case (`K`, `Q`, `A`, ...).
    pub letter: char,
    /// How it moves (Black's steps mirror `dy`).
    pub movement: Movement,
    /// The definition as written (`1,0,s* 1,1,s*` or `betza:NB`), kept in table headers.
    pub definition: String,
}

/// The piece letters known to a generation run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceSet {
    kinds: Vec<PieceKind>,
}

impl Default for PieceSet {
    fn default() -> PieceSet {
        PieceSet::orthodox()
    }
}

impl PieceSet {
    /// The orthodox pieces K, Q, R, B, N, written as FairyGen's `piecedef.ini` writes them.
    pub fn orthodox() -> PieceSet {
        let mut set = PieceSet { kinds: Vec::new() };
        for (letter, definition, movement) in [
            ('K', "1,0,* 1,1,*", Movement::king()),
            ('Q', "1,0,s* 1,1,s*", Movement::queen()),
            ('R', "1,0,s*", Movement::rook()),
            ('B', "1,1,s*", Movement::bishop()),
            ('N', "1,2,*", Movement::knight()),
        ] {
            set.kinds.push(PieceKind { letter, movement, definition: definition.to_string() });
        }
        set
    }

    /// Adds (or replaces) every piece of a `piecedef.ini` text; `lenient` reads it as FairyGen's own
    /// reader does (see `rules::piecedef`).
    ///
    /// # Errors
    ///
    /// [`EgtError::Piecedef`] naming the line and fault; [`EgtError::UnsupportedPiece`] for a movement
    /// retrograde generation cannot handle.
    pub fn add_piecedef(&mut self, text: &str, lenient: bool) -> Result<(), EgtError> {
        let defs =
            if lenient { parse_piecedef_lenient(text) } else { parse_piecedef(text) }.map_err(EgtError::Piecedef)?;
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        for (def, line) in defs.into_iter().zip(lines) {
            let steps = line.split_once(':').map_or("", |(_, s)| s).trim().to_string();
            self.define(def.letter, def.movement, steps)?;
        }
        Ok(())
    }

    /// Adds (or replaces) a piece given in Betza notation, `X=NB` style input split by the caller.
    ///
    /// # Errors
    ///
    /// [`EgtError::Betza`] for bad notation; [`EgtError::UnsupportedPiece`] as [`PieceSet::define`].
    pub fn add_betza(&mut self, letter: char, betza: &str) -> Result<(), EgtError> {
        let movement = parse_betza(betza).map_err(|e| EgtError::Betza {
            letter,
            text: betza.to_string(),
            reason: e.to_string(),
        })?;
        self.define(letter, movement, format!("betza:{betza}"))
    }

    /// Binds `letter` (case-insensitive, stored upper case) to a movement.
    ///
    /// # Errors
    ///
    /// [`EgtError::UnsupportedPiece`] for a letter that is not ASCII alphabetic, an empty movement, or an
    /// atom FairyGen's model lacks (lame leaps, initial-only moves).
    pub fn define(&mut self, letter: char, movement: Movement, definition: String) -> Result<(), EgtError> {
        if !letter.is_ascii_alphabetic() {
            return Err(EgtError::UnsupportedPiece { letter, reason: "piece letters must be ASCII letters".into() });
        }
        let letter = letter.to_ascii_uppercase();
        if movement.is_empty() {
            return Err(EgtError::UnsupportedPiece { letter, reason: "it has no moves".into() });
        }
        if let Some(a) = movement.atoms().iter().find(|a: &&Atom| a.lame || a.initial) {
            let what = if a.lame { "lame leaps" } else { "initial-only moves" };
            return Err(EgtError::UnsupportedPiece {
                letter,
                reason: format!("{what} are not supported by the table generator (only leapers and riders)"),
            });
        }
        let kind = PieceKind { letter, movement, definition };
        match self.kinds.iter_mut().find(|k| k.letter == letter) {
            Some(k) => *k = kind,
            None => self.kinds.push(kind),
        }
        Ok(())
    }

    /// The piece with this letter (case-insensitive).
    pub fn get(&self, letter: char) -> Option<&PieceKind> {
        let letter = letter.to_ascii_uppercase();
        self.kinds.iter().find(|k| k.letter == letter)
    }

    /// All known pieces.
    pub fn kinds(&self) -> &[PieceKind] {
        &self.kinds
    }
}
