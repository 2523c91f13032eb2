//! SnowFall chess (`seeds/snowfall-chess.txt`, RULINGS § SnowFall): chess with hands and drops
//! where, after every move, a gift event with the game's SnowFall % may put pieces in both hands.
//!
//! The percentage belongs to the game, so each one is its own variant ([`variant`]); the one
//! listed as `snowfall` uses 17 %, the seed's worked example. Gifts themselves live in `gift.rs`.

use crate::chance::ChanceRule;
use crate::variant::{InsufficientMaterial, Rules, Variant, VariantError};
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

/// Variant `v` with `percent` % gift events (clamped to 100): for SnowFall itself
/// [`variant`]`(percent)`, for a variant built on it (a variant file whose parent is `snowfall`)
/// the same rules with that percentage, built once; `v` itself if it has no gifts.
pub fn with_percent(v: &'static Variant, percent: u8) -> Result<&'static Variant, VariantError> {
    let percent = percent.min(100);
    match self::percent(v) {
        None => Ok(v),
        Some(p) if p == percent => Ok(v),
        Some(p) if *v.rules() == rules(p) => Ok(variant(percent)),
        Some(_) => {
            let mut r = v.rules().clone();
            r.chance = ChanceRule::Gifts { percent };
            crate::variant::load(r)
        }
    }
}

/// The SnowFall percentage of a variant (`None` outside SnowFall).
pub fn percent(v: &Variant) -> Option<u8> {
    match v.chance {
        ChanceRule::Gifts { percent } => Some(percent),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SnowFall at another percentage is the built variant of that percentage; a variant built
    /// on SnowFall keeps its own rules with the new percentage; a variant without gifts stays.
    #[test]
    fn a_gift_variant_takes_another_percentage() {
        let sf = variant(DEFAULT_PERCENT);
        assert!(std::ptr::eq(with_percent(sf, 30).expect("built"), variant(30)));
        assert!(std::ptr::eq(with_percent(variant(30), 30).expect("itself"), variant(30)));
        let custom = crate::spec::load_variant_str("name = \"snowy\"\nparent = \"snowfall\"\nsummary = \"x\"\n")
            .expect("a variant file");
        assert_eq!(percent(custom), Some(DEFAULT_PERCENT));
        let hundred = with_percent(custom, 100).expect("built");
        assert_eq!((hundred.name.as_str(), percent(hundred)), ("snowy", Some(100)));
        assert!(std::ptr::eq(with_percent(custom, 100).expect("built"), hundred), "built once");
        let chess = crate::variants::by_name("chess").expect("chess");
        assert!(std::ptr::eq(with_percent(chess, 50).expect("itself"), chess));
    }
}
