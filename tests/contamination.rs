//! Changed rows that belong to other processes (src/sanity/contamination.rs):
//! real recordings of one workload (find over /usr), two of them with a
//! `yes` process beside it
//! (testdata/contamination/, scripts/record-contamination.sh).

use crate::cli::diffprofile;
use std::process::Output;

const D: &str = "testdata/contamination";

/// The report as JSON (its warnings unwrapped, one string each).
fn run(args: &[&str]) -> Output {
    diffprofile()
        .args(args)
        .args(["-o", "json"])
        .output()
        .unwrap()
}

fn warnings(o: &Output) -> Vec<String> {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

fn f(name: &str) -> String {
    format!("{D}/{name}.txt.gz")
}

/// `yes` runs beside the workload in NEW's runs only: the rows it adds are
/// marked, and one warning names it, its share on each side and its rows,
/// and says how to compare with --comm.
#[test]
fn rows_of_a_process_on_one_side_only_are_attributed_to_it() {
    let (p1, p2, y1, y2) = (f("plain1"), f("plain2"), f("yes1"), f("yes2"));
    let o = run(&["--old", &p1, &p2, "--new", &y1, &y2]);
    let w = warnings(&o);
    let hits: Vec<&String> = w
        .iter()
        .filter(|l| l.contains("ran mostly in processes"))
        .collect();
    assert_eq!(hits.len(), 1, "{w:#?}");
    let line = hits[0];
    assert!(
        line.contains("yes (OLD 0.0%, NEW 49.9% of samples: "),
        "{line}"
    );
    assert!(
        line.contains("e.g. diffprofile --comm '^find$' --old"),
        "{line}"
    );
    assert!(
        line.contains(&format!(
            "--old {D}/plain{{1,2}}.txt.gz --new {D}/yes{{1,2}}.txt.gz"
        )),
        "{line}"
    );
    // The rows named for yes are those of its write loop.
    assert!(line.contains("__GI___libc_write"), "{line}");
    assert!(
        !line.contains("find ("),
        "the workload is never blamed: {line}"
    );
}

/// The same comparison restricted to the workload (--comm '^find$'): no
/// process but find is left, so nothing is attributed.
#[test]
fn with_comm_nothing_is_attributed() {
    let (p1, p2, y1, y2) = (f("plain1"), f("plain2"), f("yes1"), f("yes2"));
    let o = run(&["--comm", "^find$", "--old", &p1, &p2, "--new", &y1, &y2]);
    let w = warnings(&o);
    assert!(
        !w.iter()
            .any(|l| l.contains("processes whose share differs")),
        "{w:#?}"
    );
}

/// A noise model learned from runs without `yes`, used on a pair where
/// NEW has it: one warning says the mix differs from the model's runs.
/// On a pair of plain runs it says nothing.
#[test]
fn a_mix_unlike_the_noise_models_runs_is_said() {
    let (p1, p2, p3, y1) = (f("plain1"), f("plain2"), f("plain3"), f("yes1"));
    let o = run(&["--noise-from", &p1, &p2, &p3, "--old", &p3, "--new", &y1]);
    let w = warnings(&o);
    let hits: Vec<&String> = w
        .iter()
        .filter(|l| l.contains("from the noise model's runs"))
        .collect();
    assert_eq!(hits.len(), 1, "{w:#?}");
    assert!(
        hits[0].contains("yes 0.0% in the model's runs, "),
        "{}",
        hits[0]
    );
    assert!(hits[0].contains("in NEW's"), "{}", hits[0]);
    // (Runs of the model's as OLD and NEW: the only plain runs there are.)
    let o = run(&["--noise-from", &p1, &p2, &p3, "--old", &p3, "--new", &p1]);
    let w = warnings(&o);
    assert!(!w.iter().any(|l| l.contains("mix of processes")), "{w:#?}");
}
