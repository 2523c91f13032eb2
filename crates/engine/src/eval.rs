//! Static evaluation for any variant: material and piece-square terms derived from
//! movement, mobility, king safety, pawn structure and a hand term for drop variants.
//!
//! Every table is built from the variant when the [`Evaluator`] is made; the terms are
//! tapered between middle game and end game by the non-pawn material on the board and in hand.

use crate::material::{derive, RoleInfo};
use crate::score::Value;
use rules::bitboard::Bitboard;
use rules::{Color, Position, Role, Square, Variant, MAX_ROLES};

/// Middle-game and end-game halves of a term.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Pair {
    mg: i32,
    eg: i32,
}

impl Pair {
    const fn new(mg: i32, eg: i32) -> Pair {
        Pair { mg, eg }
    }
}

impl std::ops::AddAssign for Pair {
    fn add_assign(&mut self, o: Pair) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for Pair {
    fn sub_assign(&mut self, o: Pair) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

const TEMPO: i32 = 15;
const BISHOP_PAIR: Pair = Pair::new(30, 50);
const DOUBLED: Pair = Pair::new(-10, -20);
const ISOLATED: Pair = Pair::new(-10, -12);
const ROOK_OPEN: Pair = Pair::new(25, 10);
const ROOK_SEMI_OPEN: Pair = Pair::new(12, 6);
const SHIELD: i32 = 12;
/// A piece attacked by an enemy pawn.
const THREAT_BY_PAWN: Pair = Pair::new(60, 40);
/// A piece attacked by a less valuable enemy piece (minor on major, rook on queen).
const THREAT_BY_LESSER: Pair = Pair::new(40, 35);
/// A piece attacked and not defended.
const HANGING: Pair = Pair::new(30, 20);
/// A piece still to come as a gift is worth this share (in percent) of one on the board.
const GIFT_VALUE_PERCENT: i32 = 50;
/// A passed pawn whose stop square is occupied keeps this share (in 1/4) of its bonus.
const BLOCKED_PASSER_QUARTERS: i32 = 2;

/// The evaluation of one variant.
#[derive(Debug, Clone)]
pub struct Evaluator {
    variant: &'static Variant,
    roles: Vec<RoleInfo>,
    /// Material plus placement per colour, role and square.
    pst: Box<[[[Pair; 64]; MAX_ROLES]; 2]>,
    /// Value of a piece in hand, per role.
    hand: [Pair; MAX_ROLES],
    /// Phase weight per role and the phase of the start position.
    phase_weight: [i32; MAX_ROLES],
    full_phase: i32,
    /// Per colour: passed-pawn bonus by relative rank.
    passed: [Pair; 8],
    /// Per colour and square: the squares ahead on the same and adjacent files.
    front_span: Box<[[Bitboard; 64]; 2]>,
    /// Per square: the king's neighbourhood (its moves on an empty board, itself included).
    king_zone: Box<[Bitboard; 64]>,
    files: [Bitboard; 8],
    adjacent_files: [Bitboard; 8],
    pawn: Option<Role>,
    king: Option<Role>,
    /// Roles that slide orthogonally without limit (open files matter).
    orth_riders: Vec<Role>,
    bishop: Option<Role>,
    /// Roles other than pawn and king, with their mobility and king-attack weights.
    piece_terms: Vec<PieceTerms>,
    /// Expectimax players: the value is `s tanh(v / s)` of the centipawn value `v` (0: `v`).
    win_scale: i32,
    /// Gift variants, for a player that expects gifts: per role, what its gifts to come are worth.
    gift_outlook: [Option<GiftOutlook>; MAX_ROLES],
}

/// The gifts of one role a player can expect ([`Evaluator::gift_aware`]).
#[derive(Debug, Clone, Copy)]
struct GiftOutlook {
    /// The most a player may hold of the role, board and hand together.
    cap: i32,
    /// Pieces expected over the horizon, uncapped, in hundredths.
    expected: i32,
    /// The value of one piece still to come.
    value: i32,
}

/// The pawn-only terms of one pawn placement.
#[derive(Debug, Clone, Copy, Default)]
struct PawnEntry {
    /// The placement (white, black): the full key, so a hit is exact.
    pawns: [Bitboard; 2],
    score: [Pair; 2],
    passed: [Bitboard; 2],
}

/// Slots in a [`PawnCache`] (a power of two).
const PAWN_CACHE: usize = 1 << 14;

/// A cache of pawn-structure terms, keyed by the pawn placement (one per search thread).
#[derive(Debug, Clone)]
pub struct PawnCache {
    entries: Vec<PawnEntry>,
}

impl Default for PawnCache {
    fn default() -> PawnCache {
        // The default entry is exact for the placement it names: no pawns, no terms.
        PawnCache { entries: vec![PawnEntry::default(); PAWN_CACHE] }
    }
}

impl PawnCache {
    /// The entry for `pawns`, computed on a miss.
    #[inline]
    fn get(&mut self, eval: &Evaluator, pawns: [Bitboard; 2]) -> &PawnEntry {
        let key = pawns[0].0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ pawns[1].0.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let slot = &mut self.entries[(key >> 50) as usize & (PAWN_CACHE - 1)];
        if slot.pawns != pawns {
            *slot = eval.pawn_structure(pawns);
        }
        slot
    }
}

/// The per-piece terms of the evaluation's piece loop.
#[derive(Debug, Clone, Copy)]
struct PieceTerms {
    role: Role,
    /// Half the mean mobility: the mobility that scores zero.
    mobility_offset: i32,
    mobility_mg: i32,
    mobility_eg: i32,
    attack_weight: i32,
    /// Middle-game value (threat classes).
    value: i32,
}

/// The most a piece counted as minor may be worth.
const MINOR_MAX: i32 = 400;
/// The most a piece counted as rook-class may be worth.
const ROOK_MAX: i32 = 650;

/// King distance between two squares.
#[inline]
fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs().max((a.rank() as i32 - b.rank() as i32).abs())
}

impl Evaluator {
    /// Builds the tables for a variant.
    pub fn new(v: &'static Variant) -> Evaluator {
        let roles = derive(v);
        let g = v.geometry;
        let ranks = g.ranks() as i32;
        let mask = g.mask();
        let mut pst = Box::new([[[Pair::default(); 64]; MAX_ROLES]; 2]);
        let mut hand = [Pair::default(); MAX_ROLES];
        let mut phase_weight = [0; MAX_ROLES];
        let center_file = (g.files() as f64 - 1.0) / 2.0;
        for (i, info) in roles.iter().enumerate() {
            for sq in mask {
                let rel_rank = sq.rank() as i32;
                let spread = info.mobility_at[sq.index()] - info.mobility;
                let placement = if info.pawn {
                    // Advance, and hold the centre early.
                    let t = ((rel_rank - 1).max(0) as f64 / (ranks - 2).max(1) as f64).min(1.0);
                    // Early on only central pawns gain by advancing; wing pushes loosen the position.
                    let central = (center_file - sq.file() as f64).abs() <= 1.0;
                    let advance =
                        if central { 25.0 * t * t + if rel_rank >= 2 { 10.0 } else { 0.0 } } else { 6.0 * t * t };
                    Pair::new(advance as i32, (60.0 * t * t) as i32)
                } else if info.royal {
                    // Shelter on the back rank in the middle game, centralise in the end game.
                    Pair::new((-4.0 * spread) as i32 - 18 * rel_rank.min(3), (5.0 * spread) as i32)
                } else {
                    let k_mg = if info.mg > 600 { 2.0 } else { 6.0 };
                    // Minor pieces left on the back rank of a full-size board are undeveloped.
                    let undeveloped = if rel_rank == 0 && info.mg <= 400 && ranks >= 6 { -15 } else { 0 };
                    Pair::new((k_mg * spread).round() as i32 + undeveloped, (4.0 * spread).round() as i32)
                };
                let value = Pair::new(info.mg + placement.mg, info.eg + placement.eg);
                pst[0][i][sq.index()] = value;
                // Black's piece on the mirrored square.
                let mirror = Square::new(sq.file(), (ranks - 1 - rel_rank) as u8).unwrap_or(sq);
                pst[1][i][mirror.index()] = value;
            }
            hand[i] = if v.drops {
                Pair::new(info.mg + info.mg / 8, info.eg + info.eg / 8)
            } else {
                Pair::new(info.mg, info.eg)
            };
            phase_weight[i] = if info.royal || info.pawn { 0 } else { (info.mg + 160) / 320 };
        }
        let start = Position::start(v);
        let mut full_phase = 0;
        for sq in start.board().occupied() {
            if let Some(r) = start.board().role_at(sq) {
                full_phase += phase_weight[r.index()];
            }
        }
        let mut passed = [Pair::default(); 8];
        for (r, p) in passed.iter_mut().enumerate() {
            let t = ((r as i32 - 1).max(0) as f64 / (ranks - 2).max(1) as f64).min(1.0);
            *p = Pair::new((5.0 + 60.0 * t * t) as i32, (15.0 + 130.0 * t * t) as i32);
        }
        let mut files = [Bitboard::EMPTY; 8];
        for (f, b) in files.iter_mut().enumerate() {
            *b = Bitboard::file(f as u8) & mask;
        }
        let mut adjacent_files = [Bitboard::EMPTY; 8];
        for f in 0..8usize {
            let mut b = Bitboard::EMPTY;
            if f > 0 {
                b |= files[f - 1];
            }
            if f < 7 {
                b |= files[f + 1];
            }
            adjacent_files[f] = b;
        }
        let mut front_span = Box::new([[Bitboard::EMPTY; 64]; 2]);
        for sq in mask {
            let span = files[sq.file() as usize] | adjacent_files[sq.file() as usize];
            for c in Color::ALL {
                let mut ahead = Bitboard::EMPTY;
                for r in 0..g.ranks() {
                    let forward = match c {
                        Color::White => r > sq.rank(),
                        Color::Black => r < sq.rank(),
                    };
                    if forward {
                        ahead |= Bitboard::rank(r);
                    }
                }
                front_span[c.index()][sq.index()] = span & ahead;
            }
        }
        let king = v.king();
        let mut king_zone = Box::new([Bitboard::EMPTY; 64]);
        if let Some(k) = king {
            for sq in mask {
                let around = start.attacks(sq, Color::White, k, Bitboard::EMPTY);
                king_zone[sq.index()] = around | Bitboard::from_square(sq);
            }
        }
        let pieces: Vec<Role> = v.roles().filter(|r| !roles[r.index()].pawn && !roles[r.index()].royal).collect();
        let orth_riders = pieces.iter().copied().filter(|r| roles[r.index()].orth_rider).collect();
        let bishop = pieces.iter().copied().find(|r| roles[r.index()].bishop);
        let piece_terms = pieces
            .iter()
            .map(|&r| {
                let info = &roles[r.index()];
                let (mobility_mg, mobility_eg) = if info.mg > 600 { (1, 3) } else { (4, 4) };
                PieceTerms {
                    role: r,
                    mobility_offset: (info.mobility / 2.0).round() as i32,
                    mobility_mg,
                    mobility_eg,
                    attack_weight: info.attack_weight,
                    value: info.mg,
                }
            })
            .collect();
        Evaluator {
            variant: v,
            roles,
            pst,
            hand,
            phase_weight,
            full_phase: full_phase.max(1),
            passed,
            front_span,
            king_zone,
            files,
            adjacent_files,
            pawn: v.pawn(),
            king,
            orth_riders,
            bishop,
            piece_terms,
            win_scale: 0,
            gift_outlook: [None; MAX_ROLES],
        }
    }

    /// The evaluator of a player that expects SnowFall gifts over the next `plies` plies:
    /// each side gains the value of the pieces it can expect from them, as far as its caps
    /// leave room (a player holding two queens receives none), at [`GIFT_VALUE_PERCENT`] of a
    /// piece on the board. Gifts come to both players alike, so the term only counts where a
    /// cap binds: trading a capped kind reopens its room, capturing it reopens the enemy's.
    /// Other variants: unchanged.
    pub fn gift_aware(mut self, plies: i32) -> Evaluator {
        let rules::chance::ChanceRule::Gifts { percent } = self.variant.chance else { return self };
        if plies <= 0 {
            return self;
        }
        // Pieces per event and player, the mover's and the opponent's share averaged.
        let mut per_event = [0f64; 5];
        for (mine, theirs, p) in rules::gift::raw_outcomes() {
            let p = *p.numer() as f64 / *p.denom() as f64;
            for k in rules::gift::Kind::ALL {
                per_event[k as usize] += p * f64::from(mine.count(k) + theirs.count(k)) / 2.0;
            }
        }
        let events = f64::from(percent) / 100.0 * f64::from(plies);
        for k in rules::gift::Kind::ALL {
            let Some(role) = self.variant.role_by_letter(k.letter()) else { continue };
            let expected = (per_event[k as usize] * events * 100.0).round() as i32;
            let value = self.roles[role.index()].mg * GIFT_VALUE_PERCENT / 100;
            self.gift_outlook[role.index()] = Some(GiftOutlook { cap: i32::from(k.cap()), expected, value });
        }
        self
    }

    /// The evaluator of a player that averages values over chance outcomes: a centipawn value
    /// `v` becomes `s tanh(v / s)`, which is `s (2 W(v) - 1)` for the winning chance
    /// `W(v) = 1 / (1 + e^(-2v/s))`. An average over outcomes is then an expected winning
    /// chance rather than an expected material balance: a sure +450 is worth more than an even
    /// chance of +900 or 0, as it should be. Near 0 the scale is centipawns (the slope is 1),
    /// and the order of positions is unchanged. `s = 0` keeps centipawns.
    pub fn win_scaled(mut self, s: i32) -> Evaluator {
        self.win_scale = s.max(0);
        self
    }

    /// The evaluator a search with `params` uses: win-scaled and gift-aware as they say.
    pub fn for_params(v: &'static Variant, params: &crate::params::SearchParams) -> Evaluator {
        Evaluator::new(v).win_scaled(params.win_scale).gift_aware(params.gift_horizon)
    }

    /// The scale `s` of [`Evaluator::win_scaled`] (0: centipawns).
    pub fn win_scale(&self) -> i32 {
        self.win_scale
    }

    /// The variant this evaluator was built for.
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// The middle-game value of a role (move ordering and exchange evaluation use it).
    #[inline]
    pub fn value(&self, role: Role) -> i32 {
        match self.roles.get(role.index()) {
            Some(r) if r.royal => 20_000,
            Some(r) => r.mg,
            None => 0,
        }
    }

    /// The evaluation of `pos` from the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> Value {
        self.evaluate_with(pos, None)
    }

    /// [`Evaluator::evaluate`] with the pawn-structure terms looked up in (and added to)
    /// `cache`; the value is the same with or without it.
    pub fn evaluate_cached(&self, pos: &Position, cache: &mut PawnCache) -> Value {
        self.evaluate_with(pos, Some(cache))
    }

    fn evaluate_with(&self, pos: &Position, cache: Option<&mut PawnCache>) -> Value {
        let board = pos.board();
        let occ = board.occupied();
        let mut score = [Pair::default(); 2];
        let mut phase = 0;
        let mut material = [0i32; 2];
        let mut non_pawn_count = [0u32; 2];

        // Step 1. Material and placement, on the board and in hand.
        for c in Color::ALL {
            let ci = c.index();
            for r in self.variant.roles() {
                let ri = r.index();
                for sq in board.pieces(c, r) {
                    score[ci] += self.pst[ci][ri][sq.index()];
                }
                let n = board.pieces(c, r).count() as i32;
                let in_hand = pos.hand(c).count(r) as i32;
                if in_hand > 0 {
                    score[ci] += Pair::new(self.hand[ri].mg * in_hand, self.hand[ri].eg * in_hand);
                }
                phase += self.phase_weight[ri] * (n + in_hand);
                // Gifts to come, as far as the caps leave room.
                if let Some(g) = self.gift_outlook[ri] {
                    let room = (g.cap - n - in_hand).max(0) * 100;
                    let v = g.value * room.min(g.expected) / 100;
                    score[ci] += Pair::new(v, v);
                }
                if !self.roles[ri].pawn && !self.roles[ri].royal {
                    material[ci] += self.roles[ri].mg * (n + in_hand);
                    non_pawn_count[ci] += (n + in_hand) as u32;
                }
            }
        }

        let king_sq = [pos.king_square(Color::White), pos.king_square(Color::Black)];

        // Step 2. Pawn structure: the pawn-only terms from the cache, then the passed
        // pawns' terms that depend on the other pieces.
        let pawns = self.pawn.map(|p| [board.pieces(Color::White, p), board.pieces(Color::Black, p)]);
        let mut pawn_attacks = [Bitboard::EMPTY; 2];
        if let (Some(p), Some(pawns)) = (self.pawn, pawns) {
            let computed;
            let structure = match cache {
                Some(cache) => cache.get(self, pawns),
                None => {
                    computed = self.pawn_structure(pawns);
                    &computed
                }
            };
            for c in Color::ALL {
                let ci = c.index();
                score[ci] += structure.score[ci];
                pawn_attacks[ci] = pos.attacks_by_role(c, p, occ);
                for sq in structure.passed[ci] {
                    let rr = self.variant.geometry.relative_rank(c, sq) as usize;
                    let mut bonus = self.passed[rr.min(7)];
                    let stop = sq.offset(0, if c == Color::White { 1 } else { -1 });
                    if let Some(stop) = stop.filter(|s| self.variant.geometry.contains(*s)) {
                        if occ.contains(stop) {
                            bonus = Pair::new(
                                bonus.mg * BLOCKED_PASSER_QUARTERS / 4,
                                bonus.eg * BLOCKED_PASSER_QUARTERS / 4,
                            );
                        }
                        // In the end game the kings race to the stop square.
                        if let (Some(ours_k), Some(theirs_k)) = (king_sq[ci], king_sq[1 - ci]) {
                            let w = (rr as i32 - 1).max(0);
                            bonus.eg += w * (5 * distance(theirs_k, stop) - 2 * distance(ours_k, stop));
                        }
                    }
                    score[ci] += bonus;
                }
            }
        }

        // Step 3. Pieces: mobility, open files, attacks near the enemy king.
        let zones = king_sq.map(|k| k.map_or(Bitboard::EMPTY, |k| self.king_zone[k.index()]));
        let mut danger = [0i32; 2]; // danger[c]: threat to c's king
        let mut attackers = [0i32; 2];
        // Squares each side attacks, and those attacked by its minor pieces and its rooks
        // or lesser (by value), for the threat terms.
        let mut attacked = pawn_attacks;
        let mut by_minor = [Bitboard::EMPTY; 2];
        let mut by_rook = [Bitboard::EMPTY; 2];
        for c in Color::ALL {
            if let Some(k) = king_sq[c.index()] {
                attacked[c.index()] |= self.king_zone[k.index()] - Bitboard::from_square(k);
            }
        }
        for c in Color::ALL {
            let ci = c.index();
            let ours = board.by_color(c);
            let safe = !(ours | pawn_attacks[1 - ci]);
            for p in &self.piece_terms {
                for sq in board.pieces(c, p.role) {
                    let a = pos.attacks(sq, c, p.role, occ);
                    attacked[ci] |= a;
                    if p.value <= MINOR_MAX {
                        by_minor[ci] |= a;
                    }
                    if p.value <= ROOK_MAX {
                        by_rook[ci] |= a;
                    }
                    let mob = (a & safe).count() as i32 - p.mobility_offset;
                    score[ci] += Pair::new(p.mobility_mg * mob, p.mobility_eg * mob);
                    let hits = (a & zones[1 - ci]).count() as i32;
                    if hits > 0 {
                        attackers[1 - ci] += 1;
                        danger[1 - ci] += p.attack_weight * (2 + hits);
                    }
                }
            }
            if let Some(pawns) = pawns {
                let ours = pawns[ci];
                for &r in &self.orth_riders {
                    for sq in board.pieces(c, r) {
                        let file = self.files[sq.file() as usize];
                        if (ours & file).is_empty() {
                            score[ci] += if (pawns[1 - ci] & file).is_empty() { ROOK_OPEN } else { ROOK_SEMI_OPEN };
                        }
                    }
                }
            }
            if let Some(b) = self.bishop {
                if board.pieces(c, b).more_than_one() {
                    score[ci] += BISHOP_PAIR;
                }
            }
        }

        // Step 4. Threats: pieces attacked by pawns, by lesser pieces, or left undefended.
        for c in Color::ALL {
            let ci = c.index();
            let them = !c;
            let mut victims = board.by_color(them);
            if let Some(p) = self.pawn {
                victims = victims - board.pieces(them, p);
            }
            if let Some(k) = king_sq[them.index()] {
                victims = victims - Bitboard::from_square(k);
            }
            let threatened = victims & attacked[ci];
            if threatened.is_empty() {
                continue;
            }
            let n = (threatened & pawn_attacks[ci]).count() as i32;
            score[ci] += Pair::new(THREAT_BY_PAWN.mg * n, THREAT_BY_PAWN.eg * n);
            let mut n = 0;
            for sq in threatened - pawn_attacks[ci] {
                let v = board.role_at(sq).map_or(0, |r| self.roles[r.index()].mg);
                if (v > MINOR_MAX && by_minor[ci].contains(sq)) || (v > ROOK_MAX && by_rook[ci].contains(sq)) {
                    n += 1;
                }
            }
            score[ci] += Pair::new(THREAT_BY_LESSER.mg * n, THREAT_BY_LESSER.eg * n);
            let n = (threatened - attacked[them.index()]).count() as i32;
            score[ci] += Pair::new(HANGING.mg * n, HANGING.eg * n);
        }

        // Step 5. King safety: attackers near the king, pieces the enemy could drop, the pawn shield.
        if self.king.is_some() {
            for c in Color::ALL {
                let ci = c.index();
                let Some(ksq) = king_sq[ci] else { continue };
                let mut d = danger[ci];
                let mut n = attackers[ci];
                if self.variant.drops {
                    let hand = pos.hand(!c);
                    for (r, cnt) in hand.iter() {
                        let w = self.roles.get(r.index()).map_or(0, |i| i.attack_weight.max(1));
                        d += w * 2 * cnt as i32;
                        n += cnt as i32;
                    }
                }
                if n >= 2 {
                    let penalty = (d * d / 6).min(if self.variant.drops { 900 } else { 600 });
                    score[ci] -= Pair::new(penalty, penalty / 4);
                }
                if let Some(pawns) = pawns {
                    let shield = self.front_span[ci][ksq.index()] & self.king_zone_ahead(c, ksq) & pawns[ci];
                    score[ci] += Pair::new(SHIELD * shield.count().min(3) as i32, 0);
                }
            }
        }

        // Step 6. Mop-up: drive a bare king to the edge and bring the stronger king closer.
        let pawn_count = pawns.map_or([0, 0], |p| [p[0].count(), p[1].count()]);
        for c in Color::ALL {
            let ci = c.index();
            let weak = 1 - ci;
            if non_pawn_count[weak] == 0 && pawn_count[weak] == 0 && material[ci] >= 500 {
                if let (Some(ks), Some(kw)) = (king_sq[ci], king_sq[weak]) {
                    let g = self.variant.geometry;
                    let edge = |s: Square| {
                        let fx = (2 * s.file() as i32 - (g.files() as i32 - 1)).abs();
                        let fy = (2 * s.rank() as i32 - (g.ranks() as i32 - 1)).abs();
                        fx.max(fy)
                    };
                    score[ci] += Pair::new(0, 20 * edge(kw) + 10 * (8 - distance(ks, kw)));
                }
            }
        }

        // Step 7. Taper by phase, scale drawish material, and add the tempo.
        let phase = phase.min(self.full_phase);
        let diff_mg = score[0].mg - score[1].mg;
        let diff_eg = score[0].eg - score[1].eg;
        let mut v = (diff_mg * phase + diff_eg * (self.full_phase - phase)) / self.full_phase;
        let strong = if v > 0 { 0 } else { 1 };
        if pawn_count[strong] == 0 && !self.variant.drops && material[strong] - material[1 - strong] <= 350 {
            v /= 4;
        }
        let v = if pos.turn() == Color::White { v } else { -v } + TEMPO;
        if self.win_scale > 0 {
            let s = f64::from(self.win_scale);
            return (s * (f64::from(v) / s).tanh()).round() as Value;
        }
        v
    }

    /// The terms that depend on the pawns alone: doubled and isolated pawns, and which
    /// pawns are passed.
    fn pawn_structure(&self, pawns: [Bitboard; 2]) -> PawnEntry {
        let mut e = PawnEntry { pawns, score: [Pair::default(); 2], passed: [Bitboard::EMPTY; 2] };
        for c in Color::ALL {
            let ci = c.index();
            let ours = pawns[ci];
            let theirs = pawns[1 - ci];
            for sq in ours {
                if (self.front_span[ci][sq.index()] & theirs).is_empty() {
                    e.passed[ci] |= Bitboard::from_square(sq);
                }
                if (ours & self.adjacent_files[sq.file() as usize]).is_empty() {
                    e.score[ci] += ISOLATED;
                }
            }
            for f in 0..self.variant.geometry.files() as usize {
                let n = (ours & self.files[f]).count() as i32;
                if n > 1 {
                    e.score[ci] += Pair::new(DOUBLED.mg * (n - 1), DOUBLED.eg * (n - 1));
                }
            }
        }
        e
    }

    /// The two ranks in front of a king (its shield squares, before the file filter).
    fn king_zone_ahead(&self, c: Color, ksq: Square) -> Bitboard {
        let g = self.variant.geometry;
        let mut b = Bitboard::EMPTY;
        for step in 1..=2i32 {
            let r = ksq.rank() as i32 + if c == Color::White { step } else { -step };
            if (0..g.ranks() as i32).contains(&r) {
                b |= Bitboard::rank(r as u8);
            }
        }
        b & g.mask()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::variants;

    fn eval(variant: &str, fen: &str) -> Value {
        let v = variants::by_name(variant).unwrap();
        Evaluator::new(v).evaluate(&Position::from_fen(v, fen).unwrap())
    }

    #[test]
    fn win_scaled_values_keep_their_order_within_the_scale() {
        let v = variants::by_name("chess").unwrap();
        let (plain, scaled) = (Evaluator::new(v), Evaluator::new(v).win_scaled(600));
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1",
            "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "4k3/8/8/8/8/8/8/QQQQK3 b - - 0 1",
            "r3k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ];
        let mut pairs: Vec<(Value, Value)> = fens
            .iter()
            .map(|f| {
                let pos = Position::from_fen(v, f).unwrap();
                (plain.evaluate(&pos), scaled.evaluate(&pos))
            })
            .collect();
        for &(p, s) in &pairs {
            assert!(s.abs() <= 600, "{p} -> {s}");
            assert_eq!(s.signum(), p.signum(), "{p} -> {s}");
            assert_eq!(s, (600.0 * (f64::from(p) / 600.0).tanh()).round() as Value);
            // Near 0 the scale is centipawns; far from it, compressed.
            assert!(s.abs() <= p.abs() && (p.abs() > 60 || p.abs() - s.abs() <= 1), "{p} -> {s}");
        }
        pairs.sort();
        assert!(pairs.windows(2).all(|w| w[0].1 <= w[1].1), "order kept: {pairs:?}");
        assert!(pairs[0].0 < -2000 && pairs[0].1 <= -590, "four queens up is nearly a sure win: {pairs:?}");
        assert_eq!(scaled.win_scale(), 600);
        assert_eq!(plain.win_scale(), 0);
    }

    #[test]
    fn start_positions_are_balanced() {
        for name in ["chess", "crazyhouse", "gardner"] {
            let v = variants::by_name(name).unwrap();
            let e = Evaluator::new(v).evaluate(&Position::start(v));
            assert!(e.abs() <= 40, "{name}: {e}");
        }
    }

    #[test]
    fn evaluation_is_colour_symmetric() {
        let a = eval("chess", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let b = eval("chess", "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3");
        assert_eq!(a, b);
    }

    /// The colour-mirrored FEN: ranks reversed, cases swapped, side and rights swapped.
    fn mirror(fen: &str) -> String {
        let f: Vec<&str> = fen.split_whitespace().collect();
        let swap = |s: &str| -> String {
            s.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        };
        let (board, hand) = match f[0].find('[') {
            Some(i) => (&f[0][..i], Some(&f[0][i..])),
            None => (f[0], None),
        };
        let mut ranks: Vec<String> = board.split('/').map(swap).collect();
        ranks.reverse();
        let mut out = ranks.join("/");
        if let Some(h) = hand {
            out.push_str(&swap(h));
        }
        let side = if f[1] == "w" { "b" } else { "w" };
        let castling = if f[2] == "-" { "-".to_string() } else { swap(f[2]) };
        format!("{out} {side} {castling} - {} {}", f.get(4).unwrap_or(&"0"), f.get(5).unwrap_or(&"1"))
    }

    #[test]
    fn evaluation_is_colour_symmetric_on_random_positions() {
        use rand::Rng;
        let mut rng = rules::chance::seeded_rng(3);
        for name in ["chess", "crazyhouse", "gardner"] {
            let v = variants::by_name(name).unwrap();
            let e = Evaluator::new(v);
            let mut pos = Position::start(v);
            for _ in 0..400 {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.halfmoves() > 80 {
                    pos = Position::start(v);
                    continue;
                }
                pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
                let m = Position::from_fen(v, &mirror(&pos.fen())).unwrap();
                assert_eq!(e.evaluate(&pos), e.evaluate(&m), "{name}: {} vs {}", pos.fen(), m.fen());
            }
        }
    }

    #[test]
    fn the_pawn_cache_changes_nothing() {
        use rand::Rng;
        let mut rng = rules::chance::seeded_rng(5);
        for name in ["chess", "crazyhouse", "gardner"] {
            let v = variants::by_name(name).unwrap();
            let e = Evaluator::new(v);
            // One cache for every position, as in a search.
            let mut cache = PawnCache::default();
            let mut pos = Position::start(v);
            for _ in 0..2000 {
                let moves = pos.legal_moves();
                if moves.is_empty() || pos.halfmoves() > 80 {
                    pos = Position::start(v);
                    continue;
                }
                pos.play_unchecked(moves[rng.gen_range(0..moves.len())]);
                // Twice: a miss, then a hit.
                for _ in 0..2 {
                    assert_eq!(e.evaluate_cached(&pos, &mut cache), e.evaluate(&pos), "{name}: {}", pos.fen());
                }
            }
        }
    }

    #[test]
    fn a_piece_attacked_by_a_pawn_is_threatened() {
        // The black pawn on e6 hits the knight on d5; on e5 it would be further advanced
        // and take a square from the knight, yet not attack it (the d2 pawn keeps both unpassed).
        let threatened = eval("chess", "6k1/8/4p3/3N4/8/8/3P4/6K1 w - - 0 1");
        let safe = eval("chess", "6k1/8/8/3Np3/8/8/3P4/6K1 w - - 0 1");
        assert!(threatened + 40 < safe, "{threatened} vs {safe}");
    }

    #[test]
    fn material_counts() {
        // White is a queen up.
        assert!(eval("chess", "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") > 700);
        assert!(eval("chess", "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1") < -700);
        // A knight in hand counts in crazyhouse.
        assert!(eval("crazyhouse", "rnbqkb1r/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1") > 500);
    }

    #[test]
    fn gifts_to_come_count_where_the_caps_leave_room() {
        let v = variants::snowfall::variant(20);
        let (plain, aware) = (Evaluator::new(v), Evaluator::new(v).gift_aware(30));
        let at = |fen: &str| Position::from_fen(v, fen).unwrap();
        // Equal room on both sides: the gifts to come cancel.
        let start = Position::start(v);
        assert_eq!(aware.evaluate(&start), plain.evaluate(&start));
        // White holds two queens (one in hand): only Black can still receive one. The seed's
        // rates: 7/100 for the mover and 6/100 for the other player, so 13/200 per event on
        // average; 20 % of 30 plies is 6 events, 39/100 of a queen.
        let queen = plain.roles[v.role_by_letter('q').unwrap().index()].mg;
        let expected = -(queen * GIFT_VALUE_PERCENT / 100) * 39 / 100;
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q] w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Q] b KQkq - 0 1",
        ] {
            let pos = at(fen);
            let sign = if pos.turn() == Color::White { 1 } else { -1 };
            // (Within a centipawn: the phase taper rounds.)
            let diff = aware.evaluate(&pos) - plain.evaluate(&pos);
            assert!((diff - sign * expected).abs() <= 1, "{fen}: {diff} against {}", sign * expected);
        }
        // Other variants ignore it.
        let chess = variants::by_name("chess").unwrap();
        let pos = Position::from_fen(chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RQBQKBNR w KQkq - 0 1").unwrap();
        assert_eq!(Evaluator::new(chess).gift_aware(30).evaluate(&pos), Evaluator::new(chess).evaluate(&pos));
    }
}
