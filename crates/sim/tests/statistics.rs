//! Interval and run-count formulas against published reference values.

use sim::stats::{z_for_confidence, Moments, Proportion, Z95};

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

/// A mean with known moments: 2, 4, 4, 4, 5, 5, 7, 9 (mean 5, sample variance 32/7).
#[test]
fn mean_interval_and_required_samples() {
    let mut m = Moments::default();
    for x in [2, 4, 4, 4, 5, 5, 7, 9] {
        m.push(x);
    }
    assert_eq!(m.mean(), 5.0);
    assert!((m.variance() - 32.0 / 7.0).abs() < 1e-12);
    let i = m.interval(Z95).expect("two or more samples");
    let h = Z95 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
    assert!((i.lo - (5.0 - h)).abs() < 1e-12 && (i.hi - (5.0 + h)).abs() < 1e-12);
    // (z·sd/h)² with sd² = 32/7 and h = 0.01: 3.841459 · 4.571429 / 0.0001 = 175,609.6 → 175,610.
    assert_eq!(m.required_samples(0.01, Z95), 175_610);
    let mut one = Moments::default();
    one.push(3);
    assert!(one.interval(Z95).is_none());
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
