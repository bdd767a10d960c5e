//! Moderation of the per-symbol dispersions across symbols
//! (docs/statistics.md §5.2): an empirical-Bayes prior with a trend in
//! abundance (limma's `fitFDist`, Smyth 2004), robust weights for symbols
//! far noisier than the prior (after Phipson et al. 2016), a cap on the
//! prior's weight, and the posterior dispersion with its degrees of freedom.
//! Input: every symbol's raw dispersion s² on d degrees of freedom and its
//! mean count per run; output: a [`Prior`] and per symbol a [`Dispersion`].

use super::describe::median;
use super::dist::{digamma, f_sf, trigamma, trigamma_inverse};
use rayon::prelude::*;

/// Symbols need this mean count per run to enter the fit (§5.2).
pub const MIN_MEAN_COUNT: f64 = 5.0;
/// Fewer fitting symbols than this: no moderation.
pub const MIN_SYMBOLS: usize = 10;
/// The prior never weighs more than this many times the symbol's own df.
pub const CAP: f64 = 2.0;

/// A symbol's dispersion φ ≥ 1 and the degrees of freedom ν of its test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dispersion {
    pub phi: f64,
    pub df: f64,
}

/// The fitted prior: `φ_i ~ s0²(μ̄_i) · d0/χ²_d0`, with
/// `ln s0²(μ) = c + ln(1 + r μ) + ψ(d0/2) − ln(d0/2)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior {
    /// |U|: symbols with mean count ≥ 5 that the prior was fitted on.
    pub symbols: usize,
    /// The symbols' own residual degrees of freedom.
    pub d: f64,
    /// The trend `T(μ) = clamp(c + ln(1 + r μ), lo, hi)` of the log
    /// variances (version 3: r by least absolute deviations, the trend held
    /// within the range of the symbols' own levels, §5.2 step 2).
    pub trend_c: f64,
    pub trend_r: f64,
    pub trend_lo: f64,
    pub trend_hi: f64,
    /// Prior degrees of freedom d0 (may be ∞) and the capped `min(d0, 2d)`.
    pub d0: f64,
    pub d_cap: f64,
}

/// The trend grid G of §5.2: 0, then 10^(j/20) for j = −120..=60.
fn trend_grid() -> impl Iterator<Item = f64> {
    std::iter::once(0.0).chain((-120..=60).map(|j| 10f64.powf(j as f64 / 20.0)))
}

impl Prior {
    /// Fit the prior (§5.2 steps 1-4), or None when fewer than 10 symbols
    /// have a mean count of 5 or more (or d < 1). `s2[i]`, `mean[i]`: every
    /// symbol's raw dispersion and mean count per run.
    pub fn fit(s2: &[f64], mean: &[f64], d: f64) -> Option<Prior> {
        if d.is_nan() || d < 1.0 {
            return None;
        }
        let fit: Vec<(f64, f64)> = s2
            .iter()
            .zip(mean)
            .filter(|&(s, &m)| m >= MIN_MEAN_COUNT && s.is_finite())
            .map(|(&s, &m)| (s.max(0.0), m))
            .collect();
        let n = fit.len();
        if n < MIN_SYMBOLS {
            return None;
        }
        let med = median(&fit.iter().map(|f| f.0).collect::<Vec<_>>());
        let floor = if med > 0.0 { 1e-5 * med } else { 1e-5 };
        let half = d / 2.0;
        let e: Vec<f64> = fit
            .iter()
            .map(|&(s, _)| s.max(floor).ln() - digamma(half) + half.ln())
            .collect();
        let mu: Vec<f64> = fit.iter().map(|f| f.1).collect();
        let (trend_c, trend_r) = fit_trend(&e, &mu);
        let (trend_lo, trend_hi) = trend_bounds(&e, &mu);
        let trend = |m: f64| (trend_c + (trend_r * m).ln_1p()).clamp(trend_lo, trend_hi);
        let rss: f64 = e
            .iter()
            .zip(&mu)
            .map(|(e, &m)| (e - trend(m)).powi(2))
            .sum();
        let evar = rss / (n as f64 - 2.0) - trigamma(half);
        let d0 = if evar > 0.0 {
            2.0 * trigamma_inverse(evar)
        } else {
            f64::INFINITY
        };
        Some(Prior {
            symbols: n,
            d,
            trend_c,
            trend_r,
            trend_lo,
            trend_hi,
            d0,
            d_cap: d0.min(CAP * d),
        })
    }

    /// The trend `T(μ)` of the log variances at mean count μ (§5.2 step 2).
    pub fn trend(&self, mean: f64) -> f64 {
        (self.trend_c + (self.trend_r * mean).ln_1p()).clamp(self.trend_lo, self.trend_hi)
    }

    /// The prior's scale `s0²(μ)` at mean count μ (§5.2 step 4).
    pub fn scale(&self, mean: f64) -> f64 {
        let offset = if self.d0.is_finite() {
            digamma(self.d0 / 2.0) - (self.d0 / 2.0).ln()
        } else {
            0.0
        };
        (self.trend(mean) + offset).exp()
    }

    /// Every symbol's posterior (§5.2 steps 5-7): robust prior weights, the
    /// running maximum over tail order, `φ = max(1, (d s² + d0_i s0²)/(d + d0_i))`,
    /// `ν = d + d0_i`.
    pub fn posterior(&self, s2: &[f64], mean: &[f64]) -> Vec<Dispersion> {
        let d = self.d;
        let scales: Vec<f64> = mean.par_iter().map(|&m| self.scale(m)).collect();
        let ratio: Vec<f64> = s2
            .iter()
            .zip(&scales)
            .map(|(&s, &s0)| s.max(0.0) / s0)
            .collect();
        // The fitting set's ratios, sorted, for the empirical tail counts.
        let mut fitted: Vec<f64> = ratio
            .iter()
            .zip(s2.iter().zip(mean))
            .filter(|&(_, (s, &m))| m >= MIN_MEAN_COUNT && s.is_finite())
            .map(|(&f, _)| f)
            .collect();
        fitted.sort_by(f64::total_cmp);
        let n_fit = fitted.len() as f64;
        let tail: Vec<f64> = ratio.par_iter().map(|&f| f_sf(f, d, self.d0)).collect();
        let in_fit = |i: usize| mean[i] >= MIN_MEAN_COUNT && s2[i].is_finite();
        let mut prior_df: Vec<f64> = ratio
            .iter()
            .zip(&tail)
            .enumerate()
            .map(|(i, (&f, &t))| {
                // emp = (#{j ∈ U : F_j > F_i} + #{j ∈ U ∪ {i} : F_j = F_i}/2) / |U|:
                // the upper-tail rank with ties averaged, as limma's.
                let below = fitted.partition_point(|&v| v < f);
                let above = fitted.partition_point(|&v| v <= f);
                let greater = fitted.len() - above;
                let equal = above - below + usize::from(!in_fit(i));
                let emp = (greater as f64 + equal as f64 / 2.0) / n_fit;
                (t / emp).min(1.0) * self.d_cap
            })
            .collect();
        let mut order: Vec<usize> = (0..tail.len()).collect();
        order.sort_by(|&a, &b| tail[a].total_cmp(&tail[b]));
        let mut running = 0.0_f64;
        for &i in &order {
            running = running.max(prior_df[i]);
            prior_df[i] = running;
        }
        s2.iter()
            .zip(&scales)
            .zip(&prior_df)
            .map(|((&s, &s0), &d0i)| Dispersion {
                phi: ((d * s.max(0.0) + d0i * s0) / (d + d0i)).max(1.0),
                df: d + d0i,
            })
            .collect()
    }
}

/// The trend's shape (§5.2 step 2): for each r of the grid,
/// `c_L(r) = median(e_i − ln(1 + r μ_i))` and the sum of absolute
/// deviations `SAD(r) = Σ |e_i − c_L(r) − ln(1 + r μ_i)|`; r̂ is the last r
/// whose SAD is below (1 − 1e-12) times the smallest SAD of the r before
/// it (r = 0 always qualifies: ties go to the smaller r). The level is the
/// mean `ĉ = mean(e_i − ln(1 + r̂ μ_i))` (the prior's scale is a mean of
/// log variances). Returns (ĉ, r̂).
fn fit_trend(e: &[f64], mu: &[f64]) -> (f64, f64) {
    let n = e.len() as f64;
    // Each r's sums run in symbol order (the same bits on any thread count);
    // the grid values are independent, so they are computed in parallel.
    let grid: Vec<f64> = trend_grid().collect();
    let fits: Vec<(f64, f64)> = grid
        .par_iter()
        .map(|&r| {
            let mut resid: Vec<f64> = e.iter().zip(mu).map(|(e, m)| e - (r * m).ln_1p()).collect();
            let c = median(&resid);
            for v in &mut resid {
                *v = (*v - c).abs();
            }
            (r, resid.iter().sum::<f64>())
        })
        .collect();
    let mut best = 0.0;
    let mut smallest = f64::INFINITY;
    for (r, sad) in fits {
        if sad < smallest * (1.0 - 1e-12) || smallest.is_infinite() {
            best = r;
        }
        smallest = smallest.min(sad);
    }
    let c = e
        .iter()
        .zip(mu)
        .map(|(e, m)| e - (best * m).ln_1p())
        .sum::<f64>()
        / n;
    (c, best)
}

/// The range the trend is held in (§5.2 step 2): the fitting symbols in
/// order of mean count (ties in their order), cut into
/// `B = clamp(⌊|U|/20⌋, 1, 8)` bins, bin b holding positions
/// `⌊b|U|/B⌋ .. ⌊(b+1)|U|/B⌋`; each bin's level is the mean of its e_i
/// (summed in that order; a mean, as the trend's level is).
/// Returns the smallest and the largest level: a trend beyond them would
/// claim more (or less) noise than any group of the symbols shows.
fn trend_bounds(e: &[f64], mu: &[f64]) -> (f64, f64) {
    let n = e.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| mu[a].total_cmp(&mu[b]).then(a.cmp(&b)));
    let bins = (n / 20).clamp(1, 8);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for b in 0..bins {
        let (from, to) = (b * n / bins, (b + 1) * n / bins);
        let level = order[from..to].iter().map(|&i| e[i]).sum::<f64>() / (to - from) as f64;
        lo = lo.min(level);
        hi = hi.max(level);
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= rel * want.abs().max(1e-300)
    }

    #[test]
    fn too_few_symbols_or_df_means_no_prior() {
        let s2 = [1.0; 9];
        let mean = [50.0; 9];
        assert_eq!(Prior::fit(&s2, &mean, 2.0), None);
        assert_eq!(Prior::fit(&[1.0; 20], &[4.9; 20], 2.0), None);
        assert_eq!(Prior::fit(&[1.0; 20], &[50.0; 20], 0.0), None);
    }

    /// Equal variances: no spread beyond sampling, so d0 = ∞ and the
    /// posterior is the trend, capped at 2d prior df.
    #[test]
    fn identical_variances_give_infinite_prior_df() {
        let s2 = [2.0; 12];
        let mean: Vec<f64> = (0..12).map(|i| 10.0 + i as f64).collect();
        let p = Prior::fit(&s2, &mean, 4.0).expect("12 symbols");
        assert!(p.d0.is_infinite() && p.d_cap == 8.0);
        assert_eq!(p.trend_r, 0.0);
        // e = ln 2 − ψ(2) + ln 2 for all; s0² = exp(e) at d0 = ∞.
        let e = 2f64.ln() - digamma(2.0) + 2f64.ln();
        assert!(close(p.scale(11.0), e.exp(), 1e-13));
        for disp in p.posterior(&s2, &mean) {
            assert_eq!(disp.df, 12.0);
            assert!(disp.phi >= 1.0);
        }
    }

    /// A symbol far above the prior keeps little of it; the others keep
    /// the capped weight; weights never fall as symbols get less extreme.
    #[test]
    fn robust_weights_protect_a_very_noisy_symbol() {
        let mut s2: Vec<f64> = (0..30).map(|i| 0.6 + 0.05 * i as f64).collect();
        s2.push(60.0);
        let mean = vec![40.0; s2.len()];
        let p = Prior::fit(&s2, &mean, 2.0).expect("31 symbols");
        assert_eq!(p.d_cap, 4.0);
        let post = p.posterior(&s2, &mean);
        let noisy = post[30];
        assert!(noisy.df < 2.5, "{noisy:?}");
        assert!(noisy.phi > 30.0, "{noisy:?}");
        let typical = post[10];
        assert!(close(typical.df, 2.0 + p.d_cap, 1e-12), "{typical:?}");
        let mut by_ratio: Vec<(f64, f64)> = s2.iter().zip(&post).map(|(s, d)| (*s, d.df)).collect();
        by_ratio.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(by_ratio.windows(2).all(|w| w[0].1 >= w[1].1 - 1e-12));
    }

    /// A trend in abundance is found: s² = 1 + 0.01 μ exactly.
    #[test]
    fn trend_follows_constant_cv() {
        let mean: Vec<f64> = (0..40).map(|i| 5.0 * 1.2f64.powi(i)).collect();
        let s2: Vec<f64> = mean.iter().map(|m| 1.0 + 0.01 * m).collect();
        let p = Prior::fit(&s2, &mean, 6.0).expect("40 symbols");
        assert!(close(p.trend_r, 0.01, 0.13), "{p:?}");
    }

    /// A few very noisy symbols at the top of the abundance range (other
    /// processes in a system-wide recording) no longer pull the trend to
    /// the edge of its grid: the shape is fitted by absolute deviations and
    /// the trend is held within the bins' own levels, so a quiet symbol of
    /// high abundance keeps a prior near the others'.
    #[test]
    fn a_few_noisy_abundant_symbols_cannot_run_the_trend_off() {
        let mut mean: Vec<f64> = (0..60).map(|i| 10.0 * 1.08f64.powi(i)).collect();
        let mut s2: Vec<f64> = (0..60)
            .map(|i| 0.8 + 0.4 * ((i * 7 % 11) as f64 / 10.0))
            .collect();
        for k in 0..6 {
            mean.push(1500.0 + 300.0 * k as f64);
            s2.push(400.0 + 50.0 * k as f64);
        }
        let p = Prior::fit(&s2, &mean, 2.0).expect("66 symbols");
        assert!(p.trend_lo <= p.trend_hi);
        // Held within the bins' levels: at the largest abundance the prior
        // is at most the top bin's level, far below the noisy symbols' s².
        let top = p.scale(3000.0);
        assert!(top < 50.0, "{p:?}: s0² at 3000 = {top}");
        assert!(p.trend(1e9) <= p.trend_hi && p.trend(0.0) >= p.trend_lo);
        // Least squares (version 2) ran to the grid's top: r = 1000.
        assert!(p.trend_r < 1000.0, "{p:?}");
    }
}
