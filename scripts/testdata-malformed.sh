#!/bin/bash
# Hand-made malformed inputs for diffprofile, derived from REAL files of a
# test data tree made by record-testdata.sh (each change is described in
# testdata/README.md).  usage: testdata-malformed.sh OUTDIR
set -euo pipefail
export LC_ALL=C
OUT=${1:?usage: testdata-malformed.sh OUTDIR}
RP=$OUT/readprofile/default/sockets/run1.txt     # real readprofile default dump
PR=$OUT/perf-report/sym-n/sockets/run1.txt       # real perf report --sort sym -n
M=$OUT/malformed
mkdir -p "$M"

: >"$M/empty.txt"
head -c 4096 /dev/urandom >"$M/garbage.bin"
# 3rd line: count field replaced by the non-numeric "1x3" (same %6s width)
sed '3s/^ *[0-9][0-9]*/   1x3/' "$RP" >"$M/readprofile-bad-count.txt"
# total line: count replaced by (real sum + 1000)
awk '$2 == "total" && NF == 3 { $0 = sprintf("%6d %-40s %8s", $1 + 1000, $2, $3) } { print }' "$RP" \
	>"$M/readprofile-total-mismatch.txt"
# only the leading '#' header block of a real report, no rows
awk '/^#/ { print; next } { exit }' "$PR" >"$M/perf-report-header-only.txt"
# the 3rd data row's percentage replaced by "abc%" (same width)
awk '!/^#/ && /%/ && ++n == 3 { sub(/[0-9]+\.[0-9]+%/, " abc%") } { print }' "$PR" \
	>"$M/perf-report-bad-row.txt"
# a real dump gzipped, then the .gz cut in half: truncated gzip stream
gzip -9nc "$RP" >"$M/.full.gz"
head -c $(( $(stat -c %s "$M/.full.gz") / 2 )) "$M/.full.gz" >"$M/truncated.txt.gz"
rm -f "$M/.full.gz"
# a real default dump with CRLF line endings: should PARSE fine
sed 's/$/\r/' "$RP" >"$M/crlf-readprofile.txt"
cat >"$M/unknown-format.txt" <<'PROSE'
This file is not a profile.
It is a few lines of plain English prose, written by hand, so that
format detection has something to reject: no counts, no symbols,
no percentages, no header that any profiler prints.
PROSE
