//! The outside tester's fourth round, third share: layouts of perf script
//! and perf report of a `-g` recording, slices of a `--switch-output`
//! recording, history's exit status, gzip layers, filters that remove
//! everything, colour, perf report options that are not read, batch
//! index widths and side-band lines, through the real binary on the
//! committed recordings (testdata/sweep4c, scripts/record-sweep4c.sh).

use crate::cli::{refused, run, stderr};

const D: &str = "testdata/sweep4c";

fn file(name: &str) -> String {
    format!("{D}/{name}.txt.gz")
}

/// The JSON report of `name` against itself, and the stderr of the run.
fn report(name: &str) -> (serde_json::Value, String) {
    let f = file(name);
    let o = run(&[&f, &f, "-o", "json"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{name}: {e}");
    (serde_json::from_slice(&o.stdout).unwrap(), e)
}

/// The count of each symbol name (summed over dsos and commands) of the
/// OLD run.
fn counts(v: &serde_json::Value) -> Vec<(String, f64)> {
    let mut by: std::collections::BTreeMap<String, f64> = Default::default();
    for r in v["rows"].as_array().unwrap() {
        let name = r["symbol"].as_str().unwrap().to_string();
        *by.entry(name).or_default() += r["old_counts"][0].as_f64().unwrap_or(f64::NAN);
    }
    by.into_iter().collect()
}

/// Every `-F` layout of perf script of the `-g` recording reads its 1147
/// samples, as perf report and the default layout do, the one sample
/// whose callchain perf could not unwind counted as `[unknown]` and
/// warned about; they were refused at that sample (a header closed by a
/// blank line, or a header ending with the period), or lost it (an empty
/// header line and a blank line in `-F ip,sym`).
#[test]
fn perf_script_layouts_of_a_g_recording_count_empty_callchains() {
    let (default, e) = report("default");
    assert_eq!(default["sides"][0]["runs"][0]["total"], 1147.0);
    assert!(
        e.contains("samples without a frame (empty callchain)"),
        "{e}"
    );
    for name in [
        "ip-sym-dso",
        "ip-sym",
        "comm-tid-ip-sym",
        "comm-ip-sym-dso",
        "time-ip-sym-dso",
        "period-no-event",
    ] {
        let (v, e) = report(name);
        assert_eq!(v["sides"][0]["runs"][0]["total"], 1147.0, "{name}: {e}");
        // (Said once for both sides: `N samples …, (1 each)`.)
        assert!(
            e.contains("samples without a frame (empty callchain), counted as [unknown]")
                && e.contains("(1 each)"),
            "{name}: {e}"
        );
        if name.contains("dso") {
            assert_eq!(counts(&v), counts(&default), "{name}");
        }
    }
}

/// perf report `-F` layouts whose first column is a count or a name,
/// printed with the call graph under each row (`--children` or not), read
/// as the `-g none` report: the graph lines are skipped as under an
/// Overhead column, where they were refused as rows.
#[test]
fn perf_report_fields_with_the_call_graph_are_read() {
    let (none, _) = report("rep-none");
    assert_eq!(none["sides"][0]["runs"][0]["total"], 1147.0);
    for name in [
        "rep-sample-sym",
        "rep-period-sym",
        "rep-sample-overhead-sym",
        "rep-sample-comm-dso-sym",
        "rep-sym-overhead-sample",
        "rep-children-sample-sym",
    ] {
        let (v, e) = report(name);
        if name == "rep-period-sym" {
            // Periods of 1001001 (cpu-clock at 999 Hz).
            assert_eq!(v["sides"][0]["runs"][0]["total"], 1_148_148_147.0, "{e}");
            continue;
        }
        assert_eq!(v["sides"][0]["runs"][0]["total"], 1147.0, "{name}: {e}");
        assert_eq!(counts(&v), counts(&none), "{name}");
    }
}

/// The four slices `perf record --switch-output=1s` wrote of one run are
/// refused as replicates, naming the command; they were pooled as four
/// runs and their differences learned as noise.
#[test]
fn switch_output_slices_are_not_replicates() {
    let dir = format!("{D}/switch-output");
    let o = run(&[&dir, &dir, "--top", "1"]);
    refused(&o, "4 runs (");
    refused(
        &o,
        "are slices of one recording, `/usr/bin/perf record -q --switch-output=1s",
    );
    refused(
        &o,
        "record each run without --switch-output, one perf.data per run",
    );
    // One slice alone is one run (of a part of the recording): read.
    let one = format!("{dir}/p.data.2026120418351748.gz");
    let o = run(&[&one, &one, "--top", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `history` of a tree whose every benchmark is skipped (here refused:
/// each kernel's two runs are one recording given twice) exits 2 saying
/// so, as batch does of the same tree; it exited 0. Its text keeps to 80
/// columns: the refusal was one line of several hundred.
#[test]
fn history_with_every_benchmark_skipped_exits_2() {
    use std::fs;
    let d = crate::scratch::Scratch::new("diffprofile-sweep4c", "history");
    let rp = "testdata/readprofile/default";
    for (k, from) in [("v1", "pipes"), ("v2", "sockets")] {
        let b = d.join(k).join("bench");
        fs::create_dir_all(&b).unwrap();
        for r in 1..=2 {
            fs::copy(
                format!("{rp}/{from}/run1.txt"),
                b.join(format!("run{r}.txt")),
            )
            .unwrap();
        }
    }
    let root = d.to_str().unwrap();
    let o = run(&["history", root]);
    refused(&o, "nothing analysed: every benchmark (1) was skipped");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("benchmark bench: skipped: refused:"),
        "{text}"
    );
    for l in text.lines() {
        assert!(l.chars().count() <= 80, "{l}");
    }
    // One benchmark analysed among the skipped: exit 0, as before.
    let c = d.join("v1").join("other");
    fs::create_dir_all(&c).unwrap();
    fs::copy(format!("{rp}/pipes/run1.txt"), c.join("run1.txt")).unwrap();
    let c = d.join("v2").join("other");
    fs::create_dir_all(&c).unwrap();
    fs::copy(format!("{rp}/sockets/run1.txt"), c.join("run1.txt")).unwrap();
    let o = run(&["history", root]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The report on a terminal (a pseudo-terminal here) with the
/// environment `env`: (its output, whether it holds a colour escape).
fn on_a_terminal(env: &[(&str, &str)]) -> (String, bool) {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes the two descriptors; no name, termios or size.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty");
    // SAFETY: both descriptors were just opened and are owned here.
    let (mut m, s) = unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    let mut c = crate::cli::diffprofile();
    c.args([
        "testdata/perf-report/sym-n/pipes",
        "testdata/perf-report/sym-n/threads",
        "--top",
        "8",
    ])
    .stdout(s)
    .env_remove("TERM");
    for (k, v) in env {
        c.env(k, v);
    }
    let status = c.status().unwrap();
    drop(c);
    assert!(status.success());
    let mut out = Vec::new();
    let mut buf = [0u8; 65536];
    // The child has exited and the slave is closed: read to EIO.
    while let Ok(n) = m.read(&mut buf) {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    let colour = text.contains("\x1b[");
    (text, colour)
}

/// `TERM=dumb` (a terminal that shows escapes as text) and `NO_COLOR` mean
/// no colour on a terminal; `TERM=dumb` had colour.
#[test]
fn term_dumb_means_no_colour() {
    let (text, colour) = on_a_terminal(&[("TERM", "xterm")]);
    assert!(colour, "{text}");
    for env in [[("TERM", "dumb")], [("NO_COLOR", "1")]] {
        let (text, colour) = on_a_terminal(&env);
        assert!(!colour, "{env:?}: {text:?}");
        assert!(text.contains("OLD "), "{text}");
    }
}

/// `--exclude ''` (an empty pattern matches every name) and any symbol
/// filter that leaves no side a symbol is refused, as a `--comm` that
/// matches no sample is, showing the empty pattern; it printed an empty
/// table and exited 0.
#[test]
fn symbol_filters_that_leave_nothing_are_refused() {
    let (old, new) = (
        "testdata/readprofile/default/sockets",
        "testdata/readprofile/default/pipes",
    );
    for (flag, re, said) in [
        (
            "--exclude",
            "",
            "symbol filter --exclude '' removes every symbol of OLD, NEW",
        ),
        (
            "--exclude",
            ".*",
            "symbol filter --exclude .* removes every symbol of OLD, NEW",
        ),
        (
            "--include",
            "^nosuch$",
            "symbol filter --include ^nosuch$ matches no symbol of OLD, NEW",
        ),
    ] {
        let o = run(&[old, new, flag, re]);
        refused(&o, said);
        refused(&o, "nothing is left to compare");
    }
}

/// perf report output of `-t ,`, `--hierarchy` and `-q` is refused naming
/// the option to drop (they said only what was missing; `-q` was not
/// even recognised as perf report).
#[test]
fn perf_report_options_not_read_are_named() {
    for (name, said) in [
        ("rep-t", "perf report -t/--field-separator output, which diffprofile does not read: re-run perf report without -t"),
        ("rep-hier", "a --hierarchy report (columns: Overhead       Samples, Shared Object / Symbol), which diffprofile does not read: re-run perf report without --hierarchy"),
        ("rep-q", "perf report -q output (no title lines), which diffprofile does not read: re-run perf report without -q"),
    ] {
        let f = file(name);
        let o = run(&[&f, &f]);
        refused(&o, said);
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// A gzip of a gzip is named so (it was "not a recognised profile");
/// garbage after a gzip member is read past with a warning naming the
/// file, as `gzip -d` does (it was "truncated gzip stream"); zeros after
/// it (a tape's padding) are accepted (they were "corrupt gzip stream").
#[test]
fn gzip_layers_garbage_and_padding() {
    let d = crate::scratch::Scratch::new("diffprofile-sweep4c", "gzip");
    let rp = "testdata/readprofile/default";
    let text = std::fs::read(format!("{rp}/pipes/run1.txt")).unwrap();
    let other = format!("{rp}/sockets/run1.txt");
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let twice = write("rr.gz", &gzip(&gzip(&text)));
    refused(
        &run(&[&twice, &other]),
        "rr.gz: cannot read: still compressed after one layer: gzip inside gzip",
    );
    let mut garbage = gzip(&text);
    garbage.extend_from_slice(b"this is not gzip\n");
    let trail = write("trail.gz", &garbage);
    let o = run(&[&trail, &other, "-o", "csv"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains("trail.gz: 17 bytes of trailing garbage after the gzip data, ignored"),
        "{e}"
    );
    let plain = run(&[&format!("{rp}/pipes/run1.txt"), &other, "-o", "csv"]);
    assert_eq!(o.stdout, plain.stdout);
    let mut padded = gzip(&text);
    padded.extend_from_slice(&[0; 100]);
    let zpad = write("zpad.gz", &padded);
    let o = run(&[&zpad, &other, "-o", "csv"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(!e.contains("garbage"), "{e}");
    assert_eq!(o.stdout, plain.stdout);
    // Two members, as `cat a.gz b.gz` makes: one stream, as before.
    let half = text.len() / 2;
    let cut = text[..half].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let mut two = gzip(&text[..cut]);
    two.extend_from_slice(&gzip(&text[cut..]));
    let o = run(&[&write("two.gz", &two), &other, "-o", "csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(o.stdout, plain.stdout);
}

/// `perf script --show-namespace-events`: the side-band lines and their
/// tab-indented continuations are skipped and counted, the samples read
/// as without the option; the continuation was refused as a callchain
/// frame without a sample.
#[test]
fn side_band_continuation_lines_are_skipped() {
    let f = file("namespaces");
    let o = run(&[&f, &f, "-o", "json"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sides"][0]["runs"][0]["total"], 3829.0, "{e}");
    assert!(
        e.contains("skipped 15 non-sample lines (PERF_RECORD_*"),
        "{e}"
    );
}

/// batch's text index keeps to 80 columns, names cut as the comparison
/// tables cut them (two names alike in their middle still told apart);
/// its markdown headings too (the index heading held its whole title).
#[test]
fn batch_index_within_80_columns() {
    let tree = "testdata/history/tree";
    let o = run(&["batch", tree, "--baseline", "v6.8"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let index = &text[text.find("=== index:").expect("an index")..];
    for l in index.lines() {
        assert!(
            l.chars().count() <= 80,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    assert!(index.contains("__GI___pthread_disa"), "{index}");
    assert!(index.contains("__GI___pthread_enab"), "{index}");
    let o = run(&["batch", tree, "--baseline", "v6.8", "-o", "markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.contains("## Index\n"), "{md}");
    for l in md.lines().filter(|l| l.starts_with('#')) {
        assert!(l.chars().count() <= 80, "{l}");
    }
}

/// A callchain with a context marker perf does not know (0x…fe98; perf
/// writes 0x…fe00 before user frames, 0x…ff80 before kernel ones), as
/// one sample of the `-g` recording has: perf drops the chain, and so
/// does `--inclusive` now, saying so; it read the frames past the marker
/// without a word, one sample more than `perf report --children` for
/// each (entry_SYSCALL_64_after_hwframe 150 where perf says 12.99% of
/// 1147, i.e. 149; __GI___fstatat64 7 where perf says 0.52%, i.e. 6).
#[test]
fn an_invalid_callchain_context_drops_the_chain_as_perf_does() {
    let f = format!("{D}/run1.perf.data.gz");
    let ks = format!("{D}/kallsyms.gz");
    let o = run(&[&f, &f, "--kallsyms", &ks, "--inclusive", "-o", "json"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains(
            "samples with an invalid callchain context marker (the first \
             0xfffffffffffffe98): their callchains were dropped, as perf drops them"
        ) && e.contains("(1 each)"),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sides"][0]["runs"][0]["total"], 1147.0);
    let c = counts(&v);
    let of = |name: &str| c.iter().find(|(n, _)| n == name).map(|(_, c)| *c);
    assert_eq!(of("entry_SYSCALL_64_after_hwframe"), Some(149.0));
    assert_eq!(of("__GI___fstatat64"), Some(6.0));
    assert_eq!(of("do_syscall_64"), Some(150.0));
}
