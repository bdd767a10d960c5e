#!/bin/bash
# The sparse tar archives of testdata/sweep5/ (see testdata/README.md):
# run from the crate root on a file system with holes (cp --sparse=always
# must make a sparse file; `du` shows it). Each archive holds `old/run1.img`,
# the committed /proc/profile image testdata/raw/pipes-run1.proc-profile.gz
# (18 MB, mostly zeros) as a sparse file, and `old/System.map` from
# testdata/raw/System.map.gz, written by GNU tar -S in each of its four
# sparse formats (old GNU, pax 0.0, 0.1 and 1.0).
set -euo pipefail
out=testdata/sweep5
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/old"
zcat testdata/raw/pipes-run1.proc-profile.gz >"$tmp/dense.img"
cp --sparse=always "$tmp/dense.img" "$tmp/old/run1.img"
zcat testdata/raw/System.map.gz >"$tmp/old/System.map"
du -k "$tmp/old/run1.img"
common=(--sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -S)
tar "${common[@]}" --format=gnu -cf "$tmp/sparse-gnu.tar" -C "$tmp" old
for v in 0.0 0.1 1.0; do
    tar "${common[@]}" --format=pax --sparse-version=$v \
        --pax-option=delete=atime,delete=ctime \
        -cf "$tmp/sparse-pax$v.tar" -C "$tmp" old
done
for f in "$tmp"/sparse-*.tar; do
    gzip -9nc "$f" >"$out/$(basename "$f").gz"
done
ls -l "$out"/sparse-*.tar.gz

# --exclude-idle over a kernel map that marks the idle text: a hand-made
# System.map of this machine's kernel text around __cpuidle_text (the lines
# of /proc/kallsyms from memset to kernel_init, as root; _stext and _etext
# set just outside them), and a /proc/profile image (step 4) with hand-set
# counts in functions inside the idle text (some of them on no list of idle
# names: intel_idle_s2idle, io_idle, acpi_idle_enter_bm, default_enter_idle)
# and outside it (memset, memset_orig, rest_init, kernel_init).
python3 - "$out" <<'PY'
import array, sys
out = sys.argv[1]
lines = open("/proc/kallsyms").read().splitlines()
start = next(i for i, l in enumerate(lines) if l.endswith(" T memset"))
end = next(i for i, l in enumerate(lines) if l.endswith(" t kernel_init"))
rows = [l.split()[:3] for l in lines[start:end + 1]]
assert int(rows[0][0], 16) != 0, "run as root: /proc/kallsyms shows zeros"
first = int(rows[0][0], 16)
last = int(rows[-1][0], 16)
stext, etext = first - 0x100, last + 0x200
with open(f"{out}/idle-System.map", "w") as f:
    f.write("%016x T _stext\n" % stext)
    for a, t, n in rows:
        f.write("%s %s %s\n" % (a, t, n))
    f.write("%016x T _etext\n" % etext)
hits = {"memset": 50, "memset_orig": 20, "rest_init": 10, "kernel_init": 5,
        "intel_idle_s2idle": 30, "io_idle": 40, "acpi_idle_enter_bm": 25,
        "default_enter_idle": 15, "intel_idle_irq": 35}
step = 4
counts = array.array("I", bytes(4 * ((etext - stext) // step)))
for a, t, n in rows:
    if n in hits:
        counts[(int(a, 16) + 8 - stext) // step] += hits.pop(n)
assert not hits, hits
with open(f"{out}/idle-run1.img", "wb") as f:
    f.write(array.array("I", [step]).tobytes() + counts.tobytes())
PY
gzip -9nf "$out/idle-run1.img"

# --exclude-idle without a map: folded stacks (one frame each) of the idle
# functions of the brief and of perf's list, and two that are not idle.
{
    for f in intel_idle_irq intel_idle_ibrs intel_idle_xstate acpi_safe_halt \
        xen_safe_halt amd_e400_idle cpu_startup_entry idle_cpu psw_idle \
        default_idle_call do_idle; do
        echo "$f 10"
    done
    echo "real_work 40"
    echo "intel_idle_irq_work 5"
} >"$out/idle-names.folded"

# Sampling rates: one workload recorded at -F 999 and at -F 1999 (as root;
# perf 6.1 here), and once at a fixed period (-c 100000, i.e. every 100 us
# of cpu-clock), for the warning under -n ticks and -o classic.
work=(perf bench sched messaging -p -g 2 -l 200)
perf record -q -e cpu-clock -F 999 -o "$tmp/f999.data" -- "${work[@]}" >/dev/null
perf record -q -e cpu-clock -F 1999 -o "$tmp/f1999.data" -- "${work[@]}" >/dev/null
perf record -q -e cpu-clock -c 100000 -o "$tmp/c100000.data" -- "${work[@]}" >/dev/null
for r in f999 f1999 c100000; do
    gzip -9nc "$tmp/$r.data" >"$out/$r.perf.data.gz"
done
perf --version
uname -r

# An archive whose paths all lie under one directory (`tar c tree | zstd`):
# tree/v6.1/msg/ holds the committed readprofile reports of sockets runs
# 1-3, tree/v6.2/msg/ those of pipes runs 1-3.
mkdir -p "$tmp/tree/v6.1/msg" "$tmp/tree/v6.2/msg"
for r in 1 2 3; do
    cp testdata/readprofile/default/sockets/run$r.txt "$tmp/tree/v6.1/msg/"
    cp testdata/readprofile/default/pipes/run$r.txt "$tmp/tree/v6.2/msg/"
done
tar "${common[@]}" -cf - -C "$tmp" tree | zstd -19 -q >"$out/tree.tar.zst"
