//! Bad-input suites: every line of `tests/data/invalid-*.txt` must be rejected with the exact error kind,
//! and nothing may panic. One driver reads the tab-separated files; one small adapter per parser.
//!
//! Line format: `KIND` or `KIND(text)` then the inputs, tab-separated; `text` must occur in the error's
//! message. `#` starts a comment line. Inputs may use the escapes `\n`, `\t` and `\\`.

use rules::betza::parse_betza;
use rules::fen::ParseFenError;
use rules::piecedef::{parse_piecedef, parse_piecedef_lenient, parse_piecedef_moves};
use rules::san::parse_san;
use rules::spec::{load_variant_file, load_variant_str};
use rules::uci::parse_uci;
use rules::{variants, Position, Variant};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// What a parser said about an input that should have been rejected.
enum Verdict {
    /// Accepted, with a description of what it made of the input.
    Accepted(String),
    /// Rejected with this kind and message.
    Rejected { kind: String, message: String },
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

/// The name of the enum variant an error's `Debug` output starts with (`Board("...")` gives `Board`).
fn variant_name(debug: &str) -> String {
    debug.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

fn rejected<E: std::fmt::Debug + std::fmt::Display>(kind_of: &E, error: &impl std::fmt::Display) -> Verdict {
    Verdict::Rejected { kind: variant_name(&format!("{kind_of:?}")), message: error.to_string() }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// A built-in variant by name, or a variant file under `tests/data/` (a name ending in `.toml`).
fn variant(name: &str) -> Result<&'static Variant, String> {
    if name.ends_with(".toml") {
        load_variant_file(data_dir().join(name)).map_err(|e| format!("variant file {name}: {e}"))
    } else {
        variants::by_name(name).ok_or_else(|| format!("unknown variant {name}"))
    }
}

fn position(variant_name: &str, fen: &str) -> Result<Position, String> {
    let v = variant(variant_name)?;
    Position::from_fen(v, fen).map_err(|e| format!("setup FEN {fen:?} does not parse: {e}"))
}

/// Runs every line of `tests/data/<file>` through `check`, which gets the unescaped input columns.
/// Returns the number of cases; panics listing every line that was accepted, gave another kind or panicked.
fn suite(file: &str, columns: usize, check: impl Fn(&[String]) -> Result<Verdict, String>) -> usize {
    let path = data_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, raw) in text.lines().enumerate() {
        let at = format!("tests/data/{file}:{}", i + 1);
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != columns + 1 {
            failures.push(format!("{at}: expected {} tab-separated columns, found {}", columns + 1, fields.len()));
            continue;
        }
        let expected = fields[0].trim();
        let (want_kind, want_text) = match expected.split_once('(') {
            Some((k, rest)) if rest.ends_with(')') => (k, Some(&rest[..rest.len() - 1])),
            _ => (expected, None),
        };
        let inputs: Vec<String> = fields[1..].iter().map(|f| unescape(f)).collect();
        cases += 1;
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&inputs)));
        let problem = match outcome {
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Some(format!("PANICKED: {msg}"))
            }
            Ok(Err(setup)) => Some(format!("bad test line: {setup}")),
            Ok(Ok(Verdict::Accepted(what))) => Some(format!("accepted (expected {expected}): {what}")),
            Ok(Ok(Verdict::Rejected { kind, message })) => {
                if kind != want_kind {
                    Some(format!("expected {want_kind}, got {kind}: {message}"))
                } else if want_text.is_some_and(|t| !message.contains(t)) {
                    Some(format!("{kind} as expected, but the message does not contain {want_text:?}: {message}"))
                } else if message.contains('\n') {
                    Some(format!("{kind} as expected, but the message spans several lines: {message:?}"))
                } else {
                    None
                }
            }
        };
        if let Some(p) = problem {
            failures.push(format!("{at}: {p}\n    input {:?}", &inputs));
        }
    }
    assert!(failures.is_empty(), "{} of {cases} cases in {file} failed:\n{}", failures.len(), failures.join("\n"));
    assert!(cases >= 10, "{file} has only {cases} cases");
    cases
}

#[test]
fn invalid_fen() {
    suite("invalid-fen.txt", 2, |c| {
        let v = variant(&c[0])?;
        Ok(match Position::from_fen(v, &c[1]) {
            Ok(p) => Verdict::Accepted(p.fen()),
            Err(ParseFenError::Syntax(e)) => rejected(&e, &e),
            Err(ParseFenError::Illegal(e)) => rejected(&e, &e),
            Err(e) => rejected(&e, &e),
        })
    });
}

#[test]
fn invalid_uci() {
    suite("invalid-uci.txt", 3, |c| {
        let pos = position(&c[0], &c[1])?;
        Ok(match parse_uci(&pos, &c[2]) {
            Ok(m) => Verdict::Accepted(format!("{m:?}")),
            Err(e) => rejected(&e, &e),
        })
    });
}

#[test]
fn invalid_san() {
    suite("invalid-san.txt", 3, |c| {
        let pos = position(&c[0], &c[1])?;
        Ok(match parse_san(&pos, &c[2]) {
            Ok(m) => Verdict::Accepted(rules::uci::to_uci(&pos, m)),
            Err(e) => rejected(&e, &e),
        })
    });
}

#[test]
fn invalid_betza() {
    suite("invalid-betza.txt", 1, |c| {
        Ok(match parse_betza(&c[0]) {
            Ok(m) => Verdict::Accepted(m.to_string()),
            Err(e) => rejected(&e.kind, &e),
        })
    });
}

#[test]
fn invalid_piecedef() {
    suite("invalid-piecedef.txt", 2, |c| {
        let result = match c[0].as_str() {
            "file" => parse_piecedef(&c[1]).map(|defs| format!("{} pieces", defs.len())),
            "lenient" => parse_piecedef_lenient(&c[1]).map(|defs| format!("{} pieces", defs.len())),
            "moves" => parse_piecedef_moves(&c[1]).map(|m| m.to_string()),
            other => return Err(format!("unknown reader {other:?} (file, lenient or moves)")),
        };
        Ok(match result {
            Ok(what) => Verdict::Accepted(what),
            Err(e) => rejected(&e.kind, &e),
        })
    });
}

#[test]
fn invalid_variant() {
    suite("invalid-variant.txt", 1, |c| {
        Ok(match load_variant_str(&c[0]) {
            Ok(v) => Verdict::Accepted(format!("variant {}", v.name)),
            Err(e) => rejected(&e, &e),
        })
    });
}
