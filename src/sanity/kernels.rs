//! What the runs say of the machines they were recorded on
//! ([`crate::profile::Provenance`]), checked across runs.
//!
//! Input: the loaded sides. Output: a header note naming the kernel map
//! each side's kernel samples were named with (and how it was chosen), and
//! warnings for what pools or compares things that differ:
//!
//! - a side whose runs are of two kernels (another release, the same
//!   release rebuilt with another build-id, or /proc/profile images whose
//!   maps cover another kernel text): its runs are not replicates;
//! - a binary named differently in two runs: one recording holds no
//!   build-id for it (`perf record -z` and pipe mode in perf 6.1,
//!   `--no-buildid`), so its names come from the file on disk, and that
//!   file is not the binary another run recorded (another build-id, or
//!   none to compare).

use super::LIST_MAX;
use crate::aggregate::Side;
use crate::profile::Profile;
use std::collections::BTreeMap;

/// The header note and the warnings.
pub fn check(sides: &[Side]) -> (Option<String>, Vec<String>) {
    let mut warnings: Vec<String> = sides.iter().filter_map(two_kernels).collect();
    warnings.extend(binaries(sides));
    (maps_note(sides), warnings)
}

/// A run's kernel, as far as the run tells, for telling two apart.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Kernel {
    release: Option<String>,
    build_id: Option<String>,
    text: Option<String>,
}

impl Kernel {
    fn of(run: &Profile) -> Option<Kernel> {
        let p = &run.provenance;
        let k = Kernel {
            release: p.release.clone(),
            build_id: p.kernel_build_id.clone(),
            text: p.kernel_text.clone(),
        };
        (k.release.is_some() || k.build_id.is_some() || k.text.is_some()).then_some(k)
    }

    /// Two kernels, not one: each field that both know differs.
    fn differs(&self, other: &Kernel) -> bool {
        let differ =
            |a: &Option<String>, b: &Option<String>| matches!((a, b), (Some(a), Some(b)) if a != b);
        differ(&self.release, &other.release)
            || differ(&self.build_id, &other.build_id)
            || differ(&self.text, &other.text)
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(r) = &self.release {
            parts.push(r.clone());
        }
        if let Some(b) = &self.build_id {
            parts.push(format!("build-id {b}"));
        }
        if let Some(t) = &self.text {
            parts.push(format!("kernel text {t}"));
        }
        parts.join(", ")
    }
}

/// `a, b and 3 more`.
fn names(runs: &[&str]) -> String {
    let mut shown: Vec<String> = runs.iter().take(LIST_MAX).map(|s| s.to_string()).collect();
    if runs.len() > LIST_MAX {
        shown.push(format!("and {} more", runs.len() - LIST_MAX));
    }
    shown.join(", ")
}

/// The warning for a side whose runs are of two kernels or more.
fn two_kernels(side: &Side) -> Option<String> {
    let mut groups: Vec<(Kernel, Vec<&str>)> = Vec::new();
    for run in &side.runs {
        let Some(k) = Kernel::of(run) else { continue };
        match groups.iter_mut().find(|(g, _)| !g.differs(&k)) {
            Some((_, runs)) => runs.push(&run.source),
            None => groups.push((k, vec![&run.source])),
        }
    }
    if groups.len() < 2 {
        return None;
    }
    let list: Vec<String> = groups
        .iter()
        .map(|(k, runs)| format!("{} ({})", k.describe(), names(runs)))
        .collect();
    Some(format!(
        "{} pools runs of {} kernels: {}; a side's runs are meant to be replicates of one \
         kernel: give each kernel its own side",
        crate::text::side_name(&side.name),
        groups.len(),
        list.join(" and ")
    ))
}

/// The warnings for binaries that two runs name from different files.
fn binaries(sides: &[Side]) -> Vec<String> {
    // dso → its (run, recorded, named_by) in every run that has samples in it.
    type Seen<'a> = Vec<(&'a str, Option<&'a str>, Option<&'a str>, bool)>;
    let mut by_dso: BTreeMap<&str, Seen> = BTreeMap::new();
    for run in sides.iter().flat_map(|s| &s.runs) {
        for (dso, id) in &run.provenance.binaries {
            by_dso.entry(dso).or_default().push((
                &run.source,
                id.recorded.as_deref(),
                id.named_by.as_deref(),
                id.named,
            ));
        }
    }
    let mut out = Vec::new();
    for (dso, seen) in by_dso {
        let recorded: BTreeMap<&str, Vec<&str>> =
            seen.iter()
                .fold(BTreeMap::new(), |mut m, &(run, rec, _, _)| {
                    if let Some(r) = rec {
                        m.entry(r).or_insert_with(Vec::new).push(run);
                    }
                    m
                });
        // Runs without a recorded build-id named from a file on disk that
        // is not what some other run recorded (a run no file named has
        // only `[unknown]` samples there, which their warning explains).
        let mut unvouched: BTreeMap<Option<&str>, Vec<&str>> = BTreeMap::new();
        for &(run, rec, named, read) in &seen {
            if read && rec.is_none() && recorded.keys().any(|&r| Some(r) != named) {
                unvouched.entry(named).or_default().push(run);
            }
        }
        for (named, runs) in unvouched {
            let disk = match named {
                Some(id) => format!("the file on disk, build-id {id}"),
                None => "the file on disk, which has no build-id".to_string(),
            };
            let others: Vec<String> = recorded
                .iter()
                .filter(|(&r, _)| Some(r) != named)
                .map(|(r, runs)| format!("build-id {r} ({})", names(runs)))
                .collect();
            out.push(format!(
                "{dso}: {} recorded no build-id for it (perf record -z, -o - or --no-buildid), \
                 so its names come from {disk}, but other runs recorded {}: the names of the \
                 two may not match (record with --buildid-mmap, or give the recorded binaries \
                 with --symfs DIR)",
                names(&runs),
                others.join(" and ")
            ));
        }
    }
    out
}

/// `kernel symbols: OLD kallsyms.gz (beside the run); NEW b
/// (--new-kallsyms)`, when any run named kernel samples with a map. A map
/// beside its run is named by its file name: its directory is the run's
/// (in a tree, an archive or on disk alike).
fn maps_note(sides: &[Side]) -> Option<String> {
    let shown = |m: &str| -> String {
        match m.find(" (beside the run") {
            Some(at) => {
                let (path, how) = m.split_at(at);
                let base = path.rsplit(['/', ':']).next().unwrap_or(path);
                format!("{base}{how}")
            }
            None => m.to_string(),
        }
    };
    let mut parts = Vec::new();
    for side in sides {
        let mut maps: Vec<String> = side
            .runs
            .iter()
            .filter_map(|r| r.provenance.kernel_map.as_deref())
            .map(shown)
            .collect();
        maps.sort_unstable();
        maps.dedup();
        if !maps.is_empty() {
            let maps: Vec<&str> = maps.iter().map(String::as_str).collect();
            parts.push(format!(
                "{} {}",
                crate::text::side_name(&side.name),
                names(&maps)
            ));
        }
    }
    (!parts.is_empty()).then(|| format!("kernel symbols: {}", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{BinaryId, Format};

    fn run(
        source: &str,
        release: Option<&str>,
        libc: Option<(Option<&str>, Option<&str>)>,
    ) -> Profile {
        let mut p = Profile::new(source, Format::PerfData);
        p.provenance.release = release.map(str::to_string);
        if let Some((recorded, named_by)) = libc {
            p.provenance.binaries.insert(
                "/lib/libc.so.6".into(),
                BinaryId {
                    recorded: recorded.map(str::to_string),
                    named_by: named_by.map(str::to_string),
                    named: true,
                },
            );
        }
        p
    }

    #[test]
    fn two_kernels_on_one_side_are_named() {
        let side = Side::new(
            "old",
            vec![
                run("a.data", Some("6.1.0"), None),
                run("b.data", Some("6.2.0"), None),
                run("c.data", None, None),
                run("d.data", Some("6.1.0"), None),
            ],
        );
        let w = two_kernels(&side).unwrap();
        assert!(
            w.starts_with("OLD pools runs of 2 kernels: 6.1.0 (a.data, d.data) and 6.2.0 (b.data)"),
            "{w}"
        );
        let one = Side::new(
            "new",
            vec![run("a", Some("6.1.0"), None), run("b", None, None)],
        );
        assert_eq!(two_kernels(&one), None);
    }

    #[test]
    fn a_binary_named_from_another_file_is_said() {
        let sides = [
            Side::new(
                "old",
                vec![run("plain.data", None, Some((Some("aa"), Some("aa"))))],
            ),
            Side::new(
                "new",
                vec![
                    run("z.data", None, Some((None, Some("bb")))),
                    run("z2.data", None, Some((None, Some("aa")))),
                ],
            ),
        ];
        let w = binaries(&sides);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("/lib/libc.so.6: z.data recorded no build-id")
                && w[0].contains("build-id bb")
                && w[0].contains("recorded build-id aa (plain.data)"),
            "{}",
            w[0]
        );
        // The file on disk is the recorded one: nothing to say.
        let same = [Side::new(
            "old",
            vec![
                run("plain.data", None, Some((Some("aa"), Some("aa")))),
                run("z2.data", None, Some((None, Some("aa")))),
            ],
        )];
        assert!(binaries(&same).is_empty());
    }
}
