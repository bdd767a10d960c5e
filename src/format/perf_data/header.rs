//! Opening a perf.data file for the decoder: pipe mode or a file with
//! sections, its sizes checked first ([`super::check`]), and a recording
//! that was not terminated properly read as far as it goes.
//!
//! `perf record` writes the file header when it starts and again, with
//! the data section's size and the feature sections (release, build-ids,
//! event names), when it ends. A recording killed in between (SIGKILL, a
//! crash, a full disk) keeps the first header: data size 0, the feature
//! bits set but no sections after the data. perf 6.1 warns ("The file's
//! data size field is 0 which is unexpected. Was the 'perf record' command
//! properly terminated?") and fails; its records are whole up to where the
//! writes stopped. Such a file is read here through a mended header (the
//! data size of the whole records there, no features) with a warning that
//! says so; the bytes of the file are not copied ([`Bytes`]).
//!
//! Input: the file's bytes. Output: the decoder over them, the warnings,
//! and the walk of the records ([`Walk`]: compressed records, a cut one).

use super::check::{check_records, check_sections, Walk};
use super::{bad, ParseError, MAGIC_LE};
use linux_perf_data::PerfFileReader;
use std::io::{Read, Seek, SeekFrom};

/// `struct perf_file_header`'s size, and where its data section is.
const HEADER: usize = 104;
const DATA_OFFSET: usize = 40;
const DATA_SIZE: usize = 48;
const FEATURES: usize = 72;

/// A file's bytes with its first ones replaced by `head` (a mended
/// header), read as the decoder reads a file.
pub(super) struct Bytes<'b> {
    head: Vec<u8>,
    bytes: &'b [u8],
    pos: u64,
}

impl Read for Bytes<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let at = usize::try_from(self.pos).unwrap_or(usize::MAX);
        let src = if at < self.head.len() {
            &self.head[at..]
        } else {
            self.bytes.get(at..).unwrap_or(&[])
        };
        let n = src.len().min(buf.len());
        buf[..n].copy_from_slice(&src[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Bytes<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let len = self.bytes.len() as i128;
        let pos = match to {
            SeekFrom::Start(p) => i128::from(p),
            SeekFrom::End(d) => len + i128::from(d),
            SeekFrom::Current(d) => i128::from(self.pos) + i128::from(d),
        };
        self.pos = u64::try_from(pos).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start")
        })?;
        Ok(self.pos)
    }
}

/// An opened file.
pub(super) struct Opened<'b> {
    pub reader: PerfFileReader<Bytes<'b>>,
    pub warnings: Vec<String>,
    pub walk: Walk,
    /// The data section (start, end) of a plain file whose header was not
    /// mended (none in pipe mode): what [`super::records::InPlace`] reads.
    pub data: Option<(u64, u64)>,
}

fn u64_at(bytes: &[u8], at: usize, le: bool) -> Option<u64> {
    let b = <[u8; 8]>::try_from(bytes.get(at..at + 8)?).ok()?;
    Some(if le {
        u64::from_le_bytes(b)
    } else {
        u64::from_be_bytes(b)
    })
}

/// `perf record -o -` writes a 16-byte header (magic, size) and puts the
/// attributes and features in the record stream.
fn is_pipe_mode(bytes: &[u8], le: bool) -> bool {
    u64_at(bytes, 8, le) == Some(16)
}

/// Open `bytes` (pipe mode, a file, or a killed recording's file).
pub(super) fn open<'b>(bytes: &'b [u8], origin: &str) -> Result<Opened<'b>, ParseError> {
    let le = bytes.starts_with(MAGIC_LE);
    let mut warnings = Vec::new();
    let (walk, head) = if is_pipe_mode(bytes, le) {
        let walk = check_records(bytes, 16, bytes.len() as u64, le, origin)?;
        if let Some((have, size)) = walk.cut {
            warnings.push(format!(
                "{origin}: the stream ends inside a record ({have} of its {size} bytes): the \
                 recording was cut short; read the {} records before it",
                walk.records
            ));
        }
        (walk, Vec::new())
    } else {
        match check_sections(bytes, &[], origin) {
            Ok(walk) => (walk, Vec::new()),
            Err(e) => {
                let head = mended(bytes, le, origin, &mut warnings)?;
                if head.is_empty() {
                    return Err(e);
                }
                (check_sections(bytes, &head, origin)?, head)
            }
        }
    };
    let pipe = head.is_empty() && is_pipe_mode(bytes, le);
    let mended = !head.is_empty();
    let reader = Bytes {
        head,
        bytes,
        pos: 0,
    };
    let parsed = if pipe {
        PerfFileReader::parse_pipe(reader)
    } else {
        PerfFileReader::parse_file(reader)
    };
    let reader = parsed.map_err(|e| {
        bad(
            origin,
            "expected a perf.data file (perf record), cannot read its header",
            &e,
        )
    })?;
    let data = match (pipe, mended) {
        (false, false) => u64_at(bytes, DATA_OFFSET, le)
            .zip(u64_at(bytes, DATA_SIZE, le))
            .and_then(|(at, size)| Some((at, at.checked_add(size)?))),
        _ => None,
    };
    Ok(Opened {
        reader,
        warnings,
        walk,
        data,
    })
}

/// The header of a recording that was not terminated properly, mended
/// (the data size of its whole records, no feature sections), with a
/// warning; empty for a file that was.
fn mended(
    bytes: &[u8],
    le: bool,
    origin: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<u8>, ParseError> {
    let (Some(offset), Some(0)) = (u64_at(bytes, DATA_OFFSET, le), u64_at(bytes, DATA_SIZE, le))
    else {
        return Ok(Vec::new());
    };
    let len = bytes.len() as u64;
    if bytes.len() < HEADER || offset < HEADER as u64 || offset > len {
        return Ok(Vec::new());
    }
    let walk = check_records(bytes, offset, len, le, origin)?;
    let size = walk.end - offset;
    let mut head = bytes[..HEADER].to_vec();
    let size_bytes = if le {
        size.to_le_bytes()
    } else {
        size.to_be_bytes()
    };
    head[DATA_SIZE..DATA_SIZE + 8].copy_from_slice(&size_bytes);
    head[FEATURES..HEADER].fill(0);
    let cut = match walk.cut {
        Some((have, claims)) => {
            format!("; the last {have} bytes, a record cut short (of {claims}), are dropped")
        }
        None => String::new(),
    };
    warnings.push(format!(
        "{origin}: not terminated properly (perf record killed?): the header's data size \
         is 0 and no feature sections follow the data; read the {} whole records up to \
         the end of the file ({size} bytes){cut}; the kernel release, build-ids and event \
         names it would have held are unknown",
        walk.records
    ));
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mended_header_is_read_in_place_of_the_first_bytes() {
        let bytes: Vec<u8> = (0u8..20).collect();
        let mut r = Bytes {
            head: vec![100, 101, 102],
            bytes: &bytes,
            pos: 0,
        };
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(&out[..5], &[100, 101, 102, 3, 4]);
        assert_eq!(out.len(), 20);
        r.seek(SeekFrom::Start(1)).unwrap();
        let mut two = [0u8; 2];
        r.read_exact(&mut two).unwrap();
        assert_eq!(two, [101, 102]);
        assert_eq!(r.seek(SeekFrom::End(-2)).unwrap(), 18);
        assert!(r.seek(SeekFrom::Current(-100)).is_err());
    }
}
