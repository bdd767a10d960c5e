#!/usr/bin/env bash
# Record the deep-callchain testdata (testdata/deep/): a C program that
# recurses DEPTH deep and spins at the bottom (scripts/deep-recursion.c,
# frame pointers), recorded with callchains as deep as perf unwinds them.
# kernel.perf_event_max_stack is raised for the recording and put back.
# (A sample record is at most 64 KiB, so perf.data holds at most ~8,000
# frames a chain; the tests repeat the recursion frame of these real
# samples to reach 100,000.)
#
#   usage: sudo bash scripts/record-deep.sh [WORKDIR]   (default /work/rec-html/deep)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
W=${1:-/work/rec-html/deep}
mkdir -p "$W"
cd "$W"
gcc -O0 -g -fno-omit-frame-pointer -o deep "$here/scripts/deep-recursion.c"
old=$(cat /proc/sys/kernel/perf_event_max_stack)
trap 'sysctl -qw kernel.perf_event_max_stack="$old"' EXIT
sysctl -qw kernel.perf_event_max_stack=65535
for d in 5000 3000; do
    perf record -e cpu-clock -F 999 -g -o "deep-$d-small.data" -- ./deep "$d" 30000000
    perf script --max-stack 65535 -i "deep-$d-small.data" > "deep-$d-small.script"
    # The first 8 samples with a deep chain (blank-line separated records).
    awk -v RS= -v ORS='\n\n' 'NF>100 && n<8 {print; n++}' "deep-$d-small.script" |
        gzip -9n > "$here/testdata/deep/deep-$d.perf-script.txt.gz"
done
