#!/usr/bin/env python3
"""Make testdata/demangle/cxx.tsv.gz: C++ symbol names and what binutils'
`c++filt -p -i` (libiberty without parameters, as perf report calls it)
prints for them, one `library<TAB>mangled<TAB>c++filt` line each.

Usage: python3 scripts/testdata-demangle.py [OUT]
       (Debian 12: binutils, libstdc++6, libllvm15; rustup's stable toolchain)

Rows, per corpus (names sorted, versions cut):
  - libstdc++.so.6 and libLLVM-15.so.1 (nm -D --defined-only): every 15th
    name, plus the first 60 of each hard shape not already taken;
  - rustc's libLLVM.so.22 (its .symtab, `nm`): every 150th name, plus the
    first 25 of each hard shape (pack expansions of references, lambdas
    and local types as template arguments, function types, default
    arguments, names c++filt refuses and shows raw).
scripts/check-demangle.sh compares every name of those libraries.
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

def pick(rows, every, hard, per_shape):
    take = set(range(0, len(rows), every))
    for pat in hard:
        hits = [i for i, r in enumerate(rows)
                if (pat == "RAW" and r[1] == r[2]) or (pat != "RAW" and re.search(pat, r[2]))]
        take.update([i for i in hits if i not in take][:per_shape])
    return [rows[i] for i in sorted(take)]

HARD = [r" \(", r"decltype\(nullptr\)", r"^vtable for", r"^VTT for", r"&\(",
        r"\) const::", r"^construction vtable", r"^typeinfo", r"::\{lambda",
        r"std::(istream|ostream|iostream|string)\b", r"\d+u[l]*\b"]
HARD22 = [r"\)#1\}&&, ", r"\) const>", r"&\(void ", r"\{default arg#", r"::operator\(\)\(",
          r"processBuildVector", r"BlockScheduling::schedule", r"LazyCallGraph::SCC&",
          r"PrevailingType \(", r"\(auto:1&\)\.\.\.", r"auto:\d+&&", r"&&, [^>]*&, ",
          r"\)::[A-Za-z_$][A-Za-z_0-9$]*[,>]", r"\$_\d+[,>]", r"\{unnamed type#",
          r"\[abi:", r"sizeof\.\.\.", r"decltype \(", r"RAW"]

rows = []
for lib in ["libstdc++.so.6", "libLLVM-15.so.1"]:
    ms = names(os.path.join(LIB, lib))
    rows += [(lib, m, w) for m, w in zip(ms, cxxfilt(ms))]
rows.sort(key=lambda r: r[1])
sample = pick(rows, 15, HARD, 60)

llvm22 = sorted(glob.glob(os.path.expanduser(
    "~/.rustup/toolchains/stable-*/lib/libLLVM.so.*-rust-*")))
if llvm22:
    ms = names(llvm22[0], dynamic=False)
    lib = os.path.basename(llvm22[0])
    sample += pick([(lib, m, w) for m, w in zip(ms, cxxfilt(ms))], 150, HARD22, 25)

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with gzip.GzipFile(OUT, "wb", mtime=0) as f:
    f.write("".join(f"{l}\t{m}\t{w}\n" for l, m, w in sample).encode())
print(f"{OUT}: {len(sample)} names", file=sys.stderr)
