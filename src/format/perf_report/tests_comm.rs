//! `--comm` on perf report tables of every sort order with a command, made
//! by perf itself from testdata/comm's two system-wide runs
//! (testdata/perf-report/comm/, scripts/testdata-report-comm.sh): the
//! `spin` rows are 47 + 25 + 22 + 17 = 111 samples of run 1's
//! `--percent-limit 1` table, 166 in the whole table (as perf script
//! counts them in the perf.data).

use super::*;
use crate::format::filter::CommFilter;
use crate::format::ParseOptions;

const LIMIT: &str = include_str!("../../../testdata/perf-report/comm/run1.comm-dso-sym-limit1.txt");
const PID: &str = include_str!("../../../testdata/perf-report/comm/run1.pid-sym-limit1.txt");
const COMMS: &str = include_str!("../../../testdata/perf-report/comm/run1.comms-spin-limit1.txt");
const COMMS_RELATIVE: &str =
    include_str!("../../../testdata/perf-report/comm/run1.comms-spin-limit1-relative.txt");
const PERCENT: &str = include_str!("../../../testdata/perf-report/comm/run1.comm-sym-limit05.txt");

fn comm(names: Option<&str>, text: &str) -> Result<Profile, ParseError> {
    let opts = ParseOptions {
        comm: names.map(|n| CommFilter::parse(n).unwrap()),
        ..ParseOptions::default()
    };
    parse(&mut text.as_bytes(), "t.txt", &opts)
}

/// What aggregation makes an `*unlisted*` row of (`aggregate::remainder`).
fn remainder(p: &Profile) -> f64 {
    let rest = p.total - p.symbol_sum() - p.unattributed - p.filtered_out;
    if rest.abs() <= 1e-6 * p.total.max(1.0) {
        0.0
    } else {
        rest
    }
}

fn ok(names: Option<&str>, text: &str) -> Profile {
    comm(names, text).unwrap_or_else(|e| panic!("{e}"))
}

/// The other commands' rows and the rows `--percent-limit` left out are
/// not the kept command's: no `*unlisted*` remainder, the total still all
/// samples', and one warning with the numbers.
#[test]
fn percent_limit_residue_is_not_the_kept_commands() {
    let p = ok(Some("spin"), LIMIT);
    assert_eq!(p.symbol_sum(), 111.0);
    // 155 samples listed / 10.06% of all.
    assert_eq!(p.total, 1541.0);
    assert_eq!(p.filtered_out, 1541.0 - 111.0);
    assert_eq!(remainder(&p), 0.0);
    let w = p.warnings.join("\n");
    assert!(
        w.contains("rows holding 89.94% of the samples are missing"),
        "{w}"
    );
    assert!(
        w.contains("the listed rows kept hold 7.20% (111 samples)"),
        "{w}"
    );
    assert!(w.contains("the others listed 2.86% (2 rows)"), "{w}");
    assert_eq!(
        p.warnings.iter().filter(|w| w.contains("89.94%")).count(),
        1
    );
    // Without --comm the residue is the run's: an `*unlisted*` remainder.
    let p = ok(None, LIMIT);
    assert_eq!(p.filtered_out, 0.0);
    assert_eq!(remainder(&p), 1541.0 - 155.0);
}

/// Percentages only (`--sort comm,sym`, no -n): the same, in estimated
/// samples of the rounded `1K` header.
#[test]
fn percent_only_residue_is_not_the_kept_commands() {
    let p = ok(Some("spin"), PERCENT);
    assert!((p.symbol_sum() - 85.6).abs() < 1e-9, "{}", p.symbol_sum());
    assert_eq!(p.total, 1000.0);
    assert_eq!(remainder(&p), 0.0);
    let w = p.warnings.join("\n");
    assert!(w.contains("(86 estimated samples)"), "{w}");
}

/// `--sort pid,sym`: the command is read from `Pid:Command` (`1054:spin`),
/// matched whole (`spin2line` is not `spin`).
#[test]
fn pid_command_column_names_the_command() {
    // 1046:spin 27 + 17, 1054:spin 20.
    let p = ok(Some("spin"), PID);
    assert_eq!(p.symbol_sum(), 64.0);
    assert_eq!(remainder(&p), 0.0);
    assert_eq!(ok(Some("spin2line"), PID).symbol_sum(), 28.0);
    assert_eq!(ok(Some("rustc"), PID).symbol_sum(), 16.0);
}

/// `perf report --comms spin` leaves the Command column out and says
/// `# comm: spin`: every row is spin's, and the missing rows (perhaps other
/// commands', perhaps spin's under perf's --percentage relative) are not
/// counted as spin's, with or without --comm.
#[test]
fn perfs_own_comms_filter() {
    let p = ok(Some("spin"), COMMS);
    assert_eq!(p.symbol_sum(), 111.0);
    assert_eq!(remainder(&p), 0.0);
    let w = p.warnings.join("\n");
    assert!(
        w.contains("(perf report --comms spin: `# comm: spin`)"),
        "{w}"
    );
    let p = ok(None, COMMS);
    assert_eq!(p.symbol_sum(), 111.0);
    assert_eq!(remainder(&p), 0.0);
    // Another command: nothing of this report is kept.
    assert_eq!(ok(Some("spin2line"), COMMS).symbol_sum(), 0.0);
    // perf's --percentage relative: `# Samples: 166` is spin's exact count.
    let p = ok(Some("spin"), COMMS_RELATIVE);
    assert_eq!(
        (p.total, p.symbol_sum(), remainder(&p)),
        (166.0, 156.0, 0.0)
    );
}
