//! Steps that a benchmark's symbols take together (docs/statistics.md
//! §14.5). A kernel whose code changed moves many symbols of a benchmark
//! at once; a symbol whose own series cannot say exactly where it stepped
//! (single runs, a few samples) is told by the others where to look.
//!
//! Input: every symbol's candidates after the rounds of §14.4, its pooled
//! series and dispersion. Output: the **step kernels** (kernels with
//! significant steps of at least two symbols); each significant step moved
//! to the best-supported step kernel that its symbol's own confidence set
//! for the step's place holds; and the **benchmark round**: in every segment of every
//! symbol, the best split at a step kernel, tested and adjusted as one
//! more family. Pure computation; rayon over symbols, sums in fixed order.

use super::split::{self as segment, Candidate, Found, Options, Pooled, MIN_SIDE_RUNS};
use crate::stats::{self, Dispersion};
use rayon::prelude::*;

/// Significant steps of this many symbols at one kernel make it a step
/// kernel: one symbol's step alone says nothing about the others.
pub const TOGETHER: usize = 2;

/// The kernels at which at least [`TOGETHER`] symbols step significantly
/// (a symbol steps at most once at a kernel), increasing.
pub(super) fn step_kernels(cands: &[Candidate], kernels: usize) -> Vec<usize> {
    let mut n = vec![0usize; kernels];
    for c in cands.iter().filter(|c| c.significant) {
        n[c.at] += 1;
    }
    (0..kernels).filter(|&k| n[k] >= TOGETHER).collect()
}

/// The eligible splits of `[a, b)` (two runs on each side) that `keep`
/// takes, with their pooled sums before: `(τ, x, M_x)`, increasing τ.
fn splits(p: &Pooled, a: usize, b: usize, keep: impl Fn(usize) -> bool) -> Vec<(usize, f64, f64)> {
    let total_n: usize = p.n[a..b].iter().sum();
    let (mut x, mut mx, mut nx) = (0.0, 0.0, 0);
    let mut out = Vec::new();
    for tau in a + 1..b {
        x += p.c[tau - 1];
        mx += p.e[tau - 1];
        nx += p.n[tau - 1];
        if nx >= MIN_SIDE_RUNS && total_n - nx >= MIN_SIDE_RUNS && keep(tau) {
            out.push((tau, x, mx));
        }
    }
    out
}

/// The exposure shares before the eligible splits of `[a, b)` at step
/// kernels: the splits the benchmark round chooses among.
pub(super) fn shares(p: &Pooled, a: usize, b: usize, at: &[usize]) -> Vec<f64> {
    let total_e: f64 = p.e[a..b].iter().sum();
    splits(p, a, b, |t| at.binary_search(&t).is_ok())
        .into_iter()
        .map(|(_, _, mx)| mx / total_e)
        .collect()
}

/// The index ranges of each symbol's candidates (sorted by symbol).
fn by_symbol(cands: &[Candidate], symbols: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = vec![0..0; symbols];
    let mut i = 0;
    while i < cands.len() {
        let s = cands[i].symbol;
        let mut j = i;
        while j < cands.len() && cands[j].symbol == s {
            j += 1;
        }
        out[s] = i..j;
        i = j;
    }
    out
}

/// Moves each significant step to a step kernel when the symbol's own data
/// cannot tell the two apart (§14.5): in the segment `[from, to)` between
/// its neighbouring significant steps (the earlier one as already placed),
/// the contenders are its own kernel τ and the eligible splits s whose LR
/// is within `φ F⁻¹_(1,ν)(1 − α)` of the segment's largest (the step's
/// likelihood-ratio confidence set) where at least [`TOGETHER`] other
/// symbols step; the step goes to the contender with the most other
/// symbols' steps (then the larger LR; ties keep τ, then the smaller s).
/// Its test (p, q) is its own segment's. Returns the moves.
pub(super) fn place(
    cands: &mut [Candidate],
    pooled: &[Pooled],
    disp: &[Dispersion],
    kernels: usize,
    alpha: f64,
) -> usize {
    let mut n = vec![0usize; kernels];
    for c in cands.iter().filter(|c| c.significant) {
        n[c.at] += 1;
    }
    if n.iter().all(|&v| v < TOGETHER) {
        return 0;
    }
    let ranges = by_symbol(cands, pooled.len());
    let mut moved = 0;
    for (sym, r) in ranges.into_iter().enumerate() {
        let mine = &mut cands[r];
        let mut sig: Vec<usize> = (0..mine.len()).filter(|&i| mine[i].significant).collect();
        sig.sort_by_key(|&i| mine[i].at);
        let p = &pooled[sym];
        let crit = disp[sym].phi * stats::f1_upper_quantile(alpha, disp[sym].df);
        let mut from = 0;
        for (j, &i) in sig.iter().enumerate() {
            let to = sig.get(j + 1).map_or(kernels, |&m| mine[m].at);
            let own = mine[i].at;
            let others = |s: usize| n[s] - usize::from(s == own);
            let (tc, te) = segment::sums(p, from, to);
            let lr = |x: f64, mx: f64| stats::lr_stat(x, tc - x, mx, te - mx);
            let all = splits(p, from, to, |_| true);
            let best = all
                .iter()
                .map(|&(_, x, mx)| lr(x, mx))
                .fold(f64::NEG_INFINITY, f64::max);
            let (x0, m0) = segment::sums(p, from, own);
            let mut pick = (own, others(own), lr(x0, m0));
            for &(tau, x, mx) in &all {
                let l = lr(x, mx);
                let o = others(tau);
                if tau != own && o >= TOGETHER && best - l <= crit && (o, l) > (pick.1, pick.2) {
                    pick = (tau, o, l);
                }
            }
            if pick.0 != own {
                mine[i].at = pick.0;
                mine[i].found = Found::Moved;
                moved += 1;
            }
            from = mine[i].at;
        }
    }
    moved
}

/// The benchmark round: in every segment of every symbol's significant
/// segmentation, the best split among those at step kernels, tested with
/// `p = bound(p_point)` over those splits only (§14.1's bound; a split the
/// other symbols named costs no choice among all the segment's splits) and
/// the drift rule; all of them one family under `--adjust`. A candidate is
/// significant when it is not a drift, `p ≤ α` and its q ≤ α; only those
/// are steps (`split`). Returns the candidates, how many were tested and
/// how many were drifts.
pub(super) fn benchmark_round(
    cands: &[Candidate],
    pooled: &[Pooled],
    disp: &[Dispersion],
    phi0: &[f64],
    at: &[usize],
    round: usize,
    opts: &Options,
) -> (Vec<Candidate>, usize, usize) {
    if at.is_empty() || !opts.testable {
        return (Vec::new(), 0, 0);
    }
    let ranges = by_symbol(cands, pooled.len());
    let mut out: Vec<Candidate> = ranges
        .par_iter()
        .enumerate()
        .flat_map_iter(|(sym, r)| {
            let p = &pooled[sym];
            let kernels = p.c.len();
            let b = segment::bounds(&cands[r.clone()], kernels, |c| c.significant);
            b.windows(2)
                .filter_map(|w| {
                    candidate(sym, p, (w[0], w[1]), disp[sym], phi0[sym], at, opts.alpha)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let p: Vec<f64> = out.iter().map(|c| c.p).collect();
    let q = stats::adjust(&p, opts.adjust);
    let mut marked = 0;
    for (c, q) in out.iter_mut().zip(q) {
        c.q = q;
        c.significant = c.split && q <= opts.alpha;
        c.split = c.significant;
        marked += usize::from(c.significant);
    }
    let t = stats::interval_level(opts.adjust, opts.alpha, out.len(), marked);
    for c in &mut out {
        c.t = t;
        c.round = round;
    }
    let drifts = out.iter().filter(|c| c.drift).count();
    let m = out.len();
    (out, m, drifts)
}

/// The best split of `[a, b)` at a step kernel, and its test; None when
/// there is none or it cannot reach α.
fn candidate(
    symbol: usize,
    p: &Pooled,
    (a, b): (usize, usize),
    disp: Dispersion,
    phi0: f64,
    at: &[usize],
    alpha: f64,
) -> Option<Candidate> {
    let (tc, te) = segment::sums(p, a, b);
    if tc <= 0.0 {
        return None;
    }
    let eligible = splits(p, a, b, |t| at.binary_search(&t).is_ok());
    let mut best: Option<(usize, f64, f64, f64)> = None;
    for &(tau, x, mx) in &eligible {
        let l = stats::lr_stat(x, tc - x, mx, te - mx);
        if best.is_none_or(|bst| l > bst.1) {
            best = Some((tau, l, x, mx));
        }
    }
    let (tau, lr, x, mx) = best?;
    let shares: Vec<f64> = eligible.iter().map(|&(_, _, m)| m / te).collect();
    let test = (disp, phi0, alpha);
    let (p_point, pv, drift) = segment::split_test(p, (a, b), (tau, lr, x, mx), &shares, test)?;
    Some(Candidate {
        symbol,
        start: a,
        end: b,
        at: tau,
        lr,
        p_point,
        p: pv,
        drift,
        split: !drift && pv <= alpha,
        q: 1.0,
        significant: false,
        t: alpha,
        round: 0,
        found: Found::Benchmark,
        own_at: tau,
    })
}
