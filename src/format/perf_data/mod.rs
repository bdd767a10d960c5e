//! Reader of `perf record`'s perf.data files, with the linux-perf-data crate.
//!
//! Input: the decompressed file (`PERFILE2` magic, either byte order; zstd
//! `-z` records accepted), kept in memory. Records are read in time order;
//! `COMM`/`FORK`/`EXEC` give each thread its command, `MMAP`/`MMAP2` each
//! process its mapped files. Output: a [`Profile`] of the chosen event's
//! samples with the perf script parser's semantics: self cost to the leaf,
//! `--inclusive` cost to every distinct symbol of the callchain once per
//! sample, `--weight period`, filters `--kernel-only` (leaf in the kernel),
//! `--comm RE`, `--dso RE` (leaf dso); `total` = every sample of the event
//! before filters. With `ParseOptions::stacks`, every kept sample's
//! callchain also goes into `Profile::stacks`, root first, each frame named
//! as the self cost names it (`[unknown]` when unresolved); a sample without
//! a callchain is a one-frame stack.
//!
//! Kernel addresses are named from kallsyms (`--kallsyms FILE`, a
//! `kallsyms*`/`System.map*` file beside the profile, or `/proc/kallsyms`
//! when the file was recorded on the running kernel: same release and, when
//! both are known, same build-id as `/sys/kernel/notes`), the way perf
//! builds its kernel symbol table ([`SymbolMap::perf_index`]). A given map
//! is checked against what the recording knows ([`mapcheck`]): the reference
//! symbol (`_text`) at the address and `_etext` at the end of the
//! `[kernel.kallsyms]_text` mmap record, the header's release and kernel
//! build-id against the map's own claims, and the kernel samples' addresses
//! (in function padding, or in the recorded text but named nothing): a map
//! of another kernel or boot is refused, unless `--force-map`. User
//! addresses are named from the ELF symbol tables of the mapped binaries
//! (regular files only), their debug files or perf's build-id cache, with
//! the recorded build-id ([`user`], [`symsrc`], [`elf`], [`symtab`],
//! [`plt`], [`demangle`]), and JIT code from `/tmp/perf-PID.map`
//! ([`jitmap`]); otherwise the sample counts as `[unknown]` in its dso,
//! never under a wrong name, and a warning counts them per dso and says
//! what would name them. Unresolved kernel addresses are `[unknown]` in
//! `[kernel.kallsyms]` (perf report lists them per address).

mod attrs;
mod check;
mod comms;
mod compressed;
mod demangle;
mod elf;
mod event;
mod header;
mod itanium;
mod jitmap;
mod kernel;
mod mapcheck;
mod maps;
mod plt;
mod procs;
mod provenance;
mod records;
mod symsrc;
mod symtab;
mod tally;
mod user;

pub use demangle::demangle;
pub use user::UserSymbolOptions;

use super::unresolved::{self, UNKNOWN};
use super::{ParseError, ParseOptions, Sniff, WeightBy};
use crate::profile::{Comms, Format, Mode, Name, Profile, SymbolKey, Weight};
use crate::symmap::SymbolMap;
use check::check_record;
use event::{choose_event, Event};
use kernel::kernel_symbols;
use linux_perf_data::linux_perf_event_reader::EventRecord;
use linux_perf_data::{DsoKey, PerfFile, PerfFileReader};
use mapcheck::{identity_mismatch, judge, Fit, Judged};
use maps::Mapping;
use records::{InPlace, Rec, Records};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::BufRead;
use std::sync::Arc;
use tally::Tally;
use user::Dso;

const MAGIC_LE: &[u8; 8] = b"PERFILE2";
const MAGIC_BE: &[u8; 8] = b"2ELIFREP";
const KERNEL_DSO: &str = "[kernel.kallsyms]";

pub fn sniff(head: &[u8], eof: bool) -> Sniff {
    let n = head.len().min(8);
    if head[..n] != MAGIC_LE[..n] && head[..n] != MAGIC_BE[..n] {
        Sniff::No
    } else if n == 8 {
        Sniff::Yes
    } else if eof {
        Sniff::No
    } else {
        Sniff::NeedMore
    }
}

/// A frame's identity while counting: cheap to hash, named at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Frame {
    /// Index into the kernel map's symbols.
    Kernel(u32),
    KernelUnknown,
    /// Dso index, function index in that dso's [`elf::ElfSymbols`].
    User(u32, u32),
    /// Dso index.
    UserUnknown(u32),
    /// No map at all (or guest / hypervisor), by mode.
    Unknown(Mode),
}

/// Slots of the kernel address cache (direct-mapped by address).
const KCACHE: usize = 1 << 14;

/// Slots of the user address cache (direct-mapped by dso and file offset).
const UCACHE: usize = 1 << 14;

/// No function of the dso holds the offset (in [`State::ucache`]).
const NO_FUNCTION: u32 = u32::MAX;

struct State<'a> {
    origin: &'a str,
    user: &'a UserSymbolOptions,
    kernel: Option<Arc<SymbolMap>>,
    kernel_err: Option<String>,
    comms: comms::Comms,
    maps: FxHashMap<i32, Vec<Mapping>>,
    dsos: Vec<Dso>,
    dso_ids: HashMap<String, u32>,
    build_ids: HashMap<Vec<u8>, Vec<u8>>,
    /// Kernel address → frame, for the few thousand hot addresses.
    kcache: Vec<(u64, Frame)>,
    /// (dso, file offset) → function index in the dso's symbols (or
    /// [`NO_FUNCTION`]): a dso's table never changes once loaded, so a hot
    /// address is searched for once, not once per sample.
    ucache: Vec<(u32, u64, u32)>,
    /// How well the kernel map names the kernel samples ([`mapcheck::Fit`]).
    fit: Fit,
    /// Why the kernel map seems not to be the recording's ([`mapcheck`]).
    doubts: Vec<String>,
    /// The recording's kernel: release and build-id (header).
    release: Option<String>,
    /// perf's command line (`HEADER_CMDLINE`).
    cmdline: Option<Vec<String>>,
    kernel_id: Option<Vec<u8>>,
    /// How the kernel map was chosen (`--new-kallsyms`, `beside the run`).
    map_origin: Option<String>,
}

impl State<'_> {
    /// The dso of `path` (JIT code of `jit_pid` when given); `build_id`
    /// from an `MMAP2` record, else the recording's build-id table.
    fn dso_id(&mut self, path: &str, jit_pid: Option<i32>, build_id: Option<Vec<u8>>) -> u32 {
        if let Some(&id) = self.dso_ids.get(path) {
            return id;
        }
        let id = self.dsos.len() as u32;
        let build_id = build_id.or_else(|| self.build_ids.get(path.as_bytes()).cloned());
        self.dsos
            .push(Dso::new(path.to_string(), build_id, jit_pid));
        self.dso_ids.insert(path.to_string(), id);
        id
    }
    /// Name one address in `mode` for process `pid`.
    fn frame(&mut self, pid: i32, mode: Mode, ip: u64) -> Result<Frame, ParseError> {
        match mode {
            Mode::Kernel => {
                let Some(map) = &self.kernel else {
                    let why = self.kernel_err.clone().unwrap_or_default();
                    return Err(ParseError::invalid(self.origin, why));
                };
                let slot = (ip as usize >> 1) % KCACHE;
                if let Some(&(at, f)) = self.kcache.get(slot) {
                    if at == ip {
                        return Ok(f);
                    }
                }
                let idx = map.perf_index();
                let k = idx.partition_point(|r| r.start <= ip);
                let f = match k.checked_sub(1).and_then(|k| idx.get(k)) {
                    Some(r) if ip < r.end => Frame::Kernel(r.index as u32),
                    _ => Frame::KernelUnknown,
                };
                if let Some(c) = self.kcache.get_mut(slot) {
                    *c = (ip, f);
                }
                Ok(f)
            }
            Mode::User => {
                let Some(list) = self.maps.get(&pid) else {
                    return Ok(Frame::Unknown(Mode::User));
                };
                let k = list.partition_point(|m| m.start <= ip);
                let Some(m) = k.checked_sub(1).and_then(|k| list.get(k)) else {
                    return Ok(Frame::Unknown(Mode::User));
                };
                if ip >= m.end {
                    return Ok(Frame::Unknown(Mode::User));
                }
                let id = m.dso;
                let dso = &self.dsos[id as usize];
                let off = if dso.absolute() {
                    Some(ip)
                } else {
                    (ip - m.start).checked_add(m.pgoff)
                };
                let Some(off) = off else {
                    return Ok(Frame::UserUnknown(id));
                };
                let slot = (off.rotate_right(1) ^ u64::from(id).wrapping_mul(0x9e37_79b9_7f4a_7c15))
                    as usize
                    % UCACHE;
                let n = match self.ucache.get(slot) {
                    Some(&(d, at, n)) if d == id && at == off => n,
                    _ => {
                        let n = dso
                            .symbols(self.user)
                            .and_then(|s| s.lookup_index(off))
                            .unwrap_or(NO_FUNCTION);
                        if let Some(c) = self.ucache.get_mut(slot) {
                            *c = (id, off, n);
                        }
                        n
                    }
                };
                Ok(match n {
                    NO_FUNCTION => Frame::UserUnknown(id),
                    n => Frame::User(id, n),
                })
            }
            other => Ok(Frame::Unknown(other)),
        }
    }

    /// The dso a frame is in, as `--dso` sees it and the key names it.
    fn dso_of(&self, f: Frame) -> std::borrow::Cow<'_, str> {
        match f {
            Frame::Kernel(i) => match self.kernel_symbol(i).and_then(|s| s.module.as_deref()) {
                Some(m) => format!("[{m}]").into(),
                None => KERNEL_DSO.into(),
            },
            Frame::KernelUnknown => KERNEL_DSO.into(),
            Frame::User(d, _) | Frame::UserUnknown(d) => self.dsos[d as usize].path.as_str().into(),
            Frame::Unknown(_) => UNKNOWN.into(),
        }
    }

    /// Count a kernel sample's leaf for the map check ([`mapcheck::Fit`]).
    fn fit_kernel(&mut self, leaf: Frame, ip: u64, w: f64) {
        let name = match leaf {
            Frame::Kernel(i) => self
                .kernel
                .as_ref()
                .and_then(|k| k.symbols.get(i as usize))
                .map(|s| s.name.as_str()),
            _ => None,
        };
        self.fit.add(name, ip, w);
    }

    fn kernel_symbol(&self, i: u32) -> Option<&crate::symmap::MapSymbol> {
        self.kernel.as_ref().and_then(|k| k.symbols.get(i as usize))
    }

    fn key(&self, f: Frame) -> SymbolKey {
        let dso = self.dso_of(f);
        // One name for a JIT's perf-PID.map whatever the run's pid.
        let dso =
            super::perf_script::jit_map_dso(&dso).map_or_else(|| dso.into_owned(), str::to_string);
        let (name, mode) = match f {
            Frame::Kernel(i) => (
                self.kernel_symbol(i)
                    .map_or(UNKNOWN, |s| s.name.as_str())
                    .to_string(),
                Mode::Kernel,
            ),
            Frame::KernelUnknown => (UNKNOWN.into(), Mode::Kernel),
            Frame::User(d, n) => {
                let syms = self.dsos[d as usize].loaded();
                let name = syms.and_then(|s| s.name(n));
                (
                    name.map_or(UNKNOWN.to_string(), Cow::into_owned),
                    Mode::User,
                )
            }
            Frame::UserUnknown(_) => (UNKNOWN.into(), Mode::User),
            Frame::Unknown(m) => (UNKNOWN.into(), m),
        };
        SymbolKey::new(name)
            .with_dso(Some(Name::from(dso)))
            .with_mode(Some(mode))
    }
}

/// Parse a perf.data stream (a pipe, a decompressed file): read into
/// memory, up to [`super::MAX_IN_MEMORY`] bytes.
pub fn parse(
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let bytes = super::read_bounded(input, origin, "perf.data")?;
    parse_bytes(&bytes, origin, opts)
}

/// Parse a whole perf.data file in memory (or mapped).
pub fn parse_bytes(bytes: &[u8], origin: &str, opts: &ParseOptions) -> Result<Profile, ParseError> {
    // Defence in depth: the record decoder is a dependency; a panic on a
    // damaged file becomes an error naming the file.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(bytes, origin, opts)))
        .unwrap_or_else(|_| {
            Err(ParseError::invalid(
                origin,
                "corrupt perf.data: the record decoder failed on it",
            ))
        })
}

fn read(bytes: &[u8], origin: &str, opts: &ParseOptions) -> Result<Profile, ParseError> {
    let header::Opened {
        reader: PerfFileReader {
            mut perf_file,
            record_iter,
        },
        mut warnings,
        walk,
        data,
    } = header::open(bytes, origin)?;
    let damaged = damaged(bytes, &walk, origin, opts, &mut warnings)?;
    let whole = data.filter(|_| !damaged);
    let flagged = attrs::of(bytes, &perf_file);
    let mut records = match whole.and_then(|d| InPlace::new(bytes, &perf_file, &flagged, &walk, d))
    {
        Some(r) => Records::InPlace(r),
        None => Records::Decoder(record_iter),
    };
    let event = choose_event(&perf_file, &flagged, opts, origin, &mut warnings)?;
    let mut st = kernel_state(&perf_file, opts, origin);
    let mut tally = Tally::default();
    let mut record_no = 0u64;
    let mut unknown = Unknown::default();
    loop {
        let record = match records.next(&mut perf_file) {
            Ok(r) => r,
            // Past damage that --lenient accepted, the decoder may give up.
            Err(e) if damaged => {
                warnings.push(format!(
                    "{origin}: --lenient: reading stopped at record {}, which the damage \
                     made unreadable ({e}); the records before it are counted",
                    record_no + 1
                ));
                break;
            }
            Err(e) => {
                return Err(bad(
                    origin,
                    &format!("record {}: corrupt perf.data", record_no + 1),
                    &e,
                ))
            }
        };
        let Some(record) = record else { break };
        record_no += 1;
        let (attr_index, raw) = match record {
            Rec::Event { attr_index, raw } => (attr_index, raw),
            Rec::User(kind) => {
                if kind.is_some_and(|k| k >= UNKNOWN_USER_TYPES) {
                    unknown.note(kind, record_no);
                }
                continue;
            }
        };
        if (UNKNOWN_KERNEL_TYPES..64).contains(&raw.record_type.0) {
            unknown.note(Some(raw.record_type.0), record_no);
        }
        check_record(&raw, origin, record_no)?;
        let parsed = raw.parse().map_err(|e| {
            bad(
                origin,
                &format!(
                    "record {record_no} ({:?}): corrupt perf.data",
                    raw.record_type
                ),
                &e,
            )
        })?;
        match parsed {
            EventRecord::Sample(s) if attr_index == event.index => {
                tally.sample(&mut st, &s, &event, opts, record_no)?
            }
            other => tally.record(&mut st, other)?,
        }
    }
    warnings.extend(unknown.warning(origin));
    finish(st, tally, &event, opts, warnings)
}

/// Record types no perf writes: the kernel's end at 22
/// (`PERF_RECORD_CALLCHAIN_DEFERRED`), the perf tool's (from 64) below 96.
const UNKNOWN_KERNEL_TYPES: u32 = 23;
const UNKNOWN_USER_TYPES: u32 = 96;

/// Records of a type no perf writes (a damaged header, perf report refuses
/// the file: "failed to process type"): skipped, counted, said.
#[derive(Default)]
struct Unknown {
    count: u64,
    first: Option<(u32, u64)>,
}

impl Unknown {
    fn note(&mut self, kind: Option<u32>, record: u64) {
        self.count += 1;
        if let Some(k) = kind {
            self.first.get_or_insert((k, record));
        }
    }

    fn warning(&self, origin: &str) -> Option<String> {
        let (kind, record) = self.first?;
        Some(format!(
            "{origin}: {} of a type no perf writes (the first: type {kind}, record \
             {record}) skipped: the file is damaged or from a newer perf (perf report \
             refuses it); what they held is not counted",
            crate::text::plural(self.count, "record")
        ))
    }
}

/// A perf.data error: `what` it is, then the decoder's words.
fn bad(origin: &str, what: &str, e: &dyn std::fmt::Display) -> ParseError {
    ParseError::invalid(origin, format!("{what}: {e}"))
}

/// Damage in the compressed records ([`compressed`]): an error, or under
/// `--lenient` a warning (and `true`: read on as far as the decoder can).
fn damaged(
    bytes: &[u8],
    walk: &check::Walk,
    origin: &str,
    opts: &ParseOptions,
    warnings: &mut Vec<String>,
) -> Result<bool, ParseError> {
    let Some(d) = compressed::check(bytes, walk, bytes.starts_with(MAGIC_LE)) else {
        return Ok(false);
    };
    let at = format!("record {} (compressed) at offset {}", d.record, d.offset);
    if !opts.lenient {
        return Err(ParseError::invalid(
            origin,
            format!(
                "{at}: corrupt perf.data: {}: {}; --lenient reads what is left with a warning",
                d.what, d.lost
            ),
        ));
    }
    warnings.push(format!(
        "{origin}: --lenient: {at} is damaged: {}: {}",
        d.what, d.lost
    ));
    Ok(true)
}

/// Kernel identity (release, build-ids) and symbols: the state the records
/// are read with.
fn kernel_state<'a>(perf_file: &PerfFile, opts: &'a ParseOptions, origin: &'a str) -> State<'a> {
    let release = perf_file.os_release().ok().flatten().map(str::to_string);
    let mut build_ids: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    let mut kernel_id = None;
    if let Ok(ids) = perf_file.build_ids() {
        for (key, info) in ids {
            if key == DsoKey::Kernel {
                kernel_id = Some(info.build_id.clone());
            }
            build_ids.insert(info.path, info.build_id);
        }
    }
    let (kernel, map_origin, kernel_err) =
        match kernel_symbols(opts, release.as_deref(), kernel_id.as_deref()) {
            Ok((m, how)) => (Some(m), Some(how), None),
            Err(e) => (None, None, Some(e)),
        };
    let doubts: Vec<String> = kernel
        .as_deref()
        .and_then(|m| identity_mismatch(m, release.as_deref(), kernel_id.as_deref()))
        .into_iter()
        .collect();
    State {
        origin,
        user: &opts.user,
        kernel,
        kernel_err,
        comms: comms::Comms::default(),
        maps: FxHashMap::default(),
        dsos: Vec::new(),
        dso_ids: HashMap::new(),
        build_ids,
        kcache: vec![(u64::MAX, Frame::KernelUnknown); KCACHE],
        ucache: vec![(u32::MAX, 0, NO_FUNCTION); UCACHE],
        fit: Fit::default(),
        doubts,
        release,
        cmdline: perf_file
            .cmdline()
            .ok()
            .flatten()
            .map(|args| args.iter().map(|a| a.to_string()).collect()),
        kernel_id,
        map_origin,
    }
}

/// The profile: the map judged, warnings, every frame named once
/// (demangling happens here), stacks named like the self cost.
fn finish(
    st: State<'_>,
    mut tally: Tally,
    event: &Event,
    opts: &ParseOptions,
    mut warnings: Vec<String>,
) -> Result<Profile, ParseError> {
    if !opts.inclusive && !opts.stacks {
        tally.self_counts();
    }
    let origin = st.origin;
    let mut p = Profile::new(origin, Format::PerfData);
    p.event = Some(event.name.clone());
    p.event_scope = Some(event.scope);
    p.sampling = event.sampling.clone();
    p.weight = match opts.weight {
        WeightBy::Samples => Weight::Samples,
        WeightBy::Period => Weight::Period,
    };
    warnings.extend(map_warnings(&st, opts)?);
    warnings.extend(tally_warnings(&tally, opts, origin));
    if event.dwarf_stacks && (opts.inclusive || opts.stacks) {
        // (perf report unwinds the copied user stacks with libdw; we do not.)
        warnings.push(format!(
            "{origin}: recorded with --call-graph dwarf: the user stacks it copied are \
             not unwound here, so callchains stop at the kernel entry (no user callers \
             in --inclusive or the flame graph); record with -g (frame pointers) for them"
        ));
    }
    if let Some(f) = &opts.comm {
        p.kept_processes = tally.procs.trees(&st.comms.by_tid(), f);
    }
    p.provenance = provenance::of(&st, tally.counts.keys());
    if let Some(map) = &st.kernel {
        p.idle = map.cpuidle_names();
    }
    // Each distinct frame is named once (demangling happens here).
    let mut keys: FxHashMap<Frame, SymbolKey> = FxHashMap::default();
    let mut key = |f: Frame| *keys.entry(f).or_insert_with(|| st.key(f));
    for (f, c) in tally.counts {
        p.add(key(f), c);
    }
    let mut comm_names: FxHashMap<u32, Name> = FxHashMap::default();
    let triples: Vec<(Option<SymbolKey>, Name, f64)> = tally
        .by_comm
        .into_iter()
        .map(|((f, c), w)| {
            let name = *comm_names
                .entry(c)
                .or_insert_with(|| Name::new(st.comms.name(c)));
            (Some(key(f)), name, w)
        })
        .collect();
    if opts.inclusive {
        p.set_leaves(&triples);
    }
    p.comms = Comms::from_triples(triples);
    let why = |dso: &str| {
        let d = st.dso_ids.get(dso).map(|&i| &st.dsos[i as usize]);
        if d.is_none() && super::perf_script::jit_map_dso(dso).is_some() {
            // The one name of every process's JIT map: each map's reason.
            let mut whys: Vec<String> = st
                .dsos
                .iter()
                .filter(|d| d.is_jit())
                .map(|d| user::unresolved_hint(Some(d), dso))
                .collect();
            whys.dedup();
            if !whys.is_empty() {
                return Some(whys.join("; "));
            }
        }
        Some(user::unresolved_hint(d, dso))
    };
    p.unresolved = unresolved::note(&p, &why, "");
    // Stacks are named like the self cost (`st.key`): frames that resolve
    // to one name merge; unresolved ones are `[unknown]`.
    for (frames, c) in tally.stacks {
        let names: Vec<String> = frames
            .into_iter()
            .map(|f| {
                let k = key(f);
                if k.mode.is_some_and(Mode::is_kernel) && k.name != UNKNOWN {
                    p.kernel_frames.insert(k.name.to_string());
                }
                k.name.to_string()
            })
            .collect();
        *p.stacks.entry(names).or_insert(0.0) += c;
    }
    p.total = tally.total;
    p.duration_s = match (tally.first_t, tally.last_t) {
        (Some(a), Some(b)) if b > a => Some((b - a) as f64 / 1e9),
        _ => None,
    };
    p.warnings = warnings;
    Ok(p)
}

/// The kernel map judged against the samples it named, and what it lacks.
fn map_warnings(st: &State<'_>, opts: &ParseOptions) -> Result<Vec<String>, ParseError> {
    let mut warnings = Vec::new();
    let origin = st.origin;
    if let Some(map) = &st.kernel {
        let given = st.map_origin.as_deref().unwrap_or("");
        let instead = opts.advice.is_own(st.map_origin.as_deref());
        let fix = kernel::fix(
            opts,
            st.release.as_deref(),
            st.kernel_id.as_deref(),
            instead,
        );
        let how = Judged {
            force: opts.force_map,
            origin: given,
            fix: &fix,
        };
        warnings.extend(judge(map, &st.fit, &st.doubts, &how, origin)?);
        if st.fit.kernel > 0.0 {
            warnings.extend(map.lacks_locals().map(|w| format!("{origin}: {w}")));
        }
    }
    Ok(warnings)
}

/// What the tally itself says: events perf lost, samples `--inclusive`
/// cannot climb (no callchain).
fn tally_warnings(tally: &Tally, opts: &ParseOptions, origin: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    let no_chain = tally.no_chain;
    if let Some(w) = lost_warning(tally) {
        warnings.push(format!("{origin}: {w}"));
    }
    if no_chain > 0 && opts.inclusive {
        warnings.push(format!(
            "{origin}: --inclusive: {} without a callchain (record with -g); \
             counted at their leaf only",
            crate::text::plural(no_chain, "sample")
        ));
    }
    if let Some(marker) = tally.first_bad_context {
        warnings.push(format!(
            "{origin}: {} with an invalid callchain context marker (the first \
             {marker:#x}): their callchains were dropped, as perf drops them, and they \
             count at their own address only",
            crate::text::plural(tally.bad_context, "sample")
        ));
    }
    warnings
}

/// What perf lost while recording, against the samples kept: records lost
/// to ring buffer overruns (`PERF_RECORD_LOST`) and samples it dropped
/// (`PERF_RECORD_LOST_SAMPLES`, perf report's "Total Lost Samples"),
/// with the share of the recording's samples that is missing.
fn lost_warning(tally: &Tally) -> Option<String> {
    let (records, samples) = (tally.lost, tally.lost_samples);
    if records == 0 && samples == 0 {
        return None;
    }
    let missing = records.max(samples);
    let share = 100.0 * missing as f64 / (missing + tally.samples).max(1) as f64;
    let mut what = Vec::new();
    if records > 0 {
        what.push(format!("{records} event(s) (PERF_RECORD_LOST)"));
    }
    if samples > 0 {
        what.push(format!("{samples} sample(s) (PERF_RECORD_LOST_SAMPLES)"));
    }
    let advice = if share >= 10.0 {
        "; the run's shares may be biased toward what was sampled when the buffer had \
         room: record it again with a larger buffer (-m) or a lower rate (-F, -c)"
    } else {
        ""
    };
    Some(format!(
        "perf lost {} while recording, against {} sample(s) kept: about {share:.0}% of the \
         recording's samples are missing{advice}",
        what.join(" and "),
        tally.samples
    ))
}

fn at_record(e: ParseError, record: u64) -> ParseError {
    match e {
        ParseError::Invalid { path, message } => ParseError::Invalid {
            path,
            message: format!("record {record}: {message}"),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_magic() {
        assert_eq!(sniff(b"PERFILE2\x68\0\0\0", false), Sniff::Yes);
        assert_eq!(sniff(b"2ELIFREP", true), Sniff::Yes);
        assert_eq!(sniff(b"PERF", false), Sniff::NeedMore);
        assert_eq!(sniff(b"PERF", true), Sniff::No);
        assert_eq!(sniff(b"# perf", false), Sniff::No);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut data = b"PERFILE2".to_vec();
        data.extend_from_slice(&[0xff; 200]);
        let e = parse(&mut &data[..], "x.data", &ParseOptions::default()).unwrap_err();
        assert!(e.to_string().starts_with("x.data: "), "{e}");
    }
}
