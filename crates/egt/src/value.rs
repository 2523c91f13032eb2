//! What a table stores per position and side to move (one byte: a distance in plies, even for a
//! win of the side to move, odd for a loss; draw; invalid) and the rules it was generated under.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A draw (or, in one-sided tables, "not won for White").
pub const DRAW: u8 = 254;
/// Not a position: two men on one square, or a non-canonical symmetric image.
pub const INVALID: u8 = 255;
/// The largest distance in plies a byte holds (126 moves).
pub const MAX_PLIES: u32 = 253;

/// Distance metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Distance to conversion: to the next capture, mate or king capture (FairyGen's default).
    Dtc,
    /// Distance to mate (king capture), through captures (`-m`).
    Dtm,
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Metric::Dtc => "DTC",
            Metric::Dtm => "DTM",
        })
    }
}

/// The rules a family of tables is generated under (FairyGen's options and ours).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableRules {
    /// DTC or DTM.
    pub metric: Metric,
    /// `-0`: Black (the defender) may pass when it has a legal move.
    pub null_move: bool,
    /// `-s`: stalemating the opponent wins.
    pub stalemate_wins: bool,
    /// `-b`: a bare black royal (White keeping a man besides its royal) loses.
    pub bare_king_loses: bool,
    /// FairyGen's one-sided mode: only White's wins are computed; Black's wins count as draws.
    pub one_sided: bool,
}

impl Default for TableRules {
    fn default() -> TableRules {
        TableRules {
            metric: Metric::Dtc,
            null_move: false,
            stalemate_wins: false,
            bare_king_loses: false,
            one_sided: false,
        }
    }
}

impl TableRules {
    /// Whether `-b` decides `material` at once: Black has only its royal, White has more.
    pub fn bare_king_lost(&self, material: &crate::material::Material) -> bool {
        use crate::material::{BLACK, WHITE};
        self.bare_king_loses && material.is_bare(BLACK) && !material.is_bare(WHITE)
    }

    /// The options in FairyGen's command-line spelling (`-m -0 -s -b`, plus `--one-sided`).
    pub fn flags(&self) -> String {
        let mut out = Vec::new();
        if self.metric == Metric::Dtm {
            out.push("-m");
        }
        if self.null_move {
            out.push("-0");
        }
        if self.stalemate_wins {
            out.push("-s");
        }
        if self.bare_king_loses {
            out.push("-b");
        }
        if self.one_sided {
            out.push("--one-sided");
        }
        out.join(" ")
    }
}

/// A decoded table entry, from the side to move's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many of its moves (0: it captures the royal now).
    Win(u32),
    /// The side to move loses after this many of its moves (0: checkmated now).
    Loss(u32),
    /// Neither side can force a win (one-sided tables: White cannot).
    Draw,
    /// Not a position.
    Invalid,
}

impl Value {
    /// Decodes a stored byte.
    #[inline]
    pub fn from_byte(v: u8) -> Value {
        match v {
            DRAW => Value::Draw,
            INVALID => Value::Invalid,
            p if p % 2 == 0 => Value::Win(u32::from(p) / 2),
            p => Value::Loss(u32::from(p - 1) / 2),
        }
    }

    /// The value of the position before a move into a position worth `self` (for the other side).
    pub fn before(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(n),
            Value::Loss(n) => Value::Win(n + 1),
            v => v,
        }
    }

    /// A rank for choosing moves: higher is better for the side to move.
    pub fn rank(self) -> i64 {
        match self {
            Value::Win(n) => 1_000_000 - i64::from(n),
            Value::Draw => 0,
            Value::Loss(n) => -1_000_000 + i64::from(n),
            Value::Invalid => i64::MIN,
        }
    }
}

/// Whether a stored byte is a win for the side to move.
#[inline]
pub fn is_win(v: u8) -> bool {
    v < DRAW && v.is_multiple_of(2)
}

/// Whether a stored byte is a loss for the side to move.
#[inline]
pub fn is_loss(v: u8) -> bool {
    v < DRAW && v % 2 == 1
}
