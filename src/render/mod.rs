//! Output formats: one renderer per module, each
//! `render(&Report, &RenderOptions, &mut dyn Write) -> io::Result<()>`
//! (`html` and `flamegraph` also take the flames, which come beside the
//! report, never in it); several reports as one document ([`render_many`],
//! `batch`); and the number formatting and header/summary sentences they
//! share.

use crate::aggregate::{fmt_count, Normalize};
use crate::diff::{Comparison, Cv, Report, Row, RunSummary, Status};
use crate::flame::Flames;
use crate::significance::Method;
use crate::stats::Adjust;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

pub mod classic;
pub mod csv;
mod fixed;
pub mod flamegraph;
pub mod html;
pub mod json;
mod layout;
mod many;
pub mod markdown;
pub mod markup;
pub mod text;

pub use crate::significance::pvalue;

pub use many::{render_index, render_many, Document, Index, IndexBench, Regression, Section};

pub use layout::{
    compact_paths, fitted_label, fitted_labels, level_pct, truncate_middle, wrap_words, Labels,
    MAX_WIDTH,
};

// `--color` as given (resolved against the terminal by the app layer).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// `-o/--output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Classic,
    Json,
    Csv,
    Markdown,
    Html,
    Flamegraph,
}

#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    /// `--wide`: CVs, intervals, p, q and run counts in text and markdown;
    /// names are never shortened.
    pub wide: bool,
    /// ANSI colour in text output (decided by the app layer from `--color`,
    /// the terminal and `NO_COLOR`).
    pub color: bool,
    /// Side names are the user's (`batch` kernels): printed exactly as
    /// given. Otherwise they are the default `old`, `new`, `new2`…, shown
    /// in capitals in headers and titles.
    pub names_as_given: bool,
    /// `--top` was not given and text goes to a terminal: this many rows
    /// of each sign are shown, and the report says so.
    pub auto_top: Option<usize>,
}

/// `report` in `format`; `flames` (the comparison's differential call
/// trees, when stacks were read) are drawn by `-o html` and `-o flamegraph`
/// only.
pub fn render(
    format: OutputFormat,
    report: &Report,
    flames: Option<&Flames>,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        OutputFormat::Text => text::render(report, opts, out),
        OutputFormat::Classic => classic::render(report, opts, out),
        OutputFormat::Json => json::render(report, opts, out),
        OutputFormat::Csv => csv::render(report, opts, out),
        OutputFormat::Markdown => markdown::render(report, opts, out),
        OutputFormat::Html => html::render(report, flames, opts, out),
        OutputFormat::Flamegraph => flamegraph::render(report, flames, opts, out),
    }
}

/// How side `i` is named in headers and titles: as given (`batch`
/// kernels, [`RenderOptions::names_as_given`]), or the default names in
/// capitals (`OLD`, `NEW`, `NEW2`).
pub fn side_title(report: &Report, i: usize, opts: &RenderOptions) -> String {
    let name = report.sides.get(i).map_or("", |s| s.name.as_str());
    printable(&if opts.names_as_given {
        name.to_string()
    } else {
        name.to_uppercase()
    })
}

pub use crate::text::{is_bidi, printable};

/// Columns a string takes on a terminal (East Asian wide characters take two).
pub fn width(s: &str) -> usize {
    if s.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        return s.len(); // printable ASCII: a column a byte
    }
    unicode_width::UnicodeWidthStr::width(s)
}

/// A row's key across the comparisons of a multi-way report.
pub type RowKey<'a> = (&'a str, Option<&'a str>);

/// The rows of a multi-way report: every symbol shown for any compared side,
/// in the order first seen (comparison by comparison), and for each
/// comparison every row it has by key, shown or hidden by `--top` /
/// `--min-delta` (so a value known for a side is printed; a key missing
/// from a side's map is absent from both of its sides).
pub fn union_rows(report: &Report) -> (Vec<RowKey<'_>>, Vec<BTreeMap<RowKey<'_>, &Row>>) {
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    let mut by_side = Vec::new();
    for c in &report.comparisons {
        let mut m = BTreeMap::new();
        for r in &c.rows {
            let k = (r.symbol.as_str(), r.dso.as_deref());
            if seen.insert(k) {
                order.push(k);
            }
            m.insert(k, r);
        }
        for r in &c.hidden {
            m.insert((r.symbol.as_str(), r.dso.as_deref()), r);
        }
        by_side.push(m);
    }
    (order, by_side)
}

/// How values of a report are printed: decimals chosen by the unit.
#[derive(Clone, Copy, Debug)]
pub struct NumFmt {
    decimals: usize,
}

impl NumFmt {
    /// Shares with 3 decimals (a thousandth of a percent), ticks whole (one
    /// run each) or with one decimal (means of runs). Rates, ticks per
    /// operation and robust values with as many digits as they have
    /// meaning: down to one sample's worth of the side with the most
    /// exposure, but no more than 4 significant digits of the largest value.
    pub fn for_report(report: &Report) -> NumFmt {
        let one_run_each = report.sides.iter().all(|s| s.runs.len() == 1);
        let decimals = match report.normalize {
            Normalize::Share => 3,
            Normalize::Ticks if one_run_each => 0,
            Normalize::Ticks => 1,
            Normalize::Rate | Normalize::Work | Normalize::Robust => meaningful_decimals(report),
        };
        NumFmt { decimals }
    }
    /// A value (old, new, total).
    pub fn value(&self, v: f64) -> String {
        fixed::fixed(v, self.decimals)
    }
    /// A signed difference: `+1.2340`, `-0.5000`, `0`.
    pub fn delta(&self, v: f64) -> String {
        let mut s = String::new();
        self.push_delta(&mut s, v);
        s
    }
    /// [`NumFmt::value`] appended to `out`.
    pub fn push_value(&self, out: &mut String, v: f64) {
        fixed::push(out, v, self.decimals, false);
    }
    /// [`NumFmt::delta`] appended to `out`.
    pub fn push_delta(&self, out: &mut String, v: f64) {
        let start = out.len();
        fixed::push(out, v, self.decimals, true);
        if out[start + 1..].bytes().all(|b| b == b'0' || b == b'.') {
            out.remove(start);
        }
    }
}

/// See [`NumFmt::for_report`].
fn meaningful_decimals(report: &Report) -> usize {
    let scale = report.normalize.scale();
    let exposure = report
        .sides
        .iter()
        .map(|s| s.runs.iter().map(|r| r.exposure).sum::<f64>())
        .fold(0.0, f64::max);
    let largest = report
        .comparisons
        .iter()
        .flat_map(|c| &c.rows)
        .flat_map(|r| [r.old, r.new])
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let resolution = scale / exposure;
    let by_resolution = if resolution > 0.0 && resolution.is_finite() {
        (-resolution.log10()).ceil().clamp(0.0, 9.0) as usize
    } else {
        3
    };
    let by_size = if largest > 0.0 && largest.is_finite() {
        (3.0 - largest.log10().floor()).clamp(0.0, 9.0) as usize
    } else {
        by_resolution
    };
    by_resolution.min(by_size)
}

/// Δ% against old, or the status word where a percentage would mislead.
pub fn delta_pct(row: &Row) -> String {
    let mut s = String::new();
    push_delta_pct(&mut s, row);
    s
}

/// `+12.3%`, `-4.0%`, and `0.0%` for anything that rounds to zero.
pub fn signed_pct(p: f64) -> String {
    let mut s = String::new();
    push_signed_pct(&mut s, p);
    s
}

/// [`delta_pct`] appended to `out`.
pub fn push_delta_pct(out: &mut String, row: &Row) {
    match (row.status, row.delta_pct()) {
        (Status::New, _) | (_, None) => out.push_str("new"),
        (Status::Gone, _) => out.push_str("gone"),
        (_, Some(p)) => push_signed_pct(out, p),
    }
}

/// [`signed_pct`] appended to `out`.
pub fn push_signed_pct(out: &mut String, p: f64) {
    if p.is_finite() && p.abs() >= EXPONENT_FROM {
        out.push_str(&format!("{p:+.2e}%"));
        return;
    }
    let start = out.len();
    fixed::push(out, p, 1, true);
    if &out[start..] == "+0.0" || &out[start..] == "-0.0" {
        out.truncate(start);
        out.push_str("0.0");
    }
    out.push('%');
}

/// Values from this size on are written in exponent form (`1.23e42`):
/// an interval's bound can be astronomically wide (a consistent change
/// measured on two runs a side), and 45 digits say nothing more.
pub const EXPONENT_FROM: f64 = 1e5;

/// A ratio: `1.280`, `inf`, `3.17e44`.
pub fn ratio(r: f64) -> String {
    if r.is_infinite() {
        "inf".to_string()
    } else if r.abs() >= EXPONENT_FROM {
        format!("{r:.2e}")
    } else {
        fixed::fixed(r, 3)
    }
}

pub fn interval(ci: Option<(f64, f64)>, f: impl Fn(f64) -> String) -> String {
    match ci {
        None => "-".to_string(),
        Some((lo, hi)) => format!("[{}, {}]", f(lo), f(hi)),
    }
}

pub fn cv(c: Option<Cv>) -> String {
    match c {
        None => "-".to_string(),
        Some(Cv::Runs(v)) => format!("{v:.1}%"),
        Some(Cv::Sampling(v)) => format!("{v:.1}%s"),
    }
}

/// The unit sentence of the header.
pub fn unit_sentence(n: Normalize) -> &'static str {
    match n {
        Normalize::Share => "share (% of each run's samples; delta in percentage points)",
        Normalize::Ticks => "ticks (mean ticks, i.e. samples, per run)",
        Normalize::Rate => "rate (ticks per second of each run)",
        Normalize::Work => "work (ticks per operation of each run)",
        Normalize::Robust => "robust (ticks scaled by median-of-ratios size factors)",
    }
}

/// Each side's header line: `OLD path: 3 runs, totals 10000 10100 9900`,
/// folded to `width` columns: when it does not fit, the totals (and
/// exposures) go on indented lines of their own, never split mid-list
/// across the name. Lines start with `prefix` (continuations with as many
/// spaces plus two).
pub fn side_lines(
    report: &Report,
    opts: &RenderOptions,
    prefix: &str,
    width: usize,
) -> Vec<String> {
    let names: Vec<String> = (0..report.sides.len())
        .map(|i| side_title(report, i, opts))
        .collect();
    let pad = names.iter().map(|n| n.chars().count()).max().unwrap_or(3);
    let indent = " ".repeat(prefix.chars().count() + 2);
    let mut out = Vec::new();
    for (s, name) in report.sides.iter().zip(&names) {
        let totals: Vec<f64> = s.runs.iter().map(|r| r.total).collect();
        let approx = if s.runs.iter().any(|r| r.approximate.is_some()) {
            " (approximate)"
        } else {
            ""
        };
        let plural = if s.runs.len() == 1 { "" } else { "s" };
        let head = format!(
            "{prefix}{name:<pad$} {}: {} run{plural}",
            s.label,
            s.runs.len()
        );
        let tail = format!(
            "total{plural} {}{approx}{}{}",
            listed(&totals, &|t| fmt_count(t)),
            kept_phrase(&s.runs),
            exposure_phrase(report.normalize, &s.runs),
        );
        let one = format!("{head}, {tail}");
        if one.chars().count() <= width {
            out.push(one);
            continue;
        }
        out.push(head);
        for (k, l) in wrap_words(&tail, width - indent.len())
            .into_iter()
            .enumerate()
        {
            let more = if k == 0 { "" } else { "  " };
            out.push(format!("{indent}{more}{l}"));
        }
    }
    out
}

/// What the sample filters kept of the runs' totals, when any was given:
/// `, kept 812 790 (26.3%)` (the filters are named below it).
pub fn kept_phrase(runs: &[RunSummary]) -> String {
    let kept: Vec<f64> = runs.iter().filter_map(|r| r.kept).collect();
    if kept.len() != runs.len() || kept.is_empty() {
        return String::new();
    }
    let total: f64 = runs.iter().map(|r| r.total).sum();
    let share = if total > 0.0 {
        let k: f64 = kept.iter().sum();
        // Never "100.0%" for a filter that dropped samples, nor "0.0%" for
        // one that kept some.
        let p = (k / total * 100.0).clamp(0.0, 100.0);
        let p = match p {
            _ if k >= total => "100".to_string(),
            p if p > 99.9 => "99.9".to_string(),
            p if k > 0.0 && p < 0.1 => "<0.1".to_string(),
            p => format!("{p:.1}"),
        };
        format!(" ({p}%)")
    } else {
        String::new()
    };
    format!(", kept {}{share}", listed(&kept, &|t| fmt_count(t)))
}

/// Per-run values a header lists one by one: at most this many, then how
/// many more and their range, so that a side of 100,000 runs still has a
/// header of a few lines (JSON and CSV keep every run).
pub const RUNS_LISTED: usize = 12;

/// `values` as the header lists them ([`RUNS_LISTED`]).
pub fn listed(values: &[f64], f: &dyn Fn(f64) -> String) -> String {
    let shown: Vec<String> = values.iter().take(RUNS_LISTED).map(|&v| f(v)).collect();
    let rest = values.get(RUNS_LISTED..).unwrap_or_default();
    if rest.is_empty() {
        return shown.join(" ");
    }
    let (lo, hi) = rest
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    format!(
        "{} and {} more ({} to {})",
        shown.join(" "),
        rest.len(),
        f(lo),
        f(hi)
    )
}

/// The runs' exposures when they are not the totals already shown: the
/// durations (`rate`), work counts (`work`) or size factors (`robust`).
pub fn exposure_phrase(n: Normalize, runs: &[RunSummary]) -> String {
    let exposures: Vec<f64> = runs.iter().map(|r| r.exposure).collect();
    let list = |f: &dyn Fn(f64) -> String| listed(&exposures, f);
    let s = if runs.len() == 1 { "" } else { "s" };
    match n {
        Normalize::Share | Normalize::Ticks => String::new(),
        Normalize::Rate => format!(", duration{s} {} s", list(&|e| format!("{e:.3}"))),
        Normalize::Work => format!(", work {}", list(&|e| fmt_count(e))),
        Normalize::Robust => format!(", size factor{s} {}", list(&|e| format!("{e:.3}"))),
    }
}

pub fn adjust_name(a: Adjust) -> &'static str {
    match a {
        Adjust::Bh => "Benjamini-Hochberg",
        Adjust::By => "Benjamini-Yekutieli",
        Adjust::Holm => "Holm",
    }
}

/// How noise was accounted for, in one phrase (docs/statistics.md §5).
pub fn noise_sentence(c: &Comparison) -> String {
    let n = &c.noise;
    let d = n.residual_df;
    match n.method {
        Method::Runs => match &n.moderation {
            Some(p) => format!(
                "over runs (quasi-likelihood F test, residual df {d}); dispersions moderated across {} symbols, prior df {}{}",
                p.symbols,
                fmt_df(p.d_cap),
                if p.d0 > p.d_cap { " (capped at 2x residual)" } else { "" }
            ),
            None => format!(
                "over runs (quasi-likelihood F test, residual df {d}; too few symbols to moderate)"
            ),
        },
        Method::NoiseModel => {
            let m = n.model.as_ref();
            let (source, runs) = m.map_or(("?", 0), |m| (m.source.as_str(), m.runs));
            let own = if d > 0.0 {
                format!(", joined by these runs (residual df {d})")
            } else {
                String::new()
            };
            format!("noise model of {runs} replicate runs ({source}){own}; quasi-likelihood F test")
        }
        Method::OneRun => {
            let (symbols, kappa, shift) = n
                .one_run
                .map_or((0, 0.0, 0.0), |o| (o.symbols, o.kappa, o.shift));
            let level = if kappa > 0.0 {
                format!("dispersion 1 + {} x count", fmt_sig(kappa))
            } else {
                "none beyond sampling".to_string()
            };
            format!(
                "one run per side: run-to-run noise measured across {symbols} symbols around their common shift of x{} ({level}); rows tested against the band from no change to that shift, F(1,3) reference",
                fmt_sig(shift.exp())
            )
        }
        Method::OneRunAssumed => format!(
            "one run per side: run-to-run CV {:.1}% assumed (--noise-cv)",
            100.0 * n.noise_cv.unwrap_or(0.0)
        ),
        Method::SamplingOnly => {
            "one run per side, too few symbols to measure run-to-run noise: sampling noise only, F(1,3) reference".to_string()
        }
        Method::NotTested => "not tested (counts are not samples)".to_string(),
    }
}

/// A dispersion φ with two decimals, `-` when not computed.
pub fn dispersion(phi: Option<f64>) -> String {
    phi.map_or("-".to_string(), |v| format!("{v:.2}"))
}

/// A small positive number with 3 significant digits (`0.00123`, `1.2e-7`).
pub fn fmt_sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        format!("{x}")
    } else if x.abs() >= 1e-4 {
        let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.2e}")
    }
}

/// A mean count for people: three significant digits, no exponent.
fn fmt_mean(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Degrees of freedom for people: `inf`, or one decimal.
pub fn fmt_df(df: f64) -> String {
    if df.is_infinite() {
        "inf".to_string()
    } else {
        format!("{df:.1}")
    }
}

/// The significance level as a message shows it: `0.05`, `0.001`, and
/// below 0.0001 in exponent form (`1e-300`, never 300 zeros).
pub fn fmt_alpha(a: f64) -> String {
    if a >= 1e-4 {
        format!("{a}")
    } else {
        format!("{a:e}")
    }
}

/// The summary sentence: significant regressions/improvements, noise, untested.
pub fn summary_sentence(report: &Report, c: &Comparison) -> String {
    if c.noise.method == Method::NotTested {
        return "summary: significance not tested (counts are not sample counts)".to_string();
    }
    // When filters leave rows out, the family is said: the shown symbols
    // are tested, the noise is learned from all (docs/statistics.md §8.2).
    let family = if c.noise.shown_rows < c.noise.learned_rows {
        format!(
            " over the {} tested symbols shown; noise learned from all {} symbols of the runs",
            c.tested, c.noise.learned_rows
        )
    } else {
        String::new()
    };
    // The independent filter is said when it left rows out (§8.3).
    let filter = match c.noise.filter {
        Some(f) if c.filtered > 0 => format!(
            ", {} of them below the filter's mean of {} samples per run",
            c.filtered,
            fmt_mean(f.threshold)
        ),
        _ => String::new(),
    };
    format!(
        "summary: {} significant regression{}, {} significant improvement{} ({} q <= {}{family}); {} within noise; {} untested (too few samples{filter})",
        c.regressions,
        if c.regressions == 1 { "" } else { "s" },
        c.improvements,
        if c.improvements == 1 { "" } else { "s" },
        adjust_name(report.adjust),
        fmt_alpha(report.alpha),
        c.tested - c.regressions - c.improvements,
        c.untested
    )
}

/// Notes on rows left out by `--top` / `--min-delta`.
pub fn elided_lines(
    c: &Comparison,
    nf: &NumFmt,
) -> (Option<String>, Option<String>, Option<String>) {
    let e = &c.elided;
    let worse = (e.worse > 0).then(|| {
        format!(
            "... {} more regression{} (sum {})",
            e.worse,
            if e.worse == 1 { "" } else { "s" },
            nf.delta(e.worse_delta)
        )
    });
    let better = (e.better > 0).then(|| {
        format!(
            "... {} more improvement{} (sum {})",
            e.better,
            if e.better == 1 { "" } else { "s" },
            nf.delta(e.better_delta)
        )
    });
    let rows = |n: usize| if n == 1 { "row" } else { "rows" };
    let other = match (e.unchanged, e.small) {
        (0, 0) => None,
        (u, 0) => Some(format!("... {u} unchanged {} not shown", rows(u))),
        (0, m) => Some(format!("... {m} {} below --min-delta not shown", rows(m))),
        (u, m) => Some(format!(
            "... {} rows not shown ({u} unchanged, {m} below --min-delta)",
            u + m
        )),
    };
    (worse, better, other)
}

/// The symbol column: name, with the dso in brackets when rows carry one
/// (not for the core kernel, `[kernel.kallsyms]`, the common case).
pub fn symbol_label(row: &Row) -> String {
    match shown_dso(row) {
        Some(d) => format!("{} [{}]", row.symbol, d),
        None => row.symbol.to_string(),
    }
}

/// The dso a row's label names after the symbol, shortened
/// ([`short_dso`]): none for rows without one and for the core kernel.
pub fn shown_dso(row: &Row) -> Option<&'static str> {
    let d = row.dso?.as_str();
    (!d.is_empty() && d != "[kernel.kallsyms]").then(|| short_dso(d))
}

/// `/usr/lib/x86_64-linux-gnu/libc.so.6` → `libc.so.6`; `[kernel.kallsyms]` → `kernel.kallsyms`.
pub fn short_dso(d: &str) -> &str {
    let d = d.trim_start_matches('[').trim_end_matches(']');
    d.rsplit('/').next().unwrap_or(d)
}

/// A row's value cells, before the mark and the symbol (text and markdown
/// tables): Δ, Δ%, old, new, and with `wide` each side's CV, the Δ interval,
/// the ratio and its interval, p, q, φ, df and `runs` (`n=OLD+NEW`).
pub(crate) fn value_cells(r: &Row, nf: &NumFmt, wide: bool, runs: &str) -> Vec<String> {
    let (mut buf, mut ends) = (String::new(), Vec::new());
    push_value_cells(r, nf, wide, runs, &mut buf, &mut ends);
    let mut from = 0;
    ends.iter()
        .map(|&to| {
            let cell = buf[from..to].to_string();
            from = to;
            cell
        })
        .collect()
}

/// [`value_cells`] appended to `out` one after another, with no String
/// each: the end of each cell in `out` is pushed to `ends`.
pub(crate) fn push_value_cells(
    r: &Row,
    nf: &NumFmt,
    wide: bool,
    runs: &str,
    out: &mut String,
    ends: &mut Vec<usize>,
) {
    nf.push_delta(out, r.delta);
    ends.push(out.len());
    push_delta_pct(out, r);
    ends.push(out.len());
    nf.push_value(out, r.old);
    ends.push(out.len());
    nf.push_value(out, r.new);
    ends.push(out.len());
    if wide {
        for s in wide_cells(r, nf, runs) {
            out.push_str(&s);
            ends.push(out.len());
        }
    }
}

/// The cells `--wide` adds to [`value_cells`].
fn wide_cells(r: &Row, nf: &NumFmt, runs: &str) -> [String; 10] {
    [
        cv(r.old_cv()),
        cv(r.new_cv()),
        interval(r.delta_ci(), |v| nf.delta(v)),
        ratio(r.ratio()),
        interval(r.ratio_ci(), ratio),
        pvalue(r.p()),
        pvalue(r.q()),
        dispersion(r.dispersion()),
        r.df().map_or("-".to_string(), fmt_df),
        runs.to_string(),
    ]
}

/// Regressions named in the `--fail-on-regression` line; the rest counted.
pub const GATE_NAMED: usize = 5;

/// The one line that says why `--fail-on-regression` exits 1: `total`
/// significant regressions, the largest `named` (at most [`GATE_NAMED`]).
pub fn gate_line<S: AsRef<str>>(total: usize, named: &[S]) -> String {
    let rest = total.saturating_sub(named.len());
    let named: Vec<&str> = named.iter().map(AsRef::as_ref).collect();
    if named.is_empty() {
        // (Every regression is in rows not shown: the list would be empty.)
        return format!(
            "--fail-on-regression: exit status 1 for {total} significant regression(s), none \
             of them among the rows shown (--top, --min-delta or --sort hides them)"
        );
    }
    format!(
        "--fail-on-regression: exit status 1 for {total} significant regression(s): {}{}",
        named.join(", "),
        if rest > 0 {
            format!(" and {rest} more")
        } else {
            String::new()
        }
    )
}

#[cfg(test)]
mod gate_tests {
    #[test]
    fn a_gate_of_hidden_rows_says_so() {
        let none: [&str; 0] = [];
        assert_eq!(
            super::gate_line(4, &none),
            "--fail-on-regression: exit status 1 for 4 significant regression(s), none of them \
             among the rows shown (--top, --min-delta or --sort hides them)"
        );
        assert_eq!(
            super::gate_line(3, &["fput +3.5"]),
            "--fail-on-regression: exit status 1 for 3 significant regression(s): fput +3.5 and 2 more"
        );
    }
}

#[cfg(test)]
mod listed_tests {
    use super::*;

    /// A side of 100,000 runs lists a dozen totals and the range of the rest.
    #[test]
    fn a_header_lists_a_bounded_number_of_runs() {
        let totals: Vec<f64> = (0..100_000).map(|i| f64::from(1000 + i % 7)).collect();
        let line = listed(&totals, &|t| fmt_count(t));
        assert!(line.len() < 120, "{} bytes", line.len());
        assert!(line.ends_with(" and 99988 more (1000 to 1006)"), "{line}");
        let few = listed(&[1.0, 2.0], &|t| fmt_count(t));
        assert_eq!(few, "1 2");
    }
}

#[cfg(test)]
mod alpha_tests {
    /// `--alpha 1e-300` is printed as such, not as 300 zeros.
    #[test]
    fn tiny_alphas_are_short() {
        assert_eq!(super::fmt_alpha(0.05), "0.05");
        assert_eq!(super::fmt_alpha(0.001), "0.001");
        assert_eq!(super::fmt_alpha(1e-300), "1e-300");
        assert_eq!(crate::aggregate::fmt_count(-0.0), "0");
        assert_eq!(crate::aggregate::fmt_count(-0.001), "0.00");
        assert_eq!(crate::aggregate::fmt_count(-1.5), "-1.50");
    }
}
