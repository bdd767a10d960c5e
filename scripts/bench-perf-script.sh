#!/usr/bin/env bash
# Throughput of diffprofile's perf script and folded parsers against `cat`
# and a mawk one-liner counting leaf frames, on >= 500 MB inputs made by
# repeating real ones.
#
# usage: scripts/bench-perf-script.sh [PERF_SCRIPT_TEXT_OR_FILE.folded...]
#
# Without arguments it records two real profiles first (root and perf
# needed), one with callchains (-g) and one without:
#   perf record -e cpu-clock -F 1999 [-g] -o … -- perf bench sched messaging -g 10 -l 500
# and collapses the -g one to folded stacks (scripts/testdata-collapse.awk).
# Each input is repeated up to BENCH_MB (default 500) MB under BENCH_DIR
# (default a fresh temporary directory, removed at the end), the page cache
# is warmed, and every command runs BENCH_RUNS (default 3) times; the table
# shows the best time and the peak RSS (max over runs) of each.
# The parser runs through the `perf_script` bench binary (benches/), which
# calls diffprofile::format::perf_script::parse_file on the file (mapped, as
# the command line reads a plain file); "self, as a stream" reads it through
# a reader instead, as stdin, compressed files and archive members are read.
set -euo pipefail

cd "$(dirname "$0")/.."
MB=${BENCH_MB:-500}
RUNS=${BENCH_RUNS:-3}
own_dir=
if [[ -z ${BENCH_DIR:-} ]]; then
    BENCH_DIR=$(mktemp -d /tmp/bench-perf-script.XXXXXX)
    own_dir=1
fi
cleanup() { [[ -n $own_dir ]] && rm -rf "$BENCH_DIR"; }
trap cleanup EXIT

inputs=("$@")
if [[ ${#inputs[@]} -eq 0 ]]; then
    command -v perf >/dev/null || { echo "perf not found: give a perf script text" >&2; exit 2; }
    for kind in g flat; do
        flag=; [[ $kind == g ]] && flag=-g
        perf record -q -e cpu-clock -F 1999 $flag -o "$BENCH_DIR/$kind.data" -- \
            perf bench sched messaging -g 10 -l 500 >/dev/null 2>&1
        perf script -i "$BENCH_DIR/$kind.data" >"$BENCH_DIR/$kind.txt" 2>/dev/null
        inputs+=("$BENCH_DIR/$kind.txt")
    done
    # folded stacks of the -g recording (the collapse used for testdata/)
    awk -f scripts/testdata-collapse.awk "$BENCH_DIR/g.txt" | sort >"$BENCH_DIR/g.folded"
    inputs+=("$BENCH_DIR/g.folded")
fi

# The profiling build (release with symbols) that the other bench scripts
# use, so that one build serves them all.
echo "building the bench binary (--profile profiling)…" >&2
bin=$(cargo build --profile profiling --locked --bench perf_script --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*/perf_script-[^"]*"' | tail -1 | cut -d'"' -f4)
[[ -x $bin ]] || { echo "could not build benches/perf_script.rs" >&2; exit 2; }

# peak_rss PID: VmHWM (KB) of a running process, polled until it exits
# (only without GNU time; polling every 10 ms may miss a short peak)
peak_rss() {
    local hwm=0 v
    while v=$(awk '/^VmHWM/ { print $2 }' "/proc/$1/status" 2>/dev/null) && [[ -n $v ]]; do
        hwm=$v
        sleep 0.01
    done
    echo "$hwm"
}

# now_s: seconds since the epoch, with nanoseconds
now_s() { date +%s.%N; }

# run NAME CMD...: best wall time over RUNS runs, max peak RSS (KB)
run() {
    local name=$1; shift
    local best= rss=0 t0 t1 t r
    for ((i = 0; i < RUNS; i++)); do
        t0=$(now_s)
        if [[ -x /usr/bin/time ]]; then
            /usr/bin/time -o "$BENCH_DIR/rss" -f '%M' "$@" >/dev/null
            r=$(tail -1 "$BENCH_DIR/rss")
        else
            "$@" >/dev/null &
            r=$(peak_rss $!)
            wait $!
        fi
        t1=$(now_s)
        t=$(echo "$t1 - $t0" | bc -l)
        if [[ -z $best ]] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
        if [[ $r =~ ^[0-9]+$ ]] && ((r > rss)); then rss=$r; fi
    done
    printf '%s\t%s\t%s\n' "$name" "$best" "$rss"
}

for input in "${inputs[@]}"; do
    size=$(stat -c %s "$input")
    reps=$(( (MB * 1000000 + size - 1) / size ))
    big="$BENCH_DIR/$(basename "$input").x$reps"
    for ((i = 0; i < reps; i++)); do cat "$input"; done >"$big"
    bytes=$(stat -c %s "$big")
    format=perf-script
    if [[ $input == *.folded ]]; then
        kind="folded stacks"
        format=folded
        # the leaf (last frame) of each stack, weighted by its count
        awk_prog='{ n = split($1, f, ";"); c[f[n]] += $2 }
                  END { n = 0; for (k in c) n++; print n }'
    elif grep -q -m1 $'^\t' "$big"; then
        kind="with callchains"
        # the first frame line after each header: symbol (offset stripped) + dso
        awk_prog='/^\t/ { if (h) { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); c[s " " $NF]++; h = 0 } next }
                  NF { h = 1; next } { h = 0 }
                  END { n = 0; for (k in c) n++; print n }'
    else
        kind="without callchains"
        awk_prog='{ s = $(NF - 1); sub(/\+0x[0-9a-f]+$/, "", s); c[s " " $NF]++ }
                  END { n = 0; for (k in c) n++; print n }'
    fi
    cat "$big" >/dev/null
    cat "$big" >/dev/null
    echo
    echo "$(basename "$input") ($kind): $bytes bytes (x$reps), $(nproc) cpus, best of $RUNS"
    {
        run "cat > /dev/null" cat "$big"
        run "mawk leaf count" mawk "$awk_prog" "$big"
        export DIFFPROFILE_BENCH_INPUT="$big" DIFFPROFILE_BENCH_FORMAT=$format
        run "diffprofile self" env DIFFPROFILE_BENCH_MODE=self "$bin"
        run "diffprofile --inclusive" env DIFFPROFILE_BENCH_MODE=inclusive "$bin"
        run "self, as a stream" env DIFFPROFILE_BENCH_MODE=self DIFFPROFILE_BENCH_STREAM=1 "$bin"
    } | awk -F'\t' -v bytes="$bytes" '
        BEGIN { printf "%-26s %8s %9s %9s %9s %9s\n", "command", "seconds", "MB/s", "x cat", "RSS MB", "vs mawk" }
        NR == 1 { cat = $2 }
        NR == 2 { mawk = $2 }
        { v = NR > 2 ? sprintf("%8.1fx", mawk / $2) : "        -"
          printf "%-26s %8.3f %9.0f %9.2f %9.1f %9s\n", $1, $2, bytes / $2 / 1e6, $2 / cat, $3 / 1024, v }'
    rm -f "$big"
done
