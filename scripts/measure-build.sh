#!/bin/bash
# Build time and disk of the README's commands, each from an empty target
# directory: `cargo run` (the example), then `cargo test` on top of it (the
# two share the dev build), and `cargo install --locked --path .` on its
# own. Prints one markdown table row per command: wall time, crates
# compiled ("Compiling" lines) and the target directory's size after it.
#
#   usage: bash scripts/measure-build.sh [WORKDIR]   (default /tmp/measure-build)
#
# Uses a copy of the source tree (without target/) so that edits made while
# it runs do not change what is built; crates come from the local cargo
# registry cache (fetched first if missing). The machine's load is printed
# beside: on a shared machine the times vary with it.
set -euo pipefail
export LC_ALL=C
W=${1:-/tmp/measure-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$W"
mkdir -p "$W/src"
tar -C "$SRC" --exclude=./target --exclude=./.git -cf - . | tar -C "$W/src" -xf -
cd "$W/src"
cargo fetch --locked -q
row() { # name, log, seconds, target dir
	printf '| `%s` | %s s | %s | %s |\n' "$1" "$3" "$(grep -c '^ *Compiling ' "$2")" \
		"$(du -sh "$4" | cut -f1)"
}
echo "machine: $(nproc) cores, $(uname -r); load before: $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo '| command | wall time | crates compiled | target dir after |'
echo '|---|---|---|---|'
export CARGO_TARGET_DIR="$W/target"
t0=$(date +%s)
cargo run --locked -- testdata/readprofile/default/pipes testdata/readprofile/default/threads \
	--top 6 >"$W/run.out" 2>"$W/run.log"
t1=$(date +%s)
row "cargo run --locked -- …" "$W/run.log" $((t1 - t0)) "$CARGO_TARGET_DIR"
cargo test --locked --no-run >"$W/test.out" 2>"$W/test.log"
t2=$(date +%s)
row "cargo test --locked (build, after cargo run)" "$W/test.log" $((t2 - t1)) "$CARGO_TARGET_DIR"
cargo test --locked >"$W/test-run.out" 2>"$W/test-run.log" || echo "(tests failed: see $W/test-run.out)"
t3=$(date +%s)
echo "| \`cargo test --locked\` (running the tests) | $((t3 - t2)) s | | |"
export CARGO_TARGET_DIR="$W/target-install"
cargo install --locked --path . --root "$W/root" >"$W/install.out" 2>"$W/install.log"
t4=$(date +%s)
row "cargo install --locked --path ." "$W/install.log" $((t4 - t3)) "$CARGO_TARGET_DIR"
echo "installed binary: $(du -h "$W/root/bin/diffprofile" | cut -f1); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
