//! Runs that are not runs (issue 24 class 4), through the real binary: a
//! recording without samples (testdata/empty/), one run given three times
//! to a noise model, copies in a tree. Each is refused, or left out with a
//! warning, in every unit and every path (main command, `batch`, `export`,
//! `noise-model`, `--noise-from`).

use crate::cli::diffprofile;
use std::fs;
use std::path::Path;
use std::process::Output;

const ZERO_DATA: &str = "testdata/empty/zero.perf.data.gz";
const ZERO_RP: &str = "testdata/empty/zero-ticks-a.readprofile.txt.gz";
const RP: &str = "testdata/readprofile/default";

fn run(args: &[&str]) -> Output {
    diffprofile().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn rp(workload: &str, r: u32) -> String {
    format!("{RP}/{workload}/run{r}.txt")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("diffprofile-runs", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A tree `KERNEL/rp/runN.txt`: base = pipes, next = sockets, 3 runs each.
fn tree(dir: &Path) {
    for (k, w) in [("base", "pipes"), ("next", "sockets")] {
        fs::create_dir_all(dir.join(k).join("rp")).unwrap();
        for r in 1..=3 {
            fs::copy(rp(w, r), dir.join(format!("{k}/rp/run{r}.txt"))).unwrap();
        }
    }
}

/// A 0-sample perf.data and a 0-tick `readprofile -a` dump are refused as
/// runs in every unit and in classic output, naming each and its side
/// (they were counted as runs of zeros under -n ticks and -o classic).
#[test]
fn runs_without_samples_are_refused_in_every_unit() {
    let (old, new1, new2) = (rp("pipes", 1), rp("sockets", 1), rp("sockets", 2));
    let mut cases: Vec<Vec<&str>> = Vec::new();
    for unit in ["share", "ticks", "robust"] {
        cases.push(vec!["-n", unit]);
    }
    cases.push(vec!["-o", "classic"]);
    cases.push(vec!["-o", "json", "-n", "ticks"]);
    for extra in cases {
        for empty in [ZERO_DATA, ZERO_RP] {
            let mut args = extra.clone();
            args.extend(["--kallsyms", "testdata/raw/kallsyms.gz"]);
            args.extend(["--old", &old, "--new", &new1, &new2, empty]);
            let o = run(&args);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
            assert!(
                e.contains(&format!("1 run(s) hold no samples: {empty} ("))
                    && e.contains("of NEW;"),
                "{args:?}: {e}"
            );
            assert!(o.stdout.is_empty(), "{args:?}");
        }
    }
}

/// In a tree, a run without samples is left out with a warning naming it,
/// in `batch` and in `export` (and so in what `--table` reads back): the
/// report is the one of the tree without it.
#[test]
fn batch_and_export_leave_out_runs_without_samples() {
    let d = scratch("empty-tree");
    let clean = d.join("clean");
    tree(&clean);
    let dirty = d.join("dirty");
    tree(&dirty);
    let zero = crate::cli::gunzip(ZERO_RP);
    fs::write(dirty.join("next/rp/run4.txt"), zero).unwrap();
    let batch = |root: &Path| {
        run(&[
            "batch",
            s(root),
            "--baseline",
            "base",
            "-n",
            "ticks",
            "-o",
            "json",
        ])
    };
    let (want, got) = (batch(&clean), batch(&dirty));
    assert_eq!(want.status.code(), Some(0), "{}", stderr(&want));
    assert_eq!(got.status.code(), Some(0), "{}", stderr(&got));
    assert!(
        stderr(&got).contains("next/rp/run4.txt: run holds no samples: left out"),
        "{}",
        stderr(&got)
    );
    let runs = |o: &Output| -> serde_json::Value {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["benchmarks"][0]["report"]["comparisons"].clone()
    };
    assert_eq!(runs(&got), runs(&want));
    // export: not written; --table reads the clean runs.
    let table = d.join("t.parquet");
    let o = run(&["export", s(&dirty), "-o", s(&table)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("next/rp/run4.txt: run holds no samples: left out")
            && stderr(&o).contains("exported 6 runs"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "--table",
        s(&table),
        "--old",
        "kernel=base",
        "--new",
        "kernel=next",
        "-n",
        "ticks",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("kernel=next: 3 runs"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// `noise-model` and `--noise-from` refuse one recording given three times
/// (its noise would be zero) and a run without samples, as a comparison's
/// side does; `--allow-duplicates` lets the copies through with a warning.
#[test]
fn noise_models_refuse_copies_and_empty_runs() {
    let one = rp("pipes", 1);
    let o = run(&["noise-model", &one, &one, &one]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("1 recording(s) given more than once in one side")
            && e.contains("--allow-duplicates"),
        "{e}"
    );
    let o = run(&["noise-model", &one, &one, &one, "--allow-duplicates"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: --allow-duplicates: 1 recording(s)"));
    let (old, new) = (rp("pipes", 2), rp("sockets", 1));
    let o = run(&[
        "--noise-from",
        &one,
        &one,
        &one,
        "--old",
        &old,
        "--new",
        &new,
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("noise model from") && e.contains("given more than once"),
        "{e}"
    );
    let (r2, r3) = (rp("pipes", 2), rp("pipes", 3));
    let o = run(&["noise-model", &one, &r2, &r3, ZERO_RP]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!("1 run(s) hold no samples: {ZERO_RP}")),
        "{e}"
    );
    // Three real replicates: learned.
    let o = run(&["noise-model", &one, &r2, &r3]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A copy of the table at `from` with column `column` of row `row` (0-based,
/// in the first batch) set to `value`, the file's metadata kept: what an
/// engine's query could leave in a table.
fn with_value(from: &Path, to: &Path, column: &str, row: usize, value: f64) {
    use arrow_array::{Array, Float64Array, RecordBatch};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let builder = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(from).unwrap()).unwrap();
    let kv = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .cloned();
    let reader = builder.build().unwrap();
    let props = WriterProperties::builder()
        .set_key_value_metadata(kv)
        .build();
    let mut writer: Option<ArrowWriter<fs::File>> = None;
    for (b, batch) in reader.enumerate() {
        let batch = batch.unwrap();
        let schema = batch.schema();
        let at = schema.index_of(column).unwrap();
        let mut columns = batch.columns().to_vec();
        if b == 0 {
            let old = columns[at].as_any().downcast_ref::<Float64Array>().unwrap();
            let new: Float64Array = (0..old.len())
                .map(|i| {
                    if i == row {
                        Some(value)
                    } else {
                        (!old.is_null(i)).then(|| old.value(i))
                    }
                })
                .collect();
            columns[at] = Arc::new(new);
        }
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        let w = writer.get_or_insert_with(|| {
            ArrowWriter::try_new(fs::File::create(to).unwrap(), schema, Some(props.clone()))
                .unwrap()
        });
        w.write(&batch).unwrap();
    }
    writer.unwrap().close().unwrap();
}

/// `--table` refuses counts and totals of -5, NaN and inf (they gave NaN
/// totals), naming the file, the row, the run and the symbol; a side that
/// pools several benchmarks (or kernels) as replicates is warned about,
/// with the selector that picks one.
#[test]
fn table_values_are_checked_and_pooling_is_said() {
    let d = scratch("table-values");
    let t = d.join("tree");
    tree(&t);
    // Benchmark perf: recordings rp does not hold (no copies).
    let perf = [
        ("base", [("threads", 1), ("threads", 2), ("threads", 3)]),
        ("next", [("threads", 4), ("pipes", 4), ("sockets", 4)]),
    ];
    for (k, runs) in perf {
        fs::create_dir_all(t.join(k).join("perf")).unwrap();
        for (n, (w, r)) in runs.into_iter().enumerate() {
            let from = format!("testdata/perf-report/sym-n/{w}/run{r}.txt");
            fs::copy(from, t.join(format!("{k}/perf/run{}.txt", n + 1))).unwrap();
        }
    }
    let table = d.join("t.parquet");
    let o = run(&["export", s(&t), "-o", s(&table)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cmp = |path: &Path, extra: &[&str]| {
        let mut args = vec![
            "--table",
            s(path),
            "kernel=base",
            "kernel=next",
            "-n",
            "ticks",
        ];
        args.extend(["-o", "json"]);
        args.extend(extra);
        run(&args)
    };
    // (JSON output says its warnings on stderr, unwrapped.)
    let said = stderr;
    let o = cmp(&table, &[]);
    let e = said(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "{}: OLD (kernel=base) pools runs of 2 benchmarks as replicates: perf, rp; a side's runs \
             are meant to be runs of one benchmark: add --where benchmark=perf",
            s(&table)
        )) && e.contains("NEW (kernel=next) pools runs of 2 benchmarks"),
        "{e}"
    );
    let o = cmp(&table, &["--where", "benchmark=rp"]);
    assert!(!said(&o).contains("pools runs"), "{}", said(&o));
    let o = run(&[
        "--table",
        s(&table),
        "benchmark=rp",
        "kernel=next,benchmark=rp",
        "-o",
        "json",
    ]);
    assert!(
        said(&o).contains("OLD (benchmark=rp) pools runs of 2 kernels as replicates: base, next"),
        "{}",
        said(&o)
    );
    // Values no profile gives.
    let bad = d.join("bad.parquet");
    for (column, value, shown) in [
        ("count", -5.0, "-5"),
        ("count", f64::NAN, "NaN"),
        ("count", f64::INFINITY, "inf"),
        ("run_total", f64::NEG_INFINITY, "-inf"),
        ("count", 1e28, "10000000000000000000000000000"),
    ] {
        with_value(&table, &bad, column, 2, value);
        let o = cmp(&bad, &[]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{column} {value}: {e}");
        assert!(
            e.contains(&format!("{}: row 3: run ", s(&bad)))
                && (e.contains(&format!(
                    "{column} is {shown}; expected a finite number, 0 or more"
                )) || e.contains(&format!("{column} {shown} is larger than 2^53"))),
            "{column} {value}: {e}"
        );
        if column == "count" {
            assert!(e.contains(", symbol "), "{e}");
        }
        assert!(o.stdout.is_empty());
    }
    // A symbol's count above its run's total (before: a warning, and the
    // comparison ran on it), one of 1e300, and a fractional one (before:
    // read as it was).
    for (value, says) in [
        (1e12, "count 1000000000000 is above the run's run_total "),
        (1e300, "count 1"),
        // A fraction in a run of samples (a flipped byte of 199).
        (
            8.12890625,
            "count 8.12890625 is not a whole number, but the run's counts are samples",
        ),
    ] {
        with_value(&table, &bad, "count", 2, value);
        let o = cmp(&bad, &[]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{value}: {e}");
        assert!(
            e.contains(&format!("{}: row 3: run ", s(&bad)))
                && e.contains(", symbol ")
                && e.contains(says),
            "{value}: {e}"
        );
        assert!(o.stdout.is_empty());
    }
}

/// A tar of `(member path, bytes)` in order, as `tar -r` leaves one (a
/// path may come twice).
fn tarball(path: &Path, members: &[(String, Vec<u8>)]) {
    let mut b = tar::Builder::new(Vec::new());
    for (rel, bytes) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, rel, &bytes[..]).unwrap();
    }
    fs::write(path, b.into_inner().unwrap()).unwrap();
}

/// Editor backups and leftovers beside the runs (`run1.txt~`, `#run2.txt#`,
/// `run3.txt.orig`, `run1.txt.bak`, `run2.txt.swp`, perf's `run3.txt.old`)
/// are not runs: skipped
/// with a counted warning naming them, in a directory and an archive, by
/// the main command, `batch` and `export` (they were read as copies).
#[test]
fn editor_backups_are_not_runs() {
    let d = scratch("backups");
    let t = d.join("tree");
    tree(&t);
    let backups = [
        ("run1.txt~", 1),
        ("#run2.txt#", 2),
        ("run3.txt.orig", 3),
        ("run1.txt.bak", 1),
        ("run2.txt.swp", 2),
        // perf record's backup of the perf.data it would overwrite.
        ("run3.txt.old", 3),
    ];
    for (name, r) in backups {
        fs::copy(rp("pipes", r), t.join("base/rp").join(name)).unwrap();
    }
    let members: Vec<(String, Vec<u8>)> = ["base", "next"]
        .iter()
        .flat_map(|k| {
            let dir = t.join(k).join("rp");
            let mut names: Vec<String> = fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
                .into_iter()
                .map(move |n| (format!("{k}/rp/{n}"), fs::read(dir.join(&n)).unwrap()))
        })
        .collect();
    let tar = d.join("tree.tar");
    tarball(&tar, &members);
    let base = t.join("base/rp");
    let next = t.join("next/rp");
    let o = run(&["-o", "json", s(&base), s(&next)]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "{}: 6 editor backup(s) and leftovers (name~, #name#, .swp, .orig, .rej, .bak, perf's .old) skipped: {}/#run2.txt#",
            s(&base),
            s(&base)
        )),
        "{e}"
    );
    let o = run(&["-o", "json", s(&tar), s(&next)]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains("skipped 6 file(s) that are not profiles: ")
            && e.contains(&format!(
                "{}:base/rp/run1.txt~: an editor backup or leftover, not a run",
                s(&tar)
            )),
        "{e}"
    );
    for root in [&t, &tar] {
        let o = run(&["batch", s(root), "--baseline", "base", "-o", "json"]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{}: {e}", s(root));
        assert!(e.contains("6 editor backup(s) and leftovers"), "{e}");
        let table = d.join("t.parquet");
        let o = run(&["export", s(root), "-o", s(&table)]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{}: {e}", s(root));
        assert!(
            e.contains("6 editor backup(s) and leftovers") && e.contains("exported 6 runs"),
            "{e}"
        );
    }
}

/// A tar holding one member path twice (`tar -r` appends a new copy) is
/// refused, naming the member, by the main command, `batch` and `export`
/// (it was read as two runs).
#[test]
fn an_archive_with_a_member_twice_is_refused() {
    let d = scratch("tar-twice");
    let one = fs::read(rp("pipes", 1)).unwrap();
    let two = fs::read(rp("pipes", 2)).unwrap();
    let next = fs::read(rp("sockets", 1)).unwrap();
    let tar = d.join("t.tar");
    tarball(
        &tar,
        &[
            ("base/rp/run1.txt".into(), one.clone()),
            ("base/rp/run2.txt".into(), two),
            ("next/rp/run1.txt".into(), next),
            ("./base/rp/run1.txt".into(), one),
        ],
    );
    let want = format!(
        "{}: member base/rp/run1.txt appears twice in the archive (appended with tar -r?)",
        s(&tar)
    );
    let table = d.join("t.parquet");
    for args in [
        vec![s(&tar), rp("sockets", 2).leak() as &str],
        vec!["batch", s(&tar), "--baseline", "base"],
        vec!["export", s(&tar), "-o", s(&table)],
    ] {
        let o = run(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(&want), "{args:?}: {e}");
    }
}
