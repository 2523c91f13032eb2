//! The tables an engine probes: loaded families found by material, and the bridge from a rules-core
//! position (same board, pieces with the same moves, no castling right, nothing in hand) to a value.
//!
//! A table answers for a variant only when its rules are the variant's: two-sided, no pass, stalemate
//! a draw, no bare-king rule, checkmate of the same royal piece, and every piece letter moving as
//! the variant's piece of that letter. Positions with the colours reversed (a table for `KQ.KR`
//! probed with Black holding the queen) are found by mirroring the ranks. The fifty-move rule is
//! not part of any table (neither DTM nor DTC counts it).

use std::collections::HashMap;
use std::path::Path;

use rules::{Color, Position, Variant, MAX_ROLES};

use crate::error::EgtError;
use crate::file::same_moves;
use crate::index::Squares;
use crate::material::{BLACK, MAX_MEN, WHITE};
use crate::table::Family;
use crate::value::{Metric, Value};

/// Men counts per side and letter (`A`..`Z`).
type Key = [[u8; 26]; 2];

/// Where one material lives: family, table, and whether the colours are reversed.
#[derive(Debug, Clone, Copy)]
struct Entry {
    family: usize,
    table: usize,
    swapped: bool,
}

/// A set of table families for probing.
#[derive(Debug, Default)]
pub struct Tablebase {
    families: Vec<Family>,
    by_key: HashMap<Key, Entry>,
    max_men: usize,
}

fn letter_index(c: char) -> Option<usize> {
    let c = c.to_ascii_uppercase();
    c.is_ascii_uppercase().then(|| usize::from(c as u8 - b'A'))
}

impl Tablebase {
    /// A tablebase of generated or loaded families.
    ///
    /// # Errors
    ///
    /// [`EgtError::RulesMismatch`] for a family an engine cannot use (one-sided, or generated with
    /// `-0`, `-s` or `-b`).
    pub fn new(families: Vec<Family>) -> Result<Tablebase, EgtError> {
        let mut tb = Tablebase::default();
        for (fi, f) in families.iter().enumerate() {
            let r = f.rules;
            let bad = if r.one_sided {
                Some(("one-sided", "true", "false"))
            } else if r.null_move {
                Some(("the null move (-0)", "allowed", "not (chess rules)"))
            } else if r.stalemate_wins {
                Some(("stalemate (-s)", "a win", "a draw (chess rules)"))
            } else if r.bare_king_loses {
                Some(("a bare king (-b)", "a loss", "not (chess rules)"))
            } else {
                None
            };
            if let Some((field, found, expected)) = bad {
                return Err(EgtError::RulesMismatch {
                    path: f.main().material.to_string(),
                    field: field.into(),
                    found: found.into(),
                    expected: expected.into(),
                });
            }
            for (ti, t) in f.tables.iter().enumerate() {
                let mut key: Key = [[0; 26]; 2];
                for m in 0..t.material.men().len() {
                    let man = t.material.men()[m];
                    if let Some(i) = letter_index(t.material.kinds()[man.kind].letter) {
                        key[man.side][i] += 1;
                    }
                }
                tb.max_men = tb.max_men.max(t.material.men().len());
                tb.by_key.entry(key).or_insert(Entry { family: fi, table: ti, swapped: false });
                tb.by_key.entry([key[1], key[0]]).or_insert(Entry { family: fi, table: ti, swapped: true });
            }
        }
        tb.families = families;
        Ok(tb)
    }

    /// Loads table files.
    ///
    /// # Errors
    ///
    /// As [`Family::load`] and [`Tablebase::new`].
    pub fn load(paths: &[&Path]) -> Result<Tablebase, EgtError> {
        let families = paths.iter().map(|p| Family::load(p)).collect::<Result<Vec<_>, _>>()?;
        Tablebase::new(families)
    }

    /// The most men of any table.
    pub fn max_men(&self) -> usize {
        self.max_men
    }

    /// The families.
    pub fn families(&self) -> &[Family] {
        &self.families
    }

    /// The view of this tablebase for one variant: `None` if no table can answer for it. The
    /// tables hold chess's rules on their board: checkmate wins, a stalemate draws, no move
    /// leaves one's royal attacked, and the men on the board are all there is (nothing comes
    /// from a hand, so a variant whose captures go to the capturer's hand is out, as crazyhouse
    /// is; drops alone are not, since a position with a piece in hand is never probed).
    pub fn bind(&self, v: &Variant) -> Option<Bound<'_>> {
        let usable = v.win == rules::variant::WinCondition::Checkmate
            && v.chance == rules::chance::ChanceRule::None
            && v.column_switch_limit.is_none()
            && !v.captures_to_hand
            && !v.self_check
            && !v.stuck_passes
            && !v.simultaneous
            && v.ply_limit.is_none()
            && v.shrink_after.is_none();
        if !usable {
            return None;
        }
        let king = v.pieces.iter().find(|p| p.royal)?;
        let mut roles: [Option<usize>; MAX_ROLES] = [None; MAX_ROLES];
        let mut families = vec![false; self.families.len()];
        for (fi, f) in self.families.iter().enumerate() {
            let board_ok = f.board.files == v.geometry.files() && f.board.ranks == v.geometry.ranks();
            let m = &f.main().material;
            let royal_ok = [WHITE, BLACK]
                .iter()
                .all(|&s| m.kinds()[m.men()[m.royal(s)].kind].letter == king.letter.to_ascii_uppercase());
            let pieces_ok = m.kinds().iter().all(|k| {
                v.pieces
                    .iter()
                    .find(|p| p.letter.to_ascii_uppercase() == k.letter)
                    .is_some_and(|p| !p.pawn && same_moves(&p.movement, &k.movement))
            });
            families[fi] = board_ok && royal_ok && pieces_ok;
        }
        if !families.iter().any(|&x| x) {
            return None;
        }
        for (r, p) in v.pieces.iter().enumerate().take(MAX_ROLES) {
            roles[r] = if p.pawn { None } else { letter_index(p.letter) };
        }
        Some(Bound { tb: self, roles, families, files: v.geometry.files(), ranks: v.geometry.ranks() })
    }
}

/// A tablebase bound to one variant (see [`Tablebase::bind`]).
#[derive(Debug, Clone)]
pub struct Bound<'a> {
    tb: &'a Tablebase,
    /// Per role: its letter index, `None` for pawns.
    roles: [Option<usize>; MAX_ROLES],
    /// Per family: whether it answers for the variant.
    families: Vec<bool>,
    files: u8,
    ranks: u8,
}

impl Bound<'_> {
    /// The most men any table holds.
    pub fn max_men(&self) -> usize {
        self.tb.max_men
    }

    /// The value of `pos` for the side to move and the table's metric, if a table covers it.
    pub fn probe(&self, pos: &Position) -> Option<(Value, Metric)> {
        let (f, at) = self.locate(pos)?;
        match crate::probe::value(f, &at) {
            Value::Invalid => None,
            v => Some((v, f.rules.metric)),
        }
    }

    /// Every move of `pos` the table knows, in UCI (`d1d8`), with the value it leads to for the
    /// side that plays it, best first (ties in the table's order); `None` if no table covers
    /// `pos`. The list holds the pseudo-legal moves of the table's men: a move that leaves the
    /// mover's royal en prise is listed as lost at once, and a caller with a rules position keeps
    /// its legal moves.
    pub fn moves(&self, pos: &Position) -> Option<Vec<(String, Value)>> {
        let (f, at) = self.locate(pos)?;
        if crate::probe::value(f, &at) == Value::Invalid {
            return None;
        }
        let swapped = at.stm != pos.turn().index();
        let square = |name: &str| {
            let sq = f.board.parse_square(name)?;
            let rank = if swapped { self.ranks - 1 - f.board.rank(sq) } else { f.board.rank(sq) };
            Some(format!("{}{}", char::from(b'a' + f.board.file(sq)), rank + 1))
        };
        let moves = crate::probe::moves(f, &at)
            .into_iter()
            .filter(|m| m.uci != "0000")
            .filter_map(|m| {
                let (from, to) = m.uci.split_at_checked(2)?;
                Some((format!("{}{}", square(from)?, square(to)?), m.value))
            })
            .collect();
        Some(moves)
    }

    /// The family and table position that hold `pos`, if any.
    fn locate(&self, pos: &Position) -> Option<(&Family, crate::fen::ProbePosition)> {
        let board = pos.board();
        let occupied = board.occupied();
        if occupied.count() as usize > self.tb.max_men || pos.castling_rights().iter().any(|&c| c) {
            return None;
        }
        if !pos.hand(Color::White).is_empty() || !pos.hand(Color::Black).is_empty() {
            return None;
        }
        let mut key: Key = [[0; 26]; 2];
        let mut men: [(usize, usize, u8, u8); MAX_MEN] = [(0, 0, 0, 0); MAX_MEN];
        let mut n = 0;
        for sq in occupied {
            let p = board.piece_at(sq)?;
            let letter = self.roles[p.role.index()]?;
            let side = p.color.index();
            key[side][letter] += 1;
            men[n] = (side, letter, sq.file(), sq.rank());
            n += 1;
        }
        let e = *self.tb.by_key.get(&key)?;
        if !self.families[e.family] {
            return None;
        }
        let f = &self.tb.families[e.family];
        let t = &f.tables[e.table];
        let mut sq: Squares = [0; MAX_MEN];
        let mut used = [false; MAX_MEN];
        for k in 0..t.material.men().len() {
            let man = t.material.men()[k];
            let side = if e.swapped { 1 - man.side } else { man.side };
            let letter = letter_index(t.material.kinds()[man.kind].letter)?;
            let i = (0..n).find(|&i| !used[i] && men[i].0 == side && men[i].1 == letter)?;
            used[i] = true;
            let (_, _, file, rank) = men[i];
            let rank = if e.swapped { self.ranks - 1 - rank } else { rank };
            sq[k] = rank * self.files + file;
        }
        let stm = pos.turn().index();
        let stm = if e.swapped { 1 - stm } else { stm };
        Some((f, crate::fen::ProbePosition { table: e.table, squares: sq, stm }))
    }
}
