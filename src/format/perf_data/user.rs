//! The mapped files (dsos) of a perf.data recording and their symbols.
//!
//! Input: each `MMAP`/`MMAP2` record's path, protection and pid, the
//! recording's build-id table, and [`UserSymbolOptions`]. Output: one
//! [`Dso`] per distinct file, symbolised on first use (once per dso, not
//! per sample): from its ELF symbols ([`super::symsrc`] finds the files,
//! [`super::elf`] builds the table; a binary is read once per process,
//! however many recordings map it), or, for executable anonymous memory,
//! from the process's JIT map ([`super::jitmap`]), whose addresses are
//! absolute. A dso that yields no symbols remembers why, for the warning
//! that counts its `[unknown]` samples ([`unresolved_hint`]).

use super::elf::Why;
use super::symtab::ElfSymbols;
use super::{jitmap, symsrc};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// How perf.data names user-space addresses.
#[derive(Clone, Debug, Default)]
pub struct UserSymbolOptions {
    /// `--symfs DIR`: look every binary up under this root (perf's `--symfs`).
    pub symfs: Option<PathBuf>,
    /// `--debug-dir DIR`: more roots laid out like `/usr/lib/debug`.
    pub debug_dirs: Vec<PathBuf>,
    /// perf's build-id cache (`$PERF_BUILDID_DIR`, else `~/.debug`),
    /// resolved by the caller.
    pub buildid_dir: Option<PathBuf>,
    /// `--jit-map-dir DIR`: where `perf-PID.map` files are, before `/tmp`.
    pub jit_map_dirs: Vec<PathBuf>,
    /// `--no-demangle`: keep the raw (mangled) names.
    pub no_demangle: bool,
}

impl UserSymbolOptions {
    fn places(&self) -> symsrc::Places {
        symsrc::Places {
            symfs: self.symfs.clone(),
            debug_dirs: self.debug_dirs.clone(),
            buildid_dir: self.buildid_dir.clone(),
        }
    }
}

/// A mapped file of the recording, symbolised on first use.
pub(super) struct Dso {
    /// The path as recorded (`/tmp/perf-PID.map` for JIT code).
    pub path: String,
    build_id: Option<Vec<u8>>,
    /// JIT code of this pid: addresses are absolute.
    jit_pid: Option<i32>,
    /// The device (major, minor) and inode the first `MMAP2` of it gives.
    inode: Option<(u32, u32, u64)>,
    syms: OnceLock<Loaded>,
}

/// A dso's symbols, or why it has none; shared by every recording of this
/// process that maps the same file ([`cached`]).
type Loaded = Result<Arc<ElfSymbols>, Why>;

/// What decides a binary's symbol table: its path and build-id, and the
/// options that find and name its files.
type Key = (
    String,
    Option<Vec<u8>>,
    Option<PathBuf>,
    Vec<PathBuf>,
    Option<PathBuf>,
    bool,
);

/// The symbols of `dso`, built once per process: a batch of perf.data
/// files that map the same libraries reads each of them once. Two threads
/// asking at once wait for one build.
fn cached(dso: &Dso, opts: &UserSymbolOptions, build: impl FnOnce() -> Loaded) -> Loaded {
    type Cell = Arc<OnceLock<Loaded>>;
    static TABLES: OnceLock<Mutex<HashMap<Key, Cell>>> = OnceLock::new();
    let key = (
        dso.path.clone(),
        dso.build_id.clone(),
        opts.symfs.clone(),
        opts.debug_dirs.clone(),
        opts.buildid_dir.clone(),
        opts.no_demangle,
    );
    let cell = {
        let tables = TABLES.get_or_init(Mutex::default);
        let mut tables = tables.lock().unwrap_or_else(|e| e.into_inner());
        tables.entry(key).or_default().clone()
    };
    cell.get_or_init(build).clone()
}

impl Dso {
    pub fn new(path: String, build_id: Option<Vec<u8>>, jit_pid: Option<i32>) -> Dso {
        Dso {
            path,
            build_id,
            jit_pid,
            inode: None,
            syms: OnceLock::new(),
        }
    }

    /// Whether sample addresses index this dso's symbols directly (JIT
    /// maps) rather than as file offsets.
    pub fn absolute(&self) -> bool {
        self.jit_pid.is_some()
    }

    /// The symbols, loaded on first use (JIT maps belong to one
    /// recording's process; binaries are shared, see [`cached`]).
    pub fn symbols(&self, opts: &UserSymbolOptions) -> Option<&ElfSymbols> {
        let loaded = self.syms.get_or_init(|| match self.jit_pid {
            Some(pid) => jitmap::load(pid, &opts.jit_map_dirs).map(Arc::new),
            None => match self.replaced(opts) {
                Some(why) => Err(why),
                None => cached(self, opts, || self.load(opts).map(Arc::new)),
            },
        });
        loaded.as_ref().ok().map(|s| &**s)
    }

    /// The symbols if they were loaded.
    pub fn loaded(&self) -> Option<&ElfSymbols> {
        self.syms.get().and_then(|r| r.as_ref().ok()).map(|s| &**s)
    }

    /// Why this dso gave no symbols (once loading was tried).
    pub fn why(&self) -> Option<&str> {
        self.syms
            .get()
            .and_then(|r| r.as_ref().err())
            .map(String::as_str)
    }

    fn load(&self, opts: &UserSymbolOptions) -> Result<ElfSymbols, Why> {
        if !symsrc::is_file_path(&self.path) && self.path != "[vdso]" {
            return Err(format!("{}: no file behind this mapping", self.path));
        }
        let found = symsrc::find(&self.path, self.build_id.as_deref(), &opts.places())?;
        let mut syms = ElfSymbols::build(found.syms(), found.runtime(), !opts.no_demangle)?;
        syms.named_by = found.build_id;
        Ok(syms)
    }

    /// The first mapping's device and inode, if the record gave them.
    pub fn mapped_inode(&mut self, inode: Option<(u32, u32, u64)>) {
        if self.inode.is_none() {
            self.inode = inode;
        }
    }

    /// Why the file at this path is not the one mapped, when nothing else
    /// can tell (no build-id recorded: `perf record --no-buildid`, `-z` and
    /// pipe mode in perf 6.1): on the device the recording names, another
    /// inode (the binary replaced since: rebuilt, upgraded). Not judged
    /// under `--symfs` (a copy) or when the devices differ (overlay and
    /// container file systems give the mapping's own device).
    fn replaced(&self, opts: &UserSymbolOptions) -> Option<Why> {
        use std::os::unix::fs::MetadataExt;
        let (major, minor, ino) = self.inode?;
        if self.build_id.is_some() || opts.symfs.is_some() || !symsrc::is_file_path(&self.path) {
            return None;
        }
        let meta = std::fs::metadata(&self.path).ok()?;
        let dev = meta.dev();
        let same_dev = libc::major(dev) == major && libc::minor(dev) == minor;
        (same_dev && meta.ino() != ino).then(|| {
            format!(
                "{}: no build-id recorded for it, and the file there now is not the one mapped \
                 (inode {ino} on device {major}:{minor} when recorded, {} now): it was replaced \
                 since the recording, and its names would be the new file's",
                self.path,
                meta.ino()
            )
        })
    }

    /// The build-id the recording holds for this file, if any.
    pub fn recorded_build_id(&self) -> Option<&[u8]> {
        self.build_id.as_deref()
    }

    /// JIT code (named by a perf map, not a binary).
    pub fn is_jit(&self) -> bool {
        self.jit_pid.is_some()
    }
}

/// What would name the `[unknown]` samples of a dso, after why it has none.
pub(super) fn unresolved_hint(dso: Option<&Dso>, name: &str) -> String {
    let Some(dso) = dso else {
        return if name == super::KERNEL_DSO {
            "addresses outside the kernel symbols given".to_string()
        } else {
            "no mapping recorded for the address".to_string()
        };
    };
    match dso.why() {
        Some(why) if why.ends_with("no symbol table") || why.ends_with("no function symbols") => {
            format!(
                "{why}: a stripped binary; its debug file (a -dbg/-dbgsym/-debuginfo package, \
                 /usr/lib/debug/.build-id/…) or --debug-dir DIR would name them"
            )
        }
        Some(why) if why.contains("it was replaced since the recording") => {
            format!("{why}: give the recorded binary with --symfs DIR, or record with build-ids")
        }
        Some(why) if why.contains("no such file") && dso.jit_pid.is_none() => {
            format!("{why}: give the recorded binaries with --symfs DIR")
        }
        Some(why) if why.contains("build-id differs") => {
            format!("{why}: give the recorded binaries with --symfs DIR or their debug files with --debug-dir DIR")
        }
        Some(why) => why.to_string(),
        None if dso.loaded().is_some() => {
            "addresses outside every symbol of its table: a debug file may name them".to_string()
        }
        None => "not symbolised".to_string(),
    }
}
