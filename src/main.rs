//! The `diffprofile` binary: parse the command line, run, map the result to
//! an exit code. A closed stdout pipe (`diffprofile … | head`) is success.

use clap::Parser;
use diffprofile::{app, cli::Cli, exit};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut err = io::stderr();
    let result = app::run_cli(cli, &mut out, &mut err);
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if is_broken_pipe(&e) => ExitCode::from(exit::SUCCESS),
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "diffprofile: error: {e:#}");
            ExitCode::from(exit::ERROR)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
