#!/usr/bin/env python3
"""Acceptance check of the perf script and folded parsers (issue 4) on a
fresh recording set made by `scripts/record-testdata.sh DIR`: for every
perf script text DIR/perf-script/NAME.txt.gz, each resolved symbol's leaf
count equals the samples column of `perf report --no-children --sort sym -n`
of the same recording (DIR/perf-script/NAME.report.txt), and the folded
collapses DIR/folded/NAME.folded.gz give the same counts as the perf script
text they were collapsed from (NAME-g.txt.gz). Runs the parser through the
`perf_script` bench binary with DIFFPROFILE_BENCH_DUMP=1, with 1 and 2 jobs,
which must agree.

Usage: python3 scripts/check-perf-script.py /tmp/fresh
"""
import collections, glob, gzip, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRESH = sys.argv[1] if len(sys.argv) > 1 else "/tmp/fresh"

out = subprocess.run(["cargo", "bench", "--bench", "perf_script", "--no-run",
                      "--message-format=json"], cwd=ROOT, capture_output=True, text=True).stdout
BIN = [json.loads(l)["executable"] for l in out.splitlines()
       if '"executable":"' in l and "perf_script" in l][-1]


def dump(path, fmt="perf-script", jobs=1):
    env = dict(os.environ, DIFFPROFILE_BENCH_INPUT=path, DIFFPROFILE_BENCH_DUMP="1",
               DIFFPROFILE_BENCH_FORMAT=fmt, DIFFPROFILE_BENCH_JOBS=str(jobs))
    r = subprocess.run([BIN], env=env, capture_output=True, text=True, check=True)
    c = collections.Counter()
    for line in r.stdout.splitlines()[1:]:
        if line.startswith("warning: "):
            continue
        count, mode, _dso, name = line.split("\t", 3)
        c[("k" if mode == "kernel" else ".", name)] += float(count)
    return c


def report(path):
    c = collections.Counter()
    for line in open(path):
        m = re.match(r"\s+[\d.]+%\s+(\d+)\s+\[(.)\]\s+(.*?)\s*$", line)
        if m:
            c[(m.group(2), m.group(3))] += int(m.group(1))
    return c


def unresolved(name):
    return name.startswith("0x") or name == "[unknown]"


tmp = tempfile.mkdtemp()
files = mismatches = symbols = 0
for gz in sorted(glob.glob(os.path.join(FRESH, "perf-script", "*.txt.gz"))):
    name = os.path.basename(gz)[: -len(".txt.gz")]
    plain = os.path.join(tmp, name + ".txt")
    with gzip.open(gz) as f, open(plain, "wb") as o:
        o.write(f.read())
    ours = dump(plain)
    if dump(plain, jobs=2) != ours:
        print(f"{name}: --jobs 1 and 2 differ"); mismatches += 1
    theirs = report(gz[: -len(".txt.gz")] + ".report.txt")
    files += 1
    for key, n in theirs.items():
        if unresolved(key[1]):
            continue
        symbols += 1
        if ours.get(key) != n:
            mismatches += 1
            print(f"{name}: [{key[0]}] {key[1]}: perf report {n}, diffprofile {ours.get(key)}")
    # The folded files are collapses of the -g recording's perf script.
    for fz in glob.glob(os.path.join(FRESH, "folded", name.removesuffix("-g") + ".folded.gz")):
        if not name.endswith("-g"):
            continue
        fplain = os.path.join(tmp, name + ".folded")
        with gzip.open(fz) as f, open(fplain, "wb") as o:
            o.write(f.read())
        folded = {k[1]: v for k, v in dump(fplain, "folded").items()}
        script = collections.Counter()
        for (mode, sym), v in ours.items():
            script[sym] += v
        files += 1
        for sym, v in folded.items():
            symbols += 1
            if script.get(sym) != v:
                mismatches += 1
                print(f"{name}.folded: {sym}: folded {v}, perf script {script.get(sym)}")
print(f"perf script / folded: {files} files, {symbols} resolved symbols, {mismatches} mismatches")
sys.exit(1 if mismatches else 0)
