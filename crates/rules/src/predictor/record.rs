//! Predictor chess records: the ply line (both sides' orders and what the ply did) and the
//! PGN-like game record made of them; both are written and read back exactly.
//!
//! A ply line is the ply number, White's orders, a bar, Black's orders, and a comment with the
//! report (parts left out when empty; the whole comment when every part is):
//!
//! ```text
//! 3. e2e4 if e7e5 then d2d3 | d7d5 {fired: white; annihilated: Pe5 pd7; captured: nh5}
//! ```
//!
//! A sealed ply (played by commit–reveal) adds `commit: W <hex> B <hex>; nonce: W <hex> B <hex>`
//! to the comment. A game record is PGN's tag section — the seven-tag roster, `[Variant
//! "Predictor"]`, `[SetUp "1"]` and `[FEN "..."]` for a start other than the standard one,
//! `[GameId "..."]` (needed to check seals), `[Termination "..."]` when the game ended off the
//! board (`time forfeit`, `rules infraction`, `resignation`, `agreement`; `adjudication` for a
//! draw at a match's ply limit) — then one ply line per ply and the result. A reader replays
//! every ply: a report part or seal that disagrees with the replay (a part a comment leaves out
//! counts as empty), or a result the board contradicts, is an error naming the ply.

use super::commit::{self, Commitment, Nonce};
use super::game::{GameError, Ply, PredictorGame, Seal};
use super::{Orders, PieceAt};
use crate::color::Color;
use crate::outcome::{EndReason, Outcome};
use crate::position::Position;
use crate::record::push_tag;

/// Why a Predictor record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// A line that does not follow the format.
    #[error("line {line}: {reason}")]
    Syntax {
        /// The line (1-based).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A ply whose orders are invalid or that comes after the game ended.
    #[error("line {line}, ply {ply}: {error}")]
    Ply {
        /// The line.
        line: usize,
        /// The ply.
        ply: u32,
        /// Why.
        error: GameError,
    },
    /// A report part that the replay contradicts.
    #[error("line {line}, ply {ply}: the record says {part} '{written}', the replay gives '{replayed}'")]
    ReportMismatch {
        /// The line.
        line: usize,
        /// The ply.
        ply: u32,
        /// `fired`, `annihilated` or `captured`.
        part: &'static str,
        /// What the record says.
        written: String,
        /// What the replay gives.
        replayed: String,
    },
    /// A seal that does not open with the ply's orders.
    #[error("line {line}, ply {ply}: {side}'s revealed orders do not open its commitment")]
    BadSeal {
        /// The line.
        line: usize,
        /// The ply.
        ply: u32,
        /// The side.
        side: Color,
    },
    /// The FEN tag is invalid.
    #[error("FEN tag: {0}")]
    Fen(String),
    /// The result contradicts the board or is missing.
    #[error("the result '{written}' contradicts the game, which {actual}")]
    Result {
        /// The written result.
        written: String,
        /// What the game says.
        actual: String,
    },
}

/// A result token: `1-0`, `0-1`, `1/2-1/2`, `*`.
fn result_token(o: Option<Outcome>) -> &'static str {
    o.map_or("*", |o| o.result())
}

/// The `Termination` tag's value for a game ended off the board.
fn termination(reason: EndReason) -> Option<&'static str> {
    match reason {
        EndReason::Time => Some("time forfeit"),
        EndReason::Forfeit => Some("rules infraction"),
        EndReason::Resignation => Some("resignation"),
        EndReason::Agreement => Some("agreement"),
        EndReason::PlyLimit | EndReason::Adjudication => Some("adjudication"),
        _ => None,
    }
}

fn reason_of(o: Outcome) -> EndReason {
    match o {
        Outcome::Decisive { reason, .. } | Outcome::Draw { reason } => reason,
    }
}

fn names(v: &[PieceAt]) -> String {
    v.iter().map(|p| format!("{}{}", p.letter, p.square)).collect::<Vec<_>>().join(" ")
}

fn fired_text(f: [bool; 2]) -> &'static str {
    match f {
        [true, true] => "both",
        [true, false] => "white",
        [false, true] => "black",
        [false, false] => "none",
    }
}

/// The ply line of ply `number` played from `before`.
pub fn ply_line(before: &Position, number: u32, ply: &Ply) -> String {
    let r = &ply.report;
    let mut parts = Vec::new();
    if r.fired != [false, false] {
        parts.push(format!("fired: {}", fired_text(r.fired)));
    }
    if !r.annihilated.is_empty() {
        parts.push(format!("annihilated: {}", names(&r.annihilated)));
    }
    if !r.captured.is_empty() {
        parts.push(format!("captured: {}", names(&r.captured)));
    }
    if let Some([w, b]) = ply.seals {
        parts.push(format!("commit: W {} B {}", w.commitment, b.commitment));
        parts.push(format!("nonce: W {} B {}", w.nonce, b.nonce));
    }
    let mut line = format!(
        "{number}. {} | {}",
        r.orders[0].to_text(before, Color::White),
        r.orders[1].to_text(before, Color::Black)
    );
    if !parts.is_empty() {
        line.push_str(&format!(" {{{}}}", parts.join("; ")));
    }
    line
}

/// Writes the game record. `tags` fill the roster (`Event`, `Site`, `Date`, `Round`, `White`,
/// `Black`; `?` by default) and follow it (e.g. `GameId`); `Result`, `Variant`, `SetUp`, `FEN`
/// and `Termination` come from the game.
pub fn write(game: &PredictorGame, tags: &[(String, String)]) -> String {
    let mut out = String::new();
    let given = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    let outcome = game.outcome();
    for (name, default) in
        [("Event", "?"), ("Site", "?"), ("Date", "????.??.??"), ("Round", "?"), ("White", "?"), ("Black", "?")]
    {
        push_tag(&mut out, name, given(name).unwrap_or(default));
    }
    push_tag(&mut out, "Result", result_token(outcome));
    push_tag(&mut out, "Variant", "Predictor");
    let start = game.start();
    if start.fen() != Position::start(start.variant()).fen() {
        push_tag(&mut out, "SetUp", "1");
        push_tag(&mut out, "FEN", &start.fen());
    }
    if let Some(t) = game.ended().and_then(|o| termination(reason_of(o))) {
        push_tag(&mut out, "Termination", t);
    }
    const DERIVED: [&str; 11] =
        ["Event", "Site", "Date", "Round", "White", "Black", "Result", "Variant", "SetUp", "FEN", "Termination"];
    for (name, value) in tags {
        if crate::record::is_tag_name(name) && !DERIVED.contains(&name.as_str()) {
            push_tag(&mut out, name, value);
        }
    }
    out.push('\n');
    for (i, ply) in game.plies().iter().enumerate() {
        let before = game.position_before(i + 1).unwrap_or_else(|| unreachable!("a position before every ply"));
        out.push_str(&ply_line(before, i as u32 + 1, ply));
        out.push('\n');
    }
    out.push_str(result_token(outcome));
    out.push('\n');
    out
}

/// A game read from a record, with its tags as written.
#[derive(Debug, Clone)]
pub struct Record {
    /// The tags in the order written.
    pub tags: Vec<(String, String)>,
    /// The game.
    pub game: PredictorGame,
}

impl Record {
    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

fn parse_tag(line: &str, n: usize) -> Result<(String, String), RecordError> {
    let bad = |reason: &str| RecordError::Syntax { line: n, reason: reason.to_string() };
    let inner =
        line.strip_prefix('[').and_then(|l| l.strip_suffix(']')).ok_or_else(|| bad("a tag is [Name \"value\"]"))?;
    let (name, rest) = inner.split_once(' ').ok_or_else(|| bad("a tag is [Name \"value\"]"))?;
    let quoted = rest
        .trim()
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| bad("the tag's value must be in double quotes"))?;
    let mut value = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.push(chars.next().ok_or_else(|| bad("a backslash ends the value"))?),
            '"' => return Err(bad("an unescaped quote inside the value")),
            c => value.push(c),
        }
    }
    Ok((name.to_string(), value))
}

/// The parts of a ply line.
struct PlyText<'a> {
    number: u32,
    white: &'a str,
    black: &'a str,
    /// Whether the line has a comment (even `{}`).
    commented: bool,
    notes: Vec<(&'a str, &'a str)>,
}

fn split_ply(line: &str, n: usize) -> Result<PlyText<'_>, RecordError> {
    let bad = |reason: String| RecordError::Syntax { line: n, reason };
    let (head, comment) = match line.split_once('{') {
        Some((h, c)) => {
            let c = c
                .trim_end()
                .strip_suffix('}')
                .ok_or_else(|| bad("the comment is not closed by '}' at the line's end".into()))?;
            if c.contains(['{', '}']) {
                return Err(bad("braces inside the comment".into()));
            }
            (h, Some(c))
        }
        None => (line, None),
    };
    let (number, orders) =
        head.split_once('.').ok_or_else(|| bad(format!("'{head}' does not start with a ply number and '.'")))?;
    let number = match number.trim().parse::<u32>() {
        Ok(k) if number.trim().bytes().all(|b| b.is_ascii_digit()) => k,
        _ => return Err(bad(format!("'{}' is not a ply number", number.trim()))),
    };
    let (white, black) =
        orders.split_once('|').ok_or_else(|| bad("expected 'N. WHITE ORDERS | BLACK ORDERS'".into()))?;
    let mut notes = Vec::new();
    for part in comment.into_iter().flat_map(|c| c.split(';')).map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once(':').ok_or_else(|| bad(format!("'{part}' is not 'name: value'")))?;
        notes.push((key.trim(), value.trim()));
    }
    Ok(PlyText { number, white: white.trim(), black: black.trim(), commented: comment.is_some(), notes })
}

/// Reads `W <hex> B <hex>`.
fn pair<T: std::str::FromStr<Err = commit::CommitError>>(text: &str, n: usize) -> Result<[T; 2], RecordError> {
    let bad = |reason: String| RecordError::Syntax { line: n, reason };
    match text.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["W", w, "B", b] => Ok([
            w.parse().map_err(|e: commit::CommitError| bad(e.to_string()))?,
            b.parse().map_err(|e: commit::CommitError| bad(e.to_string()))?,
        ]),
        _ => Err(bad(format!("'{text}' is not 'W <hex> B <hex>'"))),
    }
}

fn sorted(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    v.sort();
    v
}

/// Reads one ply line `line` (number `n` in the text) onto `game`, checking its number, its
/// report parts and its seals (which need the game id).
pub fn read_ply(game: &mut PredictorGame, game_id: Option<&str>, line: &str, n: usize) -> Result<(), RecordError> {
    let p = split_ply(line, n)?;
    let ply = game.next_ply();
    if p.number != ply {
        return Err(RecordError::Syntax { line: n, reason: format!("ply {} where ply {ply} was expected", p.number) });
    }
    let err = |error: GameError| RecordError::Ply { line: n, ply, error };
    if let Some(o) = game.outcome() {
        return Err(err(GameError::Over(o)));
    }
    let before = game.position().clone();
    let side_orders = |side: Color, text: &str| {
        Orders::parse(&before, side, text).map_err(|error| err(GameError::Orders { side, error }))
    };
    let white = side_orders(Color::White, p.white)?;
    let black = side_orders(Color::Black, p.black)?;
    let (mut commits, mut nonces): (Option<[Commitment; 2]>, Option<[Nonce; 2]>) = (None, None);
    let mut checks = Vec::new();
    for &(key, value) in &p.notes {
        match key {
            "fired" | "annihilated" | "captured" => checks.push((key, value)),
            "commit" => commits = Some(pair(value, n)?),
            "nonce" => nonces = Some(pair(value, n)?),
            _ => {
                return Err(RecordError::Syntax {
                    line: n,
                    reason: format!("unknown note '{key}' (fired, annihilated, captured, commit, nonce)"),
                })
            }
        }
    }
    let seals = match (commits, nonces) {
        (None, None) => None,
        (Some(c), Some(nn)) => {
            let id = game_id.ok_or_else(|| RecordError::Syntax {
                line: n,
                reason: "a sealed ply needs the record's GameId tag".into(),
            })?;
            for (side, texts) in [(Color::White, &white), (Color::Black, &black)] {
                let text = texts.to_text(&before, side);
                if commit::commitment(id, ply, side, &text, &nn[side.index()]) != c[side.index()] {
                    return Err(RecordError::BadSeal { line: n, ply, side });
                }
            }
            Some([Seal { commitment: c[0], nonce: nn[0] }, Seal { commitment: c[1], nonce: nn[1] }])
        }
        _ => return Err(RecordError::Syntax { line: n, reason: "commit and nonce come together".into() }),
    };
    let played = game.play(&white, &black, seals).map_err(err)?;
    let r = &played.report;
    // A ply with a comment states its whole report, as the writer does: a part left out says it
    // is empty, so a part deleted from a written record is found. A ply line without a comment
    // (written by hand) states nothing.
    if p.commented {
        for part in ["fired", "annihilated", "captured"] {
            if !checks.iter().any(|(k, _)| *k == part) {
                checks.push((part, if part == "fired" { "none" } else { "" }));
            }
        }
    }
    for (part, written) in checks {
        let (part, replayed) = match part {
            "fired" => ("fired", fired_text(r.fired).to_string()),
            "annihilated" => ("annihilated", names(&r.annihilated)),
            _ => ("captured", names(&r.captured)),
        };
        let same = if part == "fired" { written == replayed } else { sorted(written) == sorted(&replayed) };
        if !same {
            return Err(RecordError::ReportMismatch { line: n, ply, part, written: written.to_string(), replayed });
        }
    }
    Ok(())
}

/// Reads a game record (see the module doc).
pub fn read(text: &str) -> Result<Record, RecordError> {
    let mut tags = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty()).peekable();
    while let Some(&(n, l)) = lines.peek() {
        if !l.starts_with('[') {
            break;
        }
        tags.push(parse_tag(l, n)?);
        lines.next();
    }
    let tag = |name: &str| tags.iter().find(|(t, _)| t == name).map(|(_, v)| v.clone());
    let v = crate::variants::predictor::variant();
    if let Some(variant) = tag("Variant") {
        if !variant.eq_ignore_ascii_case("predictor") {
            return Err(RecordError::Syntax { line: 1, reason: format!("Variant '{variant}' is not Predictor") });
        }
    }
    let start = match tag("FEN") {
        Some(fen) => Position::from_fen(v, &fen).map_err(|e| RecordError::Fen(e.to_string()))?,
        None => Position::start(v),
    };
    let game_id = tag("GameId");
    let mut game = PredictorGame::new(start);
    let mut result = None;
    for (n, l) in lines {
        if ["1-0", "0-1", "1/2-1/2", "*"].contains(&l) {
            result = Some(l.to_string());
            break;
        }
        read_ply(&mut game, game_id.as_deref(), l, n)?;
    }
    let written = result.or_else(|| tag("Result")).unwrap_or_else(|| "*".into());
    let on_board = game.outcome();
    let termination = tag("Termination");
    match (on_board, termination.as_deref()) {
        (Some(o), _) if result_token(Some(o)) != written => {
            return Err(RecordError::Result { written, actual: format!("ended {}", result_token(Some(o))) })
        }
        (Some(_), _) => {}
        (None, Some(t)) => {
            let reason = match t {
                "time forfeit" => EndReason::Time,
                "rules infraction" => EndReason::Forfeit,
                "resignation" => EndReason::Resignation,
                "agreement" => EndReason::Agreement,
                // The replay did not end the game: someone outside it gave the result (a
                // ply-limit draw, also written `adjudication`, is found by the replay).
                "adjudication" => EndReason::Adjudication,
                _ => return Err(RecordError::Syntax { line: 1, reason: format!("unknown Termination '{t}'") }),
            };
            let outcome = match written.as_str() {
                "1-0" => Outcome::Decisive { winner: Color::White, reason },
                "0-1" => Outcome::Decisive { winner: Color::Black, reason },
                "1/2-1/2" => Outcome::Draw { reason },
                _ => return Err(RecordError::Result { written, actual: format!("ended by {t}") }),
            };
            game.end(outcome);
        }
        (None, None) if written != "*" => {
            return Err(RecordError::Result { written, actual: "is not over on the board (no Termination tag)".into() })
        }
        (None, None) => {}
    }
    Ok(Record { tags, game })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PredictorGame {
        let mut g = PredictorGame::new(Position::start(crate::variants::predictor::variant()));
        g.play_text("e2e4 if e7e5 then d2d3", "e7e5").expect("ply 1");
        g.play_text("g1f3", "b8c6 if g1f3 then d7d6").expect("ply 2");
        g.play_text("f1e2", "g8f6").expect("ply 3");
        g
    }

    #[test]
    fn records_round_trip() {
        let g = sample();
        let tags = vec![("White".to_string(), "Manifold".to_string()), ("GameId".to_string(), "m-1".to_string())];
        let text = write(&g, &tags);
        assert!(text.contains("[Variant \"Predictor\"]\n"));
        assert!(text.contains("\n1. e2e4 if e7e5 then d2d3 | e7e5 {fired: white}\n"), "{text}");
        let back = read(&text).expect("reads back");
        assert_eq!(back.tag("White"), Some("Manifold"));
        assert_eq!(back.game.plies(), g.plies());
        assert_eq!(write(&back.game, &tags), text);
    }

    #[test]
    fn sealed_plies_are_checked() {
        let before = Position::start(crate::variants::predictor::variant());
        let mut g = PredictorGame::new(before.clone());
        let seal = |side: Color, text: &str| {
            let nonce = Nonce([side.index() as u8 + 1; 32]);
            Seal { commitment: commit::commitment("m-2", 1, side, text, &nonce), nonce }
        };
        let w = Orders::parse(&before, Color::White, "d2d4").expect("legal");
        let b = Orders::parse(&before, Color::Black, "d7d5").expect("legal");
        g.play(&w, &b, Some([seal(Color::White, "d2d4"), seal(Color::Black, "d7d5")])).expect("ply");
        let tags = vec![("GameId".to_string(), "m-2".to_string())];
        let text = write(&g, &tags);
        assert_eq!(read(&text).expect("sealed record").game.plies(), g.plies());
        // Another game id, or another move than committed, fails.
        assert!(matches!(
            read(&text.replace("m-2", "m-3")),
            Err(RecordError::BadSeal { ply: 1, side: Color::White, .. })
        ));
        assert!(matches!(
            read(&text.replace("| d7d5", "| d7d6")),
            Err(RecordError::BadSeal { side: Color::Black, .. })
        ));
        let without_id = text.replace("[GameId \"m-2\"]\n", "");
        assert!(matches!(read(&without_id), Err(RecordError::Syntax { .. })));
    }

    #[test]
    fn off_board_endings_and_results_survive() {
        let mut g = sample();
        g.end(Outcome::Decisive { winner: Color::Black, reason: EndReason::Resignation });
        let text = write(&g, &[]);
        assert!(text.contains("[Termination \"resignation\"]") && text.ends_with("\n0-1\n"));
        assert_eq!(read(&text).expect("reads").game.outcome(), g.outcome());
        // A result the board does not give needs a termination.
        let bare = write(&sample(), &[]).replace("\n*\n", "\n1-0\n");
        assert!(matches!(read(&bare), Err(RecordError::Result { .. })));
    }

    #[test]
    fn bad_records_name_the_line() {
        let text = write(&sample(), &[]);
        let err = |t: String| read(&t).expect_err("refused");
        assert!(matches!(err(text.replace("2. g1f3", "3. g1f3")), RecordError::Syntax { .. }));
        assert!(matches!(
            err(text.replace("{fired: white}", "{fired: black}")),
            RecordError::ReportMismatch { ply: 1, .. }
        ));
        assert!(matches!(err(text.replace("f1e2", "f1e1")), RecordError::Ply { ply: 3, .. }));
        assert!(matches!(err(text.replace(" | e7e5", " e7e5")), RecordError::Syntax { .. }));
        assert!(matches!(err(text.replace("{fired: white}", "{fired: white")), RecordError::Syntax { .. }));
        assert!(matches!(err(text.replace("{fired: white}", "{mood: calm}")), RecordError::Syntax { .. }));
        assert!(matches!(err(text.replace("Predictor", "Chess")), RecordError::Syntax { .. }));
        // Hand-written lines without a report are fine; a comment states the whole report, so a
        // part deleted from it is found, even the last one.
        assert!(read("1. e2e4 | e7e5\n2. d2d4 | d7d5\n*\n").is_ok());
        let fen = "1r2k3/8/8/8/8/8/7P/R3K3 w Q - 0 1";
        let mut g = PredictorGame::new(Position::from_fen(crate::variants::predictor::variant(), fen).expect("FEN"));
        g.play_text("e1c1 if b8b1 then h2h3", "b8b1").expect("the seed's elaboration");
        let text = write(&g, &[]);
        assert!(text.contains("{fired: white; annihilated: Ra1 rb8}"), "{text}");
        for cut in ["{fired: white}", "{annihilated: Ra1 rb8}", "{}"] {
            let e = err(text.replace("{fired: white; annihilated: Ra1 rb8}", cut));
            assert!(matches!(e, RecordError::ReportMismatch { ply: 1, .. }), "{cut}: {e}");
        }
        assert!(read(&text.replace(" {fired: white; annihilated: Ra1 rb8}", "")).is_ok());
    }
}
