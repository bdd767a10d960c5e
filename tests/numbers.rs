//! Printed numbers stay short and unsigned at zero: an interval's bound
//! from two runs a side can be astronomically wide (text, markdown and
//! HTML write it in exponent form; JSON keeps the number), and classic's
//! total under `-n share` is `0.000`, never `-0.000`.

use super::perfdata::{run, stderr};

/// perf report run 1 of pipes against run 1 of sockets: `x64_sys_call`'s
/// ratio interval reaches 3.4e17 (one run a side, judged across symbols).
/// (Runs 1 and 2 a side gave `strcmp` an interval to 3.7e13; with a
/// mean of 2.1 samples a run it is now below the independent filter's
/// threshold, docs/statistics.md §8.3, and untested.)
const TWO_A_SIDE: [&str; 4] = [
    "--old",
    "testdata/perf-report/default/pipes/run1.txt",
    "--new",
    "testdata/perf-report/default/sockets/run1.txt",
];

fn out(extra: &[&str]) -> String {
    let mut a = TWO_A_SIDE.to_vec();
    a.extend_from_slice(extra);
    let o = run(&a);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// The longest run of digits (with points) in `s`.
fn longest_number(s: &str) -> usize {
    s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(str::len)
        .max()
        .unwrap_or(0)
}

#[test]
fn wide_intervals_are_written_short() {
    for (fmt, max) in [("text", 12), ("markdown", 12)] {
        let o = out(&["--wide", "-o", fmt]);
        let line = o.lines().find(|l| l.contains("x64_sys_call")).unwrap();
        assert!(longest_number(line) <= max, "{fmt}: {line}");
        assert!(line.contains("e17]"), "{fmt}: {line}");
    }
    let j: serde_json::Value = serde_json::from_str(&out(&["-o", "json"])).unwrap();
    let row = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == "x64_sys_call")
        .unwrap();
    assert!(row["ratio_ci"][1].as_f64().unwrap() > 1e13, "{row}");
}

#[test]
fn classic_share_total_has_no_sign() {
    let o = run(&[
        "testdata/readprofile/default/pipes",
        "testdata/readprofile/default/threads",
        "-o",
        "classic",
        "-n",
        "share",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    let total = text.lines().last().unwrap();
    assert_eq!(
        total.split_whitespace().collect::<Vec<_>>(),
        ["0.000", "0.0%", "total"]
    );
    assert!(
        !text.contains("-0.000") && !text.contains("-0.0%"),
        "{text}"
    );
}
