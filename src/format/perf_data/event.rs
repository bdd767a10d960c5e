//! The event a perf.data file is read for: `--event NAME`, or the first
//! real one (a warning when there are several), with its sampling period
//! and the privilege levels its attributes sample.
//!
//! Input: the file's event attributes (with their flags as recorded,
//! [`super::attrs`]; their names from
//! `HEADER_EVENT_DESC`; a file without that section, as a killed recording
//! is, gets perf's name for the attribute's type and config, with the
//! `:u`/`:k` modifiers its exclude bits imply). Output: an [`Event`].

use super::{ParseError, ParseOptions};
use crate::profile::EventScope;
use linux_perf_data::linux_perf_event_reader::{
    AttrFlags, HardwareEventId, PerfEventAttr, PerfEventType, SampleFormat, SamplingPolicy,
    SoftwareCounterType,
};
use linux_perf_data::PerfFile;

/// The event whose samples are counted.
pub(super) struct Event {
    /// Its attribute index.
    pub index: usize,
    pub name: String,
    /// The sampling period when every sample has the same one.
    pub fixed_period: Option<u64>,
    /// How the event sampled, as perf record's flag: `-F 999`, `-c 10000`.
    pub sampling: Option<String>,
    /// The privilege levels it samples (`exclude_user`, …).
    pub scope: EventScope,
    /// Samples carry a copy of the user stack (`--call-graph dwarf`) for
    /// an unwinder: their callchains hold the kernel part only.
    pub dwarf_stacks: bool,
}

/// `--event`, or the first real event (a warning when there are several).
pub(super) fn choose_event(
    perf_file: &PerfFile,
    flagged: &[PerfEventAttr],
    opts: &ParseOptions,
    origin: &str,
    warnings: &mut Vec<String>,
) -> Result<Event, ParseError> {
    let attrs = perf_file.event_attributes();
    let names: Vec<String> = attrs
        .iter()
        .enumerate()
        .map(|(i, a)| {
            a.name()
                .map_or_else(|| attr_name(&flagged[i], i), str::to_string)
        })
        .collect();
    let chosen = match &opts.event {
        Some(want) => names.iter().position(|n| n == want).ok_or_else(|| {
            ParseError::invalid(
                origin,
                format!(
                    "no event `{want}` in this file; it holds: {}",
                    names.join(", ")
                ),
            )
        })?,
        None => {
            // `perf record -a` adds a `dummy:HG` tracking event without samples.
            let real: Vec<usize> = (0..names.len())
                .filter(|&i| !names[i].starts_with("dummy"))
                .collect();
            if real.len() > 1 {
                warnings.push(format!(
                    "{origin}: holds {} events ({}); read `{}`, choose with --event",
                    real.len(),
                    real.iter()
                        .map(|&i| names[i].as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    names[real[0]]
                ));
            }
            real.first().copied().unwrap_or(0)
        }
    };
    let attr = &flagged[chosen];
    let fixed_period = match attr.sampling_policy {
        SamplingPolicy::Period(p) => Some(p.get()),
        _ => None,
    };
    let sampling = match attr.sampling_policy {
        SamplingPolicy::Period(p) => Some(format!("-c {p}")),
        SamplingPolicy::Frequency(f) => Some(format!("-F {f}")),
        SamplingPolicy::NoSampling => None,
    };
    let scope = EventScope {
        user: !attr.flags.contains(AttrFlags::EXCLUDE_USER),
        kernel: !attr.flags.contains(AttrFlags::EXCLUDE_KERNEL),
        hv: !attr.flags.contains(AttrFlags::EXCLUDE_HV),
    };
    Ok(Event {
        index: chosen,
        name: names[chosen].clone(),
        fixed_period,
        sampling,
        scope,
        dwarf_stacks: attr.sample_format.contains(SampleFormat::STACK_USER),
    })
}

/// perf's name of an attribute without a recorded name (`cpu-clock`,
/// `cycles:u`), else `event{i}`.
fn attr_name(attr: &PerfEventAttr, i: usize) -> String {
    let base = match attr.type_ {
        PerfEventType::Software(s) => match s {
            SoftwareCounterType::CpuClock => "cpu-clock",
            SoftwareCounterType::TaskClock => "task-clock",
            SoftwareCounterType::PageFaults => "page-faults",
            SoftwareCounterType::ContextSwitches => "context-switches",
            SoftwareCounterType::CpuMigrations => "cpu-migrations",
            SoftwareCounterType::PageFaultsMin => "minor-faults",
            SoftwareCounterType::PageFaultsMaj => "major-faults",
            SoftwareCounterType::Dummy => "dummy",
            _ => return format!("event{i}"),
        },
        PerfEventType::Hardware(h, _) => match h {
            HardwareEventId::CpuCycles => "cycles",
            HardwareEventId::Instructions => "instructions",
            HardwareEventId::CacheReferences => "cache-references",
            HardwareEventId::CacheMisses => "cache-misses",
            HardwareEventId::BranchInstructions => "branches",
            HardwareEventId::BranchMisses => "branch-misses",
            _ => return format!("event{i}"),
        },
        _ => return format!("event{i}"),
    };
    let (u, k) = (
        attr.flags.contains(AttrFlags::EXCLUDE_USER),
        attr.flags.contains(AttrFlags::EXCLUDE_KERNEL),
    );
    match (u, k) {
        (false, true) => format!("{base}:u"),
        (true, false) => format!("{base}:k"),
        _ => base.to_string(),
    }
}
