//! The command line as clap parses it: flags only, no I/O and no cross-flag
//! checks (those live in [`crate::config`]).

use clap::{Parser, ValueEnum};

#[derive(Parser, Debug, Clone)]
#[command(
    name = "diffprofile",
    version,
    about = "Where did the time go between two kernels? A signed, noise-aware diff of per-symbol profiles.",
    long_about = "Reads per-symbol profiles (readprofile dumps, perf report tables, perf script samples, \
folded stacks, opreport) of an OLD and a NEW kernel, one or more runs each, and prints a signed \
ranking: + got worse in NEW, - got better, with a total row. Each change is tested against \
sampling and run-to-run noise: * marks a significant change, ~ one within noise.",
    after_help = "Examples:\n  diffprofile old.txt new.txt\n  diffprofile --old old/run* --new new/run*\n  diffprofile old-runs/ new-runs/ -o classic\n  diffprofile base/ new1/ new2/ -o json"
)]
pub struct Cli {
    /// Profiles: OLD NEW [NEW2 ...]. Each is a file, a directory (every file below is one run),
    /// a tar archive (every member is one run), compressed or not, or - for stdin.
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Runs of the OLD (baseline) side.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub old: Vec<String>,

    /// Runs of the NEW side.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub new: Vec<String>,

    /// Input format (detected per file by default).
    #[arg(short = 'f', long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,

    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputArg::Text)]
    pub output: OutputArg,

    /// What a run's samples are divided by [default: share; ticks with -o classic].
    #[arg(short = 'n', long, value_enum)]
    pub normalize: Option<NormalizeArg>,

    /// Row order: signed delta (worse first), impact (the delta bound nearest zero), ratio, name.
    #[arg(long, value_enum, default_value_t = SortArg::Delta)]
    pub sort: SortArg,

    /// Show the N largest rows of each sign; the rest are summarised in one line per sign.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    /// Hide rows whose absolute delta is below X (in the output unit).
    #[arg(long, value_name = "X", default_value_t = 0.0)]
    pub min_delta: f64,

    /// Significance level, used as the false discovery rate with BH/BY.
    #[arg(long, value_name = "A", default_value_t = 0.05)]
    pub alpha: f64,

    /// Multiple-testing correction.
    #[arg(long, value_enum, default_value_t = AdjustArg::Bh)]
    pub adjust: AdjustArg,

    /// Exit with status 1 when any significant regression is reported.
    #[arg(long)]
    pub fail_on_regression: bool,

    /// Worker threads [default: all cores].
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,

    /// The event to read when a profile holds several.
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,

    /// text/markdown: add each side's CV, the confidence intervals, p, q and run counts.
    #[arg(long)]
    pub wide: bool,

    /// CSV `path,duration_s,work` giving each run's duration (for -n rate) and work count (for -n work).
    #[arg(long, value_name = "FILE")]
    pub run_info: Option<String>,

    /// Assumed run-to-run CV (e.g. 0.05) when one run per side cannot estimate it.
    #[arg(long, value_name = "C")]
    pub noise_cv: Option<f64>,

    /// What a perf script sample is worth.
    #[arg(long, value_enum, default_value_t = WeightArg::Samples)]
    pub weight: WeightArg,

    /// Count every distinct symbol of a callchain once per sample (default: the leaf only).
    #[arg(long)]
    pub inclusive: bool,

    /// Keep only kernel samples.
    #[arg(long)]
    pub kernel_only: bool,

    /// Keep only samples whose command matches this regex.
    #[arg(long, value_name = "RE")]
    pub comm: Option<String>,

    /// Keep only samples whose shared object matches this regex.
    #[arg(long, value_name = "RE")]
    pub dso: Option<String>,

    /// Skip malformed lines (counted in warnings) instead of failing.
    #[arg(long)]
    pub lenient: bool,

    /// Keep only symbols (rows) whose name matches this regex.
    #[arg(long, value_name = "RE")]
    pub include: Option<String>,

    /// Drop symbols (rows) whose name matches this regex.
    #[arg(long, value_name = "RE")]
    pub exclude: Option<String>,

    /// Drop the idle loop (default_idle, intel_idle, poll_idle, native_safe_halt, mwait_idle*, ...).
    #[arg(long)]
    pub exclude_idle: bool,

    /// After filters, shares are of all samples (absolute) or of the kept ones (relative), as in perf.
    #[arg(long, value_enum, default_value_t = PercentageArg::Absolute)]
    pub percentage: PercentageArg,

    /// Don't fold compiler clone suffixes (.isra.N, .constprop.N, .part.N, .cold, .llvm.N, @plt, ...).
    #[arg(long)]
    pub keep_suffixes: bool,

    /// Rename map: lines `old_name = new_name` or `re:PATTERN = NAME`; # comments.
    #[arg(long, value_name = "FILE")]
    pub alias: Option<String>,

    /// Rows become groups: dso, module, prefix:STR or regex:RE.
    #[arg(long, value_name = "HOW")]
    pub group_by: Option<String>,

    /// Kernel symbol map (System.map or kallsyms format, compressed or not) for raw
    /// /proc/profile images of every side [default: a System.map* or kallsyms* file beside the image].
    #[arg(long, value_name = "FILE")]
    pub map: Option<String>,

    /// Symbol map for the OLD side's /proc/profile images (overrides --map).
    #[arg(long, value_name = "FILE")]
    pub old_map: Option<String>,

    /// Symbol map for the NEW side(s)' /proc/profile images (overrides --map).
    #[arg(long, value_name = "FILE")]
    pub new_map: Option<String>,

    /// Kernel symbols (kallsyms or System.map format) for perf.data files
    /// [default: /proc/kallsyms when the file was recorded on the running kernel].
    #[arg(long, value_name = "FILE")]
    pub kallsyms: Option<String>,
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
