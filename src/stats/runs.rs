//! Runs unlike their siblings (docs/statistics.md §5.5): with three or more
//! runs on a side, each run is compared with the others of its side, symbol
//! by symbol, against the noise the model expects; a run far beyond it in
//! many symbols (its scale) or hugely in a few (its extremes) is named, both
//! measured against the noise its siblings show, so that on a machine where
//! every run is noisier than the model says only the odd one is.
//! Input: one side's per-run counts of every row, the runs' exposures, each
//! row's dispersion φ and whether it is in the fitting set; output: per run
//! a [`RunCheck`].

use super::describe::median;
use super::dist::f1_upper_quantile;

/// The median of χ²₁: the scale of a run whose residuals are as the model says.
pub const CHI2_1_MEDIAN: f64 = 0.454_936_423_119_572_8;
/// A run whose scale is beyond this is unlike its siblings in many symbols.
pub const SCALE_LIMIT: f64 = 2.0;
/// The family-wise level of a run's extremes (Bonferroni over the symbols).
pub const EXTREME_LEVEL: f64 = 0.001;
/// How many of a run's worst symbols are kept for the message.
pub const WORST: usize = 3;

/// One run against its siblings.
#[derive(Clone, Debug, PartialEq)]
pub struct RunCheck {
    /// The run's index in its side.
    pub run: usize,
    /// `median_U z²_ri / median(χ²₁)`: 1 for a run as noisy as the model.
    pub scale: f64,
    /// `scale / max(1, median of the side's other runs' scales)`: 1 for a
    /// run as noisy as its siblings (with a noise model, the scale).
    pub relative: f64,
    /// Symbols of U whose z², over the same floor of the siblings' scale,
    /// is beyond the χ²₁ quantile at `EXTREME_LEVEL / |U|`, among those in
    /// which this run is the furthest of its side from its siblings.
    pub extremes: usize,
    /// The run's largest z² among those symbols: (row, z², its count, the
    /// siblings' expected count).
    pub worst: Vec<(usize, f64, f64, f64)>,
    /// The run's quality weight (limma's `arrayWeights` idea, one variance
    /// factor per run): `1 / relative` for a run noisier than its siblings
    /// by more than [`SCALE_LIMIT`], else 1.
    pub weight: f64,
}

impl RunCheck {
    /// Unlike its siblings: in many symbols, or hugely in a few.
    pub fn unlike(&self) -> bool {
        self.relative > SCALE_LIMIT || self.extremes > 0
    }
}

/// A run's quality weight from its relative scale: 1 unless it is beyond
/// [`SCALE_LIMIT`], then its inverse (so that, weighted, it is as noisy as
/// its siblings).
fn weight_of(relative: f64) -> f64 {
    if relative > SCALE_LIMIT {
        1.0 / relative
    } else {
        1.0
    }
}

/// §5.5 for one side with three or more runs: `counts(i)` gives row i's
/// count in every run of the side, `exposures` the runs', `phi[i]` the
/// row's dispersion and `fit[i]` whether it is in U. For run r and row i,
/// with the siblings' rate `ρ_−r = (Σ_s c_s − c_r)/(Σ_s N_s − N_r)`,
/// `μ = N_r ρ_−r` and `z² = (c_r − μ)² / (φ_i max(μ, 1) (1 + N_r/(Σ N − N_r)))`
/// (the variance of the difference of the run and its siblings' fit).
/// Each run's scale and z² are then read against `max(1, median of the
/// other runs' scales)`: a run is unlike its siblings when it is noisier
/// than they are, not than the model. Empty when the side has fewer than 3
/// runs or U is empty.
pub fn check_side<'a>(
    n_rows: usize,
    counts: impl Fn(usize) -> &'a [f64],
    exposures: &[f64],
    phi: &[f64],
    fit: &[bool],
) -> Vec<RunCheck> {
    let runs = exposures.len();
    let u: Vec<usize> = (0..n_rows).filter(|&i| fit[i]).collect();
    if runs < 3 || u.is_empty() {
        return Vec::new();
    }
    let total: f64 = exposures.iter().sum();
    let limit = f1_upper_quantile(EXTREME_LEVEL / u.len() as f64, f64::INFINITY);
    // z² of every run in every symbol of U: (row, z², count, expected).
    let z2: Vec<Vec<(usize, f64, f64, f64)>> = (0..runs)
        .map(|r| {
            let rest = total - exposures[r];
            let lever = 1.0 + exposures[r] / rest;
            u.iter()
                .map(|&i| {
                    let c = counts(i);
                    let others: f64 = c.iter().sum::<f64>() - c[r];
                    let mu = exposures[r] * others / rest;
                    let z2 = (c[r] - mu).powi(2) / (phi[i].max(1.0) * mu.max(1.0) * lever);
                    (i, z2, c[r], mu)
                })
                .collect()
        })
        .collect();
    // A symbol's extreme counts against the run furthest from its siblings
    // in it (a burst in one run also moves every other run's siblings).
    let furthest: Vec<usize> = (0..u.len())
        .map(|k| {
            (0..runs)
                .max_by(|&a, &b| z2[a][k].1.total_cmp(&z2[b][k].1).then(b.cmp(&a)))
                .unwrap_or(0)
        })
        .collect();
    let scales: Vec<f64> = z2
        .iter()
        .map(|z| median(&z.iter().map(|z| z.1).collect::<Vec<_>>()) / CHI2_1_MEDIAN)
        .collect();
    z2.into_iter()
        .enumerate()
        .map(|(r, z)| {
            let scale = scales[r];
            let others: Vec<f64> = (0..runs).filter(|&q| q != r).map(|q| scales[q]).collect();
            let floor = median(&others).max(1.0);
            let relative = scale / floor;
            let mut own: Vec<(usize, f64, f64, f64)> = z
                .into_iter()
                .enumerate()
                .filter(|&(k, _)| furthest[k] == r)
                .map(|(_, z)| z)
                .collect();
            let extremes = own.iter().filter(|z| z.1 / floor > limit).count();
            // Largest first; ties in row order.
            own.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            own.truncate(WORST);
            RunCheck {
                run: r,
                scale,
                relative,
                extremes,
                worst: own,
                weight: weight_of(relative),
            }
        })
        .collect()
}

/// §5.5 with a noise model: one run against what the model's replicates
/// expect of it: per row of U, its count `c`, the model's expected count
/// `μ` in this run and the model's dispersion φ there, with
/// `z² = (c − μ)² / (φ max(μ, 1) (1 + 1/R))` for a model of R runs.
pub fn check_against(rows: &[(usize, f64, f64, f64)], model_runs: usize) -> Option<RunCheck> {
    if rows.is_empty() || model_runs == 0 {
        return None;
    }
    let lever = 1.0 + 1.0 / model_runs as f64;
    let limit = f1_upper_quantile(EXTREME_LEVEL / rows.len() as f64, f64::INFINITY);
    let mut z2: Vec<(usize, f64, f64, f64)> = rows
        .iter()
        .map(|&(i, c, mu, phi)| {
            (
                i,
                (c - mu).powi(2) / (phi.max(1.0) * mu.max(1.0) * lever),
                c,
                mu,
            )
        })
        .collect();
    let scale = median(&z2.iter().map(|z| z.1).collect::<Vec<_>>()) / CHI2_1_MEDIAN;
    let extremes = z2.iter().filter(|z| z.1 > limit).count();
    z2.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    z2.truncate(WORST);
    Some(RunCheck {
        run: 0,
        scale,
        relative: scale,
        extremes,
        worst: z2,
        weight: weight_of(scale),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four runs alike and one with a burst in two symbols and twice the
    /// noise elsewhere: only the odd run is unlike its siblings, and its
    /// burst symbols are its worst.
    #[test]
    fn the_odd_run_is_named_with_its_worst_symbols() {
        let n = 40;
        let mut rows: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let base = 50.0 + 10.0 * i as f64;
                // alike runs: a small deterministic wobble
                (0..5)
                    .map(|r| base + ((i * 3 + r * 7) % 5) as f64 - 2.0)
                    .collect()
            })
            .collect();
        rows[3][4] = 900.0;
        rows[7][4] = 1.0;
        for (i, row) in rows.iter_mut().enumerate() {
            if i % 2 == 0 && i != 3 {
                row[4] += 0.3 * row[4] * if i % 4 == 0 { 1.0 } else { -1.0 };
            }
        }
        let exposures = [10_000.0; 5];
        let phi = vec![1.0; n];
        let fit = vec![true; n];
        let checks = check_side(n, |i| &rows[i], &exposures, &phi, &fit);
        assert_eq!(checks.len(), 5);
        let unlike: Vec<usize> = checks
            .iter()
            .filter(|c| c.unlike())
            .map(|c| c.run)
            .collect();
        assert_eq!(unlike, [4], "{checks:?}");
        let odd = &checks[4];
        assert!(odd.weight < 1.0 && odd.relative > SCALE_LIMIT, "{odd:?}");
        assert_eq!(odd.worst[0].0, 3);
        assert!(checks[..4]
            .iter()
            .all(|c| c.weight == 1.0 || c.scale < SCALE_LIMIT));
        // Every run three times as noisy as the model: none is unlike the
        // others (each is read against its siblings' scale).
        let even: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let base = 200.0 + 10.0 * i as f64;
                (0..4)
                    .map(|r| base * (1.0 + 0.1 * (((i + r) % 4) as f64 - 1.5)))
                    .collect()
            })
            .collect();
        let checks = check_side(n, |i| &even[i], &exposures[..4], &phi, &fit);
        assert!(
            checks.iter().all(|c| c.scale > SCALE_LIMIT && !c.unlike()),
            "{checks:?}"
        );
        // Two runs: nothing to compare a run with.
        assert!(check_side(n, |i| &rows[i][..2], &exposures[..2], &phi, &fit).is_empty());
    }
}
