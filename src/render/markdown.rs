//! `-o markdown`: the header facts as a short paragraph and a GitHub-style
//! table for pull requests and web reviews. Several compared sides: one
//! table with a column group (Δ, mark) per side, as in text; with `--wide`
//! one table per side.

use super::{NumFmt, RenderOptions};
use crate::aggregate::Normalize;
use crate::diff::{Comparison, Report};
use std::io::{self, Write};

/// Table-safe text: `|` escaped, backquotes replaced, control characters
/// shown as `\u{..}` ([`super::printable`]; never sent raw to a terminal
/// or renderer).
pub fn esc(s: &str) -> String {
    super::printable(s)
        .chars()
        .map(|c| match c {
            '|' => "\\|".to_string(),
            '`' => "'".to_string(),
            c => c.to_string(),
        })
        .collect()
}

pub fn render(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let nf = NumFmt::for_report(report);
    for line in super::side_lines(report) {
        writeln!(out, "- {}", esc(&line))?;
    }
    let event = report
        .event
        .as_deref()
        .map(|e| format!("; event `{}`", esc(e)))
        .unwrap_or_default();
    writeln!(
        out,
        "- normalize: {}{}",
        super::unit_sentence(report.normalize),
        event
    )?;
    for n in &report.notes {
        writeln!(out, "- {}", esc(n))?;
    }
    writeln!(out, "- `+` is worse in NEW, `-` is better; `*` significant, `~` within noise, blank: too few samples to test")?;
    let (du, vu) = if report.normalize == Normalize::Share {
        (" (pp)", " (%)")
    } else {
        ("", "")
    };
    if report.comparisons.len() > 1 && !opts.wide {
        return grouped(report, &nf, du, vu, out);
    }
    for c in &report.comparisons {
        writeln!(out)?;
        if report.comparisons.len() > 1 {
            writeln!(
                out,
                "### {} vs {}\n",
                esc(&report.sides[c.side].name),
                esc(&report.sides[0].name)
            )?;
        }
        let runs = format!(
            "{}+{}",
            report.sides[0].runs.len(),
            report.sides[c.side].runs.len()
        );
        if opts.wide {
            writeln!(out, "| Δ{du} | Δ% | old{vu} | new{vu} | old CV | new CV | Δ CI | ratio | ratio CI | p | q | n | | symbol |")?;
            writeln!(
                out,
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|:--|"
            )?;
        } else {
            writeln!(out, "| Δ{du} | Δ% | old{vu} | new{vu} | | symbol |")?;
            writeln!(out, "|---:|---:|---:|---:|:-:|:--|")?;
        }
        for r in &c.rows {
            let mut cells = vec![
                nf.delta(r.delta),
                super::delta_pct(r),
                nf.value(r.old),
                nf.value(r.new),
            ];
            if opts.wide {
                cells.extend([
                    super::cv(r.old_cv),
                    super::cv(r.new_cv),
                    super::interval(r.delta_ci, |v| nf.delta(v)),
                    super::ratio(r.ratio),
                    super::interval(r.ratio_ci, super::ratio),
                    super::pvalue(r.p),
                    super::pvalue(r.q),
                    format!("n={runs}"),
                ]);
            }
            cells.push(r.mark().trim().to_string());
            cells.push(format!("`{}`", esc(&super::symbol_label(r))));
            writeln!(out, "| {} |", cells.join(" | "))?;
        }
        let mut total = vec![
            nf.delta(c.total.delta),
            String::new(),
            nf.value(c.total.old),
            nf.value(c.total.new),
        ];
        if opts.wide {
            total.extend((0..8).map(|_| String::new()));
        }
        total.extend([String::new(), "**total**".to_string()]);
        writeln!(out, "| {} |", total.join(" | "))?;
        writeln!(out)?;
        side_notes(report, c, &nf, "- ", out)?;
    }
    for w in &report.warnings {
        writeln!(out, "\n> warning: {}", esc(w))?;
    }
    Ok(())
}

/// One table for every compared side: old, then Δ and mark per side, the
/// symbol last; rows are the union of the sides' shown rows (first side's
/// order, then the others'); `.` where a side does not show the row.
fn grouped(
    report: &Report,
    nf: &NumFmt,
    du: &str,
    vu: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (order, by_side) = super::union_rows(report);
    writeln!(out)?;
    let mut head = vec![format!("{}{vu}", esc(&report.sides[0].name))];
    let mut align = vec!["---:"];
    for c in &report.comparisons {
        head.push(format!("Δ {}{du}", esc(&report.sides[c.side].name)));
        head.push(String::new());
        align.extend(["---:", ":-:"]);
    }
    head.push("symbol".to_string());
    align.push(":--");
    writeln!(out, "| {} |", head.join(" | "))?;
    writeln!(out, "|{}|", align.join("|"))?;
    for k in &order {
        let Some(any) = by_side.iter().find_map(|m| m.get(k)) else {
            continue;
        };
        let mut cells = vec![nf.value(any.old)];
        for m in &by_side {
            match m.get(k) {
                Some(r) => cells.extend([nf.delta(r.delta), r.mark().trim().to_string()]),
                None => cells.extend([".".to_string(), String::new()]),
            }
        }
        cells.push(format!("`{}`", esc(&super::symbol_label(any))));
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    if let Some(first) = report.comparisons.first() {
        let mut total = vec![nf.value(first.total.old)];
        for c in &report.comparisons {
            total.extend([nf.delta(c.total.delta), String::new()]);
        }
        total.push("**total**".to_string());
        writeln!(out, "| {} |", total.join(" | "))?;
    }
    for c in &report.comparisons {
        let name = esc(&report.sides[c.side].name);
        writeln!(out)?;
        side_notes(report, c, nf, &format!("- **{name}**: "), out)?;
    }
    for w in &report.warnings {
        writeln!(out, "\n> warning: {}", esc(w))?;
    }
    Ok(())
}

/// A comparison's hidden-row lines, summary and possible renames, each line
/// starting with `prefix`.
fn side_notes(
    report: &Report,
    c: &Comparison,
    nf: &NumFmt,
    prefix: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (worse, better, other) = super::elided_lines(c, nf);
    for l in [worse, better, other].into_iter().flatten() {
        writeln!(out, "{prefix}{l}")?;
    }
    writeln!(
        out,
        "{prefix}{}; {}.",
        super::summary_sentence(report, c),
        super::noise_sentence(c)
    )?;
    for r in &c.renames {
        writeln!(
            out,
            "{prefix}possible rename: `{}` -> `{}` ({} / {})",
            esc(&r.old_symbol),
            esc(&r.new_symbol),
            nf.delta(r.old_delta),
            nf.delta(r.new_delta)
        )?;
    }
    Ok(())
}
