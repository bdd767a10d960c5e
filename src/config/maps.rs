//! Each side's own kernel map, from the command line: `--old-kallsyms` /
//! `--old-map` for the OLD side, `--new-kallsyms` / `--new-map` for every
//! other side, `--kallsyms-for SIDE=FILE` / `--map-for SIDE=FILE` for one
//! side (the most specific: it overrides the others), and how each side is
//! told to give its own map when one is missing or wrong ([`MapAdvice`]).
//!
//! Input: the flags and the resolved sides. Output: for every command-line
//! path, its side's map with the flag that gave it, and its side's advice
//! ([`SideMaps`]). A side given two different maps is an error; each map
//! file is read once however many sides use it.

use crate::cli::{Analysis, Cli};
use crate::compare::SideSpec;
use crate::symmap::{MapAdvice, SymbolMap};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the loader needs to know of each command-line path's side.
#[derive(Debug, Default)]
pub struct SideMaps {
    pub maps: BTreeMap<String, (Arc<SymbolMap>, String)>,
    pub advice: BTreeMap<String, MapAdvice>,
}

/// The per-side map flags that were given, by name (for commands without
/// OLD and NEW sides, which refuse them).
pub fn per_side_flags(a: &Analysis) -> Vec<&'static str> {
    [
        (a.old_map.is_some(), "--old-map"),
        (a.new_map.is_some(), "--new-map"),
        (a.old_kallsyms.is_some(), "--old-kallsyms"),
        (a.new_kallsyms.is_some(), "--new-kallsyms"),
        (!a.kallsyms_for.is_empty(), "--kallsyms-for"),
        (!a.map_for.is_empty(), "--map-for"),
    ]
    .into_iter()
    .filter_map(|(on, flag)| on.then_some(flag))
    .collect()
}

/// Resolve every side's own map and advice.
pub fn side_maps(cli: &Cli, sides: &[SideSpec]) -> Result<SideMaps> {
    let mut chosen: Vec<Option<(String, String)>> = vec![None; sides.len()];
    for (flag, specs) in [
        ("--kallsyms-for", &cli.kallsyms_for),
        ("--map-for", &cli.map_for),
    ] {
        for spec in specs {
            let (i, _, file) = for_side(flag, spec, sides)?;
            let name = format!("{flag} {}", sides[i].name);
            claim(&mut chosen, sides, i, file, name)?;
        }
    }
    let taken: Vec<bool> = chosen.iter().map(Option::is_some).collect();
    let old = [
        ("--old-kallsyms", &cli.old_kallsyms),
        ("--old-map", &cli.old_map),
    ];
    let new = [
        ("--new-kallsyms", &cli.new_kallsyms),
        ("--new-map", &cli.new_map),
    ];
    for (i, &taken) in taken.iter().enumerate() {
        let flags = if i == 0 { &old } else { &new };
        for (flag, file) in flags {
            if let (Some(file), false) = (file, taken) {
                claim(&mut chosen, sides, i, file, flag.to_string())?;
            }
        }
    }
    let mut read: BTreeMap<String, Arc<SymbolMap>> = BTreeMap::new();
    let mut out = SideMaps::default();
    for (i, side) in sides.iter().enumerate() {
        let advice = advice(i, sides);
        let map = match &chosen[i] {
            Some((file, flag)) => Some((read_once(&mut read, file, flag)?, flag.clone())),
            None => None,
        };
        for path in &side.paths {
            out.advice
                .entry(path.clone())
                .or_insert_with(|| advice.clone());
            let Some((map, flag)) = &map else { continue };
            if let Some((prev, _)) = out.maps.insert(path.clone(), (map.clone(), flag.clone())) {
                if !Arc::ptr_eq(&prev, map) {
                    bail!(
                        "{path} is on two sides given different maps ({flag} and another); \
                         name it on one side"
                    );
                }
            }
        }
    }
    Ok(out)
}

/// Give side `i` the map `file` (from `flag`), unless it has another.
fn claim(
    chosen: &mut [Option<(String, String)>],
    sides: &[SideSpec],
    i: usize,
    file: &str,
    flag: String,
) -> Result<()> {
    match &chosen[i] {
        Some((f, g)) if f != file => bail!(
            "{} is given two kernel maps: {g} {f} and {flag} {file}; give one",
            crate::text::side_name(&sides[i].name)
        ),
        Some(_) => Ok(()),
        None => {
            chosen[i] = Some((file.to_string(), flag));
            Ok(())
        }
    }
}

fn read_once(
    read: &mut BTreeMap<String, Arc<SymbolMap>>,
    file: &str,
    flag: &str,
) -> Result<Arc<SymbolMap>> {
    if let Some(m) = read.get(file) {
        return Ok(m.clone());
    }
    let map = SymbolMap::read_path(file)
        .with_context(|| format!("{flag} {file}"))
        .map(Arc::new)?;
    read.insert(file.to_string(), map.clone());
    Ok(map)
}

/// `SIDE=FILE` of `--kallsyms-for` / `--map-for`: the side's index, the
/// side as written, the file. SIDE is a side's name (`old`, `new`, `new2`;
/// `new` is the only NEW side of a two-way comparison) or one of its paths
/// as given; the first `=` that leaves a known side on its left splits the
/// two (a path may hold `=`).
fn for_side<'s>(
    flag: &str,
    spec: &'s str,
    sides: &[SideSpec],
) -> Result<(usize, &'s str, &'s str)> {
    for (at, _) in spec.match_indices('=') {
        let (side, file) = (&spec[..at], &spec[at + 1..]);
        if let Some(i) = side_index(side, sides)? {
            if file.is_empty() {
                bail!("{flag} {spec}: expected SIDE=FILE, the FILE is missing");
            }
            return Ok((i, side, file));
        }
    }
    let names: Vec<&str> = sides.iter().map(|s| s.name.as_str()).collect();
    bail!(
        "{flag} {spec}: expected SIDE=FILE where SIDE is one of {} or a path of a side as given",
        names.join(", ")
    )
}

/// The side `key` names: by name (any case), or as one of its paths.
fn side_index(key: &str, sides: &[SideSpec]) -> Result<Option<usize>> {
    if let Some(i) = sides.iter().position(|s| s.name.eq_ignore_ascii_case(key)) {
        return Ok(Some(i));
    }
    let by_path: Vec<usize> = (0..sides.len())
        .filter(|&i| sides[i].paths.iter().any(|p| p == key))
        .collect();
    match by_path.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        _ => bail!("{key} is a path of several sides: name the side (old, new, …) instead"),
    }
}

/// How side `i` is given its own map: the two-way flags, else
/// `--kallsyms-for NAME=` for every NEW side of a multi-way comparison; a
/// command with one side (a noise model) takes the flags for every run.
fn advice(i: usize, sides: &[SideSpec]) -> MapAdvice {
    let name = &sides[i].name;
    let flags = |k: String, m: String| MapAdvice::Flags {
        kallsyms: k,
        map: m,
        side: Some(crate::text::side_name(name)),
    };
    match (sides.len(), i) {
        (0 | 1, _) => MapAdvice::default(),
        (_, 0) => flags("--old-kallsyms ".into(), "--old-map ".into()),
        (2, _) => flags("--new-kallsyms ".into(), "--new-map ".into()),
        _ => flags(
            format!("--kallsyms-for {name}="),
            format!("--map-for {name}="),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sides(names: &[(&str, &[&str])]) -> Vec<SideSpec> {
        names
            .iter()
            .map(|(n, p)| SideSpec {
                name: n.to_string(),
                paths: p.iter().map(|s| s.to_string()).collect(),
            })
            .collect()
    }

    #[test]
    fn sides_by_name_or_path() {
        let s = sides(&[
            ("old", &["a.data"]),
            ("new1", &["b=1.data"]),
            ("new2", &["c.data"]),
        ]);
        assert_eq!(
            for_side("--kallsyms-for", "NEW2=k", &s).unwrap(),
            (2, "NEW2", "k")
        );
        assert_eq!(
            for_side("--kallsyms-for", "b=1.data=k=x", &s).unwrap(),
            (1, "b=1.data", "k=x")
        );
        let e = for_side("--map-for", "new=k", &s).unwrap_err().to_string();
        assert!(e.contains("one of old, new1, new2"), "{e}");
        let e = for_side("--map-for", "old=", &s).unwrap_err().to_string();
        assert!(e.contains("FILE is missing"), "{e}");
    }

    #[test]
    fn each_side_is_told_its_own_flag() {
        let two = sides(&[("old", &["a"]), ("new", &["b"])]);
        let three = sides(&[("old", &["a"]), ("new1", &["b"]), ("new2", &["c"])]);
        let flag = |a: MapAdvice| a.flag(crate::symmap::Reader::PerfData).map(str::to_string);
        assert_eq!(flag(advice(1, &two)).as_deref(), Some("--new-kallsyms"));
        assert_eq!(flag(advice(0, &three)).as_deref(), Some("--old-kallsyms"));
        assert_eq!(
            flag(advice(2, &three)).as_deref(),
            Some("--kallsyms-for new2")
        );
        assert_eq!(
            advice(0, &sides(&[("replicates", &["a"])])),
            MapAdvice::default()
        );
    }
}
