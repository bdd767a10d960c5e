//! `diffprofile history ROOT`: where did each symbol's cost change along a
//! series of kernels? A results tree, archive or counts table (as `batch`
//! reads them) is read one group of benchmarks at a time ([`source`]);
//! each benchmark's kernels are put in order ([`order`]: version-aware,
//! `--order FILE` or a table column), its runs checked and counted by the
//! comparison engine ([`crate::sanity`], [`crate::compare`]), every
//! symbol's series segmented and its steps tested ([`segment`],
//! docs/statistics.md §14), and the benchmark's section written at once
//! ([`render`]) before the next is read. Output never depends on `--jobs`.

mod fmt;
mod html;
pub mod maxsplit;
pub mod order;
pub mod order_by;
pub mod render;
pub mod segment;
mod source;
mod split;
pub mod together;

use crate::aggregate::{self, Side};
use crate::compare::Config;
use crate::exit;
use crate::layout::Layout;
use crate::stats::Prior;
use crate::table::select::Selector;
use anyhow::Result;
use order::Order;
use regex::Regex;
use std::io::Write;

/// `diffprofile history`: the results, their layout and order, what to
/// show, and the analysis configuration (no sides).
#[derive(Clone, Debug)]
pub struct HistoryConfig {
    pub root: String,
    pub layout: Layout,
    pub order: Order,
    /// `--where`: only runs it accepts (kernel and benchmark terms on trees).
    pub select: Option<Selector>,
    /// `--symbol REGEX`: the full series of these symbols.
    pub symbols: Option<Regex>,
    /// `--first-bad`: the bisect aid per significant step.
    pub first_bad: bool,
    /// `--top N`: steps shown per benchmark (text, markdown, html).
    pub top: Option<usize>,
    pub config: Config,
}

/// A symbol as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub dso: Option<String>,
    pub mode: Option<String>,
}

/// One step as reported, in the output unit.
#[derive(Clone, Debug, PartialEq)]
pub struct StepOut {
    pub symbol: Symbol,
    /// Kernel indices: the step is between `at − 1` and `at`; the levels are
    /// of kernels `[from, at)` and `[at, to)`.
    pub at: usize,
    pub from: usize,
    pub to: usize,
    pub level_before: f64,
    pub level_after: f64,
    pub delta: f64,
    pub delta_pct: Option<f64>,
    pub delta_ci: (f64, f64),
    pub p: f64,
    pub q: f64,
    pub significant: bool,
    /// The family of its q (§14.4-§14.5): its round.
    pub round: usize,
    /// How its kernel was found: "own", "moved" or "benchmark" (§14.5).
    pub placed: &'static str,
    /// A moved step: the kernel its own best split named.
    pub own_at: Option<usize>,
    /// The symbol's level per kernel (sparkline) and per run (kernel, value).
    pub levels: Vec<f64>,
    pub points: Vec<(usize, f64)>,
    /// `--first-bad`: what lies between the last good and the first bad.
    pub bisect: Option<String>,
}

/// `--symbol`: a symbol's level per kernel: runs, mean and interval.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesOut {
    pub symbol: Symbol,
    pub kernels: Vec<(usize, f64, f64, f64)>,
}

/// One benchmark's history.
#[derive(Clone, Debug, Default)]
pub struct BenchOut {
    pub name: String,
    /// Its kernels in order, with their runs.
    pub kernels: Vec<String>,
    pub runs: Vec<usize>,
    /// Kernels of the series with no runs of this benchmark.
    pub missing: Vec<String>,
    pub steps: Vec<StepOut>,
    pub series: Vec<SeriesOut>,
    pub symbols: usize,
    pub tested: usize,
    pub drifts: usize,
    /// The benchmark's step kernels (§14.5) and the steps moved to them.
    pub step_kernels: Vec<usize>,
    pub moved: usize,
    /// `1 − t`, the level of the intervals (before the per-segment factor).
    pub level: f64,
    pub moderation: Option<Prior>,
    pub warnings: Vec<String>,
    pub skipped: Option<String>,
}

/// The whole history's frame: root, order and kernels.
pub struct Frame<'a> {
    pub root: &'a str,
    pub order: &'a Order,
    pub kernels: &'a [String],
    pub benchmarks: usize,
    pub unit: &'static str,
    pub scale: f64,
    pub alpha: f64,
    pub adjust: &'static str,
}

/// Run a history; returns the exit code.
pub fn run(config: &HistoryConfig, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    let pool = crate::compare::thread_pool(config.config.jobs)?;
    crate::compare::global_jobs(config.config.jobs);
    let mut c = config.config.clone();
    let (mut src, one_level_down) = pool.install(|| open_series(config, &mut c))?;
    let mut warnings = std::mem::take(&mut src.warnings);
    warnings.extend(one_level_down);
    let kernels = ordered_kernels(config, &src, &mut warnings)?;
    let frame = Frame {
        root: &config.root,
        order: &config.order,
        kernels: &kernels,
        benchmarks: src.listing.len(),
        unit: c.diff.normalize.unit(),
        scale: c.diff.normalize.scale(),
        alpha: c.diff.alpha,
        adjust: adjust_name(c.diff.adjust),
    };
    let mut w = render::Writer::new(c.output, config, &frame);
    w.begin(out)?;
    let mut errors = 0;
    let mut skipped = Vec::new();
    let mut seen = 0;
    while let Some(group) = pool.install(|| src.next_group(&c))? {
        for b in group {
            errors += b.errors.len();
            for e in &b.errors {
                warnings.push(e.clone());
            }
            let bench = pool.install(|| analyse_bench(b, &kernels, config, &c))?;
            for x in &bench.warnings {
                writeln!(
                    err,
                    "diffprofile: warning: {}: {}: {x}",
                    config.root, bench.name
                )?;
            }
            seen += 1;
            if bench.skipped.is_some() {
                skipped.push(bench.name.clone());
            }
            w.bench(&bench, out)?;
        }
    }
    if !skipped.is_empty() {
        warnings.push(format!(
            "{} of {} benchmark(s) skipped (why in their sections): {}",
            skipped.len(),
            frame.benchmarks,
            skipped.join(", ")
        ));
    }
    let failed = if errors > 0 && !c.load.parse.lenient {
        warnings.push(format!(
            "incomplete: {errors} member(s) could not be read or parsed (their runs are left out), as named above; exit status 2"
        ));
        true
    } else if seen > 0 && skipped.len() == seen {
        // As batch refuses a table of which nothing is compared.
        warnings.push(format!(
            "nothing analysed: every benchmark ({}) was skipped, why in its section; \
             exit status 2",
            skipped.len()
        ));
        true
    } else {
        false
    };
    let shown = warnings.len() - usize::from(failed);
    for x in &warnings[..shown] {
        writeln!(err, "diffprofile: warning: {}: {x}", config.root)?;
    }
    w.end(&warnings, out)?;
    out.flush()?;
    if let Some(why) = warnings.last().filter(|_| failed) {
        writeln!(err, "diffprofile: error: {}: {why}", config.root)?;
    }
    Ok(if failed { exit::ERROR } else { exit::SUCCESS })
}

/// The kernels of the results in the series' order, with warnings for
/// names of one version and kernels the order leaves out; an error when
/// the order names a kernel not held, or places none.
fn ordered_kernels(
    config: &HistoryConfig,
    src: &source::Source,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>> {
    let mut all: Vec<String> = src
        .listing
        .values()
        .flat_map(|k| k.keys().cloned())
        .collect();
    all.sort();
    all.dedup();
    config.order.check_listed(&all, config.select.is_some())?;
    let (kernels, unplaced) = config.order.sort(&all);
    for names in order::aliases(&kernels) {
        warnings.push(format!(
            "kernels {} look like one version: each name is a kernel of its own in the \
             series (its own level, and a step between them); rename the directories to \
             one name if they are one kernel",
            names.join(", ")
        ));
    }
    if !unplaced.is_empty() {
        warnings.push(format!(
            "{} kernel(s) have no place in the order and are left out: {}",
            unplaced.len(),
            unplaced.join(", ")
        ));
    }
    if kernels.is_empty() {
        anyhow::bail!(
            "{}: no kernel of the results has a place in the order",
            config.root
        );
    }
    Ok(kernels)
}

/// The results, listed. A tree whose paths all lie under one directory
/// (an archive made of the series' directory, `tar cJf s.tar.xz series`),
/// which the default layout reads as the one kernel of the series, is read
/// one level down when that gives a series (said); else as it is.
fn open_series(config: &HistoryConfig, c: &mut Config) -> Result<(source::Source, Option<String>)> {
    let open = |layout: &Layout, c: &mut Config| {
        source::Source::open(&config.root, layout, config.select.clone(), c)
    };
    let src = open(&config.layout, c)?;
    let kernels = |s: &source::Source| -> Vec<String> {
        let k: std::collections::BTreeSet<&String> =
            s.listing.values().flat_map(|k| k.keys()).collect();
        k.into_iter().cloned().collect()
    };
    if src.is_table() {
        return Ok((src, None));
    }
    let mut c2 = c.clone();
    let mut inner = None;
    let down = crate::table::series::one_level_down(&config.layout, &kernels(&src), |deeper| {
        let s = open(deeper, &mut c2)?;
        let below = kernels(&s);
        inner = Some(s);
        Ok(below)
    })?;
    match (down, inner) {
        (Some((_, note)), Some(inner)) => {
            *c = c2;
            Ok((inner, Some(note)))
        }
        _ => Ok((src, None)),
    }
}

fn adjust_name(a: crate::stats::Adjust) -> &'static str {
    match a {
        crate::stats::Adjust::Bh => "BH",
        crate::stats::Adjust::By => "BY",
        crate::stats::Adjust::Holm => "Holm",
    }
}

/// One benchmark: its kernels in order, checked, counted, analysed.
fn analyse_bench(
    b: source::BenchRuns,
    order: &[String],
    config: &HistoryConfig,
    c: &Config,
) -> Result<BenchOut> {
    let source::BenchRuns {
        name,
        mut kernels,
        mut warnings,
        ..
    } = b;
    let mut out = BenchOut {
        name: name.clone(),
        ..BenchOut::default()
    };
    let Some(mut sides) = series_sides(&name, &mut kernels, order, config, &mut out, &mut warnings)
    else {
        out.warnings = warnings;
        return Ok(out);
    };
    match crate::sanity::prepare(&mut sides, &c.load.parse, &c.identity, c.allow_duplicates) {
        Ok(mut found) => warnings.append(&mut found.warnings),
        Err(e) => {
            let why = format!("refused: {e:#}");
            warnings.push(format!("skipped: {why}"));
            out.skipped = Some(why);
            out.warnings = warnings;
            return Ok(out);
        }
    }
    if !drop_emptied(&mut sides, &mut out, &mut warnings) {
        out.warnings = warnings;
        return Ok(out);
    }
    let (matrix, exposures) = crate::compare::count_matrix(&sides, c)?;
    warnings.extend(matrix.warnings.iter().cloned());
    let testable = aggregate::counts_are_samples(&sides);
    drop(sides);
    let mut runs = segment::Runs {
        kernel: Vec::new(),
        exposure: Vec::new(),
        kernels: exposures.len(),
    };
    for (k, e) in exposures.iter().enumerate() {
        for &x in e {
            runs.kernel.push(k);
            runs.exposure.push(x);
        }
    }
    let n = matrix.symbols.len();
    let counts: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            matrix
                .counts
                .iter()
                .flat_map(|k| k.iter().map(move |r| r[i]))
                .collect()
        })
        .collect();
    let symbols: Vec<Symbol> = matrix
        .symbols
        .iter()
        .map(|s| Symbol {
            name: s.ident.name.to_string(),
            dso: s.ident.dso.map(|d| d.to_string()),
            mode: s.mode.map(|m| m.as_str().to_string()),
        })
        .collect();
    drop(matrix);
    let opts = segment::Options {
        alpha: c.diff.alpha,
        adjust: c.diff.adjust,
        testable,
    };
    let a = segment::analyse(&counts, &runs, &opts);
    if !testable {
        warnings.push("counts are not sample counts: no step is tested".to_string());
    }
    out.symbols = n;
    out.tested = a.tested;
    out.drifts = a.drifts;
    (out.step_kernels, out.moved) = (a.step_kernels.clone(), a.moved);
    out.level = 1.0 - a.t;
    out.moderation = a.moderation;
    let scale = c.diff.normalize.scale();
    out.steps = steps_out(&a, &counts, &runs, &symbols, scale);
    if config.first_bad {
        for s in &mut out.steps {
            s.bisect = s
                .significant
                .then(|| bisect_note(&out.kernels, order, s.at));
        }
    }
    if let Some(re) = &config.symbols {
        out.series = series_out(&a, &counts, &runs, &symbols, re, scale, c.diff.alpha);
    }
    out.warnings = crate::diff::dedup_warnings(warnings);
    Ok(out)
}

/// The benchmark's kernels in order as sides; None (the benchmark skipped,
/// and why in `out`) with fewer than 2 kernels.
fn series_sides(
    name: &str,
    kernels: &mut std::collections::BTreeMap<String, Vec<crate::profile::Profile>>,
    order: &[String],
    config: &HistoryConfig,
    out: &mut BenchOut,
    warnings: &mut Vec<String>,
) -> Option<Vec<Side>> {
    let mut sides = Vec::new();
    for k in order {
        match kernels.remove(k) {
            Some(runs) if !runs.is_empty() => sides.push(Side {
                name: k.clone(),
                label: config.layout.label(k, name),
                runs,
            }),
            _ => out.missing.push(k.clone()),
        }
    }
    if !out.missing.is_empty() {
        warnings.push(format!(
            "no runs of kernel(s) {}: left out of the series",
            out.missing.join(", ")
        ));
    }
    keep_series(&sides, "with runs", out, warnings).then_some(sides)
}

/// Records the series' kernels and runs in `out`; false (the benchmark
/// skipped, and why in `out` and `warnings`) with fewer than 2 kernels
/// (`with`: which kernels counted).
fn keep_series(sides: &[Side], with: &str, out: &mut BenchOut, warnings: &mut Vec<String>) -> bool {
    out.kernels = sides.iter().map(|s| s.name.clone()).collect();
    out.runs = sides.iter().map(|s| s.runs.len()).collect();
    if sides.len() < 2 {
        let why = format!("{} kernel(s) {with}: a series needs 2 or more", sides.len());
        warnings.push(format!("skipped: {why}"));
        out.skipped = Some(why);
        return false;
    }
    true
}

/// Kernels whose every run lost all its samples to the sample filters
/// (`--comm`, `--dso`, `--kernel-only`) have no level: they leave the
/// series, said; false (the benchmark skipped, and why in `out`) when
/// fewer than 2 kernels are left.
fn drop_emptied(sides: &mut Vec<Side>, out: &mut BenchOut, warnings: &mut Vec<String>) -> bool {
    let empty = |s: &Side| s.runs.iter().all(|r| r.counts.is_empty());
    let gone: Vec<String> = sides
        .iter()
        .filter(|s| empty(s))
        .map(|s| s.name.clone())
        .collect();
    if gone.is_empty() {
        return true;
    }
    sides.retain(|s| !empty(s));
    warnings.push(format!(
        "kernel(s) {} left out of the series: no sample of their runs passes the sample filters",
        gone.join(", ")
    ));
    out.missing.extend(gone);
    keep_series(
        sides,
        "with samples that pass the sample filters",
        out,
        warnings,
    )
}

/// Per kernel: pooled count and exposure of one symbol.
fn per_kernel(counts: &[f64], runs: &segment::Runs) -> (Vec<f64>, Vec<f64>) {
    let mut c = vec![0.0; runs.kernels];
    let mut e = vec![0.0; runs.kernels];
    for (r, &k) in runs.kernel.iter().enumerate() {
        c[k] += counts[r];
        e[k] += runs.exposure[r];
    }
    (c, e)
}

/// The steps in the output unit, largest |Δ| first (then symbol, kernel).
fn steps_out(
    a: &segment::Analysis,
    counts: &[Vec<f64>],
    runs: &segment::Runs,
    symbols: &[Symbol],
    scale: f64,
) -> Vec<StepOut> {
    let mut out: Vec<StepOut> = a
        .steps
        .iter()
        .map(|s| {
            let i = s.candidate.symbol;
            let (c, e) = per_kernel(&counts[i], runs);
            let levels = c.iter().zip(&e).map(|(c, e)| scale * c / e).collect();
            let points = runs
                .kernel
                .iter()
                .enumerate()
                .map(|(r, &k)| (k, scale * counts[i][r] / runs.exposure[r]))
                .collect();
            let (before, after) = (scale * s.before, scale * s.after);
            StepOut {
                symbol: symbols[i].clone(),
                at: s.candidate.at,
                from: s.from,
                to: s.to,
                level_before: before,
                level_after: after,
                delta: after - before,
                delta_pct: (before > 0.0).then(|| 100.0 * (after - before) / before),
                delta_ci: (scale * s.delta_ci.0, scale * s.delta_ci.1),
                p: s.candidate.p,
                q: s.candidate.q,
                significant: s.candidate.significant,
                round: s.candidate.round,
                placed: match s.candidate.found {
                    segment::Found::Own => "own",
                    segment::Found::Moved => "moved",
                    segment::Found::Benchmark => "benchmark",
                },
                own_at: (s.candidate.found == segment::Found::Moved).then_some(s.candidate.own_at),
                levels,
                points,
                bisect: None,
            }
        })
        .collect();
    out.sort_by(|x, y| {
        y.delta
            .abs()
            .total_cmp(&x.delta.abs())
            .then_with(|| x.symbol.name.cmp(&y.symbol.name))
            .then_with(|| x.symbol.dso.cmp(&y.symbol.dso))
            .then_with(|| x.at.cmp(&y.at))
    });
    out
}

/// `--symbol`: each matching symbol's kernels: runs, mean and the interval
/// `mean ± √(F⁻¹(1,ν)(1−α) · φ · C)/E` (floored at 0).
fn series_out(
    a: &segment::Analysis,
    counts: &[Vec<f64>],
    runs: &segment::Runs,
    symbols: &[Symbol],
    re: &Regex,
    scale: f64,
    alpha: f64,
) -> Vec<SeriesOut> {
    let mut n = vec![0usize; runs.kernels];
    for &k in &runs.kernel {
        n[k] += 1;
    }
    symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| re.is_match(&s.name))
        .map(|(i, s)| {
            let d = a.dispersion[i];
            let z = crate::stats::f1_upper_quantile(alpha, d.df).sqrt();
            let (c, e) = per_kernel(&counts[i], runs);
            let kernels = (0..runs.kernels)
                .map(|k| {
                    let mean = c[k] / e[k];
                    let half = z * (d.phi * c[k].max(1.0)).sqrt() / e[k];
                    (
                        n[k],
                        scale * mean,
                        scale * (mean - half).max(0.0),
                        scale * (mean + half),
                    )
                })
                .collect();
            SeriesOut {
                symbol: s.clone(),
                kernels,
            }
        })
        .collect()
}

/// `--first-bad`: what lies between the last good kernel and the first bad
/// one `kernels[at]`: kernels of the order with no runs of this benchmark,
/// releases the version order expects, or nothing (adjacent releases).
fn bisect_note(kernels: &[String], order: &[String], at: usize) -> String {
    let (good, bad) = (&kernels[at - 1], &kernels[at]);
    let pos = |k: &String| order.iter().position(|o| o == k).unwrap_or(0);
    let between: Vec<&str> = order[pos(good) + 1..pos(bad)]
        .iter()
        .map(String::as_str)
        .collect();
    if !between.is_empty() {
        return format!(
            "first bad {bad}, last good {good}: {} not measured for this benchmark: bisect there",
            between.join(", ")
        );
    }
    match order::unmeasured_between(good, bad) {
        Some(rel) => format!(
            "first bad {bad}, last good {good}: not measured between {good} and {bad} ({rel}): bisect there"
        ),
        None => format!(
            "first bad {bad}, last good {good}: adjacent in the archive: bisect the commits between them"
        ),
    }
}
