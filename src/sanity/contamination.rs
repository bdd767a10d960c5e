//! Changes that belong to other processes: system-wide recordings hold
//! whatever else ran beside the workload (other jobs, a busy loop, the idle
//! task), and when that mix differs between the sides, rows of those
//! processes differ without the workload changing.
//!
//! Input: the sides as loaded (each run's [`Comms`]: samples per command
//! and each symbol's main command), the finished report (which rows are
//! marked), and the noise model when there is one (its runs' commands).
//! Output: warnings, one line each: the marked rows that ran mostly in a
//! process present in one side's runs only, or whose share differs a lot
//! between the sides, naming the processes, their shares and rows, with the
//! `--comm` that compares the workload alone; and, with a noise model, when
//! the compared runs' mix of processes differs from the model's runs.
//! Runs that name no commands (readprofile, counts tables) give nothing.
//!
//! A process "differs" when its mean share (each run weighs the same) is at
//! least [`PRESENT`] on one side while it is below [`ABSENT`] in every run
//! of the other, or when the two sides' mean shares differ by at least
//! [`SHIFT`] and by a factor of at least [`FACTOR`].

use crate::aggregate::Side;
use crate::profile::{Name, Profile};
use std::collections::BTreeMap;

/// A row marked as changed: its symbol and its counts, OLD's runs then NEW's.
pub struct Marked {
    pub symbol: Name,
    pub counts: Vec<f64>,
}

/// One comparison of a report: the NEW side's index and its marked rows.
pub struct Compared {
    pub side: usize,
    pub marked: Vec<Marked>,
}

/// The noise model's runs: where they come from and, per run, its counted
/// samples per command (`None` when a run names none).
pub struct ModelRuns<'a> {
    pub source: &'a str,
    pub comms: Vec<Option<BTreeMap<String, f64>>>,
}

/// A process present on a side: at least 1% of its samples (mean share).
pub const PRESENT: f64 = 0.01;
/// A process absent from a run: under 0.2% of its samples.
pub const ABSENT: f64 = 0.002;
/// A shift that is large: 5 points of share…
pub const SHIFT: f64 = 0.05;
/// …and a factor of 1.5 or more.
pub const FACTOR: f64 = 1.5;
/// Processes and rows named in a warning; the rest are counted.
const NAMED: usize = 3;
/// The idle task: never the workload to keep with `--comm`.
const IDLE: &str = "swapper";

/// Each run's share per command, for runs that all name their commands.
struct Mix {
    runs: Vec<BTreeMap<String, f64>>,
}

impl Mix {
    fn of_profiles(runs: &[Profile]) -> Option<Mix> {
        let per: Option<Vec<BTreeMap<String, f64>>> = runs
            .iter()
            .map(|r| {
                r.comms
                    .as_ref()
                    .map(|c| c.samples.iter().map(|(n, &w)| (n.to_string(), w)).collect())
            })
            .collect();
        Mix::of_counts(per?)
    }

    fn of_model(model: &ModelRuns<'_>) -> Option<Mix> {
        let per: Option<Vec<BTreeMap<String, f64>>> = model.comms.iter().cloned().collect();
        Mix::of_counts(per?)
    }

    fn of_counts(per: Vec<BTreeMap<String, f64>>) -> Option<Mix> {
        if per.is_empty() {
            return None;
        }
        let runs = per
            .into_iter()
            .map(|m| {
                let sum: f64 = m.values().sum();
                m.into_iter()
                    .map(|(c, w)| (c, if sum > 0.0 { w / sum } else { 0.0 }))
                    .collect()
            })
            .collect();
        Some(Mix { runs })
    }

    /// Mean share of `comm` over the runs.
    fn mean(&self, comm: &str) -> f64 {
        let sum: f64 = self.runs.iter().filter_map(|r| r.get(comm)).sum();
        sum / self.runs.len() as f64
    }

    fn max(&self, comm: &str) -> f64 {
        self.runs
            .iter()
            .filter_map(|r| r.get(comm).copied())
            .fold(0.0, f64::max)
    }

    fn comms(&self) -> impl Iterator<Item = &String> {
        self.runs.iter().flat_map(|r| r.keys())
    }
}

/// The processes whose share differs between `a` and `b`, with both mean
/// shares, in name order.
fn differing(a: &Mix, b: &Mix) -> BTreeMap<String, (f64, f64)> {
    let mut out = BTreeMap::new();
    for c in a.comms().chain(b.comms()) {
        if out.contains_key(c) {
            continue;
        }
        let (ma, mb) = (a.mean(c), b.mean(c));
        let one_side = (ma >= PRESENT && b.max(c) < ABSENT) || (mb >= PRESENT && a.max(c) < ABSENT);
        let (lo, hi) = (ma.min(mb), ma.max(mb));
        let shifted = hi - lo >= SHIFT && hi >= FACTOR * lo;
        if one_side || shifted {
            out.insert(c.clone(), (ma, mb));
        }
    }
    out
}

/// Who ran the runs' symbols: per symbol name, per command, the self
/// samples the runs' main commands hold (a symbol's main command in a run
/// and its part), and per run (in order) its command when it has only one.
struct Owners {
    mains: BTreeMap<Name, BTreeMap<Name, f64>>,
    single: Vec<Option<Name>>,
}

fn owners<'a>(runs: impl Iterator<Item = &'a Profile>) -> Owners {
    let mut mains: BTreeMap<Name, BTreeMap<Name, f64>> = BTreeMap::new();
    let mut single = Vec::new();
    for r in runs {
        let c = r.comms.as_ref();
        single.push(
            c.filter(|c| c.samples.len() == 1)
                .and_then(|c| c.samples.keys().next().copied()),
        );
        for (k, &(comm, w)) in c.iter().flat_map(|c| &c.main) {
            *mains.entry(k.name).or_default().entry(comm).or_insert(0.0) += w;
        }
    }
    Owners { mains, single }
}

/// The command holding most of a row's samples over both sides' runs (a
/// run of one command holds all of the row's count in it).
fn row_comm(row: &Marked, owners: &Owners) -> Option<Name> {
    let mut by: BTreeMap<Name, f64> = owners.mains.get(&row.symbol).cloned().unwrap_or_default();
    for (only, &w) in owners.single.iter().zip(&row.counts) {
        if let (Some(c), true) = (only, w > 0.0) {
            *by.entry(*c).or_insert(0.0) += w;
        }
    }
    let mut best: Option<(Name, f64)> = None;
    for (c, w) in by {
        if best.is_none_or(|(_, b)| w > b) {
            best = Some((c, w));
        }
    }
    best.map(|(c, _)| c)
}

fn pct(x: f64) -> String {
    // `+ 0.0`: never -0.0 (an empty sum is -0.0).
    format!("{:.1}%", 100.0 * x + 0.0)
}

/// `--comm '^(a|b)$'`, quoted for a shell.
fn comm_flag(names: &[&str]) -> String {
    let alts: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
    let re = if alts.len() == 1 {
        format!("^{}$", alts[0])
    } else {
        format!("^({})$", alts.join("|"))
    };
    format!("--comm '{}'", re.replace('\'', r"'\''"))
}

/// The workload's processes: those with at least 10% of the samples in
/// every mix (up to three), the idle task aside; else the one with the
/// largest smallest share, if that is at least [`PRESENT`]. Their rows are
/// never blamed on the mix: a process beside the workload shrinks the
/// workload's share too.
fn workload<'a>(mixes: &[&Mix], all: &'a [String]) -> Vec<&'a str> {
    let floor = |c: &str| {
        mixes
            .iter()
            .map(|m| m.mean(c))
            .fold(f64::INFINITY, f64::min)
    };
    let mut cands: Vec<(&str, f64)> = all
        .iter()
        .map(String::as_str)
        .filter(|c| !c.starts_with(IDLE))
        .map(|c| (c, floor(c)))
        .filter(|&(_, f)| f >= PRESENT)
        .collect();
    cands.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let strong: Vec<&str> = cands.iter().filter(|c| c.1 >= 0.10).map(|c| c.0).collect();
    if !strong.is_empty() {
        return strong.into_iter().take(NAMED).collect();
    }
    cands.first().map(|c| vec![c.0]).unwrap_or_default()
}

/// The processes with at least [`PRESENT`] of the samples in every mix,
/// the idle task aside, with their smallest mean share, largest first.
fn steady(mixes: &[&Mix], all: &[String]) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = all
        .iter()
        .filter(|c| !c.starts_with(IDLE))
        .map(|c| {
            (
                c.clone(),
                mixes
                    .iter()
                    .map(|m| m.mean(c))
                    .fold(f64::INFINITY, f64::min),
            )
        })
        .filter(|c| c.1 >= PRESENT)
        .collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// What to run instead: `--comm` with the workload's processes, and the
/// processes in every run to choose from when that is not clear.
fn advice(keep: &[&str], steady: &[(String, f64)], sides: &[Side], filtered: bool) -> String {
    let verb = if filtered {
        "narrow --comm to the workload's processes"
    } else {
        "compare the workload's own samples with --comm"
    };
    let listed = if steady.len() > 1 {
        let v: Vec<String> = steady
            .iter()
            .take(NAMED)
            .map(|(c, f)| format!("{c} {}", pct(*f)))
            .collect();
        format!(" (in every run, at least: {})", v.join(", "))
    } else {
        String::new()
    };
    if keep.is_empty() {
        return format!("{verb}, naming its processes{listed}");
    }
    let flag = comm_flag(keep);
    match sides {
        [old, new] => format!(
            "{verb}{listed}, e.g. diffprofile {flag} --old {} --new {}",
            old.label, new.label
        ),
        _ => format!("{verb}{listed}, e.g. {flag} and the same arguments"),
    }
}

/// Every warning about processes (see the module doc). `filtered`: the
/// samples were already restricted with `--comm`.
pub fn check(
    sides: &[Side],
    compared: &[Compared],
    model: Option<&ModelRuns<'_>>,
    filtered: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some(old) = sides.first().and_then(|s| Mix::of_profiles(&s.runs)) else {
        return out;
    };
    for cmp in compared {
        let Some(side) = sides.get(cmp.side) else {
            continue;
        };
        let Some(new) = Mix::of_profiles(&side.runs) else {
            continue;
        };
        let all: Vec<String> = {
            let mut v: Vec<String> = old.comms().chain(new.comms()).cloned().collect();
            v.sort();
            v.dedup();
            v
        };
        let keep = workload(&[&old, &new], &all);
        let steady = steady(&[&old, &new], &all);
        let mut differ = differing(&old, &new);
        differ.retain(|c, _| !keep.contains(&c.as_str()));
        let advice = advice(&keep, &steady, sides, filtered);
        if let Some(w) = rows_warning(sides, cmp.side, &cmp.marked, &differ, &advice) {
            out.push(w);
        }
        if let Some(m) = model.and_then(|m| Mix::of_model(m).map(|mix| (m, mix))) {
            out.extend(model_warning(m, &old, &new, sides, cmp.side, filtered));
        }
    }
    out
}

/// The marked rows that ran mostly in processes whose share differs.
fn rows_warning(
    sides: &[Side],
    k: usize,
    marked: &[Marked],
    differ: &BTreeMap<String, (f64, f64)>,
    advice: &str,
) -> Option<String> {
    if differ.is_empty() {
        return None;
    }
    let owners = owners(sides[0].runs.iter().chain(&sides[k].runs));
    let mut by: BTreeMap<String, Vec<&Marked>> = BTreeMap::new();
    for r in marked {
        if let Some(c) = row_comm(r, &owners) {
            if differ.contains_key(c.as_str()) {
                by.entry(c.to_string()).or_default().push(r);
            }
        }
    }
    if by.is_empty() {
        return None;
    }
    let attributed: usize = by.values().map(Vec::len).sum();
    let (a, b) = (sides[0].name.to_uppercase(), sides[k].name.to_uppercase());
    let mut order: Vec<(&String, &Vec<&Marked>)> = by.iter().collect();
    order.sort_by(|x, y| y.1.len().cmp(&x.1.len()).then(x.0.cmp(y.0)));
    let mut parts: Vec<String> = order
        .iter()
        .take(NAMED)
        .map(|(c, rs)| {
            let (sa, sb) = differ[*c];
            let names: Vec<&str> = rs.iter().take(NAMED).map(|r| r.symbol.as_str()).collect();
            let more = if rs.len() > NAMED {
                format!(" and {} more", rs.len() - NAMED)
            } else {
                String::new()
            };
            format!(
                "{c} ({a} {}, {b} {} of samples: {}{more})",
                pct(sa),
                pct(sb),
                names.join(", ")
            )
        })
        .collect();
    if order.len() > NAMED {
        parts.push(format!("{} more processes", order.len() - NAMED));
    }
    Some(format!(
        "{attributed} of the {} marked rows shown ran mostly in processes whose share differs \
         between {a} and {b}, not in the workload: {}; {}",
        marked.len(),
        parts.join("; "),
        advice
    ))
}

/// With a noise model: the compared runs' mix against the model's runs.
fn model_warning(
    (model, mix): (&ModelRuns<'_>, Mix),
    old: &Mix,
    new: &Mix,
    sides: &[Side],
    k: usize,
    filtered: bool,
) -> Option<String> {
    let all: Vec<String> = {
        let mut v: Vec<String> = mix
            .comms()
            .chain(old.comms())
            .chain(new.comms())
            .cloned()
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let keep = workload(&[&mix, old, new], &all);
    let steady = steady(&[&mix, old, new], &all);
    let mut parts = Vec::new();
    for (side, m) in [(&sides[0], old), (&sides[k], new)] {
        let mut d = differing(&mix, m);
        d.retain(|c, _| !keep.contains(&c.as_str()));
        for (c, &(sm, sr)) in d.iter().take(NAMED) {
            parts.push(format!(
                "{c} {} in the model's runs, {} in {}'s",
                pct(sm),
                pct(sr),
                side.name.to_uppercase()
            ));
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "the compared runs' mix of processes differs from the noise model's runs ({}): {}; the \
         model's noise does not describe the other processes; {}",
        model.source,
        parts.join(", "),
        advice(&keep, &steady, sides, filtered)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mix(runs: &[&[(&str, f64)]]) -> Mix {
        let per = runs
            .iter()
            .map(|r| r.iter().map(|&(c, w)| (c.to_string(), w)).collect())
            .collect();
        Mix::of_counts(per).unwrap()
    }

    /// A process in one side's runs only differs; one whose share wobbles
    /// by less than the shift does not; one that doubles by 20 points does.
    #[test]
    fn which_processes_differ() {
        let old = mix(&[
            &[("find", 60.0), ("swapper", 40.0)],
            &[("find", 55.0), ("swapper", 45.0)],
        ]);
        let new = mix(&[
            &[("find", 58.0), ("swapper", 42.0)],
            &[("find", 30.0), ("swapper", 20.0), ("yes", 50.0)],
        ]);
        let d = differing(&old, &new);
        assert_eq!(d.keys().collect::<Vec<_>>(), ["yes"]);
        assert_eq!(d["yes"], (0.0, 0.25));
        // 0.1% in one old run is "absent" (below 0.2%), 1% would not be.
        let old = mix(&[&[("find", 999.0), ("yes", 1.0)]]);
        assert!(differing(&old, &new).contains_key("yes"));
        let old = mix(&[
            &[("find", 99.0), ("yes", 1.0)],
            &[("find", 99.0), ("yes", 1.0)],
        ]);
        let new = mix(&[&[("find", 98.0), ("yes", 2.0)]]);
        assert!(differing(&old, &new).is_empty(), "2 points is no shift");
        let new = mix(&[&[("find", 79.0), ("yes", 21.0)]]);
        assert!(differing(&old, &new).contains_key("yes"));
        // A shift of 6 points that is under 1.5x is not large.
        let old = mix(&[&[("find", 50.0), ("swapper", 50.0)]]);
        let new = mix(&[&[("find", 44.0), ("swapper", 56.0)]]);
        assert!(differing(&old, &new).is_empty());
    }

    /// The workload is what both sides hold steadily, never the idle task
    /// or a differing process; the flag is a shell-quoted anchored regex.
    #[test]
    fn the_workload_to_keep() {
        let old = mix(&[&[("find", 50.0), ("swapper", 45.0), ("cc1", 5.0)]]);
        let new = mix(&[&[("find", 30.0), ("swapper", 20.0), ("yes", 50.0)]]);
        let all: Vec<String> = ["cc1", "find", "swapper", "yes"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(workload(&[&old, &new], &all), ["find"]);
        let differ = differing(&old, &new);
        assert_eq!(
            differ.keys().collect::<Vec<_>>(),
            ["cc1", "find", "swapper", "yes"]
        );
        assert_eq!(comm_flag(&["find"]), "--comm '^find$'");
        assert_eq!(comm_flag(&["sha1sum", "cat"]), "--comm '^(sha1sum|cat)$'");
        assert_eq!(
            comm_flag(&["a.out", "it's"]),
            r"--comm '^(a\.out|it'\''s)$'"
        );
    }
}
