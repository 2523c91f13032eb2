//! The built-in variants, each in its own file, and the registry that loads them once.
//! Custom variants come from TOML files through `spec.rs`.

pub mod baby;
pub mod chess;
pub mod chess960;
pub mod coinflip;
pub mod crazyhouse;
pub mod crazyhouse960;
pub mod gardner;
pub mod predictor;
pub mod probabilistic;
pub mod snowfall;

use crate::variant::{Rules, Variant};
use std::sync::OnceLock;

/// The rules of every built-in variant, in listing order.
pub fn builtin_rules() -> Vec<Rules> {
    let mut all = vec![
        chess::rules(),
        chess960::rules(),
        crazyhouse::rules(),
        crazyhouse960::rules(),
        gardner::rules(),
        coinflip::rules(),
        snowfall::rules(snowfall::DEFAULT_PERCENT),
        predictor::rules(),
    ];
    all.extend(baby::BabyOptions::ALL.map(baby::rules));
    all.extend(probabilistic::ProbOptions::listed().into_iter().map(probabilistic::rules));
    all
}

/// All built-in variants, loaded once per process.
pub fn all() -> &'static [&'static Variant] {
    static ALL: OnceLock<Vec<&'static Variant>> = OnceLock::new();
    ALL.get_or_init(|| {
        builtin_rules()
            .into_iter()
            .map(|r| match crate::variant::load(r) {
                Ok(v) => v,
                Err(e) => unreachable!("built-in variant is invalid: {e}"),
            })
            .collect()
    })
}

/// A built-in variant by name (case-insensitive); besides the listed ones, Probabilistic chess
/// with any ply limit (`probabilistic-plies-200`, `-plies-0` for none; see
/// [`probabilistic::ProbOptions::parse`]).
pub fn by_name(name: &str) -> Option<&'static Variant> {
    all()
        .iter()
        .copied()
        .find(|v| v.name.eq_ignore_ascii_case(name))
        .or_else(|| probabilistic::ProbOptions::parse(name).map(probabilistic::variant))
}

/// Baby Chess with its options (`baby`, `baby-gardner`, `baby-double`, `baby-gardner-double`).
///
/// ```
/// use rules::variants::{baby, baby::{BabyOptions, BabySetup}};
/// let v = baby(BabyOptions { setup: BabySetup::Gardner, white_double_step: true });
/// assert_eq!(v.name, "baby-gardner-double");
/// ```
pub fn baby(options: baby::BabyOptions) -> &'static Variant {
    baby::variant(options)
}
