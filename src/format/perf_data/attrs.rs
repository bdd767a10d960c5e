//! The event attributes as the recording machine meant them.
//!
//! `perf_event_attr`'s flags (`disabled`, `exclude_user`, `freq`,
//! `sample_id_all`, …) are C bitfields, which a big-endian compiler
//! allocates from the top bit of each byte: a big-endian file's eight flag
//! bytes are a little-endian one's with each byte's bits reversed, and perf
//! reads them so (tools/perf/util/session.c, `swap_bitfield`).
//! linux-perf-event-reader 0.10 reads them as one big-endian number, which
//! gives other flags (and drops the bits it does not know): the scope
//! (`:u`, `:k`), whether the period is a frequency, and where non-sample
//! records keep their sample fields (`sample_id_all`) would be wrong.
//!
//! Input: the file's bytes and the decoder's attributes. Output: the
//! attributes with their flags (and the sampling policy the `freq` flag
//! decides) read again from the file's attribute section. A pipe-mode file
//! (attributes in records, not in a section) keeps the decoder's.

use linux_perf_data::linux_perf_event_reader::{AttrFlags, PerfEventAttr, SamplingPolicy};
use linux_perf_data::{Endianness, PerfFile};
use std::num::NonZeroU64;

/// The header fields: attribute size, attribute section offset and size.
const ATTR_SIZE: usize = 16;
const ATTRS_AT: usize = 24;
/// The flags' offset in `perf_event_attr` (after type, size, config,
/// sample_period, sample_type, read_format).
const FLAGS_AT: usize = 40;

/// Each attribute of `perf_file`, its flags as recorded.
pub(super) fn of(bytes: &[u8], perf_file: &PerfFile) -> Vec<PerfEventAttr> {
    let mut attrs: Vec<PerfEventAttr> = perf_file
        .event_attributes()
        .iter()
        .map(|a| *a.attributes())
        .collect();
    if perf_file.endian() == Endianness::BigEndian {
        if let Some(flags) = big_endian_flags(bytes, attrs.len()) {
            for (a, f) in attrs.iter_mut().zip(flags) {
                set_flags(a, f);
            }
        }
    }
    attrs
}

/// The flags of the `n` attributes of a big-endian file's attribute
/// section, or `None` when the section does not hold `n` (pipe mode).
fn big_endian_flags(bytes: &[u8], n: usize) -> Option<Vec<AttrFlags>> {
    let u64_at = |at: usize| -> Option<u64> {
        Some(u64::from_be_bytes(*bytes.get(at..at + 8)?.first_chunk()?))
    };
    if &bytes.get(..8)? != b"2ELIFREP" {
        return None;
    }
    let size = usize::try_from(u64_at(ATTR_SIZE)?).ok()?;
    let at = usize::try_from(u64_at(ATTRS_AT)?).ok()?;
    let len = usize::try_from(u64_at(ATTRS_AT + 8)?).ok()?;
    if size <= FLAGS_AT + 8 || len != n.checked_mul(size)? {
        return None;
    }
    (0..n)
        .map(|i| {
            let from = at.checked_add(i * size + FLAGS_AT)?;
            let b: [u8; 8] = *bytes.get(from..from + 8)?.first_chunk()?;
            Some(AttrFlags::from_bits_truncate(u64::from_le_bytes(
                b.map(u8::reverse_bits),
            )))
        })
        .collect()
}

/// `flags` for `a`, and the sampling policy `freq` decides.
fn set_flags(a: &mut PerfEventAttr, flags: AttrFlags) {
    let value = match a.sampling_policy {
        SamplingPolicy::NoSampling => 0,
        SamplingPolicy::Period(p) => p.get(),
        SamplingPolicy::Frequency(f) => f,
    };
    a.sampling_policy = if flags.contains(AttrFlags::FREQ) {
        SamplingPolicy::Frequency(value)
    } else {
        NonZeroU64::new(value).map_or(SamplingPolicy::NoSampling, SamplingPolicy::Period)
    };
    a.flags = flags;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header and one attribute whose flag bytes are `flags`.
    fn file(flags: [u8; 8]) -> Vec<u8> {
        let mut b = b"2ELIFREP".to_vec();
        b.extend_from_slice(&104u64.to_be_bytes());
        b.extend_from_slice(&144u64.to_be_bytes());
        b.extend_from_slice(&104u64.to_be_bytes());
        b.extend_from_slice(&144u64.to_be_bytes());
        b.resize(104 + FLAGS_AT, 0);
        b.extend_from_slice(&flags);
        b.resize(104 + 144, 0);
        b
    }

    #[test]
    fn big_endian_flag_bytes_are_bit_reversed() {
        // disabled, inherit (bits 0, 1), exclude_kernel (5), sample_id_all
        // (18): little-endian bytes 23 00 04, each reversed.
        let b = file([0xc4, 0x00, 0x20, 0, 0, 0, 0, 0]);
        let f = big_endian_flags(&b, 1).unwrap();
        assert_eq!(
            f,
            vec![
                AttrFlags::DISABLED
                    | AttrFlags::INHERIT
                    | AttrFlags::EXCLUDE_KERNEL
                    | AttrFlags::SAMPLE_ID_ALL
            ]
        );
        assert_eq!(big_endian_flags(&b, 2), None);
        assert_eq!(big_endian_flags(&b[..150], 1), None);
    }
}
