//! Sides → a [`Report`]: for every compared side (each against the baseline,
//! side 0) one row per symbol with old, new, Δ, ratio, their confidence
//! intervals, p and q (statistics.md), ranked and trimmed by `--top` and
//! `--min-delta`. Pure computation: no I/O.

use crate::aggregate::{self, Matrix, Normalize, Side};
use crate::names::Members;
use crate::noise_model::NoiseModel;
use crate::profile::{Format, Mode, Name};
use crate::significance::{self, Counts, Method, Noise, Verdict};
use crate::stats::{self, Adjust};
use rayon::prelude::*;
use std::sync::Arc;

mod composition;
mod counts;
mod judged;
mod rank;
mod renames;
mod warnings;

pub use counts::SideCounts;
pub use judged::Judged;
pub use rank::{impact, rank, trim};
pub use renames::{possible_renames, similarity};
pub use warnings::dedup as dedup_warnings;

/// `--sort`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    Delta,
    Impact,
    Ratio,
    Name,
}

#[derive(Clone, Debug)]
pub struct DiffOptions {
    pub normalize: Normalize,
    pub sort: SortBy,
    pub top: Option<usize>,
    pub min_delta: f64,
    pub alpha: f64,
    pub adjust: Adjust,
    pub noise_cv: Option<f64>,
    /// `--noise-model FILE` / `--noise-from RUNS…`: run-to-run noise learned
    /// from replicate runs (docs/statistics.md §5.3).
    pub noise_model: Option<Arc<NoiseModel>>,
    /// Which comparisons use `noise_model`: all (given by the user), or only
    /// those with one run per side (`batch` learning it from a kernel's runs).
    pub model_scope: ModelScope,
}

/// See [`DiffOptions::model_scope`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ModelScope {
    #[default]
    All,
    OneRunPerSide,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            normalize: Normalize::Share,
            sort: SortBy::Delta,
            top: None,
            min_delta: 0.0,
            alpha: 0.05,
            adjust: Adjust::Bh,
            noise_cv: None,
            noise_model: None,
            model_scope: ModelScope::All,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Changed,
    New,
    Gone,
    Same,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Changed => "changed",
            Status::New => "new",
            Status::Gone => "gone",
            Status::Same => "same",
        }
    }
}

/// Run-to-run variation of one side of a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cv {
    /// 100·sd/mean of the per-run normalised values.
    Runs(f64),
    /// One run: the sampling CV 1/√c, in percent.
    Sampling(f64),
}

/// One symbol of one comparison. Kept small (a million of them are held at
/// once): Δ% and the ratio are computed from `old` and `new` when asked
/// ([`Row::delta_pct`], [`Row::ratio`]), the CVs are held without their
/// kind (one run: sampling), the counts and members compactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub symbol: Name,
    pub dso: Option<Name>,
    pub mode: Option<Mode>,
    pub status: Status,
    pub old: f64,
    pub new: f64,
    pub delta: f64,
    /// Each side's run-to-run CV ([`Row::old_cv`], [`Row::new_cv`]).
    cvs: Cvs,
    /// Per-run counts of both sides ([`Row::old_counts`], [`Row::new_counts`]).
    pub counts: SideCounts,
    /// Input names folded, aliased or grouped into this row.
    pub members: Members,
    /// The row's verdict: p, q, mark, intervals, dispersion (see the
    /// methods of the same names).
    pub judged: Judged,
}

/// A row's two CVs in percent, NaN where there is none; equal when both
/// are none or the same number.
#[derive(Clone, Copy, Debug)]
struct Cvs([f64; 2]);

impl PartialEq for Cvs {
    fn eq(&self, other: &Self) -> bool {
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        same(self.0[0], other.0[0]) && same(self.0[1], other.0[1])
    }
}

impl significance::RowCounts for Row {
    fn counts(&self) -> Counts<'_> {
        Counts {
            old: self.counts.old_runs(),
            new: self.counts.new_runs(),
        }
    }
}

impl Row {
    /// Δ against old, in percent; `None` for new symbols (old 0).
    pub fn delta_pct(&self) -> Option<f64> {
        (self.old > 0.0).then(|| (self.new - self.old) / self.old * 100.0)
    }
    /// new/old; infinite for new symbols.
    pub fn ratio(&self) -> f64 {
        if self.old > 0.0 {
            self.new / self.old
        } else {
            f64::INFINITY
        }
    }
    pub fn old_cv(&self) -> Option<Cv> {
        cv_of(self.cvs.0[0], self.counts.old_runs())
    }
    pub fn new_cv(&self) -> Option<Cv> {
        cv_of(self.cvs.0[1], self.counts.new_runs())
    }
    pub fn old_counts(&self) -> &[f64] {
        self.counts.old_runs()
    }
    pub fn new_counts(&self) -> &[f64] {
        self.counts.new_runs()
    }
    /// The row's whole verdict (one lookup for several of its parts).
    pub fn verdict(&self) -> Verdict {
        self.judged.get()
    }
    pub fn p(&self) -> Option<f64> {
        self.verdict().p
    }
    pub fn q(&self) -> Option<f64> {
        self.verdict().q
    }
    /// Marked significant (q ≤ α).
    pub fn significant(&self) -> bool {
        self.verdict().significant
    }
    /// Δ's interval, in the output unit.
    pub fn delta_ci(&self) -> Option<(f64, f64)> {
        self.verdict().delta_ci
    }
    pub fn ratio_ci(&self) -> Option<(f64, f64)> {
        self.verdict().ratio_ci
    }
    /// The dispersion φ the row was tested with, and its degrees of freedom
    /// ν (∞ for a χ² reference); None when nothing was tested.
    pub fn dispersion(&self) -> Option<f64> {
        self.verdict().dispersion
    }
    pub fn df(&self) -> Option<f64> {
        self.verdict().df
    }
    pub fn tested(&self) -> bool {
        self.p().is_some()
    }
    pub fn mark(&self) -> &'static str {
        let v = self.verdict();
        match (v.p.is_some(), v.significant) {
            (false, _) => " ",
            (true, true) => "*",
            (true, false) => "~",
        }
    }
}

/// The `total` row: every sample of every run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Total {
    pub old: f64,
    pub new: f64,
    pub delta: f64,
}

/// Rows left out of the view, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Elided {
    /// Positive rows past `--top`, and the sum of their Δ.
    pub worse: usize,
    pub worse_delta: f64,
    pub better: usize,
    pub better_delta: f64,
    pub unchanged: usize,
    /// Rows under `--min-delta`.
    pub small: usize,
}

/// A falling row and a rising row whose changes could be one function
/// under two names: shown, never merged.
#[derive(Clone, Debug, PartialEq)]
pub struct RenamePair {
    pub old_symbol: Name,
    pub new_symbol: Name,
    pub old_delta: f64,
    pub new_delta: f64,
}

/// One side compared with the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Index into `Report::sides`.
    pub side: usize,
    /// Shown rows, in rank order.
    pub rows: Vec<Row>,
    /// Rows left out by `--top` / `--min-delta`, in rank order; kept only
    /// when a report compares several sides, so that a row shown for one
    /// side has its value for the others (empty otherwise).
    pub hidden: Vec<Row>,
    pub elided: Elided,
    pub total: Total,
    /// How run-to-run noise was judged (docs/statistics.md §5).
    pub noise: Noise,
    pub tested: usize,
    pub untested: usize,
    /// Of the untested, those the independent filter left out of the
    /// family (docs/statistics.md §8.3).
    pub filtered: usize,
    pub regressions: usize,
    pub improvements: usize,
    pub renames: Vec<RenamePair>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub source: String,
    pub format: Format,
    pub total: f64,
    pub approximate: Option<String>,
    /// The samples the sample filters (`--comm`, `--pid`, `--dso`,
    /// `--kernel-only`) kept of `total`, when any was given.
    pub kept: Option<f64>,
    /// What the run's counts were divided by (`Normalize`): its total in
    /// share mode, 1 in ticks mode, its duration, work count or size factor.
    pub exposure: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SideSummary {
    pub name: String,
    pub label: String,
    pub runs: Vec<RunSummary>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub normalize: Normalize,
    pub event: Option<String>,
    pub alpha: f64,
    pub adjust: Adjust,
    pub sides: Vec<SideSummary>,
    pub comparisons: Vec<Comparison>,
    /// Statements for the header: filters, weights, inclusive mode…
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

const NOT_TESTED: &str =
    "some runs hold percentages or periods, not sample counts: significance is not tested";

/// What a comparison needs of its sides besides the count matrix: the
/// runs' warnings and summaries, their event, whether they hold samples.
/// Once it is taken, the runs' own counts are no longer needed.
pub struct Context {
    warnings: Vec<String>,
    testable: bool,
    event: Option<String>,
    names: Vec<String>,
    summaries: Vec<SideSummary>,
    /// Under `--inclusive`, each run's samples whose leaf is a shown row
    /// (`[side][run]`, each counted once, [`Matrix::kept`]): the total row
    /// is theirs, not the sum of the rows (which counts a sample once per
    /// symbol of its callchain).
    samples: Option<Vec<Vec<f64>>>,
}

impl Context {
    /// `detail`: the unresolved-samples warning in full (`--wide`), not
    /// in one line.
    /// `relative`: shares are of the samples the filters kept (the
    /// exposures), so the unresolved samples' percentage is too.
    pub fn of(
        sides: &[Side],
        exposures: &[Vec<f64>],
        matrix: &Matrix,
        (detail, relative): (bool, bool),
    ) -> Context {
        let mut warnings = matrix.warnings.clone();
        warnings.extend(warnings::run_warnings(sides));
        let runs: Vec<(&crate::profile::Profile, f64)> = sides
            .iter()
            .zip(exposures)
            .flat_map(|(s, e)| {
                s.runs
                    .iter()
                    .zip(e)
                    .map(|(r, &e)| (r, if relative { e } else { r.total }))
            })
            .collect();
        warnings.extend(crate::format::unresolved::summaries(
            &runs, relative, detail,
        ));
        let testable = aggregate::counts_are_samples(sides);
        if !testable {
            warnings.push(NOT_TESTED.to_string());
        }
        let event = common_event(sides, &mut warnings);
        let summaries = summaries(sides, exposures);
        let samples = matrix.kept.clone();
        Context {
            warnings,
            testable,
            event,
            names: sides.iter().map(|s| s.name.clone()).collect(),
            summaries,
            samples,
        }
    }
}

/// Compare every side after the first against the first, with what
/// [`Context::of`] took from the sides; the matrix is freed as soon as the
/// rows hold its counts.
pub fn compare(ctx: Context, exposures: &[Vec<f64>], matrix: Matrix, opts: &DiffOptions) -> Report {
    let mut built: Vec<Built> = (1..ctx.names.len())
        .map(|j| build_rows(j, exposures, &matrix, opts))
        .collect();
    drop(matrix);
    let Context {
        mut warnings,
        testable,
        event,
        names,
        summaries,
        samples,
    } = ctx;
    if let Some(samples) = &samples {
        for (k, b) in built.iter_mut().enumerate() {
            b.total = samples_total(samples, exposures, k + 1, opts.normalize.scale());
        }
    }
    let sources: Vec<Vec<&str>> = summaries
        .iter()
        .map(|s| s.runs.iter().map(|r| r.source.as_str()).collect())
        .collect();
    let comparisons = built
        .into_iter()
        .enumerate()
        .map(|(k, built)| {
            let j = k + 1;
            let label = comparison_label(&names, j);
            let side = (j, label.as_str(), names.len());
            let runs = [sources[0].as_slice(), sources[j].as_slice()];
            compare_one(
                side,
                built,
                (exposures, runs),
                opts,
                testable,
                &mut warnings,
            )
        })
        .collect();
    Report {
        normalize: opts.normalize,
        event,
        alpha: opts.alpha,
        adjust: opts.adjust,
        sides: summaries,
        comparisons,
        notes: Vec::new(),
        warnings,
    }
}

fn summaries(sides: &[Side], exposures: &[Vec<f64>]) -> Vec<SideSummary> {
    sides
        .iter()
        .zip(exposures)
        .map(|(s, exp)| SideSummary {
            name: s.name.clone(),
            label: s.label.clone(),
            runs: s
                .runs
                .iter()
                .zip(exp)
                .map(|(r, &exposure)| RunSummary {
                    source: r.source.clone(),
                    format: r.format,
                    total: r.total,
                    approximate: r.total_approximate.clone(),
                    kept: None,
                    exposure,
                })
                .collect(),
        })
        .collect()
}

/// The event every run is of (the first, with a warning, when they differ).
pub fn common_event(sides: &[Side], warnings: &mut Vec<String>) -> Option<String> {
    let mut events: Vec<&str> = sides
        .iter()
        .flat_map(|s| &s.runs)
        .filter_map(|r| r.event.as_deref())
        .collect();
    events.sort_unstable();
    events.dedup();
    if events.len() > 1 {
        warnings.push(format!(
            "runs are of different events: {}",
            events.join(", ")
        ));
    }
    events.first().map(|e| e.to_string())
}

/// How a comparison's own warnings begin: nothing when the report has one
/// comparison (two sides), else which one (`NEW2 vs OLD: `), so that a
/// side's name is never read as the side a named run is on.
fn comparison_label(names: &[String], j: usize) -> String {
    if names.len() <= 2 {
        return String::new();
    }
    let name = crate::text::side_name;
    format!("{} vs {}: ", name(&names[j]), name(&names[0]))
}

/// Comparison `side.0` (of side `side.1`, of `side.2` sides; `side.1`
/// begins its warnings, [`comparison_label`]).
fn compare_one(
    side: (usize, &str, usize),
    built: Built,
    (exposures, sources): (&[Vec<f64>], [&[&str]; 2]),
    opts: &DiffOptions,
    testable: bool,
    warnings: &mut Vec<String>,
) -> Comparison {
    let (j, side_name, n_sides) = side;
    let Built {
        mut rows,
        total,
        symbol_order,
        shown,
    } = built;
    // Whatever depends on the rows' order sees them in symbol order: the
    // row of the i-th symbol is at `place(i)`.
    let order = symbol_order.as_deref();
    let place = |i: usize| order.map_or(i, |o| o[i] as usize);
    // Every row teaches the noise; the shown ones are the tested family.
    let family: Vec<bool> = (0..rows.len()).map(|i| shown[place(i)]).collect();
    let judged = in_symbol_order(&rows, place);
    let (verdicts, noise) = judge_rows(
        (&judged, &family),
        j,
        exposures,
        opts,
        testable,
        side_name,
        warnings,
    );
    warnings.extend(unlike_runs(
        &noise,
        &judged,
        ([&exposures[0], &exposures[j]], opts),
        side_name,
        sources,
    ));
    drop(judged);
    for i in 0..rows.len() {
        rows[place(i)].judged = verdicts.row(i);
    }
    // Rows left out by the filters go; the others keep their order.
    let all_shown = shown.iter().all(|&s| s);
    let mut order: Option<Vec<u32>> = symbol_order;
    if !all_shown {
        order = order.map(|o| shown_order(&o, &shown));
        let mut at = 0;
        rows.retain(|_| {
            at += 1;
            shown[at - 1]
        });
    }
    let order = order.as_deref();
    let place = |i: usize| order.map_or(i, |o| o[i] as usize);
    let (tested, regressions, improvements, filtered) = marks(&rows);
    let untested = if testable { rows.len() - tested } else { 0 };
    let by_symbol = in_symbol_order(&rows, place);
    if opts.normalize == Normalize::Share {
        let (old_exp, new_exp) = (&exposures[0], &exposures[j]);
        warnings.extend(composition::warning(
            &by_symbol, old_exp, new_exp, opts.alpha, side_name,
        ));
    }
    let renames = possible_renames(&by_symbol);
    drop(by_symbol);
    if order.is_none() {
        rank(&mut rows, opts.sort);
    }
    // Rows left out are kept only for a report of several sides.
    let (rows, hidden, elided) =
        rank::trim_keeping(rows, opts.top, opts.min_delta, opts.sort, n_sides > 2);
    Comparison {
        side: j,
        rows,
        hidden,
        elided,
        total,
        noise,
        tested,
        untested,
        filtered,
        regressions,
        improvements,
        renames,
    }
}

/// The rows tested, marked as regressions and as improvements, and left
/// out by the independent filter (docs/statistics.md §8.3), one verdict
/// lookup a row.
fn marks(rows: &[Row]) -> (usize, usize, usize, usize) {
    rows.par_iter()
        .map(|r| {
            let v = r.verdict();
            let marked = v.significant;
            (
                usize::from(v.p.is_some()),
                usize::from(marked && r.delta > 0.0),
                usize::from(marked && r.delta < 0.0),
                usize::from(v.filtered),
            )
        })
        .reduce(
            || (0, 0, 0, 0),
            |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3),
        )
}

/// A symbol order (the row of the i-th symbol at `order[i]`) of the rows
/// that stay when only the `shown` ones (by row) do.
fn shown_order(order: &[u32], shown: &[bool]) -> Vec<u32> {
    // A row's new place: the shown rows before it.
    let mut new_place = vec![u32::MAX; shown.len()];
    let mut k = 0;
    for (p, &s) in shown.iter().enumerate() {
        if s {
            new_place[p] = k;
            k += 1;
        }
    }
    order
        .iter()
        .filter(|&&p| shown[p as usize])
        .map(|&p| new_place[p as usize])
        .collect()
}

/// §5.5's warnings: runs unlike their siblings, and with a noise model the
/// single OLD run (`rows` as judged, OLD's exposures, the sources of both
/// sides' runs) against the model's replicates.
fn unlike_runs(
    noise: &Noise,
    rows: &[&Row],
    (exposures, opts): ([&[f64]; 2], &DiffOptions),
    side_name: &str,
    sources: [&[&str]; 2],
) -> Vec<String> {
    let shares = opts.normalize == Normalize::Share;
    let mut out: Vec<String> =
        warnings::unlike_runs(noise, rows, side_name, sources, (exposures, shares))
            .into_iter()
            .collect();
    if noise.model.is_some() {
        out.extend(old_run_against_model(
            rows,
            exposures[0],
            opts,
            side_name,
            sources[0],
        ));
    }
    out
}

/// The single OLD run against the noise model's replicates.
fn old_run_against_model(
    rows: &[&Row],
    old_exp: &[f64],
    opts: &DiffOptions,
    side_name: &str,
    sources: &[&str],
) -> Option<String> {
    let (Some(model), [exposure]) = (opts.noise_model.as_ref(), old_exp) else {
        return None;
    };
    let counts: Vec<(&str, Option<&str>, f64)> = rows
        .iter()
        .map(|r| (r.symbol.as_str(), r.dso.as_deref(), r.old_counts()[0]))
        .collect();
    let expected = model.expected_in(&counts, *exposure);
    let check = stats::check_against(&expected, model.runs.len());
    warnings::unlike_model(check.as_ref(), rows, side_name, sources)
}

/// `rows` in symbol order: the i-th symbol's row is at `place(i)`.
fn in_symbol_order(rows: &[Row], place: impl Fn(usize) -> usize) -> Vec<&Row> {
    (0..rows.len()).map(|i| &rows[place(i)]).collect()
}

/// The total row of comparison `j` under `--inclusive`: the samples of
/// each side's runs (each once), in the output unit (100% in share mode
/// without sample filters).
fn samples_total(samples: &[Vec<f64>], exposures: &[Vec<f64>], j: usize, scale: f64) -> Total {
    let side = |s: usize| -> f64 {
        samples[s].iter().sum::<f64>() / exposures[s].iter().sum::<f64>() * scale
    };
    let (old, new) = (side(0), side(j));
    Total {
        old,
        new,
        delta: new - old,
    }
}

/// One comparison's rows before they are judged, and its total row.
struct Built {
    rows: Vec<Row>,
    total: Total,
    /// When the rows were made in rank order (`--sort delta` and `ratio`
    /// rank by values alone, so a million rows are made where they go and
    /// never moved): the place of each row, in symbol order.
    symbol_order: Option<Vec<u32>>,
    /// By row: shown and tested (else a row only the noise is learned
    /// from: a symbol filter or `--kernel-only` left it out).
    shown: Vec<bool>,
}

/// One row per symbol present on either side of comparison j (values in
/// the output unit, counts per run), and the total row.
fn build_rows(j: usize, exposures: &[Vec<f64>], matrix: &Matrix, opts: &DiffOptions) -> Built {
    let scale = opts.normalize.scale();
    let (old_runs, new_runs) = (&matrix.counts[0], &matrix.counts[j]);
    let (old_exp, new_exp) = (&exposures[0], &exposures[j]);
    let m_old: f64 = old_exp.iter().sum();
    let m_new: f64 = new_exp.iter().sum();
    let n = matrix.symbols.len();
    let sum = |runs: &[Vec<f64>], i: usize| -> f64 { runs.iter().map(|r| r[i]).sum() };
    let mut total = Total {
        old: 0.0,
        new: 0.0,
        delta: 0.0,
    };
    // The total row sums every shown symbol in order (rows are made in
    // parallel).
    for i in (0..n).filter(|&i| matrix.symbols[i].shown) {
        total.old += sum(old_runs, i) / m_old * scale;
        total.new += sum(new_runs, i) / m_new * scale;
    }
    total.delta = total.new - total.old;
    // Row of symbol i, which has samples on some side.
    let make = |i: usize| -> Row {
        let sym = &matrix.symbols[i];
        let counts = SideCounts::of(old_runs.iter().map(|r| r[i]), new_runs.iter().map(|r| r[i]));
        let x: f64 = counts.old_runs().iter().sum();
        let y: f64 = counts.new_runs().iter().sum();
        let old = x / m_old * scale;
        let new = y / m_new * scale;
        let status = if x == 0.0 {
            Status::New
        } else if y == 0.0 {
            Status::Gone
        } else if old == new {
            Status::Same
        } else {
            Status::Changed
        };
        Row {
            symbol: sym.ident.name,
            dso: sym.ident.dso,
            mode: sym.mode,
            status,
            old,
            new,
            delta: new - old,
            cvs: Cvs([
                side_cv(counts.old_runs(), old_exp, scale),
                side_cv(counts.new_runs(), new_exp, scale),
            ]),
            counts,
            members: sym.members.clone(),
            judged: Judged::default(),
        }
    };
    let key = rank::by_values(opts.sort);
    let kept = kept_symbols(n, (old_runs, new_runs), (m_old, m_new, scale), key);
    // Each row made in parallel where it goes.
    let mut rows = Vec::new();
    kept.par_iter()
        .map(|&i| make(i as usize))
        .collect_into_vec(&mut rows);
    let shown = kept
        .iter()
        .map(|&i| matrix.symbols[i as usize].shown)
        .collect();
    let symbol_order = key.map(|_| {
        let mut place = vec![u32::MAX; n];
        for (k, &i) in kept.iter().enumerate() {
            place[i as usize] = k as u32;
        }
        place.retain(|&k| k != u32::MAX);
        place
    });
    Built {
        rows,
        total,
        symbol_order,
        shown,
    }
}

/// The symbols of one comparison (n of them; its sides' runs, exposures
/// and output scale) that get a row: not those listed with zero samples everywhere
/// (readprofile -a). In rank order when `key` ranks by values (the keys
/// are freed before the rows are made), else in symbol order.
fn kept_symbols(
    n: usize,
    (old_runs, new_runs): (&[Vec<f64>], &[Vec<f64>]),
    (m_old, m_new, scale): (f64, f64, f64),
    key: Option<rank::ValueKey>,
) -> Vec<u32> {
    let sums = |i: usize| -> (f64, f64) {
        (
            old_runs.iter().map(|r| r[i]).sum(),
            new_runs.iter().map(|r| r[i]).sum(),
        )
    };
    match key {
        Some(key) => {
            let mut keyed: Vec<(f64, f64, u32)> = (0..n)
                .into_par_iter()
                .filter_map(|i| {
                    let (x, y) = sums(i);
                    let (a, b) = key(x / m_old * scale, y / m_new * scale);
                    ((x, y) != (0.0, 0.0)).then_some((a, b, i as u32))
                })
                .collect();
            rank::sort_keys(&mut keyed);
            keyed.into_iter().map(|(_, _, i)| i).collect()
        }
        None => (0..n as u32)
            .into_par_iter()
            .filter(|&i| sums(i as usize) != (0.0, 0.0))
            .collect(),
    }
}

/// docs/statistics.md §5-§9 over the rows of comparison j: p, q, marks,
/// intervals (scaled to the output unit), dispersions; warnings about how
/// noise was judged and about the noise model's fit to these rows.
fn judge_rows(
    (rows, family): (&[&Row], &[bool]),
    j: usize,
    exposures: &[Vec<f64>],
    opts: &DiffOptions,
    testable: bool,
    side_name: &str,
    warnings: &mut Vec<String>,
) -> (judged::Shared, Noise) {
    let (old_exp, new_exp) = (&exposures[0], &exposures[j]);
    let one_run_each = old_exp.len() == 1 && new_exp.len() == 1;
    let use_model = opts.model_scope == ModelScope::All || one_run_each;
    let model = opts.noise_model.as_ref().filter(|_| use_model).map(|m| {
        let n = (old_exp.len() + new_exp.len()) as f64;
        let keys: Vec<(&str, Option<&str>, f64)> = rows
            .iter()
            .map(|r| {
                let k: f64 = r.old_counts().iter().chain(r.new_counts()).sum();
                (r.symbol.as_str(), r.dso.as_deref(), k / n)
            })
            .collect();
        let mut priors = m.priors_for(&keys, side_name, warnings);
        if let ([exposure], [_]) = (&old_exp[..], &new_exp[..]) {
            let old: Vec<(&str, Option<&str>, f64)> = rows
                .iter()
                .map(|r| (r.symbol.as_str(), r.dso.as_deref(), r.old_counts()[0]))
                .collect();
            m.join_old_run(&mut priors, &old, *exposure);
        }
        priors
    });
    let sig_opts = significance::Options {
        alpha: opts.alpha,
        adjust: opts.adjust,
        noise_cv: opts.noise_cv,
        testable,
        shares: opts.normalize == Normalize::Share,
        filter: true,
    };
    let (verdicts, noise) =
        significance::judge_family(rows, family, old_exp, new_exp, model.as_ref(), &sig_opts);
    let shared = judged::Shared::new(verdicts, opts.normalize.scale());
    match noise.method {
        Method::OneRun => warnings.push(format!(
            "{side_name}one run per side: run-to-run noise is judged across symbols, conservatively (only large changes can be marked); use >= 3 runs per side or a noise model (--noise-model, --noise-from)"
        )),
        Method::OneRunAssumed => warnings.push(format!(
            "{side_name}one run per side and fewer than 10 symbols with >= 5 samples: run-to-run noise is the --noise-cv given, not measured"
        )),
        Method::SamplingOnly => warnings.push(format!(
            "{side_name}one run per side and fewer than 10 symbols with >= 5 samples: only sampling noise is accounted for (give --noise-cv, a noise model or more runs)"
        )),
        _ => {}
    }
    (shared, noise)
}

/// Run-to-run CV of one side in percent (NaN: none): over the per-run
/// normalised values with two or more runs; the sampling CV 1/√c with one.
fn side_cv(counts: &[f64], exposures: &[f64], scale: f64) -> f64 {
    if counts.len() == 1 {
        return if counts[0] > 0.0 {
            100.0 / counts[0].sqrt()
        } else {
            f64::NAN
        };
    }
    let values: Vec<f64> = counts
        .iter()
        .zip(exposures)
        .map(|(c, e)| c / e * scale)
        .collect();
    stats::cv_percent(&values).unwrap_or(f64::NAN)
}

/// A CV as [`side_cv`] holds it, with its kind: the sampling CV for a
/// side of one run (never NaN otherwise: a CV is finite or infinite).
fn cv_of(cv: f64, counts: &[f64]) -> Option<Cv> {
    if cv.is_nan() {
        None
    } else if counts.len() == 1 {
        Some(Cv::Sampling(cv))
    } else {
        Some(Cv::Runs(cv))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A million rows are held at once: what a row costs is checked.
    #[test]
    fn a_row_is_small() {
        assert_eq!(std::mem::size_of::<Row>(), 104);
    }

    /// A row for unit tests: old 1, new 1 + delta.
    pub fn row(
        symbol: &str,
        delta: f64,
        status: Status,
        ci: Option<(f64, f64)>,
        significant: bool,
    ) -> Row {
        Row {
            symbol: Name::new(symbol),
            dso: None,
            mode: None,
            status,
            old: 1.0,
            new: 1.0 + delta,
            delta,
            judged: Judged::of(crate::significance::Verdict {
                p: ci.map(|_| 0.01),
                q: ci.map(|_| 0.01),
                significant,
                delta_ci: ci,
                ..Default::default()
            }),
            cvs: Cvs([f64::NAN; 2]),
            counts: SideCounts::default(),
            members: Members::default(),
        }
    }
}
