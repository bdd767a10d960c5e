#!/usr/bin/env bash
# Calibrate diffprofile's statistics on fresh recording sets: A/A false-flag
# rates per workload at 1v1, 1v2, 2v2, 2v3, 3v3 and 1v1 with a noise model
# (with the symbols flagged most often), power on large changes at 2+2, 3+3
# and 1v1 with a model against what 5+5 finds (busy runs included), and
# consistency checks; `--comm` variants for system-wide sets.
#
#   sudo SET=all bash scripts/record-calibration.sh /tmp/cal   # once, ~25 minutes
#   bash scripts/calibrate.sh /tmp/cal                         # every set in it
#   bash scripts/calibrate.sh /tmp/cal/busy --comm both        # one set
#   BIN=/path/to/diffprofile bash scripts/calibrate.sh DIR     # another build
#
# Builds this checkout's release binary first (unless BIN is set), so a
# branch measures its own statistics. Extra arguments go to
# scripts/calibrate.py (--formats perf-script,readprofile,perf-data, --aa N,
# --draws N, --jobs N, --comm no|yes|both, --workloads a,b, --extra ARG;
# `bash scripts/calibrate.sh --help` lists them). Prints markdown tables;
# exits 1 when a target or a check fails. Not run in CI.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
-h | --help | "") exec python3 "$HERE/calibrate.py" --help ;;
esac
DIR=$1
shift
if [ -z "${BIN:-}" ]; then
	(cd "$HERE/.." && nice -n 10 cargo build --release --locked -q)
	BIN=$HERE/../target/release/diffprofile
fi
exec python3 "$HERE/calibrate.py" "$DIR" --bin "$BIN" "$@"
