#!/usr/bin/env bash
# testdata/modelburst/: five runs of the own calibration set's `pipe`
# workload (perf script of `perf bench sched pipe`, /work/rec/own, recorded
# 2026-12-03 by scripts/record-calibration.sh) reduced to one folded line
# per symbol (`symbol count`, dsos merged by name, spaces and `;` in names
# as `_`), so each file's total is the recorded run's. Run 4 holds a burst
# in `_raw_spin_unlock_irqrestore` (1972 against 1639 the others expect):
# compared with run 2, one run a side, with a noise model of runs 1, 5, 6
# (docs/statistics.md §5.3, the single OLD run joins the model).
#
#     bash scripts/testdata-model-burst.sh /work/rec/own testdata/modelburst
set -euo pipefail
SET=${1:?recording set (e.g. /work/rec/own)}
OUT=${2:?output directory}
BIN=${BIN:-target/release/diffprofile}
mkdir -p "$OUT"
for r in 1 2 4 5 6; do
    "$BIN" "$SET/perf-script/pipe/run$r.txt.gz" "$SET/perf-script/pipe/run$r.txt.gz" -o json |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
total = d["sides"][0]["runs"][0]["total"]
counts = {}
for row in d["rows"]:
    c = row["old_counts"][0]
    if c > 0:
        counts[row["symbol"]] = counts.get(row["symbol"], 0) + c
assert sum(counts.values()) == total, (sum(counts.values()), total)
for name in sorted(counts):
    print(f"{name.replace(chr(32), chr(95)).replace(chr(59), chr(95))} {int(counts[name])}")
' > "$OUT/pipe-run$r.folded"
done
