//! Threads' commands, interned: each distinct command is one small id, so
//! that a sample costs an integer lookup, not a string hash or a reference
//! count, and `--comm` is matched once per command, not once per sample.
//!
//! Input: `COMM` records (a thread's new command), `FORK` records (the
//! child inherits its parent's), and samples asking for their thread's
//! command (a thread never named is `:TID`, as perf script shows it).
//! Output: ids, their names, and the thread → command map for `--comm`'s
//! process trees ([`super::procs`]).

use crate::format::filter::CommFilter;
use rustc_hash::FxHashMap;
use std::sync::Arc;

#[derive(Default)]
pub(super) struct Comms {
    by_tid: FxHashMap<i32, u32>,
    names: Vec<Arc<str>>,
    ids: FxHashMap<Arc<str>, u32>,
    /// `--comm`'s verdict per id, once asked.
    verdicts: Vec<Option<bool>>,
}

impl Comms {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        let name: Arc<str> = name.into();
        self.names.push(name.clone());
        self.ids.insert(name, id);
        self.verdicts.push(None);
        id
    }

    /// Thread `tid` is now running `name`.
    pub fn set(&mut self, tid: i32, name: &str) {
        let id = self.intern(name);
        self.by_tid.insert(tid, id);
    }

    /// Thread `to` inherits `from`'s command, if `from` has one.
    pub fn inherit(&mut self, from: i32, to: i32) {
        if let Some(&id) = self.by_tid.get(&from) {
            self.by_tid.insert(to, id);
        }
    }

    /// The command of thread `tid` (else of its process `pid`, else `:TID`).
    pub fn of(&mut self, tid: i32, pid: i32) -> u32 {
        match self.by_tid.get(&tid).or_else(|| self.by_tid.get(&pid)) {
            Some(&id) => id,
            None => self.intern(&format!(":{tid}")),
        }
    }

    pub fn name(&self, id: u32) -> &Arc<str> {
        &self.names[id as usize]
    }

    /// Whether command `id` passes `filter` (matched once per command).
    pub fn passes(&mut self, id: u32, filter: &CommFilter) -> bool {
        let i = id as usize;
        if let Some(v) = self.verdicts[i] {
            return v;
        }
        let v = filter.is_match(&self.names[i]);
        self.verdicts[i] = Some(v);
        v
    }

    /// Each named thread's command.
    pub fn by_tid(&self) -> FxHashMap<i32, Arc<str>> {
        self.by_tid
            .iter()
            .map(|(&tid, &id)| (tid, self.names[id as usize].clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_share_ids_and_inherit_and_unnamed_ones_are_their_tid() {
        let mut c = Comms::default();
        c.set(10, "make");
        c.set(11, "make");
        c.inherit(10, 12);
        c.inherit(99, 13);
        let make = c.of(10, 10);
        assert_eq!(c.of(11, 11), make);
        assert_eq!(c.of(12, 12), make);
        // A thread without a command of its own takes its process's.
        assert_eq!(c.of(14, 10), make);
        let none = c.of(13, 13);
        assert_eq!(&**c.name(none), ":13");
        assert_eq!(c.of(13, 13), none);
        c.set(10, "cc1");
        assert_ne!(c.of(10, 10), make);
        let f = CommFilter::parse("make").unwrap();
        assert!(c.passes(make, &f));
        let cc1 = c.of(10, 10);
        assert!(!c.passes(cc1, &f));
        assert_eq!(c.by_tid().get(&12).map(|s| &**s), Some("make"));
    }
}
