//! Processes of a recording, for the process filters: who forked whom
//! (fork records), so that `--pid P` keeps P's descendants too, and which
//! processes `--comm` kept, grouped into trees, so that a name shared by
//! unrelated processes (another user's `make`, a second job) is said.
//!
//! perf writes a fork record for every process that already ran when the
//! recording started (its parent from `/proc/PID/status`, before the first
//! sample) and one for each process forked while it ran. Two kept
//! processes are of one tree when one was forked from the other during the
//! recording, or when the parent is itself a process of the kept name (a
//! daemon's workers). Input: fork records and kept samples, in time order.
//! Output: each tree's top PID and its kept samples.

use crate::format::filter::{CommFilter, PidFilter};
use rustc_hash::FxHashMap;
use std::sync::Arc;

#[derive(Default)]
pub(super) struct Procs {
    /// pid → (parent pid, forked while recording).
    parent: FxHashMap<i32, (i32, bool)>,
    /// Whether a sample was seen: forks after it happened while recording.
    started: bool,
    /// `--pid`: whether a process is of the listed ones' trees, per pid.
    listed: FxHashMap<i32, bool>,
    /// `--comm`: samples kept, per process.
    kept: FxHashMap<i32, f64>,
}

/// Forks followed up from a process, at most (a loop in damaged records).
const MAX_DEPTH: usize = 4096;

impl Procs {
    /// A fork record of a new process (not a thread).
    pub fn fork(&mut self, pid: i32, ppid: i32) {
        self.parent.insert(pid, (ppid, self.started));
        // A reused pid is a new process.
        self.listed.remove(&pid);
    }

    pub fn sample_seen(&mut self) {
        self.started = true;
    }

    /// Whether `pid` is listed by `filter` or descends from a listed process.
    pub fn in_trees(&mut self, pid: i32, filter: &PidFilter) -> bool {
        if let Some(&known) = self.listed.get(&pid) {
            return known;
        }
        let (mut p, mut yes) = (pid, false);
        for _ in 0..MAX_DEPTH {
            if filter.lists(p) {
                yes = true;
                break;
            }
            match self.parent.get(&p) {
                Some(&(pp, _)) if pp != p && pp > 0 => p = pp,
                _ => break,
            }
        }
        self.listed.insert(pid, yes);
        yes
    }

    /// A sample of process `pid` that `--comm` kept.
    pub fn kept(&mut self, pid: i32, weight: f64) {
        *self.kept.entry(pid).or_insert(0.0) += weight;
    }

    /// The kept processes' trees: (top pid, kept samples), largest first
    /// (ties by pid).
    pub fn trees(&self, comms: &FxHashMap<i32, Arc<str>>, filter: &CommFilter) -> Vec<(i32, f64)> {
        let mut tops: FxHashMap<i32, f64> = FxHashMap::default();
        for (&pid, &w) in &self.kept {
            *tops.entry(self.top(pid, comms, filter)).or_insert(0.0) += w;
        }
        let mut out: Vec<(i32, f64)> = tops.into_iter().collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }

    /// The top of `pid`'s tree: up through parents that forked their child
    /// while recording or that bear a kept name.
    fn top(&self, pid: i32, comms: &FxHashMap<i32, Arc<str>>, filter: &CommFilter) -> i32 {
        let mut p = pid;
        for _ in 0..MAX_DEPTH {
            let Some(&(pp, live)) = self.parent.get(&p) else {
                break;
            };
            let named = comms.get(&pp).is_some_and(|c| filter.is_match(c));
            if pp == p || pp <= 0 || !(live || named) {
                break;
            }
            p = pp;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comms(list: &[(i32, &str)]) -> FxHashMap<i32, Arc<str>> {
        list.iter().map(|&(p, c)| (p, Arc::from(c))).collect()
    }

    /// A workload forked during the recording is one tree; another user's
    /// process of the same name that ran before is another.
    #[test]
    fn trees_of_a_shared_name() {
        let mut p = Procs::default();
        // Before the first sample: bash (100), another user's make (300).
        p.fork(100, 1);
        p.fork(300, 1);
        p.sample_seen();
        // The workload: make 200 from bash, its children 201, 202.
        p.fork(200, 100);
        p.fork(201, 200);
        p.fork(202, 201);
        for (pid, w) in [(200, 1.0), (201, 5.0), (202, 4.0), (300, 3.0)] {
            p.kept(pid, w);
        }
        let c = comms(&[(1, "init"), (100, "bash"), (200, "make"), (300, "make")]);
        let f = CommFilter::parse("make").unwrap();
        // bash forked make while recording: the tree's top is bash.
        assert_eq!(p.trees(&c, &f), vec![(100, 10.0), (300, 3.0)]);
    }

    /// A daemon's workers that ran before the recording are one tree with
    /// their parent of the same name.
    #[test]
    fn workers_of_one_daemon() {
        let mut p = Procs::default();
        for (pid, ppid) in [(10, 1), (11, 10), (12, 10)] {
            p.fork(pid, ppid);
        }
        p.sample_seen();
        p.kept(11, 2.0);
        p.kept(12, 2.0);
        let c = comms(&[(1, "init"), (10, "nginx"), (11, "nginx"), (12, "nginx")]);
        let f = CommFilter::parse("nginx").unwrap();
        assert_eq!(p.trees(&c, &f), vec![(10, 4.0)]);
    }

    #[test]
    fn pid_keeps_descendants() {
        let mut p = Procs::default();
        p.fork(200, 100);
        p.fork(201, 200);
        p.fork(300, 1);
        let f = PidFilter::parse("200").unwrap();
        assert!(p.in_trees(200, &f) && p.in_trees(201, &f));
        assert!(!p.in_trees(100, &f) && !p.in_trees(300, &f) && !p.in_trees(999, &f));
        // A pid reused by a new process is judged again.
        p.fork(300, 201);
        assert!(p.in_trees(300, &f));
        // A loop in damaged records ends.
        p.fork(400, 401);
        p.fork(401, 400);
        assert!(!p.in_trees(400, &f));
    }
}
