//! The merged call tree held flat, so that no walk over it recurses and a
//! stack of any depth is safe: nodes in one vector (index 0 the root),
//! each with its parent, its depth and its children as a range of one
//! shared child vector (in name order). Building, finishing, walking and
//! dropping the tree are all loops (a recursive `Vec<Node>` tree would
//! overflow the thread's stack in its own `Drop` on a 100,000-frame chain).
//!
//! Input: one stack at a time (frames root first, a run's index and the
//! stack's weight), through [`Builder::add`]. Output: a [`Tree`] whose nodes
//! hold both sides' inclusive and self shares, and the per-run inclusive
//! counts that [`super::judge`] tests (a count table like the symbols').

use super::UNKNOWN;
use rustc_hash::FxHashMap;

/// What a frame's inclusive change was judged to be.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mark {
    /// Tested, q ≤ α: `*`.
    Significant,
    /// Tested, not significant: `~`.
    Noise,
    /// Too few samples to ever be significant, or counts that are not
    /// sample counts: not tested.
    #[default]
    Untested,
}

impl Mark {
    /// The table's mark: `*`, `~`, or blank.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Significant => "*",
            Mark::Noise => "~",
            Mark::Untested => " ",
        }
    }
}

/// A frame's test of its inclusive change (docs/statistics.md, applied to
/// the frames' per-run inclusive counts): p, q and the Δ interval as
/// fractions of all samples (None when untested).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTest {
    pub p: Option<f64>,
    pub q: Option<f64>,
    pub delta_ci: Option<(f64, f64)>,
    pub mark: Mark,
}

/// One frame of the merged call tree (one path from the root).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    name: u32,
    /// The parent's index (`u32::MAX` for the root).
    pub parent: u32,
    /// 0 for the root.
    pub depth: u32,
    first: u32,
    count: u32,
    /// Inclusive share of the baseline's samples, as a fraction (0..=1).
    pub old_incl: f64,
    pub new_incl: f64,
    /// Self share (stacks ending at this frame), as a fraction.
    pub old_self: f64,
    pub new_self: f64,
    pub test: FrameTest,
}

impl Node {
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

    /// Present in the baseline only.
    pub fn gone(&self) -> bool {
        self.new_incl <= 0.0 && self.old_incl > 0.0
    }

    /// Present on the compared side only.
    pub fn only_new(&self) -> bool {
        self.old_incl <= 0.0 && self.new_incl > 0.0
    }
}

/// The differential call tree: nodes, their names, their children.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    names: Vec<String>,
    nodes: Vec<Node>,
    kids: Vec<u32>,
}

impl Tree {
    /// The root's index (`all`).
    pub const ROOT: u32 = 0;

    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub(super) fn nodes_mut(&mut self) -> &mut [Node] {
        &mut self.nodes
    }

    pub fn root(&self) -> &Node {
        self.node(Self::ROOT)
    }

    pub fn name(&self, i: u32) -> &str {
        &self.names[self.node(i).name as usize]
    }

    /// Node `i`'s children, in name order.
    pub fn children(&self, i: u32) -> &[u32] {
        let n = self.node(i);
        &self.kids[n.first as usize..(n.first + n.count) as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Levels of the tree, the root's included (a root alone: 1).
    pub fn levels(&self) -> usize {
        1 + self
            .nodes
            .iter()
            .map(|n| n.depth as usize)
            .max()
            .unwrap_or(0)
    }

    /// The node at `path` below the root (names as the tree holds them).
    pub fn find(&self, path: &[&str]) -> Option<u32> {
        let mut at = Self::ROOT;
        for want in path {
            let kids = self.children(at);
            let k = kids.binary_search_by(|&c| self.name(c).cmp(want)).ok()?;
            at = kids[k];
        }
        Some(at)
    }

    /// Every node in depth-first order, children in name order (the order
    /// the graph draws them), by an explicit stack.
    pub fn preorder(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![Self::ROOT];
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.children(i).iter().rev());
        }
        out
    }
}

/// A tree being built: stacks go in one at a time; names are interned and
/// children found through one hash map, so a node with 100,000 children
/// costs no more per stack than one with two.
pub(super) struct Builder {
    names: Vec<String>,
    name_ids: FxHashMap<String, u32>,
    name: Vec<u32>,
    parent: Vec<u32>,
    depth: Vec<u32>,
    child: FxHashMap<(u32, u32), u32>,
    /// Per node, its inclusive count in every run (node-major, `runs` wide).
    pub counts: Vec<f64>,
    /// Per node, its self count on each side.
    self_counts: Vec<[f64; 2]>,
    runs: usize,
}

impl Builder {
    /// An empty tree (a root named `all`) over `runs` runs in all.
    pub fn new(runs: usize) -> Builder {
        let mut b = Builder {
            names: Vec::new(),
            name_ids: FxHashMap::default(),
            name: Vec::new(),
            parent: Vec::new(),
            depth: Vec::new(),
            child: FxHashMap::default(),
            counts: Vec::new(),
            self_counts: Vec::new(),
            runs,
        };
        let all = b.intern("all");
        b.push(all, u32::MAX, 0);
        b
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.name_ids.insert(name.to_string(), id);
        id
    }

    fn push(&mut self, name: u32, parent: u32, depth: u32) -> u32 {
        let i = self.name.len() as u32;
        self.name.push(name);
        self.parent.push(parent);
        self.depth.push(depth);
        self.counts.extend(std::iter::repeat_n(0.0, self.runs));
        self.self_counts.push([0.0; 2]);
        i
    }

    /// Add one stack (root first) of run `run` (on the compared side when
    /// `new`) with weight `w`. Consecutive `[unknown]` frames count as one.
    pub fn add<F: AsRef<str>>(
        &mut self,
        frames: impl IntoIterator<Item = F>,
        run: usize,
        new: bool,
        w: f64,
    ) {
        let mut at = Tree::ROOT;
        self.counts[run] += w;
        let mut prev_unknown = false;
        for frame in frames {
            let frame = frame.as_ref();
            // Unwinding through code without frame pointers yields runs of
            // `[unknown]`; one frame says as much and keeps the graph shallow.
            let unknown = frame == UNKNOWN;
            if unknown && prev_unknown {
                continue;
            }
            prev_unknown = unknown;
            let name = self.intern(frame);
            at = match self.child.get(&(at, name)) {
                Some(&c) => c,
                None => {
                    let depth = self.depth[at as usize] + 1;
                    let c = self.push(name, at, depth);
                    self.child.insert((at, name), c);
                    c
                }
            };
            self.counts[at as usize * self.runs + run] += w;
        }
        self.self_counts[at as usize][usize::from(new)] += w;
    }

    /// The finished tree: shares of the pooled exposures `m` (baseline,
    /// compared side), `old_runs` being the first runs of each node's
    /// counts; children sorted by name. The per-run counts are handed back
    /// for the test, in node order.
    pub fn finish(self, m: (f64, f64), old_runs: usize) -> (Tree, Vec<f64>) {
        let Builder {
            names,
            name,
            parent,
            depth,
            counts,
            self_counts,
            runs,
            ..
        } = self;
        let n = name.len();
        let mut nodes: Vec<Node> = (0..n)
            .map(|i| {
                let row = &counts[i * runs..(i + 1) * runs];
                let (old, new) = row.split_at(old_runs);
                Node {
                    name: name[i],
                    parent: parent[i],
                    depth: depth[i],
                    first: 0,
                    count: 0,
                    old_incl: old.iter().sum::<f64>() / m.0,
                    new_incl: new.iter().sum::<f64>() / m.1,
                    old_self: self_counts[i][0] / m.0,
                    new_self: self_counts[i][1] / m.1,
                    test: FrameTest::default(),
                }
            })
            .collect();
        // Children: every node but the root, by (parent, name).
        let mut kids: Vec<u32> = (1..n as u32).collect();
        kids.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            parent[a]
                .cmp(&parent[b])
                .then_with(|| names[name[a] as usize].cmp(&names[name[b] as usize]))
        });
        let mut k = 0;
        while k < kids.len() {
            let p = parent[kids[k] as usize] as usize;
            let start = k;
            while k < kids.len() && parent[kids[k] as usize] as usize == p {
                k += 1;
            }
            nodes[p].first = start as u32;
            nodes[p].count = (k - start) as u32;
        }
        (Tree { names, nodes, kids }, counts)
    }
}
