//! Distribution functions the version-2 tests need (docs/statistics.md §11):
//! the digamma family (ψ, ψ′, ψ″ and ψ′⁻¹ for the empirical-Bayes prior),
//! the F(1, ν) tail and quantile (the quasi-likelihood F test and its
//! interval), the F(d1, d2) tail and the χ² tail (the robust prior weights).
//! Input: plain numbers; output: plain numbers, NaN-free for valid input.

use super::special::{
    beta_reg_pair, normal_two_sided_p, t_quantile_two_sided, t_two_sided_p, z_quantile_two_sided,
};
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// Bernoulli numbers B2..B16 for the asymptotic series.
const B: [f64; 8] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
];

/// Shift x up by the recurrence until the asymptotic series is accurate
/// (x ≥ 10: the truncated terms are below 1e-16 relative), returning the
/// shifted x and the sum of the recurrence terms `f(x + j)` for j < shift.
fn shift_up(mut x: f64, term: impl Fn(f64) -> f64) -> (f64, f64) {
    let mut acc = 0.0;
    while x < 10.0 {
        acc += term(x);
        x += 1.0;
    }
    (x, acc)
}

/// Digamma `ψ(x) = d/dx ln Γ(x)`, x > 0: `ψ(x) = ψ(x+1) − 1/x`, then
/// `ψ(x) ~ ln x − 1/(2x) − Σ B_2k / (2k x^2k)`.
///
/// Not `statrs::function::gamma::digamma` (0.18, Algorithm AS 103): it is
/// accurate too, but less so near small arguments (against mpmath, ψ(1)
/// 3.3e-15 relative where this is 7.7e-16, ψ(1.5) 4.3e-14 where this is
/// 8.4e-15), and those last digits reach the reports: the moderated prior
/// (`prior_df`, `trend_c`) and the p-values and bounds after it change in
/// their last printed digits (the full-precision JSON and CSV output).
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return if x == f64::INFINITY { x } else { f64::NAN };
    }
    let (x, acc) = shift_up(x, |x| -1.0 / x);
    let x2 = 1.0 / (x * x);
    let mut series = 0.0;
    let mut p = x2;
    for (k, b) in B.iter().enumerate() {
        series += b / (2.0 * (k + 1) as f64) * p;
        p *= x2;
    }
    acc + x.ln() - 0.5 / x - series
}

/// Trigamma `ψ′(x)`, x > 0: `ψ′(x) = ψ′(x+1) + 1/x²`, then
/// `ψ′(x) ~ 1/x + 1/(2x²) + Σ B_2k / x^(2k+1)`.
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return if x == f64::INFINITY { 0.0 } else { f64::NAN };
    }
    let (x, acc) = shift_up(x, |x| 1.0 / (x * x));
    let x2 = 1.0 / (x * x);
    let mut series = 0.0;
    let mut p = x2 / x;
    for b in B {
        series += b * p;
        p *= x2;
    }
    acc + 1.0 / x + 0.5 * x2 + series
}

/// Tetragamma `ψ″(x)`, x > 0: `ψ″(x) = ψ″(x+1) − 2/x³`, then
/// `ψ″(x) ~ −1/x² − 1/x³ − Σ (2k+1) B_2k / x^(2k+2)`.
pub fn tetragamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x.is_infinite() {
        return if x == f64::INFINITY { 0.0 } else { f64::NAN };
    }
    let (x, acc) = shift_up(x, |x| -2.0 / (x * x * x));
    let x2 = 1.0 / (x * x);
    let mut series = 0.0;
    let mut p = x2 * x2;
    for (k, b) in B.iter().enumerate() {
        series += (2.0 * (k + 1) as f64 + 1.0) * b * p;
        p *= x2;
    }
    acc - x2 - x2 / x - series
}

/// Inverse trigamma: the x > 0 with `ψ′(x) = y`, y > 0, by Smyth's Newton
/// iteration (limma's `trigammaInverse`): start at `½ + 1/y`, step
/// `ψ′(x)(1 − ψ′(x)/y)/ψ″(x)`, which converges monotonically; iterated here
/// to full precision. Very large or small y use the asymptotes `1/√y` and
/// `1/y`. Non-positive or NaN y gives NaN.
pub fn trigamma_inverse(y: f64) -> f64 {
    if y.is_nan() || y <= 0.0 {
        return f64::NAN;
    }
    if y > 1e7 {
        return 1.0 / y.sqrt();
    }
    if y < 1e-6 {
        return 1.0 / y;
    }
    let mut x = 0.5 + 1.0 / y;
    for _ in 0..100 {
        let tri = trigamma(x);
        let dif = tri * (1.0 - tri / y) / tetragamma(x);
        x += dif;
        if -dif / x < 1e-15 {
            break;
        }
    }
    x
}

/// `P(F(1, ν) ≥ f)`, ν > 0 or ∞ (then `P(χ²₁ ≥ f)`). F(1, ν) is the square
/// of Student's t on ν degrees of freedom.
pub fn f1_sf(f: f64, nu: f64) -> f64 {
    if f.is_nan() {
        return 1.0;
    }
    let root = f.max(0.0).sqrt();
    if nu.is_infinite() {
        normal_two_sided_p(root)
    } else {
        t_two_sided_p(root, nu)
    }
}

/// The f with `P(F(1, ν) ≥ f) = a`, a ∈ (0, 1): the squared two-sided
/// t (or normal, ν = ∞) quantile.
pub fn f1_upper_quantile(a: f64, nu: f64) -> f64 {
    let q = if nu.is_infinite() {
        z_quantile_two_sided(a)
    } else {
        t_quantile_two_sided(a, nu)
    };
    q * q
}

/// `P(F(d1, d2) ≥ f) = I_w(d2/2, d1/2)` with `w = d2/(d2 + d1 f)`; d2 = ∞
/// gives `P(χ²_d1 ≥ d1 f)` (statrs' χ² survival function, the upper
/// regularised incomplete gamma; an invalid d1 gives NaN).
pub fn f_sf(f: f64, d1: f64, d2: f64) -> f64 {
    if f.is_nan() || f <= 0.0 {
        return 1.0;
    }
    if f.is_infinite() {
        return 0.0;
    }
    if d2.is_infinite() {
        return ChiSquared::new(d1).map_or(f64::NAN, |chi2| chi2.sf(d1 * f).clamp(0.0, 1.0));
    }
    let denom = d2 + d1 * f;
    beta_reg_pair(d2 / 2.0, d1 / 2.0, d2 / denom, d1 * f / denom)
        .0
        .clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs().max(1e-300)
    }

    /// scipy.special.digamma / polygamma(1|2, x).
    #[test]
    fn digamma_family_matches_known_values() {
        let euler = 0.577_215_664_901_532_9;
        assert!(close(digamma(1.0), -euler, 1e-14));
        assert!(close(digamma(0.5), -euler - 2.0 * 2f64.ln(), 1e-14));
        assert!(close(digamma(2.5), 0.7031566406452432, 1e-13));
        assert!(close(digamma(123.4), 4.8113737751162775, 1e-14));
        let pi2 = std::f64::consts::PI.powi(2);
        assert!(close(trigamma(1.0), pi2 / 6.0, 1e-14));
        assert!(close(trigamma(0.5), pi2 / 2.0, 1e-14));
        assert!(close(trigamma(3.7), 0.31003785767003833, 1e-13));
        assert!(close(trigamma(1e4), 1.0000500016666666e-4, 1e-13));
        let zeta3 = 1.202_056_903_159_594_2;
        assert!(close(tetragamma(1.0), -2.0 * zeta3, 1e-13));
        assert!(close(tetragamma(0.5), -14.0 * zeta3, 1e-13));
        assert!(close(tetragamma(7.25), -0.021828952295197733, 1e-12));
    }

    #[test]
    fn trigamma_inverse_round_trips() {
        for &y in &[1e-5, 0.01, 0.3, 1.0, 4.93, 50.0, 1e5] {
            let x = trigamma_inverse(y);
            assert!(close(trigamma(x), y, 1e-12), "y {y}: x {x}");
        }
        assert!(trigamma_inverse(0.0).is_nan());
        assert!(trigamma_inverse(-1.0).is_nan());
    }

    /// scipy.stats.f.sf / f.isf / chi2.sf.
    #[test]
    fn f_tails_and_quantiles() {
        assert!(close(f1_sf(3.0, 4.0), 0.15830242337545788, 1e-12));
        assert!(close(f1_sf(3.0, f64::INFINITY), 0.08326451666355039, 1e-10));
        assert_eq!(f1_sf(0.0, 2.0), 1.0);
        assert!(close(
            f1_upper_quantile(0.05, 4.0),
            7.708647422176786,
            1e-12
        ));
        assert!(close(
            f1_upper_quantile(0.5, 3.0),
            0.5850602740518215,
            1e-12
        ));
        assert!(close(
            f1_upper_quantile(0.05, f64::INFINITY),
            3.841458820694124,
            1e-12
        ));
        assert!(close(f_sf(2.5, 2.0, 4.0), 0.1975308641975309, 1e-12));
        assert!(close(f_sf(0.3, 4.0, 6.5), 0.8686419841619366, 1e-10));
        assert!(close(
            f_sf(2.5, 2.0, f64::INFINITY),
            0.0820849986238988,
            1e-10
        ));
        assert_eq!(f_sf(0.0, 2.0, 4.0), 1.0);
        assert_eq!(f_sf(f64::INFINITY, 2.0, 4.0), 0.0);
    }
}
