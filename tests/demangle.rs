//! C++ names as binutils' `c++filt -p -i` prints them (libiberty without
//! parameter lists, what perf report shows), over the committed sample
//! testdata/demangle/cxx.tsv.gz (scripts/testdata-demangle.py): every
//! name of it must be spelled the same, or shown raw where c++filt shows
//! it raw. scripts/check-demangle.sh runs the same comparison on every
//! C++ name of the machine's libraries.

use diffprofile::format::perf_data::demangle;
use std::io::Read;

#[test]
fn every_sampled_name_as_cxxfilt_prints_it() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/demangle/cxx.tsv.gz");
    let file = std::fs::File::open(path).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    let mut per_lib = std::collections::BTreeMap::<&str, usize>::new();
    let mut differ = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            f.len(),
            3,
            "cxx.tsv.gz:{}: library, mangled, c++filt",
            n + 1
        );
        *per_lib.entry(f[0]).or_default() += 1;
        let got = demangle(f[1]).unwrap_or_else(|| f[1].to_string());
        if got != f[2] {
            differ.push(format!(
                "{}\n  c++filt     {}\n  diffprofile {got}",
                f[1], f[2]
            ));
        }
    }
    // The sample covers the three corpora, each with enough names.
    assert_eq!(per_lib.len(), 3, "{per_lib:?}");
    assert!(per_lib.values().all(|&n| n > 400), "{per_lib:?}");
    assert!(
        differ.is_empty(),
        "{} of {} names spelled otherwise than by c++filt:\n{}",
        differ.len(),
        text.lines().count(),
        differ.join("\n")
    );
}
