//! Steps in one benchmark's series (docs/statistics.md §14): every symbol's
//! per-run counts across the kernels, in order, segmented by binary
//! segmentation with the likelihood-ratio statistic of the quasi-Poisson
//! count model, each candidate step tested, and the false discovery rate
//! controlled over the candidate steps of all symbols of the benchmark, in
//! rounds (§14.4).
//!
//! Input: per run its kernel (an index in series order) and exposure, per
//! symbol its count in every run. Output: every symbol's dispersion, the
//! candidate steps with p and q, and the steps (with levels, Δ and
//! interval). Pure computation; rayon over symbols, and every sum runs in
//! a fixed order, so the bits do not depend on the number of threads.

use super::split::{best_split, bounds, pool, split_shares, sums, Pooled};
pub use super::split::{Candidate, Found, Options, Runs, MIN_SIDE_RUNS};
use super::{maxsplit, together};
use crate::stats::{self, Dispersion, Prior};
use rayon::prelude::*;
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The prior never weighs more than twice a symbol's own data (§5.2 step 5).
const CAP: f64 = 2.0;

/// A step as reported: a split candidate with the levels of the segments on
/// either side (bounded by the symbol's significant steps).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub candidate: Candidate,
    /// The kernels `[from, at)` before and `[at, to)` after.
    pub from: usize,
    pub to: usize,
    /// Rates (per unit of exposure) before and after.
    pub before: f64,
    pub after: f64,
    /// The interval of `after − before`, in exposure units.
    pub delta_ci: (f64, f64),
}

/// The benchmark's analysis.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Per symbol.
    pub dispersion: Vec<Dispersion>,
    pub moderation: Option<Prior>,
    /// Candidates tested (in the multiple-testing family).
    pub tested: usize,
    /// Candidates found to be drifts.
    pub drifts: usize,
    /// The marginal level t of the intervals (§8 of the family).
    pub t: f64,
    /// The benchmark's step kernels (§14.5) and the steps moved to them.
    pub step_kernels: Vec<usize>,
    pub moved: usize,
    /// Every split step, in symbol then kernel order.
    pub steps: Vec<Step>,
    /// Every candidate, in symbol then kernel order.
    pub candidates: Vec<Candidate>,
}

/// Analyse every symbol of a series (the module comment).
pub fn analyse(counts: &[Vec<f64>], runs: &Runs, opts: &Options) -> Analysis {
    let ranges = runs.ranges();
    let pooled: Vec<Pooled> = counts.par_iter().map(|c| pool(c, runs, &ranges)).collect();
    let n_runs = runs.kernel.len();
    // 1. Pilot: a dispersion from neighbouring kernels, robust to steps, and
    //    the segments it finds.
    let medians = ChiMedians::new(&ranges);
    let (pilot, phi0): (Vec<Vec<usize>>, Vec<f64>) = counts
        .par_iter()
        .zip(&pooled)
        .enumerate()
        .map(|(i, (c, p))| {
            let phi = pilot_phi(c, runs, &ranges, &medians);
            let disp = Dispersion {
                phi,
                df: f64::INFINITY,
            };
            let cands = segment(i, p, disp, phi, opts);
            (bounds(&cands, runs.kernels, |c| c.split), phi)
        })
        .unzip();
    // 2. The dispersion over the pilot segments' runs, moderated.
    let resid: Vec<(f64, f64)> = counts
        .par_iter()
        .zip(&pilot)
        .map(|(c, b)| {
            let b = if b.len() > n_runs {
                vec![0, runs.kernels]
            } else {
                b.clone()
            };
            let d = (n_runs + 1 - b.len()) as f64;
            (residual_x2(c, runs, &ranges, &b) / d, d)
        })
        .collect();
    let means: Vec<f64> = counts
        .iter()
        .map(|c| c.iter().sum::<f64>() / n_runs as f64)
        .collect();
    let (dispersion, moderation) = moderate(&resid, &means);
    // 3. The final segmentation, its candidates tested in rounds.
    let mut cands: Vec<Candidate> = pooled
        .par_iter()
        .zip(&dispersion)
        .zip(&phi0)
        .enumerate()
        .flat_map_iter(|(i, ((p, d), &phi0))| segment(i, p, *d, phi0, opts))
        .collect();
    let (mut tested, mut drifts, t) = test_in_rounds(&mut cands, runs.kernels, opts);
    // 4. The benchmark's step kernels: steps placed there when the
    //    symbol's own data cannot tell, then the benchmark round.
    let rounds = cands.iter().map(|c| c.round).max().unwrap_or(0);
    let moved = together::place(&mut cands, &pooled, &dispersion, runs.kernels, opts.alpha);
    let at = together::step_kernels(&cands, runs.kernels);
    let (mut more, m, d) =
        together::benchmark_round(&cands, &pooled, &dispersion, &phi0, &at, rounds + 1, opts);
    tested += m;
    drifts += d;
    cands.append(&mut more);
    cands.sort_by_key(|c| (c.symbol, c.start, c.at, c.found == Found::Benchmark));
    let steps = steps_of(&cands, &pooled, &dispersion, &at, runs.kernels);
    Analysis {
        dispersion,
        moderation,
        tested,
        drifts,
        t,
        step_kernels: at,
        moved,
        steps,
        candidates: cands,
    }
}

/// §14.4: the candidates tested in rounds, each round's family under
/// `--adjust` on its own: round 1 every symbol's candidate of its whole
/// series; round r + 1 the candidates of the segments that round r's
/// significant steps opened. A candidate in no family keeps q = 1. Returns
/// the candidates tested, the drifts among them, and round 1's t.
fn test_in_rounds(cands: &mut [Candidate], kernels: usize, opts: &Options) -> (usize, usize, f64) {
    let mut open: std::collections::BTreeSet<(usize, usize, usize)> =
        cands.iter().map(|c| (c.symbol, 0, kernels)).collect();
    let (mut tested, mut drifts, mut first_t) = (0, 0, None);
    let mut round = 0;
    while !open.is_empty() {
        round += 1;
        let family: Vec<usize> = (0..cands.len())
            .filter(|&i| open.contains(&(cands[i].symbol, cands[i].start, cands[i].end)))
            .collect();
        open.clear();
        if family.is_empty() {
            break;
        }
        let p: Vec<f64> = family.iter().map(|&i| cands[i].p).collect();
        let q = stats::adjust(&p, opts.adjust);
        let mut marked = 0;
        for (&i, q) in family.iter().zip(q) {
            let c = &mut cands[i];
            c.q = q;
            c.significant = c.split && q <= opts.alpha;
            marked += usize::from(c.significant);
            drifts += usize::from(c.drift);
            if c.significant {
                open.insert((c.symbol, c.start, c.at));
                open.insert((c.symbol, c.at, c.end));
            }
        }
        let t = stats::interval_level(opts.adjust, opts.alpha, family.len(), marked);
        for &i in &family {
            cands[i].t = t;
            cands[i].round = round;
        }
        first_t.get_or_insert(t);
        tested += family.len();
    }
    let t = first_t.unwrap_or_else(|| stats::interval_level(opts.adjust, opts.alpha, 0, 0));
    (tested, drifts, t)
}

/// The medians of χ²_g for the pair degrees of freedom that occur.
struct ChiMedians(std::collections::BTreeMap<usize, f64>);

impl ChiMedians {
    fn new(ranges: &[std::ops::Range<usize>]) -> ChiMedians {
        let mut m = std::collections::BTreeMap::new();
        for w in ranges.windows(2) {
            let g = w[0].len() + w[1].len() - 1;
            m.entry(g).or_insert_with(|| {
                ChiSquared::new(g as f64).map_or(g as f64, |c| c.inverse_cdf(0.5))
            });
        }
        ChiMedians(m)
    }
}

/// §14.1: `φ⁰ = max(1, median_k T_k / med(χ²_(g_k)))` over neighbouring
/// kernels k, k+1: T_k Pearson's X² of their runs around their pooled rate,
/// on `g_k = n_k + n_(k+1) − 1` degrees of freedom. A step moves one T_k.
fn pilot_phi(
    counts: &[f64],
    runs: &Runs,
    ranges: &[std::ops::Range<usize>],
    medians: &ChiMedians,
) -> f64 {
    let mut terms: Vec<f64> = ranges
        .windows(2)
        .map(|w| {
            let span = w[0].start..w[1].end;
            let pairs: Vec<(f64, f64)> = span.map(|r| (counts[r], runs.exposure[r])).collect();
            let g = w[0].len() + w[1].len() - 1;
            stats::pearson_x2(&pairs) / medians.0[&g]
        })
        .collect();
    if terms.is_empty() {
        return 1.0;
    }
    terms.sort_by(f64::total_cmp);
    stats::median(&terms).max(1.0)
}

/// Pearson's X² of every run around its segment's pooled rate.
fn residual_x2(
    counts: &[f64],
    runs: &Runs,
    ranges: &[std::ops::Range<usize>],
    bounds: &[usize],
) -> f64 {
    bounds
        .windows(2)
        .map(|w| {
            let span = ranges[w[0]].start..ranges[w[1] - 1].end;
            let pairs: Vec<(f64, f64)> = span.map(|r| (counts[r], runs.exposure[r])).collect();
            stats::pearson_x2(&pairs)
        })
        .sum()
}

/// §14.2: the prior fitted on every symbol's s² with the most common d
/// (ties: the larger), each symbol's posterior with its own d.
fn moderate(resid: &[(f64, f64)], means: &[f64]) -> (Vec<Dispersion>, Option<Prior>) {
    let s2: Vec<f64> = resid.iter().map(|r| r.0).collect();
    let mut ds: Vec<f64> = resid.iter().map(|r| r.1).collect();
    ds.sort_by(f64::total_cmp);
    ds.dedup();
    let count = |d: f64| resid.iter().filter(|r| r.1 == d).count();
    let mode = ds
        .iter()
        .copied()
        .fold(None::<(f64, usize)>, |best, d| {
            let n = count(d);
            match best {
                Some((_, bn)) if bn > n => best,
                _ => Some((d, n)),
            }
        })
        .map_or(1.0, |b| b.0);
    let Some(prior) = Prior::fit(&s2, means, mode) else {
        let disp = resid
            .iter()
            .map(|&(s, d)| Dispersion {
                phi: s.max(1.0),
                df: d,
            })
            .collect();
        return (disp, None);
    };
    let mut out = vec![Dispersion { phi: 1.0, df: mode }; resid.len()];
    for &d in &ds {
        let mut p = prior;
        p.d = d;
        p.d_cap = prior.d0.min(CAP * d);
        let post = p.posterior(&s2, means);
        for (i, r) in resid.iter().enumerate() {
            if r.1 == d {
                out[i] = post[i];
            }
        }
    }
    (out, Some(prior))
}

/// Binary segmentation of one symbol (§14.3): every segment of two or more
/// kernels gets its best split tested; a split with `p ≤ α` that is not a
/// drift divides the segment, and both parts are segmented in turn. The
/// candidates in kernel order of their segments.
/// `phi0` is the symbol's pilot dispersion, the noise of the drift rule.
fn segment(
    symbol: usize,
    p: &Pooled,
    disp: Dispersion,
    phi0: f64,
    opts: &Options,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    if !opts.testable {
        return out;
    }
    let mut todo = vec![(0, p.c.len())];
    while let Some((a, b)) = todo.pop() {
        let Some(c) = best_split(symbol, p, (a, b), disp, phi0, opts.alpha) else {
            continue;
        };
        if c.split {
            todo.push((c.at, b));
            todo.push((a, c.at));
        }
        out.push(c);
    }
    out.sort_by_key(|c| (c.start, c.at));
    out
}

/// The reported steps: every split candidate, with the levels of the
/// segments on either side bounded by the symbol's significant steps, and
/// the interval of Δ at level `1 − t'`, t' the per-split level whose
/// bound over the candidate's segment is t.
fn steps_of(
    cands: &[Candidate],
    pooled: &[Pooled],
    disp: &[Dispersion],
    at: &[usize],
    kernels: usize,
) -> Vec<Step> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < cands.len() {
        let sym = cands[i].symbol;
        let mut j = i;
        while j < cands.len() && cands[j].symbol == sym {
            j += 1;
        }
        let mine = &cands[i..j];
        let sig = bounds(mine, kernels, |c| c.significant);
        let p = &pooled[sym];
        let mut split: Vec<&Candidate> = mine.iter().filter(|c| c.split).collect();
        split.sort_by_key(|c| c.at);
        for c in split {
            let from = sig.iter().copied().filter(|&b| b < c.at).max().unwrap_or(0);
            let to = sig.iter().copied().find(|&b| b > c.at).unwrap_or(kernels);
            let (x, mx) = sums(p, from, c.at);
            let (y, my) = sums(p, c.at, to);
            let shares = match c.found {
                Found::Benchmark => together::shares(p, c.start, c.end, at),
                _ => split_shares(p, c.start, c.end),
            };
            let level = maxsplit::level_for(c.t, &shares);
            out.push(Step {
                candidate: *c,
                from,
                to,
                before: x / mx,
                after: y / my,
                delta_ci: delta_ci(x, y, mx, my, disp[sym], level),
            });
        }
        i = j;
    }
    out
}

/// §9's Δ interval at level `1 − t`: the hull of the run layer's profile
/// likelihood interval and the Clopper-Pearson bounds mapped to Δ.
fn delta_ci(x: f64, y: f64, mx: f64, my: f64, d: Dispersion, t: f64) -> (f64, f64) {
    let chi = stats::critical(d.phi, d.df, t);
    let (lo, hi) = stats::delta_interval(x, y, mx, my, chi);
    let (cl, ch) = stats::cp_ratio_interval(x, y, mx, my, t);
    let cl = stats::delta_at_ratio(cl, x, y, mx, my);
    let ch = stats::delta_at_ratio(ch, x, y, mx, my);
    (lo.min(cl), hi.max(ch))
}

#[cfg(test)]
mod tests {
    use super::super::split::{is_drift, trend_deviance};
    use super::*;
    use crate::stats::Adjust;

    /// A deterministic pseudo-random stream (xorshift), for noisy counts.
    struct Noise(u64);

    impl Noise {
        fn unit(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
        /// About Poisson(mean) (normal approximation, rounded, ≥ 0).
        fn count(&mut self, mean: f64) -> f64 {
            let z = (-2.0 * self.unit().max(1e-300).ln()).sqrt()
                * (2.0 * std::f64::consts::PI * self.unit()).cos();
            (mean + z * mean.sqrt()).round().max(0.0)
        }
    }

    /// `kernels` kernels of `per` runs, exposure 10,000 each; 30 flat
    /// symbols, then the given level functions of the kernel index.
    fn series(
        kernels: usize,
        per: usize,
        special: &[&dyn Fn(usize) -> f64],
    ) -> (Vec<Vec<f64>>, Runs) {
        let mut rng = Noise(0x9e37_79b9_7f4a_7c15);
        let runs = Runs {
            kernel: (0..kernels)
                .flat_map(|k| std::iter::repeat_n(k, per))
                .collect(),
            exposure: vec![10_000.0; kernels * per],
            kernels,
        };
        let mut counts = Vec::new();
        for i in 0..30 {
            let mean = 20.0 + 15.0 * i as f64;
            counts.push(runs.kernel.iter().map(|_| rng.count(mean)).collect());
        }
        for f in special {
            counts.push(runs.kernel.iter().map(|&k| rng.count(f(k))).collect());
        }
        (counts, runs)
    }

    const OPTS: Options = Options {
        alpha: 0.05,
        adjust: Adjust::Bh,
        testable: true,
    };

    fn significant(a: &Analysis) -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = a
            .steps
            .iter()
            .filter(|s| s.candidate.significant)
            .map(|s| (s.candidate.symbol, s.candidate.at))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_flat_series_has_no_step() {
        let (counts, runs) = series(12, 1, &[]);
        let a = analyse(&counts, &runs, &OPTS);
        assert!(a.tested >= 30);
        assert_eq!(significant(&a), []);
    }

    #[test]
    fn one_run_per_kernel_finds_a_step_at_its_kernel() {
        let step = |k: usize| if k < 5 { 100.0 } else { 250.0 };
        let (counts, runs) = series(10, 1, &[&step]);
        let a = analyse(&counts, &runs, &OPTS);
        assert_eq!(significant(&a), [(30, 5)]);
        // One symbol's step alone names no kernel for the others.
        assert!(a.step_kernels.is_empty() && a.moved == 0);
        let s = a.steps.iter().find(|s| s.candidate.significant).unwrap();
        assert!(
            (s.before - 0.01).abs() < 0.002 && (s.after - 0.025).abs() < 0.003,
            "{s:?}"
        );
        assert!(s.delta_ci.0 > 0.0 && s.delta_ci.0 < s.after - s.before);
    }

    #[test]
    fn two_steps_are_both_found_with_levels_between_them() {
        let two = |k: usize| match k {
            0..=3 => 100.0,
            4..=7 => 300.0,
            _ => 150.0,
        };
        let (counts, runs) = series(12, 3, &[&two]);
        let a = analyse(&counts, &runs, &OPTS);
        assert_eq!(significant(&a), [(30, 4), (30, 8)]);
        let at8 = a.steps.iter().find(|s| s.candidate.at == 8).unwrap();
        // Its level before is the middle segment's (kernels 4-7), not 0-7.
        assert_eq!((at8.from, at8.to), (4, 12));
        assert!((at8.before - 0.03).abs() < 0.002, "{at8:?}");
    }

    #[test]
    fn a_faint_step_is_found_where_the_others_stepped() {
        let lead = |k: usize| if k < 6 { 150.0 } else { 450.0 };
        let (mut counts, runs) = series(12, 1, &[&lead, &lead, &lead]);
        // Its own best split is v7 (kernel 6 reads like the old level).
        counts.push(vec![
            2.0, 3.0, 1.0, 2.0, 2.0, 2.0, 2.0, 7.0, 6.0, 8.0, 5.0, 7.0,
        ]);
        let a = analyse(&counts, &runs, &OPTS);
        assert_eq!(a.step_kernels, [6]);
        let sig = significant(&a);
        for s in 30..33 {
            assert!(sig.contains(&(s, 6)), "{sig:?}");
        }
        assert!(sig.contains(&(33, 6)) && !sig.contains(&(33, 7)), "{sig:?}");
        let faint = a.steps.iter().find(|s| s.candidate.symbol == 33).unwrap();
        assert_ne!(faint.candidate.found, Found::Own);
        assert_eq!((faint.from, faint.to), (0, 12));
    }

    #[test]
    fn a_slow_drift_is_not_a_step() {
        let drift = |k: usize| 100.0 + 20.0 * k as f64;
        let (counts, runs) = series(16, 1, &[&drift]);
        let a = analyse(&counts, &runs, &OPTS);
        assert_eq!(significant(&a), []);
        // The ramp is never split: a drift, or no step at all.
        assert!(a
            .candidates
            .iter()
            .filter(|c| c.symbol == 30)
            .all(|c| c.drift || !c.split));
        // The same rise as one step is one.
        let step = |k: usize| if k < 8 { 100.0 } else { 400.0 };
        let (counts, runs) = series(16, 1, &[&step]);
        assert_eq!(significant(&analyse(&counts, &runs, &OPTS)), [(30, 8)]);
    }

    #[test]
    fn the_trend_fits_a_log_linear_series_exactly() {
        let e = [1.0; 6];
        let c: Vec<f64> = (0..6).map(|k| (7.0 + 0.2 * k as f64).exp()).collect();
        assert!(trend_deviance(&c, &e) < 1e-9);
        let poisson = 1.0;
        assert!(is_drift(&c, &e, 3, poisson, 0.05));
        let step = [10.0, 10.0, 10.0, 50.0, 50.0, 50.0];
        assert!(!is_drift(&step, &e, 3, poisson, 0.05));
        // A trend that fits better than a step which fits well enough is not a drift.
        let noisy = [20.0, 24.0, 31.0, 35.0];
        assert!(!is_drift(&noisy, &e[..4], 2, poisson, 0.05));
    }

    #[test]
    fn the_bits_do_not_depend_on_the_threads() {
        let step = |k: usize| if k < 6 { 80.0 } else { 160.0 };
        let (counts, runs) = series(14, 2, &[&step]);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        let a = one.install(|| analyse(&counts, &runs, &OPTS));
        let b = four.install(|| analyse(&counts, &runs, &OPTS));
        assert_eq!(a.steps, b.steps);
        assert_eq!(a.dispersion, b.dispersion);
    }
}
