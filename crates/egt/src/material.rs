//! Material as FairyGen writes it (`KQ.KR`: White's men, a period, Black's; each side's first man is
//! royal), normalised so identical men sit together, and the sub-materials reached by captures.

use std::fmt;

use crate::error::EgtError;
use crate::pieces::{PieceKind, PieceSet};

/// Side index: White.
pub const WHITE: usize = 0;
/// Side index: Black.
pub const BLACK: usize = 1;

/// Most men in one table.
pub const MAX_MEN: usize = 8;

/// One man of a material.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Man {
    /// [`WHITE`] or [`BLACK`].
    pub side: usize,
    /// Index into [`Material::kinds`].
    pub kind: usize,
    /// Whether this is the side's royal man (its capture ends the game).
    pub royal: bool,
}

/// The men of an ending, in index order: White's royal, White's other men (identical ones adjacent,
/// in order of first appearance), Black's royal, Black's other men likewise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Material {
    men: Vec<Man>,
    kinds: Vec<PieceKind>,
}

impl Material {
    /// Parses `KQ.KR` against a piece set.
    ///
    /// # Errors
    ///
    /// [`EgtError::BadMaterial`] for a malformed string or a side without men (the first letter of each
    /// side is its royal piece); [`EgtError::UnknownPiece`] for a letter the set does not define.
    pub fn parse(text: &str, pieces: &PieceSet) -> Result<Material, EgtError> {
        let bad = |reason: &str| EgtError::BadMaterial { material: text.to_string(), reason: reason.to_string() };
        let (white, black) =
            text.split_once('.').ok_or_else(|| bad("expected WHITE.BLACK, e.g. KQ.KR (a period between the sides)"))?;
        if black.contains('.') {
            return Err(bad("more than one period"));
        }
        if white.is_empty() || black.is_empty() {
            return Err(bad("each side needs at least its royal piece (the first letter of each side is royal)"));
        }
        let mut kinds: Vec<PieceKind> = Vec::new();
        let mut sides: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        for (side, letters) in [white, black].into_iter().enumerate() {
            for letter in letters.chars() {
                if !letter.is_ascii_alphabetic() {
                    return Err(bad(&format!("{letter:?} is not a piece letter")));
                }
                let kind = pieces.get(letter).ok_or_else(|| EgtError::UnknownPiece {
                    letter,
                    material: text.to_string(),
                    known: pieces.kinds().iter().map(|k| k.letter).collect(),
                })?;
                let index = match kinds.iter().position(|k| k.letter == kind.letter) {
                    Some(i) => i,
                    None => {
                        kinds.push(kind.clone());
                        kinds.len() - 1
                    }
                };
                sides[side].push(index);
            }
        }
        let mut men = Vec::new();
        for (side, list) in sides.iter().enumerate() {
            men.push(Man { side, kind: list[0], royal: true });
            let mut rest: Vec<usize> = Vec::new();
            for &k in &list[1..] {
                if !rest.contains(&k) {
                    rest.push(k);
                }
            }
            for k in rest {
                for _ in list[1..].iter().filter(|&&x| x == k) {
                    men.push(Man { side, kind: k, royal: false });
                }
            }
        }
        if men.len() > MAX_MEN {
            return Err(bad(&format!("{} men; at most {MAX_MEN} are supported", men.len())));
        }
        Ok(Material { men, kinds })
    }

    /// The men in index order.
    pub fn men(&self) -> &[Man] {
        &self.men
    }

    /// The piece kinds the men refer to.
    pub fn kinds(&self) -> &[PieceKind] {
        &self.kinds
    }

    /// The letter of a man (upper case for White, lower case for Black).
    pub fn letter(&self, man: usize) -> char {
        let m = self.men[man];
        let c = self.kinds[m.kind].letter;
        if m.side == WHITE {
            c
        } else {
            c.to_ascii_lowercase()
        }
    }

    /// The index of a side's royal man.
    pub fn royal(&self, side: usize) -> usize {
        self.men.iter().position(|m| m.royal && m.side == side).unwrap_or(0)
    }

    /// Whether a side has nothing but its royal man.
    pub fn is_bare(&self, side: usize) -> bool {
        self.men.iter().filter(|m| m.side == side).count() == 1
    }

    /// The material after man `j` (not royal) is captured: the same men in the same order without it.
    pub fn without(&self, j: usize) -> Material {
        let mut men = self.men.clone();
        men.remove(j);
        Material { men, kinds: self.kinds.clone() }
    }

    /// Whether men `a` and `b` are interchangeable (same side and kind, neither royal).
    pub fn identical(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.men[a], self.men[b]);
        x.side == y.side && x.kind == y.kind && !x.royal && !y.royal
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.men {
            if m.side == BLACK && m.royal {
                f.write_str(".")?;
            }
            write!(f, "{}", self.kinds[m.kind].letter)?;
        }
        Ok(())
    }
}
