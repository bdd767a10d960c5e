//! One binary's symbol table as perf keeps it, and the lookup of a file
//! offset in it.
//!
//! Input: symbols pushed by [`super::elf`] (from `.symtab`/`.dynsym`),
//! [`super::plt`] (`name@plt`) or [`super::jitmap`] (JIT maps), with their
//! raw names stored in one string. Output: an [`ElfSymbols`] sorted by
//! file offset, after perf's fix-ups (tools/perf/util/symbol.c): a
//! zero-size symbol ends where the next one starts (the last one a page
//! past its start's page); of symbols at one address the best is kept
//! (non-zero size, then non-weak, then global, then fewer leading
//! underscores, then the longer name, compared as shown: demangled). A
//! lookup gets the innermost symbol holding the offset; names are
//! demangled ([`super::demangle`]) when shown, not when loaded.

use super::demangle::demangle;
use std::borrow::Cow;

/// One symbol: its file-offset range and where its raw name is in the
/// [`Table`]'s names.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub start: u64,
    pub end: u64,
    name: u32,
    len: u32,
    weak: bool,
    global: bool,
    /// A GNU ifunc, or the alias kept for one (for PLT names of ifuncs).
    pub ifunc: bool,
}

impl Entry {
    fn contains(&self, off: u64) -> bool {
        (self.start <= off && off < self.end) || (self.start == off && self.end == off)
    }
}

/// Symbols being collected, with their raw names in one string (a library
/// has tens of thousands: one allocation, not one per name).
#[derive(Debug, Default)]
pub(super) struct Table {
    pub syms: Vec<Entry>,
    names: String,
    /// Demangle names (for the alias choice here, lazily when shown).
    demangle: bool,
}

impl Table {
    pub fn new(demangle: bool) -> Table {
        Table {
            demangle,
            ..Table::default()
        }
    }

    /// Room for `syms` symbols and `names` bytes of names (a library's
    /// table is read in one pass: no regrowth of either).
    pub fn reserve(&mut self, syms: usize, names: usize) {
        self.syms.reserve(syms);
        self.names.reserve(names);
    }

    /// Add a symbol (a name past 4 GiB of names is dropped).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        start: u64,
        size: u64,
        name: &str,
        weak: bool,
        global: bool,
        ifunc: bool,
    ) {
        let (Ok(at), Ok(len)) = (u32::try_from(self.names.len()), u32::try_from(name.len())) else {
            return;
        };
        self.names.push_str(name);
        self.syms.push(Entry {
            start,
            end: start.saturating_add(size),
            name: at,
            len,
            weak,
            global,
            ifunc,
        });
    }

    /// A synthesised symbol (PLT entry, JIT map line): global, not weak.
    pub fn push_synthetic(&mut self, start: u64, size: u64, name: &str) {
        self.push(start, size, name, false, true, false);
    }

    /// The raw name of `e`.
    pub fn raw(&self, e: &Entry) -> &str {
        let at = e.name as usize;
        self.names.get(at..at + e.len as usize).unwrap_or("")
    }

    /// The name of `e` as shown: demangled unless told not to.
    fn shown(&self, e: &Entry) -> Cow<'_, str> {
        let raw = self.raw(e);
        match self.demangle.then(|| demangle(raw)).flatten() {
            Some(d) => Cow::Owned(d),
            None => Cow::Borrowed(raw),
        }
    }

    pub fn sort(&mut self) {
        // Stable: symbols at one address keep their table order, as in perf.
        self.syms.sort_by_key(|e| e.start);
    }
}

/// One binary's symbols, by file offset.
#[derive(Debug, Default)]
pub struct ElfSymbols {
    table: Table,
    /// `max_end[i]`: the largest end among `syms[..=i]` (bounds the search
    /// for an enclosing symbol).
    max_end: Vec<u64>,
    /// The build-id of the binary these symbols are of (see
    /// [`super::symsrc::Found::build_id`]), when known.
    pub named_by: Option<Vec<u8>>,
}

impl ElfSymbols {
    pub(super) fn from_table(mut table: Table) -> ElfSymbols {
        table.sort();
        let mut max = 0;
        let max_end = table
            .syms
            .iter()
            .map(|e| {
                max = max.max(e.end);
                max
            })
            .collect();
        ElfSymbols {
            table,
            max_end,
            named_by: None,
        }
    }

    /// The name of symbol `index` (from [`ElfSymbols::lookup_index`]),
    /// demangled when asked (each call demangles: callers keep the result).
    pub fn name(&self, index: u32) -> Option<Cow<'_, str>> {
        self.table
            .syms
            .get(index as usize)
            .map(|e| self.table.shown(e))
    }

    /// The index of the innermost symbol holding file offset `off`.
    pub fn lookup_index(&self, off: u64) -> Option<u32> {
        let syms = &self.table.syms;
        let k = syms.partition_point(|e| e.start <= off);
        for j in (0..k).rev() {
            let e = &syms[j];
            if e.contains(off) {
                return Some(j as u32);
            }
            if e.start < off && self.max_end[j] <= off {
                break;
            }
        }
        None
    }

    /// Each symbol's start and raw name, in order.
    #[cfg(test)]
    pub fn entries(&self) -> Vec<(u64, &str)> {
        let t = &self.table;
        t.syms.iter().map(|e| (e.start, t.raw(e))).collect()
    }

    #[cfg(test)]
    pub fn lookup(&self, off: u64) -> Option<String> {
        self.lookup_index(off)
            .and_then(|i| self.name(i))
            .map(Cow::into_owned)
    }
}

/// perf's `symbols__fixup_end`: a zero-size symbol ends where the next one
/// starts; the last one one page past its start's page.
pub(super) fn fixup_end(syms: &mut [Entry]) {
    for i in 1..syms.len() {
        if syms[i - 1].end == syms[i - 1].start {
            syms[i - 1].end = syms[i].start;
        }
    }
    if let Some(last) = syms.last_mut() {
        if last.end == last.start {
            last.end = (last.start / 4096 + 2).saturating_mul(4096);
        }
    }
}

/// perf's `symbols__fixup_duplicate` with `choose_best_symbol`: of symbols
/// at one address keep the best (ties keep the earlier one).
pub(super) fn fixup_duplicates(t: &mut Table) {
    let syms = std::mem::take(&mut t.syms);
    let mut out: Vec<Entry> = Vec::with_capacity(syms.len());
    // The current winner's shown name (leading underscores, length), once
    // computed: each alias of a long run is demangled once, not per match.
    let mut shown: Option<(usize, usize)> = None;
    for s in syms {
        match out.last_mut() {
            Some(cur) if cur.start == s.start => {
                let ifunc = cur.ifunc || s.ifunc;
                match better(t, cur, &s, &mut shown) {
                    (true, _) => {}
                    (false, next) => {
                        *cur = s;
                        shown = next;
                    }
                }
                cur.ifunc = ifunc;
            }
            _ => {
                out.push(s);
                shown = None;
            }
        }
    }
    t.syms = out;
}

/// Whether `a` wins over `b` (perf's `choose_best_symbol`: `a` on ties),
/// and `b`'s shown name's measures when they were computed. perf compares
/// the names it shows, so those are demangled here (only for aliases that
/// tie on everything else); `a_shown` caches `a`'s.
fn better(
    t: &Table,
    a: &Entry,
    b: &Entry,
    a_shown: &mut Option<(usize, usize)>,
) -> (bool, Option<(usize, usize)>) {
    let (la, lb) = (a.end - a.start, b.end - b.start);
    if (la == 0) != (lb == 0) {
        return (la > 0, None);
    }
    if a.weak != b.weak {
        return (!a.weak, None);
    }
    if a.global != b.global {
        return (a.global, None);
    }
    let measure = |e: &Entry| {
        let n = t.shown(e);
        (n.bytes().take_while(|&c| c == b'_').count(), n.len())
    };
    let (ua, na) = *a_shown.get_or_insert_with(|| measure(a));
    let (ub, nb) = measure(b);
    let wins = if ua != ub { ua < ub } else { na >= nb };
    (wins, Some((ub, nb)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(syms: &[(u64, u64, &str, bool, bool)]) -> Table {
        let mut t = Table::new(true);
        for &(start, size, name, weak, global) in syms {
            t.push(start, size, name, weak, global, false);
        }
        t
    }

    #[test]
    fn aliases_resolve_as_perf_chooses() {
        // libc's write and its aliases, all at one address, in table order.
        let mut t = table(&[
            (0x100, 0x90, "__write", true, false),
            (0x100, 0x90, "write", true, false),
            (0x100, 0x90, "__libc_write", false, true),
            (0x100, 0x90, "__GI___libc_write", false, false),
            (0x200, 0, "_end_marker", false, true),
        ]);
        fixup_end(&mut t.syms);
        fixup_duplicates(&mut t);
        let t = ElfSymbols::from_table(t);
        assert_eq!(t.lookup(0x100).as_deref(), Some("__libc_write"));
        assert_eq!(t.lookup(0x18f).as_deref(), Some("__libc_write"));
        assert_eq!(t.lookup(0x190), None);
        // The last zero-size symbol reaches one page past its start's page.
        assert_eq!(t.lookup(0x1fff).as_deref(), Some("_end_marker"));
        assert_eq!(t.lookup(0x2000), None);
        // Non-zero size beats zero size; fewer underscores, then longer
        // names, compared as shown (demangled).
        let t = table(&[
            (0, 4, "b", true, false),
            (0, 0, "a", false, true),
            (0, 4, "_x", false, true),
            (0, 4, "__x", false, true),
            (0, 4, "long", false, true),
            (0, 4, "lon", false, true),
            (0, 4, "_ZN5alpha4betaEv", false, true),
            (0, 4, "abc", false, true),
        ]);
        let s = &t.syms;
        let wins = |a: usize, b: usize| better(&t, &s[a], &s[b], &mut None).0;
        assert!(wins(0, 1));
        assert!(wins(2, 3));
        assert!(wins(4, 5));
        // `_ZN5alpha4betaEv` is shown as `alpha::beta`: no leading
        // underscore, and longer than `abc`.
        assert!(wins(6, 7));
        assert!(!wins(7, 6));
        // A run of aliases: each compared with the winner so far.
        let mut t = table(&[
            (0, 4, "__b", false, true),
            (0, 4, "_ZN5alpha4betaEv", false, true),
            (0, 4, "_c", false, true),
            (0, 4, "ab", false, true),
            (0, 4, "_ZN5gamma5deltaEv", false, true),
        ]);
        fixup_duplicates(&mut t);
        let t = ElfSymbols::from_table(t);
        assert_eq!(t.lookup(0).as_deref(), Some("gamma::delta"));
    }

    #[test]
    fn innermost_symbol_wins() {
        let mut t = Table::new(false);
        t.push_synthetic(0x1000, 0x100, "_init");
        t.push_synthetic(0x1020, 0x10, "write@plt");
        let t = ElfSymbols::from_table(t);
        assert_eq!(t.lookup(0x1024).as_deref(), Some("write@plt"));
        assert_eq!(t.lookup(0x1030).as_deref(), Some("_init"));
        assert_eq!(t.lookup(0x1100), None);
    }
}
