//! The temporary files of outputs being written (`.NAME.partial-PID`
//! beside the output, see [`super::target::Output`]), never left behind:
//! while one is written its path is registered, and SIGINT, SIGTERM or
//! SIGHUP remove every registered one before the process dies of the
//! signal as before; those a process killed outright (SIGKILL, a crash)
//! left beside a target are removed on the next write to it, once their
//! process is gone (no process of that id, or one of another program).

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::{Mutex, Once};

/// Temporary files registered at once; more are written unregistered (a
/// few per worker thread at most are written at a time).
const SLOTS: usize = 256;

static PATHS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
/// Set by the handler before it reads [`PATHS`]: a path unregistered then
/// is never freed (the handler may be reading it).
static IN_HANDLER: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();

/// Removes every registered temporary file (unlink is async-signal-safe),
/// then dies of the signal with its default action.
extern "C" fn on_signal(sig: libc::c_int) {
    IN_HANDLER.store(true, Ordering::SeqCst);
    for p in &PATHS {
        let path = p.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: a NUL-terminated path registered and never freed
            // once the handler runs.
            unsafe {
                libc::unlink(path);
            }
        }
    }
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

fn install() {
    INSTALL.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: sigaction with a zeroed, filled-in struct; a signal
            // the user set to be ignored (nohup) stays ignored.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                libc::sigaction(sig, std::ptr::null(), &mut old);
                if old.sa_sigaction == libc::SIG_IGN {
                    continue;
                }
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as *const () as usize;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
        }
    });
}

/// A temporary file registered for removal on SIGINT, SIGTERM or SIGHUP
/// until dropped.
pub struct Registered(Option<usize>);

/// Register `path` (see [`Registered`]).
pub fn register(path: &Path) -> Registered {
    install();
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return Registered(None);
    };
    let ptr = c.into_raw();
    for (i, slot) in PATHS.iter().enumerate() {
        let free = std::ptr::null_mut();
        if slot
            .compare_exchange(free, ptr, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return Registered(Some(i));
        }
    }
    // SAFETY: `ptr` came from `into_raw` above and was stored nowhere.
    drop(unsafe { CString::from_raw(ptr) });
    Registered(None)
}

impl Drop for Registered {
    fn drop(&mut self) {
        let Some(i) = self.0 else { return };
        let ptr = PATHS[i].swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !ptr.is_null() && !IN_HANDLER.load(Ordering::SeqCst) {
            // SAFETY: `ptr` came from `into_raw` in `register`, and no
            // handler can read it any more.
            drop(unsafe { CString::from_raw(ptr) });
        }
    }
}

/// Per directory listed: target name → its temporary files (path, PID).
type Listed = BTreeMap<PathBuf, BTreeMap<OsString, Vec<(PathBuf, u32)>>>;

/// Directories listed once by this process (a batch writes thousands of
/// files into one).
static LISTED: Mutex<Listed> = Mutex::new(BTreeMap::new());

/// The target name and PID of a temporary file's name
/// (`.NAME.partial-PID`).
fn parse(name: &OsStr) -> Option<(OsString, u32)> {
    let b = name.as_bytes().strip_prefix(b".")?;
    let at = b.windows(9).rposition(|w| w == b".partial-")?;
    let pid = std::str::from_utf8(&b[at + 9..]).ok()?.parse().ok()?;
    Some((OsStr::from_bytes(&b[..at]).to_os_string(), pid))
}

/// Whether process `pid` may be writing a temporary file of ours: it runs
/// this program (not merely a process that took the id later).
fn writing(pid: u32) -> bool {
    let exe = |p: &str| std::fs::read_link(format!("/proc/{p}/exe"));
    match (exe(&pid.to_string()), exe("self")) {
        (Ok(theirs), Ok(ours)) => theirs == ours,
        // No such process, or one of another program we may not look
        // at... only a missing process is surely gone.
        (Err(e), _) => {
            e.kind() != std::io::ErrorKind::NotFound && Path::new(&format!("/proc/{pid}")).exists()
        }
        (Ok(_), Err(_)) => true,
    }
}

/// Remove the temporary files of `dest` (`DIR/NAME`) that processes gone
/// left behind; returns those removed.
pub fn remove_stale(dest: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (dest.parent(), dest.file_name()) else {
        return Vec::new();
    };
    let mut listed = LISTED.lock().unwrap_or_else(|e| e.into_inner());
    let by_name = listed.entry(dir.to_path_buf()).or_insert_with(|| {
        let mut m: BTreeMap<OsString, Vec<(PathBuf, u32)>> = BTreeMap::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if let Some((target, pid)) = parse(&e.file_name()) {
                m.entry(target).or_default().push((e.path(), pid));
            }
        }
        m
    });
    let Some(found) = by_name.remove(name) else {
        return Vec::new();
    };
    let me = std::process::id();
    found
        .into_iter()
        .filter(|(path, pid)| {
            *pid != me
                && !writing(*pid)
                && std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
                && std::fs::remove_file(path).is_ok()
        })
        .map(|(path, _)| path)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_read() {
        let p = |s: &str| parse(OsStr::new(s));
        assert_eq!(
            p(".report.json.partial-123"),
            Some((OsString::from("report.json"), 123))
        );
        assert_eq!(
            p("..x.partial-1.partial-7"),
            Some((OsString::from(".x.partial-1"), 7))
        );
        assert_eq!(p("report.json.partial-123"), None);
        assert_eq!(p(".report.json.partial-"), None);
        assert_eq!(p(".report.json.partial-12a"), None);
    }
}
