//! From the paths of one side to its runs: expands each path
//! ([`crate::input`]), detects each file's format from its first bytes (the
//! sniffed prefix is replayed into the parser), and parses, in parallel across
//! files (rayon) with results kept in path order. Files inside a directory or
//! archive that no parser recognises are skipped and named in a warning;
//! a file named on the command line that no parser recognises is an error.
//!
//! Formats that need a kernel symbol map (perf.data, raw `/proc/profile`
//! images) get it from, in order: their side's own map (`--old-kallsyms`,
//! `--new-map`, `--kallsyms-for SIDE=FILE`, …: [`LoadOptions::path_maps`]),
//! the map for every side (perf.data: `--kallsyms`, else `--map`; images:
//! `--map`, else `--kallsyms`), or a `System.map*` / `kallsyms*` file beside
//! them: in the same directory, inside a directory or archive as beside a
//! file named on the command line ([`crate::symmap::Beside`] chooses among
//! several); perf.data last falls back to `/proc/kallsyms` for a recording
//! of the running kernel. Such map files are not runs; a map is read only
//! when a profile needs it ([`maps`]). How each side is given its own map
//! ([`LoadOptions::path_advice`]) ends every map error.

use crate::format::{self, Detected, ParseOptions};
use crate::input::{self, Location, BUF_SIZE};
use crate::profile::{Format, Profile};
mod maps;

pub use crate::symmap::{Beside, MapFile};
use crate::symmap::{MapAdvice, SymbolMap};
use anyhow::{anyhow, bail, Context, Result};
use maps::{beside_file, needs_map, options_for, unused_map, Maps};
pub use maps::{is_map_name, maps_near};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How far detection reads before giving up: first 64 KiB, then twice as
/// much at a time while a parser still needs more, up to 1 MiB; past it
/// only while the first line has not ended, up to twice the longest line
/// a text parser reads (8 MiB): a first line longer than a megabyte is
/// detected as `-f` reads it. A first line that has not ended there is
/// judged on its first megabyte, as before.
const SNIFF_FIRST: usize = 64 << 10;
const SNIFF_LONG: usize = 1 << 20;
const SNIFF_MAX: usize = 2 * crate::text::MAX_LINE;

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `-f FORMAT`; `None` detects per file.
    pub format: Option<Format>,
    pub parse: ParseOptions,
    /// The map of each command-line path's side (`--old-kallsyms`,
    /// `--new-map`, `--kallsyms-for SIDE=FILE`, …) and the flag that gave it.
    pub path_maps: BTreeMap<String, (Arc<SymbolMap>, String)>,
    /// How each command-line path's side is given its own map (for errors);
    /// other paths take `parse.advice`.
    pub path_advice: BTreeMap<String, MapAdvice>,
}

/// The runs of one side, in order, with warnings about files passed over.
#[derive(Debug, Default)]
pub struct Loaded {
    pub runs: Vec<Profile>,
    pub warnings: Vec<String>,
}

/// What reading one member gave.
enum Outcome {
    Run(Box<Profile>),
    /// Not a profile (no parser recognised it), with the reason.
    Skipped(String),
    /// Something about the input as a whole (an archive cut short).
    Warning(String),
}

/// Load every run named by `paths` (one side).
pub fn load_side(paths: &[String], opts: &LoadOptions) -> Result<Loaded> {
    let mut locations = Vec::new();
    let mut walk_warnings = Vec::new();
    let mut dirs_seen = BTreeMap::new();
    for path in paths {
        let input::Expanded {
            locations: expanded,
            from_dir,
            warnings,
        } = input::expand(path)?;
        walk_warnings.extend(warnings);
        let explicit = opts.path_maps.get(path).cloned();
        let advice = opts.path_advice.get(path).cloned();
        let mut beside: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
        if from_dir {
            for loc in &expanded {
                if let Location::File(p) = loc {
                    if is_map_name(&p.to_string_lossy()) {
                        let dir = p.parent().unwrap_or(Path::new("")).to_path_buf();
                        beside.entry(dir).or_default().push(p.clone());
                    }
                }
            }
        }
        let beside: BTreeMap<PathBuf, Arc<Beside>> = beside
            .into_iter()
            .map(|(dir, files)| {
                let files = files.into_iter().map(MapFile::Path).collect();
                (dir, Arc::new(Beside::new(files)))
            })
            .collect();
        // A file named on the command line: the maps in its directory.
        let named = (!from_dir)
            .then(|| beside_file(path, &mut dirs_seen))
            .flatten();
        for loc in expanded {
            let near = match &loc {
                Location::File(p) if from_dir => {
                    if is_map_name(&p.to_string_lossy()) {
                        continue;
                    }
                    p.parent().and_then(|d| beside.get(d)).cloned()
                }
                _ => named.clone(),
            };
            let maps = Maps {
                explicit: explicit.clone(),
                beside: near,
                advice: advice.clone(),
            };
            locations.push((loc, from_dir, maps));
        }
    }
    let results: Vec<Result<Vec<Outcome>>> = locations
        .par_iter()
        .map(|(loc, from_dir, maps)| load_location(loc, *from_dir, maps, opts))
        .collect();
    let mut loaded = Loaded {
        warnings: walk_warnings,
        ..Loaded::default()
    };
    let mut skipped = Vec::new();
    for r in results {
        for outcome in r? {
            match outcome {
                Outcome::Run(p) => loaded.runs.push(*p),
                Outcome::Skipped(why) => skipped.push(why),
                Outcome::Warning(w) => loaded.warnings.push(w),
            }
        }
    }
    loaded
        .warnings
        .extend(unused_map(paths, opts, &loaded.runs));
    if !skipped.is_empty() {
        loaded.warnings.push(format!(
            "skipped {} file(s) that are not profiles: {}",
            skipped.len(),
            skipped.join("; ")
        ));
    }
    if loaded.runs.is_empty() {
        bail!(
            "{}: no profiles found{}",
            paths.join(" "),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(" ({})", skipped.join("; "))
            }
        );
    }
    Ok(loaded)
}

fn load_location(
    loc: &Location,
    from_dir: bool,
    maps: &Maps,
    opts: &LoadOptions,
) -> Result<Vec<Outcome>> {
    let opened = input::open(loc)?;
    if opened.tar {
        let path = match loc {
            Location::File(p) => Some(p.as_path()),
            Location::Stdin => None,
        };
        return load_tar(opened.reader, &opened.name, path, maps, opts);
    }
    // A plain regular file in a format read in blocks is mapped, not copied.
    let plain = match (loc, opened.compression) {
        (Location::File(path), input::Compression::None) => Some(path.as_path()),
        _ => None,
    };
    let trailing = opened.trailing.clone();
    match parse_reader(opened.reader, &opened.name, plain, maps, opts)? {
        Outcome::Skipped(why) if !from_dir => Err(anyhow!(why)),
        Outcome::Run(mut p) if trailing.get() > 0 => {
            p.warnings.push(format!(
                "{}: {} of trailing garbage after the gzip data, ignored (as gzip -d does)",
                opened.name,
                crate::text::plural(trailing.get(), "byte")
            ));
            Ok(vec![Outcome::Run(p)])
        }
        outcome => Ok(vec![outcome]),
    }
}

/// Every regular member of a tar archive is one run, read in place (never
/// extracted); a hard or symbolic link member is the member it links to
/// ([`tar_link_bytes`]). Other members that are not regular files are
/// named in a warning, and so is an archive cut short at a member boundary.
/// `System.map*` / `kallsyms*` members are maps for the profiles in their
/// directory (the maps beside the archive for profiles of a directory
/// without any); a profile that needs one before it appears is kept in
/// memory and parsed at the end.
fn load_tar(
    reader: Box<dyn BufRead>,
    name: &str,
    path: Option<&Path>,
    maps: &Maps,
    opts: &LoadOptions,
) -> Result<Vec<Outcome>> {
    let mut archive = tar::Archive::new(input::TarTail::new(reader));
    let read = read_tar_members(&mut archive, (name, path, maps, opts));
    // The rest of the stream read, so that a compressed archive's check
    // is verified; a damaged stream also explains a member that did not
    // parse (a flipped byte makes any text malformed), so it is said first.
    let mut tail = archive.into_inner();
    if let Err(e) = tail.finish() {
        let first = match &read {
            Err(first) => format!(" (what it gave: {first:#})"),
            Ok(_) => String::new(),
        };
        return Err(anyhow::Error::new(e).context(format!("{}{first}", input::tar_damaged(name))));
    }
    let TarMembers {
        mut out,
        tar_maps,
        deferred,
        members,
    } = read?;
    if !tail.ended() {
        out.push(Some(Outcome::Warning(format!(
            "{name}: {}",
            input::tar_cut_warning(members)
        ))));
    }
    let tar_maps: BTreeMap<String, Arc<Beside>> = tar_maps
        .into_iter()
        .map(|(dir, files)| (dir, Arc::new(Beside::new(files))))
        .collect();
    for (slot, origin, dir, format, bytes) in deferred {
        let here = Maps {
            beside: tar_maps.get(&dir).cloned().or_else(|| maps.beside.clone()),
            ..maps.clone()
        };
        let parse = options_for(format, &origin, opts, &here)?;
        let profile = format::parse(format, &mut &bytes[..], &origin, &parse)?;
        out[slot] = Some(Outcome::Run(Box::new(profile)));
    }
    Ok(out.into_iter().flatten().collect())
}

/// A member held until the archive's maps are read: its slot, origin,
/// directory, format and bytes.
type Deferred = (usize, String, String, Format, Vec<u8>);

/// What [`load_tar`]'s pass over the members found: runs in member order
/// (a deferred one as an empty slot), maps by directory, the members held
/// until those maps are read, and the count of members read.
#[derive(Default)]
struct TarMembers {
    out: Vec<Option<Outcome>>,
    tar_maps: BTreeMap<String, Vec<MapFile>>,
    deferred: Vec<Deferred>,
    members: usize,
}

/// [`load_tar`]'s pass over the members.
fn read_tar_members<R: io::Read>(
    archive: &mut tar::Archive<R>,
    (name, path, maps, opts): (&str, Option<&Path>, &Maps, &LoadOptions),
) -> Result<TarMembers> {
    let mut found = TarMembers::default();
    let TarMembers {
        out,
        tar_maps,
        deferred,
        members,
    } = &mut found;
    let entries = archive
        .entries()
        .with_context(|| format!("{name}: cannot read tar archive"))?;
    let mut seen = input::TarSeen::default();
    // The member before, and its declared size: the archive's end inside
    // it shows as an error moving past it.
    let mut last: Option<(String, u64)> = None;
    for entry in entries {
        let mut entry = entry.map_err(|e| entry_error(name, last.as_ref(), e))?;
        let (member, sparse) = input::tar_member(&mut entry, name)?;
        last = Some((member.clone(), entry.header().size().unwrap_or(0)));
        let origin = format!("{name}:{member}");
        if let Some(why) = passed_over(&member, entry.header().entry_type(), &origin) {
            out.extend(why.map(|w| Some(Outcome::Skipped(w))));
            continue;
        }
        seen.check(name, &member)?;
        *members += 1;
        let dir = member.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        // The bytes the member's header declares (a pax sparse member: its
        // real size) and those read of it: an archive cut inside a member
        // ends its data early without an error.
        let header = entry.header().size().unwrap_or(0);
        let declared = sparse.as_ref().map_or(header, |s| s.size);
        let got = std::rc::Rc::new(std::cell::Cell::new(0u64));
        let linked = tar_link_of(&entry, path, &member, &origin)?;
        let inner = input::tar_data(&mut entry, &sparse).0;
        let counted = Counted {
            inner,
            got: got.clone(),
        };
        let mut raw: Box<dyn BufRead + '_> = match linked {
            Some(Ok(bytes)) => Box::new(io::Cursor::new(bytes)),
            Some(Err(why)) => {
                out.push(Some(Outcome::Skipped(why)));
                continue;
            }
            None => Box::new(BufReader::with_capacity(BUF_SIZE, counted)),
        };
        if is_map_name(&member) {
            let bytes = format::read_bounded(&mut *raw, &origin, "symbol map")?;
            tar_maps
                .entry(dir)
                .or_default()
                .push(MapFile::Bytes(origin, bytes));
            continue;
        }
        let (_, mut reader) =
            input::decompress(raw).with_context(|| format!("{origin}: cannot read"))?;
        let head = input::fill_at_least(&mut reader, 512)
            .with_context(|| format!("{origin}: cannot read"))?;
        if let Some(kind) = archive_kind(&head) {
            bail!("{name}: {member} is an archive inside an archive ({kind}): unpack it");
        }
        let reader: Box<dyn BufRead + '_> = Box::new(io::Cursor::new(head).chain(reader));
        let (format, mut reader) = match detect(reader, &origin, opts)? {
            Ok(found) => found,
            Err(why) => {
                out.push(Some(Outcome::Skipped(why)));
                continue;
            }
        };
        let has_map =
            maps.explicit.is_some() || opts.parse.kallsyms.is_some() || opts.parse.map.is_some();
        if needs_map(format) && !has_map {
            // Held until the archive's maps are read, bounded as any
            // binary stream.
            let bytes = format::read_bounded(&mut *reader, &origin, format.name())?;
            deferred.push((out.len(), origin, dir, format, bytes));
            out.push(None);
            continue;
        }
        let parse = options_for(format, &origin, opts, maps)?;
        let parsed = format::parse(format, &mut *reader, &origin, &parse);
        // What the parser left unread, so that a cut is told from an error.
        let _ = io::copy(&mut reader, &mut io::sink());
        let short = got.get() < declared;
        let profile = match parsed {
            Ok(p) if !short => p,
            Err(e) if !short => return Err(e.into()),
            parsed => {
                let e = parsed.err().map(anyhow::Error::from);
                return Err(cut_inside(name, &member, (declared, got.get()), e));
            }
        };
        out.push(Some(Outcome::Run(Box::new(profile))));
    }
    Ok(found)
}

/// The error moving to the next member: the archive's end inside the
/// member before (`last`, with its declared size) is said so.
fn entry_error(name: &str, last: Option<&(String, u64)>, e: io::Error) -> anyhow::Error {
    match last {
        Some((member, declared)) if e.to_string().contains("unexpected EOF") => anyhow!(
            "{name}: the archive is cut short inside member {member}: it ends before the \
             {declared} bytes its header declares (and their padding) are there (a \
             truncated download or copy?); get the whole archive again ({e})"
        ),
        _ => anyhow::Error::new(e).context(format!("{name}: corrupt tar archive")),
    }
}

/// A reader that counts the bytes it gives.
struct Counted<R> {
    inner: R,
    got: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.got.set(self.got.get() + n as u64);
        Ok(n)
    }
}

/// The error for tar member `member` of archive `name` when fewer bytes
/// than its header declares were there, `(declared, got)` (the archive cut
/// inside it): what was read of it is a part, whatever its parser said
/// (`parsed`: an error that blames the part's last line, or none).
fn cut_inside(
    name: &str,
    member: &str,
    (declared, got): (u64, u64),
    parsed: Option<anyhow::Error>,
) -> anyhow::Error {
    anyhow!(
        "{name}: the archive is cut short inside member {member}: its header declares {declared} \
         bytes and only {got} are there (a truncated download or copy?); get the whole archive \
         again{}",
        parsed.map_or(String::new(), |e| format!(" (reading the part gave: {e})"))
    )
}

/// The kind of archive a decompressed prefix starts: a tar (`ustar` magic
/// at offset 257) or a zip (a local file header, or the end record of an
/// empty zip); `None` for anything else.
fn archive_kind(head: &[u8]) -> Option<&'static str> {
    if input::is_tar(head) {
        Some("tar")
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some("zip")
    } else {
        None
    }
}

/// Why a tar member is not read: `Some(None)` for what is passed over
/// without a word (a directory), `Some(Some(why))` for what is said (not a
/// regular file or link, a hidden name, an editor backup); `None` to read it.
fn passed_over(member: &str, kind: tar::EntryType, origin: &str) -> Option<Option<String>> {
    let base = member.rsplit('/').next().unwrap_or(member);
    if kind.is_dir() {
        Some(None)
    } else if !(input::tar_regular(kind) || kind.is_hard_link() || kind.is_symlink()) {
        Some(Some(format!("{origin}: not a regular file")))
    } else if base.starts_with('.') {
        Some(Some(format!("{origin}: a hidden file, not read")))
    } else if input::is_editor_backup(base) {
        Some(Some(format!(
            "{origin}: an editor backup or leftover, not a run"
        )))
    } else {
        None
    }
}

/// For a tar link member (hard or symbolic), the bytes of the member it
/// stands for or why there are none ([`tar_link_bytes`]); `None` for any
/// other member.
pub fn tar_link_of<R: Read>(
    entry: &tar::Entry<'_, R>,
    archive: Option<&Path>,
    member: &str,
    origin: &str,
) -> Result<Option<std::result::Result<Vec<u8>, String>>> {
    let kind = entry.header().entry_type();
    if !(kind.is_hard_link() || kind.is_symlink()) {
        return Ok(None);
    }
    let target = entry.link_name_bytes();
    tar_link_bytes(
        archive,
        member,
        kind.is_hard_link(),
        target.as_deref(),
        origin,
    )
    .map(Some)
}

/// The bytes of the member a tar link member stands for
/// ([`input::tar_link_target`]), read from a second pass over the archive
/// at `archive` (bounded as any binary stream), or why there are none: the
/// link leads outside the archive or to no regular member, or the archive
/// is read from stdin and cannot be read twice.
pub fn tar_link_bytes(
    archive: Option<&Path>,
    member: &str,
    hard: bool,
    link: Option<&[u8]>,
    origin: &str,
) -> Result<std::result::Result<Vec<u8>, String>> {
    let what = if hard { "hard link" } else { "symbolic link" };
    let target = match input::tar_link_target(member, hard, link) {
        Ok(t) => t,
        Err(why) => return Ok(Err(format!("{origin}: {what}: {why}"))),
    };
    let Some(path) = archive else {
        return Ok(Err(format!(
            "{origin}: a {what} to {target}: not read in an archive on stdin \
             (give the archive as a file)"
        )));
    };
    let read = input::with_tar_member(path, &target, |r, _| {
        let mut r = BufReader::with_capacity(BUF_SIZE, r);
        format::read_bounded(&mut r, origin, "archive member")
    })?;
    match read {
        Some(bytes) => Ok(Ok(bytes?)),
        None => Ok(Err(format!(
            "{origin}: a {what} to {target}, which is no regular member of the archive"
        ))),
    }
}

/// Detect the format of one decompressed stream (unless forced): the format
/// and the reader with the sniffed prefix replayed, or why it is not a profile.
#[allow(clippy::type_complexity)]
fn detect<'a>(
    reader: Box<dyn BufRead + 'a>,
    origin: &str,
    opts: &LoadOptions,
) -> Result<std::result::Result<(Format, Box<dyn BufRead + 'a>), String>> {
    let (_, mut reader) =
        input::skip_bom(reader).with_context(|| format!("{origin}: cannot read"))?;
    // Never an archive read as text, not even under -f.
    let head =
        input::fill_at_least(&mut reader, 512).with_context(|| format!("{origin}: cannot read"))?;
    let kind = archive_kind(&head);
    let foreign = input::unread_encoding(&head);
    reader = Box::new(io::Cursor::new(head).chain(reader));
    if let Some(kind) = kind {
        return Ok(Err(format!(
            "{origin}: a {kind} archive, not a profile: unpack it"
        )));
    }
    if let Some(what) = foreign {
        return Ok(Err(format!("{origin}: {what}")));
    }
    let format = match opts.format {
        Some(f) => f,
        None => {
            let mut head = input::fill_at_least(&mut reader, SNIFF_FIRST)
                .with_context(|| format!("{origin}: cannot read"))?;
            if head.is_empty() {
                return Ok(Err(format!("{origin}: empty file")));
            }
            let mut found = format::detect(&head, head.len() < SNIFF_FIRST);
            while found == Detected::NeedMore {
                let want = head
                    .len()
                    .max(SNIFF_FIRST)
                    .min(SNIFF_MAX.saturating_sub(head.len()));
                let more = input::fill_at_least(&mut reader, want)
                    .with_context(|| format!("{origin}: cannot read"))?;
                let at_end = more.len() < want || head.len() + more.len() >= SNIFF_MAX;
                let was_open = !head.contains(&b'\n');
                head.extend_from_slice(&more);
                let open = was_open && !more.contains(&b'\n');
                let long = head.len() >= SNIFF_LONG;
                // Past 1 MiB only a first line that has not ended is read
                // on; once it has, detection gets one more round.
                if long && open && !at_end {
                    continue;
                }
                // At the limit an undecided prefix counts as no match.
                let judged = if open {
                    &head[..head.len().min(SNIFF_LONG)]
                } else {
                    &head[..]
                };
                found = format::detect(judged, at_end || (long && !was_open));
                if at_end {
                    break;
                }
            }
            let replay = io::Cursor::new(head);
            let chained: Box<dyn BufRead + 'a> = Box::new(replay.chain(reader));
            reader = chained;
            match found {
                Detected::Format(f) => f,
                _ => {
                    let tried: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                    return Ok(Err(format!(
                        "{origin}: not a recognised profile (tried {}); use -f to force a format",
                        tried.join(", ")
                    )));
                }
            }
        }
    };
    Ok(Ok((format, reader)))
}

/// Detect (unless forced) and parse one decompressed stream; `plain` is
/// the path of the stream when it is an uncompressed file.
fn parse_reader<'a>(
    reader: Box<dyn BufRead + 'a>,
    origin: &str,
    plain: Option<&Path>,
    maps: &Maps,
    opts: &LoadOptions,
) -> Result<Outcome> {
    let (format, mut reader) = match detect(reader, origin, opts)? {
        Ok(found) => found,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let parse = options_for(format, origin, opts, maps)?;
    // (A file that starts with a byte-order mark is read as a stream, which
    // drops it, not mapped.) Opened without blocking: a FIFO named as a run
    // has been read to its end already, and opening it again would wait
    // for a writer that never comes; it is then read as the stream it is.
    let file = match plain {
        Some(path) if format::maps_files(format) => open_nonblocking(path)
            .ok()
            .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
            .filter(|f| !starts_with_bom(f)),
        _ => None,
    };
    let profile = match file {
        Some(file) => {
            drop(reader);
            format::parse_file(format, &file, origin, &parse)?
        }
        None => format::parse(format, &mut *reader, origin, &parse)?,
    };
    Ok(Outcome::Run(Box::new(profile)))
}

/// Open `path` for reading with `O_NONBLOCK`, which a regular file ignores
/// and which keeps the open of a FIFO from waiting for a writer.
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

fn starts_with_bom(f: &std::fs::File) -> bool {
    let mut head = [0u8; 3];
    std::os::unix::fs::FileExt::read_exact_at(f, &mut head, 0).is_ok() && head == input::BOM
}

/// One stream that is meant to be one run (a file of a results tree, a
/// member of an archive): undo its compression, detect and parse it.
/// `Ok(Err(reason))` when it is not a profile (empty, unrecognised);
/// `Err` when it cannot be read or is malformed.
pub fn load_stream<'a>(
    raw: Box<dyn BufRead + 'a>,
    origin: &str,
    opts: &LoadOptions,
) -> Result<std::result::Result<Profile, String>> {
    load_stream_beside(raw, origin, opts, None)
}

/// [`load_stream`], with the symbol maps found beside the stream (used,
/// as for a directory, when neither `--map` nor `--kallsyms` is given).
pub fn load_stream_beside<'a>(
    raw: Box<dyn BufRead + 'a>,
    origin: &str,
    opts: &LoadOptions,
    beside: Option<Arc<Beside>>,
) -> Result<std::result::Result<Profile, String>> {
    let (_, reader) = input::decompress(raw).with_context(|| format!("{origin}: cannot read"))?;
    let maps = Maps {
        beside,
        ..Maps::default()
    };
    Ok(match parse_reader(reader, origin, None, &maps, opts)? {
        Outcome::Run(p) => Ok(*p),
        Outcome::Skipped(why) | Outcome::Warning(why) => Err(why),
    })
}

/// A large archive member read as it streams by ([`from_stream`]).
pub enum Streamed {
    /// Parsed (or found not to be a profile, or unreadable).
    Loaded(Box<Result<std::result::Result<Profile, String>>>),
    /// A raw profile that needs a symbol map from its directory, which may
    /// come later in the archive: its decompressed bytes, bounded.
    NeedsMap(Vec<u8>),
}

/// A large archive member, parsed from the archive stream as it is read
/// (never held whole), or, when it needs a symbol map from its directory,
/// its decompressed bytes kept, under the parsers' bound.
pub fn from_stream(entry: &mut dyn std::io::Read, origin: &str, opts: &LoadOptions) -> Streamed {
    let raw = Box::new(std::io::BufReader::with_capacity(input::BUF_SIZE, entry));
    Streamed::Loaded(Box::new(match sniff_stream(raw, origin, opts) {
        Err(e) => Err(e),
        Ok(Err(why)) => Ok(Err(why)),
        Ok(Ok(s)) if s.needs_beside_map(opts) => match s.into_bytes(origin) {
            Ok(bytes) => return Streamed::NeedsMap(bytes),
            Err(e) => Err(e),
        },
        Ok(Ok(s)) => s.parse(origin, opts, None).map(Ok),
    }))
}

/// A stream whose format is known ([`sniff_stream`]), not yet parsed.
pub struct Sniffed<'a> {
    pub format: Format,
    reader: Box<dyn BufRead + 'a>,
}

/// Undo a stream's compression and detect its format (unless forced), for
/// a caller that decides how to parse it: `Ok(Err(reason))` when it is not
/// a profile.
pub fn sniff_stream<'a>(
    raw: Box<dyn BufRead + 'a>,
    origin: &str,
    opts: &LoadOptions,
) -> Result<std::result::Result<Sniffed<'a>, String>> {
    let (_, reader) = input::decompress(raw).with_context(|| format!("{origin}: cannot read"))?;
    Ok(detect(reader, origin, opts)?.map(|(format, reader)| Sniffed { format, reader }))
}

impl Sniffed<'_> {
    /// Whether parsing needs a symbol map that only a file beside the
    /// stream can give (neither `--map` nor `--kallsyms` was given).
    pub fn needs_beside_map(&self, opts: &LoadOptions) -> bool {
        needs_map(self.format) && opts.parse.kallsyms.is_none() && opts.parse.map.is_none()
    }

    /// The decompressed bytes, at most [`format::MAX_IN_MEMORY`], to parse
    /// later (with [`load_stream_beside`]).
    pub fn into_bytes(mut self, origin: &str) -> Result<Vec<u8>> {
        Ok(format::read_bounded(
            &mut *self.reader,
            origin,
            self.format.name(),
        )?)
    }

    /// Parse, with the maps `beside` the stream.
    pub fn parse(
        mut self,
        origin: &str,
        opts: &LoadOptions,
        beside: Option<Arc<Beside>>,
    ) -> Result<Profile> {
        let maps = Maps {
            beside,
            ..Maps::default()
        };
        let parse = options_for(self.format, origin, opts, &maps)?;
        Ok(format::parse(
            self.format,
            &mut *self.reader,
            origin,
            &parse,
        )?)
    }
}
