//! Checks of the loaded sides before they are compared: the inputs a
//! careless user gives that are valid but wrong.
//!
//! Input: the sides as loaded, the parse options (sample filters) and the
//! symbol identity (symbol filters). Output, from [`prepare`]: an error for
//! what must be refused (a run that holds no samples, a sample filter the
//! runs' format cannot apply, one recording given twice in one side, unless
//! `--allow-duplicates`), else the
//! sides brought to their common scope ([`crate::scope`]) with the header
//! notes and the warnings to show (filters that match nothing, a side
//! mixing formats, a recording on two sides).
//!
//! Duplicate runs are found in [`duplicates`]; kernels and binaries that
//! differ between runs in [`kernels`]; runs recorded system-wide beside
//! per-task ones in [`reach`]. [`replicates`] checks the runs a
//! noise model is learned from (`noise-model`, `--noise-from`) alike.

pub mod contamination;
mod duplicates;
mod kernels;
mod reach;
pub mod sampling;
mod slices;

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
    no_samples(sides)?;
    slices::check(sides)?;
    unfilterable(sides, parse)?;
    unweighable(sides, parse)?;
    partly_emptied(sides, parse)?;
    let mut found = Findings::default();
    let emptied = empty_sample_filters(sides, parse);
    let with_runs = sides.iter().filter(|s| !s.runs.is_empty()).count();
    if with_runs > 0 && emptied.len() == with_runs {
        bail!(
            "filter {} matches no sample of any run: nothing to compare (is the name right? \
             `perf report --sort comm,dso` lists a recording's commands and dsos)",
            sample_filter_flags(parse).join(" ")
        );
    }
    found.warnings.extend(emptied);
    let (note, warning) = crate::scope::common_scope(sides)?;
    found.notes.extend(note);
    found.warnings.extend(warning);
    found.warnings.extend(mixed_formats(sides));
    let (maps, differ) = kernels::check(sides);
    found.notes.extend(maps);
    found.warnings.extend(differ);
    found.warnings.extend(reach::check(sides));
    found
        .warnings
        .extend(duplicates::check(sides, allow_duplicates)?);
    found
        .warnings
        .extend(empty_symbol_filters(sides, identity)?);
    found.warnings.extend(ungrouped(sides, identity));
    found.warnings.extend(empty_groups(sides, identity));
    Ok(found)
}

/// `--group-by regex:RE` that matches names but takes nothing of them
/// (`^(x)?`, `a*`): those symbols keep their own rows (a group without a
/// name would be one blank row of everything else); said, counted, with
/// an example.
fn empty_groups(sides: &[Side], identity: &Identity) -> Option<String> {
    let group = identity.group.as_ref()?;
    if identity.placed.is_some() {
        return None;
    }
    let mut names: Vec<String> = sides
        .iter()
        .flat_map(|s| &s.runs)
        .flat_map(|r| r.counts.keys())
        .map(|k| identity.frame_name(k.name.as_str()).into_owned())
        .filter(|n| group.matches_empty(n))
        .collect();
    names.sort();
    names.dedup();
    let first = names.first()?;
    Some(format!(
        "--group-by {} matches {} with the empty string (as `{}`): an empty match names no \
         group, so they keep their own rows; make the pattern take at least one character",
        crate::text::printable(&group.describe()),
        crate::text::plural(names.len() as u64, "symbol"),
        crate::text::printable(first)
    ))
}

/// `--group-by prefix:STR` or `regex:RE` that groups no symbol of any run:
/// the rows are the symbols, as without it, under a header that says they
/// are grouped; said, with what the pattern is matched against. (`dso`
/// and `module` group every symbol.)
fn ungrouped(sides: &[Side], identity: &Identity) -> Option<String> {
    use crate::identity::GroupBy;
    let group = identity.group.as_ref()?;
    if identity.placed.is_some() || !matches!(group, GroupBy::Prefix(_) | GroupBy::Regex(_)) {
        return None;
    }
    let mut keys = sides
        .iter()
        .flat_map(|s| &s.runs)
        .flat_map(|r| r.counts.keys());
    let mut any = false;
    let grouped = keys.any(|k| {
        any = true;
        matches!(identity.place(k), Placement::Row { grouped: true, .. })
    });
    (any && !grouped).then(|| {
        format!(
            "--group-by {} groups no symbol of any run: the rows are the symbols, ungrouped \
             (names are matched after clone suffixes are folded and --alias is applied; \
             a regex matches anywhere in the name unless anchored)",
            crate::text::printable(&group.describe())
        )
    })
}

/// Check the replicate runs a noise model is learned from, as [`prepare`]
/// checks a side: a run without samples and one recording given twice are
/// refused (the copies would make noise look smaller than it is, the
/// empty run larger), unless `--allow-duplicates`; two kernels or several
/// formats among them are warnings.
pub fn replicates(
    side: &Side,
    parse: &ParseOptions,
    allow_duplicates: bool,
) -> Result<Vec<String>> {
    let sides = std::slice::from_ref(side);
    no_samples(sides)?;
    partly_emptied(sides, parse)?;
    let mut warnings: Vec<String> = duplicates::check(sides, allow_duplicates)?;
    let (_, differ) = kernels::check(sides);
    warnings.extend(differ);
    warnings.extend(mixed_formats(sides));
    Ok(warnings)
}

/// The runs that hold no sample at all: a perf.data recording without
/// samples, a readprofile dump of 0 ticks (`readprofile -a` lists every
/// symbol with 0), a `/proc/profile` image of zeros. Such a run is no run:
/// under `-n share` it has no exposure, and under `-n ticks`, `-o classic`
/// or any other unit it would count as a run of zeros, pulling the side's
/// means down and marking every symbol. Refused in every unit, naming them.
fn no_samples(sides: &[Side]) -> Result<()> {
    let empty: Vec<String> = sides
        .iter()
        .flat_map(|s| {
            s.runs.iter().filter(|r| holds_no_samples(r)).map(|r| {
                // What its reader said may be why (ticks past the map).
                let said = match r.warnings.first() {
                    Some(w) => format!(" (its reader said: {w})"),
                    None => String::new(),
                };
                format!(
                    "{} ({}) of {}{said}",
                    r.source,
                    r.format,
                    crate::text::side_name(&s.name)
                )
            })
        })
        .collect();
    if empty.is_empty() {
        return Ok(());
    }
    let n = empty.len();
    let mut shown: Vec<String> = empty.into_iter().take(LIST_MAX).collect();
    if n > LIST_MAX {
        shown.push(format!("and {} more", n - LIST_MAX));
    }
    bail!(
        "{n} run(s) hold no samples: {}; a recording without samples is not a run (it would \
         count as a run of zeros): record it again, or leave it out",
        shown.join(", ")
    )
}

/// A run whose total and counts are all zero (or not numbers).
pub fn holds_no_samples(run: &Profile) -> bool {
    let some = |x: f64| x > 0.0;
    !some(run.total) && !some(run.symbol_sum() + run.unattributed)
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
                "{flag} cannot filter {} whose format carries {lacks}: {}; drop {flag}, \
                 or give those runs as perf report, perf script or perf.data",
                crate::text::plural(bad.len() as u64, "run"),
                list(&bad)
            );
        }
    }
    Ok(())
}

/// Refuse `--inclusive` on runs whose format carries no callchains
/// (readprofile, perf report, opreport, /proc/profile) and `--weight
/// period` on runs whose counts are not periods (ticks, samples): the
/// header would say inclusive counts or periods over self counts or ticks.
fn unweighable(sides: &[Side], parse: &ParseOptions) -> Result<()> {
    let runs: Vec<&Profile> = sides.iter().flat_map(|s| &s.runs).collect();
    if parse.inclusive {
        let bad: Vec<&Profile> = runs.iter().copied().filter(|r| !r.inclusive).collect();
        if !bad.is_empty() {
            bail!(
                "--inclusive counts callchains, which the format of {} does not carry: {}; \
                 drop --inclusive, or give those runs as perf script (-g), perf.data (-g) or \
                 folded stacks",
                crate::text::plural(bad.len() as u64, "run"),
                list(&bad)
            );
        }
    }
    if parse.weight == crate::format::WeightBy::Period {
        let bad: Vec<&Profile> = runs
            .iter()
            .copied()
            .filter(|r| r.weight != crate::profile::Weight::Period)
            .collect();
        if !bad.is_empty() {
            bail!(
                "--weight period weighs perf script and perf.data samples by their period; \
                 the counts of {} are not periods: {}; drop --weight period for them",
                crate::text::plural(bad.len() as u64, "run"),
                list(&bad)
            );
        }
    }
    Ok(())
}

/// Refuse a side some of whose runs lost every sample to the sample
/// filters (`--comm`, `--dso`, `--kernel-only`) while others kept some:
/// such a run would count as a run of zeros in its side (its exposure
/// is its whole recording), pulling the side's means down and marking
/// rows, or, among a noise model's replicates, making noise look larger.
/// (A side whose every run is emptied is said by [`empty_sample_filters`].)
fn partly_emptied(sides: &[Side], parse: &ParseOptions) -> Result<()> {
    let flags = sample_filter_flags(parse);
    if flags.is_empty() {
        return Ok(());
    }
    for side in sides {
        let empty: Vec<&Profile> = side.runs.iter().filter(|r| r.counts.is_empty()).collect();
        if empty.is_empty() || empty.len() == side.runs.len() {
            continue;
        }
        bail!(
            "filter {} keeps no sample of {} of {} ({} of its {} runs), but some of the others: \
             an emptied run would count as a run of zeros; leave {} out, or check the filter \
             (`perf report --sort comm,dso` lists a recording's commands and dsos)",
            flags.join(" "),
            list(&empty),
            crate::text::side_name(&side.name),
            empty.len(),
            side.runs.len(),
            if empty.len() == 1 {
                "that run"
            } else {
                "those runs"
            }
        );
    }
    Ok(())
}

/// A side whose every run lost all its samples to `--comm`/`--dso`/`--kernel-only`.
fn empty_sample_filters(sides: &[Side], parse: &ParseOptions) -> Vec<String> {
    let flags = sample_filter_flags(parse);
    if flags.is_empty() {
        return Vec::new();
    }
    sides
        .iter()
        .filter(|s| !s.runs.is_empty() && s.runs.iter().all(|r| r.counts.is_empty()))
        .map(|s| {
            format!(
                "filter {} matches no sample of {}'s {}: its rows are empty",
                flags.join(" "),
                crate::text::side_name(&s.name),
                crate::text::plural(s.runs.len() as u64, "run")
            )
        })
        .collect()
}

/// The sample filters given, as flags (`--comm spin`, `--dso libc`).
pub fn sample_filter_flags(parse: &ParseOptions) -> Vec<String> {
    let mut flags = Vec::new();
    if parse.kernel_only {
        flags.push("--kernel-only".to_string());
    }
    if let Some(re) = &parse.comm {
        flags.push(format!("--comm {re}"));
    }
    if let Some(pid) = &parse.pid {
        flags.push(format!("--pid {pid}"));
    }
    if let Some(re) = &parse.dso {
        flags.push(format!("--dso {re}"));
    }
    flags
}

/// `--include`/`--exclude`/`--exclude-idle` that leave a side no symbol:
/// said as what the filters did (`--exclude .` removes every symbol,
/// `--include x` matches none), naming the sides left with nothing; an
/// error when no side keeps a symbol (as a `--comm` that matches no
/// sample is): there is nothing to compare.
fn empty_symbol_filters(sides: &[Side], identity: &Identity) -> Result<Vec<String>> {
    if !identity.has_filters() {
        return Ok(Vec::new());
    }
    let with_symbols = sides
        .iter()
        .filter(|s| s.runs.iter().any(|r| !r.counts.is_empty()))
        .count();
    let emptied: Vec<&Side> = sides
        .iter()
        .filter(|s| {
            s.runs.iter().any(|r| !r.counts.is_empty())
                && s.runs.iter().all(|r| {
                    r.counts
                        .keys()
                        .all(|k| matches!(identity.place(k), Placement::Dropped))
                })
        })
        .collect();
    if emptied.is_empty() {
        return Ok(Vec::new());
    }
    let all = emptied.len() == with_symbols;
    // Sides by what emptied them, in side order.
    let mut by_cause: Vec<(String, Vec<String>)> = Vec::new();
    for side in emptied {
        let cause = emptied_by(side, identity);
        match by_cause.iter_mut().find(|(c, _)| *c == cause) {
            Some((_, names)) => names.push(crate::text::side_name(&side.name)),
            None => by_cause.push((cause, vec![crate::text::side_name(&side.name)])),
        }
    }
    let said: Vec<String> = by_cause
        .into_iter()
        .map(|(cause, names)| {
            let (what, kept) = cause.split_once('\0').unwrap_or((&cause, ""));
            let them = if names.len() == 1 { "it" } else { "them" };
            let tail = if all {
                String::new()
            } else {
                format!(": nothing of {them} is compared")
            };
            format!("symbol filter {what} of {}{kept}{tail}", names.join(", "))
        })
        .collect();
    if all {
        bail!(
            "{}: nothing is left to compare (is the pattern right? an empty one matches \
             every name)",
            said.join("; ")
        );
    }
    Ok(said)
}

/// A filter's pattern as given, `''` when empty (it matches every name).
fn pattern(re: &regex::Regex) -> String {
    match re.as_str() {
        "" => "''".to_string(),
        p => p.to_string(),
    }
}

/// What removed every symbol of `side`: `--include R matches no symbol`,
/// or the filters that remove what `--include` keeps, `\0`, and that.
fn emptied_by(side: &Side, identity: &Identity) -> String {
    let names: std::collections::BTreeSet<&str> = side
        .runs
        .iter()
        .flat_map(|r| r.counts.keys().map(|k| k.name.as_str()))
        .collect();
    let included: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| identity.include.as_ref().is_none_or(|re| re.is_match(n)))
        .collect();
    if let (Some(re), true) = (&identity.include, included.is_empty()) {
        return format!("--include {} matches no symbol", pattern(re));
    }
    let mut by = Vec::new();
    if let Some(re) = &identity.exclude {
        if included.iter().any(|n| re.is_match(n)) {
            by.push(format!("--exclude {}", pattern(re)));
        }
    }
    if identity.exclude_idle && included.iter().any(|n| crate::identity::is_idle(n)) {
        by.push("--exclude-idle".to_string());
    }
    if by.is_empty() {
        by.push("the symbol filters".to_string());
    }
    let kept = match &identity.include {
        Some(re) => format!(" that --include {re} keeps"),
        None => String::new(),
    };
    format!("{} removes every symbol\0{kept}", by.join(" with "))
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
                    crate::text::side_name(&s.name),
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

    /// `--exclude .` removes every symbol: said so (it was said to match
    /// no symbol), and `--include` matching nothing as before.
    #[test]
    fn filters_that_leave_nothing_say_which() {
        let sides = vec![
            Side::new(
                "old",
                vec![run("a", Format::Readprofile, &[("schedule", 1.0)])],
            ),
            Side::new(
                "new",
                vec![run("b", Format::Readprofile, &[("intel_idle", 1.0)])],
            ),
        ];
        let with = |include: Option<&str>, exclude: Option<&str>, idle: bool| Identity {
            include: include.map(|r| regex::Regex::new(r).unwrap()),
            exclude: exclude.map(|r| regex::Regex::new(r).unwrap()),
            exclude_idle: idle,
            ..Identity::default()
        };
        let refused = |id: &Identity| match empty_symbol_filters(&sides, id) {
            Err(e) => e.to_string(),
            Ok(w) => panic!("not refused: {w:?}"),
        };
        // Every side emptied: nothing to compare, an error.
        assert_eq!(
            refused(&with(None, Some("."), false)),
            "symbol filter --exclude . removes every symbol of OLD, NEW: nothing is left to \
             compare (is the pattern right? an empty one matches every name)"
        );
        assert!(refused(&with(None, Some(""), false))
            .starts_with("symbol filter --exclude '' removes every symbol of OLD, NEW:"));
        assert!(refused(&with(Some("^x"), None, false))
            .starts_with("symbol filter --include ^x matches no symbol of OLD, NEW:"));
        assert!(refused(&with(Some("idle"), None, true)).starts_with(
            "symbol filter --include idle matches no symbol of OLD; symbol filter \
             --exclude-idle removes every symbol of NEW that --include idle keeps:"
        ));
        assert_eq!(
            empty_symbol_filters(&sides, &with(None, Some("sched"), false)).unwrap(),
            ["symbol filter --exclude sched removes every symbol of OLD: nothing of it is compared"]
        );
        assert!(empty_symbol_filters(&sides, &with(None, Some("^x"), false))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn filters_that_cannot_apply_are_refused() {
        let sides = vec![Side::new(
            "old",
            vec![run("rp.txt", Format::Readprofile, &[("a", 1.0)])],
        )];
        let opts = ParseOptions {
            comm: crate::format::filter::CommFilter::parse("x").ok(),
            ..ParseOptions::default()
        };
        let e = unfilterable(&sides, &opts).unwrap_err().to_string();
        assert!(
            e.starts_with("--comm cannot filter 1 run whose format carries no command names: rp.txt (readprofile)"),
            "{e}"
        );
        let opts = ParseOptions {
            kernel_only: true,
            ..ParseOptions::default()
        };
        assert!(unfilterable(&sides, &opts).is_ok());
    }
}
