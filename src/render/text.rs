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
        cols.grow(&total);
    }
    // Widths are maxima: measured over the rows in parallel, any order.
    let cols = c
        .rows
        .par_iter()
        .fold(
            || Columns::new(&titles),
            |mut k, r| {
                k.grow(&cells(r, nf, opts, &runs));
                k
            },
        )
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
    // Line 0 is the title; row k is line k + 1; the elided lines go
    // before the line they are placed at.
    let (inserts, other) = elided_lines(c, nf, c.rows.len() + 1);
    let mut inserts = inserts.into_iter().peekable();
    let mut line = String::new();
    // Line i (0: the title); rows are made in parallel, a window at a time.
    let line_of = |i: usize| -> String {
        let mut line = String::new();
        match (&pretty, i) {
            (Some(lines), _) => line.clone_from(&lines[i]),
            (None, 0) => cols.line(&titles, "symbol", &mut line),
            (None, _) => cols.line(
                &cells(&c.rows[i - 1], nf, opts, &runs),
                &labels.get(i - 1),
                &mut line,
            ),
        }
        if i > 0 && opts.color {
            line = paint(&line, &c.rows[i - 1]);
        }
        line
    };
    let lines = c.rows.len() + 1;
    for from in (0..lines).step_by(WINDOW) {
        let to = (from + WINDOW).min(lines);
        let made: Vec<String> = (from..to).into_par_iter().map(line_of).collect();
        for (i, made) in (from..to).zip(made) {
            while let Some((_, s)) = inserts.next_if(|(at, _)| *at == i) {
                writeln!(out, "{s}")?;
            }
            writeln!(out, "{made}")?;
        }
    }
    for (_, s) in inserts.chain(other.map(|o| (0, o))) {
        writeln!(out, "{s}")?;
    }
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

    fn grow(&mut self, cells: &[String]) {
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
        let n = self.widths.len();
        for (i, (s, &w)) in cells.iter().zip(&self.widths).enumerate() {
            let fill = w.saturating_sub(super::width(s));
            if i + 1 < n {
                line.extend(std::iter::repeat_n(' ', fill));
                line.push_str(s);
            } else {
                line.push_str(s);
                line.extend(std::iter::repeat_n(' ', fill));
            }
            line.push_str("  ");
        }
        line.push_str(symbol);
        line.truncate(line.trim_end().len());
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

/// ANSI colour for one table line (only with `--color`): regressions red,
/// improvements green; significant rows bold, untested rows dim. Applied
/// after layout, so the escape codes never disturb alignment.
fn paint(line: &str, r: &Row) -> String {
    let hue = if r.delta > 0.0 {
        "31"
    } else if r.delta < 0.0 {
        "32"
    } else {
        return line.to_string();
    };
    let weight = if r.significant() {
        "1;"
    } else if !r.tested() {
        "2;"
    } else {
        ""
    };
    format!("\x1b[{weight}{hue}m{line}\x1b[0m")
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
                cols.grow(r);
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
}
