#!/usr/bin/env python3
"""Acceptance check against the producing tools, on a fresh recording set
made by `scripts/record-testdata.sh DIR` (not the committed testdata):
per-symbol counts equal perf report's and readprofile's own, classic rows
equal new - old ticks, readprofile default/-v/sorted dumps give identical
JSON rows, text fits 80 columns, the JSON carries the contract's keys.

Usage: cargo build --release; python3 scripts/check-counts.py /tmp/fresh
"""
import json, subprocess, glob, re, sys, collections
import os
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DP = os.path.join(ROOT, "target/release/diffprofile")
FRESH = sys.argv[1] if len(sys.argv) > 1 else "/tmp/fresh"
def dp(*args):
    r = subprocess.run([DP, *args], capture_output=True, text=True)
    return r
def tool_counts_perf(path):
    c = collections.Counter(); 
    for line in open(path):
        m = re.match(r'\s+([\d.]+)%\s+(\d+)\s+\[(.)\]\s+(.*?)\s*$', line)
        if m: c[m.group(4)] += int(m.group(2))
    return c
def tool_counts_rp(path):
    c = collections.Counter()
    for line in open(path):
        f = line.split()
        if len(f) >= 3 and f[1] not in ('total', '*unknown*') and f[0].isdigit():
            c[f[1]] += int(f[0])
        elif len(f) == 4 and re.match(r'^[0-9a-f]{16}$', f[0]) and f[1] != 'total':
            c[f[1]] += int(f[2])
    return c
def dp_counts(path):
    r = dp(path, path, "-o", "json", "-n", "ticks", "--keep-suffixes")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    c = collections.Counter()
    for row in d["rows"]:
        if row["symbol"] in ("*unknown*", "*unlisted*"): continue
        c[row["symbol"]] += sum(row["old_counts"])
    return c, d
bad = 0; checked = 0; syms = 0
for path in sorted(glob.glob(FRESH + "/perf-report/sym-n/*/*.txt")):
    a = tool_counts_perf(path); b, d = dp_counts(path); checked += 1; syms += len(a)
    if a != b: bad += 1; print("MISMATCH", path, (a - b), (b - a))
for path in sorted(glob.glob(FRESH + "/readprofile/*/*/*.txt")):
    a = tool_counts_rp(path); b, d = dp_counts(path); checked += 1; syms += len(a)
    if a != b: bad += 1; print("MISMATCH", path, list((a - b).items())[:5], list((b - a).items())[:5])
print(f"counts: {checked} files, {syms} symbol rows, {bad} mismatches")
# classic rows = new - old ticks
cbad = 0; crows = 0
for w1, w2 in [("sockets","pipes"),("pipes","threads")]:
    for n in range(1,5):
        o = f"{FRESH}/readprofile/default/{w1}/run{n}.txt"; nw = f"{FRESH}/readprofile/default/{w2}/run{n}.txt"
        a, b = tool_counts_rp(o), tool_counts_rp(nw)
        r = dp(o, nw, "-o", "classic", "--keep-suffixes")
        for line in r.stdout.splitlines():
            f = line.split()
            if f[-1] in ('*','~'): f = f[:-1]
            if len(f) < 3 or f[0] == '...': continue
            name = " ".join(f[2:]); delta = int(f[0]); crows += 1
            if name == 'total':
                exp = sum(b.values()) - sum(a.values())  # no *unknown* in these
            elif name == '*unknown*': continue
            else: exp = b[name] - a[name]
            if delta != exp: cbad += 1; print("CLASSIC MISMATCH", o, name, delta, exp)
print(f"classic: {crows} rows, {cbad} mismatches")
# default / -v / sorted identical JSON rows
vbad = 0
for w in ["sockets","pipes","threads"]:
    for n in range(1,5):
        js = []
        for v in ["default","verbose","sorted"]:
            p = f"{FRESH}/readprofile/{v}/{w}/run{n}.txt"
            js.append(json.loads(dp(p, p, "-o", "json").stdout)["rows"])
        if not (js[0] == js[1] == js[2]): vbad += 1; print("VARIANT MISMATCH", w, n)
print(f"readprofile variants: 12 recordings x 3 dumps, {vbad} mismatches")
# text width, JSON contract keys
r = dp(FRESH + "/perf-report/sym-n/pipes", FRESH + "/perf-report/sym-n/threads")
title = [l for l in r.stdout.splitlines() if l.lstrip().startswith("delta")][0]; at = title.index("symbol")
over = [l for l in r.stdout.splitlines() if len(l) > 80 and len(l[at:]) <= 80 - at]
print("text: symbol column at", at, "; lines over 80 with names <= %d chars:" % (80-at), len(over))
d = json.loads(dp(FRESH + "/perf-report/sym-n/pipes", FRESH + "/perf-report/sym-n/threads", "-o", "json").stdout)
need_top = ["version","normalize","unit","event","sides","rows","total","untested","warnings"]
need_row = ["symbol","status","old","new","delta","delta_ci","ratio","ratio_ci","p","q","significant","old_counts","new_counts"]
print("json top-level keys missing:", [k for k in need_top if k not in d], "; row keys missing:", [k for k in need_row if k not in d["rows"][0]], "; version", d["version"])
r = dp(ROOT + "/testdata/malformed/readprofile-bad-count.txt", FRESH + "/readprofile/default/pipes/run1.txt")
print("malformed: exit", r.returncode, r.stderr.strip()[:120])
