//! A variant as data: board, pieces, setup and rule switches, compiled into attack tables.
//! Built-in variants live in `variants/`; custom ones come from TOML files (`spec.rs`).

use crate::bitboard::Bitboard;
use crate::chance::ChanceRule;
use crate::color::Color;
use crate::geometry::Geometry;
use crate::magic::{sliders, Sliders};
use crate::movement::{Atom, Mode};
use crate::piece::{PieceType, Role, MAX_ROLES, ROLE_SLOTS};
use crate::square::Square;
use std::fmt;

/// How a game is won.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WinCondition {
    /// Checkmate the enemy royal piece (moves into check are illegal).
    Checkmate,
    /// Capture the enemy royal piece.
    KingCapture,
}

/// Which material counts as insufficient to mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InsufficientMaterial {
    /// Never declared.
    Never,
    /// FIDE: no sequence of legal moves can mate (K vs K, K+minor vs K, bishops on one colour).
    Fide,
    /// Crazyhouse (lichess): at most three pieces in all, none of them pawns, rooks, queens or promoted.
    Crazyhouse,
    /// Kings alone (nothing else on the board or in hand): Predictor chess, where any other piece
    /// can still win, a king stepping onto the squares its move passes being annihilated with it.
    BareKings,
}

/// What ends a game in a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DrawRules {
    /// No capture or pawn move in 50 moves (100 plies).
    pub fifty_move: bool,
    /// The same position three times (hands and side to move included).
    pub repetition: bool,
    /// Which material is insufficient.
    pub insufficient: InsufficientMaterial,
}

/// Castling geometry: king and rooks start on the first rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Castling {
    /// The king's starting file.
    pub king_file: u8,
    /// Rook starting files: `[king side, queen side]`.
    pub rook_file: [u8; 2],
    /// King destination files: `[king side, queen side]`.
    pub king_to: [u8; 2],
    /// Rook destination files: `[king side, queen side]`.
    pub rook_to: [u8; 2],
    /// Chess960: the king and rook files are the start position's, read from each FEN
    /// (`variants::chess960`); a variant with these files is built for each set of them.
    pub chess960: bool,
}

impl Castling {
    /// Orthodox castling on a board with `files` files (king on the e-file for 8).
    pub fn orthodox(files: u8) -> Castling {
        Castling {
            king_file: files / 2,
            rook_file: [files - 1, 0],
            king_to: [files - 2, 2],
            rook_to: [files - 3, 3],
            chess960: false,
        }
    }

    /// Chess960 castling with the king and the rooks `[king side, queen side]` on these files
    /// of an 8-file board: the king lands on the g- or c-file, the rook on the f- or d-file.
    pub fn chess960(king_file: u8, rook_file: [u8; 2]) -> Castling {
        Castling { king_file, rook_file, king_to: [6, 2], rook_to: [5, 3], chess960: true }
    }

    /// The side (0 king side, 1 queen side) of the castling that lands the king on `file`
    /// (the king may not move at all in Chess960, so its origin cannot tell).
    pub fn side(&self, king_to_file: u8) -> usize {
        usize::from(king_to_file != self.king_to[0])
    }
}

/// Everything that defines a variant, before its tables are built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// Short name, e.g. `chess`.
    pub name: String,
    /// A one-line summary of the rules.
    pub summary: String,
    /// Board size.
    pub geometry: Geometry,
    /// Piece kinds, in FEN/pocket order.
    pub pieces: Vec<PieceType>,
    /// The start position.
    pub start_fen: String,
    /// Roles a pawn may promote to on the last rank (mandatory promotion).
    pub promotion: Vec<Role>,
    /// Per colour: whether pawns on their second rank may step twice.
    pub double_step: [bool; 2],
    /// Whether a double step may be taken en passant.
    pub en_passant: bool,
    /// Castling, if the variant has it.
    pub castling: Option<Castling>,
    /// Whether pieces in hand may be dropped.
    pub drops: bool,
    /// Whether captured pieces go to the capturer's hand (promoted ones as pawns).
    pub captures_to_hand: bool,
    /// The win condition.
    pub win: WinCondition,
    /// Whether moves that leave one's own royal attacked are legal.
    pub self_check: bool,
    /// Draw rules.
    pub draws: DrawRules,
    /// Chance events after moves.
    pub chance: ChanceRule,
    /// Baby Chess's column-switch limit: a move that ends on another file counts one switch
    /// for the moving piece (kept in its state byte, see [`crate::board::SWITCHES`]); a piece
    /// with this many switches may only move, and attacks only, within its file. `None` elsewhere.
    pub column_switch_limit: Option<u8>,
    /// A game ends after this many plies (counted from the fullmove number) with a material
    /// adjudication (Probabilistic chess). `None`: no limit.
    pub ply_limit: Option<u32>,
    /// Probabilistic chess's shrinking board: after this many plies without a capture the
    /// outermost ring of squares still in play is blocked (no piece may move onto it), and the
    /// halfmove clock counts plies since the last capture or closed ring. `None`: no shrinking.
    pub shrink_after: Option<u32>,
    /// A side without any move passes (Move::PASS) instead of being stalemated.
    pub stuck_passes: bool,
    /// Both sides order at once and a ply is resolved from both orders (Predictor chess,
    /// [`crate::predictor`]); the position's own moves are each side's candidate primaries.
    pub simultaneous: bool,
}

/// An error in a variant definition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VariantError {
    /// A definition key holds a bad value.
    #[error("{key}: {reason}")]
    BadValue {
        /// The key (or piece) concerned.
        key: String,
        /// What is wrong.
        reason: String,
    },
}

impl VariantError {
    pub(crate) fn bad(key: impl Into<String>, reason: impl Into<String>) -> VariantError {
        VariantError::BadValue { key: key.into(), reason: reason.into() }
    }
}

/// A rider or lame leaper that the fast tables do not cover, in per-colour form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GenericAtom {
    /// Per colour (Black's step is White's turned half round, as seen from Black's side).
    pub dx: [i8; 2],
    /// Per colour, as `dx`.
    pub dy: [i8; 2],
    pub range: u8,
    pub mode: Mode,
    pub lame: bool,
}

type SquareTable = [[Bitboard; 64]; 2];

/// How a role's moves are generated: the common shapes get a dedicated loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Only leaps that may move or capture.
    Leaper,
    /// Exactly an unlimited orthogonal rider.
    Rook,
    /// Exactly an unlimited diagonal rider.
    Bishop,
    /// Exactly both riders.
    Queen,
    /// Anything else (compounds, split modes, generic atoms).
    General,
}

/// Pre-computed castling of one colour and side.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CastleInfo {
    pub king_from: Square,
    pub king_to: Square,
    /// The castling rook's square.
    pub rook_from: Square,
    /// Squares that must be empty (king and rook excluded).
    pub empty: Bitboard,
    /// Squares the king stands on or crosses, which must not be attacked.
    pub path: Bitboard,
}

/// The compiled movement of one role.
pub(crate) struct RoleTables {
    /// Which generation loop applies.
    pub shape: Shape,
    /// The orthodox pawn (`fmWfcF`): generated set-wise by shifts.
    pub std_pawn: bool,
    /// Per colour: whether any double step exists.
    pub has_double_step: [bool; 2],
    /// Leaps allowed as move or capture, per colour and square.
    pub both: SquareTable,
    /// Move-only leaps.
    pub quiet: SquareTable,
    /// Capture-only leaps.
    pub capture: SquareTable,
    /// Whether `quiet` or `capture` hold anything.
    pub split_leaps: bool,
    /// An unlimited orthogonal rider in all four directions, with this mode.
    pub orth: Option<Mode>,
    /// An unlimited diagonal rider in all four directions, with this mode.
    pub diag: Option<Mode>,
    /// Everything else.
    pub generic: Vec<GenericAtom>,
    /// Pawn double step targets (per colour, square), with the square stepped over.
    pub double_step: [[Option<(Square, Square)>; 64]; 2],
    /// Per direction kind (`[orthogonal, diagonal]`), colour and square: the full rays the
    /// piece's unlimited riders follow (read by the column-switch generator of `switches.rs`).
    pub rays: [SquareTable; 2],
}

/// Tables derived from [`Rules`] when the variant is loaded.
pub(crate) struct Tables {
    pub sliders: &'static Sliders,
    pub roles: Vec<RoleTables>,
    pub mask: Bitboard,
    pub offboard: Bitboard,
    /// Legal move generation by pins and check masks (otherwise make-and-test).
    pub fast_legal: bool,
    pub orth_capturers: u16,
    pub diag_capturers: u16,
    pub leap_capturers: u16,
    pub generic_roles: u16,
    pub king: Option<Role>,
    pub pawn: Option<Role>,
    /// Castling rights (4 bits) kept when a piece moves from or to a square.
    pub castle_keep: [u8; 64],
    /// Per colour: the last rank.
    pub promotion_zone: [Bitboard; 2],
    /// Squares where a pawn may be dropped.
    pub pawn_drop: Bitboard,
    /// Per colour and role slot: the squares from which a piece of that role captures onto
    /// a square by a leap (laid out for attack queries without bounds checks).
    pub rev_capture: Box<[[[Bitboard; 64]; ROLE_SLOTS]; 2]>,
    /// Roles other than the pawn generated by their leap table alone (`Shape::Leaper`).
    pub leaper_movers: Vec<u8>,
    /// Roles other than the pawn that need the general generator.
    pub general_movers: Vec<u8>,
    /// Roles that are exactly an orthogonal rider (rooks and queens), as role bits.
    pub orth_movers: u16,
    /// Roles that are exactly a diagonal rider (bishops and queens), as role bits.
    pub diag_movers: u16,
    /// Castling per colour and side (`[king side, queen side]`).
    pub castle: [[Option<CastleInfo>; 2]; 2],
    /// Per colour: the squares a double step passes over (relative rank 2, 0-based).
    pub double_step_mid: [Bitboard; 2],
    /// The column-switch limit (0: none; see [`Rules::column_switch_limit`]).
    pub switch_limit: u8,
    /// State bits a piece keeps when it promotes (the switch count is cleared).
    pub promotion_keep: u8,
    /// Attack queries go through `Position::attackers_to` (generic atoms or switch limits).
    pub slow_attacks: bool,
    /// Roles with orthogonal (diagonal) rays in [`RoleTables::rays`], as role bits.
    pub ray_orth_roles: u16,
    /// See `ray_orth_roles`.
    pub ray_diag_roles: u16,
}

/// A loaded variant: its rules and the tables built from them.
pub struct Variant {
    rules: Rules,
    pub(crate) t: Tables,
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant").field("name", &self.rules.name).finish()
    }
}

impl std::ops::Deref for Variant {
    type Target = Rules;
    fn deref(&self) -> &Rules {
        &self.rules
    }
}

impl Variant {
    /// Checks the rules and builds the tables.
    pub fn new(rules: Rules) -> Result<Variant, VariantError> {
        let g = rules.geometry;
        if rules.pieces.is_empty() || rules.pieces.len() > MAX_ROLES {
            return Err(VariantError::bad(
                "pieces",
                format!(
                    "a variant needs 1 to {MAX_ROLES} piece kinds, inherited ones included (this one has {}; \
                     drop inherited pieces with remove-pieces)",
                    rules.pieces.len()
                ),
            ));
        }
        let mut kings = Vec::new();
        let mut pawns = Vec::new();
        for (i, p) in rules.pieces.iter().enumerate() {
            if !p.letter.is_ascii_lowercase() {
                return Err(VariantError::bad(format!("piece {}", p.name), "the letter must be a-z"));
            }
            if rules.pieces[..i].iter().any(|q| q.letter == p.letter) {
                return Err(VariantError::bad(
                    format!("piece {}", p.name),
                    format!("letter '{}' is used twice", p.letter),
                ));
            }
            if p.movement.is_empty() {
                return Err(VariantError::bad(format!("piece {}", p.name), "it has no moves"));
            }
            // A piece none of whose steps fits on the board could never move (a piecedef `9,9`).
            let fits =
                |a: &Atom| i32::from(a.dx).abs() < i32::from(g.files()) && i32::from(a.dy).abs() < i32::from(g.ranks());
            if !p.movement.atoms().iter().any(fits) {
                return Err(VariantError::bad(
                    format!("piece {}", p.name),
                    format!("none of its steps fits on the {}x{} board: it could never move", g.files(), g.ranks()),
                ));
            }
            // Steps are mirrored for Black and by symmetry, so -128 (which has no mirror in i8) is out.
            if let Some(a) = p.movement.atoms().iter().find(|a| a.dx == i8::MIN || a.dy == i8::MIN) {
                return Err(VariantError::bad(
                    format!("piece {}", p.name),
                    format!("step ({},{}) is out of range (at most 127 squares each way)", a.dx, a.dy),
                ));
            }
            if p.royal {
                kings.push(Role(i as u8));
            }
            if p.pawn {
                pawns.push(Role(i as u8));
            }
        }
        if kings.len() > 1 {
            return Err(VariantError::bad("pieces", "at most one royal piece kind"));
        }
        if pawns.len() > 1 {
            return Err(VariantError::bad("pieces", "at most one pawn kind"));
        }
        let king = kings.first().copied();
        let pawn = pawns.first().copied();
        if king.is_none() && rules.win == WinCondition::Checkmate {
            return Err(VariantError::bad("win", "checkmate needs a royal piece"));
        }
        if rules.castling.is_some() {
            let c = rules.castling.unwrap_or(Castling::orthodox(8));
            let files =
                [c.king_file, c.rook_file[0], c.rook_file[1], c.king_to[0], c.king_to[1], c.rook_to[0], c.rook_to[1]];
            if files.iter().any(|&f| f >= g.files()) || king.is_none() {
                return Err(VariantError::bad("castling", "castling needs a royal piece and files on the board"));
            }
            if c.rook_file[1] >= c.king_file || c.king_file >= c.rook_file[0] {
                return Err(VariantError::bad("castling", "the king stands between its castling rooks"));
            }
        }
        for r in &rules.promotion {
            if r.index() >= rules.pieces.len() || Some(*r) == king || Some(*r) == pawn {
                return Err(VariantError::bad(
                    "promotion",
                    "promotion roles must be non-royal, non-pawn pieces of the variant",
                ));
            }
        }
        if pawn.is_some() && rules.promotion.is_empty() {
            return Err(VariantError::bad("promotion", "a variant with pawns needs at least one promotion piece"));
        }
        match rules.chance {
            ChanceRule::MoveSuccess { numerator, denominator } if denominator == 0 || numerator > denominator => {
                return Err(VariantError::bad(
                    "chance",
                    format!("a move's success probability {numerator}/{denominator} is not within 0 to 1"),
                ));
            }
            ChanceRule::Gifts { percent } if percent > 100 => {
                return Err(VariantError::bad("chance", format!("a gift percentage of {percent} is above 100")));
            }
            // Gifts go into the hands, which only a variant with drops has (and writes in its FEN).
            ChanceRule::Gifts { .. } if !rules.drops => {
                return Err(VariantError::bad("chance", "gifts go into the hands: they need a variant with drops"));
            }
            _ => {}
        }

        let mut roles = Vec::with_capacity(rules.pieces.len());
        for (i, p) in rules.pieces.iter().enumerate() {
            roles.push(compile_role(&g, p, Some(Role(i as u8)) == pawn, rules.double_step)?);
        }
        let bits = |f: &dyn Fn(&RoleTables) -> bool| -> u16 {
            roles.iter().enumerate().filter(|(_, t)| f(t)).fold(0, |acc, (i, _)| acc | 1 << i)
        };
        let orth_capturers = bits(&|t| t.orth.is_some_and(Mode::can_capture));
        let diag_capturers = bits(&|t| t.diag.is_some_and(Mode::can_capture));
        // Reverse leap-capture tables: the squares from which a piece captures onto a square.
        let mut rev_capture = Box::new([[[Bitboard::EMPTY; 64]; ROLE_SLOTS]; 2]);
        for (r, rt) in roles.iter().enumerate() {
            for (c, rev) in rev_capture.iter_mut().enumerate() {
                for sq in g.mask() {
                    for to in rt.both[c][sq.index()] | rt.capture[c][sq.index()] {
                        rev[r][to.index()].set(sq);
                    }
                }
            }
        }
        let leap_capturers = (0..roles.len())
            .filter(|&r| rev_capture.iter().any(|rev| rev[r].iter().any(|b| b.any())))
            .fold(0u16, |acc, r| acc | 1 << r);
        let generic_roles = bits(&|t| !t.generic.is_empty());
        let switch_limit = match rules.column_switch_limit {
            None => 0,
            Some(n) => {
                check_switch_rules(&rules, n)?;
                n
            }
        };
        let fast_legal = generic_roles == 0
            && switch_limit == 0
            && king.is_some()
            && rules.win == WinCondition::Checkmate
            && !rules.self_check;
        let ray_orth_roles = bits(&|t| t.rays[0][0].iter().any(|b| b.any()));
        let ray_diag_roles = bits(&|t| t.rays[1][0].iter().any(|b| b.any()));

        let mut castle_keep = [0x0f_u8; 64];
        if let Some(c) = rules.castling {
            for color in Color::ALL {
                let rank = g.relative_rank_mask(color, 0).first().map_or(0, |s| s.rank());
                let shift = 2 * color.index();
                let at = |file: u8| Square::new(file, rank).map_or(0, |s| s.index());
                castle_keep[at(c.king_file)] &= !(0b11 << shift);
                castle_keep[at(c.rook_file[0])] &= !(0b01 << shift);
                castle_keep[at(c.rook_file[1])] &= !(0b10 << shift);
            }
        }
        let promotion_zone =
            [g.relative_rank_mask(Color::White, g.ranks() - 1), g.relative_rank_mask(Color::Black, g.ranks() - 1)];
        let pawn_drop = g.mask() - promotion_zone[0] - promotion_zone[1];
        // Move lists hold MOVE_LIST_CAPACITY moves: a variant whose positions could have more is
        // refused here rather than having moves dropped.
        let bound = move_bound(&rules, &g, pawn, &promotion_zone);
        if bound > crate::moves::MOVE_LIST_CAPACITY {
            return Err(VariantError::bad(
                "promotion",
                format!(
                    "a position of this variant could have up to {bound} moves, more than the {} a move \
                     list holds (fewer promotion pieces, or a pawn reaching fewer last-rank squares, lower it)",
                    crate::moves::MOVE_LIST_CAPACITY
                ),
            ));
        }
        let mut castle = [[None; 2]; 2];
        if let Some(c) = rules.castling {
            for color in Color::ALL {
                let rank = g.relative_rank_mask(color, 0).first().map_or(0, |s| s.rank());
                for (side, slot) in castle[color.index()].iter_mut().enumerate() {
                    let sq = |f: u8| Square::new(f, rank);
                    if let (Some(king_from), Some(king_to), Some(rook_from), Some(_)) =
                        (sq(c.king_file), sq(c.king_to[side]), sq(c.rook_file[side]), sq(c.rook_to[side]))
                    {
                        let span = |a: u8, b: u8| -> Bitboard { (a.min(b)..=a.max(b)).filter_map(sq).collect() };
                        let empty = (span(c.king_file, c.king_to[side]) | span(c.rook_file[side], c.rook_to[side]))
                            - Bitboard::from_square(king_from)
                            - Bitboard::from_square(rook_from);
                        let path = span(c.king_file, c.king_to[side]);
                        *slot = Some(CastleInfo { king_from, king_to, rook_from, empty, path });
                    }
                }
            }
        }
        let non_pawn = |shapes: &[Shape]| -> Vec<u8> {
            (0..roles.len() as u8)
                .filter(|&r| Some(Role(r)) != pawn && shapes.contains(&roles[r as usize].shape))
                .collect()
        };
        let leaper_movers = non_pawn(&[Shape::Leaper]);
        let general_movers = non_pawn(&[Shape::General]);
        let to_bits = |v: Vec<u8>| v.iter().fold(0u16, |acc, r| acc | 1 << r);
        let orth_movers = to_bits(non_pawn(&[Shape::Rook, Shape::Queen]));
        let diag_movers = to_bits(non_pawn(&[Shape::Bishop, Shape::Queen]));
        let double_step_mid = [g.relative_rank_mask(Color::White, 2), g.relative_rank_mask(Color::Black, 2)];
        let t = Tables {
            sliders: sliders(),
            roles,
            mask: g.mask(),
            offboard: !g.mask(),
            fast_legal,
            orth_capturers,
            diag_capturers,
            leap_capturers,
            generic_roles,
            king,
            pawn,
            castle_keep,
            promotion_zone,
            pawn_drop,
            rev_capture,
            leaper_movers,
            general_movers,
            orth_movers,
            diag_movers,
            castle,
            double_step_mid,
            switch_limit,
            promotion_keep: if switch_limit == 0 { 0xff } else { !crate::board::SWITCHES },
            slow_attacks: generic_roles != 0 || switch_limit != 0,
            ray_orth_roles,
            ray_diag_roles,
        };
        Ok(Variant { rules, t })
    }

    /// The rules this variant was built from.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Leaks the variant to get the `'static` reference positions carry.
    /// Built-in variants are loaded once; custom variants once per file load.
    pub fn leak(self) -> &'static Variant {
        Box::leak(Box::new(self))
    }

    /// The royal role, if any.
    pub fn king(&self) -> Option<Role> {
        self.t.king
    }

    /// The pawn role, if any.
    pub fn pawn(&self) -> Option<Role> {
        self.t.pawn
    }

    /// The role with this FEN letter (either case).
    pub fn role_by_letter(&self, c: char) -> Option<Role> {
        let lc = c.to_ascii_lowercase();
        self.rules.pieces.iter().position(|p| p.letter == lc).map(|i| Role(i as u8))
    }

    /// The definition of a role.
    ///
    /// # Panics
    ///
    /// If the role is not one of the variant's ([`Variant::get_piece`] does not panic).
    pub fn piece(&self, role: Role) -> &PieceType {
        &self.rules.pieces[role.index()]
    }

    /// The definition of a role, or `None` if the variant has no such role.
    pub fn get_piece(&self, role: Role) -> Option<&PieceType> {
        self.rules.pieces.get(role.index())
    }

    /// All roles in order.
    pub fn roles(&self) -> impl Iterator<Item = Role> + '_ {
        (0..self.rules.pieces.len() as u8).map(Role)
    }

    /// Whether legal moves are generated by pins and check masks (the fast path).
    pub fn has_fast_legality(&self) -> bool {
        self.t.fast_legal
    }
}

fn compile_role(
    g: &Geometry,
    p: &PieceType,
    is_pawn: bool,
    double_step: [bool; 2],
) -> Result<RoleTables, VariantError> {
    let empty: SquareTable = [[Bitboard::EMPTY; 64]; 2];
    let mut t = RoleTables {
        shape: Shape::General,
        std_pawn: false,
        has_double_step: [false; 2],
        both: empty,
        quiet: empty,
        capture: empty,
        split_leaps: false,
        orth: None,
        diag: None,
        generic: Vec::new(),
        double_step: [[None; 64]; 2],
        rays: [empty; 2],
    };
    let key = || format!("piece {}", p.name);
    let mut riders: Vec<Atom> = Vec::new();
    for a in p.movement.atoms() {
        if a.initial {
            let is_double = is_pawn && a.dx == 0 && a.dy == 2 && a.mode == Mode::Move && a.is_leaper();
            if !is_double {
                return Err(VariantError::bad(
                    key(),
                    "initial-only moves are supported only as the pawn's forward double step (ifmnD)",
                ));
            }
            continue;
        }
        if a.is_leaper() && !a.lame {
            for color in Color::ALL {
                // Black's step is White's turned half round: forward is down, right is left.
                let (dx, dy) = color.fold((a.dx, a.dy), (-a.dx, -a.dy));
                for sq in g.mask() {
                    if let Some(to) = g.square(sq.file() as i32 + dx as i32, sq.rank() as i32 + dy as i32) {
                        let c = color.index();
                        let table = match a.mode {
                            Mode::Both => &mut t.both,
                            Mode::Move => &mut t.quiet,
                            Mode::Capture => &mut t.capture,
                        };
                        table[c][sq.index()].set(to);
                    }
                }
            }
            if a.mode != Mode::Both {
                t.split_leaps = true;
            }
        } else {
            if a.range == 0 && !a.lame && a.mode == Mode::Both && (a.is_orthogonal() || a.is_diagonal()) {
                let kind = usize::from(a.is_diagonal());
                for color in Color::ALL {
                    let (dx, dy) = color.fold((a.dx as i32, a.dy as i32), (-(a.dx as i32), -(a.dy as i32)));
                    for sq in g.mask() {
                        let mut cur = sq;
                        while let Some(next) = g.square(cur.file() as i32 + dx, cur.rank() as i32 + dy) {
                            t.rays[kind][color.index()][sq.index()].set(next);
                            cur = next;
                        }
                    }
                }
            }
            riders.push(*a);
        }
    }
    // Full orthogonal / diagonal unlimited riders use the magic tables.
    for (diagonal, dirs) in [(false, [(1, 0), (-1, 0), (0, 1), (0, -1)]), (true, [(1, 1), (-1, 1), (1, -1), (-1, -1)])]
    {
        for mode in [Mode::Both, Mode::Move, Mode::Capture] {
            let all = dirs.iter().all(|&(dx, dy)| {
                riders.iter().any(|r| r.dx == dx && r.dy == dy && r.range == 0 && r.mode == mode && !r.lame)
            });
            if all {
                riders.retain(|r| !(r.range == 0 && r.mode == mode && !r.lame && dirs.contains(&(r.dx, r.dy))));
                if diagonal {
                    t.diag = Some(mode);
                } else {
                    t.orth = Some(mode);
                }
                break;
            }
        }
    }
    for r in riders {
        t.generic.push(GenericAtom {
            dx: [r.dx, -r.dx],
            dy: [r.dy, -r.dy],
            range: r.range,
            mode: r.mode,
            lame: r.lame,
        });
    }
    let no_leaps = t.both.iter().all(|c| c.iter().all(|b| b.0 == 0));
    let simple = !t.split_leaps && t.generic.is_empty();
    t.shape = match (t.orth, t.diag) {
        _ if !simple => Shape::General,
        (None, None) => Shape::Leaper,
        (Some(Mode::Both), None) if no_leaps => Shape::Rook,
        (None, Some(Mode::Both)) if no_leaps => Shape::Bishop,
        (Some(Mode::Both), Some(Mode::Both)) if no_leaps => Shape::Queen,
        _ => Shape::General,
    };
    if is_pawn {
        let mut atoms: Vec<Atom> = p.movement.atoms().iter().filter(|a| !a.initial).copied().collect();
        let mut orthodox: Vec<Atom> = crate::movement::Movement::pawn().atoms().to_vec();
        let key = |a: &Atom| (a.dx, a.dy, a.range, a.mode as u8, a.lame);
        atoms.sort_by_key(key);
        orthodox.sort_by_key(key);
        t.std_pawn = atoms == orthodox;
        for color in Color::ALL.into_iter().filter(|c| double_step[c.index()]) {
            let dy: i32 = color.fold(1, -1);
            for sq in g.relative_rank_mask(color, 1) {
                let mid = g.square(sq.file() as i32, sq.rank() as i32 + dy);
                let to = g.square(sq.file() as i32, sq.rank() as i32 + 2 * dy);
                if let (Some(mid), Some(to)) = (mid, to) {
                    t.double_step[color.index()][sq.index()] = Some((mid, to));
                    t.has_double_step[color.index()] = true;
                }
            }
        }
    }
    Ok(t)
}

/// An upper bound on the moves of any position of the variant: at most n(S-n) board moves for
/// n pieces of the mover on S squares (one per origin and destination), a drop of each role that
/// may be in hand onto each empty square, every promotion choice on each pawn step that can
/// reach the last rank (counted on an empty board), the en-passant captures onto the one square
/// (at most one per pawn step, and they may share an origin and destination with a plain move),
/// four castlings and the pass.
fn move_bound(rules: &Rules, g: &Geometry, pawn: Option<Role>, zone: &[Bitboard; 2]) -> usize {
    let squares = g.mask().count() as usize;
    let droppable = if rules.drops { rules.pieces.iter().filter(|p| !p.royal).count() } else { 0 };
    let board_and_drops = (0..=squares).map(|n| (n + droppable) * (squares - n)).max().unwrap_or(0);
    let promotion_steps = pawn.map_or(0, |p| {
        let atoms = rules.pieces[p.index()].movement.atoms();
        let steps_into = |color: Color| -> usize {
            let mut total = 0;
            for sq in g.mask() {
                let mut reach = Bitboard::EMPTY;
                for a in atoms {
                    let (dx, dy) = color.fold((i32::from(a.dx), i32::from(a.dy)), (-i32::from(a.dx), -i32::from(a.dy)));
                    let steps = if a.range == 0 { 8 } else { i32::from(a.range.min(8)) };
                    for k in 1..=steps {
                        let Some(to) = g.square(sq.file() as i32 + k * dx, sq.rank() as i32 + k * dy) else { break };
                        reach.set(to);
                    }
                }
                total += (reach & zone[color.index()]).count() as usize;
            }
            total
        };
        steps_into(Color::White).max(steps_into(Color::Black))
    });
    let en_passant = pawn.map_or(0, |p| rules.pieces[p.index()].movement.atoms().len());
    board_and_drops + promotion_steps * rules.promotion.len() + en_passant + 4 + 1
}

/// What the column-switch generator supports: leapers and unlimited orthogonal or diagonal
/// riders that move and capture alike, no drops, castling or en passant.
fn check_switch_rules(rules: &Rules, limit: u8) -> Result<(), VariantError> {
    if !(1..=crate::board::SWITCHES).contains(&limit) {
        return Err(VariantError::bad(
            "column_switch_limit",
            format!("{limit} is outside 1..={}", crate::board::SWITCHES),
        ));
    }
    if rules.drops || rules.castling.is_some() || rules.en_passant || rules.self_check {
        return Err(VariantError::bad(
            "column_switch_limit",
            "switch limits work without drops, castling, en passant and self-check",
        ));
    }
    if rules.win != WinCondition::Checkmate || rules.chance != ChanceRule::None {
        return Err(VariantError::bad("column_switch_limit", "switch limits need checkmate rules without chance"));
    }
    for p in &rules.pieces {
        for a in p.movement.atoms() {
            let rider_ok = a.range == 0 && !a.lame && a.mode == Mode::Both && (a.is_orthogonal() || a.is_diagonal());
            let leaper_ok = a.is_leaper() && !a.lame;
            if !(rider_ok || leaper_ok || a.initial) {
                return Err(VariantError::bad(
                    format!("piece {}", p.name),
                    "with a column-switch limit pieces may only have plain leaps and unlimited \
                     orthogonal or diagonal rides that move and capture alike",
                ));
            }
        }
    }
    Ok(())
}

/// Builds a variant, leaks it to `'static`, and checks that its start FEN is a legal position.
///
/// Loads are interned: rules equal to ones loaded before give the same variant (or the
/// same error about its start position), so a long-running process that loads one
/// variant file again and again leaks its tables once, not once per load.
pub fn load(rules: Rules) -> Result<&'static Variant, VariantError> {
    type Loaded = (&'static Variant, Option<VariantError>);
    static LOADED: std::sync::Mutex<Vec<Loaded>> = std::sync::Mutex::new(Vec::new());
    let mut loaded = LOADED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (v, error) = match loaded.iter().find(|(v, _)| v.rules == rules) {
        Some(found) => found.clone(),
        None => {
            // Positions need a `'static` variant, so the start position is checked after leaking.
            let v = Variant::new(rules)?.leak();
            let error = crate::position::Position::from_fen(v, &v.start_fen)
                .err()
                .map(|e| VariantError::bad("start", format!("start position: {e}")));
            loaded.push((v, error.clone()));
            (v, error)
        }
    };
    match error {
        None => Ok(v),
        Some(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loading_equal_rules_twice_gives_the_same_variant() {
        let mut r = crate::variants::gardner::rules();
        r.name = "gardner-copy".into();
        let a = load(r.clone()).expect("valid");
        let b = load(r.clone()).expect("valid");
        assert!(std::ptr::eq(a, b));
        r.start_fen = "5/5/5/5/5 w - - 0 1".into();
        let e1 = load(r.clone()).expect_err("no kings");
        let e2 = load(r).expect_err("no kings");
        assert_eq!(e1, e2);
    }
}
