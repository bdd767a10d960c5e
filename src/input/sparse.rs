//! Sparse tar members: a file with holes, as `tar -S` stores it, read as
//! the file itself (its holes zeros) under its real name.
//!
//! GNU tar writes a sparse file one of four ways:
//!
//! - the old GNU format (`--format=gnu`, type `S`): the tar crate reads
//!   these itself, holes filled, [`tar::Entry::size`] the real size;
//! - pax 0.0: a regular member under its real name, its map in repeated
//!   `GNU.sparse.offset`/`GNU.sparse.numbytes` pax records;
//! - pax 0.1: a regular member named `DIR/GNUSparseFile.PID/NAME`, the real
//!   name in `GNU.sparse.name`, the map in `GNU.sparse.map=off,len,...`;
//! - pax 1.0: named as 0.1, the real name in `GNU.sparse.name`, the real
//!   size in `GNU.sparse.realsize`, the map at the start of the member's
//!   data (decimal lines: the count, then offset and length for each
//!   chunk, padded with NULs to a 512-byte block), then the chunks.
//!
//! A pax member written by tar 1.34 with `--sparse-version=1.0`:
//!
//! ```text
//! old/PaxHeaders/run1.img: 22 GNU.sparse.major=1
//!                          32 GNU.sparse.name=old/run1.img
//!                          32 GNU.sparse.realsize=18913676
//! old/GNUSparseFile.29267/run1.img: 81\n0\n4096\n2396160\n8192\n...
//! ```
//!
//! [`pax_sparse`] reads the pax records of a member (and for 1.0 the map
//! off the data) into a [`Sparse`]; [`Sparse::reader`] expands the stored
//! chunks into the real file. A map that does not parse, or a version not
//! listed above, is an error naming the member and the format: the caller
//! refuses the input, it never drops the member.

use std::io::{self, Read};

/// A pax sparse member: its real name and size and where its chunks lie.
#[derive(Debug, Clone, PartialEq)]
pub struct Sparse {
    /// The real name (`GNU.sparse.name`), when the pax records give one.
    pub name: Option<String>,
    /// The real size of the file, holes included.
    pub size: u64,
    /// The chunks stored, `(offset, length)` in the real file, in order.
    pub map: Vec<(u64, u64)>,
    /// The format, as messages name it ("pax sparse 1.0").
    pub format: String,
}

/// The pax sparse description of tar member `member` (its header name,
/// for messages) from `entry`, `Ok(None)` for a member that is not one;
/// for pax 1.0 the map is read off the start of the entry's data.
pub fn pax_sparse<R: Read>(
    entry: &mut tar::Entry<'_, R>,
    member: &str,
) -> Result<Option<Sparse>, String> {
    let records = match entry.pax_extensions() {
        Ok(Some(exts)) => exts
            .filter_map(Result::ok)
            .filter(|e| e.key_bytes().starts_with(b"GNU.sparse."))
            .map(|e| {
                (
                    String::from_utf8_lossy(e.key_bytes()).into_owned(),
                    String::from_utf8_lossy(e.value_bytes()).into_owned(),
                )
            })
            .collect::<Vec<_>>(),
        Ok(None) => return Ok(None),
        Err(e) => return Err(format!("{member}: unreadable pax records ({e})")),
    };
    if records.is_empty() {
        return Ok(None);
    }
    let get = |k: &str| records.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    let name = get("GNU.sparse.name").cloned();
    let major = get("GNU.sparse.major");
    let bad = |format: &str, why: String| {
        format!(
            "{member}: a sparse member in the {format} format, unreadable: {why}; \
             unpack the archive with GNU tar and give the directory"
        )
    };
    if let Some(major) = major {
        let minor = get("GNU.sparse.minor").map_or("0", |s| s.as_str());
        let format = format!("pax sparse {major}.{minor}");
        if major != "1" || minor != "0" {
            return Err(bad(&format, "a version this program does not know".into()));
        }
        let size = number(get("GNU.sparse.realsize"), "GNU.sparse.realsize")
            .map_err(|e| bad(&format, e))?;
        let map = map_in_data(entry).map_err(|e| bad(&format, e))?;
        return checked(name, size, map, format)
            .map(Some)
            .map_err(|(f, e)| bad(&f, e));
    }
    let size = get("GNU.sparse.size");
    if let Some(list) = get("GNU.sparse.map") {
        let format = "pax sparse 0.1".to_string();
        let size = number(size, "GNU.sparse.size").map_err(|e| bad(&format, e))?;
        let numbers = list
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| number(Some(&s.to_string()), "GNU.sparse.map"))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(&format, e))?;
        let map = pairs(&numbers).map_err(|e| bad(&format, e))?;
        return checked(name, size, map, format)
            .map(Some)
            .map_err(|(f, e)| bad(&f, e));
    }
    let format = "pax sparse 0.0".to_string();
    let size = number(size, "GNU.sparse.size").map_err(|e| bad(&format, e))?;
    let mut map = Vec::new();
    let mut offset = None;
    for (key, value) in &records {
        match key.as_str() {
            "GNU.sparse.offset" => {
                offset = Some(number(Some(value), key).map_err(|e| bad(&format, e))?);
            }
            "GNU.sparse.numbytes" => {
                let len = number(Some(value), key).map_err(|e| bad(&format, e))?;
                let off = offset
                    .take()
                    .ok_or_else(|| bad(&format, "GNU.sparse.numbytes without an offset".into()))?;
                map.push((off, len));
            }
            _ => {}
        }
    }
    checked(name, size, map, format)
        .map(Some)
        .map_err(|(f, e)| bad(&f, e))
}

/// `Sparse` once its chunks are in order, apart and inside the real size.
fn checked(
    name: Option<String>,
    size: u64,
    map: Vec<(u64, u64)>,
    format: String,
) -> Result<Sparse, (String, String)> {
    let mut end = 0u64;
    for &(off, len) in &map {
        let stop = off.checked_add(len);
        match stop {
            Some(stop) if off >= end && stop <= size => end = stop,
            _ => {
                return Err((
                    format,
                    format!(
                        "chunk at {off} of {len} bytes is out of order or past the size {size}"
                    ),
                ))
            }
        }
    }
    Ok(Sparse {
        name,
        size,
        map,
        format,
    })
}

/// A decimal number from a pax value `v` of key `key`.
fn number(v: Option<&String>, key: &str) -> Result<u64, String> {
    let v = v.ok_or_else(|| format!("no {key} record"))?;
    v.trim()
        .parse()
        .map_err(|_| format!("{key} is {v:?}, not a number"))
}

/// `[off, len, off, len, ...]` as pairs.
fn pairs(numbers: &[u64]) -> Result<Vec<(u64, u64)>, String> {
    if !numbers.len().is_multiple_of(2) {
        return Err(format!("a map of {} numbers, not pairs", numbers.len()));
    }
    Ok(numbers.chunks(2).map(|p| (p[0], p[1])).collect())
}

/// The pax 1.0 map at the start of `data`: decimal lines (the count, then
/// offset and length of each chunk), then NULs to the next 512-byte block.
fn map_in_data(data: &mut impl Read) -> Result<Vec<(u64, u64)>, String> {
    let mut read = 0u64;
    let mut line = || -> Result<u64, String> {
        let mut text = Vec::new();
        loop {
            let mut b = [0u8];
            match data.read(&mut b) {
                Ok(0) => return Err("the data ends inside the map".into()),
                Ok(_) => {}
                Err(e) => return Err(format!("reading the map: {e}")),
            }
            read += 1;
            if b[0] == b'\n' {
                break;
            }
            if !b[0].is_ascii_digit() || text.len() > 20 {
                return Err(format!("byte {:#04x} in the map, not a digit", b[0]));
            }
            text.push(b[0]);
        }
        String::from_utf8_lossy(&text)
            .parse()
            .map_err(|_| "an empty line in the map".to_string())
    };
    let count = line()?;
    let mut numbers = Vec::new();
    for _ in 0..count.saturating_mul(2) {
        numbers.push(line()?);
    }
    let pad = (512 - read % 512) % 512;
    io::copy(&mut data.take(pad), &mut io::sink()).map_err(|e| e.to_string())?;
    pairs(&numbers)
}

impl Sparse {
    /// The real file from `stored`, the member's stored chunks (for 1.0,
    /// what follows the map).
    pub fn reader<R: Read>(&self, stored: R) -> Expanded<R> {
        Expanded {
            stored,
            map: self.map.clone(),
            next: 0,
            pos: 0,
            size: self.size,
        }
    }
}

/// The real file of a sparse member: zeros in the holes, the stored bytes
/// in the chunks.
pub struct Expanded<R> {
    stored: R,
    map: Vec<(u64, u64)>,
    /// The first chunk not wholly given.
    next: usize,
    /// Bytes of the real file given.
    pos: u64,
    size: u64,
}

impl<R: Read> Read for Expanded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.pos >= self.size {
            return Ok(0);
        }
        let room = buf.len() as u64;
        match self.map.get(self.next).copied() {
            Some((off, len)) if self.pos >= off => {
                let left = off + len - self.pos;
                if left == 0 {
                    self.next += 1;
                    return self.read(buf);
                }
                let want = left.min(room) as usize;
                let n = self.stored.read(&mut buf[..want])?;
                if n == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the sparse member's data ends before its map does",
                    ));
                }
                self.pos += n as u64;
                Ok(n)
            }
            chunk => {
                let until = chunk.map_or(self.size, |(off, _)| off);
                let n = (until - self.pos).min(room) as usize;
                buf[..n].fill(0);
                self.pos += n as u64;
                Ok(n)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_holes_and_chunks() {
        let s = checked(None, 10, vec![(2, 3), (7, 1)], "pax sparse 0.1".into()).unwrap();
        let mut out = Vec::new();
        s.reader(&b"abcd"[..]).read_to_end(&mut out).unwrap();
        assert_eq!(out, b"\0\0abc\0\0d\0\0");
    }

    #[test]
    fn short_data_is_an_error() {
        let s = checked(None, 10, vec![(0, 5)], "pax sparse 0.1".into()).unwrap();
        let mut out = Vec::new();
        assert!(s.reader(&b"ab"[..]).read_to_end(&mut out).is_err());
    }

    #[test]
    fn map_in_data_reads_to_the_block() {
        let mut data = b"2\n0\n3\n5\n1\n".to_vec();
        data.resize(512, 0);
        data.extend_from_slice(b"xyz");
        let mut r = &data[..];
        assert_eq!(map_in_data(&mut r).unwrap(), vec![(0, 3), (5, 1)]);
        assert_eq!(r, b"xyz");
        assert!(map_in_data(&mut &b"2\n0\nx\n"[..]).is_err());
    }

    #[test]
    fn overlapping_chunks_are_refused() {
        assert!(checked(None, 10, vec![(2, 3), (4, 1)], "f".into()).is_err());
        assert!(checked(None, 4, vec![(2, 3)], "f".into()).is_err());
    }
}
