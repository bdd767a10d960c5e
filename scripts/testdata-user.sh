#!/bin/bash
# Record testdata/user/: a real perf.data of user-space workloads with the
# binaries and debug files that name its samples (see testdata/README.md).
#
#   usage: bash scripts/testdata-user.sh OUTDIR      (writes OUTDIR/user/)
#
# Root, perf, gcc, g++, rustc, objcopy, objdump, python3 and the libc6-dbg
# package (ld-linux's debug file) are needed. The programs are built by
# scripts/user-workloads/build.sh in /tmp/diffprofile-user/bin (recreated,
# then removed); the symfs tree holds copies of them, their debug files,
# and ld-linux with its debug file (DWARF removed: only its symbols are
# read); libc is deliberately not in it, so its samples stay unresolved.
# perf report/script run with HOME set to an empty directory (no build-id
# cache) and --symfs; the recording uses --no-buildid-cache.
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: testdata-user.sh OUTDIR}/user
HERE=$(cd "$(dirname "$0")" && pwd)
B=/tmp/diffprofile-user/bin
W=$(mktemp -d /tmp/testdata-user.XXXXXX)
trap 'rm -rf "$W" /tmp/diffprofile-user' EXIT
S=$W/symfs
rm -rf /tmp/diffprofile-user "$OUT"
mkdir -p "$OUT" "$W/home"

bash "$HERE/user-workloads/build.sh" "$B" "$S/usr/lib/debug"
cat >"$W/run.sh" <<RUN
#!/bin/sh
$B/cprog 300000
$B/cprog-ibt 300000
$B/cxxprog 1000
$B/rustprog 3000
$B/rustprog-v0 3000
$B/jitprog 800
i=0; while [ \$i -lt 500 ]; do $B/cprog 0; i=\$((i+1)); done
RUN
rm -f /tmp/perf-*.map
HOME=$W/home perf record -q -e cpu-clock -F 3999 --no-buildid-cache -o "$W/user.data" -- sh "$W/run.sh"

# symfs: what the recording mapped, at the recorded paths.
mkdir -p "$S/tmp/diffprofile-user"
cp -a "$B" "$S/tmp/diffprofile-user/"
ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
id=$(readelf -n "$ld" | awk '/Build ID/ {print $3}')
mkdir -p "$S$(dirname "$ld")" "$S/usr/lib/debug/.build-id/${id:0:2}"
cp "$ld" "$S$ld"
objcopy --remove-section='.debug_*' "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" \
	"$S/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"

rep() { HOME=$W/home perf report -i "$W/user.data" --stdio --no-children --sort dso,sym -n "$@" 2>/dev/null; }
rep --symfs "$S" | gzip -9n >"$OUT/user.report.txt.gz"
rep | gzip -9n >"$OUT/user.system-report.txt.gz"
HOME=$W/home perf script -i "$W/user.data" --symfs "$S" 2>/dev/null | gzip -9n >"$OUT/user.perf-script.txt.gz"
perf script -F ip -i "$W/user.data" 2>/dev/null |
	python3 "$HERE/testdata-trim-kallsyms.py" /proc/kallsyms | gzip -9n >"$OUT/kallsyms.gz"
for b in cprog cprog-ibt cxxprog; do
	echo "==> $b"
	objdump -d -j .plt -j .plt.sec -j .plt.got "$B/$b" | grep '@plt>:'
done >"$OUT/plt.txt"
gzip -9nc "$W/user.data" >"$OUT/user.perf.data.gz"
mkdir -p "$OUT/jit"
cp /tmp/perf-*.map "$OUT/jit/"
(cd "$S" && find . -type f | sort) | while read -r f; do
	mkdir -p "$(dirname "$OUT/symfs/$f")"
	gzip -9nc "$S/$f" >"$OUT/symfs/$f.gz"
done
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "kernel: $(uname -r) ($(uname -m))"
	echo "perf: $(perf --version)"
	echo "gcc: $(gcc --version | head -1)"
	echo "rustc: $(rustc --version)"
	echo "libc6: $(dpkg-query -W -f '${Version}' libc6) (libc6-dbg $(dpkg-query -W -f '${Version}' libc6-dbg))"
	echo "ld-linux: $ld build-id $id"
	echo "libc: $(readlink -f /lib/x86_64-linux-gnu/libc.so.6) build-id $(readelf -n "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)" | awk '/Build ID/ {print $3}')"
} >"$OUT/VERSIONS.txt"
du -sh "$OUT" >&2
