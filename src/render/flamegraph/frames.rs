//! The frames of one flame graph: which are drawn ([`plan`]: a width
//! threshold as flamegraph.pl's `--minwidth`, raised when more than
//! [`MAX_FRAMES`] would be drawn, and at most [`MAX_LEVELS`] levels), where
//! (a loop over an explicit stack, never recursion: a stack of 100,000
//! frames is drawn as safely as one of ten), and how ([`draw`]: fill by
//! the frame's verdict, tooltip with its shares, Δs, interval and mark).

use super::super::markup::{clip, escape};
use crate::flame::{Flame, Mark, Node, Tree};
use crate::significance::Method;
use std::fmt::Write as _;

/// Drawing width of the frames, in SVG pixels.
pub const WIDTH: f64 = 1200.0;
pub const FRAME_H: f64 = 16.0;
/// Frames narrower than this are not drawn (flamegraph.pl's `--minwidth`).
pub const MIN_PX: f64 = 0.5;
/// At most this many frames are drawn in one graph (the width threshold
/// rises until they fit): a page stays a few megabytes whatever the input.
pub const MAX_FRAMES: usize = 10_000;
/// At most this many levels are drawn (the root is one).
pub const MAX_LEVELS: usize = 1_000;
/// The colour scale saturates at the largest significant inclusive change,
/// but never below this share (0.5 percentage points).
const MIN_SCALE: f64 = 0.005;
/// Fills of frames that are not significant.
pub const NOISE_FILL: (u8, u8, u8) = (200, 200, 200);
pub const UNTESTED_FILL: (u8, u8, u8) = (228, 228, 228);

/// What one graph draws.
pub struct Plan {
    /// The drawn frames in drawing order (depth first, children in name
    /// order) with their left edge.
    pub frames: Vec<(u32, f64)>,
    /// Pixels per unit of share.
    pub px: f64,
    /// The width a frame must reach to be drawn (≥ [`MIN_PX`]), and
    /// whether the frame budget raised it.
    pub min_px: f64,
    pub raised: bool,
    /// Frames left out: too narrow (above [`MAX_LEVELS`]), too deep.
    pub narrow: usize,
    pub deep: usize,
    /// Levels drawn.
    pub levels: usize,
    /// Where the colour scale saturates.
    pub scale: f64,
}

/// Decide which frames of `f` are drawn and where.
pub fn plan(f: &Flame) -> Plan {
    let t = &f.tree;
    let w = t.root().width();
    let px = if w > 0.0 { WIDTH / w } else { 0.0 };
    let shallow = |n: &Node| (n.depth as usize) < MAX_LEVELS;
    // Widths in pixels of the frames wide and shallow enough.
    let mut wide: Vec<f64> = t
        .nodes()
        .iter()
        .filter(|n| shallow(n) && n.width() * px >= MIN_PX)
        .map(|n| n.width() * px)
        .collect();
    // Over budget: only frames wider than the (MAX_FRAMES + 1)-th widest.
    // A child is never wider than its parent, so what is kept is a tree.
    let cut = (wide.len() > MAX_FRAMES).then(|| {
        let (_, nth, _) = wide.select_nth_unstable_by(MAX_FRAMES, |a, b| b.total_cmp(a));
        *nth
    });
    drop(wide);
    let keep = |n: &Node| {
        let w = n.width() * px;
        shallow(n) && w >= MIN_PX && cut.is_none_or(|c| w > c)
    };
    let mut frames = Vec::new();
    let mut levels = 0;
    let mut scale = MIN_SCALE;
    if px > 0.0 {
        let mut stack = vec![(Tree::ROOT, 0.0)];
        while let Some((i, x)) = stack.pop() {
            let n = t.node(i);
            if !keep(n) {
                continue;
            }
            frames.push((i, x));
            levels = levels.max(n.depth as usize + 1);
            if n.test.mark == Mark::Significant {
                scale = scale.max(n.incl_delta().abs());
            }
            let kids = t.children(i);
            let mut xs = Vec::with_capacity(kids.len());
            let mut cx = x;
            for &c in kids {
                xs.push((c, cx));
                cx += t.node(c).width() * px;
            }
            stack.extend(xs.into_iter().rev());
        }
    }
    let deep = t.nodes().iter().filter(|n| !shallow(n)).count();
    Plan {
        narrow: t.len() - deep - frames.len(),
        deep,
        px,
        min_px: cut.unwrap_or(MIN_PX).max(MIN_PX),
        raised: cut.is_some(),
        frames,
        levels,
        scale,
    }
}

/// `r,g,b` for a significant change `d` on a scale saturating at `scale`:
/// from pale (the smallest change still clearly tinted) to full red (more
/// on the compared side) or blue (less).
pub fn colour(d: f64, scale: f64) -> (u8, u8, u8) {
    let t = (d.abs() / scale).clamp(0.0, 1.0).sqrt().max(0.25);
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

/// A frame's fill: red or blue by its change when significant, grey
/// otherwise (darker within noise, lighter untested).
pub fn fill(n: &Node, scale: f64) -> (u8, u8, u8) {
    match n.test.mark {
        Mark::Significant if n.incl_delta() != 0.0 => colour(n.incl_delta(), scale),
        Mark::Significant | Mark::Noise => NOISE_FILL,
        Mark::Untested => UNTESTED_FILL,
    }
}

pub fn pct(v: f64) -> String {
    format!("{:.3}%", v * 100.0)
}

pub fn pp(v: f64) -> String {
    let s = format!("{:+.3} pp", v * 100.0);
    if s.starts_with("-0.000") || s.starts_with("+0.000") {
        "0.000 pp".to_string()
    } else {
        s
    }
}

/// The tooltip's line of a frame's verdict.
fn mark_line(n: &Node, method: Method) -> String {
    let q = super::super::pvalue(n.test.q);
    match n.test.mark {
        Mark::Significant => format!("mark: * significant (q {q})"),
        Mark::Noise => format!("mark: ~ within noise (q {q})"),
        Mark::Untested if method == Method::NotTested => {
            "mark: untested (counts are not sample counts)".to_string()
        }
        Mark::Untested => "mark: untested (too few samples)".to_string(),
    }
}

/// What [`draw`] needs besides the frames.
pub struct Style<'a> {
    pub px: f64,
    pub top: f64,
    pub scale: f64,
    /// The compared side's title, the interval level, the patterns' id.
    pub new: &'a str,
    pub level: &'a str,
    pub id: &'a str,
    pub method: Method,
}

/// Every planned frame, as `<g><title>…</title><rect…/>…</g>` lines.
pub fn draw(t: &Tree, frames: &[(u32, f64)], st: &Style, s: &mut String) {
    for &(i, x) in frames {
        let n = t.node(i);
        let w = n.width() * st.px;
        let y = st.top + n.depth as f64 * FRAME_H;
        let d = n.incl_delta();
        let (r, g, b) = fill(n, st.scale);
        let interval = n
            .test
            .delta_ci
            .map(|(lo, hi)| format!(", {} interval {} to {}", st.level, pp(lo), pp(hi)))
            .unwrap_or_default();
        let state = if n.gone() {
            format!("\ngone on {}", st.new)
        } else if n.only_new() {
            format!("\nonly on {}", st.new)
        } else {
            String::new()
        };
        let _ = write!(
            s,
            "<g><title>{}\ninclusive: {} &#8594; {} ({}){}\nself: {} &#8594; {} ({})\n{}{}</title>\
             <rect x=\"{x:.2}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{:.1}\" fill=\"rgb({r},{g},{b})\"",
            escape(t.name(i)),
            pct(n.old_incl),
            pct(n.new_incl),
            pp(d),
            escape(&interval),
            pct(n.old_self),
            pct(n.new_self),
            pp(n.self_delta()),
            mark_line(n, st.method),
            escape(&state),
            FRAME_H - 1.0,
        );
        if n.only_new() {
            s.push_str(" stroke=\"#000\" stroke-width=\"1\"");
        }
        s.push_str("/>");
        if n.gone() {
            let _ = write!(
                s,
                "<rect x=\"{x:.2}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{:.1}\" fill=\"url(#{}-gone)\"/>",
                FRAME_H - 1.0,
                st.id
            );
        }
        let chars = ((w - 6.0) / 6.7).floor();
        if chars >= 3.0 {
            let dark = n.test.mark == Mark::Significant && (d.abs() / st.scale).sqrt() > 0.7;
            let ink = if dark { "#fff" } else { "#000" };
            let _ = write!(
                s,
                "<text x=\"{:.2}\" y=\"{:.1}\" fill=\"{ink}\">{}</text>",
                x + 3.0,
                y + 11.0,
                escape(&clip(t.name(i), chars as usize))
            );
        }
        s.push_str("</g>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_run_from_pale_to_red_and_blue() {
        assert_eq!(colour(2.0, 1.0), (214, 47, 39));
        assert_eq!(colour(-1.0, 1.0), (33, 102, 172));
        // The smallest significant change is still clearly tinted.
        let (r, g, b) = colour(1e-9, 1.0);
        assert!(r > g + 30 && r > b + 30, "{r},{g},{b}");
        let (r, g, b) = colour(-1e-9, 1.0);
        assert!(b > r + 30, "{r},{g},{b}");
    }

    #[test]
    fn formats_points() {
        assert_eq!(pp(0.0123), "+1.230 pp");
        assert_eq!(pp(-0.0000001), "0.000 pp");
        assert_eq!(pct(0.5), "50.000%");
    }
}
