//! The Predictor chess player: candidate primaries of both sides, the resolved ply of every pair
//! scored by shallow searches, a mixed strategy from the matrix game, and a conditional order.
//!
//! For a position, each side's candidates are its primaries with the best shallow scores when
//! played as ordinary moves (every capture of the enemy king included). The payoff of a pair
//! (White's primary, Black's) is the value of the position the ply resolves to, for White: a
//! depth-1 search (with quiescence) with White to order, minus one with Black to order, halved —
//! neither side "moves next" in a simultaneous game. A king lost is a mate score. Regret matching
//! solves the zero-sum game; the primary is sampled from the ordering side's mixed strategy with a
//! seeded generator (a predictable player is exploited). The conditional predicts the enemy's most
//! likely primary and answers it with the response that scores best against it, if that beats
//! playing the primary alone.

use crate::engine::Engine;
use crate::params::SearchParams;
use crate::score::{Value, MATE};
use crate::time::Limits;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rules::predictor::{self, Conditional, Orders};
use rules::{Color, Move, Position};
use std::time::{Duration, Instant};

/// The value of a king lost (from the loser's side).
const KING_LOST: Value = MATE - 100;

/// The smallest and largest number of candidates per side.
const CANDIDATES: (usize, usize) = (3, 8);

/// Solves a zero-sum matrix game (row player maximises `payoff[r][c]`) by regret matching
/// (Hart & Mas-Colell 2000) for `iterations`; returns both players' average strategies, which
/// approach an equilibrium.
pub fn solve_matrix(payoff: &[Vec<f64>], iterations: usize) -> (Vec<f64>, Vec<f64>) {
    let rows = payoff.len();
    let cols = payoff.first().map_or(0, Vec::len);
    if rows == 0 || cols == 0 {
        return (vec![1.0; rows.max(1)], vec![1.0; cols.max(1)]);
    }
    let (mut reg_r, mut reg_c) = (vec![0.0; rows], vec![0.0; cols]);
    let (mut sum_r, mut sum_c) = (vec![0.0; rows], vec![0.0; cols]);
    let strategy = |regret: &[f64]| {
        let pos: f64 = regret.iter().map(|r| r.max(0.0)).sum();
        if pos > 0.0 {
            regret.iter().map(|r| r.max(0.0) / pos).collect::<Vec<_>>()
        } else {
            vec![1.0 / regret.len() as f64; regret.len()]
        }
    };
    for _ in 0..iterations {
        let (sr, sc) = (strategy(&reg_r), strategy(&reg_c));
        // Expected payoff of each pure row against the column mix, and of each column.
        let row_values: Vec<f64> = (0..rows).map(|r| (0..cols).map(|c| sc[c] * payoff[r][c]).sum()).collect();
        let col_values: Vec<f64> = (0..cols).map(|c| (0..rows).map(|r| sr[r] * payoff[r][c]).sum()).collect();
        let v: f64 = (0..rows).map(|r| sr[r] * row_values[r]).sum();
        for r in 0..rows {
            // Regret matching+: regrets floored at zero converge faster.
            reg_r[r] = (reg_r[r] + row_values[r] - v).max(0.0);
            sum_r[r] += sr[r];
        }
        for c in 0..cols {
            reg_c[c] = (reg_c[c] + v - col_values[c]).max(0.0);
            sum_c[c] += sc[c];
        }
    }
    let norm = |s: Vec<f64>| {
        let t: f64 = s.iter().sum();
        s.into_iter().map(|x| x / t).collect::<Vec<_>>()
    };
    (norm(sum_r), norm(sum_c))
}

/// How a Predictor side orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The mixed-strategy player described in the module doc.
    Mixed,
    /// The engine's best ordinary move as primary, no conditional.
    Baseline,
}

/// A Predictor chess player.
pub struct PredictorPlayer {
    engine: Engine,
    style: Style,
    rng: ChaCha8Rng,
    /// Searches made for the last order (for tests and tuning).
    pub searches: usize,
}

impl PredictorPlayer {
    /// A player of `style` whose random choices come from `seed`.
    pub fn new(style: Style, seed: u64) -> PredictorPlayer {
        let mut engine = Engine::with_hash(16);
        engine.set_params(Some(SearchParams::for_variant(rules::variants::predictor::variant())));
        PredictorPlayer { engine, style, rng: ChaCha8Rng::seed_from_u64(seed), searches: 0 }
    }

    /// A shallow value of `pos` for the side to move.
    fn value(&mut self, pos: &Position, depth: u32) -> Value {
        self.searches += 1;
        let k = pos.variant().king();
        let has_king = |c: Color| k.is_none_or(|k| pos.board().pieces(c, k).any());
        match (has_king(pos.turn()), has_king(!pos.turn())) {
            (true, false) => return KING_LOST,
            (false, true) => return -KING_LOST,
            (false, false) => return 0,
            (true, true) => {}
        }
        if !pos.has_legal_move() && predictor::king_captures(pos).is_empty() {
            return if pos.is_check() { -KING_LOST } else { 0 };
        }
        self.engine.search(pos.clone(), &[], Limits::depth(depth), |_| {}).value
    }

    /// The payoff for White of the position a ply left.
    fn payoff(&mut self, after: &Position) -> f64 {
        let w = self.value(&predictor::side_view(after, Color::White), 1);
        let b = self.value(&predictor::side_view(after, Color::Black), 1);
        (f64::from(w) - f64::from(b)) / 2.0
    }

    /// The primaries of `side` worth considering, best first, at most `k` plus king captures.
    fn candidates(&mut self, pos: &Position, side: Color, k: usize) -> Vec<Move> {
        let view = predictor::side_view(pos, side);
        let captures = predictor::king_captures(&view);
        let mut scored: Vec<(Value, Move)> = Vec::new();
        for m in view.legal_moves().iter().copied() {
            let mut after = view.clone();
            after.play_unchecked(m);
            let v = -self.value(&after, 0);
            scored.push((v, m));
        }
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        let mut out: Vec<Move> = captures;
        out.extend(scored.into_iter().map(|(_, m)| m).filter(|m| m.kind() != rules::MoveKind::EnPassant).take(k));
        out.dedup();
        out
    }

    /// The orders of `side` in `pos` within about `budget`.
    pub fn choose(&mut self, pos: &Position, side: Color, budget: Duration) -> Option<Orders> {
        self.searches = 0;
        let view = predictor::side_view(pos, side);
        if self.style == Style::Baseline {
            let best = self.engine.search(view.clone(), &[], Limits::movetime(budget), |_| {}).best;
            let primary = best.or_else(|| predictor::king_captures(&view).first().copied())?;
            return Some(Orders { primary, conditional: None });
        }
        let started = Instant::now();
        // Candidates, as many as the budget allows (a first estimate from the move count).
        let n_moves = view.legal_moves().len().max(1);
        let k = (budget.as_millis() as usize / 25).clamp(CANDIDATES.0, CANDIDATES.1).min(n_moves);
        let ours = self.candidates(pos, side, k);
        let theirs = self.candidates(pos, !side, k);
        if ours.is_empty() {
            return None;
        }
        if theirs.is_empty() {
            return Some(Orders { primary: ours[0], conditional: None });
        }
        let sign = if side == Color::White { 1.0 } else { -1.0 };
        // payoff[i][j]: our i-th primary against their j-th, for us.
        let mut payoff = vec![vec![0.0; theirs.len()]; ours.len()];
        let mut resolved = vec![vec![None; theirs.len()]; ours.len()];
        for (i, &a) in ours.iter().enumerate() {
            for (j, &b) in theirs.iter().enumerate() {
                let (w, bl) = if side == Color::White { (a, b) } else { (b, a) };
                let o = |m| Orders { primary: m, conditional: None };
                if let Ok((after, _)) = predictor::resolve(pos, &o(w), &o(bl)) {
                    payoff[i][j] = sign * self.payoff(&after);
                    resolved[i][j] = Some(after);
                }
            }
        }
        let (mine, enemy) = solve_matrix(&payoff, 2000);
        let pick = sample(&mine, &mut self.rng);
        let primary = ours[pick];
        // The conditional: against the enemy's most likely primary, the best response, if it
        // improves on the primary alone and time allows.
        let likely = (0..enemy.len()).max_by(|&x, &y| enemy[x].total_cmp(&enemy[y])).unwrap_or(0);
        let predicted = theirs[likely];
        let mut orders = Orders { primary, conditional: None };
        let alone = payoff[pick][likely];
        let mut best = alone + 30.0;
        for response in view.legal_moves().iter().copied() {
            if started.elapsed() > budget {
                break;
            }
            let candidate = Orders { primary, conditional: Some(Conditional { prediction: predicted, response }) };
            if candidate.validate(pos, side).is_err() {
                continue;
            }
            let other = Orders { primary: predicted, conditional: None };
            let (w, b) = if side == Color::White { (&candidate, &other) } else { (&other, &candidate) };
            if let Ok((after, _)) = predictor::resolve(pos, w, b) {
                let v = sign * self.payoff(&after);
                if v > best {
                    best = v;
                    orders = candidate;
                }
            }
        }
        Some(orders)
    }
}

/// An index drawn with the given probabilities.
fn sample(p: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let x: f64 = rng.gen();
    let mut acc = 0.0;
    for (i, &q) in p.iter().enumerate() {
        acc += q;
        if x < acc {
            return i;
        }
    }
    p.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 0.02)
    }

    #[test]
    fn regret_matching_finds_known_equilibria() {
        // Matching pennies: 1/2, 1/2.
        let (r, c) = solve_matrix(&[vec![1.0, -1.0], vec![-1.0, 1.0]], 20_000);
        assert!(close(&r, &[0.5, 0.5]) && close(&c, &[0.5, 0.5]), "{r:?} {c:?}");
        // Rock-paper-scissors: a third each.
        let rps = [vec![0.0, -1.0, 1.0], vec![1.0, 0.0, -1.0], vec![-1.0, 1.0, 0.0]];
        let (r, c) = solve_matrix(&rps, 20_000);
        assert!(close(&r, &[1.0 / 3.0; 3]) && close(&c, &[1.0 / 3.0; 3]), "{r:?} {c:?}");
        // A saddle point: row 1 and column 0, played purely.
        let (r, c) = solve_matrix(&[vec![1.0, 5.0], vec![3.0, 4.0]], 20_000);
        assert!(r[1] > 0.98 && c[0] > 0.98, "{r:?} {c:?}");
    }

    #[test]
    fn orders_are_always_valid() {
        let v = rules::variants::predictor::variant();
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut player = PredictorPlayer::new(Style::Mixed, 1);
        let mut game = rules::predictor::game::PredictorGame::new(Position::start(v));
        for _ in 0..12 {
            if game.outcome().is_some() {
                break;
            }
            let pos = game.position().clone();
            let w = player.choose(&pos, Color::White, Duration::from_millis(30)).expect("orders");
            w.validate(&pos, Color::White).expect("valid White orders");
            let b = player.choose(&pos, Color::Black, Duration::from_millis(30)).expect("orders");
            b.validate(&pos, Color::Black).expect("valid Black orders");
            // Keep the game varied: sometimes a random Black primary.
            let b = if rng.gen_bool(0.3) {
                let view = predictor::side_view(&pos, Color::Black);
                let moves: Vec<Move> =
                    view.legal_moves().iter().copied().filter(|m| m.kind() != rules::MoveKind::EnPassant).collect();
                Orders { primary: moves[rng.gen_range(0..moves.len())], conditional: None }
            } else {
                b
            };
            game.play(&w, &b, None).expect("a ply");
        }
    }

    #[test]
    fn a_trapped_queen_is_taken_whatever_the_enemy_does() {
        // Black's queen on a8 has no move (its own bishop and pawns box it in) and nothing Black
        // plays crosses the knight's Z c7-b7-b8-a8 (a knight on b8 would: its own Z to c6 passes
        // b7): Nxa8 wins the queen against every primary, even ...Bxc7, which finds c7 empty.
        let v = rules::variants::predictor::variant();
        let pos = Position::from_fen(v, "qb5k/ppN5/8/8/8/8/8/4K3 w - - 0 1").expect("fen");
        let mut taken = 0;
        for seed in 0..10 {
            let mut player = PredictorPlayer::new(Style::Mixed, seed);
            let o = player.choose(&pos, Color::White, Duration::from_millis(50)).expect("orders");
            taken += usize::from(o.primary.to().to_string() == "a8");
        }
        assert!(taken >= 9, "took the queen {taken} times of 10");
    }
}
