//! Issue 24's leftovers, input side: the same recording read the same way
//! whichever file holds it (a command name that is not UTF-8, a big-endian
//! perf.data), and inputs whose fault was blamed on something else —
//! through the real binary on committed recordings (hand-made files only
//! for what no recording here can give).

use crate::cli::{gunzip, json_of, refused, run, s, stderr};
use crate::scratch::Scratch;
use std::fs;
use std::process::Output;

#[track_caller]
fn ok(o: &Output) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    e
}

/// Each run's (source, total, kept) in the JSON report of `args`.
fn kept(args: &[&str]) -> Vec<(String, f64, f64)> {
    let j = json_of(args);
    let mut out = Vec::new();
    for side in j["sides"].as_array().unwrap() {
        for r in side["runs"].as_array().unwrap() {
            out.push((
                r["source"].as_str().unwrap().to_string(),
                r["total"].as_f64().unwrap(),
                r["kept"].as_f64().unwrap(),
            ));
        }
    }
    out
}

const BAD: &str = "testdata/badcomm";

/// Two processes named with bytes that are not UTF-8 (`spin` ff fe, `spin`
/// c3): perf.data gave them U+FFFD, perf script text `\xNN`, so one
/// `--comm` kept different samples of one recording by the file it came
/// from (`spin..` only perf.data's, `spin\xff\xfe` only the text's). Both
/// now show the bytes as `\xNN` and keep the same samples, and a
/// non-UTF-8 `--comm` argument names the same process.
#[test]
fn a_command_name_that_is_not_utf8_is_one_name_in_every_reader() {
    let data = format!("{BAD}/run.perf.data.gz");
    let text = format!("{BAD}/run.script.txt");
    let k = format!("{BAD}/kallsyms.gz");
    for (comm, want) in [
        ("spin\\xff\\xfe", 70.0),
        ("spin\\xc3", 73.0),
        ("spin.*", 143.0),
    ] {
        let got = kept(&["--kallsyms", &k, "--comm", comm, &data, &text]);
        assert_eq!(got.len(), 2);
        for (src, total, kept) in &got {
            assert_eq!((*total, *kept), (143.0, want), "{src} --comm {comm}");
        }
    }
    // `spin..` matched perf.data's two U+FFFD; as `\xff\xfe` it is 8 characters.
    refused(
        &run(&["--kallsyms", &k, "--comm", "spin..", &data, &text]),
        "--comm",
    );
    // The argument's own bytes (what `--comm $'spin\xff\xfe'` passes).
    use std::os::unix::ffi::OsStrExt;
    let raw = std::ffi::OsStr::from_bytes(b"spin\xff\xfe");
    let o = crate::cli::diffprofile()
        .args(["--kallsyms", &k, "-o", "json", "--comm"])
        .arg(raw)
        .args([&data, &text])
        .output()
        .unwrap();
    ok(&o);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for side in j["sides"].as_array().unwrap() {
        assert_eq!(side["runs"][0]["kept"], 70.0, "{side}");
    }
}

const BE: &str = "testdata/bigendian";

/// A big-endian perf.data (the twin of a little-endian recording that lost
/// most of its samples, every field swapped as a big-endian perf writes
/// it): PERF_RECORD_LOST_SAMPLES was read little-endian (5 lost samples
/// read as 360287970189639680); it now gives the twin's count, and the two
/// files the same rows.
#[test]
fn a_big_endian_perf_data_reads_as_its_little_endian_twin() {
    let k = format!("{BE}/kallsyms.gz");
    let (le, be) = (
        format!("{BE}/le.perf.data.gz"),
        format!("{BE}/be.perf.data.gz"),
    );
    assert_eq!(&gunzip(&be)[..8], b"2ELIFREP");
    let lost = "perf lost 52780 event(s) (PERF_RECORD_LOST) and 59308 sample(s) \
                (PERF_RECORD_LOST_SAMPLES) while recording, against 5191 sample(s) kept";
    let mut csv = Vec::new();
    for f in [&le, &be] {
        let o = run(&["--kallsyms", &k, f, f, "-o", "csv"]);
        let e = ok(&o);
        assert!(e.contains(lost), "{f}: {e}");
        csv.push(o.stdout);
    }
    assert_eq!(csv[0], csv[1]);
    let e = ok(&run(&["--kallsyms", &k, &le, &be, "-o", "csv"]));
    assert!(e.contains("hold the same counts"), "{e}");
}

/// A /proc/profile image cut short (a copy that stopped at 1 MiB, or
/// inside a counter) was "profile address out of range … wrong map file?":
/// the map was blamed. The image is now said to be cut, with the size the
/// map's kernel text makes and the size there.
#[test]
fn a_cut_proc_profile_image_is_said_cut() {
    let d = Scratch::new("diffprofile-sweep4a", "cut-image");
    let img = gunzip("testdata/raw/sockets-run1.proc-profile.gz");
    let map = "testdata/raw/System.map.gz";
    for len in [1 << 20, (1 << 20) + 2] {
        let cut = d.join(format!("cut-{len}.img"));
        fs::write(&cut, &img[..len]).unwrap();
        let o = run(&[
            "--map",
            map,
            s(&cut),
            "testdata/raw/pipes-run1.proc-profile.gz",
        ]);
        refused(
            &o,
            &format!(
                "{}: the image is cut short: it is {len} bytes, and the kernel text of the \
                 symbol map {map} (_stext 0xffffffff81000000 .. _etext 0xffffffff82209988, \
                 step 4) makes 4728418 counters, an image of {} bytes",
                s(&cut),
                img.len()
            ),
        );
        assert!(!stderr(&o).contains("out of range"), "{}", stderr(&o));
    }
}

/// An lz4-compressed or UTF-16 symbol map was "expected a symbol map line
/// … found \"\u{4}\"M\u{18}…\"" (only profiles were named for what they
/// are): a map says it too, with what to run.
#[test]
fn an_lz4_or_utf16_map_is_named_as_such() {
    let d = Scratch::new("diffprofile-sweep4a", "maps");
    let text = String::from_utf8(gunzip("testdata/raw/System.map.gz")).unwrap();
    let utf16 = d.join("System.map");
    let mut bytes = vec![0xff, 0xfe];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    fs::write(&utf16, bytes).unwrap();
    let lz4 = "testdata/malformed/readprofile.txt.lz4";
    let (a, b) = (
        "testdata/raw/sockets-run1.proc-profile.gz",
        "testdata/raw/pipes-run1.proc-profile.gz",
    );
    refused(
        &run(&["--map", lz4, a, b]),
        &format!("{lz4}: an lz4-compressed file, which diffprofile does not decompress"),
    );
    let o = run(&["--map", s(&utf16), a, b]);
    refused(
        &o,
        &format!(
            "{}: UTF-16LE text, which diffprofile does not read",
            s(&utf16)
        ),
    );
    assert!(
        stderr(&o).contains("iconv -f UTF-16LE -t UTF-8"),
        "{}",
        stderr(&o)
    );
    // Beside a perf.data run, as its kallsyms.
    let side = d.join("side");
    fs::create_dir(&side).unwrap();
    fs::copy(&utf16, side.join("kallsyms")).unwrap();
    fs::write(
        side.join("run1.perf.data"),
        gunzip("testdata/raw/sockets-run1.perf.data.gz"),
    )
    .unwrap();
    let o = run(&[s(&side), s(&side)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("UTF-16LE text"), "{}", stderr(&o));
}

/// Two `perf script` outputs in one file (`cat a.txt b.txt`) were read as
/// one run of both runs' samples. A second header block after samples
/// (`perf script --header`) is refused naming its line; time stepping back
/// by more than a second (the second output recorded first) is a warning
/// naming the line. (A second output recorded later, without a header,
/// only steps forward in time: not seen.)
#[test]
fn perf_script_outputs_concatenated_are_said() {
    let d = Scratch::new("diffprofile-sweep4a", "concat");
    let (h1, h2) = (
        fs::read("testdata/script-header/run1.txt").unwrap(),
        fs::read("testdata/script-header/run2.txt").unwrap(),
    );
    let both = d.join("both.txt");
    fs::write(&both, [&h1[..], &h2[..]].concat()).unwrap();
    let line = h1.iter().filter(|&&c| c == b'\n').count() + 1;
    let one = "testdata/script-header/run1.txt";
    refused(
        &run(&[s(&both), one]),
        &format!(
            "{}:{line}: expected one perf script output: a second header block starts here, \
             after samples (two outputs concatenated, `cat a.txt b.txt`? give each run its \
             own file), found \"# ========\"",
            s(&both)
        ),
    );
    // Each alone is read, its header block passed over.
    ok(&run(&[one, "testdata/script-header/run2.txt"]));
    let (pipes, sockets) = (
        gunzip("testdata/perf-script/pipes.txt.gz"),
        gunzip("testdata/perf-script/sockets.txt.gz"),
    );
    let cat = d.join("cat.txt");
    fs::write(&cat, [&pipes[..], &sockets[..]].concat()).unwrap();
    let line = pipes.iter().filter(|&&c| c == b'\n').count() + 1;
    for jobs in ["1", "2"] {
        let e = ok(&run(&["-j", jobs, s(&cat), s(&cat), "-o", "csv"]));
        assert!(
            e.contains(&format!("line {line}: time goes back "))
                && e.contains("as if two perf script outputs were concatenated"),
            "{e}"
        );
    }
    // One output alone: no such warning.
    let e = ok(&run(&[
        "testdata/perf-script/pipes.txt.gz",
        "testdata/perf-script/sockets.txt.gz",
        "-o",
        "csv",
    ]));
    assert!(!e.contains("time goes back"), "{e}");
}

/// A `perf report --percent-limit 1` run lists no row under 1%: a symbol
/// of the other side that it lacks was marked new (or gone) as if absent.
/// One warning per such run says how many rows that is, naming the first,
/// and that their share there is unknown, 0 to the smallest listed.
#[test]
fn percent_limit_rows_are_unknown_not_gone() {
    let limited = "testdata/perf-report/variants/sockets-percent-limit-1.txt";
    let full = "testdata/perf-report/sym-n/pipes/run1.txt";
    let wide = |e: &str| e.split_whitespace().collect::<Vec<_>>().join(" ");
    let e = wide(&ok(&run(&[limited, full, "-o", "csv"])));
    assert!(
        e.contains(&format!(
            "{limited}: it lists rows down to 1.01% only (perf report --percent-limit): 161 \
             row(s) marked new ([unknown], mutex_unlock, _copy_from_iter and 158 more) may be \
             under 1.01% there, not absent: their share in it is unknown (0 to 1.01%)"
        )),
        "{e}"
    );
    let e = wide(&ok(&run(&[full, limited, "-o", "csv"])));
    assert!(e.contains("row(s) marked gone ("), "{e}");
    let e = ok(&run(&[
        full,
        "testdata/perf-report/sym-n/sockets/run1.txt",
        "-o",
        "csv",
    ]));
    assert!(!e.contains("--percent-limit"), "{e}");
}

/// readprofile prints its load `%8.4f` and `-v` addresses `%016llx` (util-
/// linux 2.13 on; `%08lx` before, and on 32-bit kernels): a dump whose
/// loads have one decimal (edited, or another build's) or whose addresses
/// have 8 digits was "not a recognised profile … use -f". Both are
/// detected and give the counts of the dump they were made from.
#[test]
fn readprofile_dumps_of_other_widths_are_detected() {
    let d = Scratch::new("diffprofile-sweep4a", "widths");
    let src = "testdata/readprofile/default/sockets/run1.txt";
    let text = fs::read_to_string(src).unwrap();
    let mut one = String::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f[..] {
            [n, name, load] => {
                let load: f64 = load.parse().unwrap();
                one.push_str(&format!("{n:>6} {name:<40} {load:8.1}\n"));
            }
            _ => one.push_str(&format!("{l}\n")),
        }
    }
    let short = d.join("one-decimal.txt");
    fs::write(&short, one).unwrap();
    let vsrc = "testdata/readprofile/verbose/sockets/run1.txt";
    let v: String = fs::read_to_string(vsrc)
        .unwrap()
        .lines()
        .map(|l| {
            match l
                .get(..16)
                .filter(|a| a.bytes().all(|c| c.is_ascii_hexdigit()))
            {
                // A 32-bit kernel's addresses (`%08lx`).
                Some(a) => format!("{}{}\n", &a[8..], &l[16..]),
                None => format!("{l}\n"),
            }
        })
        .collect();
    let v8 = d.join("verbose-08lx.txt");
    fs::write(&v8, v).unwrap();
    for f in [&short, &v8] {
        let e = ok(&run(&[s(f), src, "-o", "csv"]));
        assert!(e.contains("hold the same counts"), "{}: {e}", s(f));
    }
}

/// Two maps beside a run (a System.map and a kallsyms) were chosen between
/// by name without a word: the header now says which one was used, over
/// which, and why; when their kernel texts differ they are two kernels'
/// maps, and the run is refused naming both.
#[test]
fn two_maps_beside_a_run_are_said_or_refused() {
    let d = Scratch::new("diffprofile-sweep4a", "two-maps");
    let side = d.join("side");
    fs::create_dir(&side).unwrap();
    fs::write(
        side.join("run1.img"),
        gunzip("testdata/raw/sockets-run1.proc-profile.gz"),
    )
    .unwrap();
    let map = gunzip("testdata/raw/System.map.gz");
    fs::write(side.join("System.map"), &map).unwrap();
    fs::write(side.join("kallsyms"), &map).unwrap();
    let o = run(&["-f", "proc-profile", s(&side), s(&side)]);
    let out = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    ok(&o);
    let (sm, ks) = (side.join("System.map"), side.join("kallsyms"));
    assert!(
        out.contains(
            "System.map (beside the run, chosen over kallsyms: readprofile's order: \
             System.map, System.map*, kallsyms, kallsyms*, and kallsyms agrees on the kernel \
             text)"
        ),
        "{out}"
    );
    fs::write(&ks, gunzip("testdata/other-kernel/System.map.gz")).unwrap();
    refused(
        &run(&["-f", "proc-profile", s(&side), s(&side)]),
        &format!(
            "the symbol maps beside it disagree: {} gives 18913672 bytes of kernel text \
             (_stext .. _etext), {} 18922248: maps of two kernels",
            s(&sm),
            s(&ks)
        ),
    );
}

/// A recording without build-ids (`perf record --no-buildid`) of a binary
/// replaced since: its rows were named from the new file without a word.
/// The MMAP2 records give the mapped file's device and inode: another
/// inode there now is said, and its samples are not named from the wrong
/// file. (The committed recording's libc, its inode changed by hand to
/// stand for a replaced one; this machine's libc is the recorded one.)
#[test]
fn a_binary_replaced_since_a_recording_without_build_ids_is_said() {
    let d = Scratch::new("diffprofile-sweep4a", "replaced");
    let mut bytes = gunzip("testdata/perfdata/nobid.perf.data.gz");
    let libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
    let ino = std::fs::metadata(libc).map(|m| std::os::unix::fs::MetadataExt::ino(&m));
    if ino.ok() != Some(326279) {
        eprintln!("skipped: {libc} is not the recorded file here");
        return;
    }
    let mut from = 254u32.to_le_bytes().to_vec();
    from.extend(0u32.to_le_bytes());
    from.extend(326279u64.to_le_bytes());
    let mut to = from.clone();
    to[8..].copy_from_slice(&326278u64.to_le_bytes());
    let mut n = 0;
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if bytes[i..i + from.len()] == from[..] {
            bytes[i..i + from.len()].copy_from_slice(&to);
            n += 1;
        }
        i += 1;
    }
    assert!(n > 0);
    let patched = d.join("replaced.perf.data");
    fs::write(&patched, bytes).unwrap();
    let k = "testdata/perfdata/kallsyms.gz";
    let orig = "testdata/perfdata/nobid.perf.data.gz";
    let wide = |e: &str| e.split_whitespace().collect::<Vec<_>>().join(" ");
    let e = wide(&ok(&run(&[
        "--kallsyms",
        k,
        "--wide",
        s(&patched),
        orig,
        "-o",
        "csv",
    ])));
    assert!(
        e.contains(&format!(
            "{libc}: no build-id recorded for it, and the file there now is not the one mapped \
             (inode 326278 on device 254:0 when recorded, 326279 now): it was replaced since \
             the recording"
        )),
        "{e}"
    );
    let e = ok(&run(&["--kallsyms", k, "--wide", orig, orig, "-o", "csv"]));
    assert!(!e.contains("replaced since"), "{e}");
}
