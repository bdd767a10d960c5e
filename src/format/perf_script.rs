//! `perf script` text: the per-sample dump of a `perf record` file.
//!
//! Input: the default output of `perf script` (perf 6.1 checked), with or
//! without callchains, and its `-F` variants. Output: a [`Profile`] of one
//! event, per-symbol self cost (the leaf frame of each sample) or, with
//! `--inclusive`, the cost of every distinct symbol of each chain, weighted
//! by sample count or period; `total` counts every sample of the event
//! before the `--comm`/`--dso`/`--kernel-only` filters. An unresolved frame
//! (`[unknown] (DSO)`) counts as `[unknown]` in its dso, a sample with an
//! empty callchain as `[unknown]` in dso `[unknown]`, as in every perf
//! reader ([`super::unresolved`]); a warning counts them per dso.
//!
//! The input is read in blocks parsed in parallel ([`blocks`]); see
//! [`tally`] for the per-block counting and [`line`] for the line grammar.
//! Speed: headers and counted frames are split without allocating; frames
//! that are not counted (after the leaf in self mode, other events, filtered
//! samples) are hopped over to the closing blank line and only checked for
//! their shape (a tab, then spaces or a hex address) in one vectorised pass;
//! a line failing that check is then parsed and reported with its number.
//!
//! Without callchains, one sample per line (comm right-aligned in 16 columns):
//! ```text
//!             perf  7498   255.361927:     500250 cpu-clock:      7f0fcf7ccf38 intel_check_word.constprop.0+0x158 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
//!             perf  7498   255.362425:     500250 cpu-clock:  ffffffff821e5ae3 xas_load+0x53 ([kernel.kallsyms])
//! ```
//! With `-g`: a header (note the trailing space), frames leaf first, a blank line:
//! ```text
//! perf  6648   249.307147:     500250 cpu-clock:
//! 	           14f38 intel_check_word.constprop.0+0x158 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
//! 	      1040000000 [unknown] ([unknown])
//!
//! ```
//! System-wide (`-a`): a cpu column; several events are padded to one width;
//! command names may hold spaces; exiting tasks show as `:-1  -1`:
//! ```text
//! my prog  9984 [001]   267.219280:    1001001  cpu-clock:
//! my prog  9984 [001]   267.219367:    1001001 task-clock:
//! :-1    -1 [000]   267.531490:    1001001  cpu-clock:
//! 	ffffffff822012ae _raw_write_unlock_irq+0xe ([kernel.kallsyms])
//! 	ffffffff8135dc2e do_exit+0x62e ([kernel.kallsyms])
//! ```
//! `-F comm,pid,tid,cpu,time,period,event,ip,sym,dso` (no `+0x` offsets),
//! `-F comm,tid,cpu,time,event,ip,sym,dso,symoff` (no period),
//! `-F comm,pid,event,ip,sym` (no time, no dso):
//! ```text
//! pip  6662/6662  [000]   267.218168:    1001001  cpu-clock:
//! 	          1350f1 tok_nextc (/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0)
//! pip  6662 [000]   267.218168:  cpu-clock:
//! perf  6648 cpu-clock:
//! 	           14f38 intel_check_word.constprop.0
//! ```
//! Extra fields after the dso (`-F …,insnlen`, `insn`, `ipc`, `brstack`,
//! `iregs`) are dropped, on the sample's line or, with callchains, on a line
//! of their own after the frames (instead of the blank line); `srcline`
//! lines follow each frame; `misc` puts a letter before the time; a dso may
//! hold parentheses; other text after a dso is refused, naming it:
//! ```text
//!             perf  8971   433.248729: cpu-clock:      7f582bf093aa _dl_relocate_object (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) ilen: 2
//! 	            90c0 do_lookup_x (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
//!  insn: 89 c2
//!   dl-load.c:1379
//!             perf  8971 U       433.248729: cpu-clock:      7f582bf093aa _dl_relocate_object (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
//!              jit 16171   668.618979:    2004008 cpu-clock:      7f135fd7d007 [unknown] (/memfd:doublemapper (deleted))
//! ```
//! Layouts without time and event (`-F comm,tid,ip,sym,dso`, `ip,sym,dso`,
//! `comm,ip,sym`, `ip,sym`; with `-g` the header is `perf  9145 `, `perf `
//! or an empty line):
//! ```text
//!             perf  8971  ffffffff816aae4a mod_memcg_lruvec_state ([kernel.kallsyms])
//!  ffffffff816aae4a mod_memcg_lruvec_state
//! ```
//! A JIT's `/tmp/perf-PID.map` is one dso, [`jit_map_dso`], whatever the pid.
//! An empty callchain (`--max-stack=0`, or nothing unwound): header, blank
//! line (a header without time or event keeps its trailing space; under
//! `-F ip,sym`, whose header is an empty line, two blank lines); under
//! `-F …,time,period,ip,…` the header ends with the period.
//! Side-band events (`--show-task-events`, `--show-mmap-events`…) are skipped
//! and counted, with their tab-indented continuation lines
//! (`--show-namespace-events`):
//! ```text
//!          swapper     0     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1209988) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
//!             perf  7498   255.361423: PERF_RECORD_COMM exec: perf:7498/7498
//! ```
//! Frames of other producers (from inferno's perf collapser): modules,
//! vmlinux files, init sections, frames without a symbol:
//! ```text
//!     7d8 ipv4_conntrack_local+0x7f8f80b8 ([nf_conntrack_ipv4])
//!     8c3453 tcp_sendmsg (/lib/modules/4.3.0-rc1-virtual/build/vmlinux)
//!     ffffffff81aebbfe start_kernel ([kernel.kallsyms].init.text)
//!     7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)
//! ```

// The example lines above are verbatim, callchain tabs included.
#![allow(clippy::tabs_in_doc_comments)]

use super::unresolved::{self, UNKNOWN};
use super::{ParseError, ParseOptions, Sniff, WeightBy};
use crate::profile::{Comms, Format, Mode, Name, Profile, SymbolKey, Weight};
use rustc_hash::FxHashMap;
use std::io::BufRead;

pub(crate) mod blocks;
mod chain;
mod line;
mod pipeline;
mod tally;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_variants;

use tally::{BlockOut, Ctx};

/// The dso name every reader gives to a JIT's code named by its
/// `/tmp/perf-PID.map`: perf names it by the process (`/tmp/perf-16171.map`
/// in perf script and perf.data, `[JIT] tid 16171` in perf report), which
/// differs from run to run of one program; one name lets the runs compare.
pub fn jit_map_dso(dso: &str) -> Option<&'static str> {
    let pid = match dso.strip_prefix("[JIT] tid ") {
        Some(pid) => pid,
        None => {
            let base = dso.rsplit('/').next().unwrap_or(dso);
            base.strip_prefix("perf-")
                .and_then(|b| b.strip_suffix(".map"))
                .unwrap_or("")
        }
    };
    // (The name given is itself one.)
    let jit = pid == "PID" || (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
    jit.then(|| std::str::from_utf8(line::JIT_MAP).unwrap_or("/tmp/perf-PID.map"))
}

/// Is this prefix `perf script` output? Comment lines (`perf script
/// --header`) are skipped; the first other line must be a sample header (with
/// a pid and a timestamp, or followed by a frame) or a `PERF_RECORD_*` line.
pub fn sniff(head: &[u8], eof: bool) -> Sniff {
    let starts_blank = head.first() == Some(&b'\n');
    let mut lines = super::head_lines(head, eof).filter(|l| {
        let t = l.trim_ascii();
        !t.is_empty() && !t.starts_with(b"#")
    });
    let Some(first) = lines.next() else {
        return if eof { Sniff::No } else { Sniff::NeedMore };
    };
    if first.starts_with(b"\t") {
        // `-g -F ip,sym[,dso]`: each sample is an empty line, then its frames.
        return if starts_blank && line::frame_like(first) {
            Sniff::Yes
        } else {
            Sniff::No
        };
    }
    match line::classify(first) {
        line::LineKind::NonSample => Sniff::Yes,
        // `-g -F comm,tid,ip,sym`: a header without time or event, then frames.
        line::LineKind::Malformed => match lines.next() {
            Some(next) if next.starts_with(b"\t") && line::frame_like(next) => Sniff::Yes,
            None if !eof => Sniff::NeedMore,
            _ => Sniff::No,
        },
        line::LineKind::Sample(h) => {
            if h.time.is_some() {
                return Sniff::Yes;
            }
            if h.event.is_empty() && folded_like(first) {
                return Sniff::No;
            }
            match lines.next() {
                Some(next) if next.starts_with(b"\t") && line::frame(next).is_some() => Sniff::Yes,
                Some(next) if line::header(next).is_some() => Sniff::Yes,
                Some(_) => Sniff::No,
                None if eof => Sniff::Yes,
                None => Sniff::NeedMore,
            }
        }
    }
}

/// A folded-stacks line, `FRAME;FRAME COUNT` with a decimal count: read
/// as perf script's `COMM IP` (no time, no event) when the count has the
/// 16 digits of an address (`p;f0 4503599627370496`). perf script's
/// comms rarely hold `;`, and a sample without a symbol is not read anyway.
fn folded_like(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    let Some(sp) = memchr::memrchr(b' ', line) else {
        return false;
    };
    let count = &line[sp + 1..];
    line[..sp].contains(&b';') && !count.is_empty() && count.iter().all(u8::is_ascii_digit)
}

/// Parse `perf script` text (see the module documentation).
pub fn parse(
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    parse_with_block_size(input, origin, opts, blocks::BLOCK_SIZE)
}

/// A block may end just before any line that is neither a callchain frame
/// (`\t…`) nor the blank line closing a sample, i.e. before a sample header.
/// Lines of fields that belong to the sample before them (`srcline`, the
/// fields after a callchain) are no boundary; in `-g -F ip,sym` output,
/// where a sample starts with an empty line, the empty line after a
/// sample's blank line is.
fn sample_boundary(buf: &[u8]) -> usize {
    let mut end = buf.len();
    while let Some(i) = memchr::memrchr(b'\n', &buf[..end]) {
        let start = i + 1;
        // Only whole lines are judged.
        if let Some(len) = memchr::memchr(b'\n', &buf[start..]) {
            let next = buf[start];
            if next != b'\t' && next != b'\n' && next != b'\r' {
                let line = &buf[start..start + len];
                if next != b' ' || line::header(line).is_some() || !line::is_continuation(line) {
                    return start;
                }
            } else if next == b'\n'
                && i > 0
                && buf[i - 1] == b'\n'
                && buf.get(start + 1) == Some(&b'\t')
            {
                return start;
            }
        }
        end = i;
    }
    0
}

/// Parse a plain regular file, mapped into memory instead of read (the same
/// result as [`parse`] on its bytes, without the copy).
pub fn parse_file(
    file: &std::fs::File,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    parse_source(
        blocks::Source::File(file),
        origin,
        opts,
        blocks::MAPPED_BLOCK_SIZE,
    )
}

pub(crate) fn parse_with_block_size(
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
    block_size: usize,
) -> Result<Profile, ParseError> {
    parse_source(blocks::Source::Stream(input), origin, opts, block_size)
}

fn parse_source(
    source: blocks::Source<'_>,
    origin: &str,
    opts: &ParseOptions,
    block_size: usize,
) -> Result<Profile, ParseError> {
    let ctx = Ctx {
        opts,
        by_period: opts.weight == WeightBy::Period,
    };
    let mut merged = Merged::default();
    blocks::run(
        source,
        origin,
        block_size,
        sample_boundary,
        |b| tally::count_block(b.data, b.last, &ctx),
        |out| merged.add(out, origin),
    )?;
    merged.finish(origin, opts)
}

/// Per-event totals over all blocks.
#[derive(Default)]
struct EventAcc {
    name: Vec<u8>,
    wanted: bool,
    samples: u64,
    total: u64,
    unattributed: u64,
    empty_chains: u64,
    no_chain: u64,
    tmin: f64,
    tmax: f64,
    counts: FxHashMap<u32, u64>,
    /// Callchains (root first, global symbol ids) → weight, with `ParseOptions::stacks`.
    stacks: FxHashMap<Vec<u32>, u64>,
    /// (global symbol id or [`tally::NO_SYMBOL`], global command id) → kept self weight.
    by_comm: FxHashMap<(u32, u32), u64>,
}

#[derive(Default)]
struct Merged {
    events: Vec<EventAcc>,
    ids: FxHashMap<Vec<u8>, u32>,
    keys: Vec<Vec<u8>>,
    comm_ids: FxHashMap<Vec<u8>, u32>,
    comms: Vec<Vec<u8>>,
    lines: u64,
    non_sample: u64,
    malformed: u64,
    first_malformed: Option<(u64, Vec<u8>)>,
    error: Option<ParseError>,
    saw_blank: bool,
    open_with_frames: bool,
    open_header_only: bool,
    cut_line: bool,
    first_eventless: Option<(u64, Vec<u8>)>,
    lost: u64,
    /// Outputs concatenated: the latest time so far, whether a sample was
    /// read, the first step back in time (line, latest, its time) and the
    /// first header block after a sample (line).
    max_time: Option<f64>,
    any_sample: bool,
    time_back: Option<(u64, f64, f64)>,
    header_again: Option<u64>,
    blank_pairs: u64,
}

impl Merged {
    /// Fold one block in (blocks arrive in input order); false stops reading.
    fn add(&mut self, b: BlockOut, origin: &str) -> bool {
        if let Some(e) = b.error {
            self.error = Some(ParseError::malformed(
                origin,
                self.lines + e.line,
                e.expected,
                &e.found,
            ));
            return false;
        }
        self.concatenated(&b);
        if let (None, Some((l, text))) = (&self.first_malformed, b.first_malformed) {
            self.first_malformed = Some((self.lines + l, text));
        }
        if let (None, Some((l, text))) = (&self.first_eventless, b.first_eventless) {
            self.first_eventless = Some((self.lines + l, text));
        }
        self.lines += b.lines;
        self.non_sample += b.non_sample;
        self.lost = self.lost.saturating_add(b.lost);
        self.blank_pairs += b.blank_pairs;
        self.malformed += b.malformed;
        self.saw_blank |= b.saw_blank;
        self.open_with_frames = b.open_with_frames;
        self.open_header_only = b.open_header_only;
        self.cut_line |= b.cut_line;
        let mut global = Vec::with_capacity(b.syms.len());
        for key in b.syms {
            let id = match self.ids.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.keys.len() as u32;
                    self.ids.insert(key.clone(), id);
                    self.keys.push(key);
                    id
                }
            };
            global.push(id);
        }
        let mut comm_global = Vec::with_capacity(b.comms.len());
        for c in b.comms {
            comm_global.push(comm_id(&mut self.comm_ids, &mut self.comms, &c));
        }
        for ev in b.events {
            let i = match self.events.iter().position(|e| e.name == ev.name) {
                Some(i) => i,
                None => {
                    self.events.push(EventAcc {
                        name: ev.name,
                        wanted: ev.wanted,
                        tmin: f64::INFINITY,
                        tmax: f64::NEG_INFINITY,
                        ..EventAcc::default()
                    });
                    self.events.len() - 1
                }
            };
            let acc = &mut self.events[i];
            acc.samples += ev.samples;
            let Some(total) = acc.total.checked_add(ev.total) else {
                let lines = (self.lines - b.lines + 1, self.lines);
                self.error = Some(sum_past_u64(origin, lines, &acc.name));
                return false;
            };
            acc.total = total;
            acc.unattributed += ev.unattributed;
            acc.empty_chains += ev.empty_chains;
            acc.no_chain += ev.no_chain;
            acc.tmin = acc.tmin.min(ev.tmin);
            acc.tmax = acc.tmax.max(ev.tmax);
            for (sym, w) in ev.counts {
                *acc.counts.entry(global[sym as usize]).or_insert(0) += w;
            }
            for (chain, w) in ev.stacks {
                let chain: Vec<u32> = chain.iter().map(|&i| global[i as usize]).collect();
                *acc.stacks.entry(chain).or_insert(0) += w;
            }
            for (sym, comm, w) in ev.by_comm {
                let sym = match sym {
                    tally::NO_SYMBOL => tally::NO_SYMBOL,
                    s => global[s as usize],
                };
                *acc.by_comm
                    .entry((sym, comm_global[comm as usize]))
                    .or_insert(0) += w;
            }
        }
        true
    }

    /// Signs of two outputs in one file in block `b` (not yet counted in
    /// `lines`): a header block after samples, a step back in time.
    fn concatenated(&mut self, b: &BlockOut) {
        let at = |l: u64| self.lines + l;
        if self.header_again.is_none() {
            let again = b
                .header_after
                .or(b.first_header.filter(|_| self.any_sample));
            self.header_again = again.map(at);
        }
        if self.time_back.is_none() {
            let across = match (b.first_time, self.max_time) {
                (Some((l, t)), Some(m)) if m - t > tally::BACKWARDS => Some((l, m, t)),
                _ => None,
            };
            self.time_back = across.or(b.time_back).map(|(l, m, t)| (at(l), m, t));
        }
        if let Some(m) = b.max_time {
            self.max_time = Some(self.max_time.map_or(m, |x| x.max(m)));
        }
        self.any_sample |= b.any_sample;
    }

    /// A header block after samples: two outputs in one file, refused.
    fn one_output(&self, origin: &str) -> Result<(), ParseError> {
        match self.header_again {
            Some(line) => Err(ParseError::malformed(
                origin,
                line,
                "one perf script output: a second header block starts here, after samples \
                 (two outputs concatenated, `cat a.txt b.txt`? give each run its own file)",
                b"# ========",
            )),
            None => Ok(()),
        }
    }

    fn finish(mut self, origin: &str, opts: &ParseOptions) -> Result<Profile, ParseError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.one_output(origin)?;
        let mut p = Profile::new(origin, Format::PerfScript);
        p.weight = match opts.weight {
            WeightBy::Samples => Weight::Samples,
            WeightBy::Period => Weight::Period,
        };
        self.eventless_among_events(origin, opts)?;
        let chosen = chosen_event(&self.events, origin, opts)?;
        self.push_warnings(&mut p);
        let Some(ev) = self
            .events
            .iter_mut()
            .find(|e| e.name == chosen && e.wanted)
        else {
            p.warnings.push("no samples".into());
            return Ok(p);
        };
        if ev.name.is_empty() && self.blank_pairs > 0 {
            let comm = comm_id(&mut self.comm_ids, &mut self.comms, b"");
            empty_headers(ev, self.blank_pairs, comm, opts);
        }
        if !ev.name.is_empty() {
            p.event = Some(super::decode(&ev.name).into_owned());
        }
        p.total = ev.total as f64;
        if ev.tmin.is_finite() && ev.tmax.is_finite() {
            p.duration_s = Some(ev.tmax - ev.tmin);
        }
        chain_warnings(ev, opts, &mut p.warnings);
        if let Some(w) = lost_warning(self.lost, ev.samples) {
            p.warnings.push(w);
        }
        if ev.unattributed > 0 {
            // An empty callchain is a sample of an unknown frame: `[unknown]`
            // in dso `[unknown]`, as perf script prints an unresolved frame.
            p.add(unknown_key(), ev.unattributed as f64);
            if opts.stacks {
                *p.stacks.entry(vec![UNKNOWN.to_string()]).or_insert(0.0) += ev.unattributed as f64;
            }
        }
        for (chain, &w) in &ev.stacks {
            let names: Vec<String> = chain
                .iter()
                .map(|&id| match tally::decode_key(&self.keys[id as usize]) {
                    Some((name, _, mode)) => {
                        let name = super::decode(name).into_owned();
                        if mode.is_kernel() && name != UNKNOWN {
                            p.kernel_frames.insert(name.clone());
                        }
                        name
                    }
                    None => UNKNOWN.to_string(),
                })
                .collect();
            *p.stacks.entry(names).or_insert(0.0) += w as f64;
        }
        let key_of = |id: u32| {
            tally::decode_key(&self.keys[id as usize]).map(|(name, dso, mode)| {
                SymbolKey::new(super::decode(name))
                    .with_dso(dso.map(|d| Name::from(super::decode(d))))
                    .with_mode(Some(mode))
            })
        };
        for (&id, &w) in &ev.counts {
            if let Some(key) = key_of(id) {
                p.add(key, w as f64);
            }
        }
        let comm_names: Vec<Name> = self
            .comms
            .iter()
            .map(|c| Name::from(super::decode(c)))
            .collect();
        let triples: Vec<(Option<SymbolKey>, Name, f64)> = ev
            .by_comm
            .iter()
            .map(|(&(sym, comm), &w)| {
                let key = match sym {
                    tally::NO_SYMBOL => Some(unknown_key()),
                    s => key_of(s),
                };
                (key, comm_names[comm as usize], w as f64)
            })
            .collect();
        if opts.inclusive {
            p.set_leaves(&triples);
        }
        p.comms = Comms::from_triples(triples);
        p.unresolved = unresolved::note(
            &p,
            &|_| None,
            "perf script could not name them: run it where the binaries and their debug \
             files are (perf's --symfs), or give diffprofile the perf.data",
        );
        Ok(p)
    }

    /// Samples without an event field among samples with one are no layout
    /// of perf script (a line cut short, or joined with another): an error
    /// at the first, or under `--lenient` malformed lines left out.
    fn eventless_among_events(
        &mut self,
        origin: &str,
        opts: &ParseOptions,
    ) -> Result<(), ParseError> {
        let named = self
            .events
            .iter()
            .any(|e| !e.name.is_empty() && e.samples > 0);
        let Some(i) = self.events.iter().position(|e| e.name.is_empty()) else {
            return Ok(());
        };
        let Some((line, text)) = self.first_eventless.take().filter(|_| named) else {
            return Ok(());
        };
        if !opts.lenient {
            return Err(ParseError::malformed(
                origin,
                line,
                tally::EXPECT_EVENT,
                &text,
            ));
        }
        let ev = self.events.remove(i);
        self.malformed += ev.samples;
        match &self.first_malformed {
            Some((l, _)) if *l < line => {}
            _ => self.first_malformed = Some((line, text)),
        }
        Ok(())
    }

    fn push_warnings(&self, p: &mut Profile) {
        if let Some((line, from, to)) = self.time_back {
            p.warnings.push(format!(
                "line {line}: time goes back {:.3} s (from {from:.6} to {to:.6}), as if two perf \
                 script outputs were concatenated (`cat a.txt b.txt`): read as one run; give \
                 each run its own file",
                from - to
            ));
        }
        if self.non_sample > 0 {
            p.warnings.push(format!(
                "skipped {} non-sample lines (PERF_RECORD_* side-band events, comments)",
                self.non_sample
            ));
        }
        if self.malformed > 0 {
            p.skipped_lines = self.malformed;
            let first = self
                .first_malformed
                .as_ref()
                .map_or(String::new(), |(l, t)| {
                    format!("; the first, line {l}: \"{}\"", super::excerpt(t))
                });
            p.warnings.push(format!(
                "skipped {} malformed lines (--lenient){first}",
                self.malformed
            ));
        }
        if self.cut_line {
            p.warnings.push(
                "the input ends in the middle of a line (truncated?): that line was left out"
                    .into(),
            );
        } else if self.open_with_frames || (self.open_header_only && self.saw_blank) {
            p.warnings.push(
                "the input ends inside a sample, without the blank line that closes it \
                 (truncated?): counted what was read"
                    .into(),
            );
        }
    }
}

/// The id of command `c` among the merged commands.
fn comm_id(ids: &mut FxHashMap<Vec<u8>, u32>, comms: &mut Vec<Vec<u8>>, c: &[u8]) -> u32 {
    let next = comms.len() as u32;
    let id = *ids.entry(c.to_vec()).or_insert(next);
    if id == next {
        comms.push(c.to_vec());
    }
    id
}

/// In `-g -F ip,sym[,dso]` output (the samples have no header field) a
/// sample with an empty callchain is an empty header line and its closing
/// blank line: `pairs` samples without a frame, counted as the header-only
/// samples of other layouts are (`[unknown]`, command `comm`, the empty
/// one), and their weight (1 each: this layout has no period).
fn empty_headers(ev: &mut EventAcc, pairs: u64, comm: u32, opts: &ParseOptions) {
    if pairs == 0 || opts.weight == WeightBy::Period {
        return;
    }
    ev.samples += pairs;
    ev.total += pairs;
    let comm_ok = opts.comm.as_ref().is_none_or(|f| f.is_match(""));
    let dso_ok = opts.dso.as_ref().is_none_or(|re| re.is_match(UNKNOWN));
    if comm_ok && dso_ok && !opts.kernel_only {
        ev.empty_chains += pairs;
        ev.unattributed += pairs;
        *ev.by_comm.entry((tally::NO_SYMBOL, comm)).or_insert(0) += pairs;
    }
}

/// The event read: the one wanted (`--event`, or the only one), or none
/// when there are no samples; an error when there are several to choose from.
fn chosen_event(
    events: &[EventAcc],
    origin: &str,
    opts: &ParseOptions,
) -> Result<Vec<u8>, ParseError> {
    let list = |evs: &[&EventAcc]| {
        evs.iter()
            .map(|e| {
                format!(
                    "{} ({})",
                    event_name(&e.name),
                    crate::text::plural(e.samples, "sample")
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let all: Vec<&EventAcc> = events.iter().collect();
    let wanted: Vec<&EventAcc> = all.iter().copied().filter(|e| e.wanted).collect();
    Ok(match (wanted.len(), &opts.event) {
        (1, _) => wanted[0].name.clone(),
        (0, None) => Vec::new(),
        (0, Some(w)) => {
            return Err(ParseError::invalid(
                origin,
                format!(
                    "no samples of event '{w}'; the input has: {}",
                    if all.is_empty() {
                        "no samples".into()
                    } else {
                        list(&all)
                    }
                ),
            ))
        }
        (_, _) => {
            return Err(ParseError::invalid(
                origin,
                format!(
                    "several events in the input: {}; choose one with --event",
                    list(&wanted)
                ),
            ))
        }
    })
}

/// Each block checks its own sum of periods (a line whose period takes it
/// past 2^64 is refused there); the blocks' sums are checked as they are
/// merged, and the block of `lines` that takes one past is refused so.
fn sum_past_u64(origin: &str, lines: (u64, u64), event: &[u8]) -> ParseError {
    ParseError::invalid(
        origin,
        format!(
            "lines {}-{}: expected event {} periods whose sum stays within 2^64, \
             but the periods of these lines take it past that (are they periods?)",
            lines.0,
            lines.1,
            event_name(event)
        ),
    )
}

/// What the `PERF_RECORD_LOST` lines of `--show-lost-events` say perf
/// lost, against the chosen event's `samples`: as perf.data's reader says.
fn lost_warning(lost: u64, samples: u64) -> Option<String> {
    if lost == 0 {
        return None;
    }
    let share = 100.0 * lost as f64 / (lost + samples).max(1) as f64;
    let advice = if share >= 10.0 {
        "; the run's shares may be biased toward what was sampled when the buffer had \
         room: record it again with a larger buffer (-m) or a lower rate (-F, -c)"
    } else {
        ""
    };
    Some(format!(
        "perf lost {lost} event(s) while recording (its PERF_RECORD_LOST lines), against \
         {samples} sample(s) kept: about {share:.0}% of the recording's samples are \
         missing{advice}"
    ))
}

/// What the chosen event's callchains say: samples without a frame, and
/// under `--inclusive` samples without a callchain (as perf.data's reader
/// says of a recording made without -g).
fn chain_warnings(ev: &EventAcc, opts: &ParseOptions, warnings: &mut Vec<String>) {
    if ev.empty_chains > 0 {
        warnings.push(format!(
            "{} without a frame (empty callchain), counted as [unknown]: perf \
             script does not print their address (perf report names them from it)",
            crate::text::plural(ev.empty_chains, "sample")
        ));
    }
    if ev.no_chain > 0 && opts.inclusive {
        warnings.push(format!(
            "--inclusive: {} without a callchain (perf script of a recording made \
             without -g); counted at their leaf only",
            crate::text::plural(ev.no_chain, "sample")
        ));
    }
}

fn event_name(name: &[u8]) -> String {
    if name.is_empty() {
        "(no event field)".into()
    } else {
        format!("'{}'", super::decode(name))
    }
}

/// A sample of no frame: `[unknown]` in dso `[unknown]`, as perf script
/// prints an unresolved frame.
fn unknown_key() -> SymbolKey {
    SymbolKey::new(UNKNOWN)
        .with_dso(Some(Name::new(UNKNOWN)))
        .with_mode(Some(Mode::User))
}
