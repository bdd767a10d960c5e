//! Tests that need a tool the machine may lack (Chromium, DuckDB, Spark,
//! Debian's libc6-dbg) skip when it is missing, visibly: libtest shows a
//! test's `eprintln!` output only when it fails, so a skip is written to
//! the process's stderr directly, one `SKIPPED test: why` line between the
//! `test … ok` lines. Under `CI=true` a missing tool fails the test instead
//! (`bash .ci/run` installs them).

use std::io::Write;

/// Say that `test` did not run and why; under `CI=true` a missing tool
/// fails instead, with `ci`, what CI should have done (`None`: the skip is
/// not about a tool, and CI skips too).
pub fn skip(test: &str, why: &str, ci: Option<&str>) {
    if let Some(ci) = ci {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{test}: {why} and CI=true: {ci}"
        );
    }
    // `std::io::stderr()` is not captured by the test harness (only the
    // print macros are), so the line is seen whatever the test's outcome.
    let _ = writeln!(std::io::stderr().lock(), "\nSKIPPED {test}: {why}");
}

/// Every skip goes through [`skip`]: a `SKIPPED` line printed with
/// `println!` or `eprintln!` is captured by libtest and never seen when the
/// test passes, so a user would read `ok` for a test that did not run.
#[test]
fn every_skip_is_visible() {
    let printed = regex::Regex::new(r#"\b(e?print(ln)?!)\s*\(\s*"SKIPPED"#).unwrap();
    let mut found = Vec::new();
    for e in std::fs::read_dir("tests").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for m in printed.find_iter(&text) {
            let line = text[..m.start()].lines().count().max(1);
            found.push(format!("{}:{line}: {}", p.display(), m.as_str()));
        }
    }
    assert!(
        found.is_empty(),
        "skips printed where libtest hides them (use crate::skip::skip):\n{}",
        found.join("\n")
    );
}
