//! Fuzz target: bytes (first byte = parse-option flags) into the
//! `readprofile` parser via `diffprofile::format::parse`; it must return a
//! profile or an error, never panic, hang or allocate without bound.

#![no_main]

mod common;

use diffprofile::profile::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    common::parse_one(Format::Readprofile, data);
});
