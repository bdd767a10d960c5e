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

/// The README's "Record two kernels" recipe, on the repo's two kernels:
/// one directory per kernel (6.18.44-fc-v657's three `raw/*-g` runs, and
/// 6.18.44-fc-v669's `other-kernel/` run) with that kernel's `kallsyms`
/// beside its runs, as `cat /proc/kallsyms > kallsyms` leaves it, compared
/// by the README's own command line. Each side reads its own map, as
/// `--old-kallsyms`/`--new-kallsyms` would; the maps swapped, the error
/// names the flag that fixes it.
#[test]
fn readme_recipe_on_two_kernels() {
    let readme = fs::read_to_string("README.md").unwrap();
    let joined = readme.replace("\\\n", " ");
    let recipe = joined
        .lines()
        .find(|l| l.starts_with("diffprofile v6.8/ v6.9/"))
        .expect("the recipe's command in README.md");
    let flags: Vec<&str> = recipe.split_whitespace().skip(3).collect();
    assert!(flags.contains(&"--comm"), "{recipe}");
    let d = tempfile::tempdir().unwrap();
    let (old, new) = (d.path().join("v6.8"), d.path().join("v6.9"));
    for i in 1..=3 {
        let from = format!("testdata/raw/sockets-run{i}-g.perf.data.gz");
        let to = old.join(format!("run{i}.perf.data.gz"));
        fs::create_dir_all(&old).unwrap();
        fs::copy(from, to).unwrap();
    }
    fs::create_dir_all(&new).unwrap();
    fs::copy(
        "testdata/other-kernel/sockets.perf.data.gz",
        new.join("run1.perf.data.gz"),
    )
    .unwrap();
    let old_k = super::cli::gunzip("testdata/raw/kallsyms-g.gz");
    let new_k = super::cli::gunzip("testdata/other-kernel/kallsyms.gz");
    fs::write(old.join("kallsyms"), &old_k).unwrap();
    fs::write(new.join("kallsyms"), &new_k).unwrap();
    let (o, n) = (old.to_str().unwrap(), new.to_str().unwrap());
    let compare = |extra: &[&str]| {
        let mut args = vec![o, n];
        args.extend(&flags);
        args.extend(extra);
        run(&args)
    };
    let out = compare(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "kernel symbols: OLD kallsyms (beside the run); NEW kallsyms (beside the run)\n"
        ),
        "{text}"
    );
    assert!(text.contains("filter: --comm sched-messaging"), "{text}");
    assert!(text.contains(&format!("OLD {o}: 3 runs")), "{text}");
    assert!(
        text.contains(&format!("NEW {n}: 1 run, total 1135, kept ")),
        "{text}"
    );
    // The same rows as each side's map given by its flag.
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec![o, n];
        all.extend(&flags);
        all.extend(args);
        all.extend(["-o", "json"]);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let beside = json(&[]);
    let elsewhere = tempfile::tempdir().unwrap();
    let (ok, nk) = (
        elsewhere.path().join("old-kallsyms"),
        elsewhere.path().join("new-kallsyms"),
    );
    fs::write(&ok, &old_k).unwrap();
    fs::write(&nk, &new_k).unwrap();
    let flagged = json(&[
        "--old-kallsyms",
        ok.to_str().unwrap(),
        "--new-kallsyms",
        nk.to_str().unwrap(),
    ]);
    assert_eq!(beside["rows"], flagged["rows"]);
    assert!(beside["rows"].as_array().unwrap().len() >= 16);
    // The old kernel's map copied beside the new kernel's runs: refused,
    // with the flag that fixes it last.
    fs::write(new.join("kallsyms"), &old_k).unwrap();
    let out = compare(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(e.contains("(the map beside the run)"), "{e}");
    assert!(
        e.ends_with(
            "give NEW its map: --new-kallsyms FILE (a copy of /proc/kallsyms saved while \
             running 6.18.44-fc-v669, or its System.map)\n"
        ),
        "{e}"
    );
}

/// The README is a front door: at most about 15 KB, 80 columns, a link to
/// each guide (which exist); the guides' prose fits 80 columns too (tables,
/// code and lines holding a link aside; docs/statistics.md's formulas and
/// references aside), and no user document speaks of issues, commits or
/// sessions.
#[test]
fn readme_is_a_front_door_and_the_docs_say_no_development_log() {
    let readme = fs::read_to_string("README.md").unwrap();
    assert!(
        readme.len() <= 15 * 1024,
        "README.md: {} bytes",
        readme.len()
    );
    for (i, l) in readme.lines().enumerate() {
        let w = unicode_width::UnicodeWidthStr::width(l);
        assert!(w <= 80, "README.md:{}: {w} columns: {l}", i + 1);
    }
    for guide in [
        "inputs",
        "statistics",
        "batch",
        "archives",
        "performance",
        "reference",
    ] {
        let link = format!("](docs/{guide}.md)");
        assert!(readme.contains(&link), "README.md does not link {link}");
        assert!(Path::new(&format!("docs/{guide}.md")).is_file());
    }
    let mut docs: Vec<String> = vec!["README.md".into()];
    for e in fs::read_dir("docs").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            docs.push(p.to_str().unwrap().to_string());
        }
    }
    docs.sort();
    let log = regex::Regex::new(
        r"(?i)\bissues? *#?\d|(^|[\s(])#\d+\b|\bsessions?\b|\bcommit [0-9a-f]{7}|\b\d{1,2}:\d{2} ?(utc|am|pm)\b",
    )
    .unwrap();
    let hex = regex::Regex::new(r"(^|[^0-9A-Za-z_.])([0-9a-f]{7,40})([^0-9A-Za-z_+-]|$)").unwrap();
    for doc in &docs {
        let text = fs::read_to_string(doc).unwrap();
        let mut code = false;
        for (i, l) in text.lines().enumerate() {
            if let Some(m) = log.find(l) {
                panic!("{doc}:{}: `{}` in: {l}", i + 1, m.as_str());
            }
            for c in hex.captures_iter(l) {
                let h = &c[2];
                let hashlike = h.bytes().any(|b| b.is_ascii_digit())
                    && h.bytes().any(|b| b.is_ascii_lowercase());
                assert!(!hashlike, "{doc}:{}: a commit hash? `{h}` in: {l}", i + 1);
            }
            if l.trim_start().starts_with("```") {
                code = !code;
                continue;
            }
            let prose = !code && !l.trim_start().starts_with('|') && !l.contains("](");
            if prose && !doc.ends_with("statistics.md") {
                let w = unicode_width::UnicodeWidthStr::width(l);
                assert!(w <= 80, "{doc}:{}: {w} columns: {l}", i + 1);
            }
        }
    }
}

/// The installed binary is built without debug info (a separate profile
/// keeps symbols for profiling), and the README's two commands share one
/// dev build of the dependencies.
#[test]
fn release_profile_ships_without_debug_info() {
    let toml = fs::read_to_string("Cargo.toml").unwrap();
    let section = |name: &str| -> String {
        let head = format!("[{name}]\n");
        let start = toml.find(&head).unwrap_or_else(|| panic!("no {head}")) + head.len();
        let rest = &toml[start..];
        rest[..rest.find("\n[").unwrap_or(rest.len())].to_string()
    };
    let key = |body: &str, k: &str| -> Option<String> {
        body.lines()
            .map(str::trim)
            .find(|l| l.split('=').next().is_some_and(|n| n.trim() == k))
            .map(|l| l.split_once('=').unwrap().1.trim().to_string())
    };
    let release = section("profile.release");
    let debug = key(&release, "debug");
    assert!(
        debug
            .as_deref()
            .is_none_or(|d| ["0", "false", "\"none\""].contains(&d)),
        "[profile.release] debug = {debug:?}"
    );
    assert!(key(&release, "strip").as_deref() != Some("false"));
    let profiling = section("profile.profiling");
    assert_eq!(key(&profiling, "inherits").as_deref(), Some("\"release\""));
    assert!(key(&profiling, "debug").is_some_and(|d| d != "0" && d != "false"));
    let deps = section("profile.dev.package.\"*\"");
    assert_eq!(key(&deps, "debug").as_deref(), Some("false"));
}
