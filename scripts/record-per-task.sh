#!/bin/bash
# Record testdata/reach/: two per-task runs (no -a) of the workload of
# scripts/record-comm.sh (`timeout 1.5 spin`, spin a copy of yes(1)), to
# compare with testdata/comm's system-wide runs (the warning that one side
# was recorded system-wide and the other per task).
#
#   usage: sudo bash scripts/record-per-task.sh OUTDIR
#
# OUTDIR gets task1.perf.data.gz, task2.perf.data.gz (perf record -e
# cpu-clock -F 499), kallsyms.gz (/proc/kallsyms trimmed to the runs'
# kernel samples) and VERSIONS.txt (date, uname -r, perf --version).
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: record-per-task.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-per-task.XXXXXX)
trap 'rm -rf "$W"' EXIT
cp /usr/bin/yes "$W/spin"
for run in 1 2; do
	perf record -e cpu-clock -F 499 -o "$W/task$run.data" -- \
		timeout 1.5 "$W/spin" >/dev/null 2>"$W/log" || [ $? = 124 ] # timeout's status
	perf script -F ip -i "$W/task$run.data" 2>>"$W/log" >>"$W/ips"
	gzip -9nc "$W/task$run.data" >"$OUT/task$run.perf.data.gz"
done
python3 "$HERE/testdata-trim-kallsyms.py" /proc/kallsyms <"$W/ips" | gzip -9n >"$OUT/kallsyms.gz"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
} >"$OUT/VERSIONS.txt"
ls -l "$OUT" >&2
