//! The composition warning (share mode): when a few symbols change a lot,
//! every other symbol's share moves the other way, and a reader should
//! know before taking many small `-` rows at face value. The common shift
//! is the median log-ratio of the symbols with 100 or more samples on each
//! side. It is warned about only when it is at least 2% **and** larger than
//! its own run-to-run noise:
//!
//! - with 3 or more runs in all, each run's shift is the median over those
//!   symbols of `ln(share in the run / pooled share of both sides)`; the
//!   NEW runs' mean shift minus the OLD runs' is tested against the runs'
//!   scatter with Student's t on `n − 2` degrees of freedom (pooled
//!   variance), at the report's α;
//! - with one run per side the shift's run-to-run noise cannot be
//!   measured: it must exceed twice a typical symbol's noise, the median
//!   of `√(φ (1/x + 1/y))` (the log-ratio's standard deviation at the
//!   dispersion φ each row was tested with).
//!
//! Measured on real A/A comparisons (the same workload on both sides), the
//! 2% rule alone fired in a third of them; with the test, in under 2%.

use super::Row;
use crate::stats;
use std::borrow::Borrow;

/// Symbols with fewer samples than this on a side do not vote.
const MIN_COUNT: f64 = 100.0;
/// Fewer voting symbols than this: no warning.
const MIN_SYMBOLS: usize = 5;
/// Shifts smaller than this (in log ratio) never warn.
const MIN_SHIFT: f64 = 0.02;

/// The warning for a comparison (`side` begins it: empty, or `NEW2 vs OLD: `),
/// if its common shift is real.
pub fn warning<R: Borrow<Row>>(
    rows: &[R],
    old_exp: &[f64],
    new_exp: &[f64],
    alpha: f64,
    side: &str,
) -> Option<String> {
    let voters: Vec<&Row> = rows
        .iter()
        .map(Borrow::borrow)
        .filter(|r| {
            r.old_counts().iter().sum::<f64>() >= MIN_COUNT
                && r.new_counts().iter().sum::<f64>() >= MIN_COUNT
        })
        .collect();
    if voters.len() < MIN_SYMBOLS {
        return None;
    }
    let logs: Vec<f64> = voters.iter().map(|r| (r.new / r.old).ln()).collect();
    let m = stats::median(&logs);
    if m.is_nan() || m.abs() < MIN_SHIFT {
        return None;
    }
    let why = if old_exp.len() + new_exp.len() >= 3 {
        let p = run_shift_p(&voters, old_exp, new_exp)?;
        if p > alpha {
            return None;
        }
        format!(
            "beyond the runs' own scatter of that shift (t test, p {})",
            crate::significance::pvalue(Some(p))
        )
    } else {
        let sd: Vec<f64> = voters
            .iter()
            .map(|r| {
                let (x, y): (f64, f64) = (r.old_counts().iter().sum(), r.new_counts().iter().sum());
                (r.dispersion().unwrap_or(1.0) * (1.0 / x + 1.0 / y)).sqrt()
            })
            .collect();
        let typical = stats::median(&sd);
        if typical.is_nan() || m.abs() <= 2.0 * typical {
            return None;
        }
        format!(
            "over twice a typical symbol's noise ({:.1}%)",
            typical * 100.0
        )
    };
    Some(format!(
        "{side}most symbols' shares shifted by {:+.1}%, {why}: composition effect? \
         consider --normalize robust or work",
        (m.exp() - 1.0) * 100.0
    ))
}

/// The p-value of "no common shift" from the per-run shifts (None when a
/// run has no usable symbol or the runs do not scatter at all).
fn run_shift_p(voters: &[&Row], old_exp: &[f64], new_exp: &[f64]) -> Option<f64> {
    let m_all: f64 = old_exp.iter().chain(new_exp).sum();
    let pooled: Vec<f64> = voters
        .iter()
        .map(|r| (r.old_counts().iter().sum::<f64>() + r.new_counts().iter().sum::<f64>()) / m_all)
        .collect();
    let shift = |counts: &dyn Fn(&Row) -> f64, exposure: f64| -> Option<f64> {
        let logs: Vec<f64> = voters
            .iter()
            .zip(&pooled)
            .filter_map(|(r, &g)| {
                let c = counts(r);
                (c > 0.0).then(|| (c / exposure / g).ln())
            })
            .collect();
        (logs.len() >= MIN_SYMBOLS).then(|| stats::median(&logs))
    };
    let old: Vec<f64> = (0..old_exp.len())
        .map(|k| shift(&|r: &Row| r.old_counts()[k], old_exp[k]))
        .collect::<Option<_>>()?;
    let new: Vec<f64> = (0..new_exp.len())
        .map(|k| shift(&|r: &Row| r.new_counts()[k], new_exp[k]))
        .collect::<Option<_>>()?;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mo, mn) = (mean(&old), mean(&new));
    let ss: f64 = old.iter().map(|x| (x - mo).powi(2)).sum::<f64>()
        + new.iter().map(|x| (x - mn).powi(2)).sum::<f64>();
    let df = (old.len() + new.len() - 2) as f64;
    let se = (ss / df * (1.0 / old.len() as f64 + 1.0 / new.len() as f64)).sqrt();
    if se.is_nan() || se <= 0.0 {
        return None;
    }
    let t = (mn - mo) / se;
    Some(stats::f1_sf(t * t, df))
}

#[cfg(test)]
mod tests {
    use super::super::tests::row;
    use super::*;
    use crate::diff::{SideCounts, Status};

    /// Rows of `n` runs per side: symbol i has `base[i]` samples per run,
    /// times `old_f[k]` / `new_f[k]` in run k; exposures are 10000 per run.
    fn rows(base: &[f64], old_f: &[f64], new_f: &[f64]) -> Vec<Row> {
        base.iter()
            .enumerate()
            .map(|(i, &b)| {
                let mut r = row(&format!("s{i}"), 0.0, Status::Changed, None, false);
                r.counts = SideCounts::of(
                    old_f.iter().map(|f| (b * f).round()),
                    new_f.iter().map(|f| (b * f).round()),
                );
                let (x, y): (f64, f64) = (r.old_counts().iter().sum(), r.new_counts().iter().sum());
                r.old = x / (10000.0 * old_f.len() as f64);
                r.new = y / (10000.0 * new_f.len() as f64);
                r
            })
            .collect()
    }

    const BASE: [f64; 8] = [900.0, 700.0, 600.0, 500.0, 400.0, 300.0, 250.0, 200.0];

    #[test]
    fn a_shift_within_the_runs_own_scatter_is_not_warned() {
        // Runs scatter by ±8%; the sides differ by 5% on average.
        let r = rows(&BASE, &[0.92, 1.08, 0.95, 1.05], &[1.0, 1.12, 0.97, 1.11]);
        let e = [10000.0; 4];
        assert_eq!(warning(&r, &e, &e, 0.05, "new"), None);
    }

    #[test]
    fn a_shift_beyond_the_runs_scatter_is_warned() {
        let r = rows(&BASE, &[1.0, 1.01, 0.99], &[1.15, 1.16, 1.14]);
        let e = [10000.0; 3];
        let w = warning(&r, &e, &e, 0.05, "NEW2 vs OLD: ").unwrap_or_default();
        assert!(
            w.starts_with("NEW2 vs OLD: most symbols' shares shifted by +15.0%"),
            "{w}"
        );
        assert!(w.contains("t test, p"), "{w}");
        // Under 2% never warns, however consistent.
        let r = rows(&BASE, &[1.0, 1.001, 0.999], &[1.01, 1.011, 1.009]);
        assert_eq!(warning(&r, &e, &e, 0.05, "new"), None);
    }

    #[test]
    fn one_run_per_side_needs_twice_a_symbols_noise() {
        let e = [10000.0];
        // Typical noise here is about 6% (a few hundred samples per symbol).
        let small = rows(&BASE, &[1.0], &[1.08]);
        assert_eq!(warning(&small, &e, &e, 0.05, "new"), None);
        let large = rows(&BASE, &[1.0], &[1.3]);
        let w = warning(&large, &e, &e, 0.05, "new").unwrap_or_default();
        assert!(w.contains("over twice a typical symbol's noise"), "{w}");
    }
}
