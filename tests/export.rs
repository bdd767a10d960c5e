//! The counts table end to end: results trees built at test time from the
//! committed real runs (every input format, raw images and perf.data with
//! their maps beside them), exported with the built binary, read back by
//! `batch`, `--table` and the Parquet reader, and compared with what the
//! files themselves give (JSON byte for byte).

use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_diffprofile");
pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("diffprofile-export", name)
}

pub fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// Run and require exit 0.
pub fn ok(args: &[&str]) -> Output {
    let o = run(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&o.stderr)))
}

fn copy(from: &str, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(Path::new(ROOT).join(from), to).unwrap();
}

/// The small tree: kernels base (pipes), next (sockets), thr (threads), 4
/// runs each of readprofile (`rp`) and perf report (`perf`).
pub fn small_tree(dir: &Path) {
    for (k, w) in [("base", "pipes"), ("next", "sockets"), ("thr", "threads")] {
        for r in 1..=4 {
            let f = format!("run{r}.txt");
            copy(
                &format!("testdata/readprofile/default/{w}/{f}"),
                &dir.join(format!("{k}/rp/{f}")),
            );
            copy(
                &format!("testdata/perf-report/sym-n/{w}/{f}"),
                &dir.join(format!("{k}/perf/{f}")),
            );
        }
    }
}

/// Every input format: perf report (three sorts, percent-only, a cut
/// report), perf script, folded stacks, raw /proc/profile images with
/// System.map and perf.data with kallsyms beside them.
fn wide_tree(dir: &Path) {
    small_tree(dir);
    for (k, w) in [("base", "pipes"), ("next", "sockets"), ("thr", "threads")] {
        for r in 1..=4 {
            let f = format!("run{r}.txt");
            for (sort, b) in [
                ("dso-sym-n", "dso"),
                ("default", "default"),
                ("percent", "pct"),
            ] {
                copy(
                    &format!("testdata/perf-report/{sort}/{w}/{f}"),
                    &dir.join(format!("{k}/{b}/{f}")),
                );
            }
        }
        copy(
            &format!("testdata/perf-script/{w}.txt.gz"),
            &dir.join(format!("{k}/script/1.gz")),
        );
        copy(
            &format!("testdata/folded/{w}.folded.gz"),
            &dir.join(format!("{k}/folded/1.gz")),
        );
    }
    for (k, w) in [("base", "pipes"), ("next", "sockets")] {
        copy(
            &format!("testdata/raw/{w}-run1.proc-profile.gz"),
            &dir.join(format!("{k}/raw/run1.gz")),
        );
        copy(
            "testdata/raw/System.map.gz",
            &dir.join(format!("{k}/raw/System.map.gz")),
        );
        copy(
            &format!("testdata/raw/{w}-run1.perf.data.gz"),
            &dir.join(format!("{k}/pdata/run1.gz")),
        );
        copy(
            "testdata/raw/kallsyms.gz",
            &dir.join(format!("{k}/pdata/kallsyms.gz")),
        );
    }
    copy(
        "testdata/perf-report/variants/sockets-percent-limit-1.txt",
        &dir.join("base/cut/1.txt"),
    );
    copy(
        "testdata/perf-report/variants/sockets-g-none.txt",
        &dir.join("next/cut/1.txt"),
    );
}

/// A tar.gz of every file below `dir`, in reverse path order (so symbol
/// maps come after the profiles that need them).
fn tar_reversed(dir: &Path, out: &Path) {
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    files.reverse();
    let mut b = tar::Builder::new(Vec::new());
    for rel in &files {
        let bytes = fs::read(dir.join(rel)).unwrap();
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, rel, &bytes[..]).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&b.into_inner().unwrap()).unwrap();
    fs::write(out, gz.finish().unwrap()).unwrap();
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(root, &p, out);
        } else {
            out.push(p.strip_prefix(root).unwrap().to_str().unwrap().to_string());
        }
    }
}

#[test]
fn batch_from_the_table_equals_batch_from_the_files_for_every_format() {
    let d = scratch("wide");
    let tree = d.join("tree");
    wide_tree(&tree);
    tar_reversed(&tree, &d.join("t.tar.gz"));
    let e = ok(&["export", s(&tree), "-o", s(&d.join("dir.parquet"))]);
    let said = String::from_utf8_lossy(&e.stderr);
    assert!(said.contains("exported 72 runs as "), "{said}");
    assert!(said.contains("(27 run groups)"), "{said}");
    ok(&[
        "export",
        s(&d.join("t.tar.gz")),
        "-o",
        s(&d.join("tar.parquet")),
    ]);
    for fmt in ["json", "text"] {
        let files = ok(&["batch", s(&tree), "--baseline", "base", "-o", fmt]);
        let tar = ok(&[
            "batch",
            s(&d.join("t.tar.gz")),
            "--baseline",
            "base",
            "-o",
            fmt,
        ]);
        assert!(
            files.stdout == tar.stdout,
            "{fmt}: the tar differs from the directory"
        );
        let files = without_map_note(&String::from_utf8_lossy(&files.stdout));
        for table in ["dir.parquet", "tar.parquet"] {
            let t = ok(&["batch", s(&d.join(table)), "--baseline", "base", "-o", fmt]);
            assert!(
                without_map_note(&String::from_utf8_lossy(&t.stdout)) == files,
                "{fmt}: {table} differs from the files"
            );
        }
    }
    let v = json(&ok(&[
        "batch",
        s(&d.join("dir.parquet")),
        "--baseline",
        "base",
        "-o",
        "json",
    ]));
    let names: Vec<&str> = v["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["cut", "default", "dso", "folded", "pct", "pdata", "perf", "raw", "rp", "script"]
    );
    let _ = fs::remove_dir_all(&d);
}

/// A comparison's JSON with the tree's path taken out of sources.
fn unrooted(o: &Output, tree: &Path) -> String {
    without_map_note(&String::from_utf8_lossy(&o.stdout)).replace(&format!("{}/", s(tree)), "")
}

/// A report without its `kernel symbols: …` header note (JSON or text):
/// the note names the map each side's kernel samples were named with,
/// which files tell and a counts table does not keep.
pub fn without_map_note(report: &str) -> String {
    if let Ok(mut v) = serde_json::from_str::<Value>(report) {
        fn strip(v: &mut Value) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::Array(notes)) = m.get_mut("notes") {
                        notes.retain(|n| {
                            !n.as_str().is_some_and(|n| n.starts_with("kernel symbols:"))
                        });
                    }
                    m.values_mut().for_each(strip);
                }
                Value::Array(a) => a.iter_mut().for_each(strip),
                _ => {}
            }
        }
        strip(&mut v);
        return serde_json::to_string_pretty(&v).unwrap();
    }
    let mut out = Vec::new();
    let mut in_note = false;
    for line in report.lines() {
        in_note = line.starts_with("kernel symbols:") || (in_note && line.starts_with("  "));
        if !in_note {
            out.push(line);
        }
    }
    out.join("\n")
}

#[test]
fn table_selectors_equal_comparisons_of_directories() {
    let d = scratch("select");
    let tree = d.join("tree");
    wide_tree(&tree);
    let t = d.join("t.parquet");
    ok(&["export", s(&tree), "-o", s(&t)]);
    for bench in ["rp", "dso", "script", "folded", "pct", "raw", "cut"] {
        let dir = |k: &str| tree.join(k).join(bench);
        let files = ok(&["-o", "json", s(&dir("base")), s(&dir("next"))]);
        let w = format!("benchmark={bench}");
        let table = ok(&[
            "--table",
            s(&t),
            "--old",
            "kernel=base",
            "--new",
            "kernel=next",
            "--where",
            &w,
            "-o",
            "json",
        ]);
        assert_eq!(unrooted(&files, &tree), unrooted(&table, &tree), "{bench}");
    }
    // Three sides, positional selectors, -n ticks and --wide text.
    let dir = |k: &str| tree.join(k).join("rp");
    let files = ok(&[
        "-n",
        "ticks",
        "--wide",
        s(&dir("base")),
        s(&dir("next")),
        s(&dir("thr")),
    ]);
    let table = ok(&[
        "-n",
        "ticks",
        "--wide",
        "--table",
        s(&t),
        "kernel=base,benchmark=rp",
        "kernel=next,benchmark=rp",
        "kernel=thr,benchmark=rp",
    ]);
    // The same text but the first lines, which name the sides.
    let body = |o: &Output| {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        text[text.find("\nnormalize:").unwrap()..].to_string()
    };
    assert!(
        body(&files) == body(&table),
        "three sides: the table differs from the files"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn identity_options_are_applied_on_export() {
    let d = scratch("identity");
    let tree = d.join("tree");
    small_tree(&tree);
    for (k, w) in [("base", "pipes"), ("next", "sockets")] {
        for r in 1..=4 {
            let f = format!("run{r}.txt");
            copy(
                &format!("testdata/perf-report/dso-sym-n/{w}/{f}"),
                &tree.join(format!("{k}/dso/{f}")),
            );
        }
    }
    let alias = Path::new(ROOT).join("testdata/identity/renames.alias");
    let options: [&[&str]; 4] = [
        &["--keep-suffixes", "--alias", s(&alias)],
        &["--group-by", "module", "--exclude-idle"],
        &["--group-by", "prefix:__", "--include", "^[_a-z]"],
        &["--exclude", r"^\*unknown\*$|^do_"],
    ];
    for opts in options {
        let t = d.join("t.parquet");
        let mut args = vec!["export", s(&tree), "-o", s(&t)];
        args.extend_from_slice(opts);
        ok(&args);
        let mut files_args = vec!["batch", s(&tree), "--baseline", "base", "-o", "json"];
        files_args.extend_from_slice(opts);
        let files = ok(&files_args);
        let table = ok(&["batch", s(&t), "--baseline", "base", "-o", "json"]);
        assert!(
            files.stdout == table.stdout,
            "{opts:?}: table differs from files"
        );
    }
    let refused = run(&[
        "--table",
        s(&d.join("t.parquet")),
        "--old",
        "kernel=base",
        "--new",
        "kernel=next",
        "--keep-suffixes",
        "--exclude-idle",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "diffprofile: error: --table: --keep-suffixes, --exclude-idle read and name profiles, which the table's rows already are: give them to `diffprofile export`\n"
    );
    let _ = fs::remove_dir_all(&d);
}
