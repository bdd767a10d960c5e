//! One convention for samples that no symbol claims, in every perf reader.
//!
//! perf.data, `perf script` and `perf report` text all count such a
//! sample as the symbol `[unknown]` in its dso (`[unknown]` too when not
//! even the mapping is known), never per address: perf report lists one
//! `0x…` row per unresolved address, which would make rows of one binary
//! differ between runs by the addresses that happened to be hit. The
//! warning built here counts them and names the largest dsos in one short
//! line; its detail (per dso, why the binary gave no names, and what
//! would name them) is given on request (`--wide`).

use crate::profile::{Profile, Unresolved, Weight};
use std::collections::BTreeMap;

/// The name (and, without a mapping, the dso) of unresolved samples.
pub const UNKNOWN: &str = "[unknown]";

/// perf report's name for an unresolved address: `0x` and hex digits.
pub fn is_address(name: &str) -> bool {
    name.len() > 2 && name.starts_with("0x") && name[2..].bytes().all(|c| c.is_ascii_hexdigit())
}

/// The `[unknown]` counts of a profile per dso (`[unknown]` when the row
/// has none), largest first, then by name; under `--inclusive` of the
/// samples whose own (leaf) frame is unresolved, each counted once (an
/// `[unknown]` caller is in most chains).
pub fn by_dso(p: &Profile) -> Vec<(String, f64)> {
    let mut m: BTreeMap<&str, f64> = BTreeMap::new();
    let counts = if p.inclusive || !p.leaves.is_empty() {
        &p.leaves
    } else {
        &p.counts
    };
    for (k, &c) in counts {
        if k.name == UNKNOWN && c > 0.0 {
            *m.entry(k.dso.as_deref().unwrap_or(UNKNOWN)).or_insert(0.0) += c;
        }
    }
    let mut v: Vec<(String, f64)> = m.into_iter().map(|(d, c)| (d.to_string(), c)).collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// What to keep on a run about its unresolved samples (None when it has
/// none): `why` explains one dso (perf.data knows why each binary gave no
/// names); `hint` says what would name them.
pub fn note(p: &Profile, why: &dyn Fn(&str) -> Option<String>, hint: &str) -> Option<Unresolved> {
    let rows = by_dso(p);
    if rows.is_empty() {
        return None;
    }
    Some(Unresolved {
        why: rows
            .iter()
            .filter_map(|(d, _)| why(d).map(|w| (d.clone(), w)))
            .collect(),
        hint: hint.to_string(),
    })
}

/// One warning for the unresolved samples of all `runs`, or None when no
/// run has any. Short (`detail` false): `N samples (P%) not resolved to a
/// symbol ([unknown]): dd 8, libc.so.6 7 and 1 more dso; --wide says why`,
/// the counts summed over the runs, the largest dsos named by file name.
/// With `detail`: `N sample(s) [in R runs] not resolved to a symbol,
/// counted as [unknown] in their dso: DSO N (why), …; hint`, a single run
/// named by its source.
pub fn summary(runs: &[&Profile], detail: bool) -> Option<String> {
    let all: f64 = runs.iter().map(|p| p.total).sum();
    summary_of(runs, (all, false), detail)
}

/// [`summary`] for the runs of a comparison, each with the base its shares
/// are of (its total, or with `relative` the samples the filters kept):
/// the short line's percentage is of the same base as the table's shares.
/// One warning per weight the runs hold (periods and samples are never
/// added up).
pub fn summaries(runs: &[(&Profile, f64)], relative: bool, detail: bool) -> Vec<String> {
    let mut weights: Vec<Weight> = Vec::new();
    for (p, _) in runs {
        if !weights.contains(&p.weight) {
            weights.push(p.weight);
        }
    }
    weights
        .into_iter()
        .filter_map(|w| {
            let of: Vec<&(&Profile, f64)> = runs.iter().filter(|r| r.0.weight == w).collect();
            let profiles: Vec<&Profile> = of.iter().map(|r| r.0).collect();
            let base: f64 = of.iter().map(|r| r.1).sum();
            summary_of(&profiles, (base, relative), detail)
        })
        .collect()
}

/// [`summary`] with the short line's percentage of `base` (`relative`: of
/// the kept samples, said).
fn summary_of(runs: &[&Profile], (base, relative): (f64, bool), detail: bool) -> Option<String> {
    let mut sums: BTreeMap<String, f64> = BTreeMap::new();
    let mut why: BTreeMap<&str, &str> = BTreeMap::new();
    let mut hints: Vec<&str> = Vec::new();
    let mut with = Vec::new();
    for p in runs {
        let Some(u) = &p.unresolved else { continue };
        let rows = by_dso(p);
        if rows.is_empty() {
            continue;
        }
        with.push(p);
        for (d, c) in rows {
            *sums.entry(d).or_insert(0.0) += c;
        }
        for (d, w) in &u.why {
            why.entry(d.as_str()).or_insert(w.as_str());
        }
        if !u.hint.is_empty() && !hints.contains(&u.hint.as_str()) {
            hints.push(u.hint.as_str());
        }
    }
    let first = with.first()?;
    let mut rows: Vec<(String, f64)> = merge_bare(sums).into_iter().collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let total: f64 = rows.iter().map(|r| r.1).sum();
    if !detail {
        return Some(short(&rows, total, (base, relative), first.weight));
    }
    let unit = match first.weight {
        Weight::Samples if total == 1.0 => "sample",
        Weight::Samples => "samples",
        Weight::Period => "period",
        Weight::Percent => "estimated samples",
    };
    let mut list: Vec<String> = rows
        .iter()
        .take(SHOWN)
        .map(|(dso, c)| match why.get(dso.as_str()) {
            Some(w) => format!("{dso} {} ({w})", count(*c)),
            None => format!("{dso} {}", count(*c)),
        })
        .collect();
    if rows.len() > SHOWN {
        let rest: f64 = rows[SHOWN..].iter().map(|r| r.1).sum();
        list.push(format!(
            "{} in {} more dso(s)",
            count(rest),
            rows.len() - SHOWN
        ));
    }
    let whose = match with.len() {
        1 => format!("{}: {} {unit}", first.source, count(total)),
        n => format!("{} {unit} in {n} runs", count(total)),
    };
    let mut w = format!(
        "{whose} not resolved to a symbol, counted as [unknown] in their dso: {}",
        list.join("; ")
    );
    for h in hints {
        w.push_str("; ");
        w.push_str(h);
    }
    Some(w)
}

/// The one-line form of [`summary`]: how many, their share of `all`, the
/// two largest dsos by file name and how many more.
fn short(
    rows: &[(String, f64)],
    total: f64,
    (all, relative): (f64, bool),
    weight: Weight,
) -> String {
    let what = match (weight, total == 1.0) {
        (Weight::Samples, true) => "1 sample".to_string(),
        (Weight::Samples, false) => format!("{} samples", count(total)),
        (Weight::Period, _) => format!("period {}", count(total)),
        (Weight::Percent, _) => format!("about {} samples", count(total)),
    };
    let share = if all > 0.0 && relative {
        format!(" ({:.1}% of the kept)", 100.0 * total / all)
    } else if all > 0.0 {
        format!(" ({:.1}%)", 100.0 * total / all)
    } else {
        String::new()
    };
    let named: Vec<String> = rows
        .iter()
        .take(NAMED)
        .map(|(d, c)| format!("{} {}", shown_name(d, rows), count(*c)))
        .collect();
    let more = match rows.len().saturating_sub(NAMED) {
        0 => String::new(),
        1 => " and 1 more dso".to_string(),
        n => format!(" and {n} more dsos"),
    };
    format!(
        "{what}{share} not resolved to a symbol ([unknown]): {}{more}; --wide says why",
        named.join(", ")
    )
}

/// `/usr/bin/sha256sum` → `sha256sum`; `[unknown]` stays.
/// The counts by dso with each bare file name (a perf report's `cc1`) put
/// with the one full path of that name (perf.data's
/// `/usr/libexec/gcc/x86_64-linux-gnu/12/cc1`) when there is exactly one:
/// one binary, named two ways by two inputs, is one row of the warning.
fn merge_bare(sums: BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let mut paths: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for d in sums.keys().filter(|d| d.contains('/')) {
        paths.entry(file_name(d)).or_default().push(d);
    }
    let mut out: BTreeMap<String, f64> = BTreeMap::new();
    for (d, c) in &sums {
        let to = match paths.get(d.as_str()) {
            Some(p) if !d.contains('/') && p.len() == 1 => p[0],
            _ => d.as_str(),
        };
        *out.entry(to.to_string()).or_insert(0.0) += c;
    }
    out
}

/// `dso` as the short line names it: its file name, or the whole path
/// when another of `rows` has the same file name (two binaries apart).
fn shown_name<'a>(dso: &'a str, rows: &[(String, f64)]) -> &'a str {
    let name = file_name(dso);
    let twice = rows.iter().filter(|(d, _)| file_name(d) == name).count() > 1;
    if twice {
        dso
    } else {
        name
    }
}

fn file_name(dso: &str) -> &str {
    if dso.starts_with('[') {
        return dso;
    }
    dso.rsplit('/')
        .next()
        .filter(|f| !f.is_empty())
        .unwrap_or(dso)
}

/// The dsos the short warning names.
const NAMED: usize = 2;

/// The dsos a warning names (the largest counts); the rest are summed.
const SHOWN: usize = 3;

fn count(c: f64) -> String {
    if c.fract() == 0.0 && c.abs() < 1e15 {
        format!("{}", c as i64)
    } else {
        format!("{c:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Format, SymbolKey};

    /// A perf report's bare `cc1` and perf.data's full path of it are one
    /// dso of the warning; two binaries of one file name are named apart.
    #[test]
    fn a_bare_name_joins_its_one_full_path() {
        let key = |d: &str| SymbolKey::new(UNKNOWN).with_dso(Some(crate::profile::Name::new(d)));
        let mut report = Profile::new("r.txt", Format::PerfReport);
        report.add(key("cc1"), 94.0);
        report.unresolved = note(&report, &|_| None, "");
        let mut data = Profile::new("d.data", Format::PerfData);
        data.add(key("/usr/libexec/gcc/x86_64-linux-gnu/12/cc1"), 236.0);
        data.unresolved = note(&data, &|_| None, "");
        let w = summary(&[&report, &data], false).unwrap();
        assert!(w.contains("([unknown]): cc1 330;"), "{w}");
        let mut other = Profile::new("e.data", Format::PerfData);
        other.add(key("/opt/gcc/cc1"), 5.0);
        other.unresolved = note(&other, &|_| None, "");
        let w = summary(&[&report, &data, &other], false).unwrap();
        assert!(
            w.contains("/usr/libexec/gcc/x86_64-linux-gnu/12/cc1 236, cc1 94 and 1 more dso"),
            "{w}"
        );
    }

    #[test]
    fn counts_per_dso_largest_first() {
        let mut p = Profile::new("x.data", Format::PerfData);
        let key =
            |n: &str, d: Option<&str>| SymbolKey::new(n).with_dso(d.map(crate::profile::Name::new));
        p.add(key(UNKNOWN, Some("/usr/bin/dd")), 3.0);
        p.add(key(UNKNOWN, Some("libc.so.6")), 7.0);
        p.add(key(UNKNOWN, None), 1.0);
        p.add(key("read", Some("libc.so.6")), 9.0);
        assert_eq!(
            by_dso(&p),
            [
                ("libc.so.6".to_string(), 7.0),
                ("/usr/bin/dd".to_string(), 3.0),
                (UNKNOWN.to_string(), 1.0)
            ]
        );
        p.unresolved = note(
            &p,
            &|d| (d == "/usr/bin/dd").then(|| "stripped".to_string()),
            "give --symfs",
        );
        let w = summary(&[&p], true).unwrap();
        assert_eq!(
            w,
            "x.data: 11 samples not resolved to a symbol, counted as [unknown] in their dso: \
             libc.so.6 7; /usr/bin/dd 3 (stripped); [unknown] 1; give --symfs"
        );
        assert!(is_address("0x00000000000f5746") && !is_address("0x") && !is_address("0xg"));
        // Several runs: counts summed, one sentence.
        let mut q = Profile::new("y.data", Format::PerfData);
        q.add(key(UNKNOWN, Some("/usr/bin/dd")), 5.0);
        q.unresolved = note(&q, &|_| None, "give --symfs");
        let w = summary(&[&p, &q], true).unwrap();
        assert!(
            w.starts_with("16 samples in 2 runs not resolved to a symbol, counted as [unknown] in their dso: /usr/bin/dd 8 (stripped); libc.so.6 7; [unknown] 1; give --symfs"),
            "{w}"
        );
        for i in 0..6 {
            p.add(key(UNKNOWN, Some(&format!("lib{i}.so"))), 1.0);
        }
        p.unresolved = note(&p, &|_| None, "");
        let w = summary(&[&p], true).unwrap();
        assert!(
            w.ends_with("libc.so.6 7; /usr/bin/dd 3; [unknown] 1; 6 in 6 more dso(s)"),
            "{w}"
        );
        assert_eq!(summary(&[&Profile::new("z", Format::PerfData)], true), None);
        // The short line: one line, the two largest dsos, the rest counted.
        p.total = 200.0;
        let w = summary(&[&p], false).unwrap();
        assert_eq!(
            w,
            "17 samples (8.5%) not resolved to a symbol ([unknown]): libc.so.6 7, dd 3 \
             and 7 more dsos; --wide says why"
        );
        let mut one = Profile::new("o.data", Format::PerfData);
        one.add(key(UNKNOWN, Some("/usr/bin/sha256sum")), 1.0);
        one.total = 4.0;
        one.unresolved = note(&one, &|_| None, "");
        assert_eq!(
            summary(&[&one], false).unwrap(),
            "1 sample (25.0%) not resolved to a symbol ([unknown]): sha256sum 1; --wide says why"
        );
    }
}
