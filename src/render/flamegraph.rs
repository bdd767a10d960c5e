//! `-o flamegraph` and the flame graph of `-o html`: the differential call
//! tree of [`crate::flame`] drawn as a self-contained SVG (no script, no
//! fonts, no links), root at the top (an icicle: the entry points are what a
//! report reader looks at first), children in name order.
//!
//! Encoding: a frame's width is the mean of its OLD and NEW inclusive
//! shares ([`crate::flame::Node::width`]), so frames that vanished keep half
//! their old width and stay visible, and children always fit in their
//! parent. Its fill is its verdict: a frame whose inclusive change is
//! significant (`*`, tested as the table's rows are, FDR over the frames)
//! is red (larger share on NEW) or blue (smaller), its intensity growing
//! with |Δ| up to the largest significant change; every other frame is
//! grey (darker within noise `~`, lighter untested). Frames gone on NEW are
//! hatched, frames only on NEW are outlined. Every frame's `<title>`
//! tooltip states its old/new inclusive and self shares, both deltas, the
//! inclusive Δ's interval and its mark. Frames narrower than
//! [`frames::MIN_PX`] (more when the frame budget needs it) and below
//! [`frames::MAX_LEVELS`] levels are left out (their time stays in their
//! parent's width), and the graph says how many.

mod frames;

pub use frames::{MAX_FRAMES, MAX_LEVELS, MIN_PX, WIDTH};

use super::markup::escape;
use super::RenderOptions;
use crate::aggregate::fmt_count;
use crate::diff::Report;
use crate::flame::{Flame, Flames};
use crate::significance::Method;
use frames::{colour, pp, Plan, Style, FRAME_H, NOISE_FILL, UNTESTED_FILL};
use std::fmt::Write as _;
use std::io::{self, Write};

const BOTTOM: f64 = 8.0;

/// Every compared side's flame graph, one under the other, as one SVG.
pub fn render(
    report: &Report,
    flames: Option<&Flames>,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let graphs = flames.map(|f| f.graphs.as_slice()).unwrap_or(&[]);
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    if graphs.is_empty() {
        let why = flames
            .and_then(|f| f.missing_reason())
            .unwrap_or_else(|| "no callchains".to_string());
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"40\">\
             <text x=\"10\" y=\"24\" font-family=\"monospace\" font-size=\"12\">No flame graph: {}</text></svg>",
            escape(&why)
        );
        return out.write_all(s.as_bytes());
    }
    let parts: Vec<(f64, String)> = graphs
        .iter()
        .map(|g| svg_sized(g, report, &format!("fg{}", g.side), true, opts))
        .collect();
    let total: f64 = parts.iter().map(|p| p.0).sum();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{total}\" \
         viewBox=\"0 0 {WIDTH} {total}\" style=\"background:#fff\">"
    );
    out.write_all(s.as_bytes())?;
    let mut y = 0.0;
    for (h, part) in parts {
        writeln!(out, "<g transform=\"translate(0 {y})\">")?;
        out.write_all(part.as_bytes())?;
        out.write_all(b"</g>\n")?;
        y += h;
    }
    out.write_all(b"</svg>\n")
}

/// The header's optional lines: how stacks were shaped, what was left out.
fn notes(f: &Flame, plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = f
        .view
        .describe()
        .map(|v| format!("view: {v}"))
        .into_iter()
        .collect();
    if plan.narrow > 0 {
        let why = if plan.raised {
            format!(" (at most {MAX_FRAMES} frames are drawn)")
        } else {
            String::new()
        };
        out.push(format!(
            "{} frame(s) narrower than {:.2} px ({:.4}% of samples) not drawn{why}; their time stays in their parents' width",
            plan.narrow,
            plan.min_px,
            plan.min_px / plan.px * 100.0
        ));
    }
    if plan.deep > 0 {
        out.push(format!(
            "stacks deeper than {MAX_LEVELS} frames cut there: {} deeper frame(s) not drawn",
            plan.deep
        ));
    }
    out
}

/// The sentence that says how frames were judged.
/// The title's account of the runs and the unit: how many runs went in,
/// whether they had callers (a graph of runs recorded without `-g` is
/// their leaves alone), and what the shares are of.
fn title_runs(f: &Flame) -> String {
    let unit = if f.view.relative {
        "shares of the samples the filters kept"
    } else {
        "shares of all samples"
    };
    if f.leaves_only {
        format!(
            "{} + {} runs without callchains: leaves only, record with -g for callers; {unit}",
            f.runs.1, f.runs.0
        )
    } else {
        format!("{} + {} runs with callchains, {unit}", f.runs.1, f.runs.0)
    }
}

fn judged(f: &Flame) -> String {
    let t = &f.tests;
    if t.noise.method == Method::NotTested {
        return "significance: not tested (counts are not sample counts): every frame is grey"
            .to_string();
    }
    format!(
        "colour: significant change of inclusive share (noise: {}; {} q <= {}, {} frames tested): \
         {} grew, red; {} shrank, blue; the rest grey",
        t.noise.method.name(),
        super::adjust_name(t.adjust),
        super::fmt_alpha(t.alpha),
        fmt_count(t.tested as f64),
        fmt_count(t.worse as f64),
        fmt_count(t.better as f64)
    )
}

/// One flame graph as an `<svg>` element (no XML declaration). `id`
/// prefixes the ids of its patterns; `standalone` adds a white background.
pub fn svg(f: &Flame, report: &Report, id: &str, standalone: bool, opts: &RenderOptions) -> String {
    svg_sized(f, report, id, standalone, opts).1
}

/// [`svg`] and its height.
fn svg_sized(
    f: &Flame,
    report: &Report,
    id: &str,
    standalone: bool,
    opts: &RenderOptions,
) -> (f64, String) {
    let plan = frames::plan(f);
    let notes = notes(f, &plan);
    let top = 74.0 + 16.0 * notes.len() as f64;
    let h = top + plan.levels as f64 * FRAME_H + BOTTOM;
    let old = super::side_title(report, 0, opts);
    let new = super::side_title(report, f.side, opts);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg class=\"flamegraph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{h}\" \
         viewBox=\"0 0 {WIDTH} {h}\" font-family=\"monospace\" font-size=\"11\" role=\"img\" \
         aria-label=\"differential flame graph\">"
    );
    let _ = writeln!(
        s,
        "<defs><pattern id=\"{id}-gone\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
         patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#555\" \
         stroke-width=\"1.5\" stroke-opacity=\"0.6\"/></pattern></defs>"
    );
    if standalone {
        let _ = writeln!(s, "<rect width=\"{WIDTH}\" height=\"{h}\" fill=\"#fff\"/>");
    }
    let _ = writeln!(
        s,
        "<text x=\"0\" y=\"14\" font-size=\"13\" font-weight=\"bold\">Differential flame graph: {} vs {} \
         ({})</text>",
        escape(&new),
        escape(&old),
        title_runs(f)
    );
    let _ = writeln!(
        s,
        "<text x=\"0\" y=\"30\">width: mean of {} and {} inclusive share; tooltips: shares, &#916;s, interval, mark</text>\
         <text x=\"0\" y=\"46\">{}</text>",
        escape(&old),
        escape(&new),
        escape(&judged(f)),
    );
    legend(&mut s, plan.scale, id, &escape(&new));
    for (k, line) in notes.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"0\" y=\"{}\">{}</text>",
            82.0 + 16.0 * k as f64,
            escape(line)
        );
    }
    let level = super::level_pct(f.tests.noise.interval_level);
    let style = Style {
        px: plan.px,
        top,
        scale: plan.scale,
        new: &new,
        level: &level,
        id,
        method: f.tests.noise.method,
    };
    frames::draw(&f.tree, &plan.frames, &style, &mut s);
    s.push_str("</svg>\n");
    (h, s)
}

/// The colour scale and the other keys, on the line at y 54-64.
fn legend(s: &mut String, scale: f64, id: &str, new: &str) {
    for i in 0..20 {
        // Ten steps each way, from the largest fall to the largest rise.
        let k = if i < 10 {
            i as f64 - 10.0
        } else {
            i as f64 - 9.0
        };
        let (r, g, b) = colour(k / 10.0 * scale, scale);
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"54\" width=\"12\" height=\"10\" fill=\"rgb({r},{g},{b})\"/>",
            i * 12
        );
    }
    let grey = |c: (u8, u8, u8)| format!("rgb({},{},{})", c.0, c.1, c.2);
    let _ = writeln!(
        s,
        "<text x=\"246\" y=\"63\">{} .. {} significant *</text>\
         <rect x=\"560\" y=\"54\" width=\"24\" height=\"10\" fill=\"{}\"/><text x=\"588\" y=\"63\">within noise ~</text>\
         <rect x=\"700\" y=\"54\" width=\"24\" height=\"10\" fill=\"{}\"/><text x=\"728\" y=\"63\">untested</text>\
         <rect x=\"800\" y=\"54\" width=\"24\" height=\"10\" fill=\"{}\"/>\
         <rect x=\"800\" y=\"54\" width=\"24\" height=\"10\" fill=\"url(#{id}-gone)\"/>\
         <text x=\"828\" y=\"63\">gone on {new}</text>\
         <rect x=\"960\" y=\"54\" width=\"24\" height=\"10\" fill=\"{}\" stroke=\"#000\"/>\
         <text x=\"988\" y=\"63\">only on {new}</text>",
        pp(-scale),
        pp(scale),
        grey(NOISE_FILL),
        grey(UNTESTED_FILL),
        grey(NOISE_FILL),
        grey(NOISE_FILL),
    );
}
