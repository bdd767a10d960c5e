//! Tests of the perf script parser on lines from real perf 6.1 recordings
//! (`perf record -e cpu-clock -F 1999 [-g] -- perf bench sched messaging`,
//! `-a -e cpu-clock -e task-clock`, recorded under /tmp, not kept).

use super::*;
use crate::profile::Mode;
use regex::Regex;

/// perf script of a `-g` recording: a user chain, a kernel chain, a chain
/// through a module-less exit path.
const CHAINS: &str = "\
perf  6648   249.307147:     500250 cpu-clock: 
\t           14f38 intel_check_word.constprop.0+0x158 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
\t      1040000000 [unknown] ([unknown])

perf  6648   249.307642:     500250 cpu-clock: 
\tffffffff81567085 __perf_addr_filters_adjust+0x5 ([kernel.kallsyms])
\tffffffff815683df perf_iterate_ctx+0xcf ([kernel.kallsyms])
\tffffffff8157ac6f perf_event_mmap+0xef ([kernel.kallsyms])
\tffffffff821ed511 do_syscall_64+0x71 ([kernel.kallsyms])
\tffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])
\t           20ca3 mmap64+0x13 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
\t    7f15d474f8a8 [unknown] ([unknown])
\t               0 [unknown] ([unknown])

sched-messaging  6650   249.309145:     500250 cpu-clock: 
\tffffffff81567085 __perf_addr_filters_adjust+0x9 ([kernel.kallsyms])
\tffffffff821ed511 do_syscall_64+0x71 ([kernel.kallsyms])

";

/// The same kind of recording without callchains.
const FLAT: &str = "\
            perf  7498   255.361927:     500250 cpu-clock:      7f0fcf7ccf38 intel_check_word.constprop.0+0x158 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
            perf  7498   255.362425:     500250 cpu-clock:  ffffffff821e5ae3 xas_load+0x53 ([kernel.kallsyms])
            perf  7498   255.362923:     500250 cpu-clock:  ffffffff817115b7 d_path+0x67 ([kernel.kallsyms])
            perf  7498   255.363424:     500250 cpu-clock:  ffffffff821e5ae3 xas_load+0x50 ([kernel.kallsyms])
";

/// `-a -e cpu-clock -e task-clock -g`: two events, comm with a space, an exiting task.
const TWO_EVENTS: &str = "\
my prog  9984 [001]   267.219280:    1001001  cpu-clock: 
\tffffffff8157adaf perf_event_mmap+0x22f ([kernel.kallsyms])
\tffffffff8160f2f3 __mmap_region+0x5e3 ([kernel.kallsyms])

my prog  9984 [001]   267.219367:    1001001 task-clock: 
\tffffffff8157adaf perf_event_mmap+0x22f ([kernel.kallsyms])
\tffffffff8160f2f3 __mmap_region+0x5e3 ([kernel.kallsyms])

:-1    -1 [000]   267.531490:    1001001  cpu-clock: 
\tffffffff822012ae _raw_write_unlock_irq+0xe ([kernel.kallsyms])
\tffffffff8135dc2e do_exit+0x62e ([kernel.kallsyms])

:-1    -1 [000]   267.531498:    1001001 task-clock: 
\tffffffff822012ae _raw_write_unlock_irq+0xe ([kernel.kallsyms])
\tffffffff8135dc2e do_exit+0x62e ([kernel.kallsyms])

";

fn parse_str(text: &str, opts: &ParseOptions) -> Result<Profile, ParseError> {
    parse(&mut text.as_bytes(), "t.txt", opts)
}

fn get(p: &Profile, name: &str) -> f64 {
    p.counts
        .iter()
        .filter(|(k, _)| k.name == name)
        .map(|(_, v)| *v)
        .sum()
}

fn ok(text: &str, opts: &ParseOptions) -> Profile {
    parse_str(text, opts).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn self_cost_goes_to_the_leaf() {
    let p = ok(CHAINS, &ParseOptions::default());
    assert_eq!(p.total, 3.0);
    assert_eq!(p.event.as_deref(), Some("cpu-clock"));
    assert_eq!(p.weight, Weight::Samples);
    assert_eq!(get(&p, "__perf_addr_filters_adjust"), 2.0);
    assert_eq!(get(&p, "intel_check_word.constprop.0"), 1.0);
    assert_eq!(get(&p, "do_syscall_64"), 0.0);
    let key = SymbolKey::new("__perf_addr_filters_adjust")
        .with_dso(Some("[kernel.kallsyms]".into()))
        .with_mode(Some(Mode::Kernel));
    assert_eq!(p.counts.get(&key), Some(&2.0));
    let d = p.duration_s.unwrap();
    assert!((d - (249.309145 - 249.307147)).abs() < 1e-9, "{d}");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn no_callchains() {
    let p = ok(FLAT, &ParseOptions::default());
    assert_eq!(p.total, 4.0);
    assert_eq!(get(&p, "xas_load"), 2.0);
    assert_eq!(get(&p, "d_path"), 1.0);
    let user = SymbolKey::new("intel_check_word.constprop.0")
        .with_dso(Some(
            "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2".into(),
        ))
        .with_mode(Some(Mode::User));
    assert_eq!(p.counts.get(&user), Some(&1.0));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn unknown_frames_are_kept_per_dso() {
    let text = "\
perf  6648   249.307147:     500250 cpu-clock: 
\t    7f15d474f8a8 [unknown] ([unknown])
\t               0 [unknown] ([unknown])

perf  6648   249.307148:     500250 cpu-clock: 
\t    55d1c2b3a4f0 [unknown] (/usr/bin/perf)

perf  6648   249.307149:     500250 cpu-clock: 
\tffffffffc0a1b2c3 [unknown] ([unknown])

";
    let p = ok(text, &ParseOptions::default());
    let k = |dso: &str, mode| {
        SymbolKey::new("[unknown]")
            .with_dso(Some(dso.into()))
            .with_mode(Some(mode))
    };
    assert_eq!(p.counts.get(&k("[unknown]", Mode::User)), Some(&1.0));
    assert_eq!(p.counts.get(&k("/usr/bin/perf", Mode::User)), Some(&1.0));
    assert_eq!(p.counts.get(&k("[unknown]", Mode::Kernel)), Some(&1.0));
}

#[test]
fn f_variants() {
    // -F comm,pid,tid,cpu,time,period,event,ip,sym,dso (no offsets)
    let a = "\
pip  6662/6662  [000]   267.218168:    1001001  cpu-clock: 
\t          1350f1 tok_nextc (/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0)

";
    let p = ok(a, &ParseOptions::default());
    assert_eq!(get(&p, "tok_nextc"), 1.0);
    // -F comm,tid,cpu,time,event,ip,sym,dso,symoff (no period)
    let b = "\
pip  6662 [000]   267.218168:  cpu-clock: 
\t          1350f1 tok_nextc+0x11 (/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0)

";
    let p = ok(b, &ParseOptions::default());
    assert_eq!(get(&p, "tok_nextc"), 1.0);
    let period = ParseOptions {
        weight: WeightBy::Period,
        ..ParseOptions::default()
    };
    let e = parse_str(b, &period).unwrap_err().to_string();
    assert!(e.starts_with("t.txt:1: expected a period"), "{e}");
    // -F comm,pid,event,ip,sym: no time, no dso
    let c = "\
perf  6648 cpu-clock: 
\t           14f38 intel_check_word.constprop.0
\t      1040000000 [unknown]

";
    let p = ok(c, &ParseOptions::default());
    let k = SymbolKey::new("intel_check_word.constprop.0").with_mode(Some(Mode::User));
    assert_eq!(p.counts.get(&k), Some(&1.0));
    assert_eq!(p.duration_s, None);
}

#[test]
fn weight_by_period() {
    let text = FLAT.replacen(
        "500250 cpu-clock:  ffffffff821e5ae3",
        "100 cpu-clock:  ffffffff821e5ae3",
        1,
    );
    let opts = ParseOptions {
        weight: WeightBy::Period,
        ..ParseOptions::default()
    };
    let p = ok(&text, &opts);
    assert_eq!(p.weight, Weight::Period);
    assert_eq!(get(&p, "xas_load"), 500350.0);
    assert_eq!(p.total, 3.0 * 500250.0 + 100.0);
}

#[test]
fn several_events_need_a_choice() {
    let e = parse_str(TWO_EVENTS, &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "t.txt: several events in the input: 'cpu-clock' (2 samples), 'task-clock' (2 samples); \
         choose one with --event"
    );
    let opts = ParseOptions {
        event: Some("task-clock".into()),
        ..ParseOptions::default()
    };
    let p = ok(TWO_EVENTS, &opts);
    assert_eq!(p.event.as_deref(), Some("task-clock"));
    assert_eq!(p.total, 2.0);
    assert_eq!(get(&p, "perf_event_mmap"), 1.0);
    assert_eq!(get(&p, "_raw_write_unlock_irq"), 1.0);
    let opts = ParseOptions {
        event: Some("cycles".into()),
        ..ParseOptions::default()
    };
    let e = parse_str(TWO_EVENTS, &opts).unwrap_err().to_string();
    assert!(
        e.contains("no samples of event 'cycles'; the input has: 'cpu-clock'"),
        "{e}"
    );
}

#[test]
fn event_modifiers_match_the_bare_name() {
    let text = "vote   913    72.176760:     257597 cycles:uppp:      55d1c2b3a4f0 main+0x10 (/tmp/vote)\n";
    let opts = ParseOptions {
        event: Some("cycles".into()),
        ..ParseOptions::default()
    };
    let p = ok(text, &opts);
    assert_eq!(p.event.as_deref(), Some("cycles:uppp"));
    assert_eq!(get(&p, "main"), 1.0);
}

#[test]
fn filters_keep_the_total() {
    let comm = ParseOptions {
        comm: crate::format::filter::CommFilter::parse("my prog").ok(),
        event: Some("cpu-clock".into()),
        ..ParseOptions::default()
    };
    let p = ok(TWO_EVENTS, &comm);
    assert_eq!(p.total, 2.0);
    assert_eq!(p.symbol_sum(), 1.0);
    assert_eq!(get(&p, "perf_event_mmap"), 1.0);

    let kernel = ParseOptions {
        kernel_only: true,
        ..ParseOptions::default()
    };
    let p = ok(CHAINS, &kernel);
    assert_eq!((p.total, p.symbol_sum()), (3.0, 2.0));

    let dso = ParseOptions {
        dso: Some(Regex::new("ld-linux").unwrap()),
        ..ParseOptions::default()
    };
    let p = ok(CHAINS, &dso);
    assert_eq!((p.total, p.symbol_sum()), (3.0, 1.0));
    assert_eq!(get(&p, "intel_check_word.constprop.0"), 1.0);
}

#[test]
fn inclusive_counts_each_symbol_once_per_sample() {
    // A recursive chain: do_exit appears twice, counted once.
    let text = "\
:-1    -1 [000]   267.531490:    1001001  cpu-clock: 
\tffffffff822012ae _raw_write_unlock_irq+0xe ([kernel.kallsyms])
\tffffffff8135dc2e do_exit+0x62e ([kernel.kallsyms])
\tffffffff8135e1e9 do_group_exit+0x29 ([kernel.kallsyms])
\tffffffff8135dc2e do_exit+0x62e ([kernel.kallsyms])

:-1    -1 [000]   267.531498:    1001001  cpu-clock: 
\tffffffff8135dc2e do_exit+0x10 ([kernel.kallsyms])

";
    let opts = ParseOptions {
        inclusive: true,
        ..ParseOptions::default()
    };
    let p = ok(text, &opts);
    assert_eq!(get(&p, "do_exit"), 2.0);
    assert_eq!(get(&p, "do_group_exit"), 1.0);
    assert_eq!(get(&p, "_raw_write_unlock_irq"), 1.0);
    assert_eq!(p.total, 2.0);
    let p = ok(CHAINS, &opts);
    assert_eq!(get(&p, "do_syscall_64"), 2.0);
    assert_eq!(get(&p, "[unknown]"), 2.0);
    // Filters look at the leaf, inclusive or not.
    let k = ParseOptions {
        inclusive: true,
        kernel_only: true,
        ..ParseOptions::default()
    };
    let p = ok(CHAINS, &k);
    assert_eq!(get(&p, "mmap64"), 1.0);
    assert_eq!(get(&p, "intel_check_word.constprop.0"), 0.0);
}

#[test]
fn side_band_lines_and_empty_chains() {
    let text = "\
swapper     0 [000]     0.000000: PERF_RECORD_FORK(1:1):(0:0)
process_api     0 [000]     0.000000: PERF_RECORD_COMM: process_api:1/1
            perf  7498   255.361456: PERF_RECORD_MMAP2 7498/7498: [0x5582bd914000(0x258000) @ 0x80000 fe:00 247617 0]: r-xp /usr/bin/perf
perf  6648   249.307147:     500250 cpu-clock: 

perf  6648   249.307642:     500250 cpu-clock: 
\tffffffff81567085 __perf_addr_filters_adjust+0x5 ([kernel.kallsyms])

";
    let p = ok(text, &ParseOptions::default());
    assert_eq!(p.total, 2.0);
    assert_eq!(p.unattributed, 0.0);
    assert_eq!(p.symbol_sum(), 2.0);
    // The empty chain is `[unknown]` in dso `[unknown]`, as an unresolved frame.
    let unknown = SymbolKey::new("[unknown]")
        .with_dso(Some("[unknown]".into()))
        .with_mode(Some(Mode::User));
    assert_eq!(p.counts.get(&unknown), Some(&1.0));
    assert_eq!(
        p.warnings,
        [
            "skipped 3 non-sample lines (PERF_RECORD_* side-band events, comments)",
            "1 sample without a frame (empty callchain), counted as [unknown]: perf script does \
             not print their address (perf report names them from it)",
        ]
    );
    assert_eq!(
        crate::format::unresolved::summary(&[&p], true).as_deref(),
        Some(
            "t.txt: 1 sample not resolved to a symbol, counted as [unknown] in their dso: \
             [unknown] 1; perf script could not name them: run it where the binaries and their \
             debug files are (perf's --symfs), or give diffprofile the perf.data"
        )
    );
}

#[test]
fn malformed_lines_point_at_the_line() {
    let bad_frame = CHAINS.replace(
        "\tffffffff815683df perf_iterate_ctx+0xcf ([kernel.kallsyms])",
        "\tperf_iterate_ctx+0xcf ([kernel.kallsyms])",
    );
    let e = parse_str(&bad_frame, &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "t.txt:7: expected a callchain frame line `<TAB>IP SYM+OFF (DSO)`, \
         found \"\\tperf_iterate_ctx+0xcf ([kernel.kallsyms])\""
    );
    // A header cut short and joined with the rest of the line.
    let bad_header = FLAT.replacen("  7498   255.362923:     500250 cpu-clock:", "  74", 1);
    let e = parse_str(&bad_header, &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.txt:3: expected a perf script sample line"),
        "{e}"
    );
    let orphan = format!("\tffffffff81567085 x+0x5 ([kernel.kallsyms])\n{FLAT}");
    let e = parse_str(&orphan, &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("t.txt:1: expected a sample line"), "{e}");

    // --lenient: skipped, counted, one warning.
    let lenient = ParseOptions {
        lenient: true,
        ..ParseOptions::default()
    };
    let p = ok(&bad_header, &lenient);
    assert_eq!((p.total, p.skipped_lines), (3.0, 1));
    assert_eq!(
        p.warnings,
        ["skipped 1 malformed lines (--lenient); the first, line 3: \"            perf  74  ffffffff817115b7 d_path+0x67 ([kernel.kallsyms])\""]
    );
    let p = ok(&bad_frame, &lenient);
    assert_eq!((p.total, p.skipped_lines), (3.0, 1));
}

#[test]
fn the_earliest_error_wins_across_blocks() {
    let mut text = String::new();
    for _ in 0..50 {
        text.push_str(CHAINS);
    }
    text.push_str("bad line one\n");
    text.push_str(CHAINS);
    text.push_str("bad line two\n");
    let lines_before = 50 * CHAINS.lines().count() + 1;
    for size in [1, 7, 64, 1000, 1 << 20] {
        let e = parse_with_block_size(&mut text.as_bytes(), "t", &ParseOptions::default(), size)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(&format!("t:{lines_before}: ")), "{size}: {e}");
        assert!(e.ends_with("found \"bad line one\""), "{e}");
    }
}

#[test]
fn truncated_input_counts_what_was_read() {
    let cut = &CHAINS[..CHAINS
        .find("\tffffffff821ed511 do_syscall_64+0x71 ([kernel.kallsyms])\n\n")
        .unwrap()];
    let p = ok(cut, &ParseOptions::default());
    assert_eq!(p.total, 3.0);
    assert_eq!(get(&p, "__perf_addr_filters_adjust"), 2.0);
    assert_eq!(
        p.warnings,
        ["the input ends inside a sample, without the blank line that closes it (truncated?): counted what was read"]
    );
    // Cut in the middle of a line: that line is left out.
    let p = ok(&FLAT[..FLAT.len() - 30], &ParseOptions::default());
    assert_eq!(p.total, 3.0);
    assert_eq!(get(&p, "xas_load"), 1.0);
    assert!(p.warnings[0].contains("middle of a line"));
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    let mut junk: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    junk.extend_from_slice(b"\n\t\n\n:\n");
    let e = parse(&mut &junk[..], "j", &ParseOptions::default());
    assert!(e.is_err());
    for text in [
        "",
        "\n\n\n",
        "\t",
        ":",
        " 1 a:",
        "x 1 1.0: 1 e:  zz (",
        "x 1 1.0: 1 e:  ff (",
    ] {
        let r = parse(&mut text.as_bytes(), "j", &ParseOptions::default());
        if let Ok(p) = r {
            assert!(p.total <= 1.0);
        }
    }
}

#[test]
fn block_size_and_jobs_do_not_change_the_result() {
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(CHAINS);
        if i % 3 == 0 {
            text.push_str("perf  6648   249.400000: PERF_RECORD_LOST\n");
        }
        text.push_str(&TWO_EVENTS.replace("task-clock", " cpu-clock"));
    }
    let flat = FLAT.repeat(100);
    for inclusive in [false, true] {
        let opts = ParseOptions {
            inclusive,
            ..ParseOptions::default()
        };
        for input in [&text, &flat] {
            let big = parse_with_block_size(&mut input.as_bytes(), "t", &opts, 1 << 20).unwrap();
            for size in [1, 13, 100, 4096] {
                let small = parse_with_block_size(&mut input.as_bytes(), "t", &opts, size).unwrap();
                assert_eq!(small, big, "block size {size}");
            }
            for jobs in [1, 4] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(jobs)
                    .build()
                    .unwrap();
                let p = pool.install(|| {
                    parse_with_block_size(&mut input.as_bytes(), "t", &opts, 512).unwrap()
                });
                assert_eq!(p, big, "{jobs} threads");
            }
        }
    }
}

#[test]
fn sniffing() {
    for yes in [CHAINS, FLAT, TWO_EVENTS] {
        assert_eq!(sniff(yes.as_bytes(), true), Sniff::Yes);
        // a partial first line is not enough
        assert_eq!(sniff(&yes.as_bytes()[..20], false), Sniff::NeedMore);
    }
    let header = "# ========\n# captured on    : Sun Nov 30 13:36:10 2025\n# ========\n#\n";
    assert_eq!(
        sniff(format!("{header}{FLAT}").as_bytes(), false),
        Sniff::Yes
    );
    assert_eq!(sniff(header.as_bytes(), false), Sniff::NeedMore);
    let no = [
        // perf report
        "# To display the perf.data header info, please use --header/--header-only options.\n#\n# Samples: 4K of event 'cpu-clock'\n#\n    17.97%           807  [k] do_syscall_64\n",
        // readprofile
        "   153 finish_task_switch.isra.0                  0.2224\n    18 total                                      0.0352\n",
        "ffffffff81000010 do_schedule                                   8   0.0625\n",
        // folded
        "perf;entry_SYSCALL_64;do_syscall_64 12\nperf;read 3\n",
        // opreport
        "CPU: Core 2, speed 2.534e+06 MHz (estimated)\nCounted CPU_CLK_UNHALTED events (Clock cycles when not halted) with a unit mask of 0x00 (Unhalted core cycles) count 100000\nsamples  %        image name               symbol name\n1353     24.9447  vmlinux                  sidtab_context_to_sid\n",
        "\tffffffff81567085 x+0x5 ([kernel.kallsyms])\n",
    ];
    for text in no {
        assert_eq!(sniff(text.as_bytes(), true), Sniff::No, "{text}");
    }
    assert_eq!(sniff(b"", true), Sniff::No);
}

#[test]
fn stacks_are_root_first_and_their_leaves_are_the_self_counts() {
    let data = std::fs::read("testdata/perf-script/sockets-g.txt.gz").unwrap();
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&data[..]), &mut text).unwrap();
    let opts = ParseOptions {
        stacks: true,
        ..Default::default()
    };
    let with = parse(&mut &text[..], "t", &opts).unwrap();
    let without = parse(&mut &text[..], "t", &ParseOptions::default()).unwrap();
    assert!(without.stacks.is_empty());
    // Self counts do not change when stacks are collected.
    assert_eq!(with.counts, without.counts);
    let mut leaves: std::collections::BTreeMap<&str, f64> = Default::default();
    for (chain, w) in &with.stacks {
        *leaves.entry(chain.last().unwrap().as_str()).or_default() += w;
    }
    let mut by_name: std::collections::BTreeMap<&str, f64> = Default::default();
    for (k, c) in &with.counts {
        *by_name.entry(k.name.as_str()).or_default() += c;
    }
    assert_eq!(leaves, by_name);
    let roots: f64 = with.stacks.values().sum();
    assert_eq!(roots, with.total);
    assert!(with
        .stacks
        .keys()
        .any(|c| c.len() > 5 && c.last().map(String::as_str) == Some("_copy_to_iter")));
}

/// The per-block caches (frame text, header suffixes) change nothing: real
/// recordings parsed in one block (where they serve most lines) and in
/// blocks of one sample each (where they never hit) give equal profiles,
/// under every option that the cached path touches.
#[test]
fn caches_do_not_change_real_profiles() {
    use std::io::Read;
    let sched = crate::format::filter::CommFilter::parse("sched-.*").unwrap();
    for name in ["sockets", "pipes-g", "sockets-F", "threads-g"] {
        let path = format!(
            "{}/testdata/perf-script/{name}.txt.gz",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_end(&mut text)
            .unwrap();
        // The first 200 KB (whole lines) keep the test quick in debug builds.
        let cut = text[..text.len().min(200_000)]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap();
        text.truncate(cut + 1);
        let options = [
            ParseOptions::default(),
            ParseOptions {
                inclusive: true,
                ..ParseOptions::default()
            },
            ParseOptions {
                weight: WeightBy::Period,
                kernel_only: true,
                ..ParseOptions::default()
            },
            ParseOptions {
                comm: Some(sched.clone()),
                stacks: true,
                ..ParseOptions::default()
            },
        ];
        for opts in &options {
            let whole = parse_with_block_size(&mut &text[..], "t", opts, 1 << 24).unwrap();
            let split = parse_with_block_size(&mut &text[..], "t", opts, 1).unwrap();
            assert_eq!(whole, split, "{name} {opts:?}");
            assert!(whole.total > 0.0, "{name}");
        }
    }
}

/// Periods whose sum passes 2^64 across blocks (each block's own sum
/// fits): refused naming the lines of the block that took it past (the
/// merged u64 sum wrapped without a word before); the same text in one
/// block is refused at the line.
#[test]
fn period_sums_are_checked_across_blocks() {
    let line = |p: u64| {
        format!(
            "perf 29258   496.975824: {p:>10} cpu-clock:  ffffffff821f2fa7 exc_page_fault+0xd7 ([kernel.kallsyms])\n"
        )
    };
    let text = line(1 << 62).repeat(3) + &line((1 << 62) - 1) + &line(1);
    let opts = ParseOptions {
        weight: WeightBy::Period,
        ..ParseOptions::default()
    };
    let e = parse_with_block_size(&mut text.as_bytes(), "t", &opts, 1)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "t: lines 5-5: expected event 'cpu-clock' periods whose sum stays within 2^64"
        ),
        "{e}"
    );
    let e = parse_with_block_size(&mut text.as_bytes(), "t", &opts, 1 << 20)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t:5: expected a period that keeps the sum"),
        "{e}"
    );
    // Just below: read, the total exact.
    let text = line(1 << 62).repeat(3) + &line((1 << 62) - 1);
    let p = parse_with_block_size(&mut text.as_bytes(), "t", &opts, 1).unwrap();
    assert_eq!(p.total, u64::MAX as f64);
}
