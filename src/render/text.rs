//! `-o text` (default): the header (sides, runs and totals, normalisation,
//! event, legend), an aligned borderless table (prettytable-rs) with the
//! symbol last so a long name only runs past column 80 at the end of its own
//! line, and the summary. Names are printed as they are (UTF-8), control
//! characters escaped ([`super::printable`]); ready to paste into a review
//! email.
//! More than one compared side: one column group (Δ and mark) per side
//! when the columns before the symbol fit in [`GROUPED_MAX`] characters
//! (so a 40-character kernel name still ends by column 80) and `--wide` is
//! off; otherwise one block per side.

use super::{NumFmt, RenderOptions};
use crate::diff::{Comparison, Report, Row};
use prettytable::format::{FormatBuilder, TableFormat};
use prettytable::{Cell, Row as PRow, Table};
use std::io::{self, Write};

pub fn render(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let nf = NumFmt::for_report(report);
    header(report, out)?;
    if report.comparisons.len() > 1 && !opts.wide {
        if let Some(lines) = grouped(report, &nf) {
            writeln!(out)?;
            for l in lines {
                writeln!(out, "{l}")?;
            }
            for c in &report.comparisons {
                let name = super::printable(&report.sides[c.side].name.to_uppercase());
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
                renames(c, &nf, out)?;
            }
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
                super::printable(&report.sides[c.side].name.to_uppercase()),
                super::printable(&report.sides[0].name.to_uppercase())
            )?;
        }
        table(report, c, &nf, opts, out)?;
        writeln!(out)?;
        write_wrapped(out, &super::summary_sentence(report, c))?;
        write_wrapped(out, &format!("noise: {}", super::noise_sentence(c)))?;
        renames(c, &nf, out)?;
    }
    for w in &report.warnings {
        write_wrapped(out, &format!("warning: {}", super::printable(w)))?;
    }
    Ok(())
}

/// Widest the columns before the symbol may be in the grouped layout.
pub const GROUPED_MAX: usize = 40;

/// The multi-way table: `old`, then per compared side its Δ and mark, the
/// symbol last; rows are the union of every side's shown rows (the first
/// side's order, then the others' new rows in theirs); `.` where a side
/// does not show the row. `None` when it would be wider than [`GROUPED_MAX`].
fn grouped(report: &Report, nf: &NumFmt) -> Option<Vec<String>> {
    let (order, by_side) = super::union_rows(report);
    let vunit = if report.normalize == crate::aggregate::Normalize::Share {
        "%"
    } else {
        ""
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut title = vec![format!(
        "{}{vunit}",
        super::printable(&report.sides[0].name)
    )];
    for c in &report.comparisons {
        title.push(format!(
            "d {}",
            super::printable(&report.sides[c.side].name)
        ));
        title.push(String::new());
    }
    title.push("symbol".to_string());
    rows.push(title);
    for k in &order {
        let any = by_side.iter().find_map(|m| m.get(k))?;
        let mut cells = vec![nf.value(any.old)];
        for m in &by_side {
            match m.get(k) {
                Some(r) => cells.extend([nf.delta(r.delta), r.mark().to_string()]),
                None => cells.extend([".".to_string(), " ".to_string()]),
            }
        }
        cells.push(super::printable(&super::symbol_label(any)));
        rows.push(cells);
    }
    let first = report.comparisons.first()?;
    let mut total = vec![nf.value(first.total.old)];
    for c in &report.comparisons {
        total.extend([nf.delta(c.total.delta), " ".to_string()]);
    }
    total.push("total".to_string());
    rows.push(total);
    let ncols = rows[0].len();
    let widths: Vec<usize> = (0..ncols)
        .map(|i| rows.iter().map(|r| super::width(&r[i])).max().unwrap_or(0))
        .collect();
    let before: usize = widths[..ncols - 1].iter().map(|w| w + 1).sum();
    if before > GROUPED_MAX {
        return None;
    }
    let mut lines = Vec::with_capacity(rows.len() + 1);
    for r in &rows {
        let mut l = String::new();
        for (i, cell) in r.iter().enumerate() {
            let marks = i > 0 && i + 1 < ncols && i % 2 == 0;
            if i + 1 == ncols {
                l.push_str(cell);
            } else {
                let pad = " ".repeat(widths[i].saturating_sub(super::width(cell)));
                if marks {
                    l.push_str(&format!("{cell}{pad} "));
                } else {
                    l.push_str(&format!("{pad}{cell} "));
                }
            }
        }
        lines.push(l.trim_end().to_string());
    }
    lines.insert(
        0,
        format!(
            "(d NAME: delta of NAME against {}; . not shown for that side)",
            super::printable(&report.sides[0].name)
        ),
    );
    Some(lines)
}

fn renames(c: &Comparison, nf: &NumFmt, out: &mut dyn Write) -> io::Result<()> {
    {
        if !c.renames.is_empty() {
            writeln!(
                out,
                "possible renames (similar change; not merged, use --alias to merge):"
            )?;
            for r in c.renames.iter().take(10) {
                writeln!(
                    out,
                    "  {} -> {}  ({} / {})",
                    super::printable(&r.old_symbol),
                    super::printable(&r.new_symbol),
                    nf.delta(r.old_delta),
                    nf.delta(r.new_delta)
                )?;
            }
            if c.renames.len() > 10 {
                writeln!(
                    out,
                    "  ... {} more pairs (see -o json)",
                    c.renames.len() - 10
                )?;
            }
        }
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
        if !cur.is_empty() && super::width(&cur) + extra + super::width(word) > width {
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

fn header(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    for line in super::side_lines(report) {
        write_wrapped(out, &super::printable(&line))?;
    }
    if let Some(e) = &report.event {
        writeln!(out, "event: {}", super::printable(e))?;
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
    let unit = "";
    let vunit = if report.normalize == crate::aggregate::Normalize::Share {
        "%"
    } else {
        ""
    };
    let mut t = Table::new();
    t.set_format(table_format());
    let mut titles = vec![
        cell_r(format!("delta{unit}")),
        cell_r("delta%"),
        cell_r(format!("old{vunit}")),
        cell_r(format!("new{vunit}")),
    ];
    if opts.wide {
        titles.extend([
            cell_r("old cv"),
            cell_r("new cv"),
            cell_r("delta ci"),
            cell_r("ratio"),
            cell_r("ratio ci"),
            cell_r("p"),
            cell_r("q"),
            cell_r("n"),
        ]);
    }
    titles.extend([Cell::new(" "), Cell::new("symbol")]);
    t.set_titles(PRow::new(titles));
    let runs = format!(
        "{}+{}",
        report.sides[0].runs.len(),
        report.sides[c.side].runs.len()
    );
    let add = |t: &mut Table, r: &Row| {
        let mut cells = vec![
            cell_r(nf.delta(r.delta)),
            cell_r(super::delta_pct(r)),
            cell_r(nf.value(r.old)),
            cell_r(nf.value(r.new)),
        ];
        if opts.wide {
            cells.extend([
                cell_r(super::cv(r.old_cv)),
                cell_r(super::cv(r.new_cv)),
                cell_r(super::interval(r.delta_ci, |v| nf.delta(v))),
                cell_r(super::ratio(r.ratio)),
                cell_r(super::interval(r.ratio_ci, super::ratio)),
                cell_r(super::pvalue(r.p)),
                cell_r(super::pvalue(r.q)),
                cell_r(format!("n={runs}")),
            ]);
        }
        cells.extend([
            Cell::new(r.mark()),
            Cell::new(&super::printable(&super::symbol_label(r))),
        ]);
        t.add_row(PRow::new(cells));
    };
    // Where the "... N more" lines go: after the last regression, before the
    // first improvement (rank order), or at the end when sorted by name.
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
    for r in &c.rows {
        add(&mut t, r);
    }
    let mut total_cells = vec![
        cell_r(nf.delta(c.total.delta)),
        cell_r(if c.total.old > 0.0 {
            super::signed_pct(c.total.delta / c.total.old * 100.0)
        } else {
            String::new()
        }),
        cell_r(nf.value(c.total.old)),
        cell_r(nf.value(c.total.new)),
    ];
    if opts.wide {
        total_cells.extend((0..7).map(|_| Cell::new("")));
        total_cells.push(cell_r(format!("n={runs}")));
    }
    total_cells.extend([Cell::new(" "), Cell::new("total")]);
    t.add_row(PRow::new(total_cells));

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
    let (worse, better, other) = super::elided_lines(c, nf);
    let sorted_by_sign = c
        .rows
        .windows(2)
        .all(|w| !(w[0].delta < 0.0 && w[1].delta > 0.0));
    let total_line = lines.pop().unwrap_or_default();
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
    lines.push(total_line);
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
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
