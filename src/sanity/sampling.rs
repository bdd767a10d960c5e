//! Sampling rates that differ, where counts are compared as counts.
//!
//! A perf.data run says how it sampled (`-F 999`: a frequency; `-c N`: a
//! period, [`crate::profile::Profile::sampling`]). The same workload
//! recorded at `-F 1999` has twice the samples of one at `-F 999`: under
//! `-n ticks` (and `-o classic`, whose unit is mean ticks per run) every
//! symbol seems to double, a "regression" of the rate, not of the kernel.
//! Shares (`-n share`, the default) do not depend on the rate.
//!
//! Input: the sides. Output: a warning when the sides' rates differ, and
//! one per side whose runs differ among themselves.

use crate::aggregate::Side;
use std::collections::BTreeMap;

/// The warnings for `sides` compared in `unit` (`-n ticks`, `-o classic`).
pub fn check(sides: &[Side], unit: &str) -> Vec<String> {
    let advice = format!(
        "under {unit} counts scale with the sampling rate, so every symbol seems to change: \
         compare shares (-n share, the default), or record both at one rate"
    );
    let mut out = Vec::new();
    let mut each: Vec<(String, &str)> = Vec::new();
    for side in sides {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &side.runs {
            if let Some(s) = r.sampling.as_deref() {
                *by.entry(s).or_default() += 1;
            }
        }
        let name = crate::text::side_name(&side.name);
        match by.len() {
            0 => {}
            1 => each.extend(by.keys().map(|s| (name.clone(), *s))),
            _ => {
                let parts: Vec<String> = by.iter().map(|(s, n)| format!("{s}: {n}")).collect();
                out.push(format!(
                    "{name}'s runs were recorded at different sampling rates ({} runs); {advice}",
                    parts.join(", ")
                ));
            }
        }
    }
    if each.len() > 1 && each.iter().any(|(_, s)| *s != each[0].1) {
        let parts: Vec<String> = each.iter().map(|(n, s)| format!("{n} at {s}")).collect();
        out.push(format!(
            "the sides were recorded at different sampling rates ({}); {advice}",
            parts.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Format, Profile};

    fn side(name: &str, rates: &[Option<&str>]) -> Side {
        let runs = rates
            .iter()
            .map(|r| {
                let mut p = Profile::new(format!("{name}.data"), Format::PerfData);
                p.sampling = r.map(str::to_string);
                p
            })
            .collect();
        Side::new(name, runs)
    }

    #[test]
    fn differing_rates_are_said_per_side_and_across() {
        let same = [
            side("OLD", &[Some("-F 999")]),
            side("NEW", &[Some("-F 999")]),
        ];
        assert!(check(&same, "-n ticks").is_empty());
        let across = [
            side("OLD", &[Some("-F 999")]),
            side("NEW", &[Some("-F 1999")]),
        ];
        let w = check(&across, "-n ticks");
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("OLD at -F 999, NEW at -F 1999"), "{w:?}");
        assert!(w[0].contains("-n share"), "{w:?}");
        let within = [
            side("OLD", &[Some("-F 999"), Some("-c 10000"), None]),
            side("NEW", &[None]),
        ];
        let w = check(&within, "-o classic");
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("(-F 999: 1, -c 10000: 1 runs)"), "{w:?}");
    }
}
