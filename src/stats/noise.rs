//! One run per side: a noise floor estimated across symbols (statistics.md,
//! "One run per side"). Input: every symbol's (OLD, NEW) count and the two
//! exposures; output: the extra log-ratio variance τ² that run-to-run noise
//! adds, a z test of each symbol against it, and Δ's interval.

use super::describe::median;
use super::exact::{clean_count, valid_exposure};
use super::special::{normal_two_sided_p, z_quantile_two_sided};

/// Symbols need this many samples on both sides to enter the estimate.
pub const NOISE_MIN_COUNT: f64 = 100.0;
/// Fewer usable symbols than this: τ² is not estimated.
pub const NOISE_MIN_SYMBOLS: usize = 10;
/// 1/Φ⁻¹(¾): turns a median absolute deviation into a normal SD.
const MAD_TO_SD: f64 = 1.4826;

/// Where the noise floor τ² came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoiseSource {
    /// Estimated from the spread of the symbols' log-ratios.
    Estimated,
    /// Taken from `--noise-cv C` as `τ² = 2C²` (too few symbols to estimate).
    Assumed,
    /// Neither: τ² = 0, pure sampling (Poisson) noise.
    SamplingOnly,
}

/// The noise floor used for the one-run-per-side tests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseFloor {
    /// Extra variance of a symbol's log-ratio beyond sampling noise.
    pub tau2: f64,
    pub source: NoiseSource,
    /// Number of symbols with x, y ≥ 100 (also reported when too few).
    pub symbols_used: usize,
    /// robust SD (1.4826·MAD) of the Poisson z-scores of the used symbols; None when not estimated
    pub z_spread: Option<f64>,
}

/// Log-ratio `ℓ = ln(y/x) − ln(E_new/E_old)` and its sampling variance
/// `v = 1/x + 1/y`.
fn log_ratio(x: f64, y: f64, e_old: f64, e_new: f64) -> (f64, f64) {
    ((y / x).ln() - (e_new / e_old).ln(), 1.0 / x + 1.0 / y)
}

/// `1.4826 · median|v − median v|`.
fn robust_sd(values: &[f64]) -> f64 {
    let m = median(values);
    let dev: Vec<f64> = values.iter().map(|v| (v - m).abs()).collect();
    MAD_TO_SD * median(&dev)
}

/// Noise floor across symbols, for one run per side.
///
/// Over symbols with x, y ≥ 100: `ℓ_i = ln(y_i/x_i) − ln(E_new/E_old)`,
/// `v_i = 1/x_i + 1/y_i`, `σ̂ = 1.4826 · median|ℓ_i − median ℓ|`,
/// `τ̂² = max(0, σ̂² − median v_i)`: the robust spread of the log-ratios
/// minus the part that sampling noise explains. `z_spread` is the same
/// robust SD of the Poisson z-scores `ℓ_i/√v_i` (≈ 1 when sampling noise
/// explains everything; above 2 the caller warns).
///
/// pairs: (x_i, y_i) for every symbol (the function selects x, y ≥ 100
/// itself); noise_cv: `--noise-cv C` as a fraction (0.05 = 5%). With fewer
/// than 10 usable symbols (or exposures that are not positive and finite):
/// `Assumed` with `τ² = 2C²` when noise_cv is given (each side's ε has
/// CV C, and `Var(ln ε_new − ln ε_old) ≈ 2C²`), else `SamplingOnly` with
/// τ² = 0. When noise_cv is given AND ≥ 10 symbols exist, the estimate is
/// used (`Estimated`): the data measure the noise of this very pair of runs,
/// which beats a number typed in for runs in general; `--noise-cv` is the
/// fallback for small profiles.
pub fn noise_floor(
    pairs: &[(f64, f64)],
    e_old: f64,
    e_new: f64,
    noise_cv: Option<f64>,
) -> NoiseFloor {
    let exposures_ok = valid_exposure(e_old) && valid_exposure(e_new);
    let used: Vec<(f64, f64)> = pairs
        .iter()
        .map(|&(x, y)| (clean_count(x), clean_count(y)))
        .filter(|&(x, y)| x >= NOISE_MIN_COUNT && y >= NOISE_MIN_COUNT && exposures_ok)
        .map(|(x, y)| log_ratio(x, y, e_old, e_new))
        .collect();
    let symbols_used = used.len();
    if symbols_used < NOISE_MIN_SYMBOLS {
        return match noise_cv.filter(|c| c.is_finite() && *c >= 0.0) {
            Some(c) => NoiseFloor {
                tau2: 2.0 * c * c,
                source: NoiseSource::Assumed,
                symbols_used,
                z_spread: None,
            },
            None => NoiseFloor {
                tau2: 0.0,
                source: NoiseSource::SamplingOnly,
                symbols_used,
                z_spread: None,
            },
        };
    }
    let ells: Vec<f64> = used.iter().map(|&(l, _)| l).collect();
    let vs: Vec<f64> = used.iter().map(|&(_, v)| v).collect();
    let zs: Vec<f64> = used.iter().map(|&(l, v)| l / v.sqrt()).collect();
    let sigma = robust_sd(&ells);
    NoiseFloor {
        tau2: (sigma * sigma - median(&vs)).max(0.0),
        source: NoiseSource::Estimated,
        symbols_used,
        z_spread: Some(robust_sd(&zs)),
    }
}

/// Result of [`noise_test`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseTest {
    /// `2Φ(−|z|)`, in [0, 1].
    pub p: f64,
    /// `exp(ℓ ± z_(1−α/2)·sqrt(v + τ²))`.
    pub ratio_ci: (f64, f64),
}

/// One symbol against the noise floor: `z = ℓ/sqrt(v + τ²)`,
/// `p = 2Φ(−|z|)`, ratio CI `exp(ℓ ± z_(1−α/2)·sqrt(v + τ²))`
/// (statistics.md writes 1.96 for α = 0.05). Zero counts: 0.5 is added to
/// both x and y for ℓ and v (as in the run layer). The caller combines:
/// `p = max(p_exact, p_noise)`. Exposures that are not positive and finite
/// give p = 1 and the interval (0, ∞).
pub fn noise_test(x: f64, y: f64, e_old: f64, e_new: f64, tau2: f64, alpha: f64) -> NoiseTest {
    if !valid_exposure(e_old) || !valid_exposure(e_new) {
        return NoiseTest {
            p: 1.0,
            ratio_ci: (0.0, f64::INFINITY),
        };
    }
    let (mut x, mut y) = (clean_count(x), clean_count(y));
    if x == 0.0 || y == 0.0 {
        x += 0.5;
        y += 0.5;
    }
    let (ell, v) = log_ratio(x, y, e_old, e_new);
    let sd = (v + tau2.max(0.0)).sqrt();
    let zq = z_quantile_two_sided(alpha);
    NoiseTest {
        p: normal_two_sided_p(ell / sd),
        ratio_ci: ((ell - zq * sd).exp(), (ell + zq * sd).exp()),
    }
}

/// Δ and its interval with one run per side (not in statistics.md).
///
/// Derivation: under the model `c ~ Poisson(N ρ ε)` with `E ε = 1`,
/// `Var ε = κ`, the count has `Var c = μ + κ μ²`, so `ρ̂ = c/N` has
/// `Var ρ̂ = ρ/N + κ ρ²`. The noise floor τ² is the extra variance of
/// `ln ε_new − ln ε_old ≈ (ε_new − 1) − (ε_old − 1)`, i.e. `τ² ≈ 2κ`, so
/// per side `Var(ρ̂_s) = C_s/M_s² + ρ̂_s²·τ²/2` (plug-in). Then
/// `Δ = ρ̂_new − ρ̂_old` and the normal interval
/// `Δ ± z_(1−α/2)·sqrt(Var_old + Var_new)`. With τ² = 0 this is the pure
/// Poisson (Wald) interval; with `τ² = 2C²` from `--noise-cv C` each side
/// gets CV C. Returns (delta, (lo, hi)) in exposure units; invalid exposures
/// give (0, (−∞, ∞)).
pub fn delta_ci_one_run(
    x: f64,
    y: f64,
    e_old: f64,
    e_new: f64,
    tau2: f64,
    alpha: f64,
) -> (f64, (f64, f64)) {
    if !valid_exposure(e_old) || !valid_exposure(e_new) {
        return (0.0, (f64::NEG_INFINITY, f64::INFINITY));
    }
    let (x, y) = (clean_count(x), clean_count(y));
    let tau2 = tau2.max(0.0);
    let (rho_old, rho_new) = (x / e_old, y / e_new);
    let var_old = x / (e_old * e_old) + rho_old * rho_old * tau2 / 2.0;
    let var_new = y / (e_new * e_new) + rho_new * rho_new * tau2 / 2.0;
    let delta = rho_new - rho_old;
    let half = z_quantile_two_sided(alpha) * (var_old + var_new).sqrt();
    (delta, (delta - half, delta + half))
}

#[cfg(test)]
mod tests {
    use super::super::exact_test;
    use super::*;

    fn sig4(got: f64, want: f64) -> bool {
        (got - want).abs() <= 5e-4 * want.abs()
    }

    /// A constructed one-run case: ten symbols with y = x·f, f within
    /// about ±7% of 1 (run-to-run noise), plus one real +30% regression;
    /// equal exposures 1e6. Expected values from an independent scipy/numpy
    /// script (/tmp/stats-xcheck/xcheck.py, same formulas).
    const XS: [f64; 11] = [
        10000., 20000., 15000., 8000., 50000., 12000., 30000., 9000., 25000., 40000., 20000.,
    ];
    const YS: [f64; 11] = [
        10600., 19000., 15300., 8640., 48500., 11160., 31200., 9000., 24000., 42800., 26000.,
    ];
    const E: f64 = 1e6;
    const TAU2: f64 = 0.005450329992831609;

    fn pairs() -> Vec<(f64, f64)> {
        XS.iter().copied().zip(YS.iter().copied()).collect()
    }

    #[test]
    fn estimated_noise_floor() {
        let f = noise_floor(&pairs(), E, E, None);
        assert_eq!(f.source, NoiseSource::Estimated);
        assert_eq!(f.symbols_used, 11);
        assert!(f.tau2 > 0.0 && sig4(f.tau2, TAU2), "{f:?}");
        let spread = f.z_spread.expect("estimated");
        assert!(sig4(spread, 9.2524), "{spread}");
        // --noise-cv given but ≥ 10 symbols: the estimate wins (documented).
        assert_eq!(noise_floor(&pairs(), E, E, Some(0.05)), f);
        // Symbols below 100 on either side are ignored.
        let mut more = pairs();
        more.extend([(99.0, 5000.0), (5000.0, 0.0), (f64::NAN, 300.0)]);
        assert_eq!(noise_floor(&more, E, E, None), f);
    }

    /// The sampling test alone flags 9 of the 11 symbols; against the noise
    /// floor only the real +30% regression remains (p_noise = 4.230e-4).
    #[test]
    fn noise_floor_tames_the_sampling_test() {
        let f = noise_floor(&pairs(), E, E, None);
        let mut exact_flags = 0;
        let mut combined = Vec::new();
        for (i, (x, y)) in pairs().into_iter().enumerate() {
            let e = exact_test(x, y, E, E, 0.05);
            let n = noise_test(x, y, E, E, f.tau2, 0.05);
            exact_flags += usize::from(e.p < 0.05);
            if e.p.max(n.p) < 0.05 {
                combined.push((i, n.p));
            }
        }
        assert_eq!(exact_flags, 9);
        assert_eq!(combined.len(), 1);
        assert_eq!(combined[0].0, 10);
        assert!(sig4(combined[0].1, 4.2299e-4), "{combined:?}");
    }

    #[test]
    fn too_few_symbols() {
        let few = &pairs()[..4];
        let f = noise_floor(few, 1e5, 1e5, Some(0.05));
        assert_eq!(
            (f.source, f.symbols_used, f.z_spread),
            (NoiseSource::Assumed, 4, None)
        );
        assert!(sig4(f.tau2, 0.005));
        let f = noise_floor(few, 1e5, 1e5, None);
        assert_eq!((f.source, f.tau2), (NoiseSource::SamplingOnly, 0.0));
        let f = noise_floor(&pairs(), 0.0, 1e5, None);
        assert_eq!((f.source, f.symbols_used), (NoiseSource::SamplingOnly, 0));
        assert_eq!(
            noise_floor(&[], 1.0, 1.0, None).source,
            NoiseSource::SamplingOnly
        );
    }

    #[test]
    fn noise_test_known_values() {
        // Symbol 0: 10000 → 10600 against TAU2 (scipy: p 0.438006,
        // CI [0.914859, 1.228167]).
        let t = noise_test(10000.0, 10600.0, E, E, TAU2, 0.05);
        assert!(sig4(t.p, 0.438006), "{t:?}");
        assert!(sig4(t.ratio_ci.0, 0.914859), "{t:?}");
        assert!(sig4(t.ratio_ci.1, 1.228167), "{t:?}");
        // τ² = 0 is the plain Poisson z test on the log ratio.
        let t = noise_test(120.0, 160.0, 1e4, 1e4, 0.0, 0.05);
        let z = (160.0f64 / 120.0).ln() / (1.0 / 120.0 + 1.0 / 160.0f64).sqrt();
        assert!(sig4(t.p, normal_two_sided_p(z)));
        // Zero counts: 0.5 continuity on both.
        let t = noise_test(0.0, 0.0, 1.0, 1.0, 0.0, 0.05);
        assert_eq!(t.p, 1.0);
        let t = noise_test(0.0, 7.0, 1.0, 1.0, 0.0, 0.05);
        assert!(sig4(
            t.ratio_ci.0,
            (15.0f64.ln() - 1.959964 * (2.0 + 1.0 / 7.5f64).sqrt()).exp()
        ));
        let t = noise_test(1e9, 1.5e9, 1.0, 1.0, 0.0, 0.05);
        assert!(t.p >= 0.0 && t.p.is_finite() && t.p < 1e-300);
        assert_eq!(noise_test(5.0, 5.0, f64::NAN, 1.0, 0.0, 0.05).p, 1.0);
    }

    #[test]
    fn delta_one_run_known_values() {
        // numpy: Δ = 0.0006, CI [−0.000917316, 0.002117316].
        let (d, (lo, hi)) = delta_ci_one_run(10000.0, 10600.0, E, E, TAU2, 0.05);
        assert!(sig4(d, 0.0006) && sig4(lo, -0.000917316) && sig4(hi, 0.002117316));
        // τ² = 0: Poisson Wald interval Δ ± 1.96·sqrt(x + y)/E.
        let (d, (lo, hi)) = delta_ci_one_run(120.0, 160.0, 1e4, 1e4, 0.0, 0.05);
        assert!(sig4(d, 0.004) && sig4(hi - d, 1.959964 * 280.0f64.sqrt() / 1e4));
        assert!(sig4(d - lo, hi - d));
        let (d, (lo, hi)) = delta_ci_one_run(0.0, 0.0, 1.0, 1.0, 0.0, 0.05);
        assert_eq!((d, lo, hi), (0.0, 0.0, 0.0));
    }

    #[test]
    fn sweep() {
        let counts = [0.0, 1.0, 4.0, 30.0, 100.0, 999.0, 1e6];
        for &x in &counts {
            for &y in &counts {
                for &tau2 in &[0.0, 0.003, 0.5] {
                    let t = noise_test(x, y, 2e4, 1e4, tau2, 0.05);
                    assert!((0.0..=1.0).contains(&t.p));
                    assert!(t.ratio_ci.0 <= t.ratio_ci.1);
                    let (d, (lo, hi)) = delta_ci_one_run(x, y, 2e4, 1e4, tau2, 0.05);
                    assert!(lo <= d && d <= hi);
                }
            }
        }
    }
}
