//! A results tree in a tar archive (plain or compressed), read in one pass
//! and in place, never extracted, with bounded memory.
//!
//! Input: the decompressed archive stream and the batch configuration.
//! Output: the members that match the layout, each already parsed where it
//! could be, the symbol maps by directory, and the paths passed over (not
//! matching the layout; absolute or with a `..` component, whose place in
//! the layout is ambiguous; not regular files). Memory holds parsed runs,
//! not member bytes: a small member (at most [`SMALL`] bytes as stored) is
//! read and parsed on the thread pool while the archive is read on, at
//! most [`IN_FLIGHT`] bytes at a time; a larger one is parsed from the
//! archive stream itself, under the parsers' own bounds (lines of at most
//! 4 MiB, binary formats at most 1 GiB, detection at most 16 MiB), so a
//! member claiming tens of gigabytes of zeros is read through, never held.
//! Only raw profiles that need a symbol map from their directory (perf.data,
//! /proc/profile images, without `--kallsyms`/`--map`) are held, bounded, until
//! the whole archive (and so every map) has been read.

use super::BatchConfig;
use super::{dir_of, hidden, Data, Member};
use crate::format;
use crate::input::BUF_SIZE;
use crate::load::{self, LoadOptions, MapFile};
use crate::profile::Profile;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Members stored in at most this many bytes are read whole and parsed on
/// the pool; larger ones are parsed from the stream.
const SMALL: u64 = 8 << 20;

/// At most this many bytes of small members wait for their parse at once;
/// past it the reading thread parses the member itself.
const IN_FLIGHT: usize = 64 << 20;

/// What reading an archive gave.
#[derive(Default)]
pub(super) struct Walked {
    pub members: Vec<Member>,
    pub maps: BTreeMap<String, Vec<MapFile>>,
    /// Paths that do not match the layout, or are not regular files.
    pub unmatched: Vec<String>,
    /// Absolute paths and paths with a `..` component: not read.
    pub dropped: Vec<String>,
    /// Members read (regular files and links), for the warning of an
    /// archive cut short.
    pub read: usize,
    /// The archive ends without its end-of-archive blocks.
    pub cut: bool,
    /// Editor backups and leftovers ([`crate::input::is_editor_backup`]).
    pub backups: Vec<String>,
}

/// One parsed member: its slot and result.
type Done = (usize, Result<std::result::Result<Profile, String>>);

/// Read every member of the archive (see the module comment).
pub(super) fn walk(config: &BatchConfig, reader: Box<dyn BufRead>) -> Result<Walked> {
    let opts = &crate::compare::reading(&config.config.load);
    let mut archive = tar::Archive::new(crate::input::TarTail::new(reader));
    let entries = archive
        .entries()
        .with_context(|| format!("{}: cannot read tar archive", config.root))?;
    let mut w = Walked::default();
    let root = crate::input::os_path(&config.root);
    let done: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    let in_flight = AtomicUsize::new(0);
    // In place: the reading stays on this thread (the archive is not Send).
    rayon::in_place_scope(|scope| -> Result<()> {
        let (done, in_flight) = (&done, &in_flight);
        let pool = Pool {
            scope,
            done,
            in_flight,
        };
        let mut last = String::from("(start)");
        let mut seen = crate::input::TarSeen::default();
        for entry in entries {
            let mut entry = entry.with_context(|| {
                format!("{}: corrupt tar archive after member {last}", config.root)
            })?;
            let (raw, sparse) = crate::input::tar_member(&mut entry, &config.root)?;
            let path = raw.trim_start_matches("./").to_string();
            last = path.clone();
            let kind = entry.header().entry_type();
            if kind.is_dir() {
                continue;
            }
            if path.starts_with('/') || path.split('/').any(|c| c == "..") {
                w.dropped.push(path);
                continue;
            }
            if path.is_empty() {
                continue;
            }
            if hidden(&path) {
                w.unmatched.push(format!("{path} (hidden, not read)"));
                continue;
            }
            if seen.backup(&config.root, &path)? {
                w.backups.push(path);
                continue;
            }
            let link = kind.is_hard_link() || kind.is_symlink();
            if !crate::input::tar_regular(kind) && !link {
                w.unmatched.push(format!("{path} (not a regular file)"));
                continue;
            }
            w.read += 1;
            // A link member: the bytes of the member it stands for.
            let origin = format!("{}:{path}", config.root);
            let linked = match load::tar_link_of(&entry, Some(&root), &path, &origin)? {
                Some(Err(why)) => {
                    w.unmatched.push(format!("{path} ({why})"));
                    continue;
                }
                linked => linked.and_then(Result::ok),
            };
            let (mut stream, size) = crate::input::tar_data(&mut entry, &sparse);
            if load::is_map_name(&path) {
                match linked {
                    Some(bytes) => add_map(&mut w, &mut &bytes[..], &path, &config.root)?,
                    None => add_map(&mut w, &mut stream, &path, &config.root)?,
                }
                continue;
            }
            let Some((kernel, bench)) = config.layout.matches(&path) else {
                w.unmatched.push(path);
                continue;
            };
            let (kernel, bench) = (kernel.to_string(), bench.to_string());
            let slot = w.members.len();
            let data = member_data(&mut *stream, size, linked, &path, slot, opts, &pool);
            w.members.push(Member {
                path,
                kernel,
                bench,
                data,
            });
        }
        Ok(())
    })?;
    // (The rest of the stream read: a compressed archive's check verified.)
    let mut tail = archive.into_inner();
    tail.finish()
        .with_context(|| crate::input::tar_damaged(&config.root))?;
    w.cut = !tail.ended();
    for (slot, r) in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        if let Some(m) = w.members.get_mut(slot) {
            m.data = Data::Loaded(Box::new(r));
        }
    }
    Ok(w)
}

/// Where a small member is parsed: a task of `scope`, its result put in
/// `done`, while at most [`IN_FLIGHT`] bytes wait.
struct Pool<'a, 's> {
    scope: &'a rayon::Scope<'s>,
    done: &'s Mutex<Vec<Done>>,
    in_flight: &'s AtomicUsize,
}

/// A member's data: a small one (or a link's bytes) read whole
/// ([`small`]), a large one parsed as it streams by ([`from_stream`]).
fn member_data<'s>(
    entry: &mut dyn Read,
    size: u64,
    linked: Option<Vec<u8>>,
    path: &str,
    slot: usize,
    opts: &'s LoadOptions,
    pool: &Pool<'_, 's>,
) -> Data {
    let size = linked.as_ref().map_or(size, |b| b.len() as u64);
    if size > SMALL && linked.is_none() {
        return from_stream(entry, path, opts);
    }
    let mut bytes = Vec::with_capacity(size as usize);
    let read = match linked {
        Some(b) => Ok(b),
        None => entry.read_to_end(&mut bytes).map(|_| bytes),
    };
    match read {
        Err(e) => Data::Loaded(Box::new(Err(
            anyhow::Error::new(e).context(format!("{path}: cannot read member"))
        ))),
        Ok(bytes) => small(bytes, path, slot, opts, pool),
    }
}

/// A small member read whole: parsed on the pool (or here, when too many
/// bytes wait already), kept when it needs a map from later in the
/// archive, or its result when it is not a profile.
fn small<'s>(
    bytes: Vec<u8>,
    path: &str,
    slot: usize,
    opts: &'s LoadOptions,
    pool: &Pool<'_, 's>,
) -> Data {
    match sniff(&bytes, path, opts) {
        Sniff::Done(r) => Data::Loaded(r),
        Sniff::NeedsMap => Data::Bytes(bytes),
        Sniff::Parse => {
            let n = bytes.len();
            if pool.in_flight.load(Ordering::Relaxed) + n <= IN_FLIGHT {
                pool.in_flight.fetch_add(n, Ordering::Relaxed);
                let (origin, done, in_flight) = (path.to_string(), pool.done, pool.in_flight);
                pool.scope.spawn(move |_| {
                    let r = load::load_stream(Box::new(&bytes[..]), &origin, opts);
                    in_flight.fetch_sub(n, Ordering::Relaxed);
                    let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
                    d.push((slot, r));
                });
                Data::Pending
            } else {
                Data::Loaded(Box::new(load::load_stream(
                    Box::new(&bytes[..]),
                    path,
                    opts,
                )))
            }
        }
    }
}

/// A symbol map member, read into memory for the profiles of its directory.
fn add_map(w: &mut Walked, entry: &mut impl Read, path: &str, root: &str) -> Result<()> {
    let name = format!("{root}:{path}");
    let mut r = BufReader::with_capacity(BUF_SIZE, entry);
    let bytes = format::read_bounded(&mut r, &name, "symbol map")?;
    w.maps
        .entry(dir_of(path).to_string())
        .or_default()
        .push(MapFile::Bytes(name, bytes));
    Ok(())
}

/// What to do with a small member read into memory.
enum Sniff {
    /// Not a profile, or unreadable: the result.
    Done(Box<Result<std::result::Result<Profile, String>>>),
    /// A raw profile whose map may come later in the archive: keep it.
    NeedsMap,
    /// Parse it.
    Parse,
}

fn sniff(bytes: &[u8], origin: &str, opts: &LoadOptions) -> Sniff {
    match load::sniff_stream(Box::new(bytes), origin, opts) {
        Err(e) => Sniff::Done(Box::new(Err(e))),
        Ok(Err(why)) => Sniff::Done(Box::new(Ok(Err(why)))),
        Ok(Ok(s)) if s.needs_beside_map(opts) => Sniff::NeedsMap,
        Ok(Ok(_)) => Sniff::Parse,
    }
}

/// A large member, parsed from the archive stream ([`load::from_stream`]).
fn from_stream(entry: &mut dyn Read, origin: &str, opts: &LoadOptions) -> Data {
    match load::from_stream(entry, origin, opts) {
        load::Streamed::Loaded(r) => Data::Loaded(r),
        load::Streamed::NeedsMap(bytes) => Data::Bytes(bytes),
    }
}
