//! The alpha-beta search: iterative deepening PVS with aspiration windows, transposition
//! table, quiescence, null move, late-move reductions and pruning, as the variant's
//! [`SearchParams`] allow. Chance moves go to `expectimax.rs`.

use crate::eval::{Evaluator, PawnCache};
use crate::history::{History, PieceTo, MAX_PLY};
use crate::params::SearchParams;
use crate::score::{from_tt, mate_in, mated_in, to_tt, Value, DRAW, INFINITE, MATE_BOUND, TB_WIN};
use crate::see::see_ge;
use crate::tt::{Bound, Tt};
use egt::tablebase::Bound as TableView;
use egt::{Metric, Value as TableValue};
use rules::chance::{Distribution, Event};
use rules::variant::{InsufficientMaterial, WinCondition};
use rules::{Move, MoveKind, MoveList, Position};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// How deep quiescence may go before it only stands pat.
const MAX_QPLY: usize = 16;

/// Ordering scores, parallel to a move list (not zero-filled: a node pushes what it needs).
type ScoreList = arrayvec::ArrayVec<i32, { rules::moves::MOVE_LIST_CAPACITY }>;

/// Entries of the evaluation cache (a power of two).
const EVAL_CACHE: usize = 1 << 16;

/// Quiescence ordering score of a quiet check (below every capture, which scores > 0).
const QUIET_CHECK: i32 = -1;

/// Least depth for a singular-extension search.
const SINGULAR_DEPTH: i32 = 7;
/// Least depth at which a null-move cut-off is verified by a search without null moves
/// (at any depth when the side to move has a single piece).
const NULL_VERIFY_DEPTH: i32 = 16;
/// Razoring margin per ply of depth.
const RAZOR_MARGIN: Value = 300;
/// Quiet moves at depth `d` ≤ 3 with a history score below `-HISTORY_PRUNE * d` are pruned.
const HISTORY_PRUNE: i32 = 4000;

/// Score bands for move ordering.
const TT_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 24;
/// Moves per node below the root, in search order, that get a chance correction (see
/// [`SearchParams::chance_correction`]).
const CORRECTED_MOVES: usize = 8;
const KILLER: i32 = 1 << 22;
const BAD_CAPTURE: i32 = -(1 << 24);
const UNDERPROMOTION: i32 = -(1 << 26);

/// The outcomes of a gift event given that it happens (`rules::gift::event_outcomes`).
pub(crate) type GiftOutcomes = Vec<(rules::gift::Gifts, rules::chance::Probability)>;

/// One search: the shared table, the evaluator, the limits and the per-search counters.
pub struct Searcher<'a> {
    pub(crate) tt: &'a Tt,
    pub(crate) eval: &'a Evaluator,
    pub(crate) params: SearchParams,
    pub(crate) history: &'a mut History,
    stop: &'a AtomicBool,
    /// Hashes of the game's positions before the root, then of the search path.
    pub(crate) stack: Vec<u64>,
    /// Nodes visited.
    pub nodes: u64,
    /// Deepest ply reached.
    pub seldepth: usize,
    node_limit: u64,
    deadline: Option<Instant>,
    /// Set while the search ponders: the deadline waits (see [`crate::Engine::ponderhit`]).
    pub(crate) pondering: Option<&'a AtomicBool>,
    /// A helper thread's count of its nodes, added to every 1024 nodes (Lazy SMP).
    pub(crate) tally: Option<&'a AtomicU64>,
    /// The main thread's view of its helpers' nodes (their tallies' sum), for the reports.
    pub(crate) helper_nodes: Option<&'a AtomicU64>,
    /// `helper_nodes` as last read (every 1024 nodes), for the node limit.
    helpers_seen: u64,
    /// Aborts are allowed (not during the first iteration).
    pub(crate) can_abort: bool,
    pub(crate) aborted: bool,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 2]>,
    pv_len: [usize; MAX_PLY + 2],
    lmr: Box<[[u8; 64]; 64]>,
    eval_cache: Vec<(u64, Value)>,
    pub(crate) pawn_cache: PawnCache,
    /// The root move that last raised alpha (or failed high) in the current iteration.
    pub(crate) root_best: Option<Move>,
    /// `root_best`'s value, and whether it is only a lower bound (the move failed high).
    pub(crate) root_best_value: (Value, bool),
    /// The move played at each ply of the current path (continuation history keys).
    pub(crate) moved: [PieceTo; MAX_PLY + 2],
    /// The static evaluation at each ply of the path (`-INFINITE` when in check).
    evals: [Value; MAX_PLY + 2],
    /// The move a singular-extension search leaves out at each ply (0: none).
    excluded: [u32; MAX_PLY + 2],
    /// During a null-move verification search: the side that may not pass, below which ply.
    null_verify: Option<(rules::Color, usize)>,
    /// Endgame tables that answer for this variant, probed below the root.
    pub(crate) tablebase: Option<TableView<'a>>,
    /// Gift risks already computed in this search, by position and move (fixed point, see
    /// `expectimax::with_risk`).
    pub(crate) corrections: std::collections::HashMap<(u64, u32), Value>,
    /// Gift-event outcomes by (board-plus-hand counts, mover).
    pub(crate) gift_outcomes: std::collections::HashMap<([[u8; 5]; 2], u8), GiftOutcomes>,
    /// Root moves whose chance outcome is known in advance (a research oracle).
    pub(crate) root_events: Vec<(u32, rules::chance::Event)>,
    /// The root moves searched (raw; empty: all), UCI's `searchmoves`.
    pub(crate) root_moves: Vec<u32>,
    /// Root moves left out: the moves of the lines already found this iteration (MultiPV).
    pub(crate) root_skip: Vec<u32>,
    /// A clairvoyant's chance stream (research): its state before the event of each ply.
    stream: Vec<rand_chacha::ChaCha8Rng>,
    /// The events that stream draws, by (ply, board-plus-hand counts after the move, mover).
    foreseen: std::collections::HashMap<(usize, [[u8; 5]; 2], u8), Event>,
    /// Research: a deterministic perturbation of every static evaluation, up to this many
    /// centipawns either way, drawn from the position's hash and this seed (`Engine::set_eval_noise`).
    pub(crate) eval_noise: Option<(Value, u64)>,
}

impl<'a> Searcher<'a> {
    /// A searcher over `tt` with the game history `history` (hashes before the root).
    pub(crate) fn new(
        tt: &'a Tt,
        eval: &'a Evaluator,
        params: SearchParams,
        history: &'a mut History,
        stop: &'a AtomicBool,
        game: &[u64],
    ) -> Searcher<'a> {
        let mut lmr = Box::new([[0u8; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (n as f64).ln() / 2.25) as u8;
            }
        }
        let mut stack = Vec::with_capacity(game.len() + MAX_PLY + 8);
        stack.extend_from_slice(game);
        Searcher {
            tt,
            eval,
            params,
            history,
            stop,
            stack,
            nodes: 0,
            seldepth: 0,
            node_limit: u64::MAX,
            deadline: None,
            pondering: None,
            tally: None,
            helper_nodes: None,
            helpers_seen: 0,
            can_abort: false,
            aborted: false,
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 2]),
            pv_len: [0; MAX_PLY + 2],
            lmr,
            eval_cache: vec![(0, 0); EVAL_CACHE],
            pawn_cache: PawnCache::default(),
            root_best: None,
            root_best_value: (0, false),
            moved: [PieceTo::NONE; MAX_PLY + 2],
            evals: [-INFINITE; MAX_PLY + 2],
            excluded: [0; MAX_PLY + 2],
            null_verify: None,
            tablebase: None,
            corrections: std::collections::HashMap::new(),
            gift_outcomes: std::collections::HashMap::new(),
            root_events: Vec::new(),
            root_moves: Vec::new(),
            root_skip: Vec::new(),
            stream: Vec::new(),
            foreseen: std::collections::HashMap::new(),
            eval_noise: None,
        }
    }

    /// Knows the referee's chance stream from the root on (see `Engine::set_chance_stream`):
    /// each event takes one 64-bit draw.
    pub(crate) fn foresee(&mut self, stream: &rand_chacha::ChaCha8Rng) {
        use rand::RngCore;
        let mut s = stream.clone();
        self.stream = (0..MAX_PLY + 2)
            .map(|_| {
                let at = s.clone();
                s.next_u64();
                at
            })
            .collect();
        self.foreseen.clear();
    }

    /// Gives `child`, reached by a move at `ply`, the gifts a foreseen stream draws there.
    fn play_foreseen(&mut self, child: &mut Position, ply: usize) {
        let Some(at) = self.stream.get(ply) else { return };
        let rules::chance::ChanceRule::Gifts { percent } = child.variant().chance else { return };
        let mover = !child.turn();
        let key = (ply, rules::gift::counts(child), mover.index() as u8);
        let event = match self.foreseen.get(&key) {
            Some(&e) => e,
            None => {
                let e = *rules::gift::distribution(child, percent).sample(&mut at.clone());
                self.foreseen.insert(key, e);
                e
            }
        };
        if let Event::Gift(g) = event {
            child.receive_gifts(g);
        }
    }

    /// The exact value of `pos` from an endgame table, if one covers it: mate distances under
    /// DTM; under DTC (no mate is claimed) a win is worth `TB_WIN` less 300 per man on the board
    /// less the plies to conversion, so that converting into a smaller table counts as progress
    /// although the distance starts again there.
    ///
    /// The tables ignore the fifty-move rule; the search does not. Under DTC a win whose
    /// conversion comes after the clock's hundredth half-move is a draw (Syzygy's "cursed win",
    /// worth 1 to the winner; a "blessed loss" −1). Under DTM the conversions along the mate are
    /// not known, so a mate beyond the clock is no verdict: the search goes on by itself.
    #[inline]
    fn probe_table(&self, pos: &Position, ply: usize) -> Option<Value> {
        let (value, metric) = self.tablebase.as_ref()?.probe(pos)?;
        let plies = |n: u32, extra: usize| ply + 2 * n as usize + extra;
        let men = pos.board().occupied().count() as Value;
        // Half-moves left before the fifty-move rule draws (a conversion or mate on the last
        // one still counts).
        let left = if pos.variant().draws.fifty_move { 100u32.saturating_sub(pos.halfmoves()) } else { u32::MAX };
        let within = |half_moves: u32| half_moves <= left;
        Some(match (value, metric) {
            (TableValue::Win(0), _) => mate_in(ply),
            (TableValue::Win(n), Metric::Dtm) if within(2 * n - 1) => mate_in(plies(n, 0) - 1),
            (TableValue::Loss(n), Metric::Dtm) if within(2 * n) => mated_in(plies(n, 0)),
            // Beyond the clock, a DTM table says nothing (a capture on the way, which it does
            // not show, would reset the count) unless no move can reset it.
            (TableValue::Win(_), Metric::Dtm) if pos.nothing_resets_the_count(pos.turn()) => DRAW + 1,
            (TableValue::Loss(_), Metric::Dtm) if pos.nothing_resets_the_count(!pos.turn()) => DRAW - 1,
            (TableValue::Win(_) | TableValue::Loss(_), Metric::Dtm) => return None,
            (TableValue::Win(n), Metric::Dtc) if within(2 * n - 1) => TB_WIN - 300 * men - plies(n, 0) as Value,
            (TableValue::Loss(n), Metric::Dtc) if within(2 * n) => -TB_WIN + 300 * men + plies(n, 0) as Value,
            (TableValue::Win(_), Metric::Dtc) => DRAW + 1,
            (TableValue::Loss(_), Metric::Dtc) => DRAW - 1,
            (TableValue::Draw | TableValue::Invalid, _) => DRAW,
        })
    }

    /// Sets the node limit and the hard deadline.
    pub(crate) fn set_limits(&mut self, nodes: Option<u64>, deadline: Option<Instant>) {
        self.node_limit = nodes.unwrap_or(u64::MAX);
        self.deadline = deadline;
    }

    /// The principal variation of the last root search.
    pub(crate) fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]].iter().flatten().copied().collect()
    }

    #[inline]
    fn count_node(&mut self, ply: usize) {
        self.nodes += 1;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if self.nodes & 1023 == 0 {
            if let Some(t) = self.tally {
                t.fetch_add(1024, Ordering::Relaxed);
            }
            // A node limit counts the helpers' nodes too, as Stockfish counts them.
            if let Some(h) = self.helper_nodes {
                self.helpers_seen = h.load(Ordering::Relaxed);
            }
            if self.can_abort && (self.stop.load(Ordering::Relaxed) || self.past_deadline()) {
                self.aborted = true;
            }
        }
        if self.can_abort && self.nodes + self.helpers_seen >= self.node_limit {
            self.aborted = true;
        }
    }

    /// The nodes of this search and of its helper threads.
    pub(crate) fn total_nodes(&self) -> u64 {
        self.nodes + self.helper_nodes.map_or(0, |n| n.load(Ordering::Relaxed))
    }

    /// Whether the hard deadline has passed (never while pondering).
    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d) && !self.pondering.is_some_and(|p| p.load(Ordering::Relaxed))
    }

    /// The static evaluation, cached by position hash.
    #[inline]
    pub(crate) fn static_eval(&mut self, pos: &Position) -> Value {
        let key = pos.hash();
        let slot = &mut self.eval_cache[key as usize & (EVAL_CACHE - 1)];
        if slot.0 == key && key != 0 {
            return slot.1;
        }
        let mut v = self.eval.evaluate_cached(pos, &mut self.pawn_cache);
        if let Some((amplitude, seed)) = self.eval_noise {
            let span = 2 * amplitude.max(0) as u64 + 1;
            v += (rules::zobrist::splitmix(key ^ seed) % span) as Value - amplitude;
        }
        *slot = (key, v);
        v
    }

    /// Whether the side to move is in check (in variants where check matters).
    #[inline]
    pub(crate) fn in_check(&self, pos: &Position) -> bool {
        self.params.check_matters && pos.is_check()
    }

    /// The value of a position that ends the game (or is drawn by a rule) before any move
    /// is considered, `ply` plies below the root: a lost royal piece, the fifty-move rule,
    /// a repetition of any earlier position, insufficient material.
    pub(crate) fn terminal(&self, pos: &Position, ply: usize) -> Option<Value> {
        if Searcher::king_lost(pos) {
            return Some(mated_in(ply));
        }
        let v = pos.variant();
        let h = pos.halfmoves() as usize;
        if v.draws.fifty_move && h >= 100 && (!self.in_check(pos) || pos.has_legal_move()) {
            return Some(DRAW);
        }
        if v.draws.repetition && h >= 2 {
            let key = pos.hash();
            if self.stack.iter().rev().take(h).any(|&k| k == key) {
                return Some(DRAW);
            }
        }
        if v.draws.insufficient != InsufficientMaterial::Never
            && pos.board().occupied().count() <= 4
            && pos.is_insufficient_material()
        {
            return Some(DRAW);
        }
        None
    }

    /// The value when no move is available: mated if in check, else stalemate.
    pub(crate) fn no_moves(&self, pos: &Position, ply: usize) -> Value {
        if pos.variant().win == WinCondition::Checkmate && pos.is_check() {
            mated_in(ply)
        } else {
            DRAW
        }
    }

    /// Searches the root to `depth` with the window `(alpha, beta)`.
    pub(crate) fn root(&mut self, pos: &Position, depth: i32, alpha: Value, beta: Value) -> Value {
        self.negamax(pos, depth, 0, alpha, beta, true, false)
    }

    /// Whether some root moves are left out (`root_moves`, `root_skip`).
    fn root_filtered(&self) -> bool {
        !self.root_moves.is_empty() || !self.root_skip.is_empty()
    }

    /// Whether the root move `m` is searched.
    #[inline]
    fn root_allows(&self, m: Move) -> bool {
        (self.root_moves.is_empty() || self.root_moves.contains(&m.raw())) && !self.root_skip.contains(&m.raw())
    }

    /// The value of the position after the mover plays `m` (from the mover's side),
    /// chance outcomes included; `child` is the position after `m` succeeds and `depth`
    /// the children's remaining depth.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn move_value(
        &mut self,
        pos: &Position,
        m: Move,
        child: &Position,
        depth: i32,
        ply: usize,
        alpha: Value,
        beta: Value,
        pv: bool,
    ) -> Value {
        match self.outcomes(pos, m, ply) {
            Some(dist) => self.chance_node(pos, m, &dist, depth, ply, alpha, beta),
            None => self.child_value(pos, child, depth, ply, alpha, beta, pv),
        }
    }

    /// Searches `child` below `parent` (whose hash is pushed on the path around it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn child_value(
        &mut self,
        parent: &Position,
        child: &Position,
        depth: i32,
        ply: usize,
        alpha: Value,
        beta: Value,
        pv: bool,
    ) -> Value {
        self.stack.push(parent.hash());
        let v = -self.negamax(child, depth, ply + 1, -beta, -alpha, pv, true);
        self.stack.pop();
        v
    }

    /// The chance outcomes of `m`, when it meets chance (`None`: it simply happens). A move
    /// certain to fail (a 0 % square) is a chance node with its one outcome, not a success.
    #[inline]
    pub(crate) fn outcomes(&self, pos: &Position, m: Move, ply: usize) -> Option<Distribution<Event>> {
        if matches!(pos.variant().chance, rules::chance::ChanceRule::None) || ply >= self.params.chance_plies {
            return None;
        }
        Some(pos.chance(m)).filter(|d| !(d.is_certain() && d.outcomes()[0].0 == Event::Success))
    }

    /// Whether `pos`'s side to move has lost its royal piece (king-capture variants).
    #[inline]
    pub(crate) fn king_lost(pos: &Position) -> bool {
        let v = pos.variant();
        v.win == WinCondition::KingCapture && v.king().is_some() && pos.king_square(pos.turn()).is_none()
    }

    /// Scores moves for ordering.
    fn score_moves(&self, pos: &Position, moves: &MoveList, scores: &mut ScoreList, tt_move: u32, ply: usize) {
        let killers = self.history.killers(ply);
        let prev = self.previous_moves(ply);
        for &m in moves.iter() {
            let score = if m.raw() == tt_move {
                TT_MOVE
            } else if let Some(victim) = self.victim_value(pos, m) {
                let attacker = pos.moving_role(m).map_or(0, |r| self.eval.value(r).min(2_000));
                let promo = m.promotion_role().map_or(0, |r| self.eval.value(r));
                let mvv = victim * 16 + promo * 8 - attacker / 8;
                if attacker <= victim || see_ge(pos, self.eval, m, 0) {
                    GOOD_CAPTURE + mvv
                } else {
                    BAD_CAPTURE + mvv
                }
            } else if let Some(r) = m.promotion_role() {
                if self.is_best_promotion(pos, r) {
                    GOOD_CAPTURE + self.eval.value(r) * 8
                } else {
                    UNDERPROMOTION + self.eval.value(r)
                }
            } else if killers[0] == Some(m) {
                KILLER + 2
            } else if killers[1] == Some(m) {
                KILLER + 1
            } else {
                self.history.score(pos, m, PieceTo::of(pos, m), prev)
            };
            scores.push(score);
        }
    }

    /// The moves one and two plies above `ply` (continuation history keys).
    #[inline]
    fn previous_moves(&self, ply: usize) -> [PieceTo; 2] {
        let at = |back: usize| if ply >= back { self.moved[ply - back] } else { PieceTo::NONE };
        [at(1), at(2)]
    }

    /// The value of what `m` captures, if it is a capture.
    #[inline]
    pub(crate) fn victim_value(&self, pos: &Position, m: Move) -> Option<i32> {
        match m.kind() {
            MoveKind::EnPassant => Some(pos.variant().pawn().map_or(100, |p| self.eval.value(p))),
            MoveKind::Normal | MoveKind::DoubleStep => {
                let b = pos.board();
                if b.by_color(!pos.turn()).contains(m.to()) {
                    b.role_at(m.to()).map(|r| self.eval.value(r).min(20_000))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    fn is_best_promotion(&self, pos: &Position, r: rules::Role) -> bool {
        let best = pos.variant().promotion.iter().map(|&p| self.eval.value(p)).max().unwrap_or(0);
        self.eval.value(r) >= best
    }

    /// Moves the best-scored remaining move to index `i`.
    #[inline]
    fn pick(moves: &mut MoveList, scores: &mut [i32], i: usize) -> Move {
        let mut best = i;
        for j in i + 1..moves.len() {
            if scores[j] > scores[best] {
                best = j;
            }
        }
        moves.swap(i, best);
        scores.swap(i, best);
        moves[i]
    }

    /// Sorts `moves[from..]` by descending score (insertion sort: the lists are short).
    fn sort_rest(moves: &mut MoveList, scores: &mut [i32], from: usize) {
        for i in from + 1..moves.len() {
            let (m, s) = (moves[i], scores[i]);
            let mut j = i;
            while j > from && scores[j - 1] < s {
                moves[j] = moves[j - 1];
                scores[j] = scores[j - 1];
                j -= 1;
            }
            moves[j] = m;
            scores[j] = s;
        }
    }

    /// How many pieces other than pawns and the king the side to move has, on the board and
    /// in hand (null move is unsound in pawn endings, and needs verifying with one piece).
    fn piece_count(&self, pos: &Position) -> u32 {
        let v = pos.variant();
        let us = pos.turn();
        let b = pos.board();
        let mut other = b.by_color(us);
        if let Some(p) = v.pawn() {
            other = other - b.pieces(us, p);
        }
        if let Some(k) = v.king() {
            other = other - b.pieces(us, k);
        }
        other.count() + pos.hand(us).iter().map(|(_, n)| u32::from(n)).sum::<u32>()
    }

    /// The principal search node.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: Value,
        mut beta: Value,
        pv_node: bool,
        null_ok: bool,
    ) -> Value {
        self.pv_len[ply] = 0;
        // Step 1. Terminal positions, draws and mate-distance pruning.
        if ply > 0 {
            if let Some(v) = self.terminal(pos, ply) {
                self.count_node(ply);
                return v;
            }
            if let Some(v) = self.probe_table(pos, ply) {
                self.count_node(ply);
                return v;
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                self.count_node(ply);
                return alpha;
            }
        }
        // Step 2. The horizon.
        if depth <= 0 || ply >= MAX_PLY {
            return if self.params.qsearch && ply < MAX_PLY {
                self.qsearch(pos, ply, alpha, beta, 0)
            } else {
                self.count_node(ply);
                self.static_eval(pos)
            };
        }
        self.count_node(ply);
        if self.aborted {
            return 0;
        }

        // Step 3. Transposition table.
        let key = pos.hash();
        let entry = self.tt.probe(key);
        let tt_move = entry.map_or(0, |e| e.mv);
        // A singular-extension search of this node without one move: no cut-offs from
        // the table, no pruning by evaluation, nothing stored.
        let excluded = self.excluded[ply];
        if let Some(e) = entry {
            if self.params.tt_cutoffs && !pv_node && excluded == 0 && e.depth >= depth {
                if let Some(v) = e.cutoff(ply, alpha, beta) {
                    return v;
                }
            }
        }

        // Step 4. Static evaluation and the prunings it allows.
        let in_check = self.in_check(pos);
        let static_eval = if in_check {
            -INFINITE
        } else {
            match entry {
                Some(e) if e.eval.abs() < MATE_BOUND => e.eval,
                _ => self.static_eval(pos),
            }
        };
        self.evals[ply] = static_eval;
        // Improving: better than two plies ago (four, if in check then); prune less if so.
        let improving = !in_check
            && match ply {
                0 | 1 => true,
                _ if self.evals[ply - 2] > -INFINITE => static_eval > self.evals[ply - 2],
                2 | 3 => true,
                _ => static_eval > self.evals[ply - 4],
            };
        if self.params.futility && excluded == 0 && !pv_node && !in_check && depth <= 6 && beta.abs() < MATE_BOUND {
            let margin = self.params.futility_margin * depth - i32::from(improving) * self.params.futility_margin / 2;
            if static_eval - margin >= beta {
                return static_eval - margin;
            }
        }
        // Razoring: far below alpha near the horizon, ask quiescence whether anything saves it.
        if self.params.futility
            && excluded == 0
            && self.params.qsearch
            && !pv_node
            && !in_check
            && depth <= 2
            && static_eval + RAZOR_MARGIN * depth < alpha
            && alpha.abs() < MATE_BOUND
        {
            let v = self.qsearch(pos, ply, alpha, alpha + 1, 0);
            if self.aborted {
                return 0;
            }
            if v <= alpha {
                return v;
            }
        }
        let try_null = self.params.null_move
            && !pv_node
            && null_ok
            && excluded == 0
            && !in_check
            && depth >= 3
            && static_eval >= beta
            && beta.abs() < MATE_BOUND
            && self.null_verify.is_none_or(|(side, until)| side != pos.turn() || ply >= until);
        // Counted only where a null move is tried (most nodes never get here).
        let pieces = if try_null { self.piece_count(pos) } else { 0 };
        if pieces > 0 {
            let r = 3 + depth / 4 + ((static_eval - beta) / 200).min(3);
            let mut child = pos.clone();
            child.pass_turn();
            self.moved[ply] = PieceTo::NONE;
            self.stack.push(key);
            let v = -self.negamax(&child, depth - 1 - r, ply + 1, -beta, -beta + 1, false, false);
            self.stack.pop();
            if self.aborted {
                return 0;
            }
            if v >= beta {
                let v = if v >= MATE_BOUND { beta } else { v };
                // Zugzwang: passing may beat every move, most often with a single piece left
                // (1.Ra6! in kbK5/pp6/1P6/8/8/8/8/R7 w). Verify with this side's null moves off.
                if self.null_verify.is_some() || (pieces > 1 && depth < NULL_VERIFY_DEPTH) {
                    return v;
                }
                self.null_verify = Some((pos.turn(), ply + (3 * (depth - r) / 4).max(1) as usize));
                let verified = self.negamax(pos, depth - r, ply, beta - 1, beta, false, false);
                self.null_verify = None;
                if self.aborted {
                    return 0;
                }
                if verified >= beta {
                    return v;
                }
            }
        }
        // Internal iterative reduction: without a move to try first, search less.
        if tt_move == 0 && depth >= 5 && self.params.lmr {
            depth -= 1;
        }

        // Step 5. Moves, ordered.
        let mut moves = MoveList::new();
        pos.gen_legal(&mut moves);
        if moves.is_empty() {
            return self.no_moves(pos, ply);
        }
        // The table's move goes first; the others are scored only if it does not cut off.
        let tt_first = match moves.iter().position(|m| m.raw() == tt_move) {
            Some(k) if tt_move != 0 => {
                moves.swap(0, k);
                true
            }
            _ => false,
        };
        let mut scores = ScoreList::new();

        // Step 6. The move loop.
        let mut best = -INFINITE;
        let mut best_move: Option<Move> = None;
        let mut quiets = arrayvec::ArrayVec::<Move, 64>::new();
        let original_alpha = alpha;
        let mut searched = 0usize;
        let prev = self.previous_moves(ply);
        let late_move_count = if improving { 3 + 2 * depth * depth } else { 2 + depth * depth } as usize;
        let mut sorted = false;
        let check_info = self.params.check_matters.then(|| pos.check_info());
        for i in 0..moves.len() {
            let m = if i == 0 && tt_first {
                moves[0]
            } else if sorted {
                moves[i]
            } else {
                if scores.is_empty() {
                    self.score_moves(pos, &moves, &mut scores, tt_move, ply);
                }
                let m = Searcher::pick(&mut moves, &mut scores, i);
                // Past the tactical moves and killers, sort the rest once.
                if scores[i] < KILLER {
                    Searcher::sort_rest(&mut moves, &mut scores, i + 1);
                    sorted = true;
                }
                m
            };
            if m.raw() == excluded || (ply == 0 && !self.root_allows(m)) {
                continue;
            }
            let move_score = scores.get(i).copied().unwrap_or(TT_MOVE);
            let capture_or_promo = self.victim_value(pos, m).is_some() || m.promotion_role().is_some();
            let may_prune = self.params.futility && !pv_node && !in_check && best > -MATE_BOUND && searched > 0;
            // Late-move pruning by count, before the move is even made (checks included,
            // as in Stockfish: the count already says the node is hopeless).
            if may_prune && !capture_or_promo && depth <= 4 && quiets.len() >= late_move_count {
                continue;
            }
            let gives_check = check_info.as_ref().is_some_and(|ci| pos.gives_check_with(ci, m));
            let quiet = !capture_or_promo && !gives_check;

            // Step 7. Prune hopeless moves at low depth (never before something is searched).
            if may_prune {
                if quiet {
                    if depth <= 3 && static_eval + 100 + 100 * depth <= alpha {
                        continue;
                    }
                    // Quiet moves that have failed everywhere lately.
                    if depth <= 3 && move_score < -HISTORY_PRUNE * depth {
                        continue;
                    }
                } else if depth <= 4
                    && !gives_check
                    && move_score < GOOD_CAPTURE
                    && !see_ge(pos, self.eval, m, -90 * depth)
                {
                    continue;
                }
            }

            // A root outcome known in advance (the research oracle) is played in place of the move.
            let known = if ply == 0 { self.root_events.iter().find(|(r, _)| *r == m.raw()) } else { None };
            let mut child = pos.clone();
            match known {
                Some(&(_, e)) => child.play_event(m, e),
                None => {
                    child.play_unchecked(m);
                    self.play_foreseen(&mut child, ply);
                }
            }
            self.tt.prefetch(child.hash());
            crate::tt::prefetch(&self.eval_cache[child.hash() as usize & (EVAL_CACHE - 1)]);
            // Approximate chance nodes (SnowFall's gifts) take no distribution here: see below.
            let outcomes = if self.params.chance_correction { None } else { self.outcomes(pos, m, ply) };
            // Singular extension: the table's move, if every other move falls well short of
            // its stored value, is searched one ply deeper; if even the others reach beta,
            // the node fails high at once.
            let mut singular = false;
            if let Some(e) = entry {
                if self.params.singular
                    && ply > 0
                    && depth >= SINGULAR_DEPTH
                    && i == 0
                    && m.raw() == tt_move
                    && excluded == 0
                    && e.depth >= depth - 3
                    && e.bound != Bound::Upper
                    && e.value.abs() < MATE_BOUND
                    && outcomes.is_none()
                {
                    let singular_beta = from_tt(e.value, ply) - 2 * depth;
                    self.excluded[ply] = tt_move;
                    let v = self.negamax(pos, (depth - 1) / 2, ply, singular_beta - 1, singular_beta, false, false);
                    self.excluded[ply] = 0;
                    if self.aborted {
                        return 0;
                    }
                    if v < singular_beta {
                        singular = true;
                    } else if singular_beta >= beta {
                        return singular_beta;
                    }
                }
            }
            self.moved[ply] = PieceTo::of(pos, m);
            let extension = i32::from((singular || (self.params.check_extension && gives_check)) && ply < MAX_PLY / 2);
            let new_depth = depth - 1 + extension;
            // Approximate chance nodes (SnowFall's gifts): the plain line searched as any move
            // with the window mapped through the risk, which is applied to its value. At the root
            // every move gets one; deeper, the first moves in order (the candidates).
            let correction =
                if self.params.chance_correction && ply < self.params.chance_plies && (ply == 0 || i < CORRECTED_MOVES)
                {
                    self.chance_correction(pos, m, &child)
                } else {
                    0
                };
            let (alpha_c, beta_c) =
                if correction == 0 { (alpha, beta) } else { crate::expectimax::plain_window(alpha, beta, correction) };
            let v = if let Some(dist) = &outcomes {
                self.chance_node(pos, m, dist, new_depth, ply, alpha, beta)
            } else if searched == 0 {
                self.child_value(pos, &child, new_depth, ply, alpha_c, beta_c, pv_node)
            } else {
                // Step 8. Late-move reductions and the principal-variation re-searches.
                let mut r = 0;
                if self.params.lmr && depth >= 3 && quiet && !in_check && searched >= if pv_node { 3 } else { 2 } {
                    r = self.lmr[depth.min(63) as usize][searched.min(63)] as i32;
                    if pv_node {
                        r -= 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    if move_score >= KILLER {
                        r -= 1;
                    } else {
                        r -= (move_score / 10_000).clamp(-2, 2);
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut v = self.child_value(pos, &child, new_depth - r, ply, alpha_c, alpha_c + 1, false);
                if v > alpha_c && r > 0 {
                    v = self.child_value(pos, &child, new_depth, ply, alpha_c, alpha_c + 1, false);
                }
                // A null-window value above alpha is only a lower bound: search the full window
                // again wherever it is wider than null (principal variations, and the wide
                // windows Star1 and the gift risk hand to non-PV nodes).
                if v > alpha_c && v < beta_c && (pv_node || beta_c - alpha_c > 1) {
                    v = self.child_value(pos, &child, new_depth, ply, alpha_c, beta_c, pv_node);
                }
                v
            };
            let v =
                if correction != 0 && v.abs() < MATE_BOUND { crate::expectimax::with_risk(v, correction) } else { v };
            searched += 1;
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    if ply == 0 {
                        self.root_best = Some(m);
                        self.root_best_value = (v, v >= beta);
                    }
                    alpha = v;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        if !capture_or_promo {
                            self.history.reward(pos, ply, m, depth, &quiets, prev);
                        }
                        break;
                    }
                }
            }
            if !capture_or_promo && !quiets.is_full() {
                quiets.push(m);
            }
        }

        // Step 9. Store the result (not of a search without some moves: a singular search, or a
        // root with moves left out).
        if excluded != 0 || (ply == 0 && self.root_filtered()) {
            return if searched == 0 { alpha } else { best };
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha && best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_eval = if in_check { 0 } else { static_eval };
        self.tt.store(key, best_move.map_or(0, |m| m.raw()), to_tt(best, ply), stored_eval, depth, bound);
        best
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][0] = Some(m);
        let n = self.pv_len[ply + 1].min(MAX_PLY - 1);
        for i in 0..n {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = n + 1;
    }

    /// Quiescence: captures and promotions until the position is quiet (all moves in check).
    pub(crate) fn qsearch(&mut self, pos: &Position, ply: usize, mut alpha: Value, beta: Value, qply: usize) -> Value {
        self.pv_len[ply] = 0;
        self.count_node(ply);
        if self.aborted {
            return 0;
        }
        if Searcher::king_lost(pos) {
            return mated_in(ply);
        }
        if ply > 0 {
            if let Some(v) = self.probe_table(pos, ply) {
                return v;
            }
        }
        // The table: a cut-off from any search at least this deep, else its move and evaluation.
        let key = pos.hash();
        let qdepth = if qply == 0 { 0 } else { -1 };
        let entry = self.tt.probe(key);
        if let Some(e) = entry {
            if self.params.tt_cutoffs && e.depth >= qdepth {
                if let Some(v) = e.cutoff(ply, alpha, beta) {
                    return v;
                }
            }
        }
        let tt_move = entry.map_or(0, |e| e.mv);
        let original_alpha = alpha;
        let in_check = self.in_check(pos);
        let stand_pat = if in_check {
            -INFINITE
        } else {
            match entry {
                Some(e) if e.eval.abs() < MATE_BOUND && e.eval != 0 => e.eval,
                _ => self.static_eval(pos),
            }
        };
        if !in_check {
            if stand_pat >= beta || qply >= MAX_QPLY || ply >= MAX_PLY {
                if entry.is_none() {
                    self.tt.store(key, 0, to_tt(stand_pat, ply), stand_pat, qdepth, Bound::Lower);
                }
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
        }
        let mut moves = MoveList::new();
        if in_check {
            pos.gen_legal(&mut moves);
        } else {
            pos.gen_captures(&mut moves);
        }
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { stand_pat };
        }
        let mut scores = ScoreList::new();
        let mut n = 0;
        // Keep the tactical moves (all moves when in check), scored by MVV-LVA.
        for i in 0..moves.len() {
            let m = moves[i];
            let victim = self.victim_value(pos, m);
            let promo = m.promotion_role().filter(|&r| self.is_best_promotion(pos, r));
            if in_check || victim.is_some() || promo.is_some() {
                let attacker = pos.moving_role(m).map_or(0, |r| self.eval.value(r).min(2_000));
                moves[n] = m;
                scores.push(if m.raw() == tt_move {
                    TT_MOVE
                } else {
                    victim.unwrap_or(0) * 16 + promo.map_or(0, |r| self.eval.value(r)) * 8 - attacker / 8
                });
                n += 1;
            }
        }
        moves.truncate(n);
        // On the first quiescence ply, quiet checks too: they find the mates and forks
        // that a captures-only horizon hides.
        if qply == 0 && !in_check && self.params.check_matters && self.params.qsearch_checks {
            let mut all = MoveList::new();
            pos.gen_legal(&mut all);
            let check_info = pos.check_info();
            for &m in &all {
                if m.kind() == MoveKind::Castle || self.victim_value(pos, m).is_some() || m.promotion_role().is_some() {
                    continue;
                }
                if pos.gives_check_with(&check_info, m) && !moves.is_full() {
                    moves.push(m);
                    scores.push(QUIET_CHECK);
                }
            }
        }
        let scores = &mut scores[..];
        let mut best = stand_pat;
        let mut best_move = 0;
        for i in 0..moves.len() {
            let m = Searcher::pick(&mut moves, scores, i);
            let quiet_check = scores[i] == QUIET_CHECK && !in_check;
            if quiet_check {
                if !see_ge(pos, self.eval, m, 0) {
                    continue;
                }
            } else if !in_check {
                // Delta pruning and losing exchanges.
                let gain =
                    self.victim_value(pos, m).unwrap_or(0) + m.promotion_role().map_or(0, |r| self.eval.value(r));
                if stand_pat + gain + 200 <= alpha && m.promotion_role().is_none() {
                    continue;
                }
                if !see_ge(pos, self.eval, m, 0) {
                    continue;
                }
            }
            let v = if let Some(dist) = self.outcomes(pos, m, ply) {
                self.chance_qsearch(pos, m, &dist, ply, qply)
            } else {
                let mut child = pos.clone();
                child.play_unchecked(m);
                self.play_foreseen(&mut child, ply);
                self.tt.prefetch(child.hash());
                -self.qsearch(&child, ply + 1, -beta, -alpha, qply + 1)
            };
            if self.aborted {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = m.raw();
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha && best_move != 0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let stored_eval = if in_check { 0 } else { stand_pat };
        self.tt.store(key, best_move, to_tt(best, ply), stored_eval, qdepth, bound);
        best
    }
}
