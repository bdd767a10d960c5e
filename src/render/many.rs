//! Several reports as one document (`batch`): every benchmark's report and
//! an index of them (text and markdown: a heading per report, then the
//! index; HTML: one page, the index first; JSON: one document; CSV: one
//! table with a benchmark column first, the header once), or the index
//! alone, as the file beside the reports' own. The caller decides what is
//! shown (the sections and their titles, the index's rows and their order);
//! this module draws it, one format at a time.

use super::{csv as csv_out, html, json, markdown, markup, text};
use super::{NumFmt, OutputFormat, RenderOptions};
use crate::diff::{Report, Row};
use crate::flame::Flames;
use serde_json::{json, Value};
use std::io::{self, Write};

/// Several reports and their index, in the order shown.
pub struct Document<'a> {
    pub sections: Vec<Section<'a>>,
    pub index: Index<'a>,
}

/// One report of a [`Document`].
pub struct Section<'a> {
    /// The benchmark: the HTML heading and anchor, JSON's `name`, CSV's
    /// first column.
    pub name: &'a str,
    /// The heading of text and markdown.
    pub title: String,
    /// None: a heading with nothing under it in text and markdown, left out
    /// of the other formats.
    pub report: Option<&'a Report>,
    pub flames: Option<&'a Flames>,
}

/// The index of a batch: its significant regressions, its benchmarks with
/// their counts, its warnings.
pub struct Index<'a> {
    pub baseline: &'a str,
    /// Every significant regression a report shows (within its `--top`),
    /// in the order shown (largest first).
    pub regressions: Vec<Regression<'a>>,
    /// The significant regressions of every report, shown or not.
    pub significant: usize,
    pub benches: Vec<IndexBench<'a>>,
    pub warnings: &'a [String],
    /// When the reports are files beside the index: a benchmark's file
    /// name (listed, and linked from HTML). Otherwise HTML links to the
    /// benchmark's section of the page.
    pub files: Option<&'a dyn Fn(&str) -> String>,
}

/// One significant regression of the index.
pub struct Regression<'a> {
    pub bench: &'a str,
    pub kernel: &'a str,
    pub row: &'a Row,
    /// How the numbers of the benchmark's report are printed.
    pub nf: NumFmt,
}

/// One benchmark of the index.
pub struct IndexBench<'a> {
    pub name: &'a str,
    /// Kernels compared, baseline first.
    pub kernels: &'a [String],
    /// Each comparison's kernel, significant regressions and improvements.
    pub counts: Vec<(String, usize, usize)>,
    /// It has a report.
    pub reported: bool,
    /// Why it has none.
    pub skipped: Option<&'a str>,
}

/// The title of a batch's HTML page.
fn page_title(index: &Index) -> String {
    format!("diffprofile batch: baseline {}", index.baseline)
}

/// A benchmark's report file, when the reports are files.
fn file_of(index: &Index, bench: &str) -> Option<String> {
    index.files.map(|f| f(bench))
}

/// Aligned plain-text table: the last column left-aligned, the others right;
/// cells escaped ([`super::printable`]) before they are measured.
fn table(rows: &[Vec<String>]) -> Vec<String> {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| super::printable(c)).collect())
        .collect();
    let n = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|s| super::width(s))
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|r| {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    if i + 1 == r.len() {
                        s.clone()
                    } else {
                        let pad = widths[i].saturating_sub(super::width(s));
                        format!("{}{s}", " ".repeat(pad))
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}

/// The index's symbol column cut (as the comparison tables cut names) so
/// that each row keeps to 80 columns after the columns before it.
fn fit_symbols(rows: &mut [Vec<String>], list: &[Regression<'_>]) {
    let before: usize = (0..5)
        .map(|i| {
            rows.iter()
                .map(|r| super::width(&super::printable(&r[i])))
                .max()
                .unwrap_or(0)
                + 2
        })
        .sum();
    // (One column more for the cut mark the labels may end with.)
    let max = 80usize.saturating_sub(before + 1).max(12);
    let fit: Vec<(&Row, usize)> = list.iter().map(|e| (e.row, max)).collect();
    let labels = super::fitted_labels(&fit, text::ELLIPSIS, &super::printable);
    for (r, label) in rows.iter_mut().skip(1).zip(labels) {
        r[5] = label;
    }
}

/// How the index lists the regressions: all, or those within each
/// report's `--top` (which keeps N rows of each sign per comparison, as
/// the main command's does), said.
fn listed(index: &Index) -> String {
    if index.regressions.len() < index.significant {
        format!(
            "the {} within each report's --top (rows of each sign per kernel) listed, \
             largest first",
            index.regressions.len()
        )
    } else {
        "largest first".to_string()
    }
}

fn index_text(index: &Index, fmt: OutputFormat, out: &mut dyn Write) -> io::Result<()> {
    let list = &index.regressions;
    let files = index.files.is_some();
    let md = fmt == OutputFormat::Markdown;
    let reported = index.benches.iter().filter(|b| b.reported).count();
    let title = format!(
        "index: {3} significant regression(s) in {0} benchmark{1}, baseline {2}, {4}",
        reported,
        if reported == 1 { "" } else { "s" },
        index.baseline,
        index.significant,
        listed(index)
    );
    let mut rows = vec![vec![
        "delta".to_string(),
        "delta ci".to_string(),
        "q".to_string(),
        "benchmark".to_string(),
        "kernel".to_string(),
        "symbol".to_string(),
    ]];
    for e in list {
        rows.push(vec![
            e.nf.delta(e.row.delta),
            super::interval(e.row.delta_ci(), |v| e.nf.delta(v)),
            super::pvalue(e.row.q()),
            e.bench.to_string(),
            e.kernel.to_string(),
            super::symbol_label(e.row),
        ]);
    }
    if !md {
        fit_symbols(&mut rows, list);
    }
    let mut summary = vec![vec![
        "regressions".to_string(),
        "improvements".to_string(),
        "benchmark".to_string(),
        "kernel".to_string(),
        if files { "report" } else { "" }.to_string(),
    ]];
    for b in &index.benches {
        for (k, reg, imp) in &b.counts {
            summary.push(vec![
                reg.to_string(),
                imp.to_string(),
                b.name.to_string(),
                k.clone(),
                file_of(index, b.name).unwrap_or_default(),
            ]);
        }
        if let Some(why) = b.skipped {
            summary.push(vec![
                "-".into(),
                "-".into(),
                b.name.to_string(),
                "-".into(),
                format!("skipped: {why}"),
            ]);
        }
    }
    if md {
        // The heading alone, the title under it in lines of 80 columns
        // (a heading cannot wrap).
        writeln!(out, "## Index\n")?;
        let said = title.strip_prefix("index: ").unwrap_or(&title);
        for l in super::wrap_words(&markdown::esc(said), 80) {
            writeln!(out, "{l}")?;
        }
        writeln!(out)?;
        md_table(&rows, out)?;
        writeln!(out, "\n## Benchmarks\n")?;
        md_table(&summary, out)?;
        for w in index.warnings {
            writeln!(out, "\n> warning: {}", markdown::esc(w))?;
        }
    } else {
        text::write_wrapped(out, &format!("=== {title} ==="))?;
        for l in table(&rows) {
            writeln!(out, "{l}")?;
        }
        writeln!(out, "\n=== benchmarks ===")?;
        for l in table(&summary) {
            writeln!(out, "{l}")?;
        }
        for w in index.warnings {
            text::write_wrapped(out, &format!("warning: {}", super::printable(w)))?;
        }
    }
    Ok(())
}

fn md_table(rows: &[Vec<String>], out: &mut dyn Write) -> io::Result<()> {
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().map(|c| markdown::esc(c)).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
        if i == 0 {
            let n = r.len();
            let align: Vec<&str> = (0..n)
                .map(|j| if j + 1 == n { ":--" } else { "---:" })
                .collect();
            writeln!(out, "|{}|", align.join("|"))?;
        }
    }
    Ok(())
}

fn index_json(index: &Index) -> Value {
    let regressions: Vec<Value> = index
        .regressions
        .iter()
        .map(|e| {
            json!({
                "benchmark": e.bench,
                "kernel": e.kernel,
                "symbol": e.row.symbol,
                "dso": e.row.dso,
                "delta": json::Float(e.row.delta),
                "delta_ci": e.row.delta_ci().map(|(a, b)| [json::Float(a), json::Float(b)]),
                "q": e.row.q().map(json::Float),
            })
        })
        .collect();
    let benches: Vec<Value> = index
        .benches
        .iter()
        .map(|b| {
            let cmp: Vec<Value> = b
                .counts
                .iter()
                .map(|(k, r, i)| json!({"kernel": k, "regressions": r, "improvements": i}))
                .collect();
            let mut v = json!({"name": b.name, "kernels": b.kernels, "comparisons": cmp});
            if let Some(file) = file_of(index, b.name).filter(|_| b.reported) {
                v["file"] = json!(file);
            }
            if let Some(why) = b.skipped {
                v["skipped"] = json!(why);
            }
            v
        })
        .collect();
    json!({
        "version": 1,
        "baseline": index.baseline,
        "benchmarks": benches,
        "regressions": regressions,
        "significant_regressions": index.significant,
        "warnings": index.warnings,
    })
}

/// The HTML index: the significant regressions of every benchmark (largest
/// first) and every benchmark with its counts and, with files, a link to
/// its report file (`-o html`: the report page; `-o flamegraph`: the SVG).
fn index_html(index: &Index) -> String {
    use markup::escape;
    let list = &index.regressions;
    let mut s = String::new();
    s.push_str(&format!(
        "<h1>diffprofile batch: baseline {}</h1>\n<h2>{} significant regression(s), {}</h2>\n",
        escape(index.baseline),
        index.significant,
        escape(&listed(index))
    ));
    s.push_str("<table class=\"rows\">\n<thead><tr><th>symbol</th><th data-num=\"1\">&Delta;</th><th data-num=\"1\">&Delta; interval</th><th data-num=\"1\">q</th><th>benchmark</th><th>kernel</th></tr></thead>\n<tbody>\n");
    for (i, e) in list.iter().enumerate() {
        s.push_str(&format!(
            "<tr class=\"worse\" data-i=\"{i}\"><td>{}</td><td class=\"d\" data-v=\"{}\">{}</td><td>{}</td><td data-v=\"{}\">{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&super::symbol_label(e.row)),
            e.row.delta,
            e.nf.delta(e.row.delta),
            escape(&super::interval(e.row.delta_ci(), |v| e.nf.delta(v))),
            e.row.q().unwrap_or(1.0),
            super::pvalue(e.row.q()),
            bench_link(index, e.bench),
            escape(e.kernel)
        ));
    }
    s.push_str("</tbody>\n</table>\n<h2>Benchmarks</h2>\n<table class=\"facts\">\n<tr><th>benchmark</th><th>kernel</th><th>regressions</th><th>improvements</th></tr>\n");
    for b in &index.benches {
        for (k, reg, imp) in &b.counts {
            s.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{reg}</td><td>{imp}</td></tr>\n",
                if b.reported {
                    bench_link(index, b.name)
                } else {
                    escape(b.name)
                },
                escape(k)
            ));
        }
        if let Some(why) = b.skipped {
            s.push_str(&format!(
                "<tr><td>{}</td><td colspan=\"3\">skipped: {}</td></tr>\n",
                escape(b.name),
                escape(why)
            ));
        }
    }
    s.push_str("</table>\n");
    if !index.warnings.is_empty() {
        s.push_str("<h2>Warnings</h2>\n<ul>\n");
        for w in index.warnings {
            s.push_str(&format!("<li class=\"warn\">{}</li>\n", escape(w)));
        }
        s.push_str("</ul>\n");
    }
    s
}

/// A benchmark's name, linked to its report (a file, or a section of this page).
fn bench_link(index: &Index, bench: &str) -> String {
    use markup::escape;
    let target = match file_of(index, bench) {
        Some(file) => url_path(&file),
        None => format!("#b-{}", anchor(bench)),
    };
    format!("<a href=\"{}\">{}</a>", escape(&target), escape(bench))
}

/// A relative URL for a file name: every byte outside the unreserved set
/// percent-encoded (names may hold `#`, `?`, `%`, spaces, `/`).
fn url_path(name: &str) -> String {
    let mut s = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// An element id for a benchmark (its bytes, hex-encoded where not alphanumeric).
fn anchor(bench: &str) -> String {
    let mut s = String::new();
    for b in bench.bytes() {
        if b.is_ascii_alphanumeric() {
            s.push(b as char);
        } else {
            s.push_str(&format!("_{b:02x}"));
        }
    }
    s
}

/// Every report of `doc` and its index as one document in `format`
/// (`-o flamegraph` has none: one SVG per report is [`super::render`]'s).
pub fn render_many(
    format: OutputFormat,
    doc: &Document,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let shown = || doc.sections.iter().filter_map(|s| Some((s, s.report?)));
    match format {
        OutputFormat::Json => many_json(doc, out),
        OutputFormat::Csv => {
            // One table: the benchmark column first, then the report's columns.
            let mut w = csv::Writer::from_writer(&mut *out);
            let mut header = false;
            for (s, r) in shown() {
                if !header {
                    let h = csv_out::header().iter().copied();
                    let first = std::iter::once("benchmark");
                    w.write_record(first.chain(h)).map_err(csv_out::csv_io)?;
                    header = true;
                }
                csv_out::write_rows(&mut w, r, Some(s.name)).map_err(csv_out::csv_io)?;
            }
            w.flush()
        }
        OutputFormat::Html => {
            // One page: the index first, then every benchmark's report.
            let mut body = index_html(&doc.index);
            for (s, r) in shown() {
                let id = format!("b-{}", anchor(s.name));
                body.push_str(&format!(
                    "<hr>\n<div id=\"{id}\" class=\"bench\">\n<h1>benchmark {}</h1>\n",
                    markup::escape(s.name)
                ));
                body.push_str(&html::body(r, s.flames, &id, opts));
                body.push_str("</div>\n");
            }
            out.write_all(html::page(&page_title(&doc.index), &body).as_bytes())
        }
        OutputFormat::Flamegraph => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "several reports make no one SVG: one file per report",
        )),
        OutputFormat::Text | OutputFormat::Classic | OutputFormat::Markdown => {
            for s in &doc.sections {
                if format == OutputFormat::Markdown {
                    writeln!(out, "## {}\n", markdown::esc(&s.title))?;
                } else {
                    let title = super::printable(&s.title);
                    text::write_wrapped(out, &format!("=== {title} ==="))?;
                }
                if let Some(r) = s.report {
                    super::render(format, r, s.flames, opts, out)?;
                }
                writeln!(out)?;
            }
            index_text(&doc.index, format, out)
        }
    }
}

/// JSON: `{"version":1,"baseline","benchmarks":[{"name","report"}],
/// "index":{"benchmarks","regressions","significant_regressions"},"warnings"}`.
fn many_json(doc: &Document, out: &mut dyn Write) -> io::Result<()> {
    // Serialised as it is written: the reports are never held as JSON values.
    #[derive(serde::Serialize)]
    struct Bench<'a> {
        name: &'a str,
        report: json::Doc<'a>,
    }
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        version: u32,
        baseline: &'a str,
        benchmarks: Vec<Bench<'a>>,
        index: Value,
        warnings: &'a [String],
    }
    let benchmarks = doc
        .sections
        .iter()
        .filter_map(|s| {
            s.report.map(|r| Bench {
                name: s.name,
                report: json::doc(r),
            })
        })
        .collect();
    let mut index = index_json(&doc.index);
    let doc = Doc {
        version: 1,
        baseline: doc.index.baseline,
        benchmarks,
        index: json!({
            "benchmarks": index["benchmarks"].take(),
            "regressions": index["regressions"].take(),
            "significant_regressions": index["significant_regressions"].take(),
        }),
        warnings: doc.index.warnings,
    };
    let mut w = io::BufWriter::new(&mut *out);
    serde_json::to_writer_pretty(&mut w, &doc)?;
    writeln!(w)?;
    w.flush()
}

/// The index alone, the file beside the reports' own (`-o html` and
/// `-o flamegraph`: an HTML page).
pub fn render_index(format: OutputFormat, index: &Index, out: &mut dyn Write) -> io::Result<()> {
    match format {
        OutputFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &index_json(index))?;
            writeln!(out)
        }
        OutputFormat::Csv => index_csv(index, out).map_err(csv_out::csv_io),
        OutputFormat::Html | OutputFormat::Flamegraph => {
            let page = html::page(&page_title(index), &index_html(index));
            out.write_all(page.as_bytes())
        }
        _ => index_text(index, format, out),
    }
}

/// CSV: one record per significant regression, numbers in full.
fn index_csv(index: &Index, out: &mut dyn Write) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record([
        "benchmark",
        "kernel",
        "symbol",
        "dso",
        "delta",
        "delta_ci_lo",
        "delta_ci_hi",
        "q",
    ])?;
    for e in &index.regressions {
        let f = |x: Option<f64>| {
            x.filter(|v| v.is_finite())
                .map(|v| v.to_string())
                .unwrap_or_default()
        };
        w.write_record([
            e.bench.to_string(),
            e.kernel.to_string(),
            e.row.symbol.to_string(),
            e.row.dso.map(|d| d.to_string()).unwrap_or_default(),
            f(Some(e.row.delta)),
            f(e.row.delta_ci().map(|c| c.0)),
            f(e.row.delta_ci().map(|c| c.1)),
            f(e.row.q()),
        ])?;
    }
    w.flush()?;
    Ok(())
}
