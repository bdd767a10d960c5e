//! Where a profile's kernel symbol map comes from (see [`super`]): its
//! side's own map, the map for every side, or the maps beside it, found in
//! the directory of a file named on the command line, of a directory's
//! file, or (in a tree) of the run or the nearest directory above; and the
//! warning for a side's map that no run used.
//!
//! Input: the load options and where a profile is. Output: the parse
//! options with the map filled in ([`options_for`]).

use super::LoadOptions;
use crate::format::ParseOptions;
use crate::profile::{Format, Profile};
use crate::symmap::{Beside, MapAdvice, MapFile, Reader, SymbolMap};
use anyhow::{bail, Result};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The side's own map, when none of its runs named kernel samples with it
/// (they are all text, or recorded without kernel samples): given for
/// nothing, which is worth a word.
pub(super) fn unused_map(paths: &[String], opts: &LoadOptions, runs: &[Profile]) -> Option<String> {
    let (map, flag) = paths.iter().find_map(|p| opts.path_maps.get(p))?;
    let mark = format!("({flag})");
    let used = runs
        .iter()
        .filter_map(|r| r.provenance.kernel_map.as_deref())
        .any(|m| m.ends_with(&mark));
    (!used).then(|| {
        format!(
            "{flag} {}: not used, no run of this side has kernel samples to name with it \
             (only perf.data and /proc/profile images read a kernel map)",
            map.source
        )
    })
}

/// A file name that marks a kernel symbol map: `System.map*` or `kallsyms*`.
pub fn is_map_name(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.starts_with("System.map") || base.starts_with("kallsyms")
}

/// The maps of a tree's directory `dir` (`/`-separated, relative), else of
/// its nearest ancestor that holds any: a map in a kernel's directory
/// serves every benchmark below it.
pub fn maps_near(maps: &BTreeMap<String, Arc<Beside>>, dir: &str) -> Option<Arc<Beside>> {
    let mut at = dir;
    loop {
        if let Some(m) = maps.get(at) {
            return Some(m.clone());
        }
        if at.is_empty() {
            return None;
        }
        at = at.rsplit_once('/').map_or("", |(up, _)| up);
    }
}

/// The symbol maps in the directory of `path`, a file named on the command
/// line, if there are any (none for a file that is itself named as a map);
/// `seen` holds the directories already listed, so that the files of one
/// directory share their maps (each read once).
pub(super) fn beside_file(
    path: &str,
    seen: &mut BTreeMap<PathBuf, Option<Arc<Beside>>>,
) -> Option<Arc<Beside>> {
    if path == "-" || is_map_name(path) {
        return None;
    }
    let full = crate::input::os_path(path);
    let dir = match full.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    seen.entry(dir)
        .or_insert_with_key(|dir| {
            let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
                .ok()?
                .filter_map(|e| e.ok())
                .filter(|e| is_map_name(&e.file_name().to_string_lossy()))
                .map(|e| dir.join(e.file_name()))
                .filter(|p| p.is_file())
                .collect();
            if found.is_empty() {
                return None;
            }
            found.sort();
            Some(Arc::new(Beside::new(
                found.into_iter().map(MapFile::Path).collect(),
            )))
        })
        .clone()
}

/// Where a profile's symbol map can come from.
#[derive(Clone, Debug, Default)]
pub(super) struct Maps {
    /// Its side's own map and the flag that gave it.
    pub explicit: Option<(Arc<SymbolMap>, String)>,
    /// The map files beside it.
    pub beside: Option<Arc<Beside>>,
    /// How its side is given its own map, if not `parse.advice`.
    pub advice: Option<MapAdvice>,
}

/// True for formats that read a kernel symbol map.
pub(super) fn needs_map(format: Format) -> bool {
    matches!(format, Format::ProcProfile | Format::PerfData)
}

/// The map given for a profile read by `reader`: its side's own, else the
/// one for every side (perf.data: `--kallsyms`, then `--map`; images the
/// other way round), with the flag that gave it.
fn given_map(reader: Reader, opts: &LoadOptions, maps: &Maps) -> Option<(Arc<SymbolMap>, String)> {
    let p = &opts.parse;
    let both = [(&p.kallsyms, "--kallsyms"), (&p.map, "--map")];
    let order = match reader {
        Reader::PerfData => [both[0], both[1]],
        Reader::Image => [both[1], both[0]],
    };
    maps.explicit.clone().or_else(|| {
        order
            .into_iter()
            .find_map(|(m, flag)| m.clone().map(|m| (m, flag.to_string())))
    })
}

/// The parse options for one profile of `format`, with its map filled in:
/// the map given ([`given_map`]); else, for perf.data, the maps beside it
/// (chosen by the recording's release when it is read) and, for an image,
/// the map beside it.
pub(super) fn options_for<'a>(
    format: Format,
    origin: &str,
    opts: &'a LoadOptions,
    maps: &Maps,
) -> Result<Cow<'a, ParseOptions>> {
    let reader = match format {
        Format::PerfData => Reader::PerfData,
        Format::ProcProfile => Reader::Image,
        _ => return Ok(Cow::Borrowed(&opts.parse)),
    };
    let mut parse = opts.parse.clone();
    if let Some(a) = &maps.advice {
        parse.advice = a.clone();
    }
    let mut chosen = given_map(reader, opts, maps);
    if chosen.is_none() && reader == Reader::Image {
        if let Some(b) = &maps.beside {
            let what = "the System.map of the kernel the image was taken on, or a copy of its \
                        /proc/kallsyms";
            match b.choose_said(Reader::Image, None) {
                Ok(m) => chosen = m,
                Err(e) => bail!(
                    "{origin}: {e}; {}",
                    parse.advice.give(reader, "FILE", what, false)
                ),
            }
        }
    }
    match chosen {
        Some((map, flag)) => {
            parse.map_origin = Some(flag);
            parse.kallsyms = Some(map.clone());
            parse.map = Some(map);
        }
        None => {
            parse.kallsyms = None;
            parse.map = None;
            parse.beside = maps.beside.clone();
        }
    }
    Ok(Cow::Owned(parse))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_of_the_nearest_directory() {
        let b = |n: &str| Arc::new(Beside::new(vec![MapFile::Path(n.into())]));
        let maps: BTreeMap<String, Arc<Beside>> = [
            ("v6.8".to_string(), b("v6.8/kallsyms")),
            ("v6.8/pipes".to_string(), b("v6.8/pipes/kallsyms")),
        ]
        .into_iter()
        .collect();
        let near = |d: &str| maps_near(&maps, d).map(|m| m.names().join(","));
        assert_eq!(near("v6.8/pipes").as_deref(), Some("v6.8/pipes/kallsyms"));
        assert_eq!(near("v6.8/sockets/1").as_deref(), Some("v6.8/kallsyms"));
        assert_eq!(near("v6.9/pipes"), None);
    }

    #[test]
    fn map_file_names() {
        assert!(is_map_name("runs/old/System.map"));
        assert!(is_map_name("System.map-6.1.0.gz"));
        assert!(is_map_name("a.tar:dir/kallsyms.txt"));
        assert!(!is_map_name("runs/old/run1.img"));
        assert!(!is_map_name("my-kallsyms"));
    }
}
