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
    assert!(e.to_string().contains("give its map: --map FILE"), "{e}");
}

fn kallsyms() -> Arc<SymbolMap> {
    Arc::new(SymbolMap::read_path("testdata/raw/kallsyms.gz").unwrap())
}

/// Kernel rows by name (the perf report parser knows no dso with `--sort sym`).
fn kernel_counts(p: &Profile) -> std::collections::BTreeMap<String, f64> {
    let mut out = std::collections::BTreeMap::new();
    for (k, &c) in &p.counts {
        if k.mode == Some(diffprofile::profile::Mode::Kernel) {
            *out.entry(k.name.to_string()).or_insert(0.0) += c;
        }
    }
    out
}

#[test]
fn perf_data_equals_perf_report_for_every_kernel_symbol() {
    let opts = ParseOptions {
        kallsyms: Some(kallsyms()),
        ..ParseOptions::default()
    };
    for w in ["sockets", "pipes"] {
        let data = parse(
            Format::PerfData,
            &format!("testdata/raw/{w}-run1.perf.data.gz"),
            &opts,
        );
        let report = parse(
            Format::PerfReport,
            &format!("testdata/perf-report/sym-n/{w}/run1.txt"),
            &ParseOptions::default(),
        );
        let (a, b) = (kernel_counts(&data), kernel_counts(&report));
        assert!(a.len() > 100, "{w}: {} kernel symbols", a.len());
        assert_eq!(a, b, "{w}");
        assert_eq!(data.total, report.total, "{w}");
        assert_eq!(data.event.as_deref(), Some("cpu-clock"));
    }
}

#[test]
fn perf_data_kernel_only_and_period_weight() {
    let path = "testdata/raw/sockets-run1.perf.data.gz";
    let base = ParseOptions {
        kallsyms: Some(kallsyms()),
        ..ParseOptions::default()
    };
    let all = parse(Format::PerfData, path, &base);
    let kernel = parse(
        Format::PerfData,
        path,
        &ParseOptions {
            kernel_only: true,
            ..base.clone()
        },
    );
    assert_eq!(kernel.total, all.total);
    assert_eq!(
        kernel.symbol_sum(),
        kernel_counts(&all).values().sum::<f64>()
    );
    let period = parse(
        Format::PerfData,
        path,
        &ParseOptions {
            weight: format::WeightBy::Period,
            ..base
        },
    );
    assert!(period.total > all.total * 1000.0);
}

#[test]
fn perf_data_refuses_kallsyms_of_another_kernel() {
    // The same map with every address shifted by one page: what a map of
    // another boot (KASLR) or build looks like. `_text` no longer sits where
    // the recording's `[kernel.kallsyms]_text` mmap says.
    let text = {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut *open("testdata/raw/kallsyms.gz"), &mut s).unwrap();
        s
    };
    let shifted: String = text
        .lines()
        .map(|l| {
            let (addr, rest) = l.split_once(' ').unwrap();
            let a = u64::from_str_radix(addr, 16).unwrap() + 0x1000;
            format!("{a:016x} {rest}\n")
        })
        .collect();
    let map = SymbolMap::parse(shifted.as_bytes(), "shifted-kallsyms").unwrap();
    let opts = ParseOptions {
        kallsyms: Some(Arc::new(map)),
        ..ParseOptions::default()
    };
    let path = "testdata/raw/sockets-run1.perf.data.gz";
    let e = format::parse(Format::PerfData, &mut *open(path), path, &opts).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("do not belong to this recording"), "{e}");
    assert!(
        e.contains("0xffffffff81000000") && e.contains("shifted-kallsyms"),
        "{e}"
    );
}

#[test]
fn damaged_perf_data_is_an_error_never_a_panic() {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut *open("testdata/raw/pipes-run1.perf.data.gz"),
        &mut bytes,
    )
    .unwrap();
    let opts = ParseOptions {
        kallsyms: Some(kallsyms()),
        ..ParseOptions::default()
    };
    // Truncations, and bytes overwritten across the header, attributes and records.
    let mut cases: Vec<Vec<u8>> = [8, 16, 100, 1000, 5000, bytes.len() / 2, bytes.len() - 3]
        .iter()
        .map(|&n| bytes[..n].to_vec())
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..40 {
        let mut b = bytes.clone();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % b.len() as u64) as usize;
            b[at] = (seed >> 32) as u8;
        }
        cases.push(b);
    }
    for (i, case) in cases.iter().enumerate() {
        // Ok (a flipped count or period) or an error naming the file.
        if let Err(e) = format::parse(Format::PerfData, &mut &case[..], "bad.data", &opts) {
            assert!(e.to_string().starts_with("bad.data"), "case {i}: {e}");
        }
    }
}
