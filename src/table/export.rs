//! `diffprofile export ROOT… -o counts.parquet`: every run of one or more
//! results trees (directories or archives, any input format, read and
//! named as `batch` reads them) becomes rows of one counts table. The
//! trees are streamed ([`super::tree`], [`super::pipeline`]): members are
//! parsed in parallel a window at a time and written in order, so memory
//! holds two windows and one row group, never the archive. `--shard K/N` keeps every N-th run group
//! (kernel and benchmark, numbered as first met), so N machines export one
//! archive with no coordination. Unreadable and malformed members are named
//! on stderr and counted (exit 2); the table holds every other run.

use super::pipeline::Exporter;
use super::schema;
use super::writer::TableWriter;
use super::ExportConfig;
use crate::exit;
use crate::input::target::Output;
use crate::profile::Format;
use anyhow::{bail, Context, Result};
use std::io::Write;

/// Export; returns the exit code.
pub fn run(config: &ExportConfig, err: &mut dyn Write) -> Result<u8> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    let out = &crate::input::os_path(&config.out);
    if config.out == "-" {
        bail!("-o -: a Parquet table is written to a file, not to stdout: give -o FILE.parquet");
    }
    // A plain file is written beside and renamed into place when complete;
    // a link's target likewise; a FIFO or device is written through.
    let file = Output::create("-o", out)?;
    let writer = TableWriter::new(file, metadata(config))?;
    let mut ex = Exporter::new(config, pool, writer, err);
    let done = ex.all_roots();
    let (runs, rows) = (ex.writer.runs, ex.writer.rows);
    let (writer, counts, err) = ex.into_parts();
    let out = done.and_then(|()| {
        writer
            .finish()
            .with_context(|| format!("{}: cannot write", config.out))
    })?;
    if counts.groups == 0 && counts.errors == 0 {
        // Dropped: the temporary file goes, an older table stays.
        drop(out);
        bail!(
            "{}: no files match --layout {}; nothing written to {}",
            config.roots.join(" "),
            config.layout.text(),
            config.out
        );
    }
    out.commit()
        .with_context(|| format!("{}: cannot write", config.out))?;
    let shard = match config.shard {
        Some(s) => format!(
            " (shard {}/{}: {} of {} run groups)",
            s.index, s.count, counts.taken, counts.groups
        ),
        None => format!(" ({} run groups)", counts.groups),
    };
    writeln!(
        err,
        "diffprofile: exported {} as {} to {}{shard}",
        crate::text::plural(runs, "run"),
        crate::text::plural(rows, "row"),
        config.out
    )?;
    Ok(if counts.errors > 0 && !config.load.parse.lenient {
        writeln!(
            err,
            "diffprofile: error: {} member(s) could not be read or parsed (named above); their runs are not in {}",
            counts.errors, config.out
        )?;
        exit::ERROR
    } else {
        exit::SUCCESS
    })
}

/// What the file says of how it was made.
fn metadata(config: &ExportConfig) -> Vec<(String, String)> {
    let c = config;
    let id = &c.identity;
    let identity =
        format!(
        "clone suffixes {}; aliases: {}; group by: {}; include: {}; exclude: {}; exclude idle: {}",
        if id.fold { "folded" } else { "kept" },
        if id.aliases.is_empty() { "none" } else { "yes" },
        id.group.as_ref().map_or("none".to_string(), |g| g.describe()),
        id.include.as_ref().map_or("none", |r| r.as_str()),
        id.exclude.as_ref().map_or("none", |r| r.as_str()),
        id.exclude_idle,
    );
    let input = format!(
        "layout {}; format {}",
        config.layout.text(),
        c.load.format.map_or("auto", Format::name)
    );
    let notes = serde_json::to_string(&c.notes).unwrap_or_else(|_| "[]".to_string());
    let mut kv = vec![
        (schema::KEY_IDENTITY.to_string(), identity),
        (schema::KEY_INPUT.to_string(), input),
        (schema::KEY_NOTES.to_string(), notes),
    ];
    if let Some(s) = config.shard {
        kv.push((
            schema::KEY_SHARD.to_string(),
            format!("{}/{}", s.index, s.count),
        ));
    }
    kv
}
