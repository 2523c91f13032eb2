//! Baby Chess (`seeds/baby-chess.txt`, RULINGS § Baby Chess): 5x5, no piece ever moves backwards,
//! each piece may switch files at most five times, promotion to a queen only.
//!
//! The pieces are the orthodox ones cut to their forward and sideways moves (Betza `fsK`, `fsQ`,
//! `fsR`, `fB`, `fhN`, `fmWfcF`); the switch counter lives in each piece's state byte
//! ([`crate::board::SWITCHES`]) and the limit is [`Rules::column_switch_limit`].

use crate::geometry::Geometry;
use crate::movement::{Atom, Movement};
use crate::piece::PieceType;
use crate::variant::{DrawRules, InsufficientMaterial, Rules, Variant};

/// The start position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BabySetup {
    /// Gardner's Baby chess, kings in opposite corners: `kqbnr/ppppp/5/PPPPP/RNBQK` (the default).
    #[default]
    Baby,
    /// Gardner's minichess setup: `rnbqk/ppppp/5/PPPPP/RNBQK`.
    Gardner,
}

/// The options of Baby Chess: the setup and the seed's question 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BabyOptions {
    /// Which start position.
    pub setup: BabySetup,
    /// Question 4: White's pawns on their start rank may advance two squares (Black's never).
    pub white_double_step: bool,
}

impl BabyOptions {
    /// All four combinations, in the order of their names in [`BabyOptions::name`].
    pub const ALL: [BabyOptions; 4] = [
        BabyOptions { setup: BabySetup::Baby, white_double_step: false },
        BabyOptions { setup: BabySetup::Gardner, white_double_step: false },
        BabyOptions { setup: BabySetup::Baby, white_double_step: true },
        BabyOptions { setup: BabySetup::Gardner, white_double_step: true },
    ];

    /// The variant name: `baby`, `baby-gardner`, `baby-double`, `baby-gardner-double`.
    pub const fn name(self) -> &'static str {
        match (self.setup, self.white_double_step) {
            (BabySetup::Baby, false) => "baby",
            (BabySetup::Gardner, false) => "baby-gardner",
            (BabySetup::Baby, true) => "baby-double",
            (BabySetup::Gardner, true) => "baby-gardner-double",
        }
    }
}

/// The column-switch limit of Baby Chess.
pub const SWITCH_LIMIT: u8 = 5;

/// Baby Chess's pieces in FEN order: the orthodox letters, forward and sideways moves only.
pub fn pieces() -> Vec<PieceType> {
    let leaps = |steps: &[(i8, i8)]| Movement::new(steps.iter().map(|&(x, y)| Atom::leap(x, y)));
    let rides = |steps: &[(i8, i8)]| Movement::new(steps.iter().map(|&(x, y)| Atom::ride(x, y)));
    const FS_ORTH: [(i8, i8); 3] = [(0, 1), (1, 0), (-1, 0)];
    const F_DIAG: [(i8, i8); 2] = [(1, 1), (-1, 1)];
    let mut queen = rides(&FS_ORTH);
    queen.extend(&rides(&F_DIAG));
    let p = super::chess::orthodox_piece;
    vec![
        p("pawn", 'p', Movement::pawn(), "fmWfcF"),
        p("knight", 'n', leaps(&[(1, 2), (-1, 2), (2, 1), (-2, 1)]), "fhN"),
        p("bishop", 'b', rides(&F_DIAG), "fB"),
        p("rook", 'r', rides(&FS_ORTH), "fsR"),
        p("queen", 'q', queen, "fsQ"),
        p("king", 'k', leaps(&[(0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1)]), "fsK"),
    ]
}

/// The rules of Baby Chess with these options.
pub fn rules(options: BabyOptions) -> Rules {
    let start = match options.setup {
        BabySetup::Baby => "kqbnr/ppppp/5/PPPPP/RNBQK w - - 0 1",
        BabySetup::Gardner => "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1",
    };
    let setup = match options.setup {
        BabySetup::Baby => "kings in opposite corners",
        BabySetup::Gardner => "Gardner's minichess setup",
    };
    let double = if options.white_double_step { "; White's pawns may double-step from rank 2" } else { "" };
    Rules {
        name: options.name().into(),
        summary: format!(
            "Baby Chess 5x5 ({setup}): no backward moves, at most 5 file changes per piece, promotion to queen{double}"
        ),
        geometry: Geometry::new(5, 5).unwrap_or(Geometry::CHESS),
        pieces: pieces(),
        start_fen: start.into(),
        promotion: vec![super::chess::QUEEN],
        double_step: [options.white_double_step, false],
        en_passant: false,
        castling: None,
        drops: false,
        captures_to_hand: false,
        win: crate::variant::WinCondition::Checkmate,
        self_check: false,
        draws: DrawRules { fifty_move: false, repetition: false, insufficient: InsufficientMaterial::Never },
        chance: crate::chance::ChanceRule::None,
        column_switch_limit: Some(SWITCH_LIMIT),
        ply_limit: None,
        shrink_after: None,
        stuck_passes: false,
        simultaneous: false,
    }
}

/// The Baby Chess variant with these options (loaded once with the built-in variants).
pub fn variant(options: BabyOptions) -> &'static Variant {
    match super::by_name(options.name()) {
        Some(v) => v,
        None => unreachable!("Baby Chess is a built-in variant"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_match_their_betza_sources() {
        for p in pieces() {
            let parsed = crate::betza::parse_betza(&p.source).expect("valid Betza");
            let mut a = parsed.atoms().to_vec();
            let mut b = p.movement.atoms().to_vec();
            let key = |a: &Atom| (a.dx, a.dy, a.range, a.mode as u8);
            a.sort_by_key(key);
            b.sort_by_key(key);
            assert_eq!(a, b, "{}", p.name);
        }
    }

    #[test]
    fn the_four_names_load() {
        for o in BabyOptions::ALL {
            assert_eq!(variant(o).name, o.name());
        }
    }
}
