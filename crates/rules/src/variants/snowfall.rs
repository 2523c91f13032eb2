//! SnowFall chess (`seeds/snowfall-chess.txt`, RULINGS § SnowFall): chess with hands and drops
//! where, after every move, a gift event with the game's SnowFall % may put pieces in both hands.
//!
//! The percentage belongs to the game, so each one is its own variant ([`variant`]); the one
//! listed as `snowfall` uses 17 %, the seed's worked example. Gifts themselves live in `gift.rs`.

use crate::chance::ChanceRule;
use crate::variant::{InsufficientMaterial, Rules, Variant};
use std::sync::{Mutex, OnceLock};

/// The SnowFall percentages a game draws from (uniformly, at its start).
pub const PERCENTS: std::ops::RangeInclusive<u8> = 10..=24;
/// The percentage of the listed `snowfall` variant: the seed's mate example uses 17.
pub const DEFAULT_PERCENT: u8 = 17;

/// A game's SnowFall percentage, drawn uniformly from [`PERCENTS`] as the game starts
/// (RULINGS § SnowFall 1).
pub fn draw_percent<R: rand::RngCore + ?Sized>(rng: &mut R) -> u8 {
    let span = u128::from(PERCENTS.end() - PERCENTS.start() + 1);
    PERCENTS.start() + crate::chance::uniform_below(rng, span) as u8
}

/// The rules of SnowFall chess with a gift probability of `percent` % (clamped to 100).
pub fn rules(percent: u8) -> Rules {
    let mut r = super::chess::rules();
    r.name = "snowfall".into();
    r.summary =
        "chess where after every move, with the game's SnowFall %, both players may receive gift pieces to drop".into();
    r.start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1".into();
    r.drops = true;
    r.captures_to_hand = false;
    // Gifts can always still arrive, so material is never insufficient.
    r.draws.insufficient = InsufficientMaterial::Never;
    r.chance = ChanceRule::Gifts { percent: percent.min(100) };
    r
}

/// SnowFall chess with `percent` % gift events (clamped to 100), built once per percentage.
pub fn variant(percent: u8) -> &'static Variant {
    let percent = percent.min(100);
    if percent == DEFAULT_PERCENT {
        if let Some(v) = super::by_name("snowfall") {
            return v;
        }
    }
    static BUILT: OnceLock<Mutex<Vec<Option<&'static Variant>>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(vec![None; 101]));
    let mut built = built.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    built[usize::from(percent)].get_or_insert_with(|| match crate::variant::load(rules(percent)) {
        Ok(v) => v,
        Err(e) => unreachable!("SnowFall rules are valid: {e}"),
    })
}

/// The SnowFall percentage of a variant (`None` outside SnowFall).
pub fn percent(v: &Variant) -> Option<u8> {
    match v.chance {
        ChanceRule::Gifts { percent } => Some(percent),
        _ => None,
    }
}
