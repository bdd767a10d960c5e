//! Statistics: the pure functions that decide whether a symbol's change
//! between the OLD and NEW kernel is real or noise.
//!
//! Input: pooled or per-run counts and exposures (the normaliser of each
//! run); output: p-values, rate ratios, differences and their intervals.
//! Everything is closed-form and deterministic, and every formula is cited
//! from `shared/design/statistics.md`, whose test vectors the unit tests
//! reproduce. Layers: the exact conditional test on pooled counts (always),
//! the quasi-Poisson run layer (three or more runs in all), a noise floor
//! across symbols (one run per side), multiple-testing adjustment, the
//! `--normalize robust` size factors and small descriptive helpers.
//! Combining layers (`p = max(...)`, the hull of the ratio intervals) is the
//! caller's job, so each function here stays one formula.

mod adjust;
mod describe;
mod exact;
mod noise;
mod quasi;
mod special;

pub use adjust::{adjust, Adjust};
pub use describe::{cv_percent, median, size_factors, SIZE_FACTOR_MIN_COUNT};
pub use exact::{exact_test, min_reachable_p, Exact};
pub use noise::{
    delta_ci_one_run, noise_floor, noise_test, NoiseFloor, NoiseSource, NoiseTest, NOISE_MIN_COUNT,
    NOISE_MIN_SYMBOLS,
};
pub use quasi::{quasi_poisson, Quasi};
