//! The export pipeline: a [`Visitor`] of the trees that numbers run groups
//! (for `--shard`), collects the runs to export into windows, and parses
//! each window in parallel while the previous one is written (two windows
//! in memory at most), runs always written in the order they were met.
//! Symbol maps beside raw profiles: a directory's maps come before its
//! files; in an archive a profile that needs a map not yet seen waits for
//! the end of the archive.

use super::maps::{needs_map, DirMaps};
use super::rows::{self, Prepared};
use super::tree::{self, Data, Member, Visitor};
use super::writer::{RunKey, TableWriter};
use super::ExportConfig;
use crate::input::BUF_SIZE;
use crate::load::{self, Beside, MapFile};
use crate::profile::Profile;
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, Read, Write};
use std::sync::Arc;

/// Runs parsed together (at most), and their archive bytes (at most).
const WINDOW_RUNS: usize = 256;
const WINDOW_BYTES: usize = 32 << 20;
/// Paths that match no layout named in the warning (the rest counted).
const LIST_MAX: usize = 20;

/// Where a run to parse is.
enum Input {
    File(std::path::PathBuf),
    Bytes(Vec<u8>),
    /// Parsed already, from a large archive member's stream.
    Loaded(Box<Loaded>),
}

type Loaded = Result<std::result::Result<Profile, String>>;

/// One run to parse.
struct Item {
    key: RunKey,
    /// The member's path in its tree.
    rel: String,
    root: usize,
    data: Input,
    maps: Option<Arc<Beside>>,
}

type Parsed = (Item, Result<std::result::Result<Prepared, String>>);

/// What an export did, for its summary.
#[derive(Debug, Default)]
pub struct Counts {
    pub groups: usize,
    pub taken: usize,
    pub errors: usize,
}

pub struct Exporter<'a, W: Write + Send> {
    config: &'a ExportConfig,
    pool: rayon::ThreadPool,
    pub writer: TableWriter<W>,
    root: usize,
    /// The layout the root at hand is read with ([`super::series`]).
    layout: crate::layout::Layout,
    archive: bool,
    groups: HashMap<(usize, String, String), usize>,
    last_group: Option<(String, String, bool)>,
    pub counts: Counts,
    window: Vec<Item>,
    window_bytes: usize,
    /// The previous window, parsed, not yet written.
    parsed: Vec<Parsed>,
    maps: BTreeMap<String, DirMaps>,
    deferred: Vec<Item>,
    unmatched: Vec<String>,
    unmatched_count: usize,
    /// Said once the root is read ([`Visitor::warning`]).
    warnings: Vec<String>,
    err: &'a mut dyn Write,
}

impl<'a, W: Write + Send> Exporter<'a, W> {
    pub fn new(
        config: &'a ExportConfig,
        pool: rayon::ThreadPool,
        writer: TableWriter<W>,
        err: &'a mut dyn Write,
    ) -> Self {
        Exporter {
            config,
            pool,
            writer,
            root: 0,
            layout: config.layout.clone(),
            archive: false,
            groups: HashMap::new(),
            last_group: None,
            counts: Counts::default(),
            window: Vec::new(),
            window_bytes: 0,
            parsed: Vec::new(),
            maps: BTreeMap::new(),
            deferred: Vec::new(),
            unmatched: Vec::new(),
            unmatched_count: 0,
            warnings: Vec::new(),
            err,
        }
    }

    /// The writer, what was done, and stderr back.
    pub fn into_parts(self) -> (TableWriter<W>, Counts, &'a mut dyn Write) {
        (self.writer, self.counts, self.err)
    }

    /// Export every root, in order.
    pub fn all_roots(&mut self) -> Result<()> {
        for (i, root) in self.config.roots.iter().enumerate() {
            self.root = i;
            self.archive = !crate::input::os_path(root).is_dir();
            self.maps.clear();
            // (A tree under one directory read one level down, as
            // history reads it: said.)
            let (layout, note) = super::series::layout_for(root, &self.config.layout);
            if let Some(note) = note {
                writeln!(self.err, "diffprofile: {root}: {note}")?;
            }
            self.layout = layout.clone();
            tree::visit(root, &layout, self)?;
            for mut item in std::mem::take(&mut self.deferred) {
                item.maps = self
                    .maps
                    .get_mut(tree::dir_of(&item.rel))
                    .map(DirMaps::beside);
                self.push(item)?;
            }
            self.step()?;
            self.step()?;
            for w in std::mem::take(&mut self.warnings) {
                writeln!(self.err, "diffprofile: warning: {w}")?;
            }
            if self.unmatched_count > 0 {
                let more = self.unmatched_count - self.unmatched.len();
                writeln!(
                    self.err,
                    "diffprofile: warning: {root}: {} path(s) do not match --layout {} and were not read: {}{}",
                    self.unmatched_count,
                    self.layout.text(),
                    self.unmatched.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                )?;
                self.unmatched.clear();
                self.unmatched_count = 0;
            }
        }
        self.counts.groups = self.groups.len();
        Ok(())
    }

    fn push(&mut self, item: Item) -> Result<()> {
        if let Input::Bytes(b) = &item.data {
            self.window_bytes += b.len();
        }
        self.window.push(item);
        if self.window.len() >= WINDOW_RUNS || self.window_bytes >= WINDOW_BYTES {
            self.step()?;
        }
        Ok(())
    }

    /// Write the parsed window while the current one is parsed.
    fn step(&mut self) -> Result<()> {
        let window = std::mem::take(&mut self.window);
        let parsed = std::mem::take(&mut self.parsed);
        self.window_bytes = 0;
        let (opts, identity) = (&self.config.load, &self.config.identity);
        let (roots, writer) = (&self.config.roots, &mut self.writer);
        let (written, next) = self.pool.install(|| {
            rayon::join(
                || write(writer, roots, parsed),
                || {
                    window
                        .into_par_iter()
                        .map(|mut item| {
                            let r = parse(&mut item, opts, identity);
                            (item, r)
                        })
                        .collect::<Vec<Parsed>>()
                },
            )
        });
        let (messages, errors) = written?;
        self.counts.errors += errors;
        for m in messages {
            writeln!(self.err, "diffprofile: warning: {m}")?;
        }
        self.parsed = next;
        Ok(())
    }
}

/// Write parsed runs in order; returns the warnings and the errors count.
fn write<W: Write + Send>(
    writer: &mut TableWriter<W>,
    roots: &[String],
    parsed: Vec<Parsed>,
) -> Result<(Vec<String>, usize)> {
    let (mut messages, mut errors) = (Vec::new(), 0);
    for (item, r) in parsed {
        let root = &roots[item.root];
        match r {
            // A run without samples is no run: not written, said.
            Ok(Ok(run)) if crate::sanity::holds_no_samples(&run.profile) => messages.push(format!(
                "{root}: {}: run holds no samples: left out",
                item.key.source
            )),
            Ok(Ok(run)) => writer.push(&item.key, &run)?,
            Ok(Err(why)) => messages.push(format!(
                "{root}: benchmark {}: skipped {why}",
                item.key.benchmark
            )),
            Err(e) => {
                errors += 1;
                messages.push(format!("{root}: {e:#}"));
            }
        }
    }
    Ok((messages, errors))
}

/// Parse one run and place its symbols; `Ok(Err)` when it is no profile.
fn parse(
    item: &mut Item,
    opts: &load::LoadOptions,
    identity: &crate::identity::Identity,
) -> Result<std::result::Result<Prepared, String>> {
    let origin = &item.key.source;
    let loaded = match &mut item.data {
        Input::Bytes(b) => {
            load::load_stream_beside(Box::new(&b[..]), origin, opts, item.maps.clone())?
        }
        Input::File(p) => {
            let f = std::fs::File::open(&*p).with_context(|| format!("{origin}: cannot open"))?;
            load::load_stream_beside(
                Box::new(BufReader::with_capacity(BUF_SIZE.min(1 << 16), f)),
                origin,
                opts,
                item.maps.clone(),
            )?
        }
        Input::Loaded(r) => std::mem::replace(&mut **r, Ok(Err(String::new())))?,
    };
    Ok(match loaded {
        Ok(p) => Ok(rows::prepare(p, identity)?),
        Err(why) => Err(why),
    })
}

/// A large archive member, parsed from the archive stream ([`load::from_stream`]).
fn from_stream(entry: &mut dyn Read, origin: &str, opts: &load::LoadOptions) -> Input {
    match load::from_stream(entry, origin, opts) {
        load::Streamed::Loaded(r) => Input::Loaded(r),
        load::Streamed::NeedsMap(bytes) => Input::Bytes(bytes),
    }
}

impl<W: Write + Send> Visitor for Exporter<'_, W> {
    fn wants(&mut self, kernel: &str, bench: &str) -> bool {
        if let Some((k, b, takes)) = &self.last_group {
            if k == kernel && b == bench {
                return *takes;
            }
        }
        let next = self.groups.len();
        let key = (self.root, kernel.to_string(), bench.to_string());
        let group = *self.groups.entry(key).or_insert(next);
        let takes = self.config.shard.is_none_or(|s| s.takes(group));
        if takes && group == next {
            self.counts.taken += 1;
        }
        self.last_group = Some((kernel.to_string(), bench.to_string(), takes));
        takes
    }

    fn map(&mut self, dir: &str, file: MapFile) -> Result<()> {
        let maps = self.maps.entry(dir.to_string()).or_default();
        if maps.beside.is_some() {
            let root = &self.config.roots[self.root];
            bail!("{root}: several symbol maps in {dir:?}, one after profiles that used another; name one with --map");
        }
        match file {
            MapFile::Path(p) => maps.paths.push(p),
            MapFile::Bytes(n, b) => maps.files.push((n, b)),
        }
        Ok(())
    }

    fn member(&mut self, m: Member<'_>) -> Result<()> {
        let roots = &self.config.roots;
        let source = match (roots.len(), self.archive) {
            (1, _) => m.path.clone(),
            (_, false) => format!("{}/{}", roots[self.root].trim_end_matches('/'), m.path),
            (_, true) => format!("{}:{}", roots[self.root], m.path),
        };
        let info = self.config.run_info.lookup(&source);
        let key = RunKey {
            run: self.layout.run_name(&m.path),
            kernel: m.kernel,
            benchmark: m.bench,
            duration_s: info.and_then(|i| i.0),
            work: info.and_then(|i| i.1),
            source,
        };
        let dir = tree::dir_of(&m.path).to_string();
        let data = match m.data {
            Data::File(p) => Input::File(p),
            Data::Bytes(b) => Input::Bytes(b),
            Data::Stream(r) => from_stream(r, &key.source, &self.config.load),
        };
        let wants_map = match &data {
            Input::Bytes(b) => needs_map(b, &self.config.load),
            Input::File(_) | Input::Loaded(_) => false,
        };
        let has_maps = self.maps.contains_key(&dir);
        let maps = match &data {
            Input::File(_) => true,
            Input::Bytes(_) => wants_map && has_maps,
            Input::Loaded(_) => false,
        };
        let item = Item {
            maps: if maps {
                self.maps.get_mut(&dir).map(DirMaps::beside)
            } else {
                None
            },
            key,
            rel: m.path,
            root: self.root,
            data,
        };
        if wants_map && !has_maps {
            self.deferred.push(item);
            return Ok(());
        }
        self.push(item)
    }

    fn warning(&mut self, text: String) {
        self.warnings.push(text);
    }

    fn unmatched(&mut self, path: String) {
        self.unmatched_count += 1;
        if self.unmatched.len() < LIST_MAX {
            self.unmatched.push(path);
        }
    }
}
