//! One recording given more than once: runs whose counts are the same.
//!
//! Duplicate runs fake agreement: two copies of one recording have no
//! run-to-run scatter, so the noise estimate shrinks and changes turn
//! significant in an A/A comparison. Input: the sides. Output: an error
//! naming each recording given repeatedly in one side (a warning under
//! `--allow-duplicates`), and a warning for the same counts on two sides.
//! Runs are compared by their kernel counts by name (what readprofile,
//! perf report, perf script and perf.data of one recording share), equal
//! or within 1% of the samples; only runs whose sums are within 1% are
//! compared, after a sort by sum.

use super::LIST_MAX;
use crate::aggregate::Side;
use crate::profile::{Mode, Profile};
use anyhow::{bail, Result};
use std::collections::{BTreeMap, BTreeSet};

/// A run: (side, index in the side).
type RunId = (usize, usize);

/// A run's counts by name.
type Print<'a> = BTreeMap<&'a str, f64>;

/// A run's counts by name: its kernel rows when it has any (what every
/// format of one recording shares), else all rows.
fn fingerprint(run: &Profile) -> Print<'_> {
    let kernel = run.counts.keys().any(|k| k.mode == Some(Mode::Kernel));
    let mut out: BTreeMap<&str, f64> = BTreeMap::new();
    for (k, &c) in &run.counts {
        if c > 0.0 && (!kernel || k.mode == Some(Mode::Kernel)) {
            *out.entry(k.name.as_str()).or_default() += c;
        }
    }
    out
}

/// Same counts, or within 1% of the samples (two formats of one recording
/// may differ by a tick or two: readprofile's bins, assembler labels).
fn same(a: &Print<'_>, sa: f64, b: &Print<'_>, sb: f64) -> bool {
    if sa <= 0.0 || sb <= 0.0 || (sa - sb).abs() > 0.01 * sa.max(sb) {
        return false;
    }
    let names: BTreeSet<&&str> = a.keys().chain(b.keys()).collect();
    let diff: f64 = names
        .into_iter()
        .map(|n| (a.get(*n).unwrap_or(&0.0) - b.get(*n).unwrap_or(&0.0)).abs())
        .sum();
    diff <= 0.01 * sa.max(sb)
}

/// Pairs of runs (by side and index) with the same counts.
fn duplicate_pairs(sides: &[Side]) -> Vec<(RunId, RunId)> {
    let mut prints: Vec<(RunId, Print<'_>, f64)> = Vec::new();
    for (i, s) in sides.iter().enumerate() {
        for (j, r) in s.runs.iter().enumerate() {
            let f = fingerprint(r);
            let sum = f.values().sum();
            prints.push(((i, j), f, sum));
        }
    }
    // Only runs whose sums are within 1% can match: sort by sum, look ahead.
    prints.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(&b.0)));
    let mut out = Vec::new();
    for (x, (ia, fa, sa)) in prints.iter().enumerate() {
        for (ib, fb, sb) in &prints[x + 1..] {
            if *sb > sa * 1.01 + 1e-9 {
                break;
            }
            if same(fa, *sa, fb, *sb) {
                out.push(((*ia).min(*ib), (*ia).max(*ib)));
            }
        }
    }
    out.sort();
    out
}

/// Runs of one side with the same counts are refused (unless allowed, then
/// a warning); the same counts on two sides are a warning.
pub(super) fn check(sides: &[Side], allow: bool) -> Result<Vec<String>> {
    let pairs = duplicate_pairs(sides);
    let name = |(i, j): RunId| format!("{} ({})", sides[i].runs[j].source, sides[i].runs[j].format);
    let (within, mut across): (Vec<_>, Vec<_>) = pairs.into_iter().partition(|(a, b)| a.0 == b.0);
    // One file named on two sides is said by [`same_paths`].
    across.retain(|&(a, b)| sides[a.0].runs[a.1].source != sides[b.0].runs[b.1].source);
    let mut warnings = Vec::new();
    // Runs of one side, grouped: each group one recording given repeatedly.
    let mut group: BTreeMap<RunId, RunId> = BTreeMap::new();
    fn root(group: &BTreeMap<RunId, RunId>, mut x: RunId) -> RunId {
        while let Some(&up) = group.get(&x) {
            x = up;
        }
        x
    }
    for &(a, b) in &within {
        let (ra, rb) = (root(&group, a), root(&group, b));
        if ra != rb {
            group.insert(ra.max(rb), ra.min(rb));
        }
    }
    let mut groups: BTreeMap<RunId, Vec<RunId>> = BTreeMap::new();
    for &(a, b) in &within {
        for x in [a, b] {
            let members = groups.entry(root(&group, x)).or_default();
            if !members.contains(&x) {
                members.push(x);
            }
        }
    }
    if !groups.is_empty() {
        let shown: Vec<String> = groups
            .values()
            .take(LIST_MAX)
            .map(|g| {
                let mut g = g.clone();
                g.sort();
                let side = sides[g[0].0].name.to_uppercase();
                let names: Vec<String> = g.into_iter().map(name).collect();
                format!("{side}: {}", names.join(" = "))
            })
            .collect();
        let more = if groups.len() > LIST_MAX {
            format!("; and {} more", groups.len() - LIST_MAX)
        } else {
            String::new()
        };
        let what = format!(
            "{} recording(s) given more than once in one side (in several formats?), their \
             runs hold the same counts: {}{more}",
            groups.len(),
            shown.join("; ")
        );
        if !allow {
            bail!(
                "{what}; duplicates fake agreement between runs and make noise look smaller \
                 than it is: give each recording once, or --allow-duplicates"
            );
        }
        warnings.push(format!("--allow-duplicates: {what}"));
    }
    if !across.is_empty() {
        let shown: Vec<String> = across
            .iter()
            .take(3)
            .map(|&(a, b)| {
                format!(
                    "{} of {} = {} of {}",
                    name(a),
                    sides[a.0].name.to_uppercase(),
                    name(b),
                    sides[b.0].name.to_uppercase()
                )
            })
            .collect();
        warnings.push(format!(
            "{} run(s) hold the same counts as a run of another side, the same recording \
             on both sides? {}{}",
            across.len(),
            shown.join("; "),
            if across.len() > 3 {
                format!(" and {} more", across.len() - 3)
            } else {
                String::new()
            }
        ));
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::ParseOptions;
    use crate::identity::Identity;
    use crate::profile::{Format, SymbolKey};
    use crate::sanity::prepare;

    fn run(source: &str, format: Format, rows: &[(&str, f64)]) -> Profile {
        let mut p = Profile::new(source, format);
        for &(n, c) in rows {
            p.add(SymbolKey::new(n).with_mode(Some(Mode::Kernel)), c);
            p.total += c;
        }
        p
    }

    #[test]
    fn one_recording_twice_in_a_side_is_refused() {
        let rows = [("a", 500.0), ("b", 300.0), ("c", 200.0)];
        let mut near = rows;
        near[0].1 += 3.0;
        near[1].1 -= 2.0;
        let mut sides = vec![
            Side::new(
                "old",
                vec![
                    run("rp.txt", Format::Readprofile, &rows),
                    run("report.txt", Format::PerfReport, &near),
                    run(
                        "other.txt",
                        Format::Readprofile,
                        &[("a", 400.0), ("b", 600.0)],
                    ),
                ],
            ),
            Side::new("new", vec![run("new.txt", Format::Readprofile, &rows)]),
        ];
        let e = prepare(
            &mut sides,
            &ParseOptions::default(),
            &Identity::default(),
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("1 recording(s) given more than once in one side")
                && e.contains("OLD: rp.txt (readprofile) = report.txt (perf-report);")
                && e.contains("--allow-duplicates"),
            "{e}"
        );
        let found = prepare(
            &mut sides,
            &ParseOptions::default(),
            &Identity::default(),
            true,
        )
        .unwrap();
        let w = found.warnings.join("\n");
        assert!(w.contains("--allow-duplicates: 1 recording(s)"), "{w}");
        assert!(
            w.contains("OLD mixes input formats (1 perf-report, 2 readprofile runs)"),
            "{w}"
        );
        // Across sides: a warning each.
        assert!(
            w.contains("2 run(s) hold the same counts as a run of another side")
                && w.contains("rp.txt (readprofile) of OLD = new.txt (readprofile) of NEW"),
            "{w}"
        );
    }
}
