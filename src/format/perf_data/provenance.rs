//! What a perf.data recording says of the machine it was made on, for the
//! checks across runs ([`crate::profile::Provenance`]): the kernel's
//! release and build-id (header), the kernel map the samples were named
//! with, and for every mapped binary with samples the build-id the
//! recording holds and the one of the file that named it.
//!
//! Input: the reader's [`State`] once every record is read, and the frames
//! that were counted. Output: the run's [`Provenance`].

use super::kernel::hex;
use super::{Frame, State};
use crate::profile::{BinaryId, Provenance};
use std::collections::BTreeMap;

/// The provenance of a run whose counted frames are `frames`.
pub(super) fn of<'f>(st: &State<'_>, frames: impl Iterator<Item = &'f Frame>) -> Provenance {
    let mut binaries = BTreeMap::new();
    for f in frames {
        let (Frame::User(d, _) | Frame::UserUnknown(d)) = *f else {
            continue;
        };
        let Some(dso) = st.dsos.get(d as usize) else {
            continue;
        };
        if dso.is_jit() || binaries.contains_key(&dso.path) {
            continue;
        }
        let id = BinaryId {
            recorded: dso.recorded_build_id().map(trimmed_hex),
            named_by: dso
                .loaded()
                .and_then(|s| s.named_by.as_deref())
                .map(trimmed_hex),
            named: dso.loaded().is_some(),
        };
        binaries.insert(dso.path.clone(), id);
    }
    let kernel_map = match &st.kernel {
        Some(map) if st.fit.kernel > 0.0 => Some(match &st.map_origin {
            Some(how) => format!("{} ({how})", map.source),
            None => map.source.clone(),
        }),
        _ => None,
    };
    Provenance {
        release: st.release.clone(),
        cmdline: st.cmdline.clone(),
        kernel_build_id: st.kernel_id.as_deref().map(trimmed_hex),
        kernel_text: None,
        kernel_map,
        binaries,
        listed_down_to: None,
    }
}

/// A build-id in hexadecimal, without the zero padding perf adds to 20
/// bytes (a 16-byte id recorded as 20 is the same id).
pub(super) fn trimmed_hex(id: &[u8]) -> String {
    let n = id.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    hex(&id[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_not_part_of_the_id() {
        assert_eq!(trimmed_hex(&[0xab, 0x01, 0, 0]), "ab01");
        assert_eq!(trimmed_hex(&[0xab, 0x01]), "ab01");
        assert_eq!(trimmed_hex(&[]), "");
    }
}
