//! `-o html`: one self-contained page (inline CSS, inline SVG, a little
//! inline JS; no fetches, no fonts, no external scripts) with the header
//! facts, per compared side a chart of the top regressions and improvements
//! (Δ with confidence-interval whiskers; significant, noise and untested
//! drawn apart: a bar is coloured exactly when its interval, at the
//! comparison's FCR-adjusted level, excludes 0, and the legend says so),
//! the differential flame graph when the inputs have callchains (frames
//! coloured by their own significance), the table as a plain `<table>`
//! that the script makes sortable and filterable (bounded: the rows of
//! largest |Δ| and the significant ones, the rest counted and pointed to
//! `-o json`/`-o csv`), and the warnings. The chart's scale is robust to
//! one far bar (clipped, and said so). The title names the sides as given.
//! Every input-controlled string goes through [`escape`]. No timestamps:
//! the bytes depend on the report only.

mod chart;
mod rows;

pub use super::markup::{clip, escape};
pub use chart::{CHART_ROWS, CLIP_FACTOR};
pub use rows::{TABLE_CAP, TABLE_ROWS};

use super::{flamegraph, NumFmt, RenderOptions};
use crate::aggregate::{fmt_count, Normalize};
use crate::diff::{Comparison, Report, Row};
use crate::flame::Flames;
use std::fmt::Write as _;
use std::io::{self, Write};

pub fn render(
    report: &Report,
    flames: Option<&Flames>,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let body = body(report, flames, "r", opts);
    out.write_all(page(&title(report, opts), &body).as_bytes())
}

/// `diffprofile: A (3 runs) vs B (3 runs)`: each side as the user gave
/// it (its paths, compacted; `batch`: the kernel's name) and its runs.
pub fn title(report: &Report, opts: &RenderOptions) -> String {
    let names: Vec<String> = (0..report.sides.len())
        .map(|i| {
            let runs = report.sides[i].runs.len();
            let s = if runs == 1 { "" } else { "s" };
            format!("{} ({runs} run{s})", side_label(report, i, opts))
        })
        .collect();
    format!("diffprofile: {}", names.join(" vs "))
}

/// Side `i` as the user gave it: `batch`'s kernel names as they are, else
/// the side's paths (as the text header shows them), else its name.
fn side_label(report: &Report, i: usize, opts: &RenderOptions) -> String {
    let side = &report.sides[i];
    if opts.names_as_given || side.label.is_empty() {
        super::side_title(report, i, opts)
    } else {
        super::printable(&side.label)
    }
}

/// The page's style and its script (sorting, filtering), as files beside
/// this one.
const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// A whole document around `body` (already escaped HTML).
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n{body}<script>\n{JS}</script>\n</body>\n</html>\n",
        escape(title)
    )
}

/// The report's content (header, one section per compared side, with its
/// flame graph when `flames` are given, warnings); `id` prefixes element
/// ids so several reports fit one page.
pub fn body(report: &Report, flames: Option<&Flames>, id: &str, opts: &RenderOptions) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "<h1>{}</h1>", escape(&title(report, opts)));
    header(report, opts, &mut s);
    let nf = NumFmt::for_report(report);
    for c in &report.comparisons {
        section(report, flames, c, &nf, id, opts, &mut s);
    }
    if !report.warnings.is_empty() {
        let _ = writeln!(s, "<section id=\"{id}-warnings\">\n<h2>Warnings</h2>\n<ul>");
        for w in &report.warnings {
            let _ = writeln!(s, "<li class=\"warn\">{}</li>", escape(w));
        }
        s.push_str("</ul>\n</section>\n");
    }
    s
}

fn header(report: &Report, opts: &RenderOptions, s: &mut String) {
    s.push_str("<table class=\"facts\">\n");
    for (i, side) in report.sides.iter().enumerate() {
        let runs: Vec<String> = side
            .runs
            .iter()
            .map(|r| {
                format!(
                    "<li><code>{}</code> ({}): {} samples{}{}</li>",
                    escape(&r.source),
                    r.format,
                    fmt_count(r.total),
                    r.kept
                        .map(|k| format!(", {} kept by the filters", fmt_count(k)))
                        .unwrap_or_default(),
                    r.approximate
                        .as_deref()
                        .map(|a| format!(" (approximate: {})", escape(a)))
                        .unwrap_or_default()
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "<tr><th>{}</th><td>{} run{}<ul>{}</ul></td></tr>",
            escape(&super::side_title(report, i, opts)),
            side.runs.len(),
            if side.runs.len() == 1 { "" } else { "s" },
            runs.join("")
        );
    }
    let _ = writeln!(
        s,
        "<tr><th>unit</th><td>{}</td></tr>",
        super::unit_sentence(report.normalize)
    );
    let _ = writeln!(
        s,
        "<tr><th>event</th><td>{}</td></tr>",
        escape(
            report
                .event
                .as_deref()
                .unwrap_or("not stated by the inputs")
        )
    );
    let _ = writeln!(
        s,
        "<tr><th>significance</th><td>q &le; {} ({} adjusted)</td></tr>",
        super::fmt_alpha(report.alpha),
        super::adjust_name(report.adjust)
    );
    if !report.notes.is_empty() {
        let notes: Vec<String> = report
            .notes
            .iter()
            .map(|n| format!("<li>{}</li>", escape(n)))
            .collect();
        let _ = writeln!(
            s,
            "<tr><th>notes</th><td><ul>{}</ul></td></tr>",
            notes.join("")
        );
    }
    s.push_str("</table>\n");
}

/// `worse`, `better` (significant), `noise` (tested, not significant) or `untested`.
pub fn kind(r: &Row) -> &'static str {
    match (r.tested(), r.significant()) {
        (true, true) if r.delta > 0.0 => "worse",
        (true, true) if r.delta < 0.0 => "better",
        (true, _) => "noise",
        (false, _) => "untested",
    }
}

fn section(
    report: &Report,
    flames: Option<&Flames>,
    c: &Comparison,
    nf: &NumFmt,
    id: &str,
    opts: &RenderOptions,
    s: &mut String,
) {
    let side = escape(&report.sides[c.side].name);
    let _ = writeln!(
        s,
        "<section id=\"{id}-{side}\">\n<h2>{} vs {}</h2>",
        escape(&super::side_title(report, c.side, opts)),
        escape(&super::side_title(report, 0, opts))
    );
    let _ = writeln!(
        s,
        "<p>{}<br>noise: {}</p>",
        escape(&super::summary_sentence(report, c)),
        escape(&super::noise_sentence(c))
    );
    let _ = writeln!(s, "<h3>Top regressions and improvements</h3>");
    chart::chart(report, c, nf, s);
    if let Some(flames) = flames {
        let _ = writeln!(s, "<h3>Differential flame graph</h3>");
        match flames.graphs.iter().find(|g| g.side == c.side) {
            Some(g) => {
                s.push_str("<div class=\"scroll\">\n");
                s.push_str(&flamegraph::svg(
                    g,
                    report,
                    &format!("{id}-{side}-fg"),
                    false,
                    opts,
                ));
                s.push_str("</div>\n");
            }
            None => {
                let why = flames
                    .missing_reason()
                    .unwrap_or_else(|| "no callchains".to_string());
                let _ = writeln!(s, "<p class=\"note\">No flame graph: {}.</p>", escape(&why));
            }
        }
    }
    let _ = writeln!(s, "<h3>All rows</h3>");
    rows::table(report, c, nf, s);
    let (worse, better, other) = super::elided_lines(c, nf);
    for l in [worse, better, other].into_iter().flatten() {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", escape(&l));
    }
    if !c.renames.is_empty() {
        s.push_str(
            "<p class=\"note\">possible renames (one name gone, a similar one new):</p>\n<ul>\n",
        );
        for r in &c.renames {
            let _ = writeln!(
                s,
                "<li><code>{}</code> ({}) &rarr; <code>{}</code> ({})</li>",
                escape(&r.old_symbol),
                nf.delta(r.old_delta),
                escape(&r.new_symbol),
                nf.delta(r.new_delta)
            );
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</section>\n");
}

/// The value unit suffix: `%` for shares, nothing otherwise.
fn unit(report: &Report) -> &'static str {
    if report.normalize == Normalize::Share {
        "%"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<script>alert(1)</script> & \"'"),
            "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;&#39;"
        );
        assert_eq!(escape("a\u{1}b"), "a\u{fffd}b");
    }

    #[test]
    fn clips_long_names() {
        assert_eq!(clip("abcdef", 4), "abc\u{2026}");
        assert_eq!(clip("abc", 4), "abc");
    }
}
