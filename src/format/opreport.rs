//! oprofile's `opreport -l` symbol summary.
//!
//! Input: the text `opreport --symbols` prints: a preamble (`CPU: …`,
//! `Counted EVENT events (…) … count N` or `Profiling through timer
//! interrupt`), a header line naming the columns, then one row per symbol.
//! Columns, in the header's order: `vma`, one `samples %` pair per event,
//! `diff %` (differential mode), `linenr info`, `image name`, `app name`,
//! `symbol name` (always last; may contain spaces). Output: a [`Profile`] of
//! per-symbol sample counts, with the image as dso (mode kernel for
//! `vmlinux*`, `no-vmlinux`, kallsyms and `.ko` images, user otherwise).
//!
//! Differential mode (`opreport -l { old } { new }`) prints the current
//! (new) profile's samples and percent plus a `diff %` column with `+++`
//! for new symbols; a symbol gone from the new profile shows `---` instead
//! of its percent, and its samples are the old ones: such rows are left out.
//! With several events, `--event` chooses the column pair (by the `Counted`
//! lines' order). `total` is the sum of the rows, or, when rows below a
//! `--threshold` are missing, the total the percentages imply
//! (approximate, and said so).
//!
//! oprofile is not installed here: these lines come from oprofile's manual
//! (opreport chapter) and formats.md; the fixtures in the tests are hand
//! made after them.
//! ```text
//! CPU: Core 2, speed 2.534e+06 MHz (estimated)
//! Counted CPU_CLK_UNHALTED events (Clock cycles when not halted) with a unit mask of 0x00 (Unhalted core cycles) count 100000
//! samples  %        image name               symbol name
//! 1353     24.9447  vmlinux                  sidtab_context_to_sid
//! 500       9.2183  vmlinux                  avtab_hash_eval
//! ```
//! Without the image column (`opreport -l IMAGE`), and differential:
//! ```text
//! samples  %        symbol name
//! 92435    48.5366  do_schedule
//! samples  %        diff %    symbol name
//! 92435    48.5366  +0.4999   do_schedule
//! 54226    ---      ---       c
//! 49222    25.8459  +++       d
//! ```

use super::{ParseError, ParseOptions, Sniff};
use crate::profile::{Format, Mode, Name, Profile, SymbolKey};
use std::io::BufRead;

const EXPECTED: &str = "an opreport row `SAMPLES  PERCENT  [IMAGE]  SYMBOL`";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Col {
    Vma,
    Pair,
    Diff,
    Linenr,
    Image,
    App,
}

/// The columns a header line names, in order, each with the byte offset
/// its title starts at (where opreport starts the column's values, see
/// [`row`]), and the offset of `symbol name` last; `None` when it is no
/// header.
fn columns(line: &str) -> Option<Columns> {
    let starts = line.starts_with("samples") || line.starts_with("vma");
    if !starts || !line.trim_end().ends_with("symbol name") {
        return None;
    }
    let mut found: Vec<(usize, Col)> = Vec::new();
    for (word, col) in [
        ("vma", Col::Vma),
        ("diff %", Col::Diff),
        ("linenr info", Col::Linenr),
        ("image name", Col::Image),
        ("app name", Col::App),
    ] {
        if let Some(at) = line.find(word) {
            found.push((at, col));
        }
    }
    found.extend(line.match_indices("samples").map(|(at, _)| (at, Col::Pair)));
    found.sort_by_key(|&(at, _)| at);
    let symbol = line.rfind("symbol name")?;
    found
        .iter()
        .any(|&(_, c)| c == Col::Pair)
        .then_some(Columns {
            cols: found,
            symbol,
        })
}

/// A header's columns: each with its title's offset, and the symbol
/// column's offset.
#[derive(Debug)]
struct Columns {
    cols: Vec<(usize, Col)>,
    symbol: usize,
}

/// Yes when the column header (`samples  %  … symbol name`) comes within the
/// first lines, after an oprofile preamble or nothing.
pub fn sniff(head: &[u8], eof: bool) -> Sniff {
    for (n, line) in super::head_lines(head, eof).enumerate() {
        let line = super::decode(line);
        if columns(&line).is_some() {
            return Sniff::Yes;
        }
        let preamble = line.starts_with("CPU:")
            || line.starts_with("Counted ")
            || line.starts_with("Profiling through")
            || line.starts_with("Using ")
            || line.to_ascii_lowercase().starts_with("warning")
            || line.trim().is_empty();
        if !preamble || n > 20 {
            return Sniff::No;
        }
    }
    if eof {
        Sniff::No
    } else {
        Sniff::NeedMore
    }
}

fn is_kernel_image(image: &str) -> bool {
    let base = image.rsplit('/').next().unwrap_or(image);
    base.starts_with("vmlinux")
        || base == "no-vmlinux"
        || base.ends_with("kallsyms")
        || base.ends_with(".ko")
        || base.contains(".ko.")
}

/// Parse `opreport -l` output (see the module documentation).
pub fn parse(
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let mut p = Profile::new(origin, Format::Opreport);
    let mut events: Vec<String> = Vec::new();
    let mut cols: Option<Columns> = None;
    let mut pair = 0usize;
    let mut buf = Vec::new();
    let mut n = 0u64;
    let mut sum = 0u64;
    let mut estimate: Option<(u64, f64)> = None;
    let mut details = 0u64;
    loop {
        if super::read_line(input, &mut buf, origin, n + 1)? == 0 {
            break;
        }
        n += 1;
        let line = super::decode(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        let Some(cs) = &cols else {
            cols = header_line(line, origin, opts, &mut events, &mut pair, &mut p)?;
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            details += 1;
            continue;
        }
        if line.starts_with("----") {
            return Err(ParseError::invalid(
                origin,
                "opreport callgraph output (-c) is not supported; use `opreport -l`",
            ));
        }
        match row(line, cs, pair) {
            Some(Row::Gone) => {}
            Some(Row::Symbol {
                samples,
                percent,
                image,
                name,
            }) => {
                sum = sum.checked_add(samples).ok_or_else(|| {
                    ParseError::malformed(
                        origin,
                        n,
                        "sample counts that add up to less than 2^64",
                        line.as_bytes(),
                    )
                })?;
                if let Some(pct) = percent {
                    if estimate.is_none_or(|(s, _)| samples > s) && pct > 0.0 {
                        estimate = Some((samples, pct));
                    }
                }
                let mode = image.map(|i| {
                    if is_kernel_image(i) {
                        Mode::Kernel
                    } else {
                        Mode::User
                    }
                });
                let key = SymbolKey::new(name)
                    .with_dso(image.map(Name::new))
                    .with_mode(mode);
                if samples > 0 || !p.counts.contains_key(&key) {
                    p.add(key, samples as f64);
                }
            }
            None if opts.lenient => {
                p.skipped_lines += 1;
                if p.skipped_lines == 1 {
                    p.warnings.push(format!(
                        "skipped malformed lines (--lenient); the first, line {n}: \"{}\"",
                        super::excerpt(line.as_bytes())
                    ));
                }
            }
            None => return Err(ParseError::malformed(origin, n, EXPECTED, line.as_bytes())),
        }
    }
    finish(p, origin, cols.is_some(), details, sum, estimate)
}

/// A line before the column header: the header itself (the columns, and
/// the event of the pair read), or an event named.
fn header_line(
    line: &str,
    origin: &str,
    opts: &ParseOptions,
    events: &mut Vec<String>,
    pair: &mut usize,
    p: &mut Profile,
) -> Result<Option<Columns>, ParseError> {
    if let Some(c) = columns(line) {
        *pair = choose_pair(
            origin,
            opts,
            events,
            c.cols.iter().filter(|&&(_, c)| c == Col::Pair).count(),
        )?;
        if let Some(e) = events.get(*pair) {
            p.event = Some(e.clone());
        }
        return Ok(Some(c));
    } else if let Some(rest) = line.strip_prefix("Counted ") {
        events.push(rest.split(" events").next().unwrap_or(rest).to_string());
    } else if line.starts_with("Profiling through timer") {
        events.push("timer".into());
    }
    Ok(None)
}

/// The profile once every line is read: the header found, warnings said,
/// the total (estimated from the percentages when rows are missing).
fn finish(
    mut p: Profile,
    origin: &str,
    header: bool,
    details: u64,
    sum: u64,
    estimate: Option<(u64, f64)>,
) -> Result<Profile, ParseError> {
    if !header {
        return Err(ParseError::invalid(
            origin,
            "no opreport column header (`samples  %  …  symbol name`) found",
        ));
    }
    if p.skipped_lines > 1 {
        if let Some(w) = p.warnings.last_mut() {
            *w = w.replacen(
                "skipped malformed",
                &format!("skipped {} malformed", p.skipped_lines),
                1,
            );
        }
    }
    if details > 0 {
        p.warnings
            .push(format!("skipped {details} indented detail lines"));
    }
    p.total = sum as f64;
    if let Some((s, pct)) = estimate {
        let implied = (s as f64 * 100.0 / pct).round();
        // Percentages have 4 decimals: only a clear gap means missing rows.
        if implied > sum as f64 * 1.001 + 1.0 {
            p.total = implied;
            p.total_approximate = Some(format!(
                "rows sum to {sum} samples but the percentages imply about {implied}: \
                 rows below a threshold are missing; total estimated from them"
            ));
        }
    }
    Ok(p)
}

fn choose_pair(
    origin: &str,
    opts: &ParseOptions,
    events: &[String],
    pairs: usize,
) -> Result<usize, ParseError> {
    if pairs <= 1 {
        return Ok(0);
    }
    let names = || events.join(", ");
    match &opts.event {
        Some(e) => events
            .iter()
            .position(|x| x == e)
            .filter(|&i| i < pairs)
            .ok_or_else(|| {
                ParseError::invalid(
                    origin,
                    format!("no event '{e}' in this report; it has: {}", names()),
                )
            }),
        None => Err(ParseError::invalid(
            origin,
            format!(
                "several events in the report: {}; choose one with --event",
                names()
            ),
        )),
    }
}

enum Row<'a> {
    Symbol {
        samples: u64,
        percent: Option<f64>,
        image: Option<&'a str>,
        name: &'a str,
    },
    /// Differential mode: the symbol is gone from the current profile.
    Gone,
}

/// One row, read column by column. opreport (libpp/format_output.cpp)
/// starts every column at a fixed width from the previous one (samples
/// and `%` 9, `diff %` 10, linenr 28, image and app name 25) and pads a
/// shorter value with spaces; a value as wide or wider is followed by one
/// space, which shifts the later columns. Numbers never hold a space, so
/// they are read as words; an image or app name may (`/tmp/my dir/prog`
/// under `--long-filenames`, a basename `my prog`): it is the text up to
/// where the next column starts, by the header's offsets and the shift so
/// far, or when it overflows its width, up to the first space past that
/// width.
fn row<'a>(line: &'a str, cols: &Columns, pair: usize) -> Option<Row<'a>> {
    /// The word at `*at` (after spaces), moving `*at` past it.
    fn word<'a>(line: &'a str, at: &mut usize) -> Option<&'a str> {
        let rest = &line[*at..];
        let start = *at + (rest.len() - rest.trim_start().len());
        let rest = &line[start..];
        let end = start + rest.find(char::is_whitespace).unwrap_or(rest.len());
        *at = end;
        (end > start).then(|| &line[start..end])
    }
    let bytes = line.as_bytes();
    let mut at = 0usize;
    let (mut samples, mut percent, mut image) = (None, None, None);
    let mut gone = false;
    let mut pair_no = 0;
    for (i, &(title_at, c)) in cols.cols.iter().enumerate() {
        match c {
            Col::Vma => {
                let v = word(line, &mut at)?;
                v.chars().all(|c| c.is_ascii_hexdigit()).then_some(())?;
            }
            Col::Pair => {
                let s: u64 = word(line, &mut at)?.parse().ok()?;
                let pct = word(line, &mut at)?;
                if pair_no == pair {
                    samples = Some(s);
                    if pct == "---" {
                        gone = true;
                    } else {
                        percent = Some(pct.parse::<f64>().ok()?);
                    }
                }
                pair_no += 1;
            }
            Col::Diff => {
                let d = word(line, &mut at)?;
                if d == "---" {
                    gone = true;
                } else if d != "+++" {
                    d.parse::<f64>().ok()?;
                }
            }
            Col::Linenr => {
                let l = word(line, &mut at)?;
                if l == "(no" {
                    // "(no location information)"
                    word(line, &mut at)?;
                    word(line, &mut at)?;
                }
            }
            Col::Image | Col::App => {
                while bytes.get(at) == Some(&b' ') {
                    at += 1;
                }
                let start = at;
                // Where the next column starts when this value fits its
                // width: the next title's offset, shifted as this one is.
                let next_title = cols.cols.get(i + 1).map_or(cols.symbol, |n| n.0);
                let next = (next_title + start).checked_sub(title_at)?;
                let fits = next > start + 1
                    && next <= bytes.len()
                    && bytes[next - 1] == b' '
                    && bytes.get(next).is_some_and(|&b| b != b' ');
                let end = if fits {
                    next - 1
                } else if let Some(space) = line.get(next..).and_then(|r| r.find(' ')) {
                    // Wider than its column: up to the first space past it.
                    next + space
                } else {
                    // A line shorter than the columns (not as opreport
                    // pads them): the one word.
                    start + line[start..].find(' ')?
                };
                let v = line.get(start..end)?.trim_end();
                if v.is_empty() {
                    return None;
                }
                at = end;
                if c == Col::Image {
                    image = Some(v);
                }
            }
        }
    }
    let name = line.get(at..)?.trim();
    if name.is_empty() {
        return None;
    }
    if gone {
        return Some(Row::Gone);
    }
    Some(Row::Symbol {
        samples: samples?,
        percent,
        image,
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const PREAMBLE: &str = "CPU: Core 2, speed 2.534e+06 MHz (estimated)\nCounted CPU_CLK_UNHALTED events (Clock cycles when not halted) with a unit mask of 0x00 (Unhalted core cycles) count 100000\n";
    const IMAGE: &str = "\
samples  %        image name               symbol name
1353     24.9447  vmlinux                  sidtab_context_to_sid
500       9.2183  vmlinux                  avtab_hash_eval
154       2.8392  vmlinux                  __link_path_walk
3418     63.0163  oprofiled                odb_update_node
";

    fn ok(text: &str, opts: &ParseOptions) -> Profile {
        parse(&mut text.as_bytes(), "r.opreport", opts).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn image_and_symbol() {
        let p = ok(&format!("{PREAMBLE}{IMAGE}"), &ParseOptions::default());
        assert_eq!(p.event.as_deref(), Some("CPU_CLK_UNHALTED"));
        assert_eq!(p.total, 5425.0);
        assert_eq!(p.total_approximate, None);
        let k = SymbolKey::new("sidtab_context_to_sid")
            .with_dso(Some("vmlinux".into()))
            .with_mode(Some(Mode::Kernel));
        assert_eq!(p.counts.get(&k), Some(&1353.0));
        let u = SymbolKey::new("odb_update_node")
            .with_dso(Some("oprofiled".into()))
            .with_mode(Some(Mode::User));
        assert_eq!(p.counts.get(&u), Some(&3418.0));
    }

    #[test]
    fn without_image_and_with_app_and_modules() {
        let text = "Profiling through timer interrupt\nsamples  %        symbol name\n92435    48.5366  do_schedule\n97998    51.4634  std::vector<int>::push_back(int const&)\n";
        let p = ok(text, &ParseOptions::default());
        assert_eq!(p.event.as_deref(), Some("timer"));
        assert_eq!(p.counts.get(&SymbolKey::new("do_schedule")), Some(&92435.0));
        assert_eq!(
            p.counts
                .get(&SymbolKey::new("std::vector<int>::push_back(int const&)")),
            Some(&97998.0)
        );
        let text = "samples  %        image name               app name                 symbol name\n\
                    120      60.0000  ext4.ko                  cp                       ext4_da_write_begin\n\
                    80       40.0000  anon (tgid:29664 range:0x7f3475000000-0x7f347616ffff) java (no symbols)\n";
        let p = ok(text, &ParseOptions::default());
        let k = SymbolKey::new("ext4_da_write_begin")
            .with_dso(Some("ext4.ko".into()))
            .with_mode(Some(Mode::Kernel));
        assert_eq!(p.counts.get(&k), Some(&120.0));
        let a = SymbolKey::new("(no symbols)")
            .with_dso(Some(
                "anon (tgid:29664 range:0x7f3475000000-0x7f347616ffff)".into(),
            ))
            .with_mode(Some(Mode::User));
        assert_eq!(p.counts.get(&a), Some(&80.0));
    }

    /// opreport pads each column to its width (image and app name 25) and
    /// puts one space after a wider value (libpp/format_output.cpp); an
    /// image name may hold spaces (`--long-filenames`: the whole path).
    #[test]
    fn image_names_with_spaces() {
        let text = "\
samples  %        image name               app name                 symbol name
700      58.3333  /tmp/my dir/prog         /tmp/my dir/prog         main loop
300      25.0000  vmlinux                  /tmp/my dir/prog         schedule
200      16.6667  /home/u/My Documents/bin/libwork.so /home/u/My Documents/bin/prog work
";
        let p = ok(text, &ParseOptions::default());
        let key = |name: &str, image: &str, mode| {
            SymbolKey::new(name)
                .with_dso(Some(image.into()))
                .with_mode(Some(mode))
        };
        let mut want = BTreeMap::new();
        want.insert(key("main loop", "/tmp/my dir/prog", Mode::User), 700.0);
        want.insert(key("schedule", "vmlinux", Mode::Kernel), 300.0);
        want.insert(
            key("work", "/home/u/My Documents/bin/libwork.so", Mode::User),
            200.0,
        );
        assert_eq!(p.counts, want);
        assert_eq!(p.total, 1200.0);
    }

    #[test]
    fn differential_keeps_the_current_samples() {
        let text = "samples  %        diff %    symbol name\n92435    48.5366  +0.4999   a\n54226    ---      ---       c\n49222    25.8459  +++       d\n48787    25.6175  -2.7197   e\n";
        let p = ok(text, &ParseOptions::default());
        assert_eq!(p.counts.len(), 3);
        assert_eq!(p.counts.get(&SymbolKey::new("d")), Some(&49222.0));
        assert_eq!(p.counts.get(&SymbolKey::new("c")), None);
        assert_eq!(p.total, 190444.0);
    }

    #[test]
    fn threshold_makes_the_total_approximate() {
        let text = "samples  %        symbol name\n1353     24.9447  a\n500       9.2183  b\n";
        let p = ok(text, &ParseOptions::default());
        assert_eq!(p.total, 5424.0);
        assert!(p.total_approximate.is_some());
    }

    #[test]
    fn several_events() {
        let text = "Counted CPU_CLK_UNHALTED events (x) with a unit mask of 0x00 (No unit mask) count 100000\nCounted LLC_MISSES events (y) with a unit mask of 0x41 (No unit mask) count 6000\nsamples  %        samples  %        image name               symbol name\n10       50.0000  3        75.0000  vmlinux                  a\n10       50.0000  1        25.0000  vmlinux                  b\n";
        let e = parse(&mut text.as_bytes(), "r", &ParseOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("several events in the report: CPU_CLK_UNHALTED, LLC_MISSES"),
            "{e}"
        );
        let opts = ParseOptions {
            event: Some("LLC_MISSES".into()),
            ..Default::default()
        };
        let p = ok(text, &opts);
        assert_eq!(p.total, 4.0);
        assert_eq!(p.event.as_deref(), Some("LLC_MISSES"));
    }

    #[test]
    fn malformed_rows() {
        let text = format!("{PREAMBLE}{IMAGE}12x      1.0  vmlinux  oops\n");
        let e = parse(&mut text.as_bytes(), "r", &ParseOptions::default())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "r:8: expected an opreport row `SAMPLES  PERCENT  [IMAGE]  SYMBOL`, found \"12x      1.0  vmlinux  oops\"");
        let p = ok(
            &text,
            &ParseOptions {
                lenient: true,
                ..Default::default()
            },
        );
        assert_eq!(p.skipped_lines, 1);
        assert!(parse(&mut &b"no header here\n"[..], "r", &ParseOptions::default()).is_err());
    }

    #[test]
    fn sniffing() {
        assert_eq!(
            sniff(format!("{PREAMBLE}{IMAGE}").as_bytes(), false),
            Sniff::Yes
        );
        assert_eq!(sniff(PREAMBLE.as_bytes(), false), Sniff::NeedMore);
        for no in [
            "   153 finish_task_switch.isra.0                  0.2224\n",
            "perf;do_syscall_64 12\n",
            "# Samples: 4K of event 'cpu-clock'\n",
            "perf  6648   249.307147:     500250 cpu-clock: \n",
        ] {
            assert_eq!(sniff(no.as_bytes(), true), Sniff::No, "{no}");
        }
    }
}
