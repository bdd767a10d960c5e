#!/usr/bin/env bash
# Benchmark: diffprofile reading perf.data files directly, against
# `perf report --no-children -g none --sort dso,sym -n` on the same files,
# all measured in one run (best of RUNS wall and CPU seconds, the highest
# peak RSS), with the ratios; then a check that both name and count every
# row alike (scripts/check-user-symbols.py).
#
#   bash scripts/bench-perf-data.sh                     # record (once) + bench
#   RUNS=5 bash scripts/bench-perf-data.sh A.data B.data …  # given recordings
#   BATCH=100 bash scripts/bench-perf-data.sh A.data    # + `batch` over 100 runs
#
# Without arguments it records system-wide for 60 s (root needed), plain,
# with -g and with -z, into $DIR (default /tmp/diffprofile-bench-perfdata),
# never into the repository:
#   perf record -e cpu-clock -a -F 4999 [-g|-z] -- sleep 60
# Run something meanwhile (a build): its user-space samples hit large
# binaries whose symbol tables are read as perf reads them.
#
# BATCH=N: a results tree of N runs (hard links of the first file, half
# of them under each of two kernels) read by one `diffprofile batch`,
# against N separate perf report runs (REPORT_RUNS of them measured, default
# 10, scaled to N: each perf report run reads everything afresh).
#
# BIN: the diffprofile binary (default target/release/diffprofile, built).
# The machine's other load shows in wall times: compare CPU seconds, and
# the rows of one run; `uptime` is printed with the results.
set -euo pipefail
DIR=${DIR:-/tmp/diffprofile-bench-perfdata}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR"
export LC_ALL=C
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    for kind in plain g z; do
        f=$DIR/$kind.data
        flag=
        [ $kind = g ] && flag=-g
        [ $kind = z ] && flag=-z
        [ -s "$f" ] || perf record -q -e cpu-clock -a -F 4999 $flag -o "$f" -- sleep 60
        files+=("$f")
    done
fi

if [ -z "${BIN:-}" ]; then
    (cd "$ROOT" && cargo build --release --locked -q)
    BIN=$ROOT/target/release/diffprofile
fi

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

table() {
    awk -F'\t' 'BEGIN { printf "| %-46s | %8s | %8s | %8s | %8s | %7s |\n|---|---:|---:|---:|---:|---:|\n",
                        "command", "wall s", "× perf", "CPU s", "× perf", "RSS MB" }
        NR == 1 { w = $2; c = $3 }
        { printf "| %-46s | %8.2f | %8.2f | %8.2f | %8.2f | %7.0f |\n", $1, $2, w / $2, $3, c / $3, $4 / 1024 }'
}

for f in "${files[@]}"; do
    report="perf report -i $f --stdio --no-children -g none --sort dso,sym -n"
    $report >"$f.report" 2>/dev/null
    samples=$(awk '/^# Samples:/ { print $3, $4; exit }' "$f.report")
    echo
    echo "$(basename "$f"): $(du -h "$f" | cut -f1), $samples samples, best of $RUNS, $(nproc) cpus"
    {
        best "perf report --no-children -g none --sort dso,sym -n" $report
        best "diffprofile FILE report.txt (one read)" "$BIN" -o json "$f" "$f.report"
        best "diffprofile FILE FILE (two reads)" "$BIN" -o json "$f" "$f"
    } | table
    python3 "$ROOT/scripts/check-user-symbols.py" "$f" --report "$f.report" \
        --diffprofile "$BIN" --quiet || true
done

if [ -n "${BATCH:-}" ]; then
    f=${files[0]}
    tree=$DIR/batch-tree
    rm -rf "$tree"
    for i in $(seq 0 $((BATCH - 1))); do
        k=base
        ((i % 2)) && k=next
        mkdir -p "$tree/$k/sys"
        ln "$f" "$tree/$k/sys/run$(printf %03d "$i").data" 2>/dev/null ||
            cp "$f" "$tree/$k/sys/run$(printf %03d "$i").data"
    done
    n=${REPORT_RUNS:-10}
    echo
    echo "batch: $BATCH runs of $(basename "$f") ($(du -h "$f" | cut -f1) each), $n perf report runs measured"
    RUNS=1
    {
        best "$n × perf report" sh -c "for i in \$(seq $n); do perf report -i $f --stdio --no-children -g none --sort dso,sym -n >/dev/null 2>&1; done"
        best "diffprofile batch ($BATCH runs)" "$BIN" batch "$tree" --baseline base -o json --allow-duplicates
    } | awk -F'\t' -v n="$n" -v b="$BATCH" '
        BEGIN { printf "| %-46s | %8s | %8s | %8s | %8s | %7s |\n|---|---:|---:|---:|---:|---:|\n",
                       "command", "wall s", "× perf", "CPU s", "× perf", "RSS MB" }
        NR == 1 { w = $2 * b / n; c = $3 * b / n
                  printf "| %-46s | %8.1f | %8s | %8.1f | %8s | %7.0f |\n", b " × perf report (" n " measured, scaled)", w, "1.00", c, "1.00", $4 / 1024; next }
        { printf "| %-46s | %8.1f | %8.2f | %8.1f | %8.2f | %7.0f |\n", $1, $2, w / $2, $3, c / $3, $4 / 1024 }'
    rm -rf "$tree"
fi
echo
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
