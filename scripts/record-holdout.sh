#!/bin/bash
# Record a holdout calibration set: workloads and perf options that the
# statistics were NOT developed on (scripts/record-calibration.sh's sets are
# what the method was tuned with). scripts/calibrate.py reads the result
# like any other set (set.json, runs.tsv, perf-data/, perf-script/).
#
#   usage: sudo bash scripts/record-holdout.sh OUTDIR      # OUTDIR/hown, OUTDIR/hbusy
#
# Sets:
#   hown   the workload's own processes, with call graphs (-g) at -F 4999
#          (the tuning sets: no -g, -F 1999)
#   hbusy  system-wide (-a), a fixed period (-c 250000 ns of cpu-clock, about
#          4 kHz) instead of a frequency; our own `yes` load beside the
#          workload in runs BUSY_RUNS (default "3 6"), on top of whatever else
#          the machine runs
# Workloads (comm in brackets), each run once unrecorded first:
#   tar      tar of /usr/include into a pipe to cat     [tar|cat]
#   grep     grep -r over /usr/include, PASSES times     [grep]
#   sort     sort of a 24 MiB text file                  [sort]
#   zero512  dd from /dev/zero to /dev/null, 512-byte blocks   [dd]
#   zero64k  the same with 64 KiB blocks (the large change vs zero512:
#            syscall entry/exit against clear_user/iov copies) [dd]
#   py       a python3 loop building dicts and lists     [python3]
#   lsr      ls -lR /usr (stat, getdents, the dentry cache) [ls]
# Knobs: RUNS (6), BUSY_RUNS ("3 6"), WORKLOADS, SETS ("hown hbusy").
set -euo pipefail
OUT=${1:?usage: record-holdout.sh OUTDIR}
RUNS=${RUNS:-6}
BUSY_RUNS=${BUSY_RUNS:-3 6}
WORKLOADS=${WORKLOADS:-tar grep sort zero512 zero64k py lsr}
SETS=${SETS:-hown hbusy}
[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-holdout.XXXXXX)
BG=""
trap '[ -n "$BG" ] && kill $BG 2>/dev/null; rm -rf "$W"' EXIT
export W

comm_of() {
	case $1 in
	tar) echo '^(tar|cat)$' ;;
	grep) echo '^grep$' ;;
	sort) echo '^sort$' ;;
	zero512 | zero64k) echo '^dd$' ;;
	py) echo '^python3$' ;;
	lsr) echo '^ls$' ;;
	esac
}

workload() {
	case $1 in
	tar) tar cf - -C /usr include 2>/dev/null | cat >/dev/null ;;
	grep) for _ in 1 2 3; do grep -r -c 'static inline' /usr/include >/dev/null 2>&1 || true; done ;;
	sort) LC_ALL=C sort "$W/text" >/dev/null ;;
	zero512) dd if=/dev/zero of=/dev/null bs=512 count=3000000 2>/dev/null ;;
	zero64k) dd if=/dev/zero of=/dev/null bs=64k count=60000 2>/dev/null ;;
	py) python3 -c 'd={}
for i in range(1500000):
    d[str(i)]=[i]*3
print(len(d))' >/dev/null ;;
	lsr) for _ in 1 2; do ls -lR /usr >/dev/null 2>&1 || true; done ;;
	esac
}
export -f workload

find /usr/share /usr/include -type f \( -name '*.txt' -o -name '*.h' \) 2>/dev/null |
	sort | head -20000 | xargs cat 2>/dev/null | head -c 25165824 >"$W/text" || true
cp /proc/kallsyms "$W/kallsyms"

record_set() { # SET
	local set=$1 D=$OUT/$1 r wl busy t0 t1 load opts
	case $set in
	hown) opts="-g -F 4999" ;;
	hbusy) opts="-a -c 250000" ;;
	esac
	mkdir -p "$D"
	printf 'set\tworkload\trun\tbusy\tseconds\tload1\tsamples\town_samples\town_share\n' >"$D/runs.tsv"
	for wl in $WORKLOADS; do
		mkdir -p "$D/perf-data/$wl" "$D/perf-script/$wl"
		cp "$W/kallsyms" "$D/perf-data/$wl/kallsyms"
		bash -c "workload $wl" >/dev/null 2>&1
	done
	for r in $(seq 1 "$RUNS"); do
		busy=0
		if [ "$set" = hbusy ]; then case " $BUSY_RUNS " in *" $r "*) busy=1 ;; esac; fi
		if [ "$busy" = 1 ]; then
			for _ in $(seq "$(nproc)"); do yes >/dev/null & BG="$BG $!"; done
		fi
		for wl in $WORKLOADS; do
			echo "== $set: run $r $wl$([ "$busy" = 1 ] && echo ' (busy)')" >&2
			local data=$D/perf-data/$wl/run$r.data
			load=$(cut -d' ' -f1 /proc/loadavg)
			t0=$(date +%s.%N)
			# shellcheck disable=SC2086
			perf record -q -e cpu-clock $opts -o "$data" -- bash -c "workload $wl" >/dev/null 2>&1
			t1=$(date +%s.%N)
			perf script -i "$data" 2>/dev/null | gzip -6n >"$D/perf-script/$wl/run$r.txt.gz"
			perf script -i "$data" -F comm 2>/dev/null | sed 's/^ *//; s/ *$//' |
				awk -v re="$(comm_of "$wl")" -v s="$set" -v w="$wl" -v r="$r" -v b="$busy" \
					-v sec="$(echo "$t1 - $t0" | bc)" -v l="$load" \
					'{ n++; if ($0 ~ re) o++ }
					 END { printf "%s\t%s\t%s\t%s\t%.2f\t%s\t%d\t%d\t%.4f\n", s, w, r, b, sec, l, n, o, (n ? o / n : 0) }' \
					>>"$D/runs.tsv"
		done
		if [ -n "$BG" ]; then kill $BG 2>/dev/null; wait $BG 2>/dev/null || true; BG=""; fi
	done
	for wl in $WORKLOADS; do printf '%s\t%s\n' "$wl" "$(comm_of "$wl")"; done >"$W/comms"
	python3 - "$D" "$set" "$RUNS" "$BUSY_RUNS" "$WORKLOADS" "$W/comms" "$opts" <<'PY'
import json, sys, time
d, s, runs, busy, wls, comms_file, opts = sys.argv[1:]
wls = wls.split()
comms = dict(line.rstrip("\n").split("\t") for line in open(comms_file))
sw = s == "hbusy"
pairs = [p for p in [["zero512", "zero64k", "large"], ["grep", "lsr", "large"]]
         if p[0] in wls and p[1] in wls]
json.dump({"set": s, "recorded": ("system-wide (perf record -a)" if sw else "the workload's own processes")
           + f", perf record -e cpu-clock {opts}",
           "system_wide": sw, "runs": int(runs),
           "busy_runs": [int(x) for x in busy.split()] if sw else [],
           "workloads": {w: {"comm": comms[w]} for w in wls}, "power": pairs,
           "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())},
          open(f"{d}/set.json", "w"), indent=1)
PY
}

for s in $SETS; do record_set "$s"; done
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC') (holdout sets $SETS)"
	echo "kernel: $(uname -r) ($(uname -m)), $(nproc) CPUs"
	echo "perf: $(perf --version)"
	echo "load: $(cat /proc/loadavg)"
} >"$OUT/VERSIONS.txt"
