//! Raw sources against the tools' own output: `/proc/profile` images folded
//! onto System.map vs genuine `readprofile -p IMG -m MAP` output, and
//! perf.data vs `perf report --no-children --sort sym -n` (testdata/raw/).

use diffprofile::format::{self, ParseOptions};
use diffprofile::input;
use diffprofile::profile::{Format, Profile};
use diffprofile::symmap::SymbolMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::sync::Arc;

fn open(path: &str) -> Box<dyn BufRead> {
    let raw: Box<dyn BufRead> = Box::new(BufReader::new(File::open(path).unwrap()));
    input::decompress(raw).unwrap().1
}

fn parse(format: Format, path: &str, opts: &ParseOptions) -> Profile {
    format::parse(format, &mut *open(path), path, opts).unwrap()
}

#[test]
fn proc_profile_equals_readprofile_output() {
    let map = Arc::new(SymbolMap::read_path("testdata/raw/System.map.gz").unwrap());
    let opts = ParseOptions {
        map: Some(map),
        ..ParseOptions::default()
    };
    for w in ["sockets", "pipes"] {
        let img = parse(
            Format::ProcProfile,
            &format!("testdata/raw/{w}-run1.proc-profile.gz"),
            &opts,
        );
        let txt = parse(
            Format::Readprofile,
            &format!("testdata/readprofile/default/{w}/run1.txt"),
            &ParseOptions::default(),
        );
        assert!(!img.counts.is_empty());
        assert_eq!(img.counts, txt.counts, "{w}");
        assert_eq!(img.total, txt.total, "{w}");
        assert_eq!(img.unattributed, txt.unattributed, "{w}");
        assert!(img.warnings.is_empty(), "{:?}", img.warnings);
    }
}

#[test]
fn proc_profile_without_map_names_the_flag() {
    let path = "testdata/raw/sockets-run1.proc-profile.gz";
    let e = format::parse(
        Format::ProcProfile,
        &mut *open(path),
        path,
        &ParseOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("--map System.map"), "{e}");
}
