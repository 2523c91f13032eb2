//! Game records: PGN for every built-in variant, with SnowFall's holdings and gift comments (`{H:Qp gift W:Q B:P}`)
//! and Probabilistic chess's map tag and rolls (`{37%: ok}`); writing, reading, and inferring gifts from holdings.
//!
//! A record is the seven-tag roster, `[Variant "SnowFall"]` and `[SnowFall "N"]` for SnowFall games,
//! `[Variant "Probabilistic"]`, `[ProbabilisticOptions "..."]` (options other than the default only) and
//! `[Probabilities "..."]` (the start position's square map) for Probabilistic chess, `[SetUp "1"]` and
//! `[FEN "..."]` for a start other than the variant's, then the movetext. In a variant with hands every move
//! is followed by a comment that starts with the holdings after the move (and after its gift): `H:`, White's
//! pieces in upper case, then Black's in lower case, each side in the order Q R B N P (then any other piece
//! in the variant's order); `{H:}` when both hands are empty. A gift that arrived after the move follows in
//! the same comment as `gift W:<white's part> B:<black's part>` (`-` for nothing), and a move that failed
//! (a chance variant such as `coinflip`) carries `failed`:
//!
//! ```text
//! 1. e4 {H:} 1... e5 {H:} 2. Nf3 {H:Pp gift W:P B:P} 2... Nc6 {H:Pp} 3. Bc4 {H:NPbp gift W:N B:B}
//! ```
//!
//! In Probabilistic chess every move but a pass (`--`) is followed by its roll: the percentage with
//! which it succeeds in its position (the destination's, with the variant's king option) and the result,
//! `ok` or `failed`:
//!
//! ```text
//! 1. e4 {37%: ok} 1... e5 {81%: failed} 2. Nf3 {12%: ok}
//! ```
//!
//! A reader takes the annotations from the start of a comment (`H:...`, `gift W:.. B:..`, `failed`, `P%: ok`);
//! the first other word begins free text, which is ignored. A Probabilistic record needs its `Probabilities`
//! tag ([`RecordError::MissingProbabilities`]) and a roll after every move but a pass
//! ([`RecordError::MissingRoll`]), and a roll must give the move's own percentage ([`RecordError::BadRoll`]).
//! A move with holdings but no `gift` note (a record written by hand in the seed's style) gets the gift that
//! explains the holdings: the holdings the move reaches without a gift (a drop takes its piece from the hand)
//! subtracted from the ones written. The difference must be an outcome SnowFall's generator can give there
//! (`gift::event_outcomes`, caps included); a piece that disappears, or anything no gift gives, is
//! [`RecordError::HoldingsMismatch`] naming the move. The format is described in `docs/FORMATS.md` § Game
//! records (PGN).

use crate::bitboard::Bitboard;
use crate::chance::{ChanceRule, Event, KingMoves};
use crate::color::Color;
use crate::fen::ParseFenError;
use crate::game::Game;
use crate::gift::{self, Gift, Gifts, Kind};
use crate::hand::Hand;
use crate::moves::Move;
use crate::piece::Role;
use crate::position::Position;
use crate::san::{to_san_plain, SanError};
use crate::square_map::SquareMap;
use crate::uci::{parse_uci, UciError};
use crate::variant::Variant;
use crate::variants::probabilistic::{self, ProbOptions};
use crate::variants::{self, snowfall};
use std::fmt;

/// Where a move stands in the game: its full-move number and the side that played it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MoveNumber {
    /// The full-move number (the FEN's sixth field before the move).
    pub number: u32,
    /// The side that played the move.
    pub color: Color,
}

/// `12.` for White's move, `12...` for Black's, as PGN writes them.
impl fmt::Display for MoveNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.color {
            Color::White => write!(f, "{}.", self.number),
            Color::Black => write!(f, "{}...", self.number),
        }
    }
}

/// Why a text is not a readable game record. Every error names its line, and errors about a move
/// name the move (`move 5... Q@f2`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// Not PGN structure: an unterminated comment or variation, an unmatched `)`, a stray `]` or `}`.
    #[error("line {line}: {message}")]
    Syntax {
        /// The line (1-based) where the fault starts.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A tag that is malformed, given twice, or contradicts another (`SetUp "1"` without a FEN).
    #[error("line {line}: bad tag: {message}")]
    BadTag {
        /// The tag's line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The `Variant` tag names no built-in variant.
    #[error("line {line}: unknown variant '{name}'")]
    UnknownVariant {
        /// The tag's line.
        line: usize,
        /// The name given.
        name: String,
    },
    /// The record is of a variant played in simultaneous plies (Predictor chess), whose
    /// records have their own format ([`crate::predictor::record`]).
    #[error(
        "line {line}: a {name} record: both sides order at once each ply, so its plies are not moves \
         played in turn (`fairylab predictor referee --record` continues one, `fairylab verify-game` checks one)"
    )]
    Simultaneous {
        /// The `Variant` tag's line.
        line: usize,
        /// The variant's name.
        name: String,
    },
    /// The `SnowFall` tag is not an integer percentage from 0 to 100.
    #[error("line {line}: SnowFall percentage '{value}' is not an integer from 0 to 100")]
    BadPercent {
        /// The tag's line.
        line: usize,
        /// The value given.
        value: String,
    },
    /// The `FEN` tag is not a position of the variant.
    #[error("line {line}: bad FEN '{fen}': {error}")]
    BadFen {
        /// The tag's line.
        line: usize,
        /// The FEN given.
        fen: String,
        /// Why it does not parse.
        error: ParseFenError,
    },
    /// A move that is not SAN or UCI, or not legal (or ambiguous) in its position.
    #[error("line {line}: move {at} {text}: {reason} in {fen}")]
    IllegalMove {
        /// The move's line.
        line: usize,
        /// The move's number.
        at: MoveNumber,
        /// The move as written.
        text: String,
        /// What is wrong.
        reason: String,
        /// The position before the move.
        fen: String,
    },
    /// A `gift` note that is malformed or impossible (a failed move, a variant without hands).
    #[error("line {line}: move {at} {san}: bad gift '{text}': {reason}")]
    BadGift {
        /// The comment's line.
        line: usize,
        /// The move's number.
        at: MoveNumber,
        /// The move as written.
        san: String,
        /// The note as written.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// An `H:` note that does not spell holdings of the variant.
    #[error("line {line}: move {at} {san}: bad holdings 'H:{text}': {reason}")]
    BadHoldings {
        /// The comment's line.
        line: usize,
        /// The move's number.
        at: MoveNumber,
        /// The move as written.
        san: String,
        /// The letters as written.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The holdings written after a move are not the ones the game reaches (with its gift, or with
    /// any gift that could have arrived).
    #[error("line {line}: move {at} {san}: holdings H:{found} cannot follow (H:{expected} without a gift): {reason}")]
    HoldingsMismatch {
        /// The comment's line.
        line: usize,
        /// The move's number.
        at: MoveNumber,
        /// The move as written.
        san: String,
        /// The holdings the move reaches before any gift (after the recorded gift, if one was noted).
        expected: String,
        /// The holdings written.
        found: String,
        /// Why they cannot follow.
        reason: String,
    },
    /// A Probabilistic game without a `Probabilities` tag (its start map).
    #[error(
        "line {line}: a Probabilistic game needs a Probabilities tag: the start map's 64 percentages, a8..h1, \
         ',' between squares and '/' between ranks"
    )]
    MissingProbabilities {
        /// The `Variant` tag's line.
        line: usize,
    },
    /// A `Probabilities` tag that is not a square map of 64 percentages, marks blocked squares, or
    /// differs from the map in the `FEN` tag.
    #[error("line {line}: bad Probabilities tag: {reason}")]
    BadProbabilities {
        /// The tag's line.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A move of a Probabilistic game (not a pass) without its roll (`{37%: ok}`, `{37%: failed}`).
    #[error(
        "line {line}: move {at} {san}: the roll is missing (every move of a Probabilistic game but a pass is \
         followed by {{P%: ok}} or {{P%: failed}})"
    )]
    MissingRoll {
        /// The move's line.
        line: usize,
        /// The move's number.
        at: MoveNumber,
        /// The move as written.
        san: String,
    },
    /// A roll note that is malformed, given twice, outside Probabilistic chess, impossible (`0%: ok`,
    /// `100%: failed`), or whose percentage is not the move's.
    #[error("line {line}: move {at} {san}: bad roll '{text}': {reason}")]
    BadRoll {
        /// The comment's line.
        line: usize,
        /// The move's number.
        at: MoveNumber,
        /// The move as written.
        san: String,
        /// The note as written.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The text holds no game.
    #[error("no game in the text")]
    NoGame,
}

/// A game read from a record, with the tags as written.
#[derive(Debug, Clone)]
pub struct Record {
    /// The tags in the order written (names and unescaped values).
    pub tags: Vec<(String, String)>,
    /// The game.
    pub game: Game,
    /// What the record says of each move beyond the rules (`annotations[ply]`): its NAGs (`$1`,
    /// and `!`, `?`, `!!`, `??`, `!?`, `?!` as `$1` to `$6`) and the free text of its comments,
    /// commands such as `[%clk 0:03:00]` included; SnowFall's holdings and gifts and
    /// Probabilistic chess's rolls are the game's own, not here.
    pub annotations: Vec<Annotation>,
    /// The comment before the first move (python-chess's `Game.comment`), commands included.
    pub comment: Option<String>,
    /// The variations (PGN's `( ... )`), nested ones too, in the order written, each as a whole
    /// line from the game's start. Read in variants without chance only: a SnowFall or
    /// Probabilistic variation would need its gifts or rolls ([`Record::unread_variations`]).
    pub variations: Vec<Variation>,
    /// Why a variation was not kept whole: a move in it that is illegal or does not read (it
    /// ends the variation there: the moves before it are kept, with the variations that leave
    /// them; the main line's moves are errors of the record), or a variant with chance.
    pub unread_variations: Vec<RecordError>,
}

/// A variation of a record: another line from a point of the main line or of another
/// variation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variation {
    /// The whole line from the game's start: the moves of the line it leaves, then its own.
    pub line: Vec<Move>,
    /// Where it parts: `line[..parts]` are the moves before it, `line[parts]` the move it
    /// plays instead of that line's.
    pub parts: usize,
    /// What the record says of its own moves (`annotations[i]` of `line[parts + i]`), as
    /// [`Record::annotations`] of the main line's; missing ones are none.
    pub annotations: Vec<Annotation>,
    /// The comment before its first move (`( {comment} 1... c5 )`, python-chess's
    /// `starting_comment`).
    pub comment: Option<String>,
}

impl Variation {
    /// A variation without annotations: the whole `line`, parting at `parts`.
    pub fn new(line: Vec<Move>, parts: usize) -> Variation {
        Variation { line, parts, annotations: Vec::new(), comment: None }
    }
}

impl Record {
    /// The value of a tag, the name compared without case (`variant` is `Variant`, as hand-written
    /// records spell it).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// The seven-tag roster in its order, with the defaults for unknown values (Result is derived).
const ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Tags the writer derives from the game, whatever the caller passes.
const DERIVED: [&str; 6] = ["Variant", "SnowFall", "ProbabilisticOptions", "Probabilities", "SetUp", "FEN"];

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// The widest movetext line the writer produces.
const LINE_WIDTH: usize = 80;

/// Writes `game` as PGN.
///
/// `tags` fills the seven-tag roster (`Event`, `Site`, `Date`, `Round`, `White`, `Black`, `Result`;
/// defaults `?`, `????.??.??` and the game's result or `*`); the other tags follow the derived ones in
/// the order given. `Variant`, `SnowFall`, `ProbabilisticOptions`, `Probabilities`, `SetUp` and `FEN`
/// always come from the game, and a tag whose name is not letters, digits and `_`, or a `Result` that is
/// not a PGN result, is left out. In Probabilistic chess the start's map goes into `Probabilities` and
/// `FEN` is written only if the start differs from the standard one in more than the map; every move but
/// a pass gets its roll (`{37%: ok}`). Movetext lines are at most 80 columns (a longer comment stands
/// alone on its line).
///
/// ```
/// use rules::chance::Event;
/// use rules::game::Game;
/// use rules::gift::Gifts;
/// use rules::record::{read_pgn, write_pgn};
/// use rules::san::parse_san;
/// use rules::variants::snowfall;
/// use rules::Position;
///
/// let mut game = Game::new(Position::start(snowfall::variant(20)));
/// let e4 = parse_san(game.position(), "e4").unwrap();
/// let gifts = Gifts { white: "Q".parse().unwrap(), black: "Q".parse().unwrap() };
/// game.play_event(e4, Event::Gift(gifts)).unwrap();
/// let pgn = write_pgn(&game, &[("White".to_string(), "Snow".to_string())]);
/// assert!(pgn.contains("[Variant \"SnowFall\"]\n[SnowFall \"20\"]\n"));
/// assert!(pgn.ends_with("\n1. e4 {H:Qq gift W:Q B:Q} *\n"));
/// assert_eq!(read_pgn(&pgn).unwrap().position(), game.position());
/// ```
pub fn write_pgn(game: &Game, tags: &[(String, String)]) -> String {
    write_pgn_annotated(game, tags, &[])
}

/// What a record says of a move beyond the rules: NAGs (a review's `$2` a mistake, `$4` a
/// blunder, `$6` an inaccuracy) and a comment (lichess writes `[%eval 0.25] Inaccuracy. Nf3 was
/// best.`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotation {
    /// The NAG numbers, written `$n` after the move.
    pub nags: Vec<u8>,
    /// The comment, written after the move's own notes (holdings, gift, roll); it may not
    /// begin with a note's word (`H:`, `gift`, `failed`, `N%:`), which the reader would take
    /// for one. Braces are dropped.
    pub comment: Option<String>,
}

impl Annotation {
    /// Adds `other`'s notes of the same move to these (a move two lines note): the NAGs of
    /// both, each once, and the comments one after the other (one, if they are the same).
    pub fn join(&mut self, other: &Annotation) {
        add_nags(&mut self.nags, other.nags.iter().copied());
        join_comment(&mut self.comment, other.comment.as_deref());
    }

    /// Whether there is nothing to write: no NAG and no comment.
    pub fn is_empty(&self) -> bool {
        self.nags.is_empty() && self.comment.is_none()
    }
}

/// Why `comment` cannot be written as a move's comment in a record of `v`: it begins (after
/// its `[%...]` commands) with a word the reader takes for one of the move's notes (`H:` holdings,
/// `gift W:..`, `failed` where a move can fail, a roll `37%: ok`), so the record would not read
/// back as written. `None` if it can.
pub fn comment_error(v: &Variant, comment: &str) -> Option<String> {
    let (_, rest) = split_commands(comment);
    let mut words = rest.split_whitespace();
    let first = words.next()?;
    let what = note_kind(v, first, words.next())?;
    Some(format!("a comment may not begin with '{first}': a record reads it as the move's {what}"))
}

/// The note a comment's word `word` (followed by `next`) begins in a record of `v`, if any:
/// `holdings` (`H:...`, where players have hands), `gift` (`gift W:..`, where gifts arrive),
/// `failure` (`failed`, where a move can fail) or `roll` (`37%: ok`, in Probabilistic chess).
/// Elsewhere the same words are free text ("failed to see the fork", "30%: a guess").
fn note_kind(v: &Variant, word: &str, next: Option<&str>) -> Option<&'static str> {
    if word.starts_with("H:") && v.drops {
        Some("holdings")
    } else if word == "gift"
        && next.is_some_and(|n| n.starts_with("W:"))
        && matches!(v.chance, ChanceRule::Gifts { .. })
    {
        Some("gift")
    } else if word == "failed" && !matches!(v.chance, ChanceRule::None | ChanceRule::Gifts { .. }) {
        Some("failure")
    } else if word.contains("%:") && probabilistic::options(v).is_some() {
        Some("roll")
    } else {
        None
    }
}

/// [`write_pgn`] with an annotation for each move (`annotations[ply]`; missing ones are none).
/// The record reads back into the same game: NAGs and free comments are skipped by the reader.
pub fn write_pgn_annotated(game: &Game, tags: &[(String, String)], annotations: &[Annotation]) -> String {
    write_pgn_with(game, tags, annotations, &[])
}

/// [`write_pgn_annotated`] with variations, written in parentheses after the move each replaces
/// (`1. e4 e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3`), as [`read_record`] reads them back. Each is a
/// whole line from the game's start ([`Variation::line`], its `parts` not needed: a line is
/// placed where it leaves the lines before it), with its comments and NAGs; a line that is the
/// start of another, or that does not play from the start, adds nothing (a move two lines share
/// keeps the first one's annotation). Variations are written in variants without chance only (a
/// side line of SnowFall or Probabilistic chess would need its gifts or rolls).
pub fn write_pgn_with(
    game: &Game,
    tags: &[(String, String)],
    annotations: &[Annotation],
    variations: &[Variation],
) -> String {
    write(game, tags, None, annotations, variations)
}

/// A record written whole: its tags, the comment before its first move, its moves'
/// annotations and its variations ([`write_pgn_with`]). What [`read_record`] reads, it writes
/// back.
pub fn write_record(record: &Record) -> String {
    write(&record.game, &record.tags, record.comment.as_deref(), &record.annotations, &record.variations)
}

fn write(
    game: &Game,
    tags: &[(String, String)],
    comment: Option<&str>,
    annotations: &[Annotation],
    variations: &[Variation],
) -> String {
    let start = game.start();
    let v = start.variant();
    let given = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, value)| value.as_str());
    let result = match given("Result") {
        Some(r) if RESULTS.contains(&r) => r,
        _ => game.outcome().map_or("*", |o| o.result()),
    };
    let mut out = String::new();
    for (name, default) in ROSTER {
        let value = if name == "Result" { result } else { given(name).unwrap_or(default) };
        push_tag(&mut out, name, value);
    }
    let options = probabilistic::options(v);
    // Probabilistic chess: the map is the game's, so the start is set up only if the rest differs.
    let standard = match options {
        Some(_) => probabilistic::start(v, &start.square_map()),
        None => Position::start(v),
    };
    if let Some(percent) = snowfall::percent(v) {
        // A variant built on SnowFall (a variant file) by its own name, with its percentage.
        push_tag(&mut out, "Variant", if v.name == "snowfall" { "SnowFall" } else { &v.name });
        push_tag(&mut out, "SnowFall", &percent.to_string());
    } else if let Some(options) = options {
        push_tag(&mut out, "Variant", "Probabilistic");
        if options != ProbOptions::default() {
            push_tag(&mut out, "ProbabilisticOptions", &options_text(options));
        }
        push_tag(&mut out, "Probabilities", &start.square_map().write(Bitboard::EMPTY, v.geometry));
    } else if v.name == "chess960" || v.name == "crazyhouse" {
        // As lichess writes them (python-chess reads both spellings).
        push_tag(&mut out, "Variant", if v.name == "chess960" { "Chess960" } else { "Crazyhouse" });
    } else if v.name != "chess" {
        push_tag(&mut out, "Variant", &v.name);
    }
    // Chess960 names its start even when it is the standard one (number 518), as lichess does:
    // a reader sees which of the 960 was played.
    if *start != standard || v.name == "chess960" {
        push_tag(&mut out, "SetUp", "1");
        push_tag(&mut out, "FEN", &start.fen());
    }
    let reserved = |n: &str| ROSTER.iter().any(|(r, _)| *r == n) || DERIVED.iter().any(|d| d.eq_ignore_ascii_case(n));
    for (name, value) in tags {
        if !reserved(name) && is_tag_name(name) {
            push_tag(&mut out, name, value);
        }
    }
    out.push('\n');

    // Step 1. Tokens: move numbers, moves with their check marks, comments, variations, the result.
    let mut tokens = Vec::with_capacity(game.moves().len() * 3 + 1);
    let mut pos = start.clone();
    let mut number_black = true;
    if let Some(c) = comment.map(comment_text).filter(|c| !c.is_empty()) {
        tokens.push(format!("{{{c}}}"));
    }
    // The variations as a tree over the main line (`side.at(ply)`: the lines that leave it there).
    let side = if v.chance == ChanceRule::None { Tree::of(game.moves(), variations, start) } else { Tree::default() };
    for (ply, (&m, &event)) in game.moves().iter().zip(game.events()).enumerate() {
        let before = pos.clone();
        let mut san = numbered_san(&pos, m, number_black);
        let percent = pos.success_percent(m);
        pos.play_event(m, event);
        if event != Event::Failure {
            san.push_str(crate::san::check_mark(&pos));
        }
        tokens.push(san);
        let note = annotations.get(ply);
        tokens.extend(nag_tokens(note.map_or(&[][..], |a| &a.nags[..])));
        let mut notes = Vec::new();
        if v.drops {
            notes.push(format!("H:{}", holdings_text(v, &hands(&pos))));
        }
        match event {
            Event::Gift(g) => notes.push(format!("gift {g}")),
            Event::Failure if options.is_none() => notes.push("failed".to_string()),
            _ => {}
        }
        if options.is_some() && !m.is_pass() {
            notes.push(format!("{percent}%: {}", if event == Event::Failure { "failed" } else { "ok" }));
        }
        let comment = note.and_then(|a| a.comment.as_deref()).map(comment_text).filter(|c| !c.is_empty());
        // After a comment, Black's move repeats its number (PGN export format, 8.2.2.2).
        number_black = !notes.is_empty() || comment.is_some();
        if !notes.is_empty() {
            tokens.push(format!("{{{}}}", notes.join(" ")));
        }
        if let Some(c) = comment {
            tokens.push(format!("{{{c}}}"));
        }
        let alternatives = side.at(ply);
        for alt in &alternatives {
            side_line(&before, alt, &mut tokens);
        }
        number_black |= !alternatives.is_empty();
    }
    tokens.push(result.to_string());
    let tokens = join_parentheses(tokens);

    // Step 2. Lines of at most LINE_WIDTH columns, broken between tokens.
    out.push_str(&wrap(tokens, LINE_WIDTH));
    out
}

/// A move of a variation and the lines that go on from it: `next[0]` continues it, the others
/// are variations of that continuation.
#[derive(Debug)]
struct Branch {
    m: Move,
    /// What the record says of the move.
    note: Annotation,
    /// The comment before the move, where a variation starts with it.
    start: Option<String>,
    next: Vec<Branch>,
}

/// The variations of a main line, by the ply where they leave it.
#[derive(Debug, Default)]
struct Tree {
    /// `(ply, branch)`: a line that plays `branch.m` instead of the main line's move `ply`.
    leaving: Vec<(usize, Branch)>,
}

impl Tree {
    /// The tree of `variations` (whole lines from `start`) over the main line `main`: each line
    /// joins the branch it shares its longest start with. Lines that do not play from `start`
    /// are left out.
    fn of(main: &[Move], variations: &[Variation], start: &Position) -> Tree {
        let mut tree = Tree::default();
        for v in variations {
            if !plays_from(start, &v.line) {
                continue;
            }
            let parts = v.line.iter().zip(main).take_while(|(a, b)| a == b).count();
            if parts == v.line.len() {
                continue;
            }
            // Each move with what the variation says of it (its own moves only: the ones it
            // shares with the line it leaves are that line's).
            let rest: Vec<Branch> = (parts..v.line.len())
                .map(|i| Branch {
                    m: v.line[i],
                    note: i.checked_sub(v.parts).and_then(|k| v.annotations.get(k)).cloned().unwrap_or_default(),
                    start: if i == v.parts { v.comment.clone() } else { None },
                    next: Vec::new(),
                })
                .collect();
            let mut rest = rest.into_iter();
            let Some(first) = rest.next() else { continue };
            match tree.leaving.iter_mut().find(|(p, b)| *p == parts && b.m == first.m) {
                Some((_, b)) => b.join(first, rest),
                None => {
                    let mut b = Branch { next: Vec::new(), ..first };
                    b.insert(rest);
                    tree.leaving.push((parts, b));
                }
            }
        }
        tree
    }

    /// The lines that leave the main line instead of its move `ply`.
    fn at(&self, ply: usize) -> Vec<&Branch> {
        self.leaving.iter().filter(|(p, _)| *p == ply).map(|(_, b)| b).collect()
    }
}

impl Branch {
    /// Adds `same`'s annotations to this branch's (the same move, noted by two lines: their
    /// NAGs together, their comments one after the other), then the moves `rest` after it.
    fn join(&mut self, same: Branch, rest: impl Iterator<Item = Branch>) {
        self.note.join(&same.note);
        join_comment(&mut self.start, same.start.as_deref());
        self.insert(rest);
    }

    /// Adds the moves `rest`, which follow this branch's move.
    fn insert(&mut self, mut rest: impl Iterator<Item = Branch>) {
        let Some(first) = rest.next() else { return };
        match self.next.iter_mut().find(|b| b.m == first.m) {
            Some(b) => b.join(first, rest),
            None => {
                let mut b = first;
                b.insert(rest);
                self.next.push(b);
            }
        }
    }
}

/// Whether every move of `line` is legal in turn from `start`.
fn plays_from(start: &Position, line: &[Move]) -> bool {
    let mut pos = start.clone();
    line.iter().all(|&m| {
        let legal = pos.legal_moves().contains(&m);
        if legal {
            pos.play_unchecked(m);
        }
        legal
    })
}

/// The tokens of the variation `branch` from `pos`, in parentheses, its comment before its
/// first move.
fn side_line(pos: &Position, branch: &Branch, tokens: &mut Vec<String>) {
    tokens.push("(".into());
    if let Some(c) = branch.start.as_deref().map(comment_text).filter(|c| !c.is_empty()) {
        tokens.push(format!("{{{c}}}"));
    }
    go_on(pos, std::slice::from_ref(branch), tokens);
    tokens.push(")".into());
}

/// The tokens of the line that goes on from `pos` with `next[0]`, the others of `next` (and of
/// every later branching) in parentheses after the move they replace. Each move is followed by
/// its NAGs, holdings and comment. The first move is numbered (Black's as `1...`), as is Black's
/// move after a comment or a variation.
fn go_on(pos: &Position, next: &[Branch], tokens: &mut Vec<String>) {
    let (mut pos, mut next, mut number_black) = (pos.clone(), next, true);
    while let Some((main, others)) = next.split_first() {
        let m = main.m;
        let before = pos.clone();
        let mut san = numbered_san(&pos, m, number_black);
        pos.play_unchecked(m);
        san.push_str(crate::san::check_mark(&pos));
        tokens.push(san);
        tokens.extend(nag_tokens(&main.note.nags));
        let v = pos.variant();
        if v.drops {
            tokens.push(format!("{{H:{}}}", holdings_text(v, &hands(&pos))));
        }
        let comment = main.note.comment.as_deref().map(comment_text).filter(|c| !c.is_empty());
        number_black = v.drops || comment.is_some() || !others.is_empty();
        if let Some(c) = comment {
            tokens.push(format!("{{{c}}}"));
        }
        for other in others {
            side_line(&before, other, tokens);
        }
        next = &main.next;
    }
}

/// A comment as it can be written between braces: without braces (which would end it) and
/// control characters, its whitespace one space (a blank line in a comment would end a game
/// for the many tools that split a file at blank lines; the reader takes a run of whitespace
/// as one space anyway).
fn comment_text(comment: &str) -> String {
    let plain: String =
        comment.chars().filter(|c| !matches!(c, '{' | '}')).map(|c| if c.is_control() { ' ' } else { c }).collect();
    plain.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The NAG tokens of a move (`$1 $14`), each NAG once.
fn nag_tokens(nags: &[u8]) -> impl Iterator<Item = String> + '_ {
    nags.iter().enumerate().filter(|(i, n)| !nags[..*i].contains(n)).map(|(_, n)| format!("${n}"))
}

/// A move in SAN after its number (`12. e4`; Black's `12... e5` only if `number_black`), one
/// token, so that no line ends between the two; without its check mark.
fn numbered_san(pos: &Position, m: Move, number_black: bool) -> String {
    let mut san = match pos.turn() {
        Color::White => format!("{}. ", pos.fullmoves()),
        Color::Black if number_black => format!("{}... ", pos.fullmoves()),
        Color::Black => String::new(),
    };
    san.push_str(&to_san_plain(pos, m));
    san
}

/// Parentheses joined to the move after `(` and the token before `)`, as PGN writers print
/// them (`(1... c5 2. Nf3)`).
fn join_parentheses(tokens: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut open = String::new();
    for t in tokens {
        match t.as_str() {
            "(" => open.push('('),
            ")" => match out.last_mut() {
                Some(last) => last.push(')'),
                None => out.push(t),
            },
            _ => out.push(std::mem::take(&mut open) + &t),
        }
    }
    out
}

/// Movetext tokens joined by spaces into lines of at most `width` columns (a longer token
/// stands alone, but a comment longer than a line is broken between its words, a `[%...]`
/// command kept whole), each line ended by a newline.
pub fn wrap(tokens: impl IntoIterator<Item = String>, width: usize) -> String {
    let (mut out, mut line) = (String::new(), String::new());
    let tokens =
        tokens.into_iter().flat_map(
            |t| {
                if t.len() > width && t.starts_with('{') {
                    comment_pieces(&t)
                } else {
                    vec![t]
                }
            },
        );
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// A comment token cut into the pieces a line may break between: its words, each `[%...]`
/// command one piece.
fn comment_pieces(comment: &str) -> Vec<String> {
    let mut pieces: Vec<String> = Vec::new();
    let mut in_command = false;
    for w in comment.split(' ').filter(|w| !w.is_empty()) {
        match pieces.last_mut() {
            Some(last) if in_command => {
                last.push(' ');
                last.push_str(w);
            }
            _ => pieces.push(w.to_string()),
        }
        if w.contains("[%") {
            in_command = true;
        }
        if w.contains(']') {
            in_command = false;
        }
    }
    pieces
}

/// Whether `name` can be a PGN tag's name: letters, digits and `_`.
pub fn is_tag_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(crate) fn push_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

/// The `ProbabilisticOptions` tag's value: the words of the variant name after `probabilistic-`
/// ([`ProbOptions::name`]), separated by spaces: `king-always` or `king-double`, `shrinking`, `plies-N`
/// (a ply limit other than 1000; `plies-0` for none). Empty for the default options.
fn options_text(options: ProbOptions) -> String {
    let mut words = Vec::new();
    match options.king {
        KingMoves::Normal => {}
        KingMoves::Always => words.push("king-always".to_string()),
        KingMoves::Double => words.push("king-double".to_string()),
    }
    if options.shrinking {
        words.push("shrinking".to_string());
    }
    if options.ply_limit != probabilistic::DEFAULT_PLY_LIMIT {
        words.push(format!("plies-{}", options.ply_limit));
    }
    words.join(" ")
}

/// Reads the `ProbabilisticOptions` tag's value ([`options_text`]; words in any order and case, each
/// at most once); the error says what is wrong.
fn parse_options(text: &str) -> Result<ProbOptions, String> {
    let mut options = ProbOptions::default();
    let (mut king, mut shrinking, mut plies) = (false, false, false);
    for word in text.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        let seen = match lower.as_str() {
            "king-always" | "king-double" => {
                options.king = if lower == "king-always" { KingMoves::Always } else { KingMoves::Double };
                std::mem::replace(&mut king, true)
            }
            "shrinking" => {
                options.shrinking = true;
                std::mem::replace(&mut shrinking, true)
            }
            _ => match lower.strip_prefix("plies-") {
                Some(digits) => {
                    options.ply_limit = match digits.parse::<u32>() {
                        Ok(n) if digits.bytes().all(|b| b.is_ascii_digit()) => n,
                        _ => return Err(format!("'{word}' is not plies-N with N a whole number (0: no limit)")),
                    };
                    std::mem::replace(&mut plies, true)
                }
                None => {
                    return Err(format!(
                        "unknown option '{word}' (the options are king-always or king-double, shrinking, plies-N)"
                    ))
                }
            },
        };
        if seen {
            let what = if lower.starts_with("king-") { "a second king option" } else { "given twice" };
            return Err(format!("'{word}': {what}"));
        }
    }
    Ok(options)
}

fn hands(pos: &Position) -> [Hand; 2] {
    [*pos.hand(Color::White), *pos.hand(Color::Black)]
}

/// The roles in holdings order: Q R B N P first, then the variant's other pieces in its order.
fn holding_order(v: &Variant) -> Vec<Role> {
    let rank = |r: &Role| match "qrbnp".find(v.piece(*r).letter) {
        Some(i) => i,
        None => 5 + r.index(),
    };
    let mut roles: Vec<Role> = v.roles().collect();
    roles.sort_by_key(rank);
    roles
}

/// The letters of an `H:` note: White's pieces upper case, then Black's lower case.
fn holdings_text(v: &Variant, hands: &[Hand; 2]) -> String {
    let order = holding_order(v);
    let mut s = String::new();
    for c in Color::ALL {
        for &role in &order {
            for _ in 0..hands[c.index()].count(role) {
                s.push(v.piece(role).char(c));
            }
        }
    }
    s
}

/// Reads the letters of an `H:` note (any order; the case gives the colour).
fn parse_holdings(v: &Variant, text: &str) -> Result<[Hand; 2], String> {
    let mut out = [Hand::default(); 2];
    for ch in text.chars() {
        let role = v.role_by_letter(ch).ok_or_else(|| format!("'{ch}' is not a piece of {}", v.name))?;
        if Some(role) == v.king() {
            return Err("a king cannot be held".into());
        }
        let color = Color::from_case(ch);
        out[color.index()].add(role).ok_or_else(|| format!("more than 64 '{ch}'"))?;
    }
    Ok(out)
}

/// The gift that turns the holdings `after` a move (before any gift) into `found`: `None` if they are
/// equal, an error saying why if no gift event of the variant can do it there.
fn infer_gift(after: &Position, found: &[Hand; 2]) -> Result<Option<Gifts>, String> {
    let v = after.variant();
    let mut parts = [String::new(), String::new()];
    for c in Color::ALL {
        for role in v.roles() {
            let (had, has) = (after.hand(c).count(role), found[c.index()].count(role));
            let letter = v.piece(role).char(c);
            if has < had {
                return Err(format!("{c} holds {had} '{letter}' before any gift but {has} after: a gift only adds"));
            }
            if has > had {
                if Kind::from_letter(letter).is_none() {
                    return Err(format!("{c} gained '{letter}', which is never a gift"));
                }
                parts[c.index()].extend(std::iter::repeat_n(letter, usize::from(has - had)));
            }
        }
    }
    if parts.iter().all(String::is_empty) {
        return Ok(None);
    }
    let part = |s: &str| if s.is_empty() { Ok(Gift::NONE) } else { s.parse::<Gift>() };
    let (Ok(white), Ok(black)) = (part(&parts[0]), part(&parts[1])) else {
        return Err("more pieces than any gift gives".into());
    };
    let gifts = Gifts { white, black };
    possible_gift(after, gifts).map_err(|why| format!("the difference would be the gift {gifts}, {why}"))?;
    Ok(Some(gifts))
}

/// Whether the gift event after the move that reached `after` (before any gift) can give
/// `gifts`: the game's SnowFall generator, with its caps, has that outcome. The error ends a
/// sentence about the gift ("but SnowFall 0 gives no gifts").
fn possible_gift(after: &Position, gifts: Gifts) -> Result<(), String> {
    let v = after.variant();
    let percent = match v.chance {
        ChanceRule::Gifts { percent } if percent > 0 => percent,
        ChanceRule::Gifts { .. } => return Err("but SnowFall 0 gives no gifts".into()),
        _ => return Err(format!("but no gifts arrive in {}", v.name)),
    };
    let mover = !after.turn();
    if gift::event_outcomes(mover, &gift::counts(after)).iter().any(|(g, _)| *g == gifts) {
        Ok(())
    } else {
        Err(format!("which SnowFall {percent} cannot give after {mover}'s move here"))
    }
}

/// Reads the first game of a PGN text.
///
/// Tags: `Variant` `SnowFall` (percentage from `SnowFall`, default 17), `Probabilistic` (options from
/// `ProbabilisticOptions`, the start map from `Probabilities`, which is required), absent or
/// `Standard`/`chess` (chess), or a built-in variant's name; `FEN` (with `SetUp "1"`) for another start.
/// Movetext: move numbers (`1.`, `1...`, also `1.e4`), SAN (UCI tolerated), suffixes `!?`, NAGs `$1`,
/// comments in braces and after `;`, variations in parentheses ([`Record::variations`]), the result.
/// See the module documentation for the comments that carry holdings, gifts, failures and rolls.
///
/// ```
/// use rules::chance::Event;
/// use rules::gift::Gifts;
/// use rules::record::read_pgn;
/// let pgn = "[Variant \"SnowFall\"]\n[SnowFall \"20\"]\n\n1. e4 {H:} e5 {H:Pp} 2. P@d3 {H:p} *";
/// let game = read_pgn(pgn).unwrap();
/// // The pawns after 1... e5 were a gift, inferred from the holdings.
/// let pawns = Gifts { white: "P".parse().unwrap(), black: "P".parse().unwrap() };
/// assert_eq!(game.events()[1], Event::Gift(pawns));
/// assert_eq!(game.position().fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/3P4/PPPP1PPP/RNBQKBNR[p] b KQkq - 0 2");
/// ```
pub fn read_pgn(text: &str) -> Result<Game, RecordError> {
    Ok(read_record(text)?.game)
}

/// Reads the first game of a PGN text with its tags ([`read_pgn`]).
pub fn read_record(text: &str) -> Result<Record, RecordError> {
    read_record_with(text, &[])
}

/// Reads the first game of a PGN text with its tags, also knowing the variants `extra` (defined
/// in variant files, docs/FORMATS.md § Variant files) by their names in the `Variant` tag.
pub fn read_record_with(text: &str, extra: &[&'static Variant]) -> Result<Record, RecordError> {
    let mut reader = Reader::new(text);
    match reader.next_game()? {
        Some(raw) => build(raw, extra),
        None => Err(RecordError::NoGame),
    }
}

/// Reads every game of a PGN text, with its tags (an empty text gives none).
pub fn read_records(text: &str) -> Result<Vec<Record>, RecordError> {
    read_records_with(text, &[])
}

/// [`read_records`] with custom variants the `Variant` tags may name, as [`read_record_with`].
pub fn read_records_with(text: &str, extra: &[&'static Variant]) -> Result<Vec<Record>, RecordError> {
    let mut reader = Reader::new(text);
    let mut out = Vec::new();
    while let Some(raw) = reader.next_game()? {
        out.push(build(raw, extra)?);
    }
    Ok(out)
}

/// Reads every game of a PGN text as [`read_records_with`] does, but a game whose moves or tags
/// do not read is given as its error and the games after it are still read (a database with
/// one bad game is still a database). A text that does not split into games (an unterminated
/// comment or tag) is an error as a whole.
pub fn read_records_each(
    text: &str,
    extra: &[&'static Variant],
) -> Result<Vec<Result<Record, RecordError>>, RecordError> {
    let mut reader = Reader::new(text);
    let mut out = Vec::new();
    while let Some(raw) = reader.next_game()? {
        out.push(build(raw, extra));
    }
    Ok(out)
}

/// Reads every game of a PGN text ([`read_records`] without the tags).
pub fn read_games(text: &str) -> Result<Vec<Game>, RecordError> {
    Ok(read_records(text)?.into_iter().map(|r| r.game).collect())
}

/// A lexical token of PGN.
#[derive(Debug)]
enum Token {
    Tag(String, String),
    Comment(String),
    Word(String),
    /// A variation's tokens, between `(` and `)` (the reader nests them).
    Variation(Vec<(Token, usize)>),
}

/// How deep variations may nest (a variation in a variation is 2); deeper is refused, as no
/// record written by a person or a program goes near it.
const MAX_NESTING: usize = 64;

/// One game's tokens (each variation one token holding its own), each with its line.
#[derive(Default)]
struct RawGame {
    tags: Vec<(String, String, usize)>,
    movetext: Vec<(Token, usize)>,
}

/// Splits a PGN text into games of tokens.
struct Reader<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    /// A tag read after a game's movetext: the start of the next game.
    lookahead: Option<(Token, usize)>,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Reader<'a> {
        // A byte-order mark is not text.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Reader { text, at: 0, line: 1, lookahead: None }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn syntax(line: usize, message: impl Into<String>) -> RecordError {
        RecordError::Syntax { line, message: message.into() }
    }

    /// The next token; `Open`/`Close` parentheses come back as `Word("(")` / `Word(")")`.
    fn token(&mut self) -> Result<Option<(Token, usize)>, RecordError> {
        loop {
            let at_line_start = self.at == 0 || self.text[..self.at].ends_with('\n');
            let Some(c) = self.peek() else { return Ok(None) };
            let line = self.line;
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                // `%` in the first column escapes the line; `;` comments to the end of the line.
                '%' if at_line_start => self.skip_line(),
                ';' => self.skip_line(),
                '{' => {
                    self.bump();
                    let start = self.at;
                    loop {
                        match self.bump() {
                            Some('}') => break,
                            Some(_) => {}
                            None => return Err(Reader::syntax(line, "unterminated comment '{'")),
                        }
                    }
                    let text = self.text[start..self.at - 1].to_string();
                    return Ok(Some((Token::Comment(text), line)));
                }
                '[' => return self.tag().map(Some),
                '(' | ')' => {
                    self.bump();
                    return Ok(Some((Token::Word(c.to_string()), line)));
                }
                '}' | ']' => return Err(Reader::syntax(line, format!("unexpected '{c}'"))),
                _ => {
                    let start = self.at;
                    while let Some(c) = self.peek() {
                        if c.is_whitespace() || "{}()[];".contains(c) {
                            break;
                        }
                        self.bump();
                    }
                    return Ok(Some((Token::Word(self.text[start..self.at].to_string()), line)));
                }
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    /// A tag pair `[Name "value"]`, the `[` not yet read.
    fn tag(&mut self) -> Result<(Token, usize), RecordError> {
        let line = self.line;
        let bad = |message: &str| RecordError::BadTag { line, message: message.to_string() };
        self.bump();
        self.skip_blanks();
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            self.bump();
        }
        let name = self.text[start..self.at].to_string();
        if name.is_empty() {
            return Err(bad("expected a tag name after '['"));
        }
        self.skip_blanks();
        if self.bump() != Some('"') {
            return Err(bad(&format!("expected '\"' after the tag name {name}")));
        }
        let mut value = String::new();
        loop {
            match self.bump() {
                Some('"') => break,
                Some('\\') => match self.bump() {
                    Some(c) if c != '\n' => value.push(c),
                    _ => return Err(bad(&format!("unterminated value of tag {name}"))),
                },
                Some('\n') | None => return Err(bad(&format!("unterminated value of tag {name}"))),
                Some(c) => value.push(c),
            }
        }
        self.skip_blanks();
        if self.bump() != Some(']') {
            return Err(bad(&format!("expected ']' after the value of tag {name}")));
        }
        Ok((Token::Tag(name, value), line))
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.bump();
        }
    }

    /// The next game: its tags, then movetext up to a result, the next tag section or the end.
    fn next_game(&mut self) -> Result<Option<RawGame>, RecordError> {
        let mut game = RawGame::default();
        // The variations open, innermost last: each one's tokens so far and its `(`'s line.
        let mut open: Vec<(Vec<(Token, usize)>, usize)> = Vec::new();
        loop {
            let next = match self.lookahead.take() {
                Some(t) => Some(t),
                None => self.token()?,
            };
            let Some((token, line)) = next else { break };
            match token {
                Token::Tag(..) if !open.is_empty() => {
                    return Err(Reader::syntax(open[0].1, "unterminated variation '('"));
                }
                Token::Tag(name, value) => {
                    if !game.movetext.is_empty() {
                        self.lookahead = Some((Token::Tag(name, value), line));
                        break;
                    }
                    game.tags.push((name, value, line));
                }
                Token::Word(w) if w == "(" => {
                    if open.len() == MAX_NESTING {
                        return Err(Reader::syntax(line, format!("variations nested more than {MAX_NESTING} deep")));
                    }
                    open.push((Vec::new(), line));
                }
                Token::Word(w) if w == ")" => {
                    let Some((tokens, opened)) = open.pop() else {
                        return Err(Reader::syntax(line, "unmatched ')'"));
                    };
                    let variation = (Token::Variation(tokens), opened);
                    match open.last_mut() {
                        Some((outer, _)) => outer.push(variation),
                        None => game.movetext.push(variation),
                    }
                }
                t if !open.is_empty() => open.last_mut().map_or((), |(tokens, _)| tokens.push((t, line))),
                Token::Word(w) if RESULTS.contains(&w.as_str()) => {
                    // A comment right after the result is the last move's (as python-chess
                    // reads it), not a game of its own.
                    loop {
                        match self.token()? {
                            Some((Token::Comment(c), at)) => game.movetext.push((Token::Comment(c), at)),
                            other => {
                                self.lookahead = other;
                                break;
                            }
                        }
                    }
                    game.movetext.push((Token::Word(w), line));
                    break;
                }
                t => game.movetext.push((t, line)),
            }
        }
        if let Some((_, opened)) = open.first() {
            return Err(Reader::syntax(*opened, "unterminated variation '('"));
        }
        Ok((!game.tags.is_empty() || !game.movetext.is_empty()).then_some(game))
    }
}

/// The annotations at the start of the comments after a move.
#[derive(Default)]
struct Notes {
    /// The `H:` letters, the holdings they spell and the comment's line.
    holdings: Option<(String, [Hand; 2], usize)>,
    /// The `gift` note and its line.
    gift: Option<(Gifts, String, usize)>,
    /// The `failed` note's line.
    failed: Option<usize>,
    /// The roll note (`37%: ok`).
    roll: Option<Roll>,
}

/// A roll note: the percentage written, the result and the note as written.
struct Roll {
    percent: u8,
    ok: bool,
    text: String,
    line: usize,
}

/// A move read but not yet played: its comments follow it.
struct Pending {
    m: Move,
    at: MoveNumber,
    /// The move as written.
    text: String,
    line: usize,
    notes: Notes,
    /// Its NAGs and free comments.
    annotation: Annotation,
}

/// Turns a game's tokens into a record: the variant and start from the tags, then the moves.
fn build(raw: RawGame, extra: &[&'static Variant]) -> Result<Record, RecordError> {
    // Step 1. Tags, each at most once.
    for (i, (name, _, line)) in raw.tags.iter().enumerate() {
        if raw.tags[..i].iter().any(|(n, _, _)| n == name) {
            return Err(RecordError::BadTag { line: *line, message: format!("tag {name} given twice") });
        }
    }
    // Tag names as written by hand too: `[variant "Crazyhouse"]` is the Variant tag.
    let tag =
        |name: &str| raw.tags.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name)).map(|(_, v, l)| (v.as_str(), *l));

    // Step 2. The variant.
    let percent = match tag("SnowFall") {
        None => None,
        Some((value, line)) => {
            let digits = value.trim().trim_end_matches('%').trim();
            match digits.parse::<u8>() {
                Ok(p) if p <= 100 && digits.bytes().all(|b| b.is_ascii_digit()) => Some((p, line)),
                _ => return Err(RecordError::BadPercent { line, value: value.to_string() }),
            }
        }
    };
    let options = match tag("ProbabilisticOptions") {
        None => None,
        Some((value, line)) => match parse_options(value) {
            Ok(o) => Some((o, line)),
            Err(e) => return Err(RecordError::BadTag { line, message: format!("ProbabilisticOptions: {e}") }),
        },
    };
    let variant = match tag("Variant") {
        Some((name, _)) if name.trim().eq_ignore_ascii_case("snowfall") => {
            snowfall::variant(percent.map_or(snowfall::DEFAULT_PERCENT, |(p, _)| p))
        }
        // A variant built on SnowFall (given as a variant file), at the tag's percentage.
        Some((name, _)) if extra.iter().any(|v| v.name == name.trim() && snowfall::percent(v).is_some()) => {
            let v = extra.iter().find(|v| v.name == name.trim()).copied();
            match (v, percent) {
                (Some(v), Some((p, line))) => snowfall::with_percent(v, p)
                    .map_err(|e| RecordError::BadTag { line, message: format!("SnowFall {p}: {e}") })?,
                (Some(v), None) => v,
                (None, _) => return Err(RecordError::UnknownVariant { line: 0, name: name.to_string() }),
            }
        }
        // A variant not at hand (a variant file not given) is named as unknown.
        Some((name, line))
            if percent.is_some()
                && variants::by_name(name.trim()).is_none()
                && !extra.iter().any(|v| v.name == name.trim()) =>
        {
            return Err(RecordError::UnknownVariant { line, name: name.trim().to_string() });
        }
        Some((_, _)) | None if percent.is_some() => {
            let line = percent.map_or(0, |(_, l)| l);
            return Err(RecordError::BadTag { line, message: "a SnowFall tag without [Variant \"SnowFall\"]".into() });
        }
        Some((name, _)) if name.trim().eq_ignore_ascii_case("probabilistic") => {
            probabilistic::variant(options.map_or_else(ProbOptions::default, |(o, _)| o))
        }
        Some((_, _)) | None if options.is_some() => {
            let line = options.map_or(0, |(_, l)| l);
            let message = "a ProbabilisticOptions tag without [Variant \"Probabilistic\"]".into();
            return Err(RecordError::BadTag { line, message });
        }
        None => variants::by_name("chess").ok_or(RecordError::UnknownVariant { line: 0, name: "chess".into() })?,
        Some((name, line)) => {
            let name = name.trim();
            // The names other programs write, as python-chess reads them: lichess's "From
            // Position" is standard chess from the record's FEN.
            let lookup = match name.to_ascii_lowercase().as_str() {
                "standard" | "normal" | "classical" | "from position" => "chess",
                // WinBoard's and some servers' names for Chess960.
                "fischerandom" | "fischerrandom" | "fischer random" | "frc" | "chess 960" => "chess960",
                "crazy house" | "house" | "zh" => "crazyhouse",
                _ => name,
            };
            match extra.iter().find(|v| v.name == name) {
                Some(v) => v,
                None => variants::by_name(lookup)
                    .ok_or_else(|| RecordError::UnknownVariant { line, name: name.to_string() })?,
            }
        }
    };

    if variant.simultaneous {
        let line = tag("Variant").map_or(0, |(_, l)| l);
        return Err(RecordError::Simultaneous { line, name: variant.name.clone() });
    }

    // Step 3. The start position.
    let start = match (tag("SetUp"), tag("FEN")) {
        (Some((s, line)), _) if s.trim() != "0" && s.trim() != "1" => {
            return Err(RecordError::BadTag { line, message: format!("SetUp must be \"0\" or \"1\", not \"{s}\"") });
        }
        (Some((s, line)), None) if s.trim() == "1" => {
            return Err(RecordError::BadTag { line, message: "SetUp \"1\" without a FEN tag".into() });
        }
        (Some((s, line)), Some(_)) if s.trim() == "0" => {
            return Err(RecordError::BadTag { line, message: "a FEN tag with SetUp \"0\"".into() });
        }
        (_, Some((fen, line))) => Position::from_fen(variant, fen.trim()).map_err(|error| RecordError::BadFen {
            line,
            fen: fen.to_string(),
            error,
        })?,
        _ => Position::start(variant),
    };
    let start = match (probabilistic::options(variant), tag("Probabilities")) {
        (Some(_), Some((text, line))) => with_map(start, tag("FEN").is_some(), text, line)?,
        (Some(_), None) => {
            return Err(RecordError::MissingProbabilities { line: tag("Variant").map_or(0, |(_, l)| l) })
        }
        (None, Some((_, line))) => {
            let message =
                format!("a Probabilities tag in a game of {} (it is Probabilistic chess's map)", variant.name);
            return Err(RecordError::BadTag { line, message });
        }
        (None, None) => start,
    };

    // Step 4. The movetext: each move is played once the comments after it are read.
    let mut game = Game::new(start);
    let (mut annotations, mut comment) = (Vec::new(), None);
    let mut pending: Option<Pending> = None;
    let mut terminator: Option<String> = None;
    let mut terminator_line = 0;
    let (mut variations, mut unread_variations) = (Vec::new(), Vec::new());
    for (token, line) in raw.movetext {
        match token {
            Token::Tag(..) => {}
            // Another line instead of the move just read (still pending: the position is the one
            // before it).
            Token::Variation(tokens) => match &pending {
                _ if tokens.is_empty() => {}
                _ if variant.chance != ChanceRule::None => {
                    let message = format!(
                        "variations are not read in {} records (their moves would need their {})",
                        variant.name,
                        if snowfall::percent(variant).is_some() { "gifts" } else { "chance outcomes" }
                    );
                    unread_variations.push(RecordError::Syntax { line, message });
                }
                Some(_) => {
                    read_variation(game.position(), game.moves(), tokens, &mut variations, &mut unread_variations)
                }
                None => unread_variations
                    .push(RecordError::Syntax { line, message: "a variation before the first move".into() }),
            },
            Token::Comment(text) => {
                // Commands (`[%clk 0:03:00]`) may stand before the notes: kept as free text. A
                // comment without notes is kept as written (commands where they stand).
                let (commands, rest) = split_commands(&text);
                match pending.as_mut() {
                    Some(p) => {
                        let free = read_notes(variant, &rest, line, p)?;
                        if free.trim() == rest.trim() {
                            add_comment(&mut p.annotation.comment, &[], &text);
                        } else {
                            add_comment(&mut p.annotation.comment, &commands, free);
                        }
                    }
                    None => add_comment(&mut comment, &[], &text),
                }
            }
            Token::Word(w) => {
                if RESULTS.contains(&w.as_str()) {
                    terminator = Some(w);
                    terminator_line = line;
                    break;
                }
                let Some(written) = move_text(&w) else {
                    if let (Some(p), Some(nags)) = (pending.as_mut(), nags_in(&w)) {
                        add_nags(&mut p.annotation.nags, nags);
                    }
                    continue;
                };
                let (text, nags) = split_move(written);
                if let Some(mut p) = pending.take() {
                    annotations.push(std::mem::take(&mut p.annotation));
                    commit(&mut game, p)?;
                }
                let pos = game.position();
                let at = MoveNumber { number: pos.fullmoves(), color: pos.turn() };
                let m = parse_move(pos, text).map_err(|reason| RecordError::IllegalMove {
                    line,
                    at,
                    text: text.to_string(),
                    reason,
                    fen: pos.fen(),
                })?;
                let mut annotation = Annotation::default();
                add_nags(&mut annotation.nags, nags);
                pending = Some(Pending { m, at, text: text.to_string(), line, notes: Notes::default(), annotation });
            }
        }
    }
    if let Some(mut p) = pending.take() {
        annotations.push(std::mem::take(&mut p.annotation));
        commit(&mut game, p)?;
    }
    // Step 5. The result: the Result tag, or the movetext's terminator without one; the two
    // must agree (PGN's rule).
    match (tag("Result"), &terminator) {
        (Some((r, line)), Some(t)) if r.trim() != t => {
            let message = format!("the Result tag \"{r}\" differs from the movetext's result {t}");
            return Err(RecordError::BadTag { line, message });
        }
        _ => {}
    }
    // A result the final position decides by the rules (a mate, a stalemate, a captured king,
    // a dead position, the ply limit) is the record's: a result that contradicts it is refused,
    // as one that contradicts the movetext's (`*`, unknown, is not a contradiction). A repetition
    // or fifty moves may be played on, so they decide nothing here.
    let decided = game.position().outcome().filter(|o| {
        use crate::outcome::EndReason::*;
        matches!(o.reason(), Checkmate | Stalemate | KingCaptured | InsufficientMaterial | PlyLimit)
    });
    let said = tag("Result")
        .map(|(r, line)| (r.trim().to_string(), line))
        .or_else(|| terminator.clone().map(|t| (t, terminator_line)));
    if let (Some(o), Some((r, line))) = (decided, said) {
        if r != "*" && r != o.result() {
            let message = format!("the result {r} contradicts the final position, {o}");
            return Err(RecordError::BadTag { line, message });
        }
    }
    let mut tags: Vec<(String, String)> = raw.tags.into_iter().map(|(n, v, _)| (n, v)).collect();
    if let (None, Some(t)) = (tags.iter().find(|(n, _)| n == "Result"), terminator) {
        tags.push(("Result".into(), t));
    }
    Ok(Record { tags, game, annotations, comment, variations, unread_variations })
}

/// Reads a variation's `tokens` from `start` (reached by `before`): its line into `out`, with its
/// comments and NAGs, then its own variations. A move that does not read ends it there, said in
/// `unread`: the moves before it are kept, with the variations that leave them (as python-chess
/// keeps them).
fn read_variation(
    start: &Position,
    before: &[Move],
    tokens: Vec<(Token, usize)>,
    out: &mut Vec<Variation>,
    unread: &mut Vec<RecordError>,
) {
    let mut pos = start.clone();
    let mut own = Variation::new(before.to_vec(), before.len());
    // The position before the variation's last move, where a variation inside it starts.
    let mut last: Option<Position> = None;
    let mut inner = Vec::new();
    for (token, at_line) in tokens {
        match token {
            Token::Variation(tokens) => match &last {
                _ if tokens.is_empty() => {}
                Some(p) => inner.push((p.clone(), own.line[..own.line.len() - 1].to_vec(), tokens)),
                None => unread.push(RecordError::Syntax {
                    line: at_line,
                    message: "a variation before its line's first move".into(),
                }),
            },
            Token::Word(w) => {
                let Some(written) = move_text(&w).filter(|_| !RESULTS.contains(&w.as_str())) else {
                    if let (Some(a), Some(nags)) = (own.annotations.last_mut(), nags_in(&w)) {
                        add_nags(&mut a.nags, nags);
                    }
                    continue;
                };
                let (text, nags) = split_move(written);
                let at = MoveNumber { number: pos.fullmoves(), color: pos.turn() };
                match parse_move(&pos, text) {
                    Ok(m) => {
                        last = Some(pos.clone());
                        pos.play_unchecked(m);
                        own.line.push(m);
                        let mut annotation = Annotation::default();
                        add_nags(&mut annotation.nags, nags);
                        own.annotations.push(annotation);
                    }
                    Err(reason) => {
                        let (text, fen) = (text.to_string(), pos.fen());
                        unread.push(RecordError::IllegalMove { line: at_line, at, text, reason, fen });
                        break;
                    }
                }
            }
            Token::Comment(text) => {
                let (commands, rest) = split_commands(&text);
                // The holdings a writer notes after each move of a variant with hands are the
                // line's own, not a comment.
                let mut free = rest.trim_start();
                if start.variant().drops && own.line.len() > before.len() {
                    while let Some(word) = free.split_whitespace().next().filter(|w| w.starts_with("H:")) {
                        free = free.trim_start()[word.len()..].trim_start();
                    }
                }
                let (commands, free) =
                    if free == rest.trim_start() { (&[][..], text.as_str()) } else { (&commands[..], free) };
                match own.annotations.last_mut() {
                    Some(a) => add_comment(&mut a.comment, commands, free),
                    None => add_comment(&mut own.comment, commands, free),
                }
            }
            Token::Tag(..) => {}
        }
    }
    if own.line.len() > before.len() {
        out.push(own);
    }
    for (p, before, tokens) in inner {
        read_variation(&p, &before, tokens, out, unread);
    }
}

/// Adds a comment's `commands` and free text to `slot` (after what it holds, with a space);
/// whitespace is not meaningful in a comment (a writer breaks long ones), so runs of it are one
/// space.
fn add_comment(slot: &mut Option<String>, commands: &[String], free: &str) {
    let free = free.split_whitespace().collect::<Vec<_>>().join(" ");
    let kept: Vec<&str> =
        commands.iter().map(String::as_str).chain([free.as_str()]).filter(|t| !t.is_empty()).collect();
    if !kept.is_empty() {
        let c = slot.get_or_insert_with(String::new);
        if !c.is_empty() {
            c.push(' ');
        }
        c.push_str(&kept.join(" "));
    }
}

/// Adds the comment `more` after the comment `slot` (with a space), unless it says the same:
/// how two notes of one move are kept together.
pub fn join_comment(slot: &mut Option<String>, more: Option<&str>) {
    let Some(more) = more else { return };
    match slot {
        Some(c) if c.as_str() == more => {}
        Some(c) => {
            c.push(' ');
            c.push_str(more);
        }
        None => *slot = Some(more.to_string()),
    }
}

/// The NAG of a glyph written on a move (`Nf3!?`: `$5`).
fn move_glyph(text: &str) -> Option<u8> {
    let glyph = text.trim_end_matches(['+', '#']);
    match &glyph[glyph.trim_end_matches(['!', '?']).len()..] {
        "!" => Some(1),
        "?" => Some(2),
        "!!" => Some(3),
        "??" => Some(4),
        "!?" => Some(5),
        "?!" => Some(6),
        _ => None,
    }
}

/// The symbols of ChessBase and the Informant, written as words or after a move, with their
/// NAGs (`+/-` White is better: `$16`; `N` a novelty: `$146`; ...).
const GLYPHS: [(&str, u8); 30] = [
    ("+/=", 14),
    ("=/+", 15),
    ("+/-", 16),
    ("-/+", 17),
    ("+/−", 16),
    ("−/+", 17),
    ("=/∞", 44),
    ("+=", 14),
    ("=+", 15),
    ("+-", 18),
    ("-+", 19),
    ("+−", 18),
    ("−+", 19),
    ("=∞", 44),
    ("TN", 146),
    ("⩲", 14),
    ("⩱", 15),
    ("±", 16),
    ("∓", 17),
    ("∞", 13),
    ("=", 10),
    ("□", 7),
    ("N", 146),
    ("↑", 36),
    ("→", 40),
    ("Δ", 140),
    ("∆", 140),
    ("⇆", 132),
    ("⨀", 22),
    ("⟳", 32),
];

/// The NAGs a movetext word is made of (`$14`, `!?`, `±`, `$1!`), or `None` if it is not only
/// NAGs.
fn nags_in(word: &str) -> Option<Vec<u8>> {
    let mut rest = word;
    let mut nags = Vec::new();
    while !rest.is_empty() {
        if let Some(digits) = rest.strip_prefix('$') {
            let end = digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len());
            nags.push(digits[..end].parse().ok()?);
            rest = &digits[end..];
        } else if let Some(g) = ["!!", "??", "!?", "?!", "!", "?"].iter().find(|g| rest.starts_with(*g)) {
            nags.push(move_glyph(g)?);
            rest = &rest[g.len()..];
        } else {
            // The longest symbol first (`=∞` before `=`).
            let (g, n) = GLYPHS.iter().filter(|(g, _)| rest.starts_with(g)).max_by_key(|(g, _)| g.len())?;
            nags.push(*n);
            rest = &rest[g.len()..];
        }
    }
    Some(nags)
}

/// A move word without the NAGs written after it (`Nf3!?±`, `e4$1`), and those NAGs in the
/// order written: the move's glyph, then the others. A letter is never taken for `N` (`e8=N`
/// promotes).
fn split_move(word: &str) -> (&str, Vec<u8>) {
    let mut w = word;
    let mut after = Vec::new();
    loop {
        if let Some(at) = w.rfind('$').filter(|&at| at >= 2) {
            if let Ok(n) = w[at + 1..].parse::<u8>() {
                after.push(n);
                w = &w[..at];
                continue;
            }
        }
        let symbol = GLYPHS
            .iter()
            .filter(|(g, _)| !g.chars().any(char::is_alphabetic))
            .filter(|(g, _)| w.strip_suffix(g).is_some_and(|m| m.len() >= 2))
            .max_by_key(|(g, _)| g.len());
        match symbol {
            Some((g, n)) => {
                after.push(*n);
                w = &w[..w.len() - g.len()];
            }
            None => break,
        }
    }
    let nags = move_glyph(w).into_iter().chain(after.into_iter().rev()).collect();
    (w, nags)
}

/// Adds the NAGs `more` to `nags`, each once (a record's `$1 !` is one NAG, as python-chess
/// reads it).
fn add_nags(nags: &mut Vec<u8>, more: impl IntoIterator<Item = u8>) {
    for n in more {
        if !nags.contains(&n) {
            nags.push(n);
        }
    }
}

/// A comment's commands (`[%clk 0:03:00]`, `[%eval 0.25]`) wherever they stand, and the text
/// without them.
fn split_commands(text: &str) -> (Vec<String>, String) {
    let (mut commands, mut rest) = (Vec::new(), String::new());
    let mut tail = text;
    while let Some(at) = tail.find("[%") {
        let Some(len) = tail[at..].find(']') else { break };
        rest.push_str(&tail[..at]);
        rest.push(' ');
        commands.push(tail[at..at + len + 1].split_whitespace().collect::<Vec<_>>().join(" "));
        tail = &tail[at + len + 1..];
    }
    rest.push_str(tail);
    (commands, rest)
}

/// The start position with the map of the `Probabilities` tag `text` (on `line`): set on the standard start,
/// or checked against the map of the `FEN` tag if there is one.
fn with_map(mut start: Position, from_fen: bool, text: &str, line: usize) -> Result<Position, RecordError> {
    let geometry = start.variant().geometry;
    let bad = |reason: String| RecordError::BadProbabilities { line, reason };
    let (map, blocked) = SquareMap::parse(text.trim(), geometry).map_err(|e| bad(e.0))?;
    if let Some(sq) = blocked.first() {
        return Err(bad(format!("{sq} is marked blocked ('x'); blocked squares belong in the FEN's map")));
    }
    if !from_fen {
        start.set_square_map(&map);
        return Ok(start);
    }
    let fen_map = start.square_map();
    match geometry.mask().into_iter().find(|&sq| fen_map.percent(sq) != map.percent(sq)) {
        None => Ok(start),
        Some(sq) => Err(bad(format!(
            "{sq} is {}% here but {}% in the FEN's map (the two must agree)",
            map.percent(sq),
            fen_map.percent(sq)
        ))),
    }
}

/// The move in a movetext word (with the NAGs written on it, [`split_move`]), or `None` for a
/// move number alone, NAGs or an en-passant mark.
fn move_text(word: &str) -> Option<&str> {
    // `exd6 e.p.`: the en-passant mark written apart says nothing the move does not. A number
    // or dots standing alone (`2 . Nf3`, `1. ... e5`) are move numbers.
    if nags_in(word).is_some() || word.chars().all(|c| c.is_ascii_digit() || c == '.') || matches!(word, "e.p." | "ep")
    {
        return None;
    }
    // `12.`, `12...` and `12.e4`; `0-0` is castling, not a number.
    let digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
    if digits.len() < word.len() && digits.starts_with('.') {
        let rest = digits.trim_start_matches('.');
        return (!rest.is_empty()).then_some(rest);
    }
    Some(word)
}

/// A move as SAN, or else as UCI (annotation suffixes ignored); the error says why neither fits.
fn parse_move(pos: &Position, text: &str) -> Result<Move, String> {
    if (text == "--" || text == "Z0") && !pos.legal_moves().contains(&Move::PASS) {
        return Err("null moves are not supported (a pass, '--', is only for a side without any move in \
                    Probabilistic chess)"
            .into());
    }
    match crate::san::parse_san(pos, text) {
        Ok(m) => Ok(m),
        Err(SanError::Ambiguous { .. }) => Err("ambiguous".into()),
        Err(san) => {
            let bare = text.trim_end_matches(['+', '#', '!', '?']);
            match parse_uci(pos, bare) {
                Ok(m) => Ok(m),
                Err(UciError::Illegal { .. }) => Err(illegal(pos, text)),
                Err(_) if matches!(san, SanError::Illegal { .. }) => Err(illegal(pos, text)),
                Err(_) => Err("not a move in SAN or UCI".into()),
            }
        }
    }
}

/// Why a well-formed move is not legal, as far as a reader can be told: a drop of a piece not held
/// says so; anything else is just illegal (the error shows the position).
fn illegal(pos: &Position, text: &str) -> String {
    let v = pos.variant();
    let held = |piece: &str| {
        let role = if piece.is_empty() { v.pawn() } else { piece.chars().next().and_then(|c| v.role_by_letter(c)) };
        role.map(|r| (r, pos.hand(pos.turn()).count(r)))
    };
    match text.split_once('@').and_then(|(piece, _)| held(piece)) {
        Some((role, 0)) => format!("illegal ({} holds no {})", pos.turn(), v.piece(role).name),
        _ => "illegal".into(),
    }
}

/// Reads the annotations at the start of a comment into the pending move's notes.
fn read_notes<'t>(v: &Variant, text: &'t str, line: usize, p: &mut Pending) -> Result<&'t str, RecordError> {
    let (at, san) = (p.at, p.text.clone());
    let mut words = text.split_whitespace().peekable();
    while let Some(&w) = words.peek() {
        let kind = note_kind(v, w, words.clone().nth(1));
        if let (Some("holdings"), Some(letters)) = (kind, w.strip_prefix("H:")) {
            words.next();
            let bad = |reason: String| RecordError::BadHoldings {
                line,
                at,
                san: san.clone(),
                text: letters.to_string(),
                reason,
            };
            if p.notes.holdings.is_some() {
                return Err(bad("the move already has holdings".into()));
            }
            let hands = parse_holdings(v, letters).map_err(bad)?;
            p.notes.holdings = Some((letters.to_string(), hands, line));
        } else if kind == Some("gift") {
            // `gift W:.. B:..`; a comment such as "gift of a pawn" is free text.
            words.next();
            let (white, black) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
            let written = format!("gift {white} {black}").trim_end().to_string();
            let bad = |reason: &str| RecordError::BadGift {
                line,
                at,
                san: san.clone(),
                text: written.clone(),
                reason: reason.into(),
            };
            if p.notes.gift.is_some() {
                return Err(bad("the move already has a gift"));
            }
            let (Some(w), Some(b)) = (white.strip_prefix("W:"), black.strip_prefix("B:")) else {
                return Err(bad("expected 'gift W:<pieces> B:<pieces>' ('-' for none)"));
            };
            let (Ok(white), Ok(black)) = (w.parse::<Gift>(), b.parse::<Gift>()) else {
                return Err(bad("a part is not letters of Q R B N P or '-'"));
            };
            p.notes.gift = Some((Gifts { white, black }, written.clone(), line));
        } else if kind == Some("failure") {
            // Only where a move can fail; elsewhere ("failed to see the fork") free text.
            words.next();
            p.notes.failed = Some(line);
        } else if let (Some("roll"), Some((digits, rest))) = (kind, w.split_once("%:")) {
            // `37%: ok`, also `37%:ok`.
            words.next();
            let result = if rest.is_empty() { words.next().unwrap_or("") } else { rest };
            let text = if rest.is_empty() { format!("{w} {result}").trim_end().to_string() } else { w.to_string() };
            let bad = |reason: String| RecordError::BadRoll { line, at, san: san.clone(), text: text.clone(), reason };
            if p.notes.roll.is_some() {
                return Err(bad("the move already has a roll".into()));
            }
            let percent = match digits.parse::<u8>() {
                Ok(n) if n <= 100 && digits.bytes().all(|b| b.is_ascii_digit()) => n,
                _ => return Err(bad(format!("'{digits}' is not a percentage from 0 to 100"))),
            };
            let ok = match result {
                "ok" => true,
                "failed" => false,
                _ => return Err(bad("expected 'ok' or 'failed' after the percentage".into())),
            };
            p.notes.roll = Some(Roll { percent, ok, text: text.clone(), line });
        } else {
            // Free text, to the end of the comment.
            let start = w.as_ptr() as usize - text.as_ptr() as usize;
            return Ok(text[start..].trim_end());
        }
    }
    Ok("")
}

/// The result of a pending move's roll: `Some(failed)` in Probabilistic chess (a pass without a roll
/// succeeds), `None` elsewhere. The roll must be there, agree with the move's percentage and be possible.
fn roll_result(before: &Position, p: &Pending) -> Result<Option<bool>, RecordError> {
    let v = before.variant();
    let bad = |roll: &Roll, reason: String| RecordError::BadRoll {
        line: roll.line,
        at: p.at,
        san: p.text.clone(),
        text: roll.text.clone(),
        reason,
    };
    let Some(options) = probabilistic::options(v) else {
        return match &p.notes.roll {
            Some(roll) => Err(bad(roll, format!("{} has no square map (rolls are for Probabilistic chess)", v.name))),
            None => Ok(None),
        };
    };
    let Some(roll) = &p.notes.roll else {
        if p.m.is_pass() {
            return Ok(Some(false));
        }
        return Err(RecordError::MissingRoll { line: p.line, at: p.at, san: p.text.clone() });
    };
    if p.notes.failed.is_some() {
        return Err(bad(roll, "a second result, 'failed', besides the roll's".into()));
    }
    let percent = before.success_percent(p.m);
    if roll.percent != percent {
        let map = if p.m.is_pass() { 100 } else { before.square_map().percent(p.m.to()) };
        let king = p.m.from_square().is_some_and(|from| before.board().role_at(from) == v.king());
        let why = match (p.m.is_pass(), king, options.king) {
            (true, _, _) => "a pass always succeeds".to_string(),
            (false, true, KingMoves::Always) => "king moves always succeed".to_string(),
            (false, true, KingMoves::Double) => format!("a king move, twice {}'s {map}%, at most 100", p.m.to()),
            _ => format!("the map's percentage of {}", p.m.to()),
        };
        return Err(bad(roll, format!("the move succeeds with {percent}% ({why})")));
    }
    match (roll.ok, percent) {
        (true, 0) => Err(bad(roll, "a move at 0% cannot succeed".into())),
        (false, 100) => Err(bad(roll, "a move at 100% cannot fail".into())),
        (ok, _) => Ok(Some(!ok)),
    }
}

/// Plays a pending move with the event its notes give (or infer), then checks its holdings.
fn commit(game: &mut Game, p: Pending) -> Result<(), RecordError> {
    let before = game.position();
    let v = before.variant();
    let at = p.at;
    let failed = roll_result(before, &p)?.unwrap_or(p.notes.failed.is_some());
    // What the move leaves before any gift (a failed move leaves the hands as they were).
    let mut plain = before.clone();
    plain.play_event(p.m, if failed { Event::Failure } else { Event::Success });
    let mismatch = |line, found: &str, reason: String| RecordError::HoldingsMismatch {
        line,
        at,
        san: p.text.clone(),
        expected: holdings_text(v, &hands(&plain)),
        found: found.to_string(),
        reason,
    };
    let bad_gift = |text: &str, line: usize, reason: String| RecordError::BadGift {
        line,
        at,
        san: p.text.clone(),
        text: text.into(),
        reason,
    };
    let event = match (&p.notes.gift, failed, &p.notes.holdings) {
        (Some((_, text, line)), true, _) => return Err(bad_gift(text, *line, "a failed move receives no gift".into())),
        (Some((_, text, line)), false, _) if !v.drops => {
            return Err(bad_gift(text, *line, format!("{} has no hands", v.name)));
        }
        // A noted gift is one the generator can give here (its caps included), as an inferred
        // one must be.
        (Some((g, text, line)), false, _) => {
            possible_gift(&plain, *g).map_err(|why| bad_gift(text, *line, format!("the gift {g}, {why}")))?;
            Event::Gift(*g)
        }
        (None, true, _) => Event::Failure,
        (None, false, Some((letters, found, line))) => match infer_gift(&plain, found) {
            Ok(Some(g)) => Event::Gift(g),
            Ok(None) => Event::Success,
            Err(reason) => return Err(mismatch(*line, letters, reason)),
        },
        (None, false, None) => Event::Success,
    };
    let fen = before.fen();
    game.play_event(p.m, event).map_err(|e| RecordError::IllegalMove {
        line: p.line,
        at,
        text: e.uci,
        reason: "illegal".into(),
        fen,
    })?;
    if let Some((letters, found, line)) = &p.notes.holdings {
        let reached = hands(game.position());
        if reached != *found {
            let reason = match event {
                Event::Gift(g) => format!("with its gift {g} the move gives H:{}", holdings_text(v, &reached)),
                _ => format!("the move gives H:{}", holdings_text(v, &reached)),
            };
            return Err(mismatch(*line, letters, reason));
        }
    }
    Ok(())
}
