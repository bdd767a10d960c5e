#!/usr/bin/env python3
"""Compare every row of `perf report --no-children --sort dso,sym -n` with
diffprofile's rows from the same perf.data: name and sample count, kernel
and user space.

Usage:
    cargo build --release
    python3 scripts/check-user-symbols.py DATA [-- DIFFPROFILE_ARGS...]
    python3 scripts/check-user-symbols.py DATA --perf-args "--symfs DIR" -- --symfs DIR

perf report runs here (it needs the same binaries and debug files, or
--symfs), unless --report FILE gives its saved output (made with the same
flags and `-t $'\\x1f'`, or the default aligned columns). Both sides use
diffprofile's convention for unresolved samples: perf report's `0x...` rows
(one per address) are summed per dso into one `[unknown]` row. Dsos are
compared by perf's short name (the basename; `[JIT] tid N` for
/tmp/perf-N.map). Prints every differing row, marking those that perf
6.1's PLT naming explains (docs/inputs.md, "Rows that still differ from perf
report"), and a summary; exits 1 when a row differs for another reason.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEP = "\x1f"


def short_dso(dso):
    m = re.fullmatch(r"/tmp/perf-(\d+)\.map", dso or "")
    if m:
        return "[JIT] tid " + m.group(1)
    if dso is None:
        return "[unknown]"
    if dso.startswith("["):
        return dso
    return os.path.basename(dso)


def perf_rows(text):
    """(dso, symbol) -> samples, from perf report text (separated or aligned)."""
    rows = collections.Counter()
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if SEP in line:
            f = [x.strip() for x in line.split(SEP)]
            if len(f) < 4:
                continue
            count, dso, sym = f[1], f[2], f[3]
        else:
            m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(.*?)\s+(\[[.kgHu]\] .*)$", line)
            if not m:
                continue
            count, dso, sym = m.groups()
        m = re.match(r"\[([.kgHu])\] (.*)$", sym)
        if not m or not count.isdigit():
            continue
        name = m.group(2).rstrip()
        if re.fullmatch(r"0x[0-9a-f]+", name):
            name = "[unknown]"
        rows[(dso, name)] += int(count)
    return rows


def ours(data, args, binary):
    cmd = [binary, "-o", "json", "-n", "ticks", "--keep-suffixes", "--sort", "name", *args, data, data]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"diffprofile failed: {' '.join(cmd)}\n{r.stderr}")
    d = json.loads(r.stdout)
    rows = collections.Counter()
    for row in d["rows"]:
        if row["symbol"] in ("*unknown*", "*unlisted*"):
            continue
        rows[(short_dso(row.get("dso")), row["symbol"])] += int(round(sum(row["old_counts"])))
    return rows, d.get("warnings", [])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("--report", help="saved perf report output instead of running perf")
    ap.add_argument("--perf-args", default="", help="extra perf report arguments (e.g. '--symfs DIR')")
    ap.add_argument("--diffprofile", default=os.path.join(ROOT, "target/release/diffprofile"))
    ap.add_argument("--quiet", action="store_true", help="summary only")
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.rest = rest
    if a.report:
        text = open(a.report, encoding="utf-8", errors="replace").read()
    else:
        cmd = ["perf", "report", "-i", a.data, "--stdio", "--no-children", "--sort", "dso,sym",
               "-n", "-g", "none", "-t", SEP, *a.perf_args.split()]
        text = subprocess.run(cmd, capture_output=True, text=True, errors="replace").stdout
    perf = perf_rows(text)
    mine, warnings = ours(a.data, a.rest, a.diffprofile)
    keys = sorted(set(perf) | set(mine), key=lambda k: (-max(perf[k], mine[k]), k))
    same = [k for k in keys if perf[k] == mine[k]]
    diff = [k for k in keys if perf[k] != mine[k]]
    known = plt_differences(perf, mine, diff)
    kernel = lambda dso: dso == "[kernel.kallsyms]" or (
        re.fullmatch(r"\[[\w-]+\]", dso) and dso not in ("[vdso]", "[unknown]"))
    user = lambda ks: [k for k in ks if not kernel(k[0])]
    if not a.quiet:
        for k in diff:
            why = "  (docs/inputs.md: perf 6.1 PLT names)" if k in known else ""
            print(f"DIFFERS  {k[0]:<28} {k[1][:90]:<90}  perf {perf[k]:>7}  diffprofile {mine[k]:>7}{why}")
        for w in warnings:
            print("warning:", w[:400])
    tp, tm = sum(perf.values()), sum(mine.values())
    print(f"rows: {len(keys)} ({len(user(keys))} user space); same name and count: {len(same)} "
          f"({len(user(same))} user space); differing: {len(diff)} ({len(user(diff))} user space)")
    print(f"samples: perf report {tp}, diffprofile {tm}; in differing rows: perf "
          f"{sum(perf[k] for k in diff)}, diffprofile {sum(mine[k] for k in diff)}")
    print(f"differing rows explained by perf 6.1's PLT naming (docs/inputs.md): {len(known)}; "
          f"unexplained: {len(diff) - len(known)}")
    sys.exit(1 if len(diff) > len(known) else 0)


def plt_differences(perf, mine, diff):
    """Differing rows that perf 6.1's PLT naming explains (docs/inputs.md, "Rows
    that differ from perf report 6.1"): per dso, diffprofile's extra `.plt`
    and `name@plt` samples equal perf's extra `_init`, `[unknown]` and
    `name@plt` (entries named in relocation order) samples."""
    known = set()
    for dso in {k[0] for k in diff}:
        rows = [k for k in diff if k[0] == dso]
        plt = lambda n: n == ".plt" or n.endswith("@plt")
        ours = [k for k in rows if mine[k] > perf[k] and plt(k[1])]
        theirs = [k for k in rows if perf[k] > mine[k] and (plt(k[1]) or k[1] in ("_init", "[unknown]"))]
        extra = sum(mine[k] - perf[k] for k in ours)
        if ours and extra == sum(perf[k] - mine[k] for k in theirs):
            known.update(ours + theirs)
    return known


if __name__ == "__main__":
    main()
