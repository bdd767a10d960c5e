//! JIT-compiled code: perf's `/tmp/perf-PID.map` symbol maps.
//!
//! A runtime that compiles code (a JVM with perf-map-agent, node
//! `--perf-basic-prof`, LuaJIT, …) writes one line per function,
//! `START SIZE name` (hexadecimal, `0x` optional), to `/tmp/perf-PID.map`.
//! perf gives every executable anonymous mapping of process PID
//! (`//anon`, `/dev/zero`, `/anon_hugepage`, `[heap]`, `[stack…]`,
//! `/SYSV…`) the dso `/tmp/perf-PID.map` (shown as `[JIT] tid PID`) and
//! names its addresses from that file. Input: the pid and the directories
//! to look in (`--jit-map-dir DIR` first, then `/tmp`). Output: an
//! [`ElfSymbols`] keyed by absolute address, or why there is none. Like
//! perf, a file in `/tmp` owned by someone else than root or the current
//! user is ignored (anyone can write there).

use super::elf::Why;
use super::symtab::{ElfSymbols, Table};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The dso perf gives the anonymous executable memory of `pid`.
pub fn dso_name(pid: i32) -> String {
    format!("/tmp/perf-{pid}.map")
}

/// Mappings perf treats as anonymous (`is_anon_memory`, `is_no_dso_memory`).
pub fn is_anonymous(path: &str) -> bool {
    path == "//anon"
        || path.starts_with("/dev/zero")
        || path.starts_with("/anon_hugepage")
        || path.starts_with("[stack")
        || path.starts_with("/SYSV")
        || path == "[heap]"
}

/// Load the map of `pid` from the first of `dirs` that has it, else `/tmp`.
pub fn load(pid: i32, dirs: &[PathBuf]) -> Result<ElfSymbols, Why> {
    let name = format!("perf-{pid}.map");
    for dir in dirs {
        let path = dir.join(&name);
        if path.is_file() {
            return read(&path);
        }
    }
    let path = Path::new("/tmp").join(&name);
    let meta = std::fs::metadata(&path).map_err(|_| {
        format!(
            "{}: no such file (JIT code: give the map with --jit-map-dir DIR)",
            path.display()
        )
    })?;
    // The owner of /proc/self is the effective user.
    let me = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    if meta.uid() != 0 && Some(meta.uid()) != me {
        return Err(format!(
            "{}: not owned by root or the current user, ignored (copy it to a \
             directory of yours and give --jit-map-dir)",
            path.display()
        ));
    }
    read(&path)
}

fn read(path: &Path) -> Result<ElfSymbols, Why> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let syms = parse(&text);
    if syms.syms.is_empty() {
        return Err(format!("{}: no symbols", path.display()));
    }
    Ok(ElfSymbols::from_table(syms))
}

/// Parse `START SIZE name` lines (perf's `dso__load_perf_map`: hexadecimal
/// numbers, the name is the rest of the line; short lines are skipped).
fn parse(text: &[u8]) -> Table {
    // Names are shown as written (perf does not demangle JIT maps).
    let mut out = Table::new(false);
    for line in text.split(|&c| c == b'\n') {
        let line = String::from_utf8_lossy(line);
        let line = line.strip_suffix('\r').unwrap_or(&line);
        let Some((start, rest)) = hex(line) else {
            continue;
        };
        let Some((size, rest)) = rest.get(1..).and_then(hex) else {
            continue;
        };
        let Some(name) = rest.get(1..).filter(|n| !n.is_empty()) else {
            continue;
        };
        out.push_synthetic(start, size, name);
    }
    out
}

/// A hexadecimal number (`strtoull(…, 16)`: leading blanks, optional
/// `0x`) and the rest of the text.
fn hex(s: &str) -> Option<(u64, &str)> {
    let t = s.trim_start_matches([' ', '\t']);
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    let n = t.bytes().take_while(u8::is_ascii_hexdigit).count();
    let v = u64::from_str_radix(t.get(..n)?, 16).ok()?;
    Some((v, &t[n..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_map_lines() {
        let text = b"7f1c2a400040 11 jit_hot_loop\n0x7f1c2a400100 0x20 LazyCompile:~foo bar.js:3\nbad\n7f 2\n";
        let t = ElfSymbols::from_table(parse(text));
        assert_eq!(t.lookup(0x7f1c2a400040).as_deref(), Some("jit_hot_loop"));
        assert_eq!(t.lookup(0x7f1c2a400050).as_deref(), Some("jit_hot_loop"));
        assert_eq!(t.lookup(0x7f1c2a400051), None);
        assert_eq!(
            t.lookup(0x7f1c2a40011f).as_deref(),
            Some("LazyCompile:~foo bar.js:3")
        );
        assert!(is_anonymous("//anon") && is_anonymous("[heap]") && !is_anonymous("/usr/bin/x"));
        assert_eq!(dso_name(42), "/tmp/perf-42.map");
        let e = load(-7, &[]).err().unwrap_or_default();
        assert!(e.contains("/tmp/perf--7.map: no such file"), "{e}");
    }
}
