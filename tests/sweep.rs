//! Issue 24's last sweep: inputs and flags that were accepted without a
//! word or with a message no one can act on, through the real binary on
//! the committed recordings (hand-made files only where the case is a
//! malformed file).

use crate::cli::{refused, run, s, stderr};
use crate::scratch::Scratch;
use std::fs;

const RP: &str = "testdata/readprofile/default";

/// A hidden file in a run directory (`.run1`, a copy someone hid) and a
/// hidden member of a tar are passed over in a counted warning naming
/// them (before: dropped without a word).
#[test]
fn hidden_runs_are_said() {
    let d = Scratch::new("diffprofile-sweep", "hidden");
    let side = d.join("old");
    fs::create_dir_all(side.join(".git")).unwrap();
    for r in 1..=2 {
        fs::copy(
            format!("{RP}/pipes/run{r}.txt"),
            side.join(format!("run{r}.txt")),
        )
        .unwrap();
    }
    fs::copy(format!("{RP}/pipes/run3.txt"), side.join(".run3.txt")).unwrap();
    fs::copy(format!("{RP}/pipes/run4.txt"), side.join(".git/run4.txt")).unwrap();
    let o = run(&[s(&side), &format!("{RP}/sockets"), "-o", "csv"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "{}: 2 hidden file(s) and directories (.name) not read: {}, {}",
            s(&side),
            s(&side.join(".git")),
            s(&side.join(".run3.txt"))
        )),
        "{e}"
    );
    // The same in a tar archive.
    let tar = d.join("old.tar");
    let mut b = tar::Builder::new(fs::File::create(&tar).unwrap());
    for (name, r) in [("run1.txt", 1), (".run2.txt", 2)] {
        b.append_path_with_name(format!("{RP}/pipes/run{r}.txt"), name)
            .unwrap();
    }
    b.finish().unwrap();
    drop(b);
    let o = run(&[s(&tar), &format!("{RP}/sockets"), "-o", "csv"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!("{}:.run2.txt: a hidden file, not read", s(&tar))),
        "{e}"
    );
}

/// A FIFO whose writer stops in the middle of a line: the warning names
/// the FIFO (before: "the input ends in the middle of a line" of no file).
#[test]
fn a_cut_fifo_is_named() {
    let d = Scratch::new("diffprofile-sweep", "fifo");
    let fifo = d.join("run.folded");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = fs::OpenOptions::new().write(true).open(fifo).unwrap();
            f.write_all(b"main;a 5\nmain;b 3\nmain;c").unwrap();
        })
    };
    let other = d.join("other.folded");
    fs::write(&other, "main;a 4\nmain;b 3\n").unwrap();
    let o = run(&["-f", "folded", s(&fifo), s(&other), "-o", "csv"]);
    writer.join().unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "{}: the input ends in the middle of a line (truncated?)",
            s(&fifo)
        )),
        "{e}"
    );
}

/// A noise model learned from cpu-clock runs, applied to task-clock runs
/// (the same recording's two events): said, naming both events (before:
/// nothing). Runs of the model's own event: no such warning.
#[test]
fn a_model_of_another_event_is_said() {
    let d = Scratch::new("diffprofile-sweep", "model-event");
    let model = d.join("model.json");
    let runs: Vec<String> = (1..=3)
        .map(|r| format!("testdata/perf-report/sym-n/pipes/run{r}.txt"))
        .collect();
    let mut args = vec!["noise-model"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["-o", s(&model)]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let group = "testdata/perf-report/group";
    let compare = |event: &str| {
        run(&[
            "--noise-model",
            s(&model),
            "--event",
            event,
            &format!("{group}/two-sections.txt"),
            &format!("{group}/group-n.txt"),
            "-o",
            "csv",
        ])
    };
    let o = compare("task-clock");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "the noise model ({}) was learned from cpu-clock runs, the compared runs are of task-clock",
            s(&model)
        )),
        "{e}"
    );
    let o = compare("cpu-clock");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(!e.contains("was learned from"), "{e}");
}

/// `--group-by` whose pattern groups no symbol: said (before: the header
/// said "rows grouped by …" over the symbols, ungrouped).
#[test]
fn a_group_by_that_groups_nothing_is_said() {
    for how in ["regex:^zzz", "prefix:zzz_"] {
        let o = run(&[
            "--group-by",
            how,
            &format!("{RP}/pipes"),
            &format!("{RP}/threads"),
            "-o",
            "csv",
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{e}");
        assert!(
            e.contains(&format!(
                "--group-by {how} groups no symbol of any run: the rows are the symbols, ungrouped"
            )),
            "{e}"
        );
    }
    // One that groups: no such warning.
    let o = run(&[
        "--group-by",
        "prefix:__",
        &format!("{RP}/pipes"),
        &format!("{RP}/threads"),
        "-o",
        "csv",
    ]);
    assert!(!stderr(&o).contains("groups no symbol"), "{}", stderr(&o));
}

/// `--alpha` out of its range, whatever the way: the message says the
/// range (before: "must be ≥ 0" for a negative, "expected a number ≥ 0"
/// for NaN, though 0 itself is refused too).
#[test]
fn alpha_refusals_say_the_range() {
    for a in ["-0.1", "nan", "0", "1", "2", "inf", "x"] {
        let o = run(&[
            "--alpha",
            a,
            &format!("{RP}/pipes"),
            &format!("{RP}/threads"),
        ]);
        refused(
            &o,
            "expected a number greater than 0 and less than 1, such as 0.05",
        );
    }
}

/// A positional OLD with --new (or --old with a positional NEW): a usage
/// error that says the sides were mixed (before: "give both", though both
/// were given).
#[test]
fn positional_and_flagged_sides_mixed_are_refused() {
    let (old, new) = (format!("{RP}/pipes"), format!("{RP}/threads"));
    let o = run(&[&old, "--new", &new]);
    refused(
        &o,
        &format!("--new with positional path(s) ({old}): give the sides either as OLD NEW or as --old PATH... --new PATH..., not mixed"),
    );
    let o = run(&[&new, "--old", &old]);
    refused(&o, "--old with positional path(s)");
    // --old swallowing what was meant as NEW: what it takes is said.
    let o = run(&["--old", &old, &new]);
    refused(
        &o,
        "--old without --new: give both (--old PATH... --new PATH...; each takes every path after it up to the next flag)",
    );
}

/// A gzip-compressed tar whose stream fails its check (a digit of a
/// count changed inside a stored block, so that every member still
/// parses): refused as damaged (before: read with the changed count, exit
/// 0). A damage that makes a member malformed is said as damage too.
#[test]
fn a_damaged_compressed_tar_is_refused() {
    let d = Scratch::new("diffprofile-sweep", "damaged-tar");
    let mut b = tar::Builder::new(Vec::new());
    for r in 1..=3 {
        b.append_path_with_name(
            format!("{RP}/pipes/run{r}.txt"),
            format!("pipes/run{r}.txt"),
        )
        .unwrap();
    }
    let plain = b.into_inner().unwrap();
    // Level 0: stored blocks, the text as it is inside the stream.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    std::io::Write::write_all(&mut gz, &plain).unwrap();
    let good = gz.finish().unwrap();
    let at = good
        .windows(18)
        .position(|w| w == b"finish_task_switch")
        .unwrap();
    let digit = (0..at).rev().find(|&i| good[i].is_ascii_digit()).unwrap();
    let mut bad = good.clone();
    bad[digit] = if bad[digit] == b'9' { b'1' } else { b'9' };
    let (ok, damaged) = (d.join("ok.tar.gz"), d.join("damaged.tar.gz"));
    fs::write(&ok, &good).unwrap();
    fs::write(&damaged, &bad).unwrap();
    let other = format!("{RP}/threads");
    let o = run(&[s(&ok), &other, "-o", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&[s(&damaged), &other, "-o", "csv"]);
    refused(
        &o,
        &format!(
            "{}: cannot read: the archive is damaged, none of its runs can be trusted",
            s(&damaged)
        ),
    );
    assert!(stderr(&o).contains("checksum"), "{}", stderr(&o));
    // Zeros over a member's text: malformed, and said as the damage.
    let mut zeroed = good.clone();
    zeroed[digit - 40..digit].fill(0);
    fs::write(&damaged, &zeroed).unwrap();
    let o = run(&[s(&damaged), &other, "-o", "csv"]);
    refused(
        &o,
        "the archive is damaged, none of its runs can be trusted (what it gave: ",
    );
}

/// A regular expression option that does not compile: one line, with the
/// pattern, the reason and where (before: the regex crate's three lines,
/// escaped into one as `\u{a}`).
#[test]
fn a_bad_regex_is_said_in_one_line() {
    let (old, new) = (format!("{RP}/pipes"), format!("{RP}/threads"));
    let o = run(&["--include", "ab[[:alpha:]", &old, &new]);
    refused(
        &o,
        "--include \"ab[[:alpha:]\": invalid regular expression: unclosed character class (at character 3)",
    );
    assert!(!stderr(&o).contains("\\u{a}"), "{}", stderr(&o));
    let o = run(&["--group-by", "regex:(x", &old, &new]);
    refused(
        &o,
        "--group-by \"regex:(x\": invalid regular expression: unclosed group",
    );
    // An escaped newline is a valid pattern that matches no name: said
    // (and refused: nothing is left to compare).
    let o = run(&["--include", "\\u{a}", &old, &new, "-o", "csv"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("symbol filter --include \\u{a} matches no symbol of OLD, NEW"),
        "{e}"
    );
}

/// `--comm` that keeps no sample of one run of a side but some of the
/// others: refused naming the run, in a comparison and for a noise model
/// (before: the emptied run was a run of zeros, every row of its side
/// moved by a half, exit 0).
#[test]
fn a_sample_filter_that_empties_one_run_of_several_is_refused() {
    let c = "testdata/contamination";
    let o = run(&[
        "--comm",
        "yes",
        "--old",
        &format!("{c}/yes1.txt.gz"),
        &format!("{c}/plain1.txt.gz"),
        "--new",
        &format!("{c}/yes2.txt.gz"),
        "-o",
        "csv",
    ]);
    refused(
        &o,
        &format!("filter --comm yes keeps no sample of {c}/plain1.txt.gz (perf-script) of OLD (1 of its 2 runs), but some of the others"),
    );
    let d = Scratch::new("diffprofile-sweep", "comm-model");
    let o = run(&[
        "noise-model",
        "--comm",
        "yes",
        &format!("{c}/yes1.txt.gz"),
        &format!("{c}/yes2.txt.gz"),
        &format!("{c}/plain1.txt.gz"),
        "-o",
        s(&d.join("m.json")),
    ]);
    refused(&o, "1 of its 3 runs), but some of the others");
    assert!(!d.join("m.json").exists());
}

/// `-O` onto a hard link of a run inside an input directory, and a batch
/// `--out-dir` holding one: refused, the run untouched (before: the run
/// was overwritten with the report, exit 0).
#[test]
fn an_output_hard_linked_to_a_run_is_refused() {
    let d = Scratch::new("diffprofile-sweep", "hardlink-out");
    let side = d.join("old");
    fs::create_dir_all(&side).unwrap();
    for r in 1..=3 {
        fs::copy(
            format!("{RP}/pipes/run{r}.txt"),
            side.join(format!("run{r}.txt")),
        )
        .unwrap();
    }
    let before = fs::read(side.join("run1.txt")).unwrap();
    let out = d.join("report.txt");
    fs::hard_link(side.join("run1.txt"), &out).unwrap();
    let o = run(&[s(&side), &format!("{RP}/threads"), "-O", s(&out)]);
    refused(&o, "is a hard link to the run");
    let model = d.join("m.json");
    fs::hard_link(side.join("run2.txt"), &model).unwrap();
    let o = run(&["noise-model", s(&side), "-o", s(&model)]);
    refused(&o, "is a hard link to the run");
    assert_eq!(fs::read(side.join("run1.txt")).unwrap(), before);
    assert_eq!(
        fs::read(side.join("run2.txt")).unwrap(),
        fs::read(format!("{RP}/pipes/run2.txt")).unwrap()
    );
}

/// `export` given one tree twice, or a tree and a part of it: refused
/// (before: every run was in the table twice, exit 0).
#[test]
fn export_of_one_tree_twice_is_refused() {
    let d = Scratch::new("diffprofile-sweep", "export-twice");
    let tree = "testdata/history/tree";
    let out = d.join("t.parquet");
    let o = run(&["export", tree, &format!("./{tree}"), "-o", s(&out)]);
    refused(
        &o,
        "are the same tree: its runs would be in the table twice",
    );
    assert!(!out.exists());
}

/// Counts in two units under a unit that compares counts as they are:
/// a perf report of periods (`--show-total-period`) against one of
/// samples, in ticks and classic: refused (before: every row -100%, the
/// periods read as ticks). Shares compare them.
#[test]
fn periods_against_samples_in_ticks_are_refused() {
    let per = "testdata/perf-report/variants/sockets-total-period.txt";
    let sam = "testdata/perf-report/sym-n/sockets/run1.txt";
    for how in [["-n", "ticks"], ["-o", "classic"]] {
        let o = run(&[how[0], how[1], per, sam]);
        refused(
            &o,
            &format!("compares counts as they are, but the counts of {per} are sample periods and those of {sam} samples"),
        );
    }
    let o = run(&[per, sam, "-o", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `--inclusive` on runs without callchains and `--weight period` on
/// runs without periods: refused naming the runs (before: self counts and
/// ticks under a header saying inclusive counts or sample periods).
#[test]
fn inclusive_and_period_without_the_data_are_refused() {
    let (old, new) = (format!("{RP}/pipes"), format!("{RP}/threads"));
    let o = run(&["--inclusive", &old, &new]);
    refused(
        &o,
        &format!("--inclusive counts callchains, which the format of 8 runs does not carry: {old}/run1.txt (readprofile)"),
    );
    let o = run(&["--weight", "period", &old, &new]);
    refused(&o, "the counts of 8 runs are not periods");
    // Where the data is there: read.
    let g = "testdata/perf-script";
    let o = run(&[
        "--inclusive",
        &format!("{g}/pipes-g.txt.gz"),
        &format!("{g}/threads-g.txt.gz"),
        "-o",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&[
        "--weight",
        "period",
        &format!("{g}/sockets-F.txt.gz"),
        &format!("{g}/sockets-F.txt.gz"),
        "-o",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// perf script periods whose sum passes 2^64 under `--weight period`:
/// refused naming the line (before: the total wrapped around, exit 0).
/// A hand-made file: three samples of the recording, their periods 2^63.
#[test]
fn periods_that_overflow_are_refused() {
    let d = Scratch::new("diffprofile-sweep", "period-wrap");
    let text = crate::cli::gunzip("testdata/perf-script/sockets-F.txt.gz");
    let lines: Vec<String> = String::from_utf8(text)
        .unwrap()
        .lines()
        .take(3)
        .map(|l| {
            l.replacen(
                "     500250 cpu-clock:",
                " 9223372036854775808 cpu-clock:",
                1,
            )
        })
        .collect();
    assert!(lines[1].contains("9223372036854775808"), "{}", lines[1]);
    let big = d.join("big.txt");
    fs::write(&big, lines.join("\n") + "\n").unwrap();
    let o = run(&[
        "--weight",
        "period",
        s(&big),
        "testdata/perf-script/sockets-F.txt.gz",
    ]);
    refused(
        &o,
        &format!(
            "{}:2: expected a period that keeps the sum of the event's periods within 2^64",
            s(&big)
        ),
    );
}

/// A kernel map cut to its global text symbols (`grep ' T '` of the
/// recording's kallsyms): warned about, naming the map (before: the
/// samples of static functions were given to the global symbol before
/// them without a word). The whole map: no such warning.
#[test]
fn a_kernel_map_of_globals_only_is_said() {
    let d = Scratch::new("diffprofile-sweep", "globals-only");
    let full = crate::cli::gunzip("testdata/perfdata/kallsyms.gz");
    let globals: String = String::from_utf8(full)
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("T"))
        .map(|l| format!("{l}\n"))
        .collect();
    let map = d.join("kallsyms.T");
    fs::write(&map, globals).unwrap();
    let kernel = "testdata/perfdata/kernel.perf.data.gz";
    let plain = "testdata/perfdata/plain.perf.data.gz";
    // (This recording's few kernel samples then land in padding, which
    // is refused on its own; past that, the cut is said.)
    let o = run(&[
        "--kallsyms",
        s(&map),
        "--force-map",
        kernel,
        plain,
        "-o",
        "csv",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "the kernel map {} lists 300 text symbols, none of them local (`t`)",
            s(&map)
        )),
        "{e}"
    );
    let o = run(&[
        "--kallsyms",
        "testdata/perfdata/kallsyms.gz",
        kernel,
        plain,
        "-o",
        "csv",
    ]);
    assert!(!stderr(&o).contains("none of them local"), "{}", stderr(&o));
}
