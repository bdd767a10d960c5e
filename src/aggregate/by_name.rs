//! Maps keyed by symbols, looked up by the name's id in a vector (one
//! memory access, not a hash and a probe) when the process has not many
//! more names than the map has keys; hashed otherwise (a batch process
//! with millions of names and a small comparison).

use crate::names::{self, Name};
use rustc_hash::FxHashMap;
use std::hash::Hash;

/// A key with a name.
pub trait Named: Copy + Eq + Hash {
    fn name(&self) -> Name;
}

/// Keys to values, in insertion order.
pub struct ByName<K, V> {
    /// By name id: 1 + the index of the first entry of that name, or 0.
    first: Vec<u32>,
    dense: bool,
    entries: Vec<(K, V)>,
    /// Entries not found through `first` (another key of the same name,
    /// or every entry when not dense).
    more: FxHashMap<K, u32>,
}

impl<K, V> Default for ByName<K, V> {
    fn default() -> Self {
        ByName {
            first: Vec::new(),
            dense: false,
            entries: Vec::new(),
            more: FxHashMap::default(),
        }
    }
}

impl<K: Named, V> ByName<K, V> {
    /// A map for about `n` keys.
    pub fn with_capacity(n: usize) -> Self {
        let ids = names::count();
        let dense = ids <= 4 * n.max(1 << 16);
        ByName {
            first: if dense { vec![0; ids + 1] } else { Vec::new() },
            dense,
            entries: Vec::with_capacity(n),
            more: FxHashMap::default(),
        }
    }

    fn find(&self, key: &K) -> Option<usize> {
        if self.dense {
            let at = self
                .first
                .get(key.name().id() as usize)
                .copied()
                .unwrap_or(0);
            if at != 0 && self.entries[at as usize - 1].0 == *key {
                return Some(at as usize - 1);
            }
            if self.more.is_empty() {
                return None;
            }
        }
        self.more.get(key).map(|&i| i as usize)
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        self.find(key).map(|i| &self.entries[i].1)
    }

    /// The value of `key`, made by `make` when it is new; and whether it was.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> (&mut V, bool) {
        if let Some(i) = self.find(&key) {
            return (&mut self.entries[i].1, false);
        }
        let i = self.entries.len();
        let id = key.name().id() as usize;
        if self.dense && id >= self.first.len() {
            self.first.resize(id + 1, 0);
        }
        match self.first.get_mut(id) {
            Some(slot @ 0) if self.dense => *slot = i as u32 + 1,
            _ => {
                self.more.insert(key, i as u32);
            }
        }
        self.entries.push((key, make()));
        (&mut self.entries[i].1, true)
    }

    /// The value of the `i`-th entry inserted.
    pub fn value_at_mut(&mut self, i: usize) -> &mut V {
        &mut self.entries[i].1
    }

    /// Every entry, in insertion order.
    pub fn into_entries(self) -> Vec<(K, V)> {
        self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
    struct K(Name, u8);
    impl Named for K {
        fn name(&self) -> Name {
            self.0
        }
    }

    #[test]
    fn keys_of_one_name_and_late_names() {
        let mut m: ByName<K, u32> = ByName::with_capacity(4);
        let a = Name::new("by-name-test-a");
        for (k, v) in [(K(a, 0), 1), (K(a, 1), 2), (K(a, 0), 9)] {
            let (slot, new) = m.get_or_insert_with(k, || v);
            assert_eq!(new, v != 9);
            assert_eq!(*slot, if v == 9 { 1 } else { v });
        }
        // A name interned after the map was made.
        let late = K(Name::new("by-name-test-late"), 0);
        assert_eq!(m.get(&late), None);
        m.get_or_insert_with(late, || 3);
        assert_eq!(m.get(&late), Some(&3));
        assert_eq!(m.get(&K(a, 1)), Some(&2));
        assert_eq!(m.get(&K(a, 2)), None);
        let order: Vec<u32> = m.into_entries().into_iter().map(|e| e.1).collect();
        assert_eq!(order, [1, 2, 3]);
    }
}
