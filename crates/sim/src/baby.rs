//! The Baby Chess playout kernel: the rules of `rules::variants::baby` on 25-bit boards,
//! for random and random-piece games by the million, equal to the rules core move for move.
//!
//! The kernel lists the legal moves in the rules core's order (origin square ascending,
//! then target ascending, a double step last) and draws from the game's ChaCha8 stream
//! exactly as [`crate::runner::play_game`] does, so a seed gives the same game through
//! either path. The tests replay kernel games through `rules::Position`, comparing the
//! move lists at every ply; the runner takes this path only where it applies (a Baby
//! Chess variant, `random` or `random-piece` on both sides).

use crate::runner::{game_rng, Ending, GameRecord, GameResult, RunConfig};
use crate::strategy::{uniform, Strategy};
use rand::Rng;
use rules::{Color, Position, Square};
use std::sync::OnceLock;

/// Squares on the 5x5 board, index `rank * 5 + file`.
const N: usize = 25;
const FULL: u32 = (1 << N) - 1;
/// Switches a piece may make (RULINGS: five).
const LIMIT: u8 = 5;
/// Room for every square's rider lookup (at most 2 colours x 2 kinds x 25 squares x 64).
const REACH_SLOTS: usize = 8192;
const FILE_A: u32 = 0x0010_8421;
const FILE_B: u32 = FILE_A << 1;
const FILE_D: u32 = FILE_A << 3;
const FILE_E: u32 = FILE_A << 4;

const PAWN: u8 = 0;
const KNIGHT: u8 = 1;
const BISHOP: u8 = 2;
const ROOK: u8 = 3;
const QUEEN: u8 = 4;
const KING: u8 = 5;
const EMPTY: u8 = 6;

/// Compass directions (White's forward is north).
const NORTH: usize = 0;
const SOUTH: usize = 1;
const EAST: usize = 2;
const WEST: usize = 3;
const NORTH_EAST: usize = 4;
const NORTH_WEST: usize = 5;
const SOUTH_EAST: usize = 6;
const SOUTH_WEST: usize = 7;
const STEP: [(i32, i32); 8] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)];
/// Whether walking the direction raises the square index.
const RISING: [bool; 8] = [true, false, true, false, true, true, false, false];
const OPPOSITE: [usize; 8] = [SOUTH, NORTH, WEST, EAST, SOUTH_WEST, SOUTH_EAST, NORTH_WEST, NORTH_EAST];
/// Per colour: the orthogonal and the diagonal ride directions (forward and sideways).
const ORTH_DIRS: [[usize; 3]; 2] = [[NORTH, EAST, WEST], [SOUTH, EAST, WEST]];
const DIAG_DIRS: [[usize; 2]; 2] = [[NORTH_EAST, NORTH_WEST], [SOUTH_EAST, SOUTH_WEST]];

#[inline(always)]
fn bit(s: usize) -> u32 {
    1 << s
}

/// Leap and ray tables, per colour where direction matters.
struct Tables {
    king: [[u32; N]; 2],
    knight: [[u32; N]; 2],
    pawn_push: [[u32; N]; 2],
    pawn_capture: [[u32; N]; 2],
    /// Squares from which a piece of that colour attacks the square.
    rev_king: [[u32; N]; 2],
    rev_knight: [[u32; N]; 2],
    rev_pawn: [[u32; N]; 2],
    /// The squares along a direction from a square (itself excluded).
    ray: [[u32; N]; 8],
    /// The square's file.
    file: [u32; N],
    /// Any ray from the square (pin candidates).
    lines: [u32; N],
    /// Per colour: the squares from which that colour's orthogonal (diagonal) riders
    /// could reach the square on an empty board.
    orth_sources: [[u32; N]; 2],
    diag_sources: [[u32; N]; 2],
    /// Per colour, square and ride kind (0 orthogonal, 1 diagonal): a multiply-shift
    /// hash of the relevant blockers into the reach table.
    magic: [[[Magic; N]; 2]; 2],
    reach_table: Box<[u32; REACH_SLOTS]>,
    /// The squares strictly between two squares on a line (empty if not on one).
    between: [[u32; N]; N],
}

/// One square's rider lookup: `table[offset + ((occ & mask) * factor) >> shift]`.
#[derive(Clone, Copy, Default)]
struct Magic {
    mask: u32,
    factor: u64,
    shift: u32,
    offset: u32,
}

fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Tables {
            king: [[0; N]; 2],
            knight: [[0; N]; 2],
            pawn_push: [[0; N]; 2],
            pawn_capture: [[0; N]; 2],
            rev_king: [[0; N]; 2],
            rev_knight: [[0; N]; 2],
            rev_pawn: [[0; N]; 2],
            ray: [[0; N]; 8],
            file: [0; N],
            lines: [0; N],
            orth_sources: [[0; N]; 2],
            diag_sources: [[0; N]; 2],
            magic: [[[Magic::default(); N]; 2]; 2],
            reach_table: Box::new([0; REACH_SLOTS]),
            between: [[0; N]; N],
        };
        let at = |f: i32, r: i32| ((0..5).contains(&f) && (0..5).contains(&r)).then(|| (r * 5 + f) as usize);
        for s in 0..N {
            let (f, r) = ((s % 5) as i32, (s / 5) as i32);
            for c in 0..2 {
                let fwd = if c == 0 { 1 } else { -1 };
                for (dx, dy) in [(0, fwd), (1, 0), (-1, 0), (1, fwd), (-1, fwd)] {
                    if let Some(to) = at(f + dx, r + dy) {
                        t.king[c][s] |= bit(to);
                        t.rev_king[c][to] |= bit(s);
                    }
                }
                for (dx, dy) in [(1, 2 * fwd), (-1, 2 * fwd), (2, fwd), (-2, fwd)] {
                    if let Some(to) = at(f + dx, r + dy) {
                        t.knight[c][s] |= bit(to);
                        t.rev_knight[c][to] |= bit(s);
                    }
                }
                if let Some(to) = at(f, r + fwd) {
                    t.pawn_push[c][s] |= bit(to);
                }
                for dx in [1, -1] {
                    if let Some(to) = at(f + dx, r + fwd) {
                        t.pawn_capture[c][s] |= bit(to);
                        t.rev_pawn[c][to] |= bit(s);
                    }
                }
            }
            for (d, &(dx, dy)) in STEP.iter().enumerate() {
                let mut k = 1;
                while let Some(to) = at(f + k * dx, r + k * dy) {
                    t.ray[d][s] |= bit(to);
                    k += 1;
                }
                t.lines[s] |= t.ray[d][s];
            }
            for r2 in 0..5 {
                t.file[s] |= bit((r2 * 5 + f) as usize);
            }
            for &(dx, dy) in &STEP {
                let mut path = 0;
                let mut k = 1;
                while let Some(to) = at(f + k * dx, r + k * dy) {
                    t.between[s][to] = path;
                    path |= bit(to);
                    k += 1;
                }
            }
        }
        for s in 0..N {
            for c in 0..2 {
                t.orth_sources[c][s] = ORTH_DIRS[c].iter().fold(0, |a, &d| a | t.ray[OPPOSITE[d]][s]);
                t.diag_sources[c][s] = DIAG_DIRS[c].iter().fold(0, |a, &d| a | t.ray[OPPOSITE[d]][s]);
            }
        }
        // Fixed-seed search for collision-free multipliers (a few tries per square).
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut used = 0;
        for c in 0..2 {
            for (kind, dirs) in [&ORTH_DIRS[c][..], &DIAG_DIRS[c][..]].into_iter().enumerate() {
                for s in 0..N {
                    // The last square of a ray never blocks anything beyond it.
                    let mut mask = 0;
                    for &d in dirs {
                        let r = t.ray[d][s];
                        let edge = if r == 0 {
                            0
                        } else if RISING[d] {
                            1 << (31 - r.leading_zeros())
                        } else {
                            1 << r.trailing_zeros()
                        };
                        mask |= r & !edge;
                    }
                    let bits = mask.count_ones();
                    let subsets: Vec<u32> = {
                        let mut v = vec![0];
                        let mut sub = mask.wrapping_neg() & mask;
                        while sub != 0 {
                            v.push(sub);
                            sub = sub.wrapping_sub(mask) & mask;
                        }
                        v
                    };
                    let size = 1usize << bits;
                    let shift = 64 - bits.max(1);
                    let offset = used;
                    'search: loop {
                        let factor = next() & next() & next() | 1;
                        let mut slot = vec![u32::MAX; size.max(2)];
                        for &occ in &subsets {
                            let i = ((u64::from(occ).wrapping_mul(factor)) >> shift) as usize;
                            let reach: u32 = dirs.iter().fold(0, |a, &d| a | reach(&t, d, s, occ));
                            if slot[i] != u32::MAX && slot[i] != reach {
                                continue 'search;
                            }
                            slot[i] = reach;
                        }
                        for (i, &x) in slot.iter().enumerate() {
                            t.reach_table[offset + i] = if x == u32::MAX { 0 } else { x };
                        }
                        used += slot.len();
                        t.magic[c][kind][s] = Magic { mask, factor, shift, offset: offset as u32 };
                        break;
                    }
                }
            }
        }
        t
    })
}

/// The squares a rider of colour `c` on `s` reaches along its `kind` (0 orthogonal, 1
/// diagonal) directions, blockers included.
#[inline(always)]
fn ride(t: &Tables, c: usize, kind: usize, s: usize, occ: u32) -> u32 {
    let m = &t.magic[c][kind][s];
    let i = (u64::from(occ & m.mask).wrapping_mul(m.factor) >> m.shift) as usize;
    t.reach_table[(m.offset as usize + i) & (REACH_SLOTS - 1)]
}

/// The first occupied square along direction `d` from `s`, if any.
#[inline(always)]
fn first_blocker(t: &Tables, d: usize, s: usize, occ: u32) -> Option<usize> {
    let b = t.ray[d][s] & occ;
    if b == 0 {
        None
    } else if RISING[d] {
        Some(b.trailing_zeros() as usize)
    } else {
        Some(31 - b.leading_zeros() as usize)
    }
}

/// The squares a rider reaches along direction `d` from `s` (the blocker included).
#[inline(always)]
fn reach(t: &Tables, d: usize, s: usize, occ: u32) -> u32 {
    let r = t.ray[d][s];
    match first_blocker(t, d, s, occ) {
        None => r,
        Some(b) if RISING[d] => r & ((2 << b) - 1),
        Some(b) => r & !((1 << b) - 1),
    }
}

/// The file of a square.
#[inline(always)]
fn t_file(s: usize) -> u8 {
    const FILE_OF: [u8; 32] =
        [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0];
    FILE_OF[s & 31]
}

/// `b` moved one step in direction `d` (nothing wraps around an edge).
#[inline(always)]
fn shift(b: u32, d: usize) -> u32 {
    match d {
        NORTH => (b << 5) & FULL,
        SOUTH => b >> 5,
        EAST => (b & !FILE_E) << 1,
        WEST => (b & !FILE_A) >> 1,
        NORTH_EAST => ((b & !FILE_E) << 6) & FULL,
        NORTH_WEST => ((b & !FILE_A) << 4) & FULL,
        SOUTH_EAST => (b & !FILE_E) >> 4,
        _ => (b & !FILE_A) >> 6,
    }
}

/// The squares riders on `gen` reach in direction `d` over the empty squares `empty`
/// (the first blocker included).
#[inline(always)]
fn fill(gen: u32, d: usize, empty: u32) -> u32 {
    let mut g = shift(gen, d);
    let mut a = g;
    for _ in 0..3 {
        g = shift(g & empty, d);
        a |= g;
    }
    a
}

/// A Baby Chess position on 25-bit boards.
#[derive(Clone)]
struct Board {
    color: [u32; 2],
    kind: [u32; 6],
    piece: [u8; N],
    switches: [u8; N],
    /// Pieces with no switch left.
    frozen: u32,
    king: [usize; 2],
    turn: usize,
}

impl Board {
    /// The kernel's copy of a rules-core position of a Baby Chess variant.
    fn from_position(pos: &Position) -> Option<Board> {
        let v = pos.variant();
        if v.geometry.files() != 5 || v.geometry.ranks() != 5 || pos.switch_limit() != LIMIT {
            return None;
        }
        let mut b = Board {
            color: [0; 2],
            kind: [0; 6],
            piece: [EMPTY; N],
            switches: [0; N],
            frozen: 0,
            king: [N; 2],
            turn: pos.turn().index(),
        };
        for s in 0..N {
            let sq = Square::new((s % 5) as u8, (s / 5) as u8)?;
            let Some(p) = pos.board().piece_at(sq) else { continue };
            let k = match v.pieces[p.role.index()].letter {
                'p' => PAWN,
                'n' => KNIGHT,
                'b' => BISHOP,
                'r' => ROOK,
                'q' => QUEEN,
                'k' => KING,
                _ => return None,
            };
            let c = p.color.index();
            b.color[c] |= bit(s);
            b.kind[k as usize] |= bit(s);
            b.piece[s] = k;
            b.switches[s] = pos.switches_at(sq);
            if b.switches[s] >= LIMIT {
                b.frozen |= bit(s);
            }
            if k == KING {
                b.king[c] = s;
            }
        }
        (b.king[0] < N && b.king[1] < N).then_some(b)
    }

    /// Whether `s` is attacked by `by`'s pieces among `theirs`, over occupancy `occ`, by
    /// moves they could really make (own directions; a frozen piece only along its file).
    #[inline(always)]
    fn attacked(&self, t: &Tables, s: usize, by: usize, occ: u32, theirs: u32) -> bool {
        let mut a = (t.rev_pawn[by][s] & self.kind[PAWN as usize])
            | (t.rev_knight[by][s] & self.kind[KNIGHT as usize])
            | (t.rev_king[by][s] & self.kind[KING as usize]);
        // Riders only where one stands on a line that could reach the square.
        let orth = (self.kind[ROOK as usize] | self.kind[QUEEN as usize]) & theirs;
        if orth & t.orth_sources[by][s] != 0 {
            for d in ORTH_DIRS[by] {
                let od = OPPOSITE[d];
                if t.ray[od][s] & orth != 0 {
                    if let Some(b) = first_blocker(t, od, s, occ) {
                        a |= bit(b) & orth;
                    }
                }
            }
        }
        let diag = (self.kind[BISHOP as usize] | self.kind[QUEEN as usize]) & theirs;
        if diag & t.diag_sources[by][s] != 0 {
            for d in DIAG_DIRS[by] {
                let od = OPPOSITE[d];
                if t.ray[od][s] & diag != 0 {
                    if let Some(b) = first_blocker(t, od, s, occ) {
                        a |= bit(b) & diag;
                    }
                }
            }
        }
        a & theirs & (t.file[s] | !self.frozen) != 0
    }

    /// Our pieces that may be pinned: those standing alone between our king and an enemy
    /// rider on a line (a superset: those moves get the full test).
    #[inline(always)]
    fn pin_candidates(&self, t: &Tables, us: usize, occ: u32) -> u32 {
        let k = self.king[us];
        let riders =
            (self.kind[ROOK as usize] | self.kind[BISHOP as usize] | self.kind[QUEEN as usize]) & self.color[1 - us];
        if t.lines[k] & riders == 0 {
            return 0;
        }
        // A rider on a line with the king pins the one piece of ours between them.
        let ours = self.color[us];
        let mut aligned = t.lines[k] & riders;
        let mut pinned = 0;
        while aligned != 0 {
            let r = aligned.trailing_zeros() as usize;
            aligned &= aligned - 1;
            let between = t.between[k][r] & occ;
            if between & between.wrapping_sub(1) == 0 {
                pinned |= between & ours;
            }
        }
        pinned
    }

    /// Whether our king is safe after our piece moves `from` to `to`.
    #[inline(always)]
    fn safe_after(&self, t: &Tables, us: usize, from: usize, to: usize, occ: u32) -> bool {
        let k = if self.king[us] == from { to } else { self.king[us] };
        let occ = (occ & !bit(from)) | bit(to);
        !self.attacked(t, k, 1 - us, occ, self.color[1 - us] & !bit(to))
    }

    /// The squares `by` attacks over occupancy `occ` (defended pieces included), by moves
    /// its pieces could really make: own directions, and a frozen piece along its file only.
    #[inline(always)]
    fn attack_map<const BY: usize>(&self, t: &Tables, occ: u32) -> u32 {
        let by = BY;
        let pieces = self.color[by];
        let free = pieces & !self.frozen;
        let pawns = self.kind[PAWN as usize] & free;
        let knights = self.kind[KNIGHT as usize] & free;
        let mut m = if BY == 0 {
            ((pawns & !FILE_A) << 4)
                | ((pawns & !FILE_E) << 6)
                | ((knights & !FILE_A) << 9)
                | ((knights & !FILE_E) << 11)
                | ((knights & !(FILE_D | FILE_E)) << 7)
                | ((knights & !(FILE_A | FILE_B)) << 3)
        } else {
            ((pawns & !FILE_A) >> 6)
                | ((pawns & !FILE_E) >> 4)
                | ((knights & !FILE_E) >> 9)
                | ((knights & !FILE_A) >> 11)
                | ((knights & !(FILE_D | FILE_E)) >> 3)
                | ((knights & !(FILE_A | FILE_B)) >> 7)
        };
        let k = self.king[by];
        m |= t.king[by][k] & if self.frozen & bit(k) != 0 { t.file[k] } else { FULL };
        // Riders set-wise, all at once per direction; frozen ones only forward on their file.
        let empty = FULL & !occ;
        let queens = self.kind[QUEEN as usize] & pieces;
        let orth = (self.kind[ROOK as usize] | queens) & pieces;
        let diag = (self.kind[BISHOP as usize] | queens) & free;
        let forward = if BY == 0 { NORTH } else { SOUTH };
        let (diag_a, diag_b) = if BY == 0 { (NORTH_EAST, NORTH_WEST) } else { (SOUTH_EAST, SOUTH_WEST) };
        let sideways = orth & !self.frozen;
        m |= fill(orth, forward, empty)
            | fill(sideways, EAST, empty)
            | fill(sideways, WEST, empty)
            | fill(diag, diag_a, empty)
            | fill(diag, diag_b, empty);
        m & FULL
    }

    /// The squares a rider of kind `kind` and colour `c` on `s` reaches.
    #[inline(always)]
    fn rides(&self, t: &Tables, c: usize, s: usize, kind: u8, occ: u32) -> u32 {
        let mut r = 0;
        if kind != BISHOP {
            r |= ride(t, c, 0, s, occ);
        }
        if kind != ROOK {
            r |= ride(t, c, 1, s, occ);
        }
        r
    }

    /// The legal moves as target sets per origin square (in the rules core's order:
    /// origins ascending, targets ascending, a double step being a pawn's highest target);
    /// returns whether the side to move is in check.
    fn legal_targets<const US: usize>(&self, t: &Tables, double_step: bool, out: &mut Targets) -> bool {
        let us = US;
        let them = 1 - US;
        let ours = self.color[us];
        let theirs = self.color[them];
        let occ = ours | theirs;
        let empty = FULL & !occ;
        let k = self.king[us];
        // A piece with no switch left keeps to its file.
        let keep = |s: usize| if self.frozen & bit(s) != 0 { t.file[s] } else { FULL };
        // The king's targets: squares the enemy does not attack once the king has left
        // (a boxed-in king needs only the check test).
        let king_moves = t.king[us][k] & !ours & keep(k);
        let (check, king_to) = if king_moves == 0 {
            (self.attacked(t, k, them, occ, theirs), 0)
        } else {
            let o = occ & !bit(k);
            let attacked = if US == 0 { self.attack_map::<1>(t, o) } else { self.attack_map::<0>(t, o) };
            (attacked & bit(k) != 0, king_moves & !attacked)
        };
        out.targets[k] = king_to;
        let mut total = king_to.count_ones();
        let mut pawns = self.kind[PAWN as usize] & ours;
        while pawns != 0 {
            let s = pawns.trailing_zeros() as usize;
            pawns &= pawns - 1;
            let mut to = (t.pawn_push[us][s] & empty) | (t.pawn_capture[us][s] & theirs);
            if US == 0 && double_step && (5..10).contains(&s) && empty & bit(s + 5) != 0 && empty & bit(s + 10) != 0 {
                to |= bit(s + 10);
            }
            let to = to & keep(s);
            out.targets[s] = to;
            total += to.count_ones();
        }
        let mut knights = self.kind[KNIGHT as usize] & ours;
        while knights != 0 {
            let s = knights.trailing_zeros() as usize;
            knights &= knights - 1;
            let to = t.knight[us][s] & !ours & keep(s);
            out.targets[s] = to;
            total += to.count_ones();
        }
        let mut riders = (self.kind[ROOK as usize] | self.kind[BISHOP as usize] | self.kind[QUEEN as usize]) & ours;
        while riders != 0 {
            let s = riders.trailing_zeros() as usize;
            riders &= riders - 1;
            let to = self.rides(t, us, s, self.piece[s], occ) & !ours & keep(s);
            out.targets[s] = to;
            total += to.count_ones();
        }
        // Moves that may expose the king (all of them in check, else those of possibly
        // pinned pieces) are tested one by one.
        let mut test = if check { ours & !bit(k) } else { self.pin_candidates(t, us, occ) };
        while test != 0 {
            let s = test.trailing_zeros() as usize;
            test &= test - 1;
            let mut to = out.targets[s];
            while to != 0 {
                let d = to.trailing_zeros() as usize;
                to &= to - 1;
                if !self.safe_after(t, us, s, d, occ) {
                    out.targets[s] &= !bit(d);
                    total -= 1;
                }
            }
        }
        out.total = total;
        out.from = ours;
        check
    }

    /// Plays a legal move; returns whether it promoted.
    #[inline(always)]
    fn play(&mut self, from: usize, to: usize) -> bool {
        let us = self.turn;
        let them = 1 - us;
        if self.color[them] & bit(to) != 0 {
            self.color[them] &= !bit(to);
            self.kind[self.piece[to] as usize] &= !bit(to);
        }
        let kind = self.piece[from];
        self.color[us] ^= bit(from) | bit(to);
        self.kind[kind as usize] &= !bit(from);
        let promotes = kind == PAWN && if us == 0 { to >= 20 } else { to < 5 };
        let (new_kind, switches) = if promotes {
            (QUEEN, 0)
        } else if t_file(from) != t_file(to) {
            (kind, self.switches[from] + 1)
        } else {
            (kind, self.switches[from])
        };
        self.kind[new_kind as usize] |= bit(to);
        self.piece[to] = new_kind;
        self.piece[from] = EMPTY;
        self.switches[to] = switches;
        self.switches[from] = 0;
        self.frozen &= !(bit(from) | bit(to));
        if switches >= LIMIT {
            self.frozen |= bit(to);
        }
        if kind == KING {
            self.king[us] = to;
        }
        self.turn = them;
        promotes
    }
}

/// The legal moves of a position as target sets per origin square.
struct Targets {
    targets: [u32; N],
    /// The side to move's pieces (the origins, ascending).
    from: u32,
    /// Number of legal moves.
    total: u32,
}

/// The `j`-th lowest set bit of `b` (`j < popcount(b)`).
#[inline(always)]
fn nth_bit(mut b: u32, j: u32) -> usize {
    for _ in 0..j {
        b &= b - 1;
    }
    b.trailing_zeros() as usize
}

impl Targets {
    fn new() -> Targets {
        Targets { targets: [0; N], from: 0, total: 0 }
    }

    /// The `k`-th legal move in the rules core's order.
    #[inline(always)]
    fn nth(&self, mut k: u32) -> (usize, usize) {
        let mut rest = self.from;
        loop {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let n = self.targets[s].count_ones();
            if k < n {
                return (s, nth_bit(self.targets[s], k));
            }
            k -= n;
        }
    }

    /// The move `random-piece` picks: a piece uniformly among those with moves (in
    /// square order), then one of its moves uniformly (the runner's two draws).
    #[inline(always)]
    fn pick_by_piece<R: Rng + ?Sized>(&self, rng: &mut R) -> (usize, usize) {
        let mut movers = 0;
        let mut rest = self.from;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            movers += usize::from(self.targets[s] != 0);
        }
        let mut k = uniform(rng, movers) as u32;
        let mut rest = self.from;
        loop {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let n = self.targets[s].count_ones();
            if n > 0 {
                if k == 0 {
                    let j = uniform(rng, n as usize) as u32;
                    return (s, nth_bit(self.targets[s], j));
                }
                k -= 1;
            }
        }
    }
}

/// The kernel for one run configuration.
pub struct BabyKernel {
    start: Board,
    double_step: bool,
    piece_first: [bool; 2],
    max_plies: Option<u32>,
    seed: u64,
}

impl BabyKernel {
    /// The kernel, if it applies: a Baby Chess variant and `random` or `random-piece` on
    /// both sides.
    pub fn for_config(cfg: &RunConfig) -> Option<BabyKernel> {
        let v = cfg.variant();
        let option = rules::variants::baby::BabyOptions::ALL.into_iter().find(|o| o.name() == v.name)?;
        let piece_first = |s: &Strategy| match s {
            Strategy::Random => Some(false),
            Strategy::RandomPiece => Some(true),
            _ => None,
        };
        Some(BabyKernel {
            start: Board::from_position(&cfg.start)?,
            double_step: option.white_double_step,
            piece_first: [piece_first(&cfg.white)?, piece_first(&cfg.black)?],
            max_plies: cfg.max_plies,
            seed: cfg.seed,
        })
    }

    /// Game `index`: the same game [`crate::runner::play_game`] plays; with `line`, its
    /// moves as (origin, target) square indices `rank * 5 + file`.
    pub fn play(&self, index: u64, mut line: Option<&mut Vec<(u8, u8)>>) -> GameRecord {
        let t = tables();
        let mut rng = game_rng(self.seed, index);
        let mut board = self.start.clone();
        let mut list = Targets::new();
        let mut plies = 0u32;
        let mut promoted = [false; 2];
        loop {
            let check = if board.turn == 0 {
                board.legal_targets::<0>(t, self.double_step, &mut list)
            } else {
                board.legal_targets::<1>(t, self.double_step, &mut list)
            };
            if list.total == 0 {
                let mover = if board.turn == 0 { Color::White } else { Color::Black };
                let (result, ending) = match (check, mover) {
                    (true, Color::White) => (GameResult::BlackWin, Ending::Checkmate),
                    (true, Color::Black) => (GameResult::WhiteWin, Ending::Checkmate),
                    (false, _) => (GameResult::Draw, Ending::Stalemate),
                };
                return GameRecord { result, ending, plies, promoted, drawn: None };
            }
            if self.max_plies.is_some_and(|cap| plies >= cap) {
                return GameRecord {
                    result: GameResult::Unfinished,
                    ending: Ending::MaxPlies,
                    plies,
                    promoted,
                    drawn: None,
                };
            }
            let us = board.turn;
            let (from, to) = if self.piece_first[us] {
                list.pick_by_piece(&mut rng)
            } else {
                list.nth(uniform(&mut rng, list.total as usize) as u32)
            };
            if board.play(from, to) {
                promoted[us] = true;
            }
            if let Some(line) = line.as_deref_mut() {
                line.push((from as u8, to as u8));
            }
            plies += 1;
        }
    }
}
