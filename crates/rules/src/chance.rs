//! Chance outcomes of a move: an exact distribution and a seeded sampler over it.
//! The search (expectimax), the odds explainer and game servers all read the same distribution.

use crate::moves::Move;
use crate::position::Position;
use num_rational::Ratio;
use rand::RngCore;

/// An exact probability.
pub type Probability = Ratio<u64>;

/// A probability as an exact fraction, `7/100` (reports write it so).
pub fn fraction_text(p: Probability) -> String {
    format!("{}/{}", p.numer(), p.denom())
}

/// A probability as a float, for display.
pub fn to_f64(p: Probability) -> f64 {
    *p.numer() as f64 / *p.denom() as f64
}

/// How chance enters a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChanceRule {
    /// Every move does what it says.
    None,
    /// Every move succeeds with probability `numerator / denominator`; on failure
    /// nothing moves and the turn passes (the test variant `coinflip`).
    MoveSuccess {
        /// Numerator.
        numerator: u64,
        /// Denominator.
        denominator: u64,
    },
    /// SnowFall: after every move a gift event happens with `percent` % probability and may
    /// put pieces into both hands (`gift.rs`).
    Gifts {
        /// The game's SnowFall percentage (10..=24 in play; any 0..=100 accepted).
        percent: u8,
    },
    /// Probabilistic chess: a move succeeds with the percentage of its destination square in
    /// the position's map (`square_map.rs`); on failure nothing moves and the turn passes.
    SquareMap {
        /// How king moves are weighed.
        king: KingMoves,
    },
}

/// Probabilistic chess's king-move options (`seeds/probabilistic-chess.txt`, "Variants").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum KingMoves {
    /// King moves succeed with their square's percentage, like every move.
    #[default]
    Normal,
    /// King moves always succeed.
    Always,
    /// King moves succeed at double their square's percentage, at most 100 %.
    Double,
}

/// What happened when a move met chance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Event {
    /// The move was played.
    Success,
    /// The move failed: nothing moved and the turn passed.
    Failure,
    /// The move was played, then a gift event put these pieces into the hands.
    Gift(crate::gift::Gifts),
}

/// A distribution is malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChanceError {
    /// Probabilities do not add up to one.
    #[error("probabilities sum to {0}, not 1")]
    NotNormalised(Probability),
    /// A zero probability or an empty list.
    #[error("a distribution needs outcomes with positive probabilities")]
    Empty,
}

/// A finite distribution over outcomes with exact probabilities summing to 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distribution<T> {
    outcomes: Vec<(T, Probability)>,
}

impl<T> Distribution<T> {
    /// A distribution from outcomes with positive probabilities that sum to 1.
    pub fn new(outcomes: Vec<(T, Probability)>) -> Result<Distribution<T>, ChanceError> {
        if outcomes.is_empty() || outcomes.iter().any(|(_, p)| *p.numer() == 0) {
            return Err(ChanceError::Empty);
        }
        let sum = outcomes.iter().fold(Probability::from_integer(0), |acc, (_, p)| acc + p);
        if sum != Probability::from_integer(1) {
            return Err(ChanceError::NotNormalised(sum));
        }
        Ok(Distribution { outcomes })
    }

    /// The one-outcome distribution.
    pub fn certain(outcome: T) -> Distribution<T> {
        Distribution { outcomes: vec![(outcome, Probability::from_integer(1))] }
    }

    /// Outcomes with their probabilities.
    pub fn outcomes(&self) -> &[(T, Probability)] {
        &self.outcomes
    }

    /// Whether there is a single outcome.
    pub fn is_certain(&self) -> bool {
        self.outcomes.len() == 1
    }

    /// Draws an outcome. Uses only `next_u64` with exact integer arithmetic, so a
    /// seeded ChaCha stream gives the same draws on every platform.
    pub fn sample<R: RngCore + ?Sized>(&self, rng: &mut R) -> &T {
        // Common denominator; the outcome i covers [cum_i, cum_i + p_i * lcm).
        let lcm = self.outcomes.iter().fold(1u128, |acc, (_, p)| {
            let d = u128::from(*p.denom());
            acc / gcd(acc, d) * d
        });
        let x = uniform_below(rng, lcm);
        let mut cum = 0u128;
        for (t, p) in &self.outcomes {
            cum += u128::from(*p.numer()) * (lcm / u128::from(*p.denom()));
            if x < cum {
                return t;
            }
        }
        &self.outcomes[self.outcomes.len() - 1].0
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A uniform integer in `0..n` (n ≥ 1) by rejection from 64-bit draws.
pub fn uniform_below<R: RngCore + ?Sized>(rng: &mut R, n: u128) -> u128 {
    if n <= 1 {
        return 0;
    }
    if n <= u128::from(u64::MAX) {
        let n64 = n as u64;
        let zone = u64::MAX - (u64::MAX % n64 + 1) % n64;
        loop {
            let x = rng.next_u64();
            if x <= zone {
                return u128::from(x % n64);
            }
        }
    }
    loop {
        let x = (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64());
        let zone = u128::MAX - (u128::MAX % n + 1) % n;
        if x <= zone {
            return x % n;
        }
    }
}

/// A seeded ChaCha8 generator, the project's RNG for chance events.
pub fn seeded_rng(seed: u64) -> rand_chacha::ChaCha8Rng {
    use rand::SeedableRng;
    rand_chacha::ChaCha8Rng::seed_from_u64(seed)
}

impl Position {
    /// The chance outcomes of playing `m` (certain success in variants without chance); `m`
    /// must be legal here (not checked, as for [`Position::play_unchecked`]).
    pub fn chance(&self, m: Move) -> Distribution<Event> {
        match self.variant.chance {
            ChanceRule::Gifts { percent } => {
                let mut after = self.clone();
                after.play_unchecked(m);
                crate::gift::distribution(&after, percent)
            }
            ChanceRule::None => Distribution::certain(Event::Success),
            ChanceRule::SquareMap { .. } => {
                let percent = self.success_percent(m);
                if percent >= 100 {
                    Distribution::certain(Event::Success)
                } else if percent == 0 {
                    Distribution::certain(Event::Failure)
                } else {
                    let p = Probability::new(u64::from(percent), 100);
                    Distribution {
                        outcomes: vec![(Event::Success, p), (Event::Failure, Probability::from_integer(1) - p)],
                    }
                }
            }
            ChanceRule::MoveSuccess { numerator, denominator } => {
                let p = Probability::new(numerator, denominator);
                if p >= Probability::from_integer(1) {
                    Distribution::certain(Event::Success)
                } else if *p.numer() == 0 {
                    Distribution::certain(Event::Failure)
                } else {
                    Distribution {
                        outcomes: vec![(Event::Success, p), (Event::Failure, Probability::from_integer(1) - p)],
                    }
                }
            }
        }
    }

    /// Plays `m` with a given chance outcome, without checking `m` ([`Game::play_event`](crate::game::Game::play_event) checks it).
    pub fn play_event(&mut self, m: Move, event: Event) {
        match event {
            Event::Success => self.play_unchecked(m),
            Event::Failure => self.pass_turn(),
            Event::Gift(g) => {
                self.play_unchecked(m);
                self.receive_gifts(g);
            }
        }
    }

    /// Plays `m`, drawing its outcome from `rng`; returns what happened. `m` is not checked
    /// ([`Game::play_sampled`](crate::game::Game::play_sampled) checks it).
    pub fn play_sampled<R: RngCore + ?Sized>(&mut self, m: Move, rng: &mut R) -> Event {
        let event = *self.chance(m).sample(rng);
        self.play_event(m, event);
        event
    }
}
