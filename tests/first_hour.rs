//! What a new user met in the first hour with two kernels (beyond the
//! process filters of tests/report_comm.rs and the batch cases of
//! tests/batch.rs): labels, warnings and help that must say what is so.

use super::perfdata::{run, stderr};
use std::fs;
use std::path::Path;

/// A scratch tree of `(member, testdata file)` copies.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (rel, from) in files {
        let to = d.path().join(rel);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(Path::new(from), &to).unwrap();
    }
    d
}

/// `history` labels a symbol as a comparison does: `read [libc.so.6]`, and
/// no `[[kernel.kallsyms]]` (double brackets) for the core kernel.
#[test]
fn history_shows_dsos_as_comparisons_do() {
    let p = "testdata/perf-report/dso-sym-n";
    let d = tree(&[
        ("v6.8/b/run1.txt", &format!("{p}/pipes/run1.txt")),
        ("v6.8/b/run2.txt", &format!("{p}/pipes/run2.txt")),
        ("v6.9/b/run1.txt", &format!("{p}/pipes/run3.txt")),
        ("v6.9/b/run2.txt", &format!("{p}/pipes/run4.txt")),
        ("v6.10/b/run1.txt", &format!("{p}/sockets/run1.txt")),
        ("v6.10/b/run2.txt", &format!("{p}/sockets/run2.txt")),
    ]);
    let root = d.path().to_str().unwrap();
    for fmt in ["text", "markdown"] {
        let o = run(&["history", root, "-o", fmt]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(!out.contains("[["), "{fmt}: {out}");
        assert!(!out.contains("kernel.kallsyms"), "{fmt}: {out}");
        assert!(out.contains("read [libc.so.6]"), "{fmt}: {out}");
    }
}
