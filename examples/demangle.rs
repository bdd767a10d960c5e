//! Names as diffprofile shows them, for scripts/check-demangle.sh: one
//! linker name a line on stdin, its demangled form (or the name itself
//! when it is not mangled) a line on stdout, as `c++filt -p -i` does.

use std::io::{BufRead, BufWriter, Write};

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.split(b'\n') {
        let line = line?;
        let name = String::from_utf8_lossy(&line);
        match diffprofile::format::perf_data::demangle(&name) {
            Some(d) => writeln!(out, "{d}")?,
            None => writeln!(out, "{name}")?,
        }
    }
    out.flush()
}
