//! A test variant for the chance API: chess where every move succeeds with probability 1/2;
//! a failed move moves nothing and passes the turn.

use crate::chance::ChanceRule;
use crate::variant::Rules;

/// The rules of coin-flip chess.
pub fn rules() -> Rules {
    let mut r = super::chess::rules();
    r.name = "coinflip".into();
    r.summary = "test variant: chess where each move succeeds with probability 1/2, else the turn passes".into();
    r.chance = ChanceRule::MoveSuccess { numerator: 1, denominator: 2 };
    r
}
