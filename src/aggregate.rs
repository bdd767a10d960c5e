//! Runs → one count matrix over the union of symbols, and the exposure of
//! every run under the chosen normalisation (statistics.md, "Normalisation").
//!
//! Symbol identity across runs is the name plus the dso when every run names
//! dsos (so `perf report --sort dso,sym` runs keep `foo` of two libraries
//! apart), the name alone otherwise (so readprofile and perf runs can be
//! mixed). A run's samples that no row claims become pseudo-rows, so the
//! rows always add up to the total: `*unknown*` (readprofile's hits outside
//! kernel text) and `*unlisted*` (rows a perf report left out, e.g. under
//! `--percent-limit`).

use crate::identity::{Identity, Placement};
use crate::names::Members;
use crate::profile::{Mode, Name, Profile, SymbolKey, Weight};
use crate::stats;
use anyhow::{bail, Result};
use by_name::{ByName, Named};
use dso::DsoMap;
use rayon::prelude::*;
use std::collections::BTreeMap;

mod by_name;
mod dso;

impl Named for SymbolKey {
    fn name(&self) -> Name {
        self.name
    }
}

impl Named for Name {
    fn name(&self) -> Name {
        *self
    }
}

impl Named for Ident {
    fn name(&self) -> Name {
        self.name
    }
}

/// One side: a kernel, as one or more runs.
#[derive(Clone, Debug)]
pub struct Side {
    pub name: String,
    /// The paths the user named for it, for the header.
    pub label: String,
    pub runs: Vec<Profile>,
}

impl Side {
    /// A side named `name` (also its label) with these runs.
    pub fn new(name: &str, runs: Vec<Profile>) -> Side {
        Side {
            name: name.to_string(),
            label: name.to_string(),
            runs,
        }
    }
}

/// A row's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ident {
    pub name: Name,
    pub dso: Option<Name>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SymbolInfo {
    pub ident: Ident,
    pub mode: Option<Mode>,
    /// The input names folded, aliased or grouped into this row (empty when
    /// the row is exactly one input name).
    pub members: Members,
    /// Shown and tested: not left out by a symbol filter or `--kernel-only`
    /// (hidden rows are in the matrix so that the noise is learned from
    /// every symbol, docs/statistics.md §8.2).
    pub shown: bool,
}

pub const UNKNOWN_ROW: &str = "*unknown*";
pub const UNLISTED_ROW: &str = "*unlisted*";

/// Counts of every symbol in every run: `counts[side][run][symbol]`.
#[derive(Clone, Debug)]
pub struct Matrix {
    pub symbols: Vec<SymbolInfo>,
    pub counts: Vec<Vec<Vec<f64>>>,
    /// Under `--inclusive`, each run's samples (`[side][run]`) whose leaf
    /// is a shown row, each counted once: the denominator of `--percentage
    /// relative` and the total row, as the self counts' sum is without it.
    pub kept: Option<Vec<Vec<f64>>>,
    pub warnings: Vec<String>,
}

/// Build the matrix over the union of symbols of every run of every side
/// (missing = 0), each symbol placed by `identity` (folding, aliases,
/// groups, filters), rows sorted by identity. Rows keep their dso when
/// every input names one, unless `identity.by_name`; a dso named without
/// its directory (perf report's `libc.so.6`) is the one full path of that
/// file name in the comparison, if there is one ([`dso`]).
pub fn build(sides: &[Side], identity: &Identity) -> Matrix {
    let use_dso = !identity.by_name
        && sides
            .iter()
            .flat_map(|s| &s.runs)
            .all(|r| r.counts.keys().all(|k| k.dso.is_some()));
    let (dsos, mut warnings) = DsoMap::of(sides);
    let mut placed = place(sides, identity, use_dso, &dsos);
    // Pseudo rows a filter removes are kept hidden, as symbols are.
    let pseudo = |name: &str| -> Option<(Ident, bool)> {
        let id = Ident {
            name: Name::new(name),
            dso: None,
        };
        Some((id, identity.keeps(name)))
    };
    let unknown = pseudo(UNKNOWN_ROW);
    let unlisted = pseudo(UNLISTED_ROW);
    for run in sides.iter().flat_map(|s| &s.runs) {
        if run.unattributed > 0.0 {
            if let Some((id, shown)) = &unknown {
                placed.row(id, Some(Mode::Kernel), *shown);
            }
        }
        let rest = remainder(run);
        if rest > 0.0 && run.total_approximate.is_some() {
            if let Some((id, shown)) = &unlisted {
                placed.row(id, None, *shown);
            }
        } else if rest < 0.0 && run.weight != Weight::Percent && !run.inclusive {
            // (percent-only runs: rounded percentages may add up past 100%)
            warnings.push(format!(
                "{}: symbol counts add up to {} but the run's total is {}",
                run.source,
                fmt_count(run.symbol_sum() + run.unattributed),
                fmt_count(run.total)
            ));
        }
    }
    let slot =
        |id: &Option<(Ident, bool)>| id.as_ref().and_then(|(id, _)| placed.ids.get(id)).copied();
    let (unknown_at, unlisted_at) = (slot(&unknown), slot(&unlisted));
    let (symbols, at) = placed.in_order();
    let slot = |row: Option<u32>| row.map(|r| at[r as usize]);
    let (unknown_at, unlisted_at) = (slot(unknown_at), slot(unlisted_at));
    // Each run's column on its own thread (collect keeps their order).
    let runs: Vec<&Profile> = sides.iter().flat_map(|s| &s.runs).collect();
    let columns = runs
        .par_iter()
        .map(|run| {
            let mut row = vec![0.0; symbols.len()];
            for (key, &c) in &run.counts {
                if let Some(i) = slot(placed.keys.get(key).copied().flatten()) {
                    row[i] += c;
                }
            }
            if let Some(i) = unknown_at {
                row[i] += run.unattributed;
            }
            let rest = remainder(run);
            if let (Some(i), true) = (unlisted_at, rest > 0.0 && run.total_approximate.is_some()) {
                row[i] += rest;
            }
            // Under --inclusive: the samples whose leaf is a shown row.
            let mut kept = 0.0;
            for (key, &c) in &run.leaves {
                if let Some(i) = slot(placed.keys.get(key).copied().flatten()) {
                    if symbols[i].shown {
                        kept += c;
                    }
                }
            }
            if unknown_at.is_some_and(|i| symbols[i].shown) {
                kept += run.unattributed;
            }
            (row, kept)
        })
        .collect::<Vec<(Vec<f64>, f64)>>();
    let inclusive = runs.iter().any(|r| r.inclusive);
    let kept = inclusive.then(|| by_side(sides, columns.iter().map(|c| c.1)));
    let counts = by_side(sides, columns.into_iter().map(|c| c.0));
    Matrix {
        symbols,
        counts,
        kept,
        warnings,
    }
}

/// One value per run, in side order, as `[side][run]`.
fn by_side<T>(sides: &[Side], values: impl Iterator<Item = T>) -> Vec<Vec<T>> {
    let mut values = values;
    sides
        .iter()
        .map(|side| values.by_ref().take(side.runs.len()).collect())
        .collect()
}

/// The rows as they are placed, numbered in the order they first appear:
/// looked up by name id, never compared, until [`Placed::in_order`] sorts
/// them once.
struct Placed {
    /// Where every distinct input key goes (`None`: dropped).
    keys: ByName<SymbolKey, Option<u32>>,
    /// Every row's identity and number.
    ids: ByName<Ident, u32>,
    /// By number: each row's mode, the input names it holds, and whether
    /// it is shown (any of its inputs is).
    rows: Vec<(Option<Mode>, Gathered, bool)>,
}

impl Placed {
    /// The number of the row `ident` (a new row of `mode` if there is none).
    fn row(&mut self, ident: &Ident, mode: Option<Mode>, shown: bool) -> u32 {
        let i = row_of(&mut self.ids, &mut self.rows, *ident, mode);
        self.rows[i as usize].2 |= shown;
        i
    }

    /// Rows sorted by identity, each with its mode and members, and where
    /// every row number went.
    fn in_order(&mut self) -> (Vec<SymbolInfo>, Vec<usize>) {
        // Idents are unique: an unstable sort gives one order. The names'
        // first bytes settle most comparisons without reading the text.
        let mut keyed: Vec<(u128, Ident, u32)> = std::mem::take(&mut self.ids)
            .into_entries()
            .into_iter()
            .map(|(ident, i)| (ident.name.prefix(), ident, i))
            .collect();
        keyed.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        let order: Vec<(Ident, u32)> = keyed.into_iter().map(|(_, id, i)| (id, i)).collect();
        let mut at = vec![0; order.len()];
        let symbols = order
            .into_iter()
            .enumerate()
            .map(|(pos, (ident, i))| {
                at[i as usize] = pos;
                let (mode, names, shown) = std::mem::take(&mut self.rows[i as usize]);
                let members = names.of(ident.name);
                SymbolInfo {
                    ident,
                    mode,
                    members,
                    shown,
                }
            })
            .collect();
        (symbols, at)
    }
}

/// The number of the row `ident` in `ids` (a new row of `mode` in `rows`
/// if there is none).
fn row_of(
    ids: &mut ByName<Ident, u32>,
    rows: &mut Vec<(Option<Mode>, Gathered, bool)>,
    ident: Ident,
    mode: Option<Mode>,
) -> u32 {
    *ids.get_or_insert_with(ident, || {
        rows.push((mode, Gathered::default(), false));
        (rows.len() - 1) as u32
    })
    .0
}

/// The input names of one row: the first, and any others (rarely more
/// than one: folded clones, aliases, groups).
#[derive(Default)]
struct Gathered {
    first: Option<Name>,
    more: Vec<Name>,
}

impl Gathered {
    fn add(&mut self, name: Name) {
        match self.first {
            None => self.first = Some(name),
            Some(f) if f == name => {}
            Some(_) => self.more.push(name),
        }
    }

    /// The names in order, none repeated; empty when the row is exactly
    /// one input name, `row` itself.
    fn of(self, row: Name) -> Members {
        let Some(first) = self.first else {
            return Members::default();
        };
        if self.more.is_empty() && first == row {
            return Members::default();
        }
        let mut all = self.more;
        all.push(first);
        all.sort_unstable();
        all.dedup();
        Members::from(all)
    }
}

/// Where every distinct input key goes (`None`: dropped), each placed
/// once, and every row's mode and the input names it holds.
///
/// Without dsos (`perf report --sort sym`, readprofile), an input name
/// seen in two modes (`[k] read_zero` and `[.] read_zero`: a kernel and a
/// user function) is two rows, never one sum: each gets its mode as its dso,
/// in brackets (`[kernel]`, `[user]`, see [`mode_dso`]), which the label
/// shows (`read_zero [user]`). A name seen in one mode, or without one,
/// stays one row without a dso, so runs of formats that know the mode
/// and of those that do not still compare.
fn place(sides: &[Side], identity: &Identity, use_dso: bool, dsos: &DsoMap) -> Placed {
    // Looked up by name id, never iterated into output (hot in batch).
    // At least the largest run's keys and rows: sized once, not regrown.
    let n = sides
        .iter()
        .flat_map(|s| &s.runs)
        .map(|r| r.counts.len())
        .max()
        .unwrap_or(0);
    let mut placed = Placed {
        keys: ByName::with_capacity(n),
        ids: ByName::with_capacity(n),
        rows: Vec::with_capacity(n),
    };
    // Each distinct key's placement, in the order first seen; and, without
    // dsos, the input names seen in more than one mode (input names: a
    // counts table cannot tell a group's row from a folded one, so the
    // placed names would not split alike from files and from a table).
    let mut order: Vec<(SymbolKey, Placement, bool)> = Vec::with_capacity(n);
    let mut modes: ByName<Name, (Option<Mode>, bool)> = ByName::with_capacity(n);
    for run in sides.iter().flat_map(|s| &s.runs) {
        for key in run.counts.keys() {
            let (_, new) = placed.keys.get_or_insert_with(*key, || None);
            if !new {
                continue;
            }
            let key = dsos.apply(key);
            let (placement, shown) = identity.place_all(&key);
            if let (false, Some(m)) = (use_dso, key.mode) {
                let (seen, _) = modes.get_or_insert_with(key.name, || (Some(m), false));
                seen.1 |= seen.0 != Some(m);
            }
            order.push((key, placement, shown));
        }
    }
    let Placed { keys, ids, rows } = &mut placed;
    for (i, (key, placement, shown)) in order.into_iter().enumerate() {
        let row = match placement {
            Placement::Dropped => None,
            Placement::Row { name, grouped } => {
                let dso = if use_dso && !grouped {
                    key.dso
                } else if !use_dso && !grouped && modes.get(&key.name).is_some_and(|m| m.1) {
                    key.mode.map(mode_dso)
                } else {
                    None
                };
                let ident = Ident { name, dso };
                let i = row_of(ids, rows, ident, key.mode);
                let entry = &mut rows[i as usize];
                if entry.0 != key.mode {
                    entry.0 = entry.0.or(key.mode);
                }
                entry.1.add(key.name);
                entry.2 |= shown;
                Some(i)
            }
        };
        *keys.value_at_mut(i) = row;
    }
    placed
}

/// The dso of a row told apart from a same-named one by its mode alone
/// (no dso known): the mode in brackets, `[kernel]`, `[user]`,
/// `[guest-kernel]`, `[guest-user]`, `[hypervisor]`.
pub fn mode_dso(mode: Mode) -> Name {
    Name::new(&format!("[{}]", mode.as_str()))
}

/// Samples of the run's total that neither a symbol row nor `*unknown*`
/// claims: rows a report left out (when its total is approximate) or
/// samples a parse-time filter removed, less what the filters are known to
/// have taken out (`Profile::filtered_out`). Float residue counts as zero.
pub fn remainder(run: &Profile) -> f64 {
    let rest = run.total - run.symbol_sum() - run.unattributed - run.filtered_out;
    if rest.abs() <= 1e-6 * run.total.max(1.0) {
        0.0
    } else {
        rest
    }
}

/// A count for messages: whole numbers without decimals; never `-0`.
pub fn fmt_count(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        let s = format!("{x:.2}");
        match s.strip_prefix('-') {
            Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
            _ => s,
        }
    }
}

/// `-n/--normalize`: what a run's exposure is (statistics.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalize {
    Share,
    Ticks,
    Rate,
    Work,
    Robust,
}

impl Normalize {
    pub fn name(self) -> &'static str {
        match self {
            Normalize::Share => "share",
            Normalize::Ticks => "ticks",
            Normalize::Rate => "rate",
            Normalize::Work => "work",
            Normalize::Robust => "robust",
        }
    }
    /// The unit of values (`unit` in JSON).
    pub fn unit(self) -> &'static str {
        match self {
            Normalize::Share => "percent",
            Normalize::Ticks => "ticks per run",
            Normalize::Rate => "ticks per second",
            Normalize::Work => "ticks per operation",
            Normalize::Robust => "normalised ticks",
        }
    }
    /// Factor from count/exposure to the displayed value.
    pub fn scale(self) -> f64 {
        match self {
            Normalize::Share => 100.0,
            _ => 1.0,
        }
    }
}

/// Per-run facts the user supplies with `--run-info` (path → duration, work).
#[derive(Clone, Debug, Default)]
pub struct RunInfo {
    pub entries: BTreeMap<String, (Option<f64>, Option<f64>)>,
}

impl RunInfo {
    /// The rows no run of `sides` matches (a misspelt path, a run not
    /// given): their durations and work counts are used by nothing, for a
    /// warning naming them.
    pub fn unmatched(&self, sides: &[Side]) -> Vec<&str> {
        let used: std::collections::BTreeSet<&str> = sides
            .iter()
            .flat_map(|s| &s.runs)
            .filter_map(|r| self.find(&r.source).ok().flatten().map(|(k, _)| k))
            .collect();
        self.entries
            .keys()
            .map(String::as_str)
            .filter(|k| !used.contains(k))
            .collect()
    }

    pub fn lookup(&self, source: &str) -> Option<(Option<f64>, Option<f64>)> {
        self.find(source).ok().flatten().map(|(_, v)| v)
    }

    /// The row for run `source`: its own path, else the one row whose path
    /// is the run's given relative to another directory (either ends with
    /// `/` and the other). `Err` when several rows match so.
    #[allow(clippy::type_complexity)]
    fn find(&self, source: &str) -> Result<Option<(&str, (Option<f64>, Option<f64>))>, String> {
        if let Some((k, e)) = self.entries.get_key_value(source) {
            return Ok(Some((k, *e)));
        }
        let found: Vec<(&String, &(Option<f64>, Option<f64>))> = self
            .entries
            .iter()
            .filter(|(k, _)| {
                source.ends_with(&format!("/{k}")) || k.ends_with(&format!("/{source}"))
            })
            .collect();
        match found.as_slice() {
            [] => Ok(None),
            [(k, v)] => Ok(Some((k.as_str(), **v))),
            many => Err(format!(
                "run {source} matches {} rows of the --run-info file ({}): which one is its is not known; \
                 give each run's path as the run is named",
                many.len(),
                many.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Every run's row for `-n rate`/`work`, `[side][run]`; `Err` when a
    /// run matches several rows, or one row (a bare `run1.txt`) the runs
    /// of several paths (`old/run1.txt`, `new/run1.txt`): one of them
    /// would get another's duration without a word.
    #[allow(clippy::type_complexity)]
    fn resolve(&self, sides: &[Side]) -> Result<Vec<Vec<Option<(Option<f64>, Option<f64>)>>>> {
        let mut used: BTreeMap<&str, &str> = BTreeMap::new();
        let mut out = Vec::new();
        for side in sides {
            let mut row = Vec::new();
            for run in &side.runs {
                let found = self.find(&run.source).map_err(|e| anyhow::anyhow!(e))?;
                if let Some((key, _)) = found {
                    match used.get(key) {
                        Some(other) if *other != run.source => bail!(
                            "--run-info row {key} matches the runs {other} and {}: \
                             give each run's path as the run is named",
                            run.source
                        ),
                        _ => {
                            used.insert(key, &run.source);
                        }
                    }
                }
                row.push(found.map(|(_, v)| v));
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// The exposure of every run, `[side][run]`, for `mode`.
///
/// `relative` (`--percentage relative`) re-bases shares on the samples the
/// filters kept, as perf does; otherwise a share is of all the run's samples.
pub fn exposures(
    sides: &[Side],
    matrix: &Matrix,
    mode: Normalize,
    info: &RunInfo,
    relative: bool,
) -> Result<Vec<Vec<f64>>> {
    one_unit(sides, mode)?;
    let mut missing = Vec::new();
    let mut out: Vec<Vec<f64>> = Vec::new();
    let rows = match mode {
        Normalize::Rate | Normalize::Work => info.resolve(sides)?,
        _ => Vec::new(),
    };
    let row_of = |s: usize, r: usize| rows.get(s).and_then(|x| x.get(r)).copied().flatten();
    if mode == Normalize::Rate {
        durations_from_one_place(sides, |s, r| row_of(s, r).and_then(|e| e.0).is_some())?;
    }
    for (s, side) in sides.iter().enumerate() {
        let mut row = Vec::new();
        for (r, run) in side.runs.iter().enumerate() {
            let e = match mode {
                Normalize::Share if relative => kept_base(matrix, s, r),
                // Rounded percentages can add up to a little over 100%.
                Normalize::Share if run.weight == Weight::Percent => {
                    run.total.max(matrix.counts[s][r].iter().sum())
                }
                Normalize::Share => run.total,
                Normalize::Ticks | Normalize::Robust => 1.0,
                Normalize::Rate => match row_of(s, r).and_then(|e| e.0).or(run.duration_s) {
                    Some(d) => d,
                    None => {
                        missing.push(run.source.clone());
                        f64::NAN
                    }
                },
                Normalize::Work => match row_of(s, r).and_then(|e| e.1) {
                    Some(w) => w,
                    None => {
                        missing.push(run.source.clone());
                        f64::NAN
                    }
                },
            };
            if !missing.is_empty() {
                row.push(e);
                continue;
            }
            if !(e > 0.0 && e.is_finite()) {
                bail!(
                    "{}: the run's {} is {}; it must be positive",
                    run.source,
                    match mode {
                        Normalize::Rate => "duration",
                        Normalize::Work => "work count",
                        _ if relative => "total after filters",
                        _ => "total",
                    },
                    fmt_count(e)
                );
            }
            row.push(e);
        }
        out.push(row);
    }
    if !missing.is_empty() {
        let what = match mode {
            Normalize::Rate => {
                "a duration (a --run-info CSV `path,duration_s,work`, or sample timestamps)"
            }
            _ => "a work count (a --run-info CSV `path,duration_s,work`)",
        };
        bail!(
            "--normalize {} needs {} for every run; missing for: {}",
            mode.name(),
            what,
            missing.join(", ")
        );
    }
    if mode == Normalize::Robust {
        let runs: Vec<Vec<f64>> = matrix.counts.iter().flatten().cloned().collect();
        let Some(factors) = stats::size_factors(&runs) else {
            bail!("--normalize robust needs at least one symbol with 5 or more samples in every run; none has");
        };
        let mut it = factors.into_iter();
        for row in out.iter_mut() {
            for e in row.iter_mut() {
                *e = it.next().unwrap_or(1.0);
            }
        }
    }
    Ok(out)
}

/// The `--percentage relative` base of run `r` of side `s`: the samples
/// of the shown rows (those the filters keep), each counted once (under
/// `--inclusive`, by its leaf: [`Matrix::kept`]).
fn kept_base(matrix: &Matrix, s: usize, r: usize) -> f64 {
    if let Some(kept) = &matrix.kept {
        return kept[s][r];
    }
    matrix.counts[s][r]
        .iter()
        .zip(&matrix.symbols)
        .filter(|(_, sym)| sym.shown)
        .map(|(c, _)| c)
        .sum()
}

/// `-n rate` takes a run's duration from `--run-info`, else from its sample
/// timestamps: a CSV that lists some runs and not others would mix the two
/// (a measured 1.000 s beside a recorded 0.217 s) without a word: refused,
/// naming the runs it lacks.
fn durations_from_one_place(sides: &[Side], listed: impl Fn(usize, usize) -> bool) -> Result<()> {
    let mut lacking = Vec::new();
    let mut any = false;
    for (s, side) in sides.iter().enumerate() {
        for (r, run) in side.runs.iter().enumerate() {
            if listed(s, r) {
                any = true;
            } else {
                lacking.push(run.source.as_str());
            }
        }
    }
    if any && !lacking.is_empty() {
        bail!(
            "--run-info gives durations for some runs but not for: {} (their sample \
             timestamps would be mixed with the CSV's durations); list every run in it",
            lacking.join(", ")
        );
    }
    Ok(())
}

/// Refuse counts in two units under a unit that compares counts as they
/// are (`-n ticks`, `rate`, `work`, `robust`, `-o classic`): runs whose
/// counts are summed sample periods (a perf report Period column,
/// `--weight period`) beside runs whose counts are samples would make
/// every row a change of units. Shares (`-n share`) are of each run's own
/// total, so any unit compares there.
fn one_unit(sides: &[Side], mode: Normalize) -> Result<()> {
    if mode == Normalize::Share {
        return Ok(());
    }
    let runs: Vec<&Profile> = sides.iter().flat_map(|s| &s.runs).collect();
    let (period, samples): (Vec<&Profile>, Vec<&Profile>) =
        runs.iter().partition(|r| r.weight == Weight::Period);
    if period.is_empty() || samples.is_empty() {
        return Ok(());
    }
    let named = |list: &[&Profile]| {
        let mut names: Vec<&str> = list.iter().take(3).map(|r| r.source.as_str()).collect();
        let more = list.len().saturating_sub(3);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        names.dedup();
        format!("{}{more}", names.join(", "))
    };
    bail!(
        "-n {} (and -o classic) compares counts as they are, but the counts of {} are sample \
         periods and those of {} samples: give every run in one unit (perf report -n, or \
         --weight period for perf script and perf.data), or compare shares (-n share)",
        mode.name(),
        named(&period),
        named(&samples)
    )
}

/// Whether every run holds genuine sample counts (Poisson), so that the
/// significance tests apply. A run whose total is only estimated (rows cut
/// by `--percent-limit`) still has exact counts on the rows it lists.
pub fn counts_are_samples(sides: &[Side]) -> bool {
    sides
        .iter()
        .flat_map(|s| &s.runs)
        .all(|r| r.weight == Weight::Samples)
}

/// The `--run-info` columns, in the order a file without a header gives them.
const RUN_INFO_COLUMNS: [&str; 3] = ["path", "duration_s", "work"];

/// Where a `--run-info` file holds each of [`RUN_INFO_COLUMNS`] (field
/// index), and how many fields a line may have.
struct RunInfoColumns {
    at: [Option<usize>; 3],
    min: usize,
    max: usize,
}

impl RunInfoColumns {
    const USUAL: Self = Self {
        at: [Some(0), Some(1), Some(2)],
        min: 2,
        max: 3,
    };

    /// A header record (its first record naming a `path` column), read by
    /// its names in any order; `None` when `record` is not a header.
    fn header(record: &csv::StringRecord, at: &str) -> Result<Option<Self>> {
        if !record.iter().any(|f| f == "path") {
            return Ok(None);
        }
        let mut cols = [None; 3];
        for (i, f) in record.iter().enumerate() {
            let Some(c) = RUN_INFO_COLUMNS.iter().position(|c| *c == f) else {
                bail!("{at}: header column \"{f}\" is not one of path, duration_s, work");
            };
            if cols[c].replace(i).is_some() {
                bail!("{at}: header column \"{f}\" is given twice");
            }
        }
        let path = cols[0].unwrap_or_default();
        // Fields left out at a line's end are empty, as without a header,
        // but the path and one field are always there.
        Ok(Some(Self {
            at: cols,
            min: (path + 1).max(2).min(record.len()),
            max: record.len(),
        }))
    }

    /// The columns in the file's order, as a header line would give them.
    fn layout(&self) -> String {
        let mut cols: Vec<(usize, &str)> = self
            .at
            .iter()
            .zip(RUN_INFO_COLUMNS)
            .filter_map(|(i, c)| i.map(|i| (i, c)))
            .collect();
        cols.sort_unstable();
        cols.iter().map(|(_, c)| *c).collect::<Vec<_>>().join(",")
    }
}

/// Parse a `--run-info` CSV: `path,duration_s,work` (header line optional,
/// empty fields allowed; a header, the first record when it names a `path`
/// column, may give the columns in any order, or only some of them, and
/// they are read by their names). Blank lines and lines starting with `#`
/// are passed over, fields are trimmed, and a field may be quoted as in
/// any CSV (a path with a comma: `"runs/a,b/old.txt",10.5,1000`). Errors
/// name the line.
pub fn parse_run_info(text: &str, origin: &str) -> Result<RunInfo> {
    let mut info = RunInfo::default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    let mut lines = Lines::default();
    let mut lines_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut cols = RunInfoColumns::USUAL;
    let mut header_due = true;
    loop {
        let from = reader.position().byte() as usize;
        let read = reader.read_record(&mut record);
        let to = reader.position().byte() as usize;
        let (n, line) = lines.record(text, from, to);
        match read {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => bail!("{origin}:{n}: {e}"),
        }
        let Some(line) = line else { continue };
        if std::mem::take(&mut header_due) {
            if let Some(header) = RunInfoColumns::header(&record, &format!("{origin}:{n}"))? {
                cols = header;
                continue;
            }
        }
        let num = |s: Option<&str>| -> Result<Option<f64>, String> {
            match s {
                None | Some("") => Ok(None),
                Some(s) => s.parse::<f64>().map(Some).map_err(|_| s.to_string()),
            }
        };
        if record.len() < cols.min || record.len() > cols.max {
            bail!(
                "{origin}:{n}: expected `{}`, found \"{line}\"",
                cols.layout()
            );
        }
        let field = |c: usize| cols.at[c].and_then(|i| record.get(i));
        let (d, w) = match (num(field(1)), num(field(2))) {
            (Ok(d), Ok(w)) => (d, w),
            (Err(bad), _) | (_, Err(bad)) => bail!(
                "{origin}:{n}: expected a number, found \"{bad}\" (columns `{}`)",
                cols.layout()
            ),
        };
        let path = field(0).unwrap_or_default().to_string();
        // A run listed twice with other numbers: which holds is not known.
        match lines_of.get(&path) {
            Some(&first) if info.entries.get(&path) != Some(&(d, w)) => bail!(
                "{origin}:{n}: {path} is listed a second time (first on line {first}) with other numbers: keep one"
            ),
            Some(_) => continue,
            None => {}
        }
        lines_of.insert(path.clone(), n);
        info.entries.insert(path, (d, w));
    }
    Ok(info)
}

/// Line numbers for the records of a CSV text. The span csv reads for a
/// record also holds the comment and blank lines it passed over before it
/// (and the `\n` of a `\r\n`); an indented comment or a line of spaces
/// it reads as a record of its own.
#[derive(Default)]
struct Lines {
    /// Newlines before byte `at`.
    at: usize,
    newlines: usize,
}

impl Lines {
    /// The line number of the record read from `text[from..to]` and its
    /// text, trimmed; no text when the span holds only comment or blank lines.
    fn record<'t>(&mut self, text: &'t str, from: usize, to: usize) -> (usize, Option<&'t str>) {
        let span = text.get(from..to).unwrap_or("");
        let mut start = from;
        for l in span.split_inclusive('\n') {
            let t = l.trim();
            if !t.is_empty() && !t.starts_with('#') {
                break;
            }
            start += l.len();
        }
        if start >= self.at {
            let seen = text.get(self.at..start).unwrap_or("");
            self.newlines += seen.bytes().filter(|&b| b == b'\n').count();
            self.at = start;
        }
        let line = text.get(start..to).map(str::trim).filter(|t| !t.is_empty());
        (self.newlines + 1, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Format;

    fn run(name: &str, counts: &[(&str, f64)], total: f64, unknown: f64) -> Profile {
        let mut p = Profile::new(name, Format::Readprofile);
        for (s, c) in counts {
            p.add(SymbolKey::new(*s), *c);
        }
        p.total = total;
        p.unattributed = unknown;
        p
    }

    fn side(name: &str, runs: Vec<Profile>) -> Side {
        Side::new(name, runs)
    }

    #[test]
    fn union_of_symbols_with_pseudo_rows() {
        let a = side("old", vec![run("a1", &[("x", 5.0)], 7.0, 2.0)]);
        let mut cut = run("b1", &[("y", 6.0)], 10.0, 0.0);
        cut.total_approximate = Some("rows below --percent-limit".into());
        let b = side("new", vec![cut]);
        let m = build(
            &[a, b],
            &Identity {
                fold: true,
                ..Default::default()
            },
        );
        let names: Vec<&str> = m.symbols.iter().map(|s| s.ident.name.as_str()).collect();
        assert_eq!(names, ["*unknown*", "*unlisted*", "x", "y"]);
        assert_eq!(m.counts[0][0], vec![2.0, 0.0, 5.0, 0.0]);
        assert_eq!(m.counts[1][0], vec![0.0, 4.0, 0.0, 6.0]);
        assert!(m.warnings.is_empty());
    }

    #[test]
    fn filtered_samples_are_not_a_pseudo_row_and_excess_is_warned() {
        // Total includes samples a parse-time filter removed: no row for them.
        let a = side("old", vec![run("a1", &[("x", 5.0)], 9.0, 0.0)]);
        let b = side("new", vec![run("b1", &[("x", 12.0)], 10.0, 0.0)]);
        let m = build(&[a, b], &Identity::default());
        assert_eq!(m.symbols.len(), 1);
        assert_eq!(m.warnings.len(), 1);
        assert!(
            m.warnings[0].contains("add up to 12 but the run's total is 10"),
            "{:?}",
            m.warnings
        );
    }

    #[test]
    fn dso_is_identity_only_when_every_run_names_it() {
        let mut a = Profile::new("a", Format::PerfReport);
        a.add(
            SymbolKey::new("read").with_dso(Some("libc.so.6".into())),
            3.0,
        );
        a.add(
            SymbolKey::new("read").with_dso(Some("[kernel.kallsyms]".into())),
            4.0,
        );
        a.total = 7.0;
        let with = build(
            &[side("o", vec![a.clone()]), side("n", vec![a.clone()])],
            &Identity::default(),
        );
        assert_eq!(with.symbols.len(), 2);
        let mut r = Profile::new("r", Format::Readprofile);
        r.add(SymbolKey::new("read"), 1.0);
        r.total = 1.0;
        let without = build(
            &[side("o", vec![a]), side("n", vec![r])],
            &Identity::default(),
        );
        assert_eq!(without.symbols.len(), 1);
        assert_eq!(without.counts[0][0], vec![7.0]);
    }

    #[test]
    fn run_info_csv() {
        let info = parse_run_info(
            "path,duration_s,work\nold/run1.txt,10.5,1000\nnew/run1.txt,,2000\n",
            "ri.csv",
        )
        .unwrap();
        assert_eq!(
            info.lookup("old/run1.txt"),
            Some((Some(10.5), Some(1000.0)))
        );
        assert_eq!(info.lookup("/abs/new/run1.txt"), Some((None, Some(2000.0))));
        let e = parse_run_info("a,b,c,d\n", "ri.csv").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("ri.csv:1: expected `path,duration_s,work`"),
            "{e}"
        );
        let e = parse_run_info("x.txt,ten\n", "ri.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:1: expected a number, found \"ten\" (columns `path,duration_s,work`)"
        );
        // A run listed twice: refused when the numbers differ.
        let e = parse_run_info("a.txt,1,2\nb.txt,3\na.txt,1,5\n", "ri.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:3: a.txt is listed a second time (first on line 1) with other numbers: keep one"
        );
        assert!(parse_run_info("a.txt,1,2\na.txt,1,2\n", "ri.csv").is_ok());
    }

    #[test]
    fn run_info_rows_match_one_run_each() {
        let mut sides = Vec::new();
        for name in ["old", "new"] {
            let mut p = Profile::new(format!("{name}/run1.txt"), Format::Readprofile);
            p.add(SymbolKey::new("read"), 5.0);
            p.total = 5.0;
            sides.push(side(name, vec![p]));
        }
        let m = build(&sides, &Identity::default());
        // One bare name for the runs of two directories: refused.
        let info = parse_run_info("run1.txt,10\n", "ri.csv").unwrap();
        let e = exposures(&sides, &m, Normalize::Rate, &info, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--run-info row run1.txt matches the runs old/run1.txt and new/run1.txt: \
             give each run's path as the run is named"
        );
        // A run that two rows match by suffix: refused.
        let info = parse_run_info(
            "x/old/run1.txt,10\ny/old/run1.txt,20\nnew/run1.txt,5\n",
            "ri.csv",
        )
        .unwrap();
        let e = exposures(&sides, &m, Normalize::Rate, &info, false).unwrap_err();
        assert!(
            e.to_string().starts_with("run old/run1.txt matches 2 rows"),
            "{e}"
        );
        // Each run its own row.
        let info = parse_run_info("/r/old/run1.txt,10\nnew/run1.txt,5\n", "ri.csv").unwrap();
        let e = exposures(&sides, &m, Normalize::Rate, &info, false).unwrap();
        assert_eq!(e, vec![vec![10.0], vec![5.0]]);
    }

    #[test]
    fn run_info_csv_quotes_comments_and_line_numbers() {
        let text = "path,duration_s,work\r\n# a comment, with a comma\r\n\r\n  # indented\r\n   \r\n\"/runs/a,b/old/run1.txt\" , 10.5 , 1000\r\n\"new/\"\"q\"\".txt\",,2000\r\nlast.txt,1";
        let info = parse_run_info(text, "ri.csv").unwrap();
        assert_eq!(info.entries.len(), 3, "{:?}", info.entries);
        assert_eq!(
            info.lookup("/runs/a,b/old/run1.txt"),
            Some((Some(10.5), Some(1000.0)))
        );
        assert_eq!(info.lookup("new/\"q\".txt"), Some((None, Some(2000.0))));
        assert_eq!(info.lookup("last.txt"), Some((Some(1.0), None)));
        // Errors name the line, counting comment, blank and CRLF lines.
        let e = parse_run_info(
            "# c\r\n\r\n  # c\r\nok.txt,1,2\r\n\"a,b.txt\",1,2,3\r\n",
            "ri.csv",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:5: expected `path,duration_s,work`, found \"\"a,b.txt\",1,2,3\""
        );
        let e = parse_run_info("\n# c\n\"x,y.txt\",1,fast\n", "ri.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:3: expected a number, found \"fast\" (columns `path,duration_s,work`)"
        );
        // The header is the first record (after comments), read by its
        // names in any order; on a later line it is a bad record.
        let info = parse_run_info("# c\nwork,path\n5,a.txt\n", "ri.csv").unwrap();
        assert_eq!(info.lookup("a.txt"), Some((None, Some(5.0))));
        let e = parse_run_info("a.txt,1\npath,duration_s,work\n", "ri.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:2: expected a number, found \"duration_s\" (columns `path,duration_s,work`)"
        );
        let e = parse_run_info("path,seconds\n", "ri.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:1: header column \"seconds\" is not one of path, duration_s, work"
        );
        let e = parse_run_info("path,work,path\n", "ri.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:1: header column \"path\" is given twice"
        );
        let info = parse_run_info("duration_s,path,work\n1,a.txt\n", "ri.csv").unwrap();
        assert_eq!(info.lookup("a.txt"), Some((Some(1.0), None)));
        let e = parse_run_info("duration_s,path,work\n1\n", "ri.csv").unwrap_err();
        assert_eq!(
            e.to_string(),
            "ri.csv:2: expected `duration_s,path,work`, found \"1\""
        );
    }

    #[test]
    fn exposures_say_what_is_missing() {
        let a = side("old", vec![run("old/run1.txt", &[("x", 5.0)], 5.0, 0.0)]);
        let b = side("new", vec![run("new/run1.txt", &[("x", 6.0)], 6.0, 0.0)]);
        let sides = [a, b];
        let m = build(&sides, &Identity::default());
        let e = exposures(&sides, &m, Normalize::Work, &RunInfo::default(), false).unwrap_err();
        assert!(e.to_string().contains("needs a work count"), "{e}");
        assert!(e.to_string().contains("old/run1.txt, new/run1.txt"), "{e}");
        let ticks = exposures(&sides, &m, Normalize::Ticks, &RunInfo::default(), false).unwrap();
        assert_eq!(ticks, vec![vec![1.0], vec![1.0]]);
    }
}
