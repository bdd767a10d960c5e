//! Issue 24's leftovers, the options and output side: `--percentage
//! relative` under `--inclusive`, history's `--order` and kernel names,
//! `--run-info` rows of no run, stale partial files, sides too small to
//! test, `--top` and Markdown names, through the real binary on the
//! committed recordings and hand-made files.

use crate::cli::{json_of, s, stdout_of};
use crate::scratch::Scratch;
use std::fs;
use std::path::Path;

const PS: &str = "testdata/perf-script";

/// Two folded runs a side: `main;a;x` and `main;b` stacks.
fn folded_sides(d: &Path) -> (String, String) {
    for (side, runs) in [("old", [(60, 40), (62, 38)]), ("new", [(30, 70), (32, 68)])] {
        let dir = d.join(side);
        fs::create_dir_all(&dir).unwrap();
        for (i, (x, b)) in runs.iter().enumerate() {
            let text = format!("main;a;x {x}\nmain;b {b}\n");
            fs::write(dir.join(format!("run{}.folded", i + 1)), text).unwrap();
        }
    }
    (s(&d.join("old")).to_string(), s(&d.join("new")).to_string())
}

/// The JSON row of `symbol`.
fn row<'a>(v: &'a serde_json::Value, symbol: &str) -> &'a serde_json::Value {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == symbol)
        .unwrap_or_else(|| panic!("no row {symbol}: {v}"))
}

/// `--percentage relative --inclusive` divides by the samples kept, each
/// counted once (before: by the sum of the inclusive counts, which counts
/// a sample once per frame: `main`, in every stack, was 38.5% and the
/// total row 38.5%); JSON, text and CSV agree, and the total row is 100%.
/// With a symbol filter the base is the self rows' (the samples whose own
/// symbol is kept), so the self and inclusive runs share their total row.
#[test]
fn inclusive_relative_shares_are_of_the_kept_samples() {
    let d = Scratch::new("diffprofile-sweep4b", "inclusive");
    let (old, new) = folded_sides(&d);
    let args = [
        old.as_str(),
        new.as_str(),
        "--inclusive",
        "--percentage",
        "relative",
    ];
    let v = json_of(&args);
    assert_eq!(row(&v, "main")["old"], 100.0, "{v}");
    assert_eq!(row(&v, "main")["new"], 100.0, "{v}");
    assert_eq!(row(&v, "a")["old"], 61.0, "{v}");
    assert_eq!(v["total"]["old"], 100.0);
    assert_eq!(v["total"]["new"], 100.0);
    let text = String::from_utf8(stdout_of(&args)).unwrap();
    for name in ["main", "total"] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(line.contains("100.000  100.000"), "{text}");
    }
    let mut csv_args = args.to_vec();
    csv_args.extend(["-o", "csv"]);
    let csv = String::from_utf8(stdout_of(&csv_args)).unwrap();
    let main = csv.lines().find(|l| l.starts_with("new,main,")).unwrap();
    assert!(main.starts_with("new,main,,,same,100,100,0,"), "{csv}");
    // --exclude x: the base is the samples whose own symbol is kept (b's).
    let mut filtered = args.to_vec();
    filtered.extend(["--exclude", "^x$"]);
    let inc = json_of(&filtered);
    let own = json_of(&[&old, &new, "--percentage", "relative", "--exclude", "^x$"]);
    assert_eq!(inc["total"], own["total"]);
    assert_eq!(row(&inc, "b")["old"], row(&own, "b")["old"]);
    assert_eq!(row(&inc, "b")["old"], 100.0);
    assert!(inc["notes"].as_array().unwrap().iter().any(|n| n
        .as_str()
        .unwrap()
        .contains("a caller's share may pass 100%")));
}

/// The same on recordings (perf script -g, `--comm`): the total row is
/// 100% under --inclusive as without it, and the unresolved samples'
/// warning counts the samples whose own frame is unresolved, each once
/// (before: 96.8% of the kept, counting every `[unknown]` caller; 3.1%
/// without --inclusive).
#[test]
fn inclusive_relative_on_recordings() {
    let (a, b) = (
        format!("{PS}/sockets-g.txt.gz"),
        format!("{PS}/pipes-g.txt.gz"),
    );
    let base = [
        a.as_str(),
        b.as_str(),
        "--percentage",
        "relative",
        "--comm",
        "sched-messaging",
    ];
    let own = json_of(&base);
    let mut args = base.to_vec();
    args.push("--inclusive");
    let inc = json_of(&args);
    for side in ["old", "new"] {
        // (the self total row is a sum of rows: 100 to rounding)
        for v in [&inc, &own] {
            let t = v["total"][side].as_f64().unwrap();
            assert!((t - 100.0).abs() < 1e-9, "{v}");
        }
    }
    let unresolved = |v: &serde_json::Value| -> String {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .find(|w| w.contains("not resolved to a symbol"))
            .unwrap_or_else(|| panic!("{v}"))
    };
    let (u_own, u_inc) = (unresolved(&own), unresolved(&inc));
    let pct = |w: &str| w[..w.find("% of the kept").unwrap()].to_string();
    assert_eq!(pct(&u_inc), pct(&u_own), "{u_inc}\n{u_own}");
}

