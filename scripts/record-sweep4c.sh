#!/bin/bash
# The perf script and perf report layouts of one `-g` recording that
# testdata/sweep4c/ holds (see testdata/README.md): run from the crate
# root, with the recording as the argument (the outside tester's was made
# by `perf record -e cpu-clock -F 999 -g -- tar …`; any -g recording with
# a sample whose callchain perf could not unwind will do).
set -euo pipefail
data=${1:?usage: $0 PERF.DATA [NAMESPACES.PERF.DATA]}
out=testdata/sweep4c
mkdir -p "$out"
script() { # NAME FIELDS
    if [ -z "$2" ]; then
        perf script -i "$data" >"$out/$1.txt"
    else
        perf script -i "$data" -F "$2" >"$out/$1.txt"
    fi
    gzip -9nf "$out/$1.txt"
}
script default ""
script ip-sym-dso ip,sym,dso
script ip-sym ip,sym
script comm-tid-ip-sym comm,tid,ip,sym
script comm-ip-sym-dso comm,ip,sym,dso
script time-ip-sym-dso time,ip,sym,dso
script period-no-event comm,tid,time,period,ip,sym,dso
report() { # NAME OPTIONS...
    local name=$1
    shift
    perf report -i "$data" --stdio "$@" >"$out/$name.txt" 2>/dev/null
    gzip -9nf "$out/$name.txt"
}
report rep-none --no-children -g none --sort sym -n
report rep-sample-sym --no-children -F sample,sym
report rep-period-sym --no-children -F period,sym
report rep-sample-overhead-sym --no-children -F sample,overhead,sym
report rep-sample-comm-dso-sym --no-children -F sample,comm,dso,sym
report rep-sym-overhead-sample --no-children -F sym,overhead,sample
report rep-children-sample-sym --children -F sample,sym
# Options whose output diffprofile does not read (refused naming them).
report rep-t --no-children -g none --sort sym -n -t ,
report rep-hier --no-children -g none --hierarchy --sort dso,sym -n
report rep-q --no-children -g none -q --sort sym -n
# A recording with namespace events (`perf record -e cpu-clock --namespaces`,
# the second argument): side-band records with continuation lines.
if [ -n "${2:-}" ]; then
    perf script -i "$2" --show-namespace-events | gzip -9n >"$out/namespaces.txt.gz"
fi
