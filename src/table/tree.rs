//! Streams a results tree for `export`: a directory (walked one directory
//! at a time, entries in name order, so a directory's symbol maps come
//! before its profiles) or a tar archive (plain or compressed, members in
//! archive order, read in place). Each file is told to a [`Visitor`]: a
//! symbol map (`System.map*`, `kallsyms*`), a member the layout matches
//! (read only when the visitor wants its run group), or a path that does
//! not match. Nothing is listed or held beyond the member at hand.
//! Entries are read as every walk of diffprofile reads them
//! ([`input::entry_kind`]: links to directories are not followed, dangling
//! links and special files are passed over and counted in a warning); an
//! archive member whose path is absolute or has a `..` component is passed
//! over (its place in the layout is ambiguous); symbol maps are read under
//! the parsers' bound, and a member larger than [`SMALL`] is handed over as
//! a stream, to be parsed as it is read, never held whole.

use crate::format;
use crate::input::{self, Location, BUF_SIZE};
use crate::layout::Layout;
use crate::load::{self, MapFile};
use anyhow::{bail, Context, Result};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Archive members stored in at most this many bytes are read whole; larger
/// ones are handed over as a stream.
pub const SMALL: u64 = 8 << 20;

/// Where a member's bytes are.
pub enum Data<'r> {
    File(PathBuf),
    Bytes(Vec<u8>),
    /// A large archive member, to be read from the archive now.
    Stream(&'r mut dyn Read),
}

/// A member of the tree that matched the layout.
pub struct Member<'r> {
    /// Relative, `/`-separated.
    pub path: String,
    pub kernel: String,
    pub bench: String,
    pub data: Data<'r>,
}

pub trait Visitor {
    /// Whether the run group of `kernel` and `bench` is read.
    fn wants(&mut self, kernel: &str, bench: &str) -> bool;
    /// A symbol map in directory `dir` (relative, `""` at the top).
    fn map(&mut self, dir: &str, file: MapFile) -> Result<()>;
    fn member(&mut self, member: Member<'_>) -> Result<()>;
    /// A path the layout does not match (or that is not a regular file).
    fn unmatched(&mut self, path: String);
    /// Entries of a directory passed over (see [`input::Skipped`]).
    fn warning(&mut self, text: String);
}

/// Visit every file of the tree at `root`.
pub fn visit(root: &str, layout: &Layout, v: &mut dyn Visitor) -> Result<()> {
    let path = Path::new(root);
    let meta = std::fs::metadata(path).with_context(|| format!("{root}: cannot open"))?;
    if meta.is_dir() {
        let mut skipped = input::Skipped::default();
        walk(path, "", layout, v, &mut skipped)?;
        for w in skipped.warnings(path) {
            v.warning(w);
        }
        return Ok(());
    }
    let opened = input::open(&Location::File(path.to_path_buf()))?;
    if !opened.tar {
        bail!("{root}: not a directory or a tar archive (plain, gz, zst, xz)");
    }
    let mut archive = tar::Archive::new(opened.reader);
    let entries = archive
        .entries()
        .with_context(|| format!("{root}: cannot read tar archive"))?;
    let mut last = String::from("(start)");
    for entry in entries {
        let mut entry =
            entry.with_context(|| format!("{root}: corrupt tar archive after member {last}"))?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let rel = raw.trim_start_matches("./").to_string();
        last = rel.clone();
        let kind = entry.header().entry_type();
        if kind.is_dir() || rel.is_empty() || hidden(&rel) {
            continue;
        }
        if rel.starts_with('/') || rel.split('/').any(|c| c == "..") {
            v.unmatched(format!("{rel} (absolute, or with a .. component)"));
            continue;
        }
        if !kind.is_file() {
            v.unmatched(format!("{rel} (not a regular file)"));
            continue;
        }
        if load::is_map_name(&rel) {
            let name = format!("{root}:{rel}");
            let mut r = BufReader::with_capacity(BUF_SIZE, &mut entry);
            let bytes = format::read_bounded(&mut r, &name, "symbol map")?;
            v.map(dir_of(&rel), MapFile::Bytes(name, bytes))?;
            continue;
        }
        match layout.matches(&rel) {
            Some((k, b)) if v.wants(k, b) => {
                let (kernel, bench) = (k.to_string(), b.to_string());
                let size = entry.size();
                let data = if size <= SMALL {
                    let mut bytes = Vec::with_capacity(size as usize);
                    entry
                        .read_to_end(&mut bytes)
                        .with_context(|| format!("{root}:{rel}: cannot read member"))?;
                    Data::Bytes(bytes)
                } else {
                    Data::Stream(&mut entry)
                };
                v.member(Member {
                    kernel,
                    bench,
                    data,
                    path: rel.clone(),
                })?;
            }
            Some(_) => {}
            None => v.unmatched(rel),
        }
    }
    Ok(())
}

fn hidden(path: &str) -> bool {
    path.split('/').any(|c| c.starts_with('.') && c != ".")
}

/// The directory part of a relative path (`""` at the top).
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// One directory: its maps, then its files in name order, then each
/// subdirectory in name order.
fn walk(
    dir: &Path,
    prefix: &str,
    layout: &Layout,
    v: &mut dyn Visitor,
    skipped: &mut input::Skipped,
) -> Result<()> {
    let mut entries: Vec<(String, PathBuf, input::EntryKind)> = Vec::new();
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?
    {
        let entry = entry.with_context(|| format!("{}: cannot read directory", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry
            .file_type()
            .with_context(|| format!("{}: cannot read directory", dir.display()))?;
        let kind = input::entry_kind(&path, kind);
        if !skipped.note(&path, kind) {
            entries.push((name, path, kind));
        }
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let rel = |name: &str| {
        if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        }
    };
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for (name, path, kind) in entries {
        if kind == input::EntryKind::Dir {
            dirs.push((rel(&name), path));
        } else if load::is_map_name(&name) {
            v.map(prefix, MapFile::Path(path))?;
        } else {
            files.push((rel(&name), path));
        }
    }
    for (rel, path) in files {
        match layout.matches(&rel) {
            Some((k, b)) if v.wants(k, b) => v.member(Member {
                kernel: k.to_string(),
                bench: b.to_string(),
                data: Data::File(path),
                path: rel.clone(),
            })?,
            Some(_) => {}
            None => v.unmatched(rel),
        }
    }
    for (rel, path) in dirs {
        walk(&path, &rel, layout, v, skipped)?;
    }
    Ok(())
}
