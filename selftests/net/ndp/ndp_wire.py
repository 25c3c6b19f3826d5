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


assert struct.calcsize(FORMAT) == HDR_LEN == HDR_WORDS * 4
