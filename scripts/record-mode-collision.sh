#!/bin/bash
# Record a workload in which one name is both a kernel and a user function
# (testdata/modes/): a program whose own `read_zero` zeroes a buffer it has
# just read from /dev/zero, which the kernel fills in its `read_zero`.
# `perf report --sort sym` prints `[k] read_zero` and `[.] read_zero` rows
# with no dso column: the mode alone tells them apart.
#
#   usage: bash scripts/record-mode-collision.sh OUTDIR    (perf, gcc)
#
# For runs 1 and 2 (the user function zeroes 1/16 and 1/4 of each 64 KiB
# read): runN.report-sym.txt (perf report --stdio --sort sym -n) and
# runN.perf-script.txt.gz (perf script, default fields).
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: record-mode-collision.sh OUTDIR}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/record-modes.XXXXXX)
trap 'rm -rf "$W"' EXIT
for run in 1 2; do
    part=$([ "$run" = 1 ] && echo 16 || echo 4)
    cat >"$W/zero.c" <<C
#include <fcntl.h>
#include <unistd.h>
static char buf[1 << 16];
/* A user function with a kernel function's name. */
__attribute__((noinline)) void read_zero(char *p, unsigned long n)
{ volatile char *q = p; for (unsigned long i = 0; i < n; i++) q[i] = 0; }
int main(void) {
  int fd = open("/dev/zero", O_RDONLY);
  for (int i = 0; i < 40000; i++) {
    if (read(fd, buf, sizeof buf) < 0) return 1;
    read_zero(buf, sizeof buf / $part);
  }
  return 0;
}
C
    gcc -O1 -o "$W/zero" "$W/zero.c"
    perf record -q -e cpu-clock -F 999 -o "$W/run$run.data" -- "$W/zero"
    perf report -i "$W/run$run.data" --stdio --sort sym -n 2>/dev/null >"$OUT/run$run.report-sym.txt"
    perf script -i "$W/run$run.data" 2>/dev/null | gzip -9n >"$OUT/run$run.perf-script.txt.gz"
done
