#!/usr/bin/env python3
"""Calibrate diffprofile's statistics on real replicate runs.

    bash scripts/record-calibration.sh DIR     # as root, ~3 minutes, once
    cargo build --release
    python3 scripts/calibrate.py DIR           # or: bash scripts/calibrate.sh DIR

DIR holds runs of five workloads (record-calibration.sh): pipes, threads,
sockets, dd4k, dd1m, each as readprofile dumps (DIR/readprofile/W/runN.txt)
and perf script text (DIR/perf-script/W/runN.txt.gz). For each format it
measures, by running the release binary with `-o json`:

  A/A   every workload's runs split into two disjoint groups (1v1, 1v2, 2v2,
        2v3, and 1v1 with a noise model learned from 3 other runs of the
        same workload): the share of comparisons that flag any symbol, and
        flags per tested symbol. Both sides are the same workload, so every
        flag is a false one.
  power dd4k vs dd1m (a large change: 4 KiB against 1 MiB reads) and pipes vs
        threads (a subtle one: a shared file table): the mean number of
        significant rows at 1v1, 2v2, 3v3, 5v5 and 1v1 with a noise model
        from 3 other runs of the OLD workload, over random draws of runs,
        and each as a share of what 5v5 finds.
  checks every row whose symbol is 0 in every run of one side and >= 100 in
        every run of the other must be `*` (2v2 and up); no row's ratio or
        delta interval may exclude "no change" unless the row is `*`, and
        every `*` row's must.

It prints markdown tables (for the README) and a verdict against the targets
of issue 13, and exits 1 when a target or check fails. Nothing is recorded
here; tests never run this (it takes a few minutes).
"""

import argparse
import concurrent.futures as cf
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile

WORKLOADS = ["pipes", "threads", "sockets", "dd4k", "dd1m"]
FORMATS = {"readprofile": "txt", "perf-script": "txt.gz"}
AA_SPLITS = [(1, 1), (1, 2), (2, 2), (2, 3)]
POWER_PAIRS = [("dd4k", "dd1m", "large"), ("pipes", "threads", "subtle")]
POWER_N = [1, 2, 3, 5]


def runs_of(d, fmt, wl):
    ext = FORMATS[fmt]
    out = []
    i = 1
    while os.path.exists(f"{d}/{fmt}/{wl}/run{i}.{ext}"):
        out.append(f"{d}/{fmt}/{wl}/run{i}.{ext}")
        i += 1
    return out


def diffprofile(binary, args):
    p = subprocess.run([binary, *args, "-o", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"diffprofile {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def splits(n, a, b, limit, seed):
    """Disjoint (A, B) index groups of sizes a and b, deterministic sample."""
    idx = range(n)
    out = []
    for ga in itertools.combinations(idx, a):
        rest = [i for i in idx if i not in ga]
        for gb in itertools.combinations(rest, b):
            if a == b and ga > gb:
                continue
            out.append((ga, gb))
    random.Random(seed).shuffle(out)
    return out[:limit]


def summarize(doc):
    rows = doc["rows"]
    tested = [r for r in rows if r["p"] is not None]
    sig = [r for r in tested if r["significant"]]
    bad = []
    for r in tested:
        lo, hi = r["ratio_ci"]
        dlo, dhi = r["delta_ci"]
        ex_ratio = (lo is not None and lo > 1) or (hi is not None and hi < 1)
        ex_delta = (dlo is not None and dlo > 0) or (dhi is not None and dhi < 0)
        if ex_ratio != r["significant"] or ex_delta != r["significant"]:
            bad.append(f"{r['symbol']} ({'*' if r['significant'] else '~'}, "
                       f"ratio {r['ratio_ci']}, delta {r['delta_ci']})")
    n_old, n_new = len(doc["sides"][0]["runs"]), len(doc["sides"][1]["runs"])
    appear = []
    if min(n_old, n_new) >= 2:
        for r in rows:
            o, n = r["old_counts"], r["new_counts"]
            if (all(c == 0 for c in o) and all(c >= 100 for c in n)) or (
                all(c == 0 for c in n) and all(c >= 100 for c in o)
            ):
                if not r["significant"]:
                    appear.append(f"{r['symbol']} {o} -> {n}")
    return dict(tested=len(tested), sig=len(sig), names=[r["symbol"] for r in sig],
                inconsistent=bad, appear=appear, method=doc["noise"]["method"])


def job(binary, old, new, model):
    args = []
    if model:
        args += ["--noise-from", *model]
    args += ["--old", *old, "--new", *new]
    return summarize(diffprofile(binary, args))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "diffprofile"))
    ap.add_argument("--formats", default="readprofile,perf-script")
    ap.add_argument("--aa-per-workload", type=int, default=14,
                    help="A/A comparisons per workload and split (default 14: 70 per split)")
    ap.add_argument("--draws", type=int, default=10, help="random draws per power cell")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    failures = []
    pool = cf.ThreadPoolExecutor(a.jobs)
    for fmt in a.formats.split(","):
        runs = {wl: runs_of(a.dir, fmt, wl) for wl in WORKLOADS}
        if any(len(r) < 6 for r in runs.values()):
            sys.exit(f"{a.dir}/{fmt}: need >= 6 runs of each of {WORKLOADS} (record-calibration.sh)")
        print(f"\n### {fmt} ({a.dir})\n")
        # ---------------------------------------------------------------- A/A
        print("| A/A split | comparisons | with any flag | flags per tested symbol | method | most flagged |")
        print("|---|---:|---:|---:|---|---|")
        cells = [(f"{x}v{y}", x, y, False) for x, y in AA_SPLITS] + [("1v1 + noise model (3 runs)", 1, 1, True)]
        for label, x, y, model in cells:
            futs = []
            for w, wl in enumerate(WORKLOADS):
                r = runs[wl]
                for k, (ga, gb) in enumerate(splits(len(r), x, y + (3 if model else 0), a.aa_per_workload, seed=17 + w)):
                    gb, gm = gb[:y], gb[y:]
                    futs.append(pool.submit(job, a.bin, [r[i] for i in ga], [r[i] for i in gb],
                                            [r[i] for i in gm] if model else None))
            res = [f.result() for f in futs]
            flagged = sum(1 for s in res if s["sig"] > 0)
            flags = sum(s["sig"] for s in res)
            tested = sum(s["tested"] for s in res)
            names = {}
            for s in res:
                for n in s["names"]:
                    names[n] = names.get(n, 0) + 1
                failures += [f"{fmt} A/A {label}: interval disagrees with mark: {b}" for b in s["inconsistent"]]
            top = ", ".join(f"`{n}` ({c})" for n, c in sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
            methods = ", ".join(sorted({s["method"] for s in res}))
            share = flagged / len(res)
            print(f"| {label} | {len(res)} | {flagged} ({100 * share:.1f}%) | {flags / max(tested, 1):.5f} | {methods} | {top} |")
            if share > 0.10:
                failures.append(f"{fmt} A/A {label}: {100 * share:.1f}% of comparisons flag something (target <= 10%)")
        # ---------------------------------------------------------------- power
        print("\n| change | 1v1 | 2v2 | 3v3 | 5v5 | 1v1 + noise model (3 runs) |")
        print("|---|---:|---:|---:|---:|---:|")
        for old_wl, new_wl, kind in POWER_PAIRS:
            ro, rn = runs[old_wl], runs[new_wl]
            means = {}
            for n in POWER_N + ["model"]:
                futs = []
                for k in range(a.draws):
                    rng = random.Random(1000 * k + (n if n != "model" else 99))
                    if n == "model":
                        pick = rng.sample(range(len(ro)), 4)
                        old, model = [ro[pick[0]]], [ro[i] for i in pick[1:]]
                        new = [rn[rng.randrange(len(rn))]]
                    else:
                        old = [ro[i] for i in rng.sample(range(len(ro)), n)]
                        new = [rn[i] for i in rng.sample(range(len(rn)), n)]
                        model = None
                    futs.append(pool.submit(job, a.bin, old, new, model))
                res = [f.result() for f in futs]
                for s in res:
                    failures += [f"{fmt} {old_wl} vs {new_wl} {n}: interval disagrees with mark: {b}" for b in s["inconsistent"]]
                    failures += [f"{fmt} {old_wl} vs {new_wl} {n}: not marked: {b}" for b in s["appear"]]
                means[n] = sum(s["sig"] for s in res) / len(res)
            ref = means[5] or 1.0
            cell = lambda n: f"{means[n]:.1f} ({100 * means[n] / ref:.0f}%)"
            print(f"| {old_wl} vs {new_wl} ({kind}) | {cell(1)} | {cell(2)} | {cell(3)} | {means[5]:.1f} | {cell('model')} |")
            if kind == "large":
                for n, need in [(2, 2 / 3), (3, 0.85), ("model", 0.5)]:
                    if means[n] < need * ref:
                        failures.append(f"{fmt} {old_wl} vs {new_wl}: {n} finds {means[n]:.1f}, "
                                        f"below {100 * need:.0f}% of 5v5's {ref:.1f}")
    print()
    if failures:
        print("FAILED:")
        for f in failures:
            print("  " + f)
        sys.exit(1)
    print("all targets met: A/A <= 10% everywhere; large change found at 2v2 >= 2/3, 3v3 >= 85%, "
          "1v1 + model >= 1/2 of 5v5; every interval agrees with its mark; symbols from nothing marked")


if __name__ == "__main__":
    main()
