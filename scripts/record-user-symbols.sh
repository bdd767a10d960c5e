#!/bin/bash
# Record a fresh perf.data of user-space workloads and compare every row of
# `perf report --no-children --sort dso,sym -n` with diffprofile's rows
# (scripts/check-user-symbols.py): libc and ld-linux (named from the
# libc6-dbg debug files), a C, a C++ and two Rust programs whose symbols
# are split off into debug files found in three ways (.gnu_debuglink next
# to the binary, in its .debug/, the build-id cache), JIT code named by
# /tmp/perf-PID.map, and dd (stripped, no debug file: its samples stay
# [unknown]). Nothing is written to the repository. With VARIANTS=1 the
# same workload is also recorded the ways that leave perf.data without a
# build-id table in perf 6.1 (-z, pipe mode -o -, --no-buildid), and each
# is compared row by row too (their debug files are found through the
# build-id of the binary on disk, as perf finds them).
#
#   usage: [VARIANTS=1] bash scripts/record-user-symbols.sh OUTDIR
#
# Needs root (perf), perf, gcc, g++, rustc, objcopy, python3, and the
# libc6-dbg package for libc's and ld-linux's names. The programs are built
# in /tmp/diffprofile-user/bin (recreated); perf report and diffprofile
# run with HOME=OUTDIR/home, so that their build-id cache is
# OUTDIR/home/.debug. Takes about 30 s.
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: record-user-symbols.sh OUTDIR}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
FREQ=${FREQ:-4000}
B=/tmp/diffprofile-user/bin
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf /tmp/diffprofile-user "$OUT/home"
CACHE=$OUT/home/.debug
dpkg -s libc6-dbg >/dev/null 2>&1 || echo "NOTE: libc6-dbg is not installed: libc and ld-linux keep their .dynsym names" >&2

STD=1 bash "$HERE/user-workloads/build.sh" "$B" "$CACHE/debugroot"
# rustprog's debug file goes where perf's build-id cache keeps debug files.
for f in "$CACHE"/debugroot/.build-id/*/*.debug; do
	id=$(basename "$(dirname "$f")")$(basename "$f" .debug)
	mkdir -p "$CACHE/.build-id/${id:0:2}/${id:2}"
	mv "$f" "$CACHE/.build-id/${id:0:2}/${id:2}/debug"
done
rm -rf "$CACHE/debugroot"

cat >"$OUT/run.sh" <<RUN
#!/bin/sh
$B/cprog 400000
$B/cxxprog 800
$B/rustprog 6000
$B/rustprog-v0 6000
$B/rustprog-std 1500
$B/jitprog 8000
i=0; while [ \$i -lt 400 ]; do $B/cprog 0; /bin/true; i=\$((i+1)); done
dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null
RUN
perf record -q -e cpu-clock -F "$FREQ" -g --no-buildid-cache -o "$OUT/user.data" -- sh "$OUT/run.sh"
mkdir -p "$OUT/jit"
cp /tmp/perf-*.map "$OUT/jit/" 2>/dev/null || true

if [ -n "${VARIANTS:-}" ]; then
	rec() { perf record -q -e cpu-clock -F "$FREQ" -g --no-buildid-cache "$@" -- sh "$OUT/run.sh"; }
	rec -z -o "$OUT/user-z.data"
	rec -o - >"$OUT/user-pipe.data"
	perf record -q -e cpu-clock -F "$FREQ" -g --no-buildid -o "$OUT/user-nobid.data" -- sh "$OUT/run.sh"
	cp /tmp/perf-*.map "$OUT/jit/" 2>/dev/null || true
fi

(cd "$ROOT" && cargo build --release -q)
status=0
for d in user ${VARIANTS:+user-z user-pipe user-nobid}; do
	echo "== $d.data"
	HOME=$OUT/home python3 "$HERE/check-user-symbols.py" "$OUT/$d.data" || status=1
done
exit $status
