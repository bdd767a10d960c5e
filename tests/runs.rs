//! Runs that are not runs (issue 24 class 4), through the real binary: a
//! recording without samples (testdata/empty/), one run given three times
//! to a noise model, copies in a tree. Each is refused, or left out with a
//! warning, in every unit and every path (main command, `batch`, `export`,
//! `noise-model`, `--noise-from`).

use crate::cli::diffprofile;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

const ZERO_DATA: &str = "testdata/empty/zero.perf.data.gz";
const ZERO_RP: &str = "testdata/empty/zero-ticks-a.readprofile.txt.gz";
const RP: &str = "testdata/readprofile/default";

fn run(args: &[&str]) -> Output {
    diffprofile().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn rp(workload: &str, r: u32) -> String {
    format!("{RP}/{workload}/run{r}.txt")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diffprofile-runs-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A tree `KERNEL/rp/runN.txt`: base = pipes, next = sockets, 3 runs each.
fn tree(dir: &Path) {
    for (k, w) in [("base", "pipes"), ("next", "sockets")] {
        fs::create_dir_all(dir.join(k).join("rp")).unwrap();
        for r in 1..=3 {
            fs::copy(rp(w, r), dir.join(format!("{k}/rp/run{r}.txt"))).unwrap();
        }
    }
}

/// A 0-sample perf.data and a 0-tick `readprofile -a` dump are refused as
/// runs in every unit and in classic output, naming each and its side
/// (they were counted as runs of zeros under -n ticks and -o classic).
#[test]
fn runs_without_samples_are_refused_in_every_unit() {
    let (old, new1, new2) = (rp("pipes", 1), rp("sockets", 1), rp("sockets", 2));
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for unit in ["share", "ticks", "robust"] {
        cases.push(vec!["-n", unit]);
    }
    cases.push(vec!["-o", "classic"]);
    cases.push(vec!["-o", "json", "-n", "ticks"]);
    for extra in cases {
        for empty in [ZERO_DATA, ZERO_RP] {
            let mut args = extra.clone();
            args.extend(["--kallsyms", "testdata/raw/kallsyms.gz"]);
            args.extend(["--old", &old, "--new", &new1, &new2, empty]);
            let o = run(&args);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
            assert!(
                e.contains(&format!("1 run(s) hold no samples: {empty} ("))
                    && e.contains("of NEW;"),
                "{args:?}: {e}"
            );
            assert!(o.stdout.is_empty(), "{args:?}");
        }
    }
}

/// In a tree, a run without samples is left out with a warning naming it,
/// in `batch` and in `export` (and so in what `--table` reads back): the
/// report is the one of the tree without it.
#[test]
fn batch_and_export_leave_out_runs_without_samples() {
    let d = scratch("empty-tree");
    let clean = d.join("clean");
    tree(&clean);
    let dirty = d.join("dirty");
    tree(&dirty);
    let zero = crate::cli::gunzip(ZERO_RP);
    fs::write(dirty.join("next/rp/run4.txt"), zero).unwrap();
    let batch = |root: &Path| {
        run(&[
            "batch",
            s(root),
            "--baseline",
            "base",
            "-n",
            "ticks",
            "-o",
            "json",
        ])
    };
    let (want, got) = (batch(&clean), batch(&dirty));
    assert_eq!(want.status.code(), Some(0), "{}", stderr(&want));
    assert_eq!(got.status.code(), Some(0), "{}", stderr(&got));
    assert!(
        stderr(&got).contains("next/rp/run4.txt: run holds no samples: left out"),
        "{}",
        stderr(&got)
    );
    let runs = |o: &Output| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["benchmarks"][0]["report"]["comparisons"].clone()
    };
    assert_eq!(runs(&got), runs(&want));
    // export: not written; --table reads the clean runs.
    let table = d.join("t.parquet");
    let o = run(&["export", s(&dirty), "-o", s(&table)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("next/rp/run4.txt: run holds no samples: left out")
            && stderr(&o).contains("exported 6 runs"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "--table",
        s(&table),
        "--old",
        "kernel=base",
        "--new",
        "kernel=next",
        "-n",
        "ticks",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("kernel=next: 3 runs"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// `noise-model` and `--noise-from` refuse one recording given three times
/// (its noise would be zero) and a run without samples, as a comparison's
/// side does; `--allow-duplicates` lets the copies through with a warning.
#[test]
fn noise_models_refuse_copies_and_empty_runs() {
    let one = rp("pipes", 1);
    let o = run(&["noise-model", &one, &one, &one]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("1 recording(s) given more than once in one side")
            && e.contains("--allow-duplicates"),
        "{e}"
    );
    let o = run(&["noise-model", &one, &one, &one, "--allow-duplicates"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: --allow-duplicates: 1 recording(s)"));
    let (old, new) = (rp("pipes", 2), rp("sockets", 1));
    let o = run(&[
        "--noise-from",
        &one,
        &one,
        &one,
        "--old",
        &old,
        "--new",
        &new,
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("noise model from") && e.contains("given more than once"),
        "{e}"
    );
    let (r2, r3) = (rp("pipes", 2), rp("pipes", 3));
    let o = run(&["noise-model", &one, &r2, &r3, ZERO_RP]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!("1 run(s) hold no samples: {ZERO_RP}")),
        "{e}"
    );
    // Three real replicates: learned.
    let o = run(&["noise-model", &one, &r2, &r3]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
