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
    let root = Path::new(path);
    let mut files = Vec::new();
    if root.is_dir() {
        walk(root, &mut Vec::new(), &mut files, false)?;
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
    let mut files = Vec::new();
    walk(path, &mut Vec::new(), &mut files, true)?;
    Ok(!files.is_empty())
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

/// The visible files below `dir`, sorted, with their partition values;
/// `probe`: stop (with none) at the first file that is not Parquet.
fn walk(
    dir: &Path,
    parts: &mut Vec<(String, String)>,
    out: &mut Vec<TableFile>,
    probe: bool,
) -> Result<bool> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot read directory", dir.display()))?
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("{}: cannot read directory", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        let path = e.path();
        let kind = e
            .file_type()
            .with_context(|| format!("{}: cannot read directory", dir.display()))?;
        match input::entry_kind(&path, kind) {
            EntryKind::Dir => {
                let part = name
                    .split_once('=')
                    .map(|(k, v)| (k.to_string(), unescape(v)));
                parts.extend(part.clone());
                let ok = walk(&path, parts, out, probe)?;
                if part.is_some() {
                    parts.pop();
                }
                if !ok {
                    return Ok(false);
                }
            }
            EntryKind::File if is_parquet(&path)? => out.push(TableFile {
                path,
                partitions: parts.clone(),
            }),
            _ if probe => {
                out.clear();
                return Ok(false);
            }
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
    Ok(true)
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
}
