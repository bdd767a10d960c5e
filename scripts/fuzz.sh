#!/usr/bin/env bash
# Fuzz diffprofile (not part of CI). Seeds each target's corpus from
# testdata/ (small prefixes of the real files), then runs the targets one
# after another for SECONDS_EACH seconds each (default 600) with JOBS
# libFuzzer processes each (default 1).
#
#   scripts/fuzz.sh                      # every target, 10 min each
#   SECONDS_EACH=60 scripts/fuzz.sh parse_folded pipeline
#   scripts/fuzz.sh --seed-only          # only (re)build fuzz/corpus/
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). On a stable toolchain
# cargo-fuzz's nightly-only flags are unlocked with RUSTC_BOOTSTRAP=1, and
# `--sanitizer none` skips AddressSanitizer (safe Rust: panics, aborts,
# timeouts, out-of-memory and stack overflow are what we look for). With a
# nightly toolchain drop both for ASan.
# Crashes land in fuzz/artifacts/TARGET/; reproduce one with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none TARGET fuzz/artifacts/TARGET/crash-…
# and turn it into a regression test (tests/malformed.rs or a unit test).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${SECONDS_EACH:-600}
JOBS=${JOBS:-1}
ALL=(parse_readprofile parse_perf_report parse_perf_script parse_folded parse_opreport
     parse_proc_profile parse_perf_data pipeline archive read_table)

seed_only=0
if [[ ${1:-} == --seed-only ]]; then seed_only=1; shift; fi
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL[@]}")

C=$ROOT/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cat a (possibly gzipped) file
dz() { if [[ $1 == *.gz ]]; then zcat "$1"; else cat "$1"; fi; }
# seed TARGET NAME FILE [LINES]: flag bytes 0 (strict) and 1 (lenient) + a line-bounded prefix
seed() {
    local t=$1 name=$2 f=$3 lines=${4:-120}
    mkdir -p "$C/$t"
    dz "$f" | head -n "$lines" > "$tmp/body" || true
    for flag in 0 1; do
        { printf "\\x0$flag"; cat "$tmp/body"; } > "$C/$t/$name-$flag"
    done
}

build_seeds() {
    local T=$ROOT/testdata
    for f in "$T"/readprofile/{default,verbose,sorted}/sockets/run1.txt "$T"/readprofile/variants/*; do
        seed parse_readprofile "$(basename "$(dirname "$f")")-$(basename "$f")" "$f"
    done
    for f in "$T"/perf-report/{sym-n,dso-sym-n,default,percent}/pipes/run1.txt "$T"/perf-report/variants/*; do
        seed parse_perf_report "$(basename "$(dirname "$f")")-$(basename "$f")" "$f" 80
    done
    for f in "$T"/perf-script/*.txt.gz; do
        seed parse_perf_script "$(basename "$f")" "$f" 80
    done
    for f in "$T"/folded/*.gz; do
        seed parse_folded "$(basename "$f")" "$f" 60
    done
    # opreport: no real opreport output in testdata; a few lines in the documented shape.
    mkdir -p "$C/parse_opreport"
    printf '\0samples  %%        image name               symbol name\n92435    48.5366  vmlinux                  do_schedule\n1200      0.6301  vmlinux                  finish_task_switch.isra.0\n' \
        > "$C/parse_opreport/shape"
    printf '\0samples  %%        diff %%    symbol name\n92435    48.5366  +++       do_schedule\n12        0.0063  ---       clear_page_erms\n' \
        > "$C/parse_opreport/diff"
    # proc-profile: step 4 + 128 counters over common::SYSTEM_MAP.
    mkdir -p "$C/parse_proc_profile"
    python3 - "$C/parse_proc_profile" <<'PY'
import struct, sys, os
d = sys.argv[1]
for i, (order, step) in enumerate([("<", 4), (">", 4), ("<", 8)]):
    n = 0x200 // step
    counts = [(j * 7) % 5 for j in range(n)]
    body = struct.pack(order + "I", step) + struct.pack(order + "%dI" % n, *counts)
    for flag in (0, 1):
        open(os.path.join(d, "img-%d-%d" % (i, flag)), "wb").write(bytes([flag]) + body)
PY
    # perf.data: the real recordings are 220-250 KB; seed with both (libFuzzer
    # mutates them in place) and with their first 16 KB.
    mkdir -p "$C/parse_perf_data"
    for f in "$T"/raw/*.perf.data.gz; do
        b=$(basename "$f" .gz)
        { printf '\0'; zcat "$f"; } > "$C/parse_perf_data/$b"
        { printf "\\0"; zcat "$f" | head -c 16384 || true; } > "$C/parse_perf_data/$b-16k"
    done
    # pipeline: [u16 split][flags] old-prefix new-prefix
    mkdir -p "$C/pipeline"
    local i=0
    for pair in "readprofile/default/sockets/run1.txt readprofile/default/pipes/run1.txt" \
                "perf-report/sym-n/sockets/run1.txt perf-report/sym-n/pipes/run1.txt" \
                "perf-report/dso-sym-n/sockets/run1.txt perf-report/default/pipes/run1.txt" \
                "perf-script/sockets.txt.gz perf-script/pipes-g.txt.gz" \
                "folded/sockets.folded.gz folded/pipes.folded.gz" \
                "readprofile/verbose/sockets/run1.txt perf-report/percent/pipes/run1.txt"; do
        set -- $pair
        dz "$T/$1" | head -n 60 > "$tmp/a" || true
        dz "$T/$2" | head -n 60 > "$tmp/b" || true
        local n; n=$(stat -c %s "$tmp/a")
        for flags in 0 5 42; do
            python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack("<HB", int(sys.argv[1]) % 65536, int(sys.argv[2])))' "$n" "$flags" > "$C/pipeline/pair$i-$flags"
            cat "$tmp/a" "$tmp/b" >> "$C/pipeline/pair$i-$flags"
        done
        i=$((i + 1))
    done
    # archive: small tar, tar.gz, tar.zst, plain gz and a directory-with-map tar.
    mkdir -p "$C/archive" "$tmp/tree/old/a" "$tmp/tree/old/b"
    head -n 40 "$T/readprofile/default/sockets/run1.txt" > "$tmp/tree/old/a/run1.txt"
    head -n 40 "$T/perf-report/sym-n/sockets/run2.txt" > "$tmp/tree/old/b/run2.txt"
    (cd "$tmp/tree" && tar --format=ustar -cf "$tmp/t.tar" old)
    { printf '\0'; cat "$tmp/t.tar"; } > "$C/archive/tar"
    { printf '\0'; gzip -9nc "$tmp/t.tar"; } > "$C/archive/tar.gz"
    if command -v zstd >/dev/null; then { printf '\0'; zstd -q -19 -c "$tmp/t.tar"; } > "$C/archive/tar.zst"; fi
    { printf '\1'; gzip -9nc "$tmp/tree/old/a/run1.txt"; } > "$C/archive/gz"
    mkdir -p "$tmp/raw/img"
    cp "$C/parse_proc_profile/img-0-0" "$tmp/raw/img/run1.img.tmp"
    tail -c +2 "$tmp/raw/img/run1.img.tmp" > "$tmp/raw/img/run1.img"; rm "$tmp/raw/img/run1.img.tmp"
    sed -n '/const SYSTEM_MAP/,/^";/p' fuzz/fuzz_targets/common/mod.rs | grep '^ffff' > "$tmp/raw/img/System.map"
    (cd "$tmp/raw" && tar --format=ustar -cf "$tmp/m.tar" img)
    { printf '\0'; cat "$tmp/m.tar"; } > "$C/archive/tar-map"
    # read_table: a small table exported from the same small tree (the
    # release binary), and its prefix without the footer.
    mkdir -p "$C/read_table"
    cargo build --release --quiet
    "$ROOT/target/release/diffprofile" export "$tmp/tree" --layout '{kernel}/{bench}/*' \
        -o "$C/read_table/small.parquet" 2>/dev/null
    head -c 4096 "$C/read_table/small.parquet" > "$C/read_table/prefix"
}

build_seeds
echo "seeded: $(for t in "${ALL[@]}"; do printf '%s=%s ' "$t" "$(ls "$C/$t" 2>/dev/null | wc -l)"; done)"
[[ $seed_only == 1 ]] && exit 0

cd fuzz
export RUSTC_BOOTSTRAP=1
for t in "${targets[@]}"; do
    echo "== $t: ${SECONDS_EACH}s, $JOBS job(s)"
    max_len=65536
    [[ $t == parse_perf_data ]] && max_len=300000
    # One job runs in the foreground (its log on stdout); several write
    # fuzz-N.log files in fuzz/, so run such campaigns one at a time.
    par=()
    [[ $JOBS -gt 1 ]] && par=(-jobs="$JOBS" -workers="$JOBS")
    cargo fuzz run --sanitizer none "$t" "corpus/$t" -- \
        -max_total_time="$SECONDS_EACH" "${par[@]}" \
        -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 ||
        echo "== $t: stopped early (a crash: see fuzz/artifacts/$t/)"
done
