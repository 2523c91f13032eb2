//! What the UCI and XBoard loops share: the line output both they and the search thread write
//! to, the game being played (start position, moves, history for repetitions) and variant facts.
//!
//! The protocol modules ([`crate::uci`], [`crate::xboard`]) read commands and translate them
//! into this vocabulary; nothing here knows either protocol's wording except
//! [`Session::variant_info`], which follows Fairy-Stockfish's `info string variant` fields.

use rules::fen::{parse_setup, FenError, ParseFenError};
use rules::game::Game;
use rules::hand::Hand;
use rules::outcome::Outcome;
use rules::uci::{parse_uci, to_uci, UciError};
use rules::{variants, Color, Move, Position, Variant};
use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};

/// The most lines `MultiPV` takes, in UCI and XBoard alike (Stockfish's bound).
pub const MAX_MULTIPV: usize = 500;

/// The most search threads accepted (UCI `Threads`, XBoard `cores`).
pub const MAX_THREADS: usize = 256;

/// Input echoed in an error message, cut to its first 100 characters with its length after
/// them: a GUI with a line-length limit still reads the reply to a line of megabytes.
///
/// ```
/// assert_eq!(engine::protocol::shorten("e2e5"), "e2e5");
/// let long = "x".repeat(5000);
/// assert_eq!(engine::protocol::shorten(&long), format!("{}... (5000 characters)", "x".repeat(100)));
/// ```
pub fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    const KEEP: usize = 100;
    match text.char_indices().nth(KEEP) {
        None => text.into(),
        Some((end, _)) => format!("{}... ({} characters)", &text[..end], text.chars().count()).into(),
    }
}

/// An error reply cut in its middle when it is over 400 characters (its first 200 and last 150
/// kept): whatever input it echoes, the reply stays readable and keeps its reason at the end.
pub fn elide(line: &str) -> std::borrow::Cow<'_, str> {
    let n = line.chars().count();
    if n <= 400 {
        return line.into();
    }
    let head: String = line.chars().take(200).collect();
    let tail: String = line.chars().skip(n - 150).collect();
    format!("{head} ... ({} characters cut) ... {tail}", n - 350).into()
}

/// Where a protocol loop writes its replies: shared with the search thread, one line at a time.
pub type Output = Arc<Mutex<dyn Write + Send>>;

/// Wraps a writer (stdout, or a buffer in tests) as an [`Output`].
///
/// ```
/// let out = engine::protocol::output(Vec::new());
/// engine::protocol::send(&out, "readyok").unwrap();
/// ```
pub fn output<W: Write + Send + 'static>(writer: W) -> Output {
    Arc::new(Mutex::new(writer))
}

/// Writes one line and flushes it, so a GUI reading a pipe sees it at once.
///
/// # Errors
///
/// The writer's error (e.g. a closed pipe).
pub fn send(out: &Output, line: &str) -> io::Result<()> {
    // A panic while holding the lock cannot leave a half-written line worth refusing to extend.
    let mut w = out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    w.write_all(line.as_bytes())?;
    w.write_all(b"\n")?;
    w.flush()
}

/// The lines of `input` without their line ends; bytes that are not UTF-8 are replaced
/// rather than ending the session.
pub fn lines<R: BufRead>(mut input: R) -> impl Iterator<Item = io::Result<String>> {
    std::iter::from_fn(move || {
        let mut buf = Vec::new();
        loop {
            match input.read_until(b'\n', &mut buf) {
                Ok(0) if buf.is_empty() => return None,
                Ok(_) => {
                    let text = String::from_utf8_lossy(&buf);
                    return Some(Ok(text.trim_end_matches(['\n', '\r']).to_string()));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    })
}

/// The built-in variants a sequential protocol (UCI, XBoard) can play: all but the
/// simultaneous ones (Predictor chess), whose plies need both sides' orders at once.
pub fn sequential_variants() -> impl Iterator<Item = &'static Variant> {
    variants::all().iter().copied().filter(|v| !v.simultaneous)
}

/// Loads the `;`-separated variant files of a `VariantPath` value (`<empty>` or nothing: none).
///
/// # Errors
///
/// A file that does not load, a variant of simultaneous plies, or two variants of one name.
pub fn load_variant_files(value: &str) -> Result<Vec<&'static rules::Variant>, String> {
    let value = value.trim();
    if value.is_empty() || value == "<empty>" {
        return Ok(Vec::new());
    }
    let mut loaded: Vec<&'static rules::Variant> = Vec::new();
    for path in value.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let v = rules::spec::load_variant_file(path).map_err(|e| format!("{path}: {e}"))?;
        if v.simultaneous {
            return Err(format!(
                "{path}: {} is played in simultaneous plies, which UCI and XBoard cannot express (use fairylab predictor)",
                v.name
            ));
        }
        if loaded.iter().any(|w| w.name.eq_ignore_ascii_case(&v.name)) {
            return Err(format!("{path}: a second variant named {}", v.name));
        }
        loaded.push(v);
    }
    Ok(loaded)
}

/// Adds the variants of a `VariantPath` load to those loaded before, as Fairy-Stockfish's
/// option adds: one of a loaded name takes its place; a load of none (`<empty>`) clears them.
pub fn add_variants(custom: &mut Vec<&'static Variant>, loaded: Vec<&'static Variant>) {
    if loaded.is_empty() {
        custom.clear();
    }
    for v in loaded {
        match custom.iter_mut().find(|w| w.name.eq_ignore_ascii_case(&v.name)) {
            Some(slot) => *slot = v,
            None => custom.push(v),
        }
    }
}

/// After a `VariantPath` load: the variant to start over with when the one in play (`current`)
/// was a custom variant of `before` and is not in `after` any more: its new definition if one
/// of its name came, else chess.
pub fn replaced_variant(
    current: &'static Variant,
    before: &[&'static Variant],
    after: &[&'static Variant],
) -> Option<&'static Variant> {
    if !before.iter().any(|v| std::ptr::eq(*v, current)) || after.iter().any(|v| std::ptr::eq(*v, current)) {
        return None;
    }
    Some(after.iter().copied().find(|v| v.name.eq_ignore_ascii_case(&current.name)).unwrap_or(variants::all()[0]))
}

/// The names of the variants the protocols play, comma separated (for error messages).
pub fn variant_names() -> String {
    sequential_variants().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", ")
}

/// How many piece kinds a pocket shows, as Fairy-Stockfish counts it: every piece kind of a
/// drop variant (the king included, so 6 for crazyhouse), 0 without drops.
pub fn pocket_size(v: &Variant) -> usize {
    if v.drops {
        v.pieces.len()
    } else {
        0
    }
}

/// Fairy-Stockfish's "variant template" (the GUI family of the board): `crazyhouse` for
/// variants where captures go to hand, `fairy` otherwise.
pub fn template(v: &Variant) -> &'static str {
    if v.drops && v.captures_to_hand {
        "crazyhouse"
    } else {
        "fairy"
    }
}

/// A move in a list that could not be played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveListError {
    /// Zero-based index of the move in the list.
    pub index: usize,
    /// What went wrong.
    pub error: UciError,
}

impl fmt::Display for MoveListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} of the list: {}", self.index + 1, self.error)
    }
}

/// A seed for a session's random choices (`Skill Level`'s), from the clock: each session plays
/// its own games.
pub fn session_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

/// The game a protocol loop is playing: its variant, start position and moves.
#[derive(Debug, Clone)]
pub struct Session {
    game: Game,
}

impl Session {
    /// A new game at the start position of `variant`.
    pub fn new(variant: &'static Variant) -> Session {
        Session { game: Game::new(Position::start(variant)) }
    }

    /// The variant being played.
    pub fn variant(&self) -> &'static Variant {
        self.game.position().variant()
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Hashes of the positions before the current one, oldest first: the history
    /// [`crate::Engine::start`] needs to see repetitions.
    pub fn history(&self) -> Vec<u64> {
        self.game.history().to_vec()
    }

    /// Starts over from the variant's start position.
    pub fn reset(&mut self, variant: &'static Variant) {
        self.game = Game::new(Position::start(variant));
    }

    /// Starts over from a FEN of the current variant; on error the game is unchanged.
    ///
    /// # Errors
    ///
    /// The FEN's syntax or legality error.
    pub fn set_fen(&mut self, fen: &str) -> Result<(), ParseFenError> {
        let pos = Position::from_fen(self.variant(), fen)?;
        self.game = Game::new(pos);
        Ok(())
    }

    /// Sets the position from a GUI's FEN, dropping the castling rights and en-passant square
    /// it cannot have ([`Position::from_fen_lenient`]); returns what was dropped, in words.
    ///
    /// # Errors
    ///
    /// The FEN does not read, or the position is illegal for another reason; the game is
    /// unchanged.
    pub fn set_fen_lenient(&mut self, fen: &str) -> Result<Vec<String>, ParseFenError> {
        let (pos, dropped) = Position::from_fen_lenient(self.variant(), fen)?;
        self.game = Game::new(pos);
        Ok(dropped.iter().map(ToString::to_string).collect())
    }

    /// Plays one move in UCI notation (drops as `P@e4`).
    ///
    /// # Errors
    ///
    /// A move that is not UCI syntax or not legal here; the game is unchanged.
    pub fn play_uci(&mut self, text: &str) -> Result<Move, UciError> {
        let pos = self.game.position();
        let m = parse_uci(pos, text)?;
        self.game.play(m).map_err(|e| UciError::Illegal { text: text.to_string(), fen: e.fen })?;
        Ok(m)
    }

    /// Plays a move the engine chose (it came from the legal moves of this position).
    ///
    /// # Errors
    ///
    /// The move is not legal here (the position changed under the search).
    pub fn play(&mut self, m: Move) -> Result<(), UciError> {
        let text = to_uci(self.position(), m);
        self.game.play(m).map_err(|e| UciError::Illegal { text, fen: e.fen })
    }

    /// Plays moves in UCI notation, stopping at the first that fails: the moves before it
    /// stay played.
    ///
    /// # Errors
    ///
    /// The failing move and its position in the list.
    pub fn play_all<'a>(&mut self, moves: impl IntoIterator<Item = &'a str>) -> Result<(), MoveListError> {
        for (index, text) in moves.into_iter().enumerate() {
            self.play_uci(text).map_err(|error| MoveListError { index, error })?;
        }
        Ok(())
    }

    /// Takes back up to `plies` moves; returns how many were taken back.
    pub fn undo(&mut self, plies: usize) -> usize {
        let moves = self.game.moves();
        let n = plies.min(moves.len());
        let keep = moves[..moves.len() - n].to_vec();
        let mut game = Game::new(self.game.start().clone());
        for m in keep {
            // These moves were legal when first played from the same start position.
            if game.play(m).is_err() {
                break;
            }
        }
        self.game = game;
        n
    }

    /// Replaces both hands (pocket letters; case is ignored, `white` goes to White): the
    /// position starts a new game with the same board, side to move and rights.
    ///
    /// # Errors
    ///
    /// A letter that is not a piece that may be held, or a variant without drops.
    pub fn set_hands(&mut self, white: &str, black: &str) -> Result<(), ParseFenError> {
        let pos = self.game.position();
        let v = pos.variant();
        let mut setup = parse_setup(v, &pos.fen())?;
        for (color, letters) in [(Color::White, white), (Color::Black, black)] {
            let hand = &mut setup.hands[color.index()];
            *hand = Hand::default();
            for c in letters.chars().filter(|c| *c != '-') {
                let role = v
                    .role_by_letter(c)
                    .filter(|&r| Some(r) != v.king())
                    .ok_or_else(|| FenError::Pocket(format!("'{c}' is not a piece that can be held")))?;
                hand.add(role).ok_or_else(|| FenError::Pocket("more than 64 pieces of a kind".into()))?;
            }
        }
        let pos = Position::from_setup(v, setup).map_err(ParseFenError::Illegal)?;
        self.game = Game::new(pos);
        Ok(())
    }

    /// The outcome of the game by fairylab's rules (threefold repetition included).
    pub fn outcome(&self) -> Option<Outcome> {
        self.game.outcome()
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.game.position().turn()
    }

    /// Fairy-Stockfish's description of the variant after `UCI_Variant` changes:
    /// `files F ranks R pocket P template T startpos FEN`.
    pub fn variant_info(&self) -> String {
        let v = self.variant();
        format!(
            "files {} ranks {} pocket {} template {} startpos {}",
            v.geometry.files(),
            v.geometry.ranks(),
            pocket_size(v),
            template(v),
            v.start_fen
        )
    }

    /// A text diagram of the position with its FEN, hash and checkers (the `d` command).
    pub fn diagram(&self) -> Vec<String> {
        let pos = self.game.position();
        let v = pos.variant();
        let g = v.geometry;
        let border = format!(" +{}", "---+".repeat(g.files() as usize));
        let mut lines = vec![String::new(), border.clone()];
        for r in (0..g.ranks()).rev() {
            let mut row = String::from(" |");
            for f in 0..g.files() {
                let c = rules::Square::new(f, r)
                    .and_then(|sq| pos.board().piece_at(sq))
                    .map_or(' ', |p| v.piece(p.role).char(p.color));
                row.push_str(&format!(" {c} |"));
            }
            row.push_str(&format!(" {}", r + 1));
            lines.push(row);
            lines.push(border.clone());
        }
        let files: String = (0..g.files()).map(|f| format!("   {}", (b'a' + f) as char)).collect();
        lines.push(files);
        lines.push(String::new());
        lines.push(format!("Fen: {}", pos.fen()));
        lines.push(format!("Key: {:016X}", pos.hash()));
        let checkers: Vec<String> = pos.checkers().map(|sq| sq.to_string()).collect();
        lines.push(format!("Checkers: {}", checkers.join(" ")));
        lines
    }
}

/// A PV or move list in UCI notation from `pos` (moves that stop being legal end the line).
pub fn uci_line(pos: &Position, moves: &[Move]) -> String {
    let mut p = pos.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        if !p.is_legal(m) {
            break;
        }
        out.push(to_uci(&p, m));
        // Chance variants: the line assumes every move succeeds.
        p.play_unchecked(m);
    }
    out.join(" ")
}

/// Parses a numeric command argument, naming the argument in the error.
///
/// # Errors
///
/// A message naming the argument and the text.
pub fn parse_number<T: std::str::FromStr>(name: &str, text: Option<&str>) -> Result<T, String> {
    let text = text.ok_or_else(|| format!("{name} needs a value"))?;
    text.parse().map_err(|_| format!("bad value '{text}' for {name}"))
}

/// A built-in variant by name, or a message listing the known ones.
///
/// # Errors
///
/// The name is not a built-in variant.
pub fn variant_by_name(name: &str) -> Result<&'static Variant, String> {
    match variants::by_name(name) {
        Some(v) if v.simultaneous => Err(format!(
            "{} is played in simultaneous plies, which UCI and XBoard cannot express (use fairylab predictor)",
            v.name
        )),
        Some(v) => Ok(v),
        None => Err(format!("unknown variant '{name}' (known: {})", variant_names())),
    }
}
