#!/bin/bash
# Record testdata/contamination/: short perf recordings of one workload
# (find over /usr), some with a `yes >/dev/null` process running beside it,
# for the tests of the warning that attributes changed rows to processes
# present on one side only (src/sanity/contamination.rs). The recorded
# command starts `yes` itself, so that it is in the recording the way another
# job is in a system-wide one, while the other jobs of a loaded machine are
# not (a system-wide recording of a loaded machine holds so many processes
# that 3 s runs mark nothing).
#
#   usage: sudo bash scripts/record-contamination.sh OUTDIR
#
# Writes OUTDIR/plainN.txt.gz (N = 1..5: the workload alone, as far as a
# system-wide recording is alone) and OUTDIR/yesN.txt.gz (N = 1..2: the
# same with `yes` beside it), perf script text without callchains, and
# OUTDIR/VERSIONS.txt. Each run: perf record -e cpu-clock -F 1999 for
# about 3 s.
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: record-contamination.sh OUTDIR}
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
W=$(mktemp -d /tmp/record-contamination.XXXXXX)
trap 'rm -rf "$W"' EXIT

work() { timeout 3 bash -c 'while :; do find /usr >/dev/null; done' || true; }
with_yes() {
	yes >/dev/null &
	local y=$!
	work
	kill "$y"
}
export -f work with_yes
record() { # NAME FUNCTION
	perf record -q -e cpu-clock -F 1999 -o "$W/$1.data" -- bash -c "$2" >/dev/null 2>&1
	perf script -i "$W/$1.data" 2>/dev/null | gzip -9n >"$OUT/$1.txt.gz"
}

work # warm the dentry cache, unrecorded
for n in 1 2 3 4 5; do record "plain$n" work; done
for n in 1 2; do record "yes$n" with_yes; done
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m)), $(nproc) CPUs"
	echo "perf: $(perf --version)"
	echo "load1 at the end: $(cut -d' ' -f1 /proc/loadavg)"
} >"$OUT/VERSIONS.txt"
