//! Bounded-memory parallel reading of line-oriented text, shared by the fast
//! parsers (perf script, folded stacks).
//!
//! Input: any `BufRead`. The stream is cut into blocks of about
//! [`BLOCK_SIZE`] bytes, each ending at a record boundary chosen by the
//! caller's [`Boundary`] (a newline, or the start of the next perf sample),
//! so that every block can be parsed on its own. Output: the caller's
//! per-block results, handed to a sink strictly in input order.
//!
//! Blocks are parsed as tasks on the rayon pool (sized by the caller,
//! `--jobs`) while the calling thread reads the next ones, a few blocks per
//! thread at most (see [`super::pipeline`]): peak memory does not depend on
//! the input size.
//! Block boundaries depend only on the input and [`BLOCK_SIZE`], never on the
//! thread count, so results merged in block order are identical for any
//! `--jobs`.

use super::super::ParseError;
pub use super::pipeline::Block;
use super::pipeline::{self, Bytes, Producer};
use std::io::{BufRead, Read};

mod mapped;

/// Nominal block size. Large enough that per-block overhead (hash maps,
/// task spawn) is noise, small enough that the blocks in flight stay far below the
/// memory budget.
pub const BLOCK_SIZE: usize = 4 << 20;

/// Block size for plain files (read at offsets, [`mapped`]): larger, since
/// fewer blocks mean fewer per-block cache warm-ups (10% faster on flat
/// perf script when the files were mapped).
/// The result does not depend on the block size.
pub const MAPPED_BLOCK_SIZE: usize = 2 * BLOCK_SIZE;

/// A record longer than this is not text we understand (binary data, or a
/// file without line breaks): fail instead of buffering without bound.
pub const MAX_RECORD: usize = 16 << 20;

/// No record boundary within [`MAX_RECORD`] bytes from byte `at`.
pub fn too_long(origin: &str, at: u64) -> ParseError {
    ParseError::invalid(
        origin,
        format!(
            "no line break or record boundary within {} MiB from byte {at}: \
             binary data, or not this format?",
            MAX_RECORD >> 20,
        ),
    )
}

/// Where a block may end: the offset just past the last complete record of
/// `buf` (0 when there is none). `buf` is not at end of input.
pub type Boundary = fn(buf: &[u8]) -> usize;

/// A block may end after any newline.
pub fn after_last_newline(buf: &[u8]) -> usize {
    memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1)
}

/// Where the text comes from.
pub enum Source<'a> {
    /// Any reader (stdin, decompressed streams, archive members): read into
    /// reused buffers, a few blocks ahead.
    Stream(&'a mut dyn BufRead),
    /// A plain regular file: read at offsets, and cut as a stream of it
    /// would be (for the same block size), so that a file truncated while it
    /// is read is an error (see [`mapped`]).
    File(&'a std::fs::File),
}

/// Read `source` block by block, run `work` on every block in parallel and
/// feed the results in order to `sink`, which returns `false` to stop early
/// (on an error). `block_size` is a parameter so that tests can force tiny
/// blocks. Both sources give the same blocks.
pub fn run<T, W, S>(
    source: Source<'_>,
    origin: &str,
    block_size: usize,
    boundary: Boundary,
    work: W,
    sink: S,
) -> Result<(), ParseError>
where
    T: Send,
    W: Fn(Block<'_>) -> T + Sync,
    S: FnMut(T) -> bool,
{
    let block_size = block_size.max(1);
    match source {
        Source::Stream(input) => {
            let mut reader = Reader {
                input,
                origin,
                carry: Vec::new(),
                spare: Vec::new(),
                eof: false,
                block_size,
                boundary,
                delivered: 0,
            };
            pipeline::run(&mut reader, origin, work, sink)
        }
        Source::File(file) => {
            let mut blocks = mapped::Blocks::new(file, origin, block_size, boundary)?;
            pipeline::run(&mut blocks, origin, work, sink)
        }
    }
}

impl Producer for Reader<'_, '_> {
    fn next(&mut self) -> Result<Option<(Bytes, bool)>, ParseError> {
        Ok(self.block()?.map(|b| (Bytes::Owned(b.data), b.last)))
    }

    fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < 4 {
            self.spare.push(buf);
        }
    }
}

struct OwnedBlock {
    data: Vec<u8>,
    last: bool,
}

struct Reader<'r, 'o> {
    input: &'r mut dyn BufRead,
    origin: &'o str,
    /// Bytes read past the last boundary, the start of the next block.
    carry: Vec<u8>,
    /// Buffers of processed blocks, reused to avoid page faults.
    spare: Vec<Vec<u8>>,
    eof: bool,
    block_size: usize,
    boundary: Boundary,
    /// Bytes handed out in blocks so far.
    delivered: u64,
}

impl Reader<'_, '_> {
    /// Fill `buf` with up to `want` more bytes; false at end of input.
    fn fill(&mut self, buf: &mut Vec<u8>, want: usize) -> Result<bool, ParseError> {
        buf.reserve(want);
        let target = buf.len() + want;
        while buf.len() < target {
            let got = (&mut *self.input)
                .take((target - buf.len()) as u64)
                .read_to_end(buf);
            match got {
                Ok(0) => return Ok(false),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ParseError::io(self.origin, e)),
            }
        }
        Ok(true)
    }

    fn block(&mut self) -> Result<Option<OwnedBlock>, ParseError> {
        if self.eof && self.carry.is_empty() {
            return Ok(None);
        }
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(&self.carry);
        self.carry.clear();
        loop {
            if !self.eof {
                // A full block without a boundary (a long record): read
                // another block's worth, never byte by byte.
                let want = match self.block_size.saturating_sub(buf.len()) {
                    0 => self.block_size,
                    w => w,
                };
                if !self.fill(&mut buf, want)? {
                    self.eof = true;
                }
            }
            if self.eof {
                if buf.is_empty() {
                    return Ok(None);
                }
                self.delivered += buf.len() as u64;
                return Ok(Some(OwnedBlock {
                    data: buf,
                    last: true,
                }));
            }
            let cut = (self.boundary)(&buf);
            if cut > 0 {
                self.carry.extend_from_slice(&buf[cut..]);
                buf.truncate(cut);
                self.delivered += buf.len() as u64;
                return Ok(Some(OwnedBlock {
                    data: buf,
                    last: false,
                }));
            }
            if buf.len() >= MAX_RECORD {
                return Err(too_long(self.origin, self.delivered));
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Every block of `source` as (last, bytes).
    pub(in crate::format::perf_script) fn blocks_of(
        source: Source<'_>,
        size: usize,
    ) -> Result<Vec<(bool, Vec<u8>)>, ParseError> {
        let mut out = Vec::new();
        run(
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
    }

    fn collect(mut input: &[u8], size: usize) -> Vec<(bool, Vec<u8>)> {
        blocks_of(Source::Stream(&mut input), size).unwrap()
    }

    #[test]
    fn blocks_cover_the_input_in_order() {
        let text = b"a\nbb\nccc\ndddd\ne";
        for size in 1..20 {
            let blocks = collect(text, size);
            let joined: Vec<u8> = blocks.iter().flat_map(|b| b.1.clone()).collect();
            assert_eq!(joined, text, "size {size}");
            assert!(blocks.last().unwrap().0);
            for b in &blocks[..blocks.len() - 1] {
                assert!(b.1.ends_with(b"\n") && !b.0);
            }
        }
        assert!(collect(b"", 4).is_empty());
    }

    #[test]
    fn overlong_record_is_an_error() {
        let big = vec![b'x'; MAX_RECORD + 10];
        let mut r = &big[..];
        let err = run(
            Source::Stream(&mut r),
            "t",
            1 << 20,
            after_last_newline,
            |_| (),
            |_| true,
        );
        assert!(err.is_err());
    }
}
