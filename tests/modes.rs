//! A name that is both a kernel and a user function (`[k] read_zero` and
//! `[.] read_zero` in one `perf report --sort sym` table, no dso column):
//! two rows, never one sum, in the aggregate and in the comparison, with
//! and without `--kernel-only`, and the same counts from the recording's
//! perf script (testdata/modes/, scripts/record-mode-collision.sh).

use serde_json::Value;

const R1: &str = "testdata/modes/run1.report-sym.txt";
const R2: &str = "testdata/modes/run2.report-sym.txt";
const S2: &str = "testdata/modes/run2.perf-script.txt.gz";

/// (dso, old, new) of every `read_zero` row.
fn read_zero(args: &[&str]) -> Vec<(String, f64, f64)> {
    let v = super::cli::json_of(args);
    let mut out: Vec<(String, f64, f64)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["symbol"] == "read_zero")
        .map(|r: &Value| {
            (
                r["dso"].as_str().unwrap_or("").to_string(),
                r["old"].as_f64().unwrap(),
                r["new"].as_f64().unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn kernel_and_user_functions_of_one_name_are_two_rows() {
    // perf report: run1 `[k] read_zero` 58, `[.] read_zero` 54; run2 51, 240.
    let want = vec![
        ("[kernel]".to_string(), 58.0, 51.0),
        ("[user]".to_string(), 54.0, 240.0),
    ];
    assert_eq!(read_zero(&[R1, R2, "-n", "ticks"]), want);
    // The same recording's perf script (with dsos) against the table
    // without: the counts agree.
    assert_eq!(read_zero(&[R1, S2, "-n", "ticks"]), want);
    // --kernel-only shows the kernel function alone.
    assert_eq!(
        read_zero(&[R1, R2, "-n", "ticks", "--kernel-only"]),
        vec![("[kernel]".to_string(), 58.0, 51.0)]
    );
}

#[test]
fn the_label_says_which_mode() {
    let out = super::cli::stdout_of(&[R1, R2, "-n", "ticks", "--color", "never"]);
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("read_zero [user]"), "{text}");
    assert!(text.contains("read_zero [kernel]"), "{text}");
}
