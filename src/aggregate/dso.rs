//! Bare dso names → full paths. `perf report --sort dso,sym` prints a
//! user-space dso by its file name (`libc.so.6`, `cprog`) where `perf
//! script` and perf.data name the same object by its path
//! (`/usr/lib/x86_64-linux-gnu/libc.so.6`); a JIT map is one name in every
//! reader already (`/tmp/perf-PID.map`). Input: every run of a comparison; output: each
//! bare dso mapped to the one full path of that file name seen anywhere in
//! it, and a warning for a bare name that two full paths share (then kept
//! apart).

use super::Side;
use crate::names::Name;
use crate::profile::SymbolKey;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeMap, BTreeSet};

/// Where each bare dso goes.
#[derive(Default)]
pub struct DsoMap {
    to_path: FxHashMap<Name, Name>,
}

impl DsoMap {
    /// The mapping over every dso of every run of `sides`, and a warning
    /// for each ambiguous bare name.
    pub fn of(sides: &[Side]) -> (DsoMap, Vec<String>) {
        let mut seen: FxHashSet<Name> = FxHashSet::default();
        for run in sides.iter().flat_map(|s| &s.runs) {
            let mut last = None;
            for dso in run.counts.keys().filter_map(|k| k.dso) {
                if last != Some(dso) {
                    seen.insert(dso);
                    last = Some(dso);
                }
            }
        }
        // File name → the full paths and the bare names that have it.
        let mut by_file: BTreeMap<String, (BTreeSet<&str>, Vec<Name>)> = BTreeMap::new();
        for &dso in &seen {
            let text = dso.as_str();
            if text.starts_with('/') {
                let file = text.rsplit('/').next().unwrap_or(text);
                by_file.entry(file.to_string()).or_default().0.insert(text);
            } else if let Some(file) = bare_file(text) {
                by_file.entry(file).or_default().1.push(dso);
            }
        }
        let mut map = DsoMap::default();
        let mut warnings = Vec::new();
        for (paths, bare) in by_file.into_values() {
            if bare.is_empty() {
                continue;
            }
            let mut paths = paths.into_iter();
            match (paths.next(), paths.len()) {
                (Some(path), 0) => {
                    let to = Name::new(path);
                    map.to_path.extend(bare.into_iter().map(|b| (b, to)));
                }
                (Some(first), _) => {
                    let mut names: Vec<&str> = bare.iter().map(|b| b.as_str()).collect();
                    names.sort_unstable();
                    let all: Vec<&str> = std::iter::once(first).chain(paths).collect();
                    warnings.push(format!(
                        "dso {} (a name without its directory, as perf report prints it) \
                         may be any of {}: its rows are kept apart from theirs",
                        names.join(", "),
                        all.join(", ")
                    ));
                }
                (None, _) => {}
            }
        }
        (map, warnings)
    }

    /// `key` with its dso replaced by its full path, if it has one.
    pub fn apply(&self, key: &SymbolKey) -> SymbolKey {
        match key.dso.and_then(|d| self.to_path.get(&d)) {
            Some(&path) => SymbolKey {
                dso: Some(path),
                ..*key
            },
            None => *key,
        }
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.to_path.is_empty()
    }
}

/// The file name a dso without a directory stands for: itself
/// (`libc.so.6`); `None` for perf's own bracketed names
/// (`[kernel.kallsyms]`, `[vdso]`, `[unknown]`), which are the same in
/// every reader.
fn bare_file(dso: &str) -> Option<String> {
    (!dso.is_empty() && !dso.starts_with('[') && !dso.contains('/')).then(|| dso.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Format, Profile};

    fn side(name: &str, dsos: &[&str]) -> Side {
        let mut run = Profile::new(name, Format::PerfScript);
        for d in dsos {
            run.add(SymbolKey::new("f").with_dso(Some(Name::new(d))), 1.0);
        }
        Side::new(name, vec![run])
    }

    #[test]
    fn bare_names_map_to_the_one_path_of_their_file_name() {
        let sides = [
            side("old", &["libc.so.6", "[kernel.kallsyms]", "dd"]),
            side(
                "new",
                &["/usr/lib/libc.so.6", "/bin/dd", "[kernel.kallsyms]"],
            ),
        ];
        let (map, warnings) = DsoMap::of(&sides);
        assert!(warnings.is_empty(), "{warnings:?}");
        let dso = |d: &str| {
            map.apply(&SymbolKey::new("f").with_dso(Some(Name::new(d))))
                .dso
                .map(|n| n.to_string())
        };
        assert_eq!(dso("libc.so.6").as_deref(), Some("/usr/lib/libc.so.6"));
        assert_eq!(dso("dd").as_deref(), Some("/bin/dd"));
        assert_eq!(
            dso("[kernel.kallsyms]").as_deref(),
            Some("[kernel.kallsyms]")
        );
    }

    #[test]
    fn two_paths_of_one_file_name_are_named_and_kept_apart() {
        let sides = [
            side("old", &["libc.so.6"]),
            side("new", &["/usr/lib/libc.so.6", "/opt/lib/libc.so.6"]),
        ];
        let (map, warnings) = DsoMap::of(&sides);
        assert!(map.is_empty());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("libc.so.6")
                && warnings[0].contains("/opt/lib/libc.so.6, /usr/lib/libc.so.6"),
            "{warnings:?}"
        );
    }
}
