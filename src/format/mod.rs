//! Input formats: one parser module per format, behind one small shape, and
//! the detection that picks a parser for a file.
//!
//! Every parser module exposes
//! `sniff(head: &[u8], eof: bool) -> Sniff` (is this prefix of the
//! decompressed input mine? `NeedMore` when it cannot tell yet) and
//! `parse(input: &mut dyn BufRead, origin: &str, opts: &ParseOptions) -> Result<Profile, ParseError>`.
//! Line numbers in errors count from 1 in the decompressed stream.

use crate::profile::{Format, Profile};
use crate::symmap::{Beside, MapAdvice, SymbolMap};
use regex::Regex;
use std::io::{self, BufRead, Read};
use std::sync::Arc;

pub mod filter;
pub mod folded;
pub mod opreport;
pub mod perf_data;
pub mod perf_report;
pub mod perf_script;
pub mod proc_profile;
pub mod readprofile;
pub mod unresolved;

/// A parser's answer to "is this prefix mine?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniff {
    Yes,
    No,
    /// Cannot tell from this prefix; ask again with more bytes (or at EOF).
    NeedMore,
}

/// What a sample is worth when a format records both counts and periods.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightBy {
    #[default]
    Samples,
    Period,
}

/// Parser options that change what is counted. Filters are applied while
/// parsing (they select samples); symbol filters come later, in aggregation.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// `--event NAME`: the event to read when a file holds several.
    pub event: Option<String>,
    /// `--lenient`: skip malformed lines (counted in `Profile::skipped_lines`
    /// and described in `Profile::warnings`) instead of failing.
    pub lenient: bool,
    /// `--weight samples|period` (perf script).
    pub weight: WeightBy,
    /// `--inclusive`: count every distinct symbol of a callchain once per sample.
    pub inclusive: bool,
    /// `--kernel-only`: keep only kernel samples (perf script: leaf frame in
    /// the kernel; perf report: `[k]` rows).
    pub kernel_only: bool,
    /// `--comm LIST`: keep samples whose command is listed ([`filter`]).
    pub comm: Option<filter::CommFilter>,
    /// `--pid LIST`: keep samples of these processes and those they forked
    /// (perf.data only).
    pub pid: Option<filter::PidFilter>,
    /// `--dso RE`: keep samples whose (leaf) dso matches ([`dso_matches`]).
    pub dso: Option<Regex>,
    /// Collect callchains into `Profile::stacks` (for flame graphs; off by
    /// default, since it costs memory and time).
    pub stacks: bool,
    /// The kernel symbol map for raw `/proc/profile` images (`--map`, a
    /// side's `--old-map`/`--new-map`, or a map file beside the image).
    pub map: Option<Arc<SymbolMap>>,
    /// Kernel symbols for perf.data: the side's map (`--new-kallsyms`,
    /// `--kallsyms-for SIDE=FILE`, …), else `--kallsyms` (or `--map`).
    pub kallsyms: Option<Arc<SymbolMap>>,
    /// How `map` / `kallsyms` was chosen (the flag that gave it, or
    /// `beside the run`), for the report header and for errors.
    pub map_origin: Option<String>,
    /// The symbol maps beside the profile, to choose from when none is
    /// given (perf.data chooses by the recording's release: [`Beside`]).
    pub beside: Option<Arc<Beside>>,
    /// How this profile's side is given its own map: the last words of
    /// every map error.
    pub advice: MapAdvice,
    /// Where perf.data finds user-space names (`--symfs`, `--debug-dir`,
    /// `--jit-map-dir`, `--no-demangle`, the build-id cache).
    pub user: perf_data::UserSymbolOptions,
    /// `--force-map`: use a kernel map that does not seem to belong to the
    /// recording (perf.data) or image (/proc/profile), with a warning,
    /// instead of refusing it.
    pub force_map: bool,
}

/// A parse failure. `Malformed` is the `path:line: expected …, found "…"`
/// form editors jump to.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("{path}:{line}: expected {expected}, found \"{found}\"")]
    Malformed {
        path: String,
        line: u64,
        expected: String,
        found: String,
    },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    /// (The I/O error is shown, not chained: chained, `{:#}` would print
    /// its message twice.)
    #[error("{path}: {error}")]
    Io { path: String, error: io::Error },
}

impl ParseError {
    /// A `Malformed` error; `found` is shortened to 80 characters and escaped.
    pub fn malformed(path: &str, line: u64, expected: impl Into<String>, found: &[u8]) -> Self {
        ParseError::Malformed {
            path: path.to_string(),
            line,
            expected: expected.into(),
            found: excerpt(found),
        }
    }
    pub fn invalid(path: &str, message: impl Into<String>) -> Self {
        ParseError::Invalid {
            path: path.to_string(),
            message: message.into(),
        }
    }
    pub fn io(path: &str, source: io::Error) -> Self {
        ParseError::Io {
            path: path.to_string(),
            error: source,
        }
    }
}

pub use crate::text::{decode, excerpt, MAX_LINE};

/// Read line `line_no` (counting from 1) into `buf` (cleared first), newline
/// included, as `BufRead::read_until` does; 0 at EOF. A line longer than
/// [`MAX_LINE`] is an error naming the line, in strict and lenient mode alike
/// (nothing past the cap is buffered).
pub fn read_line(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    origin: &str,
    line_no: u64,
) -> Result<usize, ParseError> {
    buf.clear();
    let n = input
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| ParseError::io(origin, e))?;
    if n > MAX_LINE {
        return Err(too_long(origin, line_no, buf));
    }
    Ok(n)
}

/// The error of a line longer than [`MAX_LINE`]: `line` is (at least)
/// its first bytes.
fn too_long(origin: &str, line_no: u64, line: &[u8]) -> ParseError {
    ParseError::malformed(
        origin,
        line_no,
        format!("a line of at most {} MiB", MAX_LINE >> 20),
        &line[..80.min(line.len())],
    )
}

/// Call `each(line_no, line)` for every line of `input` in order (counting
/// from 1), each line as [`read_line`] reads it (newline included, the last
/// line's missing one missing), with the same errors: parsed in place in
/// the reader's buffer, and only a line that crosses the end of one buffer
/// copied (nothing past [`MAX_LINE`] is buffered).
pub fn each_line(
    input: &mut dyn BufRead,
    origin: &str,
    mut each: impl FnMut(u64, &[u8]) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    // The start of a line whose end is in a later buffer.
    let mut carry: Vec<u8> = Vec::new();
    let mut line_no = 0u64;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ParseError::io(origin, e)),
        };
        let len = chunk.len();
        if len == 0 {
            if !carry.is_empty() {
                each(line_no + 1, &carry)?;
            }
            return Ok(());
        }
        let mut rest = chunk;
        if !carry.is_empty() {
            let end = memchr::memchr(b'\n', rest);
            let take = end.map_or(len, |i| i + 1);
            let room = MAX_LINE + 1 - carry.len();
            carry.extend_from_slice(&rest[..take.min(room)]);
            if carry.len() > MAX_LINE {
                return Err(too_long(origin, line_no + 1, &carry));
            }
            if end.is_none() {
                input.consume(len);
                continue;
            }
            line_no += 1;
            each(line_no, &carry)?;
            carry.clear();
            rest = &rest[take..];
        }
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', rest) {
            let line = &rest[start..=end];
            if line.len() > MAX_LINE {
                return Err(too_long(origin, line_no + 1, line));
            }
            line_no += 1;
            each(line_no, line)?;
            start = end + 1;
        }
        let tail = &rest[start..];
        if tail.len() > MAX_LINE {
            return Err(too_long(origin, line_no + 1, tail));
        }
        carry.extend_from_slice(tail);
        input.consume(len);
    }
}

/// Ask `format`'s parser about a prefix.
pub fn sniff(format: Format, head: &[u8], eof: bool) -> Sniff {
    match format {
        Format::Readprofile => readprofile::sniff(head, eof),
        Format::PerfReport => perf_report::sniff(head, eof),
        Format::PerfScript => perf_script::sniff(head, eof),
        Format::Folded => folded::sniff(head, eof),
        Format::Opreport => opreport::sniff(head, eof),
        Format::ProcProfile => proc_profile::sniff(head, eof),
        Format::PerfData => perf_data::sniff(head, eof),
    }
}

/// Parse with `format`'s parser.
pub fn parse(
    format: Format,
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let parsed = match format {
        Format::Readprofile => readprofile::parse(input, origin, opts),
        Format::PerfReport => perf_report::parse(input, origin, opts),
        Format::PerfScript => perf_script::parse(input, origin, opts),
        Format::Folded => folded::parse(input, origin, opts),
        Format::Opreport => opreport::parse(input, origin, opts),
        Format::ProcProfile => proc_profile::parse(input, origin, opts),
        Format::PerfData => perf_data::parse(input, origin, opts),
    };
    parsed.map(|p| mark_inclusive(p, opts))
}

/// Marks a run whose counts are inclusive (`--inclusive` on a format with
/// callchains): its symbols' counts add up to more than its total by
/// design, which is then not worth a warning.
fn mark_inclusive(mut p: Profile, opts: &ParseOptions) -> Profile {
    p.inclusive = opts.inclusive
        && matches!(
            p.format,
            Format::PerfScript | Format::PerfData | Format::Folded
        );
    p
}

/// Whether [`parse_file`] maps files of this format instead of reading them.
pub fn maps_files(format: Format) -> bool {
    matches!(
        format,
        Format::PerfScript | Format::Folded | Format::PerfData | Format::ProcProfile
    )
}

/// The most a binary format (perf.data, a /proc/profile image) read from a
/// stream (a pipe, a decompressed file) may take in memory: those are parsed
/// whole, and a compressed bomb forced through `-f perf-data` must not take
/// the machine's memory. Plain files are mapped instead, with no limit.
pub const MAX_IN_MEMORY: usize = 1 << 30;

/// The largest count, and sum of a run's counts, that is read: 2^53. Every
/// whole number up to it is exact as an f64, which counts are summed and
/// tested as; above it counts round (and near 4e29 the sums saturate), and
/// the tests' iterations grow without bound, so a larger count is refused.
pub const MAX_COUNT: f64 = 9_007_199_254_740_992.0;

/// Why a count (or sum) above [`MAX_COUNT`] is refused.
pub fn too_large(what: &str, value: &str) -> String {
    format!(
        "{what} {value} is larger than 2^53 (9007199254740992), the largest count read \
         exactly; no profile holds so many samples"
    )
}

/// Read a whole stream of a binary format, up to [`MAX_IN_MEMORY`] bytes.
pub fn read_bounded(
    input: &mut dyn BufRead,
    origin: &str,
    what: &str,
) -> Result<Vec<u8>, ParseError> {
    read_at_most(input, origin, what, MAX_IN_MEMORY)
}

/// Read a whole stream of at most `limit` bytes; memory never exceeds the
/// limit by more than one read buffer (no doubling past it).
fn read_at_most(
    input: &mut dyn BufRead,
    origin: &str,
    what: &str,
    limit: usize,
) -> Result<Vec<u8>, ParseError> {
    let too_big = || {
        ParseError::invalid(
            origin,
            format!(
                "more than {} MiB of {what} from a compressed file or a pipe: it is \
                 read whole into memory, so decompress it to a file first",
                limit >> 20
            ),
        )
    };
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        let chunk = input.fill_buf().map_err(|e| ParseError::io(origin, e))?;
        if chunk.is_empty() {
            return Ok(bytes);
        }
        let n = chunk.len();
        if bytes.len() + n > limit {
            return Err(too_big());
        }
        if bytes.capacity() - bytes.len() < n {
            let grown = (2 * bytes.capacity())
                .clamp(1 << 16, limit)
                .max(bytes.len() + n);
            bytes
                .try_reserve_exact(grown - bytes.len())
                .map_err(|_| too_big())?;
        }
        bytes.extend_from_slice(chunk);
        input.consume(n);
    }
}

/// Map a whole plain file (empty files are not mapped).
fn map_whole(
    file: &std::fs::File,
    origin: &str,
) -> Result<Option<crate::input::guarded::Guarded>, ParseError> {
    // A concurrent truncation of the file is caught by the guard, and
    // reported after parsing (the parse read zeros past the new end).
    crate::input::guarded::Guarded::map(file).map_err(|e| ParseError::io(origin, e))
}

/// Parse a plain regular file of a format that [`maps_files`]: mapped into
/// memory and parsed in place, the same result as [`parse`] on its bytes.
pub fn parse_file(
    format: Format,
    file: &std::fs::File,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let parsed = match format {
        Format::PerfScript => perf_script::parse_file(file, origin, opts),
        Format::Folded => folded::parse_file(file, origin, opts),
        Format::PerfData | Format::ProcProfile => {
            let map = map_whole(file, origin)?;
            let bytes = map.as_ref().map_or(&[][..], |m| m.bytes());
            let parsed = if format == Format::PerfData {
                perf_data::parse_bytes(bytes, origin, opts)
            } else {
                proc_profile::parse_bytes(bytes, origin, opts)
            };
            if map.as_ref().is_some_and(|m| m.shrank()) {
                return Err(ParseError::invalid(
                    origin,
                    "the file shrank while it was read (truncated or rewritten by another \
                     program?); read it again once it is complete",
                ));
            }
            parsed
        }
        _ => parse(
            format,
            &mut std::io::BufReader::with_capacity(1 << 16, file),
            origin,
            opts,
        ),
    };
    parsed.map(|p| mark_inclusive(p, opts))
}

/// The result of detection on a prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detected {
    /// The first format (in `Format::ALL` order) that said `Yes`.
    Format(Format),
    /// Every parser said `No` (or still `NeedMore` at EOF).
    Unknown,
    /// Some parser needs more bytes to decide.
    NeedMore,
}

/// Ask every parser about a prefix.
pub fn detect(head: &[u8], eof: bool) -> Detected {
    let mut undecided = false;
    for format in Format::ALL {
        match sniff(format, head, eof) {
            Sniff::Yes => return Detected::Format(format),
            Sniff::No => {}
            Sniff::NeedMore => undecided = true,
        }
    }
    if undecided && !eof {
        Detected::NeedMore
    } else {
        Detected::Unknown
    }
}

/// Iterate over the complete lines of a sniffing prefix (the last, partial
/// line is left out unless `eof`), without their line terminators.
pub fn head_lines(head: &[u8], eof: bool) -> impl Iterator<Item = &[u8]> {
    let complete = if eof {
        head
    } else {
        match memchr::memrchr(b'\n', head) {
            Some(i) => &head[..=i],
            None => &[][..],
        }
    };
    let body = complete.strip_suffix(b"\n").unwrap_or(complete);
    let lines = if complete.is_empty() {
        None
    } else {
        Some(body)
    };
    lines
        .into_iter()
        .flat_map(|b| b.split(|&c| c == b'\n'))
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// Whether `--dso RE` keeps a sample of `dso`: the regex matches the path
/// or its file name (`^libc\.so\.6$` keeps `/usr/lib/…/libc.so.6`), as
/// perf's `--dsos` takes a short or a long name. perf.data and perf
/// script know the path, perf report text prints the file name: one
/// filter keeps the same samples whatever the input.
pub fn dso_matches(re: &Regex, dso: &str) -> bool {
    if re.is_match(dso) {
        return true;
    }
    match dso.rsplit_once('/') {
        Some((_, name)) if !name.is_empty() && !dso.starts_with('[') => re.is_match(name),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_dso_filter_matches_the_path_or_the_file_name() {
        let re = regex::Regex::new(r"^libc\.so\.6$").unwrap();
        assert!(super::dso_matches(
            &re,
            "/usr/lib/x86_64-linux-gnu/libc.so.6"
        ));
        assert!(super::dso_matches(&re, "libc.so.6"));
        assert!(!super::dso_matches(&re, "/usr/lib/libc.so.6.1"));
        let k = regex::Regex::new(r"^\[kernel").unwrap();
        assert!(super::dso_matches(&k, "[kernel.kallsyms]"));
        let path = regex::Regex::new("^/usr/bin/").unwrap();
        assert!(super::dso_matches(&path, "/usr/bin/dd"));
        assert!(!super::dso_matches(&path, "dd"));
    }

    use super::*;

    /// Every line (number, bytes) and the error, if any, as `reader` reads them.
    type Lines = (Vec<(u64, Vec<u8>)>, Option<String>);

    fn by_read_line(data: &[u8], cap: usize) -> Lines {
        let mut r = std::io::BufReader::with_capacity(cap, data);
        let (mut out, mut buf) = (Vec::new(), Vec::new());
        loop {
            match read_line(&mut r, &mut buf, "f", out.len() as u64 + 1) {
                Ok(0) => return (out, None),
                Ok(_) => out.push((out.len() as u64 + 1, buf.clone())),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    fn by_each_line(data: &[u8], cap: usize) -> Lines {
        let mut r = std::io::BufReader::with_capacity(cap, data);
        let mut out = Vec::new();
        let e = each_line(&mut r, "f", |n, line| {
            out.push((n, line.to_vec()));
            Ok(())
        });
        (out, e.err().map(|e| e.to_string()))
    }

    /// In-place lines are `read_line`'s lines, whatever the buffer size,
    /// over-long lines (at the limit, past it, last) included.
    #[test]
    fn each_line_is_read_line() {
        let long = |n: usize| vec![b'y'; n];
        let mut inputs: Vec<Vec<u8>> = [
            "",
            "a",
            "a\n",
            "\n\n",
            "a\r\nb\r\n\r",
            "ab\ncd\nef",
            "  1 x 0.1\n\n 2 y 0.2\r\n",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        for n in [MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, MAX_LINE + 2] {
            inputs.push([&b"x\n"[..], &long(n), b"\nz\n"].concat());
            inputs.push([&b"x\n"[..], &long(n)].concat());
            inputs.push(long(n));
        }
        for data in &inputs {
            let caps: &[usize] = if data.len() > 100 {
                &[1 << 16, 3 << 20, 8 << 20]
            } else {
                &[1, 2, 3, 7, 64]
            };
            for &cap in caps {
                let same = by_each_line(data, cap) == by_read_line(data, cap);
                assert!(same, "{} bytes, buffer {cap}", data.len());
            }
        }
    }

    /// A stream past the limit is refused without taking more memory than
    /// the limit; one within it is read whole.
    #[test]
    fn binary_streams_are_bounded() {
        let data = vec![7u8; 300_000];
        let mut r = std::io::BufReader::with_capacity(4096, &data[..]);
        let all = read_at_most(&mut r, "x", "perf.data", 300_000).unwrap();
        assert_eq!(all, data);
        let mut r = std::io::BufReader::with_capacity(4096, &data[..]);
        let e = read_at_most(&mut r, "big.gz", "perf.data", 200_000).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("big.gz: more than 0 MiB of perf.data from a compressed file"),
            "{e}"
        );
    }
}
