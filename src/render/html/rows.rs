//! The HTML report's table of rows, bounded: a page keeps the
//! [`TABLE_ROWS`] rows of largest |Δ| and every significant row besides,
//! up to [`TABLE_CAP`] rows in all, in the report's rank order, and says
//! how many rows it leaves out and that `-o json` / `-o csv` have them all.
//! (450,000 rows made a page of 182 MB that a browser cannot open.)

use super::super::markup::escape;
use super::super::NumFmt;
use super::{kind, unit};
use crate::aggregate::Normalize;
use crate::diff::{Comparison, Report};
use std::fmt::Write as _;

/// Rows of largest |Δ| a page always keeps.
pub const TABLE_ROWS: usize = 2_000;
/// At most this many rows in a page's table (significant rows beyond the
/// largest-|Δ| ones fill it up to here).
pub const TABLE_CAP: usize = 10_000;

/// Indices (in rank order) of the rows of `c` that the page shows.
pub fn kept(c: &Comparison) -> Vec<usize> {
    let n = c.rows.len();
    if n <= TABLE_ROWS {
        return (0..n).collect();
    }
    let mut by_size: Vec<usize> = (0..n).collect();
    let size = |i: usize| c.rows[i].delta.abs();
    by_size.sort_by(|&a, &b| size(b).total_cmp(&size(a)).then(a.cmp(&b)));
    let mut keep = vec![false; n];
    let mut count = 0;
    for &i in &by_size[..TABLE_ROWS] {
        keep[i] = true;
        count += 1;
    }
    for &i in &by_size[TABLE_ROWS..] {
        if count == TABLE_CAP {
            break;
        }
        if c.rows[i].significant() {
            keep[i] = true;
            count += 1;
        }
    }
    (0..n).filter(|&i| keep[i]).collect()
}

/// The sentence above a table that leaves rows out (None when it has
/// them all); `kept` as [`kept`] gives it.
pub fn left_out(c: &Comparison, kept: &[usize]) -> Option<String> {
    let n = c.rows.len();
    if kept.len() == n {
        return None;
    }
    let sig_all = c.rows.iter().filter(|r| r.significant()).count();
    let sig_kept = kept.iter().filter(|&&i| c.rows[i].significant()).count();
    let sig = match sig_all - sig_kept {
        0 => String::new(),
        k => format!(", {k} of them significant"),
    };
    Some(format!(
        "{} of {n} rows shown: the {TABLE_ROWS} largest |\u{394}| and every significant row, \
         at most {TABLE_CAP} rows in all; {} rows left out of this page{sig}. \
         For every row use -o json or -o csv (same options).",
        kept.len(),
        n - kept.len()
    ))
}

/// A number for `data-v`: Rust's shortest round-trip form; JS reads it.
fn data_v(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        format!("{v}")
    }
}

pub fn table(report: &Report, c: &Comparison, nf: &NumFmt, s: &mut String) {
    let u = unit(report);
    let du = if u == "%" { " (pp)" } else { "" };
    let old = escape(&report.sides[0].name);
    let new = escape(&report.sides[c.side].name);
    let level = super::super::level_pct(c.noise.interval_level);
    let kept = kept(c);
    if let Some(note) = left_out(c, &kept) {
        let _ = writeln!(s, "<p class=\"note left-out\">{}</p>", escape(&note));
    }
    let _ = writeln!(
        s,
        "<table class=\"rows\">\n<thead><tr><th>symbol</th><th>status</th>\
         <th data-num=\"1\">{old}{u}</th><th data-num=\"1\">{new}{u}</th>\
         <th data-num=\"1\">&Delta;{du}</th><th data-num=\"1\">&Delta;%</th>\
         <th data-num=\"1\">&Delta; {level} interval</th><th data-num=\"1\">ratio</th>\
         <th data-num=\"1\">p</th><th data-num=\"1\">q</th><th>sig</th></tr></thead>\n<tbody>"
    );
    for &i in &kept {
        let r = &c.rows[i];
        let sig = match r.mark() {
            "*" => "*",
            "~" => "~",
            _ => "",
        };
        let _ = writeln!(
            s,
            "<tr class=\"{}\" data-i=\"{i}\"><td>{}</td><td>{}</td>\
             <td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>\
             <td class=\"d\" data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>\
             <td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>\
             <td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td><td>{sig}</td></tr>",
            kind(r),
            escape(&super::super::symbol_label(r)),
            r.status.name(),
            data_v(r.old),
            nf.value(r.old),
            data_v(r.new),
            nf.value(r.new),
            data_v(r.delta),
            nf.delta(r.delta),
            r.delta_pct().map(data_v).unwrap_or_default(),
            escape(&super::super::delta_pct(r)),
            r.delta_ci().map(|c| data_v(c.0)).unwrap_or_default(),
            escape(&super::super::interval(r.delta_ci(), |v| nf.delta(v))),
            data_v(r.ratio()),
            super::super::ratio(r.ratio()),
            r.p().map(data_v).unwrap_or_default(),
            super::super::pvalue(r.p()),
            r.q().map(data_v).unwrap_or_default(),
            super::super::pvalue(r.q()),
        );
    }
    if report.normalize == Normalize::Robust {
        let _ = writeln!(
            s,
            "</tbody>\n</table>\n<p class=\"note\">{}</p>",
            super::super::text::NO_ROBUST_TOTAL
        );
        return;
    }
    let _ = writeln!(
        s,
        "</tbody>\n<tfoot><tr><td>total</td><td></td><td>{}</td><td>{}</td><td>{}</td>\
         <td></td><td></td><td></td><td></td><td></td><td></td></tr></tfoot>\n</table>",
        nf.value(c.total.old),
        nf.value(c.total.new),
        nf.delta(c.total.delta)
    );
}
