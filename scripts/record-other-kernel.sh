#!/bin/bash
# Record the small "second kernel" data set of testdata/other-kernel/: one
# recording made on a kernel build other than the one behind the rest of
# testdata/ (the main set is 6.18.44-fc-v657), with that kernel's own symbol
# maps. Paired with the main set's maps it gives real "map of another
# kernel" inputs: a perf.data read with the other kernel's kallsyms, a
# /proc/profile image folded onto the other kernel's System.map.
#
#   usage: sudo bash scripts/record-other-kernel.sh OUTDIR
#
# Must run as root (kernel symbols, /proc/kallsyms addresses) with perf,
# readprofile and python3. Takes a few seconds. OUTDIR gets:
#   sockets.perf.data.gz     perf record -e cpu-clock -F 999 (perf bench sched messaging -g 10 -l 100)
#   kallsyms.gz              /proc/kallsyms trimmed to the recording's kernel samples
#   sockets.proc-profile.gz  a /proc/profile image of the same samples (step 4)
#   System.map.gz            the running kernel's System.map trimmed to that image
#   VERSIONS.txt             uname -r, perf --version, readprofile -V, date
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-other-kernel.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-other-kernel.XXXXXX)
trap 'rm -rf "$W"' EXIT

perf record -e cpu-clock -F 999 -o "$W/sockets.data" -- \
	perf bench sched messaging -g 10 -l 100 >"$W/log" 2>&1
perf script -F ip -i "$W/sockets.data" 2>>"$W/log" >"$W/ips"
python3 "$HERE/testdata-trim-kallsyms.py" /proc/kallsyms <"$W/ips" | gzip -9n >"$OUT/kallsyms.gz"
python3 "$HERE/testdata-procprofile.py" sysmap </proc/kallsyms >"$W/System.map"
python3 "$HERE/testdata-procprofile.py" image "$W/System.map" "$W/sockets.img" 4 <"$W/ips"
python3 "$HERE/testdata-procprofile.py" trim "$W/System.map" "$W/sockets.img" >"$W/System.map.trimmed"
for opt in "" -v; do
	# shellcheck disable=SC2086
	cmp -s <(readprofile $opt -p "$W/sockets.img" -m "$W/System.map") \
		<(readprofile $opt -p "$W/sockets.img" -m "$W/System.map.trimmed") ||
		{ echo "trimmed System.map does not reproduce readprofile $opt" >&2; exit 1; }
done
gzip -9nc "$W/sockets.data" >"$OUT/sockets.perf.data.gz"
gzip -9nc "$W/sockets.img" >"$OUT/sockets.proc-profile.gz"
gzip -9nc "$W/System.map.trimmed" >"$OUT/System.map.gz"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
	echo "readprofile: $(readprofile -V)"
	echo "_text: $(grep -m1 ' _text$' /proc/kallsyms | cut -d' ' -f1)"
	echo "_etext: $(grep -m1 ' _etext$' /proc/kallsyms | cut -d' ' -f1)"
} >"$OUT/VERSIONS.txt"
ls -l "$OUT" >&2
