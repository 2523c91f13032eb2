//! Game review, as lichess's computer analysis judges a game: every position searched, every
//! move judged by the winning chances it gave away (inaccuracy, mistake, blunder, or a lost or
//! conceded forced mate), with each side's average centipawn loss and accuracy.
//!
//! The formulas are lichess's (lila `modules/analyse`): winning chances `2 / (1 + e^(-0.00368208
//! cp)) - 1` with the score clamped to ±1000 centipawns and a mate counted as ±1000
//! (`WinPercent`); a move loses 0.1, 0.2 or 0.3 of them for an inaccuracy, a mistake or a blunder
//! (`Advice`, on moves whose scores before and after are both centipawns); a mate sequence is
//! judged by `MateAdvice`; a move's accuracy is `103.1668 e^(-0.04354 d) - 3.1669 + 1`, `d` the
//! win percentage points lost, clamped to 0..100 (`AccuracyPercent`); a side's accuracy is the
//! mean of the volatility-weighted mean and the harmonic mean of its moves' accuracies.
//!
//! In a variant with chance (SnowFall's gifts, Probabilistic chess's dice) a move is judged by
//! its expected value (the search of the position before it with that move alone), not by the
//! position chance made of it; what chance then did is the move's **luck**: the mover's win
//! percentage after the outcome minus the expected one.

use crate::{Engine, Limits, Score, SearchParams, Value};
use rules::chance::ChanceRule;
use rules::game::Game;
use rules::outcome::Outcome;
use rules::uci::to_uci;
use rules::{Color, Position};
use std::sync::Arc;

/// Scores beyond this many centipawns count as this many (lichess's `Cp.CEILING`).
pub const CP_CEILING: i32 = 1000;

/// A position's evaluation from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns, positive when White is better.
    Cp(i32),
    /// Mate in this many moves, positive when White mates (a game won by mate: ±1).
    Mate(i32),
}

impl Eval {
    /// The evaluation of a searched value, `pov` the side it is from.
    pub fn from_value(v: Value, pov: Color) -> Eval {
        let sign = if pov == Color::White { 1 } else { -1 };
        match Score::from_value(v) {
            Score::Cp(cp) => Eval::Cp(sign * cp),
            Score::Mate(m) => Eval::Mate(sign * m),
        }
    }

    /// The same evaluation from `side`'s point of view.
    pub fn pov(self, side: Color) -> Eval {
        match (self, side) {
            (e, Color::White) => e,
            (Eval::Cp(cp), Color::Black) => Eval::Cp(-cp),
            (Eval::Mate(m), Color::Black) => Eval::Mate(-m),
        }
    }

    /// Centipawns clamped to ±[`CP_CEILING`], a mate counting as the ceiling.
    pub fn ceiled(self) -> i32 {
        match self {
            Eval::Cp(cp) => cp.clamp(-CP_CEILING, CP_CEILING),
            Eval::Mate(m) if m > 0 => CP_CEILING,
            Eval::Mate(_) => -CP_CEILING,
        }
    }

    /// Winning chances in [-1, 1] (lichess's `WinPercent.winningChances`).
    pub fn winning_chances(self) -> f64 {
        (2.0 / (1.0 + (-0.003_682_08 * f64::from(self.ceiled())).exp()) - 1.0).clamp(-1.0, 1.0)
    }

    /// The win percentage, 0..100.
    pub fn win_percent(self) -> f64 {
        50.0 + 50.0 * self.winning_chances()
    }

    /// Winning chances in [-1, 1] of a value searched with a win-scaled evaluation of scale
    /// `scale` (dice variants, [`crate::SearchParams::win_scale`]), where a value is already
    /// `scale (2 W - 1)` for the expected winning chance `W` and a mate is a sure result; with
    /// `scale` 0, lichess's centipawn curve ([`Eval::winning_chances`]).
    pub fn winning_chances_at(self, scale: i32) -> f64 {
        match self {
            _ if scale <= 0 => self.winning_chances(),
            Eval::Cp(v) => (f64::from(v) / f64::from(scale)).clamp(-1.0, 1.0),
            Eval::Mate(m) => f64::from(m.signum()),
        }
    }

    /// The win percentage, 0..100, of a value searched with scale `scale` (see
    /// [`Eval::winning_chances_at`]).
    pub fn win_percent_at(self, scale: i32) -> f64 {
        50.0 + 50.0 * self.winning_chances_at(scale)
    }
}

/// How bad a move was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Judgement {
    /// It lost at least 0.1 of the winning chances (`?!`).
    Inaccuracy,
    /// At least 0.2 (`?`).
    Mistake,
    /// At least 0.3 (`??`).
    Blunder,
}

impl Judgement {
    /// The PGN glyph (`?!`, `?`, `??`).
    pub fn glyph(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }

    /// The PGN NAG number (6, 2, 4).
    pub fn nag(self) -> u8 {
        match self {
            Judgement::Inaccuracy => 6,
            Judgement::Mistake => 2,
            Judgement::Blunder => 4,
        }
    }

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }
}

/// What a move did to a forced mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MateSequence {
    /// The mover now gets mated by force ("Checkmate is now unavoidable").
    Created,
    /// The mover had a forced mate and lost it ("Lost forced checkmate sequence").
    Lost,
}

impl MateSequence {
    /// lichess's words for it.
    pub fn text(self) -> &'static str {
        match self {
            MateSequence::Created => "Checkmate is now unavoidable",
            MateSequence::Lost => "Lost forced checkmate sequence",
        }
    }
}

/// lichess's judgement of a move from the evaluations before and after it, both from the
/// mover's point of view: by the winning chances lost when both are centipawns, else by what
/// happened to a forced mate.
pub fn judge(before: Eval, after: Eval) -> Option<(Judgement, Option<MateSequence>)> {
    judge_at(before, after, 0)
}

/// [`judge`] for values searched with a win-scaled evaluation of scale `scale` (see
/// [`Eval::winning_chances_at`]; 0: centipawns).
pub fn judge_at(before: Eval, after: Eval, scale: i32) -> Option<(Judgement, Option<MateSequence>)> {
    if let (Eval::Cp(_), Eval::Cp(_)) = (before, after) {
        let delta = before.winning_chances_at(scale) - after.winning_chances_at(scale);
        return [(0.3, Judgement::Blunder), (0.2, Judgement::Mistake), (0.1, Judgement::Inaccuracy)]
            .into_iter()
            .find(|&(d, _)| d <= delta)
            .map(|(_, j)| (j, None));
    }
    let mate = |e: Eval| match e {
        Eval::Mate(m) => Some(m),
        Eval::Cp(_) => None,
    };
    let cp = |e: Eval| match e {
        Eval::Cp(c) => c,
        Eval::Mate(_) => 0,
    };
    let sequence = match (mate(before), mate(after)) {
        (None, Some(n)) if n < 0 => MateSequence::Created,
        (Some(p), None) if p > 0 => MateSequence::Lost,
        (Some(p), Some(n)) if p > 0 && n < 0 => MateSequence::Lost,
        _ => return None,
    };
    let judgement = match sequence {
        MateSequence::Created if cp(before) < -999 => Judgement::Inaccuracy,
        MateSequence::Created if cp(before) < -700 => Judgement::Mistake,
        MateSequence::Created => Judgement::Blunder,
        MateSequence::Lost if cp(after) > 999 => Judgement::Inaccuracy,
        MateSequence::Lost if cp(after) > 700 => Judgement::Mistake,
        MateSequence::Lost => Judgement::Blunder,
    };
    Some((judgement, Some(sequence)))
}

/// A move's accuracy, 0..100, from the mover's win percentages before and after it (lichess's
/// `AccuracyPercent.fromWinPercents`, with its one-point allowance for imperfect analysis).
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    (103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * (before - after)).exp() - 3.166_924_740_191_411 + 1.0)
        .clamp(0.0, 100.0)
}

/// Each move's weight in a side's accuracy: the standard deviation (population) of White's
/// win percentages in a window around it, clamped to 0.5..12, the window `n / 10` positions
/// wide (2 to 8); the first moves share the first window (lichess's `gameAccuracy`).
/// `win_percents` has one entry per position, the start first: one weight per move.
pub fn volatility_weights(win_percents: &[f64]) -> Vec<f64> {
    let moves = win_percents.len().saturating_sub(1);
    if moves == 0 {
        return Vec::new();
    }
    let size = (moves / 10).clamp(2, 8).min(win_percents.len());
    let first = &win_percents[..size];
    let windows = std::iter::repeat_n(first, size.saturating_sub(2)).chain(win_percents.windows(size));
    windows
        .take(moves)
        .map(|w| {
            let mean = w.iter().sum::<f64>() / w.len() as f64;
            let var = w.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / w.len() as f64;
            var.sqrt().clamp(0.5, 12.0)
        })
        .collect()
}

/// A side's accuracy from its moves' (accuracy, weight): the mean of the weighted mean and the
/// harmonic mean; `None` without moves.
pub fn side_accuracy(moves: &[(f64, f64)]) -> Option<f64> {
    if moves.is_empty() {
        return None;
    }
    let weight: f64 = moves.iter().map(|m| m.1).sum();
    let weighted = moves.iter().map(|(a, w)| a * w).sum::<f64>() / weight;
    // A move of accuracy 0 makes the harmonic mean 0 (lichess's `harmonicMean` does the same
    // with its floor).
    let harmonic = moves.len() as f64 / moves.iter().map(|(a, _)| 1.0 / a.max(0.001)).sum::<f64>();
    Some((weighted + harmonic) / 2.0)
}

/// One reviewed move.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveReview {
    /// Its ply (0 for the first move of the game).
    pub ply: usize,
    /// Who played it.
    pub mover: Color,
    /// The move in SAN and UCI.
    pub san: String,
    /// The move in UCI.
    pub uci: String,
    /// The position before it.
    pub before: Eval,
    /// The value of the move: the position after it, or with chance its expected value.
    pub after: Eval,
    /// The position chance made of it (with chance only; otherwise `after`).
    pub outcome: Eval,
    /// The engine's choice in the position before it (SAN), when it differs.
    pub best: Option<String>,
    /// lichess's judgement.
    pub judgement: Option<Judgement>,
    /// What the move did to a forced mate, if that judged it.
    pub mate: Option<MateSequence>,
    /// Centipawns lost (scores clamped to ±1000).
    pub cp_loss: i32,
    /// The move's accuracy, 0..100.
    pub accuracy: f64,
    /// With chance: the mover's win percentage after the outcome minus the expected one.
    pub luck: Option<f64>,
    /// The move ended the game (mate, a draw by rule, a king captured).
    pub ended: bool,
}

/// A side's totals.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SideReview {
    /// Its moves reviewed.
    pub moves: usize,
    /// Inaccuracies, mistakes and blunders.
    pub inaccuracies: usize,
    /// Mistakes.
    pub mistakes: usize,
    /// Blunders.
    pub blunders: usize,
    /// Average centipawn loss per move.
    pub acpl: f64,
    /// Accuracy, 0..100 (`None` without moves).
    pub accuracy: Option<f64>,
    /// With chance: the sum of its moves' luck in win percentage points.
    pub luck: Option<f64>,
}

/// A reviewed game.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    /// The evaluation of every position, the start first (White's point of view).
    pub evals: Vec<Eval>,
    /// Every move.
    pub moves: Vec<MoveReview>,
    /// The sides' totals, White first.
    pub sides: [SideReview; 2],
    /// Nodes searched in all.
    pub nodes: u64,
    /// The scale of the win-scaled evaluation the values are in (dice variants; 0: centipawns):
    /// win percentages are [`Eval::win_percent_at`] this scale.
    pub win_scale: i32,
}

/// How deeply a review searches.
#[derive(Debug, Clone)]
pub struct ReviewLimits {
    /// The limit of each search (a node count makes the review reproducible).
    pub per_position: Limits,
    /// Searches at once, each on its own thread and engine (the review is the same for any
    /// number).
    pub threads: usize,
    /// Endgame tables to consult.
    pub tables: Option<Arc<egt::tablebase::Tablebase>>,
}

/// The evaluation of a finished position, if it is one: a draw, or the winner's mate
/// delivered, counted as a mate in one (a mating move keeps its mate, and the mate it
/// delivered is no mate lost).
fn terminal(pos: &Position) -> Option<Eval> {
    match pos.outcome()? {
        Outcome::Decisive { winner: Color::White, .. } => Some(Eval::Mate(1)),
        Outcome::Decisive { winner: Color::Black, .. } => Some(Eval::Mate(-1)),
        Outcome::Draw { .. } => Some(Eval::Cp(0)),
    }
}

/// Reviews `game`, calling `progress(done, total)` after each search.
pub fn review(game: &Game, limits: &ReviewLimits, mut progress: impl FnMut(usize, usize)) -> Review {
    let chance = !matches!(game.start().variant().chance, ChanceRule::None);
    let scale = SearchParams::for_variant(game.start().variant()).win_scale;
    let n = game.moves().len();
    // The positions, the start first.
    let mut positions = vec![game.start().clone()];
    for (&m, &e) in game.moves().iter().zip(game.events()) {
        let mut p = positions[positions.len() - 1].clone();
        p.play_event(m, e);
        positions.push(p);
    }
    // The searches: every unfinished position, then with chance every move alone from the
    // position before it. They share workers, each with its own engine.
    let mut jobs: Vec<(usize, Option<rules::Move>)> =
        (0..=n).filter(|&i| terminal(&positions[i]).is_none()).map(|i| (i, None)).collect();
    if chance {
        jobs.extend(game.moves().iter().enumerate().map(|(i, &m)| (i, Some(m))));
    }
    let total = (n + 1) + if chance { n } else { 0 };
    let mut done = n + 1 - jobs.iter().filter(|j| j.1.is_none()).count();
    if done > 0 {
        progress(done, total);
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut results: Vec<Option<(Eval, Option<rules::Move>, u64)>> = vec![None; jobs.len()];
    std::thread::scope(|scope| {
        for _ in 0..limits.threads.clamp(1, jobs.len().max(1)) {
            let (tx, jobs, next, positions) = (tx.clone(), &jobs, &next, &positions);
            scope.spawn(move || {
                let mut engine = Engine::with_hash(16);
                engine.set_params(Some(SearchParams::for_variant(game.start().variant())));
                engine.set_tablebase(limits.tables.clone());
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(i, only)) = jobs.get(k) else { break };
                    let pos = &positions[i];
                    engine.set_search_moves(only.into_iter().collect());
                    // Each search from a clear table, so a review depends neither on the order
                    // of its searches nor on the workers (and is reproducible under a node limit).
                    engine.clear();
                    let r = engine.search(pos.clone(), &game.hashes()[..i], limits.per_position, |_| {});
                    if tx.send((k, (Eval::from_value(r.value, pos.turn()), r.best, r.nodes))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (k, result) in rx {
            results[k] = Some(result);
            done += 1;
            progress(done, total);
        }
    });
    let mut nodes = 0;
    let mut evals: Vec<Eval> = positions.iter().map(|p| terminal(p).unwrap_or(Eval::Cp(0))).collect();
    let mut bests: Vec<Option<rules::Move>> = vec![None; n + 1];
    let mut expected: Vec<Option<Eval>> = vec![None; n];
    for (&(i, only), result) in jobs.iter().zip(results) {
        let Some((e, best, searched)) = result else { continue };
        nodes += searched;
        match only {
            None => (evals[i], bests[i]) = (e, best),
            Some(_) => expected[i] = Some(e),
        }
    }
    let mut moves = Vec::with_capacity(n);
    for (i, &m) in game.moves().iter().enumerate() {
        let pos = &positions[i];
        let mover = pos.turn();
        let outcome = evals[i + 1];
        let after = expected[i].unwrap_or(outcome);
        let (b, a) = (evals[i].pov(mover), after.pov(mover));
        // The engine's own choice is never an error, whatever the two searches' values say
        // (they differ by the search's horizon, not by the move).
        let (judgement, mate) = if bests[i] == Some(m) {
            (None, None)
        } else {
            judge_at(b, a, scale).map_or((None, None), |(j, s)| (Some(j), s))
        };
        let (wb, wa) = (b.win_percent_at(scale), a.win_percent_at(scale));
        moves.push(MoveReview {
            ply: i,
            mover,
            san: rules::san::to_san_event(pos, m, game.events()[i]),
            uci: to_uci(pos, m),
            before: evals[i],
            after,
            outcome,
            best: bests[i].filter(|&b| b != m && pos.is_legal(b)).map(|b| rules::san::to_san(pos, b)),
            judgement,
            mate,
            cp_loss: (b.ceiled() - a.ceiled()).max(0),
            accuracy: move_accuracy(wb, wa),
            luck: chance.then(|| outcome.pov(mover).win_percent_at(scale) - wa),
            ended: positions[i + 1].outcome().is_some(),
        });
    }
    let weights = volatility_weights(&evals.iter().map(|e| e.win_percent_at(scale)).collect::<Vec<_>>());
    let sides = Color::ALL.map(|side| {
        let mine: Vec<(&MoveReview, f64)> =
            moves.iter().zip(&weights).filter(|(m, _)| m.mover == side).map(|(m, &w)| (m, w)).collect();
        let count = |j: Judgement| mine.iter().filter(|(m, _)| m.judgement == Some(j)).count();
        let acc: Vec<(f64, f64)> = mine.iter().map(|(m, w)| (m.accuracy, *w)).collect();
        SideReview {
            moves: mine.len(),
            inaccuracies: count(Judgement::Inaccuracy),
            mistakes: count(Judgement::Mistake),
            blunders: count(Judgement::Blunder),
            acpl: if mine.is_empty() {
                0.0
            } else {
                mine.iter().map(|(m, _)| f64::from(m.cp_loss)).sum::<f64>() / mine.len() as f64
            },
            accuracy: side_accuracy(&acc),
            luck: chance.then(|| mine.iter().filter_map(|(m, _)| m.luck).sum()),
        }
    });
    Review { evals, moves, sides, nodes, win_scale: scale }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winning_chances_follow_lichess() {
        assert_eq!(Eval::Cp(0).win_percent(), 50.0);
        // 2 / (1 + e^-3.68208) - 1 = 0.95089...
        assert!((Eval::Cp(1000).winning_chances() - 0.950_89).abs() < 1e-4);
        assert_eq!(Eval::Cp(5000).win_percent(), Eval::Cp(1000).win_percent());
        assert_eq!(Eval::Mate(3).win_percent(), Eval::Cp(1000).win_percent());
        assert_eq!(Eval::Mate(-1).win_percent(), Eval::Cp(-1000).win_percent());
        // 100 cp: 50 + 50 (2 / (1 + e^-0.368208) - 1) = 59.10...
        assert!((Eval::Cp(100).win_percent() - 59.10).abs() < 0.01);
    }

    #[test]
    fn moves_are_judged_by_the_winning_chances_they_lose() {
        // Winning chances at 0 cp are 0; -136 cp is about -0.245 (a mistake), -230 cp about
        // -0.40 (a blunder), -55 cp about -0.10 (an inaccuracy).
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-20)), None);
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-56)), Some((Judgement::Inaccuracy, None)));
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-136)), Some((Judgement::Mistake, None)));
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-230)), Some((Judgement::Blunder, None)));
        // Far ahead, a pawn more or less hardly changes the winning chances.
        assert_eq!(judge(Eval::Cp(900), Eval::Cp(800)), None);
        // Improving is never bad.
        assert_eq!(judge(Eval::Cp(-300), Eval::Cp(200)), None);
    }

    #[test]
    fn mate_sequences_are_judged_as_lichess_judges_them() {
        assert_eq!(judge(Eval::Cp(50), Eval::Mate(-2)), Some((Judgement::Blunder, Some(MateSequence::Created))));
        assert_eq!(judge(Eval::Cp(-800), Eval::Mate(-2)), Some((Judgement::Mistake, Some(MateSequence::Created))));
        assert_eq!(judge(Eval::Cp(-1200), Eval::Mate(-2)), Some((Judgement::Inaccuracy, Some(MateSequence::Created))));
        assert_eq!(judge(Eval::Mate(2), Eval::Cp(300)), Some((Judgement::Blunder, Some(MateSequence::Lost))));
        assert_eq!(judge(Eval::Mate(2), Eval::Cp(1200)), Some((Judgement::Inaccuracy, Some(MateSequence::Lost))));
        assert_eq!(judge(Eval::Mate(2), Eval::Mate(-3)), Some((Judgement::Blunder, Some(MateSequence::Lost))));
        // A longer mate is no error; neither is keeping one.
        assert_eq!(judge(Eval::Mate(2), Eval::Mate(5)), None);
        assert_eq!(judge(Eval::Mate(-2), Eval::Mate(-1)), None);
    }

    #[test]
    fn accuracy_follows_lichess() {
        assert_eq!(move_accuracy(60.0, 60.0), 100.0);
        assert_eq!(move_accuracy(40.0, 70.0), 100.0);
        // 103.1668 e^(-0.043544 * 10) - 3.1669 + 1 = 64.58...
        assert!((move_accuracy(60.0, 50.0) - 64.58).abs() < 0.01);
        assert_eq!(move_accuracy(100.0, 0.0), 0.0);
        // Equal weights: the mean of the arithmetic and harmonic means.
        let a = side_accuracy(&[(100.0, 1.0), (50.0, 1.0)]).expect("moves");
        assert!((a - (75.0 + 200.0 / 3.0) / 2.0).abs() < 1e-9);
        assert_eq!(side_accuracy(&[]), None);
    }

    #[test]
    fn volatility_weights_cover_every_move() {
        // 30 moves: windows of 3; the first move repeats the first window once.
        let wins: Vec<f64> = (0..31).map(|i| if i % 2 == 0 { 50.0 } else { 60.0 }).collect();
        let w = volatility_weights(&wins);
        assert_eq!(w.len(), 30);
        // A window [50, 60, 50]: population standard deviation 4.71.
        assert!((w[0] - 4.714).abs() < 1e-3, "{w:?}");
        assert_eq!(volatility_weights(&[50.0]), Vec::<f64>::new());
        assert_eq!(volatility_weights(&[50.0, 50.0]), vec![0.5]);
    }

    /// A move's check mark is judged after its gift, as the record writes it: Black's gift
    /// knight blocks on b8, so 30. Ra8 is check, not mate.
    #[test]
    fn the_check_mark_follows_the_gift() {
        let pgn = include_str!("../../../tests/data/records/check-after-gift.pgn");
        let game = rules::record::read_pgn(pgn).expect("a record");
        let limits = ReviewLimits { per_position: Limits::nodes(500), threads: 1, tables: None };
        let r = review(&game, &limits, |_, _| {});
        let sans: Vec<&str> = r.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["Ra8+", "N@b8"]);
    }
}
