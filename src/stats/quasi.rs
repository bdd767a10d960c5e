//! Run layer: the quasi-Poisson rate-ratio test over runs (statistics.md,
//! "Run layer"). Input: one (count, exposure) per run of each side; output:
//! the dispersion, the log rate ratio with its t test and interval, and the
//! difference Δ of normalised values with its interval.

use super::exact::{clean_count, valid_exposure};
use super::special::{t_quantile_two_sided, t_two_sided_p};

/// Run layer (three or more runs in all): quasi-Poisson rate-ratio test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quasi {
    /// Pearson `X² = Σ (c − μ̂)² / μ̂` over all runs of both sides.
    pub x2: f64,
    /// `df = n_old + n_new − 2`.
    pub df: f64,
    /// Dispersion `φ = max(1, X²/df)`.
    pub phi: f64,
    /// `β̂ = ln ρ̂_new − ln ρ̂_old` (log rate ratio).
    pub beta: f64,
    /// `SE = sqrt(φ (1/C_old + 1/C_new))`.
    pub se: f64,
    /// `t = β̂ / SE`.
    pub t: f64,
    /// `p = 2 · sf_t(|t|; df)`, in [0, 1].
    pub p: f64,
    /// `exp(β̂ ± t_(df, 1−α/2) · SE)`.
    pub ratio_ci: (f64, f64),
    /// `Δ = C_new/M_new − C_old/M_old` in exposure units.
    pub delta: f64,
    /// `Δ ± t_(df, 1−α/2) · sqrt(φ (C_old/M_old² + C_new/M_new²))`.
    pub delta_ci: (f64, f64),
}

/// Quasi-Poisson rate-ratio test over runs.
///
/// Model: `c[s,r] ~ Poisson(N[s,r] · ρ_s · ε)` with run-to-run noise ε, so
/// `Var c = φ μ`. With pooled `C_s = Σ_r c`, `M_s = Σ_r N`, `ρ̂_s = C_s/M_s`:
///
/// 1. fitted counts `μ̂[s,r] = N[s,r] · ρ̂_s`;
/// 2. `X² = Σ_s Σ_r (c − μ̂)²/μ̂` (terms with μ̂ = 0 count 0),
///    `df = n_old + n_new − 2`, `φ = max(1, X²/df)` (the Poisson floor:
///    equal low counts must not mean zero noise);
/// 3. `β̂ = ln ρ̂_new − ln ρ̂_old`, `SE = sqrt(φ (1/C_old + 1/C_new))`,
///    `t = β̂/SE`, `p = 2·sf_t(|t|; df)`, CI `exp(β̂ ± t_(df,1−α/2)·SE)`;
///    if C_old or C_new is 0, 0.5 is added to both for β̂ and SE;
/// 4. `SE_Δ = sqrt(φ (C_old/M_old² + C_new/M_new²))`,
///    `Δ ± t_(df,1−α/2)·SE_Δ` (Δ itself without the 0.5).
///
/// The caller combines this with [`exact_test`](super::exact_test):
/// `p = max(p_exact, p_quasi)` and the ratio interval is the hull of both.
///
/// old/new: one (count, exposure) per run. Returns None when
/// `df = n_old + n_new − 2 < 1`, when a side has no run, or when a side's
/// pooled exposure is not positive and finite. Negative or non-finite counts
/// count as 0.
pub fn quasi_poisson(old: &[(f64, f64)], new: &[(f64, f64)], alpha: f64) -> Option<Quasi> {
    if old.is_empty() || new.is_empty() {
        return None;
    }
    let df = (old.len() + new.len()) as f64 - 2.0;
    if df < 1.0 {
        return None;
    }
    let pool = |runs: &[(f64, f64)]| {
        runs.iter().fold((0.0, 0.0), |(c, m), &(ci, ni)| {
            (c + clean_count(ci), m + ni)
        })
    };
    let ((c_old, m_old), (c_new, m_new)) = (pool(old), pool(new));
    if !valid_exposure(m_old) || !valid_exposure(m_new) {
        return None;
    }
    let (rho_old, rho_new) = (c_old / m_old, c_new / m_new);

    let pearson = |runs: &[(f64, f64)], rho: f64| -> f64 {
        runs.iter()
            .map(|&(c, n)| {
                let mu = n * rho;
                if mu > 0.0 && mu.is_finite() {
                    (clean_count(c) - mu).powi(2) / mu
                } else {
                    0.0
                }
            })
            .sum()
    };
    let x2 = pearson(old, rho_old) + pearson(new, rho_new);
    let phi = (x2 / df).max(1.0);

    let (co, cn) = if c_old == 0.0 || c_new == 0.0 {
        (c_old + 0.5, c_new + 0.5)
    } else {
        (c_old, c_new)
    };
    let beta = (cn / m_new).ln() - (co / m_old).ln();
    let se = (phi * (1.0 / co + 1.0 / cn)).sqrt();
    let t = beta / se;
    let p = t_two_sided_p(t, df);
    let tq = t_quantile_two_sided(alpha, df);
    let ratio_ci = ((beta - tq * se).exp(), (beta + tq * se).exp());

    let delta = rho_new - rho_old;
    let se_delta = (phi * (c_old / (m_old * m_old) + c_new / (m_new * m_new))).sqrt();
    let delta_ci = (delta - tq * se_delta, delta + tq * se_delta);
    Some(Quasi {
        x2,
        df,
        phi,
        beta,
        se,
        t,
        p,
        ratio_ci,
        delta,
        delta_ci,
    })
}

#[cfg(test)]
mod tests {
    use super::super::exact_test;
    use super::*;

    /// True when `got` matches `want` to 4 significant digits.
    fn sig4(got: f64, want: f64) -> bool {
        (got - want).abs() <= 5e-4 * want.abs()
    }

    /// statistics.md: three runs per side, share mode.
    #[test]
    fn three_runs_per_side_vector() {
        let old = [(120.0, 10000.0), (130.0, 10100.0), (125.0, 9900.0)];
        let new = [(160.0, 10050.0), (170.0, 9950.0), (150.0, 10000.0)];
        let q = quasi_poisson(&old, &new, 0.05).expect("df = 4");
        assert!(sig4(q.x2, 1.686), "X² {}", q.x2);
        assert_eq!((q.df, q.phi), (4.0, 1.0));
        assert!(
            sig4(q.beta, 0.2469) && sig4(q.se, 0.06892) && sig4(q.t, 3.582),
            "{q:?}"
        );
        assert!(sig4(q.p, 0.02313), "p {}", q.p);
        assert!(
            sig4(q.ratio_ci.0, 1.057) && sig4(q.ratio_ci.1, 1.550),
            "{:?}",
            q.ratio_ci
        );
        // Δ in percentage points = 100 × exposure units.
        assert!(sig4(100.0 * q.delta, 0.3500));
        assert!(sig4(100.0 * q.delta_ci.0, 0.07939) && sig4(100.0 * q.delta_ci.1, 0.6206));
        // Combined verdict: p = max(p_exact, p_quasi) = p_quasi.
        let e = exact_test(375.0, 480.0, 30000.0, 30000.0, 0.05);
        assert!(sig4(e.p, 0.0003697));
        assert!(sig4(e.p.max(q.p), 0.02313));
    }

    /// statistics.md: equal low counts 5,5,5 vs 9,9,9 of 10000 each.
    #[test]
    fn equal_low_counts_vector_and_hull() {
        let old = [(5.0, 10000.0); 3];
        let new = [(9.0, 10000.0); 3];
        let q = quasi_poisson(&old, &new, 0.05).expect("df = 4");
        assert_eq!((q.x2, q.phi), (0.0, 1.0));
        assert!(
            sig4(q.beta, 0.5878) && sig4(q.se, 0.3220) && sig4(q.t, 1.825),
            "{q:?}"
        );
        assert!(sig4(q.p, 0.1420), "{}", q.p);
        let e = exact_test(15.0, 27.0, 30000.0, 30000.0, 0.05);
        assert!(sig4(e.p, 0.08843) && sig4(e.ratio, 1.800));
        // scipy: CP interval [0.9240, 3.640]; the quasi one is wider.
        assert!(
            sig4(e.ratio_ci.0, 0.9240) && sig4(e.ratio_ci.1, 3.640),
            "{:?}",
            e.ratio_ci
        );
        let hull = (
            q.ratio_ci.0.min(e.ratio_ci.0),
            q.ratio_ci.1.max(e.ratio_ci.1),
        );
        assert!(sig4(hull.0, 0.7362) && sig4(hull.1, 4.401), "{hull:?}");
        assert!(e.p.max(q.p) > 0.05);
    }

    #[test]
    fn too_few_runs_or_bad_exposure() {
        assert_eq!(quasi_poisson(&[(5.0, 1.0)], &[(7.0, 1.0)], 0.05), None);
        assert_eq!(
            quasi_poisson(&[], &[(7.0, 1.0), (8.0, 1.0), (9.0, 1.0)], 0.05),
            None
        );
        assert_eq!(
            quasi_poisson(&[(5.0, 0.0)], &[(7.0, 1.0), (8.0, 1.0)], 0.05),
            None
        );
        // One run against two: df = 1 is allowed.
        let q = quasi_poisson(&[(5.0, 1.0)], &[(7.0, 1.0), (8.0, 1.0)], 0.05);
        assert_eq!(q.map(|q| q.df), Some(1.0));
    }

    #[test]
    fn zero_counts_use_half_continuity() {
        // New symbol: 0,0,0 vs 4,6,5 → β̂ = ln(15.5/3) − ln(0.5/3).
        let q = quasi_poisson(
            &[(0.0, 1.0); 3],
            &[(4.0, 1.0), (6.0, 1.0), (5.0, 1.0)],
            0.05,
        );
        let q = q.expect("df = 4");
        assert!(sig4(q.beta, (15.5f64 / 0.5).ln()));
        assert!(sig4(q.se, (1.0f64 / 0.5 + 1.0 / 15.5).sqrt()));
        assert!(q.p.is_finite() && q.ratio_ci.0 < 31.0 && q.ratio_ci.1 > 31.0);
        assert!(sig4(q.delta, 5.0));
        // All zero: nothing happens, p = 1, everything finite.
        let q = quasi_poisson(&[(0.0, 1.0); 3], &[(0.0, 1.0); 3], 0.05).expect("df = 4");
        assert_eq!((q.beta, q.p, q.delta, q.x2), (0.0, 1.0, 0.0, 0.0));
        assert!(q.ratio_ci.0 < 1.0 && q.ratio_ci.1 > 1.0);
    }

    #[test]
    fn huge_counts_stay_finite() {
        let old = [(1e9, 1e10), (1.01e9, 1e10), (0.99e9, 1e10)];
        let new = [(1.2e9, 1e10), (1.21e9, 1e10), (1.19e9, 1e10)];
        let q = quasi_poisson(&old, &new, 0.05).expect("df = 4");
        assert!(q.phi > 5e4, "run-to-run noise far above Poisson: {}", q.phi);
        assert!((0.0..=1.0).contains(&q.p) && q.p < 0.01);
        assert!(q.ratio_ci.0 < 1.2 && q.ratio_ci.1 > 1.2);
    }

    /// Property-style sweep: p ∈ [0, 1], the intervals contain the estimates.
    #[test]
    fn sweep() {
        let counts = [0.0, 1.0, 3.0, 10.0, 57.0, 1000.0, 123456.0];
        for &a in &counts {
            for &b in &counts {
                for &c in &counts {
                    let old = [(a, 1e4), (b, 2e4), (c, 1e4)];
                    let new = [(b, 1e4), (c + a, 1e4), (a, 2e4)];
                    let q = quasi_poisson(&old, &new, 0.05).expect("df = 4");
                    assert!((0.0..=1.0).contains(&q.p), "{q:?}");
                    let ratio = q.beta.exp();
                    assert!(q.ratio_ci.0 <= ratio && ratio <= q.ratio_ci.1, "{q:?}");
                    assert!(q.delta_ci.0 <= q.delta && q.delta <= q.delta_ci.1, "{q:?}");
                    assert!(q.phi >= 1.0);
                }
            }
        }
    }
}
