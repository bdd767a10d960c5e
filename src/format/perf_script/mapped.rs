//! The block reader of [`super::blocks`] for a plain regular file: the file
//! is mapped into memory a block at a time and cut into exactly the blocks
//! the stream reader would make, as slices of the mapping, so nothing is
//! copied. Reading a file this way costs page faults instead of a copy per
//! byte, which on a warm page cache is most of the time `cat` takes.
//!
//! Memory: each block has its own mapping, unmapped when it is parsed, and
//! only a few blocks per thread are in flight, so peak memory does not
//! depend on the file.
//! A file truncated by another process while it is mapped makes the
//! process fail with SIGBUS (as for any program that maps its input).

use super::super::ParseError;
use super::blocks::{too_long, Block, Boundary, MAX_RECORD};
use std::collections::BTreeMap;
use std::fs::File;
use std::panic::AssertUnwindSafe;
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Mapping offsets are rounded down to this (a multiple of every page size).
const ALIGN: usize = 1 << 16;

/// Where the block starting at `rest[0]` ends, exactly as the stream reader
/// cuts it: it fills its buffer to `k × block_size` bytes (k = 1, 2, …) and
/// cuts at `boundary` of what it holds, unless the input ends first.
#[derive(Debug, PartialEq)]
enum Cut {
    /// A block of this many bytes, not the last.
    Block(usize),
    /// The final block: all of `rest`.
    Last,
    /// `rest` is not all of the input and too short to decide.
    NeedMore,
    /// No boundary within [`MAX_RECORD`].
    TooLong,
}

fn cut(rest: &[u8], rest_is_all: bool, block_size: usize, boundary: Boundary) -> Cut {
    let mut want = block_size;
    loop {
        if rest.len() < want {
            return if rest_is_all {
                Cut::Last
            } else {
                Cut::NeedMore
            };
        }
        match boundary(&rest[..want]) {
            0 if want >= MAX_RECORD => return Cut::TooLong,
            0 => want += block_size,
            c => return Cut::Block(c),
        }
    }
}

/// One block: its own mapping (shared with the task that parses it) and
/// where the block lies in it.
struct Mapped {
    map: Arc<memmap2::Mmap>,
    start: usize,
    len: usize,
    last: bool,
}

/// Map and cut the block that starts at byte `pos` of the file (`len`
/// bytes long). The mapping grows a block at a time until the cut is
/// decided, so it holds the block and at most one block more.
fn map_block(
    file: &File,
    len: usize,
    pos: usize,
    block_size: usize,
    boundary: Boundary,
    origin: &str,
) -> Result<Mapped, ParseError> {
    let base = pos - pos % ALIGN;
    let mut span = block_size;
    loop {
        let map_len = (len - base).min(pos - base + span);
        // SAFETY: a read-only private mapping; a concurrent truncation of
        // the file is the documented SIGBUS case.
        let map = unsafe {
            memmap2::MmapOptions::new()
                .offset(base as u64)
                .len(map_len)
                .map(file)
        }
        .map_err(|e| ParseError::io(origin, e))?;
        let _ = map.advise(memmap2::Advice::Sequential);
        let all = base + map_len == len;
        let start = pos - base;
        let (n, last) = match cut(&map[start..], all, block_size, boundary) {
            Cut::Block(n) => (n, false),
            Cut::Last => (map_len - start, true),
            Cut::NeedMore => {
                span += block_size;
                continue;
            }
            Cut::TooLong => return Err(too_long(origin, pos as u64)),
        };
        return Ok(Mapped {
            map: Arc::new(map),
            start,
            len: n,
            last,
        });
    }
}

/// See [`super::blocks::run`]; same blocks, same order, same results.
/// Blocks are mapped one by one on this thread and parsed as tasks on the
/// rayon pool, at most a few per thread at a time (which bounds memory);
/// results are handed to `sink` in order as they arrive, so no thread waits
/// for a whole batch to finish.
pub fn run<T, W, S>(
    file: &File,
    origin: &str,
    block_size: usize,
    boundary: Boundary,
    work: W,
    mut sink: S,
) -> Result<(), ParseError>
where
    T: Send,
    W: Fn(Block<'_>) -> T + Sync,
    S: FnMut(T) -> bool,
{
    let len = usize::try_from(
        file.metadata()
            .map_err(|e| ParseError::io(origin, e))?
            .len(),
    )
    .map_err(|_| ParseError::invalid(origin, "file too large to map"))?;
    let in_flight = 2 * rayon::current_num_threads().max(1) + 2;
    let (tx, rx) = mpsc::channel::<(usize, std::thread::Result<T>)>();
    let work = &work;
    rayon::in_place_scope(|scope| {
        let (mut pos, mut spawned, mut next) = (0usize, 0usize, 0usize);
        // Results that arrived before their turn, and the error that ends
        // the input (reported in its turn, after the blocks before it).
        let mut early: BTreeMap<usize, T> = BTreeMap::new();
        let mut failed: Option<(usize, ParseError)> = None;
        let mut stopped = false;
        loop {
            while !stopped && failed.is_none() && pos < len && spawned - next < in_flight {
                match map_block(file, len, pos, block_size, boundary, origin) {
                    Ok(m) => {
                        pos += m.len;
                        let (tx, i) = (tx.clone(), spawned);
                        scope.spawn(move |_| {
                            let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
                                work(Block {
                                    data: &m.map[m.start..m.start + m.len],
                                    last: m.last,
                                })
                            }));
                            let _ = tx.send((i, result));
                        });
                        spawned += 1;
                    }
                    Err(e) => failed = Some((spawned, e)),
                }
            }
            if next == spawned {
                return match failed {
                    Some((_, e)) if !stopped => Err(e),
                    _ => Ok(()),
                };
            }
            let (i, result) = next_result(&rx).ok_or_else(|| {
                ParseError::invalid(origin, "a parsing task ended without a result")
            })?;
            let result = result.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            early.insert(i, result);
            while let Some(result) = early.remove(&next) {
                next += 1;
                if !stopped && !sink(result) {
                    stopped = true;
                }
            }
        }
    })
}

/// The next result from the block tasks. On a thread of the rayon pool
/// (files are parsed in parallel, so this is one), waiting must not block
/// the thread: it runs pending rayon work meanwhile, or the pool could end
/// with every thread waiting for tasks that none is free to run.
fn next_result<T>(rx: &mpsc::Receiver<T>) -> Option<T> {
    loop {
        match rx.try_recv() {
            Ok(r) => return Some(r),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) => {}
        }
        match rayon::yield_now() {
            None => return rx.recv().ok(),
            Some(rayon::Yield::Executed) => {}
            Some(rayon::Yield::Idle) => match rx.recv_timeout(Duration::from_micros(200)) {
                Ok(r) => return Some(r),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::blocks::{self, after_last_newline, Source};
    use std::io::Write;

    /// The mapped reader cuts a file into the very blocks of the stream
    /// reader, for every block size.
    #[test]
    fn same_blocks_as_the_stream_reader() {
        let dir = std::env::temp_dir().join(format!("dp-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.txt");
        let mut text = Vec::new();
        for i in 0..3000 {
            writeln!(text, "{}", "x".repeat(i % 97)).unwrap();
        }
        text.extend_from_slice(b"no final newline");
        std::fs::write(&path, &text).unwrap();
        let collect = |source: Source<'_>, size: usize| {
            let mut out = Vec::new();
            blocks::run(
                source,
                "t",
                size,
                after_last_newline,
                |b| (b.last, b.data.to_vec()),
                |x| {
                    out.push(x);
                    true
                },
            )
            .map(|()| out)
        };
        for size in [1, 7, 64, 100, 4096, 70_000, 1 << 20] {
            let file = std::fs::File::open(&path).unwrap();
            let mapped = collect(Source::File(&file), size).unwrap();
            let streamed = collect(Source::Stream(&mut &text[..]), size).unwrap();
            assert_eq!(mapped, streamed, "block size {size}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Errors are those of the stream reader: the earliest one wins, and a
    /// record longer than MAX_RECORD is refused.
    #[test]
    fn same_errors_as_the_stream_reader() {
        use super::super::blocks::MAX_RECORD;
        use crate::format::{perf_script, ParseOptions};
        use std::fs::File;
        let dir = std::env::temp_dir().join(format!("dp-mapped-err-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sample = "perf  6648   249.307147:     500250 cpu-clock:  ffffffff821e5ae3 xas_load+0x53 ([kernel.kallsyms])\n";
        let mut text = sample.repeat(50_000);
        text.push_str("garbage\n");
        text.push_str(&sample.repeat(50_000));
        text.push_str(&"x".repeat(MAX_RECORD + 10));
        let path = dir.join("bad.txt");
        std::fs::write(&path, &text).unwrap();
        let opts = ParseOptions::default();
        let mapped = perf_script::parse_file(&File::open(&path).unwrap(), "bad.txt", &opts);
        let streamed = perf_script::parse(&mut text.as_bytes(), "bad.txt", &opts);
        let (m, s) = (
            mapped.unwrap_err().to_string(),
            streamed.unwrap_err().to_string(),
        );
        assert_eq!(m, s);
        assert!(m.starts_with("bad.txt:50001: expected"), "{m}");
        let long = dir.join("long.txt");
        std::fs::write(&long, &text[text.len() - MAX_RECORD - 10..]).unwrap();
        let e = perf_script::parse_file(&File::open(&long).unwrap(), "long.txt", &opts);
        assert!(e
            .unwrap_err()
            .to_string()
            .contains("no line break or record boundary"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
