//! Predictor chess (RULINGS § Predictor chess): the chess board and pieces, played in plies of
//! simultaneous orders; the orders, their resolution and the records live in [`crate::predictor`].

use crate::variant::{Rules, Variant};

/// The rules of Predictor chess: chess's pieces, setup and draws, `simultaneous` set. Only
/// bare kings are insufficient material: a knight or a bishop alone can still win, the enemy
/// king stepping onto a square its move passes (both annihilated, RULINGS 4.3).
pub fn rules() -> Rules {
    let mut r = super::chess::rules();
    r.draws.insufficient = crate::variant::InsufficientMaterial::BareKings;
    r.name = "predictor".into();
    r.summary =
        "Predictor chess: both sides order at once (a primary and a conditional), paths that cross annihilate".into();
    r.simultaneous = true;
    r
}

/// The built-in Predictor chess variant.
pub fn variant() -> &'static Variant {
    match super::by_name("predictor") {
        Some(v) => v,
        None => unreachable!("predictor is a built-in variant"),
    }
}
