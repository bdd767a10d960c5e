//! What a new user met in the first hour with two kernels (beyond the
//! process filters of tests/report_comm.rs and the batch cases of
//! tests/batch.rs): labels, warnings and help that must say what is so.

use super::perfdata::{run, stderr};
use std::fs;
use std::path::Path;

/// A scratch tree of `(member, testdata file)` copies.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (rel, from) in files {
        let to = d.path().join(rel);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(Path::new(from), &to).unwrap();
    }
    d
}

/// `history` labels a symbol as a comparison does: `read [libc.so.6]`, and
/// no `[[kernel.kallsyms]]` (double brackets) for the core kernel.
#[test]
fn history_shows_dsos_as_comparisons_do() {
    let p = "testdata/perf-report/dso-sym-n";
    let d = tree(&[
        ("v6.8/b/run1.txt", &format!("{p}/pipes/run1.txt")),
        ("v6.8/b/run2.txt", &format!("{p}/pipes/run2.txt")),
        ("v6.9/b/run1.txt", &format!("{p}/pipes/run3.txt")),
        ("v6.9/b/run2.txt", &format!("{p}/pipes/run4.txt")),
        ("v6.10/b/run1.txt", &format!("{p}/sockets/run1.txt")),
        ("v6.10/b/run2.txt", &format!("{p}/sockets/run2.txt")),
    ]);
    let root = d.path().to_str().unwrap();
    for fmt in ["text", "markdown"] {
        let o = run(&["history", root, "-o", fmt]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(!out.contains("[["), "{fmt}: {out}");
        assert!(!out.contains("kernel.kallsyms"), "{fmt}: {out}");
        assert!(out.contains("read [libc.so.6]"), "{fmt}: {out}");
    }
}

/// A flame graph of runs recorded without -g is leaves only, and the
/// report says so naming the runs (perf.data of testdata/comm, perf script
/// of testdata/perf-script); runs with call chains raise no such warning.
#[test]
fn flame_graph_without_call_chains_warns() {
    let o = run(&[
        "testdata/comm/run1.perf.data.gz",
        "testdata/comm/run2.perf.data.gz",
        "--kallsyms",
        "testdata/comm/kallsyms.gz",
        "-o",
        "flamegraph",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(
            "no call chains in 2 runs (testdata/comm/run1.perf.data.gz, \
             testdata/comm/run2.perf.data.gz): recorded without -g; the flame graph shows \
             leaves only"
        ),
        "{e}"
    );
    let g = "testdata/perf-script/pipes-g.txt.gz";
    let o = run(&[g, "testdata/perf-script/sockets.txt.gz", "-o", "html"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("no call chains in testdata/perf-script/sockets.txt.gz: recorded without -g"),
        "{e}"
    );
    assert!(!e.contains(g), "{e}");
    let o = run(&[
        g,
        "testdata/perf-script/sockets-g.txt.gz",
        "-o",
        "flamegraph",
    ]);
    assert!(!stderr(&o).contains("no call chains"), "{}", stderr(&o));
}

const SYSTEM: [&str; 2] = [
    "testdata/comm/run1.perf.data.gz",
    "testdata/comm/run2.perf.data.gz",
];
const TASK: [&str; 2] = [
    "testdata/reach/task1.perf.data.gz",
    "testdata/reach/task2.perf.data.gz",
];

/// One side recorded with `perf record -a`, the other per task (the
/// recordings' command lines say): a warning naming both commands; and a
/// side whose runs differ in it, another. Sides recorded alike: neither.
#[test]
fn system_wide_against_per_task_warns() {
    let args = |old: &[&'static str], new: &[&'static str]| -> Vec<&'static str> {
        let mut a = vec!["--old"];
        a.extend_from_slice(old);
        a.extend(["--old-kallsyms", "testdata/comm/kallsyms.gz", "--new"]);
        a.extend_from_slice(new);
        a.extend([
            "--new-kallsyms",
            "testdata/reach/kallsyms.gz",
            "--force-map",
        ]);
        a
    };
    let o = run(&args(&SYSTEM, &TASK));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "OLD was recorded system-wide: `perf record -a -e cpu-clock -F 499 -- timeout 1.5 \
             /tmp/record-comm."
        ),
        "{out}"
    );
    assert!(
        flat.contains(
            "and NEW per task: `perf record -e cpu-clock -F 499 -- timeout 1.5 \
             /tmp/record-per-task."
        ),
        "{out}"
    );
    let o = run(&args(&[SYSTEM[0], TASK[0]], &[SYSTEM[1], TASK[1]]));
    let out = String::from_utf8_lossy(&o.stdout);
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("OLD's runs were recorded differently: 1 run system-wide (testdata/comm/run1.perf.data.gz: `perf record -a"),
        "{out}"
    );
    assert!(
        flat.contains("NEW's runs were recorded differently"),
        "{out}"
    );
    let o = run(&args(&TASK, &TASK[..1]));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("recorded differently"), "{out}");
    assert!(!out.contains("was recorded"), "{out}");
}

/// `--noise-from` runs of another kernel under `--kallsyms` (every run's
/// map): the error does not advise `--kallsyms FILE` (a dead end: it is
/// every run's map), but the map beside the noise runs with the sides' own
/// flags, and ends with that one command, `--force-map` said before it.
/// Followed, the comparison runs.
#[test]
fn noise_runs_of_another_kernel_are_told_their_map() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().to_str().unwrap();
    let noise: Vec<String> = (1..=3)
        .map(|i| {
            let to = format!("{dir}/noise{i}.perf.data.gz");
            fs::copy("testdata/other-kernel/sockets.perf.data.gz", &to).unwrap();
            to
        })
        .collect();
    let mut args = vec![
        "testdata/raw/pipes-run1.perf.data.gz",
        "testdata/raw/sockets-run1.perf.data.gz",
        "--kallsyms",
        "testdata/raw/kallsyms.gz",
        "--allow-duplicates",
        "--noise-from",
    ];
    args.extend(noise.iter().map(String::as_str));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    let flat = e.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!flat.contains("--kallsyms FILE"), "{e}");
    assert!(!flat.contains("or --force-map"), "{e}");
    assert!(
        flat.contains("and --force-map would use them anyway;"),
        "{e}"
    );
    assert!(
        flat.contains("give the compared sides theirs with --old-kallsyms and --new-kallsyms"),
        "{e}"
    );
    assert!(
        e.trim_end().ends_with(&format!("cp FILE {dir}/kallsyms")),
        "{e}"
    );
    // The advice followed: the map beside the noise runs, the sides' own flags.
    fs::copy(
        "testdata/other-kernel/kallsyms.gz",
        format!("{dir}/kallsyms.gz"),
    )
    .unwrap();
    let mut args = vec![
        "testdata/raw/pipes-run1.perf.data.gz",
        "testdata/raw/sockets-run1.perf.data.gz",
        "--old-kallsyms",
        "testdata/raw/kallsyms.gz",
        "--new-kallsyms",
        "testdata/raw/kallsyms.gz",
        "--allow-duplicates",
        "--noise-from",
    ];
    args.extend(noise.iter().map(String::as_str));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
