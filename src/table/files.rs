//! Which files make up a counts table: one Parquet file, or a directory of
//! them as engines write (Spark's `part-*.parquet` beside `_SUCCESS` and
//! hidden `.crc` files, DuckDB's `data_0.parquet`), where a directory named
//! `column=value` (hive partitions: `benchmark=x/`) stands for a column the
//! files below it lack. Files are recognised by their `PAR1` magic.

use crate::input::{self, EntryKind};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// Every Parquet file of the table at `path`, in path order.
pub fn list(path: &str) -> Result<Vec<TableFile>> {
    let root = &crate::input::os_path(path);
    let mut files = Vec::new();
    if root.is_dir() {
        files = walk(root, false)?;
        if files.is_empty() {
            bail!("{path}: no Parquet files in this directory");
        }
    } else if is_parquet(root)? {
        files.push(TableFile {
            path: root.to_path_buf(),
            partitions: Vec::new(),
        });
    } else {
        bail!("{path}: not a Parquet file or a directory of them");
    }
    Ok(files)
}

/// True when `path` is a counts table: a Parquet file, or a directory
/// whose visible files (not hidden, not `_`-prefixed) are all Parquet.
pub fn is_table(path: &Path) -> Result<bool> {
    if !path.exists() {
        return Ok(false);
    }
    if path.is_file() {
        return is_parquet(path);
    }
    if !path.is_dir() {
        return Ok(false);
    }
    Ok(!walk(path, true)?.is_empty())
}

fn is_parquet(path: &Path) -> Result<bool> {
    use std::io::Read;
    let mut head = [0u8; 4];
    let mut f =
        std::fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let n = f
        .read(&mut head)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(n == 4 && &head == b"PAR1")
}

/// A Parquet file of a table and the hive partition values of its path.
pub struct TableFile {
    pub path: PathBuf,
    pub partitions: Vec<(String, String)>,
}

/// The visible files below `root` (walkdir, links not followed), in path
/// order, with their partition values; `probe`: stop (with none) at the
/// first file that is not Parquet.
fn walk(root: &Path, probe: bool) -> Result<Vec<TableFile>> {
    let entries = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || !(name.starts_with('.') || name.starts_with('_'))
        });
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| input::walk_error(root, e))?;
        if entry.depth() == 0 {
            continue;
        }
        let path = entry.path();
        match input::entry_kind(path, entry.file_type()) {
            EntryKind::Dir => {}
            EntryKind::File if is_parquet(path)? => out.push(TableFile {
                path: path.to_path_buf(),
                partitions: partitions(root, path),
            }),
            _ if probe => return Ok(Vec::new()),
            EntryKind::File => bail!(
                "{}: not a Parquet file (a table directory holds Parquet files, and hidden or _-prefixed files that are passed over)",
                path.display()
            ),
            other => bail!(
                "{}: {} in a table directory (it holds Parquet files and directories only)",
                path.display(),
                match other {
                    EntryKind::DirLink => "a symbolic link to a directory, not followed,",
                    EntryKind::Dangling => "a dangling symbolic link",
                    _ => "a special file (FIFO, socket, device)",
                }
            ),
        }
    }
    Ok(out)
}

/// The `column=value` directories between `root` and the file at `path`.
fn partitions(root: &Path, path: &Path) -> Vec<(String, String)> {
    let dirs = path.strip_prefix(root).ok().and_then(Path::parent);
    dirs.into_iter()
        .flat_map(Path::components)
        .filter_map(|c| {
            let name = c.as_os_str().to_string_lossy();
            name.split_once('=')
                .map(|(k, v)| (k.to_string(), unescape(v)))
        })
        .collect()
}

/// Hive partition values escape special characters as `%XX`.
fn unescape(v: &str) -> String {
    let b = v.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|&c| hex(c)),
            b.get(i + 2).and_then(|&c| hex(c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_values_are_unescaped() {
        assert_eq!(unescape("hack%20bench%2Fx"), "hack bench/x");
        assert_eq!(unescape("100%"), "100%");
        assert_eq!(unescape("%zz"), "%zz");
    }

    #[test]
    fn partitions_are_the_directories_between_root_and_file() {
        let root = Path::new("/t/table");
        let file = Path::new("/t/table/benchmark=hack%20bench/part/kernel=6.1/p.parquet");
        assert_eq!(
            partitions(root, file),
            [
                ("benchmark".to_string(), "hack bench".to_string()),
                ("kernel".to_string(), "6.1".to_string()),
            ]
        );
        assert!(partitions(root, Path::new("/t/table/p.parquet")).is_empty());
    }
}
