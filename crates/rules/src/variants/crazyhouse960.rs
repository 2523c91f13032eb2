//! Crazyhouse960: crazyhouse (captures go to the capturer's hand, drops) from one of the 960
//! Chess960 back-rank setups, castling as in Chess960 (the king onto its rook's square in UCI).

use crate::variant::{Castling, Rules};

/// The rules of crazyhouse960 (the orthodox setup, number 518; a FEN chooses another).
pub fn rules() -> Rules {
    let mut r = super::crazyhouse::rules();
    r.name = "crazyhouse960".into();
    r.summary = "crazyhouse from one of the 960 Chess960 setups, castling as in Chess960".into();
    r.castling = Some(Castling::chess960(4, [7, 0]));
    r
}
