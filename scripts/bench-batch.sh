#!/usr/bin/env bash
# Times `diffprofile batch` on 10,000 small real profiles: 2 kernels x 50
# benchmarks x 100 runs, made by copying the committed real runs of
# testdata/perf-report/sym-n/* (even benchmarks) and
# testdata/readprofile/default/* (odd benchmarks). Kernel `base` gets the
# `pipes` runs everywhere; kernel `next` gets `sockets` runs in every fifth
# benchmark (real regressions) and `pipes` runs elsewhere (A/A).
# Built under ${BENCH_DIR:-/tmp/diffprofile-bench} as a directory and as tar.gz.
# Usage: bash scripts/bench-batch.sh [ROUNDS]   (target: < 2 s each on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
dir=${BENCH_DIR:-/tmp/diffprofile-bench}
cargo build --release --quiet
bin=$PWD/target/release/diffprofile
if [ ! -f "$dir/tree.tar.gz" ]; then
    rm -rf "$dir"
    mkdir -p "$dir/tree"
    for b in $(seq -w 0 49); do
        if (( 10#$b % 2 == 0 )); then src=testdata/perf-report/sym-n; else src=testdata/readprofile/default; fi
        for k in base next; do
            w=pipes
            if [ $k = next ] && (( 10#$b % 5 == 0 )); then w=sockets; fi
            d="$dir/tree/$k/bench$b"
            mkdir -p "$d"
            for r in $(seq -w 0 99); do
                cp "$src/$w/run$(( 10#$r % 4 + 1 )).txt" "$d/run$r.txt"
            done
        done
    done
    tar -C "$dir/tree" -czf "$dir/tree.tar.gz" .
fi
echo "files: $(find "$dir/tree" -type f | wc -l), tree $(du -sh "$dir/tree" | cut -f1), tar.gz $(du -h "$dir/tree.tar.gz" | cut -f1), $(nproc) cores"
for root in "$dir/tree" "$dir/tree.tar.gz"; do
    for i in $(seq "$rounds"); do
        start=$(date +%s.%N)
        # (The runs are copies of 4 real runs each: --allow-duplicates.)
        "$bin" batch "$root" --baseline base -o json --allow-duplicates > "$dir/out.json"
        end=$(date +%s.%N)
        printf '%-40s round %d: %.2f s\n' "$(basename "$root")" "$i" "$(echo "$end - $start" | bc)"
    done
done
