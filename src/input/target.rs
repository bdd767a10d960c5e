//! Where a report, a table or a model is written, checked before anything
//! is read: an output that is one of the inputs (the same file, through a
//! symbolic or hard link too, or a file inside an input directory) is
//! refused, since writing it would destroy the input or add the report to
//! the runs of the next comparison; and how an output that is replaced as a
//! whole (`export -o`, written to a temporary file and renamed) is written
//! when it is not a plain file: through a symbolic link to its target,
//! straight into a FIFO or device, never replacing either. Every file the
//! tool writes goes through [`Output`]: written beside its target, flushed
//! to disk and renamed over it only when complete, so a full disk or an
//! error on the way leaves the older file as it was, and never leaves the
//! temporary file behind ([`partial`](super::partial)).

use anyhow::{bail, Context, Result};
use std::io::{BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The absolute, link-free path `path` names, also when the file does not
/// exist yet (its directory resolved, its name kept); `None` when not even
/// the directory resolves.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

/// Refuse `out` (given with `flag`) when it is one of `inputs`: the same
/// regular file (by device and inode, so also through a symbolic or hard
/// link), or a path inside an input directory. `-` (stdout) and inputs
/// that cannot be read here (missing: their own error comes later) pass.
pub fn refuse_input(flag: &str, out: &Path, inputs: &[PathBuf]) -> Result<()> {
    if out == Path::new("-") {
        return Ok(());
    }
    let out_meta = std::fs::metadata(out).ok();
    let out_file = out_meta.as_ref().filter(|m| m.is_file());
    let out_real = resolved(out);
    // Files the output would write into that have other names too (hard
    // links): an output file, or, for an output directory (`--out-dir`),
    // each file in it. One of them may be a run inside an input directory.
    let linked: Vec<(PathBuf, (u64, u64))> = match &out_meta {
        Some(m) if m.is_file() && m.nlink() > 1 => vec![(out.to_path_buf(), (m.dev(), m.ino()))],
        Some(m) if m.is_dir() => std::fs::read_dir(out)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let m = std::fs::metadata(e.path()).ok()?;
                (m.is_file() && m.nlink() > 1).then(|| (e.path(), (m.dev(), m.ino())))
            })
            .collect(),
        _ => Vec::new(),
    };
    for input in inputs {
        if input == Path::new("-") {
            continue;
        }
        let Ok(meta) = std::fs::metadata(input) else {
            continue;
        };
        let shown = crate::text::shown_path(input);
        if meta.is_dir() && !linked.is_empty() {
            if let Ok(walk) = crate::input::walk_dir(input) {
                for file in walk.files {
                    let Ok(m) = std::fs::metadata(&file) else {
                        continue;
                    };
                    if let Some((o, _)) = linked.iter().find(|(_, id)| *id == (m.dev(), m.ino())) {
                        bail!(
                            "{flag} {}: {} is a hard link to the run {} of the input {shown}: \
                             writing the output there would destroy the run; remove the link \
                             or give another file",
                            crate::text::shown_path(out),
                            crate::text::shown_path(o),
                            crate::text::shown_path(&file)
                        );
                    }
                }
            }
        }
        if meta.is_dir() {
            let inside = std::fs::canonicalize(input)
                .ok()
                .zip(out_real.as_ref())
                .is_some_and(|(dir, o)| o.starts_with(dir));
            if inside {
                bail!(
                    "{flag} {}: inside the input directory {shown}: the output would \
                     replace or join what it holds (runs, maps, debug files, JIT maps); \
                     write it outside the inputs",
                    crate::text::shown_path(out)
                );
            }
        } else if let Some(o) = out_file {
            if o.dev() == meta.dev() && o.ino() == meta.ino() {
                bail!(
                    "{flag} {}: is the input {shown} (the same file): writing the output \
                     there would destroy it; give another file",
                    crate::text::shown_path(out)
                );
            }
        }
    }
    Ok(())
}

/// Refuse an output directory (`batch --out-dir`) that holds one of the
/// input files itself (an `--alias` or `--run-info` file kept beside the
/// reports): the directory's reports are written and stale ones removed
/// by name, so such a file could be replaced. Input directories inside
/// it (a results tree under the reports) are fine.
pub fn refuse_inputs_in_dir(dir: &Path, inputs: &[PathBuf]) -> Result<()> {
    let Some(dir_real) = std::fs::canonicalize(dir).ok() else {
        return Ok(());
    };
    for input in inputs {
        if input == Path::new("-") || !std::fs::metadata(input).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let parent = std::fs::canonicalize(input)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        if parent.as_deref() == Some(dir_real.as_path()) {
            bail!(
                "--out-dir {}: holds the input {}: the reports written there (and the \
                 stale ones removed) could replace it; move it or give another directory",
                crate::text::shown_path(dir),
                crate::text::shown_path(input)
            );
        }
    }
    Ok(())
}

/// How a file that is written whole and then put in place is written.
#[derive(Debug, PartialEq, Eq)]
pub enum Replace {
    /// Written to `tmp` beside `dest`, then renamed onto `dest` (a plain
    /// file, a new one, or the file a symbolic link points to: the link
    /// stays).
    Rename { tmp: PathBuf, dest: PathBuf },
    /// Written straight into the path: a FIFO, a device (`/dev/null`), a
    /// socket, or a dangling symbolic link (which then names a new file).
    Through(PathBuf),
}

/// How to write `out` without replacing anything but a plain file: see
/// [`Replace`]. A directory is an error.
pub fn replace_plan(flag: &str, out: &Path) -> Result<Replace> {
    let shown = crate::text::shown_path(out);
    match std::fs::metadata(out) {
        Ok(m) if m.is_dir() => bail!("{flag} {shown}: is a directory; expected a file name"),
        Ok(m) if !m.is_file() => return Ok(Replace::Through(out.to_path_buf())),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let link = std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink());
            if link {
                return Ok(Replace::Through(out.to_path_buf()));
            }
        }
        Err(e) => return Err(e).with_context(|| format!("{flag} {shown}: cannot open")),
    }
    let dest = std::fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
    let Some(name) = dest.file_name() else {
        bail!("{flag} {shown}: expected a file name");
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".partial-{}", std::process::id()));
    let tmp = dest.with_file_name(tmp_name);
    Ok(Replace::Rename { tmp, dest })
}

/// A file being written: see [`replace_plan`]. A plain file is written to
/// a temporary file beside it and renamed over it by [`Output::commit`],
/// once everything is written and on disk; dropped without a commit (an
/// error on the way) the temporary file is removed and the older file is
/// left as it was. A FIFO or device is written straight through.
pub struct Output {
    file: Option<BufWriter<std::fs::File>>,
    plan: Replace,
    /// The path as the user gave it, for messages.
    shown: String,
    /// The temporary file, removed on SIGINT, SIGTERM or SIGHUP until
    /// it is renamed or removed (dropped after them).
    _registered: Option<super::partial::Registered>,
}

impl Output {
    /// Start writing `path` (given with `flag`, for the messages). An
    /// existing plain file must be writable (it is replaced, not written
    /// into, but a file the user may not write is not replaced either);
    /// the new file gets its permissions.
    pub fn create(flag: &str, path: &Path) -> Result<Output> {
        let shown = crate::text::shown_path(path);
        let plan = replace_plan(flag, path)?;
        let mut registered = None;
        let file = match &plan {
            Replace::Rename { tmp, dest } => {
                let old = std::fs::metadata(dest).ok();
                if old.is_some() {
                    std::fs::OpenOptions::new()
                        .append(true)
                        .open(dest)
                        .with_context(|| format!("{flag} {shown}: cannot write"))?;
                }
                // Temporaries left by killed runs: of the same process id,
                // and of processes gone.
                let _ = std::fs::remove_file(tmp);
                super::partial::remove_stale(dest);
                registered = Some(super::partial::register(tmp));
                let f = match std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(tmp)
                {
                    Ok(f) => f,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        bail!("{flag} {shown}: cannot create: no such directory")
                    }
                    Err(e) => {
                        return Err(e).with_context(|| {
                            format!(
                                "{flag} {shown}: cannot create the temporary file {} beside \
                                 it (the directory must be writable)",
                                crate::text::shown_path(tmp)
                            )
                        })
                    }
                };
                if let Some(m) = old {
                    let _ = f.set_permissions(m.permissions());
                }
                f
            }
            Replace::Through(p) => std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(p)
                .with_context(|| format!("{flag} {shown}: cannot create"))?,
        };
        Ok(Output {
            file: Some(BufWriter::with_capacity(1 << 16, file)),
            plan,
            shown,
            _registered: registered,
        })
    }

    /// Everything written out and on disk, then put in place (an old file
    /// at the path is left as it was on an error, which the caller names
    /// the file in).
    pub fn commit(mut self) -> Result<()> {
        let Some(buf) = self.file.take() else {
            bail!("written twice");
        };
        let done = self.put_in_place(buf);
        if let (Err(_), Replace::Rename { tmp, .. }) = (&done, &self.plan) {
            let _ = std::fs::remove_file(tmp);
        }
        done
    }

    /// [`Output::commit`]'s work: flush, sync, rename.
    fn put_in_place(&self, buf: BufWriter<std::fs::File>) -> Result<()> {
        let file = buf.into_inner().map_err(|e| e.into_error())?;
        match &self.plan {
            Replace::Rename { tmp, dest } => {
                file.sync_all()?;
                drop(file);
                std::fs::rename(tmp, dest).with_context(|| {
                    format!(
                        "cannot rename the temporary file {} onto it",
                        crate::text::shown_path(tmp)
                    )
                })?;
                // The rename itself on disk: the directory's entry.
                if let Some(dir) = dest.parent() {
                    let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
                }
            }
            // A FIFO or device cannot be synced; a file a dangling link
            // named can.
            Replace::Through(_) => {
                if file.metadata()?.is_file() {
                    file.sync_all()?;
                }
            }
        }
        Ok(())
    }

    /// Write `bytes` as the whole of `path` (see [`Output::create`]); the
    /// error names the file.
    pub fn write_whole(flag: &str, path: &Path, bytes: &[u8]) -> Result<()> {
        let mut out = Output::create(flag, path)?;
        let shown = out.shown.clone();
        out.write_all(bytes)
            .map_err(anyhow::Error::from)
            .and_then(|()| out.commit())
            .with_context(|| format!("{flag} {shown}: cannot write"))
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("written after its commit")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for Output {
    /// Not committed: the temporary file is removed (the old file stays).
    fn drop(&mut self) {
        let Some(buf) = self.file.take() else {
            return;
        };
        // Not flushed: what is buffered is dropped with the file.
        drop(buf.into_parts());
        if let Replace::Rename { tmp, .. } = &self.plan {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dp-target-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn an_input_is_never_an_output() {
        let d = dir("input");
        let run = d.join("run1.txt");
        std::fs::write(&run, "1 x\n").unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink(&run, &link).unwrap();
        let hard = d.join("hard.txt");
        std::fs::hard_link(&run, &hard).unwrap();
        let runs = d.join("runs");
        std::fs::create_dir_all(&runs).unwrap();
        for out in [&run, &link, &hard] {
            let e = refuse_input("-O", out, std::slice::from_ref(&run))
                .unwrap_err()
                .to_string();
            assert!(e.contains("(the same file)"), "{e}");
        }
        // A hard link to a run of an input directory, as a file and in
        // an output directory.
        let outs = d.join("outs");
        std::fs::create_dir_all(&outs).unwrap();
        std::fs::write(runs.join("run2.txt"), "2 y\n").unwrap();
        let inner = d.join("inner.txt");
        std::fs::hard_link(runs.join("run2.txt"), &inner).unwrap();
        std::fs::hard_link(runs.join("run2.txt"), outs.join("b.txt")).unwrap();
        let e = refuse_input("-O", &inner, std::slice::from_ref(&runs))
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a hard link to the run"), "{e}");
        let e = refuse_input("--out-dir", &outs, std::slice::from_ref(&runs))
            .unwrap_err()
            .to_string();
        assert!(e.contains("b.txt is a hard link to the run"), "{e}");
        std::fs::remove_file(outs.join("b.txt")).unwrap();
        std::fs::write(outs.join("b.txt"), "x").unwrap();
        refuse_input("--out-dir", &outs, std::slice::from_ref(&runs)).unwrap();
        // Named through the link, read through the file.
        assert!(refuse_input("-O", &run, std::slice::from_ref(&link)).is_err());
        let inside = runs.join("new-report.txt");
        let e = refuse_input("-O", &inside, std::slice::from_ref(&runs))
            .unwrap_err()
            .to_string();
        assert!(e.contains("inside the input directory"), "{e}");
        let other = d.join("report.txt");
        refuse_input("-O", &other, &[run.clone(), runs.clone(), "-".into()]).unwrap();
        refuse_input("-O", Path::new("-"), std::slice::from_ref(&run)).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_output_is_put_in_place_only_when_committed() {
        let d = dir("output");
        let file = d.join("r.txt");
        std::fs::write(&file, "old").unwrap();
        let link = d.join("l.txt");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let names = || {
            let mut v: Vec<String> = std::fs::read_dir(&d)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        // Dropped half-written: the old file stays, no temporary is left.
        let mut out = Output::create("-O", &link).unwrap();
        out.write_all(&[b'x'; 100_000]).unwrap();
        assert_eq!(names().len(), 3, "the temporary is beside it");
        drop(out);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
        assert_eq!(names(), ["l.txt", "r.txt"]);
        // Committed: replaced at the link's target, the link kept.
        Output::write_whole("-O", &link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(names(), ["l.txt", "r.txt"]);
        // A device is written through, its error the commit's.
        let e = Output::write_whole("-O", Path::new("/dev/full"), b"x").unwrap_err();
        assert!(format!("{e:#}").contains("No space left"), "{e:#}");
        let e = Output::create("-O", &d.join("no/r.txt")).err().unwrap();
        assert!(
            e.to_string().ends_with("cannot create: no such directory"),
            "{e}"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn only_plain_files_are_replaced() {
        let d = dir("plan");
        let file = d.join("t.parquet");
        std::fs::write(&file, "old").unwrap();
        let link = d.join("l.parquet");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let dangling = d.join("dangling.parquet");
        std::os::unix::fs::symlink(d.join("missing"), &dangling).unwrap();
        let real = std::fs::canonicalize(&file).unwrap();
        let Replace::Rename { tmp, dest } = replace_plan("-o", &link).unwrap() else {
            panic!("a link to a file is replaced at its target");
        };
        assert_eq!(dest, real);
        assert_eq!(tmp.parent(), real.parent());
        assert!(matches!(
            replace_plan("-o", &d.join("new.parquet")).unwrap(),
            Replace::Rename { .. }
        ));
        assert_eq!(
            replace_plan("-o", Path::new("/dev/null")).unwrap(),
            Replace::Through("/dev/null".into())
        );
        assert_eq!(
            replace_plan("-o", &dangling).unwrap(),
            Replace::Through(dangling.clone())
        );
        assert!(replace_plan("-o", &d).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
