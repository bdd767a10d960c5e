//! The process filters and what the header says of them, on testdata/comm
//! (two system-wide runs in which another user's `spin` ran beside the
//! workload's `spin`, and `spin2line` beside both; PIDs in
//! testdata/comm/pids.txt): `--comm` matched whole, `--pid`, the warning of
//! a name unrelated processes share, the header's kept totals, and
//! `--kernel-only` with `--percentage relative`.

use super::perfdata::{run, stderr};

const RUN1: &str = "testdata/comm/run1.perf.data.gz";
const RUN2: &str = "testdata/comm/run2.perf.data.gz";
const KALLSYMS: &str = "testdata/comm/kallsyms.gz";

fn with_runs<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![RUN1, RUN2, "--kallsyms", KALLSYMS];
    a.extend_from_slice(extra);
    a
}

/// Exit 0; stdout and stderr.
fn ok(extra: &[&str]) -> (String, String) {
    let args = with_runs(extra);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let err = stderr(&o);
    (String::from_utf8(o.stdout).unwrap(), err)
}

/// Each run's samples kept by the filters, from the JSON report.
fn kept(extra: &[&str]) -> Vec<f64> {
    let mut a = extra.to_vec();
    a.extend(["-o", "json"]);
    let j: serde_json::Value = serde_json::from_str(&ok(&a).0).unwrap();
    j["sides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["runs"][0]["kept"].as_f64().expect("kept"))
        .collect()
}

/// `--comm spin` keeps the two `spin` processes of each run (76 + 90 and
/// 82 + 94 samples, as `perf script -F comm,pid` counts them), not
/// `spin2line` (79 and 80): the name is matched whole, as perf's --comms.
#[test]
fn comm_is_matched_whole() {
    assert_eq!(kept(&["--comm", "spin"]), [166.0, 176.0]);
    assert_eq!(kept(&["--comm", "spin2line"]), [79.0, 80.0]);
    // A list, and a regular expression (matched whole too).
    assert_eq!(kept(&["--comm", "spin,spin2line"]), [245.0, 256.0]);
    assert_eq!(kept(&["--comm", "spin.*"]), [245.0, 256.0]);
    // `pin` is no command of these runs: nothing kept, an error.
    let o = run(&with_runs(&["--comm", "pin", "-o", "json"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `--pid` keeps the workload's process alone (and what it forked).
#[test]
fn pid_keeps_one_process() {
    assert_eq!(
        kept(&["--comm", "spin", "--pid", "1054,1128"]),
        [76.0, 82.0]
    );
    assert_eq!(kept(&["--pid", "1046,1076"]), [90.0, 94.0]);
    let (out, _) = ok(&["--comm", "spin", "--pid", "1054,1128"]);
    assert!(
        out.contains("filter: --pid 1054,1128 (and the processes they forked)"),
        "{out}"
    );
    // One process tree a run: nothing shared to warn of.
    assert!(!out.contains("not forked from one another"), "{out}");
    let o = run(&[
        "testdata/readprofile/default/pipes",
        "testdata/readprofile/default/threads",
        "--pid",
        "42",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("--pid 42 filters perf.data recordings only")
            && e.contains("testdata/readprofile/default/pipes/run1.txt (readprofile)"),
        "{e}"
    );
    let o = run(&with_runs(&["--pid", "12,x"]));
    assert!(
        stderr(&o).contains("expected process IDs"),
        "{}",
        stderr(&o)
    );
}

/// Another user's `spin` beside the workload's: said once, with each
/// run's processes and the `--pid` that keeps one.
#[test]
fn a_shared_name_is_said() {
    let (out, _) = ok(&["--comm", "spin"]);
    let w: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        w.contains(
            "--comm spin: 2 of 2 runs hold processes of that name not forked from one another"
        ),
        "{w}"
    );
    assert!(w.contains("old run 1: PID 1046 54.2%"), "{w}");
    assert!(w.contains("new run 1: PID 1076 53.4%"), "{w}");
    assert!(
        w.contains("--pid 1046,1076 keeps each run's largest"),
        "{w}"
    );
    // One process of the name: no warning.
    let (out, _) = ok(&["--comm", "spin2line"]);
    assert!(!out.contains("not forked from one another"), "{out}");
}

/// The header states the runs' totals and what the filters kept of them,
/// in text, markdown, classic's notes, HTML and JSON.
#[test]
fn the_header_says_what_was_kept_of_what() {
    let (out, _) = ok(&["--comm", "spin"]);
    let head: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(head.contains("total 1540, kept 166 (10.8%)"), "{out}");
    assert!(head.contains("total 1569, kept 176 (11.2%)"), "{out}");
    let (md, _) = ok(&["--comm", "spin", "-o", "markdown"]);
    assert!(md.contains("kept 166 (10.8%)"), "{md}");
    // Without a sample filter, no such words and no `kept` field.
    let (plain, _) = ok(&[]);
    assert!(!plain.contains("kept"), "{plain}");
    let (json, _) = ok(&["-o", "json"]);
    assert!(!json.contains("\"kept\""));
}

/// `--kernel-only` with `--percentage relative`: the header no longer says
/// that shares stay relative to all samples, and the shares are of the
/// kernel samples (they add up to 100).
#[test]
fn kernel_only_relative_is_coherent() {
    let (out, _) = ok(&["--kernel-only", "--percentage", "relative", "--top", "1"]);
    assert!(!out.contains("relative to all samples"), "{out}");
    assert!(
        out.contains("filter: kernel samples only (--kernel-only)"),
        "{out}"
    );
    assert!(out.contains("percentage: relative"), "{out}");
    let total = out.lines().find(|l| l.ends_with(" total")).unwrap();
    assert!(total.contains("100.000  100.000"), "{total}");
    let (abs, _) = ok(&["--kernel-only", "--top", "1"]);
    let flat = abs.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("shares stay relative to all samples"),
        "{abs}"
    );
}

/// `-o classic` keeps the filter line and the dsos.
#[test]
fn classic_keeps_filters_and_dsos() {
    let (out, _) = ok(&["--comm", "spin", "-o", "classic", "-n", "share"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("unit: % of each run's samples"),
        "{out}"
    );
    assert!(lines[1].starts_with("filter: --comm spin "), "{out}");
    assert!(out.contains("[unknown] [spin]"), "{out}");
}

/// A sample filter that keeps nothing anywhere is an error (exit 2) naming
/// it, not an empty table that a `--fail-on-regression` gate passes.
#[test]
fn a_filter_that_keeps_nothing_is_an_error() {
    let o = run(&with_runs(&["--comm", "nosuchthing"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--comm nosuchthing matches no sample of any run"),
        "{}",
        stderr(&o)
    );
}
