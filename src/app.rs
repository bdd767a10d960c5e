//! The application layer: configuration → load every side (in parallel) →
//! aggregate → diff → render into a writer. Returns the exit code; only
//! `main.rs` touches the process (stdout, stderr, exit status).

use crate::aggregate::{self, Side};
use crate::batch;
use crate::cli::{Cli, ColorArg, Command};
use crate::config::{BatchConfig, Config};
use crate::diff;
use crate::exit;
use crate::load;
use crate::render::{self, OutputFormat};
use crate::sanity;
use anyhow::{Context, Result};
use std::io::Write;

/// Run a parsed command line: `batch`, or a comparison of profiles.
pub fn run_cli(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    match cli.command {
        Some(Command::Batch(args)) => {
            let config = BatchConfig::from_args(*args)?;
            let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
            batch::run(&config, progress, out, err)
        }
        Some(Command::Man { out_dir }) => {
            crate::manpage::write_man(out_dir.as_deref(), out)?;
            Ok(exit::SUCCESS)
        }
        Some(Command::Completions { shell }) => {
            crate::manpage::write_completions(shell, out)?;
            Ok(exit::SUCCESS)
        }
        None => {
            let mut config = Config::from_cli(cli)?;
            config.render.color = use_color(
                config.color,
                std::io::IsTerminal::is_terminal(&std::io::stdout()),
                std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            );
            run(&config, out, err)
        }
    }
}

/// `--color`: `always` forces colour; `never` and `auto` off a terminal or
/// with `NO_COLOR` set (no-color.org) leave it out.
pub fn use_color(choice: ColorArg, stdout_is_terminal: bool, no_color: bool) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => stdout_is_terminal && !no_color,
    }
}

/// Run a validated configuration; write the report to `out` and warnings
/// meant for the terminal to `err`.
pub fn run(config: &Config, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    let report = pool(config)?.install(|| build_report(config))?;
    if config.output == OutputFormat::Flamegraph {
        if let Some(why) = report.flame.as_ref().and_then(|f| f.missing_reason()) {
            anyhow::bail!("-o flamegraph: {why}");
        }
    }
    render::render(config.output, &report, &config.render, out)?;
    out.flush()?;
    if !matches!(config.output, OutputFormat::Text | OutputFormat::Markdown) {
        for w in &report.warnings {
            writeln!(err, "diffprofile: warning: {w}")?;
        }
    }
    let regressed = report.comparisons.iter().any(|c| c.regressions > 0);
    Ok(if config.fail_on_regression && regressed {
        writeln!(err, "diffprofile: {}", gate_sentence(&report))?;
        exit::REGRESSION
    } else {
        exit::SUCCESS
    })
}

/// Regressions named in the `--fail-on-regression` line; the rest counted.
const GATE_NAMED: usize = 5;

/// The one line that says why `--fail-on-regression` exits 1: how many
/// significant regressions, the largest shown ones by name.
pub fn gate_sentence(report: &diff::Report) -> String {
    let nf = render::NumFmt::for_report(report);
    let multi = report.comparisons.len() > 1;
    let mut shown: Vec<(f64, String)> = report
        .comparisons
        .iter()
        .flat_map(|c| {
            let side = &report.sides[c.side].name;
            c.rows
                .iter()
                .filter(|r| r.significant && r.delta > 0.0)
                .map(move |r| {
                    let at = if multi {
                        format!("{}: ", side.to_uppercase())
                    } else {
                        String::new()
                    };
                    (
                        r.delta,
                        format!(
                            "{at}{} {}",
                            render::printable(&render::symbol_label(r)),
                            nf.delta(r.delta)
                        ),
                    )
                })
        })
        .collect();
    shown.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total: usize = report.comparisons.iter().map(|c| c.regressions).sum();
    let named: Vec<&str> = shown
        .iter()
        .take(GATE_NAMED)
        .map(|s| s.1.as_str())
        .collect();
    let rest = total.saturating_sub(named.len());
    format!(
        "--fail-on-regression: exit status 1 for {total} significant regression(s): {}{}",
        named.join(", "),
        if rest > 0 {
            format!(" and {rest} more")
        } else {
            String::new()
        }
    )
}

/// The worker threads of a run: `--jobs N`, else one per core.
pub fn pool(config: &Config) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")
}

/// Everything but rendering: the report of a configuration.
pub fn build_report(config: &Config) -> Result<diff::Report> {
    let mut warnings = sanity::same_paths(&config.sides);
    let mut sides = Vec::new();
    for spec in &config.sides {
        let loaded = load::load_side(&spec.paths, &config.load)?;
        warnings.extend(loaded.warnings);
        sides.push(Side {
            name: spec.name.clone(),
            label: spec.paths.join(" "),
            runs: loaded.runs,
        });
    }
    let mut found = sanity::prepare(
        &mut sides,
        &config.load.parse,
        &config.identity,
        config.allow_duplicates,
    )?;
    warnings.append(&mut found.warnings);
    let mut report = compare_sides(&sides, config)?;
    found.add_notes(&mut report.notes);
    warnings.append(&mut report.warnings);
    report.warnings = warnings;
    Ok(report)
}

/// Aggregate and compare sides already loaded (the first is the baseline).
pub fn compare_sides(sides: &[Side], config: &Config) -> Result<diff::Report> {
    let matrix = aggregate::build(sides, &config.identity);
    let exposures = aggregate::exposures(
        sides,
        &matrix,
        config.diff.normalize,
        &config.run_info,
        config.relative,
    )?;
    let mut report = diff::compare(sides, &exposures, &matrix, &config.diff);
    report.notes.extend(config.notes.iter().cloned());
    if config.load.parse.stacks {
        report.flame = Some(crate::flame::build(sides, &config.identity));
    }
    Ok(report)
}
