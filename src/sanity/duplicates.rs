//! One recording given more than once: runs whose counts are the same.
//!
//! Duplicate runs fake agreement: two copies of one recording have no
//! run-to-run scatter, so the noise estimate shrinks and changes turn
//! significant in an A/A comparison. Input: the sides. Output: an error
//! naming each recording given repeatedly in one side (a warning under
//! `--allow-duplicates`), and a warning for the same counts on two sides.
//! Runs are compared by their kernel counts by name (what readprofile,
//! perf report, perf script and perf.data of one recording share). Runs
//! with equal counts are copies always; runs whose counts differ a little
//! are copies only when the difference is far below what sampling alone
//! makes between two recordings ([`near`]): two formats of one recording
//! differ by a tick or two, two recordings of one workload by the Poisson
//! scatter of every count, which at millions of samples is well under 1%.
//! Equal ones are grouped by a hash of their counts; of each group one run
//! is compared with the others whose sums are within 1% (after a sort by
//! sum), and a comparison stops as soon as the difference passes 1%, so
//! many runs of one benchmark cost little.

use super::LIST_MAX;
use crate::aggregate::Side;
use crate::profile::{Mode, Name, Profile};
use anyhow::{bail, Result};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// A run: (side, index in the side).
type RunId = (usize, usize);

/// A run's counts by name, sorted by name (a [`Name`] orders by its text
/// and is equal, and hashes, by its id).
type Print = Vec<(Name, f64)>;

/// Names shown of one group of copies; the rest are counted.
const GROUP_SHOWN: usize = 4;

/// A run's counts by name: its kernel rows when it has any (what every
/// format of one recording shares), else all rows.
fn fingerprint(run: &Profile) -> Print {
    let kernel = run.counts.keys().any(|k| k.mode == Some(Mode::Kernel));
    // Counts are sorted by name first: one name's rows (several dsos or
    // modes) are adjacent.
    let mut out: Print = Vec::with_capacity(run.counts.len());
    for (k, &c) in &run.counts {
        if c > 0.0 && (!kernel || k.mode == Some(Mode::Kernel)) {
            match out.last_mut() {
                Some(last) if last.0 == k.name => last.1 += c,
                _ => out.push((k.name, c)),
            }
        }
    }
    out
}

/// Nearly equal counts: one recording, not two. With `a` and `b` as
/// shares (counts over their sums `sa`, `sb`), their L1 distance
/// `D = Σ |a_i/sa − b_i/sb|` must be at most 1% and at most a tenth of
/// the distance two independent recordings of the same shares would show
/// from Poisson sampling alone:
///
/// `E[D] ≈ Σ min(√(2/π · p_i · (1/sa + 1/sb)), 2 p_i)`, `p_i = (a_i + b_i)/(sa + sb)`
///
/// (the mean absolute value of a normal difference of variance
/// `p_i (1/sa + 1/sb)`, capped by `E|X/sa − Y/sb| ≤ 2 p_i`, which holds for
/// the sparse counts where the normal law overstates it). Two formats of
/// one recording (readprofile's bins, assembler labels) differ by a tick
/// or two, far below both; two recordings of a million samples each can
/// differ by less than 1% and are still two runs. Walks both sorted lists
/// at once and stops once the difference passes 1%.
fn near(a: &Print, sa: f64, b: &Print, sb: f64) -> bool {
    const SHARE_BOUND: f64 = 0.01;
    if sa <= 0.0 || sb <= 0.0 || (sa - sb).abs() > SHARE_BOUND * sa.max(sb) {
        return false;
    }
    let spread = std::f64::consts::FRAC_2_PI * (1.0 / sa + 1.0 / sb);
    let pooled = sa + sb;
    let (mut i, mut j, mut diff, mut expected) = (0, 0, 0.0, 0.0);
    loop {
        let (x, y) = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                i += 1;
                j += 1;
                (x.1, y.1)
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                i += 1;
                (x.1, 0.0)
            }
            (Some(x), None) => {
                i += 1;
                (x.1, 0.0)
            }
            (_, Some(y)) => {
                j += 1;
                (0.0, y.1)
            }
            (None, None) => break,
        };
        diff += (x / sa - y / sb).abs();
        if diff > SHARE_BOUND {
            return false;
        }
        let p = (x + y) / pooled;
        expected += (spread * p).sqrt().min(2.0 * p);
    }
    diff <= expected / 10.0
}

/// Union-find root.
fn root(up: &BTreeMap<RunId, RunId>, mut x: RunId) -> RunId {
    while let Some(&u) = up.get(&x) {
        x = u;
    }
    x
}

fn union(up: &mut BTreeMap<RunId, RunId>, a: RunId, b: RunId) {
    let (ra, rb) = (root(up, a), root(up, b));
    if ra != rb {
        up.insert(ra.max(rb), ra.min(rb));
    }
}

/// Groups of two or more runs (anywhere) with the same counts, each sorted,
/// in order of their first run.
fn duplicate_groups(sides: &[Side]) -> Vec<Vec<RunId>> {
    // Every run's fingerprint and its hash at once (a run per thread).
    let runs: Vec<(RunId, &Profile)> = sides
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.runs.iter().enumerate().map(move |(j, r)| ((i, j), r)))
        .collect();
    let prints: Vec<(RunId, Print, f64, u64)> = runs
        .par_iter()
        .map(|&(id, r)| {
            let f = fingerprint(r);
            let sum = f.iter().map(|x| x.1).sum();
            let mut h = rustc_hash::FxHasher::default();
            for (n, c) in &f {
                n.hash(&mut h);
                c.to_bits().hash(&mut h);
            }
            (id, f, sum, h.finish())
        })
        .collect();
    let mut up: BTreeMap<RunId, RunId> = BTreeMap::new();
    // Equal counts: by hash (checked), one representative each.
    let mut by_hash: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let mut reps = Vec::new();
    for (k, (id, f, sum, hash)) in prints.iter().enumerate() {
        if *sum <= 0.0 {
            continue;
        }
        let same = by_hash.entry(*hash).or_default();
        match same.iter().find(|&&o| prints[o].1 == *f) {
            Some(&o) => union(&mut up, prints[o].0, *id),
            None => {
                same.push(k);
                reps.push(k);
            }
        }
    }
    // Nearly equal: representatives whose sums are within 1%.
    reps.sort_by(|&a, &b| prints[a].2.total_cmp(&prints[b].2).then(a.cmp(&b)));
    for (x, &a) in reps.iter().enumerate() {
        let (ida, fa, sa, _) = &prints[a];
        for &b in &reps[x + 1..] {
            let (idb, fb, sb, _) = &prints[b];
            if *sb > sa * 1.01 + 1e-9 {
                break;
            }
            if near(fa, *sa, fb, *sb) {
                union(&mut up, *ida, *idb);
            }
        }
    }
    let mut groups: BTreeMap<RunId, Vec<RunId>> = BTreeMap::new();
    for (id, ..) in &prints {
        groups.entry(root(&up, *id)).or_default().push(*id);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

/// The file a run's source names, by device and inode, however the path
/// is spelt (`DIR/run1` and `./DIR/run1`); for an archive member
/// (`ARCHIVE:MEMBER`) the archive's file and the member; the source itself
/// when it names no file (stdin, a table's run).
fn resolved(source: &str) -> String {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &str| {
        std::fs::metadata(p)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| format!("{}:{}", m.dev(), m.ino()))
    };
    if let Some(file) = id(source) {
        return file;
    }
    source
        .rsplit_once(':')
        .and_then(|(archive, member)| id(archive).map(|a| format!("{a}:{member}")))
        .unwrap_or_else(|| source.to_string())
}

/// Runs of one side with the same counts are refused (unless allowed, then
/// a warning); the same counts on two sides are a warning.
pub(super) fn check(sides: &[Side], allow: bool) -> Result<Vec<String>> {
    let name = |(i, j): RunId| format!("{} ({})", sides[i].runs[j].source, sides[i].runs[j].format);
    let mut within: Vec<String> = Vec::new();
    let mut across: Vec<String> = Vec::new();
    let mut across_runs = 0;
    for g in duplicate_groups(sides) {
        let mut by_side: BTreeMap<usize, Vec<RunId>> = BTreeMap::new();
        for &id in &g {
            by_side.entry(id.0).or_default().push(id);
        }
        for (side, ids) in by_side.iter().filter(|(_, ids)| ids.len() > 1) {
            let shown: Vec<String> = ids.iter().take(GROUP_SHOWN).map(|&id| name(id)).collect();
            within.push(format!(
                "{}: {}{}",
                crate::text::side_name(&sides[*side].name),
                shown.join(" = "),
                if ids.len() > GROUP_SHOWN {
                    format!(" (and {} more)", ids.len() - GROUP_SHOWN)
                } else {
                    String::new()
                }
            ));
        }
        // One file named on two sides, however spelt, is said by
        // [`crate::compare::same_paths`].
        let sources: std::collections::BTreeSet<String> = g
            .iter()
            .map(|&(i, j)| resolved(&sides[i].runs[j].source))
            .collect();
        if by_side.len() > 1 && sources.len() > 1 {
            across_runs += g.len();
            let mut sided = by_side.iter().map(|(&s, ids)| (s, ids[0]));
            if let (Some((s1, a)), Some((s2, b))) = (sided.next(), sided.next()) {
                across.push(format!(
                    "{} of {} = {} of {}",
                    name(a),
                    crate::text::side_name(&sides[s1].name),
                    name(b),
                    crate::text::side_name(&sides[s2].name)
                ));
            }
        }
    }
    let mut warnings = Vec::new();
    if !within.is_empty() {
        let n = within.len();
        let more = if n > LIST_MAX {
            format!("; and {} more", n - LIST_MAX)
        } else {
            String::new()
        };
        within.truncate(LIST_MAX);
        let what = format!(
            "{n} recording(s) given more than once in one side (in several formats?), their \
             runs hold the same counts: {}{more}",
            within.join("; ")
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
        let n = across.len();
        across.truncate(3);
        warnings.push(format!(
            "{across_runs} runs on different sides hold the same counts, the same \
             recording on both sides? {}{}",
            across.join("; "),
            if n > 3 {
                format!(" and {} more", n - 3)
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
            w.contains("3 runs on different sides hold the same counts")
                && w.contains("rp.txt (readprofile) of OLD = new.txt (readprofile) of NEW"),
            "{w}"
        );
    }

    /// Two recordings of one workload at ten million samples: every count
    /// differs from its mean by one Poisson standard deviation, so their
    /// shares differ by 0.3% in all (under the old 1% rule, copies), yet
    /// that is what sampling alone makes. Two runs; the same counts with a
    /// tick moved are still one recording.
    #[test]
    fn similar_recordings_are_not_copies() {
        let mean = |s: usize| 1e5 * (1.0 + (s % 7) as f64 / 3.0);
        let rows = |sign: f64| -> Vec<(String, f64)> {
            (0..100)
                .map(|s| {
                    let m = mean(s);
                    let alt = if s % 2 == 0 { sign } else { -sign };
                    (format!("sym{s}"), (m + alt * m.sqrt()).round())
                })
                .collect()
        };
        let as_run = |name: &str, rows: &[(String, f64)]| {
            let rows: Vec<(&str, f64)> = rows.iter().map(|(n, c)| (n.as_str(), *c)).collect();
            run(name, Format::PerfData, &rows)
        };
        let (up, down) = (rows(1.0), rows(-1.0));
        let (a, b) = (as_run("a.data", &up), as_run("b.data", &down));
        let (fa, fb) = (fingerprint(&a), fingerprint(&b));
        let sum = |f: &Print| f.iter().map(|x| x.1).sum::<f64>();
        let l1: f64 = fa
            .iter()
            .zip(&fb)
            .map(|(x, y)| (x.1 / sum(&fa) - y.1 / sum(&fb)).abs())
            .sum();
        assert!(l1 < 0.01, "{l1}");
        assert!(!near(&fa, sum(&fa), &fb, sum(&fb)));
        let sides = vec![Side::new("old", vec![a.clone(), b])];
        assert!(check(&sides, false).unwrap().is_empty());
        // One tick moved between two symbols: one recording.
        let mut moved = up.clone();
        moved[0].1 += 1.0;
        moved[1].1 -= 1.0;
        let c = as_run("c.txt", &moved);
        assert!(near(&fa, sum(&fa), &fingerprint(&c), sum(&fa)));
        let sides = vec![Side::new("old", vec![a, c])];
        assert!(check(&sides, false).is_err());
    }

    /// readprofile and perf report of one real recording (testdata/README.md:
    /// readprofile/ was made from the perf.data that perf-report/ reports)
    /// are copies; two recordings of one workload are not.
    #[test]
    fn formats_of_one_real_recording_are_copies() {
        let load = |paths: &[&str]| {
            let root = env!("CARGO_MANIFEST_DIR");
            let paths: Vec<String> = paths
                .iter()
                .map(|p| format!("{root}/testdata/{p}"))
                .collect();
            crate::load::load_side(&paths, &crate::load::LoadOptions::default())
                .unwrap()
                .runs
        };
        let runs = load(&[
            "readprofile/default/sockets/run1.txt",
            "perf-report/sym-n/sockets/run1.txt",
            "readprofile/default/sockets/run2.txt",
            "perf-report/sym-n/sockets/run3.txt",
        ]);
        let sides = vec![Side::new("old", runs)];
        let groups = duplicate_groups(&sides);
        assert_eq!(groups, vec![vec![(0, 0), (0, 1)]]);
    }

    #[test]
    fn many_copies_are_grouped_and_listed_short() {
        // 100 runs: 25 copies each of 4 recordings, as in a results tree
        // built by copying.
        let rec = |k: usize| -> Vec<(String, f64)> {
            (0..300)
                .map(|s| (format!("sym{s}"), ((s * 7 + k * 13) % 50 + 1) as f64))
                .collect()
        };
        let runs: Vec<Profile> = (0..100)
            .map(|i| {
                let rows = rec(i % 4);
                let rows: Vec<(&str, f64)> = rows.iter().map(|(n, c)| (n.as_str(), *c)).collect();
                run(&format!("run{i:02}.txt"), Format::Readprofile, &rows)
            })
            .collect();
        let sides = vec![Side::new("old", runs)];
        let e = check(&sides, false).unwrap_err().to_string();
        assert!(
            e.starts_with(
                "4 recording(s) given more than once in one side (in several formats?), their \
                 runs hold the same counts: OLD: run00.txt (readprofile) = run04.txt \
                 (readprofile) = run08.txt (readprofile) = run12.txt (readprofile) (and 21 more); \
                 OLD: run01.txt"
            ),
            "{e}"
        );
    }
}
