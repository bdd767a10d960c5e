//! What each perf.data run sampled: the whole system (`perf record -a`),
//! some CPUs (`-C`), or the recorded command's tasks alone, as perf's
//! command line in the recording says (`HEADER_CMDLINE`).
//!
//! Input: the loaded sides. Output: warnings when runs that are compared
//! or pooled differ in it: a system-wide side holds every process and the
//! idle time, a per-task side the workload's samples alone, so their shares
//! are not of one thing. One warning per side whose runs differ, and one per
//! side recorded otherwise than the baseline, each naming the commands.

use super::LIST_MAX;
use crate::aggregate::Side;
use crate::text::side_name;

/// How a run was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reach {
    System,
    Cpus,
    Task,
}

impl Reach {
    fn describe(self) -> &'static str {
        match self {
            Reach::System => "system-wide",
            Reach::Cpus => "on chosen CPUs",
            Reach::Task => "per task",
        }
    }
}

/// Short options of `perf record` that take a value (`-e cpu-clock`, or
/// glued: `-Fmax`).
const SHORT_VALUE: &str = "eFocCptumGrjkD";
/// Long options of `perf record` that take a value when not given with `=`.
const LONG_VALUE: &[&str] = &[
    "event",
    "filter",
    "pid",
    "tid",
    "uid",
    "cpu",
    "freq",
    "output",
    "count",
    "mmap-pages",
    "call-graph",
    "cgroup",
    "clockid",
    "branch-filter",
    "delay",
    "max-size",
    "affinity",
    "mmap-flush",
    "control",
    "synth",
    "setup-filter",
    "exclude-perf",
];

/// The reach of a `perf record …` command line; None for anything else
/// (another perf command, no command line).
fn reach(args: &[String]) -> Option<Reach> {
    if args.get(1).map(String::as_str) != Some("record") {
        return None;
    }
    let mut found = Reach::Task;
    let mut it = args[2..].iter();
    while let Some(a) = it.next() {
        if a == "--" || !a.starts_with('-') || a == "-" {
            break; // the workload's command starts here
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, glued) = long
                .split_once('=')
                .map_or((long, false), |(n, _)| (n, true));
            match name {
                "all-cpus" => found = Reach::System,
                "cpu" if found != Reach::System => found = Reach::Cpus,
                _ => {}
            }
            if !glued && LONG_VALUE.contains(&name) {
                it.next();
            }
            continue;
        }
        for (i, c) in a[1..].char_indices() {
            match c {
                'a' => found = Reach::System,
                'C' if found != Reach::System => found = Reach::Cpus,
                _ => {}
            }
            if SHORT_VALUE.contains(c) {
                if i + c.len_utf8() == a.len() - 1 {
                    it.next();
                }
                break;
            }
        }
    }
    Some(found)
}

/// Whether option word `a` is followed by its value (`-e`, `-ag -F`,
/// `--event`; not `-F499` nor `--event=x`).
fn takes_value(a: &str) -> bool {
    if let Some(long) = a.strip_prefix("--") {
        return !long.contains('=') && LONG_VALUE.contains(&long);
    }
    let Some(short) = a.strip_prefix('-') else {
        return false;
    };
    match short.char_indices().find(|(_, c)| SHORT_VALUE.contains(*c)) {
        Some((i, c)) => i + c.len_utf8() == short.len(),
        None => false,
    }
}

/// A command line as shown: `perf record -a -F 499 -- spin`, perf named by
/// its file name, without the output file (`-o FILE`), at most about 100
/// characters.
fn shown(args: &[String]) -> String {
    let mut words: Vec<&str> = Vec::with_capacity(args.len());
    let mut it = args.iter().map(String::as_str);
    if let Some(first) = it.next() {
        words.push(first.rsplit('/').next().unwrap_or(first));
    }
    words.extend(it.next()); // `record`
                             // (options end at `--` or at the workload's first word)
    let (mut options, mut value) = (true, false);
    while let Some(a) = it.next() {
        options &= a != "--" && (value || a.starts_with('-'));
        value = options && takes_value(a);
        if options && (a == "-o" || a == "--output") {
            it.next();
            value = false;
        } else if !(options && (a.starts_with("--output=") || a.starts_with("-o"))) {
            words.push(a);
        }
    }
    let line = words.join(" ");
    if line.chars().count() <= 100 {
        return line;
    }
    let cut: String = line.chars().take(97).collect();
    format!("{cut}…")
}

/// Each run of `side` with a known reach: (source, reach, command).
fn runs(side: &Side) -> Vec<(&str, Reach, String)> {
    side.runs
        .iter()
        .filter_map(|r| {
            let args = r.provenance.cmdline.as_deref()?;
            Some((r.source.as_str(), reach(args)?, shown(args)))
        })
        .collect()
}

/// The warnings (see the module text).
pub fn check(sides: &[Side]) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut uniform: Vec<Option<(Reach, String)>> = Vec::new();
    for side in sides {
        let runs = runs(side);
        let mut kinds: Vec<Reach> = runs.iter().map(|r| r.1).collect();
        kinds.sort();
        kinds.dedup();
        match kinds.as_slice() {
            [one] => uniform.push(Some((*one, runs[0].2.clone()))),
            [] => uniform.push(None),
            _ => {
                uniform.push(None);
                let listed: Vec<String> = kinds
                    .iter()
                    .map(|k| {
                        let of: Vec<&(&str, Reach, String)> =
                            runs.iter().filter(|r| r.1 == *k).collect();
                        let named: Vec<String> = of
                            .iter()
                            .take(LIST_MAX)
                            .map(|r| format!("{}: `{}`", r.0, r.2))
                            .collect();
                        let more = match of.len().saturating_sub(LIST_MAX) {
                            0 => String::new(),
                            n => format!(" and {n} more"),
                        };
                        format!(
                            "{} {} ({}{more})",
                            crate::text::plural(of.len() as u64, "run"),
                            k.describe(),
                            named.join("; ")
                        )
                    })
                    .collect();
                warnings.push(format!(
                    "{}'s runs were recorded differently: {}; they are not replicates of one \
                     thing (a system-wide run holds every process and the idle time, a \
                     per-task run the workload's samples alone)",
                    side_name(&side.name),
                    listed.join(", ")
                ));
            }
        }
    }
    let Some(Some((base, base_cmd))) = uniform.first().cloned() else {
        return warnings;
    };
    for (side, u) in sides.iter().zip(&uniform).skip(1) {
        let Some((reach, cmd)) = u else { continue };
        if *reach == base {
            continue;
        }
        warnings.push(format!(
            "{} was recorded {}: `{base_cmd}`, and {} {}: `{cmd}`; system-wide shares hold \
             every process and the idle time, per-task shares the workload's alone, so they \
             are not of one thing; record both sides alike, or compare the workload's \
             own samples with --comm",
            side_name(&sides[0].name),
            base.describe(),
            side_name(&side.name),
            reach.describe(),
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn commands_are_shown_without_their_output_file() {
        let s = |l: &str| shown(&args(l));
        assert_eq!(
            s("/usr/bin/perf record -a -o /tmp/x.data -F 499 -- sort -o y"),
            "perf record -a -F 499 -- sort -o y"
        );
        assert_eq!(
            s("perf record --output=x -ox sleep 1"),
            "perf record sleep 1"
        );
        assert_eq!(
            s("perf record -e cpu-clock -o x sort -o y"),
            "perf record -e cpu-clock sort -o y"
        );
    }

    #[test]
    fn command_lines_say_what_was_sampled() {
        let r = |l: &str| reach(&args(l));
        assert_eq!(
            r("/usr/bin/perf record -a -e cpu-clock -F 499 -o x -- timeout 1.5 spin"),
            Some(Reach::System)
        );
        assert_eq!(
            r("perf record -e cpu-clock -F 999 -g -o x -- ./spin -a"),
            Some(Reach::Task)
        );
        assert_eq!(r("perf record -ag -o x sleep 1"), Some(Reach::System));
        assert_eq!(r("perf record -ga sleep 1"), Some(Reach::System));
        // `-e a` is the event `a`, `-oa` the file `a`: no -a.
        assert_eq!(r("perf record -e a -oa sleep 1"), Some(Reach::Task));
        assert_eq!(
            r("perf record --call-graph dwarf --all-cpus sleep 1"),
            Some(Reach::System)
        );
        assert_eq!(
            r("perf record --output=a -C 0-1 sleep 1"),
            Some(Reach::Cpus)
        );
        assert_eq!(r("perf record -p 4242"), Some(Reach::Task));
        assert_eq!(r("perf stat record -a"), None);
    }
}
