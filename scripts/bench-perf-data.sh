#!/usr/bin/env bash
# Benchmark: diffprofile reading a perf.data of >= 1M samples directly,
# against `perf report --no-children -g none --sort sym -n` on the same file.
#
# Input: none (records its own file; root needed for -a). Output: the sample
# count, a hyperfine table (or `time` lines without hyperfine), and a check
# that both give the same kernel counts. Everything lives under $DIR
# (default /tmp/diffprofile-bench-perfdata), never in the repository.
#
#   bash scripts/bench-perf-data.sh            # record (once) + bench
#   DIR=/tmp/x RUNS=5 bash scripts/bench-perf-data.sh
#
# The machine's other load shows in the spread: compare the rows of one run.
set -euo pipefail
DIR=${DIR:-/tmp/diffprofile-bench-perfdata}
RUNS=${RUNS:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR"
DATA=$DIR/big.data
export LC_ALL=C

if [ ! -s "$DATA" ]; then
    # cpu-clock at 20 kHz on every CPU while a kernel-heavy load runs.
    perf record -q -e cpu-clock -F 20000 -a -o "$DATA" -- \
        perf bench sched messaging -g 20 -l 4000 >/dev/null 2>&1
fi
SAMPLES=$(perf report -i "$DATA" --stdio --no-children -g none --sort sym -n 2>/dev/null |
    awk '/^#/ {next} NF >= 3 && $2 ~ /^[0-9]+$/ {s += $2} END {print s}')
echo "file: $DATA ($(du -h "$DATA" | cut -f1)), $SAMPLES samples"
if [ "$SAMPLES" -lt 1000000 ]; then
    echo "fewer than 1M samples: remove $DATA and raise -l" >&2
fi

(cd "$ROOT" && cargo build --profile profiling -q)
BIN=$ROOT/target/profiling/diffprofile
REPORT="perf report -i $DATA --stdio --no-children -g none --sort sym -n"
DIFF="$BIN -o json $DATA $DATA"
DIFF1="$BIN -o json $DATA $DIR/report.txt"

# Same kernel counts? perf report's [k] rows (summed by name, as two
# same-named static functions are two rows there) vs diffprofile's kernel rows.
$REPORT 2>/dev/null > "$DIR/report.txt"
$BIN -o json --keep-suffixes --kernel-only "$DATA" "$DATA" 2>/dev/null > "$DIR/check.json"
python3 - "$DIR/check.json" "$DIR/report.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
ours = {}
for r in d["rows"]:
    if r.get("mode") == "kernel" and r["symbol"] != "[unknown]":
        ours[r["symbol"]] = ours.get(r["symbol"], 0) + r["old_counts"][0]
perf = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s+[\d.]+%\s+(\d+)\s+\[k\] (\S+)\s*$", line)
    if m and not m.group(2).startswith("0x"):
        perf[m.group(2)] = perf.get(m.group(2), 0) + int(m.group(1))
bad = [s for s in set(ours) | set(perf) if ours.get(s) != perf.get(s)]
print(f"kernel symbols: {len(ours)} (diffprofile) vs {len(perf)} (perf report); samples "
      f"{sum(ours.values())} vs {sum(perf.values())}; mismatches: {len(bad)} {sorted(bad)[:5]}")
PY

if command -v hyperfine >/dev/null; then
    hyperfine -w 1 -r "$RUNS" -N --export-markdown "$DIR/bench.md" \
        -n "perf report --no-children -g none --sort sym -n" "$REPORT" \
        -n "diffprofile big.data report.txt (one perf.data read)" "$DIFF1" \
        -n "diffprofile big.data big.data (two reads)" "$DIFF" \
        -n "perf report, twice (what diffing two files needs)" "sh -c '$REPORT >/dev/null 2>&1; $REPORT >/dev/null 2>&1'"
    cat "$DIR/bench.md"
else
    for c in "$REPORT" "$DIFF"; do
        echo "$c"
        /usr/bin/time -f "%e s, %M KB" $c > /dev/null 2>"$DIR/time.txt" || true
        tail -1 "$DIR/time.txt"
    done
fi
