//! Scratch directories for tests that need files: each one removed when
//! its guard goes out of scope, also when the test fails (a panic unwinds
//! through the guard), so the suite leaves nothing in the temp directory.

use std::path::{Path, PathBuf};

/// A fresh directory `PREFIX-PID-NAME` under the temp directory, removed
/// with everything in it when dropped.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(prefix: &str, name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}
