//! docs/statistics.md §8.2 on recorded runs: the noise is learned from
//! every symbol of the runs, and the symbol filters (`--kernel-only`,
//! `--include`, `--exclude`, `--exclude-idle`) and the view options
//! (`--top`, `--min-delta`) only choose what is shown: a shown symbol's p
//! is the same, bit for bit, with and without each of them; its q is over
//! the shown symbols, and the summary says so.

use crate::cli::{diffprofile, json_of};
use serde_json::Value;
use std::collections::BTreeMap;

/// Every row's (p, q) by (symbol, dso), as JSON gives them.
fn verdicts(v: &Value) -> BTreeMap<(String, String), (Value, Value)> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let key = (
                r["symbol"].as_str().unwrap().to_string(),
                r["dso"].as_str().unwrap_or("").to_string(),
            );
            (key, (r["p"].clone(), r["q"].clone()))
        })
        .collect()
}

/// `filtered` against `plain`: every shown row is a row of `plain` with
/// the same p; q the same too when `same_q`. Returns how many rows
/// `filtered` shows.
fn same_p(plain: &Value, filtered: &Value, same_q: bool, what: &str) -> usize {
    let all = verdicts(plain);
    let shown = verdicts(filtered);
    assert!(!shown.is_empty(), "{what}: nothing shown");
    for (key, (p, q)) in &shown {
        let (p0, q0) = all
            .get(key)
            .unwrap_or_else(|| panic!("{what}: {key:?} is not a row without the filter"));
        assert_eq!(p, p0, "{what}: p of {key:?}");
        if same_q {
            assert_eq!(q, q0, "{what}: q of {key:?}");
        }
    }
    shown.len()
}

fn perfdata(workload: &str, runs: &[u32]) -> Vec<String> {
    runs.iter()
        .map(|i| format!("testdata/raw/{workload}-run{i}-g.perf.data.gz"))
        .collect()
}

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

/// The summary line of text output.
fn summary(args: &[&str]) -> String {
    let out = diffprofile().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // (the sentence wraps: its continuation lines are indented)
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines().skip_while(|l| !l.starts_with("summary:"));
    let mut sentence = lines.next().unwrap_or_default().to_string();
    for l in lines.take_while(|l| l.starts_with("  ")) {
        sentence.push(' ');
        sentence.push_str(l.trim());
    }
    sentence
}

/// Real perf.data runs (3+3 and 1+1, kernel and user space): every filter.
#[test]
fn filters_never_change_a_shown_symbols_p_on_perf_data() {
    let kallsyms = "testdata/raw/kallsyms-g.gz";
    for (old, new) in [
        (
            perfdata("pipes", &[1, 2, 3]),
            perfdata("sockets", &[1, 2, 3]),
        ),
        (perfdata("pipes", &[1, 2]), perfdata("sockets", &[2, 3])),
        (perfdata("pipes", &[2]), perfdata("sockets", &[1])),
    ] {
        let mut base: Vec<&str> = vec!["--kallsyms", kallsyms, "--old"];
        base.extend(old.iter().map(String::as_str));
        base.push("--new");
        base.extend(new.iter().map(String::as_str));
        let plain = json_of(&base);
        let rows = verdicts(&plain).len();
        let user = plain["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["mode"] != "kernel")
            .count();
        assert!(user > 0, "the runs hold user-space rows");
        let filters: [&[&str]; 5] = [
            &["--kernel-only"],
            &["--include", "^_raw_spin|^__schedule$|^copy_"],
            &["--exclude", "^_raw_spin"],
            &["--kernel-only", "--exclude", "^[a-m]"],
            &["--kernel-only", "--include", "^_copy_to_iter$"],
        ];
        for f in filters {
            let filtered = json_of(&with(&base, f));
            let what = format!("{} runs, {f:?}", old.len() + new.len());
            let n = same_p(&plain, &filtered, false, &what);
            assert!(n < rows, "{what}: the filter left every row");
            if f.contains(&"--kernel-only") {
                assert!(filtered["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|r| r["mode"] == "kernel"));
            }
        }
        // --top and --min-delta hide rows, never change p or q.
        for f in [&["--top", "3"][..], &["--min-delta", "0.5"]] {
            let filtered = json_of(&with(&base, f));
            same_p(&plain, &filtered, true, &format!("{f:?}"));
        }
    }
}

/// The summary names the family when filters leave rows out.
#[test]
fn summary_says_what_q_is_over() {
    let old = perfdata("pipes", &[1, 2]);
    let new = perfdata("sockets", &[1, 2]);
    let mut base: Vec<&str> = vec!["--kallsyms", "testdata/raw/kallsyms-g.gz", "--old"];
    base.extend(old.iter().map(String::as_str));
    base.push("--new");
    base.extend(new.iter().map(String::as_str));
    let plain = summary(&base);
    assert!(!plain.contains("noise learned from all"), "{plain}");
    let filtered = summary(&with(&base, &["--kernel-only"]));
    assert!(
        filtered.contains("tested symbols shown; noise learned from all"),
        "{filtered}"
    );
}

/// Readprofile runs (kernel only; 2+2, 3+3): symbol filters and views.
#[test]
fn filters_never_change_a_shown_symbols_p_on_readprofile() {
    let dir = "testdata/readprofile/default";
    let runs = |w: &str, n: &[u32]| -> Vec<String> {
        n.iter().map(|i| format!("{dir}/{w}/run{i}.txt")).collect()
    };
    for (old, new) in [
        (runs("pipes", &[1, 2]), runs("sockets", &[1, 2])),
        (runs("pipes", &[1, 2, 3]), runs("threads", &[2, 3, 4])),
        (runs("pipes", &[4]), runs("threads", &[1])),
    ] {
        let mut base: Vec<&str> = vec!["--old"];
        base.extend(old.iter().map(String::as_str));
        base.push("--new");
        base.extend(new.iter().map(String::as_str));
        let plain = json_of(&base);
        for f in [
            &[
                "--include",
                "^(__schedule|_raw_spin_lock|unix_stream_sendmsg)$",
            ][..],
            &["--exclude", "^_"],
            &["--exclude-idle"],
        ] {
            let filtered = json_of(&with(&base, f));
            same_p(&plain, &filtered, false, &format!("{f:?}"));
        }
        for f in [&["--top", "2"][..], &["--min-delta", "0.2"]] {
            let filtered = json_of(&with(&base, f));
            same_p(&plain, &filtered, true, &format!("{f:?}"));
        }
    }
}

/// `batch --kernel-only` learns the noise from every symbol as a single
/// comparison does: each benchmark's shown rows have the p they have
/// without the filter (perf report runs, kernel and user space, 4 a kernel).
#[test]
fn batch_kernel_only_learns_from_every_symbol() {
    let root = crate::scratch::Scratch::new("diffprofile-stats-batch", "t");
    let _ = std::fs::remove_dir_all(&root);
    for (kernel, workload) in [("base", "pipes"), ("next", "sockets")] {
        let dir = root.join(kernel).join("perf");
        std::fs::create_dir_all(&dir).unwrap();
        for r in 1..=4 {
            let from = format!("testdata/perf-report/sym-n/{workload}/run{r}.txt");
            std::fs::copy(from, dir.join(format!("run{r}.txt"))).unwrap();
        }
    }
    let root_s = root.to_str().unwrap();
    let batch = |more: &[&str]| -> Value {
        let out = diffprofile()
            .args(["batch", root_s, "--baseline", "base", "-o", "json"])
            .args(more)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (plain, filtered) = (batch(&[]), batch(&["--kernel-only"]));
    let report = |v: &Value| v["benchmarks"][0]["report"].clone();
    let n = same_p(
        &report(&plain),
        &report(&filtered),
        false,
        "batch --kernel-only",
    );
    assert!(n < verdicts(&report(&plain)).len());
    // And the same as the single comparison with the filter.
    let runs = |k: &str| -> Vec<String> {
        (1..=4)
            .map(|r| {
                root.join(k)
                    .join("perf")
                    .join(format!("run{r}.txt"))
                    .to_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let mut args: Vec<String> = vec!["--kernel-only".into(), "--old".into()];
    args.extend(runs("base"));
    args.push("--new".into());
    args.extend(runs("next"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let single = json_of(&args);
    same_p(
        &single,
        &report(&filtered),
        true,
        "batch vs single --kernel-only",
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// A sample filter whose kept part of the runs differs a lot between them
/// (recorded: `find` alone, then beside a `yes` that took half the
/// samples) is said, with the way to compare the kept samples' own
/// profile; `--percentage relative` and steady runs are not warned.
#[test]
fn a_sample_filter_keeping_a_varying_part_is_warned() {
    let warned = |args: &[&str]| -> bool {
        json_of(args)["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("the sample filters kept"))
    };
    let (plain, other, yes) = (
        "testdata/contamination/plain1.txt.gz",
        "testdata/contamination/plain2.txt.gz",
        "testdata/contamination/yes1.txt.gz",
    );
    assert!(warned(&[plain, yes, "--comm", "^find$"]));
    assert!(!warned(&[
        plain,
        yes,
        "--comm",
        "^find$",
        "--percentage",
        "relative"
    ]));
    assert!(!warned(&[plain, other, "--comm", "^find$"]));
}
