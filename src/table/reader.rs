//! Reads a counts table back into runs: one Parquet file, or a directory of
//! them as engines write ([`super::files`]). Rows may come in any order and
//! any encoding; every row is
//! checked (required columns, run-level values that agree, no symbol twice
//! in a run, one placement per symbol). Only the runs `keep` accepts are
//! built, and row groups whose statistics rule them out are not read.

use super::columns::{Number, Text, TextList};
use super::files::{self, TableFile};
use super::rows::{self, Row};
use super::schema::{self as s};
use super::select::Filter;
use crate::identity::Placed;
use crate::profile::{Format, Mode, Profile, Provenance, Unresolved};
use anyhow::{bail, Context, Result};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use std::collections::HashMap;

/// One run read from the table.
#[derive(Debug)]
pub struct TableRun {
    pub kernel: String,
    pub benchmark: String,
    pub run: String,
    /// The run's profile; its `source` is the table's `source`.
    pub profile: Profile,
    /// The `work` column (the run's work count), when set.
    pub work: Option<f64>,
}

impl TableRun {
    /// The values of the run that selectors test, in
    /// [`crate::table::schema::SELECTABLE`] order.
    pub fn selectable(&self) -> [Option<&str>; 6] {
        [
            Some(self.kernel.as_str()),
            Some(self.benchmark.as_str()),
            Some(self.run.as_str()),
            Some(self.profile.source.as_str()),
            Some(self.profile.format.name()),
            self.profile.event.as_deref(),
        ]
    }
}

/// The runs a table holds (those asked for), sorted by kernel, benchmark,
/// source and run, and where every symbol was placed on export.
#[derive(Debug, Default)]
pub struct Table {
    pub runs: Vec<TableRun>,
    pub placed: Placed,
    /// The export's header notes (from the files' metadata, when an engine
    /// kept it), in order, each once.
    pub notes: Vec<String>,
}

/// Read the runs `filter` accepts from the table at `path`.
pub fn read(path: &str, filter: &Filter) -> Result<Table> {
    let files = files::list(path)?;
    let mut acc = Acc::default();
    for f in &files {
        acc.read_file(f, filter)?;
    }
    let mut runs: Vec<TableRun> = acc.runs.into_iter().flatten().collect();
    runs.sort_by(|a, b| {
        (&a.kernel, &a.benchmark, &a.profile.source, &a.run).cmp(&(
            &b.kernel,
            &b.benchmark,
            &b.profile.source,
            &b.run,
        ))
    });
    Ok(Table {
        runs,
        placed: acc.placed,
        notes: acc.notes,
    })
}

/// Runs being built; `None` for runs the filter passes over.
#[derive(Default)]
struct Acc {
    runs: Vec<Option<TableRun>>,
    index: HashMap<String, usize>,
    placed: Placed,
    notes: Vec<String>,
    /// Rows of the current file read before the current batch.
    file_rows: usize,
}

/// The Parquet codecs this build reads (the parquet crate's features in
/// Cargo.toml): all but brotli and lzo.
const CODECS: &str = "uncompressed, snappy, gzip, lz4, lz4_raw, zstd";

/// A column compressed with a codec this build does not read is refused
/// up front, naming it and the codecs read (the parquet crate would say
/// "Disabled feature at compile time" on the first page).
fn check_codecs(meta: &parquet::file::metadata::ParquetMetaData, name: &str) -> Result<()> {
    use parquet::basic::Compression;
    for rg in meta.row_groups() {
        for col in rg.columns() {
            let codec = col.compression();
            let read = matches!(
                codec,
                Compression::UNCOMPRESSED
                    | Compression::SNAPPY
                    | Compression::GZIP(_)
                    | Compression::LZ4
                    | Compression::LZ4_RAW
                    | Compression::ZSTD(_)
            );
            if !read {
                let codec = match codec {
                    Compression::BROTLI(_) => "brotli".to_string(),
                    Compression::LZO => "lzo".to_string(),
                    other => format!("{other:?}").to_lowercase(),
                };
                bail!(
                    "{name}: column {} is compressed with {codec}, which diffprofile does not \
                     read (it reads {CODECS}): write the table with one of those (e.g. DuckDB \
                     `COPY … (FORMAT parquet, COMPRESSION zstd)`)",
                    col.column_path()
                );
            }
        }
    }
    Ok(())
}

impl Acc {
    fn read_file(&mut self, f: &TableFile, filter: &Filter) -> Result<()> {
        let name = f.path.display().to_string();
        let mut file =
            std::fs::File::open(&f.path).with_context(|| format!("{name}: cannot open"))?;
        // A damaged footer can hold the decoder for seconds (super::footer).
        super::footer::check_file(&mut file).map_err(|why| {
            anyhow::anyhow!("{name}: cannot read as Parquet: damaged footer: {why}")
        })?;
        // Types come from the Parquet schema alone: the embedded Arrow schema
        // (an IPC flatbuffer) is not decoded, as a damaged one can panic.
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let builder = crate::guard::decoding(|| {
            ParquetRecordBatchReaderBuilder::try_new_with_options(
                super::footer::Bounded(file),
                options,
            )
        })
        .map_err(|why| {
            anyhow::anyhow!(
                "{name}: cannot read as Parquet: damaged footer, the decoder failed: {why}"
            )
        })?
        .with_context(|| format!("{name}: cannot read as Parquet"))?;
        let meta = builder.metadata().clone();
        check_codecs(&meta, &name)?;
        let ours = check_version(&meta, &name)?;
        for note in notes(&meta, &name)? {
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        let arrow = builder.schema().clone();
        let has =
            |c: &str| arrow.field_with_name(c).is_ok() || f.partitions.iter().any(|(k, _)| k == c);
        let missing: Vec<&str> = s::REQUIRED.iter().copied().filter(|c| !has(c)).collect();
        if !missing.is_empty() {
            bail!(
                "{name}: not a diffprofile counts table: no column {} (expected the columns of docs/archives.md)",
                missing.join(", ")
            );
        }
        let groups: Vec<usize> = (0..meta.num_row_groups())
            .filter(|&g| !ours || filter.may_match(&meta, g, &f.partitions))
            .collect();
        // Only the table's columns: an engine may have added others.
        let ours_schema = s::arrow_schema();
        let mask = ProjectionMask::columns(
            builder.parquet_schema(),
            ours_schema
                .fields()
                .iter()
                .map(|f| f.name().as_str())
                .filter(|c| arrow.field_with_name(c).is_ok()),
        );
        let reader = builder
            .with_projection(mask)
            .with_row_groups(groups)
            .with_batch_size(super::writer::BATCH_ROWS)
            .build()
            .with_context(|| format!("{name}: cannot read as Parquet"))?;
        // The parquet crate can panic on damaged pages (crate::guard).
        let mut reader = reader;
        self.file_rows = 0;
        loop {
            let next = crate::guard::decoding(|| reader.next()).map_err(|why| {
                anyhow::anyhow!("{name}: cannot read rows: damaged data, the decoder failed: {why}")
            })?;
            let Some(batch) = next else { break };
            let batch = batch.with_context(|| format!("{name}: cannot read rows"))?;
            self.read_batch(&batch, &name, &f.partitions, filter)?;
            self.file_rows += batch.num_rows();
        }
        Ok(())
    }

    /// The slot of the run whose key is `key`: the last row's (`last`), one
    /// met before, or a new one (`make`: `None` when the filter passes over
    /// it); with whether this row starts a stretch of the run and whether
    /// it created it.
    fn slot(
        &mut self,
        key: &str,
        last: &mut Option<(String, usize)>,
        make: impl FnOnce() -> Option<TableRun>,
    ) -> (usize, bool, bool) {
        match last {
            Some((prev, slot)) if *prev == key => (*slot, false, false),
            _ => {
                let (slot, created) = match self.index.get(key) {
                    Some(&slot) => (slot, false),
                    None => {
                        self.runs.push(make());
                        self.index.insert(key.to_string(), self.runs.len() - 1);
                        (self.runs.len() - 1, true)
                    }
                };
                *last = Some((key.to_string(), slot));
                (slot, true, created)
            }
        }
    }

    fn read_batch<'a>(
        &mut self,
        batch: &'a arrow_array::RecordBatch,
        file: &str,
        parts: &'a [(String, String)],
        filter: &Filter,
    ) -> Result<()> {
        let part = |c: &str| parts.iter().find(|(k, _)| k == c).map(|(_, v)| v.as_str());
        let text = |c: &str| Text::of(batch, c, part(c), file);
        let (kernel, benchmark, run, source) = (
            text(s::KERNEL)?,
            text(s::BENCHMARK)?,
            text(s::RUN)?,
            text(s::SOURCE)?,
        );
        let (format, event, weight, approx) = (
            text(s::FORMAT)?,
            text(s::EVENT)?,
            text(s::WEIGHT)?,
            text(s::TOTAL_APPROXIMATE)?,
        );
        let (symbol, dso, mode, in_sym, in_dso) = (
            text(s::SYMBOL)?,
            text(s::DSO)?,
            text(s::MODE)?,
            text(s::INPUT_SYMBOL)?,
            text(s::INPUT_DSO)?,
        );
        let num = |c: &str| Number::of(batch, c, file);
        let (count, total, duration, work) = (
            num(s::COUNT)?,
            num(s::RUN_TOTAL)?,
            num(s::DURATION_S)?,
            num(s::WORK)?,
        );
        let warnings = TextList::of(batch, s::WARNINGS, file)?;
        let (unresolved, provenance) = (text(s::UNRESOLVED)?, text(s::PROVENANCE)?);
        let mut key = String::new();
        let mut last: Option<(String, usize)> = None;
        let before = self.file_rows;
        for i in 0..batch.num_rows() {
            let line = before + i + 1;
            let need = |col: &Text<'a>, c: &str| need(col, (i, line), c, file);
            let (k, b, r, src) = (
                need(&kernel, s::KERNEL)?,
                need(&benchmark, s::BENCHMARK)?,
                need(&run, s::RUN)?,
                need(&source, s::SOURCE)?,
            );
            run_key(&mut key, [k, b, src, r]);
            let (slot, stretch, created) = self.slot(&key, &mut last, || {
                let fields = [k, b, r, src].map(Some);
                let fields = [
                    fields[0],
                    fields[1],
                    fields[2],
                    fields[3],
                    format.get(i),
                    event.get(i),
                ];
                filter.keeps(&fields).then(|| new_run([k, b, r, src]))
            });
            let Some(run) = &mut self.runs[slot] else {
                continue;
            };
            let at = || format!("{file}: row {line}: run {src} (kernel {k}, benchmark {b})");
            let fields = RunFields {
                format: need(&format, s::FORMAT)?,
                event: event.get(i),
                total: count_of(total.get(i), s::RUN_TOTAL).with_context(at)?,
                weight: weight.get(i).unwrap_or("samples"),
                approximate: approx.get(i),
                duration: optional(duration.get(i), s::DURATION_S).with_context(at)?,
                work: optional(work.get(i), s::WORK).with_context(at)?,
            };
            let listed = || warnings.get(i, s::WARNINGS, file);
            let first = created.then(|| (unresolved.get(i), provenance.get(i)));
            run_fields(run, &fields, first, stretch, &listed, &at)?;
            let named = || {
                format!(
                    "{}, symbol {}",
                    at(),
                    in_sym.get(i).or(symbol.get(i)).unwrap_or("(none)")
                )
            };
            let c = count_of(count.get(i), s::COUNT).with_context(named)?;
            check_count(c, &fields, &named)?;
            let row = Row {
                symbol: symbol.get(i),
                dso: dso.get(i),
                mode: mode_of(mode.get(i), &at)?,
                count: c,
                input_symbol: in_sym.get(i),
                input_dso: in_dso.get(i),
            };
            rows::add_row(&mut run.profile, &mut self.placed, &row)
                .map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
        }
        Ok(())
    }
}

/// One symbol's samples are some of its run's: a count above the total is a
/// table whose columns disagree (percent-only runs' counts are estimates,
/// rounded). A run of samples counts whole samples: a fraction is a table
/// that was damaged or edited (a flipped byte of a count).
fn check_count(c: f64, fields: &RunFields, named: &dyn Fn() -> String) -> Result<()> {
    if fields.weight == "samples" && c.fract() != 0.0 {
        bail!(
            "{}: {} {} is not a whole number, but the run's counts are samples; \
             the table is damaged or was edited",
            named(),
            s::COUNT,
            c
        );
    }
    if c > fields.total && fields.weight != "percent" {
        bail!(
            "{}: {} {} is above the run's {} {}; the table's counts and totals disagree",
            named(),
            s::COUNT,
            crate::aggregate::fmt_count(c),
            s::RUN_TOTAL,
            crate::aggregate::fmt_count(fields.total)
        );
    }
    Ok(())
}

/// A run's values from one of its rows: taken from its first row
/// (`first`: the row's `unresolved` and `provenance`), else checked to agree (its warnings
/// where a stretch of its rows starts).
fn run_fields(
    run: &mut TableRun,
    fields: &RunFields,
    first: Option<(Option<&str>, Option<&str>)>,
    stretch: bool,
    listed: &dyn Fn() -> Result<Vec<String>>,
    at: &dyn Fn() -> String,
) -> Result<()> {
    match first {
        Some((unresolved, provenance)) => {
            set(run, fields).with_context(at)?;
            run.profile.warnings = listed()?;
            run.profile.unresolved = unresolved_of(unresolved, at)?;
            run.profile.provenance = provenance_of(provenance, at)?;
        }
        None => {
            check(run, fields).with_context(at)?;
            let same = !stretch || listed()? == run.profile.warnings;
            anyhow::ensure!(same, "{}: rows disagree on the run's warnings", at());
        }
    }
    Ok(())
}

/// A run of the table, before its rows: its kernel, benchmark, run and source.
fn new_run([kernel, benchmark, run, source]: [&str; 4]) -> TableRun {
    TableRun {
        kernel: kernel.to_string(),
        benchmark: benchmark.to_string(),
        run: run.to_string(),
        profile: Profile::new(source, Format::Readprofile),
        work: None,
    }
}

/// A run's key in [`Acc::index`]: its kernel, benchmark, source and run.
fn run_key(key: &mut String, parts: [&str; 4]) {
    key.clear();
    for part in parts {
        key.push_str(part);
        key.push('\0');
    }
}

/// The `mode` column, read.
fn mode_of(m: Option<&str>, at: &dyn Fn() -> String) -> Result<Option<Mode>> {
    Ok(match m {
        None => None,
        Some(m) => Some(rows::parse_mode(m).with_context(|| {
            format!(
                "{}: mode {m:?} is not kernel, user, guest-kernel, guest-user or hypervisor",
                at()
            )
        })?),
    })
}

/// The `unresolved` column's JSON, read.
fn unresolved_of(text: Option<&str>, at: &dyn Fn() -> String) -> Result<Option<Unresolved>> {
    Ok(match text {
        None => None,
        Some(j) => Some(serde_json::from_str(j).with_context(|| {
            format!(
                "{}: column {}: expected {{\"why\": {{dso: reason}}, \"hint\": text}}",
                at(),
                s::UNRESOLVED
            )
        })?),
    })
}

/// The `provenance` column's JSON, read (NULL: the recording said nothing).
fn provenance_of(text: Option<&str>, at: &dyn Fn() -> String) -> Result<Provenance> {
    Ok(match text {
        None => Provenance::default(),
        Some(j) => serde_json::from_str(j).with_context(|| {
            format!(
                "{}: column {}: expected {{\"release\": …, \"kernel_map\": …}} (JSON)",
                at(),
                s::PROVENANCE
            )
        })?,
    })
}

/// Row `i` of a batch, row `line` (1-based) of its file, of a text column
/// that may not be NULL.
fn need<'a>(col: &Text<'a>, (i, line): (usize, usize), c: &str, file: &str) -> Result<&'a str> {
    col.get(i)
        .with_context(|| format!("{file}: row {line}: {c} is NULL"))
}

/// A count or a run's total: an [`amount`] of at most 2^53, the largest
/// count read exactly ([`crate::format::MAX_COUNT`]).
fn count_of(v: Option<f64>, c: &str) -> Result<f64> {
    let x = amount(v, c)?;
    if x > crate::format::MAX_COUNT {
        bail!("{}", crate::format::too_large(c, &x.to_string()));
    }
    Ok(x)
}

/// A duration or work, when set: an [`amount`].
fn optional(v: Option<f64>, c: &str) -> Result<Option<f64>> {
    v.map(|v| amount(Some(v), c)).transpose()
}

/// A count, total, duration or work: present, finite and not negative
/// (an engine's table can hold -5, NaN or inf, which no profile gives).
fn amount(v: Option<f64>, c: &str) -> Result<f64> {
    match v {
        None => bail!("{c} is NULL"),
        Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Some(x) => bail!("{c} is {x}; expected a finite number, 0 or more"),
    }
}

/// The run-level values of one row.
struct RunFields<'a> {
    format: &'a str,
    event: Option<&'a str>,
    total: f64,
    weight: &'a str,
    approximate: Option<&'a str>,
    duration: Option<f64>,
    work: Option<f64>,
}

/// Take a run's values from its first row.
fn set(run: &mut TableRun, f: &RunFields) -> Result<()> {
    let p = &mut run.profile;
    p.format = rows::parse_format(f.format)
        .with_context(|| format!("format {:?} is not a diffprofile input format", f.format))?;
    p.weight = rows::parse_weight(f.weight)
        .with_context(|| format!("weight {:?} is not samples, period or percent", f.weight))?;
    p.event = f.event.map(str::to_string);
    p.total = f.total;
    p.total_approximate = f.approximate.map(str::to_string);
    p.duration_s = f.duration;
    run.work = f.work;
    Ok(())
}

/// Every later row of a run must agree with its first.
fn check(run: &TableRun, f: &RunFields) -> Result<()> {
    let p = &run.profile;
    let bits = |x: Option<f64>| x.map(f64::to_bits);
    let same = p.format.name() == f.format
        && p.event.as_deref() == f.event
        && p.total.to_bits() == f.total.to_bits()
        && rows::weight_name(p.weight) == f.weight
        && p.total_approximate.as_deref() == f.approximate
        && bits(p.duration_s) == bits(f.duration)
        && bits(run.work) == bits(f.work);
    if !same {
        bail!("rows disagree on the run's format, event, run_total, weight, total_approximate, duration_s or work");
    }
    Ok(())
}

/// The export's header notes kept in a file's metadata.
fn notes(meta: &parquet::file::metadata::ParquetMetaData, name: &str) -> Result<Vec<String>> {
    let kv = meta.file_metadata().key_value_metadata();
    match kv
        .into_iter()
        .flatten()
        .find(|kv| kv.key == s::KEY_NOTES)
        .and_then(|kv| kv.value.as_deref())
    {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(text).with_context(|| {
            format!(
                "{name}: metadata {}: expected a JSON array of strings",
                s::KEY_NOTES
            )
        }),
    }
}

/// The table's schema version must be one this build reads; true when the
/// file was written by diffprofile (its statistics can then prune).
fn check_version(meta: &parquet::file::metadata::ParquetMetaData, name: &str) -> Result<bool> {
    let kv = meta.file_metadata().key_value_metadata();
    let Some(v) = kv
        .into_iter()
        .flatten()
        .find(|kv| kv.key == s::KEY_VERSION)
        .and_then(|kv| kv.value.as_deref())
    else {
        return Ok(false);
    };
    match v.parse::<u32>() {
        Ok(n) if n <= s::VERSION => Ok(true),
        _ => bail!(
            "{name}: counts table version {v}; this diffprofile reads version {} (upgrade it)",
            s::VERSION
        ),
    }
}
