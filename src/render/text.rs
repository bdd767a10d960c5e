//! `-o text` (default): the header (sides, runs and totals, normalisation,
//! event, legend), an aligned borderless table (streamed, see [`table`]) with the
//! symbol last, and the summary. Names are printed as they are (UTF-8),
//! control characters escaped ([`super::printable`]); ready to paste into a
//! review email: without `--wide` every line fits [`MAX_WIDTH`] columns (a name
//! too long for what the numbers leave is cut with `...`, in the middle
//! unless that hides what tells it from another row's name, see
//! [`super::fitted_labels`]; `--wide` prints it whole). More than one compared side: one column
//! group (Δ and mark) per side when the columns before the symbol fit in
//! [`GROUPED_MAX`] characters and `--wide` is off ([`grouped`]); otherwise
//! one block per side.

mod grouped;

use super::{NumFmt, RenderOptions, MAX_WIDTH};
use crate::aggregate::Normalize;
use crate::diff::{Comparison, Report, Row};
use prettytable::format::FormatBuilder;
use prettytable::{Cell, Row as PRow, Table};
use rayon::prelude::*;
use std::io::{self, Write};

pub use grouped::GROUPED_MAX;

/// What marks the cut in a shortened name (ASCII output).
pub const ELLIPSIS: &str = "...";

/// The line said instead of a total row under `-n robust`.
pub const NO_ROBUST_TOTAL: &str =
    "(no total row: under -n robust a sum over all symbols has no fixed meaning)";

pub fn render(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let nf = NumFmt::for_report(report);
    header(report, opts, out)?;
    if report.comparisons.len() > 1 && !opts.wide {
        if let Some(lines) = grouped::table(report, &nf, opts) {
            writeln!(out)?;
            for l in lines {
                writeln!(out, "{l}")?;
            }
            for c in &report.comparisons {
                let name = super::side_title(report, c.side, opts);
                writeln!(out)?;
                let (worse, better, other) = super::elided_lines(c, &nf);
                for l in [worse, better, other].into_iter().flatten() {
                    writeln!(out, "{name}: {l}")?;
                }
                write_wrapped(
                    out,
                    &format!("{name}: {}", super::summary_sentence(report, c)),
                )?;
                write_wrapped(out, &format!("{name}: noise: {}", super::noise_sentence(c)))?;
                renames(c, &nf, opts, out)?;
            }
            auto_top_note(report, opts, out)?;
            for w in &report.warnings {
                write_wrapped(out, &format!("warning: {}", super::printable(w)))?;
            }
            return Ok(());
        }
    }
    for c in &report.comparisons {
        writeln!(out)?;
        if report.comparisons.len() > 1 {
            writeln!(
                out,
                "== {} vs {} ==",
                super::side_title(report, c.side, opts),
                super::side_title(report, 0, opts)
            )?;
        }
        table(report, c, &nf, opts, out)?;
        writeln!(out)?;
        write_wrapped(out, &super::summary_sentence(report, c))?;
        write_wrapped(out, &format!("noise: {}", super::noise_sentence(c)))?;
        renames(c, &nf, opts, out)?;
    }
    auto_top_note(report, opts, out)?;
    for w in &report.warnings {
        write_wrapped(out, &format!("warning: {}", super::printable(w)))?;
    }
    Ok(())
}

/// When a terminal got at most [`RenderOptions::auto_top`] rows of each
/// sign, say so (and how to see the rest).
fn auto_top_note(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let Some(n) = opts.auto_top else {
        return Ok(());
    };
    let cut = report
        .comparisons
        .iter()
        .any(|c| c.elided.worse + c.elided.better > 0);
    if cut {
        write_wrapped(
            out,
            &format!(
                "(on a terminal at most {n} rows of each sign are shown: --top N for more, \
                 or send the output to a pipe or file for all)"
            ),
        )?;
    }
    Ok(())
}

/// The "possible renames" lines, each within [`MAX_WIDTH`] (`--wide`: whole names).
fn renames(
    c: &Comparison,
    nf: &NumFmt,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    if c.renames.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "possible renames (gone and new, similar names and sizes; --alias merges):"
    )?;
    for r in &c.renames {
        let (d1, d2) = (nf.delta(r.old_delta), nf.delta(r.new_delta));
        let (mut a, mut b) = (
            super::printable(&r.old_symbol),
            super::printable(&r.new_symbol),
        );
        let avail = MAX_WIDTH.saturating_sub(format!("   ->   ({d1} / {d2})").len());
        if !opts.wide && a.len() + b.len() > avail {
            let half = avail / 2;
            let (ma, mb) = if a.len() <= half {
                (a.len(), avail - a.len())
            } else if b.len() <= half {
                (avail - b.len(), b.len())
            } else {
                (half, avail - half)
            };
            a = super::truncate_middle(&a, ma, ELLIPSIS);
            b = super::truncate_middle(&b, mb, ELLIPSIS);
        }
        writeln!(out, "  {a} -> {b}  ({d1} / {d2})")?;
    }
    Ok(())
}

/// Prose lines fold at 80 columns (continuations indented two spaces), so a
/// pasted report stays readable in an email.
pub fn write_wrapped(out: &mut dyn Write, text: &str) -> io::Result<()> {
    for line in wrap(text, 80) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// A warning on stderr, `diffprofile: warning: …`: beside a report meant
/// to be read (`fold`: -o classic, whose table carries no warnings) folded
/// at 80 columns as the text report's are; beside JSON, CSV, HTML or a
/// flame graph one line each, for logs and grep.
pub fn write_stderr_warning(err: &mut dyn Write, warning: &str, fold: bool) -> io::Result<()> {
    let line = format!("diffprofile: warning: {}", super::printable(warning));
    if fold {
        write_wrapped(err, &line)
    } else {
        writeln!(err, "{line}")
    }
}

pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        let extra = if cur.is_empty() { 0 } else { 1 };
        if !cur.is_empty() && cur.len() + extra + word.len() > width {
            lines.push(std::mem::take(&mut cur));
            cur.push_str("  ");
        } else if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.trim().is_empty() {
        lines.push(cur);
    }
    lines
}

fn header(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    for line in super::side_lines(report, opts, "", MAX_WIDTH) {
        writeln!(out, "{}", super::printable(&line))?;
    }
    if let Some(e) = &report.event {
        write_wrapped(out, &format!("event: {}", super::printable(e)))?;
    }
    write_wrapped(
        out,
        &format!("normalize: {}", super::unit_sentence(report.normalize)),
    )?;
    for n in &report.notes {
        write_wrapped(out, &super::printable(n))?;
    }
    writeln!(
        out,
        "+ is worse in NEW, - is better; * significant, ~ within noise, blank: untested"
    )
}

/// Tables of at most this many rows (more than a review email holds) are
/// laid out by prettytable-rs; larger ones are streamed ([`Columns`]), in
/// the same layout, since prettytable holds every cell of every row and
/// the rendered table (README, performance: 327 MB against 179 MB at
/// 100,000 symbols per side, 0.09 s against 0.04 s at 10,000).
pub const PRETTY_ROWS: usize = 1_000;

/// Table lines made at a time (in parallel) before they are written.
const WINDOW: usize = 1 << 14;

/// One comparison's table: a title line, one line per row, the elided-rows
/// lines and the total, columns aligned (numbers right, mark and symbol
/// left, one space of padding and one of separator, no borders, trailing
/// blanks trimmed) by prettytable-rs up to [`PRETTY_ROWS`] rows, else
/// streamed: the widths are measured in a first pass over the rows and
/// every line is written as it is made, so no table of cells is held.
fn table(
    report: &Report,
    c: &Comparison,
    nf: &NumFmt,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (titles, total) = heads(report, c, nf, opts);
    let show_total = report.normalize != Normalize::Robust;
    let runs = runs_cell(report, c);
    let mut cols = Columns::new(&titles);
    if show_total {
        cols.grow(total.iter().map(String::as_str));
    }
    // Widths are maxima: measured over the rows in parallel, any order,
    // each row's cells made in one buffer per job.
    let cols = c
        .rows
        .par_iter()
        .fold(
            || (Columns::new(&titles), String::new(), Vec::new()),
            |(mut k, mut buf, mut ends), r| {
                buf.clear();
                ends.clear();
                push_cells(r, nf, opts, &runs, &mut buf, &mut ends);
                k.grow(split(&buf, &ends));
                (k, buf, ends)
            },
        )
        .map(|(k, _, _)| k)
        .reduce(|| Columns::new(&titles), Columns::merge)
        .merge(cols);
    // The symbol starts after every column's width plus padding and separator.
    let max_name = MAX_WIDTH.saturating_sub(cols.before());
    let max_name = if opts.wide { usize::MAX } else { max_name };
    let fit: Vec<(&Row, usize)> = c.rows.iter().map(|r| (r, max_name)).collect();
    let labels = super::Labels::new(&fit, ELLIPSIS, &super::printable);
    let pretty = (c.rows.len() <= PRETTY_ROWS).then(|| {
        let rows: Vec<Vec<String>> = c.rows.iter().map(|r| cells(r, nf, opts, &runs)).collect();
        let labels: Vec<String> = (0..c.rows.len()).map(|i| labels.get(i)).collect();
        pretty_lines(&titles, &rows, &labels, show_total.then_some(&total[..]))
    });
    let maker = Maker {
        c,
        nf,
        opts,
        runs: &runs,
        titles: &titles,
        cols: &cols,
        labels: &labels,
        fit: &fit,
        pretty: pretty.as_deref(),
    };
    maker.write(out)?;
    let mut line = String::new();
    if show_total {
        match &pretty {
            Some(lines) => line.clone_from(&lines[c.rows.len() + 1]),
            None => cols.line(&total, "total", &mut line),
        }
        writeln!(out, "{line}")
    } else {
        writeln!(out, "{NO_ROBUST_TOTAL}")
    }
}

/// Table lines made at a time by one job, into one String.
const CHUNK: usize = 1 << 10;

/// How a table's lines (the title and the rows) are made, a chunk of
/// lines into one String, and written with the elided-rows lines.
struct Maker<'a> {
    c: &'a Comparison,
    nf: &'a NumFmt,
    opts: &'a RenderOptions,
    runs: &'a str,
    titles: &'a [String],
    cols: &'a Columns,
    labels: &'a super::Labels<'a>,
    fit: &'a [(&'a Row, usize)],
    /// The lines laid out by prettytable-rs (small tables).
    pretty: Option<&'a [String]>,
}

impl Maker<'_> {
    /// Lines `from..to` (line 0: the title; row k is line k + 1), each
    /// ending in a newline.
    fn lines(&self, from: usize, to: usize) -> String {
        let mut s = String::with_capacity((to - from) * (self.cols.before() + 32));
        let (mut buf, mut ends) = (String::new(), Vec::new());
        for i in from..to {
            let start = s.len();
            match (self.pretty, i) {
                (Some(lines), _) => s.push_str(&lines[i]),
                (None, 0) => {
                    self.cols
                        .pad(self.titles.iter().map(String::as_str), &mut s);
                    s.push_str("symbol");
                    trim_from(&mut s, start);
                }
                (None, _) => {
                    buf.clear();
                    ends.clear();
                    let r = &self.c.rows[i - 1];
                    push_cells(r, self.nf, self.opts, self.runs, &mut buf, &mut ends);
                    self.cols.pad(split(&buf, &ends), &mut s);
                    push_label(self.labels, self.fit, i - 1, &mut s);
                    trim_from(&mut s, start);
                }
            }
            if i > 0 && self.opts.color {
                paint(&mut s, start, &self.c.rows[i - 1]);
            }
            s.push('\n');
        }
        s
    }

    /// Every line, made in parallel a window at a time (never all held),
    /// the "... N more" lines before the line they are placed at, then the
    /// line about other hidden rows.
    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let lines = self.c.rows.len() + 1;
        let (inserts, other) = elided_lines(self.c, self.nf, lines);
        let mut inserts = inserts.into_iter().peekable();
        for from in (0..lines).step_by(WINDOW) {
            let to = (from + WINDOW).min(lines);
            let starts: Vec<usize> = (from..to).step_by(CHUNK).collect();
            let made: Vec<String> = starts
                .par_iter()
                .map(|&a| self.lines(a, (a + CHUNK).min(to)))
                .collect();
            for (&a, made) in starts.iter().zip(made) {
                let b = (a + CHUNK).min(to);
                // `at`: the bytes of `made` written, up to line `line`.
                let (mut at, mut line) = (0, a);
                while let Some((i, s)) = inserts.next_if(|(i, _)| (line..b).contains(i)) {
                    let end = match i - line {
                        0 => at,
                        k => memchr::memchr_iter(b'\n', &made.as_bytes()[at..])
                            .nth(k - 1)
                            .map_or(made.len(), |p| at + p + 1),
                    };
                    out.write_all(&made.as_bytes()[at..end])?;
                    writeln!(out, "{s}")?;
                    (at, line) = (end, i);
                }
                out.write_all(&made.as_bytes()[at..])?;
            }
        }
        for (_, s) in inserts.chain(other.map(|o| (0, o))) {
            writeln!(out, "{s}")?;
        }
        Ok(())
    }
}

/// Row `i`'s label appended to `out`: as it is when the name (and the dso
/// said after it) is printable ASCII, which [`super::printable`] leaves
/// unchanged, and fits its width (no cut, so no other name matters: what
/// [`super::Labels::get`] returns then); else that.
fn push_label(labels: &super::Labels, fit: &[(&Row, usize)], i: usize, out: &mut String) {
    let (r, max) = fit[i];
    let plain = |s: &str| s.bytes().all(|b| (b' '..=b'~').contains(&b));
    let name: &str = &r.symbol;
    if plain(name) {
        match super::shown_dso(r) {
            None if name.len() <= max => return out.push_str(name),
            Some(d) if plain(d) && name.len() + d.len() + 3 <= max => {
                out.push_str(name);
                out.push_str(" [");
                out.push_str(d);
                out.push(']');
                return;
            }
            _ => {}
        }
    }
    out.push_str(&labels.get(i));
}

/// The cells made by [`push_cells`]: `buf` cut at `ends`.
fn split<'s>(buf: &'s str, ends: &'s [usize]) -> impl Iterator<Item = &'s str> + 's {
    ends.iter().scan(0, move |from, &to| {
        let s = &buf[*from..to];
        *from = to;
        Some(s)
    })
}

/// Trailing blanks of the line that starts at `start` in `s` trimmed.
fn trim_from(s: &mut String, start: usize) {
    let keep = s[start..].trim_end().len();
    s.truncate(start + keep);
}

/// The lines of a table laid out by prettytable-rs: the title, one per row
/// (its cells and its label), then the total when there is one; numbers
/// right-aligned, the mark and the symbol left-aligned, trailing blanks
/// trimmed.
fn pretty_lines(
    titles: &[String],
    rows: &[Vec<String>],
    labels: &[String],
    total: Option<&[String]>,
) -> Vec<String> {
    let styled = |v: &[String], symbol: &str| {
        let n = v.len() + 1;
        let cell = |(i, s): (usize, &str)| match i + 2 >= n {
            true => Cell::new(s),
            false => Cell::new(s).style_spec("r"),
        };
        PRow::new(
            v.iter()
                .map(String::as_str)
                .chain([symbol])
                .enumerate()
                .map(cell)
                .collect(),
        )
    };
    let mut t = Table::new();
    t.set_format(
        FormatBuilder::new()
            .column_separator(' ')
            .padding(0, 1)
            .build(),
    );
    t.set_titles(styled(titles, "symbol"));
    for (v, label) in rows.iter().zip(labels) {
        t.add_row(styled(v, label));
    }
    if let Some(total) = total {
        t.add_row(styled(total, "total"));
    }
    t.to_string()
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// The widths of a table's columns before the symbol, and how a line of
/// cells is laid out in them (the layout of [`pretty_lines`], streamed).
struct Columns {
    /// Display width of each column (the widest cell).
    widths: Vec<usize>,
    /// Length in bytes of each column's longest cell (what fits the names).
    lens: Vec<usize>,
}

impl Columns {
    fn new(titles: &[String]) -> Columns {
        Columns {
            widths: titles.iter().map(|t| super::width(t)).collect(),
            lens: titles.iter().map(String::len).collect(),
        }
    }

    /// The widths of both.
    fn merge(mut self, other: Columns) -> Columns {
        for (a, b) in self.widths.iter_mut().zip(other.widths) {
            *a = (*a).max(b);
        }
        for (a, b) in self.lens.iter_mut().zip(other.lens) {
            *a = (*a).max(b);
        }
        self
    }

    fn grow<'s>(&mut self, cells: impl IntoIterator<Item = &'s str>) {
        for ((w, l), s) in self.widths.iter_mut().zip(&mut self.lens).zip(cells) {
            *w = (*w).max(super::width(s));
            *l = (*l).max(s.len());
        }
    }

    /// Where the symbol starts: every column's length, padding and separator.
    fn before(&self) -> usize {
        self.lens.iter().map(|l| l + 2).sum()
    }

    /// Lay out `cells` and the symbol into `line`: numbers right-aligned,
    /// the mark left-aligned, the symbol last, unpadded.
    fn line(&self, cells: &[String], symbol: &str, line: &mut String) {
        line.clear();
        self.pad(cells.iter().map(String::as_str), line);
        line.push_str(symbol);
        trim_from(line, 0);
    }

    /// [`Columns::line`] before the symbol, appended to `out` (untrimmed).
    fn pad<'s>(&self, cells: impl IntoIterator<Item = &'s str>, out: &mut String) {
        let n = self.widths.len();
        for (i, (s, &w)) in cells.into_iter().zip(&self.widths).enumerate() {
            let fill = w.saturating_sub(super::width(s));
            if i + 1 < n {
                spaces(out, fill);
                out.push_str(s);
            } else {
                out.push_str(s);
                spaces(out, fill);
            }
            out.push_str("  ");
        }
    }
}

/// `n` spaces appended to `out`.
fn spaces(out: &mut String, n: usize) {
    const SPACES: &str = "                                ";
    match SPACES.get(..n) {
        Some(s) => out.push_str(s),
        None => out.extend(std::iter::repeat_n(' ', n)),
    }
}

/// `n=OLD+NEW`: the runs compared (`--wide`).
fn runs_cell(report: &Report, c: &Comparison) -> String {
    format!(
        "n={}+{}",
        report.sides[0].runs.len(),
        report.sides[c.side].runs.len()
    )
}

/// The cells before the symbol of the title line and of the total line.
fn heads(
    report: &Report,
    c: &Comparison,
    nf: &NumFmt,
    opts: &RenderOptions,
) -> (Vec<String>, Vec<String>) {
    let vunit = if report.normalize == Normalize::Share {
        "%"
    } else {
        ""
    };
    let mut titles = vec![
        "delta".to_string(),
        "delta%".to_string(),
        format!("old{vunit}"),
        format!("new{vunit}"),
    ];
    if opts.wide {
        titles.extend(
            [
                "old cv", "new cv", "delta ci", "ratio", "ratio ci", "p", "q", "phi", "df", "n",
            ]
            .map(str::to_string),
        );
    }
    titles.push(" ".to_string());
    let mut total = vec![
        nf.delta(c.total.delta),
        if c.total.old > 0.0 {
            super::signed_pct(c.total.delta / c.total.old * 100.0)
        } else {
            String::new()
        },
        nf.value(c.total.old),
        nf.value(c.total.new),
    ];
    if opts.wide {
        total.extend((0..9).map(|_| String::new()));
        total.push(runs_cell(report, c));
    }
    total.push(" ".to_string());
    (titles, total)
}

/// [`cells`] appended to `buf` one after another, each one's end pushed to
/// `ends` (no String each).
fn push_cells(
    r: &Row,
    nf: &NumFmt,
    opts: &RenderOptions,
    runs: &str,
    buf: &mut String,
    ends: &mut Vec<usize>,
) {
    super::push_value_cells(r, nf, opts.wide, runs, buf, ends);
    buf.push_str(r.mark());
    ends.push(buf.len());
}

/// A row's cells before the symbol, as text.
fn cells(r: &Row, nf: &NumFmt, opts: &RenderOptions, runs: &str) -> Vec<String> {
    let mut v = super::value_cells(r, nf, opts.wide, runs);
    v.push(r.mark().to_string());
    v
}

/// The "... N more" lines and the line number (of `lines` table lines:
/// the title and the rows) each goes before: after the last regression,
/// before the first improvement (rank order), or at the end when sorted
/// by name; then the line about other hidden rows, last.
fn elided_lines(
    c: &Comparison,
    nf: &NumFmt,
    lines: usize,
) -> (Vec<(usize, String)>, Option<String>) {
    let first_better = c
        .rows
        .iter()
        .position(|r| r.delta < 0.0)
        .unwrap_or(c.rows.len());
    let last_worse_end = c
        .rows
        .iter()
        .rposition(|r| r.delta > 0.0)
        .map_or(0, |i| i + 1);
    let (worse, better, other) = super::elided_lines(c, nf);
    let sorted_by_sign = c
        .rows
        .windows(2)
        .all(|w| !(w[0].delta < 0.0 && w[1].delta > 0.0));
    let mut inserts: Vec<(usize, String)> = Vec::new();
    if sorted_by_sign {
        if let Some(w) = worse {
            inserts.push((last_worse_end.min(first_better) + 1, w));
        }
        if let Some(b) = better {
            inserts.push((first_better + 1, b));
        }
    } else {
        inserts.extend(worse.into_iter().chain(better).map(|s| (lines, s)));
    }
    for (at, _) in &mut inserts {
        *at = (*at).min(lines);
    }
    (inserts, other)
}

/// ANSI colour for one table line (only with `--color`), the one that
/// starts at `start` in `s`: regressions red, improvements green;
/// significant rows bold, untested rows dim. Applied after layout, so the
/// escape codes never disturb alignment.
fn paint(s: &mut String, start: usize, r: &Row) {
    let hue = if r.delta > 0.0 {
        "31"
    } else if r.delta < 0.0 {
        "32"
    } else {
        return;
    };
    let weight = if r.significant() {
        "1;"
    } else if !r.tested() {
        "2;"
    } else {
        ""
    };
    for part in ["m", hue, weight, "\x1b["] {
        s.insert_str(start, part);
    }
    s.push_str("\x1b[0m");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The streamed layout is prettytable's, line for line: wide and narrow
    /// cells, a wide title, names of every width (CJK, combining marks),
    /// an empty mark, a total row.
    #[test]
    fn streamed_lines_are_prettytables() {
        let titles = strings(&["delta", "delta%", "old%", "new%", ""]);
        let rows = vec![
            strings(&["+3.528", "new", "0.000", "3.528", "*"]),
            strings(&["+12.125", "+179.0%", "104.003", "7.164", "~"]),
            strings(&["-0.1", "-0.5%", "0.021", "0.020", ""]),
            strings(&["+0.000001", "0.0%", "1.000", "1.000", "*"]),
        ];
        let labels = strings(&[
            "fput",
            "函数_名前",
            "e\u{301}clair",
            "a_very_long_symbol_name.isra.0",
        ]);
        let total = strings(&["0.000", "0.0%", "100.000", "100.000", ""]);
        for total in [Some(&total[..]), None] {
            let pretty = pretty_lines(&titles, &rows, &labels, total);
            let mut cols = Columns::new(&titles);
            for r in rows.iter().map(Vec::as_slice).chain(total) {
                cols.grow(r.iter().map(String::as_str));
            }
            let mut streamed = Vec::new();
            let mut line = String::new();
            cols.line(&titles, "symbol", &mut line);
            streamed.push(line.clone());
            for (r, l) in rows.iter().zip(&labels) {
                cols.line(r, l, &mut line);
                streamed.push(line.clone());
            }
            if let Some(t) = total {
                cols.line(t, "total", &mut line);
                streamed.push(line.clone());
            }
            assert_eq!(pretty, streamed);
        }
    }

    /// Rows of every kind: signs, zeros, tiny and huge values, new, gone,
    /// same, tested or not, names in ASCII, CJK, combining marks, control
    /// characters, and dsos of every shape.
    fn varied_rows() -> Vec<Row> {
        use crate::diff::{tests::row, Status};
        let names = [
            "fput",
            "函数_名前",
            "e\u{301}clair",
            "a_very_long_symbol_name_that_goes_on_and_on_and_on.isra.0.cold",
            "__GI___pthread_disable_asynccancel",
            "__GI___pthread_enable_asynccancel",
            "bad\u{1b}[31mname",
            "tab\there",
            "",
            "ends with space ",
            "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./",
        ];
        let dsos = [
            None,
            Some(""),
            Some("[kernel.kallsyms]"),
            Some("/usr/lib/x86_64-linux-gnu/libc.so.6"),
            Some("[vdso]"),
            Some("/lib/modules/módulo.ko"),
            Some("/tmp/\u{7}bell.so"),
        ];
        let deltas = [
            0.0,
            -0.0,
            1e-9,
            -1e-9,
            0.0004,
            -0.0005,
            0.0015,
            0.05,
            -0.05,
            3.528,
            -12.125,
            1e6,
            -1e-4,
            2.5,
            f64::INFINITY,
            f64::NAN,
        ];
        let olds = [1.0, 0.0, 1e-7, 123.4565, 0.125];
        let statuses = [Status::Changed, Status::New, Status::Gone, Status::Same];
        let mut v = Vec::new();
        for (k, &d) in deltas.iter().enumerate() {
            for (j, &st) in statuses.iter().enumerate() {
                for (m, &old) in olds.iter().enumerate() {
                    let n = k * 20 + j * 5 + m;
                    let ci = (n % 3 > 0).then_some((d - 1.0, d + 1.0));
                    let mut r = row(names[n % names.len()], d, st, ci, n % 2 == 0);
                    r.old = old;
                    r.new = old + d;
                    r.dso = dsos[n % dsos.len()].map(Into::into);
                    v.push(r);
                }
            }
        }
        v
    }

    /// The cells made into one buffer are the cells made one String each,
    /// at every number of decimals, narrow and wide.
    #[test]
    fn cells_in_one_buffer_are_the_cells() {
        let rows = varied_rows();
        for decimals in 0..10 {
            let nf = NumFmt { decimals };
            for wide in [false, true] {
                let opts = RenderOptions {
                    wide,
                    ..Default::default()
                };
                let (mut buf, mut ends) = (String::new(), Vec::new());
                for r in &rows {
                    buf.clear();
                    ends.clear();
                    push_cells(r, &nf, &opts, "n=1+1", &mut buf, &mut ends);
                    let got: Vec<&str> = split(&buf, &ends).collect();
                    assert_eq!(got, cells(r, &nf, &opts, "n=1+1"), "{r:?}");
                    let mut cols = Columns::new(&strings(&["a"; 15]));
                    let mut each = Columns::new(&strings(&["a"; 15]));
                    cols.grow(split(&buf, &ends));
                    each.grow(cells(r, &nf, &opts, "n=1+1").iter().map(String::as_str));
                    assert_eq!((cols.widths, cols.lens), (each.widths, each.lens));
                }
            }
        }
    }

    /// A label appended without a String is the label of
    /// [`super::super::Labels::get`], at every width.
    #[test]
    fn labels_appended_are_the_labels() {
        let rows = varied_rows();
        for max in [0, 5, 12, 15, 16, 20, 25, 40, 60, usize::MAX] {
            let fit: Vec<(&Row, usize)> = rows.iter().map(|r| (r, max)).collect();
            let labels = super::super::Labels::new(&fit, ELLIPSIS, &super::super::printable);
            for i in 0..rows.len() {
                let mut got = String::from("x");
                push_label(&labels, &fit, i, &mut got);
                assert_eq!(got[1..], labels.get(i), "{i} at {max}");
            }
        }
    }
}
