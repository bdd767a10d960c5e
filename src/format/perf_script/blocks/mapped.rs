//! The block reader of [`super`] for a plain regular file: the file is
//! read at offsets (`pread`), a block at a time, and cut into exactly the
//! blocks the stream reader would make.
//!
//! Memory: each block is one buffer, handed back for reuse when it is
//! parsed, and only a few blocks per thread are in flight, so peak memory
//! does not depend on the file.
//! The file is read, not mapped: a file truncated by another process while
//! it is mapped would kill the process with SIGBUS; read, it ends early,
//! which is an error that names the file ([`shrank`]).

use super::super::super::ParseError;
use super::super::pipeline::{Bytes, Producer};
use super::{too_long, Boundary, MAX_RECORD};
use std::fs::File;
use std::os::unix::fs::FileExt;

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

/// The error of a file that ended before the size it had when reading began.
fn shrank(origin: &str, len: u64, at: u64) -> ParseError {
    ParseError::invalid(
        origin,
        format!(
            "the file shrank while it was read: {len} bytes when reading began, \
             it ends at byte {at} (truncated or rewritten by another program?); \
             read it again once it is complete"
        ),
    )
}

/// The blocks of a plain file, each read into its own buffer, cut as the
/// stream reader cuts them. The bytes read past a block's cut are read
/// again as the start of the next block (less than a record).
pub struct Blocks<'a> {
    file: &'a File,
    origin: &'a str,
    /// The file's size when reading began: the blocks end there.
    len: u64,
    pos: u64,
    block_size: usize,
    boundary: Boundary,
    /// Buffers of parsed blocks, for reuse.
    spare: Vec<Vec<u8>>,
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
        Ok(Blocks {
            file,
            origin,
            len,
            pos: 0,
            block_size,
            boundary,
            spare: Vec::new(),
        })
    }

    /// Fill `buf` (the bytes from `pos` on) to `want` bytes.
    fn fill(&self, buf: &mut Vec<u8>, want: usize) -> Result<(), ParseError> {
        let have = buf.len();
        buf.resize(want, 0);
        let mut at = have;
        while at < want {
            let offset = self.pos + at as u64;
            match self.file.read_at(&mut buf[at..], offset) {
                Ok(0) => return Err(shrank(self.origin, self.len, offset)),
                Ok(n) => at += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ParseError::io(self.origin, e)),
            }
        }
        Ok(())
    }
}

impl Producer for Blocks<'_> {
    fn next(&mut self) -> Result<Option<(Bytes, bool)>, ParseError> {
        if self.pos >= self.len {
            return Ok(None);
        }
        let left = self.len - self.pos;
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        let mut span = self.block_size;
        loop {
            let want = usize::try_from(left).map_or(span, |l| l.min(span));
            self.fill(&mut buf, want)?;
            let all = want as u64 == left;
            match cut(&buf, all, self.block_size, self.boundary) {
                Cut::Block(n) => {
                    buf.truncate(n);
                    self.pos += n as u64;
                    return Ok(Some((Bytes::Owned(buf), false)));
                }
                Cut::Last => {
                    self.pos = self.len;
                    return Ok(Some((Bytes::Owned(buf), true)));
                }
                Cut::NeedMore => span += self.block_size,
                Cut::TooLong => return Err(too_long(self.origin, self.pos)),
            }
        }
    }

    fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < 4 {
            self.spare.push(buf);
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

    /// A file cut short by another program while it is read is an error
    /// that names it (mapped, it was a SIGBUS that killed the process).
    #[test]
    fn a_file_truncated_while_read_is_an_error() {
        use super::super::super::pipeline::Producer;
        use super::super::after_last_newline;
        let dir = std::env::temp_dir().join(format!("dp-shrink-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.txt");
        std::fs::write(&path, "0123456789abcdef\n".repeat(1 << 16)).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let mut blocks = super::Blocks::new(&file, "t.txt", 1 << 16, after_last_newline).unwrap();
        assert!(blocks.next().unwrap().is_some());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(100_000)
            .unwrap();
        let e = loop {
            match blocks.next() {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the cut file read as if whole"),
                Err(e) => break e.to_string(),
            }
        };
        assert!(
            e.starts_with("t.txt: the file shrank while it was read"),
            "{e}"
        );
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
