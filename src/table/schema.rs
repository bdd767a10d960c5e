//! The counts table's schema, version 1: one row per symbol of one run, as
//! docs/archives.md documents it. Column names, the Arrow
//! schema the writer uses, and the key-value metadata keys. The reader
//! accepts the same columns from any engine (other string and number
//! encodings, nullable or not, missing optional columns).

use arrow_schema::{DataType, Field, Schema};
use std::sync::Arc;

/// The schema version written to the file's key-value metadata.
pub const VERSION: u32 = 1;

/// Key-value metadata: the schema version (a number).
pub const KEY_VERSION: &str = "diffprofile.table_version";
/// Key-value metadata: the diffprofile version that wrote the file.
pub const KEY_WRITER: &str = "diffprofile.writer";
/// Key-value metadata: how the rows were named (identity options).
pub const KEY_IDENTITY: &str = "diffprofile.identity";
/// Key-value metadata: how the runs were read (parse options, layout).
pub const KEY_INPUT: &str = "diffprofile.input";
/// Key-value metadata: the header notes of the export's options (a JSON
/// array of strings), restored in reports from the table.
pub const KEY_NOTES: &str = "diffprofile.notes";
/// Key-value metadata: `K/N` when the file is one shard of an export.
pub const KEY_SHARD: &str = "diffprofile.shard";

pub const KERNEL: &str = "kernel";
pub const BENCHMARK: &str = "benchmark";
pub const RUN: &str = "run";
pub const SOURCE: &str = "source";
pub const FORMAT: &str = "format";
pub const EVENT: &str = "event";
pub const SYMBOL: &str = "symbol";
pub const DSO: &str = "dso";
pub const MODE: &str = "mode";
pub const COUNT: &str = "count";
pub const RUN_TOTAL: &str = "run_total";
pub const DURATION_S: &str = "duration_s";
pub const WORK: &str = "work";
pub const INPUT_SYMBOL: &str = "input_symbol";
pub const INPUT_DSO: &str = "input_dso";
pub const WEIGHT: &str = "weight";
pub const TOTAL_APPROXIMATE: &str = "total_approximate";
pub const WARNINGS: &str = "warnings";
/// Why the run's `[unknown]` samples are unknown, as JSON
/// (`{"why": {dso: reason}, "hint": text}`), for the report's one warning
/// about them ([`crate::format::unresolved::summary`]).
pub const UNRESOLVED: &str = "unresolved";
/// What the recording says of the machine it was made on, as JSON (the
/// kernel release and build-id, the kernel map that named its samples,
/// the build-ids of its binaries), for the report's notes and the checks
/// across runs ([`crate::profile::Provenance`]); NULL when it says nothing.
pub const PROVENANCE: &str = "provenance";

/// Columns every table must have (the reader refuses a table without them).
pub const REQUIRED: [&str; 10] = [
    KERNEL, BENCHMARK, RUN, SOURCE, FORMAT, EVENT, SYMBOL, DSO, COUNT, RUN_TOTAL,
];

/// Columns a run's selector (`--old`, `--new`, `--where`) may name.
pub const SELECTABLE: [&str; 6] = [KERNEL, BENCHMARK, RUN, SOURCE, FORMAT, EVENT];

/// The pseudo rows of a run: samples no symbol claims (readprofile's
/// `*unknown*`) and rows a report left out (`*unlisted*`).
pub use crate::aggregate::{UNKNOWN_ROW, UNLISTED_ROW};

/// The Arrow schema of the columns, in order.
pub fn arrow_schema() -> Arc<Schema> {
    let s = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    let f = |name: &str, nullable: bool| Field::new(name, DataType::Float64, nullable);
    Arc::new(Schema::new(vec![
        s(KERNEL, false),
        s(BENCHMARK, false),
        s(RUN, false),
        s(SOURCE, false),
        s(FORMAT, false),
        s(EVENT, true),
        s(SYMBOL, true),
        s(DSO, true),
        s(MODE, true),
        f(COUNT, false),
        f(RUN_TOTAL, false),
        f(DURATION_S, true),
        f(WORK, true),
        s(INPUT_SYMBOL, true),
        s(INPUT_DSO, true),
        s(WEIGHT, false),
        s(TOTAL_APPROXIMATE, true),
        Field::new(
            WARNINGS,
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
        s(UNRESOLVED, true),
        s(PROVENANCE, true),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_and_selectable_columns_are_in_the_schema() {
        let schema = arrow_schema();
        for name in REQUIRED.iter().chain(&SELECTABLE) {
            assert!(schema.field_with_name(name).is_ok(), "{name}");
        }
        assert_eq!(schema.fields().len(), 20);
    }
}
