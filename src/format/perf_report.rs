//! Parser for `perf report --stdio` text: one section per event, each a
//! `#` header, a column-title line with its `# ....` dots line, and one row
//! per histogram entry (optionally followed by call-graph lines).
//!
//! Input: the decompressed report. Output: a [`Profile`] of per-symbol self
//! counts for one event, keyed by (name, dso when the report has a `Shared
//! Object` column, mode from the `[k]`/`[.]` marker) and summed over every
//! other sort key (`Command`, `Pid`, …); an unresolved address (perf's
//! `[.] 0x00000000000f5746`, one row per address) counts as `[unknown]` in
//! its dso, as in every perf reader ([`super::unresolved`]). Counts are
//! self samples when a `Samples` column exists (`-n`; with `--children` it
//! holds *self* samples too), else self periods (`--show-total-period`), else percentages scaled
//! by the rounded `# Samples:` header ([`Weight::Percent`]). The total is
//! the sum of all rows (before `--kernel-only`/`--comm`/`--dso` filters,
//! like perf's `--percentage absolute`) unless rows are missing
//! (`--percent-limit`, `--comms` in perf), when it is estimated and says so.
//! `--kernel-only` keeps `[k]` rows only: host kernel, not `[g]` guest kernel.
//!
//! Real lines (perf 6.1) of each variant this parser accepts:
//!
//! ```text
//! # To display the perf.data header info, please use --header/--header-only options.
//! #
//! #
//! # Total Lost Samples: 0
//! #
//! # Samples: 9K of event 'cpu-clock'
//! # Event count (approx.): 4629813750
//! #
//! ```
//! Default sort `comm,dso,symbol` (no `-n`: percentages only):
//! ```text
//! # Overhead  Command          Shared Object               Symbol
//! # ........  ...............  ..........................  ...................................................
//! #
//!      6.37%  sched-messaging  [kernel.kallsyms]           [k] skb_release_data
//!      2.27%  sched-messaging  libc.so.6                   [.] read
//! ```
//! `--sort sym -n`, `--sort dso,sym -n`, `--show-total-period`, `-F overhead,sample,period,sym`:
//! ```text
//! # Overhead       Samples  Symbol
//! # ........  ............  ...................................................
//!      6.37%           590  [k] skb_release_data
//!      0.01%             1  [.] 0x00000000000f5746
//! # Overhead       Samples  Shared Object      Symbol
//! # Overhead        Period  Symbol
//!      6.37%     295147500  [k] skb_release_data
//! # Overhead       Samples        Period  Symbol
//!      6.37%           590     295147500  [k] skb_release_data
//! ```
//! `--children -n` (the Samples column holds self samples: 0 below) with
//! call-graph lines, which are skipped; `-g folded` and `-g flat` lines too:
//! ```text
//! # Children      Self       Samples  Symbol
//! # ........  ........  ............  ......................................
//!     94.96%     0.00%             0  [.] __libc_start_call_main
//!             |
//!             ---0x556d7b63d183
//!                |--55.94%--0x556d7b6afbe0
//!                |           --55.08%--read
//!     89.08%     4.68%           402  [k] do_syscall_64
//! 6.47% __libc_start_call_main;0x556d7b63d183;read;do_syscall_64;_copy_to_iter
//!            6.47%
//!                 _copy_to_iter
//! ```
//! Several events (`-e cpu-clock -e task-clock`): a new `# Samples:` header
//! (without `# Total Lost Samples:`) after two blank lines starts each section;
//! perf prints `77  ` (exact, unit blank) below 1001 samples and truncates above
//! (8597 → `8K`). An event group (`-e '{cpu-clock,task-clock}'`) is one
//! section with one value per member in each numeric column:
//! ```text
//! # Samples: 8K of event 'task-clock'
//! # Samples: 77  of event 'cpu-clock:u'
//! # Samples: 1K of events 'anon group { cpu-clock, task-clock }'
//! #         Overhead                   Samples  Symbol
//! # ................  ........................  ...................................................
//!      4.73%   4.62%            41          40  [k] _copy_to_iter
//! ```
//! `--percent-limit 1` drops rows without a footer (only the usual random
//! `# (Tip: …)` lines follow); a filter that matches nothing leaves a
//! header-only report:
//! ```text
//! # comm: nosuch
//! # Overhead       Samples  Shared Object  Symbol
//! # ........  ............  .............  ......
//! #
//! # (Tip: Treat branches as callchains: perf report --branch-history)
//! ```

mod layout;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_comm;
#[cfg(test)]
mod tests_variants;
mod totals;

use super::unresolved::{self, UNKNOWN};
use super::{decode, head_lines, ParseError, ParseOptions, Sniff};
use crate::profile::{Format, Mode, Name, Profile, SymbolKey, Weight};
use layout::{event_matches, is_dots_line, samples_header, Layout, Row, SamplesHeader};
use std::collections::BTreeMap;
use std::io::BufRead;
use totals::totals;

/// Yes on perf report's header lines (`# To display the perf.data header
/// info`, `# Samples: … of event`, `# Overhead`, `# Children`, a dots line);
/// No on the first line that is neither blank nor `#`; NeedMore otherwise.
pub fn sniff(head: &[u8], eof: bool) -> Sniff {
    for line in head_lines(head, eof) {
        let line = line.trim_ascii();
        let Some(rest) = line.strip_prefix(b"#") else {
            if line.is_empty() {
                continue;
            }
            // `perf report -q`: rows without titles, refused saying so.
            return if quiet_row(line) {
                Sniff::Yes
            } else {
                Sniff::No
            };
        };
        let text = rest.trim_ascii_start();
        let yes = text.starts_with(b"To display the perf.data header info")
            || (text.starts_with(b"Samples: ")
                && memchr::memmem::find(text, b" of event").is_some())
            || text.starts_with(b"Overhead")
            || text.starts_with(b"Children")
            || is_dots_line(rest);
        if yes {
            return Sniff::Yes;
        }
    }
    if eof {
        Sniff::No
    } else {
        Sniff::NeedMore
    }
}

/// A row of `perf report -q` (trimmed): `12.38%  142  [.] sym`, a
/// percentage first and a `[.]` or `[k]` mark after it.
fn quiet_row(row: &[u8]) -> bool {
    let first = row.split(|&b| b == b' ').next().unwrap_or_default();
    let pct = first
        .strip_suffix(b"%")
        .is_some_and(|d| !d.is_empty() && d.iter().all(|b| b.is_ascii_digit() || *b == b'.'));
    pct && (memchr::memmem::find(row, b" [.] ").is_some()
        || memchr::memmem::find(row, b" [k] ").is_some())
}

/// What a row before any column-title line was expected to follow, and
/// the option of perf report that leaves the titles out or changes the
/// rows, when the row tells it: `-t ,` separates fields by its character
/// (`12.38% , 142 ,[.] sym`), `-q` prints rows without any title.
fn no_titles(row: &[u8]) -> String {
    let expected = "a `# Overhead  Samples  Symbol` column-title line and its `# ........` dots \
                    line before the first row";
    // `-t C`: the percentage, then (after padding) the separator.
    let trimmed = row.trim_ascii_start();
    let end = trimmed
        .iter()
        .position(|&b| b == b' ')
        .unwrap_or(trimmed.len());
    let percent = end > 1 && trimmed[end - 1] == b'%';
    let next = trimmed[end..].iter().find(|&&b| b != b' ');
    let separated = next.is_some_and(|&b| b.is_ascii_punctuation() && b != b'[');
    if percent && separated {
        format!(
            "{expected}; this looks like perf report -t/--field-separator output, which \
             diffprofile does not read: re-run perf report without -t"
        )
    } else if quiet_row(row.trim_ascii()) {
        format!(
            "{expected}; this looks like perf report -q output (no title lines), which \
             diffprofile does not read: re-run perf report without -q"
        )
    } else {
        expected.to_string()
    }
}

pub fn parse(
    input: &mut dyn BufRead,
    origin: &str,
    opts: &ParseOptions,
) -> Result<Profile, ParseError> {
    let mut parser = Parser {
        origin,
        opts,
        sections: Vec::new(),
        title: None,
        lost: 0,
        perf_comm: None,
    };
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    loop {
        let n = super::read_line(input, &mut buf, origin, line_no + 1)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        parser.line(line, line_no);
    }
    parser.finish()
}

/// One `# Samples: … of event 'X'` section (or the rows before any such header).
#[derive(Default)]
struct Section {
    header: Option<SamplesHeader>,
    event_count: Option<u64>,
    /// The group member whose values are read (0 unless an event group).
    member: usize,
    layout: Option<Layout>,
    counts: BTreeMap<SymbolKey, f64>,
    rows: u64,
    pct_sum: f64,
    /// The smallest listed percentage.
    pct_min: Option<f64>,
    /// The percentages of the rows the filters (`--comm`, `--dso`) left out.
    dropped_pct: f64,
    /// Rows the filters left out.
    dropped: u64,
    sample_sum: u64,
    period_sum: u64,
    /// The first error; the section's later rows are then ignored.
    error: Option<ParseError>,
    skipped: u64,
    first_skipped: Option<u64>,
}

impl Section {
    fn weight(&self) -> Weight {
        match &self.layout {
            Some(l) if l.samples.is_some() => Weight::Samples,
            Some(l) if l.period.is_some() => Weight::Period,
            _ => Weight::Percent,
        }
    }

    fn add(&mut self, row: Row, opts: &ParseOptions) {
        self.rows += 1;
        if let Some(pct) = row.pct {
            self.pct_sum += pct;
            self.pct_min = Some(self.pct_min.map_or(pct, |m| m.min(pct)));
        }
        self.sample_sum = self.sample_sum.saturating_add(row.samples.unwrap_or(0));
        self.period_sum = self.period_sum.saturating_add(row.period.unwrap_or(0));
        if (opts.kernel_only && row.mode != Some(Mode::Kernel))
            || !opts
                .comm
                .as_ref()
                .is_none_or(|f| row.comm.as_deref().is_some_and(|c| f.is_match(c)))
            || !opts.dso.as_ref().is_none_or(|re| {
                row.dso
                    .as_deref()
                    .is_some_and(|d| crate::format::dso_matches(re, d))
            })
        {
            self.dropped += 1;
            self.dropped_pct += row.pct.unwrap_or(0.0);
            return;
        }
        let value = match self.weight() {
            Weight::Samples => row.samples.unwrap_or(0) as f64,
            Weight::Period => row.period.unwrap_or(0) as f64,
            Weight::Percent => row.pct.unwrap_or(0.0),
        };
        // `--children` lists callers with no self samples: not a symbol's count.
        if value > 0.0 {
            // One row per unresolved address (`0x…`) in perf: one `[unknown]`
            // per dso here, as in every perf reader.
            let name = if unresolved::is_address(&row.name) {
                UNKNOWN.to_string()
            } else {
                row.name
            };
            let dso = row
                .dso
                .map(|d| super::perf_script::jit_map_dso(&d).map_or(d, str::to_string));
            let key = SymbolKey::new(name)
                .with_dso(dso.map(Name::from))
                .with_mode(row.mode);
            *self.counts.entry(key).or_insert(0.0) += value;
        }
    }

    /// The event names this section holds (the members of a group).
    fn events(&self) -> &[String] {
        self.header.as_ref().map_or(&[], |h| h.events.as_slice())
    }
}

struct Parser<'a> {
    origin: &'a str,
    opts: &'a ParseOptions,
    sections: Vec<Section>,
    /// The previous line when it was a `#` line: the column titles if the
    /// next line is the dots line.
    title: Option<Vec<u8>>,
    lost: u64,
    /// The one command perf kept (`perf report --comms spin` prints
    /// `# comm: spin` and leaves the Command column out): every row's.
    perf_comm: Option<String>,
}

impl Parser<'_> {
    fn current(&mut self) -> &mut Section {
        if self.sections.is_empty() {
            self.sections.push(Section::default());
        }
        let last = self.sections.len() - 1;
        &mut self.sections[last]
    }

    fn line(&mut self, line: &[u8], line_no: u64) {
        if let Some(rest) = line.strip_prefix(b"#") {
            let title = self.title.replace(line.to_vec());
            self.comment(rest, title, line_no);
        } else {
            self.title = None;
            if !line.trim_ascii().is_empty() {
                self.row(line, line_no);
            }
        }
    }

    fn comment(&mut self, rest: &[u8], title: Option<Vec<u8>>, line_no: u64) {
        let text = decode(rest);
        let text = text.trim();
        if is_dots_line(rest) {
            self.title = None;
            let line = [b"#", rest].concat();
            self.columns(title.as_deref().unwrap_or(b"#"), &line, line_no);
        } else if let Some(value) = text.strip_prefix("Samples:") {
            let header = samples_header(value.trim_start());
            let member = match (&header, &self.opts.event) {
                (Some(h), Some(want)) if h.events.len() > 1 => [true, false]
                    .iter()
                    .find_map(|&exact| h.events.iter().position(|e| event_matches(e, want, exact)))
                    .unwrap_or(0),
                _ => 0,
            };
            self.sections.push(Section {
                header,
                member,
                ..Section::default()
            });
        } else if let Some(value) = text.strip_prefix("Event count (approx.):") {
            self.current().event_count = value.trim().parse().ok();
        } else if let Some(value) = text.strip_prefix("comm:") {
            let value = value.trim();
            self.perf_comm = (!value.is_empty()).then(|| value.to_string());
        } else if let Some(value) = text.strip_prefix("Total Lost Samples:") {
            self.lost = self.lost.saturating_add(value.trim().parse().unwrap_or(0));
        }
    }

    /// A column-title line and its dots line: the section's layout.
    fn columns(&mut self, title: &[u8], dots: &[u8], line_no: u64) {
        let (origin, opts) = (self.origin, self.opts);
        let perf_comm = self.perf_comm.is_some();
        if self
            .sections
            .last()
            .is_some_and(|s| s.layout.is_some() && s.rows > 0)
        {
            // A second table in one section: read it as a section of its own.
            let header = self.current().header.clone();
            self.sections.push(Section {
                header,
                ..Section::default()
            });
        }
        let section = self.current();
        let layout = match Layout::new(title, dots) {
            Ok(layout) => layout,
            Err(message) => {
                let message = format!("line {line_no}: {message}");
                section
                    .error
                    .get_or_insert(ParseError::invalid(origin, message));
                return;
            }
        };
        let missing = |flag: &str, column: &str, sort: &str| {
            ParseError::invalid(
                origin,
                format!(
                    "{flag} needs a {column} column, and this report has none (columns: {}); \
                     re-run perf report with --sort {sort}",
                    layout.names()
                ),
            )
        };
        if opts.comm.is_some() && layout.comm.is_none() && !perf_comm {
            section
                .error
                .get_or_insert(missing("--comm", "Command", "comm,dso,sym"));
        } else if opts.dso.is_some() && layout.dso.is_none() {
            section
                .error
                .get_or_insert(missing("--dso", "Shared Object", "dso,sym"));
        }
        section.layout = Some(layout);
    }

    fn row(&mut self, line: &[u8], line_no: u64) {
        let (origin, opts) = (self.origin, self.opts);
        let perf_comm = self.perf_comm.clone();
        let section = self.current();
        if section.error.is_some() {
            return;
        }
        let result = match &section.layout {
            None => Err(no_titles(line)),
            Some(layout) if layout.is_callgraph(line) => return,
            Some(layout) => layout
                .row(line, section.member, section.events().len().max(1))
                .map_err(|why| format!("a perf report row `{}` ({why})", layout.signature())),
        };
        match result {
            Ok(mut row) => {
                if row.comm.is_none() {
                    row.comm = perf_comm;
                }
                section.add(row, opts)
            }
            Err(_) if opts.lenient => {
                section.skipped += 1;
                section.first_skipped.get_or_insert(line_no);
            }
            Err(expected) => {
                section.error = Some(ParseError::malformed(origin, line_no, expected, line));
            }
        }
    }

    /// Pick the section of the chosen event.
    fn choose(&mut self) -> Result<(Section, Option<String>), ParseError> {
        let origin = self.origin;
        let mut candidates: Vec<(usize, usize, &str)> = Vec::new();
        for (i, section) in self.sections.iter().enumerate() {
            for (m, event) in section.events().iter().enumerate() {
                candidates.push((i, m, event.as_str()));
            }
        }
        let present = || {
            let names: Vec<&str> = candidates.iter().map(|c| c.2).collect();
            names.join(", ")
        };
        let (index, event) = match &self.opts.event {
            None if candidates.len() > 1 => {
                return Err(ParseError::invalid(
                    origin,
                    format!(
                        "holds several events ({}); choose one with --event",
                        present()
                    ),
                ));
            }
            None if self.sections.len() > 1 => {
                return Err(ParseError::invalid(
                    origin,
                    format!("holds {} report sections", self.sections.len()),
                ));
            }
            None => (0, candidates.first().map(|c| c.2.to_string())),
            Some(want) => {
                let exact: Vec<_> = candidates
                    .iter()
                    .filter(|c| event_matches(c.2, want, true))
                    .collect();
                let found = if exact.is_empty() {
                    candidates
                        .iter()
                        .filter(|c| event_matches(c.2, want, false))
                        .collect()
                } else {
                    exact
                };
                match found.as_slice() {
                    [(i, m, name)] if self.sections[*i].member == *m => {
                        (*i, Some(name.to_string()))
                    }
                    [] | [_] => {
                        return Err(ParseError::invalid(
                            origin,
                            if candidates.is_empty() {
                                format!("has no event '{want}' (the report names no event)")
                            } else {
                                format!("has no event '{want}' (present: {})", present())
                            },
                        ));
                    }
                    several => {
                        let names: Vec<&str> = several.iter().map(|c| c.2).collect();
                        return Err(ParseError::invalid(
                            origin,
                            format!(
                                "--event '{want}' matches several events ({}); name one exactly",
                                names.join(", ")
                            ),
                        ));
                    }
                }
            }
        };
        if index >= self.sections.len() {
            return Err(ParseError::invalid(origin, "no sample rows"));
        }
        Ok((self.sections.swap_remove(index), event))
    }

    fn finish(mut self) -> Result<Profile, ParseError> {
        let origin = self.origin;
        let (mut section, event) = self.choose()?;
        if let Some(error) = section.error.take() {
            return Err(error);
        }
        if section.rows == 0 {
            let why = if section.skipped > 0 {
                format!(
                    "no sample rows ({} malformed lines skipped)",
                    section.skipped
                )
            } else {
                "no sample rows".to_string()
            };
            return Err(ParseError::invalid(origin, why));
        }
        let mut profile = Profile::new(origin, Format::PerfReport);
        profile.event = event;
        profile.weight = section.weight();
        if section.skipped > 0 {
            profile.skipped_lines = section.skipped;
            profile.warnings.push(format!(
                "{origin}: skipped {} malformed perf report line(s), the first at line {}",
                section.skipped,
                section.first_skipped.unwrap_or(0)
            ));
        }
        if self.lost > 0 {
            profile.warnings.push(format!(
                "{}: perf lost {} while recording (# Total Lost Samples)",
                self.origin,
                crate::text::plural(self.lost, "sample")
            ));
        }
        totals(&mut section, &mut profile);
        profile.counts = std::mem::take(&mut section.counts);
        totals::filtered(&section, &mut profile, self.opts, self.perf_comm.as_deref());
        profile.unresolved = unresolved::note(
            &profile,
            &|_| None,
            "perf report could not name them (rows 0x...): run it where the binaries and \
             their debug files are (perf's --symfs), or give diffprofile the perf.data",
        );
        Ok(profile)
    }
}
