#!/usr/bin/env bash
# Run scripts/verify-stats.py (the independent re-implementation of
# docs/statistics.md, version 2) over a matrix of comparisons on a
# calibration set made by scripts/record-calibration.sh:
#
#     cargo build --release
#     sudo bash scripts/record-calibration.sh /tmp/cal      # if you have none
#     bash scripts/verify-stats.sh /tmp/cal                 # a few minutes
#     FORMATS=readprofile bash scripts/verify-stats.sh /tmp/cal
#
# Layout read: DIR/readprofile/<workload>/runN.txt and
# DIR/perf-script/<workload>/runN.txt.gz, workloads pipes threads sockets
# dd4k dd1m, 8 runs each.  For each format it checks:
#   * cross comparisons, pipes vs threads and dd4k vs dd1m: 1v1 (one-run),
#     2v2, 3v3, 5v5 (runs, moderated), 1v1 and 2v2 with --noise-from three
#     other runs of the old workload (noise-model), 3v3 with -n ticks;
#     pipes vs threads also 3v3 --adjust by, 2v2 --adjust holm, and 1v1 with
#     a model file written by `diffprofile noise-model` (--noise-model);
#   * 3 sides: pipes vs threads vs sockets (every `vs` comparison, when the
#     JSON carries them; otherwise reported as SKIP);
#   * A/A splits of every workload: 4v4, 2v2, 1v1, 1v1 --noise-from.
# Every comparison must match the re-implementation field by field (and the
# section 9 consistency must hold).  A/A rows marked significant are counted
# and reported (false positives), but calibration is scripts/calibrate.sh's
# job: they do not fail this script.
# Exit status: 0 every check matched; 1 a mismatch or an error.
set -u
SET=${1:?usage: verify-stats.sh CALIBRATION_SET_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${DIFFPROFILE:-$HERE/../target/release/diffprofile}
FORMATS=${FORMATS:-readprofile perf-script}
V=(python3 "$HERE/verify-stats.py" --quiet --bin "$BIN")
TMP=$(mktemp -d /tmp/verify-stats.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

n=0 bad=0 skipped=0 aa=0 aa_flagged=0
check() { # label, diffprofile args...
    local label=$1 out rc
    shift
    out=$("${V[@]}" --label "$label" -- "$@" 2>&1)
    rc=$?
    n=$((n + 1))
    printf '%s\n' "$out" | head -12
    if [ $rc -ne 0 ]; then
        bad=$((bad + 1))
        [ $rc -eq 2 ] && echo "    ^^^ ERROR (exit 2): diffprofile or the checker failed"
    elif printf '%s' "$out" | grep -q '^SKIP'; then
        skipped=$((skipped + 1))
    fi
    if [[ $label == AA* ]]; then
        aa=$((aa + 1))
        if printf '%s' "$out" | head -1 | grep -Eq 'sig\+=[1-9]|sig-=[1-9]'; then
            aa_flagged=$((aa_flagged + 1))
        fi
    fi
}

runs() { # dir ext first last -> the run files
    local d=$1 e=$2 i
    for i in $(seq "$3" "$4"); do printf '%s\n' "$d/run$i.$e"; done
}

for fmt in $FORMATS; do
    case $fmt in
    readprofile) ext=txt ;;
    perf-script) ext=txt.gz ;;
    *) echo "unknown format $fmt" >&2; exit 1 ;;
    esac
    D=$SET/$fmt
    if [ ! -d "$D" ]; then
        echo "no $D: format skipped" >&2
        continue
    fi
    for pair in "pipes threads" "dd4k dd1m"; do
        set -- $pair
        A=$D/$1 B=$D/$2 L="$fmt $1 vs $2"
        mapfile -t NF < <(runs "$A" "$ext" 6 8)
        for k in 1 2 3 5; do
            mapfile -t O < <(runs "$A" "$ext" 1 $k)
            mapfile -t N < <(runs "$B" "$ext" 1 $k)
            check "$L ${k}v$k" --old "${O[@]}" --new "${N[@]}"
        done
        check "$L 1v1 noise-from" --old "$A/run1.$ext" --new "$B/run1.$ext" --noise-from "${NF[@]}"
        check "$L 2v2 noise-from" --old "$A/run1.$ext" "$A/run2.$ext" --new "$B/run1.$ext" "$B/run2.$ext" \
            --noise-from "${NF[@]}"
        mapfile -t O < <(runs "$A" "$ext" 1 3)
        mapfile -t N < <(runs "$B" "$ext" 1 3)
        check "$L 3v3 ticks" -n ticks --old "${O[@]}" --new "${N[@]}"
        if [ "$1" = pipes ]; then
            check "$L 3v3 --adjust by" --adjust by --old "${O[@]}" --new "${N[@]}"
            check "$L 2v2 --adjust holm" --adjust holm --old "${O[@]:0:2}" --new "${N[@]:0:2}"
            model=$TMP/$fmt-$1.noise.json
            if "$BIN" noise-model "${NF[@]}" -o "$model" 2>"$TMP/err"; then
                check "$L 1v1 --noise-model" --noise-model "$model" --old "$A/run1.$ext" --new "$B/run1.$ext"
            else
                n=$((n + 1)) bad=$((bad + 1))
                echo "ERROR $L: diffprofile noise-model failed: $(head -1 "$TMP/err")"
            fi
        fi
    done
    check "$fmt 3 sides pipes threads sockets" "$D/pipes" "$D/threads" "$D/sockets"
    for w in pipes threads sockets dd4k dd1m; do
        W=$D/$w
        mapfile -t O < <(runs "$W" "$ext" 1 4)
        mapfile -t N < <(runs "$W" "$ext" 5 8)
        check "AA $fmt $w 4v4 (1-4|5-8)" --old "${O[@]}" --new "${N[@]}"
        check "AA $fmt $w 2v2 (12|34)" --old "${O[@]:0:2}" --new "${O[@]:2:2}"
        check "AA $fmt $w 1v1 (1|2)" --old "${O[0]}" --new "${O[1]}"
        check "AA $fmt $w 1v1 (1|2) noise-from 6-8" --old "${O[0]}" --new "${O[1]}" --noise-from "${N[@]:1:3}"
    done
done
echo "comparisons: $n; mismatches or errors: $bad; skipped (multi-side shape): $skipped;" \
    "A/A comparisons with a significant row: $aa_flagged of $aa (informational)"
[ $n -gt 0 ] && [ $bad -eq 0 ]
