//! A move in 32 bits and the fixed-capacity move list move generation fills.
//! Moves are interpreted against the position they were generated in.

use crate::piece::Role;
use crate::square::Square;
use arrayvec::ArrayVec;
use std::fmt;

/// What kind of move a [`Move`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A normal move or capture, possibly promoting.
    Normal,
    /// A pawn's double step (sets the en-passant square).
    DoubleStep,
    /// An en-passant capture.
    EnPassant,
    /// Castling; `from`/`to` are the king's squares.
    Castle,
    /// A drop from hand; the role is [`Move::drop_role`].
    Drop,
    /// Passing the turn: only in variants where a side without a move passes
    /// (Probabilistic chess), and only then ([`Move::PASS`]).
    Pass,
}

/// A move: from, to, kind and promotion role, packed in 32 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u32);

const KIND_SHIFT: u32 = 16;

impl Move {
    #[inline]
    const fn pack(from: u8, to: Square, promo: u8, kind: u32) -> Move {
        Move(from as u32 | (to.index() as u32) << 6 | (promo as u32) << 12 | kind << KIND_SHIFT)
    }

    /// A normal move.
    #[inline]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::pack(from.index() as u8, to, 0, 0)
    }

    /// A promotion to `role`.
    #[inline]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        // A role beyond any variant's (at most 12) becomes 15, which no legal move has, rather
        // than spilling into the kind bits.
        Move::pack(from.index() as u8, to, if role.0 < 15 { role.0 + 1 } else { 15 }, 0)
    }

    /// A pawn double step.
    #[inline]
    pub const fn double_step(from: Square, to: Square) -> Move {
        Move::pack(from.index() as u8, to, 0, 1)
    }

    /// An en-passant capture landing on `to`.
    #[inline]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from.index() as u8, to, 0, 2)
    }

    /// Castling, given by the king's move.
    #[inline]
    pub const fn castle(king_from: Square, king_to: Square) -> Move {
        Move::pack(king_from.index() as u8, king_to, 0, 3)
    }

    /// A drop of `role` on `to`.
    #[inline]
    pub const fn drop(role: Role, to: Square) -> Move {
        // Likewise a role that would spill out of the 6-bit field becomes 63.
        Move::pack(if role.0 < 64 { role.0 } else { 63 }, to, 0, 4)
    }

    /// The pass of a side that has no move, in variants where it passes instead of being
    /// stalemated (UCI `0000`, SAN `--`).
    pub const PASS: Move = Move(5 << KIND_SHIFT);

    /// The kind.
    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> KIND_SHIFT {
            0 => MoveKind::Normal,
            1 => MoveKind::DoubleStep,
            2 => MoveKind::EnPassant,
            3 => MoveKind::Castle,
            4 => MoveKind::Drop,
            _ => MoveKind::Pass,
        }
    }

    /// Whether this is [`Move::PASS`].
    #[inline]
    pub const fn is_pass(self) -> bool {
        self.0 >> KIND_SHIFT == 5
    }

    /// Whether this is a drop.
    #[inline]
    pub const fn is_drop(self) -> bool {
        self.0 >> KIND_SHIFT == 4
    }

    /// The origin square (meaningless for drops).
    #[inline]
    pub const fn from(self) -> Square {
        Square::from_index((self.0 & 63) as u8)
    }

    /// The origin square, or `None` for a drop or a pass.
    #[inline]
    pub const fn from_square(self) -> Option<Square> {
        if self.is_drop() || self.is_pass() {
            None
        } else {
            Some(self.from())
        }
    }

    /// The destination square.
    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index(((self.0 >> 6) & 63) as u8)
    }

    /// The promotion role.
    #[inline]
    pub const fn promotion_role(self) -> Option<Role> {
        let p = (self.0 >> 12) & 15;
        if p == 0 {
            None
        } else {
            Some(Role(p as u8 - 1))
        }
    }

    /// The dropped role, for a drop.
    #[inline]
    pub const fn drop_role(self) -> Option<Role> {
        if self.is_drop() {
            Some(Role((self.0 & 63) as u8))
        } else {
            None
        }
    }

    /// The raw encoding (stable within a build, used as a compact key).
    pub const fn raw(self) -> u32 {
        self.0
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_pass() {
            return write!(f, "Pass");
        }
        match self.drop_role() {
            Some(r) => write!(f, "Drop({}@{})", r.0, self.to()),
            None => {
                write!(f, "{:?}({}{}", self.kind(), self.from(), self.to())?;
                if let Some(r) = self.promotion_role() {
                    write!(f, "={}", r.0)?;
                }
                write!(f, ")")
            }
        }
    }
}

/// Capacity of a [`MoveList`]. A position has at most n(64-n) board moves for
/// n pieces of the mover (at most 1024), plus drops (at most 64 per role in
/// hand) and promotions; [`Variant::new`](crate::Variant::new) refuses a variant whose
/// positions could have more (its bound counts each pawn step into the last rank once per
/// promotion piece), so no list ever overflows.
pub const MOVE_LIST_CAPACITY: usize = 2048;

/// A list of moves on the stack.
pub type MoveList = ArrayVec<Move, MOVE_LIST_CAPACITY>;
