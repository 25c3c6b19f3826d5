#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the frames a namespace sends on its "wires": the devices that
stand for a physical link (overlays.sh).

    ndp_wiresize.py MTU IFACE...     (run in the namespace)

Prints "ready" once every socket is bound, then counts until SIGTERM or
SIGINT and prints one line:

    full=N over=M frag=F max=L

over the frames sent (PACKET_OUTGOING) on the IFACEs: "full" those of
more than MTU - 200 bytes after the Ethernet header (the big ones: data),
"over" those longer than MTU (no link may carry them), "frag" IPv4 or
IPv6 fragments (outer header), "max" the longest.  A packet
socket sees a sent frame after the device's software segmentation
(dev_queue_xmit_nit), so with the device's segmentation offloads off
(the caller's ethtool -K) these are the frames a NIC would put on the
wire.  A classic BPF filter keeps only frames longer than MTU - 200 + 14
bytes, so that small ones (ACKs, PULLs) cost nothing.
"""
import ctypes
import select
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
SOL_PACKET = 263
SO_ATTACH_FILTER = 26
SO_RCVBUFFORCE = 33
PACKET_OUTGOING = 4
ETH_HLEN = 14


def attach_len_filter(s, minlen):
    """Accept only frames longer than minlen bytes (whole)."""
    # ld len; jgt #minlen, accept, drop; ret #0x40000; ret #0
    prog = struct.pack('HBBI', 0x80, 0, 0, 0) + \
        struct.pack('HBBI', 0x25, 0, 1, minlen) + \
        struct.pack('HBBI', 0x06, 0, 0, 0x40000) + \
        struct.pack('HBBI', 0x06, 0, 0, 0)
    buf = ctypes.create_string_buffer(prog)
    fprog = struct.pack('HL', 4, ctypes.addressof(buf))
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    return buf      # keep it alive until the socket is bound


def ip_frag(frame):
    """Whether an Ethernet frame is an IP fragment; None if not IP."""
    etype = struct.unpack_from('!H', frame, 12)[0]
    ip = frame[ETH_HLEN:]
    if etype == 0x0800 and len(ip) >= 20:
        return (struct.unpack_from('!H', ip, 6)[0] & 0x3fff) != 0
    if etype == 0x86dd and len(ip) >= 40:
        return ip[6] == 44
    return None


def main():
    mtu = int(sys.argv[1])
    socks = []
    for iface in sys.argv[2:]:
        # Protocol 0 first: no frame is queued before the filter is on.
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
        keep = attach_len_filter(s, mtu - 200 + ETH_HLEN)
        s.bind((iface, ETH_P_ALL))
        del keep
        s.setblocking(False)
        socks.append(s)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    print('ready', flush=True)
    full = over = frag = biggest = 0
    while True:
        done = bool(stop)
        try:
            ready, _, _ = select.select(socks, [], [], 0.2)
        except InterruptedError:
            ready = []
        if done:
            ready = socks     # drain what is queued, then stop
        for s in ready:
            while True:
                try:
                    data, sa = s.recvfrom(1 << 18)
                except (BlockingIOError, InterruptedError):
                    break
                if sa[2] != PACKET_OUTGOING:
                    continue
                is_frag = ip_frag(data)
                if is_frag is None:
                    continue
                # The frame's own length, not the header's claim.
                length = len(data) - ETH_HLEN
                biggest = max(biggest, length)
                if length > mtu - 200:
                    full += 1
                if length > mtu:
                    over += 1
                if is_frag:
                    frag += 1
        if done:
            break
    print('full=%d over=%d frag=%d max=%d' % (full, over, frag, biggest),
          flush=True)


if __name__ == '__main__':
    main()
