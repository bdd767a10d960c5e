//! Real engines over the counts table, no mocks: DuckDB (the `duckdb`
//! Python package, embedded) and Apache Spark in local mode (`pyspark` on
//! a Java 17 runtime) run scripts/engine-*.py over exported tables, write
//! tables back as they write them (snappy, hive partitions, part files),
//! and diffprofile reads those. `bash .ci/run` installs both; without them
//! a test says SKIPPED on stderr ([`crate::skip`]), and fails under CI=true.

use crate::export::{json, ok, s, scratch, small_tree, ROOT};
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Whether python3 imports `module` (and, for Spark, `java` runs); `test`
/// is skipped, saying so, when not.
fn have(test: &str, module: &str, java: bool) -> bool {
    let py = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    let jvm = !java
        || Command::new("java")
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !(py && jvm) {
        let what = if py { "java" } else { module };
        crate::skip::skip(
            test,
            &format!("needs {what} (bash .ci/run installs it)"),
            Some(
                "pip install duckdb==2.0.1 pyspark==3.5.7; apt-get install openjdk-17-jre-headless",
            ),
        );
    }
    py && jvm
}

/// Run an engine script; its JSON answer.
fn engine(script: &str, args: &[&str]) -> Value {
    let o = Command::new("python3")
        .arg(Path::new(ROOT).join("scripts").join(script))
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    json(&o)
}

/// The engine's shares of the symbol equal diffprofile's values for it in
/// `report` (a batch's JSON), for every benchmark and kernel.
fn same_shares(answer: &Value, report: &Value) {
    let symbol = answer["symbol"].as_str().unwrap();
    let history = answer["history"].as_array().unwrap();
    assert!(!history.is_empty());
    for h in history {
        let bench = report["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == h["benchmark"])
            .unwrap();
        let row = bench["report"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["symbol"] == symbol)
            .unwrap();
        let ours = if h["kernel"] == "base" {
            row["old"].as_f64()
        } else {
            let vs = row["vs"].as_array().unwrap();
            vs.iter().find(|v| v["side"] == h["kernel"]).unwrap()["new"].as_f64()
        }
        .unwrap();
        let theirs = h["share"].as_f64().unwrap();
        assert!(
            (ours - theirs).abs() <= 1e-9 * ours.abs().max(1.0),
            "{h}: diffprofile says {ours}"
        );
    }
}

#[test]
fn duckdb_queries_the_table_and_diffprofile_reads_what_it_writes() {
    if !have(
        "duckdb_queries_the_table_and_diffprofile_reads_what_it_writes",
        "duckdb",
        false,
    ) {
        return;
    }
    let d = scratch("duckdb");
    let tree = d.join("tree");
    small_tree(&tree);
    let t = d.join("counts.parquet");
    ok(&["export", s(&tree), "-o", s(&t)]);
    let out = d.join("engine");
    let answer = engine("engine-duckdb.py", &[s(&t), s(&out), "fdget_pos", "base"]);
    let files = ok(&["batch", s(&tree), "--baseline", "base", "-o", "json"]);
    let report = json(&files);
    same_shares(&answer, &report);
    // fdget_pos grows with threads (pipes share the file table), in both.
    let growing: Vec<&str> = answer["growing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(growing, ["perf", "rp"]);
    for written in ["growing.parquet", "by-benchmark"] {
        let back = ok(&[
            "batch",
            s(&out.join(written)),
            "--baseline",
            "base",
            "-o",
            "json",
        ]);
        assert!(
            back.stdout == files.stdout,
            "{written}: DuckDB's table differs from the files"
        );
    }
    let o = ok(&[
        "--table",
        s(&out.join("by-benchmark")),
        "--old",
        "kernel=base",
        "--new",
        "kernel=thr",
        "--where",
        "benchmark=rp",
        "-o",
        "json",
    ]);
    let fdget = json(&o)["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == "fdget_pos")
        .cloned()
        .unwrap();
    assert_eq!(fdget["significant"], true);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn spark_merges_shards_into_the_table_one_machine_writes() {
    if !have(
        "spark_merges_shards_into_the_table_one_machine_writes",
        "pyspark",
        true,
    ) {
        return;
    }
    let d = scratch("spark");
    let tree = d.join("tree");
    small_tree(&tree);
    let shards: Vec<String> = (1..=2)
        .map(|k| {
            let f = d.join(format!("shard{k}.parquet"));
            ok(&[
                "export",
                s(&tree),
                "--shard",
                &format!("{k}/2"),
                "-o",
                s(&f),
            ]);
            s(&f).to_string()
        })
        .collect();
    let out = d.join("spark-table");
    let mut args = vec![s(&out), "fdget_pos", "base"];
    args.extend(shards.iter().map(String::as_str));
    let answer = engine("engine-spark.py", &args);
    assert!(out.join("_SUCCESS").exists());
    let files = ok(&["batch", s(&tree), "--baseline", "base", "-o", "json"]);
    same_shares(&answer, &json(&files));
    let spark = ok(&["batch", s(&out), "--baseline", "base", "-o", "json"]);
    assert!(
        spark.stdout == files.stdout,
        "Spark's merge of the shards differs from the files"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn warehouse_demo_runs_end_to_end() {
    if !have("warehouse_demo_runs_end_to_end", "duckdb", false) {
        return;
    }
    let o = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/warehouse-demo.sh"))
        .env("DIFFPROFILE", crate::export::BIN)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains("growing: hackbench-perf since v6.2, hackbench-rp since v6.2"),
        "{out}"
    );
    assert!(
        out.contains("batch over the two shards: JSON identical to batch over the files"),
        "{out}"
    );
    assert!(
        out.contains("DuckDB's 9 shares of fdget_pos equal diffprofile's"),
        "{out}"
    );
}
