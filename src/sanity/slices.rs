//! Runs that are slices of one `perf record --switch-output` recording.
//!
//! Input: the loaded sides, with each perf.data run's recorded command
//! line. Output: an error when one side holds two or more runs recorded by
//! the same `perf record --switch-output…` command: perf wrote them as the
//! time slices of one run (`perf.data.<timestamp>`, later slices without
//! the mmap events that name user-space code), so pooled as replicates
//! their differences would be taken for run-to-run noise.

use crate::aggregate::Side;
use anyhow::{bail, Result};

/// Is this a `perf record` command line with `--switch-output` (any form:
/// `--switch-output`, `--switch-output=1s`, `--switch-output-event …`)?
fn switches_output(args: &[String]) -> bool {
    args.iter().any(|a| a.starts_with("--switch-output"))
}

/// Refuse a side whose runs are slices of one recording (see the module
/// text), naming the slices and the command.
pub fn check(sides: &[Side]) -> Result<()> {
    for side in sides {
        let mut by_cmd: Vec<(&[String], Vec<&str>)> = Vec::new();
        for run in &side.runs {
            let Some(args) = run.provenance.cmdline.as_deref() else {
                continue;
            };
            if !switches_output(args) {
                continue;
            }
            match by_cmd.iter_mut().find(|(a, _)| *a == args) {
                Some((_, runs)) => runs.push(&run.source),
                None => by_cmd.push((args, vec![&run.source])),
            }
        }
        let Some((args, runs)) = by_cmd.into_iter().find(|(_, r)| r.len() > 1) else {
            continue;
        };
        let shown: Vec<&str> = runs.iter().take(super::LIST_MAX).copied().collect();
        let more = match runs.len().saturating_sub(super::LIST_MAX) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        bail!(
            "{}: {} runs ({}{more}) are slices of one recording, `{}`: perf \
             --switch-output cut one run into them, so they are not replicates (their \
             differences are not run-to-run noise, and the later slices lack the mmap \
             events that name user-space code); diffprofile does not join them: record \
             each run without --switch-output, one perf.data per run",
            side.name,
            runs.len(),
            shown.join(", "),
            crate::text::printable(&args.join(" "))
        );
    }
    Ok(())
}
