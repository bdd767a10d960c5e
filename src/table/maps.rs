//! Symbol maps beside raw profiles, for `export`: the `System.map*` and
//! `kallsyms*` files of each directory of a tree (read, as `batch` reads
//! them, only when a profile needs one), and whether an archive member is
//! a raw `/proc/profile` image or perf.data that needs them (its format
//! detected as `load` detects it), so that it can wait for a map that
//! comes later in the archive.

use crate::input;
use crate::load::{self, Beside, MapFile};
use crate::profile::Format;
use std::sync::Arc;

/// A directory's symbol maps; `beside` once a profile was given them.
#[derive(Default)]
pub struct DirMaps {
    pub files: Vec<(String, Vec<u8>)>,
    pub paths: Vec<std::path::PathBuf>,
    pub beside: Option<Arc<Beside>>,
}

impl DirMaps {
    pub fn beside(&mut self) -> Arc<Beside> {
        self.beside
            .get_or_insert_with(|| {
                let mut files: Vec<MapFile> =
                    self.paths.iter().cloned().map(MapFile::Path).collect();
                files.extend(
                    self.files
                        .iter()
                        .map(|(n, b)| MapFile::Bytes(n.clone(), b.clone())),
                );
                Arc::new(Beside::new(files))
            })
            .clone()
    }
}

/// Whether an archive member is in a format that reads a symbol map beside
/// it (a raw `/proc/profile` image, perf.data) and none was given.
pub fn needs_map(bytes: &[u8], opts: &load::LoadOptions) -> bool {
    let (map, kallsyms) = (opts.parse.map.is_some(), opts.parse.kallsyms.is_some());
    if map && kallsyms {
        return false;
    }
    let format = match opts.format {
        Some(f) => Some(f),
        None => detect(bytes),
    };
    match format {
        Some(Format::ProcProfile) => !map,
        Some(Format::PerfData) => !kallsyms,
        _ => false,
    }
}

/// The format of a member's bytes, detected as `load` detects it.
fn detect(bytes: &[u8]) -> Option<Format> {
    use crate::format::Detected;
    const FIRST: usize = 64 << 10;
    let (_, mut reader) = input::decompress(Box::new(bytes)).ok()?;
    let head = input::fill_at_least(&mut reader, FIRST).ok()?;
    let mut found = crate::format::detect(&head, head.len() < FIRST);
    if found == Detected::NeedMore {
        let mut head = head;
        head.extend(input::fill_at_least(&mut reader, (1 << 20) - FIRST).ok()?);
        found = crate::format::detect(&head, true);
    }
    match found {
        Detected::Format(f) => Some(f),
        _ => None,
    }
}
