//! Checks of the loaded sides before they are compared: the inputs a
//! careless user gives that are valid but wrong.
//!
//! Input: the sides as loaded, the parse options (sample filters) and the
//! symbol identity (symbol filters). Output, from [`prepare`]: an error for
//! what must be refused (a sample filter the runs' format cannot apply, one
//! recording given twice in one side, unless `--allow-duplicates`), else the
//! sides brought to their common scope ([`crate::scope`]) with the header
//! notes and the warnings to show (filters that match nothing, a side
//! mixing formats, a recording on two sides).
//!
//! Duplicate runs are found in [`duplicates`]; kernels and binaries that
//! differ between runs in [`kernels`].

pub mod contamination;
mod duplicates;
mod kernels;

use crate::aggregate::Side;
use crate::format::ParseOptions;
use crate::identity::{Identity, Placement};
use crate::profile::{Format, Profile};
use anyhow::{bail, Result};
use std::collections::BTreeMap;

/// Runs named in a message; the rest are counted.
pub(crate) const LIST_MAX: usize = 8;

/// What [`prepare`] found worth saying.
#[derive(Debug, Default)]
pub struct Findings {
    /// Statements for the report header (the common scope).
    pub notes: Vec<String>,
    pub warnings: Vec<String>,
}

impl Findings {
    /// Add the notes to a report's header notes: the scope note replaces
    /// `--kernel-only`'s, whose "shares stay relative to all samples" no
    /// longer holds once runs are restricted to their kernel samples.
    pub fn add_notes(&mut self, notes: &mut Vec<String>) {
        if self.notes.iter().any(|n| n.starts_with("scope:")) {
            notes.retain(|n| n != crate::scope::KERNEL_ONLY_NOTE);
        }
        notes.append(&mut self.notes);
    }
}

/// Check the sides, bring them to their common scope, and say what is odd.
pub fn prepare(
    sides: &mut [Side],
    parse: &ParseOptions,
    identity: &Identity,
    allow_duplicates: bool,
) -> Result<Findings> {
    unfilterable(sides, parse)?;
    let mut found = Findings::default();
    found.warnings.extend(empty_sample_filters(sides, parse));
    let (note, warning) = crate::scope::common_scope(sides)?;
    found.notes.extend(note);
    found.warnings.extend(warning);
    found.warnings.extend(mixed_formats(sides));
    let (maps, differ) = kernels::check(sides);
    found.notes.extend(maps);
    found.warnings.extend(differ);
    found
        .warnings
        .extend(duplicates::check(sides, allow_duplicates)?);
    found.warnings.extend(empty_symbol_filters(sides, identity));
    Ok(found)
}

/// `a (readprofile), b (readprofile) and 3 more`.
fn list(runs: &[&Profile]) -> String {
    let mut shown: Vec<String> = runs
        .iter()
        .take(LIST_MAX)
        .map(|r| format!("{} ({})", r.source, r.format))
        .collect();
    if runs.len() > LIST_MAX {
        shown.push(format!("and {} more", runs.len() - LIST_MAX));
    }
    shown.join(", ")
}

/// A sample filter: on or off, its flag, what a format lacks to apply it,
/// and which formats can.
type FilterCheck = (bool, &'static str, &'static str, fn(Format) -> bool);

/// Refuse `--comm`, `--dso` and `--kernel-only` on runs whose format
/// carries no such field (and would be left unfiltered while the header
/// says they are filtered).
fn unfilterable(sides: &[Side], parse: &ParseOptions) -> Result<()> {
    let runs: Vec<&Profile> = sides.iter().flat_map(|s| &s.runs).collect();
    let perf = |f: Format| {
        matches!(
            f,
            Format::PerfReport | Format::PerfScript | Format::PerfData
        )
    };
    let checks: [FilterCheck; 3] = [
        (parse.comm.is_some(), "--comm", "no command names", perf),
        (parse.dso.is_some(), "--dso", "no shared objects", perf),
        (
            parse.kernel_only,
            "--kernel-only",
            "no kernel/user marks it can filter on",
            |f| !matches!(f, Format::Folded | Format::Opreport),
        ),
    ];
    for (on, flag, lacks, can) in checks {
        if !on {
            continue;
        }
        let bad: Vec<&Profile> = runs.iter().copied().filter(|r| !can(r.format)).collect();
        if !bad.is_empty() {
            bail!(
                "{flag} cannot filter {} run(s) whose format carries {lacks}: {}; drop {flag}, \
                 or give those runs as perf report, perf script or perf.data",
                bad.len(),
                list(&bad)
            );
        }
    }
    Ok(())
}

/// A side whose every run lost all its samples to `--comm`/`--dso`/`--kernel-only`.
fn empty_sample_filters(sides: &[Side], parse: &ParseOptions) -> Vec<String> {
    let mut flags = Vec::new();
    if parse.kernel_only {
        flags.push("--kernel-only".to_string());
    }
    if let Some(re) = &parse.comm {
        flags.push(format!("--comm {re}"));
    }
    if let Some(re) = &parse.dso {
        flags.push(format!("--dso {re}"));
    }
    if flags.is_empty() {
        return Vec::new();
    }
    sides
        .iter()
        .filter(|s| !s.runs.is_empty() && s.runs.iter().all(|r| r.counts.is_empty()))
        .map(|s| {
            format!(
                "filter {} matches no sample of {}'s {} run(s): its rows are empty",
                flags.join(" "),
                s.name.to_uppercase(),
                s.runs.len()
            )
        })
        .collect()
}

/// `--include`/`--exclude`/`--exclude-idle` that leave a side no symbol.
fn empty_symbol_filters(sides: &[Side], identity: &Identity) -> Vec<String> {
    if !identity.has_filters() {
        return Vec::new();
    }
    let empty: Vec<String> = sides
        .iter()
        .filter(|s| {
            s.runs.iter().any(|r| !r.counts.is_empty())
                && s.runs.iter().all(|r| {
                    r.counts
                        .keys()
                        .all(|k| matches!(identity.place(k), Placement::Dropped))
                })
        })
        .map(|s| s.name.to_uppercase())
        .collect();
    if empty.is_empty() {
        return Vec::new();
    }
    let mut flags = Vec::new();
    if let Some(re) = &identity.include {
        flags.push(format!("--include {re}"));
    }
    if let Some(re) = &identity.exclude {
        flags.push(format!("--exclude {re}"));
    }
    if identity.exclude_idle {
        flags.push("--exclude-idle".to_string());
    }
    vec![format!(
        "symbol filter {} matches no symbol of {}: nothing of {} is compared",
        flags.join(" "),
        empty.join(", "),
        if empty.len() == 1 { "it" } else { "them" }
    )]
}

/// A side whose runs come in several formats: often one recording saved as
/// readprofile, perf report and perf script output.
fn mixed_formats(sides: &[Side]) -> Vec<String> {
    sides
        .iter()
        .filter_map(|s| {
            let mut by: BTreeMap<&str, usize> = BTreeMap::new();
            for r in &s.runs {
                *by.entry(r.format.name()).or_default() += 1;
            }
            (by.len() > 1).then(|| {
                let parts: Vec<String> = by.iter().map(|(f, n)| format!("{n} {f}")).collect();
                format!(
                    "{} mixes input formats ({} runs): are some of them one recording in \
                     several formats? every run must be a recording of its own",
                    s.name.to_uppercase(),
                    parts.join(", ")
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Mode, SymbolKey};

    fn run(source: &str, format: Format, rows: &[(&str, f64)]) -> Profile {
        let mut p = Profile::new(source, format);
        for &(n, c) in rows {
            p.add(SymbolKey::new(n).with_mode(Some(Mode::Kernel)), c);
            p.total += c;
        }
        p
    }

    #[test]
    fn filters_that_cannot_apply_are_refused() {
        let sides = vec![Side::new(
            "old",
            vec![run("rp.txt", Format::Readprofile, &[("a", 1.0)])],
        )];
        let opts = ParseOptions {
            comm: Some(regex::Regex::new("x").unwrap()),
            ..ParseOptions::default()
        };
        let e = unfilterable(&sides, &opts).unwrap_err().to_string();
        assert!(
            e.starts_with("--comm cannot filter 1 run(s) whose format carries no command names: rp.txt (readprofile)"),
            "{e}"
        );
        let opts = ParseOptions {
            kernel_only: true,
            ..ParseOptions::default()
        };
        assert!(unfilterable(&sides, &opts).is_ok());
    }
}
