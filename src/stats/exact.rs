//! Sampling layer: the exact conditional test on pooled counts
//! (statistics.md, "Sampling layer"). Input: pooled counts and exposures of
//! both sides; output: a central two-sided p and a Clopper-Pearson interval
//! of the rate ratio.

use super::special::{beta_reg_pair, inv_beta_reg_pair};

/// Sampling layer: exact conditional binomial test on pooled counts, with
/// Clopper-Pearson CI of the rate ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exact {
    /// Central two-sided p, in [0, 1].
    pub p: f64,
    /// `RR = (y/E_new) / (x/E_old)`: ∞ for a new symbol, 0 for a gone one.
    pub ratio: f64,
    /// Clopper-Pearson interval of the ratio; bounds may be 0 or ∞.
    pub ratio_ci: (f64, f64),
}

/// A count as the tests use it: negative, NaN or infinite becomes 0.
pub(crate) fn clean_count(c: f64) -> f64 {
    if c.is_finite() && c > 0.0 {
        c
    } else {
        0.0
    }
}

pub(crate) fn valid_exposure(e: f64) -> bool {
    e.is_finite() && e > 0.0
}

/// Exact conditional test of `ρ_old = ρ_new` on pooled counts.
///
/// x = pooled OLD count, y = pooled NEW count, e_old/e_new = pooled
/// exposures (Σ N of each side). With `k = x + y` and
/// `π0 = E_new / (E_old + E_new)`, under the null `y | k ~ Binomial(k, π0)`:
///
/// * `P(Y ≥ y) = I_π0(y, k−y+1)` (1 when y = 0),
///   `P(Y ≤ y) = I_(1−π0)(k−y, y+1)` (1 when y = k);
/// * central two-sided `p = min(1, 2·min(P(Y≤y), P(Y≥y)))` (not the
///   "minlike" p of R's `binom.test`; the central one agrees with the
///   Clopper-Pearson interval);
/// * Clopper-Pearson `π_L = B⁻¹(α/2; y, k−y+1)` (0 if y = 0),
///   `π_U = B⁻¹(1−α/2; y+1, k−y)` (1 if y = k), mapped to the ratio by
///   `RR = π/(1−π) · E_old/E_new`.
///
/// `0/0` gives ratio 1, p = 1 and the interval (0, ∞); so does an exposure
/// that is not positive and finite (the caller rejects zero totals before).
/// Negative or non-finite counts count as 0. The run layer's interval and
/// this one are combined (hull) by the caller, not here.
pub fn exact_test(x: f64, y: f64, e_old: f64, e_new: f64, alpha: f64) -> Exact {
    let (cx, cy) = (clean_count(x), clean_count(y));
    let ratio = if cx + cy == 0.0 || !valid_exposure(e_old) || !valid_exposure(e_new) {
        1.0
    } else if cx == 0.0 {
        f64::INFINITY
    } else {
        (cy / e_new) / (cx / e_old)
    };
    Exact {
        p: exact_p(x, y, e_old, e_new),
        ratio,
        ratio_ci: cp_ratio_interval(x, y, e_old, e_new, alpha),
    }
}

/// The central two-sided p of [`exact_test`] alone (no interval).
pub fn exact_p(x: f64, y: f64, e_old: f64, e_new: f64) -> f64 {
    let (x, y) = (clean_count(x), clean_count(y));
    let k = x + y;
    if k == 0.0 || !valid_exposure(e_old) || !valid_exposure(e_new) {
        return 1.0;
    }
    let total = e_old + e_new;
    let (pi0, one_minus_pi0) = (e_new / total, e_old / total);
    let p_ge = if y == 0.0 {
        1.0
    } else {
        beta_reg_pair(y, k - y + 1.0, pi0, one_minus_pi0).0
    };
    let p_le = if x == 0.0 {
        1.0
    } else {
        beta_reg_pair(x, y + 1.0, one_minus_pi0, pi0).0
    };
    (2.0 * p_ge.min(p_le)).clamp(0.0, 1.0)
}

/// The Clopper-Pearson interval of [`exact_test`] alone, at level 1 − alpha,
/// as a rate ratio: `(0, ∞)` for 0/0 or invalid exposures.
pub fn cp_ratio_interval(x: f64, y: f64, e_old: f64, e_new: f64, alpha: f64) -> (f64, f64) {
    let (x, y) = (clean_count(x), clean_count(y));
    if x + y == 0.0 || !valid_exposure(e_old) || !valid_exposure(e_new) {
        return (0.0, f64::INFINITY);
    }
    let scale = e_old / e_new;
    let to_ratio = |(pi, one_minus_pi): (f64, f64)| {
        if one_minus_pi <= 0.0 {
            f64::INFINITY
        } else {
            pi / one_minus_pi * scale
        }
    };
    let lo = if y == 0.0 {
        0.0
    } else {
        to_ratio(inv_beta_reg_pair(y, x + 1.0, alpha / 2.0))
    };
    let hi = if x == 0.0 {
        f64::INFINITY
    } else {
        to_ratio(inv_beta_reg_pair(y + 1.0, x, 1.0 - alpha / 2.0))
    };
    (lo, hi)
}

/// Whether the Clopper-Pearson interval at level 1 − alpha reaches beyond
/// the rate ratios `below` (its lower bound is smaller) and `above` (its
/// upper bound is larger): `P(Y ≥ y | π(below)) > α/2` and
/// `P(Y ≤ y | π(above)) > α/2`, one incomplete beta each, so a caller that
/// only needs the hull with a wider interval skips solving for the bounds.
/// A bound at 0 (y = 0) or ∞ (x = 0) never reaches beyond: false.
pub fn cp_reaches_beyond(
    x: f64,
    y: f64,
    e_old: f64,
    e_new: f64,
    alpha: f64,
    below: f64,
    above: f64,
) -> (bool, bool) {
    let (x, y) = (clean_count(x), clean_count(y));
    if x + y == 0.0 || !valid_exposure(e_old) || !valid_exposure(e_new) {
        return (true, true);
    }
    // π(θ) = θ e_new/(e_old + θ e_new) and 1 − π, each computed directly.
    let pi = |theta: f64| {
        if theta.is_infinite() {
            (1.0, 0.0)
        } else {
            let d = e_old + theta * e_new;
            (theta * e_new / d, e_old / d)
        }
    };
    let half = alpha / 2.0;
    let lower = y > 0.0 && below > 0.0 && {
        let (p, q) = pi(below);
        beta_reg_pair(y, x + 1.0, p, q).0 > half
    };
    let upper = x > 0.0 && above.is_finite() && {
        let (p, q) = pi(above.max(0.0));
        beta_reg_pair(x, y + 1.0, q, p).0 > half
    };
    (lower, upper)
}

/// Smallest reachable two-sided central p for `k` pooled samples:
/// `2·min(π0^k, (1−π0)^k)`, capped at 1 (the p of the most extreme split,
/// all k on one side). With `π0 = ½`, k ≥ 6 is needed to reach p < 0.05.
pub fn min_reachable_p(k: f64, pi0: f64) -> f64 {
    let k = clean_count(k);
    let pi0 = if pi0.is_finite() {
        pi0.clamp(0.0, 1.0)
    } else {
        0.5
    };
    (2.0 * pi0.powf(k).min((1.0 - pi0).powf(k))).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// True when `got` matches `want` to 4 significant digits.
    fn sig4(got: f64, want: f64) -> bool {
        (got - want).abs() <= 5e-4 * want.abs()
    }

    fn check(x: f64, y: f64, p: f64, ratio: f64, lo: f64, hi: f64) {
        let r = exact_test(x, y, 10000.0, 10000.0, 0.05);
        assert!(sig4(r.p, p), "{x}/{y}: p {} vs {p}", r.p);
        assert!(
            r.ratio == ratio || sig4(r.ratio, ratio),
            "{x}/{y}: ratio {}",
            r.ratio
        );
        assert!(
            r.ratio_ci.0 == lo || sig4(r.ratio_ci.0, lo),
            "{x}/{y}: lo {}",
            r.ratio_ci.0
        );
        assert!(
            r.ratio_ci.1 == hi || sig4(r.ratio_ci.1, hi),
            "{x}/{y}: hi {}",
            r.ratio_ci.1
        );
    }

    /// statistics.md, one run per side, exposures 10000 each.
    #[test]
    fn one_run_vectors() {
        check(120.0, 160.0, 0.01961, 1.333, 1.046, 1.704);
        check(3.0, 11.0, 0.05737, 3.667, 0.9686, 20.47);
        check(0.0, 7.0, 0.015625, f64::INFINITY, 1.441, f64::INFINITY);
        check(5.0, 0.0, 0.0625, 0.0, 0.0, 1.091);
    }

    /// The three-runs case pooled: 375 of 30000 vs 480 of 30000.
    #[test]
    fn pooled_three_runs() {
        let r = exact_test(375.0, 480.0, 30000.0, 30000.0, 0.05);
        assert!(sig4(r.p, 0.0003697), "{}", r.p);
        assert!(sig4(r.ratio, 1.280));
        // scipy: CP interval [1.1159, 1.4691], inside the quasi one [1.057, 1.550].
        assert!(sig4(r.ratio_ci.0, 1.1159) && sig4(r.ratio_ci.1, 1.4691));
        // Equal low counts 15 vs 27 (5,5,5 vs 9,9,9).
        let r = exact_test(15.0, 27.0, 30000.0, 30000.0, 0.05);
        assert!(sig4(r.p, 0.08843), "{}", r.p);
    }

    /// The composition example in share mode: A drops from 10% to 5%,
    /// p ≈ 5e-53 (scipy: 2·binom.cdf(1000, 2000, 2/3) = 5.0075e-53,
    /// CP interval [0.4576, 0.5464]).
    #[test]
    fn composition_example_share_mode() {
        let r = exact_test(1000.0, 1000.0, 10000.0, 20000.0, 0.05);
        assert!(sig4(r.p, 5.0075e-53), "{}", r.p);
        assert!(sig4(r.ratio, 0.5));
        assert!(
            sig4(r.ratio_ci.0, 0.4576) && sig4(r.ratio_ci.1, 0.5464),
            "{:?}",
            r.ratio_ci
        );
    }

    #[test]
    fn min_reachable() {
        assert!(min_reachable_p(6.0, 0.5) < 0.05); // 0.03125
        assert!(min_reachable_p(5.0, 0.5) > 0.05); // 0.0625
        assert_eq!(min_reachable_p(0.0, 0.5), 1.0);
        assert!(sig4(min_reachable_p(7.0, 0.5), 0.015625));
    }

    #[test]
    fn edge_cases() {
        let r = exact_test(0.0, 0.0, 10000.0, 10000.0, 0.05);
        assert_eq!(
            r,
            Exact {
                p: 1.0,
                ratio: 1.0,
                ratio_ci: (0.0, f64::INFINITY)
            }
        );
        let r = exact_test(5.0, 5.0, 0.0, 10000.0, 0.05);
        assert_eq!(r.p, 1.0);
        let r = exact_test(f64::NAN, 3.0, 1.0, 1.0, 0.05);
        assert!(r.p.is_finite() && r.ratio == f64::INFINITY);
        // Huge counts: equal rates stay insignificant, a 10% shift underflows.
        let r = exact_test(1e9, 1e9, 1e10, 1e10, 0.05);
        assert!(r.p > 0.9 && r.p <= 1.0, "{}", r.p);
        assert!(r.ratio_ci.0 < 1.0 && r.ratio_ci.1 > 1.0);
        assert!(sig4(
            r.ratio_ci.1,
            (1.959963984540054 * (2.0f64 / 1e9).sqrt()).exp()
        ));
        let r = exact_test(1e9, 1.1e9, 1e10, 1e10, 0.05);
        assert!(r.p >= 0.0 && r.p < 1e-300, "{}", r.p);
        assert!(r.ratio_ci.0 <= 1.1 && 1.1 <= r.ratio_ci.1);
    }

    /// Property-style sweep: p ∈ [0, 1] and lo ≤ ratio ≤ hi everywhere.
    #[test]
    fn sweep_p_in_range_and_ratio_inside_ci() {
        let counts = [
            0.0, 1.0, 2.0, 3.0, 5.0, 9.0, 17.0, 40.0, 100.0, 333.0, 1e4, 2.5e5,
        ];
        for &x in &counts {
            for &y in &counts {
                for &(eo, en) in &[(1e4, 1e4), (3e4, 1e4), (1.0, 7.0)] {
                    let r = exact_test(x, y, eo, en, 0.05);
                    assert!((0.0..=1.0).contains(&r.p), "{x} {y}: p {}", r.p);
                    let (lo, hi) = r.ratio_ci;
                    assert!(
                        lo <= r.ratio && r.ratio <= hi,
                        "{x} {y}: {lo} {} {hi}",
                        r.ratio
                    );
                    // The interval excludes 1 exactly when p < α (both central).
                    if x + y > 0.0 {
                        assert_eq!(lo > 1.0 || hi < 1.0, r.p < 0.05, "{x} {y} {eo} {en}");
                    }
                }
            }
        }
    }
}
