//! The line-level grammar of a `perf report --stdio` section: the
//! `# Samples: 9K of event 'cpu-clock'` header, the column layout given by
//! the column-title line and its `# ....` dots line, and the cutting of one
//! data row into typed fields by those byte spans.
//!
//! Input: single lines without their terminator. Output: [`SamplesHeader`],
//! [`Layout`] and [`Row`] values; nothing here knows about events being
//! chosen, filters or totals.

use super::super::decode;
use crate::profile::Mode;

/// What a column holds, from its title.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `Overhead`: self percentage (without `--children`).
    Overhead,
    /// `Children`: inclusive percentage (ignored, but checked).
    Children,
    /// `Self`: self percentage (with `--children`).
    SelfPct,
    /// `Samples` (`-n`): self sample count, also with `--children`.
    Samples,
    /// `Period` (`--show-total-period`): self period.
    Period,
    Command,
    /// `Pid:Command` (`--sort pid`): `  1054:spin`, the command after the
    /// first colon.
    PidCommand,
    SharedObject,
    Symbol,
    /// Any other `--sort`/`-F` key (`Pid`, `CPU`, …): rows are summed over it.
    Other,
}

#[derive(Clone, Debug)]
pub(super) struct Column {
    pub name: String,
    pub kind: Kind,
    /// Byte offset where the field starts (0 for the first column, whose
    /// span includes the `# ` that the title line starts with).
    pub start: usize,
    /// Byte offset where the field ends; `None` for the last column, which
    /// runs to the end of the line.
    pub end: Option<usize>,
}

/// The columns of one section, with the indices that matter.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    pub columns: Vec<Column>,
    /// The self percentage: `Self` when present, else `Overhead`.
    pub pct: Option<usize>,
    pub samples: Option<usize>,
    pub period: Option<usize>,
    pub comm: Option<usize>,
    pub dso: Option<usize>,
}

/// Is this `#` line (the text after `#`) a dots line, `# ........  .....`?
pub(super) fn is_dots_line(rest: &[u8]) -> bool {
    rest.iter().filter(|&&b| b == b'.').count() >= 4
        && rest.iter().all(|&b| b == b'.' || b == b' ' || b == b'\t')
}

impl Layout {
    /// Build the layout from the column-title line and the dots line (both
    /// whole lines, starting with `#`). `Err` says what is wrong.
    pub fn new(title: &[u8], dots: &[u8]) -> Result<Layout, String> {
        let mut spans = Vec::new();
        let mut i = 0;
        while i < dots.len() {
            if dots[i] == b'.' {
                let start = i;
                while i < dots.len() && dots[i] == b'.' {
                    i += 1;
                }
                spans.push((start, i));
            } else {
                i += 1;
            }
        }
        let mut columns = Vec::with_capacity(spans.len());
        for (n, &(start, end)) in spans.iter().enumerate() {
            let last = n + 1 == spans.len();
            let from = if n == 0 { 1 } else { start }; // skip the title's `#`
            let to = if last {
                title.len()
            } else {
                end.min(title.len())
            };
            let name = title.get(from..to).unwrap_or(&[]);
            let name = decode(name).trim().to_string();
            let kind = match name.as_str() {
                "Overhead" => Kind::Overhead,
                "Children" => Kind::Children,
                "Self" => Kind::SelfPct,
                "Samples" => Kind::Samples,
                "Period" => Kind::Period,
                "Command" => Kind::Command,
                "Pid:Command" => Kind::PidCommand,
                "Shared Object" => Kind::SharedObject,
                "Symbol" => Kind::Symbol,
                _ => Kind::Other,
            };
            columns.push(Column {
                name,
                kind,
                start: if n == 0 { 0 } else { start },
                end: if last { None } else { Some(end) },
            });
        }
        let find = |k: Kind| columns.iter().position(|c| c.kind == k);
        let layout = Layout {
            pct: find(Kind::SelfPct).or_else(|| find(Kind::Overhead)),
            samples: find(Kind::Samples),
            period: find(Kind::Period),
            // (`--sort comm,pid` has both: the Command column says it whole)
            comm: find(Kind::Command).or_else(|| find(Kind::PidCommand)),
            dso: find(Kind::SharedObject),
            columns,
        };
        let hierarchy = layout.columns.iter().any(|c| c.name.contains(" / "));
        if hierarchy && !layout.columns.iter().any(|c| c.kind == Kind::Symbol) {
            // `--hierarchy` names one column `Shared Object / Symbol` and
            // puts each level on rows of its own.
            return Err(format!(
                "a --hierarchy report (columns: {}), which diffprofile does not read: re-run \
                 perf report without --hierarchy (--sort dso,sym gives the same rows flat)",
                layout.names()
            ));
        }
        if !layout.columns.iter().any(|c| c.kind == Kind::Symbol) {
            return Err(format!(
                "no Symbol column (columns: {}); re-run perf report with --sort sym (or dso,sym)",
                layout.names()
            ));
        }
        if layout.pct.is_none() && layout.samples.is_none() && layout.period.is_none() {
            return Err(format!(
                "no Overhead, Self, Samples or Period column (columns: {})",
                layout.names()
            ));
        }
        Ok(layout)
    }

    /// `Overhead, Samples, Symbol`.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
        names.join(", ")
    }

    /// The row shape for error messages: `OVERHEAD SAMPLES [k] SYMBOL`.
    pub fn signature(&self) -> String {
        let parts: Vec<String> = self
            .columns
            .iter()
            .map(|c| match c.kind {
                Kind::Symbol => "[k] SYMBOL".to_string(),
                _ => c.name.to_uppercase().replace(' ', "_"),
            })
            .collect();
        parts.join(" ")
    }

    /// Cut a data row into fields by the column spans.
    /// `member` picks the value of an event group's member in numeric
    /// columns, which hold one value per member (`members`, 1 when no group).
    pub fn row(&self, line: &[u8], member: usize, members: usize) -> Result<Row, String> {
        if let Some(unspilled) = self.without_inlined_spill(line) {
            let mut row = self.row_fields(&unspilled, member, members)?;
            row.name.push_str(INLINED);
            return Ok(row);
        }
        self.row_fields(line, member, members)
    }

    /// perf sizes the Symbol column by the names without their ` (inlined)`
    /// mark, so the mark of an inlined function's row can push the next
    /// column right: the line with the mark taken out, when it does.
    fn without_inlined_spill(&self, line: &[u8]) -> Option<Vec<u8>> {
        let sym = self.columns.iter().position(|c| c.kind == Kind::Symbol)?;
        let next = self.columns.get(sym + 1)?;
        let mark = INLINED.as_bytes();
        let at = line
            .windows(mark.len())
            .position(|w| w == mark)
            .filter(|&at| at > self.columns[sym].start)?;
        let spills = at + mark.len() > next.start.saturating_sub(1);
        spills.then(|| [&line[..at], &line[at + mark.len()..]].concat())
    }

    fn row_fields(&self, line: &[u8], member: usize, members: usize) -> Result<Row, String> {
        let mut row = Row::default();
        for (n, col) in self.columns.iter().enumerate() {
            let field = self.field(line, n)?;
            let text = decode(field);
            let text = text.trim();
            match col.kind {
                Kind::Overhead | Kind::Children | Kind::SelfPct => {
                    let v = percent(pick(text, member, members, &col.name)?)
                        .ok_or_else(|| format!("the {} field is not a percentage", col.name))?;
                    if Some(n) == self.pct {
                        row.pct = Some(v);
                    }
                }
                Kind::Samples | Kind::Period => {
                    let v: u64 = pick(text, member, members, &col.name)?
                        .parse()
                        .map_err(|_| format!("the {} field is not a count", col.name))?;
                    if col.kind == Kind::Samples {
                        row.samples = Some(v);
                    } else {
                        row.period = Some(v);
                    }
                }
                Kind::Command | Kind::SharedObject => {
                    if text.is_empty() {
                        return Err(format!("the {} field is empty", col.name));
                    }
                    let value = Some(text.to_string());
                    if col.kind == Kind::Command {
                        row.comm = value;
                    } else {
                        row.dso = value;
                    }
                }
                Kind::PidCommand if Some(n) == self.comm => {
                    let comm = text
                        .split_once(':')
                        .filter(|(pid, _)| pid.bytes().all(|b| b.is_ascii_digit()))
                        .map(|(_, comm)| comm)
                        .filter(|comm| !comm.is_empty())
                        .ok_or_else(|| format!("the {} field is not PID:COMMAND", col.name))?;
                    row.comm = Some(comm.to_string());
                }
                Kind::PidCommand => {}
                Kind::Symbol => {
                    let (mode, name) = symbol(text);
                    if name.is_empty() {
                        return Err("the Symbol field is empty".to_string());
                    }
                    row.mode = mode;
                    row.name = name.to_string();
                }
                Kind::Other => {}
            }
        }
        Ok(row)
    }

    /// The bytes of column `n` in `line`; a column that starts past the end
    /// of the line, or a neighbour that spills into it, is an error.
    fn field<'a>(&self, line: &'a [u8], n: usize) -> Result<&'a [u8], String> {
        let col = &self.columns[n];
        if col.start >= line.len() {
            return Err(format!("too few columns: no {} field", col.name));
        }
        if col.start > 0 && line[col.start - 1] != b' ' {
            return Err(format!("a field runs into the {} column", col.name));
        }
        let end = col.end.map_or(line.len(), |e| e.min(line.len()));
        Ok(&line[col.start..end])
    }

    /// Is this line (not starting with `#`) a call-graph line rather than a
    /// row? Graph lines (`|`, `---`, `--6.07%--`, indented frames, `-g flat`
    /// percentages) leave the first column blank; `-g folded` lines start at
    /// column 0 with `6.47% a;b;c` (or `360 a;b;c` with `-g folded,0,caller,count`)
    /// where rows right-align their percentage.
    pub fn is_callgraph(&self, line: &[u8]) -> bool {
        let first = &self.columns[0];
        let end = first.end.unwrap_or(line.len()).min(line.len());
        if line[..end].iter().all(|b| b.is_ascii_whitespace()) {
            return true;
        }
        // perf indents the graph by the first column's width: under a
        // count (`-F sample,sym`) its lines start with `|` or `-` where rows
        // right-align digits, under a name (`-F sym,overhead`) they leave
        // blank where rows start theirs, after the title's `# `.
        let text = line.iter().position(|b| !b.is_ascii_whitespace());
        match first.kind {
            Kind::Samples | Kind::Period => {
                return text.is_some_and(|i| i > 0 && matches!(line[i], b'|' | b'-'));
            }
            Kind::Command | Kind::SharedObject | Kind::Symbol => {
                return text.is_some_and(|i| i > 2);
            }
            _ => {}
        }
        let numeric = matches!(first.kind, Kind::Overhead | Kind::Children | Kind::SelfPct);
        if numeric && !line[0].is_ascii_whitespace() {
            if let Some(pos) = line.iter().position(|&b| b == b' ') {
                let (head, tail) = line.split_at(pos);
                let count = !head.is_empty() && head.iter().all(u8::is_ascii_digit);
                return pos < end
                    && (percent_bytes(head).is_some() || count)
                    && !tail.windows(2).any(|w| w == b"  ");
            }
        }
        false
    }
}

/// One cut data row.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Row {
    pub pct: Option<f64>,
    pub samples: Option<u64>,
    pub period: Option<u64>,
    pub comm: Option<String>,
    pub dso: Option<String>,
    pub mode: Option<Mode>,
    pub name: String,
}

/// The value of one group member in a numeric field (`5.77%   5.77%`);
/// a plain report has exactly one value.
fn pick<'a>(text: &'a str, member: usize, members: usize, column: &str) -> Result<&'a str, String> {
    let values: Vec<&str> = text.split_ascii_whitespace().collect();
    match values.get(member) {
        Some(v) if values.len() == members => Ok(v),
        _ if values.is_empty() => Err(format!("the {column} field is empty")),
        _ => Err(format!(
            "the {column} field holds {} values, not {members}",
            values.len()
        )),
    }
}

/// `17.97%` → 17.97.
fn percent(text: &str) -> Option<f64> {
    percent_bytes(text.as_bytes())
}

fn percent_bytes(text: &[u8]) -> Option<f64> {
    let digits = std::str::from_utf8(text.strip_suffix(b"%")?).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let v: f64 = digits.parse().ok()?;
    (0.0..=100.0).contains(&v).then_some(v)
}

/// `[k] do_syscall_64` → (Kernel, `do_syscall_64`); ` (inlined)` is dropped;
/// so is the address and symbol-table origin that `perf report -v` prints
/// first (`0xffffffff82261179 k [k] _raw_spin_unlock_irqrestore`,
/// `0xf82b3            D [.] read`). Text without a known marker is kept
/// whole, with no mode.
fn symbol(text: &str) -> (Option<Mode>, &str) {
    let text = strip_verbose(text);
    let (mode, name) = match (text.get(..3), text.get(3..)) {
        (Some(marker), Some(rest)) if rest.starts_with(' ') || rest.is_empty() => {
            match Mode::from_marker(marker) {
                Some(mode) => (Some(mode), rest.trim_start()),
                None => (None, text),
            }
        }
        _ => (None, text),
    };
    let name = name.strip_suffix("(inlined)").map_or(name, str::trim_end);
    (mode, name)
}

/// perf's mark of an inlined function's row, after its name.
const INLINED: &str = " (inlined)";

#[cfg(test)]
pub(super) fn strip_verbose_for_tests(text: &str) -> &str {
    strip_verbose(text)
}

/// `0x1234 k [k] name` → `[k] name`: only when a mode marker follows the
/// address and the one-character origin.
fn strip_verbose(text: &str) -> &str {
    let Some(hex) = text.strip_prefix("0x") else {
        return text;
    };
    let Some(end) = hex.find(' ') else {
        return text;
    };
    if end == 0 || !hex[..end].bytes().all(|b| b.is_ascii_hexdigit()) {
        return text;
    }
    let rest = hex[end..].trim_start();
    let mut chars = rest.chars();
    let origin = chars.next();
    let after = chars.as_str();
    match origin {
        Some(o) if !o.is_whitespace() && after.starts_with(' ') => {
            let marked = after.trim_start();
            match marked.get(..3) {
                Some(m) if Mode::from_marker(m).is_some() => marked,
                _ => text,
            }
        }
        _ => text,
    }
}

/// `# Samples: 9K of event 'cpu-clock'` (or `… of events 'anon group { a, b }'`).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SamplesHeader {
    /// The printed number times its unit (`9K` → 9000).
    pub samples: u64,
    /// The unit perf divided by (1 when exact, 1000 for `K`, …): perf
    /// truncates, so the true count lies in `samples .. samples + unit`.
    pub unit: u64,
    /// The text as printed, for messages (`9K`).
    pub printed: String,
    /// The event, or the group's members.
    pub events: Vec<String>,
}

/// Parse the text after `# Samples: `.
pub(super) fn samples_header(rest: &str) -> Option<SamplesHeader> {
    let (count, event) = rest.split_once(" of event")?;
    let count = count.trim();
    let (digits, unit) = match count.as_bytes().last()? {
        b'K' => (&count[..count.len() - 1], 1_000),
        b'M' => (&count[..count.len() - 1], 1_000_000),
        b'G' => (&count[..count.len() - 1], 1_000_000_000),
        _ => (count, 1),
    };
    let samples = digits.parse::<u64>().ok()?.checked_mul(unit)?;
    let plural = event.starts_with('s');
    let event = event.strip_prefix('s').unwrap_or(event).trim();
    let name = event.strip_prefix('\'')?.strip_suffix('\'')?;
    let list = |l: &str| -> Vec<String> {
        l.split(',')
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
            .collect()
    };
    // `events 'anon group { a, b }'` (an event group), or `events 'a, b'`
    // (`perf report --group` on events recorded side by side).
    let events = match (name.find('{'), name.rfind('}')) {
        (Some(open), Some(close)) if open < close => list(&name[open + 1..close]),
        _ if plural => list(name),
        _ => vec![name.to_string()],
    };
    Some(SamplesHeader {
        samples,
        unit,
        printed: count.to_string(),
        events,
    })
}

/// Does `wanted` (from `--event`) name `event`? Exactly, or once perf's
/// `:u`/`:k`/`:ppp`-style modifiers are dropped from either side.
pub(super) fn event_matches(event: &str, wanted: &str, exact: bool) -> bool {
    if exact {
        return event == wanted;
    }
    base_event(event) == base_event(wanted)
}

fn base_event(name: &str) -> &str {
    match name.rsplit_once(':') {
        Some((base, mods))
            if !mods.is_empty() && mods.bytes().all(|b| b"ukhIGHpPSDWe".contains(&b)) =>
        {
            base
        }
        _ => name,
    }
}
