//! A counts table as the source of a comparison's sides (`--table FILE
//! --old SEL --new SEL`) or of `batch`'s runs, each with the configuration
//! that places symbols as the export did, so that numbers equal those from
//! the files.

use super::Config;
use crate::aggregate::Side;
use crate::identity::Identity;
use crate::profile::Profile;
use crate::table::reader::{self, Table, TableRun};
use crate::table::select::{Filter, Selector};
use crate::table::{files, TableSpec};
use anyhow::{bail, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The runs of `--table` for each side, the configuration to compare them
/// with (symbols placed as on export, work counts from the table), and the
/// warnings about the selection ([`shared_runs`]).
pub fn load_sides(config: &Config, spec: &TableSpec) -> Result<(Config, Vec<Side>, Vec<String>)> {
    refuse_read_options(config, "--table")?;
    let all: Vec<Selector> = spec.sides.iter().flat_map(|(s, _)| s.clone()).collect();
    let mut table = reader::read(&spec.path, &Filter::any_of(all))?;
    let config = configure(config, &mut table);
    let mut runs: Vec<Vec<Profile>> = vec![Vec::new(); spec.sides.len()];
    // Per side, the benchmarks and the kernels of its runs.
    let mut pooled: Vec<Pooled> = vec![Pooled::default(); spec.sides.len()];
    // Per pair of sides, the runs both select.
    let mut shared: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
    for r in std::mem::take(&mut table.runs) {
        let on: Vec<usize> = (0..spec.sides.len())
            .filter(|&i| spec.sides[i].0.iter().any(|s| s.matches(&r.selectable())))
            .collect();
        for (k, &a) in on.iter().enumerate() {
            for &b in &on[k + 1..] {
                shared
                    .entry((a, b))
                    .or_default()
                    .push(r.profile.source.clone());
            }
        }
        for &i in &on {
            pooled[i].0.insert(r.benchmark.clone());
            pooled[i].1.insert(r.kernel.clone());
        }
        if let Some((&last, rest)) = on.split_last() {
            for &i in rest {
                runs[i].push(r.profile.clone());
            }
            runs[last].push(r.profile);
        }
    }
    let mut sides = Vec::new();
    for ((side, (_, label)), runs) in config.sides.iter().zip(&spec.sides).zip(runs) {
        if runs.is_empty() {
            bail!("{}: no runs match {label}", spec.path);
        }
        sides.push(Side {
            name: side.name.clone(),
            label: label.clone(),
            runs,
        });
    }
    let mut warnings = shared_runs(&config, spec, shared);
    warnings.extend(pooling(&config, spec, &pooled));
    Ok((config, sides, warnings))
}

/// The benchmarks and the kernels of one side's runs.
type Pooled = (BTreeSet<String>, BTreeSet<String>);

/// Sides whose selectors take runs of several benchmarks (or kernels) as
/// replicates of one: `--table t kernel=base kernel=next` without
/// `--where benchmark=B` compares every benchmark pooled. One warning per
/// side, with the selector that picks one.
fn pooling(config: &Config, spec: &TableSpec, pooled: &[Pooled]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, (benches, kernels)) in pooled.iter().enumerate() {
        let side = crate::text::side_name(&config.sides[i].name);
        let label = &spec.sides[i].1;
        for (what, column, values) in [
            ("benchmarks", "benchmark", benches),
            ("kernels", "kernel", kernels),
        ] {
            if values.len() < 2 {
                continue;
            }
            let shown: Vec<&str> = values
                .iter()
                .take(crate::sanity::LIST_MAX)
                .map(String::as_str)
                .collect();
            let more = match values.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            let first = shown[0];
            let pick = if column == "benchmark" {
                format!(
                    "add --where benchmark={first} (or {column}={first} to the side's selector)"
                )
            } else {
                format!("add {column}={first} to the side's selector")
            };
            out.push(format!(
                "{}: {side} ({label}) pools runs of {} {what} as replicates: {}{more}; a side's \
                 runs are meant to be runs of one {column}: {pick}",
                spec.path,
                values.len(),
                shown.join(", ")
            ));
        }
    }
    out
}

/// Runs that two sides both select: a recording compared with itself, as
/// for paths named on two sides ([`super::same_paths`]); one warning per
/// pair of sides, the first runs named.
fn shared_runs(
    config: &Config,
    spec: &TableSpec,
    shared: BTreeMap<(usize, usize), Vec<String>>,
) -> Vec<String> {
    shared
        .into_iter()
        .map(|((a, b), sources)| {
            let name = |i: usize| crate::text::side_name(&config.sides[i].name);
            let shown: Vec<&str> = sources
                .iter()
                .take(crate::sanity::LIST_MAX)
                .map(String::as_str)
                .collect();
            let more = match sources.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            format!(
                "{}: {} selected as {} ({}) and as {} ({}): a recording compared with itself: {}{more}",
                spec.path,
                crate::text::plural(sources.len() as u64, "run"),
                name(a),
                spec.sides[a].1,
                name(b),
                spec.sides[b].1,
                shown.join(", ")
            )
        })
        .collect()
}

/// `batch` over a table (a Parquet file, or a directory of them) at
/// `root`: its runs as (kernel, benchmark, run), and the configuration to
/// compare them with; `None` when the root is a results tree of profiles.
pub fn table_runs(root: &str, config: &Config) -> Result<Option<(Config, Vec<TableRun>)>> {
    if !files::is_table(&crate::input::os_path(root))? {
        return Ok(None);
    }
    refuse_read_options(config, "batch over a counts table")?;
    let mut table = reader::read(root, &Filter::all())?;
    let config = configure(config, &mut table);
    Ok(Some((config, table.runs)))
}

/// `config` with the table's placements as its identity, its export notes
/// before the comparison's own, and the table's work counts added to
/// `--run-info` (which wins where it names a run's work).
fn configure(config: &Config, table: &mut Table) -> Config {
    let mut c = config.clone();
    c.identity = Identity {
        placed: Some(Arc::new(std::mem::take(&mut table.placed))),
        ..Identity::default()
    };
    let mut notes = std::mem::take(&mut table.notes);
    notes.append(&mut c.notes);
    c.notes = notes;
    for r in &table.runs {
        if let Some(work) = r.work {
            let given = c.run_info.lookup(&r.profile.source).unwrap_or_default();
            let merged = (given.0, given.1.or(Some(work)));
            c.run_info.entries.insert(r.profile.source.clone(), merged);
        }
    }
    c
}

/// Options that read or name profiles were applied on export; given again
/// they would silently do nothing, so they are refused.
fn refuse_read_options(config: &Config, what: &str) -> Result<()> {
    let p = &config.load.parse;
    let id = &config.identity;
    let given: Vec<&str> = [
        (config.load.format.is_some(), "-f"),
        (p.event.is_some(), "--event"),
        (p.weight != crate::format::WeightBy::Samples, "--weight"),
        (p.inclusive, "--inclusive"),
        (p.kernel_only, "--kernel-only"),
        (p.comm.is_some(), "--comm"),
        (p.pid.is_some(), "--pid"),
        (p.dso.is_some(), "--dso"),
        (
            p.map.is_some() || !config.load.path_maps.is_empty(),
            "--map",
        ),
        (p.kallsyms.is_some(), "--kallsyms"),
        (p.force_map, "--force-map"),
        (p.user.symfs.is_some(), "--symfs"),
        (!p.user.debug_dirs.is_empty(), "--debug-dir"),
        (!p.user.jit_map_dirs.is_empty(), "--jit-map-dir"),
        (p.user.no_demangle, "--no-demangle"),
        (!id.fold, "--keep-suffixes"),
        (!id.aliases.is_empty(), "--alias"),
        (id.group.is_some(), "--group-by"),
        (id.include.is_some(), "--include"),
        (id.exclude.is_some(), "--exclude"),
        (id.exclude_idle, "--exclude-idle"),
    ]
    .into_iter()
    .filter_map(|(on, flag)| on.then_some(flag))
    .collect();
    if !given.is_empty() {
        bail!(
            "{what}: {} read and name profiles, which the table's rows already are: give them to `diffprofile export`",
            given.join(", ")
        );
    }
    Ok(())
}
