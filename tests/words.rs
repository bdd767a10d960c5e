//! What the user reads (issue 14): names printed as they are in UTF-8 with
//! only control characters escaped, in every output and for every kind of
//! name (symbols, events, sides, kernels, benchmarks); a byte-order mark at
//! the start of any text input ignored; the regression gate saying which
//! regressions fail it; errors that name the problem in words.

use crate::cli::{diffprofile, gunzip};
use std::io::Write;
use std::path::Path;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    diffprofile().args(args).output().unwrap()
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

const RP: &str = "testdata/readprofile/default";

/// A real readprofile dump with two symbols renamed (same counts).
fn renamed(from: &str, to: &Path, names: &[(&str, &str)]) {
    let mut s = std::fs::read_to_string(from).unwrap();
    for (a, b) in names {
        assert!(s.contains(&format!(" {a} ")), "{a} in {from}");
        s = s.replacen(&format!(" {a} "), &format!(" {b} "), 1);
    }
    std::fs::write(to, s).unwrap();
}

#[test]
fn utf8_names_are_printed_as_they_are_control_characters_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let names = [
        ("do_syscall_64", "函数_ünïcödé"),
        ("fdget_pos", "bad\u{1b}[2J\u{202e}name"),
    ];
    let (old, new) = (tmp.path().join("old.txt"), tmp.path().join("new.txt"));
    renamed(&format!("{RP}/sockets/run1.txt"), &old, &names);
    renamed(&format!("{RP}/threads/run1.txt"), &new, &names);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    for format in ["text", "classic", "markdown", "html", "json", "csv"] {
        let o = run(&[old, new, "-o", format, "--include", "函数|bad"]);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains("函数_ünïcödé"), "{format}: {out}");
        // JSON and CSV are data: names exact (JSON escapes ESC itself).
        if !["json", "csv"].contains(&format) {
            assert!(
                !out.contains('\u{1b}') && !out.contains('\u{202e}'),
                "{format}: a raw control character"
            );
        }
    }
    let o = run(&[old, new, "--include", "函数|bad"]);
    assert!(text(&o.stdout).contains("bad\\u{1b}[2J\\u{202e}name"));
}

/// Kernel and benchmark names (directories of a results tree) and an event
/// name (a perf report header) with control characters: escaped in text,
/// markdown and the batch tables; UTF-8 kept.
#[test]
fn event_side_and_benchmark_names_are_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let report = std::fs::read_to_string("testdata/perf-report/sym-n/sockets/run1.txt").unwrap();
    assert!(report.contains("of event 'cpu-clock'"));
    let evil_event = report.replace("of event 'cpu-clock'", "of event 'cpu\u{1b}[31m-clöck'");
    let other = std::fs::read_to_string("testdata/perf-report/sym-n/pipes/run1.txt")
        .unwrap()
        .replace("of event 'cpu-clock'", "of event 'cpu\u{1b}[31m-clöck'");
    for (kernel, data) in [("base", &evil_event), ("nëxt\u{7}", &other)] {
        for bench in ["bénch\u{1b}]0;x\u{7}", "plain"] {
            let dir = tmp.path().join(format!("tree/{kernel}/{bench}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("run1.txt"), data).unwrap();
        }
    }
    let tree = tmp.path().join("tree");
    let tree = tree.to_str().unwrap();
    for args in [
        vec!["batch", tree, "--baseline", "base", "--top", "2"],
        vec![
            "batch",
            tree,
            "--baseline",
            "base",
            "--top",
            "2",
            "-o",
            "markdown",
        ],
        vec![
            "batch",
            tree,
            "--baseline",
            "base",
            "--top",
            "2",
            "-o",
            "classic",
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}'),
            "{args:?}: raw control characters:\n{out}"
        );
        assert!(out.contains("nëxt\\u{7}"), "{args:?}: kernel:\n{out}");
        assert!(
            out.contains("bénch\\u{1b}]0;x\\u{7}"),
            "{args:?}: benchmark:\n{out}"
        );
        if !args.contains(&"classic") {
            assert!(
                out.contains("cpu\\u{1b}[31m-clöck"),
                "{args:?}: event:\n{out}"
            );
        }
    }
    // The index table is aligned by what a terminal shows (é is one column).
    let o = run(&["batch", tree, "--baseline", "base", "--top", "2"]);
    let out = text(&o.stdout);
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("=== benchmarks ==="))
        .skip(1)
        .take(3)
        .collect();
    // The benchmark column is right-aligned: its cells end at one column.
    let end = |l: &str, cell: &str| {
        let at = l.find(cell).unwrap() + cell.len();
        unicode_width::UnicodeWidthStr::width(&l[..at])
    };
    let col = |l: &str| {
        if l.contains("plain") {
            end(l, "plain")
        } else {
            end(l, "bénch\\u{1b}]0;x\\u{7}")
        }
    };
    assert_eq!(col(rows[1]), col(rows[2]), "{rows:#?}");
}

/// A UTF-8 byte-order mark at the start of any text input is ignored:
/// readprofile, perf report, perf script (a mapped file), folded stacks,
/// a System.map and an alias file give what they give without it.
#[test]
fn a_byte_order_mark_is_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, bom) = (tmp.path().join("plain"), tmp.path().join("bom"));
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::create_dir_all(&bom).unwrap();
    let put = |name: &str, bytes: &[u8]| {
        std::fs::write(plain.join(name), bytes).unwrap();
        let mut f = std::fs::File::create(bom.join(name)).unwrap();
        f.write_all(b"\xef\xbb\xbf").unwrap();
        f.write_all(bytes).unwrap();
    };
    put(
        "rp.txt",
        &std::fs::read(format!("{RP}/sockets/run1.txt")).unwrap(),
    );
    put(
        "pr.txt",
        &std::fs::read("testdata/perf-report/sym-n/sockets/run1.txt").unwrap(),
    );
    put("ps.txt", &gunzip("testdata/perf-script/sockets.txt.gz"));
    put("f.folded", &gunzip("testdata/folded/sockets.folded.gz"));
    put("System.map", &gunzip("testdata/raw/System.map.gz"));
    put("renames.alias", b"vfs_read = do_vfs_read\n");
    let new = format!("{RP}/pipes/run1.txt");
    for (file, extra) in [
        ("rp.txt", vec!["--alias", "DIR/renames.alias"]),
        ("pr.txt", vec![]),
        ("ps.txt", vec![]),
        ("f.folded", vec![]),
    ] {
        let out = |dir: &Path| {
            let mut args: Vec<String> = vec![dir.join(file).to_string_lossy().into(), new.clone()];
            args.extend(
                extra
                    .iter()
                    .map(|a| a.replace("DIR", &dir.to_string_lossy())),
            );
            args.extend(["-o".into(), "csv".into()]);
            let o = diffprofile().args(&args).output().unwrap();
            assert_eq!(o.status.code(), Some(0), "{file}: {}", text(&o.stderr));
            o.stdout
        };
        assert_eq!(out(&plain), out(&bom), "{file}");
    }
    let image = "testdata/raw/sockets-run1.proc-profile.gz";
    let map = |dir: &Path| {
        let o = run(&[
            "--map",
            &dir.join("System.map").to_string_lossy(),
            image,
            &new,
            "-o",
            "csv",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        o.stdout
    };
    assert_eq!(map(&plain), map(&bom));
}

/// `--fail-on-regression` says on stderr, in one line, which regressions
/// made it exit 1 (here as in batch).
#[test]
fn the_regression_gate_names_its_regressions() {
    let o = run(&[
        &format!("{RP}/pipes"),
        &format!("{RP}/threads"),
        "--fail-on-regression",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<String> = text(&o.stderr)
        .lines()
        .filter(|l| !l.starts_with("diffprofile: warning"))
        .map(String::from)
        .collect();
    assert_eq!(
        lines,
        [
            "diffprofile: --fail-on-regression: exit status 1 for 4 significant regression(s): \
          fput +3.528, fdget_pos +3.162, __rcu_read_unlock +0.333, bpf_lsm_file_permission +0.174"
        ]
    );
    let tmp = tempfile::tempdir().unwrap();
    for (k, w) in [("base", "pipes"), ("next", "threads")] {
        let d = tmp.path().join(format!("{k}/msg"));
        std::fs::create_dir_all(&d).unwrap();
        for r in 1..=4 {
            std::fs::copy(
                format!("{RP}/{w}/run{r}.txt"),
                d.join(format!("run{r}.txt")),
            )
            .unwrap();
        }
    }
    let o = run(&[
        "batch",
        tmp.path().to_str().unwrap(),
        "--baseline",
        "base",
        "--fail-on-regression",
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).lines().any(|l| l.ends_with(
            ": --fail-on-regression: exit status 1 for 4 significant regression(s): \
             msg/next: fput +3.528, msg/next: fdget_pos +3.162, msg/next: __rcu_read_unlock +0.333, \
             msg/next: bpf_lsm_file_permission +0.174"
        )),
        "{}",
        text(&o.stderr)
    );
}

/// Errors name the problem: a truncated stream of each compression, and a
/// negative value where a count or a non-negative number is expected.
#[test]
fn errors_name_the_problem_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let data = gunzip("testdata/perf-script/sockets.txt.gz");
    let cut = |name: &str, packed: Vec<u8>| {
        let p = tmp.path().join(name);
        std::fs::write(&p, &packed[..packed.len() / 2]).unwrap();
        p.to_string_lossy().into_owned()
    };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&data).unwrap();
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(&data).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&data).unwrap();
    let new = format!("{RP}/pipes/run1.txt");
    for (path, what) in [
        (cut("s.gz", gz.finish().unwrap()), "gzip"),
        (
            cut("s.zst", zstd::encode_all(&data[..], 1).unwrap()),
            "zstd",
        ),
        (cut("s.xz", xz.finish().unwrap()), "xz"),
        (cut("s.bz2", bz.finish().unwrap()), "bzip2"),
        ("testdata/malformed/truncated.txt.gz".into(), "gzip"),
    ] {
        let o = run(&[&path, &new]);
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(
            e.trim_end().ends_with(&format!("truncated {what} stream")),
            "{e}"
        );
        assert_eq!(e.matches("stream").count(), 1, "said once: {e}");
    }
    let pair = [format!("{RP}/pipes"), format!("{RP}/threads")];
    for (flag, value, want) in [
        (
            "--top",
            "-1",
            "invalid value '-1' for '--top <N>': must be ≥ 0",
        ),
        (
            "--jobs",
            "-1",
            "invalid value '-1' for '--jobs <N>': must be ≥ 1",
        ),
        (
            "--min-delta",
            "-0.5",
            "invalid value '-0.5' for '--min-delta <X>': must be ≥ 0",
        ),
        (
            "--noise-cv",
            "-0.05",
            "invalid value '-0.05' for '--noise-cv <C>': must be ≥ 0",
        ),
        (
            "--alpha",
            "-0.05",
            "invalid value '-0.05' for '--alpha <A>': expected a number greater than 0 and less than 1, such as 0.05",
        ),
    ] {
        let o = run(&[&pair[0], &pair[1], flag, value]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            text(&o.stderr).contains(want),
            "{flag}: {}",
            text(&o.stderr)
        );
    }
}
