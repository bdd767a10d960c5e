//! A whole file mapped into memory (perf.data, /proc/profile images are
//! parsed in place), guarded against the file shrinking while it is read.
//!
//! Reading a page of a mapping past the end of its file (another program
//! truncated it) raises SIGBUS, which kills the process. While a
//! [`Guarded`] mapping lives, its address range is registered; the SIGBUS
//! handler installed here, for a fault inside a registered range, maps a
//! page of zeros over the faulting page (the read then goes on, reading
//! zeros) and marks the mapping; the reader checks [`Guarded::shrank`]
//! after parsing and reports an error naming the file instead of what it
//! parsed. A SIGBUS anywhere else gets the default action, as before.

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Once;

/// Mappings guarded at once; more are mapped without a guard (one per
/// file being parsed: a few per worker thread at most).
const SLOTS: usize = 64;

struct Slot {
    busy: AtomicBool,
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    busy: AtomicBool::new(false),
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    faulted: AtomicBool::new(false),
};

static REGISTERED: [Slot; SLOTS] = [FREE; SLOTS];
static PAGE: AtomicUsize = AtomicUsize::new(4096);
static INSTALL: Once = Once::new();

/// The SIGBUS handler: a fault in a registered mapping gets a page of
/// zeros and marks the mapping; any other gets the default action (the
/// handler is removed and the faulting access runs again).
extern "C" fn on_sigbus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Ordering::Relaxed);
    for s in &REGISTERED {
        let start = s.start.load(Ordering::Acquire);
        let len = s.len.load(Ordering::Acquire);
        if start != 0 && addr >= start && addr < start + len {
            let at = addr & !(page - 1);
            // SAFETY: replaces one page of a mapping this process owns
            // (registered until it is unmapped) by an anonymous one; mmap
            // is a plain system call, safe in a signal handler.
            let r = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if r != libc::MAP_FAILED {
                s.faulted.store(true, Ordering::Release);
                return;
            }
        }
    }
    // SAFETY: restoring the default action is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGBUS, libc::SIG_DFL);
    }
}

fn install() {
    INSTALL.call_once(|| {
        // SAFETY: sysconf and sigaction with a zeroed, filled-in struct.
        unsafe {
            let p = libc::sysconf(libc::_SC_PAGESIZE);
            if p > 0 {
                PAGE.store(p as usize, Ordering::Relaxed);
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigbus as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
        }
    });
}

/// A read-only mapping of a whole file, registered with the SIGBUS guard.
pub struct Guarded {
    map: memmap2::Mmap,
    slot: Option<usize>,
}

impl Guarded {
    /// Map `file` (`None` when it is empty: nothing to map).
    pub fn map(file: &File) -> std::io::Result<Option<Guarded>> {
        if file.metadata()?.len() == 0 {
            return Ok(None);
        }
        install();
        // SAFETY: a read-only private mapping; a truncation of the file
        // while it is mapped is caught by the guard (module comment).
        let map = unsafe { memmap2::Mmap::map(file) }?;
        let slot = REGISTERED.iter().position(|s| {
            s.busy
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        });
        if let Some(i) = slot {
            let s = &REGISTERED[i];
            s.faulted.store(false, Ordering::Release);
            s.len.store(map.len(), Ordering::Release);
            s.start.store(map.as_ptr() as usize, Ordering::Release);
        }
        Ok(Some(Guarded { map, slot }))
    }

    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// Whether the file shrank while it was read: a page past its end was
    /// read (as zeros).
    pub fn shrank(&self) -> bool {
        self.slot
            .is_some_and(|i| REGISTERED[i].faulted.load(Ordering::Acquire))
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // Unregistered before the mapping goes (the field drops after).
        if let Some(i) = self.slot {
            let s = &REGISTERED[i];
            s.start.store(0, Ordering::Release);
            s.len.store(0, Ordering::Release);
            s.busy.store(false, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mapped file cut short while it is read: the pages past the new
    /// end read as zeros and the mapping says it shrank (unguarded, the
    /// test process would die of SIGBUS).
    #[test]
    fn a_file_cut_while_mapped_is_noticed() {
        let dir = std::env::temp_dir().join(format!("dp-guarded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.data");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let file = File::open(&path).unwrap();
        let g = Guarded::map(&file).unwrap().unwrap();
        assert_eq!(g.bytes()[0], 7);
        assert!(!g.shrank());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        let sum: u64 = g.bytes().iter().map(|&b| u64::from(b)).sum();
        assert_eq!(sum, 7 * 4096);
        assert!(g.shrank());
        drop(g);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
