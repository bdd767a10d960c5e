#!/usr/bin/env bash
# Time and peak RSS of `diffprofile history` against `batch --baseline` on
# one synthetic results tree.
#
#   bash scripts/bench-history.sh [KERNELS [BENCHMARKS [RUNS [SYMBOLS]]]]
#   bash scripts/bench-history.sh --scale F     (F x the full size, e.g. 0.1)
#
# The full size is issue 26's: 1,000 kernels x 20 benchmarks x 3 runs of
# 2,000 symbols (60,000 profiles, about 3 GB of folded files). Each profile
# is a folded file (`symbol count` lines) whose counts are drawn around
# each symbol's level (Poisson, with 5% run-to-run noise); in every
# benchmark 5 symbols step up by half at the middle kernel. The tree is
# built once under ${BENCH_DIR:-/tmp/diffprofile-bench-history}/K-B-R-S.
# Prints, for each command, wall seconds, CPU seconds and peak RSS (GNU
# time), and checks that history's JSON is the same with --jobs 1 and from
# the tree's counts table (`diffprofile export`).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --scale ]; then
    f=$2
    k=$(python3 -c "print(max(4, round(1000 * $f)))")
    set -- "$k" 20 3 2000
fi
K=${1:-1000} B=${2:-20} R=${3:-3} S=${4:-2000}
dir=${BENCH_DIR:-/tmp/diffprofile-bench-history}/$K-$B-$R-$S
cargo build --release --quiet
bin=$PWD/target/release/diffprofile
if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 - "$dir/tree" "$K" "$B" "$R" "$S" <<'PY'
import math, os, random, sys
root, K, B, R, S = sys.argv[1], *map(int, sys.argv[2:])
rng = random.Random(1)
names = ["sym_%04d" % i for i in range(S)]
# Levels: a few large symbols, a long tail (counts per run).
levels = [max(0.5, 20000.0 / (i + 1) ** 1.1) for i in range(S)]
def poisson(mu):
    if mu < 30:
        l, k, p = math.exp(-mu), 0, 1.0
        while True:
            p *= rng.random()
            if p <= l:
                return k
            k += 1
    return max(0, round(rng.gauss(mu, math.sqrt(mu))))
kw = len(str(K))
for b in range(B):
    stepping = set(rng.sample(range(S // 10), 5))
    for k in range(K):
        kd = os.path.join(root, "v1.%0*d" % (kw, k), "bench%02d" % b)
        os.makedirs(kd)
        for r in range(R):
            with open(os.path.join(kd, "run%d.folded" % r), "w") as f:
                lines = []
                for i, name in enumerate(names):
                    mu = levels[i] * (1.5 if i in stepping and k >= K // 2 else 1.0)
                    mu *= math.exp(rng.gauss(0.0, 0.05))
                    c = poisson(mu)
                    if c:
                        lines.append("%s %d\n" % (name, c))
                f.writelines(lines)
PY
    touch "$dir/.done"
fi
echo "tree: $K kernels x $B benchmarks x $R runs x $S symbols: $(find "$dir/tree" -type f | wc -l) files, $(du -sh "$dir/tree" | cut -f1), $(nproc) cores"
measure() {
    local label=$1; shift
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" > "$dir/out.$label" 2> "$dir/err.$label" || {
        echo "$label failed: $(tail -3 "$dir/err.$label")"; return 1; }
    read -r wall user sys rss < "$dir/time"
    printf "%-28s %8.1f s wall %8.1f s CPU %8.0f MB peak RSS\n" "$label" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))"
}
first=$(ls "$dir/tree" | sort -V | head -1)
measure "batch --baseline $first" "$bin" batch "$dir/tree" --baseline "$first" -o json
measure "history" "$bin" history "$dir/tree" -o json
measure "history --jobs 1" "$bin" history "$dir/tree" -o json --jobs 1
if cmp -s "$dir/out.history" "$dir/out.history --jobs 1"; then
    echo "history -o json: identical with --jobs 1"
else
    echo "history -o json DIFFERS with --jobs 1"; exit 1
fi
# The same result from the tree's counts table.
[ -f "$dir/table.parquet" ] || "$bin" export "$dir/tree" -o "$dir/table.parquet" 2> "$dir/err.export"
measure "history (counts table)" "$bin" history "$dir/table.parquet" -o json
if cmp -s "$dir/out.history" "$dir/out.history (counts table)"; then
    echo "history -o json: identical from the counts table"
else
    echo "history -o json from the counts table DIFFERS from the tree's"; exit 1
fi
python3 - "$dir/out.history" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
n = sum(len(b["steps"]) for b in d["benchmarks"])
sig = sum(s["significant"] for b in d["benchmarks"] for s in b["steps"])
print(f"history found {sig} significant step(s) ({n} reported) in {len(d['benchmarks'])} benchmarks; 5 per benchmark were planted")
PY
