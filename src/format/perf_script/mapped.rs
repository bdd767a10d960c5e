//! The block reader of [`super::blocks`] for a plain regular file: the file
//! is mapped into memory a window at a time and cut into exactly the blocks
//! the stream reader would make, as slices of the mapping, so nothing is
//! copied. Reading a file this way costs page faults instead of a copy per
//! byte, which on a warm page cache is most of the time `cat` takes.
//!
//! Memory: each window maps [`WINDOW_BLOCKS`] blocks plus the look-ahead a
//! cut may need; only the pages touched count, and the window is unmapped
//! before the next is mapped, so peak memory does not depend on the file.
//! A file truncated by another process while it is mapped makes the
//! process fail with SIGBUS (as for any program that maps its input).

use super::super::ParseError;
use super::blocks::{Block, Boundary, MAX_RECORD};
use rayon::prelude::*;
use std::fs::File;

/// Blocks per window: enough that every thread has several (the window
/// ends in a barrier), few enough that a window stays small.
const WINDOW_BLOCKS: usize = 8;

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

/// See [`super::blocks::run`]; same blocks, same order, same results.
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
    let io = |e: std::io::Error| ParseError::io(origin, e);
    let len = usize::try_from(file.metadata().map_err(io)?.len())
        .map_err(|_| ParseError::invalid(origin, "file too large to map"))?;
    let window = WINDOW_BLOCKS * block_size + MAX_RECORD + block_size;
    let mut pos = 0;
    while pos < len {
        let base = pos - pos % ALIGN;
        let map_len = (len - base).min(pos - base + window);
        // SAFETY: the mapping is read-only and private to this function; a
        // concurrent truncation of the file is the documented SIGBUS case.
        let map = unsafe {
            memmap2::MmapOptions::new()
                .offset(base as u64)
                .len(map_len)
                .map(file)
        }
        .map_err(io)?;
        let _ = map.advise(memmap2::Advice::Sequential);
        let all = base + map_len == len;
        let data = &map[pos - base..];
        let mut blocks: Vec<(usize, usize, bool)> = Vec::with_capacity(WINDOW_BLOCKS);
        let mut at = 0;
        while blocks.len() < WINDOW_BLOCKS && at < data.len() {
            match cut(&data[at..], all, block_size, boundary) {
                Cut::Block(n) => {
                    blocks.push((at, n, false));
                    at += n;
                }
                Cut::Last => {
                    blocks.push((at, data.len() - at, true));
                    at = data.len();
                }
                Cut::NeedMore => break,
                Cut::TooLong => {
                    return Err(ParseError::invalid(
                        origin,
                        format!(
                            "no line break or record boundary within {} MiB from byte {}: \
                             binary data, or not this format?",
                            MAX_RECORD >> 20,
                            pos + at,
                        ),
                    ))
                }
            }
        }
        let results: Vec<T> = blocks
            .par_iter()
            .map(|&(start, n, last)| {
                work(Block {
                    data: &data[start..start + n],
                    last,
                })
            })
            .collect();
        for result in results {
            if !sink(result) {
                return Ok(());
            }
        }
        pos += at;
    }
    Ok(())
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
}
