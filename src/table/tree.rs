//! Streams a results tree for `export`: a directory (walked with walkdir
//! one directory at a time, entries in name order, a directory's symbol
//! maps before its profiles) or a tar archive (plain or compressed, members in
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
use std::borrow::Cow;
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
    let path = &input::os_path(root);
    let meta = std::fs::metadata(path).with_context(|| format!("{root}: cannot open"))?;
    input::refuse_special_root(root, &meta)?;
    if meta.is_dir() {
        let mut skipped = input::Skipped::default();
        walk(path, layout, v, &mut skipped)?;
        for w in skipped.warnings(path) {
            v.warning(w);
        }
        return Ok(());
    }
    let opened = input::open(&Location::File(path.to_path_buf()))?;
    if !opened.tar {
        bail!("{root}: not a directory or a tar archive (plain, gz, zst, xz)");
    }
    visit_tar(root, path, opened.reader, layout, v)
}

/// [`visit`] of a tar archive at `path` (`root` as given), read from `reader`.
fn visit_tar(
    root: &str,
    path: &Path,
    reader: Box<dyn std::io::BufRead>,
    layout: &Layout,
    v: &mut dyn Visitor,
) -> Result<()> {
    let mut archive = tar::Archive::new(input::TarTail::new(reader));
    let entries = archive
        .entries()
        .with_context(|| format!("{root}: cannot read tar archive"))?;
    let mut last = String::from("(start)");
    let mut read = 0usize;
    let mut seen = input::TarSeen::default();
    let mut backups = Vec::new();
    for entry in entries {
        let mut entry =
            entry.with_context(|| format!("{root}: corrupt tar archive after member {last}"))?;
        let (raw, sparse) = input::tar_member(&mut entry, root)?;
        let rel = raw.trim_start_matches("./").to_string();
        last = rel.clone();
        let kind = entry.header().entry_type();
        if kind.is_dir() || rel.is_empty() {
            continue;
        }
        if let Some(why) = not_read(&rel) {
            v.unmatched(format!("{rel} ({why})"));
            continue;
        }
        if seen.backup(root, &rel)? {
            backups.push(rel);
            continue;
        }
        let link = kind.is_hard_link() || kind.is_symlink();
        if !input::tar_regular(kind) && !link {
            v.unmatched(format!("{rel} (not a regular file)"));
            continue;
        }
        read += 1;
        // A link member: the bytes of the member it stands for.
        let linked = match load::tar_link_of(&entry, Some(path), &rel, &format!("{root}:{rel}"))? {
            Some(Err(why)) => {
                v.unmatched(format!("{rel} ({why})"));
                continue;
            }
            linked => linked.and_then(Result::ok),
        };
        if load::is_map_name(&rel) {
            let name = format!("{root}:{rel}");
            let bytes = match linked {
                Some(bytes) => bytes,
                None => {
                    let (data, _) = input::tar_data(&mut entry, &sparse);
                    let mut r = BufReader::with_capacity(BUF_SIZE, data);
                    format::read_bounded(&mut r, &name, "symbol map")?
                }
            };
            v.map(dir_of(&rel), MapFile::Bytes(name, bytes))?;
            continue;
        }
        match layout.matches(&rel) {
            Some((k, b)) if v.wants(k, b) => {
                let (kernel, bench) = (k.to_string(), b.to_string());
                let (mut stream, size) = input::tar_data(&mut entry, &sparse);
                let data = if let Some(bytes) = linked {
                    Data::Bytes(bytes)
                } else if size <= SMALL {
                    let mut bytes = Vec::with_capacity(size as usize);
                    stream
                        .read_to_end(&mut bytes)
                        .with_context(|| format!("{root}:{rel}: cannot read member"))?;
                    Data::Bytes(bytes)
                } else {
                    Data::Stream(&mut *stream)
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
    // (The rest of the stream read: a compressed archive's check verified.)
    let mut tail = archive.into_inner();
    tail.finish().with_context(|| input::tar_damaged(root))?;
    if !tail.ended() {
        v.warning(format!("{root}: {}", input::tar_cut_warning(read)));
    }
    if !backups.is_empty() {
        v.warning(input::backups_warning(Some(root), &backups));
    }
    Ok(())
}

/// Why a member's path is not read: absolute or climbing out, or hidden.
fn not_read(rel: &str) -> Option<&'static str> {
    // (Before the hidden check: `..` starts with a dot too.)
    if rel.starts_with('/') || rel.split('/').any(|c| c == "..") {
        Some("absolute, or with a .. component")
    } else if hidden(rel) {
        Some("hidden, not read")
    } else {
        None
    }
}

fn hidden(path: &str) -> bool {
    path.split('/').any(|c| c.starts_with('.') && c != ".")
}

/// The directory part of a relative path (`""` at the top).
pub fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The tree below `root` (walkdir, links not followed, hidden names passed
/// over), per directory: its maps, then its other files, each in name
/// order, then each subdirectory in name order.
fn walk(
    root: &Path,
    layout: &Layout,
    v: &mut dyn Visitor,
    skipped: &mut input::Skipped,
) -> Result<()> {
    let mut entries = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by(|a, b| visiting_order(a).cmp(&visiting_order(b)))
        .into_iter();
    while let Some(entry) = entries.next() {
        let entry = entry.map_err(|e| input::walk_error(root, e))?;
        if skipped.hidden(&entry) {
            if entry.file_type().is_dir() {
                entries.skip_current_dir();
            }
            continue;
        }
        let path = entry.path();
        let kind = input::entry_kind(path, entry.file_type());
        if entry.depth() == 0 || kind == input::EntryKind::Dir || skipped.note(path, kind) {
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        if load::is_map_name(&entry.file_name().to_string_lossy()) {
            v.map(dir_of(&rel), MapFile::Path(path.to_path_buf()))?;
            continue;
        }
        match layout.matches(&rel) {
            Some((k, b)) if v.wants(k, b) => v.member(Member {
                kernel: k.to_string(),
                bench: b.to_string(),
                data: Data::File(path.to_path_buf()),
                path: rel.clone(),
            })?,
            Some(_) => {}
            None => v.unmatched(rel),
        }
    }
    Ok(())
}

/// Within a directory: files before subdirectories (a link to one is not
/// one: it is not followed), symbol maps before the other files, then by
/// name.
fn visiting_order(e: &walkdir::DirEntry) -> (bool, bool, Cow<'_, str>) {
    let name = e.file_name().to_string_lossy();
    let dir = e.file_type().is_dir();
    (dir, dir || !load::is_map_name(&name), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk tells its visitor, in order.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl Visitor for Log {
        fn wants(&mut self, _: &str, _: &str) -> bool {
            true
        }
        fn map(&mut self, dir: &str, file: MapFile) -> Result<()> {
            let name = match file {
                MapFile::Path(p) => p.file_name().unwrap().to_string_lossy().into_owned(),
                MapFile::Bytes(name, _) => name,
            };
            self.0.push(format!("map {dir}: {name}"));
            Ok(())
        }
        fn member(&mut self, m: Member<'_>) -> Result<()> {
            self.0
                .push(format!("member {} {} {}", m.path, m.kernel, m.bench));
            Ok(())
        }
        fn unmatched(&mut self, path: String) {
            self.0.push(format!("unmatched {path}"));
        }
        fn warning(&mut self, text: String) {
            self.0.push(format!("warning {text}"));
        }
    }

    #[test]
    fn a_directory_gives_its_maps_then_files_then_subdirectories() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for f in [
            "zz.txt",
            "System.map-6.1",
            "a.txt",
            "k1/b2/run2.txt",
            "k1/b2/run1.txt",
            "k1/kallsyms",
            "k1/b1/run1.txt",
            "k1/b1/System.map",
            "k0/b/r.txt",
            ".hidden/x/y.txt",
            "k1/.dot.txt",
        ] {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        std::os::unix::fs::symlink(root.join("k1/b1"), root.join("k1/link")).unwrap();
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("k1/gone")).unwrap();
        std::os::unix::fs::symlink(root.join("a.txt"), root.join("k0/b/s.txt")).unwrap();
        let mut log = Log::default();
        visit(root.to_str().unwrap(), &Layout::default(), &mut log).unwrap();
        let r = root.display();
        assert_eq!(
            log.0,
            [
                "map : System.map-6.1".to_string(),
                "unmatched a.txt".into(),
                "unmatched zz.txt".into(),
                "member k0/b/r.txt k0 b".into(),
                "member k0/b/s.txt k0 b".into(),
                "map k1: kallsyms".into(),
                "map k1/b1: System.map".into(),
                "member k1/b1/run1.txt k1 b1".into(),
                "member k1/b2/run1.txt k1 b2".into(),
                "member k1/b2/run2.txt k1 b2".into(),
                format!("warning {r}: 1 symbolic link(s) to directories not followed: {r}/k1/link"),
                format!("warning {r}: 1 dangling symbolic link(s) skipped: {r}/k1/gone"),
                format!(
                    "warning {r}: 2 hidden file(s) and directories (.name) not read: \
                     {r}/.hidden, {r}/k1/.dot.txt"
                ),
            ]
        );
    }
}
