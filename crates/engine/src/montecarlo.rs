//! The `montecarlo` AI level: the Probabilistic-chess seed's older player, kept for comparison.
//! Candidates come from a probability-blind search; each is scored by seeded random playouts.
//!
//! The seed: "ran several simulations using Stockfish's top moves to determine the best move
//! based on average scores". Here the candidates are the blind engine's choice plus the moves
//! with the best static value after them; a playout rolls the candidate's dice, then lets both
//! sides play greedily (best static value, a king capture first) for a few plies with every
//! roll drawn from the level's seeded stream, and scores the end from the mover's side.

use crate::eval::Evaluator;
use crate::params::SearchParams;
use crate::score::Value;
use crate::time::Limits;
use crate::Engine;
use rand_chacha::ChaCha8Rng;
use rules::{Color, Move, Position};
use std::sync::Arc;
use std::time::Instant;

/// The value of a captured king in a playout's score.
const KING_VALUE: Value = 3_000;
/// The share of the budget (in tenths) the blind engine gets before the playouts.
const BLIND_SHARE: u32 = 3;

/// The Monte Carlo player.
pub struct MonteCarlo {
    engine: Engine,
    rng: ChaCha8Rng,
    /// Moves compared by playouts.
    pub candidates: usize,
    /// Plies played in a playout after the candidate.
    pub horizon: usize,
}

impl MonteCarlo {
    /// A player whose playouts draw from `seed`.
    pub fn new(seed: u64) -> MonteCarlo {
        MonteCarlo { engine: Engine::with_hash(16), rng: rules::chance::seeded_rng(seed), candidates: 5, horizon: 6 }
    }

    /// The move for `pos` (reached after the positions hashed in `game`) within `limits`
    /// (`movetime` or `nodes`; with neither, the blind search goes to depth 4 and 64 playouts
    /// run per candidate). `None` only when there is no move.
    pub fn choose(&mut self, pos: &Position, game: &[u64], limits: Limits) -> Option<Move> {
        let moves = pos.legal_moves();
        match moves.len() {
            0 => return None,
            1 => return Some(moves[0]),
            _ => {}
        }
        let start = Instant::now();
        let v = pos.variant();
        // Step 1. The blind engine's move, on a share of the budget.
        let mut blind = Limits {
            movetime: limits.movetime.map(|t| t * BLIND_SHARE / 10),
            nodes: limits.nodes.map(|n| n * u64::from(BLIND_SHARE) / 10),
            ..Limits::default()
        };
        if blind.movetime.is_none() && blind.nodes.is_none() {
            blind.depth = Some(4);
        }
        self.engine.set_params(Some(SearchParams::blind(v)));
        let engine_best = self.engine.search(pos.clone(), game, blind, |_| {}).best;
        let eval = self.engine.evaluator(v);
        let us = pos.turn();

        // Step 2. Candidates: the engine's move, then the best by static value after the move.
        let mut scored: Vec<(Value, Move)> = moves
            .iter()
            .map(|&m| {
                let mut c = pos.clone();
                c.play_unchecked(m);
                (score(&c, us, &eval), m)
            })
            .collect();
        scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        let mut candidates: Vec<Move> = engine_best.into_iter().collect();
        for &(_, m) in &scored {
            if candidates.len() >= self.candidates {
                break;
            }
            if !candidates.contains(&m) {
                candidates.push(m);
            }
        }

        // Step 3. Playouts, round robin, until the budget is spent.
        let mut sums = vec![0i64; candidates.len()];
        let mut runs = 0u32;
        let mut nodes = 0u64;
        let node_budget = limits.nodes.map(|n| n * u64::from(10 - BLIND_SHARE) / 10);
        loop {
            for (i, &m) in candidates.iter().enumerate() {
                let (value, n) = self.playout(pos, m, us, &eval);
                sums[i] += i64::from(value);
                nodes += n;
            }
            runs += 1;
            let done = match (limits.movetime, node_budget) {
                (Some(t), _) => start.elapsed() >= t,
                (None, Some(n)) => nodes >= n,
                (None, None) => runs >= 64,
            };
            if done {
                break;
            }
        }
        let best = (0..candidates.len()).max_by_key(|&i| (sums[i], std::cmp::Reverse(i)))?;
        Some(candidates[best])
    }

    /// One playout of `m`: its dice, then greedy play for the horizon. Returns the score from
    /// `us`'s side and the positions evaluated.
    fn playout(&mut self, pos: &Position, m: Move, us: Color, eval: &Arc<Evaluator>) -> (Value, u64) {
        let mut p = pos.clone();
        p.play_sampled(m, &mut self.rng);
        let mut nodes = 0u64;
        for _ in 0..self.horizon {
            if p.king_lost() || p.outcome().is_some() {
                break;
            }
            let moves = p.legal_moves();
            let mover = p.turn();
            let mut best: Option<(Value, Move)> = None;
            for &m in &moves {
                let mut c = p.clone();
                c.play_unchecked(m);
                nodes += 1;
                let s = score(&c, mover, eval);
                if best.is_none_or(|(b, _)| s > b) {
                    best = Some((s, m));
                }
            }
            let Some((_, m)) = best else { break };
            p.play_sampled(m, &mut self.rng);
        }
        (score(&p, us, eval), nodes + 1)
    }
}

/// The static value of `pos` from `side`'s view; a captured king decides.
fn score(pos: &Position, side: Color, eval: &Evaluator) -> Value {
    let v = pos.variant();
    if let Some(k) = v.king() {
        let has = |c: Color| pos.board().pieces(c, k).any();
        match (has(side), has(!side)) {
            (true, false) => return KING_VALUE,
            (false, _) => return -KING_VALUE,
            _ => {}
        }
    }
    let e = eval.evaluate(pos).clamp(-KING_VALUE + 1, KING_VALUE - 1);
    if pos.turn() == side {
        e
    } else {
        -e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::variants::probabilistic;

    #[test]
    fn it_takes_a_sure_king_capture() {
        let v = rules::variants::by_name("probabilistic").expect("listed");
        let map = rules::square_map::SquareMap::uniform(100).to_string();
        let pos = Position::from_fen(v, &format!("4k3/8/8/8/8/8/4q3/4K3 b - - 0 1 {map}")).expect("valid");
        let mut mc = MonteCarlo::new(1);
        let m = mc.choose(&pos, &[], Limits::nodes(2_000)).expect("a move");
        assert_eq!(rules::uci::to_uci(&pos, m), "e2e1");
    }

    #[test]
    fn a_seed_gives_the_same_moves() {
        let v = rules::variants::by_name("probabilistic").expect("listed");
        let pos = probabilistic::start(v, &probabilistic::random_map(v, &mut rules::chance::seeded_rng(4)));
        let pick = || MonteCarlo::new(9).choose(&pos, &[], Limits::nodes(5_000));
        assert_eq!(pick(), pick());
    }
}
