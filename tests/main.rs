//! Integration tests: the single test binary.
