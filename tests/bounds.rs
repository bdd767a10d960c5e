//! The bounds the README promises, through the real binary: an archive
//! member bomb (a tar member of a gigabyte of zeros, in `batch` and as a
//! side) stays under 256 MB of peak RSS; directory walks do not follow
//! links to directories (a loop, a link to `/`) and skip dangling links with
//! a counted warning; a FIFO at a path a perf.data names is not opened.
//!
//! Peak RSS is the child's own `ru_maxrss` from `wait4` in a small parent
//! process (no cgroups; thread stacks count only for the pages touched), so
//! `--jobs` and the other tests running beside it do not matter.

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
    let rss_file = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = through_small_parent(cmd, rss_file.path());
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
    // The measured process's own peak (see `through_small_parent`); the
    // wrapper's `wait4` rusage is only a fallback.
    let rss = std::fs::read_to_string(rss_file.path())
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(rss);
    (!killed).then_some((
        Output {
            status,
            stdout,
            stderr,
        },
        rss,
    ))
}

/// `cmd` started by a small Python process that forks it, reaps it with
/// `wait4` and writes its `ru_maxrss` (KiB) to `rss_file`, then exits as it
/// did. Spawned straight from this test process, the child's `ru_maxrss`
/// would start at this process's own high-water mark (Linux carries it
/// across `vfork` + `exec`), which the other tests running beside it push
/// past any bound; forked from a 10 MB parent it is the child's own.
fn through_small_parent(cmd: &Command, rss_file: &Path) -> Command {
    const WRAP: &str = r#"
import ctypes, os, signal, sys
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    os.execvp(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    sig = os.WTERMSIG(status)
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
sys.exit(os.WEXITSTATUS(status))
"#;
    let mut wrapped = Command::new("python3");
    wrapped
        .arg("-c")
        .arg(WRAP)
        .arg(rss_file)
        .arg(cmd.get_program());
    wrapped.args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => wrapped.env(k, v),
            None => wrapped.env_remove(k),
        };
    }
    wrapped
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

/// Before: `batch` (and `export`) read every member whole into memory, 1 GiB
/// for this one.
#[test]
fn archive_member_bomb_stays_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let bomb = tmp.path().join("results.tar.gz");
    member_bomb(&bomb);
    let bomb = bomb.to_string_lossy().into_owned();
    let new = "testdata/readprofile/default/pipes/run4.txt";
    let table = tmp.path().join("t.parquet").to_string_lossy().into_owned();
    for args in [
        vec!["batch", &bomb, "--baseline", "v1", "--top", "1"],
        vec![&bomb, new, "--top", "1", "-o", "csv"],
        vec!["export", &bomb, "-o", &table],
    ] {
        let (o, rss) = run_measured(diffprofile().args(&args), Duration::from_secs(600))
            .unwrap_or_else(|| panic!("{args:?}: hung"));
        // (batch's text report holds its warnings; stderr says how many.)
        let e = format!("{}{}", stderr(&o), String::from_utf8_lossy(&o.stdout));
        assert_eq!(o.status.code(), Some(0), "{args:?}: {e}");
        assert!(
            e.contains("zeros.bin: not a recognised profile"),
            "{args:?}: {e}"
        );
        assert!(rss < 256 << 10, "{args:?}: peak RSS {} MiB", rss >> 10);
        eprintln!("{args:?}: peak RSS {} MiB", rss >> 10);
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// A side directory and a batch tree with a symlink loop, a link to `/`, a
/// dangling link and a FIFO: links to directories are not followed, the
/// dangling link and the FIFO are passed over, each kind counted in a
/// warning; a link to a file is read.
#[test]
fn directory_walks_do_not_follow_directory_links() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let rp = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/readprofile/default");
    for (dir, w) in [("tree/v1/bench", "sockets"), ("tree/v2/bench", "pipes")] {
        std::fs::create_dir_all(d.join(dir)).unwrap();
        for r in 1..=3 {
            std::fs::copy(
                rp.join(format!("{w}/run{r}.txt")),
                d.join(format!("{dir}/run{r}.txt")),
            )
            .unwrap();
        }
    }
    let v1 = d.join("tree/v1/bench");
    std::os::unix::fs::symlink("..", v1.join("loop")).unwrap();
    std::os::unix::fs::symlink("/", v1.join("root")).unwrap();
    std::os::unix::fs::symlink("nowhere.txt", v1.join("dangling.txt")).unwrap();
    std::os::unix::fs::symlink(rp.join("sockets/run4.txt"), v1.join("run4.txt")).unwrap();
    mkfifo(&v1.join("fifo.txt"));
    let want = [
        "2 symbolic link(s) to directories not followed: ",
        "/tree/v1/bench/loop, ",
        "/tree/v1/bench/root",
        "1 dangling symbolic link(s) skipped: ",
        "1 special file(s) (FIFO, socket, device) skipped: ",
    ];
    let tree = d.join("tree").to_string_lossy().into_owned();
    let side = v1.to_string_lossy().into_owned();
    let new = d.join("tree/v2/bench").to_string_lossy().into_owned();
    let table = d.join("t.parquet").to_string_lossy().into_owned();
    for args in [
        vec![side.as_str(), new.as_str(), "-o", "csv"],
        vec!["batch", tree.as_str(), "--baseline", "v1", "-o", "json"],
        vec!["export", tree.as_str(), "-o", table.as_str()],
    ] {
        let (o, _) = run_measured(diffprofile().args(&args), Duration::from_secs(120))
            .unwrap_or_else(|| panic!("{args:?}: hung"));
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {e}");
        for w in want {
            assert!(e.contains(w), "{args:?}: {w:?} not in {e}");
        }
    }
    // The link to a file is a run: 4 runs of v1 in the batch report.
    let o = diffprofile()
        .args(["batch", &tree, "--baseline", "v1", "-o", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = &v["benchmarks"][0]["report"]["sides"][0]["runs"];
    assert_eq!(runs.as_array().unwrap().len(), 4, "{runs}");
    // And so it is in the exported table.
    let o = diffprofile()
        .args(["batch", &table, "--baseline", "v1", "-o", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs = &v["benchmarks"][0]["report"]["sides"][0]["runs"];
    assert_eq!(runs.as_array().unwrap().len(), 4, "{runs}");
}

/// A perf.data whose mmap records name a path where a FIFO now sits (the
/// libc of a real recording, renamed in place to a FIFO of this test): the
/// FIFO is not opened (it would block for ever), its samples count as
/// `[unknown]` in it (or named from its debug file by build-id).
#[test]
fn a_fifo_named_by_a_perf_data_is_not_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("libc");
    mkfifo(&fifo);
    let libc = b"/usr/lib/x86_64-linux-gnu/libc.so.6";
    let name = fifo.to_str().unwrap().as_bytes();
    assert!(
        name.len() <= libc.len(),
        "temp dir path too long: {}",
        name.len()
    );
    let mut data = crate::cli::gunzip("testdata/raw/sockets-run1.perf.data.gz");
    let mut patched = 0;
    let mut at = 0;
    while let Some(i) = data[at..].windows(libc.len()).position(|w| w == libc) {
        let i = at + i;
        data[i..i + libc.len()].fill(0);
        data[i..i + name.len()].copy_from_slice(name);
        patched += 1;
        at = i + libc.len();
    }
    assert_eq!(patched, 2, "the mmap record and the build-id table");
    let path = tmp.path().join("fifo.perf.data");
    std::fs::write(&path, &data).unwrap();
    let (o, _) = run_measured(
        diffprofile().args([
            "--kallsyms",
            "testdata/raw/kallsyms.gz",
            path.to_str().unwrap(),
            "testdata/perf-report/sym-n/sockets/run1.txt",
            "-o",
            "csv",
        ]),
        Duration::from_secs(120),
    )
    .expect("diffprofile hung on a FIFO");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{e}");
    // Never opened: the binary's names come from elsewhere (its debug file
    // by build-id, when libc6-dbg is installed) or it stays `[unknown]`;
    // either way the run ends, and the comparison with the recording's own
    // perf report finds the same counts on both sides.
    assert!(e.contains("the same recording on both sides?"), "{e}");
}
