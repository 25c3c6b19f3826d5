# SPDX-License-Identifier: GPL-2.0
"""The NDP wire header for the Python helpers of the selftests.

The one definition is struct ndphdr and its constants in
include/uapi/linux/ndp.h (Documentation/networking/ndp-wire.rst says what
they mean).  This module restates them for Python, which cannot include a
C header; tools/wire-check, run by the static stage of tools/ndp-test,
compiles the header and compares every value here with it, so a change
to one that leaves the other behind fails the checks.

    import ndp_wire as W
    h = W.unpack(buf, off)          # dict: field name -> value
    for h in W.packets(buf, off):   # each packet of a batch in one frame
    flags = W.field(buf, "flags", off)
    if h["type"] == W.PKT_DATA and h["flags"] & W.F_SYN: ...
    nh = W.pack(source=1, dest=2, type=W.PKT_DATA, doff=W.HDR_WORDS)
    opt = W.pack_opt_ack(psn=7, cum=8, path=1, span=2, delay=40)
    at = W.option(buf, W.OPT_ACK, W.OPT_ACK_LEN, off)   # offset or None
    a = W.unpack_opt_ack(buf, at)   # dict, a["ok"]: a receiver takes it
"""
import struct

# Socket API (the same header).
SOCK_NDP = 7
IPPROTO_NDP = 253
SOL_NDP = IPPROTO_NDP
NDP_INFO = 1

# struct ndphdr: its fields in order, with their struct module codes
# (network byte order: the header is big endian).
FIELDS = (
    ("source", "H"), ("dest", "H"), ("type", "B"), ("doff", "B"),
    ("flags", "H"), ("nonce", "I"), ("psn", "I"), ("syn_off", "I"),
    ("pull", "I"), ("prio", "I"), ("paylen", "H"), ("path", "B"),
    ("detours", "B"), ("hcsum", "H"), ("pcsum", "H"), ("nsenders", "H"),
    ("acks", "H"),
)
FORMAT = "!" + "".join(code for _, code in FIELDS)
NAMES = tuple(name for name, _ in FIELDS)
# Byte offset, size and struct code of each field.
OFFSET = {}
SIZE = {}
CODE = dict(FIELDS)
for _i, (_name, _code) in enumerate(FIELDS):
    OFFSET[_name] = struct.calcsize("!" + "".join(c for _, c in FIELDS[:_i]))
    SIZE[_name] = struct.calcsize("!" + _code)

HDR_WORDS = 10          # doff of a header without options
HDR_LEN = 40            # bytes of struct ndphdr
DOFF_MAX = 255          # doff is 8 bits: options up to DOFF_MAX * 4 - HDR_LEN
ACK_SPAN_MAX = 64       # most psns one ACK reports (acks)

# Options: kind, length (the whole option), value (NDP_OPT_*)
OPT_EOL = 0
OPT_NOP = 1
OPT_ROOM = 2            # ACK/NACK/PULL: receive room in packets, be16
OPT_ROOM_LEN = 4
OPT_ACK = 3             # DATA: an ACK riding on it, struct ndp_opt_ack
OPT_ACK_LEN = 16
OPT_ACK_SPAN = 0x7f     # ndp_opt_ack.acks: the span (as an ACK's acks)
OPT_ACK_CE = 0x80       # ndp_opt_ack.acks: the reported DATA arrived CE

# struct ndp_opt_ack, as FIELDS: the whole option, kind and length
# included; csum makes the option's one's complement sum zero.
OPT_ACK_FIELDS = (
    ("kind", "B"), ("len", "B"), ("csum", "H"), ("psn", "I"), ("cum", "I"),
    ("path", "B"), ("acks", "B"), ("delay", "H"),
)
OPT_ACK_FORMAT = "!" + "".join(code for _, code in OPT_ACK_FIELDS)
OPT_ACK_NAMES = tuple(name for name, _ in OPT_ACK_FIELDS)
OPT_ACK_OFFSET = {}
for _i, (_name, _code) in enumerate(OPT_ACK_FIELDS):
    OPT_ACK_OFFSET[_name] = struct.calcsize(
        "!" + "".join(c for _, c in OPT_ACK_FIELDS[:_i]))

# enum ndp_pkt_type
PKT_DATA = 1
PKT_ACK = 2
PKT_NACK = 3
PKT_PULL = 4
PKT_RST = 5
PKT_CHALLENGE = 6
PKT_TOKEN = 7
PKT_MAX = 8

# NDP_F_* (values of the flags field in host order)
F_SYN = 0x0001
F_LAST = 0x0002
F_TRIMMED = 0x0004
F_RTS = 0x0008
F_UNSCHED = 0x0010
F_PULL = 0x0020
F_FIN = 0x0040
F_RTX = 0x0080
F_PASSIVE = 0x0100
F_ECHO = 0x0200
F_TOKEN = 0x0400
F_DUP = 0x0800
F_CE = 0x1000
F_ALL = 0x1FFF


def unpack(buf, off=0):
    """The header at buf[off:] as a dict of field name -> value."""
    return dict(zip(NAMES, struct.unpack_from(FORMAT, buf, off)))


def field(buf, name, off=0):
    """One field of the header at buf[off:] (the buffer may end after it)."""
    return struct.unpack_from("!" + CODE[name], buf, off + OFFSET[name])[0]


def packets(buf, off=0):
    """The headers (dicts, as unpack()) of the NDP packets at buf[off:].

    One, unless buf holds a batch as a capture on a veth sees it: a
    sender's consecutive DATA packets back to back in one frame, each
    behind its own header (net/ndp/offload.c); each header's paylen says
    where the next one starts.
    """
    while len(buf) - off >= HDR_LEN:
        h = unpack(buf, off)
        yield h
        if h["type"] != PKT_DATA or h["flags"] & F_TRIMMED:
            return
        off += h["doff"] * 4 + h["paylen"]


def pack(**fields):
    """A 40-byte header; fields not given are 0."""
    for name in fields:
        if name not in OFFSET:
            raise KeyError("no NDP header field %r" % name)
    return struct.pack(FORMAT, *(fields.get(name, 0) for name in NAMES))


def csum(data):
    """The Internet checksum of data: its folded one's complement sum,
    complemented (RFC 1071); a zero-padded odd byte counts as the high one."""
    data = bytes(data)
    if len(data) % 2:
        data += b"\0"
    acc = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while acc > 0xffff:
        acc = (acc & 0xffff) + (acc >> 16)
    return acc ^ 0xffff


def option(buf, kind, length, off=0):
    """The offset in buf of option kind of length bytes (kind byte and
    length byte included) of the header at buf[off:], or None: the walk
    of ndp_hdr_opt() (include/net/ndp_wire.h), which stops at OPT_EOL and
    at a length below 2 or past the header (doff * 4 bytes), and skips an
    option of that kind with another length.  Unlike ndp_hdr_opt(), the
    offset is the option's first byte, not its value's."""
    end = off + field(buf, "doff", off) * 4
    if end > len(buf):
        end = len(buf)
    p = off + HDR_LEN
    while p < end:
        if buf[p] == OPT_EOL:
            break
        if buf[p] == OPT_NOP:
            p += 1
            continue
        if end - p < 2 or buf[p + 1] < 2 or buf[p + 1] > end - p:
            break
        if buf[p] == kind and buf[p + 1] == length:
            return p
        p += buf[p + 1]
    return None


def pack_opt_ack(psn, cum, path=0, span=1, ce=False, delay=0, bad_csum=False):
    """An OPT_ACK option (OPT_ACK_LEN bytes) with its checksum: the ACK of
    psn (and the span - 1 psns before it) on path, cumulative ack cum,
    ce for a reported DATA that arrived CE, held delay microseconds
    (saturated at 65535).  bad_csum: the checksum flipped, as corruption."""
    if not 0 <= span <= OPT_ACK_SPAN:
        raise ValueError("span %d does not fit OPT_ACK_SPAN" % span)
    acks = span | (OPT_ACK_CE if ce else 0)
    opt = struct.pack(OPT_ACK_FORMAT, OPT_ACK, OPT_ACK_LEN, 0, psn, cum,
                      path, acks, min(delay, 0xffff))
    c = csum(opt)
    if bad_csum:
        c ^= 0x5a5a
    at = OPT_ACK_OFFSET["csum"]
    return opt[:at] + struct.pack("!H", c) + opt[at + 2:]


def unpack_opt_ack(buf, off=0):
    """The OPT_ACK option at buf[off:] (kind byte first, as option() finds
    it) as a dict of its fields, plus span and ce (the two parts of acks),
    csum_ok: whether its checksum verifies (the option sums to zero), and
    ok: whether a receiver takes it (checksum, and a span of 1 to
    ACK_SPAN_MAX); one it does not take is ignored and counted in InErrs."""
    o = dict(zip(OPT_ACK_NAMES, struct.unpack_from(OPT_ACK_FORMAT, buf, off)))
    o["span"] = o["acks"] & OPT_ACK_SPAN
    o["ce"] = bool(o["acks"] & OPT_ACK_CE)
    o["csum_ok"] = (o["kind"] == OPT_ACK and o["len"] == OPT_ACK_LEN and
                    csum(buf[off:off + OPT_ACK_LEN]) == 0)
    o["ok"] = o["csum_ok"] and 1 <= o["span"] <= ACK_SPAN_MAX
    return o


assert struct.calcsize(FORMAT) == HDR_LEN == HDR_WORDS * 4
assert struct.calcsize(OPT_ACK_FORMAT) == OPT_ACK_LEN
