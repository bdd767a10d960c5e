//! Output formats: one renderer per module, each
//! `render(&Report, &RenderOptions, &mut dyn Write) -> io::Result<()>`,
//! and the number formatting and header/summary sentences they share.

use crate::aggregate::{fmt_count, Normalize};
use crate::diff::{Comparison, Cv, NoiseModel, Report, Row, RunSummary, Status};
use crate::stats::Adjust;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

pub mod classic;
pub mod csv;
pub mod flamegraph;
pub mod html;
pub mod json;
pub mod markdown;
pub mod text;

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
    /// `--wide`: CVs, intervals, p, q and run counts in text and markdown.
    pub wide: bool,
    /// ANSI colour in text output (decided by the app layer from `--color`,
    /// the terminal and `NO_COLOR`).
    pub color: bool,
}

pub fn render(
    format: OutputFormat,
    report: &Report,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        OutputFormat::Text => text::render(report, opts, out),
        OutputFormat::Classic => classic::render(report, opts, out),
        OutputFormat::Json => json::render(report, opts, out),
        OutputFormat::Csv => csv::render(report, opts, out),
        OutputFormat::Markdown => markdown::render(report, opts, out),
        OutputFormat::Html => html::render(report, opts, out),
        OutputFormat::Flamegraph => flamegraph::render(report, opts, out),
    }
}

/// A name as every text output prints it (symbols, events, side and
/// benchmark names): valid UTF-8 as it is (`函数_ünïcödé`), control
/// characters (C0, DEL, C1) and the bidirectional controls escaped as
/// `\u{..}`, so a crafted name can neither break the layout nor send escape
/// sequences to a terminal nor reorder what is shown.
pub fn printable(s: &str) -> String {
    let bidi = |c: char| matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(|c| c.is_control() || bidi(c)) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() || is_bidi(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The Unicode bidirectional controls, which reorder how text is shown.
pub fn is_bidi(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// Columns a string takes on a terminal (East Asian wide characters take two).
pub fn width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// A row's key across the comparisons of a multi-way report.
pub type RowKey<'a> = (&'a str, Option<&'a str>);

/// The rows of a multi-way report: every symbol shown for any compared side,
/// in the order first seen (comparison by comparison), and each comparison's
/// shown rows by key.
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
    pub fn for_report(report: &Report) -> NumFmt {
        let one_run_each = report.sides.iter().all(|s| s.runs.len() == 1);
        let decimals = match report.normalize {
            Normalize::Share => 3,
            Normalize::Ticks if one_run_each => 0,
            Normalize::Ticks | Normalize::Rate | Normalize::Robust => 1,
            Normalize::Work => 6,
        };
        NumFmt { decimals }
    }
    /// A value (old, new, total).
    pub fn value(&self, v: f64) -> String {
        format!("{:.*}", self.decimals, v)
    }
    /// A signed difference: `+1.2340`, `-0.5000`, `0`.
    pub fn delta(&self, v: f64) -> String {
        let s = format!("{:+.*}", self.decimals, v);
        if s[1..].bytes().all(|b| b == b'0' || b == b'.') {
            s[1..].to_string()
        } else {
            s
        }
    }
}

/// Δ% against old, or the status word where a percentage would mislead.
pub fn delta_pct(row: &Row) -> String {
    match (row.status, row.delta_pct) {
        (Status::New, _) | (_, None) => "new".to_string(),
        (Status::Gone, _) => "gone".to_string(),
        (_, Some(p)) => signed_pct(p),
    }
}

/// `+12.3%`, `-4.0%`, and `0.0%` for anything that rounds to zero.
pub fn signed_pct(p: f64) -> String {
    let s = format!("{p:+.1}%");
    if s == "+0.0%" || s == "-0.0%" {
        "0.0%".to_string()
    } else {
        s
    }
}

/// A ratio: `1.280`, `inf`.
pub fn ratio(r: f64) -> String {
    if r.is_infinite() {
        "inf".to_string()
    } else {
        format!("{r:.3}")
    }
}

pub fn interval(ci: Option<(f64, f64)>, f: impl Fn(f64) -> String) -> String {
    match ci {
        None => "-".to_string(),
        Some((lo, hi)) => format!("[{}, {}]", f(lo), f(hi)),
    }
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

/// `OLD path: 3 runs, totals 10000 10100 9900 samples` lines for each side.
pub fn side_lines(report: &Report) -> Vec<String> {
    let width = report.sides.iter().map(|s| s.name.len()).max().unwrap_or(3);
    report
        .sides
        .iter()
        .map(|s| {
            let totals: Vec<String> = s.runs.iter().map(|r| fmt_count(r.total)).collect();
            let approx = if s.runs.iter().any(|r| r.approximate.is_some()) {
                " (approximate)"
            } else {
                ""
            };
            let plural = if s.runs.len() == 1 { "" } else { "s" };
            format!(
                "{:<width$} {}: {} run{plural}, total{plural} {}{}{}",
                s.name.to_uppercase(),
                s.label,
                s.runs.len(),
                totals.join(" "),
                approx,
                exposure_phrase(report.normalize, &s.runs),
            )
        })
        .collect()
}

/// The runs' exposures when they are not the totals already shown: the
/// durations (`rate`), work counts (`work`) or size factors (`robust`).
pub fn exposure_phrase(n: Normalize, runs: &[RunSummary]) -> String {
    let list = |f: &dyn Fn(f64) -> String| {
        runs.iter()
            .map(|r| f(r.exposure))
            .collect::<Vec<_>>()
            .join(" ")
    };
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

/// How noise was accounted for, in one phrase.
pub fn noise_sentence(c: &Comparison) -> String {
    match &c.noise {
        NoiseModel::Runs { df } => {
            format!("run-to-run noise estimated over runs (quasi-Poisson, df {df})")
        }
        NoiseModel::Estimated { tau, symbols } => format!(
            "one run per side: noise floor {:.1}% estimated from {symbols} symbols",
            tau / std::f64::consts::SQRT_2 * 100.0
        ),
        NoiseModel::Assumed { cv } => {
            format!(
                "one run per side: noise floor {:.1}% from --noise-cv",
                cv * 100.0
            )
        }
        NoiseModel::SamplingOnly => "one run per side: sampling noise only".to_string(),
        NoiseModel::NotTested => "not tested (counts are not samples)".to_string(),
    }
}

/// The summary sentence: significant regressions/improvements, noise, untested.
pub fn summary_sentence(report: &Report, c: &Comparison) -> String {
    if let NoiseModel::NotTested = c.noise {
        return "summary: significance not tested (counts are not sample counts)".to_string();
    }
    format!(
        "summary: {} significant regression{}, {} significant improvement{} ({} q <= {}); {} within noise; {} untested (too few samples)",
        c.regressions,
        if c.regressions == 1 { "" } else { "s" },
        c.improvements,
        if c.improvements == 1 { "" } else { "s" },
        adjust_name(report.adjust),
        report.alpha,
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
    let mut rest = Vec::new();
    if e.unchanged > 0 {
        rest.push(format!("{} unchanged", e.unchanged));
    }
    if e.small > 0 {
        rest.push(format!("{} below --min-delta", e.small));
    }
    let other = (!rest.is_empty()).then(|| format!("... {} rows not shown", rest.join(", ")));
    (worse, better, other)
}

/// The symbol column: name, with the dso in brackets when rows carry one
/// (not for the core kernel, `[kernel.kallsyms]`, the common case).
pub fn symbol_label(row: &Row) -> String {
    match &row.dso {
        Some(d) if !d.is_empty() && d != "[kernel.kallsyms]" => {
            format!("{} [{}]", row.symbol, short_dso(d))
        }
        _ => row.symbol.clone(),
    }
}

/// `/usr/lib/x86_64-linux-gnu/libc.so.6` → `libc.so.6`; `[kernel.kallsyms]` → `kernel.kallsyms`.
pub fn short_dso(d: &str) -> &str {
    let d = d.trim_start_matches('[').trim_end_matches(']');
    d.rsplit('/').next().unwrap_or(d)
}
