//! `diffprofile history` end to end, through the built binary, on
//! testdata/history/: `tree/` (the repo's real runs laid out as a series of
//! kernels) and `vectors/` (hand-made runs whose steps
//! scripts/verify-stats.py --history computed independently, in
//! tests/vectors/history-v1.json).

use serde_json::Value;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_diffprofile");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn tree() -> String {
    format!("{ROOT}/testdata/history/tree")
}

/// `diffprofile history ARGS` (`diffprofile export ARGS` when the first is `export`).
fn run(args: &[&str]) -> Output {
    let mut c = Command::new(BIN);
    if args.first() != Some(&"export") {
        c.arg("history");
    }
    c.args(args).output().unwrap()
}

fn ok(args: &[&str]) -> Output {
    let o = run(args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["-o", "json"]);
    serde_json::from_slice(&ok(&a).stdout).unwrap()
}

fn scratch(name: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("diffprofile-history", name)
}

fn bench<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .unwrap_or_else(|| panic!("no benchmark {name}"))
}

/// The significant steps of a benchmark as (symbol, before, at).
fn steps(b: &Value) -> Vec<(String, String, String)> {
    b["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["significant"] == true)
        .map(|s| {
            let t = |k: &str| s[k].as_str().unwrap().to_string();
            (t("symbol"), t("before"), t("at"))
        })
        .collect()
}

#[test]
fn kernels_are_in_version_order_and_the_header_says_so() {
    let doc = json(&[&tree()]);
    let want = ["v6.7", "v6.8-rc1", "v6.8-rc3", "v6.8", "v6.9", "v6.10"];
    assert_eq!(doc["order"], "version");
    assert_eq!(doc["kernels"], serde_json::json!(want));
    let text = String::from_utf8(ok(&[&tree()]).stdout).unwrap();
    assert!(
        text.contains("order (version): v6.7 v6.8-rc1 v6.8-rc3 v6.8 v6.9 v6.10"),
        "{text}"
    );
}

#[test]
fn missing_kernels_are_said_and_left_out_of_the_series() {
    let o = ok(&[&tree(), "-o", "json"]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let perf = bench(&doc, "perf");
    assert_eq!(perf["missing"], serde_json::json!(["v6.8-rc3"]));
    assert_eq!(perf["kernels"].as_array().unwrap().len(), 5);
    let steady = bench(&doc, "steady");
    assert_eq!(steady["missing"], serde_json::json!(["v6.8-rc3", "v6.10"]));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("steady: no runs of kernel(s) v6.8-rc3, v6.10: left out of the series"),
        "{err}"
    );
}

#[test]
fn a_benchmark_with_one_kernel_is_skipped_and_said() {
    let d = scratch("one-kernel");
    for (k, b) in [("v6.1", "a"), ("v6.2", "a"), ("v6.1", "lonely")] {
        let dir = d.join(k).join(b);
        fs::create_dir_all(&dir).unwrap();
        fs::copy(
            format!("{ROOT}/testdata/readprofile/default/pipes/run1.txt"),
            dir.join("run1.txt"),
        )
        .unwrap();
    }
    let o = ok(&[d.to_str().unwrap(), "-o", "json"]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        bench(&doc, "lonely")["skipped"],
        "1 kernel(s) with runs: a series needs 2 or more"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("lonely: skipped: 1 kernel(s)"));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn one_run_per_kernel_finds_the_step_at_the_exact_kernel() {
    // pipes at v6.7 … v6.8-rc3, sockets from v6.8: AF_UNIX socket symbols
    // appear and pipe symbols vanish at v6.8, nowhere else.
    let doc = json(&[&tree()]);
    let s = steps(bench(&doc, "messaging"));
    assert!(s.len() >= 20, "{s:?}");
    for name in [
        "skb_release_data",
        "unix_stream_read_generic",
        "anon_pipe_write",
        "anon_pipe_read",
    ] {
        assert!(
            s.contains(&(name.into(), "v6.8-rc3".into(), "v6.8".into())),
            "{name}: {s:?}"
        );
    }
    let at: Vec<&str> = s.iter().map(|x| x.2.as_str()).collect();
    let elsewhere = at.iter().filter(|&&k| k != "v6.8").count();
    assert!(elsewhere * 10 <= at.len(), "most steps at v6.8: {s:?}");
}

#[test]
fn two_runs_per_kernel_find_two_steps_of_one_symbol() {
    // perf: pipes, sockets from v6.8, threads at v6.10 (pipes again, in threads).
    let doc = json(&[&tree()]);
    let s = steps(bench(&doc, "perf"));
    for (before, at) in [("v6.8-rc1", "v6.8"), ("v6.9", "v6.10")] {
        assert!(
            s.contains(&("skb_release_data".into(), before.into(), at.into())),
            "{s:?}"
        );
    }
    // The levels of each step are those between its significant neighbours.
    let b = bench(&doc, "perf");
    let up = b["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["symbol"] == "skb_release_data" && x["at"] == "v6.8")
        .unwrap();
    assert_eq!(up["segment_after"], serde_json::json!(["v6.8", "v6.9"]));
    assert_eq!(up["level_before"], 0.0);
}

#[test]
fn replicate_runs_of_one_workload_show_no_step() {
    let doc = json(&[&tree(), "--where", "benchmark=steady"]);
    let b = bench(&doc, "steady");
    assert!(b["noise"]["tested"].as_u64().unwrap() > 10);
    assert_eq!(b["steps"].as_array().unwrap().len(), 0, "{b}");
    let text = String::from_utf8(ok(&[&tree(), "--where", "benchmark=steady"]).stdout).unwrap();
    assert!(text.contains("no step found"), "{text}");
}

#[test]
fn json_follows_the_version_1_contract() {
    let doc = json(&[&tree()]);
    assert_eq!(doc["version"], 1);
    let b = bench(&doc, "messaging");
    assert_eq!(b["runs"]["v6.7"], 1);
    let st = &b["steps"][0];
    for key in ["symbol", "mode", "before", "at"] {
        assert!(st[key].is_string(), "{key}: {st}");
    }
    for key in ["level_before", "level_after", "delta", "p", "q"] {
        assert!(st[key].is_f64(), "{key}: {st}");
    }
    assert!(st["delta_pct"].is_f64() || st["delta_pct"].is_null());
    assert!(st["significant"].is_boolean());
    // The family of its q and how its kernel was found (§14.4-§14.5).
    assert!(st["round"].is_u64(), "{st}");
    assert!(["own", "moved", "benchmark"].contains(&st["placed"].as_str().unwrap()));
    assert_eq!(st["own_at"].is_string(), st["placed"] == "moved", "{st}");
    assert!(b["noise"]["step_kernels"].is_array() && b["noise"]["moved"].is_u64());
    let ci = st["delta_ci"].as_array().unwrap();
    assert_eq!(ci.len(), 2);
    let d = st["delta"].as_f64().unwrap();
    assert!(ci[0].as_f64().unwrap() <= d && d <= ci[1].as_f64().unwrap());
    let lb = st["level_before"].as_f64().unwrap();
    let la = st["level_after"].as_f64().unwrap();
    assert!((la - lb - d).abs() < 1e-12);
    // Ranked by |Δ|.
    let deltas: Vec<f64> = b["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["delta"].as_f64().unwrap().abs())
        .collect();
    assert!(deltas.windows(2).all(|w| w[0] >= w[1]));
    // A symbol from nothing has no Δ%.
    let new = b["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["symbol"] == "skb_release_data")
        .unwrap();
    assert!(new["delta_pct"].is_null());
}

#[test]
fn steps_match_the_independent_vectors() {
    let want: Value = serde_json::from_str(
        &fs::read_to_string(format!("{ROOT}/tests/vectors/history-v1.json")).unwrap(),
    )
    .unwrap();
    let got = json(&[&format!("{ROOT}/testdata/history/vectors")]);
    let close = |a: &Value, b: &Value, rel: f64| match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= rel * x.abs().max(y.abs()).max(1e-12),
        _ => a == b,
    };
    let mut n = 0;
    for (name, w) in want.as_object().unwrap() {
        let g = bench(&got, name);
        assert_eq!(g["kernels"], w["kernels"]);
        for key in ["tested", "drifts", "interval_level", "moved"] {
            assert!(
                close(&g["noise"][key], &w["noise"][key], 1e-9),
                "{name} {key}"
            );
        }
        assert_eq!(g["noise"]["step_kernels"], w["noise"]["step_kernels"]);
        let (gs, ws) = (
            g["steps"].as_array().unwrap(),
            w["steps"].as_array().unwrap(),
        );
        assert_eq!(gs.len(), ws.len(), "{name}");
        for (a, b) in gs.iter().zip(ws) {
            for key in ["symbol", "before", "at", "significant", "placed", "round"] {
                assert_eq!(a[key], b[key], "{name}");
            }
            for key in [
                "level_before",
                "level_after",
                "delta",
                "delta_pct",
                "p",
                "q",
            ] {
                assert!(
                    close(&a[key], &b[key], 1e-6),
                    "{name} {key}: {} vs {}",
                    a[key],
                    b[key]
                );
            }
            for j in 0..2 {
                assert!(
                    close(&a["delta_ci"][j], &b["delta_ci"][j], 1e-5),
                    "{name} ci"
                );
            }
            n += 1;
        }
    }
    assert!(n >= 4, "the vectors hold steps");
    // The benchmark `together` exercises §14.5: a step placed at the
    // benchmark's step kernel and one found by the benchmark round.
    let t = bench(&got, "together");
    let placed: Vec<&str> = t["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["placed"].as_str())
        .collect();
    assert!(
        placed.contains(&"moved") && placed.contains(&"benchmark"),
        "{placed:?}"
    );
    assert_eq!(t["noise"]["step_kernels"], serde_json::json!(["v1.6"]));
}

#[test]
fn a_counts_table_gives_the_same_bytes_as_the_tree() {
    let d = scratch("table");
    let table = d.join("t.parquet");
    ok(&["export", &tree(), "-o", table.to_str().unwrap()]);
    for fmt in ["json", "csv"] {
        let a = ok(&[&tree(), "-o", fmt, "--first-bad"]).stdout;
        let b = ok(&[table.to_str().unwrap(), "-o", fmt, "--first-bad"]).stdout;
        assert!(a == b, "{fmt}: the table differs from the tree");
    }
    // --table with --where, as the batch inputs take it.
    let w = json(&[
        "--table",
        table.to_str().unwrap(),
        "--where",
        "benchmark=perf",
    ]);
    assert_eq!(w["benchmarks"].as_array().unwrap().len(), 1);
    let t = json(&[&tree(), "--where", "benchmark=perf"]);
    assert_eq!(w, t);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn an_archive_gives_the_same_bytes_as_the_directory_whatever_the_jobs() {
    let d = scratch("tar");
    let tar = d.join("t.tar.gz");
    let st = Command::new("tar")
        .args(["-czf", tar.to_str().unwrap(), "-C", &tree(), "."])
        .status()
        .unwrap();
    assert!(st.success());
    let base = ok(&[&tree(), "-o", "json", "-j", "1"]).stdout;
    for (root, jobs) in [
        (tree(), "3"),
        (tar.to_str().unwrap().to_string(), "1"),
        (tar.to_str().unwrap().to_string(), "4"),
    ] {
        let o = ok(&[&root, "-o", "json", "-j", jobs]).stdout;
        assert!(o == base, "{root} -j {jobs} differs");
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn first_bad_says_what_was_not_measured() {
    let text = String::from_utf8(ok(&[&tree(), "--first-bad", "--top", "8"]).stdout).unwrap();
    // messaging: v6.8-rc3 → v6.8, and the version order knows of later -rcs.
    assert!(
        text.contains("first bad v6.8, last good v6.8-rc3: not measured between v6.8-rc3 and v6.8"),
        "{text}"
    );
    // perf: v6.8-rc3 is in the archive but not measured for this benchmark.
    assert!(
        text.contains("first bad v6.8, last good v6.8-rc1: v6.8-rc3 not measured for this"),
        "{text}"
    );
    let doc = json(&[&tree(), "--first-bad"]);
    let notes: Vec<&str> = bench(&doc, "perf")["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["bisect"].as_str())
        .collect();
    assert!(notes.contains(
        &"first bad v6.8, last good v6.8-rc1: v6.8-rc3 not measured for this benchmark: bisect there"
    ));
    assert!(notes.contains(
        &"first bad v6.10, last good v6.9: not measured between v6.9 and v6.10 (v6.10-rc1 …): bisect there"
    ));
    let st = &bench(&doc, "perf")["steps"][0];
    assert_eq!(st["first_bad"], st["at"]);
    assert_eq!(st["last_good"], st["before"]);
}

#[test]
fn an_order_file_orders_and_leaves_out_what_it_does_not_name() {
    let d = scratch("order");
    let f = d.join("order.txt");
    fs::write(
        &f,
        "# newest first\nv6.10\nv6.9\nv6.8\nv6.8-rc3\nv6.8-rc1\n",
    )
    .unwrap();
    let o = ok(&[&tree(), "--order", f.to_str().unwrap(), "-o", "json"]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["order"], "file");
    assert_eq!(
        doc["kernels"],
        serde_json::json!(["v6.10", "v6.9", "v6.8", "v6.8-rc3", "v6.8-rc1"])
    );
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("1 kernel(s) have no place in the order and are left out: v6.7"));
    // Reversed, the messaging step is from v6.8 to v6.8-rc3.
    assert!(steps(bench(&doc, "messaging")).contains(&(
        "skb_release_data".into(),
        "v6.8".into(),
        "v6.8-rc3".into()
    )));
    fs::write(&f, "v6.7\nv6.8\nv6.7\n").unwrap();
    let o = run(&[&tree(), "--order", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("order.txt:3: kernel \"v6.7\" is listed twice (first on line 1)"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn order_by_a_table_column() {
    let d = scratch("order-by");
    let table = d.join("t.parquet");
    ok(&["export", &tree(), "-o", table.to_str().unwrap()]);
    // `kernel` as text, in natural order: v6.8 before v6.8-rc1.
    let doc = json(&[
        table.to_str().unwrap(),
        "--order-by",
        "kernel",
        "--where",
        "benchmark=steady",
    ]);
    assert_eq!(doc["order"], "column");
    assert_eq!(
        doc["kernels"],
        serde_json::json!(["v6.7", "v6.8", "v6.8-rc1", "v6.9"])
    );
    // A column with several values for a kernel cannot order it.
    let o = run(&[table.to_str().unwrap(), "--order-by", "source"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected one value per kernel"));
    let o = run(&[table.to_str().unwrap(), "--order-by", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("has no column \"nope\""));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn symbol_shows_the_full_series() {
    let doc = json(&[
        &tree(),
        "--symbol",
        "^skb_release_data$",
        "--where",
        "benchmark=perf",
    ]);
    let s = &bench(&doc, "perf")["series"][0];
    assert_eq!(s["symbol"], "skb_release_data");
    let ks = s["kernels"].as_array().unwrap();
    assert_eq!(ks.len(), 5);
    assert_eq!(ks[0]["runs"], 2);
    assert_eq!(ks[0]["mean"], 0.0);
    assert!(ks[2]["mean"].as_f64().unwrap() > 4.0);
    let ci = ks[2]["ci"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < ks[2]["mean"].as_f64().unwrap());
    let text = String::from_utf8(
        ok(&[
            &tree(),
            "--symbol",
            "^skb_release_data$",
            "--where",
            "benchmark=perf",
        ])
        .stdout,
    )
    .unwrap();
    assert!(text.contains("series of skb_release_data:"), "{text}");
}

#[test]
fn text_fits_80_columns_with_a_sparkline_per_step() {
    let text =
        String::from_utf8(ok(&[&tree(), "--first-bad", "--symbol", "^fput$"]).stdout).unwrap();
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    let sparks = text
        .lines()
        .filter(|l| {
            l.trim_start()
                .starts_with(['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'])
        })
        .count();
    let steps = text
        .lines()
        .filter(|l| l.starts_with("  * ") || l.starts_with("  ~ "))
        .count();
    assert!(
        steps > 10 && sparks == steps,
        "{steps} steps, {sparks} sparklines"
    );
}

#[test]
fn text_fits_80_columns_wherever_the_tree_lives() {
    // A clone in a deeper directory gives a longer root: its header wraps.
    let d = scratch("a-deeper-clone-of-the-repo");
    let root = d.join("tree");
    std::os::unix::fs::symlink(tree(), &root).unwrap();
    let root = root.to_str().unwrap();
    assert!(root.len() > 50, "{root}");
    let text = String::from_utf8(ok(&[root, "--symbol", "^fput$"]).stdout).unwrap();
    for line in text.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    assert!(text.contains(root), "the root is still named:\n{text}");
}

#[test]
fn csv_and_markdown_hold_every_step() {
    let doc = json(&[&tree()]);
    let n: usize = doc["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["steps"].as_array().unwrap().len())
        .sum();
    let csv = String::from_utf8(ok(&[&tree(), "-o", "csv"]).stdout).unwrap();
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    assert_eq!(r.headers().unwrap().get(4), Some("before"));
    assert_eq!(r.records().count(), n);
    let md = String::from_utf8(ok(&[&tree(), "-o", "markdown"]).stdout).unwrap();
    let rows = md
        .lines()
        .filter(|l| l.starts_with("| * ") || l.starts_with("| ~ "))
        .count();
    assert_eq!(rows, n);
    assert!(md.contains("## messaging") && md.contains("No step found."));
}

#[test]
fn an_unreadable_member_is_named_and_exits_2() {
    let d = scratch("bad");
    for k in ["v6.1", "v6.2", "v6.3"] {
        let dir = d.join(k).join("b");
        fs::create_dir_all(&dir).unwrap();
        fs::copy(
            format!("{ROOT}/testdata/readprofile/default/pipes/run1.txt"),
            dir.join("run1.txt"),
        )
        .unwrap();
    }
    let mut bad = fs::read_to_string(format!(
        "{ROOT}/testdata/readprofile/default/pipes/run2.txt"
    ))
    .unwrap();
    bad.push_str("    12 foo bar baz qux zz\n");
    fs::write(d.join("v6.2/b/run2.txt"), bad).unwrap();
    let o = run(&[d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("v6.2/b/run2.txt:141: expected a readprofile line"),
        "{err}"
    );
    assert!(
        err.contains("error: ") && err.contains("incomplete: 1 member(s) could not be read"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn html_is_one_self_contained_page_with_a_chart_per_step() {
    let page = String::from_utf8(ok(&[&tree(), "-o", "html", "--top", "5"]).stdout).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script") && !page.contains("http://") && !page.contains("https://"));
    assert_eq!(
        page.matches("<svg class=\"chart\"").count(),
        10,
        "5 per benchmark with steps"
    );
    assert!(page.contains("benchmark steady</h2>") && page.contains("No step found."));
}

/// Every chart's painted circles and segment lines sit where the numbers
/// put them, measured by headless Chromium's layout (a script the test adds
/// to a copy of the page; the page itself has none).
#[test]
fn history_charts_draw_their_numbers_in_headless_chromium() {
    let Some(bin) = which("chromium") else {
        crate::skip::skip(
            "history_charts_draw_their_numbers_in_headless_chromium",
            "needs chromium: `chromium` is not on PATH (apt-get install chromium)",
            Some("bash .ci/run installs chromium"),
        );
        return;
    };
    let d = scratch("chromium");
    let page = String::from_utf8(ok(&[&tree(), "-o", "html", "--top", "8"]).stdout).unwrap();
    let check = r#"<script>
const out = [];
for (const svg of document.querySelectorAll('svg.chart')) {
  const box = svg.getBoundingClientRect();
  const H = box.height, PAD = 24, ymax = +svg.dataset.ymax;
  const y = v => H - PAD - (H - 2 * PAD) * v / ymax;
  let bad = 0;
  for (const c of svg.querySelectorAll('circle.run')) {
    const r = c.getBoundingClientRect();
    if (Math.abs(r.top + r.height / 2 - box.top - y(+c.dataset.value)) > 0.6) bad++;
  }
  for (const l of svg.querySelectorAll('line.seg')) {
    const r = l.getBoundingClientRect();
    const want = y(+svg.dataset[l.dataset.side]);
    if (Math.abs(r.top + r.height / 2 - box.top - want) > 0.6) bad++;
  }
  const mark = svg.querySelector('line.mark').getBoundingClientRect();
  const at = +svg.dataset.at, n = +svg.closest('section').dataset.kernels;
  const x = i => PAD + (box.width - 2 * PAD) * i / (n - 1);
  if (Math.abs(mark.left + mark.width / 2 - box.left - (x(at - 1) + x(at)) / 2) > 0.6) bad++;
  out.push(bad);
}
document.body.setAttribute('data-check', out.length + ':' + out.reduce((a, b) => a + b, 0));
</script>"#;
    let with = page.replace("</body>", &format!("{check}</body>"));
    let file = d.join("history.html");
    fs::write(&file, with).unwrap();
    let o = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--force-device-scale-factor=1",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", d.join("profile").display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(
        dom.contains("data-check=\"16:0\""),
        "charts:misplaced marks: {}",
        &dom[..dom.len().min(400)]
    );
    // Control: a page whose points are moved is caught.
    let moved = page
        .replace("</body>", &format!("{check}</body>"))
        .replacen(
            "<circle class=\"run\" data-kernel=\"0\" data-value=\"",
            "<circle class=\"run\" data-kernel=\"0\" data-value=\"1",
            1,
        );
    fs::write(&file, moved).unwrap();
    let o = Command::new(which("chromium").unwrap())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--user-data-dir={}", d.join("profile2").display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(
        dom.contains("data-check=\"16:") && !dom.contains("data-check=\"16:0\""),
        "control not caught"
    );
    let _ = fs::remove_dir_all(&d);
}

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A scratch tree of real perf script runs: `kernel/bench/run1.txt.gz`
/// copied from testdata.
fn script_tree(name: &str, layout: &[(&str, &str, &str)]) -> crate::scratch::Scratch {
    let d = scratch(name);
    for (kernel, bench, file) in layout {
        let dir = d.join(kernel).join(bench);
        fs::create_dir_all(&dir).unwrap();
        fs::copy(format!("{ROOT}/testdata/{file}"), dir.join("run1.txt.gz")).unwrap();
    }
    d
}

#[test]
fn the_kernel_dso_is_not_bracketed_twice() {
    let d = script_tree(
        "kallsyms",
        &[
            ("v1.1", "msg", "perf-script/pipes.txt.gz"),
            ("v1.2", "msg", "perf-script/pipes-g.txt.gz"),
            ("v1.3", "msg", "perf-script/sockets.txt.gz"),
            ("v1.4", "msg", "perf-script/sockets-g.txt.gz"),
        ],
    );
    let o = ok(&[d.to_str().unwrap(), "--symbol", "^(do_syscall_64|read)$"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("series of do_syscall_64:"), "{text}");
    assert!(text.contains("series of read [libc.so.6]:"), "{text}");
    assert!(!text.contains("[["), "{text}");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn comm_leaves_out_kernels_and_benchmarks_that_do_not_run_it() {
    // `msg` runs sched-messaging at v1.1-v1.3, the JIT test program at
    // v1.4; `jit` never runs sched-messaging.
    let d = script_tree(
        "comm",
        &[
            ("v1.1", "msg", "perf-script/pipes.txt.gz"),
            ("v1.2", "msg", "perf-script/pipes-g.txt.gz"),
            ("v1.3", "msg", "perf-script/sockets.txt.gz"),
            ("v1.4", "msg", "perf-script/jit/run1.txt.gz"),
            ("v1.1", "jit", "perf-script/jit/run1.txt.gz"),
            ("v1.2", "jit", "perf-script/jit/run2.txt.gz"),
        ],
    );
    let root = d.to_str().unwrap();
    let o = ok(&[root, "--comm", "sched-messaging"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("msg: kernel(s) v1.4 left out of the series: no sample of their runs passes the sample filters"),
        "{err}"
    );
    assert!(
        err.contains("1 of 2 benchmark(s) skipped (why in their sections): jit"),
        "{err}"
    );
    let doc = json(&[root, "--comm", "sched-messaging"]);
    let msg = bench(&doc, "msg");
    assert_eq!(msg["kernels"], serde_json::json!(["v1.1", "v1.2", "v1.3"]));
    assert!(bench(&doc, "jit")["skipped"]
        .as_str()
        .unwrap()
        .contains("--comm"));
    let _ = fs::remove_dir_all(&d);
}

/// The README's "Where did it change?" example is what the binary prints.
#[test]
fn the_readme_example_is_real_output() {
    let readme = fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    let start = "<!-- history-example-start -->\n```\n$ diffprofile history ";
    let at = readme.find(start).expect("start marker") + start.len();
    let body = &readme[at..];
    let (args, rest) = body.split_once('\n').unwrap();
    let shown = &rest[..rest
        .find("```\n<!-- history-example-end -->")
        .expect("end marker")];
    let args: Vec<&str> = args.split(' ').collect();
    assert_eq!(args[0], "testdata/history/tree");
    let t = tree();
    let full: Vec<&str> = std::iter::once(t.as_str())
        .chain(args[1..].iter().copied())
        .collect();
    let o = ok(&full);
    let got = String::from_utf8(o.stdout)
        .unwrap()
        .replace(&t, "testdata/history/tree");
    assert_eq!(got, shown, "README history example is stale");
}
