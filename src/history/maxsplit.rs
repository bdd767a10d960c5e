//! The p of the best split of a segment (docs/statistics.md §14.1): the
//! chance under no change that *some* split's statistic is as extreme as
//! the best one's, from its own p (`p_point`) and the splits' places.
//!
//! The split statistics of one segment are strongly dependent (neighbouring
//! splits share most of their runs), so Bonferroni's `(splits) · p_point`
//! pays far more than the choice costs. Their Gaussian limit is known: with
//! `F_j` the exposure before split j as a share of the segment's, the
//! standardised splits are `Z_j = W(u_j)/√u_j`, `u_j = F_j/(1 − F_j)`, W a
//! Brownian motion (a Brownian bridge over the segment), so neighbours
//! correlate by `ρ_j = √(u_(j−1)/u_j)` and the chain is Markov. Worsley's
//! (1982) improved Bonferroni bound along that chain is
//!
//! ```text
//! p = min(1, P(|Z| ≥ z) + Σ_(j ≥ 2) P(|Z_j| ≥ z, |Z_(j−1)| < z)),   z: P(|Z| ≥ z) = p_point
//! ```
//!
//! an upper bound of `P(max_j |Z_j| ≥ z)` (so never below the exact chance)
//! and never above Bonferroni's. Each term is the one-dimensional integral
//! `2 ∫_z^∞ φ(x) [Φ((z − ρx)/σ) − Φ((−z − ρx)/σ)] dx`, `σ = √(1 − ρ²)`,
//! computed by 48-point Gauss-Legendre over `x = z + s`,
//! `s ∈ [0, min(10, 40/z, (z(1 − ρ) + 8.5σ)/ρ)]` (beyond it the integrand is
//! below 10⁻¹⁷ of its peak). Pure arithmetic in a fixed order.

use statrs::function::erf::{erfc, erfc_inv};
use std::sync::OnceLock;

/// Gauss-Legendre nodes and weights on [0, 1].
const NODES: usize = 48;

fn gauss_legendre() -> &'static [(f64, f64)] {
    static GL: OnceLock<Vec<(f64, f64)>> = OnceLock::new();
    GL.get_or_init(|| {
        let n = NODES;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            // Newton on P_n from Tricomi's first guess.
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=n {
                    let k = k as f64;
                    let p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            let w = 2.0 / ((1.0 - x * x) * dp * dp);
            out.push(((1.0 - x) / 2.0, w / 2.0));
        }
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    })
}

/// `Φ(a)`, accurate in both tails.
fn cdf(a: f64) -> f64 {
    0.5 * erfc(-a / std::f64::consts::SQRT_2)
}

/// `P(|Z_j| ≥ z, |Z_(j−1)| < z)` for standard normals correlated by
/// ρ ∈ [0, 1].
pub fn enter(z: f64, rho: f64) -> f64 {
    let sigma = (1.0 - rho * rho).max(0.0).sqrt();
    if sigma < 1e-12 {
        return 0.0;
    }
    let phi_z = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
    if phi_z == 0.0 {
        return 0.0;
    }
    let reach = (z * (1.0 - rho) + 8.5 * sigma) / rho;
    let span = 10.0f64.min(40.0 / z.max(1e-9)).min(reach);
    let mut sum = 0.0;
    for &(t, w) in gauss_legendre() {
        let s = span * t;
        let x = z + s;
        let decay = (-z * s - 0.5 * s * s).exp();
        let inside = cdf((z - rho * x) / sigma) - cdf((-z - rho * x) / sigma);
        sum += w * decay * inside.max(0.0);
    }
    2.0 * phi_z * span * sum
}

/// The p of the best of the splits at exposure shares `shares` (each in
/// (0, 1), increasing), whose own p is `p_point` (module comment).
pub fn max_p(p_point: f64, shares: &[f64]) -> f64 {
    bound_up_to(p_point, shares, 1.0).min(1.0)
}

/// Whether the bound of [`max_p`] is above `t`: the same answer, its sum
/// stopped once past `t` (every term is a chance, never negative), or not
/// summed when Bonferroni's bound (`splits · p_point`, never below it) is
/// at most `t`.
pub fn max_p_above(p_point: f64, shares: &[f64], t: f64) -> bool {
    // Each term is at most `p_point` (P(|Z_j| ≥ z)): Bonferroni's bound
    // at most t answers without the sum.
    if p_point * shares.len() as f64 <= t {
        return p_point > t;
    }
    bound_up_to(p_point, shares, t) > t
}

/// The bound's sum in its fixed order, stopped as soon as it is above
/// `stop` (then only that is known of it: the terms are never negative).
fn bound_up_to(p_point: f64, shares: &[f64], stop: f64) -> f64 {
    if p_point.is_nan() || p_point <= 0.0 {
        return p_point.max(0.0);
    }
    if p_point >= 1.0 || shares.len() <= 1 {
        return p_point.min(1.0);
    }
    let z = std::f64::consts::SQRT_2 * erfc_inv(p_point);
    let mut p = p_point;
    let mut prev = shares[0] / (1.0 - shares[0]);
    for &f in &shares[1..] {
        if p > stop {
            break;
        }
        let u = f / (1.0 - f);
        p += enter(z, (prev / u).sqrt());
        prev = u;
    }
    p
}

/// The per-split level whose bound is `t` (`max_p(level, shares) = t`, by
/// bisection on log level, 100 steps): an interval at `1 − level` leaves
/// out 0 when the best split's p is at most t.
pub fn level_for(t: f64, shares: &[f64]) -> f64 {
    if t.is_nan() || t <= 0.0 || t >= 1.0 || !max_p_above(t, shares, t) {
        return t;
    }
    let (mut lo, mut hi) = ((t / shares.len().max(1) as f64).ln(), t.ln());
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if max_p_above(mid.exp(), shares, t) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo.exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs()
    }

    /// scipy: 2 * quad(lambda x: norm.pdf(x) * (norm.cdf((z - r*x)/s)
    /// - norm.cdf((-z - r*x)/s)), z, inf, epsabs=0, epsrel=1e-13).
    #[test]
    fn the_chain_term_matches_quadrature() {
        for (z, rho, want) in [
            (2.0, 0.8, 0.025_850_058_665_988_37),
            (3.5, 0.95, 2.101_404_346_295_697e-4),
            (5.0, 0.999, 5.294_390_145_946_1e-8),
            (1.0, 0.3, 0.205_760_721_083_637),
            (8.0, 0.7, 1.243_377_141_753_24e-15),
        ] {
            let got = enter(z, rho);
            assert!(close(got, want, 1e-9), "z {z} rho {rho}: {got} vs {want}");
        }
    }

    #[test]
    fn the_bound_lies_between_one_split_and_bonferroni() {
        let shares: Vec<f64> = (1..12).map(|k| k as f64 / 12.0).collect();
        for p in [1e-12, 1e-6, 1e-3, 0.01, 0.2] {
            let got = max_p(p, &shares);
            assert!(got > p && got < 11.0 * p, "{p}: {got}");
        }
        // Independent-looking splits (far apart) approach Bonferroni; one split is its own p.
        assert_eq!(max_p(0.01, &[0.5]), 0.01);
        assert_eq!(max_p(0.6, &shares), 1.0);
        let far = max_p(1e-4, &[1e-6, 0.5, 1.0 - 1e-6]);
        assert!(far > 2.9e-4 && far <= 3e-4, "{far}");
    }

    #[test]
    fn the_stopped_sum_answers_as_the_whole_one() {
        let even: Vec<f64> = (1..400).map(|k| k as f64 / 400.0).collect();
        let uneven: Vec<f64> = (1..60).map(|k| (k as f64 / 60.0).powi(2)).collect();
        for shares in [&even[..], &uneven[..]] {
            for p in [1e-15, 1e-9, 1e-5, 1e-3, 0.01, 0.04, 0.3] {
                for t in [1e-6, 1e-3, 0.01, 0.05, 0.5] {
                    assert_eq!(max_p_above(p, shares, t), max_p(p, shares) > t, "{p} {t}");
                }
            }
        }
    }

    #[test]
    fn the_level_inverts_the_bound() {
        let shares: Vec<f64> = (1..12).map(|k| k as f64 / 12.0).collect();
        let l = level_for(0.01, &shares);
        assert!(l > 0.01 / 11.0 && l < 0.01, "{l}");
        assert!(close(max_p(l, &shares), 0.01, 1e-9));
        assert_eq!(level_for(0.01, &[0.5]), 0.01);
    }
}
