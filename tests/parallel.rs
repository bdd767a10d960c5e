//! Parallelism inside and across files together: several perf script files
//! of several blocks each per side, so that files are parsed in parallel and
//! each file's blocks are parallel tasks too. Every `--jobs` gives the same
//! bytes, and none hangs (a pool thread that blocked waiting for its file's
//! blocks once deadlocked two such files).

use crate::cli::diffprofile;
use crate::malformed::run_with_timeout;
use std::time::Duration;

#[test]
fn files_and_blocks_in_parallel_never_hang() {
    let text = crate::cli::gunzip("testdata/perf-script/sockets.txt.gz");
    // About 9 MB a file: three blocks of the mapped reader.
    let big = text.repeat(15);
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec!["--old".to_string()];
    for i in 0..6 {
        let path = tmp.path().join(format!("run{i}.txt"));
        std::fs::write(&path, &big).unwrap();
        if i == 3 {
            args.push("--new".into());
        }
        args.push(path.to_string_lossy().into_owned());
    }
    let mut outputs = Vec::new();
    for jobs in ["1", "2", "4"] {
        let mut cmd = diffprofile();
        // Six copies of one recording: --allow-duplicates.
        cmd.args(["--jobs", jobs, "-o", "json", "--allow-duplicates"])
            .args(&args);
        let out = run_with_timeout(&mut cmd, Duration::from_secs(120))
            .unwrap_or_else(|| panic!("--jobs {jobs}: hung"));
        assert!(
            out.status.success(),
            "--jobs {jobs}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push(out.stdout);
    }
    assert_eq!(outputs[0], outputs[1], "--jobs 1 vs 2");
    assert_eq!(outputs[0], outputs[2], "--jobs 1 vs 4");
}
