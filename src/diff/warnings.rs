//! Warnings about runs, de-duplicated: the same message about several runs
//! (a perf.data binary whose build-id changed, in every run that used it)
//! is said once, naming the runs by side and position (`old run 2, new
//! runs 1-3: …`, the order of the header's totals); a message about one
//! run keeps its own wording (which names the file). Exact repeats of any
//! other warning are said once with a count. First-seen order is kept.

use crate::aggregate::Side;
use crate::significance::Noise;
use std::collections::BTreeMap;

/// How long a symbol's name may be in a warning: as the table's symbol
/// column cuts it by default, so that a warning folds into few lines.
pub const NAME_WIDTH: usize = 40;

/// A run's `most` worst symbols, `name COUNT vs EXPECTED`, names cut in
/// the middle to [`NAME_WIDTH`] (the rows carry them whole).
fn worst_symbols(c: &crate::stats::RunCheck, rows: &[&super::Row], most: usize) -> String {
    let fmt = |x: f64| crate::aggregate::fmt_count(x.round());
    let worst: Vec<String> = c
        .worst
        .iter()
        .take(most)
        .map(|&(i, _, got, want)| {
            let name = crate::text::truncate_middle(&rows[i].symbol, NAME_WIDTH, "...");
            format!("{name} {} vs {}", fmt(got), fmt(want))
        })
        .collect();
    worst.join(", ")
}

/// Each run's samples that the sample filters kept, as a fraction of its
/// exposure (side 0 OLD, 1 NEW): below 1 when `--comm` and the like left
/// some out and shares are of all samples.
fn kept_fractions(rows: &[&super::Row], exposures: [&[f64]; 2]) -> [Vec<f64>; 2] {
    let side = |s: usize| -> Vec<f64> {
        (0..exposures[s].len())
            .map(|r| {
                let kept: f64 = rows
                    .iter()
                    .map(|row| {
                        if s == 0 {
                            row.old_counts()
                        } else {
                            row.new_counts()
                        }
                    })
                    .filter_map(|c| c.get(r))
                    .sum();
                kept / exposures[s][r]
            })
            .collect()
    };
    [side(0), side(1)]
}

/// When the filters kept a part of run `r`'s samples unlike its siblings'
/// (by more than a tenth), the two parts in percent: then its shares of
/// all samples differ for that alone.
fn kept_unlike(fractions: &[f64], r: usize) -> Option<(f64, f64)> {
    let own = *fractions.get(r)?;
    let siblings: Vec<f64> = (0..fractions.len())
        .filter(|&k| k != r)
        .map(|k| fractions[k])
        .collect();
    let typical = crate::stats::median(&siblings);
    let off = (own / typical - 1.0).abs() > 0.1;
    (off && typical.is_finite()).then_some((own * 100.0, typical * 100.0))
}

/// Runs named in the warning of runs unlike their siblings, the farthest,
/// and the worst symbols said of each: the warning stays a few lines.
const UNLIKE_NAMED: usize = 3;
const UNLIKE_WORST: usize = 2;

/// docs/statistics.md §5.5: the runs of comparison `side` (its OLD and NEW
/// runs' sources) unlike their siblings, in one line: each run, how far
/// beyond the model, and its worst symbols (its count against the count
/// its siblings' rate gives a run of its size). `rows`: the rows as they
/// were judged; `exposures`: the runs' (OLD, NEW). With shares (`shares`)
/// a run whose kept part of its samples differs from its siblings' is
/// said to, and `--percentage relative` is the advice.
pub fn unlike_runs(
    noise: &Noise,
    rows: &[&super::Row],
    side: &str,
    sources: [&[&str]; 2],
    (exposures, shares): ([&[f64]; 2], bool),
) -> Option<String> {
    if !noise.runs.iter().any(|(_, c)| c.unlike()) {
        return None;
    }
    let fractions = kept_fractions(rows, exposures);
    let mut kept_differs = false;
    // The farthest from their siblings first; of many, a few named.
    let mut unlike: Vec<_> = noise.runs.iter().filter(|(_, c)| c.unlike()).collect();
    unlike.sort_by(|a, b| {
        (b.1.extremes > 0)
            .cmp(&(a.1.extremes > 0))
            .then(b.1.relative.total_cmp(&a.1.relative))
            .then((a.0, a.1.run).cmp(&(b.0, b.1.run)))
    });
    let more = unlike.len().saturating_sub(UNLIKE_NAMED);
    let mut named: Vec<String> = unlike
        .into_iter()
        .take(UNLIKE_NAMED)
        .map(|(s, c)| {
            let which = if *s == 0 { "OLD" } else { "NEW" };
            let run = sources[*s].get(c.run).copied().unwrap_or("?");
            let kept = match kept_unlike(&fractions[*s], c.run).filter(|_| shares) {
                Some((own, typical)) => {
                    kept_differs = true;
                    format!("; the filters kept {own:.0}% of its samples, {typical:.0}% of its siblings'")
                }
                None => String::new(),
            };
            // Only what makes the run unlike its siblings is said.
            let worst = worst_symbols(c, rows, UNLIKE_WORST);
            let noisy = c.relative > crate::stats::SCALE_LIMIT;
            let (what, sep) = match (noisy, c.extremes) {
                (true, 0) => (
                    format!("noise {:.1}x its siblings' in most symbols", c.relative),
                    "; worst: ",
                ),
                (true, e) => (
                    format!(
                        "noise {:.1}x its siblings', {e} symbol(s) far beyond theirs",
                        c.relative
                    ),
                    ": ",
                ),
                (false, e) => (format!("{e} symbol(s) far beyond its siblings'"), ": "),
            };
            let what = if worst.is_empty() {
                what
            } else {
                format!("{what}{sep}{worst}")
            };
            format!("{which} {run} ({what}{kept})")
        })
        .collect();
    if more > 0 {
        named.push(format!(
            "and {more} more run(s) (JSON's noise.runs lists every run)"
        ));
    }
    let advice = if kept_differs {
        "--percentage relative compares shares of the kept samples; or compare the runs, \
         or leave them out"
    } else {
        "compare them, or leave them out"
    };
    (!named.is_empty()).then(|| {
        format!(
            "{side}run(s) unlike their siblings (a symbol's count vs what the \
             siblings' rate predicts): {}; {advice}",
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
    Some(format!(
        "{side}OLD {} is unlike the noise model's replicates (noise {:.1}x the model's in most symbols, {} symbol(s) far beyond it; worst, its count vs the model's expected count: {}): the model may not describe this run",
        old_sources.first().copied().unwrap_or("?"),
        c.scale,
        c.extremes,
        worst_symbols(c, rows, crate::stats::WORST)
    ))
}

/// A warning that begins with a count of something (`19 samples without
/// a frame …`): the count, the noun in the singular and the rest, so that
/// the same warning of several runs with their own counts is said once.
fn counted(text: &str) -> Option<(u64, &str, &str)> {
    let (number, after) = text.split_once(' ')?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit() || b == b',') {
        return None;
    }
    let n: u64 = number.replace(',', "").parse().ok()?;
    let end = after.find(' ').unwrap_or(after.len());
    let (noun, rest) = after.split_at(end);
    let singular = if n == 1 {
        noun
    } else {
        noun.strip_suffix('s')?
    };
    (!singular.is_empty()).then_some((n, singular, rest))
}

/// One warning group: the first wording, the runs (side, run index) and,
/// for a counted warning ([`counted`]), each run's count.
struct Group {
    first: String,
    /// The wording without the run's path.
    text: String,
    runs: Vec<(usize, usize)>,
    counts: Vec<u64>,
}

/// Every run's warnings, grouped by their text once the run's own path
/// prefix (`SOURCE: `) is removed, and a leading count too (the runs'
/// counts are added up); a warning of one run names it (`SOURCE: …`,
/// also when its reader left the path out).
pub fn run_warnings(sides: &[Side]) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for (s, side) in sides.iter().enumerate() {
        for (k, run) in side.runs.iter().enumerate() {
            let prefix = format!("{}: ", run.source);
            for w in &run.warnings {
                let text = w.strip_prefix(&prefix).unwrap_or(w);
                let count = counted(text);
                let key = match count {
                    Some((_, noun, rest)) => format!("#{noun}{rest}"),
                    None => text.to_string(),
                };
                let g = groups.entry(key.clone()).or_insert_with(|| {
                    order.push(key);
                    Group {
                        // A run's warning names its file, whatever the reader wrote.
                        first: format!("{prefix}{text}"),
                        text: text.to_string(),
                        runs: Vec::new(),
                        counts: Vec::new(),
                    }
                });
                if !g.runs.contains(&(s, k)) {
                    g.runs.push((s, k));
                    g.counts.extend(count.map(|c| c.0));
                }
            }
        }
    }
    order
        .into_iter()
        .filter_map(|key| {
            let g = groups.remove(&key)?;
            Some(said_once(sides, g))
        })
        .collect()
}

/// A group's one warning: as it was for one run; for several, naming them
/// (`old runs 1-5: …`) with a counted warning's counts added up.
fn said_once(sides: &[Side], g: Group) -> String {
    if g.runs.len() <= 1 {
        return g.first;
    }
    let runs = describe_runs(sides, &g.runs);
    let text = g.text.as_str();
    match counted(text).filter(|_| g.counts.len() == g.runs.len()) {
        Some((_, noun, rest)) => {
            let total: u64 = g.counts.iter().sum();
            let lo = g.counts.iter().min().copied().unwrap_or(0);
            let hi = g.counts.iter().max().copied().unwrap_or(0);
            let each = if lo == hi {
                format!("{lo} each")
            } else {
                format!("{lo} to {hi} a run")
            };
            format!(
                "{runs}: {}{rest} ({each})",
                crate::text::plural(total, noun)
            )
        }
        None => format!("{runs}: {text}"),
    }
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
