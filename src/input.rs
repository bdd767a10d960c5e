//! Opening what the user names: files, `-` (stdin), directories (every
//! regular file below, in sorted path order, links to directories not
//! followed: [`walk_dir`]), tar archives (every regular member, and link
//! members as the member they link to: [`tar_link_target`]), each possibly compressed (gzip, zstd, xz, bzip2: detected by magic
//! bytes, never by name). Produces [`Source`]s: a name for messages and a
//! buffered reader over the decompressed bytes.

use anyhow::{bail, Context, Result};
use std::cell::Cell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub mod guarded;
pub mod partial;
pub mod sparse;
pub mod target;

/// Buffer size for readers: large, so parsers see few refills.
pub const BUF_SIZE: usize = 1 << 20;

/// Compression formats recognised by their magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Xz,
    Bzip2,
}

impl Compression {
    /// gzip `1f 8b`, zstd `28 b5 2f fd`, xz `fd 37 7a 58 5a 00`, bzip2 `42 5a 68` (`BZh` + a block-size digit).
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]) {
            Compression::Xz
        } else if head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }
}

/// What a prefix is when it is a file diffprofile cannot read as it is
/// but the user can convert (neither detection nor `-f` can help): an lz4
/// frame (lz4 is not one of the decompressors), UTF-16 text (with a byte
/// order mark, or ASCII with every other byte zero: an editor's or
/// PowerShell's "Unicode" save). Says what to run. For profiles, and for
/// every other file read as text (symbol maps).
pub fn unread_encoding(head: &[u8]) -> Option<String> {
    if head.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
        return Some(
            "an lz4-compressed file, which diffprofile does not decompress (it reads gzip, \
             zstd, xz and bzip2): decompress it first (lz4 -d FILE), or recompress it with \
             zstd or gzip"
                .into(),
        );
    }
    let pairs: Vec<&[u8]> = head.chunks_exact(2).take(256).collect();
    let ascii = |c: u8| c == b'\t' || c == b'\n' || c == b'\r' || (0x20..0x7f).contains(&c);
    let share = |f: &dyn Fn(&[u8]) -> bool| pairs.iter().filter(|p| f(p)).count();
    let bom = head.starts_with(&[0xff, 0xfe]) || head.starts_with(&[0xfe, 0xff]);
    let le = share(&|p| ascii(p[0]) && p[1] == 0);
    let be = share(&|p| p[0] == 0 && ascii(p[1]));
    let enough = pairs.len() >= 8 && 10 * le.max(be) >= 9 * (pairs.len() - usize::from(bom));
    (enough || (bom && pairs.len() >= 2 && (le > 0 || be > 0))).then(|| {
        let from = if be > le { "UTF-16BE" } else { "UTF-16LE" };
        format!(
            "{from} text, which diffprofile does not read (profiles are UTF-8 or ASCII, as perf \
             and readprofile print them): convert it first (iconv -f {from} -t UTF-8 FILE > \
             FILE.txt)"
        )
    })
}

impl Compression {
    fn name(self) -> &'static str {
        match self {
            Compression::None => "uncompressed data",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// Wrap `reader` in the decoder its first bytes call for (only one layer:
/// a compressed tar is decompressed here and recognised as tar afterwards).
pub fn decompress<'a>(
    reader: Box<dyn BufRead + 'a>,
) -> io::Result<(Compression, Box<dyn BufRead + 'a>)> {
    decompress_noting(reader, Rc::default())
}

/// [`decompress`], setting `trailing` to the number of bytes of garbage
/// found after the last gzip member when the stream has been read to its
/// end (read past, as `gzip -d` does with a warning; zeros after it, a
/// tape's padding, are accepted without one). Data still compressed
/// after the layer undone (a gzip of a gzip) is an error that says so.
pub fn decompress_noting<'a>(
    mut reader: Box<dyn BufRead + 'a>,
    trailing: Rc<Cell<u64>>,
) -> io::Result<(Compression, Box<dyn BufRead + 'a>)> {
    let head = reader.fill_buf()?;
    let kind = Compression::sniff(head);
    let named = |inner: Box<dyn Read + 'a>, what| -> Box<dyn BufRead + 'a> {
        Box::new(BufReader::with_capacity(BUF_SIZE, Named { inner, what }))
    };
    let mut out: Box<dyn BufRead + 'a> = match kind {
        Compression::None => reader,
        Compression::Gzip => named(
            Box::new(GzMembers {
                dec: Some(flate2::bufread::GzDecoder::new(reader)),
                trailing,
            }),
            "gzip",
        ),
        Compression::Zstd => named(
            Box::new(zstd::stream::read::Decoder::with_buffer(reader)?),
            "zstd",
        ),
        Compression::Xz => named(
            Box::new(xz2::bufread::XzDecoder::new_multi_decoder(reader)),
            "xz",
        ),
        Compression::Bzip2 => named(
            Box::new(bzip2::bufread::MultiBzDecoder::new(reader)),
            "bzip2",
        ),
    };
    if kind != Compression::None {
        let inner = Compression::sniff(out.fill_buf()?);
        if inner != Compression::None {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "still compressed after one layer: {} inside {} (decompress it once \
                     more first: diffprofile undoes one layer)",
                    inner.name(),
                    kind.name()
                ),
            ));
        }
    }
    Ok((kind, out))
}

/// The members of a gzip stream one after the other, as `gzip -d` reads
/// them: after the last, zero bytes are padding and other bytes are
/// garbage, counted in `trailing` and not read as data.
struct GzMembers<'a> {
    dec: Option<flate2::bufread::GzDecoder<Box<dyn BufRead + 'a>>>,
    trailing: Rc<Cell<u64>>,
}

impl Read for GzMembers<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(dec) = &mut self.dec else {
                return Ok(0);
            };
            let n = dec.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(mut inner) = self.dec.take().map(|d| d.into_inner()) else {
                return Ok(0);
            };
            let rest = inner.fill_buf()?;
            if rest.starts_with(&[0x1f, 0x8b]) {
                self.dec = Some(flate2::bufread::GzDecoder::new(inner));
                continue;
            }
            let (mut count, mut garbage) = (0u64, false);
            loop {
                let rest = inner.fill_buf()?;
                if rest.is_empty() {
                    break;
                }
                garbage |= rest.iter().any(|&b| b != 0);
                count += rest.len() as u64;
                let len = rest.len();
                inner.consume(len);
            }
            if garbage {
                self.trailing.set(count);
            }
            return Ok(0);
        }
    }
}

/// A decoder whose errors say what is wrong in words, `truncated gzip
/// stream` or `corrupt zstd stream (…)`, instead of each decoder's own
/// phrase (`incomplete deflate stream`, `premature eof`, …).
struct Named<'a> {
    inner: Box<dyn Read + 'a>,
    what: &'static str,
}

impl Read for Named<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| name_error(e, self.what))
    }
}

/// A decoder's error in words; errors of the reader below it (a failing
/// disk) pass through.
fn name_error(e: io::Error, what: &str) -> io::Error {
    use io::ErrorKind::{InvalidData, InvalidInput, Other, UnexpectedEof};
    if !matches!(e.kind(), UnexpectedEof | InvalidInput | InvalidData | Other) {
        return e;
    }
    let msg = e.to_string();
    // (flate2 starts its own words with what we say: said once.)
    let said = format!("corrupt {what} stream ");
    let msg = msg.strip_prefix(&said).unwrap_or(&msg).to_string();
    let ends = ["incomplete", "premature", "EOF", "eof", "unexpected end"];
    if e.kind() == UnexpectedEof || ends.iter().any(|m| msg.contains(m)) {
        io::Error::new(UnexpectedEof, format!("truncated {what} stream"))
    } else {
        io::Error::new(InvalidData, format!("corrupt {what} stream ({msg})"))
    }
}

/// True when a (decompressed) prefix is a tar archive: `ustar` magic at offset 257.
pub fn is_tar(head: &[u8]) -> bool {
    head.len() >= 262 && &head[257..262] == b"ustar"
}

/// A tar archive's reader that remembers the last block it gave the tar
/// reader: an archive that ends properly ends with a block of zeros (the
/// end-of-archive marker); one cut at a member boundary just stops, which
/// the tar reader takes as the end. [`TarTail::ended`] tells them apart.
pub struct TarTail<R> {
    inner: R,
    /// The last bytes read (at most one block).
    tail: Vec<u8>,
}

/// A tar block.
const TAR_BLOCK: usize = 512;

impl<R: Read> TarTail<R> {
    pub fn new(inner: R) -> Self {
        TarTail {
            inner,
            tail: Vec::with_capacity(2 * TAR_BLOCK),
        }
    }

    /// Whether the bytes read end with a zero block (the end-of-archive
    /// marker the tar reader stops at).
    pub fn ended(&self) -> bool {
        self.tail.len() == TAR_BLOCK && self.tail.iter().all(|&b| b == 0)
    }

    /// Read what follows the end-of-archive blocks to the end of the
    /// stream, so that a compressed archive's own check (gzip's CRC, the
    /// xz, zstd and bzip2 checks) is verified: the tar reader stops before
    /// the compressed stream ends, and a damaged byte inside a member (a
    /// count changed) would otherwise be read without a word.
    pub fn finish(&mut self) -> io::Result<()> {
        io::copy(&mut self.inner, &mut io::sink()).map(|_| ())
    }
}

/// A damaged archive's message: nothing read from it is trusted.
pub fn tar_damaged(name: &str) -> String {
    format!("{name}: cannot read: the archive is damaged, none of its runs can be trusted")
}

impl<R: Read> Read for TarTail<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        if n >= TAR_BLOCK {
            self.tail.clear();
            self.tail.extend_from_slice(&got[n - TAR_BLOCK..]);
        } else {
            self.tail.extend_from_slice(got);
            let extra = self.tail.len().saturating_sub(TAR_BLOCK);
            self.tail.drain(..extra);
        }
        Ok(n)
    }
}

/// The warning for an archive that ends without its end-of-archive blocks.
pub fn tar_cut_warning(members: usize) -> String {
    format!(
        "the tar archive ends without its end-of-archive blocks after {}: \
         it may have been cut short (copied or written incompletely), so runs may be \
         missing or incomplete",
        crate::text::plural(members as u64, "member")
    )
}

/// The member a tar link member stands for: a hard link names an archive
/// path; a symbolic link a path relative to its own directory (read as
/// the member there, as a link to a file is read in a directory). `Err`
/// says why it stands for no member: no target, an absolute one, or one
/// outside the archive.
pub fn tar_link_target(member: &str, hard: bool, link: Option<&[u8]>) -> Result<String, String> {
    let Some(link) = link.filter(|l| !l.is_empty()) else {
        return Err("a link without a target".to_string());
    };
    let link = String::from_utf8_lossy(link);
    if link.starts_with('/') {
        return Err(format!("a link to {link}, outside the archive"));
    }
    let mut parts: Vec<&str> = Vec::new();
    let dir = if hard {
        ""
    } else {
        member
            .trim_start_matches("./")
            .rsplit_once('/')
            .map_or("", |(d, _)| d)
    };
    for c in dir.split('/').chain(link.split('/')) {
        match c {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("a link to {link}, outside the archive"));
                }
            }
            c => parts.push(c),
        }
    }
    Ok(parts.join("/"))
}

/// Whether tar member type `kind` holds a file's bytes: a regular file,
/// or a GNU sparse one (type `S`, which the tar crate reads holes filled).
pub fn tar_regular(kind: tar::EntryType) -> bool {
    kind.is_file() || kind.is_gnu_sparse()
}

/// The name of tar member `entry` of archive `archive` (lossy UTF-8) and,
/// for a pax sparse member, how to read it ([`sparse`]): the name is then
/// its real one (`GNU.sparse.name`), not the `GNUSparseFile.PID/` name of
/// its header. A sparse member this program cannot read is an error naming
/// the member and its format (the input is refused, no run dropped).
pub fn tar_member<R: Read>(
    entry: &mut tar::Entry<'_, R>,
    archive: &str,
) -> Result<(String, Option<sparse::Sparse>)> {
    let header = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
    if !entry.header().entry_type().is_file() {
        return Ok((header, None));
    }
    match sparse::pax_sparse(entry, &header) {
        Ok(Some(s)) => Ok((s.name.clone().unwrap_or(header), Some(s))),
        Ok(None) => Ok((header, None)),
        Err(why) => bail!("{archive}: {why}"),
    }
}

/// The bytes of tar member `entry` as the file it stands for, and their
/// number: a pax sparse member's ([`tar_member`]) expanded, holes zeros.
pub fn tar_data<'a, R: Read + 'a>(
    entry: &'a mut tar::Entry<'_, R>,
    sparse: &Option<sparse::Sparse>,
) -> (Box<dyn Read + 'a>, u64) {
    match sparse {
        Some(s) => (Box::new(s.reader(entry)), s.size),
        None => {
            let size = entry.size();
            (Box::new(entry), size)
        }
    }
}

/// Read the regular member `target` (a path as [`tar_link_target`] gives
/// it) of the tar archive at `archive` (compressed or not) with `f`, from
/// a second pass over the archive; `None` when there is no such regular
/// member.
pub fn with_tar_member<T>(
    archive: &Path,
    target: &str,
    f: impl FnOnce(&mut dyn Read, u64) -> T,
) -> Result<Option<T>> {
    let opened = open(&Location::File(archive.to_path_buf()))?;
    let shown = crate::text::shown_path(archive);
    let mut tar = tar::Archive::new(opened.reader);
    let entries = tar
        .entries()
        .with_context(|| format!("{shown}: cannot read tar archive"))?;
    for entry in entries {
        let mut entry = entry.with_context(|| format!("{shown}: corrupt tar archive"))?;
        let (path, sparse) = tar_member(&mut entry, &shown)?;
        let same = tar_link_target("", true, Some(path.as_bytes())).is_ok_and(|p| p == target);
        if same && tar_regular(entry.header().entry_type()) {
            let (mut data, size) = tar_data(&mut entry, &sparse);
            return Ok(Some(f(&mut data, size)));
        }
    }
    Ok(None)
}

/// Command-line arguments that are not UTF-8 (file names in another
/// encoding, as a directory may hold): each is carried through the program
/// as its text with the invalid bytes shown `\xNN` ([`crate::text::decode`]),
/// which every message shows, and [`os_path`] turns that text back into
/// the file name's own bytes wherever a file is opened.
static NON_UTF8: std::sync::Mutex<std::collections::BTreeMap<String, std::ffi::OsString>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The command line as text (see [`NON_UTF8`]); `Err` when an argument
/// that is not UTF-8 reads as another one that is (`caf\xe9` and a file
/// literally named `caf\xe9`), which no text could tell apart.
pub fn args_as_text(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> std::result::Result<Vec<String>, String> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    let mut valid = std::collections::BTreeSet::new();
    let mut map = NON_UTF8.lock().unwrap_or_else(|e| e.into_inner());
    for arg in args {
        match arg.into_string() {
            Ok(s) => {
                valid.insert(s.clone());
                out.push(s);
            }
            Err(os) => {
                let text = crate::text::decode(os.as_bytes()).into_owned();
                map.insert(text.clone(), os);
                out.push(text);
            }
        }
    }
    match map.keys().find(|k| valid.contains(*k)) {
        Some(k) => Err(format!(
            "two arguments read as {}: one is not UTF-8 and one is: rename one of the files",
            crate::text::printable(k)
        )),
        None => Ok(out),
    }
}

/// The file a path argument names: its own bytes when it was not UTF-8
/// ([`args_as_text`]), else the text itself.
pub fn os_path(text: &str) -> PathBuf {
    let map = NON_UTF8.lock().unwrap_or_else(|e| e.into_inner());
    match map.get(text) {
        Some(os) => PathBuf::from(os),
        None => PathBuf::from(text),
    }
}

/// What a path names, before anything is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Stdin,
    File(PathBuf),
}

impl Location {
    pub fn display(&self) -> String {
        match self {
            Location::Stdin => "-".to_string(),
            Location::File(p) => {
                use std::os::unix::ffi::OsStrExt;
                crate::text::decode(p.as_os_str().as_bytes()).into_owned()
            }
        }
    }
}

/// What a command-line path expands to.
#[derive(Debug)]
pub struct Expanded {
    pub locations: Vec<Location>,
    /// The path was a directory.
    pub from_dir: bool,
    /// Entries of the directory passed over ([`Walk::warnings`]).
    pub warnings: Vec<String>,
}

/// Expand one command-line path into the locations of its runs: a file is
/// itself, a directory every regular file below it ([`walk_dir`]), `-`
/// stdin. Archives are expanded later, when they are read ([`open`] reports
/// them as archives).
pub fn expand(path: &str) -> Result<Expanded> {
    if path == "-" {
        return Ok(Expanded {
            locations: vec![Location::Stdin],
            from_dir: false,
            warnings: Vec::new(),
        });
    }
    let p = &os_path(path);
    let meta = std::fs::metadata(p).with_context(|| format!("{path}: cannot open"))?;
    refuse_blocking(p, &meta)?;
    if meta.is_dir() {
        let walked = walk_dir(p)?;
        refuse_threads_dirs(&walked.files)?;
        if walked.files.is_empty() {
            bail!(
                "{path}: directory holds no files{}",
                match walked.warnings.as_slice() {
                    [] => String::new(),
                    w => format!(" ({})", w.join("; ")),
                }
            );
        }
        Ok(Expanded {
            locations: walked.files.into_iter().map(Location::File).collect(),
            from_dir: true,
            warnings: walked.warnings,
        })
    } else {
        Ok(Expanded {
            locations: vec![Location::File(p.to_path_buf())],
            from_dir: false,
            warnings: Vec::new(),
        })
    }
}

/// Refuse a directory that `perf record --threads` wrote (`DIR/data`, a
/// perf.data header, beside its `data.0`, `data.1` … streams of samples):
/// read as files, it was an empty run and runs without a header, never the
/// recording perf reads. Said with what to do.
fn refuse_threads_dirs(files: &[PathBuf]) -> Result<()> {
    let named =
        |p: &Path, f: &dyn Fn(&str) -> bool| p.file_name().and_then(|n| n.to_str()).is_some_and(f);
    let stream = |n: &str| {
        n.strip_prefix("data.")
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
    };
    for header in files.iter().filter(|p| named(p, &|n| n == "data")) {
        let dir = header.parent().unwrap_or(Path::new(""));
        let has_streams = files
            .iter()
            .any(|p| p.parent() == Some(dir) && named(p, &stream));
        let mut magic = [0u8; 8];
        let perf = std::fs::File::open(header)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok_and(|()| &magic == b"PERFILE2");
        if has_streams && perf {
            bail!(
                "{}: a `perf record --threads` recording (a directory of its header `data` and \
                 its data.N sample streams), which diffprofile does not read: record it again \
                 without --threads (perf report reads it, diffprofile only single-file perf.data)",
                crate::text::shown_path(dir)
            );
        }
    }
    Ok(())
}

/// Refuse a path named as a profile whose reading can block or never end:
/// a character or block device (`/dev/kmsg`, `/dev/zero`, a terminal), a
/// socket, or a `/proc` file of no size that is not a profile
/// (`/proc/kmsg` blocks, and reading it takes the messages from the
/// system log). `/proc/profile` has a size and is read; a FIFO (`<(…)`,
/// `/dev/stdin` on a pipe) is read, as stdin is.
fn refuse_blocking(p: &Path, meta: &std::fs::Metadata) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    let what = if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if meta.is_file() && meta.len() == 0 && on_proc(p) {
        "a /proc file without a size (such as /proc/kmsg, which blocks)"
    } else {
        return Ok(());
    };
    bail!(
        "{}: {what}, not a profile: not read (reading it can block or never end); \
         copy what you need to a file and give that",
        crate::text::shown_path(p)
    )
}

/// Refuse a results tree's root (`batch`, `export`) that is neither a
/// directory nor a file: opening a FIFO blocks, a device never ends.
pub fn refuse_special_root(root: &str, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_dir() || meta.is_file() {
        return Ok(());
    }
    bail!("{root}: not a directory or a tar archive (a FIFO, device or socket is not read)")
}

/// Whether `p` is on procfs.
fn on_proc(p: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statfs writes only into `fs`, a zeroed struct of its type.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::statfs(c.as_ptr(), &mut fs) };
    r == 0 && fs.f_type == libc::PROC_SUPER_MAGIC
}

/// The regular files below a directory, and what was passed over.
#[derive(Debug, Default)]
pub struct Walk {
    /// Sorted by path.
    pub files: Vec<PathBuf>,
    /// One counted sentence per kind of entry passed over: links to
    /// directories (not followed), dangling links, special files.
    pub warnings: Vec<String>,
}

/// Entries named in a walk's warning; the rest are counted.
const WALK_LIST_MAX: usize = 5;

/// What a directory entry is, as every walk of diffprofile reads it: a
/// symbolic link to a regular file is that file; a link to a directory is
/// never followed (a loop, or a link to `/`, is never walked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    DirLink,
    Dangling,
    /// A FIFO, socket or device (or a link to one): never opened, since
    /// reading a FIFO can block.
    Special,
}

/// The kind of the entry at `path`, whose own (not followed) type is `kind`.
pub fn entry_kind(path: &Path, kind: std::fs::FileType) -> EntryKind {
    if kind.is_dir() {
        EntryKind::Dir
    } else if kind.is_file() {
        EntryKind::File
    } else if kind.is_symlink() {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => EntryKind::File,
            Ok(m) if m.is_dir() => EntryKind::DirLink,
            Ok(_) => EntryKind::Special,
            Err(_) => EntryKind::Dangling,
        }
    } else {
        EntryKind::Special
    }
}

/// A walk's error, `path: cannot read directory: cause`, naming the
/// directory (or `root`).
pub fn walk_error(root: &Path, e: walkdir::Error) -> anyhow::Error {
    let context = format!(
        "{}: cannot read directory",
        e.path().unwrap_or(root).display()
    );
    match e.into_io_error() {
        Some(io) => anyhow::Error::new(io).context(context),
        // The only other walkdir error; our walks follow no links.
        None => anyhow::anyhow!("{context}: a symbolic link loop"),
    }
}

/// The entries a walk passed over, by kind, for its warnings.
#[derive(Debug, Default)]
pub struct Skipped {
    dir_links: Vec<String>,
    dangling: Vec<String>,
    special: Vec<String>,
    backups: Vec<String>,
    hidden: Vec<String>,
}

impl Skipped {
    /// Note `entry` when its name is hidden (`.run1`, `.git`), which a walk
    /// neither reads nor descends into; true if it is. (The root named is
    /// never hidden.)
    pub fn hidden(&mut self, entry: &walkdir::DirEntry) -> bool {
        let hidden = entry.depth() > 0 && entry.file_name().to_string_lossy().starts_with('.');
        if hidden {
            self.hidden.push(entry.path().display().to_string());
        }
        hidden
    }

    /// Note `path` when `kind` is one a walk passes over; true if it was.
    pub fn note(&mut self, path: &Path, kind: EntryKind) -> bool {
        let list = match kind {
            EntryKind::File
                if path
                    .file_name()
                    .is_some_and(|n| is_editor_backup(&n.to_string_lossy())) =>
            {
                &mut self.backups
            }
            EntryKind::File | EntryKind::Dir => return false,
            EntryKind::DirLink => &mut self.dir_links,
            EntryKind::Dangling => &mut self.dangling,
            EntryKind::Special => &mut self.special,
        };
        list.push(path.display().to_string());
        true
    }

    /// One counted sentence per kind passed over, naming the first few.
    pub fn warnings(self, root: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for (mut list, what) in [
            (
                self.dir_links,
                "symbolic link(s) to directories not followed",
            ),
            (self.dangling, "dangling symbolic link(s) skipped"),
            (
                self.special,
                "special file(s) (FIFO, socket, device) skipped",
            ),
            (self.backups, BACKUPS_SKIPPED),
            (
                self.hidden,
                "hidden file(s) and directories (.name) not read",
            ),
        ] {
            if list.is_empty() {
                continue;
            }
            list.sort();
            let mut shown: Vec<String> = list.iter().take(WALK_LIST_MAX).cloned().collect();
            if list.len() > WALK_LIST_MAX {
                shown.push(format!("and {} more", list.len() - WALK_LIST_MAX));
            }
            out.push(format!(
                "{}: {} {what}: {}",
                root.display(),
                list.len(),
                shown.join(", ")
            ));
        }
        out
    }
}

/// The warning's words for editor backups passed over (with their count
/// before and their names after).
pub const BACKUPS_SKIPPED: &str =
    "editor backup(s) and leftovers (name~, #name#, .swp, .orig, .rej, .bak, perf's .old) skipped";

/// A file name an editor, a merge or a patch leaves beside a file, never a
/// run of its own: `run2.folded~` (Emacs, vim, nano backups), `#run#`
/// (Emacs auto-save), `*.swp`/`*.swo`/`*.swx` (vim swap files, when not
/// hidden), `*.orig` and `*.rej` (patch, git merges), `*.bak`, and `*.old`
/// (perf record renames the perf.data it would overwrite so: the earlier
/// recording, not one more run). Hidden names
/// (`.run.swp`, `.#run`) are passed over as hidden already.
pub fn is_editor_backup(name: &str) -> bool {
    const SUFFIXES: [&str; 7] = [".swp", ".swo", ".swx", ".orig", ".rej", ".bak", ".old"];
    name.ends_with('~')
        || (name.len() > 2 && name.starts_with('#') && name.ends_with('#'))
        || SUFFIXES
            .iter()
            .any(|s| name.len() > s.len() && name.ends_with(s))
}

/// `ROOT: 2 editor backup(s) … skipped: a~, b.orig`, the first few named.
pub fn backups_warning(root: Option<&str>, paths: &[String]) -> String {
    let mut paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    paths.sort_unstable();
    let shown: Vec<&str> = paths.iter().take(WALK_LIST_MAX).copied().collect();
    let more = match paths.len() - shown.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "{}{} {BACKUPS_SKIPPED}: {}{more}",
        root.map(|r| format!("{r}: ")).unwrap_or_default(),
        paths.len(),
        shown.join(", ")
    )
}

/// The member paths of one tar archive met so far: a path met twice
/// (`tar -r` appends a new copy, `tar -x` keeps the last) would be read as
/// two runs of one name, so it is refused.
#[derive(Debug, Default)]
pub struct TarSeen(std::collections::BTreeSet<String>);

impl TarSeen {
    /// `Err` when `member` (a leading `./` aside) was met before in `archive`.
    pub fn check(&mut self, archive: &str, member: &str) -> Result<()> {
        let path = member.trim_start_matches("./");
        if !self.0.insert(path.to_string()) {
            bail!(
                "{archive}: member {path} appears twice in the archive (appended with tar -r?); \
                 which copy is the run is not known: rebuild the archive with each member once"
            );
        }
        Ok(())
    }

    /// [`TarSeen::check`] `member`, and whether it is an editor backup
    /// ([`is_editor_backup`]), to pass over.
    pub fn backup(&mut self, archive: &str, member: &str) -> Result<bool> {
        self.check(archive, member)?;
        Ok(member.rsplit('/').next().is_some_and(is_editor_backup))
    }
}

/// Every regular file below `root` (walkdir): hidden files and directories
/// (`.run1`, `.git`) not read; entries read as [`entry_kind`] says, those
/// passed over (hidden ones too) counted in a warning per kind ([`Skipped`]). An unreadable directory is an error.
pub fn walk_dir(root: &Path) -> Result<Walk> {
    let mut walk = Walk::default();
    let mut skipped = Skipped::default();
    let mut entries = walkdir::WalkDir::new(root).follow_links(false).into_iter();
    while let Some(entry) = entries.next() {
        let entry = entry.map_err(|e| walk_error(root, e))?;
        if skipped.hidden(&entry) {
            if entry.file_type().is_dir() {
                entries.skip_current_dir();
            }
            continue;
        }
        if entry.depth() == 0 {
            // The directory named (or a link to it, which is followed).
            continue;
        }
        let path = entry.path();
        let kind = entry_kind(path, entry.file_type());
        if !skipped.note(path, kind) && kind == EntryKind::File {
            walk.files.push(path.to_path_buf());
        }
    }
    walk.files.sort();
    walk.warnings = skipped.warnings(root);
    Ok(walk)
}

/// An opened location: its decompressed reader, and whether it is a tar archive.
pub struct Opened {
    pub name: String,
    pub compression: Compression,
    pub tar: bool,
    pub reader: Box<dyn BufRead>,
    /// Bytes of garbage after the gzip data, known once it is read to
    /// its end ([`decompress_noting`]).
    pub trailing: Rc<Cell<u64>>,
}

/// Open a location and undo its compression.
pub fn open(loc: &Location) -> Result<Opened> {
    let name = loc.display();
    let raw: Box<dyn BufRead> = match loc {
        Location::Stdin => Box::new(BufReader::with_capacity(BUF_SIZE, io::stdin())),
        Location::File(p) => {
            let f = File::open(p).with_context(|| format!("{name}: cannot open"))?;
            Box::new(BufReader::with_capacity(BUF_SIZE, f))
        }
    };
    let trailing = Rc::new(Cell::new(0));
    let (compression, mut reader) =
        decompress_noting(raw, trailing.clone()).with_context(|| format!("{name}: cannot read"))?;
    let head = fill_at_least(&mut reader, 512).with_context(|| format!("{name}: cannot read"))?;
    let tar = is_tar(&head);
    let reader: Box<dyn BufRead> = Box::new(io::Cursor::new(head).chain(reader));
    Ok(Opened {
        name,
        compression,
        tar,
        reader,
        trailing,
    })
}

/// The UTF-8 byte-order mark some editors and Windows tools put first.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// Drop a UTF-8 byte-order mark at the start of a stream (any text input
/// may carry one; no binary format starts with it). Returns whether there
/// was one, and the stream without it, otherwise unchanged.
pub fn skip_bom<'a>(
    mut reader: Box<dyn BufRead + 'a>,
) -> io::Result<(bool, Box<dyn BufRead + 'a>)> {
    let head = fill_at_least(&mut reader, BOM.len())?;
    if head == BOM {
        return Ok((true, reader));
    }
    Ok((false, Box::new(io::Cursor::new(head).chain(reader))))
}

/// A whole text file without its byte-order mark, if any.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Read up to `n` bytes (fewer only at EOF) without losing them: returns the
/// bytes, which the caller must replay before the rest of the reader.
pub fn fill_at_least(reader: &mut dyn BufRead, n: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    reader.take(n as u64).read_to_end(&mut head)?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn compression_by_magic_bytes() {
        assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(
            Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd, 0]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::sniff(&[0xfd, b'7', b'z', b'X', b'Z', 0]),
            Compression::Xz
        );
        assert_eq!(Compression::sniff(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"BZhx"), Compression::None);
        assert_eq!(
            Compression::sniff(b"   153 finish_task_switch"),
            Compression::None
        );
        assert_eq!(Compression::sniff(b""), Compression::None);
    }

    fn roundtrip(data: &[u8], packed: Vec<u8>) {
        let (_, mut r) = decompress(Box::new(io::Cursor::new(packed))).unwrap();
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn every_compression_decodes() {
        let data = b"   153 finish_task_switch.isra.0                  0.2224\n".repeat(100);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&data).unwrap();
        roundtrip(&data, gz.finish().unwrap());
        roundtrip(&data, zstd::encode_all(&data[..], 3).unwrap());
        let mut xz = xz2::write::XzEncoder::new(Vec::new(), 6);
        xz.write_all(&data).unwrap();
        roundtrip(&data, xz.finish().unwrap());
        let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        bz.write_all(&data).unwrap();
        roundtrip(&data, bz.finish().unwrap());
        roundtrip(&data, data.clone());
    }

    #[test]
    fn tar_is_recognised_by_ustar_magic() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(3);
        h.set_cksum();
        b.append_data(&mut h, "a/run1.txt", &b"1 x"[..]).unwrap();
        let bytes = b.into_inner().unwrap();
        assert!(is_tar(&bytes));
        assert!(!is_tar(b"not a tar"));
    }
}
