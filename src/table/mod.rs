//! The counts table: diffprofile's runs as one long Parquet table that
//! engines (DuckDB, Spark, Trino) query at archive scale, and that
//! diffprofile reads back as a source. [`export`] writes it from results
//! trees ([`tree`], [`pipeline`], [`maps`], [`rows`], [`writer`]);
//! [`reader`] reads it back, in any layout and encoding an engine writes
//! ([`files`], [`columns`]), keeping the runs a selector names
//! ([`select`]). [`crate::compare`] takes the sides of `diffprofile --table
//! FILE --old SEL --new SEL` and the runs of `diffprofile batch TABLE` from
//! it.

pub mod columns;
pub mod export;
pub mod files;
mod footer;
pub use footer::Bounded;
pub mod maps;
pub mod pipeline;
pub mod reader;
pub mod rows;
pub mod schema;
pub mod select;
pub mod series;
pub mod tree;
pub mod writer;

use crate::aggregate::RunInfo;
use crate::identity::Identity;
use crate::layout::Layout;
use crate::load::LoadOptions;
use anyhow::{bail, Result};
use select::Selector;

/// `diffprofile export`, validated.
#[derive(Clone, Debug)]
pub struct ExportConfig {
    pub roots: Vec<String>,
    pub out: String,
    pub layout: Layout,
    pub shard: Option<Shard>,
    /// The worker threads of `--jobs` (all cores by default).
    pub jobs: Option<usize>,
    /// How runs are read.
    pub load: LoadOptions,
    /// How symbols are named and placed.
    pub identity: Identity,
    /// `--run-info`: each run's work count.
    pub run_info: RunInfo,
    /// Statements for the table's metadata (filters, weights).
    pub notes: Vec<String>,
}

/// `--shard K/N`: the K-th of N (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard> {
        let parsed = text
            .split_once('/')
            .and_then(|(k, n)| Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?)));
        match parsed {
            Some((index, count)) if index >= 1 && index <= count => Ok(Shard { index, count }),
            _ => bail!("--shard {text}: expected K/N with 1 <= K <= N (the K-th of N shards)"),
        }
    }

    /// Whether run group number `group` (0-based) is in this shard.
    pub fn takes(&self, group: usize) -> bool {
        group % self.count == self.index - 1
    }
}

/// `--table FILE` with its selectors: those of each side (a run is on a
/// side when any of them accepts it), and `--where`, which every run must
/// also pass.
#[derive(Clone, Debug)]
pub struct TableSpec {
    pub path: String,
    /// Per side: its selectors and how they read in the header.
    pub sides: Vec<(Vec<Selector>, String)>,
    pub filter: Option<(Selector, String)>,
}

impl TableSpec {
    /// `sides`: each side's selectors as given (`--old`, `--new`, or one
    /// positional argument per side).
    pub fn new(path: &str, sides: &[Vec<String>], filter: Option<&str>) -> Result<TableSpec> {
        let filter = filter
            .map(|t| Ok::<_, anyhow::Error>((Selector::parse(t, "--where")?, t.to_string())))
            .transpose()?;
        let sides = sides
            .iter()
            .map(|texts| {
                let sels = texts
                    .iter()
                    .map(|t| {
                        let s = Selector::parse(t, "selector")?;
                        Ok(match &filter {
                            Some((w, _)) => s.and(w),
                            None => s,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let mut label = texts.join(" ");
                if let Some((_, w)) = &filter {
                    label = format!("{label} where {w}");
                }
                Ok((sels, label))
            })
            .collect::<Result<_>>()?;
        Ok(TableSpec {
            path: path.to_string(),
            sides,
            filter,
        })
    }
}
