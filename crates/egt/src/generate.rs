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
//! Each position is decided once, by the level it belongs to, whatever the thread interleaving: the
//! tables are identical for any thread count. What is undecided at the end is a draw. Under DTC a
//! capture is a conversion: the sub-ending counts only as won (level 0) or lost (level 1).

use std::sync::Arc;

use crate::bitmap::Bitmap;
use crate::board::BoardShape;
use crate::error::EgtError;
use crate::index::Squares;
use crate::material::{Material, BLACK, WHITE};
use crate::moves::NONE;
use crate::pieces::PieceSet;
use crate::symmetry::SymmetryGroup;
use crate::table::{Family, Table};
use crate::value::{is_win, Metric, TableRules, DRAW, INVALID, MAX_PLIES};
use rayon::prelude::*;

/// Positions per parallel task in whole-table passes.
const CHUNK: u64 = 1 << 14;

/// What generation reports as it goes.
#[derive(Debug, Clone)]
pub enum Progress {
    /// A table is starting (`index` of `count` in the family).
    Table { material: String, index: usize, count: usize, positions: u64 },
    /// A distance level is done: positions decided at `plies` with White and Black to move.
    Level { material: String, plies: u32, white: u64, black: u64 },
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
    let group = Arc::new(SymmetryGroup::for_material(board, material));
    let sizes: Vec<u64> =
        plan(material).iter().map(|(m, _)| crate::index::Indexer::new(m, group.clone()).size()).collect();
    let main = sizes.last().copied().unwrap_or(0);
    2 * sizes.iter().sum::<u64>() + 7 * main.div_ceil(8)
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

/// The state of one table's generation.
struct Generator<'a> {
    t: &'a Table,
    family: &'a [Table],
    rules: TableRules,
    /// Distinct sub-endings per captured side: `subs[side]` are captures of that side's men.
    subs: [Vec<Capture<'a>>; 2],
    royal: [usize; 2],
    won: [Bitmap; 2],
    fresh: [Bitmap; 2],
    next: [Bitmap; 2],
    cand: Bitmap,
}

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
        let bm = || [Bitmap::new(size), Bitmap::new(size)];
        Generator {
            t,
            family,
            rules,
            subs,
            royal: [t.material.royal(WHITE), t.material.royal(BLACK)],
            won: bm(),
            fresh: bm(),
            next: bm(),
            cand: Bitmap::new(size),
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

    fn run(mut self, progress: &mut dyn FnMut(&Progress)) -> Result<(), EgtError> {
        let name = self.t.material.to_string();
        let seeds = self.init();
        progress(&Progress::Level {
            material: name.clone(),
            plies: 0,
            white: self.fresh[0].count(),
            black: self.fresh[1].count(),
        });
        let max_sub = self.max_sub_level();
        let mut seeds = Some(seeds);
        let mut p = 1u32;
        loop {
            for s in [WHITE, BLACK] {
                if p % 2 == 1 {
                    if self.computes(s, false) {
                        self.losses(s, p, seeds.as_ref().map(|x| &x[s]));
                    }
                } else if self.computes(s, true) {
                    self.wins(s, p);
                }
            }
            seeds = None;
            let (w, b) = (self.next[0].count(), self.next[1].count());
            progress(&Progress::Level { material: name.clone(), plies: p, white: w, black: b });
            for s in 0..2 {
                let (f, n) = (&mut self.fresh, &mut self.next);
                f[s].swap(&mut n[s]);
                n[s].clear();
            }
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

    /// Step 1: invalid positions, level 0, and the level-1 seeds (no move at all).
    fn init(&mut self) -> [Bitmap; 2] {
        let t = self.t;
        let size = t.size();
        let seeds = [Bitmap::new(size), Bitmap::new(size)];
        let bare = self.rules.bare_king_loses && t.material.is_bare(BLACK) && !t.material.is_bare(WHITE);
        let chunks = size.div_ceil(CHUNK);
        (0..chunks).into_par_iter().for_each(|c| {
            for idx in c * CHUNK..((c + 1) * CHUNK).min(size) {
                let Some(sq) = t.indexer.valid(idx) else {
                    t.set(WHITE, idx, INVALID);
                    t.set(BLACK, idx, INVALID);
                    continue;
                };
                let o = t.moves.occupancy(&sq);
                for s in [WHITE, BLACK] {
                    if bare {
                        if s == WHITE {
                            self.decide(s, idx, 0);
                        } else {
                            seeds[s].insert(idx);
                        }
                        continue;
                    }
                    if t.moves.can_capture_royal(&sq, o.occ, s) {
                        if self.computes(s, true) {
                            self.decide(s, idx, 0);
                        }
                        continue;
                    }
                    let no_moves = t.moves.for_each_move(&sq, &o, s, |_, _, _| false);
                    let mated = t.moves.in_check(&sq, o.occ, s) || self.rules.stalemate_wins;
                    if no_moves && self.computes(s, false) && mated {
                        seeds[s].insert(idx);
                    }
                }
            }
        });
        seeds
    }

    /// Records a decision at level `p` (wins also join the won set).
    #[inline]
    fn decide(&self, s: usize, idx: u64, p: u32) {
        if p % 2 == 0 {
            self.won[s].insert(idx);
        }
        self.t.set(s, idx, p as u8);
        if p == 0 {
            self.fresh[s].insert(idx);
        } else {
            self.next[s].insert(idx);
        }
    }

    /// Calls `f(q)` for the index of every predecessor, with `s` to move, of the fresh positions (the
    /// other side to move) and of the sub-ending positions at level `p - 1`.
    fn for_each_predecessor(
        &self,
        s: usize,
        p: u32,
        pass_ok: &(dyn Fn(u64, &Squares) -> bool + Sync),
        f: &(dyn Fn(u64) + Sync),
    ) {
        let t = self.t;
        let them = 1 - s;
        let null = self.rules.null_move && s == BLACK;
        self.fresh[them].par_for_each(|x| {
            let sq = t.indexer.decode(x);
            let o = t.moves.occupancy(&sq);
            if null && pass_ok(x, &sq) {
                f(x);
            }
            t.moves.for_each_unmove(&sq, &o, s, |m, from| t.indexer.for_each_index_after_move(x, &sq, m, from, f));
        });
        // Un-captures: s captured a man of `them`, reaching a sub-ending position with `them` to move.
        for cap in &self.subs[them] {
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
                            t.indexer.for_each_stored(&q, f);
                        });
                    }
                }
            });
        }
    }

    /// Step 2: wins at even level `p` for side to move `s`.
    fn wins(&self, s: usize, p: u32) {
        let t = self.t;
        let pass_ok = |x: u64, sq: &Squares| {
            // The pass wins only if Black has a legal move (it may not pass when stalemated) and the
            // position after it (White to move, same men) was lost at p - 1.
            t.value(WHITE, x) == (p - 1) as u8 && t.moves.has_legal_move(sq, s)
        };
        self.for_each_predecessor(s, p, &pass_ok, &|q| {
            if self.won[s].insert(q) {
                t.set(s, q, p as u8);
                self.next[s].insert(q);
            }
        });
    }

    /// Step 3: losses at odd level `p` for side to move `s`.
    fn losses(&self, s: usize, p: u32, seeds: Option<&Bitmap>) {
        let t = self.t;
        self.cand.clear();
        let pass_ok = |_: u64, _: &Squares| true;
        self.for_each_predecessor(s, p, &pass_ok, &|q| {
            if t.value(s, q) == DRAW {
                self.cand.insert(q);
            }
        });
        if let Some(seeds) = seeds {
            seeds.par_for_each(|q| {
                t.set(s, q, p as u8);
                self.next[s].insert(q);
            });
        }
        self.cand.par_for_each(|q| {
            if t.value(s, q) == DRAW && self.lost(s, q, p) {
                t.set(s, q, p as u8);
                self.next[s].insert(q);
            }
        });
    }

    /// Whether candidate `q` (side `s` to move) is lost at level `p`.
    fn lost(&self, s: usize, q: u64, p: u32) -> bool {
        let t = self.t;
        let them = 1 - s;
        let sq = t.indexer.decode(q);
        let o = t.moves.occupancy(&sq);
        let royal = self.royal[them];
        let all_lose = t.moves.for_each_move(&sq, &o, s, |m, to, cap| {
            if cap == NONE {
                self.won[them].contains(t.indexer.index_after_move(q, &sq, m, to))
            } else if usize::from(cap) == royal {
                false
            } else {
                let j = usize::from(cap);
                let Some(sub) = t.captures[j].map(|i| &self.family[i]) else { return false };
                let v = sub.value_at(them, &after_capture(&sq, t.indexer.men(), m, to, j));
                is_win(v) && self.sub_level(v).is_some_and(|l| l < p)
            }
        });
        if !all_lose {
            return false;
        }
        let legal = t.moves.has_legal_move(&sq, s);
        if self.rules.null_move && s == BLACK && legal && !self.won[WHITE].contains(q) {
            return false;
        }
        legal || self.rules.stalemate_wins || t.moves.in_check(&sq, o.occ, s)
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
