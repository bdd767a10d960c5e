#!/bin/bash
# Record testdata/comm/: two system-wide runs in which one command name is
# shared by unrelated processes and another name starts with it, for the
# process filters (--comm matched whole, --pid, the warning of a name that
# unrelated processes share).
#
#   usage: sudo bash scripts/record-comm.sh OUTDIR
#
# Per run: `spin2line` (a copy of yes(1)) and another user's `spin`
# (nobody's, started before the recording) run in the background; the
# workload is `timeout 1.5 spin`, forked by perf record -a. Must run as
# root (system-wide recording, kernel addresses). OUTDIR gets:
#   run1.perf.data.gz, run2.perf.data.gz  perf record -a -e cpu-clock -F 499
#   kallsyms.gz    /proc/kallsyms trimmed to the runs' kernel samples
#   pids.txt       each run's PIDs: the workload, nobody's spin, spin2line
#   VERSIONS.txt   date, uname -r, perf --version
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-comm.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-comm.XXXXXX)
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
cp /usr/bin/yes "$W/spin"
cp /usr/bin/yes "$W/spin2line"
: >"$OUT/pids.txt"
for run in 1 2; do
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$W/spin" >/dev/null 2>&1 &
	other=$!
	"$W/spin2line" >/dev/null 2>&1 &
	prefixed=$!
	sleep 0.3
	perf record -a -e cpu-clock -F 499 -o "$W/run$run.data" -- \
		timeout 1.5 "$W/spin" >/dev/null 2>"$W/log" || [ $? = 124 ] # timeout's status
	kill "$other" "$prefixed"
	wait "$other" "$prefixed" 2>/dev/null || true
	workload=$(perf script -i "$W/run$run.data" -F comm,pid 2>/dev/null |
		awk '$1 == "spin" { print $2 }' | sort | uniq -c | sort -n |
		awk -v o="$other" '$2 != o { p = $2 } END { print p }')
	echo "run$run: workload spin $workload, nobody's spin $other, spin2line $prefixed" >>"$OUT/pids.txt"
	perf script -F ip -i "$W/run$run.data" 2>>"$W/log" >>"$W/ips"
	gzip -9nc "$W/run$run.data" >"$OUT/run$run.perf.data.gz"
done
python3 "$HERE/testdata-trim-kallsyms.py" /proc/kallsyms <"$W/ips" | gzip -9n >"$OUT/kallsyms.gz"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
} >"$OUT/VERSIONS.txt"
ls -l "$OUT" >&2
