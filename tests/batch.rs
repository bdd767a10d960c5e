//! `diffprofile batch` end to end: results trees built at test time from
//! copies of the committed real runs (testdata/perf-report/sym-n and
//! testdata/readprofile/default), as a directory and as tar archives, run
//! through the built binary.

use serde_json::Value;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_diffprofile");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn src(kind: &str, workload: &str, run: u32) -> PathBuf {
    let dir = match kind {
        "perf" => "testdata/perf-report/sym-n",
        _ => "testdata/readprofile/default",
    };
    Path::new(ROOT).join(format!("{dir}/{workload}/run{run}.txt"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("diffprofile-batch", name)
}

/// `(member path, source file)` pairs copied under `dir`.
fn build(dir: &Path, files: &[(String, PathBuf)]) {
    for (rel, from) in files {
        let to = dir.join(rel);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(from, &to).unwrap();
    }
}

/// The standard tree: kernels base (pipes), next (sockets), thr (threads),
/// 4 runs each, benchmarks `perf` (perf report) and `rp` (readprofile).
fn standard(prefix: &str) -> Vec<(String, PathBuf)> {
    let mut v = Vec::new();
    for (k, w) in [("base", "pipes"), ("next", "sockets"), ("thr", "threads")] {
        for b in ["perf", "rp"] {
            for r in 1..=4 {
                v.push((format!("{prefix}{k}/{b}/run{r}.txt"), src(b, w, r)));
            }
        }
    }
    v
}

/// Tar (optionally gzip/zstd) of `files`, members in the given order; a
/// name with `..` or a leading `/` (which the tar crate refuses to write)
/// is stored as it is.
fn tarball(path: &Path, files: &[(String, Vec<u8>)], comp: &str) {
    let mut b = tar::Builder::new(Vec::new());
    for (rel, bytes) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        if rel.starts_with('/') || rel.split('/').any(|c| c == "..") {
            h.as_old_mut().name[..rel.len()].copy_from_slice(rel.as_bytes());
            h.set_cksum();
            b.append(&h, &bytes[..]).unwrap();
            continue;
        }
        h.set_cksum();
        b.append_data(&mut h, rel, &bytes[..]).unwrap();
    }
    let raw = b.into_inner().unwrap();
    let bytes = match comp {
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&raw).unwrap();
            e.finish().unwrap()
        }
        "zst" => zstd::encode_all(&raw[..], 3).unwrap(),
        _ => raw,
    };
    fs::write(path, bytes).unwrap();
}

fn read_all(files: &[(String, PathBuf)]) -> Vec<(String, Vec<u8>)> {
    files
        .iter()
        .map(|(r, p)| (r.clone(), fs::read(p).unwrap()))
        .collect()
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn directory_and_archives_give_identical_output() {
    let d = scratch("same");
    let files = standard("");
    build(&d.join("tree"), &files);
    // Members deliberately out of order, with a ./ prefix: sorting fixes both.
    let mut members = read_all(&files);
    members.reverse();
    let dotted: Vec<_> = members
        .iter()
        .map(|(r, b)| (format!("./{r}"), b.clone()))
        .collect();
    tarball(&d.join("t.tar.gz"), &members, "gz");
    tarball(&d.join("t.tar.zst"), &dotted, "zst");
    tarball(&d.join("t.tar"), &members, "");
    for fmt in ["text", "json", "markdown", "csv"] {
        let base = run(&["batch", s(&d.join("tree")), "--baseline", "base", "-o", fmt]);
        assert_eq!(base.status.code(), Some(0), "{fmt}: {base:?}");
        assert!(!base.stdout.is_empty());
        for other in ["t.tar.gz", "t.tar.zst", "t.tar"] {
            let o = run(&["batch", s(&d.join(other)), "--baseline", "base", "-o", fmt]);
            assert_eq!(o.status.code(), Some(0));
            assert!(
                base.stdout == o.stdout,
                "{fmt}: {other} differs from the directory"
            );
        }
        let j1 = run(&[
            "batch",
            s(&d.join("t.tar.gz")),
            "--baseline",
            "base",
            "-o",
            fmt,
            "-j",
            "1",
        ]);
        let j2 = run(&[
            "batch",
            s(&d.join("t.tar.gz")),
            "--baseline",
            "base",
            "-o",
            fmt,
            "-j",
            "2",
        ]);
        assert!(
            j1.stdout == base.stdout && j2.stdout == base.stdout,
            "{fmt}: --jobs changes output"
        );
        assert!(base.stderr.is_empty() || fmt == "text" || !base.stderr.is_empty());
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_kernel_against_its_own_runs_flags_nothing() {
    let d = scratch("aa");
    let mut files = Vec::new();
    for b in ["perf", "rp"] {
        for r in 1..=4 {
            let k = if r <= 2 { "base" } else { "again" };
            files.push((format!("{k}/{b}/run{r}.txt"), src(b, "pipes", r)));
        }
    }
    build(&d, &files);
    let o = run(&[
        "batch",
        s(&d),
        "--baseline",
        "base",
        "-o",
        "json",
        "--fail-on-regression",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v = json(&o);
    assert_eq!(v["benchmarks"].as_array().unwrap().len(), 2);
    for b in v["benchmarks"].as_array().unwrap() {
        for c in b["report"]["comparisons"].as_array().unwrap() {
            assert_eq!(c["significant_regressions"], 0, "{}", b["name"]);
            assert_eq!(c["significant_improvements"], 0, "{}", b["name"]);
        }
    }
    assert_eq!(v["index"]["regressions"].as_array().unwrap().len(), 0);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn out_dir_index_is_ranked_and_deterministic() {
    let d = scratch("index");
    build(&d.join("tree"), &standard(""));
    let mut indexes = Vec::new();
    for (jobs, out) in [("1", "o1"), ("2", "o2")] {
        let o = run(&[
            "batch",
            s(&d.join("tree")),
            "--baseline",
            "base",
            "-o",
            "json",
            "--out-dir",
            s(&d.join(out)),
            "-j",
            jobs,
            "--fail-on-regression",
        ]);
        assert_eq!(o.status.code(), Some(1), "regressions exist: {o:?}");
        assert!(o.stdout.is_empty());
        for f in ["perf.json", "rp.json"] {
            let r: Value = serde_json::from_slice(&fs::read(d.join(out).join(f)).unwrap()).unwrap();
            assert_eq!(r["version"], 1);
            assert_eq!(r["sides"][0]["name"], "base");
        }
        indexes.push(fs::read(d.join(out).join("index.json")).unwrap());
    }
    assert_eq!(indexes[0], indexes[1]);
    let v: Value = serde_json::from_slice(&indexes[0]).unwrap();
    let regs = v["regressions"].as_array().unwrap();
    assert!(
        regs.len() > 10,
        "pipes -> sockets regresses: {}",
        regs.len()
    );
    let deltas: Vec<f64> = regs.iter().map(|r| r["delta"].as_f64().unwrap()).collect();
    assert!(deltas.windows(2).all(|w| w[0] >= w[1]), "largest first");
    assert!(
        regs.iter().any(|r| r["benchmark"] == "perf")
            && regs.iter().any(|r| r["benchmark"] == "rp")
    );
    assert!(regs.iter().all(|r| r["kernel"] != "base"));
    assert_eq!(v["benchmarks"][0]["file"], "perf.json");
    // Text index too.
    let o = run(&[
        "batch",
        s(&d.join("tree")),
        "--baseline",
        "base",
        "--out-dir",
        s(&d.join("t")),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let idx = fs::read_to_string(d.join("t/index.txt")).unwrap();
    assert!(idx.contains("significant regression(s)"), "{idx}");
    assert!(d.join("t/perf.txt").exists() && d.join("t/rp.txt").exists());
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn corrupt_and_unrecognised_members_are_named() {
    let d = scratch("corrupt");
    let mut members = read_all(&standard(""));
    let malformed = Path::new(ROOT).join("testdata/malformed");
    members.push((
        "next/perf/run9.txt.gz".into(),
        fs::read(malformed.join("truncated.txt.gz")).unwrap(),
    ));
    members.push((
        "thr/rp/notes.txt".into(),
        fs::read(malformed.join("unknown-format.txt")).unwrap(),
    ));
    members.push(("thr/rp/empty.txt".into(), Vec::new()));
    members.push(("README".into(), b"results of the week".to_vec()));
    // Paths whose place in the layout is ambiguous: not read, but named.
    let run1 = fs::read(src("rp", "pipes", 1)).unwrap();
    members.push(("../base/rp/run5.txt".into(), run1.clone()));
    members.push(("/base/rp/run6.txt".into(), run1.clone()));
    members.push(("base/../../rp/run7.txt".into(), run1));
    tarball(&d.join("t.tar.gz"), &members, "gz");
    let o = run(&["batch", s(&d.join("t.tar.gz")), "--baseline", "base"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(2),
        "a corrupt member is an error: {err}"
    );
    for name in [
        "next/perf/run9.txt.gz",
        "thr/rp/notes.txt",
        "thr/rp/empty.txt",
        "README",
    ] {
        // (A failed batch names them on stderr too: its error points there.)
        assert!(err.contains(name), "stderr lacks {name}: {err}");
        assert!(out.contains(name), "stdout lacks {name}: {out}");
    }
    assert!(
        out.contains("=== benchmark perf"),
        "the rest is still reported"
    );
    // The report itself names the members passed over and says why the
    // exit status is 2, before the process does.
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "warning: 3 member(s) not read: an absolute path or a `..` component has no place \
             in --layout {kernel}/{bench}/**: ../base/rp/run5.txt, /base/rp/run6.txt, \
             base/../../rp/run7.txt"
        ),
        "{out}"
    );
    assert!(
        flat.ends_with(
            "warning: incomplete: 1 member(s) could not be read or parsed (their runs are \
             left out), as named above; exit status 2"
        ),
        "{out}"
    );
    assert!(
        err.trim_end().ends_with(&format!(
            "diffprofile: error: {}: incomplete: 1 member(s) could not be read or parsed \
             (their runs are left out), as named above; exit status 2",
            s(&d.join("t.tar.gz"))
        )),
        "{err}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn layouts() {
    let d = scratch("layouts");
    let files = standard("");
    build(&d.join("a"), &files);
    // {bench}/{kernel}/** and a fixed word plus `*` in front.
    let swapped: Vec<_> = files
        .iter()
        .map(|(r, p)| {
            let c: Vec<&str> = r.split('/').collect();
            (format!("{}/{}/{}", c[1], c[0], c[2]), p.clone())
        })
        .collect();
    build(&d.join("b"), &swapped);
    let nested: Vec<_> = files
        .iter()
        .map(|(r, p)| {
            let c: Vec<&str> = r.split('/').collect();
            (
                format!("results/{}/host1/{}/{}", c[0], c[1], c[2]),
                p.clone(),
            )
        })
        .collect();
    build(&d.join("c"), &nested);
    let rows = |o: &Output| {
        let v = json(o);
        v["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b["name"].clone(), b["report"]["rows"].clone()))
            .collect::<Vec<_>>()
    };
    let a = run(&["batch", s(&d.join("a")), "--baseline", "base", "-o", "json"]);
    let b = run(&[
        "batch",
        s(&d.join("b")),
        "--baseline",
        "base",
        "-o",
        "json",
        "--layout",
        "{bench}/{kernel}/**",
    ]);
    let c = run(&[
        "batch",
        s(&d.join("c")),
        "--baseline",
        "base",
        "-o",
        "json",
        "--layout",
        "results/{kernel}/*/{bench}/*",
    ]);
    assert_eq!(rows(&a).len(), 2);
    assert_eq!(rows(&a), rows(&b));
    assert_eq!(rows(&a), rows(&c));
    // The default layout on the nested tree (all under results/) reads it
    // one level down, as history does, and says so: kernel `host1` is not
    // a layout of kernels, yet it is never read silently.
    let bad = run(&["batch", s(&d.join("c")), "--baseline", "base"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&bad.stdout),
        String::from_utf8_lossy(&bad.stderr)
    )
    .split_whitespace()
    .collect::<Vec<_>>()
    .join(" ");
    assert!(
        said.contains("every path lies under the one directory results/"),
        "{:?} {said}",
        bad.status
    );
    let bad = run(&[
        "batch",
        s(&d.join("a")),
        "--baseline",
        "base",
        "--layout",
        "{kernel}/**",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn missing_baseline_and_kernels_are_reported() {
    let d = scratch("missing");
    let mut files = standard("");
    files.retain(|(r, _)| !(r.starts_with("base/rp/") || r.starts_with("thr/perf/")));
    files.push(("thr/solo/run1.txt".into(), src("perf", "threads", 1)));
    build(&d, &files);
    let o = run(&["batch", s(&d), "--baseline", "base", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v = json(&o);
    let names: Vec<&str> = v["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["perf"]);
    let w = v["warnings"].to_string();
    assert!(
        w.contains("benchmark rp: skipped: no runs of baseline base"),
        "{w}"
    );
    assert!(w.contains("benchmark solo: skipped"), "{w}");
    assert!(w.contains("benchmark perf: no runs of kernel thr"), "{w}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("benchmark rp: skipped"));
    let o = run(&["batch", s(&d), "--baseline", "v9.9"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("v9.9") && err.contains("base, next, thr"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn batch_numbers_equal_single_comparisons() {
    let d = scratch("equal");
    build(&d, &standard(""));
    let o = run(&["batch", s(&d), "--baseline", "base", "-o", "json"]);
    let v = json(&o);
    for (i, b) in ["perf", "rp"].iter().enumerate() {
        let report = &v["benchmarks"][i]["report"];
        // Three kernels: the same as `diffprofile BASE NEXT THR`.
        let dir = |k: &str| d.join(k).join(b);
        let single = json(&run(&[
            s(&dir("base")),
            s(&dir("next")),
            s(&dir("thr")),
            "-o",
            "json",
        ]));
        let strip = |mut x: Value| {
            for row in x.as_array_mut().unwrap() {
                for vs in row["vs"].as_array_mut().unwrap() {
                    vs["side"] = Value::Null;
                }
            }
            x
        };
        assert_eq!(
            strip(report["rows"].clone()),
            strip(single["rows"].clone()),
            "{b}"
        );
        // Each pair on its own: `diffprofile --old … --new …`.
        for (j, k) in ["next", "thr"].iter().enumerate() {
            let runs = |k: &str| {
                (1..=4)
                    .map(|r| {
                        dir(k)
                            .join(format!("run{r}.txt"))
                            .to_str()
                            .unwrap()
                            .to_string()
                    })
                    .collect::<Vec<_>>()
            };
            let mut args = vec!["--old".to_string()];
            args.extend(runs("base"));
            args.push("--new".into());
            args.extend(runs(k));
            args.extend(["-o".into(), "json".into()]);
            let pair = json(&Command::new(BIN).args(&args).output().unwrap());
            let summary = &report["comparisons"][j];
            assert_eq!(summary["side"], *k);
            assert_eq!(summary["total"], pair["comparisons"][0]["total"]);
            assert_eq!(
                summary["significant_regressions"],
                pair["comparisons"][0]["significant_regressions"],
                "{b} {k}"
            );
        }
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_profile_named_batch_is_still_a_profile() {
    let d = scratch("named");
    fs::copy(src("perf", "pipes", 1), d.join("batch")).unwrap();
    let o = Command::new(BIN)
        .current_dir(&d)
        .args(["./batch", "batch", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(json(&o)["sides"][1]["runs"][0]["source"], "batch");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn multi_way_text_groups_columns_when_they_fit() {
    let p = Path::new(ROOT).join("testdata/perf-report/sym-n");
    let sides = [p.join("pipes"), p.join("sockets"), p.join("threads")];
    let args: Vec<&str> = sides.iter().map(|x| s(x)).collect();
    let text = run(&[&args[..], &["--top", "3"]].concat());
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("d new1") && out.contains("d new2"), "{out}");
    assert!(!out.contains("== NEW1 vs OLD =="));
    // Columns before the symbol end by column 40.
    let at = out
        .lines()
        .find(|l| l.contains("d new1"))
        .unwrap()
        .find("symbol")
        .unwrap();
    assert!(at <= 40, "{at}");
    let wide = run(&[&args[..], &["--top", "3", "--wide"]].concat());
    assert!(String::from_utf8_lossy(&wide.stdout).contains("== NEW1 vs OLD =="));
    let md = run(&[&args[..], &["--top", "3", "-o", "markdown"]].concat());
    assert!(String::from_utf8_lossy(&md.stdout).contains("| Δ new1 (pp) |  | Δ new2 (pp) |"));
}

/// Raw /proc/profile images with the System.map beside them in the results
/// tree (as `diffprofile DIR` uses one): batch reads the map of each
/// member's directory, from a directory and from an archive, and gives the
/// numbers of the single comparison.
#[test]
fn raw_images_use_the_map_beside_them() {
    let d = scratch("maps");
    let raw = Path::new(ROOT).join("testdata/raw");
    let mut files = Vec::new();
    for (k, w) in [("base", "pipes"), ("next", "sockets")] {
        files.push((
            format!("{k}/raw/run1.img.gz"),
            raw.join(format!("{w}-run1.proc-profile.gz")),
        ));
        files.push((format!("{k}/raw/System.map.gz"), raw.join("System.map.gz")));
    }
    build(&d.join("tree"), &files);
    tarball(&d.join("t.tar.gz"), &read_all(&files), "gz");
    let single = json(&run(&[
        s(&d.join("tree/base/raw")),
        s(&d.join("tree/next/raw")),
        "-o",
        "json",
    ]));
    for root in ["tree", "t.tar.gz"] {
        let o = run(&[
            "batch",
            s(&d.join(root)),
            "--baseline",
            "base",
            "-o",
            "json",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{root}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v = json(&o);
        let report = &v["benchmarks"][0]["report"];
        assert_eq!(v["benchmarks"][0]["name"], "raw", "{root}");
        assert_eq!(
            report["comparisons"][0]["total"],
            single["comparisons"][0]["total"]
        );
        assert_eq!(
            report["rows"].as_array().map(Vec::len),
            single["rows"].as_array().map(Vec::len)
        );
        assert!(
            !String::from_utf8_lossy(&o.stderr).contains("do not match"),
            "{root}"
        );
    }
    // Without the maps the images cannot be read, and batch says why.
    let bare = d.join("bare");
    build(
        &bare,
        &files
            .iter()
            .filter(|(r, _)| r.ends_with("img.gz"))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let o = run(&["batch", s(&bare), "--baseline", "base", "-o", "json"]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("needs the symbol map"),
        "{o:?}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// docs/statistics.md §5.3 in a batch: a benchmark whose baseline and
/// another kernel have one run each takes its noise model from the kernel
/// with 3 or more runs, says so, and gives the numbers of the same
/// comparison made with `--noise-from` those runs; comparisons with more
/// runs judge noise over their own runs.
#[test]
fn single_run_kernels_borrow_the_noise_model_of_a_replicated_one() {
    let d = scratch("model");
    let mut files = vec![
        ("base/rp/run1.txt".to_string(), src("rp", "pipes", 1)),
        ("patch/rp/run1.txt".to_string(), src("rp", "threads", 1)),
    ];
    for r in 2..=4 {
        files.push((format!("reps/rp/run{r}.txt"), src("rp", "pipes", r)));
    }
    build(&d, &files);
    let o = run(&["batch", s(&d), "--baseline", "base", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v = json(&o);
    let report = &v["benchmarks"][0]["report"];
    let by_side = |k: &str| {
        report["comparisons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["side"] == k)
            .unwrap()
            .clone()
    };
    let patch = by_side("patch");
    assert_eq!(patch["noise_method"]["method"], "noise-model", "{patch}");
    assert_eq!(
        patch["noise_method"]["model"]["source"],
        "kernel reps's 3 runs"
    );
    assert!(patch["noise"]
        .as_str()
        .unwrap()
        .contains("kernel reps's 3 runs"));
    assert_eq!(by_side("reps")["noise_method"]["method"], "runs");
    // The same as learning the model from those runs by hand.
    let dir = |k: &str, r: u32| d.join(k).join("rp").join(format!("run{r}.txt"));
    let pair = json(&run(&[
        s(&dir("base", 1)),
        s(&dir("patch", 1)),
        "--noise-from",
        s(&dir("reps", 2)),
        s(&dir("reps", 3)),
        s(&dir("reps", 4)),
        "-o",
        "json",
    ]));
    let rows = report["rows"].as_array().unwrap();
    for r in pair["rows"].as_array().unwrap() {
        let b = rows.iter().find(|x| x["symbol"] == r["symbol"]).unwrap();
        let vs = b["vs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["side"] == "patch")
            .unwrap();
        for key in [
            "p",
            "q",
            "significant",
            "dispersion",
            "df",
            "ratio_ci",
            "delta_ci",
        ] {
            assert_eq!(vs[key], r[key], "{} {key}", r["symbol"]);
        }
    }
    let _ = fs::remove_dir_all(&d);
}

/// One recording given twice for a kernel (its readprofile dump and its
/// perf report) makes that benchmark refused, named in the report, and the
/// batch exits with 2 after saying why; the other benchmark is reported.
#[test]
fn a_benchmark_with_duplicate_runs_is_refused() {
    let d = scratch("dup");
    let mut files = standard("");
    files.push(("next/rp/run5.txt".into(), src("perf", "sockets", 1)));
    build(&d, &files);
    let o = run(&["batch", s(&d), "--baseline", "base", "--top", "1"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("=== benchmark rp: skipped: refused: 1 recording(s) given more than once")
            && flat.contains("next/rp/run1.txt (readprofile) = next/rp/run5.txt (perf-report)"),
        "{out}"
    );
    assert!(
        flat.contains("=== benchmark perf: base next thr ==="),
        "{out}"
    );
    assert!(
        flat.ends_with(
            "warning: incomplete: 1 benchmark(s) were refused, as named above; exit status 2"
        ),
        "{out}"
    );
    let o = run(&["batch", s(&d), "--baseline", "base", "--allow-duplicates"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = fs::remove_dir_all(&d);
}

/// Kernels are compared in version order (v6.9 before v6.10), as history
/// orders them, not in string order (v6.10 v6.11 v6.9), the baseline first.
#[test]
fn kernels_in_version_order() {
    let d = scratch("versions");
    let mut files = Vec::new();
    for k in ["v6.8", "v6.10", "v6.11", "v6.9"] {
        for r in 1..=2 {
            files.push((format!("{k}/perf/run{r}.txt"), src("perf", "pipes", r)));
        }
    }
    build(&d, &files);
    let o = run(&["batch", s(&d), "--baseline", "v6.8", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let j = json(&o);
    assert_eq!(
        j["index"]["benchmarks"][0]["kernels"],
        serde_json::json!(["v6.8", "v6.9", "v6.10", "v6.11"])
    );
    let o = run(&["batch", s(&d), "--baseline", "v6.10"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("=== benchmark perf: v6.10 v6.8 v6.9 v6.11 ==="),
        "{text}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// `--comm spin` over a tree where benchmark `msg` never runs `spin`
/// (sched-messaging's perf report tables) and kernel `other` of benchmark
/// `spin` neither: `msg` is skipped with a counted warning, `other` left
/// out of `spin`, and the batch goes on (exit 0), also with `--percentage
/// relative`, whose shares of nothing used to stop the whole batch.
#[test]
fn a_benchmark_without_the_kept_command_is_skipped() {
    let d = scratch("comm");
    let comm = |r: u32| {
        Path::new(ROOT).join(format!(
            "testdata/perf-report/comm/run{r}.comm-dso-sym.txt.gz"
        ))
    };
    let msg =
        |r: u32| Path::new(ROOT).join(format!("testdata/perf-report/default/pipes/run{r}.txt"));
    let files = vec![
        ("base/msg/run1.txt".to_string(), msg(1)),
        ("next/msg/run1.txt".to_string(), msg(2)),
        ("base/spin/run1.txt.gz".to_string(), comm(1)),
        ("next/spin/run1.txt.gz".to_string(), comm(2)),
        ("other/spin/run1.txt".to_string(), msg(3)),
    ];
    build(&d, &files);
    for extra in [&[][..], &["--percentage", "relative"][..]] {
        let mut args = vec!["batch", s(&d), "--baseline", "base", "--comm", "spin"];
        args.extend_from_slice(extra);
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {err}");
        // (The text report says the warnings; stderr only how many.)
        let out = String::from_utf8_lossy(&o.stdout);
        let said = out.replace("\n  ", " ");
        assert!(
            said.contains("1 benchmark skipped: --comm spin keeps no sample of their baseline or other kernels: msg"),
            "{out}"
        );
        assert!(
            said.contains("--comm spin keeps no sample of kernel(s) other: left out"),
            "{out}"
        );
        assert!(
            err.replace("\n  ", " ").contains(", in the report"),
            "{err}"
        );
        assert!(
            out.contains("=== benchmark msg: skipped: no sample kept by --comm spin"),
            "{out}"
        );
        assert!(out.contains("=== benchmark spin: base next ==="), "{out}");
    }
    let _ = fs::remove_dir_all(&d);
}
