#!/usr/bin/env bash
# Run scripts/verify-stats.py over a matrix of comparisons on a recording set
# made by scripts/record-testdata.sh (same layout as testdata/), e.g.
#
#     cargo build --release
#     sudo bash scripts/record-testdata.sh /tmp/fresh     # if you have none
#     bash scripts/verify-stats.sh /tmp/fresh        # ~13 min for all formats
#     FORMATS="perf-report/sym-n readprofile/default" bash scripts/verify-stats.sh /tmp/fresh
#
# For every format directory (perf-report/{sym-n,dso-sym-n,default,percent},
# readprofile/{default,verbose,sorted}) it checks:
#   * cross comparisons sockets/pipes/threads with 4 runs per side (share and
#     ticks), 2 vs 2, 1 vs 3 and 1 vs 1 (the noise-floor path), 3 sides;
#   * A/A: the 4 runs of one workload split 2+2 (all 3 splits), 1+3 (4 ways),
#     1+1 (6 pairs): every field must match AND no symbol may be significant.
# Plus the single-run folded / perf-script files (1 vs 1), skipped while
# diffprofile cannot parse them.  A/A with ONE run per side is reported but
# not counted as a failure: statistics.md's noise floor is known to let
# symbol-specific run-to-run noise through (see the verification report).
# Exit status: 0 all good; 1 a statistics mismatch or a significant A/A row.
set -u
SET=${1:?usage: verify-stats.sh RECORDING_SET_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${DIFFPROFILE:-$HERE/../target/release/diffprofile}
V=(python3 "$HERE/verify-stats.py" --quiet --bin "$BIN" --)
fail=0
aa_fail=0
aa_1v1=0
n=0

check() { # label, diffprofile args...
    local label=$1
    shift
    local out rc err
    err=$(mktemp)
    out=$("${V[@]}" "$@" 2>"$err")
    rc=$?
    if grep -q 'parser not written yet\|not a recognised profile' "$err"; then
        printf '%-58s SKIP (diffprofile cannot read this input yet)\n' "$label"
        rm -f "$err"
        return
    fi
    rm -f "$err"
    n=$((n + 1))
    printf '%-58s %s\n' "$label" "$(printf '%s' "$out" | tr '\n' ' ' | cut -c1-200)"
    [ $rc -ne 0 ] && fail=1 && printf '%s\n' "$out" | sed 's/^/    /'
    if [[ $label == AA* ]] && printf '%s' "$out" | grep -Eq 'sig\+=[1-9]|sig-=[1-9]'; then
        if [[ $label == *1v1* ]]; then
            aa_1v1=$((aa_1v1 + 1))
            echo "    ^^^ A/A with one run per side flagged (known limitation, not a failure)"
        else
            aa_fail=1
            echo "    ^^^ A/A FLAGGED A SYMBOL"
        fi
        "$BIN" "$@" --wide 2>/dev/null | grep -E '^\s*[-+0-9.]+.*\*' | head -5 | sed 's/^/    /'
    fi
}

W=(sockets pipes threads)
FORMATS=${FORMATS:-perf-report/sym-n perf-report/dso-sym-n perf-report/default perf-report/percent readprofile/default readprofile/verbose readprofile/sorted}
for fmt in $FORMATS; do
    d=$SET/$fmt
    [ -d "$d" ] || continue
    for pair in "sockets pipes" "pipes threads" "sockets threads"; do
        set -- $pair
        a=$d/$1 b=$d/$2
        check "$fmt $1 vs $2 4v4" "$a" "$b"
        check "$fmt $1 vs $2 4v4 ticks" -n ticks "$a" "$b"
        check "$fmt $1 vs $2 2v2" --old "$a/run1.txt" "$a/run2.txt" --new "$b/run3.txt" "$b/run4.txt"
        check "$fmt $1 vs $2 1v3" --old "$a/run1.txt" --new "$b/run2.txt" "$b/run3.txt" "$b/run4.txt"
        check "$fmt $1 vs $2 1v1" "$a/run1.txt" "$b/run1.txt"
        check "$fmt $1 vs $2 1v1 noise-cv" --noise-cv 0.05 "$a/run2.txt" "$b/run2.txt"
    done
    check "$fmt 3 sides" "$d/sockets" "$d/pipes" "$d/threads"
    for w in "${W[@]}"; do
        r=$d/$w
        for s in "1 2 3 4" "1 3 2 4" "1 4 2 3"; do
            set -- $s
            check "AA $fmt $w 2v2 ($1$2|$3$4)" --old "$r/run$1.txt" "$r/run$2.txt" --new "$r/run$3.txt" "$r/run$4.txt"
        done
        check "AA $fmt $w 2v2 ticks (12|34)" -n ticks --old "$r/run1.txt" "$r/run2.txt" --new "$r/run3.txt" "$r/run4.txt"
        for o in 1 2 3 4; do
            rest=()
            for i in 1 2 3 4; do [ $i = $o ] || rest+=("$r/run$i.txt"); done
            check "AA $fmt $w 1v3 ($o|rest)" --old "$r/run$o.txt" --new "${rest[@]}"
        done
        for p in "1 2" "1 3" "1 4" "2 3" "2 4" "3 4"; do
            set -- $p
            check "AA $fmt $w 1v1 ($1|$2)" "$r/run$1.txt" "$r/run$2.txt"
        done
    done
done
for pair in "sockets pipes" "pipes threads"; do
    set -- $pair
    [ -f "$SET/folded/$1.folded.gz" ] && check "folded $1 vs $2 1v1" "$SET/folded/$1.folded.gz" "$SET/folded/$2.folded.gz"
    [ -f "$SET/perf-script/$1.txt.gz" ] && check "perf-script $1 vs $2 1v1" "$SET/perf-script/$1.txt.gz" "$SET/perf-script/$2.txt.gz"
    [ -f "$SET/perf-script/$1-g.txt.gz" ] && check "perf-script -g $1 vs $2 1v1" "$SET/perf-script/$1-g.txt.gz" "$SET/perf-script/$2-g.txt.gz"
done
echo "comparisons: $n; statistics mismatch: $([ $fail = 0 ] && echo none || echo YES); A/A (>= 2 runs on a side) flagged: $([ $aa_fail = 0 ] && echo none || echo YES); 1v1 A/A comparisons with a flag: $aa_1v1"
[ $fail = 0 ] && [ $aa_fail = 0 ]
