//! Statistics: the pure functions that decide whether a symbol's change
//! between the OLD and NEW kernel is real or noise (docs/statistics.md,
//! version 2, is the method; every formula here cites its section).
//!
//! Input: pooled or per-run counts and exposures (the normaliser of each
//! run); output: p-values, dispersions, rate ratios, differences and their
//! intervals. Everything is deterministic. Layers: the exact conditional
//! test on pooled counts (always, [`exact`]); the quasi-likelihood ratio F
//! test with profile-likelihood intervals ([`ql`]); the dispersion, moderated
//! across symbols ([`moderate`]) or measured around the common shift with
//! one run per side, each row then tested against the band between no
//! change and that shift ([`onerun`]); multiple-testing adjustment and the intervals'
//! level ([`adjust`]); the `--normalize robust` size factors and descriptive
//! helpers. Combining the layers per row is [`crate::significance`]'s job,
//! so each function here stays one formula.

mod adjust;
mod describe;
mod dist;
mod exact;
mod filter;
mod moderate;
mod onerun;
mod ql;
mod runs;
mod special;
mod temme;

pub use adjust::{adjust, interval_level, Adjust};
pub use describe::{cv_percent, median, size_factors, SIZE_FACTOR_MIN_COUNT};
pub use dist::{digamma, f1_sf, f1_upper_quantile, f_sf, tetragamma, trigamma, trigamma_inverse};
pub use exact::{
    cp_ratio_interval, cp_reaches_beyond, exact_p, exact_test, min_reachable_p, Exact,
};
pub use filter::{independent_filter, lowess, quantile7, Filter, FILTER_MIN_REJECTIONS};
pub use moderate::{Dispersion, Prior, MIN_MEAN_COUNT};
pub use onerun::{band_deviance, deviance_at_ratio, one_run, OneRun, ONE_RUN_DF};
pub use ql::{
    critical, delta_at_ratio, delta_interval, log_test, lr_stat, pearson_x2, ql_p, ratio_interval,
    separated, LogTest, SEPARATION,
};
pub use runs::{check_against, check_side, RunCheck, SCALE_LIMIT, WORST};
