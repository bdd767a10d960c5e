//! Text variants through the binary (testdata/perf-script/jit/, recorded by
//! scripts/record-text-variants.sh): a JIT's perf-PID.map and a deleted
//! memfd are one row each across runs with different pids, and across
//! perf.data and perf script text of them.

use super::cli::json_of;

const JIT: &str = "testdata/perf-script/jit";

/// (symbol, dso, status) of every row.
fn rows(args: &[&str]) -> Vec<(String, String, String)> {
    let v = json_of(args);
    let mut out: Vec<(String, String, String)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("").to_string();
            (s("symbol"), s("dso"), s("status"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_jit_map_and_a_deleted_memfd_are_one_row_across_runs() {
    let maps = format!("{JIT}/maps");
    let (d1, d2) = (format!("{JIT}/run1.data"), format!("{JIT}/run2.data"));
    let (t1, t2) = (format!("{JIT}/run1.txt.gz"), format!("{JIT}/run2.txt.gz"));
    let (r1, r2) = (format!("{JIT}/report1.txt"), format!("{JIT}/report2.txt"));
    for (old, new) in [(&d1, &d2), (&t1, &t2), (&d1, &t2), (&t1, &d2), (&r1, &r2)] {
        let rows = rows(&["--jit-map-dir", &maps, old, new]);
        let jit: Vec<_> = rows.iter().filter(|r| r.0 == "jit_busy_loop").collect();
        assert_eq!(jit.len(), 1, "{old} {new}: {rows:?}");
        assert_eq!(jit[0].1, "/tmp/perf-PID.map", "{old} {new}");
        assert_eq!(jit[0].2, "changed", "{old} {new}");
        let memfd: Vec<_> = rows.iter().filter(|r| r.1.contains("memfd")).collect();
        assert_eq!(memfd.len(), 1, "{old} {new}: {rows:?}");
        assert!(
            memfd[0].1.ends_with("memfd:doublemapper (deleted)"),
            "{memfd:?}"
        );
        assert_eq!(memfd[0].2, "changed", "{old} {new}");
    }
}
