//! Parser for the text output of util-linux `readprofile` (the kernel's
//! `/proc/profile` histogram folded onto a System.map).
//!
//! Input: the decompressed text of one `readprofile` run, in any of its
//! variants (default, `-v`, `-a`, `-b`, `-s`, combinations of them, in address
//! order or through `sort -nr`). Output: a [`Profile`] of kernel symbols with
//! their ticks (`Weight::Samples`), the `*unknown*` ticks (hits outside kernel
//! text) as `unattributed`, and `total` = symbol ticks + unknown. The `total`
//! line is only a cross-check: readprofile leaves `*unknown*` out of it, so it
//! must equal the sum of the symbol lines (a mismatch is a warning).
//! Per-bin lines (`-b`, `-s`) are checked against their symbol and skipped.
//! Fields are split on whitespace, never on columns: counts overflow `%6u`.
//!
//! Verbatim lines of each variant (util-linux 2.38.1, x86_64, step 4):
//!
//! ```text
//! default   "%6u %-40s %8.4f\n"; `*unknown*` is "%6u %s\n" and is not in total
//!     12 x64_sys_call                               0.0022
//!    683 *unknown*
//!   8607 total                                      0.0005
//! counts wider than the columns (and `sort -nr`: total first)
//! 860700000 total                                     45.5068
//! 58600000 _copy_to_iter                            33912.0370
//! -v        "%016llx %-40s %6u %8.4f\n"; the total line has address 0
//! ffffffff81249030 x64_sys_call                                 12   0.0022
//!    683 *unknown*
//! 0000000000000000 total                                      8607   0.0005
//! -a        symbols with 0 ticks too (explicit zeros)
//!      0 __pfx_x64_sys_call                         0.0000
//! -b        "%s:\n", "\t%llx\t%u\n" per bin, "  total\t\t\t\t%u\n"; with -a
//!           zero blocks have bins but no total line; with -v every symbol
//!           gets a total line, zero ones with no `name:` line before it
//! x64_sys_call:
//! 	ffffffff81249030	1
//! 	ffffffff8124904c	3
//!   total				12
//! -s        the symbol line, then "\t%#llx\t%s+%#llx\t%u\n" for every bin (an
//!           offset of 0 prints as `+0`). readprofile's count includes the bin
//!           just before the symbol, which -s never prints: the bins may add
//!           up to less than the count, never to more.
//!     12 x64_sys_call                               0.0022
//! 	0xffffffff81249030	x64_sys_call+0	1
//! 	0xffffffff81249034	x64_sys_call+0x4	0
//! -i        not a profile
//! Sampling_step: 4
//! ```
//!
//! `total` (and `Sampling_step`) go through gettext in default mode, and the
//! load through the locale (`0,0022`): a line named otherwise whose count is
//! the sum of all other symbol lines is taken as the total, with a warning.

#![allow(
    clippy::tabs_in_doc_comments,
    reason = "the example lines are verbatim readprofile output, tabs included"
)]

use super::{decode, head_lines, ParseError, ParseOptions, Sniff};
use crate::profile::{Format, Mode, Name, Profile, SymbolKey, Weight};
use rustc_hash::FxHashMap;
use std::io::BufRead;

const EXPECT_LINE: &str =
    "a readprofile line `TICKS NAME LOAD`, `ADDRESS NAME TICKS LOAD` (-v) or `TICKS *unknown*`";
const EXPECT_BLOCK: &str =
    "a `readprofile -b` line (`\\tADDRESS\\tCOUNT`, `  total\\t\\t\\t\\tCOUNT` or `NAME:`)";
const EXPECT_HIST_BIN: &str = "a `readprofile -b` bin line only inside a `NAME:` block";
const EXPECT_COUNTER: &str = "a `readprofile -s` counter line only after its symbol line";
const EXPECT_ONE_TOTAL: &str = "a single `total` line";

/// One line, classified by its fields alone.
#[derive(Debug, PartialEq)]
enum Line<'a> {
    /// Default or `-v` symbol line; `total` when it is the literal total line.
    Symbol {
        name: &'a [u8],
        ticks: u64,
        verbose: bool,
        total: bool,
    },
    Unknown(u64),
    BlockHeader(&'a [u8]),
    BlockTotal(u64),
    HistBin(u64),
    CounterBin(u64),
    /// `Sampling_step: N` (`-i`).
    Info,
}

/// Most fields a readprofile line has; a line with more is none of them.
const MAX_FIELDS: usize = 4;

/// The line's whitespace-separated fields, without allocating: a line of
/// more than [`MAX_FIELDS`] gets them plus one, which no line shape takes.
struct Fields<'a> {
    at: [&'a [u8]; MAX_FIELDS + 1],
    n: usize,
}

impl<'a> std::ops::Deref for Fields<'a> {
    type Target = [&'a [u8]];
    fn deref(&self) -> &[&'a [u8]] {
        &self.at[..self.n]
    }
}

fn fields(line: &[u8]) -> Fields<'_> {
    let mut f = Fields {
        at: [&[]; MAX_FIELDS + 1],
        n: 0,
    };
    for field in line
        .split(u8::is_ascii_whitespace)
        .filter(|f| !f.is_empty())
    {
        f.at[f.n] = field;
        f.n += 1;
        if f.n > MAX_FIELDS {
            break;
        }
    }
    f
}

fn ticks(field: &[u8]) -> Option<u64> {
    if field.is_empty() || !field.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(field).ok()?.parse().ok()
}

fn is_hex(field: &[u8]) -> bool {
    !field.is_empty() && field.iter().all(u8::is_ascii_hexdigit)
}

/// `%8.4f` in any locale (`0.0022`, `0,0022`); `decimals` = required digits
/// after the separator (sniffing) or `None` (parsing). The total's load can
/// be `inf`/`-nan` when the text size is 0.
fn is_load(field: &[u8], decimals: Option<usize>) -> bool {
    let digits = field.strip_prefix(b"-").unwrap_or(field);
    if digits.eq_ignore_ascii_case(b"inf") || digits.eq_ignore_ascii_case(b"nan") {
        return true;
    }
    let (int, frac) = match digits.iter().position(|&c| c == b'.' || c == b',') {
        Some(i) => (&digits[..i], &digits[i + 1..]),
        None => (digits, &[][..]),
    };
    !int.is_empty()
        && int.iter().chain(frac).all(u8::is_ascii_digit)
        && decimals.is_none_or(|d| frac.len() == d)
}

/// The common line, `TICKS NAME LOAD` (default mode), as [`classify`]
/// takes it, in one pass; `None` for any other line (or one that is not
/// quite it), which the general code then judges.
fn symbol_line(line: &[u8]) -> Option<Line<'_>> {
    let n = line.len();
    let skip_space = |mut i: usize| {
        while i < n && line[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let skip_field = |mut i: usize| {
        while i < n && !line[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = skip_space(0);
    let digits = i;
    let mut ticks: u64 = 0;
    while i < n && line[i].is_ascii_digit() {
        ticks = ticks
            .checked_mul(10)?
            .checked_add(u64::from(line[i] - b'0'))?;
        i += 1;
    }
    if i == digits || i == n || !line[i].is_ascii_whitespace() {
        return None;
    }
    let name_at = skip_space(i);
    let name_end = skip_field(name_at);
    let load_at = skip_space(name_end);
    let load_end = skip_field(load_at);
    let (name, load) = (&line[name_at..name_end], &line[load_at..load_end]);
    if name.is_empty() || load.is_empty() || skip_space(load_end) != n || !is_load(load, None) {
        return None;
    }
    Some(Line::Symbol {
        name,
        ticks,
        verbose: false,
        total: name == b"total",
    })
}

fn classify(line: &[u8]) -> Option<Line<'_>> {
    if let Some(symbol) = symbol_line(line) {
        return Some(symbol);
    }
    classify_fields(line)
}

fn classify_fields(line: &[u8]) -> Option<Line<'_>> {
    let f = fields(line);
    match f[..] {
        [header] if line.first().is_some_and(|c| !c.is_ascii_whitespace()) => header
            .strip_suffix(b":")
            .filter(|n| !n.is_empty())
            .map(Line::BlockHeader),
        [b"total", n] => ticks(n).map(Line::BlockTotal),
        [n, b"*unknown*"] => ticks(n).map(Line::Unknown),
        [addr, n] if is_hex(addr) => ticks(n).map(Line::HistBin),
        [label, n] if label.ends_with(b":") && ticks(n).is_some() => Some(Line::Info),
        [addr, name, n] if addr.starts_with(b"0x") && name.contains(&b'+') => ticks(n)
            .filter(|_| is_hex(&addr[2..]))
            .map(Line::CounterBin),
        [n, name, load] if is_load(load, None) => ticks(n).map(|ticks| Line::Symbol {
            name,
            ticks,
            verbose: false,
            total: name == b"total",
        }),
        [addr, name, n, load] if is_hex(addr) && is_load(load, None) => {
            ticks(n).map(|ticks| Line::Symbol {
                name,
                ticks,
                verbose: true,
                total: name == b"total" && addr.iter().all(|&c| c == b'0'),
            })
        }
        _ => None,
    }
}

/// Does this line look like genuine readprofile output? Stricter than
/// [`classify`]: loads with a fraction (every readprofile prints `%8.4f`;
/// one decimal or more is read, for edited or other builds' dumps), `-v`
/// addresses of 16 digits (`%016llx`) or 8 (`%08lx`: 32-bit kernels, and
/// util-linux before 2.13 for its total line), tab-led bins.
fn sniff_line(line: &[u8]) -> bool {
    let f = fields(line);
    match classify(line) {
        Some(Line::Symbol { verbose, .. }) => {
            f.last()
                .is_some_and(|l| (1..=8).any(|d| is_load(l, Some(d))))
                && (!verbose || f[0].len() == 16 || f[0].len() == 8)
        }
        Some(Line::HistBin(_) | Line::CounterBin(_)) => line.starts_with(b"\t"),
        Some(Line::BlockTotal(_)) => line.starts_with(b"  total\t"),
        Some(Line::Info) => line.starts_with(b"Sampling_step: "),
        Some(Line::Unknown(_) | Line::BlockHeader(_)) => true,
        None => false,
    }
}

/// Yes after two readprofile-looking lines (one at EOF), No at the first line
/// that is not one.
pub fn sniff(head: &[u8], eof: bool) -> Sniff {
    let mut matched = 0;
    for line in head_lines(head, eof) {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if !sniff_line(line) {
            return Sniff::No;
        }
        matched += 1;
        if matched == 2 {
            return Sniff::Yes;
        }
    }
    match (matched, eof) {
        (1, true) => Sniff::Yes,
        (_, true) => Sniff::No,
        _ => Sniff::NeedMore,
    }
}

#[derive(Clone, Copy)]
struct Row {
    name: Name,
    ticks: u64,
    verbose: bool,
    line: u64,
}

/// The symbol lines read, summed by name as they come: memory grows with
/// the distinct names (a kernel's symbols, about 10^5), never with the
/// lines (a 2 GB dump of one line repeated holds one entry). The first
/// and the last line are kept whole, for a localised total line (which
/// is one of them), and so are the first two counts too large to be exact.
#[derive(Default)]
struct Rows {
    /// Per name: its lines' ticks (saturating: a sum past 2^53 is refused
    /// anyway) and how many lines gave it.
    by_name: FxHashMap<Name, (u64, u64)>,
    lines: u64,
    sum: u128,
    first: Option<Row>,
    last: Option<Row>,
    too_large: Vec<Row>,
}

impl Rows {
    fn push(&mut self, r: Row) {
        let e = self.by_name.entry(r.name).or_insert((0, 0));
        e.0 = e.0.saturating_add(r.ticks);
        e.1 += 1;
        self.lines += 1;
        self.sum += u128::from(r.ticks);
        self.first.get_or_insert(r);
        self.last = Some(r);
        if r.ticks > 1 << 53 && self.too_large.len() < 2 {
            self.too_large.push(r);
        }
    }

    fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// Takes back line `r` (the first or the last), read as the total.
    fn remove(&mut self, r: &Row) {
        if let Some(e) = self.by_name.get_mut(&r.name) {
            e.0 -= r.ticks.min(e.0);
            e.1 -= 1;
            if e.1 == 0 {
                self.by_name.remove(&r.name);
            }
        }
        self.lines -= 1;
        self.sum -= u128::from(r.ticks);
        self.too_large.retain(|t| t.line != r.line);
    }
}

/// What bin lines, if any, may follow.
enum Bins {
    None,
    /// `-s` counters after a symbol line (the last of `rows`).
    Counters {
        sum: u64,
    },
    /// `-b` block opened by `NAME:`.
    Block {
        name: String,
        line: u64,
        sum: u64,
    },
}

struct State<'a> {
    origin: &'a str,
    lenient: bool,
    rows: Rows,
    total: Option<u64>,
    unknown: u64,
    bins: Bins,
    seen_block: bool,
    /// A `Sampling_step:` first line, judged once the next line is known.
    info: Option<(u64, Vec<u8>)>,
    skipped: u64,
    first_skipped: Option<u64>,
    bin_mismatches: u64,
    first_mismatch: Option<String>,
}

impl State<'_> {
    fn bad(&mut self, line_no: u64, text: &[u8], expected: &str) -> Result<(), ParseError> {
        if !self.lenient {
            return Err(ParseError::malformed(self.origin, line_no, expected, text));
        }
        self.skipped += 1;
        self.first_skipped.get_or_insert(line_no);
        Ok(())
    }

    fn mismatch(&mut self, what: String) {
        self.bin_mismatches += 1;
        self.first_mismatch.get_or_insert(what);
    }

    /// Close the open `-s` or `-b` context before a line that is not its bin.
    fn close_bins(&mut self) {
        match std::mem::replace(&mut self.bins, Bins::None) {
            Bins::None => {}
            Bins::Counters { sum } => {
                if let Some(r) = self.rows.last.filter(|r| sum > r.ticks) {
                    let msg = format!(
                        "`{}` (line {}) has {} but its -s counters add up to {sum}",
                        r.name,
                        r.line,
                        crate::text::plural(r.ticks, "tick")
                    );
                    self.mismatch(msg);
                }
            }
            Bins::Block { name, line, sum } => {
                // `-b -a` prints zero blocks without a total line.
                if sum != 0 {
                    self.mismatch(format!("`{name}` (line {line}) has bins but no total line"));
                }
                self.push(Name::new(&name), sum, false, line);
            }
        }
    }

    fn push(&mut self, name: Name, ticks: u64, verbose: bool, line: u64) {
        self.rows.push(Row {
            name,
            ticks,
            verbose,
            line,
        });
    }

    fn set_total(&mut self, ticks: u64, line_no: u64, text: &[u8]) -> Result<(), ParseError> {
        if self.total.is_some() {
            return self.bad(line_no, text, EXPECT_ONE_TOTAL);
        }
        self.total = Some(ticks);
        Ok(())
    }

    fn line(&mut self, line_no: u64, text: &[u8]) -> Result<(), ParseError> {
        if let Some((info_no, info_text)) = self.info.take() {
            self.bad(info_no, &info_text, EXPECT_LINE)?;
        }
        let parsed = classify(text);
        match parsed {
            Some(Line::HistBin(n)) => {
                if let Bins::Block { sum, .. } = &mut self.bins {
                    *sum = sum.saturating_add(n);
                    return Ok(());
                }
                return self.bad(line_no, text, EXPECT_HIST_BIN);
            }
            Some(Line::CounterBin(n)) => {
                if let Bins::Counters { sum, .. } = &mut self.bins {
                    *sum = sum.saturating_add(n);
                    return Ok(());
                }
                return self.bad(line_no, text, EXPECT_COUNTER);
            }
            Some(Line::BlockTotal(n)) => {
                if let Bins::Block { name, line, sum } =
                    std::mem::replace(&mut self.bins, Bins::None)
                {
                    if sum != n {
                        self.mismatch(format!(
                            "`{name}` (line {line}) has total {n} but its bins add up to {sum}"
                        ));
                    }
                    self.push(Name::new(&name), n, false, line);
                    return Ok(());
                }
                // `-b -v` prints `  total 0` for zero symbols, with no header.
                self.close_bins();
                self.seen_block = true;
                return if n == 0 {
                    Ok(())
                } else {
                    self.bad(line_no, text, EXPECT_BLOCK)
                };
            }
            _ => {}
        }
        let in_block = matches!(self.bins, Bins::Block { .. });
        self.close_bins();
        match parsed {
            Some(Line::Symbol {
                total: true, ticks, ..
            }) => self.set_total(ticks, line_no, text),
            // The `-b` trailer: its only symbol-shaped line, however named.
            Some(Line::Symbol {
                verbose: false,
                ticks,
                ..
            }) if self.seen_block => self.set_total(ticks, line_no, text),
            Some(Line::Symbol {
                name,
                ticks,
                verbose,
                ..
            }) => {
                self.push(Name::from(decode(name)), ticks, verbose, line_no);
                self.bins = Bins::Counters { sum: 0 };
                Ok(())
            }
            Some(Line::Unknown(n)) => {
                self.unknown = self.unknown.saturating_add(n);
                Ok(())
            }
            Some(Line::BlockHeader(name)) => {
                self.seen_block = true;
                self.bins = Bins::Block {
                    name: decode(name).into_owned(),
                    line: line_no,
                    sum: 0,
                };
                Ok(())
            }
            Some(Line::Info) if self.rows.is_empty() && self.total.is_none() => {
                self.info = Some((line_no, text.to_vec()));
                Ok(())
            }
            _ => self.bad(
                line_no,
                text,
                if in_block { EXPECT_BLOCK } else { EXPECT_LINE },
            ),
        }
    }
}

/// Parse one readprofile output into a [`Profile`].
pub fn parse(
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let mut st = State {
        origin,
        lenient: opts.lenient,
        rows: Rows::default(),
        total: None,
        unknown: 0,
        bins: Bins::None,
        seen_block: false,
        info: None,
        skipped: 0,
        first_skipped: None,
        bin_mismatches: 0,
        first_mismatch: None,
    };
    super::each_line(input, origin, |line_no, line| {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        st.line(line_no, text)
    })?;
    st.close_bins();
    if st.info.is_some() && st.rows.is_empty() {
        return Err(ParseError::invalid(
            origin,
            "this is `readprofile -i` output (the sampling step only), not a profile",
        ));
    }
    finish(st)
}

fn finish(mut st: State<'_>) -> Result<Profile, ParseError> {
    let origin = st.origin;
    let mut p = Profile::new(origin, Format::Readprofile);
    p.weight = Weight::Samples;
    let total = match st.total {
        Some(t) => Some(t),
        None => {
            // Localised `total`: last line in address order, first if sorted.
            let sum = st.rows.sum;
            let is_total = |r: &Row| !r.verbose && 2 * u128::from(r.ticks) == sum;
            let found = if st.rows.lines > 1 {
                [st.rows.last, st.rows.first]
                    .into_iter()
                    .flatten()
                    .find(is_total)
            } else {
                None
            };
            match found {
                Some(r) => {
                    st.rows.remove(&r);
                    p.warnings.push(format!(
                        "{origin}: no line is named `total`; took `{}` (line {}) as the total \
                         because its {} are the sum of the other symbols",
                        r.name,
                        r.line,
                        crate::text::plural(r.ticks, "tick")
                    ));
                    Some(r.ticks)
                }
                None => {
                    if !st.rows.is_empty() {
                        p.warnings.push(format!(
                            "{origin}: no total line; the total is the symbols' sum {sum}"
                        ));
                    }
                    None
                }
            }
        }
    };
    let sum = st.rows.sum;
    if st.rows.is_empty() {
        return Err(ParseError::invalid(origin, "no readprofile symbol lines"));
    }
    if let Some(t) = total.filter(|&t| u128::from(t) != sum) {
        let wrapped = if sum % (1 << 32) == u128::from(t) {
            " (readprofile's 32-bit total wrapped)"
        } else {
            ""
        };
        p.warnings.push(format!(
            "{origin}: total line says {t} but the symbols add up to {sum}{wrapped}"
        ));
    }
    if let Some(first) = st.first_mismatch.take() {
        p.warnings.push(format!(
            "{origin}: {} whose bin lines do not match their count; first: {first}",
            crate::text::plural(st.bin_mismatches, "symbol")
        ));
    }
    if let Some(first) = st.first_skipped {
        p.warnings.push(format!(
            "{origin}: skipped {} malformed line(s), the first at line {first}",
            st.skipped
        ));
    }
    // Counts summed as f64 are exact up to 2^53 only.
    if let Some(r) = st.rows.too_large.first() {
        let at = format!("{origin}:{}", r.line);
        return Err(ParseError::invalid(
            &at,
            super::too_large(&format!("`{}`'s count", r.name), &r.ticks.to_string()),
        ));
    }
    let all = sum + u128::from(st.unknown);
    if all > 1 << 53 {
        return Err(ParseError::invalid(
            origin,
            super::too_large("the ticks' sum", &all.to_string()),
        ));
    }
    p.add_all(
        st.rows
            .by_name
            .into_iter()
            .map(|(name, (ticks, _))| {
                (
                    SymbolKey::new(name).with_mode(Some(Mode::Kernel)),
                    ticks as f64,
                )
            })
            .collect(),
    );
    p.unattributed = st.unknown as f64;
    p.total = sum as f64 + p.unattributed;
    p.skipped_lines = st.skipped;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real outputs of util-linux 2.38.1 readprofile (x86_64, step 4) over a
    // /proc/profile image bucketed from `perf record -e cpu-clock` samples of
    // `perf bench sched messaging`; user-space samples went to the last
    // counter, i.e. `*unknown*`.
    const DEFAULT: &str = r"     2 lruvec_stat_mod_folio.constprop.0          0.0312
     1 finish_task_switch.isra.0                  0.0015
     1 __rcu_read_unlock                          0.0208
     1 filemap_get_entry                          0.0024
     1 vma_interval_tree_augment_rotate           0.0104
     1 anon_vma_interval_tree_insert              0.0048
     1 copy_page_range                            0.0001
     2 dup_mmap                                   0.0010
     1 setup_object                               0.0048
     1 ___slab_alloc                              0.0003
     1 mod_memcg_lruvec_state                     0.0020
     1 fdget_pos                                  0.0027
     1 sk_alloc                                   0.0019
     1 __rb_insert_augmented                      0.0018
     1 copy_mc_enhanced_fast_string               0.0667
     3 exc_page_fault                             0.0016
     1 down_write                                 0.0089
     9 *unknown*
    21 total                                      0.0000
";
    /// `readprofile | sort -nr` of the same image.
    const SORTED: &str = r"    21 total                                      0.0000
     9 *unknown*
     3 exc_page_fault                             0.0016
     2 lruvec_stat_mod_folio.constprop.0          0.0312
     2 dup_mmap                                   0.0010
     1 vma_interval_tree_augment_rotate           0.0104
     1 sk_alloc                                   0.0019
     1 setup_object                               0.0048
     1 mod_memcg_lruvec_state                     0.0020
     1 finish_task_switch.isra.0                  0.0015
     1 filemap_get_entry                          0.0024
     1 fdget_pos                                  0.0027
     1 down_write                                 0.0089
     1 copy_page_range                            0.0001
     1 copy_mc_enhanced_fast_string               0.0667
     1 anon_vma_interval_tree_insert              0.0048
     1 __rcu_read_unlock                          0.0208
     1 __rb_insert_augmented                      0.0018
     1 ___slab_alloc                              0.0003
";
    /// `readprofile -v` of the same image.
    const VERBOSE: &str = r"ffffffff813402f0 lruvec_stat_mod_folio.constprop.0             2   0.0312
ffffffff813a2380 finish_task_switch.isra.0                     1   0.0015
ffffffff81407e30 __rcu_read_unlock                             1   0.0208
ffffffff8158fe90 filemap_get_entry                             1   0.0024
ffffffff815d2c50 vma_interval_tree_augment_rotate              1   0.0104
ffffffff815d3430 anon_vma_interval_tree_insert                 1   0.0048
ffffffff815e7a30 copy_page_range                               1   0.0001
ffffffff815f3470 dup_mmap                                      2   0.0010
ffffffff8162afe0 setup_object                                  1   0.0048
ffffffff8162ceb0 ___slab_alloc                                 1   0.0003
ffffffff8168bcb0 mod_memcg_lruvec_state                        1   0.0020
ffffffff816e92c0 fdget_pos                                     1   0.0027
ffffffff81e33880 sk_alloc                                      1   0.0019
ffffffff821d9e60 __rb_insert_augmented                         1   0.0018
ffffffff821e9470 copy_mc_enhanced_fast_string                  1   0.0667
ffffffff821f2ed0 exc_page_fault                                3   0.0016
ffffffff821fdcb0 down_write                                    1   0.0089
     9 *unknown*
0000000000000000 total                                        21   0.0000
";
    /// A smaller image: default, `-b` and `-s` (zero counter lines left out but two).
    const SMALL: &str = r"     1 filemap_get_entry                          0.0024
     1 dup_mmap                                   0.0005
     1 mod_memcg_lruvec_state                     0.0020
     1 sk_alloc                                   0.0019
     1 copy_mc_enhanced_fast_string               0.0667
     1 exc_page_fault                             0.0005
     8 *unknown*
     6 total                                      0.0000
";
    const HISTBIN: &str = r"filemap_get_entry:
	ffffffff8158ff20	1
  total				1
dup_mmap:
	ffffffff815f37e0	1
  total				1
mod_memcg_lruvec_state:
	ffffffff8168bd00	1
  total				1
sk_alloc:
	ffffffff81e338dc	1
  total				1
copy_mc_enhanced_fast_string:
	ffffffff821e9474	1
  total				1
exc_page_fault:
	ffffffff821f2fa4	1
  total				1
     8 *unknown*
     6 total                                      0.0000
";
    const COUNTERS: &str = r"     1 filemap_get_entry                          0.0024
	0xffffffff8158fe90	filemap_get_entry+0	0
	0xffffffff8158fe94	filemap_get_entry+0x4	0
	0xffffffff8158ff20	filemap_get_entry+0x90	1
     1 dup_mmap                                   0.0005
	0xffffffff815f37e0	dup_mmap+0x370	1
     1 mod_memcg_lruvec_state                     0.0020
	0xffffffff8168bd00	mod_memcg_lruvec_state+0x50	1
     1 sk_alloc                                   0.0019
	0xffffffff81e338dc	sk_alloc+0x5c	1
     1 copy_mc_enhanced_fast_string               0.0667
	0xffffffff821e9474	copy_mc_enhanced_fast_string+0x4	1
     1 exc_page_fault                             0.0005
	0xffffffff821f2fa4	exc_page_fault+0xd4	1
     8 *unknown*
     6 total                                      0.0000
";
    /// The small image with every count times 10^8: columns overflow, and
    /// `sort -nr` puts `*unknown*` first.
    const WIDE_SORTED: &str = r"800000000 *unknown*
600000000 total                                     31.7231
100000000 sk_alloc                                 189393.9394
100000000 mod_memcg_lruvec_state                   195312.5000
100000000 filemap_get_entry                        240384.6154
100000000 exc_page_fault                           52521.0084
100000000 dup_mmap                                 49603.1746
100000000 copy_mc_enhanced_fast_string             6666666.6667
";
    /// `readprofile -s` at step 64: the count includes the bin before the
    /// symbol, which -s never prints (and a negative offset).
    const COUNTERS_64: &str = r"   510 native_queued_spin_lock_slowpath           0.6782
	0xffffffff82201940	native_queued_spin_lock_slowpath+0xffffffffffffffd0	0
	0xffffffff82201980	native_queued_spin_lock_slowpath+0x10	0
	0xffffffff822019c0	native_queued_spin_lock_slowpath+0x50	0
	0xffffffff82201a00	native_queued_spin_lock_slowpath+0x90	0
	0xffffffff82201a40	native_queued_spin_lock_slowpath+0xd0	0
	0xffffffff82201a80	native_queued_spin_lock_slowpath+0x110	0
	0xffffffff82201ac0	native_queued_spin_lock_slowpath+0x150	0
	0xffffffff82201b00	native_queued_spin_lock_slowpath+0x190	0
	0xffffffff82201b40	native_queued_spin_lock_slowpath+0x1d0	0
	0xffffffff82201b80	native_queued_spin_lock_slowpath+0x210	0
	0xffffffff82201bc0	native_queued_spin_lock_slowpath+0x250	0
     4 __pv_queued_spin_lock_slowpath             0.0045
";

    fn run(text: &str, lenient: bool) -> Result<Profile, ParseError> {
        let opts = ParseOptions {
            lenient,
            ..ParseOptions::default()
        };
        parse(&mut text.as_bytes(), "old/run1.txt", &opts)
    }

    fn ok(text: &str) -> Profile {
        match run(text, false) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    fn count(p: &Profile, name: &str) -> Option<f64> {
        p.counts
            .get(&SymbolKey::new(name).with_mode(Some(Mode::Kernel)))
            .copied()
    }

    #[test]
    fn default_output() {
        let p = ok(DEFAULT);
        assert_eq!(p.format, Format::Readprofile);
        assert_eq!(p.weight, Weight::Samples);
        assert_eq!(p.event, None);
        assert_eq!(p.counts.len(), 17);
        assert_eq!(count(&p, "exc_page_fault"), Some(3.0));
        assert_eq!(count(&p, "lruvec_stat_mod_folio.constprop.0"), Some(2.0));
        assert_eq!((p.symbol_sum(), p.unattributed, p.total), (21.0, 9.0, 30.0));
        assert!(p.counts.keys().all(|k| k.dso.is_none()));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn sorted_verbose_and_crlf_give_the_same_profile() {
        let p = ok(DEFAULT);
        let crlf = DEFAULT.replace('\n', "\r\n");
        for other in [SORTED, VERBOSE, &crlf] {
            let q = ok(other);
            assert_eq!(
                (&q.counts, q.total, q.unattributed),
                (&p.counts, p.total, p.unattributed)
            );
            assert!(q.warnings.is_empty(), "{:?}", q.warnings);
        }
    }

    #[test]
    fn histbin_and_counters_give_the_same_profile() {
        let p = ok(SMALL);
        assert_eq!((p.counts.len(), p.total, p.unattributed), (6, 14.0, 8.0));
        for other in [HISTBIN, COUNTERS] {
            let q = ok(other);
            assert_eq!((&q.counts, q.total), (&p.counts, p.total));
            assert!(q.warnings.is_empty(), "{:?}", q.warnings);
        }
    }

    #[test]
    fn all_keeps_explicit_zeros() {
        // -a lines; -b -a zero blocks (bins, no total); -b -v headerless zero totals.
        let zeros = "     0 __pfx_x64_sys_call                         0.0000\n";
        let p = ok(&format!("{zeros}{SMALL}"));
        assert_eq!(count(&p, "__pfx_x64_sys_call"), Some(0.0));
        assert_eq!(p.symbol_sum(), 6.0);
        let block = "x2apic_setup.cold:\n\tffffffff81204fd4\t0\n\tffffffff81204fd8\t0\n";
        let p = ok(&format!("{block}  total\t\t\t\t0\n{HISTBIN}"));
        assert_eq!(count(&p, "x2apic_setup.cold"), Some(0.0));
        assert_eq!((p.counts.len(), p.symbol_sum()), (7, 6.0));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn bins_that_do_not_add_up_warn() {
        let p = ok(&HISTBIN.replace("\tffffffff815f37e0\t1", "\tffffffff815f37e0\t2"));
        assert_eq!(count(&p, "dup_mmap"), Some(1.0));
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("`dup_mmap` (line 4) has total 1 but its bins add up to 2"));
        assert!(
            p.warnings[0].contains(": 1 symbol whose bin lines do not match"),
            "{}",
            p.warnings[0]
        );
        // -s bins may add up to less (readprofile's off-by-one bin), never more.
        let p = ok(&format!(
            "{COUNTERS_64}\n     0 *unknown*\n   514 total 0.0000\n"
        ));
        assert_eq!(count(&p, "native_queued_spin_lock_slowpath"), Some(510.0));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let p = ok(&COUNTERS.replace("sk_alloc+0x5c\t1", "sk_alloc+0x5c\t5"));
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0]
            .contains("`sk_alloc` (line 9) has 1 tick but its -s counters add up to 5"));
    }

    #[test]
    fn wide_counts_and_unknown_first() {
        let p = ok(WIDE_SORTED);
        assert_eq!(count(&p, "exc_page_fault"), Some(1e8));
        assert_eq!((p.symbol_sum(), p.unattributed), (6e8, 8e8));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    /// Ticks above 2^53 are not exact as f64 sums: refused naming the line
    /// (or the sum); 2^53 itself is read.
    #[test]
    fn counts_too_large_to_be_exact_are_refused() {
        let text =
            "     5 down_write 0.0089\n9007199254740993 schedule 0.1\n9007199254740998 total 0.1\n";
        let e = run(text, false).unwrap_err().to_string();
        assert_eq!(
            e,
            "old/run1.txt:2: `schedule`'s count 9007199254740993 is larger than 2^53 \
             (9007199254740992), the largest count read exactly; no profile holds so many samples"
        );
        let text =
            "     5 down_write 0.0089\n9007199254740990 schedule 0.1\n9007199254740995 total 0.1\n";
        let e = run(text, false).unwrap_err().to_string();
        assert!(
            e.starts_with("old/run1.txt: the ticks' sum 9007199254740995 is larger"),
            "{e}"
        );
        let p = ok("9007199254740992 schedule 0.1\n9007199254740992 total 0.1\n");
        assert_eq!(p.total, 9007199254740992.0);
    }

    #[test]
    fn total_mismatch_warns() {
        let p = ok(&DEFAULT.replace(
            "     1 down_write                                 0.0089\n",
            "",
        ));
        assert_eq!(p.total, 29.0);
        assert_eq!(
            p.warnings,
            ["old/run1.txt: total line says 21 but the symbols add up to 20"]
        );
    }

    #[test]
    fn localised_total_is_recognised_by_value() {
        for text in [DEFAULT, SORTED] {
            let p = ok(&text.replace(
                "total                                      0.0000",
                "Summe 0,0000",
            ));
            assert_eq!((p.counts.len(), p.total), (17, 30.0));
            assert_eq!(count(&p, "Summe"), None);
            assert_eq!(p.warnings.len(), 1);
            assert!(p.warnings[0].contains("took `Summe`"), "{:?}", p.warnings);
        }
        let p = ok(&DEFAULT.replace(
            "    21 total                                      0.0000\n",
            "",
        ));
        assert_eq!((p.counts.len(), p.total), (17, 30.0));
        assert_eq!(
            p.warnings,
            ["old/run1.txt: no total line; the total is the symbols' sum 21"]
        );
    }

    #[test]
    fn duplicate_names_add_up() {
        let text = "     2 sk_alloc 0.0312\n     3 sk_alloc 0.0100\n     5 total 0.0000\n";
        let p = ok(text);
        assert_eq!(count(&p, "sk_alloc"), Some(5.0));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn malformed_lines_fail_or_are_skipped() {
        let mut lines: Vec<&str> = DEFAULT.lines().collect();
        lines.insert(2, "    -1 up_write 0.0125");
        lines.insert(6, "99999999999999999999 dup_fd 0.0011");
        lines.insert(8, "");
        let text = lines.join("\n");
        let e = run(&text, false).map(|_| ()).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("old/run1.txt:3: expected {EXPECT_LINE}, found \"    -1 up_write 0.0125\"")
        );
        let p = match run(&text, true) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        assert_eq!((p.skipped_lines, p.symbol_sum()), (2, 21.0));
        assert_eq!(
            p.warnings,
            ["old/run1.txt: skipped 2 malformed line(s), the first at line 3"]
        );
        let e = run("\tffffffff8158ff20\t1\n", false)
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().contains(EXPECT_HIST_BIN), "{e}");
        let e = run("     1 a 0.1\n     1 total 0.1\n\t0x81\ta+0\t1\n", false).map(|_| ());
        assert!(e
            .unwrap_err()
            .to_string()
            .starts_with("old/run1.txt:3: expected a `readprofile -s`"));
    }

    #[test]
    fn empty_and_info_outputs_are_not_profiles() {
        for text in ["", "\n \r\n", "     0 *unknown*\n     0 total  0.0000\n"] {
            let e = run(text, false).map(|_| ()).unwrap_err().to_string();
            assert_eq!(e, "old/run1.txt: no readprofile symbol lines");
        }
        let e = run("Sampling_step: 4\n", false)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("`readprofile -i` output"), "{e}");
    }

    #[test]
    fn invalid_utf8_is_escaped() {
        let text = b"     3 caf\xe9_fn 0.0100\n     3 total 0.0000\n";
        let p = parse(&mut &text[..], "x", &ParseOptions::default()).map_err(|e| e.to_string());
        assert_eq!(p.map(|p| count(&p, "caf\\xe9_fn")), Ok(Some(3.0)));
    }

    /// The one-pass symbol line takes exactly what the field matcher
    /// takes as a default-mode symbol, and nothing else.
    #[test]
    fn symbol_fast_path_agrees_with_fields() {
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for text in [
            DEFAULT,
            SORTED,
            VERBOSE,
            HISTBIN,
            COUNTERS,
            WIDE_SORTED,
            COUNTERS_64,
        ] {
            lines.extend(text.lines().map(|l| l.as_bytes().to_vec()));
        }
        for extra in [
            "7 a 0.1",
            "7 a 0.1 x",
            "7 a",
            "7a b 0.1",
            "07 a 1,5",
            "18446744073709551615 a 0.1",
            "18446744073709551616 a 0.1",
            "99999999999999999999 a 0.1",
            "-1 a 0.1",
            "+1 a 0.1",
            "1 a -inf",
            "1 a NaN",
            "1 a .5",
            "1 a 5.",
            "1 a 0.1\t\x0c\r",
            "\t1\ta\t0.1",
            "1 total 0.0",
            "1 total: 0.0",
            "1 0x1 a+0",
            "0x1 a+0 1",
            "1\x0bx 0.1",
            "1 caf\u{e9} 0.1",
            "",
            " ",
            "1",
            "1 ",
        ] {
            lines.push(extra.as_bytes().to_vec());
        }
        for l in lines.clone() {
            for cut in 0..l.len() {
                lines.push(l[..cut].to_vec());
                let mut bad = l.clone();
                bad[cut] = b'x';
                lines.push(bad);
            }
        }
        let mut fast = 0;
        for l in &lines {
            let general = match classify_fields(l) {
                symbol @ Some(Line::Symbol { verbose: false, .. }) => symbol,
                _ => None,
            };
            fast += usize::from(general.is_some());
            assert_eq!(symbol_line(l), general, "{:?}", decode(l));
        }
        assert!(fast > 100, "{fast}");
    }

    #[test]
    fn sniffs_every_variant() {
        for text in [DEFAULT, SORTED, VERBOSE, HISTBIN, COUNTERS, WIDE_SORTED] {
            assert_eq!(sniff(text.as_bytes(), false), Sniff::Yes, "{text}");
        }
        let one = "     1 filemap_get_entry                          0.0024\n";
        assert_eq!(sniff(one.as_bytes(), false), Sniff::NeedMore);
        assert_eq!(sniff(one.as_bytes(), true), Sniff::Yes);
        assert_eq!(
            sniff(format!("{one}     2 dup").as_bytes(), false),
            Sniff::NeedMore
        );
        assert_eq!(sniff(b"Sampling_step: 4\n", true), Sniff::Yes);
        // One decimal; 8-digit -v addresses (`%08lx`, 32-bit kernels).
        let short = "    12 x64_sys_call                                  0.0\n\
                     8607 total                                           0.0\n";
        assert_eq!(sniff(short.as_bytes(), true), Sniff::Yes);
        let v32 = "c1249030 x64_sys_call                                 12   0.0022\n\
                   00000000 total                                      8607   0.0005\n";
        assert_eq!(sniff(v32.as_bytes(), true), Sniff::Yes);
        // A load without a fraction is not readprofile's.
        assert_eq!(sniff(b"12 x64_sys_call 3\n8607 total 5\n", true), Sniff::No);
        assert_eq!(sniff(b"", true), Sniff::No);
    }

    #[test]
    fn sniffs_other_formats_as_no() {
        for text in [
            "# To display the perf.data header info, please use --header/--header-only options.\n#\n",
            "    17.97%           807  [k] do_syscall_64\n     5.01%           225  [k] memcpy\n",
            "perf 12345 [001] 5801.123456:     500500 cpu-clock:  ffffffff821f2fa7 exc_page_fault+0xd7 ([kernel.kallsyms])\n",
            "perf;entry_SYSCALL_64;do_syscall_64 12\nperf;exc_page_fault 3\n",
            "do_syscall_64 12\nexc_page_fault 3\n",
            "samples  %        image name               symbol name\n1234     12.3456  vmlinux                  do_syscall_64\n",
        ] {
            assert_eq!(sniff(text.as_bytes(), true), Sniff::No, "{text}");
        }
    }
}
