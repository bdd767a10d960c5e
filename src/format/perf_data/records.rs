//! The data section's records in time order, read in place.
//!
//! linux-perf-data's iterator copies every record's body into a buffer of
//! its own and queues the copies per round (`PERF_RECORD_FINISHED_ROUND`)
//! to sort them by time; a file in memory (mapped) does not need the
//! copies. [`InPlace`] walks the record headers of the mapped data section
//! and queues only each record's sort key and attribute, with the same
//! round logic and the same key (timestamp, then file offset, which makes
//! every key distinct: the order is the decoder's exactly); each record is
//! handed out as a view of the file's bytes.
//!
//! Compressed (`-z`) records are decompressed as they come, in order (perf
//! writes one zstd stream, flushed at the end of each record: a record's
//! data refers back to the earlier ones', so they cannot be decompressed
//! apart); the event records inside are kept in one buffer per compressed
//! record until the round logic has handed them out, and queued with no
//! file offset, as the decoder queues them (records of equal timestamps
//! keep their order, where the decoder's unstable sort leaves it open).
//!
//! Only a whole file takes this path: not pipe mode, no auxtrace record,
//! no cut or damaged record ([`super::compressed`]), no simpleperf file, a
//! header that was not mended ([`super::header`]); the decoder's iterator
//! reads those. A test checks that both give the same records in the same
//! order.

use super::check::{Walk, COMPRESSED, COMPRESSED2};
use linux_perf_data::linux_perf_event_reader::{
    AttrFlags, PerfEventAttr, RawData, RawEventRecord, RecordParseInfo, RecordType,
};
use linux_perf_data::{Endianness, Feature, PerfFile, PerfFileRecord, PerfRecordIter};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::io::Read;
use zstd::zstd_safe::{DCtx, InBuffer, OutBuffer};

/// `PERF_RECORD_FINISHED_ROUND`, `PERF_RECORD_AUXTRACE`, and where the
/// user (perf tool) record types start.
const FINISHED_ROUND: u32 = 68;
const AUXTRACE: u32 = 71;
const USER_TYPES: u32 = 64;

/// One record, as the reading loop needs it.
pub(super) enum Rec<'a> {
    Event {
        attr_index: usize,
        raw: RawEventRecord<'a>,
    },
    /// A record of the perf tool (build-ids, thread maps, …): not counted.
    /// Its type when known (the decoder's iterator does not say it).
    User(Option<u32>),
}

/// How a record's attribute is found (linux-perf-data's `IdParseInfos`).
enum Ids {
    One,
    /// Every attribute places the id alike.
    Same,
    /// Every attribute has `PERF_SAMPLE_IDENTIFIER`; `SAMPLE_ID_ALL` or not.
    Identifier(bool),
}

/// A record's sort key: timestamp, offset in the data section (none for
/// the records of a compressed one), as linux-perf-data sorts them.
type Key = (Option<u64>, Option<u64>);

/// A queued record: its key, attribute, and where it is: the buffer of
/// the compressed record it came from ([`FILE`] for the file itself) and
/// its offset there.
type Queued = (Key, u32, u32, usize);

/// The "buffer" of records read straight from the file.
const FILE: u32 = u32::MAX;

/// The event records of one compressed record, until all are handed out.
struct Arena {
    bytes: Vec<u8>,
    pending: usize,
}

pub(super) struct InPlace<'b> {
    bytes: &'b [u8],
    le: bool,
    at: usize,
    end: usize,
    infos: Vec<RecordParseInfo>,
    ids: Ids,
    id_to_attr: FxHashMap<u64, usize>,
    start: usize,
    // linux-perf-data's `Sorter`, with keys and places only.
    outgoing: VecDeque<Queued>,
    incoming: VecDeque<Queued>,
    prev_max: Key,
    cur_max: Key,
    lte_prev_max: usize,
    // Compressed records: the zstd stream, the bytes of an event record
    // cut by a record's end, and the buffers by number (the first one's
    // number is `first_arena`).
    dctx: Option<DCtx<'static>>,
    zbuf: Vec<u8>,
    carry: Vec<u8>,
    arenas: VecDeque<Arena>,
    first_arena: u32,
}

impl<'b> InPlace<'b> {
    /// The reader for `bytes` (a whole, plain file whose data section is
    /// `data`: start, end), or `None` when the decoder's iterator must
    /// read it.
    pub fn new(
        bytes: &'b [u8],
        file: &PerfFile,
        flagged: &[PerfEventAttr],
        walk: &Walk,
        data: (u64, u64),
    ) -> Option<InPlace<'b>> {
        let (start, end) = data;
        let end = usize::try_from(end).ok()?;
        if walk.end != data.1
            || walk.cut.is_some()
            || file.features().has_feature(Feature::SIMPLEPERF_META_INFO)
            || end > bytes.len()
        {
            return None;
        }
        let le = file.endian() == Endianness::LittleEndian;
        let at = usize::try_from(start).ok()?;
        // No auxtrace record (its trace data follows it).
        let mut p = at;
        while p + 8 <= end {
            let (kind, size) = header(bytes, p, le);
            if kind == AUXTRACE || size < 8 {
                return None;
            }
            p += size;
        }
        if p != end {
            return None;
        }
        let attrs = file.event_attributes();
        let infos: Vec<RecordParseInfo> = flagged
            .iter()
            .map(|a| RecordParseInfo::new(a, file.endian()))
            .collect();
        let first = infos.first()?;
        let ids = if infos.len() == 1 {
            Ids::One
        } else if infos.iter().all(|i| i.id_parse_info == first.id_parse_info) {
            Ids::Same
        } else {
            Ids::Identifier(flagged[0].flags.contains(AttrFlags::SAMPLE_ID_ALL))
        };
        let mut id_to_attr = FxHashMap::default();
        for (i, a) in attrs.iter().enumerate() {
            for &id in &a.event_ids {
                id_to_attr.insert(id, i);
            }
        }
        Some(InPlace {
            bytes,
            le,
            at,
            end,
            infos,
            ids,
            id_to_attr,
            start: at,
            outgoing: VecDeque::new(),
            incoming: VecDeque::new(),
            prev_max: Key::default(),
            cur_max: Key::default(),
            lte_prev_max: 0,
            dctx: None,
            zbuf: Vec::new(),
            carry: Vec::new(),
            arenas: VecDeque::new(),
            first_arena: 0,
        })
    }

    /// The next record in time order.
    pub fn next_record(&mut self) -> Option<Rec<'_>> {
        while self.arenas.front().is_some_and(|a| a.pending == 0) {
            self.arenas.pop_front();
            self.first_arena += 1;
        }
        if self.outgoing.is_empty() {
            self.read_round();
        }
        let (_, attr, arena, at) = self.outgoing.pop_front()?;
        let bytes = if arena == FILE {
            self.bytes
        } else {
            let a = &mut self.arenas[(arena - self.first_arena) as usize];
            a.pending -= 1;
            &a.bytes[..]
        };
        let (kind, size) = header(bytes, at, self.le);
        if kind >= USER_TYPES {
            return Some(Rec::User(Some(kind)));
        }
        let misc = u16_at(bytes, at + 4, self.le);
        let data = RawData::Single(&bytes[at + 8..at + size]);
        let info = self.infos[attr as usize];
        Some(Rec::Event {
            attr_index: attr as usize,
            raw: RawEventRecord::new(RecordType(kind), misc, data, info),
        })
    }

    fn u64_of(&self, b: &[u8]) -> Option<u64> {
        let b = <[u8; 8]>::try_from(b).ok()?;
        Some(if self.le {
            u64::from_le_bytes(b)
        } else {
            u64::from_be_bytes(b)
        })
    }

    /// Queue records up to the next round's end (or the data's end).
    fn read_round(&mut self) {
        while self.at + 8 <= self.end {
            let at = self.at;
            let (kind, size) = header(self.bytes, at, self.le);
            self.at += size;
            if kind == FINISHED_ROUND {
                self.finish_round();
                if !self.outgoing.is_empty() {
                    return;
                }
                continue;
            }
            if kind == COMPRESSED || kind == COMPRESSED2 {
                self.decompress(at, kind, size);
                continue;
            }
            let (t, attr) = self.key(&self.bytes[at..at + size], kind);
            let offset = Some((at - self.start) as u64);
            self.insert(((t, offset), attr, FILE, at));
        }
        self.finish();
    }

    /// A compressed record: its event records into a buffer of their own,
    /// queued (a record cut by its end waits for the next one's data). The
    /// data was checked whole ([`super::compressed`]) before this reader
    /// was chosen.
    fn decompress(&mut self, at: usize, kind: u32, size: usize) {
        let body = &self.bytes[at + 8..at + size];
        let data = if kind == COMPRESSED2 {
            let n = body.get(..8).and_then(|b| self.u64_of(b)).unwrap_or(0);
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            body.get(8..8usize.saturating_add(n)).unwrap_or(&[])
        } else {
            body
        };
        let dctx = self.dctx.get_or_insert_with(DCtx::create);
        if self.zbuf.is_empty() {
            self.zbuf = vec![0; 1 << 20];
        }
        let mut out = std::mem::take(&mut self.carry);
        let mut input = InBuffer::around(data);
        loop {
            let mut o = OutBuffer::around(&mut self.zbuf[..]);
            if dctx.decompress_stream(&mut o, &mut input).is_err() {
                break;
            }
            let n = o.pos();
            out.extend_from_slice(&self.zbuf[..n]);
            if n < self.zbuf.len() && input.pos() == data.len() {
                break;
            }
        }
        let arena = self.first_arena + self.arenas.len() as u32;
        let mut p = 0;
        let mut queued = 0;
        while p + 8 <= out.len() {
            let (kind, size) = header(&out, p, self.le);
            if size < 8 || p + size > out.len() {
                break;
            }
            let (t, attr) = self.key(&out[p..p + size], kind);
            self.insert(((t, None), attr, arena, p));
            queued += 1;
            p += size;
        }
        self.carry = out[p..].to_vec();
        out.truncate(p);
        self.arenas.push_back(Arena {
            bytes: out,
            pending: queued,
        });
    }

    /// A record's timestamp and attribute, as linux-perf-data finds them.
    fn key(&self, record: &[u8], kind: u32) -> (Option<u64>, u32) {
        if kind >= USER_TYPES {
            return (None, 0);
        }
        let body = &record[8..];
        let ty = RecordType(kind);
        let attr = match self.ids {
            Ids::One => 0,
            Ids::Same => RawEventRecord::new(ty, 0, RawData::Single(body), self.infos[0])
                .id()
                .and_then(|id| self.id_to_attr.get(&id).copied())
                .unwrap_or(0),
            Ids::Identifier(all) => {
                let id = if ty == RecordType::SAMPLE {
                    body.get(..8).and_then(|b| self.u64_of(b))
                } else if all {
                    body.len()
                        .checked_sub(8)
                        .and_then(|k| self.u64_of(&body[k..]))
                } else {
                    None
                };
                id.and_then(|id| self.id_to_attr.get(&id).copied())
                    .unwrap_or(0)
            }
        };
        let t = RawEventRecord::new(ty, 0, RawData::Single(body), self.infos[attr]).timestamp();
        (t, attr as u32)
    }

    fn insert(&mut self, q: Queued) {
        let key = q.0;
        if key <= self.prev_max {
            self.lte_prev_max += 1;
        } else if key > self.cur_max {
            self.cur_max = key;
        }
        self.incoming.push_back(q);
    }

    fn finish_round(&mut self) {
        if self.lte_prev_max > 0 {
            // Stable: records of one key (only those of compressed records
            // share one) keep their order.
            self.incoming.make_contiguous().sort_by_key(|e| e.0);
            for _ in 0..self.lte_prev_max {
                if let Some(e) = self.incoming.pop_front() {
                    self.outgoing.push_back(e);
                }
            }
        }
        self.prev_max = self.cur_max;
        self.lte_prev_max = self.incoming.len();
    }

    fn finish(&mut self) {
        self.incoming.make_contiguous().sort_by_key(|e| e.0);
        self.outgoing.extend(self.incoming.drain(..));
        self.prev_max = self.cur_max;
    }
}

fn u16_at(bytes: &[u8], at: usize, le: bool) -> u16 {
    let b = [bytes[at], bytes[at + 1]];
    if le {
        u16::from_le_bytes(b)
    } else {
        u16::from_be_bytes(b)
    }
}

/// A record header's type and size at `at`.
fn header(bytes: &[u8], at: usize, le: bool) -> (u32, usize) {
    let h = &bytes[at..at + 8];
    let (kind, size) = ([h[0], h[1], h[2], h[3]], [h[6], h[7]]);
    if le {
        (
            u32::from_le_bytes(kind),
            usize::from(u16::from_le_bytes(size)),
        )
    } else {
        (
            u32::from_be_bytes(kind),
            usize::from(u16::from_be_bytes(size)),
        )
    }
}

/// The records of a file: read in place, or by the decoder's iterator.
pub(super) enum Records<'b, R: Read> {
    InPlace(InPlace<'b>),
    Decoder(PerfRecordIter<R>),
}

impl<'b, R: Read> Records<'b, R> {
    /// The next record, or the decoder's error.
    pub fn next(&mut self, file: &mut PerfFile) -> Result<Option<Rec<'_>>, linux_perf_data::Error> {
        match self {
            Records::InPlace(r) => Ok(r.next_record()),
            Records::Decoder(it) => Ok(it.next_record(file)?.map(|r| match r {
                PerfFileRecord::EventRecord { attr_index, record } => Rec::Event {
                    attr_index,
                    raw: record,
                },
                PerfFileRecord::UserRecord(_) => Rec::User(None),
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::header;
    use super::*;

    /// A record as both readers give it: attribute, type, misc, bytes.
    type Seen = Option<(usize, u32, u16, Vec<u8>)>;

    fn seen(r: Rec<'_>) -> Seen {
        match r {
            Rec::Event { attr_index, raw } => Some((
                attr_index,
                raw.record_type.0,
                raw.misc,
                raw.data.as_slice().into_owned(),
            )),
            Rec::User(_) => None,
        }
    }

    fn all(bytes: &[u8], in_place: bool) -> (bool, Vec<Seen>) {
        let o = header::open(bytes, "t").unwrap();
        let mut file = o.reader.perf_file;
        let flagged = super::super::attrs::of(bytes, &file);
        let fast = o
            .data
            .and_then(|d| InPlace::new(bytes, &file, &flagged, &o.walk, d));
        let used = fast.is_some();
        let mut records = match fast.filter(|_| in_place) {
            Some(r) => Records::InPlace(r),
            None => Records::Decoder(o.reader.record_iter),
        };
        let mut out = Vec::new();
        while let Some(r) = records.next(&mut file).unwrap() {
            out.push(seen(r));
        }
        (used, out)
    }

    #[test]
    fn in_place_records_come_in_the_decoders_order() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut read_in_place = 0;
        for rel in [
            "perfdata/plain.perf.data.gz",
            "perfdata/u.perf.data.gz",
            "perfdata/nobid.perf.data.gz",
            "perfdata/kernel.perf.data.gz",
            "perfdata/z.perf.data.gz",
            "perfdata/pipe.perf.data.gz",
            "perfdata/killed.perf.data.gz",
            "raw/pipes-run1-g.perf.data.gz",
            "comm/run1.perf.data.gz",
            "user/user.perf.data.gz",
        ] {
            let mut bytes = Vec::new();
            let f = std::fs::File::open(root.join(rel)).unwrap();
            flate2::read::GzDecoder::new(f)
                .read_to_end(&mut bytes)
                .unwrap();
            let (used, fast) = all(&bytes, true);
            let (_, slow) = all(&bytes, false);
            assert_eq!(fast.len(), slow.len(), "{rel}");
            assert!(fast == slow, "{rel}: the records differ");
            // Pipe-mode and killed recordings take the decoder.
            let whole = !["pipe.", "killed."].iter().any(|k| rel.contains(k));
            assert_eq!(used, whole, "{rel}");
            read_in_place += usize::from(used);
        }
        assert_eq!(read_in_place, 8);
    }
}
