#!/usr/bin/env python3
"""Make large comparisons from real runs, to measure what -o html costs.

  flat:    python3 scripts/synth-many-symbols.py flat OUT K
  stacks:  python3 scripts/synth-many-symbols.py stacks OUT K

flat: every real readprofile run of testdata/readprofile/default/{sockets,
pipes}/run{1,2,3}.txt (178 and 149 symbols) copied K times into OUT/{sockets,
pipes}/run{1,2,3}.txt: copy k of symbol s is `s.k` with the run's count of s
times a factor f_k (log-normal, the same in every run and on both sides, so
the real runs' run-to-run noise and the real change between the workloads
are kept, at every scale). K = 2600 gives 450,000 symbols a side.

stacks: the real folded stacks of testdata/folded/{sockets,pipes}.folded.gz
(perf script -g of perf bench sched messaging), copied K times the same way
into OUT/{sockets,pipes}.folded: every frame of copy k is named `frame.k`
below one shared root frame per copy (`copy.k`), weights times f_k.

Deterministic (a fixed seed): the same K gives the same bytes.
"""
import gzip
import math
import os
import random
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def factors(k):
    rng = random.Random(20261202)
    return [math.exp(rng.gauss(0.0, 1.0)) for _ in range(k)]


def flat(out, k):
    f = factors(k)
    for side in ("sockets", "pipes"):
        os.makedirs(os.path.join(out, side), exist_ok=True)
        for r in (1, 2, 3):
            src = os.path.join(ROOT, "testdata/readprofile/default", side, f"run{r}.txt")
            rows = []
            for line in open(src):
                parts = line.split()
                if len(parts) == 3 and parts[1] != "total":
                    rows.append((int(parts[0]), parts[1], parts[2]))
            total = 0
            with open(os.path.join(out, side, f"run{r}.txt"), "w") as w:
                for c in range(k):
                    for n, name, load in rows:
                        m = round(n * f[c])
                        total += m
                        w.write(f"{m:>6} {name}.{c:<30} {load}\n")
                w.write(f"{total:>6} total {'0.0001':>40}\n")


def stacks(out, k):
    f = factors(k)
    os.makedirs(out, exist_ok=True)
    for side in ("sockets", "pipes"):
        src = os.path.join(ROOT, "testdata/folded", f"{side}.folded.gz")
        lines = []
        for line in gzip.open(src, "rt"):
            stack, _, n = line.rstrip("\n").rpartition(" ")
            lines.append((stack.split(";"), int(n)))
        with open(os.path.join(out, f"{side}.folded"), "w") as w:
            for c in range(k):
                for frames, n in lines:
                    m = round(n * f[c])
                    if m > 0:
                        named = ";".join(f"{x}.{c}" for x in frames)
                        w.write(f"copy.{c};{named} {m}\n")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("flat", "stacks"):
        sys.exit(__doc__)
    {"flat": flat, "stacks": stacks}[sys.argv[1]](sys.argv[2], int(sys.argv[3]))
