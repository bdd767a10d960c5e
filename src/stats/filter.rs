//! Independent filtering of the multiple-testing family (docs/statistics.md
//! §8.3; Bourgon, Gentleman & Huber 2010, as DESeq2's `results()` does it):
//! rows whose filter statistic (the mean count per run, which under no
//! change says nothing of the test) is below a threshold leave the family,
//! and the threshold is the quantile of the statistic at which the
//! adjustment rejects the most rows, read off a smooth of the rejection
//! counts so that their noise does not choose it. Input: the tested rows'
//! filter statistics and p-values; output: a [`Filter`].

use super::adjust::Adjust;

/// The quantiles of the filter statistic tried: `θ_j = 0.95 j / 49`.
pub const FILTER_QUANTILES: usize = 50;
/// The largest quantile tried.
pub const FILTER_TOP: f64 = 0.95;
/// The filter acts only when some threshold rejects more rows than this
/// (DESeq2's limit): in a family with no change the most abundant rows,
/// whose run-to-run noise the model knows least well, are rejected
/// together at a lucky threshold.
pub const FILTER_MIN_REJECTIONS: usize = 10;
/// The lowess span of the smooth of the rejection counts.
pub const FILTER_SPAN: f64 = 0.2;

/// The threshold chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Filter {
    /// Rows with a filter statistic below this leave the family.
    pub threshold: f64,
    /// The quantile θ of the tested rows' statistics it is.
    pub quantile: f64,
    /// Rows rejected at it, over the rows tested (all of them).
    pub rejections: usize,
    /// Tested rows below it.
    pub filtered: usize,
}

/// The sample quantile of sorted `x` at `p` (R's type 7: linear
/// interpolation between order statistics, `h = (n − 1) p`).
pub fn quantile7(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// How many of the p-values (sorted ascending) the adjustment rejects at
/// `alpha`, counting only the ones `keep` says are in the family: the
/// same count as the q-values of [`super::adjust`] at most `alpha`.
fn rejections(sorted_p: &[(f64, bool)], adjust: Adjust, alpha: f64) -> usize {
    let m = sorted_p.iter().filter(|p| p.1).count();
    let mf = m as f64;
    let c: f64 = match adjust {
        Adjust::By => (1..=m).map(|i| 1.0 / i as f64).sum(),
        _ => 1.0,
    };
    let kept = sorted_p.iter().filter(|p| p.1).map(|p| p.0);
    match adjust {
        // The largest rank l with m c p_(l) / l ≤ α (q is a running min).
        Adjust::Bh | Adjust::By => kept
            .enumerate()
            .filter(|&(l, p)| (mf * c * p / (l + 1) as f64).min(1.0) <= alpha)
            .map(|(l, _)| l + 1)
            .last()
            .unwrap_or(0),
        // The ranks before the first with (m − l + 1) p_(l) > α (a running max).
        Adjust::Holm => kept
            .enumerate()
            .take_while(|&(l, p)| ((mf - l as f64) * p).min(1.0) <= alpha)
            .count(),
    }
}

/// Cleveland's (1979) robust locally weighted linear regression of `y` on
/// `x` (sorted, distinct), as R's `lowess(x, y, f, iter = 3)` computes it
/// when no two x are within its `delta` (every point is fitted): at each
/// x_i a line fitted by weighted least squares to its `⌊f n⌋` nearest
/// points (at least 2) with tricube weights of the distance over the
/// largest distance among them (weight 1 within 0.001 of it, 0 beyond
/// 0.999), then three rounds with the weights multiplied by the bisquare
/// of each residual over 6 times the median absolute residual.
pub fn lowess(x: &[f64], y: &[f64], f: f64) -> Vec<f64> {
    let n = x.len();
    if n < 2 {
        return y.to_vec();
    }
    let ns = ((f * n as f64 + 1e-7) as usize).clamp(2, n);
    let range = x[n - 1] - x[0];
    let mut robust = vec![1.0; n];
    let mut fit = vec![0.0; n];
    for round in 0..4 {
        let mut left = 0;
        for i in 0..n {
            // Slide the window of ns points while that brings it closer.
            while left + ns < n && x[i] - x[left] > x[left + ns] - x[i] {
                left += 1;
            }
            let right = left + ns - 1;
            let h = (x[i] - x[left]).max(x[right] - x[i]);
            let mut w = vec![0.0; n];
            let mut sum = 0.0;
            for j in 0..n {
                let r = (x[j] - x[i]).abs();
                if r <= 0.999 * h {
                    let wj = if r <= 0.001 * h {
                        1.0
                    } else {
                        (1.0 - (r / h).powi(3)).powi(3)
                    };
                    w[j] = wj * robust[j];
                    sum += w[j];
                }
            }
            if sum <= 0.0 {
                fit[i] = y[i];
                continue;
            }
            w.iter_mut().for_each(|w| *w /= sum);
            if h > 0.0 {
                let a: f64 = (0..n).map(|j| w[j] * x[j]).sum();
                let c: f64 = (0..n).map(|j| w[j] * (x[j] - a).powi(2)).sum();
                if c.sqrt() > 0.001 * range {
                    let b = (x[i] - a) / c;
                    for j in 0..n {
                        w[j] *= b * (x[j] - a) + 1.0;
                    }
                }
            }
            fit[i] = (0..n).map(|j| w[j] * y[j]).sum();
        }
        if round == 3 {
            break;
        }
        let res: Vec<f64> = (0..n).map(|i| (y[i] - fit[i]).abs()).collect();
        let scale = res.iter().sum::<f64>() / n as f64;
        let mut sorted = res.clone();
        sorted.sort_by(f64::total_cmp);
        let cmad = 3.0 * (sorted[n / 2] + sorted[(n - 1) / 2]);
        if cmad < 1e-7 * scale {
            break;
        }
        for i in 0..n {
            let r = res[i];
            robust[i] = if r <= 0.001 * cmad {
                1.0
            } else if r <= 0.999 * cmad {
                (1.0 - (r / cmad).powi(2)).powi(2)
            } else {
                0.0
            };
        }
    }
    fit
}

/// The index of the threshold DESeq2's `pvalueAdjustment` chooses from the
/// rejection counts `rej` at the quantiles `theta`: none (0) unless some
/// count exceeds [`FILTER_MIN_REJECTIONS`]; else the first whose count is
/// above the smooth's maximum less the root mean square of the residuals
/// (over the counts above 0), else the first above 0.9, then 0.8, of the
/// smooth's maximum.
pub fn choose(theta: &[f64], rej: &[usize]) -> usize {
    if rej.iter().all(|&r| r <= FILTER_MIN_REJECTIONS) {
        return 0;
    }
    let y: Vec<f64> = rej.iter().map(|&r| r as f64).collect();
    let fit = lowess(theta, &y, FILTER_SPAN);
    let res: Vec<f64> = (0..y.len())
        .filter(|&j| y[j] > 0.0)
        .map(|j| y[j] - fit[j])
        .collect();
    let rmse = (res.iter().map(|r| r * r).sum::<f64>() / res.len().max(1) as f64).sqrt();
    let max_fit = fit.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    [max_fit - rmse, 0.9 * max_fit, 0.8 * max_fit]
        .iter()
        .find_map(|&t| y.iter().position(|&v| v > t))
        .unwrap_or(0)
}

/// §8.3 over the tested rows (`stat[i]`, `p[i]`): the threshold, or None
/// with no row.
pub fn independent_filter(stat: &[f64], p: &[f64], adjust: Adjust, alpha: f64) -> Option<Filter> {
    if stat.is_empty() {
        return None;
    }
    let mut sorted_stat = stat.to_vec();
    sorted_stat.sort_by(f64::total_cmp);
    let mut order: Vec<usize> = (0..p.len()).collect();
    let clean = |v: f64| if v.is_nan() { 1.0 } else { v.clamp(0.0, 1.0) };
    order.sort_by(|&a, &b| clean(p[a]).total_cmp(&clean(p[b])));
    let theta: Vec<f64> = (0..FILTER_QUANTILES)
        .map(|j| FILTER_TOP * j as f64 / (FILTER_QUANTILES - 1) as f64)
        .collect();
    let cut: Vec<f64> = theta.iter().map(|&t| quantile7(&sorted_stat, t)).collect();
    let rej: Vec<usize> = cut
        .iter()
        .map(|&c| {
            let kept: Vec<(f64, bool)> =
                order.iter().map(|&i| (clean(p[i]), stat[i] >= c)).collect();
            rejections(&kept, adjust, alpha)
        })
        .collect();
    let j = choose(&theta, &rej);
    Some(Filter {
        threshold: cut[j],
        quantile: theta[j],
        rejections: rej[j],
        filtered: stat.iter().filter(|&&s| s < cut[j]).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rejection count is the count of q-values at most α, for each
    /// adjustment, ties included.
    #[test]
    fn rejections_agree_with_the_adjustment() {
        let p = [0.001, 0.004, 0.004, 0.02, 0.03, 0.2, 0.5, 0.9, 0.01, 0.04];
        for adj in [Adjust::Bh, Adjust::By, Adjust::Holm] {
            for alpha in [0.01, 0.05, 0.2] {
                let q = super::super::adjust(&p, adj);
                let want = q.iter().filter(|&&q| q <= alpha).count();
                let mut s: Vec<(f64, bool)> = p.iter().map(|&p| (p, true)).collect();
                s.sort_by(|a, b| a.0.total_cmp(&b.0));
                assert_eq!(rejections(&s, adj, alpha), want, "{adj:?} {alpha}");
            }
        }
    }

    /// R: `quantile(c(1, 2, 4, 8), c(0, 0.3, 0.5, 1))` is 1, 1.9, 3, 8.
    #[test]
    fn quantile_type_7() {
        let x = [1.0, 2.0, 4.0, 8.0];
        for (p, q) in [(0.0, 1.0), (0.3, 1.9), (0.5, 3.0), (1.0, 8.0)] {
            assert!((quantile7(&x, p) - q).abs() < 1e-12, "{p}");
        }
    }

    /// A line is its own smooth; one outlier is ignored by the robust
    /// rounds.
    #[test]
    fn lowess_fits_a_line_and_resists_an_outlier() {
        let x: Vec<f64> = (0..20).map(f64::from).collect();
        let mut y: Vec<f64> = x.iter().map(|x| 2.0 * x + 1.0).collect();
        let fit = lowess(&x, &y, 0.2);
        assert!(fit.iter().zip(&y).all(|(f, y)| (f - y).abs() < 1e-9));
        // (On exact data the residuals' median is 0 and the robust rounds
        // stop, as R's do: a small scatter, then the outlier. With a span
        // of 6 points every neighbour of the outlier would lose its weight
        // too, and the fit there copy the point, as R's does.)
        for (i, v) in y.iter_mut().enumerate() {
            *v += 0.5 * (1.7 * i as f64).sin();
        }
        y[10] = 100.0;
        let fit = lowess(&x, &y, 0.5);
        assert!((fit[10] - 21.0).abs() < 0.5, "{}", fit[10]);
    }

    /// docs/statistics.md §13, V11's rejection counts (by
    /// `scripts/verify-stats.py`): never above 10, so nothing is filtered;
    /// three times them (the smooth is equivariant under scale), the
    /// smooth's top is reached at θ_8; three times V10's fall from the
    /// start, so nothing is filtered either.
    #[test]
    fn the_threshold_of_the_vectors() {
        let theta: Vec<f64> = (0..50).map(|j| 0.95 * j as f64 / 49.0).collect();
        let runs = |v: &[(usize, usize)]| -> Vec<usize> {
            v.iter()
                .flat_map(|&(r, n)| std::iter::repeat_n(r, n))
                .collect()
        };
        let v11 = runs(&[
            (4, 8),
            (5, 4),
            (3, 8),
            (2, 8),
            (3, 4),
            (1, 4),
            (2, 4),
            (0, 4),
            (1, 6),
        ]);
        assert_eq!(choose(&theta, &v11), 0);
        let times3 = |v: &[usize]| -> Vec<usize> { v.iter().map(|r| 3 * r).collect() };
        assert_eq!(choose(&theta, &times3(&v11)), 8);
        let v10 = runs(&[(4, 12), (3, 8), (1, 4), (2, 12), (0, 4), (1, 10)]);
        assert_eq!(choose(&theta, &times3(&v10)), 0);
        let v6 = runs(&[(1, 13), (0, 37)]);
        assert_eq!(choose(&theta, &v6), 0);
    }

    /// No change anywhere: nothing is filtered. Strong changes among the
    /// abundant rows, noise among the rare: the rare leave the family and
    /// more rows are rejected than without the filter.
    #[test]
    fn the_filter_acts_only_when_it_gains() {
        let n = 300;
        let stat: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let null: Vec<f64> = (0..n).map(|i| (i as f64 + 0.5) / n as f64).collect();
        let f = independent_filter(&stat, &null, Adjust::Bh, 0.05).unwrap();
        assert_eq!((f.quantile, f.filtered), (0.0, 0), "{f:?}");
        // The 40 most abundant changed at p = 0.01: over 300 rows BH
        // needs 300 · 0.01 / 40 = 0.075 ≤ 0.05 and rejects none of them;
        // over the top half, 150 · 0.01 / 40 = 0.0375 and it rejects all.
        let mut p = null.clone();
        p.rotate_left(37);
        for v in p.iter_mut().skip(n - 40) {
            *v = 0.01;
        }
        let unfiltered = super::super::adjust(&p, Adjust::Bh)
            .iter()
            .filter(|&&q| q <= 0.05)
            .count();
        let f = independent_filter(&stat, &p, Adjust::Bh, 0.05).unwrap();
        assert!(
            f.rejections > unfiltered.max(FILTER_MIN_REJECTIONS),
            "{f:?} {unfiltered}"
        );
        assert!(f.filtered > 0 && f.threshold > 1.0, "{f:?}");
    }
}
