//! docs/statistics.md §5.4 and §9 on recorded runs: with one run a side, a
//! shift of every symbol's share (the workload's part of a busy machine,
//! under `--comm` on a system-wide recording) is run-to-run noise, allowed
//! for by testing each row against the band from no change to that shift,
//! while a change far beyond the shift stays marked, its Δ interval within
//! what shares can be.

use crate::cli::json_of;

const OLD: &str = "testdata/onerun/cxx-run2.folded";
const NEW: &str = "testdata/onerun/cxx-run4.folded";

fn marked(v: &serde_json::Value) -> Vec<&str> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["significant"] == true)
        .map(|r| r["symbol"].as_str().unwrap())
        .collect()
}

/// The samples `--comm` would remove, one row: the complement of the
/// workload's share (96% of OLD, 88% of NEW), which changes when the
/// workload's share does. It is a row like any other here, and its share
/// did fall by 8 pp.
const REST: &str = "[other_processes]";

/// The same workload (A/A), its share of the machine 3x larger in NEW:
/// in version 3 (noise measured around the shift, rows tested at no
/// change) 26 of its symbols were marked. None of them is now.
#[test]
fn a_common_shift_is_noise_with_one_run_a_side() {
    let v = json_of(&[OLD, NEW]);
    let one = &v["noise"]["one_run"];
    assert_eq!(v["noise"]["method"], "one-run");
    let shift = one["shift"].as_f64().unwrap();
    assert!(shift > 1.0, "the recorded shift: {shift}");
    let workload: Vec<&str> = marked(&v).into_iter().filter(|s| *s != REST).collect();
    assert!(workload.is_empty(), "A/A rows marked: {workload:?}");
    let text = v["comparisons"][0]["noise"].as_str().unwrap();
    assert!(
        text.contains("around their common shift of x") && text.contains("against the band"),
        "{text}"
    );
}

/// The same pair with a symbol new in NEW holding 45% of its samples:
/// every other share in NEW falls by 1.8x with it. Measuring the noise
/// around no change (the first version 3.1) let that composition effect
/// into every row's dispersion, and the new symbol was `~` (q 0.84) with a
/// Δ interval of −1777 to +1142 pp. It is beyond the band by far: `*`, its
/// Δ interval inside ±100 pp and excluding 0, and the workload's symbols
/// stay unmarked (the rest of the machine, 96% of OLD and 49% of NEW, is
/// marked too: its share halved).
#[test]
fn a_change_far_beyond_the_common_shift_is_marked() {
    let d = crate::scratch::Scratch::new("diffprofile-onerun", "beyond");
    let folded = std::fs::read_to_string(NEW).unwrap();
    let total: f64 = folded
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    let added = (total * 0.45 / 0.55).round();
    let new = d.join("new.folded");
    std::fs::write(&new, format!("{folded}[unknown] {added}\n")).unwrap();
    let v = json_of(&[OLD, new.to_str().unwrap()]);
    assert_eq!(v["noise"]["method"], "one-run");
    assert_eq!(marked(&v), ["[unknown]", REST], "{}", v["noise"]);
    let row = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == "[unknown]")
        .unwrap();
    assert!(row["q"].as_f64().unwrap() < 1e-3, "{row}");
    let ci: Vec<f64> = row["delta_ci"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_f64().unwrap())
        .collect();
    assert!(
        ci[0] > 0.0 && ci[0] <= 45.0 && ci[1] >= 44.0 && ci[1] <= 100.0,
        "{ci:?}"
    );
    // Every row's Δ interval is within what shares allow.
    for r in v["rows"].as_array().unwrap() {
        if let Some(ci) = r["delta_ci"].as_array() {
            let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
            assert!((-100.0..=100.0).contains(&lo) && (-100.0..=100.0).contains(&hi));
        }
    }
}
