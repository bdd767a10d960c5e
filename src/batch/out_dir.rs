//! A `--out-dir` as one batch's reports: one run writes there at a time
//! (a lock file, `.diffprofile-batch.lock`, held with `flock` from before
//! the tree is read until the index is written; a second run is refused),
//! and the directory holds what the last run of each format wrote: the
//! files an earlier run of this run's file extension wrote there (listed in
//! `.diffprofile-batch.EXT`) that this one does not write again are
//! removed, and report-like files no run of ours wrote are named in a
//! warning (left in place), so no outdated report stands beside the new
//! ones without a word. (Reports of another format, `-o json` beside
//! `-o html`, are another run's and stay.)

use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The lock file's name.
pub const LOCK: &str = ".diffprofile-batch.lock";
/// The lists of the files the last run of each extension wrote:
/// `.diffprofile-batch.EXT`.
pub const MANIFEST: &str = ".diffprofile-batch.";
/// Extensions of report files (the `-o` formats' and the index's).
const REPORT_EXTS: [&str; 6] = ["txt", "json", "csv", "md", "html", "svg"];
/// Files named in a warning; the rest are counted.
const LIST_MAX: usize = 20;

/// The held lock of an out-dir; released when dropped (and by the system
/// when the process ends, however it ends). A directory the run created
/// and wrote nothing into is removed again.
pub struct DirLock {
    _file: std::fs::File,
    dir: PathBuf,
    created: bool,
}

impl Drop for DirLock {
    fn drop(&mut self) {
        if !self.created {
            return;
        }
        let only_lock = std::fs::read_dir(&self.dir).is_ok_and(|entries| {
            entries
                .flatten()
                .all(|e| e.file_name() == std::ffi::OsStr::new(LOCK))
        });
        if only_lock {
            let _ = std::fs::remove_file(self.dir.join(LOCK));
            let _ = std::fs::remove_dir(&self.dir);
        }
    }
}

/// Create `dir` if need be and take its lock; refused while another run
/// holds it (naming its process).
pub fn lock(dir: &Path) -> Result<DirLock> {
    let shown = crate::text::shown_path(dir);
    let created = !dir.exists();
    std::fs::create_dir_all(dir).with_context(|| format!("--out-dir {shown}: cannot create"))?;
    let path = dir.join(LOCK);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("--out-dir {shown}: cannot create the lock file {LOCK}"))?;
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this function owns; no memory involved.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            let by = match pid.trim() {
                "" => String::new(),
                p => format!(" (process {p})"),
            };
            bail!(
                "--out-dir {shown}: another diffprofile batch is writing there{by}: wait for \
                 it to finish or give another directory (nothing written)"
            );
        }
        return Err(e).with_context(|| format!("--out-dir {shown}: cannot lock {LOCK}"));
    }
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = writeln!(file, "{}", std::process::id());
    Ok(DirLock {
        _file: file,
        dir: dir.to_path_buf(),
        created,
    })
}

/// The files the last run listed in the manifest `name` of `dir` (none
/// without one).
fn listed_in(dir: &Path, name: &str) -> BTreeSet<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
        return BTreeSet::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        // Only plain names of this directory: a hand-edited list cannot
        // remove anything elsewhere.
        .filter(|l| !l.contains('/') && !l.starts_with('.'))
        .map(str::to_string)
        .collect()
}

/// Every file any run's manifest in `dir` lists.
fn all_listed(dir: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeSet::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(MANIFEST))
        .flat_map(|n| listed_in(dir, &n))
        .collect()
}

/// `names`, at most [`LIST_MAX`] of them, joined; "and N more" after.
fn listed(names: &[String]) -> String {
    let mut s = names
        .iter()
        .take(LIST_MAX)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LIST_MAX {
        s.push_str(&format!(" and {} more", names.len() - LIST_MAX));
    }
    s
}

/// After a run wrote `written` (reports with extension `ext`, and the
/// index) into `dir`: remove what the previous run of `ext` wrote and this
/// one did not, name report-like files no run of ours wrote, and list
/// `written` as this run's. Returns the warnings.
pub fn settle(dir: &Path, ext: &str, written: &[String]) -> Result<Vec<String>> {
    let shown = crate::text::shown_path(dir);
    let now: BTreeSet<&str> = written.iter().map(String::as_str).collect();
    let manifest = format!("{MANIFEST}{ext}");
    let before = listed_in(dir, &manifest);
    let mut warnings = Vec::new();
    let mut removed = Vec::new();
    for old in before.iter().filter(|f| !now.contains(f.as_str())) {
        let path = dir.join(old);
        let plain = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if plain && std::fs::remove_file(&path).is_ok() {
            removed.push(crate::text::printable(old));
        }
    }
    if !removed.is_empty() {
        warnings.push(format!(
            "--out-dir {shown}: removed {} an earlier batch wrote there that this one does not \
             (benchmarks no longer in the tree): {}",
            crate::text::plural(removed.len() as u64, "file"),
            listed(&removed)
        ));
    }
    let ours = all_listed(dir);
    let mut foreign: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("--out-dir {shown}: cannot list"))?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && !now.contains(n.as_str()) && !ours.contains(n))
        .filter(|n| {
            Path::new(n)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| REPORT_EXTS.contains(&e.to_ascii_lowercase().as_str()))
        })
        .map(|n| crate::text::printable(&n))
        .collect();
    foreign.sort();
    if !foreign.is_empty() {
        warnings.push(format!(
            "--out-dir {shown}: {} not written by this batch and not in its index, left in \
             place (an old report? remove it): {}",
            crate::text::plural(foreign.len() as u64, "file"),
            listed(&foreign)
        ));
    }
    let mut text = String::from(
        "# The files the last `diffprofile batch --out-dir` run of this extension\n\
         # wrote here, one a line; the next one removes those it does not write again.\n",
    );
    // (A name with a line break cannot be listed: it is then named as
    // not ours next time, never removed.)
    for f in written.iter().filter(|f| !f.contains('\n')) {
        text.push_str(f);
        text.push('\n');
    }
    crate::input::target::Output::write_whole("--out-dir", &dir.join(manifest), text.as_bytes())?;
    Ok(warnings)
}
