//! What the records of a perf.data file add up to: each sample of the
//! chosen event weighed (`--weight`), filtered (`--kernel-only`, `--comm`,
//! `--dso`) and counted at its leaf, every distinct frame of its callchain
//! (`--inclusive`) and its stack (flame graphs); the other records keep
//! each thread's command and each process's mappings.
//!
//! Input: the decoded records, in time order, and the reader's [`State`].
//! Output: the [`Tally`] that [`super::finish`] turns into the profile.

use super::event::Event;
use super::maps::{mmap, MapRecord, PROT_EXEC};
use super::procs::Procs;
use super::{at_record, Frame, State};
use super::{ParseError, ParseOptions, WeightBy};
use crate::profile::Mode;
// Callchain context markers (`PERF_CONTEXT_*`) are the top 4095 values.
use linux_perf_data::linux_perf_event_reader::constants::{
    PERF_CONTEXT_GUEST_KERNEL, PERF_CONTEXT_GUEST_USER, PERF_CONTEXT_HV, PERF_CONTEXT_KERNEL,
    PERF_CONTEXT_MAX, PERF_CONTEXT_USER,
};
use linux_perf_data::linux_perf_event_reader::{
    CpuMode, Endianness, EventRecord, Mmap2FileId, RecordType, SampleRecord,
};
use rustc_hash::FxHashMap;

/// What the records add up to, and the buffers reused per sample.
#[derive(Default)]
pub(super) struct Tally {
    pub counts: FxHashMap<Frame, f64>,
    pub total: f64,
    /// Records perf lost (`PERF_RECORD_LOST`: ring buffer overruns).
    pub lost: u64,
    /// Samples perf lost (`PERF_RECORD_LOST_SAMPLES`: perf report's
    /// "Total Lost Samples").
    pub lost_samples: u64,
    /// Samples of the event read (before the filters).
    pub samples: u64,
    pub no_chain: u64,
    /// Callchains dropped at a context marker perf does not know (as perf
    /// drops them), and the first such marker.
    pub bad_context: u64,
    pub first_bad_context: Option<u64>,
    pub map_checked: bool,
    pub first_t: Option<u64>,
    pub last_t: Option<u64>,
    pub chain: Vec<Frame>,
    pub distinct: Vec<Frame>,
    pub rev: Vec<Frame>,
    pub stacks: FxHashMap<Vec<Frame>, f64>,
    /// Who forked whom and whom `--comm` kept ([`Procs`]).
    pub procs: Procs,
    /// Kept samples' self weight by (leaf, command).
    pub by_comm: FxHashMap<(Frame, u32), f64>,
}

impl Tally {
    /// A record other than a sample of the event: threads' commands and
    /// maps, lost events.
    pub fn record(
        &mut self,
        st: &mut State<'_>,
        parsed: EventRecord<'_>,
    ) -> Result<(), ParseError> {
        match parsed {
            EventRecord::Comm(c) => {
                // As perf script prints it and the text readers decode it
                // (`\xNN` for a byte that is not UTF-8), so that `--comm`
                // matches the same text in both.
                let raw = c.name.as_slice();
                let name = crate::text::decode(&raw);
                if c.is_execve {
                    st.maps.remove(&c.pid);
                }
                st.comms.set(c.tid, &name);
            }
            EventRecord::Fork(f) => {
                if f.pid != f.ppid {
                    self.procs.fork(f.pid, f.ppid);
                }
                st.comms.inherit(f.ptid, f.tid);
                if f.pid != f.ppid {
                    if let Some(m) = st.maps.get(&f.ppid).cloned() {
                        st.maps.insert(f.pid, m);
                    }
                }
            }
            EventRecord::Mmap(m) => {
                let path = String::from_utf8_lossy(&m.path.as_slice()).into_owned();
                let rec = MapRecord {
                    pid: m.pid,
                    mode: m.cpu_mode,
                    start: m.address,
                    len: m.length,
                    pgoff: m.page_offset,
                    path: &path,
                    exec: m.is_executable,
                    build_id: None,
                    inode: None,
                };
                mmap(st, rec, &mut self.map_checked)?;
            }
            EventRecord::Mmap2(m) => {
                let path = String::from_utf8_lossy(&m.path.as_slice()).into_owned();
                let rec = MapRecord {
                    pid: m.pid,
                    mode: m.cpu_mode,
                    start: m.address,
                    len: m.length,
                    pgoff: m.page_offset,
                    path: &path,
                    exec: m.protection & PROT_EXEC != 0,
                    build_id: match &m.file_id {
                        Mmap2FileId::BuildId(b) => Some(b.clone()),
                        Mmap2FileId::InodeAndVersion(_) => None,
                    },
                    inode: match &m.file_id {
                        Mmap2FileId::InodeAndVersion(i) => Some((i.major, i.minor, i.inode)),
                        Mmap2FileId::BuildId(_) => None,
                    },
                };
                mmap(st, rec, &mut self.map_checked)?;
            }
            EventRecord::Lost(l) => self.lost += l.count,
            // `{ u64 lost; sample_id }`, as the machine that recorded wrote it.
            EventRecord::Raw(r) if r.record_type == RecordType::LOST_SAMPLES => {
                let body = r.data.as_slice();
                if let Some(&b) = body.first_chunk::<8>() {
                    let lost = match r.parse_info.endian {
                        Endianness::LittleEndian => u64::from_le_bytes(b),
                        Endianness::BigEndian => u64::from_be_bytes(b),
                    };
                    self.lost_samples = self.lost_samples.saturating_add(lost);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A sample of the event: its weight in the total, then (past the
    /// filters) in its leaf's, its callchain's and its stack's counts.
    pub fn sample(
        &mut self,
        st: &mut State<'_>,
        s: &SampleRecord<'_>,
        event: &Event,
        opts: &ParseOptions,
        record_no: u64,
    ) -> Result<(), ParseError> {
        let origin = st.origin;
        let w = match opts.weight {
            WeightBy::Samples => 1.0,
            WeightBy::Period => match s.period.or(event.fixed_period) {
                Some(p) => p as f64,
                None => {
                    return Err(ParseError::invalid(
                        origin,
                        format!(
                            "record {record_no}: --weight period needs sample periods, \
                             which this recording does not hold"
                        ),
                    ))
                }
            },
        };
        self.total += w;
        self.samples += 1;
        self.procs.sample_seen();
        if let Some(t) = s.timestamp {
            self.first_t.get_or_insert(t);
            self.last_t = Some(t);
        }
        let mode = mode_of(s.cpu_mode);
        let pid = s.pid.unwrap_or(-1);
        let ip = s.ip.unwrap_or(0);
        if opts.kernel_only && !matches!(mode, Mode::Kernel | Mode::GuestKernel) {
            return Ok(());
        }
        let tid = s.tid.unwrap_or(pid);
        let comm = st.comms.of(tid, pid);
        if let Some(re) = &opts.comm {
            if !st.comms.passes(comm, re) {
                return Ok(());
            }
        }
        if let Some(f) = &opts.pid {
            if !self.procs.in_trees(pid, f) {
                return Ok(());
            }
        }
        if opts.comm.is_some() {
            self.procs.kept(pid, w);
        }
        let leaf = st
            .frame(pid, mode, ip)
            .map_err(|e| at_record(e, record_no))?;
        if mode == Mode::Kernel {
            st.fit_kernel(leaf, ip, w);
        }
        if let Some(re) = &opts.dso {
            if !crate::format::dso_matches(re, &st.dso_of(leaf)) {
                return Ok(());
            }
        }
        *self.by_comm.entry((leaf, comm)).or_insert(0.0) += w;
        if !opts.inclusive && !opts.stacks {
            // The leaf's count is the sum of its commands' ([`Tally::self_counts`]).
            return Ok(());
        }
        self.callchain(st, s, mode, pid, record_no)?;
        if self.chain.first() != Some(&leaf) {
            self.chain.insert(0, leaf);
        }
        if opts.stacks {
            self.rev.clear();
            self.rev.extend(self.chain.iter().rev());
            match self.stacks.get_mut(self.rev.as_slice()) {
                Some(v) => *v += w,
                None => {
                    self.stacks.insert(self.rev.clone(), w);
                }
            }
        }
        if !opts.inclusive {
            *self.counts.entry(leaf).or_insert(0.0) += w;
            return Ok(());
        }
        self.distinct.clear();
        for &f in &self.chain {
            if !self.distinct.contains(&f) {
                self.distinct.push(f);
            }
        }
        for &f in &self.distinct {
            *self.counts.entry(f).or_insert(0.0) += w;
        }
        Ok(())
    }

    /// Self cost without callchains or stacks: each leaf's count is the sum
    /// of its weights per command, added up once here rather than per
    /// sample (weights are whole numbers: the sums are exact in any order).
    pub fn self_counts(&mut self) {
        for (&(f, _), &w) in &self.by_comm {
            *self.counts.entry(f).or_insert(0.0) += w;
        }
    }

    /// The sample's callchain into `self.chain`, leaf first (perf puts the
    /// sample's own ip first, after a context marker).
    fn callchain(
        &mut self,
        st: &mut State<'_>,
        s: &SampleRecord<'_>,
        mode: Mode,
        pid: i32,
        record_no: u64,
    ) -> Result<(), ParseError> {
        self.chain.clear();
        match &s.callchain {
            None => self.no_chain += 1,
            Some(cc) => {
                let mut cmode = mode;
                for i in 0..cc.len() {
                    let Some(a) = cc.get(i) else { break };
                    if a >= PERF_CONTEXT_MAX {
                        cmode = match a {
                            PERF_CONTEXT_KERNEL => Mode::Kernel,
                            PERF_CONTEXT_USER => Mode::User,
                            PERF_CONTEXT_HV => Mode::Hypervisor,
                            PERF_CONTEXT_GUEST_KERNEL => Mode::GuestKernel,
                            PERF_CONTEXT_GUEST_USER => Mode::GuestUser,
                            _ => {
                                // perf's "invalid callchain context": it
                                // drops the whole chain (the sample keeps
                                // its own ip, put back by the caller).
                                self.chain.clear();
                                self.bad_context += 1;
                                self.first_bad_context.get_or_insert(a);
                                break;
                            }
                        };
                        continue;
                    }
                    let f = st
                        .frame(pid, cmode, a)
                        .map_err(|e| at_record(e, record_no))?;
                    self.chain.push(f);
                }
            }
        }
        Ok(())
    }
}

fn mode_of(m: CpuMode) -> Mode {
    match m {
        CpuMode::Kernel => Mode::Kernel,
        CpuMode::User => Mode::User,
        CpuMode::Hypervisor => Mode::Hypervisor,
        CpuMode::GuestKernel => Mode::GuestKernel,
        CpuMode::GuestUser => Mode::GuestUser,
        _ => Mode::User,
    }
}
