//! `-o markdown`: the header facts as a short paragraph and a GitHub-style
//! table for pull requests and web reviews. Several compared sides: one
//! table with a column group (Δ, mark) per side, as in text; with `--wide`
//! one table per side. Names are never shortened (a reader copies them
//! into a search or a patch), so a table row with a long name passes
//! [`super::MAX_WIDTH`] columns; without `--wide` the prose is folded to
//! it (list items and quotes continue on indented lines).

use super::{NumFmt, RenderOptions, MAX_WIDTH};
use crate::aggregate::Normalize;
use crate::diff::{Comparison, Report, Row};
use std::io::{self, Write};

/// Write `text` folded to [`MAX_WIDTH`]: the first line starts with
/// `first`, the others with `cont` (`--wide`: one line).
fn para(out: &mut dyn Write, wide: bool, first: &str, cont: &str, text: &str) -> io::Result<()> {
    if wide {
        return writeln!(out, "{first}{text}");
    }
    let width = MAX_WIDTH - first.chars().count().max(cont.chars().count());
    for (i, l) in super::wrap_words(text, width).iter().enumerate() {
        writeln!(out, "{}{l}", if i == 0 { first } else { cont })?;
    }
    Ok(())
}

/// Table rows `| a | b | … | `symbol` |`, every name whole (with its dso
/// where rows carry one).
fn row_lines(rows: &[(Vec<String>, &Row)]) -> Vec<String> {
    let fit: Vec<(&Row, usize)> = rows.iter().map(|(_, r)| (*r, usize::MAX)).collect();
    rows.iter()
        .zip(super::fitted_labels(&fit, "…", &code_text))
        .map(|((cells, _), label)| format!("| {} | {} |", cells.join(" | "), fence(&label)))
        .collect()
}

/// Text that renders as itself (CommonMark and GFM tables): the ASCII
/// punctuation that could start markup mid-line (`*` `_` `` ` `` `<` `[`
/// `|` `~` `&` `\`) backslash-escaped, then control characters shown as
/// `\u{..}` ([`super::printable`]; never sent raw to a terminal or
/// renderer; a backslash before a letter is literal).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '<' | '[' | '|' | '~' | '&') {
            out.push('\\');
        }
        out.push(c);
    }
    super::printable(&out)
}

/// The text of a code span (a symbol name), before [`fence`]: inside one
/// only `|` needs its escape (a GFM table cell ends there otherwise);
/// backslashes and markup characters are literal.
pub fn code_text(s: &str) -> String {
    super::printable(s).replace('|', "\\|")
}

/// `text` (from [`code_text`]) as a code span that renders it literally:
/// fenced by one backtick more than its longest run of backticks, padded
/// with a space when it starts or ends with one (CommonMark strips one
/// space each side).
pub fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let ticks = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || longest > 0 {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// `s` as a code span ([`code_text`], [`fence`]).
pub fn code(s: &str) -> String {
    fence(&code_text(s))
}

pub fn render(report: &Report, opts: &RenderOptions, out: &mut dyn Write) -> io::Result<()> {
    let nf = NumFmt::for_report(report);
    let wide = opts.wide;
    let width = if wide { usize::MAX } else { MAX_WIDTH };
    for line in super::side_lines(report, opts, "- ", width) {
        writeln!(out, "{}", esc(&line))?;
    }
    let event = report
        .event
        .as_deref()
        .map(|e| format!("; event {}", code(e)))
        .unwrap_or_default();
    let unit = super::unit_sentence(report.normalize);
    para(out, wide, "- ", "  ", &format!("normalize: {unit}{event}"))?;
    for n in &report.notes {
        para(out, wide, "- ", "  ", &esc(n))?;
    }
    para(
        out,
        wide,
        "- ",
        "  ",
        "`+` is worse in NEW, `-` is better; `*` significant, `~` within noise, blank: too few samples to test",
    )?;
    let (du, vu) = if report.normalize == Normalize::Share {
        (" (pp)", " (%)")
    } else {
        ("", "")
    };
    if report.comparisons.len() > 1 && !opts.wide {
        return grouped(report, &nf, opts, (du, vu), out);
    }
    for c in &report.comparisons {
        comparison(report, c, &nf, opts, (du, vu), out)?;
    }
    warnings(report, wide, out)
}

/// One comparison's table (the header, a row per symbol, the total) and
/// its notes.
fn comparison(
    report: &Report,
    c: &Comparison,
    nf: &NumFmt,
    opts: &RenderOptions,
    (du, vu): (&str, &str),
    out: &mut dyn Write,
) -> io::Result<()> {
    let wide = opts.wide;
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
        "n={}+{}",
        report.sides[0].runs.len(),
        report.sides[c.side].runs.len()
    );
    if opts.wide {
        writeln!(out, "| Δ{du} | Δ% | old{vu} | new{vu} | old CV | new CV | Δ CI | ratio | ratio CI | p | q | φ | df | n | | symbol |")?;
        writeln!(
            out,
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|:--|"
        )?;
    } else {
        writeln!(out, "| Δ{du} | Δ% | old{vu} | new{vu} | | symbol |")?;
        writeln!(out, "|---:|---:|---:|---:|:-:|:--|")?;
    }
    let mut table = Vec::with_capacity(c.rows.len());
    for r in &c.rows {
        let mut cells = super::value_cells(r, nf, opts.wide, &runs);
        cells.push(r.mark().trim().to_string());
        table.push((cells, r));
    }
    for l in row_lines(&table) {
        writeln!(out, "{l}")?;
    }
    if report.normalize == Normalize::Robust {
        writeln!(out)?;
        writeln!(out, "{}", super::text::NO_ROBUST_TOTAL)?;
        side_notes(report, c, nf, "- ", wide, out)?;
        return Ok(());
    }
    let mut total = vec![
        nf.delta(c.total.delta),
        String::new(),
        nf.value(c.total.old),
        nf.value(c.total.new),
    ];
    if opts.wide {
        total.extend((0..10).map(|_| String::new()));
    }
    total.extend([String::new(), "**total**".to_string()]);
    writeln!(out, "| {} |", total.join(" | "))?;
    writeln!(out)?;
    side_notes(report, c, nf, "- ", wide, out)?;
    Ok(())
}

fn warnings(report: &Report, wide: bool, out: &mut dyn Write) -> io::Result<()> {
    for w in &report.warnings {
        writeln!(out)?;
        para(out, wide, "> warning: ", "> ", &esc(w))?;
    }
    Ok(())
}

/// One table for every compared side: old, then Δ and mark per side, the
/// symbol last; rows are the union of the sides' shown rows (first side's
/// order, then the others'); `.` where a side does not show the row.
fn grouped(
    report: &Report,
    nf: &NumFmt,
    opts: &RenderOptions,
    (du, vu): (&str, &str),
    out: &mut dyn Write,
) -> io::Result<()> {
    let (order, by_side) = super::union_rows(report);
    let wide = opts.wide;
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
    let mut table = Vec::with_capacity(order.len());
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
        table.push((cells, *any));
    }
    for l in row_lines(&table) {
        writeln!(out, "{l}")?;
    }
    if report.normalize == Normalize::Robust {
        writeln!(out, "\n{}", super::text::NO_ROBUST_TOTAL)?;
    } else if let Some(first) = report.comparisons.first() {
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
        side_notes(report, c, nf, &format!("- **{name}**: "), wide, out)?;
    }
    warnings(report, wide, out)
}

/// A comparison's hidden-row lines, summary and possible renames, each line
/// starting with `prefix`.
fn side_notes(
    report: &Report,
    c: &Comparison,
    nf: &NumFmt,
    prefix: &str,
    wide: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (worse, better, other) = super::elided_lines(c, nf);
    for l in [worse, better, other].into_iter().flatten() {
        writeln!(out, "{prefix}{l}")?;
    }
    let summary = format!(
        "{}; {}.",
        super::summary_sentence(report, c),
        super::noise_sentence(c)
    );
    para(out, wide, prefix, "  ", &summary)?;
    for r in &c.renames {
        let text = format!(
            "possible rename: {} -> {} ({} / {})",
            code(&r.old_symbol),
            code(&r.new_symbol),
            nf.delta(r.old_delta),
            nf.delta(r.new_delta)
        );
        para(out, wide, prefix, "  ", &text)?;
    }
    Ok(())
}
