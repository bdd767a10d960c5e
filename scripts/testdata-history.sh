#!/usr/bin/env bash
# Builds testdata/history/ (see testdata/README.md, "history/"):
#   tree/     a small results tree of the repo's real runs, as a series of kernels
#   vectors/  hand-made folded runs for the section 14 test vectors
# Run from anywhere; rewrites both directories.
set -euo pipefail
cd "$(dirname "$0")/.."
T=testdata/history/tree
RP=testdata/readprofile/default
PR=testdata/perf-report/sym-n
rm -rf "$T"
put() { mkdir -p "$(dirname "$2")"; cp "$1" "$2"; }
# messaging (readprofile, one run per kernel): pipes, then sockets from v6.8.
i=0; for k in v6.7 v6.8-rc1 v6.8-rc3; do i=$((i+1)); put $RP/pipes/run$i.txt $T/$k/messaging/run1.txt; done
i=0; for k in v6.8 v6.9 v6.10; do i=$((i+1)); put $RP/sockets/run$i.txt $T/$k/messaging/run1.txt; done
# perf (perf report, two runs per kernel): pipes, sockets from v6.8, threads
# at v6.10; v6.8-rc3 not measured.
put $PR/pipes/run1.txt $T/v6.7/perf/run1.txt;       put $PR/pipes/run2.txt $T/v6.7/perf/run2.txt
put $PR/pipes/run3.txt $T/v6.8-rc1/perf/run1.txt;   put $PR/pipes/run4.txt $T/v6.8-rc1/perf/run2.txt
put $PR/sockets/run1.txt $T/v6.8/perf/run1.txt;     put $PR/sockets/run2.txt $T/v6.8/perf/run2.txt
put $PR/sockets/run3.txt $T/v6.9/perf/run1.txt;     put $PR/sockets/run4.txt $T/v6.9/perf/run2.txt
put $PR/threads/run1.txt $T/v6.10/perf/run1.txt;    put $PR/threads/run2.txt $T/v6.10/perf/run2.txt
# steady (readprofile, one run per kernel, all threads: no change).
i=0; for k in v6.7 v6.8-rc1 v6.8 v6.9; do i=$((i+1)); put $RP/threads/run$i.txt $T/$k/steady/run1.txt; done

python3 - <<'PY'
# Vectors: two benchmarks of hand-made folded runs (a run's total is the sum
# of its lines). Counts are rounded normal draws around each symbol's level
# (sd = 1.3 sqrt(level): a little over Poisson), seed fixed.
import os, random, shutil
root = "testdata/history/vectors"
shutil.rmtree(root, ignore_errors=True)
rng = random.Random(26)
def level(sym, k, K):
    if sym == "stepper":
        return 60 if k < 4 else 140
    if sym == "twostep":
        return 100 if k < 2 else (220 if k < 6 else 60)
    if sym == "drifter":
        return 50 + 140 * k / (K - 1)
    if sym == "rest_of_kernel":
        return 6000
    return 20 + 35 * int(sym[1:])
def write(bench, kernels, runs_of):
    K = len(kernels)
    syms = ["s%02d" % i for i in range(12)] + ["stepper", "twostep", "drifter", "rest_of_kernel"]
    for k, name in enumerate(kernels):
        for r in range(runs_of(k)):
            d = os.path.join(root, name, bench)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "run%d.folded" % (r + 1)), "w") as f:
                for s in syms:
                    lv = level(s, k, K)
                    c = max(0, round(rng.gauss(lv, 1.3 * lv ** 0.5)))
                    f.write("%s %d\n" % (s, c))
kernels = ["v1.%d" % k for k in range(8)]
write("mixed", kernels, lambda k: 2 if k < 4 else 1)
write("single", kernels, lambda k: 1)
# together: 12 kernels of one run; three symbols step up 2.5x at v1.6, a
# faint one 14 -> 24 (its own best split is v1.7: placed at v1.6) and a
# sparse one 0.3 -> 2.5 (found by the benchmark round), §14.5.
rng = random.Random(42)
def together(sym, k):
    if sym.startswith("lead"):
        return 120 if k < 6 else 300
    if sym == "faint":
        return 14 if k < 6 else 24
    if sym == "sparse":
        return 0.3 if k < 6 else 2.5
    if sym == "rest_of_kernel":
        return 6000
    return 20 + 35 * int(sym[1:])
syms = ["s%02d" % i for i in range(12)] + ["lead1", "lead2", "lead3", "faint", "sparse", "rest_of_kernel"]
for k in range(12):
    d = os.path.join(root, "v1.%d" % k, "together")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "run1.folded"), "w") as f:
        for s in syms:
            lv = together(s, k)
            c = max(0, round(rng.gauss(lv, 1.3 * lv ** 0.5)))
            f.write("%s %d\n" % (s, c))
PY
