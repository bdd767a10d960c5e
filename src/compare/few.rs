//! Sides the filters leave too few samples to mark anything on: a symbol
//! can be found significantly higher on a side only when the exact
//! conditional test can reach α with that side's kept samples, all of
//! them the symbol's: `2·π^K ≤ α`, with K the side's kept samples (over
//! its runs) and π its part of the comparison's exposure (statistics.md,
//! the smallest reachable p). Below that no rise on the side (a
//! regression for a NEW side, an improvement for OLD) can be marked,
//! whatever the counts: said, with the count and the filters.

use super::Config;
use crate::aggregate::{self, Matrix, Side};

/// The smallest number of a side's samples, all of one symbol, whose
/// exact test can reach `alpha` when the side holds `pi` of the exposure.
pub fn min_samples(pi: f64, alpha: f64) -> f64 {
    if !(pi > 0.0 && pi < 1.0) {
        return f64::INFINITY;
    }
    ((alpha / 2.0).ln() / pi.ln()).ceil().max(1.0)
}

/// Each side's kept samples: of the shown rows (each sample once under
/// `--inclusive`).
fn kept(matrix: &Matrix, s: usize) -> f64 {
    if let Some(k) = &matrix.kept {
        return k[s].iter().sum();
    }
    matrix.counts[s]
        .iter()
        .flat_map(|run| run.iter().zip(&matrix.symbols))
        .filter(|(_, sym)| sym.shown)
        .map(|(c, _)| c)
        .sum()
}

/// The filters given, for the message.
fn filters(config: &Config) -> String {
    let p = &config.load.parse;
    let id = &config.identity;
    let given = [
        (p.comm.is_some(), "--comm"),
        (p.pid.is_some(), "--pid"),
        (p.dso.is_some(), "--dso"),
        (p.kernel_only, "--kernel-only"),
        (id.include.is_some(), "--include"),
        (id.exclude.is_some(), "--exclude"),
        (id.exclude_idle, "--exclude-idle"),
    ];
    let on: Vec<&str> = given.iter().filter(|g| g.0).map(|g| g.1).collect();
    match on.as_slice() {
        [] => String::new(),
        f => format!(" after the filters ({})", f.join(", ")),
    }
}

/// The warnings: one per side of each comparison that cannot be marked.
pub fn warnings(
    sides: &[Side],
    matrix: &Matrix,
    exposures: &[Vec<f64>],
    config: &Config,
) -> Vec<String> {
    if !aggregate::counts_are_samples(sides) || sides.len() < 2 {
        return Vec::new();
    }
    let alpha = config.diff.alpha;
    let e = |s: usize| exposures[s].iter().sum::<f64>();
    let mut out = Vec::new();
    for j in 1..sides.len() {
        for (s, other, what) in [(0, j, "improvement"), (j, 0, "regression")] {
            let pi = e(s) / (e(s) + e(other));
            let (k, need) = (kept(matrix, s), min_samples(pi, alpha));
            // (a side the filters leave nothing of is said where they are)
            if k == 0.0 || k >= need || out.iter().any(|(t, _)| *t == s) {
                continue;
            }
            let name = crate::text::side_name(&sides[s].name);
            out.push((
                s,
                format!(
                    "{name} keeps {} sample(s) in {} run(s){}: no {what} can be marked \
                     (a symbol needs {} or more of {name}'s samples to be significantly \
                     higher there at alpha {alpha}); record longer or loosen the filters",
                    aggregate::fmt_count(k),
                    sides[s].runs.len(),
                    filters(config),
                    aggregate::fmt_count(need),
                ),
            ));
        }
    }
    out.into_iter().map(|(_, w)| w).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With equal exposures 6 samples reach 0.05 (2·0.5⁶ = 0.031) and 5
    /// do not (0.0625), as `min_reachable_p` says.
    #[test]
    fn the_threshold_is_the_smallest_reachable_p() {
        assert_eq!(min_samples(0.5, 0.05), 6.0);
        assert!(crate::stats::min_reachable_p(6.0, 0.5) <= 0.05);
        assert!(crate::stats::min_reachable_p(5.0, 0.5) > 0.05);
        assert_eq!(min_samples(0.5, 0.01), 8.0);
        assert_eq!(min_samples(0.25, 0.05), 3.0);
        assert_eq!(min_samples(0.0, 0.05), f64::INFINITY);
    }
}
