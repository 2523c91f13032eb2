//! Search values in centipawns with mate scores at the top of the range, and their
//! protocol form ([`Score`]: `cp N` or `mate N`).

use std::fmt;

/// A search value in centipawns from the side to move's point of view.
pub type Value = i32;

/// The value of delivering mate on this ply (or capturing the royal piece).
pub const MATE: Value = 32_000;
/// Larger than every value.
pub const INFINITE: Value = MATE + 1;
/// Values at or beyond this are mates found within the search horizon.
pub const MATE_BOUND: Value = MATE - 1_000;
/// The value of a draw.
pub const DRAW: Value = 0;
/// A win an endgame table proves without a mate distance (DTC), less the plies to conversion:
/// above every evaluation, below every mate.
pub const TB_WIN: Value = 20_000;

/// The value of being mated `ply` plies from the root.
pub const fn mated_in(ply: usize) -> Value {
    -MATE + ply as Value
}

/// The value of mating `ply` plies from the root.
pub const fn mate_in(ply: usize) -> Value {
    MATE - ply as Value
}

/// Converts a value found `ply` plies below the root to its form in the transposition
/// table (mate distances counted from the stored node).
pub const fn to_tt(v: Value, ply: usize) -> Value {
    if v >= MATE_BOUND {
        v + ply as Value
    } else if v <= -MATE_BOUND {
        v - ply as Value
    } else {
        v
    }
}

/// The inverse of [`to_tt`].
pub const fn from_tt(v: Value, ply: usize) -> Value {
    if v >= MATE_BOUND {
        v - ply as Value
    } else if v <= -MATE_BOUND {
        v + ply as Value
    } else {
        v
    }
}

/// A score as protocols report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// The protocol form of a root value.
    pub fn from_value(v: Value) -> Score {
        // Chance nodes can average a mate with other outcomes; such values fall below
        // MATE_BOUND unless the mate is nearly certain, and then read as that mate.
        if (MATE_BOUND..=MATE).contains(&v) {
            Score::Mate((MATE - v + 1) / 2)
        } else if (-MATE..=-MATE_BOUND).contains(&v) {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Cp(v)
        }
    }
}

impl fmt::Display for Score {
    /// UCI form: `cp 35`, `mate 3`, `mate -2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_read_in_moves() {
        assert_eq!(Score::from_value(mate_in(1)), Score::Mate(1));
        assert_eq!(Score::from_value(mate_in(3)), Score::Mate(2));
        assert_eq!(Score::from_value(mated_in(2)), Score::Mate(-1));
        assert_eq!(Score::from_value(mated_in(0)), Score::Mate(0));
        assert_eq!(Score::from_value(120), Score::Cp(120));
    }

    #[test]
    fn tt_conversion_round_trips() {
        for v in [mate_in(5), mated_in(7), 0, 250, -31] {
            assert_eq!(from_tt(to_tt(v, 9), 9), v);
        }
    }
}
