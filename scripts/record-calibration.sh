#!/bin/bash
# Record fresh sets of replicate runs for calibrating diffprofile's
# statistics (scripts/calibrate.sh). Every run is kept, outliers included:
# nothing is discarded or re-recorded.
#
#   usage: SET=own|sys|busy|all bash scripts/record-calibration.sh OUTDIR
#
# Sets (each in OUTDIR/<set>/):
#   own   perf record of the workload's own processes (-- command), all
#         workloads below; also readprofile dumps (see below).
#   sys   the same new workloads recorded system-wide (perf record -a): the
#         runs hold whatever else the machine does (other jobs, kworkers,
#         the idle loop).
#   busy  system-wide like sys, with our own background load beside the
#         workload in the runs listed in BUSY_RUNS (NCPU `yes >/dev/null`
#         loops), on top of whatever else runs. The busy runs stay in the
#         set: they are the outliers a user's runs contain.
#   all   own, then sys, then busy.
#
# Must run as root (perf with kernel symbols, /proc/kallsyms addresses;
# readprofile from util-linux; g++; python3; gzip, xz, zstd, sha1sum).
# With the defaults on 2 cores: about 11 minutes for own, 7 for sys, 7 for
# busy on a quiet machine; on one loaded by parallel builds (load 20-80) the
# own set took 29 minutes and a round of the sys set 4-5 minutes (use
# WORKLOADS= to record fewer). Nothing says the machine is idle: runs.tsv
# keeps each run's load.
#
# Workloads (comm: the process names calibrate.py --comm keeps):
#   futex     perf bench futex hash -r FUTEX_SECS            (futex-hash)
#   pipe      perf bench sched pipe -l PIPE_LOOPS            (sched-pipe)
#   find      find /usr, FIND_PASSES times                   (find)
#   sha1      sha1sum of a 256 MiB file, SHA_PASSES times    (sha1sum)
#   sha1pipe  the same through a pipe: cat FILE | sha1sum     (sha1sum, cat)
#             sha1 vs sha1pipe is the large change (_copy_from_iter,
#             pipe_write, pipe_read appear)
#   gzip      gzip -6 of a 14 MiB text file, GZIP_PASSES     (gzip)
#   xz        xz -1 -T1 of it, XZ_PASSES                      (xz)
#   zstd      zstd -3 of it, ZSTD_PASSES                      (zstd)
#   cxx       a small C++ program built here with g++ -O2     (cxxload)
#             (strings sorted and hashed, large vectors: page faults,
#             mmap/munmap)
# and, in the own set only, the first version's five:
#   pipes, threads  perf bench sched messaging -p / -p -t    (sched-messaging)
#                   the subtle change (a shared file table: fdget_pos/fput)
#   sockets         perf bench sched messaging                (sched-messaging)
#   dd4k, dd1m      dd reading a 1 GiB file from the page cache with 4 KiB
#                   and 1 MiB reads: a large change          (dd)
# Runs of one workload are interleaved with the others' (run 1 of every
# workload, then run 2, ...), so slow drift of the machine is shared by all
# workloads instead of separating them. Every workload first runs once
# unrecorded, as benchmarks do (the first dd pass over the new file
# activates its pages: a different kernel path).
#
# readprofile: real /proc/profile needs the profile=2 boot parameter; when
# /proc/profile is absent (the usual case) the own set's readprofile dumps
# are made from the perf samples (scripts/testdata-procprofile.py builds the
# /proc/profile image the kernel would have kept, the real readprofile
# prints it). When /proc/profile exists, it is reset and read around each
# own-set run instead (readprofile -r; readprofile -m System.map).
#
# Layout written:
#   OUTDIR/<set>/perf-data/<wl>/runN.data       perf.data (cpu-clock, FREQ)
#   OUTDIR/<set>/perf-data/<wl>/kallsyms        the kernel's symbols (a hard
#                                              link: diffprofile finds it)
#   OUTDIR/<set>/perf-script/<wl>/runN.txt.gz  perf script (no callchains)
#   OUTDIR/<set>/readprofile/<wl>/runN.txt     own set only
#   OUTDIR/<set>/runs.tsv                      one line per run: busy flag,
#                                              seconds, load, samples, the
#                                              workload's own share
#   OUTDIR/<set>/set.json                      workloads, comms, power pairs,
#                                              busy runs (calibrate.py)
#   OUTDIR/VERSIONS.txt                        kernel, tools, knobs, date
#
# Knobs (environment): RUNS (6: 3v3 A/A needs 6), BUSY_RUNS ("2 5"), FREQ (1999),
# WORKLOADS (override the set's list), LOOPS (1500: perf bench messaging
# -l), READS_4K (6), READS_1M (16), FUTEX_SECS (5), PIPE_LOOPS (600000),
# FIND_PASSES (8), SHA_PASSES (6), GZIP_PASSES (6), XZ_PASSES (4),
# ZSTD_PASSES (30), CXX_ROUNDS (8).
set -euo pipefail
export LC_ALL=C

OUT=${1:?usage: SET=own|sys|busy|all record-calibration.sh OUTDIR}
SET=${SET:-all}
HERE=$(cd "$(dirname "$0")" && pwd)
FREQ=${FREQ:-1999}
BUSY_RUNS=${BUSY_RUNS:-2 5}
export LOOPS=${LOOPS:-1500} READS_4K=${READS_4K:-6} READS_1M=${READS_1M:-16}
export FUTEX_SECS=${FUTEX_SECS:-5} PIPE_LOOPS=${PIPE_LOOPS:-600000}
export FIND_PASSES=${FIND_PASSES:-8} SHA_PASSES=${SHA_PASSES:-6}
export GZIP_PASSES=${GZIP_PASSES:-6} XZ_PASSES=${XZ_PASSES:-4}
export ZSTD_PASSES=${ZSTD_PASSES:-30} CXX_ROUNDS=${CXX_ROUNDS:-8}
NEW_WORKLOADS="futex pipe find sha1 sha1pipe gzip xz zstd cxx"
OLD_WORKLOADS="pipes threads sockets dd4k dd1m"

[ "$(id -u)" = 0 ] || { echo "must run as root" >&2; exit 1; }
case $SET in own | sys | busy | all) ;; *) echo "SET must be own, sys, busy or all" >&2; exit 2 ;; esac
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d /tmp/record-calibration.XXXXXX)
BG=""
trap '[ -n "$BG" ] && kill $BG 2>/dev/null; rm -rf "$W"' EXIT
LOG=$W/log
export W

comm_of() {
	case $1 in
	futex) echo '^futex-hash$' ;;
	pipe) echo '^sched-pipe$' ;;
	find) echo '^find$' ;;
	sha1) echo '^sha1sum$' ;;
	sha1pipe) echo '^(sha1sum|cat)$' ;;
	gzip | xz | zstd) echo "^$1\$" ;;
	cxx) echo '^cxxload$' ;;
	pipes | threads | sockets) echo '^sched-messaging$' ;;
	dd4k | dd1m) echo '^dd$' ;;
	esac
}

workload() {
	case $1 in
	futex) perf bench futex hash -r "$FUTEX_SECS" ;;
	pipe) perf bench sched pipe -l "$PIPE_LOOPS" ;;
	find) for _ in $(seq "$FIND_PASSES"); do find /usr >/dev/null; done ;;
	sha1) for _ in $(seq "$SHA_PASSES"); do sha1sum "$W/rand"; done ;;
	sha1pipe) for _ in $(seq "$SHA_PASSES"); do cat "$W/rand" | sha1sum; done ;;
	gzip) for _ in $(seq "$GZIP_PASSES"); do gzip -6 -c "$W/text" >/dev/null; done ;;
	xz) for _ in $(seq "$XZ_PASSES"); do xz -1 -T1 -c "$W/text" >/dev/null; done ;;
	zstd) for _ in $(seq "$ZSTD_PASSES"); do zstd -q -3 -c "$W/text" >/dev/null; done ;;
	cxx) "$W/cxxload" "$CXX_ROUNDS" ;;
	pipes) perf bench sched messaging -g 10 -l "$LOOPS" -p ;;
	threads) perf bench sched messaging -g 10 -l "$LOOPS" -p -t ;;
	sockets) perf bench sched messaging -g 10 -l "$LOOPS" ;;
	dd4k) for _ in $(seq "$READS_4K"); do dd if="$W/ddfile" of=/dev/null bs=4k 2>/dev/null; done ;;
	dd1m) for _ in $(seq "$READS_1M"); do dd if="$W/ddfile" of=/dev/null bs=1M 2>/dev/null; done ;;
	esac
}
export -f workload

# ------------------------------------------------------------- inputs
echo "== preparing inputs" >&2
head -c 268435456 /dev/urandom >"$W/rand"
find /usr/share /usr/include -type f \( -name '*.txt' -o -name '*.py' -o -name '*.h' \) 2>/dev/null |
	sort | head -20000 | xargs cat 2>/dev/null | head -c 67108864 >"$W/text" || true
cat >"$W/cxxload.cpp" <<'EOF'
// Calibration workload: string sorting, hashing and large allocations
// (the kernel sees page faults, brk/mmap/munmap and their zeroing).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>
int main(int argc, char **argv) {
	int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
	std::mt19937_64 rng(42);
	unsigned long sum = 0;
	for (int r = 0; r < rounds; r++) {
		std::vector<std::string> v;
		for (int i = 0; i < 200000; i++)
			v.push_back(std::to_string(rng()) + "-" + std::to_string(i));
		std::sort(v.begin(), v.end());
		std::unordered_map<std::string, int> h;
		std::map<unsigned long, int> m;
		for (size_t i = 0; i < v.size(); i++) {
			h[v[i]] = (int)i;
			if (i % 4 == 0) m[rng() % 1000003] += (int)i;
		}
		for (int k = 0; k < 8; k++) {
			std::vector<unsigned long> big(4u << 20, (unsigned long)r);
			for (size_t i = 0; i < big.size(); i += 512) sum += big[i] ^ rng();
		}
		sum += h.size() + m.size() + v[v.size() / 2].size();
	}
	std::printf("%lu\n", sum);
	return 0;
}
EOF
g++ -O2 -o "$W/cxxload" "$W/cxxload.cpp"
if [ "$SET" = own ] || [ "$SET" = all ]; then
	head -c 1073741824 /dev/urandom >"$W/ddfile"
	cat "$W/ddfile" >/dev/null # into the page cache
fi
cp /proc/kallsyms "$W/kallsyms"
python3 "$HERE/testdata-procprofile.py" sysmap <"$W/kallsyms" >"$W/System.map"

start_busy() {
	BG=""
	for _ in $(seq "$(nproc)"); do
		yes >/dev/null &
		BG="$BG $!"
	done
}
stop_busy() {
	[ -n "$BG" ] && kill $BG 2>/dev/null
	wait $BG 2>/dev/null || true
	BG=""
}

# record_set SET MODE(own|sys) RUNS "WORKLOADS" "BUSY RUN NUMBERS"
record_set() {
	local set=$1 mode=$2 runs=$3 wls=$4 busy_runs=$5 D=$OUT/$1
	local r wl busy t0 t1 load perfa
	mkdir -p "$D"
	printf 'set\tworkload\trun\tbusy\tseconds\tload1\tsamples\town_samples\town_share\n' >"$D/runs.tsv"
	for wl in $wls; do
		mkdir -p "$D/perf-data/$wl" "$D/perf-script/$wl"
		ln -f "$W/kallsyms" "$D/perf-data/$wl/kallsyms" 2>/dev/null || cp "$W/kallsyms" "$D/perf-data/$wl/kallsyms"
		[ "$mode" = own ] && mkdir -p "$D/readprofile/$wl"
		echo "== $set: warm-up $wl (not recorded)" >&2
		bash -c "workload $wl" >>"$LOG" 2>&1
	done
	perfa=""
	[ "$mode" = sys ] && perfa="-a"
	for r in $(seq 1 "$runs"); do
		busy=0
		case " $busy_runs " in *" $r "*) busy=1 ;; esac
		[ "$busy" = 1 ] && start_busy
		for wl in $wls; do
			echo "== $set: run $r $wl${perfa:+ (system-wide)}$([ "$busy" = 1 ] && echo ' (busy)')" >&2
			local data=$D/perf-data/$wl/run$r.data
			load=$(cut -d' ' -f1 /proc/loadavg)
			[ "$mode" = own ] && [ -e /proc/profile ] && readprofile -r
			t0=$(date +%s.%N)
			# shellcheck disable=SC2086
			perf record -q -e cpu-clock -F "$FREQ" $perfa -o "$data" -- \
				bash -c "workload $wl" >>"$LOG" 2>&1
			t1=$(date +%s.%N)
			if [ "$mode" = own ]; then
				if [ -e /proc/profile ]; then
					readprofile -m "$W/System.map" >"$D/readprofile/$wl/run$r.txt"
				else
					perf script -i "$data" -F ip 2>>"$LOG" |
						python3 "$HERE/testdata-procprofile.py" image "$W/System.map" "$W/$wl.img" 4 2>>"$LOG"
					readprofile -p "$W/$wl.img" -m "$W/System.map" >"$D/readprofile/$wl/run$r.txt"
				fi
			fi
			perf script -i "$data" 2>>"$LOG" | gzip -6n >"$D/perf-script/$wl/run$r.txt.gz"
			perf script -i "$data" -F comm 2>>"$LOG" | sed 's/^ *//; s/ *$//' |
				awk -v re="$(comm_of "$wl")" -v s="$set" -v w="$wl" -v r="$r" -v b="$busy" \
					-v sec="$(echo "$t1 - $t0" | bc)" -v l="$load" \
					'{ n++; if ($0 ~ re) o++ }
					 END { printf "%s\t%s\t%s\t%s\t%.2f\t%s\t%d\t%d\t%.4f\n", s, w, r, b, sec, l, n, o, (n ? o / n : 0) }' \
					>>"$D/runs.tsv"
		done
		[ "$busy" = 1 ] && stop_busy
	done
	python3 - "$D" "$set" "$mode" "$runs" "$busy_runs" "$wls" <<'PY'
import json, sys, time
d, s, mode, runs, busy, wls = sys.argv[1:]
wls = wls.split()
comms = {}
for line in open(f"{d}/comms.tmp"):
    wl, re_ = line.rstrip("\n").split("\t")
    comms[wl] = re_
pairs = [p for p in [["sha1", "sha1pipe", "large"], ["dd4k", "dd1m", "large"],
                     ["pipes", "threads", "subtle"], ["gzip", "zstd", "large"]]
         if p[0] in wls and p[1] in wls]
json.dump({"set": s, "recorded": "system-wide (perf record -a)" if mode == "sys" else "the workload's own processes",
           "system_wide": mode == "sys", "runs": int(runs),
           "busy_runs": [int(x) for x in busy.split()] if mode == "sys" else [],
           "workloads": {w: {"comm": comms[w]} for w in wls}, "power": pairs,
           "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())},
          open(f"{d}/set.json", "w"), indent=1)
PY
	rm -f "$D/comms.tmp"
}

comms_file() { # write OUT/<set>/comms.tmp for set.json
	local wl
	mkdir -p "$OUT/$1"
	for wl in $2; do printf '%s\t%s\n' "$wl" "$(comm_of "$wl")"; done >"$OUT/$1/comms.tmp"
}

run_set() {
	local wls
	case $1 in
	own) wls=${WORKLOADS:-$NEW_WORKLOADS $OLD_WORKLOADS} ;;
	*) wls=${WORKLOADS:-$NEW_WORKLOADS} ;;
	esac
	comms_file "$1" "$wls"
	case $1 in
	own) record_set own own "${RUNS:-6}" "$wls" "" ;;
	sys) record_set sys sys "${RUNS:-6}" "$wls" "" ;;
	busy) record_set busy sys "${RUNS:-6}" "$wls" "$BUSY_RUNS" ;;
	esac
}

case $SET in
all) for s in own sys busy; do run_set $s; done ;;
*) run_set "$SET" ;;
esac

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC') (set $SET finished)"
	echo "kernel: $(uname -r) ($(uname -m)), $(nproc) CPUs"
	echo "perf: $(perf --version)"
	echo "readprofile: $(readprofile -V) ($([ -e /proc/profile ] && echo /proc/profile || echo 'no /proc/profile: dumps made from perf samples'))"
	echo "g++: $(g++ --version | head -1)"
	echo "freq=$FREQ busy_runs=$BUSY_RUNS loops=$LOOPS reads_4k=$READS_4K reads_1m=$READS_1M futex_secs=$FUTEX_SECS pipe_loops=$PIPE_LOOPS"
	echo "find_passes=$FIND_PASSES sha_passes=$SHA_PASSES gzip_passes=$GZIP_PASSES xz_passes=$XZ_PASSES zstd_passes=$ZSTD_PASSES cxx_rounds=$CXX_ROUNDS"
} >>"$OUT/VERSIONS.txt"
echo "done: $OUT" >&2
