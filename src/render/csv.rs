//! `-o csv`: a header line, then one line per shown row with the JSON row
//! fields (intervals as two columns, per-run counts joined with `;`, empty
//! cells for null). With several compared sides, the `side` column tells
//! which comparison a line belongs to.

use super::RenderOptions;
use crate::diff::{Cv, Report};
use std::io::{self, Write};

const HEADER: [&str; 24] = [
    "side",
    "symbol",
    "dso",
    "mode",
    "status",
    "old",
    "new",
    "delta",
    "delta_pct",
    "delta_ci_lo",
    "delta_ci_hi",
    "ratio",
    "ratio_ci_lo",
    "ratio_ci_hi",
    "p",
    "q",
    "significant",
    "old_cv",
    "new_cv",
    "cv_kind",
    "old_counts",
    "new_counts",
    "dispersion",
    "df",
];

fn num(x: f64) -> String {
    if x.is_finite() {
        let s = format!("{x}");
        s
    } else {
        String::new()
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(num).unwrap_or_default()
}

fn counts(c: &[f64]) -> String {
    c.iter().map(|&v| num(v)).collect::<Vec<_>>().join(";")
}

fn cv(c: Option<Cv>) -> String {
    match c {
        Some(Cv::Runs(v)) | Some(Cv::Sampling(v)) => num(v),
        None => String::new(),
    }
}

/// A csv error as an I/O error, keeping the kind (a closed pipe stays `BrokenPipe`).
pub(super) fn csv_io(e: csv::Error) -> io::Error {
    if !matches!(e.kind(), csv::ErrorKind::Io(_)) {
        return io::Error::other(e.to_string());
    }
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        _ => io::Error::other("CSV output failed"),
    }
}

pub fn render(report: &Report, _opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(HEADER).map_err(csv_io)?;
    write_rows(&mut w, report, None).map_err(csv_io)?;
    w.flush()
}

/// The columns of [`render`]'s header, in order.
pub fn header() -> &'static [&'static str] {
    &HEADER
}

/// Every shown row of `report` as a record of [`header`]'s columns, after
/// `first` when given (`batch` puts the benchmark there).
pub fn write_rows<W: Write>(
    w: &mut csv::Writer<W>,
    report: &Report,
    first: Option<&str>,
) -> csv::Result<()> {
    for c in &report.comparisons {
        let side = &report.sides[c.side].name;
        for r in &c.rows {
            let (dlo, dhi) = r
                .delta_ci()
                .map_or((None, None), |(a, b)| (Some(a), Some(b)));
            let (rlo, rhi) = r
                .ratio_ci()
                .map_or((None, None), |(a, b)| (Some(a), Some(b)));
            let kind = match r.old_cv().or(r.new_cv()) {
                Some(Cv::Sampling(_)) => "sampling",
                _ => "runs",
            };
            let record = [
                side.as_str(),
                &r.symbol,
                r.dso.as_deref().unwrap_or(""),
                r.mode.map_or("", |m| m.as_str()),
                r.status.name(),
                &num(r.old),
                &num(r.new),
                &num(r.delta),
                &opt(r.delta_pct()),
                &opt(dlo),
                &opt(dhi),
                &num(r.ratio()),
                &opt(rlo),
                &opt(rhi),
                &opt(r.p()),
                &opt(r.q()),
                if r.significant() { "true" } else { "false" },
                &cv(r.old_cv()),
                &cv(r.new_cv()),
                kind,
                &counts(r.old_counts()),
                &counts(r.new_counts()),
                &opt(r.dispersion()),
                &opt(r.df()),
            ];
            w.write_record(first.into_iter().chain(record))?;
        }
    }
    Ok(())
}
