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
//!
//! [`FlameView`] reshapes each stack before it goes in: `--kernel-only`
//! drops the user frames (a stack starts at its kernel entry,
//! `entry_SYSCALL_64…`, `asm_exc_page_fault`), `--flame-merge-roots` drops
//! the process and thread start frames (so a program's work run from
//! `main` in processes and from `start_thread` in threads is one tree),
//! `--flame-reverse` turns every stack around (the callee view: leaves at
//! the root, their callers above).

use crate::aggregate::Side;
use crate::identity::Identity;
use crate::profile::Profile;

/// The name parsers give a frame they cannot resolve.
pub const UNKNOWN: &str = "[unknown]";

/// Process and thread start frames (glibc, musl, the kernel's clone
/// entry in user space): not the program's own work.
pub const START_FRAMES: &[&str] = &[
    "_start",
    "__libc_start_main",
    "__libc_start_main_impl",
    "__libc_start_main_alias_2",
    "__libc_start_call_main",
    "main",
    "start_thread",
    "thread_start",
    "clone",
    "clone3",
    "__clone",
    "__clone3",
    "__GI___clone",
    "__GI___clone3",
    "__clone_internal",
];

/// How stacks are shaped before they are merged (see the module text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlameView {
    /// Drop every frame before a stack's first kernel frame.
    pub kernel_only: bool,
    /// Drop [`START_FRAMES`] and the `[unknown]` frames that follow them.
    pub merge_roots: bool,
    /// Leaf first.
    pub reverse: bool,
}

impl FlameView {
    /// What the view changes, for the graph's subtitle (None: the plain view).
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.kernel_only {
            parts.push("kernel frames only (stacks start at the kernel entry)");
        }
        if self.merge_roots {
            parts.push("process and thread start frames removed (--flame-merge-roots)");
        }
        if self.reverse {
            parts.push("reversed: functions at the top, their callers below (--flame-reverse)");
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// One stack (root first) of `run` as this view shows it.
    pub fn shape<'a>(&self, stack: &'a [String], run: &Profile) -> Vec<&'a str> {
        let mut frames: Vec<&str> = stack.iter().map(String::as_str).collect();
        if self.kernel_only {
            if let Some(i) = frames.iter().position(|f| run.kernel_frames.contains(*f)) {
                frames.drain(..i);
            }
        }
        if self.merge_roots {
            let mut after_start = true; // the root counts as "after a start frame"
            frames.retain(|f| {
                if START_FRAMES.contains(f) {
                    after_start = true;
                    false
                } else if *f == UNKNOWN && after_start {
                    false
                } else {
                    after_start = false;
                    true
                }
            });
        }
        if self.reverse {
            frames.reverse();
        }
        frames
    }
}

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
    /// How the stacks were shaped.
    pub view: FlameView,
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
fn pool(root: &mut Node, side: &Side, new: bool, identity: &Identity, view: &FlameView) -> usize {
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
            let shaped = view.shape(stack, r);
            if shaped.is_empty() || !w.is_finite() {
                continue;
            }
            let frames = shaped.into_iter().map(|f| identity.frame_name(f));
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

/// The flame graphs of `sides` (the first is the baseline), stacks shaped by `view`.
pub fn build(sides: &[Side], identity: &Identity, view: FlameView) -> Flames {
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
        let old_runs = pool(&mut root, base, false, identity, &view);
        let new_runs = pool(&mut root, side, true, identity, &view);
        if old_runs > 0 && new_runs > 0 {
            out.graphs.push(Flame {
                side: j,
                root,
                runs: (old_runs, new_runs),
                view,
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
        let f = build(&[old, new], &Identity::default(), FlameView::default());
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
        let f = build(&[old.clone(), new.clone()], &identity, FlameView::default());
        let root = &f.graphs[0].root;
        assert_eq!(root.depth(), 4);
        let leaf = &root.children[0].children[0].children[0];
        assert_eq!(leaf.name, "__d_lookup");
        assert!(leaf.old_self == 1.0 && leaf.new_self == 1.0);
        // --keep-suffixes and no aliases: two branches.
        let f = build(&[old, new], &Identity::default(), FlameView::default());
        assert_eq!(f.graphs[0].root.children[0].children.len(), 2);
    }

    #[test]
    fn no_stacks_says_which_inputs() {
        let old = side("old", vec![run(&[("a", 1.0)], 1.0)]);
        let mut plain = Profile::new("plain.txt", Format::Readprofile);
        plain.total = 1.0;
        let new = side("new", vec![plain]);
        let f = build(&[old, new], &Identity::default(), FlameView::default());
        assert!(f.graphs.is_empty());
        let why = f.missing_reason().unwrap_or_default();
        assert!(why.contains("without: plain.txt"), "{why}");
    }

    fn names(n: &Node) -> Vec<&str> {
        n.children.iter().map(|c| c.name.as_str()).collect()
    }

    /// `--kernel-only`: each stack starts at its first kernel frame.
    #[test]
    fn kernel_only_roots_stacks_at_the_kernel_entry() {
        let mut r = run(
            &[
                ("main;write;entry_SYSCALL_64;ksys_write", 6.0),
                ("main;read;entry_SYSCALL_64;ksys_read", 4.0),
                ("main;compute", 5.0),
            ],
            15.0,
        );
        r.kernel_frames = ["entry_SYSCALL_64", "ksys_write", "ksys_read"]
            .map(String::from)
            .into();
        let view = FlameView {
            kernel_only: true,
            ..FlameView::default()
        };
        let sides = [side("old", vec![r.clone()]), side("new", vec![r])];
        let f = build(&sides, &Identity::default(), view);
        let root = &f.graphs[0].root;
        assert_eq!(names(root), ["entry_SYSCALL_64", "main"]);
        assert_eq!(names(&root.children[0]), ["ksys_read", "ksys_write"]);
        // A stack with no kernel frame keeps its frames (nothing says where
        // the kernel starts); --kernel-only's sample filter drops such samples.
        assert_eq!(names(&root.children[1]), ["compute"]);
        assert_eq!(
            f.graphs[0].view.describe().map(|d| d.contains("kernel")),
            Some(true)
        );
    }

    /// `--flame-merge-roots`: processes (main) and threads (start_thread)
    /// of one program give one tree, not two disjoint halves.
    #[test]
    fn merge_roots_joins_processes_and_threads() {
        let procs = run(
            &[(
                "__libc_start_call_main;[unknown];[unknown];__GI___libc_write;ksys_write",
                10.0,
            )],
            10.0,
        );
        let threads = run(
            &[("clone3;start_thread;__GI___libc_write;ksys_write", 10.0)],
            10.0,
        );
        let sides = [side("old", vec![procs]), side("new", vec![threads])];
        let plain = build(&sides, &Identity::default(), FlameView::default());
        assert_eq!(
            plain.graphs[0].root.children.len(),
            2,
            "two disjoint halves"
        );
        let view = FlameView {
            merge_roots: true,
            ..FlameView::default()
        };
        let merged = build(&sides, &Identity::default(), view);
        let root = &merged.graphs[0].root;
        assert_eq!(names(root), ["__GI___libc_write"]);
        let w = &root.children[0];
        assert!(w.old_incl == 1.0 && w.new_incl == 1.0, "{w:?}");
        // [unknown] frames elsewhere in a stack stay.
        let stack = ["start_thread", "a", "[unknown]", "b"].map(String::from);
        let shaped = view.shape(&stack, &run(&[], 1.0));
        assert_eq!(shaped, ["a", "[unknown]", "b"]);
    }

    /// `--flame-reverse`: leaves at the root, callers below.
    #[test]
    fn reverse_puts_callees_at_the_root() {
        let r = run(&[("a;b;leaf", 3.0), ("c;leaf", 1.0), ("a;b", 2.0)], 6.0);
        let view = FlameView {
            reverse: true,
            ..FlameView::default()
        };
        let f = build(
            &[side("old", vec![r.clone()]), side("new", vec![r])],
            &Identity::default(),
            view,
        );
        let root = &f.graphs[0].root;
        assert_eq!(names(root), ["b", "leaf"]);
        let leaf = &root.children[1];
        assert!((leaf.old_incl - 4.0 / 6.0).abs() < 1e-12);
        assert_eq!(names(leaf), ["b", "c"]);
        assert_eq!(names(&leaf.children[0]), ["a"]);
    }
}
