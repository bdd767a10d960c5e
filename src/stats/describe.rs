//! Descriptive helpers and `--normalize robust`: the median, the run-to-run
//! CV, and median-of-ratios size factors (statistics.md, "Normalisation").
//! Input: plain values or a runs × symbols count matrix; output: numbers.

/// Median of a slice: the middle value, or the mean of the two middle ones
/// for an even length. Meant for non-empty, NaN-free input (any NaN sorts
/// last under `total_cmp`); an empty slice gives NaN rather than a panic.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// [`median`] without a copy, in linear time (reorders `values`): the same
/// number, as the order statistics are the same values.
pub fn median_in_place(values: &mut [f64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    let (below, mid, _) = values.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        *mid
    } else {
        let lower = below
            .iter()
            .copied()
            .max_by(f64::total_cmp)
            .expect("n even and positive: a value below the middle");
        0.5 * (lower + *mid)
    }
}

/// Run-to-run CV in percent of per-run normalised values:
/// `100 · sd / mean`, sample sd with `n − 1`. None for fewer than two
/// values, a zero (or non-finite) mean, or non-finite input.
pub fn cv_percent(values: &[f64]) -> Option<f64> {
    if values.len() < 2 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if mean == 0.0 || !mean.is_finite() {
        return None;
    }
    let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    Some(100.0 * (ss / (n - 1.0)).sqrt() / mean)
}

/// Minimum count a symbol needs in every run to enter the size factors.
pub const SIZE_FACTOR_MIN_COUNT: f64 = 5.0;

/// `--normalize robust`: median-of-ratios size factors (Anders & Huber
/// 2010, DESeq). `counts[r][i]` = count of symbol i in run r (all runs of both
/// sides, same symbol order). Uses the symbols with ≥ 5 counts in EVERY run;
/// `g_i` = geometric mean of symbol i over all runs, `s_r = median_i
/// c[r,i] / g_i`. One exploding symbol moves its own ratio, not the median,
/// so the other symbols keep their scale. Rows of unequal length are
/// compared over their common prefix. Returns None when no symbol qualifies
/// (or there are no runs); the caller reports an error that says so.
pub fn size_factors(counts: &[Vec<f64>]) -> Option<Vec<f64>> {
    let n_symbols = counts.iter().map(Vec::len).min()?;
    let qualifying: Vec<usize> = (0..n_symbols)
        .filter(|&i| {
            counts
                .iter()
                .all(|run| run[i].is_finite() && run[i] >= SIZE_FACTOR_MIN_COUNT)
        })
        .collect();
    if qualifying.is_empty() {
        return None;
    }
    let runs = counts.len() as f64;
    let ln_g: Vec<f64> = qualifying
        .iter()
        .map(|&i| counts.iter().map(|run| run[i].ln()).sum::<f64>() / runs)
        .collect();
    let factors = counts
        .iter()
        .map(|run| {
            let ratios: Vec<f64> = qualifying
                .iter()
                .zip(&ln_g)
                .map(|(&i, lg)| (run[i].ln() - lg).exp())
                .collect();
            median(&ratios)
        })
        .collect();
    Some(factors)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same number as sorting a copy, bit for bit: odd and even
    /// lengths, ties, signed zeros, infinities and NaN.
    #[test]
    fn median_in_place_is_median() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let special = [
            0.0,
            -0.0,
            1.0,
            1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            2.5,
        ];
        for n in 0..200 {
            let v: Vec<f64> = (0..n)
                .map(|_| match next() % 4 {
                    0 => special[(next() % 8) as usize],
                    1 => (next() % 5) as f64,
                    _ => f64::from_bits(next()),
                })
                .collect();
            let mut w = v.clone();
            assert_eq!(
                median_in_place(&mut w).to_bits(),
                median(&v).to_bits(),
                "{v:?}"
            );
        }
    }

    fn sig4(got: f64, want: f64) -> bool {
        (got - want).abs() <= 5e-4 * want.abs()
    }

    #[test]
    fn median_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[-0.5]), -0.5);
        assert!(median(&[]).is_nan());
    }

    /// statistics.md three-runs case: per-run shares' CV, old 3.595%, new 6.531%.
    #[test]
    fn cv_vector() {
        let old = [120.0 / 10000.0, 130.0 / 10100.0, 125.0 / 9900.0];
        let new = [160.0 / 10050.0, 170.0 / 9950.0, 150.0 / 10000.0];
        assert!(sig4(cv_percent(&old).unwrap_or(0.0), 3.595));
        assert!(sig4(cv_percent(&new).unwrap_or(0.0), 6.531));
        assert_eq!(cv_percent(&[1.0]), None);
        assert_eq!(cv_percent(&[0.0, 0.0]), None);
        assert_eq!(cv_percent(&[2.0, 2.0]), Some(0.0));
    }

    /// statistics.md robust example: old A=1000, B=1000, C=8000; new
    /// A=1000, B=1000, C=18000. g = (1000, 1000, 12000); ratios per run
    /// (1, 1, 2/3) and (1, 1, 3/2), so both size factors are 1 and the
    /// ratios c_new/s_new ÷ c_old/s_old are A 1.000, B 1.000, C 2.250.
    #[test]
    fn robust_example() {
        let counts = vec![vec![1000.0, 1000.0, 8000.0], vec![1000.0, 1000.0, 18000.0]];
        let s = size_factors(&counts).expect("all qualify");
        assert!(sig4(s[0], 1.0) && sig4(s[1], 1.0), "{s:?}");
        let ratio = |i: usize| (counts[1][i] / s[1]) / (counts[0][i] / s[0]);
        assert!(sig4(ratio(0), 1.000) && sig4(ratio(1), 1.000) && sig4(ratio(2), 2.250));
        // Share mode would say A halves: (1000/20000) / (1000/10000) = 0.5.
    }

    #[test]
    fn size_factors_scale_and_filter() {
        // Run 2 is run 1 at twice the depth; symbol 2 (< 5 in run 1) is left out.
        let counts = vec![vec![10.0, 40.0, 4.0, 90.0], vec![20.0, 80.0, 50.0, 180.0]];
        let s = size_factors(&counts).expect("three qualify");
        assert!(sig4(s[1] / s[0], 2.0) && sig4(s[0] * s[1], 1.0), "{s:?}");
        assert_eq!(size_factors(&[vec![4.0, 0.0], vec![100.0, 3.0]]), None);
        assert_eq!(size_factors(&[]), None);
        assert_eq!(size_factors(&[vec![], vec![]]), None);
    }
}
