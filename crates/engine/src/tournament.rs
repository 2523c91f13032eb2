//! Matches between two UCI engines: each opening played twice with colours swapped, every move
//! checked and every game ended by fairylab's rules or adjudication; scores, Elo and PGN.
//!
//! Engine A is `engines[0]` of [`MatchConfig`]; every result is counted from its point of view.
//!
//! ```
//! use engine::tournament::{elo_from_score, score_stats};
//! let s = score_stats(60, 20, 20).unwrap();
//! assert!((s.score - 0.7).abs() < 1e-12);
//! assert!((s.elo - elo_from_score(0.7)).abs() < 1e-9 && (s.elo - 147.19).abs() < 0.01);
//! ```

use crate::uci_client::{EngineCommand, EngineScore, Go, UciClientError, UciEngine, UciOption};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rules::fen::ParseFenError;
use rules::game::Game;
use rules::outcome::{EndReason, Outcome};
use rules::san::to_san;
use rules::uci::{parse_uci, to_uci};
use rules::{Color, Position, Variant};
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The two-sided 95 % quantile of the normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// How to start one engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineSpec {
    /// The program and its arguments.
    pub command: EngineCommand,
    /// `setoption` pairs sent after the handshake, in order.
    pub options: Vec<(String, String)>,
    /// The name in results and PGN; the engine's `id name` if `None`.
    pub name: Option<String>,
}

impl EngineSpec {
    /// An engine with no options, named by its `id name`.
    pub fn new(command: EngineCommand) -> EngineSpec {
        EngineSpec { command, options: Vec::new(), name: None }
    }
}

/// One start position of an openings file.
#[derive(Debug, Clone)]
pub struct Opening {
    /// The position.
    pub position: Position,
    /// The EPD `id` opcode, if there was one.
    pub id: Option<String>,
    /// The line of the file it came from (1-based).
    pub line: usize,
}

/// A line of an openings file that gives no playable position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OpeningError {
    /// The FEN does not parse or is not legal.
    #[error("line {line}: '{fen}': {source}")]
    Fen {
        /// Line number (1-based).
        line: usize,
        /// The FEN read from the line.
        fen: String,
        /// Why.
        #[source]
        source: ParseFenError,
    },
    /// The position is already decided (mate, stalemate, insufficient material).
    #[error("line {line}: '{fen}': the game is already over ({outcome})")]
    Finished {
        /// Line number (1-based).
        line: usize,
        /// The FEN.
        fen: String,
        /// How it ended.
        outcome: Outcome,
    },
}

/// Reads an openings file: one position per line, as a FEN (4 to 6 fields) or an EPD line whose
/// opcodes (`bm e4; id "x";`) are ignored but for `id`, `hmvc` and `fmvn`. Blank lines and lines
/// starting with `#` are skipped.
pub fn parse_openings(variant: &'static Variant, text: &str) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (fen, id) = epd_to_fen(trimmed);
        let position =
            Position::from_fen(variant, &fen).map_err(|source| OpeningError::Fen { line, fen: fen.clone(), source })?;
        if let Some(outcome) = position.outcome() {
            return Err(OpeningError::Finished { line, fen, outcome });
        }
        openings.push(Opening { position, id, line });
    }
    Ok(openings)
}

/// The FEN and `id` of an EPD or FEN line.
fn epd_to_fen(line: &str) -> (String, Option<String>) {
    let (fields, rest) = split_words(line, 4);
    let (counters, after) = split_words(rest, 2);
    let numeric = counters.len() == 2 && counters.iter().all(|w| w.parse::<u32>().is_ok());
    let (mut halfmoves, mut fullmoves, opcodes) = if numeric {
        (counters[0].to_string(), counters[1].to_string(), after)
    } else {
        ("0".to_string(), "1".to_string(), rest)
    };
    let mut id = None;
    for op in split_opcodes(opcodes) {
        let (name, operand) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        let operand = operand.trim();
        match name {
            "id" => id = Some(operand.trim_matches('"').to_string()),
            "hmvc" if operand.parse::<u32>().is_ok() => halfmoves = operand.to_string(),
            "fmvn" if operand.parse::<u32>().is_ok() => fullmoves = operand.to_string(),
            _ => {}
        }
    }
    let mut fen = fields.join(" ");
    if fields.len() == 4 {
        fen = format!("{fen} {halfmoves} {fullmoves}");
    }
    (fen, id)
}

/// The first `n` whitespace-separated words and the text after them.
fn split_words(s: &str, n: usize) -> (Vec<&str>, &str) {
    let mut words = Vec::new();
    let mut rest = s.trim_start();
    while words.len() < n && !rest.is_empty() {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        words.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    (words, rest)
}

/// EPD operations separated by `;` outside double quotes, trimmed, empty ones left out.
fn split_opcodes(s: &str) -> Vec<&str> {
    let mut ops = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ';' if !quoted => {
                ops.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    ops.push(s[start..].trim());
    ops.retain(|o| !o.is_empty());
    ops
}

/// How much time the engines get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeControl {
    /// A fixed time per move (`go movetime`).
    MoveTime(Duration),
    /// A clock per side with an increment per move (`go wtime btime winc binc`).
    Clock {
        /// Each side's time at the start.
        base: Duration,
        /// Added after each of the side's moves.
        increment: Duration,
    },
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::MoveTime(t) => write!(f, "movetime {} ms", t.as_millis()),
            TimeControl::Clock { base, increment } => {
                write!(f, "{}+{} s", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

/// Resign adjudication: the game is won when the scores of both engines agree that one side
/// is winning by at least `score_cp` for `moves` consecutive moves of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResignRule {
    /// Moves of each engine (so twice as many plies).
    pub moves: u32,
    /// Centipawns (a mate score counts as more than any).
    pub score_cp: i32,
}

/// Draw adjudication: once the game is past move `after_move`, a draw when both engines' scores
/// stay within ±`score_cp` for `moves` consecutive moves of each, with no capture or pawn move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawRule {
    /// The move number (of the position, openings included) after which the rule applies.
    pub after_move: u32,
    /// Moves of each engine (so twice as many plies).
    pub moves: u32,
    /// Centipawns.
    pub score_cp: i32,
}

/// When the runner ends a game the rules have not ended yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Adjudication {
    /// A draw after this many plies played by the engines (the opening's moves not counted).
    pub max_plies: Option<u32>,
    /// The resign rule.
    pub resign: Option<ResignRule>,
    /// The draw rule.
    pub draw: Option<DrawRule>,
}

impl Default for Adjudication {
    /// 400 plies; resign at 1000 cp for 5 moves; draw within 10 cp for 10 moves after move 40.
    fn default() -> Adjudication {
        Adjudication {
            max_plies: Some(400),
            resign: Some(ResignRule { moves: 5, score_cp: 1000 }),
            draw: Some(DrawRule { after_move: 40, moves: 10, score_cp: 10 }),
        }
    }
}

/// Everything a match needs.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// The variant (sent as `UCI_Variant` to engines that have the option).
    pub variant: &'static Variant,
    /// Engine A, then engine B.
    pub engines: [EngineSpec; 2],
    /// Start positions; the variant's start position if empty.
    pub openings: Vec<Opening>,
    /// How many games (each opening is played twice, colours swapped, A white first).
    pub games: u32,
    /// Time per move or per game.
    pub time: TimeControl,
    /// The adjudication rules.
    pub adjudication: Adjudication,
    /// How long past its time an engine may take to answer before it forfeits.
    pub margin: Duration,
    /// How long an engine may take to start, to answer `uci`, `isready` and `ucinewgame`.
    pub start_timeout: Duration,
    /// Shuffles the openings with this seed; file order if `None`.
    pub seed: Option<u64>,
}

impl MatchConfig {
    /// A match of two games from the start position at 100 ms per move, default adjudication,
    /// a 1 s margin and a 10 s start time-out.
    pub fn new(variant: &'static Variant, engines: [EngineSpec; 2]) -> MatchConfig {
        MatchConfig {
            variant,
            engines,
            openings: Vec::new(),
            games: 2,
            time: TimeControl::MoveTime(Duration::from_millis(100)),
            adjudication: Adjudication::default(),
            margin: Duration::from_secs(1),
            start_timeout: Duration::from_secs(10),
            seed: None,
        }
    }
}

/// A match that could not begin.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MatchError {
    /// An engine did not start or refused its options.
    #[error("engine {number} ({command}): {source}")]
    Engine {
        /// 1 for A, 2 for B.
        number: usize,
        /// Its command line.
        command: String,
        /// Why.
        #[source]
        source: StartError,
    },
}

/// Why an engine could not be prepared for a game.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The process or the protocol failed.
    #[error(transparent)]
    Uci(#[from] UciClientError),
    /// It does not play the variant.
    #[error("'{engine}' does not play {variant} (it has {known})")]
    Variant {
        /// The engine's name.
        engine: String,
        /// The variant.
        variant: String,
        /// What it offers: its `UCI_Variant` values, or that it has no such option.
        known: String,
    },
}

/// How a forfeit came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ForfeitKind {
    /// A move that does not parse, is not legal, or no move at all.
    IllegalMove,
    /// No `bestmove` within the time allowed (or the clock ran out).
    TimeOut,
    /// The process died, closed its output or could not be (re)started.
    Crash,
}

/// Why a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// By the rules of the variant (mate, stalemate, repetition, 50 moves, material...).
    Rules(EndReason),
    /// The ply limit was reached: a draw.
    MaxPlies,
    /// The resign rule.
    ResignAdjudication,
    /// The draw rule.
    DrawAdjudication,
    /// The side to move broke the rules of the match and lost.
    Forfeit {
        /// What went wrong.
        kind: ForfeitKind,
        /// A full description: the engine, the move, the position, the error.
        detail: String,
    },
}

impl Termination {
    /// A short label for reason histograms (`checkmate`, `repetition`, `illegal move`...).
    pub fn label(&self) -> String {
        match self {
            Termination::Rules(r) => match r {
                EndReason::Checkmate => "checkmate".into(),
                EndReason::Stalemate => "stalemate".into(),
                EndReason::KingCaptured => "king captured".into(),
                EndReason::FiftyMoves => "fifty moves".into(),
                EndReason::Repetition => "repetition".into(),
                EndReason::InsufficientMaterial => "insufficient material".into(),
                other => format!("{other:?}").to_lowercase(),
            },
            Termination::MaxPlies => "max plies".into(),
            Termination::ResignAdjudication => "resign adjudication".into(),
            Termination::DrawAdjudication => "draw adjudication".into(),
            Termination::Forfeit { kind: ForfeitKind::IllegalMove, .. } => "illegal move".into(),
            Termination::Forfeit { kind: ForfeitKind::TimeOut, .. } => "time forfeit".into(),
            Termination::Forfeit { kind: ForfeitKind::Crash, .. } => "crash".into(),
        }
    }

    /// The PGN `Termination` tag value.
    pub fn pgn_tag(&self) -> &'static str {
        match self {
            Termination::Rules(_) => "normal",
            Termination::MaxPlies | Termination::ResignAdjudication | Termination::DrawAdjudication => "adjudication",
            Termination::Forfeit { kind: ForfeitKind::IllegalMove, .. } => "rules infraction",
            Termination::Forfeit { kind: ForfeitKind::TimeOut, .. } => "time forfeit",
            Termination::Forfeit { kind: ForfeitKind::Crash, .. } => "abandoned",
        }
    }
}

/// One move of a game with what the engine said about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayedMove {
    /// UCI notation.
    pub uci: String,
    /// SAN with check marks.
    pub san: String,
    /// The engine's last score, from its own (the mover's) point of view.
    pub score: Option<EngineScore>,
    /// The engine's last depth.
    pub depth: Option<u32>,
    /// Time from `go` to `bestmove`.
    pub elapsed: Duration,
}

/// A finished game.
#[derive(Debug, Clone)]
pub struct GameRecord {
    /// 1-based game number.
    pub number: u32,
    /// Index into the openings (0 when playing from the start position).
    pub opening: usize,
    /// The opening's `id`, if any.
    pub opening_id: Option<String>,
    /// Whether engine A had White.
    pub a_white: bool,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The time control.
    pub time: TimeControl,
    /// The start position.
    pub start: Position,
    /// The moves.
    pub moves: Vec<PlayedMove>,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// How it ended.
    pub termination: Termination,
    /// The final position.
    pub final_fen: String,
}

impl GameRecord {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub fn result(&self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// Engine A's points: 1, 0.5 or 0.
    pub fn score_a(&self) -> f64 {
        match self.winner {
            None => 0.5,
            Some(c) if (c == Color::White) == self.a_white => 1.0,
            Some(_) => 0.0,
        }
    }

    /// A sentence on how the game ended: `Black mates`, `White forfeits: ...`, `Draw by repetition`.
    pub fn description(&self) -> String {
        let side = |c: Color| if c == Color::White { "White" } else { "Black" };
        match (&self.termination, self.winner) {
            (Termination::Forfeit { detail, .. }, Some(w)) => format!("{} forfeits: {detail}", side(!w)),
            (Termination::Rules(EndReason::Checkmate), Some(w)) => format!("{} mates", side(w)),
            (Termination::ResignAdjudication, Some(w)) => format!("{} wins by adjudication", side(w)),
            (t, Some(w)) => format!("{} wins by {}", side(w), t.label()),
            (t, None) => format!("Draw by {}", t.label()),
        }
    }

    /// The game in PGN, with `Variant`, `SetUp`/`FEN`, `PlyCount` and `Termination` tags and
    /// `{score/depth time}` comments after each move (the mover's view, as engines report).
    pub fn to_pgn(&self, event: &str, date: &str) -> String {
        let mut tags: Vec<(&str, String)> = vec![
            ("Event", event.to_string()),
            ("Site", "?".into()),
            ("Date", date.to_string()),
            ("Round", self.number.to_string()),
            ("White", self.white.clone()),
            ("Black", self.black.clone()),
            ("Result", self.result().into()),
            ("Variant", self.start.variant().name.clone()),
            ("SetUp", "1".into()),
            ("FEN", self.start.fen()),
            ("PlyCount", self.moves.len().to_string()),
            ("Termination", self.termination.pgn_tag().into()),
        ];
        if let TimeControl::Clock { base, increment } = self.time {
            tags.push(("TimeControl", format!("{}+{}", base.as_secs_f64(), increment.as_secs_f64())));
        }
        if let Some(id) = &self.opening_id {
            tags.push(("Opening", id.clone()));
        }
        let mut text = String::new();
        for (name, value) in tags {
            text.push_str(&format!("[{name} \"{}\"]\n", value.replace('\\', "\\\\").replace('"', "\\\"")));
        }
        text.push('\n');
        let mut tokens = Vec::new();
        let mut number = self.start.fullmoves();
        let mut turn = self.start.turn();
        for (i, m) in self.moves.iter().enumerate() {
            if turn == Color::White {
                tokens.push(format!("{number}."));
            } else if i == 0 {
                tokens.push(format!("{number}..."));
            }
            tokens.push(m.san.clone());
            let time = format!("{:.2}s", m.elapsed.as_secs_f64());
            tokens.push(match (m.score, m.depth) {
                (Some(s), Some(d)) => format!("{{{s}/{d} {time}}}"),
                (Some(s), None) => format!("{{{s} {time}}}"),
                _ => format!("{{{time}}}"),
            });
            if turn == Color::Black {
                number += 1;
            }
            turn = !turn;
        }
        tokens.push(format!("{{{}}}", self.description().replace('}', ")")));
        tokens.push(self.result().into());
        text.push_str(&rules::record::wrap(tokens, 79));
        text.push('\n');
        text
    }
}

/// Today's date (UTC) as PGN writes it, `YYYY.MM.DD`.
pub fn pgn_date(now: SystemTime) -> String {
    let days = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The score fraction with its 95 % interval and the Elo difference with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreStats {
    /// Games counted.
    pub games: u32,
    /// Points per game, 0 to 1.
    pub score: f64,
    /// Lower end of the 95 % interval of the score (at least 0).
    pub score_low: f64,
    /// Upper end (at most 1).
    pub score_high: f64,
    /// The Elo difference the score means (±infinity at 1 and 0).
    pub elo: f64,
    /// The Elo of `score_low`.
    pub elo_low: f64,
    /// The Elo of `score_high`.
    pub elo_high: f64,
}

impl ScoreStats {
    /// Half the width of the Elo interval, the `±` figure (infinite if an end is).
    pub fn elo_margin(&self) -> f64 {
        (self.elo_high - self.elo_low) / 2.0
    }
}

/// The Elo difference that an expected score `s` means: `-400 log10(1/s - 1)`.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` turns the -0.0 of an even score into 0.0.
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// Score statistics of `wins`, `draws` and `losses`; `None` for no games.
///
/// The interval is the normal approximation with the per-game (trinomial) variance:
/// with fractions `w, d, l` and score `s = w + d/2`, the variance of one game is
/// `w(1-s)² + d(1/2-s)² + l s²`, the standard error `sqrt(variance / n)`, and the interval
/// `s ± 1.96 × error` clipped to [0, 1] (as cutechess-cli computes it). The Elo interval is
/// the Elo of its two ends.
pub fn score_stats(wins: u32, draws: u32, losses: u32) -> Option<ScoreStats> {
    let games = wins + draws + losses;
    if games == 0 {
        return None;
    }
    let n = f64::from(games);
    let (w, d, l) = (f64::from(wins) / n, f64::from(draws) / n, f64::from(losses) / n);
    let score = w + d / 2.0;
    let variance = w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * score.powi(2);
    let half = Z95 * (variance / n).sqrt();
    let (score_low, score_high) = ((score - half).max(0.0), (score + half).min(1.0));
    Some(ScoreStats {
        games,
        score,
        score_low,
        score_high,
        elo: elo_from_score(score),
        elo_low: elo_from_score(score_low),
        elo_high: elo_from_score(score_high),
    })
}

/// Running totals from engine A's point of view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// A's wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// A's losses.
    pub losses: u32,
    /// How many games ended for each reason ([`Termination::label`]).
    pub reasons: BTreeMap<String, u32>,
    /// Plies played, all games together.
    pub plies: u64,
}

impl Tally {
    /// Counts a game.
    pub fn add(&mut self, game: &GameRecord) {
        match game.score_a() {
            s if s > 0.75 => self.wins += 1,
            s if s < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
        *self.reasons.entry(game.termination.label()).or_insert(0) += 1;
        self.plies += game.moves.len() as u64;
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// A's points.
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// The likelihood of superiority: the probability that A is the stronger, from the decisive
    /// games alone (`Φ((W − L) / √(W + L))`, as cutechess-cli and fastchess print it); `None`
    /// without a decisive game.
    pub fn los(&self) -> Option<f64> {
        use statrs::distribution::{ContinuousCDF, Normal};
        let decisive = f64::from(self.wins + self.losses);
        if decisive == 0.0 {
            return None;
        }
        let z = (f64::from(self.wins) - f64::from(self.losses)) / decisive.sqrt();
        Some(Normal::standard().cdf(z))
    }

    /// The share of games drawn, `None` before the first game.
    pub fn draw_ratio(&self) -> Option<f64> {
        (self.games() > 0).then(|| f64::from(self.draws) / f64::from(self.games()))
    }

    /// The statistics, `None` before the first game.
    pub fn stats(&self) -> Option<ScoreStats> {
        score_stats(self.wins, self.draws, self.losses)
    }

    /// Plies per game.
    pub fn average_plies(&self) -> f64 {
        if self.games() == 0 {
            0.0
        } else {
            self.plies as f64 / f64::from(self.games())
        }
    }
}

/// Follows the scores of a game for the resign and draw rules.
#[derive(Debug, Clone, Copy)]
struct Adjudicator {
    rules: Adjudication,
    /// Consecutive plies with a score of at least the resign threshold, all favouring `resign_side`.
    resign_plies: u32,
    resign_side: Color,
    /// Consecutive quiet plies with a score inside the draw window.
    draw_plies: u32,
}

impl Adjudicator {
    fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator { rules, resign_plies: 0, resign_side: Color::White, draw_plies: 0 }
    }

    /// Notes a ply: its score from White's view (`None` if the engine gave none) and whether it
    /// was irreversible (a capture or pawn move).
    fn record(&mut self, white_cp: Option<i32>, irreversible: bool) {
        if let Some(r) = self.rules.resign {
            match white_cp {
                Some(cp) if cp.abs() >= r.score_cp => {
                    let side = if cp > 0 { Color::White } else { Color::Black };
                    if self.resign_plies > 0 && side == self.resign_side {
                        self.resign_plies += 1;
                    } else {
                        self.resign_plies = 1;
                        self.resign_side = side;
                    }
                }
                _ => self.resign_plies = 0,
            }
        }
        if let Some(r) = self.rules.draw {
            match white_cp {
                Some(cp) if cp.abs() <= r.score_cp && !irreversible => self.draw_plies += 1,
                _ => self.draw_plies = 0,
            }
        }
    }

    /// The adjudicated result, if a rule applies now, at move number `fullmoves`.
    fn verdict(&self, fullmoves: u32) -> Option<(Option<Color>, Termination)> {
        if let Some(r) = self.rules.resign {
            if r.moves > 0 && self.resign_plies >= 2 * r.moves {
                return Some((Some(self.resign_side), Termination::ResignAdjudication));
            }
        }
        if let Some(r) = self.rules.draw {
            if r.moves > 0 && self.draw_plies >= 2 * r.moves && fullmoves > r.after_move {
                return Some((None, Termination::DrawAdjudication));
            }
        }
        None
    }
}

/// Starts an engine, sends its options and the variant, and waits until it is ready.
///
/// The user's options go first (Fairy-Stockfish needs `VariantPath` before `UCI_Variant`);
/// then `UCI_Variant` unless the user set it, and `Threads 1` if the engine has that option
/// and the user did not set it (matches here are single-threaded).
pub fn start_engine(spec: &EngineSpec, variant: &Variant, timeout: Duration) -> Result<UciEngine, StartError> {
    let mut engine = UciEngine::spawn(&spec.command, timeout)?;
    let user_set = |name: &str| spec.options.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    for (name, value) in &spec.options {
        engine.set_option(name, value)?;
    }
    // A Chess960 variant an engine does not list by name is played as its base variant with
    // `UCI_Chess960` (Stockfish's and Fairy-Stockfish's way; cutechess-cli's `fischerandom`).
    let listed = |o: &UciOption, name: &str| o.kind != "combo" || o.vars.iter().any(|v| v.eq_ignore_ascii_case(name));
    let base960 = variant.name.strip_suffix("960").filter(|_| variant.castling.is_some_and(|c| c.chess960));
    let by_960 = match (base960, engine.option("UCI_Variant")) {
        (Some(_), Some(o)) if listed(o, &variant.name) => None,
        (Some(base), Some(o)) if listed(o, base) => Some(base),
        (Some("chess"), None) => Some("chess"),
        _ => None,
    };
    if let Some(base) = by_960 {
        if engine.option("UCI_Chess960").is_none() {
            return Err(StartError::Variant {
                engine: engine.name().to_string(),
                variant: variant.name.clone(),
                known: "no UCI_Chess960 option".into(),
            });
        }
        if !user_set("UCI_Variant") && engine.option("UCI_Variant").is_some() {
            engine.set_option("UCI_Variant", base)?;
        }
        if !user_set("UCI_Chess960") {
            engine.set_option("UCI_Chess960", "true")?;
        }
    } else if !user_set("UCI_Variant") {
        let name = variant.name.as_str();
        match engine.option("UCI_Variant").cloned() {
            Some(o) if listed(&o, name) => {
                engine.set_option("UCI_Variant", name)?;
            }
            Some(o) if name != "chess" => {
                return Err(StartError::Variant {
                    engine: engine.name().to_string(),
                    variant: name.to_string(),
                    known: format!("UCI_Variant {}", o.vars.join(" ")),
                })
            }
            None if name != "chess" => {
                return Err(StartError::Variant {
                    engine: engine.name().to_string(),
                    variant: name.to_string(),
                    known: "no UCI_Variant option".into(),
                })
            }
            _ => {}
        }
    }
    if !user_set("Threads") && engine.option("Threads").is_some() {
        engine.set_option("Threads", "1")?;
    }
    engine.is_ready(timeout)?;
    Ok(engine)
}

/// A match in progress: the engines stay up between games and are restarted after a crash
/// or a time-out.
#[derive(Debug)]
pub struct Match {
    config: MatchConfig,
    engines: [Option<UciEngine>; 2],
    names: [String; 2],
    order: Vec<usize>,
    played: u32,
    /// Why the match stopped before its last game (an engine that cannot be restarted).
    stopped: Option<String>,
}

impl Match {
    /// Starts both engines (an engine that cannot start is an error, not a forfeit).
    pub fn start(config: MatchConfig) -> Result<Match, MatchError> {
        let mut engines = [None, None];
        let mut ids = [String::new(), String::new()];
        for (i, spec) in config.engines.iter().enumerate() {
            let e = start_engine(spec, config.variant, config.start_timeout).map_err(|source| MatchError::Engine {
                number: i + 1,
                command: spec.command.to_string(),
                source,
            })?;
            ids[i] = e.name().to_string();
            engines[i] = Some(e);
        }
        let mut names = [0, 1].map(|i| config.engines[i].name.clone().unwrap_or_else(|| ids[i].clone()));
        if names[0] == names[1] {
            names = [format!("{} (1)", names[0]), format!("{} (2)", names[1])];
        }
        let mut order: Vec<usize> = (0..config.openings.len().max(1)).collect();
        if let Some(seed) = config.seed {
            order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        }
        Ok(Match { config, engines, names, order, played: 0, stopped: None })
    }

    /// The names of A and B as results and PGN show them.
    pub fn names(&self) -> [&str; 2] {
        [&self.names[0], &self.names[1]]
    }

    /// The configuration.
    pub fn config(&self) -> &MatchConfig {
        &self.config
    }

    /// Games played so far.
    pub fn played(&self) -> u32 {
        self.played
    }

    /// The opening and colours of game `index` (0-based): openings in (shuffled) order, each
    /// twice, A white in the first of the two.
    pub fn schedule(&self, index: u32) -> (usize, bool) {
        let pair = (index / 2) as usize;
        (self.order[pair % self.order.len()], index.is_multiple_of(2))
    }

    /// Plays the next game, or returns `None` when all are played, or when an engine cannot
    /// be brought up for it (restarted after a crash or a hang, it fails to start again): the
    /// match stops there, as cutechess-cli stops a tournament, rather than scoring the games
    /// left as forfeits nobody played ([`Match::stopped`] says why).
    pub fn next_game(&mut self) -> Option<GameRecord> {
        if self.played >= self.config.games || self.stopped.is_some() {
            return None;
        }
        // Both engines up and told that a new game begins.
        for i in 0..2 {
            if let Err(detail) = self.ready(i) {
                self.stopped = Some(format!("{}: {detail}", self.names[i]));
                return None;
            }
        }
        let (opening, a_white) = self.schedule(self.played);
        self.played += 1;
        Some(self.play_game(self.played, opening, a_white))
    }

    /// Why the match stopped before its last game, if it did.
    pub fn stopped(&self) -> Option<&str> {
        self.stopped.as_deref()
    }

    /// Makes engine `i` ready for a new game, restarting it once if needed.
    fn ready(&mut self, i: usize) -> Result<&mut UciEngine, String> {
        let timeout = self.config.start_timeout;
        let mut first_error = None;
        if let Some(e) = self.engines[i].as_mut() {
            if let Err(err) = e.new_game(timeout) {
                first_error = Some(err.to_string());
                self.engines[i] = None;
            }
        }
        if self.engines[i].is_none() {
            let mut e = start_engine(&self.config.engines[i], self.config.variant, timeout).map_err(|err| {
                let before = first_error.map_or_else(String::new, |f| format!("{f}; "));
                format!("{before}restart failed: {err}")
            })?;
            e.new_game(timeout).map_err(|err| format!("after restart: {err}"))?;
            self.engines[i] = Some(e);
        }
        self.engines[i].as_mut().ok_or_else(|| "engine not running".to_string())
    }

    fn play_game(&mut self, number: u32, opening: usize, a_white: bool) -> GameRecord {
        let config = self.config.clone();
        let (start, opening_id) = match config.openings.get(opening) {
            Some(o) => (o.position.clone(), o.id.clone()),
            None => (Position::start(config.variant), None),
        };
        let engine_of = |c: Color| usize::from((c == Color::White) != a_white);
        let mut record = GameRecord {
            number,
            opening,
            opening_id,
            a_white,
            white: self.names[engine_of(Color::White)].clone(),
            black: self.names[engine_of(Color::Black)].clone(),
            time: config.time,
            start: start.clone(),
            moves: Vec::new(),
            winner: None,
            termination: Termination::MaxPlies,
            final_fen: start.fen(),
        };
        let forfeit = |record: &mut GameRecord, loser: Color, kind: ForfeitKind, detail: String| {
            record.winner = Some(!loser);
            record.termination = Termination::Forfeit { kind, detail };
        };

        // Step 1 (both engines up and told that a new game begins) is `next_game`'s.

        let start_fen = start.fen();
        let mut game = Game::new(start);
        let mut uci_moves: Vec<String> = Vec::new();
        let mut clocks = match config.time {
            TimeControl::Clock { base, .. } => [base, base],
            TimeControl::MoveTime(_) => [Duration::ZERO; 2],
        };
        // What each side's clock is below zero (an overrun within the margin).
        let mut owed = [Duration::ZERO; 2];
        let mut adjudicator = Adjudicator::new(config.adjudication);
        loop {
            // Step 2. The rules end the game first, then the adjudication rules.
            if let Some(outcome) = game.outcome() {
                let (winner, reason) = match outcome {
                    Outcome::Decisive { winner, reason } => (Some(winner), reason),
                    Outcome::Draw { reason } => (None, reason),
                };
                record.winner = winner;
                record.termination = Termination::Rules(reason);
                break;
            }
            if let Some((winner, termination)) = adjudicator.verdict(game.position().fullmoves()) {
                record.winner = winner;
                record.termination = termination;
                break;
            }
            if config.adjudication.max_plies.is_some_and(|max| record.moves.len() >= max as usize) {
                record.winner = None;
                record.termination = Termination::MaxPlies;
                break;
            }

            // Step 3. Ask the side to move.
            let turn = game.position().turn();
            let i = engine_of(turn);
            let name = self.names[i].clone();
            let (go, allowed) = match config.time {
                TimeControl::MoveTime(t) => (Go::MoveTime(t), t + config.margin),
                // A clock overdrawn (within the margin) is sent as zero; what it owes shortens the
                // margin left, so overruns add up to a time forfeit as on cutechess's clocks.
                TimeControl::Clock { increment, .. } => (
                    Go::Clock { wtime: clocks[0], btime: clocks[1], winc: increment, binc: increment },
                    clocks[turn.index()] + config.margin.saturating_sub(owed[turn.index()]),
                ),
            };
            let reply = match self.engines[i].as_mut() {
                Some(e) => e.position(&start_fen, &uci_moves).and_then(|()| e.go(&go, allowed)),
                None => {
                    forfeit(&mut record, turn, ForfeitKind::Crash, format!("{name} is not running"));
                    break;
                }
            };
            let best = match reply {
                Ok(best) => best,
                Err(err) => {
                    let kind = match err {
                        UciClientError::Timeout { .. } => ForfeitKind::TimeOut,
                        UciClientError::Protocol { .. } => ForfeitKind::IllegalMove,
                        _ => ForfeitKind::Crash,
                    };
                    // A hung or broken engine is killed and restarted for the next game.
                    self.engines[i] = None;
                    forfeit(&mut record, turn, kind, format!("{err} (position {})", game.position().fen()));
                    break;
                }
            };
            if let TimeControl::Clock { increment, .. } = config.time {
                // The time used comes off the clock; beyond it, it is owed (the clock below zero),
                // and the increment pays what is owed first.
                let (clock, debt) = (&mut clocks[turn.index()], &mut owed[turn.index()]);
                *debt += best.elapsed.saturating_sub(*clock);
                *clock = clock.saturating_sub(best.elapsed) + increment;
                let paid = (*debt).min(*clock);
                *clock -= paid;
                *debt -= paid;
            }

            // Step 4. Check the move with our rules and play it.
            let pos = game.position().clone();
            let m = match parse_uci(&pos, &best.uci) {
                Ok(m) => m,
                Err(err) => {
                    // The error names the move and the position (it was said twice).
                    let detail = format!("{name} played {err}");
                    forfeit(&mut record, turn, ForfeitKind::IllegalMove, detail);
                    break;
                }
            };
            let san = to_san(&pos, m);
            if let Err(err) = game.play(m) {
                forfeit(&mut record, turn, ForfeitKind::IllegalMove, format!("{name} played '{}': {err}", best.uci));
                break;
            }
            uci_moves.push(to_uci(&pos, m));
            let white_cp = best.score.map(|s| if turn == Color::White { s } else { s.negate() }.centipawns());
            adjudicator.record(white_cp, game.position().halfmoves() == 0);
            record.moves.push(PlayedMove {
                uci: best.uci,
                san,
                score: best.score,
                depth: best.depth,
                elapsed: best.elapsed,
            });
        }
        record.final_fen = game.position().fen();
        record
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::variants;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.5), 0.0) && elo_from_score(0.5).is_sign_positive());
        assert!(close(elo_from_score(0.75), 400.0 * 3f64.log10()));
        assert!(close(elo_from_score(0.25), -400.0 * 3f64.log10()));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn stats_of_known_counts() {
        // 30 wins, 40 draws, 30 losses: s = 0.5, variance 0.3/4 + 0.3/4 = 0.15, error sqrt(0.0015).
        let s = score_stats(30, 40, 30).expect("games");
        let half = Z95 * 0.0015f64.sqrt();
        assert!(close(s.score, 0.5) && close(s.elo, 0.0));
        assert!(close(s.score_low, 0.5 - half) && close(s.score_high, 0.5 + half));
        assert!(close(s.elo_low, -400.0 * (1.0 / (0.5 - half) - 1.0).log10()));
        assert!(close(s.elo_low, -s.elo_high));
        // By hand: 0.5 ± 0.075909, Elo ± 53.16.
        assert!((s.score_high - 0.575909).abs() < 1e-6 && (s.elo_margin() - 53.158).abs() < 0.001);

        // 60/20/20: s = 0.7, variance 0.6·0.09 + 0.2·0.04 + 0.2·0.49 = 0.16.
        let s = score_stats(60, 20, 20).expect("games");
        let half = Z95 * 0.0016f64.sqrt();
        assert!(close(s.score, 0.7) && (s.elo - 147.19).abs() < 0.01);
        assert!(close(s.score_low, 0.7 - half) && close(s.score_high, 0.7 + half));

        // All won: the interval collapses on 1 and the Elo is infinite.
        let s = score_stats(4, 0, 0).expect("games");
        assert!(close(s.score_low, 1.0) && s.elo == f64::INFINITY);
        assert!(score_stats(0, 0, 0).is_none());
        // Only draws: no variance.
        let s = score_stats(0, 10, 0).expect("games");
        assert!(close(s.score_low, 0.5) && close(s.score_high, 0.5));
    }

    /// LOS as cutechess-cli computes it: 0.5·(1 + erf((W − L) / √(2(W + L)))).
    #[test]
    fn likelihood_of_superiority_and_draw_ratio() {
        let tally = |wins, draws, losses| Tally { wins, draws, losses, ..Tally::default() };
        // 57/8/35: z = 22/√92 = 2.2937, Φ(z) = 0.98910 (tables: 0.9891).
        let t = tally(57, 8, 35);
        assert!((t.los().expect("decisive games") - 0.98910).abs() < 1e-4, "{:?}", t.los());
        assert!(close(t.draw_ratio().expect("games"), 0.08));
        // Even: 0.5; no decisive game: none; no game: no draw ratio.
        assert!(close(tally(10, 79, 10).los().expect("decisive"), 0.5));
        assert_eq!(tally(0, 5, 0).los(), None);
        assert_eq!(tally(0, 0, 0).draw_ratio(), None);
        // 1/3/0: z = 1, Φ(1) = 0.841345.
        assert!((tally(1, 3, 0).los().expect("decisive") - 0.841345).abs() < 1e-6);
    }

    #[test]
    fn epd_and_fen_lines() {
        let (fen, id) =
            epd_to_fen(r#"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id "King's pawn; 1.e4";"#);
        assert_eq!(fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(id.as_deref(), Some("King's pawn; 1.e4"));
        let (fen, id) = epd_to_fen("rnbqk/ppppp/5/PPPPP/RNBQK w - - 3 7");
        assert_eq!((fen.as_str(), id), ("rnbqk/ppppp/5/PPPPP/RNBQK w - - 3 7", None));
        let (fen, _) = epd_to_fen("rnbqk/ppppp/5/PPPPP/RNBQK w - - hmvc 2; fmvn 5;");
        assert_eq!(fen, "rnbqk/ppppp/5/PPPPP/RNBQK w - - 2 5");
        let (fen, id) = epd_to_fen("8/8/8/8/8/8/8/K6k w - - 0 1 id \"x\";");
        assert_eq!((fen.as_str(), id.as_deref()), ("8/8/8/8/8/8/8/K6k w - - 0 1", Some("x")));
    }

    #[test]
    fn openings_files() {
        let chess = variants::by_name("chess").expect("chess");
        let text = "# comment\n\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n";
        let o = parse_openings(chess, text).expect("valid");
        assert_eq!((o.len(), o[0].line, o[0].id.as_deref()), (1, 3, Some("e4")));
        let bad = parse_openings(chess, "rnbqkbnr/pppppppp/8/8 w KQkq -\n");
        assert!(matches!(bad, Err(OpeningError::Fen { line: 1, .. })));
        let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert!(matches!(parse_openings(chess, mated), Err(OpeningError::Finished { .. })));
    }

    #[test]
    fn resign_and_draw_rules() {
        let rules = Adjudication {
            max_plies: None,
            resign: Some(ResignRule { moves: 2, score_cp: 1000 }),
            draw: Some(DrawRule { after_move: 10, moves: 2, score_cp: 10 }),
        };
        let mut a = Adjudicator::new(rules);
        for cp in [1200, 1500, 900, 1100, 1100, 1100] {
            assert!(a.verdict(1).is_none());
            a.record(Some(cp), false);
        }
        assert!(a.verdict(1).is_none());
        a.record(Some(100_000), false);
        assert_eq!(a.verdict(1), Some((Some(Color::White), Termination::ResignAdjudication)));
        // A missing score breaks the run; the other side's run starts over.
        let mut a = Adjudicator::new(rules);
        for cp in [-1200, -1500, -1300, 2000, -1500, -1500, -1500] {
            a.record(Some(cp), false);
        }
        assert!(a.verdict(1).is_none());
        a.record(Some(-1500), false);
        assert_eq!(a.verdict(1), Some((Some(Color::Black), Termination::ResignAdjudication)));

        let mut a = Adjudicator::new(rules);
        for _ in 0..4 {
            a.record(Some(5), false);
        }
        assert!(a.verdict(10).is_none(), "not before move 10");
        assert_eq!(a.verdict(11), Some((None, Termination::DrawAdjudication)));
        a.record(Some(0), true);
        assert!(a.verdict(11).is_none(), "a capture or pawn move starts the count again");
    }

    #[test]
    fn pgn_dates() {
        assert_eq!(pgn_date(UNIX_EPOCH), "1970.01.01");
        assert_eq!(pgn_date(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000.02.29");
        assert_eq!(pgn_date(UNIX_EPOCH + Duration::from_secs(1_735_689_599)), "2024.12.31");
    }
}
