//! perf report variants of one recording (testdata/perf-report/verbose/
//! and group/, recorded by scripts/record-text-variants.sh): `-v` and
//! `--group` give the counts of the plain report.

use super::*;
use std::collections::BTreeMap;

fn read(path: &str, event: Option<&str>) -> Profile {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let opts = ParseOptions {
        event: event.map(str::to_string),
        ..ParseOptions::default()
    };
    parse(&mut &text[..], path, &opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Counts by (name, dso, mode), as text.
fn counts(p: &Profile) -> BTreeMap<(String, Option<String>, Option<Mode>), f64> {
    p.counts
        .iter()
        .map(|(k, v)| {
            (
                (k.name.to_string(), k.dso.map(|d| d.to_string()), k.mode),
                *v,
            )
        })
        .collect()
}

/// `perf report -v` prints full C++ signatures (`std::ostream::flush()`).
fn without_signature(name: &str) -> &str {
    match name.find('(') {
        Some(i) if i > 0 && name.ends_with(')') => &name[..i],
        _ => name,
    }
}

#[test]
fn verbose_address_columns_are_not_names() {
    let dir = "testdata/perf-report/verbose";
    let plain = read(&format!("{dir}/sym-n.txt"), None);
    for v in ["sym-n-v.txt", "default-n-v.txt"] {
        let p = read(&format!("{dir}/{v}"), None);
        assert_eq!(p.total, plain.total, "{v}");
        let mut by_name: BTreeMap<(String, Option<Mode>), f64> = BTreeMap::new();
        for (k, c) in &p.counts {
            assert!(!k.name.starts_with("0x"), "{v}: {}", k.name);
            let name = without_signature(&k.name).to_string();
            *by_name.entry((name, k.mode)).or_insert(0.0) += c;
        }
        let want: BTreeMap<(String, Option<Mode>), f64> = plain
            .counts
            .iter()
            .map(|(k, c)| ((without_signature(&k.name).to_string(), k.mode), *c))
            .collect();
        assert_eq!(by_name, want, "{v}");
    }
    // The address, the symbol-table origin, the mode marker (perf 6.1).
    assert_eq!(
        layout::strip_verbose_for_tests("0xffffffff82261179 k [k] _raw_spin_unlock_irqrestore"),
        "[k] _raw_spin_unlock_irqrestore"
    );
    assert_eq!(
        layout::strip_verbose_for_tests("0xf82b3            D [.] read"),
        "[.] read"
    );
    assert_eq!(
        layout::strip_verbose_for_tests("0x1234 not verbose"),
        "0x1234 not verbose"
    );
}

#[test]
fn group_columns_are_read_per_event() {
    let dir = "testdata/perf-report/group";
    for event in ["cpu-clock", "task-clock"] {
        let want = read(&format!("{dir}/two-sections.txt"), Some(event));
        let got = read(&format!("{dir}/group-n.txt"), Some(event));
        assert_eq!(got.event.as_deref(), Some(event));
        assert_eq!(got.total, want.total, "{event}");
        assert_eq!(counts(&got), counts(&want), "{event}");
        // Percentages only: the shares agree to perf's rounding.
        let pct = read(&format!("{dir}/group-percent.txt"), Some(event));
        for (k, c) in &want.counts {
            let share = pct.counts.get(k).copied().unwrap_or(0.0) / pct.total;
            // ([unknown] sums rounded rows of several addresses.)
            assert!(
                (share - c / want.total).abs() < 0.001,
                "{event} {}: {share}",
                k.name
            );
        }
    }
    // Without --event: both events are named, not one "cpu-clock, task-clock".
    let text = std::fs::read(format!("{dir}/group-n.txt")).unwrap();
    let e = parse(&mut &text[..], "g.txt", &ParseOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "g.txt: holds several events (cpu-clock, task-clock); choose one with --event"
    );
}

#[test]
fn percentages_only_say_how_precise_their_counts_are() {
    let path = "testdata/perf-report/percent/sockets/run1.txt";
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains("# Samples: 5K of event 'cpu-clock'"));
    let p = read(path, None);
    assert_eq!(p.weight, Weight::Percent);
    assert_eq!(p.total, 5000.0);
    let w = p
        .warnings
        .iter()
        .find(|w| w.starts_with("percentages only"))
        .unwrap_or_else(|| panic!("{:?}", p.warnings));
    assert!(
        w.contains("perf truncates to thousands (4K is 4000 to 4999: up to 25% more)")
            && w.contains("2-decimal percentages (±0.005% each)"),
        "{w}"
    );
    assert!(p
        .total_approximate
        .as_deref()
        .unwrap()
        .contains("5000 to 5999"));
}
