//! What an outside tester found overwritten or filtered differently by
//! the input's format: `-O` into a `--jit-map-dir` or `--debug-dir`
//! file, `history -O` over its `--order` file, `batch --out-dir` holding
//! an input, and `--dso` that matched a path in perf script text but a
//! file name in perf report text.

use crate::cli::{json_of, refused, run, s};
use crate::scratch::Scratch;
use std::fs;

const SCRIPT: &str = "testdata/user/user.perf-script.txt.gz";
const REPORT: &str = "testdata/user/user.report.txt.gz";

/// The samples the filters kept of side `i`'s one run.
fn kept(v: &serde_json::Value, i: usize) -> f64 {
    v["sides"][i]["runs"][0]["kept"]
        .as_f64()
        .unwrap_or_else(|| panic!("no kept in {}", v["sides"][i]))
}

#[test]
fn a_dso_filter_keeps_the_same_samples_of_every_text_format() {
    // One recording: its perf script text names libc by path, its perf
    // report text by file name. A filter on the file name keeps the same
    // samples of both (before, the script side kept none: 8 rows "gone").
    let v = json_of(&[SCRIPT, REPORT, "--dso", r"^libc\.so\.6$"]);
    let (old, new) = (kept(&v, 0), kept(&v, 1));
    assert!(old > 0.0, "{v}");
    assert_eq!(old, new, "{v}");
    // A path filter keeps what it kept.
    let v = json_of(&[SCRIPT, SCRIPT, "--dso", "^/usr/lib/x86_64-linux-gnu/libc"]);
    assert_eq!(kept(&v, 0), old, "{v}");
}

#[test]
fn history_does_not_write_over_its_order_file() {
    let d = Scratch::new("lead5", "order");
    let order = d.join("order.txt");
    fs::write(&order, "v6.7\nv6.8\nv6.9\nv6.10\n").unwrap();
    let o = run(&[
        "history",
        "testdata/history/tree",
        "--order",
        s(&order),
        "-O",
        s(&order),
    ]);
    refused(&o, "is the input");
    assert_eq!(
        fs::read_to_string(&order).unwrap(),
        "v6.7\nv6.8\nv6.9\nv6.10\n"
    );
}

#[test]
fn an_output_in_a_jit_map_or_debug_directory_is_refused() {
    let d = Scratch::new("lead5", "dirs");
    let jit = d.join("jit");
    fs::create_dir_all(&jit).unwrap();
    let map = jit.join("perf-6523.map");
    fs::copy("testdata/user/jit/perf-6523.map", &map).unwrap();
    let before = fs::read(&map).unwrap();
    let data = "testdata/user/user.perf.data.gz";
    for flag in ["--jit-map-dir", "--debug-dir"] {
        let o = run(&[
            data,
            data,
            flag,
            s(&jit),
            "--allow-duplicates",
            "-O",
            s(&map),
        ]);
        refused(&o, "inside the input directory");
        assert_eq!(fs::read(&map).unwrap(), before, "{flag}");
    }
}

#[test]
fn an_out_dir_holding_an_input_file_is_refused() {
    let d = Scratch::new("lead5", "outdir");
    let out = d.join("reports");
    fs::create_dir_all(&out).unwrap();
    let alias = out.join("index.txt");
    fs::write(&alias, "# aliases\n").unwrap();
    let tree = "testdata/history/tree";
    let args = ["batch", tree, "--baseline", "v6.7", "--alias", s(&alias)];
    let o = run(&[&args[..], &["--out-dir", s(&out)]].concat());
    refused(&o, "holds the input");
    assert_eq!(fs::read_to_string(&alias).unwrap(), "# aliases\n");
}
