//! The perf script variants of testdata/perf-script/{fields,layouts,jit}/
//! (recorded by scripts/record-text-variants.sh): extra `-F` fields,
//! layouts without time or event, a JIT's perf-PID.map and a memfd dso
//! that perf marks `(deleted)`. Each variant of one recording must give
//! the counts of its plain print.

use super::*;
use crate::format::Sniff;
use crate::profile::Mode;
use std::collections::BTreeMap;

fn read(path: &str) -> Vec<u8> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&data[..]), &mut text).unwrap();
    text
}

fn profile(path: &str, opts: &ParseOptions) -> Result<Profile, ParseError> {
    parse(&mut &read(path)[..], path, opts)
}

fn ok(path: &str) -> Profile {
    profile(path, &ParseOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Counts by (name, dso, mode) as text.
type Counts = BTreeMap<(String, Option<String>, Option<Mode>), f64>;

fn counts(p: &Profile, with_dso: bool) -> Counts {
    let mut out = Counts::new();
    for (k, v) in &p.counts {
        let dso = k.dso.filter(|_| with_dso).map(|d| d.to_string());
        *out.entry((k.name.to_string(), dso, k.mode)).or_insert(0.0) += v;
    }
    out
}

const FIELDS: &str = "testdata/perf-script/fields";
const LAYOUTS: &str = "testdata/perf-script/layouts";

#[test]
fn extra_fields_give_the_counts_of_the_plain_print() {
    for (base, variants) in [
        (
            "base",
            &["insn", "insnlen", "srcline", "misc", "flags", "callindent"][..],
        ),
        ("base-g", &["insn-g", "insnlen-g", "srcline-g"][..]),
    ] {
        let want = ok(&format!("{FIELDS}/{base}.txt.gz"));
        assert!(want.total > 50.0, "{base}: {}", want.total);
        for v in variants {
            let path = format!("{FIELDS}/{v}.txt.gz");
            assert_eq!(sniff(&read(&path), true), Sniff::Yes, "{path}");
            let got = ok(&path);
            assert_eq!(got.total, want.total, "{path}");
            assert_eq!(counts(&got, true), counts(&want, true), "{path}");
            assert!(got.warnings.is_empty(), "{path}: {:?}", got.warnings);
        }
    }
}

#[test]
fn fields_after_the_dso_are_dropped_or_refused() {
    fn f(t: &str) -> line::Parsed<'_> {
        line::parse_frame(t.as_bytes())
    }
    // perf 6.1, -F ...,insnlen / insn / ipc / brstack on one line
    let want = line::Frame {
        sym: b"_dl_relocate_object",
        dso: Some(b"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"),
        kernel_ip: false,
    };
    for t in [
        "7f582bf093aa _dl_relocate_object (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) ilen: 2",
        "7f582bf093aa _dl_relocate_object (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) insn: 89 c7",
        "7f582bf093aa _dl_relocate_object+0x78a (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) ilen: 2 insn: 89 c7",
        "7f582bf093aa _dl_relocate_object (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)  IPC: 1.25 (5/4) ",
        "7f582bf093aa _dl_relocate_object (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) 0x7f582bf093aa/0x7f582bf09390/P/-/-/7  0x7f582bf09300/0x7f582bf093a0/M/-/-/12 ",
        "7f582bf093aa _dl_relocate_object (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) ABI:2    AX:0x1f    BX:0x0",
    ] {
        assert_eq!(f(t), line::Parsed::Frame(want), "{t}");
    }
    // An unknown field after the dso names what to drop.
    assert_eq!(
        f("ffffffff816aae4a mod_memcg_lruvec_state ([kernel.kallsyms]) 4K"),
        line::Parsed::Trailing(b"4K")
    );
    // An address alone: no sym field.
    assert_eq!(f("ffffffff816aae4a"), line::Parsed::NoSymbol);
    // Symbols with parentheses, spaces and `insn`-like words stay whole.
    let x = f("4005d0 std::function<void (int)>::operator()(int) const (/tmp/a.out)");
    let line::Parsed::Frame(x) = x else {
        panic!("{x:?}")
    };
    assert_eq!(x.sym, b"std::function<void (int)>::operator()(int) const");
    let x = f("4005d0 insn_decode (/tmp/a.out)");
    let line::Parsed::Frame(x) = x else {
        panic!("{x:?}")
    };
    assert_eq!(x.sym, b"insn_decode");

    // The whole file: an error naming the field, at its line.
    let text = "            perf  8971   433.246684: cpu-clock:  ffffffff816aae4a mod_memcg_lruvec_state ([kernel.kallsyms]) 4K\n";
    let e = parse(&mut text.as_bytes(), "t.txt", &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.txt:1: expected nothing after a frame's `(DSO)`")
            && e.ends_with("found \"4K\""),
        "{e}"
    );
}

#[test]
fn srcline_and_field_lines_are_no_block_boundary() {
    // Blocks of a few hundred bytes cut everywhere the boundary allows.
    for v in ["srcline", "srcline-g", "insn-g", "insnlen-g"] {
        let path = format!("{FIELDS}/{v}.txt.gz");
        let text = read(&path);
        let whole = ok(&path);
        let small = parse_with_block_size(&mut &text[..], &path, &ParseOptions::default(), 300)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(counts(&small, true), counts(&whole, true), "{path}");
        assert_eq!(small.total, whole.total, "{path}");
    }
}

#[test]
fn layouts_without_time_or_event_give_the_same_counts() {
    for (suffix, base) in [("", "base"), ("-g", "base-g")] {
        let want = ok(&format!("{FIELDS}/{base}.txt.gz"));
        for (layout, has_dso) in [
            ("comm_tid_ip_sym_dso", true),
            ("ip_sym_dso", true),
            ("time_event_ip_sym_dso", true),
            ("comm_ip_sym", false),
            ("ip_sym", false),
        ] {
            let path = format!("{LAYOUTS}/{layout}{suffix}.txt.gz");
            let text = read(&path);
            assert_eq!(sniff(&text, true), Sniff::Yes, "{path}");
            let got = ok(&path);
            assert_eq!(got.total, want.total, "{path}");
            // Without a dso field, the mode comes from the address alone.
            let strip = |c: Counts| -> BTreeMap<String, f64> {
                let mut m = BTreeMap::new();
                for ((n, _, _), v) in c {
                    *m.entry(n).or_insert(0.0) += v;
                }
                m
            };
            if has_dso {
                assert_eq!(counts(&got, true), counts(&want, true), "{path}");
            } else {
                assert_eq!(
                    strip(counts(&got, false)),
                    strip(counts(&want, false)),
                    "{path}"
                );
            }
            let tiny = parse_with_block_size(&mut &text[..], &path, &ParseOptions::default(), 200)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(tiny.counts, got.counts, "{path}: blocks of 200 bytes");
        }
    }
}

#[test]
fn an_address_without_a_symbol_is_refused_naming_the_field() {
    for path in [
        format!("{LAYOUTS}/ip.txt.gz"),
        format!("{LAYOUTS}/ip-g.txt.gz"),
    ] {
        assert_eq!(sniff(&read(&path), true), Sniff::Yes, "{path}");
        let e = profile(&path, &ParseOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("re-run perf script with the sym field"), "{e}");
    }
}

#[test]
fn a_sample_without_the_event_among_samples_with_one_is_an_error() {
    let text = "            perf  8971   433.246684: cpu-clock:  ffffffff816aae4a mod_memcg_lruvec_state ([kernel.kallsyms])
            perf  8971  ffffffff816aae4a mod_memcg_lruvec_state ([kernel.kallsyms])
";
    let e = parse(&mut text.as_bytes(), "t.txt", &event("cpu-clock"))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.txt:2: expected a perf script sample line with the event field"),
        "{e}"
    );
}

fn event(name: &str) -> ParseOptions {
    ParseOptions {
        event: Some(name.into()),
        ..ParseOptions::default()
    }
}

#[test]
fn a_deleted_memfd_is_one_dso_and_a_jit_map_one_name_across_runs() {
    let runs: Vec<Profile> = ["run1", "run2"]
        .iter()
        .map(|r| ok(&format!("testdata/perf-script/jit/{r}.txt.gz")))
        .collect();
    for p in &runs {
        let dsos: Vec<String> = p
            .counts
            .keys()
            .filter_map(|k| k.dso.map(|d| d.to_string()))
            .collect();
        assert!(
            dsos.contains(&"/memfd:doublemapper (deleted)".to_string()),
            "{dsos:?}"
        );
        assert!(dsos.contains(&"/tmp/perf-PID.map".to_string()), "{dsos:?}");
        assert!(!dsos
            .iter()
            .any(|d| d.contains("deleted)") && !d.contains("(deleted)")));
        let jit = p
            .counts
            .iter()
            .find(|(k, _)| k.name == "jit_busy_loop")
            .map(|(k, v)| (k.dso.map(|d| d.to_string()), *v));
        assert!(
            matches!(jit, Some((Some(ref d), v)) if d == "/tmp/perf-PID.map" && v > 10.0),
            "{jit:?}"
        );
    }
    assert_eq!(
        jit_map_dso("/tmp/perf-25492.map"),
        Some("/tmp/perf-PID.map")
    );
    assert_eq!(jit_map_dso("[JIT] tid 25492"), Some("/tmp/perf-PID.map"));
    assert_eq!(jit_map_dso("/tmp/perf-PID.map"), Some("/tmp/perf-PID.map"));
    assert_eq!(jit_map_dso("/tmp/perf-x.map"), None);
    assert_eq!(jit_map_dso("/usr/lib/libperf-1.map"), None);
}
