#!/bin/bash
# Re-record diffprofile's real test data from scratch.
#
#   usage: bash scripts/record-testdata.sh OUTDIR
#
# Must run as root (perf with kernel symbols, /proc/kallsyms addresses) on a
# machine with perf (tested: 6.1), readprofile (util-linux 2.38), python3,
# gzip, and for user/ (scripts/testdata-user.sh) gcc, g++, rustc, binutils
# and the libc6-dbg package.  Takes ~2-3 minutes on 2 cores.  OUTDIR gets the same layout as
# testdata/ (minus README.md and malformed/, which are hand-written; pass
# WITH_MALFORMED=1 to also derive the malformed/ files from the new data).
# Intermediate perf.data files live in a temp dir that is deleted at the end
# (KEEP_WORK=1 keeps it and prints its path).
#
# Knobs (environment): LOOPS_SOCKETS (default 300), LOOPS_PIPES (900),
# LOOPS_THREADS (900) = perf bench -l per workload, tuned for ~3-8K samples.
# RUNS (4) = no-callchain runs per workload.  FREQ (1999).
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: record-testdata.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
PROCPROF="python3 $HERE/testdata-procprofile.py"
COLLAPSE="$HERE/testdata-collapse.awk"
RUNS=${RUNS:-4}
FREQ=${FREQ:-1999}
declare -A LOOPS=([sockets]=${LOOPS_SOCKETS:-300} [pipes]=${LOOPS_PIPES:-900} [threads]=${LOOPS_THREADS:-900})
declare -A WFLAGS=([sockets]="" [pipes]="-p" [threads]="-p -t")
WORKLOADS="sockets pipes threads"

[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-testdata.XXXXXX)
if [ -z "${KEEP_WORK:-}" ]; then trap 'rm -rf "$W"' EXIT; else echo "work dir: $W" >&2; fi
LOG=$W/log
log() { echo "== $*" >&2; }

# rec NAME WORKLOAD [extra perf record args...]: record one run into $W/NAME.data
rec() {
	local name=$1 wl=$2; shift 2
	log "record $name: perf record -e cpu-clock -F $FREQ $* -o $name.data -- perf bench sched messaging -g 10 -l ${LOOPS[$wl]} ${WFLAGS[$wl]}"
	# shellcheck disable=SC2086
	perf record -e cpu-clock -F "$FREQ" "$@" -o "$W/$name.data" -- \
		perf bench sched messaging -g 10 -l "${LOOPS[$wl]}" ${WFLAGS[$wl]} >>"$LOG" 2>&1
}
rep() { perf report -i "$1" --stdio "${@:2}" 2>>"$LOG"; }

versions() {
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
	echo "readprofile: $(readprofile -V)"
	echo "python3: $(python3 --version 2>&1)"
	echo "loops: sockets=${LOOPS[sockets]} pipes=${LOOPS[pipes]} threads=${LOOPS[threads]} freq=$FREQ runs=$RUNS"
}

# ---------------------------------------------------------------- recordings
for wl in $WORKLOADS; do
	for r in $(seq 1 "$RUNS"); do rec "$wl-run$r" "$wl"; done
	rec "$wl-g" "$wl" -g
done
# multi-event recording (sockets): two sections in perf report
log "record multi: perf record -e cpu-clock -e task-clock -F $FREQ"
perf record -e cpu-clock -e task-clock -F "$FREQ" -o "$W/multi.data" -- \
	perf bench sched messaging -g 10 -l "${LOOPS[sockets]}" >>"$LOG" 2>&1
# sockets again with --sample-cpu, for the perf script -F ...,cpu,... variant
rec sockets-cpu sockets --sample-cpu

# ---------------------------------------------------------------- perf report
for wl in $WORKLOADS; do
	for v in sym-n dso-sym-n default percent; do mkdir -p "$OUT/perf-report/$v/$wl"; done
	for r in $(seq 1 "$RUNS"); do
		d=$W/$wl-run$r.data
		rep "$d" --no-children --sort sym -n     >"$OUT/perf-report/sym-n/$wl/run$r.txt"
		rep "$d" --no-children --sort dso,sym -n >"$OUT/perf-report/dso-sym-n/$wl/run$r.txt"
		rep "$d" --no-children -n                >"$OUT/perf-report/default/$wl/run$r.txt"
		rep "$d" --no-children --sort sym        >"$OUT/perf-report/percent/$wl/run$r.txt"
	done
done
V=$OUT/perf-report/variants
mkdir -p "$V"
rep "$W/sockets-g.data" --children -n --sort sym | gzip -9n >"$V/sockets-g-children.txt.gz"
rep "$W/sockets-g.data" -g none --no-children -n --sort sym >"$V/sockets-g-none.txt"
rep "$W/sockets-run1.data" --no-children --percent-limit 1 -n --sort sym >"$V/sockets-percent-limit-1.txt"
rep "$W/sockets-run1.data" --no-children --sort sym --show-total-period >"$V/sockets-total-period.txt"
rep "$W/multi.data" --no-children --sort sym -n >"$V/sockets-multi-event.txt"

# ---------------------------------------------------------------- readprofile
python3 "$HERE/testdata-procprofile.py" sysmap </proc/kallsyms >"$W/System.map"
for wl in $WORKLOADS; do
	for v in default verbose sorted; do mkdir -p "$OUT/readprofile/$v/$wl"; done
	for r in $(seq 1 "$RUNS"); do
		img=$W/$wl-run$r.img
		perf script -i "$W/$wl-run$r.data" -F ip 2>>"$LOG" | $PROCPROF image "$W/System.map" "$img" 4 2>>"$LOG"
		readprofile -p "$img" -m "$W/System.map"    >"$OUT/readprofile/default/$wl/run$r.txt"
		readprofile -v -p "$img" -m "$W/System.map" >"$OUT/readprofile/verbose/$wl/run$r.txt"
		readprofile -p "$img" -m "$W/System.map" | sort -nr >"$OUT/readprofile/sorted/$wl/run$r.txt"
		# cross-check against perf report (kernel symbols): log only
		python3 - "$OUT/readprofile/default/$wl/run$r.txt" "$OUT/perf-report/sym-n/$wl/run$r.txt" >>"$W/check" <<'PY'
import sys, re
rp = {}
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) == 3 and f[1] != "total": rp[f[1]] = int(f[0])
pr = {}
for l in open(sys.argv[2]):
    m = re.match(r"\s+[\d.]+%\s+(\d+)\s+\[k\]\s+(\S+)", l)
    if m: pr[m.group(2)] = pr.get(m.group(2), 0) + int(m.group(1))
diff = {k: (rp.get(k, 0), pr.get(k, 0)) for k in set(rp) | set(pr) if rp.get(k, 0) != pr.get(k, 0)}
print("%s: %d symbols readprofile, %d [k] symbols perf, rp total %d, perf [k] total %d, %d differ: %s"
      % (sys.argv[1], len(rp), len(pr), sum(rp.values()), sum(pr.values()), len(diff),
         " ".join("%s=%d/%d" % (k, a, b) for k, (a, b) in sorted(diff.items()))))
PY
	done
done
RV=$OUT/readprofile/variants
mkdir -p "$RV"
img=$W/sockets-run1.img
readprofile -a -p "$img" -m "$W/System.map" | gzip -9n >"$RV/sockets-all.txt.gz"
readprofile -b -p "$img" -m "$W/System.map" >"$RV/sockets-bins.txt"
readprofile -s -p "$img" -m "$W/System.map" | gzip -9n >"$RV/sockets-counters.txt.gz"
# readprofile of a kernel without the *unknown* line (as old 2.4/2.6-era
# outputs): the genuine default output with that one line removed by grep.
grep -v ' \*unknown\*$' "$OUT/readprofile/default/sockets/run1.txt" >"$RV/sockets-no-unknown.txt"

# ---------------------------------------------------------------- raw inputs
R=$OUT/raw
mkdir -p "$R"
$PROCPROF trim "$W/System.map" "$W/sockets-run1.img" "$W/pipes-run1.img" >"$W/System.map.trimmed"
for wl in sockets pipes; do
	img=$W/$wl-run1.img
	for opt in "" -v -b -s; do
		# shellcheck disable=SC2086
		if ! cmp -s <(readprofile $opt -p "$img" -m "$W/System.map") <(readprofile $opt -p "$img" -m "$W/System.map.trimmed"); then
			echo "trimmed System.map does not reproduce readprofile $opt for $wl" >&2; exit 1
		fi
	done
	gzip -9nc "$img" >"$R/$wl-run1.proc-profile.gz"
	gzip -9nc "$W/$wl-run1.data" >"$R/$wl-run1.perf.data.gz"
done
gzip -9nc "$W/System.map.trimmed" >"$R/System.map.gz"

# ---------------------------------------------------------------- perf script
S=$OUT/perf-script
mkdir -p "$S" "$OUT/folded"
for wl in $WORKLOADS; do
	perf script -i "$W/$wl-g.data" 2>>"$LOG" | gzip -9n >"$S/$wl-g.txt.gz"
	rep "$W/$wl-g.data" --no-children --sort sym -n >"$S/$wl-g.report.txt"
	perf script -i "$W/$wl-run1.data" 2>>"$LOG" | gzip -9n >"$S/$wl.txt.gz"
	rep "$W/$wl-run1.data" --no-children --sort sym -n >"$S/$wl.report.txt"
	perf script -i "$W/$wl-g.data" 2>>"$LOG" | awk -f "$COLLAPSE" | sort | gzip -9n >"$OUT/folded/$wl.folded.gz"
done
perf script -i "$W/sockets-cpu.data" -F comm,pid,tid,cpu,time,period,event,ip,sym,dso 2>>"$LOG" | gzip -9n >"$S/sockets-F.txt.gz"
rep "$W/sockets-cpu.data" --no-children --sort sym -n >"$S/sockets-F.report.txt"
# perf's own folded output (count FIRST, interleaved with the report rows)
rep "$W/sockets-g.data" --no-children -g folded,0,caller,count --sort sym | gzip -9n >"$OUT/folded/sockets.perf-report-folded.txt.gz"

# ---------------------------------------------------------------- user space (perf.data with debug files)
bash "$HERE/testdata-user.sh" "$OUT"

# ---------------------------------------------------------------- malformed (optional)
if [ -n "${WITH_MALFORMED:-}" ]; then
	bash "$HERE/testdata-malformed.sh" "$OUT"
fi

versions >"$OUT/VERSIONS.txt"
sed "s|^$OUT/||" "$W/check" >"$OUT/readprofile/perf-vs-readprofile.txt"
log "done: $OUT"; cat "$OUT/VERSIONS.txt" >&2
