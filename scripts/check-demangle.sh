#!/usr/bin/env bash
# C++ names as diffprofile demangles them against binutils' `c++filt -p -i`
# (libiberty without parameter lists, as perf report calls it), on every C++
# (`_Z`) symbol of each corpus this machine has:
#
#   libstdc++        nm -D --defined-only of libstdc++.so.6
#   libLLVM-N        nm -D --defined-only of each /usr/lib libLLVM-*.so.1
#   libclang-cpp-N   nm -D --defined-only of each libclang-cpp.so.N
#   rustc-libLLVM    nm (.symtab) of rustup's stable libLLVM.so.*-rust-*
#   wide             (with --wide) nm -D of every ELF file under /usr/lib,
#                    /usr/bin and /usr/libexec (a few minutes)
#
# Usage: scripts/check-demangle.sh [--wide] [OUTDIR]   (default /tmp/check-demangle)
# Prints one line per corpus: names, identical, percentage; writes each
# corpus's differences to OUTDIR/NAME.diff (mangled, c++filt, diffprofile,
# three lines each). Exits 1 if any corpus is below 99.9% identical.
# Needs binutils (nm, c++filt); builds `examples/demangle.rs`.
set -euo pipefail
cd "$(dirname "$0")/.."
wide=no
if [ "${1:-}" = --wide ]; then wide=yes; shift; fi
out="${1:-/tmp/check-demangle}"
mkdir -p "$out"
nice -n 10 cargo build --locked --quiet --example demangle
ours=target/debug/examples/demangle
lib=/usr/lib/x86_64-linux-gnu

corpora=()
[ -e "$lib/libstdc++.so.6" ] && corpora+=("libstdc++ -D $lib/libstdc++.so.6")
seen=" "
for f in "$lib"/libLLVM-*.so.1 "$lib"/libclang-cpp.so.[0-9]*; do
    [ -e "$f" ] || continue
    real=$(realpath "$f")
    case "$seen" in *" $real "*) continue ;; esac
    seen="$seen$real "
    n=$(basename "$f"); n=${n%.so*}; n=${n%.so}
    corpora+=("$n -D $f")
done
for f in "$HOME"/.rustup/toolchains/stable-*/lib/libLLVM.so.*-rust-*; do
    [ -e "$f" ] && corpora+=("rustc-libLLVM -s $f") && break
done

[ "$wide" = yes ] && corpora+=("wide -W -")

status=0
for c in "${corpora[@]}"; do
    read -r name how file <<<"$c"
    if [ "$how" = -W ]; then
        find /usr/lib /usr/bin /usr/libexec -type f \( -name '*.so*' -o -perm -u+x \) -size +10k 2>/dev/null |
            while read -r f; do nm -D --defined-only "$f" 2>/dev/null || true; done
    elif [ "$how" = -D ]; then
        nm -D --defined-only "$file"
    else
        nm "$file"
    fi | awk '{print $NF}' | sed 's/@.*//' | grep '^_Z' | LC_ALL=C sort -u >"$out/$name.names" || true
    rm -f "$out/$name.diff"
    c++filt -p -i <"$out/$name.names" >"$out/$name.cxxfilt"
    "$ours" <"$out/$name.names" >"$out/$name.ours"
    paste "$out/$name.names" "$out/$name.cxxfilt" "$out/$name.ours" |
        awk -F'\t' -v diff="$out/$name.diff" -v name="$name" '
            { all++; if ($2 == $3) same++; else print $1 "\n  c++filt     " $2 "\n  diffprofile " $3 > diff }
            END {
                pct = all ? 100 * same / all : 100
                printf "%-16s %7d names %7d identical %8.3f%%\n", name, all, same, pct
                exit (same * 1000 < all * 999)
            }' || status=1
done
exit $status
