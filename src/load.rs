//! From the paths of one side to its runs: expands each path
//! ([`crate::input`]), detects each file's format from its first bytes (the
//! sniffed prefix is replayed into the parser), and parses, in parallel across
//! files (rayon) with results kept in path order. Files inside a directory or
//! archive that no parser recognises are skipped and named in a warning;
//! a file named on the command line that no parser recognises is an error.

use crate::format::{self, Detected, ParseOptions};
use crate::input::{self, Location, BUF_SIZE};
use crate::profile::{Format, Profile};
use anyhow::{anyhow, bail, Context, Result};
use rayon::prelude::*;
use std::io::{self, BufRead, BufReader, Read};

/// How far detection reads before giving up: first 64 KiB, then up to 1 MiB
/// when a parser still needs more.
const SNIFF_FIRST: usize = 64 << 10;
const SNIFF_MAX: usize = 1 << 20;

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `-f FORMAT`; `None` detects per file.
    pub format: Option<Format>,
    pub parse: ParseOptions,
}

/// The runs of one side, in order, with warnings about files passed over.
#[derive(Debug, Default)]
pub struct Loaded {
    pub runs: Vec<Profile>,
    pub warnings: Vec<String>,
}

/// What reading one member gave.
enum Outcome {
    Run(Box<Profile>),
    /// Not a profile (no parser recognised it), with the reason.
    Skipped(String),
}

/// Load every run named by `paths` (one side).
pub fn load_side(paths: &[String], opts: &LoadOptions) -> Result<Loaded> {
    let mut locations = Vec::new();
    for path in paths {
        let expanded = input::expand(path)?;
        let from_dir = !matches!(expanded.as_slice(), [Location::Stdin])
            && std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false);
        locations.extend(expanded.into_iter().map(|l| (l, from_dir)));
    }
    let results: Vec<Result<Vec<Outcome>>> = locations
        .par_iter()
        .map(|(loc, from_dir)| load_location(loc, *from_dir, opts))
        .collect();
    let mut loaded = Loaded::default();
    let mut skipped = Vec::new();
    for r in results {
        for outcome in r? {
            match outcome {
                Outcome::Run(p) => loaded.runs.push(*p),
                Outcome::Skipped(why) => skipped.push(why),
            }
        }
    }
    if !skipped.is_empty() {
        loaded.warnings.push(format!(
            "skipped {} file(s) that are not profiles: {}",
            skipped.len(),
            skipped.join("; ")
        ));
    }
    if loaded.runs.is_empty() {
        bail!(
            "{}: no profiles found{}",
            paths.join(" "),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(" ({})", skipped.join("; "))
            }
        );
    }
    Ok(loaded)
}

fn load_location(loc: &Location, from_dir: bool, opts: &LoadOptions) -> Result<Vec<Outcome>> {
    let opened = input::open(loc)?;
    if opened.tar {
        return load_tar(opened.reader, &opened.name, opts);
    }
    match parse_reader(opened.reader, &opened.name, opts)? {
        Outcome::Skipped(why) if !from_dir => Err(anyhow!(why)),
        outcome => Ok(vec![outcome]),
    }
}

/// Every regular member of a tar archive is one run, read in place (never
/// extracted). Members that are not regular files are named in a warning.
fn load_tar(reader: Box<dyn BufRead>, name: &str, opts: &LoadOptions) -> Result<Vec<Outcome>> {
    let mut archive = tar::Archive::new(reader);
    let mut out = Vec::new();
    let entries = archive
        .entries()
        .with_context(|| format!("{name}: cannot read tar archive"))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("{name}: corrupt tar archive"))?;
        let member = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let origin = format!("{name}:{member}");
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            continue;
        }
        if !kind.is_file() {
            out.push(Outcome::Skipped(format!("{origin}: not a regular file")));
            continue;
        }
        if member
            .rsplit('/')
            .next()
            .is_some_and(|b| b.starts_with('.'))
        {
            continue;
        }
        let raw: Box<dyn BufRead + '_> = Box::new(BufReader::with_capacity(BUF_SIZE, entry));
        let (_, reader) =
            input::decompress(raw).with_context(|| format!("{origin}: cannot read"))?;
        out.push(parse_reader(reader, &origin, opts)?);
    }
    Ok(out)
}

/// Detect (unless forced) and parse one decompressed stream.
fn parse_reader<'a>(
    mut reader: Box<dyn BufRead + 'a>,
    origin: &str,
    opts: &LoadOptions,
) -> Result<Outcome> {
    let format = match opts.format {
        Some(f) => f,
        None => {
            let mut head = input::fill_at_least(&mut reader, SNIFF_FIRST)
                .with_context(|| format!("{origin}: cannot read"))?;
            if head.is_empty() {
                return Ok(Outcome::Skipped(format!("{origin}: empty file")));
            }
            let mut found = format::detect(&head, head.len() < SNIFF_FIRST);
            if found == Detected::NeedMore {
                let more = input::fill_at_least(&mut reader, SNIFF_MAX - SNIFF_FIRST)
                    .with_context(|| format!("{origin}: cannot read"))?;
                head.extend_from_slice(&more);
                // At the 1 MiB limit an undecided prefix counts as no match.
                found = format::detect(&head, true);
            }
            let replay = io::Cursor::new(head);
            let chained: Box<dyn BufRead + 'a> = Box::new(replay.chain(reader));
            reader = chained;
            match found {
                Detected::Format(f) => f,
                _ => {
                    let tried: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                    return Ok(Outcome::Skipped(format!(
                        "{origin}: not a recognised profile (tried {}); use -f to force a format",
                        tried.join(", ")
                    )));
                }
            }
        }
    };
    let profile = format::parse(format, &mut *reader, origin, &opts.parse)?;
    Ok(Outcome::Run(Box::new(profile)))
}

/// One stream that is meant to be one run (a file of a results tree, a
/// member of an archive): undo its compression, detect and parse it.
/// `Ok(Err(reason))` when it is not a profile (empty, unrecognised);
/// `Err` when it cannot be read or is malformed.
pub fn load_stream<'a>(
    raw: Box<dyn BufRead + 'a>,
    origin: &str,
    opts: &LoadOptions,
) -> Result<std::result::Result<Profile, String>> {
    let (_, reader) = input::decompress(raw).with_context(|| format!("{origin}: cannot read"))?;
    Ok(match parse_reader(reader, origin, opts)? {
        Outcome::Run(p) => Ok(*p),
        Outcome::Skipped(why) => Err(why),
    })
}
