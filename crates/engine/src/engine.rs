//! The `Engine` API every front end drives: set up a search (position, game history,
//! limits), run it blocking or in the background, stop it, and receive progress reports.
//!
//! The engine owns the transposition table and move-ordering memory between searches, and
//! one [`Evaluator`] per variant. It never prints.

use crate::eval::Evaluator;
use crate::history::{History, MAX_PLY};
use crate::params::SearchParams;
use crate::score::{Score, Value, INFINITE, MATE_BOUND};
use crate::search::Searcher;
use crate::time::Limits;
use crate::tt::{Tt, DEFAULT_MB};
use egt::tablebase::Tablebase;
use rules::{Move, Position, Variant};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Stack for the search thread: a node keeps two move lists and a position on it.
const SEARCH_STACK: usize = 256 * 1024 * 1024;

/// Progress of a search after an iteration (or an aspiration failure).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    /// Nominal depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Root value, from the side to move's point of view.
    pub value: Value,
    /// The value as a protocol score.
    pub score: Score,
    /// `Some(true)`: lower bound (fail high); `Some(false)`: upper bound; `None`: exact.
    pub lower_bound: Option<bool>,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Which line this is, from 1 (MultiPV: the best line is 1).
    pub multipv: u32,
    /// Permille of the table in use.
    pub hashfull: u32,
}

impl Info {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        nps(self.nodes, self.time)
    }
}

/// Nodes per second of `nodes` searched in `time` (a time under 1 ms counts as 1 ms).
pub fn nps(nodes: u64, time: Duration) -> u64 {
    (nodes as u128 * 1000 / time.as_millis().max(1)) as u64
}

/// What a finished search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play (`None` only when there is no legal move).
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// The root value.
    pub value: Value,
    /// The value as a protocol score.
    pub score: Score,
    /// The last completed depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Whether `value` is only a lower bound: the move is one that beat the last completed
    /// depth's best in a depth the search did not finish, and failed high there.
    pub lower_bound: bool,
    /// The best lines (one without MultiPV), best first, each a different root move. The first
    /// is always `value` and `pv`; lines a stopped iteration did not reach keep the values of
    /// the last one.
    pub lines: Vec<Line>,
}

/// One line of a MultiPV search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Its value, from the side to move's point of view.
    pub value: Value,
    /// Its moves, the root move first.
    pub pv: Vec<Move>,
}

impl SearchResult {
    /// Takes `line`, complete at `depth`, as the result's value and (if it has moves) its move
    /// and line.
    fn adopt(&mut self, line: &Line, depth: u32) {
        if let Some(&best) = line.pv.first() {
            self.best = Some(best);
            self.ponder = line.pv.get(1).copied();
            self.pv = line.pv.clone();
        }
        self.value = line.value;
        self.score = Score::from_value(line.value);
        self.depth = depth;
        self.lower_bound = false;
    }

    /// The result of a search that found nothing (no legal move, or no search thread).
    fn none() -> SearchResult {
        SearchResult {
            best: None,
            ponder: None,
            value: 0,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv: Vec::new(),
            lower_bound: false,
            lines: Vec::new(),
        }
    }
}

/// A progress report from a background search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report {
    /// An iteration finished (or an aspiration window failed).
    Info(Info),
    /// The search ended.
    Done(SearchResult),
}

/// What the engine keeps between searches.
struct State {
    tt: Tt,
    history: History,
    /// The helper threads' histories (Lazy SMP), kept between searches.
    helpers: Vec<History>,
    /// By variant and the parameters the evaluator reads (`Evaluator::for_params`: win scale
    /// and gift horizon).
    evaluators: HashMap<(usize, i32, i32), Arc<Evaluator>>,
}

impl State {
    fn new(mb: usize) -> Box<State> {
        Box::new(State {
            tt: Tt::new(mb),
            history: History::default(),
            helpers: Vec::new(),
            evaluators: HashMap::new(),
        })
    }

    fn evaluator(&mut self, v: &'static Variant, params: &SearchParams) -> Arc<Evaluator> {
        let key = (v as *const Variant as usize, params.win_scale, params.gift_horizon);
        self.evaluators.entry(key).or_insert_with(|| Arc::new(Evaluator::for_params(v, params))).clone()
    }
}

/// What a background search is told while it runs: stop, and whether it still ponders.
#[derive(Debug, Default)]
struct Signals {
    stop: AtomicBool,
    /// A `Limits::ponder` search before [`Engine::ponderhit`]: its time limits wait.
    pondering: AtomicBool,
}

/// Full strength for [`Engine::set_skill`].
pub const MAX_SKILL: u8 = 20;

/// A handicapped player (Stockfish's handicap on our search): the search stops at `depth`,
/// finds at least 4 lines, and plays one of them chosen as Stockfish's skill levels choose.
/// Each line's value is pushed up by a share `weakness / 128` of its distance from the best,
/// plus a random share (below `weakness / 128`) of the lines' spread (at most a pawn); the
/// highest is played. Above 128 the worse lines are preferred, as at Stockfish's negative
/// levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handicap {
    /// The deepest iteration, at least 1.
    pub depth: u32,
    /// The pull towards worse lines, 1 to 255.
    pub weakness: u8,
}

/// The play server's levels 1 to 7 (lichess numbers its AI 1 to 8; 8 is full strength),
/// tuned by matches between neighbours: each scores a tenth to a fifth against the next, 240
/// to 410 Elo (docs/MATCHES.md). A ply is worth more than any weakness below 100 here, so
/// the levels climb one ply at a time.
const LEVELS: [Handicap; 7] = [
    Handicap { depth: 2, weakness: 110 },
    Handicap { depth: 3, weakness: 105 },
    Handicap { depth: 4, weakness: 95 },
    Handicap { depth: 5, weakness: 85 },
    Handicap { depth: 6, weakness: 80 },
    Handicap { depth: 7, weakness: 70 },
    Handicap { depth: 8, weakness: 45 },
];

impl Handicap {
    /// UCI `Skill Level` 0 to 19: depth `1 + level`, weakness `120 - 4 level` (120 at level 0
    /// as in Stockfish, but 44 at 19: Stockfish's `120 - 2 level` keeps 82 there, a cliff
    /// below full strength); `None` (full strength) from 20.
    pub fn skill(level: u8) -> Option<Handicap> {
        (level < MAX_SKILL).then(|| Handicap { depth: 1 + u32::from(level), weakness: 120 - 4 * level })
    }

    /// A level as people choose one, 1 to 8 (the play server's `ai:levelN`, the match's
    /// `levelN`): 1 to 7 from a table tuned by matches, `None` (full strength) from 8.
    pub fn level(level: u8) -> Option<Handicap> {
        LEVELS.get(usize::from(level.max(1)) - 1).copied()
    }
}

/// A chess engine for every variant of the rules core.
pub struct Engine {
    state: Option<Box<State>>,
    running: Option<(JoinHandle<Box<State>>, Arc<Signals>)>,
    params: Option<SearchParams>,
    hash_mb: usize,
    tablebase: Option<Arc<Tablebase>>,
    foresight: Foresight,
    root: RootOptions,
}

/// Which root moves a search considers and how many lines it reports.
#[derive(Clone, Debug)]
struct RootOptions {
    /// Only these (UCI `searchmoves`); empty: all.
    moves: Vec<Move>,
    /// Lines to find (UCI `MultiPV`), at least 1.
    lines: usize,
    /// Search threads (UCI `Threads`), at least 1.
    threads: usize,
    /// A handicap (UCI `Skill Level` below 20, a weaker level) and the seed of its choices.
    skill: Option<(Handicap, u64)>,
}

impl Default for RootOptions {
    fn default() -> RootOptions {
        RootOptions { moves: Vec::new(), lines: 1, threads: 1, skill: None }
    }
}

/// Chance outcomes known in advance (research only; see [`Engine::set_root_events`] and
/// [`Engine::set_chance_stream`]).
#[derive(Clone, Default)]
pub(crate) struct Foresight {
    /// The outcome of each root move, by raw move.
    pub(crate) root_events: Vec<(u32, rules::chance::Event)>,
    /// The referee's chance stream as it stands before the root move's event.
    pub(crate) stream: Option<rand_chacha::ChaCha8Rng>,
    /// Research: every static evaluation perturbed (amplitude, seed).
    pub(crate) eval_noise: Option<(Value, u64)>,
}

impl Foresight {
    /// Whether the search is the plain one (no research knowledge or noise).
    fn is_plain(&self) -> bool {
        self.root_events.is_empty() && self.stream.is_none() && self.eval_noise.is_none()
    }
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// The chance outcome of each root move, known in advance: the next searches play these
    /// outcomes at the root instead of the plain move (moves not listed: the plain move).
    /// Research only, for `fairylab match --white oracle`: what anticipating chance could be
    /// worth at most. Empty (the default): none.
    pub fn set_root_events(&mut self, events: Vec<(Move, rules::chance::Event)>) {
        self.foresight.root_events = events.into_iter().map(|(m, e)| (m.raw(), e)).collect();
    }

    /// The referee's chance stream, as it stands before the event of the move to be chosen:
    /// the next searches play, after every move of every line (quiescence included), the
    /// outcome that stream would draw at that ply of the game, as a clairvoyant would. Exact
    /// while each event takes one 64-bit draw, as [`rules::chance::Distribution::sample`] does
    /// but for a rejection about once in 2^40 draws. Research only, for `fairylab match --white
    /// seer`: what anticipating every chance event could be worth at most. `None` (the
    /// default): none.
    pub fn set_chance_stream(&mut self, stream: Option<rand_chacha::ChaCha8Rng>) {
        self.foresight.stream = stream;
    }

    /// A deterministic perturbation of every static evaluation, up to `amplitude` centipawns
    /// either way, drawn from the position's hash and `seed`. Research only, for `fairylab
    /// match --white jitter`: the control that tells what a vote of differing searches gains
    /// without any knowledge of chance. `None` (the default): none.
    pub fn set_eval_noise(&mut self, noise: Option<(i32, u64)>) {
        self.foresight.eval_noise = noise;
    }

    /// The number of best lines the next searches find and report (UCI `MultiPV`): each
    /// iteration searches the root again without the moves of the lines already found, so
    /// every line costs about one more search. 1 (the default) is the plain search.
    pub fn set_multipv(&mut self, lines: usize) {
        self.root.lines = lines.max(1);
    }

    /// The number of threads the next searches use (UCI `Threads`, Lazy SMP): helpers search
    /// the same root on the shared table and the main thread's result counts, so the result
    /// is no longer reproducible node for node. MultiPV and the research levels search on
    /// one thread; a node limit counts every thread's nodes, as Stockfish counts them (the
    /// helpers' as the main thread last read them, every 1024 of its own nodes).
    pub fn set_threads(&mut self, threads: usize) {
        self.root.threads = threads.max(1);
    }

    /// Plays at skill `level` (UCI `Skill Level`, 0 to 20): [`Handicap::skill`]; 20 (or more)
    /// is full strength. The choices are drawn from `seed` and the position, so the same seed
    /// plays the same moves.
    pub fn set_skill(&mut self, level: u8, seed: u64) {
        self.set_handicap(Handicap::skill(level), seed);
    }

    /// Plays with `handicap` (`None`: full strength), its choices drawn from `seed` and the
    /// position.
    pub fn set_handicap(&mut self, handicap: Option<Handicap>, seed: u64) {
        self.root.skill = handicap.map(|h| (Handicap { depth: h.depth.max(1), weakness: h.weakness.max(1) }, seed));
    }

    /// The root moves the next searches consider (UCI `searchmoves`); moves that are not
    /// legal in the position searched are ignored, and if none is, all moves are searched.
    /// Empty (the default): all.
    pub fn set_search_moves(&mut self, moves: Vec<Move>) {
        self.root.moves = moves;
    }

    /// Perfect-information Monte Carlo (research, for `fairylab match --white sampled`): for
    /// each of `futures` chance streams drawn from `seed` and the position (never the referee's),
    /// a search from a cleared table that plays that stream as [`Engine::set_chance_stream`]
    /// does; the move most of them chose, ties to the better summed value. Each search gets
    /// the whole of `limits`. Leaves no stream set.
    pub fn search_futures(
        &mut self,
        pos: &Position,
        game: &[u64],
        limits: Limits,
        seed: u64,
        futures: u64,
    ) -> Option<Move> {
        let best = self.vote(pos, game, limits, futures, |e, member| {
            e.set_chance_stream(Some(rules::chance::seeded_rng(member_seed(seed, pos, member))));
        });
        self.set_chance_stream(None);
        best
    }

    /// The control of [`Engine::search_futures`] (research, for `fairylab match --white
    /// jitter`): `members` searches from a cleared table, each with its own evaluation noise
    /// of `amplitude` centipawns ([`Engine::set_eval_noise`]) and no chance stream; the move
    /// most of them chose. Leaves no noise set.
    pub fn search_jittered(
        &mut self,
        pos: &Position,
        game: &[u64],
        limits: Limits,
        seed: u64,
        members: u64,
        amplitude: i32,
    ) -> Option<Move> {
        let best = self.vote(pos, game, limits, members, |e, member| {
            e.set_eval_noise(Some((amplitude, member_seed(seed, pos, member))));
        });
        self.set_eval_noise(None);
        best
    }

    /// `members` searches from a cleared table, each after `prepare` set it apart; the move
    /// most of them chose, ties to the better summed value (sums compared across equal counts).
    fn vote(
        &mut self,
        pos: &Position,
        game: &[u64],
        limits: Limits,
        members: u64,
        mut prepare: impl FnMut(&mut Engine, u64),
    ) -> Option<Move> {
        // Votes and summed values per move, in the order first chosen.
        let mut tally: Vec<(Move, u64, i64)> = Vec::new();
        for member in 0..members {
            self.clear();
            prepare(self, member);
            let r = self.search(pos.clone(), game, limits, |_| {});
            let Some(best) = r.best else { continue };
            match tally.iter_mut().find(|(m, _, _)| *m == best) {
                Some(t) => {
                    t.1 += 1;
                    t.2 += i64::from(r.value);
                }
                None => tally.push((best, 1, i64::from(r.value))),
            }
        }
        tally.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(a.2.cmp(&b.2))).map(|(m, _, _)| m)
    }

    /// An engine with the default table size.
    pub fn new() -> Engine {
        Engine::with_hash(DEFAULT_MB)
    }

    /// An engine with a table of `mb` MiB, or why the table cannot be had (a size the machine
    /// cannot allocate): what a command line given the size uses.
    ///
    /// # Errors
    ///
    /// The allocation failed.
    pub fn try_with_hash(mb: usize) -> Result<Engine, String> {
        let mut e = Engine::with_hash(1);
        if mb.max(1) != 1 {
            match Tt::try_new(mb) {
                Ok(t) => e.state.as_mut().unwrap_or_else(|| unreachable!("a new engine is idle")).tt = t,
                Err(_) => return Err(format!("a hash table of {mb} MiB cannot be allocated on this machine")),
            }
            e.hash_mb = mb;
        }
        Ok(e)
    }

    /// An engine with a table of `mb` MiB.
    pub fn with_hash(mb: usize) -> Engine {
        Engine {
            state: Some(State::new(mb)),
            running: None,
            params: None,
            hash_mb: mb,
            tablebase: None,
            foresight: Foresight::default(),
            root: RootOptions::default(),
        }
    }

    /// Endgame tables the search probes as exact knowledge (`None`: none).
    pub fn set_tablebase(&mut self, tablebase: Option<Arc<Tablebase>>) {
        self.wait();
        self.tablebase = tablebase;
    }

    /// The endgame tables in use.
    pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
        self.tablebase.as_ref()
    }

    /// Overrides the per-variant search parameters (tests use [`SearchParams::exact`]).
    pub fn set_params(&mut self, params: Option<SearchParams>) {
        self.params = params;
    }

    /// Resizes the hash table to `mb` MiB as [`Engine::set_hash`] does, or keeps the one it has
    /// if that much memory cannot be had.
    ///
    /// # Errors
    ///
    /// The memory cannot be had: says so and what the table keeps.
    pub fn try_set_hash(&mut self, mb: usize) -> Result<(), String> {
        self.wait();
        let mb = mb.max(1);
        if let Some(s) = self.state.as_mut() {
            // The old table goes first (both may not fit); should the new one not fit, a table
            // of the old size is had again.
            s.tt = Tt::new(1);
            match Tt::try_new(mb) {
                Ok(t) => s.tt = t,
                Err(_) => {
                    match Tt::try_new(self.hash_mb) {
                        Ok(t) => s.tt = t,
                        Err(_) => (s.tt, self.hash_mb) = (Tt::new(DEFAULT_MB), DEFAULT_MB),
                    }
                    return Err(format!(
                        "{mb} MiB of memory cannot be had for the hash table: it keeps {} MiB",
                        self.hash_mb
                    ));
                }
            }
        }
        self.hash_mb = mb;
        Ok(())
    }

    /// Resizes the table (waits for a running search).
    ///
    /// # Panics
    ///
    /// If the memory cannot be had ([`Engine::try_set_hash`] says so instead).
    pub fn set_hash(&mut self, mb: usize) {
        self.wait();
        self.hash_mb = mb.max(1);
        if let Some(s) = self.state.as_mut() {
            s.tt = Tt::new(self.hash_mb);
        }
    }

    /// The table size in MiB.
    pub fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// Forgets everything learnt (a new game).
    pub fn clear(&mut self) {
        self.wait();
        if let Some(s) = self.state.as_mut() {
            s.tt.clear();
            s.history = History::default();
        }
    }

    /// The evaluator for a variant.
    pub fn evaluator(&mut self, v: &'static Variant) -> Arc<Evaluator> {
        self.wait();
        let params = self.params.unwrap_or_else(|| SearchParams::for_variant(v));
        self.state.as_mut().map_or_else(|| Arc::new(Evaluator::for_params(v, &params)), |s| s.evaluator(v, &params))
    }

    /// Searches `pos` (reached after the positions hashed in `game`, oldest first) within
    /// `limits`, calling `on_info` after every iteration; blocks until done.
    pub fn search(
        &mut self,
        pos: Position,
        game: &[u64],
        limits: Limits,
        mut on_info: impl FnMut(&Info) + Send,
    ) -> SearchResult {
        self.wait();
        let mut state = self.state.take().unwrap_or_else(|| State::new(self.hash_mb));
        let stop = AtomicBool::new(false);
        // A blocking search has no one to tell it of a ponder hit: it never ponders.
        let pondering = AtomicBool::new(false);
        let params = self.params;
        let tb = self.tablebase.clone();
        let foresight = &self.foresight;
        let root = &self.root;
        let result = std::thread::scope(|scope| {
            let state = &mut state;
            let (stop, pondering) = (&stop, &pondering);
            let handle = std::thread::Builder::new().name("search".into()).stack_size(SEARCH_STACK).spawn_scoped(
                scope,
                move || {
                    let signals = (stop, pondering);
                    run(state, params, tb.as_deref(), &pos, game, limits, signals, &mut on_info, foresight, root)
                },
            );
            match handle {
                Ok(h) => h.join().ok(),
                Err(_) => None,
            }
        });
        self.state = Some(state);
        result.unwrap_or_else(SearchResult::none)
    }

    /// Starts a search in the background; `report` receives progress and, last, the result.
    /// With `limits.infinite` the result waits for [`Engine::stop`]; with `limits.ponder` it
    /// waits for [`Engine::stop`] or [`Engine::ponderhit`].
    pub fn start(
        &mut self,
        pos: Position,
        game: Vec<u64>,
        limits: Limits,
        mut report: impl FnMut(Report) + Send + 'static,
    ) {
        self.wait();
        let mut state = self.state.take().unwrap_or_else(|| State::new(self.hash_mb));
        let signals = Arc::new(Signals { stop: AtomicBool::new(false), pondering: AtomicBool::new(limits.ponder) });
        let flag = signals.clone();
        let params = self.params;
        let tb = self.tablebase.clone();
        let foresight = self.foresight.clone();
        let root = self.root.clone();
        let spawned = std::thread::Builder::new().name("search".into()).stack_size(SEARCH_STACK).spawn(move || {
            let result = run(
                &mut state,
                params,
                tb.as_deref(),
                &pos,
                &game,
                limits,
                (&flag.stop, &flag.pondering),
                &mut |i: &Info| report(Report::Info(i.clone())),
                &foresight,
                &root,
            );
            // The move is only given when asked for: at `stop`, or at the ponder hit.
            while !flag.stop.load(Ordering::Relaxed) && (limits.infinite || flag.pondering.load(Ordering::Relaxed)) {
                std::thread::sleep(Duration::from_millis(2));
            }
            report(Report::Done(result));
            state
        });
        match spawned {
            Ok(handle) => self.running = Some((handle, signals)),
            Err(_) => {
                // No thread: nothing runs and no state is lost but the table.
                self.state = Some(State::new(self.hash_mb));
            }
        }
    }

    /// Asks a background search to stop (it still reports its result).
    pub fn stop(&self) {
        if let Some((_, signals)) = &self.running {
            signals.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Tells a pondering search (`Limits::ponder`) that the opponent played the move it
    /// pondered on: from now its time limits apply, counted from its start as Stockfish
    /// counts them, so a search that has pondered past its budget answers at once. A search
    /// that is not pondering is not disturbed.
    pub fn ponderhit(&self) {
        if let Some((_, signals)) = &self.running {
            signals.pondering.store(false, Ordering::Relaxed);
        }
    }

    /// Whether a background search is running.
    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(|(h, _)| !h.is_finished())
    }

    /// Waits for a background search to end (it is not stopped: call [`Engine::stop`] first
    /// for that).
    pub fn wait(&mut self) {
        if let Some((handle, _)) = self.running.take() {
            match handle.join() {
                Ok(state) => self.state = Some(state),
                Err(_) => self.state = Some(State::new(self.hash_mb)),
            }
        }
    }
}

/// Iterative deepening with aspiration windows.
#[allow(clippy::too_many_arguments)]
fn run(
    state: &mut State,
    params: Option<SearchParams>,
    tablebase: Option<&Tablebase>,
    pos: &Position,
    game: &[u64],
    limits: Limits,
    (stop, pondering): (&AtomicBool, &AtomicBool),
    on_info: &mut dyn FnMut(&Info),
    foresight: &Foresight,
    root: &RootOptions,
) -> SearchResult {
    let start = Instant::now();
    let params = params.unwrap_or_else(|| SearchParams::for_variant(pos.variant()));
    let eval = state.evaluator(pos.variant(), &params);
    state.tt.new_search();
    state.history.new_search();
    let budget = limits.budget(pos.turn());
    let mut max_depth = limits.depth.map_or(MAX_PLY as u32 - 4, |d| d.clamp(1, MAX_PLY as u32 - 4));
    if let Some((handicap, _)) = root.skill {
        max_depth = max_depth.min(handicap.depth);
    }
    let legal = pos.legal_moves();
    let mut result = SearchResult { best: legal.first().copied(), ..SearchResult::none() };
    if legal.is_empty() {
        return result;
    }
    // The root moves searched: the legal ones among `root.moves`, or all.
    let chosen: Vec<Move> = legal.iter().copied().filter(|m| root.moves.contains(m)).collect();
    let root_moves = if chosen.is_empty() { legal.to_vec() } else { chosen };
    let root_filter: Vec<u32> =
        if root_moves.len() < legal.len() { root_moves.iter().map(|m| m.raw()).collect() } else { Vec::new() };
    // Lazy SMP: helper threads search the same root on the shared table, each with its own
    // histories, and only the main thread's result counts. Research levels and MultiPV
    // search alone.
    let helpers =
        if foresight.is_plain() && root.lines == 1 && root.skill.is_none() { root.threads.max(1) - 1 } else { 0 };
    let mut spare = std::mem::take(&mut state.helpers);
    if spare.len() < helpers {
        spare.resize_with(helpers, History::default);
    }
    let helpers_stop = AtomicBool::new(false);
    let helper_nodes = AtomicU64::new(0);
    let tt = &state.tt;
    let history = &mut state.history;
    let result = std::thread::scope(|scope| {
        // The helpers stop when the main search ends, even by a panic (the scope waits for them).
        let _stop_helpers = StopOnDrop(&helpers_stop);
        for (id, h) in spare.iter_mut().take(helpers).enumerate() {
            let job = Helper { tt, eval: &eval, params, game, pos, tablebase, root: &root_filter, max_depth };
            let (stop, tally) = (&helpers_stop, &helper_nodes);
            // A helper that cannot start leaves the search to the others.
            let _ = std::thread::Builder::new()
                .name(format!("helper {}", id + 1))
                .stack_size(SEARCH_STACK)
                .spawn_scoped(scope, move || job.search(h, stop, tally, id));
        }
        let mut searcher = Searcher::new(tt, &eval, params, history, stop, game);
        searcher.helper_nodes = Some(&helper_nodes);
        searcher.tablebase = tablebase.and_then(|t| t.bind(pos.variant()));
        searcher.root_events = foresight.root_events.clone();
        if let Some(stream) = &foresight.stream {
            searcher.foresee(stream);
        }
        searcher.eval_noise = foresight.eval_noise;
        searcher.set_limits(limits.nodes, budget.map(|(_, hard)| start + hard));
        searcher.pondering = Some(pondering);
        if !root_filter.is_empty() {
            searcher.root_moves = root_filter.clone();
            result.best = root_moves.first().copied();
        }
        let wanted = if root.skill.is_some() { root.lines.max(SKILL_LINES) } else { root.lines };
        let lines = wanted.clamp(1, root_moves.len());
        // Each line's value in the last iteration: its aspiration window's centre.
        let mut prev: Vec<Value> = vec![0; lines];
        'deepening: for depth in 1..=max_depth {
            // The first iteration always completes so that there is a move to play.
            searcher.can_abort = depth > 1;
            searcher.root_skip.clear();
            let mut found: Vec<Line> = Vec::with_capacity(lines);
            for (k, &centre) in prev.iter().enumerate() {
                searcher.root_best = None;
                let value = aspirate(&mut searcher, pos, depth, centre, params.aspiration, (start, tt, k), on_info);
                let Some(value) = value else {
                    // Stopped inside an iteration: a root move that already beat the last best
                    // (or failed high) is better information than the last iteration's choice.
                    if k == 0 {
                        if let Some(m) = searcher.root_best {
                            if result.best != Some(m) {
                                // Its own value and line from this depth (a lower bound if it
                                // failed high), not the replaced move's.
                                let (value, lower) = searcher.root_best_value;
                                let pv = searcher.root_pv();
                                result.best = Some(m);
                                result.pv = if pv.first() == Some(&m) { pv } else { vec![m] };
                                result.ponder = result.pv.get(1).copied();
                                result.value = value;
                                result.score = Score::from_value(value);
                                result.lower_bound = lower;
                                // The first line is always the result's own.
                                result.lines.retain(|l| l.pv.first() != Some(&m));
                                result.lines.insert(0, Line { value, pv: result.pv.clone() });
                                result.lines.truncate(lines);
                            }
                        }
                    } else if let Some(line) = found.first().filter(|l| !l.pv.is_empty()) {
                        // The best line of this iteration is complete: it answers for the move,
                        // and the lines not reached keep the last iteration's values.
                        result.adopt(line, depth);
                        let older = std::mem::take(&mut result.lines);
                        let have: Vec<Option<Move>> = found.iter().map(|l| l.pv.first().copied()).collect();
                        found.extend(older.into_iter().filter(|o| !have.contains(&o.pv.first().copied())));
                        found.truncate(lines);
                        result.lines = found;
                    }
                    break 'deepening;
                };
                let pv = searcher.root_pv();
                let first = pv.first().copied();
                found.push(Line { value, pv });
                // A value without a line (a root the rules end) leaves nothing to search without.
                let Some(first) = first else { break };
                searcher.root_skip.push(first.raw());
            }
            // Lines found later may be better than earlier ones' bounds said: best first.
            found.sort_by_key(|l| -l.value);
            for (k, line) in found.iter().enumerate() {
                prev[k] = line.value;
            }
            let Some(line) = found.first() else { break };
            let value = line.value;
            result.adopt(line, depth);
            for (k, line) in found.iter().enumerate() {
                on_info(&info(&searcher, depth, line.value, None, start, tt, line.pv.clone(), k));
            }
            result.lines = found;
            if stop.load(Ordering::Relaxed) || limits.nodes.is_some_and(|n| searcher.nodes >= n) {
                break;
            }
            if let Some((soft, hard)) = budget.filter(|_| !pondering.load(Ordering::Relaxed)) {
                let elapsed = start.elapsed();
                // With a clock, do not start an iteration that cannot finish.
                if (soft < hard && elapsed > soft / 2) || elapsed >= hard {
                    break;
                }
            }
            // `go mate N`: a mate in at most N moves found.
            if limits.mate.is_some_and(|n| value >= MATE_BOUND && (crate::score::MATE - value + 1) / 2 <= n as i32) {
                break;
            }
            // A forced mate found well within the depth will not change.
            if value.abs() >= MATE_BOUND
                && limits.depth.is_none()
                && depth as i32 > 2 * (crate::score::MATE - value.abs()) + 4
            {
                break;
            }
            if root_moves.len() == 1 && budget.is_some() && depth >= 4 {
                break;
            }
        }
        if let Some((handicap, seed)) = root.skill {
            if let Some(line) = skill_pick(&result.lines, handicap.weakness, seed ^ pos.hash()) {
                let line = line.clone();
                result.adopt(&line, result.depth);
            }
        }
        result.nodes = searcher.total_nodes();
        result.time = start.elapsed();
        result
    });
    state.helpers = spare;
    result
}

/// The lines a handicapped search chooses among.
const SKILL_LINES: usize = 4;

/// The line a handicapped player of `weakness` (at least 1) plays among `lines` (best first),
/// as [`Handicap`] describes; `None` without lines.
fn skill_pick(lines: &[Line], weakness: u8, seed: u64) -> Option<&Line> {
    let top = i64::from(lines.first()?.value);
    let last = i64::from(lines.last()?.value);
    let spread = (top - last).min(100);
    let weakness = i64::from(weakness);
    let mut state = seed;
    lines.iter().max_by_key(|l| {
        state = rules::zobrist::splitmix(state);
        let v = i64::from(l.value);
        let random = (state % weakness as u64) as i64;
        v + (weakness * (top - v) + spread * random) / 128
    })
}

/// Raises a flag when dropped.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What a helper thread searches (Lazy SMP): the main search's root, table and settings.
struct Helper<'a> {
    tt: &'a Tt,
    eval: &'a Evaluator,
    params: SearchParams,
    game: &'a [u64],
    pos: &'a Position,
    tablebase: Option<&'a Tablebase>,
    /// The root moves searched (empty: all).
    root: &'a [u32],
    max_depth: u32,
}

impl Helper<'_> {
    /// Iterative deepening until `stop`, results only in the table; helper `id` (from 0)
    /// starts at depth 1 + id % 2 so that helpers do not march in step with the main thread.
    fn search(self, history: &mut History, stop: &AtomicBool, tally: &AtomicU64, id: usize) {
        history.new_search();
        let mut s = Searcher::new(self.tt, self.eval, self.params, history, stop, self.game);
        s.tablebase = self.tablebase.and_then(|t| t.bind(self.pos.variant()));
        s.root_moves = self.root.to_vec();
        s.tally = Some(tally);
        s.can_abort = true;
        let mut centre = 0;
        let start = Instant::now();
        for depth in (1 + id as u32 % 2)..=self.max_depth {
            match aspirate(&mut s, self.pos, depth, centre, self.params.aspiration, (start, self.tt, 0), &mut |_| {}) {
                Some(v) => centre = v,
                None => break,
            }
        }
    }
}

/// One line's iteration at `depth`, in aspiration windows around `centre` (the line's last
/// value) that widen on each failure: its value, or `None` if the search was stopped. Past
/// half a second, each failure is reported as a bound (`report`: the start, the table and
/// the line's index).
fn aspirate(
    searcher: &mut Searcher<'_>,
    pos: &Position,
    depth: u32,
    centre: Value,
    aspiration: bool,
    report: (Instant, &Tt, usize),
    on_info: &mut dyn FnMut(&Info),
) -> Option<Value> {
    let (start, tt, k) = report;
    let mut delta: Value = if aspiration && depth >= 4 && centre.abs() < MATE_BOUND { 30 } else { INFINITE };
    let (mut alpha, mut beta) = if delta < INFINITE { (centre - delta, centre + delta) } else { (-INFINITE, INFINITE) };
    loop {
        let v = searcher.root(pos, depth as i32, alpha, beta);
        if searcher.aborted {
            return None;
        }
        let lower = if v <= alpha {
            false
        } else if v >= beta {
            true
        } else {
            return Some(v);
        };
        if start.elapsed() > Duration::from_millis(500) {
            on_info(&info(searcher, depth, v, Some(lower), start, tt, searcher.root_pv(), k));
        }
        delta = delta.saturating_mul(2);
        if lower {
            beta = if delta > 600 { INFINITE } else { (v + delta).min(INFINITE) };
        } else {
            alpha = if delta > 600 { -INFINITE } else { (v - delta).max(-INFINITE) };
        }
    }
}

/// The report of line `k` (from 0) with the moves `pv`.
#[allow(clippy::too_many_arguments)]
fn info(
    s: &Searcher<'_>,
    depth: u32,
    value: Value,
    lower: Option<bool>,
    start: Instant,
    tt: &Tt,
    pv: Vec<Move>,
    k: usize,
) -> Info {
    Info {
        depth,
        seldepth: s.seldepth as u32,
        value,
        score: Score::from_value(value),
        lower_bound: lower,
        nodes: s.total_nodes(),
        time: start.elapsed(),
        pv,
        multipv: k as u32 + 1,
        hashfull: tt.hashfull(),
    }
}

/// The seed of a vote's `member` on `pos`: apart for every member and position.
fn member_seed(seed: u64, pos: &Position, member: u64) -> u64 {
    seed ^ pos.hash() ^ member.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}
