//! The verdict does not depend on how you look: classic states its unit
//! and warns when ticks compare runs of different length, markdown and
//! JSON print names whole, `--by-name` matches symbols across binaries,
//! the unresolved-samples warning is one short line, `-h` fits a screen,
//! `man` writes the pages its help counts, and counts take their noun's
//! number (`1 sample`).

use crate::cli::{diffprofile, json_of, stdout_of};

const PS_OLD: &str = "testdata/perf-script/pipes.txt.gz";
const PS_NEW: &str = "testdata/perf-script/threads.txt.gz";

fn text(args: &[&str]) -> String {
    String::from_utf8(stdout_of(args)).unwrap()
}

/// One unit line before the table, and the run-length warning only in
/// ticks when the totals are more than 20% apart (real runs: sockets run 1
/// holds 4689 samples, pipes run 1 3555, 24% fewer).
#[test]
fn classic_states_its_unit_and_warns_on_run_length() {
    let apart = [
        "testdata/readprofile/default/sockets/run1.txt",
        "testdata/readprofile/default/pipes/run1.txt",
        "-o",
        "classic",
        "--top",
        "2",
    ];
    let out = text(&apart);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "unit: mean ticks (samples) per run; delta% against old"
    );
    assert_eq!(
        lines[1],
        "warning: NEW runs hold 24% fewer samples than OLD's; -n share compares shares"
    );
    // In shares the run length does not matter: no warning, the unit said.
    let mut share = apart.to_vec();
    share.extend(["-n", "share"]);
    let out = text(&share);
    assert!(out.starts_with("unit: % of each run's samples"), "{out}");
    assert!(!out.contains("warning"), "{out}");
    // Totals within 20% (pipes against threads, 4 runs each): no warning.
    let close = text(&[
        "testdata/readprofile/default/pipes",
        "testdata/readprofile/default/threads",
        "-o",
        "classic",
        "--top",
        "1",
    ]);
    assert!(
        close.starts_with("unit: mean ticks") && !close.contains("warning"),
        "{close}"
    );
    assert!(out.lines().all(|l| l.chars().count() <= 80));
}

/// Markdown and JSON keep every name whole, however long; text cuts it to
/// fit 80 columns.
#[test]
fn markdown_and_json_never_shorten_names() {
    let args = [PS_OLD, PS_NEW, "--top", "40"];
    let long = "__GI___pthread_disable_asynccancel";
    let mut md = args.to_vec();
    md.extend(["-o", "markdown"]);
    let md = text(&md);
    assert!(md.contains(&format!("`{long} [libc.so.6]`")), "{md}");
    assert!(!md.contains('…'), "{md}");
    let v = json_of(&args);
    assert!(v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["symbol"] == long));
    let t = text(&args);
    assert!(t.lines().all(|l| l.chars().count() <= 80), "{t}");
}

/// `--by-name`: one row per name across binaries (`read` of libc and of
/// the kernel, `[unknown]` of ten dsos in these recordings), said in the
/// header and the JSON notes.
#[test]
fn by_name_matches_symbols_across_binaries() {
    let rows = |v: &serde_json::Value, name: &str| {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["symbol"] == name)
            .count()
    };
    let apart = json_of(&[PS_OLD, PS_NEW]);
    assert_eq!(rows(&apart, "read"), 2);
    assert!(rows(&apart, "[unknown]") > 2);
    let joined = json_of(&[PS_OLD, PS_NEW, "--by-name"]);
    assert_eq!(rows(&joined, "read"), 1);
    assert_eq!(rows(&joined, "[unknown]"), 1);
    let note = "symbols matched by name alone across binaries (--by-name, as perf diff --sort sym)";
    assert!(joined["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == note));
    assert!(joined["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r.get("dso").is_none()));
    let header = text(&[PS_OLD, PS_NEW, "--by-name", "--top", "1"]);
    assert!(
        header.contains("symbols matched by name alone across binaries"),
        "{header}"
    );
    // The total is the same: only the rows' identity changed.
    assert_eq!(apart["total"], joined["total"]);
}

/// The `[unknown]` warning is one short line by default and in full with
/// `--wide` (real recording: perf's own binary without symbols).
#[test]
fn unresolved_warning_is_one_short_line() {
    let out = diffprofile()
        .args([PS_OLD, PS_NEW, "-o", "json"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let line = err
        .lines()
        .find(|l| l.contains("[unknown]"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.ends_with("--wide says why") && line.chars().count() <= 160,
        "{line}"
    );
    let t = text(&[PS_OLD, PS_NEW, "--top", "1"]);
    let start = t.find("not resolved").unwrap();
    let para = &t[t[..start].rfind("warning:").unwrap()..];
    let para = &para[..para.find("\nwarning:").unwrap_or(para.len())];
    assert!(para.lines().count() <= 2, "{para}");
    let wide = text(&[PS_OLD, PS_NEW, "--top", "1", "--wide"]);
    assert!(
        wide.contains("228 samples in 2 runs not resolved to a symbol, counted as [unknown] in\n  their dso: /usr/bin/perf 217;"),
        "{wide}"
    );
}

/// `-h` is a summary that fits one screen at 80 columns and names the
/// inputs; `--help` names perf.data and /proc/profile among them.
#[test]
fn short_help_fits_a_screen() {
    let out = diffprofile()
        .env("COLUMNS", "80")
        .arg("-h")
        .output()
        .unwrap();
    let h = String::from_utf8(out.stdout).unwrap();
    assert!(h.lines().count() <= 60, "{} lines:\n{h}", h.lines().count());
    assert!(h.lines().all(|l| l.chars().count() <= 80), "{h}");
    assert!(h.contains("perf.data, /proc/profile images"), "{h}");
    assert!(h.contains("--help lists every option"), "{h}");
    let out = diffprofile().arg("--help").output().unwrap();
    let long = String::from_utf8(out.stdout).unwrap();
    assert!(long.contains("perf.data files") && long.contains("/proc/profile images"));
    assert!(long.contains("Examples:") && long.lines().count() > 2 * h.lines().count());
}

/// `man --help` says how many pages `man --out-dir` writes, and it writes
/// that many.
#[test]
fn man_help_counts_its_pages() {
    let out = diffprofile().args(["man", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("7 pages"), "{help}");
    let dir = tempfile::tempdir().unwrap();
    let out = stdout_of(&["man", "--out-dir", dir.path().to_str().unwrap()]);
    let listed = String::from_utf8(out).unwrap();
    let pages = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(pages, 7, "{listed}");
    assert_eq!(listed.lines().count(), 7);
}

/// No `1 samples`, `1 rows`, `1 runs` in what the binary prints (one run
/// per side, a classic table with one row left out).
#[test]
fn one_is_singular() {
    for (n, want) in [(0, "0 samples"), (1, "1 sample"), (2, "2 samples")] {
        assert_eq!(diffprofile::text::plural(n, "sample"), want);
    }
    let t = text(&[
        "testdata/readprofile/default/sockets/run1.txt",
        "testdata/readprofile/default/pipes/run1.txt",
        "--top",
        "0",
    ]);
    assert!(t.contains(": 1 run, total "), "{t}");
    for bad in ["1 runs", "1 samples", "1 rows", "1 symbols"] {
        assert!(!t.contains(&format!(" {bad}")), "{bad}: {t}");
    }
}

/// docs/reference.md holds every command's `--help` at 80 columns, as the
/// binary prints it (`UPDATE_REFERENCE=1` rewrites the blocks).
#[test]
fn reference_lists_every_flag() {
    let path = "docs/reference.md";
    let mut doc = std::fs::read_to_string(path).unwrap();
    let mut stale = Vec::new();
    for cmd in ["diffprofile", "batch", "noise-model", "export", "history"] {
        let mut c = diffprofile();
        c.env("COLUMNS", "80");
        if cmd != "diffprofile" {
            c.arg(cmd);
        }
        let out = c.arg("--help").output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let open = format!("<!-- help:{cmd} -->\n");
        let start = doc.find(&open).expect("marker") + open.len();
        let end = start + doc[start..].find("<!-- end -->").expect("end marker");
        let block = format!("```\n{help}```\n");
        if doc[start..end] != block {
            stale.push(cmd);
            doc.replace_range(start..end, &block);
        }
    }
    if std::env::var("UPDATE_REFERENCE").is_ok() {
        std::fs::write(path, &doc).unwrap();
        return;
    }
    assert!(
        stale.is_empty(),
        "{path}: the --help of {stale:?} changed: UPDATE_REFERENCE=1 cargo test --test main reference"
    );
}
