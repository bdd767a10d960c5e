//! `-o classic`: the historical diffprofile table posted to LKML since 2002:
//! `printf("%10d %8.1f%% %s")` of Δ, Δ% against old, symbol; sorted by signed
//! Δ; `total` as a row. New symbols show `new` instead of a percentage; the
//! significance mark (`*` or `~`) is appended when a row was tested.

use super::RenderOptions;
use crate::diff::{Report, Row, Status};
use std::io::{self, Write};

pub fn render(report: &Report, _opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let nf = super::NumFmt::for_report(report);
    for c in &report.comparisons {
        if report.comparisons.len() > 1 {
            writeln!(
                out,
                "# {} vs {}",
                super::printable(&report.sides[c.side].name),
                super::printable(&report.sides[0].name)
            )?;
        }
        for r in &c.rows {
            writeln!(
                out,
                "{}",
                line(&nf.value(r.delta), &pct(r), &super::printable(&r.symbol), r)
            )?;
        }
        let e = &c.elided;
        let hidden = e.worse + e.better + e.unchanged + e.small;
        if hidden > 0 {
            writeln!(out, "{:>10} {:>9} ({} rows not shown)", "...", "", hidden)?;
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
    match (r.status, r.delta_pct) {
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
