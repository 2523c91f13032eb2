//! Betza notation in the Fairy-Stockfish / XBoard dialect: text such as `fmWfcF` or `QN` parsed into a [`Movement`].
//! Owns the atom and shorthand letters, the modifier grammar, the direction tables and the dialect decisions.
//!
//! # Dialect
//!
//! The reference is Fairy-Stockfish's `from_betza` (`piece.cpp`, the subset its `variants.ini` documents for
//! `customPiece`), with H. G. Muller's XBoard Betza description where the two agree. Where Fairy-Stockfish
//! silently ignores or misreads something, this parser refuses it with a [`BetzaError`] instead.
//!
//! * **Atoms** (leapers, `(long, short)` step): `W` (1,0), `F` (1,1), `D` (2,0), `N` (2,1), `A` (2,2),
//!   `H` (3,0), `C` and its older name `L` (3,1), `Z` and its older name `J` (3,2), `G` (3,3).
//!   Shorthands: `K` = `WF` (leaper), `R` = `W0`, `B` = `F0`, `Q` = `RB` (riders). No other capitals: in
//!   Fairy-Stockfish `J` is the zebra and `E`, `S`, `M`, `O`, `U` are unknown, so they are refused here.
//! * **Range**: a number behind the atom is the maximum number of steps (`W4`, `R4`, `N2`); `0` means
//!   unlimited (`W0` = `R`), `1` is a plain leap. Several digits are read (Fairy-Stockfish reads one), up to 255.
//!   A leading zero before more digits (`W03`, XBetza's "exactly 3") is refused: the model has no exact ranges.
//!   Doubling a leaper letter makes an unlimited rider (`WW` = `R`, `NN` = nightrider, `KK` = `Q`); doubling a
//!   letter that already rides (`RR`, `BB`, `QQ`) is refused, as is a number after a doubled letter (`NN2`).
//! * **Modality**: `m` moves only, `c` captures only, both or neither mean both. `e` (en passant) is accepted
//!   only together with `c` and adds nothing: en passant is a variant rule in fairylab, not part of a
//!   [`Movement`] (so Fairy-Stockfish's pawn `fmWfceF` parses to the pawn). `e` without `c` is refused.
//! * **`i`** marks the atoms as initial moves ([`Atom::initial`]), e.g. the double step `ifmnD`.
//! * **`n`** (lame, [`Atom::lame`]) is accepted on the leapers Fairy-Stockfish documents it for: `D`, `N`, `A`
//!   and `Z`/`J` (`nN` is the xiangqi horse, `nZ` the janggi elephant). It is refused on riders and on
//!   `W`, `F`, `K` (nothing to step over) and on `H`, `C`/`L`, `G`.
//! * **Directions** `f b l r v s h`, relative to the side to move; the model stores White's view, so forward is
//!   `+dy` and right is `+dx`. Letters pair up as in Fairy-Stockfish: a letter is joined with the next one when
//!   it is the same letter or one is vertical (`f b v h`) and the other horizontal (`l r s h`); a lone letter
//!   means the doubled one (`f` = `ff`). The tokens mean, for an atom with steps (long `a`, short `b`):
//!   - `ff`/`f`: the two steps `(±b, a)` (for `N` the narrow forward pair: `fN` is the shogi knight);
//!     `bb`/`b`, `ll`/`l`, `rr`/`r` likewise; `vv`/`v` = `f` + `b`, `ss`/`s` = `l` + `r`;
//!   - `fs`: `(±a, b)`, the wide forward pair (for `F`: the same as `f`); `bs` likewise backwards;
//!   - `fr`, `fl`, `br`, `bl`: the single step `(±a, ±b)` (for `N`: one forward, two sideways);
//!     `rf`, `lf`, `rb`, `lb`: the single step `(±b, ±a)` (for `N`: two forward, one sideways);
//!     `rv`/`lv`: both steps `(±b, ±a)` on that side;
//!   - `fh`, `bh`, `lh`, `rh`: the four steps on that side of the board (half); `hr` and `hl` the two chiral
//!     four-step sets (`hr` contains `(b, a)`, `hl` contains `(a, b)`).
//!
//!   On the orthogonal 4-movers (`W`, `D`, `H`, `R` and the orthogonal part of `K`, `Q`) every token stands for
//!   the union of its letters (`fsW` = forward or sideways, the xiangqi soldier; `flW` = `fW` + `lW`), as
//!   Fairy-Stockfish does for `W`-like atoms; `h` tokens are refused there. On diagonal and oblique atoms only
//!   the tokens listed above exist; any other pair (`sf`, `vs`, `hf`, a lone `h`, ...) is refused.
//!   Shorthands are expanded before directions apply, so `fK` = `fWfF` and `fsK` = `fsWfsF` (Fairy-Stockfish
//!   does not split tokens for two-atom shorthands and would give `fsK` no forward `W` step, and XBoard reads `fsK`
//!   as the forward diagonals alone: this is fairylab's reading, the one Baby Chess's pieces need).
//! * **Unsupported**: hoppers `p`/`g` (the xiangqi cannon `mRcpR`), multi-leg `a` and the other XBetza
//!   modifiers (`j o q u d k x y z t w`), brackets and parentheses: refused, as the model cannot express them.
//! * **Strictness**: the empty string (an immobile piece in Fairy-Stockfish) is refused, as are whitespace,
//!   unknown letters and modifiers with no atom after them. Faults carry the 1-based character position.

use crate::movement::{eight_fold, Atom, Mode, Movement};
use thiserror::Error;

/// A Betza string that could not be parsed: where and what.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("Betza notation, position {position}: {kind}")]
pub struct BetzaError {
    /// 1-based character position of the fault (0 when the fault is the string as a whole).
    pub position: usize,
    /// What is wrong.
    pub kind: BetzaErrorKind,
}

/// What is wrong with a Betza string.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum BetzaErrorKind {
    /// The string is empty.
    #[error("empty string (an immobile piece has no Betza notation here)")]
    Empty,
    /// A capital that is not an atom or shorthand of the dialect.
    #[error("unknown atom '{0}'")]
    UnknownAtom(char),
    /// An XBetza modifier the movement model cannot express (hoppers, multi-leg moves, ...).
    #[error("unsupported modifier '{0}'")]
    UnsupportedModifier(char),
    /// A character that has no meaning here (whitespace, punctuation, unknown lower-case letter).
    #[error("unexpected character {0:?}")]
    UnexpectedChar(char),
    /// A digit that does not follow an atom.
    #[error("digit '{0}' does not follow an atom")]
    UnexpectedDigit(char),
    /// Modifiers at the end of the string with no atom to apply to.
    #[error("modifiers \"{0}\" are not followed by an atom")]
    DanglingModifiers(String),
    /// A range number beyond 255.
    #[error("range {0} is too large (at most 255)")]
    RangeTooLarge(String),
    /// A range written with a leading zero (XBetza's exact range), which the model cannot express.
    #[error("range \"{0}\" with a leading zero (an exact range) is not supported")]
    ExactRange(String),
    /// A rider letter doubled (`RR`): it rides already.
    #[error("'{0}' is already a rider and cannot be doubled")]
    DoubledRider(char),
    /// A direction token that means nothing for the atom it precedes.
    #[error("direction \"{direction}\" is not defined for atom '{atom}'")]
    InvalidDirection {
        /// The token as written (one or two letters).
        direction: String,
        /// The atom letter.
        atom: char,
    },
    /// `n` (lame) on a rider.
    #[error("lame modifier 'n' on a rider ('{0}' with a range)")]
    LameRider(char),
    /// `n` (lame) on an atom for which the dialect defines no lame leap.
    #[error("lame modifier 'n' is only defined for D, N, A and Z/J, not '{0}'")]
    LameNotApplicable(char),
    /// `e` (en passant) without `c`.
    #[error("'e' (en passant) without 'c': en passant is a variant rule, only \"ce\" is accepted")]
    EnPassantWithoutCapture,
}

/// An atom letter: its steps as `(long, short)` pairs and whether it rides by default.
struct AtomLetter {
    steps: &'static [(i8, i8)],
    rider: bool,
}

fn atom_letter(c: char) -> Option<AtomLetter> {
    let (steps, rider): (&'static [(i8, i8)], bool) = match c {
        'W' => (&[(1, 0)], false),
        'F' => (&[(1, 1)], false),
        'D' => (&[(2, 0)], false),
        'N' => (&[(2, 1)], false),
        'A' => (&[(2, 2)], false),
        'H' => (&[(3, 0)], false),
        'C' | 'L' => (&[(3, 1)], false),
        'Z' | 'J' => (&[(3, 2)], false),
        'G' => (&[(3, 3)], false),
        'K' => (&[(1, 0), (1, 1)], false),
        'R' => (&[(1, 0)], true),
        'B' => (&[(1, 1)], true),
        'Q' => (&[(1, 0), (1, 1)], true),
        _ => return None,
    };
    Some(AtomLetter { steps, rider })
}

/// XBetza modifiers outside the supported subset.
const UNSUPPORTED_MODIFIERS: &str = "pgajoqudkxyztw";
const VERTICALS: &str = "fbvh";
const HORIZONTALS: &str = "rlsh";

/// The eight images of a step `(long a, short b)` as `(dx, dy)` for White, each with the direction tokens
/// selecting it (Fairy-Stockfish's table in `from_betza`).
fn images(a: i8, b: i8) -> [((i8, i8), [&'static str; 7]); 8] {
    [
        ((b, a), ["ff", "vv", "rf", "rv", "fh", "rh", "hr"]),
        ((-b, -a), ["bb", "vv", "lb", "lv", "bh", "lh", "hr"]),
        ((a, -b), ["rr", "ss", "br", "bs", "bh", "rh", "hr"]),
        ((-a, b), ["ll", "ss", "fl", "fs", "fh", "lh", "hr"]),
        ((a, b), ["rr", "ss", "fr", "fs", "fh", "rh", "hl"]),
        ((-a, -b), ["ll", "ss", "bl", "bs", "bh", "lh", "hl"]),
        ((b, -a), ["bb", "vv", "rb", "rv", "bh", "rh", "hl"]),
        ((-b, a), ["ff", "vv", "lf", "lv", "fh", "lh", "hl"]),
    ]
}

/// Whether a token is one of the 24 direction tokens of the table in [`images`].
fn is_known_token(token: &str) -> bool {
    images(2, 1).iter().any(|(_, tags)| tags.contains(&token))
}

/// A direction token as written, at its position.
struct Direction {
    /// The token as written: one or two letters.
    written: String,
    /// 1-based position of its first letter.
    position: usize,
}

impl Direction {
    /// The canonical two-letter form (`f` becomes `ff`).
    fn canonical(&self) -> String {
        if self.written.len() == 1 {
            self.written.repeat(2)
        } else {
            self.written.clone()
        }
    }
}

/// The modifiers read since the last atom.
#[derive(Default)]
struct Modifiers {
    /// Position of the first modifier, if any.
    start: Option<usize>,
    quiet: bool,
    capture: bool,
    en_passant: Option<usize>,
    initial: bool,
    lame: Option<usize>,
    directions: Vec<Direction>,
}

impl Modifiers {
    fn note(&mut self, position: usize) {
        self.start.get_or_insert(position);
    }

    fn mode(&self) -> Mode {
        match (self.quiet, self.capture) {
            (true, false) => Mode::Move,
            (false, true) => Mode::Capture,
            _ => Mode::Both,
        }
    }
}

/// The steps `(dx, dy)` of one atom component `(a, b)` selected by the direction tokens.
fn select(a: i8, b: i8, atom: char, directions: &[Direction]) -> Result<Vec<(i8, i8)>, BetzaError> {
    // Emitted in `eight_fold` order, so that e.g. `N` equals `Movement::knight()` exactly.
    let order = if b == 0 { eight_fold(a, b) } else { eight_fold(b, a) };
    if directions.is_empty() {
        return Ok(order);
    }
    let mut tags: Vec<String> = Vec::new();
    for d in directions {
        let invalid = || BetzaError {
            position: d.position,
            kind: BetzaErrorKind::InvalidDirection { direction: d.written.clone(), atom },
        };
        if b == 0 {
            // Orthogonal 4-mover: a token is the union of its letters.
            for letter in d.written.chars() {
                if letter == 'h' {
                    return Err(invalid());
                }
                tags.push(letter.to_string().repeat(2));
            }
        } else {
            let token = d.canonical();
            if !is_known_token(&token) {
                return Err(invalid());
            }
            tags.push(token);
        }
    }
    let chosen: Vec<(i8, i8)> = images(a, b)
        .iter()
        .filter(|(_, names)| names.iter().any(|n| tags.iter().any(|t| t == n)))
        .map(|(step, _)| *step)
        .collect();
    Ok(order.into_iter().filter(|step| chosen.contains(step)).collect())
}

/// Parses Betza notation (Fairy-Stockfish / XBoard dialect, see the [module documentation](self) for the
/// dialect decisions) into a [`Movement`] of concrete atoms, one per direction, in White's view.
///
/// The input is taken as is: surrounding whitespace is an error, trim it first.
///
/// # Errors
///
/// A [`BetzaError`] with the 1-based position of the fault and its [`BetzaErrorKind`]: empty input,
/// unknown letters, unsupported modifiers, dangling modifiers, nonsensical ranges or directions.
///
/// # Examples
///
/// ```
/// use rules::betza::parse_betza;
/// use rules::movement::{Mode, Movement};
///
/// let pawn = parse_betza("fmWfcF")?;
/// assert_eq!(pawn.atoms().len(), 3);
/// assert!(pawn.atoms().iter().any(|a| (a.dx, a.dy, a.mode) == (0, 1, Mode::Move)));
/// assert_eq!(parse_betza("N")?, Movement::knight());
/// assert!(parse_betza("fmWx").is_err());
/// # Ok::<(), rules::betza::BetzaError>(())
/// ```
pub fn parse_betza(text: &str) -> Result<Movement, BetzaError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Err(BetzaError { position: 0, kind: BetzaErrorKind::Empty });
    }
    let err = |position: usize, kind: BetzaErrorKind| BetzaError { position, kind };
    let mut movement = Movement::default();
    let mut mods = Modifiers::default();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let position = i + 1;
        match c {
            'm' | 'c' | 'e' | 'i' | 'n' => {
                mods.note(position);
                match c {
                    'm' => mods.quiet = true,
                    'c' => mods.capture = true,
                    'e' => mods.en_passant = Some(position),
                    'i' => mods.initial = true,
                    _ => mods.lame = Some(position),
                }
            }
            'f' | 'b' | 'l' | 'r' | 'v' | 's' | 'h' => {
                mods.note(position);
                let pairs_with = |c2: char| {
                    c2 == c
                        || (VERTICALS.contains(c) && HORIZONTALS.contains(c2))
                        || (HORIZONTALS.contains(c) && VERTICALS.contains(c2))
                };
                let mut written = c.to_string();
                if let Some(&c2) = chars.get(i + 1) {
                    if pairs_with(c2) {
                        written.push(c2);
                        i += 1;
                    }
                }
                mods.directions.push(Direction { written, position });
            }
            c if UNSUPPORTED_MODIFIERS.contains(c) => {
                return Err(err(position, BetzaErrorKind::UnsupportedModifier(c)));
            }
            c if c.is_ascii_uppercase() => {
                let letter = atom_letter(c).ok_or_else(|| err(position, BetzaErrorKind::UnknownAtom(c)))?;
                // Step 1. The range: a number, a doubled letter, or the letter's default.
                let mut next = i + 1;
                let range: u8 = if chars.get(next).is_some_and(char::is_ascii_digit) {
                    let digits: String = chars[next..].iter().take_while(|d| d.is_ascii_digit()).collect();
                    next += digits.len();
                    if digits.len() > 1 && digits.starts_with('0') {
                        return Err(err(i + 2, BetzaErrorKind::ExactRange(digits)));
                    }
                    match digits.parse::<u8>() {
                        Ok(n) => n,
                        Err(_) => return Err(err(i + 2, BetzaErrorKind::RangeTooLarge(digits))),
                    }
                } else if chars.get(next) == Some(&c) {
                    if letter.rider {
                        return Err(err(i + 2, BetzaErrorKind::DoubledRider(c)));
                    }
                    next += 1;
                    0
                } else if letter.rider {
                    0
                } else {
                    1
                };
                // Step 2. Modifier checks that depend on the atom.
                if let Some(p) = mods.lame {
                    if range != 1 {
                        return Err(err(p, BetzaErrorKind::LameRider(c)));
                    }
                    if !matches!(c, 'D' | 'N' | 'A' | 'Z' | 'J') {
                        return Err(err(p, BetzaErrorKind::LameNotApplicable(c)));
                    }
                }
                if let Some(p) = mods.en_passant {
                    if !mods.capture {
                        return Err(err(p, BetzaErrorKind::EnPassantWithoutCapture));
                    }
                }
                // Step 3. One concrete atom per selected direction of every component.
                let mode = mods.mode();
                for &(a, b) in letter.steps {
                    for (dx, dy) in select(a, b, c, &mods.directions)? {
                        movement.push(Atom { dx, dy, range, mode, initial: mods.initial, lame: mods.lame.is_some() });
                    }
                }
                mods = Modifiers::default();
                i = next;
                continue;
            }
            c if c.is_ascii_digit() => return Err(err(position, BetzaErrorKind::UnexpectedDigit(c))),
            c => return Err(err(position, BetzaErrorKind::UnexpectedChar(c))),
        }
        i += 1;
    }
    if let Some(start) = mods.start {
        let dangling: String = chars[start - 1..].iter().collect();
        return Err(err(start, BetzaErrorKind::DanglingModifiers(dangling)));
    }
    Ok(movement)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movement::four_fold;

    type Key = (i8, i8, u8, u8, bool, bool);

    fn key(a: &Atom) -> Key {
        let mode = match a.mode {
            Mode::Move => 0,
            Mode::Capture => 1,
            Mode::Both => 2,
        };
        (a.dx, a.dy, a.range, mode, a.initial, a.lame)
    }

    /// The atoms as a sorted list, for order-insensitive comparison.
    fn sorted(m: &Movement) -> Vec<Key> {
        let mut v: Vec<Key> = m.atoms().iter().map(key).collect();
        v.sort_unstable();
        v
    }

    fn same(a: &Movement, b: &Movement) -> bool {
        sorted(a) == sorted(b)
    }

    fn parse(text: &str) -> Movement {
        match parse_betza(text) {
            Ok(m) => m,
            Err(e) => panic!("{text:?} should parse: {e}"),
        }
    }

    fn fault(text: &str) -> BetzaError {
        match parse_betza(text) {
            Ok(m) => panic!("{text:?} should fail, got {m}"),
            Err(e) => e,
        }
    }

    /// Both-mode leapers onto the given steps.
    fn leaps(steps: &[(i8, i8)]) -> Movement {
        Movement::new(steps.iter().map(|&(x, y)| Atom::leap(x, y)))
    }

    /// Both-mode atoms of the given range onto the given steps.
    fn with_range(steps: &[(i8, i8)], range: u8) -> Movement {
        Movement::new(steps.iter().map(|&(dx, dy)| Atom { range, ..Atom::leap(dx, dy) }))
    }

    fn steps_of(m: &Movement) -> Vec<(i8, i8)> {
        let mut v: Vec<(i8, i8)> = m.atoms().iter().map(|a| (a.dx, a.dy)).collect();
        v.sort_unstable();
        v
    }

    fn sorted_steps(mut v: Vec<(i8, i8)>) -> Vec<(i8, i8)> {
        v.sort_unstable();
        v
    }

    // ---- atoms and shorthands ----

    #[test]
    fn leaper_atoms() {
        for (letter, (x, y)) in [
            ("W", (1, 0)),
            ("F", (1, 1)),
            ("D", (2, 0)),
            ("N", (1, 2)),
            ("A", (2, 2)),
            ("H", (3, 0)),
            ("C", (1, 3)),
            ("Z", (2, 3)),
            ("G", (3, 3)),
        ] {
            let m = parse(letter);
            assert!(same(&m, &leaps(&eight_fold(x, y))), "{letter}: {m}");
            assert!(m.is_eight_fold_symmetric(), "{letter}");
        }
        assert_eq!(parse("W").atoms().len(), 4);
        assert_eq!(parse("F").atoms().len(), 4);
        assert_eq!(parse("N").atoms().len(), 8);
        assert_eq!(parse("Z").atoms().len(), 8);
    }

    #[test]
    fn older_letters_are_synonyms() {
        assert!(same(&parse("L"), &parse("C")));
        assert!(same(&parse("J"), &parse("Z")));
    }

    #[test]
    fn orthodox_pieces() {
        assert!(same(&parse("N"), &Movement::knight()));
        assert!(same(&parse("B"), &Movement::bishop()));
        assert!(same(&parse("R"), &Movement::rook()));
        assert!(same(&parse("Q"), &Movement::queen()));
        assert!(same(&parse("K"), &Movement::king()));
        assert!(same(&parse("WF"), &Movement::king()));
        assert!(same(&parse("RB"), &Movement::queen()));
    }

    #[test]
    fn atoms_come_in_the_model_order() {
        assert_eq!(parse("N"), Movement::knight());
        assert_eq!(parse("B"), Movement::bishop());
        assert_eq!(parse("R"), Movement::rook());
        assert_eq!(parse("Q"), Movement::queen());
        assert_eq!(parse("K"), Movement::king());
        assert_eq!(parse("fmWfcF"), Movement::pawn());
    }

    #[test]
    fn pawns() {
        assert!(same(&parse("fmWfcF"), &Movement::pawn()));
        assert!(same(&parse("mfWcfF"), &Movement::pawn()));
        // Fairy-Stockfish's predefined pawn: `e` adds nothing to the movement.
        assert!(same(&parse("fmWfceF"), &Movement::pawn()));
        assert_eq!(parse("ifmnD").atoms(), &[Movement::pawn_double_step()]);
        let mut full = Movement::pawn();
        full.push(Movement::pawn_double_step());
        assert!(same(&parse("fmWfceFifmnD"), &full));
        assert!(same(&parse("mfWcfFimfnD"), &full));
    }

    #[test]
    fn compounds() {
        let mut amazon = Movement::queen();
        amazon.extend(&Movement::knight());
        assert!(same(&parse("QN"), &amazon));
        let mut archbishop = Movement::bishop();
        archbishop.extend(&Movement::knight());
        assert!(same(&parse("BN"), &archbishop));
        assert!(same(&parse("NB"), &archbishop));
        let mut chancellor = Movement::rook();
        chancellor.extend(&Movement::knight());
        assert!(same(&parse("RN"), &chancellor));
        let mut centaur = Movement::king();
        centaur.extend(&Movement::knight());
        assert!(same(&parse("KN"), &centaur));
    }

    #[test]
    fn split_modality_compounds() {
        let m = parse("mQcN");
        assert_eq!(m.atoms().len(), 16);
        assert!(m.atoms().iter().all(|a| (a.range == 0) == (a.mode == Mode::Move)));
        assert!(m.atoms().iter().filter(|a| a.range == 1).all(|a| a.mode == Mode::Capture));
        // knibis: moves as N, captures as B.
        let k = parse("mNcB");
        assert!(k.atoms().iter().all(|a| if a.range == 1 { a.mode == Mode::Move } else { a.mode == Mode::Capture }));
    }

    // ---- ranges and riders ----

    #[test]
    fn doubled_letters_ride() {
        assert!(same(&parse("WW"), &Movement::rook()));
        assert!(same(&parse("FF"), &Movement::bishop()));
        assert!(same(&parse("KK"), &Movement::queen()));
        let nightrider = parse("NN");
        assert!(same(&nightrider, &with_range(&eight_fold(1, 2), 0)));
    }

    #[test]
    fn numeric_ranges() {
        assert!(same(&parse("W0"), &Movement::rook()));
        assert!(same(&parse("R0"), &Movement::rook()));
        assert!(same(&parse("F0"), &Movement::bishop()));
        assert!(same(&parse("K0"), &Movement::queen()));
        assert!(same(&parse("W1"), &parse("W")));
        assert!(same(&parse("R1"), &parse("W")));
        assert!(same(&parse("W4"), &with_range(&eight_fold(1, 0), 4)));
        assert!(same(&parse("R4"), &parse("W4")));
        assert!(same(&parse("B2"), &with_range(&eight_fold(1, 1), 2)));
        assert!(same(&parse("N2"), &with_range(&eight_fold(1, 2), 2)));
        assert!(same(&parse("R12"), &with_range(&eight_fold(1, 0), 12)));
        assert!(same(&parse("W255"), &with_range(&eight_fold(1, 0), 255)));
    }

    #[test]
    fn number_then_next_atom() {
        // Fairy-Stockfish's spider, leopard and fortress.
        let spider = parse("B2ND");
        assert_eq!(spider.atoms().len(), 4 + 8 + 4);
        let fortress = parse("B3vND");
        assert!(fortress.atoms().iter().any(|a| (a.dx, a.dy, a.range) == (1, 1, 3)));
        assert_eq!(fortress.atoms().iter().filter(|a| a.range == 1 && a.dx.abs() + a.dy.abs() == 3).count(), 4);
    }

    // ---- modality, initial, lame ----

    #[test]
    fn modality() {
        assert!(parse("mW").atoms().iter().all(|a| a.mode == Mode::Move));
        assert!(parse("cW").atoms().iter().all(|a| a.mode == Mode::Capture));
        assert!(same(&parse("mcW"), &parse("W")));
        assert!(same(&parse("mWcW"), &parse("W")));
        assert!(same(&parse("cemW"), &parse("W")));
    }

    #[test]
    fn initial_and_lame_flags() {
        let m = parse("iW");
        assert!(m.atoms().iter().all(|a| a.initial && !a.lame));
        let horse = parse("nN");
        assert_eq!(horse.atoms().len(), 8);
        assert!(horse.atoms().iter().all(|a| a.lame && a.range == 1));
        assert!(parse("nA").atoms().iter().all(|a| a.lame));
        assert!(parse("nD").atoms().iter().all(|a| a.lame));
        assert!(parse("nZ").atoms().iter().all(|a| a.lame));
        // The flags apply only to the next atom.
        let m = parse("inDW");
        assert!(m.atoms().iter().filter(|a| a.dx.abs() + a.dy.abs() == 1).all(|a| !a.initial && !a.lame));
    }

    // ---- directions: orthogonal ----

    #[test]
    fn orthogonal_directions() {
        assert_eq!(parse("fR").atoms(), &[Atom::ride(0, 1)]);
        assert_eq!(parse("bR").atoms(), &[Atom::ride(0, -1)]);
        assert_eq!(parse("lR").atoms(), &[Atom::ride(-1, 0)]);
        assert_eq!(parse("rR").atoms(), &[Atom::ride(1, 0)]);
        assert!(same(&parse("vR"), &Movement::new([Atom::ride(0, 1), Atom::ride(0, -1)])));
        assert!(same(&parse("sR"), &Movement::new([Atom::ride(1, 0), Atom::ride(-1, 0)])));
        assert!(same(&parse("fbR"), &parse("vR")));
        assert!(same(&parse("lrR"), &parse("sR")));
        assert!(same(&parse("vsR"), &parse("R")));
        assert_eq!(steps_of(&parse("fD")), vec![(0, 2)]);
        assert_eq!(steps_of(&parse("bH")), vec![(0, -3)]);
    }

    #[test]
    fn orthogonal_pairs_join() {
        // The xiangqi soldier after the river, Fairy-Stockfish's `fsW`.
        assert_eq!(steps_of(&parse("fsW")), sorted_steps(vec![(0, 1), (1, 0), (-1, 0)]));
        assert_eq!(steps_of(&parse("flW")), sorted_steps(vec![(0, 1), (-1, 0)]));
        assert_eq!(steps_of(&parse("rbW")), sorted_steps(vec![(0, -1), (1, 0)]));
        assert!(same(&parse("ffW"), &parse("fW")));
    }

    // ---- directions: diagonal ----

    #[test]
    fn diagonal_directions() {
        assert_eq!(steps_of(&parse("fF")), sorted_steps(vec![(1, 1), (-1, 1)]));
        assert_eq!(steps_of(&parse("bF")), sorted_steps(vec![(1, -1), (-1, -1)]));
        assert_eq!(steps_of(&parse("lF")), sorted_steps(vec![(-1, 1), (-1, -1)]));
        assert_eq!(steps_of(&parse("rF")), sorted_steps(vec![(1, 1), (1, -1)]));
        assert_eq!(steps_of(&parse("frF")), vec![(1, 1)]);
        assert_eq!(steps_of(&parse("flF")), vec![(-1, 1)]);
        assert_eq!(steps_of(&parse("brF")), vec![(1, -1)]);
        assert_eq!(steps_of(&parse("blF")), vec![(-1, -1)]);
        assert!(same(&parse("rfF"), &parse("frF")));
        assert!(same(&parse("lbF"), &parse("blF")));
        assert!(same(&parse("vF"), &parse("F")));
        assert!(same(&parse("sF"), &parse("F")));
        assert!(same(&parse("fsF"), &parse("fF")));
        assert!(same(&parse("fhF"), &parse("fF")));
        assert_eq!(steps_of(&parse("fB")), sorted_steps(vec![(1, 1), (-1, 1)]));
        assert!(parse("fB").atoms().iter().all(|a| a.range == 0));
    }

    // ---- directions: oblique ----

    #[test]
    fn oblique_pairs() {
        // `f` is the narrow forward pair: Fairy-Stockfish's shogi knight `fN`.
        assert_eq!(steps_of(&parse("fN")), sorted_steps(vec![(1, 2), (-1, 2)]));
        assert!(same(&parse("ffN"), &parse("fN")));
        assert_eq!(steps_of(&parse("fsN")), sorted_steps(vec![(2, 1), (-2, 1)]));
        assert_eq!(steps_of(&parse("bN")), sorted_steps(vec![(1, -2), (-1, -2)]));
        assert_eq!(steps_of(&parse("bsN")), sorted_steps(vec![(2, -1), (-2, -1)]));
        assert_eq!(steps_of(&parse("lN")), sorted_steps(vec![(-2, 1), (-2, -1)]));
        assert_eq!(steps_of(&parse("rN")), sorted_steps(vec![(2, 1), (2, -1)]));
        assert_eq!(steps_of(&parse("vN")), sorted_steps(vec![(1, 2), (-1, 2), (1, -2), (-1, -2)]));
        assert_eq!(steps_of(&parse("sN")), sorted_steps(vec![(2, 1), (-2, 1), (2, -1), (-2, -1)]));
        assert!(same(&parse("fNbN"), &parse("vN")));
        assert!(same(&parse("vNsN"), &parse("N")));
    }

    #[test]
    fn oblique_single_moves() {
        // "fr" is the upper member of the right pair; "rf" the right member of the forward pair.
        assert_eq!(steps_of(&parse("frN")), vec![(2, 1)]);
        assert_eq!(steps_of(&parse("rfN")), vec![(1, 2)]);
        assert_eq!(steps_of(&parse("flN")), vec![(-2, 1)]);
        assert_eq!(steps_of(&parse("lfN")), vec![(-1, 2)]);
        assert_eq!(steps_of(&parse("brN")), vec![(2, -1)]);
        assert_eq!(steps_of(&parse("rbN")), vec![(1, -2)]);
        assert_eq!(steps_of(&parse("blN")), vec![(-2, -1)]);
        assert_eq!(steps_of(&parse("lbN")), vec![(-1, -2)]);
        assert_eq!(steps_of(&parse("rvN")), sorted_steps(vec![(1, 2), (1, -2)]));
        assert_eq!(steps_of(&parse("lvN")), sorted_steps(vec![(-1, 2), (-1, -2)]));
        assert!(same(&parse("frNflN"), &parse("fsN")));
        assert!(same(&parse("rfNlfN"), &parse("fN")));
    }

    #[test]
    fn oblique_halves() {
        let forward = sorted_steps(vec![(1, 2), (-1, 2), (2, 1), (-2, 1)]);
        assert_eq!(steps_of(&parse("fhN")), forward);
        assert!(same(&parse("fNfsN"), &parse("fhN")));
        assert_eq!(steps_of(&parse("bhN")), sorted_steps(vec![(1, -2), (-1, -2), (2, -1), (-2, -1)]));
        assert_eq!(steps_of(&parse("rhN")), sorted_steps(vec![(1, 2), (2, 1), (2, -1), (1, -2)]));
        assert_eq!(steps_of(&parse("lhN")), sorted_steps(vec![(-1, 2), (-2, 1), (-2, -1), (-1, -2)]));
        // The chiral halves: closed under quarter turns, disjoint, together the knight.
        let hr = parse("hrN");
        let hl = parse("hlN");
        assert_eq!(steps_of(&hr), sorted_steps(vec![(1, 2), (2, -1), (-1, -2), (-2, 1)]));
        assert_eq!(steps_of(&hl), sorted_steps(vec![(2, 1), (1, -2), (-2, -1), (-1, 2)]));
        let mut both = hr.clone();
        both.extend(&hl);
        assert!(same(&both, &Movement::knight()));
    }

    #[test]
    fn directions_on_riders_and_ranges() {
        let m = parse("fNN");
        assert!(same(&m, &with_range(&[(1, 2), (-1, 2)], 0)));
        let m = parse("fsR2");
        assert!(same(&m, &with_range(&[(0, 1), (1, 0), (-1, 0)], 2)));
    }

    #[test]
    fn directions_on_shorthands_distribute() {
        assert!(same(&parse("fK"), &parse("fWfF")));
        assert_eq!(steps_of(&parse("fK")), sorted_steps(vec![(0, 1), (1, 1), (-1, 1)]));
        assert!(same(&parse("fsK"), &parse("fsWfsF")));
        assert_eq!(steps_of(&parse("fsK")), sorted_steps(vec![(0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1)]));
        assert!(same(&parse("bQ"), &parse("bRbB")));
        assert!(same(&parse("frK"), &parse("frWfrF")));
    }

    #[test]
    fn white_view_forward_is_positive_dy() {
        assert!(parse("fR").atoms().iter().all(|a| a.dy > 0));
        assert!(parse("bB").atoms().iter().all(|a| a.dy < 0));
        assert!(parse("rW").atoms().iter().all(|a| a.dx > 0));
        assert!(parse("lW").atoms().iter().all(|a| a.dx < 0));
    }

    // ---- documented examples ----

    #[test]
    fn fairy_stockfish_predefined_pieces() {
        // The Betza strings of Fairy-Stockfish's predefined pieces (variants.ini), hoppers excepted.
        for text in [
            "fmWfceF", "N", "B", "R", "Q", "F", "A", "FA", "FfW", "RNF", "RF", "BN", "RN", "QN", "mNcB", "mBcN",
            "mNcR", "mRcN", "fW", "fR", "fN", "WfF", "BW", "cW", "fmWfF", "fsW", "nN", "nA", "nZ", "W", "K", "KN",
            "ADGH", "FWDA", "NC", "FWDsN", "B2ND", "F2N", "B3vND",
        ] {
            assert!(parse_betza(text).is_ok(), "{text}: {:?}", parse_betza(text));
        }
        // silver: F plus the forward W step; gold: W plus the forward F steps.
        assert!(same(&parse("FfW"), &leaps(&[(1, 1), (-1, 1), (1, -1), (-1, -1), (0, 1)])));
        assert!(same(&parse("WfF"), &leaps(&[(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1)])));
        // Hoppers (cannon, janggi cannon, banner) are outside the model.
        for text in ["mRcpR", "pR", "RcpRnN", "gQ"] {
            assert!(matches!(fault(text).kind, BetzaErrorKind::UnsupportedModifier('p' | 'g')), "{text}");
        }
    }

    #[test]
    fn four_fold_sets_match_the_model_helpers() {
        assert!(same(&parse("vNsN"), &leaps(&eight_fold(1, 2))));
        assert!(same(&parse("vN"), &leaps(&four_fold(1, 2))));
        assert!(same(&parse("sN"), &leaps(&four_fold(2, 1))));
    }

    // ---- errors ----

    #[test]
    fn empty_input() {
        assert_eq!(fault(""), BetzaError { position: 0, kind: BetzaErrorKind::Empty });
    }

    #[test]
    fn unknown_letters() {
        assert_eq!(fault("E"), BetzaError { position: 1, kind: BetzaErrorKind::UnknownAtom('E') });
        assert_eq!(fault("QNS"), BetzaError { position: 3, kind: BetzaErrorKind::UnknownAtom('S') });
        assert_eq!(fault("N O").kind, BetzaErrorKind::UnexpectedChar(' '));
        assert_eq!(fault("N O").position, 2);
        assert_eq!(fault(" N").position, 1);
        assert_eq!(fault("N(").kind, BetzaErrorKind::UnexpectedChar('('));
        assert_eq!(fault("[W]").kind, BetzaErrorKind::UnexpectedChar('['));
        assert_eq!(fault("éN"), BetzaError { position: 1, kind: BetzaErrorKind::UnexpectedChar('é') });
        assert_eq!(fault("Né"), BetzaError { position: 2, kind: BetzaErrorKind::UnexpectedChar('é') });
    }

    #[test]
    fn unsupported_modifiers() {
        assert_eq!(fault("mRcpR"), BetzaError { position: 4, kind: BetzaErrorKind::UnsupportedModifier('p') });
        assert_eq!(fault("gQ").kind, BetzaErrorKind::UnsupportedModifier('g'));
        assert_eq!(fault("mafsmafW"), BetzaError { position: 2, kind: BetzaErrorKind::UnsupportedModifier('a') });
        assert_eq!(fault("jB").kind, BetzaErrorKind::UnsupportedModifier('j'));
        assert_eq!(fault("oR").kind, BetzaErrorKind::UnsupportedModifier('o'));
    }

    #[test]
    fn dangling_modifiers() {
        assert_eq!(fault("Nf"), BetzaError { position: 2, kind: BetzaErrorKind::DanglingModifiers("f".into()) });
        assert_eq!(fault("fm"), BetzaError { position: 1, kind: BetzaErrorKind::DanglingModifiers("fm".into()) });
        assert_eq!(fault("fmWfc").kind, BetzaErrorKind::DanglingModifiers("fc".into()));
        assert_eq!(fault("fmWfc").position, 4);
        assert_eq!(fault("i").kind, BetzaErrorKind::DanglingModifiers("i".into()));
    }

    #[test]
    fn misplaced_digits() {
        assert_eq!(fault("2N"), BetzaError { position: 1, kind: BetzaErrorKind::UnexpectedDigit('2') });
        assert_eq!(fault("NN2"), BetzaError { position: 3, kind: BetzaErrorKind::UnexpectedDigit('2') });
        assert_eq!(fault("f3W").kind, BetzaErrorKind::UnexpectedDigit('3'));
    }

    #[test]
    fn nonsensical_ranges() {
        assert_eq!(fault("R256"), BetzaError { position: 2, kind: BetzaErrorKind::RangeTooLarge("256".into()) });
        assert_eq!(fault("W99999999999999999999").kind, BetzaErrorKind::RangeTooLarge("99999999999999999999".into()));
        assert_eq!(fault("W03"), BetzaError { position: 2, kind: BetzaErrorKind::ExactRange("03".into()) });
        assert_eq!(fault("W00").kind, BetzaErrorKind::ExactRange("00".into()));
        assert_eq!(fault("RR"), BetzaError { position: 2, kind: BetzaErrorKind::DoubledRider('R') });
        assert_eq!(fault("BB").kind, BetzaErrorKind::DoubledRider('B'));
        assert_eq!(fault("QQ").kind, BetzaErrorKind::DoubledRider('Q'));
    }

    #[test]
    fn invalid_directions() {
        let invalid = |direction: &str, atom| BetzaErrorKind::InvalidDirection { direction: direction.into(), atom };
        assert_eq!(fault("sfN"), BetzaError { position: 1, kind: invalid("sf", 'N') });
        assert_eq!(fault("vsF").kind, invalid("vs", 'F'));
        assert_eq!(fault("hN").kind, invalid("h", 'N'));
        assert_eq!(fault("hfN").kind, invalid("hf", 'N'));
        assert_eq!(fault("fhW").kind, invalid("fh", 'W'));
        assert_eq!(fault("hrR").kind, invalid("hr", 'R'));
        assert_eq!(fault("mWfhK").kind, invalid("fh", 'K'));
        assert_eq!(fault("mWfhK").position, 3);
    }

    #[test]
    fn lame_and_en_passant_faults() {
        assert_eq!(fault("nW"), BetzaError { position: 1, kind: BetzaErrorKind::LameNotApplicable('W') });
        assert_eq!(fault("nK").kind, BetzaErrorKind::LameNotApplicable('K'));
        assert_eq!(fault("nG").kind, BetzaErrorKind::LameNotApplicable('G'));
        assert_eq!(fault("nR").kind, BetzaErrorKind::LameRider('R'));
        assert_eq!(fault("nNN").kind, BetzaErrorKind::LameRider('N'));
        assert_eq!(fault("nD2").kind, BetzaErrorKind::LameRider('D'));
        assert!(parse_betza("nD1").is_ok());
        assert_eq!(fault("feF"), BetzaError { position: 2, kind: BetzaErrorKind::EnPassantWithoutCapture });
        assert_eq!(fault("fmeF").kind, BetzaErrorKind::EnPassantWithoutCapture);
    }

    #[test]
    fn error_display() {
        assert_eq!(fault("QNS").to_string(), "Betza notation, position 3: unknown atom 'S'");
        assert_eq!(fault("Nf").to_string(), "Betza notation, position 2: modifiers \"f\" are not followed by an atom");
        assert_eq!(
            fault("sfN").to_string(),
            "Betza notation, position 1: direction \"sf\" is not defined for atom 'N'"
        );
        assert_eq!(
            fault("").to_string(),
            "Betza notation, position 0: empty string (an immobile piece has no Betza notation here)"
        );
    }
}
