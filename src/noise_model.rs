//! Noise models (docs/statistics.md §5.3): run-to-run noise learned once
//! from R ≥ 3 replicate runs of one kernel, kept as versioned JSON, and
//! turned into a prior dispersion for each row of a later comparison.
//! Input: one side's count matrix and exposures (learning), or a file;
//! output: a [`NoiseModel`], and per row a [`Dispersion`] prior.

use crate::significance::{ModelInfo, ModelPriors};
use crate::stats::{self, Dispersion, Prior};
use anyhow::{bail, Context, Result};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The file format's version (`diffprofile_noise_model`).
pub const VERSION: u32 = 1;

/// One run the model was learned from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelRun {
    pub source: String,
    pub format: String,
    pub total: f64,
    pub exposure: f64,
    /// Counted samples per process (perf's comm), when the run names them:
    /// a comparison warns when its runs' mix differs from the model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comms: Option<BTreeMap<String, f64>>,
}

/// The moderation prior of §5.2 fitted on the replicate runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelPrior {
    pub symbols: usize,
    pub trend_c: f64,
    pub trend_r: f64,
    /// The range the trend is held in (statistics version 3); absent in
    /// models written before it (then unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trend_lo: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trend_hi: Option<f64>,
    /// d0; `null` when infinite.
    pub prior_df: Option<f64>,
    pub prior_df_cap: f64,
}

/// One symbol's run-to-run noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSymbol {
    pub symbol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dso: Option<String>,
    /// μ: mean count per run.
    pub mean_count: f64,
    /// Pearson's X²/(R − 1).
    pub s2: f64,
    /// φ after moderation (≥ 1) and its degrees of freedom ν.
    pub dispersion: f64,
    pub df: f64,
    /// `(φ − 1)/μ`: the squared run-to-run CV.
    pub kappa: f64,
}

/// A learned noise model, as written to and read from JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NoiseModel {
    pub diffprofile_noise_model: u32,
    pub normalize: String,
    pub event: Option<String>,
    pub runs: Vec<ModelRun>,
    /// `d_m = R − 1`.
    pub residual_df: f64,
    pub moderation: Option<ModelPrior>,
    pub symbols: Vec<ModelSymbol>,
    /// The file it was read from, or the runs it was learned from.
    #[serde(skip)]
    pub source: String,
}

/// What [`learn`] needs about the runs and the rows.
pub struct Replicates<'a> {
    /// `counts[run][symbol]`.
    pub counts: &'a [Vec<f64>],
    pub exposures: &'a [f64],
    /// Every symbol's (name, dso), aligned with the counts' columns.
    pub idents: Vec<(String, Option<String>)>,
    pub runs: Vec<ModelRun>,
    pub normalize: String,
    pub event: Option<String>,
    pub source: String,
}

/// Learn a model from R ≥ 3 replicate runs (§5.3).
pub fn learn(rep: Replicates) -> Result<NoiseModel> {
    let r = rep.counts.len();
    if r < 3 {
        bail!("a noise model needs at least 3 replicate runs of one kernel, got {r}");
    }
    let d = (r - 1) as f64;
    let mut keep = Vec::new();
    let (mut s2, mut mean) = (Vec::new(), Vec::new());
    for (i, ident) in rep.idents.iter().enumerate() {
        let runs: Vec<(f64, f64)> = rep
            .counts
            .iter()
            .zip(rep.exposures)
            .map(|(c, &e)| (c[i], e))
            .collect();
        let total: f64 = runs.iter().map(|x| x.0).sum();
        if total > 0.0 {
            keep.push(ident);
            s2.push(stats::pearson_x2(&runs) / d);
            mean.push(total / r as f64);
        }
    }
    let prior = Prior::fit(&s2, &mean, d);
    let disp: Vec<Dispersion> = match &prior {
        Some(p) => p.posterior(&s2, &mean),
        None => s2
            .iter()
            .map(|&s| Dispersion {
                phi: s.max(1.0),
                df: d,
            })
            .collect(),
    };
    let symbols = keep
        .into_iter()
        .zip(s2.iter().zip(&mean).zip(&disp))
        .map(|((name, dso), ((&s2, &mu), disp))| ModelSymbol {
            symbol: name.clone(),
            dso: dso.clone(),
            mean_count: mu,
            s2,
            dispersion: disp.phi,
            df: disp.df,
            kappa: (disp.phi - 1.0) / mu,
        })
        .collect();
    Ok(NoiseModel {
        diffprofile_noise_model: VERSION,
        normalize: rep.normalize,
        event: rep.event,
        runs: rep.runs,
        residual_df: d,
        moderation: prior.map(|p| ModelPrior {
            symbols: p.symbols,
            trend_c: p.trend_c,
            trend_r: p.trend_r,
            trend_lo: Some(p.trend_lo),
            trend_hi: Some(p.trend_hi),
            prior_df: p.d0.is_finite().then_some(p.d0),
            prior_df_cap: p.d_cap,
        }),
        symbols,
        source: rep.source,
    })
}

impl NoiseModel {
    /// Read and check a model file's text.
    pub fn from_json(text: &str, path: &str) -> Result<NoiseModel> {
        let mut m: NoiseModel = serde_json::from_str(text)
            .with_context(|| format!("{path}: not a diffprofile noise model"))?;
        if m.diffprofile_noise_model != VERSION {
            bail!(
                "{path}: noise model version {} is not supported (this diffprofile reads version {VERSION})",
                m.diffprofile_noise_model
            );
        }
        if !(m.residual_df >= 2.0 && m.residual_df.is_finite()) {
            bail!("{path}: residual_df must be at least 2 (3 or more runs)");
        }
        let bad = m.symbols.iter().find(|s| {
            !(s.mean_count > 0.0
                && s.mean_count.is_finite()
                && s.dispersion >= 1.0
                && s.dispersion.is_finite()
                && s.df > 0.0
                && s.df.is_finite()
                && s.kappa >= 0.0
                && s.kappa.is_finite())
        });
        if let Some(s) = bad {
            bail!(
                "{path}: symbol {}: mean_count, dispersion (>= 1), df and kappa must be positive finite numbers",
                s.symbol
            );
        }
        m.source = path.to_string();
        Ok(m)
    }

    /// The model as pretty JSON (one key per line, stable order).
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }

    /// The prior of §5.2 this model was moderated with, if any.
    fn prior(&self) -> Option<Prior> {
        self.moderation.as_ref().map(|m| Prior {
            symbols: m.symbols,
            d: self.residual_df,
            trend_c: m.trend_c,
            trend_r: m.trend_r,
            trend_lo: m.trend_lo.unwrap_or(f64::NEG_INFINITY),
            trend_hi: m.trend_hi.unwrap_or(f64::INFINITY),
            d0: m.prior_df.unwrap_or(f64::INFINITY),
            d_cap: m.prior_df_cap,
        })
    }

    /// §5.5: one run of a comparison against the model's replicates: for
    /// each row (name, dso, count in the run) the model knows with a mean
    /// count of 5 or more, `(row, count, expected count, φ)`; the expected
    /// count is the model's rate times the run's exposure, φ the model's
    /// `1 + κ μ` there.
    pub fn expected_in(
        &self,
        rows: &[(&str, Option<&str>, f64)],
        exposure: f64,
    ) -> Vec<(usize, f64, f64, f64)> {
        let per_run = self.exposure_per_run();
        if per_run.is_nan() || per_run <= 0.0 {
            return Vec::new();
        }
        let by_name = self.by_name();
        rows.iter()
            .enumerate()
            .filter_map(|(i, &(name, dso, c))| {
                let s = by_name
                    .get(&(name, dso))
                    .or_else(|| by_name.get(&(name, None)))?;
                (s.mean_count >= stats::MIN_MEAN_COUNT).then(|| {
                    let mu = s.mean_count * exposure / per_run;
                    (i, c, mu, 1.0 + s.kappa * mu)
                })
            })
            .collect()
    }

    /// The model's mean exposure per run (NaN or ≤ 0: none).
    fn exposure_per_run(&self) -> f64 {
        let total: f64 = self.runs.iter().map(|r| r.exposure).sum();
        total / self.runs.len().max(1) as f64
    }

    /// §5.3, one run per side: the single OLD run, a run of the kernel the
    /// model describes, joins the model as one more replicate. For row i
    /// (name, dso, its count c in the OLD run of exposure `exposure`), the
    /// model expects `e = μ_model · N_old / N̄_model` (0 for a symbol the
    /// model never saw) with the model's dispersion φ_e there, and
    /// `z² = (c − e)² / (φ_e max(e, 1) (1 + 1/R))`; the row's prior (φ_p,
    /// ν_p) is updated as a scaled χ² prior by one observation of χ²₁:
    /// `φ = max(1, φ_p (ν_p + z²)/(ν_p + 1))`, `ν = ν_p + 1`. A burst in
    /// the OLD run (or a symbol the model's replicates never had) raises
    /// its own φ; a run that agrees with the model adds a degree of freedom.
    pub fn join_old_run(
        &self,
        priors: &mut ModelPriors,
        rows: &[(&str, Option<&str>, f64)],
        exposure: f64,
    ) {
        let per_run = self.exposure_per_run();
        if per_run.is_nan() || per_run <= 0.0 || exposure <= 0.0 || self.runs.is_empty() {
            return;
        }
        let by_name = self.by_name();
        let prior = self.prior();
        let lever = 1.0 + 1.0 / self.runs.len() as f64;
        for (p, &(name, dso, c)) in priors.priors.iter_mut().zip(rows) {
            let hit = by_name
                .get(&(name, dso))
                .or_else(|| by_name.get(&(name, None)))
                .copied();
            let e = hit.map_or(0.0, |s| s.mean_count * exposure / per_run);
            let phi_e = self.prior_at(hit, prior.as_ref(), e).phi.max(1.0);
            let z2 = (c - e).powi(2) / (phi_e * e.max(1.0) * lever);
            if !(z2.is_finite() && p.df.is_finite()) {
                continue;
            }
            p.phi = (p.phi * (p.df + z2) / (p.df + 1.0)).max(1.0);
            p.df += 1.0;
        }
    }

    fn by_name(&self) -> FxHashMap<(&str, Option<&str>), &ModelSymbol> {
        self.symbols
            .iter()
            .map(|s| ((s.symbol.as_str(), s.dso.as_deref()), s))
            .collect()
    }

    /// A row's prior at mean count `mean` (§5.3): the symbol's own
    /// `1 + κ μ` when the model knows it, else the model's trend.
    fn prior_at(&self, hit: Option<&ModelSymbol>, prior: Option<&Prior>, mean: f64) -> Dispersion {
        match (hit, prior) {
            (Some(s), _) => Dispersion {
                phi: 1.0 + s.kappa * mean,
                df: s.df,
            },
            (None, Some(p)) => Dispersion {
                phi: p.scale(mean).max(1.0),
                df: self.residual_df + p.d_cap,
            },
            (None, None) => Dispersion {
                phi: 1.0,
                df: self.residual_df,
            },
        }
    }

    /// Each row's prior (§5.3), rows given as (name, dso, mean count per
    /// run of the comparison); a warning when the model knows few of the
    /// rows' samples (a model of another workload?).
    pub fn priors_for(
        &self,
        rows: &[(&str, Option<&str>, f64)],
        side: &str,
        warnings: &mut Vec<String>,
    ) -> ModelPriors {
        let by_name = self.by_name();
        let prior = self.prior();
        let (mut known, mut all) = (0.0, 0.0);
        let priors = rows
            .iter()
            .map(|&(name, dso, mean)| {
                all += mean;
                let hit = by_name
                    .get(&(name, dso))
                    .or_else(|| by_name.get(&(name, None)))
                    .copied();
                if hit.is_some() {
                    known += mean;
                }
                self.prior_at(hit, prior.as_ref(), mean)
            })
            .collect();
        if all > 0.0 && known < 0.5 * all {
            warnings.push(format!(
                "{side}the noise model ({}) knows the symbols of only {:.0}% of the samples compared: is it of this workload and kernel?",
                self.source,
                100.0 * known / all
            ));
        }
        ModelPriors {
            info: ModelInfo {
                source: self.source.clone(),
                runs: self.runs.len(),
                residual_df: self.residual_df,
            },
            priors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replicates(counts: &[Vec<f64>]) -> Replicates<'_> {
        let n = counts[0].len();
        Replicates {
            counts,
            exposures: &[1e4, 1e4, 1e4],
            idents: (0..n).map(|i| (format!("s{i}"), None)).collect(),
            runs: vec![],
            normalize: "share".into(),
            event: None,
            source: "test".into(),
        }
    }

    #[test]
    fn learns_and_round_trips() {
        let counts: Vec<Vec<f64>> = (0..3)
            .map(|r| {
                (0..14)
                    .map(|i| 20.0 + 10.0 * i as f64 + ((r * 7 + i) % 5) as f64 * 3.0)
                    .chain([0.0])
                    .collect()
            })
            .collect();
        let m = learn(replicates(&counts)).expect("3 runs");
        assert_eq!(m.symbols.len(), 14, "the all-zero symbol is left out");
        assert_eq!(m.residual_df, 2.0);
        assert!(m.moderation.is_some());
        for s in &m.symbols {
            assert!(s.dispersion >= 1.0 && s.df > 2.0 && s.kappa >= 0.0, "{s:?}");
        }
        let text = m.to_json().expect("serialises");
        let back = NoiseModel::from_json(&text, "m.json").expect("reads back");
        assert_eq!(back.symbols, m.symbols);
        assert_eq!(back.source, "m.json");
        let mut w = Vec::new();
        let p = back.priors_for(&[("s3", None, 50.0), ("nope", None, 50.0)], "new", &mut w);
        let s3 = &m.symbols[3];
        assert_eq!(p.priors[0].phi, 1.0 + s3.kappa * 50.0);
        assert_eq!(p.priors[0].df, s3.df);
        assert_eq!(
            p.priors[1].df,
            2.0 + m.moderation.as_ref().unwrap().prior_df_cap
        );
        assert!(w.is_empty(), "{w:?}");
        back.priors_for(&[("nope", None, 50.0)], "new", &mut w);
        assert_eq!(w.len(), 1, "a model that knows nothing is warned about");
    }

    /// §5.3: the single OLD run joins the model. A burst in it raises that
    /// row's φ; a count the model expects adds a degree of freedom and
    /// barely moves φ; a symbol the model's replicates never had, present
    /// in the OLD run, is noisy.
    #[test]
    fn the_old_run_joins_the_model() {
        let counts: Vec<Vec<f64>> = (0..3)
            .map(|r| {
                (0..14)
                    .map(|i| 20.0 + 10.0 * i as f64 + ((r * 7 + i) % 5) as f64 * 3.0)
                    .collect()
            })
            .collect();
        let mut rep = replicates(&counts);
        rep.runs = (0..3)
            .map(|r| ModelRun {
                source: format!("run{r}"),
                format: "folded".into(),
                total: 1e4,
                exposure: 1e4,
                comms: None,
            })
            .collect();
        let m = learn(rep).expect("3 runs");
        let s5 = &m.symbols[5];
        let mu = s5.mean_count;
        let keys = [
            ("s5", None, mu),
            ("s6", None, m.symbols[6].mean_count),
            ("new", None, 100.0),
        ];
        let mut w = Vec::new();
        let before = m.priors_for(&keys, "new", &mut w);
        let mut after = before.clone();
        let old = [
            ("s5", None, 3.0 * mu),
            ("s6", None, m.symbols[6].mean_count),
            ("new", None, 200.0),
        ];
        m.join_old_run(&mut after, &old, 1e4);
        let (b, a) = (&before.priors, &after.priors);
        assert!(
            a[0].phi > 10.0 * b[0].phi,
            "a burst: {:?} -> {:?}",
            b[0],
            a[0]
        );
        assert!(
            a[1].phi <= b[1].phi * 1.01,
            "as expected: {:?} -> {:?}",
            b[1],
            a[1]
        );
        assert!(
            a[2].phi > 10.0 * b[2].phi,
            "never in the model: {:?} -> {:?}",
            b[2],
            a[2]
        );
        for (b, a) in b.iter().zip(a) {
            assert_eq!(a.df, b.df + 1.0);
        }
        // A model without runs' exposures cannot scale its means: unchanged.
        let mut none = m.clone();
        none.runs.clear();
        let mut same = before.clone();
        none.join_old_run(&mut same, &old, 1e4);
        assert_eq!(same, before);
    }

    #[test]
    fn refuses_too_few_runs_and_bad_files() {
        let counts = vec![vec![1.0, 2.0]; 2];
        let mut rep = replicates(&counts);
        rep.exposures = &[1.0, 1.0];
        assert!(learn(rep).is_err());
        assert!(NoiseModel::from_json("{}", "x.json").is_err());
        let text = r#"{"diffprofile_noise_model": 2, "normalize": "share", "event": null, "runs": [], "residual_df": 2, "moderation": null, "symbols": []}"#;
        let err = NoiseModel::from_json(text, "x.json")
            .unwrap_err()
            .to_string();
        assert!(err.contains("version 2"), "{err}");
    }
}
