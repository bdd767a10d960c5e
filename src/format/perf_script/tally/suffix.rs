//! The per-block cache of sample header text after the timestamp's colon:
//! `[PERIOD] EVENT: [FRAME]` to the end of the line, with what it parses
//! to. Most samples repeat a period, event and address seen before, so one
//! lookup replaces the header's forward half, the event lookup and the
//! frame's; only the fields before the colon (different on every line) are
//! read. The cache is used only for what the line-by-line path would give
//! (`tests::caches_do_not_change_real_profiles`).

use super::{line, Counter};

/// A header's text after the timestamp's colon (`[PERIOD] EVENT: [FRAME]`,
/// to the end of the line) and what it parses to.
pub(super) struct Suffix {
    text: Box<[u8]>,
    period: Option<u64>,
    ev: usize,
    /// The frame's symbol id (`None` without a frame, or when the event is
    /// not counted).
    frame: Option<u32>,
}

/// Bytes after the colon that key the suffix cache (the period, the event
/// and the start of the address), or the whole suffix when it is shorter.
const SUFFIX_KEY: usize = 40;

/// What is hashed of a suffix: bytes 24 to 40 (where the address is, after
/// the period and the event) of a suffix of [`SUFFIX_KEY`] bytes or more,
/// else the whole suffix.
fn suffix_key(text: &[u8]) -> &[u8] {
    if text.len() >= SUFFIX_KEY {
        &text[SUFFIX_KEY - 16..SUFFIX_KEY]
    } else {
        text
    }
}

/// Entries per block at most.
const SUFFIX_MAX: usize = 1 << 16;

fn suffix_hash(key: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(key);
    h.finish()
}

impl<'d> Counter<'d, '_> {
    pub(super) fn suffix_cache_pays(&self) -> bool {
        self.cache.suffix_tries < 4096 || 2 * self.cache.suffix_hits >= self.cache.suffix_tries
    }

    pub(super) fn cache_suffix(
        &mut self,
        text: &[u8],
        period: Option<u64>,
        ev: usize,
        frame: Option<u32>,
    ) {
        if self.cache.suffixes.len() >= SUFFIX_MAX || !self.suffix_cache_pays() {
            return;
        }
        let hash = suffix_hash(suffix_key(text));
        if self
            .cache
            .suffixes
            .find(hash, |e| *e.text == *text)
            .is_none()
        {
            let entry = Suffix {
                text: text.into(),
                period,
                ev,
                frame,
            };
            self.cache
                .suffixes
                .insert_unique(hash, entry, |e| suffix_hash(suffix_key(&e.text)));
        }
    }

    /// A sample header whose text after the timestamp's colon is cached:
    /// only the fields before the colon are read (they are different on
    /// every line). `rest` runs from the line's start to the block's end;
    /// returns the line's length (without its line break), or `None` for
    /// the line-by-line path (which then gives the same result).
    pub(super) fn cached_header(&mut self, rest: &'d [u8]) -> Option<usize> {
        if self.cache.suffixes.is_empty() || !self.suffix_cache_pays() {
            return None;
        }
        let c = memchr::memchr2(b':', b'\n', &rest[..rest.len().min(4096)])?;
        if rest[c] != b':' {
            return None;
        }
        let after = &rest[c + 1..];
        let matches =
            |e: &Suffix| after.starts_with(&e.text) && after.get(e.text.len()) == Some(&b'\n');
        self.cache.suffix_tries += 1;
        // The key is SUFFIX_KEY bytes (the usual header with a frame); when
        // that misses, the suffix may be shorter (a header before its
        // callchain): then it is the whole line's rest.
        let head = &after[..after.len().min(SUFFIX_KEY)];
        let mut found = None;
        if head.len() == SUFFIX_KEY {
            found = self
                .cache
                .suffixes
                .find(suffix_hash(suffix_key(head)), matches);
        }
        if found.is_none() {
            let end = memchr::memchr(b'\n', head)?;
            found = self.cache.suffixes.find(suffix_hash(&head[..end]), matches);
        }
        let e = found?;
        let (period, ev, frame, len) = (e.period, e.ev, e.frame, c + 1 + e.text.len());
        let (p, s) = line::before_colon(rest, c)?;
        let comm = &rest[..p];
        if line::first_non_blank(comm) == Some(b'#') {
            return None;
        }
        self.cache.suffix_hits += 1;
        self.end_sample();
        self.start_sample(comm, Some(&rest[s..c]), period, ev, frame);
        Some(len)
    }
}
