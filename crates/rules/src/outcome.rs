//! How a game ends: decisive results and draws, with the reason.
//! `Position::outcome` judges a single position; `Game` adds repetition.

use crate::color::Color;
use crate::position::Position;
use crate::variant::{InsufficientMaterial, WinCondition};
use std::fmt;

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EndReason {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// A royal piece was captured.
    KingCaptured,
    /// Fifty moves without capture or pawn move.
    FiftyMoves,
    /// The same position for the third time.
    Repetition,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The variant's ply limit was reached; the side with more material (pawn 1, knight and
    /// bishop 3, rook 5, queen 9) wins, equal material is a draw.
    PlyLimit,
    /// A side did not order in time (Predictor chess: nobody on the team committed by the
    /// ply's deadline).
    Time,
    /// A side's orders could not be played (Predictor chess: the chosen member did not reveal,
    /// or revealed orders that do not open the commitment or are illegal).
    Forfeit,
    /// A side resigned.
    Resignation,
    /// The players agreed to a draw.
    Agreement,
    /// Someone outside the game gave its result (the play server's operator ending an abandoned
    /// game).
    Adjudication,
}

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The winner.
        winner: Color,
        /// Why.
        reason: EndReason,
    },
    /// Nobody won.
    Draw {
        /// Why.
        reason: EndReason,
    },
}

impl Outcome {
    /// The PGN result string.
    pub fn result(&self) -> &'static str {
        match self {
            Outcome::Decisive { winner: Color::White, .. } => "1-0",
            Outcome::Decisive { winner: Color::Black, .. } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }

    /// Why the game ended.
    pub fn reason(&self) -> EndReason {
        match *self {
            Outcome::Decisive { reason, .. } | Outcome::Draw { reason } => reason,
        }
    }
}

impl EndReason {
    /// Every reason, in declaration order.
    pub const ALL: [EndReason; 12] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::KingCaptured,
        EndReason::FiftyMoves,
        EndReason::Repetition,
        EndReason::InsufficientMaterial,
        EndReason::PlyLimit,
        EndReason::Time,
        EndReason::Forfeit,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Adjudication,
    ];

    /// The reason's stable name, one word in lower case, as the play server stores it and its API
    /// and match records give it (`kingcaptured`, `fiftymoves`, `insufficientmaterial`, ...):
    /// fixed here, not derived from the Rust names, so that renaming a variant changes no stored
    /// game.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::KingCaptured => "kingcaptured",
            EndReason::FiftyMoves => "fiftymoves",
            EndReason::Repetition => "repetition",
            EndReason::InsufficientMaterial => "insufficientmaterial",
            EndReason::PlyLimit => "plylimit",
            EndReason::Time => "time",
            EndReason::Forfeit => "forfeit",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Adjudication => "adjudication",
        }
    }

    /// The reason in words, as it follows "wins by" or "draw by".
    pub fn words(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::KingCaptured => "capturing the king",
            EndReason::FiftyMoves => "the fifty-move rule",
            EndReason::Repetition => "threefold repetition",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::PlyLimit => "material at the ply limit",
            EndReason::Time => "time",
            EndReason::Forfeit => "forfeit",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Adjudication => "adjudication",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Decisive { winner, reason } => {
                write!(f, "{} ({winner} wins by {})", self.result(), reason.words())
            }
            Outcome::Draw { reason: EndReason::KingCaptured } => {
                write!(f, "{} (draw: both kings are gone)", self.result())
            }
            Outcome::Draw { reason } => write!(f, "{} (draw by {})", self.result(), reason.words()),
        }
    }
}

impl Position {
    /// The outcome judged from this position alone (no repetition), or `None` if play goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        let v = self.variant;
        let us = self.turn;
        if v.win == WinCondition::KingCapture {
            for c in [us, !us] {
                if v.king().is_some() && self.king_square(c).is_none() {
                    return Some(Outcome::Decisive { winner: !c, reason: EndReason::KingCaptured });
                }
            }
        }
        if let Some(o) = self.ply_limit_outcome() {
            return Some(o);
        }
        if !self.has_legal_move() {
            if self.is_check() && v.win == WinCondition::Checkmate {
                return Some(Outcome::Decisive { winner: !us, reason: EndReason::Checkmate });
            }
            return Some(Outcome::Draw { reason: EndReason::Stalemate });
        }
        if self.is_insufficient_material() {
            return Some(Outcome::Draw { reason: EndReason::InsufficientMaterial });
        }
        if v.draws.fifty_move && self.halfmoves >= 100 {
            return Some(Outcome::Draw { reason: EndReason::FiftyMoves });
        }
        None
    }

    /// Whether the side to move is checkmated: in check, in a variant won by checkmate, with no
    /// legal move.
    pub fn is_checkmate(&self) -> bool {
        self.variant.win == WinCondition::Checkmate && self.is_check() && !self.has_legal_move()
    }

    /// Whether the side to move is stalemated: no legal move and not checkmated (in the variants
    /// where a side without a move passes, as in Probabilistic chess, never).
    pub fn is_stalemate(&self) -> bool {
        !self.has_legal_move() && !self.is_checkmate()
    }

    /// The variant's ply limit reached: the material adjudication (RULINGS § Probabilistic 5:
    /// more material wins, equal is a draw), else `None`.
    pub fn ply_limit_outcome(&self) -> Option<Outcome> {
        let limit = self.variant.ply_limit?;
        if self.ply() < limit {
            return None;
        }
        let [w, b] = [Color::White, Color::Black].map(|c| self.adjudication_material(c));
        Some(match w.cmp(&b) {
            std::cmp::Ordering::Greater => Outcome::Decisive { winner: Color::White, reason: EndReason::PlyLimit },
            std::cmp::Ordering::Less => Outcome::Decisive { winner: Color::Black, reason: EndReason::PlyLimit },
            std::cmp::Ordering::Equal => Outcome::Draw { reason: EndReason::PlyLimit },
        })
    }

    /// Whether a side's royal piece has been captured, in a variant that has one.
    pub fn king_lost(&self) -> bool {
        self.variant.king().is_some_and(|k| {
            let b = &self.board;
            b.pieces(Color::White, k).is_empty() || b.pieces(Color::Black, k).is_empty()
        })
    }

    /// Plies played since the start of the game, from the fullmove number and the side to move.
    pub fn ply(&self) -> u32 {
        // Saturating: a FEN may give any fullmove number up to u32::MAX.
        self.fullmoves.saturating_sub(1).saturating_mul(2).saturating_add(u32::from(self.turn == Color::Black))
    }

    /// A side's material for a ply-limit adjudication: pawn 1, knight and bishop 3, rook 5,
    /// queen 9 (by letter; other pieces count nothing), on the board and in hand.
    pub fn adjudication_material(&self, color: Color) -> u32 {
        let v = self.variant;
        let mut sum = 0;
        for (i, p) in v.pieces.iter().enumerate() {
            let value = match p.letter {
                'p' => 1,
                'n' | 'b' => 3,
                'r' => 5,
                'q' => 9,
                _ => 0,
            };
            let role = crate::Role(i as u8);
            sum += value * (self.board.pieces(color, role).count() + u32::from(self.hands[color.index()].count(role)));
        }
        sum
    }

    /// Whether neither side can ever mate, by the variant's rule.
    pub fn is_insufficient_material(&self) -> bool {
        self.insufficient_on(&self.board)
    }

    /// Whether neither side could ever mate if the piece on `sq` were taken off (the hands
    /// as they are): the material a capture of that piece would leave.
    pub fn is_insufficient_material_without(&self, sq: crate::Square) -> bool {
        let mut board = self.board;
        board.take(sq);
        self.insufficient_on(&board)
    }

    /// Whether no move can reset the fifty-move count while `winner` plays for mate: the
    /// winner has no pawns, the other side a bare king, nothing is in hand, and taking any one of
    /// the winner's pieces leaves insufficient material (so a won position never allows it; KQK,
    /// KRK, KBNK). A mate beyond the clock is then a draw by the fifty-move rule.
    pub fn nothing_resets_the_count(&self, winner: Color) -> bool {
        let v = self.variant;
        let b = &self.board;
        let Some(king) = v.king() else { return false };
        let loser = !winner;
        b.by_color(loser) == b.pieces(loser, king)
            && v.pawn().is_none_or(|pawn| b.pieces(winner, pawn).is_empty())
            && self.hands.iter().all(|h| h.is_empty())
            && (b.by_color(winner) - b.pieces(winner, king)).all(|sq| self.is_insufficient_material_without(sq))
    }

    /// [`Position::is_insufficient_material`] for this position's hands and another board.
    fn insufficient_on(&self, b: &crate::board::Board) -> bool {
        let v = self.variant;
        let occ = b.occupied();
        let by_letter = |l: char| v.role_by_letter(l).map_or(crate::Bitboard::EMPTY, |r| b.by_role(r));
        match v.draws.insufficient {
            InsufficientMaterial::Never => false,
            InsufficientMaterial::Crazyhouse => {
                let in_hand: u32 = self.hands.iter().map(|h| h.total()).sum();
                let heavy_in_hand =
                    self.hands.iter().any(|h| h.iter().any(|(r, _)| matches!(v.piece(r).letter, 'p' | 'r' | 'q')));
                occ.count() + in_hand <= 3
                    && b.promoted().is_empty()
                    && (by_letter('p') | by_letter('r') | by_letter('q')).is_empty()
                    && !heavy_in_hand
            }
            InsufficientMaterial::BareKings => {
                let kings = v.king().map_or(crate::Bitboard::EMPTY, |k| b.by_role(k));
                self.hands.iter().all(|h| h.is_empty()) && (occ - kings).is_empty()
            }
            InsufficientMaterial::Fide => {
                if !self.hands.iter().all(|h| h.is_empty()) {
                    return false;
                }
                let kings = v.king().map_or(crate::Bitboard::EMPTY, |k| b.by_role(k));
                let others = occ - kings;
                let knights = by_letter('n');
                let bishops = by_letter('b');
                if (others - knights - bishops).any() {
                    return false;
                }
                if others.count() <= 1 {
                    return true;
                }
                // Only bishops, all on squares of one colour.
                if knights.is_empty() {
                    let dark = crate::Bitboard(0xAA55_AA55_AA55_AA55);
                    return (bishops & dark).is_empty() || (bishops - dark).is_empty();
                }
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored names are fixed (API.md lists them): distinct, one lower-case word each.
    #[test]
    fn end_reasons_have_fixed_distinct_names() {
        let names: Vec<&str> = EndReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            [
                "checkmate",
                "stalemate",
                "kingcaptured",
                "fiftymoves",
                "repetition",
                "insufficientmaterial",
                "plylimit",
                "time",
                "forfeit",
                "resignation",
                "agreement",
                "adjudication"
            ]
        );
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
    }
}
