//! The parallel, in-order block pipeline behind both block readers (a stream
//! read into buffers, a plain file read at offsets block by block).
//!
//! This thread produces the blocks one after another and spawns a rayon task
//! per block, with at most a few blocks per thread in flight (which bounds
//! memory); results are handed to the sink in input order as they arrive, so
//! no thread waits for a whole batch to finish. An error producing block `k`
//! is reported in its turn, after the results of blocks `0..k` (which may
//! hold an earlier error of their own).

use super::super::ParseError;
use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::time::Duration;

/// One block of input and where it sits in the stream.
pub struct Block<'a> {
    pub data: &'a [u8],
    /// True for the final block (the only one that may end mid-line).
    pub last: bool,
}

/// A block's bytes, moved to the task that parses it.
pub enum Bytes {
    /// A buffer read from a stream or a file (handed back for reuse
    /// afterwards).
    Owned(Vec<u8>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
        }
    }
}

/// Where blocks come from, in input order.
pub trait Producer {
    /// The next block and whether it is the last; `None` at the end.
    fn next(&mut self) -> Result<Option<(Bytes, bool)>, ParseError>;
    /// A buffer whose block was parsed, for reuse.
    fn recycle(&mut self, _buf: Vec<u8>) {}
}

/// Blocks in flight at most: a few per thread, so that no thread idles
/// while the next block is produced.
fn in_flight() -> usize {
    rayon::current_num_threads().clamp(1, 6) + 2
}

/// Run `work` on every block of `producer` in parallel and feed the results
/// in order to `sink`, which returns `false` to stop early.
pub fn run<T, W, S>(
    producer: &mut dyn Producer,
    origin: &str,
    work: W,
    mut sink: S,
) -> Result<(), ParseError>
where
    T: Send,
    W: Fn(Block<'_>) -> T + Sync,
    S: FnMut(T) -> bool,
{
    type Done<T> = (usize, std::thread::Result<T>, Bytes);
    let limit = in_flight();
    let (tx, rx) = mpsc::channel::<Done<T>>();
    let work = &work;
    rayon::in_place_scope(|scope| {
        let (mut spawned, mut next) = (0usize, 0usize);
        // Results that arrived before their turn, and the error that ends
        // the input (reported in its turn).
        let mut early: BTreeMap<usize, T> = BTreeMap::new();
        let mut failed: Option<ParseError> = None;
        let (mut stopped, mut exhausted) = (false, false);
        loop {
            while !stopped && !exhausted && failed.is_none() && spawned - next < limit {
                match producer.next() {
                    Ok(Some((bytes, last))) => {
                        let (tx, i) = (tx.clone(), spawned);
                        scope.spawn(move |_| {
                            let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
                                work(Block {
                                    data: bytes.as_slice(),
                                    last,
                                })
                            }));
                            let _ = tx.send((i, result, bytes));
                        });
                        spawned += 1;
                    }
                    Ok(None) => exhausted = true,
                    Err(e) => failed = Some(e),
                }
            }
            if next == spawned {
                return match failed {
                    Some(e) if !stopped => Err(e),
                    _ => Ok(()),
                };
            }
            let (i, result, bytes) = next_result(&rx).ok_or_else(|| {
                ParseError::invalid(origin, "a parsing task ended without a result")
            })?;
            let Bytes::Owned(buf) = bytes;
            producer.recycle(buf);
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
