//! Lines on the analysis board: a position a request names by a built-in variant, a FEN and the
//! UCI moves played from it, or by a PGN record (`/api/position`, `/api/analyse`, `/api/explorer`).
//!
//! Moves are played without chance (a SnowFall move brings no gift, a Probabilistic move
//! succeeds), as the engine's lines assume; a position after chance is named by its FEN.

use rules::chance::Event;
use rules::game::Game;
use rules::{Position, Variant};
use serde_json::{json, Value};

/// The most moves a line may play.
pub const MAX_PLIES: usize = 600;

/// Why a line is refused (a 400 answer).
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// No built-in variant of that name, or Predictor chess.
    #[error("{0}")]
    Variant(String),
    /// The FEN does not parse for the variant.
    #[error("invalid FEN: {0}")]
    Fen(String),
    /// A move of `play` is not legal (or not UCI), or comes after the end of the game.
    #[error("move {index} of play, '{text}': {reason}")]
    Play {
        /// 1 for the first.
        index: usize,
        /// The move as sent.
        text: String,
        /// Why it is refused.
        reason: String,
    },
    /// Too many moves in `play`.
    #[error("play has more than {MAX_PLIES} moves")]
    TooLong,
    /// A variation sent with a line that is not one (`index` 1 for the first).
    #[error("variation {index}: {reason}")]
    Variation {
        /// 1 for the first.
        index: usize,
        /// Why.
        reason: String,
    },
    /// Too many moves in a record.
    #[error("the record has {0} plies, more than the analysis board's {MAX_PLIES}")]
    RecordTooLong(usize),
    /// A note sent with a line that cannot be written (`index` 1 for the first).
    #[error("note {index}: {reason}")]
    Note {
        /// 1 for the first.
        index: usize,
        /// Why.
        reason: String,
    },
    /// A tag sent with a line that cannot be written.
    #[error("tags: {0}")]
    Tag(String),
    /// A record that does not read.
    #[error("the record does not read: {0}")]
    Record(String),
    /// A record with a move after the game was over by a rule that ends it at once (a king
    /// captured, a dead position, a variant's ply limit).
    #[error("{text} (ply {index}) of the record comes after the end of the game ({reason})")]
    AfterEnd {
        /// 1 for the first.
        index: usize,
        /// The move as a record numbers it (`5. e4`, `5... e5`).
        text: String,
        /// Why the game was over.
        reason: String,
    },
    /// A record whose moves had chance outcomes, which a line cannot replay.
    #[error("{mv} (ply {index}) of the record {outcome}: a line replays moves without chance, so set up the position after it by its FEN")]
    Chance {
        /// 1 for the first.
        index: usize,
        /// The move as a record numbers it (`2... c5`).
        mv: String,
        /// What chance did.
        outcome: &'static str,
    },
}

/// The line a request names: `fen` (the variant's start if absent, or blank) and the UCI moves
/// of `play` (comma-separated) played from it, as a game (its history sees repetitions).
pub fn line_of(variant: &str, fen: Option<&str>, play: Option<&str>) -> Result<Game, LineError> {
    line_in(variant_of(variant)?, fen, play)
}

/// The built-in variant of that name, or an error naming the known ones.
pub fn variant_of(variant: &str) -> Result<&'static Variant, LineError> {
    rules::variants::by_name(variant).ok_or_else(|| {
        let known: Vec<&str> =
            rules::variants::all().iter().filter(|v| !v.simultaneous).map(|v| v.name.as_str()).collect();
        LineError::Variant(format!("no variant '{}' (known: {})", crate::api::clip(variant), known.join(", ")))
    })
}

/// [`line_of`] in a variant at hand (a built-in one or one loaded from a file).
pub fn line_in(v: &'static Variant, fen: Option<&str>, play: Option<&str>) -> Result<Game, LineError> {
    if v.simultaneous {
        return Err(LineError::Variant(format!("{} has no analysis board (both sides move at once)", v.name)));
    }
    let start = match fen.map(str::trim).filter(|f| !f.is_empty()) {
        Some(f) => Position::from_fen(v, f).map_err(|e| LineError::Fen(e.to_string()))?,
        None => Position::start(v),
    };
    let mut game = Game::new(start);
    // A blank `play` is no moves; within a list every item is a move (`e2e4,,e7e5` is refused,
    // not read as two moves).
    let play = play.unwrap_or("").trim();
    let moves: Vec<&str> = if play.is_empty() { Vec::new() } else { play.split(',').map(str::trim).collect() };
    if moves.len() > MAX_PLIES {
        return Err(LineError::TooLong);
    }
    for (i, text) in moves.into_iter().enumerate() {
        let refuse = |reason: String| LineError::Play { index: i + 1, text: crate::api::clip(text), reason };
        if text.is_empty() {
            return Err(refuse("an empty move (two commas in a row, or one at an end)".into()));
        }
        if let Some(o) = final_outcome(&game) {
            return Err(refuse(format!("the game is over ({})", ended_by(o))));
        }
        let m =
            rules::uci::parse_uci(game.position(), text).map_err(|e| match promotion_of(game.position(), text) {
                Some(full) => refuse(format!("a promotion needs its piece, e.g. {full}")),
                None if matches!(e, rules::uci::UciError::Illegal { .. }) => {
                    refuse(format!("illegal: {}", rules::explain::why_not(game.position(), text)))
                }
                None => refuse(e.to_string()),
            })?;
        game.play(m).map_err(|e| refuse(e.to_string()))?;
    }
    Ok(game)
}

/// The legal promotion a UCI move without its piece (`e7e8`) stands for, with its piece (a queen
/// where the variant has one: `e7e8q`): the move is refused with it as the example.
pub fn promotion_of(pos: &Position, text: &str) -> Option<String> {
    let text = text.trim().to_ascii_lowercase();
    let full: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|&m| rules::uci::to_uci(pos, m))
        .filter(|u| u.len() == text.len() + 1 && u.starts_with(&text) && u.as_bytes()[text.len()].is_ascii_alphabetic())
        .collect();
    full.iter().find(|u| u.ends_with('q')).or(full.first()).cloned()
}

/// The most variations of a record the analysis board takes.
pub const MAX_VARIATIONS: usize = 500;

/// What a record says of a move of a line (its NAGs and comments), the move named by a line
/// that plays it and its place there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Note {
    /// The line: `None` the main line, `Some(k)` the variation `k` (of the list sent or
    /// answered with it).
    pub line: Option<usize>,
    /// The move's index in that line, from its start (0: the first move).
    pub ply: usize,
    /// Its NAGs (`$1` is `!`) and the comment after it.
    pub after: rules::record::Annotation,
    /// The comment before it, where a variation begins with it.
    pub before: Option<String>,
}

/// A record's words beyond its lines: its tags, the comment before its first move and the
/// notes of its moves.
#[derive(Debug, Clone, Default)]
pub struct RecordNotes {
    /// The tags (name and value) in their order; `None`: only an `Event` naming the board.
    pub tags: Option<Vec<(String, String)>>,
    /// The comment before the first move.
    pub comment: Option<String>,
    /// The notes of moves of the main line or of its variations.
    pub notes: Vec<Note>,
}

/// A PGN record as the analysis board loads it: its main line and its variations, with what
/// it says of them.
pub struct RecordLines {
    /// The main line.
    pub game: Game,
    /// The variations that are lines of the board too, each once, in the order written.
    pub variations: Vec<Game>,
    /// Its tags, the comment before its first move and the notes of the moves of the main line
    /// and the variations kept (each move once, the first written).
    pub notes: RecordNotes,
    /// Why the others were not taken ([`rules::record::Record::unread_variations`], a line too
    /// long or going on after the end, beyond [`MAX_VARIATIONS`]).
    pub unread: Vec<String>,
}

impl RecordLines {
    /// The main line as [`line_json`] gives it, with `variations` (`{uci, san, parts}` each: the
    /// whole line from the start in UCI and SAN, `parts` the ply where it leaves the main line)
    /// and `unread_variations` (messages).
    pub fn to_json(&self) -> Value {
        let mut out = line_json(&self.game);
        let variations: Vec<Value> = self
            .variations
            .iter()
            .map(|g| {
                let moves = crate::live::moves_json(g);
                let parts = g.moves().iter().zip(self.game.moves()).take_while(|(a, b)| a == b).count();
                json!({
                    "uci": moves.iter().map(|m| m["uci"].clone()).collect::<Vec<_>>(),
                    "san": moves.iter().map(|m| m["san"].clone()).collect::<Vec<_>>(),
                    "parts": parts,
                })
            })
            .collect();
        out["variations"] = json!(variations);
        out["unread_variations"] = json!(self.unread);
        out["tags"] = json!(self.notes.tags.iter().flatten().map(|(n, v)| json!([n, v])).collect::<Vec<_>>());
        out["comment"] = json!(self.notes.comment);
        out["notes"] = json!(self
            .notes
            .notes
            .iter()
            .map(|n| json!({ "line": n.line, "ply": n.ply, "nags": n.after.nags, "comment": n.after.comment, "before": n.before }))
            .collect::<Vec<_>>());
        out
    }
}

/// A variation sent to [`pgn_of_lines`]: the first `parts` moves of the line it leaves (the main
/// line, or with `of` an earlier variation of the list), then its own UCI moves `play`
/// (comma-separated).
#[derive(Debug, Clone)]
pub struct SideLine {
    /// The index of the earlier variation it leaves (`None`: the main line).
    pub of: Option<usize>,
    /// How many of that line's moves it keeps.
    pub parts: usize,
    /// Its own moves after them.
    pub play: String,
}

/// A line of variant `v` and its variations as a PGN record (`POST /api/position/pgn`): each
/// variation ([`SideLine`]) is a line of the board as the main line is ([`line_in`]); at most
/// [`MAX_VARIATIONS`]. `notes` gives the record's tags, its comment before the first move and
/// its moves' NAGs and comments ([`Note::at`] a move of the line or of a variation).
pub fn pgn_of_lines(
    v: &'static Variant,
    fen: Option<&str>,
    play: Option<&str>,
    side: &[SideLine],
    notes: &RecordNotes,
) -> Result<String, LineError> {
    let main = line_in(v, fen, play)?;
    if side.len() > MAX_VARIATIONS {
        return Err(LineError::Variation { index: MAX_VARIATIONS + 1, reason: format!("more than {MAX_VARIATIONS}") });
    }
    if !side.is_empty() && v.chance != rules::chance::ChanceRule::None {
        let reason = format!("{} records have no variations (a side line would need its chance outcomes)", v.name);
        return Err(LineError::Variation { index: 1, reason });
    }
    let uci_of = |g: &Game| -> Vec<String> {
        let mut p = g.start().clone();
        g.moves()
            .iter()
            .map(|&m| {
                let u = rules::uci::to_uci(&p, m);
                p.play_unchecked(m);
                u
            })
            .collect()
    };
    let main_uci = uci_of(&main);
    let mut lines: Vec<Vec<String>> = Vec::with_capacity(side.len());
    let mut variations = Vec::with_capacity(side.len());
    for (i, s) in side.iter().enumerate() {
        let refuse = |reason: String| LineError::Variation { index: i + 1, reason };
        let base = match s.of {
            None => &main_uci,
            Some(k) if k < i => &lines[k],
            Some(k) => return Err(refuse(format!("of {k}: a variation leaves the main line or an earlier one"))),
        };
        if s.parts > base.len() {
            let which = s.of.map_or("the line's".to_string(), |k| format!("variation {}'s", k + 1));
            return Err(refuse(format!("parts {} is past {which} {} moves", s.parts, base.len())));
        }
        let mut whole: Vec<&str> = base[..s.parts].iter().map(String::as_str).collect();
        whole.extend(s.play.split(',').map(str::trim).filter(|m| !m.is_empty()));
        let game = line_in(v, fen, Some(&whole.join(","))).map_err(|e| match e {
            // Its moves are numbered from the variation's start, as sent.
            LineError::Play { index, text, reason } if index > s.parts => {
                refuse(format!("move {} of play, '{text}': {reason}", index - s.parts))
            }
            e => refuse(e.to_string()),
        })?;
        // A line that goes on from the main line's end is the main line played further, which a
        // record cannot write as a variation.
        if game.moves().len() > main.moves().len() && game.moves().starts_with(main.moves()) {
            return Err(refuse("it goes on from the line's last move: send it as the line".into()));
        }
        lines.push(uci_of(&game));
        variations.push(rules::record::Variation::new(game.moves().to_vec(), s.parts));
    }
    // The lines as a tree: each move is the first line's that plays it; a variation's own moves
    // begin where it leaves every line before it, and its annotations and first comment are
    // those of its own moves.
    let owned: Vec<Vec<rules::Move>> =
        std::iter::once(main.moves().to_vec()).chain(variations.iter().map(|v| v.line.clone())).collect();
    let whole: Vec<&[rules::Move]> = owned.iter().map(Vec::as_slice).collect();
    let tree = LineTree::of(&whole);
    for (k, var) in variations.iter_mut().enumerate() {
        var.parts = tree.parts[k + 1];
    }
    let mut annotations = vec![rules::record::Annotation::default(); main.moves().len()];
    let mut noted: std::collections::HashMap<(usize, usize), usize> = std::collections::HashMap::new();
    for (i, n) in notes.notes.iter().enumerate() {
        let refuse = |reason: String| LineError::Note { index: i + 1, reason };
        let (name, line) = match n.line {
            None => ("the main line".to_string(), 0),
            Some(k) if k < side.len() => (format!("variation {}", k + 1), k + 1),
            Some(k) => return Err(refuse(format!("line {k}: there are {} variations", side.len()))),
        };
        if n.ply >= whole[line].len() {
            return Err(refuse(format!("ply {} is past {name}'s {} moves", n.ply, whole[line].len())));
        }
        for c in [&n.after.comment, &n.before].into_iter().flatten() {
            if let Some(e) = rules::record::comment_error(v, c) {
                return Err(refuse(e));
            }
        }
        let (owner, ply) = tree.owner(whole[line], n.ply);
        if let Some(first) = noted.insert((owner, ply), i) {
            return Err(refuse(format!("the same move as note {} (a move two lines share is noted once)", first + 1)));
        }
        let annotation = n.after.clone();
        if owner == 0 {
            if n.before.is_some() {
                return Err(refuse("a comment before a move is for a variation's first move".into()));
            }
            annotations[ply] = annotation;
            continue;
        }
        let var = &mut variations[owner - 1];
        if n.before.is_some() && ply != var.parts {
            return Err(refuse("a comment before a move is for a variation's first move".into()));
        }
        let own = ply - var.parts;
        if var.annotations.len() <= own {
            var.annotations.resize(own + 1, rules::record::Annotation::default());
        }
        var.annotations[own] = annotation;
        if n.before.is_some() {
            var.comment.clone_from(&n.before);
        }
    }
    let tags = match &notes.tags {
        Some(tags) => {
            if let Some((name, _)) = tags.iter().find(|(n, _)| !rules::record::is_tag_name(n)) {
                let reason = format!("'{name}' is not a tag name (letters, digits and '_')");
                return Err(LineError::Tag(reason));
            }
            let twice = tags.iter().enumerate().find(|(k, (n, _))| tags[..*k].iter().any(|(m, _)| m == n));
            if let Some((_, (name, _))) = twice {
                return Err(LineError::Tag(format!("{name} given twice")));
            }
            tags.clone()
        }
        None => vec![("Event".to_string(), "fairylab analysis board".to_string())],
    };
    let record = rules::record::Record {
        tags,
        game: main,
        annotations,
        comment: notes.comment.clone(),
        variations,
        unread_variations: Vec::new(),
    };
    Ok(rules::record::write_record(&record))
}

/// A PGN record's main line ([`main_line`]) and its variations: each a line of the board
/// (at most [`MAX_PLIES`] moves, none after the end), the same line kept once.
pub fn lines_of_pgn(text: &str) -> Result<RecordLines, LineError> {
    let rec = rules::record::read_record(text).map_err(|e| LineError::Record(e.to_string()))?;
    let mut unread: Vec<String> = rec.unread_variations.iter().map(ToString::to_string).collect();
    let mut variations: Vec<Game> = Vec::new();
    let mut beyond = 0;
    for v in &rec.variations {
        if v.line.len() > MAX_PLIES {
            unread.push(format!("a variation of {} plies, more than the analysis board's {MAX_PLIES}", v.line.len()));
            continue;
        }
        let mut game = Game::new(rec.game.start().clone());
        for &m in &v.line {
            // Legal: the reader played the line.
            let _ = game.play(m);
        }
        // A line that goes on after the end is kept up to it.
        if let Some(e @ LineError::AfterEnd { index, .. }) = move_after_end(&game) {
            unread.push(format!("a variation is cut where the game ended: {e}"));
            let mut cut = Game::new(rec.game.start().clone());
            for &m in &v.line[..index - 1] {
                let _ = cut.play(m);
            }
            game = cut;
        }
        if game.moves() == rec.game.moves() || variations.iter().any(|g| g.moves() == game.moves()) {
            continue;
        }
        if variations.len() == MAX_VARIATIONS {
            beyond += 1;
            continue;
        }
        variations.push(game);
    }
    if beyond > 0 {
        unread.push(format!("{beyond} variations after the first {MAX_VARIATIONS}"));
    }
    // A line that another holds whole (the main line's own moves, a line given twice) adds
    // nothing to the board.
    let held = |a: &Game, b: &Game| a.moves().len() <= b.moves().len() && b.moves().starts_with(a.moves());
    let mut kept: Vec<Game> = Vec::with_capacity(variations.len());
    for (i, g) in variations.iter().enumerate() {
        // (No two are the same line: those were skipped above.)
        let elsewhere = held(g, &rec.game) || variations.iter().enumerate().any(|(j, h)| j != i && held(g, h));
        if !elsewhere {
            kept.push(g.clone());
        }
    }
    let notes =
        RecordNotes { tags: Some(rec.tags.clone()), comment: rec.comment.clone(), notes: notes_of(&rec, &kept) };
    let game = main_line(rec)?;
    Ok(RecordLines { game, variations: kept, unread, notes })
}

/// The notes of a record's moves that are moves of its main line or of the variations `kept`,
/// each named by the first of those lines that plays it (a move that several lines of the record
/// note, once: their NAGs together, their comments joined).
fn notes_of(rec: &rules::record::Record, kept: &[Game]) -> Vec<Note> {
    let lines: Vec<&[rules::Move]> = std::iter::once(rec.game.moves()).chain(kept.iter().map(Game::moves)).collect();
    let tree = LineTree::of(&lines);
    let mut out: Vec<Note> = Vec::new();
    let mut index: std::collections::HashMap<(usize, usize), usize> = std::collections::HashMap::new();
    let mut add = |path: &[rules::Move], a: Option<&rules::record::Annotation>, before: Option<&String>| {
        let a = a.filter(|a| !a.is_empty());
        if a.is_none() && before.is_none() {
            return;
        }
        let Some((owner, ply)) = tree.find(path) else { return };
        let k = *index.entry((owner, ply)).or_insert_with(|| {
            out.push(Note { line: owner.checked_sub(1), ply, ..Note::default() });
            out.len() - 1
        });
        let note = &mut out[k];
        if let Some(a) = a {
            note.after.join(a);
        }
        rules::record::join_comment(&mut note.before, before.map(String::as_str));
    };
    let main = rec.game.moves();
    for (ply, a) in rec.annotations.iter().enumerate().take(main.len()) {
        add(&main[..=ply], Some(a), None);
    }
    for v in &rec.variations {
        for ply in v.parts..v.line.len() {
            let before = if ply == v.parts { v.comment.as_ref() } else { None };
            add(&v.line[..=ply], v.annotations.get(ply - v.parts), before);
        }
    }
    out
}

/// Lines from one start as a tree of moves: each move is the first line's that plays it.
struct LineTree {
    /// The node a move leads to from a node (the root is 0).
    child: std::collections::HashMap<(usize, rules::Move), usize>,
    /// Each node's line (the first to play it) and ply (the move's index in that line).
    owner: Vec<(usize, usize)>,
    /// Each line's first own move: where it leaves every line before it (its length if none).
    parts: Vec<usize>,
}

impl LineTree {
    fn of(lines: &[&[rules::Move]]) -> LineTree {
        let mut tree = LineTree { child: std::collections::HashMap::new(), owner: vec![(0, 0)], parts: Vec::new() };
        for (k, line) in lines.iter().enumerate() {
            let (mut node, mut parts) = (0, line.len());
            for (ply, &m) in line.iter().enumerate() {
                let fresh = tree.owner.len();
                node = *tree.child.entry((node, m)).or_insert(fresh);
                if node == fresh {
                    tree.owner.push((k, ply));
                    parts = parts.min(ply);
                }
            }
            tree.parts.push(parts);
        }
        tree
    }

    /// The line and ply of the move that ends `path` (`None` if no line plays it).
    fn find(&self, path: &[rules::Move]) -> Option<(usize, usize)> {
        let node = path.iter().try_fold(0, |node, &m| self.child.get(&(node, m)).copied())?;
        (node > 0).then(|| self.owner[node])
    }

    /// The line and ply of the move `line[ply]` (a line of the tree).
    fn owner(&self, line: &[rules::Move], ply: usize) -> (usize, usize) {
        self.find(&line[..=ply]).unwrap_or((0, ply))
    }
}

/// The main line of a record (its first game, of a built-in variant): its start and moves,
/// which must have had no chance outcome (a gift or a failed roll cannot be replayed as a line).
fn main_line(rec: rules::record::Record) -> Result<Game, LineError> {
    let v = rec.game.start().variant();
    if v.simultaneous {
        return Err(LineError::Variant(format!("{} has no analysis board (both sides move at once)", v.name)));
    }
    // Without a FEN the reader starts from the standard position, which is not a Chess960
    // game's (as a game's import refuses it).
    if rules::variants::chess960::is_chess960(v) && rec.tag("FEN").is_none() {
        return Err(LineError::Variant(format!(
            "a Chess960 record needs its FEN tag: a {} game does not start from the standard position",
            v.name
        )));
    }
    if rec.game.moves().len() > MAX_PLIES {
        return Err(LineError::RecordTooLong(rec.game.moves().len()));
    }
    let chance = rec.game.events().iter().enumerate().find_map(|(i, e)| match e {
        Event::Success => None,
        Event::Failure => Some((i, "failed its roll")),
        Event::Gift(_) => Some((i, "brought gifts")),
        _ => Some((i, "had a chance outcome")),
    });
    if let Some((i, outcome)) = chance {
        let mut p = rec.game.start().clone();
        for (&m, &e) in rec.game.moves().iter().zip(rec.game.events()).take(i) {
            p.play_event(m, e);
        }
        let mv = numbered(&p, rec.game.moves()[i], rec.game.events()[i]);
        return Err(LineError::Chance { index: i + 1, mv, outcome });
    }
    if let Some(e) = move_after_end(&rec.game) {
        return Err(e);
    }
    Ok(rec.game)
}

/// A move as a record numbers it in `pos`, before it: `5. e4`, `5... e5`.
fn numbered(pos: &Position, m: rules::Move, e: Event) -> String {
    let number = if pos.turn() == rules::Color::White { "." } else { "..." };
    format!("{}{number} {}", pos.fullmoves(), rules::san::to_san_event(pos, m, e))
}

/// The end of a line's game that no later move can follow: any but the draws a player must
/// claim under FIDE's rules (a threefold repetition, fifty moves), after which a game played
/// elsewhere may well have gone on. At the end of a line those still end it (the server's games
/// draw them at once, as lichess's do).
pub fn final_outcome(game: &Game) -> Option<rules::Outcome> {
    game.outcome().filter(|o| !matches!(o.reason(), rules::EndReason::Repetition | rules::EndReason::FiftyMoves))
}

/// The first move of `game` played after the game was over ([`LineError::AfterEnd`]), if any.
/// A record's reader refuses a move where the position has none (after a mate), but not one
/// after an end such as a king captured or a dead position: those are refused too, as `play`
/// refuses them in a line. Moves after an unclaimed threefold repetition or fifty moves are
/// kept ([`final_outcome`]).
pub fn move_after_end(game: &Game) -> Option<LineError> {
    let mut replay = Game::new(game.start().clone());
    for (i, (&m, &e)) in game.moves().iter().zip(game.events()).enumerate() {
        if let Some(o) = final_outcome(&replay) {
            let text = numbered(replay.position(), m, e);
            return Some(LineError::AfterEnd { index: i + 1, text, reason: ended_by(o) });
        }
        replay.play_event(m, e).ok()?;
    }
    None
}

/// How a game ended, in words: `white won by checkmate`, `a draw by insufficient material`.
fn ended_by(o: rules::Outcome) -> String {
    match o {
        rules::Outcome::Decisive { winner, reason } => format!("{winner} won by {}", reason.words()),
        rules::Outcome::Draw { reason } => format!("a draw by {}", reason.words()),
    }
}

/// A line as the analysis board shows it: `{variant, start_fen, fen, turn, moves, legal_moves,
/// result, reason, tablebase, pgn}`; `moves` as the game state lists them (`live::moves_json`),
/// `legal_moves` the UCI moves of the last position (none once the game is over; some after a
/// threefold repetition or fifty moves, which a line may go on from), `result` and `reason` the
/// outcome there (threefold repetition included) or null, `tablebase` the tables'
/// verdict on it, `pgn` the line as a record.
pub fn line_json(game: &Game) -> Value {
    let pos = game.position();
    let outcome = game.outcome().map(crate::live::outcome_text);
    // After a draw a player could claim (threefold, fifty moves) the line may go on.
    let legal: Vec<String> = match final_outcome(game) {
        Some(_) => Vec::new(),
        None => pos.legal_moves().iter().map(|&m| rules::uci::to_uci(pos, m)).collect(),
    };
    json!({
        "variant": pos.variant().name,
        "start_fen": game.start().fen(),
        "fen": pos.fen(),
        "turn": pos.turn().to_string(),
        "moves": crate::live::moves_json(game),
        "legal_moves": legal,
        "result": outcome.as_ref().map(|o| &o.0),
        "reason": outcome.as_ref().map(|o| &o.1),
        "tablebase": crate::analysis::verdict(pos),
        "pgn": rules::record::write_pgn(game, &[("Event".into(), "fairylab analysis board".into())]),
    })
}
