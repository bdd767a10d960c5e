//! One comparison, the engine under both `diffprofile OLD NEW` and `batch`:
//! load every side (in parallel, or from a counts table) → check them and
//! bring them to their common scope → aggregate → diff → the finished
//! [`diff::Report`] that [`crate::render`] draws, and beside it, when the
//! output draws them, the differential call trees of [`crate::flame`]
//! ([`Finished`]). The configuration is data ([`Config`]);
//! [`crate::config`] makes it from the command line.

mod config;
mod few;
mod noise;
mod table;

pub use config::{Config, NoiseSpec, SideSpec};
pub use noise::{learn_from_side, learn_model};
pub use table::{load_sides, table_runs};

use crate::aggregate::{self, Side};
use crate::diff;
use crate::flame::{self, Flames};
use crate::load;
use crate::render;
use crate::sanity;
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// What a comparison produced: the report and, only when stacks were asked
/// for (`-o html`, `-o flamegraph`), the differential call trees, which
/// the report knows nothing of.
#[derive(Clone, Debug)]
pub struct Finished {
    pub report: diff::Report,
    pub flames: Option<Flames>,
}

/// Everything but rendering: the report (and flames) of a configuration.
pub fn build_report(config: &Config) -> Result<Finished> {
    if let Some(spec) = &config.table {
        let (config, mut sides, warnings) = load_sides(config, spec)?;
        return report_of_sides(&config, &mut sides, warnings);
    }
    let mut warnings = same_paths(&config.sides);
    let mut sides = Vec::new();
    // Every side at once (a side of one big run is one thread's work);
    // results, warnings and the first error in side order.
    let loaded: Vec<Result<load::Loaded>> = config
        .sides
        .par_iter()
        .map(|spec| load::load_side(&spec.paths, &reading(&config.load)))
        .collect();
    for (spec, loaded) in config.sides.iter().zip(loaded) {
        let loaded = loaded?;
        warnings.extend(loaded.warnings);
        sides.push(Side {
            name: spec.name.clone(),
            label: render::compact_paths(&spec.paths),
            runs: loaded.runs,
        });
    }
    report_of_sides(config, &mut sides, warnings)
}

/// Sampling rates that differ, said when the report compares counts
/// (`-n ticks`, `-o classic`; [`sanity::sampling`]).
pub(crate) fn sampling_rates(sides: &[Side], config: &Config) -> Vec<String> {
    let unit = if config.output == render::OutputFormat::Classic {
        "-o classic"
    } else if config.diff.normalize == aggregate::Normalize::Ticks {
        "-n ticks"
    } else {
        return Vec::new();
    };
    sanity::sampling::check(sides, unit)
}

/// The report of sides already loaded, after `warnings` about loading them:
/// the sides checked and brought to their common scope ([`sanity::prepare`]),
/// then compared.
fn report_of_sides(
    config: &Config,
    sides: &mut [Side],
    mut warnings: Vec<String>,
) -> Result<Finished> {
    crate::scope::pid_unfilterable(sides, &config.load.parse)?;
    warnings.extend(crate::scope::shared_comm(sides, &config.load.parse));
    let mut found = sanity::prepare(
        sides,
        &config.load.parse,
        &config.identity,
        config.allow_duplicates,
    )?;
    warnings.append(&mut found.warnings);
    warnings.extend(sampling_rates(sides, config));
    warnings.extend(run_info_unmatched(sides, config));
    let model = noise::load_noise_model(config, sides, &mut warnings)?;
    let mut done = match &model {
        Some(model) => {
            let mut config = config.clone();
            config.diff.noise_model = Some(model.clone());
            compare_and_release(sides, &config)?
        }
        None => compare_and_release(sides, config)?,
    };
    warnings.extend(contamination(sides, &done.report, model.as_deref(), config));
    warnings.extend(kept_spread(&done.report, config));
    warnings.extend(under_limit(sides, &done.report));
    let report = &mut done.report;
    found.add_notes(&mut report.notes);
    warnings.append(&mut report.warnings);
    report.warnings = diff::dedup_warnings(warnings);
    Ok(done)
}

/// Rows marked new (or gone) against a run that lists only rows down to a
/// percentage (`perf report --percent-limit`): such a symbol may be under
/// the limit there, not absent; one warning per such run.
fn under_limit(sides: &[Side], report: &diff::Report) -> Vec<String> {
    let mut out = Vec::new();
    for (i, side) in sides.iter().enumerate() {
        for run in &side.runs {
            let Some(limit) = run.provenance.listed_down_to else {
                continue;
            };
            let (want, word) = if i == 0 {
                (diff::Status::New, "new")
            } else {
                (diff::Status::Gone, "gone")
            };
            let names: Vec<&str> = report
                .comparisons
                .iter()
                .filter(|c| i == 0 || c.side == i)
                .flat_map(|c| c.rows.iter().chain(&c.hidden))
                .filter(|r| r.status == want)
                .map(|r| r.symbol.as_str())
                .collect();
            if names.is_empty() {
                continue;
            }
            let shown: Vec<&str> = names.iter().take(3).copied().collect();
            let more = match names.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            out.push(format!(
                "{}: it lists rows down to {limit:.2}% only (perf report --percent-limit): \
                 {} row(s) marked {word} ({}{more}) may be under {limit:.2}% there, not \
                 absent: their share in it is unknown (0 to {limit:.2}%); give reports \
                 without --percent-limit",
                run.source,
                names.len(),
                shown.join(", ")
            ));
        }
    }
    out
}

/// `--run-info` rows that match no run compared: named (at most
/// [`sanity::LIST_MAX`], the rest counted), since their durations and work
/// counts are used by nothing (a misspelt path would leave its run
/// without them, which `-n rate` and `-n work` refuse).
fn run_info_unmatched(sides: &[Side], config: &Config) -> Option<String> {
    let rows = config.run_info.unmatched(sides);
    if rows.is_empty() {
        return None;
    }
    let shown = &rows[..rows.len().min(sanity::LIST_MAX)];
    let more = match rows.len() - shown.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "--run-info: {} row(s) match no run compared and are not used: {}{more} \
         (a row's path is the run's as given, or ends with it)",
        rows.len(),
        shown.join(", ")
    ))
}

/// The kept samples' part of a run varies this much (largest over
/// smallest, over every run compared) before it is warned about.
const KEPT_SPREAD: f64 = 1.5;

/// A sample filter (`--comm`, `--pid`, `--dso`) whose kept part of the runs
/// varies a lot between them: in shares of all samples (the default
/// `--percentage absolute`), that spread moves every kept row of a run
/// together and is run-to-run noise of each (docs/statistics.md §5.4, §12.1:
/// a system-wide recording on a busy machine gives the workload 3% of one
/// run and 15% of another); `--percentage relative` compares the kept
/// samples' own profile.
fn kept_spread(report: &diff::Report, config: &Config) -> Option<String> {
    let p = &config.load.parse;
    let sample_filter = p.comm.is_some() || p.pid.is_some() || p.dso.is_some();
    if !sample_filter || config.relative || config.diff.normalize != aggregate::Normalize::Share {
        return None;
    }
    let parts: Vec<f64> = report
        .sides
        .iter()
        .flat_map(|s| &s.runs)
        .filter(|r| r.total > 0.0)
        .map(|r| r.kept.map(|k| k / r.total))
        .collect::<Option<_>>()?;
    let lo = parts.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = parts.iter().copied().fold(0.0, f64::max);
    (parts.len() >= 2 && lo > 0.0 && hi >= KEPT_SPREAD * lo).then(|| {
        format!(
            "the sample filters kept {:.1}% to {:.1}% of the runs' samples: as shares of all samples (--percentage absolute) that spread is run-to-run noise of every kept row; --percentage relative compares the kept samples' own profile",
            100.0 * lo,
            100.0 * hi
        )
    })
}

/// How a comparison reads its runs: whole, `--kernel-only` left to the
/// rows' view ([`crate::identity::Identity::kernel_only`]), so that the
/// noise is learned from every symbol of the runs (docs/statistics.md §8.2).
pub fn reading(load: &load::LoadOptions) -> load::LoadOptions {
    let mut load = load.clone();
    load.parse.kernel_only = false;
    load
}

/// The warnings of [`sanity::contamination`]: the report's marked rows
/// (shown, and hidden ones it kept) and the noise model's runs.
fn contamination(
    sides: &[Side],
    report: &diff::Report,
    model: Option<&crate::noise_model::NoiseModel>,
    config: &Config,
) -> Vec<String> {
    use sanity::contamination::{check, Compared, Marked, ModelRuns};
    let compared: Vec<Compared> = report
        .comparisons
        .iter()
        .map(|c| Compared {
            side: c.side,
            marked: c
                .rows
                .iter()
                .chain(&c.hidden)
                .filter(|r| r.significant())
                .map(|r| Marked {
                    symbol: r.symbol,
                    counts: r
                        .old_counts()
                        .iter()
                        .chain(r.new_counts())
                        .copied()
                        .collect(),
                })
                .collect(),
        })
        .collect();
    let runs = model.map(|m| ModelRuns {
        source: &m.source,
        comms: m.runs.iter().map(|r| r.comms.clone()).collect(),
    });
    check(
        sides,
        &compared,
        runs.as_ref(),
        config.load.parse.comm.is_some(),
    )
}

/// The sides' count matrix (identity options applied) and every run's
/// exposure under the configured normalisation.
pub(crate) fn count_matrix(
    sides: &[Side],
    config: &Config,
) -> Result<(aggregate::Matrix, Vec<Vec<f64>>)> {
    let identity = config
        .identity
        .with_idle_of(sides.iter().flat_map(|s| &s.runs).map(|r| &r.idle));
    let matrix = aggregate::build(sides, &identity);
    let exposures = aggregate::exposures(
        sides,
        &matrix,
        config.diff.normalize,
        &config.run_info,
        config.relative,
    )?;
    Ok((matrix, exposures))
}

/// `--jobs` also for work done outside [`thread_pool`] (rendering in
/// parallel): rayon's global pool, which a process sets up once, so the
/// first setting stands (output never depends on it).
pub fn global_jobs(jobs: Option<usize>) {
    if let Some(n) = jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
}

/// The worker threads of `--jobs` (all cores by default).
pub fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")
}

/// Aggregate and compare sides already loaded (the first is the baseline);
/// with stacks asked for, build their flames too.
pub fn compare_sides(sides: &[Side], config: &Config) -> Result<Finished> {
    let taken = take(sides, config)?;
    Ok(taken.compare(config))
}

/// [`compare_sides`] for sides used once: every run's counts are freed as
/// soon as the count matrix holds them, before the rows are built (a
/// million symbols a side hold tens of MB in the runs).
fn compare_and_release(sides: &mut [Side], config: &Config) -> Result<Finished> {
    let taken = take(sides, config)?;
    for run in sides.iter_mut().flat_map(|s| &mut s.runs) {
        run.counts = Default::default();
    }
    Ok(taken.compare(config))
}

/// All a comparison needs of its sides, taken from them.
struct Taken {
    /// Sides too small to mark anything on ([`few`]).
    few: Vec<String>,
    /// Each run's samples kept by the sample filters, when any was given.
    kept: Option<Vec<Vec<f64>>>,
    matrix: aggregate::Matrix,
    exposures: Vec<Vec<f64>>,
    ctx: diff::Context,
    flames: Option<Flames>,
}

/// The sides' count matrix, exposures, what the report says of their runs,
/// and their flames when stacks were asked for.
fn take(sides: &[Side], config: &Config) -> Result<Taken> {
    let (matrix, exposures) = count_matrix(sides, config)?;
    let relative = config.relative && config.diff.normalize == aggregate::Normalize::Share;
    let ctx = diff::Context::of(sides, &exposures, &matrix, (config.render.wide, relative));
    let flames = config.load.parse.stacks.then(|| {
        // Frames are judged as the rows are (the comparison's --alpha,
        // --adjust, --noise-cv; untested when counts are not samples).
        let tests = crate::significance::Options {
            alpha: config.diff.alpha,
            adjust: config.diff.adjust,
            noise_cv: config.diff.noise_cv,
            testable: aggregate::counts_are_samples(sides),
            // (A frame's exposure is its run's samples: shares.)
            shares: true,
            // (Frames are nested paths: the family is the whole tree.)
            filter: false,
        };
        flame::build(sides, &config.identity, config.flame, &tests)
    });
    let p = &config.load.parse;
    let filtered = p.comm.is_some() || p.pid.is_some() || p.dso.is_some() || p.kernel_only;
    let kept = filtered.then(|| {
        sides
            .iter()
            .map(|s| s.runs.iter().map(|r| kept_of(r, p.kernel_only)).collect())
            .collect()
    });
    let few = few::warnings(sides, &matrix, &exposures, config);
    Ok(Taken {
        few,
        kept,
        matrix,
        exposures,
        ctx,
        flames,
    })
}

/// What the sample filters kept of a run: its counts (filtered as it was
/// read), and with `--kernel-only`, which leaves user rows out of the
/// table rather than out of the run, its kernel rows alone; samples no
/// row holds (readprofile's `*unknown*`, ticks past the map) are kernel.
fn kept_of(run: &crate::profile::Profile, kernel_only: bool) -> f64 {
    // Inclusive counts climb the stack: the leaves count each sample once.
    let counts = if run.inclusive {
        &run.leaves
    } else {
        &run.counts
    };
    let rows: f64 = counts
        .iter()
        .filter(|(k, _)| !kernel_only || crate::identity::is_kernel_mode(k.mode))
        .map(|(_, c)| c)
        .sum();
    rows + run.unattributed
}

impl Taken {
    fn compare(self, config: &Config) -> Finished {
        let mut report = diff::compare(self.ctx, &self.exposures, self.matrix, &config.diff);
        report.notes.extend(config.notes.iter().cloned());
        report.warnings.extend(self.few);
        report
            .warnings
            .extend(self.flames.iter().flat_map(Flames::warnings));
        for (side, kept) in report.sides.iter_mut().zip(self.kept.iter().flatten()) {
            for (run, &k) in side.runs.iter_mut().zip(kept) {
                run.kept = Some(k);
            }
        }
        Finished {
            report,
            flames: self.flames,
        }
    }
}

/// A recording on two sides (the same file as OLD and NEW), however it is
/// named: the files each path resolves to (a file itself, every run file
/// of a directory; an archive is one file, so its members are too) are
/// compared by device and inode, not by how the paths are spelt, so `DIR`
/// and `./DIR`, a directory and its own files, or a file and a link to it
/// are said. One warning per pair of sides: the path itself when both name
/// one file directly, else each file and the paths it was found through.
pub fn same_paths(sides: &[SideSpec]) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    // (device, inode) -> (side, path named, file found through it).
    let mut seen: BTreeMap<(u64, u64), (&str, &str, String)> = BTreeMap::new();
    // (first side, second side) -> (file, path on the first, on the second).
    type Shared<'a> = BTreeMap<(&'a str, &'a str), Vec<(String, &'a str, &'a str)>>;
    let mut shared: Shared = BTreeMap::new();
    for s in sides {
        for p in &s.paths {
            let Ok(expanded) = crate::input::expand(p) else {
                continue;
            };
            for loc in &expanded.locations {
                let crate::input::Location::File(file) = loc else {
                    continue;
                };
                if expanded.from_dir && load::is_map_name(&file.to_string_lossy()) {
                    continue;
                }
                let Ok(meta) = std::fs::metadata(file) else {
                    continue;
                };
                let key = (meta.dev(), meta.ino());
                match seen.get(&key) {
                    Some((side, first, found)) if *side != s.name => {
                        shared.entry((side, s.name.as_str())).or_default().push((
                            found.clone(),
                            first,
                            p.as_str(),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(key, (&s.name, p, loc.display()));
                    }
                }
            }
        }
    }
    let order: Vec<&str> = sides.iter().map(|s| s.name.as_str()).collect();
    let rank = |n: &str| order.iter().position(|&o| o == n);
    let mut pairs: Vec<_> = shared.into_iter().collect();
    pairs.sort_by_key(|((a, b), _)| (rank(a), rank(b)));
    pairs
        .into_iter()
        .map(|((a, b), files)| {
            let (a, b) = (crate::text::side_name(a), crate::text::side_name(b));
            let direct = |(f, x, y): &(String, &str, &str)| f == x && x == y;
            if let [one] = files.as_slice() {
                if direct(one) {
                    return format!(
                        "{} is named as {a} and as {b}: a recording compared with itself",
                        one.0
                    );
                }
            }
            let shown: Vec<String> = files
                .iter()
                .take(sanity::LIST_MAX)
                .map(|one| match direct(one) {
                    true => one.0.clone(),
                    false => format!("{} ({a}: {}, {b}: {})", one.0, one.1, one.2),
                })
                .collect();
            let more = match files.len() - shown.len() {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            format!(
                "{} file(s) named as {a} and as {b}: a recording compared with itself: {}{more}",
                files.len(),
                shown.join("; ")
            )
        })
        .collect()
}
