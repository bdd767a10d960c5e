//! Damage in the compressed records of `perf record -z`, which the decoder
//! would pass over in silence.
//!
//! perf compresses the ring buffer's bytes into one zstd stream, flushed at
//! the end of each `PERF_RECORD_COMPRESSED` (or `COMPRESSED2`) record; a
//! record's data may end inside an event record, which the next compressed
//! record continues. The decoder (linux-perf-data) drops what is left at
//! the end and reads a record whose zstd data stops inside a block as if
//! nothing were missing, so damage there loses samples without a word.
//!
//! Input: the file's bytes and the compressed records its walk found
//! ([`Walk`]). The records are decompressed in order, as the decoder does,
//! and the event records inside are framed by their headers. Output: the
//! first damage, if any ([`Damage`]): zstd data that cannot be
//! decompressed, a record whose zstd data ends inside a block (after a
//! flush the decoder waits for a block header: a hint of 3 bytes, or 0 at
//! the end of a frame), an event record header of fewer than 8 bytes, or
//! bytes left over after the last whole event record.

use super::check::{Walk, COMPRESSED2};
use linux_perf_data::linux_perf_event_reader::PerfEventHeader;
use zstd::zstd_safe::{DCtx, InBuffer, OutBuffer};

/// The first damaged compressed record.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Damage {
    /// Its record number and offset in the file.
    pub record: u64,
    pub offset: u64,
    /// What is wrong, and what is lost.
    pub what: String,
    pub lost: String,
}

/// The decompressed event records, framed as they arrive.
struct Frames {
    carry: Vec<u8>,
    le: bool,
    records: u64,
    /// The size the header of the record being carried claims.
    pending: u64,
}

impl Frames {
    /// Take `out`'s bytes: every whole record is counted and dropped.
    fn feed(&mut self, out: &[u8]) -> Result<(), String> {
        self.carry.extend_from_slice(out);
        let mut at = 0usize;
        while self.carry.len() - at >= PerfEventHeader::STRUCT_SIZE {
            let b = [self.carry[at + 6], self.carry[at + 7]];
            let size = usize::from(if self.le {
                u16::from_le_bytes(b)
            } else {
                u16::from_be_bytes(b)
            });
            if size < PerfEventHeader::STRUCT_SIZE {
                return Err(format!(
                    "its decompressed data holds an event record header of {size} bytes \
                     (at least 8) after {} whole records",
                    self.records
                ));
            }
            if self.carry.len() - at < size {
                self.pending = size as u64;
                break;
            }
            at += size;
            self.records += 1;
        }
        self.carry.drain(..at);
        Ok(())
    }
}

/// Decompress every compressed record of `walk` in order and say where the
/// data is damaged first, if it is.
pub(super) fn check(bytes: &[u8], walk: &Walk, le: bool) -> Option<Damage> {
    if walk.compressed.is_empty() {
        return None;
    }
    let mut dctx = DCtx::create();
    let mut buf = vec![0u8; 1 << 20];
    let mut frames = Frames {
        carry: Vec::new(),
        le,
        records: 0,
        pending: 0,
    };
    let mut last = (0, 0);
    for &(record, at, size, kind) in &walk.compressed {
        last = (record, at);
        let body = &bytes[(at + 8) as usize..(at + size) as usize];
        let damage = |(what, lost): (String, &str)| Damage {
            record,
            offset: at,
            what,
            lost: lost.to_string(),
        };
        let done = zstd_data(body, kind, le)
            .and_then(|data| one_record(&mut dctx, &mut buf, &mut frames, data));
        if let Err(fault) = done {
            return Some(damage(fault));
        }
    }
    if frames.carry.is_empty() {
        return None;
    }
    Some(Damage {
        record: last.0,
        offset: last.1,
        what: format!(
            "its decompressed data ends {} bytes into an event record of {} bytes, after \
             {} whole records",
            frames.carry.len(),
            frames.pending.max(frames.carry.len() as u64),
            frames.records
        ),
        lost: format!("1 event record ({} bytes) is lost", frames.carry.len()),
    })
}

/// What is wrong with a record and what is lost.
type Fault = (String, &'static str);

const LATER: &str = "its records and every later one are lost";

/// A compressed record's zstd data: its whole body (`COMPRESSED`), or the
/// `data_size` bytes after that field (`COMPRESSED2`, padded to 8 bytes).
fn zstd_data(body: &[u8], kind: u32, le: bool) -> Result<&[u8], Fault> {
    if kind != COMPRESSED2 {
        return Ok(body);
    }
    let claimed = body
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(|b| {
            if le {
                u64::from_le_bytes(b)
            } else {
                u64::from_be_bytes(b)
            }
        });
    match claimed {
        Some(n) if n <= (body.len() - 8) as u64 => Ok(&body[8..8 + n as usize]),
        _ => Err((
            format!("it claims more zstd data than its {} bytes", body.len()),
            LATER,
        )),
    }
}

/// Decompress one record's zstd data into `frames`.
fn one_record(
    dctx: &mut DCtx<'_>,
    buf: &mut [u8],
    frames: &mut Frames,
    data: &[u8],
) -> Result<(), Fault> {
    let mut input = InBuffer::around(data);
    let mut hint;
    loop {
        let mut out = OutBuffer::around(&mut buf[..]);
        hint = dctx
            .decompress_stream(&mut out, &mut input)
            .map_err(|code| {
                (
                    format!(
                        "its zstd data cannot be decompressed ({})",
                        zstd::zstd_safe::get_error_name(code)
                    ),
                    LATER,
                )
            })?;
        let produced = out.pos();
        frames
            .feed(&buf[..produced])
            .map_err(|what| (what, "the records from there on are lost"))?;
        if input.pos() == data.len() && produced < buf.len() {
            break;
        }
    }
    if hint != 0 && hint != 3 {
        return Err((
            format!(
                "its zstd data ends inside a block ({} bytes of it missing: the data is cut \
                 short)",
                hint.saturating_sub(3)
            ),
            "the event records the missing bytes held are lost",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compressed record of `payload` (records), as perf writes one.
    fn record(z: &[u8]) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend_from_slice(&81u32.to_le_bytes());
        r.extend_from_slice(&0u16.to_le_bytes());
        r.extend_from_slice(&((8 + z.len()) as u16).to_le_bytes());
        r.extend_from_slice(z);
        r
    }

    fn event(size: u16) -> Vec<u8> {
        let mut e = vec![0u8; usize::from(size)];
        e[..4].copy_from_slice(&9u32.to_le_bytes());
        e[6..8].copy_from_slice(&size.to_le_bytes());
        e
    }

    fn walk_of(bytes: &[u8]) -> Walk {
        super::super::check::check_records(bytes, 0, bytes.len() as u64, true, "t").unwrap()
    }

    #[test]
    fn whole_records_pass_and_leftovers_are_damage() {
        let mut events = event(40);
        events.extend(event(24));
        let good = record(&zstd::bulk::compress(&events, 3).unwrap());
        assert_eq!(check(&good, &walk_of(&good), true), None);
        // The last record's data ends 10 bytes into a record of 24.
        let cut = record(&zstd::bulk::compress(&events[..50], 3).unwrap());
        let d = check(&cut, &walk_of(&cut), true).unwrap();
        assert!(
            d.what
                .contains("ends 10 bytes into an event record of 24 bytes, after 1 whole"),
            "{d:?}"
        );
        assert_eq!(d.lost, "1 event record (10 bytes) is lost");
    }

    #[test]
    fn zstd_data_cut_inside_a_block_is_damage() {
        let events: Vec<u8> = (0..200).flat_map(|_| event(64)).collect();
        let z = zstd::bulk::compress(&events, 3).unwrap();
        let cut = record(&z[..z.len() - 5]);
        let d = check(&cut, &walk_of(&cut), true).unwrap();
        assert!(d.what.contains("ends inside a block"), "{d:?}");
        let garbage = record(&[0x28, 0xb5, 0x2f, 0xfd, 0x08, 0, 0, 0, 0, 0, 0, 0]);
        let d = check(&garbage, &walk_of(&garbage), true).unwrap();
        assert!(d.what.contains("cannot be decompressed"), "{d:?}");
    }
}
