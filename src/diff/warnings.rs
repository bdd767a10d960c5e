//! Warnings about runs, de-duplicated: the same message about several runs
//! (a perf.data binary whose build-id changed, in every run that used it)
//! is said once, naming the runs by side and position (`old run 2, new
//! runs 1-3: …`, the order of the header's totals); a message about one
//! run keeps its own wording (which names the file). Exact repeats of any
//! other warning are said once with a count. First-seen order is kept.

use crate::aggregate::Side;
use crate::significance::Noise;
use std::collections::BTreeMap;

/// docs/statistics.md §5.5: the runs of comparison `side` (its OLD and NEW
/// runs' sources) unlike their siblings, in one line: each run, how far
/// beyond the model, and its worst symbols (count against what its
/// siblings expect). `rows`: the rows as they were judged.
pub fn unlike_runs(
    noise: &Noise,
    rows: &[&super::Row],
    side: &str,
    sources: [&[&str]; 2],
) -> Option<String> {
    let fmt = |x: f64| crate::aggregate::fmt_count(x.round());
    let named: Vec<String> = noise
        .runs
        .iter()
        .filter(|(_, c)| c.unlike())
        .map(|(s, c)| {
            let which = if *s == 0 { "OLD" } else { "NEW" };
            let run = sources[*s].get(c.run).copied().unwrap_or("?");
            let worst: Vec<String> = c
                .worst
                .iter()
                .map(|&(i, _, got, want)| format!("{} {} vs {}", rows[i].symbol, fmt(got), fmt(want)))
                .collect();
            format!(
                "{which} {run} (noise {:.1}x the model's in most symbols, {} symbol(s) far beyond it; worst: {})",
                c.scale,
                c.extremes,
                worst.join(", ")
            )
        })
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "{side}: run(s) unlike their siblings: {}; compare them, or leave them out",
            named.join("; ")
        )
    })
}

/// §5.5 with a noise model: the single OLD run of comparison `side`
/// unlike the model's replicates, in one line with its worst symbols.
pub fn unlike_model(
    check: Option<&crate::stats::RunCheck>,
    rows: &[&super::Row],
    side: &str,
    old_sources: &[&str],
) -> Option<String> {
    let c = check.filter(|c| c.unlike())?;
    let fmt = |x: f64| crate::aggregate::fmt_count(x.round());
    let worst: Vec<String> = c
        .worst
        .iter()
        .map(|&(i, _, got, want)| format!("{} {} vs {}", rows[i].symbol, fmt(got), fmt(want)))
        .collect();
    Some(format!(
        "{side}: OLD {} is unlike the noise model's replicates (noise {:.1}x the model's in most symbols, {} symbol(s) far beyond it; worst: {}): the model may not describe this run",
        old_sources.first().copied().unwrap_or("?"),
        c.scale,
        c.extremes,
        worst.join(", ")
    ))
}

/// Every run's warnings, grouped by their text once the run's own path
/// prefix (`SOURCE: `) is removed; a warning of one run names it
/// (`SOURCE: …`, also when its reader left the path out).
pub fn run_warnings(sides: &[Side]) -> Vec<String> {
    // text -> (first original wording, runs (side, run index))
    let mut order: Vec<String> = Vec::new();
    let mut groups: BTreeMap<String, (String, Vec<(usize, usize)>)> = BTreeMap::new();
    for (s, side) in sides.iter().enumerate() {
        for (k, run) in side.runs.iter().enumerate() {
            let prefix = format!("{}: ", run.source);
            for w in &run.warnings {
                let key = w.strip_prefix(&prefix).unwrap_or(w).to_string();
                let g = groups.entry(key.clone()).or_insert_with(|| {
                    // A run's warning names its file, whatever the reader wrote.
                    let named = format!("{prefix}{key}");
                    order.push(key);
                    (named, Vec::new())
                });
                if !g.1.contains(&(s, k)) {
                    g.1.push((s, k));
                }
            }
        }
    }
    order
        .into_iter()
        .filter_map(|key| {
            let (first, runs) = groups.remove(&key)?;
            Some(if runs.len() <= 1 {
                first
            } else {
                format!("{}: {key}", describe_runs(sides, &runs))
            })
        })
        .collect()
}

/// `old run 2, new runs 1-3, 5` for runs given as (side, index), in order.
fn describe_runs(sides: &[Side], runs: &[(usize, usize)]) -> String {
    let mut parts = Vec::new();
    for (s, side) in sides.iter().enumerate() {
        let ks: Vec<usize> = runs.iter().filter(|r| r.0 == s).map(|r| r.1 + 1).collect();
        if ks.is_empty() {
            continue;
        }
        let plural = if ks.len() == 1 { "" } else { "s" };
        parts.push(format!("{} run{plural} {}", side.name, ranges(&ks)));
    }
    parts.join(", ")
}

/// `1-3, 5` for 1, 2, 3, 5 (ascending).
pub fn ranges(ks: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ks.len() {
        let mut j = i;
        while j + 1 < ks.len() && ks[j + 1] == ks[j] + 1 {
            j += 1;
        }
        out.push(if j > i + 1 {
            format!("{}-{}", ks[i], ks[j])
        } else if j == i + 1 {
            format!("{}, {}", ks[i], ks[j])
        } else {
            ks[i].to_string()
        });
        i = j + 1;
    }
    out.join(", ")
}

/// Exact repeats said once, with `(N times)`; first-seen order.
pub fn dedup(warnings: Vec<String>) -> Vec<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for w in &warnings {
        *count.entry(w.as_str()).or_insert(0) += 1;
    }
    let mut said = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for w in &warnings {
        if !said.insert(w.as_str()) {
            continue;
        }
        match count[w.as_str()] {
            1 => out.push(w.clone()),
            n => out.push(format!("{w} ({n} times)")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Format, Profile};

    fn run(source: &str, warnings: &[&str]) -> Profile {
        let mut p = Profile::new(source, Format::PerfData);
        p.warnings = warnings.iter().map(|w| w.to_string()).collect();
        p
    }

    #[test]
    fn one_message_about_many_runs_is_said_once() {
        let lib = "user symbols of 1 binary(ies) not resolved: libperl.so: build-id differs";
        let old = Side::new(
            "old",
            vec![
                run("a/1.data", &[]),
                run("a/2.data", &[&format!("a/2.data: {lib}")]),
            ],
        );
        let new = Side::new(
            "new",
            vec![
                run("b/1.data", &[&format!("b/1.data: {lib}"), "no samples"]),
                run("b/2.data", &[&format!("b/2.data: {lib}")]),
                run("b/3.data", &[&format!("b/3.data: {lib}")]),
                run("b/4.data", &["b/4.data: only here"]),
            ],
        );
        let got = run_warnings(&[old, new]);
        assert_eq!(
            got,
            [
                format!("old run 2, new runs 1-3: {lib}"),
                // (named, though its reader left the path out)
                "b/1.data: no samples".to_string(),
                "b/4.data: only here".to_string(),
            ]
        );
    }

    #[test]
    fn ranges_and_repeats() {
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1-3, 5, 7, 8");
        let w = vec!["a".to_string(), "b".to_string(), "a".to_string()];
        assert_eq!(dedup(w), ["a (2 times)", "b"]);
    }
}
