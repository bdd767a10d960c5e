//! More property tests (issue 8) over generated readprofile dumps written to
//! a temp dir and loaded through the real load path (`app::build_report`):
//! plain = gzip = zstd = xz = bzip2 = tar = tar.gz give one JSON report;
//! `--jobs 1` = `--jobs 4` byte for byte; an alias map never changes the
//! totals; and the CSV output read back gives the input counts (the
//! render → parse round trip: there is no folded renderer, and JSON is not
//! an input format, so CSV's `old_counts`/`new_counts` are what is read back).

use clap::Parser;
use diffprofile::app;
use diffprofile::cli::Cli;
use diffprofile::config::Config;
use diffprofile::render::{self, OutputFormat};
use proptest::prelude::*;
use std::io::Write;
use std::path::Path;

const NAMES: [&str; 8] = [
    "do_syscall_64",
    "_raw_spin_lock",
    "finish_task_switch.isra.0",
    "finish_task_switch",
    "skb_release_data",
    "unix_stream_read_generic",
    "copy_page_to_iter.constprop.0",
    "__slab_free",
];

/// A readprofile default dump (`%6u %-40s %8.4f`, `*unknown*`, `total`).
fn dump(counts: &[u32]) -> Vec<u8> {
    let mut s = String::new();
    for (i, &c) in counts.iter().enumerate() {
        if c > 0 {
            s.push_str(&format!("{c:>6} {:<40} {:>8.4}\n", NAMES[i], 0.5));
        }
    }
    let total: u32 = counts.iter().sum();
    s.push_str(&format!("{:>6} *unknown*\n", 0));
    s.push_str(&format!("{total:>6} {:<40} {:>8.4}\n", "total", 0.0001));
    s.into_bytes()
}

fn runs_strategy() -> impl Strategy<Value = Vec<Vec<u32>>> {
    prop::collection::vec(prop::collection::vec(0u32..2000, NAMES.len()), 1..4)
        .prop_filter("a run needs samples", |runs| {
            runs.iter().all(|r| r.iter().any(|&c| c > 0))
        })
}

fn config(paths: &[&str], args: &[&str]) -> Config {
    let mut v = vec!["diffprofile"];
    v.extend_from_slice(paths);
    v.extend_from_slice(args);
    Config::from_cli(Cli::parse_from(v)).expect("valid test config")
}

fn output(config: &Config, format: OutputFormat) -> Vec<u8> {
    let done = app::build_report(config).expect("report");
    let mut out = Vec::new();
    let flames = done.flames.as_ref();
    render::render(format, &done.report, flames, &config.render, &mut out).expect("render");
    out
}

/// What `app::run` writes (the binary's path: the report is built in the
/// thread pool of the config's `--jobs`, [`app::thread_pool`]).
fn run_in_pool(config: &Config) -> Vec<u8> {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    app::run(config, &mut out, &mut err).expect("run");
    out
}

/// `--jobs N` is the size of the pool the report is built in.
#[test]
fn jobs_sets_the_size_of_the_pool() {
    for n in [1usize, 3, 4] {
        let c = config(&["a", "b"], &["--jobs", &n.to_string()]);
        let pool = app::thread_pool(c.jobs).unwrap();
        assert_eq!(pool.current_num_threads(), n);
        assert_eq!(pool.install(rayon::current_num_threads), n);
    }
}

/// The JSON report without `sides` (which names the sources).
fn json_without_sources(config: &Config) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_slice(&output(config, OutputFormat::Json)).expect("JSON");
    v.as_object_mut().expect("object").remove("sides");
    v
}

/// Write the runs of one side in every packaging; returns the paths.
fn package(dir: &Path, side: &str, runs: &[Vec<u32>]) -> Vec<String> {
    let plain = dir.join(format!("{side}-plain"));
    std::fs::create_dir_all(&plain).unwrap();
    let mut out = vec![plain.to_string_lossy().into_owned()];
    let mut tar = tar::Builder::new(Vec::new());
    for (i, counts) in runs.iter().enumerate() {
        let bytes = dump(counts);
        std::fs::write(plain.join(format!("run{i}.txt")), &bytes).unwrap();
        let mut h = tar::Header::new_ustar();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, format!("{side}/run{i}.txt"), &bytes[..])
            .unwrap();
    }
    let tar = tar.into_inner().unwrap();
    let mut compressed: Vec<(&str, Vec<u8>)> = Vec::new();
    let all: Vec<u8> = tar.clone();
    compressed.push(("tar", all.clone()));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&all).unwrap();
    compressed.push(("tar.gz", gz.finish().unwrap()));
    compressed.push(("tar.zst", zstd::encode_all(&all[..], 1).unwrap()));
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(&all).unwrap();
    compressed.push(("tar.xz", xz.finish().unwrap()));
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&all).unwrap();
    compressed.push(("tar.bz2", bz.finish().unwrap()));
    for (ext, bytes) in compressed {
        let p = dir.join(format!("{side}.{ext}"));
        std::fs::write(&p, bytes).unwrap();
        out.push(p.to_string_lossy().into_owned());
    }
    // Single files compressed one by one: a directory of .gz/.zst/.xz/.bz2.
    let each = dir.join(format!("{side}-each"));
    std::fs::create_dir_all(&each).unwrap();
    for (i, counts) in runs.iter().enumerate() {
        let bytes = dump(counts);
        let name = format!("run{i}");
        match i % 4 {
            0 => {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                gz.write_all(&bytes).unwrap();
                std::fs::write(each.join(format!("{name}.gz")), gz.finish().unwrap()).unwrap();
            }
            1 => std::fs::write(
                each.join(format!("{name}.zst")),
                zstd::encode_all(&bytes[..], 1).unwrap(),
            )
            .unwrap(),
            2 => {
                let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
                xz.write_all(&bytes).unwrap();
                std::fs::write(each.join(format!("{name}.xz")), xz.finish().unwrap()).unwrap();
            }
            _ => {
                let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                bz.write_all(&bytes).unwrap();
                std::fs::write(each.join(format!("{name}.bz2")), bz.finish().unwrap()).unwrap();
            }
        }
    }
    out.push(each.to_string_lossy().into_owned());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn plain_compressed_and_archived_give_one_report(a in runs_strategy(), b in runs_strategy()) {
        let tmp = tempfile::tempdir().unwrap();
        let old = package(tmp.path(), "old", &a);
        let new = package(tmp.path(), "new", &b);
        let want = json_without_sources(&config(&[&old[0], &new[0]], &[]));
        for (o, n) in old.iter().zip(&new).skip(1) {
            let got = json_without_sources(&config(&[o, n], &[]));
            prop_assert_eq!(&got, &want, "{} vs {}", o, n);
        }
    }

    #[test]
    fn jobs_one_equals_jobs_many(a in runs_strategy(), b in runs_strategy(), out in 0usize..5) {
        let tmp = tempfile::tempdir().unwrap();
        let old = package(tmp.path(), "old", &a);
        let new = package(tmp.path(), "new", &b);
        let format = ["text", "classic", "json", "csv", "markdown"][out];
        // Directories of runs on both sides: files are parsed in parallel.
        let one = run_in_pool(&config(&[&old[0], &new[0]], &["--jobs", "1", "-o", format]));
        let many = run_in_pool(&config(&[&old[0], &new[0]], &["--jobs", "4", "-o", format]));
        prop_assert_eq!(one, many);
    }

    #[test]
    fn aliases_keep_totals(a in runs_strategy(), b in runs_strategy(), from in 0usize..8, to in 0usize..8) {
        let tmp = tempfile::tempdir().unwrap();
        let old = package(tmp.path(), "old", &a);
        let new = package(tmp.path(), "new", &b);
        let alias = tmp.path().join("renames.alias");
        std::fs::write(&alias, format!("{} = {}\nre:^skb_.* = skb_group\n", NAMES[from], NAMES[to])).unwrap();
        let alias = alias.to_string_lossy().into_owned();
        let plain = json_without_sources(&config(&[&old[0], &new[0]], &["-n", "ticks"]));
        let aliased = json_without_sources(&config(&[&old[0], &new[0]], &["-n", "ticks", "--alias", &alias]));
        for key in ["old", "new", "delta"] {
            let (x, y) = (plain["total"][key].as_f64().unwrap(), aliased["total"][key].as_f64().unwrap());
            // Equal up to summation order.
            prop_assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "total {key}: {x} vs {y}");
        }
        let sum = |v: &serde_json::Value, key: &str| -> f64 {
            v["rows"].as_array().unwrap().iter().map(|r| r[key].as_f64().unwrap_or(0.0)).sum()
        };
        prop_assert!((sum(&plain, "old") - sum(&aliased, "old")).abs() < 1e-6);
        prop_assert!((sum(&plain, "new") - sum(&aliased, "new")).abs() < 1e-6);
    }

    #[test]
    fn csv_reads_back_the_input_counts(a in runs_strategy(), b in runs_strategy()) {
        let tmp = tempfile::tempdir().unwrap();
        let old = package(tmp.path(), "old", &a);
        let new = package(tmp.path(), "new", &b);
        let csv = output(&config(&[&old[0], &new[0]], &["--keep-suffixes"]), OutputFormat::Csv);
        let mut reader = csv::Reader::from_reader(&csv[..]);
        let headers = reader.headers().unwrap().clone();
        let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let (sym, oc, nc) = (col("symbol"), col("old_counts"), col("new_counts"));
        let mut seen = 0;
        for rec in reader.records() {
            let rec = rec.unwrap();
            let Some(i) = NAMES.iter().position(|n| *n == &rec[sym]) else { continue };
            let parse = |s: &str| -> Vec<u32> {
                s.split(|c: char| !c.is_ascii_digit()).filter(|x| !x.is_empty())
                    .map(|x| x.parse().unwrap()).collect()
            };
            prop_assert_eq!(parse(&rec[oc]), a.iter().map(|r| r[i]).collect::<Vec<_>>());
            prop_assert_eq!(parse(&rec[nc]), b.iter().map(|r| r[i]).collect::<Vec<_>>());
            seen += 1;
        }
        let present = (0..NAMES.len()).filter(|&i| a.iter().chain(&b).any(|r| r[i] > 0)).count();
        prop_assert_eq!(seen, present);
    }
}
