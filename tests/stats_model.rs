//! docs/statistics.md §5.3 on recorded runs: one run a side with a noise
//! model, the single OLD run joins the model's replicates, so a burst in
//! it is that symbol's noise, not a change.

use crate::cli::{diffprofile, json_of};
use serde_json::Value;

const DIR: &str = "testdata/modelburst";

fn run(r: u32) -> String {
    format!("{DIR}/pipe-run{r}.folded")
}

/// A/A: run 4 (a burst in `_raw_spin_unlock_irqrestore`, 1972 where the
/// model's runs 1, 5, 6 expect 1639) against run 2: statistics 3 marked
/// it (1972 → 1204, q 0.008); with the OLD run joining the model nothing
/// is marked, the burst symbol's φ is its own, and the OLD run is still
/// named as unlike the model.
#[test]
fn a_burst_in_the_old_run_is_noise_with_a_model() {
    let (m1, m5, m6, old, new) = (run(1), run(5), run(6), run(4), run(2));
    let v = json_of(&["--noise-from", &m1, &m5, &m6, "--old", &old, "--new", &new]);
    assert_eq!(v["noise"]["method"], "noise-model");
    let rows = v["rows"].as_array().unwrap();
    let marked: Vec<&str> = rows
        .iter()
        .filter(|r| r["significant"] == true)
        .map(|r| r["symbol"].as_str().unwrap())
        .collect();
    assert!(marked.is_empty(), "A/A rows marked: {marked:?}");
    let burst = rows
        .iter()
        .find(|r| r["symbol"] == "_raw_spin_unlock_irqrestore")
        .expect("the burst symbol's row");
    assert_eq!(burst["old_counts"][0], 1972.0);
    assert!(burst["dispersion"].as_f64().unwrap() > 3.0, "{burst}");
    let warned = v["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .unwrap()
            .contains("is unlike the noise model's replicates")
    });
    assert!(warned, "{}", v["warnings"]);
}

/// Run 2 as OLD (it agrees with the model): every row the model knows
/// tests on the model's ν plus the OLD run's degree of freedom.
#[test]
fn an_old_run_joins_with_one_degree_of_freedom() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("pipe.noise.json");
    let model = model.to_str().unwrap();
    let (m1, m5, m6, old) = (run(1), run(5), run(6), run(2));
    let out = diffprofile()
        .args(["noise-model", &m1, &m5, &m6, "-o", model])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(model).unwrap()).unwrap();
    let df_of = |name: &str| {
        written["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["symbol"] == name)
            .map(|s| s["df"].as_f64().unwrap())
            .unwrap()
    };
    let v = json_of(&["--noise-model", model, &old, &run(4)]);
    let mut checked = 0;
    for r in v["rows"].as_array().unwrap() {
        let name = r["symbol"].as_str().unwrap();
        if r["old_counts"][0].as_f64().unwrap() >= 100.0 {
            assert_eq!(r["df"].as_f64().unwrap(), df_of(name) + 1.0, "{r}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked}");
}
