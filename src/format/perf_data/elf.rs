//! User-space symbols for perf.data samples: the ELF symbol table of a
//! mapped binary, when the file exists on this machine.
//!
//! Input: a path from an `MMAP`/`MMAP2` record and, when perf recorded one,
//! its build-id. Output: an [`ElfSymbols`] that turns a file offset (what
//! `ip - map.start + map.pgoff` gives) into a function name, or `None` when
//! the file is missing, unreadable, not ELF, or has another build-id than
//! the recorded one (a rebuilt binary would give wrong names). Functions come
//! from `.symtab`, else `.dynsym`, as perf takes them; a zero-size symbol
//! ends where the next begins. Names are not demangled (perf report demangles
//! C++/Rust names; diffprofile keeps the linker name).

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};

/// One binary's functions, by address.
#[derive(Debug)]
pub struct ElfSymbols {
    /// `(file offset, size, virtual address)` of each loadable segment.
    segments: Vec<(u64, u64, u64)>,
    /// `(start, end, name)`, sorted by start.
    funcs: Vec<(u64, u64, String)>,
}

/// Sort key of a symbol: address, then perf's preference among aliases
/// (non-zero size, binding global > local > weak, fewer leading
/// underscores, longer name), then the size itself.
type Rank = (
    u64,
    bool,
    std::cmp::Reverse<u8>,
    usize,
    std::cmp::Reverse<usize>,
    u64,
);

/// Why a binary gave no symbols (for a warning).
pub type Why = String;

impl ElfSymbols {
    /// Read `path`; `build_id` is the recorded one, if any.
    pub fn load(path: &str, build_id: Option<&[u8]>) -> Result<ElfSymbols, Why> {
        let f = open_regular(path)?;
        // SAFETY: the binary is only read; a file truncated while mapped
        // could fault, as for every tool that maps binaries (perf, samply).
        // Mapping instead of reading matters: only the symbol table pages of
        // a 100 MB+ library are touched.
        let data = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| format!("{path}: {e}"))?;
        let file = object::File::parse(&*data).map_err(|e| format!("{path}: not ELF: {e}"))?;
        if let (Some(want), Ok(Some(have))) = (build_id, file.build_id()) {
            // perf pads build-ids to 20 bytes in its header.
            let want = &want[..want.len().min(have.len())];
            if want != have {
                return Err(format!(
                    "{path}: build-id differs from the recorded one (the file changed since)"
                ));
            }
        }
        let segments = file
            .segments()
            .filter_map(|s| {
                let (off, size) = s.file_range();
                (size > 0).then_some((off, size, s.address()))
            })
            .collect();
        let mut funcs: Vec<(Rank, String)> = Vec::new();
        let take = |funcs: &mut Vec<(Rank, String)>,
                    syms: &mut dyn Iterator<Item = object::Symbol<'_, '_>>| {
            for s in syms {
                if s.kind() != SymbolKind::Text || s.is_undefined() || s.address() == 0 {
                    continue;
                }
                if let Ok(name) = s.name() {
                    if !name.is_empty() {
                        let binding = if s.is_weak() {
                            0
                        } else if s.is_global() {
                            2
                        } else {
                            1
                        };
                        let underscores = name.bytes().take_while(|&c| c == b'_').count();
                        let rank = (
                            s.address(),
                            s.size() == 0,
                            std::cmp::Reverse(binding),
                            underscores,
                            std::cmp::Reverse(name.len()),
                            s.size(),
                        );
                        funcs.push((rank, name.to_string()));
                    }
                }
            }
        };
        take(&mut funcs, &mut file.symbols());
        if funcs.is_empty() {
            take(&mut funcs, &mut file.dynamic_symbols());
        }
        if funcs.is_empty() {
            return Err(format!("{path}: no function symbols"));
        }
        // Of aliases at one address keep perf's choice (choose_best_symbol):
        // non-zero size, then non-weak, then global, then fewer leading
        // underscores, then the longer name; the sort puts it first.
        funcs.sort_unstable();
        funcs.dedup_by(|b, a| a.0 .0 == b.0 .0);
        let mut funcs: Vec<(u64, u64, String)> =
            funcs.into_iter().map(|(r, n)| (r.0, r.5, n)).collect();
        let starts: Vec<u64> = funcs.iter().map(|f| f.0).collect();
        for (i, f) in funcs.iter_mut().enumerate() {
            f.1 = if f.1 > 0 {
                f.0.saturating_add(f.1)
            } else {
                starts.get(i + 1).copied().unwrap_or(f.0.saturating_add(1))
            };
        }
        Ok(ElfSymbols { segments, funcs })
    }

    /// The name of function `index` (from [`ElfSymbols::lookup_index`]).
    pub fn name(&self, index: u32) -> Option<&str> {
        self.funcs.get(index as usize).map(|f| f.2.as_str())
    }

    /// The index of the function holding file offset `off`.
    pub fn lookup_index(&self, off: u64) -> Option<u32> {
        let &(so, _, va) = self
            .segments
            .iter()
            .find(|&&(o, size, _)| off >= o && off - o < size)?;
        let addr = (off - so).checked_add(va)?;
        let k = self.funcs.partition_point(|f| f.0 <= addr).checked_sub(1)?;
        (addr < self.funcs.get(k)?.1).then_some(k as u32)
    }
}

/// Open a file a recording names only if it is a regular file: a FIFO or a
/// device at that path would block the open or never end. Opened without
/// blocking, then checked on the open file (no window for a swap).
fn open_regular(path: &str) -> Result<std::fs::File, Why> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("{path}: {e}"))?;
    match f.metadata() {
        Ok(m) if m.is_file() => Ok(f),
        Ok(_) => Err(format!("{path}: not a regular file")),
        Err(e) => Err(format!("{path}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file offset of a virtual address, through the segments.
    fn offset(syms: &ElfSymbols, addr: u64) -> u64 {
        let &(so, _, va) = syms
            .segments
            .iter()
            .find(|&&(_, size, va)| addr >= va && addr - va < size)
            .expect("a loaded address");
        addr - va + so
    }

    #[test]
    fn resolves_own_test_binary() {
        // The running test binary has a symbol table; this function is in it.
        let exe = std::env::current_exe().unwrap();
        let syms = ElfSymbols::load(exe.to_str().unwrap(), None).unwrap();
        assert!(syms.funcs.len() > 100);
        // Every 97th function, at its start, middle and last byte, through
        // the real lookup (`lookup_index` + `name`), back to its name.
        let mut checked = 0;
        for f in syms.funcs.iter().step_by(97) {
            if syms
                .segments
                .iter()
                .all(|&(_, size, va)| !(f.0 >= va && f.0 - va < size))
            {
                continue;
            }
            for addr in [f.0, f.0 + (f.1 - f.0) / 2, f.1 - 1] {
                let i = syms.lookup_index(offset(&syms, addr)).expect("a function");
                let name = syms.name(i).unwrap();
                // Aliases at one address are merged to perf's choice.
                assert_eq!(syms.funcs[i as usize].0, f.0, "{name} for {}", f.2);
                assert_eq!(name, f.2);
                checked += 1;
            }
        }
        assert!(checked > 30, "{checked}");
        // Past the end of the last function, and outside every segment.
        let end = syms.funcs.last().unwrap().1;
        if syms
            .segments
            .iter()
            .any(|&(_, size, va)| end >= va && end - va < size)
        {
            assert_eq!(syms.lookup_index(offset(&syms, end)), None);
        }
        assert_eq!(syms.lookup_index(u64::MAX), None);
        assert!(syms.name(u32::MAX).is_none());
        assert!(ElfSymbols::load("/nonexistent/binary", None).is_err());
        assert!(ElfSymbols::load(exe.to_str().unwrap(), Some(&[1; 20])).is_err());
    }

    #[test]
    fn a_fifo_is_not_opened() {
        let dir = tempfile_dir();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = ElfSymbols::load(fifo.to_str().unwrap(), None).unwrap_err();
        assert!(e.ends_with("fifo: not a regular file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("diffprofile-elf-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
