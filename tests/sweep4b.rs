//! Issue 24's leftovers, the options and output side: `--percentage
//! relative` under `--inclusive`, history's `--order` and kernel names,
//! `--run-info` rows of no run, stale partial files, sides too small to
//! test, `--top` and Markdown names, through the real binary on the
//! committed recordings and hand-made files.

use crate::cli::{json_of, refused, run, s, stderr, stdout_of};
use crate::scratch::Scratch;
use std::fs;
use std::path::Path;

const PS: &str = "testdata/perf-script";

/// Two folded runs a side: `main;a;x` and `main;b` stacks.
fn folded_sides(d: &Path) -> (String, String) {
    for (side, runs) in [("old", [(60, 40), (62, 38)]), ("new", [(30, 70), (32, 68)])] {
        let dir = d.join(side);
        fs::create_dir_all(&dir).unwrap();
        for (i, (x, b)) in runs.iter().enumerate() {
            let text = format!("main;a;x {x}\nmain;b {b}\n");
            fs::write(dir.join(format!("run{}.folded", i + 1)), text).unwrap();
        }
    }
    (s(&d.join("old")).to_string(), s(&d.join("new")).to_string())
}

/// The JSON row of `symbol`.
fn row<'a>(v: &'a serde_json::Value, symbol: &str) -> &'a serde_json::Value {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == symbol)
        .unwrap_or_else(|| panic!("no row {symbol}: {v}"))
}

/// `--percentage relative --inclusive` divides by the samples kept, each
/// counted once (before: by the sum of the inclusive counts, which counts
/// a sample once per frame: `main`, in every stack, was 38.5% and the
/// total row 38.5%); JSON, text and CSV agree, and the total row is 100%.
/// With a symbol filter the base is the self rows' (the samples whose own
/// symbol is kept), so the self and inclusive runs share their total row.
#[test]
fn inclusive_relative_shares_are_of_the_kept_samples() {
    let d = Scratch::new("diffprofile-sweep4b", "inclusive");
    let (old, new) = folded_sides(&d);
    let args = [
        old.as_str(),
        new.as_str(),
        "--inclusive",
        "--percentage",
        "relative",
    ];
    let v = json_of(&args);
    assert_eq!(row(&v, "main")["old"], 100.0, "{v}");
    assert_eq!(row(&v, "main")["new"], 100.0, "{v}");
    assert_eq!(row(&v, "a")["old"], 61.0, "{v}");
    assert_eq!(v["total"]["old"], 100.0);
    assert_eq!(v["total"]["new"], 100.0);
    let text = String::from_utf8(stdout_of(&args)).unwrap();
    for name in ["main", "total"] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains("100.000  100.000"), "{text}");
    }
    let mut csv_args = args.to_vec();
    csv_args.extend(["-o", "csv"]);
    let csv = String::from_utf8(stdout_of(&csv_args)).unwrap();
    let main = csv.lines().find(|l| l.starts_with("new,main,")).unwrap();
    assert!(main.starts_with("new,main,,,same,100,100,0,"), "{csv}");
    // --exclude x: the base is the samples whose own symbol is kept (b's).
    let mut filtered = args.to_vec();
    filtered.extend(["--exclude", "^x$"]);
    let inc = json_of(&filtered);
    let own = json_of(&[&old, &new, "--percentage", "relative", "--exclude", "^x$"]);
    assert_eq!(inc["total"], own["total"]);
    assert_eq!(row(&inc, "b")["old"], row(&own, "b")["old"]);
    assert_eq!(row(&inc, "b")["old"], 100.0);
    assert!(inc["notes"].as_array().unwrap().iter().any(|n| n
        .as_str()
        .unwrap()
        .contains("a caller's share may pass 100%")));
}

/// The same on recordings (perf script -g, `--comm`): the total row is
/// 100% under --inclusive as without it, and the unresolved samples'
/// warning counts the samples whose own frame is unresolved, each once
/// (before: 96.8% of the kept, counting every `[unknown]` caller; 3.1%
/// without --inclusive).
#[test]
fn inclusive_relative_on_recordings() {
    let (a, b) = (
        format!("{PS}/sockets-g.txt.gz"),
        format!("{PS}/pipes-g.txt.gz"),
    );
    let base = [
        a.as_str(),
        b.as_str(),
        "--percentage",
        "relative",
        "--comm",
        "sched-messaging",
    ];
    let own = json_of(&base);
    let mut args = base.to_vec();
    args.push("--inclusive");
    let inc = json_of(&args);
    for side in ["old", "new"] {
        // (the self total row is a sum of rows: 100 to rounding)
        for v in [&inc, &own] {
            let t = v["total"][side].as_f64().unwrap();
            assert!((t - 100.0).abs() < 1e-9, "{v}");
        }
    }
    let unresolved = |v: &serde_json::Value| -> String {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .find(|w| w.contains("not resolved to a symbol"))
            .unwrap_or_else(|| panic!("{v}"))
    };
    let (u_own, u_inc) = (unresolved(&own), unresolved(&inc));
    let pct = |w: &str| w[..w.find("% of the kept").unwrap()].to_string();
    assert_eq!(pct(&u_inc), pct(&u_own), "{u_inc}\n{u_own}");
}

const RP: &str = "testdata/readprofile/default";

/// A series under `root`: each kernel one `hackbench` directory of the
/// three pipes runs (the last kernel: sockets' first run in place of one).
fn series(root: &Path, kernels: &[&str]) {
    for (i, k) in kernels.iter().enumerate() {
        let d = root.join(k).join("hackbench");
        fs::create_dir_all(&d).unwrap();
        for r in 1..=3 {
            let from = if i + 1 == kernels.len() && r == 1 {
                "sockets"
            } else {
                "pipes"
            };
            fs::copy(
                format!("{RP}/{from}/run{r}.txt"),
                d.join(format!("run{r}.txt")),
            )
            .unwrap();
        }
    }
}

/// `history --order FILE` naming a kernel the results do not hold (a
/// misspelt one) is refused, naming it and the kernels found (before: it
/// was passed over without a word).
#[test]
fn history_order_naming_an_absent_kernel_is_refused() {
    let d = Scratch::new("diffprofile-sweep4b", "order");
    let root = d.join("series");
    series(&root, &["v6.1", "v6.2", "v6.3"]);
    let order = d.join("order.txt");
    fs::write(&order, "v6.1\nv6.2\nv6.10\nv6.3\n").unwrap();
    let o = run(&["history", s(&root), "--order", s(&order)]);
    refused(
        &o,
        "names 1 kernel(s) that the results do not hold: v6.10; the kernels found are: v6.1, v6.2, v6.3",
    );
    assert!(o.stdout.is_empty());
    // Listing each kernel of the results is fine.
    fs::write(&order, "v6.3\nv6.1\nv6.2\n").unwrap();
    let o = run(&["history", s(&root), "--order", s(&order)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("order.txt): v6.3 v6.1"), "{out}");
}

/// Kernel names that read as one version (`v6.1`, `6.1`, `linux-6.1`,
/// `6.1.0`) in one series are said: each is a kernel of its own.
#[test]
fn history_says_when_two_kernel_names_look_like_one_version() {
    let d = Scratch::new("diffprofile-sweep4b", "aliases");
    let root = d.join("series");
    series(&root, &["v6.1", "6.1.0", "linux-6.1", "v6.2"]);
    let o = run(&["history", s(&root)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("kernels 6.1.0, linux-6.1, v6.1 look like one version"),
        "{e}"
    );
    // Versions of their own are not.
    let d2 = Scratch::new("diffprofile-sweep4b", "versions");
    let root = d2.join("series");
    series(&root, &["v6.1", "v6.1.1", "v6.2"]);
    let e = stderr(&run(&["history", s(&root)]));
    assert!(!e.contains("look like one version"), "{e}");
}

/// `tar cJf s.tar.xz series` (the series' directory archived, one
/// directory per kernel inside) is the series (before: `series` was read
/// as its one kernel and every benchmark skipped); said.
#[test]
fn history_reads_an_archive_of_the_series_directory() {
    let d = Scratch::new("diffprofile-sweep4b", "tarxz");
    let root = d.join("series");
    series(&root, &["v6.1", "v6.2", "v6.3"]);
    let tar = d.join("s.tar.xz");
    let st = std::process::Command::new("tar")
        .args(["cJf", s(&tar), "-C", s(&d), "series"])
        .status()
        .unwrap();
    assert!(st.success());
    let o = run(&["history", s(&tar), "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let dir: serde_json::Value =
        serde_json::from_slice(&run(&["history", s(&root), "-o", "json"]).stdout).unwrap();
    assert_eq!(v["kernels"], dir["kernels"], "{v}");
    assert_eq!(v["kernels"].as_array().unwrap().len(), 3, "{v}");
    let e = stderr(&o);
    assert!(
        e.contains("every path lies under the one directory series/")
            && e.contains("as --layout '*/{kernel}/{bench}/**' (kernels v6.1, v6.2, v6.3)"),
        "{e}"
    );
}

/// `--run-info` rows that match no run compared are named in a warning
/// (before: passed over without a word); a misspelt row leaves its run
/// without a work count, which `-n work` refuses naming the run; rows that
/// all match say nothing.
#[test]
fn run_info_rows_of_no_run_are_said() {
    let d = Scratch::new("diffprofile-sweep4b", "run-info");
    let info = d.join("ri.csv");
    let mut rows = String::from("path,duration_s,work\n");
    for side in ["pipes", "sockets"] {
        for r in 1..=4 {
            rows.push_str(&format!("{side}/run{r}.txt,{r},100\n"));
        }
    }
    fs::write(&info, &rows).unwrap();
    let (old, new) = (format!("{RP}/pipes"), format!("{RP}/sockets"));
    let o = run(&[&old, &new, "-n", "work", "--run-info", s(&info)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("--run-info:"), "{out}");
    fs::write(
        &info,
        format!("{rows}pipes/run5.txt,5,100\nsocket/run1.txt,1,100\n"),
    )
    .unwrap();
    let v = json_of(&[&old, &new, "-n", "work", "--run-info", s(&info)]);
    let said = v["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str().unwrap().starts_with(
            "--run-info: 2 row(s) match no run compared and are not used: \
             pipes/run5.txt, socket/run1.txt",
        )
    });
    assert!(said, "{}", v["warnings"]);
    fs::write(&info, rows.replace("pipes/run2.txt", "pipes/rnu2.txt")).unwrap();
    let o = run(&[&old, &new, "-n", "work", "--run-info", s(&info)]);
    refused(&o, &format!("missing for: {old}/run2.txt"));
}

/// The temporary files beside `dir`'s outputs.
fn partials(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-"))
        .collect();
    v.sort();
    v
}

/// The binary run with `args`, stopped (SIGSTOP) while a temporary file
/// of its output is in `dir`; None when it finished first.
fn stopped_mid_write(args: &[&str], dir: &Path) -> Option<std::process::Child> {
    let mut child = crate::cli::diffprofile()
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    loop {
        if !partials(dir).is_empty() {
            // SAFETY: a signal to our own child, not yet reaped.
            unsafe { libc::kill(pid, libc::SIGSTOP) };
            if !partials(dir).is_empty() {
                return Some(child);
            }
            unsafe { libc::kill(pid, libc::SIGCONT) };
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
    }
}

/// A run killed outright (SIGKILL) while writing `-O` leaves its
/// temporary file; the next write to the same target removes it and those
/// of other processes gone, never one of another target; SIGINT and
/// SIGTERM remove the temporary file before the process dies of the
/// signal (before: left behind, one more at every interrupted run).
#[test]
fn temporary_files_are_never_left_behind() {
    use std::os::unix::process::ExitStatusExt;
    let d = Scratch::new("diffprofile-sweep4b", "partials");
    let out = d.join("report.html");
    let (a, b) = (
        format!("{PS}/sockets-g.txt.gz"),
        format!("{PS}/pipes-g.txt.gz"),
    );
    let args = [a.as_str(), b.as_str(), "-o", "html", "-O", s(&out)];
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGKILL] {
        let mut caught = false;
        for _ in 0..50 {
            let Some(mut child) = stopped_mid_write(&args, &d) else {
                continue;
            };
            unsafe {
                libc::kill(child.id() as i32, sig);
                libc::kill(child.id() as i32, libc::SIGCONT);
            }
            let st = child.wait().unwrap();
            assert_eq!(st.signal(), Some(sig), "{st:?}");
            caught = true;
            break;
        }
        assert!(caught, "never caught writing");
        if sig == libc::SIGKILL {
            assert_eq!(partials(&d).len(), 1, "{:?}", partials(&d));
        } else {
            assert!(partials(&d).is_empty(), "signal {sig}: {:?}", partials(&d));
        }
    }
    // A process gone, one of another program, another target's.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let mut other = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    for name in [
        format!(".report.html.partial-{gone_pid}"),
        format!(".report.html.partial-{}", other.id()),
        format!(".other.html.partial-{gone_pid}"),
    ] {
        fs::write(d.join(name), "<html>cut").unwrap();
    }
    let o = run(&args);
    let _ = other.kill();
    let _ = other.wait();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(partials(&d), [format!(".other.html.partial-{gone_pid}")]);
    assert!(fs::read_to_string(&out).unwrap().ends_with("</html>\n"));
}

/// A side the filters leave too few samples on is said, with its count
/// and the filters: with 4 kept samples (`--comm perf --dso ld-linux` on
/// the recorded sockets run) no symbol can be significantly higher in OLD
/// (an exact test needs 6 at alpha 0.05 with about equal exposures), so
/// no improvement can be marked (before: no word); NEW's 7 can, and the
/// whole runs say nothing.
#[test]
fn a_side_too_small_to_mark_is_said() {
    let (a, b) = (format!("{PS}/sockets.txt.gz"), format!("{PS}/pipes.txt.gz"));
    let few = |v: &serde_json::Value| -> Vec<String> {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .filter(|w| w.contains(" keeps ") && w.contains("can be marked"))
            .collect()
    };
    let v = json_of(&[&a, &b, "--comm", "perf", "--dso", "ld-linux"]);
    assert_eq!(
        few(&v),
        [
            "OLD keeps 4 sample(s) in 1 run(s) after the filters (--comm, --dso): no improvement \
          can be marked (a symbol needs 6 or more of OLD's samples to be significantly higher \
          there at alpha 0.05); record longer or loosen the filters"
        ]
    );
    assert_eq!(v["comparisons"][0]["significant_improvements"], 0);
    // Swapped: NEW is the small side, no regression can be marked.
    let v = json_of(&[&b, &a, "--comm", "perf", "--dso", "ld-linux"]);
    let w = few(&v);
    assert!(
        w.len() == 1 && w[0].starts_with("NEW keeps 4 sample(s)") && w[0].contains("no regression"),
        "{w:?}"
    );
    assert!(few(&json_of(&[&a, &b])).is_empty());
}

/// `batch --top N` keeps N rows of each sign per comparison, as the main
/// command's `--top N` does (the same rows); its index lists the
/// regressions the reports show, and its title counts them all (before:
/// "3 significant regression(s)" where the report counted 64).
#[test]
fn batch_top_is_the_main_commands_and_the_index_says_so() {
    let d = Scratch::new("diffprofile-sweep4b", "batch-top");
    for (k, from) in [("v1", "pipes"), ("v2", "sockets")] {
        let dir = d.join(k).join("x");
        fs::create_dir_all(&dir).unwrap();
        for r in 1..=3 {
            fs::copy(
                format!("{RP}/{from}/run{r}.txt"),
                dir.join(format!("run{r}.txt")),
            )
            .unwrap();
        }
    }
    let root = s(&d);
    let v = json_of(&["batch", root, "--baseline", "v1", "--top", "3"]);
    let report = &v["benchmarks"][0]["report"];
    let main = json_of(&[s(&d.join("v1/x")), s(&d.join("v2/x")), "--top", "3"]);
    assert_eq!(report["rows"], main["rows"]);
    let rows = main["rows"].as_array().unwrap();
    let sign = |up: bool| {
        rows.iter()
            .filter(|r| (r["delta"].as_f64().unwrap() > 0.0) == up)
            .count()
    };
    assert_eq!((sign(true), sign(false)), (3, 3));
    let all = main["comparisons"][0]["significant_regressions"]
        .as_u64()
        .unwrap();
    assert!(all > 3, "{all}");
    assert_eq!(v["index"]["regressions"].as_array().unwrap().len(), 3);
    assert_eq!(v["index"]["significant_regressions"], all);
    let text = String::from_utf8(stdout_of(&[
        "batch",
        root,
        "--baseline",
        "v1",
        "--top",
        "3",
    ]))
    .unwrap();
    let title = format!(
        "=== index: {all} significant regression(s) in 1 benchmark, baseline v1, the 3\n  within"
    );
    assert!(text.contains(&title), "{text}");
    // Without --top every one is listed.
    let v = json_of(&["batch", root, "--baseline", "v1"]);
    assert_eq!(
        v["index"]["regressions"].as_array().unwrap().len() as u64,
        all
    );
}

/// Markdown renders symbol names literally (by the CommonMark and GFM
/// rules): a name in a code span fenced by more backticks than it holds
/// (before: a backtick became `'`, a different name), `|` escaped for the
/// table, `*`, `_` and `<` left as they are inside the span; in prose
/// (warnings, history's kernel names) markup characters are escaped.
#[test]
fn markdown_names_render_literally() {
    let d = Scratch::new("diffprofile-sweep4b", "markdown");
    for (side, counts) in [("old", [10, 20, 30, 5]), ("new", [30, 5, 10, 25])] {
        let dir = d.join(side);
        fs::create_dir_all(&dir).unwrap();
        let names = ["a`b", "x|y", "*star*_u_<tag>", "``dbl"];
        let text: String = names
            .iter()
            .zip(counts)
            .map(|(n, c)| format!("main;{n} {c}\n"))
            .collect();
        fs::write(dir.join("run1.folded"), text).unwrap();
    }
    let out = stdout_of(&[s(&d.join("old")), s(&d.join("new")), "-o", "markdown"]);
    let md = String::from_utf8(out).unwrap();
    for cell in [
        "| ``` ``dbl ``` |",
        "| `` a`b `` |",
        "| `x\\|y` |",
        "| `*star*_u_<tag>` |",
    ] {
        assert!(md.contains(cell), "{cell} in\n{md}");
    }
    // History: a kernel name with markup characters is escaped in prose.
    let root = d.join("series");
    series(&root, &["v6.1", "v6.2_rc*"]);
    let md = String::from_utf8(stdout_of(&["history", s(&root), "-o", "markdown"])).unwrap();
    assert!(md.contains("v6.2\\_rc\\*"), "{md}");
}
