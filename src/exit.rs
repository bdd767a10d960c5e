//! Exit codes, defined once.

/// Success (also: stdout closed by the reader, as in `diffprofile … | head`).
pub const SUCCESS: u8 = 0;
/// Only with `--fail-on-regression`: a significant regression was reported.
pub const REGRESSION: u8 = 1;
/// Any error: bad arguments, unreadable or malformed input.
pub const ERROR: u8 = 2;
