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
/// Most legal moves a Baby Chess position can have is far below this (at most six
/// queens and four other pieces, each with at most 12 moves).
const MAX_MOVES: usize = 160;

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
        }
        t
    })
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
        let orth = self.kind[ROOK as usize] | self.kind[QUEEN as usize];
        let diag = self.kind[BISHOP as usize] | self.kind[QUEEN as usize];
        for d in ORTH_DIRS[by] {
            if let Some(b) = first_blocker(t, OPPOSITE[d], s, occ) {
                a |= bit(b) & orth;
            }
        }
        for d in DIAG_DIRS[by] {
            if let Some(b) = first_blocker(t, OPPOSITE[d], s, occ) {
                a |= bit(b) & diag;
            }
        }
        a & theirs & (t.file[s] | !self.frozen) != 0
    }

    /// Our pieces that may be pinned: the first piece on a line from our king, with an
    /// enemy rider behind it (a superset: those moves get the full test).
    #[inline(always)]
    fn pin_candidates(&self, t: &Tables, us: usize, occ: u32) -> u32 {
        let k = self.king[us];
        let riders = (self.kind[ROOK as usize] | self.kind[BISHOP as usize] | self.kind[QUEEN as usize])
            & self.color[1 - us];
        if t.lines[k] & riders == 0 {
            return 0;
        }
        let mut pinned = 0;
        for d in 0..8 {
            if t.ray[d][k] & riders == 0 {
                continue;
            }
            if let Some(b1) = first_blocker(t, d, k, occ) {
                if self.color[us] & bit(b1) != 0 {
                    if let Some(b2) = first_blocker(t, d, k, occ & !bit(b1)) {
                        if riders & bit(b2) != 0 {
                            pinned |= bit(b1);
                        }
                    }
                }
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

    /// The legal moves in the rules core's order; returns whether the side to move is in check.
    fn legal_moves(&self, t: &Tables, double_step: bool, list: &mut MoveBuf) -> bool {
        list.len = 0;
        let us = self.turn;
        let them = 1 - us;
        let ours = self.color[us];
        let theirs = self.color[them];
        let occ = ours | theirs;
        let empty = FULL & !occ;
        let check = self.attacked(t, self.king[us], them, occ, theirs);
        let test = if check { FULL } else { self.pin_candidates(t, us, occ) | bit(self.king[us]) };
        let mut rest = ours;
        while rest != 0 {
            let from = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let kind = self.piece[from];
            let mut to = match kind {
                PAWN => (t.pawn_push[us][from] & empty) | (t.pawn_capture[us][from] & theirs),
                KNIGHT => t.knight[us][from],
                KING => t.king[us][from],
                _ => {
                    let mut r = 0;
                    if kind != BISHOP {
                        for d in ORTH_DIRS[us] {
                            r |= reach(t, d, from, occ);
                        }
                    }
                    if kind != ROOK {
                        for d in DIAG_DIRS[us] {
                            r |= reach(t, d, from, occ);
                        }
                    }
                    r
                }
            } & !ours;
            if self.frozen & bit(from) != 0 {
                to &= t.file[from];
            }
            let tested = test & bit(from) != 0;
            while to != 0 {
                let s = to.trailing_zeros() as usize;
                to &= to - 1;
                if !tested || self.safe_after(t, us, from, s, occ) {
                    list.push(from, s);
                }
            }
            // White's double step (question 4) comes after the piece's other moves.
            if double_step && kind == PAWN && us == 0 && from / 5 == 1 {
                let (mid, two) = (from + 5, from + 10);
                if empty & bit(mid) != 0 && empty & bit(two) != 0 && (!tested || self.safe_after(t, us, from, two, occ)) {
                    list.push(from, two);
                }
            }
        }
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
        let last_rank = if us == 0 { 4 } else { 0 };
        let promotes = kind == PAWN && to / 5 == last_rank;
        let (new_kind, switches) = if promotes {
            (QUEEN, 0)
        } else if from % 5 != to % 5 {
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

/// A move list: origin and target squares.
struct MoveBuf {
    from: [u8; MAX_MOVES],
    to: [u8; MAX_MOVES],
    len: usize,
}

impl MoveBuf {
    fn new() -> MoveBuf {
        MoveBuf { from: [0; MAX_MOVES], to: [0; MAX_MOVES], len: 0 }
    }

    #[inline(always)]
    fn push(&mut self, from: usize, to: usize) {
        if self.len < MAX_MOVES {
            self.from[self.len] = from as u8;
            self.to[self.len] = to as u8;
            self.len += 1;
        }
    }

    /// The index of the move `random-piece` picks: a piece uniformly among those with
    /// moves (in square order), then one of its moves uniformly (the runner's draws).
    fn pick_by_piece<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let mut pieces = 0;
        for i in 0..self.len {
            pieces += usize::from(i == 0 || self.from[i] != self.from[i - 1]);
        }
        let mut k = uniform(rng, pieces);
        let mut start = 0;
        for i in 0..self.len {
            if i > 0 && self.from[i] != self.from[i - 1] {
                if k == 0 {
                    break;
                }
                k -= 1;
                start = i;
            }
        }
        let mut end = start;
        while end < self.len && self.from[end] == self.from[start] {
            end += 1;
        }
        start + uniform(rng, end - start)
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
        let option = rules::variants::BabyOptions::ALL.into_iter().find(|o| o.name() == v.name)?;
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
        let mut list = MoveBuf::new();
        let mut plies = 0u32;
        let mut promoted = [false; 2];
        loop {
            let check = board.legal_moves(t, self.double_step, &mut list);
            if list.len == 0 {
                let mover = if board.turn == 0 { Color::White } else { Color::Black };
                let (result, ending) = match (check, mover) {
                    (true, Color::White) => (GameResult::BlackWin, Ending::Checkmate),
                    (true, Color::Black) => (GameResult::WhiteWin, Ending::Checkmate),
                    (false, _) => (GameResult::Draw, Ending::Stalemate),
                };
                return GameRecord { result, ending, plies, promoted };
            }
            if self.max_plies.is_some_and(|cap| plies >= cap) {
                return GameRecord { result: GameResult::Unfinished, ending: Ending::MaxPlies, plies, promoted };
            }
            let us = board.turn;
            let i = if self.piece_first[us] { list.pick_by_piece(&mut rng) } else { uniform(&mut rng, list.len) };
            let (from, to) = (list.from[i], list.to[i]);
            if board.play(from as usize, to as usize) {
                promoted[us] = true;
            }
            if let Some(line) = line.as_deref_mut() {
                line.push((from, to));
            }
            plies += 1;
        }
    }
}
