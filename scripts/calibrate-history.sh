#!/usr/bin/env bash
# Calibration of `diffprofile history` (docs/statistics.md §14) on real
# replicate runs that are not in the repo: a recording set made by
# scripts/record-calibration.sh (SET/<format>/<workload>/runN.*, SET/set.json
# with its workloads and "power" pairs).
#
#   bash scripts/calibrate-history.sh [SET [FORMAT [DRAWS]]]
#     SET     default /work/rec/own;  FORMAT  perf-script (or readprofile, perf-data)
#     DRAWS   random orders of the runs per workload or pair (default 5)
#     DIFFPROFILE_BIN=PATH  calibrate that binary (default: build this tree)
#
# No change: every workload's runs as a series, each kernel a different run
# (1 run per kernel: as many kernels as runs; 3 runs per kernel: runs/3
# kernels), in DRAWS random orders: how many series show any significant
# step (target: at most 5%).
# A change: for each power pair (A, B), a series whose first half of kernels
# are A's runs and second half B's (1 run per kernel: 2 x runs kernels; 3 runs
# per kernel: 2 x runs/3), in DRAWS random orders within each half: of the
# symbols a 5+5 comparison of A's runs 1-5 and B's runs 1-5 flags (`*`), the
# share whose series has a significant step at exactly the first B kernel
# (target: at least 95%), one kernel off, further off, only a step that is
# not significant (`~`) at that kernel, or none; then the same for the
# flags with at least 20 samples a run on one side (the small counts a 5+5
# comparison flags from all-zero runs are where a series of single runs
# cannot place a step exactly).
# Every series is one benchmark of one results tree (hard links to the runs),
# read by one `diffprofile history -o json`. Prints markdown tables.
set -euo pipefail
cd "$(dirname "$0")/.."
SET=${1:-/work/rec/own}
FMT=${2:-perf-script}
DRAWS=${3:-5}
# DIFFPROFILE_BIN: a binary to calibrate instead of this tree's release build.
if [ -n "${DIFFPROFILE_BIN:-}" ]; then
    BIN=$DIFFPROFILE_BIN
else
    cargo build --release --quiet
    BIN=$PWD/target/release/diffprofile
fi
WORK=${CALIB_DIR:-/tmp/diffprofile-calibrate-history}
rm -rf "$WORK"
mkdir -p "$WORK"
exec python3 - "$SET" "$FMT" "$DRAWS" "$BIN" "$WORK" <<'PY'
import json, os, random, shutil, subprocess, sys
SET, FMT, DRAWS, BIN, WORK = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
WELL = 20  # samples a run: the second change table
meta = json.load(open(os.path.join(SET, "set.json")))
rng = random.Random(26)
root = os.path.join(SET, FMT)

def runs_of(w):
    d = os.path.join(root, w)
    files = sorted((f for f in os.listdir(d) if f.startswith("run")),
                   key=lambda f: int("".join(c for c in f[3:] if c.isdigit()) or 0))
    return [os.path.join(d, f) for f in files]

def place(tree, kernel, bench, files):
    d = os.path.join(tree, kernel, bench)
    os.makedirs(d, exist_ok=True)
    for j, f in enumerate(files):
        ext = f[f.index(".", len(os.path.dirname(f)) + 1):]
        dst = os.path.join(d, "run%d%s" % (j + 1, ext))
        try:
            os.link(f, dst)
        except OSError:
            shutil.copyfile(f, dst)
    # perf.data needs its kallsyms beside it.
    k = os.path.join(os.path.dirname(files[0]), "kallsyms")
    if FMT == "perf-data" and os.path.exists(k) and not os.path.exists(os.path.join(d, "kallsyms")):
        os.link(k, os.path.join(d, "kallsyms"))

def kname(i):
    return "v1.%d" % (i + 1)

def history(tree):
    p = subprocess.run([BIN, "history", tree, "-o", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("history failed: " + p.stderr[-2000:])
    return {b["name"]: b for b in json.loads(p.stdout)["benchmarks"]}

workloads = sorted(meta["workloads"])
pairs = [(a, b, kind) for a, b, kind in meta["power"]]
n_runs = min(len(runs_of(w)) for w in workloads)
results = {}
for per in (1, 3):
    tree = os.path.join(WORK, "per%d" % per)
    kernels = n_runs // per
    change_at = {}
    for w in workloads:
        runs = runs_of(w)[: kernels * per]
        for d in range(DRAWS):
            order = runs[:]
            rng.shuffle(order)
            for k in range(kernels):
                place(tree, kname(k), "same-%s-%d" % (w, d), order[k * per:(k + 1) * per])
    for a, b, kind in pairs:
        ra, rb = runs_of(a)[: kernels * per], runs_of(b)[: kernels * per]
        for d in range(DRAWS):
            oa, ob = ra[:], rb[:]
            rng.shuffle(oa)
            rng.shuffle(ob)
            name = "change-%s-%s-%d" % (a, b, d)
            for k in range(kernels):
                place(tree, kname(k), name, oa[k * per:(k + 1) * per])
                place(tree, kname(kernels + k), name, ob[k * per:(k + 1) * per])
            change_at[name] = kname(kernels)
    results[per] = (history(tree), kernels, change_at)

# 5+5 references.
flagged = {}
for a, b, kind in pairs:
    cmd = [BIN, "--old", *runs_of(a)[:5], "--new", *runs_of(b)[:5], "-o", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("5+5 failed: " + p.stderr[-2000:])
    doc = json.loads(p.stdout)
    rows = doc["rows"]
    flagged[(a, b)] = {(r["symbol"], r.get("dso")): max(sum(r["old_counts"]) / len(r["old_counts"]),
                                                        sum(r["new_counts"]) / len(r["new_counts"]))
                       for r in rows if r.get("significant")}

print(f"Set {SET} ({FMT}), {n_runs} runs of each of {len(workloads)} workloads, {DRAWS} random orders each.\n")
print("| no change | series | kernels | with a significant step | share |")
print("|---|---:|---:|---:|---:|")
for per in (1, 3):
    hist, kernels, _ = results[per]
    same = [b for n, b in hist.items() if n.startswith("same-")]
    hit = [b for b in same if any(s["significant"] for s in b["steps"])]
    print(f"| {per} run(s) per kernel | {len(same)} | {kernels} | {len(hit)} | {100.0 * len(hit) / max(1, len(same)):.1f}% |")
    worst = {}
    for b in hit:
        for s in b["steps"]:
            if s["significant"]:
                worst[s["symbol"]] = worst.get(s["symbol"], 0) + 1
    if worst:
        top = ", ".join(f"`{k}` ({v})" for k, v in sorted(worst.items(), key=lambda x: (-x[1], x[0]))[:5])
        print(f"|  (steps found in: {top}) | | | | |")
print()
def change_table(least):
    print("| change | runs per kernel | kernels | 5+5 flags | found at the exact kernel | one kernel off | further off | `~` at the kernel only | not found |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for a, b, kind in pairs:
        ref = [k for k, m in flagged[(a, b)].items() if m >= least]
        for per in (1, 3):
            hist, kernels, change_at = results[per]
            n = {"exact": 0, "off1": 0, "off": 0, "weak": 0, "none": 0}
            for d in range(DRAWS):
                bench = hist["change-%s-%s-%d" % (a, b, d)]
                at = change_at["change-%s-%s-%d" % (a, b, d)]
                ks = bench["kernels"]
                sig, weak = {}, {}
                for s in bench["steps"]:
                    key = (s["symbol"], s.get("dso"))
                    (sig if s["significant"] else weak).setdefault(key, set()).add(ks.index(s["at"]))
                for key in ref:
                    found = sig.get(key, set())
                    i = ks.index(at)
                    if i in found:
                        n["exact"] += 1
                    elif found and min(abs(j - i) for j in found) == 1:
                        n["off1"] += 1
                    elif found:
                        n["off"] += 1
                    elif i in weak.get(key, set()):
                        n["weak"] += 1
                    else:
                        n["none"] += 1
            total = max(1, sum(n.values()))
            cells = " | ".join(f"{n[k]} ({100.0 * n[k] / total:.1f}%)" for k in ("exact", "off1", "off", "weak", "none"))
            print(f"| {a} vs {b} ({kind}) | {per} | {2 * kernels} | {len(ref)} | {cells} |")

change_table(0)
print("\nThe same for the 5+5 flags with at least %d samples a run on one side (mean):\n" % WELL)
change_table(WELL)
print(f"\n(counts over {DRAWS} random orders; a 5+5 flag counts once per order)")
PY
