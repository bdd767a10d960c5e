//! `--order-by COLUMN`: a counts table's kernels ordered by a column's value
//! (an engine may add one: a release date, a commit time, a build number).
//! Every row of a kernel must carry one value; numbers order numerically,
//! text naturally, ties by version order.

use super::order::{natural, version_cmp};
use crate::table::columns::{Number, Text};
use crate::table::files;
use anyhow::{bail, Context, Result};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use std::collections::BTreeMap;

/// A kernel's value of the column.
#[derive(Clone, Debug, PartialEq)]
enum Key {
    Num(f64),
    Text(String),
}

/// A value as the user reads it: a number as a number, text in quotes.
impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Key::Num(x) => write!(f, "{x}"),
            Key::Text(t) => write!(f, "{t:?}"),
        }
    }
}

/// The kernels of the table at `root` in the order of `column`.
pub fn kernels_by(root: &str, column: &str) -> Result<Vec<String>> {
    if !files::is_table(&crate::input::os_path(root))? {
        bail!("--order-by {column}: {root} is not a counts table (give --order FILE for a results tree)");
    }
    let mut keys: BTreeMap<String, Key> = BTreeMap::new();
    for f in files::list(root)? {
        let name = f.path.display().to_string();
        let file = std::fs::File::open(&f.path).with_context(|| format!("{name}: cannot open"))?;
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let builder = crate::guard::decoding(|| {
            ParquetRecordBatchReaderBuilder::try_new_with_options(
                crate::table::Bounded(file),
                options,
            )
        })
        .map_err(|why| anyhow::anyhow!("{name}: cannot read as Parquet: {why}"))?
        .with_context(|| format!("{name}: cannot read as Parquet"))?;
        let part = |c: &str| {
            f.partitions
                .iter()
                .find(|(k, _)| k == c)
                .map(|(_, v)| v.clone())
        };
        let arrow = builder.schema().clone();
        if arrow.field_with_name(column).is_err() && part(column).is_none() {
            let cols: Vec<&str> = arrow.fields().iter().map(|f| f.name().as_str()).collect();
            bail!(
                "--order-by: {name} has no column {column:?} (its columns: {})",
                cols.join(", ")
            );
        }
        let wanted: Vec<&str> = ["kernel", column]
            .into_iter()
            .filter(|c| arrow.field_with_name(c).is_ok())
            .collect();
        let mask = ProjectionMask::columns(builder.parquet_schema(), wanted);
        let reader = builder
            .with_projection(mask)
            .build()
            .with_context(|| format!("{name}: cannot read as Parquet"))?;
        for batch in reader {
            let batch = batch.with_context(|| format!("{name}: cannot read rows"))?;
            let kpart = part("kernel");
            let kernel = Text::of(&batch, "kernel", kpart.as_deref(), &name)?;
            let cpart = part(column);
            let value: Box<dyn Fn(usize) -> Option<Key>> = match Number::of(&batch, column, &name) {
                Ok(n @ Number::Array(..)) => Box::new(move |i| n.get(i).map(Key::Num)),
                _ => {
                    let t = Text::of(&batch, column, cpart.as_deref(), &name)?;
                    Box::new(move |i| t.get(i).map(|s| Key::Text(s.to_string())))
                }
            };
            for i in 0..batch.num_rows() {
                let Some(k) = kernel.get(i) else { continue };
                let Some(v) = value(i) else {
                    bail!("--order-by {column}: {name}: kernel {k} has a row without a value");
                };
                match keys.get(k) {
                    Some(old) if *old != v => bail!(
                        "--order-by {column}: kernel {k} has two values ({old} and {v}); \
                         expected one value per kernel"
                    ),
                    Some(_) => {}
                    None => {
                        keys.insert(k.to_string(), v);
                    }
                }
            }
        }
    }
    let mut kernels: Vec<(String, Key)> = keys.into_iter().collect();
    kernels.sort_by(|(ka, a), (kb, b)| {
        let o = match (a, b) {
            (Key::Num(x), Key::Num(y)) => x.total_cmp(y),
            (Key::Num(_), Key::Text(_)) => std::cmp::Ordering::Less,
            (Key::Text(_), Key::Num(_)) => std::cmp::Ordering::Greater,
            (Key::Text(x), Key::Text(y)) => natural(x, y),
        };
        o.then_with(|| version_cmp(ka, kb))
    });
    Ok(kernels.into_iter().map(|k| k.0).collect())
}
