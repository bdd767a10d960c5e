//! Where a history's runs come from, one group of benchmarks at a time, so
//! that memory holds one benchmark's series (or a few small ones), never
//! the archive: a directory tree (listed once, then each benchmark's files
//! parsed in parallel), a tar archive (one pass to list it and read its
//! symbol maps, then one pass per group of benchmarks of at most
//! [`GROUP_RUNS`] runs, reading only their members), or a counts table
//! (read once; its runs are held). Members are matched with the
//! [`Layout`] and read as `batch` reads them ([`crate::table::tree`]).

use crate::compare::Config;
use crate::layout::Layout;
use crate::load::{self, Beside, MapFile};
use crate::profile::Profile;
use crate::table::select::Selector;
use crate::table::tree::{self, Data, Member, Visitor};
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::Arc;

/// An archive pass reads the members of benchmarks holding at most this
/// many runs together (one benchmark at least).
pub const GROUP_RUNS: usize = 4096;

/// Paths with no place in the layout named in a warning; the rest counted.
const LIST_MAX: usize = 20;

/// One benchmark's runs: kernel → runs (in path order), and the warnings of
/// reading them (members not profiles, runs with no samples).
pub struct BenchRuns {
    pub name: String,
    pub kernels: BTreeMap<String, Vec<Profile>>,
    pub warnings: Vec<String>,
    /// Members that could not be read or parsed (named in `errors_text`).
    pub errors: Vec<String>,
}

type MapsByDir = BTreeMap<String, Arc<Beside>>;

/// A results tree or table, listed.
pub struct Source {
    root: String,
    kind: Kind,
    /// Benchmark → kernel → member count (for the header and grouping).
    pub listing: BTreeMap<String, BTreeMap<String, usize>>,
    /// Warnings of listing (unmatched paths, links passed over).
    pub warnings: Vec<String>,
    /// Benchmarks not yet read, in name order.
    pending: Vec<String>,
}

enum Kind {
    Dir {
        members: BTreeMap<String, Vec<(String, String, PathBuf)>>,
        maps: MapsByDir,
    },
    Archive {
        layout: Layout,
        maps: MapsByDir,
        select: Option<Selector>,
    },
    Table {
        runs: BTreeMap<String, BTreeMap<String, Vec<Profile>>>,
    },
}

/// The visitor of a listing pass.
#[derive(Default)]
struct Lister {
    select: Option<Selector>,
    dir: bool,
    members: BTreeMap<String, Vec<(String, String, PathBuf)>>,
    listing: BTreeMap<String, BTreeMap<String, usize>>,
    maps: BTreeMap<String, Vec<MapFile>>,
    unmatched: Vec<String>,
    warnings: Vec<String>,
}

fn selected(select: &Option<Selector>, kernel: &str, bench: &str, _: Option<&str>) -> bool {
    select
        .as_ref()
        .is_none_or(|s| s.matches(&[Some(kernel), Some(bench), None, None, None, None]))
}

impl Visitor for Lister {
    fn wants(&mut self, kernel: &str, bench: &str) -> bool {
        if !self.dir && selected(&self.select, kernel, bench, None) {
            *self
                .listing
                .entry(bench.to_string())
                .or_default()
                .entry(kernel.to_string())
                .or_default() += 1;
        }
        // A directory's members are named, never read, here.
        self.dir
    }
    fn map(&mut self, dir: &str, file: MapFile) -> Result<()> {
        self.maps.entry(dir.to_string()).or_default().push(file);
        Ok(())
    }
    fn member(&mut self, m: Member<'_>) -> Result<()> {
        if let Data::File(p) = m.data {
            if selected(&self.select, &m.kernel, &m.bench, None) {
                *self
                    .listing
                    .entry(m.bench.clone())
                    .or_default()
                    .entry(m.kernel.clone())
                    .or_default() += 1;
                self.members
                    .entry(m.bench)
                    .or_default()
                    .push((m.kernel, m.path, p));
            }
        }
        Ok(())
    }
    fn unmatched(&mut self, path: String) {
        self.unmatched.push(path);
    }
    fn warning(&mut self, text: String) {
        self.warnings.push(text);
    }
}

impl Source {
    /// List the tree or table at `root`; `config` may be replaced by the
    /// table's (symbols placed as on export).
    /// A counts table (its kernels are a column, not paths).
    pub fn is_table(&self) -> bool {
        matches!(self.kind, Kind::Table { .. })
    }

    pub fn open(
        root: &str,
        layout: &Layout,
        select: Option<Selector>,
        config: &mut Config,
    ) -> Result<Source> {
        if root == "-" {
            anyhow::bail!(
                "history reads a results tree by its path (a directory, a tar archive or a \
                 counts table), not stdin: save it to a file and give its path as ROOT"
            );
        }
        if let Some((c, runs)) = crate::compare::table_runs(root, config)? {
            *config = c;
            return Ok(Source::of_table(root, runs, &select));
        }
        let path = crate::input::os_path(root);
        let meta = std::fs::metadata(&path).with_context(|| format!("{root}: cannot open"))?;
        let mut lister = Lister {
            select: select.clone(),
            dir: meta.is_dir(),
            ..Lister::default()
        };
        tree::visit(root, layout, &mut lister)?;
        let mut warnings = lister.warnings;
        if !lister.unmatched.is_empty() {
            let mut u = lister.unmatched;
            u.sort();
            let more = u.len().saturating_sub(LIST_MAX);
            warnings.push(format!(
                "{} path(s) do not match --layout {} and were not read: {}{}",
                u.len(),
                layout.text(),
                u[..u.len().min(LIST_MAX)].join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
        if lister.listing.is_empty() {
            anyhow::bail!(
                "{root}: no files match --layout {}{}",
                layout.text(),
                if select.is_some() { " and --where" } else { "" }
            );
        }
        let maps: MapsByDir = lister
            .maps
            .into_iter()
            .map(|(d, f)| (d, Arc::new(Beside::new(f))))
            .collect();
        let kind = if meta.is_dir() {
            let mut members = lister.members;
            for list in members.values_mut() {
                list.sort_by(|a, b| a.1.cmp(&b.1));
            }
            Kind::Dir { members, maps }
        } else {
            Kind::Archive {
                layout: layout.clone(),
                maps,
                select,
            }
        };
        Ok(Source {
            root: root.to_string(),
            pending: lister.listing.keys().cloned().collect(),
            listing: lister.listing,
            warnings,
            kind,
        })
    }

    fn of_table(
        root: &str,
        runs: Vec<crate::table::reader::TableRun>,
        select: &Option<Selector>,
    ) -> Source {
        let mut by: BTreeMap<String, BTreeMap<String, Vec<Profile>>> = BTreeMap::new();
        let mut listing: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
        let mut runs = runs;
        // Runs in source order, as a tree's members are in path order.
        runs.sort_by(|a, b| {
            (&a.benchmark, &a.kernel, &a.profile.source, &a.run).cmp(&(
                &b.benchmark,
                &b.kernel,
                &b.profile.source,
                &b.run,
            ))
        });
        for r in runs {
            let keep = select.as_ref().is_none_or(|s| s.matches(&r.selectable()));
            if !keep {
                continue;
            }
            *listing
                .entry(r.benchmark.clone())
                .or_default()
                .entry(r.kernel.clone())
                .or_default() += 1;
            by.entry(r.benchmark)
                .or_default()
                .entry(r.kernel)
                .or_default()
                .push(r.profile);
        }
        Source {
            root: root.to_string(),
            pending: listing.keys().cloned().collect(),
            listing,
            warnings: Vec::new(),
            kind: Kind::Table { runs: by },
        }
    }

    /// The next group of benchmarks, read (in name order), or None.
    pub fn next_group(&mut self, config: &Config) -> Result<Option<Vec<BenchRuns>>> {
        if self.pending.is_empty() {
            return Ok(None);
        }
        let mut group = Vec::new();
        let mut runs = 0;
        while let Some(b) = self.pending.first() {
            let n: usize = self.listing[b].values().sum();
            if !group.is_empty() && runs + n > GROUP_RUNS {
                break;
            }
            runs += n;
            group.push(self.pending.remove(0));
        }
        let opts = &config.load;
        let out = match &mut self.kind {
            Kind::Table { runs } => group
                .into_iter()
                .map(|b| BenchRuns {
                    kernels: runs.remove(&b).unwrap_or_default(),
                    name: b,
                    warnings: Vec::new(),
                    errors: Vec::new(),
                })
                .collect(),
            Kind::Dir { members, maps } => group
                .into_iter()
                .map(|b| {
                    let list = members.remove(&b).unwrap_or_default();
                    let read: Vec<Read> = list
                        .into_par_iter()
                        .map(|(k, path, full)| {
                            let maps = load::maps_near(maps, tree::dir_of(&path));
                            let r = read_file(&full, &path, opts, maps);
                            (k, path, r)
                        })
                        .collect();
                    collect(b, read)
                })
                .collect(),
            Kind::Archive {
                layout,
                maps,
                select,
            } => {
                let mut pass = Pass {
                    group: group.iter().cloned().collect(),
                    select: select.clone(),
                    maps,
                    opts,
                    bytes: Vec::new(),
                    done: Vec::new(),
                };
                tree::visit(&self.root, layout, &mut pass)?;
                let Pass {
                    bytes, mut done, ..
                } = pass;
                let parsed: Vec<(String, Read)> = bytes
                    .into_par_iter()
                    .map(|(k, b, path, bytes)| {
                        let maps = load::maps_near(maps, tree::dir_of(&path));
                        let r = load::load_stream_beside(Box::new(&bytes[..]), &path, opts, maps);
                        (b, (k, path, r))
                    })
                    .collect();
                done.extend(parsed);
                done.sort_by(|a, b| (&a.0, &a.1 .1).cmp(&(&b.0, &b.1 .1)));
                let mut by: BTreeMap<String, Vec<Read>> =
                    group.iter().map(|b| (b.clone(), Vec::new())).collect();
                for (b, r) in done {
                    by.entry(b).or_default().push(r);
                }
                by.into_iter().map(|(b, read)| collect(b, read)).collect()
            }
        };
        Ok(Some(out))
    }
}

/// A member read: kernel, path, and its profile, why it is not one, or the error.
type Read = (String, String, Result<std::result::Result<Profile, String>>);

fn read_file(
    full: &PathBuf,
    path: &str,
    opts: &load::LoadOptions,
    maps: Option<Arc<Beside>>,
) -> Result<std::result::Result<Profile, String>> {
    let f = std::fs::File::open(full).with_context(|| format!("{path}: cannot open"))?;
    load::load_stream_beside(
        Box::new(BufReader::with_capacity(1 << 16, f)),
        path,
        opts,
        maps,
    )
}

/// The runs of one benchmark from its members read (in path order).
fn collect(name: String, read: Vec<Read>) -> BenchRuns {
    let mut b = BenchRuns {
        name,
        kernels: BTreeMap::new(),
        warnings: Vec::new(),
        errors: Vec::new(),
    };
    for (kernel, path, r) in read {
        match r {
            Ok(Ok(p)) => {
                if p.total <= 0.0 {
                    b.warnings.push(format!("{path}: run holds no samples"));
                }
                b.kernels.entry(kernel).or_default().push(p);
            }
            Ok(Err(why)) => b.warnings.push(format!("skipped {why}")),
            Err(e) => b.errors.push(format!("{e:#}")),
        }
    }
    b
}

/// The visitor of one archive pass: the group's members, small ones as
/// bytes (parsed in parallel after the pass), large ones parsed as they
/// stream by.
struct Pass<'a> {
    group: std::collections::BTreeSet<String>,
    select: Option<Selector>,
    maps: &'a MapsByDir,
    opts: &'a load::LoadOptions,
    /// (kernel, bench, path, bytes)
    bytes: Vec<(String, String, String, Vec<u8>)>,
    /// (bench, read)
    done: Vec<(String, Read)>,
}

impl Visitor for Pass<'_> {
    fn wants(&mut self, kernel: &str, bench: &str) -> bool {
        self.group.contains(bench) && selected(&self.select, kernel, bench, None)
    }
    fn map(&mut self, _: &str, _: MapFile) -> Result<()> {
        Ok(())
    }
    fn member(&mut self, m: Member<'_>) -> Result<()> {
        match m.data {
            Data::Bytes(b) => self.bytes.push((m.kernel, m.bench, m.path, b)),
            Data::Stream(r) => {
                let maps = load::maps_near(self.maps, tree::dir_of(&m.path));
                let raw = Box::new(BufReader::with_capacity(crate::input::BUF_SIZE, r));
                let r = load::load_stream_beside(raw, &m.path, self.opts, maps);
                self.done.push((m.bench, (m.kernel, m.path, r)));
            }
            Data::File(p) => {
                let maps = load::maps_near(self.maps, tree::dir_of(&m.path));
                let r = read_file(&p, &m.path, self.opts, maps);
                self.done.push((m.bench, (m.kernel, m.path, r)));
            }
        }
        Ok(())
    }
    fn unmatched(&mut self, _: String) {}
    fn warning(&mut self, _: String) {}
}
