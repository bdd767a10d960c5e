//! Issue 24's second sweep, input side: per-run facts read by their
//! column names, read options a run cannot honour, and inputs that were
//! read wrong or blamed on the wrong thing — through the real binary on
//! the committed recordings (hand-made files only for a malformed or
//! unrealistic file).

use crate::cli::{refused, run, s, stderr};
use crate::scratch::Scratch;
use std::fs;
use std::path::Path;
use std::process::Output;

const RP: &str = "testdata/readprofile/default";

#[track_caller]
fn ok(o: &Output) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    e
}

/// A `--run-info` header naming the columns in another order is read by
/// its names: the same result as the usual order (before: "expected a
/// number, found \"path\""); an unknown column is refused naming it.
#[test]
fn run_info_header_is_read_by_names() {
    let d = Scratch::new("diffprofile-sweep3a", "ri-order");
    let (usual, other) = (d.join("usual.csv"), d.join("other.csv"));
    let (mut a, mut b) = (
        String::from("path,duration_s,work\n"),
        String::from("duration_s,work,path\n"),
    );
    for side in ["pipes", "sockets"] {
        for r in 1..=4 {
            a.push_str(&format!("{side}/run{r}.txt,{r},1\n"));
            b.push_str(&format!("{r},1,{side}/run{r}.txt\n"));
        }
    }
    fs::write(&usual, a).unwrap();
    fs::write(&other, b).unwrap();
    let (old, new) = (format!("{RP}/pipes"), format!("{RP}/sockets"));
    let with = |csv: &Path| run(&[&old, &new, "-n", "rate", "-o", "csv", "--run-info", s(csv)]);
    let (a, b) = (with(&usual), with(&other));
    ok(&a);
    ok(&b);
    assert!(!a.stdout.is_empty());
    assert_eq!(a.stdout, b.stdout);
    fs::write(&other, "path,seconds\npipes/run1.txt,1\n").unwrap();
    refused(
        &with(&other),
        &format!(
            "{}:1: header column \"seconds\" is not one of path, duration_s, work",
            s(&other)
        ),
    );
}

/// perf script of a recording made without -g under `--inclusive`: a
/// counted warning, as perf.data gives (before: the leaf counts were
/// labelled inclusive without a word); with -g, no warning.
#[test]
fn perf_script_without_callchains_under_inclusive_is_said() {
    let (a, b) = (
        "testdata/perf-script/pipes.txt.gz",
        "testdata/perf-script/sockets.txt.gz",
    );
    let e = ok(&run(&[a, b, "--inclusive", "-o", "csv"]));
    assert!(
        e.contains(
            "samples without a callchain (perf script of a recording made without -g); \
             counted at their leaf only"
        ),
        "{e}"
    );
    let (a, b) = (
        "testdata/perf-script/pipes-g.txt.gz",
        "testdata/perf-script/sockets-g.txt.gz",
    );
    let e = ok(&run(&[a, b, "--inclusive", "-o", "csv"]));
    assert!(!e.contains("without a callchain"), "{e}");
}

/// A huge file forced as a /proc/profile image was copied into memory
/// before its step and size were looked at (a 10 GB sparse file of zeros:
/// 15.8 GB resident): a step of 0 and an image past the 1 GiB a streamed
/// one may be are refused before the copy, so sparse files of 2 GiB cost
/// nothing (before: the step error after a 2 GiB copy, and the map's
/// mismatch after a 1 GiB one).
#[test]
fn huge_proc_profile_images_are_refused_before_they_are_read() {
    let d = Scratch::new("diffprofile-sweep3a", "proc-huge");
    let (zeros, stepped) = (d.join("zeros.img"), d.join("stepped.img"));
    fs::File::create(&zeros).unwrap().set_len(2 << 30).unwrap();
    let f = fs::File::create(&stepped).unwrap();
    f.set_len((1 << 30) + 8).unwrap();
    std::os::unix::fs::FileExt::write_at(&f, &4u32.to_ne_bytes(), 0).unwrap();
    let rp = format!("{RP}/sockets/run1.txt");
    let with = |img: &Path| {
        let m = "testdata/raw/System.map.gz";
        run(&["-f", "proc-profile", "--map", m, s(img), &rp])
    };
    refused(
        &with(&zeros),
        "zeros.img: offset 0: expected a sampling step > 0, found 0: not a /proc/profile image",
    );
    refused(
        &with(&stepped),
        "stepped.img: expected a /proc/profile image of at most 1024 MiB (the kernel's holds \
         one 4-byte counter per step of kernel text: tens of MiB), but it is 1073741832 bytes long",
    );
}

/// A readprofile text kept a row per line until its end, so memory grew
/// with the input (848 MB for 500 MB of one line repeated); its lines are
/// now summed by name as they are read. 3 Mi lines of one symbol (48 MiB)
/// under a 120 MB address-space limit: read, the total right (before: the
/// rows alone took 128 MB and the allocation aborted the process).
#[test]
fn a_long_readprofile_text_is_read_in_bounded_memory() {
    let d = Scratch::new("diffprofile-sweep3a", "rp-long");
    let big = d.join("big.txt");
    let n = 3usize << 20;
    let mut text = "     1 f 0.0100\n".repeat(n);
    text.push_str(&format!("{n:>7} total 0.0001\n"));
    fs::write(&big, text).unwrap();
    let o = std::process::Command::new("sh")
        .args(["-c", "ulimit -v 120000; exec \"$0\" \"$@\""])
        .arg(insta_cmd::get_cargo_bin("diffprofile"))
        .args(["--jobs", "1", "-f", "readprofile", s(&big)])
        .arg(format!("{RP}/sockets/run1.txt"))
        .output()
        .unwrap();
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("1 run, total {n}")), "{out}");
}

/// A 4.7 KB damaged Parquet footer (from the read_table fuzz target) held
/// the parquet crate's Thrift skip for seconds (a declared list of 2^28
/// booleans, each skipped as taking no bytes) before "EOF: Unexpected
/// EOF": the footer is walked first and refused, saying what is wrong.
#[test]
fn a_damaged_parquet_footer_is_refused_before_decoding() {
    let t = "testdata/malformed/table-footer-bool-list.parquet";
    let o = run(&["--table", t, "kernel=a", "kernel=b"]);
    refused(
        &o,
        &format!(
            "{t}: cannot read as Parquet: damaged footer: a collection of 251841169 booleans at byte 7"
        ),
    );
}

/// An lz4-compressed profile and a perf report saved as UTF-16 were "not
/// a recognised profile … use -f", which cannot help: each says what the
/// file is and what to run, in a directory side too.
#[test]
fn lz4_and_utf16_files_say_what_they_are() {
    let other = format!("{RP}/sockets/run1.txt");
    let lz4 = "testdata/malformed/readprofile.txt.lz4";
    refused(
        &run(&[lz4, &other]),
        &format!("{lz4}: an lz4-compressed file, which diffprofile does not decompress"),
    );
    refused(&run(&["-f", "readprofile", lz4, &other]), "(lz4 -d FILE)");
    for (f, enc) in [
        ("testdata/malformed/perf-report-utf16.txt", "UTF-16LE"),
        ("testdata/malformed/perf-report-utf16be.txt", "UTF-16BE"),
    ] {
        refused(
            &run(&[f, &other]),
            &format!("{f}: {enc} text, which diffprofile does not read"),
        );
        refused(
            &run(&[f, &other]),
            &format!("(iconv -f {enc} -t UTF-8 FILE > FILE.txt)"),
        );
    }
}

/// Folded stacks whose counts have 16 digits (`p;f0 1000000000000000`)
/// were taken for perf script's `COMM IP` layout and refused with advice
/// about perf script's sym field: read as folded stacks.
#[test]
fn folded_stacks_with_address_long_counts_are_folded() {
    let d = Scratch::new("diffprofile-sweep3a", "folded-16");
    let (a, b) = (d.join("a.folded"), d.join("b.folded"));
    fs::write(&a, "p;f0 1000000000000000\np;f1 2000000000000000\n").unwrap();
    fs::write(&b, "p;f0 2000000000000000\np;f1 1000000000000000\n").unwrap();
    let o = run(&[s(&a), s(&b), "-o", "csv"]);
    ok(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("f0") && out.contains("f1"), "{out}");
}

/// A tar cut inside a member blamed the member's last line ("expected a
/// readprofile line … found" half a line), or, cut at a line's end, gave
/// a run of fewer ticks without a word, or, cut early, "corrupt tar
/// archive: unexpected EOF during skip": each says the archive is cut,
/// naming the member and its declared (and present) bytes.
#[test]
fn a_tar_cut_inside_a_member_says_so() {
    let d = Scratch::new("diffprofile-sweep3a", "tar-cut");
    let mut b = tar::Builder::new(Vec::new());
    let mut before_last = 0;
    for r in 1..=4 {
        before_last = b.get_ref().len();
        let p = format!("{RP}/pipes/run{r}.txt");
        b.append_path_with_name(&p, format!("run{r}.txt")).unwrap();
    }
    let whole = b.into_inner().unwrap();
    let data = before_last + 512;
    let run4 = fs::read(format!("{RP}/pipes/run4.txt")).unwrap();
    let line_end = 5000 + run4[5000..].iter().position(|&c| c == b'\n').unwrap() + 1;
    let other = format!("{RP}/sockets");
    for at in [5000, line_end] {
        let t = d.join(format!("cut{at}.tar"));
        fs::write(&t, &whole[..data + at]).unwrap();
        refused(
            &run(&[s(&t), &other]),
            &format!(
                "{}: the archive is cut short inside member run4.txt: its header declares {} \
                 bytes and only {at} are there",
                s(&t),
                run4.len()
            ),
        );
    }
    // Too little of the member to tell its format: said moving past it.
    let t = d.join("cut100.tar");
    fs::write(&t, &whole[..data + 100]).unwrap();
    refused(
        &run(&[s(&t), &other]),
        &format!(
            "{}: the archive is cut short inside member run4.txt: it ends before the {} bytes",
            s(&t),
            run4.len()
        ),
    );
    let t = d.join("whole.tar");
    fs::write(&t, &whole).unwrap();
    ok(&run(&[s(&t), &other]));
}

/// A recording that lost most of its samples (a one-page ring buffer) was
/// warned as "perf lost 174288 event(s)" only: the warning now also gives
/// perf report's "Total Lost Samples" (PERF_RECORD_LOST_SAMPLES) and the
/// share of the recording's samples that is missing, with what to do.
#[test]
fn lost_samples_are_given_as_a_share() {
    let lost = "testdata/lost/lost.perf.data.gz";
    let o = run(&[lost, lost, "-o", "csv"]);
    let e = ok(&o).replace('\n', " ");
    let e = e.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        e.contains(
            "perf lost 174288 event(s) (PERF_RECORD_LOST) and 181237 sample(s) \
             (PERF_RECORD_LOST_SAMPLES) while recording, against 21349 sample(s) kept: about 89% \
             of the recording's samples are missing"
        ),
        "{e}"
    );
    assert!(
        e.contains("record it again with a larger buffer (-m)"),
        "{e}"
    );
}

/// perf script `--show-lost-events` of that recording: its 158
/// `PERF_RECORD_LOST lost N` lines were only "skipped non-sample lines";
/// their sum is warned about as perf.data's records are.
#[test]
fn perf_script_lost_event_lines_are_counted() {
    let text = "testdata/lost/lost.perf-script.txt.gz";
    let o = run(&[text, text, "-o", "csv"]);
    let e = ok(&o);
    let e = e.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        e.contains(
            "perf lost 174288 event(s) while recording (its PERF_RECORD_LOST lines), against \
             21349 sample(s) kept: about 89% of the recording's samples are missing"
        ),
        "{e}"
    );
}

/// The directory `perf record --threads` writes was taken apart as runs
/// ("1 run(s) hold no samples: thr.data/data … record it again"): refused
/// saying what it is and what to do.
#[test]
fn a_perf_record_threads_directory_is_said() {
    let dir = "testdata/perf-threads/thr.data";
    refused(
        &run(&[dir, "testdata/lost/lost.perf.data.gz"]),
        &format!(
            "{dir}: a `perf record --threads` recording (a directory of its header `data` and \
             its data.N sample streams), which diffprofile does not read: record it again \
             without --threads"
        ),
    );
}

/// A `--call-graph dwarf` recording's callchains stop at the kernel entry
/// here (the copied user stacks are not unwound): said under --inclusive
/// and for a flame graph, not under the self cost (before: callers were
/// missing without a word). Recorded: testdata/README.md, perf-dwarf/.
#[test]
fn dwarf_callchains_are_said_to_be_not_unwound() {
    let f = "testdata/perf-dwarf/dd-u.data.gz";
    let said = "recorded with --call-graph dwarf";
    // (The text report holds its warnings.)
    let all = |o: &Output| format!("{}{}", stderr(o), String::from_utf8_lossy(&o.stdout));
    let o = run(&[f, f, "--inclusive"]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    assert!(all(&o).contains(said), "{}", all(&o));
    let o = run(&[f, f]);
    assert_eq!(o.status.code(), Some(0), "{}", all(&o));
    assert!(!all(&o).contains(said), "{}", all(&o));
}

/// perf record renames the perf.data it would overwrite to
/// `perf.data.old`: beside the runs it is the earlier recording, not one
/// more run (it was read as an extra run without a word).
#[test]
fn perf_backups_beside_the_runs_are_not_runs() {
    let d = Scratch::new("sweep3a", "perf-old");
    let side = d.join("old");
    fs::create_dir_all(&side).unwrap();
    let f = "testdata/perf-dwarf/dd-u.data.gz";
    fs::copy(f, side.join("run1.perf.data.gz")).unwrap();
    fs::copy(f, side.join("run1.perf.data.old")).unwrap();
    let o = run(&[s(&side), f, "-o", "json"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains("perf's .old) skipped") && e.contains("run1.perf.data.old"),
        "{e}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["sides"][0]["runs"].as_array().map(Vec::len), Some(1));
}

/// `-n rate` with a `--run-info` that lists one run and not the other: the
/// other's duration would come from its sample timestamps, mixed with the
/// CSV's without a word (before: 0.217 s beside 1.000 s). Refused, naming
/// the run it lacks; listing both reads.
#[test]
fn run_info_durations_for_some_runs_only_are_refused() {
    let d = Scratch::new("sweep3a", "run-info-gaps");
    let (a, b) = (
        "testdata/perf-dwarf/dd-u.data.gz",
        "testdata/perfdata/u.perf.data.gz",
    );
    let info = d.join("ri.csv");
    fs::write(&info, format!("path,duration_s,work\n{a},1.0,\n")).unwrap();
    let o = run(&[a, b, "-n", "rate", "--run-info", s(&info)]);
    refused(
        &o,
        "--run-info gives durations for some runs but not for: testdata/perfdata/u.perf.data.gz",
    );
    fs::write(&info, format!("path,duration_s,work\n{a},1.0,\n{b},2.0,\n")).unwrap();
    let o = run(&[a, b, "-n", "rate", "--run-info", s(&info)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A perf.data record whose type no perf writes (a damaged header: perf
/// report refuses the file, "failed to process type: 158") is skipped with
/// a counted warning naming the type and the record (before: skipped
/// without a word, 826 of 827 samples read). The hostile tester's mutated
/// recording; the map is forced (any map: the warning is about records).
#[test]
fn records_of_an_unknown_type_are_counted_and_said() {
    let f = "testdata/malformed/record-type-158.perf.data.gz";
    let o = run(&[
        f,
        f,
        "--kallsyms",
        "testdata/perfdata/kallsyms.gz",
        "--force-map",
        "-o",
        "json",
    ]);
    let e = ok(&o);
    assert!(
        e.contains("of a type no perf writes (the first: type 158, record 7) skipped"),
        "{e}"
    );
    // A sound recording says nothing of the kind.
    let g = "testdata/perfdata/plain.perf.data.gz";
    let o = run(&[
        g,
        g,
        "--kallsyms",
        "testdata/perfdata/kallsyms.gz",
        "-o",
        "json",
    ]);
    assert!(!ok(&o).contains("no perf writes"));
}

/// Of thousands of runs, the warning of runs unlike their siblings names
/// the three farthest and counts the rest (before: 1,682 runs in 2,250 lines,
/// most with an empty "worst: )"). Hand-made: 60 + 60 folded runs whose
/// counts vary far more than sampling would.
#[test]
fn many_unlike_runs_are_named_a_few() {
    let d = Scratch::new("sweep3a", "many-unlike");
    let mut x: u64 = 12345;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % 200
    };
    for side in ["a", "b"] {
        let dir = d.join(side);
        fs::create_dir_all(&dir).unwrap();
        for r in 0..60 {
            let text: String = (0..12)
                .map(|f| format!("main;f{f} {}\n", 20 + next()))
                .collect();
            fs::write(dir.join(format!("r{r:02}.folded")), text).unwrap();
        }
    }
    let o = run(&[s(&d.join("a")), s(&d.join("b")), "--top", "2"]);
    let text = format!("{}{}", stderr(&o), String::from_utf8_lossy(&o.stdout));
    assert_eq!(o.status.code(), Some(0), "{text}");
    let flat = text.replace("\n  ", " ");
    let warning = flat
        .lines()
        .find(|l| l.contains("unlike their siblings"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(warning.matches(".folded (noise").count(), 3, "{warning}");
    assert!(
        warning.contains("more run(s) (JSON's noise.runs lists every run)"),
        "{warning}"
    );
    assert!(!warning.contains("worst: )"), "{warning}");
}
