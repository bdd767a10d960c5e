#!/bin/bash
# Write testdata/perf-report/comm/: perf report tables of the two
# system-wide runs of testdata/comm/ (scripts/record-comm.sh) in every sort
# order with a command (comm,dso,sym; comm,sym; pid,sym) and the filters
# perf itself applies (--percent-limit, --comms, --percentage relative),
# for --comm on perf report text. Trailing padding trimmed; perf's random
# `# (Tip: ...)` line dropped.
#
#   usage: bash scripts/testdata-report-comm.sh   (from the repository root)
set -euo pipefail
export LC_ALL=C
OUT=testdata/perf-report/comm
W=$(mktemp -d /tmp/testdata-report-comm.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"
zcat testdata/comm/kallsyms.gz >"$W/kallsyms"
for run in 1 2; do
	zcat "testdata/comm/run$run.perf.data.gz" >"$W/run$run.data"
	report() {
		perf report -i "$W/run$run.data" --kallsyms "$W/kallsyms" --stdio --no-children "$@" 2>/dev/null |
			grep -v '^# (Tip:' | sed 's/ *$//'
	}
	report --sort comm,dso,sym -n | gzip -9n >"$OUT/run$run.comm-dso-sym.txt.gz"
	report --sort comm,dso,sym -n --percent-limit 1 >"$OUT/run$run.comm-dso-sym-limit1.txt"
	report --sort comm,sym --percent-limit 0.5 >"$OUT/run$run.comm-sym-limit05.txt"
	report --sort pid,sym -n --percent-limit 1 >"$OUT/run$run.pid-sym-limit1.txt"
	report --comms spin --sort comm,dso,sym -n --percent-limit 1 >"$OUT/run$run.comms-spin-limit1.txt"
	report --comms spin --sort comm,dso,sym -n --percent-limit 1 --percentage relative \
		>"$OUT/run$run.comms-spin-limit1-relative.txt"
done
wc -c "$OUT"/* >&2
