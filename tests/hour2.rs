//! A new user's first hour on a busy machine (testdata/busy: two kernels'
//! dd runs recorded beside Rust and LLVM builds): warnings that fit 80
//! columns with C++ and Rust names cut as the table cuts them, said once,
//! in words that say what their numbers are, and header notes that say
//! what a flag did.

use super::perfdata::{run, stderr};
use std::fs;
use std::path::Path;

const OLD: &str = "testdata/busy/dd-old";
const NEW: &str = "testdata/busy/dd-new";

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every line of `text` within 80 columns.
fn fits(text: &str, what: &str) {
    for l in text.lines() {
        assert!(
            l.chars().count() <= 80,
            "{what}: {} columns: {l}\n{text}",
            l.chars().count()
        );
    }
}

/// The warnings of a text report (from the first `warning:` line on).
fn warnings(out: &str) -> String {
    out.find("\nwarning: ")
        .map_or(String::new(), |i| out[i + 1..].to_string())
}

/// Runs unlike their siblings whose worst symbols are long C++ and Rust
/// names: the warning folds at 80 columns and cuts each name in its
/// middle to the table's 40 characters; it says what its two numbers
/// are; with two sides it begins with no side's name (`new:` read as the
/// side of the OLD run it names). -o classic's warnings on stderr fold too.
#[test]
fn unlike_runs_warning_fits_80_columns_with_names_cut() {
    let o = run(&[OLD, NEW, "--top", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    fits(&out, "text");
    let w = warnings(&out).replace("\n  ", " ");
    assert!(
        w.contains("warning: run(s) unlike their siblings (a symbol's count vs what the siblings' rate predicts): OLD testdata/busy/dd-old/run1.txt.gz"),
        "{w}"
    );
    assert!(
        w.contains("llvm::GlobalsAAResu...ackHandle::deleted 55 vs 2"),
        "{w}"
    );
    assert!(w.contains("llvm::buildModuleSummaryIndex 106 vs 0"), "{w}");
    assert!(!w.contains("PointerLikeTypeTraits"), "{w}");
    assert!(!w.contains("warning: new:"), "{w}");
    // The JSON rows keep the names whole.
    let o = run(&[OLD, NEW, "-o", "json"]);
    assert!(stdout(&o).contains("llvm::GlobalsAAResult::DeletionCallbackHandle::deleted"));
    let o = run(&[OLD, NEW, "--top", "3", "-o", "classic"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("diffprofile: warning: run(s) unlike"), "{err}");
    fits(&err, "classic's stderr");
}

/// `--comm dd` on runs where dd had a smaller part of the machine in one
/// run: the warning says what the filters kept of that run and of its
/// siblings and advises `--percentage relative`; with it, the run is not
/// named, and the unresolved samples' percentage is of the kept samples,
/// as the table's shares are (423 of 6367).
#[test]
fn comm_on_a_busy_machine_advises_relative_shares() {
    let o = run(&[OLD, NEW, "--comm", "dd", "--top", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    fits(&out, "text");
    let w = warnings(&out).replace("\n  ", " ");
    assert!(
        w.contains("worst: do_syscall_64 169 vs 260, read_zero 57 vs 82; the filters kept 17% of its samples, 23% of its siblings')"),
        "{w}"
    );
    assert!(
        w.contains("--percentage relative compares shares of the kept samples"),
        "{w}"
    );
    assert!(w.contains("423 samples (1.4%) not resolved"), "{w}");
    let o = run(&[
        OLD,
        NEW,
        "--comm",
        "dd",
        "--percentage",
        "relative",
        "--top",
        "3",
    ]);
    let w = warnings(&stdout(&o)).replace("\n  ", " ");
    assert!(!w.contains("unlike their siblings"), "{w}");
    assert!(
        w.contains("423 samples (6.6% of the kept) not resolved"),
        "{w}"
    );
}

/// -o classic's unit is ticks: `--percentage relative` (which re-bases
/// shares) is said to change nothing there, not "shares re-based".
#[test]
fn classic_says_relative_changes_nothing() {
    let o = run(&[
        OLD,
        NEW,
        "--comm",
        "dd",
        "--percentage",
        "relative",
        "-o",
        "classic",
        "--top",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o).replace("\n  ", " ");
    assert!(
        out.contains("percentage: relative changes nothing: it re-bases shares, and the unit here is ticks per run (-n ticks)"),
        "{out}"
    );
    assert!(!out.contains("shares re-based"), "{out}");
}

/// With three sides a comparison's warnings say which comparison they
/// are of, `NEW1 vs OLD:`.
#[test]
fn three_sides_name_the_comparison() {
    let d = tempfile::tempdir().unwrap();
    for (dir, from, runs) in [("a", OLD, 1..=3), ("b", NEW, 1..=3), ("c", NEW, 4..=5)] {
        fs::create_dir_all(d.path().join(dir)).unwrap();
        for i in runs {
            fs::copy(
                Path::new(from).join(format!("run{i}.txt.gz")),
                d.path().join(dir).join(format!("run{i}.txt.gz")),
            )
            .unwrap();
        }
    }
    fs::copy(
        Path::new(OLD).join("run4.txt.gz"),
        d.path().join("c/run6.txt.gz"),
    )
    .unwrap();
    let p = |s: &str| d.path().join(s).to_str().unwrap().to_string();
    let o = run(&[&p("a"), &p("b"), &p("c"), "--top", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let w = warnings(&stdout(&o));
    assert!(
        w.contains("warning: NEW1 vs OLD: run(s) unlike their siblings"),
        "{w}"
    );
    assert!(w.contains("warning: NEW2 vs OLD: "), "{w}");
}

/// batch says each warning once: in the text report (and on stderr one
/// line saying how many); with JSON, which carries them too but is not
/// read on a terminal, on stderr too, one line each.
#[test]
fn batch_says_each_warning_once() {
    let d = tempfile::tempdir().unwrap();
    for (kernel, from) in [("v1", OLD), ("v2", NEW)] {
        let to = d.path().join(kernel).join("dd");
        fs::create_dir_all(&to).unwrap();
        for i in 1..=5 {
            let f = format!("run{i}.txt.gz");
            fs::copy(Path::new(from).join(&f), to.join(&f)).unwrap();
        }
    }
    let root = d.path().to_str().unwrap();
    let o = run(&["batch", root, "--baseline", "v1", "--top", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(
        out.matches("run(s) unlike their siblings").count(),
        1,
        "{out}"
    );
    fits(&out, "batch text");
    let err = stderr(&o);
    assert_eq!(
        err.replace("\n  ", " ").trim_end(),
        format!("diffprofile: warning: {root}: 2 warnings, in the report"),
    );
    let o = run(&["batch", root, "--baseline", "v1", "-o", "json"]);
    let err = stderr(&o);
    assert_eq!(
        err.matches("run(s) unlike their siblings").count(),
        1,
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "{err}");
}

/// perf script with callchains: the samples without a frame are one
/// warning naming the runs with their counts added up (69: 19, 10, 7 of
/// OLD's, 9, 13, 11 of NEW's), and none when `--comm` drops them all.
#[test]
fn frameless_samples_are_one_warning_of_kept_samples() {
    let (old, new) = ("testdata/busy/ps-old", "testdata/busy/ps-new");
    let o = run(&[old, new, "--top", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let w = warnings(&stdout(&o)).replace("\n  ", " ");
    assert_eq!(w.matches("without a frame").count(), 1, "{w}");
    assert!(
        w.contains("warning: old runs 1-3, new runs 1-3: 69 samples without a frame (empty callchain), counted as [unknown]")
            && w.contains("(7 to 19 a run)"),
        "{w}"
    );
    let o = run(&[old, new, "--top", "1", "--comm", "dd"]);
    let w = warnings(&stdout(&o));
    assert!(!w.contains("without a frame"), "{w}");
}

/// Periods and samples are never added up in the unresolved samples'
/// warning: a period-weighted report (`--show-total-period`) against a
/// sample-counted one of the same recording gets one line each, with the
/// same share.
#[test]
fn unresolved_periods_and_samples_stay_apart() {
    let o = run(&[
        "testdata/perf-report/variants/sockets-total-period.txt",
        "testdata/perf-report/sym-n/sockets/run1.txt",
        "--top",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let w = warnings(&stdout(&o)).replace("\n  ", " ");
    assert!(
        w.contains("warning: period 55527750 (2.2%) not resolved to a symbol"),
        "{w}"
    );
    assert!(
        w.contains("warning: 111 samples (2.2%) not resolved"),
        "{w}"
    );
}

/// `--kernel-only` leaves the user rows out: the header's `kept` is the
/// kernel rows' samples (the table's), not every sample.
#[test]
fn kernel_only_header_says_what_it_kept() {
    let args = [
        "testdata/comm/run1.perf.data.gz",
        "testdata/comm/run2.perf.data.gz",
        "--kallsyms",
        "testdata/comm/kallsyms.gz",
        "--kernel-only",
        "-n",
        "ticks",
    ];
    let v = super::cli::json_of(&args);
    for (side, counts) in [("old", "old_counts"), ("new", "new_counts")] {
        let s = &v["sides"].as_array().unwrap()[usize::from(side == "new")];
        let run = &s["runs"][0];
        let (total, kept) = (
            run["total"].as_f64().unwrap(),
            run["kept"].as_f64().unwrap(),
        );
        let rows: f64 = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[counts][0].as_f64().unwrap())
            .sum();
        assert_eq!(kept, rows, "{side}");
        assert!(kept < total, "{side}: kept {kept} of {total}");
    }
}

/// A flame graph's title says what its shares are of, and that runs
/// recorded without -g have no callers (testdata/comm: no -g).
#[test]
fn flame_graph_title_says_unit_and_callchains() {
    let d = tempfile::tempdir().unwrap();
    let svg = d.path().join("f.svg");
    let o = run(&[
        "testdata/comm/run1.perf.data.gz",
        "testdata/comm/run2.perf.data.gz",
        "--kallsyms",
        "testdata/comm/kallsyms.gz",
        "--comm",
        "spin",
        "--percentage",
        "relative",
        "-o",
        "flamegraph",
        "-O",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s = fs::read_to_string(&svg).unwrap();
    assert!(
        s.contains("(1 + 1 runs without callchains: leaves only, record with -g for callers; shares of the samples the filters kept)"),
        "{}",
        &s[..s.len().min(2000)]
    );
    let o = run(&[
        "testdata/busy/ps-old",
        "testdata/busy/ps-new",
        "-o",
        "flamegraph",
        "-O",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s = fs::read_to_string(&svg).unwrap();
    assert!(
        s.contains("(3 + 3 runs with callchains, shares of all samples)"),
        "{}",
        &s[..s.len().min(2000)]
    );
}

/// `--min-delta` rows said as rows below it, the two reasons apart.
#[test]
fn rows_below_min_delta_are_worded_as_rows() {
    let o = run(&[OLD, NEW, "--comm", "dd", "--min-delta", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.contains("--min-delta"))
        .unwrap_or_default();
    assert!(
        line.starts_with("... ") && line.ends_with(" rows below --min-delta not shown"),
        "{out}"
    );
}

/// The man page's SYNOPSIS gives each option's value as `--help` does
/// (`[--comm NAMES]`), not the bare flag; flags without one stay bare.
#[test]
fn man_synopsis_names_option_values() {
    let o = run(&["man"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = stdout(&o);
    let synopsis = page
        .split(".SH SYNOPSIS\n")
        .nth(1)
        .and_then(|s| s.split("\n.SH ").next())
        .unwrap_or_default();
    for want in [
        "[\\fB\\-\\-comm\\fR \\fINAMES\\fR]",
        "[\\fB\\-\\-old\\-kallsyms\\fR \\fIFILE\\fR]",
        "[\\fB\\-o\\fR|\\fB\\-\\-output\\fR \\fIOUTPUT\\fR]",
        "[\\fB\\-\\-wide\\fR]",
    ] {
        assert!(synopsis.contains(want), "{want}: {synopsis}");
    }
}
