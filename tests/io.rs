//! Issue 24 (classes 1, 6, 7, 9, 10): output targets, archives, files that
//! change or block while read, paths and cosmetics, through the real binary
//! on the committed readprofile runs (hand-made files only where the case
//! is a malformed or hostile file: links in an archive, a cut archive).

use crate::export::{json, ok, run, s, scratch, BIN, ROOT};
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `o`'s stderr says `what`.
#[track_caller]
fn says(o: &Output, what: &str) {
    let e = err(o);
    assert!(e.contains(what), "{e}");
}

fn run_file(workload: &str, r: u32) -> PathBuf {
    Path::new(ROOT).join(format!(
        "testdata/readprofile/default/{workload}/run{r}.txt"
    ))
}

/// A results tree for batch and export: kernels `base` (pipes) and `next`
/// (sockets), benchmarks as given, 3 runs each.
fn tree(dir: &Path, benches: &[&str]) {
    for (k, w) in [("base", "pipes"), ("next", "sockets")] {
        for b in benches {
            for r in 1..=3 {
                let to = dir.join(format!("{k}/{b}/run{r}.txt"));
                fs::create_dir_all(to.parent().unwrap()).unwrap();
                fs::copy(run_file(w, r), to).unwrap();
            }
        }
    }
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success());
}

/// `export -o` onto a symbolic link writes the file it points to (the link
/// stays a link); onto a FIFO it writes into the FIFO (a reader gets the
/// Parquet bytes; the FIFO stays a FIFO). Before: the temporary file was
/// renamed over both.
#[test]
fn export_writes_through_links_and_fifos() {
    let d = scratch("io-export-through");
    tree(&d.join("t"), &["b"]);
    let real = d.join("real.parquet");
    fs::write(&real, "old").unwrap();
    let link = d.join("link.parquet");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(&["export", s(&d.join("t")), "-o", s(&link)]);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read(&real).unwrap().starts_with(b"PAR1"));

    let fifo = d.join("fifo.parquet");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    ok(&["export", s(&d.join("t")), "-o", s(&fifo)]);
    let got = reader.join().unwrap();
    assert!(got.starts_with(b"PAR1") && got.ends_with(b"PAR1"));
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let _ = fs::remove_dir_all(&d);
}

/// `-O FILE` and `export -o FILE` where FILE is an input (the same file,
/// through a symbolic or a hard link, or inside an input directory) are
/// refused before anything is read or written; the input is unchanged.
#[test]
fn an_input_is_never_overwritten() {
    let d = scratch("io-input-out");
    let (a, b) = (d.join("a.txt"), d.join("b.txt"));
    fs::copy(run_file("pipes", 1), &a).unwrap();
    fs::copy(run_file("sockets", 1), &b).unwrap();
    let before = fs::read(&a).unwrap();
    let link = d.join("link.txt");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let hard = d.join("hard.txt");
    fs::hard_link(&a, &hard).unwrap();
    for out in [&a, &link, &hard] {
        let o = run(&[s(&a), s(&b), "-O", s(out)]);
        assert_eq!(o.status.code(), Some(2), "{}", err(&o));
        says(&o, "(the same file)");
        assert_eq!(fs::read(&a).unwrap(), before);
    }
    // Through --old/--new and through a link given as the input.
    let o = run(&["--old", s(&link), "--new", s(&b), "-O", s(&a)]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    // A new file inside an input directory, and export into its tree.
    tree(&d.join("t"), &["b"]);
    let base = d.join("t/base");
    let o = run(&[s(&base), s(&b), "-O", s(&base.join("b/report.txt"))]);
    says(&o, "inside the input directory");
    assert!(!base.join("b/report.txt").exists());
    let o = run(&["export", s(&d.join("t")), "-o", s(&d.join("t/x.parquet"))]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "inside the input directory");
    // A map file given with a flag is an input too.
    let o = run(&[s(&a), s(&b), "--run-info", s(&hard), "-O", s(&a)]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(fs::read(&a).unwrap(), before);
    let _ = fs::remove_dir_all(&d);
}

/// `-O -` is stdout (no file named `-`).
#[test]
fn dash_output_file_is_stdout() {
    let d = scratch("io-dash-o");
    let o = Command::new(BIN)
        .current_dir(&d)
        .args([s(&run_file("pipes", 1)), s(&run_file("sockets", 1))])
        .args(["-O", "-", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!d.join("-").exists());
    assert_eq!(json(&o)["version"], 1);
    let _ = fs::remove_dir_all(&d);
}

/// batch --out-dir: a benchmark named `index` is written as
/// `index-bench.*`; a benchmark really named `index-bench` would overwrite
/// it: refused, naming both, before anything is written.
#[test]
fn batch_out_dir_names_are_unique() {
    let d = scratch("io-out-names");
    tree(&d.join("t"), &["index", "index-bench"]);
    let out = d.join("out");
    let o = run(&[
        "batch",
        s(&d.join("t")),
        "--baseline",
        "base",
        "--out-dir",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let e = err(&o);
    assert!(
        e.contains(
            "benchmark index and benchmark index-bench would both be written as index-bench.txt"
        ),
        "{e}"
    );
    assert!(!out.exists());
    // --out-dir inside the tree is refused too.
    let o = run(&[
        "batch",
        s(&d.join("t")),
        "--baseline",
        "base",
        "--out-dir",
        s(&d.join("t/r")),
    ]);
    says(&o, "inside the input directory");
    let _ = fs::remove_dir_all(&d);
}

/// The help, the version, the man page and completions on a full disk:
/// exit 2 with a message, not 0.
#[test]
fn help_version_man_completions_fail_on_a_full_disk() {
    for args in [
        &["--help"][..],
        &["-h"],
        &["--version"],
        &["man"],
        &["completions", "bash"],
        &["batch", "--help"],
    ] {
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = Command::new(BIN).args(args).stdout(full).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(
            err(&o).contains("No space left on device"),
            "{args:?}: {}",
            err(&o)
        );
    }
}

#[test]
fn a_closed_stdout_is_an_error() {
    let old = run_file("pipes", 1);
    let new = run_file("sockets", 1);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    for args in [
        &[old, new][..],
        &["--version"],
        &["man"],
        &["-o", "json", old, new],
    ] {
        // `>&-`: descriptor 1 closed, not /dev/null.
        let o = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$@" >&-"#)
            .arg("sh")
            .arg(BIN)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        says(&o, "standard output is closed");
    }
    // With the report going to a file, a closed stdout does not matter.
    let dir = scratch("closed-stdout");
    let out = dir.join("r.txt");
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$@" >&-"#)
        .arg("sh")
        .arg(BIN)
        .args(["-O", out.to_str().unwrap(), old, new])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(fs::metadata(&out).unwrap().len() > 0);
}

/// A tar archive made here: `members` are (path, kind, bytes or link target).
fn tar_of(path: &Path, members: &[(&str, tar::EntryType, &[u8])], end: bool) {
    let mut b = tar::Builder::new(Vec::new());
    for (name, kind, data) in members {
        let mut h = tar::Header::new_ustar();
        h.set_entry_type(*kind);
        h.set_mode(0o644);
        if kind.is_file() {
            h.set_size(data.len() as u64);
            h.set_path(name).unwrap();
            h.set_cksum();
            b.append(&h, *data).unwrap();
        } else {
            h.set_size(0);
            h.set_path(name).unwrap();
            h.set_link_name(std::str::from_utf8(data).unwrap()).unwrap();
            h.set_cksum();
            b.append(&h, &[][..]).unwrap();
        }
    }
    let mut bytes = b.into_inner().unwrap();
    if !end {
        // Cut at the member boundary: the end-of-archive blocks dropped.
        while bytes.len() >= 512 && bytes[bytes.len() - 512..].iter().all(|&x| x == 0) {
            bytes.truncate(bytes.len() - 512);
        }
    }
    fs::write(path, bytes).unwrap();
}

fn runs_of(o: &Output, side: usize) -> Vec<String> {
    json(o)["sides"][side]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["source"].as_str().unwrap().to_string())
        .collect()
}

/// A hard link member is the member it links to (it was dropped as "not a
/// regular file", a run lost); a symbolic link member to a member of the
/// archive likewise (as a link to a file in a directory is that file); a
/// link out of the archive is passed over and named.
#[test]
fn tar_link_members_are_read() {
    use tar::EntryType::{Link, Regular, Symlink};
    let d = scratch("io-tar-links");
    let r1 = fs::read(run_file("pipes", 1)).unwrap();
    let r2 = fs::read(run_file("pipes", 2)).unwrap();
    let old = d.join("old.tar");
    tar_of(
        &old,
        &[
            ("old/run1.txt", Regular, &r1),
            ("old/run2.txt", Regular, &r2),
            ("old/run3.txt", Link, b"old/run1.txt"),
            ("old/run4.txt", Symlink, b"run2.txt"),
            ("old/run5.txt", Symlink, b"/etc/passwd"),
        ],
        true,
    );
    let new = run_file("sockets", 1);
    let o = run(&[s(&old), s(&new), "-o", "json", "--allow-duplicates"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let runs = runs_of(&o, 0);
    assert_eq!(runs.len(), 4, "{runs:?}");
    assert!(runs[2].ends_with("old/run3.txt") && runs[3].ends_with("old/run4.txt"));
    let e = err(&o);
    assert!(
        e.contains("old/run5.txt: symbolic link: a link to /etc/passwd, outside the archive"),
        "{e}"
    );
    // Without --allow-duplicates the same data twice is said, not pooled.
    let o = run(&[s(&old), s(&new), "-o", "json"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    // batch and export read them too.
    let t = d.join("tree.tar");
    let s1 = fs::read(run_file("sockets", 1)).unwrap();
    let s2 = fs::read(run_file("sockets", 2)).unwrap();
    tar_of(
        &t,
        &[
            ("base/b/run1.txt", Regular, &r1),
            ("base/b/run2.txt", Regular, &r2),
            ("next/b/run1.txt", Regular, &s1),
            ("next/b/run2.txt", Regular, &s2),
            ("next/b/run3.txt", Link, b"base/b/run1.txt"),
        ],
        true,
    );
    let o = run(&[
        "batch",
        s(&t),
        "--baseline",
        "base",
        "-o",
        "json",
        "--allow-duplicates",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let rep = &json(&o)["benchmarks"][0]["report"];
    assert_eq!(
        rep["sides"][1]["runs"].as_array().unwrap().len(),
        3,
        "{}",
        err(&o)
    );
    let pq = d.join("t.parquet");
    let o = ok(&["export", s(&t), "-o", s(&pq)]);
    says(&o, "exported 5 runs");
    let _ = fs::remove_dir_all(&d);
}

/// A tar archive cut at a member boundary (no end-of-archive blocks) reads
/// as a shorter archive: a warning names it, as a side, in batch and in
/// export.
#[test]
fn a_cut_archive_is_said() {
    use tar::EntryType::Regular;
    let d = scratch("io-tar-cut");
    let r: Vec<Vec<u8>> = (1..=3)
        .map(|i| fs::read(run_file("pipes", i)).unwrap())
        .collect();
    let q: Vec<Vec<u8>> = (1..=3)
        .map(|i| fs::read(run_file("sockets", i)).unwrap())
        .collect();
    let members: Vec<(String, &[u8])> = (0..3)
        .flat_map(|i| {
            [
                (format!("base/b/run{}.txt", i + 1), &r[i][..]),
                (format!("next/b/run{}.txt", i + 1), &q[i][..]),
            ]
        })
        .collect();
    let list: Vec<(&str, tar::EntryType, &[u8])> = members
        .iter()
        .map(|(n, b)| (n.as_str(), Regular, *b))
        .collect();
    let (whole, cut) = (d.join("whole.tar"), d.join("cut.tar"));
    tar_of(&whole, &list, true);
    tar_of(&cut, &list, false);
    let new = run_file("sockets", 4);
    let o = ok(&[s(&whole), s(&new), "-o", "json"]);
    assert!(!err(&o).contains("end-of-archive"), "{}", err(&o));
    let o = ok(&[s(&cut), s(&new), "-o", "json"]);
    let want = "ends without its end-of-archive blocks after 6 members";
    assert!(
        err(&o).contains(&format!("{}: the tar archive {want}", s(&cut))),
        "{}",
        err(&o)
    );
    let o = ok(&["batch", s(&cut), "--baseline", "base", "-o", "json"]);
    says(&o, want);
    let o = ok(&["export", s(&cut), "-o", s(&d.join("c.parquet"))]);
    says(&o, want);
    let _ = fs::remove_dir_all(&d);
}

/// Character devices, sockets and /proc files without a size are refused
/// as profiles (reading them blocks or never ends); stdin stays allowed.
#[test]
fn files_that_block_are_refused() {
    let b = run_file("sockets", 1);
    for dev in ["/dev/zero", "/proc/kmsg"] {
        let mut child = Command::new(BIN)
            .args([dev, s(&b)])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Never wait forever, even if the refusal regresses.
        let start = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if start.elapsed() > std::time::Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{dev}: still reading after 60 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{dev}: {}", err(&o));
        assert!(
            err(&o).contains("not read (reading it can block or never end)"),
            "{dev}: {}",
            err(&o)
        );
    }
    let o = Command::new(BIN)
        .args(["-", s(&b), "-o", "json"])
        .stdin(fs::File::open(run_file("pipes", 1)).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

/// `--jobs 100000` is capped, and said.
#[test]
fn jobs_are_capped() {
    let (a, b) = (run_file("pipes", 1), run_file("sockets", 1));
    let o = ok(&[s(&a), s(&b), "--jobs", "100000", "-o", "json"]);
    says(&o, "--jobs 100000: capped at");
    let o = ok(&[s(&a), s(&b), "--jobs", "2", "-o", "json"]);
    assert!(!err(&o).contains("capped"), "{}", err(&o));
}

/// `batch -` says batch reads a tree by its path; `export` of a tree that
/// matches nothing exits 2 as batch does, and writes no table.
#[test]
fn batch_stdin_and_empty_export_are_errors() {
    let o = run(&["batch", "-", "--baseline", "x"]);
    assert_eq!(o.status.code(), Some(2));
    says(&o, "not stdin");
    let d = scratch("io-empty-export");
    fs::create_dir_all(d.join("t")).unwrap();
    fs::copy(run_file("pipes", 1), d.join("t/flat.txt")).unwrap();
    let out = d.join("x.parquet");
    let o = run(&["export", s(&d.join("t")), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "no files match --layout");
    assert!(!out.exists());
    let o = run(&["export", s(&d.join("t")), "-o", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let _ = fs::remove_dir_all(&d);
}

/// An ESC in a file name reaches no message raw.
#[test]
fn control_characters_in_names_are_escaped() {
    let d = scratch("io-esc");
    let bad = d.join("bad\u{1b}[31mname.txt");
    fs::write(&bad, "garbage that is not a profile\n").unwrap();
    let missing = d.join("gone\u{1b}]0;title\u{7}.txt");
    for args in [vec![s(&bad), s(&bad)], vec![s(&missing), s(&bad)]] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            !o.stderr.contains(&0x1b) && !o.stderr.contains(&0x07),
            "{:?}",
            err(&o)
        );
        says(&o, "\\u{1b}");
    }
    let _ = fs::remove_dir_all(&d);
}

/// A first line of more than a megabyte (a comment, here) is detected as
/// `-f` reads it, not refused as "not a recognised profile".
#[test]
fn a_long_first_line_does_not_defeat_detection() {
    let d = scratch("io-long-line");
    let report = Path::new(ROOT).join("testdata/perf-report/sym-n/pipes/run1.txt");
    let mut text = format!("# {}\n", "x".repeat(3 << 19)).into_bytes();
    text.extend(fs::read(&report).unwrap());
    let long = d.join("long.txt");
    fs::write(&long, text).unwrap();
    let other = Path::new(ROOT).join("testdata/perf-report/sym-n/sockets/run1.txt");
    let forced = ok(&["-f", "perf-report", s(&long), s(&other), "-o", "json"]);
    let auto = ok(&[s(&long), s(&other), "-o", "json"]);
    assert_eq!(json(&forced)["rows"], json(&auto)["rows"]);
    let _ = fs::remove_dir_all(&d);
}

/// A side named through a symbolic link to its directory is followed:
/// no "links not followed" warning for it (there was one, naming the side
/// itself); a link inside a side is still said.
#[test]
fn links_not_followed_only_where_not_followed() {
    let d = scratch("io-root-link");
    fs::create_dir_all(d.join("real")).unwrap();
    fs::copy(run_file("sockets", 1), d.join("real/run1.txt")).unwrap();
    std::os::unix::fs::symlink("real", d.join("link")).unwrap();
    fs::create_dir_all(d.join("old/sub")).unwrap();
    fs::copy(run_file("pipes", 1), d.join("old/sub/run1.txt")).unwrap();
    let o = ok(&[s(&d.join("old")), s(&d.join("link")), "-o", "json"]);
    assert_eq!(runs_of(&o, 1).len(), 1);
    assert!(!err(&o).contains("not followed"), "{}", err(&o));
    std::os::unix::fs::symlink("sub", d.join("old/latest")).unwrap();
    let o = ok(&[s(&d.join("old")), s(&d.join("link")), "-o", "json"]);
    let e = err(&o);
    assert!(
        e.contains("old: 1 symbolic link(s) to directories not followed"),
        "{e}"
    );
    assert!(!e.contains("link: 1 symbolic"), "{e}");
    let _ = fs::remove_dir_all(&d);
}

/// Path arguments that are not UTF-8 (Latin-1 names) are read and written,
/// as such names inside a directory are; messages and run sources show the
/// byte as `\xe9`.
#[test]
fn non_utf8_paths_are_accepted() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let d = scratch("io-latin1");
    let a = d.join(OsStr::from_bytes(b"caf\xe9.txt"));
    fs::copy(run_file("pipes", 1), &a).unwrap();
    let out = d.join(OsStr::from_bytes(b"r\xe9sum\xe9.json"));
    let o = Command::new(BIN)
        .arg(&a)
        .arg(run_file("sockets", 1))
        .arg("-O")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let report: serde_json::Value = serde_json::from_slice(&fs::read(&out).unwrap()).unwrap();
    let source = report["sides"][0]["runs"][0]["source"].as_str().unwrap();
    assert!(source.ends_with("caf\\xe9.txt"), "{source}");
    // The output may not be the input, named either way.
    let o = Command::new(BIN)
        .arg(&a)
        .arg(run_file("sockets", 1))
        .arg("-O")
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(&o, "caf\\xe9.txt");
    let missing = d.join(OsStr::from_bytes(b"gone\xff.txt"));
    let o = Command::new(BIN).arg(&missing).arg(&a).output().unwrap();
    says(&o, "gone\\xff.txt: cannot open");
    let _ = fs::remove_dir_all(&d);
}

/// A newline in a file name does not split its message in two.
#[test]
fn a_newline_in_a_name_keeps_the_message_on_one_line() {
    let d = scratch("io-newline");
    let bad = d.join("two\nlines.txt");
    fs::write(&bad, "garbage that is not a profile\n").unwrap();
    let o = run(&[s(&bad), s(&run_file("pipes", 1))]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(err(&o).lines().count(), 1, "{}", err(&o));
    says(&o, "two\\u{a}lines.txt");
    let _ = fs::remove_dir_all(&d);
}

/// `--inclusive` counts every symbol of a callchain once per sample: the
/// symbols adding up to more than the run's total is the point, not a
/// warning; kernel names as given in batch-style messages.
#[test]
fn inclusive_counts_are_not_said_to_exceed_the_total() {
    let g = format!("{ROOT}/testdata/perf-script/fields/base-g.txt.gz");
    let o = run(&["--inclusive", "-o", "json", &g, &g]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!err(&o).contains("symbol counts add up"), "{}", err(&o));
    let o = run(&["-o", "json", &g, &g]);
    assert!(!err(&o).contains("symbol counts add up"), "{}", err(&o));
}

/// A recording on both sides is said however its paths are spelt: a
/// directory against its own files (before: no warning at all, every delta
/// 0), `DIR` against `./DIR` (said once: the same files, not also as
/// "the same counts"), a file against a hard link to it.
#[test]
fn a_run_on_both_sides_is_said_through_any_spelling() {
    let dir = "testdata/readprofile/default/sockets";
    let files: Vec<String> = (1..=3).map(|r| format!("{dir}/run{r}.txt")).collect();
    let at_root = |args: &[&str]| {
        Command::new(BIN)
            .current_dir(ROOT)
            .args(args)
            .output()
            .unwrap()
    };
    let mut args = vec!["--old", dir, "--new"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["-o", "csv"]);
    let o = at_root(&args);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    says(
        &o,
        &format!(
            "warning: 3 file(s) named as OLD and as NEW: a recording compared with itself: \
             {dir}/run1.txt (OLD: {dir}, NEW: {dir}/run1.txt); {dir}/run2.txt"
        ),
    );
    let dotted = format!("./{dir}");
    let o = at_root(&[dir, &dotted, "-o", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let e = err(&o);
    assert_eq!(
        e.matches("a recording compared with itself").count(),
        1,
        "{e}"
    );
    says(&o, "4 file(s) named as OLD and as NEW");
    assert!(!e.contains("hold the same counts"), "{e}");
    let d = scratch("io-same-inode");
    let linked = d.join("linked.txt");
    fs::hard_link(run_file("pipes", 1), &linked).unwrap();
    let o = run(&[s(&run_file("pipes", 1)), s(&linked), "-o", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    says(
        &o,
        "1 file(s) named as OLD and as NEW: a recording compared with itself",
    );
    assert!(!err(&o).contains("hold the same counts"), "{}", err(&o));
}

/// A tar inside a tar is refused, naming the member, never read as one run
/// of text (before: the inner tar's bytes were parsed as one perf script
/// or, under -f, readprofile run); so is a gzipped tar or a zip member. A
/// tar in a directory is still read as an archive.
#[test]
fn an_archive_inside_an_archive_is_refused() {
    use std::io::Read;
    use tar::EntryType::Regular;
    let d = scratch("io-nested-tar");
    let script = |w: &str| {
        let gz =
            fs::read(Path::new(ROOT).join(format!("testdata/perf-script/{w}.txt.gz"))).unwrap();
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut text)
            .unwrap();
        text
    };
    let (p, so, th) = (script("pipes"), script("sockets"), script("threads"));
    let inner = d.join("in.tar");
    tar_of(
        &inner,
        &[
            ("run1.txt", Regular, &p),
            ("run2.txt", Regular, &so),
            ("run3.txt", Regular, &th),
        ],
        true,
    );
    let rp: Vec<Vec<u8>> = (1..=3)
        .map(|r| fs::read(run_file("pipes", r)).unwrap())
        .collect();
    let inner_rp = d.join("in-rp.tar");
    tar_of(
        &inner_rp,
        &[
            ("run1.txt", Regular, &rp[0]),
            ("run2.txt", Regular, &rp[1]),
            ("run3.txt", Regular, &rp[2]),
        ],
        true,
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &fs::read(&inner).unwrap()).unwrap();
    let inner_gz = gz.finish().unwrap();
    let zip = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    let other_file = run_file("sockets", 1);
    let other = s(&other_file);
    let cases: [(&str, &str, Vec<u8>, &[&str]); 4] = [
        ("in.tar", "tar", fs::read(&inner).unwrap(), &[]),
        (
            "in-rp.tar",
            "tar",
            fs::read(&inner_rp).unwrap(),
            &["-f", "readprofile"],
        ),
        ("in.tar.gz", "tar", inner_gz, &[]),
        ("in.zip", "zip", zip, &[]),
    ];
    for (member, kind, bytes, extra) in cases {
        let outer = d.join(format!("outer-{member}.tar"));
        tar_of(&outer, &[(member, Regular, &bytes)], true);
        let mut args = vec![s(&outer), other, "-o", "csv"];
        args.extend(extra);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{member}: {}", err(&o));
        says(
            &o,
            &format!(
                "{}: {member} is an archive inside an archive ({kind}): unpack it",
                s(&outer)
            ),
        );
    }
    // In a directory the inner tar is an archive, its three runs read.
    let tree = d.join("tree");
    fs::create_dir_all(&tree).unwrap();
    fs::copy(&inner_rp, tree.join("in.tar")).unwrap();
    let o = run(&[s(&tree), other, "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(runs_of(&o, 0).len(), 3, "{}", err(&o));
}

/// An output file's name says what it holds: `-O r.json.gz` is gzipped
/// JSON (before: plain text under a .gz name); a report named for a
/// format no report is written in (`.parquet`, `.zst`) is refused naming
/// the formats, as are `export -o` not named `.parquet` and a noise model
/// not named `.json`. Nothing is written when refused.
#[test]
fn output_names_say_what_is_written() {
    use std::io::Read;
    let d = scratch("io-output-names");
    let (old, new) = (run_file("pipes", 1), run_file("sockets", 1));
    let gz = d.join("r.json.gz");
    ok(&[s(&old), s(&new), "-O", s(&gz)]);
    let mut text = String::new();
    flate2::read::GzDecoder::new(fs::File::open(&gz).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(v["rows"].is_array());
    // -o still chooses the format; the .gz still compresses it.
    let txt = d.join("r.gz");
    ok(&[s(&old), s(&new), "-O", s(&txt), "-o", "csv"]);
    let mut csv = String::new();
    flate2::read::GzDecoder::new(fs::File::open(&txt).unwrap())
        .read_to_string(&mut csv)
        .unwrap();
    assert!(csv.starts_with("side,symbol,"), "{csv}");
    for name in ["r.parquet", "r.zst", "r.csv.xz", "r.tar"] {
        let p = d.join(name);
        let o = run(&[s(&old), s(&new), "-O", s(&p)]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", err(&o));
        says(&o, "reports are not written as .");
        says(&o, "the report formats are text, classic, json");
        assert!(!p.exists(), "{name} written");
    }
    let t = d.join("t.csv");
    let root = Path::new(ROOT).join("testdata/readprofile/default");
    let o = run(&["export", s(&root), "-o", s(&t)]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(
        &o,
        "this writes a Parquet table, not .csv; name the file .parquet",
    );
    let m = d.join("m.json.gz");
    let (r1, r2, r3) = (
        run_file("pipes", 1),
        run_file("pipes", 2),
        run_file("pipes", 3),
    );
    let o = run(&["noise-model", s(&r1), s(&r2), s(&r3), "-o", s(&m)]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    says(
        &o,
        "this writes a noise model in JSON, not .gz; name the file .json",
    );
    assert!(!m.exists());
}
