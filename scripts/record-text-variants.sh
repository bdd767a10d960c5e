#!/bin/bash
# Record the perf script and perf report text variants in testdata/:
# perf-script/fields/ (extra -F fields), perf-script/layouts/ (-F layouts
# without time or event), perf-script/jit/ (a JIT's perf-PID.map and a
# memfd "(deleted)" dso over two runs), perf-report/verbose/ (-v) and
# perf-report/group/ (--group over two events).
#
#   usage: bash scripts/record-text-variants.sh TESTDATA_DIR
#
# Must run as root, with perf (tested: 6.1.187) and gcc. A few seconds.
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-text-variants.sh TESTDATA_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/record-text.XXXXXX)
trap 'rm -rf "$W"' EXIT
FREQ=${FREQ:-499}
WORK="perf bench sched messaging -g 1 -l 150"
rec() { perf record -e cpu-clock -F "$FREQ" "${@:2}" -o "$W/$1.data" -- $WORK >/dev/null 2>&1; }
script() { perf script -i "$W/$1.data" "${@:2}" 2>/dev/null | gzip -9n; }
mkdir -p "$OUT/perf-script/fields" "$OUT/perf-script/layouts" "$OUT/perf-script/jit" \
	"$OUT/perf-report/verbose" "$OUT/perf-report/group"

# ---- extra fields: one flat and one callchain recording, each printed with
# the base fields and with one more field
rec flat
rec chains -g
BASE=comm,tid,time,event,ip,sym,dso
script flat -F $BASE >"$OUT/perf-script/fields/base.txt.gz"
script chains -F $BASE >"$OUT/perf-script/fields/base-g.txt.gz"
for f in insn insnlen srcline misc flags callindent; do
	script flat -F $BASE,$f >"$OUT/perf-script/fields/$f.txt.gz"
done
for f in insn insnlen srcline; do
	script chains -F $BASE,$f >"$OUT/perf-script/fields/$f-g.txt.gz"
done

# ---- layouts without time or event (the same two recordings)
for F in comm,tid,ip,sym,dso ip,sym,dso time,event,ip,sym,dso comm,ip,sym ip,sym ip; do
	n=${F//,/_}
	script flat -F "$F" >"$OUT/perf-script/layouts/$n.txt.gz"
	script chains -F "$F" >"$OUT/perf-script/layouts/$n-g.txt.gz"
done

# ---- JIT: two runs of one program (two pids), user space only
gcc -O2 -o "$W/jit" "$HERE/testdata-jit.c"
mkdir -p "$OUT/perf-script/jit/maps"
rm -f "$OUT/perf-script/jit/maps/"perf-*.map
for r in 1 2; do
	(cd "$W" && perf record -e cpu-clock:u -F "$FREQ" -o "$W/jit$r.data" -- ./jit 20 >/dev/null 2>&1)
	perf script -i "$W/jit$r.data" 2>/dev/null | gzip -9n >"$OUT/perf-script/jit/run$r.txt.gz"
	perf report -i "$W/jit$r.data" --stdio --no-children --sort dso,sym -n 2>/dev/null \
		| grep -v '^# (Tip' >"$OUT/perf-script/jit/report$r.txt"
	cp "$W/jit$r.data" "$OUT/perf-script/jit/run$r.data"
done
# perf reads the maps from /tmp; the program wrote them there
for r in 1 2; do
	pid=$(perf script -i "$W/jit$r.data" -F pid 2>/dev/null | head -1 | tr -d ' ')
	mv "/tmp/perf-$pid.map" "$OUT/perf-script/jit/maps/"
done

# ---- perf report -v, and --group over two events
rec verbose
perf report -i "$W/verbose.data" --stdio --no-children --sort sym -n 2>/dev/null | grep -v '^# (Tip' >"$OUT/perf-report/verbose/sym-n.txt"
perf report -i "$W/verbose.data" --stdio --no-children --sort sym -n -v 2>/dev/null | grep -v '^# (Tip' >"$OUT/perf-report/verbose/sym-n-v.txt"
perf report -i "$W/verbose.data" --stdio --no-children -n -v 2>/dev/null | grep -v '^# (Tip' >"$OUT/perf-report/verbose/default-n-v.txt"
perf record -e cpu-clock,task-clock -F "$FREQ" -o "$W/two.data" -- $WORK >/dev/null 2>&1
perf report -i "$W/two.data" --stdio --no-children --sort sym -n 2>/dev/null | grep -v '^# (Tip' >"$OUT/perf-report/group/two-sections.txt"
perf report -i "$W/two.data" --stdio --no-children --sort sym -n --group 2>/dev/null | grep -v '^# (Tip' >"$OUT/perf-report/group/group-n.txt"
perf report -i "$W/two.data" --stdio --no-children --sort sym --group 2>/dev/null | grep -v '^# (Tip' >"$OUT/perf-report/group/group-percent.txt"
