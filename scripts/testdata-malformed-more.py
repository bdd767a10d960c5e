#!/usr/bin/env python3
"""More malformed inputs for diffprofile (issue 8), derived from REAL files of
testdata/ (each change is described in testdata/README.md). Deterministic:
running it again writes byte-identical files.

usage: python3 scripts/testdata-malformed-more.py testdata
"""
import gzip, io, os, sys, tarfile

T = sys.argv[1]
M = os.path.join(T, "malformed")
RP = os.path.join(T, "readprofile/default/sockets/run1.txt")
PR = os.path.join(T, "perf-report/sym-n/sockets/run1.txt")
rp = open(RP, "rb").read()
pr = open(PR, "rb").read()
rp_lines = rp.splitlines(keepends=True)


def write(name, data):
    with open(os.path.join(M, name), "wb") as f:
        f.write(data)


def replace_line(lines, i, new):
    out = list(lines)
    out[i] = new
    return b"".join(out)


# NUL bytes inside the 5th line's symbol name
l = rp_lines[4]
write("readprofile-nul-bytes.txt", replace_line(rp_lines, 4, l.replace(b"__virt", b"__v\0\0rt", 1)))
# cut in the middle of the 5th line: truncated last line, no total
write("readprofile-truncated-last-line.txt", b"".join(rp_lines[:4]) + rp_lines[4][:12])
# invalid UTF-8 (Latin-1 bytes and a lone continuation byte) in a symbol name
write("readprofile-invalid-utf8.txt",
      replace_line(rp_lines, 1, rp_lines[1].replace(b"copy_thread", b"copy_thr\xe9ad\x80", 1)))
# 5th line's count negative (line 5: detection reads the first lines, so the parser sees it)
write("readprofile-negative-count.txt",
      replace_line(rp_lines, 4, rp_lines[4].replace(b"    20 __virt", b"   -20 __virt", 1)))
# 5th line's count > u64::MAX (2^64 = 18446744073709551616)
write("readprofile-count-over-u64.txt",
      replace_line(rp_lines, 4, rp_lines[4].replace(b"    20 __virt", b"18446744073709551616 __virt", 1)))
# the 5th line duplicated right after itself (real dumps may hold one name twice)
write("readprofile-duplicate-row.txt", b"".join(rp_lines[:5] + rp_lines[4:]))
# perf report: CRLF line endings (should parse like the original)
write("perf-report-crlf.txt", pr.replace(b"\n", b"\r\n"))
# zstd stream cut in half (zstd -19 of the real dump)
import subprocess
full = subprocess.run(["zstd", "-q", "-19", "-c", RP], check=True, capture_output=True).stdout
write("truncated.txt.zst", full[: len(full) // 2])


def member(tf, name, data, **kw):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    for k, v in kw.items():
        setattr(info, k, v)
    tf.addfile(info, io.BytesIO(data) if data else None)


def tar(name, build):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        build(tf)
    write(name, buf.getvalue())


# members named ../escape.txt and /tmp/absolute.txt (real dump as content)
tar("tar-dotdot-absolute.tar", lambda tf: (
    member(tf, "../escape.txt", rp),
    member(tf, "/tmp/diffprofile-absolute.txt", rp)))
# a real dump, a symlink member to /etc/passwd and a character-device member
tar("tar-symlink-device.tar", lambda tf: (
    member(tf, "runs/run1.txt", rp),
    member(tf, "runs/link.txt", b"", type=tarfile.SYMTYPE, linkname="/etc/passwd"),
    member(tf, "runs/null", b"", type=tarfile.CHRTYPE, devmajor=1, devminor=3)))
