//! `-o text` (default): the header (sides, runs and totals, normalisation,
//! event, legend), an aligned borderless table (prettytable-rs) with the
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
use prettytable::format::{FormatBuilder, TableFormat};
use prettytable::{Cell, Row as PRow, Table};
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

fn table_format() -> TableFormat {
    FormatBuilder::new()
        .column_separator(' ')
        .padding(0, 1)
        .build()
}

fn cell_r(s: impl AsRef<str>) -> Cell {
    Cell::new(s.as_ref()).style_spec("r")
}

fn table(
    report: &Report,
    c: &Comparison,
    nf: &NumFmt,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (mut titles, mut cells, mut total) = cells(report, c, nf, opts);
    let show_total = report.normalize != Normalize::Robust;
    // The symbol starts after every column's width plus padding and separator.
    let ncols = titles.len();
    let before: usize = (0..ncols)
        .map(|i| {
            let rows = cells.iter().chain(show_total.then_some(&total));
            let w = rows.map(|r| r[i].len()).max().unwrap_or(0);
            w.max(titles[i].len()) + 2
        })
        .sum();
    let max_name = MAX_WIDTH.saturating_sub(before);
    let max_name = if opts.wide { usize::MAX } else { max_name };
    let fit: Vec<(&Row, usize)> = c.rows.iter().map(|r| (r, max_name)).collect();
    for (v, label) in cells
        .iter_mut()
        .zip(super::fitted_labels(&fit, ELLIPSIS, &super::printable))
    {
        v.push(label);
    }
    total.push("total".to_string());
    titles.push("symbol".to_string());

    let mut t = Table::new();
    t.set_format(table_format());
    let styled = |v: &[String]| {
        let n = v.len();
        PRow::new(
            v.iter()
                .enumerate()
                .map(|(i, s)| if i + 2 >= n { Cell::new(s) } else { cell_r(s) })
                .collect(),
        )
    };
    t.set_titles(styled(&titles));
    for v in &cells {
        t.add_row(styled(v));
    }
    if show_total {
        t.add_row(styled(&total));
    }
    let rendered = t.to_string();
    let mut lines: Vec<String> = rendered.lines().map(|l| l.trim_end().to_string()).collect();
    // lines[0] is the title; row k is lines[k + 1]; the total is last.
    if opts.color {
        for (k, r) in c.rows.iter().enumerate() {
            if let Some(line) = lines.get_mut(k + 1) {
                *line = paint(line, r);
            }
        }
    }
    let total_line = if show_total {
        lines.pop().unwrap_or_default()
    } else {
        NO_ROBUST_TOTAL.to_string()
    };
    place_elided(&mut lines, c, nf);
    lines.push(total_line);
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// Every cell before the symbol, as text: titles, rows, total.
fn cells(
    report: &Report,
    c: &Comparison,
    nf: &NumFmt,
    opts: &RenderOptions,
) -> (Vec<String>, Vec<Vec<String>>, Vec<String>) {
    let vunit = if report.normalize == Normalize::Share {
        "%"
    } else {
        ""
    };
    let runs = format!(
        "{}+{}",
        report.sides[0].runs.len(),
        report.sides[c.side].runs.len()
    );
    // Every cell before the symbol, as text: title, rows, total.
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
    let cells: Vec<Vec<String>> = c
        .rows
        .iter()
        .map(|r| {
            let mut v = vec![
                nf.delta(r.delta),
                super::delta_pct(r),
                nf.value(r.old),
                nf.value(r.new),
            ];
            if opts.wide {
                v.extend([
                    super::cv(r.old_cv),
                    super::cv(r.new_cv),
                    super::interval(r.delta_ci, |v| nf.delta(v)),
                    super::ratio(r.ratio),
                    super::interval(r.ratio_ci, super::ratio),
                    super::pvalue(r.p),
                    super::pvalue(r.q),
                    super::dispersion(r.dispersion),
                    r.df.map_or("-".to_string(), super::fmt_df),
                    format!("n={runs}"),
                ]);
            }
            v.push(r.mark().to_string());
            v
        })
        .collect();
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
        total.push(format!("n={runs}"));
    }
    total.push(" ".to_string());
    (titles, cells, total)
}

/// The "... N more" lines, where they go: after the last regression, before
/// the first improvement (rank order), or at the end when sorted by name.
fn place_elided(lines: &mut Vec<String>, c: &Comparison, nf: &NumFmt) {
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
        let end = lines.len();
        inserts.extend(worse.into_iter().chain(better).map(|s| (end, s)));
    }
    for (at, s) in inserts.into_iter().rev() {
        lines.insert(at.min(lines.len()), s);
    }
    if let Some(o) = other {
        lines.push(o);
    }
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
    let weight = if r.significant {
        "1;"
    } else if !r.tested() {
        "2;"
    } else {
        ""
    };
    format!("\x1b[{weight}{hue}m{line}\x1b[0m")
}
