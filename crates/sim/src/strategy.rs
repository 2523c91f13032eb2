//! Strategies that choose a move for one side: uniform over legal moves, a random piece
//! then one of its moves, or the engine at a fixed depth or node count; parsed from text.
//!
//! A [`Strategy`] is a plain value (what the user asked for); a [`Player`] is its running
//! form, owning the engine state an engine strategy needs. Randomness always comes from the
//! caller's generator, so a game's moves depend only on its seeded stream.

use engine::{Engine, Limits};
use rand::Rng;
use rules::{Move, MoveList, Position, MAX_ROLES};
use std::fmt;
use std::str::FromStr;

/// How a side chooses its moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Uniform over all legal moves (`random`).
    Random,
    /// Uniform over the pieces that have a legal move, then uniform over that piece's moves
    /// (`random-piece`). A piece is identified by its square; every role in hand that can be
    /// dropped counts as one more "piece" whose moves are its drops. Each promotion choice is
    /// a move of its own, as is castling (a move of the king).
    RandomPiece,
    /// The engine's search with a fixed depth (`engine:depth=N`) or node budget
    /// (`engine:nodes=N`). Deterministic given the game so far: the engine forgets
    /// everything before each search.
    Engine(EngineLimit),
}

/// The bound of an engine strategy's search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EngineLimit {
    /// Plies of nominal depth.
    Depth(u32),
    /// Nodes.
    Nodes(u64),
}

/// A strategy text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StrategyError {
    /// Nothing given.
    #[error("empty strategy (use random, random-piece, engine:depth=N or engine:nodes=N)")]
    Empty,
    /// An unknown name.
    #[error("unknown strategy '{0}' (use random, random-piece, engine:depth=N or engine:nodes=N)")]
    Unknown(String),
    /// `engine` without its limit.
    #[error("strategy '{0}' needs a limit: engine:depth=N or engine:nodes=N")]
    MissingLimit(String),
    /// An unknown engine parameter.
    #[error("unknown engine parameter '{0}' (use depth=N or nodes=N)")]
    UnknownParameter(String),
    /// A parameter without `=value` or with an empty value.
    #[error("engine parameter '{0}' needs a value, e.g. {0}=3")]
    MissingValue(String),
    /// A value that is not a positive whole number.
    #[error("engine parameter {name}={value}: the value must be a positive whole number")]
    BadValue {
        /// The parameter.
        name: String,
        /// What was given.
        value: String,
    },
    /// A zero value.
    #[error("engine parameter {0}=0: the value must be at least 1")]
    Zero(String),
    /// A depth deeper than the engine searches.
    #[error("engine parameter depth={0}: at most {MAX_DEPTH}")]
    TooDeep(u64),
    /// `random` or `random-piece` with parameters.
    #[error("strategy '{0}' takes no parameters")]
    UnexpectedParameters(String),
}

/// The deepest `engine:depth=N` a strategy may ask for.
pub const MAX_DEPTH: u32 = 64;

impl Strategy {
    /// Whether the strategy always plays the same move in the same game: it draws nothing
    /// from the game's random stream (the engine forgets everything between searches).
    pub fn is_deterministic(self) -> bool {
        match self {
            Strategy::Random | Strategy::RandomPiece => false,
            Strategy::Engine(_) => true,
        }
    }
}

impl FromStr for Strategy {
    type Err = StrategyError;

    /// Parses `random`, `random-piece`, `engine:depth=N` or `engine:nodes=N` (N ≥ 1).
    ///
    /// ```
    /// use sim::strategy::{EngineLimit, Strategy};
    /// assert_eq!("engine:depth=2".parse(), Ok(Strategy::Engine(EngineLimit::Depth(2))));
    /// assert!("engine:depth=0".parse::<Strategy>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Strategy, StrategyError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(StrategyError::Empty);
        }
        let (name, params) = match s.split_once(':') {
            Some((n, p)) => (n.trim(), Some(p.trim())),
            None => (s, None),
        };
        match name.to_ascii_lowercase().as_str() {
            "random" | "random-piece" => {
                if params.is_some() {
                    return Err(StrategyError::UnexpectedParameters(name.to_string()));
                }
                Ok(if name.eq_ignore_ascii_case("random") { Strategy::Random } else { Strategy::RandomPiece })
            }
            "engine" => {
                let Some(params) = params.filter(|p| !p.is_empty()) else {
                    return Err(StrategyError::MissingLimit(s.to_string()));
                };
                let (key, value) = match params.split_once('=') {
                    Some((k, v)) => (k.trim(), v.trim()),
                    None => (params, ""),
                };
                let key = key.to_ascii_lowercase();
                if key != "depth" && key != "nodes" {
                    return Err(StrategyError::UnknownParameter(key));
                }
                if value.is_empty() {
                    return Err(StrategyError::MissingValue(key));
                }
                let n: u64 = value
                    .parse()
                    .map_err(|_| StrategyError::BadValue { name: key.clone(), value: value.to_string() })?;
                if n == 0 {
                    return Err(StrategyError::Zero(key));
                }
                if key == "depth" {
                    let d = u32::try_from(n).ok().filter(|&d| d <= MAX_DEPTH).ok_or(StrategyError::TooDeep(n))?;
                    Ok(Strategy::Engine(EngineLimit::Depth(d)))
                } else {
                    Ok(Strategy::Engine(EngineLimit::Nodes(n)))
                }
            }
            _ => Err(StrategyError::Unknown(s.to_string())),
        }
    }
}

impl fmt::Display for Strategy {
    /// The canonical text, which parses back to the same strategy.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Random => f.write_str("random"),
            Strategy::RandomPiece => f.write_str("random-piece"),
            Strategy::Engine(EngineLimit::Depth(d)) => write!(f, "engine:depth={d}"),
            Strategy::Engine(EngineLimit::Nodes(n)) => write!(f, "engine:nodes={n}"),
        }
    }
}

/// Transposition table size of an engine player (small: many players run at once).
const ENGINE_HASH_MB: usize = 1;

/// Groups of `random-piece`: 64 board squares, then one per role in hand.
const GROUPS: usize = 64 + MAX_ROLES;

/// A strategy at play: chooses moves, keeping the engine an engine strategy needs.
pub struct Player {
    strategy: Strategy,
    engine: Option<Engine>,
}

impl Player {
    /// A player for `strategy`.
    pub fn new(strategy: Strategy) -> Player {
        Player { strategy, engine: None }
    }

    /// The strategy.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Chooses one of `legal` (the legal moves of `pos`, not empty) drawing randomness from
    /// `rng`. `history` holds the hashes of the game's earlier positions, oldest first (the
    /// engine uses it to see repetitions).
    pub fn choose<R: Rng + ?Sized>(&mut self, pos: &Position, legal: &MoveList, history: &[u64], rng: &mut R) -> Move {
        debug_assert!(!legal.is_empty());
        match self.strategy {
            Strategy::Random => legal[uniform(rng, legal.len())],
            Strategy::RandomPiece => choose_piece_then_move(legal, rng),
            Strategy::Engine(limit) => {
                let engine = self.engine.get_or_insert_with(|| Engine::with_hash(ENGINE_HASH_MB));
                engine.clear();
                let limits = match limit {
                    EngineLimit::Depth(d) => Limits::depth(d),
                    EngineLimit::Nodes(n) => Limits::nodes(n),
                };
                let result = engine.search(pos.clone(), history, limits, |_| {});
                result.best.filter(|m| legal.contains(m)).unwrap_or(legal[0])
            }
        }
    }
}

/// A uniform index in `0..n` (n ≥ 1): rand's `gen_range` on `u32`, an unbiased
/// widening-multiply rejection sampler, stable across platforms.
#[inline]
pub fn uniform<R: Rng + ?Sized>(rng: &mut R, n: usize) -> usize {
    debug_assert!(n > 0 && n <= u32::MAX as usize);
    rng.gen_range(0..n as u32) as usize
}

/// The `random-piece` group of a move: its origin square, or 64 + role for a drop.
#[inline]
fn group(m: Move) -> usize {
    match m.drop_role() {
        Some(r) => 64 + r.0 as usize,
        None => m.from().index(),
    }
}

/// Step 1: count each piece's moves; step 2: pick one of the pieces with moves uniformly
/// (in group order); step 3: pick one of its moves uniformly (in generation order).
fn choose_piece_then_move<R: Rng + ?Sized>(legal: &MoveList, rng: &mut R) -> Move {
    let mut counts = [0u16; GROUPS];
    let mut pieces = 0usize;
    for &m in legal {
        let g = group(m);
        pieces += usize::from(counts[g] == 0);
        counts[g] += 1;
    }
    let mut k = uniform(rng, pieces);
    let mut chosen = 0;
    for (g, &c) in counts.iter().enumerate() {
        if c > 0 {
            if k == 0 {
                chosen = g;
                break;
            }
            k -= 1;
        }
    }
    let mut j = uniform(rng, usize::from(counts[chosen]));
    for &m in legal {
        if group(m) == chosen {
            if j == 0 {
                return m;
            }
            j -= 1;
        }
    }
    legal[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trips() {
        for s in ["random", "random-piece", "engine:depth=3", "engine:nodes=1000"] {
            let st: Strategy = s.parse().expect("parses");
            assert_eq!(st.to_string(), s);
        }
    }

    #[test]
    fn parse_errors_name_the_fault() {
        let cases = [
            ("", StrategyError::Empty),
            ("greedy", StrategyError::Unknown("greedy".into())),
            ("engine", StrategyError::MissingLimit("engine".into())),
            ("engine:", StrategyError::MissingLimit("engine:".into())),
            ("engine:time=3", StrategyError::UnknownParameter("time".into())),
            ("engine:depth", StrategyError::MissingValue("depth".into())),
            ("engine:depth=", StrategyError::MissingValue("depth".into())),
            ("engine:depth=-1", StrategyError::BadValue { name: "depth".into(), value: "-1".into() }),
            ("engine:nodes=x", StrategyError::BadValue { name: "nodes".into(), value: "x".into() }),
            ("engine:depth=0", StrategyError::Zero("depth".into())),
            ("engine:nodes=0", StrategyError::Zero("nodes".into())),
            ("engine:depth=65", StrategyError::TooDeep(65)),
            ("engine:depth=99999999999", StrategyError::TooDeep(99_999_999_999)),
            ("random:depth=2", StrategyError::UnexpectedParameters("random".into())),
        ];
        for (text, err) in cases {
            assert_eq!(text.parse::<Strategy>(), Err(err), "{text:?}");
        }
    }
}
