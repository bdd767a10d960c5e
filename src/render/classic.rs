//! `-o classic`: the historical diffprofile table posted to LKML since 2002:
//! `printf("%10d %8.1f%% %s")` of Δ, Δ% against old, symbol; sorted by signed
//! Δ; `total` as a row. New symbols show `new` instead of a percentage; the
//! significance mark (`*` or `~`) is appended when a row was tested.
//! Lines fit [`super::MAX_WIDTH`] columns: a longer name is cut in the
//! middle with `...` (`--wide` prints it whole). Under `-n robust` there is
//! no total row (a sum over all symbols has no fixed meaning there).

use super::{RenderOptions, MAX_WIDTH};
use crate::aggregate::Normalize;
use crate::diff::{Report, Row, Status};
use std::io::{self, Write};

pub fn render(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let nf = super::NumFmt::for_report(report);
    for c in &report.comparisons {
        if report.comparisons.len() > 1 {
            writeln!(
                out,
                "# {} vs {}",
                report.sides[c.side].name, report.sides[0].name
            )?;
        }
        for r in &c.rows {
            let (delta, pct) = (nf.value(r.delta), pct(r));
            let mut symbol = super::printable(&r.symbol);
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
            writeln!(out, "{:>10} {:>9} ({} rows not shown)", "...", "", hidden)?;
        }
        if report.normalize == Normalize::Robust {
            writeln!(out, "{}", super::text::NO_ROBUST_TOTAL)?;
            continue;
        }
        let total_pct = if c.total.old > 0.0 {
            format!("{:8.1}%", c.total.delta / c.total.old * 100.0)
        } else {
            String::new()
        };
        writeln!(
            out,
            "{:>10} {:>9} total",
            nf.value(c.total.delta),
            total_pct
        )?;
    }
    Ok(())
}

fn pct(r: &Row) -> String {
    match (r.status, r.delta_pct()) {
        (Status::New, _) | (_, None) => "new".to_string(),
        (_, Some(p)) => format!("{p:8.1}%"),
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
