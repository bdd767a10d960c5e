//! Symbol identity across kernels (issue 6), on real readprofile dumps whose
//! "new" copies carry other clone suffixes and one renamed function
//! (testdata/identity/, derived by sed as testdata/README.md says), and the
//! sample/row filters against perf report's own filtered output.

use super::cli::diffprofile;
use serde_json::Value;

const OLD: &str = "testdata/readprofile/default/threads";
const NEW: &str = "testdata/identity/threads-renamed";

fn json(args: &[&str]) -> Value {
    super::cli::json_of(args)
}

fn rows(v: &Value) -> &Vec<Value> {
    v["rows"].as_array().unwrap()
}

fn row<'a>(v: &'a Value, sym: &str) -> Option<&'a Value> {
    rows(v).iter().find(|r| r["symbol"] == sym)
}

#[test]
fn clones_are_folded_and_the_rename_is_flagged() {
    let v = json(&[OLD, NEW, "-n", "ticks"]);
    // Same runs on both sides: only the renamed function differs.
    for r in rows(&v) {
        let sym = r["symbol"].as_str().unwrap();
        if sym == "vfs_read" || sym == "do_vfs_read" {
            continue;
        }
        assert_eq!(r["delta"].as_f64(), Some(0.0), "{sym}");
    }
    let f = row(&v, "finish_task_switch").expect("folded row");
    assert_eq!(
        f["members"],
        serde_json::json!([
            "finish_task_switch.constprop.0.isra.0",
            "finish_task_switch.isra.0"
        ])
    );
    assert_eq!(
        row(&v, "mutex_unlock").unwrap()["members"],
        serde_json::json!(["mutex_unlock", "mutex_unlock.llvm.15251198824366928061"])
    );
    assert!(row(&v, "__mutex_lock").is_some());
    assert_eq!(row(&v, "vfs_read").unwrap()["status"], "gone");
    assert_eq!(row(&v, "do_vfs_read").unwrap()["status"], "new");
    assert_eq!(
        v["possible_renames"],
        serde_json::json!([{"old_symbol": "vfs_read", "new_symbol": "do_vfs_read", "old_delta": -53.25, "new_delta": 53.25}])
    );
}

#[test]
fn the_alias_map_merges_the_rename() {
    let v = json(&[
        OLD,
        NEW,
        "-n",
        "ticks",
        "--alias",
        "testdata/identity/renames.alias",
    ]);
    for r in rows(&v) {
        assert_eq!(r["delta"].as_f64(), Some(0.0), "{}", r["symbol"]);
        assert_ne!(r["status"], "gone");
        assert_ne!(r["status"], "new");
    }
    let merged = row(&v, "do_vfs_read").expect("merged row");
    assert_eq!(
        merged["members"],
        serde_json::json!(["do_vfs_read", "vfs_read"])
    );
    assert_eq!(merged["old_counts"], serde_json::json!([51, 55, 52, 55]));
    assert_eq!(v["possible_renames"], serde_json::json!([]));
}

#[test]
fn keep_suffixes_shows_the_clones_apart() {
    let v = json(&[OLD, NEW, "-n", "ticks", "--keep-suffixes"]);
    assert_eq!(
        row(&v, "finish_task_switch.isra.0").unwrap()["status"],
        "gone"
    );
    assert_eq!(
        row(&v, "finish_task_switch.constprop.0.isra.0").unwrap()["status"],
        "new"
    );
    assert!(row(&v, "finish_task_switch").is_none());
}

#[test]
fn folding_grouping_and_aliasing_never_change_the_total() {
    let base = json(&[OLD, NEW, "-n", "ticks", "--keep-suffixes"])["total"].clone();
    for extra in [
        &[][..],
        &["--alias", "testdata/identity/renames.alias"][..],
        &["--group-by", "prefix:mutex"][..],
        &["--group-by", "regex:^(__)?(mutex|_raw_spin)"][..],
        &["--group-by", "module"][..],
    ] {
        let mut args = vec![OLD, NEW, "-n", "ticks"];
        args.extend_from_slice(extra);
        assert_eq!(json(&args)["total"], base, "{extra:?}");
    }
}

#[test]
fn grouping_sums_members_and_tests_the_sum() {
    let v = json(&[
        "testdata/readprofile/default/pipes",
        OLD,
        "--group-by",
        "prefix:mutex",
    ]);
    let g = row(&v, "mutex*").expect("group row");
    let members: Vec<&str> = g["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(
        members.contains(&"mutex_lock") && members.contains(&"mutex_unlock"),
        "{members:?}"
    );
    assert!(g["p"].is_number(), "the group is tested");
    assert!(row(&v, "mutex_lock").is_none());
}

/// perf's own `--dsos '[kernel.kallsyms]'` report of the same recording,
/// with `--percentage relative` and the default absolute: the shares of
/// diffprofile's `--dso` filter must equal perf's to its two decimals.
#[test]
fn dso_filter_and_percentage_match_perf() {
    for (pct, oracle) in [
        (
            "relative",
            "testdata/identity/sockets-run1-kernel-relative.txt",
        ),
        (
            "absolute",
            "testdata/identity/sockets-run1-kernel-absolute.txt",
        ),
    ] {
        let input = "testdata/perf-report/dso-sym-n/sockets/run1.txt";
        let v = json(&[
            input,
            input,
            "--dso",
            r"^\[kernel\.kallsyms\]$",
            "--percentage",
            pct,
            "--keep-suffixes",
        ]);
        let text = std::fs::read_to_string(oracle).unwrap();
        let mut checked = 0;
        for line in text.lines().filter(|l| l.contains("[k] ")) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let name = f[3..].join(" ");
            let ours: f64 = rows(&v)
                .iter()
                .filter(|r| r["symbol"] == name.as_str())
                .map(|r| r["old"].as_f64().unwrap())
                .sum();
            // perf splits same-named functions into rows by address; compare sums.
            let perf_sum: f64 = text
                .lines()
                .filter(|l| {
                    l.ends_with(&format!("[k] {name}"))
                        || l.trim_end().ends_with(&format!("[k] {name}"))
                })
                .map(|l| {
                    l.split_whitespace()
                        .next()
                        .unwrap()
                        .trim_end_matches('%')
                        .parse::<f64>()
                        .unwrap()
                })
                .sum();
            assert!(
                (ours - perf_sum).abs()
                    <= 0.005 * (1 + text.matches(&format!("[k] {name}")).count()) as f64 + 1e-9,
                "{pct}: {name}: ours {ours} perf {perf_sum}"
            );
            checked += 1;
        }
        assert!(checked > 100, "{pct}: only {checked} rows");
        assert!(
            rows(&v).iter().all(|r| r["mode"] == "kernel"),
            "{pct}: only kernel rows"
        );
    }
}

#[test]
fn exclude_idle_include_and_exclude() {
    let v = json(&[OLD, NEW, "--include", "^mutex", "-n", "ticks"]);
    assert!(rows(&v)
        .iter()
        .all(|r| r["symbol"].as_str().unwrap().starts_with("mutex")));
    let v = json(&[OLD, NEW, "--exclude", "^mutex", "-n", "ticks"]);
    assert!(rows(&v)
        .iter()
        .all(|r| !r["symbol"].as_str().unwrap().starts_with("mutex")));
    // Nothing left on either side (idle names only, then their removal):
    // refused, as a --comm that matches nothing is.
    crate::cli::refused(
        &crate::cli::run(&[OLD, NEW, "--exclude-idle", "--include", "idle|halt"]),
        "nothing is left to compare",
    );
}

#[test]
fn a_malformed_alias_map_names_its_line() {
    let dir = crate::scratch::Scratch::new("dp-alias", "t");
    std::fs::create_dir_all(&dir).unwrap();
    let map = dir.join("bad.alias");
    std::fs::write(
        &map,
        "# ok\nvfs_read = do_vfs_read\nthis line has no equals sign\n",
    )
    .unwrap();
    let out = diffprofile()
        .args([OLD, NEW, "--alias", map.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.alias:3: expected `old_name = new_name`"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
