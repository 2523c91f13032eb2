//! Interval and run-count formulas against published reference values.

use sim::stats::{t_for_confidence, z_for_confidence, Moments, Proportion, CONFIDENCE, Z95};

/// Newcombe, R. G. (1998). Two-sided confidence intervals for the single proportion:
/// comparison of seven methods. Statistics in Medicine 17, 857–872, Table I, method 3
/// (Wilson score interval without continuity correction), 95 %.
const NEWCOMBE_1998_WILSON: [(u64, u64, f64, f64); 4] =
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)];

#[test]
fn wilson_intervals_match_newcombe_1998() {
    for (x, n, lo, hi) in NEWCOMBE_1998_WILSON {
        let i = Proportion::new(x, n).wilson(Z95);
        assert!((i.lo - lo).abs() < 0.00005 && (i.hi - hi).abs() < 0.00005, "{x}/{n}: {i:?}, expected {lo}..{hi}");
    }
}

#[test]
fn wilson_interval_ends_and_symmetry() {
    let all = Proportion::new(20, 20).wilson95();
    assert_eq!(all.hi, 1.0);
    let none = Proportion::new(0, 20).wilson95();
    assert_eq!(none.lo, 0.0);
    // x/n and (n−x)/n are mirror images.
    let a = Proportion::new(12, 20).wilson95();
    let b = Proportion::new(8, 20).wilson95();
    assert!((a.lo - (1.0 - b.hi)).abs() < 1e-12 && (a.hi - (1.0 - b.lo)).abs() < 1e-12);
    assert_eq!(Proportion::new(0, 0).wilson95().half_width(), 0.5);
}

/// Standard normal quantiles (Abramowitz and Stegun 1964, Table 26.5; any statistics table).
#[test]
fn normal_quantiles() {
    for (level, z) in [(0.90, 1.644_853_626_951_472_2), (0.95, 1.959_963_984_540_054), (0.99, 2.575_829_303_548_900_4)]
    {
        let got = z_for_confidence(level).expect("a level in (0, 1)");
        assert!((got - z).abs() < 1e-8, "{level}: {got}");
    }
    assert!(z_for_confidence(1.0).is_none());
    assert!(z_for_confidence(0.0).is_none());
}

/// The sample sizes for a proportion's margin of error every survey text quotes
/// (n = z²·p(1−p)/h² with p = 1/2, z = 1.96): ±1 % → 9604, ±3 % → 1068, ±5 % → 385.
#[test]
fn required_games_for_a_proportion() {
    assert_eq!(Proportion::required_trials_worst_case(0.01, Z95), 9604);
    assert_eq!(Proportion::required_trials_worst_case(0.03, Z95), 1068);
    assert_eq!(Proportion::required_trials_worst_case(0.05, Z95), 385);
    // From an estimate: p̂ = 0.2 needs 0.16/0.25 of the worst case.
    assert_eq!(Proportion::new(200, 1000).required_trials(0.01, Z95), 6147);
    // No success yet: planned at the Wilson interval's upper end (0.0038 after 1000 trials),
    // not at p̂ = 0, which would say one trial is enough.
    let none = Proportion::new(0, 1000);
    let hi = none.wilson(Z95).hi;
    let expected = (Z95 * Z95 * hi * (1.0 - hi) / 1e-4).ceil() as u64;
    assert_eq!(none.required_trials(0.01, Z95), expected);
    assert!(expected > 100, "{expected}");
    assert_eq!(Proportion::new(1000, 1000).required_trials(0.01, Z95), expected, "mirror image");
    assert_eq!(Proportion::new(0, 0).required_trials(0.01, Z95), 9604, "no trials: the worst case");
}

/// Two-sided 95 % Student-t quantiles (Fisher and Yates' tables; any statistics text; to 12
/// digits from scipy.stats.t.ppf(0.975, df)), on both sides of the switch from statrs to the
/// asymptotic expansion at 1,000 degrees of freedom and far beyond (where statrs fails).
#[test]
fn student_t_quantiles_match_tables() {
    for (df, t) in [
        (1, 12.706_204_736_174_7),
        (2, 4.302_652_729_749_46),
        (4, 2.776_445_105_197_79),
        (7, 2.364_624_251_592_78),
        (9, 2.262_157_162_798_2),
        (29, 2.045_229_642_132_7),
        (120, 1.979_930_405_082_44),
        (999, 1.962_341_461_133_45),
        (1000, 1.962_339_080_826_41),
        (1_000_000, 1.959_966_356_814_11),
    ] {
        let got = t_for_confidence(0.95, df).expect("a quantile");
        assert!((got - t).abs() < 1e-9, "{df} degrees of freedom: {got}, expected {t}");
    }
    // Towards the normal quantile, never below it.
    let huge = t_for_confidence(0.95, u64::MAX).expect("a quantile");
    assert!((huge - Z95).abs() < 1e-12, "{huge}");
    assert!(t_for_confidence(0.95, 0).is_none());
    assert!(t_for_confidence(1.0, 5).is_none());
}

/// A mean's interval uses t with n − 1 degrees of freedom: with 2 samples ±12.706 standard
/// errors, with 5 samples ±2.776, not ±1.96 (which covered 85 % instead of 95 % in the audit
/// at 30 games). The audit's case: two White wins of 31 and 37 plies (mean 34, sd 4.243) give
/// [−4.12, 72.12], not [28.12, 39.88]; one sample gives no interval.
#[test]
fn mean_intervals_use_student_t() {
    let moments = |xs: &[u64]| {
        let mut m = Moments::default();
        for &x in xs {
            m.push(x);
        }
        m
    };
    for (xs, t) in [(&[31u64, 37][..], 12.706_204_736), (&[3, 7, 8, 10, 12][..], 2.776_445_105)] {
        let m = moments(xs);
        let i = m.t_interval(CONFIDENCE).expect("two or more samples");
        let h = t * m.sd() / (xs.len() as f64).sqrt();
        assert!((i.half_width() - h).abs() < 1e-6, "{xs:?}: half-width {}, expected {h}", i.half_width());
        assert!((m.t_half_width(CONFIDENCE) - h).abs() < 1e-6);
    }
    let audit = moments(&[31, 37]).t_interval(CONFIDENCE).expect("an interval");
    assert_eq!((format!("{:.2}", audit.lo), format!("{:.2}", audit.hi)), ("-4.12".into(), "72.12".into()));
    assert!(moments(&[3]).t_interval(CONFIDENCE).is_none());
    assert!(moments(&[]).t_interval(CONFIDENCE).is_none());
    assert_eq!(moments(&[3]).t_half_width(CONFIDENCE), f64::INFINITY);
}

/// A mean with known moments: 2, 4, 4, 4, 5, 5, 7, 9 (mean 5, sample variance 32/7).
#[test]
fn mean_interval_and_required_samples() {
    let mut m = Moments::default();
    for x in [2, 4, 4, 4, 5, 5, 7, 9] {
        m.push(x);
    }
    assert_eq!(m.mean(), 5.0);
    assert!((m.variance() - 32.0 / 7.0).abs() < 1e-12);
    let i = m.t_interval(CONFIDENCE).expect("two or more samples");
    let h = 2.364_624_251_592_78 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
    assert!((i.lo - (5.0 - h)).abs() < 1e-9 && (i.hi - (5.0 + h)).abs() < 1e-9);
    // The smallest n with t(n − 1)·sd/√n ≤ 0.01, sd² = 32/7: 175,612 (scipy); the normal
    // quantile's (z·sd/h)² = 175,609.6 would say 175,610, two too few for the t interval.
    assert_eq!(m.t_required_samples(0.01, CONFIDENCE), 175_612);
    // Few samples: t matters more. sd = h·√2: the normal count 8 (7.68) is far too few.
    let mut wide = Moments::default();
    for x in [0, 2] {
        wide.push(x);
    }
    let need = wide.t_required_samples(wide.sd() / 2f64.sqrt(), CONFIDENCE);
    let enough = |n: u64| t_for_confidence(0.95, n - 1).expect("t") / (n as f64).sqrt() <= 1.0 / 2f64.sqrt();
    assert!(enough(need) && !enough(need - 1), "{need}");
    assert!(need > 8, "{need}");
    let mut one = Moments::default();
    one.push(3);
    assert!(one.t_interval(CONFIDENCE).is_none());
}

/// The integer accumulator stays exact where floating-point sums of squares would not:
/// a variance of 1/12·(n²−1)-style data far from zero.
#[test]
fn variance_is_exact_far_from_zero() {
    let mut m = Moments::default();
    let base = 1_000_000_000u64;
    for x in 0..1000u64 {
        m.push(base + x);
    }
    // Sample variance of 0..999 is n(n+1)/12 = 1000·1001/12.
    assert!((m.variance() - 1000.0 * 1001.0 / 12.0).abs() < 1e-6, "{}", m.variance());
}

/// The random-player interval covers its 95 %: pairs of players who promote together more
/// often than chance (the audit's Baby Chess correlation of about 0.2, and a strong 0.6) drawn
/// 4,000 times, n = 400 games each. The interval over the 2n players as independent trials,
/// which the report gave before, covers clearly less at the strong correlation.
#[test]
fn the_random_player_interval_covers_its_level_for_correlated_players() {
    use rand::{Rng, SeedableRng};
    use sim::stats::paired_wilson95;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let (p, n, runs) = (0.47, 400u64, 4000);
    for rho in [0.2, 0.6] {
        // P(both) = p² + ρ·p(1−p): White and Black each promote with p.
        let both = p * p + rho * p * (1.0 - p);
        let (mut covered, mut naive) = (0, 0);
        for _ in 0..runs {
            let (mut w, mut b, mut any) = (0, 0, 0);
            for _ in 0..n {
                let u: f64 = rng.gen();
                // both, white only, black only, neither.
                let (dw, db) = if u < both {
                    (1, 1)
                } else if u < p {
                    (1, 0)
                } else if u < 2.0 * p - both {
                    (0, 1)
                } else {
                    (0, 0)
                };
                w += dw;
                b += db;
                any += dw | db;
            }
            let i = paired_wilson95(w, b, any, n);
            covered += u32::from(i.lo <= p && p <= i.hi);
            let plain = Proportion::new(w + b, 2 * n).wilson95();
            naive += u32::from(plain.lo <= p && p <= plain.hi);
        }
        let (coverage, naive) = (f64::from(covered) / runs as f64, f64::from(naive) / runs as f64);
        // 4,000 runs: a 95 % coverage is measured within about ±0.007.
        assert!((0.935..=0.965).contains(&coverage), "ρ = {rho}: coverage {coverage}");
        if rho > 0.5 {
            assert!(naive < 0.90, "ρ = {rho}: the independent-players interval covered {naive}");
        }
    }
}
