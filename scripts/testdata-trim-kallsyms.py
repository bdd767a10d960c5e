#!/usr/bin/env python3
# usage: perf script -F ip -i A.data | python3 scripts/testdata-trim-kallsyms.py /proc/kallsyms > kallsyms
# Keeps _text, every line at the start address of a symbol (perf's type
# filter: T W D B in any case, u, l) that holds a sampled address, and every
# line at the next such start (its end).
import sys, bisect
lines = open(sys.argv[1]).read().splitlines()
rows = []
for i, l in enumerate(lines):
    f = l.split()
    rows.append((int(f[0], 16), f[1], i))
keep_t = lambda t: t.upper() in "TWDB" or t in "ul"
starts = sorted({a for a, t, i in rows if keep_t(t)})
want = set()
for tok in sys.stdin.read().split():
    ip = int(tok, 16)
    if ip < 0xffff800000000000:
        continue
    k = bisect.bisect_right(starts, ip) - 1
    if k >= 0:
        want.add(starts[k])
        if k + 1 < len(starts):
            want.add(starts[k + 1])
for a, t, i in rows:
    if a in want or lines[i].split()[2] == "_text":
        print(lines[i])
