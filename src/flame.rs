//! The two-sided call tree behind the differential flame graph.
//!
//! Input: the runs of each side with their `Profile::stacks` (callchains,
//! root first, summed weights). Each side's stacks are pooled over its runs
//! and divided by the pooled total of those runs (`Profile::total`, every
//! sample before filters, as `--normalize share` does), so a frame's value is
//! a share of all samples (of the samples kept, with `--percentage
//! relative`, as the table's shares). Output: one [`Flame`] per compared side: the
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
//!
//! Every frame's inclusive change is tested ([`judge`]) with the model the
//! table's rows use, over the frames' per-run inclusive counts. The tree is
//! flat ([`Tree`]): no walk over it recurses, so stacks of any depth are
//! safe.

mod judge;
mod tree;

pub use judge::FrameNoise;
pub use tree::{FrameTest, Mark, Node, Tree};

use crate::aggregate::Side;
use crate::identity::Identity;
use crate::profile::Profile;
use crate::significance;
use tree::Builder;

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
    /// `--percentage relative`: shares of the samples the filters kept
    /// (each run's stacks), not of all its samples.
    pub relative: bool,
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
        if self.relative {
            parts.push("shares of the samples the filters kept (--percentage relative)");
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// One stack (root first) of `run` as this view shows it.
    pub fn shape<'a>(&self, stack: &'a [String], run: &Profile) -> Vec<&'a str> {
        let mut frames: Vec<&str> = stack.iter().map(String::as_str).collect();
        // `--kernel-only`: the runs are read whole (their noise is learned
        // from every symbol); a stack whose leaf is not a kernel frame is
        // a user-space sample, left out here as the rows leave it out.
        if self.kernel_only
            && frames
                .last()
                .is_none_or(|f| !run.kernel_frames.contains(*f))
        {
            return Vec::new();
        }
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

/// The differential call tree of the baseline and one compared side.
#[derive(Clone, Debug, PartialEq)]
pub struct Flame {
    /// Index of the compared side in the report's sides.
    pub side: usize,
    /// The merged tree; its root (`all`) holds the shares of the samples
    /// that have stacks (after filters).
    pub tree: Tree,
    /// Runs whose stacks went in, per side (baseline, compared).
    pub runs: (usize, usize),
    /// Every run of both sides recorded without `-g`: each stack is a
    /// leaf alone, so the graph has no callers.
    pub leaves_only: bool,
    /// How the stacks were shaped.
    pub view: FlameView,
    /// How the frames' inclusive changes were judged.
    pub tests: FrameNoise,
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
    /// Runs whose every stack is one frame: recorded without `-g`, so
    /// their flame graph is their leaves alone.
    pub leaves_only: Vec<String>,
}

impl Flames {
    /// What the report must say of the graphs: runs without call chains,
    /// whose frames are leaves only (one warning, naming up to
    /// [`crate::sanity::LIST_MAX`] of them).
    pub fn warnings(&self) -> Vec<String> {
        let n = self.leaves_only.len();
        if n == 0 || self.graphs.is_empty() {
            return Vec::new();
        }
        let mut named: Vec<&str> = self
            .leaves_only
            .iter()
            .take(crate::sanity::LIST_MAX)
            .map(String::as_str)
            .collect();
        let more = format!("and {} more", n - named.len());
        if n > named.len() {
            named.push(&more);
        }
        let runs = if n == 1 {
            named.join(", ")
        } else {
            format!("{n} runs ({})", named.join(", "))
        };
        vec![format!(
            "no call chains in {runs}: recorded without -g; the flame graph shows leaves only \
             (perf record -g records the callers)"
        )]
    }

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

/// A side's runs that have stacks, and each one's exposure: its total
/// samples (every sample before filters, as `--normalize share` divides
/// by), or the sum of its stacks (the samples kept) when it has no total
/// or with `--percentage relative`. None when a side
/// has no such run or an exposure is not a positive number.
fn stacked_runs(side: &Side, relative: bool) -> Option<(Vec<&Profile>, Vec<f64>)> {
    let runs: Vec<&Profile> = side.runs.iter().filter(|r| !r.stacks.is_empty()).collect();
    let exposures: Vec<f64> = runs
        .iter()
        .map(|r| {
            if r.total > 0.0 && !relative {
                r.total
            } else {
                r.stacks.values().sum()
            }
        })
        .collect();
    let usable = !runs.is_empty() && exposures.iter().all(|e| e.is_finite() && *e > 0.0);
    usable.then_some((runs, exposures))
}

/// Pool `runs` (the `first`-th run onwards of the tree's columns) into the tree.
fn pool(
    tree: &mut Builder,
    runs: &[&Profile],
    (first, new): (usize, bool),
    identity: &Identity,
    view: &FlameView,
) {
    for (k, r) in runs.iter().enumerate() {
        for (stack, w) in &r.stacks {
            let shaped = view.shape(stack, r);
            if shaped.is_empty() || !w.is_finite() {
                continue;
            }
            let frames = shaped.into_iter().map(|f| identity.frame_name(f));
            tree.add(frames, first + k, new, *w);
        }
    }
}

/// The flame graphs of `sides` (the first is the baseline), stacks shaped
/// by `view`, every frame's inclusive change judged with `tests` (the
/// comparison's `--alpha`, `--adjust`, `--noise-cv`, and whether its counts
/// are sample counts).
pub fn build(
    sides: &[Side],
    identity: &Identity,
    view: FlameView,
    tests: &significance::Options,
) -> Flames {
    let mut out = Flames::default();
    for s in sides {
        for r in &s.runs {
            if r.stacks.is_empty() {
                out.without.push(r.source.clone());
            } else {
                out.with.push(r.source.clone());
                if r.stacks.keys().all(|s| s.len() <= 1) {
                    out.leaves_only.push(r.source.clone());
                }
            }
        }
    }
    let Some(base) = sides.first().and_then(|s| stacked_runs(s, view.relative)) else {
        return out;
    };
    for (j, side) in sides.iter().enumerate().skip(1) {
        let Some(other) = stacked_runs(side, view.relative) else {
            continue;
        };
        let (n_old, n_new) = (base.0.len(), other.0.len());
        let mut b = Builder::new(n_old + n_new);
        pool(&mut b, &base.0, (0, false), identity, &view);
        pool(&mut b, &other.0, (n_old, true), identity, &view);
        let m = (base.1.iter().sum(), other.1.iter().sum());
        let (mut tree, counts) = b.finish(m, n_old);
        let tests = judge::judge(&mut tree, &counts, (&base.1, &other.1), tests);
        let leaves_only = base
            .0
            .iter()
            .chain(&other.0)
            .all(|r| r.stacks.keys().all(|s| s.len() <= 1));
        out.graphs.push(Flame {
            side: j,
            tree,
            runs: (n_old, n_new),
            leaves_only,
            view,
            tests,
        });
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
    use crate::stats::Adjust;

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

    pub(crate) fn opts() -> significance::Options {
        significance::Options {
            alpha: 0.05,
            adjust: Adjust::Bh,
            noise_cv: None,
            testable: true,
            shares: true,
            filter: false,
        }
    }

    fn graphs(sides: &[Side], identity: &Identity, view: FlameView) -> Flames {
        build(sides, identity, view, &opts())
    }

    fn names(t: &Tree, i: u32) -> Vec<&str> {
        t.children(i).iter().map(|&c| t.name(c)).collect()
    }

    #[test]
    fn relative_shares_are_of_the_kept_samples() {
        // 40 of each run's 100 samples were kept by a filter.
        let r = || run(&[("a;b", 30.0), ("a", 10.0)], 100.0);
        let sides = [side("old", vec![r()]), side("new", vec![r()])];
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        let abs = graphs(&sides, &Identity::default(), FlameView::default());
        assert!(close(abs.graphs[0].tree.root().old_incl, 0.4));
        let view = FlameView {
            relative: true,
            ..FlameView::default()
        };
        let rel = graphs(&sides, &Identity::default(), view);
        let t = &rel.graphs[0].tree;
        assert!(close(t.root().old_incl, 1.0) && close(t.root().new_incl, 1.0));
        let b = t.node(t.find(&["a", "b"]).unwrap());
        assert!(close(b.old_incl, 0.75), "{b:?}");
        assert!(view.describe().unwrap().contains("--percentage relative"));
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
        let f = graphs(&[old, new], &Identity::default(), FlameView::default());
        assert_eq!(f.graphs.len(), 1);
        let t = &f.graphs[0].tree;
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(close(t.root().old_incl, 1.0) && close(t.root().new_incl, 1.0));
        let a = t.find(&["a"]).unwrap();
        assert!(close(t.node(a).old_self, 0.2) && close(t.node(a).new_self, 0.0));
        assert_eq!(names(t, a), ["b", "c", "d"]);
        let c = t.node(t.find(&["a", "c"]).unwrap());
        assert!(close(c.old_incl, 0.2) && close(c.new_incl, 0.0));
        assert!(c.width() > 0.0, "vanished frame keeps a width");
        assert!(c.gone() && !c.only_new());
        let b = t.node(t.find(&["a", "b"]).unwrap());
        assert!((b.incl_delta() + 0.1).abs() < 1e-12);
        let sum: f64 = t.children(a).iter().map(|&k| t.node(k).width()).sum();
        assert!(sum <= t.node(a).width() + 1e-12);
        assert_eq!(t.levels(), 4, "runs of [unknown] collapse to one frame");
        assert_eq!(t.preorder().len(), t.len());
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
        let f = graphs(&[old.clone(), new.clone()], &identity, FlameView::default());
        let t = &f.graphs[0].tree;
        assert_eq!(t.levels(), 4);
        let leaf = t.node(t.find(&["main", "work", "__d_lookup"]).unwrap());
        assert!(leaf.old_self == 1.0 && leaf.new_self == 1.0);
        // --keep-suffixes and no aliases: two branches.
        let f = graphs(&[old, new], &Identity::default(), FlameView::default());
        let t = &f.graphs[0].tree;
        assert_eq!(t.children(t.find(&["main"]).unwrap()).len(), 2);
    }

    #[test]
    fn no_stacks_says_which_inputs() {
        let old = side("old", vec![run(&[("a", 1.0)], 1.0)]);
        let mut plain = Profile::new("plain.txt", Format::Readprofile);
        plain.total = 1.0;
        let new = side("new", vec![plain]);
        let f = graphs(&[old, new], &Identity::default(), FlameView::default());
        assert!(f.graphs.is_empty());
        let why = f.missing_reason().unwrap_or_default();
        assert!(why.contains("without: plain.txt"), "{why}");
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
        let f = graphs(&sides, &Identity::default(), view);
        let t = &f.graphs[0].tree;
        assert_eq!(names(t, Tree::ROOT), ["entry_SYSCALL_64"]);
        let entry = t.find(&["entry_SYSCALL_64"]).unwrap();
        assert_eq!(names(t, entry), ["ksys_read", "ksys_write"]);
        // A stack whose leaf is not a kernel frame is a user-space sample:
        // the runs are read whole (the rows' noise is learned from every
        // symbol), and the view leaves it out as the rows do.
        assert!(t.find(&["main"]).is_none());
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
        let plain = graphs(&sides, &Identity::default(), FlameView::default());
        let t = &plain.graphs[0].tree;
        assert_eq!(t.children(Tree::ROOT).len(), 2, "two disjoint halves");
        let view = FlameView {
            merge_roots: true,
            ..FlameView::default()
        };
        let merged = graphs(&sides, &Identity::default(), view);
        let t = &merged.graphs[0].tree;
        assert_eq!(names(t, Tree::ROOT), ["__GI___libc_write"]);
        let w = t.node(t.children(Tree::ROOT)[0]);
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
        let f = graphs(
            &[side("old", vec![r.clone()]), side("new", vec![r])],
            &Identity::default(),
            view,
        );
        let t = &f.graphs[0].tree;
        assert_eq!(names(t, Tree::ROOT), ["b", "leaf"]);
        let leaf = t.find(&["leaf"]).unwrap();
        assert!((t.node(leaf).old_incl - 4.0 / 6.0).abs() < 1e-12);
        assert_eq!(names(t, leaf), ["b", "c"]);
        assert_eq!(names(t, t.find(&["leaf", "b"]).unwrap()), ["a"]);
    }

    /// A chain of 100,000 frames is built, walked, cloned, compared and
    /// dropped without recursion (each would overflow a 2 MiB stack when
    /// recursive), on a thread with a small stack to prove it.
    #[test]
    fn a_100000_frame_stack_needs_no_deep_recursion() {
        let deep: Vec<String> = (0..100_000).map(|i| format!("f{i}")).collect();
        let work = move || {
            let mut r = Profile::new("deep", Format::Folded);
            r.stacks.insert(deep.clone(), 90.0);
            r.stacks.insert(vec!["a".into()], 10.0);
            r.total = 100.0;
            let mut r2 = r.clone();
            r2.stacks.insert(deep, 60.0);
            r2.stacks.insert(vec!["a".into()], 40.0);
            let sides = [side("old", vec![r]), side("new", vec![r2])];
            let f = graphs(&sides, &Identity::default(), FlameView::default());
            let t = &f.graphs[0].tree;
            assert_eq!(t.levels(), 100_001);
            assert_eq!(t.preorder().len(), 100_002);
            let leaf = t.node(t.nodes().len() as u32 - 1);
            assert_eq!(leaf.depth, 100_000);
            assert!((leaf.incl_delta() + 0.3).abs() < 1e-12);
            let copy = f.clone();
            assert_eq!(copy, f);
        };
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(work)
            .unwrap()
            .join()
            .unwrap();
    }

    /// Each frame is tested as the table's rows are: a frame whose share
    /// moved far beyond the runs' noise is `*`, one that moved within it
    /// `~`, a rare one untested; counts that are not samples: untested.
    #[test]
    fn frames_are_judged_with_the_rows_model() {
        // Every run has 3,000 samples: `calm` keeps its share (within
        // the runs' jitter), `big` triples, `rest` gives way.
        // `rare` has 2 samples in all: never significant, untested.
        let mk = |big: f64, jitter: f64| {
            let calm = 500.0 + jitter;
            let rare = if jitter == 0.0 { 1.0 } else { 0.0 };
            let mut r = run(
                &[
                    ("main;big", big),
                    ("main;calm", calm),
                    ("main;rest", 3000.0 - big - calm - rare),
                    ("main;rare", rare),
                ],
                3000.0,
            );
            r.stacks.retain(|_, w| *w > 0.0);
            r
        };
        let jitters = [0.0, 14.0, -9.0];
        let old = side("old", jitters.iter().map(|&j| mk(300.0, j)).collect());
        let new = side("new", jitters.iter().map(|&j| mk(900.0, -j)).collect());
        let f = graphs(
            &[old.clone(), new.clone()],
            &Identity::default(),
            FlameView::default(),
        );
        let g = &f.graphs[0];
        let t = &g.tree;
        let mark = |p: &[&str]| t.node(t.find(p).unwrap()).test.mark;
        assert_eq!(mark(&["main", "big"]), Mark::Significant);
        assert_eq!(mark(&["main", "calm"]), Mark::Noise);
        assert_eq!(mark(&["main", "rare"]), Mark::Untested);
        let big = t.node(t.find(&["main", "big"]).unwrap());
        let (lo, hi) = big.test.delta_ci.unwrap();
        assert!(lo > 0.0 && lo <= big.incl_delta() && big.incl_delta() <= hi);
        assert!(g.tests.tested >= 3 && g.tests.worse >= 1, "{:?}", g.tests);
        let plain = significance::Options {
            testable: false,
            ..opts()
        };
        let f = build(
            &[old, new],
            &Identity::default(),
            FlameView::default(),
            &plain,
        );
        assert!(f.graphs[0]
            .tree
            .nodes()
            .iter()
            .all(|n| n.test.mark == Mark::Untested));
    }
}
