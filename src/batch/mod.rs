//! `diffprofile batch`: a results tree (a directory, or a tar archive read
//! in place) → one comparison per benchmark of every kernel against the
//! baseline. Members are listed and matched against the [`Layout`] (a
//! directory walked without following links to directories; an archive's
//! members parsed as it is read, see [`archive`]), parsed in parallel
//! (rayon) and grouped by benchmark and kernel in sorted path order; each
//! benchmark is checked ([`crate::sanity`]: refused when one recording is
//! given twice, or a filter cannot apply) and compared with
//! [`crate::app::compare_sides`], again in parallel. Missing baselines,
//! missing kernels, empty, unrecognised, unreadable and malformed members,
//! paths with no place in the layout and refused benchmarks all end up as
//! warnings (in the output, and on stderr when the output is not text or
//! markdown), never dropped; a batch that
//! exits with 2 says why as the last line of its report. Rendering is in
//! [`output`].

mod archive;
mod out_dir;
mod output;

pub use crate::layout::Layout;

use crate::aggregate::Side;
use crate::compare::{compare_sides, Config};
use crate::diff::{ModelScope, Report};
use crate::exit;
use crate::flame::Flames;
use crate::input::{self, Location, BUF_SIZE};
use crate::load;
use crate::names::version::version_cmp;
use crate::profile::Profile;
use crate::sanity;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// `diffprofile batch`: where the results are, how they are laid out, the
/// baseline, where reports go, and the analysis configuration (with no sides:
/// they come from the results tree).
#[derive(Clone, Debug)]
pub struct BatchConfig {
    pub root: String,
    pub baseline: String,
    pub layout: Layout,
    pub out_dir: Option<std::path::PathBuf>,
    pub config: Config,
}

/// Non-matching paths listed by name in a warning; the rest are counted.
const LIST_MAX: usize = 20;

/// Where a member's run is.
enum Data {
    /// A file of a directory tree, parsed in [`build`].
    File(PathBuf),
    /// An archive member's bytes (at most 1 GiB), parsed in [`build`] once
    /// the symbol maps of the archive are known.
    Bytes(Vec<u8>),
    /// An archive member parsed while the archive was read.
    Loaded(Box<Result<std::result::Result<Profile, String>>>),
    /// Being parsed on the pool (never left so after [`archive::walk`]).
    Pending,
}

/// One file of the results tree that matched the layout.
struct Member {
    /// Relative, `/`-separated: the same for a directory and its archive.
    path: String,
    kernel: String,
    bench: String,
    data: Data,
}

/// The comparison of one benchmark, or why there is none.
pub struct Bench {
    pub name: String,
    /// Kernels compared, baseline first.
    pub kernels: Vec<String>,
    pub report: Option<Report>,
    /// The report's flames (`-o html`, `-o flamegraph`).
    pub flames: Option<Flames>,
    /// Why there is no report.
    pub skipped: Option<String>,
}

/// Everything a batch produced, in benchmark order.
pub struct Batch {
    pub baseline: String,
    pub benches: Vec<Bench>,
    /// Batch-wide warnings (layout mismatches, missing kernels and
    /// benchmarks, unreadable members), in a fixed order.
    pub warnings: Vec<String>,
    /// Members that could not be read or were malformed.
    pub errors: usize,
}

/// The batch's warnings on stderr, each once: where the output carries
/// them (text and markdown, in the index and each benchmark's section or
/// file) one line says how many and where; otherwise each (JSON, CSV and
/// HTML carry them too, but are not read on a terminal), as the
/// comparison's are, and so does a failed batch, whose error points to
/// them. The last warning of a failed batch says why; [`run`] ends with
/// it.
fn warn(batch: &Batch, config: &BatchConfig, failed: bool, err: &mut dyn Write) -> Result<()> {
    let shown = batch.warnings.len() - usize::from(failed);
    let own = batch.warnings[..shown]
        .iter()
        .map(|w| format!("{}: {w}", config.root));
    let benches = batch.benches.iter().flat_map(|b| {
        b.report
            .iter()
            .flat_map(|r| &r.warnings)
            .map(|w| format!("{}: {}: {w}", config.root, b.name))
    });
    let all: Vec<String> = own.chain(benches).collect();
    let carried = matches!(
        config.config.output,
        crate::render::OutputFormat::Text | crate::render::OutputFormat::Markdown
    );
    // (A failed batch's error says its members were "named above".)
    if !carried || failed {
        let fold = config.config.output == crate::render::OutputFormat::Classic;
        for w in &all {
            crate::render::text::write_stderr_warning(err, w, fold)?;
        }
    } else if !all.is_empty() {
        let place = match &config.out_dir {
            Some(dir) => format!("in the reports in {}", dir.display()),
            None => "in the report".to_string(),
        };
        crate::render::text::write_stderr_warning(
            err,
            &format!(
                "{}: {}, {place}",
                config.root,
                crate::text::plural(all.len() as u64, "warning")
            ),
            true,
        )?;
    }
    Ok(())
}

/// Run a batch: load, compare, write the reports; returns the exit code.
pub fn run(
    config: &BatchConfig,
    progress: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    // One run writes an out-dir at a time: locked before the tree is read.
    let _lock = config.out_dir.as_deref().map(out_dir::lock).transpose()?;
    let pool = crate::compare::thread_pool(config.config.jobs)?;
    crate::compare::global_jobs(config.config.jobs);
    let bar = if progress {
        let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {pos}/{len} [{elapsed}]") {
            b.set_style(style);
        }
        b
    } else {
        ProgressBar::hidden()
    };
    let batch = pool.install(|| build(config, &bar));
    bar.finish_and_clear();
    let batch = batch?;
    let failed = batch.errors > 0 && !config.config.load.parse.lenient;
    warn(&batch, config, failed, err)?;
    match &config.out_dir {
        Some(dir) => output::write_dir(&batch, config, dir, err)?,
        None => output::write_stdout(&batch, config, out)?,
    }
    out.flush()?;
    let regressed = batch
        .benches
        .iter()
        .flat_map(|b| &b.report)
        .flat_map(|r| &r.comparisons)
        .any(|c| c.regressions > 0);
    Ok(if failed {
        let why = batch.warnings.last().map_or("", String::as_str);
        writeln!(err, "diffprofile: error: {}: {why}", config.root)?;
        exit::ERROR
    } else if config.config.fail_on_regression && regressed {
        writeln!(
            err,
            "diffprofile: {}: {}",
            config.root,
            output::gate_sentence(&batch)
        )?;
        exit::REGRESSION
    } else {
        exit::SUCCESS
    })
}

/// Load and compare; no output.
pub fn build(config: &BatchConfig, bar: &ProgressBar) -> Result<Batch> {
    let mut warnings = Vec::new();
    bar.set_message("reading");
    // A counts table (crate::table) is a results tree whose runs are read.
    let (table_config, table_runs) = crate::compare::table_runs(&config.root, &config.config)?
        .map(|(c, runs)| {
            let mut batch = config.clone();
            batch.config = c;
            (batch, runs)
        })
        .unzip();
    let config = table_config.as_ref().unwrap_or(config);
    // A tree under one directory is read one level down, as history and
    // export read it (crate::table::series), said.
    let mut deeper = None;
    if table_runs.is_none() {
        let (layout, note) = crate::table::series::layout_for(&config.root, &config.layout);
        if let Some(note) = note {
            warnings.push(format!("{}: {note}", config.root));
            let mut c = config.clone();
            c.layout = layout;
            deeper = Some(c);
        }
    }
    let config = deeper.as_ref().unwrap_or(config);
    let (members, loaded) = match table_runs {
        Some(runs) => table_members(runs),
        None => parse_members(config, bar, &mut warnings)?,
    };
    let mut grouped = group(&members, loaded, &mut warnings);
    let jobs = plan(config, &mut grouped, &mut warnings)?;
    bar.set_message("comparing");
    bar.set_position(0);
    bar.set_length(jobs.len() as u64);
    let benches: Vec<Result<Bench>> = jobs
        .into_par_iter()
        .map(|job| {
            let b = compare_bench(&config.config, job)?;
            bar.inc(1);
            Ok(b)
        })
        .collect();
    let benches = benches.into_iter().collect::<Result<Vec<_>>>()?;
    let filtered: Vec<&str> = benches
        .iter()
        .filter(|b| {
            b.skipped
                .as_deref()
                .is_some_and(|s| s.starts_with(FILTERED_OUT))
        })
        .map(|b| b.name.as_str())
        .collect();
    if !filtered.is_empty() {
        warnings.push(format!(
            "{} skipped: {} keeps no sample of their baseline or other kernels: {}",
            crate::text::plural(filtered.len() as u64, "benchmark"),
            sanity::sample_filter_flags(&config.config.load.parse).join(" "),
            filtered.join(", ")
        ));
    }
    let mut errors = grouped.errors;
    let mut refused = 0;
    for b in &benches {
        if let Some(why) = b
            .skipped
            .as_deref()
            .and_then(|s| s.strip_prefix("refused: "))
        {
            refused += 1;
            warnings.push(format!("benchmark {}: refused: {why}", b.name));
        }
    }
    if errors + refused > 0 && !config.config.load.parse.lenient {
        // The report says why the exit status is 2 before the process does.
        warnings.push(incomplete(errors, refused));
    }
    errors += refused;
    Ok(Batch {
        baseline: config.baseline.clone(),
        benches,
        warnings,
        errors,
    })
}

/// A member read: its profile, why it was skipped, or the error.
type MemberRead = Result<std::result::Result<Profile, String>>;

/// The members of a results tree, listed and parsed in parallel.
fn parse_members(
    config: &BatchConfig,
    bar: &ProgressBar,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Member>, Vec<MemberRead>)> {
    let (members, maps) = list(config, warnings)?;
    bar.set_length(members.len() as u64);
    bar.set_message("parsing");
    // (read whole: --kernel-only is the rows' view, as in a comparison)
    let opts = &crate::compare::reading(&config.config.load);
    let mut members = members;
    let loaded: Vec<MemberRead> = members
        .par_iter_mut()
        .map(|m| {
            let r = read_member(m, opts, load::maps_near(&maps, dir_of(&m.path)));
            bar.inc(1);
            r
        })
        .collect();
    Ok((members, loaded))
}

/// The runs read, as bench → kernel → runs in sorted path order (members
/// are sorted), with each benchmark's warnings.
struct Grouped<'m> {
    groups: BTreeMap<&'m str, BTreeMap<&'m str, Vec<Profile>>>,
    bench_warnings: BTreeMap<&'m str, Vec<String>>,
    kernels: BTreeMap<&'m str, ()>,
    /// Members that could not be read or were malformed.
    errors: usize,
}

fn group<'m>(
    members: &'m [Member],
    loaded: Vec<MemberRead>,
    warnings: &mut Vec<String>,
) -> Grouped<'m> {
    let mut g = Grouped {
        groups: BTreeMap::new(),
        bench_warnings: BTreeMap::new(),
        kernels: BTreeMap::new(),
        errors: 0,
    };
    for (m, r) in members.iter().zip(loaded) {
        g.kernels.insert(&m.kernel, ());
        let runs = g
            .groups
            .entry(&m.bench)
            .or_default()
            .entry(&m.kernel)
            .or_default();
        match r {
            // A run without samples is no run (sanity::prepare would
            // refuse the benchmark): left out, said.
            Ok(Ok(p)) if sanity::holds_no_samples(&p) => g
                .bench_warnings
                .entry(&m.bench)
                .or_default()
                .push(format!("{}: run holds no samples: left out", m.path)),
            Ok(Ok(p)) => runs.push(p),
            Ok(Err(why)) => g
                .bench_warnings
                .entry(&m.bench)
                .or_default()
                .push(format!("skipped {why}")),
            Err(e) => {
                g.errors += 1;
                warnings.push(format!("{e:#}"));
            }
        }
    }
    g
}

/// One benchmark to compare: its name, sides (baseline first), why it is
/// skipped, and the warnings of reading it.
struct Job {
    name: String,
    sides: Vec<Side>,
    skipped: Option<String>,
    extra: Vec<String>,
}

/// The kernels found, for an error: all of a few; of many, the first and
/// last ones (version order) and how many there are.
fn kernels_named(known: &[&str]) -> String {
    match known.len() {
        0 => "none".to_string(),
        n if n <= LIST_MAX => known.join(", "),
        n => format!(
            "{}, ... {} ({n} kernels)",
            known[..LIST_MAX / 2].join(", "),
            known[n - 2..].join(", ")
        ),
    }
}

/// The benchmarks to compare, each with every kernel that has runs of it
/// (the baseline first, the others in version order); an error when the
/// baseline kernel has none at all.
fn plan(config: &BatchConfig, g: &mut Grouped<'_>, warnings: &mut Vec<String>) -> Result<Vec<Job>> {
    // Kernels in version order (v6.9 before v6.10), as history lists them.
    let mut known: Vec<&str> = g.kernels.keys().copied().collect();
    known.sort_by(|a, b| version_cmp(a, b));
    if !g.kernels.contains_key(config.baseline.as_str()) {
        bail!(
            "{}: no runs of baseline kernel {:?} (kernels found with layout {}: {})",
            config.root,
            config.baseline,
            config.layout.text(),
            kernels_named(&known)
        );
    }
    let all_kernels: Vec<&str> = std::iter::once(config.baseline.as_str())
        .chain(known.iter().copied().filter(|k| *k != config.baseline))
        .collect();
    let mut jobs = Vec::new();
    for (bench, by_kernel) in &mut g.groups {
        let mut sides = Vec::new();
        let mut missing = Vec::new();
        for k in &all_kernels {
            match by_kernel.remove(*k) {
                Some(runs) if !runs.is_empty() => sides.push(Side {
                    name: k.to_string(),
                    label: config.layout.label(k, bench),
                    runs,
                }),
                _ => missing.push(*k),
            }
        }
        let mut skipped = None;
        if sides.first().map(|s| s.name.as_str()) != Some(config.baseline.as_str()) {
            skipped = Some(format!("no runs of baseline {}", config.baseline));
        } else if sides.len() < 2 {
            skipped = Some("only the baseline has runs".to_string());
        }
        for k in &missing {
            warnings.push(format!("benchmark {bench}: no runs of kernel {k}"));
        }
        if let Some(why) = &skipped {
            warnings.push(format!("benchmark {bench}: skipped: {why}"));
        }
        let extra = g.bench_warnings.remove(bench).unwrap_or_default();
        jobs.push(Job {
            name: bench.to_string(),
            sides,
            skipped,
            extra,
        });
    }
    Ok(jobs)
}

/// One benchmark through the comparison engine: sides checked
/// ([`sanity::prepare`]), a noise model when one is needed, compared.
fn compare_bench(c: &Config, job: Job) -> Result<Bench> {
    let Job {
        name,
        mut sides,
        mut skipped,
        extra,
    } = job;
    let mut extra = extra;
    if skipped.is_none() {
        skipped = drop_unfiltered(&mut sides, &c.load.parse, &mut extra);
    }
    let kernels = sides.iter().map(|s| s.name.clone()).collect();
    let found = match skipped {
        Some(_) => None,
        // Refused inputs (duplicate runs, filters that cannot
        // apply) skip this benchmark, named as an error.
        None => match sanity::prepare(&mut sides, &c.load.parse, &c.identity, c.allow_duplicates) {
            Ok(found) => Some(found),
            Err(e) => {
                skipped = Some(format!("refused: {e:#}"));
                None
            }
        },
    };
    let (report, flames) = match found {
        None => (None, None),
        Some(mut found) => {
            let mut w = extra;
            w.append(&mut found.warnings);
            w.extend(crate::compare::sampling_rates(&sides, c));
            let model = bench_noise_model(&sides, c, &mut w)
                .with_context(|| format!("benchmark {name}"))?;
            let done = match model {
                Some(m) => {
                    let mut c = c.clone();
                    c.diff.noise_model = Some(Arc::new(m));
                    c.diff.model_scope = ModelScope::OneRunPerSide;
                    compare_sides(&sides, &c)
                }
                None => compare_sides(&sides, c),
            }
            .with_context(|| format!("benchmark {name}"))?;
            let mut r = done.report;
            found.add_notes(&mut r.notes);
            w.append(&mut r.warnings);
            r.warnings = w;
            (Some(r), done.flames)
        }
    };
    Ok(Bench {
        name,
        kernels,
        report,
        flames,
        skipped,
    })
}

/// Why a benchmark is skipped when the sample filters (`--comm`, `--pid`,
/// `--dso`) keep nothing of it: a benchmark that does not run the kept
/// command is no error of the batch. Under a filter, a run that kept no
/// sample is left out, as a run without samples is, and so is a kernel left
/// with no run (each said in `warnings`); the benchmark is skipped when
/// its baseline or every other kernel is left with none.
pub(crate) const FILTERED_OUT: &str = "no sample kept by ";

fn drop_unfiltered(
    sides: &mut Vec<Side>,
    parse: &crate::format::ParseOptions,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let flags = sanity::sample_filter_flags(parse);
    if flags.is_empty() || parse.comm.is_none() && parse.pid.is_none() && parse.dso.is_none() {
        return None;
    }
    let flags = flags.join(" ");
    let baseline = sides.first().map(|s| s.name.clone());
    let mut emptied = Vec::new();
    for side in sides.iter_mut() {
        let before = side.runs.len();
        let mut left_out = Vec::new();
        side.runs.retain(|r| {
            let kept = !r.counts.is_empty() || r.unattributed > 0.0;
            if !kept {
                left_out.push(r.source.clone());
            }
            kept
        });
        if side.runs.is_empty() {
            emptied.push(side.name.clone());
        } else if !left_out.is_empty() {
            warnings.push(format!(
                "{flags} keeps no sample of {} of kernel {}'s {}: left out ({})",
                crate::text::plural(left_out.len() as u64, "run"),
                side.name,
                crate::text::plural(before as u64, "run"),
                left_out.join(", ")
            ));
        }
    }
    sides.retain(|s| !s.runs.is_empty());
    if baseline.is_some() && sides.first().map(|s| &s.name) != baseline.as_ref() {
        return Some(format!(
            "{FILTERED_OUT}{flags} in the baseline's runs (the benchmark does not run it?)"
        ));
    }
    if sides.len() < 2 {
        return Some(format!(
            "{FILTERED_OUT}{flags} in the runs of kernel(s) {} (the benchmark does not run it?)",
            emptied.join(", ")
        ));
    }
    if !emptied.is_empty() {
        warnings.push(format!(
            "{flags} keeps no sample of kernel(s) {}: left out of this benchmark",
            emptied.join(", ")
        ));
    }
    None
}

/// docs/statistics.md §5.3 in a batch: when a benchmark has single-run
/// kernels compared with a single-run baseline, the kernel with the most
/// runs (3 or more; the baseline first on ties, then name order) provides
/// the noise model for those comparisons. None when no comparison needs
/// one, no kernel has 3 runs, or the user gave a model for every comparison.
fn bench_noise_model(
    sides: &[Side],
    config: &Config,
    warnings: &mut Vec<String>,
) -> Result<Option<crate::noise_model::NoiseModel>> {
    if config.noise.is_some() || sides[0].runs.len() != 1 {
        return Ok(None);
    }
    if !sides[1..].iter().any(|s| s.runs.len() == 1) {
        return Ok(None);
    }
    let best =
        sides
            .iter()
            .filter(|s| s.runs.len() >= 3)
            .fold(None::<&Side>, |best, s| match best {
                Some(b) if b.runs.len() >= s.runs.len() => Some(b),
                _ => Some(s),
            });
    let Some(src) = best else {
        return Ok(None);
    };
    let source = format!(
        "kernel {}'s {}",
        src.name,
        crate::text::plural(src.runs.len() as u64, "run")
    );
    let (model, w) = crate::compare::learn_from_side(src, config, source)?;
    warnings.extend(w);
    Ok(Some(model))
}

/// The last line of an incomplete batch's report: why it exits with 2.
fn incomplete(errors: usize, refused: usize) -> String {
    let mut what = Vec::new();
    if errors > 0 {
        what.push(format!(
            "{errors} member(s) could not be read or parsed (their runs are left out)"
        ));
    }
    if refused > 0 {
        what.push(format!("{refused} benchmark(s) were refused"));
    }
    format!(
        "incomplete: {}, as named above; exit status 2",
        what.join(" and ")
    )
}

/// The runs of a counts table as members already read (their data is
/// never opened).
#[allow(clippy::type_complexity)]
fn table_members(
    runs: Vec<crate::table::reader::TableRun>,
) -> (
    Vec<Member>,
    Vec<Result<std::result::Result<Profile, String>>>,
) {
    runs.into_iter()
        .map(|r| {
            let m = Member {
                path: r.profile.source.clone(),
                kernel: r.kernel,
                bench: r.benchmark,
                data: Data::Bytes(Vec::new()),
            };
            (m, Ok(Ok(r.profile)))
        })
        .unzip()
}

/// The directory part of a relative member path (`""` at the top).
fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Symbol maps (`System.map*`, `kallsyms*`) of the tree by directory: the
/// maps of the raw profiles (`/proc/profile` images, perf.data) beside them.
type MapsByDir = BTreeMap<String, Arc<load::Beside>>;

/// Every member of the tree that matches the layout, sorted by path, and
/// the symbol maps by directory; the other paths are named in a warning.
fn list(config: &BatchConfig, warnings: &mut Vec<String>) -> Result<(Vec<Member>, MapsByDir)> {
    let root = &input::os_path(&config.root);
    if config.root == "-" {
        bail!(
            "batch reads a results tree by its path (a directory or a tar archive), \
             not stdin: save the archive to a file and give its path as ROOT"
        );
    }
    let meta = std::fs::metadata(root).with_context(|| format!("{}: cannot open", config.root))?;
    input::refuse_special_root(&config.root, &meta)?;
    let mut unmatched = Vec::new();
    let mut members = Vec::new();
    let mut maps: BTreeMap<String, Vec<load::MapFile>> = BTreeMap::new();
    if meta.is_dir() {
        let walked = input::walk_dir(root)?;
        warnings.extend(walked.warnings);
        for full in walked.files {
            let rel = full.strip_prefix(root).unwrap_or(&full);
            let path = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if load::is_map_name(&path) {
                maps.entry(dir_of(&path).to_string())
                    .or_default()
                    .push(load::MapFile::Path(full));
                continue;
            }
            match config.layout.matches(&path) {
                Some((k, b)) => members.push(Member {
                    kernel: k.to_string(),
                    bench: b.to_string(),
                    path,
                    data: Data::File(full),
                }),
                None => unmatched.push(path),
            }
        }
    } else {
        let opened = input::open(&Location::File(root.to_path_buf()))?;
        if !opened.tar {
            bail!(
                "{}: not a directory or a tar archive (plain, gz, zst, xz)",
                config.root
            );
        }
        let walked = archive::walk(config, opened.reader)?;
        members = walked.members;
        unmatched.extend(walked.unmatched);
        maps = walked.maps;
        if walked.cut {
            warnings.push(input::tar_cut_warning(walked.read));
        }
        if !walked.backups.is_empty() {
            warnings.push(input::backups_warning(None, &walked.backups));
        }
        if !walked.dropped.is_empty() {
            warnings.push(format!(
                "{} member(s) not read: an absolute path or a `..` component has no place \
                 in --layout {}: {}",
                walked.dropped.len(),
                config.layout.text(),
                walked.dropped.join(", ")
            ));
        }
    }
    members.sort_by(|a, b| a.path.cmp(&b.path));
    if !unmatched.is_empty() {
        unmatched.sort();
        let shown: Vec<&str> = unmatched
            .iter()
            .take(LIST_MAX)
            .map(|s| s.as_str())
            .collect();
        warnings.push(format!(
            "{} path(s) do not match --layout {} and were not read: {}{}",
            unmatched.len(),
            config.layout.text(),
            shown.join(", "),
            if unmatched.len() > LIST_MAX {
                format!(" and {} more", unmatched.len() - LIST_MAX)
            } else {
                String::new()
            }
        ));
    }
    if members.is_empty() {
        bail!(
            "{}: no files match --layout {}",
            config.root,
            config.layout.text()
        );
    }
    let maps = maps
        .into_iter()
        .map(|(dir, files)| (dir, Arc::new(load::Beside::new(files))))
        .collect();
    Ok((members, maps))
}

fn hidden(path: &str) -> bool {
    path.split('/').any(|c| c.starts_with('.') && c != ".")
}

/// Parse one member (or take its run, parsed while an archive was read),
/// with the symbol maps of its directory; its origin (in runs and messages)
/// is its relative path.
fn read_member(
    m: &mut Member,
    opts: &load::LoadOptions,
    maps: Option<Arc<load::Beside>>,
) -> Result<std::result::Result<Profile, String>> {
    match std::mem::replace(&mut m.data, Data::Pending) {
        Data::Loaded(r) => *r,
        Data::Pending => bail!("{}: member was not read", m.path),
        Data::Bytes(b) => load::load_stream_beside(Box::new(&b[..]), &m.path, opts, maps),
        Data::File(p) => {
            let f = std::fs::File::open(p).with_context(|| format!("{}: cannot open", m.path))?;
            load::load_stream_beside(
                Box::new(BufReader::with_capacity(BUF_SIZE.min(1 << 16), f)),
                &m.path,
                opts,
                maps,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::kernels_named;

    #[test]
    fn a_missing_baseline_names_a_few_kernels_of_many() {
        let few = ["v1", "v2"];
        assert_eq!(kernels_named(&few), "v1, v2");
        assert_eq!(kernels_named(&[]), "none");
        let many: Vec<String> = (0..1000).map(|k| format!("v1.{k:04}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let named = kernels_named(&many);
        assert!(named.len() < 200, "{named}");
        assert!(named.starts_with("v1.0000, v1.0001,"), "{named}");
        assert!(
            named.ends_with("v1.0998, v1.0999 (1000 kernels)"),
            "{named}"
        );
    }
}
