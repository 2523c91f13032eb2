//! The validated, playable position: placement, hands, side to move, castling,
//! en passant, counters and an incrementally updated Zobrist hash.

use crate::bitboard::Bitboard;
use crate::board::{Board, PROMOTED};
use crate::color::Color;
use crate::hand::Hand;
use crate::movement::Mode;
use crate::moves::{Move, MoveKind};
use crate::piece::{Piece, Role, ROLE_SLOTS};
use crate::setup::Setup;
use crate::square::Square;
use crate::variant::{GenericAtom, RoleTables, Variant, WinCondition};
use crate::zobrist;

/// Why a setup is not a playable position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PositionError {
    /// A side has the wrong number of royal pieces.
    #[error("{0} must have exactly one king")]
    KingCount(Color),
    /// A side has more than one royal piece.
    #[error("{0} has more than one king")]
    TooManyKings(Color),
    /// A pawn stands on its first or last rank.
    #[error("pawn on the first or last rank at {0}")]
    PawnOnBackRank(Square),
    /// The side not to move is in check.
    #[error("the side not to move is in check")]
    OppositeCheck,
    /// A castling right without the king and rook on their squares.
    #[error("castling right '{0}' without king and rook on their starting squares")]
    BadCastlingRights(char),
    /// A castling right in a variant without castling (Gardner, a custom variant of 4 files).
    #[error("castling right '{0}' in a variant without castling (write '-')")]
    NoCastling(char),
    /// Chess960 castling rights that name no consistent set of king and rook files.
    #[error("Chess960 castling: {0}")]
    Chess960Castling(String),
    /// An en-passant square that no double step can have produced.
    #[error("invalid en-passant square {0}")]
    BadEnPassant(Square),
    /// A piece off the board.
    #[error("piece outside the board at {0}")]
    OffBoard(Square),
    /// Pieces in hand in a variant without drops.
    #[error("pieces in hand, but this variant has no drops")]
    HandWithoutDrops,
    /// A piece of a kind the variant does not have (a setup built for another variant).
    #[error("the piece at {0} is of a kind this variant does not have")]
    UnknownPiece(Square),
    /// A piece in hand of a kind the variant does not have.
    #[error("{0} holds a piece of a kind this variant does not have")]
    UnknownHandPiece(Color),
    /// A piece with more column switches than the variant's limit (or any in a variant without one).
    #[error("piece at {square} has {count} column switches, more than the limit {limit}")]
    TooManySwitches {
        /// Where the piece stands.
        square: Square,
        /// Its count.
        count: u8,
        /// The variant's limit (0: none).
        limit: u8,
    },
}

/// A move that is not legal in the position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {uci} in {fen}")]
pub struct IllegalMove {
    /// The move in UCI notation.
    pub uci: String,
    /// The position.
    pub fen: String,
}

/// A position of a variant, ready to generate and play moves.
#[derive(Clone)]
pub struct Position {
    pub(crate) variant: &'static Variant,
    pub(crate) board: Board,
    pub(crate) hands: [Hand; 2],
    pub(crate) turn: Color,
    pub(crate) castling: u8,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) hash: u64,
    /// A byte per square owned by the variant (e.g. blocked squares of a shrinking
    /// board); part of the hash. Zero everywhere in the orthodox variants.
    pub(crate) square_state: [u8; 64],
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        std::ptr::eq(self.variant, other.variant)
            && self.board == other.board
            && self.hands == other.hands
            && self.turn == other.turn
            && self.castling == other.castling
            && self.ep == other.ep
            && self.halfmoves == other.halfmoves
            && self.fullmoves == other.fullmoves
            && self.square_state == other.square_state
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({} {})", self.variant.name, self.fen())
    }
}

impl Position {
    /// The variant's start position.
    pub fn start(variant: &'static Variant) -> Position {
        match Position::from_fen(variant, &variant.start_fen) {
            Ok(p) => p,
            // Variant construction validates the start FEN, so this is unreachable.
            Err(e) => unreachable!("start position of {} is invalid: {e}", variant.name),
        }
    }

    /// Validates a setup.
    pub fn from_setup(variant: &'static Variant, setup: Setup) -> Result<Position, PositionError> {
        // Roles beyond the variant's (a setup made for another variant, or by hand).
        let kinds = variant.rules().pieces.len();
        let b = &setup.board;
        let foreign = |sq: Square| b.piece_at(sq).is_none_or(|p| p.role.index() >= kinds);
        let stray = (kinds..ROLE_SLOTS).map(|r| b.by_role(Role(r as u8))).fold(Bitboard::EMPTY, |a, x| a | x);
        if let Some(sq) = stray.first().or_else(|| b.occupied().into_iter().find(|&sq| foreign(sq))) {
            return Err(PositionError::UnknownPiece(sq));
        }
        if let Some(c) = Color::ALL.into_iter().find(|c| setup.hands[c.index()].iter().any(|(r, _)| r.index() >= kinds))
        {
            return Err(PositionError::UnknownHandPiece(c));
        }
        // Chess960: the castling rights choose the variant with their king and rook files.
        let variant = crate::variants::chess960::resolve(variant, &setup)?;
        let t = &variant.t;
        if let Some(sq) = (b.occupied() & t.offboard).first() {
            return Err(PositionError::OffBoard(sq));
        }
        let hands_empty = setup.hands[0].is_empty() && setup.hands[1].is_empty();
        if !variant.drops && !hands_empty {
            return Err(PositionError::HandWithoutDrops);
        }
        if let Some(k) = t.king {
            for c in Color::ALL {
                let n = b.pieces(c, k).count();
                if n > 1 {
                    return Err(PositionError::TooManyKings(c));
                }
                // Kings may be gone where the rules let them be taken: by capture (the
                // king-capture variants) or in Predictor chess (captured or annihilated), whose
                // final positions must read back too.
                if n == 0 && variant.win == WinCondition::Checkmate && !variant.simultaneous {
                    return Err(PositionError::KingCount(c));
                }
            }
        }
        if let Some(p) = t.pawn {
            // A pawn on its last rank should have promoted; on its first rank it can only
            // stand if its moves lead backwards (a custom pawn such as `fbmWfcF`).
            let backwards = variant.piece(p).movement.atoms().iter().any(|a| a.dy < 0);
            for c in Color::ALL {
                let mut wrong = t.promotion_zone[c.index()];
                if !backwards {
                    wrong |= t.promotion_zone[(!c).index()];
                }
                if let Some(sq) = (b.pieces(c, p) & wrong).first() {
                    return Err(PositionError::PawnOnBackRank(sq));
                }
            }
        }
        for sq in b.occupied() {
            let count = b.state_at(sq) & crate::board::SWITCHES;
            if count > t.switch_limit {
                return Err(PositionError::TooManySwitches { square: sq, count, limit: t.switch_limit });
            }
        }
        let mut castling = 0u8;
        for (i, &bit) in setup.castling.iter().enumerate() {
            if !bit {
                continue;
            }
            let color = if i < 2 { Color::White } else { Color::Black };
            let side = i % 2;
            let ch = ['K', 'Q', 'k', 'q'][i];
            let c = variant.castling.ok_or(PositionError::NoCastling(ch))?;
            let rank = variant.geometry.relative_rank_mask(color, 0).first().map_or(0, |s| s.rank());
            // The castling partner is the rook where the variant has one (a queen on h1 gives no
            // `K` right), else any piece but a king or a pawn.
            let rook = variant.role_by_letter('r');
            let partner = |role| match rook {
                Some(r) => role == r,
                None => Some(role) != t.king && Some(role) != t.pawn,
            };
            let ok = match (t.king, Square::new(c.king_file, rank), Square::new(c.rook_file[side], rank)) {
                (Some(k), Some(ks), Some(rs)) => {
                    b.piece_at(ks) == Some(Piece { color, role: k })
                        && b.piece_at(rs).is_some_and(|p| p.color == color && partner(p.role))
                }
                _ => false,
            };
            if !ok {
                return Err(PositionError::BadCastlingRights(ch));
            }
            castling |= 1 << i;
        }
        let mut pos = Position {
            variant,
            board: setup.board,
            hands: setup.hands,
            turn: setup.turn,
            castling,
            ep: None,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
            hash: 0,
            square_state: setup.square_state,
        };
        if let Some(ep) = setup.ep {
            // The double step went from behind `ep` to in front of it, seen from the mover.
            let them = !setup.turn;
            let dy: i32 = them.fold(1, -1);
            let g = variant.geometry;
            let valid = variant.en_passant
                && t.pawn.is_some_and(|p| {
                    let pawn_sq = g.square(ep.file() as i32, ep.rank() as i32 + dy);
                    let origin = g.square(ep.file() as i32, ep.rank() as i32 - dy);
                    g.relative_rank(them, ep) == 2
                        && pawn_sq.is_some_and(|s| pos.board.piece_at(s) == Some(Piece { color: them, role: p }))
                        && origin.is_some_and(|s| pos.board.piece_at(s).is_none())
                        && pos.board.piece_at(ep).is_none()
                });
            if !valid {
                return Err(PositionError::BadEnPassant(ep));
            }
            if pos.ep_capturable(ep, setup.turn) {
                pos.ep = Some(ep);
            }
        }
        // In a simultaneous variant (Predictor chess) both sides order from the same position,
        // so either king may stand attacked: there is no side that "just moved".
        if variant.win == WinCondition::Checkmate && !variant.self_check && !variant.simultaneous {
            if let Some(k) = pos.king_square(!pos.turn) {
                if pos.attackers_to(k, pos.turn, pos.board.occupied()).any() {
                    return Err(PositionError::OppositeCheck);
                }
            }
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// The variant.
    #[inline]
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// Piece placement.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// A side's hand.
    #[inline]
    pub fn hand(&self, color: Color) -> &Hand {
        &self.hands[color.index()]
    }

    /// Side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The side of a castling move of this position: 0 king side, 1 queen side (`None` for
    /// other moves).
    pub fn castle_side(&self, m: Move) -> Option<usize> {
        let c = self.variant.castling.filter(|_| m.kind() == MoveKind::Castle)?;
        Some(c.side(m.to().file()))
    }

    /// The square of the rook a castling move `m` takes along (`None` for any other move).
    pub(crate) fn castle_rook_square(&self, m: Move) -> Option<Square> {
        match (self.variant.castling, self.castle_side(m)) {
            (Some(c), Some(side)) => Square::new(c.rook_file[side], m.from().rank()),
            _ => None,
        }
    }

    /// Where UCI writes a castling move's destination: the king's square, or its rook's (the
    /// king taking its own rook) in Chess960 and where the king's square would read as a step
    /// of the king (on boards of 5 to 7 files), as Fairy-Stockfish switches to that notation. A
    /// king that castles without moving (long castling on 5 files) is written `c1c1`, as
    /// Fairy-Stockfish writes it.
    pub(crate) fn castle_uci_to(&self, m: Move) -> Square {
        match (self.variant.castling, self.castle_side(m)) {
            (Some(c), Some(side)) if c.chess960 || self.king_step(m.from(), m.to()) => {
                Square::new(c.rook_file[side], m.from().rank()).unwrap_or(m.to())
            }
            _ => m.to(),
        }
    }

    /// Whether a king on `from` could step to `to` by its own move.
    fn king_step(&self, from: Square, to: Square) -> bool {
        if from == to {
            return false;
        }
        let t = &self.variant.t;
        let color = self.board.piece_at(from).map_or(self.turn, |p| p.color);
        match t.king.map(|k| &t.roles[k.index()]) {
            Some(kt) if kt.shape == crate::variant::Shape::Leaper => kt.both[color.index()][from.index()].contains(to),
            _ => {
                let (df, dr) = (from.file().abs_diff(to.file()), from.rank().abs_diff(to.rank()));
                df.max(dr) <= 1
            }
        }
    }

    /// Castling rights as `[K, Q, k, q]`.
    pub fn castling_rights(&self) -> [bool; 4] {
        [0, 1, 2, 3].map(|i| self.castling & (1 << i) != 0)
    }

    /// The en-passant square if an enemy pawn could capture there (pseudo-legally).
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// Plies since the last capture or pawn move.
    #[inline]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number, starting at 1 and increased after Black moves.
    #[inline]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The Zobrist hash (placement, piece states, hands, side, castling, en passant).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The variant's byte for a square (see [`Position::set_square_state`]).
    #[inline]
    pub fn square_state(&self, sq: Square) -> u8 {
        self.square_state[sq.index()]
    }

    /// Sets the variant's byte for a square (kept in the hash). Variants use it for
    /// per-square facts that change during a game, such as squares blocked by a
    /// shrinking board.
    pub fn set_square_state(&mut self, sq: Square, value: u8) {
        let old = std::mem::replace(&mut self.square_state[sq.index()], value);
        self.hash ^= zobrist::square_state(sq.index(), old) ^ zobrist::square_state(sq.index(), value);
    }

    /// The Zobrist hash recomputed from scratch (equals [`Position::hash`] when the
    /// incremental updates are right).
    pub fn hash_from_scratch(&self) -> u64 {
        self.compute_hash()
    }

    /// The square of a side's royal piece.
    #[inline]
    pub fn king_square(&self, color: Color) -> Option<Square> {
        self.variant.t.king.and_then(|k| self.board.pieces(color, k).first())
    }

    /// Enemy pieces attacking the side to move's king.
    pub fn checkers(&self) -> Bitboard {
        match self.king_square(self.turn) {
            Some(k) => self.attackers_to(k, !self.turn, self.board.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.king_square(self.turn).is_some_and(|k| self.is_attacked(k, !self.turn, self.board.occupied()))
    }

    /// Whether a side's royal piece is attacked (false if it has none).
    pub fn is_attacked_king(&self, color: Color) -> bool {
        self.king_square(color).is_some_and(|k| self.is_attacked(k, !color, self.board.occupied()))
    }

    pub(crate) fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for sq in self.board.occupied() {
            if let Some(p) = self.board.piece_at(sq) {
                h ^= zobrist::piece(p.color.index(), p.role.index(), sq.index());
                h ^= zobrist::state(sq.index(), self.board.state_at(sq));
            }
        }
        for c in Color::ALL {
            for (r, n) in self.hands[c.index()].iter() {
                h ^= zobrist::hand(c.index(), r.index(), n);
            }
        }
        h ^= zobrist::castling(self.castling);
        for (i, &v) in self.square_state.iter().enumerate() {
            h ^= zobrist::square_state(i, v);
        }
        if let Some(ep) = self.ep {
            h ^= zobrist::ep_file(ep.file());
        }
        if self.turn == Color::Black {
            h ^= zobrist::BLACK_TO_MOVE;
        }
        h
    }

    // ---- Attacks -------------------------------------------------------

    #[inline(always)]
    pub(crate) fn rook_attacks(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let t = &self.variant.t;
        t.sliders.rook(sq, occ | t.offboard) & t.mask
    }

    #[inline(always)]
    pub(crate) fn bishop_attacks(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let t = &self.variant.t;
        t.sliders.bishop(sq, occ | t.offboard) & t.mask
    }

    /// The union of the pieces of the roles in `bits`.
    #[inline(always)]
    pub(crate) fn roles_union(&self, mut bits: u16) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        while bits != 0 {
            let r = bits.trailing_zeros() as usize;
            out |= self.board.by_role(Role(r as u8));
            bits &= bits - 1;
        }
        out
    }

    /// Pieces of `by` (restricted to `occ`) that attack `sq` with blockers `occ`.
    pub fn attackers_to(&self, sq: Square, by: Color, occ: Bitboard) -> Bitboard {
        let t = &self.variant.t;
        let theirs = self.board.by_color(by) & occ;
        if t.switch_limit != 0 {
            return self.switch_attackers(sq, by, occ, theirs);
        }
        let b = by.index();
        let mut a = Bitboard::EMPTY;
        let orth = self.roles_union(t.orth_capturers) & theirs;
        if orth.any() {
            a |= self.rook_attacks(sq, occ) & orth;
        }
        let diag = self.roles_union(t.diag_capturers) & theirs;
        if diag.any() {
            a |= self.bishop_attacks(sq, occ) & diag;
        }
        let mut bits = t.leap_capturers;
        while bits != 0 {
            let r = bits.trailing_zeros() as usize;
            a |= t.rev_capture[b][r & (ROLE_SLOTS - 1)][sq.index()] & self.board.by_role(Role(r as u8)) & theirs;
            bits &= bits - 1;
        }
        let mut bits = t.generic_roles;
        while bits != 0 {
            let r = bits.trailing_zeros() as usize;
            let mine = self.board.by_role(Role(r as u8)) & theirs;
            if mine.any() {
                for atom in &t.roles[r].generic {
                    if atom.mode.can_capture() {
                        a |= self.generic_reverse(atom, b, sq, occ) & mine;
                    }
                }
            }
            bits &= bits - 1;
        }
        a
    }

    /// The attack sources of `by`, gathered once for many attack queries.
    #[inline]
    pub(crate) fn threats(&self, by: Color) -> Threats<'_> {
        let t = &self.variant.t;
        let theirs = self.board.by_color(by);
        Threats {
            pos: self,
            by,
            theirs,
            orth: self.roles_union(t.orth_capturers) & theirs,
            diag: self.roles_union(t.diag_capturers) & theirs,
            rev: &t.rev_capture[by.index()],
            slow: t.slow_attacks,
        }
    }

    /// Whether `by` attacks `sq` with blockers `occ` (early exit; same rules as `attackers_to`).
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        self.threats(by).attacked(sq, occ)
    }

    /// Squares from which `atom` (for colour index `c`) would reach `sq` given `occ`:
    /// the first occupied square walking backwards within range.
    fn generic_reverse(&self, atom: &GenericAtom, c: usize, sq: Square, occ: Bitboard) -> Bitboard {
        let g = &self.variant.geometry;
        let (dx, dy) = (atom.dx[c] as i32, atom.dy[c] as i32);
        if atom.lame && atom.range == 1 {
            let Some(origin) = g.square(sq.file() as i32 - dx, sq.rank() as i32 - dy) else { return Bitboard::EMPTY };
            if lame_path(g, origin, dx, dy).is_some_and(|p| !p.intersects(occ)) {
                return Bitboard::from_square(origin);
            }
            return Bitboard::EMPTY;
        }
        let mut cur = sq;
        let mut steps = 0u8;
        while let Some(next) = g.square(cur.file() as i32 - dx, cur.rank() as i32 - dy) {
            steps += 1;
            if atom.range != 0 && steps > atom.range {
                break;
            }
            if occ.contains(next) {
                return Bitboard::from_square(next);
            }
            cur = next;
        }
        Bitboard::EMPTY
    }

    /// Targets of a generic atom from `from` (quiet onto empty squares, captures onto `theirs`).
    fn generic_targets(&self, atom: &GenericAtom, c: usize, from: Square, occ: Bitboard, theirs: Bitboard) -> Bitboard {
        let g = &self.variant.geometry;
        let (dx, dy) = (atom.dx[c] as i32, atom.dy[c] as i32);
        let mut out = Bitboard::EMPTY;
        let mut cur = from;
        let mut steps = 0u8;
        while let Some(next) = g.square(cur.file() as i32 + dx, cur.rank() as i32 + dy) {
            steps += 1;
            if atom.range != 0 && steps > atom.range {
                break;
            }
            if atom.lame && atom.range == 1 && lame_path(g, from, dx, dy).is_none_or(|p| p.intersects(occ)) {
                break;
            }
            if occ.contains(next) {
                if atom.mode.can_capture() && theirs.contains(next) {
                    out.set(next);
                }
                break;
            }
            if atom.mode.can_move() {
                out.set(next);
            }
            cur = next;
        }
        out
    }

    /// Destinations of a piece of role tables `rt`, colour index `c`, on `from`:
    /// quiet moves onto empty squares and captures onto `theirs`.
    #[inline(always)]
    pub(crate) fn targets(&self, rt: &RoleTables, c: usize, from: Square, occ: Bitboard, theirs: Bitboard) -> Bitboard {
        let t = &self.variant.t;
        let empty = t.mask - occ;
        let mut both = rt.both[c][from.index()];
        let mut out = Bitboard::EMPTY;
        // A full rider adds to the move-or-capture set, or to one side of it.
        let mut ride = |mode: Option<Mode>, attacks: &dyn Fn() -> Bitboard| match mode {
            Some(Mode::Both) => both |= attacks(),
            Some(Mode::Move) => out |= attacks() & empty,
            Some(Mode::Capture) => out |= attacks() & theirs,
            None => {}
        };
        ride(rt.orth, &|| self.rook_attacks(from, occ));
        ride(rt.diag, &|| self.bishop_attacks(from, occ));
        out |= both & (empty | theirs);
        if rt.split_leaps {
            out |= (rt.quiet[c][from.index()] & empty) | (rt.capture[c][from.index()] & theirs);
        }
        for atom in &rt.generic {
            out |= self.generic_targets(atom, c, from, occ, theirs);
        }
        out
    }

    /// Whether a pawn of `side` could capture onto `ep` (ignoring pins).
    fn ep_capturable(&self, ep: Square, side: Color) -> bool {
        let t = &self.variant.t;
        t.pawn.is_some_and(|p| {
            (t.rev_capture[side.index()][p.index() & (ROLE_SLOTS - 1)][ep.index()] & self.board.pieces(side, p)).any()
        })
    }

    // ---- Playing moves -------------------------------------------------

    #[inline(always)]
    fn xor_piece(&mut self, p: Piece, sq: Square, state: u8) {
        self.hash ^= zobrist::piece(p.color.index(), p.role.index(), sq.index());
        if state != 0 {
            self.hash ^= zobrist::state(sq.index(), state);
        }
    }

    #[inline(always)]
    pub(crate) fn take_piece(&mut self, sq: Square) -> Option<(Piece, u8)> {
        let taken = self.board.take(sq);
        if let Some((p, st)) = taken {
            self.xor_piece(p, sq, st);
        }
        taken
    }

    #[inline(always)]
    pub(crate) fn put_piece(&mut self, sq: Square, p: Piece, state: u8) {
        self.board.put(sq, p, state);
        self.xor_piece(p, sq, state);
    }

    pub(crate) fn add_to_hand(&mut self, color: Color, role: Role) {
        let c = color.index();
        let old = self.hands[c].count(role);
        if let Some(new) = self.hands[c].add(role) {
            self.hash ^= zobrist::hand(c, role.index(), old) ^ zobrist::hand(c, role.index(), new);
        }
    }

    /// Plays a move generated for this position, without checking it.
    /// Playing anything else leaves the position inconsistent (but never panics in release builds).
    pub fn play_unchecked(&mut self, m: Move) {
        if m.is_pass() {
            self.pass_turn();
            return;
        }
        let v = self.variant;
        let t = &v.t;
        let us = self.turn;
        let u = us.index();
        if let Some(ep) = self.ep.take() {
            self.hash ^= zobrist::ep_file(ep.file());
        }
        self.halfmoves = self.halfmoves.saturating_add(1);
        let to = m.to();
        match m.kind() {
            MoveKind::Drop => {
                let role = Role((m.raw() & 63) as u8);
                let old = self.hands[u].count(role);
                if let Some(new) = self.hands[u].remove(role) {
                    self.hash ^= zobrist::hand(u, role.index(), old) ^ zobrist::hand(u, role.index(), new);
                }
                self.put_piece(to, Piece { color: us, role }, 0);
                if Some(role) == t.pawn && v.shrink_after.is_none() {
                    self.halfmoves = 0;
                }
            }
            MoveKind::Normal | MoveKind::DoubleStep => {
                let from = m.from();
                let Some((piece, mut state)) = self.take_piece(from) else { return };
                // Baby Chess: a move to another file costs the piece one column switch.
                if t.switch_limit != 0 && from.file() != to.file() {
                    state = state.wrapping_add(1);
                }
                if let Some((captured, cstate)) = self.take_piece(to) {
                    self.halfmoves = 0;
                    if v.captures_to_hand {
                        let role = match t.pawn {
                            Some(p) if cstate & PROMOTED != 0 => p,
                            _ => captured.role,
                        };
                        if Some(role) != t.king {
                            self.add_to_hand(us, role);
                        }
                    }
                }
                let mut role = piece.role;
                if Some(role) == t.pawn && v.shrink_after.is_none() {
                    self.halfmoves = 0;
                }
                if let Some(p) = m.promotion_role() {
                    role = p;
                    // A promoted piece is a new piece: its switch count starts at zero.
                    state &= t.promotion_keep;
                    if v.captures_to_hand {
                        state |= PROMOTED;
                    }
                }
                self.put_piece(to, Piece { color: us, role }, state);
                let keep = t.castle_keep[from.index()] & t.castle_keep[to.index()];
                if self.castling & !keep != 0 {
                    self.hash ^= zobrist::castling(self.castling);
                    self.castling &= keep;
                    self.hash ^= zobrist::castling(self.castling);
                }
                if m.kind() == MoveKind::DoubleStep {
                    let mid = Square::from_index(((from.index() + to.index()) / 2) as u8);
                    if v.en_passant && self.ep_capturable(mid, !us) {
                        self.ep = Some(mid);
                        self.hash ^= zobrist::ep_file(mid.file());
                    }
                }
            }
            MoveKind::EnPassant => {
                let from = m.from();
                let Some((piece, state)) = self.take_piece(from) else { return };
                let Some(victim) = Square::new(to.file(), from.rank()) else { return };
                if let Some((captured, _)) = self.take_piece(victim) {
                    if v.captures_to_hand {
                        self.add_to_hand(us, captured.role);
                    }
                }
                self.put_piece(to, piece, state);
                self.halfmoves = 0;
            }
            MoveKind::Castle => {
                let from = m.from();
                let Some(c) = v.castling else { return };
                let side = c.side(to.file());
                let (Some(rook_from), Some(rook_to)) =
                    (Square::new(c.rook_file[side], from.rank()), Square::new(c.rook_to[side], from.rank()))
                else {
                    return;
                };
                let Some((king, kstate)) = self.take_piece(from) else { return };
                let Some((rook, rstate)) = self.take_piece(rook_from) else { return };
                self.put_piece(to, king, kstate);
                self.put_piece(rook_to, rook, rstate);
                self.hash ^= zobrist::castling(self.castling);
                self.castling &= !(0b11 << (2 * u));
                self.hash ^= zobrist::castling(self.castling);
            }
            MoveKind::Pass => {}
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !us;
        self.hash ^= zobrist::BLACK_TO_MOVE;
        if v.shrink_after.is_some() {
            self.shrink_if_due();
        }
    }

    /// Keeps only the castling rights in `keep` (a mask of the four rights), hash included.
    pub(crate) fn keep_castling(&mut self, keep: u8) {
        if self.castling & !keep != 0 {
            self.hash ^= zobrist::castling(self.castling);
            self.castling &= keep;
            self.hash ^= zobrist::castling(self.castling);
        }
    }

    /// Passes the turn without moving (a failed move in a chance variant, a null move in search).
    pub fn pass_turn(&mut self) {
        if let Some(ep) = self.ep.take() {
            self.hash ^= zobrist::ep_file(ep.file());
        }
        self.halfmoves = self.halfmoves.saturating_add(1);
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
        self.hash ^= zobrist::BLACK_TO_MOVE;
        if self.variant.shrink_after.is_some() {
            self.shrink_if_due();
        }
    }

    /// Plays a move after checking that it is legal.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMove { uci: crate::uci::to_uci(self, m), fen: self.fen() })
        }
    }

    /// The union of the squares attacked by all of `color`'s pieces of `role` with
    /// blockers `occ` (orthodox pawns set-wise by shifts).
    pub fn attacks_by_role(&self, color: Color, role: Role, occ: Bitboard) -> Bitboard {
        let t = &self.variant.t;
        let pieces = self.board.pieces(color, role);
        if t.roles.get(role.index()).is_some_and(|rt| rt.std_pawn) {
            let files = self.variant.geometry.files();
            let not_first = pieces - Bitboard::file(0);
            let not_last = pieces - Bitboard::file(files - 1);
            let b = match color {
                Color::White => (not_first.0 << 7) | (not_last.0 << 9),
                Color::Black => (not_first.0 >> 9) | (not_last.0 >> 7),
            };
            return Bitboard(b) & t.mask;
        }
        let mut a = Bitboard::EMPTY;
        for sq in pieces {
            a |= self.attacks(sq, color, role, occ);
        }
        a
    }

    /// The squares a `color` `role` on `sq` attacks (could capture on) with blockers `occ`:
    /// for riders, the empty squares of each ray up to and including the first blocker.
    /// Evaluation (mobility, king safety) reads this; move generation has its own loops.
    #[inline]
    pub fn attacks(&self, sq: Square, color: Color, role: Role, occ: Bitboard) -> Bitboard {
        let t = &self.variant.t;
        let Some(rt) = t.roles.get(role.index()) else { return Bitboard::EMPTY };
        let c = color.index();
        let mut a = rt.both[c][sq.index()] | rt.capture[c][sq.index()];
        if rt.orth.is_some_and(|m| m.can_capture()) {
            a |= self.rook_attacks(sq, occ);
        }
        if rt.diag.is_some_and(|m| m.can_capture()) {
            a |= self.bishop_attacks(sq, occ);
        }
        for atom in &rt.generic {
            if atom.mode.can_capture() {
                let ride = GenericAtom { mode: crate::movement::Mode::Both, ..*atom };
                a |= self.generic_targets(&ride, c, sq, occ, t.mask);
            }
        }
        a & t.mask
    }

    /// Whether `m` is among the legal moves.
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
    }

    /// Whether the move captures (en passant included).
    pub fn is_capture(&self, m: Move) -> bool {
        match m.kind() {
            MoveKind::EnPassant => true,
            MoveKind::Normal => self.board.by_color(!self.turn).contains(m.to()),
            _ => false,
        }
    }

    /// The role that moves (the dropped role for drops; `None` for the pass and an empty square).
    pub fn moving_role(&self, m: Move) -> Option<Role> {
        if m.is_pass() {
            return None;
        }
        m.drop_role().or_else(|| self.board.role_at(m.from()))
    }
}

/// Squares a lame leap from `origin` by (dx, dy) passes over, or `None` if off the board.
pub(crate) fn lame_path(g: &crate::geometry::Geometry, origin: Square, dx: i32, dy: i32) -> Option<Bitboard> {
    let mut path = Bitboard::EMPTY;
    if dx == 0 || dy == 0 || dx.abs() == dy.abs() {
        let n = dx.abs().max(dy.abs());
        for k in 1..n {
            path.set(g.square(origin.file() as i32 + k * dx.signum(), origin.rank() as i32 + k * dy.signum())?);
        }
    } else {
        // Oblique (xiangqi horse nN, janggi elephant nZ): one orthogonal step along
        // the longer axis, then diagonal steps until the last leg.
        let (sx, sy) = (dx.signum(), dy.signum());
        let (ox, oy) = if dy.abs() > dx.abs() { (0, sy) } else { (sx, 0) };
        let short = dx.abs().min(dy.abs());
        for k in 0..short {
            path.set(g.square(origin.file() as i32 + ox + k * sx, origin.rank() as i32 + oy + k * sy)?);
        }
    }
    Some(path)
}

/// The attackers of one side, gathered once (see [`Position::threats`]). Queries
/// take blockers `occ` that must contain every piece of that side.
pub(crate) struct Threats<'a> {
    pos: &'a Position,
    by: Color,
    theirs: Bitboard,
    orth: Bitboard,
    diag: Bitboard,
    /// Reverse leap-capture tables of that side, by role slot.
    rev: &'a [[Bitboard; 64]; ROLE_SLOTS],
    /// Generic atoms: ask `attackers_to`.
    slow: bool,
}

impl Threats<'_> {
    /// The orthogonal riders that capture.
    #[inline(always)]
    pub(crate) fn orth(&self) -> Bitboard {
        self.orth
    }

    /// The diagonal riders that capture.
    #[inline(always)]
    pub(crate) fn diag(&self) -> Bitboard {
        self.diag
    }

    /// All attackers of `sq`.
    #[inline]
    pub(crate) fn attackers(&self, sq: Square, occ: Bitboard) -> Bitboard {
        if self.slow {
            return self.pos.attackers_to(sq, self.by, occ);
        }
        let mut a = self.leapers_to(sq);
        if self.orth.any() {
            a |= self.pos.rook_attacks(sq, occ) & self.orth;
        }
        if self.diag.any() {
            a |= self.pos.bishop_attacks(sq, occ) & self.diag;
        }
        a
    }

    /// Whether `sq` is attacked.
    #[inline]
    pub(crate) fn attacked(&self, sq: Square, occ: Bitboard) -> bool {
        if self.slow {
            return self.pos.attackers_to(sq, self.by, occ).any();
        }
        let mut bits = self.pos.variant.t.leap_capturers;
        while bits != 0 {
            let r = bits.trailing_zeros() as usize;
            if (self.rev[r & (ROLE_SLOTS - 1)][sq.index()] & self.pos.board.by_role(Role(r as u8)) & self.theirs).any()
            {
                return true;
            }
            bits &= bits - 1;
        }
        (self.orth.any() && self.pos.rook_attacks(sq, occ).intersects(self.orth))
            || (self.diag.any() && self.pos.bishop_attacks(sq, occ).intersects(self.diag))
    }

    /// The side's leaping attackers of `sq` (their attacks ignore blockers). Needs the
    /// fast representation (no generic atoms): callers check [`Threats::is_slow`].
    #[inline]
    pub(crate) fn leapers_to(&self, sq: Square) -> Bitboard {
        let mut a = Bitboard::EMPTY;
        let mut bits = self.pos.variant.t.leap_capturers;
        while bits != 0 {
            let r = bits.trailing_zeros() as usize;
            a |= self.rev[r & (ROLE_SLOTS - 1)][sq.index()] & self.pos.board.by_role(Role(r as u8));
            bits &= bits - 1;
        }
        a & self.theirs
    }

    /// Whether the side has pieces with generic atoms (queries go through `attackers_to`).
    #[inline]
    pub(crate) fn is_slow(&self) -> bool {
        self.slow
    }
}

#[cfg(test)]
mod tests {
    use crate::variants::by_name;
    use crate::{Position, Square};

    /// A pawn on its first rank is refused unless its moves lead backwards, as a custom pawn's
    /// may (it got there by moving); on its last rank it is always refused.
    #[test]
    fn a_pawn_stands_on_its_first_rank_only_if_it_can_move_back() {
        let chess = by_name("chess").expect("chess");
        assert!(Position::from_fen(chess, "4k3/8/8/8/8/8/8/3PK3 b - - 0 1").is_err());
        let back = crate::spec::load_variant_str(
            "name = \"backpawn\"\nparent = \"chess\"\n[[piece]]\nletter = \"p\"\nbetza = \"fbmWfcF\"\npawn = true\n",
        )
        .expect("a pawn that steps back");
        let mut p = Position::from_fen(back, "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1").expect("a pawn on d2");
        let m = crate::uci::parse_uci(&p, "d2d1").expect("the step back");
        p.play_unchecked(m);
        assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/3PK3 b - - 0 1");
        assert!(Position::from_fen(back, &p.fen()).is_ok(), "the position it reached reads back");
        assert!(Position::from_fen(back, "3Pk3/8/8/8/8/8/8/4K3 b - - 0 1").is_err(), "on its last rank");
        assert!(Position::from_fen(back, "3pk3/8/8/8/8/8/8/4K3 w - - 0 1").is_ok(), "Black's on its first rank");
    }

    #[test]
    fn square_state_is_hashed_and_restored() {
        let v = by_name("chess").expect("chess");
        let start = Position::start(v);
        let mut p = start.clone();
        let e4 = Square::parse("e4").expect("square");
        p.set_square_state(e4, 3);
        assert_eq!(p.square_state(e4), 3);
        assert_ne!(p.hash(), start.hash());
        assert_eq!(p.hash(), p.hash_from_scratch());
        assert_ne!(p, start);
        p.set_square_state(e4, 0);
        assert_eq!(p.hash(), start.hash());
        assert_eq!(p, start);
    }

    #[test]
    fn piece_state_travels_with_the_piece() {
        let v = by_name("chess").expect("chess");
        let mut p = Position::start(v);
        let g1 = Square::parse("g1").expect("square");
        let f3 = Square::parse("f3").expect("square");
        p.board.set_state(g1, 5);
        p.hash = p.compute_hash();
        let m = crate::uci::parse_uci(&p, "g1f3").expect("legal");
        p.play_unchecked(m);
        assert_eq!(p.board().state_at(f3), 5);
        assert_eq!(p.board().state_at(g1), 0);
        assert_eq!(p.hash(), p.hash_from_scratch());
    }
}
