//! The application layer: configuration → load every side (in parallel) →
//! aggregate → diff → render into a writer (or the `-O` file). Returns the
//! exit code; only `main.rs` touches the process (stdout, stderr, exit
//! status). Whether stdout is a terminal is asked here, once, and decides
//! colour, the default `--top` of text and whether a page (`-o html`,
//! `-o flamegraph`) may be written there.

pub use crate::compare::{
    build_report, compare_sides, global_jobs, learn_from_side, learn_model, thread_pool, Finished,
};

use crate::batch;
use crate::cli::{Analysis, Cli, ColorArg, Command, ReportArgs};
use crate::config::{BatchConfig, Config, NoiseModelConfig};
use crate::diff;
use crate::exit;
use crate::input::{self, target};
use crate::render::{self, OutputFormat};
use anyhow::{Context, Result};
use std::io::Write;

/// Run a parsed command line: `batch`, or a comparison of profiles.
pub fn run_cli(mut cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8> {
    cap_jobs(&mut cli, err)?;
    match cli.command {
        Some(Command::Batch(args)) => {
            let root = [args.root.as_str()];
            let reads = read_paths(&root, &args.analysis, Some(&args.report));
            if let Some(o) = &args.report.output_file {
                target::refuse_input("-O", &input::os_path(o), &paths(&reads))?;
            }
            if let Some(d) = &args.out_dir {
                target::refuse_input("--out-dir", &input::os_path(d), &paths(&reads))?;
                // The results tree or archive may sit beside the reports;
                // the files given with options may not.
                target::refuse_inputs_in_dir(&input::os_path(d), &paths(&reads[1..]))?;
            }
            let mut config = BatchConfig::from_args(*args)?;
            let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
            let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
            if config.out_dir.is_none() {
                config.config.for_terminal(terminal);
            }
            if config.out_dir.is_none() {
                refuse_page(&config.config, terminal)?;
            }
            match &config.config.output_file {
                Some(path) => {
                    let mut file = create(path)?;
                    let code = batch::run(&config, progress, &mut file, err);
                    let code = file.named(code)?;
                    file.finish()?;
                    Ok(code)
                }
                None => batch::run(&config, progress, out, err),
            }
        }
        Some(Command::History(args)) => run_history(*args, out, err),
        Some(Command::Export(args)) => {
            let roots: Vec<&str> = args.roots.iter().map(String::as_str).collect();
            let reads = read_paths(&roots, &args.analysis, None);
            target::refuse_input("-o", &input::os_path(&args.out), &paths(&reads))?;
            let config = crate::config::export_config(*args)?;
            crate::table::export::run(&config, err)
        }
        Some(Command::NoiseModel(args)) => {
            let runs: Vec<&str> = args.runs.iter().map(String::as_str).collect();
            let reads = read_paths(&runs, &args.analysis, None);
            if let Some(o) = &args.out {
                target::refuse_input("-o", &input::os_path(o), &paths(&reads))?;
            }
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
            if let Some(o) = &cli.report.output_file {
                let sides: Vec<&str> = [&cli.paths, &cli.old, &cli.new]
                    .into_iter()
                    .flatten()
                    .chain(&cli.table)
                    .map(String::as_str)
                    .collect();
                let reads = read_paths(&sides, &cli.analysis, Some(&cli.report));
                target::refuse_input("-O", &input::os_path(o), &paths(&reads))?;
            }
            let mut config = Config::from_cli(cli)?;
            let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
            config.render.color = use_color(
                config.color,
                terminal && config.output_file.is_none(),
                no_color_env(),
            );
            config.for_terminal(terminal);
            refuse_page(&config, terminal)?;
            run(&config, out, err)
        }
    }
}

/// `diffprofile history`: configured, then run into stdout or the `-O` file.
fn run_history(
    args: crate::cli::HistoryArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let root = args.root.as_deref().or(args.table.as_deref()).unwrap_or("");
    let given: Vec<&str> = std::iter::once(root).chain(args.order.as_deref()).collect();
    let reads = read_paths(&given, &args.analysis, Some(&args.report));
    if let Some(o) = &args.report.output_file {
        target::refuse_input("-O", &input::os_path(o), &paths(&reads))?;
    }
    let mut config = crate::history::HistoryConfig::from_args(args)?;
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
    if config.top.is_none() && terminal && config.config.output == OutputFormat::Text {
        config.top = Some(crate::config::TERMINAL_TOP);
    }
    refuse_page(&config.config, terminal)?;
    match &config.config.output_file {
        Some(path) => {
            let mut file = create(path)?;
            let code = crate::history::run(&config, &mut file, err);
            let code = file.named(code)?;
            file.finish()?;
            Ok(code)
        }
        None => crate::history::run(&config, out, err),
    }
}

/// Every file a command reads: its runs (`given`) and the files of its
/// flags (maps, run info, aliases, noise models), which no output may be.
fn read_paths<'a>(
    given: &[&'a str],
    a: &'a Analysis,
    report: Option<&'a ReportArgs>,
) -> Vec<&'a str> {
    let mut out: Vec<&str> = given.to_vec();
    let single = [
        &a.map,
        &a.old_map,
        &a.new_map,
        &a.kallsyms,
        &a.old_kallsyms,
        &a.new_kallsyms,
        &a.run_info,
        &a.alias,
    ];
    out.extend(single.into_iter().flatten().map(String::as_str));
    // Directories read for symbols and JIT maps: an output inside one
    // would replace a binary's debug file or a perf-PID.map, which cannot
    // be made again once the process has exited.
    out.extend(
        a.symfs
            .iter()
            .chain(&a.debug_dir)
            .chain(&a.jit_map_dir)
            .map(String::as_str),
    );
    out.extend(
        a.kallsyms_for
            .iter()
            .chain(&a.map_for)
            .map(|s| s.split_once('=').map_or(s.as_str(), |(_, f)| f)),
    );
    if let Some(r) = report {
        out.extend(
            r.noise_model
                .iter()
                .chain(&r.noise_from)
                .map(String::as_str),
        );
    }
    out
}

fn paths(list: &[&str]) -> Vec<std::path::PathBuf> {
    list.iter().map(|p| input::os_path(p)).collect()
}

/// More worker threads than this are not started: past a few per core
/// they only cost memory and switching (`--jobs 100000` would start
/// hundreds of threads and run for minutes).
pub fn jobs_cap() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores * 4).clamp(16, 1024)
}

/// `--jobs` above [`jobs_cap`] is lowered to it, said in a warning.
fn cap_jobs(cli: &mut Cli, err: &mut dyn Write) -> Result<()> {
    let analysis = match &mut cli.command {
        Some(Command::Batch(a)) => &mut a.analysis,
        Some(Command::Export(a)) => &mut a.analysis,
        Some(Command::History(a)) => &mut a.analysis,
        Some(Command::NoiseModel(a)) => &mut a.analysis,
        Some(Command::Man { .. } | Command::Completions { .. }) => return Ok(()),
        None => &mut cli.analysis,
    };
    let cap = jobs_cap();
    if let Some(n) = analysis.jobs.filter(|&n| n > cap) {
        writeln!(
            err,
            "diffprofile: warning: --jobs {n}: capped at {cap} worker threads \
             (4 per core, at least 16)"
        )?;
        analysis.jobs = Some(cap);
    }
    Ok(())
}

/// `-o html` or `-o flamegraph` to a terminal: a page of markup is no use
/// there, and writing a file the user did not name could replace one.
/// An error (exit 2) that says how to get the page: `-O FILE` or a
/// redirection; nothing is written.
pub fn refuse_page(config: &Config, stdout_is_terminal: bool) -> Result<()> {
    let (name, what, ext) = match config.output {
        OutputFormat::Html => ("html", "an HTML page", "html"),
        OutputFormat::Flamegraph => ("flamegraph", "an SVG image", "svg"),
        _ => return Ok(()),
    };
    if !stdout_is_terminal || config.output_file.is_some() {
        return Ok(());
    }
    anyhow::bail!(
        "-o {name}: not writing {what} to the terminal: give -O report.{ext} \
         or redirect stdout (> report.{ext})"
    )
}

/// The `-O` file, buffered. A name ending `.gz` gets the report
/// gzip-compressed (the name promises it); call [`ReportFile::finish`] to
/// complete it and put it in place (until then an older file at the path
/// is left as it was, see [`target::Output`]).
fn create(path: &str) -> Result<ReportFile> {
    let file = target::Output::create("-O", &input::os_path(path))?;
    let gz = std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let kind = if gz {
        ReportKind::Gzip(flate2::write::GzEncoder::new(
            file,
            flate2::Compression::default(),
        ))
    } else {
        ReportKind::Plain(file)
    };
    Ok(ReportFile {
        kind,
        path: path.to_string(),
        failed: false,
    })
}

/// The `-O` file as written; remembers a failed write, so that the error of
/// the run that wrote it can name the file.
struct ReportFile {
    kind: ReportKind,
    path: String,
    failed: bool,
}

/// Plain, or gzip for a name ending `.gz`.
enum ReportKind {
    Plain(target::Output),
    Gzip(flate2::write::GzEncoder<target::Output>),
}

impl ReportFile {
    /// Everything written out (the gzip trailer too) and put in place, or
    /// the write error, naming the file.
    fn finish(self) -> Result<()> {
        match self.kind {
            ReportKind::Plain(f) => f.commit(),
            ReportKind::Gzip(g) => g
                .finish()
                .map_err(anyhow::Error::from)
                .and_then(|f| f.commit()),
        }
        .with_context(|| format!("{}: cannot write the report", self.path))
    }

    /// `result`, the outcome of a run that wrote into the file: a failed
    /// write is said to be one, naming the file (other errors are the
    /// run's own).
    fn named<T>(&self, result: Result<T>) -> Result<T> {
        if self.failed {
            result.with_context(|| format!("{}: cannot write the report", self.path))
        } else {
            result
        }
    }
}

impl Write for ReportFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let done = match &mut self.kind {
            ReportKind::Plain(f) => f.write(buf),
            ReportKind::Gzip(g) => g.write(buf),
        };
        self.failed |= done.is_err();
        done
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let done = match &mut self.kind {
            ReportKind::Plain(f) => f.flush(),
            ReportKind::Gzip(g) => g.flush(),
        };
        self.failed |= done.is_err();
        done
    }
}

/// Does the environment ask for no colour: `NO_COLOR` set and not empty
/// (no-color.org), or `TERM=dumb` (a terminal that shows escapes as text)?
fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
        || std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// `--color`: `always` forces colour; `never` and `auto` off a terminal or
/// with `NO_COLOR` set or `TERM=dumb` ([`no_color_env`]) leave it out.
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
    global_jobs(config.jobs);
    let done = pool.install(|| build_report(config))?;
    let (report, flames) = (&done.report, done.flames.as_ref());
    if config.output == OutputFormat::Flamegraph {
        if let Some(why) = flames.and_then(|f| f.missing_reason()) {
            anyhow::bail!("-o flamegraph: {why}");
        }
    }
    match &config.output_file {
        Some(path) => {
            let mut file = create(path)?;
            let done = render::render(config.output, report, flames, &config.render, &mut file);
            file.named(done.map_err(anyhow::Error::from))?;
            file.finish()?;
        }
        None => {
            render::render(config.output, report, flames, &config.render, out)?;
            out.flush()?;
        }
    }
    if !matches!(config.output, OutputFormat::Text | OutputFormat::Markdown) {
        let fold = config.output == OutputFormat::Classic;
        for w in &report.warnings {
            render::text::write_stderr_warning(err, w, fold)?;
        }
    }
    let regressed = report.comparisons.iter().any(|c| c.regressions > 0);
    Ok(if config.fail_on_regression && regressed {
        writeln!(err, "diffprofile: {}", gate_sentence(report))?;
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
        render::text::write_stderr_warning(err, w, false)?;
    }
    let text = model.to_json()?;
    match &config.out {
        Some(path) => {
            let mut file = target::Output::create("-o", &input::os_path(path))?;
            file.write_all(text.as_bytes())
                .map_err(anyhow::Error::from)
                .and_then(|()| file.commit())
                .with_context(|| format!("{path}: cannot write the noise model"))?
        }
        None => out.write_all(text.as_bytes())?,
    }
    writeln!(
        err,
        "diffprofile: noise model of {} from {}{}",
        crate::text::plural(model.symbols.len() as u64, "symbol"),
        crate::text::plural(model.runs.len() as u64, "run"),
        config
            .out
            .as_deref()
            .map(|p| format!(" written to {p}"))
            .unwrap_or_default()
    )?;
    Ok(exit::SUCCESS)
}

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
                .filter(|r| r.significant() && r.delta > 0.0)
                .map(move |r| {
                    let at = if multi {
                        format!("{}: ", crate::text::side_name(side))
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
        .take(render::GATE_NAMED)
        .map(|s| s.1.as_str())
        .collect();
    render::gate_line(total, &named)
}
