//! Writing a [`Batch`]: on stdout one section per benchmark (JSON: one
//! document `{"version":1,"benchmarks":[{"name","report"}],…}`), or with
//! `--out-dir` one report file per benchmark plus an index. Both end with
//! the index: every significant regression of every benchmark, largest Δ
//! first (ties by benchmark, kernel, symbol), and the batch's warnings.

use super::BatchConfig;
use super::{Batch, Bench};
use crate::diff::Row;
use crate::render::{self, json, text, NumFmt, OutputFormat};
use anyhow::{Context, Result};
use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;

/// One significant regression, for the index.
struct Entry<'a> {
    bench: &'a str,
    kernel: &'a str,
    row: &'a Row,
    nf: NumFmt,
}

fn entries(batch: &Batch) -> Vec<Entry<'_>> {
    let mut out = Vec::new();
    for b in &batch.benches {
        let Some(r) = &b.report else { continue };
        let nf = NumFmt::for_report(r);
        for c in &r.comparisons {
            for row in c.rows.iter().filter(|r| r.significant && r.delta > 0.0) {
                out.push(Entry {
                    bench: &b.name,
                    kernel: &r.sides[c.side].name,
                    row,
                    nf,
                });
            }
        }
    }
    out.sort_by(|a, b| {
        b.row
            .delta
            .total_cmp(&a.row.delta)
            .then_with(|| a.bench.cmp(b.bench))
            .then_with(|| a.kernel.cmp(b.kernel))
            .then_with(|| a.row.symbol.cmp(&b.row.symbol))
            .then_with(|| a.row.dso.cmp(&b.row.dso))
    });
    out
}

/// The one line that says why `batch --fail-on-regression` exits 1: how
/// many significant regressions, the largest by benchmark, kernel and name.
pub fn gate_sentence(batch: &Batch) -> String {
    let list = entries(batch);
    let total: usize = batch
        .benches
        .iter()
        .flat_map(|b| &b.report)
        .flat_map(|r| &r.comparisons)
        .map(|c| c.regressions)
        .sum();
    let named: Vec<String> = list
        .iter()
        .take(render::GATE_NAMED)
        .map(|e| {
            render::printable(&format!(
                "{}/{}: {} {}",
                e.bench,
                e.kernel,
                render::symbol_label(e.row),
                e.nf.delta(e.row.delta)
            ))
        })
        .collect();
    render::gate_line(total, &named)
}

fn ext(format: OutputFormat) -> &'static str {
    match format {
        OutputFormat::Text | OutputFormat::Classic => "txt",
        OutputFormat::Json => "json",
        OutputFormat::Csv => "csv",
        OutputFormat::Markdown => "md",
        OutputFormat::Html => "html",
        OutputFormat::Flamegraph => "svg",
    }
}

/// The report file of a benchmark (`index` is taken by the index).
fn file_name(bench: &str, format: OutputFormat) -> String {
    let stem = if bench == "index" {
        "index-bench"
    } else {
        bench
    };
    format!("{stem}.{}", ext(format))
}

fn counts(b: &Bench) -> Vec<(String, usize, usize)> {
    b.report
        .iter()
        .flat_map(|r| {
            r.comparisons
                .iter()
                .map(|c| (r.sides[c.side].name.clone(), c.regressions, c.improvements))
        })
        .collect()
}

/// Aligned plain-text table: the last column left-aligned, the others right;
/// cells escaped ([`render::printable`]) before they are measured.
fn table(rows: &[Vec<String>]) -> Vec<String> {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|c| render::printable(c)).collect())
        .collect();
    let n = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|s| render::width(s))
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
                        let pad = widths[i].saturating_sub(render::width(s));
                        format!("{}{s}", " ".repeat(pad))
                    }
                })
                .collect();
            cells.join("  ").trim_end().to_string()
        })
        .collect()
}

fn index_text(batch: &Batch, files: bool, fmt: OutputFormat, out: &mut dyn Write) -> Result<()> {
    let list = entries(batch);
    let md = fmt == OutputFormat::Markdown;
    let reported = batch.benches.iter().filter(|b| b.report.is_some()).count();
    let title = format!(
        "index: {3} significant regression(s) in {0} benchmark{1}, baseline {2}, largest first",
        reported,
        if reported == 1 { "" } else { "s" },
        batch.baseline,
        list.len()
    );
    let mut rows = vec![vec![
        "delta".to_string(),
        "delta ci".to_string(),
        "q".to_string(),
        "benchmark".to_string(),
        "kernel".to_string(),
        "symbol".to_string(),
    ]];
    for e in &list {
        rows.push(vec![
            e.nf.delta(e.row.delta),
            render::interval(e.row.delta_ci, |v| e.nf.delta(v)),
            render::pvalue(e.row.q),
            e.bench.to_string(),
            e.kernel.to_string(),
            render::symbol_label(e.row),
        ]);
    }
    let mut summary = vec![vec![
        "regressions".to_string(),
        "improvements".to_string(),
        "benchmark".to_string(),
        "kernel".to_string(),
        if files { "report" } else { "" }.to_string(),
    ]];
    for b in &batch.benches {
        for (k, reg, imp) in counts(b) {
            summary.push(vec![
                reg.to_string(),
                imp.to_string(),
                b.name.clone(),
                k,
                if files {
                    file_name(&b.name, fmt)
                } else {
                    String::new()
                },
            ]);
        }
        if let Some(why) = &b.skipped {
            summary.push(vec![
                "-".into(),
                "-".into(),
                b.name.clone(),
                "-".into(),
                format!("skipped: {why}"),
            ]);
        }
    }
    if md {
        writeln!(out, "## {}\n", crate::render::markdown::esc(&title))?;
        md_table(&rows, out)?;
        writeln!(out, "\n## Benchmarks\n")?;
        md_table(&summary, out)?;
        for w in &batch.warnings {
            writeln!(out, "\n> warning: {}", crate::render::markdown::esc(w))?;
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
        for w in &batch.warnings {
            text::write_wrapped(out, &format!("warning: {}", render::printable(w)))?;
        }
    }
    Ok(())
}

fn md_table(rows: &[Vec<String>], out: &mut dyn Write) -> Result<()> {
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().map(|c| crate::render::markdown::esc(c)).collect();
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

fn index_json(batch: &Batch, files: bool, fmt: OutputFormat) -> Value {
    let regressions: Vec<Value> = entries(batch)
        .iter()
        .map(|e| {
            json!({
                "benchmark": e.bench,
                "kernel": e.kernel,
                "symbol": e.row.symbol,
                "dso": e.row.dso,
                "delta": json::Float(e.row.delta),
                "delta_ci": e.row.delta_ci.map(|(a, b)| [json::Float(a), json::Float(b)]),
                "q": e.row.q.map(json::Float),
            })
        })
        .collect();
    let benches: Vec<Value> = batch
        .benches
        .iter()
        .map(|b| {
            let cmp: Vec<Value> = counts(b)
                .into_iter()
                .map(|(k, r, i)| json!({"kernel": k, "regressions": r, "improvements": i}))
                .collect();
            let mut v = json!({"name": b.name, "kernels": b.kernels, "comparisons": cmp});
            if files && b.report.is_some() {
                v["file"] = json!(file_name(&b.name, fmt));
            }
            if let Some(why) = &b.skipped {
                v["skipped"] = json!(why);
            }
            v
        })
        .collect();
    json!({
        "version": 1,
        "baseline": batch.baseline,
        "benchmarks": benches,
        "regressions": regressions,
        "warnings": batch.warnings,
    })
}

/// How a batch report is rendered: the kernels' names exactly as given.
fn render_opts(config: &BatchConfig) -> render::RenderOptions {
    render::RenderOptions {
        names_as_given: true,
        ..config.config.render.clone()
    }
}

fn render_one(b: &Bench, config: &BatchConfig, out: &mut dyn Write) -> Result<()> {
    if let Some(r) = &b.report {
        let flames = b.flames.as_ref();
        render::render(config.config.output, r, flames, &render_opts(config), out)?;
    }
    Ok(())
}

/// The HTML index: the significant regressions of every benchmark (largest
/// first) and every benchmark with its counts and, when `files`, a link to
/// its report file (`-o html`: the report page; `-o flamegraph`: the SVG).
fn index_html(batch: &Batch, files: bool, fmt: OutputFormat) -> String {
    use crate::render::markup::escape;
    let list = entries(batch);
    let mut s = String::new();
    s.push_str(&format!(
        "<h1>diffprofile batch: baseline {}</h1>\n<h2>{} significant regression(s), largest first</h2>\n",
        escape(&batch.baseline),
        list.len()
    ));
    s.push_str("<table class=\"rows\">\n<thead><tr><th>symbol</th><th data-num=\"1\">&Delta;</th><th data-num=\"1\">&Delta; interval</th><th data-num=\"1\">q</th><th>benchmark</th><th>kernel</th></tr></thead>\n<tbody>\n");
    for (i, e) in list.iter().enumerate() {
        s.push_str(&format!(
            "<tr class=\"worse\" data-i=\"{i}\"><td>{}</td><td class=\"d\" data-v=\"{}\">{}</td><td>{}</td><td data-v=\"{}\">{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&render::symbol_label(e.row)),
            e.row.delta,
            e.nf.delta(e.row.delta),
            escape(&render::interval(e.row.delta_ci, |v| e.nf.delta(v))),
            e.row.q.unwrap_or(1.0),
            render::pvalue(e.row.q),
            bench_link(e.bench, files, fmt),
            escape(e.kernel)
        ));
    }
    s.push_str("</tbody>\n</table>\n<h2>Benchmarks</h2>\n<table class=\"facts\">\n<tr><th>benchmark</th><th>kernel</th><th>regressions</th><th>improvements</th></tr>\n");
    for b in &batch.benches {
        for (k, reg, imp) in counts(b) {
            s.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{reg}</td><td>{imp}</td></tr>\n",
                if b.report.is_some() {
                    bench_link(&b.name, files, fmt)
                } else {
                    escape(&b.name)
                },
                escape(&k)
            ));
        }
        if let Some(why) = &b.skipped {
            s.push_str(&format!(
                "<tr><td>{}</td><td colspan=\"3\">skipped: {}</td></tr>\n",
                escape(&b.name),
                escape(why)
            ));
        }
    }
    s.push_str("</table>\n");
    if !batch.warnings.is_empty() {
        s.push_str("<h2>Warnings</h2>\n<ul>\n");
        for w in &batch.warnings {
            s.push_str(&format!("<li class=\"warn\">{}</li>\n", escape(w)));
        }
        s.push_str("</ul>\n");
    }
    s
}

/// A benchmark's name, linked to its report (a file, or a section of this page).
fn bench_link(bench: &str, files: bool, fmt: OutputFormat) -> String {
    use crate::render::markup::escape;
    let target = if files {
        url_path(&file_name(bench, fmt))
    } else {
        format!("#b-{}", anchor(bench))
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

/// Every benchmark's report on stdout, then the index.
pub fn write_stdout(batch: &Batch, config: &BatchConfig, out: &mut dyn Write) -> Result<()> {
    let fmt = config.config.output;
    match fmt {
        OutputFormat::Json => {
            // Serialised as it is written: the reports are never held as
            // JSON values.
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
            let benchmarks = batch
                .benches
                .iter()
                .filter_map(|b| {
                    b.report.as_ref().map(|r| Bench {
                        name: &b.name,
                        report: json::doc(r),
                    })
                })
                .collect();
            let mut index = index_json(batch, false, fmt);
            let doc = Doc {
                version: 1,
                baseline: &batch.baseline,
                benchmarks,
                index: json!({"benchmarks": index["benchmarks"].take(), "regressions": index["regressions"].take()}),
                warnings: &batch.warnings,
            };
            let mut w = std::io::BufWriter::new(&mut *out);
            serde_json::to_writer_pretty(&mut w, &doc)?;
            writeln!(w)?;
            w.flush()?;
        }
        OutputFormat::Csv => {
            // One table: the benchmark column first, then the report's columns.
            let mut w = csv::Writer::from_writer(&mut *out);
            let mut header = false;
            for b in &batch.benches {
                let Some(r) = &b.report else { continue };
                if !header {
                    let h = render::csv::header().iter().copied();
                    w.write_record(std::iter::once("benchmark").chain(h))?;
                    header = true;
                }
                render::csv::write_rows(&mut w, r, Some(&b.name))?;
            }
            w.flush()?;
        }
        OutputFormat::Html => {
            // One page: the index first, then every benchmark's report.
            let mut body = index_html(batch, false, fmt);
            for b in &batch.benches {
                let Some(r) = &b.report else { continue };
                let id = format!("b-{}", anchor(&b.name));
                body.push_str(&format!(
                    "<hr>\n<div id=\"{id}\" class=\"bench\">\n<h1>benchmark {}</h1>\n",
                    render::markup::escape(&b.name)
                ));
                let flames = b.flames.as_ref();
                body.push_str(&render::html::body(r, flames, &id, &render_opts(config)));
                body.push_str("</div>\n");
            }
            let title = format!("diffprofile batch: baseline {}", batch.baseline);
            out.write_all(render::html::page(&title, &body).as_bytes())?;
        }
        OutputFormat::Flamegraph => {
            anyhow::bail!("batch -o flamegraph writes one SVG per benchmark: give --out-dir DIR");
        }
        OutputFormat::Text | OutputFormat::Classic | OutputFormat::Markdown => {
            let md = fmt == OutputFormat::Markdown;
            for b in &batch.benches {
                let title = match &b.skipped {
                    Some(why) => format!("benchmark {}: skipped: {why}", b.name),
                    None => format!("benchmark {}: {}", b.name, b.kernels.join(" ")),
                };
                if md {
                    writeln!(out, "## {}\n", crate::render::markdown::esc(&title))?;
                } else {
                    text::write_wrapped(out, &format!("=== {} ===", render::printable(&title)))?;
                }
                render_one(b, config, out)?;
                writeln!(out)?;
            }
            index_text(batch, false, fmt, out)?;
        }
    }
    Ok(())
}

/// One report file per benchmark and `index.<ext>` in `dir`.
pub fn write_dir(batch: &Batch, config: &BatchConfig, dir: &Path) -> Result<()> {
    let fmt = config.config.output;
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let write = |name: &str, bytes: &[u8]| -> Result<()> {
        let path = dir.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("{}: cannot write", path.display()))
    };
    for b in &batch.benches {
        if b.report.is_some() {
            let mut buf = Vec::new();
            render_one(b, config, &mut buf)?;
            write(&file_name(&b.name, fmt), &buf)?;
        }
    }
    let mut buf = Vec::new();
    match fmt {
        OutputFormat::Json => {
            serde_json::to_writer_pretty(&mut buf, &index_json(batch, true, fmt))?;
            writeln!(buf)?;
        }
        OutputFormat::Csv => {
            let mut w = csv::Writer::from_writer(&mut buf);
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
            for e in entries(batch) {
                let f = |x: Option<f64>| {
                    x.filter(|v| v.is_finite())
                        .map(|v| v.to_string())
                        .unwrap_or_default()
                };
                w.write_record([
                    e.bench.to_string(),
                    e.kernel.to_string(),
                    e.row.symbol.clone(),
                    e.row.dso.clone().unwrap_or_default(),
                    f(Some(e.row.delta)),
                    f(e.row.delta_ci.map(|c| c.0)),
                    f(e.row.delta_ci.map(|c| c.1)),
                    f(e.row.q),
                ])?;
            }
            w.flush()?;
        }
        OutputFormat::Html | OutputFormat::Flamegraph => {
            let title = format!("diffprofile batch: baseline {}", batch.baseline);
            let page = render::html::page(&title, &index_html(batch, true, fmt));
            buf.extend_from_slice(page.as_bytes());
        }
        _ => index_text(batch, true, fmt, &mut buf)?,
    }
    let index_ext = match fmt {
        OutputFormat::Html | OutputFormat::Flamegraph => "html",
        other => ext(other),
    };
    write(&format!("index.{index_ext}"), &buf)?;
    // Index files of skipped benchmarks: nothing; they are in the index.
    Ok(())
}
