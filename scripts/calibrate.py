#!/usr/bin/env python3
"""Calibrate diffprofile's statistics on real replicate runs.

    sudo SET=all bash scripts/record-calibration.sh DIR   # ~25 minutes, once
    bash scripts/calibrate.sh DIR [options]               # builds --release, runs this
    python3 scripts/calibrate.py DIR [options]            # with a binary already built

DIR is one recording set (a directory with set.json, runs.tsv and
perf-script/W/runN.txt.gz, perf-data/W/runN.data, readprofile/W/runN.txt:
record-calibration.sh's OUTDIR/own, OUTDIR/sys, OUTDIR/busy), or a
directory holding several (OUTDIR: every subdirectory with a set.json), or a
set of the first version's layout (no set.json: the five workloads pipes,
threads, sockets, dd4k, dd1m). Every run is used, outliers and runs
recorded beside our own background load included. For each set and input
format it runs the binary (--bin, default target/release/diffprofile) with
`-o json` and measures:

  A/A   per workload, its runs split into two disjoint groups at the shapes
        1v1, 1v2, 2v2, 2v3, 3v3 and 1v1 with a noise model learned from 3
        other runs of the same workload (`--noise-from`): the share of
        comparisons that flag any symbol. Both sides are the same workload,
        so every flag is false. The symbols flagged most often are listed
        with the workloads they were flagged in, so that one symbol flagged
        again and again is visible.
  power per change (set.json's power pairs: sha1 vs sha1pipe, dd4k vs dd1m,
        pipes vs threads, gzip vs zstd): the reference is what 5+5 runs flag
        with a change of 2x or more and >= 100 samples in every run of the
        side where the symbol is larger; 2+2, 3+3 and 1v1 with a noise model
        (3 other OLD runs) are drawn at random from every run (busy runs
        included), and the table gives the share of the reference they
        flag, over all draws and over the draws with a busy run on a side.
  checks every consistent change (each run of one side beyond every run of
        the other by 2x or more in share, >= 100 samples in every run of the
        larger side) must be `*` at 2+2 and more; every row's ratio and
        delta interval must agree with its mark.

`--comm yes` restricts every comparison to the workload's own processes
(set.json's comm of each workload, passed as `--comm RE`); `--comm both`
(the default for system-wide sets) measures with all samples and with
`--comm`, one table each; `--comm no` (the default otherwise) all samples.

It prints markdown tables and the targets missed (A/A at most 5% at every
shape; 2+2 at least 2/3 of the reference, 3+3 at least 90%, 1v1 + model at
least half; consistent changes marked), and exits 1 when one is missed.
Nothing is recorded here; tests never run this (it takes minutes).

Options: --formats perf-script,readprofile,perf-data (default perf-script,
plus readprofile where the set has it), --aa N (A/A comparisons per
workload and shape, default 10), --draws N (per power cell, default 12),
--jobs N (parallel diffprofile processes, default 2), --bin PATH,
--workloads a,b (only these), --extra ARG (passed to every comparison,
repeatable: `--extra=-n --extra=robust`).
"""

import argparse
import concurrent.futures as cf
import itertools
import json
import os
import random
import subprocess
import sys

OLD_LAYOUT = {
    "set": "v1", "system_wide": False, "busy_runs": [],
    "workloads": {w: {"comm": c} for w, c in [
        ("pipes", "^sched-messaging$"), ("threads", "^sched-messaging$"),
        ("sockets", "^sched-messaging$"), ("dd4k", "^dd$"), ("dd1m", "^dd$")]},
    "power": [["dd4k", "dd1m", "large"], ["pipes", "threads", "subtle"]],
}
EXT = {"readprofile": "txt", "perf-script": "txt.gz", "perf-data": "data"}
AA_SHAPES = [(1, 1, False), (1, 2, False), (2, 2, False), (2, 3, False), (3, 3, False), (1, 1, True)]
AA_TARGET = 0.05
POWER_TARGETS = {"2+2": 2 / 3, "3+3": 0.90, "1v1 + model": 0.5}


def label(x, y, model):
    return f"{x}v{y}" + (" + model" if model else "")


def runs_of(d, fmt, wl):
    out, i = [], 1
    while os.path.exists(f"{d}/{fmt}/{wl}/run{i}.{EXT[fmt]}"):
        out.append(f"{d}/{fmt}/{wl}/run{i}.{EXT[fmt]}")
        i += 1
    return out


def load_set(d):
    p = os.path.join(d, "set.json")
    meta = json.load(open(p)) if os.path.exists(p) else dict(OLD_LAYOUT, set=os.path.basename(d.rstrip("/")))
    meta["dir"] = d
    busy = set(meta.get("busy_runs", []))
    meta["busy"] = busy
    return meta


def diffprofile(binary, args):
    p = subprocess.run([binary, *args, "-o", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"diffprofile {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


def splits(n, a, b, limit, seed):
    """Disjoint (A, B) index groups of sizes a and b, a deterministic sample."""
    out = []
    for ga in itertools.combinations(range(n), a):
        rest = [i for i in range(n) if i not in ga]
        for gb in itertools.combinations(rest, b):
            if a == b and ga > gb:
                continue
            out.append((ga, gb))
    random.Random(seed).shuffle(out)
    return out[:limit]


def shares(counts, totals):
    return [c / t if t else 0.0 for c, t in zip(counts, totals)]


def consistent(r, tot_o, tot_n):
    """Each run of one side beyond every run of the other by 2x or more (in
    share), >= 100 samples in every run of the larger side."""
    o, n = r["old_counts"], r["new_counts"]
    so, sn = shares(o, tot_o), shares(n, tot_n)
    if min(n) >= 100 and min(sn) >= 2 * max(so):
        return True
    return min(o) >= 100 and min(so) >= 2 * max(sn)


def summarize(doc):
    rows = doc["rows"]
    # Shares as the comparison measures them: of each run's exposure (its
    # total in share mode; the kept samples with --percentage relative).
    tot_o = [r["exposure"] for r in doc["sides"][0]["runs"]]
    tot_n = [r["exposure"] for r in doc["sides"][1]["runs"]]
    tested = [r for r in rows if r["p"] is not None]
    sig = [r for r in tested if r["significant"]]
    bad, missed, big = [], [], []
    for r in tested:
        lo, hi = r["ratio_ci"]
        dlo, dhi = r["delta_ci"]
        ex_ratio = (lo is not None and lo > 1) or (hi is not None and hi < 1)
        ex_delta = (dlo is not None and dlo > 0) or (dhi is not None and dhi < 0)
        if ex_ratio != r["significant"] or ex_delta != r["significant"]:
            bad.append(f"{r['symbol']} ({'*' if r['significant'] else '~'}, ratio {r['ratio_ci']}, delta {r['delta_ci']})")
    for r in rows:
        o, n = r["old_counts"], r["new_counts"]
        if not o or not n:
            continue
        if min(len(o), len(n)) >= 2 and consistent(r, tot_o, tot_n) and not r["significant"]:
            missed.append(f"`{r['symbol']}` {o} -> {n} (q {r.get('q')})")
        # Reference candidates: 2x or more in mean share, >= 100 in every run of the larger side.
        mo, mn = sum(shares(o, tot_o)) / len(o), sum(shares(n, tot_n)) / len(n)
        larger = n if mn >= mo else o
        if r["significant"] and min(larger) >= 100 and max(mo, mn) >= 2 * min(mo, mn):
            big.append(r["symbol"])
    return dict(tested=len(tested), sig=len(sig), names=[r["symbol"] for r in sig], big=big,
                inconsistent=bad, missed=missed, method=doc["noise"]["method"],
                warnings=doc.get("warnings", []))


def job(binary, old, new, model, extra):
    args = list(extra)
    if model:
        args += ["--noise-from", *model]
    args += ["--old", *old, "--new", *new]
    return summarize(diffprofile(binary, args))


def comm_args(meta, wl, use_comm):
    return ["--comm", meta["workloads"][wl]["comm"]] if use_comm else []


def aa_tables(meta, fmt, runs, pool, a, use_comm, failures):
    wls = list(runs)
    res = {}  # (wl, shape) -> list of summaries
    futs = {}
    for w, wl in enumerate(wls):
        r = runs[wl]
        for x, y, model in AA_SHAPES:
            need = x + y + (3 if model else 0)
            if len(r) < need:
                continue
            for ga, gb in splits(len(r), x, y + (3 if model else 0), a.aa, seed=17 + w):
                # Which of the B group's runs are compared and which learn the
                # model is drawn at random too: combinations come sorted, and
                # taking the first y would never put the lowest-numbered runs
                # (run 1, often unlike its siblings) in a model.
                gb = list(gb)
                if model:
                    random.Random(f"{w} {ga} {gb}").shuffle(gb)
                gb, gm = gb[:y], gb[y:]
                f = pool.submit(job, a.bin, [r[i] for i in ga], [r[i] for i in gb],
                                [r[i] for i in gm] if model else None,
                                a.extra + comm_args(meta, wl, use_comm))
                futs.setdefault((wl, (x, y, model)), []).append(f)
    for k, fs in futs.items():
        res[k] = [f.result() for f in fs]
    head = "| workload | " + " | ".join(label(*s) for s in AA_SHAPES) + " |"
    print(head)
    print("|---|" + "---:|" * len(AA_SHAPES))
    totals = {s: [0, 0] for s in AA_SHAPES}
    names = {}
    for wl in wls:
        cells = []
        for s in AA_SHAPES:
            rs = res.get((wl, s))
            if not rs:
                cells.append("")
                continue
            fl = sum(1 for x in rs if x["sig"] > 0)
            totals[s][0] += fl
            totals[s][1] += len(rs)
            cells.append(f"{fl}/{len(rs)}")
            for x in rs:
                failures += [f"A/A {wl} {label(*s)}: interval disagrees with mark: {b}" for b in x["inconsistent"]]
                for n in x["names"]:
                    e = names.setdefault(n, [0, {}])
                    e[0] += 1
                    e[1][wl] = e[1].get(wl, 0) + 1
        print(f"| {wl} | " + " | ".join(cells) + " |")
    cells = []
    for s in AA_SHAPES:
        fl, n = totals[s]
        share = fl / n if n else 0.0
        cells.append(f"**{fl}/{n} ({100 * share:.1f}%)**" if n else "")
        if n and share > AA_TARGET:
            failures.append(f"A/A {label(*s)}: {100 * share:.1f}% of comparisons flag something (target <= 5%)")
    print("| **all** | " + " | ".join(cells) + " |")
    top = sorted(names.items(), key=lambda kv: (-kv[1][0], kv[0]))[:10]
    if top:
        print("\nMost flagged symbols (A/A, every shape; flags, and the workloads flagged in):\n")
        print("| symbol | flags | workloads |")
        print("|---|---:|---|")
        for n, (c, per) in top:
            where = ", ".join(f"{w} {k}" for w, k in sorted(per.items(), key=lambda kv: (-kv[1], kv[0])))
            print(f"| `{n}` | {c} | {where} |")
    methods = sorted({x["method"] for rs in res.values() for x in rs})
    print(f"\nMethods used: {', '.join(methods)}.")


def power_tables(meta, fmt, runs, pool, a, use_comm, failures):
    pairs = [p for p in meta.get("power", []) if p[0] in runs and p[1] in runs]
    if not pairs:
        return
    print("\n| change | reference (5+5) | 2+2 | 2+2, a busy run on a side | 3+3 | 3+3, busy | 1v1 + model | 1v1 + model, busy | consistent changes not `*` |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    busy = meta["busy"]
    for old_wl, new_wl, kind in pairs:
        ro, rn = runs[old_wl], runs[new_wl]
        if min(len(ro), len(rn)) < 5:
            continue
        extra = a.extra + comm_args(meta, old_wl, use_comm and meta["workloads"][old_wl]["comm"] == meta["workloads"][new_wl]["comm"])
        if use_comm and meta["workloads"][old_wl]["comm"] != meta["workloads"][new_wl]["comm"]:
            both = f"({meta['workloads'][old_wl]['comm'].strip('^$')}|{meta['workloads'][new_wl]['comm'].strip('^$')})"
            extra = a.extra + ["--comm", f"^{both}$"]
        ref = job(a.bin, ro[:5], rn[:5], None, extra)
        refset = set(ref["big"])
        cells, missed = [], []
        for shape in ["2+2", "3+3", "1v1 + model"]:
            futs = []
            for k in range(a.draws):
                rng = random.Random(1000 * k + len(shape))
                if shape == "1v1 + model":
                    pick = rng.sample(range(len(ro)), 4)
                    old, model = [pick[0]], pick[1:]
                    new = [rng.randrange(len(rn))]
                else:
                    n = int(shape[0])
                    old, new, model = rng.sample(range(len(ro)), n), rng.sample(range(len(rn)), n), None
                is_busy = any(i + 1 in busy for i in old + new)
                f = pool.submit(job, a.bin, [ro[i] for i in old], [rn[i] for i in new],
                                [ro[i] for i in model] if model else None, extra)
                futs.append((is_busy, f))
            found = {"all": [], "busy": []}
            for is_busy, f in futs:
                s = f.result()
                frac = len(refset & set(s["names"])) / len(refset) if refset else 1.0
                found["all"].append(frac)
                if is_busy:
                    found["busy"].append(frac)
                if shape != "1v1 + model":
                    missed += s["missed"]
                failures += [f"{old_wl} vs {new_wl} {shape}: interval disagrees with mark: {b}" for b in s["inconsistent"]]
            mean = lambda v: sum(v) / len(v) if v else None
            m_all, m_busy = mean(found["all"]), mean(found["busy"])
            if not refset:  # nothing to find: no share to give
                cells += ["n/a", ""]
                continue
            cells.append(f"{100 * m_all:.0f}%")
            cells.append(f"{100 * m_busy:.0f}% ({len(found['busy'])})" if m_busy is not None else "")
            if kind == "large" and refset and m_all < POWER_TARGETS[shape]:
                failures.append(f"{old_wl} vs {new_wl}: {shape} finds {100 * m_all:.0f}% of the reference "
                                f"(target {100 * POWER_TARGETS[shape]:.0f}%)")
        uniq = sorted(set(missed))
        print(f"| {old_wl} vs {new_wl} ({kind}) | {len(refset)} | " + " | ".join(cells) + f" | {len(missed)} |")
        if uniq:
            failures.append(f"{old_wl} vs {new_wl}: {len(missed)} consistent changes not `*`, e.g. " + "; ".join(uniq[:3]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "diffprofile"))
    ap.add_argument("--formats", default=None)
    ap.add_argument("--aa", type=int, default=10, help="A/A comparisons per workload and shape")
    ap.add_argument("--draws", type=int, default=12, help="random draws per power cell")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--comm", choices=["no", "yes", "both"], default=None)
    ap.add_argument("--workloads", default=None)
    ap.add_argument("--extra", action="append", default=[])
    a = ap.parse_args()
    d = a.dir.rstrip("/")
    if os.path.exists(os.path.join(d, "set.json")) or os.path.isdir(os.path.join(d, "perf-script")):
        sets = [load_set(d)]
    else:
        sets = [load_set(os.path.join(d, s)) for s in sorted(os.listdir(d))
                if os.path.exists(os.path.join(d, s, "set.json"))]
    if not sets:
        sys.exit(f"{d}: no recording set (set.json or perf-script/) found")
    failures = []
    pool = cf.ThreadPoolExecutor(a.jobs)
    print(f"binary: {os.path.realpath(a.bin)}; {a.aa} A/A comparisons per workload and shape, "
          f"{a.draws} draws per power cell; extra arguments: {' '.join(a.extra) or 'none'}")
    for meta in sets:
        fmts = a.formats.split(",") if a.formats else ["perf-script"] + (
            ["readprofile"] if os.path.isdir(os.path.join(meta["dir"], "readprofile")) else [])
        comms = {"no": [False], "yes": [True], "both": [False, True]}[a.comm or ("both" if meta.get("system_wide") else "no")]
        for fmt in fmts:
            wls = [w for w in meta["workloads"] if not a.workloads or w in a.workloads.split(",")]
            runs = {wl: runs_of(meta["dir"], fmt, wl) for wl in wls}
            runs = {wl: r for wl, r in runs.items() if len(r) >= 2}
            if not runs:
                continue
            nruns = sorted({len(r) for r in runs.values()})
            for use_comm in comms:
                fails = []
                what = "the workload's own processes (--comm)" if use_comm else "all samples"
                print(f"\n### set `{meta['set']}`, {fmt}, {what}\n")
                print(f"{meta.get('recorded', 'recorded')}; {'/'.join(map(str, nruns))} runs per workload"
                      + (f"; runs {', '.join(map(str, sorted(meta['busy'])))} beside our own background load"
                         if meta["busy"] else "") + f" ({meta['dir']})\n")
                print("A/A: comparisons that flag any symbol, of those made\n")
                aa_tables(meta, fmt, runs, pool, a, use_comm, fails)
                power_tables(meta, fmt, runs, pool, a, use_comm, fails)
                tag = f"{meta['set']} {fmt}{' --comm' if use_comm else ''}"
                failures += [f"{tag}: {f}" for f in fails]
    print()
    if failures:
        print(f"Targets missed ({len(failures)}):\n")
        for f in failures[:40]:
            print("- " + f)
        if len(failures) > 40:
            print(f"- and {len(failures) - 40} more")
        sys.exit(1)
    print("All targets met: A/A <= 5% at every shape; 2+2 >= 2/3, 3+3 >= 90%, 1v1 + model >= 1/2 of "
          "the reference; consistent changes marked; every interval agrees with its mark.")


if __name__ == "__main__":
    main()
