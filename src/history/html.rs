//! A history as one self-contained HTML page: per benchmark its ranked
//! steps, each with a small inline SVG line chart (every run a point,
//! segment means as lines, the step marked by a dashed line), no scripts
//! and nothing fetched. Elements carry `data-` attributes so that a
//! headless browser can check what is drawn against the numbers.

use super::fmt::{label, signed, value};
use super::{BenchOut, Frame, StepOut};
use crate::render::pvalue;

/// Steps drawn per benchmark at most (the rest are counted).
pub const CHARTS_MAX: usize = 200;
const W: f64 = 360.0;
const H: f64 = 120.0;
const PAD: f64 = 24.0;

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if c.is_control() => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

/// The page: title, order, the sections, the warnings.
pub fn page(f: &Frame, sections: &[String], warnings: &[String]) -> String {
    let mut o = String::new();
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    o.push_str(&format!(
        "<title>history of {}</title>\n<style>{CSS}</style></head><body>\n",
        esc(f.root)
    ));
    o.push_str(&format!(
        "<h1>History of {}</h1>\n<p class=\"order\">order ({}): {}</p>\n",
        esc(f.root),
        f.order.name(),
        esc(&f.kernels.join(" "))
    ));
    for s in sections {
        o.push_str(s);
    }
    if !warnings.is_empty() {
        o.push_str("<h2>Warnings</h2><ul class=\"warnings\">\n");
        for w in warnings {
            o.push_str(&format!("<li>{}</li>\n", esc(w)));
        }
        o.push_str("</ul>\n");
    }
    o.push_str("</body></html>\n");
    o
}

const CSS: &str = "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;vertical-align:top}\
tr.step{border-top:1px solid #ddd}.sig{color:#b00;font-weight:bold}.num{text-align:right}\
svg .run{fill:#36c;fill-opacity:.7}svg .seg{stroke:#b00;stroke-width:2}\
svg .mark{stroke:#888;stroke-dasharray:4 3}svg .axis{stroke:#bbb}svg text{font-size:10px;fill:#555}";

/// One benchmark's section.
pub fn section(b: &BenchOut, f: &Frame, top: Option<usize>) -> String {
    let mut o = format!(
        "<section class=\"bench\" data-name=\"{}\" data-kernels=\"{}\"><h2>benchmark {}</h2>\n",
        esc(&b.name),
        b.kernels.len(),
        esc(&b.name)
    );
    if let Some(why) = &b.skipped {
        o.push_str(&format!("<p>skipped: {}</p></section>\n", esc(why)));
        return o;
    }
    o.push_str(&format!(
        "<p>{} kernel(s){}; {} candidate step(s) tested, {} drift(s); {} at {}</p>\n",
        b.kernels.len(),
        if b.missing.is_empty() {
            String::new()
        } else {
            format!("; not measured: {}", esc(&b.missing.join(" ")))
        },
        b.tested,
        b.drifts,
        f.adjust,
        f.alpha
    ));
    if b.steps.is_empty() {
        o.push_str("<p>No step found.</p></section>\n");
        return o;
    }
    let n = b.steps.len().min(top.unwrap_or(usize::MAX)).min(CHARTS_MAX);
    o.push_str("<table><tr><th></th><th>symbol</th><th>before → at</th><th>level</th><th>Δ</th><th>interval</th><th>p</th><th>q</th><th>chart</th></tr>\n");
    for s in &b.steps[..n] {
        o.push_str(&format!(
            "<tr class=\"step\"><td class=\"{}\">{}</td><td>{}</td><td>{} → {}</td><td class=\"num\">{} → {}</td><td class=\"num\">{}</td><td>[{}, {}]</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
            if s.significant { "sig" } else { "" },
            if s.significant { "*" } else { "~" },
            esc(&label(&s.symbol)),
            esc(&b.kernels[s.at - 1]),
            esc(&b.kernels[s.at]),
            value(s.level_before),
            value(s.level_after),
            signed(s.delta),
            signed(s.delta_ci.0),
            signed(s.delta_ci.1),
            pvalue(Some(s.p)),
            pvalue(Some(s.q)),
            chart(s, b)
        ));
        if let Some(note) = &s.bisect {
            o.push_str(&format!(
                "<tr><td></td><td colspan=\"8\">{}</td></tr>\n",
                esc(note)
            ));
        }
    }
    o.push_str("</table>\n");
    if n < b.steps.len() {
        o.push_str(&format!(
            "<p>{} more step(s) not drawn: see -o json or -o csv.</p>\n",
            b.steps.len() - n
        ));
    }
    o.push_str("</section>\n");
    o
}

/// The chart of one step: x the kernel's place, y the level (0 at the bottom).
fn chart(s: &StepOut, b: &BenchOut) -> String {
    let k = b.kernels.len().max(2);
    let hi = s
        .points
        .iter()
        .map(|p| p.1)
        .chain([s.level_before, s.level_after])
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    let hi = if hi > 0.0 { hi * 1.1 } else { 1.0 };
    let x = |i: f64| PAD + (W - 2.0 * PAD) * i / (k - 1) as f64;
    let y = |v: f64| H - PAD + -(H - 2.0 * PAD) * (v / hi);
    let mut o = format!(
        "<svg class=\"chart\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" role=\"img\" \
         data-at=\"{}\" data-before=\"{}\" data-after=\"{}\" data-ymax=\"{hi}\">",
        s.at, s.level_before, s.level_after
    );
    o.push_str(&format!(
        "<line class=\"axis\" x1=\"{PAD}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\"/>",
        y(0.0),
        W - PAD,
        y(0.0)
    ));
    let xm = (x(s.at as f64 - 1.0) + x(s.at as f64)) / 2.0;
    o.push_str(&format!(
        "<line class=\"mark\" x1=\"{xm:.2}\" y1=\"{PAD}\" x2=\"{xm:.2}\" y2=\"{:.2}\"/>",
        H - PAD
    ));
    for (from, to, level, side) in [
        (s.from, s.at, s.level_before, "before"),
        (s.at, s.to, s.level_after, "after"),
    ] {
        o.push_str(&format!(
            "<line class=\"seg\" data-side=\"{side}\" x1=\"{:.2}\" y1=\"{:.2}\" x2=\"{:.2}\" y2=\"{:.2}\"/>",
            x(from as f64),
            y(level),
            x((to - 1) as f64).max(x(from as f64) + 2.0),
            y(level)
        ));
    }
    for &(kernel, v) in &s.points {
        o.push_str(&format!(
            "<circle class=\"run\" data-kernel=\"{kernel}\" data-value=\"{v}\" cx=\"{:.2}\" cy=\"{:.2}\" r=\"2.5\"/>",
            x(kernel as f64),
            y(v)
        ));
    }
    o.push_str(&format!(
        "<text x=\"{PAD}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        H - 6.0,
        esc(&b.kernels[0]),
        W - PAD,
        H - 6.0,
        esc(&b.kernels[b.kernels.len() - 1])
    ));
    o.push_str(&format!(
        "<text x=\"2\" y=\"{}\">{}</text>",
        PAD - 8.0,
        value(hi)
    ));
    o.push_str("</svg>");
    o
}
