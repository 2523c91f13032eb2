//! Chance nodes: the value of a move whose outcome is drawn by chance is the expectation
//! over its outcomes, searched with Star1/Star2 bounds (Ballard 1983; Hauk, Buro &
//! Schaeffer 2004) so that alpha-beta windows still cut.
//!
//! Probabilities become integer weights `w_i` over a common denominator `D`, and a chance
//! node's value is `floor(Σ w_i v_i / D)`: exact integer arithmetic, so the pruned search
//! and a plain expectiminimax agree to the centipawn.

use crate::score::{Value, INFINITE, MATE, MATE_BOUND};
use crate::search::Searcher;
use rules::chance::{ChanceRule, Distribution, Event, Probability};
use rules::gift::{self, Gift, Gifts, Kind};
use rules::{Move, MoveList, Position};

/// The bounds every child value lies within (centipawn evaluations).
const LOWER: i64 = -(MATE as i64);
const UPPER: i64 = MATE as i64;
/// How far beyond the largest win-scaled evaluation a mate counts in chance nodes.
pub const MATE_MARGIN: Value = 20;
/// Quiescence plies after which chance outcomes are valued statically.
const MAX_CHANCE_QPLY: usize = 3;
/// The scale of the win-probability model of a gift risk: a value `v` wins with probability
/// `1 / (1 + e^(-v / WIN_SCALE))`.
const WIN_SCALE: f64 = 200.0;
/// Probability one in the fixed-point risks of [`Searcher::chance_correction`].
pub(crate) const RISK_ONE: Value = 1 << 16;

/// The value of a move whose plain line is worth `v` when a gift lets the opponent mate with
/// probability `r = risk / RISK_ONE`. The risk is weighed in winning chances, not centipawns:
/// the plain line wins with `W(v) = 1 / (1 + e^(-v/s))`, the risked move with `(1 - r) W(v)`,
/// and the result is that probability as a value again, `s (ln(1 - r) - ln(r + e^(-v/s)))`,
/// rounded down. (Weighing a lost game as a fixed -2000 in centipawns charged an 11.8 % risk
/// 235 points in a level position, where it costs about 47; measured: 30 % against the
/// blind engine.) Mate scores pass unchanged: they are already certain.
pub(crate) fn with_risk(v: Value, risk: Value) -> Value {
    if risk <= 0 || v.abs() >= MATE_BOUND {
        return v;
    }
    let r = f64::from(risk) / f64::from(RISK_ONE);
    let x = WIN_SCALE * ((1.0 - r).ln() - (r + (-f64::from(v) / WIN_SCALE).exp()).ln());
    (x.floor() as Value).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
}

/// The window of the plain search for the window `(alpha, beta)` of the risked value: the
/// largest `a` with `with_risk(a) <= alpha` and the smallest `b` with `with_risk(b) >= beta`
/// (found by bisection: `with_risk` is non-decreasing), so that a plain value fails low, fails
/// high or lies inside exactly when its risked value does.
pub(crate) fn plain_window(alpha: Value, beta: Value, risk: Value) -> (Value, Value) {
    let a = first_plain(|v| with_risk(v, risk) > alpha) - 1;
    let b = first_plain(|v| with_risk(v, risk) >= beta);
    (a, b.min(INFINITE))
}

/// The smallest value in `-INFINITE..=INFINITE` where the non-decreasing test `holds`, by
/// bisection; `INFINITE + 1` if it holds nowhere.
fn first_plain(holds: impl Fn(Value) -> bool) -> Value {
    let (mut lo, mut hi) = (-INFINITE - 1, INFINITE + 1); // holds(lo) false, holds(hi) true
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}
/// Weights are rescaled when the common denominator exceeds this.
const MAX_DENOMINATOR: u64 = 1 << 32;

/// The outcomes of a move as integer weights with their sum.
pub fn weights(outcomes: &[(Event, Probability)]) -> (Vec<(Event, i64)>, i64) {
    let mut d: u64 = 1;
    for (_, p) in outcomes {
        let den = *p.denom();
        d = lcm(d, den).unwrap_or(u64::MAX);
        if d > MAX_DENOMINATOR {
            break;
        }
    }
    if d <= MAX_DENOMINATOR {
        let w = outcomes.iter().map(|(e, p)| (*e, (*p.numer() * (d / *p.denom())) as i64)).collect();
        return (w, d as i64);
    }
    // Too fine to represent exactly: round to 2^-32 and give the remainder to the largest.
    let d = MAX_DENOMINATOR as i64;
    let mut w: Vec<(Event, i64)> = outcomes
        .iter()
        .map(|(e, p)| (*e, ((*p.numer() as f64 / *p.denom() as f64) * d as f64).round().max(1.0) as i64))
        .collect();
    let sum: i64 = w.iter().map(|x| x.1).sum();
    if let Some(max) = w.iter_mut().max_by_key(|x| x.1) {
        max.1 += d - sum;
    }
    (w, d)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> Option<u64> {
    (a / gcd(a, b)).checked_mul(b)
}

/// `ceil(a / b)` for `b > 0`.
fn ceil_div(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

fn clamp_value(x: i64) -> Value {
    x.clamp(-(INFINITE as i64), INFINITE as i64) as Value
}

impl Searcher<'_> {
    /// The expected value of playing `m` in `pos` (from the mover's side), each outcome's
    /// position searched to `depth`, with the window `(alpha, beta)`. Fail-soft: a value
    /// `<= alpha` is an upper bound, `>= beta` a lower bound.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn chance_node(
        &mut self,
        pos: &Position,
        m: Move,
        dist: &Distribution<Event>,
        depth: i32,
        ply: usize,
        alpha: Value,
        beta: Value,
    ) -> Value {
        let (mut w, d) = weights(dist.outcomes());
        // A failed move's position is the same whichever move failed: searched first, it is
        // found in the table for every later move (and, reduced, it costs less).
        w.sort_by_key(|(e, _)| *e != Event::Failure);
        let children: Vec<Position> = w
            .iter()
            .map(|(e, _)| {
                let mut c = pos.clone();
                c.play_event(m, *e);
                c
            })
            .collect();
        let reduction = self.params.failure_reduction;
        let depth_of = |i: usize| if w[i].0 == Event::Failure { depth - reduction } else { depth };
        let n = children.len();
        let (alpha, beta) = (alpha as i64, beta as i64);
        let (lowest, highest) = self.utility_bounds();

        // Step 1. Star2 probing: one move of each outcome's position gives an upper bound
        // on that outcome's value; their weighted sum may already fail low.
        let mut upper = vec![highest; n];
        if self.params.star2 && n > 1 {
            let mut known = 0i64; // Σ w_j upper_j over probed outcomes
            let mut rest = d; // weight not yet probed
            for i in 0..n {
                rest -= w[i].1;
                // Fails low if this outcome's value is at most `a`.
                let a = ceil_div((alpha + 1) * d - known - rest * highest, w[i].1) - 1;
                if let Some(lb) = self.probe(pos, &children[i], depth_of(i), ply, clamp_value(-a - 1)) {
                    upper[i] = self.utility(-lb) as i64;
                }
                if self.aborted {
                    return 0;
                }
                known += w[i].1 * upper[i];
                if known + rest * highest < (alpha + 1) * d {
                    return (known + rest * highest).div_euclid(d) as Value;
                }
            }
        }

        // Step 2. Star1: search the outcomes in turn with windows narrowed by what is known.
        let mut sum = 0i64; // Σ w_j v_j over searched outcomes
        let mut upper_rest: i64 = (0..n).map(|j| w[j].1 * upper[j]).sum();
        let mut lower_rest: i64 = d * lowest;
        for i in 0..n {
            let wi = w[i].1;
            upper_rest -= wi * upper[i];
            lower_rest -= wi * lowest;
            let a = ceil_div((alpha + 1) * d - sum - upper_rest, wi) - 1;
            let b = ceil_div(beta * d - sum - lower_rest, wi);
            let (lo, hi) = (clamp_value(a), clamp_value(b));
            let v = self.child_value(pos, &children[i], depth_of(i), ply, lo, hi, false);
            let v = self.utility(v) as i64;
            if self.aborted {
                return 0;
            }
            if v <= a {
                return (sum + wi * v + upper_rest).div_euclid(d) as Value;
            }
            if v >= b {
                return (sum + wi * v + lower_rest).div_euclid(d) as Value;
            }
            sum += wi * v;
        }
        sum.div_euclid(d) as Value
    }

    /// Star2's probe of one outcome's position `child` (the opponent to move): the value
    /// of its first move only, a lower bound on the opponent's value there, if it beats
    /// `alpha` (the opponent's side of the window). Terminal positions and the horizon
    /// are valued exactly.
    fn probe(&mut self, parent: &Position, child: &Position, depth: i32, ply: usize, alpha: Value) -> Option<Value> {
        let cply = ply + 1;
        self.stack.push(parent.hash());
        if let Some(v) = self.terminal(child, cply) {
            self.stack.pop();
            return Some(v);
        }
        if depth <= 0 || cply >= crate::history::MAX_PLY {
            // Nothing cheaper than the real thing: value it exactly.
            self.stack.pop();
            return Some(-self.child_value(parent, child, depth, ply, -INFINITE, INFINITE, false));
        }
        let mut moves = MoveList::new();
        child.gen_legal(&mut moves);
        if moves.is_empty() {
            self.stack.pop();
            return Some(self.no_moves(child, cply));
        }
        // The first move: the table's, else the most valuable capture, else the first generated.
        let tt_move = self.tt.probe(child.hash()).map_or(0, |e| e.mv);
        let m = moves
            .iter()
            .copied()
            .find(|m| m.raw() == tt_move)
            .or_else(|| moves.iter().copied().max_by_key(|&m| self.victim_value(child, m).unwrap_or(-1)))
            .unwrap_or(moves[0]);
        let mut grandchild = child.clone();
        grandchild.play_unchecked(m);
        self.moved[cply] = crate::history::PieceTo::of(child, m);
        let v = self.move_value(child, m, &grandchild, depth - 1, cply, alpha, INFINITE, false);
        self.stack.pop();
        (v > alpha).then_some(v)
    }

    /// The approximate chance node's risk for `m` (`child`: the position it reaches before
    /// chance), in units of 1/[`RISK_ONE`]: the probability that the gift event after `m` gives
    /// the opponent a piece it can drop at once for mate (see [`with_risk`]). Each kind
    /// is tried alone first; where one would mate, every outcome giving it is checked with both
    /// players' gifts in hand (the mover's may block the check by a drop). Gifts are otherwise
    /// near-symmetric in material: a static difference added noise that unsettled the root
    /// (measured: three times the nodes at equal depth). Computed once per position and move.
    pub(crate) fn chance_correction(&mut self, pos: &Position, m: Move, child: &Position) -> Value {
        let ChanceRule::Gifts { percent } = pos.variant().chance else { return 0 };
        let key = (pos.hash(), m.raw());
        if let Some(&c) = self.corrections.get(&key) {
            return c;
        }
        let mover = pos.turn();
        // Which kinds, dropped alone, would mate (each tried once, only if it gives check).
        let mut mask = 0u8;
        for k in Kind::ALL {
            let Some(role) = child.variant().role_by_letter(k.letter()) else { continue };
            let mut c = child.clone();
            let one = Gift::NONE.with(k);
            c.receive_gifts(Gifts::from_parts(!mover, one, Gift::NONE));
            if rules::odds::drop_mate(&c, role).is_some() {
                mask |= 1 << k as u8;
            }
        }
        let c = if mask == 0 {
            0
        } else {
            // Exactly, outcome by outcome: the mover's own gift may let it block the check.
            let counts = gift::counts(child);
            let outcomes = self
                .gift_outcomes
                .entry((counts, mover.index() as u8))
                .or_insert_with(|| gift::event_outcomes(mover, &counts));
            let mut risk = Probability::from_integer(0);
            for &(g, p) in outcomes.iter() {
                let mating = |k: &Kind| mask & (1 << *k as u8) != 0 && g.of(!mover).has(*k);
                if !Kind::ALL.iter().any(mating) {
                    continue;
                }
                let mut c = child.clone();
                c.receive_gifts(g);
                let mated = Kind::ALL.iter().filter(|k| mating(k)).any(|k| {
                    c.variant().role_by_letter(k.letter()).is_some_and(|r| rules::odds::drop_mate(&c, r).is_some())
                });
                if mated {
                    risk += p;
                }
            }
            let risk = gift::event_probability(percent) * risk;
            ((RISK_ONE as u64 * *risk.numer()) / *risk.denom()).min(RISK_ONE as u64 - 1) as Value
        };
        self.corrections.insert(key, c);
        c
    }

    /// Quiescence value of a chance move: the plain expectation of its outcomes.
    pub(crate) fn chance_qsearch(
        &mut self,
        pos: &Position,
        m: Move,
        dist: &Distribution<Event>,
        ply: usize,
        qply: usize,
    ) -> Value {
        let (w, d) = weights(dist.outcomes());
        let mut sum = 0i64;
        for (e, wi) in w {
            let mut c = pos.clone();
            c.play_event(m, e);
            // Every chance capture doubles the tree: past a few plies, outcomes are valued
            // statically.
            let v = if qply + 1 >= MAX_CHANCE_QPLY {
                self.nodes += 1;
                -self.static_eval(&c)
            } else {
                -self.qsearch(&c, ply + 1, -INFINITE, INFINITE, qply + 1)
            };
            sum += wi * self.utility(v) as i64;
        }
        sum.div_euclid(d) as Value
    }

    /// What a chance node averages for an outcome's value `v`: `v` itself, except that with a
    /// win-scaled evaluation (`SearchParams::win_scale` = `s`: every evaluation within `±s`)
    /// a mate counts `±(s + MATE_MARGIN)`, a won game just beyond any evaluation. A 3 % chance
    /// of losing the king then costs 3 % of a game, not 3 % of 32,000 centipawns. The map is
    /// non-decreasing, so fail-soft bounds keep their meaning; the values it returns lie within
    /// [`Searcher::utility_bounds`].
    #[inline]
    pub(crate) fn utility(&self, v: Value) -> Value {
        let s = self.params.win_scale;
        if s <= 0 || v.abs() < MATE_BOUND {
            v
        } else {
            v.signum() * (s + MATE_MARGIN)
        }
    }

    /// The least and the greatest value [`Searcher::utility`] returns.
    fn utility_bounds(&self) -> (i64, i64) {
        match self.params.win_scale {
            s if s > 0 => (-i64::from(s + MATE_MARGIN), i64::from(s + MATE_MARGIN)),
            _ => (LOWER, UPPER),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_share_a_denominator() {
        let o = vec![(Event::Success, Probability::new(1, 3)), (Event::Failure, Probability::new(2, 3))];
        assert_eq!(weights(&o), (vec![(Event::Success, 1), (Event::Failure, 2)], 3));
        let o = vec![(Event::Success, Probability::new(7, 100)), (Event::Failure, Probability::new(93, 100))];
        assert_eq!(weights(&o).1, 100);
    }

    #[test]
    fn a_gift_that_lets_the_opponent_mate_costs_its_probability() {
        // White's king escapes to g1, where a black pawn, bishop or queen dropped on f2 mates
        // (tests/data/snowfall-gifts.txt): 17 % x 83/120 = 1411/12000 of a lost game (2000).
        let v = rules::variants::snowfall::variant(17);
        let pos = Position::from_fen(v, "b3k3/8/8/8/6n1/8/5K1P/5B1R[] w - - 0 1").expect("valid FEN");
        let tt = crate::tt::Tt::new(1);
        let eval = crate::eval::Evaluator::new(v);
        let mut history = crate::history::History::default();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let mut s = Searcher::new(&tt, &eval, crate::params::SearchParams::for_variant(v), &mut history, &stop, &[]);
        let correction = |s: &mut Searcher, uci: &str| {
            let m = rules::uci::parse_uci(&pos, uci).expect("legal");
            let mut child = pos.clone();
            child.play_unchecked(m);
            s.chance_correction(&pos, m, &child)
        };
        // 1411/12000 of 65536 = 7705.9.
        assert_eq!(correction(&mut s, "f2g1"), 7705);
        // On e1 no single dropped piece mates.
        assert_eq!(correction(&mut s, "f2e1"), 0);
        assert_eq!(correction(&mut s, "f2g1"), 7705, "cached");
        // 11.8 % of a lost game costs a level position about 47 points.
        let r = 7705.0 / 65536.0;
        let expected = |v: f64| (200.0 * ((1.0f64 - r).ln() - (r + (-v / 200.0).exp()).ln())).floor() as Value;
        assert_eq!(with_risk(0, 7705), expected(0.0));
        assert_eq!(with_risk(100, 7705), expected(100.0));
        assert!((-48..=-46).contains(&with_risk(0, 7705)), "{}", with_risk(0, 7705));
        assert!(with_risk(800, 7705) < 500);
        assert_eq!(with_risk(MATE - 5, 7705), MATE - 5, "a mate is certain");
        for v in (-3000..3000).step_by(7) {
            assert!(with_risk(v, 7705) <= with_risk(v + 1, 7705), "monotone at {v}");
        }
        // A plain value fails low / high exactly when its risked value does.
        for (alpha, beta) in
            [(-50, -49), (0, 1), (100, 300), (-1500, 1500), (700, 701), (2000, 2001), (-MATE + 3, MATE - 3)]
        {
            let (a, b) = plain_window(alpha, beta, 7705);
            assert!(with_risk(a, 7705) <= alpha && with_risk(a + 1, 7705) > alpha, "{alpha}: {a}");
            assert!(with_risk(b, 7705) >= beta && with_risk(b - 1, 7705) < beta, "{beta}: {b}");
        }
    }

    #[test]
    fn ceil_division() {
        assert_eq!(ceil_div(7, 2), 4);
        assert_eq!(ceil_div(-7, 2), -3);
        assert_eq!(ceil_div(6, 3), 2);
    }
}
