//! Whether a move gives check, answered without playing it: the moved piece's own attack
//! on the enemy king plus the lines it opens, for the variants whose pieces are tabulated.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::piece::MAX_ROLES;
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
    /// Per role: the squares from which that piece of ours would attack the king over
    /// the current occupancy (filled only when `fast`).
    squares: [Bitboard; MAX_ROLES],
    /// Our pieces that alone stand between one of our riders and the king: the only
    /// pieces whose move can discover a check.
    blockers: Bitboard,
}

impl Position {
    /// The facts about the enemy king that [`Position::gives_check_with`] reuses.
    pub fn check_info(&self) -> CheckInfo {
        let us = self.turn;
        let king = self.king_square(!us);
        let threats = self.threats(us);
        let fast = !threats.is_slow() && self.variant.t.generic_roles == 0;
        let (orth, diag) = (threats.orth(), threats.diag());
        let mut info = CheckInfo {
            king,
            leapers: Bitboard::EMPTY,
            orth,
            diag,
            fast,
            squares: [Bitboard::EMPTY; MAX_ROLES],
            blockers: Bitboard::EMPTY,
        };
        let Some(k) = king.filter(|_| fast) else { return info };
        let t = &self.variant.t;
        let occ = self.board.occupied();
        let ours = self.board.by_color(us);
        info.leapers = threats.leapers_to(k);
        let rook = self.rook_attacks(k, occ);
        let bishop = self.bishop_attacks(k, occ);
        if rook.intersects(orth) || bishop.intersects(diag) {
            // The enemy king already stands attacked by a rider (a failed move in a chance
            // variant can leave it so): a move may block that line; play it instead.
            info.fast = false;
            return info;
        }
        let rev = &t.rev_capture[us.index()];
        for (r, sq) in info.squares.iter_mut().enumerate().take(t.roles.len()) {
            *sq = rev[r][k.index()];
            if t.orth_capturers & 1 << r != 0 {
                *sq |= rook;
            }
            if t.diag_capturers & 1 << r != 0 {
                *sq |= bishop;
            }
        }
        if orth.any() {
            for b in rook & ours {
                if self.rook_attacks(k, occ - Bitboard::from_square(b)).intersects(orth) {
                    info.blockers.set(b);
                }
            }
        }
        if diag.any() {
            for b in bishop & ours {
                if self.bishop_attacks(k, occ - Bitboard::from_square(b)).intersects(diag) {
                    info.blockers.set(b);
                }
            }
        }
        info
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
        if m.to() == ksq && !m.is_drop() && !m.is_pass() {
            // Taking the king (king-capture variants) ends the game: nothing is left to check.
            return false;
        }
        if !info.fast {
            return self.gives_check_by_playing(m);
        }
        let to = m.to();
        // The common cases by table: a plain move or a drop. The moved piece's own attack
        // does not depend on the square it left (a rider that leaves a line towards the
        // king was on it, closer, already); a discovered check needs a blocker to move.
        match m.kind() {
            MoveKind::Drop => {
                if let Some(r) = m.drop_role() {
                    return info.squares[r.index() % MAX_ROLES].contains(to) || info.leapers.any();
                }
            }
            MoveKind::Normal | MoveKind::DoubleStep if m.promotion_role().is_none() => {
                if let Some(r) = self.board.role_at(m.from()) {
                    let from = Bitboard::from_square(m.from());
                    if info.squares[r.index() % MAX_ROLES].contains(to) || (info.leapers - from).any() {
                        return true;
                    }
                    if !info.blockers.contains(m.from()) {
                        return false;
                    }
                    let occ_after = (self.board.occupied() - from) | Bitboard::from_square(to);
                    let (orth, diag) = (info.orth - from, info.diag - from);
                    return (orth.any() && self.rook_attacks(ksq, occ_after).intersects(orth))
                        || (diag.any() && self.bishop_attacks(ksq, occ_after).intersects(diag));
                }
            }
            _ => {}
        }
        let occ = self.board.occupied();
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
