//! The outside tester's fifth round: sparse tar members, an archive under
//! one directory read by export and batch as history reads it, the idle
//! functions of the running kernel, sampling rates that differ under
//! ticks, one dso named two ways in the unresolved warning (a unit test in
//! src/format/unresolved.rs), and a counts-table row without a symbol,
//! through the real binary on testdata/sweep5 (scripts/record-sweep5.sh).

use crate::cli::{json_of, refused, run, s, stderr};
use crate::scratch::Scratch;

/// Stdout and stderr of a run, every run of white space one space (the
/// report wraps its warnings).
fn said(o: &std::process::Output) -> String {
    let all = format!("{}\n{}", String::from_utf8_lossy(&o.stdout), stderr(o));
    all.split_whitespace().collect::<Vec<_>>().join(" ")
}

const D: &str = "testdata/sweep5";

/// The symbols of a JSON report's rows, in its order.
fn symbols(v: &serde_json::Value) -> Vec<String> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["symbol"].as_str().unwrap().to_string())
        .collect()
}

/// A sparse /proc/profile image in a tar archive, in each of GNU tar's
/// four sparse formats, is read as the file itself (holes zeros) under its
/// real name: the same report as the image read directly. The old GNU
/// format was passed over ("not a regular file"), the pax ones read under
/// their `GNUSparseFile.PID/` name or with the map as data.
#[test]
fn sparse_tar_members_are_read_as_their_files() {
    let direct = json_of(&[
        "--map",
        "testdata/raw/System.map.gz",
        "testdata/raw/pipes-run1.proc-profile.gz",
        "testdata/raw/pipes-run1.proc-profile.gz",
    ]);
    let total = &direct["sides"][0]["runs"][0]["total"];
    assert!(total.as_f64().unwrap() > 1000.0, "{total}");
    for f in ["gnu", "pax0.0", "pax0.1", "pax1.0"] {
        let tar = format!("{D}/sparse-{f}.tar.gz");
        let o = run(&[&tar, &tar, "-o", "json"]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{f}: {e}");
        assert!(!e.contains("not a regular file"), "{f}: {e}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let runs = v["sides"][0]["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{f}: {e}");
        assert_eq!(&runs[0]["total"], total, "{f}");
        let text = runs[0].to_string();
        assert!(text.contains("old/run1.img"), "{f}: {text}");
        assert!(!text.contains("GNUSparseFile"), "{f}: {text}");
        assert_eq!(symbols(&v), symbols(&direct), "{f}");
    }
}

/// A pax 1.0 sparse member whose map (at the start of its data) does not
/// parse refuses the archive, naming the member and the format; it is
/// never dropped.
#[test]
fn a_sparse_member_that_cannot_be_read_refuses_the_archive() {
    let mut bytes = crate::cli::gunzip(&format!("{D}/sparse-pax1.0.tar.gz"));
    let at = bytes
        .windows(9)
        .position(|w| w == b"\n0\n4096\n2")
        .expect("the pax 1.0 map");
    bytes[at + 1] = b'x';
    let d = Scratch::new("sweep5", "badsparse");
    let bad = d.join("bad.tar");
    std::fs::write(&bad, bytes).unwrap();
    let o = run(&[s(&bad), "testdata/readprofile/default/pipes/run1.txt"]);
    refused(
        &o,
        "a sparse member in the pax sparse 1.0 format, unreadable",
    );
    refused(&o, "GNUSparseFile");
}

/// `export` and `batch` of an archive whose paths all lie under one
/// directory read it one level down, as `history` does, and say so; the
/// export read kernel `tree`, benchmark `v6.1`, without a word.
#[test]
fn an_archive_under_one_directory_is_read_one_level_down() {
    let tree = format!("{D}/tree.tar.zst");
    let d = Scratch::new("sweep5", "tree");
    let t = d.join("t.parquet");
    let o = run(&["export", &tree, "-o", s(&t)]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    let note = "every path lies under the one directory tree/, which --layout \
                {kernel}/{bench}/** reads as the one kernel of the series: read one level \
                down, as --layout '*/{kernel}/{bench}/**' (kernels v6.1, v6.2)";
    assert!(e.contains(note), "{e}");
    let v = json_of(&["--table", s(&t), "kernel=v6.1", "kernel=v6.2"]);
    assert_eq!(v["sides"][0]["runs"].as_array().unwrap().len(), 3);
    assert_eq!(v["sides"][1]["runs"].as_array().unwrap().len(), 3);
    let o = run(&["batch", &tree, "--baseline", "v6.1"]);
    let all = said(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    assert!(all.contains(note), "{all}");
    assert!(all.contains("=== benchmark msg: v6.1 v6.2 ==="), "{all}");
    let o = run(&["history", &tree]);
    assert!(said(&o).contains(note), "{}", said(&o));
}

/// `--exclude-idle` drops the idle routines of current kernels (the
/// brief's six and perf's own list) by name, and with a kernel map that
/// marks the idle text, every function in it, whatever its name.
#[test]
fn exclude_idle_drops_the_idle_functions_of_this_kernel() {
    let folded = format!("{D}/idle-names.folded");
    let all = json_of(&[&folded, &folded]);
    assert_eq!(symbols(&all).len(), 13, "{:?}", symbols(&all));
    let kept = json_of(&["--exclude-idle", &folded, &folded]);
    let mut k = symbols(&kept);
    k.sort();
    assert_eq!(k, ["intel_idle_irq_work", "real_work"]);
    let map = format!("{D}/idle-System.map");
    let img = format!("{D}/idle-run1.img.gz");
    let all = symbols(&json_of(&["--map", &map, &img, &img]));
    for f in [
        "io_idle",
        "intel_idle_s2idle",
        "acpi_idle_enter_bm",
        "rest_init",
    ] {
        assert!(all.iter().any(|s| s == f), "{f}: {all:?}");
    }
    let mut kept = symbols(&json_of(&["--exclude-idle", "--map", &map, &img, &img]));
    kept.sort();
    assert_eq!(
        kept,
        ["__pi_memset", "kernel_init", "memset_orig", "rest_init"]
    );
}

/// Under `-n ticks` and `-o classic`, recordings of different sampling
/// rates are said (both rates, and `-n share`); within one side too. The
/// default (shares) says nothing.
#[test]
fn sampling_rates_that_differ_are_said_under_ticks() {
    let f999 = format!("{D}/f999.perf.data.gz");
    let f1999 = format!("{D}/f1999.perf.data.gz");
    let c = format!("{D}/c100000.perf.data.gz");
    let across = "the sides were recorded at different sampling rates (OLD at -F 999, NEW at \
                  -F 1999); under -n ticks counts scale with the sampling rate";
    let o = run(&[&f999, &f1999, "-n", "ticks"]);
    let e = said(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(e.contains(across), "{e}");
    assert!(e.contains("compare shares (-n share, the default)"), "{e}");
    let o = run(&[&f999, &f1999]);
    assert!(!said(&o).contains("sampling rate"), "{}", said(&o));
    let o = run(&["--old", &f999, &c, "--new", &f1999, "-o", "classic"]);
    let e = said(&o);
    assert!(
        e.contains("OLD's runs were recorded at different sampling rates (-F 999: 1, -c 100000: 1 runs); under -o classic"),
        "{e}"
    );
}

/// A counts-table row with a null symbol and a count is refused, naming
/// the row (the tester's table, a real export with row 1's symbol set to
/// null); it was dropped, its samples lost.
#[test]
fn a_table_row_without_a_symbol_is_refused() {
    let o = run(&[
        "--table",
        &format!("{D}/nullsym.parquet"),
        "kernel=v6.10",
        "kernel=v6.9",
    ]);
    refused(&o, "nullsym.parquet: row 1: run v6.10/messaging/run1.txt");
    refused(
        &o,
        "a row without a symbol (symbol and input_symbol both null) counts 126 samples",
    );
}
