//! Every test vector of docs/statistics.md §13 (version 3), as computed by
//! the independent implementation (`scripts/verify-stats.py --vectors
//! --json-out tests/vectors/statistics-v3.json`, written from the document
//! alone), reproduced to a relative 1e-6 twice: through the library (the
//! `stats` functions and `significance::judge`) and end to end through the
//! binary on the profiles of testdata/stats/ (`-o json`).

use crate::cli::json_of;
use diffprofile::significance::{self, Counts, Method, Options};
use diffprofile::stats::{self, Adjust};
use serde_json::Value;

const VECTORS: &str = "tests/vectors/statistics-v3.json";

fn vectors() -> Value {
    let text = std::fs::read_to_string(VECTORS).expect("tests/vectors/statistics-v3.json");
    serde_json::from_str(&text).expect("vectors are JSON")
}

/// A vector number: `"inf"`/`"-inf"` are infinities, null is None.
fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Null => None,
        Value::String(s) if s == "inf" => Some(f64::INFINITY),
        Value::String(s) if s == "-inf" => Some(f64::NEG_INFINITY),
        v => Some(v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))),
    }
}

/// `got` equals the vector's `want` to 1e-6 relative (1e-12 absolute floor);
/// infinities and zeros exactly.
#[track_caller]
fn same(got: f64, want: &Value, what: &str) {
    let want = num(want).unwrap_or_else(|| panic!("{what}: vector is null, got {got}"));
    if want.is_infinite() || want == 0.0 {
        assert!(
            got == want || (want == 0.0 && got.abs() <= 1e-12),
            "{what}: got {got}, want {want}"
        );
    } else {
        assert!(
            (got - want).abs() <= 1e-6 * want.abs().max(1e-12 / 1e-6),
            "{what}: got {got}, want {want}"
        );
    }
}

#[track_caller]
fn same_ci(got: Option<(f64, f64)>, want: &Value, scale: f64, what: &str) {
    match got {
        None => assert!(want.is_null(), "{what}: no interval, want {want}"),
        Some((lo, hi)) => {
            same(lo * scale, &want[0], &format!("{what} lower"));
            same(hi * scale, &want[1], &format!("{what} upper"));
        }
    }
}

// --------------------------------------------------------------- library

#[test]
fn v1_sampling_layer() {
    let v = vectors();
    for (name, case) in v["cases"]["V1"]["subcases"].as_object().unwrap() {
        let (i, o) = (&case["inputs"], &case["outputs"]);
        let (x, y) = (num(&i["x"]).unwrap(), num(&i["y"]).unwrap());
        let (eo, en) = (
            num(&i["exposure_old"]).unwrap(),
            num(&i["exposure_new"]).unwrap(),
        );
        same(stats::exact_p(x, y, eo, en), &o["p_exact"], name);
        same(
            stats::min_reachable_p(x + y, en / (eo + en)),
            &o["min_p"],
            name,
        );
        let ci = stats::cp_ratio_interval(x, y, eo, en, 0.05);
        same_ci(Some(ci), &o["ratio_ci_exact"], 1.0, name);
        let d = |t| stats::delta_at_ratio(t, x, y, eo, en);
        same_ci(Some((d(ci.0), d(ci.1))), &o["delta_ci_exact"], 100.0, name);
    }
}

/// One row through `significance::judge`, checked against a vector's
/// per-row outputs (φ, ν, p's, q, mark, every interval).
#[track_caller]
fn check_single(case: &Value, name: &str) {
    let (i, o) = (&case["inputs"], &case["outputs"]);
    let f = |k: &str| -> Vec<f64> {
        i[k].as_array()
            .unwrap()
            .iter()
            .map(|v| num(v).unwrap())
            .collect()
    };
    let (old, new) = (f("old_counts"), f("new_counts"));
    let (eo, en) = (f("exposures_old"), f("exposures_new"));
    let (x, y): (f64, f64) = (old.iter().sum(), new.iter().sum());
    let (mo, mn): (f64, f64) = (eo.iter().sum(), en.iter().sum());
    let d = (old.len() + new.len()) as f64 - 2.0;
    let x2 = stats::pearson_x2(
        &old.iter()
            .copied()
            .zip(eo.iter().copied())
            .collect::<Vec<_>>(),
    ) + stats::pearson_x2(
        &new.iter()
            .copied()
            .zip(en.iter().copied())
            .collect::<Vec<_>>(),
    );
    same(x2, &o["x2"], &format!("{name} X²"));
    same(x2 / d, &o["s2"], &format!("{name} s²"));
    same(
        stats::lr_stat(x, y, mo, mn),
        &o["lr"],
        &format!("{name} LR"),
    );
    same(
        stats::exact_p(x, y, mo, mn),
        &o["p_exact"],
        &format!("{name} p_exact"),
    );
    let opts = Options {
        alpha: 0.05,
        adjust: Adjust::Bh,
        noise_cv: None,
        testable: true,
        shares: true,
        filter: true,
    };
    let rows = [Counts {
        old: &old,
        new: &new,
    }];
    let (v, noise) = significance::judge(&rows, &eo, &en, None, &opts);
    assert_eq!(noise.method, Method::Runs);
    assert!(noise.moderation.is_none(), "one symbol: no moderation");
    let v = v[0];
    same(v.dispersion.unwrap(), &o["phi"], &format!("{name} φ"));
    same(v.df.unwrap(), &o["nu"], &format!("{name} ν"));
    let p_ql = stats::ql_p(
        stats::lr_stat(x, y, mo, mn),
        v.dispersion.unwrap(),
        v.df.unwrap(),
    );
    same(p_ql, &o["p_ql"], &format!("{name} p_ql"));
    same(v.p.unwrap(), &o["p"], &format!("{name} p"));
    same(v.q.unwrap(), &o["q"], &format!("{name} q"));
    assert_eq!(v.significant, o["significant"].as_bool().unwrap(), "{name}");
    same_ci(v.ratio_ci, &o["ratio_ci"], 1.0, &format!("{name} ratio"));
    same_ci(v.delta_ci, &o["delta_ci"], 100.0, &format!("{name} Δ"));
    // Each layer's interval on its own.
    let chi = stats::critical(v.dispersion.unwrap(), v.df.unwrap(), 0.05);
    same_ci(
        Some(stats::ratio_interval(x, y, mo, mn, chi)),
        &o["ratio_ci_lr"],
        1.0,
        &format!("{name} ratio (LR)"),
    );
    same_ci(
        Some(stats::delta_interval(x, y, mo, mn, chi)),
        &o["delta_ci_lr"],
        100.0,
        &format!("{name} Δ (LR)"),
    );
    same_ci(
        Some(stats::cp_ratio_interval(x, y, mo, mn, 0.05)),
        &o["ratio_ci_exact"],
        1.0,
        &format!("{name} ratio (exact)"),
    );
}

#[test]
fn v2_v3_v4_run_layer_one_symbol() {
    let v = vectors();
    for name in ["V2", "V3", "V4"] {
        check_single(&v["cases"][name], name);
    }
}

#[test]
fn v8_multiple_testing_and_interval_level() {
    let v = vectors();
    let case = &v["cases"]["V8"];
    let p: Vec<f64> = case["inputs"]["p"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| num(x).unwrap())
        .collect();
    for (method, key) in [
        (Adjust::Bh, "Benjamini-Hochberg"),
        (Adjust::By, "Benjamini-Yekutieli"),
        (Adjust::Holm, "Holm"),
    ] {
        let want = &case["outputs"][key];
        let q = stats::adjust(&p, method);
        for (j, q) in q.iter().enumerate() {
            same(*q, &want["q"][j], &format!("{key} q{j}"));
        }
        let marked = q.iter().filter(|&&q| q <= 0.05).count();
        assert_eq!(marked as u64, want["marked"].as_u64().unwrap(), "{key}");
        same(
            stats::interval_level(method, 0.05, p.len(), marked),
            &want["t"],
            key,
        );
    }
}

// ------------------------------------------------------------ end to end

/// A comparison case (V5, V6, V6b, V7's) through the binary: the noise
/// object and every row's p, q, mark, φ, ν and intervals.
#[track_caller]
fn check_comparison(inputs: &Value, outputs: &Value, extra: &[&str], name: &str) {
    let paths = |k: &str| -> Vec<String> {
        inputs[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    let mut args: Vec<String> = vec!["--old".into()];
    args.extend(paths("old"));
    args.push("--new".into());
    args.extend(paths("new"));
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let got = json_of(&args);
    let (gn, wn) = (&got["noise"], &outputs["noise"]);
    assert_eq!(gn["method"], wn["method"], "{name}");
    same(
        gn["residual_df"].as_f64().unwrap(),
        &wn["residual_df"],
        name,
    );
    same(
        gn["interval_level"].as_f64().unwrap(),
        &wn["interval_level"],
        &format!("{name} interval level"),
    );
    for part in ["moderation", "one_run", "filter"] {
        let Some(w) = wn.get(part).filter(|w| !w.is_null()) else {
            assert!(gn[part].is_null(), "{name}: {part} {}", gn[part]);
            continue;
        };
        for (k, want) in w.as_object().unwrap() {
            if k == "evar" || k == "rejections_by_quantile" {
                continue; // intermediates the JSON does not carry
            }
            let g = &gn[part][k];
            match num(want) {
                None => assert!(g.is_null(), "{name} {part}.{k}: {g}"),
                Some(x) if x.is_infinite() => assert!(g.is_null(), "{name} {part}.{k}: {g}"),
                Some(_) => same(g.as_f64().unwrap(), want, &format!("{name} {part}.{k}")),
            }
        }
    }
    let rows = got["rows"].as_array().unwrap();
    let wrows = outputs["rows"].as_object().unwrap();
    assert_eq!(rows.len(), wrows.len(), "{name}: rows");
    for r in rows {
        let sym = r["symbol"].as_str().unwrap();
        let w = &wrows[sym];
        let what = format!("{name} {sym}");
        assert_eq!(r["significant"], w["significant"], "{what}");
        if w["p"].is_null() {
            assert!(r["p"].is_null() && r["ratio_ci"].is_null(), "{what}");
            continue;
        }
        for (k, wk) in [("p", "p"), ("q", "q"), ("dispersion", "phi"), ("df", "nu")] {
            same(r[k].as_f64().unwrap(), &w[wk], &format!("{what} {k}"));
        }
        let ci = |v: &Value| -> Option<(f64, f64)> {
            let b = |x: &Value| x.as_f64();
            Some((
                b(&v[0]).unwrap_or(f64::NEG_INFINITY),
                b(&v[1]).unwrap_or(f64::INFINITY),
            ))
        };
        let ratio = ci(&r["ratio_ci"]).map(|(lo, hi)| (lo.max(0.0), hi));
        same_ci(ratio, &w["ratio_ci"], 1.0, &format!("{what} ratio"));
        same_ci(
            ci(&r["delta_ci"]),
            &w["delta_ci"],
            1.0,
            &format!("{what} Δ"),
        );
    }
}

/// §8.2: a symbol filter shows fewer rows; their p is V5's, their q is
/// over the rows shown.
#[test]
fn v9_filters_choose_the_family_end_to_end() {
    let v = vectors();
    let c = &v["cases"]["V9"];
    let include = c["include"].as_str().unwrap();
    check_comparison(&c["inputs"], &c["outputs"], &["--include", include], "V9");
    for (sym, row) in c["outputs"]["rows"].as_object().unwrap() {
        assert_eq!(
            row["p"], v["cases"]["V5"]["outputs"]["rows"][sym]["p"],
            "{sym}"
        );
    }
}

/// §7.1 (version 3.2): separated rows also get the t test of their runs'
/// log rates; its interval is intersected with the others'.
#[test]
fn v11_separated_rows_get_the_log_test_end_to_end() {
    let v = vectors();
    let c = &v["cases"]["V11"];
    check_comparison(&c["inputs"], &c["outputs"], &[], "V11");
    let rows = c["outputs"]["rows"].as_object().unwrap();
    let with_log = rows.values().filter(|r| r.get("p_log").is_some()).count();
    assert_eq!(with_log, 3, "e_stable, h_improved, k_new are separated");
}

/// §8.3 (version 3.3): the independent filter leaves the rare rows out of
/// the family; the threshold, the rows left out and every row's verdict
/// are the vectors'; more rows are marked than the adjustment alone marks.
#[test]
fn v12_the_independent_filter_end_to_end() {
    let v = vectors();
    let c = &v["cases"]["V12"];
    check_comparison(&c["inputs"], &c["outputs"], &[], "V12");
    let f = &c["outputs"]["noise"]["filter"];
    assert!(f["filtered"].as_u64().unwrap() > 0, "{f}");
    assert!(
        c["outputs"]["noise"]["marked"].as_u64() > c["unfiltered"]["marked"].as_u64(),
        "{}",
        c["unfiltered"]
    );
}

/// §5.5: each OLD run against its siblings (scale, extremes, weight).
#[test]
fn v10_runs_against_their_siblings_end_to_end() {
    let v = vectors();
    let c = &v["cases"]["V10"];
    check_comparison(&c["inputs"], &c["outputs"], &[], "V10");
    let mut args: Vec<&str> = vec!["--old"];
    let paths = |k: &str| -> Vec<String> {
        c["inputs"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    let (old, new) = (paths("old"), paths("new"));
    args.extend(old.iter().map(String::as_str));
    args.push("--new");
    args.extend(new.iter().map(String::as_str));
    let got = json_of(&args);
    let (g, w) = (
        got["noise"]["runs"].as_array().unwrap(),
        c["outputs"]["noise"]["runs"].as_array().unwrap(),
    );
    assert_eq!(g.len(), w.len());
    for (g, w) in g.iter().zip(w) {
        assert_eq!((&g["side"], &g["run"]), (&w["side"], &w["run"]));
        assert_eq!(
            (&g["extremes"], &g["unlike"]),
            (&w["extremes"], &w["unlike"])
        );
        same(g["scale"].as_f64().unwrap(), &w["scale"], "V10 scale");
        same(
            g["relative"].as_f64().unwrap(),
            &w["relative"],
            "V10 relative",
        );
        same(g["weight"].as_f64().unwrap(), &w["weight"], "V10 weight");
    }
}

#[test]
fn v5_moderation_end_to_end() {
    let v = vectors();
    let c = &v["cases"]["V5"];
    check_comparison(&c["inputs"], &c["outputs"], &[], "V5");
}

#[test]
fn v6_one_run_per_side_end_to_end() {
    let v = vectors();
    for name in ["V6", "V6b"] {
        let c = &v["cases"][name];
        check_comparison(&c["inputs"], &c["outputs"], &[], name);
    }
}

#[test]
fn v7_noise_model_end_to_end() {
    let v = vectors();
    let c = &v["cases"]["V7"];
    let runs: Vec<&str> = c["model"]["inputs"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    // The model itself, as `diffprofile noise-model` writes it.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.json");
    let file = file.to_str().unwrap();
    let mut args = vec!["noise-model"];
    args.extend(&runs);
    args.extend(["-o", file]);
    crate::cli::stdout_of(&args);
    let model: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let prior = &c["model"]["outputs"]["prior"];
    for k in ["trend_c", "trend_r", "prior_df", "prior_df_cap"] {
        same(
            model["moderation"][k].as_f64().unwrap(),
            &prior[k],
            &format!("V7 model {k}"),
        );
    }
    let symbols = c["model"]["outputs"]["symbols"].as_object().unwrap();
    assert_eq!(model["symbols"].as_array().unwrap().len(), symbols.len());
    for s in model["symbols"].as_array().unwrap() {
        let w = &symbols[s["symbol"].as_str().unwrap()];
        for k in ["mean_count", "s2", "dispersion", "df", "kappa"] {
            same(
                s[k].as_f64().unwrap(),
                &w[k],
                &format!("V7 model {} {k}", s["symbol"]),
            );
        }
    }
    // Comparisons with it: from the file and learned on the fly.
    for (name, cmp) in c["comparisons"].as_object().unwrap() {
        check_comparison(
            &cmp["inputs"],
            &cmp["outputs"],
            &["--noise-model", file],
            &format!("V7 {name}"),
        );
        let mut from = vec!["--noise-from"];
        from.extend(&runs);
        check_comparison(
            &cmp["inputs"],
            &cmp["outputs"],
            &from,
            &format!("V7 {name} (learned)"),
        );
    }
}
