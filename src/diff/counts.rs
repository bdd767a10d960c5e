//! A row's per-run counts of one side: up to two runs held in the row
//! itself (no allocation: a million rows of one or two runs a side), more
//! on the heap. Reads as a slice.

use std::fmt;
use std::ops::Deref;

/// Runs held inline.
const INLINE: usize = 2;

#[derive(Clone)]
pub enum RunCounts {
    Inline(u8, [f64; INLINE]),
    Heap(Box<[f64]>),
}

impl Default for RunCounts {
    fn default() -> Self {
        RunCounts::Inline(0, [0.0; INLINE])
    }
}

impl Deref for RunCounts {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        match self {
            RunCounts::Inline(n, v) => &v[..usize::from(*n)],
            RunCounts::Heap(v) => v,
        }
    }
}

impl FromIterator<f64> for RunCounts {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut it = iter.into_iter();
        let mut v = [0.0; INLINE];
        for (n, slot) in v.iter_mut().enumerate() {
            match it.next() {
                Some(x) => *slot = x,
                None => return RunCounts::Inline(n as u8, v),
            }
        }
        match it.next() {
            None => RunCounts::Inline(INLINE as u8, v),
            Some(x) => {
                let mut all = v.to_vec();
                all.push(x);
                all.extend(it);
                RunCounts::Heap(all.into_boxed_slice())
            }
        }
    }
}

impl<'a> IntoIterator for &'a RunCounts {
    type Item = &'a f64;
    type IntoIter = std::slice::Iter<'a, f64>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl From<Vec<f64>> for RunCounts {
    fn from(v: Vec<f64>) -> Self {
        v.into_iter().collect()
    }
}

impl PartialEq for RunCounts {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl PartialEq<Vec<f64>> for RunCounts {
    fn eq(&self, other: &Vec<f64>) -> bool {
        **self == **other
    }
}

impl fmt::Debug for RunCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_what_was_collected() {
        for n in 0..6 {
            let v: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
            let c: RunCounts = v.iter().copied().collect();
            assert_eq!(&*c, &v[..]);
            assert_eq!(c, v);
            assert_eq!(matches!(c, RunCounts::Inline(..)), n <= INLINE);
        }
        assert_eq!(std::mem::size_of::<RunCounts>(), 24);
    }
}
