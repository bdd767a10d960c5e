//! Significance for the frames of a differential call tree: each frame's
//! inclusive count in every run is a count table like the symbols' (a
//! frame a row, a run a column, the run's total samples its exposure), and
//! it is judged by the crate's own machinery
//! ([`crate::significance::judge_all`]): the same dispersion estimation
//! (moderated across the frames when there are replicate runs, measured
//! across frames with one run per side), the same exact and
//! quasi-likelihood tests, and one multiple-testing family, the tree's
//! frames, adjusted by the comparison's `--adjust` at its `--alpha`.
//! Input: the tree and its per-run counts; output: every node's
//! [`FrameTest`] and a [`FrameNoise`] summary.

use super::tree::{FrameTest, Mark, Tree};
use crate::significance::{self, Counts, Noise};
use crate::stats::Adjust;

/// How the frames of one graph were judged, for the graph's legend.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameNoise {
    pub noise: Noise,
    pub alpha: f64,
    pub adjust: Adjust,
    /// Frames tested (enough samples to ever be significant).
    pub tested: usize,
    /// Significant frames whose inclusive share grew / shrank.
    pub worse: usize,
    pub better: usize,
}

/// Judge every frame of `tree`; `counts` holds each node's inclusive count
/// per run (node-major: the baseline's runs, then the compared side's),
/// `exposures` each run's total samples in the same order.
pub fn judge(
    tree: &mut Tree,
    counts: &[f64],
    exposures: (&[f64], &[f64]),
    opts: &significance::Options,
) -> FrameNoise {
    let (old_exp, new_exp) = exposures;
    let runs = old_exp.len() + new_exp.len();
    let rows: Vec<Counts> = counts
        .chunks_exact(runs.max(1))
        .map(|row| {
            let (old, new) = row.split_at(old_exp.len());
            Counts { old, new }
        })
        .collect();
    // No noise model for frames: a model's priors are per symbol, and a
    // frame is a path of symbols (one run per side is judged across frames).
    let (verdicts, noise) = significance::judge_all(&rows, old_exp, new_exp, None, opts);
    drop(rows);
    let mut out = FrameNoise {
        noise,
        alpha: opts.alpha,
        adjust: opts.adjust,
        tested: 0,
        worse: 0,
        better: 0,
    };
    for (i, node) in tree.nodes_mut().iter_mut().enumerate() {
        let v = verdicts.get(i);
        let mark = match (v.p.is_some(), v.significant) {
            (false, _) => Mark::Untested,
            (true, true) => Mark::Significant,
            (true, false) => Mark::Noise,
        };
        node.test = FrameTest {
            p: v.p,
            q: v.q,
            delta_ci: v.delta_ci,
            mark,
        };
        out.tested += usize::from(v.p.is_some());
        if mark == Mark::Significant {
            let d = node.incl_delta();
            out.worse += usize::from(d > 0.0);
            out.better += usize::from(d < 0.0);
        }
    }
    out
}
