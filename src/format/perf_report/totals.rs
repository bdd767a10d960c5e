//! The run's total for a chosen section: exact when perf's rows add up,
//! estimated (and said to be) when rows are missing or only percentages
//! were printed.
//!
//! Input: a parsed [`Section`] and the profile being built. Output:
//! `total`, `total_approximate` and warnings set on the profile, and a
//! percent-only section's percentages scaled into estimated counts.

use super::Section;
use crate::format::ParseOptions;
use crate::profile::{Profile, Weight};

/// The share of the samples (in %) whose rows are missing, if the listed
/// percentages fall short of 100% by more than rounding allows (each row
/// is rounded to ±0.005%).
fn missing_share(section: &Section) -> Option<f64> {
    let has_pct = section.layout.as_ref().is_some_and(|l| l.pct.is_some());
    let tolerance = section.rows as f64 * 0.005 + 0.1;
    let missing = 100.0 - section.pct_sum;
    (has_pct && missing > tolerance).then_some(missing)
}

fn missing_text(source: &str, m: f64) -> String {
    format!(
        "{source}: rows holding {m:.2}% of the samples are missing \
         (perf report --percent-limit, or a perf filter)"
    )
}

/// Set `profile.total` (and `total_approximate`, warnings), scaling the
/// section's percentages into counts for a percent-only report.
///
/// Rows are missing when the listed percentages sum to less than 100% by
/// more than rounding allows (each row is rounded to ±0.005%). The total is
/// then, best first: perf's exact figure (`# Samples:` below 1001, or the
/// `# Event count` for periods), else the listed count over the listed share
/// (`Σ samples / (Σ pct / 100)`, which averages the rows' rounding errors),
/// kept within the rounded header's range.
pub(super) fn totals(section: &mut Section, profile: &mut Profile) {
    let missing = missing_share(section);
    profile.provenance.listed_down_to = missing.and(section.pct_min);
    // An event group's header counts the samples of all its members.
    let members = section.events().len().max(1) as u64;
    let header = section.header.as_ref();
    let source = profile.source.clone();
    let missing_text = |m: f64| missing_text(&source, m);
    match profile.weight {
        Weight::Samples | Weight::Period => {
            let samples = profile.weight == Weight::Samples;
            let (sum, unit) = if samples {
                (section.sample_sum, "samples")
            } else {
                (section.period_sum, "period")
            };
            profile.total = sum as f64;
            let exact = match (members, samples) {
                (1, true) => header.filter(|h| h.unit == 1).map(|h| h.samples),
                (1, false) => section.event_count,
                _ => None,
            };
            if let Some(m) = missing {
                profile.warnings.push(missing_text(m));
                if let Some(exact) = exact.filter(|&e| e >= sum) {
                    profile.total = exact as f64;
                } else if section.pct_sum > 0.0 {
                    let mut estimate = (sum as f64 * 100.0 / section.pct_sum).round();
                    if let Some(h) = header.filter(|_| samples && members == 1) {
                        let high = h.samples.saturating_add(h.unit - 1) as f64;
                        estimate = estimate.clamp(h.samples as f64, high);
                    }
                    profile.total = estimate.max(sum as f64);
                    profile.total_approximate = Some(format!(
                        "{}; total estimated as the {sum} {unit} listed / {:.2}%",
                        missing_text(m),
                        section.pct_sum
                    ));
                }
            } else if let Some(h) = header.filter(|_| samples && members == 1) {
                if sum < h.samples || sum - h.samples >= h.unit {
                    profile.warnings.push(format!(
                        "the Samples column sums to {sum}, but the header says '# Samples: {}'",
                        h.printed
                    ));
                }
            }
        }
        Weight::Percent => percent_totals(section, profile, missing, members, &missing_text),
    }
}

/// A percent-only section: the total from the header (or the event count,
/// or 100), and the percentages scaled into estimated counts.
fn percent_totals(
    section: &mut Section,
    profile: &mut Profile,
    missing: Option<f64>,
    members: u64,
    missing_text: &dyn Fn(f64) -> String,
) {
    let header = section.header.as_ref();
    let (total, reason) = match (header, section.event_count) {
        (Some(h), _) if members > 1 => (
            h.samples as f64 / members as f64,
            Some(format!(
                "percentages only; total from the '# Samples: {}' header of a group \
                 of {members} events, divided by {members}",
                h.printed
            )),
        ),
        (Some(h), _) if h.unit == 1 => (h.samples as f64, None),
        (Some(h), _) => (
            h.samples as f64,
            Some(format!(
                "percentages only; total from the rounded '# Samples: {}' header \
                 (perf truncates: {} to {})",
                h.printed,
                h.samples,
                h.samples.saturating_add(h.unit - 1)
            )),
        ),
        (None, Some(count)) if members == 1 => (
            count as f64,
            Some("percentages only; total from '# Event count (approx.)', a period".into()),
        ),
        (None, _) => (
            100.0,
            Some("percentages only and no '# Samples:' header: counts are percents".into()),
        ),
    };
    profile.warnings.push(precision(header.map(|h| h.unit)));
    let reason = match (reason, missing) {
        (Some(r), Some(m)) => Some(format!("{r}; {}", missing_text(m))),
        (r, _) => r,
    };
    if let Some(m) = missing {
        profile.warnings.push(missing_text(m));
    }
    for value in section.counts.values_mut() {
        *value = *value * total / 100.0;
    }
    profile.total = total;
    profile.total_approximate = reason;
}

/// What the estimated counts of a percent-only report are worth: each is a
/// percentage of 2 decimals (±0.005% of the total) times a total that perf
/// may have truncated (`# Samples: 4K` is 4000 to 4999). One text per kind
/// of header, so that the warnings of many runs merge.
fn precision(unit: Option<u64>) -> String {
    let total = match unit {
        Some(1) => "the exact '# Samples:' total".to_string(),
        Some(u) => {
            let (word, example) = match u {
                1_000 => ("thousands", "4K is 4000 to 4999"),
                1_000_000 => ("millions", "4M is 4000000 to 4999999"),
                _ => ("billions", "4G is 4e9 to 4.999e9"),
            };
            format!(
                "the '# Samples:' total, which perf truncates to {word} ({example}: up \
                 to 25% more)"
            )
        }
        None => "no sample total (none in the header)".to_string(),
    };
    format!(
        "percentages only (no Samples or Period column): counts are estimates, \
         2-decimal percentages (±0.005% each) of {total}; re-run perf report with -n \
         for exact sample counts"
    )
}

/// What the row filters (`--comm`, `--dso`) or perf's own `--comms` took
/// out of the run's total (`Profile::filtered_out`), once the kept counts
/// are in `profile.counts`.
///
/// The total stays every sample's (shares are absolute, as perf's). The
/// rows of other commands are known not to be the kept ones'; the rows a
/// report left out (`--percent-limit`) are nobody's known rows: in a report
/// of several commands (a Command or Pid:Command column), or of the one
/// command perf kept (`# comm: spin`, whose percentages may be of all
/// samples), they cannot be attributed to the kept command, so they are
/// not an `*unlisted*` row of it, and one warning gives the numbers.
pub(super) fn filtered(
    section: &Section,
    profile: &mut Profile,
    opts: &ParseOptions,
    perf_comm: Option<&str>,
) {
    let ours = opts.comm.is_some() || opts.dso.is_some();
    let missing = missing_share(section);
    if !ours && (perf_comm.is_none() || missing.is_none()) {
        return;
    }
    let kept = profile.symbol_sum();
    profile.filtered_out = (profile.total - kept).max(0.0);
    let Some(m) = missing else {
        return;
    };
    let source = profile.source.clone();
    let generic = missing_text(&source, m);
    profile.warnings.retain(|w| *w != generic);
    let unit = match profile.weight {
        Weight::Samples => "samples",
        Weight::Period => "period",
        Weight::Percent => "estimated samples",
    };
    let kept_text = format!("{:.0} {unit}", kept.round());
    let mut names: Vec<String> = Vec::new();
    if let Some(c) = &opts.comm {
        names.push(format!("--comm {c}"));
    }
    if let Some(d) = &opts.dso {
        names.push(format!("--dso {d}"));
    }
    let listed_kept = section.pct_sum - section.dropped_pct;
    let text = match perf_comm {
        Some(c) => format!(
            "{source}: rows holding {m:.2}% of the samples are missing, and the report \
             holds command {c} only (perf report --comms {c}: `# comm: {c}`), whose \
             percentages may be of all samples (the missing rows then are other commands' \
             too) or of {c}'s (perf's --percentage relative): none of them is counted as \
             {c}'s (no *unlisted* row); the listed rows{kept_by} hold {listed_kept:.2}% \
             ({kept_text}), and --percentage relative shares are of those",
            kept_by = if names.is_empty() {
                String::new()
            } else {
                format!(" {} kept", names.join(" "))
            },
        ),
        None => format!(
            "{source}: rows holding {m:.2}% of the samples are missing (perf report \
             --percent-limit, or a perf filter) in a report of {what}: which they belong to is \
             unknown, so none of them is counted as kept by {filters} (no *unlisted* row); \
             the listed rows kept hold {listed_kept:.2}% ({kept_text}), the others listed \
             {other:.2}% ({dropped}); --percentage relative shares are of the kept {kept_text}",
            what = if opts.comm.is_some() {
                "several commands"
            } else {
                "several dsos"
            },
            filters = names.join(" "),
            dropped = crate::text::plural(section.dropped, "row"),
            other = section.dropped_pct,
        ),
    };
    profile.warnings.push(text);
}
