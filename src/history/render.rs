//! Writing a history: a header, one section per benchmark as soon as it is
//! analysed, and the warnings at the end. Text fits 80 columns (steps
//! ranked by |Δ|, each with a sparkline of the symbol's level per kernel);
//! JSON is one document (version 1, written as it goes); CSV one row per
//! step; markdown a table per benchmark; HTML one self-contained page with a
//! small chart per step ([`super::html`] draws it).

use super::fmt::{label, signed, sparkline, value, wrap};
use super::{BenchOut, Frame, HistoryConfig, StepOut};
use crate::render::{pvalue, OutputFormat};
use serde_json::{json, Value};
use std::io::{self, Write};

const WIDTH: usize = 80;

/// Where each part of a history goes, by format.
pub struct Writer<'a> {
    format: OutputFormat,
    config: &'a HistoryConfig,
    frame: &'a Frame<'a>,
    first: bool,
    /// HTML: the sections, written at the end.
    html: Vec<String>,
}

impl<'a> Writer<'a> {
    pub fn new(format: OutputFormat, config: &'a HistoryConfig, frame: &'a Frame<'a>) -> Self {
        Writer {
            format,
            config,
            frame,
            first: true,
            html: Vec::new(),
        }
    }

    pub fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let f = self.frame;
        match self.format {
            OutputFormat::Json => {
                write!(
                    out,
                    "{{\"version\":1,\"order\":{},\"unit\":{},\"kernels\":{},\"benchmarks\":[",
                    json!(f.order.name()),
                    json!(f.unit),
                    json!(f.kernels)
                )
            }
            OutputFormat::Csv => writeln!(
                out,
                "benchmark,symbol,dso,mode,before,at,level_before,level_after,delta,delta_pct,\
                 ci_low,ci_high,p,q,significant{}",
                if self.config.first_bad {
                    ",first_bad"
                } else {
                    ""
                }
            ),
            OutputFormat::Markdown => {
                writeln!(out, "# History of {}\n", md_escape(f.root))?;
                writeln!(out, "{}\n", md_escape(&order_line(f)))
            }
            OutputFormat::Html => Ok(()),
            _ => {
                // A long root (an absolute path) wraps like the order line:
                // the text fits 80 columns wherever the tree lives.
                let head = format!(
                    "history of {}: {} benchmark(s), {} kernel(s)",
                    f.root,
                    f.benchmarks,
                    f.kernels.len()
                );
                for line in wrap(&head, WIDTH) {
                    writeln!(out, "{line}")?;
                }
                for line in wrap(&order_line(f), WIDTH) {
                    writeln!(out, "{line}")?;
                }
                Ok(())
            }
        }
    }

    pub fn bench(&mut self, b: &BenchOut, out: &mut dyn Write) -> io::Result<()> {
        match self.format {
            OutputFormat::Json => {
                if !self.first {
                    out.write_all(b",")?;
                }
                self.first = false;
                let v = bench_json(b, self.frame);
                out.write_all(v.to_string().as_bytes())
            }
            OutputFormat::Csv => bench_csv(b, self.frame, self.config.first_bad, out),
            OutputFormat::Markdown => bench_markdown(b, self.frame, self.config, out),
            OutputFormat::Html => {
                self.html
                    .push(super::html::section(b, self.frame, self.config.top));
                Ok(())
            }
            _ => bench_text(b, self.frame, self.config, out),
        }
    }

    pub fn end(&mut self, warnings: &[String], out: &mut dyn Write) -> io::Result<()> {
        match self.format {
            OutputFormat::Json => writeln!(out, "],\"warnings\":{}}}", json!(warnings)),
            OutputFormat::Csv => Ok(()),
            OutputFormat::Html => {
                let page = super::html::page(self.frame, &self.html, warnings);
                out.write_all(page.as_bytes())
            }
            OutputFormat::Markdown => {
                if !warnings.is_empty() {
                    writeln!(out, "## Warnings\n")?;
                    for w in warnings {
                        writeln!(out, "- {}", crate::render::printable(w))?;
                    }
                }
                Ok(())
            }
            _ => {
                for w in warnings {
                    let w = format!("warning: {}", crate::render::printable(w));
                    for l in wrap(&w, WIDTH) {
                        writeln!(out, "{l}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// `order: version: v6.1 v6.2 …` (every kernel, as the header shows them).
fn order_line(f: &Frame) -> String {
    let how = match f.order {
        super::Order::Version => "version".to_string(),
        super::Order::File { path, .. } => format!("as listed in {path}"),
        super::Order::Column { name, .. } => format!("by column {name}"),
    };
    format!("order ({how}): {}", f.kernels.join(" "))
}

fn runs_line(b: &BenchOut) -> String {
    let first = b.runs.first().copied().unwrap_or(0);
    if b.runs.iter().all(|&r| r == first) {
        return format!("{first} run(s) each");
    }
    let mut counts: std::collections::BTreeMap<usize, usize> = Default::default();
    for &r in &b.runs {
        *counts.entry(r).or_default() += 1;
    }
    let common = counts
        .iter()
        .max_by_key(|(r, n)| (**n, **r))
        .map_or(0, |x| *x.0);
    let odd: Vec<String> = b
        .kernels
        .iter()
        .zip(&b.runs)
        .filter(|(_, &r)| r != common)
        .map(|(k, r)| format!("{k} {r}"))
        .collect();
    format!("{common} run(s) each but {}", odd.join(", "))
}

/// The noise line of a benchmark's section.
fn noise_line(b: &BenchOut, f: &Frame) -> String {
    let m = match &b.moderation {
        Some(p) => format!("moderated across symbols (d0 {:.3})", p.d0),
        None => "not moderated (fewer than 10 symbols with 5 samples a run)".to_string(),
    };
    format!(
        "noise: runs and kernels of one segment as replicates, {m}; {} symbol(s), {} \
         candidate step(s) tested ({} drift(s), not steps); {} at {}",
        b.symbols, b.tested, b.drifts, f.adjust, f.alpha
    )
}

fn bench_text(
    b: &BenchOut,
    f: &Frame,
    config: &HistoryConfig,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out)?;
    let name = crate::render::printable(&b.name);
    if let Some(why) = &b.skipped {
        for l in wrap(&format!("benchmark {name}: skipped: {why}"), WIDTH) {
            writeln!(out, "{l}")?;
        }
        return Ok(());
    }
    let mut head = format!(
        "benchmark {name}: {} kernel(s), {}",
        b.kernels.len(),
        runs_line(b)
    );
    if !b.missing.is_empty() {
        head.push_str(&format!("; not measured: {}", b.missing.join(" ")));
    }
    for l in wrap(&head, WIDTH) {
        writeln!(out, "{l}")?;
    }
    for l in wrap(&format!("  {}", noise_line(b, f)), WIDTH) {
        writeln!(out, "{l}")?;
    }
    let shown: Vec<&StepOut> = b
        .steps
        .iter()
        .take(config.top.unwrap_or(usize::MAX))
        .collect();
    if b.steps.is_empty() {
        writeln!(out, "  no step found")?;
    } else {
        let unit = if f.scale == 100.0 { "pp" } else { "" };
        let line = format!(
            "  {} step(s), {} significant (*; ~ within noise); Δ in {}",
            b.steps.len(),
            b.steps.iter().filter(|s| s.significant).count(),
            if unit == "pp" {
                "percentage points"
            } else {
                f.unit
            }
        );
        for l in wrap(&line, WIDTH) {
            writeln!(out, "{l}")?;
        }
    }
    for s in &shown {
        step_text(s, b, out)?;
    }
    if shown.len() < b.steps.len() {
        writeln!(
            out,
            "  … {} more step(s) (--top)",
            b.steps.len() - shown.len()
        )?;
    }
    for s in &b.series {
        series_text(s, b, out)?;
    }
    Ok(())
}

fn step_text(s: &StepOut, b: &BenchOut, out: &mut dyn Write) -> io::Result<()> {
    let mark = if s.significant { '*' } else { '~' };
    let kernels = format!("{} → {}", b.kernels[s.at - 1], b.kernels[s.at]);
    let delta = signed(s.delta);
    let room = WIDTH.saturating_sub(2 + 2 + delta.len() + 2 + crate::render::width(&kernels) + 2);
    let sym = crate::render::truncate_middle(&label(&s.symbol), room.max(12), "…");
    let pad = room.saturating_sub(crate::render::width(&sym));
    writeln!(out, "  {mark} {delta}  {sym}{}  {kernels}", " ".repeat(pad))?;
    let pct = match s.delta_pct {
        Some(p) => format!(" ({p:+.1}%)"),
        None => String::new(),
    };
    let line = format!(
        "      {}  {} → {}{pct}  [{}, {}]  p {}  q {}",
        sparkline(&s.levels),
        value(s.level_before),
        value(s.level_after),
        signed(s.delta_ci.0),
        signed(s.delta_ci.1),
        pvalue(Some(s.p)),
        pvalue(Some(s.q))
    );
    for l in wrap(&line, WIDTH) {
        writeln!(out, "{l}")?;
    }
    if let Some(note) = &s.bisect {
        for l in wrap(&format!("      {note}"), WIDTH) {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}

fn series_text(s: &super::SeriesOut, b: &BenchOut, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "  series of {}:", label(&s.symbol))?;
    let w = b
        .kernels
        .iter()
        .map(|k| crate::render::width(k))
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(out, "    {:<w$}  runs      mean  interval", "kernel")?;
    for (k, (runs, mean, lo, hi)) in b.kernels.iter().zip(&s.kernels) {
        writeln!(
            out,
            "    {:<w$}  {runs:>4}  {:>8}  [{}, {}]",
            k,
            value(*mean),
            value(*lo),
            value(*hi)
        )?;
    }
    Ok(())
}

fn num(v: f64) -> Value {
    if v.is_finite() {
        json!(v)
    } else {
        Value::Null
    }
}

/// A benchmark as the JSON contract (version 1) has it.
pub fn bench_json(b: &BenchOut, f: &Frame) -> Value {
    let runs: serde_json::Map<String, Value> = b
        .kernels
        .iter()
        .zip(&b.runs)
        .map(|(k, r)| (k.clone(), json!(r)))
        .collect();
    let steps: Vec<Value> = b
        .steps
        .iter()
        .map(|s| {
            let mut v = json!({
                "symbol": s.symbol.name,
                "dso": s.symbol.dso,
                "mode": s.symbol.mode,
                "before": b.kernels[s.at - 1],
                "at": b.kernels[s.at],
                "level_before": num(s.level_before),
                "level_after": num(s.level_after),
                "delta": num(s.delta),
                "delta_pct": s.delta_pct.map_or(Value::Null, num),
                "delta_ci": [num(s.delta_ci.0), num(s.delta_ci.1)],
                "p": num(s.p),
                "q": num(s.q),
                "significant": s.significant,
                "round": s.round,
                "placed": s.placed,
                "own_at": s.own_at.map(|k| b.kernels[k].clone()),
                "segment_before": [b.kernels[s.from], b.kernels[s.at - 1]],
                "segment_after": [b.kernels[s.at], b.kernels[s.to - 1]],
                "levels": s.levels.iter().map(|&x| num(x)).collect::<Vec<_>>(),
            });
            if let Some(note) = &s.bisect {
                v["first_bad"] = json!(b.kernels[s.at]);
                v["last_good"] = json!(b.kernels[s.at - 1]);
                v["bisect"] = json!(note);
            }
            v
        })
        .collect();
    let series: Vec<Value> = b
        .series
        .iter()
        .map(|s| {
            json!({
                "symbol": s.symbol.name,
                "dso": s.symbol.dso,
                "kernels": b.kernels.iter().zip(&s.kernels).map(|(k, (n, m, lo, hi))| json!({
                    "kernel": k, "runs": n, "mean": num(*m), "ci": [num(*lo), num(*hi)]
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let moderation = b.moderation.map(|p| {
        json!({"symbols": p.symbols, "d": p.d, "trend_c": num(p.trend_c), "trend_r": num(p.trend_r),
               "d0": num(p.d0), "d_cap": num(p.d_cap)})
    });
    json!({
        "name": b.name,
        "kernels": b.kernels,
        "runs": runs,
        "missing": b.missing,
        "skipped": b.skipped,
        "steps": steps,
        "series": series,
        "noise": {
            "method": "segments",
            "symbols": b.symbols,
            "tested": b.tested,
            "drifts": b.drifts,
            "alpha": f.alpha,
            "adjust": f.adjust,
            "interval_level": num(b.level),
            "step_kernels": b.step_kernels.iter().map(|&k| b.kernels[k].clone()).collect::<Vec<_>>(),
            "moved": b.moved,
            "moderation": moderation,
        },
        "warnings": b.warnings,
    })
}

fn csv_num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else if v.is_nan() {
        String::new()
    } else if v > 0.0 {
        "inf".to_string()
    } else {
        "-inf".to_string()
    }
}

fn bench_csv(b: &BenchOut, _: &Frame, first_bad: bool, out: &mut dyn Write) -> io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    for s in &b.steps {
        let mut rec = vec![
            b.name.clone(),
            s.symbol.name.clone(),
            s.symbol.dso.clone().unwrap_or_default(),
            s.symbol.mode.clone().unwrap_or_default(),
            b.kernels[s.at - 1].clone(),
            b.kernels[s.at].clone(),
            csv_num(s.level_before),
            csv_num(s.level_after),
            csv_num(s.delta),
            s.delta_pct.map(csv_num).unwrap_or_default(),
            csv_num(s.delta_ci.0),
            csv_num(s.delta_ci.1),
            csv_num(s.p),
            csv_num(s.q),
            s.significant.to_string(),
        ];
        if first_bad {
            rec.push(s.bisect.clone().unwrap_or_default());
        }
        w.write_record(&rec).map_err(io::Error::other)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    out.write_all(&bytes)
}

fn md_escape(s: &str) -> String {
    crate::render::markdown::esc(s)
}

fn bench_markdown(
    b: &BenchOut,
    f: &Frame,
    config: &HistoryConfig,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "## {}\n", md_escape(&b.name))?;
    if let Some(why) = &b.skipped {
        return writeln!(out, "Skipped: {}\n", md_escape(why));
    }
    writeln!(out, "{} kernel(s), {}.", b.kernels.len(), runs_line(b))?;
    if !b.missing.is_empty() {
        writeln!(out, "Not measured: {}.", md_escape(&b.missing.join(", ")))?;
    }
    writeln!(out, "{}\n", md_escape(&noise_line(b, f)))?;
    if b.steps.is_empty() {
        return writeln!(out, "No step found.\n");
    }
    writeln!(
        out,
        "| | symbol | before → at | level before → after | Δ | interval | p | q | series |"
    )?;
    writeln!(out, "|---|---|---|---:|---:|---|---:|---:|---|")?;
    for s in b.steps.iter().take(config.top.unwrap_or(usize::MAX)) {
        writeln!(
            out,
            "| {} | {} | {} → {} | {} → {} | {} | [{}, {}] | {} | {} | {} |",
            if s.significant { "*" } else { "~" },
            crate::render::markdown::code(&label(&s.symbol)),
            md_escape(&b.kernels[s.at - 1]),
            md_escape(&b.kernels[s.at]),
            value(s.level_before),
            value(s.level_after),
            signed(s.delta),
            signed(s.delta_ci.0),
            signed(s.delta_ci.1),
            pvalue(Some(s.p)),
            pvalue(Some(s.q)),
            sparkline(&s.levels)
        )?;
    }
    writeln!(out)?;
    for s in b.steps.iter().filter_map(|s| s.bisect.as_ref()) {
        writeln!(out, "- {}", md_escape(s))?;
    }
    Ok(())
}
