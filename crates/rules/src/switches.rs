//! Column-switch limits (Baby Chess): each move to another file costs the moving piece one
//! switch, counted in its state byte; a piece with no switches left moves and attacks only along its file.
//!
//! The variants with a limit take this generator instead of the pin-based one: it generates
//! every piece's moves from its leap tables and masked rider rays, and tests each move's
//! legality on the occupancy after the move (no copy of the position, no allocation).

use crate::bitboard::Bitboard;
use crate::board::SWITCHES;
use crate::color::Color;
use crate::moves::{Move, MoveList};
use crate::piece::{Role, ROLE_SLOTS};
use crate::position::Position;
use crate::square::Square;

#[inline(always)]
fn push(list: &mut MoveList, m: Move) {
    // The capacity bound is documented on MOVE_LIST_CAPACITY; never panic.
    let _ = list.try_push(m);
}

impl Position {
    /// The column switches the piece on `sq` has made (0 on an empty square and in
    /// variants without a limit).
    #[inline]
    pub fn switches_at(&self, sq: Square) -> u8 {
        if self.variant.t.switch_limit == 0 {
            0
        } else {
            self.board.state_at(sq) & SWITCHES
        }
    }

    /// The variant's column-switch limit (0: none).
    #[inline]
    pub fn switch_limit(&self) -> u8 {
        self.variant.t.switch_limit
    }

    /// Moves under a column-switch limit; with `legal`, only those that leave the
    /// mover's king unattacked.
    pub(crate) fn gen_switch_limited(&self, list: &mut MoveList, legal: bool) {
        let t = &self.variant.t;
        let us = self.turn;
        let c = us.index();
        let ours = self.board.by_color(us);
        let theirs = self.board.by_color(!us);
        let occ = ours | theirs;
        let empty = t.mask - occ;
        let king = if legal { self.king_square(us) } else { None };
        let zone = t.promotion_zone[c];
        let promos = &self.variant.promotion;
        for from in ours {
            let Some(role) = self.board.role_at(from) else { continue };
            let rt = &t.roles[role.index() & (ROLE_SLOTS - 1)];
            let i = from.index();
            let mut to = (rt.both[c][i] - ours) | (rt.quiet[c][i] & empty) | (rt.capture[c][i] & theirs);
            let orth = rt.rays[0][c][i];
            if orth.any() {
                to |= self.rook_attacks(from, occ) & orth & !ours;
            }
            let diag = rt.rays[1][c][i];
            if diag.any() {
                to |= self.bishop_attacks(from, occ) & diag & !ours;
            }
            if self.board.state_at(from) & SWITCHES >= t.switch_limit {
                to &= Bitboard::file(from.file());
            }
            let is_pawn = Some(role) == t.pawn;
            for sq in to {
                if !self.safe_after(king, from, sq) {
                    continue;
                }
                if is_pawn && zone.contains(sq) {
                    for &p in promos {
                        push(list, Move::promotion(from, sq, p));
                    }
                } else {
                    push(list, Move::normal(from, sq));
                }
            }
            if let Some((mid, to2)) = rt.double_step[c][i] {
                if !occ.contains(mid) && !occ.contains(to2) && !zone.contains(to2) && self.safe_after(king, from, to2) {
                    push(list, Move::double_step(from, to2));
                }
            }
        }
    }

    /// Whether our king (`None`: do not test) is unattacked after our piece moves from `from` to `to`.
    #[inline(always)]
    fn safe_after(&self, king: Option<Square>, from: Square, to: Square) -> bool {
        let Some(k) = king else { return true };
        let ksq = if k == from { to } else { k };
        let to_bb = Bitboard::from_square(to);
        let occ = (self.board.occupied() - Bitboard::from_square(from)) | to_bb;
        let them = !self.turn;
        self.switch_attackers(ksq, them, occ, self.board.by_color(them) - to_bb).is_empty()
    }

    /// The pieces of `by` among `pieces` that attack `sq` with blockers `occ`, by moves they
    /// could really make: their own (forward or sideways) directions, and along their file
    /// only once their switches are used up.
    pub(crate) fn switch_attackers(&self, sq: Square, by: Color, occ: Bitboard, pieces: Bitboard) -> Bitboard {
        let t = &self.variant.t;
        let b = by.index();
        let mut a = Bitboard::EMPTY;
        let mut bits = t.leap_capturers;
        while bits != 0 {
            let r = bits.trailing_zeros() as usize;
            a |= t.rev_capture[b][r & (ROLE_SLOTS - 1)][sq.index()] & self.board.by_role(Role(r as u8));
            bits &= bits - 1;
        }
        a &= pieces;
        let orth = self.roles_union(t.ray_orth_roles) & pieces;
        if orth.any() {
            for s in self.rook_attacks(sq, occ) & orth {
                if self.rays_of(s, 0, b).contains(sq) {
                    a.set(s);
                }
            }
        }
        let diag = self.roles_union(t.ray_diag_roles) & pieces;
        if diag.any() {
            for s in self.bishop_attacks(sq, occ) & diag {
                if self.rays_of(s, 1, b).contains(sq) {
                    a.set(s);
                }
            }
        }
        // An attack onto another file needs a switch left.
        for s in a - Bitboard::file(sq.file()) {
            if self.board.state_at(s) & SWITCHES >= t.switch_limit {
                a.clear(s);
            }
        }
        a
    }

    #[inline(always)]
    fn rays_of(&self, s: Square, kind: usize, c: usize) -> Bitboard {
        match self.board.role_at(s) {
            Some(r) => self.variant.t.roles[r.index() & (ROLE_SLOTS - 1)].rays[kind][c][s.index()],
            None => Bitboard::EMPTY,
        }
    }
}
