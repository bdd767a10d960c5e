//! Opening what the user names: files, `-` (stdin), directories (every
//! regular file below, in sorted path order), tar archives (every regular
//! member), each possibly compressed (gzip, zstd, xz, bzip2: detected by magic
//! bytes, never by name). Produces [`Source`]s: a name for messages and a
//! buffered reader over the decompressed bytes.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

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

/// Wrap `reader` in the decoder its first bytes call for (only one layer:
/// a compressed tar is decompressed here and recognised as tar afterwards).
pub fn decompress<'a>(
    mut reader: Box<dyn BufRead + 'a>,
) -> io::Result<(Compression, Box<dyn BufRead + 'a>)> {
    let head = reader.fill_buf()?;
    let kind = Compression::sniff(head);
    let out: Box<dyn BufRead + 'a> = match kind {
        Compression::None => reader,
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            flate2::bufread::MultiGzDecoder::new(reader),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            zstd::stream::read::Decoder::with_buffer(reader)?,
        )),
        Compression::Xz => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            xz2::bufread::XzDecoder::new_multi_decoder(reader),
        )),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            BUF_SIZE,
            bzip2::bufread::MultiBzDecoder::new(reader),
        )),
    };
    Ok((kind, out))
}

/// True when a (decompressed) prefix is a tar archive: `ustar` magic at offset 257.
pub fn is_tar(head: &[u8]) -> bool {
    head.len() >= 262 && &head[257..262] == b"ustar"
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
            Location::File(p) => p.display().to_string(),
        }
    }
}

/// Expand one command-line path into the locations of its runs: a file is
/// itself, a directory every regular file below it (sorted by path; hidden
/// files and directories skipped), `-` stdin. Archives are expanded later,
/// when they are read ([`open`] reports them as archives). The flag is
/// true when the path was a directory.
pub fn expand(path: &str) -> Result<(Vec<Location>, bool)> {
    if path == "-" {
        return Ok((vec![Location::Stdin], false));
    }
    let p = Path::new(path);
    let meta = std::fs::metadata(p).with_context(|| format!("{path}: cannot open"))?;
    if meta.is_dir() {
        let mut files = Vec::new();
        walk(p, &mut files)?;
        files.sort();
        if files.is_empty() {
            bail!("{path}: directory holds no files");
        }
        Ok((files.into_iter().map(Location::File).collect(), true))
    } else {
        Ok((vec![Location::File(p.to_path_buf())], false))
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot read directory", dir.display()))?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let meta =
            std::fs::metadata(&path).with_context(|| format!("{}: cannot open", path.display()))?;
        if meta.is_dir() {
            walk(&path, out)?;
        } else if meta.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// An opened location: its decompressed reader, and whether it is a tar archive.
pub struct Opened {
    pub name: String,
    pub compression: Compression,
    pub tar: bool,
    pub reader: Box<dyn BufRead>,
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
    let (compression, mut reader) =
        decompress(raw).with_context(|| format!("{name}: cannot read"))?;
    let head = fill_at_least(&mut reader, 512).with_context(|| format!("{name}: cannot read"))?;
    let tar = is_tar(&head);
    let reader: Box<dyn BufRead> = Box::new(io::Cursor::new(head).chain(reader));
    Ok(Opened {
        name,
        compression,
        tar,
        reader,
    })
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
