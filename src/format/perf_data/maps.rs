//! Mappings of each process: `MMAP`/`MMAP2` records into per-pid address
//! ranges of dsos.
//!
//! Input: each record (pid, range, file offset, path, protection, build-id).
//! Output: the process's sorted, non-overlapping [`Mapping`]s (a new
//! mapping replaces what it overlaps, as perf splits them), each naming a
//! [`super::user::Dso`]: the recorded file, or `/tmp/perf-PID.map` for
//! executable anonymous memory (JIT code, perf's `map__new`). The kernel's
//! own mapping is checked against the kernel map ([`super::mapcheck`]).

use super::mapcheck::map_mismatch;
use super::{jitmap, ParseError, State};
use linux_perf_data::linux_perf_event_reader::CpuMode;

/// A mapped file of a process.
#[derive(Clone, Debug)]
pub(super) struct Mapping {
    pub start: u64,
    pub end: u64,
    pub pgoff: u64,
    pub dso: u32,
}

/// `PROT_EXEC` in an `MMAP2` record's protection.
pub(super) const PROT_EXEC: u32 = 4;

/// What an `MMAP`/`MMAP2` record says.
pub(super) struct MapRecord<'p> {
    pub pid: i32,
    pub mode: CpuMode,
    pub start: u64,
    pub len: u64,
    pub pgoff: u64,
    pub path: &'p str,
    pub exec: bool,
    pub build_id: Option<Vec<u8>>,
    /// `MMAP2`'s device (major, minor) and inode of the mapped file.
    pub inode: Option<(u32, u32, u64)>,
}

pub(super) fn mmap(
    st: &mut State<'_>,
    rec: MapRecord<'_>,
    checked: &mut bool,
) -> Result<(), ParseError> {
    let MapRecord {
        pid,
        mode,
        start,
        len,
        pgoff,
        path,
        exec,
        build_id,
        inode,
    } = rec;
    if mode == CpuMode::Kernel {
        // `[kernel.kallsyms]_text` at pgoff = the address of `_text`.
        if let Some(reloc) = path.strip_prefix("[kernel.kallsyms]") {
            if !reloc.is_empty() && !*checked {
                *checked = true;
                // `--buildid-mmap` puts the kernel's build-id here too.
                if st.kernel_id.is_none() {
                    st.kernel_id = build_id;
                }
                st.fit.text = Some((start, start.saturating_add(len)));
                if let Some(map) = &st.kernel {
                    st.doubts
                        .extend(map_mismatch(map, reloc, pgoff, start, len));
                }
            }
        }
        return Ok(());
    }
    // Executable anonymous memory is JIT code, named by the process's
    // perf map (perf's `map__new`).
    let dso = if exec && jitmap::is_anonymous(path) {
        st.dso_id(&jitmap::dso_name(pid), Some(pid), None)
    } else {
        let id = st.dso_id(path, None, build_id);
        st.dsos[id as usize].mapped_inode(inode);
        id
    };
    st.add_mapping(
        pid,
        Mapping {
            start,
            end: start.saturating_add(len),
            pgoff,
            dso,
        },
    );
    Ok(())
}

impl State<'_> {
    pub(super) fn add_mapping(&mut self, pid: i32, m: Mapping) {
        let list = self.maps.entry(pid).or_default();
        // A new mapping replaces whatever it overlaps (perf splits; the
        // overlapped pieces of the old one stay).
        let mut out = Vec::with_capacity(list.len() + 2);
        for old in list.drain(..) {
            if old.end <= m.start || old.start >= m.end {
                out.push(old);
                continue;
            }
            if old.start < m.start {
                out.push(Mapping {
                    end: m.start,
                    ..old.clone()
                });
            }
            if old.end > m.end {
                out.push(Mapping {
                    start: m.end,
                    pgoff: old.pgoff.wrapping_add(m.end - old.start),
                    ..old
                });
            }
        }
        out.push(m);
        out.sort_by_key(|m| m.start);
        *list = out;
    }
}
