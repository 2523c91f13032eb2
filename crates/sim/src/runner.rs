//! The Monte Carlo runner: plays seeded games of any variant with a strategy per side,
//! in parallel with rayon, and counts them into an exact [`Tally`].
//!
//! Reproducibility: game `i` of seed `s` draws every random number from its own ChaCha8
//! stream (`seed_from_u64(s)` then `set_stream(i)`), so a game depends only on `(s, i)`,
//! never on which thread played it or on what other games were played. Tallies are summed
//! with integer arithmetic, so the total does not depend on the thread count either. In
//! Probabilistic chess a game's probability map is the first thing drawn from its stream; where
//! the run draws each game's start ([`StartDraw`]: a Chess960 start, a SnowFall percentage), so
//! is that.

use crate::baby::BabyKernel;
use crate::strategy::{Player, Strategy};
use crate::tally::Tally;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rules::chance::{ChanceRule, Event};
use rules::outcome::{EndReason, Outcome};
use rules::variant::WinCondition;
use rules::variants::{chess960, probabilistic, snowfall};
use rules::{Color, Move, MoveList, Position, Variant};
use std::fmt;

/// How a game ended, from White's side of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// White won.
    WhiteWin,
    /// Black won.
    BlackWin,
    /// A draw.
    Draw,
    /// Stopped by the `max_plies` safety cap before the rules ended it.
    Unfinished,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ending {
    /// Checkmate.
    Checkmate,
    /// Stalemate.
    Stalemate,
    /// A royal piece was captured.
    KingCaptured,
    /// The fifty-move rule.
    FiftyMoves,
    /// Threefold repetition.
    Repetition,
    /// Insufficient material.
    InsufficientMaterial,
    /// The variant's ply limit, adjudicated on material (Probabilistic chess).
    PlyLimit,
    /// The `max_plies` cap (the game is unfinished).
    MaxPlies,
}

/// One played game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameRecord {
    /// The result.
    pub result: GameResult,
    /// Why it ended.
    pub ending: Ending,
    /// Plies played (a move whose chance outcome was failure counts as a ply).
    pub plies: u32,
    /// Whether White, Black promoted a pawn at least once (a promotion move played).
    pub promoted: [bool; 2],
    /// What the game drew for its start ([`RunConfig::draw`]): its Chess960 start's number or
    /// its SnowFall percentage; `None` where the run draws nothing.
    pub drawn: Option<u16>,
}

/// What every game of a run draws for its start, from its own stream, as a game of the
/// variant does when it is created (besides Probabilistic chess's map, [`RunConfig::random_maps`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartDraw {
    /// Chess960 and crazyhouse960: one of the 960 start positions, uniformly
    /// (`chess960::random_start`); the game's number is its start's.
    Chess960,
    /// SnowFall: the game's percentage, uniformly from 10 to 24 (`snowfall::draw_percent`).
    SnowfallPercent,
}

impl StartDraw {
    /// What a game of `v` played from the variant's start draws: Chess960's start position;
    /// nothing else (a SnowFall percentage is drawn where none was chosen, which `v` cannot say).
    pub fn of(v: &Variant) -> Option<StartDraw> {
        chess960::is_chess960(v).then_some(StartDraw::Chess960)
    }
}

/// Which of a run's games a process plays: games whose index is `index` modulo `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// The whole run as one shard.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count` (`index < count`).
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::ZeroCount);
        }
        if index >= count {
            return Err(ShardError::IndexTooLarge { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The first game index at or after `from` that belongs to this shard.
    fn first_at_or_after(&self, from: u64) -> u64 {
        let (n, i) = (u64::from(self.count), u64::from(self.index));
        from + (i + n - from % n) % n
    }

    /// How many of the games `from..to` belong to this shard.
    pub fn games_in(&self, from: u64, to: u64) -> u64 {
        let first = self.first_at_or_after(from);
        if first >= to {
            0
        } else {
            (to - first - 1) / u64::from(self.count) + 1
        }
    }
}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    /// `i/N` with `0 <= i < N` (zero-based, as Kubernetes' `JOB_COMPLETION_INDEX`).
    ///
    /// ```
    /// use sim::runner::Shard;
    /// assert_eq!("1/4".parse::<Shard>().unwrap(), Shard { index: 1, count: 4 });
    /// assert!("4/4".parse::<Shard>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let (i, n) = s.split_once('/').ok_or_else(|| ShardError::Syntax(s.to_string()))?;
        let i: u32 = i.trim().parse().map_err(|_| ShardError::Syntax(s.to_string()))?;
        let n: u32 = n.trim().parse().map_err(|_| ShardError::Syntax(s.to_string()))?;
        Shard::new(i, n)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A bad shard specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    /// Not `i/N`.
    #[error("shard '{0}' is not of the form i/N (e.g. 0/4; shards are numbered from 0)")]
    Syntax(String),
    /// `N` is zero.
    #[error("shard count must be at least 1")]
    ZeroCount,
    /// `i >= N`.
    #[error("shard {index}/{count}: the index must be below the count (shards are numbered 0 to {})", count - 1)]
    IndexTooLarge {
        /// Given index.
        index: u32,
        /// Given count.
        count: u32,
    },
}

/// What to simulate: the start position, a strategy per side, the seed and the safety cap.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Every game starts here (with its own probability map if `random_maps`).
    pub start: Position,
    /// Probabilistic chess: every game draws its own probability map (RULINGS § Probabilistic
    /// chess, 1: [`probabilistic::random_map`]) from its own stream before its first move,
    /// replacing `start`'s. False: every game is played on `start`'s map (a given position).
    pub random_maps: bool,
    /// White's strategy.
    pub white: Strategy,
    /// Black's strategy.
    pub black: Strategy,
    /// The seed all game streams derive from.
    pub seed: u64,
    /// Stop a game after this many plies and count it as unfinished (`None`: only the
    /// variant's own rules end games).
    pub max_plies: Option<u32>,
    /// What every game draws for its start (`None`: every game starts from `start`).
    pub draw: Option<StartDraw>,
}

impl RunConfig {
    /// Random against random from the variant's start position, without a cap; in
    /// Probabilistic chess every game on its own random map, in Chess960 from its own start.
    pub fn new(variant: &'static Variant, seed: u64) -> RunConfig {
        RunConfig {
            start: Position::start(variant),
            random_maps: probabilistic::options(variant).is_some(),
            white: Strategy::Random,
            black: Strategy::Random,
            seed,
            max_plies: None,
            draw: StartDraw::of(variant),
        }
    }

    /// Random against random from `start` (its probability map too, in every game), without a cap.
    pub fn from_position(start: Position, seed: u64) -> RunConfig {
        RunConfig {
            start,
            random_maps: false,
            white: Strategy::Random,
            black: Strategy::Random,
            seed,
            max_plies: None,
            draw: None,
        }
    }

    /// The variant.
    pub fn variant(&self) -> &'static Variant {
        self.start.variant()
    }

    /// The start position as FEN; with `random_maps` without the map (the seventh field),
    /// which every game draws for itself.
    pub fn start_fen(&self) -> String {
        let fen = self.start.fen();
        match fen.rsplit_once(' ') {
            Some((placement, _map)) if self.random_maps => placement.to_string(),
            _ => fen,
        }
    }

    /// The start of a game whose random stream is `rng`: `start`, with its own probability map
    /// drawn first from `rng` if `random_maps` ([`probabilistic::random_map`]).
    ///
    /// ```
    /// use sim::runner::{game_rng, RunConfig};
    /// let cfg = RunConfig::new(rules::variants::by_name("probabilistic").unwrap(), 1);
    /// let fen = |seed, game| cfg.game_start(&mut game_rng(seed, game)).fen();
    /// assert_ne!(fen(1, 0), fen(99, 0));
    /// assert_ne!(fen(1, 0), fen(1, 1));
    /// ```
    pub fn game_start<R: rand::RngCore + ?Sized>(&self, rng: &mut R) -> Position {
        self.drawn_start(rng).0
    }

    /// [`RunConfig::game_start`], with what the game drew for it ([`RunConfig::draw`]): then
    /// the start is the drawn Chess960 position, or `start` in the drawn SnowFall percentage's
    /// variant.
    ///
    /// ```
    /// use sim::runner::{game_rng, RunConfig, StartDraw};
    /// let snowfall = rules::variants::by_name("snowfall").unwrap();
    /// let cfg = RunConfig { draw: Some(StartDraw::SnowfallPercent), ..RunConfig::new(snowfall, 1) };
    /// let (pos, drawn) = cfg.drawn_start(&mut game_rng(1, 0));
    /// let percent = drawn.unwrap();
    /// assert!((10..=24).contains(&percent));
    /// assert_eq!(rules::variants::snowfall::percent(pos.variant()), Some(percent as u8));
    /// ```
    pub fn drawn_start<R: rand::RngCore + ?Sized>(&self, rng: &mut R) -> (Position, Option<u16>) {
        let mut pos = self.start.clone();
        if self.random_maps {
            pos.set_square_map(&probabilistic::random_map(self.variant(), rng));
        }
        let drawn = match self.draw {
            None => None,
            Some(StartDraw::Chess960) => {
                let (n, fen) = chess960::random_start(self.variant(), rng);
                pos = Position::from_fen(self.variant(), &fen).expect("a Chess960 start is legal");
                Some(n)
            }
            Some(StartDraw::SnowfallPercent) => {
                let p = snowfall::draw_percent(rng);
                pos = Position::from_fen(snowfall::variant(p), &self.start.fen())
                    .expect("a SnowFall position is one in every percentage");
                Some(u16::from(p))
            }
        };
        (pos, drawn)
    }

    /// Whether the games are independent trials: false when both strategies are deterministic
    /// and nothing in the game is left to chance, so every game repeats the first one.
    ///
    /// ```
    /// use sim::{RunConfig, Strategy};
    /// let baby = rules::variants::by_name("baby").unwrap();
    /// let engine: Strategy = "engine:depth=1".parse().unwrap();
    /// assert!(RunConfig::new(baby, 1).games_independent());
    /// assert!(!RunConfig { white: engine, black: engine, ..RunConfig::new(baby, 1) }.games_independent());
    /// ```
    pub fn games_independent(&self) -> bool {
        let chance = self.variant().chance != ChanceRule::None || self.random_maps || self.draw.is_some();
        chance || !self.white.is_deterministic() || !self.black.is_deterministic()
    }

    /// Whether the game loop must keep position hashes (repetition or an engine player).
    fn needs_history(&self) -> bool {
        self.variant().draws.repetition
            || matches!(self.white, Strategy::Engine(_))
            || matches!(self.black, Strategy::Engine(_))
    }
}

/// The random stream of game `index` under `seed`.
///
/// ```
/// use rand::RngCore;
/// let mut a = sim::runner::game_rng(7, 3);
/// let mut b = sim::runner::game_rng(7, 3);
/// assert_eq!(a.next_u64(), b.next_u64());
/// ```
pub fn game_rng(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// Buffers a thread reuses from game to game, so the game loop does not allocate.
pub struct Scratch {
    players: [Player; 2],
    moves: MoveList,
    history: Vec<u64>,
}

impl Scratch {
    /// Buffers and players for `cfg`.
    pub fn new(cfg: &RunConfig) -> Scratch {
        Scratch {
            players: [Player::new(cfg.white), Player::new(cfg.black)],
            moves: MoveList::new(),
            history: Vec::with_capacity(512),
        }
    }
}

/// Game `index` of `cfg` replayed whole, for its record: the start position (its own square
/// map where the run draws one per game), every move with its chance outcome, and the result.
pub fn replay_game(cfg: &RunConfig, index: u64) -> (Position, Vec<(Move, Event)>, GameRecord) {
    let start = cfg.game_start(&mut game_rng(cfg.seed, index));
    let mut line = Vec::new();
    let record = play_game(cfg, index, &mut Scratch::new(cfg), Some(&mut line));
    (start, line, record)
}

/// Plays game `index` of `cfg`. If `line` is given, the moves played are appended to it, each
/// with its chance outcome ([`Event::Success`] where nothing is left to chance).
pub fn play_game(
    cfg: &RunConfig,
    index: u64,
    scratch: &mut Scratch,
    mut line: Option<&mut Vec<(Move, Event)>>,
) -> GameRecord {
    let mut rng = game_rng(cfg.seed, index);
    let (mut pos, drawn) = cfg.drawn_start(&mut rng);
    let v = pos.variant();
    let track = cfg.needs_history();
    let chance = v.chance != ChanceRule::None;
    let Scratch { players, moves, history } = scratch;
    history.clear();
    if track {
        history.push(pos.hash());
    }
    let mut plies = 0u32;
    let mut promoted = [false; 2];
    loop {
        // Step 1. The legal moves, which also decide mate and stalemate.
        moves.clear();
        pos.gen_legal(moves);
        // Step 2. Has the game ended by the rules?
        let outcome = judge(&pos, moves.is_empty(), track.then_some(&history[..]));
        debug_assert_eq!(outcome, reference_outcome(&pos, track.then_some(&history[..])));
        if let Some(o) = outcome {
            let (result, ending) = classify(o);
            return GameRecord { result, ending, plies, promoted, drawn };
        }
        // Step 3. The safety cap.
        if cfg.max_plies.is_some_and(|cap| plies >= cap) {
            return GameRecord { result: GameResult::Unfinished, ending: Ending::MaxPlies, plies, promoted, drawn };
        }
        // Step 4. Choose and play.
        let us = pos.turn();
        let earlier = if track { &history[..history.len() - 1] } else { &[][..] };
        let m = players[us.index()].choose(&pos, moves, earlier, &mut rng);
        let event = if chance {
            pos.play_sampled(m, &mut rng)
        } else {
            pos.play_unchecked(m);
            Event::Success
        };
        if event != Event::Failure && m.promotion_role().is_some() {
            promoted[us.index()] = true;
        }
        if let Some(line) = line.as_deref_mut() {
            line.push((m, event));
        }
        plies += 1;
        if track {
            history.push(pos.hash());
        }
    }
}

/// The outcome of `pos` by the variant's rules, given whether the side to move has a
/// legal move (already known from the move list: [`Position::outcome`] would generate
/// the moves a second time) and, where repetition counts, the game's hashes (current last).
/// Mirrors `Position::outcome` and `Game::outcome`; debug builds check every ply against them.
fn judge(pos: &Position, no_moves: bool, history: Option<&[u64]>) -> Option<Outcome> {
    let v = pos.variant();
    let us = pos.turn();
    if v.win == WinCondition::KingCapture && v.king().is_some() {
        for c in [us, !us] {
            if pos.king_square(c).is_none() {
                return Some(Outcome::Decisive { winner: !c, reason: EndReason::KingCaptured });
            }
        }
    }
    if let Some(o) = pos.ply_limit_outcome() {
        return Some(o);
    }
    if no_moves {
        if v.win == WinCondition::Checkmate && pos.is_check() {
            return Some(Outcome::Decisive { winner: !us, reason: EndReason::Checkmate });
        }
        return Some(Outcome::Draw { reason: EndReason::Stalemate });
    }
    if pos.is_insufficient_material() {
        return Some(Outcome::Draw { reason: EndReason::InsufficientMaterial });
    }
    if v.draws.fifty_move && pos.halfmoves() >= 100 {
        return Some(Outcome::Draw { reason: EndReason::FiftyMoves });
    }
    if v.draws.repetition {
        if let Some(h) = history.filter(|h| !h.is_empty()) {
            if repetitions(pos, h) >= 3 {
                return Some(Outcome::Draw { reason: EndReason::Repetition });
            }
        }
    }
    None
}

/// How often the current position (the last hash) occurred since the last irreversible move.
/// The hash includes the side to move, so only every second position can match: the scan
/// steps by two from the current one (the same count as `Game::repetitions`, half the work).
fn repetitions(pos: &Position, history: &[u64]) -> usize {
    let h = pos.hash();
    let window = (pos.halfmoves() as usize + 1).min(history.len());
    if window < 5 {
        // A third occurrence needs at least four earlier plies (two passes and two
        // passes back, in a chance variant where failed moves pass the turn).
        return 1;
    }
    history[history.len() - window..].iter().rev().step_by(2).filter(|&&x| x == h).count()
}

/// The rules crate's own judgement, for the debug check of [`judge`].
fn reference_outcome(pos: &Position, history: Option<&[u64]>) -> Option<Outcome> {
    if let Some(o) = pos.outcome() {
        return Some(o);
    }
    let h = history?;
    let window = (pos.halfmoves() as usize + 1).min(h.len());
    let plain = h[h.len() - window.max(1).min(h.len())..].iter().filter(|&&x| x == pos.hash()).count();
    if pos.variant().draws.repetition && !h.is_empty() && plain >= 3 {
        return Some(Outcome::Draw { reason: EndReason::Repetition });
    }
    None
}

/// Result and ending of a rules outcome.
pub fn classify(o: Outcome) -> (GameResult, Ending) {
    let (result, reason) = match o {
        Outcome::Decisive { winner: Color::White, reason } => (GameResult::WhiteWin, reason),
        Outcome::Decisive { winner: Color::Black, reason } => (GameResult::BlackWin, reason),
        Outcome::Draw { reason } => (GameResult::Draw, reason),
    };
    let ending = match reason {
        EndReason::Checkmate => Ending::Checkmate,
        EndReason::Stalemate => Ending::Stalemate,
        EndReason::KingCaptured => Ending::KingCaptured,
        EndReason::FiftyMoves => Ending::FiftyMoves,
        EndReason::Repetition => Ending::Repetition,
        EndReason::InsufficientMaterial => Ending::InsufficientMaterial,
        EndReason::PlyLimit => Ending::PlyLimit,
        // Only a person or a clock ends a game so (time, forfeit, resignation, agreement), and
        // a reason the rules add later must be given its own ending here: a simulation's games
        // never end so.
        _ => unreachable!("a simulated game ended by {reason:?}"),
    };
    (result, ending)
}

/// Games per parallel task (chunking never changes a result: tallies add exactly).
fn chunk_size(games: u64) -> u64 {
    (games / 64).clamp(1, 2048)
}

/// Plays the games `from..to` that belong to `shard`, in parallel on the current rayon
/// pool, calling `progress` with the number of games finished after every chunk.
pub fn run_range(cfg: &RunConfig, from: u64, to: u64, shard: Shard, progress: &(dyn Fn(u64) + Sync)) -> Tally {
    let first = shard.first_at_or_after(from);
    let count = shard.games_in(from, to);
    let step = u64::from(shard.count);
    let chunk = chunk_size(count);
    let chunks = count.div_ceil(chunk);
    // Baby Chess between random players takes the dedicated kernel: the same games, faster.
    let kernel = BabyKernel::for_config(cfg);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut tally = Tally::default();
            let lo = c * chunk;
            let hi = (lo + chunk).min(count);
            if let Some(kernel) = &kernel {
                for k in lo..hi {
                    tally.record(&kernel.play(first + k * step, None));
                }
            } else {
                let mut scratch = Scratch::new(cfg);
                for k in lo..hi {
                    let g = play_game(cfg, first + k * step, &mut scratch, None);
                    tally.record(&g);
                }
            }
            progress(hi - lo);
            tally
        })
        .reduce(Tally::default, Tally::merged)
}

/// Plays games `0..games` of `shard` (all of them with [`Shard::ALL`]).
pub fn run(cfg: &RunConfig, games: u64, shard: Shard, progress: &(dyn Fn(u64) + Sync)) -> Tally {
    run_range(cfg, 0, games, shard, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_games() {
        for n in 1..6u32 {
            for (from, to) in [(0u64, 0u64), (0, 1), (0, 17), (5, 23), (7, 8)] {
                let total: u64 = (0..n).map(|i| Shard { index: i, count: n }.games_in(from, to)).sum();
                assert_eq!(total, to - from, "n={n} {from}..{to}");
                for i in 0..n {
                    let s = Shard { index: i, count: n };
                    let direct = (from..to).filter(|g| g % u64::from(n) == u64::from(i)).count() as u64;
                    assert_eq!(s.games_in(from, to), direct);
                }
            }
        }
    }

    #[test]
    fn bad_shards_are_rejected() {
        assert_eq!("3/2".parse::<Shard>(), Err(ShardError::IndexTooLarge { index: 3, count: 2 }));
        assert_eq!("0/0".parse::<Shard>(), Err(ShardError::ZeroCount));
        assert!(matches!("x".parse::<Shard>(), Err(ShardError::Syntax(_))));
        assert!(matches!("-1/2".parse::<Shard>(), Err(ShardError::Syntax(_))));
    }
}
