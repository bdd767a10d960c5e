//! The damage test (issue 8, "done when"): hundreds of randomly damaged
//! real profiles of every format from `testdata/` (bit flips, byte
//! insertions and deletions, truncations at random offsets, splices of two
//! files, line shuffles; some re-compressed with gzip) run through the real
//! binary with a timeout each. Never a panic, never a hang, exit 0 or 2
//! only; every error names the damaged file, and a parse error of a
//! line-based format names the line (`path:N:`). Deterministic: a fixed
//! seed drives a small xorshift generator.

use crate::malformed::run_with_timeout;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Cases per source file; 21 sources × 40 = 840 runs.
const PER_SOURCE: usize = 40;
const SEED: u64 = 0x5eed_d1ff_0f11_e000;
/// Only catches a hang (a damaged input that makes the binary loop): no
/// case is anywhere near it, and speed is not tested here.
const TIMEOUT: Duration = Duration::from_secs(120);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// A real file of one format, decompressed and cut to a line-bounded prefix
/// (binary formats whole), with the extra flags it needs.
struct Source {
    name: &'static str,
    format: &'static str,
    line_based: bool,
    bytes: Vec<u8>,
    extra: Vec<String>,
}

fn read(path: &str) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    } else {
        raw
    }
}

fn prefix_lines(bytes: Vec<u8>, lines: usize) -> Vec<u8> {
    let mut n = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            n += 1;
            if n == lines {
                return bytes[..=i].to_vec();
            }
        }
    }
    bytes
}

/// The directory of the small System.map the proc-profile source names
/// (removed by the caller's guard).
fn map_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("diffprofile-damage-map-{}", std::process::id()))
}

fn sources() -> Vec<Source> {
    let text = |name, format, path: &str, lines| Source {
        name,
        format,
        line_based: true,
        bytes: prefix_lines(read(path), lines),
        extra: Vec::new(),
    };
    let kallsyms = Path::new("testdata/raw/kallsyms.gz")
        .canonicalize()
        .unwrap();
    let mut v = vec![
        text(
            "rp-default",
            "readprofile",
            "testdata/readprofile/default/sockets/run1.txt",
            400,
        ),
        text(
            "rp-verbose",
            "readprofile",
            "testdata/readprofile/verbose/pipes/run2.txt",
            400,
        ),
        text(
            "rp-sorted",
            "readprofile",
            "testdata/readprofile/sorted/threads/run3.txt",
            400,
        ),
        text(
            "rp-bins",
            "readprofile",
            "testdata/readprofile/variants/sockets-bins.txt",
            300,
        ),
        text(
            "rp-counters",
            "readprofile",
            "testdata/readprofile/variants/sockets-counters.txt.gz",
            300,
        ),
        text(
            "pr-sym-n",
            "perf-report",
            "testdata/perf-report/sym-n/sockets/run1.txt",
            400,
        ),
        text(
            "pr-dso-sym-n",
            "perf-report",
            "testdata/perf-report/dso-sym-n/pipes/run1.txt",
            400,
        ),
        text(
            "pr-default",
            "perf-report",
            "testdata/perf-report/default/threads/run1.txt",
            400,
        ),
        text(
            "pr-percent",
            "perf-report",
            "testdata/perf-report/percent/sockets/run2.txt",
            400,
        ),
        text(
            "pr-children",
            "perf-report",
            "testdata/perf-report/variants/sockets-g-children.txt.gz",
            300,
        ),
        Source {
            extra: vec!["--event".into(), "cpu-clock".into()],
            ..text(
                "pr-multi",
                "perf-report",
                "testdata/perf-report/variants/sockets-multi-event.txt",
                600,
            )
        },
        text(
            "pr-period",
            "perf-report",
            "testdata/perf-report/variants/sockets-total-period.txt",
            400,
        ),
        text(
            "ps-plain",
            "perf-script",
            "testdata/perf-script/sockets.txt.gz",
            300,
        ),
        text(
            "ps-g",
            "perf-script",
            "testdata/perf-script/pipes-g.txt.gz",
            300,
        ),
        text(
            "ps-F",
            "perf-script",
            "testdata/perf-script/sockets-F.txt.gz",
            300,
        ),
        text("folded", "folded", "testdata/folded/sockets.folded.gz", 300),
        text(
            "folded-threads",
            "folded",
            "testdata/folded/threads.folded.gz",
            300,
        ),
    ];
    // No real opreport output exists in testdata/: derive one in opreport's
    // shape from a real readprofile dump's counts.
    let rp = String::from_utf8(read("testdata/readprofile/default/sockets/run1.txt")).unwrap();
    let rows: Vec<(u64, &str)> = rp
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let c = f.next()?.parse().ok()?;
            let n = f.next()?;
            (n != "total" && n != "*unknown*" && c > 0).then_some((c, n))
        })
        .collect();
    let sum: u64 = rows.iter().map(|r| r.0).sum();
    let mut op = "samples  %        image name               symbol name\n".to_string();
    for (c, n) in rows {
        op.push_str(&format!(
            "{c:<8} {:<8.4} {:<24} {n}\n",
            100.0 * c as f64 / sum as f64,
            "vmlinux"
        ));
    }
    v.push(Source {
        name: "opreport",
        format: "opreport",
        line_based: true,
        bytes: op.into_bytes(),
        extra: Vec::new(),
    });
    for (name, path) in [
        (
            "perf-data-sockets",
            "testdata/raw/sockets-run1.perf.data.gz",
        ),
        ("perf-data-pipes", "testdata/raw/pipes-run1.perf.data.gz"),
    ] {
        v.push(Source {
            name,
            format: "perf-data",
            line_based: false,
            bytes: read(path),
            extra: vec!["--kallsyms".into(), kallsyms.to_string_lossy().into_owned()],
        });
    }
    // A real /proc/profile image is 18 MB (too slow to damage hundreds of
    // times in a debug build): a small one over a small map of the same
    // shape (step 4, 128 counters from `_stext`).
    let dir = map_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let map = dir.join("System.map");
    std::fs::write(
        &map,
        "ffffffff81000000 T _stext\nffffffff81000010 T do_schedule\n\
         ffffffff81000040 t finish_task_switch.isra.0\nffffffff81000100 W clear_page_erms\n\
         ffffffff81000180 T __x64_sys_read\nffffffff81000200 T _etext\n",
    )
    .unwrap();
    let mut img = 4u32.to_le_bytes().to_vec();
    for i in 0..128u32 {
        img.extend_from_slice(&(i * 7 % 5).to_le_bytes());
    }
    v.push(Source {
        name: "proc-profile",
        format: "proc-profile",
        line_based: false,
        bytes: img,
        extra: vec!["--map".into(), map.to_string_lossy().into_owned()],
    });
    v
}

/// Damage `src` (with `other` for splices); returns the bytes and what was done.
fn damage(rng: &mut Rng, src: &[u8], other: &[u8]) -> (Vec<u8>, String) {
    let mut b = src.to_vec();
    let len = b.len().max(1);
    match rng.below(7) {
        0 => {
            let flips = 1 + rng.below(8);
            for _ in 0..flips {
                let i = rng.below(b.len());
                if let Some(x) = b.get_mut(i) {
                    *x ^= 1 << rng.below(8);
                }
            }
            (b, format!("{flips} bit flip(s)"))
        }
        1 => {
            let n = 1 + rng.below(16);
            for _ in 0..n {
                let i = rng.below(b.len() + 1);
                let byte = match rng.below(4) {
                    0 => b'\n',
                    1 => 0,
                    2 => b"0123456789 -.%;#[]\t"[rng.below(19)],
                    _ => rng.next() as u8,
                };
                b.insert(i, byte);
            }
            (b, format!("{n} byte insertion(s)"))
        }
        2 => {
            let n = 1 + rng.below(64);
            let at = rng.below(b.len());
            let end = (at + n).min(b.len());
            b.drain(at..end);
            (b, format!("{} bytes deleted at {at}", end - at))
        }
        3 => {
            let at = rng.below(len);
            b.truncate(at);
            (b, format!("truncated at {at}"))
        }
        4 => {
            let at = rng.below(len);
            let from = rng.below(other.len().max(1));
            b.truncate(at);
            b.extend_from_slice(other.get(from..).unwrap_or(&[]));
            (b, format!("spliced at {at} with another file from {from}"))
        }
        5 => {
            let mut lines: Vec<&[u8]> = b.split_inclusive(|&c| c == b'\n').collect();
            let swaps = 1 + rng.below(6);
            for _ in 0..swaps {
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                if i < lines.len() && j < lines.len() {
                    lines.swap(i, j);
                }
            }
            (lines.concat(), format!("{swaps} line swap(s)"))
        }
        _ => {
            // Overwrite a random run with a random chunk of the other file.
            let at = rng.below(len);
            let from = rng.below(other.len().max(1));
            let n = 1 + rng.below(200);
            let chunk = other.get(from..(from + n).min(other.len())).unwrap_or(&[]);
            for (k, &c) in chunk.iter().enumerate() {
                if let Some(x) = b.get_mut(at + k) {
                    *x = c;
                }
            }
            (b, format!("{} bytes overwritten at {at}", chunk.len()))
        }
    }
}

struct Case {
    file: String,
    source: usize,
    what: String,
    lenient: bool,
    forced: bool,
}

#[test]
fn damaged_real_profiles_never_crash() {
    let start = Instant::now();
    /// Removes the map directory however the test ends.
    struct MapDir;
    impl Drop for MapDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(map_dir());
        }
    }
    let _map_dir = MapDir;
    let srcs = sources();
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(SEED);
    let mut cases = Vec::new();
    for (s, src) in srcs.iter().enumerate() {
        for k in 0..PER_SOURCE {
            let other = &srcs[rng.below(srcs.len())].bytes;
            let (mut bytes, mut what) = damage(&mut rng, &src.bytes, other);
            if rng.below(6) == 0 {
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                gz.write_all(&bytes).unwrap();
                bytes = gz.finish().unwrap();
                what.push_str(", gzipped");
                if rng.below(2) == 0 {
                    let cut = rng.below(bytes.len());
                    bytes.truncate(cut);
                    what.push_str(&format!(", gzip cut at {cut}"));
                }
            }
            let file = format!("{}-{k:02}.prof", src.name);
            std::fs::write(tmp.path().join(&file), &bytes).unwrap();
            cases.push(Case {
                file,
                source: s,
                what,
                lenient: rng.below(3) == 0,
                forced: rng.below(4) == 0,
            });
        }
    }
    // The undamaged originals, as the NEW side of each comparison.
    for src in &srcs {
        std::fs::write(tmp.path().join(format!("{}.orig", src.name)), &src.bytes).unwrap();
    }
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let outcomes = Mutex::new([0usize; 3]);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let src = &srcs[case.source];
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_diffprofile"));
                cmd.current_dir(tmp.path())
                    .env_remove("NO_COLOR")
                    .arg(&case.file)
                    .arg(format!("{}.orig", src.name))
                    .args(&src.extra)
                    .args(["--top", "5"]);
                if case.lenient {
                    cmd.arg("--lenient");
                }
                if case.forced {
                    cmd.args(["-f", src.format]);
                }
                let problem = match run_with_timeout(&mut cmd, TIMEOUT) {
                    None => Some("hung (killed after 120 s)".to_string()),
                    Some(out) => {
                        let err = String::from_utf8_lossy(&out.stderr).into_owned();
                        let code = out.status.code();
                        outcomes.lock().unwrap()[match code {
                            Some(0) => 0,
                            Some(2) => 1,
                            _ => 2,
                        }] += 1;
                        check(code, &err, &case.file, src.line_based)
                            .map(|why| format!("{why}\n--- stderr:\n{err}"))
                    }
                };
                if let Some(p) = problem {
                    failures.lock().unwrap().push(format!(
                        "{} ({}; {}{}): {p}",
                        case.file,
                        case.what,
                        if case.lenient { "--lenient " } else { "" },
                        if case.forced { "-f" } else { "auto" }
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let [ok, err, other] = outcomes.into_inner().unwrap();
    eprintln!(
        "damage: {} cases from {} sources in {:?}: {ok} exit 0, {err} exit 2, {other} other",
        cases.len(),
        srcs.len(),
        start.elapsed()
    );
    if !failures.is_empty() {
        // Keep the damaged files for a look.
        let kept = tmp.keep();
        panic!(
            "{} of {} damaged profiles misbehaved (files kept in {}):\n{}",
            failures.len(),
            cases.len(),
            kept.display(),
            failures.join("\n\n")
        );
    }
}

/// What is wrong with one run's outcome, if anything.
fn check(code: Option<i32>, err: &str, file: &str, line_based: bool) -> Option<String> {
    if err.contains("panicked") || code == Some(101) {
        return Some("panicked".into());
    }
    match code {
        Some(0) => None,
        Some(2) => {
            let error = err
                .lines()
                .find(|l| l.starts_with("diffprofile: error:"))
                .unwrap_or("");
            if !error.contains(file) {
                return Some(format!("error does not name the file: {error:?}"));
            }
            // A parse error of a line-based format names the line.
            let parse_error = error.contains(", found \"");
            if parse_error && line_based {
                let named = error
                    .split(&format!("{file}:"))
                    .nth(1)
                    .and_then(|rest| rest.split(':').next())
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
                if !named {
                    return Some(format!("parse error without a line number: {error:?}"));
                }
            }
            None
        }
        other => Some(format!("exit status {other:?}")),
    }
}
