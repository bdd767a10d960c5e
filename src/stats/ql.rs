//! Run layer: the quasi-likelihood ratio test and its profile-likelihood
//! intervals (docs/statistics.md §3, §5.1, §6, §9). Input: pooled counts and
//! exposures of both sides (and per-run pairs for Pearson's X²), a
//! dispersion φ and its degrees of freedom ν; output: the likelihood ratio
//! statistic, the F test's p, and intervals of the rate ratio and of the
//! difference Δ = ρ_new − ρ_old (in exposure units).

use super::dist::{f1_sf, f1_upper_quantile};
use super::exact::{clean_count, valid_exposure};

/// `x ln(x / m)` with `0 ln 0 = 0` (m > 0 when x > 0).
fn xlog(x: f64, ratio: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * ratio.ln()
    }
}

/// The deviance difference of the two-rate and the one-rate Poisson models
/// (§3): `LR = 2 [x ln(x M/(k M_old)) + y ln(y M/(k M_new))]`, k = x + y,
/// M = M_old + M_new. 0 when k = 0 or an exposure is invalid; never negative.
pub fn lr_stat(x: f64, y: f64, m_old: f64, m_new: f64) -> f64 {
    let (x, y) = (clean_count(x), clean_count(y));
    let k = x + y;
    if k == 0.0 || !valid_exposure(m_old) || !valid_exposure(m_new) {
        return 0.0;
    }
    let m = m_old + m_new;
    let lr = 2.0 * (xlog(x, x * m / (k * m_old)) + xlog(y, y * m / (k * m_new)));
    lr.max(0.0)
}

/// Pearson's `X² = Σ_r (c_r − N_r ρ̂)² / (N_r ρ̂)` over one side's runs
/// `(count, exposure)`, `ρ̂ = Σ c / Σ N`; terms with a zero fitted count
/// count 0 (§5.1). Both sides' sums give the comparison's X².
pub fn pearson_x2(runs: &[(f64, f64)]) -> f64 {
    let (c, m) = runs.iter().fold((0.0, 0.0), |(c, m), &(ci, ni)| {
        (c + clean_count(ci), m + ni)
    });
    if !valid_exposure(m) {
        return 0.0;
    }
    let rho = c / m;
    runs.iter()
        .map(|&(ci, ni)| {
            let mu = ni * rho;
            if mu > 0.0 && mu.is_finite() {
                (clean_count(ci) - mu).powi(2) / mu
            } else {
                0.0
            }
        })
        .sum()
}

/// The factor by which every run of one side must be beyond every run of
/// the other for a row to be *separated* (docs/statistics.md §7.1).
pub const SEPARATION: f64 = 2.0;

/// Every run of one side beyond every run of the other by [`SEPARATION`]
/// or more, in per-run rates `c/N` (§7.1): `min(new) ≥ 2 max(old)` with
/// `min(new) > 0`, or the same the other way. Runs given as counts and
/// exposures of each side.
pub fn separated(old: &[f64], old_exp: &[f64], new: &[f64], new_exp: &[f64]) -> bool {
    let rates = |c: &[f64], e: &[f64]| -> (f64, f64) {
        c.iter()
            .zip(e)
            .fold((f64::INFINITY, 0.0_f64), |(lo, hi), (&c, &e)| {
                let r = clean_count(c) / e;
                (lo.min(r), hi.max(r))
            })
    };
    if old.is_empty() || new.is_empty() {
        return false;
    }
    let (old_lo, old_hi) = rates(old, old_exp);
    let (new_lo, new_hi) = rates(new, new_exp);
    (new_lo > 0.0 && new_lo >= SEPARATION * old_hi)
        || (old_lo > 0.0 && old_lo >= SEPARATION * new_hi)
}

/// §7.1's log test of a separated row (version 3.2): the difference of the
/// sides' mean log rates and its variance, on `df` degrees of freedom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogTest {
    /// `l̄_new − l̄_old`, with `l = ln((c + ½)/N)` per run.
    pub diff: f64,
    /// `v (1/n_old + 1/n_new)`, v the pooled within-side variance of the
    /// log rates, floored at the sampling variance of a log count under no
    /// change.
    pub var: f64,
    pub df: f64,
}

impl LogTest {
    /// `P(F(1, d) ≥ diff²/var)`.
    pub fn p(&self) -> f64 {
        f1_sf(self.diff * self.diff / self.var, self.df)
    }

    /// The ratios θ the test does not reject at level t: `ln θ` within
    /// `diff ± √(var · F⁻¹_(1,d)(1 − t))`.
    pub fn ratio_interval(&self, t: f64) -> (f64, f64) {
        let h = (self.var * f1_upper_quantile(t, self.df)).sqrt();
        ((self.diff - h).exp(), (self.diff + h).exp())
    }
}

/// §7.1 (version 3.2): the two-sample t test of the runs' log rates
/// `l = ln((c + ½)/N)`, on `d = n − 2` degrees of freedom. Run-to-run noise
/// in profiles is multiplicative (a constant CV), so on the log scale both
/// sides of a large change have the same spread, where the quasi-Poisson
/// dispersion of the count scale is set by the larger side and charged to
/// both. The pooled variance is floored at the mean over runs of
/// `1/(N_r ρ̂_0 + ½)`, the sampling variance of a log count at the rate of
/// no change. None with fewer than 3 runs or an invalid exposure.
pub fn log_test(old: &[f64], old_exp: &[f64], new: &[f64], new_exp: &[f64]) -> Option<LogTest> {
    let n = old.len() + new.len();
    if old.is_empty() || new.is_empty() || n < 3 {
        return None;
    }
    let runs = || old.iter().zip(old_exp).chain(new.iter().zip(new_exp));
    if runs().any(|(_, &e)| !valid_exposure(e)) {
        return None;
    }
    let logs = |c: &[f64], e: &[f64]| -> Vec<f64> {
        c.iter()
            .zip(e)
            .map(|(&c, &e)| ((clean_count(c) + 0.5) / e).ln())
            .collect()
    };
    let (lo, ln) = (logs(old, old_exp), logs(new, new_exp));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mo, mn) = (mean(&lo), mean(&ln));
    let ss = |v: &[f64], m: f64| v.iter().map(|l| (l - m).powi(2)).sum::<f64>();
    let d = (n - 2) as f64;
    let v = (ss(&lo, mo) + ss(&ln, mn)) / d;
    let (k, m) = runs().fold((0.0, 0.0), |(k, m), (&c, &e)| (k + clean_count(c), m + e));
    let rho0 = k / m;
    let floor = runs().map(|(_, &e)| 1.0 / (e * rho0 + 0.5)).sum::<f64>() / n as f64;
    let var = v.max(floor) * (1.0 / old.len() as f64 + 1.0 / new.len() as f64);
    Some(LogTest {
        diff: mn - mo,
        var,
        df: d,
    })
}

/// The quasi-likelihood F test (§6): `p = P(F(1, ν) ≥ LR/φ)`, ν = ∞ for χ²₁.
pub fn ql_p(lr: f64, phi: f64, nu: f64) -> f64 {
    f1_sf(lr / phi, nu)
}

/// The critical deviance of the intervals at level 1 − t (§9):
/// `χ = φ · F⁻¹_(1,ν)(1 − t)`.
pub fn critical(phi: f64, nu: f64, t: f64) -> f64 {
    phi * f1_upper_quantile(t, nu)
}

/// `ln(1 + eˣ)` without overflow.
fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

/// The root of a convex `f` between `inside` (f ≤ 0) and `outside`
/// (f > 0). Newton's method from the outside end moves monotonically
/// toward the root of a convex function; a step that would leave the
/// bracket (rounding) bisects instead. `f` returns (value, derivative).
/// Stops when a step is below 1e-14 of `|x| + scale` (scale: the problem's
/// natural unit, so that roots near 0 converge too).
fn convex_root(
    mut inside: f64,
    mut outside: f64,
    scale: f64,
    f: impl Fn(f64) -> (f64, f64),
) -> f64 {
    let mut x = outside;
    for _ in 0..200 {
        let (v, d) = f(x);
        if v > 0.0 {
            outside = x;
        } else {
            inside = x;
        }
        let (lo, hi) = (inside.min(outside), inside.max(outside));
        let mut next = x - v / d;
        if !(next > lo && next < hi) {
            next = 0.5 * (inside + outside);
        }
        if (next - x).abs() <= 1e-14 * (x.abs() + scale) || next == x {
            return next;
        }
        x = next;
    }
    x
}

/// From `from`, step by `step`, 2·step, 4·step… (signed) until `f > 0`;
/// returns the bracket (last point with f ≤ 0, first with f > 0), or None
/// when f never exceeds 0 within 2000 doublings.
fn bracket(from: f64, step: f64, f: &impl Fn(f64) -> f64) -> Option<(f64, f64)> {
    let mut inside = from;
    let mut h = step;
    for _ in 0..2000 {
        let next = inside + h;
        if !next.is_finite() {
            return None;
        }
        if f(next) > 0.0 {
            return Some((inside, next));
        }
        inside = next;
        h *= 2.0;
    }
    None
}

/// The run layer's interval of the rate ratio θ = ρ_new/ρ_old (§9):
/// `{θ : G(π(θ)) ≤ χ}` with the binomial deviance `G`, solved in the logit
/// of π and mapped by `θ = π/(1−π) · M_old/M_new`. `(0, ∞)` when k = 0.
pub fn ratio_interval(x: f64, y: f64, m_old: f64, m_new: f64, chi: f64) -> (f64, f64) {
    let (x, y) = (clean_count(x), clean_count(y));
    let k = x + y;
    if k == 0.0 || !valid_exposure(m_old) || !valid_exposure(m_new) || chi.is_nan() || chi <= 0.0 {
        return (0.0, f64::INFINITY);
    }
    let scale = m_old / m_new;
    let to_ratio = |s: f64| s.exp() * scale;
    // One side at zero: G is 2k ln of one term, so the bound is closed-form;
    // with c = χ/(2k), θ_U = (e^c − 1)·M_old/M_new (y = 0) and
    // θ_L = M_old/M_new / (e^c − 1) (x = 0), without forming π near 1.
    if y == 0.0 {
        return (0.0, (chi / (2.0 * k)).exp_m1() * scale);
    }
    if x == 0.0 {
        return (scale / (chi / (2.0 * k)).exp_m1(), f64::INFINITY);
    }
    // G(s) − χ with π = 1/(1 + e^−s): ln π = −softplus(−s), ln(1−π) = −softplus(s).
    let (ly, lx) = ((y / k).ln(), (x / k).ln());
    let g = |s: f64| 2.0 * (y * (ly + softplus(-s)) + x * (lx + softplus(s))) - chi;
    // dG/ds = 2 (k π − y), π = 1/(1 + e^−s)
    let g_d = |s: f64| (g(s), 2.0 * (k / (1.0 + (-s).exp()) - y));
    let s_hat = (y / x).ln();
    let lo = bracket(s_hat, -1.0, &g).map(|(a, b)| convex_root(a, b, 1.0, g_d));
    let hi = bracket(s_hat, 1.0, &g).map(|(a, b)| convex_root(a, b, 1.0, g_d));
    (lo.map_or(0.0, to_ratio), hi.map_or(f64::INFINITY, to_ratio))
}

/// `ℓ(a, b) = x ln a − M_old a + y ln b − M_new b` with `0 ln 0 = 0`.
fn loglik(x: f64, y: f64, m_old: f64, m_new: f64, a: f64, b: f64) -> f64 {
    let term = |c: f64, r: f64| if c == 0.0 { 0.0 } else { c * r.ln() };
    term(x, a) - m_old * a + term(y, b) - m_new * b
}

/// The constrained maximum `a(δ)` of §9: the larger root of
/// `M a² − q a − x δ = 0`, q = k − M δ, written without cancellation.
fn profile_a(x: f64, k: f64, m: f64, delta: f64) -> f64 {
    let q = k - m * delta;
    let disc = (q * q + 4.0 * m * x * delta).max(0.0).sqrt();
    if q >= 0.0 {
        (q + disc) / (2.0 * m)
    } else {
        2.0 * x * delta / (disc - q)
    }
}

/// The run layer's interval of Δ = ρ_new − ρ_old (§9), in exposure units:
/// `{δ : D_Δ(δ) ≤ χ}` with the profile deviance D_Δ, which is convex with
/// its minimum 0 at the estimate. `(−∞, ∞)` when k = 0.
pub fn delta_interval(x: f64, y: f64, m_old: f64, m_new: f64, chi: f64) -> (f64, f64) {
    let (x, y) = (clean_count(x), clean_count(y));
    let k = x + y;
    if k == 0.0 || !valid_exposure(m_old) || !valid_exposure(m_new) || chi.is_nan() || chi <= 0.0 {
        return (f64::NEG_INFINITY, f64::INFINITY);
    }
    let m = m_old + m_new;
    let (r_old, r_new) = (x / m_old, y / m_new);
    let top = loglik(x, y, m_old, m_new, r_old, r_new);
    // D_Δ(δ) − χ and, by the envelope theorem, dD_Δ/dδ = −2 (y/b − M_new)
    // at the constrained maximum (a, b = a + δ) inside the domain.
    let dev_d = |delta: f64| {
        let a = profile_a(x, k, m, delta);
        let b = (a + delta).max(0.0);
        let value = 2.0 * (top - loglik(x, y, m_old, m_new, a, b)) - chi;
        // At the boundary b = 0 (only when y = 0) the maximum moves along
        // a = −δ, and the slope comes from a instead.
        let slope = if b > 0.0 {
            -2.0 * (y / b - m_new)
        } else {
            2.0 * (x / a - m_old)
        };
        (value, slope)
    };
    let dev = |delta: f64| dev_d(delta).0;
    let est = r_new - r_old;
    // A first step of about one standard error of Δ at this dispersion.
    let step = (chi * (x.max(1.0) / (m_old * m_old) + y.max(1.0) / (m_new * m_new))).sqrt();
    let lo = bracket(est, -step, &dev).map(|(a, b)| convex_root(a, b, step, dev_d));
    let hi = bracket(est, step, &dev).map(|(a, b)| convex_root(a, b, step, dev_d));
    (lo.unwrap_or(f64::NEG_INFINITY), hi.unwrap_or(f64::INFINITY))
}

/// The profile estimate of Δ at rate ratio θ (§9): `k (θ − 1)/(M_old + θ M_new)`;
/// θ = ∞ gives `k/M_new`. Maps the sampling layer's ratio bounds to Δ.
pub fn delta_at_ratio(theta: f64, x: f64, y: f64, m_old: f64, m_new: f64) -> f64 {
    let k = clean_count(x) + clean_count(y);
    if theta.is_infinite() {
        k / m_new
    } else {
        k * (theta - 1.0) / (m_old + theta * m_new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §7.1: separated means every run of one side at least twice every
    /// run of the other, in rates; zeros on the smaller side are fine.
    #[test]
    fn separation_is_by_rates_and_both_ways() {
        let e = [1000.0, 1000.0];
        assert!(separated(&[0.0, 0.0], &e, &[928.0, 1013.0], &e));
        assert!(separated(&[928.0, 1013.0], &e, &[0.0, 0.0], &e));
        assert!(separated(&[100.0, 120.0], &e, &[240.0, 250.0], &e));
        assert!(!separated(&[100.0, 130.0], &e, &[240.0, 250.0], &e));
        assert!(!separated(&[0.0, 0.0], &e, &[0.0, 0.0], &e));
        // Exposures count: 240 of 2000 is a rate of 0.12, not 0.24.
        assert!(!separated(
            &[100.0, 120.0],
            &e,
            &[240.0, 500.0],
            &[2000.0, 1000.0]
        ));
        assert!(!separated(&[], &[], &[5.0], &[1.0]));
    }

    /// §7.1's log test: the t test of the runs' log rates, by hand.
    #[test]
    fn log_test_is_the_t_test_of_log_rates() {
        let e = [1000.0, 1000.0];
        let lt = log_test(&[582.0, 796.0], &e, &[20.0, 17.0], &e).unwrap();
        let l = |c: f64| ((c + 0.5) / 1000.0).ln();
        let (mo, mn) = ((l(582.0) + l(796.0)) / 2.0, (l(20.0) + l(17.0)) / 2.0);
        let v = ((l(582.0) - mo).powi(2)
            + (l(796.0) - mo).powi(2)
            + (l(20.0) - mn).powi(2)
            + (l(17.0) - mn).powi(2))
            / 2.0;
        assert!(close(lt.diff, mn - mo, 1e-14));
        assert!(close(lt.var, v, 1e-14));
        assert_eq!(lt.df, 2.0);
        // diff²/var is t² on 2 df: p = 1 − |t|/√(2 + t²) (Student's t, 2 df).
        let t2 = lt.diff * lt.diff / lt.var;
        assert!(close(lt.p(), 1.0 - (t2 / (2.0 + t2)).sqrt(), 1e-9));
        // The interval excludes no change exactly when p ≤ t.
        let (lo, hi) = lt.ratio_interval(lt.p() * 1.01);
        assert!(hi < 1.0 && lo < hi);
        let (lo, hi) = lt.ratio_interval(lt.p() * 0.99);
        assert!(lo < 1.0 && hi > 1.0);
    }

    /// Runs that agree too well cannot make the test claim more than
    /// sampling noise allows: the variance is floored at 1/(N ρ̂_0 + ½).
    #[test]
    fn log_test_variance_has_the_sampling_floor() {
        let e = [1000.0; 3];
        let lt = log_test(&[100.0; 3], &e, &[300.0; 3], &e).unwrap();
        let floor = 1.0 / (200.0 + 0.5);
        assert!(close(lt.var, floor * (2.0 / 3.0), 1e-14));
        assert_eq!(lt.df, 4.0);
        assert!(log_test(&[1.0], &[1.0], &[2.0], &[1.0]).is_none());
        assert!(log_test(&[1.0, 2.0], &[1.0, 0.0], &[2.0], &[1.0]).is_none());
    }

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs().max(1e-300)
    }

    #[test]
    fn lr_is_the_deviance_difference() {
        // x = 375, y = 480 of 30000 each: 2[x ln(2x/k) + y ln(2y/k)].
        let (x, y): (f64, f64) = (375.0, 480.0);
        let k = x + y;
        let want = 2.0 * (x * (2.0 * x / k).ln() + y * (2.0 * y / k).ln());
        assert!(close(lr_stat(x, y, 3e4, 3e4), want, 1e-13));
        // A new symbol needs no correction: 2 y ln(M/M_new).
        assert!(close(
            lr_stat(0.0, 255.0, 2e4, 2e4),
            2.0 * 255.0 * 2f64.ln(),
            1e-13
        ));
        assert_eq!(lr_stat(0.0, 0.0, 1.0, 1.0), 0.0);
        assert_eq!(lr_stat(5.0, 5.0, 1.0, 1.0), 0.0);
        assert_eq!(lr_stat(5.0, 7.0, 0.0, 1.0), 0.0);
    }

    #[test]
    fn pearson_matches_hand_computation() {
        // 120, 130, 125 of 10000, 10100, 9900: ρ̂ = 375/30000.
        let runs: [(f64, f64); 3] = [(120.0, 10000.0), (130.0, 10100.0), (125.0, 9900.0)];
        let rho: f64 = 375.0 / 30000.0;
        let want: f64 = runs
            .iter()
            .map(|&(c, n)| (c - n * rho).powi(2) / (n * rho))
            .sum();
        assert!(close(pearson_x2(&runs), want, 1e-13));
        assert_eq!(pearson_x2(&[(0.0, 1.0), (0.0, 1.0)]), 0.0);
    }

    /// The interval's bounds solve G = χ, and they contain the estimate.
    #[test]
    fn ratio_interval_inverts_the_test() {
        let (x, y, mo, mn) = (375.0, 480.0, 3e4, 3.1e4);
        let chi = critical(1.7, 4.0, 0.05);
        let (lo, hi) = ratio_interval(x, y, mo, mn, chi);
        let est = (y / mn) / (x / mo);
        assert!(lo < est && est < hi);
        // At a bound, the profile deviance equals χ (G in π).
        let g = |theta: f64| {
            let pi = theta * mn / (mo + theta * mn);
            let k = x + y;
            2.0 * (y * (y / (k * pi)).ln() + x * (x / (k * (1.0 - pi))).ln())
        };
        assert!(close(g(lo), chi, 1e-9) && close(g(hi), chi, 1e-9));
        // Zero on one side: closed forms, open at that end.
        let (lo, hi) = ratio_interval(0.0, 255.0, 2e4, 2e4, 3.84);
        assert!(hi.is_infinite() && lo > 1.0);
        let (lo, hi) = ratio_interval(40.0, 0.0, 2e4, 2e4, 3.84);
        assert!(lo == 0.0 && hi < 1.0);
    }

    /// D_Δ(0) = LR, and the interval's bounds solve D_Δ = χ.
    #[test]
    fn delta_interval_inverts_the_test() {
        for &(x, y) in &[(375.0, 480.0), (0.0, 255.0), (40.0, 0.0), (3.0, 11.0)] {
            let (mo, mn) = (3e4, 2.5e4);
            let lr = lr_stat(x, y, mo, mn);
            let chi_at_zero = lr * 0.999_999;
            let (lo, hi) = delta_interval(x, y, mo, mn, chi_at_zero);
            // Just below LR the interval stops short of 0.
            assert!(lo > 0.0 || hi < 0.0, "{x} {y}: [{lo}, {hi}]");
            let (lo, hi) = delta_interval(x, y, mo, mn, lr * 1.000_001);
            assert!(lo < 0.0 && hi > 0.0, "{x} {y}: [{lo}, {hi}]");
            let est = y / mn - x / mo;
            let (lo, hi) = delta_interval(x, y, mo, mn, 3.84);
            assert!(lo <= est && est <= hi);
        }
        let (lo, hi) = delta_interval(0.0, 0.0, 1.0, 1.0, 3.84);
        assert!(lo.is_infinite() && hi.is_infinite());
    }

    /// Both bounds solve the defining equation: G(π(θ)) = χ for the ratio,
    /// D_Δ(δ) = χ for Δ (D_Δ maximised over a by a fine search here, not by
    /// the closed form), on cases with zeros and with large counts.
    #[test]
    fn bounds_solve_their_equations() {
        let cases = [
            (3083.0, 0.0, 44679.0, 143990.0, 6.0),
            (0.0, 3083.0, 44679.0, 143990.0, 6.0),
            (375.0, 480.0, 3e4, 3.1e4, 20.0),
            (7.0, 0.0, 16280.0, 18147.0, 355.0),
            (1.0, 2e5, 1e6, 1e6, 9.0),
            (12.0, 19.0, 1e4, 2e4, 4.0),
        ];
        for (x, y, mo, mn, chi) in cases {
            let k = x + y;
            let ll = |a: f64, b: f64| loglik(x, y, mo, mn, a, b);
            let top = ll(x / mo, y / mn);
            // max over a > max(0, −δ) of ℓ(a, a + δ), by golden-section search
            // on a log scale (ℓ is concave in a).
            let profile = |d: f64| {
                let lo0 = (-d).max(0.0);
                let (mut lo, mut hi) = (
                    (lo0 + 1e-300).max(1e-300).ln(),
                    (k / mo + k / mn + d.abs() + 1.0).ln() + 5.0,
                );
                let f = |u: f64| {
                    let a = u.exp();
                    if a + d < 0.0 {
                        f64::NEG_INFINITY
                    } else {
                        ll(a, (a + d).max(0.0))
                    }
                };
                for _ in 0..400 {
                    let (u1, u2) = (lo + 0.382 * (hi - lo), hi - 0.382 * (hi - lo));
                    if f(u1) < f(u2) {
                        lo = u1
                    } else {
                        hi = u2
                    }
                }
                let best = f(0.5 * (lo + hi)).max(if lo0 > 0.0 {
                    ll(lo0, (lo0 + d).max(0.0))
                } else {
                    f64::NEG_INFINITY
                });
                2.0 * (top - best)
            };
            let (lo, hi) = delta_interval(x, y, mo, mn, chi);
            for b in [lo, hi] {
                assert!(b.is_finite(), "{x} {y}: [{lo}, {hi}]");
                let got = profile(b);
                assert!(
                    (got - chi).abs() <= 1e-6 * chi,
                    "{x} {y} bound {b}: D = {got}, χ = {chi}"
                );
            }
            let (lo, hi) = ratio_interval(x, y, mo, mn, chi);
            let g = |theta: f64| {
                let pi = theta * mn / (mo + theta * mn);
                let term = |c: f64, e: f64| {
                    if c == 0.0 {
                        0.0
                    } else {
                        c * (c / (k * e)).ln()
                    }
                };
                2.0 * (term(y, pi) + term(x, mo / (mo + theta * mn)))
            };
            for b in [lo, hi] {
                if b > 0.0 && b.is_finite() {
                    assert!(
                        (g(b) - chi).abs() <= 1e-8 * chi,
                        "{x} {y} ratio bound {b}: {}",
                        g(b)
                    );
                }
            }
        }
    }

    #[test]
    fn delta_at_ratio_maps_the_ends() {
        let (x, y, mo, mn) = (30.0, 50.0, 1e4, 2e4);
        assert_eq!(delta_at_ratio(1.0, x, y, mo, mn), 0.0);
        assert!(close(delta_at_ratio(0.0, x, y, mo, mn), -80.0 / 1e4, 1e-15));
        assert!(close(
            delta_at_ratio(f64::INFINITY, x, y, mo, mn),
            80.0 / 2e4,
            1e-15
        ));
        assert!(delta_at_ratio(2.0, x, y, mo, mn) > delta_at_ratio(1.5, x, y, mo, mn));
    }
}
