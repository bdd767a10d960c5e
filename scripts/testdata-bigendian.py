#!/usr/bin/env python3
# usage: python3 scripts/testdata-bigendian.py IN.data OUT-le.data OUT-be.data
#
# Writes two copies of the little-endian perf.data IN.data: OUT-le.data
# with the records and features kept below, in the recording's byte order,
# and OUT-be.data, the same file as a big-endian machine's perf writes it
# (magic 2ELIFREP, every field byte-swapped, the attributes' flag bits
# reversed in each byte), for the tests that a
# big-endian perf.data is read as its little-endian twin.
#
# Kept: the header, the attributes and their ids; the data records MMAP,
# LOST, COMM, EXIT, THROTTLE, UNTHROTTLE, FORK, SAMPLE, MMAP2, LOST_SAMPLES and FINISHED_ROUND
# (others are dropped from both copies); the features HOSTNAME, OSRELEASE,
# VERSION, ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE and EVENT_DESC
# (others are dropped from both). Samples may hold IDENTIFIER, IP, TID,
# TIME, ADDR, ID, STREAM_ID, CPU, PERIOD and CALLCHAIN; anything else is
# refused. Only for recordings of one sample layout (all attributes'
# sample_type equal).
import struct
import sys

IDENTIFIER, IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID = (
    1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 9)
SAMPLE_ID_ALL = 1 << 18
KNOWN = IDENTIFIER | IP | TID | TIME | ADDR | CALLCHAIN | ID | CPU | PERIOD | STREAM_ID
# perf_event_attr, field widths in bytes, in order (VER8: 136 bytes).
ATTR = [4, 4, 8, 8, 8, 8, 8, 4, 4, 8, 8, 8, 8, 4, 4, 8, 4, 2, 2, 4, 4, 8, 8]
KEEP_RECORDS = {1, 2, 3, 4, 5, 6, 7, 9, 10, 13, 68}
STRING_FEATURES = {3, 4, 5, 6, 8, 9}  # HOSTNAME OSRELEASE VERSION ARCH CPUDESC CPUID
NRCPUS, TOTAL_MEM, CMDLINE, EVENT_DESC = 7, 10, 11, 12


class Out:
    """Bytes written in both orders at once."""

    def __init__(self):
        self.le, self.be = bytearray(), bytearray()

    def put(self, raw, width):
        """Little-endian field `raw` of `width` bytes (1 copies)."""
        assert len(raw) == width, (len(raw), width)
        self.le += raw
        self.be += raw if width == 1 else raw[::-1]

    def bitfield(self, raw):
        """perf_event_attr's flags: C bitfields, which a big-endian
        compiler allocates from each byte's top bit; perf swaps them by
        reversing each byte's bits (session.c swap_bitfield)."""
        self.le += raw
        self.be += bytes(int(f"{c:08b}"[::-1], 2) for c in raw)

    def fields(self, raw, widths):
        at = 0
        for w in widths:
            self.put(raw[at:at + w], w)
            at += w
        assert at == len(raw), (at, len(raw))

    def blob(self, raw):
        """Bytes, not a number (strings, padding)."""
        self.le += raw
        self.be += raw

    def u64s(self, raw):
        self.fields(raw, [8] * (len(raw) // 8))


def attr(o, raw):
    """perf_event_attr: its flags (the 7th field) are bitfields."""
    at = 0
    for n, w in enumerate(attr_fields(len(raw))):
        if n == 6:
            o.bitfield(raw[at:at + w])
        else:
            o.put(raw[at:at + w], w)
        at += w


def attr_fields(size):
    out, n = [], 0
    for w in ATTR:
        if n + w > size:
            break
        out.append(w)
        n += w
    assert n == size, f"attr size {size} is not a field boundary"
    return out


def trailer_widths(st):
    w = []
    if st & TID:
        w += [4, 4]
    for flag in (TIME, ID, STREAM_ID):
        if st & flag:
            w.append(8)
    if st & CPU:
        w += [4, 4]
    if st & IDENTIFIER:
        w.append(8)
    return w


def sample(o, body, st):
    at = 0

    def take(widths):
        nonlocal at
        n = sum(widths)
        o.fields(body[at:at + n], widths)
        at += n

    if st & IDENTIFIER:
        take([8])
    for flag, widths in ((IP, [8]), (TID, [4, 4]), (TIME, [8]), (ADDR, [8]), (ID, [8]),
                         (STREAM_ID, [8]), (CPU, [4, 4]), (PERIOD, [8])):
        if st & flag:
            take(widths)
    if st & CALLCHAIN:
        (nr,) = struct.unpack_from("<Q", body, at)
        take([8] * (nr + 1))
    assert at == len(body), "sample fields past the known ones"


def record(o, kind, misc, body, st, id_all):
    # User types (FINISHED_ROUND) have no sample_id trailer.
    tail = trailer_widths(st) if id_all and kind not in (9, 68) else []
    n = sum(tail)
    fixed, trail = (body[:len(body) - n], body[len(body) - n:]) if n else (body, b"")
    if kind == 9:
        sample(o, fixed, st)
    elif kind in (1, 10):
        head = [4, 4, 8, 8, 8]
        o.fields(fixed[:32], head)
        at = 32
        if kind == 10:
            if misc & (1 << 14):  # build-id: u8 size, 3 reserved, 20 bytes
                o.blob(fixed[at:at + 24])
            else:
                o.fields(fixed[at:at + 24], [4, 4, 8, 8])
            o.fields(fixed[at + 24:at + 32], [4, 4])
            at += 32
        o.blob(fixed[at:])
    elif kind == 2:
        o.fields(fixed, [8, 8])
    elif kind == 3:
        o.fields(fixed[:8], [4, 4])
        o.blob(fixed[8:])
    elif kind in (5, 6):
        o.fields(fixed, [8, 8, 8])
    elif kind in (4, 7):
        o.fields(fixed, [4, 4, 4, 4, 8])
    elif kind == 13:
        o.fields(fixed, [8])
    elif kind == 68:
        assert not fixed
    o.fields(trail, tail)


def string(o, b, at):
    (n,) = struct.unpack_from("<I", b, at)
    o.put(b[at:at + 4], 4)
    o.blob(b[at + 4:at + 4 + n])
    return at + 4 + n


def feature(bit, b):
    o = Out()
    if bit in STRING_FEATURES:
        assert string(o, b, 0) == len(b)
    elif bit == NRCPUS:
        o.fields(b, [4, 4])
    elif bit == TOTAL_MEM:
        o.fields(b, [8])
    elif bit == CMDLINE:
        (nr,) = struct.unpack_from("<I", b, 0)
        o.put(b[:4], 4)
        at = 4
        for _ in range(nr):
            at = string(o, b, at)
        assert at == len(b)
    elif bit == EVENT_DESC:
        nr, size = struct.unpack_from("<II", b, 0)
        o.fields(b[:8], [4, 4])
        at = 8
        for _ in range(nr):
            attr(o, b[at:at + size])
            at += size
            (ids,) = struct.unpack_from("<I", b, at)
            o.put(b[at:at + 4], 4)
            at = string(o, b, at + 4)
            o.u64s(b[at:at + 8 * ids])
            at += 8 * ids
        assert at == len(b)
    else:
        return None
    return o


def main(src, le_path, be_path):
    b = open(src, "rb").read()
    assert b[:8] == b"PERFILE2", "not a little-endian perf.data"
    size, attr_size, a_off, a_size, d_off, d_size, e_off, e_size = struct.unpack_from("<8Q", b, 8)
    flags = struct.unpack_from("<4Q", b, 72)
    assert size == 104 and e_size == 0
    # Attributes, then their ids, then the data, then the features.
    attrs, ids_blocks, types = [], [], set()
    for at in range(a_off, a_off + a_size, attr_size):
        a = b[at:at + attr_size]
        (asize,) = struct.unpack_from("<I", a, 4)
        (st,) = struct.unpack_from("<Q", a, 24)
        (fl,) = struct.unpack_from("<Q", a, 40)
        assert st & ~KNOWN == 0, f"sample_type {st:#x} holds fields not converted"
        types.add((st, bool(fl & SAMPLE_ID_ALL)))
        i_off, i_size = struct.unpack_from("<QQ", a, attr_size - 16)
        attrs.append((a[:asize], asize))
        ids_blocks.append(b[i_off:i_off + i_size])
    assert len(types) == 1, "attributes of different sample layouts"
    ((st, id_all),) = types
    o = Out()
    o.blob(b"\0" * 104)
    ids_at = []
    for blk in ids_blocks:
        ids_at.append((len(o.le), len(blk)))
        o.u64s(blk)
    attrs_at = len(o.le)
    for (a, asize), (i_at, i_len) in zip(attrs, ids_at):
        attr(o, a)
        o.blob(b"\0" * (attr_size - 16 - asize))
        o.fields(struct.pack("<QQ", i_at, i_len), [8, 8])
    data_at = len(o.le)
    at, dropped = d_off, {}
    while at < d_off + d_size:
        kind, misc, rsize = struct.unpack_from("<IHH", b, at)
        if kind in KEEP_RECORDS:
            o.fields(b[at:at + 8], [4, 2, 2])
            record(o, kind, misc, b[at + 8:at + rsize], st, id_all)
        else:
            dropped[kind] = dropped.get(kind, 0) + 1
        at += rsize
    data_len = len(o.le) - data_at
    # Features: the section table of the kept ones, then their bodies.
    kept = []
    bits = [i for i in range(256) if flags[i // 64] >> (i % 64) & 1]
    table = e_off = d_off + d_size
    for n, bit in enumerate(bits):
        f_off, f_size = struct.unpack_from("<QQ", b, table + 16 * n)
        body = feature(bit, b[f_off:f_off + f_size])
        if body is not None:
            kept.append((bit, body))
    table_at = len(o.le)
    body_at = table_at + 16 * len(kept)
    for bit, body in kept:
        o.fields(struct.pack("<QQ", body_at, len(body.le)), [8, 8])
        body_at += len(body.le)
    for bit, body in kept:
        o.le += body.le
        o.be += body.be
    new_flags = [0, 0, 0, 0]
    for bit, _ in kept:
        new_flags[bit // 64] |= 1 << (bit % 64)
    head = Out()
    hdr = struct.pack("<QQQQQQQQ", 104, attr_size, attrs_at, len(attrs) * attr_size,
                      data_at, data_len, 0, 0) + struct.pack("<4Q", *new_flags)
    head.u64s(hdr)
    o.le[:104] = b"PERFILE2" + head.le
    o.be[:104] = b"2ELIFREP" + head.be
    open(le_path, "wb").write(o.le)
    open(be_path, "wb").write(o.be)
    print(f"records dropped {dropped}; features kept {[k for k, _ in kept]} of {bits}",
          file=sys.stderr)


main(*sys.argv[1:4])
