//! Every symbol and dso name, stored once: a [`Name`] is a `u32` id into
//! one table of names for the whole process (a comparison, or a batch of
//! thousands, whose runs share most of their names). Parsers intern a name
//! when they first meet it; profiles, aggregation, identity folding, diff
//! rows and renderers pass ids, and the text is looked up only when it is
//! compared, hashed into output or printed.
//!
//! Ids are handed out in the order names are first met, which depends on
//! how threads interleave, so nothing may ever be ordered by id: [`Name`]'s
//! `Ord` compares the text (and equal ids are equal text, so `Eq` and
//! `Hash` use the id). The table only grows; its text is never freed, as
//! the names of a run live as long as its report.
//!
//! Reading a name takes no lock: ids index chunks of slots that double in
//! size and are never moved, each slot written once before its id is
//! published. Interning takes the lock of one of [`SHARDS`] hash shards.

pub mod version;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use std::cell::Cell;
use std::fmt;
use std::hash::BuildHasher;
use std::num::NonZeroU32;
use std::ops::Deref;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

/// An interned name: 4 bytes, `Copy`, ordered by its text.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Name(NonZeroU32);

/// Interning locks one shard of this many (by the name's hash).
const SHARDS: usize = 16;
/// The first chunk holds this many slots; chunk k holds `FIRST << k`.
const FIRST_BITS: u32 = 12;
const CHUNKS: usize = 33 - FIRST_BITS as usize;
/// Text is copied into blocks of this size (longer names get their own).
const BLOCK: usize = 1 << 20;

struct Shard {
    /// Every name of the shard with 32 bits of its text's hash (rehashing
    /// never reads the text): 8 bytes a name.
    index: HashTable<(u32, Name)>,
    /// The free part of this shard's current text block.
    free: &'static mut [u8],
}

/// A shard's lock and table on cache lines of their own: threads that
/// intern into neighbouring shards do not take each other's lines.
#[repr(align(128))]
struct Padded(Mutex<Shard>);

struct Table {
    shards: [Padded; SHARDS],
    /// Ids handed out so far (the next id is `next + 1`).
    next: AtomicU32,
    /// Slot `i` of chunk `k` holds the text of id `(FIRST << k) - FIRST + i + 1`:
    /// a pointer to its length (4 bytes, native order) followed by its bytes.
    chunks: [AtomicPtr<Slot>; CHUNKS],
}

type Slot = AtomicPtr<u8>;

thread_local! {
    /// The id this thread interned or found last (0: none yet).
    static LAST: Cell<u32> = const { Cell::new(0) };
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table {
        shards: std::array::from_fn(|_| {
            Padded(Mutex::new(Shard {
                index: HashTable::new(),
                free: &mut [],
            }))
        }),
        next: AtomicU32::new(0),
        chunks: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
    })
}

/// A table hash from the 32 bits kept: both ends of it are used (the
/// bucket from the low bits, the control byte from the top 7).
fn spread(h: u32) -> u64 {
    u64::from(h).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Chunk and slot of id index `i` (the id minus one).
fn place(i: u32) -> (usize, usize) {
    let biased = i as u64 + (1u64 << FIRST_BITS);
    let k = (63 - biased.leading_zeros()) as usize - FIRST_BITS as usize;
    (k, (biased - (1u64 << (k as u32 + FIRST_BITS))) as usize)
}

impl Table {
    /// The slots of chunk `k`, allocated by whoever needs them first.
    fn chunk(&self, k: usize) -> &'static [Slot] {
        let len = 1usize << (k as u32 + FIRST_BITS);
        let mut p = self.chunks[k].load(Ordering::Acquire);
        if p.is_null() {
            // Zeroed memory is null slots, and the system hands it out
            // untouched: the pages of a large chunk count only once used.
            let layout = std::alloc::Layout::array::<Slot>(len).expect("a chunk fits in memory");
            // SAFETY: the layout has a nonzero size (len >= FIRST).
            let fresh = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Slot>();
            if fresh.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            p = match self.chunks[k].compare_exchange(
                std::ptr::null_mut(),
                fresh,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => fresh,
                Err(theirs) => {
                    // Another thread was first: ours was never shared.
                    // SAFETY: allocated above with this layout, not published.
                    unsafe { std::alloc::dealloc(fresh.cast(), layout) };
                    theirs
                }
            };
        }
        // SAFETY: a chunk is `len` slots (all-zero bits: a null AtomicPtr),
        // allocated once and never freed or moved.
        unsafe { std::slice::from_raw_parts(p, len) }
    }

    /// The text of id index `i` if that id is published (its slot written),
    /// without a lock; `None` for an id not (yet) handed out.
    fn published(&self, i: u32) -> Option<&'static str> {
        if i >= u32::MAX - 1 {
            return None;
        }
        let (k, slot) = place(i);
        let chunk = self.chunks[k].load(Ordering::Acquire);
        if chunk.is_null() {
            return None;
        }
        // SAFETY: a non-null chunk is `FIRST << k` slots (`slot` is within
        // it, by `place`), allocated null and never freed or moved; a
        // non-null slot points at a length and that many bytes of a `str`,
        // written before the slot (Release, read with Acquire) and never
        // again.
        unsafe {
            let at = (*chunk.add(slot)).load(Ordering::Acquire);
            if at.is_null() {
                return None;
            }
            let n = at.cast::<u32>().read_unaligned() as usize;
            Some(std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                at.add(4),
                n,
            )))
        }
    }

    fn intern(&self, text: &str) -> Name {
        // Runs of one kernel list their symbols in the same order: the
        // name after the one this thread met last is often the id after
        // it, found without hashing or locking (a text has one id, so an
        // id whose text is `text` is its id).
        let guess = LAST.get();
        if self.published(guess).is_some_and(|t| t == text) {
            LAST.set(guess + 1);
            return Name(NonZeroU32::MIN.saturating_add(guess));
        }
        let name = self.intern_locked(text);
        LAST.set(name.0.get());
        name
    }

    fn intern_locked(&self, text: &str) -> Name {
        // Bits the shard's map uses neither for its buckets (the low ones)
        // nor for its control bytes (the top 7).
        let hash = rustc_hash::FxBuildHasher.hash_one(text);
        let shard = &self.shards[(hash >> 32) as usize % SHARDS];
        let h = hash as u32;
        let mut shard = shard.0.lock().unwrap_or_else(|e| e.into_inner());
        let Shard { index, free } = &mut *shard;
        // One probe: the name, or where it goes.
        let entry = index.entry(
            spread(h),
            |&(eh, n)| eh == h && self.text(n) == text,
            |&(eh, _)| spread(eh),
        );
        let vacant = match entry {
            Entry::Occupied(found) => return found.get().1,
            Entry::Vacant(vacant) => vacant,
        };
        let at = store(free, text);
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        assert!(i < u32::MAX - 1, "more than 4 billion distinct names");
        let (k, slot) = place(i);
        self.chunk(k)[slot].store(at, Ordering::Release);
        let name = Name(NonZeroU32::MIN.saturating_add(i));
        vacant.insert((h, name));
        name
    }

    fn text(&self, name: Name) -> &'static str {
        let (k, slot) = place(name.0.get() - 1);
        let chunk = self.chunks[k].load(Ordering::Acquire);
        // SAFETY: a Name exists only after its slot was written (Release,
        // before the id was handed out); chunks and text blocks are never
        // freed or moved; a slot points at a length and that many bytes of
        // a `str`, written once.
        unsafe {
            let at = (*chunk.add(slot)).load(Ordering::Acquire);
            let n = at.cast::<u32>().read_unaligned() as usize;
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(at.add(4), n))
        }
    }
}

/// `text` copied for good, after its length, into a shard's text blocks
/// (`free` is the free part of its current one): where the length is.
fn store(free: &mut &'static mut [u8], text: &str) -> *mut u8 {
    let n = text.len() + 4;
    let len = u32::try_from(text.len()).expect("a name of 4 GiB");
    let block = if n > BLOCK / 4 {
        Box::leak(vec![0u8; n].into_boxed_slice())
    } else {
        if n > free.len() {
            *free = Box::leak(vec![0u8; BLOCK].into_boxed_slice());
        }
        let (block, rest) = std::mem::take(free).split_at_mut(n);
        *free = rest;
        block
    };
    block[..4].copy_from_slice(&len.to_ne_bytes());
    block[4..].copy_from_slice(text.as_bytes());
    block.as_mut_ptr()
}

/// How many names the process has interned: every id is at most this.
pub fn count() -> usize {
    table().next.load(Ordering::Relaxed) as usize
}

impl Name {
    /// The id of `text`, interning it when it is new.
    pub fn new(text: &str) -> Name {
        table().intern(text)
    }

    /// The text, valid for the rest of the process.
    pub fn as_str(self) -> &'static str {
        table().text(self)
    }

    /// The text's first 16 bytes as a number (zero-padded), ordered as the
    /// text is: a sort key that settles most comparisons without reading
    /// the text (equal prefixes must still compare the text).
    pub fn prefix(self) -> u128 {
        let text = self.as_str().as_bytes();
        let mut head = [0u8; 16];
        let n = text.len().min(16);
        head[..n].copy_from_slice(&text[..n]);
        u128::from_be_bytes(head)
    }

    /// The id, for dense tables indexed by name (never for ordering).
    pub fn id(self) -> u32 {
        self.0.get()
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self.0 == other.0 {
            std::cmp::Ordering::Equal
        } else {
            self.as_str().cmp(other.as_str())
        }
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Name {
        Name::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name::new(&s)
    }
}

impl From<std::borrow::Cow<'_, str>> for Name {
    fn from(s: std::borrow::Cow<'_, str>) -> Name {
        Name::new(&s)
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The input names folded, aliased or grouped into a row, in order; empty
/// (and no allocation) when the row is exactly one input name. Reads as a
/// slice.
#[derive(Clone, Default, PartialEq)]
// One pointer in every row, rather than a slice's two words or a vector's
// three: the names are rarely there.
#[allow(clippy::box_collection)]
pub struct Members(Option<Box<Vec<Name>>>);

impl From<Vec<Name>> for Members {
    fn from(v: Vec<Name>) -> Self {
        Members((!v.is_empty()).then(|| Box::new(v)))
    }
}

impl Deref for Members {
    type Target = [Name];
    fn deref(&self) -> &[Name] {
        self.0.as_deref().map_or(&[], |v| v)
    }
}

impl<'a> IntoIterator for &'a Members {
    type Item = &'a Name;
    type IntoIter = std::slice::Iter<'a, Name>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for Members {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_cover_every_id_once() {
        assert_eq!(place(0), (0, 0));
        assert_eq!(place((1 << FIRST_BITS) - 1), (0, (1 << FIRST_BITS) - 1));
        assert_eq!(place(1 << FIRST_BITS), (1, 0));
        assert_eq!(place(3 << FIRST_BITS), (2, 0));
        let last = place(u32::MAX - 1);
        assert!(last.0 < CHUNKS, "{last:?}");
    }

    #[test]
    fn one_id_per_text_ordered_by_text() {
        let a = Name::new("names-test-b");
        let b = Name::new(&String::from("names-test-b"));
        let c = Name::new("names-test-a");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(c < a);
        assert_eq!(a.as_str(), "names-test-b");
        assert_eq!(Name::new(""), Name::new(""));
        assert_eq!(Name::new("").as_str(), "");
        let long = "x".repeat(BLOCK);
        assert_eq!(Name::new(&long).len(), BLOCK);
    }

    #[test]
    fn threads_agree_on_ids() {
        let texts: Vec<String> = (0..20_000).map(|i| format!("names-threads-{i}")).collect();
        let ids: Vec<Vec<Name>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| s.spawn(|| texts.iter().map(|t| Name::new(t)).collect::<Vec<_>>()))
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for v in &ids[1..] {
            assert_eq!(v, &ids[0]);
        }
        for (t, n) in texts.iter().zip(&ids[0]) {
            assert_eq!(n.as_str(), t);
        }
    }

    /// Texts met in the order of an earlier thread's (the guessed next
    /// id), out of it, and new among them, get the one id of their text.
    #[test]
    fn next_id_guesses_are_checked() {
        let texts: Vec<String> = (0..5_000).map(|i| format!("names-guess-{i}")).collect();
        let first: Vec<Name> = std::thread::scope(|s| {
            s.spawn(|| texts.iter().map(|t| Name::new(t)).collect())
                .join()
                .unwrap()
        });
        let again: Vec<Name> = texts.iter().map(|t| Name::new(t)).collect();
        assert_eq!(again, first);
        let mixed: Vec<String> = texts
            .iter()
            .enumerate()
            .flat_map(|(i, t)| [t.clone(), format!("names-guess-new-{}", i % 7)])
            .rev()
            .collect();
        for t in &mixed {
            assert_eq!(Name::new(t).as_str(), t);
        }
        for (t, n) in texts.iter().zip(&first) {
            assert_eq!(Name::new(t), *n);
            assert_eq!(table().published(n.0.get() - 1), Some(t.as_str()));
        }
        assert_eq!(table().published(u32::MAX - 1), None);
        assert_eq!(table().published(u32::MAX - 2), None);
    }

    #[test]
    fn members_empty_without_allocation() {
        let none = Members::from(Vec::new());
        assert!(none.is_empty() && none.0.is_none());
        let names = vec![Name::new("a"), Name::new("b")];
        let some = Members::from(names.clone());
        assert_eq!(&*some, &names[..]);
        assert_eq!(std::mem::size_of::<Members>(), 8);
    }
}
