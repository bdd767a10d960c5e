#!/bin/bash
# Record testdata/perfdata/: one user-space workload recorded the ways that
# leave perf.data without build-ids (-z, pipe mode, --no-buildid) next to a
# plain recording, a cpu-clock:u recording, a full recording whose samples
# all landed in the kernel, and a recording killed while it ran (see
# testdata/README.md).
#
#   usage: bash scripts/testdata-perfdata.sh OUTDIR    (writes OUTDIR/perfdata/)
#
# Root, perf, gcc, g++, rustc, objcopy, python3 are needed. The workload's
# programs are built by scripts/user-workloads/build.sh in
# /tmp/diffprofile-user/bin (recreated, then removed); the build is
# deterministic, so they are the binaries of testdata/user/symfs, which the
# oracles are made with (the script checks their build-ids). perf report
# runs with HOME set to an empty directory (no build-id cache) and
# --symfs; the recordings use --no-buildid-cache.
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: testdata-perfdata.sh OUTDIR}/perfdata
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
B=/tmp/diffprofile-user/bin
W=$(mktemp -d /tmp/testdata-perfdata.XXXXXX)
trap 'rm -rf "$W" /tmp/diffprofile-user' EXIT
rm -rf /tmp/diffprofile-user "$OUT"
mkdir -p "$OUT" "$W/home" "$W/debug"

bash "$HERE/user-workloads/build.sh" "$B" "$W/debug"
export HOME=$W/home
# The symfs of testdata/user/, unpacked: the same programs, bit for bit.
S=$W/symfs
(cd "$ROOT/testdata/user/symfs" && find . -type f -name '*.gz') | while read -r f; do
	mkdir -p "$S/$(dirname "$f")"
	gunzip -c "$ROOT/testdata/user/symfs/$f" >"$S/${f%.gz}"
done
for b in cprog cxxprog rustprog; do
	cmp "$B/$b" "$S/tmp/diffprofile-user/bin/$b" || {
		echo "$b differs from testdata/user/symfs: not the same build" >&2
		exit 1
	}
done

cat >"$W/run.sh" <<RUN
#!/bin/sh
$B/cprog 60000
$B/cxxprog 200
$B/rustprog 600
i=0; while [ \$i -lt 150 ]; do $B/cprog 0; i=\$((i+1)); done
RUN
rec() { perf record -q -F 3999 --no-buildid-cache "$@"; }
rec -e cpu-clock -o "$W/plain.data" -- sh "$W/run.sh"
rec -e cpu-clock -z -o "$W/z.data" -- sh "$W/run.sh"
rec -e cpu-clock -o - -- sh "$W/run.sh" >"$W/pipe.data"
rec -e cpu-clock --no-buildid -o "$W/nobid.data" -- sh "$W/run.sh"
rec -e cpu-clock:u -o "$W/u.data" -- sh "$W/run.sh"

# A full recording (cpu-clock) whose samples all landed in the kernel: a
# running dd, attached for half a second (no start-up in user space).
dd if=/dev/zero of=/dev/null bs=64M count=1000000 2>/dev/null &
DD=$!
sleep 0.3
perf record -q -e cpu-clock -F 499 --no-buildid-cache -p "$DD" -o "$W/kernel.data" -- sleep 0.5
kill "$DD"
wait "$DD" 2>/dev/null || true

# A recording killed while it ran (SIGKILL: the header's data size stays 0,
# no feature sections are written); its workload is stopped by its pid.
perf record -q -e cpu-clock -F 999 -m 8 --no-buildid-cache -o "$W/killed.data" -- \
	dd if=/dev/zero of=/dev/null bs=1 count=2000000000 2>/dev/null &
PERF=$!
sleep 3
CHILD=$(ps -o pid= --ppid "$PERF" | tr -d ' ')
kill -9 "$PERF"
wait "$PERF" 2>/dev/null || true
[ -n "$CHILD" ] && kill "$CHILD" 2>/dev/null || true
# The same file with its data size set to what is there: what perf report
# reads of it (perf 6.1 refuses the file as it is).
python3 - "$W/killed.data" "$W/killed-sized.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
offset, size = struct.unpack_from("<QQ", b, 40)
assert size == 0, "the killed recording has a data size"
at = offset
while at + 8 <= len(b):
    n = struct.unpack_from("<H", b, at + 6)[0]
    if n < 8 or at + n > len(b):
        break
    at += n
struct.pack_into("<Q", b, 48, at - offset)
b[72:104] = bytes(32)
open(sys.argv[2], "wb").write(b)
PY

rep() { perf report -i "$1" --stdio --no-children --sort dso,sym -n "${@:2}" 2>/dev/null; }
for r in plain z pipe nobid u; do
	rep "$W/$r.data" --symfs "$S" | gzip -9n >"$OUT/$r.report.txt.gz"
	gzip -9nc "$W/$r.data" >"$OUT/$r.perf.data.gz"
done
rep "$W/u.data" --symfs "$S" --sort sym | gzip -9n >"$OUT/u.report-sym.txt.gz"
perf script -i "$W/u.data" --symfs "$S" 2>/dev/null | gzip -9n >"$OUT/u.perf-script.txt.gz"
rep "$W/plain.data" --symfs "$S" --sort sym | gzip -9n >"$OUT/plain.report-sym.txt.gz"
for r in kernel killed; do
	gzip -9nc "$W/$r.data" >"$OUT/$r.perf.data.gz"
done
rep "$W/kernel.data" | gzip -9n >"$OUT/kernel.report.txt.gz"
rep "$W/killed-sized.data" | gzip -9n >"$OUT/killed-sized.report.txt.gz"
for r in plain z pipe nobid u kernel killed-sized; do
	perf script -F ip -i "$W/$r.data" 2>/dev/null
done | python3 "$HERE/testdata-trim-kallsyms.py" /proc/kallsyms | gzip -9n >"$OUT/kallsyms.gz"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
	echo "libc6: $(dpkg-query -W -f '${Version}' libc6) (libc6-dbg $(dpkg-query -W -f '${Version}' libc6-dbg 2>/dev/null || echo none))"
	echo "libc: $(readlink -f /lib/x86_64-linux-gnu/libc.so.6) build-id $(readelf -n "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" | awk '/Build ID/ {print $3}')"
	for r in plain z pipe nobid u kernel killed; do
		echo "$r.data: $(stat -c %s "$W/$r.data") bytes"
	done
} >"$OUT/VERSIONS.txt"
du -sh "$OUT" >&2
