//! Issue 24's second sweep, the output side: files replaced only when the
//! whole output is on disk, a reused `--out-dir`, messages in the user's
//! words, and reports that say what they cannot show, through the real
//! binary on the committed recordings.

use crate::cli::{diffprofile, refused, run, s, stderr};
use crate::scratch::Scratch;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Output;

const RP: &str = "testdata/readprofile/default";

/// Run with files limited to `bytes` (RLIMIT_FSIZE, SIGXFSZ ignored): a
/// write past it fails as on a full file system.
fn run_limited(args: &[&str], bytes: u64) -> Output {
    let mut c = diffprofile();
    c.args(args);
    // SAFETY: between fork and exec only async-signal-safe calls
    // (setrlimit, signal) are made.
    unsafe {
        c.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().unwrap()
}

/// A results tree: kernels v1 (the pipes runs) and v2 (the sockets runs)
/// of each benchmark in `benches`.
fn tree(root: &Path, benches: &[&str]) {
    for b in benches {
        for (k, from) in [("v1", "pipes"), ("v2", "sockets")] {
            let d = root.join(k).join(b);
            fs::create_dir_all(&d).unwrap();
            for r in 1..=2 {
                fs::copy(
                    format!("{RP}/{from}/run{r}.txt"),
                    d.join(format!("run{r}.txt")),
                )
                .unwrap();
            }
        }
    }
}

/// Only temporary files of ours would be beside the target: none left.
#[track_caller]
fn no_partial(dir: &Path) {
    let left: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// On a full file system (here: a file size limit of 4 KB) `-O`, a noise
/// model's `-o`, `history -O` and a batch's `--out-dir` fail, naming the
/// file, and leave the older file at the path as it was (before: replaced
/// by the truncated start of the new one); a report that fits replaces
/// it, keeping its permissions.
#[test]
fn a_full_disk_leaves_the_old_file() {
    use std::os::unix::fs::PermissionsExt;
    let d = Scratch::new("diffprofile-sweep3b", "full");
    let old = d.join("report.json");
    let (pipes, sockets) = (format!("{RP}/pipes"), format!("{RP}/sockets"));
    let cases: Vec<Vec<String>> = vec![
        vec![
            pipes.clone(),
            sockets.clone(),
            "-o".into(),
            "json".into(),
            "-O".into(),
        ],
        vec![
            pipes.clone(),
            sockets.clone(),
            "-o".into(),
            "text".into(),
            "-O".into(),
        ],
        vec!["noise-model".into(), pipes.clone(), "-o".into()],
        vec![
            "history".into(),
            "testdata/history/tree".into(),
            "-O".into(),
        ],
    ];
    for case in &cases {
        fs::write(&old, "OLD REPORT\n").unwrap();
        let mut args: Vec<&str> = case.iter().map(String::as_str).collect();
        args.push(s(&old));
        let o = run_limited(&args, 4096);
        refused(&o, &format!("{}: cannot write", s(&old)));
        assert!(stderr(&o).contains("File too large"), "{}", stderr(&o));
        assert_eq!(
            fs::read_to_string(&old).unwrap(),
            "OLD REPORT\n",
            "{args:?}"
        );
        no_partial(&d);
    }
    fs::set_permissions(&old, fs::Permissions::from_mode(0o640)).unwrap();
    let o = run(&[&pipes, &sockets, "-o", "json", "-O", s(&old)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(fs::read_to_string(&old).unwrap().starts_with('{'));
    let mode = fs::metadata(&old).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    no_partial(&d);

    let root = d.join("tree");
    tree(&root, &["pipe"]);
    let out = d.join("out");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("pipe.json"), "OLD REPORT\n").unwrap();
    let o = run_limited(
        &[
            "batch",
            s(&root),
            "--baseline",
            "v1",
            "-o",
            "json",
            "--out-dir",
            s(&out),
        ],
        4096,
    );
    refused(&o, "pipe.json: cannot write");
    assert_eq!(
        fs::read_to_string(out.join("pipe.json")).unwrap(),
        "OLD REPORT\n"
    );
    no_partial(&out);
}

/// `history --order-by` a column with several values per kernel names the
/// values as the user reads them: text in quotes, numbers as numbers
/// (before: Rust's `Text("…")` and `Num(126.0)`).
#[test]
fn order_by_values_in_user_words() {
    let d = Scratch::new("diffprofile-sweep3b", "order-by");
    let table = d.join("t.parquet");
    let o = run(&["export", "testdata/history/tree", "-o", s(&table)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["history", "--table", s(&table), "--order-by", "source"]);
    refused(
        &o,
        "kernel v6.10 has two values (\"v6.10/messaging/run1.txt\" and \"v6.10/perf/run1.txt\")",
    );
    let o = run(&["history", "--table", s(&table), "--order-by", "count"]);
    refused(&o, "kernel v6.10 has two values (126 and 14)");
    assert!(!stderr(&o).contains("Num("), "{}", stderr(&o));
}

/// A reused `--out-dir`: the report of a benchmark no longer in the tree
/// is removed and named (before: left beside the new ones without a
/// word), a report no run wrote is named and left, another format's
/// reports stay.
#[test]
fn a_reused_out_dir_holds_one_batch() {
    let d = Scratch::new("diffprofile-sweep3b", "reuse");
    let (both, one) = (d.join("both"), d.join("one"));
    tree(&both, &["hack", "pipe"]);
    tree(&one, &["hack"]);
    let out = d.join("out");
    let batch = |root: &Path, fmt: &str| {
        run(&[
            "batch",
            s(root),
            "--baseline",
            "v1",
            "-o",
            fmt,
            "--out-dir",
            s(&out),
        ])
    };
    let o = batch(&both, "text");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("--out-dir"), "{}", stderr(&o));
    let o = batch(&both, "json");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("--out-dir"), "{}", stderr(&o));
    fs::write(out.join("notes.md"), "mine").unwrap();
    let o = batch(&one, "text");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "--out-dir {}: removed 1 file an earlier batch wrote there that this one does not \
             (benchmarks no longer in the tree): pipe.txt",
            s(&out)
        )),
        "{e}"
    );
    assert!(
        e.contains("1 file not written by this batch and not in its index, left in place (an old report? remove it): notes.md"),
        "{e}"
    );
    assert!(!out.join("pipe.txt").exists());
    for kept in [
        "hack.txt",
        "index.txt",
        "pipe.json",
        "hack.json",
        "index.json",
        "notes.md",
    ] {
        assert!(out.join(kept).exists(), "{kept}");
    }
    // Settled: the next run says nothing of the files it removed.
    let o = batch(&one, "text");
    assert!(!stderr(&o).contains("removed"), "{}", stderr(&o));
}

/// Two batches into one `--out-dir` at once: the second is refused while
/// the first holds the lock (before: both wrote, the index of one covered
/// the reports of both); a failed run that created the directory leaves
/// none.
#[test]
fn one_batch_writes_an_out_dir_at_a_time() {
    use std::os::fd::AsRawFd;
    let d = Scratch::new("diffprofile-sweep3b", "lock");
    let root = d.join("tree");
    tree(&root, &["hack"]);
    let out = d.join("out");
    fs::create_dir_all(&out).unwrap();
    let held = fs::File::create(out.join(".diffprofile-batch.lock")).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let args = ["batch", s(&root), "--baseline", "v1", "--out-dir", s(&out)];
    let o = run(&args);
    refused(&o, "another diffprofile batch is writing there");
    assert!(!out.join("index.txt").exists());
    drop(held);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("index.txt").exists());
    let fresh = d.join("fresh");
    let o = run(&[
        "batch",
        s(&root),
        "--baseline",
        "v9",
        "--out-dir",
        s(&fresh),
    ]);
    refused(&o, "no runs of baseline kernel");
    assert!(!fresh.exists());
}

/// `--group-by regex:RE` that matches the empty string (`^(x)?` on a name
/// without the `x`) names no group: those symbols keep their own rows, in
/// a warning (before: one row with a blank name held 99% of the samples).
#[test]
fn an_empty_group_name_is_no_group() {
    let o = run(&[
        &format!("{RP}/pipes"),
        &format!("{RP}/sockets"),
        "--group-by",
        "regex:^(x)?",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    assert!(rows.len() > 100, "{}", rows.len());
    assert!(
        rows.iter().all(|r| r["symbol"] != ""),
        "a row without a name"
    );
    assert!(rows.iter().any(|r| r["symbol"] == "do_syscall_64"));
    let warned = doc["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str().unwrap().contains(
            "--group-by regex:^(x)? matches 341 symbols with the empty string (as `PageHuge`)",
        )
    });
    assert!(warned, "{}", doc["warnings"]);
}

/// The `total` row under `--inclusive` is the samples (each counted once,
/// 100% in share), not the sum of the inclusive shares (before: 710% and
/// 1129%); a filter's "kept" is samples too (before: 27433 of 3862 under
/// `--kernel-only`), the same as without --inclusive, on the recorded
/// `perf script -g` runs.
#[test]
fn the_inclusive_total_is_the_samples() {
    let (a, b) = (
        "testdata/perf-script/pipes-g.txt.gz",
        "testdata/perf-script/sockets-g.txt.gz",
    );
    let doc = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![a, b, "-o", "json"];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let total = |d: &serde_json::Value| {
        let t = &d["comparisons"][0]["total"];
        (t["old"].as_f64().unwrap(), t["new"].as_f64().unwrap())
    };
    let close = |x: (f64, f64), y: (f64, f64)| {
        assert!(
            (x.0 - y.0).abs() < 1e-9 && (x.1 - y.1).abs() < 1e-9,
            "{x:?} {y:?}"
        )
    };
    close(total(&doc(&["--inclusive"])), (100.0, 100.0));
    close(
        total(&doc(&["--inclusive", "-n", "ticks"])),
        (3862.0, 5374.0),
    );
    // Under a filter, the samples it kept, each counted once by its leaf:
    // as without --inclusive (--kernel-only: the samples whose own frame
    // is in the kernel, those every kernel row's count is of).
    let filters: [&[&str]; 2] = [&["--comm", "perf"], &["--kernel-only"]];
    for filter in filters {
        let with = doc(&[filter, &["--inclusive"]].concat());
        let without = doc(filter);
        close(total(&with), total(&without));
        let kept = |d: &serde_json::Value, side: usize| d["sides"][side]["runs"][0]["kept"].clone();
        for (side, samples) in [(0, 3862.0), (1, 5374.0)] {
            assert_eq!(kept(&with, side), kept(&without, side));
            if filter[0] == "--kernel-only" {
                assert!(kept(&with, side).as_f64() < Some(samples));
            }
        }
    }
}

/// `export` then `batch TABLE` gives the same JSON as `batch TREE` for
/// recorded perf.data runs named with a kallsyms beside them: the
/// recording's provenance (here: the kernel map note) travels in the
/// table's `provenance` column (before: the `kernel symbols:` note was
/// lost).
#[test]
fn a_table_keeps_what_the_recording_said() {
    let d = Scratch::new("diffprofile-sweep3b", "provenance");
    let root = d.join("tree");
    for (k, w) in [("v1", "pipes"), ("v2", "sockets")] {
        let b = root.join(k).join("b");
        fs::create_dir_all(&b).unwrap();
        fs::copy(
            format!("testdata/raw/{w}-run1.perf.data.gz"),
            b.join("run1.perf.data.gz"),
        )
        .unwrap();
        fs::copy("testdata/raw/kallsyms.gz", b.join("kallsyms.gz")).unwrap();
    }
    let table = d.join("t.parquet");
    let o = run(&["export", s(&root), "-o", s(&table)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let direct = run(&["batch", s(&root), "--baseline", "v1", "-o", "json"]);
    let through = run(&["batch", s(&table), "--baseline", "v1", "-o", "json"]);
    assert_eq!(direct.status.code(), Some(0), "{}", stderr(&direct));
    let doc: serde_json::Value = serde_json::from_slice(&through.stdout).unwrap();
    assert_eq!(
        doc["benchmarks"][0]["report"]["notes"][0],
        "kernel symbols: v1 kallsyms.gz (beside the run); v2 kallsyms.gz (beside the run)"
    );
    assert!(direct.stdout == through.stdout, "the JSON differs");
}

/// Three sides into one `-O three.svg`: the image holds a flame graph for
/// each comparison, NEW1 and NEW2 against OLD (the tester's build drew
/// NEW1's alone without a word).
#[test]
fn a_flame_graph_of_three_sides_draws_both() {
    let d = Scratch::new("diffprofile-sweep3b", "svg");
    let svg = d.join("three.svg");
    let f = |w: &str| format!("testdata/folded/{w}.folded.gz");
    let o = run(&[&f("pipes"), &f("sockets"), &f("threads"), "-O", s(&svg)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = fs::read_to_string(&svg).unwrap();
    for title in [
        "Differential flame graph: NEW1 vs OLD",
        "Differential flame graph: NEW2 vs OLD",
    ] {
        assert!(text.contains(title), "{title}");
    }
}
