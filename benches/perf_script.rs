//! Throughput of the perf script parser on a real file (run by hand or by
//! `scripts/bench-perf-script.sh`, not in CI).
//!
//! `DIFFPROFILE_BENCH_INPUT=FILE [DIFFPROFILE_BENCH_MODE=self|inclusive]
//! [DIFFPROFILE_BENCH_JOBS=N] [DIFFPROFILE_BENCH_FORMAT=perf-script|folded]
//! [DIFFPROFILE_BENCH_STREAM=1]
//! cargo bench --bench perf_script` parses FILE once and prints one line:
//! `mode bytes seconds MB/s symbols total`. With `DIFFPROFILE_BENCH_DUMP=1`
//! it then prints every symbol as `count<TAB>mode<TAB>dso<TAB>name` (for
//! checking against `perf report --no-children --sort dso,sym -n`).

use diffprofile::format::{folded, perf_script, ParseOptions};
use std::io::BufReader;
use std::time::Instant;

fn main() {
    let Ok(path) = std::env::var("DIFFPROFILE_BENCH_INPUT") else {
        eprintln!("perf_script bench: set DIFFPROFILE_BENCH_INPUT=FILE (perf script text)");
        return;
    };
    let mode = std::env::var("DIFFPROFILE_BENCH_MODE").unwrap_or_else(|_| "self".into());
    let format = std::env::var("DIFFPROFILE_BENCH_FORMAT").unwrap_or_else(|_| "perf-script".into());
    let jobs: usize = std::env::var("DIFFPROFILE_BENCH_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(0);
    if jobs > 0 {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build_global()
        {
            eprintln!("perf_script bench: {e}");
        }
    }
    let opts = ParseOptions {
        inclusive: mode == "inclusive",
        ..ParseOptions::default()
    };
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("perf_script bench: {path}: {e}");
            std::process::exit(2);
        }
    };
    let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
    // As the command line reads a plain file: mapped. With
    // DIFFPROFILE_BENCH_STREAM=1, through a reader, as it reads stdin and
    // decompressed input.
    let stream = std::env::var_os("DIFFPROFILE_BENCH_STREAM").is_some();
    let start = Instant::now();
    let parsed = match (format == "folded", stream) {
        (false, false) => perf_script::parse_file(&file, &path, &opts),
        (true, false) => folded::parse_file(&file, &path, &opts),
        (false, true) => {
            perf_script::parse(&mut BufReader::with_capacity(1 << 16, file), &path, &opts)
        }
        (true, true) => folded::parse(&mut BufReader::with_capacity(1 << 16, file), &path, &opts),
    };
    let secs = start.elapsed().as_secs_f64();
    match parsed {
        Ok(p) => {
            println!(
                "{mode} {bytes} {secs:.3} {:.0} {} {}",
                bytes as f64 / secs / 1e6,
                p.counts.len(),
                p.total
            );
            if std::env::var_os("DIFFPROFILE_BENCH_DUMP").is_some() {
                for w in &p.warnings {
                    println!("warning: {w}");
                }
                for (k, v) in &p.counts {
                    let m = k.mode.map_or("-", |m| m.as_str());
                    let d = k.dso.as_deref().unwrap_or("-");
                    println!("{v}\t{m}\t{d}\t{}", k.name);
                }
            }
        }
        Err(e) => {
            eprintln!("perf_script bench: {e}");
            std::process::exit(2);
        }
    }
}
