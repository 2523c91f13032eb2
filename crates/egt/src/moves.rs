//! Moves, un-moves and un-captures of a table's men, from per-square leap sets and ride rays built
//! once per piece kind and colour. Pieces only: leapers and (finite or unlimited) riders.

use rules::movement::Mode;

use crate::board::BoardShape;
use crate::index::Squares;
use crate::material::Material;

/// No man on the square.
pub const NONE: u8 = u8::MAX;

/// A ride: squares in order along one direction from a square, and what the atom may do.
#[derive(Debug, Clone, Copy)]
struct Ray {
    start: u32,
    len: u8,
    quiet: bool,
    capture: bool,
    /// The ray's squares as a set.
    mask: u64,
    /// Whether the squares ascend along the ray (a constant step on dense squares is monotonic).
    up: bool,
}

impl Ray {
    /// The squares ridden before the first occupied one, and that one (0 if none).
    #[inline(always)]
    fn ride(&self, occ: u64) -> (u64, u64) {
        let blockers = self.mask & occ;
        if blockers == 0 {
            (self.mask, 0)
        } else if self.up {
            let b = blockers.trailing_zeros();
            (self.mask & ((1u64 << b) - 1), 1u64 << b)
        } else {
            let b = 63 - blockers.leading_zeros();
            (self.mask & ((u64::MAX << b) << 1), 1u64 << b)
        }
    }
}

/// Rays per square, flattened.
#[derive(Debug, Clone, Default)]
struct Rays {
    /// Per square: the range of `rays` belonging to it.
    of: Vec<(u32, u32)>,
    rays: Vec<Ray>,
    squares: Vec<u8>,
}

impl Rays {
    fn push_square(&mut self, rays: Vec<(Vec<u8>, bool, bool)>) {
        let first = self.rays.len() as u32;
        for (sqs, quiet, capture) in rays {
            if sqs.is_empty() {
                continue;
            }
            let mask = sqs.iter().fold(0u64, |a, &t| a | 1 << t);
            let up = sqs.len() < 2 || sqs[1] > sqs[0];
            self.rays.push(Ray { start: self.squares.len() as u32, len: sqs.len() as u8, quiet, capture, mask, up });
            self.squares.extend(sqs);
        }
        self.of.push((first, self.rays.len() as u32));
    }

    /// The rays from `sq`.
    #[inline(always)]
    fn from(&self, sq: u8) -> &[Ray] {
        let (a, b) = self.of[usize::from(sq)];
        &self.rays[a as usize..b as usize]
    }

    #[inline]
    fn at(&self, sq: u8) -> impl Iterator<Item = (&[u8], bool, bool)> {
        let (a, b) = self.of[usize::from(sq)];
        self.rays[a as usize..b as usize]
            .iter()
            .map(move |r| (&self.squares[r.start as usize..r.start as usize + usize::from(r.len)], r.quiet, r.capture))
    }
}

/// One piece kind of one colour on one board.
#[derive(Debug, Clone)]
struct PieceMoves {
    leap_quiet: Vec<u64>,
    leap_capture: Vec<u64>,
    rays: Rays,
    /// Origins of quiet leaps onto a square, and reverse rays of quiet rides.
    unleap_quiet: Vec<u64>,
    unrays: Rays,
    /// Origins of capturing leaps onto a square, and reverse rays of capturing rides.
    unleap_capture: Vec<u64>,
    uncapture_rays: Rays,
    /// Per square: the squares a capturing ride reaches on an empty board.
    ride_attack: Vec<u64>,
    /// Per square: those of them more than one capturing ride reaches (tested ray by ray).
    ride_ambiguous: Vec<u64>,
    /// `between[64 * from + to]`: the squares a capturing ride from `from` to `to` passes.
    between: Vec<u64>,
}

impl PieceMoves {
    fn new(board: BoardShape, material: &Material, kind: usize, side: usize) -> PieceMoves {
        let n = board.squares();
        let sign = if side == 0 { 1 } else { -1 };
        let atoms = material.kinds()[kind].movement.atoms().to_vec();
        let mut pm = PieceMoves {
            leap_quiet: vec![0; n],
            leap_capture: vec![0; n],
            rays: Rays::default(),
            unleap_quiet: vec![0; n],
            unrays: Rays::default(),
            unleap_capture: vec![0; n],
            uncapture_rays: Rays::default(),
            ride_attack: vec![0; n],
            ride_ambiguous: vec![0; n],
            between: vec![0; 64 * n],
        };
        for sq in 0..n as u8 {
            let (f, r) = (i32::from(board.file(sq)), i32::from(board.rank(sq)));
            let mut rays = Vec::new();
            let mut unrays = Vec::new();
            let mut uncapture_rays = Vec::new();
            for a in &atoms {
                // Black's step is White's turned half round (forward is down, right is left).
                let (dx, dy) = (sign * i32::from(a.dx), sign * i32::from(a.dy));
                let quiet = a.mode != Mode::Capture;
                let capture = a.mode != Mode::Move;
                let limit = if a.range == 0 { 64 } else { i32::from(a.range) };
                for (dir, out) in [(1, &mut rays), (-1, &mut unrays)] {
                    let mut sqs = Vec::new();
                    let mut k = 1;
                    while k <= limit {
                        match board.square(f + dir * k * dx, r + dir * k * dy) {
                            Some(t) => sqs.push(t),
                            None => break,
                        }
                        k += 1;
                    }
                    if a.range == 1 {
                        if let Some(&t) = sqs.first() {
                            if dir == 1 {
                                if quiet {
                                    pm.leap_quiet[usize::from(sq)] |= 1 << t;
                                }
                                if capture {
                                    pm.leap_capture[usize::from(sq)] |= 1 << t;
                                }
                            } else {
                                if quiet {
                                    pm.unleap_quiet[usize::from(sq)] |= 1 << t;
                                }
                                if capture {
                                    pm.unleap_capture[usize::from(sq)] |= 1 << t;
                                }
                            }
                        }
                    } else if dir == 1 {
                        out.push((sqs, quiet, capture));
                    } else {
                        if capture {
                            uncapture_rays.push((sqs.clone(), false, true));
                        }
                        if quiet {
                            out.push((sqs, true, false));
                        }
                    }
                }
            }
            for (sqs, _, _) in rays.iter().filter(|r| r.2) {
                let mut passed = 0u64;
                for &t in sqs {
                    let i = usize::from(sq);
                    if pm.ride_attack[i] & (1 << t) != 0 {
                        pm.ride_ambiguous[i] |= 1 << t;
                    }
                    pm.ride_attack[i] |= 1 << t;
                    pm.between[64 * i + usize::from(t)] = passed;
                    passed |= 1 << t;
                }
            }
            pm.rays.push_square(rays);
            pm.unrays.push_square(unrays);
            pm.uncapture_rays.push_square(uncapture_rays);
        }
        pm
    }
}

/// The move tables of every man of a material.
#[derive(Debug, Clone)]
pub struct MoveTables {
    board: BoardShape,
    /// Per man: its piece tables.
    men: Vec<usize>,
    pieces: Vec<PieceMoves>,
    sides: Vec<usize>,
    /// Each side's royal man.
    royal: [usize; 2],
}

/// Occupancy of a position: the squares each side holds.
#[derive(Debug, Clone, Copy)]
pub struct Occupancy {
    /// Bit per occupied square.
    pub occ: u64,
    /// Bit per square occupied by each side.
    pub side: [u64; 2],
}

impl MoveTables {
    /// The tables for `material` on `board`.
    pub fn new(board: BoardShape, material: &Material) -> MoveTables {
        let mut pieces = Vec::new();
        let mut men = Vec::new();
        let mut keys: Vec<(usize, usize)> = Vec::new();
        for m in material.men() {
            let key = (m.kind, m.side);
            let at = match keys.iter().position(|&k| k == key) {
                Some(i) => i,
                None => {
                    keys.push(key);
                    pieces.push(PieceMoves::new(board, material, m.kind, m.side));
                    keys.len() - 1
                }
            };
            men.push(at);
        }
        MoveTables {
            board,
            men,
            pieces,
            sides: material.men().iter().map(|m| m.side).collect(),
            royal: [material.royal(0), material.royal(1)],
        }
    }

    /// The squares each side holds in a position.
    #[inline]
    pub fn occupancy(&self, sq: &Squares) -> Occupancy {
        let mut side = [0u64; 2];
        for (m, &s) in sq[..self.men.len()].iter().enumerate() {
            side[self.sides[m]] |= 1u64 << s;
        }
        Occupancy { occ: side[0] | side[1], side }
    }

    /// The man standing on occupied square `to` (captures are rare: scanning the men beats keeping
    /// a map of the board per position).
    #[inline]
    pub fn man_on(&self, sq: &Squares, to: u8) -> u8 {
        sq[..self.men.len()].iter().position(|&s| s == to).map_or(NONE, |m| m as u8)
    }

    /// The board.
    pub fn board(&self) -> BoardShape {
        self.board
    }

    /// The side of man `m`.
    #[inline]
    pub fn side_of(&self, m: usize) -> usize {
        self.sides[m]
    }

    /// The squares man `m` moves to without capturing, and those where it captures (the same moves
    /// as [`MoveTables::for_each_move`] gives, as two sets: a caller's loop over them stays inline).
    #[inline]
    pub fn targets(&self, sq: &Squares, o: &Occupancy, m: usize) -> (u64, u64) {
        let theirs = o.side[1 - self.sides[m]];
        let p = &self.pieces[self.men[m]];
        let from = sq[m];
        let mut quiet = p.leap_quiet[usize::from(from)] & !o.occ;
        let mut caps = p.leap_capture[usize::from(from)] & theirs;
        for r in p.rays.from(from) {
            let (free, blocker) = r.ride(o.occ);
            if r.quiet {
                quiet |= free;
            }
            if r.capture {
                caps |= blocker & theirs;
            }
        }
        (quiet, caps)
    }

    /// Calls `f(man, to, captured)` for every move of `side`'s men (`captured` is the man on `to` or
    /// [`NONE`]); stops early and returns `false` when `f` does.
    #[inline]
    pub fn for_each_move(
        &self,
        sq: &Squares,
        o: &Occupancy,
        side: usize,
        mut f: impl FnMut(usize, u8, u8) -> bool,
    ) -> bool {
        (0..self.men.len()).all(|m| self.sides[m] != side || self.man_moves(sq, o, m, &mut f))
    }

    /// The moves of man `m` for [`MoveTables::for_each_move`].
    #[inline(always)]
    fn man_moves(&self, sq: &Squares, o: &Occupancy, m: usize, mut f: impl FnMut(usize, u8, u8) -> bool) -> bool {
        let theirs = o.side[1 - self.sides[m]];
        let p = &self.pieces[self.men[m]];
        let from = sq[m];
        let mut quiet = p.leap_quiet[usize::from(from)] & !o.occ;
        while quiet != 0 {
            let to = quiet.trailing_zeros() as u8;
            quiet &= quiet - 1;
            if !f(m, to, NONE) {
                return false;
            }
        }
        let mut caps = p.leap_capture[usize::from(from)] & theirs;
        while caps != 0 {
            let to = caps.trailing_zeros() as u8;
            caps &= caps - 1;
            if !f(m, to, self.man_on(sq, to)) {
                return false;
            }
        }
        for (ray, q, c) in p.rays.at(from) {
            for &to in ray {
                if o.occ & (1 << to) == 0 {
                    if q && !f(m, to, NONE) {
                        return false;
                    }
                } else {
                    if c && theirs & (1 << to) != 0 && !f(m, to, self.man_on(sq, to)) {
                        return false;
                    }
                    break;
                }
            }
        }
        true
    }

    /// The squares man `m` could have come from by a quiet move: its quiet un-moves.
    #[inline]
    pub fn unmove_origins(&self, sq: &Squares, o: &Occupancy, m: usize) -> u64 {
        let p = &self.pieces[self.men[m]];
        let at = sq[m];
        let mut from = p.unleap_quiet[usize::from(at)] & !o.occ;
        for r in p.unrays.from(at) {
            from |= r.ride(o.occ).0;
        }
        from
    }

    /// Calls `f(from)` for every square from which man `m` (standing on `at`) could have captured
    /// onto `at`: empty squares from which one of its capturing moves lands there, each once, in
    /// ascending order (walked back from `at` along the reverse leaps and rides).
    #[inline]
    pub fn for_each_uncapture_origin(&self, m: usize, at: u8, occ: u64, mut f: impl FnMut(u8)) {
        let p = &self.pieces[self.men[m]];
        let mut origins = p.unleap_capture[usize::from(at)] & !occ;
        for r in p.uncapture_rays.from(at) {
            origins |= r.ride(occ).0;
        }
        while origins != 0 {
            f(origins.trailing_zeros() as u8);
            origins &= origins - 1;
        }
    }

    /// Whether man `m` on `from` attacks `to` (could capture there) over occupancy `occ`.
    #[inline]
    pub fn attacks(&self, m: usize, from: u8, to: u8, occ: u64) -> bool {
        let p = &self.pieces[self.men[m]];
        let f = usize::from(from);
        let bit = 1u64 << to;
        if p.leap_capture[f] & bit != 0 {
            return true;
        }
        if p.ride_attack[f] & bit == 0 {
            return false;
        }
        if p.ride_ambiguous[f] & bit == 0 {
            return p.between[64 * f + usize::from(to)] & occ == 0;
        }
        for (ray, _, c) in p.rays.at(from) {
            if !c {
                continue;
            }
            for &s in ray {
                if s == to {
                    return true;
                }
                if occ & (1 << s) != 0 {
                    break;
                }
            }
        }
        false
    }

    /// The squares the men of `by` attack (could capture on) over occupancy `occ`.
    #[inline]
    fn attacked_by(&self, sq: &Squares, occ: u64, by: usize) -> u64 {
        let mut set = 0;
        for m in (0..self.men.len()).filter(|&m| self.sides[m] == by) {
            let p = &self.pieces[self.men[m]];
            set |= p.leap_capture[usize::from(sq[m])];
            for r in p.rays.from(sq[m]).iter().filter(|r| r.capture) {
                let (free, blocker) = r.ride(occ);
                set |= free | blocker;
            }
        }
        set
    }

    /// Whether any man of `by` attacks square `target`.
    #[inline]
    pub fn side_attacks(&self, sq: &Squares, occ: u64, by: usize, target: u8) -> bool {
        (0..self.men.len()).any(|m| self.sides[m] == by && self.attacks(m, sq[m], target, occ))
    }

    /// Whether `side` can capture the enemy royal now.
    #[inline]
    pub fn can_capture_royal(&self, sq: &Squares, occ: u64, side: usize) -> bool {
        self.side_attacks(sq, occ, side, sq[self.royal[1 - side]])
    }

    /// Whether `side`'s royal is attacked (in check).
    #[inline]
    pub fn in_check(&self, sq: &Squares, occ: u64, side: usize) -> bool {
        self.side_attacks(sq, occ, 1 - side, sq[self.royal[side]])
    }

    /// The occupied squares of a position.
    #[inline]
    pub fn occupied(&self, sq: &Squares) -> u64 {
        sq[..self.men.len()].iter().fold(0, |a, &s| a | 1u64 << s)
    }

    /// Whether `side` has a legal quiet move (one capturing nothing), the royal's moves tried first.
    /// Level 1 of every table runs it on every position.
    pub fn has_legal_quiet_move(&self, sq: &Squares, side: usize) -> bool {
        let o = self.occupancy(sq);
        let royal = self.royal[side];
        // The royal's quiet moves: to a square no enemy man attacks once the royal has left its own.
        if self.targets(sq, &o, royal).0 & !self.attacked_by(sq, o.occ & !(1u64 << sq[royal]), 1 - side) != 0 {
            return true;
        }
        for m in (0..self.men.len()).filter(|&m| m != royal && self.sides[m] == side) {
            let mut quiet = self.targets(sq, &o, m).0;
            while quiet != 0 {
                let to = quiet.trailing_zeros() as u8;
                quiet &= quiet - 1;
                if self.leaves_royal_safe(sq, o.occ, side, m, to, NONE) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether `side` has a legal move: one after which its royal cannot be captured.
    pub fn has_legal_move(&self, sq: &Squares, side: usize) -> bool {
        let o = self.occupancy(sq);
        (0..self.men.len()).filter(|&m| self.sides[m] == side).any(|m| {
            let (quiet, caps) = self.targets(sq, &o, m);
            let mut all = quiet | caps;
            while all != 0 {
                let to = all.trailing_zeros() as u8;
                all &= all - 1;
                let cap = if caps >> to & 1 != 0 { self.man_on(sq, to) } else { NONE };
                if self.leaves_royal_safe(sq, o.occ, side, m, to, cap) {
                    return true;
                }
            }
            false
        })
    }

    /// Whether `side`'s royal cannot be captured after its man `m` moves to `to` capturing `cap`
    /// ([`NONE`] for a quiet move); `occ` is the occupancy before the move.
    #[inline]
    pub fn leaves_royal_safe(&self, sq: &Squares, occ: u64, side: usize, m: usize, to: u8, cap: u8) -> bool {
        let occ = (occ & !(1u64 << sq[m])) | (1u64 << to);
        let royal = self.royal[side];
        let king = if m == royal { to } else { sq[royal] };
        !(0..self.men.len())
            .any(|k| self.sides[k] != side && usize::from(cap) != k && self.attacks(k, sq[k], king, occ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pieces::PieceSet;
    use rand::{Rng, SeedableRng};

    /// The un-capture and un-move origins are exactly the empty squares from which the man's forward
    /// moves capture or move onto the square, the target sets are the forward moves (walked square by
    /// square by `man_moves`, the reference here), and the quick legal-quiet-move test agrees with
    /// playing every quiet move: on random placements of orthodox and fairy men (a limited rider, a
    /// one-way leaper, an asymmetric piece) on 8x8, 5x5 and 6x5.
    #[test]
    fn move_sets_and_quiet_legality_match_the_forward_moves() {
        let mut pieces = PieceSet::orthodox();
        pieces.add_betza('X', "fR3bNW").expect("X");
        pieces.add_betza('Y', "fFbWsD").expect("Y");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for (name, files, ranks) in [("KQX.KRN", 8, 8), ("KYB.KXN", 5, 5), ("KRX.KYN", 6, 5)] {
            let board = BoardShape::new(files, ranks).expect("board");
            let material = Material::parse(name, &pieces).expect("material");
            let mt = MoveTables::new(board, &material);
            let men = material.men().len();
            let n = board.squares() as u8;
            for _ in 0..3000 {
                let mut sq = [0u8; crate::material::MAX_MEN];
                let mut used = 0u64;
                for s in sq.iter_mut().take(men) {
                    let mut x = rng.gen_range(0..n);
                    while used & (1 << x) != 0 {
                        x = rng.gen_range(0..n);
                    }
                    used |= 1 << x;
                    *s = x;
                }
                let o = mt.occupancy(&sq);
                for m in 0..men {
                    // Forward: from every empty square, does man m capture onto its own square?
                    let at = sq[m];
                    let mut expected = Vec::new();
                    for from in (0..n).filter(|&f| used & (1 << f) == 0) {
                        let mut c = sq;
                        c[m] = from;
                        let co = mt.occupancy(&c);
                        // Put an enemy man on `at` so that a capture there is generated.
                        let mut side = co.side;
                        side[1 - mt.sides[m]] |= 1 << at;
                        let co = Occupancy { occ: co.occ | 1 << at, side };
                        // `at` is occupied: a move landing there is a capture.
                        let mut hits = false;
                        mt.man_moves(&c, &co, m, |_, to, _| {
                            hits |= to == at;
                            true
                        });
                        if hits {
                            expected.push(from);
                        }
                    }
                    let mut got = Vec::new();
                    mt.for_each_uncapture_origin(m, at, o.occ, |f| got.push(f));
                    assert_eq!(got, expected, "{name} {sq:?} man {m}");
                    // The target sets are the forward moves, split by capture.
                    let (mut quiet, mut caps) = (0u64, 0u64);
                    mt.man_moves(&sq, &o, m, |_, to, cap| {
                        if cap == NONE {
                            quiet |= 1 << to;
                        } else {
                            caps |= 1 << to;
                        }
                        true
                    });
                    assert_eq!(mt.targets(&sq, &o, m), (quiet, caps), "{name} {sq:?} man {m}");
                    // The un-move origins: empty squares from which a quiet move lands on `at`.
                    let origins = (0..n).filter(|&f| used & (1 << f) == 0).fold(0u64, |a, from| {
                        let mut c = sq;
                        c[m] = from;
                        let mut hits = false;
                        mt.man_moves(&c, &mt.occupancy(&c), m, |_, to, cap| {
                            hits |= to == at && cap == NONE;
                            true
                        });
                        if hits {
                            a | 1 << from
                        } else {
                            a
                        }
                    });
                    assert_eq!(mt.unmove_origins(&sq, &o, m), origins, "{name} {sq:?} man {m}");
                }
                for side in 0..2 {
                    let mut quiet_legal = false;
                    mt.for_each_move(&sq, &o, side, |m, to, cap| {
                        if cap == NONE {
                            let mut c = sq;
                            c[m] = to;
                            quiet_legal |= !mt.in_check(&c, mt.occupied(&c), side);
                        }
                        true
                    });
                    assert_eq!(mt.has_legal_quiet_move(&sq, side), quiet_legal, "{name} {sq:?} side {side}");
                }
            }
        }
    }
}
