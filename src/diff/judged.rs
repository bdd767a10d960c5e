//! A row's verdict (p, q, mark, intervals, dispersion), not held in the
//! row: the row points into its comparison's compact table of verdicts
//! ([`significance::Verdicts`]), shared by every row of it, so a million
//! rows carry 16 bytes each for it instead of over a hundred.

use crate::significance::{Verdict, Verdicts};
use std::fmt;
use std::sync::Arc;

/// Where a row's verdict is; the default is "untested".
#[derive(Clone, Default)]
pub struct Judged {
    table: Option<Arc<Table>>,
    at: u32,
}

enum Table {
    /// A comparison's verdicts; Δ's interval scaled to the output unit.
    Rows { verdicts: Verdicts, scale: f64 },
    /// One verdict of its own (rows made by hand).
    One(Verdict),
}

/// The verdicts of one comparison's rows, in the order they were judged.
pub struct Shared(Arc<Table>);

impl Shared {
    pub fn new(verdicts: Verdicts, scale: f64) -> Shared {
        Shared(Arc::new(Table::Rows { verdicts, scale }))
    }

    /// The verdict of the row judged at position `at`.
    pub fn row(&self, at: usize) -> Judged {
        Judged {
            table: Some(Arc::clone(&self.0)),
            at: at as u32,
        }
    }
}

impl Judged {
    /// A verdict of its own.
    pub fn of(v: Verdict) -> Judged {
        Judged {
            table: Some(Arc::new(Table::One(v))),
            at: 0,
        }
    }

    pub fn get(&self) -> Verdict {
        match self.table.as_deref() {
            None => Verdict::default(),
            Some(Table::One(v)) => *v,
            Some(Table::Rows { verdicts, scale }) => {
                let mut v = verdicts.get(self.at as usize);
                v.delta_ci = v.delta_ci.map(|(lo, hi)| (lo * scale, hi * scale));
                v
            }
        }
    }
}

impl PartialEq for Judged {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl fmt::Debug for Judged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.get(), f)
    }
}
