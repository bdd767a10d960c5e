#!/usr/bin/env bash
# Benchmarks of results trees, on copies of the committed real runs of
# testdata/perf-report/sym-n/* (even benchmarks) and
# testdata/readprofile/default/* (odd benchmarks). Kernel `base` gets the
# `pipes` runs everywhere; kernel `next` gets `sockets` runs in every fifth
# benchmark (real regressions) and `pipes` runs elsewhere (A/A).
#
#   bash scripts/bench-batch.sh [ROUNDS]
#     times `diffprofile batch` on 10,000 profiles (2 kernels x 50
#     benchmarks x 100 runs), as a directory and as tar.gz
#     (target: < 2 s each on 2 cores).
#   bash scripts/bench-batch.sh export
#     the counts table (docs/archives.md) on 100,000
#     profiles (2 kernels x 100 benchmarks x 500 runs): `diffprofile export`
#     from the directory and from the tar.gz on one core (--jobs 1) and on
#     every core (wall and CPU seconds, profiles per minute per core, peak
#     RSS); two `--shard K/2` processes at once, whose rows must equal the
#     single export's (DuckDB: EXCEPT ALL both ways); and `batch` from the
#     files, from the table and from the two shards, whose JSON must be
#     byte-identical (every benchmark's comparison). Needs python3 with
#     duckdb. Targets: >= 100,000 profiles per minute per core, <= 200 MB.
# Trees are built under ${BENCH_DIR:-/tmp/diffprofile-bench} (-export for the export mode).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-3}
dir=${BENCH_DIR:-/tmp/diffprofile-bench}
cargo build --profile profiling --quiet
bin=$PWD/target/profiling/diffprofile

# make_tree DIR BENCHMARKS RUNS: the tree and DIR/tree.tar.gz.
make_tree() {
    [ -f "$1/tree.tar.gz" ] && return
    rm -rf "$1"
    mkdir -p "$1/tree"
    python3 - "$1/tree" "$2" "$3" <<'EOF'
import os, shutil, sys
root, benches, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
width = len(str(benches - 1))
for b in range(benches):
    src = "testdata/perf-report/sym-n" if b % 2 == 0 else "testdata/readprofile/default"
    for k in ("base", "next"):
        w = "sockets" if k == "next" and b % 5 == 0 else "pipes"
        d = os.path.join(root, k, f"bench{b:0{width}d}")
        os.makedirs(d)
        for r in range(runs):
            shutil.copyfile(f"{src}/{w}/run{r % 4 + 1}.txt", os.path.join(d, f"run{r:0{len(str(runs - 1))}d}.txt"))
EOF
    tar -C "$1/tree" -czf "$1/tree.tar.gz" .
}

describe() {
    echo "files: $(find "$1/tree" -type f | wc -l), tree $(du -sh "$1/tree" | cut -f1), tar.gz $(du -h "$1/tree.tar.gz" | cut -f1), $(nproc) cores"
}

if [ "$mode" != export ]; then
    make_tree "$dir" 50 100
    describe "$dir"
    for root in "$dir/tree" "$dir/tree.tar.gz"; do
        for i in $(seq "$mode"); do
            start=$(date +%s.%N)
            # (The runs are copies of 4 real runs each: --allow-duplicates.)
            "$bin" batch "$root" --baseline base -o json --allow-duplicates > "$dir/out.json"
            end=$(date +%s.%N)
            printf '%-40s round %d: %.2f s\n' "$(basename "$root")" "$i" "$(echo "$end - $start" | bc)"
        done
    done
    exit 0
fi

dir=${BENCH_DIR:-/tmp/diffprofile-bench}-export
make_tree "$dir" 100 500
describe "$dir"
profiles=$(find "$dir/tree" -type f | wc -l)
out=$dir/out
rm -rf "$out"
mkdir -p "$out/shards"
# timed LABEL STDOUT CMD...: wall s, CPU s (user+sys), peak RSS (MB);
# profiles per minute per core = profiles (or $count) / CPU minutes. CMD's stdout goes
# to STDOUT, its stderr to $out/stderr.
timed() {
    local label=$1 stdout=$2
    shift 2
    /usr/bin/time -f '%e %U %S %M' -o "$out/time" "$@" > "$stdout" 2> "$out/stderr"
    read -r wall user sys rss < "$out/time"
    awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v p="${count:-$profiles}" 'BEGIN {
        cpu = u + s
        printf "%-44s %7.2f s wall %7.2f s CPU %9.0f profiles/min/core %6.1f MB peak RSS\n", l, w, cpu, p / (cpu / 60), m / 1024
    }'
}
echo "== export ($profiles profiles)"
for root in tree tree.tar.gz; do
    timed "export $root --jobs 1" /dev/null "$bin" export "$dir/$root" -o "$out/$root.j1.parquet" --jobs 1
    timed "export $root (all cores)" /dev/null "$bin" export "$dir/$root" -o "$out/$root.parquet"
    cmp "$out/$root.j1.parquet" "$out/$root.parquet"
done
echo "   same bytes with --jobs 1 and all cores: yes; table $(du -h "$out/tree.parquet" | cut -f1), $(tail -1 "$out/stderr" | sed 's/^diffprofile: //')"
# Memory does not grow with the archive: a tenth of it (every tenth run group).
count=$((profiles / 10)) timed "export tree --shard 1/10 --jobs 1 (a tenth)" /dev/null \
    "$bin" export "$dir/tree" --shard 1/10 -o "$out/tenth.parquet" --jobs 1
echo "== two shards at once (--shard 1/2 and 2/2, from the tar.gz)"
start=$(date +%s.%N)
"$bin" export "$dir/tree.tar.gz" --shard 1/2 -o "$out/shards/1.parquet" 2> "$out/shard1.err" &
"$bin" export "$dir/tree.tar.gz" --shard 2/2 -o "$out/shards/2.parquet" 2> "$out/shard2.err" &
wait
end=$(date +%s.%N)
printf '   both done in %.2f s wall\n' "$(echo "$end - $start" | bc)"
python3 - "$out" <<'EOF'
import duckdb, sys
out = sys.argv[1]
c = duckdb.connect()
one = f"read_parquet('{out}/tree.tar.gz.parquet')"
two = f"read_parquet(['{out}/shards/1.parquet', '{out}/shards/2.parquet'])"
n1 = c.execute(f"SELECT count(*) FROM {one}").fetchone()[0]
n2 = c.execute(f"SELECT count(*) FROM {two}").fetchone()[0]
a = c.execute(f"SELECT count(*) FROM (SELECT * FROM {two} EXCEPT ALL SELECT * FROM {one})").fetchone()[0]
b = c.execute(f"SELECT count(*) FROM (SELECT * FROM {one} EXCEPT ALL SELECT * FROM {two})").fetchone()[0]
print(f"   rows: one export {n1}, two shards {n2}; rows in one but not the other: {a} and {b}")
sys.exit(0 if n1 == n2 and a == 0 and b == 0 else 1)
EOF
echo "== batch: from the files, from the table, from the two shards"
timed "batch tree" "$out/files.json" "$bin" batch "$dir/tree" --baseline base -o json --allow-duplicates
timed "batch table" "$out/table.json" "$bin" batch "$out/tree.parquet" --baseline base -o json --allow-duplicates
timed "batch shards/" "$out/shards.json" "$bin" batch "$out/shards" --baseline base -o json --allow-duplicates
cmp "$out/files.json" "$out/table.json"
cmp "$out/files.json" "$out/shards.json"
benches=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['benchmarks']))" "$out/files.json")
echo "   JSON byte-identical from files, table and shards ($benches benchmarks)"
