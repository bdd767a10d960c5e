#!/usr/bin/env bash
# export -> engine -> diffprofile, end to end, on the repo's testdata
# (docs/archives.md). Builds a small results tree from the
# committed real runs: kernels v6.1 (pipes), v6.2 and v6.3 (threads: the
# file table is shared, so fdget_pos grows), benchmarks hackbench-rp
# (readprofile), hackbench-perf (perf report) and steady (pipes on every
# kernel). Then:
#   1. two "machines" export it: `diffprofile export --shard 1/2` and `2/2`;
#   2. DuckDB answers "since which kernel has fdget_pos been growing, on
#      which benchmarks?" over the two shards and writes the rows of those
#      benchmarks back as Parquet (scripts/engine-duckdb.py);
#   3. diffprofile reads the engine's table: `batch` over it, and one
#      `--table` comparison;
#   4. checks that batch over the shards gives the same JSON as batch over
#      the files, and that DuckDB's shares are diffprofile's.
# Needs python3 with duckdb (bash .ci/run installs it). DIFFPROFILE names
# the binary (default: a release build of this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DIFFPROFILE:-}
if [ -z "$bin" ]; then
    cargo build --release --quiet
    bin=$PWD/target/release/diffprofile
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/results
for k in v6.1 v6.2 v6.3; do
    w=threads
    [ $k = v6.1 ] && w=pipes
    for r in 1 2 3 4; do
        mkdir -p "$tree/$k/hackbench-rp" "$tree/$k/hackbench-perf" "$tree/$k/steady"
        cp "testdata/readprofile/default/$w/run$r.txt" "$tree/$k/hackbench-rp/run$r.txt"
        cp "testdata/perf-report/sym-n/$w/run$r.txt" "$tree/$k/hackbench-perf/run$r.txt"
        # steady: the pipes runs everywhere, in another order per kernel.
        cp "testdata/readprofile/default/pipes/run$(( (r + ${k#v6.}) % 4 + 1 )).txt" "$tree/$k/steady/run$r.txt"
    done
done
echo "== 1. export on two machines (--shard 1/2, --shard 2/2)"
mkdir -p "$work/warehouse"
"$bin" export "$tree" --shard 1/2 -o "$work/warehouse/part-1.parquet"
"$bin" export "$tree" --shard 2/2 -o "$work/warehouse/part-2.parquet"
echo
echo "== 2. DuckDB: since which kernel has fdget_pos been growing, on which benchmarks?"
python3 scripts/engine-duckdb.py "$work/warehouse" "$work/engine" fdget_pos v6.1 > "$work/answer.json"
python3 - "$work/answer.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
print(f"{'benchmark':<16} {'kernel':<7} {'runs':>4} {'share %':>8}")
for h in a["history"]:
    print(f"{h['benchmark']:<16} {h['kernel']:<7} {h['runs']:>4} {h['share']:>8.3f}")
print("growing: " + ", ".join(f"{g['benchmark']} since {g['since']}" for g in a["growing"]))
EOF
echo
echo "== 3. diffprofile reads the engine's table (the growing benchmarks' rows)"
"$bin" batch "$work/engine/growing.parquet" --baseline v6.1 2> /dev/null | sed -n '/^=== index/,$p'
"$bin" --table "$work/engine/by-benchmark" --old kernel=v6.1 --new kernel=v6.3 \
    --where benchmark=hackbench-perf --top 3
echo
echo "== 4. checks"
"$bin" batch "$tree" --baseline v6.1 -o json > "$work/files.json" 2> /dev/null
"$bin" batch "$work/warehouse" --baseline v6.1 -o json > "$work/table.json" 2> /dev/null
cmp "$work/files.json" "$work/table.json"
echo "batch over the two shards: JSON identical to batch over the files"
python3 - "$work/answer.json" "$work/files.json" <<'EOF'
import json, sys
answer, report = (json.load(open(p)) for p in sys.argv[1:3])
values = {}
for b in report["benchmarks"]:
    for row in b["report"]["rows"]:
        if row["symbol"] == answer["symbol"]:
            values[(b["name"], "v6.1")] = row["old"]
            for vs in row["vs"]:
                values[(b["name"], vs["side"])] = vs["new"]
for h in answer["history"]:
    ours = values[(h["benchmark"], h["kernel"])]
    assert abs(ours - h["share"]) <= 1e-9 * max(1.0, abs(ours)), (h, ours)
print(f"DuckDB's {len(answer['history'])} shares of {answer['symbol']} equal diffprofile's")
EOF
