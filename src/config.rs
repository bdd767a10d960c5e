//! Raw flags ([`crate::cli::Cli`]) → a validated [`Config`]: sides resolved
//! from positional paths or `--old`/`--new`, defaults that depend on other
//! flags resolved, regexes compiled, ranges checked, each side's kernel map
//! ([`maps`]). No I/O except reading the `--run-info` file and the maps.

mod maps;

use crate::aggregate::{self, Normalize, RunInfo};
pub use crate::batch::BatchConfig;
use crate::cli::{
    AdjustArg, Analysis, BatchArgs, Cli, FormatArg, NoiseModelArgs, NormalizeArg, OutputArg,
    PercentageArg, ReportArgs, SortArg, WeightArg,
};
pub use crate::compare::{Config, NoiseSpec, SideSpec};
use crate::diff::{DiffOptions, SortBy};
use crate::flame::FlameView;
use crate::format::filter::{CommFilter, PidFilter};
use crate::format::perf_data::UserSymbolOptions;
use crate::format::{ParseOptions, WeightBy};
use crate::identity::{AliasMap, GroupBy, Identity};
use crate::input;
use crate::layout::Layout;
use crate::load::LoadOptions;
use crate::profile::Format;
use crate::render::{OutputFormat, RenderOptions};
use crate::stats::Adjust;
use crate::symmap::{MapAdvice, SymbolMap};
use anyhow::{bail, Context, Result};
use regex::Regex;
use std::path::PathBuf;
use std::sync::Arc;

pub use crate::scope::KERNEL_ONLY_NOTE;

/// Rows of each sign text shows on a terminal when `--top` is not given.
pub const TERMINAL_TOP: usize = 25;

/// The format `-O FILE`'s extension implies, for when `-o` is not given
/// (the extension before a final `.gz`, which compresses it).
pub fn format_of_file(path: &str) -> Option<OutputArg> {
    let ext = report_extension(path)?;
    Some(match ext.as_str() {
        "html" | "htm" => OutputArg::Html,
        "svg" => OutputArg::Flamegraph,
        "json" => OutputArg::Json,
        "csv" => OutputArg::Csv,
        "md" | "markdown" => OutputArg::Markdown,
        "txt" | "text" => OutputArg::Text,
        _ => return None,
    })
}

/// The extension of a report file's name that says its format, lower
/// case: the last one, or the one before a final `.gz`.
fn report_extension(path: &str) -> Option<String> {
    let path = std::path::Path::new(path);
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    if ext != "gz" {
        return Some(ext);
    }
    let inner = std::path::Path::new(path.file_stem()?);
    Some(inner.extension()?.to_str()?.to_ascii_lowercase())
}

/// Extensions of formats no report is written in: a file so named would
/// hold text under a name that promises something else.
const FOREIGN_EXTENSIONS: &[&str] = &[
    "parquet", "pq", "arrow", "feather", "orc", "avro", "zst", "zstd", "xz", "lzma", "bz2", "lz4",
    "br", "zip", "tar", "tgz", "7z", "pdf", "png", "jpg", "jpeg", "xlsx", "xls", "xml", "yaml",
    "yml", "toml", "tsv", "data",
];

/// A file written in one format (`what`) refused when its name's
/// extension is another than `exts` (a name without one passes).
pub fn check_named_as(path: &str, flag: &str, what: &str, exts: &[&str]) -> Result<()> {
    if path == "-" {
        return Ok(());
    }
    let Some(ext) = std::path::Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
    else {
        return Ok(());
    };
    if !exts.contains(&ext.as_str()) {
        bail!(
            "{flag} {path}: this writes {what}, not .{ext}; name the file .{}",
            exts[0]
        );
    }
    Ok(())
}

/// `-O FILE`'s name checked against what is written there: refused when
/// its extension names a format no report is written in (`r.parquet`,
/// `r.zst`): the file would hold text under a name that promises another
/// format. A final `.gz` is honoured (the report is gzip-compressed); `-o`
/// still chooses the format over the extension.
pub fn check_report_file(path: &str) -> Result<()> {
    let formats = "text, classic, json, csv, markdown, html or flamegraph (-o), \
                   named .txt, .json, .csv, .md, .html or .svg, each optionally .gz";
    let Some(ext) = report_extension(path) else {
        return Ok(());
    };
    if FOREIGN_EXTENSIONS.contains(&ext.as_str()) {
        bail!("-O {path}: reports are not written as .{ext}; the report formats are {formats}");
    }
    Ok(())
}

fn regex(flag: &str, re: &Option<String>) -> Result<Option<Regex>> {
    re.as_deref()
        .map(|r| {
            Regex::new(r).map_err(|e| {
                anyhow::anyhow!(
                    "{flag} \"{}\": invalid regular expression: {}",
                    crate::text::printable(r),
                    crate::text::regex_error(&e)
                )
            })
        })
        .transpose()
}

/// The report's format: `-o`, else the `-O` file's extension, else text
/// (the `-O` file name checked first).
fn output_arg_of(cli: &Cli) -> Result<OutputArg> {
    if cli.report.output_file.as_deref() == Some("") {
        bail!("-O/--output-file needs a file name");
    }
    if let Some(path) = cli.report.output_file.as_deref().filter(|p| *p != "-") {
        check_report_file(path)?;
    }
    Ok(cli
        .report
        .output
        .or_else(|| cli.report.output_file.as_deref().and_then(format_of_file))
        .unwrap_or(OutputArg::Text))
}

/// `--table`'s counts table with the sides' texts and `--where`.
fn table_spec(cli: &Cli, sides: &[SideSpec]) -> Result<Option<crate::table::TableSpec>> {
    let Some(path) = &cli.table else {
        return Ok(None);
    };
    let texts: Vec<Vec<String>> = sides.iter().map(|s| s.paths.clone()).collect();
    Ok(Some(crate::table::TableSpec::new(
        path,
        &texts,
        cli.where_.as_deref(),
    )?))
}

/// `--run-info`'s file read and parsed (none: no run information).
fn run_info_of(cli: &Cli) -> Result<RunInfo> {
    let Some(path) = &cli.run_info else {
        return Ok(RunInfo::default());
    };
    let text = std::fs::read_to_string(input::os_path(path))
        .with_context(|| format!("{path}: cannot read --run-info file"))?;
    aggregate::parse_run_info(input::strip_bom(&text), path)
}

impl Config {
    pub fn from_cli(cli: Cli) -> Result<Config> {
        let sides = resolve_sides(&cli)?;
        let output_arg = output_arg_of(&cli)?;
        let table = table_spec(&cli, &sides)?;
        check_ranges(&cli, &sides)?;
        let normalize = normalize_of(cli.normalize, output_arg);
        let run_info = run_info_of(&cli)?;
        let mut notes = Vec::new();
        let weight = read_notes(&cli, &mut notes);
        let identity = identity(&cli, &mut notes)?;
        let relative = cli.percentage == PercentageArg::Relative;
        if relative {
            notes.push(percentage_note(normalize, cli.inclusive));
        }
        let (comm, pid) = process_filters(&cli)?;
        let parse = ParseOptions {
            event: cli.event.clone(),
            lenient: cli.lenient,
            weight,
            inclusive: cli.inclusive,
            kernel_only: cli.kernel_only,
            comm,
            pid,
            dso: regex("--dso", &cli.dso)?,
            map: read_map("--map", &cli.map)?,
            kallsyms: read_map("--kallsyms", &cli.kallsyms)?,
            map_origin: None,
            beside: None,
            advice: MapAdvice::default(),
            user: user_symbols(&cli)?,
            force_map: cli.force_map,
            stacks: matches!(output_arg, OutputArg::Html | OutputArg::Flamegraph),
        };
        let side_maps = maps::side_maps(&cli, &sides)?;
        let format = format_of(cli.format);
        let diff = diff_options(&cli.report, normalize);
        let noise = noise_spec(&cli.report)?;
        let output = output_of(output_arg);
        Ok(Config {
            sides,
            load: LoadOptions {
                format,
                parse,
                path_maps: side_maps.maps,
                path_advice: side_maps.advice,
            },
            diff,
            output,
            render: RenderOptions {
                wide: cli.report.wide,
                ..RenderOptions::default()
            },
            run_info,
            jobs: cli.jobs,
            fail_on_regression: cli.report.fail_on_regression,
            allow_duplicates: cli.allow_duplicates,
            color: cli.report.color,
            identity,
            relative,
            notes,
            noise,
            // `-O -` is stdout, as every other `-` of the command line.
            output_file: cli.report.output_file.clone().filter(|p| p != "-"),
            top_given: cli.report.top.is_some(),
            flame: FlameView {
                kernel_only: cli.kernel_only,
                merge_roots: cli.report.flame_merge_roots,
                reverse: cli.report.flame_reverse,
                relative,
            },
            table,
        })
    }

    /// Text going to a terminal without `--top`: [`TERMINAL_TOP`] rows of
    /// each sign, said in the report (a pipe or a file gets every row).
    pub fn for_terminal(&mut self, stdout_is_terminal: bool) {
        let to_terminal = stdout_is_terminal && self.output_file.is_none();
        if to_terminal && self.output == OutputFormat::Text && !self.top_given {
            self.diff.top = Some(TERMINAL_TOP);
            self.render.auto_top = Some(TERMINAL_TOP);
        }
    }
}

/// The ranges and counts `from_cli` checks before reading anything.
fn check_ranges(cli: &Cli, sides: &[SideSpec]) -> Result<()> {
    if !(cli.report.alpha > 0.0 && cli.report.alpha < 1.0) {
        bail!("--alpha {}: {}", cli.report.alpha, crate::cli::ALPHA_RANGE);
    }
    if let Some(c) = cli.report.noise_cv {
        if !(c >= 0.0 && c.is_finite()) {
            bail!("--noise-cv must be a non-negative fraction such as 0.05, not {c}");
        }
    }
    if !(cli.report.min_delta >= 0.0 && cli.report.min_delta.is_finite()) {
        bail!(
            "--min-delta must be a non-negative number, not {}",
            cli.report.min_delta
        );
    }
    if cli.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    let stdin_uses = sides
        .iter()
        .flat_map(|s| &s.paths)
        .filter(|p| *p == "-")
        .count();
    if stdin_uses > 1 {
        bail!("stdin (-) can be named only once");
    }
    Ok(())
}

/// `--comm` and `--pid`, parsed.
fn process_filters(cli: &Cli) -> Result<(Option<CommFilter>, Option<PidFilter>)> {
    let comm = cli.comm.as_deref().map(CommFilter::parse).transpose();
    let pid = cli.pid.as_deref().map(PidFilter::parse).transpose();
    Ok((
        comm.map_err(anyhow::Error::msg)?,
        pid.map_err(anyhow::Error::msg)?,
    ))
}

/// `-n`, or its default: ticks for `-o classic`, shares otherwise.
/// The header's note of `--percentage relative`: it re-bases shares, so
/// in any other unit (`-o classic`'s mean ticks) it changes nothing, said.
/// Under `--inclusive` the base is the samples whose own (leaf) symbol
/// the filters keep, each counted once, as without it: a caller's share
/// may then pass 100%.
fn percentage_note(normalize: Normalize, inclusive: bool) -> String {
    match normalize {
        Normalize::Share if inclusive => "percentage: relative (shares re-based on the samples \
             the filters kept, each counted once, by its own symbol: a caller's share may pass \
             100%)"
            .to_string(),
        Normalize::Share => {
            "percentage: relative (shares re-based on the samples the filters kept)".to_string()
        }
        other => format!(
            "percentage: relative changes nothing: it re-bases shares, and the unit here is {} \
             (-n {})",
            other.unit(),
            other.name()
        ),
    }
}

fn normalize_of(n: Option<NormalizeArg>, output: OutputArg) -> Normalize {
    match n {
        Some(n) => match n {
            NormalizeArg::Share => Normalize::Share,
            NormalizeArg::Ticks => Normalize::Ticks,
            NormalizeArg::Rate => Normalize::Rate,
            NormalizeArg::Work => Normalize::Work,
            NormalizeArg::Robust => Normalize::Robust,
        },
        None if output == OutputArg::Classic => Normalize::Ticks,
        None => Normalize::Share,
    }
}

/// `--weight`, with the header notes of how runs are read and filtered.
fn read_notes(cli: &Cli, notes: &mut Vec<String>) -> WeightBy {
    let weight = match cli.weight {
        WeightArg::Samples => WeightBy::Samples,
        WeightArg::Period => {
            notes.push("weight: sample periods (--weight period)".to_string());
            WeightBy::Period
        }
    };
    if cli.inclusive {
        notes.push(
            "inclusive: every distinct symbol of a callchain counted once per sample".to_string(),
        );
    }
    if cli.kernel_only && cli.percentage == PercentageArg::Relative {
        notes.push(crate::scope::KERNEL_ONLY_RELATIVE_NOTE.to_string());
    } else if cli.kernel_only {
        notes.push(KERNEL_ONLY_NOTE.to_string());
    }
    if let Some(c) = &cli.comm {
        notes.push(format!(
            "filter: --comm {c} (a sample filter: the data, and the noise learned from them, are the matching samples only)"
        ));
    }
    if let Some(p) = &cli.pid {
        notes.push(format!("filter: --pid {p} (and the processes they forked)"));
    }
    if let Some(d) = &cli.dso {
        notes.push(format!(
            "filter: --dso {d} (a sample filter: the data, and the noise learned from them, are the matching samples only)"
        ));
    }
    weight
}

/// `-f`: a format, or detection.
fn format_of(f: FormatArg) -> Option<Format> {
    match f {
        FormatArg::Auto => None,
        FormatArg::Readprofile => Some(Format::Readprofile),
        FormatArg::PerfReport => Some(Format::PerfReport),
        FormatArg::PerfScript => Some(Format::PerfScript),
        FormatArg::Folded => Some(Format::Folded),
        FormatArg::Opreport => Some(Format::Opreport),
        FormatArg::ProcProfile => Some(Format::ProcProfile),
        FormatArg::PerfData => Some(Format::PerfData),
    }
}

/// `-o`.
fn output_of(o: OutputArg) -> OutputFormat {
    match o {
        OutputArg::Text => OutputFormat::Text,
        OutputArg::Classic => OutputFormat::Classic,
        OutputArg::Json => OutputFormat::Json,
        OutputArg::Csv => OutputFormat::Csv,
        OutputArg::Markdown => OutputFormat::Markdown,
        OutputArg::Html => OutputFormat::Html,
        OutputArg::Flamegraph => OutputFormat::Flamegraph,
    }
}

/// How rows are tested, sorted and cut.
fn diff_options(report: &ReportArgs, normalize: Normalize) -> DiffOptions {
    DiffOptions {
        normalize,
        sort: match report.sort {
            SortArg::Delta => SortBy::Delta,
            SortArg::Impact => SortBy::Impact,
            SortArg::Ratio => SortBy::Ratio,
            SortArg::Name => SortBy::Name,
        },
        top: report.top,
        min_delta: report.min_delta,
        alpha: report.alpha,
        adjust: match report.adjust {
            AdjustArg::Bh => Adjust::Bh,
            AdjustArg::By => Adjust::By,
            AdjustArg::Holm => Adjust::Holm,
        },
        noise_cv: report.noise_cv,
        noise_model: None,
        model_scope: crate::diff::ModelScope::All,
    }
}

/// `--noise-model FILE` or `--noise-from RUNS…`.
fn noise_spec(report: &ReportArgs) -> Result<Option<NoiseSpec>> {
    Ok(match (&report.noise_model, report.noise_from.as_slice()) {
        (Some(path), _) => Some(NoiseSpec::File(path.clone())),
        (None, []) => None,
        (None, runs) if runs.len() < 3 && !runs.iter().any(|r| is_container(r)) => bail!(
            "--noise-from needs at least 3 replicate runs of one kernel, got {}",
            runs.len()
        ),
        (None, runs) => Some(NoiseSpec::Runs(runs.to_vec())),
    })
}

impl BatchConfig {
    pub fn from_args(args: BatchArgs) -> Result<BatchConfig> {
        let layout = Layout::parse(&args.layout)?;
        if args.analysis.pid.is_some() {
            bail!(PID_ONE_COMPARISON);
        }
        if args.baseline.is_empty() || args.baseline.contains('/') {
            bail!(
                "--baseline must be one kernel name (a path component), not {:?}",
                args.baseline
            );
        }
        let mut config = Config::from_analysis(args.analysis, args.report)?;
        // Each kernel of the tree gets its map from its own directory.
        config.load.parse.advice = MapAdvice::Beside;
        if config.output_file.is_some() && args.out_dir.is_some() {
            bail!("give either --out-dir DIR (a report per benchmark) or -O FILE (one report), not both");
        }
        if config.output == OutputFormat::Flamegraph && args.out_dir.is_none() {
            bail!("batch -o flamegraph writes one SVG per benchmark: give --out-dir DIR");
        }
        Ok(BatchConfig {
            root: args.root,
            baseline: args.baseline,
            layout,
            out_dir: args.out_dir.as_deref().map(input::os_path),
            config,
        })
    }
}

impl crate::history::HistoryConfig {
    /// `diffprofile history`: the root (or `--table`), layout, order,
    /// selector and what to show; the analysis validated as for `batch`.
    pub fn from_args(args: crate::cli::HistoryArgs) -> Result<crate::history::HistoryConfig> {
        use crate::history::order::{self, Order};
        let layout = Layout::parse(&args.layout)?;
        let root = match (&args.root, &args.table) {
            (Some(r), None) => r.clone(),
            (None, Some(t)) => t.clone(),
            _ => bail!("give the results as ROOT or as --table FILE, not both"),
        };
        let select = args
            .where_
            .as_deref()
            .map(|w| crate::table::select::Selector::parse(w, "--where"))
            .transpose()?;
        let order = match (&args.order, &args.order_by) {
            (Some(path), _) => {
                let text = std::fs::read_to_string(input::os_path(path))
                    .with_context(|| format!("{path}: cannot read the --order file"))?;
                Order::File {
                    path: path.clone(),
                    kernels: order::parse_order_file(&text, path)?,
                }
            }
            (None, Some(col)) => Order::Column {
                name: col.clone(),
                rank: crate::history::order_by::kernels_by(&root, col)?,
            },
            (None, None) => Order::Version,
        };
        let symbols = regex("--symbol", &args.symbol)?;
        let top = args.report.top;
        let mut config = Config::from_analysis(args.analysis, args.report)?;
        config.load.parse.advice = MapAdvice::Beside;
        if config.output == OutputFormat::Flamegraph || config.output == OutputFormat::Classic {
            bail!("history writes text, json, csv, markdown or html (-o)");
        }
        Ok(crate::history::HistoryConfig {
            root,
            layout,
            order,
            select,
            symbols,
            first_bad: args.first_bad,
            top,
            config,
        })
    }
}

impl Config {
    /// The analysis flags alone (for `batch`): validated as for a comparison,
    /// with no sides.
    pub fn from_analysis(analysis: Analysis, report: ReportArgs) -> Result<Config> {
        let given = maps::per_side_flags(&analysis);
        if !given.is_empty() {
            bail!(
                "{}: this command has no OLD and NEW sides; give every run's kernel map with \
                 --kallsyms FILE (or --map FILE), or put each kernel's map beside its runs \
                 (kallsyms or System.map in its directory)",
                given.join(", ")
            );
        }
        let cli = Cli {
            command: None,
            paths: Vec::new(),
            old: vec!["baseline".to_string()],
            new: vec!["kernel".to_string()],
            table: None,
            where_: None,
            analysis,
            report,
        };
        let mut config = Config::from_cli(cli)?;
        config.sides.clear();
        Ok(config)
    }
}

/// `diffprofile noise-model`: the runs, where the model goes, and how the
/// runs are read (a [`Config`] whose only side is the replicate runs).
#[derive(Clone, Debug)]
pub struct NoiseModelConfig {
    pub out: Option<String>,
    pub config: Config,
}

impl NoiseModelConfig {
    pub fn from_args(args: NoiseModelArgs) -> Result<NoiseModelConfig> {
        use clap::{Args, FromArgMatches};
        let defaults = ReportArgs::augment_args(clap::Command::new("noise-model"))
            .try_get_matches_from(["noise-model"])
            .and_then(|m| ReportArgs::from_arg_matches(&m))
            .context("default report flags")?;
        if let Some(out) = &args.out {
            check_named_as(out, "-o", "a noise model in JSON", &["json"])?;
        }
        let mut config = Config::from_analysis(args.analysis, defaults)?;
        config.sides = vec![SideSpec {
            name: "replicates".to_string(),
            paths: args.runs,
        }];
        Ok(NoiseModelConfig {
            out: args.out.filter(|o| o != "-"),
            config,
        })
    }
}

/// `diffprofile export`: the trees, the output, the layout, the shard, and
/// how runs are read and named (a [`Config`] with no sides).
/// Refuse export roots that name one tree twice (`tree tree`, `tree
/// ./tree`, a link to it) or a tree and a part of it: every run below
/// both would be a row group of the table twice, and an engine's
/// sum over runs would count it twice.
fn overlapping_roots(roots: &[String]) -> Result<()> {
    let real: Vec<(&String, std::path::PathBuf)> = roots
        .iter()
        .filter_map(|r| Some((r, std::fs::canonicalize(input::os_path(r)).ok()?)))
        .collect();
    for (i, (a, pa)) in real.iter().enumerate() {
        for (b, pb) in &real[i + 1..] {
            let what = if pa == pb {
                "the same tree"
            } else if pa.starts_with(pb) || pb.starts_with(pa) {
                "one inside the other"
            } else {
                continue;
            };
            bail!(
                "export: the roots {a} and {b} are {what}: its runs would be in the table twice; \
                 give each tree once"
            );
        }
    }
    Ok(())
}

pub fn export_config(args: crate::cli::ExportArgs) -> Result<crate::table::ExportConfig> {
    use clap::{Args, FromArgMatches};
    let layout = Layout::parse(&args.layout)?;
    if args.analysis.pid.is_some() {
        bail!(PID_ONE_COMPARISON);
    }
    let shard = args
        .shard
        .as_deref()
        .map(crate::table::Shard::parse)
        .transpose()?;
    check_named_as(&args.out, "-o", "a Parquet table", &["parquet", "pq"])?;
    overlapping_roots(&args.roots)?;
    if args.analysis.normalize.is_some() || args.analysis.percentage != PercentageArg::Absolute {
        bail!("export writes counts: -n and --percentage apply when a comparison reads them");
    }
    if args.analysis.allow_duplicates {
        bail!(
            "export writes every run as it is; --allow-duplicates applies when a comparison \
             reads them (give it to batch or --table)"
        );
    }
    let defaults = ReportArgs::augment_args(clap::Command::new("export"))
        .try_get_matches_from(["export"])
        .and_then(|m| ReportArgs::from_arg_matches(&m))
        .context("default report flags")?;
    let mut config = Config::from_analysis(args.analysis, defaults)?;
    config.load.parse.advice = MapAdvice::Beside;
    Ok(crate::table::ExportConfig {
        roots: args.roots,
        out: args.out,
        layout,
        shard,
        jobs: config.jobs,
        // Read whole: `--kernel-only` removes the other rows by placement
        // (kept in the table as removed, so a comparison of it learns the
        // noise from them).
        load: crate::compare::reading(&config.load),
        identity: config.identity,
        run_info: config.run_info,
        notes: config.notes,
    })
}

/// Whether a path names several runs (a directory or an archive) rather
/// than one: then the run count is known only once it is read.
fn is_container(path: &str) -> bool {
    input::os_path(path).is_dir()
        || [".tar", ".tar.gz", ".tgz", ".tar.zst", ".tar.xz", ".tar.bz2"]
            .iter()
            .any(|ext| path.ends_with(ext))
}

/// Positional `OLD NEW [NEW2…]` (each one side) or `--old … --new …`.
fn resolve_sides(cli: &Cli) -> Result<Vec<SideSpec>> {
    let flagged = !cli.old.is_empty() || !cli.new.is_empty();
    if flagged {
        if cli.old.is_empty() || cli.new.is_empty() {
            let (given, missing) = if cli.old.is_empty() {
                ("--new", "--old")
            } else {
                ("--old", "--new")
            };
            if !cli.paths.is_empty() {
                bail!(
                    "{given} with positional path(s) ({}): give the sides either as OLD NEW or as \
                     --old PATH... --new PATH..., not mixed",
                    cli.paths.join(" ")
                );
            }
            bail!(
                "{given} without {missing}: give both (--old PATH... --new PATH...; each takes \
                 every path after it up to the next flag)"
            );
        }
        if !cli.paths.is_empty() {
            bail!(
                "give the sides either as OLD NEW or with --old/--new, not both (stray: {})",
                cli.paths.join(" ")
            );
        }
        return Ok(vec![
            SideSpec {
                name: "old".into(),
                paths: cli.old.clone(),
            },
            SideSpec {
                name: "new".into(),
                paths: cli.new.clone(),
            },
        ]);
    }
    match cli.paths.len() {
        0 | 1 => bail!(
            "need two profiles to compare: diffprofile OLD NEW (or --old PATH... --new PATH...)"
        ),
        n => Ok(cli
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| SideSpec {
                name: match (i, n) {
                    (0, _) => "old".to_string(),
                    (1, 2) => "new".to_string(),
                    (i, _) => format!("new{i}"),
                },
                paths: vec![p.clone()],
            })
            .collect()),
    }
}

/// Why `batch` and `export` refuse `--pid`.
const PID_ONE_COMPARISON: &str = "--pid names processes of one comparison's recordings; a \
     results tree's kernels ran their workloads as other processes: keep the workload with \
     --comm NAME";

/// The header's statement of `--by-name`.
pub const BY_NAME_NOTE: &str =
    "symbols matched by name alone across binaries (--by-name, as perf diff --sort sym)";

/// Suffix folding, aliases, grouping and symbol filters, with the header
/// statement of each.
fn identity(cli: &Cli, notes: &mut Vec<String>) -> Result<Identity> {
    let aliases = match &cli.alias {
        Some(path) => {
            let text = std::fs::read_to_string(input::os_path(path))
                .with_context(|| format!("{path}: cannot read --alias file"))?;
            notes.push(format!("aliases: {path}"));
            AliasMap::parse(input::strip_bom(&text), path)?
        }
        None => AliasMap::default(),
    };
    let group = cli.group_by.as_deref().map(GroupBy::parse).transpose()?;
    if let Some(g) = &group {
        notes.push(format!("rows grouped by {}", g.describe()));
    }
    if cli.keep_suffixes {
        notes.push("clone suffixes kept (--keep-suffixes)".to_string());
    }
    if let Some(re) = &cli.include {
        notes.push(format!("filter: symbols matching --include {re}"));
    }
    if let Some(re) = &cli.exclude {
        notes.push(format!("filter: symbols not matching --exclude {re}"));
    }
    if cli.exclude_idle {
        notes.push("filter: idle loop excluded (--exclude-idle)".to_string());
    }
    if cli.by_name {
        notes.push(BY_NAME_NOTE.to_string());
    }
    Ok(Identity {
        fold: !cli.keep_suffixes,
        aliases,
        group,
        include: regex("--include", &cli.include)?,
        exclude: regex("--exclude", &cli.exclude)?,
        exclude_idle: cli.exclude_idle,
        idle_names: Default::default(),
        kernel_only: cli.kernel_only,
        by_name: cli.by_name,
        placed: None,
    })
}

/// Where perf.data finds user-space names: `--symfs`, `--debug-dir`,
/// `--jit-map-dir` (each must be a directory), `--no-demangle`, and perf's
/// build-id cache (`$PERF_BUILDID_DIR`, else `$HOME/.debug`).
fn user_symbols(cli: &Cli) -> Result<UserSymbolOptions> {
    let dir = |flag: &str, d: &str| -> Result<PathBuf> {
        let p = input::os_path(d);
        if !p.is_dir() {
            bail!("{flag} {d}: not a directory");
        }
        Ok(p)
    };
    let dirs = |flag: &str, v: &[String]| -> Result<Vec<PathBuf>> {
        v.iter().map(|d| dir(flag, d)).collect()
    };
    let buildid_dir = std::env::var_os("PERF_BUILDID_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".debug")));
    Ok(UserSymbolOptions {
        symfs: cli
            .symfs
            .as_deref()
            .map(|d| dir("--symfs", d))
            .transpose()?,
        debug_dirs: dirs("--debug-dir", &cli.debug_dir)?,
        buildid_dir,
        jit_map_dirs: dirs("--jit-map-dir", &cli.jit_map_dir)?,
        no_demangle: cli.no_demangle,
    })
}

/// Read a `--map`-style symbol map file.
fn read_map(flag: &str, path: &Option<String>) -> Result<Option<Arc<SymbolMap>>> {
    path.as_deref()
        .map(|p| {
            SymbolMap::read_path(p)
                .with_context(|| format!("{flag} {p}"))
                .map(Arc::new)
        })
        .transpose()
}
