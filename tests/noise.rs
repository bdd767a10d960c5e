//! The statistics' promises (docs/statistics.md, version 2) through the
//! binary on real recordings: noise models (`noise-model`, `--noise-model`,
//! `--noise-from`, their refusals and warnings, `batch`), a symbol from
//! nothing marked at 2+2 runs, and every interval agreeing with its mark.

use crate::cli::{diffprofile, json_of, stdout_of};
use serde_json::Value;

const PIPES: &str = "testdata/readprofile/default/pipes";
const THREADS: &str = "testdata/readprofile/default/threads";

fn run(dir: &str, i: u32) -> String {
    format!("{dir}/run{i}.txt")
}

/// Exit code and stderr of a run expected to fail.
fn failure(args: &[&str]) -> (Option<i32>, String) {
    let out = diffprofile().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn noise_model_file_and_noise_from_agree_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("pipes.noise.json");
    let model = model.to_str().unwrap();
    let (r1, r2, r3) = (run(PIPES, 1), run(PIPES, 2), run(PIPES, 3));
    let out = diffprofile()
        .args(["noise-model", &r1, &r2, &r3, "-o", model])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(model).unwrap()).unwrap();
    assert_eq!(written["diffprofile_noise_model"], 1);
    assert_eq!(written["residual_df"], 2.0);
    assert_eq!(written["runs"].as_array().unwrap().len(), 3);
    let symbols = written["symbols"].as_array().unwrap();
    assert!(symbols.len() > 50, "{}", symbols.len());
    assert!(symbols
        .iter()
        .all(|s| s["dispersion"].as_f64().unwrap() >= 1.0));

    let (old, new) = (run(PIPES, 4), run(THREADS, 1));
    let from_file = json_of(&["--noise-model", model, &old, &new]);
    let learned = json_of(&[&old, &new, "--noise-from", &r1, &r2, &r3]);
    assert_eq!(from_file["noise"]["method"], "noise-model");
    assert_eq!(from_file["noise"]["model"]["runs"], 3);
    assert_eq!(from_file["noise"]["model"]["source"], model);
    assert_eq!(
        from_file["rows"], learned["rows"],
        "a model read back is the model learned"
    );
    // One run per side with the model still finds the threads change.
    let fput = from_file["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == "fput")
        .unwrap();
    assert_eq!(fput["significant"], true, "{fput}");
    // Without a model the same pair is judged conservatively.
    let plain = json_of(&[&old, &new]);
    assert_eq!(plain["noise"]["method"], "one-run");
}

#[test]
fn noise_model_refuses_too_few_runs_and_bad_files() {
    let (code, err) = failure(&["noise-model", &run(PIPES, 1), &run(PIPES, 2)]);
    assert_eq!(code, Some(2));
    assert!(err.contains("at least 3 replicate runs"), "{err}");
    let (code, err) = failure(&[
        PIPES,
        THREADS,
        "--noise-from",
        &run(PIPES, 1),
        &run(PIPES, 2),
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--noise-from needs at least 3"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"diffprofile_noise_model\": 7}").unwrap();
    let bad = bad.to_str().unwrap();
    let (code, err) = failure(&["--noise-model", bad, PIPES, THREADS]);
    assert_eq!(code, Some(2));
    assert!(err.contains(bad) && err.contains("noise model"), "{err}");
    let (code, err) = failure(&["--noise-model", "/nonexistent.json", PIPES, THREADS]);
    assert_eq!(code, Some(2));
    assert!(err.contains("/nonexistent.json"), "{err}");
}

/// Valid but wrong: a model of other symbols, or made under another
/// normalisation, is used with a warning, never silently.
#[test]
fn a_model_of_something_else_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("stats.json");
    let model = model.to_str().unwrap();
    stdout_of(&[
        "noise-model",
        "testdata/stats/rep1.folded",
        "testdata/stats/rep2.folded",
        "testdata/stats/rep3.folded",
        "-n",
        "ticks",
        "-o",
        model,
    ]);
    let v = json_of(&["--noise-model", model, &run(PIPES, 1), &run(THREADS, 1)]);
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("knows the symbols of only 0%")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("learned with -n ticks, this comparison uses -n share")),
        "{warnings:?}"
    );
}

/// A symbol at 0 in every run of one side and >= 100 in every run of the
/// other is marked at 2+2 runs and more (fput: 0 with pipes, 120-128 with
/// threads), whichever side it is on.
#[test]
fn a_symbol_from_nothing_is_marked_at_two_runs_per_side() {
    for (old, new) in [([1, 2], [3, 4]), ([3, 4], [1, 2]), ([2, 3], [1, 4])] {
        for (a, b) in [(PIPES, THREADS), (THREADS, PIPES)] {
            let v = json_of(&[
                "--old",
                &run(a, old[0]),
                &run(a, old[1]),
                "--new",
                &run(b, new[0]),
                &run(b, new[1]),
            ]);
            let fput = v["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["symbol"] == "fput")
                .unwrap();
            assert_eq!(fput["significant"], true, "{a} -> {b}: {fput}");
        }
    }
}

/// Does an interval `[lo, hi]` (null bounds: infinite) exclude `at`?
fn excludes(ci: &Value, at: f64) -> bool {
    let lo = ci[0].as_f64().unwrap_or(f64::NEG_INFINITY);
    let hi = ci[1].as_f64().unwrap_or(f64::INFINITY);
    lo > at || hi < at
}

/// docs/statistics.md §8-9: for every tested row, marked `*` ⟺ the ratio
/// interval excludes 1 ⟺ the Δ interval excludes 0, over real comparisons
/// at 1+1 to 4+4 runs, every adjustment and normalisation, with and
/// without a noise model.
#[test]
fn every_interval_agrees_with_its_mark() {
    let (p, t) = (PIPES, THREADS);
    let (p1, p2, p3, p4) = (run(p, 1), run(p, 2), run(p, 3), run(p, 4));
    let (t1, t2, t3) = (run(t, 1), run(t, 2), run(t, 3));
    let sockets = "testdata/readprofile/default/sockets";
    let cases: Vec<Vec<&str>> = vec![
        vec![p, t],
        vec![p, t, "--adjust", "by"],
        vec![p, t, "--adjust", "holm"],
        vec![p, t, "-n", "ticks"],
        vec![p, t, "-n", "robust"],
        vec![sockets, p],
        vec![&p1, &t1],
        vec!["--old", &p1, &p2, "--new", &t1, &t2],
        vec!["--old", &p1, "--new", &t1, &t2, &t3],
        vec![&p1, &t1, "--noise-from", &p2, &p3, &p4],
        vec![
            "testdata/perf-report/sym-n/pipes",
            "testdata/perf-report/sym-n/threads",
        ],
        vec![
            "testdata/perf-script/pipes.txt.gz",
            "testdata/perf-script/threads.txt.gz",
        ],
    ];
    let mut checked = 0;
    for args in cases {
        let v = json_of(&args);
        let level = v["noise"]["interval_level"].as_f64().unwrap();
        assert!(level > 0.95 - 1e-12 && level < 1.0, "{args:?}: {level}");
        for r in v["rows"].as_array().unwrap() {
            if r["p"].is_null() {
                assert!(r["ratio_ci"].is_null() && r["delta_ci"].is_null(), "{r}");
                continue;
            }
            let sig = r["significant"].as_bool().unwrap();
            assert_eq!(excludes(&r["ratio_ci"], 1.0), sig, "{args:?} {r}");
            assert_eq!(excludes(&r["delta_ci"], 0.0), sig, "{args:?} {r}");
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked}");
}

/// `--wide` shows the dispersion and its degrees of freedom, and the
/// header says how noise was judged.
#[test]
fn wide_text_shows_dispersion_and_df() {
    let out = String::from_utf8(stdout_of(&[PIPES, THREADS, "--wide", "--top", "2"])).unwrap();
    let title = out.lines().find(|l| l.contains("delta ci")).unwrap();
    assert!(title.contains(" phi ") && title.contains(" df "), "{title}");
    assert!(
        out.contains("noise: over runs (quasi-likelihood F test, residual df 6)"),
        "{out}"
    );
}
