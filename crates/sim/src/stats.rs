//! Statistics of a simulation: proportions with Wilson score intervals, means of integer
//! samples with Student-t intervals, exact mergeable accumulators and run counts for a half-width.
//!
//! Every accumulator holds integers only (counts, sums, sums of squares), so merging shards
//! or parallel chunks is exact, associative and commutative: a result never depends on how
//! the games were split. Floating point appears only when an estimate is read off.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The confidence level of every interval a result reports.
pub const CONFIDENCE: f64 = 0.95;

/// The two-sided 95 % normal quantile, Φ⁻¹(0.975).
pub const Z95: f64 = 1.959_963_984_540_054;

/// Degrees of freedom from which [`t_for_confidence`] uses the asymptotic expansion instead
/// of statrs: statrs inverts the regularised incomplete beta function, which loses accuracy
/// past about 10⁴ degrees of freedom (1.95985 instead of 1.95997 at 10⁶, 1.83 at 10⁷) and
/// does not return at 10⁸. Both agree to 10⁻¹² between 200 and 10⁴.
const T_EXPANSION_FROM: u64 = 1000;

/// The two-sided normal quantile for a confidence level in (0, 1), e.g. 0.99 → 2.5758.
///
/// ```
/// let z = sim::stats::z_for_confidence(0.95).unwrap();
/// assert!((z - sim::stats::Z95).abs() < 1e-9);
/// ```
pub fn z_for_confidence(level: f64) -> Option<f64> {
    if !(level > 0.0 && level < 1.0) {
        return None;
    }
    let normal = Normal::standard();
    Some(normal.inverse_cdf(0.5 + level / 2.0))
}

/// The two-sided Student-t quantile with `df` degrees of freedom for a confidence level in
/// (0, 1): the `t` with P(|T| ≤ t) = `level`, e.g. 12.706 for one degree of freedom at 95 %,
/// 2.776 for four. `None` without degrees of freedom or for a level outside (0, 1).
///
/// Below 1,000 degrees of freedom statrs' `StudentsT::inverse_cdf`; from there the
/// Cornish–Fisher expansion in powers of 1/df to the fourth (Abramowitz and Stegun 1964,
/// 26.7.5), whose error there is below 10⁻¹².
///
/// ```
/// let t = sim::stats::t_for_confidence(0.95, 1).unwrap();
/// assert!((t - 12.706_204_736).abs() < 1e-8);
/// assert!(sim::stats::t_for_confidence(0.95, 0).is_none());
/// ```
pub fn t_for_confidence(level: f64, df: u64) -> Option<f64> {
    let z = z_for_confidence(level)?;
    if df == 0 {
        return None;
    }
    if df < T_EXPANSION_FROM {
        let t = StudentsT::new(0.0, 1.0, df as f64).ok()?;
        return Some(t.inverse_cdf(0.5 + level / 2.0));
    }
    let (v, z2) = (df as f64, z * z);
    let g1 = (z2 + 1.0) * z / 4.0;
    let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    let g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    Some(z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v)
}

/// A closed interval `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Interval {
    /// Half the width.
    pub fn half_width(&self) -> f64 {
        (self.hi - self.lo) / 2.0
    }
}

/// A count of successes among trials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proportion {
    /// Successes.
    pub successes: u64,
    /// Trials.
    pub trials: u64,
}

impl Proportion {
    /// `successes` of `trials`.
    pub fn new(successes: u64, trials: u64) -> Proportion {
        Proportion { successes, trials }
    }

    /// Adds one trial.
    #[inline]
    pub fn push(&mut self, success: bool) {
        self.trials += 1;
        self.successes += u64::from(success);
    }

    /// The union of two samples (exact).
    pub fn merge(&mut self, other: &Proportion) {
        self.successes += other.successes;
        self.trials += other.trials;
    }

    /// The point estimate `successes / trials` (0 without trials).
    pub fn estimate(&self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            self.successes as f64 / self.trials as f64
        }
    }

    /// The Wilson score interval for quantile `z` (Wilson 1927; Newcombe 1998, method 3).
    /// Without trials, the whole of `[0, 1]`.
    ///
    /// ```
    /// use sim::stats::{Proportion, Z95};
    /// // Newcombe (1998), Table II, example (a): 81/263 → 0.2553 to 0.3662.
    /// let i = Proportion::new(81, 263).wilson(Z95);
    /// assert_eq!((format!("{:.4}", i.lo), format!("{:.4}", i.hi)), ("0.2553".into(), "0.3662".into()));
    /// ```
    pub fn wilson(&self, z: f64) -> Interval {
        wilson_interval(self.estimate(), self.trials as f64, z)
    }

    /// The 95 % Wilson interval.
    pub fn wilson95(&self) -> Interval {
        self.wilson(Z95)
    }

    /// Trials needed for a normal-approximation half-width `h` whatever the proportion
    /// (p = 1/2): ⌈z²/(4h²)⌉. 9604 for h = 0.01 at 95 %.
    pub fn required_trials_worst_case(h: f64, z: f64) -> u64 {
        required(z * z * 0.25 / (h * h))
    }

    /// Trials needed for half-width `h` at the current estimate p̂: ⌈z²·p̂(1−p̂)/h²⌉
    /// (at least 1). With p̂ at 0 or 1 (no success, or no failure, yet) that would be 0, which
    /// says nothing: the planning value is then the end of the Wilson interval nearer 1/2 (without
    /// trials, 1/2 itself: the worst case).
    pub fn required_trials(&self, h: f64, z: f64) -> u64 {
        let p = match self.successes {
            _ if self.trials == 0 => 0.5,
            0 => self.wilson(z).hi,
            s if s == self.trials => self.wilson(z).lo,
            _ => self.estimate(),
        };
        required(z * z * p * (1.0 - p) / (h * h)).max(1)
    }
}

/// Exact running moments of non-negative integer samples (game lengths): count, sum and
/// sum of squares in 128-bit integers, which cannot overflow for any realistic run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moments {
    /// Number of samples.
    pub n: u64,
    /// Sum of the samples.
    #[serde(with = "u128_text")]
    pub sum: u128,
    /// Sum of their squares.
    #[serde(with = "u128_text")]
    pub sum_sq: u128,
}

impl Moments {
    /// Adds one sample.
    #[inline]
    pub fn push(&mut self, x: u64) {
        self.n += 1;
        self.sum += u128::from(x);
        self.sum_sq += u128::from(x) * u128::from(x);
    }

    /// The union of two samples (exact), or `None` if a sum would overflow.
    pub fn checked_merge(&self, other: &Moments) -> Option<Moments> {
        Some(Moments {
            n: self.n.checked_add(other.n)?,
            sum: self.sum.checked_add(other.sum)?,
            sum_sq: self.sum_sq.checked_add(other.sum_sq)?,
        })
    }

    /// The sample mean (0 without samples).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// The sample variance with divisor n − 1 (0 with fewer than two samples). The
    /// numerator n·Σx² − (Σx)² is computed exactly in integers, so there is no cancellation
    /// (in floating point where the integers would overflow, which no run of games reaches).
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = u128::from(self.n);
        let exact = n.checked_mul(self.sum_sq).zip(self.sum.checked_mul(self.sum)).map(|(a, b)| a.saturating_sub(b));
        let num = match exact {
            Some(num) => num as f64,
            None => (n as f64 * self.sum_sq as f64 - (self.sum as f64).powi(2)).max(0.0),
        };
        num / (n as f64 * (n - 1) as f64)
    }

    /// The sample standard deviation.
    pub fn sd(&self) -> f64 {
        self.variance().sqrt()
    }

    /// The Student-t interval mean ± t·sd/√n at confidence `level` (t with n − 1 degrees of
    /// freedom, [`t_for_confidence`]); `None` with fewer than two samples. The normal quantile
    /// instead of t would cover too little for few samples (at n = 2: ±1.96 instead of
    /// ±12.71 standard errors).
    ///
    /// ```
    /// use sim::stats::Moments;
    /// let mut m = Moments::default();
    /// for x in [2, 4, 4, 4, 5, 5, 7, 9] { m.push(x); }
    /// assert_eq!(m.mean(), 5.0);
    /// assert!((m.variance() - 32.0 / 7.0).abs() < 1e-12);
    /// let i = m.t_interval(0.95).unwrap();
    /// // t with 7 degrees of freedom is 2.365: 5 ± 2.365·√(32/7)/√8.
    /// assert_eq!((format!("{:.3}", i.lo), format!("{:.3}", i.hi)), ("3.213".into(), "6.787".into()));
    /// ```
    pub fn t_interval(&self, level: f64) -> Option<Interval> {
        let t = t_for_confidence(level, self.n.checked_sub(1)?)?;
        let h = t * self.sd() / (self.n as f64).sqrt();
        Some(Interval { lo: self.mean() - h, hi: self.mean() + h })
    }

    /// The half-width t·sd/√n at confidence `level` (infinite with fewer than two samples).
    pub fn t_half_width(&self, level: f64) -> f64 {
        self.t_interval(level).map_or(f64::INFINITY, |i| i.half_width())
    }

    /// Samples needed for a Student-t half-width of at most `h` at confidence `level`, were the
    /// standard deviation to stay what it is: the smallest n ≥ 2 with t(n − 1)·sd/√n ≤ h. That
    /// is the normal-quantile count ⌈(z·sd/h)²⌉ plus a few (about (z² + 1)/2 for many samples,
    /// more for few: t > z). `u64::MAX` for a level outside (0, 1) or an infinite count.
    pub fn t_required_samples(&self, h: f64, level: f64) -> u64 {
        let Some(z) = z_for_confidence(level) else { return u64::MAX };
        let sd = self.sd();
        let enough = |n: u64| t_for_confidence(level, n - 1).is_some_and(|t| t * sd / (n as f64).sqrt() <= h);
        // Step 1. The normal count is a lower bound (t > z); past 2⁵³ the difference is lost in
        // rounding anyway.
        let lo = required((z * sd / h).powi(2)).max(2);
        if lo >= 1 << 53 || enough(lo) {
            return lo;
        }
        // Step 2. Double until enough, then bisect: `enough` is monotone in n.
        let (mut bad, mut good) = (lo, lo.saturating_mul(2));
        while !enough(good) {
            if good == u64::MAX {
                return u64::MAX;
            }
            bad = good;
            good = good.saturating_mul(2);
        }
        while good - bad > 1 {
            let mid = bad + (good - bad) / 2;
            if enough(mid) {
                good = mid;
            } else {
                bad = mid;
            }
        }
        good
    }
}

/// ⌈x⌉ as a count, saturating; a tiny tolerance keeps 9604.000000001 at 9604.
fn required(x: f64) -> u64 {
    if !x.is_finite() {
        return u64::MAX;
    }
    let r = (x - 1e-9).ceil();
    if r <= 0.0 {
        0
    } else if r >= u64::MAX as f64 {
        u64::MAX
    } else {
        r as u64
    }
}

/// 128-bit integers as decimal strings in JSON (JSON numbers lose precision past 2⁵³).
mod u128_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&x.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The Wilson score interval of a fraction `p` observed over `n` trials, at quantile `z`
/// ([`Proportion::wilson`]); `p` may be a score with draws counted as half a point (points
/// over games), where the normal approximation collapses for small samples (one drawn game:
/// `[5.5 %, 94.5 %]`, not `[50 %, 50 %]`). Without trials, the whole of `[0, 1]`.
///
/// ```
/// let i = sim::stats::wilson_interval(0.5, 1.0, sim::stats::Z95);
/// assert_eq!((format!("{:.3}", i.lo), format!("{:.3}", i.hi)), ("0.055".into(), "0.945".into()));
/// ```
pub fn wilson_interval(p: f64, n: f64, z: f64) -> Interval {
    if n <= 0.0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let spread = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // Exact ends at 0 and 1 (the formula reaches them only up to rounding).
    let lo = if p <= 0.0 { 0.0 } else { (centre - spread).max(0.0) };
    let hi = if p >= 1.0 { 1.0 } else { (centre + spread).min(1.0) };
    Interval { lo, hi }
}

/// The 95 % interval of the chance that a player chosen at random (either side with
/// probability 1/2) did something, from `n` games in which the first player did it in
/// `first`, the second in `second` and at least one of them in `either`.
///
/// The two players of one game are not independent trials (in Baby Chess, games where one
/// side promotes are long ones, where the other promotes too), so the `2n` players are not
/// `2n` Bernoulli trials. The estimate is the mean of the per-game scores
/// `x = (did₁ + did₂)/2`, and the interval is Wilson's with the effective number of trials
/// `n·p̂(1−p̂)/s²` (Kish's design effect; `s²` the sample variance of `x`), which is `2n` for
/// independent players and `n` for players who always agree. Without variance (`p̂` 0 or 1),
/// the cautious `n`.
///
/// ```
/// use sim::stats::paired_wilson95;
/// // Independent-looking counts: 2n effective trials, the plain Wilson interval of 2n.
/// let i = paired_wilson95(200, 200, 360, 1000);
/// let plain = sim::stats::Proportion::new(400, 2000).wilson95();
/// assert!((i.lo - plain.lo).abs() < 2e-4 && (i.hi - plain.hi).abs() < 2e-4);
/// // Players who always agree: the n games are the trials.
/// let same = paired_wilson95(250, 250, 250, 1000);
/// let games = sim::stats::Proportion::new(250, 1000).wilson95();
/// assert!((same.lo - games.lo).abs() < 1e-12 && (same.hi - games.hi).abs() < 1e-12);
/// ```
pub fn paired_wilson95(first: u64, second: u64, either: u64, n: u64) -> Interval {
    match paired_estimate(first, second, either, n) {
        Some((p, effective)) => wilson_interval(p, effective, Z95),
        None => Interval { lo: 0.0, hi: 1.0 },
    }
}

/// Games needed for a half-width `h` (normal quantile `z`) on the random-player proportion
/// of [`paired_wilson95`]: the players needed at its estimate, z²·p̂(1−p̂)/h², divided by the
/// effective trials per game (between 1 and 2) the games so far showed. With p̂ at 0 or 1 the
/// planning value is the end of its interval nearer 1/2, at the cautious one trial per game;
/// without games, the worst case p = 1/2 at one trial per game.
///
/// ```
/// use sim::stats::{paired_required_games, Proportion, Z95};
/// // Players who always agree: as many games as a proportion of games needs.
/// let same = paired_required_games(250, 250, 250, 1000, 0.01, Z95);
/// assert_eq!(same, Proportion::new(250, 1000).required_trials(0.01, Z95));
/// assert_eq!(paired_required_games(0, 0, 0, 0, 0.01, Z95), 9604);
/// ```
pub fn paired_required_games(first: u64, second: u64, either: u64, n: u64, h: f64, z: f64) -> u64 {
    let Some((p, effective)) = paired_estimate(first, second, either, n) else {
        return Proportion::required_trials_worst_case(h, z);
    };
    let (p, per_game) = if p <= 0.0 || p >= 1.0 {
        let i = wilson_interval(p, n as f64, z);
        (if p <= 0.0 { i.hi } else { i.lo }, 1.0)
    } else {
        (p, effective / n as f64)
    };
    required(z * z * p * (1.0 - p) / (h * h) / per_game).max(1)
}

/// The random-player estimate p̂ and the effective number of trials of [`paired_wilson95`]
/// (`None` without games). Sums in floating point: the counts come from files too.
fn paired_estimate(first: u64, second: u64, either: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let (first, second, either) = (first as f64, second as f64, either as f64);
    let both = (first + second - either).max(0.0);
    let one = either - both;
    let p = (first + second) / (2.0 * nf);
    // Σx² = both·1 + one·¼; s² = (Σx² − n·p̂²)/(n − 1).
    let sum_sq = both + one / 4.0;
    let s2 = if n > 1 { ((sum_sq - nf * p * p) / (nf - 1.0)).max(0.0) } else { 0.0 };
    let effective = if s2 > 0.0 { (nf * p * (1.0 - p) / s2).clamp(nf, 2.0 * nf) } else { nf };
    Some((p, effective))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_is_exact() {
        let mut a = Moments::default();
        let mut b = Moments::default();
        let mut all = Moments::default();
        for x in 0..100u64 {
            if x % 3 == 0 {
                a.push(x * x);
            } else {
                b.push(x * x);
            }
            all.push(x * x);
        }
        assert_eq!(a.checked_merge(&b), Some(all));
        let full = Moments { n: u64::MAX, sum: 1, sum_sq: 1 };
        assert_eq!(full.checked_merge(&a), None, "an overflow is refused, not wrapped");
    }

    #[test]
    fn required_rounds_up() {
        assert_eq!(required(3.0), 3);
        assert_eq!(required(3.2), 4);
        assert_eq!(required(f64::INFINITY), u64::MAX);
    }
}
