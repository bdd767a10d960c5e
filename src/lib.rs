//! diffprofile: where did the time go between two kernels?
//!
//! The library reads per-symbol profiles (readprofile, perf report, perf
//! script, folded stacks, opreport), aggregates runs per side, tests every
//! symbol's change for significance and renders a signed ranking.
//!
//! The parts are layers, and every part knows only what is below it (the
//! docs/development.md; `scripts/imports.sh` checks it): the face
//! ([`cli`] → [`config`] → [`app`]) runs [`batch`] or one comparison, and
//! both use the [`compare`] engine: load every side ([`load`], via
//! [`input`] and [`format`](mod@format), or from a counts [`table`]) → check them
//! ([`sanity`], [`scope`]) → [`aggregate`] → [`diff`] (using
//! [`significance`] and [`stats`]) → a finished report that [`render`]
//! draws. [`noise_model`] learns run-to-run noise from replicate runs for
//! later comparisons. [`flame`] builds the differential call tree for
//! `-o html` and `-o flamegraph` from the runs' callchains. [`table`]
//! writes results trees as a Parquet counts table for engines (`export`)
//! and reads such a table back as a source.

pub mod aggregate;
pub mod app;
pub mod batch;
pub mod cli;
pub mod compare;
pub mod config;
pub mod diff;
pub mod exit;
pub mod flame;
pub mod format;
pub mod guard;
pub mod history;
pub mod identity;
pub mod input;
pub mod layout;
pub mod load;
pub mod manpage;
pub mod names;
pub mod noise_model;
pub mod profile;
pub mod render;
pub mod sanity;
pub mod scope;
pub mod significance;
pub mod stats;
pub mod symmap;
pub mod table;
pub mod text;
