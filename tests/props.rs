//! Property tests over generated profiles: invariants every report must keep
//! (house-style "Testing", issue 3 and 8).

use clap::Parser;
use diffprofile::aggregate::Side;
use diffprofile::app;
use diffprofile::cli::Cli;
use diffprofile::config::Config;
use diffprofile::diff::{Report, Row};
use diffprofile::profile::{Format, Mode, Profile, SymbolKey};
use proptest::prelude::*;

const NAMES: [&str; 12] = [
    "_raw_spin_lock",
    "_raw_spin_unlock_irqrestore",
    "do_syscall_64",
    "finish_task_switch.isra.0",
    "finish_task_switch",
    "skb_release_data",
    "unix_stream_read_generic",
    "copy_page_to_iter.constprop.0",
    "__slab_free",
    ".text.lock.namei",
    "memcpy@plt",
    "default_idle",
];

fn run(counts: &[u32], name: &str) -> Profile {
    let mut p = Profile::new(name, Format::Readprofile);
    for (i, &c) in counts.iter().enumerate() {
        if c > 0 {
            p.add(
                SymbolKey::new(NAMES[i % NAMES.len()]).with_mode(Some(Mode::Kernel)),
                c as f64,
            );
        }
    }
    p.total = p.symbol_sum().max(1.0);
    p
}

fn side(name: &str, runs: &[Vec<u32>]) -> Side {
    Side {
        name: name.to_string(),
        label: name.to_string(),
        runs: runs
            .iter()
            .enumerate()
            .map(|(i, c)| run(c, &format!("{name}/run{i}")))
            .collect(),
    }
}

fn config(args: &[&str]) -> Config {
    let mut v = vec!["diffprofile", "a", "b"];
    v.extend_from_slice(args);
    Config::from_cli(Cli::parse_from(v)).expect("valid test config")
}

fn report(a: &Side, b: &Side, args: &[&str]) -> Report {
    app::compare_sides(&[a.clone(), b.clone()], &config(args))
        .expect("report")
        .report
}

fn find<'a>(r: &'a Report, sym: &str) -> Option<&'a Row> {
    r.comparisons[0].rows.iter().find(|x| x.symbol == sym)
}

/// 1 to 4 runs of 12 symbols, counts up to 3000 (zeros included), every run with samples.
fn runs_strategy() -> impl Strategy<Value = Vec<Vec<u32>>> {
    prop::collection::vec(prop::collection::vec(0u32..3000, 12), 1..5)
        .prop_filter("a run needs samples", |runs| {
            runs.iter().all(|r| r.iter().any(|&c| c > 0))
        })
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_profile_against_itself_changes_nothing(runs in runs_strategy(), mode in 0usize..3) {
        let n = ["share", "ticks", "robust"][mode];
        let a = side("old", &runs);
        let b = side("new", &runs);
        let Ok(r) = app::compare_sides(&[a, b], &config(&["-n", n])).map(|d| d.report) else {
            // robust needs a symbol with >= 5 counts in every run
            prop_assume!(false);
            unreachable!()
        };
        for row in &r.comparisons[0].rows {
            prop_assert!(row.delta == 0.0, "{} delta {}", row.symbol, row.delta);
            prop_assert!(!row.significant(), "{} significant", row.symbol);
        }
        prop_assert_eq!(r.comparisons[0].regressions + r.comparisons[0].improvements, 0);
    }

    #[test]
    fn swapping_sides_negates_deltas_and_inverts_ratios(a in runs_strategy(), b in runs_strategy()) {
        let (sa, sb) = (side("old", &a), side("new", &b));
        let ab = report(&sa, &sb, &[]);
        let ba = report(&sb, &sa, &[]);
        for row in &ab.comparisons[0].rows {
            let other = find(&ba, &row.symbol).expect("same rows both ways");
            prop_assert!(close(row.delta, -other.delta));
            if row.ratio().is_finite() && row.ratio() > 0.0 {
                prop_assert!(close(row.ratio(), 1.0 / other.ratio()));
            }
            prop_assert_eq!(row.significant(), other.significant());
            match (row.p(), other.p()) {
                (Some(p), Some(q)) => prop_assert!(close(p, q), "p {} vs {}", p, q),
                (None, None) => {}
                _ => prop_assert!(false, "tested one way only"),
            }
        }
        prop_assert!(close(ab.comparisons[0].total.delta, -ba.comparisons[0].total.delta));
    }

    #[test]
    fn run_order_does_not_matter(a in runs_strategy(), b in runs_strategy()) {
        let fwd = report(&side("old", &a), &side("new", &b), &["--sort", "name"]);
        let mut ra = a.clone();
        ra.reverse();
        let mut rb = b.clone();
        rb.reverse();
        let rev = report(&side("old", &ra), &side("new", &rb), &["--sort", "name"]);
        let (x, y) = (&fwd.comparisons[0].rows, &rev.comparisons[0].rows);
        prop_assert_eq!(x.len(), y.len());
        for (r, s) in x.iter().zip(y) {
            prop_assert_eq!(&r.symbol, &s.symbol);
            prop_assert!(close(r.delta, s.delta));
            // Sums over runs in another order may differ in the last bits.
            match (r.p(), s.p()) {
                (Some(a), Some(b)) => prop_assert!((a - b).abs() <= 1e-9 * a.max(b) + 1e-300, "p {} vs {}", a, b),
                (None, None) => {}
                _ => prop_assert!(false, "tested in one order only"),
            }
            prop_assert_eq!(r.significant(), s.significant());
        }
    }

    #[test]
    fn row_deltas_add_up_to_the_total(a in runs_strategy(), b in runs_strategy(), mode in 0usize..2) {
        let n = ["share", "ticks"][mode];
        for extra in [&[][..], &["--keep-suffixes"][..], &["--group-by", "prefix:_raw"][..]] {
            let mut args = vec!["-n", n];
            args.extend_from_slice(extra);
            let r = report(&side("old", &a), &side("new", &b), &args);
            let c = &r.comparisons[0];
            let sum: f64 = c.rows.iter().map(|r| r.delta).sum();
            prop_assert!((sum - c.total.delta).abs() < 1e-6, "{} vs {}", sum, c.total.delta);
        }
    }

    #[test]
    fn folding_and_grouping_keep_totals(a in runs_strategy(), b in runs_strategy()) {
        let base = report(&side("old", &a), &side("new", &b), &["-n", "ticks", "--keep-suffixes"]);
        for args in [
            &["-n", "ticks"][..],
            &["-n", "ticks", "--group-by", "regex:^(_raw|__)"][..],
            &["-n", "ticks", "--group-by", "module"][..],
        ] {
            let r = report(&side("old", &a), &side("new", &b), args);
            prop_assert!(close(r.comparisons[0].total.old, base.comparisons[0].total.old));
            prop_assert!(close(r.comparisons[0].total.new, base.comparisons[0].total.new));
        }
    }
}

#[test]
fn folding_merges_clones_and_lists_members() {
    let a = side("old", &[vec![10, 0, 0, 100, 50]]);
    let r = report(&a, &a, &["-n", "ticks"]);
    let row = find(&r, "finish_task_switch").expect("folded row");
    assert_eq!(row.old_counts(), [150.0]);
    assert_eq!(
        &row.members[..],
        vec![
            "finish_task_switch".to_string(),
            "finish_task_switch.isra.0".to_string()
        ]
    );
    let kept = report(&a, &a, &["-n", "ticks", "--keep-suffixes"]);
    assert!(find(&kept, "finish_task_switch.isra.0").is_some());
}
