//! Noise models for a comparison: learned from replicate runs, or read from
//! the file `diffprofile noise-model` wrote (docs/statistics.md §5.3).

use super::{count_matrix, Config, NoiseSpec};
use crate::aggregate::Side;
use crate::diff;
use crate::load;
use crate::noise_model::{self, NoiseModel, Replicates};
use anyhow::{Context, Result};
use std::sync::Arc;

/// Learn a noise model from replicate runs (files, directories, archives)
/// read, filtered, named and normalised as `config` says; with its warnings.
pub fn learn_model(paths: &[String], config: &Config) -> Result<(NoiseModel, Vec<String>)> {
    let loaded = load::load_side(paths, &super::reading(&config.load))?;
    let side = Side {
        name: "replicates".to_string(),
        label: paths.join(" "),
        runs: loaded.runs,
    };
    let source = format!("learned from {}", paths.join(" "));
    let context = || format!("noise model from {}", paths.join(" "));
    // Checked as a side of a comparison is: no empty runs, no copies.
    let checked = crate::sanity::replicates(&side, &config.load.parse, config.allow_duplicates)
        .with_context(context)?;
    let (model, mut warnings) = learn_from_side(&side, config, source).with_context(context)?;
    warnings.splice(0..0, loaded.warnings.into_iter().chain(checked));
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
    warnings.extend(crate::format::unresolved::summary(&runs, false));
    let model = noise_model::learn(Replicates {
        counts: &matrix.counts[0],
        exposures: &exposures[0],
        idents: matrix
            .symbols
            .iter()
            .map(|s| (s.ident.name.to_string(), s.ident.dso.map(|d| d.to_string())))
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
                comms: r
                    .comms
                    .as_ref()
                    .map(|c| c.samples.iter().map(|(n, &w)| (n.to_string(), w)).collect()),
            })
            .collect(),
        normalize: config.diff.normalize.name().to_string(),
        event,
        source,
    })?;
    Ok((model, warnings))
}

/// How `--noise-from` runs are given their kernel map: beside them, in
/// the directory of the first (itself when it is one).
fn noise_runs_advice(paths: &[String]) -> crate::symmap::MapAdvice {
    let first = paths.first().map_or("", String::as_str);
    let path = std::path::Path::new(first);
    let dir = if path.is_dir() {
        first.trim_end_matches('/').to_string()
    } else {
        path.parent()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    crate::symmap::MapAdvice::NoiseRuns { dir }
}

/// The noise model a configuration names, read or learned; warnings when
/// it was made under other options than this comparison's (`-n`, the
/// event of `sides`' runs).
pub(super) fn load_noise_model(
    config: &Config,
    sides: &[Side],
    warnings: &mut Vec<String>,
) -> Result<Option<Arc<NoiseModel>>> {
    let model = match &config.noise {
        None => return Ok(None),
        Some(NoiseSpec::File(path)) => {
            let text = std::fs::read_to_string(crate::input::os_path(path))
                .with_context(|| format!("{path}: cannot read the noise model"))?;
            NoiseModel::from_json(&text, path)?
        }
        Some(NoiseSpec::Runs(paths)) => {
            // Map errors of these runs say how they get their own map.
            let mut config = config.clone();
            config.load.parse.advice = noise_runs_advice(paths);
            let (model, w) = learn_model(paths, &config)?;
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
    if let Some(w) = other_event(&model, sides) {
        warnings.push(w);
    }
    Ok(Some(Arc::new(model)))
}

/// A warning when the model was learned from runs of another event than
/// the compared runs' (a cpu-clock model for task-clock runs): run-to-run
/// noise is a property of what was sampled, so the model may not describe
/// these runs. Said only when both know their event.
fn other_event(model: &NoiseModel, sides: &[Side]) -> Option<String> {
    let learned = model.event.as_deref()?;
    let mut events: Vec<&str> = sides
        .iter()
        .flat_map(|s| &s.runs)
        .filter_map(|r| r.event.as_deref())
        .filter(|e| *e != learned)
        .collect();
    events.sort_unstable();
    events.dedup();
    (!events.is_empty()).then(|| {
        format!(
            "the noise model ({}) was learned from {learned} runs, the compared runs are of {}: \
             its noise may not describe them; learn a model from runs of the same event",
            model.source,
            events.join(", ")
        )
    })
}
