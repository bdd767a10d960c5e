//! Kernel symbol maps found beside profiles, and which one a profile uses.
//!
//! Input: the `System.map*` / `kallsyms*` files of one directory (of a
//! tree, an archive, or the directory of a file named on the command line)
//! as [`MapFile`]s. Output ([`Beside`]): the map a perf.data recording or
//! a /proc/profile image there uses, each file read once, when first
//! needed, and shared by every profile of the directory (`Arc`, no global
//! state). A recording whose release is known prefers a map whose file
//! name names it (`kallsyms-6.8.0`, `System.map-6.8.0-rc3.gz`) and never
//! takes one that names another release; otherwise the most specific name
//! wins: for perf.data `kallsyms`, then `kallsyms*`, then `System.map`,
//! then `System.map*` (compression suffixes aside); for /proc/profile
//! images (which readprofile reads with a System.map) the other way round.
//! Two candidates of the same rank are ambiguous: an error naming them.
//!
//! [`MapAdvice`] is how the side of a profile is given its own map, for
//! the last words of every map error.

use super::SymbolMap;
use crate::input;
use anyhow::{Context, Result};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// One map file beside profiles: a path, or the bytes of an archive member
/// (possibly compressed) with its name.
#[derive(Debug)]
pub enum MapFile {
    Path(PathBuf),
    Bytes(String, Vec<u8>),
}

impl MapFile {
    pub fn name(&self) -> String {
        match self {
            MapFile::Path(p) => p.display().to_string(),
            MapFile::Bytes(name, _) => name.clone(),
        }
    }

    fn read(&self) -> Result<SymbolMap> {
        match self {
            MapFile::Path(p) => SymbolMap::read_path(&p.to_string_lossy()),
            MapFile::Bytes(name, bytes) => {
                let (_, reader) = input::decompress(Box::new(&bytes[..]))
                    .with_context(|| format!("{name}: cannot read"))?;
                SymbolMap::parse(reader, name)
            }
        }
    }
}

type Read = std::result::Result<Arc<SymbolMap>, String>;

/// The map files found in one directory, each read once when first needed.
#[derive(Debug)]
pub struct Beside {
    files: Vec<(MapFile, OnceLock<Read>)>,
}

/// What a profile reads its kernel symbols with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// perf.data (perf reads `/proc/kallsyms`).
    PerfData,
    /// A /proc/profile image (readprofile reads a System.map).
    Image,
}

impl Beside {
    pub fn new(files: Vec<MapFile>) -> Beside {
        Beside {
            files: files.into_iter().map(|f| (f, OnceLock::new())).collect(),
        }
    }

    /// The names of the map files, in order.
    pub fn names(&self) -> Vec<String> {
        self.files.iter().map(|(f, _)| f.name()).collect()
    }

    fn read(&self, i: usize) -> Read {
        let (file, cell) = &self.files[i];
        cell.get_or_init(|| file.read().map(Arc::new).map_err(|e| format!("{e:#}")))
            .clone()
    }

    /// The map a profile read by `reader` uses, for a recording of kernel
    /// `release` when known: `Ok(None)` when every map here names another
    /// release; `Err` when two are equally likely, or the chosen one cannot
    /// be read (the message names the files).
    pub fn choose(&self, reader: Reader, release: Option<&str>) -> Choice {
        match self.pick(reader, release)? {
            Some((i, _)) => self.read(i).map(Some),
            None => Ok(None),
        }
    }

    /// [`Beside::choose`], with how the map was chosen for the header:
    /// `beside the run`, and when other maps were there, which one was
    /// used and why. Maps of the same rank's fallback that disagree with
    /// the chosen one on the kernel's text (`_stext` .. `_etext`, which
    /// KASLR does not change) are two kernels' maps: an error naming both.
    pub fn choose_said(
        &self,
        reader: Reader,
        release: Option<&str>,
    ) -> std::result::Result<Option<(Arc<SymbolMap>, String)>, String> {
        let Some((i, why)) = self.pick(reader, release)? else {
            return Ok(None);
        };
        let map = self.read(i)?;
        let names = self.names();
        if names.len() == 1 {
            return Ok(Some((map, "beside the run".to_string())));
        }
        let others: Vec<usize> = (0..names.len()).filter(|&j| j != i).collect();
        let mut same = Vec::new();
        for &j in &others {
            if release.is_some() && name_release(base(&names[j])).is_some() {
                continue;
            }
            let Ok(other) = self.read(j) else { continue };
            match text_spans(&map, &other) {
                Some((a, b)) if a != b => {
                    return Err(format!(
                        "the symbol maps beside it disagree: {} gives {a} bytes of kernel text \
                         (_stext .. _etext), {} {b}: maps of two kernels; keep the one of the \
                         kernel the run was taken on",
                        names[i], names[j]
                    ))
                }
                Some(_) => same.push(base(&names[j])),
                None => {}
            }
        }
        // Named by file name: they are in the run's directory.
        let rest: Vec<&str> = others.iter().map(|&j| base(&names[j])).collect();
        let agree = if same.is_empty() {
            String::new()
        } else {
            format!(", and {} agrees on the kernel text", same.join(", "))
        };
        Ok(Some((
            map,
            format!(
                "beside the run, chosen over {}: {why}{agree}",
                rest.join(", ")
            ),
        )))
    }

    /// The index of the map [`Beside::choose`] takes, and why.
    fn pick(
        &self,
        reader: Reader,
        release: Option<&str>,
    ) -> std::result::Result<Option<(usize, &'static str)>, String> {
        let names: Vec<String> = self.names();
        let bases: Vec<&str> = names.iter().map(|n| base(n)).collect();
        if let Some(release) = release {
            let named: Vec<usize> = (0..names.len())
                .filter(|&i| name_release(bases[i]) == Some(release))
                .collect();
            if !named.is_empty() {
                return one_of(&named, &names)
                    .map(|i| Some((i, "its name is the recording's kernel release")));
            }
        }
        let open: Vec<usize> = (0..names.len())
            .filter(|&i| release.is_none() || name_release(bases[i]).is_none())
            .collect();
        if open.is_empty() {
            return Ok(None);
        }
        let why = match reader {
            Reader::PerfData => "perf's order: kallsyms, kallsyms*, System.map, System.map*",
            Reader::Image => "readprofile's order: System.map, System.map*, kallsyms, kallsyms*",
        };
        for rank in ranks(reader) {
            let tier: Vec<usize> = open
                .iter()
                .copied()
                .filter(|&i| rank(stem(bases[i])))
                .collect();
            if !tier.is_empty() {
                return one_of(&tier, &names).map(|i| Some((i, why)));
            }
        }
        Ok(None)
    }
}

/// The one index of `which`, or the error naming them all.
fn one_of(which: &[usize], names: &[String]) -> std::result::Result<usize, String> {
    match which {
        [one] => Ok(*one),
        many => Err(format!(
            "several symbol maps beside it ({})",
            many.iter()
                .map(|&i| names[i].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Two maps' kernel text lengths, `_etext` − `_stext` (or − `_text`
/// when either lacks `_stext`), when both have them.
fn text_spans(a: &SymbolMap, b: &SymbolMap) -> Option<(u64, u64)> {
    let start = ["_stext", "_text"]
        .into_iter()
        .find(|n| a.address_of(n).is_some() && b.address_of(n).is_some())?;
    let span = |m: &SymbolMap| m.address_of("_etext")?.checked_sub(m.address_of(start)?);
    Some((span(a)?, span(b)?))
}

/// [`Beside::choose`]'s answer.
pub type Choice = std::result::Result<Option<Arc<SymbolMap>>, String>;

/// A file's name without its directory (nor an archive's `a.tar:` part).
fn base(path: &str) -> &str {
    path.rsplit(['/', ':']).next().unwrap_or(path)
}

/// A map's name without a compression or `.txt` suffix.
fn stem(base: &str) -> &str {
    let mut rest = base;
    for ext in [".gz", ".zst", ".xz", ".bz2", ".txt"] {
        rest = rest.strip_suffix(ext).unwrap_or(rest);
    }
    rest
}

/// The name ranks, most specific first, for each reader.
fn ranks(reader: Reader) -> [fn(&str) -> bool; 4] {
    let kallsyms = |s: &str| s == "kallsyms";
    let kallsyms_any = |s: &str| s.starts_with("kallsyms");
    let sysmap = |s: &str| s == "System.map";
    let sysmap_any = |s: &str| s.starts_with("System.map");
    match reader {
        Reader::PerfData => [kallsyms, kallsyms_any, sysmap, sysmap_any],
        Reader::Image => [sysmap, sysmap_any, kallsyms, kallsyms_any],
    }
}

/// The release in a map's file name: `System.map-RELEASE` or
/// `kallsyms-RELEASE`, compression suffixes dropped; a release starts with a
/// digit and holds a dot.
pub fn name_release(path: &str) -> Option<&str> {
    let rest = stem(base(path));
    let rest = rest
        .strip_prefix("System.map-")
        .or_else(|| rest.strip_prefix("kallsyms-"))?;
    (rest.starts_with(|c: char| c.is_ascii_digit()) && rest.contains('.')).then_some(rest)
}

/// How the side of a profile is given its own kernel map: the words that
/// end every map error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapAdvice {
    /// Command-line flags, each written up to its file (`--new-kallsyms `,
    /// `--kallsyms-for new2=`), and the side's name (`NEW`) if it has one.
    Flags {
        kallsyms: String,
        map: String,
        side: Option<String>,
    },
    /// A results tree (batch, export): a map file in the run's directory.
    Beside,
    /// The runs of `--noise-from` in a comparison, which no flag of their
    /// own gives a map: a map file beside them (`dir`, their directory),
    /// which `--kallsyms`/`--map` (every run's) would override.
    NoiseRuns { dir: String },
}

impl Default for MapAdvice {
    fn default() -> MapAdvice {
        MapAdvice::Flags {
            kallsyms: "--kallsyms ".to_string(),
            map: "--map ".to_string(),
            side: None,
        }
    }
}

impl MapAdvice {
    /// The advice for a reader's map: `file` is what to give (`FILE`, or a
    /// path known to fit), `what` what it is; `instead` when the map the
    /// side's own flag gave is the one refused.
    pub fn give(&self, reader: Reader, file: &str, what: &str, instead: bool) -> String {
        let own = if instead {
            "the right map instead"
        } else {
            "its map"
        };
        match self {
            MapAdvice::Flags {
                kallsyms,
                map,
                side,
            } => {
                let flag = match reader {
                    Reader::PerfData => kallsyms,
                    Reader::Image => map,
                };
                match side {
                    Some(side) => format!("give {side} {own}: {flag}{file} ({what})"),
                    None => format!("give {own}: {flag}{file} ({what})"),
                }
            }
            MapAdvice::Beside => format!(
                "put its map in the run's directory of the tree, named {} ({what})",
                match reader {
                    Reader::PerfData => "kallsyms",
                    Reader::Image => "System.map",
                }
            ),
            MapAdvice::NoiseRuns { dir } => {
                let (name, every, old, new) = match reader {
                    Reader::PerfData => {
                        ("kallsyms", "--kallsyms", "--old-kallsyms", "--new-kallsyms")
                    }
                    Reader::Image => ("System.map", "--map", "--old-map", "--new-map"),
                };
                let dir = if dir.is_empty() { "." } else { dir.as_str() };
                format!(
                    "the --noise-from runs take {} map beside them, named {name} \
                     ({}FILE: {what}; {every} would give every run one map, so give the \
                     compared sides theirs with {old} and {new}): cp FILE {dir}/{name}",
                    if instead { "the right" } else { "their" },
                    if file == "FILE" {
                        String::new()
                    } else {
                        format!("FILE is {file}, ")
                    },
                )
            }
        }
    }

    /// Whether a map chosen `origin` (the flag that gave it) came from
    /// this side's own flags, either of them.
    pub fn is_own(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else { return false };
        [Reader::PerfData, Reader::Image]
            .iter()
            .any(|&r| self.flag(r) == Some(origin))
            || matches!(self, MapAdvice::Flags { side: Some(_), .. })
                && (origin.starts_with("--old-") || origin.starts_with("--new-"))
    }

    /// The flag that gives this side its map (`--new-kallsyms`), if any.
    pub fn flag(&self, reader: Reader) -> Option<&str> {
        match self {
            MapAdvice::Flags { kallsyms, map, .. } => Some(
                match reader {
                    Reader::PerfData => kallsyms,
                    Reader::Image => map,
                }
                .trim_end_matches([' ', '=']),
            ),
            MapAdvice::Beside | MapAdvice::NoiseRuns { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beside(names: &[&str]) -> Beside {
        Beside::new(
            names
                .iter()
                .map(|n| MapFile::Bytes(n.to_string(), b"ffffffff81000000 T _text\n".to_vec()))
                .collect(),
        )
    }

    fn chosen(b: &Beside, reader: Reader, release: Option<&str>) -> String {
        match b.choose(reader, release) {
            Ok(Some(m)) => m.source.clone(),
            Ok(None) => "none".to_string(),
            Err(e) => e,
        }
    }

    #[test]
    fn the_release_in_a_name_decides_first() {
        let b = beside(&[
            "d/kallsyms-6.8.0",
            "d/kallsyms-6.9.0-rc1.gz",
            "d/System.map",
        ]);
        let pd = Reader::PerfData;
        assert_eq!(chosen(&b, pd, Some("6.9.0-rc1")), "d/kallsyms-6.9.0-rc1.gz");
        assert_eq!(chosen(&b, pd, Some("6.8.0")), "d/kallsyms-6.8.0");
        // Another release: only the map that names none is left.
        assert_eq!(chosen(&b, pd, Some("6.10.0")), "d/System.map");
        // Unknown release: two kallsyms of one rank.
        let e = chosen(&b, pd, None);
        assert!(
            e.contains("d/kallsyms-6.8.0, d/kallsyms-6.9.0-rc1.gz"),
            "{e}"
        );
        let only_named = beside(&["kallsyms-6.8.0"]);
        assert_eq!(chosen(&only_named, pd, Some("6.9.0")), "none");
    }

    #[test]
    fn the_most_specific_name_wins_for_each_reader() {
        let b = beside(&[
            "t.tar:r/kallsyms.gz",
            "t.tar:r/kallsyms-g.gz",
            "t.tar:r/System.map.gz",
        ]);
        assert_eq!(chosen(&b, Reader::PerfData, None), "t.tar:r/kallsyms.gz");
        assert_eq!(chosen(&b, Reader::Image, None), "t.tar:r/System.map.gz");
        let two = beside(&["a/System.map-x", "a/System.map-y"]);
        assert!(chosen(&two, Reader::Image, None).starts_with("several symbol maps"));
    }

    #[test]
    fn releases_in_map_names() {
        assert_eq!(
            name_release("/boot/System.map-6.1.0-13-amd64"),
            Some("6.1.0-13-amd64")
        );
        assert_eq!(
            name_release("maps/kallsyms-6.18.44-fc-v657.gz"),
            Some("6.18.44-fc-v657")
        );
        assert_eq!(name_release("testdata/raw/kallsyms-g.gz"), None);
        assert_eq!(name_release("System.map.gz"), None);
    }

    #[test]
    fn advice_names_the_side_and_its_flag() {
        let a = MapAdvice::Flags {
            kallsyms: "--new-kallsyms ".into(),
            map: "--new-map ".into(),
            side: Some("NEW".into()),
        };
        assert_eq!(
            a.give(Reader::PerfData, "FILE", "its kallsyms", false),
            "give NEW its map: --new-kallsyms FILE (its kallsyms)"
        );
        assert_eq!(a.flag(Reader::Image), Some("--new-map"));
        let m = MapAdvice::Flags {
            kallsyms: "--kallsyms-for new2=".into(),
            map: "--map-for new2=".into(),
            side: Some("NEW2".into()),
        };
        assert_eq!(m.flag(Reader::PerfData), Some("--kallsyms-for new2"));
    }
}
