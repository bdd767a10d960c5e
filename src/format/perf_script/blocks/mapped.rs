//! The block reader of [`super`] for a plain regular file: the file
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

use super::super::super::ParseError;
use super::super::pipeline::{Bytes, Producer};
use super::{too_long, Boundary, MAX_RECORD};
use std::fs::File;
use std::sync::Arc;

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

/// The blocks of a plain file, each with its own mapping (shared with the
/// task that parses it), cut as the stream reader cuts them. The mapping
/// grows a block at a time until the cut is decided, so it holds the block
/// and at most one block more.
pub struct Blocks<'a> {
    file: &'a File,
    origin: &'a str,
    len: usize,
    pos: usize,
    block_size: usize,
    boundary: Boundary,
}

impl<'a> Blocks<'a> {
    pub fn new(
        file: &'a File,
        origin: &'a str,
        block_size: usize,
        boundary: Boundary,
    ) -> Result<Self, ParseError> {
        let len = file
            .metadata()
            .map_err(|e| ParseError::io(origin, e))?
            .len();
        let len = usize::try_from(len)
            .map_err(|_| ParseError::invalid(origin, "file too large to map"))?;
        Ok(Blocks {
            file,
            origin,
            len,
            pos: 0,
            block_size,
            boundary,
        })
    }
}

impl Producer for Blocks<'_> {
    fn next(&mut self) -> Result<Option<(Bytes, bool)>, ParseError> {
        if self.pos >= self.len {
            return Ok(None);
        }
        let (pos, len) = (self.pos, self.len);
        let base = pos - pos % ALIGN;
        let mut span = self.block_size;
        loop {
            let map_len = (len - base).min(pos - base + span);
            // SAFETY: a read-only private mapping; a concurrent truncation
            // of the file is the documented SIGBUS case.
            let map = unsafe {
                memmap2::MmapOptions::new()
                    .offset(base as u64)
                    .len(map_len)
                    .map(self.file)
            }
            .map_err(|e| ParseError::io(self.origin, e))?;
            let _ = map.advise(memmap2::Advice::Sequential);
            let all = base + map_len == len;
            let start = pos - base;
            let (n, last) = match cut(&map[start..], all, self.block_size, self.boundary) {
                Cut::Block(n) => (n, false),
                Cut::Last => (map_len - start, true),
                Cut::NeedMore => {
                    span += self.block_size;
                    continue;
                }
                Cut::TooLong => return Err(too_long(self.origin, pos as u64)),
            };
            self.pos += n;
            let map = Arc::new(map);
            return Ok(Some((Bytes::Mapped { map, start, len: n }, last)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::blocks_of;
    use super::super::Source;
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
        for size in [1, 7, 64, 100, 4096, 70_000, 1 << 20] {
            let file = std::fs::File::open(&path).unwrap();
            let mapped = blocks_of(Source::File(&file), size).unwrap();
            let streamed = blocks_of(Source::Stream(&mut &text[..]), size).unwrap();
            assert_eq!(mapped, streamed, "block size {size}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Errors are those of the stream reader: the earliest one wins, and a
    /// record longer than MAX_RECORD is refused.
    #[test]
    fn same_errors_as_the_stream_reader() {
        use super::super::MAX_RECORD;
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
