//! The command line as clap parses it: flags only, no I/O and no cross-flag
//! checks (those live in [`crate::config`]).

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The end of `-h`, which lists the common flags only.
pub const SHORT_FOOTER: &str = "\
Inputs: perf.data, /proc/profile images, readprofile, perf report, perf script,
folded, opreport. --help lists every option, with examples.";

/// The examples at the end of `--help`.
pub const EXAMPLES: &str = "\
Examples:
  # perf.data of two kernels, one directory each with the kallsyms saved on
  # that kernel beside its runs; the workload's own samples, re-based:
  diffprofile v6.8/ v6.9/ --comm sched-messaging --percentage relative --top 8

  # Four readprofile dumps per kernel, one directory each; the 6 largest
  # changes of each sign, with the rest summed:
  diffprofile results/v6.8/pipes/ results/v6.9-rc1/pipes/ --top 6

  # perf script with callchains (perf record -g), three runs per kernel: an
  # HTML report with a differential flame graph of the kernel's frames:
  diffprofile --old old/run{1,2,3}.txt.gz --new new/run{1,2,3}.txt.gz \\
      --kernel-only -O report.html

  # Every benchmark of a results tree, each kernel against v6.8, as markdown
  # for a pull request:
  diffprofile batch results.tar.zst --baseline v6.8 -o markdown -O report.md";

#[derive(Parser, Debug, Clone)]
#[command(
    name = "diffprofile",
    version,
    about = "Where did the time go between two kernels? A noise-aware profile diff.",
    long_about = "Reads per-symbol profiles of an OLD and a NEW kernel, one or more runs each: \
perf.data files (read directly, no perf needed), raw /proc/profile images, readprofile dumps, \
perf report tables, perf script samples, folded stacks, opreport. Prints a signed ranking: + got \
worse in NEW, - got better, with a total row. Each change is tested against sampling and \
run-to-run noise: * marks a significant change, ~ one within noise.",
    after_help = SHORT_FOOTER,
    after_long_help = EXAMPLES,
    max_term_width = 80,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// `batch`: a results tree or archive of many kernels and benchmarks.
    /// (A profile literally named `batch` is given as `./batch`.)
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Profiles: OLD NEW [NEW2 ...], each a file, directory of runs, tar archive or -.
    ///
    /// A directory: every file below is one run; a tar archive: every member is one run;
    /// compressed or not; - for stdin.
    #[arg(value_name = "PATH", help_heading = INPUTS, display_order = 0)]
    pub paths: Vec<String>,

    /// Runs of the OLD (baseline) side.
    #[arg(long, num_args = 1.., value_name = "PATH", help_heading = INPUTS)]
    pub old: Vec<String>,

    /// Runs of the NEW side.
    #[arg(long, num_args = 1.., value_name = "PATH", help_heading = INPUTS)]
    pub new: Vec<String>,

    /// Read the runs from a counts table (a Parquet file written by `diffprofile export`, or a
    /// directory of them as an engine writes); each side is then a selector of its runs,
    /// `column=value` terms joined by `,` (kernel, benchmark, run, source, format, event).
    #[arg(hide_short_help = true, long, value_name = "TABLE", help_heading = INPUTS)]
    pub table: Option<String>,

    /// With --table: only runs this selector also accepts (e.g. 'benchmark=hackbench').
    #[arg(hide_short_help = true, long = "where", value_name = "SELECTOR", requires = "table", help_heading = INPUTS)]
    pub where_: Option<String>,

    #[command(flatten)]
    pub analysis: Analysis,

    #[command(flatten)]
    pub report: ReportArgs,
}

/// Subcommands; without one, `diffprofile OLD NEW…` compares profiles.
#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Compare each kernel with a baseline, per benchmark of a results tree.
    ///
    /// The tree is a directory or a tar archive, laid out as ROOT/<kernel>/<benchmark>/....
    #[command(
        long_about = "Reads a results tree (a directory, or a tar archive: plain, gz, zst, xz; read in \
place, never extracted) laid out as ROOT/<kernel>/<benchmark>/... by default. Every profile file \
below ROOT/<kernel>/<benchmark>/ is one run of that kernel for that benchmark. For each benchmark \
every kernel is compared against the baseline kernel. With --out-dir: one report per benchmark \
(<bench>.<ext>) plus an index ranking the largest significant regressions across benchmarks; \
without it, one section per benchmark on stdout.",
        after_help = "Examples:\n  diffprofile batch results/ --baseline v6.1\n  diffprofile batch results.tar.zst --baseline v6.1 --layout '{bench}/{kernel}/**' -o json\n  diffprofile batch results.tar.gz --baseline v6.1 --out-dir reports/ -o markdown"
    )]
    Batch(Box<BatchArgs>),
    /// Where did each symbol's cost change along a series of kernels?
    ///
    /// Per benchmark of a results tree, archive or counts table: the steps in every symbol's
    /// series of kernels, tested, ranked by size.
    #[command(
        long_about = "Reads a results tree as batch does (a directory, a tar archive or a counts \
table; --layout) and, per benchmark, puts its kernels in order (version-aware by default: v6.9 < \
v6.10, 6.8-rc1 < 6.8-rc7 < 6.8; --order FILE; --order-by COLUMN of a table), segments every \
symbol's series of kernels and tests each step with the count model of a comparison: runs of a \
kernel, and kernels of one segment, are replicates; dispersions are moderated across symbols; the \
false discovery rate is controlled over the candidate steps of all symbols of the benchmark, in \
rounds (the whole series first, then the segments a significant step opens); a slow drift is not \
a step (docs/statistics.md, section 14). Prints the steps ranked by |delta|, each \
with the kernel before and the first kernel after it, the levels, an interval, p and q, and a \
sparkline of the symbol's level per kernel.",
        after_help = "Examples:\n  diffprofile history results/\n  diffprofile history results.tar.zst --first-bad --symbol '^fput$'\n  diffprofile history --table counts.parquet --where benchmark=hackbench -o json\n  diffprofile history results/ --order kernels.txt -O history.html"
    )]
    History(Box<HistoryArgs>),
    /// Learn run-to-run noise from 3 or more runs of one kernel.
    ///
    /// The model lets later comparisons judge noise with one run per side.
    #[command(
        long_about = "Learns each symbol's run-to-run noise from 3 or more replicate runs of one kernel \
(any input format; filters, identity options and normalisation as for a comparison) and writes it \
as a versioned JSON noise model. A later comparison given --noise-model FILE judges noise with it, \
so that one run per side is enough: measure the baseline's noise once, then compare each patch \
with one run (docs/statistics.md, section 5.3).",
        after_help = "Examples:\n  diffprofile noise-model base/run1 base/run2 base/run3 -o base.noise.json\n  diffprofile --noise-model base.noise.json base/run1 patched/run1"
    )]
    NoiseModel(Box<NoiseModelArgs>),
    /// Write results trees as one counts table (Parquet) for engines.
    ///
    /// Every run becomes rows of one long table that DuckDB, Spark or Trino query.
    #[command(
        long_about = "Reads results trees (directories or tar archives laid out as for batch; every \
input format; filters and identity options applied) and writes every run as rows of one long \
table, kernel, benchmark, run, source, format, event, symbol, dso, count, run_total and run \
metadata, as Parquet (zstd) for DuckDB, Spark, Trino. Streams: memory does not grow with the \
archive. --shard K/N writes every N-th run group (kernel and benchmark) only, so N machines \
export one archive in parallel. The table is read back with --table or by batch.",
        after_help = "Examples:\n  diffprofile export results.tar.zst -o counts.parquet\n  diffprofile export results/ --shard $((SLURM_ARRAY_TASK_ID))/8 -o counts-$SLURM_ARRAY_TASK_ID.parquet\n  diffprofile --table counts.parquet --old kernel=v6.1 --new kernel=v6.2 --where benchmark=hackbench\n  diffprofile batch counts.parquet --baseline v6.1"
    )]
    Export(Box<ExportArgs>),
    /// Write the 7 man pages (diffprofile.1 and one per subcommand).
    ///
    /// They are generated from this command line: diffprofile.1, diffprofile-batch.1,
    /// -history.1, -noise-model.1, -export.1, -man.1 and -completions.1.
    Man {
        /// Directory to write the 7 pages into (without it, only diffprofile.1, to stdout).
        #[arg(long, value_name = "DIR")]
        out_dir: Option<String>,
    },
    /// Print a shell completion script.
    ///
    /// For bash, zsh, fish, elvish or powershell, to stdout.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

pub use crate::render::ColorArg;

/// `diffprofile batch ROOT --baseline KERNEL …`.
#[derive(Args, Debug, Clone)]
pub struct BatchArgs {
    /// The results tree: a directory or a tar archive (plain, gz, zst, xz).
    #[arg(value_name = "ROOT")]
    pub root: String,

    /// The kernel every other kernel is compared against (a {kernel} value of the layout).
    #[arg(long, value_name = "KERNEL")]
    pub baseline: String,

    /// Where kernel and benchmark sit in member paths: `/`-separated components, each
    /// `{kernel}`, `{bench}`, `*` (any one component) or a fixed word; a final `**` takes
    /// every file below (else the last component is the file).
    #[arg(long, value_name = "PATTERN", default_value = "{kernel}/{bench}/**")]
    pub layout: String,

    /// Write one report per benchmark (<bench>.<ext>) and an index here instead of stdout.
    ///
    /// Write <bench>.<ext> per benchmark and index.<ext> into DIR (created if need be).
    /// One batch writes DIR at a time (a second is refused); the reports an earlier run of
    /// the same format wrote there that this one does not (benchmarks gone from the tree)
    /// are removed and named, other report files are named and left.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<String>,

    #[command(flatten)]
    pub analysis: Analysis,

    #[command(flatten)]
    pub report: ReportArgs,
}

/// `diffprofile history ROOT …`.
#[derive(Args, Debug, Clone)]
pub struct HistoryArgs {
    /// The results tree: a directory, a tar archive (plain, gz, zst, xz) or a counts table.
    #[arg(value_name = "ROOT", required_unless_present = "table")]
    pub root: Option<String>,

    /// Read the runs from this counts table (instead of ROOT).
    #[arg(long, value_name = "TABLE", conflicts_with = "root")]
    pub table: Option<String>,

    /// Only runs this selector accepts (column=value terms joined by `,`; on a tree only
    /// kernel and benchmark).
    #[arg(long = "where", value_name = "SELECTOR")]
    pub where_: Option<String>,

    /// Where kernel and benchmark sit in member paths (as for batch).
    #[arg(long, value_name = "PATTERN", default_value = "{kernel}/{bench}/**")]
    pub layout: String,

    /// The kernels' order: one kernel a line, each one of the results' (others are left out, and said) [default: version order].
    #[arg(long, value_name = "FILE", conflicts_with = "order_by")]
    pub order: Option<String>,

    /// With a counts table: order kernels by this column's value (numbers numerically).
    #[arg(long, value_name = "COLUMN")]
    pub order_by: Option<String>,

    /// The full series of the symbols this regex matches: per kernel, runs, mean, interval.
    #[arg(long, value_name = "REGEX")]
    pub symbol: Option<String>,

    /// Per significant step: the first bad kernel, and what was not measured before it.
    #[arg(long)]
    pub first_bad: bool,

    #[command(flatten)]
    pub analysis: Analysis,

    #[command(flatten)]
    pub report: ReportArgs,
}

/// `diffprofile export ROOT… -o FILE`.
#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// Results trees: directories or tar archives (plain, gz, zst, xz).
    #[arg(value_name = "ROOT", required = true)]
    pub roots: Vec<String>,

    /// The Parquet file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub out: String,

    /// Where kernel and benchmark sit in member paths (as for batch).
    #[arg(long, value_name = "PATTERN", default_value = "{kernel}/{bench}/**")]
    pub layout: String,

    /// Export only every N-th run group, starting with the K-th (1 <= K <= N), numbered in the
    /// order they are met: N processes given the same ROOTs write disjoint tables whose union
    /// is the whole export.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,

    #[command(flatten)]
    pub analysis: Analysis,
}

/// `diffprofile noise-model RUNS… -o FILE`.
#[derive(Args, Debug, Clone)]
pub struct NoiseModelArgs {
    /// Replicate runs of one kernel (files, directories of runs, archives): 3 or more.
    #[arg(value_name = "RUNS", required = true)]
    pub runs: Vec<String>,

    /// Where to write the model (JSON) [default: stdout].
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub out: Option<String>,

    #[command(flatten)]
    pub analysis: Analysis,
}

/// Help sections (`--help` groups the flags under these headings, in the
/// order their first flag is defined: Inputs, Statistics, Filters and
/// identity, Output).
pub const INPUTS: &str = "Inputs";
pub const FILTERS: &str = "Filters and identity";
pub const STATISTICS: &str = "Statistics";
pub const OUTPUT: &str = "Output";

/// What is tested and reported: shared by a comparison and `batch`.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = OUTPUT)]
pub struct ReportArgs {
    /// text, classic, json, csv, markdown, html, flamegraph [default: text, or -O's extension].
    ///
    /// html: one self-contained page with chart, table (the rows of largest change and the
    /// significant ones, at most 10,000) and, given callchains, a differential flame graph
    /// coloured by each frame's significance; flamegraph: that flame graph alone, as SVG;
    /// neither is written to a terminal: give -O FILE or redirect. The -O file's extension
    /// (.html .svg .json .csv .md) chooses when -o is not given.
    #[arg(short = 'o', long, value_enum, help_heading = OUTPUT, hide_possible_values = true)]
    pub output: Option<OutputArg>,

    /// Row order: signed delta (worse first), impact (the delta bound nearest zero), ratio, name.
    #[arg(hide_short_help = true, long, value_enum, default_value_t = SortArg::Delta, help_heading = OUTPUT)]
    pub sort: SortArg,

    /// The N largest rows of each sign; the rest summed.
    ///
    /// Show the N largest rows of each sign; the rest are summed in one line. The rows that rank first by --sort [default: all; 25 when text goes to a terminal].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count, help_heading = OUTPUT)]
    pub top: Option<usize>,

    /// Hide rows whose |delta| is below X.
    ///
    /// Hide rows whose absolute delta is below X (in the output unit).
    #[arg(long, value_name = "X", default_value_t = 0.0, allow_negative_numbers = true, value_parser = non_negative, help_heading = OUTPUT)]
    pub min_delta: f64,

    /// Significance level, used as the false discovery rate with BH/BY.
    #[arg(hide_short_help = true, long, value_name = "A", default_value_t = 0.05, allow_negative_numbers = true, value_parser = probability, help_heading = STATISTICS)]
    pub alpha: f64,

    /// Multiple-testing correction.
    #[arg(hide_short_help = true, long, value_enum, default_value_t = AdjustArg::Bh, help_heading = STATISTICS)]
    pub adjust: AdjustArg,

    /// Exit 1 when a significant regression is reported.
    ///
    /// Exit with status 1 when a significant regression is reported (errors exit 2).
    #[arg(long, help_heading = OUTPUT)]
    pub fail_on_regression: bool,

    /// More columns (CV, intervals, p, q), names whole.
    ///
    /// More columns (CV, intervals, p, q, runs) and names whole. In text and markdown: each
    /// side's CV, the confidence intervals, p, q, the dispersion and run counts; text and classic: long names whole (default lines fit 80 columns); the
    /// unresolved-samples warning in full.
    #[arg(long, help_heading = OUTPUT)]
    pub wide: bool,

    /// Assumed run-to-run CV (e.g. 0.05) when one run per side has too few symbols to measure it.
    #[arg(hide_short_help = true, long, value_name = "C", allow_negative_numbers = true, value_parser = non_negative, help_heading = STATISTICS)]
    pub noise_cv: Option<f64>,

    /// Judge run-to-run noise with a model from `diffprofile noise-model`.
    #[arg(long, value_name = "FILE", conflicts_with = "noise_from", help_heading = STATISTICS)]
    pub noise_model: Option<String>,

    /// Learn the noise model from these replicate runs of one kernel (3 or more) first.
    #[arg(hide_short_help = true, long, num_args = 1.., value_name = "RUNS", help_heading = STATISTICS)]
    pub noise_from: Vec<String>,

    /// Colour text output: regressions red, improvements green, significant rows bold.
    /// `auto`: only when stdout is a terminal, NO_COLOR is not set and TERM is not dumb.
    #[arg(hide_short_help = true, long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN", help_heading = OUTPUT)]
    pub color: ColorArg,

    /// Write to FILE; its extension chooses the format.
    ///
    /// Write the report to FILE instead of stdout; .html .svg .json .csv .md choose the format when -o is not given.
    ///
    /// FILE may not be one of the inputs (nor inside an input directory); - is stdout.
    #[arg(short = 'O', long, value_name = "FILE", help_heading = OUTPUT)]
    pub output_file: Option<String>,

    /// Flame graphs: the callee view (each function at the root, its callers below it).
    #[arg(hide_short_help = true, long, help_heading = OUTPUT)]
    pub flame_reverse: bool,

    /// Flame graphs: drop the process and thread start frames (_start, __libc_start_main, main,
    /// start_thread, clone3, ...), so a program's work in processes and in threads is one tree.
    #[arg(hide_short_help = true, long, help_heading = OUTPUT)]
    pub flame_merge_roots: bool,
}

/// How inputs are read, filtered, named and normalised: shared by a
/// comparison, `batch` and `noise-model`. Flags without a heading of their
/// own are listed under Inputs.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = INPUTS)]
pub struct Analysis {
    /// Input format (detected per file by default).
    #[arg(short = 'f', long, value_enum, default_value_t = FormatArg::Auto, hide_short_help = true)]
    pub format: FormatArg,

    /// Unit: share, ticks, rate, work, robust [default: share; ticks with -o classic].
    ///
    /// What a run's samples are divided by: share, percent of the run's samples; ticks, mean
    /// samples per run; rate, per second (--run-info); work, per operation (--run-info);
    /// robust, median-of-ratios size factors.
    #[arg(short = 'n', long, value_enum, help_heading = STATISTICS, hide_possible_values = true)]
    pub normalize: Option<NormalizeArg>,

    /// Worker threads [default: all cores].
    #[arg(hide_short_help = true, short = 'j', long, value_name = "N", allow_negative_numbers = true, value_parser = workers)]
    pub jobs: Option<usize>,

    /// The event to read when a profile holds several.
    #[arg(hide_short_help = true, long, value_name = "NAME")]
    pub event: Option<String>,

    /// CSV `path,duration_s,work` giving each run's duration (for -n rate) and work count (for -n work).
    #[arg(hide_short_help = true, long, value_name = "FILE", help_heading = STATISTICS)]
    pub run_info: Option<String>,

    /// What a perf script sample is worth.
    #[arg(hide_short_help = true, long, value_enum, default_value_t = WeightArg::Samples)]
    pub weight: WeightArg,

    /// Count every distinct symbol of a callchain once per sample (default: the leaf only).
    #[arg(long, hide_short_help = true)]
    pub inclusive: bool,

    /// Keep only kernel samples.
    ///
    /// Flame graphs: stacks start at the kernel entry.
    #[arg(long, help_heading = FILTERS)]
    pub kernel_only: bool,

    /// Keep only samples of these commands: perf's --comms list (names or regexes, comma-separated, each matched whole).
    ///
    /// `--comm addr` keeps `addr`, never `addr2line`; a regular expression
    /// is matched against the whole name too (`kworker/.*`). A name longer
    /// than the 15 bytes perf records also matches its first 15.
    #[arg(long, value_name = "NAMES", help_heading = FILTERS)]
    pub comm: Option<String>,

    /// Keep only samples of these processes (PIDs, comma-separated) and of the processes they forked (perf.data).
    ///
    /// For a name several processes share (another user's process, another
    /// job): the warning of `--comm` names each process's PID.
    #[arg(long, value_name = "PIDS", help_heading = FILTERS)]
    pub pid: Option<String>,

    /// Keep only samples whose shared object matches this regex.
    #[arg(hide_short_help = true, long, value_name = "RE", help_heading = FILTERS)]
    pub dso: Option<String>,

    /// Skip malformed lines (counted in warnings) instead of failing.
    #[arg(long, hide_short_help = true)]
    pub lenient: bool,

    /// Keep only symbols (rows) whose name matches this regex.
    #[arg(hide_short_help = true, long, value_name = "RE", help_heading = FILTERS)]
    pub include: Option<String>,

    /// Drop symbols (rows) whose name matches this regex.
    #[arg(hide_short_help = true, long, value_name = "RE", help_heading = FILTERS)]
    pub exclude: Option<String>,

    /// Drop the idle loop (default_idle, intel_idle*, poll_idle, acpi_safe_halt, mwait_idle*, ..., and every function in a kernel map's __cpuidle_text).
    #[arg(hide_short_help = true, long, help_heading = FILTERS)]
    pub exclude_idle: bool,

    /// After filters, shares of all samples or of the kept ones.
    ///
    /// After filters, shares are of all samples (absolute) or of the kept ones (relative), as in perf.
    #[arg(long, value_name = "HOW", value_enum, default_value_t = PercentageArg::Absolute, help_heading = FILTERS)]
    pub percentage: PercentageArg,

    /// Don't fold compiler clone suffixes (.isra.N, .constprop.N, .part.N, .cold, .llvm.N, @plt, ...).
    #[arg(hide_short_help = true, long, help_heading = FILTERS)]
    pub keep_suffixes: bool,

    /// Rename map: lines `old_name = new_name` or `re:PATTERN = NAME`; # comments.
    #[arg(hide_short_help = true, long, value_name = "FILE", help_heading = FILTERS)]
    pub alias: Option<String>,

    /// Match symbols by name alone, across binaries (perf diff --sort sym).
    ///
    /// `main` of two programs is one row, not one gone and one new; the header says so.
    #[arg(long, help_heading = FILTERS)]
    pub by_name: bool,

    /// Rows become groups: dso, module, prefix:STR or regex:RE.
    #[arg(hide_short_help = true, long, value_name = "HOW", help_heading = FILTERS)]
    pub group_by: Option<String>,

    /// Kernel map of every side (System.map or kallsyms).
    ///
    /// Kernel map of every side, for /proc/profile images and perf.data. System.map or kallsyms format, compressed or not, for raw /proc/profile images of every
    /// side, and for perf.data when --kallsyms is not given [default: a System.map* or
    /// kallsyms* file beside the image].
    #[arg(long, value_name = "FILE")]
    pub map: Option<String>,

    /// The OLD side's kernel map, for its /proc/profile images and perf.data files.
    ///
    /// System.map or kallsyms format (overrides --map and --kallsyms; same as --old-kallsyms).
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub old_map: Option<String>,

    /// The NEW side(s)' kernel map, for /proc/profile images and perf.data.
    ///
    /// System.map or kallsyms format (overrides --map and --kallsyms; same as --new-kallsyms).
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub new_map: Option<String>,

    /// Kernel symbols of every side, for perf.data.
    ///
    /// For every side, kallsyms or System.map format [default: a kallsyms* or System.map* file
    /// beside the runs, else /proc/kallsyms when the file was recorded on the running kernel].
    #[arg(long, value_name = "FILE")]
    pub kallsyms: Option<String>,

    /// The OLD kernel's symbols: its /proc/kallsyms, saved.
    ///
    /// The OLD side's kernel symbols (kallsyms or System.map format): a copy of /proc/kallsyms
    /// saved while running its kernel (overrides --kallsyms; same as --old-map).
    #[arg(long, value_name = "FILE")]
    pub old_kallsyms: Option<String>,

    /// The NEW kernel's symbols: its /proc/kallsyms, saved.
    ///
    /// The NEW side(s)' kernel symbols (overrides --kallsyms; same as --new-map).
    #[arg(long, value_name = "FILE")]
    pub new_kallsyms: Option<String>,

    /// One side's kernel symbols, SIDE=FILE: SIDE is old, new (new1, new2, ... with more than
    /// two sides) or a path of that side as given; repeatable (overrides --old/--new-kallsyms).
    #[arg(hide_short_help = true, long, value_name = "SIDE=FILE")]
    pub kallsyms_for: Vec<String>,

    /// One side's kernel map, SIDE=FILE, as --kallsyms-for (the same thing, for
    /// /proc/profile images and perf.data alike); repeatable.
    #[arg(hide_short_help = true, long, value_name = "SIDE=FILE")]
    pub map_for: Vec<String>,

    /// perf.data: look binaries and debug files up under this root, as perf's --symfs.
    #[arg(hide_short_help = true, long, value_name = "DIR")]
    pub symfs: Option<String>,

    /// perf.data: also look for debug files in DIR, laid out like /usr/lib/debug
    /// (.build-id/xx/yyyy.debug, <path>.debug, <dir>/<debuglink>); repeatable.
    #[arg(hide_short_help = true, long, value_name = "DIR")]
    pub debug_dir: Vec<String>,

    /// perf.data: JIT maps (perf-PID.map) are in DIR, looked at before /tmp; repeatable.
    #[arg(hide_short_help = true, long, value_name = "DIR")]
    pub jit_map_dir: Vec<String>,

    /// perf.data: keep C++ and Rust names mangled (perf report --no-demangle).
    #[arg(long, hide_short_help = true)]
    pub no_demangle: bool,

    /// Use a kernel symbol map even when it does not seem to belong to the recording or image
    /// (another kernel's map is refused by default); a warning says why it was doubted.
    #[arg(long, hide_short_help = true)]
    pub force_map: bool,

    /// Accept runs of one side whose counts are the same (one recording given twice, e.g. in
    /// two formats), which are refused by default since they fake agreement between runs.
    #[arg(long, hide_short_help = true)]
    pub allow_duplicates: bool,
}

/// A whole number flag (`--top`, `--jobs`): a negative one is refused in
/// words, not as "invalid digit".
fn count(s: &str) -> Result<usize, String> {
    if s.trim().starts_with('-') {
        return Err("must be ≥ 0".to_string());
    }
    s.trim()
        .parse()
        .map_err(|_| "expected a whole number ≥ 0".to_string())
}

/// `--jobs`: at least one worker.
fn workers(s: &str) -> Result<usize, String> {
    match count(s) {
        Ok(0) => Err("must be ≥ 1".to_string()),
        Err(_) if s.trim().starts_with('-') => Err("must be ≥ 1".to_string()),
        Err(_) => Err("expected a whole number ≥ 1".to_string()),
        ok => ok,
    }
}

/// A real number flag that cannot be negative (`--min-delta`,
/// `--noise-cv`); finer ranges are checked in [`crate::config`].
fn non_negative(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_nan() => Err("expected a number ≥ 0".to_string()),
        Ok(v) if v < 0.0 => Err("must be ≥ 0".to_string()),
        Ok(v) => Ok(v),
        Err(_) => Err("expected a number ≥ 0".to_string()),
    }
}

/// `--alpha`: a level strictly between 0 and 1, the range said whatever
/// is wrong (negative, 0, 1, NaN, not a number).
fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(ALPHA_RANGE.to_string()),
    }
}

/// What `--alpha` accepts, as its refusals say.
pub const ALPHA_RANGE: &str = "expected a number greater than 0 and less than 1, such as 0.05";

/// The analysis flags read as fields of the command line (`cli.alpha`).
impl std::ops::Deref for Cli {
    type Target = Analysis;
    fn deref(&self) -> &Analysis {
        &self.analysis
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum PercentageArg {
    Absolute,
    Relative,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Auto,
    Readprofile,
    PerfReport,
    PerfScript,
    Folded,
    Opreport,
    ProcProfile,
    PerfData,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputArg {
    Text,
    Classic,
    Json,
    Csv,
    Markdown,
    Html,
    Flamegraph,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum NormalizeArg {
    Share,
    Ticks,
    Rate,
    Work,
    Robust,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum SortArg {
    Delta,
    Impact,
    Ratio,
    Name,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum AdjustArg {
    Bh,
    By,
    Holm,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum WeightArg {
    Samples,
    Period,
}
