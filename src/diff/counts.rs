//! A row's per-run counts of both its sides in one place, kept small for a
//! million rows: up to two runs in all inside the row, more in one
//! allocation.

use std::fmt;

/// Runs (of both sides together) held inline.
const INLINE: usize = 2;

/// A row's per-run counts: the baseline side's runs, then the compared
/// side's ([`SideCounts::old_runs`], [`SideCounts::new_runs`]).
#[derive(Clone)]
pub struct SideCounts(Repr);

#[derive(Clone)]
enum Repr {
    Inline { old: u8, len: u8, v: [f64; INLINE] },
    Heap { old: u32, v: Box<[f64]> },
}

impl Default for SideCounts {
    fn default() -> Self {
        SideCounts(Repr::Inline {
            old: 0,
            len: 0,
            v: [0.0; INLINE],
        })
    }
}

impl SideCounts {
    /// The counts of `old` runs, then of `new` runs.
    pub fn of(
        old: impl ExactSizeIterator<Item = f64>,
        new: impl ExactSizeIterator<Item = f64>,
    ) -> SideCounts {
        let (n_old, len) = (old.len(), old.len() + new.len());
        let mut all = old.chain(new);
        if len <= INLINE {
            let mut v = [0.0; INLINE];
            for (slot, x) in v.iter_mut().zip(all) {
                *slot = x;
            }
            return SideCounts(Repr::Inline {
                old: n_old as u8,
                len: len as u8,
                v,
            });
        }
        let old = u32::try_from(n_old).expect("fewer than 4 billion runs");
        SideCounts(Repr::Heap {
            old,
            v: all.by_ref().collect(),
        })
    }

    /// Every run's count, the baseline's first.
    fn all(&self) -> (&[f64], usize) {
        match &self.0 {
            Repr::Inline { old, len, v } => (&v[..usize::from(*len)], usize::from(*old)),
            Repr::Heap { old, v } => (v, *old as usize),
        }
    }

    /// The baseline side's runs.
    pub fn old_runs(&self) -> &[f64] {
        let (all, old) = self.all();
        &all[..old]
    }

    /// The compared side's runs.
    pub fn new_runs(&self) -> &[f64] {
        let (all, old) = self.all();
        &all[old..]
    }
}

impl PartialEq for SideCounts {
    fn eq(&self, other: &Self) -> bool {
        self.old_runs() == other.old_runs() && self.new_runs() == other.new_runs()
    }
}

impl fmt::Debug for SideCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SideCounts")
            .field("old", &self.old_runs())
            .field("new", &self.new_runs())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_both_sides() {
        for n_old in 0..4 {
            for n_new in 0..4 {
                let old: Vec<f64> = (0..n_old).map(|i| i as f64 + 0.5).collect();
                let new: Vec<f64> = (0..n_new).map(|i| i as f64 * 3.0 + 0.25).collect();
                let c = SideCounts::of(old.iter().copied(), new.iter().copied());
                assert_eq!(c.old_runs(), &old[..]);
                assert_eq!(c.new_runs(), &new[..]);
                assert_eq!(matches!(c.0, Repr::Inline { .. }), n_old + n_new <= INLINE);
            }
        }
        assert_eq!(std::mem::size_of::<SideCounts>(), 24);
    }
}
