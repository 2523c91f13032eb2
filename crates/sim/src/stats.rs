//! Statistics of a simulation: proportions with Wilson score intervals, means of integer
//! samples with normal intervals, exact mergeable accumulators and run counts for a half-width.
//!
//! Every accumulator holds integers only (counts, sums, sums of squares), so merging shards
//! or parallel chunks is exact, associative and commutative: a result never depends on how
//! the games were split. Floating point appears only when an estimate is read off.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// The two-sided 95 % normal quantile, Φ⁻¹(0.975).
pub const Z95: f64 = 1.959_963_984_540_054;

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

    /// The union of two samples (exact).
    pub fn merge(&mut self, other: &Moments) {
        self.n += other.n;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
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
    /// numerator n·Σx² − (Σx)² is computed exactly in integers, so there is no cancellation.
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = u128::from(self.n);
        let num = n * self.sum_sq - self.sum * self.sum;
        num as f64 / (n * (n - 1)) as f64
    }

    /// The sample standard deviation.
    pub fn sd(&self) -> f64 {
        self.variance().sqrt()
    }

    /// The normal-approximation interval mean ± z·sd/√n; `None` with fewer than two samples.
    ///
    /// ```
    /// use sim::stats::{Moments, Z95};
    /// let mut m = Moments::default();
    /// for x in [2, 4, 4, 4, 5, 5, 7, 9] { m.push(x); }
    /// assert_eq!(m.mean(), 5.0);
    /// assert!((m.variance() - 32.0 / 7.0).abs() < 1e-12);
    /// assert!(m.interval(Z95).is_some());
    /// ```
    pub fn interval(&self, z: f64) -> Option<Interval> {
        if self.n < 2 {
            return None;
        }
        let h = z * self.sd() / (self.n as f64).sqrt();
        Some(Interval { lo: self.mean() - h, hi: self.mean() + h })
    }

    /// The half-width z·sd/√n (infinite with fewer than two samples).
    pub fn half_width(&self, z: f64) -> f64 {
        self.interval(z).map_or(f64::INFINITY, |i| i.half_width())
    }

    /// Samples needed for half-width `h` at the current standard deviation: ⌈(z·sd/h)²⌉.
    pub fn required_samples(&self, h: f64, z: f64) -> u64 {
        required((z * self.sd() / h).powi(2)).max(2)
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
    if n == 0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    let nf = n as f64;
    let both = (first + second).saturating_sub(either) as f64;
    let one = either as f64 - both;
    let p = (first + second) as f64 / (2.0 * nf);
    // Σx² = both·1 + one·¼; s² = (Σx² − n·p̂²)/(n − 1).
    let sum_sq = both + one / 4.0;
    let s2 = if n > 1 { ((sum_sq - nf * p * p) / (nf - 1.0)).max(0.0) } else { 0.0 };
    let effective = if s2 > 0.0 { (nf * p * (1.0 - p) / s2).clamp(nf, 2.0 * nf) } else { nf };
    wilson_interval(p, effective, Z95)
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
        a.merge(&b);
        assert_eq!(a, all);
    }

    #[test]
    fn required_rounds_up() {
        assert_eq!(required(3.0), 3);
        assert_eq!(required(3.2), 4);
        assert_eq!(required(f64::INFINITY), u64::MAX);
    }
}
