//! The `diffprofile` binary: parse the command line, run, map the result to
//! an exit code. A closed stdout pipe (`diffprofile … | head`) is success;
//! any other failure to write stdout (a full disk) is an error, for the
//! help and the version too. Messages on stderr have their control
//! characters escaped ([`diffprofile::text::Escaping`]): a file name
//! cannot send the terminal an escape sequence.

use anyhow::Context;
use clap::Parser;
use diffprofile::{app, cli::Cli, exit, input, text::Escaping};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    one_heap();
    let mut err = Escaping::new(io::stderr());
    // Arguments that are not UTF-8 (file names) are carried as text.
    let args = match input::args_as_text(std::env::args_os()) {
        Ok(args) => args,
        Err(why) => {
            let _ = writeln!(err, "diffprofile: error: {why}");
            return ExitCode::from(exit::ERROR);
        }
    };
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e, &mut err),
    };
    let stdout = Stdout {
        inner: io::stdout().lock(),
        open: stdout_is_open(),
    };
    let mut out = BufWriter::with_capacity(1 << 16, stdout);
    let result = app::run_cli(cli, &mut out, &mut err)
        .and_then(|code| out.flush().context("cannot write to stdout").map(|()| code));
    let code = match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => exit::SUCCESS,
        Err(e) => {
            let _ = out.flush();
            let _ = writeln!(err, "diffprofile: error: {e:#}");
            exit::ERROR
        }
    };
    let _ = err.flush();
    ExitCode::from(code)
}

/// What clap has to say instead of a run: the help or the version on
/// stdout (exit 0, or 2 when it cannot be written), a usage error on
/// stderr (exit 2).
fn clap_exit(e: &clap::Error, err: &mut dyn Write) -> ExitCode {
    let code = e.exit_code();
    let shown = if code == 0 && !stdout_is_open() {
        Err(closed_stdout())
    } else {
        e.print().and_then(|()| io::stdout().flush())
    };
    match shown {
        Err(io) if code == 0 && io.kind() != io::ErrorKind::BrokenPipe => {
            let what = match e.kind() {
                clap::error::ErrorKind::DisplayVersion => "the version",
                _ => "the help",
            };
            let _ = writeln!(
                err,
                "diffprofile: error: cannot write {what} to stdout: {io}"
            );
            ExitCode::from(exit::ERROR)
        }
        _ => ExitCode::from(u8::try_from(code).unwrap_or(exit::ERROR)),
    }
}

/// One malloc heap for every thread (glibc), and a fixed size above which
/// blocks are mapped on their own ([`MMAP_THRESHOLD`]). The stages of a
/// comparison free tens of MB that the next stage, often on another worker
/// thread, allocates again: with a heap per thread that memory is not
/// reused, and a million-symbol comparison peaked anywhere from 282 to
/// 321 MB from run to run instead of 266 MB, at no measurable gain in time
/// (the hot paths allocate little).
fn one_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any
    // thread is started.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Blocks of this size or more get a mapping of their own, returned to the
/// system when freed (and grown in place by `mremap`). glibc's default
/// starts there too but raises the threshold to the size of each mapped
/// block freed (up to 32 MiB), so which of a comparison's large vectors
/// and tables land in the heap, where their freed space is kept and
/// fragmented, depended on the order worker threads freed theirs: one heap
/// still gave a million-symbol comparison 269-334 MiB from run to run on a
/// loaded machine; a fixed 1, 4 or 8 MiB 253-262 MiB, 32 MiB 268-299 MiB.
/// The price: blocks above it are mapped afresh (page faults), 0.7 s more
/// system time in a batch of 100 perf.data runs of 10 CPU seconds.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 4 << 20;

/// Standard output as the run writes it. Rust's stdout takes a closed
/// descriptor 1 (`diffprofile … >&-`) for a sink and reports success; here
/// the first write to it is the error `cat` gives.
struct Stdout<W> {
    inner: W,
    open: bool,
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.open {
            self.inner.write(buf)
        } else {
            Err(closed_stdout())
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.open {
            self.inner.flush()
        } else {
            Ok(())
        }
    }
}

/// Whether descriptor 1 was open when the process started. Rust's runtime
/// opens /dev/null on a closed descriptor 1 before `main`, so the check
/// runs earlier, as a constructor (`.init_array`, which the C library runs
/// before it calls Rust's start-up).
fn stdout_is_open() -> bool {
    !STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
}

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static CHECK_STDOUT: extern "C" fn() = check_stdout;

#[cfg(target_os = "linux")]
extern "C" fn check_stdout() {
    // SAFETY: F_GETFD only reads the descriptor's flags.
    let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
    STDOUT_CLOSED.store(closed, std::sync::atomic::Ordering::Relaxed);
}

fn closed_stdout() -> io::Error {
    io::Error::other("standard output is closed (Bad file descriptor)")
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
