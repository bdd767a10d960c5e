//! `name@plt` symbols for a binary's procedure linkage table, synthesised
//! as perf does (tools/perf/util/symbol-elf.c, `dso__synthesize_plt_symbols`).
//!
//! Input: the runtime binary (never a debug file: its PLT sections are
//! `NOBITS`) and the symbols already read from it or its debug file. Output:
//! more entries in that table, at file offsets: `.plt` for the lazy-binding
//! header, one `name@plt` per `.rela.plt`/`.rel.plt` relocation in PLT order
//! (`.plt.sec` when the binary has one: x86 with CET), `name@plt` for x86
//! `.plt.got` entries (their `.rela.dyn` GOT slot names the target), an
//! ifunc's own name for `R_X86_64_IRELATIVE` slots, `offset_0x…@plt` when
//! nothing names an entry. Like perf, nothing is added to a binary that
//! gave no symbols at all, and a symbol that ran over the `.plt` start (an
//! `_init` of size 0) is cut there.

use super::symtab::Table;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, SectionTable, Sym, SymbolTable};
use object::read::elf::{Rel as _, Rela as _};
use object::{elf, Endianness, SectionIndex, SymbolIndex};

type Sections<'d, E> = SectionTable<'d, E, &'d [u8]>;

/// One PLT relocation: GOT slot, symbol index, type, addend.
struct Reloc {
    offset: u64,
    sym: u32,
    kind: u32,
    addend: i64,
}

/// Add the PLT symbols of the runtime binary to `table` (sorted by start;
/// names stay raw, as the table's: `target@plt`).
pub(super) fn synthesize<'d, E: FileHeader<Endian = Endianness>>(
    header: &E,
    endian: Endianness,
    data: &'d [u8],
    sections: &Sections<'d, E>,
    table: &mut Table,
) -> object::read::Result<()> {
    let Some((_, plt)) = sections.section_by_name(endian, b".plt") else {
        return Ok(());
    };
    let plt_off: u64 = plt.sh_offset(endian).into();
    let plt_size: u64 = plt.sh_size(endian).into();
    for s in table.syms.iter_mut() {
        if s.start < plt_off && s.end > plt_off {
            s.end = plt_off;
        }
    }
    let machine = header.e_machine(endian);
    let Some((header_size, mut entry)) = plt_sizes(machine, endian, plt) else {
        return Ok(());
    };
    // What was there before: ifunc targets are looked up in it.
    let before = table.syms.len();
    table.push_synthetic(plt_off, header_size, ".plt");
    let result = entries::<E>(
        header, endian, data, sections, table, before, plt_size, &mut entry,
    );
    table.sort();
    result
}

/// The `.plt.got` entries, then one entry per PLT relocation; the `.plt`
/// header symbol is `table.syms[header]`.
#[allow(clippy::too_many_arguments)]
fn entries<'d, E: FileHeader<Endian = Endianness>>(
    header: &E,
    endian: Endianness,
    data: &'d [u8],
    sections: &Sections<'d, E>,
    table: &mut Table,
    plt_sym: usize,
    plt_size: u64,
    entry: &mut u64,
) -> object::read::Result<()> {
    let machine = header.e_machine(endian);
    let x86 = machine == elf::EM_386 || machine == elf::EM_X86_64;
    let plt_off = table.syms[plt_sym].start;
    let header_size = table.syms[plt_sym].end - plt_off;
    if x86 {
        plt_got::<E>(header, endian, data, sections, table)?;
    }
    let mut at;
    let lazy;
    match sections.section_by_name(endian, b".plt.sec") {
        Some((_, sec)) if x86 => {
            let Some((_, e)) = plt_sizes(machine, endian, sec) else {
                return Ok(());
            };
            *entry = e;
            table.syms[plt_sym].end = plt_off.saturating_add(plt_size);
            at = sec.sh_offset(endian).into();
            lazy = false;
        }
        _ => {
            at = plt_off;
            lazy = true;
        }
    }
    let rel = sections
        .section_by_name(endian, b".rela.plt")
        .or_else(|| sections.section_by_name(endian, b".rel.plt"));
    let relocs = match rel {
        Some((_, rel)) => relocations::<E>(endian, data, rel, header.is_mips64el(endian))?,
        None => None,
    };
    let Some((mut relocs, link)) = relocs else {
        return Ok(());
    };
    let linked = sections.section(link)?;
    let kind = linked.sh_type(endian);
    if kind != elf::SHT_DYNSYM && kind != elf::SHT_SYMTAB {
        return Ok(());
    }
    let syms = SymbolTable::parse(endian, data, sections, link, linked)?;
    if lazy {
        // A `.plt` with exactly one entry per relocation has no header.
        if (relocs.len() as u64).saturating_mul(*entry) == plt_size {
            table.syms.remove(plt_sym);
        } else {
            at = at.saturating_add(header_size);
        }
    }
    if x86 {
        // x86 does not put ifunc relocations in PLT order.
        relocs.sort_by_key(|r| r.offset);
    }
    let loads = loads::<E>(header, endian, data)?;
    for r in &relocs {
        let raw = syms
            .symbol(SymbolIndex(r.sym as usize))
            .and_then(|s| s.name(endian, syms.strings()))
            .unwrap_or(b"");
        let n = if !raw.is_empty() {
            format!("{}@plt", String::from_utf8_lossy(raw))
        } else if let Some(f) = ifunc_target(machine, r, &loads, table, plt_sym) {
            format!("{f}@plt")
        } else {
            format!("offset_{at:#x}@plt")
        };
        table.push_synthetic(at, *entry, &n);
        at = at.saturating_add(*entry);
    }
    Ok(())
}

/// (header size, entry size) of a PLT section on `machine`.
fn plt_sizes<S: SectionHeader<Endian = Endianness>>(
    machine: elf::Machine,
    endian: Endianness,
    plt: &S,
) -> Option<(u64, u64)> {
    let entsize: u64 = plt.sh_entsize(endian).into();
    let (header, entry) = match machine {
        elf::EM_ARM => (20, 12),
        elf::EM_AARCH64 | elf::EM_LOONGARCH => (32, 16),
        elf::EM_SPARC => (48, 12),
        elf::EM_SPARCV9 => (128, 32),
        elf::EM_386 | elf::EM_X86_64 => {
            let e = match entsize {
                8 | 16 => entsize,
                _ if plt.sh_addralign(endian).into() == 8 => 8,
                _ => 16,
            };
            (e, e)
        }
        _ => (entsize, entsize),
    };
    (entry > 0).then_some((header, entry))
}

/// The relocations of a `.rela.plt`/`.rel.plt` section and its symbol table.
fn relocations<'d, E: FileHeader<Endian = Endianness>>(
    endian: Endianness,
    data: &'d [u8],
    sec: &'d E::SectionHeader,
    mips64el: bool,
) -> object::read::Result<Option<(Vec<Reloc>, SectionIndex)>> {
    if let Some((rela, link)) = sec.rela(endian, data)? {
        let v = rela
            .iter()
            .map(|r| Reloc {
                offset: r.r_offset(endian).into(),
                sym: r.r_sym(endian, mips64el),
                kind: r.r_type(endian, mips64el).0,
                addend: r.r_addend(endian).into(),
            })
            .collect();
        return Ok((link.0 != 0).then_some((v, link)));
    }
    if let Some((rel, link)) = sec.rel(endian, data)? {
        let v = rel
            .iter()
            .map(|r| Reloc {
                offset: r.r_offset(endian).into(),
                sym: r.r_sym(endian),
                kind: r.r_type(endian).0,
                addend: 0,
            })
            .collect();
        return Ok((link.0 != 0).then_some((v, link)));
    }
    Ok(None)
}

fn loads<E: FileHeader<Endian = Endianness>>(
    header: &E,
    endian: Endianness,
    data: &[u8],
) -> object::read::Result<Vec<(u64, u64, u64)>> {
    Ok(header
        .program_headers(endian, data)?
        .iter()
        .filter(|p| p.p_type(endian) == elf::PT_LOAD)
        .map(|p| {
            let size = p.p_memsz(endian).into().max(p.p_filesz(endian).into());
            (p.p_vaddr(endian).into(), size, p.p_offset(endian).into())
        })
        .collect())
}

/// An x86-64 `R_X86_64_IRELATIVE` slot: its addend is the ifunc resolver's
/// address, which names the entry when a symbol (an ifunc or an alias kept
/// for one) starts there. Only the symbols read from the binary, the first
/// `read` of the table (sorted), are looked at.
fn ifunc_target(
    machine: elf::Machine,
    r: &Reloc,
    loads: &[(u64, u64, u64)],
    table: &Table,
    read: usize,
) -> Option<String> {
    const R_X86_64_IRELATIVE: u32 = 37;
    if machine != elf::EM_X86_64 || r.kind != R_X86_64_IRELATIVE {
        return None;
    }
    let addr = r.addend as u64;
    let &(vaddr, _, off) = loads.iter().find(|l| addr >= l.0 && addr - l.0 < l.1)?;
    let at = addr - vaddr + off;
    let syms = table.syms.get(..read)?;
    let k = syms.partition_point(|s| s.start < at);
    syms.get(k)
        .filter(|s| s.start == at && s.ifunc)
        .map(|s| table.raw(s).to_string())
}

/// `.plt.got` entries (x86): each jumps through a GOT slot that a
/// `.rela.dyn` relocation names (x86-64).
fn plt_got<'d, E: FileHeader<Endian = Endianness>>(
    header: &E,
    endian: Endianness,
    data: &'d [u8],
    sections: &Sections<'d, E>,
    table: &mut Table,
) -> object::read::Result<()> {
    let Some((_, got)) = sections.section_by_name(endian, b".plt.got") else {
        return Ok(());
    };
    let entsize: u64 = got.sh_entsize(endian).into();
    if entsize == 0 {
        return Ok(());
    }
    let bytes = got.data(endian, data).unwrap_or(&[]);
    let (off, addr): (u64, u64) = (got.sh_offset(endian).into(), got.sh_addr(endian).into());
    // GOT slot address → symbol name, from `.rela.dyn`.
    let mut slots: Vec<(u64, String)> = Vec::new();
    if header.e_machine(endian) == elf::EM_X86_64 {
        if let Some((_, dynrel)) = sections.section_by_name(endian, b".rela.dyn") {
            if let Some((relocs, link)) = relocations::<E>(endian, data, dynrel, false)? {
                let linked = sections.section(link)?;
                if linked.sh_type(endian) == elf::SHT_DYNSYM {
                    let syms = SymbolTable::parse(endian, data, sections, link, linked)?;
                    for r in relocs.iter().filter(|r| r.sym != 0) {
                        let raw = syms
                            .symbol(SymbolIndex(r.sym as usize))
                            .and_then(|s| s.name(endian, syms.strings()))
                            .unwrap_or(b"");
                        if !raw.is_empty() {
                            slots.push((r.offset, String::from_utf8_lossy(raw).into_owned()));
                        }
                    }
                    slots.sort_by_key(|s| s.0);
                }
            }
        }
    }
    let size: u64 = got.sh_size(endian).into();
    let mut i = 0u64;
    while i < size {
        let target = bytes
            .get(i as usize..)
            .and_then(x86_64_jump_displacement)
            .map(|d| addr.wrapping_add(i).wrapping_add(d));
        let found = target.and_then(|t| {
            let k = slots.partition_point(|s| s.0 < t);
            slots.get(k).filter(|s| s.0 == t).map(|s| s.1.as_str())
        });
        let n = match found {
            Some(f) => format!("{f}@plt"),
            None => format!("offset_{:#x}@plt", off + i),
        };
        table.push_synthetic(off + i, entsize, &n);
        i += entsize;
    }
    Ok(())
}

/// The target of a PLT entry's `jmp *disp(%rip)` relative to the entry's
/// start (after an optional `endbr64` and `bnd` prefix), as perf decodes it.
fn x86_64_jump_displacement(p: &[u8]) -> Option<u64> {
    let mut n = 0;
    if p.starts_with(&[0xf3, 0x0f, 0x1e, 0xfa]) {
        n += 4;
    }
    if p.get(n) == Some(&0xf2) {
        n += 1;
    }
    if p.get(n..n + 2) != Some(&[0xff, 0x25][..]) {
        return None;
    }
    let d = p.get(n + 2..n + 6)?;
    let disp = i32::from_le_bytes([d[0], d[1], d[2], d[3]]);
    Some(((n + 6) as i64 + i64::from(disp)) as u64)
}

#[cfg(test)]
mod tests {
    use super::super::elf::Image;
    use super::super::symtab::ElfSymbols;
    use super::*;
    use object::{Object, ObjectSegment};

    /// Every PLT entry objdump labels (`.plt`, `.plt.sec` of a CET binary,
    /// `.plt.got`) has that name here, at its file offset.
    #[test]
    fn names_equal_objdumps_labels() {
        let labels = std::fs::read_to_string("testdata/user/plt.txt").unwrap();
        let bin = "testdata/user/symfs/tmp/diffprofile-user/bin";
        let tmp = tempfile::tempdir().unwrap();
        let gunzip = |rel: &str| {
            let gz = std::fs::read(format!("{bin}/{rel}.gz")).unwrap();
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut out)
                .unwrap();
            let at = tmp.path().join(rel.replace('/', "_"));
            std::fs::write(&at, out).unwrap();
            Image::open(&at).unwrap()
        };
        let mut checked = 0;
        for block in labels.split("==> ").skip(1) {
            let (name, lines) = block.split_once('\n').unwrap();
            let runtime = gunzip(name);
            let syms = match name {
                "cprog" => gunzip("cprog.debug"),
                "cxxprog" => gunzip(".debug/cxxprog.debug"),
                _ => gunzip(name),
            };
            let table = ElfSymbols::build(&syms, &runtime, false).unwrap();
            let file = object::File::parse(runtime.data()).unwrap();
            for line in lines.lines() {
                let (addr, label) = line.split_once(' ').unwrap();
                let addr = u64::from_str_radix(addr, 16).unwrap();
                let label = label.trim_start_matches('<').trim_end_matches(">:");
                let seg = file
                    .segments()
                    .find(|s| addr >= s.address() && addr < s.address() + s.size())
                    .unwrap();
                let off = addr - seg.address() + seg.file_range().0;
                assert_eq!(table.lookup(off).as_deref(), Some(label), "{name} {line}");
                assert_eq!(
                    table.lookup(off + 7).as_deref(),
                    Some(label),
                    "{name} {line}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 32);
    }

    #[test]
    fn jump_displacement() {
        // endbr64; bnd jmp *0x2f7d(%rip)
        let e = [
            0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0x7d, 0x2f, 0x00, 0x00,
        ];
        assert_eq!(x86_64_jump_displacement(&e), Some(11 + 0x2f7d));
        // jmp *-0x10(%rip)
        let e = [0xff, 0x25, 0xf0, 0xff, 0xff, 0xff];
        assert_eq!(x86_64_jump_displacement(&e), Some((6i64 - 16) as u64));
        assert_eq!(x86_64_jump_displacement(&[0x90; 8]), None);
        assert_eq!(x86_64_jump_displacement(&[0xff, 0x25, 1]), None);
    }
}
