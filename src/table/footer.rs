//! A walk over a Parquet file's footer (its Thrift compact-protocol
//! `FileMetaData`) before the parquet crate decodes it, so that a damaged
//! footer cannot make the decoder spin. The crate skips the elements of a
//! list, set or map of booleans as if they took no bytes (a boolean
//! *field* holds its value in the field header, an *element* takes one
//! byte), so a damaged 4 KB footer declaring a list of 2^31 booleans held
//! it for seconds. Parquet's footer has no collection of booleans, and the
//! crate could not read one anyway: refused here, as are a collection
//! declaring more elements than the footer has bytes left (each element
//! takes at least one), nesting deeper than [`MAX_DEPTH`], and a footer
//! cut short. The walk is linear in the footer's bytes, without recursion.

use std::io::{Read, Seek, SeekFrom};

/// Deeper nesting than any `FileMetaData` holds (about 8 levels).
pub const MAX_DEPTH: usize = 64;

/// Compact-protocol type codes (thrift-compact-protocol.md).
const STOP: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;
const UUID: u8 = 13;

/// What is being read at one level of nesting.
enum Level {
    /// Fields until a stop.
    Struct,
    /// `left` more values of type `ty`.
    Items { ty: u8, left: u64 },
    /// `left` more key/value pairs; `value_next`: the key of the current
    /// pair was read.
    Pairs {
        key: u8,
        value: u8,
        left: u64,
        value_next: bool,
    },
}

struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Walk<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| format!("it ends at byte {} in the middle of a value", self.at))?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("a varint at byte {} runs past 10 bytes", self.at))
    }

    fn skip(&mut self, n: u64) -> Result<(), String> {
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(format!(
                "a value at byte {} declares {n} bytes where {left} are left",
                self.at
            ));
        }
        self.at += n as usize;
        Ok(())
    }

    /// `n` elements declared at the current byte: each takes a byte at least.
    fn count(&self, n: u64, types: &[u8]) -> Result<u64, String> {
        if types.iter().any(|&t| t == TRUE || t == FALSE) && n > 0 {
            return Err(format!(
                "a collection of {n} booleans at byte {} (Parquet's footer holds none, and \
                 the decoder cannot skip one)",
                self.at
            ));
        }
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(format!(
                "a collection at byte {} declares {n} elements where {left} bytes are left",
                self.at
            ));
        }
        Ok(n)
    }

    /// A value of type `ty`: scalars are read whole, a container opens a
    /// level (returned).
    fn value(&mut self, ty: u8) -> Result<Option<Level>, String> {
        match ty {
            TRUE | FALSE => Err(format!("a boolean element at byte {}", self.at)),
            BYTE => self.skip(1).map(|()| None),
            I16 | I32 | I64 => self.varint().map(|_| None),
            DOUBLE => self.skip(8).map(|()| None),
            UUID => self.skip(16).map(|()| None),
            BINARY => {
                let n = self.varint()?;
                self.skip(n).map(|()| None)
            }
            STRUCT => Ok(Some(Level::Struct)),
            LIST | SET => {
                let head = self.byte()?;
                let ty = head & 0x0f;
                let n = match head >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                let left = self.count(n, &[ty])?;
                Ok(Some(Level::Items { ty, left }))
            }
            MAP => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(None);
                }
                let kv = self.byte()?;
                let (key, value) = (kv >> 4, kv & 0x0f);
                let left = self.count(n, &[key, value])?;
                Ok(Some(Level::Pairs {
                    key,
                    value,
                    left,
                    value_next: false,
                }))
            }
            other => Err(format!("an unknown type {other} at byte {}", self.at - 1)),
        }
    }
}

/// Checks `bytes`, a compact-protocol struct, as the module comment says;
/// `Err` says what is wrong and where (bytes from the footer's start).
pub fn check(bytes: &[u8]) -> Result<(), String> {
    let mut w = Walk { bytes, at: 0 };
    let mut stack = vec![Level::Struct];
    while let Some(top) = stack.last_mut() {
        let ty = match top {
            Level::Struct => {
                let head = w.byte()?;
                let ty = head & 0x0f;
                if ty == STOP {
                    stack.pop();
                    continue;
                }
                if head >> 4 == 0 {
                    w.varint()?; // the field id, in full
                }
                if ty == TRUE || ty == FALSE {
                    continue; // a boolean field's value is its type
                }
                ty
            }
            Level::Items { ty, left } => {
                if *left == 0 {
                    stack.pop();
                    continue;
                }
                *left -= 1;
                *ty
            }
            Level::Pairs {
                key,
                value,
                left,
                value_next,
            } => {
                if *left == 0 {
                    stack.pop();
                    continue;
                }
                let ty = if *value_next {
                    *left -= 1;
                    *value
                } else {
                    *key
                };
                *value_next = !*value_next;
                ty
            }
        };
        if let Some(level) = w.value(ty)? {
            if stack.len() >= MAX_DEPTH {
                return Err(format!(
                    "nesting deeper than {MAX_DEPTH} levels at byte {}",
                    w.at
                ));
            }
            stack.push(level);
        }
    }
    Ok(())
}

/// The footer of the Parquet file `file` checked before it is decoded:
/// `Ok` also when the file is too short or not plain Parquet (the decoder
/// then says what it is); `Err` says what is wrong with the footer.
pub fn check_file(file: &mut std::fs::File) -> Result<(), String> {
    let len = file.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
    if len < 12 {
        return Ok(());
    }
    let mut tail = [0u8; 8];
    file.seek(SeekFrom::End(-8))
        .and_then(|_| file.read_exact(&mut tail))
        .map_err(|e| e.to_string())?;
    let meta_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if &tail[4..] != b"PAR1" || meta_len > len - 8 {
        return Ok(());
    }
    let mut meta = vec![0u8; meta_len as usize];
    file.seek(SeekFrom::Start(len - 8 - meta_len))
        .and_then(|_| file.read_exact(&mut meta))
        .map_err(|e| e.to_string())?;
    file.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    check(&meta)
}

/// A Parquet file whose readers fail at its end instead of reading 0
/// bytes: the decoder skips a damaged page header's fields with
/// `io::copy(take(n))`, which at the end of the file succeeds having
/// skipped nothing, so a list of 2^31 such fields was 2^31 reads (a fuzzed
/// 7 KB file held the reader for over half an hour). No valid file is read
/// past its end.
pub struct Bounded(pub std::fs::File);

/// A reader of [`Bounded`]: reading 0 bytes at the end is an error.
pub struct NoPastEnd(std::io::BufReader<std::fs::File>);

impl std::io::Read for NoPastEnd {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a page or header runs past the end of the file",
            ));
        }
        Ok(n)
    }
}

impl parquet::file::reader::Length for Bounded {
    fn len(&self) -> u64 {
        parquet::file::reader::Length::len(&self.0)
    }
}

impl parquet::file::reader::ChunkReader for Bounded {
    type T = NoPastEnd;

    fn get_read(&self, start: u64) -> parquet::errors::Result<NoPastEnd> {
        Ok(NoPastEnd(self.0.get_read(start)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        self.0.get_bytes(start, length)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_compact_protocol_holds() {
        // struct { 1: i32 2, 2: list<i64> [1, 2], 3: bool true, 4: binary "ab",
        //          5: struct { 1: map<i32, binary> {1: "x"} } }
        let ok = [
            0x15, 0x04, 0x19, 0x26, 0x02, 0x04, 0x11, 0x18, 0x02, b'a', b'b', 0x1c, 0x1b, 0x01,
            0x58, 0x02, 0x01, b'x', 0x00, 0x00,
        ];
        check(&ok).unwrap();
        // A long field id (delta 0), then stop.
        check(&[0x05, 0x20, 0x04, 0x00]).unwrap();
    }

    #[test]
    fn refuses_what_would_make_the_decoder_spin_or_read_past() {
        // list<bool> of 2^31 - 1 elements: what held the decoder.
        let e = check(&[0x19, 0xf1, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00]).unwrap_err();
        assert!(e.starts_with("a collection of 2147483647 booleans"), "{e}");
        let e = check(&[0x1b, 0x05, 0x11, 0x00]).unwrap_err();
        assert!(e.contains("booleans"), "{e}");
        // list<i32> of 1000 elements in 3 bytes.
        let e = check(&[0x19, 0xf5, 0xe8, 0x07, 0x00]).unwrap_err();
        assert!(
            e.contains("declares 1000 elements where 1 bytes are left"),
            "{e}"
        );
        // binary longer than the footer.
        let e = check(&[0x18, 0x64, 0x00]).unwrap_err();
        assert!(e.contains("declares 100 bytes"), "{e}");
        // Cut in the middle, nested too deep, an unknown type.
        assert!(check(&[0x15]).unwrap_err().contains("ends at byte 1"));
        let deep = vec![0x1c; 100];
        assert!(check(&deep).unwrap_err().contains("deeper than 64"));
        assert!(check(&[0x1e]).unwrap_err().contains("unknown type 14"));
    }
}
