//! Kernel symbol maps: `System.map` and `/proc/kallsyms`.
//!
//! Input: the text of either file, compressed or not (the reader goes through
//! [`crate::input::decompress`]); every line is `ADDRESS TYPE NAME [MODULE]`
//! separated by spaces or tabs (`ffffffff81000010 T do_schedule`,
//! `ffffffffc0a8e000 t kvm_init\t[kvm]`). Output: a [`SymbolMap`] that keeps
//! the lines in file order, which is what readprofile walks (see
//! [`crate::format::proc_profile`]), plus a sorted address index built the
//! way perf builds its kernel symbol table (see [`SymbolMap::perf_index`]).
//! Bad lines are errors that name the file and line; blank lines are skipped.
//! Which of the maps beside a profile it uses: [`beside`].

mod beside;

pub use beside::{name_release, Beside, Choice, MapAdvice, MapFile, Reader};

use crate::input;
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::sync::OnceLock;

/// One line of a map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapSymbol {
    pub addr: u64,
    /// The type letter (`T`, `t`, `W`, `D`, …): the first character of the field.
    pub kind: u8,
    pub name: String,
    /// `[kvm]` → `kvm`, for kallsyms lines of module symbols.
    pub module: Option<String>,
}

impl MapSymbol {
    /// Text symbols as readprofile sees them (`T`, `t`, `W`, `w`).
    pub fn is_text(&self) -> bool {
        matches!(self.kind, b'T' | b't' | b'W' | b'w')
    }
}

/// A symbol of perf's kernel table: `[start, end)` and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranged {
    pub start: u64,
    pub end: u64,
    /// Index into [`SymbolMap::symbols`].
    pub index: usize,
}

/// A whole map, in file order.
#[derive(Debug, Default)]
pub struct SymbolMap {
    /// Where the map was read from (for messages).
    pub source: String,
    pub symbols: Vec<MapSymbol>,
    perf: OnceLock<Vec<Ranged>>,
}

impl SymbolMap {
    /// Read a map file (any compression [`crate::input`] knows).
    pub fn read_path(path: &str) -> Result<SymbolMap> {
        let f = File::open(input::os_path(path))
            .with_context(|| format!("{path}: cannot open symbol map"))?;
        let raw: Box<dyn BufRead> = Box::new(BufReader::with_capacity(input::BUF_SIZE, f));
        let (_, reader) =
            input::decompress(raw).with_context(|| format!("{path}: cannot read symbol map"))?;
        SymbolMap::parse(reader, path)
    }

    /// Parse map text; `source` names it in errors.
    pub fn parse(mut reader: impl BufRead, source: &str) -> Result<SymbolMap> {
        let head = reader
            .fill_buf()
            .with_context(|| format!("{source}: cannot read symbol map"))?;
        if let Some(what) = input::unread_encoding(head) {
            bail!("{source}: {what}");
        }
        if head.starts_with(input::BOM) {
            reader.consume(input::BOM.len());
        }
        let mut symbols = Vec::new();
        let mut line = Vec::new();
        let mut line_no = 0u64;
        loop {
            line.clear();
            let n = Read::take(&mut reader, crate::text::MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut line)
                .with_context(|| format!("{source}: cannot read symbol map"))?;
            if n == 0 {
                break;
            }
            line_no += 1;
            if n > crate::text::MAX_LINE {
                bail!(
                    "{source}:{line_no}: expected a symbol map line of at most {} MiB, found \"{}\"",
                    crate::text::MAX_LINE >> 20,
                    crate::text::excerpt(&line[..80])
                );
            }
            let mut fields = line
                .split(|c| c.is_ascii_whitespace())
                .filter(|f| !f.is_empty());
            let Some(addr) = fields.next() else { continue };
            let (Some(kind), Some(name)) = (fields.next(), fields.next()) else {
                bail!(
                    "{source}:{line_no}: expected a symbol map line `ADDRESS TYPE NAME [MODULE]`, found \"{}\"{}",
                    crate::text::excerpt(&line),
                    not_a_map(line_no, &line)
                );
            };
            let module = fields.next();
            let hex = addr.strip_prefix(b"0x").unwrap_or(addr);
            let addr = std::str::from_utf8(hex)
                .ok()
                .and_then(|h| u64::from_str_radix(h, 16).ok());
            let module = match module {
                None => None,
                Some(m) if m.len() >= 2 && m[0] == b'[' && m[m.len() - 1] == b']' => {
                    Some(crate::text::decode(&m[1..m.len() - 1]).into_owned())
                }
                Some(_) => None,
            };
            let Some(addr) = addr.filter(|_| kind.len() <= 7 && fields.next().is_none()) else {
                bail!(
                    "{source}:{line_no}: expected a symbol map line `ADDRESS TYPE NAME [MODULE]` with a hexadecimal address, found \"{}\"{}",
                    crate::text::excerpt(&line),
                    not_a_map(line_no, &line)
                );
            };
            symbols.push(MapSymbol {
                addr,
                kind: kind[0],
                name: crate::text::decode(name).into_owned(),
                module,
            });
        }
        if symbols.is_empty() {
            bail!("{source}: empty symbol map");
        }
        if symbols.iter().all(|s| s.addr == 0) {
            bail!("{}", zero_addresses(source));
        }
        Ok(SymbolMap {
            source: source.to_string(),
            symbols,
            perf: OnceLock::new(),
        })
    }

    /// Where the kernel text of a map is out of address order: the first
    /// pair of text symbols between `stext` and `etext` (addresses) whose
    /// file order is not their address order, as (earlier, later) indices.
    /// System.map (`nm -n`) and kallsyms list the kernel's text sorted, and
    /// readprofile walks the lines in file order: a map sorted some other
    /// way (by name, reversed, edited by hand) folds ticks onto the wrong
    /// symbols.
    pub fn text_out_of_order(&self, stext: u64, etext: u64) -> Option<(usize, usize)> {
        let mut last: Option<usize> = None;
        for (i, s) in self.symbols.iter().enumerate() {
            if s.addr < stext || s.addr > etext || !(s.is_text() || s.addr == etext) {
                continue;
            }
            if let Some(j) = last {
                if s.addr < self.symbols[j].addr {
                    return Some((j, i));
                }
            }
            last = Some(i);
        }
        None
    }

    /// The same map with its lines sorted by address (file order kept among
    /// equal addresses), as `nm -n` writes System.map.
    pub fn sorted_by_address(&self) -> SymbolMap {
        let mut symbols = self.symbols.clone();
        symbols.sort_by_key(|s| s.addr);
        SymbolMap {
            source: self.source.clone(),
            symbols,
            perf: OnceLock::new(),
        }
    }

    /// The names of the text symbols the kernel put in its idle text,
    /// `[__cpuidle_text_start, __cpuidle_text_end)` (the functions marked
    /// `__cpuidle`: every idle routine of this very kernel, whatever its
    /// name); empty when the map lacks either mark.
    pub fn cpuidle_names(&self) -> std::collections::BTreeSet<String> {
        let (Some(start), Some(end)) = (
            self.address_of("__cpuidle_text_start"),
            self.address_of("__cpuidle_text_end"),
        ) else {
            return Default::default();
        };
        self.symbols
            .iter()
            .filter(|s| s.is_text() && s.addr >= start && s.addr < end && s.module.is_none())
            .filter(|s| !s.name.starts_with("__cpuidle_text_") && !is_padding(&s.name))
            .map(|s| s.name.clone())
            .collect()
    }

    /// The address of the first symbol named `name`.
    pub fn address_of(&self, name: &str) -> Option<u64> {
        self.symbols.iter().find(|s| s.name == name).map(|s| s.addr)
    }

    /// True when every address is zero (kallsyms read without privilege).
    /// A map of global text symbols only (`grep ' T ' /proc/kallsyms`, a
    /// System.map cut the same way): every kernel has hundreds of static
    /// (`t`) functions, whose samples such a map gives to the global
    /// symbol before them without a sign. The warning, when it is one.
    pub fn lacks_locals(&self) -> Option<String> {
        let text = self.symbols.iter().filter(|s| s.is_text()).count();
        let local = self
            .symbols
            .iter()
            .any(|s| matches!(s.kind, b't' | b'w') && s.module.is_none());
        (text >= 100 && !local).then(|| {
            format!(
                "the kernel map {} lists {text} text symbols, none of them local (`t`): it was \
                 cut to global symbols (grep ' T '?), so the samples of static functions are \
                 counted for the global symbol before them; give the whole /proc/kallsyms or \
                 System.map",
                self.source
            )
        })
    }

    pub fn all_zero(&self) -> bool {
        self.symbols.iter().all(|s| s.addr == 0)
    }

    /// perf's kernel symbol table (tools/perf/util/symbol.c, perf 6.1):
    /// symbols of type `T W D B` in either case plus `u` and `l`
    /// (`symbol_type__filter`), sorted by address with file order kept among
    /// equal addresses; each ends where the next begins (`symbols__fixup_end`;
    /// at a kernel/module boundary and for the last symbol: the next page
    /// after the one holding it); of symbols sharing a start only the last
    /// keeps a non-zero size, so perf's `choose_best_symbol` (prefer non-zero
    /// size) keeps it. Zero-size symbols are dropped.
    pub fn perf_index(&self) -> &[Ranged] {
        self.perf.get_or_init(|| {
            let mut v: Vec<(u64, usize)> = self
                .symbols
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    matches!(s.kind.to_ascii_uppercase(), b'T' | b'W' | b'D' | b'B')
                        || matches!(s.kind, b'u' | b'l')
                })
                .filter(|(_, s)| !s.name.starts_with('$'))
                .map(|(i, s)| (s.addr, i))
                .collect();
            v.sort_by_key(|&(a, i)| (a, i));
            // roundup(start, 4096) + 4096
            let page_after = |a: u64| (a.saturating_add(4095) & !4095).saturating_add(4096);
            let mut out = Vec::with_capacity(v.len());
            for (k, &(start, index)) in v.iter().enumerate() {
                let end = match v.get(k + 1) {
                    Some(&(next, ni)) => {
                        let m1 = self.symbols[index].module.is_some();
                        let m2 = self.symbols[ni].module.is_some();
                        if m1 != m2 {
                            // roundup(start + 4096, 4096)
                            (start.saturating_add(4096).saturating_add(4095)) & !4095
                        } else {
                            next
                        }
                    }
                    None => page_after(start),
                };
                if end > start {
                    out.push(Ranged { start, end, index });
                }
            }
            out
        })
    }

    /// The symbol perf would name for a kernel address.
    pub fn perf_lookup(&self, addr: u64) -> Option<&MapSymbol> {
        let idx = self.perf_index();
        let k = idx.partition_point(|r| r.start <= addr);
        let r = idx.get(k.checked_sub(1)?)?;
        (addr < r.end).then(|| &self.symbols[r.index])
    }
}

/// What a file that fails on its first line is, when it is no map at
/// all (a perf.data recording, a profile), and how a map is made.
fn not_a_map(line_no: u64, line: &[u8]) -> &'static str {
    if line_no > 1 {
        return "";
    }
    if line.starts_with(b"PERFILE2") || line.starts_with(b"PERFFILE") {
        "; this is a perf.data recording, not a kernel map: give the recording as a profile \
         and its kernel's symbols as the map, saved on that kernel with \
         `sudo cat /proc/kallsyms > kallsyms`"
    } else {
        "; a kernel map is /proc/kallsyms or System.map: save it on the recorded kernel with \
         `sudo cat /proc/kallsyms > kallsyms`"
    }
}

/// A map whose every address is zero: /proc/kallsyms as a user who may
/// not see kernel addresses reads it (`kernel.kptr_restrict`; with 0 a
/// user also needs `kernel.perf_event_paranoid` <= 1).
fn zero_addresses(source: &str) -> String {
    if source == "/proc/kallsyms" {
        format!(
            "{source}: every address reads as 0: this user may not see kernel addresses \
             (kernel.kptr_restrict {}, kernel.perf_event_paranoid {}); run diffprofile as root, \
             or let every user see them: `sudo sysctl kernel.kptr_restrict=0 \
             kernel.perf_event_paranoid=1`",
            sysctl("kptr_restrict"),
            sysctl("perf_event_paranoid")
        )
    } else {
        format!(
            "{source}: every address is 0: it was saved by a user who may not see kernel \
             addresses (kernel.kptr_restrict); save it again as root, on the kernel the runs \
             were recorded on: `sudo cat /proc/kallsyms > {source}`"
        )
    }
}

/// A kernel setting as `/proc/sys/kernel/NAME` holds it, or `?`.
fn sysctl(name: &str) -> String {
    std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "?".to_string())
}

/// Function padding: the filler before each function (`__pfx_*` with call
/// padding, `__cfi_*` with kCFI), which the CPU does not execute in a
/// kernel without call-depth tracking. Samples there mean that the map is
/// not the sampled kernel's.
pub fn is_padding(name: &str) -> bool {
    name.starts_with("__pfx_") || name.starts_with("__cfi_")
}

#[cfg(test)]
mod tests {
    use super::*;

    const KALLSYMS: &str = "ffffffff81000000 T _text\n\
ffffffff81000000 T startup_64\n\
ffffffff81000040 t __pfx_x\n\
ffffffff81000050 T x\n\
ffffffff81000060 d some_data\n\
ffffffff81000080 r rodata_thing\n\
ffffffffc0000000 t mod_fn\t[kvm]\n";

    #[test]
    fn parses_kallsyms_and_system_map_lines() {
        let m = SymbolMap::parse(KALLSYMS.as_bytes(), "k").unwrap();
        assert_eq!(m.symbols.len(), 7);
        assert_eq!(m.symbols[6].module.as_deref(), Some("kvm"));
        assert_eq!(m.symbols[6].name, "mod_fn");
        assert_eq!(m.address_of("x"), Some(0xffffffff81000050));
    }

    #[test]
    fn perf_lookup_follows_perf_rules() {
        let m = SymbolMap::parse(KALLSYMS.as_bytes(), "k").unwrap();
        // Aliases at one address: the last in file order wins.
        assert_eq!(
            m.perf_lookup(0xffffffff81000000).unwrap().name,
            "startup_64"
        );
        assert_eq!(m.perf_lookup(0xffffffff8100004f).unwrap().name, "__pfx_x");
        assert_eq!(m.perf_lookup(0xffffffff8100005f).unwrap().name, "x");
        // `d` counts, `r` is filtered: some_data runs to the module boundary page.
        assert_eq!(m.perf_lookup(0xffffffff81000090).unwrap().name, "some_data");
        assert!(m.perf_lookup(0xffffffff81002000).is_none());
        assert!(m.perf_lookup(0xffffffff80000000).is_none());
        assert_eq!(m.perf_lookup(0xffffffffc0000fff).unwrap().name, "mod_fn");
        assert!(m.perf_lookup(0xffffffffc0001000).is_none());
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let e = SymbolMap::parse("ffff T a\nzz T b\n".as_bytes(), "m").unwrap_err();
        assert!(e.to_string().starts_with("m:2: expected"), "{e}");
        let e = SymbolMap::parse("ffff T\n".as_bytes(), "m").unwrap_err();
        assert!(e.to_string().starts_with("m:1: expected"), "{e}");
        assert!(SymbolMap::parse("\n".as_bytes(), "m").is_err());
        // Not a map at all: what it is, and how a map is made.
        let e = SymbolMap::parse(&b"PERFILE2h\0\0\0"[..], "r.data").unwrap_err();
        assert!(
            e.to_string()
                .contains("this is a perf.data recording, not a kernel map"),
            "{e}"
        );
        assert!(
            e.to_string()
                .ends_with("`sudo cat /proc/kallsyms > kallsyms`"),
            "{e}"
        );
    }

    /// kallsyms saved by a user who may not see kernel addresses: every
    /// address is 0. The error says why and the command that fixes it.
    #[test]
    fn zero_addresses_are_explained() {
        let zeros = "0000000000000000 T _text\n0000000000000000 T do_one\n";
        let e = SymbolMap::parse(zeros.as_bytes(), "v6.8/kallsyms")
            .unwrap_err()
            .to_string();
        assert!(e.contains("kernel.kptr_restrict"), "{e}");
        assert!(
            e.ends_with("`sudo cat /proc/kallsyms > v6.8/kallsyms`"),
            "{e}"
        );
        let e = SymbolMap::parse(zeros.as_bytes(), "/proc/kallsyms")
            .unwrap_err()
            .to_string();
        assert!(e.contains("run diffprofile as root"), "{e}");
        assert!(
            e.ends_with("`sudo sysctl kernel.kptr_restrict=0 kernel.perf_event_paranoid=1`"),
            "{e}"
        );
        // One real address is enough.
        let one = "0000000000000000 A fixed_percpu_data\nffffffff81000000 T _text\n";
        assert!(SymbolMap::parse(one.as_bytes(), "k").is_ok());
    }
}
