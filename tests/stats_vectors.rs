//! Every test vector of `shared/design/statistics.md` ("Test vectors", the
//! `robust` example and the "smallest reachable p" rule), reproduced to 4
//! significant digits twice: through the public `diffprofile::stats` API and
//! end-to-end through the pipeline (`app::compare_sides` on hand-built
//! profiles, configured from the command line). Values not printed in
//! statistics.md (the pipeline's one-run-per-side p for zero counts, the
//! composition example's robust mode) were computed independently with
//! `scripts/verify-stats.py` (scipy), which is written from statistics.md only.

use clap::Parser;
use diffprofile::aggregate::Side;
use diffprofile::app;
use diffprofile::cli::Cli;
use diffprofile::config::Config;
use diffprofile::diff::{Cv, NoiseModel, Report, Row, Status};
use diffprofile::profile::{Format, Mode, Profile, SymbolKey};
use diffprofile::stats::{
    adjust, cv_percent, exact_test, min_reachable_p, noise_floor, noise_test, quasi_poisson,
    Adjust, NoiseSource,
};

const ALPHA: f64 = 0.05;

/// `got` equals `want` to 4 significant digits (half a unit of the 4th).
#[track_caller]
fn sig4(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 5e-4 * want.abs(),
        "got {got}, want {want} (4 significant digits)"
    );
}

// ------------------------------------------------------------- pipeline kit

/// One run: `counts` per symbol name, the run's total (the share exposure).
fn run(source: &str, counts: &[(&str, u32)], total: f64) -> Profile {
    let mut p = Profile::new(source, Format::Readprofile);
    for &(name, c) in counts {
        if c > 0 {
            p.add(SymbolKey::new(name).with_mode(Some(Mode::Kernel)), c as f64);
        }
    }
    p.total = total;
    p
}

fn side(name: &str, runs: Vec<Profile>) -> Side {
    Side {
        name: name.to_string(),
        label: name.to_string(),
        runs,
    }
}

/// A side whose runs hold one symbol `sym` with the given counts and totals.
fn one_symbol_side(name: &str, sym: &str, counts: &[u32], totals: &[f64]) -> Side {
    let runs = counts
        .iter()
        .zip(totals)
        .enumerate()
        .map(|(i, (&c, &t))| run(&format!("{name}/run{}", i + 1), &[(sym, c)], t))
        .collect();
    side(name, runs)
}

fn config(args: &[&str]) -> Config {
    let mut v = vec!["diffprofile", "a", "b"];
    v.extend_from_slice(args);
    Config::from_cli(Cli::parse_from(v)).expect("valid test config")
}

fn compare(old: Side, new: Side, args: &[&str]) -> Report {
    app::compare_sides(&[old, new], &config(args)).expect("report")
}

fn row<'a>(r: &'a Report, sym: &str) -> &'a Row {
    r.comparisons[0]
        .rows
        .iter()
        .find(|x| x.symbol == sym)
        .unwrap_or_else(|| panic!("no row {sym}"))
}

fn cv_runs(cv: Option<Cv>) -> f64 {
    match cv {
        Some(Cv::Runs(v)) => v,
        other => panic!("expected a run-to-run CV, got {other:?}"),
    }
}

// --------------------------------------------- one run per side: exact layer

/// statistics.md table "One run per side, exposures 10000 each":
/// (old, new, p_exact, RR, RR lower, RR upper); ∞ and 0 are compared exactly.
const ONE_RUN: [(f64, f64, f64, f64, f64, f64); 4] = [
    (120.0, 160.0, 0.01961, 1.333, 1.046, 1.704),
    (3.0, 11.0, 0.05737, 3.667, 0.9686, 20.47),
    (0.0, 7.0, 0.015625, f64::INFINITY, 1.441, f64::INFINITY),
    (5.0, 0.0, 0.0625, 0.0, 0.0, 1.091),
];

#[test]
fn exact_layer_one_run_vectors() {
    for (x, y, p, rr, lo, hi) in ONE_RUN {
        let e = exact_test(x, y, 10000.0, 10000.0, ALPHA);
        sig4(e.p, p);
        if rr.is_finite() && rr > 0.0 {
            sig4(e.ratio, rr);
        } else {
            assert_eq!(e.ratio, rr, "{x}/{y} ratio");
        }
        if lo > 0.0 {
            sig4(e.ratio_ci.0, lo);
        } else {
            assert_eq!(e.ratio_ci.0, 0.0);
        }
        if hi.is_finite() {
            sig4(e.ratio_ci.1, hi);
        } else {
            assert!(e.ratio_ci.1.is_infinite());
        }
    }
    // 3/11 is not significant, 0/7 is; 5/0 is untestable (k = 5).
    assert!(exact_test(3.0, 11.0, 1e4, 1e4, ALPHA).p > ALPHA);
    assert!(exact_test(0.0, 7.0, 1e4, 1e4, ALPHA).p < ALPHA);
}

#[test]
fn smallest_reachable_p_needs_six_samples_at_half() {
    sig4(min_reachable_p(5.0, 0.5), 0.0625);
    assert!(min_reachable_p(5.0, 0.5) > ALPHA);
    sig4(min_reachable_p(6.0, 0.5), 0.03125);
    assert!(min_reachable_p(6.0, 0.5) <= ALPHA);
    // 2·min(π0^k, (1−π0)^k) with unequal exposures
    sig4(min_reachable_p(4.0, 0.25), 2.0 * 0.25f64.powi(4));
}

#[test]
fn pipeline_one_run_120_160_sampling_only() {
    let old = one_symbol_side("old", "do_schedule", &[120], &[10000.0]);
    let new = one_symbol_side("new", "do_schedule", &[160], &[10000.0]);
    let r = compare(old, new, &[]);
    // One symbol: < 10 symbols with x, y >= 100, so no τ estimate and no
    // --noise-cv: sampling noise only, and p = max(p_exact, p_noise) = p_exact.
    assert_eq!(r.comparisons[0].noise, NoiseModel::SamplingOnly);
    let x = row(&r, "do_schedule");
    sig4(x.p.unwrap(), 0.01961);
    sig4(x.q.unwrap(), 0.01961); // one tested row: q = p
    assert!(x.significant);
    sig4(x.ratio, 1.333);
    let (lo, hi) = x.ratio_ci.unwrap();
    sig4(lo, 1.046); // the CP interval contains the normal one: hull = CP
    sig4(hi, 1.704);
    sig4(x.old, 1.2);
    sig4(x.new, 1.6);
    sig4(x.delta, 0.4);
    assert_eq!(x.old_cv, Some(Cv::Sampling(100.0 / 120f64.sqrt())));
}

#[test]
fn pipeline_one_run_3_11_not_significant() {
    let old = one_symbol_side("old", "f", &[3], &[10000.0]);
    let new = one_symbol_side("new", "f", &[11], &[10000.0]);
    let r = compare(old, new, &[]);
    let x = row(&r, "f");
    sig4(x.p.unwrap(), 0.05737);
    assert!(!x.significant);
    assert_eq!(x.mark(), "~");
    sig4(x.ratio, 3.667);
    let (lo, hi) = x.ratio_ci.unwrap();
    sig4(lo, 0.9686);
    sig4(hi, 20.47);
}

#[test]
fn pipeline_one_run_new_and_gone_symbols() {
    // 0 / 7: statistics.md gives p_exact = 0.015625 (sampling layer). With one
    // run per side the pipeline takes p = max(p_exact, p_noise); statistics.md
    // leaves p_noise undefined for a zero count, diffprofile (and
    // verify-stats.py) add 0.5 to both counts as the run layer does:
    // ℓ = ln 15, v = 2 + 1/7.5, p_noise = 0.06373 > 0.015625, so the new
    // symbol is NOT significant; ratio CI = hull(CP [1.441, ∞], normal
    // [0.8567, 261.5]) = [0.8567, ∞].
    let old = one_symbol_side("old", "f", &[0], &[10000.0]);
    let new = one_symbol_side("new", "f", &[7], &[10000.0]);
    let r = compare(old, new, &[]);
    let x = row(&r, "f");
    assert_eq!(x.status, Status::New);
    assert!(x.ratio.is_infinite());
    sig4(exact_test(0.0, 7.0, 1e4, 1e4, ALPHA).p, 0.015625);
    sig4(x.p.unwrap(), 0.06373);
    assert!(!x.significant);
    let (lo, hi) = x.ratio_ci.unwrap();
    sig4(lo, 0.8567);
    assert!(hi.is_infinite());

    // 5 / 0: gone, k = 5 < 6: not tested, blank mark.
    let old = one_symbol_side("old", "g", &[5], &[10000.0]);
    let new = one_symbol_side("new", "g", &[0], &[10000.0]);
    let r = compare(old, new, &[]);
    let x = row(&r, "g");
    assert_eq!(x.status, Status::Gone);
    assert_eq!(x.ratio, 0.0);
    assert_eq!(x.p, None);
    assert_eq!(x.q, None);
    assert!(!x.significant);
    assert_eq!(x.mark(), " ");
    assert_eq!(r.comparisons[0].untested, 1);
    assert_eq!(r.comparisons[0].tested, 0);
}

#[test]
fn noise_floor_without_enough_symbols() {
    // < 10 symbols with x, y >= 100: sampling only, or τ² = 2C² from --noise-cv.
    let nf = noise_floor(&[(120.0, 160.0)], 1e4, 1e4, None);
    assert_eq!(nf.source, NoiseSource::SamplingOnly);
    assert_eq!(nf.tau2, 0.0);
    let nf = noise_floor(&[(120.0, 160.0)], 1e4, 1e4, Some(0.05));
    assert_eq!(nf.source, NoiseSource::Assumed);
    sig4(nf.tau2, 0.005);
    // sampling-only z test of 120/160: ℓ = ln(4/3), v = 1/120 + 1/160
    let t = noise_test(120.0, 160.0, 1e4, 1e4, 0.0, ALPHA);
    sig4(t.p, 0.01721);
    sig4(t.ratio_ci.0, 1.052);
    sig4(t.ratio_ci.1, 1.689);
}

// ------------------------------------------------- three runs per side

const OLD3: [u32; 3] = [120, 130, 125];
const OLD3_TOTALS: [f64; 3] = [10000.0, 10100.0, 9900.0];
const NEW3: [u32; 3] = [160, 170, 150];
const NEW3_TOTALS: [f64; 3] = [10050.0, 9950.0, 10000.0];

fn pairs(c: &[u32], n: &[f64]) -> Vec<(f64, f64)> {
    c.iter().zip(n).map(|(&c, &n)| (c as f64, n)).collect()
}

#[test]
fn run_layer_three_runs_vector() {
    let q = quasi_poisson(
        &pairs(&OLD3, &OLD3_TOTALS),
        &pairs(&NEW3, &NEW3_TOTALS),
        ALPHA,
    )
    .expect("df = 4");
    sig4(q.x2, 1.686);
    assert_eq!(q.phi, 1.0);
    assert_eq!(q.df, 4.0);
    sig4(q.beta, 0.2469);
    sig4(q.beta.exp(), 1.280);
    sig4(q.se, 0.06892);
    sig4(q.t, 3.582);
    sig4(q.p, 0.02313);
    sig4(q.delta * 100.0, 0.3500);
    sig4(q.delta_ci.0 * 100.0, 0.07939);
    sig4(q.delta_ci.1 * 100.0, 0.6206);
    let e = exact_test(375.0, 480.0, 30000.0, 30000.0, ALPHA);
    sig4(e.p, 0.0003697);
    sig4(e.ratio, 1.280);
    // p = max, CI = hull
    let p = e.p.max(q.p);
    sig4(p, 0.02313);
    sig4(e.ratio_ci.0.min(q.ratio_ci.0), 1.057);
    sig4(e.ratio_ci.1.max(q.ratio_ci.1), 1.550);
    // per-run CV of the normalised values
    let norm = |c: &[u32], n: &[f64]| -> Vec<f64> {
        c.iter().zip(n).map(|(&c, &n)| c as f64 / n).collect()
    };
    sig4(cv_percent(&norm(&OLD3, &OLD3_TOTALS)).unwrap(), 3.595);
    sig4(cv_percent(&norm(&NEW3, &NEW3_TOTALS)).unwrap(), 6.531);
}

#[test]
fn pipeline_three_runs_vector() {
    let old = one_symbol_side("old", "do_schedule", &OLD3, &OLD3_TOTALS);
    let new = one_symbol_side("new", "do_schedule", &NEW3, &NEW3_TOTALS);
    let r = compare(old, new, &[]);
    assert_eq!(r.comparisons[0].noise, NoiseModel::Runs { df: 4.0 });
    let x = row(&r, "do_schedule");
    assert_eq!(x.old_counts, vec![120.0, 130.0, 125.0]);
    assert_eq!(x.new_counts, vec![160.0, 170.0, 150.0]);
    sig4(x.old, 1.2500);
    sig4(x.new, 1.6000);
    sig4(x.ratio, 1.280);
    sig4(x.p.unwrap(), 0.02313);
    sig4(x.q.unwrap(), 0.02313);
    assert!(x.significant);
    assert_eq!(x.mark(), "*");
    let (lo, hi) = x.ratio_ci.unwrap();
    sig4(lo, 1.057);
    sig4(hi, 1.550);
    sig4(x.delta, 0.3500);
    let (dlo, dhi) = x.delta_ci.unwrap();
    sig4(dlo, 0.07939);
    sig4(dhi, 0.6206);
    sig4(cv_runs(x.old_cv), 3.595);
    sig4(cv_runs(x.new_cv), 6.531);
    assert_eq!(r.comparisons[0].regressions, 1);
    assert_eq!(r.comparisons[0].improvements, 0);
}

#[test]
fn pipeline_three_runs_is_order_free_and_antisymmetric() {
    // swapping sides: same p, inverted ratio and CI, negated Δ CI
    let old = one_symbol_side("old", "s", &OLD3, &OLD3_TOTALS);
    let new = one_symbol_side("new", "s", &NEW3, &NEW3_TOTALS);
    let r = compare(new, old, &[]);
    let x = row(&r, "s");
    sig4(x.p.unwrap(), 0.02313);
    sig4(x.ratio, 1.0 / 1.280);
    let (lo, hi) = x.ratio_ci.unwrap();
    sig4(lo, 1.0 / 1.550);
    sig4(hi, 1.0 / 1.057);
    let (dlo, dhi) = x.delta_ci.unwrap();
    sig4(dlo, -0.6206);
    sig4(dhi, -0.07939);
}

// ------------------------------------------------------ equal low counts

#[test]
fn run_layer_equal_low_counts_vector() {
    let e3 = [10000.0; 3];
    let q = quasi_poisson(&pairs(&[5, 5, 5], &e3), &pairs(&[9, 9, 9], &e3), ALPHA).unwrap();
    assert_eq!(q.x2, 0.0);
    assert_eq!(q.phi, 1.0);
    sig4(q.beta, 0.5878);
    sig4(q.se, 0.3220);
    sig4(q.t, 1.825);
    sig4(q.p, 0.1420);
    let e = exact_test(15.0, 27.0, 30000.0, 30000.0, ALPHA);
    sig4(e.p, 0.08843);
    sig4(e.ratio, 1.800);
    sig4(e.p.max(q.p), 0.1420);
    sig4(e.ratio_ci.0.min(q.ratio_ci.0), 0.7362);
    sig4(e.ratio_ci.1.max(q.ratio_ci.1), 4.401);
}

#[test]
fn pipeline_equal_low_counts_not_significant() {
    let t = [10000.0; 3];
    let old = one_symbol_side("old", "low", &[5, 5, 5], &t);
    let new = one_symbol_side("new", "low", &[9, 9, 9], &t);
    let r = compare(old, new, &[]);
    let x = row(&r, "low");
    sig4(x.p.unwrap(), 0.1420);
    assert!(!x.significant);
    assert_eq!(x.mark(), "~");
    sig4(x.ratio, 1.800);
    let (lo, hi) = x.ratio_ci.unwrap();
    sig4(lo, 0.7362);
    sig4(hi, 4.401);
    assert_eq!(r.comparisons[0].regressions, 0);
}

// ------------------------------------------------------ Benjamini-Hochberg

const BH_P: [f64; 10] = [
    0.0001, 0.0008, 0.0021, 0.0039, 0.012, 0.028, 0.041, 0.09, 0.3, 0.8,
];
const BH_Q: [f64; 10] = [
    0.001, 0.004, 0.007, 0.00975, 0.024, 0.04667, 0.05857, 0.1125, 0.3333, 0.8,
];

#[test]
fn benjamini_hochberg_vector() {
    let q = adjust(&BH_P, Adjust::Bh);
    for (got, want) in q.iter().zip(BH_Q) {
        sig4(*got, want);
    }
    assert_eq!(q.iter().filter(|&&v| v <= ALPHA).count(), 6);
    // order of the input does not matter
    let mut rev = BH_P;
    rev.reverse();
    let qr = adjust(&rev, Adjust::Bh);
    for (got, want) in qr.iter().rev().zip(BH_Q) {
        sig4(*got, want);
    }
}

#[test]
fn pipeline_q_is_bh_over_the_tested_rows() {
    // 12 symbols, 3 runs per side, a few real changes, a few too small to test.
    let names = [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "tiny1", "tiny2",
    ];
    let old_runs: [[u32; 12]; 3] = [
        [500, 300, 200, 100, 80, 60, 40, 30, 20, 10, 1, 0],
        [520, 290, 210, 95, 85, 55, 42, 28, 22, 12, 0, 2],
        [480, 310, 190, 105, 75, 65, 38, 31, 19, 9, 1, 0],
    ];
    let new_runs: [[u32; 12]; 3] = [
        [700, 300, 150, 100, 82, 90, 40, 45, 21, 30, 0, 1],
        [690, 295, 160, 98, 80, 95, 39, 50, 20, 28, 1, 0],
        [720, 305, 140, 102, 78, 85, 41, 48, 22, 33, 0, 1],
    ];
    let mk = |name: &str, runs: &[[u32; 12]; 3]| {
        let rs = runs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let counts: Vec<(&str, u32)> =
                    names.iter().copied().zip(c.iter().copied()).collect();
                run(&format!("{name}/run{i}"), &counts, 5000.0 + 37.0 * i as f64)
            })
            .collect();
        side(name, rs)
    };
    let r = compare(mk("old", &old_runs), mk("new", &new_runs), &[]);
    let c = &r.comparisons[0];
    let tested: Vec<&Row> = c.rows.iter().filter(|x| x.tested()).collect();
    assert_eq!(c.tested, tested.len());
    assert_eq!(c.untested, c.rows.len() - tested.len());
    assert!(c.untested >= 2, "tiny1/tiny2 have k < 6");
    let ps: Vec<f64> = tested.iter().map(|x| x.p.unwrap()).collect();
    let qs = adjust(&ps, Adjust::Bh);
    for (x, q) in tested.iter().zip(qs) {
        sig4(x.q.unwrap(), q);
        assert_eq!(x.significant, q <= ALPHA, "{}", x.symbol);
    }
    let sig = tested.iter().filter(|x| x.significant).count();
    assert!(sig >= 2, "a and j changed for real");
    assert_eq!(c.regressions + c.improvements, sig);
}

// ---------------------------------------------- normalisation: robust mode

/// statistics.md "Normalisation": old A=1000, B=1000, C=8000; new A=1000,
/// B=1000, C=18000. Share mode: A drops 10% → 5% with p ≈ 5e-53 (a spurious
/// improvement); robust mode: A and B ratio 1.000, C 2.250.
fn composition(mode: &str) -> Report {
    let old = side(
        "old",
        vec![run(
            "old/run1",
            &[("A", 1000), ("B", 1000), ("C", 8000)],
            10000.0,
        )],
    );
    let new = side(
        "new",
        vec![run(
            "new/run1",
            &[("A", 1000), ("B", 1000), ("C", 18000)],
            20000.0,
        )],
    );
    compare(old, new, &["-n", mode])
}

#[test]
fn composition_example_share_and_robust() {
    let e = exact_test(1000.0, 1000.0, 10000.0, 20000.0, ALPHA);
    assert!((4.5e-53..5.5e-53).contains(&e.p), "p {}", e.p);
    sig4(e.p, 5.007e-53); // independent scipy value

    let share = composition("share");
    let a = row(&share, "A");
    sig4(a.old, 10.0);
    sig4(a.new, 5.0);
    sig4(a.p.unwrap(), 5.007e-53);
    assert!(a.significant && a.delta < 0.0, "the spurious improvement");

    let robust = composition("robust");
    sig4(row(&robust, "A").ratio, 1.000);
    sig4(row(&robust, "B").ratio, 1.000);
    sig4(row(&robust, "C").ratio, 2.250);
    assert!(!row(&robust, "A").significant);
    assert!(!row(&robust, "B").significant);
}
