//! SCAFFOLD: statistics (owned by a helper).
