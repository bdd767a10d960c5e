#!/usr/bin/env bash
# Benchmark: `diffprofile batch` over a results tree of 100 perf.data runs
# against 100 separate `perf report --no-children -g none --sort dso,sym -n`
# runs of the same files, both measured in one run (best of RUNS wall and
# CPU seconds, the highest peak RSS), with the ratio; then a check that
# the counts of a few runs equal perf report's
# (scripts/check-user-symbols.py).
#
#   bash scripts/bench-batch-perf-data.sh [TREE]
#
# TREE (default $DIR/tree, DIR default /tmp/diffprofile-bench-batch-pd)
# holds KERNEL/BENCHMARK/runNN.data. When it does not exist it is recorded
# first (root and perf needed, about 20 minutes): 2 kernels x 5 benchmarks
# x 10 runs, each run a separate system-wide recording with callchains of
# one workload running for RUN_SECONDS (default 9) seconds, 10-20 MB each:
#   perf record -e cpu-clock -a -F 4999 -g -- timeout RUN_SECONDS sh -c 'while :; do WORKLOAD; done'
# The two "kernels" are the running kernel recorded at two times (the
# runs of a kernel alternate with the other's): a real A/B tree needs a
# reboot between its halves; the work per run is the same.
#
# RUNS (default 5): repetitions of each measurement. BIN: the diffprofile
# binary (default target/profiling/diffprofile, built). CHECK (default 3):
# runs whose counts are checked against perf report's.
# The machine's other load shows in wall times: compare CPU seconds too;
# `uptime` is printed before and after.
set -euo pipefail
DIR=${DIR:-/tmp/diffprofile-bench-batch-pd}
TREE=${1:-$DIR/tree}
RUNS=${RUNS:-5}
SECONDS_PER_RUN=${RUN_SECONDS:-9}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export LC_ALL=C
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
mkdir -p "$DIR"

workloads=(
    "messaging:perf bench sched messaging -g 5 -l 200"
    "pipe:perf bench sched pipe -l 50000"
    "dd4k:dd if=/dev/zero of=/dev/null bs=4k count=200000"
    "urandom:head -c 50M /dev/urandom | sha256sum"
    "find:find /usr -xdev"
)

if [ ! -d "$TREE" ]; then
    command -v perf >/dev/null || { echo "perf not found: give a TREE" >&2; exit 2; }
    tmp=$TREE.partial
    rm -rf "$tmp"
    for r in $(seq -w 1 10); do
        for k in a b; do
            for w in "${workloads[@]}"; do
                name=${w%%:*}
                mkdir -p "$tmp/$k/$name"
                perf record -q -e cpu-clock -a -F 4999 -g -o "$tmp/$k/$name/run$r.data" -- \
                    timeout "$SECONDS_PER_RUN" sh -c "while :; do ${w#*:}; done" \
                    >/dev/null 2>&1 || true
                [ -s "$tmp/$k/$name/run$r.data" ] ||
                    { echo "recording $k/$name/run$r failed" >&2; exit 1; }
            done
        done
    done
    mv "$tmp" "$TREE"
fi

if [ -z "${BIN:-}" ]; then
    (cd "$ROOT" && cargo build --profile profiling --locked -q)
    BIN=$ROOT/target/profiling/diffprofile
fi

mapfile -t files < <(find "$TREE" -name '*.data' -type f | sort)
n=${#files[@]}
[ "$n" -gt 0 ] || { echo "no perf.data under $TREE" >&2; exit 2; }
kernels=$(find "$TREE" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
base=$(echo "$kernels" | head -1)
printf '%s\n' "${files[@]}" >"$DIR/list"
# every file read once, so both commands start from a warm page cache
cat "${files[@]}" >/dev/null

# best NAME CMD...: "NAME<TAB>best wall<TAB>best CPU<TAB>max RSS KB" over RUNS runs
best() {
    local name=$1 w c r bw= bc= br=0
    shift
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -o "$DIR/time" -f '%e %U %S %M' "$@" >/dev/null 2>"$DIR/err" ||
            { echo "$name failed: $(head -3 "$DIR/err")" >&2; exit 1; }
        read -r w u s r < <(tail -1 "$DIR/time")
        c=$(echo "$u + $s" | bc -l)
        if [ -z "$bw" ] || (($(echo "$w < $bw" | bc -l))); then bw=$w; fi
        if [ -z "$bc" ] || (($(echo "$c < $bc" | bc -l))); then bc=$c; fi
        ((r > br)) && br=$r
    done
    printf '%s\t%s\t%s\t%s\n' "$name" "$bw" "$bc" "$br"
}

echo "$n perf.data runs under $TREE ($(du -sh "$TREE" | cut -f1);" \
    "$(du -b "${files[@]}" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.1f-%.1f MB each", lo / 1e6, hi / 1e6 }'))," \
    "kernels: $(echo $kernels), baseline $base, best of $RUNS, $(nproc) cpus"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
{
    best "$n × perf report (one process per run)" sh -c \
        'while read -r f; do perf report -i "$f" --stdio --no-children -g none --sort dso,sym -n >/dev/null 2>&1 || exit 1; done <"$1"' \
        sh "$DIR/list"
    best "diffprofile batch ($n runs)" "$BIN" batch "$TREE" --baseline "$base" -o json
    best "diffprofile batch ($n runs), text" "$BIN" batch "$TREE" --baseline "$base"
} | awk -F'\t' '
    BEGIN { printf "| %-40s | %8s | %8s | %8s | %8s | %7s |\n|---|---:|---:|---:|---:|---:|\n",
                   "command", "wall s", "× perf", "CPU s", "× perf", "RSS MB" }
    NR == 1 { w = $2; c = $3 }
    { printf "| %-40s | %8.2f | %8.2f | %8.2f | %8.2f | %7.0f |\n", $1, $2, w / $2, $3, c / $3, $4 / 1024 }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# counts: a few runs, each against its own perf report
check=${CHECK:-3}
for f in $(printf '%s\n' "${files[@]}" | awk -v n="$n" -v k="$check" 'NR % int(n / k + 1) == 1'); do
    perf report -i "$f" --stdio --no-children -g none --sort dso,sym -n >"$DIR/report" 2>/dev/null
    echo "counts of ${f#"$TREE"/}:"
    python3 "$ROOT/scripts/check-user-symbols.py" "$f" --report "$DIR/report" \
        --diffprofile "$BIN" --quiet || true
done
