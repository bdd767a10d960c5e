//! Which samples a run covers, and comparing runs on what they share.
//!
//! readprofile dumps and `/proc/profile` images hold kernel ticks only; perf
//! recordings (report, script, perf.data) hold user space too unless the
//! recording or `--kernel-only` left it out. Compared as they are, a
//! kernel-only side against a full one shows every user symbol as new and
//! every kernel share shifted (the full side's denominator holds user
//! samples too), a false table. Input: the loaded sides. Output: when runs
//! of both kinds meet, every full run restricted to its kernel samples
//! (kernel rows kept, the total re-based on them, callchains ending in the
//! kernel kept) and one sentence for the report header saying so; a
//! warning when some runs cannot tell which of their samples are kernel.

use crate::aggregate::Side;
use crate::profile::{Format, Mode, Profile};
use std::collections::BTreeSet;

/// The header note of `--kernel-only` (replaced by the scope note when
/// runs are restricted to their kernel samples, see [`crate::scope`]).
pub const KERNEL_ONLY_NOTE: &str =
    "filter: kernel samples only (--kernel-only); shares stay relative to all samples";

/// What a run's samples cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Kernel samples only (readprofile, /proc/profile, a kernel-only recording).
    Kernel,
    /// Kernel and user space (or a run whose total still counts user samples
    /// that `--kernel-only` dropped from its rows).
    Full,
    /// The input does not say which samples are kernel (folded stacks
    /// without `_[k]` annotations, opreport images of unknown kind).
    Unknown,
}

/// The scope of one run (see [`Scope`]).
pub fn scope(run: &Profile) -> Scope {
    if matches!(run.format, Format::Readprofile | Format::ProcProfile) {
        return Scope::Kernel;
    }
    let mut unknown = false;
    for key in run.counts.keys() {
        match key.mode {
            Some(Mode::Kernel) => {}
            Some(_) => return Scope::Full,
            None => unknown = true,
        }
    }
    if unknown || run.counts.is_empty() {
        return Scope::Unknown;
    }
    // Only kernel rows, but a total past them: samples a filter dropped
    // (`--kernel-only`) or rows a report left out; a perf run's total counts
    // every sample of the recording.
    if run.total > run.symbol_sum() + run.unattributed + 0.5 {
        Scope::Full
    } else {
        Scope::Kernel
    }
}

/// Keep only a run's kernel samples: kernel rows, a total re-based on them,
/// and the callchains whose leaf is a kept row. Returns the share of the
/// run's samples kept.
fn restrict_to_kernel(run: &mut Profile) -> f64 {
    let before = run.total;
    run.counts.retain(|k, _| k.mode == Some(Mode::Kernel));
    let names: BTreeSet<&str> = run.counts.keys().map(|k| k.name.as_str()).collect();
    run.stacks
        .retain(|frames, _| frames.last().is_some_and(|f| names.contains(f.as_str())));
    run.total = run.symbol_sum() + run.unattributed;
    if before > 0.0 {
        run.total / before
    } else {
        1.0
    }
}

/// Bring every run to the scope they share: when kernel-only runs meet full
/// ones, the full ones are restricted to their kernel samples. Returns the
/// statements for the report: a header note when runs were restricted, a
/// warning when some runs cannot tell their kernel samples.
pub fn common_scope(sides: &mut [Side]) -> (Option<String>, Option<String>) {
    let scopes: Vec<Vec<Scope>> = sides
        .iter()
        .map(|s| s.runs.iter().map(scope).collect())
        .collect();
    let any = |want: Scope| scopes.iter().flatten().any(|&s| s == want);
    let kernel_only = formats_of(sides, &scopes, Scope::Kernel);
    let warning = (any(Scope::Kernel) && any(Scope::Unknown)).then(|| {
        format!(
            "scope: {} run(s) ({}) do not say which samples are kernel, while the {} runs \
             hold kernel samples only: their shares may not compare",
            count(&scopes, Scope::Unknown),
            formats_of(sides, &scopes, Scope::Unknown),
            kernel_only
        )
    });
    if !(any(Scope::Kernel) && any(Scope::Full)) {
        return (None, warning);
    }
    let mut kept: Vec<(String, f64)> = Vec::new();
    for (side, scopes) in sides.iter_mut().zip(&scopes) {
        for (run, &s) in side.runs.iter_mut().zip(scopes) {
            if s == Scope::Full {
                kept.push((side.name.clone(), restrict_to_kernel(run)));
            }
        }
    }
    let names: BTreeSet<&str> = kept.iter().map(|(n, _)| n.as_str()).collect();
    let (lo, hi) = kept
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), (_, k)| {
            (lo.min(*k), hi.max(*k))
        });
    let range = if (hi - lo) * 100.0 < 0.05 {
        format!("{:.1}%", hi * 100.0)
    } else {
        format!("{:.1}-{:.1}%", lo * 100.0, hi * 100.0)
    };
    let note = format!(
        "scope: kernel samples only: the {kernel_only} runs hold nothing else, so {} run(s) \
         of {} were restricted to their kernel samples ({range} of their samples), and \
         every share is of kernel samples",
        kept.len(),
        names
            .into_iter()
            .map(str::to_uppercase)
            .collect::<Vec<_>>()
            .join(", ")
    );
    (Some(note), warning)
}

fn count(scopes: &[Vec<Scope>], want: Scope) -> usize {
    scopes.iter().flatten().filter(|&&s| s == want).count()
}

/// The formats of the runs of one scope, `readprofile, proc-profile`.
fn formats_of(sides: &[Side], scopes: &[Vec<Scope>], want: Scope) -> String {
    let formats: BTreeSet<&str> = sides
        .iter()
        .zip(scopes)
        .flat_map(|(side, s)| side.runs.iter().zip(s))
        .filter(|(_, &s)| s == want)
        .map(|(run, _)| run.format.name())
        .collect();
    formats.into_iter().collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::SymbolKey;

    fn run(format: Format, rows: &[(&str, Option<Mode>, f64)], total: f64) -> Profile {
        let mut p = Profile::new("r", format);
        for &(name, mode, c) in rows {
            p.add(SymbolKey::new(name).with_mode(mode), c);
        }
        p.total = total;
        p
    }

    #[test]
    fn scope_of_each_kind_of_run() {
        let k = Some(Mode::Kernel);
        let u = Some(Mode::User);
        assert_eq!(
            scope(&run(Format::Readprofile, &[("a", k, 3.0)], 3.0)),
            Scope::Kernel
        );
        assert_eq!(
            scope(&run(
                Format::PerfReport,
                &[("a", k, 3.0), ("b", u, 1.0)],
                4.0
            )),
            Scope::Full
        );
        assert_eq!(
            scope(&run(Format::PerfReport, &[("a", k, 3.0)], 3.0)),
            Scope::Kernel
        );
        // --kernel-only dropped user rows; the total still counts them.
        assert_eq!(
            scope(&run(Format::PerfScript, &[("a", k, 3.0)], 9.0)),
            Scope::Full
        );
        assert_eq!(
            scope(&run(Format::Folded, &[("a", None, 3.0)], 3.0)),
            Scope::Unknown
        );
    }

    #[test]
    fn full_runs_are_restricted_when_they_meet_kernel_only_ones() {
        let k = Some(Mode::Kernel);
        let u = Some(Mode::User);
        let mut full = run(Format::PerfReport, &[("a", k, 30.0), ("b", u, 10.0)], 40.0);
        full.stacks.insert(vec!["main".into(), "b".into()], 10.0);
        full.stacks.insert(vec!["main".into(), "a".into()], 30.0);
        let mut sides = vec![
            Side::new(
                "old",
                vec![run(Format::Readprofile, &[("a", k, 30.0)], 30.0)],
            ),
            Side::new("new", vec![full]),
        ];
        let (note, warning) = common_scope(&mut sides);
        let note = note.unwrap();
        assert!(
            note.contains("the readprofile runs hold nothing else")
                && note.contains("1 run(s) of NEW")
                && note.contains("(75.0% of their samples)"),
            "{note}"
        );
        assert_eq!(warning, None);
        let new = &sides[1].runs[0];
        assert_eq!(new.total, 30.0);
        assert_eq!(new.counts.len(), 1);
        assert_eq!(new.stacks.len(), 1);
        // Full runs alone, or kernel-only runs alone: nothing changes.
        let mut alone = vec![Side::new("old", vec![sides[1].runs[0].clone()])];
        assert_eq!(common_scope(&mut alone), (None, None));
    }
}
