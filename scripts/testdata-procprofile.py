#!/usr/bin/env python3
"""Helpers to make genuine readprofile input from a perf recording.

There is no /proc/profile on the recording machine (kernel built without
CONFIG_PROFILING / profile= boot option), so we build the two inputs
readprofile needs ourselves and then run the real readprofile on them:

  sysmap  < /proc/kallsyms  > System.map
      System.map from kallsyms: text symbols (T t W w) plus _stext/_etext,
      module symbols ("[mod]") dropped, sorted by address (stable, so for
      aliases at one address the kallsyms order is kept).

  image System.map OUT.img [STEP]  < ips
      Read one hex instruction pointer per line (e.g. `perf script -F ip`),
      keep kernel addresses (>= 0xffff800000000000, i.e. kernel-mode
      samples: the kernel's profile_tick() only counts kernel mode) and
      bucket them exactly as kernel/profile.c does:
        prof_len = (_etext - _stext) >> shift          (step = 1 << shift)
        i = min((ip - _stext) >> shift, prof_len - 1)  (unsigned arithmetic:
            ips below _stext or at/after _etext land in the LAST counter)
      and write what read_profile() returns: native-endian
      u32 sample_step, then prof_len u32 counters.
      Prints "kernel=N user=M unknown=K" to stderr.

  trim System.map IMG [IMG ...]  > System.map.trimmed
      Keep only the map lines readprofile needs to print the same output for
      the given images: _stext, _etext, every symbol readprofile -v prints
      for any image, and the line right after each of those (its end, which
      gives the function length used for the load column).
"""
import array
import subprocess
import sys

KERNEL_MIN = 0xFFFF800000000000
TEXT = set("TtWw")


def cmd_sysmap():
    rows = []
    for n, line in enumerate(sys.stdin):
        parts = line.split()
        if len(parts) < 3:
            continue
        addr, typ, name = parts[0], parts[1], parts[2]
        if len(parts) > 3:  # "[module]" column: module symbol
            continue
        if typ not in TEXT and name not in ("_stext", "_etext"):
            continue
        rows.append((int(addr, 16), n, typ, name))
    rows.sort()
    out = sys.stdout
    for a, _, typ, name in rows:
        out.write("%016x %s %s\n" % (a, typ, name))


def read_map(path):
    rows = []
    with open(path) as f:
        for line in f:
            a, t, n = line.split()
            rows.append((int(a, 16), t, n))
    return rows


def text_bounds(rows):
    stext = next(a for a, t, n in rows if n == "_stext")
    etext = next(a for a, t, n in rows if n == "_etext")
    return stext, etext


def cmd_image(mappath, outpath, step=4):
    step = int(step)
    shift = step.bit_length() - 1
    assert 1 << shift == step, "step must be a power of two"
    stext, etext = text_bounds(read_map(mappath))
    prof_len = (etext - stext) >> shift
    counts = array.array("I", bytes(4 * prof_len))
    assert counts.itemsize == 4
    nk = nu = nunk = 0
    for line in sys.stdin:
        s = line.strip()
        if not s:
            continue
        ip = int(s.split()[0], 16)
        if ip < KERNEL_MIN:
            nu += 1
            continue
        nk += 1
        i = ((ip - stext) & 0xFFFFFFFFFFFFFFFF) >> shift
        if i >= prof_len:
            i = prof_len - 1
            nunk += 1
        counts[i] += 1
    with open(outpath, "wb") as f:
        f.write(array.array("I", [step]).tobytes())
        f.write(counts.tobytes())
    sys.stderr.write("kernel=%d user=%d unknown=%d prof_len=%d\n"
                     % (nk, nu, nunk, prof_len))


def cmd_trim(mappath, *imgs):
    rows = read_map(mappath)
    want = set()
    for img in imgs:
        out = subprocess.run(["readprofile", "-v", "-p", img, "-m", mappath],
                             check=True, capture_output=True, text=True,
                             env={"LC_ALL": "C", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 4 and f[1] != "total":
                want.add((int(f[0], 16), f[1]))
    keep = [False] * len(rows)
    for i, (a, t, n) in enumerate(rows):
        if n in ("_stext", "_etext") or (a, n) in want:
            keep[i] = True
            if (a, n) in want and i + 1 < len(rows):
                keep[i + 1] = True
    # _stext must be the first line readprofile sees
    for i, (a, t, n) in enumerate(rows):
        if keep[i]:
            sys.stdout.write("%016x %s %s\n" % (a, t, n))


if __name__ == "__main__":
    cmd = sys.argv[1]
    {"sysmap": cmd_sysmap, "image": cmd_image, "trim": cmd_trim}[cmd](*sys.argv[2:])
