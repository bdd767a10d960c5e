//! diffprofile: where did the time go between two kernels?
//!
//! The library reads per-symbol profiles (readprofile, perf report, perf
//! script, folded stacks, opreport), aggregates runs per side, tests every
//! symbol's change for significance and renders a signed ranking.

pub mod format;
pub mod profile;
pub mod stats;
