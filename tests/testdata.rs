//! The test data itself: every file is documented, and profiles of one
//! recording agree across formats and variants.

use super::cli::diffprofile;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_testdata_file_is_listed_in_the_readme() {
    // Listed means named verbatim (no globs): `dir/file` as it is under testdata/.
    let readme = std::fs::read_to_string("testdata/README.md").unwrap();
    let mut all = Vec::new();
    files(Path::new("testdata"), &mut all);
    let missing: Vec<String> = all
        .iter()
        .map(|f| {
            f.strip_prefix("testdata")
                .unwrap()
                .to_string_lossy()
                .to_string()
        })
        .filter(|rel| rel != "README.md" && !readme.contains(rel.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "testdata files not named in testdata/README.md: {missing:#?}"
    );
}

/// The JSON report of `args` in ticks, rows by name.
fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-n", "ticks", "--sort", "name"]);
    super::cli::json_of(&all)
}

/// symbol → (old count, new count), summed over rows of one name (rows of
/// one name in different dsos stay apart in the report).
fn counts(v: &Value) -> BTreeMap<String, (f64, f64)> {
    let mut m: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for r in v["rows"].as_array().unwrap() {
        let sum = |k: &str| {
            r[k].as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_f64().unwrap())
                .sum::<f64>()
        };
        let e = m
            .entry(r["symbol"].as_str().unwrap().to_string())
            .or_default();
        e.0 += sum("old_counts");
        e.1 += sum("new_counts");
    }
    m
}

#[test]
fn readprofile_default_verbose_and_sorted_give_identical_rows() {
    for w in ["sockets", "pipes", "threads"] {
        let base = json(&[
            &format!("testdata/readprofile/default/{w}"),
            &format!("testdata/readprofile/default/{w}"),
        ]);
        for variant in ["verbose", "sorted"] {
            let v = json(&[
                &format!("testdata/readprofile/{variant}/{w}"),
                &format!("testdata/readprofile/{variant}/{w}"),
            ]);
            assert_eq!(base["rows"], v["rows"], "{variant} {w}");
            assert_eq!(base["total"], v["total"], "{variant} {w}");
        }
    }
}

#[test]
fn readprofile_and_perf_report_of_one_recording_agree_on_every_kernel_symbol() {
    for w in ["sockets", "pipes", "threads"] {
        for n in 1..=4 {
            let rp = format!("testdata/readprofile/default/{w}/run{n}.txt");
            let pr = format!("testdata/perf-report/sym-n/{w}/run{n}.txt");
            // old = readprofile, new = perf report; kernel-only so user rows don't enter.
            let v = json(&[&rp, &pr, "--kernel-only", "--keep-suffixes"]);
            for row in v["rows"].as_array().unwrap() {
                let sym = row["symbol"].as_str().unwrap();
                assert_eq!(
                    row["old_counts"], row["new_counts"],
                    "{w} run{n}: {sym} differs"
                );
            }
            assert!(
                v["rows"].as_array().unwrap().len() > 50,
                "{w} run{n}: too few rows"
            );
        }
    }
}

#[test]
fn perf_report_sorts_agree_on_counts() {
    for w in ["sockets", "pipes"] {
        let sym = counts(&json(&[
            &format!("testdata/perf-report/sym-n/{w}"),
            &format!("testdata/perf-report/sym-n/{w}"),
        ]));
        let dso = counts(&json(&[
            &format!("testdata/perf-report/dso-sym-n/{w}"),
            &format!("testdata/perf-report/dso-sym-n/{w}"),
        ]));
        let def = counts(&json(&[
            &format!("testdata/perf-report/default/{w}"),
            &format!("testdata/perf-report/default/{w}"),
        ]));
        assert_eq!(dso, def, "{w}: dso,sym vs comm,dso,sym");
        // perf's --sort sym merges by symbol *address*, so two same-named
        // functions stay two rows there too; per name the counts agree.
        assert_eq!(sym, dso, "{w}: sym vs dso,sym");
    }
}

#[test]
fn jobs_do_not_change_output() {
    let run = |jobs: &str| {
        diffprofile()
            .args([
                "testdata/perf-report/default/sockets",
                "testdata/perf-report/default/threads",
                "-o",
                "json",
                "-j",
                jobs,
            ])
            .output()
            .unwrap()
            .stdout
    };
    let one = run("1");
    assert!(!one.is_empty());
    assert_eq!(one, run("2"));
    assert_eq!(one, run("4"));
}

#[test]
fn compressed_and_plain_inputs_agree() {
    let dir = crate::scratch::Scratch::new("diffprofile-gz", "t");
    std::fs::create_dir_all(&dir).unwrap();
    let src = "testdata/readprofile/default/pipes/run1.txt";
    let data = std::fs::read(src).unwrap();
    let gz = dir.join("run1.txt.gz");
    {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        e.write_all(&data).unwrap();
        e.finish().unwrap();
    }
    let plain = json(&["testdata/readprofile/default/sockets/run1.txt", src]);
    let packed = json(&[
        "testdata/readprofile/default/sockets/run1.txt",
        gz.to_str().unwrap(),
    ]);
    assert_eq!(plain["rows"], packed["rows"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn default_text_fits_80_columns_for_kernel_length_names() {
    let out = diffprofile()
        .args([
            "testdata/perf-report/sym-n/sockets",
            "testdata/perf-report/sym-n/threads",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let title = text
        .lines()
        .find(|l| l.trim_start().starts_with("delta"))
        .expect("table title");
    let at = title.find("symbol").expect("symbol column");
    assert!(at <= 40, "the symbol column starts at {at}");
    for line in text.lines() {
        if line.len() > 80 {
            let name = line.get(at..).unwrap_or("");
            assert!(
                name.len() > 80 - at,
                "line over 80 columns with a {}-character name: {line}",
                name.len()
            );
        }
        assert!(line.is_ascii(), "non-ASCII: {line}");
    }
}

#[test]
fn perf_report_with_folded_count_call_graphs_reads_its_rows() {
    // `perf report -g folded,0,caller,count`: count-first folded lines follow
    // each row; the rows (percentages only) must equal the plain report's
    // shares of the same recording to perf's two decimals.
    let share = |f: &str| -> BTreeMap<String, f64> {
        let out = diffprofile()
            .args([f, f, "-o", "json", "-n", "share"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["symbol"].as_str().unwrap().to_string(),
                    r["old"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    let folded = share("testdata/folded/sockets.perf-report-folded.txt.gz");
    let plain = share("testdata/perf-script/sockets-g.report.txt");
    assert_eq!(
        folded.keys().collect::<Vec<_>>(),
        plain.keys().collect::<Vec<_>>()
    );
    for (k, v) in &folded {
        // `[unknown]` sums perf's per-address rows, each rounded to 0.01%.
        let tolerance = if k == "[unknown]" { 0.1 } else { 0.02 };
        assert!((v - plain[k]).abs() < tolerance, "{k}: {v} vs {}", plain[k]);
    }
}
