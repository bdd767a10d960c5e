#!/bin/bash
# Record testdata/script-header/: two short runs' `perf script --header`
# text (perf's `# ========` header block, then the samples), for the test
# that two outputs concatenated into one file (`cat run1.txt run2.txt`)
# are refused, not read as one run.
#
#   usage: sudo bash scripts/record-script-header.sh OUTDIR
#
# OUTDIR gets run1.txt and run2.txt (perf record -e cpu-clock -F 999 -- dd
# if=/dev/zero of=/dev/null bs=4k count=100000; perf script --header, the
# host name line dropped) and VERSIONS.txt.
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-script-header.sh OUTDIR}
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-script-header.XXXXXX)
trap 'rm -rf "$W"' EXIT
for run in 1 2; do
	perf record -e cpu-clock -F 999 -o "$W/run$run.data" -- \
		dd if=/dev/zero of=/dev/null bs=4k count=100000 2>"$W/log"
	perf script --header -i "$W/run$run.data" 2>/dev/null |
		grep -v '^# hostname :' >"$OUT/run$run.txt"
done
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
} >"$OUT/VERSIONS.txt"
ls -l "$OUT" >&2
