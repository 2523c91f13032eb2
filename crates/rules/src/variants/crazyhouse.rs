//! Crazyhouse as lichess plays it: captured pieces change sides into the capturer's hand
//! (promoted pieces as pawns) and may be dropped instead of moving; pawns not on the back ranks.

use crate::variant::{InsufficientMaterial, Rules};

/// The rules of crazyhouse.
pub fn rules() -> Rules {
    let mut r = super::chess::rules();
    r.name = "crazyhouse".into();
    r.summary = "chess where captured pieces go to the capturer's hand and may be dropped (lichess rules)".into();
    r.start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1".into();
    r.drops = true;
    r.captures_to_hand = true;
    r.draws.insufficient = InsufficientMaterial::Crazyhouse;
    r
}
