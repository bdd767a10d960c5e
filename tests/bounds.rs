//! The bounds the README promises, through the real binary: an archive
//! member bomb (a tar member of a gigabyte of zeros, in `batch` and as a
//! side) stays under 256 MB of peak RSS; directory walks do not follow
//! links to directories (a loop, a link to `/`) and skip dangling links with
//! a counted warning; a FIFO at a path a perf.data names is not opened.
//!
//! Peak RSS is the child's own `ru_maxrss` from `wait4` (no cgroups; thread
//! stacks count only for the pages touched), so `--jobs` does not matter.

use crate::cli::diffprofile;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Run `cmd` with stdout/stderr captured, killed after `limit` (then
/// `None`); returns its output and its peak RSS in KiB. The child is reaped
/// by `wait4` (which gives its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
pub fn run_measured(cmd: &mut Command, limit: Duration) -> Option<(Output, u64)> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut so = child.stdout.take().expect("stdout piped");
    let mut se = child.stderr.take().expect("stderr piped");
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut so, &mut v);
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut se, &mut v);
        v
    });
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let mut killed = false;
    let (status, rss) = loop {
        let mut status = 0;
        // SAFETY: a plain syscall on our own child with valid out-pointers.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let flags = if killed { 0 } else { libc::WNOHANG };
        let got = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if got == pid {
            break (ExitStatus::from_raw(status), usage.ru_maxrss as u64);
        }
        assert!(got == 0, "wait4: {}", std::io::Error::last_os_error());
        if start.elapsed() > limit {
            let _ = child.kill();
            killed = true;
            continue;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = out_t.join().expect("stdout reader");
    let stderr = err_t.join().expect("stderr reader");
    (!killed).then_some((
        Output {
            status,
            stdout,
            stderr,
        },
        rss,
    ))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn gz(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// A `.tar.gz` (concatenated gzip members) of three real runs of each of
/// two kernels, and between them a member `v2/bench/zeros.bin` of 1 GiB of
/// zeros (about 1 MB on disk).
fn member_bomb(path: &Path) {
    let tar_of = |files: &[(&str, &str)], end: bool| -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, src) in files {
            let data = std::fs::read(src).unwrap();
            let mut h = tar::Header::new_ustar();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, name, &data[..]).unwrap();
        }
        if end {
            b.into_inner().unwrap()
        } else {
            b.get_ref().clone()
        }
    };
    let rp = "testdata/readprofile/default";
    let head = tar_of(
        &[
            ("v1/bench/run1.txt", &format!("{rp}/sockets/run1.txt")),
            ("v1/bench/run2.txt", &format!("{rp}/sockets/run2.txt")),
            ("v1/bench/run3.txt", &format!("{rp}/sockets/run3.txt")),
            ("v2/bench/run1.txt", &format!("{rp}/pipes/run1.txt")),
        ],
        false,
    );
    let tail = tar_of(
        &[
            ("v2/bench/run2.txt", &format!("{rp}/pipes/run2.txt")),
            ("v2/bench/run3.txt", &format!("{rp}/pipes/run3.txt")),
        ],
        true,
    );
    let mut h = tar::Header::new_ustar();
    h.set_path("v2/bench/zeros.bin").unwrap();
    h.set_size(1 << 30);
    h.set_mode(0o644);
    h.set_cksum();
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(&gz(&head)).unwrap();
    f.write_all(&gz(h.as_bytes())).unwrap();
    let mib = gz(&vec![0u8; 1 << 20]);
    for _ in 0..1024 {
        f.write_all(&mib).unwrap();
    }
    f.write_all(&gz(&tail)).unwrap();
}

/// Before: `batch` read every member whole into memory, 1 GiB for this one.
#[test]
fn archive_member_bomb_stays_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let bomb = tmp.path().join("results.tar.gz");
    member_bomb(&bomb);
    let bomb = bomb.to_string_lossy().into_owned();
    let new = "testdata/readprofile/default/pipes/run4.txt";
    for args in [
        vec!["batch", &bomb, "--baseline", "v1", "--top", "1"],
        vec![&bomb, new, "--top", "1", "-o", "csv"],
    ] {
        let (o, rss) = run_measured(diffprofile().args(&args), Duration::from_secs(600))
            .unwrap_or_else(|| panic!("{args:?}: hung"));
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {e}");
        assert!(
            e.contains("zeros.bin: not a recognised profile"),
            "{args:?}: {e}"
        );
        assert!(rss < 256 << 10, "{args:?}: peak RSS {} MiB", rss >> 10);
        eprintln!("{args:?}: peak RSS {} MiB", rss >> 10);
    }
}
