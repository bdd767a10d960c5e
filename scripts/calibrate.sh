#!/usr/bin/env bash
# Calibrate diffprofile's statistics on a fresh recording set (issue 13):
# A/A false-flag rates at 1v1, 1v2, 2v2, 2v3 and 1v1 with a noise model,
# power on a large and a subtle change at 1v1 to 5v5, and consistency checks.
#
#   sudo bash scripts/record-calibration.sh /tmp/cal     # once, ~3 minutes
#   bash scripts/calibrate.sh /tmp/cal                   # ~3 minutes on 2 cores
#
# Extra arguments go to scripts/calibrate.py (--formats readprofile,
# --aa-per-workload N, --draws N, --bin PATH). Prints markdown tables for the
# README; exits 1 when a target or a check fails. Not run in CI.
set -euo pipefail
DIR=${1:?usage: calibrate.sh CALIBRATION_SET_DIR [calibrate.py options]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
(cd "$HERE/.." && cargo build --release --locked -q)
exec python3 "$HERE/calibrate.py" "$DIR" "$@"
