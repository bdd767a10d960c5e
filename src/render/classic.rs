//! `-o classic`: the historical diffprofile table posted to LKML since 2002:
//! `printf("%10d %8.1f%% %s")` of Δ, Δ% against old, symbol; sorted by signed
//! Δ; `total` as a row. New symbols show `new` instead of a percentage; the
//! significance mark (`*` or `~`) is appended when a row was tested.
//! Lines fit [`super::MAX_WIDTH`] columns: a longer name is cut in the
//! middle with `...` (`--wide` prints it whole). Under `-n robust` there is
//! no total row (a sum over all symbols has no fixed meaning there).
//!
//! One line before the table states the unit, so a pasted table says what
//! its numbers are, and the header's notes follow (filters, groupings): in ticks (the classic unit, mean ticks per run) a
//! second line warns when a side's runs are on average more than
//! [`TOTALS_APART`] longer or shorter than OLD's, since then Δ in ticks
//! mostly measures run length (`-n share` compares shares).

use super::{RenderOptions, MAX_WIDTH};
use crate::aggregate::Normalize;
use crate::diff::{Report, Row, Status};
use std::io::{self, Write};

/// How far apart (as a fraction of OLD's) the mean run totals of two
/// sides may be before a ticks table warns.
pub const TOTALS_APART: f64 = 0.20;

pub fn render(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let nf = super::NumFmt::for_report(report);
    writeln!(out, "unit: {}; delta% against old", unit(report.normalize))?;
    // The filters, groupings and aliases: what the numbers are of.
    for n in &report.notes {
        super::text::write_wrapped(out, &super::printable(n))?;
    }
    if report.normalize == Normalize::Ticks {
        for line in totals_warnings(report, opts) {
            writeln!(out, "{line}")?;
        }
    }
    for c in &report.comparisons {
        if report.comparisons.len() > 1 {
            writeln!(
                out,
                "# {} vs {}",
                report.sides[c.side].name, report.sides[0].name
            )?;
        }
        for r in &c.rows {
            let (delta, pct) = (unsigned_zero(nf.value(r.delta)), pct(r));
            let mut symbol = super::printable(&super::symbol_label(r));
            if !opts.wide {
                // `{delta:>10} {pct:>9} {symbol} *`
                let fixed = delta.len().max(10) + 1 + pct.len().max(9) + 1 + 2;
                let max = MAX_WIDTH.saturating_sub(fixed);
                symbol = super::truncate_middle(&symbol, max, super::text::ELLIPSIS);
            }
            writeln!(out, "{}", line(&delta, &pct, &symbol, r))?;
        }
        let e = &c.elided;
        let hidden = e.worse + e.better + e.unchanged + e.small;
        if hidden > 0 {
            let rows = crate::text::plural(hidden as u64, "row");
            writeln!(out, "{:>10} {:>9} ({rows} not shown)", "...", "")?;
        }
        if report.normalize == Normalize::Robust {
            writeln!(out, "{}", super::text::NO_ROBUST_TOTAL)?;
            continue;
        }
        let total_pct = if c.total.old > 0.0 {
            format!(
                "{:>8}%",
                unsigned_zero(format!("{:.1}", c.total.delta / c.total.old * 100.0))
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "{:>10} {:>9} total",
            unsigned_zero(nf.value(c.total.delta)),
            total_pct
        )?;
    }
    Ok(())
}

/// The unit in a few words (the line must fit 80 columns).
fn unit(n: Normalize) -> &'static str {
    match n {
        Normalize::Share => "% of each run's samples (delta in points)",
        Normalize::Ticks => "mean ticks (samples) per run",
        Normalize::Rate => "ticks per second of each run",
        Normalize::Work => "ticks per operation of each run",
        Normalize::Robust => "ticks scaled by median-of-ratios size factors",
    }
}

/// One line per side whose mean run total is more than [`TOTALS_APART`]
/// off OLD's (ticks only): `warning: NEW runs hold 48% fewer samples than
/// OLD's; -n share compares shares`.
pub fn totals_warnings(report: &Report, opts: &RenderOptions) -> Vec<String> {
    let mean = |i: usize| {
        let runs = &report.sides[i].runs;
        (!runs.is_empty()).then(|| runs.iter().map(|r| r.total).sum::<f64>() / runs.len() as f64)
    };
    let Some(old) = mean(0).filter(|&m| m > 0.0) else {
        return Vec::new();
    };
    (1..report.sides.len())
        .filter_map(|i| {
            let off = mean(i)? / old - 1.0;
            (off.abs() > TOTALS_APART).then(|| {
                format!(
                    "warning: {} runs hold {:.0}% {} samples than {}'s; -n share compares shares",
                    super::side_title(report, i, opts),
                    off.abs() * 100.0,
                    if off < 0.0 { "fewer" } else { "more" },
                    super::side_title(report, 0, opts),
                )
            })
        })
        .collect()
}

fn pct(r: &Row) -> String {
    match (r.status, r.delta_pct()) {
        (Status::New, _) | (_, None) => "new".to_string(),
        (_, Some(p)) => format!("{:>8}%", unsigned_zero(format!("{p:.1}"))),
    }
}

/// `-0.000` → `0.000`: a value that rounds to zero has no sign.
fn unsigned_zero(s: String) -> String {
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => s,
    }
}

fn line(delta: &str, pct: &str, symbol: &str, r: &Row) -> String {
    let mark = if r.tested() {
        format!(" {}", r.mark())
    } else {
        String::new()
    };
    format!("{delta:>10} {pct:>9} {symbol}{mark}")
}
