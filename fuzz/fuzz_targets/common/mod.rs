//! Shared by the fuzz targets: parse options chosen by the input's first
//! byte (so one corpus explores strict and lenient parsing, inclusive
//! counting, stacks, period weight and the kernel filter), small fixed symbol
//! maps for the formats that need one, and a parse-and-check helper.

#![allow(dead_code)]

use diffprofile::format::{self, ParseOptions, WeightBy};
use diffprofile::profile::{Format, Profile};
use diffprofile::symmap::SymbolMap;
use std::sync::{Arc, OnceLock};

/// A small System.map: `_stext`, a few text symbols (one alias), `_etext`.
/// With step 4 an image of 1 + 128 u32 words covers it.
pub const SYSTEM_MAP: &str = "\
ffffffff81000000 T _stext
ffffffff81000000 T _text
ffffffff81000010 T do_schedule
ffffffff81000040 t finish_task_switch.isra.0
ffffffff81000040 t finish_task_switch_alias
ffffffff81000100 W clear_page_erms
ffffffff81000180 T __x64_sys_read
ffffffff81000200 T _etext
";

pub fn system_map() -> Arc<SymbolMap> {
    static MAP: OnceLock<Arc<SymbolMap>> = OnceLock::new();
    MAP.get_or_init(|| {
        Arc::new(SymbolMap::parse(SYSTEM_MAP.as_bytes(), "fuzz.map").expect("fixed map parses"))
    })
    .clone()
}

/// The trimmed kallsyms of `testdata/raw/` (the boot the committed
/// perf.data files were recorded on), so seeds resolve kernel symbols.
pub fn kallsyms() -> Arc<SymbolMap> {
    static MAP: OnceLock<Arc<SymbolMap>> = OnceLock::new();
    MAP.get_or_init(|| {
        let text = include_str!("kallsyms.txt");
        Arc::new(SymbolMap::parse(text.as_bytes(), "fuzz.kallsyms").expect("fixed map parses"))
    })
    .clone()
}

/// Options from one flag byte.
pub fn options(flags: u8) -> ParseOptions {
    ParseOptions {
        lenient: flags & 1 != 0,
        inclusive: flags & 2 != 0,
        stacks: flags & 4 != 0,
        weight: if flags & 8 != 0 {
            WeightBy::Period
        } else {
            WeightBy::Samples
        },
        kernel_only: flags & 16 != 0,
        event: if flags & 32 != 0 {
            Some("task-clock".to_string())
        } else {
            None
        },
        map: Some(system_map()),
        kallsyms: Some(kallsyms()),
        ..ParseOptions::default()
    }
}

/// Invariants every parsed profile must hold, whatever the input.
pub fn check(p: &Profile) {
    assert!(!p.total.is_nan(), "NaN total");
    for (k, v) in &p.counts {
        assert!(!v.is_nan(), "NaN count for {:?}", k.name);
    }
}

/// First byte: flags; the rest: the input of `format`.
pub fn parse_one(format: Format, data: &[u8]) {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let opts = options(flags);
    let mut reader = body;
    if let Ok(p) = format::parse(format, &mut reader, "fuzz", &opts) {
        check(&p);
    }
    // Detection must never panic either.
    let _ = format::sniff(format, body, true);
    let _ = format::sniff(format, body, false);
}
