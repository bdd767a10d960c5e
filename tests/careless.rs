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

/// One side kernel-only (readprofile), the other with user space (perf
/// report) of the same workload, as an A/A check (different recordings):
/// the perf runs are restricted to their kernel samples and the header says
/// so; the table is then exactly that of the same recordings read as
/// readprofile dumps on both sides (no user symbol as new, no shifted
/// shares), with and without `--kernel-only`.
#[test]
fn kernel_only_against_full_compares_the_kernel() {
    let rp = "testdata/readprofile/default/sockets";
    let pr = "testdata/perf-report/sym-n/sockets";
    let json = |new: &str, extra: Option<&str>| -> serde_json::Value {
        let mut args = vec![
            "--old".to_string(),
            format!("{rp}/run1.txt"),
            format!("{rp}/run2.txt"),
            "--new".to_string(),
            format!("{new}/run3.txt"),
            format!("{new}/run4.txt"),
            "-o".to_string(),
            "json".to_string(),
        ];
        args.extend(extra.map(String::from));
        let o = diffprofile().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let kernel_only = json(rp, None);
    for extra in [None, Some("--kernel-only")] {
        let v = json(pr, extra);
        let notes = v["notes"].to_string();
        assert!(
            notes.contains(
                "scope: kernel samples only: the readprofile runs hold nothing else, so 2 \
                 runs of NEW were restricted to their kernel samples"
            ),
            "{extra:?}: {notes}"
        );
        assert!(
            !notes.contains("shares stay relative to all samples"),
            "{notes}"
        );
        assert_eq!(v["rows"], kernel_only["rows"], "{extra:?}");
        assert_eq!(v["warnings"], kernel_only["warnings"], "{extra:?}");
        assert_eq!(v["sides"][1]["runs"][0]["total"], 4739.0);
    }
    // Without the restriction the user rows of perf report were "new".
    assert!(kernel_only["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["mode"] == "kernel"));
}

/// `--comm`/`--dso` on runs that carry no command or dso (readprofile) are
/// refused, naming the runs; a filter that matches nothing is a warning.
#[test]
fn filters_that_cannot_apply_or_match_nothing() {
    assert_cmd_snapshot!(
        "comm_on_readprofile",
        diffprofile().args([
            "testdata/readprofile/default/sockets/run1.txt",
            "testdata/perf-report/default/sockets/run1.txt",
            "--comm",
            "perf",
        ])
    );
    let o = run(&[
        "testdata/perf-report/default/sockets",
        "testdata/perf-report/default/pipes",
        "--dso",
        "^nosuch$",
        "-o",
        "csv",
    ]);
    // Nothing kept on any side: an error naming the filter, not an empty
    // table a --fail-on-regression gate passes.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("filter --dso ^nosuch$ matches no sample of any run"),
        "{e}"
    );
    let o = run(&[
        "testdata/readprofile/default/sockets",
        "testdata/readprofile/default/pipes",
        "--include",
        "^no_such_function$",
        "-o",
        "csv",
    ]);
    // Nothing left on either side: refused, as the --dso above.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "error: symbol filter --include ^no_such_function$ matches no symbol of OLD, NEW"
        ),
        "{}",
        stderr(&o)
    );
}

/// A directory side holding one recording in several formats (readprofile,
/// perf report, perf script, perf.data of run 1; readprofile and perf
/// report of run 2): an A/A check against other runs is refused, naming the
/// copies; `--allow-duplicates` runs it with a warning about the copies and
/// the mixed formats.
#[test]
fn one_recording_in_several_formats_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let t = "testdata";
    for r in ["1", "2"] {
        std::fs::copy(
            format!("{t}/readprofile/default/sockets/run{r}.txt"),
            a.join(format!("run{r}-readprofile.txt")),
        )
        .unwrap();
        std::fs::copy(
            format!("{t}/perf-report/sym-n/sockets/run{r}.txt"),
            a.join(format!("run{r}-report_sym.txt")),
        )
        .unwrap();
    }
    std::fs::copy(
        format!("{t}/perf-script/sockets.txt.gz"),
        a.join("run1-script.txt.gz"),
    )
    .unwrap();
    std::fs::copy(
        format!("{t}/raw/sockets-run1.perf.data.gz"),
        a.join("run1.perf.data.gz"),
    )
    .unwrap();
    std::fs::copy(format!("{t}/raw/kallsyms.gz"), a.join("kallsyms.gz")).unwrap();
    for r in ["3", "4"] {
        std::fs::copy(
            format!("{t}/readprofile/default/sockets/run{r}.txt"),
            b.join(format!("run{r}.txt")),
        )
        .unwrap();
    }
    let o = diffprofile()
        .current_dir(tmp.path())
        .args(["a", "b"])
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(
            "2 recording(s) given more than once in one side (in several formats?), their runs \
             hold the same counts: OLD: a/run1-readprofile.txt (readprofile) = \
             a/run1-report_sym.txt (perf-report) = a/run1-script.txt.gz (perf-script) = \
             a/run1.perf.data.gz (perf-data); OLD: a/run2-readprofile.txt (readprofile) = \
             a/run2-report_sym.txt (perf-report)"
        ) && e.contains("--allow-duplicates"),
        "{e}"
    );
    let o = diffprofile()
        .current_dir(tmp.path())
        .args(["a", "b", "--allow-duplicates", "-o", "csv"])
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains("warning: --allow-duplicates: 2 recording(s) given more than once")
            && e.contains(
                "warning: OLD mixes input formats (1 perf-data, 2 perf-report, 1 perf-script, 2 readprofile runs)"
            ),
        "{e}"
    );
}

/// The same file as OLD and NEW: compared, with a warning.
#[test]
fn the_same_file_on_both_sides_is_a_warning() {
    let f = "testdata/readprofile/default/sockets/run1.txt";
    let o = run(&[f, f, "-o", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "warning: {f} is named as OLD and as NEW: a recording compared with itself"
        )),
        "{}",
        stderr(&o)
    );
    // The same recording under two names (readprofile and perf report of
    // one run) on two sides: a warning too.
    let o = run(&[
        f,
        "testdata/perf-report/sym-n/sockets/run1.txt",
        "-o",
        "csv",
    ]);
    assert!(
        stderr(&o).contains("2 runs on different sides hold the same counts"),
        "{}",
        stderr(&o)
    );
}
