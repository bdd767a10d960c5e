//! `-o flamegraph` and the flame graph of `-o html`: the differential call
//! tree of [`crate::flame`] drawn as a self-contained SVG (no script, no
//! fonts, no links), root at the top (an icicle: the entry points are what a
//! report reader looks at first), children in name order.
//!
//! Encoding: a frame's width is the mean of its OLD and NEW inclusive
//! shares ([`crate::flame::Node::width`]), so frames that vanished keep half
//! their old width and stay visible, and children always fit in their
//! parent. Its fill is the change in its inclusive share (red: larger share
//! on NEW, blue: smaller; intensity ∝ |Δ|, saturated at the largest change,
//! at least 0.5 pp); a stripe along its bottom edge is the change in its
//! self share on the same scale. Frames gone on NEW are hatched, frames only
//! on NEW are outlined. Every frame's `<title>` tooltip states its old/new
//! inclusive and self shares and both deltas. Frames narrower than
//! [`MIN_PX`] are left out (their time stays in their parent's width).

use super::markup::{clip, escape};
use super::RenderOptions;
use crate::diff::Report;
use crate::flame::{Flame, Flames, Node};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Drawing width of the frames, in SVG pixels.
pub const WIDTH: f64 = 1200.0;
const FRAME_H: f64 = 16.0;
const TOP: f64 = 58.0;
const BOTTOM: f64 = 8.0;
/// Frames narrower than this are not drawn.
pub const MIN_PX: f64 = 0.5;
/// The colour scale saturates at the largest inclusive change, but never
/// below this share (0.5 percentage points), so noise stays pale.
const MIN_SCALE: f64 = 0.005;

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
        .map(|g| {
            let id = format!("fg{}", g.side);
            let svg = svg(g, report, &id, true, opts);
            (height(g), svg)
        })
        .collect();
    let total: f64 = parts.iter().map(|p| p.0).sum();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{total}\" \
         viewBox=\"0 0 {WIDTH} {total}\" style=\"background:#fff\">"
    );
    let mut y = 0.0;
    for (h, part) in parts {
        let _ = writeln!(s, "<g transform=\"translate(0 {y})\">");
        s.push_str(&part);
        s.push_str("</g>\n");
        y += h;
    }
    s.push_str("</svg>\n");
    out.write_all(s.as_bytes())
}

fn height(f: &Flame) -> f64 {
    top(f) + drawn_depth(f) as f64 * FRAME_H + BOTTOM
}

/// Where the frames start: below the title, legend and (when the view is
/// not the plain one) the line that says how stacks were shaped.
fn top(f: &Flame) -> f64 {
    if f.view.describe().is_some() {
        TOP + 16.0
    } else {
        TOP
    }
}

/// Pixels per unit of share.
fn px(f: &Flame) -> f64 {
    let w = f.root.width();
    if w > 0.0 {
        WIDTH / w
    } else {
        0.0
    }
}

/// Levels that hold at least one frame wide enough to draw.
fn drawn_depth(f: &Flame) -> usize {
    fn go(n: &Node, px: f64) -> usize {
        if n.width() * px < MIN_PX {
            return 0;
        }
        1 + n.children.iter().map(|c| go(c, px)).max().unwrap_or(0)
    }
    go(&f.root, px(f))
}

/// `r,g,b` for a change `d` on a scale saturating at `scale`.
fn colour(d: f64, scale: f64) -> (u8, u8, u8) {
    let t = (d.abs() / scale).clamp(0.0, 1.0).sqrt();
    let neutral = (236.0, 236.0, 230.0);
    let end = if d > 0.0 {
        (214.0, 47.0, 39.0)
    } else {
        (33.0, 102.0, 172.0)
    };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    (
        mix(neutral.0, end.0),
        mix(neutral.1, end.1),
        mix(neutral.2, end.2),
    )
}

fn pct(v: f64) -> String {
    format!("{:.3}%", v * 100.0)
}

fn pp(v: f64) -> String {
    let s = format!("{:+.3} pp", v * 100.0);
    if s.starts_with("-0.000") || s.starts_with("+0.000") {
        "0.000 pp".to_string()
    } else {
        s
    }
}

fn max_change(n: &Node, m: &mut f64) {
    for c in &n.children {
        *m = m.max(c.incl_delta().abs()).max(c.self_delta().abs());
        max_change(c, m);
    }
}

/// One flame graph as an `<svg>` element (no XML declaration). `id`
/// prefixes the ids of its patterns; `standalone` adds a white background.
pub fn svg(f: &Flame, report: &Report, id: &str, standalone: bool, opts: &RenderOptions) -> String {
    let h = height(f);
    let mut scale = MIN_SCALE;
    max_change(&f.root, &mut scale);
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
         patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>\
         <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#2166ac\" stroke-width=\"3\"/></pattern></defs>"
    );
    if standalone {
        let _ = writeln!(s, "<rect width=\"{WIDTH}\" height=\"{h}\" fill=\"#fff\"/>");
    }
    let _ = writeln!(
        s,
        "<text x=\"0\" y=\"14\" font-size=\"13\" font-weight=\"bold\">Differential flame graph: {} vs {} \
         ({} + {} run(s) with callchains, shares of all samples)</text>",
        escape(&new),
        escape(&old),
        f.runs.1,
        f.runs.0
    );
    let _ = writeln!(
        s,
        "<text x=\"0\" y=\"30\">width: mean of {o} and {n} inclusive share; fill: &#916; inclusive share \
         (red = more on {n}, blue = less); bottom stripe: &#916; self share</text>",
        o = escape(&old),
        n = escape(&new),
    );
    // Colour scale.
    for i in 0..=20 {
        let d = (i as f64 - 10.0) / 10.0 * scale;
        let (r, g, b) = colour(d, scale);
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"38\" width=\"12\" height=\"10\" fill=\"rgb({r},{g},{b})\"/>",
            i * 12
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"258\" y=\"47\">{} .. 0 .. {} (full colour at the largest change)</text>\
         <rect x=\"740\" y=\"38\" width=\"24\" height=\"10\" fill=\"url(#{id}-gone)\"/>\
         <text x=\"768\" y=\"47\">gone on {n}</text>\
         <rect x=\"900\" y=\"38\" width=\"24\" height=\"10\" fill=\"rgb(236,236,230)\" stroke=\"#000\"/>\
         <text x=\"928\" y=\"47\">only on {n}</text>",
        pp(-scale),
        pp(scale),
        n = escape(&new),
    );
    if let Some(view) = f.view.describe() {
        let _ = writeln!(s, "<text x=\"0\" y=\"66\">view: {}</text>", escape(&view));
    }
    let px = px(f);
    if px > 0.0 {
        let at = Place { x: 0.0, y: top(f) };
        frame(&f.root, at, px, scale, &new, id, &mut s);
    }
    s.push_str("</svg>\n");
    s
}

/// Where a frame is drawn: its left edge and top.
#[derive(Clone, Copy)]
struct Place {
    x: f64,
    y: f64,
}

fn frame(n: &Node, at: Place, px: f64, scale: f64, new: &str, id: &str, s: &mut String) {
    let w = n.width() * px;
    if w < MIN_PX {
        return;
    }
    let Place { x, y } = at;
    let d = n.incl_delta();
    let (r, g, b) = colour(d, scale);
    let state = if n.new_incl <= 0.0 && n.old_incl > 0.0 {
        format!("\ngone on {new}")
    } else if n.old_incl <= 0.0 && n.new_incl > 0.0 {
        format!("\nonly on {new}")
    } else {
        String::new()
    };
    let _ = write!(
        s,
        "<g><title>{}\ninclusive: {} &#8594; {} ({})\nself: {} &#8594; {} ({}){}</title>\
         <rect x=\"{x:.2}\" y=\"{y:.1}\" width=\"{:.2}\" height=\"{:.1}\" fill=\"rgb({r},{g},{b})\"",
        escape(&n.name),
        pct(n.old_incl),
        pct(n.new_incl),
        pp(d),
        pct(n.old_self),
        pct(n.new_self),
        pp(n.self_delta()),
        escape(&state),
        w,
        FRAME_H - 1.0,
    );
    if n.old_incl <= 0.0 && n.new_incl > 0.0 {
        s.push_str(" stroke=\"#000\" stroke-width=\"1\"");
    }
    s.push_str("/>");
    if n.new_incl <= 0.0 && n.old_incl > 0.0 {
        let _ = write!(
            s,
            "<rect x=\"{x:.2}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{:.1}\" fill=\"url(#{id}-gone)\" opacity=\"0.6\"/>",
            FRAME_H - 1.0
        );
    }
    let sd = n.self_delta();
    if sd.abs() >= scale * 0.05 && sd.abs() > 1e-9 {
        let (r, g, b) = colour(sd, scale);
        let _ = write!(
            s,
            "<rect x=\"{x:.2}\" y=\"{:.1}\" width=\"{w:.2}\" height=\"4\" fill=\"rgb({r},{g},{b})\" \
             stroke=\"#fff\" stroke-width=\"0.5\"/>",
            y + FRAME_H - 5.0
        );
    }
    let chars = ((w - 6.0) / 6.7).floor();
    if chars >= 3.0 {
        let t = (d.abs() / scale).clamp(0.0, 1.0).sqrt();
        let gone = n.new_incl <= 0.0 && n.old_incl > 0.0;
        let fill = if t > 0.7 && !gone { "#fff" } else { "#000" };
        let _ = write!(
            s,
            "<text x=\"{:.2}\" y=\"{:.1}\" fill=\"{fill}\">{}</text>",
            x + 3.0,
            y + 11.0,
            escape(&clip(&n.name, chars as usize))
        );
    }
    s.push_str("</g>\n");
    let mut cx = x;
    for c in &n.children {
        let below = Place {
            x: cx,
            y: y + FRAME_H,
        };
        frame(c, below, px, scale, new, id, s);
        cx += c.width() * px;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_run_from_neutral_to_red_and_blue() {
        assert_eq!(colour(0.0, 1.0), (236, 236, 230));
        assert_eq!(colour(2.0, 1.0), (214, 47, 39));
        assert_eq!(colour(-1.0, 1.0), (33, 102, 172));
    }

    #[test]
    fn formats_points() {
        assert_eq!(pp(0.0123), "+1.230 pp");
        assert_eq!(pp(-0.0000001), "0.000 pp");
        assert_eq!(pct(0.5), "50.000%");
    }
}
