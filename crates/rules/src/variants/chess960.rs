//! Chess960 (Fischer random chess): chess from one of 960 back-rank setups with castling to the
//! g- and c-files, and the same starts and castling for any variant whose castling is `chess960`.
//!
//! Setups are numbered as Scharnagl numbers them (518 is the orthodox setup). Besides chess960,
//! the built-in crazyhouse960 uses them.
//!
//! Castling geometry is part of a variant here (`Variant::t.castle`), so every set of king and
//! rook files is its own variant, named like its base (`chess960`, `crazyhouse960`), built once
//! and kept ([`with_castling`]). A FEN selects it: `Position::from_fen(chess960, fen)` reads the
//! rook files from the castling field (`KQkq` for the outermost rooks, file letters as in X-FEN
//! and Shredder-FEN) and returns a position of the variant with those files.

use crate::color::Color;
use crate::position::PositionError;
use crate::setup::Setup;
use crate::square::Square;
use crate::variant::{Castling, Rules, Variant, VariantError};
use rand::Rng;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The number of start positions.
pub const POSITIONS: u16 = 960;

/// The rules of Chess960 with the orthodox files (the variant `chess960` of the registry).
pub fn rules() -> Rules {
    let mut r = super::chess::rules();
    r.name = "chess960".into();
    r.summary = "Chess960 (Fischer random chess): one of 960 back-rank setups, castling to the g- and c-files".into();
    r.castling = Some(Castling::chess960(4, [7, 0]));
    r
}

/// Whether a variant castles as Chess960 does (its start and rook files come from each FEN).
pub fn is_chess960(v: &Variant) -> bool {
    v.castling.is_some_and(|c| c.chess960)
}

/// A base variant (by address: variants of one name may differ) with a king file and its
/// rooks' files `[king side, queen side]`.
type Files = (usize, u8, [u8; 2]);

/// The variant of `base`'s rules (a Chess960 variant) whose king and rooks (`[king side, queen
/// side]`) start on these files: `base` itself if its files are these.
///
/// # Errors
///
/// If `base` is not a Chess960 variant on an 8x8 board, or the files are not a king between
/// its two rooks on files a to h.
pub fn with_castling(
    base: &'static Variant,
    king_file: u8,
    rook_file: [u8; 2],
) -> Result<&'static Variant, VariantError> {
    if base.castling.is_some_and(|c| c.king_file == king_file && c.rook_file == rook_file) {
        return Ok(base);
    }
    if !is_chess960(base) || base.geometry.files() != 8 || base.geometry.ranks() != 8 {
        return Err(VariantError::bad("castling", format!("{} is not a Chess960 variant on 8x8", base.name)));
    }
    if !(rook_file[1] < king_file && king_file < rook_file[0] && rook_file[0] < 8) {
        return Err(VariantError::bad(
            "castling",
            format!("the king on file {king_file} does not stand between rooks on files {rook_file:?} of a to h"),
        ));
    }
    static BUILT: OnceLock<Mutex<HashMap<Files, &'static Variant>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = (std::ptr::from_ref(base) as usize, king_file, rook_file);
    if let Some(v) = built.get(&key) {
        return Ok(v);
    }
    let mut r = base.rules().clone();
    r.castling = Some(Castling::chess960(king_file, rook_file));
    // A start FEN valid for the files, without castling rights: with them it would choose
    // this very variant while it is being built (under the lock).
    let (black, white) = ranks(king_file, rook_file);
    let hands = if r.drops { "[]" } else { "" };
    r.start_fen = format!("{black}/8/8/8/8/8/8/{white}{hands} w - - 0 1");
    let v = crate::variant::load(r)?;
    built.insert(key, v);
    Ok(v)
}

/// The kings and rooks alone on these files (a start position every file set can load), as
/// Black's and White's back ranks in FEN.
fn ranks(king_file: u8, rook_file: [u8; 2]) -> (String, String) {
    let mut black = String::new();
    let mut empty = 0;
    for f in 0..8u8 {
        let piece = if f == king_file {
            Some('k')
        } else if rook_file.contains(&f) {
            Some('r')
        } else {
            None
        };
        match piece {
            Some(p) => {
                if empty > 0 {
                    black.push(char::from(b'0' + empty));
                    empty = 0;
                }
                black.push(p);
            }
            None => empty += 1,
        }
    }
    if empty > 0 {
        black.push(char::from(b'0' + empty));
    }
    let white = black.to_ascii_uppercase();
    (black, white)
}

/// The back rank of start position `n` (0..960, Scharnagl's numbering) in White's letters, a
/// to h. `None` past 959.
pub fn back_rank(n: u16) -> Option<[char; 8]> {
    if n >= POSITIONS {
        return None;
    }
    let mut rank = [' '; 8];
    let mut n = usize::from(n);
    // The light-squared bishop (b, d, f, h), then the dark-squared one (a, c, e, g).
    rank[2 * (n % 4) + 1] = 'B';
    n /= 4;
    rank[2 * (n % 4)] = 'B';
    n /= 4;
    let mut place = |piece: char, k: usize| {
        if let Some(i) = (0..8).filter(|&i| rank[i] == ' ').nth(k) {
            rank[i] = piece;
        }
    };
    place('Q', n % 6);
    n /= 6;
    // The knights on two of the five squares left, by the KRN table; rook, king, rook fill the
    // last three in that order.
    const KNIGHTS: [(usize, usize); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (a, b) = KNIGHTS[n];
    place('N', b);
    place('N', a);
    for piece in ['R', 'K', 'R'] {
        place(piece, 0);
    }
    Some(rank)
}

/// The FEN of start position `n` (0..960), castling rights `KQkq`; `None` past 959.
pub fn start_fen(n: u16) -> Option<String> {
    let white: String = back_rank(n)?.iter().collect();
    let black = white.to_ascii_lowercase();
    Some(format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1"))
}

/// The FEN of start position `n` (0..960) in variant `v`: with empty hands (`[]`) if it has
/// drops; `None` past 959.
pub fn start_fen_in(v: &Variant, n: u16) -> Option<String> {
    let fen = start_fen(n)?;
    Some(if v.drops { fen.replacen(" w ", "[] w ", 1) } else { fen })
}

/// A start position of variant `v` drawn uniformly from the 960, as (its number, its FEN).
pub fn random_start<R: Rng + ?Sized>(v: &Variant, rng: &mut R) -> (u16, String) {
    let n = rng.gen_range(0..POSITIONS);
    (n, start_fen_in(v, n).unwrap_or_default())
}

/// The variant a Chess960 setup is played in: the one whose king and rook files its castling
/// rights name (`KQkq`: the outermost rook on that side of the king; a letter: that file). Both
/// sides' rights must name the same files. Without rights, or outside Chess960, `variant`.
pub(crate) fn resolve(variant: &'static Variant, setup: &Setup) -> Result<&'static Variant, PositionError> {
    if !is_chess960(variant) || !setup.castling.contains(&true) {
        return Ok(variant);
    }
    let (Some(king), Some(rook)) = (variant.t.king, variant.role_by_letter('r')) else { return Ok(variant) };
    let bad = |s: String| PositionError::Chess960Castling(s);
    let mut king_file: Option<u8> = None;
    let mut rook_file: [Option<u8>; 2] = [None; 2];
    for i in (0..4).filter(|&i| setup.castling[i]) {
        let (color, side) = (if i < 2 { Color::White } else { Color::Black }, i % 2);
        let letter = ['K', 'Q', 'k', 'q'][i];
        let rank = if color == Color::White { 0 } else { 7 };
        let at = |f: u8| Square::new(f, rank).and_then(|sq| setup.board.piece_at(sq));
        let Some(k) = (0..8).find(|&f| at(f).is_some_and(|p| p.color == color && p.role == king)) else {
            return Err(bad(format!("right '{letter}' without {color}'s king on its back rank")));
        };
        let is_rook = |f: u8| at(f).is_some_and(|p| p.color == color && p.role == rook);
        let file = match setup.castling_files[i] {
            Some(f) => Some(f).filter(|&f| is_rook(f)),
            None if side == 0 => (k + 1..8).rev().find(|&f| is_rook(f)),
            None => (0..k).find(|&f| is_rook(f)),
        };
        let Some(file) = file.filter(|&f| (side == 0) == (f > k)) else {
            return Err(bad(format!("right '{letter}' without {color}'s rook on that side of its king")));
        };
        if king_file.is_some_and(|kf| kf != k) {
            return Err(bad("the two kings' castling rights start from different files".into()));
        }
        if rook_file[side].is_some_and(|rf| rf != file) {
            return Err(bad(format!(
                "the two sides' {} rooks stand on different files",
                ["king-side", "queen-side"][side]
            )));
        }
        king_file = Some(k);
        rook_file[side] = Some(file);
    }
    let Some(k) = king_file.filter(|&k| (1..=6).contains(&k)) else {
        return Err(bad("the king must stand between its rooks, off the corner files".into()));
    };
    // A side without rights keeps the given variant's file when its king stands on the same file
    // (a position that lost a right reads back into its own variant), else the corner's.
    let given = variant.castling.filter(|c| c.king_file == k).map_or([7, 0], |c| c.rook_file);
    let files = [rook_file[0].unwrap_or(given[0]), rook_file[1].unwrap_or(given[1])];
    // The variant's own files: itself (this is also how the registry loads `chess960`, which
    // `with_castling` must not ask for while it is being loaded).
    if variant.castling.is_some_and(|c| c.king_file == k && c.rook_file == files) {
        return Ok(variant);
    }
    with_castling(variant, k, files).map_err(|e| bad(e.to_string()))
}
