//! What one comparison is asked to do, as data: the sides, how runs are
//! read, named, aggregated, compared and rendered. [`crate::config`] builds
//! it from the command line.

use crate::aggregate::RunInfo;
use crate::diff::DiffOptions;
use crate::flame::FlameView;
use crate::identity::Identity;
use crate::load::LoadOptions;
use crate::render::{ColorArg, OutputFormat, RenderOptions};

/// One side as the user named it.
#[derive(Clone, Debug)]
pub struct SideSpec {
    pub name: String,
    pub paths: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub sides: Vec<SideSpec>,
    pub load: LoadOptions,
    pub diff: DiffOptions,
    pub output: OutputFormat,
    pub render: RenderOptions,
    pub run_info: RunInfo,
    pub jobs: Option<usize>,
    pub fail_on_regression: bool,
    /// `--allow-duplicates`: runs of one side with the same counts are a
    /// warning, not an error.
    pub allow_duplicates: bool,
    /// `--color`; resolved against the terminal and `NO_COLOR` by the app layer.
    pub color: ColorArg,
    pub identity: Identity,
    /// `--percentage relative`: shares of the samples the filters kept.
    pub relative: bool,
    /// Statements for the report header (filters, weights).
    pub notes: Vec<String>,
    /// `--noise-model FILE` or `--noise-from RUNS…`, loaded by the app layer.
    pub noise: Option<NoiseSpec>,
    /// `-O FILE`: the report goes there instead of stdout.
    pub output_file: Option<String>,
    /// `--top` was given (else a terminal gets [`crate::config::TERMINAL_TOP`] rows of each sign).
    pub top_given: bool,
    /// How flame graph stacks are shaped (`--kernel-only`,
    /// `--flame-merge-roots`, `--flame-reverse`).
    pub flame: FlameView,
    /// `--table FILE`: the sides are selectors of the table's runs.
    pub table: Option<crate::table::TableSpec>,
}

/// Where a comparison's noise model comes from (docs/statistics.md §5.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoiseSpec {
    /// A model file written by `diffprofile noise-model`.
    File(String),
    /// Replicate runs to learn it from first.
    Runs(Vec<String>),
}
