//! The multi-way text table (`diffprofile BASE NEW1 NEW2 …`): the
//! baseline's value, then per compared side its Δ and mark, the symbol
//! last. Rows are the union of every side's shown rows (the first side's
//! order, then the others' new rows in theirs); a row a side does not show
//! (past its `--top`, under `--min-delta`) still has its value there, and
//! `.` means the symbol is absent from both that side and the baseline.

use super::{ELLIPSIS, NO_ROBUST_TOTAL};
use crate::aggregate::Normalize;
use crate::diff::Report;
use crate::render::printable;
use crate::render::{self, NumFmt, RenderOptions, MAX_WIDTH};

/// Widest the columns before the symbol may be in the grouped layout.
pub const GROUPED_MAX: usize = 40;

/// The table's lines, with a legend line first; `None` when the columns
/// before the symbol would be wider than [`GROUPED_MAX`] (the caller then
/// prints one block per side).
pub fn table(report: &Report, nf: &NumFmt, opts: &RenderOptions) -> Option<Vec<String>> {
    let (order, by_side) = render::union_rows(report);
    let share = report.normalize == Normalize::Share;
    let vunit = if share { "%" } else { "" };
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut title = vec![format!("{}{vunit}", report.sides[0].name)];
    for c in &report.comparisons {
        title.push(format!("d {}", report.sides[c.side].name));
        title.push(String::new());
    }
    title.push("symbol".to_string());
    rows.push(title);
    let mut labelled = Vec::with_capacity(order.len());
    for k in &order {
        let any = by_side.iter().find_map(|m| m.get(k))?;
        let mut cells = vec![nf.value(any.old)];
        for m in &by_side {
            match m.get(k) {
                Some(r) => cells.extend([nf.delta(r.delta), r.mark().to_string()]),
                None => cells.extend([".".to_string(), " ".to_string()]),
            }
        }
        cells.push(String::new()); // the symbol, fitted once the widths are known
        rows.push(cells);
        labelled.push(*any);
    }
    let first = report.comparisons.first()?;
    if report.normalize != Normalize::Robust {
        let mut total = vec![nf.value(first.total.old)];
        for c in &report.comparisons {
            total.extend([nf.delta(c.total.delta), " ".to_string()]);
        }
        total.push("total".to_string());
        rows.push(total);
    }
    let ncols = rows[0].len();
    let widths: Vec<usize> = (0..ncols)
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    let before: usize = widths[..ncols - 1].iter().map(|w| w + 1).sum();
    if before > GROUPED_MAX {
        return None;
    }
    let max_name = if opts.wide {
        usize::MAX
    } else {
        MAX_WIDTH.saturating_sub(before)
    };
    let fit: Vec<_> = labelled.iter().map(|r| (*r, max_name)).collect();
    for (cells, label) in rows[1..]
        .iter_mut()
        .zip(render::fitted_labels(&fit, ELLIPSIS, &printable))
    {
        if let Some(last) = cells.last_mut() {
            *last = label;
        }
    }
    let mut lines = Vec::with_capacity(rows.len() + 2);
    lines.push(format!(
        "(d NAME: delta of NAME against {}; . absent from both)",
        report.sides[0].name
    ));
    for r in &rows {
        let mut l = String::new();
        for (i, cell) in r.iter().enumerate() {
            let marks = i > 0 && i + 1 < ncols && i % 2 == 0;
            if i + 1 == ncols {
                l.push_str(cell);
            } else if marks {
                l.push_str(&format!("{cell:<w$} ", w = widths[i]));
            } else {
                l.push_str(&format!("{cell:>w$} ", w = widths[i]));
            }
        }
        lines.push(l.trim_end().to_string());
    }
    if report.normalize == Normalize::Robust {
        lines.push(NO_ROBUST_TOTAL.to_string());
    }
    Some(lines)
}
