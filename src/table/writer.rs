//! Writes runs as rows of a counts table (Parquet, zstd): rows are built
//! into Arrow arrays of at most [`BATCH_ROWS`] rows and handed to the
//! Parquet writer, which closes a row group every [`ROW_GROUP_ROWS`] rows
//! (or [`ROW_GROUP_BYTES`] encoded), so memory holds one row group whatever
//! the number of runs. Output depends only on the runs pushed, in order.

use super::rows::{weight_name, Prepared};
use super::schema;
use anyhow::{Context, Result};
use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use std::io::Write;
use std::sync::Arc;

/// Rows per Arrow record batch handed to the Parquet writer.
pub const BATCH_ROWS: usize = 1 << 16;
/// Rows per row group at most.
pub const ROW_GROUP_ROWS: usize = 1 << 20;
/// Encoded bytes per row group at most.
pub const ROW_GROUP_BYTES: usize = 64 << 20;

/// Where a run sits in the results tree, and what `--run-info` says of it.
#[derive(Clone, Debug, Default)]
pub struct RunKey {
    pub kernel: String,
    pub benchmark: String,
    pub run: String,
    pub source: String,
    pub duration_s: Option<f64>,
    pub work: Option<f64>,
}

/// A counts table being written.
pub struct TableWriter<W: Write + Send> {
    writer: ArrowWriter<W>,
    b: Builders,
    pending: usize,
    pub rows: u64,
    pub runs: u64,
}

#[derive(Default)]
struct Builders {
    kernel: StringBuilder,
    benchmark: StringBuilder,
    run: StringBuilder,
    source: StringBuilder,
    format: StringBuilder,
    event: StringBuilder,
    symbol: StringBuilder,
    dso: StringBuilder,
    mode: StringBuilder,
    count: Float64Builder,
    run_total: Float64Builder,
    duration_s: Float64Builder,
    work: Float64Builder,
    input_symbol: StringBuilder,
    input_dso: StringBuilder,
    weight: StringBuilder,
    total_approximate: StringBuilder,
    warnings: ListBuilder<StringBuilder>,
    unresolved: StringBuilder,
    provenance: StringBuilder,
}

impl<W: Write + Send> TableWriter<W> {
    /// Start a table on `out` with these key-value metadata (the schema
    /// version and writer are added).
    pub fn new(out: W, metadata: Vec<(String, String)>) -> Result<Self> {
        let mut kv = vec![
            KeyValue::new(schema::KEY_VERSION.to_string(), schema::VERSION.to_string()),
            KeyValue::new(
                schema::KEY_WRITER.to_string(),
                format!("diffprofile {}", env!("CARGO_PKG_VERSION")),
            ),
        ];
        kv.extend(metadata.into_iter().map(|(k, v)| KeyValue::new(k, v)));
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_key_value_metadata(Some(kv))
            .build();
        let writer = ArrowWriter::try_new(out, schema::arrow_schema(), Some(props))
            .context("cannot start the Parquet writer")?;
        Ok(TableWriter {
            writer,
            b: Builders::default(),
            pending: 0,
            rows: 0,
            runs: 0,
        })
    }

    /// Append the rows of one run.
    pub fn push(&mut self, key: &RunKey, run: &Prepared) -> Result<()> {
        let p = &run.profile;
        let b = &mut self.b;
        let rows = run.rows();
        let unresolved = match &p.unresolved {
            Some(u) => {
                Some(serde_json::to_string(u).context("cannot write a run's unresolved note")?)
            }
            None => None,
        };
        let provenance = if p.provenance == crate::profile::Provenance::default() {
            None
        } else {
            Some(serde_json::to_string(&p.provenance).context("cannot write a run's provenance")?)
        };
        for row in &rows {
            b.kernel.append_value(&key.kernel);
            b.benchmark.append_value(&key.benchmark);
            b.run.append_value(&key.run);
            b.source.append_value(&key.source);
            b.format.append_value(p.format.name());
            b.event.append_option(p.event.as_deref());
            b.symbol.append_option(row.symbol);
            b.dso.append_option(row.dso);
            b.mode.append_option(row.mode.map(|m| m.as_str()));
            b.count.append_value(row.count);
            b.run_total.append_value(p.total);
            b.duration_s.append_option(key.duration_s);
            b.work.append_option(key.work);
            b.input_symbol.append_option(row.input_symbol);
            b.input_dso.append_option(row.input_dso);
            b.weight.append_value(weight_name(p.weight));
            b.total_approximate
                .append_option(p.total_approximate.as_deref());
            if p.warnings.is_empty() {
                b.warnings.append_null();
            } else {
                for w in &p.warnings {
                    b.warnings.values().append_value(w);
                }
                b.warnings.append(true);
            }
            b.unresolved.append_option(unresolved.as_deref());
            b.provenance.append_option(provenance.as_deref());
        }
        self.pending += rows.len();
        self.rows += rows.len() as u64;
        self.runs += 1;
        if self.pending >= BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<()> {
        if self.pending == 0 {
            return Ok(());
        }
        let b = &mut self.b;
        let columns: Vec<ArrayRef> = vec![
            Arc::new(b.kernel.finish()),
            Arc::new(b.benchmark.finish()),
            Arc::new(b.run.finish()),
            Arc::new(b.source.finish()),
            Arc::new(b.format.finish()),
            Arc::new(b.event.finish()),
            Arc::new(b.symbol.finish()),
            Arc::new(b.dso.finish()),
            Arc::new(b.mode.finish()),
            Arc::new(b.count.finish()),
            Arc::new(b.run_total.finish()),
            Arc::new(b.duration_s.finish()),
            Arc::new(b.work.finish()),
            Arc::new(b.input_symbol.finish()),
            Arc::new(b.input_dso.finish()),
            Arc::new(b.weight.finish()),
            Arc::new(b.total_approximate.finish()),
            Arc::new(b.warnings.finish()),
            Arc::new(b.unresolved.finish()),
            Arc::new(b.provenance.finish()),
        ];
        let batch = RecordBatch::try_new(schema::arrow_schema(), columns)
            .context("cannot build a batch of rows")?;
        self.writer
            .write(&batch)
            .context("cannot write rows to the Parquet file")?;
        self.pending = 0;
        Ok(())
    }

    /// Write the last rows and the footer; returns the output.
    pub fn finish(mut self) -> Result<W> {
        self.flush_batch()?;
        self.writer
            .into_inner()
            .context("cannot finish the Parquet file")
    }
}
