//! `-o html`: one self-contained page (inline CSS, inline SVG, a little
//! inline JS; no fetches, no fonts, no external scripts) with the header
//! facts, per compared side a chart of the top regressions and improvements
//! (Δ with confidence-interval whiskers; significant, noise and untested
//! drawn apart: a bar is coloured exactly when its interval, at the
//! comparison's FCR-adjusted level, excludes 0, and the legend says so),
//! the differential flame graph when the inputs have
//! callchains, the full table as a plain `<table>` that the script makes
//! sortable and filterable, and the warnings. Every input-controlled string goes
//! through [`escape`]. No timestamps: the bytes depend on the report only.

pub use super::markup::{clip, escape};
use super::{flamegraph, NumFmt, RenderOptions};
use crate::aggregate::{fmt_count, Normalize};
use crate::diff::{Comparison, Report, Row};
use crate::flame::Flames;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Rows of each sign in the chart.
pub const CHART_ROWS: usize = 15;

pub fn render(
    report: &Report,
    flames: Option<&Flames>,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let body = body(report, flames, "r", opts);
    out.write_all(page(&title(report, opts), &body).as_bytes())
}

/// `diffprofile: OLD vs NEW` (batch: the kernels as named).
pub fn title(report: &Report, opts: &RenderOptions) -> String {
    let names: Vec<String> = (0..report.sides.len())
        .map(|i| super::side_title(report, i, opts))
        .collect();
    format!("diffprofile: {}", names.join(" vs "))
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
                    "<li><code>{}</code> ({}): {} samples{}</li>",
                    escape(&r.source),
                    r.format,
                    fmt_count(r.total),
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
        report.alpha,
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
    chart(report, c, nf, s);
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
    table(report, c, nf, s);
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

fn table(report: &Report, c: &Comparison, nf: &NumFmt, s: &mut String) {
    let u = unit(report);
    let du = if u == "%" { " (pp)" } else { "" };
    let old = escape(&report.sides[0].name);
    let new = escape(&report.sides[c.side].name);
    let level = super::level_pct(c.noise.interval_level);
    let _ = writeln!(
        s,
        "<table class=\"rows\">\n<thead><tr><th>symbol</th><th>status</th>\
         <th data-num=\"1\">{old}{u}</th><th data-num=\"1\">{new}{u}</th>\
         <th data-num=\"1\">&Delta;{du}</th><th data-num=\"1\">&Delta;%</th>\
         <th data-num=\"1\">&Delta; {level} interval</th><th data-num=\"1\">ratio</th>\
         <th data-num=\"1\">p</th><th data-num=\"1\">q</th><th>sig</th></tr></thead>\n<tbody>"
    );
    for (i, r) in c.rows.iter().enumerate() {
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
            escape(&super::symbol_label(r)),
            r.status.name(),
            data_v(r.old),
            nf.value(r.old),
            data_v(r.new),
            nf.value(r.new),
            data_v(r.delta),
            nf.delta(r.delta),
            r.delta_pct().map(data_v).unwrap_or_default(),
            escape(&super::delta_pct(r)),
            r.delta_ci().map(|c| data_v(c.0)).unwrap_or_default(),
            escape(&super::interval(r.delta_ci(), |v| nf.delta(v))),
            data_v(r.ratio()),
            super::ratio(r.ratio()),
            r.p().map(data_v).unwrap_or_default(),
            super::pvalue(r.p()),
            r.q().map(data_v).unwrap_or_default(),
            super::pvalue(r.q()),
        );
    }
    if report.normalize == Normalize::Robust {
        let _ = writeln!(
            s,
            "</tbody>\n</table>\n<p class=\"note\">{}</p>",
            super::text::NO_ROBUST_TOTAL
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

/// The top regressions and improvements as horizontal bars from zero with
/// confidence-interval whiskers.
fn chart(report: &Report, c: &Comparison, nf: &NumFmt, s: &mut String) {
    let mut worse: Vec<&Row> = c.rows.iter().filter(|r| r.delta > 0.0).collect();
    worse.sort_by(|a, b| b.delta.total_cmp(&a.delta).then(a.symbol.cmp(&b.symbol)));
    worse.truncate(CHART_ROWS);
    let mut better: Vec<&Row> = c.rows.iter().filter(|r| r.delta < 0.0).collect();
    better.sort_by(|a, b| a.delta.total_cmp(&b.delta).then(a.symbol.cmp(&b.symbol)));
    better.truncate(CHART_ROWS);
    if worse.is_empty() && better.is_empty() {
        s.push_str("<p class=\"note\">No row changed.</p>\n");
        return;
    }
    let m = chart_extent(worse.iter().chain(&better));
    let (label_w, plot_x, plot_w, width) = (360.0, 370.0, 440.0, 940.0);
    let row_h = 18.0;
    let groups: Vec<(&str, &Vec<&Row>)> = [("regressions", &worse), ("improvements", &better)]
        .into_iter()
        .filter(|(_, g)| !g.is_empty())
        .collect();
    let n_rows: usize = groups.iter().map(|(_, g)| g.len()).sum();
    let height = 30.0 + groups.len() as f64 * 22.0 + n_rows as f64 * row_h + 34.0;
    let x = |v: f64| plot_x + (v.clamp(-m, m) + m) / (2.0 * m) * plot_w;
    let u = if unit(report) == "%" { " pp" } else { "" };
    let level = super::level_pct(c.noise.interval_level);
    let height = height + 16.0;
    let _ = writeln!(
        s,
        "<div class=\"scroll\"><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\" \
         aria-label=\"top regressions and improvements\">"
    );
    let _ = writeln!(
        s,
        "<text x=\"{plot_x}\" y=\"16\" font-size=\"11\">&#8722;{}{u}</text>\
         <text x=\"{}\" y=\"16\" font-size=\"11\" text-anchor=\"middle\">0</text>\
         <text x=\"{}\" y=\"16\" font-size=\"11\" text-anchor=\"end\">+{}{u}</text>",
        nf.value(m),
        x(0.0),
        plot_x + plot_w,
        nf.value(m)
    );
    let mut y = 30.0;
    for (title, rows) in &groups {
        let _ = writeln!(
            s,
            "<text x=\"0\" y=\"{:.1}\" font-size=\"12\" font-weight=\"bold\">{title}</text>",
            y + 14.0
        );
        y += 22.0;
        for r in rows.iter() {
            let (a, b) = (x(r.delta.min(0.0)), x(r.delta.max(0.0)));
            let ci = super::interval(r.delta_ci(), |v| nf.delta(v));
            let _ = writeln!(
                s,
                "<g><title>{}\n&#916; {}{u} ({level} interval {}), {}, q {}</title>\
                 <text x=\"{label_w}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>\
                 <rect class=\"{}\" x=\"{a:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"11\"/>",
                escape(&super::symbol_label(r)),
                nf.delta(r.delta),
                escape(&ci),
                kind(r),
                super::pvalue(r.q()),
                y + 12.0,
                escape(&clip(&super::symbol_label(r), 52)),
                kind(r),
                y + 3.0,
                (b - a).max(0.5),
            );
            if let Some((lo, hi)) = r.delta_ci() {
                whisker(s, x(lo), x(hi), y + 8.5);
            }
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}{u}{}</text></g>",
                plot_x + plot_w + 8.0,
                y + 12.0,
                nf.delta(r.delta),
                match kind(r) {
                    "worse" | "better" => " *",
                    "noise" => " ~",
                    _ => "",
                }
            );
            y += row_h;
        }
    }
    let _ = writeln!(
        s,
        "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"22\" y2=\"{1:.1}\" stroke=\"#444\"/>",
        x(0.0),
        y
    );
    chart_legend(s, y + 18.0, &level);
    s.push_str("</svg></div>\n");
}

/// The half-width of the chart's scale: the largest change or interval end
/// shown (1 when there is none).
fn chart_extent<'r>(rows: impl Iterator<Item = &'r &'r Row>) -> f64 {
    let mut m: f64 = 0.0;
    for r in rows {
        m = m.max(r.delta.abs());
        if let Some((lo, hi)) = r.delta_ci() {
            for v in [lo, hi] {
                if v.is_finite() {
                    m = m.max(v.abs());
                }
            }
        }
    }
    if m <= 0.0 || !m.is_finite() {
        m = 1.0;
    }
    m
}

/// An interval's whisker from `l` to `h`, centred on `my`.
fn whisker(s: &mut String, l: f64, h: f64, my: f64) {
    let _ = writeln!(
        s,
        "<path class=\"ci\" d=\"M{l:.1} {my:.1}H{h:.1}M{l:.1} {:.1}V{:.1}M{h:.1} {:.1}V{:.1}\"/>",
        my - 4.0,
        my + 4.0,
        my - 4.0,
        my + 4.0
    );
}

/// The chart's legend at `ly`.
fn chart_legend(s: &mut String, ly: f64, level: &str) {
    let _ = writeln!(
        s,
        "<g font-size=\"11\"><rect class=\"worse\" x=\"0\" y=\"{0:.1}\" width=\"12\" height=\"10\"/>\
         <text x=\"16\" y=\"{1:.1}\">significant regression *</text>\
         <rect class=\"better\" x=\"185\" y=\"{0:.1}\" width=\"12\" height=\"10\"/>\
         <text x=\"201\" y=\"{1:.1}\">significant improvement *</text>\
         <rect class=\"noise\" x=\"385\" y=\"{0:.1}\" width=\"12\" height=\"10\"/>\
         <text x=\"401\" y=\"{1:.1}\">within noise ~</text>\
         <rect class=\"untested\" x=\"510\" y=\"{0:.1}\" width=\"12\" height=\"10\"/>\
         <text x=\"526\" y=\"{1:.1}\">untested (too few samples)</text>\
         <path class=\"ci\" d=\"M0 {2:.1}H30M0 {3:.1}V{4:.1}M30 {3:.1}V{4:.1}\"/>\
         <text x=\"36\" y=\"{5:.1}\">{level} interval of &#916; (FCR-adjusted): \
         a bar is coloured exactly when its interval excludes 0</text></g>",
        ly,
        ly + 9.0,
        ly + 21.0,
        ly + 17.0,
        ly + 25.0,
        ly + 25.0
    );
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
