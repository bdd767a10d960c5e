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
    clap_mangen::Man::new(cmd)
        .render(&mut buf)
        .context("cannot render the man page")?;
    Ok(buf)
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
