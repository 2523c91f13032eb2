//! Gardner's minichess on 5x5 as Fairy-Stockfish defines it: the orthodox pieces,
//! no castling, no double step, promotion to knight, bishop, rook or queen.

use crate::geometry::Geometry;
use crate::variant::Rules;

/// The rules of Gardner minichess.
pub fn rules() -> Rules {
    let mut r = super::chess::rules();
    r.name = "gardner".into();
    r.summary = "Martin Gardner's 5x5 minichess: no castling, no double step, promotion to N/B/R/Q".into();
    r.geometry = Geometry::new(5, 5).unwrap_or(Geometry::CHESS);
    r.start_fen = "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1".into();
    r.double_step = [false, false];
    r.en_passant = false;
    r.castling = None;
    r
}
