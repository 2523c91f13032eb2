//! Retrograde generation: sub-endings first, then level by level in plies, wins from un-moves of
//! fresh losses and losses from verified candidates, in parallel and deterministic.
//!
//! Values are distances in plies from the side to move's point of view: even `p` is a win in `p/2`
//! moves (0: the royal can be captured now), odd `p` a loss after `(p-1)/2` moves (1: checkmated).
//! Level `p` decides every position whose value is `p`:
//!
//! - Step 1 (init): level 0, the positions where the side to move can capture the enemy royal (and,
//!   with `-b`, White to move against a bare black royal); positions without a single move are mated
//!   or stalemated and go straight to level 1.
//! - Step 2 (even `p`, wins): every predecessor of a position lost at `p-1` wins at `p`, unless it
//!   already won sooner. Predecessors are found by un-moves in this table, by the pass (`-0`), and by
//!   un-captures from sub-ending positions whose value (as this metric counts it) is `p-1`.
//! - Step 3 (odd `p`, losses): the undecided predecessors of positions won at `p-1` are candidates;
//!   a candidate is lost at `p` when every move reaches a position already won for the opponent
//!   (a capture: a sub-ending win no longer than `p-1`), it has a legal move or is in check (else it
//!   is stalemated: a draw, or with `-s` a loss), and, with `-0` for Black, the pass loses too.
//!
//! A level whose frontier is large against the undecided positions (ply 1 always) is done by a
//! forward scan instead: every undecided position is tested directly (a win: some move reaches a
//! position lost at `p-1`; a loss: as in step 3). The sets the levels work on are read back from
//! the value bytes (won = even value; the frontier = the previous level's value, looked for only
//! in the 256-position runs that level marked), so memory is the values plus one candidate bitmap.
//!
//! Each position is decided once, by the level it belongs to, whatever the thread interleaving: the
//! tables are identical for any thread count. What is undecided at the end is a draw. Under DTC a
//! capture is a conversion: the sub-ending counts only as won (level 0) or lost (level 1).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

use crate::bitmap::Bitmap;
use crate::board::BoardShape;
use crate::error::EgtError;
use crate::index::Squares;
use crate::material::{Material, BLACK, WHITE};
use crate::pieces::PieceSet;
use crate::symmetry::SymmetryGroup;
use crate::table::{Family, Table};
use crate::value::{is_win, Metric, TableRules, DRAW, INVALID, MAX_PLIES};
use rayon::prelude::*;

/// Positions per chunk: the unit of parallel tasks and of the per-level bookkeeping (64 divides it).
const CHUNK: u64 = 1 << 12;
/// Positions per level mark (64 divides it): a level's frontier is looked for in the marked runs.
const MARK: u64 = 1 << 8;

/// What generation reports as it goes.
#[derive(Debug, Clone)]
pub enum Progress {
    /// A table is starting (`index` of `count` in the family).
    Table {
        /// The table's material.
        material: String,
        /// Its place in the family (0 first).
        index: usize,
        /// The tables of the family.
        count: usize,
        /// Its positions.
        positions: u64,
    },
    /// A distance level is done: positions decided at `plies` with White and Black to move.
    Level {
        /// The table's material.
        material: String,
        /// The distance, in plies.
        plies: u32,
        /// Positions decided at it with White to move.
        white: u64,
        /// Positions decided at it with Black to move.
        black: u64,
    },
}

/// A generation request.
#[derive(Debug, Clone)]
pub struct Request {
    /// The ending.
    pub material: Material,
    /// The board.
    pub board: BoardShape,
    /// The rules.
    pub rules: TableRules,
    /// The pieces the material was parsed with.
    pub pieces: PieceSet,
    /// Refuse to allocate more than this many bytes.
    pub max_memory: u64,
}

/// The materials of a family in generation order (sub-endings first), each with its capture links.
fn plan(material: &Material) -> Vec<(Material, Vec<Option<usize>>)> {
    fn visit(m: &Material, out: &mut Vec<(Material, Vec<Option<usize>>)>) -> usize {
        if let Some(i) = out.iter().position(|(x, _)| x == m) {
            return i;
        }
        let mut caps = Vec::new();
        for (j, man) in m.men().iter().enumerate() {
            caps.push(if man.royal { None } else { Some(visit(&m.without(j), out)) });
        }
        out.push((m.clone(), caps));
        out.len() - 1
    }
    let mut out = Vec::new();
    visit(material, &mut out);
    out
}

/// Bytes the generation of `material` would hold at its peak (all tables plus working sets).
pub fn memory_needed(material: &Material, board: BoardShape) -> u64 {
    let group = SymmetryGroup::for_material(board, material);
    let sizes: Vec<u64> = plan(material).iter().map(|(m, _)| crate::index::Indexer::size_of(m, &group)).collect();
    let main = sizes.last().copied().unwrap_or(0);
    // Escape counters (a byte) and settled bits (a bit) per position and side on small tables.
    let counters = sizes.iter().filter(|&&s| s <= COUNTED).max().map_or(0, |&s| 2 * s + s.div_ceil(4));
    sizes
        .iter()
        .fold(0u64, |a, &s| a.saturating_add(s.saturating_mul(2)))
        .saturating_add(main.div_ceil(8))
        .saturating_add(counters)
}

/// Generates the family of `req.material`, calling `progress` as it goes (from the calling thread).
/// Runs on the current rayon pool.
///
/// # Errors
///
/// [`EgtError::TooLarge`] when the tables would not fit in `req.max_memory`;
/// [`EgtError::DistanceOverflow`] when a distance exceeds what a byte holds.
pub fn generate(req: &Request, progress: &mut dyn FnMut(&Progress)) -> Result<Family, EgtError> {
    let needed = memory_needed(&req.material, req.board);
    if needed > req.max_memory {
        return Err(EgtError::TooLarge {
            material: req.material.to_string(),
            needed: human_bytes(needed),
            limit: human_bytes(req.max_memory),
        });
    }
    let group = Arc::new(SymmetryGroup::for_material(req.board, &req.material));
    let plan = plan(&req.material);
    let count = plan.len();
    let mut family = Family {
        board: req.board,
        rules: req.rules,
        pieces: req.pieces.clone(),
        group: group.clone(),
        tables: Vec::new(),
    };
    for (i, (material, captures)) in plan.into_iter().enumerate() {
        let table = Table::new(material, group.clone(), captures);
        progress(&Progress::Table { material: table.material.to_string(), index: i, count, positions: table.size() });
        Generator::new(&family.tables, &table, req.rules).run(progress)?;
        family.tables.push(table);
    }
    Ok(family)
}

/// A byte count for people.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1000.0 && u + 1 < UNITS.len() {
        x /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// A sub-ending reachable by one capture: the captured man and the table.
struct Capture<'a> {
    man: usize,
    table: &'a Table,
}

/// Tables up to this many indices per side keep escape counters (one more byte per position) so that
/// a loss candidate is verified only once its counted escapes are gone.
const COUNTED: u64 = 1 << 24;

/// A forward scan of the undecided positions replaces the un-move marking of a loss level when the
/// frontier times this exceeds the undecided positions (a verification is cheaper than a marking).
const SCAN_LOSSES: u64 = 4;
/// The same for win levels (a win test usually runs through every move).
const SCAN_WINS: u64 = 1;

/// The state of one table's generation.
///
/// Only the values are kept per position; the sets the levels work on are rebuilt from them: the
/// won positions are the even values, the frontier of a level the previous level's value (found in
/// the chunks that level marked), and the loss candidates a bitmap cleared chunk by chunk.
struct Generator<'a> {
    t: &'a Table,
    family: &'a [Table],
    rules: TableRules,
    /// Distinct sub-endings per captured side: `subs[side]` are captures of that side's men.
    subs: [Vec<Capture<'a>>; 2],
    cand: Bitmap,
    /// Per side and run of `MARK` positions: one more than the last level that decided a position
    /// there (0: none).
    marks: [Vec<AtomicU8>; 2],
    /// Per chunk: whether `cand` has bits there.
    cand_marks: Vec<AtomicBool>,
    /// Per side: the runs with positions decided at the previous level, and how many there are.
    active: [Vec<u32>; 2],
    counts: [u64; 2],
    /// Per side: valid positions not decided yet.
    undecided: [u64; 2],
    /// Per side: positions lost so far.
    lost: [u64; 2],
    /// The highest level a sub-ending value starts.
    max_sub: u32,
    /// Per side to move and position, on tables of at most [`COUNTED`] indices: how many quiet moves
    /// may still escape, as of the last verification less the won successors heard of since (never
    /// more than the truth); a candidate is verified only when it reaches 0. [`UNCOUNTED`]: not known.
    counters: Option<[Vec<AtomicU8>; 2]>,
    /// Per side to move, on tables of at most [`COUNTED`] indices (where the counters are too): the
    /// positions decided or invalid (a bit per position stays in a closer cache than the value bytes
    /// un-moves would read). Un-moves on these tables are not batched for prefetching.
    settled: Option<[Bitmap; 2]>,
    /// Per worker thread (and one more for the calling thread): positions decided since the last
    /// level ended, per side to move.
    tallies: Vec<Tally>,
}

/// One thread's count of decisions per side to move, alone in its cache line.
#[repr(align(64))]
#[derive(Default)]
struct Tally([AtomicU64; 2]);

impl<'a> Generator<'a> {
    fn new(family: &'a [Table], t: &'a Table, rules: TableRules) -> Generator<'a> {
        let size = t.size();
        let mut subs: [Vec<Capture<'a>>; 2] = [Vec::new(), Vec::new()];
        let mut seen = Vec::new();
        for (man, cap) in t.captures.iter().enumerate() {
            if let Some(i) = *cap {
                if !seen.contains(&i) {
                    seen.push(i);
                    subs[t.material.men()[man].side].push(Capture { man, table: &family[i] });
                }
            }
        }
        let chunks = size.div_ceil(CHUNK) as usize;
        let marks = || (0..size.div_ceil(MARK)).map(|_| AtomicU8::new(0)).collect::<Vec<_>>();
        Generator {
            t,
            family,
            rules,
            subs,
            cand: Bitmap::new(size),
            marks: [marks(), marks()],
            cand_marks: (0..chunks).map(|_| AtomicBool::new(false)).collect(),
            active: [Vec::new(), Vec::new()],
            counts: [0, 0],
            undecided: [0, 0],
            lost: [0, 0],
            max_sub: 0,
            counters: (size <= COUNTED).then(|| {
                let fresh = || (0..size).map(|_| AtomicU8::new(UNCOUNTED)).collect::<Vec<_>>();
                [fresh(), fresh()]
            }),
            settled: (size <= COUNTED).then(|| [Bitmap::new(size), Bitmap::new(size)]),
            tallies: (0..=rayon::current_num_threads()).map(|_| Tally::default()).collect(),
        }
    }

    /// Whether this run decides wins (`win`) or losses for side to move `s`.
    fn computes(&self, s: usize, win: bool) -> bool {
        !self.rules.one_sided || (s == WHITE) == win
    }

    /// The level of a sub-ending value as this metric counts it (`None`: draw).
    #[inline]
    fn sub_level(&self, v: u8) -> Option<u32> {
        if v >= DRAW {
            None
        } else if self.rules.metric == Metric::Dtc {
            Some(u32::from(v & 1))
        } else {
            Some(u32::from(v))
        }
    }

    /// The positions of chunk `c`.
    #[inline]
    fn chunk(&self, c: usize) -> std::ops::Range<u64> {
        self.run_of(c, CHUNK)
    }

    /// The positions of run `c` of `len` positions.
    #[inline]
    fn run_of(&self, c: usize, len: u64) -> std::ops::Range<u64> {
        c as u64 * len..((c as u64 + 1) * len).min(self.t.size())
    }

    /// The number of chunks.
    fn chunks(&self) -> usize {
        self.t.size().div_ceil(CHUNK) as usize
    }

    /// Calls `f(idx, squares)` for the indices of chunk `c` in order, decoding incrementally when
    /// the last slot is a single man (the squares of invalid indices are meaningless).
    #[inline]
    fn for_each_in_chunk(&self, c: usize, mut f: impl FnMut(u64, &Squares)) {
        let ix = &self.t.indexer;
        let r = self.chunk(c);
        let last = ix.last_single();
        let mut sq = ix.decode(r.start);
        for idx in r.clone() {
            if idx != r.start {
                match last {
                    Some((m, n)) if u64::from(sq[m]) + 1 < n => sq[m] += 1,
                    _ => sq = ix.decode(idx),
                }
            }
            f(idx, &sq);
        }
    }

    fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> Result<(), EgtError> {
        let name = self.t.material.to_string();
        let valid = self.init();
        self.end_level(0);
        self.undecided = [valid - self.counts[0], valid - self.counts[1]];
        progress(&Progress::Level { material: name.clone(), plies: 0, white: self.counts[0], black: self.counts[1] });
        let max_sub = self.max_sub_level();
        self.max_sub = max_sub;
        let mut p = 1u32;
        loop {
            for s in [WHITE, BLACK] {
                if p % 2 == 1 {
                    if self.computes(s, false) {
                        self.losses(s, p);
                    }
                } else if self.computes(s, true) {
                    self.wins(s, p);
                }
            }
            self.end_level(p);
            let (w, b) = (self.counts[0], self.counts[1]);
            self.undecided[0] -= w;
            self.undecided[1] -= b;
            if p % 2 == 1 {
                self.lost[0] += w;
                self.lost[1] += b;
            }
            progress(&Progress::Level { material: name.clone(), plies: p, white: w, black: b });
            // Level p + 1 starts from what level p decided and from sub-ending values at level p.
            if w + b == 0 && p > max_sub {
                return Ok(());
            }
            p += 1;
            if p > MAX_PLIES {
                return Err(EgtError::DistanceOverflow { material: name, max: MAX_PLIES / 2 });
            }
        }
    }

    /// After level `p`: per side, the chunks it decided positions in and how many.
    fn end_level(&mut self, p: u32) {
        for s in [WHITE, BLACK] {
            let marks = &self.marks[s];
            let active: Vec<u32> = (0..marks.len() as u32)
                .into_par_iter()
                .filter(|&c| u32::from(marks[c as usize].load(Relaxed)) == p + 1)
                .collect();
            self.counts[s] = self.tallies.iter().map(|t| t.0[s].swap(0, Relaxed)).sum();
            self.active[s] = active;
        }
    }

    /// The highest level a sub-ending value starts (0 without captures).
    fn max_sub_level(&self) -> u32 {
        self.subs
            .iter()
            .flatten()
            .map(|c| {
                (0..c.table.size())
                    .into_par_iter()
                    .map(|i| (0..2).filter_map(|s| self.sub_level(c.table.value(s, i))).max().unwrap_or(0))
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    }

    /// Step 1: invalid positions and level 0. Returns the number of valid positions. (The positions
    /// without a move that level 1 decides are found by its scan.)
    fn init(&self) -> u64 {
        let t = self.t;
        let bare = self.rules.bare_king_lost(&t.material);
        (0..self.chunks())
            .into_par_iter()
            .map(|c| {
                let mut valid = 0;
                self.for_each_in_chunk(c, |idx, sq| {
                    if !t.indexer.is_valid(sq) {
                        t.set(WHITE, idx, INVALID);
                        t.set(BLACK, idx, INVALID);
                        if let Some(b) = &self.settled {
                            b[WHITE].insert(idx);
                            b[BLACK].insert(idx);
                        }
                        return;
                    }
                    valid += 1;
                    if bare {
                        self.decide(WHITE, idx, 0);
                        return;
                    }
                    let occ = t.moves.occupied(sq);
                    for s in [WHITE, BLACK] {
                        if self.computes(s, true) && t.moves.can_capture_royal(sq, occ, s) {
                            self.decide(s, idx, 0);
                        }
                    }
                });
                valid
            })
            .sum()
    }

    /// Records a decision at level `p` of an undecided position (counted once when two threads
    /// decide it at once).
    #[inline]
    fn decide(&self, s: usize, idx: u64, p: u32) {
        let fresh = match &self.settled {
            Some(b) => {
                self.t.set(s, idx, p as u8);
                b[s].insert(idx)
            }
            None => self.t.claim(s, idx, p as u8),
        };
        if !fresh {
            return;
        }
        let n = self.tallies.len() - 1;
        self.tallies[rayon::current_thread_index().map_or(n, |i| i.min(n))].0[s].fetch_add(1, Relaxed);
        let m = &self.marks[s][(idx / MARK) as usize];
        let v = (p + 1) as u8;
        if m.load(Relaxed) != v {
            m.store(v, Relaxed);
        }
    }

    /// Whether position `q` (side `s` to move) is still undecided (and valid).
    #[inline]
    fn open(&self, s: usize, q: u64) -> bool {
        match &self.settled {
            Some(b) => !b[s].contains(q),
            None => self.t.value(s, q) == DRAW,
        }
    }

    /// Decides at level `p` every undecided position of side `s` for which `test` holds.
    fn scan(&self, s: usize, p: u32, test: impl Fn(u64, &Squares) -> bool + Sync) {
        (0..self.chunks()).into_par_iter().for_each(|c| {
            self.for_each_in_chunk(c, |q, sq| {
                if self.t.value(s, q) == DRAW && test(q, sq) {
                    self.decide(s, q, p);
                }
            });
        });
    }

    /// Calls `f(i)` for every bit of `bm` in the runs `chunks` of `len` positions, in parallel.
    fn for_each_bit(&self, bm: &Bitmap, chunks: &[u32], len: u64, f: impl Fn(u64) + Sync) {
        chunks.par_iter().for_each(|&c| {
            let r = self.run_of(c as usize, len);
            for w in (r.start / 64)..r.end.div_ceil(64) {
                let mut bits = bm.word(w as usize);
                while bits != 0 {
                    f(w * 64 + u64::from(bits.trailing_zeros()));
                    bits &= bits - 1;
                }
            }
        });
    }

    /// Calls `f(q, quiet)` for the index of every predecessor, with `s` to move, of the fresh
    /// positions (the other side to move, decided at `p - 1`) and of the sub-ending positions at level
    /// `p - 1`; `quiet` tells a quiet un-move from a pass or an un-capture. On large tables `touch(q)`
    /// fetches what `f(q)` will read, a batch of predecessors ahead.
    fn for_each_predecessor(
        &self,
        s: usize,
        p: u32,
        pass_ok: impl Fn(u64, &Squares) -> bool + Sync,
        touch: impl Fn(u64) + Sync,
        f: impl Fn(u64, bool) + Sync,
    ) {
        let t = self.t;
        let them = 1 - s;
        let null = self.rules.null_move && s == BLACK;
        let v = (p - 1) as u8;
        let batched = self.settled.is_none();
        self.active[them].par_iter().for_each(|&c| {
            let mut batch = [0u64; 128];
            for x in self.run_of(c as usize, MARK) {
                if t.value(them, x) != v {
                    continue;
                }
                let sq = t.indexer.decode(x);
                let o = t.moves.occupancy(&sq);
                if null && pass_ok(x, &sq) {
                    f(x, false);
                }
                // On a large table, predecessors are gathered and their cache lines fetched together
                // first (they lie far apart); a small table's cache holds what they read.
                let mut n = 0;
                for m in (0..t.indexer.men()).filter(|&m| t.moves.side_of(m) == s) {
                    let mut from = t.moves.unmove_origins(&sq, &o, m);
                    while from != 0 {
                        let at = from.trailing_zeros() as u8;
                        from &= from - 1;
                        t.indexer.for_each_index_after_move(x, &sq, m, at, |q| {
                            if batched && n < batch.len() {
                                touch(q);
                                batch[n] = q;
                                n += 1;
                            } else {
                                f(q, true);
                            }
                        });
                    }
                }
                batch[..n].iter().for_each(|&q| f(q, true));
            }
        });
        // Un-captures: s captured a man of `them`, reaching a sub-ending position with `them` to move.
        for cap in self.subs[them].iter().filter(|_| p - 1 <= self.max_sub) {
            let sub = cap.table;
            let chunks = sub.size().div_ceil(CHUNK);
            (0..chunks).into_par_iter().for_each(|c| {
                for i in c * CHUNK..((c + 1) * CHUNK).min(sub.size()) {
                    let v = sub.value(them, i);
                    if v == INVALID || self.sub_level(v) != Some(p - 1) {
                        continue;
                    }
                    let csq = sub.indexer.decode(i);
                    let co = sub.moves.occupancy(&csq);
                    let j = cap.man;
                    for mc in 0..sub.indexer.men() {
                        if sub.material.men()[mc].side != s {
                            continue;
                        }
                        let m = if mc < j { mc } else { mc + 1 };
                        let at = csq[mc];
                        t.moves.for_each_uncapture_origin(m, at, co.occ, |from| {
                            let mut q = [0u8; crate::material::MAX_MEN];
                            for k in 0..t.indexer.men() {
                                q[k] = if k == j {
                                    at
                                } else if k == m {
                                    from
                                } else {
                                    csq[if k < j { k } else { k - 1 }]
                                };
                            }
                            t.indexer.for_each_stored(&q, |q| f(q, false));
                        });
                    }
                }
            });
        }
    }

    /// Step 2: wins at even level `p` for side to move `s`: the undecided predecessors of the
    /// positions lost at `p - 1`, by un-moves from them or (large frontier) by a scan testing moves.
    fn wins(&self, s: usize, p: u32) {
        let t = self.t;
        let them = 1 - s;
        if self.counts[them] * SCAN_WINS > self.undecided[s] {
            self.scan(s, p, |q, sq| self.wins_now(s, q, sq, p));
            return;
        }
        let pass_ok = |x: u64, sq: &Squares| {
            // The pass wins only if Black has a legal move (it may not pass when stalemated) and the
            // position after it (White to move, same men) was lost at p - 1.
            t.value(WHITE, x) == (p - 1) as u8 && t.moves.has_legal_move(sq, s)
        };
        self.for_each_predecessor(
            s,
            p,
            pass_ok,
            |q| t.prefetch(s, q),
            |q, _| {
                if self.open(s, q) {
                    self.decide(s, q, p);
                }
            },
        );
    }

    /// Whether undecided `q` (side `s` to move) has a move to a position lost at level `p - 1`.
    fn wins_now(&self, s: usize, q: u64, sq: &Squares, p: u32) -> bool {
        let t = self.t;
        let them = 1 - s;
        let target = (p - 1) as u8;
        let o = t.moves.occupancy(sq);
        // The last man's moves first: their successors share cache lines.
        let wins = (0..t.indexer.men()).rev().filter(|&m| t.moves.side_of(m) == s).any(|m| {
            let (mut quiet, mut caps) = t.moves.targets(sq, &o, m);
            while quiet != 0 {
                let to = quiet.trailing_zeros() as u8;
                quiet &= quiet - 1;
                if t.value(them, t.indexer.index_after_move(q, sq, m, to)) == target {
                    return true;
                }
            }
            while caps != 0 {
                let to = caps.trailing_zeros() as u8;
                caps &= caps - 1;
                let Some(v) = self.capture_value(them, sq, m, to) else { continue };
                if self.sub_level(v) == Some(p - 1) {
                    return true;
                }
            }
            false
        });
        wins || (self.rules.null_move && s == BLACK && t.value(WHITE, q) == target && t.moves.has_legal_move(sq, s))
    }

    /// Step 3: losses at odd level `p` for side to move `s`: the undecided positions all of whose
    /// moves reach positions won for the opponent, verified among the predecessors of the positions
    /// won at `p - 1` or (large frontier, and level 1: positions without a move) by a scan.
    fn losses(&self, s: usize, p: u32) {
        let t = self.t;
        let them = 1 - s;
        if p == 1 || self.counts[them] * SCAN_LOSSES > self.undecided[s] {
            let bare = p == 1 && s == BLACK && self.rules.bare_king_lost(&t.material);
            // With counters, the scan of the side that has lost more so far (the one whose later loss
            // levels verify many candidates) counts every quiet escape of the positions it does not
            // decide; later levels then verify a candidate only once they are all won.
            let counters = self.counters.as_ref().map(|c| &c[s]).filter(|_| p > 1 && self.lost[s] >= self.lost[them]);
            self.scan(s, p, |q, sq| {
                // Level 0 holds only the positions where a royal can be captured: a legal quiet
                // move escapes it, and finding one needs no table access.
                if bare || p == 1 && t.moves.has_legal_quiet_move(sq, s) {
                    return bare;
                }
                let Some(c) = counters else { return self.lost(s, q, sq, p) };
                let (lost, escapes) = self.verify(s, q, sq, p, true);
                if !lost {
                    c[q as usize].store(self.counter_after(sq, escapes), Relaxed);
                }
                lost
            });
            // A scan that counts no escapes hears of no won successor: the counts are stale.
            if let Some(c) = self.counters.as_ref().filter(|_| p > 1 && counters.is_none()) {
                c[s].par_iter().for_each(|x| x.store(UNCOUNTED, Relaxed));
            }
            return;
        }
        let counters = self.counters.as_ref().map(|c| &c[s]);
        self.for_each_predecessor(
            s,
            p,
            |_, _| true,
            |q| self.cand.prefetch(q),
            |q, quiet| {
                if let Some(c) = counters {
                    if !self.open(s, q) {
                        return;
                    }
                    // A quiet escape is still counted: not lost, nothing to verify.
                    let left = if quiet { decrement(&c[q as usize]) } else { c[q as usize].load(Relaxed) };
                    if left != 0 && left != UNCOUNTED {
                        return;
                    }
                }
                // The value is tested once per candidate, when verifying: the bitmap is smaller.
                if self.cand.insert(q) {
                    let m = &self.cand_marks[(q / CHUNK) as usize];
                    if !m.load(Relaxed) {
                        m.store(true, Relaxed);
                    }
                }
            },
        );
        let chunks: Vec<u32> = (0..self.cand_marks.len() as u32)
            .into_par_iter()
            .filter(|&c| self.cand_marks[c as usize].load(Relaxed))
            .collect();
        self.for_each_bit(&self.cand, &chunks, CHUNK, |q| {
            if !self.open(s, q) {
                return;
            }
            let sq = t.indexer.decode(q);
            let (lost, escapes) = self.verify(s, q, &sq, p, counters.is_some());
            if lost {
                self.decide(s, q, p);
            } else if let Some(c) = counters {
                c[q as usize].store(self.counter_after(&sq, escapes), Relaxed);
            }
        });
        chunks.par_iter().for_each(|&c| {
            self.cand_marks[c as usize].store(false, Relaxed);
            let r = self.chunk(c as usize);
            for w in (r.start / 64)..r.end.div_ceil(64) {
                self.cand.set_word(w as usize, 0);
            }
        });
    }

    /// The sub-ending value (`them` to move) after man `m` captures on `to`; `None` when the captured
    /// man is a royal (the capture ends the game: no sub-ending).
    #[inline]
    fn capture_value(&self, them: usize, sq: &Squares, m: usize, to: u8) -> Option<u8> {
        let t = self.t;
        let j = usize::from(t.moves.man_on(sq, to));
        let sub = &self.family[t.captures[j]?];
        Some(sub.value_at(them, &after_capture(sq, t.indexer.men(), m, to, j)))
    }

    /// The escape counter a position keeps after a verification that found `escapes` quiet escapes.
    /// A symmetric position hears of fewer won successors than it has moves to them (un-moves from a
    /// successor reach it once per orbit): it keeps 0 and is verified every time.
    #[inline]
    fn counter_after(&self, sq: &Squares, escapes: u32) -> u8 {
        if self.t.indexer.is_symmetric(sq) {
            0
        } else {
            escapes.min(u32::from(UNCOUNTED) - 1) as u8
        }
    }

    /// Whether undecided `q` (side `s` to move) is lost at level `p`.
    fn lost(&self, s: usize, q: u64, sq: &Squares, p: u32) -> bool {
        self.verify(s, q, sq, p, false).0
    }

    /// Whether undecided `q` (side `s` to move) is lost at level `p`, and how many of its quiet moves
    /// reach positions not won for the opponent (all of them with `count`; else it stops at the first
    /// escape).
    fn verify(&self, s: usize, q: u64, sq: &Squares, p: u32, count: bool) -> (bool, u32) {
        let t = self.t;
        let them = 1 - s;
        let o = t.moves.occupancy(sq);
        let mut escapes = 0;
        let mut escaped = false;
        // A successor the opponent has not won at level 0 (royal capture) shows a legal move.
        let mut legal = false;
        // The last man's moves first: their successors share cache lines.
        for m in (0..t.indexer.men()).rev().filter(|&m| t.moves.side_of(m) == s) {
            let (mut quiet, mut caps) = t.moves.targets(sq, &o, m);
            while quiet != 0 {
                let to = quiet.trailing_zeros() as u8;
                quiet &= quiet - 1;
                let v = t.value(them, t.indexer.index_after_move(q, sq, m, to));
                legal |= v != 0;
                if !is_win(v) {
                    escapes += 1;
                    escaped = true;
                    if !count {
                        return (false, escapes);
                    }
                }
            }
            while caps != 0 {
                let to = caps.trailing_zeros() as u8;
                caps &= caps - 1;
                let escape = self
                    .capture_value(them, sq, m, to)
                    .is_none_or(|v| !(is_win(v) && self.sub_level(v).is_some_and(|l| l < p)));
                if escape {
                    escaped = true;
                    if !count {
                        return (false, escapes);
                    }
                }
            }
        }
        if escaped {
            return (false, escapes);
        }
        // (Level 0 may also hold legal positions, `-b`'s bare royals: the test then decides.)
        let legal = legal || t.moves.has_legal_move(sq, s);
        if self.rules.null_move && s == BLACK && legal && !is_win(t.value(WHITE, q)) {
            return (false, 0);
        }
        (legal || self.rules.stalemate_wins || t.moves.in_check(sq, o.occ, s), 0)
    }
}

/// A counter no verification has set yet.
const UNCOUNTED: u8 = u8::MAX;

/// Takes one from a set, non-zero counter and returns what is left (a zero or unset one unchanged).
#[inline]
fn decrement(c: &AtomicU8) -> u8 {
    match c.fetch_update(Relaxed, Relaxed, |v| (v != 0 && v != UNCOUNTED).then(|| v - 1)) {
        Ok(v) => v - 1,
        Err(v) => v,
    }
}

/// The squares of the sub-ending position after man `m` moves to `to` capturing man `j`.
#[inline]
pub(crate) fn after_capture(sq: &Squares, men: usize, m: usize, to: u8, j: usize) -> Squares {
    let mut c = [0u8; crate::material::MAX_MEN];
    let mut k = 0;
    for i in 0..men {
        if i == j {
            continue;
        }
        c[k] = if i == m { to } else { sq[i] };
        k += 1;
    }
    c
}
