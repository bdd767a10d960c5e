//! The symbol table of one mapped binary, built as perf builds it.
//!
//! Input: two mapped ELF files ([`Image`]): the one with the symbols (the
//! binary's `.symtab`, a separate debug file's, else `.dynsym`) and the
//! runtime binary (its program headers place the symbols at file offsets;
//! its `.plt` gets synthesised `name@plt` entries, see [`super::plt`]); they
//! are one file when the binary has its own `.symtab`. Output: an
//! [`ElfSymbols`] that names a file offset (what `ip - map.start +
//! map.pgoff` gives). perf's rules (tools/perf/util/symbol-elf.c, symbol.c):
//! functions, GNU ifuncs, objects and labels of text/data sections (not
//! `SHN_ABS`, not in unallocated sections), moved to file offsets through
//! the runtime `PT_LOAD` that holds them; a zero-size symbol ends where the
//! next one starts (the last one at the next page boundary after its start
//! plus a page); of symbols at one address the best is kept (non-zero size,
//! then non-weak, then global, then fewer leading underscores, then the
//! longer name); names are demangled ([`super::demangle`]) unless told not
//! to. An address inside nested symbols gets the innermost one.

use super::demangle::demangle;
use object::elf::{FileHeader32, FileHeader64};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, SectionTable, Sym};
use object::{elf, Endianness, FileKind, Object, ObjectSection};
use std::borrow::Cow;
use std::path::Path;

/// Why a binary gave no symbols (for a warning).
pub type Why = String;

/// A mapped ELF file.
pub struct Image {
    pub path: String,
    map: memmap2::Mmap,
}

impl Image {
    /// Map `path` (a regular file: the caller checks).
    pub fn open(path: &Path) -> Result<Image, Why> {
        let shown = path.display().to_string();
        let f = std::fs::File::open(path).map_err(|e| format!("{shown}: {e}"))?;
        // SAFETY: the binary is only read; a file truncated while mapped
        // could fault, as for every tool that maps binaries (perf, samply).
        // Mapping matters: only the symbol table pages of a 100 MB library
        // are touched.
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| format!("{shown}: {e}"))?;
        Ok(Image { path: shown, map })
    }

    pub fn data(&self) -> &[u8] {
        &self.map
    }

    /// What choosing among candidate files needs to know of this one.
    pub fn probe(&self) -> Result<Probe, Why> {
        let file =
            object::File::parse(self.data()).map_err(|e| format!("{}: not ELF: {e}", self.path))?;
        let kind = |name: &str| {
            file.section_by_name(name)
                .map(|s| s.kind() != object::SectionKind::UninitializedData)
        };
        Ok(Probe {
            build_id: file.build_id().ok().flatten().map(<[u8]>::to_vec),
            symtab: kind(".symtab") == Some(true),
            dynsym: kind(".dynsym") == Some(true),
            debuglink: file
                .gnu_debuglink()
                .ok()
                .flatten()
                .map(|(name, _crc)| String::from_utf8_lossy(name).into_owned()),
        })
    }
}

/// A candidate file's build-id, symbol tables and debug link.
#[derive(Debug)]
pub struct Probe {
    pub build_id: Option<Vec<u8>>,
    /// Has a `.symtab` with contents (a stripped binary has none; a debug
    /// file's is there, its `.dynsym` is `NOBITS`).
    pub symtab: bool,
    /// Has a `.dynsym` with contents: can serve as the runtime binary.
    pub dynsym: bool,
    pub debuglink: Option<String>,
}

/// One symbol: its file-offset range and its raw name in [`Table::names`].
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

    /// Add a symbol (a name past 4 GiB of names is dropped).
    fn push(&mut self, start: u64, size: u64, name: &str, weak: bool, global: bool, ifunc: bool) {
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
}

impl ElfSymbols {
    /// Build the table from `syms` (symbols) and `runtime` (program
    /// headers, PLT); they may be the same file.
    pub fn build(syms: &Image, runtime: &Image, demangle: bool) -> Result<ElfSymbols, Why> {
        let kinds = (
            FileKind::parse(syms.data()),
            FileKind::parse(runtime.data()),
        );
        let table = match kinds {
            (Ok(FileKind::Elf64), Ok(FileKind::Elf64)) => {
                build_as::<FileHeader64<Endianness>>(syms, runtime, demangle)
            }
            (Ok(FileKind::Elf32), Ok(FileKind::Elf32)) => {
                build_as::<FileHeader32<Endianness>>(syms, runtime, demangle)
            }
            _ => Err(format!(
                "{}: not an ELF file of the same class as {}",
                syms.path, runtime.path
            )),
        }?;
        if table.syms.is_empty() {
            return Err(format!("{}: no function symbols", syms.path));
        }
        Ok(ElfSymbols::from_table(table))
    }

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
        ElfSymbols { table, max_end }
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

    #[cfg(test)]
    pub fn lookup(&self, off: u64) -> Option<String> {
        self.lookup_index(off)
            .and_then(|i| self.name(i))
            .map(Cow::into_owned)
    }
}

fn bad(path: &str, e: object::read::Error) -> Why {
    format!("{path}: corrupt ELF: {e}")
}

/// A runtime `PT_LOAD`: (vaddr, memory size, file offset).
type Load = (u64, u64, u64);

fn build_as<E: FileHeader<Endian = Endianness>>(
    syms: &Image,
    runtime: &Image,
    demangle_names: bool,
) -> Result<Table, Why> {
    let (data, rdata) = (syms.data(), runtime.data());
    let header = E::parse(data).map_err(|e| bad(&syms.path, e))?;
    let endian = header.endian().map_err(|e| bad(&syms.path, e))?;
    let sections = header
        .sections(endian, data)
        .map_err(|e| bad(&syms.path, e))?;
    let rheader = E::parse(rdata).map_err(|e| bad(&runtime.path, e))?;
    let rsections = rheader
        .sections(endian, rdata)
        .map_err(|e| bad(&runtime.path, e))?;
    let loads: Vec<Load> = rheader
        .program_headers(endian, rdata)
        .map_err(|e| bad(&runtime.path, e))?
        .iter()
        .filter(|p| p.p_type(endian) == elf::PT_LOAD)
        .map(|p| {
            let (mem, file) = (p.p_memsz(endian).into(), p.p_filesz(endian).into());
            (
                p.p_vaddr(endian).into(),
                mem.max(file),
                p.p_offset(endian).into(),
            )
        })
        .filter(|l| l.1 > 0)
        .collect();
    let table = [
        (&b".symtab"[..], elf::SHT_SYMTAB),
        (b".dynsym", elf::SHT_DYNSYM),
    ]
    .into_iter()
    .find_map(|(name, kind)| {
        sections
            .section_by_name(endian, name)
            .filter(|(_, s)| s.sh_type(endian) == kind)
    });
    let Some((index, section)) = table else {
        return Err(format!("{}: no symbol table", syms.path));
    };
    let table = object::read::elf::SymbolTable::parse(endian, data, &sections, index, section)
        .map_err(|e| bad(&syms.path, e))?;
    let strings = table.strings();
    let mut out = Table::new(demangle_names);
    for sym in table.iter() {
        if sym.st_name(endian) == 0 {
            continue;
        }
        let kind = sym.st_type();
        let shndx = sym.st_shndx(endian);
        let visible = !matches!(sym.st_visibility(), elf::STV_HIDDEN | elf::STV_INTERNAL);
        let is_label = kind == elf::STT_NOTYPE && visible;
        let wanted = matches!(kind, elf::STT_FUNC | elf::STT_GNU_IFUNC | elf::STT_OBJECT);
        if !(is_label || wanted) || shndx.is_special() {
            continue;
        }
        let at = object::SectionIndex(usize::from(shndx.0));
        let Ok(sec) = sections.section(at) else {
            continue;
        };
        if !sec.sh_flags(endian).contains(elf::SHF_ALLOC) {
            continue;
        }
        // A debug file's sections are `NOBITS`: take the runtime one's
        // header (name, address, offset).
        let (sec, table_of) = if sec.sh_type(endian) == elf::SHT_NOBITS {
            match rsections.section(at) {
                Ok(s) => (s, &rsections),
                Err(_) => (sec, &sections),
            }
        } else {
            (sec, &sections)
        };
        if is_label && !section_holds_code_or_data(table_of, endian, sec) {
            continue;
        }
        let Ok(raw) = sym.name(endian, strings) else {
            continue;
        };
        let raw = String::from_utf8_lossy(raw);
        let value: u64 = sym.st_value(endian).into();
        let start = match loads.iter().find(|l| value >= l.0 && value - l.0 < l.1) {
            Some(&(vaddr, _, off)) => value.wrapping_sub(vaddr).wrapping_add(off),
            None => value
                .wrapping_sub(sec.sh_addr(endian).into())
                .wrapping_add(sec.sh_offset(endian).into()),
        };
        let bind = sym.st_bind();
        out.push(
            start,
            sym.st_size(endian).into(),
            &raw,
            bind == elf::STB_WEAK,
            bind == elf::STB_GLOBAL,
            kind == elf::STT_GNU_IFUNC,
        );
    }
    out.sort();
    fixup_end(&mut out.syms);
    fixup_duplicates(&mut out);
    if !out.syms.is_empty() {
        super::plt::synthesize::<E>(rheader, endian, rdata, &rsections, &mut out)
            .map_err(|e| bad(&runtime.path, e))?;
    }
    Ok(out)
}

/// perf keeps labels only in sections whose name holds `text` or `data`.
fn section_holds_code_or_data<'d, E: FileHeader<Endian = Endianness>>(
    table: &SectionTable<'d, E, &'d [u8]>,
    endian: Endianness,
    sec: &E::SectionHeader,
) -> bool {
    table
        .section_name(endian, sec)
        .is_ok_and(|n| n.windows(4).any(|w| w == b"text") || n.windows(4).any(|w| w == b"data"))
}

/// perf's `symbols__fixup_end`: a zero-size symbol ends where the next one
/// starts; the last one one page past its start's page.
fn fixup_end(syms: &mut [Entry]) {
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
fn fixup_duplicates(t: &mut Table) {
    let syms = std::mem::take(&mut t.syms);
    let mut out: Vec<Entry> = Vec::with_capacity(syms.len());
    for s in syms {
        match out.last_mut() {
            Some(cur) if cur.start == s.start => {
                let ifunc = cur.ifunc || s.ifunc;
                if !better(t, cur, &s) {
                    *cur = s;
                }
                cur.ifunc = ifunc;
            }
            _ => out.push(s),
        }
    }
    t.syms = out;
}

/// Whether `a` wins over `b` (perf's `choose_best_symbol`: `a` on ties).
/// perf compares the names it shows, so those are demangled here (only
/// for aliases that tie on everything else).
fn better(t: &Table, a: &Entry, b: &Entry) -> bool {
    let (la, lb) = (a.end - a.start, b.end - b.start);
    if (la == 0) != (lb == 0) {
        return la > 0;
    }
    if a.weak != b.weak {
        return !a.weak;
    }
    if a.global != b.global {
        return a.global;
    }
    let (na, nb) = (t.shown(a), t.shown(b));
    let under = |n: &str| n.bytes().take_while(|&c| c == b'_').count();
    let (ua, ub) = (under(&na), under(&nb));
    if ua != ub {
        return ua < ub;
    }
    na.len() >= nb.len()
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
        assert!(better(&t, &s[0], &s[1]));
        assert!(better(&t, &s[2], &s[3]));
        assert!(better(&t, &s[4], &s[5]));
        // `_ZN5alpha4betaEv` is shown as `alpha::beta`: no leading
        // underscore, and longer than `abc`.
        assert!(better(&t, &s[6], &s[7]));
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

    #[test]
    fn own_test_binary() {
        // The running test binary has a symbol table: every function's
        // start names that function (or an alias perf would prefer).
        let exe = std::env::current_exe().unwrap();
        let img = Image::open(&exe).unwrap();
        let t = ElfSymbols::build(&img, &img, false).unwrap();
        let syms = &t.table.syms;
        assert!(syms.len() > 100);
        let e = &syms[syms.len() / 2];
        assert_eq!(t.lookup(e.start).as_deref(), Some(t.table.raw(e)));
        assert!(Image::open(Path::new("/nonexistent/binary")).is_err());
    }
}
