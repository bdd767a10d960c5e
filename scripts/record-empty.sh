#!/bin/bash
# Record runs that hold no samples (testdata/empty/), for the checks that
# refuse them as runs.
#
#   usage: bash scripts/record-empty.sh OUTDIR      (root: perf, readprofile)
#
# - zero.perf.data.gz: perf record with a one-second period around `true`,
#   which ends before the first sample: a valid recording of 0 samples.
# - zero-ticks-a.readprofile.txt.gz: readprofile -a (every symbol, 0 ticks)
#   of a /proc/profile image of zeros built for testdata/raw/System.map.gz
#   (scripts/testdata-procprofile.py image, given no instruction pointers).
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: record-empty.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
W=$(mktemp -d /tmp/record-empty.XXXXXX)
trap 'rm -rf "$W"' EXIT
perf record -e cpu-clock -c 1000000000 -o "$W/zero.data" -- true
gzip -9n <"$W/zero.data" >"$OUT/zero.perf.data.gz"
zcat "$HERE/../testdata/raw/System.map.gz" >"$W/System.map"
python3 "$HERE/testdata-procprofile.py" image "$W/System.map" "$W/zero.img" </dev/null
readprofile -a -p "$W/zero.img" -m "$W/System.map" | gzip -9n >"$OUT/zero-ticks-a.readprofile.txt.gz"
