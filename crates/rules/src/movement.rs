//! How a piece moves: a set of leaper and rider atoms.
//! Betza notation and FairyGen `piecedef.ini` both parse into this one model.

use std::fmt;

/// What an atom may do on its destination square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Only onto an empty square (Betza `m`, piecedef `n`).
    Move,
    /// Only onto an enemy piece (Betza `c`, piecedef `c`).
    Capture,
    /// Either.
    Both,
}

impl Mode {
    /// Whether quiet moves are allowed.
    #[inline]
    pub const fn can_move(self) -> bool {
        matches!(self, Mode::Move | Mode::Both)
    }

    /// Whether captures are allowed.
    #[inline]
    pub const fn can_capture(self) -> bool {
        matches!(self, Mode::Capture | Mode::Both)
    }
}

/// One direction of movement: a step `(dx, dy)` as seen by White (Black's
/// steps mirror `dy`), repeated up to `range` times (1 = a leaper, 0 = an
/// unlimited rider, `n` = a rider of at most `n` steps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Atom {
    /// File change per step (positive towards the h-file).
    pub dx: i8,
    /// Rank change per step for White (positive = forward).
    pub dy: i8,
    /// 1 for a leaper, 0 for an unlimited rider, otherwise the maximum number of steps.
    pub range: u8,
    /// Move, capture or both.
    pub mode: Mode,
    /// Allowed only as a pawn's initial move (Betza `i`), e.g. the double step.
    pub initial: bool,
    /// A lame leap (Betza `n`): the squares passed on the way must be empty. For
    /// straight leaps (D, A) the squares between; for oblique ones (nN, nZ) one
    /// orthogonal step along the longer axis, then diagonal steps (xiangqi horse, janggi elephant).
    pub lame: bool,
}

impl Atom {
    /// A leaper atom usable for both moving and capturing.
    pub const fn leap(dx: i8, dy: i8) -> Atom {
        Atom { dx, dy, range: 1, mode: Mode::Both, initial: false, lame: false }
    }

    /// An unlimited rider atom usable for both moving and capturing.
    pub const fn ride(dx: i8, dy: i8) -> Atom {
        Atom { dx, dy, range: 0, mode: Mode::Both, initial: false, lame: false }
    }

    /// With another mode.
    pub const fn with_mode(mut self, mode: Mode) -> Atom {
        self.mode = mode;
        self
    }

    /// Whether this atom leaps (a single step).
    #[inline]
    pub const fn is_leaper(&self) -> bool {
        self.range == 1
    }

    /// Whether the step is orthogonal (one coordinate zero).
    pub const fn is_orthogonal(&self) -> bool {
        (self.dx == 0) != (self.dy == 0)
    }

    /// Whether the step is diagonal (|dx| = |dy| > 0).
    pub const fn is_diagonal(&self) -> bool {
        self.dx != 0 && self.dx.abs() == self.dy.abs()
    }
}

/// The eight images of a step under the board's symmetries, without duplicates.
pub fn eight_fold(dx: i8, dy: i8) -> Vec<(i8, i8)> {
    let mut out: Vec<(i8, i8)> = Vec::with_capacity(8);
    for (a, b) in [(dx, dy), (dy, dx)] {
        for (sa, sb) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let v = (a * sa, b * sb);
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// The four images of a step under horizontal and vertical mirroring.
pub fn four_fold(dx: i8, dy: i8) -> Vec<(i8, i8)> {
    let mut out: Vec<(i8, i8)> = Vec::with_capacity(4);
    for (sa, sb) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
        let v = (dx * sa, dy * sb);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// A piece's movement: the union of its atoms, one per concrete direction.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Movement {
    atoms: Vec<Atom>,
}

impl Movement {
    /// A movement from concrete atoms; exact duplicates are merged, and a
    /// move-only and a capture-only copy of the same atom become one `Both`.
    pub fn new(atoms: impl IntoIterator<Item = Atom>) -> Movement {
        let mut m = Movement::default();
        for a in atoms {
            m.push(a);
        }
        m
    }

    /// Adds one atom (merging as [`Movement::new`] does).
    pub fn push(&mut self, atom: Atom) {
        if atom.dx == 0 && atom.dy == 0 {
            return;
        }
        for a in &mut self.atoms {
            let same_shape = a.dx == atom.dx
                && a.dy == atom.dy
                && a.range == atom.range
                && a.initial == atom.initial
                && a.lame == atom.lame;
            if same_shape {
                if a.mode == atom.mode {
                    return;
                }
                if a.mode != Mode::Both && atom.mode != Mode::Both {
                    a.mode = Mode::Both;
                    return;
                }
                if a.mode == Mode::Both {
                    return;
                }
            }
        }
        self.atoms.push(atom);
    }

    /// Adds all atoms of another movement.
    pub fn extend(&mut self, other: &Movement) {
        for a in &other.atoms {
            self.push(*a);
        }
    }

    /// The atoms.
    pub fn atoms(&self) -> &[Atom] {
        &self.atoms
    }

    /// Whether there are no atoms.
    pub fn is_empty(&self) -> bool {
        self.atoms.is_empty()
    }

    /// Whether the movement is the same under all eight board symmetries
    /// (needed for FairyGen's 8-fold table reduction).
    pub fn is_eight_fold_symmetric(&self) -> bool {
        self.atoms.iter().all(|a| {
            eight_fold(a.dx, a.dy).into_iter().all(|(dx, dy)| {
                self.atoms.iter().any(|b| {
                    b.dx == dx
                        && b.dy == dy
                        && b.range == a.range
                        && b.mode == a.mode
                        && b.initial == a.initial
                        && b.lame == a.lame
                })
            })
        })
    }

    /// Whether the movement is the same for left and right (files mirrored).
    pub fn is_left_right_symmetric(&self) -> bool {
        self.atoms.iter().all(|a| {
            self.atoms.iter().any(|b| {
                b.dx == -a.dx
                    && b.dy == a.dy
                    && b.range == a.range
                    && b.mode == a.mode
                    && b.initial == a.initial
                    && b.lame == a.lame
            })
        })
    }

    /// The standard pieces, as built from atoms.
    pub fn king() -> Movement {
        Movement::new(eight_fold(1, 0).into_iter().chain(eight_fold(1, 1)).map(|(x, y)| Atom::leap(x, y)))
    }

    /// The knight.
    pub fn knight() -> Movement {
        Movement::new(eight_fold(1, 2).into_iter().map(|(x, y)| Atom::leap(x, y)))
    }

    /// The bishop.
    pub fn bishop() -> Movement {
        Movement::new(eight_fold(1, 1).into_iter().map(|(x, y)| Atom::ride(x, y)))
    }

    /// The rook.
    pub fn rook() -> Movement {
        Movement::new(eight_fold(1, 0).into_iter().map(|(x, y)| Atom::ride(x, y)))
    }

    /// The queen.
    pub fn queen() -> Movement {
        let mut m = Movement::rook();
        m.extend(&Movement::bishop());
        m
    }

    /// The orthodox pawn without its double step: `fmWfcF`.
    pub fn pawn() -> Movement {
        Movement::new([
            Atom::leap(0, 1).with_mode(Mode::Move),
            Atom::leap(1, 1).with_mode(Mode::Capture),
            Atom::leap(-1, 1).with_mode(Mode::Capture),
        ])
    }

    /// The orthodox pawn's initial double step, `ifmnD`.
    pub fn pawn_double_step() -> Atom {
        Atom { dx: 0, dy: 2, range: 1, mode: Mode::Move, initial: true, lame: true }
    }
}

impl fmt::Display for Movement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.atoms.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            let mode = match a.mode {
                Mode::Move => "m",
                Mode::Capture => "c",
                Mode::Both => "",
            };
            write!(f, "{}{}({},{})x{}", if a.initial { "i" } else { "" }, mode, a.dx, a.dy, a.range)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orthodox_atom_counts() {
        assert_eq!(Movement::king().atoms().len(), 8);
        assert_eq!(Movement::knight().atoms().len(), 8);
        assert_eq!(Movement::queen().atoms().len(), 8);
        assert!(Movement::queen().is_eight_fold_symmetric());
        assert!(!Movement::pawn().is_eight_fold_symmetric());
        assert!(Movement::pawn().is_left_right_symmetric());
    }

    #[test]
    fn move_and_capture_merge() {
        let m = Movement::new([Atom::leap(1, 0).with_mode(Mode::Move), Atom::leap(1, 0).with_mode(Mode::Capture)]);
        assert_eq!(m.atoms(), &[Atom::leap(1, 0)]);
    }
}
