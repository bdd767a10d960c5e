//! `diffprofile batch`: a results tree (a directory, or a tar archive read
//! in place) → one comparison per benchmark of every kernel against the
//! baseline. Members are listed and matched against the [`Layout`], read
//! (tar members into memory, never onto disk), parsed in parallel (rayon)
//! and grouped by benchmark and kernel in sorted path order; each benchmark
//! is then compared with [`crate::app::compare_sides`], again in parallel.
//! Missing baselines, missing kernels, empty, unrecognised, unreadable and
//! malformed members all end up as warnings (in the output and on stderr),
//! never dropped. Rendering is in [`output`].

mod layout;
mod output;

pub use layout::Layout;

use crate::aggregate::Side;
use crate::app::compare_sides;
use crate::config::BatchConfig;
use crate::diff::{ModelScope, Report};
use crate::exit;
use crate::input::{self, Location, BUF_SIZE};
use crate::load;
use crate::profile::Profile;
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Non-matching paths listed by name in a warning; the rest are counted.
const LIST_MAX: usize = 20;

/// Where a member's bytes are.
enum Data {
    File(PathBuf),
    Bytes(Vec<u8>),
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

/// Run a batch: load, compare, write the reports; returns the exit code.
pub fn run(
    config: &BatchConfig,
    progress: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.config.jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
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
    for w in &batch.warnings {
        writeln!(err, "diffprofile: warning: {}: {w}", config.root)?;
    }
    for b in &batch.benches {
        for w in b.report.iter().flat_map(|r| &r.warnings) {
            writeln!(
                err,
                "diffprofile: warning: {}: {}: {w}",
                config.root, b.name
            )?;
        }
    }
    match &config.out_dir {
        Some(dir) => output::write_dir(&batch, config, dir)?,
        None => output::write_stdout(&batch, config, out)?,
    }
    out.flush()?;
    let regressed = batch
        .benches
        .iter()
        .flat_map(|b| &b.report)
        .flat_map(|r| &r.comparisons)
        .any(|c| c.regressions > 0);
    Ok(if batch.errors > 0 && !config.config.load.parse.lenient {
        writeln!(
            err,
            "diffprofile: error: {}: {} member(s) could not be read or parsed (named above); their runs are left out",
            config.root, batch.errors
        )?;
        exit::ERROR
    } else if config.config.fail_on_regression && regressed {
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
    let (table_config, table_runs) = crate::table::tree_runs(config)?.unzip();
    let config = table_config.as_ref().unwrap_or(config);
    let (members, loaded) = match table_runs {
        Some(runs) => table_members(runs),
        None => {
            let (members, maps) = list(config, &mut warnings)?;
            bar.set_length(members.len() as u64);
            bar.set_message("parsing");
            let opts = &config.config.load;
            let loaded: Vec<Result<std::result::Result<Profile, String>>> = members
                .par_iter()
                .map(|m| {
                    let r = read_member(m, opts, maps.get(dir_of(&m.path)).cloned());
                    bar.inc(1);
                    r
                })
                .collect();
            (members, loaded)
        }
    };
    // bench → kernel → runs, in sorted path order (members are sorted).
    let mut groups: BTreeMap<&str, BTreeMap<&str, Vec<Profile>>> = BTreeMap::new();
    let mut bench_warnings: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut kernels: BTreeMap<&str, ()> = BTreeMap::new();
    let mut errors = 0;
    for (m, r) in members.iter().zip(loaded) {
        kernels.insert(&m.kernel, ());
        let runs = groups
            .entry(&m.bench)
            .or_default()
            .entry(&m.kernel)
            .or_default();
        match r {
            Ok(Ok(p)) => {
                if p.total <= 0.0 {
                    bench_warnings
                        .entry(&m.bench)
                        .or_default()
                        .push(format!("{}: run holds no samples", m.path));
                }
                runs.push(p)
            }
            Ok(Err(why)) => bench_warnings
                .entry(&m.bench)
                .or_default()
                .push(format!("skipped {why}")),
            Err(e) => {
                errors += 1;
                warnings.push(format!("{e:#}"));
            }
        }
    }
    if !kernels.contains_key(config.baseline.as_str()) {
        let known: Vec<&str> = kernels.keys().copied().collect();
        bail!(
            "{}: no runs of baseline kernel {:?} (kernels found with layout {}: {})",
            config.root,
            config.baseline,
            config.layout.text(),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
    }
    let all_kernels: Vec<&str> = std::iter::once(config.baseline.as_str())
        .chain(kernels.keys().copied().filter(|k| *k != config.baseline))
        .collect();
    let mut jobs = Vec::new();
    for (bench, by_kernel) in &mut groups {
        let mut sides = Vec::new();
        let mut missing = Vec::new();
        for k in &all_kernels {
            match by_kernel.remove(k) {
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
        let extra = bench_warnings.remove(bench).unwrap_or_default();
        jobs.push((bench.to_string(), sides, skipped, extra));
    }
    bar.set_message("comparing");
    bar.set_position(0);
    bar.set_length(jobs.len() as u64);
    let benches: Vec<Result<Bench>> = jobs
        .into_par_iter()
        .map(|(name, sides, skipped, extra)| {
            let kernels = sides.iter().map(|s| s.name.clone()).collect();
            let report = match skipped {
                Some(_) => None,
                None => {
                    let mut w = extra;
                    let model = bench_noise_model(&sides, &config.config, &mut w)
                        .with_context(|| format!("benchmark {name}"))?;
                    let mut r = match model {
                        Some(m) => {
                            let mut c = config.config.clone();
                            c.diff.noise_model = Some(Arc::new(m));
                            c.diff.model_scope = ModelScope::OneRunPerSide;
                            compare_sides(&sides, &c)
                        }
                        None => compare_sides(&sides, &config.config),
                    }
                    .with_context(|| format!("benchmark {name}"))?;
                    w.append(&mut r.warnings);
                    r.warnings = w;
                    Some(r)
                }
            };
            bar.inc(1);
            Ok(Bench {
                name,
                kernels,
                report,
                skipped,
            })
        })
        .collect();
    let benches = benches.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(Batch {
        baseline: config.baseline.clone(),
        benches,
        warnings,
        errors,
    })
}

/// docs/statistics.md §5.3 in a batch: when a benchmark has single-run
/// kernels compared with a single-run baseline, the kernel with the most
/// runs (3 or more; the baseline first on ties, then name order) provides
/// the noise model for those comparisons. None when no comparison needs
/// one, no kernel has 3 runs, or the user gave a model for every comparison.
fn bench_noise_model(
    sides: &[Side],
    config: &crate::config::Config,
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
    let source = format!("kernel {}'s {} runs", src.name, src.runs.len());
    let (model, w) = crate::app::learn_from_side(src, config, source)?;
    warnings.extend(w);
    Ok(Some(model))
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
    let root = Path::new(&config.root);
    let meta = std::fs::metadata(root).with_context(|| format!("{}: cannot open", config.root))?;
    let mut unmatched = Vec::new();
    let mut members = Vec::new();
    let mut maps: BTreeMap<String, Vec<load::MapFile>> = BTreeMap::new();
    let mut take = |path: String, data: Data, unmatched: &mut Vec<String>| match config
        .layout
        .matches(&path)
    {
        _ if load::is_map_name(&path) => {
            let file = match data {
                Data::File(full) => load::MapFile::Path(full),
                Data::Bytes(bytes) => {
                    load::MapFile::Bytes(format!("{}:{path}", config.root), bytes)
                }
            };
            maps.entry(dir_of(&path).to_string())
                .or_default()
                .push(file);
        }
        Some((k, b)) => members.push(Member {
            kernel: k.to_string(),
            bench: b.to_string(),
            path,
            data,
        }),
        None => unmatched.push(path),
    };
    if meta.is_dir() {
        let mut files = Vec::new();
        walk(root, "", &mut files)?;
        for (rel, full) in files {
            take(rel, Data::File(full), &mut unmatched);
        }
    } else {
        let opened = input::open(&Location::File(root.to_path_buf()))?;
        if !opened.tar {
            bail!(
                "{}: not a directory or a tar archive (plain, gz, zst, xz)",
                config.root
            );
        }
        let mut archive = tar::Archive::new(opened.reader);
        let entries = archive
            .entries()
            .with_context(|| format!("{}: cannot read tar archive", config.root))?;
        let mut last = String::from("(start)");
        for entry in entries {
            let mut entry = entry.with_context(|| {
                format!("{}: corrupt tar archive after member {last}", config.root)
            })?;
            let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let path = raw.trim_start_matches("./").to_string();
            last = path.clone();
            let kind = entry.header().entry_type();
            if kind.is_dir() || path.is_empty() || hidden(&path) {
                continue;
            }
            if !kind.is_file() {
                unmatched.push(format!("{path} (not a regular file)"));
                continue;
            }
            if config.layout.matches(&path).is_none() && !load::is_map_name(&path) {
                unmatched.push(path);
                continue;
            }
            let mut bytes = Vec::with_capacity(entry.size().min(1 << 30) as usize);
            entry
                .read_to_end(&mut bytes)
                .with_context(|| format!("{}:{path}: cannot read member", config.root))?;
            take(path, Data::Bytes(bytes), &mut unmatched);
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

/// Regular files below `dir` as (relative path, full path); hidden entries
/// skipped, as for a directory named on the command line.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{}: cannot read directory", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let meta =
            std::fs::metadata(&path).with_context(|| format!("{}: cannot open", path.display()))?;
        if meta.is_dir() {
            walk(&path, &rel, out)?;
        } else if meta.is_file() {
            out.push((rel, path));
        }
    }
    Ok(())
}

/// Parse one member, with the symbol maps of its directory; its origin (in
/// runs and messages) is its relative path.
fn read_member(
    m: &Member,
    opts: &load::LoadOptions,
    maps: Option<Arc<load::Beside>>,
) -> Result<std::result::Result<Profile, String>> {
    match &m.data {
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
