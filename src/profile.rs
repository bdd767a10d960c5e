//! The model every parser produces and every later stage consumes.
//!
//! A [`Profile`] is one run of one kernel: per-symbol counts (samples, ticks,
//! period or percent, see [`Weight`]), the run's total (the exposure used by
//! `--normalize share`, which includes samples no symbol claimed), and the
//! metadata the report header states (event, duration, warnings).
//! Counts are `f64` so that folded stacks with fractional weights and
//! percentage-only reports fit the same model; parsers of integer formats
//! only ever store whole numbers.

pub use crate::names::Name;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Where a sample ran, as perf's `[k]`, `[.]`, `[g]`, `[u]`, `[H]` markers say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Kernel,
    User,
    GuestKernel,
    GuestUser,
    Hypervisor,
}

impl Mode {
    /// `[k]` → Kernel, `[.]` → User, `[g]` → GuestKernel, `[u]` → GuestUser, `[H]` → Hypervisor.
    pub fn from_marker(marker: &str) -> Option<Mode> {
        match marker {
            "[k]" => Some(Mode::Kernel),
            "[.]" => Some(Mode::User),
            "[g]" => Some(Mode::GuestKernel),
            "[u]" => Some(Mode::GuestUser),
            "[H]" => Some(Mode::Hypervisor),
            _ => None,
        }
    }

    /// Kernel code (the host's or a guest's).
    pub fn is_kernel(self) -> bool {
        matches!(self, Mode::Kernel | Mode::GuestKernel)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Kernel => "kernel",
            Mode::User => "user",
            Mode::GuestKernel => "guest-kernel",
            Mode::GuestUser => "guest-user",
            Mode::Hypervisor => "hypervisor",
        }
    }
}

/// A symbol as one run names it. Aggregation decides which of these fields
/// make up the identity across runs (name and dso when every run knows the
/// dso, the name alone otherwise); `mode` is an attribute, never identity.
/// Names are interned ([`Name`]): a key is 12 bytes and `Copy`, ordered
/// by the names' text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SymbolKey {
    /// Bare name: no `[k]` marker, no `+0x…` offset. An unresolved address
    /// is `[unknown]` (in its dso), in every reader.
    pub name: Name,
    /// Shared object (`[kernel.kallsyms]`, `[kvm]`, `/usr/lib/…/libc.so.6`) when the input names it.
    pub dso: Option<Name>,
    pub mode: Option<Mode>,
}

impl SymbolKey {
    pub fn new(name: impl Into<Name>) -> Self {
        SymbolKey {
            name: name.into(),
            dso: None,
            mode: None,
        }
    }
    pub fn with_dso(mut self, dso: Option<Name>) -> Self {
        self.dso = dso;
        self
    }
    pub fn with_mode(mut self, mode: Option<Mode>) -> Self {
        self.mode = mode;
        self
    }
}

/// What the numbers in [`Profile::counts`] are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weight {
    /// Sample counts / ticks: Poisson counts, the statistics apply.
    Samples,
    /// Summed sample periods (perf `Period` column, `--weight period`).
    Period,
    /// Percentages only (perf report without a count column): counts are
    /// estimates = percent × approximate total / 100.
    Percent,
}

/// The input formats, named as `-f/--format` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Readprofile,
    PerfReport,
    PerfScript,
    Folded,
    Opreport,
    /// Raw `/proc/profile` image + System.map.
    ProcProfile,
    /// `perf record`'s perf.data, read directly.
    PerfData,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 7] = [
        Format::PerfData,
        Format::PerfReport,
        Format::PerfScript,
        Format::Readprofile,
        Format::Opreport,
        Format::Folded,
        Format::ProcProfile,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Format::Readprofile => "readprofile",
            Format::PerfReport => "perf-report",
            Format::PerfScript => "perf-script",
            Format::Folded => "folded",
            Format::Opreport => "opreport",
            Format::ProcProfile => "proc-profile",
            Format::PerfData => "perf-data",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One run of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Path (or `archive.tar:member`, or `-`) the run was read from.
    pub source: String,
    pub format: Format,
    /// The event the samples are of (`cpu-clock`), when the input says.
    pub event: Option<String>,
    /// Per-symbol counts. Never holds a zero-count entry unless the input
    /// lists the symbol explicitly with 0 (readprofile `-a`).
    pub counts: BTreeMap<SymbolKey, f64>,
    /// All samples of the run: the exposure for `--normalize share`. Includes
    /// samples that no symbol claims (readprofile's `*unknown*`, rows cut by
    /// `--percent-limit`), so it may exceed the sum of `counts`.
    pub total: f64,
    /// Why `total` is not exact, if it is not (percent-only report,
    /// `--percent-limit`, rounded `# Samples: 4K` header).
    pub total_approximate: Option<String>,
    pub weight: Weight,
    /// Wall-clock span of the samples in seconds, when the input has timestamps.
    pub duration_s: Option<f64>,
    /// Samples not attributed to any symbol row but part of `total`
    /// (readprofile `*unknown*`), for the header.
    pub unattributed: f64,
    /// Part of `total` that the sample filters took out, or cannot
    /// attribute to the samples they keep: a perf report's rows of other
    /// commands (or dsos) and, when such a report left rows out
    /// (`--percent-limit`), those rows, whose command nobody knows. Never
    /// an `*unlisted*` row, nor in a `--percentage relative` base.
    pub filtered_out: f64,
    /// Human-readable warnings about this run (total mismatch, skipped lines…).
    pub warnings: Vec<String>,
    /// Lines skipped as malformed under `--lenient` (also described in `warnings`).
    pub skipped_lines: u64,
    /// Callchains, root first, each with its summed weight (same unit as
    /// `counts`), for flame graphs. Filled only when the parser was asked
    /// to (`ParseOptions::stacks`) and the input has callchains (perf
    /// script with `-g`, folded stacks, perf.data with callchains); empty
    /// otherwise. A sample without a callchain is a one-frame stack.
    pub stacks: BTreeMap<Vec<String>, f64>,
    /// Names of the frames of `stacks` that ran in the kernel (as the input
    /// tells: perf's kernel addresses, folded stacks' `_[k]`), for flame
    /// graphs that start at the kernel entry (`--kernel-only`).
    pub kernel_frames: BTreeSet<String>,
    /// What the reader knows about its `[unknown]` samples (why each dso
    /// gave no names, what would name them), for the report's one warning
    /// about them over every run ([`crate::format::unresolved::summary`]).
    pub unresolved: Option<Unresolved>,
    /// Which privilege levels the recording's event sampled, when the
    /// input says (perf.data's event attributes); text formats say it in
    /// the event name's modifiers (`cpu-clock:u`, see [`crate::scope`]).
    pub event_scope: Option<EventScope>,
    /// What the recording says of the machine it was made on.
    pub provenance: Provenance,
    /// The functions the run's kernel map places in the kernel's idle text
    /// ([`crate::symmap::SymbolMap::cpuidle_names`]), which
    /// `--exclude-idle` removes besides its list of names.
    pub idle: BTreeSet<String>,
    /// How the recording sampled, when it says (perf.data's event
    /// attribute): `-F 999` (a frequency, Hz) or `-c 10000` (a period, in
    /// events); counts scale with it, shares do not.
    pub sampling: Option<String>,
    /// The process trees whose samples `--comm` kept (perf.data): each
    /// tree's top PID and its kept samples, largest first; empty without
    /// `--comm` (see `format::perf_data::procs`).
    pub kept_processes: Vec<(i32, f64)>,
    /// Counts are inclusive (`--inclusive`): every symbol of a sample's
    /// callchain counted once, so symbols add up to more than the total.
    pub inclusive: bool,
    /// Under `--inclusive`, the self (leaf) counts of the samples kept, by
    /// symbol: the samples counted once, whose rows the symbol filters
    /// keep or drop as without `--inclusive` (the total row and the
    /// `--percentage relative` base). Empty otherwise.
    pub leaves: BTreeMap<SymbolKey, f64>,
    /// The processes the counted samples ran in, when the input names them
    /// (perf script, perf.data): for the warning that attributes changed
    /// rows to processes present in one side's runs only
    /// ([`crate::sanity::contamination`]).
    pub comms: Option<Comms>,
}

/// The counted samples of one run by command (perf's `comm`): compact, a
/// count per command and, when the run has two or more commands, the
/// command holding most of each symbol's self samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comms {
    /// Samples (in the unit of `counts`) per command.
    pub samples: BTreeMap<Name, f64>,
    /// Per symbol: the command with most of its self samples in this run
    /// and that command's part of them (ties: the first name in order).
    /// Empty when the run has one command (every symbol is its).
    pub main: BTreeMap<SymbolKey, (Name, f64)>,
}

impl Comms {
    /// From (symbol or `None` for a sample without one, command, weight)
    /// triples, in any order; `None` when there is none.
    pub fn from_triples(
        triples: impl IntoIterator<Item = (Option<SymbolKey>, Name, f64)>,
    ) -> Option<Comms> {
        let mut samples: BTreeMap<Name, f64> = BTreeMap::new();
        let mut per: BTreeMap<SymbolKey, BTreeMap<Name, f64>> = BTreeMap::new();
        for (key, comm, w) in triples {
            *samples.entry(comm).or_insert(0.0) += w;
            if let Some(k) = key {
                *per.entry(k).or_default().entry(comm).or_insert(0.0) += w;
            }
        }
        if samples.is_empty() {
            return None;
        }
        let main = if samples.len() < 2 {
            BTreeMap::new()
        } else {
            per.into_iter()
                .filter_map(|(k, by)| {
                    let mut best: Option<(Name, f64)> = None;
                    for (c, w) in by {
                        if best.is_none_or(|(_, b)| w > b) {
                            best = Some((c, w));
                        }
                    }
                    best.map(|b| (k, b))
                })
                .collect()
        };
        Some(Comms { samples, main })
    }
}

/// Which privilege levels an event samples (perf's `exclude_user`,
/// `exclude_kernel`, `exclude_hv` attributes, or the `:u`/`:k`/`:h`
/// modifiers of its name): `true` = sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventScope {
    pub user: bool,
    pub kernel: bool,
    pub hv: bool,
}

/// What a recording says of the machine it was made on, for the checks
/// across runs (two kernels pooled on one side, a binary that differs
/// between runs) and the report header's statement of each side's kernel
/// map. Filled by the readers that know (perf.data, /proc/profile images);
/// kept in the counts table as JSON text (see
/// [`crate::table::schema::PROVENANCE`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Provenance {
    /// The kernel's release (`uname -r`; perf.data's `HEADER_OSRELEASE`).
    pub release: Option<String>,
    /// The command that recorded the run (perf.data's `HEADER_CMDLINE`:
    /// `perf record -a -e cpu-clock -- sleep 5`), one argument an item.
    pub cmdline: Option<Vec<String>>,
    /// The kernel's build-id, hexadecimal (perf.data's build-id table).
    pub kernel_build_id: Option<String>,
    /// For kernels known only by their symbols (/proc/profile images):
    /// the kernel text the image covers (`_stext`..`_etext` of its map).
    pub kernel_text: Option<String>,
    /// The kernel symbol map the run's kernel addresses were named with,
    /// and how it was chosen (`testdata/kallsyms.gz (--old-kallsyms)`).
    pub kernel_map: Option<String>,
    /// Per mapped binary with samples (by its recorded path): which
    /// build-ids name it.
    pub binaries: BTreeMap<String, BinaryId>,
    /// A report that leaves rows out (`perf report --percent-limit`): its
    /// smallest listed percentage; a symbol under it is not listed, so its
    /// absence says nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listed_down_to: Option<f64>,
}

/// The build-ids behind one binary's names in one run (hexadecimal).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct BinaryId {
    /// The build-id the recording holds for it, if any (perf record `-z`,
    /// pipe mode and `--no-buildid` hold none).
    pub recorded: Option<String>,
    /// The build-id of the binary whose symbols named it: the recorded one,
    /// or, when the recording holds none, that of the file on disk (as perf
    /// does); `None` when no file named it or the file has no build-id.
    pub named_by: Option<String>,
    /// Whether a file named it at all (its symbols were read).
    pub named: bool,
}

/// Why a run's `[unknown]` samples are unknown (kept in the counts table as
/// JSON text, see [`crate::table::schema::UNRESOLVED`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Unresolved {
    /// Per dso, why it gave no names (perf.data knows: no symbol table, a
    /// build-id mismatch, a stripped binary…).
    pub why: BTreeMap<String, String>,
    /// What would name them (the reader's advice), or empty.
    pub hint: String,
}

impl Profile {
    pub fn new(source: impl Into<String>, format: Format) -> Self {
        Profile {
            source: source.into(),
            format,
            event: None,
            counts: BTreeMap::new(),
            total: 0.0,
            total_approximate: None,
            weight: Weight::Samples,
            duration_s: None,
            unattributed: 0.0,
            filtered_out: 0.0,
            warnings: Vec::new(),
            skipped_lines: 0,
            stacks: BTreeMap::new(),
            kernel_frames: BTreeSet::new(),
            unresolved: None,
            event_scope: None,
            provenance: Provenance::default(),
            kept_processes: Vec::new(),
            inclusive: false,
            leaves: BTreeMap::new(),
            comms: None,
            idle: BTreeSet::new(),
            sampling: None,
        }
    }

    /// Add `count` to `key` (creating it).
    pub fn add(&mut self, key: SymbolKey, count: f64) {
        *self.counts.entry(key).or_insert(0.0) += count;
    }

    /// Add every pair, as [`Profile::add`] one by one would (a key met
    /// twice is summed in the order given), but sorted once and built in
    /// bulk: what a parser that has all its rows does.
    pub fn add_all(&mut self, mut pairs: Vec<(SymbolKey, f64)>) {
        if !self.counts.is_empty() {
            for (k, c) in pairs {
                self.add(k, c);
            }
            return;
        }
        if !pairs.is_sorted_by(|a, b| a.0 <= b.0) {
            let mut keyed: Vec<(u128, SymbolKey, f64)> = pairs
                .iter()
                .map(|&(k, c)| (k.name.prefix(), k, c))
                .collect();
            // Stable: equal keys keep their order, so their sum is the same.
            keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
            pairs = keyed.into_iter().map(|(_, k, c)| (k, c)).collect();
        }
        let mut merged: Vec<(SymbolKey, f64)> = Vec::with_capacity(pairs.len());
        for (k, c) in pairs {
            match merged.last_mut() {
                Some(last) if last.0 == k => last.1 += c,
                _ => merged.push((k, 0.0 + c)),
            }
        }
        self.counts = merged.into_iter().collect();
    }

    /// The self counts under `--inclusive` ([`Profile::leaves`]) from the
    /// (symbol, command, weight) triples of the samples kept.
    pub fn set_leaves(&mut self, triples: &[(Option<SymbolKey>, Name, f64)]) {
        // (weights are whole numbers: the sums are exact in any order)
        for (k, _, w) in triples {
            if let Some(k) = k {
                *self.leaves.entry(*k).or_insert(0.0) += w;
            }
        }
    }

    /// Sum of all symbol counts (not including unattributed samples).
    pub fn symbol_sum(&self) -> f64 {
        self.counts.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `add_all` gives exactly what `add` one by one gives: the same keys,
    /// and each key's sum in the order given (float sums are not
    /// associative), whatever the order and repetition of the input.
    #[test]
    fn add_all_is_add_one_by_one() {
        let names = [
            "sym_0000000000000002",
            "sym_0000000000000001",
            "a",
            "a\u{0}",
            "",
            "zz",
            "sym_0000000000000001",
        ];
        let mut pairs = Vec::new();
        for (i, n) in names.iter().cycle().take(60).enumerate() {
            let mode = [None, Some(Mode::Kernel), Some(Mode::User)][i % 3];
            let dso = (i % 4 == 0).then(|| Name::new("libc.so.6"));
            let key = SymbolKey::new(*n).with_dso(dso).with_mode(mode);
            pairs.push((key, 0.1 * (i as f64) + 1e-9 * ((i * 7) % 5) as f64));
        }
        for sorted in [false, true] {
            let mut input = pairs.clone();
            if sorted {
                input.sort_by_key(|a| a.0);
            }
            let mut one = Profile::new("one", Format::Readprofile);
            for &(k, c) in &input {
                one.add(k, c);
            }
            let mut bulk = Profile::new("bulk", Format::Readprofile);
            bulk.add_all(input);
            let a: Vec<(SymbolKey, u64)> =
                one.counts.iter().map(|(k, c)| (*k, c.to_bits())).collect();
            let b: Vec<(SymbolKey, u64)> =
                bulk.counts.iter().map(|(k, c)| (*k, c.to_bits())).collect();
            assert_eq!(a, b);
        }
    }
}
