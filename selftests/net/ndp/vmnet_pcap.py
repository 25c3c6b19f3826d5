#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the frames of a classic pcap file (Ethernet) by kind, for vmnet.sh.

    vmnet_pcap.py FILE MTU UDP_PORT

One line per kind seen: "KIND frames N over M max L frags F", where KIND
is tcp4, tcp6, ndp4, ndp6 (IP protocol 253), udp4, udp6 (UDP to or from
UDP_PORT: NDP in UDP) or other; M counts frames longer than MTU + 14 (an
Ethernet header and an IP packet of MTU bytes), L is the longest frame,
F counts IP fragments.  Lengths are the frames' original lengths (the
capture keeps only their start).
"""
import struct
import sys

NDP_PROTO = 253


def kind_of(frame):
    """(kind, is_fragment) of one Ethernet frame."""
    if len(frame) < 14:
        return 'other', False
    etype = struct.unpack('!H', frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 0xf) * 4
        proto = ip[9]
        frag = struct.unpack('!H', ip[6:8])[0]
        is_frag = bool(frag & 0x3fff)
        l4 = ip[ihl:]
        fam = '4'
    elif etype == 0x86dd and len(ip) >= 40:
        proto = ip[6]
        l4 = ip[40:]
        is_frag = False
        if proto == 44 and len(l4) >= 8:    # fragment header
            proto = l4[0]
            is_frag = True
            l4 = l4[8:]
        fam = '6'
    else:
        return 'other', False
    if proto == 6:
        return 'tcp' + fam, is_frag
    if proto == NDP_PROTO:
        return 'ndp' + fam, is_frag
    if proto == 17 and len(l4) >= 4:
        sport, dport = struct.unpack('!HH', l4[0:4])
        if UDP_PORT in (sport, dport):
            return 'udp' + fam, is_frag
    return 'other', is_frag


def main():
    global UDP_PORT
    path, mtu, UDP_PORT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    stats = {}
    with open(path, 'rb') as f:
        hdr = f.read(24)
        magic = struct.unpack('<I', hdr[0:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            endian = '<'
        elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
            endian = '>'
        else:
            sys.exit('%s: not a classic pcap file' % path)
        linktype = struct.unpack(endian + 'I', hdr[20:24])[0]
        if linktype != 1:
            sys.exit('%s: link type %d, not Ethernet' % (path, linktype))
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            _, _, incl, orig = struct.unpack(endian + 'IIII', rec)
            frame = f.read(incl)
            kind, is_frag = kind_of(frame)
            s = stats.setdefault(kind, [0, 0, 0, 0])
            s[0] += 1
            if orig > mtu + 14:
                s[1] += 1
            s[2] = max(s[2], orig)
            if is_frag:
                s[3] += 1
    for kind in sorted(stats):
        n, over, longest, frags = stats[kind]
        print('%s frames %d over %d max %d frags %d' % (kind, n, over, longest, frags))


UDP_PORT = 0
if __name__ == '__main__':
    main()
