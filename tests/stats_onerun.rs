//! docs/statistics.md §5.4 on recorded runs: with one run a side, a shift
//! of every symbol's share (the workload's part of a busy machine, under
//! `--comm` on a system-wide recording) is run-to-run noise, measured with
//! the symbols' spread around no change, and is not a change of each.

use crate::cli::json_of;

const OLD: &str = "testdata/onerun/cxx-run2.folded";
const NEW: &str = "testdata/onerun/cxx-run4.folded";

/// The same workload (A/A), its share of the machine 3x larger in NEW:
/// before statistics 3.1 the noise was measured around the common shift
/// (κ̂ = 0) and 26 of its symbols were marked.
#[test]
fn a_common_shift_is_noise_with_one_run_a_side() {
    let v = json_of(&[OLD, NEW]);
    let one = &v["noise"]["one_run"];
    assert_eq!(v["noise"]["method"], "one-run");
    let shift = one["shift"].as_f64().unwrap();
    assert!(shift > 1.0, "the recorded shift: {shift}");
    assert!(one["kappa"].as_f64().unwrap() > 0.0, "{one}");
    let marked: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["significant"] == true)
        .map(|r| r["symbol"].as_str().unwrap())
        .collect();
    assert!(marked.is_empty(), "A/A rows marked: {marked:?}");
    let text = v["comparisons"][0]["noise"].as_str().unwrap();
    assert!(text.contains("from their spread around no change"), "{text}");
}
