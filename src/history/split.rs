//! The best split of one segment of one symbol's series and its test
//! (docs/statistics.md §14.1): the likelihood-ratio statistic at every split
//! with two runs on each side, the bound for the choice among them, and the
//! drift rule (a log-linear trend against the step). Input: the symbol's
//! counts and exposures pooled per kernel; output: the candidate step.

use super::maxsplit;
use crate::stats::{self, Adjust, Dispersion};

/// A split needs this many runs on each side (§14.1).
pub const MIN_SIDE_RUNS: usize = 2;

/// The runs of a series: each run's kernel (0-based, in series order,
/// runs grouped by kernel) and exposure.
#[derive(Clone, Debug)]
pub struct Runs {
    pub kernel: Vec<usize>,
    pub exposure: Vec<f64>,
    pub kernels: usize,
}

impl Runs {
    /// The runs of each kernel, as index ranges into the run vectors.
    pub(super) fn ranges(&self) -> Vec<std::ops::Range<usize>> {
        let mut start = 0;
        (0..self.kernels)
            .map(|k| {
                let mut end = start;
                while end < self.kernel.len() && self.kernel[end] == k {
                    end += 1;
                }
                let r = start..end;
                start = end;
                r
            })
            .collect()
    }
}

/// What to test and how.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub alpha: f64,
    pub adjust: Adjust,
    /// False when counts are not sample counts: nothing is tested.
    pub testable: bool,
}

/// A candidate step: the best split of one segment of one symbol's series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    pub symbol: usize,
    /// The segment `[start, end)` of kernels it splits.
    pub start: usize,
    pub end: usize,
    /// The first kernel after the split.
    pub at: usize,
    pub lr: f64,
    /// `max(p_exact, p_ql)` at this split, before the correction for the
    /// choice among the segment's splits.
    pub p_point: f64,
    /// The p of the best of the segment's splits ([`maxsplit::max_p`]);
    /// 1 for a drift.
    pub p: f64,
    /// The linear trend fits the segment at least as well as the step.
    pub drift: bool,
    /// `p ≤ α` and not a drift: the segment is split here.
    pub split: bool,
    /// q within its round's family (§14.4); 1 outside every family.
    pub q: f64,
    pub significant: bool,
    /// Its round's t (§8), the level of its interval.
    pub t: f64,
    /// Its round (1, 2, …; the benchmark round last); 0 in none.
    pub round: usize,
    /// How its kernel was found (§14.5).
    pub found: Found,
    /// The kernel its own best split named (differs from `at` when moved).
    pub own_at: usize,
}

/// How a step's kernel was found (§14.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// The best split of the symbol's own segment.
    Own,
    /// Its own test, placed at a step kernel of the benchmark that its own
    /// data cannot tell from its best split.
    Moved,
    /// The benchmark round: a split at one of the benchmark's step kernels.
    Benchmark,
}

/// Per symbol: counts and exposures pooled per kernel.
pub(super) struct Pooled {
    pub c: Vec<f64>,
    pub e: Vec<f64>,
    /// Runs per kernel.
    pub n: Vec<usize>,
}

pub(super) fn pool(counts: &[f64], runs: &Runs, ranges: &[std::ops::Range<usize>]) -> Pooled {
    let c = ranges
        .iter()
        .map(|r| counts[r.clone()].iter().sum())
        .collect();
    let e = ranges
        .iter()
        .map(|r| runs.exposure[r.clone()].iter().sum())
        .collect();
    let n = ranges.iter().map(|r| r.len()).collect();
    Pooled { c, e, n }
}

/// The kernel boundaries of a symbol's segments: 0, every `at` of the
/// candidates `keep` takes, the kernel count; sorted.
pub(super) fn bounds(
    cands: &[Candidate],
    kernels: usize,
    keep: impl Fn(&Candidate) -> bool,
) -> Vec<usize> {
    let mut b: Vec<usize> = cands.iter().filter(|c| keep(c)).map(|c| c.at).collect();
    b.push(0);
    b.push(kernels);
    b.sort_unstable();
    b.dedup();
    b
}

/// The best split of kernels `[a, b)` and its test, or None when the
/// segment has fewer than 2 kernels or cannot reach significance.
pub(super) fn best_split(
    symbol: usize,
    p: &Pooled,
    (a, b): (usize, usize),
    disp: Dispersion,
    phi0: f64,
    alpha: f64,
) -> Option<Candidate> {
    let len = b - a;
    if len < 2 {
        return None;
    }
    let total_c: f64 = p.c[a..b].iter().sum();
    let total_e: f64 = p.e[a..b].iter().sum();
    if total_c <= 0.0 {
        return None;
    }
    let total_n: usize = p.n[a..b].iter().sum();
    let (mut x, mut mx, mut nx) = (0.0, 0.0, 0);
    let mut best: Option<(usize, f64, f64, f64)> = None;
    let shares = split_shares(p, a, b);
    for tau in a + 1..b {
        x += p.c[tau - 1];
        mx += p.e[tau - 1];
        nx += p.n[tau - 1];
        // A level measured by one run has no replicate: each side needs two.
        if nx < MIN_SIDE_RUNS || total_n - nx < MIN_SIDE_RUNS {
            continue;
        }
        let (y, my) = (total_c - x, total_e - mx);
        let lr = stats::lr_stat(x, y, mx, my);
        if best.is_none_or(|bst| lr > bst.1) {
            best = Some((tau, lr, x, mx));
        }
    }
    let (at, lr, x, mx) = best?;
    let test = (disp, phi0, alpha);
    let (p_point, p_step, drift) = split_test(p, (a, b), (at, lr, x, mx), &shares, test)?;
    Some(Candidate {
        symbol,
        start: a,
        end: b,
        at,
        lr,
        p_point,
        p: p_step,
        drift,
        split: !drift && p_step <= alpha,
        q: 1.0,
        significant: false,
        t: alpha,
        round: 0,
        found: Found::Own,
        own_at: at,
    })
}

/// The exposure before each split of `[a, b)` with two runs on each side,
/// as a share of the segment's.
pub(super) fn split_shares(p: &Pooled, a: usize, b: usize) -> Vec<f64> {
    let total_e: f64 = p.e[a..b].iter().sum();
    let total_n: usize = p.n[a..b].iter().sum();
    let (mut mx, mut nx) = (0.0, 0);
    let mut out = Vec::new();
    for tau in a + 1..b {
        mx += p.e[tau - 1];
        nx += p.n[tau - 1];
        if nx >= MIN_SIDE_RUNS && total_n - nx >= MIN_SIDE_RUNS {
            out.push(mx / total_e);
        }
    }
    out
}

/// `2 Σ [c ln(c/μ) − (c − μ)]`, 0 ln 0 = 0.
pub(super) fn deviance(c: &[f64], mu: impl Iterator<Item = f64>) -> f64 {
    c.iter()
        .zip(mu)
        .map(|(&c, m)| {
            let t = if c > 0.0 { c * (c / m).ln() } else { 0.0 };
            2.0 * (t - (c - m))
        })
        .sum()
}

/// §14.1: a linear trend in log rate over the segment (kernel positions
/// 0..L−1) fits the kernels' pooled counts better than the step at `at`
/// by a margin beyond noise: `P(χ²₁ ≥ (D_step − D_trend)/φ⁰) ≤ α`, φ⁰ the
/// pilot dispersion (from neighbouring kernels, which a drift barely moves).
/// The test of the best split of `[a, b)` at `at` (its LR and the counts
/// `x`, `mx` before it), `shares` the candidate splits' shares of the
/// exposure: None when no split of the segment can reach α; else its
/// point p (the exact and the quasi-likelihood test), its p over the
/// choice of the split (1 for a drift) and whether it is a drift.
pub(super) fn split_test(
    p: &Pooled,
    (a, b): (usize, usize),
    (at, lr, x, mx): (usize, f64, f64, f64),
    shares: &[f64],
    (disp, phi0, alpha): (Dispersion, f64, f64),
) -> Option<(f64, f64, bool)> {
    let (tc, te) = sums(p, a, b);
    let (y, my) = (tc - x, te - mx);
    if maxsplit::max_p_above(stats::min_reachable_p(tc, my / te), shares, alpha) {
        return None;
    }
    let p_point = stats::exact_p(x, y, mx, my).max(stats::ql_p(lr, disp.phi, disp.df));
    let drift = b - a >= 3 && is_drift(&p.c[a..b], &p.e[a..b], at - a, phi0, alpha);
    let p_step = if drift {
        1.0
    } else {
        maxsplit::max_p(p_point, shares)
    };
    Some((p_point, p_step, drift))
}

pub(super) fn is_drift(c: &[f64], e: &[f64], at: usize, phi0: f64, alpha: f64) -> bool {
    let rate =
        |r: std::ops::Range<usize>| c[r.clone()].iter().sum::<f64>() / e[r].iter().sum::<f64>();
    let (left, right) = (rate(0..at), rate(at..c.len()));
    let step = deviance(
        c,
        e.iter()
            .enumerate()
            .map(|(k, &ek)| ek * if k < at { left } else { right }),
    );
    let trend = trend_deviance(c, e);
    trend < step * (1.0 - 1e-9) - 1e-9
        && stats::f1_sf((step - trend) / phi0, f64::INFINITY) <= alpha
}

/// The deviance of the Poisson log-linear trend `μ_k = e_k exp(b0 + b1 t_k)`,
/// t_k = k − (L−1)/2, fitted by Newton's method with step halving.
pub(super) fn trend_deviance(c: &[f64], e: &[f64]) -> f64 {
    let n = c.len();
    let mid = (n as f64 - 1.0) / 2.0;
    let t: Vec<f64> = (0..n).map(|k| k as f64 - mid).collect();
    let mu = |b0: f64, b1: f64| -> Vec<f64> {
        e.iter()
            .zip(&t)
            .map(|(&ek, &tk)| ek * (b0 + b1 * tk).exp())
            .collect()
    };
    let dev = |b0: f64, b1: f64| deviance(c, mu(b0, b1).into_iter());
    let (mut b0, mut b1) = ((c.iter().sum::<f64>() / e.iter().sum::<f64>()).ln(), 0.0);
    let mut d = dev(b0, b1);
    for _ in 0..100 {
        let m = mu(b0, b1);
        let (mut g0, mut g1, mut h00, mut h01, mut h11) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for k in 0..n {
            let r = c[k] - m[k];
            g0 += r;
            g1 += r * t[k];
            h00 += m[k];
            h01 += m[k] * t[k];
            h11 += m[k] * t[k] * t[k];
        }
        let det = h00 * h11 - h01 * h01;
        if det.is_nan() || det <= 0.0 || !det.is_finite() {
            break;
        }
        let s0 = (h11 * g0 - h01 * g1) / det;
        let s1 = (h00 * g1 - h01 * g0) / det;
        let mut f = 1.0;
        let mut improved = false;
        for _ in 0..30 {
            let nd = dev(b0 + f * s0, b1 + f * s1);
            if nd.is_finite() && nd <= d {
                b0 += f * s0;
                b1 += f * s1;
                improved = d - nd > 1e-12 * d.max(1.0);
                d = nd;
                break;
            }
            f /= 2.0;
        }
        if !improved {
            break;
        }
    }
    d
}

pub(super) fn sums(p: &Pooled, a: usize, b: usize) -> (f64, f64) {
    (p.c[a..b].iter().sum(), p.e[a..b].iter().sum())
}
