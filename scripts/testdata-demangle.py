#!/usr/bin/env python3
"""Make testdata/demangle/cxx.tsv.gz: C++ symbol names and what binutils'
`c++filt -p -i` (libiberty without parameters, as perf report calls it)
prints for them, one `library<TAB>mangled<TAB>c++filt` line each.

Usage: python3 scripts/testdata-demangle.py [OUT]
       (Debian: binutils, libstdc++6, libllvm15; rustup's stable toolchain)

Rows: every 15th exported C++ name of libstdc++.so.6 and libLLVM-15.so.1
(nm -D --defined-only, versions cut, sorted), plus the first 60 names of
each hard shape (function types, nullptr, vtables, local names, function
addresses, literals) not already taken; then the first 2 names of each
known hard shape of rustc's libLLVM-22 (.symtab, `nm`), the library the
issue's names came from, most of which diffprofile still spells otherwise
(the test lists them; docs/inputs.md says why).
"""
import glob, gzip, os, re, subprocess, sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "testdata/demangle/cxx.tsv.gz"
LIB = "/usr/lib/x86_64-linux-gnu"

def names(path, dynamic=True):
    args = ["nm", "-D", "--defined-only", path] if dynamic else ["nm", path]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    found = {l.split()[-1].split("@")[0] for l in out.splitlines() if l.split()}
    return sorted(n for n in found if n.startswith("_Z"))

def cxxfilt(ms):
    out = subprocess.run(["c++filt", "-p", "-i"], input="\n".join(ms) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()

rows = []
for lib in ["libstdc++.so.6", "libLLVM-15.so.1"]:
    ms = names(os.path.join(LIB, lib))
    rows += [(lib, m, w) for m, w in zip(ms, cxxfilt(ms))]
rows.sort(key=lambda r: r[1])
take = {i for i in range(0, len(rows), 15)}
HARD = [r" \(", r"decltype\(nullptr\)", r"^vtable for", r"^VTT for", r"&\(",
        r"\) const::", r"^construction vtable", r"^typeinfo", r"::\{lambda",
        r"std::(istream|ostream|iostream|string)\b", r"\d+u[l]*\b"]
for pat in HARD:
    hits = [i for i, r in enumerate(rows) if re.search(pat, r[2]) and i not in take]
    take.update(hits[:60])
sample = [rows[i] for i in sorted(take)]

llvm22 = sorted(glob.glob(os.path.expanduser(
    "~/.rustup/toolchains/stable-*/lib/libLLVM.so.*-rust-*")))
if llvm22:
    ms = names(llvm22[0], dynamic=False)
    ws = cxxfilt(ms)
    lib = os.path.basename(llvm22[0])
    for pat in [r"\)#1\}&&, ", r"\) const>", r"&\(void ", r"\{default arg#",
                r"::operator\(\)\(", r"processBuildVector", r"BlockScheduling::schedule",
                r"LazyCallGraph::SCC&", r"PrevailingType \("]:
        hits = [(lib, m, w) for m, w in zip(ms, ws) if re.search(pat, w)]
        sample += [h for h in hits[:2] if h not in sample]

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with gzip.GzipFile(OUT, "wb", mtime=0) as f:
    f.write("".join(f"{l}\t{m}\t{w}\n" for l, m, w in sample).encode())
print(f"{OUT}: {len(sample)} names", file=sys.stderr)
