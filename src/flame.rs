//! The two-sided call tree behind the differential flame graph.
//!
//! Input: the runs of each side with their `Profile::stacks` (callchains,
//! root first, summed weights). Each side's stacks are pooled over its runs
//! and divided by the pooled total of those runs (`Profile::total`, every
//! sample before filters, as `--normalize share` does), so a frame's value is
//! a share of all samples. Output: one [`Flame`] per compared side: the
//! merged call tree of the baseline and that side, each node with its old
//! and new inclusive share (samples whose stack passes through this path)
//! and self share (samples whose stack ends here). Children are in name
//! order, so everything built from the tree is deterministic. Frames are
//! named as the table's rows are: clone suffixes folded (unless
//! `--keep-suffixes`) and `--alias` applied, so that a function renamed or
//! re-cloned between the kernels stays one frame. Consecutive
//! `[unknown]` frames of a stack (unwinding without frame pointers) count as
//! one frame.

use crate::aggregate::Side;
use crate::identity::Identity;

/// The name parsers give a frame they cannot resolve.
pub const UNKNOWN: &str = "[unknown]";

/// One frame of the merged call tree (one path from the root).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    /// Inclusive share of the baseline's samples, as a fraction (0..=1).
    pub old_incl: f64,
    pub new_incl: f64,
    /// Self share (stacks ending at this frame), as a fraction.
    pub old_self: f64,
    pub new_self: f64,
    /// In name order.
    pub children: Vec<Node>,
}

impl Node {
    fn new(name: &str) -> Node {
        Node {
            name: name.to_string(),
            old_incl: 0.0,
            new_incl: 0.0,
            old_self: 0.0,
            new_self: 0.0,
            children: Vec::new(),
        }
    }

    /// The frame's width in the flame graph: the mean of its old and new
    /// inclusive shares. Linear, so children always fit inside their parent
    /// (a max would not: time that moved between siblings would overflow),
    /// and a frame that exists on only one side keeps half its width: frames
    /// that vanished stay visible.
    pub fn width(&self) -> f64 {
        (self.old_incl + self.new_incl) / 2.0
    }

    pub fn incl_delta(&self) -> f64 {
        self.new_incl - self.old_incl
    }

    pub fn self_delta(&self) -> f64 {
        self.new_self - self.old_self
    }

    /// Deepest path length below and including this node.
    pub fn depth(&self) -> usize {
        1 + self.children.iter().map(Node::depth).max().unwrap_or(0)
    }

    fn child(&mut self, name: &str) -> &mut Node {
        let i = match self
            .children
            .binary_search_by(|c| c.name.as_str().cmp(name))
        {
            Ok(i) => i,
            Err(i) => {
                self.children.insert(i, Node::new(name));
                i
            }
        };
        &mut self.children[i]
    }

    fn add<F: AsRef<str>>(&mut self, stack: impl IntoIterator<Item = F>, share: f64, new: bool) {
        let mut node = self;
        let mut prev_unknown = false;
        for frame in stack {
            let frame = frame.as_ref();
            // Unwinding through code without frame pointers yields runs of
            // `[unknown]`; one frame says as much and keeps the graph shallow.
            let unknown = frame == UNKNOWN;
            if unknown && prev_unknown {
                continue;
            }
            prev_unknown = unknown;
            node = node.child(frame);
            if new {
                node.new_incl += share;
            } else {
                node.old_incl += share;
            }
        }
        if new {
            node.new_self += share;
        } else {
            node.old_self += share;
        }
    }
}

/// The differential call tree of the baseline and one compared side.
#[derive(Clone, Debug, PartialEq)]
pub struct Flame {
    /// Index of the compared side in the report's sides.
    pub side: usize,
    /// A synthetic root (`all`) whose inclusive shares are the shares of the
    /// samples that have stacks (after filters).
    pub root: Node,
    /// Runs whose stacks went in, per side (baseline, compared).
    pub runs: (usize, usize),
}

/// Flame graphs of a report, when stacks were asked for.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Flames {
    /// One per compared side (report order), or none when a side has no stacks.
    pub graphs: Vec<Flame>,
    /// Runs (sources) without callchains, in side and run order.
    pub without: Vec<String>,
    /// Runs with callchains.
    pub with: Vec<String>,
}

impl Flames {
    /// Why there is no flame graph (every side needs at least one run with
    /// callchains), for notes and errors; `None` when there are graphs.
    pub fn missing_reason(&self) -> Option<String> {
        if !self.graphs.is_empty() {
            return None;
        }
        let kinds = "perf script of a `perf record -g` recording, folded stacks, \
                     or perf.data recorded with -g";
        Some(if self.with.is_empty() {
            format!(
                "no input has callchains ({kinds}); without them: {}",
                self.without.join(", ")
            )
        } else {
            format!(
                "a flame graph needs callchains on every side ({kinds}); with them: {}; without: {}",
                self.with.join(", "),
                self.without.join(", ")
            )
        })
    }
}

/// Pool one side's stacks into the tree. Returns the number of runs used.
fn pool(root: &mut Node, side: &Side, new: bool, identity: &Identity) -> usize {
    let runs: Vec<_> = side.runs.iter().filter(|r| !r.stacks.is_empty()).collect();
    let total: f64 = runs
        .iter()
        .map(|r| {
            let sum: f64 = r.stacks.values().sum();
            if r.total > 0.0 {
                r.total
            } else {
                sum
            }
        })
        .sum();
    if runs.is_empty() || total.is_nan() || total <= 0.0 {
        return 0;
    }
    let mut all = 0.0;
    for r in &runs {
        for (stack, w) in &r.stacks {
            if stack.is_empty() || !w.is_finite() {
                continue;
            }
            let frames = stack.iter().map(|f| identity.frame_name(f));
            root.add(frames, w / total, new);
            all += w / total;
        }
    }
    if new {
        root.new_incl = all;
    } else {
        root.old_incl = all;
    }
    runs.len()
}

/// The flame graphs of `sides` (the first is the baseline).
pub fn build(sides: &[Side], identity: &Identity) -> Flames {
    let mut out = Flames::default();
    for s in sides {
        for r in &s.runs {
            if r.stacks.is_empty() {
                out.without.push(r.source.clone());
            } else {
                out.with.push(r.source.clone());
            }
        }
    }
    let Some(base) = sides.first() else {
        return out;
    };
    for (j, side) in sides.iter().enumerate().skip(1) {
        let mut root = Node::new("all");
        let old_runs = pool(&mut root, base, false, identity);
        let new_runs = pool(&mut root, side, true, identity);
        if old_runs > 0 && new_runs > 0 {
            out.graphs.push(Flame {
                side: j,
                root,
                runs: (old_runs, new_runs),
            });
        }
    }
    if out.graphs.len() + 1 != sides.len() {
        out.graphs.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Format, Profile};

    fn run(stacks: &[(&str, f64)], total: f64) -> Profile {
        let mut p = Profile::new("r", Format::Folded);
        for (s, w) in stacks {
            let v: Vec<String> = s.split(';').map(str::to_string).collect();
            *p.stacks.entry(v).or_insert(0.0) += w;
        }
        p.total = total;
        p
    }

    fn side(name: &str, runs: Vec<Profile>) -> Side {
        Side::new(name, runs)
    }

    #[test]
    fn shares_pool_runs_and_keep_vanished_frames() {
        let old = side(
            "old",
            vec![
                run(&[("a;b", 30.0), ("a;c", 10.0), ("a", 10.0)], 50.0),
                run(&[("a;b", 30.0), ("a;c", 10.0), ("a", 10.0)], 50.0),
            ],
        );
        let new = side(
            "new",
            vec![run(
                &[("a;b", 50.0), ("a;d;[unknown];[unknown]", 50.0)],
                100.0,
            )],
        );
        let f = build(&[old, new], &Identity::default());
        assert_eq!(f.graphs.len(), 1);
        let root = &f.graphs[0].root;
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(close(root.old_incl, 1.0) && close(root.new_incl, 1.0));
        let a = &root.children[0];
        assert!(close(a.old_self, 0.2) && close(a.new_self, 0.0));
        let names: Vec<&str> = a.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b", "c", "d"]);
        let c = &a.children[1];
        assert!(close(c.old_incl, 0.2) && close(c.new_incl, 0.0));
        assert!(c.width() > 0.0, "vanished frame keeps a width");
        assert!((a.children[0].incl_delta() + 0.1).abs() < 1e-12);
        let sum: f64 = a.children.iter().map(Node::width).sum();
        assert!(sum <= a.width() + 1e-12);
        assert_eq!(root.depth(), 4, "runs of [unknown] collapse to one frame");
    }

    #[test]
    fn frames_are_named_as_rows() {
        // A clone suffix that changed and a renamed function are one frame
        // each, as they are one row each in the table.
        let old = side(
            "old",
            vec![run(&[("main;work.isra.0;d_lookup", 10.0)], 10.0)],
        );
        let new = side(
            "new",
            vec![run(&[("main;work.isra.1;__d_lookup", 10.0)], 10.0)],
        );
        let identity = Identity {
            fold: true,
            aliases: crate::identity::AliasMap::parse("d_lookup = __d_lookup\n", "a").unwrap(),
            ..Identity::default()
        };
        let f = build(&[old.clone(), new.clone()], &identity);
        let root = &f.graphs[0].root;
        assert_eq!(root.depth(), 4);
        let leaf = &root.children[0].children[0].children[0];
        assert_eq!(leaf.name, "__d_lookup");
        assert!(leaf.old_self == 1.0 && leaf.new_self == 1.0);
        // --keep-suffixes and no aliases: two branches.
        let f = build(&[old, new], &Identity::default());
        assert_eq!(f.graphs[0].root.children[0].children.len(), 2);
    }

    #[test]
    fn no_stacks_says_which_inputs() {
        let old = side("old", vec![run(&[("a", 1.0)], 1.0)]);
        let mut plain = Profile::new("plain.txt", Format::Readprofile);
        plain.total = 1.0;
        let new = side("new", vec![plain]);
        let f = build(&[old, new], &Identity::default());
        assert!(f.graphs.is_empty());
        let why = f.missing_reason().unwrap_or_default();
        assert!(why.contains("without: plain.txt"), "{why}");
    }
}
