//! Writing a [`Batch`]: on stdout one section per benchmark (JSON: one
//! document `{"version":1,"benchmarks":[{"name","report"}],…}`), or with
//! `--out-dir` one report file per benchmark plus an index. Both end with
//! the index: every significant regression of every benchmark, largest Δ
//! first (ties by benchmark, kernel, symbol), and the batch's warnings.
//! What is shown is decided here; [`render::render_many`],
//! [`render::render_index`] and [`render::render`] draw it.

use super::BatchConfig;
use super::{Batch, Bench};
use crate::render::{self, NumFmt, OutputFormat, Regression};
use anyhow::Result;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Every significant regression of the batch, largest first.
fn entries(batch: &Batch) -> Vec<Regression<'_>> {
    let mut out = Vec::new();
    for b in &batch.benches {
        let Some(r) = &b.report else { continue };
        let nf = NumFmt::for_report(r);
        for c in &r.comparisons {
            for row in c.rows.iter().filter(|r| r.significant() && r.delta > 0.0) {
                out.push(Regression {
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
            .then_with(|| crate::names::version::version_cmp(a.kernel, b.kernel))
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

/// The index of `batch`; `files`: each benchmark's report file name.
fn index<'a>(batch: &'a Batch, files: Option<&'a dyn Fn(&str) -> String>) -> render::Index<'a> {
    let benches = batch
        .benches
        .iter()
        .map(|b| render::IndexBench {
            name: &b.name,
            kernels: &b.kernels,
            counts: counts(b),
            reported: b.report.is_some(),
            skipped: b.skipped.as_deref(),
        })
        .collect();
    render::Index {
        baseline: &batch.baseline,
        regressions: entries(batch),
        significant: batch
            .benches
            .iter()
            .flat_map(|b| &b.report)
            .flat_map(|r| &r.comparisons)
            .map(|c| c.regressions)
            .sum(),
        benches,
        warnings: &batch.warnings,
        files,
    }
}

/// How a batch report is rendered: the kernels' names exactly as given.
fn render_opts(config: &BatchConfig) -> render::RenderOptions {
    render::RenderOptions {
        names_as_given: true,
        ..config.config.render.clone()
    }
}

/// Every benchmark's report on stdout, then the index.
pub fn write_stdout(batch: &Batch, config: &BatchConfig, out: &mut dyn Write) -> Result<()> {
    let fmt = config.config.output;
    if fmt == OutputFormat::Flamegraph {
        anyhow::bail!("batch -o flamegraph writes one SVG per benchmark: give --out-dir DIR");
    }
    let sections = batch
        .benches
        .iter()
        .map(|b| render::Section {
            name: &b.name,
            title: match &b.skipped {
                Some(why) => format!("benchmark {}: skipped: {why}", b.name),
                None => format!("benchmark {}: {}", b.name, b.kernels.join(" ")),
            },
            report: b.report.as_ref(),
            flames: b.flames.as_ref(),
        })
        .collect();
    let doc = render::Document {
        sections,
        index: index(batch, None),
    };
    render::render_many(fmt, &doc, &render_opts(config), out)?;
    Ok(())
}

/// The index file's name for `fmt`.
fn index_name(fmt: OutputFormat) -> String {
    let index_ext = match fmt {
        OutputFormat::Html | OutputFormat::Flamegraph => "html",
        other => ext(other),
    };
    format!("index.{index_ext}")
}

/// Refuse a batch whose files would overwrite one another: two benchmarks
/// with one file name (`index` is written as `index-bench`, which a
/// benchmark may be named too), or a benchmark file named as the index.
fn unique_names(batch: &Batch, fmt: OutputFormat) -> Result<()> {
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    taken.insert(index_name(fmt), "the index".to_string());
    for b in batch.benches.iter().filter(|b| b.report.is_some()) {
        let file = file_name(&b.name, fmt);
        if let Some(other) = taken.insert(file.clone(), format!("benchmark {}", b.name)) {
            anyhow::bail!(
                "--out-dir: {other} and benchmark {} would both be written as {file}: \
                 rename one of them in the results tree (nothing written)",
                b.name
            );
        }
    }
    Ok(())
}

/// One report file per benchmark and `index.<ext>` in `dir` (created and
/// locked by [`super::out_dir::lock`]); then what an earlier run left
/// there is settled ([`super::out_dir::settle`]) and said on `err`.
pub fn write_dir(
    batch: &Batch,
    config: &BatchConfig,
    dir: &Path,
    err: &mut dyn Write,
) -> Result<()> {
    let fmt = config.config.output;
    unique_names(batch, fmt)?;
    let mut written = Vec::new();
    let mut write = |name: String, bytes: &[u8]| -> Result<()> {
        crate::input::target::Output::write_whole("--out-dir", &dir.join(&name), bytes)?;
        written.push(name);
        Ok(())
    };
    for b in &batch.benches {
        if let Some(r) = &b.report {
            let mut buf = Vec::new();
            let flames = b.flames.as_ref();
            render::render(fmt, r, flames, &render_opts(config), &mut buf)?;
            write(file_name(&b.name, fmt), &buf)?;
        }
    }
    let mut buf = Vec::new();
    let files = |bench: &str| file_name(bench, fmt);
    render::render_index(fmt, &index(batch, Some(&files)), &mut buf)?;
    write(index_name(fmt), &buf)?;
    // Index files of skipped benchmarks: nothing; they are in the index.
    for w in super::out_dir::settle(dir, ext(fmt), &written)? {
        writeln!(err, "diffprofile: warning: {w}")?;
    }
    Ok(())
}
