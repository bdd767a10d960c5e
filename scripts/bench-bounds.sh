#!/usr/bin/env bash
# Measure the bounds docs/performance.md states, on the profiling build (release with symbols): wall time and
# peak RSS of
#   - one million distinct symbols per side (readprofile text, every symbol
#     changing), with --top 3, -o json and the full text table;
#   - a gzip bomb (1 GiB of zeros, ~1 MB on disk), detected and forced
#     through a text parser;
#   - a tar member bomb (1 GiB of zeros inside a .tar.gz of real runs), in
#     batch and as a side.
# The tests check the memory bounds (tests/bounds.rs, tests/malformed.rs);
# the times and the million symbols are measured here, by hand, not in CI.
#
#   usage: bash scripts/bench-bounds.sh        (needs python3 and GNU time)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
cargo build --profile profiling --locked >&2
BIN=$PWD/target/profiling/diffprofile
W=$(mktemp -d /tmp/bench-bounds.XXXXXX)
trap 'rm -rf "$W"' EXIT

python3 - "$W" <<'PY'
import gzip, io, sys, tarfile, zlib
w = sys.argv[1]
for name, off in (("old.txt", 0), ("new.txt", 1)):
    with open(f"{w}/{name}", "w") as f:
        total = 0
        for i in range(1_000_000):
            n = 1 + (i + off) % 3
            total += n
            f.write(f"{n:>6} sym_{i:07} {'0.0100':>40}\n")
        f.write(f"{total:>6} total {'0.0001':>40}\n")
# 1 GiB of zeros as 1,024 gzip members of 1 MiB.
mib = gzip.compress(b"\0" * (1 << 20), 9)
with open(f"{w}/bomb.gz", "wb") as f:
    for _ in range(1024):
        f.write(mib)
# A .tar.gz of real runs with a 1 GiB member of zeros among them.
def tar_bytes(members, end):
    buf = io.BytesIO()
    t = tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT)
    for name, path in members:
        t.add(path, arcname=name)
    if end:
        t.close()  # the end-of-archive blocks
    return buf.getvalue()
rp = "testdata/readprofile/default"
head = tar_bytes([(f"v1/bench/run{r}.txt", f"{rp}/sockets/run{r}.txt") for r in (1, 2, 3)], False)
tail = tar_bytes([(f"v2/bench/run{r}.txt", f"{rp}/pipes/run{r}.txt") for r in (1, 2, 3)], True)
info = tarfile.TarInfo("v2/bench/zeros.bin")
info.size = 1 << 30
with open(f"{w}/members.tar.gz", "wb") as f:
    f.write(gzip.compress(head))
    f.write(gzip.compress(info.tobuf(format=tarfile.USTAR_FORMAT)))
    for _ in range(1024):
        f.write(mib)
    f.write(gzip.compress(tail))
PY

row() { # row NAME CMD...: wall seconds, peak RSS, exit status
	local name=$1 status=0 secs kib
	shift
	/usr/bin/time -o "$W/time" -f '%e %M' "$@" >/dev/null 2>"$W/err" || status=$?
	# (GNU time writes "Command exited with non-zero status N" first then.)
	read -r secs kib < <(tail -1 "$W/time")
	printf '| %s | %s | %d MB | %s |\n' "$name" "$secs" "$((kib / 1024))" "$status"
}

cp testdata/readprofile/default/pipes/run4.txt "$W/small.txt"
cd "$W"
echo "| input | seconds | peak RSS | exit |"
echo "|---|---:|---:|---:|"
row "1 M symbols per side, --top 3" "$BIN" old.txt new.txt --top 3
row "1 M symbols per side, -o json" "$BIN" old.txt new.txt -o json
row "1 M symbols per side, full text table" "$BIN" old.txt new.txt
row "gzip bomb, detected" "$BIN" bomb.gz small.txt
row "gzip bomb, -f readprofile" "$BIN" -f readprofile bomb.gz small.txt
row "tar member bomb, batch" "$BIN" batch members.tar.gz --baseline v1 --top 1
row "tar member bomb, as a side" "$BIN" members.tar.gz small.txt --top 1
