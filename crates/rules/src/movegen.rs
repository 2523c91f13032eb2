//! Legal move generation: pins and check masks for checkmate variants built from
//! leapers and orthogonal/diagonal riders, make-and-test for everything else.

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::moves::{Move, MoveKind, MoveList};
use crate::piece::Role;
use crate::position::Position;
use crate::square::Square;

/// Restrictions under which moves are generated.
struct Mask {
    /// Destinations that answer a check (all squares when not in check).
    target: Bitboard,
    /// Squares where a drop answers a check.
    drop_target: Bitboard,
    /// Our pinned pieces.
    pinned: Bitboard,
    /// Our king, when pins apply.
    king: Option<Square>,
}

#[inline(always)]
fn push(list: &mut MoveList, m: Move) {
    // The capacity bound is documented on MOVE_LIST_CAPACITY; never panic.
    let _ = list.try_push(m);
}

impl Position {
    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.gen_legal(&mut list);
        list
    }

    /// Appends all legal moves to `list`.
    pub fn gen_legal(&self, list: &mut MoveList) {
        let t = &self.variant.t;
        if t.fast_legal {
            if let Some(king) = self.king_square(self.turn) {
                self.gen_fast(list, king);
                return;
            }
        }
        let start = list.len();
        self.gen_pseudo(list);
        if !self.variant.self_check && self.king_square(self.turn).is_some() {
            let mut i = start;
            while i < list.len() {
                if self.leaves_king_attacked(list[i]) {
                    list.swap_remove(i);
                } else {
                    i += 1;
                }
            }
        }
    }

    /// Whether playing `m` leaves the mover's royal piece attacked.
    fn leaves_king_attacked(&self, m: Move) -> bool {
        let mut after = self.clone();
        after.play_unchecked(m);
        after.is_attacked_king(self.turn)
    }

    /// Pseudo-legal moves: everything the pieces can do, ignoring own-king safety
    /// (castling still needs an unattacked path unless self-check is legal).
    pub fn gen_pseudo(&self, list: &mut MoveList) {
        let mask = Mask { target: self.variant.t.mask, drop_target: self.variant.t.mask, pinned: Bitboard::EMPTY, king: None };
        self.gen_pieces(list, &mask, true);
        self.gen_castling(list, !self.variant.self_check);
        self.gen_drops(list, mask.drop_target);
    }

    fn gen_fast(&self, list: &mut MoveList, king: Square) {
        let t = &self.variant.t;
        let us = self.turn;
        let them = !us;
        let ours = self.board.by_color(us);
        let theirs = self.board.by_color(them);
        let occ = ours | theirs;
        let checkers = self.attackers_to(king, them, occ);

        // Step 1. King moves: the destination must not be attacked once the king has left.
        if let Some(k) = t.king {
            let kt = &t.roles[k.index()];
            let without_king = occ ^ Bitboard::from_square(king);
            for to in self.targets(kt, us.index(), king, occ, theirs) {
                if self.attackers_to(to, them, without_king).is_empty() {
                    push(list, Move::normal(king, to));
                }
            }
        }
        if checkers.more_than_one() {
            return;
        }

        // Step 2. Check mask: capture the checker, or block a sliding check.
        let (target, drop_target) = match checkers.first() {
            Some(c) => {
                let crole = self.board.role_at(c);
                let by_leap = crole.is_some_and(|r| t.roles[r.index()].rev_capture[them.index()][king.index()].contains(c));
                let block = if by_leap { Bitboard::EMPTY } else { t.sliders.between(king, c) };
                (block | checkers, block)
            }
            None => (t.mask, t.mask),
        };

        // Step 3. Pins by enemy orthogonal and diagonal riders.
        let mut pinned = Bitboard::EMPTY;
        let orth = self.roles_union(t.orth_capturers) & theirs;
        let diag = self.roles_union(t.diag_capturers) & theirs;
        let snipers = (self.rook_attacks(king, Bitboard::EMPTY) & orth) | (self.bishop_attacks(king, Bitboard::EMPTY) & diag);
        for s in snipers {
            let b = t.sliders.between(king, s) & occ;
            if !b.more_than_one() && b.intersects(ours) {
                pinned |= b;
            }
        }

        let mask = Mask { target, drop_target, pinned, king: Some(king) };
        self.gen_pieces(list, &mask, false);
        if checkers.is_empty() {
            self.gen_castling(list, true);
        }
        self.gen_drops(list, drop_target);
    }

    /// Moves of all pieces (the king's too when `with_king`), promotions, double steps and en passant.
    fn gen_pieces(&self, list: &mut MoveList, mask: &Mask, with_king: bool) {
        let t = &self.variant.t;
        let us = self.turn;
        let u = us.index();
        let ours = self.board.by_color(us);
        let theirs = self.board.by_color(!us);
        let occ = ours | theirs;
        for (r, rt) in t.roles.iter().enumerate() {
            let role = Role(r as u8);
            if !with_king && Some(role) == t.king {
                continue;
            }
            let pieces = self.board.pieces(us, role);
            if pieces.is_empty() {
                continue;
            }
            let is_pawn = Some(role) == t.pawn;
            for from in pieces {
                let mut to = self.targets(rt, u, from, occ, theirs) & mask.target;
                let pin_line = match mask.king {
                    Some(k) if mask.pinned.contains(from) => t.sliders.line(k, from),
                    _ => Bitboard::FULL,
                };
                to &= pin_line;
                if is_pawn {
                    let promo = to & t.promotion_zone[u];
                    for sq in to - promo {
                        push(list, Move::normal(from, sq));
                    }
                    for sq in promo {
                        for &p in &self.variant.promotion {
                            push(list, Move::promotion(from, sq, p));
                        }
                    }
                    if let Some((mid, to2)) = rt.double_step[u][from.index()] {
                        if !occ.contains(mid)
                            && !occ.contains(to2)
                            && mask.target.contains(to2)
                            && pin_line.contains(to2)
                            && !t.promotion_zone[u].contains(to2)
                        {
                            push(list, Move::double_step(from, to2));
                        }
                    }
                } else {
                    for sq in to {
                        push(list, Move::normal(from, sq));
                    }
                }
            }
        }
        if let (Some(ep), Some(p)) = (self.ep, t.pawn) {
            let candidates = t.roles[p.index()].rev_capture[u][ep.index()] & self.board.pieces(us, p);
            for from in candidates {
                let m = Move::en_passant(from, ep);
                // En passant can uncover a check along the rank: test it by playing it.
                if self.variant.self_check || self.king_square(us).is_none() || !self.leaves_king_attacked(m) {
                    push(list, m);
                }
            }
        }
    }

    fn gen_castling(&self, list: &mut MoveList, need_safe: bool) {
        let v = self.variant;
        let Some(c) = v.castling else { return };
        let us = self.turn;
        let rights = (self.castling >> (2 * us.index())) & 0b11;
        if rights == 0 {
            return;
        }
        let Some(king) = self.king_square(us) else { return };
        let occ = self.board.occupied();
        let rank = king.rank();
        for side in 0..2 {
            if rights & (1 << side) == 0 {
                continue;
            }
            let (Some(king_to), Some(rook_from), Some(rook_to)) =
                (Square::new(c.king_to[side], rank), Square::new(c.rook_file[side], rank), Square::new(c.rook_to[side], rank))
            else {
                continue;
            };
            let span = |a: Square, b: Square| -> Bitboard {
                let (lo, hi) = if a.file() <= b.file() { (a.file(), b.file()) } else { (b.file(), a.file()) };
                (lo..=hi).filter_map(|f| Square::new(f, rank)).collect()
            };
            let must_be_empty = (span(king, king_to) | span(rook_from, rook_to)) - Bitboard::from_square(king) - Bitboard::from_square(rook_from);
            if must_be_empty.intersects(occ) {
                continue;
            }
            if need_safe {
                let without_king = occ ^ Bitboard::from_square(king);
                if Iterator::any(&mut span(king, king_to), |sq| self.attackers_to(sq, !us, without_king).any()) {
                    continue;
                }
            }
            push(list, Move::castle(king, king_to));
        }
    }

    fn gen_drops(&self, list: &mut MoveList, drop_target: Bitboard) {
        let v = self.variant;
        if !v.drops {
            return;
        }
        let hand = &self.hands[self.turn.index()];
        if hand.is_empty() {
            return;
        }
        let empty = (v.t.mask - self.board.occupied()) & drop_target;
        for (role, _) in hand.iter() {
            let squares = if Some(role) == v.t.pawn { empty & v.t.pawn_drop } else { empty };
            for sq in squares {
                push(list, Move::drop(role, sq));
            }
        }
    }

    /// Number of legal moves (cheaper than collecting them when only the count matters).
    pub fn count_legal(&self) -> usize {
        self.legal_moves().len()
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        !self.legal_moves().is_empty()
    }

    /// Legal moves of the side to move matching a predicate on (from, to, kind).
    pub fn legal_moves_filtered(&self, mut keep: impl FnMut(Move) -> bool) -> MoveList {
        let mut list = self.legal_moves();
        list.retain(|m| keep(*m));
        list
    }

    /// The colour to move (convenience for generic code).
    pub fn side_to_move(&self) -> Color {
        self.turn
    }

    /// Whether a move is a castling move.
    pub fn is_castle(m: Move) -> bool {
        m.kind() == MoveKind::Castle
    }
}
