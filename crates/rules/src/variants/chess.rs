//! Chess by the FIDE Laws: castling, en passant, promotion, 50-move rule,
//! threefold repetition and insufficient material.

use crate::chance::ChanceRule;
use crate::geometry::Geometry;
use crate::movement::Movement;
use crate::piece::{PieceType, Role};
use crate::variant::{Castling, DrawRules, InsufficientMaterial, Rules, WinCondition};

/// The orthodox pieces in FEN/pocket order: pawn, knight, bishop, rook, queen, king.
pub fn orthodox_pieces() -> Vec<PieceType> {
    let p = orthodox_piece;
    vec![
        p("pawn", 'p', Movement::pawn(), "fmWfcF"),
        p("knight", 'n', Movement::knight(), "N"),
        p("bishop", 'b', Movement::bishop(), "B"),
        p("rook", 'r', Movement::rook(), "R"),
        p("queen", 'q', Movement::queen(), "Q"),
        p("king", 'k', Movement::king(), "K"),
    ]
}

/// A piece under its orthodox letter: `k` is royal, `p` the pawn; `source` is its Betza text.
pub(crate) fn orthodox_piece(name: &str, letter: char, movement: Movement, source: &str) -> PieceType {
    PieceType { name: name.into(), letter, movement, royal: letter == 'k', pawn: letter == 'p', source: source.into() }
}

/// Roles of the orthodox piece list.
pub const KNIGHT: Role = Role(1);
/// Bishop.
pub const BISHOP: Role = Role(2);
/// Rook.
pub const ROOK: Role = Role(3);
/// Queen.
pub const QUEEN: Role = Role(4);

/// The rules of chess.
pub fn rules() -> Rules {
    Rules {
        name: "chess".into(),
        summary:
            "FIDE chess: castling, en passant, promotion, 50-move rule, threefold repetition, insufficient material"
                .into(),
        geometry: Geometry::CHESS,
        pieces: orthodox_pieces(),
        start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
        promotion: vec![KNIGHT, BISHOP, ROOK, QUEEN],
        double_step: [true, true],
        en_passant: true,
        castling: Some(Castling::orthodox(8)),
        drops: false,
        captures_to_hand: false,
        win: WinCondition::Checkmate,
        self_check: false,
        draws: DrawRules { fifty_move: true, repetition: true, insufficient: InsufficientMaterial::Fide },
        chance: ChanceRule::None,
        column_switch_limit: None,
        ply_limit: None,
        shrink_after: None,
        stuck_passes: false,
        simultaneous: false,
    }
}
