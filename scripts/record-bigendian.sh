#!/bin/bash
# Record testdata/bigendian/: a small system-wide recording that loses most
# of its samples (a one-page ring buffer at 100,000 samples a second per
# CPU), and its big-endian twin made by scripts/testdata-bigendian.py (no
# big-endian machine here), for the tests that every field of a big-endian
# perf.data is read in its byte order (PERF_RECORD_LOST_SAMPLES among them).
#
#   usage: sudo bash scripts/record-bigendian.sh OUTDIR
#
# OUTDIR gets:
#   le.perf.data.gz  the recording with the records and features the
#                    converter keeps (see it), little-endian
#   be.perf.data.gz  the same, big-endian
#   kallsyms.gz      /proc/kallsyms trimmed to the run's kernel samples
#   VERSIONS.txt     date, uname -r, perf --version
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-bigendian.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-bigendian.XXXXXX)
trap 'rm -rf "$W"' EXIT
perf record -e cpu-clock -m 1 -c 10000 -a -o "$W/lost.data" -- sleep 0.1 2>"$W/log"
python3 "$HERE/testdata-bigendian.py" "$W/lost.data" "$W/le.data" "$W/be.data"
# perf must read both alike (it swaps a big-endian file as it reads it).
for e in le be; do
	perf report -i "$W/$e.data" --stdio --no-children --sort sym -n 2>&1 |
		grep -v '(Tip: ' >"$W/$e.report"
done
cmp "$W/le.report" "$W/be.report"
gzip -9nc "$W/le.data" >"$OUT/le.perf.data.gz"
gzip -9nc "$W/be.data" >"$OUT/be.perf.data.gz"
perf script -F ip -i "$W/lost.data" 2>/dev/null |
	python3 "$HERE/testdata-trim-kallsyms.py" /proc/kallsyms | gzip -9n >"$OUT/kallsyms.gz"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
	grep -h 'Total Lost Samples\|^# Samples' "$W/le.report"
} >"$OUT/VERSIONS.txt"
ls -l "$OUT" >&2
