#!/bin/bash
# Record testdata/badcomm/: one run whose two processes bear command names
# that are not UTF-8 (set with prctl(PR_SET_NAME) by scripts/badcomm.c:
# `spin` + bytes ff fe, and `spin` + a cut two-byte sequence c3), as
# perf.data and as the perf script text of the same recording, for --comm
# on both.
#
#   usage: sudo bash scripts/record-badcomm.sh OUTDIR
#
# OUTDIR gets:
#   run.perf.data.gz   perf record -e cpu-clock -F 999 -- badcomm
#   run.script.txt     perf script -i run.perf.data (stderr dropped)
#   kallsyms.gz        /proc/kallsyms trimmed to the run's kernel samples
#   VERSIONS.txt       date, uname -r, perf --version, gcc --version
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-badcomm.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-badcomm.XXXXXX)
trap 'rm -rf "$W"' EXIT
gcc -O1 -o "$W/badcomm" "$HERE/badcomm.c"
perf record -e cpu-clock -F 999 -o "$W/run.data" -- "$W/badcomm" 2>"$W/log"
perf script -i "$W/run.data" 2>/dev/null >"$OUT/run.script.txt"
perf script -F ip -i "$W/run.data" 2>/dev/null >"$W/ips"
gzip -9nc "$W/run.data" >"$OUT/run.perf.data.gz"
python3 "$HERE/testdata-trim-kallsyms.py" /proc/kallsyms <"$W/ips" | gzip -9n >"$OUT/kallsyms.gz"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
	echo "gcc: $(gcc --version | head -1)"
} >"$OUT/VERSIONS.txt"
ls -l "$OUT" >&2
