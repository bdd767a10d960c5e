#!/bin/bash
# Record a fresh set of replicate runs for calibrating diffprofile's
# statistics (scripts/calibrate.sh): RUNS runs of each of five workloads,
# each run kept as a readprofile dump and as perf script text.
#
#   usage: bash scripts/record-calibration.sh OUTDIR
#
# Must run as root on an otherwise idle machine (perf with kernel symbols,
# /proc/kallsyms addresses; readprofile from util-linux; python3; gzip).
# Takes about 4 minutes on 2 cores with the defaults.
#
# Workloads (the pairs calibrate.sh compares):
#   pipes, threads   perf bench sched messaging -p / -p -t: the subtle change
#                    (a shared file table: fdget_pos/fput)
#   sockets          perf bench sched messaging (Unix sockets)
#   dd4k, dd1m       dd reading a 1 GiB file from the page cache with 4 KiB
#                    and 1 MiB reads: the large change (_copy_to_iter's
#                    share, the syscall entry's ticks)
# Runs of one workload are interleaved with the others' (run 1 of every
# workload, then run 2, ...), so slow drift of the machine is shared by all
# workloads instead of separating them. Every workload first runs once
# unrecorded, as benchmarks do: the first dd pass over the new file
# activates its pages (workingset_activation, _raw_spin_unlock_irqrestore:
# a different kernel path), which a steady-state replicate never does.
#
# Layout written:
#   OUTDIR/readprofile/<workload>/runN.txt     readprofile -p IMG -m System.map
#   OUTDIR/perf-script/<workload>/runN.txt.gz  perf script (no callchains)
#   OUTDIR/VERSIONS.txt                        kernel, tools, knobs, date
#
# Knobs (environment): RUNS (8), FREQ (1999), LOOPS (900: perf bench -l),
# READS_4K (6) and READS_1M (16): passes over the 1 GiB file per run.
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-calibration.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-8}
FREQ=${FREQ:-1999}
LOOPS=${LOOPS:-900}
READS_4K=${READS_4K:-6}
READS_1M=${READS_1M:-16}
WORKLOADS="pipes threads sockets dd4k dd1m"

[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-calibration.XXXXXX)
trap 'rm -rf "$W"' EXIT
LOG=$W/log

head -c 1073741824 /dev/urandom >"$W/ddfile"
cat "$W/ddfile" >/dev/null # into the page cache

workload() {
	case $1 in
	pipes) perf bench sched messaging -g 10 -l "$LOOPS" -p ;;
	threads) perf bench sched messaging -g 10 -l "$LOOPS" -p -t ;;
	sockets) perf bench sched messaging -g 10 -l "$LOOPS" ;;
	dd4k) for _ in $(seq "$READS_4K"); do dd if="$W/ddfile" of=/dev/null bs=4k 2>/dev/null; done ;;
	dd1m) for _ in $(seq "$READS_1M"); do dd if="$W/ddfile" of=/dev/null bs=1M 2>/dev/null; done ;;
	esac
}
export -f workload
export W LOOPS READS_4K READS_1M

python3 "$HERE/testdata-procprofile.py" sysmap </proc/kallsyms >"$W/System.map"
for wl in $WORKLOADS; do
	echo "== warm-up $wl (not recorded)" >&2
	bash -c "workload $wl" >>"$LOG" 2>&1
done
for r in $(seq 1 "$RUNS"); do
	for wl in $WORKLOADS; do
		echo "== run $r $wl" >&2
		mkdir -p "$OUT/readprofile/$wl" "$OUT/perf-script/$wl"
		perf record -q -e cpu-clock -F "$FREQ" -o "$W/$wl.data" -- \
			bash -c "workload $wl" >>"$LOG" 2>&1
		perf script -i "$W/$wl.data" -F ip 2>>"$LOG" |
			python3 "$HERE/testdata-procprofile.py" image "$W/System.map" "$W/$wl.img" 4 2>>"$LOG"
		readprofile -p "$W/$wl.img" -m "$W/System.map" >"$OUT/readprofile/$wl/run$r.txt"
		perf script -i "$W/$wl.data" 2>>"$LOG" | gzip -6n >"$OUT/perf-script/$wl/run$r.txt.gz"
	done
done

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m)), $(nproc) CPUs"
	echo "perf: $(perf --version)"
	echo "readprofile: $(readprofile -V)"
	echo "runs=$RUNS freq=$FREQ loops=$LOOPS reads_4k=$READS_4K reads_1m=$READS_1M"
} >"$OUT/VERSIONS.txt"
echo "done: $OUT" >&2
