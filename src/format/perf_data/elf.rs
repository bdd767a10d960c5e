//! Reading one mapped binary's symbols from its ELF files, as perf reads
//! them (tools/perf/util/symbol-elf.c).
//!
//! Input: two mapped ELF files ([`Image`]): the one with the symbols (the
//! binary's `.symtab`, a separate debug file's, else `.dynsym`) and the
//! runtime binary (its program headers place the symbols at file offsets;
//! its `.plt` gets synthesised `name@plt` entries, see [`super::plt`]); they
//! are one file when the binary has its own `.symtab`. Output: an
//! [`ElfSymbols`] ([`super::symtab`]) that names a file offset (what
//! `ip - map.start + map.pgoff` gives). perf's choice of symbols:
//! functions, GNU ifuncs, objects and labels of text/data sections (not
//! `SHN_ABS`, not in unallocated sections), moved to file offsets through
//! the runtime `PT_LOAD` that holds them. [`Image::probe`] tells the search
//! for files ([`super::symsrc`]) a candidate's build-id, symbol tables and
//! debug link.

use super::symtab::{fixup_duplicates, fixup_end, ElfSymbols, Table};
use object::elf::{FileHeader32, FileHeader64};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, SectionTable, Sym};
use object::{elf, Endianness, FileKind, Object, ObjectSection};
use std::path::Path;

/// Why a binary gave no symbols (for a warning).
pub type Why = String;

/// A mapped ELF file.
pub struct Image {
    pub path: String,
    map: memmap2::Mmap,
}

impl Image {
    /// Map `path`, a regular file ([`open_regular`]: never a FIFO or device).
    pub fn open(path: &Path) -> Result<Image, Why> {
        let shown = path.display().to_string();
        let f = open_regular(&shown)?;
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
}

fn bad(path: &str, e: object::read::Error) -> Why {
    format!("{path}: corrupt ELF: {e}")
}

/// A runtime `PT_LOAD`: (vaddr, memory size, file offset).
type Load = (u64, u64, u64);

/// The runtime file's loadable segments (address, size in memory, file
/// offset), which place a symbol's address in the file.
fn loads<E: FileHeader<Endian = Endianness>>(
    rheader: &E,
    endian: Endianness,
    runtime: &Image,
) -> Result<Vec<Load>, Why> {
    Ok(rheader
        .program_headers(endian, runtime.data())
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
        .collect())
}

/// The file's `.symtab`, else its `.dynsym`.
fn symbol_table<'d, E: FileHeader<Endian = Endianness>>(
    sections: &SectionTable<'d, E, &'d [u8]>,
    endian: Endianness,
    data: &'d [u8],
    path: &str,
) -> Result<object::read::elf::SymbolTable<'d, E, &'d [u8]>, Why> {
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
        return Err(format!("{path}: no symbol table"));
    };
    object::read::elf::SymbolTable::parse(endian, data, sections, index, section)
        .map_err(|e| bad(path, e))
}

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
    let loads = loads(rheader, endian, runtime)?;
    let table = symbol_table(&sections, endian, data, &syms.path)?;
    let strings = table.strings();
    let mut out = Table::new(demangle_names);
    let names = sections
        .section(table.string_section())
        .map_or(0u64, |s| s.sh_size(endian).into());
    out.reserve(
        table.len(),
        usize::try_from(names).unwrap_or(0).min(data.len()),
    );
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
        // Names are ASCII but for a few: validating is faster than lossy decoding.
        let raw = match std::str::from_utf8(raw) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(raw),
        };
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

/// Open a file a recording names only if it is a regular file: a FIFO or a
/// device at that path would block the open or never end. Opened without
/// blocking, then checked on the open file (no window for a swap).
fn open_regular(path: &str) -> Result<std::fs::File, Why> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("{path}: {e}"))?;
    match f.metadata() {
        Ok(m) if m.is_file() => Ok(f),
        Ok(_) => Err(format!("{path}: not a regular file")),
        Err(e) => Err(format!("{path}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_test_binary() {
        // The running test binary has a symbol table: every function's
        // start names that function (or an alias perf would prefer).
        let exe = std::env::current_exe().unwrap();
        let img = Image::open(&exe).unwrap();
        let t = ElfSymbols::build(&img, &img, false).unwrap();
        let syms = t.entries();
        assert!(syms.len() > 100);
        let (start, name) = syms[syms.len() / 2];
        assert_eq!(t.lookup(start).as_deref(), Some(name));
        assert!(Image::open(Path::new("/nonexistent/binary")).is_err());
    }

    #[test]
    fn a_fifo_is_not_opened() {
        let dir = tempfile_dir();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Image::open(&fifo).err().expect("a FIFO is refused");
        assert!(e.ends_with("fifo: not a regular file"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("diffprofile-elf-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
