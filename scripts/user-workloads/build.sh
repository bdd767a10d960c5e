#!/bin/bash
# Build the user-space workloads of scripts/record-user-symbols.sh and
# scripts/record-testdata.sh into BINDIR, with their symbols split off the
# way distributions do it, each debug file where perf looks for it:
#
#   cprog       C: libc read/write through the PLT, its own loop
#               stripped; .gnu_debuglink -> BINDIR/cprog.debug
#   cprog-ibt   the same with CET (-fcf-protection, -z ibtplt): its PLT
#               calls go through .plt.sec; not stripped
#   cxxprog     C++: templates, a namespace, a virtual call, std::sort
#               stripped; .gnu_debuglink -> BINDIR/.debug/cxxprog.debug
#   rustprog    Rust without std (legacy mangling): generics, a trait object
#               stripped; debug file by build-id: DEBUGROOT/.build-id/xx/yyyy.debug
#   rustprog-v0 the same with -C symbol-mangling-version=v0, not stripped
#   jitprog     C: runs code it copied into anonymous memory, named in
#               /tmp/perf-PID.map; not stripped
#   rustprog-std (with STD=1) Rust with std, legacy mangling, not stripped
#
#   usage: bash scripts/user-workloads/build.sh BINDIR DEBUGROOT
# Needs gcc, g++, rustc, objcopy, strip. Prints nothing on success.
set -euo pipefail
BIN=${1:?usage: build.sh BINDIR DEBUGROOT}
DEBUGROOT=${2:?usage: build.sh BINDIR DEBUGROOT}
SRC=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$BIN/.debug" "$DEBUGROOT"

# split BINARY DEBUGFILE: keep the symbols (no DWARF: -g is not used) in
# DEBUGFILE, strip BINARY, link it to the debug file by name.
split() {
	objcopy --only-keep-debug "$1" "$2"
	strip --strip-unneeded "$1"
	(cd "$(dirname "$2")" && objcopy --add-gnu-debuglink="$(basename "$2")" "$1")
}
build_id() { readelf -n "$1" | awk '/Build ID/ {print $3}'; }

gcc -O2 -o "$BIN/cprog" "$SRC/cprog.c"
split "$BIN/cprog" "$BIN/cprog.debug"
gcc -O2 -fcf-protection=full -Wl,-z,ibtplt -o "$BIN/cprog-ibt" "$SRC/cprog.c"

g++ -O2 -o "$BIN/cxxprog" "$SRC/cxxprog.cpp"
split "$BIN/cxxprog" "$BIN/.debug/cxxprog.debug"

rustc -O -C panic=abort -C link-arg=-lc -C link-arg=-Wl,--build-id -o "$BIN/rustprog" "$SRC/rustprog.rs"
id=$(build_id "$BIN/rustprog")
mkdir -p "$DEBUGROOT/.build-id/${id:0:2}"
objcopy --only-keep-debug "$BIN/rustprog" "$DEBUGROOT/.build-id/${id:0:2}/${id:2}.debug"
strip --strip-unneeded "$BIN/rustprog"

rustc -O -C panic=abort -C link-arg=-lc -C link-arg=-Wl,--build-id -C symbol-mangling-version=v0 \
	-o "$BIN/rustprog-v0" "$SRC/rustprog.rs"

gcc -O2 -o "$BIN/jitprog" "$SRC/jitprog.c"

if [ -n "${STD:-}" ]; then
	rustc -O -o "$BIN/rustprog-std" "$SRC/rustprog-std.rs"
fi
