//! Which samples a run covers, and comparing runs on what they share.
//!
//! readprofile dumps and `/proc/profile` images hold kernel ticks only; a
//! perf recording holds what its event sampled: user space and the kernel,
//! or only one of them when the event excluded the other (perf.data's
//! `exclude_user` / `exclude_kernel` attributes; in text, the `:u` / `:k`
//! modifiers of the event's name, `cpu-clock:u` in perf script lines and
//! perf report's `# Samples: … of event 'cpu-clock:u'`). A run's scope is
//! what its event could sample, never which samples it happens to hold: a
//! full recording whose few samples all landed in the kernel is still
//! full. Only a run that names no event (folded stacks, perf script
//! without the event field) is judged by its rows.
//!
//! Compared as they are, a kernel-only side against a full one shows every
//! user symbol as new and every kernel share shifted (the full side's
//! denominator holds user samples too), a false table; likewise a
//! user-only side against a full one. Input: the loaded sides. Output:
//! when runs of a narrower scope meet full ones, every full run restricted
//! to the samples they share (those rows kept, the total re-based on
//! them, callchains ending in them kept) and one sentence for the report
//! header saying so; an error when kernel-only and user-only runs meet
//! (nothing in common); a warning when some runs cannot tell which of
//! their samples are kernel.

use crate::aggregate::Side;
use crate::format::ParseOptions;
use crate::profile::{EventScope, Format, Mode, Profile};
use anyhow::{bail, Result};
use std::collections::BTreeSet;

/// The header note of `--kernel-only` (replaced by the scope note when
/// runs are restricted to their kernel samples, see [`crate::scope`]).
pub const KERNEL_ONLY_NOTE: &str =
    "filter: kernel symbols only shown and tested (--kernel-only); shares stay relative to all samples, and the noise is learned from every symbol";

/// The header note of `--kernel-only` with `--percentage relative`, whose
/// own note says what the shares are of.
pub const KERNEL_ONLY_RELATIVE_NOTE: &str = "filter: kernel samples only (--kernel-only)";

/// Runs listed by `--comm`'s warning, at most; the rest are counted.
const TREES_LISTED: usize = 6;

/// `--pid` reads the processes of perf.data recordings: runs of other
/// formats are refused, naming them.
pub fn pid_unfilterable(sides: &[Side], parse: &ParseOptions) -> Result<()> {
    let Some(pid) = &parse.pid else {
        return Ok(());
    };
    let bad: Vec<String> = sides
        .iter()
        .flat_map(|s| &s.runs)
        .filter(|r| r.format != Format::PerfData)
        .map(|r| format!("{} ({})", r.source, r.format.name()))
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let more = bad.len().saturating_sub(TREES_LISTED);
    bail!(
        "--pid {pid} filters perf.data recordings only (their fork records tell each process's \
         children); {} run(s) are of another format: {}{}; give the perf.data files, or drop \
         --pid and keep the workload with --comm NAME",
        bad.len(),
        bad[..bad.len().min(TREES_LISTED)].join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// The one warning of `--comm` when, in some runs, it kept samples of
/// processes of that name that were not forked from one another (see
/// `format::perf_data::procs`): another user's process, another job. It
/// names those runs' processes and the `--pid` that keeps each run's
/// largest.
pub fn shared_comm(sides: &[Side], parse: &ParseOptions) -> Option<String> {
    let comm = parse.comm.as_ref()?;
    let runs: Vec<(String, &Profile)> = sides
        .iter()
        .flat_map(|s| {
            s.runs
                .iter()
                .enumerate()
                .map(move |(k, r)| (format!("{} run {}", s.name, k + 1), r))
        })
        .collect();
    let shared: Vec<&(String, &Profile)> = runs
        .iter()
        .filter(|(_, r)| r.kept_processes.len() > 1)
        .collect();
    if shared.is_empty() {
        return None;
    }
    let listed: Vec<String> = shared
        .iter()
        .take(TREES_LISTED)
        .map(|(name, r)| {
            let sum: f64 = r.kept_processes.iter().map(|t| t.1).sum();
            let trees: Vec<String> = r
                .kept_processes
                .iter()
                .take(3)
                .map(|&(pid, w)| format!("PID {pid} {:.1}%", w / sum * 100.0))
                .collect();
            let rest = r.kept_processes.len().saturating_sub(3);
            let rest = if rest > 0 {
                format!(", {rest} more")
            } else {
                String::new()
            };
            format!("{name}: {}{rest}", trees.join(", "))
        })
        .collect();
    let more = shared.len().saturating_sub(TREES_LISTED);
    let more = if more > 0 {
        format!("; {more} more runs")
    } else {
        String::new()
    };
    // Every run's largest tree: --pid applies to every run, so a process
    // recorded in several runs (a long-lived one) is named once.
    let firsts: Vec<i32> = runs
        .iter()
        .filter_map(|(_, r)| r.kept_processes.first().map(|t| t.0))
        .collect();
    let mut largest: Vec<String> = Vec::new();
    for (k, pid) in firsts.iter().enumerate() {
        if !firsts[..k].contains(pid) {
            largest.push(pid.to_string());
        }
    }
    let fix = if firsts.len() == runs.len() && largest.len() <= 12 {
        format!("--pid {} keeps each run's largest", largest.join(","))
    } else {
        "--pid PID,... (one per run) keeps the ones you name".to_string()
    };
    Some(format!(
        "--comm {comm}: {} of {} runs hold processes of that name not forked from one another \
         ({}{more}): another user's or another job's? {fix} (and the processes it forked)",
        shared.len(),
        runs.len(),
        listed.join("; ")
    ))
}

/// What a run's samples cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Kernel samples only (readprofile, /proc/profile, a `:k` recording).
    Kernel,
    /// User-space samples only (a `:u` recording).
    User,
    /// Kernel and user space (or a run whose total still counts user samples
    /// that `--kernel-only` dropped from its rows).
    Full,
    /// The input does not say which samples are kernel (folded stacks
    /// without `_[k]` annotations, opreport images of unknown kind).
    Unknown,
}

/// What the event of a perf run sampled: its attributes (perf.data), else
/// the modifiers of its name (`cpu-clock:u`, `cycles:k`, `cycles:ppp`).
pub fn event_scope(run: &Profile) -> Option<EventScope> {
    if !matches!(
        run.format,
        Format::PerfData | Format::PerfReport | Format::PerfScript
    ) {
        return None;
    }
    run.event_scope
        .or_else(|| run.event.as_deref().map(name_scope))
}

/// perf's event modifiers: `u`, `k`, `h` choose the privilege levels (any
/// of them excludes the levels not named); the others (`p`, `P`, `G`, `H`,
/// `I`, `S`, `D`, `W`, `e`, `b`) leave them all.
fn name_scope(name: &str) -> EventScope {
    let all = EventScope {
        user: true,
        kernel: true,
        hv: true,
    };
    let Some((_, mods)) = name.trim_end_matches(':').rsplit_once(':') else {
        return all;
    };
    if mods.is_empty() || !mods.bytes().all(|b| b"ukhpPGHISDWeb".contains(&b)) {
        return all;
    }
    if !mods.bytes().any(|b| b"ukh".contains(&b)) {
        return all;
    }
    EventScope {
        user: mods.contains('u'),
        kernel: mods.contains('k'),
        hv: mods.contains('h'),
    }
}

/// The scope of one run (see [`Scope`]).
pub fn scope(run: &Profile) -> Scope {
    if matches!(run.format, Format::Readprofile | Format::ProcProfile) {
        return Scope::Kernel;
    }
    if let Some(e) = event_scope(run) {
        return match (e.user, e.kernel) {
            (true, true) => Scope::Full,
            (false, true) => Scope::Kernel,
            (true, false) => Scope::User,
            (false, false) => Scope::Unknown,
        };
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
    // (`--kernel-only`) or rows a report left out.
    if run.total > run.symbol_sum() + run.unattributed + 0.5 {
        Scope::Full
    } else {
        Scope::Kernel
    }
}

/// Keep only a run's samples in `keep`'s modes: those rows, a total
/// re-based on them, and the callchains whose leaf is a kept row. Returns
/// the share of the run's samples kept.
fn restrict(run: &mut Profile, keep: fn(Mode) -> bool) -> f64 {
    let before = run.total;
    let kernel = keep(Mode::Kernel);
    run.counts.retain(|k, _| k.mode.is_some_and(keep));
    run.leaves.retain(|k, _| k.mode.is_some_and(keep));
    let names: BTreeSet<&str> = run.counts.keys().map(|k| k.name.as_str()).collect();
    run.stacks
        .retain(|frames, _| frames.last().is_some_and(|f| names.contains(f.as_str())));
    // Unattributed samples (readprofile's `*unknown*`) are kernel ones.
    if !kernel {
        run.unattributed = 0.0;
    }
    // (inclusive counts climb the stack: the leaves count each sample once)
    run.total = if run.inclusive {
        run.leaves.values().sum()
    } else {
        run.symbol_sum()
    } + run.unattributed;
    if before > 0.0 {
        run.total / before
    } else {
        1.0
    }
}

/// Bring every run to the scope they share: when kernel-only (or
/// user-only) runs meet full ones, the full ones are restricted to their
/// kernel (user-space) samples. Returns the statements for the report: a
/// header note when runs were restricted, a warning when some runs cannot
/// tell their kernel samples; an error when kernel-only and user-only runs
/// meet.
pub fn common_scope(sides: &mut [Side]) -> Result<(Option<String>, Option<String>)> {
    let scopes: Vec<Vec<Scope>> = sides
        .iter()
        .map(|s| s.runs.iter().map(scope).collect())
        .collect();
    let any = |want: Scope| scopes.iter().flatten().any(|&s| s == want);
    if any(Scope::Kernel) && any(Scope::User) {
        bail!(
            "nothing to compare: the runs of {} hold kernel samples only and the runs of {} \
             user-space samples only; record both sides with the same event (cpu-clock \
             samples both, cpu-clock:u user space, cpu-clock:k the kernel)",
            kinds_of(sides, &scopes, Scope::Kernel),
            kinds_of(sides, &scopes, Scope::User)
        );
    }
    let narrow = if any(Scope::Kernel) {
        Scope::Kernel
    } else {
        Scope::User
    };
    let warning = (any(narrow) && any(Scope::Unknown)).then(|| {
        format!(
            "scope: {} ({}) {does} not say which samples are kernel, while the {} runs \
             hold {} samples only: their shares may not compare",
            crate::text::plural(count(&scopes, Scope::Unknown) as u64, "run"),
            formats_of(sides, &scopes, Scope::Unknown),
            kinds_of(sides, &scopes, narrow),
            what(narrow),
            does = if count(&scopes, Scope::Unknown) == 1 {
                "does"
            } else {
                "do"
            }
        )
    });
    if !(any(narrow) && any(Scope::Full)) {
        return Ok((None, warning));
    }
    let keep: fn(Mode) -> bool = match narrow {
        Scope::Kernel => |m| m == Mode::Kernel,
        _ => |m| m == Mode::User,
    };
    let mut kept: Vec<(String, f64)> = Vec::new();
    for (side, scopes) in sides.iter_mut().zip(&scopes) {
        for (run, &s) in side.runs.iter_mut().zip(scopes) {
            if s == Scope::Full {
                kept.push((side.name.clone(), restrict(run, keep)));
            }
        }
    }
    Ok((Some(note(sides, &scopes, narrow, &kept)), warning))
}

/// The header sentence of runs restricted to the `narrow` scope.
fn note(sides: &[Side], scopes: &[Vec<Scope>], narrow: Scope, kept: &[(String, f64)]) -> String {
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
    let what = what(narrow);
    format!(
        "scope: {what} samples only: the {} runs hold nothing else, so {} of {} {were} \
         restricted to their {what} samples ({range} of their samples), and every share is \
         of {what} samples",
        kinds_of(sides, scopes, narrow),
        crate::text::plural(kept.len() as u64, "run"),
        names
            .into_iter()
            .map(str::to_uppercase)
            .collect::<Vec<_>>()
            .join(", "),
        were = if kept.len() == 1 { "was" } else { "were" }
    )
}

fn what(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "user-space",
        _ => "kernel",
    }
}

fn count(scopes: &[Vec<Scope>], want: Scope) -> usize {
    scopes.iter().flatten().filter(|&&s| s == want).count()
}

/// The runs of one scope, with their formats and scope-setting events:
/// `readprofile, perf-data cpu-clock:k`.
fn kinds_of(sides: &[Side], scopes: &[Vec<Scope>], want: Scope) -> String {
    let kinds: BTreeSet<String> = runs_of(sides, scopes, want)
        .map(|run| match event_scope(run).zip(run.event.as_deref()) {
            Some((_, event)) => format!("{} {event}", run.format.name()),
            None => run.format.name().to_string(),
        })
        .collect();
    kinds.into_iter().collect::<Vec<_>>().join(", ")
}

/// The formats of the runs of one scope, `readprofile, proc-profile`.
fn formats_of(sides: &[Side], scopes: &[Vec<Scope>], want: Scope) -> String {
    let formats: BTreeSet<&str> = runs_of(sides, scopes, want)
        .map(|run| run.format.name())
        .collect();
    formats.into_iter().collect::<Vec<_>>().join(", ")
}

fn runs_of<'a>(
    sides: &'a [Side],
    scopes: &'a [Vec<Scope>],
    want: Scope,
) -> impl Iterator<Item = &'a Profile> {
    sides
        .iter()
        .zip(scopes)
        .flat_map(|(side, s)| side.runs.iter().zip(s))
        .filter(move |(_, &s)| s == want)
        .map(|(run, _)| run)
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

    /// A long-lived process recorded in several runs is the largest of
    /// each: the suggested `--pid` names it once.
    #[test]
    fn suggested_pids_are_named_once() {
        let with = |pids: &[(i32, f64)]| {
            let mut p = run(Format::PerfData, &[("a", Some(Mode::User), 3.0)], 3.0);
            p.kept_processes = pids.to_vec();
            p
        };
        let old = Side::new(
            "old",
            vec![
                with(&[(1765, 5.0), (29117, 4.0)]),
                with(&[(29117, 8.0), (2263, 1.0)]),
            ],
        );
        let new = Side::new(
            "new",
            vec![
                with(&[(29117, 7.0), (2524, 3.0)]),
                with(&[(2377, 5.0), (29117, 1.0)]),
            ],
        );
        let parse = ParseOptions {
            comm: Some(crate::format::filter::CommFilter::parse("dp-main").unwrap()),
            ..ParseOptions::default()
        };
        let w = shared_comm(&[old, new], &parse).unwrap();
        assert!(
            w.contains("--pid 1765,29117,2377 keeps each run's largest"),
            "{w}"
        );
    }

    fn with_event(mut p: Profile, event: &str) -> Profile {
        p.event = Some(event.to_string());
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
    fn the_event_decides_not_the_samples() {
        let k = Some(Mode::Kernel);
        let u = Some(Mode::User);
        // A full recording whose samples all landed in the kernel.
        let kernel_rows = run(Format::PerfReport, &[("a", k, 3.0)], 3.0);
        assert_eq!(
            scope(&with_event(kernel_rows.clone(), "cpu-clock")),
            Scope::Full
        );
        assert_eq!(
            scope(&with_event(kernel_rows, "cpu-clock:k")),
            Scope::Kernel
        );
        let user = run(Format::PerfScript, &[("b", u, 3.0)], 3.0);
        assert_eq!(scope(&with_event(user.clone(), "cpu-clock:u")), Scope::User);
        assert_eq!(scope(&with_event(user.clone(), "cycles:uppp")), Scope::User);
        assert_eq!(scope(&with_event(user.clone(), "cycles:ppp")), Scope::Full);
        assert_eq!(
            scope(&with_event(user.clone(), "cpu-clock:uk")),
            Scope::Full
        );
        assert_eq!(scope(&with_event(user, "sched:sched_switch")), Scope::Full);
        // perf.data's attributes outrank the name.
        let mut attr = run(Format::PerfData, &[("b", u, 3.0)], 3.0);
        attr.event = Some("cpu-clock".into());
        attr.event_scope = Some(EventScope {
            user: true,
            kernel: false,
            hv: false,
        });
        assert_eq!(scope(&attr), Scope::User);
        // opreport's event names are not perf's.
        let op = with_event(run(Format::Opreport, &[("a", None, 1.0)], 1.0), "x:u");
        assert_eq!(scope(&op), Scope::Unknown);
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
        let (note, warning) = common_scope(&mut sides).unwrap();
        let note = note.unwrap();
        assert!(
            note.contains("the readprofile runs hold nothing else")
                && note.contains("1 run of NEW was restricted")
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
        assert_eq!(common_scope(&mut alone).unwrap(), (None, None));
    }

    #[test]
    fn user_only_runs_restrict_full_ones_to_user_space() {
        let k = Some(Mode::Kernel);
        let u = Some(Mode::User);
        let user = with_event(
            run(Format::PerfScript, &[("b", u, 8.0)], 8.0),
            "cpu-clock:u",
        );
        let full = with_event(
            run(Format::PerfScript, &[("a", k, 30.0), ("b", u, 10.0)], 40.0),
            "cpu-clock",
        );
        let mut sides = vec![
            Side::new("old", vec![user.clone()]),
            Side::new("new", vec![full]),
        ];
        let note = common_scope(&mut sides).unwrap().0.unwrap();
        assert!(
            note.starts_with("scope: user-space samples only: the perf-script cpu-clock:u runs")
                && note.contains("(25.0% of their samples)"),
            "{note}"
        );
        assert_eq!(sides[1].runs[0].total, 10.0);
        // Kernel-only against user-only: nothing in common.
        let kernel = run(Format::Readprofile, &[("a", k, 3.0)], 3.0);
        let mut sides = vec![Side::new("old", vec![kernel]), Side::new("new", vec![user])];
        let e = common_scope(&mut sides).unwrap_err().to_string();
        assert!(e.starts_with("nothing to compare"), "{e}");
    }
}
