//! One run per side without a noise model (docs/statistics.md §5.4): the
//! symbols' common shift m̂ and the run-to-run noise level κ measured across
//! symbols around it, used with a heavy-tailed F(1, 3) reference; each row
//! is then tested against the band of ratios between no change and the
//! common shift (a shift shared by every symbol cannot be told from
//! run-to-run noise with one run a side). Input: every symbol's (OLD, NEW)
//! count and the two exposures; output: the shift, κ̂ and the symbols they
//! were measured on.

use super::describe::median_in_place;
use super::dist::f1_upper_quantile;
use super::exact::{clean_count, valid_exposure};

/// The reference distribution's degrees of freedom: F(1, 3).
pub const ONE_RUN_DF: f64 = 3.0;
/// Symbols need x, y ≥ 1 and a mean count (x + y)/2 of this to be used.
pub const MIN_MEAN_COUNT: f64 = 5.0;
/// Fewer usable symbols than this: κ is not measured.
pub const MIN_SYMBOLS: usize = 10;

/// κ̂ measured on `symbols` symbols around the common log shift `shift`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OneRun {
    pub symbols: usize,
    pub shift: f64,
    pub kappa: f64,
}

/// The binomial deviance of y | k at the rate ratio θ (§3):
/// `G(π) = 2[y ln(y/(kπ)) + x ln(x/(k(1−π)))]`, `π = θ M_new/(M_old + θ M_new)`.
pub fn deviance_at_ratio(x: f64, y: f64, m_old: f64, m_new: f64, theta: f64) -> f64 {
    let k = x + y;
    if k == 0.0 {
        return 0.0;
    }
    let pi = theta * m_new / (m_old + theta * m_new);
    let term = |c: f64, e: f64| {
        if c == 0.0 {
            0.0
        } else {
            c * (c / (k * e)).ln()
        }
    };
    (2.0 * (term(y, pi) + term(x, m_old / (m_old + theta * m_new)))).max(0.0)
}

impl OneRun {
    /// The null band of rate ratios (§5.4): from no change to the common
    /// shift, `[min(1, e^m̂), max(1, e^m̂)]`.
    pub fn band(&self) -> (f64, f64) {
        let s = self.shift.exp();
        (s.min(1.0), s.max(1.0))
    }
}

/// How far past the band's ends, relatively, a ratio must lie to be out.
const EDGE: f64 = 1e-12;

/// A row's run-layer statistic against the band `(lo, hi)` of ratios
/// (§5.4): 0 when its ratio estimate lies in the band, else its deviance
/// (§3) at the band's nearer end. The deviance is convex in ln θ with its
/// minimum at the estimate, so that end is where it is smallest.
pub fn band_deviance(x: f64, y: f64, m_old: f64, m_new: f64, (lo, hi): (f64, f64)) -> f64 {
    let (x, y) = (clean_count(x), clean_count(y));
    if x + y == 0.0 {
        return 0.0;
    }
    // θ̂ compared through cross products (x = 0 or y = 0 included). A
    // ratio at an end within rounding is in the band (the median symbol
    // is the shift itself, and e^-m̂ is 1/e^m̂ only to the last bit: the
    // test must not depend on which side is OLD).
    let (num, den) = (y * m_old, x * m_new);
    if num > hi * (1.0 + EDGE) * den {
        deviance_at_ratio(x, y, m_old, m_new, hi)
    } else if num < lo * (1.0 - EDGE) * den {
        deviance_at_ratio(x, y, m_old, m_new, lo)
    } else {
        0.0
    }
}

/// Measure κ (§5.4): over `U1 = {x, y ≥ 1, (x + y)/2 ≥ 5}`, the median log
/// ratio m̂ of the shares (the common shift), each symbol's deviance D_i
/// from the ratio e^m̂, and the smallest κ ≥ 0 with
/// `median D_i/(1 + κ μ̄_i) ≤ F⁻¹_(1,3)(½)`.
/// None with fewer than 10 such symbols or invalid exposures.
pub fn one_run(
    pairs: impl IntoIterator<Item = impl std::borrow::Borrow<(f64, f64)>>,
    m_old: f64,
    m_new: f64,
) -> Option<OneRun> {
    if !valid_exposure(m_old) || !valid_exposure(m_new) {
        return None;
    }
    let used: Vec<(f64, f64)> = pairs
        .into_iter()
        .map(|p| {
            let (x, y) = *p.borrow();
            (clean_count(x), clean_count(y))
        })
        .filter(|&(x, y)| x >= 1.0 && y >= 1.0 && (x + y) / 2.0 >= MIN_MEAN_COUNT)
        .collect();
    if used.len() < MIN_SYMBOLS {
        return None;
    }
    let mut ells: Vec<f64> = used
        .iter()
        .map(|&(x, y)| (y / x).ln() - (m_new / m_old).ln())
        .collect();
    let shift = median_in_place(&mut ells);
    drop(ells);
    let theta = shift.exp();
    let symbols = used.len();
    // Around the common shift: the symbols' own scatter. The shift itself
    // is allowed for by the band the rows are tested against.
    let dev: Vec<(f64, f64)> = used
        .into_iter()
        .map(|(x, y)| (deviance_at_ratio(x, y, m_old, m_new, theta), (x + y) / 2.0))
        .collect();
    let target = f1_upper_quantile(0.5, ONE_RUN_DF);
    // (One buffer for every step of the search: a million symbols.)
    let scaled = std::cell::RefCell::new(Vec::with_capacity(dev.len()));
    let excess = |kappa: f64| {
        let mut scaled = scaled.borrow_mut();
        scaled.clear();
        scaled.extend(dev.iter().map(|&(d, m)| d / (1.0 + kappa * m)));
        median_in_place(&mut scaled) - target
    };
    let kappa = if excess(0.0) <= 0.0 {
        0.0
    } else {
        let mut hi = 1.0;
        while excess(hi) > 0.0 && hi < 1e300 {
            hi *= 2.0;
        }
        let mut lo = 0.0;
        for _ in 0..300 {
            let mid = 0.5 * (lo + hi);
            if excess(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-13 * hi {
                break;
            }
        }
        0.5 * (lo + hi)
    };
    Some(OneRun {
        symbols,
        shift,
        kappa,
    })
}

#[cfg(test)]
mod tests {
    use super::super::describe::median;
    use super::*;

    #[test]
    fn too_few_symbols() {
        let pairs = vec![(100.0, 110.0); 9];
        assert_eq!(one_run(&pairs, 1e4, 1e4), None);
        // Small or one-sided symbols do not count.
        let mut more = pairs.clone();
        more.extend([(0.0, 500.0), (4.0, 4.0), (2.0, 7.0)]);
        assert_eq!(one_run(&more, 1e4, 1e4), None);
        assert_eq!(one_run([(100.0, 100.0); 20], 0.0, 1e4), None);
    }

    /// Scatter of sampling size around no change needs no extra noise.
    #[test]
    fn sampling_scatter_is_not_noise() {
        let pairs: Vec<(f64, f64)> = (0..20)
            .map(|i| {
                let x = 100.0 + 50.0 * i as f64;
                (x, x + if i % 2 == 0 { 3.0 } else { -3.0 })
            })
            .collect();
        let r = one_run(&pairs, 1e5, 1e5).expect("20 symbols");
        assert_eq!(r.kappa, 0.0);
    }

    /// A common shift of every symbol is not scatter (κ̂ = 0); it is
    /// allowed for by the band: a row that moved with it has statistic 0,
    /// one beyond it is measured from the shift, one on the other side of
    /// no change from no change.
    #[test]
    fn common_shift_is_the_band() {
        let pairs: Vec<(f64, f64)> = (0..20)
            .map(|i| {
                let x = 100.0 + 50.0 * i as f64;
                (x, 0.5 * x)
            })
            .collect();
        let r = one_run(&pairs, 1e5, 1e5).expect("20 symbols");
        assert!((r.shift - 0.5f64.ln()).abs() < 1e-12);
        assert_eq!(r.kappa, 0.0);
        let (lo, hi) = r.band();
        assert!((lo - 0.5).abs() < 1e-12 && hi == 1.0);
        assert_eq!(band_deviance(400.0, 200.0, 1e5, 1e5, (lo, hi)), 0.0);
        assert_eq!(band_deviance(400.0, 300.0, 1e5, 1e5, (lo, hi)), 0.0);
        let below = band_deviance(400.0, 100.0, 1e5, 1e5, (lo, hi));
        assert!((below - deviance_at_ratio(400.0, 100.0, 1e5, 1e5, 0.5)).abs() < 1e-9);
        let above = band_deviance(400.0, 500.0, 1e5, 1e5, (lo, hi));
        assert!((above - deviance_at_ratio(400.0, 500.0, 1e5, 1e5, 1.0)).abs() < 1e-9);
        // A symbol new in NEW is measured from no change.
        let new = band_deviance(0.0, 500.0, 1e5, 1e5, (lo, hi));
        assert!((new - 2.0 * 500.0 * 2f64.ln()).abs() < 1e-9);
    }

    /// Scatter of ±20% around the shift: κ̂ > 0, and the median scaled
    /// deviance then equals the median of F(1, 3).
    #[test]
    fn scatter_is_measured() {
        let pairs: Vec<(f64, f64)> = (0..30)
            .map(|i| {
                let x = 200.0 + 37.0 * i as f64;
                let f = if i % 2 == 0 { 1.2 } else { 1.0 / 1.2 };
                (x, x * f)
            })
            .collect();
        let r = one_run(&pairs, 1e5, 1e5).expect("30 symbols");
        assert!(r.kappa > 0.0);
        let theta = r.shift.exp();
        let scaled: Vec<f64> = pairs
            .iter()
            .map(|&(x, y)| {
                deviance_at_ratio(x, y, 1e5, 1e5, theta) / (1.0 + r.kappa * (x + y) / 2.0)
            })
            .collect();
        let got = median(&scaled);
        let want = f1_upper_quantile(0.5, ONE_RUN_DF);
        assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
    }
}
