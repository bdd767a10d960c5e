#!/usr/bin/env bash
# testdata/onerun/: two runs of the busy calibration set's cxx workload
# (system-wide perf script, /work/rec/busy, see its README.txt) reduced to
# what a one-run-per-side comparison under `--comm '^cxxload$'` sees: the
# workload's rows (every symbol's count, dsos merged by name) and one row
# `[other_processes]` holding the rest of the run's samples, so that each
# folded run's total is the recorded run's total. Run 2 was recorded beside
# our own `yes` load: the workload has 4% of its samples against 11% in
# run 4, the common shift that docs/statistics.md §5.4 must count as noise.
#
#     bash scripts/testdata-onerun-busy.sh /work/rec/busy testdata/onerun
set -euo pipefail
SET=${1:?recording set (e.g. /work/rec/busy)}
OUT=${2:?output directory}
BIN=${BIN:-target/release/diffprofile}
mkdir -p "$OUT"
for r in 2 4; do
    "$BIN" "$SET/perf-script/cxx/run$r.txt.gz" "$SET/perf-script/cxx/run$r.txt.gz" \
        --comm '^cxxload$' -o json |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
total = d["sides"][0]["runs"][0]["total"]
counts = {}
for row in d["rows"]:
    c = row["old_counts"][0]
    if c > 0:
        counts[row["symbol"]] = counts.get(row["symbol"], 0) + c
kept = sum(counts.values())
for name in sorted(counts):
    print(f"{name.replace(chr(32), chr(95)).replace(chr(59), chr(95))} {int(counts[name])}")
print(f"[other_processes] {int(total - kept)}")
' > "$OUT/cxx-run$r.folded"
done
