//! Counting one block of `perf script` text: per event, per symbol weights.
//!
//! Input: a block that starts at a line start and (except the final block)
//! ends just before a sample header, so that no sample spans two blocks.
//! Output: a [`BlockOut`] that owns everything it reports (the block's buffer
//! is reused), with symbols as encoded byte keys ([`encode_key`]) and line
//! numbers relative to the block.

mod suffix;

use suffix::Suffix;

use super::line::{self, Frame, LineKind};
use crate::format::ParseOptions;
use crate::profile::Mode;
use rustc_hash::FxHashMap;

/// What the block-level counter needs from the options, resolved once.
pub struct Ctx<'a> {
    pub opts: &'a ParseOptions,
    pub by_period: bool,
}

impl Ctx<'_> {
    /// Is `event` (as printed) the one `--event` asks for? `cycles` also
    /// selects `cycles:u`; the final choice is made when merging.
    fn wanted(&self, event: &[u8]) -> bool {
        match &self.opts.event {
            None => true,
            Some(w) => {
                let w = w.as_bytes();
                event == w || (event.starts_with(w) && event.get(w.len()) == Some(&b':'))
            }
        }
    }
}

#[derive(Debug, Default)]
pub struct EventOut {
    pub name: Vec<u8>,
    /// Whether `--event` selects this event (only those are counted).
    pub wanted: bool,
    pub samples: u64,
    /// Weight of all samples, before filters.
    pub total: u64,
    /// Weight of kept samples without a frame (counted as `[unknown]`).
    pub unattributed: u64,
    /// Kept samples without a frame (those the filters drop are not said).
    pub empty_chains: u64,
    /// Samples with a frame on their header line and no callchain (no `-g`).
    pub no_chain: u64,
    pub tmin: f64,
    pub tmax: f64,
    /// (index into `BlockOut::syms`, weight).
    pub counts: Vec<(u32, u64)>,
    /// With `ParseOptions::stacks`: callchains (root first, indices into
    /// `BlockOut::syms`) of the kept samples, with their weight.
    pub stacks: Vec<(Vec<u32>, u64)>,
    /// Kept samples' self weight by (symbol index or [`NO_SYMBOL`], index
    /// into `BlockOut::comms`), sorted.
    pub by_comm: Vec<(u32, u32, u64)>,
}

/// The symbol index of a kept sample without a frame (in `by_comm`).
pub const NO_SYMBOL: u32 = u32::MAX;

/// The first fatal problem of a block (line relative to the block).
#[derive(Debug)]
pub struct BlockError {
    pub line: u64,
    pub expected: &'static str,
    pub found: Vec<u8>,
}

#[derive(Debug, Default)]
pub struct BlockOut {
    /// Lines in the block (complete or not).
    pub lines: u64,
    pub syms: Vec<Vec<u8>>,
    /// The commands of the block's kept samples, as printed (trimmed).
    pub comms: Vec<Vec<u8>>,
    pub events: Vec<EventOut>,
    pub non_sample: u64,
    pub malformed: u64,
    pub first_malformed: Option<(u64, Vec<u8>)>,
    pub error: Option<BlockError>,
    /// The block ends inside a sample that has callchain frames / only a header.
    pub open_with_frames: bool,
    pub open_header_only: bool,
    pub saw_blank: bool,
    /// The final line had no line break and was left out.
    pub cut_line: bool,
    /// The first sample without an event field (line, text): an error
    /// when other samples have one.
    pub first_eventless: Option<(u64, Vec<u8>)>,
    /// Events perf lost, from `--show-lost-events`' `PERF_RECORD_LOST lost N`.
    pub lost: u64,
    /// Times, for outputs concatenated into one file: the first sample's
    /// (line, time), the latest time, and the first sample more than
    /// [`BACKWARDS`] seconds before the latest one above it (line, latest,
    /// its time).
    pub first_time: Option<(u64, f64)>,
    pub max_time: Option<f64>,
    pub time_back: Option<(u64, f64, f64)>,
    /// A sample was read; the first `# ========` header line after one in
    /// the block, and the first before any.
    pub any_sample: bool,
    pub header_after: Option<u64>,
    pub first_header: Option<u64>,
    /// Pairs of blank lines after a sample's closing blank line: in `-g -F
    /// ip,sym[,dso]` output (no header field) a sample with an empty
    /// callchain (its empty header, its closing blank line); counted as
    /// such only when the input is of that layout (see `Merged::finish`).
    pub blank_pairs: u64,
}

/// Seconds a sample's time may lie before the latest one above it: perf
/// script prints in time order (events of one round may come a little out
/// of it); a larger step back is another output's start.
pub const BACKWARDS: f64 = 1.0;

/// The events a `PERF_RECORD_LOST lost N` line (perf script
/// `--show-lost-events`) says perf lost; 0 for any other line.
fn lost_events(line: &[u8]) -> u64 {
    const MARK: &[u8] = b"PERF_RECORD_LOST lost ";
    let Some(at) = memchr::memmem::find(line, MARK) else {
        return 0;
    };
    let digits = &line[at + MARK.len()..];
    let end = digits
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    std::str::from_utf8(&digits[..end])
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0)
}

pub const EXPECT_HEADER: &str =
    "a perf script sample line `COMM PID [CPU] TIME: [PERIOD] EVENT: [IP SYM+OFF (DSO)]`";
pub const EXPECT_FRAME: &str = "a callchain frame line `<TAB>IP SYM+OFF (DSO)`";
pub const EXPECT_ORPHAN: &str =
    "a sample line `COMM PID [CPU] TIME: [PERIOD] EVENT:` before this callchain frame";
pub const EXPECT_FIELDS: &str = "nothing after a frame's `(DSO)` but the perf script fields \
     diffprofile skips (insn, insnlen, ipc, brstack, brstacksym, brstackoff, iregs, uregs, \
     srcline): re-run perf script without the field printed after the dso";
pub const EXPECT_EVENT: &str = "a perf script sample line with the event field, as the other \
     samples have: `COMM PID [CPU] TIME: [PERIOD] EVENT: [IP SYM+OFF (DSO)]`";
pub const EXPECT_SYMBOL: &str = "a frame with a symbol, `IP SYM (DSO)`: re-run perf script \
     with the sym field (-F ...,ip,sym,dso)";
pub const EXPECT_PERIOD: &str =
    "a period before the event name (`--weight period` needs perf script's `period` field)";

pub const EXPECT_PERIOD_SUM: &str = "a period that keeps the sum of the event's periods \
     within 2^64 (the periods so far and this one add up to more: are they periods?)";

/// Symbol identity as one byte string: mode, dso presence, name length, name, dso.
pub fn encode_key(f: &Frame<'_>) -> Vec<u8> {
    let mut k = Vec::with_capacity(6 + f.sym.len() + f.dso.map_or(0, <[u8]>::len));
    k.push(mode_code(f.mode()));
    k.push(u8::from(f.dso.is_some()));
    k.extend_from_slice(&(f.sym.len() as u32).to_le_bytes());
    k.extend_from_slice(f.sym);
    if let Some(d) = f.dso {
        k.extend_from_slice(d);
    }
    k
}

/// A symbol as (name, dso, mode).
pub type KeyParts<'a> = (&'a [u8], Option<&'a [u8]>, Mode);

/// Inverse of [`encode_key`].
pub fn decode_key(k: &[u8]) -> Option<KeyParts<'_>> {
    let mode = match *k.first()? {
        0 => Mode::Kernel,
        1 => Mode::User,
        2 => Mode::GuestKernel,
        3 => Mode::GuestUser,
        _ => Mode::Hypervisor,
    };
    let has_dso = *k.get(1)? == 1;
    let len = u32::from_le_bytes(k.get(2..6)?.try_into().ok()?) as usize;
    let name = k.get(6..6 + len)?;
    let dso = has_dso.then(|| &k[6 + len..]);
    Some((name, dso, mode))
}

fn mode_code(m: Mode) -> u8 {
    match m {
        Mode::Kernel => 0,
        Mode::User => 1,
        Mode::GuestKernel => 2,
        Mode::GuestUser => 3,
        Mode::Hypervisor => 4,
    }
}

const SKIP: usize = usize::MAX;

/// The sample being read.
struct Cur {
    ev: usize,
    weight: u64,
    comm_ok: bool,
    /// Index of the sample's command (into `Counter::comms`).
    comm: u32,
    frames: u32,
    /// Decided at the leaf: the sample passes every filter.
    kept: bool,
    /// A callchain line (`\t…`) was seen.
    chain: bool,
    /// The fields perf prints after a callchain were read: the sample is
    /// complete without a blank line.
    closed: bool,
}

/// Counting one block: the symbols met, the caches that skip parsing what
/// was seen before, what is counted, and the sample being read.
struct Counter<'d, 'c> {
    ctx: &'c Ctx<'c>,
    out: BlockOut,
    syms: Symbols<'d>,
    cache: Caches<'d>,
    /// counts[event][sym id]
    counts: Vec<Vec<u64>>,
    sample_no: u64,
    /// Earliest and latest timestamp per event, as printed.
    times: Vec<Option<(line::Stamp<'d>, line::Stamp<'d>)>>,
    last_ev: usize,
    cur: Option<Cur>,
    /// With `ParseOptions::stacks`: per event, callchain (root first) → weight.
    stacks: Vec<FxHashMap<Vec<u32>, u64>>,
    /// The current sample's chain so far, leaf first.
    chain_ids: Vec<u32>,
    /// The number of the line being read, in the block.
    line_no: u64,
    /// The text an error names instead of its whole line (the unknown
    /// field after a dso).
    found: Option<Vec<u8>>,
    /// Commands met (trimmed) and their indices; the last one looked up.
    comms: Vec<&'d [u8]>,
    comm_ids: FxHashMap<&'d [u8], u32>,
    last_comm: Option<(&'d [u8], u32)>,
    /// Per event: (symbol id << 32 | command index) → kept self weight.
    by_comm: Vec<FxHashMap<u64, u64>>,
    /// The latest timestamp of any event so far.
    t_hi: Option<line::Stamp<'d>>,
    /// The line before was a side-band line (`PERF_RECORD_*`) or one of
    /// its continuation lines.
    side_band: bool,
}

/// The block's symbols, by id, with what is known of each.
#[derive(Default)]
struct Symbols<'d> {
    ids: FxHashMap<Frame<'d>, u32>,
    frames: Vec<Frame<'d>>,
    /// Last sample number that counted a symbol (inclusive dedup).
    stamp: Vec<u64>,
    /// 0 unknown, 1 matches `--dso`, 2 does not.
    dso_ok: Vec<u8>,
    /// Mode of each symbol id.
    modes: Vec<Mode>,
}

impl<'d> Symbols<'d> {
    fn intern(&mut self, f: Frame<'d>) -> u32 {
        let next = self.frames.len() as u32;
        let id = *self.ids.entry(f).or_insert(next);
        if id == next {
            self.frames.push(f);
            self.stamp.push(0);
            self.dso_ok.push(0);
            self.modes.push(f.mode());
        }
        id
    }
}

/// What was parsed before, by the text it was parsed from.
#[derive(Default)]
struct Caches<'d> {
    /// Frame text as printed (ip, symbol with offset, dso) → symbol id: most
    /// samples repeat an address seen before, and one lookup of the raw text
    /// replaces splitting it and interning the parts. The keys are copies:
    /// compact and cache-warm, where the text in the block is far behind.
    tails: FxHashMap<Box<[u8]>, u32>,
    /// Header text after the timestamp's colon → what it parses to: most
    /// samples repeat a period, event and address seen before, and one
    /// lookup replaces the header's forward half, the event lookup and the
    /// frame's (see [`Counter::cached_header`]).
    suffixes: hashbrown::HashTable<Suffix>,
    /// Lookups in `suffixes` and hits (it is dropped when it does not pay).
    suffix_tries: u64,
    suffix_hits: u64,
    /// `--comm`: whether a command matches.
    comm_ok: FxHashMap<&'d [u8], bool>,
}

impl std::hash::Hash for Frame<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write(self.sym);
        if let Some(d) = self.dso {
            state.write(d);
        }
        state.write_u8(u8::from(self.kernel_ip));
    }
}

/// Whether the next line (starting with `first`) is a callchain frame, and
/// whether it is blank.
fn next_kind(first: Option<&u8>) -> (bool, bool) {
    (first == Some(&b'\t'), matches!(first, Some(b'\n' | b'\r')))
}

/// Count one block.
pub fn count_block(data: &[u8], last: bool, ctx: &Ctx<'_>) -> BlockOut {
    let mut c = Counter::new(ctx);
    let mut body = data;
    if last && !data.ends_with(b"\n") {
        // A final line without a line break was cut: leave it out.
        let start = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
        body = &data[..start];
        c.out.cut_line = true;
        c.out.lines = 1;
    }
    let mut pos = 0;
    let mut n = 0u64;
    let mut fast_misses = 0;
    // Blank lines just before the current one; a block starts after a
    // sample's closing blank line (see `sample_boundary`).
    let mut blanks = 1u32;
    while pos < body.len() {
        if body[pos] == b'\t' && fast_misses < 8 && c.chain_done() {
            // The rest of this chain is not counted: hop to its blank line.
            match super::chain::skip_chain(&body[pos..]) {
                Some((len, lines)) => {
                    pos += len;
                    n += lines;
                    c.skipped_frames(lines);
                    continue;
                }
                None => fast_misses += 1,
            }
        }
        if !matches!(body[pos], b'\t' | b'\n' | b'\r') {
            c.line_no = n + 1;
            if let Some(len) = c.cached_header(&body[pos..]) {
                pos += len + 1;
                n += 1;
                blanks = 0;
                continue;
            }
        }
        let end = memchr::memchr(b'\n', &body[pos..]).map_or(body.len(), |i| pos + i);
        let line = &body[pos..end];
        pos = end + 1;
        n += 1;
        let (next_is_frame, next_is_blank) = next_kind(body.get(pos));
        c.line_no = n;
        let side_band = std::mem::take(&mut c.side_band);
        let ok = match line.first() {
            Some(b'\t') if side_band && c.side_band_continues(line) => Ok(()),
            Some(b'\t') => c.frame_line(line, blanks >= 2),
            None | Some(b'\r') if line.len() <= 1 => {
                blanks += 1;
                c.blank_line(blanks);
                continue;
            }
            _ => c.other_line(line, next_is_frame, next_is_blank),
        };
        blanks = 0;
        if let Err(expected) = ok {
            let found = c.found.take();
            if c.ctx.opts.lenient {
                c.out.malformed += 1;
                c.out
                    .first_malformed
                    .get_or_insert_with(|| (n, line.to_vec()));
            } else {
                c.out.error = Some(BlockError {
                    line: n,
                    expected,
                    found: found.unwrap_or_else(|| line.to_vec()),
                });
                c.out.lines += n;
                return c.finish();
            }
        }
    }
    c.out.lines += n;
    if let Some(cur) = &c.cur {
        c.out.open_with_frames = cur.chain && !cur.closed;
        c.out.open_header_only = !cur.chain;
    }
    c.end_sample();
    c.finish()
}

impl<'d, 'c> Counter<'d, 'c> {
    /// A counter for one block, nothing counted yet.
    fn new(ctx: &'c Ctx<'c>) -> Self {
        Counter {
            ctx,
            out: BlockOut::default(),
            syms: Symbols::default(),
            cache: Caches::default(),
            counts: Vec::new(),
            sample_no: 0,
            times: Vec::new(),
            last_ev: SKIP,
            cur: None,
            stacks: Vec::new(),
            chain_ids: Vec::new(),
            line_no: 0,
            found: None,
            comms: Vec::new(),
            comm_ids: FxHashMap::default(),
            last_comm: None,
            by_comm: Vec::new(),
            t_hi: None,
            side_band: false,
        }
    }
}

impl<'d> Counter<'d, '_> {
    /// The current sample needs no more frames parsed (self cost counted,
    /// filtered out, or another event).
    fn chain_done(&self) -> bool {
        match &self.cur {
            Some(cur) => cur.ev == SKIP || (cur.frames > 0 && !(cur.kept && self.whole_chain())),
            None => false,
        }
    }

    /// Every frame of a kept sample is needed: `--inclusive`, or stacks for
    /// a flame graph.
    fn whole_chain(&self) -> bool {
        self.ctx.opts.inclusive || self.ctx.opts.stacks
    }

    fn skipped_frames(&mut self, lines: u64) {
        if let Some(cur) = &mut self.cur {
            cur.frames = cur.frames.saturating_add(lines as u32);
            cur.chain = true;
        }
    }

    fn finish(mut self) -> BlockOut {
        let mut syms: Vec<Vec<u8>> = Vec::with_capacity(self.syms.frames.len());
        for f in &self.syms.frames {
            syms.push(encode_key(f));
        }
        self.out.syms = syms;
        self.out.comms = self.comms.iter().map(|c| c.to_vec()).collect();
        for (ev, by) in self.out.events.iter_mut().zip(self.by_comm) {
            let mut list: Vec<(u32, u32, u64)> = by
                .into_iter()
                .map(|(k, w)| ((k >> 32) as u32, k as u32, w))
                .collect();
            list.sort_unstable();
            ev.by_comm = list;
        }
        self.out.max_time = self.t_hi.and_then(|t| line::parse_time(t.text));
        for (ev, span) in self.out.events.iter_mut().zip(&self.times) {
            if let Some((lo, hi)) = span {
                ev.tmin = line::parse_time(lo.text).unwrap_or(f64::INFINITY);
                ev.tmax = line::parse_time(hi.text).unwrap_or(f64::NEG_INFINITY);
            }
        }
        for (ev, stacks) in self.out.events.iter_mut().zip(self.stacks) {
            let mut list: Vec<(Vec<u32>, u64)> = stacks.into_iter().collect();
            list.sort_unstable();
            ev.stacks = list;
        }
        for (ev, counts) in self.out.events.iter_mut().zip(self.counts) {
            ev.counts = counts
                .into_iter()
                .enumerate()
                .filter(|&(_, w)| w > 0)
                .map(|(i, w)| (i as u32, w))
                .collect();
        }
        self.out
    }

    /// The block's first and latest times, and its first step back by
    /// more than [`BACKWARDS`] (parsed only when a time is not the latest).
    fn track_time(&mut self, t: line::Stamp<'d>) {
        match self.t_hi {
            None => {
                self.t_hi = Some(t);
                self.out.first_time = line::parse_time(t.text).map(|v| (self.line_no, v));
            }
            Some(hi) if hi.before(&t) => self.t_hi = Some(t),
            Some(hi) if self.out.time_back.is_none() => {
                let (h, v) = (line::parse_time(hi.text), line::parse_time(t.text));
                if let (Some(h), Some(v)) = (h, v) {
                    if h - v > BACKWARDS {
                        self.out.time_back = Some((self.line_no, h, v));
                    }
                }
            }
            Some(_) => {}
        }
    }

    fn event_index(&mut self, name: &[u8]) -> usize {
        if let Some(e) = self.out.events.get(self.last_ev) {
            if e.name == name {
                return self.last_ev;
            }
        }
        let i = match self.out.events.iter().position(|e| e.name == name) {
            Some(i) => i,
            None => {
                self.out.events.push(EventOut {
                    name: name.to_vec(),
                    wanted: self.ctx.wanted(name),
                    tmin: f64::INFINITY,
                    tmax: f64::NEG_INFINITY,
                    ..EventOut::default()
                });
                self.counts.push(Vec::new());
                self.by_comm.push(FxHashMap::default());
                self.times.push(None);
                self.out.events.len() - 1
            }
        };
        self.last_ev = i;
        i
    }

    fn end_sample(&mut self) {
        if let Some(cur) = &self.cur {
            if !self.chain_ids.is_empty() && cur.kept && cur.ev != SKIP {
                if self.stacks.len() <= cur.ev {
                    self.stacks.resize_with(cur.ev + 1, FxHashMap::default);
                }
                let mut root_first = std::mem::take(&mut self.chain_ids);
                root_first.reverse();
                *self.stacks[cur.ev].entry(root_first).or_insert(0) += cur.weight;
            }
        }
        self.chain_ids.clear();
        if let Some(cur) = self.cur.take() {
            if cur.frames > 0 && !cur.chain && cur.ev != SKIP {
                self.out.events[cur.ev].no_chain += 1;
            }
            if cur.frames == 0 && cur.ev != SKIP {
                let opts = self.ctx.opts;
                let ev = &mut self.out.events[cur.ev];
                // Counted as `[unknown]` in dso `[unknown]` (see `finish`),
                // and warned about, when the sample filters keep it.
                let dso_ok = opts.dso.as_ref().is_none_or(|re| re.is_match("[unknown]"));
                if cur.comm_ok && !opts.kernel_only && dso_ok {
                    ev.empty_chains += 1;
                    ev.unattributed += cur.weight;
                    let key = (u64::from(NO_SYMBOL) << 32) | u64::from(cur.comm);
                    *self.by_comm[cur.ev].entry(key).or_insert(0) += cur.weight;
                }
            }
        }
    }

    fn other_line(
        &mut self,
        line: &'d [u8],
        next_is_frame: bool,
        next_is_blank: bool,
    ) -> Result<(), &'static str> {
        let h = match line::classify(line) {
            LineKind::Sample(h) => h,
            LineKind::NonSample => {
                self.end_sample();
                if line.starts_with(b"# ========") {
                    let at = Some(self.line_no);
                    if self.out.any_sample {
                        self.out.header_after = self.out.header_after.or(at);
                    } else {
                        self.out.first_header = self.out.first_header.or(at);
                    }
                }
                self.out.non_sample += 1;
                self.side_band = true;
                self.out.lost = self.out.lost.saturating_add(lost_events(line));
                return Ok(());
            }
            // Fields printed on lines of their own (`srcline`, and the
            // fields after a callchain): part of the sample being read.
            LineKind::Malformed if self.cur.is_some() && line::is_continuation(line) => {
                if let Some(cur) = &mut self.cur {
                    // ` ilen: 4` after the frames, not a `srcline` line.
                    cur.closed |= cur.chain && !line.starts_with(b"  ");
                }
                return Ok(());
            }
            // A header without time or event (`-g -F comm,tid,ip,sym`);
            // closed at once (with its trailing space) by a blank line:
            // a sample with an empty callchain.
            LineKind::Malformed if next_is_frame => line::header_before_chain(line),
            LineKind::Malformed if next_is_blank && line.ends_with(b" ") => {
                line::header_before_chain(line)
            }
            LineKind::Malformed => {
                self.end_sample();
                return Err(EXPECT_HEADER);
            }
        };
        self.end_sample();
        if h.event.is_empty() {
            self.eventless(line);
        }
        let ev = self.event_index(h.event);
        let wanted = self.out.events[ev].wanted;
        if wanted && self.ctx.by_period && h.period.is_none() {
            self.out.events[ev].samples += 1;
            return Err(EXPECT_PERIOD);
        }
        // Periods are summed in 64 bits: a sum past that would wrap.
        if wanted
            && self.ctx.by_period
            && self.out.events[ev]
                .total
                .checked_add(h.period.unwrap_or(0))
                .is_none()
        {
            return Err(EXPECT_PERIOD_SUM);
        }
        let frame = if wanted { self.frame_id(h.rest)? } else { None };
        if let Some(c) = h.colon {
            self.cache_suffix(&line[c + 1..], h.period, ev, frame);
        }
        self.start_sample(h.comm, h.time, h.period, ev, frame);
        Ok(())
    }

    /// A sample header: event `ev`, its frame's symbol (if any). The period
    /// is there when `--weight period` counts the event; `comm` may still
    /// have its padding.
    fn start_sample(
        &mut self,
        comm: &'d [u8],
        time: Option<&'d [u8]>,
        period: Option<u64>,
        ev: usize,
        frame: Option<u32>,
    ) {
        self.out.any_sample = true;
        if let Some(t) = time {
            self.track_time(line::Stamp::new(t));
        }
        let e = &mut self.out.events[ev];
        e.samples += 1;
        if !e.wanted {
            self.cur = Some(Cur {
                ev: SKIP,
                weight: 0,
                comm_ok: false,
                comm: 0,
                frames: 0,
                kept: false,
                chain: false,
                closed: false,
            });
            return;
        }
        let weight = if self.ctx.by_period {
            period.unwrap_or(0)
        } else {
            1
        };
        e.total += weight;
        if let Some(t) = time {
            let t = line::Stamp::new(t);
            let span = &mut self.times[ev];
            match span {
                None => *span = Some((t, t)),
                // perf script prints in time order: test the end first.
                Some((lo, hi)) => {
                    if hi.before(&t) {
                        *hi = t;
                    } else if t.before(lo) {
                        *lo = t;
                    }
                }
            }
        }
        let comm_ok = match &self.ctx.opts.comm {
            None => true,
            Some(re) => {
                let comm = line::trim(comm);
                *self
                    .cache
                    .comm_ok
                    .entry(comm)
                    .or_insert_with(|| re.is_match(&crate::format::decode(comm)))
            }
        };
        let comm = self.comm_index(comm);
        self.sample_no += 1;
        self.cur = Some(Cur {
            ev,
            weight,
            comm_ok,
            comm,
            frames: 0,
            kept: false,
            chain: false,
            closed: false,
        });
        if let Some(id) = frame {
            self.count_frame(id);
        }
    }

    /// A blank line, the `blanks`th in a row: the end of a sample; every
    /// second one after the first, in `-g -F ip,sym` output, a sample of
    /// its own with an empty callchain (see [`BlockOut::blank_pairs`]).
    fn blank_line(&mut self, blanks: u32) {
        self.end_sample();
        self.out.saw_blank = true;
        if blanks >= 3 && blanks % 2 == 1 {
            self.out.blank_pairs += 1;
        }
    }

    /// Is this tab-indented line, after a side-band line, its continuation
    /// (`--show-namespace-events` prints one on `\t\t` lines)? Counted
    /// with the side-band lines when it is.
    fn side_band_continues(&mut self, line: &[u8]) -> bool {
        let more =
            self.cur.is_none() && (line.starts_with(b"\t\t") || !line::looks_like_frame(line));
        if more {
            self.out.non_sample += 1;
            self.side_band = true;
        }
        more
    }

    /// A callchain line; `after_blanks`: it follows two blank lines (or a
    /// blank line at the start of the input), which is how `-g -F ip,sym`
    /// (no header field) prints the start of a sample.
    fn frame_line(&mut self, line: &'d [u8], after_blanks: bool) -> Result<(), &'static str> {
        if self.cur.is_none() && after_blanks {
            self.eventless(line);
            let ev = self.event_index(b"");
            if self.ctx.by_period && self.out.events[ev].wanted {
                self.out.events[ev].samples += 1;
                return Err(EXPECT_PERIOD);
            }
            self.start_sample(b"", None, None, ev, None);
        }
        let whole = self.whole_chain();
        let Some(cur) = &mut self.cur else {
            return Err(EXPECT_ORPHAN);
        };
        cur.chain = true;
        if cur.ev == SKIP || (cur.frames > 0 && !(cur.kept && whole)) {
            cur.frames += 1;
            return if line::looks_like_frame(line) {
                Ok(())
            } else {
                Err(EXPECT_FRAME)
            };
        }
        match self.frame_id(line) {
            Ok(Some(id)) => {
                self.count_frame(id);
                Ok(())
            }
            bad => {
                // Under --lenient the sample keeps its place in the total
                // but loses its attribution.
                if let Some(cur) = &mut self.cur {
                    cur.frames += 1;
                }
                Err(bad.err().unwrap_or(EXPECT_FRAME))
            }
        }
    }

    /// The index of a sample's command (padding trimmed): most samples
    /// repeat the previous sample's.
    fn comm_index(&mut self, comm: &'d [u8]) -> u32 {
        let comm = line::trim(comm);
        if let Some((last, id)) = self.last_comm {
            if last == comm {
                return id;
            }
        }
        let next = self.comms.len() as u32;
        let id = *self.comm_ids.entry(comm).or_insert(next);
        if id == next {
            self.comms.push(comm);
        }
        self.last_comm = Some((comm, id));
        id
    }

    fn eventless(&mut self, line: &[u8]) {
        if self.out.first_eventless.is_none() {
            self.out.first_eventless = Some((self.line_no, line.to_vec()));
        }
    }

    /// The symbol id of a frame's text, `None` when it is not a frame; an
    /// error when unknown fields follow its dso.
    fn frame_id(&mut self, text: &'d [u8]) -> Result<Option<u32>, &'static str> {
        if let Some(&id) = self.cache.tails.get(text) {
            return Ok(Some(id));
        }
        let f = match line::parse_frame(text) {
            line::Parsed::Frame(f) => f,
            line::Parsed::NotFrame => return Ok(None),
            line::Parsed::Trailing(extra) => {
                self.found = Some(extra.to_vec());
                return Err(EXPECT_FIELDS);
            }
            line::Parsed::NoSymbol => return Err(EXPECT_SYMBOL),
        };
        let id = self.syms.intern(f);
        self.cache.tails.insert(text.into(), id);
        Ok(Some(id))
    }

    fn count_frame(&mut self, id: u32) {
        let Some(cur) = &mut self.cur else { return };
        let leaf = cur.frames == 0;
        cur.frames += 1;
        if leaf {
            let opts = self.ctx.opts;
            let mode = self.syms.modes[id as usize];
            let mut kept = cur.comm_ok && (!opts.kernel_only || mode == Mode::Kernel);
            if kept {
                if let Some(re) = &opts.dso {
                    let state = &mut self.syms.dso_ok[id as usize];
                    if *state == 0 {
                        let dso = self.syms.frames[id as usize].dso.unwrap_or_default();
                        *state = if crate::format::dso_matches(re, &crate::format::decode(dso)) {
                            1
                        } else {
                            2
                        };
                    }
                    kept = *state == 1;
                }
            }
            cur.kept = kept;
            if kept {
                let key = (u64::from(id) << 32) | u64::from(cur.comm);
                *self.by_comm[cur.ev].entry(key).or_insert(0) += cur.weight;
            }
        }
        if cur.kept && self.ctx.opts.stacks {
            self.chain_ids.push(id);
        }
        // Self cost: the leaf only (other frames are parsed for stacks).
        if !leaf && !self.ctx.opts.inclusive {
            return;
        }
        if !cur.kept || self.syms.stamp[id as usize] == self.sample_no {
            return;
        }
        self.syms.stamp[id as usize] = self.sample_no;
        let counts = &mut self.counts[cur.ev];
        if counts.len() <= id as usize {
            counts.resize(self.syms.frames.len(), 0);
        }
        counts[id as usize] += cur.weight;
    }
}
