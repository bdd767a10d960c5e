//! Special functions behind the tests: the regularised incomplete beta
//! function `I_x(a, b)`, its inverse, Student's t and the normal tails.
//!
//! `statrs` provides `ln Γ` for small arguments and `erfc`/`erfc⁻¹`; the
//! incomplete beta and what is built on it (its inverse, Student's t) stay
//! here. Why not `statrs::function::beta::{beta_reg, inv_beta_reg}` (0.18)?
//! Its `beta_reg` stops the continued fraction after 140 terms, unconverged
//! from `a, b ≈ 2e4` on (`I_½(1e6, 1e6)` comes out 0.4912 instead of ½: the
//! test `statrs_beta_reg_is_inaccurate_for_large_parameters`), and builds
//! the prefactor from `ln Γ(a+b) − ln Γ(a) − ln Γ(b)`, which loses digits
//! from `a, b ≈ 1e5` (3e-7 relative); at 1e7 it gives 0.215 instead of 0.500
//! and at 1e9 a negative number, counts a profile easily reaches when runs
//! are pooled. `inv_beta_reg` and `StudentsT` are built on that `beta_reg`.
//! Here the same continued fraction (Numerical Recipes §6.4, modified
//! Lentz) runs until it converges (it needs `O(√max(a, b))` terms), and the
//! prefactor `x^a (1−x)^b / B(a, b)` uses Stirling's series with `ln_1p`,
//! which keeps the cancelling `a ln x + b ln(1−x) − ln B` terms apart. The
//! inverse is a bracketed Newton iteration on this `I`. When both a and b
//! are at least 1e5, `I` comes from Temme's uniform asymptotic expansion
//! (`temme.rs`) instead, whose cost does not grow with the parameters.

use statrs::function::erf::{erfc, erfc_inv};
use statrs::function::gamma::ln_gamma;

use super::temme::{beta_reg_pair_large, stirling_delta};

/// From here on (both parameters) `I` comes from Temme's uniform asymptotic
/// expansion instead of the continued fraction: accurate to 1e-6 there, and
/// the fraction would need up to `40√max(a, b)` terms.
const LARGE: f64 = 1e5;

#[cfg(test)]
thread_local! {
    /// Terms the continued fraction has run on this thread (tests only).
    pub(crate) static CF_TERMS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// `ln B(a, b)` for `a < 10 ≤ b` without cancelling `ln Γ(b) − ln Γ(a+b)`:
/// `ln Γ(b) − ln Γ(s) = −(b − ½) ln_1p(a/b) − a ln s + a + δ(b) − δ(s)`.
fn ln_beta_small_large(a: f64, b: f64) -> f64 {
    let s = a + b;
    ln_gamma(a) - (b - 0.5) * (a / b).ln_1p() - a * s.ln() + a + stirling_delta(b)
        - stirling_delta(s)
}

/// `ln[x^a y^b / B(a, b)]` with `y = 1 − x` given separately. Only the
/// smaller of x and y is read (it carries the relative precision: with
/// b = 1e8, one ulp of y ≈ 1 would move `b ln y` by 1e-8); the other enters
/// through `ln_1p`.
fn ln_front(a: f64, b: f64, x: f64, y: f64) -> f64 {
    if a >= 10.0 && b >= 10.0 {
        // ln B = (a−½)ln a + (b−½)ln b − (s−½)ln s + ½ln 2π + δa + δb − δs, so
        // ln front = a ln(x/x0) + b ln(y/y0) + ½ ln(ab/s) − ½ ln 2π − δa − δb + δs
        // with x0 = a/s, y0 = b/s; the first two terms via ln_1p of the step
        // x − x0 = y0 − y, which nearly cancel when x is near its mean.
        let s = a + b;
        let (x0, y0) = (a / s, b / s);
        let d = if x <= y { x - x0 } else { y0 - y };
        let t1 = a * (d / x0).ln_1p();
        let t2 = b * (-d / y0).ln_1p();
        t1 + t2 + 0.5 * (a.ln() + b.ln() - s.ln())
            - LN_SQRT_2PI
            - stirling_delta(a)
            - stirling_delta(b)
            + stirling_delta(s)
    } else {
        let ln_b = if a < 10.0 && b >= 10.0 {
            ln_beta_small_large(a, b)
        } else if b < 10.0 && a >= 10.0 {
            ln_beta_small_large(b, a)
        } else {
            ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
        };
        let (ln_x, ln_y) = if x <= y {
            (x.ln(), (-x).ln_1p())
        } else {
            ((-y).ln_1p(), y.ln())
        };
        a * ln_x + b * ln_y - ln_b
    }
}

/// Continued fraction for `I_x(a, b)` (Numerical Recipes `betacf`, modified
/// Lentz), to be used where `x < (a + 1)/(a + b + 2)`.
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const EPS: f64 = 1e-16;
    const TINY: f64 = 1e-300;
    let max_terms = 1000 + (40.0 * a.max(b).sqrt()) as usize;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=max_terms {
        #[cfg(test)]
        CF_TERMS.with(|c| c.set(c.get() + 1));
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { 1.0 / TINY } else { 1.0 / d };
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { 1.0 / TINY } else { 1.0 / d };
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() <= EPS {
            break;
        }
    }
    h
}

/// `(I_x(a, b), 1 − I_x(a, b))` with `y = 1 − x` passed in so that both tails
/// keep full relative precision. `a, b > 0`; `x, y ∈ [0, 1]`.
/// The tail on the near side of the mean comes straight from the continued
/// fraction, `x^a y^b / (a B(a, b)) · cf`; the other is one minus it.
pub(crate) fn beta_reg_pair(a: f64, b: f64, x: f64, y: f64) -> (f64, f64) {
    if x <= 0.0 {
        return (0.0, 1.0);
    }
    if y <= 0.0 {
        return (1.0, 0.0);
    }
    if a.min(b) >= LARGE {
        return beta_reg_pair_large(a, b, x, y);
    }
    beta_reg_pair_cf(a, b, x, y)
}

/// [`beta_reg_pair`] by the continued fraction alone, whatever a and b.
pub(crate) fn beta_reg_pair_cf(a: f64, b: f64, x: f64, y: f64) -> (f64, f64) {
    if x < (a + 1.0) / (a + b + 2.0) {
        let i = (ln_front(a, b, x, y).exp() * beta_cf(a, b, x) / a).clamp(0.0, 1.0);
        (i, 1.0 - i)
    } else {
        let j = (ln_front(b, a, y, x).exp() * beta_cf(b, a, y) / b).clamp(0.0, 1.0);
        (1.0 - j, j)
    }
}

/// Regularised incomplete beta `I_x(a, b) = B(x; a, b) / B(a, b)`.
#[cfg(test)]
pub(crate) fn beta_reg(a: f64, b: f64, x: f64) -> f64 {
    beta_reg_pair(a, b, x, 1.0 - x).0
}

/// Solves `I_x(a, b) = p` for `p ∈ (0, ½]`: Newton's method on
/// `f(x) = I_x(a, b) − p`, `f′(x) = x^(a−1) (1−x)^(b−1) / B(a, b)`, kept
/// inside a bracket that every evaluation narrows; a step that leaves the
/// bracket becomes a bisection. Stops at a relative step of 1e-15.
fn solve_lower(a: f64, b: f64, p: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    // Start from the normal approximation of Beta(a, b), else its mean.
    let s = a + b;
    let mean = a / s;
    let sd = (a * b / (s * s * (s + 1.0))).sqrt();
    let guess = mean - z_quantile_two_sided(2.0 * p) * sd;
    let mut x = if guess > 0.0 && guess < 1.0 {
        guess
    } else {
        mean
    };
    for _ in 0..2000 {
        let y = 1.0 - x;
        let f = beta_reg_pair(a, b, x, y).0 - p;
        if f == 0.0 {
            return x;
        }
        if f < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let slope = (ln_front(a, b, x, y) - x.ln() - y.ln()).exp();
        let newton = x - f / slope;
        let next = if slope.is_finite() && slope > 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - x).abs() <= 1e-15 * x || hi - lo <= 1e-15 * hi {
            return next;
        }
        x = next;
    }
    x
}

/// Inverse regularised incomplete beta: `(x, 1 − x)` with `I_x(a, b) = p`.
/// For `p > ½` the complementary equation `I_(1−x)(b, a) = 1 − p` is solved,
/// so both returned values keep their relative precision where it matters.
pub(crate) fn inv_beta_reg_pair(a: f64, b: f64, p: f64) -> (f64, f64) {
    if p <= 0.0 {
        return (0.0, 1.0);
    }
    if p >= 1.0 {
        return (1.0, 0.0);
    }
    if p <= 0.5 {
        let x = solve_lower(a, b, p);
        (x, 1.0 - x)
    } else {
        let y = solve_lower(b, a, 1.0 - p);
        (1.0 - y, y)
    }
}

/// Two-sided Student-t tail `P(|T| ≥ |t|) = 2·sf_t(|t|; df) = I_w(df/2, ½)`
/// with `w = df / (df + t²)` (Abramowitz & Stegun 26.7.1 / 26.5.27).
pub(crate) fn t_two_sided_p(t: f64, df: f64) -> f64 {
    let t2 = t * t;
    if !t2.is_finite() {
        return 0.0;
    }
    let w = df / (df + t2);
    let one_minus_w = t2 / (df + t2);
    beta_reg_pair(df / 2.0, 0.5, w, one_minus_w)
        .0
        .clamp(0.0, 1.0)
}

/// Student-t quantile `t_(df, 1−α/2)`: from `I_w(df/2, ½) = α`,
/// `t = sqrt(df (1 − w) / w)`.
///
/// Every row of a comparison asks for the same quantile, so the last one
/// computed on this thread is kept (same inputs, same bits: deterministic).
pub(crate) fn t_quantile_two_sided(alpha: f64, df: f64) -> f64 {
    thread_local! {
        static LAST: std::cell::Cell<(u64, u64, f64)> = const { std::cell::Cell::new((0, 0, f64::NAN)) };
    }
    let key = (alpha.to_bits(), df.to_bits());
    let (a, d, v) = LAST.with(|c| c.get());
    if (a, d) == key && !v.is_nan() {
        return v;
    }
    let (w, one_minus_w) = inv_beta_reg_pair(df / 2.0, 0.5, alpha);
    let t = (df * one_minus_w / w).sqrt();
    LAST.with(|c| c.set((key.0, key.1, t)));
    t
}

/// Two-sided normal tail `2Φ(−|z|) = erfc(|z|/√2)`. Not `2 · sf` of statrs'
/// `Normal`: its `sf` is `½ erfc`, which can lose the last bit of a
/// subnormal tail (from |z| ≈ 37.5 on), and the JSON report prints every bit.
pub(crate) fn normal_two_sided_p(z: f64) -> f64 {
    erfc(z.abs() / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// Normal quantile `z_(1−α/2) = √2 · erfc⁻¹(α)`.
pub(crate) fn z_quantile_two_sided(alpha: f64) -> f64 {
    std::f64::consts::SQRT_2 * erfc_inv(alpha)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs()
    }

    /// Reference values from scipy 1.17 (`scipy.special.betainc`).
    #[test]
    fn beta_reg_matches_scipy() {
        let cases = [
            (160.0, 121.0, 0.5, 0.009803363645140664),
            (121.0, 160.0, 0.5, 0.9901966363548593),
            (11.0, 4.0, 0.5, 0.0286865234375),
            (1e3, 1e3 + 1.0, 0.5, 0.5089195055729272),
            (1e5, 1e5 + 1.0, 0.5, 0.5008920609429981),
            (1e7, 1e7 + 1.0, 0.5, 0.5000892062046928),
            (1e9, 1e9 + 1.0, 0.5, 0.5000089206205788),
        ];
        for (a, b, x, want) in cases {
            let got = beta_reg(a, b, x);
            assert!(
                close(got, want, 1e-9),
                "I_{x}({a},{b}) = {got}, want {want}"
            );
        }
        // Far tail of a huge case underflows to 0, never negative or NaN.
        let far = beta_reg(1.1e9, 1e9, 0.5);
        assert!((0.0..1e-300).contains(&far));
        // Closed forms: I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b.
        assert!(close(beta_reg(7.0, 1.0, 0.3), 0.3_f64.powi(7), 1e-13));
        assert!(close(
            beta_reg(1.0, 50.0, 0.01),
            1.0 - 0.99_f64.powi(50),
            1e-13
        ));
    }

    /// statrs 0.18's `beta_reg` is measurably wrong where ours is not (the
    /// reason `beta_reg` is ours). `I_½(a, a) = ½` exactly, by the symmetry
    /// `I_x(a, b) = 1 − I_(1−x)(b, a)`; scipy 1.17.1 agrees
    /// (`scipy.special.betainc(1e6, 1e6, 0.5)` = 0.4999999999999999). At
    /// a = b = 1e6 the continued fraction needs 526 terms; statrs stops at
    /// 140 and returns 0.49121972699639316. The second case is scipy 1.17.1's
    /// `scipy.special.betainc(1e7, 1e7 + 1, 0.5)`.
    #[test]
    fn statrs_beta_reg_is_inaccurate_for_large_parameters() {
        use statrs::function::beta::beta_reg as statrs_beta_reg;
        let cases = [
            (1e6, 1e6, 0.5, 0.5),
            (1e7, 1e7 + 1.0, 0.5, 0.5000892062046928),
        ];
        for (a, b, x, want) in cases {
            let theirs = statrs_beta_reg(a, b, x);
            assert!(
                (theirs - want).abs() > 1e-3,
                "statrs I_{x}({a},{b}) = {theirs} is now within 1e-3 of {want}: \
                 check whether statrs can replace beta_reg"
            );
            // Our continued fraction, run to convergence, to 1e-12; what
            // beta_reg uses at these sizes (Temme's expansion) to 1e-9.
            let fraction = beta_reg_pair_cf(a, b, x, 1.0 - x).0;
            assert!(
                close(fraction, want, 1e-12),
                "I_{x}({a},{b}) = {fraction}, want {want}"
            );
            let ours = beta_reg(a, b, x);
            assert!(
                close(ours, want, 1e-9),
                "I_{x}({a},{b}) = {ours}, want {want}"
            );
        }
    }

    #[test]
    fn inverse_beta_round_trips() {
        for &(a, b) in &[
            (1.0, 5.0),
            (7.0, 1.0),
            (3.0, 12.0),
            (160.0, 121.0),
            (1e6, 1e6),
        ] {
            for &p in &[1e-10, 0.025, 0.5, 0.975, 1.0 - 1e-10] {
                let (x, y) = inv_beta_reg_pair(a, b, p);
                let (i, j) = beta_reg_pair(a, b, x, y);
                let got = if p <= 0.5 { i } else { j };
                let want = if p <= 0.5 { p } else { 1.0 - p };
                assert!(close(got, want, 1e-9), "a={a} b={b} p={p}: {got} vs {want}");
            }
        }
        // scipy.special.betaincinv
        let (x, _) = inv_beta_reg_pair(3.0, 12.0, 1e-10);
        assert!(close(x, 6.501953504822496e-05, 1e-12));
        let (x, _) = inv_beta_reg_pair(1e6, 1e6, 0.025);
        assert!(close(x, 0.49930704833394945, 1e-12));
    }

    #[test]
    fn t_and_normal_quantiles() {
        // t_(4, 0.975) = 2.7764451051977987, z_0.975 = 1.959963984540054
        assert!(close(
            t_quantile_two_sided(0.05, 4.0),
            2.7764451051977987,
            1e-12
        ));
        assert!(close(
            t_quantile_two_sided(0.05, 1.0),
            12.706204736174705,
            1e-12
        ));
        assert!(close(z_quantile_two_sided(0.05), 1.959963984540054, 1e-12));
        // Against statrs' Student t survival function for moderate t.
        use statrs::distribution::{ContinuousCDF, StudentsT};
        if let Ok(dist) = StudentsT::new(0.0, 1.0, 4.0) {
            for &t in &[0.0, 0.5, 1.825, 3.582, 10.0] {
                assert!(close(t_two_sided_p(t, 4.0), 2.0 * dist.sf(t), 1e-10));
            }
        }
        assert_eq!(t_two_sided_p(f64::INFINITY, 4.0), 0.0);
        // statrs' erfc is good to about 5e-12 relative here.
        assert!(close(normal_two_sided_p(-1.959963984540054), 0.05, 1e-10));
    }

    /// At the switch (min(a, b) = 1e5) and above it, the expansion and the
    /// continued fraction (run directly) agree, tails included. Only up to
    /// a ratio of 100 between a and b: beyond it the fraction itself drifts
    /// (3.5e-6 at a = 2e15, b = 1e6, z = −37, where scipy agrees with the
    /// expansion to 1e-9; those cases are in temme.rs's table).
    #[test]
    fn agrees_with_the_continued_fraction_at_the_switch() {
        let mut worst = 0.0_f64;
        for &(a, b) in &[(1e5, 1e5), (1e5, 1.2e5), (3e5, 1e5), (1e5, 1e7), (1e7, 1e5)] {
            let s: f64 = a + b;
            let (m, sd) = (a / s, (a * b / (s * s * (s + 1.0))).sqrt());
            for &z in &[-37.0, -30.0, -5.0, -1.0, 0.0, 0.7, 4.0, 30.0, 37.0] {
                let x = m + z * sd;
                let (i, j) = beta_reg_pair_large(a, b, x, 1.0 - x);
                let (ci, cj) = beta_reg_pair_cf(a, b, x, 1.0 - x);
                worst = worst.max(((i - ci) / ci).abs()).max(((j - cj) / cj).abs());
                assert!(
                    close(i, ci, 1e-6) && close(j, cj, 1e-6),
                    "a={a} b={b} z={z}: ({i:e}, {j:e}) vs fraction ({ci:e}, {cj:e})"
                );
            }
        }
        // Measured: 3.4e-8.
        assert!(worst <= 1e-7, "worst relative difference {worst:e}");
    }

    /// Counts of 1e15 on both sides sit exactly at the mean, where the
    /// continued fraction converges slowest: 813 272 terms (its cap is
    /// 1.3e9 there; at 1e20 the call took seconds). Now none, and at most a
    /// few hundred just below the switch (min(a, b) = 9e4, max 1e15).
    #[test]
    fn huge_counts_take_no_continued_fraction_terms() {
        let terms_of = |x: f64, y: f64, e_new: f64| {
            CF_TERMS.with(|c| c.set(0));
            let p = crate::stats::exact_p(x, y, 1.0, e_new);
            (p, CF_TERMS.with(|c| c.get()))
        };
        let (p, terms) = terms_of(1e15, 1e15, 1.0);
        assert_eq!((p, terms), (1.0, 0));
        // The normal limit of the binomial test of y | x + y at π = ½:
        // P(Y ≥ y) ≈ Φ(−(y − ½ − k/2)/(√k/2)).
        let (x, y) = (1e15, 1e15 + 3e7);
        let (p, terms) = terms_of(x, y, 1.0);
        assert_eq!(terms, 0);
        let z = (y - 0.5 - (x + y) / 2.0) / ((x + y).sqrt() / 2.0);
        let normal = erfc(z / std::f64::consts::SQRT_2);
        assert!(close(p, normal, 1e-6), "p = {p}, normal limit {normal}");
        let (_, terms) = terms_of(1e15, 9e4, 9e-11);
        assert!(terms < 1_000, "{terms} continued fraction terms");
        let (i, j) = beta_reg_pair(1e15 + 3e7, 1e15 + 1.0, 0.5, 0.5);
        assert!((i + j - 1.0).abs() < 1e-15);
    }
}
