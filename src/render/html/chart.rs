//! The HTML report's chart: the top regressions and improvements of one
//! comparison as horizontal bars from zero with their Δ intervals as
//! whiskers, coloured by verdict. The scale is robust: one bar far beyond
//! the rest (a ±45 pp `[unknown]`) does not squash every other bar to a
//! sliver. A bar or whisker reaching more than [`CLIP_FACTOR`] times the
//! third-largest reach is clipped at the edge, drawn with a break mark and
//! labelled with its real value, and the page says which bars were clipped.

use super::super::markup::{clip, escape};
use super::super::NumFmt;
use super::{kind, unit};
use crate::diff::{Comparison, Report, Row};
use std::fmt::Write as _;

/// Rows of each sign in the chart.
pub const CHART_ROWS: usize = 15;
/// A bar is clipped when it reaches beyond this many times the
/// third-largest reach of the chart's bars.
pub const CLIP_FACTOR: f64 = 4.0;

/// How far a bar reaches from zero: its Δ or its interval's farther end.
fn reach(r: &Row) -> f64 {
    let mut m = r.delta.abs();
    if let Some((lo, hi)) = r.delta_ci() {
        for v in [lo, hi] {
            if v.is_finite() {
                m = m.max(v.abs());
            }
        }
    }
    m
}

/// The chart's half-width and, per bar, whether it is clipped: bars that
/// reach beyond [`CLIP_FACTOR`] × the third-largest reach (so at most two)
/// do not set the scale.
pub fn scale(rows: &[&Row]) -> (f64, Vec<bool>) {
    let reaches: Vec<f64> = rows.iter().map(|r| reach(r)).collect();
    let mut sorted = reaches.clone();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let limit = match sorted.get(2) {
        Some(&third) if third > 0.0 => CLIP_FACTOR * third,
        _ => f64::INFINITY,
    };
    let clipped: Vec<bool> = reaches.iter().map(|&m| m > limit).collect();
    let m = reaches
        .iter()
        .zip(&clipped)
        .filter(|(_, &c)| !c)
        .map(|(&m, _)| m)
        .fold(0.0, f64::max);
    let m = if m > 0.0 && m.is_finite() { m } else { 1.0 };
    (m, clipped)
}

/// The chart of comparison `c`, and the note about clipped bars under it.
pub fn chart(report: &Report, c: &Comparison, nf: &NumFmt, s: &mut String) {
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
    let all: Vec<&Row> = worse.iter().chain(&better).copied().collect();
    let (m, clipped) = scale(&all);
    let (plot_x, plot_w, width) = (370.0, 440.0, 990.0);
    let groups: Vec<(&str, &[&Row])> = [
        ("regressions", &all[..worse.len()]),
        ("improvements", &all[worse.len()..]),
    ]
    .into_iter()
    .filter(|(_, g)| !g.is_empty())
    .collect();
    let height = 30.0 + groups.len() as f64 * 22.0 + all.len() as f64 * 18.0 + 50.0;
    let x = |v: f64| plot_x + (v.clamp(-m, m) + m) / (2.0 * m) * plot_w;
    let u = if unit(report) == "%" { " pp" } else { "" };
    let level = super::super::level_pct(c.noise.interval_level);
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
    let mut k = 0;
    for (title, rows) in &groups {
        let _ = writeln!(
            s,
            "<text x=\"0\" y=\"{:.1}\" font-size=\"12\" font-weight=\"bold\">{title}</text>",
            y + 14.0
        );
        y += 22.0;
        for r in rows.iter() {
            let bar = Bar {
                x: &x,
                y,
                u,
                level: &level,
                clipped: clipped[k],
            };
            bar.draw(r, nf, s);
            k += 1;
            y += 18.0;
        }
    }
    let _ = writeln!(
        s,
        "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"22\" y2=\"{1:.1}\" stroke=\"#444\"/>",
        x(0.0),
        y
    );
    legend(s, y + 18.0, &level);
    s.push_str("</svg></div>\n");
    clip_note(&all, &clipped, m, nf, u, s);
}

/// One bar of the chart at height `y`.
struct Bar<'a> {
    x: &'a dyn Fn(f64) -> f64,
    y: f64,
    u: &'a str,
    level: &'a str,
    clipped: bool,
}

impl Bar<'_> {
    fn draw(&self, r: &Row, nf: &NumFmt, s: &mut String) {
        let (x, y, u, level) = (self.x, self.y, self.u, self.level);
        let (a, b) = (x(r.delta.min(0.0)), x(r.delta.max(0.0)));
        let ci = super::super::interval(r.delta_ci(), |v| nf.delta(v));
        let label = super::super::symbol_label(r);
        let _ = writeln!(
            s,
            "<g><title>{}\n&#916; {}{u} ({level} interval {}), {}, q {}{}</title>\
             <text x=\"360\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>\
             <rect class=\"{}\" x=\"{a:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"11\"/>",
            escape(&label),
            nf.delta(r.delta),
            escape(&ci),
            kind(r),
            super::super::pvalue(r.q()),
            if self.clipped {
                "\nclipped: beyond the chart's scale"
            } else {
                ""
            },
            y + 12.0,
            escape(&clip(&label, 52)),
            kind(r),
            y + 3.0,
            (b - a).max(0.5),
        );
        if let Some((lo, hi)) = r.delta_ci() {
            whisker(s, x(lo), x(hi), y + 8.5);
        }
        if self.clipped {
            // Two slanted white strokes across the bar's end: a break.
            let e = if r.delta < 0.0 { a + 10.0 } else { b - 14.0 };
            let _ = write!(
                s,
                "<path class=\"brk\" d=\"M{e:.1} {:.1}l4 -13M{:.1} {:.1}l4 -13\"/>",
                y + 15.5,
                e + 4.0,
                y + 15.5
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"818\" y=\"{:.1}\" font-size=\"11\">{}{u}{}{}</text></g>",
            y + 12.0,
            nf.delta(r.delta),
            match kind(r) {
                "worse" | "better" => " *",
                "noise" => " ~",
                _ => "",
            },
            if self.clipped { " (clipped)" } else { "" }
        );
    }
}

/// Under the chart: which bars were clipped, and why.
fn clip_note(rows: &[&Row], clipped: &[bool], m: f64, nf: &NumFmt, u: &str, s: &mut String) {
    let names: Vec<String> = rows
        .iter()
        .zip(clipped)
        .filter(|(_, &c)| c)
        .map(|(r, _)| {
            format!(
                "{} ({}{u})",
                super::super::symbol_label(r),
                nf.delta(r.delta)
            )
        })
        .collect();
    if names.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "<p class=\"note\">Scale &#177;{}{u}: {} bar(s) reaching more than {CLIP_FACTOR}&#215; the \
         third-largest bar are clipped at the edge (drawn with a break, labelled \u{201c}clipped\u{201d}, \
         their value as printed): {}.</p>",
        nf.value(m),
        names.len(),
        escape(&names.join(", "))
    );
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
fn legend(s: &mut String, ly: f64, level: &str) {
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
    use crate::diff::{tests::row, Status};

    #[test]
    fn one_far_bar_does_not_set_the_scale() {
        let rows: Vec<Row> = [45.0, 2.0, 1.5, 1.0, -0.8]
            .iter()
            .enumerate()
            .map(|(i, &d)| row(&format!("s{i}"), d, Status::Changed, None, false))
            .collect();
        let refs: Vec<&Row> = rows.iter().collect();
        let (m, clipped) = scale(&refs);
        assert_eq!(clipped, [true, false, false, false, false]);
        assert!((m - 2.0).abs() < 1e-9, "{m}");
        // A gradual spread clips nothing.
        let rows: Vec<Row> = [10.0, 8.0, 6.0, 5.0]
            .iter()
            .enumerate()
            .map(|(i, &d)| row(&format!("s{i}"), d, Status::Changed, None, false))
            .collect();
        let refs: Vec<&Row> = rows.iter().collect();
        let (m, clipped) = scale(&refs);
        assert!(clipped.iter().all(|c| !c) && (m - 10.0).abs() < 1e-9);
        // Two bars: nothing to compare with, nothing clipped.
        let (_, clipped) = scale(&refs[..2]);
        assert!(clipped.iter().all(|c| !c));
    }
}
