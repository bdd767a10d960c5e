//! `--comm` on perf report tables made by perf from testdata/comm's runs
//! (testdata/perf-report/comm/): shares with `--percentage relative` are of
//! the kept command's samples, never of other commands' rows or of rows
//! `--percent-limit` left out; the whole table keeps what the perf.data
//! keeps.

use super::perfdata::{run, stderr};

const DIR: &str = "testdata/perf-report/comm";

fn json(variant: &str, extra: &[&str]) -> serde_json::Value {
    let (a, b) = (
        format!("{DIR}/run1.{variant}"),
        format!("{DIR}/run2.{variant}"),
    );
    let mut args = vec![a.as_str(), b.as_str(), "-o", "json"];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn kept(j: &serde_json::Value) -> Vec<f64> {
    (0..2)
        .map(|s| j["sides"][s]["runs"][0]["kept"].as_f64().unwrap())
        .collect()
}

/// The old and new share of `symbol`.
fn shares(j: &serde_json::Value, symbol: &str) -> (f64, f64) {
    let row = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["symbol"] == symbol)
        .unwrap_or_else(|| panic!("no row {symbol}"));
    (row["old"].as_f64().unwrap(), row["new"].as_f64().unwrap())
}

/// `--percent-limit 1 --sort comm,dso,sym`: spin's 111 and 121 listed
/// samples are the relative base (do_syscall_64: 47/111 and 61/121), not
/// all the run's samples through an `*unlisted*` row.
#[test]
fn relative_shares_of_a_percent_limited_table() {
    for variant in ["comm-dso-sym-limit1.txt", "comms-spin-limit1.txt"] {
        let j = json(variant, &["--comm", "spin", "--percentage", "relative"]);
        assert_eq!(kept(&j), [111.0, 121.0], "{variant}");
        let rows = j["rows"].as_array().unwrap();
        assert!(
            rows.iter().all(|r| r["symbol"] != "*unlisted*"),
            "{variant}"
        );
        let (old, new) = shares(&j, "do_syscall_64");
        assert!((old - 4700.0 / 111.0).abs() < 1e-9, "{variant}: {old}");
        assert!((new - 6100.0 / 121.0).abs() < 1e-9, "{variant}: {new}");
        let warnings = j["warnings"].to_string();
        assert!(
            warnings.contains("none of them is counted as"),
            "{warnings}"
        );
    }
    // Absolute shares stay of all samples: 47 of about 1541.
    let j = json("comm-dso-sym-limit1.txt", &["--comm", "spin"]);
    let (old, _) = shares(&j, "do_syscall_64");
    assert!((old - 4700.0 / 1541.0).abs() < 1e-9, "{old}");
}

/// The whole table keeps the samples perf.data's own reading keeps
/// (tests/filters.rs: 166 and 176), and `--sort pid,sym` reads the
/// command of `Pid:Command`.
#[test]
fn whole_table_and_pid_sort() {
    let j = json("comm-dso-sym.txt.gz", &["--comm", "spin"]);
    assert_eq!(kept(&j), [166.0, 176.0]);
    let j = json(
        "pid-sym-limit1.txt",
        &["--comm", "spin", "--percentage", "relative"],
    );
    let (old, _) = shares(&j, "do_syscall_64");
    // 1046:spin 27 + 1054:spin 20 of the 64 spin samples listed.
    assert!((old - 4700.0 / 64.0).abs() < 1e-9, "{old}");
}
