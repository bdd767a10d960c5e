//! Checks of a perf.data file's counts and sizes before the decoder
//! (linux-perf-data / linux-perf-event-reader) trusts them: a damaged count
//! there is an allocation of terabytes, an abort, or an arithmetic overflow.

use super::MAGIC_LE;
use crate::format::ParseError;
use linux_perf_data::linux_perf_event_reader::{
    Endianness, RawEventRecord, ReadFormat, RecordType, SampleFormat,
};

/// Check the file header's sections (attrs, data, event types, and the
/// feature sections listed after the data) against the file's length before
/// the decoder reads them: linux-perf-data allocates whatever size a section
/// claims, so one damaged size asked for terabytes (an abort) or more than
/// `isize::MAX` (a panic). Layout (`struct perf_file_header`): magic at 0,
/// `attrs` at 24, `data` at 40, `event_types` at 56 (each `{u64 offset,
/// u64 size}`), the 256 feature bits at 72; one section per set bit follows
/// the data section.
///
/// `head` overrides the file's first bytes (a killed recording's header,
/// mended: [`super::header`]). Returns the walk of the data section.
pub(super) fn check_sections(bytes: &[u8], head: &[u8], origin: &str) -> Result<Walk, ParseError> {
    let le = bytes.starts_with(MAGIC_LE);
    let len = bytes.len() as u64;
    let word = |at: u64| -> Result<u64, ParseError> {
        usize::try_from(at)
            .ok()
            .and_then(|at| {
                let end = at.checked_add(8)?;
                if end <= head.len() {
                    head.get(at..end)
                } else {
                    bytes.get(at..end)
                }
            })
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(|b| {
                if le {
                    u64::from_le_bytes(b)
                } else {
                    u64::from_be_bytes(b)
                }
            })
            .ok_or_else(|| {
                ParseError::invalid(
                    origin,
                    format!("corrupt perf.data: cut short at offset {at} ({len} bytes)"),
                )
            })
    };
    let section = |name: &str, at: u64| -> Result<u64, ParseError> {
        let (offset, size) = (word(at)?, word(at + 8)?);
        match offset.checked_add(size) {
            Some(end) if end <= len => Ok(end),
            _ => Err(ParseError::invalid(
                origin,
                format!(
                    "corrupt perf.data: the {name} section (described at offset {at}) \
                     claims {size} bytes at offset {offset}, past the end of the file ({len} bytes)"
                ),
            )),
        }
    };
    // The decoder divides by it; perf writes 64 (PERF_ATTR_SIZE_VER0) or more.
    let attr_size = word(16)?;
    if attr_size < 64 {
        return Err(ParseError::invalid(
            origin,
            format!("corrupt perf.data: attr_size {attr_size} at offset 16 (at least 64 expected)"),
        ));
    }
    let attrs_end = section("attrs", 24)?;
    check_attr_ids(&word, attr_size, attrs_end, len, origin)?;
    let data_end = section("data", 40)?;
    let walk = check_records(bytes, word(40)?, data_end, le, origin)?;
    section("event types", 56)?;
    let mut features = 0u64;
    for i in 0..4 {
        features += u64::from(word(72 + 8 * i)?.count_ones());
    }
    let first_word = word(72)?;
    for k in 0..features {
        let end = section(&format!("feature #{k}"), data_end + 16 * k)?;
        // HEADER_CMDLINE (bit 11) and HEADER_EVENT_DESC (bit 12): their
        // counts are trusted for allocations by the decoder, so walk them
        // here first.
        let is = |bit: u32| {
            first_word & (1 << bit) != 0
                && k == u64::from((first_word & ((1 << bit) - 1)).count_ones())
        };
        if is(11) {
            let offset = word(data_end + 16 * k)?;
            check_cmdline(&Section::new(
                bytes,
                offset,
                end,
                le,
                origin,
                "command line",
            ))?;
        }
        if is(12) {
            let offset = word(data_end + 16 * k)?;
            check_event_desc(&Section::new(
                bytes,
                offset,
                end,
                le,
                origin,
                "event description",
            ))?;
        }
    }
    Ok(walk)
}

/// Each attr entry (`struct perf_file_attr`, `attr_size` bytes from the
/// attrs section's offset, read by `word`) ends in the `{offset, size}` of
/// its event ids, which the decoder allocates for as claimed: each must
/// lie in the file of `len` bytes.
fn check_attr_ids(
    word: &dyn Fn(u64) -> Result<u64, ParseError>,
    attr_size: u64,
    attrs_end: u64,
    len: u64,
    origin: &str,
) -> Result<(), ParseError> {
    let mut entry = word(24)?;
    while entry.checked_add(attr_size).is_some_and(|e| e <= attrs_end) {
        let at = entry + attr_size - 16;
        let (offset, size) = (word(at)?, word(at + 8)?);
        if offset.checked_add(size).is_none_or(|end| end > len) {
            return Err(ParseError::invalid(
                origin,
                format!(
                    "corrupt perf.data: the event ids of the attr at offset {entry} claim \
                     {size} bytes at offset {offset}, past the end of the file ({len} bytes)"
                ),
            ));
        }
        entry += attr_size;
    }
    Ok(())
}

/// A feature section `offset..end` of the file, read as `u32`s in the
/// file's byte order, every read checked against its end.
struct Section<'a> {
    bytes: &'a [u8],
    offset: u64,
    end: u64,
    le: bool,
    origin: &'a str,
    name: &'a str,
}

impl<'a> Section<'a> {
    fn new(
        bytes: &'a [u8],
        offset: u64,
        end: u64,
        le: bool,
        origin: &'a str,
        name: &'a str,
    ) -> Self {
        Section {
            bytes,
            offset,
            end,
            le,
            origin,
            name,
        }
    }

    fn bad(&self, at: u64) -> ParseError {
        ParseError::invalid(
            self.origin,
            format!(
                "corrupt perf.data: the {} section (offset {}) runs past its end at offset {at}",
                self.name, self.offset
            ),
        )
    }

    fn u32_at(&self, at: u64) -> Result<u64, ParseError> {
        if at.checked_add(4).is_none_or(|e| e > self.end) {
            return Err(self.bad(at));
        }
        let i = usize::try_from(at).map_err(|_| self.bad(at))?;
        let b = self
            .bytes
            .get(i..i + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .ok_or_else(|| self.bad(at))?;
        Ok(u64::from(if self.le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }))
    }
}

/// Walk the `HEADER_CMDLINE` feature section (`u32 nr`, then `nr` strings
/// of a `u32` length and that many bytes): the decoder reserves `nr` slots
/// before it reads one, so a damaged `nr` was a 31 GB allocation.
fn check_cmdline(s: &Section<'_>) -> Result<(), ParseError> {
    let nr = s.u32_at(s.offset)?;
    let mut at = s.offset + 4;
    for _ in 0..nr {
        at += 4 + s.u32_at(at)?;
        if at > s.end {
            return Err(s.bad(at));
        }
    }
    Ok(())
}

/// Walk the `HEADER_EVENT_DESC` feature section (`u32 nr, u32 attr_size`,
/// then per event: the attr, `u32 nr_ids`, a `u32`-length string, `nr_ids`
/// u64 ids) and check that every count fits in the section.
fn check_event_desc(s: &Section<'_>) -> Result<(), ParseError> {
    let nr = s.u32_at(s.offset)?;
    let attr_size = s.u32_at(s.offset + 4)?;
    let mut at = s.offset + 8;
    for _ in 0..nr {
        at += attr_size;
        let nr_ids = s.u32_at(at)?;
        let len = s.u32_at(at + 4)?;
        at += 8 + len + 8 * nr_ids;
        if at > s.end {
            return Err(s.bad(at));
        }
    }
    Ok(())
}

/// `PERF_RECORD_MISC_MMAP_BUILD_ID`: an mmap2 record carries a build id.
const MISC_MMAP_BUILD_ID: u16 = 1 << 14;

/// Check a record for the faults that make linux-perf-event-reader 0.10
/// panic instead of returning an error: an mmap2 build id longer than 20
/// bytes (an `assert!` in event_record.rs), and a sample's callchain length
/// whose `× 8` overflows (sample.rs). Records it would reject anyway are left
/// to it.
pub(super) fn check_record(
    raw: &RawEventRecord,
    origin: &str,
    record: u64,
) -> Result<(), ParseError> {
    if raw.record_type == RecordType::MMAP2 && raw.misc & MISC_MMAP_BUILD_ID != 0 {
        // pid, tid (u32 each), address, length, page offset (u64 each), then
        // the build id's length.
        if let Some(&len) = raw.data.as_slice().get(32) {
            if len > 20 {
                return Err(ParseError::invalid(
                    origin,
                    format!(
                        "record {record} (mmap2): corrupt perf.data: a build id of {len} bytes \
                         (at most 20)"
                    ),
                ));
            }
        }
        return Ok(());
    }
    check_sample(raw, origin, record)
}

/// The callchain length of a sample, checked against the record: this walks
/// the fields in the decoder's own order up to the callchain.
fn check_sample(raw: &RawEventRecord, origin: &str, record: u64) -> Result<(), ParseError> {
    let info = &raw.parse_info;
    let format = info.sample_format;
    if raw.record_type != RecordType::SAMPLE || !format.contains(SampleFormat::CALLCHAIN) {
        return Ok(());
    }
    let data = raw.data.as_slice();
    let le = info.endian == Endianness::LittleEndian;
    let word = |at: usize| -> Option<u64> {
        let b = <[u8; 8]>::try_from(data.get(at..at.checked_add(8)?)?).ok()?;
        Some(if le {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    };
    let mut at = 0usize;
    for (flag, size) in [
        (SampleFormat::IDENTIFIER, 8),
        (SampleFormat::IP, 8),
        (SampleFormat::TID, 8),
        (SampleFormat::TIME, 8),
        (SampleFormat::ADDR, 8),
        (SampleFormat::ID, 8),
        (SampleFormat::STREAM_ID, 8),
        (SampleFormat::CPU, 8),
        (SampleFormat::PERIOD, 8),
    ] {
        if format.contains(flag) {
            at += size;
        }
    }
    if format.contains(SampleFormat::READ) {
        let read = info.read_format;
        let times = 8
            * (usize::from(read.contains(ReadFormat::TOTAL_TIME_ENABLED))
                + usize::from(read.contains(ReadFormat::TOTAL_TIME_RUNNING)));
        if read.contains(ReadFormat::GROUP) {
            at += 8 + times + if read.contains(ReadFormat::ID) { 8 } else { 0 };
        } else {
            let Some(nr) = word(at) else { return Ok(()) };
            let each = if read.contains(ReadFormat::ID) { 16 } else { 8 };
            let values = usize::try_from(nr).ok().and_then(|n| n.checked_mul(each));
            match values.and_then(|v| (at + 8 + times).checked_add(v)) {
                Some(end) => at = end,
                None => return Ok(()), // the decoder's reads run out first
            }
        }
    }
    let Some(len) = word(at) else { return Ok(()) };
    let room = data.len().saturating_sub(at + 8) / 8;
    if len > room as u64 {
        return Err(ParseError::invalid(
            origin,
            format!(
                "record {record} (sample): corrupt perf.data: a callchain of {len} entries \
                 in a record with room for {room}"
            ),
        ));
    }
    Ok(())
}

/// `PERF_RECORD_AUXTRACE`: `size` bytes of trace data follow the record
/// (its first field), which the decoder allocates before reading.
const AUXTRACE: u32 = 71;

/// `PERF_RECORD_COMPRESSED` and `PERF_RECORD_COMPRESSED2` (zstd data).
pub(super) const COMPRESSED: u32 = 81;
pub(super) const COMPRESSED2: u32 = 83;

/// What a walk over the record headers found.
#[derive(Debug, Default)]
pub(super) struct Walk {
    /// The end of the last whole record.
    pub end: u64,
    /// A record cut by the end: the bytes there and the size its header
    /// claims (a killed recording, a stream cut short).
    pub cut: Option<(u64, u64)>,
    /// The whole records.
    pub records: u64,
    /// The compressed records: (record number, offset, size, type).
    pub compressed: Vec<(u64, u64, u64, u32)>,
}

/// Walk the record headers of `start..end` (the data section, or a pipe's
/// stream) and check every auxtrace record's trace data against the end,
/// before the decoder allocates what it claims; note the compressed
/// records and a record the end cuts. Other framing faults are left to
/// the decoder, which reports them.
pub(super) fn check_records(
    bytes: &[u8],
    start: u64,
    end: u64,
    le: bool,
    origin: &str,
) -> Result<Walk, ParseError> {
    let end = end.min(bytes.len() as u64);
    let read = |at: u64, n: usize| -> u64 {
        let b = &bytes[at as usize..at as usize + n];
        let mut v = 0u64;
        for i in 0..n {
            let byte = if le { b[n - 1 - i] } else { b[i] };
            v = v << 8 | u64::from(byte);
        }
        v
    };
    let mut walk = Walk {
        end: start,
        ..Walk::default()
    };
    let mut at = start;
    while at + 8 <= end {
        let record = walk.records + 1;
        let kind = read(at, 4) as u32;
        let size = read(at + 6, 2);
        if size < 8 {
            break;
        }
        let mut next = at + size;
        if kind == AUXTRACE && at + 16 <= end {
            let trace = read(at + 8, 8);
            next = match next.checked_add(trace) {
                Some(e) if e <= end => e,
                _ => {
                    return Err(ParseError::invalid(
                        origin,
                        format!(
                            "record {record} (auxtrace) at offset {at}: corrupt perf.data: \
                             claims {trace} bytes of trace data, past the end of the data \
                             ({end} bytes)"
                        ),
                    ))
                }
            };
        }
        if next > end {
            walk.cut = Some((end - at, next - at));
            break;
        }
        if kind == COMPRESSED || kind == COMPRESSED2 {
            walk.compressed.push((record, at, size, kind));
        }
        walk.records = record;
        walk.end = next;
        at = next;
    }
    if walk.cut.is_none() && at < end && end - at < 8 {
        walk.cut = Some((end - at, 8));
    }
    Ok(walk)
}
