//! Issue 14: inputs a careless user gives, valid but wrong, through the real
//! binary on real recordings. A map of another kernel (testdata/other-kernel/
//! was recorded on a second kernel build), one side kernel-only and the
//! other with user space, filters that cannot apply or match nothing, one
//! recording given several times. Each must be refused or warned about,
//! never silently used.

use crate::cli::diffprofile;
use insta_cmd::assert_cmd_snapshot;
use std::process::Output;

const OTHER: &str = "testdata/other-kernel";

fn run(args: &[&str]) -> Output {
    diffprofile().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A perf.data read with the kallsyms of another kernel build: the samples
/// land in function padding (`__pfx_*`) of the wrong map. Refused both ways
/// round, with the reason and the flag that overrides it.
#[test]
fn perf_data_with_the_kallsyms_of_another_kernel_is_refused() {
    let new_rec = format!("{OTHER}/sockets.perf.data.gz");
    let new_map = format!("{OTHER}/kallsyms.gz");
    let report = "testdata/perf-report/sym-n/sockets/run1.txt";
    for (map, rec) in [
        ("testdata/raw/kallsyms.gz", new_rec.as_str()),
        (new_map.as_str(), "testdata/raw/sockets-run1.perf.data.gz"),
    ] {
        let o = run(&["--kallsyms", map, rec, report]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{map} {rec}: {e}");
        assert!(
            e.contains(&format!(
                "{rec}: the kernel symbols in {map} do not belong to this recording"
            )) && e.contains("land in function padding (__pfx_*/__cfi_*)")
                && e.contains("--force-map"),
            "{e}"
        );
        assert!(o.stdout.is_empty());
        // Forced: the table, with the doubt in a warning.
        let o = run(&["--kallsyms", map, rec, report, "--force-map", "-o", "json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "warning: {rec}: --force-map: kernel symbols read from {map}"
            )),
            "{}",
            stderr(&o)
        );
    }
    // The right map of each recording: no doubt at all.
    for (map, rec) in [
        (
            "testdata/raw/kallsyms.gz",
            "testdata/raw/sockets-run1.perf.data.gz",
        ),
        (new_map.as_str(), new_rec.as_str()),
    ] {
        let o = run(&["--kallsyms", map, rec, report]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.contains("padding") && !out.contains("belong"), "{out}");
    }
}

/// A map whose file name carries a release (`kallsyms-RELEASE`) other than
/// the one in the recording's header is refused before any sample counts.
#[test]
fn a_release_in_the_map_name_is_checked_against_the_header() {
    let tmp = tempfile::tempdir().unwrap();
    let named = tmp.path().join("kallsyms-6.18.44-fc-v669.gz");
    std::fs::copy("testdata/raw/kallsyms.gz", &named).unwrap();
    let named = named.to_string_lossy().into_owned();
    let o = run(&[
        "--kallsyms",
        &named,
        "testdata/raw/sockets-run1.perf.data.gz",
        "testdata/perf-report/sym-n/sockets/run1.txt",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(
            "its file name says kernel 6.18.44-fc-v669, the recording was made on 6.18.44-fc-v657"
        ),
        "{e}"
    );
}

/// A raw /proc/profile image folded onto another kernel's System.map: the
/// image's length and the map's `_stext`/`_etext` disagree (readprofile's
/// own check), refused both ways round; forced, the ticks that land in
/// function padding are a warning.
#[test]
fn proc_profile_with_another_kernels_system_map_is_refused() {
    assert_cmd_snapshot!(
        "proc_profile_image_longer_than_the_map",
        diffprofile().args([
            "--map",
            "testdata/raw/System.map.gz",
            "testdata/other-kernel/sockets.proc-profile.gz",
            "testdata/readprofile/default/sockets/run1.txt",
        ])
    );
    let o = run(&[
        "--map",
        "testdata/other-kernel/System.map.gz",
        "testdata/raw/sockets-run1.proc-profile.gz",
        "testdata/readprofile/default/sockets/run1.txt",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("_etext at 0xffffffff8220bb08 lies past the image's 4728418 counters"),
        "{e}"
    );
    let o = run(&[
        "--force-map",
        "--map",
        "testdata/raw/System.map.gz",
        "testdata/other-kernel/sockets.proc-profile.gz",
        "testdata/readprofile/default/sockets/run1.txt",
        "-o",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("--force-map: ticks folded onto testdata/raw/System.map.gz")
            && e.contains("935 of 1087 ticks (86.0%) land in function padding"),
        "{e}"
    );
    // The image with its own map: exact, no warning about the map.
    let o = run(&[
        "--map",
        "testdata/other-kernel/System.map.gz",
        "testdata/other-kernel/sockets.proc-profile.gz",
        "testdata/readprofile/default/sockets/run1.txt",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("padding"), "{}", stdout(&o));
}
