//! Custom variants from TOML files: the typed variant spec, inheritance from a built-in parent,
//! and [`SpecError`], which names the key, piece or line at fault.
//!
//! The format is documented in `docs/FORMATS.md`, section "Variant files". In short: top-level keys
//! set the rules (`files`, `ranks`, `start`, `castling`, `promotion`, ...), `[[piece]]` tables define
//! pieces by Betza notation or a FairyGen `piecedef` step list, and `parent` names a built-in variant
//! whose rules fill in every key the file leaves out.
//!
//! Decisions:
//!
//! * **Unknown keys are errors** ([`SpecError::UnknownKey`]), so a typo never silently falls back to the
//!   parent's value (Fairy-Stockfish's `variants.ini` `check` mode reports them the same way).
//! * **Pieces merge by letter**: a `[[piece]]` whose letter the parent already has replaces that piece in
//!   place (keeping its position in the FEN/pocket order); a new letter is appended; `remove-pieces`
//!   deletes inherited pieces first. An inherited promotion list loses the removed letters.
//! * **`summary` is not inherited**: a child of chess is not "FIDE chess". Without one, the summary says
//!   which parent the variant is derived from.
//! * **Inherited castling follows the board**: when the file changes `files` but not `castling`, the
//!   parent's castling is re-derived as orthodox castling for the new width (none on 4 files, where
//!   both castlings would put the king on its own square).
//!
//! ```
//! use rules::{perft, spec::load_variant_str, Position};
//!
//! let v = load_variant_str(r#"
//!     name = "amazonchess"
//!     parent = "chess"
//!     [[piece]]
//!     letter = "q"
//!     name = "amazon"
//!     betza = "QN"
//! "#)?;
//! assert_eq!(perft(&Position::start(v), 1), 22);
//! # Ok::<(), rules::spec::SpecError>(())
//! ```

use crate::betza::{parse_betza, BetzaError};
use crate::chance::ChanceRule;
use crate::geometry::{Geometry, MAX_EDGE, MIN_EDGE};
use crate::piece::{PieceType, Role};
use crate::piecedef::{parse_piecedef_moves, PiecedefError};
use crate::variant::{Castling, DrawRules, InsufficientMaterial, Rules, Variant, VariantError, WinCondition};
use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::Deserialize;
use std::fmt;
use std::path::Path;

/// Why a variant file could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// The file could not be read.
    #[error("cannot read variant file {path}: {message}")]
    Io {
        /// The path as given.
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// The text is not valid TOML.
    #[error("TOML syntax error at line {line}, column {column}: {message}")]
    Toml {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// A Fairy-Stockfish `variants.ini` given for a variant file.
    #[error(
        "this is a Fairy-Stockfish variants.ini (a [name:parent] section at line {line}), not a variant file: \
         fairylab reads variants in TOML (docs/FORMATS.md, Variant files)"
    )]
    NotToml {
        /// 1-based line of the section header.
        line: usize,
    },
    /// A key the format does not define.
    #[error("unknown key '{key}' at line {line}")]
    UnknownKey {
        /// The key with its table path, e.g. `piece[0].bishop`.
        key: String,
        /// 1-based line (0 if unknown).
        line: usize,
    },
    /// A required key is absent.
    #[error("missing key '{key}'")]
    MissingKey {
        /// The key with its table path, e.g. `piece[1].letter`.
        key: String,
    },
    /// A key holds a value of the wrong type or outside its range.
    #[error("bad value for '{key}': {reason}")]
    BadValue {
        /// The key with its table path, e.g. `files` or `piece[2].royal`.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// A piece's movement definition does not parse.
    #[error("piece '{letter}': {source}")]
    Piece {
        /// The piece letter.
        letter: char,
        /// The Betza or piecedef error.
        source: PieceDefinitionError,
    },
    /// `parent` names no built-in variant.
    #[error("unknown parent variant '{name}' (built-in variants: {known})")]
    UnknownParent {
        /// The name given.
        name: String,
        /// The built-in names, comma-separated.
        known: String,
    },
    /// The rules were read but do not make a valid variant (e.g. the start FEN is not legal).
    #[error("invalid variant: {0}")]
    Variant(#[from] VariantError),
}

/// A piece's movement definition that does not parse, in whichever notation it was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PieceDefinitionError {
    /// The `betza` key.
    #[error("betza: {0}")]
    Betza(#[from] BetzaError),
    /// The `piecedef` key.
    #[error("piecedef: {0}")]
    Piecedef(#[from] PiecedefError),
}

/// A variant file as written: every key optional except `name`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct VariantSpec {
    name: String,
    parent: Option<String>,
    summary: Option<String>,
    files: Option<i64>,
    ranks: Option<i64>,
    start: Option<String>,
    castling: Option<bool>,
    double_step: Option<DoubleStep>,
    en_passant: Option<bool>,
    promotion: Option<Vec<char>>,
    drops: Option<bool>,
    captures_to_hand: Option<bool>,
    win: Option<Win>,
    self_check: Option<bool>,
    fifty_move: Option<bool>,
    repetition: Option<bool>,
    insufficient_material: Option<Insufficient>,
    remove_pieces: Option<Vec<char>>,
    #[serde(default)]
    piece: Vec<PieceSpec>,
}

/// One `[[piece]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PieceSpec {
    letter: char,
    name: Option<String>,
    betza: Option<String>,
    piecedef: Option<String>,
    royal: Option<bool>,
    pawn: Option<bool>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Win {
    Checkmate,
    KingCapture,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Insufficient {
    Never,
    Fide,
    Crazyhouse,
    BareKings,
}

/// `double-step`: a boolean for both sides, or `"white"` / `"black"` for one.
#[derive(Debug, Clone, Copy)]
struct DoubleStep([bool; 2]);

impl<'de> Deserialize<'de> for DoubleStep {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DoubleStep, D::Error> {
        struct DoubleStepVisitor;
        impl Visitor<'_> for DoubleStepVisitor {
            type Value = DoubleStep;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false, \"white\" or \"black\"")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<DoubleStep, E> {
                Ok(DoubleStep([b, b]))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<DoubleStep, E> {
                match s {
                    "white" => Ok(DoubleStep([true, false])),
                    "black" => Ok(DoubleStep([false, true])),
                    _ => Err(E::invalid_value(Unexpected::Str(s), &self)),
                }
            }
        }
        d.deserialize_any(DoubleStepVisitor)
    }
}

/// Loads a custom variant from a TOML file.
///
/// The variant is leaked to `'static` (see [`Variant::leak`]): load each file once.
///
/// # Errors
///
/// [`SpecError::Io`] if the file cannot be read, otherwise as [`load_variant_str`].
pub fn load_variant_file(path: impl AsRef<Path>) -> Result<&'static Variant, SpecError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path)
        .map_err(|e| SpecError::Io { path: path.display().to_string(), message: e.to_string() })?;
    load_variant_str(&text)
}

/// Loads a custom variant from TOML text.
///
/// The variant is leaked to `'static` (see [`Variant::leak`]): load each text once.
///
/// # Errors
///
/// A [`SpecError`] naming the fault: TOML syntax (with line and column), an unknown or missing key, a bad
/// value, a piece definition that does not parse, an unknown parent, or rules that do not make a valid
/// variant (for instance a start FEN that is not a legal position).
///
/// # Examples
///
/// ```
/// use rules::spec::{load_variant_str, SpecError};
///
/// let err = load_variant_str("name = \"x\"\nparent = \"chess\"\nfile = 6\n").expect_err("typo");
/// assert!(matches!(err, SpecError::UnknownKey { ref key, line: 3 } if key == "file"));
/// ```
pub fn load_variant_str(text: &str) -> Result<&'static Variant, SpecError> {
    let rules = parse_rules(text).map_err(|e| match e {
        // A section header with a parent (`[name:parent]`) is variants.ini's, never TOML's.
        SpecError::Toml { .. } => text
            .lines()
            .position(|l| {
                let l = l.trim();
                l.starts_with('[') && l.ends_with(']') && l.contains(':') && !l.contains('"')
            })
            .map_or(e, |i| SpecError::NotToml { line: i + 1 }),
        e => e,
    })?;
    Ok(crate::variant::load(rules)?)
}

/// Parses and resolves a variant file into [`Rules`] without building the variant.
///
/// # Errors
///
/// As [`load_variant_str`], except the checks that building the variant makes ([`SpecError::Variant`]).
pub fn parse_rules(text: &str) -> Result<Rules, SpecError> {
    // Step 1. Syntax: a failure here is a TOML error, never blamed on a key.
    if let Err(e) = text.parse::<toml::Table>() {
        let (line, column) = e.span().map_or((0, 0), |s| line_column(text, s.start));
        return Err(SpecError::Toml { line, column, message: one_line(e.message()) });
    }
    // Step 2. Types and unknown keys, with the path of the key at fault.
    let spec: VariantSpec = serde_path_to_error::deserialize(toml::Deserializer::new(text)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        classify(text, &path, &inner)
    })?;
    // Step 3. Resolve against the parent.
    resolve(spec)
}

/// Turns a typed-deserialization error into the matching [`SpecError`].
fn classify(text: &str, path: &str, e: &toml::de::Error) -> SpecError {
    // serde calls enum cases "variants", a confusing word in a file that defines a chess variant.
    let message = one_line(e.message()).replace("unknown variant `", "unknown value `");
    let line = e.span().map_or(0, |s| line_column(text, s.start).0);
    // serde's own wording for `deny_unknown_fields` and required fields.
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let field = rest.split("`, ").next().unwrap_or(rest).trim_end_matches('`');
        return SpecError::UnknownKey { key: join_key(path, field), line };
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or(rest);
        return SpecError::MissingKey { key: join_key(path, field) };
    }
    let key = if path == "." { "(top level)".to_string() } else { path.to_string() };
    let reason = if line > 0 { format!("{message} (line {line})") } else { message };
    SpecError::BadValue { key, reason }
}

/// `parent.child`, or just `child` at the top level. serde_path_to_error may already end the path
/// with the unknown field; it is not repeated.
fn join_key(path: &str, field: &str) -> String {
    if path == "." || path.is_empty() {
        field.to_string()
    } else if path == field || path.ends_with(&format!(".{field}")) {
        path.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Errors are printed on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn bad(key: impl Into<String>, reason: impl Into<String>) -> SpecError {
    SpecError::BadValue { key: key.into(), reason: reason.into() }
}

/// A board edge from the file, checked against the supported sizes.
fn edge(key: &str, value: i64) -> Result<u8, SpecError> {
    u8::try_from(value)
        .ok()
        .filter(|v| (MIN_EDGE..=MAX_EDGE).contains(v))
        .ok_or_else(|| bad(key, format!("{value} is outside {MIN_EDGE}..={MAX_EDGE}")))
}

/// Rules with nothing inherited: the starting point of a variant without `parent`.
fn blank_rules(name: &str) -> Rules {
    Rules {
        name: name.to_string(),
        summary: String::new(),
        geometry: Geometry::CHESS,
        pieces: Vec::new(),
        start_fen: String::new(),
        promotion: Vec::new(),
        double_step: [false, false],
        en_passant: false,
        castling: None,
        drops: false,
        captures_to_hand: false,
        win: WinCondition::Checkmate,
        self_check: false,
        draws: DrawRules { fifty_move: true, repetition: true, insufficient: InsufficientMaterial::Never },
        chance: ChanceRule::None,
        column_switch_limit: None,
        ply_limit: None,
        shrink_after: None,
        stuck_passes: false,
        simultaneous: false,
    }
}

/// Applies a spec to its parent's rules (or to blank rules).
fn resolve(spec: VariantSpec) -> Result<Rules, SpecError> {
    if spec.name.trim().is_empty() || spec.name.chars().any(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')) {
        return Err(bad("name", format!("{:?} is not a name (use letters, digits, '-' and '_')", spec.name)));
    }
    // A record's `Variant` tag and the server's games name a variant: a custom one may not take
    // a built-in's name, or its records would read back as the built-in game.
    if let Some(builtin) = crate::variants::by_name(&spec.name) {
        return Err(bad(
            "name",
            format!(
                "'{}' is the built-in variant '{}': a custom variant needs a name of its own",
                spec.name, builtin.name
            ),
        ));
    }
    let parent = match &spec.parent {
        Some(p) => Some(crate::variants::by_name(p).ok_or_else(|| SpecError::UnknownParent {
            name: p.clone(),
            known: crate::variants::all().iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", "),
        })?),
        None => None,
    };
    let mut r = match parent {
        Some(v) => v.rules().clone(),
        None => blank_rules(&spec.name),
    };
    r.name = spec.name.clone();
    r.summary = match (&spec.summary, parent) {
        (Some(s), _) => one_line(s),
        (None, Some(p)) => format!("custom variant derived from {}", p.name),
        (None, None) => "custom variant".to_string(),
    };

    // Board. Without a parent, the size and the start position are required.
    let parent_geometry = r.geometry;
    let files = match spec.files {
        Some(f) => edge("files", f)?,
        None if parent.is_some() => r.geometry.files(),
        None => return Err(SpecError::MissingKey { key: "files".into() }),
    };
    let ranks = match spec.ranks {
        Some(n) => edge("ranks", n)?,
        None if parent.is_some() => r.geometry.ranks(),
        None => return Err(SpecError::MissingKey { key: "ranks".into() }),
    };
    r.geometry = Geometry::new(files, ranks).ok_or_else(|| bad("files", "unsupported board size"))?;
    match &spec.start {
        Some(s) => r.start_fen = s.trim().to_string(),
        None if parent.is_some() && r.geometry == parent_geometry => {}
        None if parent.is_some() => {
            return Err(bad("start", "required when the board size differs from the parent's"));
        }
        None => return Err(SpecError::MissingKey { key: "start".into() }),
    }

    // Pieces: inherited, minus `remove-pieces`, then overridden or extended by `[[piece]]`.
    let parent_promotion: Vec<char> = r.promotion.iter().map(|role| r.pieces[role.index()].letter).collect();
    for letter in spec.remove_pieces.iter().flatten() {
        let before = r.pieces.len();
        r.pieces.retain(|p| p.letter != *letter);
        if r.pieces.len() == before {
            return Err(bad("remove-pieces", format!("the parent has no piece '{letter}'")));
        }
    }
    for (i, ps) in spec.piece.iter().enumerate() {
        let key = |field: &str| format!("piece[{i}].{field}");
        let letter = ps.letter;
        if !letter.is_ascii_lowercase() {
            return Err(bad(key("letter"), format!("'{letter}' is not a lower-case letter a-z")));
        }
        if spec.piece[..i].iter().any(|q| q.letter == letter) {
            return Err(bad(key("letter"), format!("piece '{letter}' is defined twice in this file")));
        }
        let (movement, source) = match (&ps.betza, &ps.piecedef) {
            (Some(b), None) => {
                (parse_betza(b).map_err(|e| SpecError::Piece { letter, source: e.into() })?, b.trim().to_string())
            }
            (None, Some(d)) => (
                parse_piecedef_moves(d).map_err(|e| SpecError::Piece { letter, source: e.into() })?,
                d.trim().to_string(),
            ),
            _ => {
                return Err(bad(
                    format!("piece[{i}]"),
                    format!("piece '{letter}' needs exactly one of 'betza' and 'piecedef'"),
                ))
            }
        };
        let existing = r.pieces.iter().position(|p| p.letter == letter);
        let name = match (&ps.name, existing) {
            (Some(n), _) => n.trim().to_string(),
            (None, Some(j)) => r.pieces[j].name.clone(),
            (None, None) => letter.to_string(),
        };
        if name.is_empty() {
            return Err(bad(key("name"), "empty name"));
        }
        // Replacing the parent's king or pawn must say whether the new piece keeps that role:
        // silently losing it (no promotion, no check) surprised Fairy-Stockfish users, whose
        // `p` is a pawn by default.
        if let Some(old) = existing.map(|j| &r.pieces[j]) {
            for (role, had, given) in [("royal", old.royal, ps.royal), ("pawn", old.pawn, ps.pawn)] {
                if had && given.is_none() {
                    return Err(bad(
                        key(role),
                        format!(
                            "piece '{letter}' replaces the parent's {}: say {role} = true to keep that role or \
                             {role} = false to drop it",
                            if role == "royal" { "royal piece" } else { "pawn" }
                        ),
                    ));
                }
            }
        }
        let def = PieceType {
            name,
            letter,
            movement,
            royal: ps.royal.unwrap_or(false),
            pawn: ps.pawn.unwrap_or(false),
            source,
        };
        match existing {
            Some(j) => r.pieces[j] = def,
            None => r.pieces.push(def),
        }
    }
    if r.pieces.is_empty() {
        return Err(SpecError::MissingKey { key: "piece".into() });
    }
    let role_of = |c: char| r.pieces.iter().position(|p| p.letter == c).map(|i| Role(i as u8));
    r.promotion = match &spec.promotion {
        Some(letters) => {
            let mut roles = Vec::new();
            for &c in letters {
                let role = role_of(c).ok_or_else(|| bad("promotion", format!("the variant has no piece '{c}'")))?;
                if !roles.contains(&role) {
                    roles.push(role);
                }
            }
            roles
        }
        None => parent_promotion.iter().filter_map(|&c| role_of(c)).collect(),
    };

    // Rule switches.
    // On four files both castlings would land the king on the c-file, the one square it
    // stands on: no castling there (an inherited one is dropped).
    let castles = r.geometry.files() >= 5;
    r.castling = match spec.castling {
        Some(true) if !castles => {
            return Err(bad(
                "castling",
                "castling needs at least 5 files (on 4 the king would land on its own square either way)",
            ))
        }
        Some(true) => Some(Castling::orthodox(r.geometry.files())),
        Some(false) => None,
        None if r.geometry.files() != parent_geometry.files() => {
            r.castling.filter(|_| castles).map(|_| Castling::orthodox(r.geometry.files()))
        }
        None => r.castling,
    };
    if let Some(DoubleStep(d)) = spec.double_step {
        r.double_step = d;
    }
    let set = |slot: &mut bool, value: Option<bool>| {
        if let Some(v) = value {
            *slot = v;
        }
    };
    set(&mut r.en_passant, spec.en_passant);
    set(&mut r.drops, spec.drops);
    set(&mut r.captures_to_hand, spec.captures_to_hand);
    set(&mut r.self_check, spec.self_check);
    set(&mut r.draws.fifty_move, spec.fifty_move);
    set(&mut r.draws.repetition, spec.repetition);
    if let Some(w) = spec.win {
        r.win = match w {
            Win::Checkmate => WinCondition::Checkmate,
            Win::KingCapture => WinCondition::KingCapture,
        };
    }
    if let Some(i) = spec.insufficient_material {
        r.draws.insufficient = match i {
            Insufficient::Never => InsufficientMaterial::Never,
            Insufficient::Fide => InsufficientMaterial::Fide,
            Insufficient::Crazyhouse => InsufficientMaterial::Crazyhouse,
            Insufficient::BareKings => InsufficientMaterial::BareKings,
        };
    }
    if r.captures_to_hand && !r.drops {
        return Err(bad("captures-to-hand", "captured pieces go to a hand, but the variant has no drops"));
    }
    // Baby Chess's column-switch limit comes only from the parent; the key that conflicts
    // with it is the one named.
    if r.column_switch_limit.is_some() {
        let conflicts = [
            ("drops", r.drops),
            ("castling", r.castling.is_some()),
            ("en-passant", r.en_passant),
            ("self-check", r.self_check),
        ];
        if let Some((key, _)) = conflicts.into_iter().find(|&(_, on)| on) {
            return Err(bad(
                key,
                format!(
                    "the column-switch limit inherited from '{}' works without drops, castling, en passant and self-check",
                    spec.parent.as_deref().unwrap_or_default()
                ),
            ));
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{perft, Position};

    const LOS_ALAMOS: &str = r#"
name = "losalamos"
parent = "chess"
summary = "Los Alamos chess"
files = 6
ranks = 6
start = "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1"
castling = false
double-step = false
en-passant = false
remove-pieces = ["b"]
promotion = ["n", "r", "q"]
"#;

    fn err(text: &str) -> SpecError {
        match load_variant_str(text) {
            Ok(v) => panic!("{text:?} should fail, loaded {}", v.name),
            Err(e) => e,
        }
    }

    #[test]
    fn los_alamos_from_chess() {
        let v = load_variant_str(LOS_ALAMOS).expect("loads");
        assert_eq!(v.pieces.iter().map(|p| p.letter).collect::<String>(), "pnrqk");
        assert_eq!(v.promotion.len(), 3);
        assert_eq!(perft(&Position::start(v), 1), 10);
        assert_eq!(perft(&Position::start(v), 2), 100);
    }

    #[test]
    fn override_keeps_order_and_appends() {
        let v = load_variant_str(
            "name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"n\"\nbetza = \"NW\"\n[[piece]]\nletter = \"a\"\nbetza = \"QN\"\n",
        )
        .expect("loads");
        assert_eq!(v.pieces.iter().map(|p| p.letter).collect::<String>(), "pnbrqka");
        assert_eq!(v.pieces[1].name, "knight");
        assert_eq!(v.pieces[6].name, "a");
        assert_eq!(v.summary, "custom variant derived from chess");
    }

    #[test]
    fn unknown_keys_are_named() {
        assert_eq!(
            err("name = \"x\"\nparent = \"chess\"\ncolour = 1\n"),
            SpecError::UnknownKey { key: "colour".into(), line: 3 }
        );
        match err("name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"a\"\nbetza = \"Q\"\nroyl = true\n") {
            SpecError::UnknownKey { key, line } => {
                assert_eq!(key, "piece[0].royl");
                assert_eq!(line, 6);
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn bad_values_name_the_key() {
        match err("name = \"x\"\nparent = \"chess\"\nfiles = \"six\"\n") {
            SpecError::BadValue { key, reason } => {
                assert_eq!(key, "files");
                assert!(reason.contains("line 3"), "{reason}");
            }
            e => panic!("{e:?}"),
        }
        match err("name = \"x\"\nparent = \"chess\"\nfiles = 9\n") {
            SpecError::BadValue { key, .. } => assert_eq!(key, "files"),
            e => panic!("{e:?}"),
        }
        match err("name = \"x\"\nparent = \"chess\"\ndouble-step = \"both\"\n") {
            SpecError::BadValue { key, .. } => assert_eq!(key, "double-step"),
            e => panic!("{e:?}"),
        }
        match err("name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"a\"\nbetza = \"Q\"\nroyal = 1\n") {
            SpecError::BadValue { key, .. } => assert_eq!(key, "piece[0].royal"),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn syntax_errors_have_positions() {
        match err("name = \"x\"\nparent = = 3\n") {
            SpecError::Toml { line, column, .. } => assert_eq!((line, column), (2, 10)),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn other_errors() {
        assert!(matches!(err("parent = \"chess\"\n"), SpecError::MissingKey { ref key } if key == "name"));
        // A built-in's name, in any case, is taken.
        let e = err("name = \"Crazyhouse\"\nparent = \"chess\"\n");
        assert!(e.to_string().contains("is the built-in variant 'crazyhouse'"), "{e}");
        assert!(matches!(err("name = \"x\"\nparent = \"chesss\"\n"), SpecError::UnknownParent { .. }));
        assert!(matches!(
            err("name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"a\"\nbetza = \"QX\"\n"),
            SpecError::Piece { letter: 'a', source: PieceDefinitionError::Betza(_) }
        ));
        assert!(matches!(
            err("name = \"x\"\nparent = \"chess\"\n[[piece]]\nletter = \"a\"\npiecedef = \"1,0s*\"\n"),
            SpecError::Piece { letter: 'a', source: PieceDefinitionError::Piecedef(_) }
        ));
        assert!(matches!(
            err("name = \"x\"\nparent = \"chess\"\nstart = \"8/8/8/8/8/8/8/8 w - - 0 1\"\n"),
            SpecError::Variant(_)
        ));
    }
}
