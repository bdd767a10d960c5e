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
//! 4 MiB, binary formats at most 1 GiB, detection at most 1 MiB), so a
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
}

/// One parsed member: its slot and result.
type Done = (usize, Result<std::result::Result<Profile, String>>);

/// Read every member of the archive (see the module comment).
pub(super) fn walk(config: &BatchConfig, reader: Box<dyn BufRead>) -> Result<Walked> {
    let opts = &config.config.load;
    let mut archive = tar::Archive::new(reader);
    let entries = archive
        .entries()
        .with_context(|| format!("{}: cannot read tar archive", config.root))?;
    let mut w = Walked::default();
    let done: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    let in_flight = AtomicUsize::new(0);
    // In place: the reading stays on this thread (the archive is not Send).
    rayon::in_place_scope(|scope| -> Result<()> {
        let mut last = String::from("(start)");
        for entry in entries {
            let mut entry = entry.with_context(|| {
                format!("{}: corrupt tar archive after member {last}", config.root)
            })?;
            let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
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
            if path.is_empty() || hidden(&path) {
                continue;
            }
            if !kind.is_file() {
                w.unmatched.push(format!("{path} (not a regular file)"));
                continue;
            }
            if load::is_map_name(&path) {
                add_map(&mut w, &mut entry, &path, &config.root)?;
                continue;
            }
            let Some((kernel, bench)) = config.layout.matches(&path) else {
                w.unmatched.push(path);
                continue;
            };
            let (kernel, bench) = (kernel.to_string(), bench.to_string());
            let slot = w.members.len();
            let size = entry.size();
            let data = if size <= SMALL {
                let mut bytes = Vec::with_capacity(size as usize);
                match entry.read_to_end(&mut bytes) {
                    Err(e) => Data::Loaded(Box::new(Err(
                        anyhow::Error::new(e).context(format!("{path}: cannot read member"))
                    ))),
                    Ok(_) => match sniff(&bytes, &path, opts) {
                        Sniff::Done(r) => Data::Loaded(r),
                        Sniff::NeedsMap => Data::Bytes(bytes),
                        Sniff::Parse => {
                            let n = bytes.len();
                            if in_flight.load(Ordering::Relaxed) + n <= IN_FLIGHT {
                                in_flight.fetch_add(n, Ordering::Relaxed);
                                let (origin, done, in_flight) = (path.clone(), &done, &in_flight);
                                scope.spawn(move |_| {
                                    let r = load::load_stream(Box::new(&bytes[..]), &origin, opts);
                                    in_flight.fetch_sub(n, Ordering::Relaxed);
                                    let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
                                    d.push((slot, r));
                                });
                                Data::Pending
                            } else {
                                Data::Loaded(Box::new(load::load_stream(
                                    Box::new(&bytes[..]),
                                    &path,
                                    opts,
                                )))
                            }
                        }
                    },
                }
            } else {
                from_stream(&mut entry, &path, opts)
            };
            w.members.push(Member {
                path,
                kernel,
                bench,
                data,
            });
        }
        Ok(())
    })?;
    for (slot, r) in done.into_inner().unwrap_or_else(|e| e.into_inner()) {
        if let Some(m) = w.members.get_mut(slot) {
            m.data = Data::Loaded(Box::new(r));
        }
    }
    Ok(w)
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
