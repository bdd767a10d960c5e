//! Fuzz target: archive reading. The bytes are written to a file (one per
//! fuzzing process) and loaded as one side with `diffprofile::load::load_side`,
//! exactly as a path on the command line: compression by magic bytes, tar
//! detection, every member detected and parsed in place (never extracted).
//! Nothing may panic; nothing may be written outside the temp file.

#![no_main]

mod common;

use diffprofile::load::{self, LoadOptions};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn scratch() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        std::env::temp_dir().join(format!("diffprofile-fuzz-archive-{}", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let path = scratch();
    if std::fs::write(path, body).is_err() {
        return;
    }
    let opts = LoadOptions {
        format: None,
        parse: common::options(flags),
        path_maps: Default::default(),
        path_advice: Default::default(),
    };
    if let Ok(loaded) = load::load_side(&[path.to_string_lossy().into_owned()], &opts) {
        for p in &loaded.runs {
            common::check(p);
        }
    }
});
