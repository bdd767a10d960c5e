//! Sides → a [`Report`]: for every compared side (each against the baseline,
//! side 0) one row per symbol with old, new, Δ, ratio, their confidence
//! intervals, p and q (statistics.md), ranked and trimmed by `--top` and
//! `--min-delta`. Pure computation: no I/O.

use crate::aggregate::{self, Matrix, Normalize, Side};
use crate::noise_model::NoiseModel;
use crate::profile::{Format, Mode};
use crate::significance::{self, Counts, Method, Noise};
use crate::stats::{self, Adjust};
use std::sync::Arc;

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

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub symbol: String,
    pub dso: Option<String>,
    pub mode: Option<Mode>,
    pub status: Status,
    pub old: f64,
    pub new: f64,
    pub delta: f64,
    /// Δ against old, in percent; `None` for new symbols.
    pub delta_pct: Option<f64>,
    pub delta_ci: Option<(f64, f64)>,
    /// new/old; infinite for new symbols.
    pub ratio: f64,
    pub ratio_ci: Option<(f64, f64)>,
    pub p: Option<f64>,
    pub q: Option<f64>,
    pub significant: bool,
    pub old_cv: Option<Cv>,
    pub new_cv: Option<Cv>,
    pub old_counts: Vec<f64>,
    pub new_counts: Vec<f64>,
    /// Input names folded, aliased or grouped into this row.
    pub members: Vec<String>,
    /// The dispersion φ the row was tested with, and its degrees of freedom
    /// ν (∞ for a χ² reference); None when nothing was tested.
    pub dispersion: Option<f64>,
    pub df: Option<f64>,
}

impl Row {
    pub fn tested(&self) -> bool {
        self.p.is_some()
    }
    pub fn mark(&self) -> &'static str {
        match (self.tested(), self.significant) {
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
    pub old_symbol: String,
    pub new_symbol: String,
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
    pub elided: Elided,
    pub total: Total,
    /// How run-to-run noise was judged (docs/statistics.md §5).
    pub noise: Noise,
    pub tested: usize,
    pub untested: usize,
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
    /// The differential call trees, only when stacks were asked for
    /// (`-o html`, `-o flamegraph`); other renderers never see them.
    pub flame: Option<crate::flame::Flames>,
}

/// Compare every side after the first against the first.
pub fn compare(
    sides: &[Side],
    exposures: &[Vec<f64>],
    matrix: &Matrix,
    opts: &DiffOptions,
) -> Report {
    let mut warnings = matrix.warnings.clone();
    for side in sides {
        for run in &side.runs {
            warnings.extend(run.warnings.iter().cloned());
        }
    }
    let testable = aggregate::counts_are_samples(sides);
    if !testable {
        warnings.push(
            "some runs hold percentages or periods, not sample counts: significance is not tested"
                .to_string(),
        );
    }
    let event = common_event(sides, &mut warnings);
    let comparisons = (1..sides.len())
        .map(|j| compare_one(j, sides, exposures, matrix, opts, testable, &mut warnings))
        .collect();
    let summaries = sides
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
                    exposure,
                })
                .collect(),
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
        flame: None,
    }
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

fn compare_one(
    j: usize,
    sides: &[Side],
    exposures: &[Vec<f64>],
    matrix: &Matrix,
    opts: &DiffOptions,
    testable: bool,
    warnings: &mut Vec<String>,
) -> Comparison {
    let side_name = &sides[j].name;
    let (mut rows, total) = build_rows(j, exposures, matrix, opts.normalize.scale());
    let noise = judge_rows(&mut rows, j, exposures, opts, testable, side_name, warnings);
    let tested = rows.iter().filter(|r| r.tested()).count();
    let untested = if testable { rows.len() - tested } else { 0 };
    let regressions = rows
        .iter()
        .filter(|r| r.significant && r.delta > 0.0)
        .count();
    let improvements = rows
        .iter()
        .filter(|r| r.significant && r.delta < 0.0)
        .count();
    if opts.normalize == Normalize::Share {
        composition_warning(&rows, side_name, warnings);
    }
    let renames = possible_renames(&rows);
    rank(&mut rows, opts.sort);
    let (rows, elided) = trim(rows, opts.top, opts.min_delta);
    Comparison {
        side: j,
        rows,
        elided,
        total,
        noise,
        tested,
        untested,
        regressions,
        improvements,
        renames,
    }
}

/// One row per symbol present on either side of comparison j (values in
/// the output unit, counts per run), and the total row.
fn build_rows(j: usize, exposures: &[Vec<f64>], matrix: &Matrix, scale: f64) -> (Vec<Row>, Total) {
    let (old_runs, new_runs) = (&matrix.counts[0], &matrix.counts[j]);
    let (old_exp, new_exp) = (&exposures[0], &exposures[j]);
    let m_old: f64 = old_exp.iter().sum();
    let m_new: f64 = new_exp.iter().sum();
    let mut rows = Vec::with_capacity(matrix.symbols.len());
    let mut total = Total {
        old: 0.0,
        new: 0.0,
        delta: 0.0,
    };
    for (i, sym) in matrix.symbols.iter().enumerate() {
        let old_counts: Vec<f64> = old_runs.iter().map(|r| r[i]).collect();
        let new_counts: Vec<f64> = new_runs.iter().map(|r| r[i]).collect();
        let x: f64 = old_counts.iter().sum();
        let y: f64 = new_counts.iter().sum();
        let old = x / m_old * scale;
        let new = y / m_new * scale;
        total.old += old;
        total.new += new;
        if x == 0.0 && y == 0.0 {
            continue; // listed with zero ticks everywhere (readprofile -a)
        }
        let status = if x == 0.0 {
            Status::New
        } else if y == 0.0 {
            Status::Gone
        } else if old == new {
            Status::Same
        } else {
            Status::Changed
        };
        rows.push(Row {
            symbol: sym.ident.name.clone(),
            dso: sym.ident.dso.clone(),
            mode: sym.mode,
            status,
            old,
            new,
            delta: new - old,
            delta_pct: (x > 0.0).then(|| (new - old) / old * 100.0),
            delta_ci: None,
            ratio: if x > 0.0 { new / old } else { f64::INFINITY },
            ratio_ci: None,
            p: None,
            q: None,
            significant: false,
            old_cv: side_cv(&old_counts, old_exp, scale),
            new_cv: side_cv(&new_counts, new_exp, scale),
            old_counts,
            new_counts,
            members: sym.members.clone(),
            dispersion: None,
            df: None,
        });
    }
    total.delta = total.new - total.old;
    (rows, total)
}

/// docs/statistics.md §5-§9 over the rows of comparison j: p, q, marks,
/// intervals (scaled to the output unit), dispersions; warnings about how
/// noise was judged and about the noise model's fit to these rows.
fn judge_rows(
    rows: &mut [Row],
    j: usize,
    exposures: &[Vec<f64>],
    opts: &DiffOptions,
    testable: bool,
    side_name: &str,
    warnings: &mut Vec<String>,
) -> Noise {
    let (old_exp, new_exp) = (&exposures[0], &exposures[j]);
    let one_run_each = old_exp.len() == 1 && new_exp.len() == 1;
    let use_model = opts.model_scope == ModelScope::All || one_run_each;
    let model = opts.noise_model.as_ref().filter(|_| use_model).map(|m| {
        let n = (old_exp.len() + new_exp.len()) as f64;
        let keys: Vec<(&str, Option<&str>, f64)> = rows
            .iter()
            .map(|r| {
                let k: f64 = r.old_counts.iter().chain(&r.new_counts).sum();
                (r.symbol.as_str(), r.dso.as_deref(), k / n)
            })
            .collect();
        m.priors_for(&keys, side_name, warnings)
    });
    let counts: Vec<Counts> = rows
        .iter()
        .map(|r| Counts {
            old: &r.old_counts,
            new: &r.new_counts,
        })
        .collect();
    let sig_opts = significance::Options {
        alpha: opts.alpha,
        adjust: opts.adjust,
        noise_cv: opts.noise_cv,
        testable,
    };
    let (verdicts, noise) =
        significance::judge(&counts, old_exp, new_exp, model.as_ref(), &sig_opts);
    let scale = opts.normalize.scale();
    let scaled = |(lo, hi): (f64, f64)| (lo * scale, hi * scale);
    for (row, v) in rows.iter_mut().zip(verdicts) {
        row.p = v.p;
        row.q = v.q;
        row.significant = v.significant;
        row.ratio_ci = v.ratio_ci;
        row.delta_ci = v.delta_ci.map(scaled);
        row.dispersion = v.dispersion;
        row.df = v.df;
    }
    match noise.method {
        Method::OneRun => warnings.push(format!(
            "{side_name}: one run per side: run-to-run noise is judged across symbols, conservatively (only large changes can be marked); use >= 3 runs per side or a noise model (--noise-model, --noise-from)"
        )),
        Method::OneRunAssumed => warnings.push(format!(
            "{side_name}: one run per side and fewer than 10 symbols with >= 5 samples: run-to-run noise is the --noise-cv given, not measured"
        )),
        Method::SamplingOnly => warnings.push(format!(
            "{side_name}: one run per side and fewer than 10 symbols with >= 5 samples: only sampling noise is accounted for (give --noise-cv, a noise model or more runs)"
        )),
        _ => {}
    }
    noise
}

/// Cost-shift / rename candidates among significant rows: a `gone` row
/// with a `new` row, or an improvement with a regression whose names are
/// related ([`related_names`]), whose Δ intervals overlap once the falling
/// one is negated. (Unrelated opposite rows are how any workload change
/// looks; pairing them would bury the real candidates.) Pairs are taken
/// greedily, best-cancelling first, then related names first, each row at
/// most once.
pub fn possible_renames(rows: &[Row]) -> Vec<RenamePair> {
    const CAP: usize = 500;
    // Unresolved addresses and pseudo-rows are not function names.
    let named = |r: &&Row| {
        !(r.symbol.starts_with("0x") || r.symbol.starts_with('[') || r.symbol.starts_with('*'))
    };
    let down: Vec<&Row> = rows
        .iter()
        .filter(named)
        .filter(|r| {
            r.delta < 0.0 && r.delta_ci.is_some() && (r.status == Status::Gone || r.significant)
        })
        .take(CAP)
        .collect();
    let up: Vec<&Row> = rows
        .iter()
        .filter(named)
        .filter(|r| {
            r.delta > 0.0 && r.delta_ci.is_some() && (r.status == Status::New || r.significant)
        })
        .take(CAP)
        .collect();
    let mut pairs: Vec<(f64, bool, usize, usize)> = Vec::new();
    for (i, a) in down.iter().enumerate() {
        for (j, b) in up.iter().enumerate() {
            let related = related_names(&a.symbol, &b.symbol);
            let kinds_match = (a.status == Status::Gone && b.status == Status::New) || related;
            let (Some((alo, ahi)), Some((blo, bhi))) = (a.delta_ci, b.delta_ci) else {
                continue;
            };
            // a's interval negated: [-ahi, -alo]
            let overlap = -ahi <= bhi && blo <= -alo;
            if !kinds_match || !overlap {
                continue;
            }
            let score = (a.delta + b.delta).abs() / a.delta.abs().max(b.delta);
            pairs.push((score, !related, i, j));
        }
    }
    pairs.sort_by(|x, y| {
        x.0.total_cmp(&y.0)
            .then(x.1.cmp(&y.1))
            .then_with(|| down[x.2].symbol.cmp(&down[y.2].symbol))
            .then_with(|| up[x.3].symbol.cmp(&up[y.3].symbol))
    });
    let (mut used_down, mut used_up) = (vec![false; down.len()], vec![false; up.len()]);
    let mut out = Vec::new();
    for (_, _, i, j) in pairs {
        if used_down[i] || used_up[j] {
            continue;
        }
        used_down[i] = true;
        used_up[j] = true;
        out.push(RenamePair {
            old_symbol: down[i].symbol.clone(),
            new_symbol: up[j].symbol.clone(),
            old_delta: down[i].delta,
            new_delta: up[j].delta,
        });
    }
    out.sort_by(|a, b| {
        b.new_delta
            .total_cmp(&a.new_delta)
            .then_with(|| a.old_symbol.cmp(&b.old_symbol))
    });
    out
}

/// Run-to-run CV of one side: over the per-run normalised values with two
/// or more runs; the sampling CV 1/√c with one.
fn side_cv(counts: &[f64], exposures: &[f64], scale: f64) -> Option<Cv> {
    if counts.len() == 1 {
        return (counts[0] > 0.0).then(|| Cv::Sampling(100.0 / counts[0].sqrt()));
    }
    let values: Vec<f64> = counts
        .iter()
        .zip(exposures)
        .map(|(c, e)| c / e * scale)
        .collect();
    stats::cv_percent(&values).map(Cv::Runs)
}

/// statistics.md: in share mode, when the median log-ratio of high-count
/// symbols is far from 0, every share moved: warn about composition.
fn composition_warning(rows: &[Row], side: &str, warnings: &mut Vec<String>) {
    let logs: Vec<f64> = rows
        .iter()
        .filter(|r| {
            r.old_counts.iter().sum::<f64>() >= 100.0 && r.new_counts.iter().sum::<f64>() >= 100.0
        })
        .map(|r| (r.new / r.old).ln())
        .collect();
    if logs.len() < 5 {
        return;
    }
    let m = stats::median(&logs);
    if m.abs() > 0.02 {
        warnings.push(format!(
            "{side}: most symbols shifted by {:+.1}%: composition effect? consider --normalize robust or work",
            (m.exp() - 1.0) * 100.0
        ));
    }
}

/// Whether two names look like one function renamed: equal or one
/// containing the other once leading underscores and a `do_`/`sys_`/`ksys_`
/// prefix are stripped (`schedule` / `do_schedule`, `d_lookup` /
/// `__d_lookup`), for stems of 4 or more characters.
pub fn related_names(a: &str, b: &str) -> bool {
    fn stem(s: &str) -> &str {
        let s = s.trim_start_matches('_');
        let s = ["do_", "sys_", "ksys_", "__x64_sys_"]
            .iter()
            .find_map(|p| s.strip_prefix(p))
            .unwrap_or(s);
        s.trim_start_matches('_')
    }
    let (x, y) = (stem(a), stem(b));
    x.len().min(y.len()) >= 4 && (x.contains(y) || y.contains(x))
}

/// The `--sort impact` key: the bound of Δ's interval nearest zero (0 when
/// the interval spans zero or is unknown).
pub fn impact(row: &Row) -> f64 {
    match row.delta_ci {
        Some((lo, _)) if lo > 0.0 => lo,
        Some((_, hi)) if hi < 0.0 => hi,
        _ => 0.0,
    }
}

/// Rank rows: signed, worse first; ties by Δ, then by name, then by dso.
pub fn rank(rows: &mut [Row], sort: SortBy) {
    let by_name = |a: &Row, b: &Row| a.symbol.cmp(&b.symbol).then_with(|| a.dso.cmp(&b.dso));
    rows.sort_by(|a, b| match sort {
        SortBy::Delta => b.delta.total_cmp(&a.delta).then_with(|| by_name(a, b)),
        SortBy::Impact => impact(b)
            .total_cmp(&impact(a))
            .then_with(|| b.delta.total_cmp(&a.delta))
            .then_with(|| by_name(a, b)),
        SortBy::Ratio => b
            .ratio
            .total_cmp(&a.ratio)
            .then_with(|| b.delta.total_cmp(&a.delta))
            .then_with(|| by_name(a, b)),
        SortBy::Name => by_name(a, b),
    });
}

/// Apply `--min-delta` and `--top N` (N rows of each sign; the rest counted).
pub fn trim(rows: Vec<Row>, top: Option<usize>, min_delta: f64) -> (Vec<Row>, Elided) {
    let mut elided = Elided::default();
    let mut kept: Vec<Row> = Vec::with_capacity(rows.len());
    for r in rows {
        if r.delta.abs() < min_delta {
            elided.small += 1;
        } else {
            kept.push(r);
        }
    }
    let Some(n) = top else {
        return (kept, elided);
    };
    // Which rows of each sign are the N largest in magnitude (by Δ),
    // whatever the display order.
    let mut worse: Vec<usize> = (0..kept.len()).filter(|&i| kept[i].delta > 0.0).collect();
    let mut better: Vec<usize> = (0..kept.len()).filter(|&i| kept[i].delta < 0.0).collect();
    worse.sort_by(|&a, &b| kept[b].delta.total_cmp(&kept[a].delta).then(a.cmp(&b)));
    better.sort_by(|&a, &b| kept[a].delta.total_cmp(&kept[b].delta).then(a.cmp(&b)));
    let mut show = vec![false; kept.len()];
    for &i in worse.iter().take(n).chain(better.iter().take(n)) {
        show[i] = true;
    }
    let mut out = Vec::new();
    for (i, r) in kept.into_iter().enumerate() {
        if show[i] {
            out.push(r);
        } else if r.delta > 0.0 {
            elided.worse += 1;
            elided.worse_delta += r.delta;
        } else if r.delta < 0.0 {
            elided.better += 1;
            elided.better_delta += r.delta;
        } else {
            elided.unchanged += 1;
        }
    }
    (out, elided)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        symbol: &str,
        delta: f64,
        status: Status,
        ci: Option<(f64, f64)>,
        significant: bool,
    ) -> Row {
        Row {
            symbol: symbol.to_string(),
            dso: None,
            mode: None,
            status,
            old: 1.0,
            new: 1.0 + delta,
            delta,
            delta_pct: Some(delta * 100.0),
            delta_ci: ci,
            ratio: 1.0 + delta,
            ratio_ci: None,
            p: ci.map(|_| 0.01),
            q: ci.map(|_| 0.01),
            significant,
            old_cv: None,
            new_cv: None,
            old_counts: vec![],
            new_counts: vec![],
            members: vec![],
            dispersion: None,
            df: None,
        }
    }

    #[test]
    fn rank_is_signed_worse_first_ties_by_name() {
        let mut rows = vec![
            row("b", -1.0, Status::Changed, None, false),
            row("z", 2.0, Status::Changed, None, false),
            row("a", 2.0, Status::Changed, None, false),
            row("c", 0.0, Status::Same, None, false),
        ];
        rank(&mut rows, SortBy::Delta);
        let names: Vec<&str> = rows.iter().map(|r| r.symbol.as_str()).collect();
        assert_eq!(names, ["a", "z", "c", "b"]);
        rank(&mut rows, SortBy::Name);
        let names: Vec<&str> = rows.iter().map(|r| r.symbol.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "z"]);
    }

    #[test]
    fn impact_ranks_big_and_certain_first() {
        let mut rows = vec![
            row(
                "big-uncertain",
                5.0,
                Status::Changed,
                Some((-1.0, 11.0)),
                false,
            ),
            row(
                "small-certain",
                1.0,
                Status::Changed,
                Some((0.8, 1.2)),
                true,
            ),
            row("better", -3.0, Status::Changed, Some((-4.0, -2.0)), true),
        ];
        rank(&mut rows, SortBy::Impact);
        let names: Vec<&str> = rows.iter().map(|r| r.symbol.as_str()).collect();
        assert_eq!(names, ["small-certain", "big-uncertain", "better"]);
        assert_eq!(impact(&rows[2]), -2.0);
    }

    #[test]
    fn top_keeps_n_of_each_sign_and_counts_the_rest() {
        let rows: Vec<Row> = [3.0, 2.0, 1.0, 0.0, -0.5, -1.0, -4.0]
            .iter()
            .enumerate()
            .map(|(i, &d)| row(&format!("s{i}"), d, Status::Changed, None, false))
            .collect();
        let (shown, e) = trim(rows.clone(), Some(1), 0.0);
        let names: Vec<&str> = shown.iter().map(|r| r.symbol.as_str()).collect();
        assert_eq!(names, ["s0", "s6"]);
        assert_eq!((e.worse, e.better, e.unchanged), (2, 2, 1));
        assert_eq!(e.worse_delta, 3.0);
        assert_eq!(e.better_delta, -1.5);
        let (shown, e) = trim(rows, None, 1.0);
        assert_eq!(shown.len(), 5, "|delta| < 1.0 hides 0 and -0.5 only");
        assert_eq!(e.small, 2);
    }

    #[test]
    fn renames_pair_gone_with_new_and_related_opposite_rows() {
        let rows = vec![
            row("schedule", -2.0, Status::Changed, Some((-2.4, -1.6)), true),
            row("do_schedule", 2.1, Status::Changed, Some((1.7, 2.5)), true),
            row("unrelated_up", 2.0, Status::Changed, Some((1.6, 2.4)), true),
            row("old_fn", -1.0, Status::Gone, Some((-1.2, -0.8)), true),
            row("new_fn", 1.05, Status::New, Some((0.8, 1.3)), true),
            row(
                "0x00000000000f582a",
                -1.0,
                Status::Gone,
                Some((-1.2, -0.8)),
                true,
            ),
            row("noise_gone", -0.1, Status::Gone, Some((-0.3, 0.1)), false),
        ];
        let pairs = possible_renames(&rows);
        let got: Vec<(&str, &str)> = pairs
            .iter()
            .map(|p| (p.old_symbol.as_str(), p.new_symbol.as_str()))
            .collect();
        assert_eq!(got, [("schedule", "do_schedule"), ("old_fn", "new_fn")]);
    }

    #[test]
    fn related_names_strip_underscores_and_do_prefix() {
        assert!(related_names("schedule", "do_schedule"));
        assert!(related_names("d_lookup", "__d_lookup"));
        assert!(!related_names("read", "vfs_write"));
        assert!(
            !related_names("a", "ab"),
            "stems under 4 characters never match"
        );
    }
}
