//! Fuzz target: detection and the whole pipeline. The input is split in
//! two (the first two bytes give the split point, the third the analysis
//! flags); each half goes through decompression, format detection and its
//! parser (`diffprofile::load::load_stream`), the profiles become the OLD and
//! NEW sides, and the report is rendered by every renderer (text, classic,
//! json, csv, markdown, html, flamegraph; callchains are kept when the flags
//! ask for stacks, so the flame graph is drawn from them). Nothing may panic.

#![no_main]

mod common;

use clap::Parser;
use diffprofile::aggregate::Side;
use diffprofile::app;
use diffprofile::cli::Cli;
use diffprofile::config::Config;
use diffprofile::load::{self, LoadOptions};
use diffprofile::profile::Profile;
use diffprofile::render::{self, OutputFormat};
use libfuzzer_sys::fuzz_target;
use std::io::Cursor;

fn load(bytes: &[u8], name: &str, opts: &LoadOptions) -> Option<Profile> {
    let reader = Box::new(Cursor::new(bytes.to_vec()));
    match load::load_stream(reader, name, opts) {
        Ok(Ok(p)) => {
            common::check(&p);
            Some(p)
        }
        _ => None,
    }
}

/// Analysis flags from one byte: normalisation, sort, grouping, suffixes.
fn args(flags: u8) -> Vec<&'static str> {
    let mut a = vec!["diffprofile", "old", "new"];
    a.extend(match flags & 3 {
        0 => ["-n", "share"],
        1 => ["-n", "ticks"],
        2 => ["-n", "robust"],
        _ => ["--sort", "impact"],
    });
    if flags & 4 != 0 {
        a.extend(["--top", "3"]);
    }
    if flags & 8 != 0 {
        a.extend(["--group-by", "dso"]);
    }
    if flags & 16 != 0 {
        a.push("--keep-suffixes");
    }
    if flags & 32 != 0 {
        a.push("--wide");
    }
    if flags & 64 != 0 {
        a.extend(["--sort", "ratio"]);
    }
    a
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let split = u16::from_le_bytes([data[0], data[1]]) as usize;
    let flags = data[2];
    let body = &data[3..];
    let split = if body.is_empty() { 0 } else { split % (body.len() + 1) };
    let (a, b) = body.split_at(split);
    let Ok(cli) = Cli::try_parse_from(args(flags)) else {
        return;
    };
    let Ok(mut config) = Config::from_cli(cli) else {
        return;
    };
    config.load.parse = common::options(flags >> 1);
    config.load.parse.event = None;
    let old = load(a, "old", &config.load);
    let new = load(b, "new", &config.load);
    let (old, new) = match (old, new) {
        (Some(o), Some(n)) => (o, n),
        (Some(o), None) => (o.clone(), o),
        (None, Some(n)) => (n.clone(), n),
        (None, None) => return,
    };
    let sides = [
        Side {
            name: "old".into(),
            label: "old".into(),
            runs: vec![old],
        },
        Side {
            name: "new".into(),
            label: "new".into(),
            runs: vec![new],
        },
    ];
    let Ok(app::Finished { report, flames }) = app::compare_sides(&sides, &config) else {
        return;
    };
    for format in [
        OutputFormat::Text,
        OutputFormat::Classic,
        OutputFormat::Json,
        OutputFormat::Csv,
        OutputFormat::Markdown,
        OutputFormat::Html,
        OutputFormat::Flamegraph,
    ] {
        let mut out = Vec::new();
        render::render(format, &report, flames.as_ref(), &config.render, &mut out)
            .expect("render into a Vec");
        if format == OutputFormat::Json {
            let _: serde_json_check::Value = serde_json_check::from_slice(&out)
                .expect("JSON output parses as JSON");
        }
    }
});
