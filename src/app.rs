//! The application layer: configuration → load every side (in parallel) →
//! aggregate → diff → render into a writer (or the `-O` file). Returns the
//! exit code; only `main.rs` touches the process (stdout, stderr, exit
//! status). Whether stdout is a terminal is asked here, once, and decides
//! colour, the default `--top` of text and whether a page (`-o html`,
//! `-o flamegraph`) may be written there.

use crate::aggregate::{self, Side};
use crate::batch;
use crate::cli::{Cli, ColorArg, Command};
use crate::config::{BatchConfig, Config, NoiseModelConfig, NoiseSpec};
use crate::diff;
use crate::exit;
use crate::load;
use crate::noise_model::{self, NoiseModel, Replicates};
use crate::render::{self, OutputFormat};
use crate::sanity;
use anyhow::{Context, Result};
use std::io::Write;
use std::sync::Arc;

/// Run a parsed command line: `batch`, or a comparison of profiles.
pub fn run_cli(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    match cli.command {
        Some(Command::Batch(args)) => {
            let mut config = BatchConfig::from_args(*args)?;
            let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
            let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
            if config.out_dir.is_none() {
                config.config.for_terminal(terminal);
            }
            if config.out_dir.is_none() && refuse_page(&config.config, terminal, err)? {
                return Ok(exit::SUCCESS);
            }
            match &config.config.output_file {
                Some(path) => {
                    let mut file = create(path)?;
                    let code = batch::run(&config, progress, &mut file, err)?;
                    file.flush()
                        .with_context(|| format!("{path}: cannot write the report"))?;
                    Ok(code)
                }
                None => batch::run(&config, progress, out, err),
            }
        }
        Some(Command::Export(args)) => {
            let config = crate::config::export_config(*args)?;
            crate::table::export::run(&config, err)
        }
        Some(Command::NoiseModel(args)) => {
            let config = NoiseModelConfig::from_args(*args)?;
            run_noise_model(&config, out, err)
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
            let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
            config.render.color = use_color(
                config.color,
                terminal && config.output_file.is_none(),
                std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            );
            config.for_terminal(terminal);
            if refuse_page(&config, terminal, err)? {
                return Ok(exit::SUCCESS);
            }
            run(&config, out, err)
        }
    }
}

/// `-o html` or `-o flamegraph` to a terminal: a page of markup is no use
/// there. Warns (saying how to get it) and returns true instead.
pub fn refuse_page(config: &Config, stdout_is_terminal: bool, err: &mut dyn Write) -> Result<bool> {
    let what = match config.output {
        OutputFormat::Html => "an HTML page",
        OutputFormat::Flamegraph => "an SVG image",
        _ => return Ok(false),
    };
    if !stdout_is_terminal || config.output_file.is_some() {
        return Ok(false);
    }
    let ext = if config.output == OutputFormat::Html {
        "html"
    } else {
        "svg"
    };
    writeln!(
        err,
        "diffprofile: warning: not writing {what} to the terminal: give -O report.{ext} \
         or redirect stdout (> report.{ext})"
    )?;
    Ok(true)
}

/// The `-O` file, buffered; the error names it.
fn create(path: &str) -> Result<std::io::BufWriter<std::fs::File>> {
    let file = std::fs::File::create(path)
        .with_context(|| format!("{path}: cannot create the report file"))?;
    Ok(std::io::BufWriter::with_capacity(1 << 16, file))
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
    let pool = thread_pool(config.jobs)?;
    let report = pool.install(|| build_report(config))?;
    if config.output == OutputFormat::Flamegraph {
        if let Some(why) = report.flame.as_ref().and_then(|f| f.missing_reason()) {
            anyhow::bail!("-o flamegraph: {why}");
        }
    }
    match &config.output_file {
        Some(path) => {
            let mut file = create(path)?;
            render::render(config.output, &report, &config.render, &mut file)
                .and_then(|()| file.flush())
                .with_context(|| format!("{path}: cannot write the report"))?;
        }
        None => {
            render::render(config.output, &report, &config.render, out)?;
            out.flush()?;
        }
    }
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

/// `diffprofile noise-model RUNS… -o FILE`: learn and write a noise model.
pub fn run_noise_model(
    config: &NoiseModelConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let pool = thread_pool(config.config.jobs)?;
    let paths = &config.config.sides[0].paths;
    let (model, warnings) = pool.install(|| learn_model(paths, &config.config))?;
    for w in &warnings {
        writeln!(err, "diffprofile: warning: {w}")?;
    }
    let text = model.to_json()?;
    match &config.out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("{path}: cannot write the noise model"))?,
        None => out.write_all(text.as_bytes())?,
    }
    writeln!(
        err,
        "diffprofile: noise model of {} symbols from {} runs{}",
        model.symbols.len(),
        model.runs.len(),
        config
            .out
            .as_deref()
            .map(|p| format!(" written to {p}"))
            .unwrap_or_default()
    )?;
    Ok(exit::SUCCESS)
}

/// Learn a noise model from replicate runs (files, directories, archives)
/// read, filtered, named and normalised as `config` says; with its warnings.
pub fn learn_model(paths: &[String], config: &Config) -> Result<(NoiseModel, Vec<String>)> {
    let loaded = load::load_side(paths, &config.load)?;
    let side = Side {
        name: "replicates".to_string(),
        label: paths.join(" "),
        runs: loaded.runs,
    };
    let source = format!("learned from {}", paths.join(" "));
    let (model, mut warnings) = learn_from_side(&side, config, source)
        .with_context(|| format!("noise model from {}", paths.join(" ")))?;
    warnings.splice(0..0, loaded.warnings);
    Ok((model, warnings))
}

/// Learn a noise model from the runs of one side already loaded (for
/// `batch`, a kernel's runs of one benchmark); `source` names them.
pub fn learn_from_side(
    side: &Side,
    config: &Config,
    source: String,
) -> Result<(NoiseModel, Vec<String>)> {
    let (matrix, exposures) = count_matrix(std::slice::from_ref(side), config)?;
    let mut warnings = matrix.warnings.clone();
    let event = diff::common_event(std::slice::from_ref(side), &mut warnings);
    let runs: Vec<&crate::profile::Profile> = side.runs.iter().collect();
    warnings.extend(crate::format::unresolved::summary(&runs));
    let model = noise_model::learn(Replicates {
        counts: &matrix.counts[0],
        exposures: &exposures[0],
        idents: matrix
            .symbols
            .iter()
            .map(|s| (s.ident.name.clone(), s.ident.dso.clone()))
            .collect(),
        runs: side
            .runs
            .iter()
            .zip(&exposures[0])
            .map(|(r, &e)| noise_model::ModelRun {
                source: r.source.clone(),
                format: r.format.name().to_string(),
                total: r.total,
                exposure: e,
            })
            .collect(),
        normalize: config.diff.normalize.name().to_string(),
        event,
        source,
    })?;
    Ok((model, warnings))
}

/// The noise model a configuration names, read or learned; warnings when
/// it was made under other options than this comparison's.
fn load_noise_model(
    config: &Config,
    warnings: &mut Vec<String>,
) -> Result<Option<Arc<NoiseModel>>> {
    let model = match &config.noise {
        None => return Ok(None),
        Some(NoiseSpec::File(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{path}: cannot read the noise model"))?;
            NoiseModel::from_json(&text, path)?
        }
        Some(NoiseSpec::Runs(paths)) => {
            let (model, w) = learn_model(paths, config)?;
            warnings.extend(w);
            model
        }
    };
    let normalize = config.diff.normalize.name();
    if model.normalize != normalize {
        warnings.push(format!(
            "the noise model ({}) was learned with -n {}, this comparison uses -n {normalize}",
            model.source, model.normalize
        ));
    }
    Ok(Some(Arc::new(model)))
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

/// Everything but rendering: the report of a configuration.
pub fn build_report(config: &Config) -> Result<diff::Report> {
    if let Some(spec) = &config.table {
        let (config, mut sides, warnings) = crate::table::load_sides(config, spec)?;
        return report_of_sides(&config, &mut sides, warnings);
    }
    let mut warnings = sanity::same_paths(&config.sides);
    let mut sides = Vec::new();
    for spec in &config.sides {
        let loaded = load::load_side(&spec.paths, &config.load)?;
        warnings.extend(loaded.warnings);
        sides.push(Side {
            name: spec.name.clone(),
            label: render::compact_paths(&spec.paths),
            runs: loaded.runs,
        });
    }
    report_of_sides(config, &mut sides, warnings)
}

/// The report of sides already loaded, after `warnings` about loading them:
/// the sides checked and brought to their common scope ([`sanity::prepare`]),
/// then compared.
fn report_of_sides(
    config: &Config,
    sides: &mut [Side],
    mut warnings: Vec<String>,
) -> Result<diff::Report> {
    let mut found = sanity::prepare(
        sides,
        &config.load.parse,
        &config.identity,
        config.allow_duplicates,
    )?;
    warnings.append(&mut found.warnings);
    let model = load_noise_model(config, &mut warnings)?;
    let mut report = match model {
        Some(model) => {
            let mut config = config.clone();
            config.diff.noise_model = Some(model);
            compare_sides(sides, &config)?
        }
        None => compare_sides(sides, config)?,
    };
    found.add_notes(&mut report.notes);
    warnings.append(&mut report.warnings);
    report.warnings = diff::dedup_warnings(warnings);
    Ok(report)
}

/// The sides' count matrix (identity options applied) and every run's
/// exposure under the configured normalisation.
fn count_matrix(sides: &[Side], config: &Config) -> Result<(aggregate::Matrix, Vec<Vec<f64>>)> {
    let matrix = aggregate::build(sides, &config.identity);
    let exposures = aggregate::exposures(
        sides,
        &matrix,
        config.diff.normalize,
        &config.run_info,
        config.relative,
    )?;
    Ok((matrix, exposures))
}

/// The worker threads of `--jobs` (all cores by default).
pub fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")
}

/// Aggregate and compare sides already loaded (the first is the baseline).
pub fn compare_sides(sides: &[Side], config: &Config) -> Result<diff::Report> {
    let (matrix, exposures) = count_matrix(sides, config)?;
    let mut report = diff::compare(sides, &exposures, &matrix, &config.diff);
    report.notes.extend(config.notes.iter().cloned());
    if config.load.parse.stacks {
        report.flame = Some(crate::flame::build(sides, &config.identity, config.flame));
    }
    Ok(report)
}
