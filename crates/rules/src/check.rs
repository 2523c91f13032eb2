//! Whether a move gives check, answered without playing it: the moved piece's own attack
//! on the enemy king plus the lines it opens, for the variants whose pieces are tabulated.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::position::Position;
use crate::square::Square;

/// What [`Position::gives_check_with`] needs about the enemy king, gathered once per position.
#[derive(Debug, Clone, Copy)]
pub struct CheckInfo {
    /// The enemy royal piece's square.
    king: Option<Square>,
    /// Our leapers attacking it now, and our orthogonal and diagonal riders.
    leapers: Bitboard,
    orth: Bitboard,
    diag: Bitboard,
    /// The variant's pieces are tabulated (no generic atoms): no need to play the move.
    fast: bool,
}

impl Position {
    /// The facts about the enemy king that [`Position::gives_check_with`] reuses.
    pub fn check_info(&self) -> CheckInfo {
        let us = self.turn;
        let king = self.king_square(!us);
        let threats = self.threats(us);
        let fast = !threats.is_slow() && self.variant.t.generic_roles == 0;
        let leapers = match king {
            Some(k) if fast => threats.leapers_to(k),
            _ => Bitboard::EMPTY,
        };
        CheckInfo { king, leapers, orth: threats.orth(), diag: threats.diag(), fast }
    }

    /// Whether the enemy royal piece is attacked after `m` (a legal move of the side to
    /// move): exactly `{ let mut p = self.clone(); p.play_unchecked(m); p.is_check() }`.
    pub fn gives_check(&self, m: Move) -> bool {
        self.gives_check_with(&self.check_info(), m)
    }

    /// [`Position::gives_check`] with the king facts gathered once (`info` must come from
    /// this position): no copy of the position where the variant's pieces allow it.
    pub fn gives_check_with(&self, info: &CheckInfo, m: Move) -> bool {
        let Some(ksq) = info.king else { return false };
        if !info.fast {
            return self.gives_check_by_playing(m);
        }
        let occ = self.board.occupied();
        let to = m.to();
        let to_bb = Bitboard::from_square(to);
        let (role, occ_after, gone) = match m.kind() {
            MoveKind::Drop => match m.drop_role() {
                Some(r) => (r, occ | to_bb, Bitboard::EMPTY),
                None => return self.gives_check_by_playing(m),
            },
            MoveKind::Normal | MoveKind::DoubleStep => {
                let from = Bitboard::from_square(m.from());
                match m.promotion_role().or_else(|| self.board.role_at(m.from())) {
                    Some(r) => (r, (occ - from) | to_bb, from),
                    None => return self.gives_check_by_playing(m),
                }
            }
            MoveKind::EnPassant => {
                let from = Bitboard::from_square(m.from());
                let (Some(r), Some(victim)) = (self.board.role_at(m.from()), Square::new(to.file(), m.from().rank()))
                else {
                    return self.gives_check_by_playing(m);
                };
                (r, (occ - from - Bitboard::from_square(victim)) | to_bb, from)
            }
            _ => return self.gives_check_by_playing(m),
        };
        // The moved (or dropped, or promoted) piece itself; then every other piece of ours
        // over the new occupancy: a check already there, or a line the move opened.
        if self.attacks(to, self.turn, role, occ_after).contains(ksq) || (info.leapers - gone).any() {
            return true;
        }
        let (orth, diag) = (info.orth - gone, info.diag - gone);
        (orth.any() && self.rook_attacks(ksq, occ_after).intersects(orth))
            || (diag.any() && self.bishop_attacks(ksq, occ_after).intersects(diag))
    }

    fn gives_check_by_playing(&self, m: Move) -> bool {
        let mut after = self.clone();
        after.play_unchecked(m);
        after.is_check()
    }
}
