//! Each side's own kernel symbols, on the two kernels of testdata
//! (`raw/`: 6.18.44-fc-v657, `other-kernel/`: 6.18.44-fc-v669): per-side
//! flags for perf.data and /proc/profile images, maps beside a named file,
//! maps chosen by the release in their names, multi-way `--kallsyms-for`,
//! batch, the advice that ends every map error, and two kernels pooled on
//! one side.

use super::perfdata::{run, stderr};
use std::path::Path;

const OLD_PD: &str = "testdata/raw/sockets-run1.perf.data.gz";
const PIPES_PD: &str = "testdata/raw/pipes-run1.perf.data.gz";
const OLD_K: &str = "testdata/raw/kallsyms.gz";
const NEW_PD: &str = "testdata/other-kernel/sockets.perf.data.gz";
const NEW_K: &str = "testdata/other-kernel/kallsyms.gz";
const OLD_IMG: &str = "testdata/raw/sockets-run1.proc-profile.gz";
const PIPES_IMG: &str = "testdata/raw/pipes-run1.proc-profile.gz";
const OLD_MAP: &str = "testdata/raw/System.map.gz";
const NEW_IMG: &str = "testdata/other-kernel/sockets.proc-profile.gz";
const NEW_MAP: &str = "testdata/other-kernel/System.map.gz";
const V657: &str = "6.18.44-fc-v657";
const V669: &str = "6.18.44-fc-v669";

/// `files` (testdata path, name) copied into `dir`; their new paths.
fn copy(dir: &Path, files: &[(&str, &str)]) -> Vec<String> {
    files
        .iter()
        .map(|(from, name)| {
            let to = dir.join(name);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(from, &to).unwrap();
            to.to_str().unwrap().to_string()
        })
        .collect()
}

/// Exit 0, and the JSON report's notes and warnings.
fn ok(args: &[&str]) -> (Vec<String>, Vec<String>, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array().map_or(Vec::new(), |a| {
            a.iter().map(|s| s.as_str().unwrap().to_string()).collect()
        })
    };
    (strings(&j["notes"]), strings(&j["warnings"]), j)
}

/// Exit 2, and the error.
fn fails(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    stderr(&o)
}

/// The kernel rows of the OLD side: symbol → samples.
fn kernel_counts(j: &serde_json::Value, side: &str) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["mode"] == "kernel")
        .map(|r| {
            (
                r["symbol"].as_str().unwrap().to_string(),
                r[side][0].as_f64().unwrap(),
            )
        })
        .filter(|(_, c)| *c > 0.0)
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Whether this machine runs `release` (then /proc/kallsyms serves its
/// recordings and "no map" is no error).
fn running(release: &str) -> bool {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").is_ok_and(|r| r.trim() == release)
}

#[test]
fn each_side_of_perf_data_gets_its_own_map() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(
        dir.path(),
        &[(OLD_PD, "old/a.data.gz"), (NEW_PD, "new/b.data.gz")],
    );
    let (old, new) = (p[0].as_str(), p[1].as_str());
    for (o_flag, n_flag) in [
        ("--old-kallsyms", "--new-kallsyms"),
        ("--old-map", "--new-map"),
    ] {
        let (notes, _, j) = ok(&[o_flag, OLD_K, n_flag, NEW_K, old, new]);
        let note = notes
            .iter()
            .find(|n| n.starts_with("kernel symbols:"))
            .unwrap();
        assert_eq!(
            note,
            &format!("kernel symbols: OLD {OLD_K} ({o_flag}); NEW {NEW_K} ({n_flag})")
        );
        // The same counts as each recording read with its own map alone.
        let (_, _, alone) = ok(&["--kallsyms", NEW_K, new, new]);
        assert_eq!(
            kernel_counts(&j, "new_counts"),
            kernel_counts(&alone, "old_counts")
        );
    }
    // Multi-way: --kallsyms for every side, one side's own by name or path.
    let p3 = copy(dir.path(), &[(PIPES_PD, "pipes/c.data.gz")]);
    let three = [old, p3[0].as_str(), new];
    for spec in [
        format!("new2={NEW_K}"),
        format!("{new}={NEW_K}"),
        format!("NEW2={NEW_K}"),
    ] {
        let mut args = vec!["--kallsyms", OLD_K, "--kallsyms-for", spec.as_str()];
        args.extend(three);
        let (notes, _, _) = ok(&args);
        assert!(
            notes
                .iter()
                .any(|n| n.ends_with(&format!("NEW2 {NEW_K} (--kallsyms-for new2)"))),
            "{notes:?}"
        );
    }
    let mut args = vec!["--kallsyms", OLD_K];
    args.extend(three);
    let e = fails(&args);
    assert!(
        e.contains(&format!(
            "(the map given with --kallsyms), and --force-map would use them anyway; give NEW2 \
             its map: --kallsyms-for new2=FILE (a copy of /proc/kallsyms saved while running \
             {V669}, or its System.map)\n"
        )),
        "{e}"
    );
    let e = fails(&[
        "--kallsyms-for",
        &format!("new3={NEW_K}"),
        old,
        p3[0].as_str(),
        new,
    ]);
    assert!(e.contains("where SIDE is one of old, new1, new2"), "{e}");
}

#[test]
fn each_side_of_proc_profile_images_gets_its_own_map() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(
        dir.path(),
        &[(OLD_IMG, "old/a.img.gz"), (NEW_IMG, "new/b.img.gz")],
    );
    let (old, new) = (p[0].as_str(), p[1].as_str());
    for (o_flag, n_flag) in [
        ("--old-map", "--new-map"),
        ("--old-kallsyms", "--new-kallsyms"),
    ] {
        let (notes, _, _) = ok(&[o_flag, OLD_MAP, n_flag, NEW_MAP, old, new]);
        assert!(
            notes.contains(&format!(
                "kernel symbols: OLD {OLD_MAP} ({o_flag}); NEW {NEW_MAP} ({n_flag})"
            )),
            "{notes:?}"
        );
    }
    // Advice: no map at all, then another kernel's.
    let e = fails(&[old, new]);
    assert!(
        e.contains(&format!(
            "{old}: a /proc/profile image needs the symbol map of the kernel it was taken on: \
             give OLD its map: --old-map FILE (the System.map of the kernel the image was \
             taken on, or a copy of its /proc/kallsyms)"
        )),
        "{e}"
    );
    let e = fails(&["--map", OLD_MAP, old, new]);
    assert!(
        e.contains(&format!(
            "{new}: the symbol map {OLD_MAP} does not belong to this image"
        )) && e.contains("give NEW its map: --new-map FILE")
            && !e.contains("--map FILE"),
        "{e}"
    );
    let e = fails(&["--old-map", OLD_MAP, "--new-map", OLD_MAP, old, new]);
    assert!(
        e.contains("give NEW the right map instead: --new-map FILE"),
        "{e}"
    );
}

#[test]
fn maps_beside_named_files_are_used() {
    // testdata/raw holds kallsyms.gz, kallsyms-g.gz and System.map.gz:
    // perf.data takes `kallsyms`, an image `System.map`.
    let (notes, _, _) = ok(&[OLD_PD, NEW_PD]);
    assert!(
        notes.iter().any(|n| {
            n == "kernel symbols: OLD kallsyms.gz (beside the run, chosen over System.map.gz, \
                kallsyms-g.gz: perf's order: kallsyms, kallsyms*, System.map, System.map*); NEW \
                kallsyms.gz (beside the run, chosen over System.map.gz: perf's order: kallsyms, \
                kallsyms*, System.map, System.map*)"
        }),
        "{notes:?}"
    );
    let (notes, _, _) = ok(&[OLD_IMG, NEW_IMG]);
    assert!(
        notes.iter().any(|n| n
            == "kernel symbols: OLD System.map.gz (beside the run, chosen over kallsyms-g.gz, \
                kallsyms.gz: readprofile's order: System.map, System.map*, kallsyms, kallsyms*); \
                NEW System.map.gz (beside the run, chosen over kallsyms.gz: readprofile's order: \
                System.map, System.map*, kallsyms, kallsyms*)"),
        "{notes:?}"
    );
    // One directory, the maps named by release: each recording takes its
    // kernel's.
    let dir = tempfile::tempdir().unwrap();
    let p = copy(
        dir.path(),
        &[
            (OLD_PD, "a.data.gz"),
            (NEW_PD, "b.data.gz"),
            (OLD_K, &format!("kallsyms-{V657}.gz")),
            (NEW_K, &format!("kallsyms-{V669}.gz")),
        ],
    );
    let (notes, _, _) = ok(&[&p[0], &p[1]]);
    assert!(
        notes.contains(&format!(
            "kernel symbols: OLD kallsyms-{V657}.gz (beside the run, chosen over \
             kallsyms-{V669}.gz: its name is the recording's kernel release); NEW \
             kallsyms-{V669}.gz (beside the run, chosen over kallsyms-{V657}.gz: its name is the \
             recording's kernel release)"
        )),
        "{notes:?}"
    );
    // A plain `kallsyms` beside a file in the current directory's terms.
    let one = tempfile::tempdir().unwrap();
    let q = copy(one.path(), &[(NEW_PD, "run.data.gz")]);
    std::fs::write(one.path().join("kallsyms"), super::cli::gunzip(NEW_K)).unwrap();
    ok(&["--old-kallsyms", OLD_K, OLD_PD, &q[0]]);
}

#[test]
fn every_map_error_ends_with_the_command_that_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = copy(
        dir.path(),
        &[(OLD_PD, "old/a.data.gz"), (NEW_PD, "new/b.data.gz")],
    );
    let (old, new) = (p[0].as_str(), p[1].as_str());
    if !running(V657) {
        let e = fails(&[old, new]);
        assert!(
            e.contains(&format!(
                "{old}: record 26: kernel samples need the kallsyms of the kernel it was \
                 recorded on: the recording was made on {V657}"
            )) && e.ends_with(&format!(
                "give OLD its map: --old-kallsyms FILE (a copy of /proc/kallsyms saved while \
                 running {V657}, or its System.map)\n"
            )),
            "{e}"
        );
    }
    // --kallsyms fits OLD, not NEW: NEW is told its own flag, not --kallsyms.
    let e = fails(&["--kallsyms", OLD_K, old, new]);
    assert!(
        e.contains(&format!(
            "{new}: the kernel symbols in {OLD_K} do not belong"
        )) && e.contains("and --force-map would use them anyway; ")
            && e.ends_with(&format!(
                "give NEW its map: --new-kallsyms FILE (a copy of /proc/kallsyms saved while \
                 running {V669}, or its System.map)\n"
            ))
            && !e.contains("--kallsyms FILE"),
        "{e}"
    );
    let e = fails(&["--old-kallsyms", OLD_K, "--new-kallsyms", OLD_K, old, new]);
    assert!(
        e.contains("give NEW the right map instead: --new-kallsyms FILE"),
        "{e}"
    );
    // A map beside the run of another kernel, and two maps beside one.
    std::fs::copy(OLD_K, dir.path().join("new/kallsyms.gz")).unwrap();
    let e = fails(&["--old-kallsyms", OLD_K, old, new]);
    assert!(
        e.contains(
            "(the map beside the run), and --force-map would use them anyway; give NEW its map: \
             --new-kallsyms FILE"
        ),
        "{e}"
    );
    std::fs::copy(OLD_K, dir.path().join("old/kallsyms-x.gz")).unwrap();
    std::fs::copy(NEW_K, dir.path().join("old/kallsyms-y.gz")).unwrap();
    let e = fails(&["--new-kallsyms", NEW_K, old, new]);
    assert!(
        e.contains("several symbol maps beside it (")
            && e.contains("old/kallsyms-x.gz, ")
            && e.contains("; give OLD its map: --old-kallsyms FILE"),
        "{e}"
    );
    // A map beside the run that names another release is passed over.
    let named = tempfile::tempdir().unwrap();
    let q = copy(
        named.path(),
        &[
            (NEW_PD, "b.data.gz"),
            (OLD_K, &format!("kallsyms-{V657}.gz")),
        ],
    );
    if !running(V669) {
        let e = fails(&["--old-kallsyms", OLD_K, old, &q[0]]);
        assert!(
            e.contains(&format!(
                "(the maps beside it name other kernels: {}); give NEW its map: --new-kallsyms \
                 FILE",
                q[1]
            )),
            "{e}"
        );
    }
    // Two maps for one side.
    let e = fails(&["--old-kallsyms", OLD_K, "--old-map", NEW_K, old, new]);
    assert!(e.contains("OLD is given two kernel maps"), "{e}");
}

#[test]
fn batch_reads_maps_beside_files_and_in_kernel_directories() {
    let dir = tempfile::tempdir().unwrap();
    copy(
        dir.path(),
        &[
            (OLD_PD, "v657/sockets/run1.perf.data.gz"),
            (OLD_K, "v657/kallsyms.gz"),
            (NEW_PD, "v669/sockets/run1.perf.data.gz"),
            (NEW_K, "v669/sockets/kallsyms.gz"),
        ],
    );
    let root = dir.path().to_str().unwrap();
    let o = run(&["batch", root, "--baseline", "v657"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = fails(&["batch", root, "--baseline", "v657", "--old-kallsyms", OLD_K]);
    assert!(
        e.contains("--old-kallsyms: this command has no OLD and NEW sides"),
        "{e}"
    );
    if !running(V669) {
        std::fs::remove_file(dir.path().join("v669/sockets/kallsyms.gz")).unwrap();
        let e = fails(&["batch", root, "--baseline", "v657"]);
        assert!(
            e.contains(&format!(
                "put its map in the run's directory of the tree, named kallsyms (a copy of \
                 /proc/kallsyms saved while running {V669}, or its System.map)"
            )),
            "{e}"
        );
    }
}

#[test]
fn two_kernels_on_one_side_are_warned_about() {
    let (_, w, _) = ok(&["--old", OLD_PD, NEW_PD, "--new", PIPES_PD]);
    let hit = w
        .iter()
        .find(|w| w.starts_with("OLD pools runs of 2 kernels"))
        .unwrap();
    assert!(
        hit.contains(&format!(
            "{V657}, build-id 48dc540c8b76393804ca8088dbfa7d42911a9444 ({OLD_PD}) and {V669}, \
             build-id 4a5a9b0affb66c437abcd455d2738af879985fa9 ({NEW_PD})"
        )),
        "{hit}"
    );
    let (_, w, _) = ok(&["--old", OLD_IMG, NEW_IMG, "--new", PIPES_IMG]);
    let hit = w
        .iter()
        .find(|w| w.starts_with("OLD pools runs of 2 kernels"))
        .unwrap();
    assert!(
        hit.contains(&format!(
            "kernel text 0xffffffff81000000..0xffffffff82209988 ({OLD_IMG}) and kernel text \
             0xffffffff81000000..0xffffffff8220bb08 ({NEW_IMG})"
        )),
        "{hit}"
    );
    // One kernel per side: nothing said.
    let (_, w, _) = ok(&[OLD_PD, PIPES_PD]);
    assert!(!w.iter().any(|w| w.contains("pools runs")), "{w:?}");
}
