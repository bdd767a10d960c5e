//! The malformed corpus (issue 8): every file of `testdata/malformed/` and the
//! inputs generated here (a 10 MB line, directories with no profiles,
//! unreadable paths, a gzip bomb) run through the real binary, with the
//! exact exit code, stdout and stderr snapshotted (insta-cmd) or, for the
//! generated heavy inputs, the exit code, the error text and the bound on
//! memory asserted (speed, and one million symbols, are measured by
//! `scripts/bench-bounds.sh`, not here). The older corpus files (empty,
//! garbage, bad count, bad row, total mismatch, unknown format, truncated
//! gzip) are snapshotted in `tests/cli.rs`.

use crate::cli::diffprofile;
use insta_cmd::assert_cmd_snapshot;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

const NEW: &str = "testdata/readprofile/default/pipes/run1.txt";

fn m(name: &str) -> String {
    format!("testdata/malformed/{name}")
}

/// Run `cmd` with stdout/stderr captured; kill it after `limit` (then
/// `None`). Reads the pipes on threads so a chatty child cannot block.
pub fn run_with_timeout(cmd: &mut Command, limit: Duration) -> Option<Output> {
    crate::bounds::run_measured(cmd, limit).map(|(o, _)| o)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn nul_bytes_in_a_name_are_kept() {
    assert_cmd_snapshot!(diffprofile().args([
        &m("readprofile-nul-bytes.txt"),
        NEW,
        "-o",
        "json",
        "--include",
        "^__v"
    ]));
}

#[test]
fn truncated_last_line() {
    assert_cmd_snapshot!(diffprofile().args([&m("readprofile-truncated-last-line.txt"), NEW]));
}

#[test]
fn truncated_last_line_lenient() {
    assert_cmd_snapshot!(diffprofile().args([
        &m("readprofile-truncated-last-line.txt"),
        NEW,
        "--lenient",
        "-o",
        "json",
        "--top",
        "1"
    ]));
}

#[test]
fn crlf_perf_report_parses() {
    let crlf = diffprofile()
        .args([&m("perf-report-crlf.txt"), NEW, "-o", "json"])
        .output()
        .unwrap();
    let lf = diffprofile()
        .args([
            "testdata/perf-report/sym-n/sockets/run1.txt",
            NEW,
            "-o",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(crlf.status.code(), Some(0), "{}", stderr(&crlf));
    let a = String::from_utf8(crlf.stdout).unwrap().replace(
        "testdata/malformed/perf-report-crlf.txt",
        "testdata/perf-report/sym-n/sockets/run1.txt",
    );
    assert_eq!(a, String::from_utf8(lf.stdout).unwrap());
}

#[test]
fn invalid_utf8_in_a_name_is_escaped() {
    assert_cmd_snapshot!(diffprofile().args([
        &m("readprofile-invalid-utf8.txt"),
        NEW,
        "-o",
        "json",
        "--include",
        "^copy_thr"
    ]));
}

#[test]
fn negative_count() {
    assert_cmd_snapshot!(diffprofile().args([&m("readprofile-negative-count.txt"), NEW]));
}

#[test]
fn negative_count_lenient() {
    assert_cmd_snapshot!(diffprofile().args([
        &m("readprofile-negative-count.txt"),
        NEW,
        "--lenient",
        "-o",
        "csv",
        "--top",
        "1"
    ]));
}

#[test]
fn count_over_u64() {
    assert_cmd_snapshot!(diffprofile().args([&m("readprofile-count-over-u64.txt"), NEW]));
}

#[test]
fn count_over_u64_lenient() {
    assert_cmd_snapshot!(diffprofile().args([
        &m("readprofile-count-over-u64.txt"),
        NEW,
        "--lenient",
        "--top",
        "1"
    ]));
}

#[test]
fn duplicate_rows_add_up_and_warn() {
    assert_cmd_snapshot!(diffprofile().args([
        &m("readprofile-duplicate-row.txt"),
        NEW,
        "--include",
        "^__virt"
    ]));
}

#[test]
fn perf_report_header_only() {
    assert_cmd_snapshot!(diffprofile().args([&m("perf-report-header-only.txt"), NEW]));
}

#[test]
fn truncated_zstd() {
    assert_cmd_snapshot!(diffprofile().args([&m("truncated.txt.zst"), NEW]));
}

#[test]
fn tar_with_dotdot_and_absolute_members_is_read_in_place() {
    let escape = Path::new("../escape.txt");
    let absolute = Path::new("/tmp/diffprofile-absolute.txt");
    assert!(!escape.exists() && !absolute.exists(), "stale files");
    // The two members are one file: --allow-duplicates.
    assert_cmd_snapshot!(diffprofile().args([
        &m("tar-dotdot-absolute.tar"),
        NEW,
        "-o",
        "json",
        "--top",
        "1",
        "--allow-duplicates"
    ]));
    assert!(!escape.exists(), "a member was extracted outside");
    assert!(
        !absolute.exists(),
        "a member was extracted to its absolute path"
    );
}

#[test]
fn tar_symlink_and_device_members_are_skipped() {
    assert_cmd_snapshot!(diffprofile().args([&m("tar-symlink-device.tar"), NEW, "--top", "1"]));
}

#[test]
fn directory_with_no_profiles() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    std::fs::create_dir(tmp.path().join("prose")).unwrap();
    std::fs::copy(m("unknown-format.txt"), tmp.path().join("prose/notes.txt")).unwrap();
    std::fs::write(tmp.path().join("prose/.hidden"), "   153 foo 0.1\n").unwrap();
    std::fs::copy(NEW, tmp.path().join("new.txt")).unwrap();
    let new = "new.txt";
    assert_cmd_snapshot!(
        "empty_directory",
        diffprofile().current_dir(tmp.path()).args(["empty", new])
    );
    assert_cmd_snapshot!(
        "directory_of_prose",
        diffprofile().current_dir(tmp.path()).args(["prose", new])
    );
}

#[test]
fn unreadable_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::os::unix::fs::symlink("nowhere.txt", dir.join("dangling.txt")).unwrap();
    std::fs::create_dir_all(dir.join("runs")).unwrap();
    std::fs::copy(NEW, dir.join("runs/run1.txt")).unwrap();
    std::os::unix::fs::symlink("gone.txt", dir.join("runs/run2.txt")).unwrap();
    // A directory where a profile is expected, inside an archive-like name.
    std::fs::create_dir(dir.join("run3.txt.gz")).unwrap();
    std::fs::copy(NEW, dir.join("new.txt")).unwrap();
    let new = "new.txt";
    assert_cmd_snapshot!(
        "dangling_symlink",
        diffprofile().current_dir(dir).args(["dangling.txt", new])
    );
    assert_cmd_snapshot!(
        "dangling_symlink_in_a_directory",
        diffprofile().current_dir(dir).args(["runs", new])
    );
    assert_cmd_snapshot!(
        "directory_named_like_a_file",
        diffprofile().current_dir(dir).args(["run3.txt.gz", new])
    );
    assert_cmd_snapshot!(
        "missing_file",
        diffprofile().current_dir(dir).args(["missing.txt", new])
    );
}

/// Two real readprofile lines, then a 10 MB line: refused at its line
/// number, without buffering more than the 4 MiB cap.
#[test]
fn ten_megabyte_line() {
    let tmp = tempfile::tempdir().unwrap();
    let mut f = std::fs::File::create(tmp.path().join("long.txt")).unwrap();
    let real = std::fs::read_to_string(NEW).unwrap();
    for l in real.lines().take(2) {
        writeln!(f, "{l}").unwrap();
    }
    let mut long = b"     1 ".to_vec();
    long.resize(10_000_000, b'x');
    long.extend_from_slice(b" 0.0001\n");
    f.write_all(&long).unwrap();
    drop(f);
    std::fs::copy(NEW, tmp.path().join("new.txt")).unwrap();
    let new = "new.txt";
    assert_cmd_snapshot!(
        "ten_megabyte_line",
        diffprofile()
            .current_dir(tmp.path())
            .args(["long.txt", new])
    );
    assert_cmd_snapshot!(
        "ten_megabyte_line_lenient_perf_report",
        diffprofile().current_dir(tmp.path()).args([
            "-f",
            "perf-report",
            "--lenient",
            "long.txt",
            new
        ])
    );
}

/// 1 GiB of zeros as 1,024 concatenated gzip members of 1 MiB each (~1 MB
/// on disk). Detection reads at most 1 MiB of it, a forced text parser at
/// most one 4 MiB line: the process stays under 256 MB of peak RSS (its own
/// `ru_maxrss`) and errors cleanly (exit 2). (How fast: `scripts/bench-bounds.sh`.)
#[test]
fn gzip_bomb() {
    let tmp = tempfile::tempdir().unwrap();
    let zeros = vec![0u8; 1 << 20];
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&zeros).unwrap();
    let member = enc.finish().unwrap();
    let mut f = std::fs::File::create(tmp.path().join("bomb.gz")).unwrap();
    for _ in 0..1024 {
        f.write_all(&member).unwrap();
    }
    drop(f);
    std::fs::copy(NEW, tmp.path().join("new.txt")).unwrap();
    let new = "new.txt";
    for (args, want) in [
        (vec!["bomb.gz", new], "bomb.gz: not a recognised profile"),
        (
            vec!["-f", "readprofile", "bomb.gz", new],
            "bomb.gz:1: expected a line of at most 4 MiB",
        ),
        (
            vec!["-f", "perf-report", "--lenient", "bomb.gz", new],
            "bomb.gz:1: expected a line of at most 4 MiB",
        ),
    ] {
        // (The time limit only catches a hang.)
        let (out, rss) = crate::bounds::run_measured(
            diffprofile().current_dir(tmp.path()).args(&args),
            Duration::from_secs(600),
        )
        .expect("the gzip bomb hung diffprofile");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
        assert!(rss < 256 << 10, "{args:?}: peak RSS {} MiB", rss >> 10);
    }
}

/// Regression (damage test): a perf.data whose header claims a feature
/// section of 2^63 bytes (or a few TB) made linux-perf-data allocate it: a
/// capacity-overflow panic or an out-of-memory abort. Now an error naming
/// the section, checked against the file length first. The pipeline fuzz
/// target found the same with a data section size that overflows `offset +
/// size` (`crash-4be5db45…`: an add overflow in linux-perf-data).
#[test]
fn perf_data_with_a_huge_section_size_is_an_error() {
    use diffprofile::format::{self, ParseOptions};
    use diffprofile::profile::Format;
    let gz = std::fs::read("testdata/raw/sockets-run1.perf.data.gz").unwrap();
    let mut real = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut real).unwrap();
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let data_end = (u64_at(&real, 40) + u64_at(&real, 48)) as usize;
    // HEADER_EVENT_DESC (bit 12) is set in perf 6.1 files: its `nr` (u32)
    // was trusted for `Vec::with_capacity` (a 95 GB request in the damage test).
    let bits = u64_at(&real, 72);
    assert!(bits & (1 << 12) != 0);
    let k = (bits & 0xfff).count_ones() as usize;
    let desc = u64_at(&real, data_end + 16 * k) as usize;
    let mut bytes = real.clone();
    bytes[desc..desc + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = format::parse(
        Format::PerfData,
        &mut &bytes[..],
        "nr.data",
        &ParseOptions::default(),
    )
    .expect_err("an event count past the section");
    assert!(
        err.to_string().contains("event description section"),
        "{err}"
    );
    // HEADER_CMDLINE (bit 11): its string count `nr` was trusted the same
    // way (a 31 GB request, found by the parse_perf_data fuzz target).
    assert!(bits & (1 << 11) != 0);
    let k = (bits & 0x7ff).count_ones() as usize;
    let cmdline = u64_at(&real, data_end + 16 * k) as usize;
    let mut bytes = real.clone();
    bytes[cmdline..cmdline + 4].copy_from_slice(&0x7470_0000u32.to_le_bytes());
    let err = format::parse(
        Format::PerfData,
        &mut &bytes[..],
        "cmd.data",
        &ParseOptions::default(),
    )
    .expect_err("a string count past the section");
    assert!(err.to_string().contains("command line section"), "{err}");
    // attr_size 0: a division by zero in linux-perf-data (archive fuzz target).
    let mut bytes = real.clone();
    bytes[16..24].copy_from_slice(&0u64.to_le_bytes());
    let err = format::parse(
        Format::PerfData,
        &mut &bytes[..],
        "a.data",
        &ParseOptions::default(),
    )
    .expect_err("attr_size 0");
    assert!(err.to_string().contains("attr_size 0"), "{err}");
    for (at, huge) in [
        (data_end + 8, 1u64 << 63),
        (data_end + 8, 3 << 40),
        (48, u64::MAX),
        (32, 1 << 40),
    ] {
        let mut bytes = real.clone();
        bytes[at..at + 8].copy_from_slice(&huge.to_le_bytes());
        let err = format::parse(
            Format::PerfData,
            &mut &bytes[..],
            "huge.data",
            &ParseOptions::default(),
        )
        .expect_err("a section past the end of the file");
        let msg = err.to_string();
        assert!(
            msg.starts_with("huge.data: corrupt perf.data: the ") && msg.contains("past the end"),
            "{msg}"
        );
    }
}

/// Regression (parse_opreport fuzz target): two counts whose sum passes
/// 2^64 overflowed opreport's total (a panic in debug builds, a wrapped,
/// silently wrong total in release). Now an error naming the line.
#[test]
fn opreport_counts_that_overflow_the_total() {
    use diffprofile::format::{self, ParseOptions};
    use diffprofile::profile::Format;
    let text = "samples  %        image name               symbol name\n\
                10000000000000000000 50.0000 vmlinux do_schedule\n\
                10000000000000000000 50.0000 vmlinux clear_page_erms\n";
    let err = format::parse(
        Format::Opreport,
        &mut text.as_bytes(),
        "op.txt",
        &ParseOptions::default(),
    )
    .expect_err("an overflowing total");
    assert!(
        err.to_string()
            .starts_with("op.txt:3: expected sample counts that add up to less than 2^64"),
        "{err}"
    );
}

/// Regression (parse_perf_data fuzz target): a sample whose callchain length
/// is damaged so that `length * 8` passes 2^64 overflowed inside the record
/// decoder (linux-perf-event-reader). It is checked first and named.
#[test]
fn perf_data_callchain_length_that_overflows() {
    use diffprofile::format::{self, ParseOptions};
    use diffprofile::profile::Format;
    let mut bytes = crate::cli::gunzip("testdata/raw/sockets-run1-g.perf.data.gz");
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let (data, size) = (word(40) as usize, word(48) as usize);
    // The first callchain: its length is the word before the first
    // PERF_CONTEXT_KERNEL marker of the data section.
    let kernel =
        linux_perf_data::linux_perf_event_reader::constants::PERF_CONTEXT_KERNEL.to_le_bytes();
    let marker = (data..data + size)
        .step_by(8)
        .find(|&at| bytes[at..at + 8] == kernel)
        .expect("a kernel callchain");
    assert!((1..128).contains(&word(marker - 8)), "a plausible length");
    bytes[marker - 8..marker].copy_from_slice(&(1u64 << 61 | 1).to_le_bytes());
    let err = format::parse(
        Format::PerfData,
        &mut &bytes[..],
        "g.data",
        &ParseOptions::default(),
    )
    .expect_err("a damaged callchain length");
    let msg = err.to_string();
    assert!(
        msg.starts_with("g.data: record ")
            && msg.contains("corrupt perf.data: a callchain of 2305843009213693953 entries"),
        "{msg}"
    );
}

/// Regression (parse_perf_data fuzz target): a record whose type is damaged
/// into PERF_RECORD_AUXTRACE claims gigabytes of trace data after it, which
/// the decoder (linux-perf-data) allocated before reading: an abort. The
/// record framing is walked first and the claim refused.
#[test]
fn perf_data_auxtrace_that_claims_too_much() {
    use diffprofile::format::{self, ParseOptions};
    use diffprofile::profile::Format;
    let mut bytes = crate::cli::gunzip("testdata/raw/sockets-run1.perf.data.gz");
    let data = u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize;
    // The first record becomes an auxtrace record claiming 2^40 bytes.
    bytes[data..data + 4].copy_from_slice(&71u32.to_le_bytes());
    bytes[data + 8..data + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let err = format::parse(
        Format::PerfData,
        &mut &bytes[..],
        "aux.data",
        &ParseOptions::default(),
    )
    .expect_err("a damaged record");
    let msg = err.to_string();
    assert!(
        msg.starts_with("aux.data: record 1 (auxtrace) at offset ")
            && msg.contains("claims 1099511627776 bytes of trace data, past the end"),
        "{msg}"
    );
}

/// Regression (parse_perf_data fuzz target): an mmap2 record flagged as
/// carrying a build id, with a build id length over 20, hit an `assert!` in
/// the record decoder (linux-perf-event-reader): a panic. Now an error.
#[test]
fn perf_data_mmap2_build_id_too_long() {
    use diffprofile::format::{self, ParseOptions};
    use diffprofile::profile::Format;
    let mut bytes = crate::cli::gunzip("testdata/raw/sockets-run1.perf.data.gz");
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let (data, size) = (word(&bytes, 40) as usize, word(&bytes, 48) as usize);
    // The first PERF_RECORD_MMAP2 (type 10): set PERF_RECORD_MISC_MMAP_BUILD_ID
    // and a build id length of 200 (the byte after pid, tid, address, length
    // and page offset).
    let mut at = data;
    while u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) != 10 {
        at += u16::from_le_bytes(bytes[at + 6..at + 8].try_into().unwrap()) as usize;
        assert!(at < data + size, "an mmap2 record");
    }
    let misc = u16::from_le_bytes(bytes[at + 4..at + 6].try_into().unwrap()) | 1 << 14;
    bytes[at + 4..at + 6].copy_from_slice(&misc.to_le_bytes());
    bytes[at + 8 + 32] = 200;
    let err = format::parse(
        Format::PerfData,
        &mut &bytes[..],
        "mmap2.data",
        &ParseOptions::default(),
    )
    .expect_err("a damaged record");
    let msg = err.to_string();
    assert!(
        msg.starts_with("mmap2.data: record ")
            && msg.ends_with("(mmap2): corrupt perf.data: a build id of 200 bytes (at most 20)"),
        "{msg}"
    );
}

/// Regression (read_table fuzz target): a counts table whose page header
/// the Parquet decoder skipped past the end of the file one read at a
/// time (over half an hour for 7 KB). Now an error at once.
#[test]
fn parquet_page_header_past_the_end_is_an_error_at_once() {
    let (out, _) = crate::bounds::run_measured(
        diffprofile().args([
            "batch",
            "testdata/malformed/page-header-skip.parquet",
            "--baseline",
            "old",
        ]),
        Duration::from_secs(60),
    )
    .expect("a damaged page header hung diffprofile");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("runs past the end of the file"),
        "{}",
        stderr(&out)
    );
}

/// A perf.data whose attr entry claims its event ids lie past the end of
/// the file (the fuzzed file of the parse_perf_data target, and a real
/// recording with the ids size patched): linux-perf-data allocated the
/// claimed size (7 EB, an abort); now an error naming the attr.
#[test]
fn perf_data_with_attr_ids_past_the_end_is_an_error() {
    use diffprofile::format::{self, ParseOptions};
    use diffprofile::profile::Format;
    let real = crate::cli::gunzip("testdata/raw/sockets-run1.perf.data.gz");
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let (attrs, attr_size) = (u64_at(&real, 24) as usize, u64_at(&real, 16) as usize);
    let ids_size_at = attrs + attr_size - 8;
    let mut bytes = real.clone();
    bytes[ids_size_at..ids_size_at + 8].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    let fuzzed = std::fs::read("testdata/malformed/attr-ids-past-the-end.perf.data").unwrap();
    for (name, b) in [("patched.data", &bytes), ("fuzzed.data", &fuzzed)] {
        let err = format::parse(
            Format::PerfData,
            &mut &b[..],
            name,
            &ParseOptions::default(),
        )
        .expect_err("ids past the end");
        assert!(
            err.to_string().contains("event ids of the attr"),
            "{name}: {err}"
        );
    }
}
