//! Fuzz target: bytes as a counts-table file (Parquet, as `diffprofile
//! export` writes it or an engine rewrites it) read by
//! `diffprofile::table::reader::read`; it must return a table or an error
//! naming the file, never panic, hang or allocate without bound. Seeds: a
//! table exported from testdata (scripts/fuzz.sh).

#![no_main]

use diffprofile::table::{reader, select::Filter};
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let mut f = tempfile::NamedTempFile::new().expect("a temporary file");
    f.write_all(data).expect("write the case");
    let name = f.path().to_string_lossy().into_owned();
    if let Err(e) = reader::read(&name, &Filter::all()) {
        assert!(format!("{e:#}").starts_with(&name), "{e:#}");
    }
});
