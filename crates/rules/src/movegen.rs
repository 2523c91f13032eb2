//! Legal move generation: pins and check masks for checkmate variants built from
//! leapers and orthogonal/diagonal riders, make-and-test for everything else.

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind, MoveList};
use crate::piece::{Role, ROLE_SLOTS};
use crate::position::{Position, Threats};
use crate::square::Square;
use crate::variant::{RoleTables, Shape};

/// Restrictions under which moves are generated.
struct Mask {
    /// Destinations that answer a check (all squares when not in check).
    target: Bitboard,
    /// Squares where a drop answers a check.
    drop_target: Bitboard,
    /// Our pinned pieces.
    pinned: Bitboard,
    /// The enemy riders that pin them.
    pinners: Bitboard,
    /// Our king, when pins apply.
    king: Option<Square>,
}

impl Mask {
    /// Where pinned piece `from` may go: the squares between our king and its pinner, and the
    /// pinner. Not the whole line: a leaper along it (a dabbaba, an alfil) could jump past the
    /// pinner or over the king.
    #[inline]
    fn pin_segment(&self, sliders: &crate::magic::Sliders, from: Square) -> Bitboard {
        let Some(k) = self.king else { return Bitboard::FULL };
        if !self.pinned.contains(from) {
            return Bitboard::FULL;
        }
        for s in self.pinners {
            let between = sliders.between(k, s);
            if between.contains(from) {
                return between | Bitboard::from_square(s);
            }
        }
        sliders.line(k, from)
    }
}

#[inline(always)]
fn push(list: &mut MoveList, m: Move) {
    // The capacity bound is documented on MOVE_LIST_CAPACITY; never panic.
    let _ = list.try_push(m);
}

#[inline(always)]
fn emit(list: &mut MoveList, from: Square, targets: Bitboard) {
    for to in targets {
        push(list, Move::normal(from, to));
    }
}

#[inline(always)]
fn shift(b: Bitboard, by: i32) -> Bitboard {
    if by >= 0 {
        Bitboard(b.0 << by)
    } else {
        Bitboard(b.0 >> -by)
    }
}

/// Pawn moves onto `targets`, each coming from `to - delta`; promotions in `zone`.
#[inline(always)]
fn emit_pawns(list: &mut MoveList, targets: Bitboard, delta: i32, zone: Bitboard, promos: &[Role]) {
    let from = |to: Square| Square::from_index((to.index() as i32 - delta) as u8);
    for to in targets - zone {
        push(list, Move::normal(from(to), to));
    }
    for to in targets & zone {
        for &p in promos {
            push(list, Move::promotion(from(to), to, p));
        }
    }
}

impl Position {
    /// All legal moves. Hot loops should prefer [`Position::gen_legal`] into a list they own.
    #[inline]
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
        if t.switch_limit != 0 {
            self.gen_switch_limited(list, true);
            return;
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
        if self.variant.t.switch_limit != 0 {
            self.gen_switch_limited(list, false);
            return;
        }
        let start = list.len();
        if self.variant.win == crate::variant::WinCondition::KingCapture && self.king_lost() {
            // The game ended when the king was taken (as Fairy-Stockfish's extinction rule).
            return;
        }
        let blocked = self.blocked();
        let target = self.variant.t.mask - blocked;
        let mask = Mask { target, drop_target: target, pinned: Bitboard::EMPTY, pinners: Bitboard::EMPTY, king: None };
        self.gen_pieces(list, &mask, true);
        if self.castling != 0 {
            let threats = self.threats(!self.turn);
            let from = list.len();
            self.gen_castling(list, (!self.variant.self_check).then_some(&threats));
            if blocked.any() {
                // Neither the king nor the rook may land on a closed ring.
                let mut i = from;
                while i < list.len() {
                    let m = list[i];
                    let mut after = self.clone();
                    after.play_unchecked(m);
                    let moved = after.board.occupied() - self.board.occupied();
                    if moved.intersects(blocked) {
                        list.swap_remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
        }
        self.gen_drops(list, mask.drop_target);
        if self.variant.stuck_passes && list.len() == start {
            list.push(Move::PASS);
        }
    }

    /// Appends the legal captures and promotions (en passant included): what quiescence
    /// search needs, without generating the quiet moves and drops first where the fast
    /// generator applies.
    pub fn gen_captures(&self, list: &mut MoveList) {
        let t = &self.variant.t;
        let start = list.len();
        match self.king_square(self.turn) {
            Some(king) if t.fast_legal => self.gen_fast_masked(list, king, true),
            _ => self.gen_legal(list),
        }
        let theirs = self.board.by_color(!self.turn);
        let mut i = start;
        while i < list.len() {
            let m = list[i];
            let keep = m.promotion_role().is_some()
                || m.kind() == MoveKind::EnPassant
                || (m.kind() == MoveKind::Normal && theirs.contains(m.to()));
            if keep {
                i += 1;
            } else {
                list.swap_remove(i);
            }
        }
    }

    fn gen_fast(&self, list: &mut MoveList, king: Square) {
        self.gen_fast_masked(list, king, false)
    }

    /// The fast legal generator; with `tactical`, only moves onto enemy pieces or the
    /// promotion zone (the caller filters the rest), and no castling or drops.
    fn gen_fast_masked(&self, list: &mut MoveList, king: Square, tactical: bool) {
        let t = &self.variant.t;
        let us = self.turn;
        let them = !us;
        let ours = self.board.by_color(us);
        let theirs = self.board.by_color(them);
        let occ = ours | theirs;
        let threats = self.threats(them);
        let checkers = threats.attackers(king, occ);

        // Step 1. King moves: the destination must not be attacked once the king has left.
        if let Some(k) = t.king {
            let kt = &t.roles[k.index()];
            let without_king = occ ^ Bitboard::from_square(king);
            let targets = match kt.shape {
                Shape::Leaper => kt.both[us.index()][king.index()] - ours,
                _ => self.targets(kt, us.index(), king, occ, theirs),
            };
            let targets = if tactical { targets & theirs } else { targets };
            for to in targets {
                if !threats.attacked(to, without_king) {
                    push(list, Move::normal(king, to));
                }
            }
        }
        if checkers.more_than_one() {
            return;
        }

        // Step 2. Check mask: capture the checker, or block a sliding check.
        let (mut target, drop_target) = match checkers.first() {
            Some(c) => {
                let crole = self.board.role_at(c);
                let by_leap = crole.is_some_and(|r| {
                    t.rev_capture[them.index()][r.index() & (ROLE_SLOTS - 1)][king.index()].contains(c)
                });
                let block = if by_leap { Bitboard::EMPTY } else { t.sliders.between(king, c) };
                (block | checkers, block)
            }
            None => (t.mask, t.mask),
        };

        // Step 3. Pins by enemy orthogonal and diagonal riders.
        let mut pinned = Bitboard::EMPTY;
        let mut pinners = Bitboard::EMPTY;
        let orth = threats.orth();
        let diag = threats.diag();
        let snipers =
            (self.rook_attacks(king, Bitboard::EMPTY) & orth) | (self.bishop_attacks(king, Bitboard::EMPTY) & diag);
        for s in snipers {
            let b = t.sliders.between(king, s) & occ;
            if !b.more_than_one() && b.intersects(ours) {
                pinned |= b;
                pinners.set(s);
            }
        }

        if tactical {
            target &= theirs | t.promotion_zone[us.index()];
        }
        let mask = Mask { target, drop_target, pinned, pinners, king: Some(king) };
        self.gen_pieces(list, &mask, false);
        if tactical {
            return;
        }
        if checkers.is_empty() && self.castling != 0 {
            self.gen_castling(list, Some(&threats));
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
        // Destinations for the simple shapes: answer the check, never onto our own pieces.
        let target = mask.target - ours;
        if let Some(p) = t.pawn {
            let pawns = self.board.pieces(us, p);
            if pawns.any() {
                self.gen_pawns(list, &t.roles[p.index()], pawns, mask, occ, theirs);
            }
        }
        // Pure riders share one loop per direction set (a queen appears in both); pinned
        // pieces of every kind are handled together below.
        let skip_king = match (with_king, t.king) {
            (false, Some(k)) => {
                Bitboard::from_square(self.king_square(us).unwrap_or(Square::A1)) & self.board.pieces(us, k)
            }
            _ => Bitboard::EMPTY,
        };
        let movable = ours - mask.pinned - skip_king;
        for &r in &t.leaper_movers {
            let rt = &t.roles[r as usize];
            for from in self.board.by_role(Role(r)) & movable {
                emit(list, from, rt.both[u][from.index()] & target);
            }
        }
        for &r in &t.general_movers {
            let rt = &t.roles[r as usize];
            for from in self.board.by_role(Role(r)) & movable {
                emit(list, from, self.targets(rt, u, from, occ, theirs) & mask.target);
            }
        }
        let orth = self.roles_union(t.orth_movers) & movable;
        let diag = self.roles_union(t.diag_movers) & movable;
        if mask.king.is_some() {
            let pawns = t.pawn.map_or(Bitboard::EMPTY, |p| self.board.by_role(p));
            for from in (ours & mask.pinned) - pawns - skip_king {
                if let Some(r) = self.board.role_at(from) {
                    let rt = &t.roles[r.index()];
                    emit(
                        list,
                        from,
                        self.targets(rt, u, from, occ, theirs) & mask.target & mask.pin_segment(t.sliders, from),
                    );
                }
            }
        }
        for from in orth {
            emit(list, from, self.rook_attacks(from, occ) & target);
        }
        for from in diag {
            emit(list, from, self.bishop_attacks(from, occ) & target);
        }
        if let (Some(ep), Some(p)) = (self.ep, t.pawn) {
            let candidates = t.rev_capture[u][p.index() & (ROLE_SLOTS - 1)][ep.index()] & self.board.pieces(us, p);
            for from in candidates {
                let m = Move::en_passant(from, ep);
                // En passant can uncover a check along the rank: test it by playing it.
                if self.variant.self_check || self.king_square(us).is_none() || !self.leaves_king_attacked(m) {
                    push(list, m);
                }
            }
        }
    }

    /// Pawn moves: set-wise shifts for orthodox pawns that are not pinned, piece by piece otherwise.
    fn gen_pawns(
        &self,
        list: &mut MoveList,
        rt: &RoleTables,
        pawns: Bitboard,
        mask: &Mask,
        occ: Bitboard,
        theirs: Bitboard,
    ) {
        let t = &self.variant.t;
        let u = self.turn.index();
        let zone = t.promotion_zone[u];
        let promos = &self.variant.promotion;
        let (free, pinned) =
            if rt.std_pawn { (pawns - mask.pinned, pawns & mask.pinned) } else { (Bitboard::EMPTY, pawns) };
        if free.any() {
            let empty = t.mask - occ;
            let up: i32 = if u == 0 { 8 } else { -8 };
            let last_file = Bitboard::file(self.variant.geometry.files() - 1);
            let push1 = shift(free, up) & empty;
            emit_pawns(list, push1 & mask.target, up, zone, promos);
            if rt.has_double_step[u] {
                let push2 = shift(push1 & t.double_step_mid[u], up) & empty & (mask.target - zone);
                for to in push2 {
                    push(list, Move::double_step(Square::from_index((to.index() as i32 - 2 * up) as u8), to));
                }
            }
            let cap_left = shift(free - Bitboard::file(0), up - 1) & theirs & mask.target;
            emit_pawns(list, cap_left, up - 1, zone, promos);
            let cap_right = shift(free - last_file, up + 1) & theirs & mask.target;
            emit_pawns(list, cap_right, up + 1, zone, promos);
        }
        let occ_all = occ;
        for from in pinned {
            let pin_line = mask.pin_segment(t.sliders, from);
            let to = self.targets(rt, u, from, occ_all, theirs) & mask.target & pin_line;
            for sq in to - zone {
                push(list, Move::normal(from, sq));
            }
            for sq in to & zone {
                for &p in promos {
                    push(list, Move::promotion(from, sq, p));
                }
            }
            if let Some((mid, to2)) = rt.double_step[u][from.index()] {
                if !occ_all.contains(mid)
                    && !occ_all.contains(to2)
                    && mask.target.contains(to2)
                    && pin_line.contains(to2)
                    && !zone.contains(to2)
                {
                    push(list, Move::double_step(from, to2));
                }
            }
        }
    }

    /// Castling moves; with `threats`, the king may not stand in, cross or land on an attacked square.
    fn gen_castling(&self, list: &mut MoveList, threats: Option<&Threats<'_>>) {
        let t = &self.variant.t;
        let us = self.turn;
        let rights = (self.castling >> (2 * us.index())) & 0b11;
        if rights == 0 {
            return;
        }
        let occ = self.board.occupied();
        for side in 0..2 {
            if rights & (1 << side) == 0 {
                continue;
            }
            let Some(c) = t.castle[us.index()][side] else { continue };
            if c.empty.intersects(occ) {
                continue;
            }
            if let Some(threats) = threats {
                // Neither the king nor its rook shields a square it crosses: in Chess960 the
                // rook may stand between the king's landing square and an enemy slider.
                let movers = Bitboard::from_square(c.king_from) | Bitboard::from_square(c.rook_from);
                let without = occ - movers;
                if Iterator::any(&mut c.path.clone(), |sq| threats.attacked(sq, without)) {
                    continue;
                }
            }
            push(list, Move::castle(c.king_from, c.king_to));
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
        let mut list = MoveList::new();
        self.gen_legal(&mut list);
        list.len()
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        self.gen_legal(&mut list);
        !list.is_empty()
    }
}
