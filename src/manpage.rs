//! Man pages and shell completions, generated from the clap definition of
//! the command line (clap_mangen, clap_complete), so they never drift from
//! `--help`: `diffprofile man [--out-dir DIR]`, `diffprofile completions SHELL`.

use crate::cli::Cli;
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;

/// Render one command's man page.
fn page(cmd: clap::Command) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut buf)
        .context("cannot render the man page")?;
    let text = String::from_utf8(buf).context("the man page is not UTF-8")?;
    Ok(with_values(text, &cmd).into_bytes())
}

/// clap_mangen's SYNOPSIS names each option without its value
/// (`[--comm]`): each option that takes one gets it, as `--help` writes
/// it (`[--comm NAMES]`).
fn with_values(page: String, cmd: &clap::Command) -> String {
    let Some(start) = page.find(".SH SYNOPSIS\n") else {
        return page;
    };
    let end = page[start + 1..]
        .find("\n.SH ")
        .map_or(page.len(), |e| start + 1 + e);
    let mut synopsis = page[start..end].to_string();
    for arg in cmd.get_arguments().filter(|a| !a.is_positional()) {
        let (Some(long), true) = (arg.get_long(), arg.get_action().takes_values()) else {
            continue;
        };
        let value = match arg.get_value_names() {
            Some(names) => names
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            None => arg.get_id().as_str().to_uppercase(),
        };
        let flag = format!("\\fB\\-\\-{}\\fR]", long.replace('-', "\\-"));
        let with = format!(
            "\\fB\\-\\-{}\\fR \\fI{}\\fR]",
            long.replace('-', "\\-"),
            value.replace('-', "\\-")
        );
        synopsis = synopsis.replacen(&flag, &with, 1);
    }
    format!("{}{synopsis}{}", &page[..start], &page[end..])
}

/// With a directory: `diffprofile.1` and one `diffprofile-SUB.1` per
/// subcommand, written there (the names are listed on `out`); without: the
/// main page on `out`.
pub fn write_man(dir: Option<&str>, out: &mut dyn Write) -> Result<()> {
    let cmd = Cli::command();
    let Some(dir) = dir else {
        out.write_all(&page(cmd)?)?;
        return Ok(());
    };
    std::fs::create_dir_all(crate::input::os_path(dir))
        .with_context(|| format!("{dir}: cannot create directory"))?;
    let mut pages = vec![("diffprofile.1".to_string(), page(cmd.clone())?)];
    for sub in cmd.get_subcommands() {
        let name = format!("diffprofile-{}", sub.get_name());
        // clap names take 'static strings; a handful of subcommands, leaked once per run.
        let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
        pages.push((format!("{name}.1"), page(sub.clone().name(leaked))?));
    }
    for (file, bytes) in pages {
        let path = crate::input::os_path(dir).join(&file);
        crate::input::target::Output::write_whole("--out-dir", &path, &bytes)?;
        writeln!(out, "{}", path.display())?;
    }
    Ok(())
}

pub fn write_completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<()> {
    let mut cmd = Cli::command();
    // Generated in memory: the generators cannot report a write error
    // (they panic on one); writing the script here can.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "diffprofile", &mut script);
    out.write_all(&script)?;
    Ok(())
}
