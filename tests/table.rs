//! The counts table's guarantees: `--shard` partitions the rows, output is
//! the same for any `--jobs`, noise models and run metadata survive the
//! table, and what is wrong (a malformed member, a file that is not a
//! table, a newer schema, a selector that matches nothing) is said.

use crate::export::{json, ok, run, s, scratch, small_tree, ROOT};
use diffprofile::table::columns::{Number, Text, TextList};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::fs;
use std::path::Path;

/// Every row of a table file as text, columns in schema order.
fn rows_of(path: &Path) -> Vec<String> {
    let f = fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let names: Vec<String> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        for i in 0..batch.num_rows() {
            let mut row = Vec::new();
            for name in &names {
                let col = batch.column_by_name(name).unwrap();
                let cell = match col.data_type() {
                    arrow_schema::DataType::Float64 => {
                        format!(
                            "{:?}",
                            Number::of(&batch, name, "t")
                                .unwrap()
                                .get(i)
                                .map(f64::to_bits)
                        )
                    }
                    arrow_schema::DataType::Utf8 => {
                        format!("{:?}", Text::of(&batch, name, None, "t").unwrap().get(i))
                    }
                    _ => format!(
                        "{:?}",
                        TextList::of(&batch, name, "t")
                            .unwrap()
                            .get(i, name, "t")
                            .unwrap()
                    ),
                };
                row.push(cell);
            }
            rows.push(row.join("|"));
        }
    }
    rows
}

#[test]
fn shards_partition_the_rows_and_jobs_do_not_change_bytes() {
    let d = scratch("shards");
    let tree = d.join("tree");
    small_tree(&tree);
    let all = d.join("all.parquet");
    ok(&["export", s(&tree), "-o", s(&all), "--jobs", "1"]);
    let again = d.join("again.parquet");
    ok(&["export", s(&tree), "-o", s(&again), "--jobs", "3"]);
    assert!(
        fs::read(&all).unwrap() == fs::read(&again).unwrap(),
        "--jobs changed the bytes"
    );
    fs::create_dir_all(d.join("shards")).unwrap();
    let mut union = Vec::new();
    for k in 1..=4 {
        let f = d.join(format!("shards/part{k}.parquet"));
        let e = ok(&[
            "export",
            s(&tree),
            "--shard",
            &format!("{k}/4"),
            "-o",
            s(&f),
        ]);
        let said = String::from_utf8_lossy(&e.stderr);
        let groups = if k <= 2 { 2 } else { 1 };
        assert!(
            said.contains(&format!("(shard {k}/4: {groups} of 6 run groups)")),
            "{said}"
        );
        let rows = rows_of(&f);
        assert!(!rows.is_empty());
        union.extend(rows);
    }
    let mut one = rows_of(&all);
    one.sort();
    union.sort();
    assert_eq!(one.len(), union.len());
    assert!(one == union, "the shards' rows are not the single export's");
    let files = ok(&["batch", s(&tree), "--baseline", "base", "-o", "json"]);
    let shards = ok(&[
        "batch",
        s(&d.join("shards")),
        "--baseline",
        "base",
        "-o",
        "json",
    ]);
    assert!(
        files.stdout == shards.stdout,
        "batch over the shards differs from the files"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn noise_models_and_run_info_survive_the_table() {
    let d = scratch("noise");
    let tree = d.join("tree");
    // One run of base and of next, four of thr: batch learns thr's model.
    small_tree(&tree);
    for k in ["base", "next"] {
        for r in 2..=4 {
            for b in ["rp", "perf"] {
                fs::remove_file(tree.join(format!("{k}/{b}/run{r}.txt"))).unwrap();
            }
        }
    }
    let info = d.join("runs.csv");
    let mut csv = String::from("path,duration_s,work\n");
    for (i, k) in ["base", "next", "thr"].iter().enumerate() {
        for b in ["rp", "perf"] {
            for r in 1..=4 {
                csv.push_str(&format!(
                    "{k}/{b}/run{r}.txt,{}.5,{}\n",
                    10 + r,
                    1000 * (i + r)
                ));
            }
        }
    }
    fs::write(&info, csv).unwrap();
    let t = d.join("t.parquet");
    ok(&["export", s(&tree), "-o", s(&t), "--run-info", s(&info)]);
    for n in ["share", "work", "rate"] {
        let files = ok(&[
            "batch",
            s(&tree),
            "--baseline",
            "base",
            "-o",
            "json",
            "-n",
            n,
            "--run-info",
            s(&info),
        ]);
        let table = ok(&["batch", s(&t), "--baseline", "base", "-o", "json", "-n", n]);
        assert!(
            files.stdout == table.stdout,
            "-n {n}: table differs from files"
        );
        let v = json(&table);
        let noise = &v["benchmarks"][0]["report"]["noise"]["method"];
        assert_eq!(noise, "noise-model", "-n {n}");
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn problems_are_named() {
    let d = scratch("problems");
    let tree = d.join("tree");
    small_tree(&tree);
    let good = fs::read_to_string(tree.join("next/rp/run1.txt")).unwrap();
    let line = good.lines().count() + 1;
    fs::write(
        tree.join("next/rp/run5.txt"),
        format!("{good}not a readprofile line\n"),
    )
    .unwrap();
    let t = d.join("t.parquet");
    let o = run(&["export", s(&tree), "-o", s(&t)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("next/rp/run5.txt:{line}: expected")),
        "{err}"
    );
    assert!(
        err.contains(
            "1 member(s) could not be read or parsed (named above); their runs are not in"
        ),
        "{err}"
    );
    assert!(err.contains("exported 24 runs"), "{err}");
    let bad = |args: &[&str], want: &str| {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    bad(
        &[
            "--table",
            s(&t),
            "--old",
            "kernel=base",
            "--new",
            "kernel=v9",
        ],
        "no runs match kernel=v9",
    );
    bad(
        &[
            "--table",
            s(&t),
            "--old",
            "kernel=base",
            "--new",
            "symbol=x",
        ],
        "no column \"symbol\" to select runs by",
    );
    bad(
        &["export", s(&tree), "-o", s(&t), "--shard", "3/2"],
        "--shard 3/2: expected K/N with 1 <= K <= N",
    );
    bad(
        &["export", s(&tree), "-o", s(&t), "-n", "ticks"],
        "export writes counts",
    );
    let readme = Path::new(ROOT).join("README.md");
    let notable = d.join("notable");
    fs::create_dir_all(&notable).unwrap();
    fs::copy(&t, notable.join("a.parquet")).unwrap();
    fs::copy(&readme, notable.join("b.txt")).unwrap();
    bad(
        &["--table", s(&notable), "kernel=base", "kernel=next"],
        "b.txt: not a Parquet file",
    );
    bad(&["--where", "kernel=x", "a", "b"], "--table");
    bad(
        &["export", s(&tree), "-o", s(&t), "--allow-duplicates"],
        "--allow-duplicates applies when a comparison reads them",
    );
    bad(
        &[
            "--table",
            s(&t),
            "kernel=base",
            "kernel=next",
            "--symfs",
            "/",
        ],
        "--symfs read and name profiles",
    );
    // Valid but wrong: a run both sides select is compared with itself.
    let o = ok(&[
        "--table",
        s(&t),
        "--old",
        "kernel=base,benchmark=rp",
        "--new",
        "benchmark=rp,run=run1.txt",
        "-o",
        "csv",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "1 run selected as OLD (kernel=base,benchmark=rp) and as NEW \
             (benchmark=rp,run=run1.txt): a recording compared with itself: base/rp/run1.txt"
        ),
        "{err}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// Damaged tables (truncated, or bytes overwritten anywhere: footer, page
/// headers, compressed pages, the key-value metadata) are read as an error
/// naming the file, or as a table whose damage the format cannot see (a
/// flipped count), never with a panic.
#[test]
fn damaged_tables_are_an_error_never_a_panic() {
    use diffprofile::table::{reader, select::Filter};
    let d = scratch("damaged");
    let tree = d.join("tree");
    small_tree(&tree);
    let t = d.join("t.parquet");
    ok(&["export", s(&tree), "-o", s(&t)]);
    let bytes = fs::read(&t).unwrap();
    let n = bytes.len();
    let mut cases: Vec<Vec<u8>> = [4, 8, 100, n / 2, n - 100, n - 9, n - 8, n - 4, n - 1]
        .iter()
        .map(|&k| bytes[..k].to_vec())
        .collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for i in 0..300 {
        let mut b = bytes.clone();
        // A third of the cases hit the footer (metadata, schema, offsets).
        let (from, span) = if i % 3 == 0 {
            (n - 2000.min(n), 2000.min(n))
        } else {
            (0, n)
        };
        for _ in 0..1 + i % 4 {
            let r = next();
            b[from + (r % span as u64) as usize] = (r >> 40) as u8;
        }
        cases.push(b);
    }
    let path = d.join("bad.parquet");
    let name = path.to_string_lossy().into_owned();
    let mut errors = 0;
    for (i, case) in cases.iter().enumerate() {
        fs::write(&path, case).unwrap();
        let read = std::panic::catch_unwind(|| reader::read(&name, &Filter::all()));
        match read {
            Err(_) => panic!("case {i}: the reader panicked"),
            Ok(Err(e)) => {
                errors += 1;
                let e = format!("{e:#}");
                assert!(e.starts_with(&name), "case {i}: {e}");
            }
            Ok(Ok(_)) => {}
        }
    }
    // Most damage is seen (checksums are not written, so not all).
    assert!(
        errors > cases.len() / 3,
        "{errors} errors in {} cases",
        cases.len()
    );
    let _ = fs::remove_dir_all(&d);
}

/// The damaged table the fuzzer found (testdata/malformed/): the parquet
/// crate panics decoding its pages; diffprofile says so, exit status 2,
/// whether it is read by batch or in-process. And an archive
/// whose members escape the tree (`../`, absolute) is exported without
/// them, said in a warning.
#[test]
fn a_table_the_decoder_panics_on_is_an_error() {
    let bad = Path::new(ROOT).join("testdata/malformed/table-damaged-levels.parquet");
    let want = "cannot read rows: damaged data, the decoder failed: offset + len out of bounds";
    let o = run(&["batch", s(&bad), "--baseline", "base"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}: {want}", s(&bad))), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let r = diffprofile::table::reader::read(s(&bad), &diffprofile::table::select::Filter::all());
    assert!(format!("{:#}", r.err().unwrap()).contains(want));

    let d = scratch("escape");
    let tar = Path::new(ROOT).join("testdata/malformed/tar-dotdot-absolute.tar");
    let o = run(&[
        "export",
        s(&tar),
        "--layout",
        "{kernel}/{bench}/*",
        "-o",
        s(&d.join("t.parquet")),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("../escape.txt (absolute, or with a .. component)")
            && err.contains("/tmp/diffprofile-absolute.txt (absolute, or with a .. component)"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&d);
}
