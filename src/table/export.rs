//! `diffprofile export ROOT… -o counts.parquet`: every run of one or more
//! results trees (directories or archives, any input format, read and
//! named as `batch` reads them) becomes rows of one counts table. The
//! trees are streamed ([`tree`]): members are parsed in parallel a window
//! at a time and written in order, so memory holds one window and one row
//! group, never the archive. `--shard K/N` keeps every N-th run group
//! (kernel and benchmark, numbered as first met), so N machines export one
//! archive with no coordination. Unreadable and malformed members are named
//! on stderr and counted (exit 2); the table holds every other run.

use super::rows::{self, Prepared};
use super::schema;
use super::tree::{self, Data, Member, Visitor};
use super::writer::{RunKey, TableWriter};
use crate::batch::Layout;
use crate::config::Config;
use crate::exit;
use crate::input::{self, BUF_SIZE};
use crate::load::{self, Beside, MapFile};
use crate::profile::Format;
use anyhow::{bail, Context, Result};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, BufWriter, Write};
use std::sync::Arc;

/// Runs parsed together (at most), and their archive bytes (at most).
const WINDOW_RUNS: usize = 256;
const WINDOW_BYTES: usize = 64 << 20;
/// Paths that match no layout named in the warning (the rest counted).
const LIST_MAX: usize = 20;

/// `diffprofile export`, validated.
#[derive(Clone, Debug)]
pub struct ExportConfig {
    pub roots: Vec<String>,
    pub out: String,
    pub layout: Layout,
    pub shard: Option<Shard>,
    /// How runs are read and named (no sides).
    pub config: Config,
}

/// `--shard K/N`: the K-th of N (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard> {
        let parsed = text
            .split_once('/')
            .and_then(|(k, n)| Some((k.parse::<usize>().ok()?, n.parse::<usize>().ok()?)));
        match parsed {
            Some((index, count)) if index >= 1 && index <= count => Ok(Shard { index, count }),
            _ => bail!("--shard {text}: expected K/N with 1 <= K <= N (the K-th of N shards)"),
        }
    }

    /// Whether run group number `group` (0-based) is in this shard.
    pub fn takes(&self, group: usize) -> bool {
        group % self.count == self.index - 1
    }
}

/// One run to parse.
struct Item {
    key: RunKey,
    /// The member's path in its tree.
    rel: String,
    root: usize,
    data: Data,
    maps: Option<Arc<Beside>>,
}

/// A directory's symbol maps; `beside` once a profile needed them.
#[derive(Default)]
struct DirMaps {
    files: Vec<(String, Vec<u8>)>,
    paths: Vec<std::path::PathBuf>,
    beside: Option<Arc<Beside>>,
}

impl DirMaps {
    fn beside(&mut self) -> Arc<Beside> {
        self.beside
            .get_or_insert_with(|| {
                let mut files: Vec<MapFile> =
                    self.paths.iter().cloned().map(MapFile::Path).collect();
                files.extend(
                    self.files
                        .iter()
                        .map(|(n, b)| MapFile::Bytes(n.clone(), b.clone())),
                );
                Arc::new(Beside::new(files))
            })
            .clone()
    }
}

struct Exporter<'a, W: Write + Send> {
    config: &'a ExportConfig,
    pool: rayon::ThreadPool,
    writer: TableWriter<W>,
    root: usize,
    archive: bool,
    groups: HashMap<(usize, String, String), usize>,
    last_group: Option<(String, String, bool)>,
    taken: usize,
    window: Vec<Item>,
    window_bytes: usize,
    maps: BTreeMap<String, DirMaps>,
    deferred: Vec<Item>,
    unmatched: Vec<String>,
    unmatched_count: usize,
    errors: usize,
    err: &'a mut dyn Write,
}

/// Export; returns the exit code.
pub fn run(config: &ExportConfig, err: &mut dyn Write) -> Result<u8> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.config.jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    let out = std::path::Path::new(&config.out);
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some(name) = name else {
        bail!("-o {}: expected a file name", config.out);
    };
    let tmp = out.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let file =
        std::fs::File::create(&tmp).with_context(|| format!("{}: cannot create", tmp.display()))?;
    let writer = TableWriter::new(BufWriter::with_capacity(1 << 20, file), metadata(config))?;
    let mut ex = Exporter {
        config,
        pool,
        writer,
        root: 0,
        archive: false,
        groups: HashMap::new(),
        last_group: None,
        taken: 0,
        window: Vec::new(),
        window_bytes: 0,
        maps: BTreeMap::new(),
        deferred: Vec::new(),
        unmatched: Vec::new(),
        unmatched_count: 0,
        errors: 0,
        err,
    };
    let done = ex.all_roots();
    let (runs, rows, groups) = (ex.writer.runs, ex.writer.rows, ex.groups.len());
    let finished = done.and_then(|()| {
        let mut out = ex.writer.finish()?;
        out.flush()
            .with_context(|| format!("{}: cannot write", tmp.display()))
    });
    if let Err(e) = finished {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, out)
        .with_context(|| format!("{}: cannot rename to {}", tmp.display(), config.out))?;
    let shard = match config.shard {
        Some(s) => format!(
            " (shard {}/{}: {} of {groups} run groups)",
            s.index, s.count, ex.taken
        ),
        None => format!(" ({groups} run groups)"),
    };
    writeln!(
        ex.err,
        "diffprofile: exported {runs} runs as {rows} rows to {}{shard}",
        config.out
    )?;
    Ok(if ex.errors > 0 && !config.config.load.parse.lenient {
        writeln!(
            ex.err,
            "diffprofile: error: {} member(s) could not be read or parsed (named above); their runs are not in {}",
            ex.errors, config.out
        )?;
        exit::ERROR
    } else {
        exit::SUCCESS
    })
}

/// What the file says of how it was made.
fn metadata(config: &ExportConfig) -> Vec<(String, String)> {
    let c = &config.config;
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

impl<W: Write + Send> Exporter<'_, W> {
    fn all_roots(&mut self) -> Result<()> {
        for (i, root) in self.config.roots.iter().enumerate() {
            self.root = i;
            self.archive = !std::path::Path::new(root).is_dir();
            self.maps.clear();
            tree::visit(root, &self.config.layout, self)?;
            self.flush()?;
            let deferred = std::mem::take(&mut self.deferred);
            for mut item in deferred {
                item.maps = self
                    .maps
                    .get_mut(tree::dir_of(&item.rel))
                    .map(DirMaps::beside);
                self.push(item)?;
            }
            self.flush()?;
            if self.unmatched_count > 0 {
                let more = self.unmatched_count - self.unmatched.len();
                writeln!(
                    self.err,
                    "diffprofile: warning: {root}: {} path(s) do not match --layout {} and were not read: {}{}",
                    self.unmatched_count,
                    self.config.layout.text(),
                    self.unmatched.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                )?;
                self.unmatched.clear();
                self.unmatched_count = 0;
            }
        }
        Ok(())
    }

    fn push(&mut self, item: Item) -> Result<()> {
        if let Data::Bytes(b) = &item.data {
            self.window_bytes += b.len();
        }
        self.window.push(item);
        if self.window.len() >= WINDOW_RUNS || self.window_bytes >= WINDOW_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Parse the window in parallel; write its runs in order.
    fn flush(&mut self) -> Result<()> {
        let window = std::mem::take(&mut self.window);
        self.window_bytes = 0;
        let opts = &self.config.config.load;
        let identity = &self.config.config.identity;
        let parsed: Vec<Result<std::result::Result<Prepared, String>>> = self.pool.install(|| {
            window
                .par_iter()
                .map(|item| parse(item, opts, identity))
                .collect()
        });
        for (item, r) in window.iter().zip(parsed) {
            let root = &self.config.roots[item.root];
            match r {
                Ok(Ok(run)) => {
                    if run.profile.total <= 0.0 {
                        writeln!(
                            self.err,
                            "diffprofile: warning: {root}: {}: run holds no samples",
                            item.key.source
                        )?;
                    }
                    self.writer.push(&item.key, &run)?;
                }
                Ok(Err(why)) => writeln!(
                    self.err,
                    "diffprofile: warning: {root}: benchmark {}: skipped {why}",
                    item.key.benchmark
                )?,
                Err(e) => {
                    self.errors += 1;
                    writeln!(self.err, "diffprofile: warning: {root}: {e:#}")?;
                }
            }
        }
        Ok(())
    }
}

/// Parse one run and place its symbols; `Ok(Err)` when it is no profile.
fn parse(
    item: &Item,
    opts: &load::LoadOptions,
    identity: &crate::identity::Identity,
) -> Result<std::result::Result<Prepared, String>> {
    let origin = &item.key.source;
    let loaded = match &item.data {
        Data::Bytes(b) => {
            load::load_stream_beside(Box::new(&b[..]), origin, opts, item.maps.clone())?
        }
        Data::File(p) => {
            let f = std::fs::File::open(p).with_context(|| format!("{origin}: cannot open"))?;
            load::load_stream_beside(
                Box::new(BufReader::with_capacity(BUF_SIZE.min(1 << 16), f)),
                origin,
                opts,
                item.maps.clone(),
            )?
        }
    };
    Ok(match loaded {
        Ok(p) => Ok(rows::prepare(p, identity)?),
        Err(why) => Err(why),
    })
}

/// Whether an archive member is in a format that reads a symbol map beside
/// it (a raw `/proc/profile` image, perf.data) and none was given.
fn needs_map(bytes: &[u8], opts: &load::LoadOptions) -> bool {
    let (map, kallsyms) = (opts.parse.map.is_some(), opts.parse.kallsyms.is_some());
    if map && kallsyms {
        return false;
    }
    let format = match opts.format {
        Some(f) => Some(f),
        None => detect(bytes),
    };
    match format {
        Some(Format::ProcProfile) => !map,
        Some(Format::PerfData) => !kallsyms,
        _ => false,
    }
}

fn detect(bytes: &[u8]) -> Option<Format> {
    const FIRST: usize = 64 << 10;
    let (_, mut reader) = input::decompress(Box::new(bytes)).ok()?;
    let head = input::fill_at_least(&mut reader, 1 << 20).ok()?;
    let short = &head[..head.len().min(FIRST)];
    let found = match crate::format::detect(short, head.len() < FIRST) {
        crate::format::Detected::NeedMore => crate::format::detect(&head, true),
        d => d,
    };
    match found {
        crate::format::Detected::Format(f) => Some(f),
        _ => None,
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
            self.taken += 1;
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

    fn member(&mut self, m: Member) -> Result<()> {
        let roots = &self.config.roots;
        let source = match (roots.len(), self.archive) {
            (1, _) => m.path.clone(),
            (_, false) => format!("{}/{}", roots[self.root].trim_end_matches('/'), m.path),
            (_, true) => format!("{}:{}", roots[self.root], m.path),
        };
        let info = self.config.config.run_info.lookup(&source);
        let key = RunKey {
            run: self.config.layout.run_name(&m.path),
            kernel: m.kernel,
            benchmark: m.bench,
            duration_s: info.and_then(|i| i.0),
            work: info.and_then(|i| i.1),
            source,
        };
        let dir = tree::dir_of(&m.path).to_string();
        let opts = &self.config.config.load;
        let wants_map = match &m.data {
            Data::Bytes(b) => needs_map(b, opts),
            Data::File(_) => false,
        };
        let has_maps = self.maps.contains_key(&dir);
        let item = Item {
            maps: match &m.data {
                Data::File(_) => self.maps.get_mut(&dir).map(DirMaps::beside),
                Data::Bytes(_) if wants_map && has_maps => {
                    self.maps.get_mut(&dir).map(DirMaps::beside)
                }
                Data::Bytes(_) => None,
            },
            key,
            rel: m.path,
            root: self.root,
            data: m.data,
        };
        if wants_map && !has_maps {
            self.deferred.push(item);
            return Ok(());
        }
        self.push(item)
    }

    fn unmatched(&mut self, path: String) {
        self.unmatched_count += 1;
        if self.unmatched.len() < LIST_MAX {
            self.unmatched.push(path);
        }
    }
}
