//! FairyGen's `piecedef.ini`: lines such as `A: 1,2,* 1,1,s*` giving a piece letter its steps, parsed into [`Movement`]s.
//! Owns the step syntax, the strict reader (the default) and the lenient reader that copies FairyGen's quirks.
//!
//! # Format
//!
//! Each line is `X: STEP STEP ...`: a letter in the first column, a colon, whitespace, then steps separated
//! by whitespace. A step is `dx,dy` optionally followed by `,SPECS`:
//!
//! * `dx,dy`: the file change (positive towards the h-file) and rank change (positive = White's forward), as
//!   the FairyGen documentation (2019) defines them; signed integers, not both zero, at most 127 in size.
//! * `SPECS`: an optional range number first (`3` = a slider of at most 3 steps; it implies sliding, must be
//!   1 to 255), then in any order at most one each of `c` (capture only), `n` (non-capture only; not with `c`),
//!   `s` (slide: an unlimited rider unless a range is given), and one symmetry mark: `*` (all eight images
//!   under the board's symmetries, [`eight_fold`]) or `+` (the four images under horizontal and vertical
//!   mirroring, [`four_fold`]). Without a mark the step is that one direction only.
//! * A step without specs is a single leap usable for moving and capturing.
//!
//! Blank lines are skipped. FairyGen has no comment syntax, so lines starting with `#` or `;` are refused
//! with [`PiecedefErrorKind::Comment`] rather than given a meaning FairyGen does not give them. A letter
//! defined twice is an error ([`PiecedefErrorKind::DuplicateLetter`]).
//!
//! # Strict and lenient reading
//!
//! FairyGen (and its predecessor EGTgen 1.2, whose reader is public) reads the file with
//! `fscanf("%d,%d")` and `fscanf(",%s")` into a `rights` buffer that is not cleared between steps. Two
//! consequences, and what this module does with them:
//!
//! 1. A step without specs takes the symmetry mark (`*`/`+`) still in the buffer from the last step that had
//!    specs (its `c`, `n`, `s` are *not* inherited: the reader resets the step to "leaper, both" first, so the
//!    data README's "inherits the previous step's specs" holds for the symmetry only). [`parse_piecedef`]
//!    does **not** follow this: it uses FairyGen 2019's documented semantics, a step without specs is that
//!    one leap. [`parse_piecedef_lenient`] follows it.
//! 2. Specs not introduced by a comma (the shipped file's `Z: 1,1,s* 1,0s* 1,2,*`) are not read: the reader
//!    takes `1,0` as a step without specs, then stops at `s*`, so the rest of the line is never read (nor,
//!    in FairyGen, the rest of the file). [`parse_piecedef`] refuses such a step with
//!    [`PiecedefErrorKind::MissingComma`]. [`parse_piecedef_lenient`] reads it as FairyGen does: the step
//!    `1,0` as a leap with the buffered symmetry (`*` from `1,1,s*`), the rest of that line ignored. So the
//!    shipped `Z` is bishop plus wazir. Unlike FairyGen, reading continues with the next line.
//!
//! Apart from these two points the lenient reader is as strict as the default one.
//!
//! EGTgen 1.2 ignored range numbers (FairyGen 2019 reads them, and so does this module), and its 0x88
//! code took the *first* number as the rank change, as its README says for the 4-fold build. For 8-fold
//! symmetric (`*`) pieces the order does not matter; for `+` and unmarked steps this module follows
//! FairyGen 2019's `dX,dY` (file, rank). The shipped `L: 1,1,* 2,2,* 0,1,n+` therefore gets the vertical
//! non-capturing steps `(0,±1)`; EGTgen would give it the sideways steps of Spartan Chess's Lieutenant.

use std::collections::HashMap;

use crate::movement::{eight_fold, four_fold, Atom, Mode, Movement};
use thiserror::Error;

/// One line of `piecedef.ini`: a piece letter and its movement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceDef {
    /// The piece letter (the first character of the line).
    pub letter: char,
    /// The piece's steps.
    pub movement: Movement,
}

/// A `piecedef.ini` fault: the 1-based line and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {kind}")]
pub struct PiecedefError {
    /// 1-based line number (1 for [`parse_piecedef_line`] and [`parse_piecedef_moves`]).
    pub line: usize,
    /// What is wrong.
    pub kind: PiecedefErrorKind,
}

/// What is wrong with a `piecedef.ini` line or step.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PiecedefErrorKind {
    /// The line is empty (only [`parse_piecedef_line`]; files skip blank lines).
    #[error("empty line, expected 'X: steps'")]
    EmptyLine,
    /// The line starts with something other than a letter.
    #[error("expected a piece letter in the first column, found {0:?}")]
    BadLetter(char),
    /// A comment line: FairyGen's format has none.
    #[error("comments are not part of the piecedef.ini format")]
    Comment,
    /// No colon right after the letter.
    #[error("expected ':' right after the piece letter '{0}'")]
    MissingColon(char),
    /// No whitespace after `X:`.
    #[error("expected a space after '{0}:'")]
    MissingSpace(char),
    /// No steps.
    #[error("no steps given")]
    NoSteps,
    /// A step that is not `dx,dy[,specs]`.
    #[error("step {step:?}: expected 'dx,dy' optionally followed by ',specs'")]
    BadStep {
        /// The step as written.
        step: String,
    },
    /// A coordinate larger than 127 in size.
    #[error("step {step:?}: coordinate out of range (at most 127 in size)")]
    CoordinateOutOfRange {
        /// The step as written.
        step: String,
    },
    /// The step `0,0`.
    #[error("step {step:?}: the null step 0,0 goes nowhere")]
    NullStep {
        /// The step as written.
        step: String,
    },
    /// Specs written straight after `dx,dy` without the comma (`1,0s*`).
    #[error("step {step:?}: specs {specs:?} lack the comma after the coordinates (write \"{fixed}\")")]
    MissingComma {
        /// The step as written.
        step: String,
        /// The part after the coordinates.
        specs: String,
        /// The step with the comma inserted.
        fixed: String,
    },
    /// A comma after the coordinates with nothing behind it.
    #[error("step {step:?}: empty specs after the comma")]
    EmptySpecs {
        /// The step as written.
        step: String,
    },
    /// A character that is not a spec.
    #[error("step {step:?}: unknown spec {spec:?} (expected a range, 'c', 'n', 's', '*' or '+')")]
    UnknownSpec {
        /// The step as written.
        step: String,
        /// The unknown character.
        spec: char,
    },
    /// A spec given twice.
    #[error("step {step:?}: spec {spec:?} given twice")]
    RepeatedSpec {
        /// The step as written.
        step: String,
        /// The repeated character.
        spec: char,
    },
    /// Both `c` and `n`.
    #[error("step {step:?}: 'c' (capture only) and 'n' (non-capture only) exclude each other")]
    ConflictingModes {
        /// The step as written.
        step: String,
    },
    /// Both `*` and `+`.
    #[error("step {step:?}: both '*' and '+'")]
    ConflictingSymmetry {
        /// The step as written.
        step: String,
    },
    /// A range number after other specs.
    #[error("step {step:?}: the range number must come first after the comma")]
    RangeNotFirst {
        /// The step as written.
        step: String,
    },
    /// A range of 0 or above 255.
    #[error("step {step:?}: range must be between 1 and 255")]
    BadRange {
        /// The step as written.
        step: String,
    },
    /// The letter was defined on an earlier line.
    #[error("piece '{letter}' is already defined on line {first_line}")]
    DuplicateLetter {
        /// The letter.
        letter: char,
        /// The line of its first definition.
        first_line: usize,
    },
}

/// Which images of a step a spec asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symmetry {
    /// Just the step.
    One,
    /// `+`: the four mirror images.
    Four,
    /// `*`: all eight images.
    Eight,
}

/// The specs of one step.
struct Specs {
    range: u8,
    mode: Mode,
    symmetry: Symmetry,
}

impl Specs {
    /// A step without specs: one leap, moving or capturing.
    const LEAP: Specs = Specs { range: 1, mode: Mode::Both, symmetry: Symmetry::One };
}

/// The reader state: strict or lenient, and in lenient mode FairyGen's buffered symmetry.
struct Reader {
    lenient: bool,
    /// The symmetry of the last specs read (FairyGen's `rights` buffer), used by lenient spec-less steps.
    buffered: Symmetry,
}

impl Reader {
    fn new(lenient: bool) -> Reader {
        Reader { lenient, buffered: Symmetry::One }
    }

    /// One `X: steps` line.
    fn line(&mut self, line: &str) -> Result<PieceDef, PiecedefErrorKind> {
        let mut chars = line.chars();
        let letter = chars.next().ok_or(PiecedefErrorKind::EmptyLine)?;
        if letter == '#' || letter == ';' {
            return Err(PiecedefErrorKind::Comment);
        }
        if !letter.is_ascii_alphabetic() {
            return Err(PiecedefErrorKind::BadLetter(letter));
        }
        if chars.next() != Some(':') {
            return Err(PiecedefErrorKind::MissingColon(letter));
        }
        let rest = chars.as_str();
        if rest.trim().is_empty() {
            return Err(PiecedefErrorKind::NoSteps);
        }
        if !rest.starts_with([' ', '\t']) {
            return Err(PiecedefErrorKind::MissingSpace(letter));
        }
        Ok(PieceDef { letter, movement: self.moves(rest)? })
    }

    /// A whitespace-separated list of steps.
    fn moves(&mut self, text: &str) -> Result<Movement, PiecedefErrorKind> {
        let mut movement = Movement::default();
        let mut any = false;
        for token in text.split_ascii_whitespace() {
            any = true;
            let (dx, dy, specs, stop) = self.step(token)?;
            let images = match specs.symmetry {
                Symmetry::One => vec![(dx, dy)],
                Symmetry::Four => four_fold(dx, dy),
                Symmetry::Eight => eight_fold(dx, dy),
            };
            for (x, y) in images {
                movement.push(Atom { dx: x, dy: y, range: specs.range, mode: specs.mode, initial: false, lame: false });
            }
            if stop {
                break;
            }
        }
        if !any {
            return Err(PiecedefErrorKind::NoSteps);
        }
        Ok(movement)
    }

    /// One step: its coordinates, specs, and whether the rest of the line is to be ignored (lenient only).
    fn step(&mut self, token: &str) -> Result<(i8, i8, Specs, bool), PiecedefErrorKind> {
        let step = || token.to_string();
        let bad = || PiecedefErrorKind::BadStep { step: step() };
        let (dx_text, rest) = token.split_once(',').ok_or_else(bad)?;
        let dy_len = signed_prefix_len(rest);
        let (dy_text, after) = rest.split_at(dy_len);
        let dx = coordinate(dx_text, token)?;
        let dy = coordinate(dy_text, token)?;
        if dx == 0 && dy == 0 {
            return Err(PiecedefErrorKind::NullStep { step: step() });
        }
        if after.is_empty() {
            let specs = if self.lenient { Specs { symmetry: self.buffered, ..Specs::LEAP } } else { Specs::LEAP };
            return Ok((dx, dy, specs, false));
        }
        match after.strip_prefix(',') {
            Some(spec_text) => {
                let specs = parse_specs(spec_text, token)?;
                self.buffered = specs.symmetry;
                Ok((dx, dy, specs, false))
            }
            None if self.lenient => Ok((dx, dy, Specs { symmetry: self.buffered, ..Specs::LEAP }, true)),
            None => Err(PiecedefErrorKind::MissingComma {
                step: step(),
                specs: after.to_string(),
                fixed: format!("{dx_text},{dy_text},{after}"),
            }),
        }
    }
}

/// The length of an optional `-` followed by ASCII digits at the start of `s`.
fn signed_prefix_len(s: &str) -> usize {
    let sign = usize::from(s.starts_with('-'));
    sign + s[sign..].bytes().take_while(u8::is_ascii_digit).count()
}

/// A coordinate: `-`? digits, at most 127 in size.
fn coordinate(text: &str, token: &str) -> Result<i8, PiecedefErrorKind> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(PiecedefErrorKind::BadStep { step: token.to_string() });
    }
    let out_of_range = || PiecedefErrorKind::CoordinateOutOfRange { step: token.to_string() };
    let value: i32 = text.parse().map_err(|_| out_of_range())?;
    if !(-127..=127).contains(&value) {
        return Err(out_of_range());
    }
    i8::try_from(value).map_err(|_| out_of_range())
}

/// The specs behind the comma: `[range][c|n][s][*|+]`, letters in any order.
fn parse_specs(text: &str, token: &str) -> Result<Specs, PiecedefErrorKind> {
    let step = || token.to_string();
    if text.is_empty() {
        return Err(PiecedefErrorKind::EmptySpecs { step: step() });
    }
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let range = if digits > 0 {
        match text[..digits].parse::<u8>() {
            Ok(n) if n >= 1 => Some(n),
            _ => return Err(PiecedefErrorKind::BadRange { step: step() }),
        }
    } else {
        None
    };
    let mut seen: Vec<char> = Vec::new();
    for spec in text[digits..].chars() {
        match spec {
            'c' | 'n' | 's' | '*' | '+' => {
                if seen.contains(&spec) {
                    return Err(PiecedefErrorKind::RepeatedSpec { step: step(), spec });
                }
                seen.push(spec);
            }
            d if d.is_ascii_digit() => return Err(PiecedefErrorKind::RangeNotFirst { step: step() }),
            _ => return Err(PiecedefErrorKind::UnknownSpec { step: step(), spec }),
        }
    }
    let has = |c: char| seen.contains(&c);
    if has('c') && has('n') {
        return Err(PiecedefErrorKind::ConflictingModes { step: step() });
    }
    if has('*') && has('+') {
        return Err(PiecedefErrorKind::ConflictingSymmetry { step: step() });
    }
    let mode = if has('c') {
        Mode::Capture
    } else if has('n') {
        Mode::Move
    } else {
        Mode::Both
    };
    let symmetry = if has('*') {
        Symmetry::Eight
    } else if has('+') {
        Symmetry::Four
    } else {
        Symmetry::One
    };
    let range = match range {
        Some(n) => n,
        None if has('s') => 0,
        None => 1,
    };
    Ok(Specs { range, mode, symmetry })
}

/// Parses one `piecedef.ini` line, `X: dx,dy[,specs] ...`, strictly (see the [module documentation](self)).
///
/// # Errors
///
/// A [`PiecedefError`] on line 1 naming the fault.
///
/// # Examples
///
/// ```
/// use rules::movement::Movement;
/// use rules::piecedef::parse_piecedef_line;
///
/// let knight = parse_piecedef_line("N: 1,2,*")?;
/// assert_eq!(knight.letter, 'N');
/// assert_eq!(knight.movement, Movement::knight());
/// # Ok::<(), rules::piecedef::PiecedefError>(())
/// ```
pub fn parse_piecedef_line(line: &str) -> Result<PieceDef, PiecedefError> {
    Reader::new(false).line(line).map_err(|kind| PiecedefError { line: 1, kind })
}

/// Parses a piecedef step list without the `X:` prefix (`1,2,* 1,1,s*`), strictly, as variant files use it.
///
/// # Errors
///
/// A [`PiecedefError`] on line 1 naming the fault; an empty list is [`PiecedefErrorKind::NoSteps`].
///
/// # Examples
///
/// ```
/// use rules::piecedef::parse_piecedef_moves;
///
/// let short_rook = parse_piecedef_moves("1,0,3*")?;
/// assert_eq!(short_rook.atoms().len(), 4);
/// assert!(short_rook.atoms().iter().all(|a| a.range == 3));
/// # Ok::<(), rules::piecedef::PiecedefError>(())
/// ```
pub fn parse_piecedef_moves(s: &str) -> Result<Movement, PiecedefError> {
    Reader::new(false).moves(s).map_err(|kind| PiecedefError { line: 1, kind })
}

/// Parses a whole `piecedef.ini` strictly (FairyGen 2019 semantics, see the [module documentation](self)).
///
/// # Errors
///
/// The first fault, as a [`PiecedefError`] naming its 1-based line.
///
/// # Examples
///
/// ```
/// use rules::piecedef::{parse_piecedef, PiecedefErrorKind};
///
/// let defs = parse_piecedef("N: 1,2,*\nB: 1,1,s*\n")?;
/// assert_eq!(defs.len(), 2);
/// let err = parse_piecedef("N: 1,2,*\n\nZ: 1,1,s* 1,0s*\n").expect_err("no comma");
/// assert_eq!(err.line, 3);
/// assert!(matches!(err.kind, PiecedefErrorKind::MissingComma { .. }));
/// # Ok::<(), rules::piecedef::PiecedefError>(())
/// ```
pub fn parse_piecedef(text: &str) -> Result<Vec<PieceDef>, PiecedefError> {
    parse_file(text, false)
}

/// Parses a whole `piecedef.ini` as FairyGen reads it: spec-less steps take the buffered symmetry mark, and a
/// step with specs but no comma (`1,0s*`) is read as a spec-less step that ends the line (see the
/// [module documentation](self)). Everything else is as strict as [`parse_piecedef`].
///
/// # Errors
///
/// The first fault, as a [`PiecedefError`] naming its 1-based line.
///
/// # Examples
///
/// ```
/// use rules::piecedef::parse_piecedef_lenient;
///
/// let defs = parse_piecedef_lenient("Z: 1,1,s* 1,0s* 1,2,*")?;
/// // Bishop plus an 8-fold wazir; the knight steps behind the fault are not read.
/// assert_eq!(defs[0].movement.atoms().len(), 8);
/// # Ok::<(), rules::piecedef::PiecedefError>(())
/// ```
pub fn parse_piecedef_lenient(text: &str) -> Result<Vec<PieceDef>, PiecedefError> {
    parse_file(text, true)
}

fn parse_file(text: &str, lenient: bool) -> Result<Vec<PieceDef>, PiecedefError> {
    let mut reader = Reader::new(lenient);
    let mut defs: Vec<PieceDef> = Vec::new();
    let mut first_lines: HashMap<char, usize> = HashMap::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let def = reader.line(raw).map_err(|kind| PiecedefError { line, kind })?;
        if let Some(&first_line) = first_lines.get(&def.letter) {
            return Err(PiecedefError {
                line,
                kind: PiecedefErrorKind::DuplicateLetter { letter: def.letter, first_line },
            });
        }
        first_lines.insert(def.letter, line);
        defs.push(def);
    }
    Ok(defs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `piecedef.ini` shipped with FairyGen's predecessor EGTgen 1.2 (H. G. Muller, 2011).
    /// Source: ceebo/fairygen, piecedef.ini (copy in /work/shared/data/fairygen-piecedef.ini).
    const SHIPPED: &str = "N: 1,2,*
B: 1,1,s*
R: 1,0,s*
Q: 1,0,s* 1,1,s*
K: 1,0,* 1,1,*
M: 1,0,* 1,1,*
A: 1,2,* 1,1,s*
C: 1,2,* 1,0,s*
F: 1,1,*
W: 1,0,*
E: 2,2,*
H: 1,2,s*
I: 1,1,s* 1,0,*
J: 1,0,s* 1,1,*
G: 1,1,s* 2,0,*
D: 1,1,* 1,0,* 1,2,*
O: 1,1,* 2,2,* 2,0,*
U: 1,2,*
V: 1,3,* 2,3,*
S: 1,3,* 2,3,*
L: 1,1,* 2,2,* 0,1,n+
Z: 1,1,s* 1,0s* 1,2,*
";

    type Key = (i8, i8, u8, u8, bool, bool);

    fn sorted(m: &Movement) -> Vec<Key> {
        let mut v: Vec<Key> = m
            .atoms()
            .iter()
            .map(|a| {
                let mode = match a.mode {
                    Mode::Move => 0,
                    Mode::Capture => 1,
                    Mode::Both => 2,
                };
                (a.dx, a.dy, a.range, mode, a.initial, a.lame)
            })
            .collect();
        v.sort_unstable();
        v
    }

    fn same(a: &Movement, b: &Movement) -> bool {
        sorted(a) == sorted(b)
    }

    fn union(parts: &[Movement]) -> Movement {
        let mut m = Movement::default();
        for p in parts {
            m.extend(p);
        }
        m
    }

    fn leaper(x: i8, y: i8) -> Movement {
        Movement::new(eight_fold(x, y).into_iter().map(|(dx, dy)| Atom::leap(dx, dy)))
    }

    fn moves(s: &str) -> Movement {
        match parse_piecedef_moves(s) {
            Ok(m) => m,
            Err(e) => panic!("{s:?} should parse: {e}"),
        }
    }

    fn line_fault(line: &str) -> PiecedefErrorKind {
        match parse_piecedef_line(line) {
            Ok(d) => panic!("{line:?} should fail, got {}", d.movement),
            Err(e) => {
                assert_eq!(e.line, 1);
                e.kind
            }
        }
    }

    fn step_fault(s: &str) -> PiecedefErrorKind {
        match parse_piecedef_moves(s) {
            Ok(m) => panic!("{s:?} should fail, got {m}"),
            Err(e) => e.kind,
        }
    }

    /// The shipped file without its faulty last line.
    fn shipped_without_z() -> Vec<PieceDef> {
        let text: String = SHIPPED.lines().filter(|l| !l.starts_with("Z:")).map(|l| format!("{l}\n")).collect();
        match parse_piecedef(&text) {
            Ok(defs) => defs,
            Err(e) => panic!("{e}"),
        }
    }

    fn shipped(letter: char) -> Movement {
        match shipped_without_z().into_iter().find(|d| d.letter == letter) {
            Some(d) => d.movement,
            None => panic!("no piece {letter}"),
        }
    }

    // ---- the shipped file, line by line ----

    #[test]
    fn shipped_orthodox_pieces() {
        assert!(same(&shipped('N'), &Movement::knight()));
        assert!(same(&shipped('B'), &Movement::bishop()));
        assert!(same(&shipped('R'), &Movement::rook()));
        assert!(same(&shipped('Q'), &Movement::queen()));
        assert!(same(&shipped('K'), &Movement::king()));
        assert!(same(&shipped('M'), &Movement::king()));
    }

    #[test]
    fn shipped_compounds() {
        assert!(same(&shipped('A'), &union(&[Movement::knight(), Movement::bishop()])));
        assert!(same(&shipped('C'), &union(&[Movement::knight(), Movement::rook()])));
        assert!(same(&shipped('I'), &union(&[Movement::bishop(), leaper(1, 0)])));
        assert!(same(&shipped('J'), &union(&[Movement::rook(), leaper(1, 1)])));
        assert!(same(&shipped('G'), &union(&[Movement::bishop(), leaper(2, 0)])));
        assert!(same(&shipped('D'), &union(&[Movement::king(), Movement::knight()])));
        assert!(same(&shipped('O'), &union(&[leaper(1, 1), leaper(2, 2), leaper(2, 0)])));
        assert!(same(&shipped('V'), &union(&[leaper(1, 3), leaper(2, 3)])));
        assert!(same(&shipped('S'), &shipped('V')));
    }

    #[test]
    fn shipped_simple_leapers_and_riders() {
        assert!(same(&shipped('F'), &leaper(1, 1)));
        assert!(same(&shipped('W'), &leaper(1, 0)));
        assert!(same(&shipped('E'), &leaper(2, 2)));
        assert_eq!(shipped('E').atoms().len(), 4);
        assert!(same(&shipped('U'), &Movement::knight()));
        let nightrider = Movement::new(eight_fold(1, 2).into_iter().map(|(x, y)| Atom::ride(x, y)));
        assert!(same(&shipped('H'), &nightrider));
    }

    #[test]
    fn shipped_lieutenant_line() {
        // `0,1,n+` read as FairyGen 2019's dX,dY: the non-capturing steps (0,+1) and (0,-1).
        let sideless = union(&[
            leaper(1, 1),
            leaper(2, 2),
            Movement::new([Atom::leap(0, 1).with_mode(Mode::Move), Atom::leap(0, -1).with_mode(Mode::Move)]),
        ]);
        assert!(same(&shipped('L'), &sideless));
        assert!(!shipped('L').is_eight_fold_symmetric());
        assert!(shipped('L').is_left_right_symmetric());
    }

    #[test]
    fn shipped_file_strict_refuses_line_22() {
        let err = parse_piecedef(SHIPPED).expect_err("line 22 lacks a comma");
        assert_eq!(err.line, 22);
        assert_eq!(
            err.kind,
            PiecedefErrorKind::MissingComma { step: "1,0s*".into(), specs: "s*".into(), fixed: "1,0,s*".into() }
        );
        assert_eq!(
            err.to_string(),
            "line 22: step \"1,0s*\": specs \"s*\" lack the comma after the coordinates (write \"1,0,s*\")"
        );
    }

    #[test]
    fn shipped_file_every_other_line_parses() {
        let defs = shipped_without_z();
        let letters: String = defs.iter().map(|d| d.letter).collect();
        assert_eq!(letters, "NBRQKMACFWEHIJGDOUVSL");
        for (index, line) in SHIPPED.lines().enumerate().filter(|(_, l)| !l.starts_with("Z:")) {
            let def = parse_piecedef_line(line).unwrap_or_else(|e| panic!("line {}: {e}", index + 1));
            assert_eq!(def, defs[index]);
        }
    }

    #[test]
    fn shipped_file_lenient_reads_z_as_fairygen() {
        let defs = parse_piecedef_lenient(SHIPPED).expect("lenient reading");
        assert_eq!(defs.len(), 22);
        assert_eq!(defs[..21], shipped_without_z()[..]);
        let z = &defs[21];
        assert_eq!(z.letter, 'Z');
        // `1,0` takes the buffered `*` of `1,1,s*` but not its `s`; `1,2,*` is never read.
        assert!(same(&z.movement, &union(&[Movement::bishop(), leaper(1, 0)])));
    }

    // ---- specs ----

    #[test]
    fn finite_range() {
        let short_rook = moves("1,0,3*");
        let expected = Movement::new(eight_fold(1, 0).into_iter().map(|(x, y)| Atom { range: 3, ..Atom::ride(x, y) }));
        assert!(same(&short_rook, &expected));
        assert!(same(&moves("1,0,3s*"), &expected));
        assert!(same(&moves("1,0,3*s"), &expected));
        assert!(same(&moves("1,0,1*"), &leaper(1, 0)));
        assert!(moves("1,1,255*").atoms().iter().all(|a| a.range == 255));
    }

    #[test]
    fn modes() {
        assert!(moves("1,1,c*").atoms().iter().all(|a| a.mode == Mode::Capture));
        assert!(moves("1,1,n*").atoms().iter().all(|a| a.mode == Mode::Move));
        assert!(moves("1,1,*").atoms().iter().all(|a| a.mode == Mode::Both));
        // EGTgen's omni-directional pawn.
        let x = moves("1,1,c* 1,0,n*");
        assert_eq!(x.atoms().len(), 8);
        assert!(x.atoms().iter().all(|a| (a.mode == Mode::Capture) == a.is_diagonal()));
        // A capture-only and a move-only copy of one step merge.
        assert!(same(&moves("1,0,c* 1,0,n*"), &leaper(1, 0)));
    }

    #[test]
    fn symmetry_marks() {
        assert_eq!(moves("1,2,*").atoms().len(), 8);
        let four = moves("1,2,+");
        assert_eq!(four.atoms().len(), 4);
        assert!(same(&four, &Movement::new(four_fold(1, 2).into_iter().map(|(x, y)| Atom::leap(x, y)))));
        assert_eq!(moves("1,0,+").atoms().len(), 2);
        assert_eq!(moves("1,1,+").atoms().len(), 4);
        assert!(same(&moves("1,0,+ 0,1,+"), &moves("1,0,*")));
        assert_eq!(moves("1,2,s").atoms(), &[Atom::ride(1, 2)]);
        assert_eq!(moves("-1,2,c").atoms(), &[Atom::leap(-1, 2).with_mode(Mode::Capture)]);
    }

    #[test]
    fn steps_without_specs_are_single_leaps() {
        // The EGTgen manual's long form of the knight; strict reading has no inheritance.
        let knight = parse_piecedef_line("N: 1,2 1,-2 2,1 2,-1 -2,1 -2,-1 -1,2 -1,-2").expect("long knight");
        assert!(same(&knight.movement, &Movement::knight()));
        assert_eq!(moves("1,0").atoms(), &[Atom::leap(1, 0)]);
        assert_eq!(moves("1,1,s* 1,0").atoms().len(), 5);
    }

    #[test]
    fn lenient_spec_less_steps_inherit_the_symmetry_only() {
        let strict = parse_piecedef("A: 1,1,s* 1,0\n").expect("strict");
        assert_eq!(strict[0].movement.atoms().len(), 5);
        let lenient = parse_piecedef_lenient("A: 1,1,s* 1,0\n").expect("lenient");
        assert!(same(&lenient[0].movement, &union(&[Movement::bishop(), leaper(1, 0)])));
        // The buffer outlives the line, as FairyGen's does.
        let lenient = parse_piecedef_lenient("A: 1,1,c+\nB: 2,1\n").expect("lenient");
        assert!(same(&lenient[1].movement, &Movement::new(four_fold(2, 1).into_iter().map(|(x, y)| Atom::leap(x, y)))));
        // Before any specs there is nothing to inherit.
        let lenient = parse_piecedef_lenient("B: 2,1\n").expect("lenient");
        assert_eq!(lenient[0].movement.atoms(), &[Atom::leap(2, 1)]);
    }

    #[test]
    fn lenient_is_otherwise_strict() {
        let err = parse_piecedef_lenient("N: 1,2,*\nN: 1,2,*\n").expect_err("duplicate");
        assert_eq!(err.line, 2);
        let err = parse_piecedef_lenient("N: 1,2,x\n").expect_err("unknown spec");
        assert_eq!(err.kind, PiecedefErrorKind::UnknownSpec { step: "1,2,x".into(), spec: 'x' });
        let err = parse_piecedef_lenient("# comment\n").expect_err("comment");
        assert_eq!(err.kind, PiecedefErrorKind::Comment);
    }

    // ---- files ----

    #[test]
    fn blank_lines_and_line_numbers() {
        let defs = parse_piecedef("\nN: 1,2,*\n   \n\t\nB: 1,1,s*\n").expect("blank lines");
        assert_eq!(defs.len(), 2);
        let err = parse_piecedef("\nN: 1,2,*\n\nX: 1,1,q*\n").expect_err("bad spec");
        assert_eq!(err.line, 4);
        assert_eq!(
            err.to_string(),
            "line 4: step \"1,1,q*\": unknown spec 'q' (expected a range, 'c', 'n', 's', '*' or '+')"
        );
        assert_eq!(parse_piecedef("").expect("empty file"), vec![]);
    }

    #[test]
    fn crlf_and_trailing_whitespace() {
        let defs = parse_piecedef("N: 1,2,*  \r\nB: 1,1,s*\r\n").expect("crlf");
        assert!(same(&defs[0].movement, &Movement::knight()));
        assert!(same(&defs[1].movement, &Movement::bishop()));
        assert!(same(&moves(" 1,2,*\t1,1,s* "), &union(&[Movement::knight(), Movement::bishop()])));
    }

    #[test]
    fn duplicate_letters() {
        let err = parse_piecedef("N: 1,2,*\nB: 1,1,s*\nN: 1,2,s*\n").expect_err("duplicate");
        assert_eq!(
            err,
            PiecedefError { line: 3, kind: PiecedefErrorKind::DuplicateLetter { letter: 'N', first_line: 1 } }
        );
        assert_eq!(err.to_string(), "line 3: piece 'N' is already defined on line 1");
        // Letters are case-sensitive.
        assert_eq!(parse_piecedef("N: 1,2,*\nn: 1,2,*\n").expect("case").len(), 2);
    }

    #[test]
    fn comments_are_refused() {
        let err = parse_piecedef("N: 1,2,*\n# the bishop\nB: 1,1,s*\n").expect_err("comment");
        assert_eq!(err, PiecedefError { line: 2, kind: PiecedefErrorKind::Comment });
        assert_eq!(line_fault("; note"), PiecedefErrorKind::Comment);
    }

    // ---- line and step faults ----

    #[test]
    fn line_faults() {
        assert_eq!(line_fault(""), PiecedefErrorKind::EmptyLine);
        assert_eq!(line_fault(" N: 1,2,*"), PiecedefErrorKind::BadLetter(' '));
        assert_eq!(line_fault("1: 1,2,*"), PiecedefErrorKind::BadLetter('1'));
        assert_eq!(line_fault("NN: 1,2,*"), PiecedefErrorKind::MissingColon('N'));
        assert_eq!(line_fault("N 1,2,*"), PiecedefErrorKind::MissingColon('N'));
        assert_eq!(line_fault("N:1,2,*"), PiecedefErrorKind::MissingSpace('N'));
        assert_eq!(line_fault("N:"), PiecedefErrorKind::NoSteps);
        assert_eq!(line_fault("N:   "), PiecedefErrorKind::NoSteps);
        assert_eq!(step_fault(""), PiecedefErrorKind::NoSteps);
        assert_eq!(step_fault("  "), PiecedefErrorKind::NoSteps);
    }

    #[test]
    fn coordinate_faults() {
        for s in ["1", "a,b", "1,", ",1", "1,x", "1,-", "+1,2", "1,+2", "1.5,2", "--1,2", "1;2"] {
            assert_eq!(step_fault(s), PiecedefErrorKind::BadStep { step: s.into() }, "{s}");
        }
        assert_eq!(step_fault("1,2,3,4"), PiecedefErrorKind::UnknownSpec { step: "1,2,3,4".into(), spec: ',' });
        assert_eq!(step_fault("0,0,*"), PiecedefErrorKind::NullStep { step: "0,0,*".into() });
        assert_eq!(step_fault("128,1,*"), PiecedefErrorKind::CoordinateOutOfRange { step: "128,1,*".into() });
        assert_eq!(step_fault("1,-128"), PiecedefErrorKind::CoordinateOutOfRange { step: "1,-128".into() });
        assert_eq!(
            step_fault("1,99999999999"),
            PiecedefErrorKind::CoordinateOutOfRange { step: "1,99999999999".into() }
        );
        assert!(parse_piecedef_moves("127,-127").is_ok());
    }

    #[test]
    fn missing_comma() {
        assert_eq!(
            step_fault("1,0s*"),
            PiecedefErrorKind::MissingComma { step: "1,0s*".into(), specs: "s*".into(), fixed: "1,0,s*".into() }
        );
        assert!(matches!(step_fault("1,2*"), PiecedefErrorKind::MissingComma { .. }));
        assert!(matches!(step_fault("-1,-2c"), PiecedefErrorKind::MissingComma { .. }));
    }

    #[test]
    fn spec_faults() {
        let step = |s: &str| s.to_string();
        assert_eq!(step_fault("1,2,"), PiecedefErrorKind::EmptySpecs { step: step("1,2,") });
        assert_eq!(step_fault("1,2,x*"), PiecedefErrorKind::UnknownSpec { step: step("1,2,x*"), spec: 'x' });
        assert_eq!(step_fault("1,2,S*"), PiecedefErrorKind::UnknownSpec { step: step("1,2,S*"), spec: 'S' });
        assert_eq!(step_fault("1,0,ss*"), PiecedefErrorKind::RepeatedSpec { step: step("1,0,ss*"), spec: 's' });
        assert_eq!(step_fault("1,0,**"), PiecedefErrorKind::RepeatedSpec { step: step("1,0,**"), spec: '*' });
        assert_eq!(step_fault("1,0,cn*"), PiecedefErrorKind::ConflictingModes { step: step("1,0,cn*") });
        assert_eq!(step_fault("1,0,*+"), PiecedefErrorKind::ConflictingSymmetry { step: step("1,0,*+") });
        assert_eq!(step_fault("1,0,s3*"), PiecedefErrorKind::RangeNotFirst { step: step("1,0,s3*") });
        assert_eq!(step_fault("1,0,0*"), PiecedefErrorKind::BadRange { step: step("1,0,0*") });
        assert_eq!(step_fault("1,0,256*"), PiecedefErrorKind::BadRange { step: step("1,0,256*") });
        assert_eq!(step_fault("1,0,*3"), PiecedefErrorKind::RangeNotFirst { step: step("1,0,*3") });
    }

    #[test]
    fn error_display() {
        let err = PiecedefError { line: 7, kind: PiecedefErrorKind::NoSteps };
        assert_eq!(err.to_string(), "line 7: no steps given");
        let err = parse_piecedef("N: 1,2,*\nB 1,1,s*\n").expect_err("no colon");
        assert_eq!(err.to_string(), "line 2: expected ':' right after the piece letter 'B'");
    }
}
