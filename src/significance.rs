//! One comparison's verdicts (docs/statistics.md §5-§9): for every row, the
//! dispersion and its degrees of freedom by the method that applies, the
//! quasi-likelihood F test, the exact test, the row's p, q and mark, and the
//! ratio and Δ intervals at the level that agrees with the marks. Pure
//! computation over counts: rows in, verdicts and a [`Noise`] summary out.

use crate::stats::{self, Adjust, Dispersion, OneRun, Prior, ONE_RUN_DF};
use rayon::prelude::*;

/// How a comparison judged run-to-run noise (§5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// §5.2: over the runs, moderated across symbols (or not, when too few).
    Runs,
    /// §5.3: a noise model learned from replicate runs.
    NoiseModel,
    /// §5.4: one run per side, κ measured across symbols.
    OneRun,
    /// §5.4: one run per side, too few symbols, `--noise-cv` assumed.
    OneRunAssumed,
    /// §5.4: one run per side, too few symbols, sampling noise only.
    SamplingOnly,
    /// Counts are not sample counts: nothing tested.
    NotTested,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Runs => "runs",
            Method::NoiseModel => "noise-model",
            Method::OneRun => "one-run",
            Method::OneRunAssumed => "one-run-assumed",
            Method::SamplingOnly => "sampling-only",
            Method::NotTested => "not-tested",
        }
    }
}

/// Where a noise model came from, for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    /// The model file, or the runs it was learned from.
    pub source: String,
    pub runs: usize,
    /// `d_m = R − 1`.
    pub residual_df: f64,
}

/// A noise model's prior for each row of the comparison (§5.3), aligned
/// with the rows.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelPriors {
    pub info: ModelInfo,
    pub priors: Vec<Dispersion>,
}

/// The noise summary of one comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Noise {
    pub method: Method,
    /// `d = n − 2`.
    pub residual_df: f64,
    /// `1 − t`, the level of every interval shown (§8).
    pub interval_level: f64,
    pub moderation: Option<Prior>,
    pub one_run: Option<OneRun>,
    pub model: Option<ModelInfo>,
    pub noise_cv: Option<f64>,
    /// The rows the noise was learned from (every row of the comparison)
    /// and those shown and tested (the FDR family, §8.2): fewer when a
    /// symbol filter or `--kernel-only` left some out.
    pub learned_rows: usize,
    pub shown_rows: usize,
    /// §5.5: each run of a side with three or more runs against its
    /// siblings, `(side, check)` with side 0 for OLD, 1 for NEW (empty
    /// without moderation).
    pub runs: Vec<(usize, stats::RunCheck)>,
    /// §8.3: the independent filter's threshold on the rows' mean count
    /// per run (None when it was not run: nothing tested, or frames).
    pub filter: Option<stats::Filter>,
}

/// What to test and how.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub alpha: f64,
    pub adjust: Adjust,
    /// `--noise-cv C`: used only by one run per side with too few symbols.
    pub noise_cv: Option<f64>,
    /// False when counts are not sample counts (nothing is tested).
    pub testable: bool,
    /// Rates are shares of the exposure (share normalisation, or frames of
    /// a flame graph): each lies in [0, 1], so a Δ in [−1, 1] (§9).
    pub shares: bool,
    /// §8.3: filter the family by the rows' mean count (independent
    /// filtering).
    pub filter: bool,
}

/// One row's verdict. Intervals are in exposure units; p, q and intervals
/// are None for untested rows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Verdict {
    pub p: Option<f64>,
    pub q: Option<f64>,
    pub significant: bool,
    pub ratio_ci: Option<(f64, f64)>,
    pub delta_ci: Option<(f64, f64)>,
    pub dispersion: Option<f64>,
    pub df: Option<f64>,
    /// §8.3: left out of the family by the independent filter (so
    /// untested: no p, q or intervals).
    pub filtered: bool,
}

/// One row's counts, one per run of each side.
#[derive(Clone, Copy, Debug)]
pub struct Counts<'a> {
    pub old: &'a [f64],
    pub new: &'a [f64],
}

/// Every row's dispersion: held per row when each has its own (several
/// runs, a noise model), else a function of the row's mean count (one run
/// per side: a trend, or a constant), computed when asked.
enum Dispersions {
    Each(Vec<Dispersion>),
    /// φ = 1 + slope · mean, on `df` degrees of freedom.
    Trend {
        slope: f64,
        df: f64,
    },
    Fixed(Dispersion),
}

impl Dispersions {
    fn of(&self, i: usize, row: &Pooled) -> Dispersion {
        match self {
            Dispersions::Each(d) => d[i],
            Dispersions::Trend { slope, df } => Dispersion {
                phi: 1.0 + slope * row.mean,
                df: *df,
            },
            Dispersions::Fixed(d) => *d,
        }
    }
}

/// Per-row sufficient statistics.
#[derive(Clone, Copy)]
struct Pooled {
    x: f64,
    y: f64,
    mean: f64,
    s2: f64,
    lr: f64,
    /// Every run of one side beyond every run of the other by a factor of
    /// [`stats::SEPARATION`] or more (§7.1).
    separated: bool,
    /// §7.1's log test of a separated row, `(diff, var)` on d df (NaN
    /// when not separated).
    log: (f64, f64),
}

/// §7.1: the tests a separated row also gets with moderation: its own
/// dispersion on d df, and the t test of its runs' log rates.
#[derive(Clone, Copy)]
struct Own {
    disp: Dispersion,
    log: Option<stats::LogTest>,
}

/// Judge every row of one comparison (OLD runs with exposures `old_exp`,
/// NEW runs with `new_exp`); `model`: a noise model's priors aligned with
/// `rows`.
pub fn judge(
    rows: &[Counts],
    old_exp: &[f64],
    new_exp: &[f64],
    model: Option<&ModelPriors>,
    opts: &Options,
) -> (Vec<Verdict>, Noise) {
    let (v, noise) = judge_all(rows, old_exp, new_exp, model, opts);
    ((0..v.len()).map(|i| v.get(i)).collect(), noise)
}

/// Every row's verdict, held compactly (a million rows share a few
/// thousand distinct p-values and intervals): [`Verdicts::get`] gives one.
pub struct Verdicts {
    len: usize,
    alpha: f64,
    /// Per row, its distinct (x, y, φ, ν) tuple (empty when nothing is
    /// tested).
    slot: Vec<u32>,
    /// Per tuple.
    disp: Vec<Dispersion>,
    ps: Vec<Option<f64>>,
    /// Per tuple: below the independent filter's threshold.
    filtered: Vec<bool>,
    bounds: Vec<Option<Bounds>>,
    /// Per row: q, or NaN when untested.
    qs: Vec<f64>,
}

impl Verdicts {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Row `i`'s verdict.
    pub fn get(&self, i: usize) -> Verdict {
        let Some(&k) = self.slot.get(i) else {
            return Verdict::default();
        };
        let k = k as usize;
        let disp = &self.disp[k];
        let p = self.ps[k];
        // (NaN: untested, or outside the family)
        let q = p.map(|_| self.qs[i]).filter(|q| !q.is_nan());
        let bounds = self.bounds.get(k).copied().flatten();
        Verdict {
            p,
            q,
            significant: q.is_some_and(|q| q <= self.alpha),
            ratio_ci: bounds.map(|b| b.0),
            delta_ci: bounds.map(|b| b.1),
            dispersion: Some(disp.phi),
            df: Some(disp.df),
            filtered: self.filtered.get(k).copied().unwrap_or(false),
        }
    }
}

/// What [`judge_all`] reads of a row: its counts.
pub trait RowCounts: Sync {
    fn counts(&self) -> Counts<'_>;
}

impl<R: RowCounts> RowCounts for &R {
    fn counts(&self) -> Counts<'_> {
        (**self).counts()
    }
}

impl RowCounts for Counts<'_> {
    fn counts(&self) -> Counts<'_> {
        *self
    }
}

/// [`judge`], the verdicts held compactly, over any rows that have counts.
pub fn judge_all<R: RowCounts>(
    rows: &[R],
    old_exp: &[f64],
    new_exp: &[f64],
    model: Option<&ModelPriors>,
    opts: &Options,
) -> (Verdicts, Noise) {
    judge_family(rows, &[], old_exp, new_exp, model, opts)
}

/// [`judge_all`] where only the rows marked in `family` (by row; empty:
/// all) are shown and tested: every row teaches the noise (the trend, the
/// prior, the one-run κ), the q-values and marks are over the family's
/// tested rows (docs/statistics.md §8.2). A row outside the family has its
/// p but no q.
pub fn judge_family<R: RowCounts>(
    rows: &[R],
    family: &[bool],
    old_exp: &[f64],
    new_exp: &[f64],
    model: Option<&ModelPriors>,
    opts: &Options,
) -> (Verdicts, Noise) {
    let in_family = |i: usize| family.get(i).copied().unwrap_or(true);
    let (m_old, m_new): (f64, f64) = (old_exp.iter().sum(), new_exp.iter().sum());
    let n = old_exp.len() + new_exp.len();
    let d = n as f64 - 2.0;
    let pooled: Vec<Pooled> = rows
        .par_iter()
        .map(|r| pool(&r.counts(), old_exp, new_exp, d, m_old, m_new))
        .collect();
    let (disp, mut noise) = dispersions(&pooled, d, m_old, m_new, model, opts);
    noise.learned_rows = rows.len();
    noise.shown_rows = (0..rows.len()).filter(|&i| in_family(i)).count();
    if noise.moderation.is_some() {
        noise.runs = check_runs(rows, &pooled, &disp, (old_exp, new_exp));
    }
    let mut out = Verdicts {
        len: rows.len(),
        alpha: opts.alpha,
        disp: Vec::new(),
        slot: Vec::new(),
        ps: Vec::new(),
        filtered: Vec::new(),
        bounds: Vec::new(),
        qs: Vec::new(),
    };
    if noise.method == Method::NotTested {
        return (out, noise);
    }
    let pi0 = m_new / (m_old + m_new);
    // §5.4: one run a side, each row tested against the band from no change
    // to the common shift.
    let band = noise.one_run.map(|f| f.band());
    // §7.1: with moderation, a separated row is also tested with its own
    // dispersion (the Poisson floor, d df).
    let guard = noise.moderation.is_some();
    let own = |s: &Pooled| {
        (guard && s.separated).then(|| Own {
            disp: Dispersion {
                phi: s.s2.max(1.0),
                df: d,
            },
            log: (!s.log.0.is_nan()).then_some(stats::LogTest {
                diff: s.log.0,
                var: s.log.1,
                df: d,
            }),
        })
    };
    // A row's p and intervals depend on its (x, y, φ, ν, own φ, log test) only:
    // computed once per distinct tuple (profiles have long tails of rows
    // with the same few counts), then given to every row that has it.
    let (reps, slot) = distinct(&pooled, &disp, &own);
    let mut ps: Vec<Option<f64>> = reps
        .par_iter()
        .map(|&i| {
            let s = &pooled[i];
            (stats::min_reachable_p(s.x + s.y, pi0) <= opts.alpha)
                .then(|| row_p(s, (disp.of(i, s), own(s)), band, m_old, m_new))
        })
        .collect();
    // §8.3: the rows below the independent filter's threshold leave the
    // family (chosen over every tested row, shown or not).
    let filtered = if opts.filter {
        let (f, filtered) = independent_filter(&mut ps, &slot, &reps, &pooled, opts);
        noise.filter = f;
        filtered
    } else {
        vec![false; ps.len()]
    };
    // What the intervals need of the rows, per tuple; the per-row columns
    // are freed before the adjustment (a million rows: tens of MB).
    let rep_pooled: Vec<Pooled> = reps.iter().map(|&i| pooled[i]).collect();
    let rep_disp: Vec<Dispersion> = reps.iter().map(|&i| disp.of(i, &pooled[i])).collect();
    drop((pooled, disp, reps));
    let (qs, tested, marked) = family_q(&ps, &slot, &in_family, opts);
    let t = stats::interval_level(opts.adjust, opts.alpha, tested, marked);
    noise.interval_level = 1.0 - t;
    let bounds: Vec<Option<Bounds>> = (rep_pooled.par_iter(), rep_disp.par_iter(), &ps)
        .into_par_iter()
        .map(|(s, disp, p)| {
            p.is_some()
                .then(|| intervals(s, (disp, own(s)), (band, opts.shares), m_old, m_new, t))
        })
        .collect();
    out.disp = rep_disp;
    out.slot = slot;
    out.ps = ps;
    out.filtered = filtered;
    out.bounds = bounds;
    out.qs = qs;
    (out, noise)
}

/// §8 over the family's tested rows: every row's q (NaN outside the
/// family or untested), how many rows are tested and how many marked.
fn family_q(
    ps: &[Option<f64>],
    slot: &[u32],
    in_family: &impl Fn(usize) -> bool,
    opts: &Options,
) -> (Vec<f64>, usize, usize) {
    let tested: Vec<u32> = (0..slot.len() as u32)
        .filter(|&i| in_family(i as usize) && ps[slot[i as usize] as usize].is_some())
        .collect();
    let p_tested: Vec<f64> = tested
        .iter()
        .filter_map(|&i| ps[slot[i as usize] as usize])
        .collect();
    let mut qs = vec![f64::NAN; slot.len()];
    let mut marked = 0;
    for (&i, q) in tested.iter().zip(stats::adjust(&p_tested, opts.adjust)) {
        qs[i as usize] = q;
        marked += usize::from(q <= opts.alpha);
    }
    (qs, tested.len(), marked)
}

/// §8.3 over the tuples' p (`ps`, one per tuple, `slot` each row's tuple,
/// `reps` each tuple's first row): the threshold on the rows' mean count,
/// chosen over every tested row, shown or not, so that what is shown never
/// changes whether a row is tested; the tuples below it lose their p, and
/// are marked filtered.
fn independent_filter(
    ps: &mut [Option<f64>],
    slot: &[u32],
    reps: &[usize],
    pooled: &[Pooled],
    opts: &Options,
) -> (Option<stats::Filter>, Vec<bool>) {
    let mut filtered = vec![false; ps.len()];
    let (stat, p): (Vec<f64>, Vec<f64>) = slot
        .iter()
        .filter_map(|&k| ps[k as usize].map(|p| (pooled[reps[k as usize]].mean, p)))
        .unzip();
    let filter = stats::independent_filter(&stat, &p, opts.adjust, opts.alpha);
    if let Some(f) = filter {
        for (k, p) in ps.iter_mut().enumerate() {
            if p.is_some() && pooled[reps[k]].mean < f.threshold {
                *p = None;
                filtered[k] = true;
            }
        }
    }
    (filter, filtered)
}

/// §7: a row's p, the larger of the exact test's and the run layer's (the
/// QL F test at the row's dispersion, or against the band with one run a
/// side, §5.4; with §7.1's own dispersion too, the smaller of the two).
fn row_p(
    s: &Pooled,
    (disp, own): (Dispersion, Option<Own>),
    band: Option<(f64, f64)>,
    m_old: f64,
    m_new: f64,
) -> f64 {
    let p_exact = stats::exact_p(s.x, s.y, m_old, m_new);
    let lr = match band {
        Some(b) => stats::band_deviance(s.x, s.y, m_old, m_new, b),
        None => s.lr,
    };
    let mut p_ql = stats::ql_p(lr, disp.phi, disp.df);
    if let Some(own) = own {
        p_ql = p_ql.min(stats::ql_p(s.lr, own.disp.phi, own.disp.df));
        if let Some(log) = own.log {
            p_ql = p_ql.min(log.p());
        }
    }
    p_exact.max(p_ql)
}

/// §5.5: every run of each side with three or more runs against its
/// siblings, with the rows' moderated dispersions; U as in §5.2.
fn check_runs<R: RowCounts>(
    rows: &[R],
    pooled: &[Pooled],
    disp: &Dispersions,
    (old_exp, new_exp): (&[f64], &[f64]),
) -> Vec<(usize, stats::RunCheck)> {
    let phi: Vec<f64> = (0..pooled.len())
        .map(|i| disp.of(i, &pooled[i]).phi)
        .collect();
    let fit: Vec<bool> = pooled
        .iter()
        .map(|s| s.mean >= stats::MIN_MEAN_COUNT && s.s2.is_finite())
        .collect();
    let mut out = Vec::new();
    for (side, exp) in [(0, old_exp), (1, new_exp)] {
        let counts = |i: usize| {
            let c = rows[i].counts();
            if side == 0 {
                c.old
            } else {
                c.new
            }
        };
        for check in stats::check_side(rows.len(), counts, exp, &phi, &fit) {
            out.push((side, check));
        }
    }
    out
}

/// A row's ratio and Δ intervals.
type Bounds = ((f64, f64), (f64, f64));

/// The rows with distinct (x, y, φ, ν), in row order (their first row),
/// and for every row the index of its tuple among them.
fn distinct(
    pooled: &[Pooled],
    disp: &Dispersions,
    own: &impl Fn(&Pooled) -> Option<Own>,
) -> (Vec<usize>, Vec<u32>) {
    // (Fx: the keys are this comparison's own numbers, and a million rows
    // hash a million keys.)
    let mut seen: rustc_hash::FxHashMap<[u64; 7], u32> = rustc_hash::FxHashMap::default();
    seen.reserve(pooled.len().min(1 << 16));
    let mut reps = Vec::new();
    let slot = pooled
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let d = disp.of(i, s);
            let own = own(s).map_or(f64::NAN, |o| o.disp.phi);
            let key = [s.x, s.y, d.phi, d.df, own, s.log.0, s.log.1].map(f64::to_bits);
            *seen.entry(key).or_insert_with(|| {
                reps.push(i);
                (reps.len() - 1) as u32
            })
        })
        .collect();
    (reps, slot)
}

fn pool(r: &Counts, old_exp: &[f64], new_exp: &[f64], d: f64, m_old: f64, m_new: f64) -> Pooled {
    let x: f64 = r.old.iter().sum();
    let y: f64 = r.new.iter().sum();
    let n = (r.old.len() + r.new.len()) as f64;
    let s2 = if d >= 1.0 {
        let side = |c: &[f64], e: &[f64]| -> Vec<(f64, f64)> {
            c.iter().copied().zip(e.iter().copied()).collect()
        };
        (stats::pearson_x2(&side(r.old, old_exp)) + stats::pearson_x2(&side(r.new, new_exp))) / d
    } else {
        0.0
    };
    let separated = d >= 1.0 && stats::separated(r.old, old_exp, r.new, new_exp);
    let log = separated
        .then(|| stats::log_test(r.old, old_exp, r.new, new_exp))
        .flatten()
        .map_or((f64::NAN, f64::NAN), |t| (t.diff, t.var));
    Pooled {
        x,
        y,
        mean: (x + y) / n,
        s2,
        lr: stats::lr_stat(x, y, m_old, m_new),
        separated,
        log,
    }
}

/// §5: pick the method and give every row its (φ, ν).
fn dispersions(
    pooled: &[Pooled],
    d: f64,
    m_old: f64,
    m_new: f64,
    model: Option<&ModelPriors>,
    opts: &Options,
) -> (Dispersions, Noise) {
    let mut noise = Noise {
        method: Method::NotTested,
        residual_df: d.max(0.0),
        interval_level: 1.0 - opts.alpha,
        moderation: None,
        one_run: None,
        model: None,
        noise_cv: None,
        learned_rows: pooled.len(),
        shown_rows: pooled.len(),
        runs: Vec::new(),
        filter: None,
    };
    let fixed = |phi: f64, df: f64| Dispersions::Fixed(Dispersion { phi, df });
    if !opts.testable {
        return (fixed(1.0, f64::INFINITY), noise);
    }
    if let Some(model) = model {
        noise.method = Method::NoiseModel;
        noise.model = Some(model.info.clone());
        let disp = pooled
            .iter()
            .zip(&model.priors)
            .map(|(s, p)| {
                if d >= 1.0 {
                    Dispersion {
                        phi: ((d * s.s2 + p.df * p.phi) / (d + p.df)).max(1.0),
                        df: d + p.df,
                    }
                } else {
                    Dispersion {
                        phi: p.phi.max(1.0),
                        df: p.df,
                    }
                }
            })
            .collect();
        return (Dispersions::Each(disp), noise);
    }
    if d >= 1.0 {
        noise.method = Method::Runs;
        let s2: Vec<f64> = pooled.iter().map(|s| s.s2).collect();
        let mean: Vec<f64> = pooled.iter().map(|s| s.mean).collect();
        return match Prior::fit(&s2, &mean, d) {
            Some(prior) => {
                noise.moderation = Some(prior);
                (Dispersions::Each(prior.posterior(&s2, &mean)), noise)
            }
            None => {
                let disp = s2
                    .iter()
                    .map(|&s| Dispersion {
                        phi: s.max(1.0),
                        df: d,
                    })
                    .collect();
                (Dispersions::Each(disp), noise)
            }
        };
    }
    // (Counts and means read from the rows' columns, not copied.)
    if let Some(fit) = stats::one_run(pooled.iter().map(|s| (s.x, s.y)), m_old, m_new) {
        noise.method = Method::OneRun;
        noise.one_run = Some(fit);
        let disp = Dispersions::Trend {
            slope: fit.kappa,
            df: ONE_RUN_DF,
        };
        return (disp, noise);
    }
    match opts.noise_cv {
        Some(c) => {
            noise.method = Method::OneRunAssumed;
            noise.noise_cv = Some(c);
            let disp = Dispersions::Trend {
                slope: c * c,
                df: f64::INFINITY,
            };
            (disp, noise)
        }
        None => {
            noise.method = Method::SamplingOnly;
            (fixed(1.0, ONE_RUN_DF), noise)
        }
    }
}

/// §9: the ratio and Δ intervals at level 1 − t, each the hull of the run
/// layer's profile-likelihood interval and the sampling layer's; with one
/// run a side (`band`, §5.4) the run layer's intervals also hold no change
/// when they reach the band, and in share mode (`shares`) Δ is held to
/// [−1, 1], the range shares allow. The
/// Clopper-Pearson bounds are solved for only when they reach beyond the
/// run layer's (ratio or, mapped through Δ(θ), difference): usually they
/// do not, and one incomplete beta per side says so.
fn intervals(
    s: &Pooled,
    (disp, own): (&Dispersion, Option<Own>),
    (band, shares): (Option<(f64, f64)>, bool),
    m_old: f64,
    m_new: f64,
    t: f64,
) -> ((f64, f64), (f64, f64)) {
    let (x, y) = (s.x, s.y);
    let chi = stats::critical(disp.phi, disp.df, t);
    let (mut ql_lo, mut ql_hi) = stats::ratio_interval(x, y, m_old, m_new, chi);
    let (mut d_lo, mut d_hi) = stats::delta_interval(x, y, m_old, m_new, chi);
    // §7.1: the run layer's p is the smallest of two or three tests, so
    // its interval (the values none rejects) is the intersection of theirs.
    if let Some(own) = own {
        let chi = stats::critical(own.disp.phi, own.disp.df, t);
        let (lo, hi) = stats::ratio_interval(x, y, m_old, m_new, chi);
        let (dl, dh) = stats::delta_interval(x, y, m_old, m_new, chi);
        (ql_lo, ql_hi) = (ql_lo.max(lo), ql_hi.min(hi));
        (d_lo, d_hi) = (d_lo.max(dl), d_hi.min(dh));
        if let Some(log) = own.log {
            ((ql_lo, ql_hi), (d_lo, d_hi)) =
                with_log_interval(((ql_lo, ql_hi), (d_lo, d_hi)), &log, s, m_old, m_new, t);
        }
    }
    // §5.4: a row whose interval reaches the band is within what the common
    // shift explains, so "no change" is among its values (as its p says).
    if band.is_some_and(|(lo, hi)| ql_lo <= hi && ql_hi >= lo) {
        (ql_lo, ql_hi) = (ql_lo.min(1.0), ql_hi.max(1.0));
        (d_lo, d_hi) = (d_lo.min(0.0), d_hi.max(0.0));
    }
    // The ratio whose profile Δ is d: the inverse of Δ(θ) = k(θ − 1)/(M_old + θ M_new).
    let k = x + y;
    let ratio_at = |d: f64| {
        let den = k - d * m_new;
        if den <= 0.0 {
            f64::INFINITY
        } else {
            ((d * m_old + k) / den).max(0.0)
        }
    };
    // The exact bounds matter where they reach beyond the ratio interval or
    // beyond the ratios whose profile Δ are the Δ bounds.
    let (below, above) = (ql_lo.max(ratio_at(d_lo)), ql_hi.min(ratio_at(d_hi)));
    let (lo_r, hi_r) = stats::cp_reaches_beyond(x, y, m_old, m_new, t, below, above);
    let solved = (lo_r || hi_r).then(|| stats::cp_ratio_interval(x, y, m_old, m_new, t));
    // Otherwise `below`/`above` stand in: inside both hulls, they change neither.
    let cp_lo = match solved {
        _ if y == 0.0 => 0.0,
        Some((lo, _)) if lo_r => lo,
        _ => below,
    };
    let cp_hi = match solved {
        _ if x == 0.0 => f64::INFINITY,
        Some((_, hi)) if hi_r => hi,
        _ => above,
    };
    let cp_d_lo = stats::delta_at_ratio(cp_lo, x, y, m_old, m_new);
    let cp_d_hi = stats::delta_at_ratio(cp_hi, x, y, m_old, m_new);
    let (mut d_lo, mut d_hi) = (d_lo.min(cp_d_lo), d_hi.max(cp_d_hi));
    if shares {
        // The Poisson profile does not know that a share is at most 1: at a
        // large φ its interval would reach beyond what shares can be.
        (d_lo, d_hi) = (d_lo.max(-1.0), d_hi.min(1.0));
    }
    ((ql_lo.min(cp_lo), ql_hi.max(cp_hi)), (d_lo, d_hi))
}
/// §7.1: the run layer's intervals intersected with the log test's: its
/// ratio interval, and for Δ only its bound nearer no change (the profile
/// Δ of that ratio bound, when the log test excludes no change: it says how
/// far the ratio is from 1, not how well the rates' level is known, so the
/// far bound stays the others'). The two are centred apart (the pooled
/// ratio, the mean of log ratios), so when an intersection is empty the
/// interval shown is the log test's when the others hold no change, else
/// the others' (each excludes no change exactly when its p ≤ t).
fn with_log_interval(
    ((lo, hi), (dl, dh)): ((f64, f64), (f64, f64)),
    log: &stats::LogTest,
    s: &Pooled,
    m_old: f64,
    m_new: f64,
    t: f64,
) -> ((f64, f64), (f64, f64)) {
    let (llo, lhi) = log.ratio_interval(t);
    let delta = |th: f64| stats::delta_at_ratio(th, s.x, s.y, m_old, m_new);
    let (ldl, ldh) = (
        if llo > 1.0 {
            delta(llo)
        } else {
            f64::NEG_INFINITY
        },
        if lhi < 1.0 { delta(lhi) } else { f64::INFINITY },
    );
    let others_reject = lo > 1.0 || hi < 1.0;
    let ratio = if lo.max(llo) <= hi.min(lhi) {
        (lo.max(llo), hi.min(lhi))
    } else if others_reject {
        (lo, hi)
    } else {
        (llo, lhi)
    };
    let diff = if dl.max(ldl) <= dh.min(ldh) {
        (dl.max(ldl), dh.min(ldh))
    } else if others_reject {
        (dl, dh)
    } else {
        (delta(llo), delta(lhi))
    };
    (ratio, diff)
}

/// A p or q value with 3 significant digits, clamped below at 1e-300.
pub fn pvalue(p: Option<f64>) -> String {
    match p {
        None => "-".to_string(),
        Some(p) if p < 1e-300 => "<1e-300".to_string(),
        Some(p) if p >= 0.001 => format!("{p:.3}"),
        Some(p) => format!("{p:.2e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            alpha: 0.05,
            adjust: Adjust::Bh,
            noise_cv: None,
            testable: true,
            shares: true,
            filter: true,
        }
    }

    /// §5.4/§9, one run a side: every symbol's share halves (a common
    /// shift), one symbol keeps its share and one is new. Those that moved
    /// with the shift, or less, are `~` with intervals that hold no change;
    /// the new one is `*`, measured from no change.
    #[test]
    fn one_run_rows_are_tested_against_the_band() {
        let mut old: Vec<[f64; 1]> = (0..20).map(|i| [200.0 + 40.0 * i as f64]).collect();
        let mut new: Vec<[f64; 1]> = old.iter().map(|c| [(0.5 * c[0]).round()]).collect();
        old.push([600.0]);
        new.push([600.0]);
        old.push([0.0]);
        new.push([3000.0]);
        let rows: Vec<Counts> = old
            .iter()
            .zip(&new)
            .map(|(o, n)| Counts { old: o, new: n })
            .collect();
        let (v, noise) = judge(&rows, &[1e5], &[1e5], None, &opts());
        assert_eq!(noise.method, Method::OneRun);
        let fit = noise.one_run.unwrap();
        assert!((fit.shift - 0.5f64.ln()).abs() < 0.01, "{fit:?}");
        for (i, r) in v.iter().enumerate().take(21) {
            assert!(!r.significant, "row {i}: {r:?}");
            let (lo, hi) = r.ratio_ci.unwrap();
            let (dl, dh) = r.delta_ci.unwrap();
            assert!(
                lo <= 1.0 && hi >= 1.0 && dl <= 0.0 && dh >= 0.0,
                "row {i}: {r:?}"
            );
        }
        let last = v[21];
        assert!(
            last.significant && last.delta_ci.unwrap().0 > 0.0,
            "{last:?}"
        );
    }

    /// §7.1 (version 3.2): a row that falls 40× with replicates that agree
    /// on the log scale is decided by the log test, whose p is the row's run
    /// layer p, and its interval agrees with its mark.
    #[test]
    fn a_separated_row_is_decided_by_its_log_test() {
        // 2+2 runs; 30 symbols whose runs scatter by about 10% (moderation
        // runs), and one row from 582, 796 down to 20, 17.
        let mut old: Vec<[f64; 2]> = (0..30)
            .map(|i| {
                let c = 200.0 + 40.0 * i as f64;
                [c, c * (1.0 + 0.1 * ((i % 3) as f64 - 1.0))]
            })
            .collect();
        let mut new: Vec<[f64; 2]> = old
            .iter()
            .enumerate()
            .map(|(i, c)| [c[1] * (1.0 + 0.05 * ((i % 2) as f64)), c[0]])
            .collect();
        old.push([582.0, 796.0]);
        new.push([20.0, 17.0]);
        let exp = [1e5, 1e5];
        let rows: Vec<Counts> = old
            .iter()
            .zip(&new)
            .map(|(o, n)| Counts { old: o, new: n })
            .collect();
        let (v, noise) = judge(&rows, &exp, &exp, None, &opts());
        assert!(noise.moderation.is_some());
        let last = v[30];
        let lt = stats::log_test(&old[30], &exp, &new[30], &exp).unwrap();
        let own = stats::ql_p(
            stats::lr_stat(1378.0, 37.0, 2e5, 2e5),
            {
                let pairs = |c: &[f64; 2]| [(c[0], 1e5), (c[1], 1e5)];
                (stats::pearson_x2(&pairs(&old[30])) + stats::pearson_x2(&pairs(&new[30]))) / 2.0
            },
            2.0,
        );
        assert!(lt.p() < own / 2.0, "log {} own {own}", lt.p());
        let exact = stats::exact_p(1378.0, 37.0, 2e5, 2e5);
        let p = last.p.unwrap();
        assert!(p <= lt.p() && p >= exact, "{last:?}");
        let (lo, hi) = last.ratio_ci.unwrap();
        let (dl, dh) = last.delta_ci.unwrap();
        assert_eq!(last.significant, hi < 1.0, "{last:?}");
        assert_eq!(last.significant, dh < 0.0 && dl < dh, "{last:?}");
        assert!(lo > 0.0);
    }

    /// §9: in share mode a Δ interval stays within [−1, 1] however large
    /// the dispersion; the Poisson profile alone leaves that range.
    #[test]
    fn a_share_delta_stays_within_its_range() {
        let (x, y, mo, mn) = (0.0, 9e4, 1e5, 1.9e5);
        let s = Pooled {
            x,
            y,
            mean: (x + y) / 2.0,
            s2: 0.0,
            lr: stats::lr_stat(x, y, mo, mn),
            separated: false,
            log: (f64::NAN, f64::NAN),
        };
        let disp = Dispersion {
            phi: 2e4,
            df: ONE_RUN_DF,
        };
        let (_, (lo, hi)) = intervals(&s, (&disp, None), (None, false), mo, mn, 0.01);
        assert!(lo < -1.0 || hi > 1.0, "unbounded [{lo}, {hi}]");
        let (_, (lo, hi)) = intervals(&s, (&disp, None), (None, true), mo, mn, 0.01);
        assert!(
            (-1.0..=1.0).contains(&lo) && (-1.0..=1.0).contains(&hi),
            "[{lo}, {hi}]"
        );
        assert!(lo < 0.0 && hi > 0.0);
    }
}
