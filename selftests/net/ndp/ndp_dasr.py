#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Helper of dasr.sh: detour marks of unscheduled packets and DASR.

    ndp_dasr.py sink ADDR PORT CONNS NBYTES
        accept CONNS connections one after the other, read NBYTES from
        each, check it (the first 32 bytes are the SHA-256 of the rest),
        send one byte back; prints "listening", then "intact I/CONNS"
    ndp_dasr.py mark IFACE ADDR PORT CONNS NBYTES WANT
        capture on IFACE while CONNS connections, one after the other,
        send NBYTES each to a sink; then print what the capture shows of
        the DATA this host sent: "conns C data D rtx R", "marked M",
        "marked_rtx X" (UNSCHED on a retransmission), "marked_pulled P"
        (UNSCHED on a packet that is not among the first WANT of a pushed
        window: those begin at the first psn and after each LAST),
        "first_marks
        F1,F2,..." (per connection, the syn_off values of its marked SYN
        packets, as "0-2" ranges) and "unmarked_after A" (SYN packets at
        or beyond the marks, unmarked)
    ndp_dasr.py recv ADDR PORT K NBYTES DIR
        accept K connections (their first windows arrived), print
        "nsenders N" from NDP_INFO, read NBYTES from each and check it,
        create DIR/round1, print "nsenders_after N"; then read NBYTES more
        from each and from K new connections, check them, create
        DIR/round2 and print "intact I/3K"
    ndp_dasr.py send ADDR PORT K NBYTES DIR SRC1,SRC2,...
        K connections from the K source addresses send NBYTES each at
        once; after DIR/round1, print "peer_nsenders ..." and
        "round1_windows ...", send NBYTES more on each ("round2_windows")
        and open K new connections that send NBYTES ("new_windows");
        wait for DIR/round2
"""

import hashlib
import os
import socket
import struct
import sys
import threading
import time

from ndp_wire import (SOCK_NDP, SOL_NDP, NDP_INFO, HDR_LEN, PKT_DATA,
                      F_SYN, F_LAST, F_UNSCHED, F_RTX)
import ndp_wire
from ndp_pcap import Capture

# struct ndp_info: ndpi_push_window, then ndpi_peer_nsenders and
# ndpi_nsenders (u16); INFO_LEN ends with them (tools/wire-check).
INFO_PUSH_WINDOW = 144
INFO_LEN = 152
FIRST = 64 * 1024


def payload(n, seed):
    body = bytes((seed * 131 + i * 7) & 0xFF for i in range(n - 32))
    return hashlib.sha256(body).digest() + body


def intact(data):
    return hashlib.sha256(data[32:]).digest() == data[:32]


def info(s):
    b = s.getsockopt(SOL_NDP, NDP_INFO, INFO_LEN)
    if len(b) < INFO_LEN:
        return (0, 0, 0)
    return struct.unpack_from("=IHH", b, INFO_PUSH_WINDOW)


def readn(c, n):
    got = bytearray()
    while len(got) < n:
        b = c.recv(min(65536, n - len(got)))
        if not b:
            break
        got += b
    return bytes(got)


def wait_file(path, secs=300):
    end = time.time() + secs
    while not os.path.exists(path):
        if time.time() > end:
            sys.exit("timed out waiting for " + path)
        time.sleep(0.05)


def listen(addr, port):
    ls = socket.socket(socket.AF_INET, SOCK_NDP, 0)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(128)
    print("listening", flush=True)
    return ls


def cmd_sink(addr, port, conns, nbytes):
    ls = listen(addr, port)
    ok = 0
    for _ in range(conns):
        c, _ = ls.accept()
        c.settimeout(120)
        if intact(readn(c, nbytes)):
            ok += 1
        c.sendall(b"k")
        c.close()
    print("intact %d/%d" % (ok, conns), flush=True)
    return ok == conns


def ipproto():
    try:
        with open("/sys/module/ndp/parameters/ipproto") as f:
            return int(f.read())
    except OSError:
        return 253


def cmd_mark(iface, addr, port, conns, nbytes, want):
    cap = Capture(iface)
    for i in range(conns):
        s = socket.socket(socket.AF_INET, SOCK_NDP, 0)
        s.settimeout(120)
        s.connect((addr, port))
        s.sendall(payload(nbytes, i))
        if s.recv(1) != b"k":
            sys.exit("no answer on connection %d" % i)
        s.close()
    # The last connection's closing packets: time passing, not a
    # condition (every DATA was answered before its close).
    time.sleep(0.5)
    frames = [f for _, f, pkttype in cap.stop()
              if pkttype == socket.PACKET_OUTGOING]

    proto = ipproto()
    data = rtx = marked = marked_rtx = 0
    first = {}
    syns = {}
    starts = {}     # per connection: psns that begin a pushed window
    marks = []      # (sport, psn) of every marked packet
    for f in frames:
        if len(f) < 14 + 20 + HDR_LEN or f[12:14] != b"\x08\x00":
            continue
        ip = f[14:]
        if ip[9] != proto:
            continue
        for nh in ndp_wire.packets(ip, (ip[0] & 0xF) * 4):
            sport, flags = nh["source"], nh["flags"]
            psn, syn_off = nh["psn"], nh["syn_off"]
            if nh["type"] != PKT_DATA:
                continue
            data += 1
            st = starts.setdefault(sport, set())
            if flags & F_SYN:
                st.add((psn - syn_off) & 0xFFFFFFFF)
            if flags & F_LAST:
                st.add((psn + 1) & 0xFFFFFFFF)
            if flags & F_RTX:
                rtx += 1
            if flags & F_SYN:
                syns.setdefault(sport, []).append((syn_off, flags))
            if not flags & F_UNSCHED:
                continue
            marked += 1
            marks.append((sport, psn))
            if flags & F_RTX:
                marked_rtx += 1
            if flags & F_SYN:
                first.setdefault(sport, set()).add(syn_off)
    # A mark is only allowed on the first @want packets of a window.
    marked_pulled = 0
    for sport, psn in marks:
        if not any((psn - s) & 0xFFFFFFFF < want
                   for s in starts.get(sport, ())):
            marked_pulled += 1
    firsts = []
    unmarked_after = 0
    for sport in sorted(syns):
        m = sorted(first.get(sport, []))
        firsts.append("%d-%d" % (m[0], m[-1]) if m and
                     m == list(range(m[0], m[-1] + 1)) else
                     ("none" if not m else "+".join(map(str, m))))
        for off, flags in syns[sport]:
            if off >= len(m) and not flags & F_UNSCHED:
                unmarked_after += 1
    print("conns %d data %d rtx %d" % (len(syns), data, rtx))
    print("marked %d" % marked)
    print("marked_rtx %d" % marked_rtx)
    print("marked_pulled %d" % marked_pulled)
    print("first_marks %s" % ",".join(firsts))
    print("unmarked_after %d" % unmarked_after, flush=True)
    return True


def cmd_recv(addr, port, k, nbytes, d):
    ls = listen(addr, port)
    old = []
    for _ in range(k):
        c, _ = ls.accept()
        c.settimeout(120)
        old.append(c)
    print("nsenders %d" % info(old[0])[2], flush=True)
    ok = 0
    for c in old:
        ok += intact(readn(c, nbytes))
    print("nsenders_after %d" % info(old[0])[2], flush=True)
    open(os.path.join(d, "round1"), "w").close()
    for c in old:
        ok += intact(readn(c, nbytes))
    for _ in range(k):
        c, _ = ls.accept()
        c.settimeout(120)
        ok += intact(readn(c, nbytes))
        c.close()
    open(os.path.join(d, "round2"), "w").close()
    print("intact %d/%d" % (ok, 3 * k), flush=True)
    time.sleep(1)
    for c in old:
        c.close()
    return ok == 3 * k


def send_window(s, data):
    """Send @data; return the size of the window its first part opened
    (the first FIRST bytes fit the send buffer: one send() queues them
    all and pushes one window)."""
    s.sendall(data[:FIRST])
    w = info(s)[0]
    s.sendall(data[FIRST:])
    return w


def connect_send(src, addr, port, data, out, i):
    s = socket.socket(socket.AF_INET, SOCK_NDP, 0)
    s.settimeout(120)
    s.bind((src, 0))
    s.connect((addr, port))
    out[i] = (s, send_window(s, data))


def send_all(srcs, addr, port, nbytes, seed):
    socks = [None] * len(srcs)
    ts = [threading.Thread(target=connect_send,
                           args=(src, addr, port, payload(nbytes, seed + i),
                                 socks, i))
          for i, src in enumerate(srcs)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if None in socks:
        sys.exit("a sender failed")
    return [s for s, _ in socks], [w for _, w in socks]


def cmd_send(addr, port, k, nbytes, d, srcs):
    srcs = srcs.split(",")[:k]
    socks, w1 = send_all(srcs, addr, port, nbytes, 0)
    wait_file(os.path.join(d, "round1"))
    print("peer_nsenders %s" % " ".join(str(info(s)[1]) for s in socks))
    print("round1_windows %s" % " ".join(map(str, w1)), flush=True)
    w2 = [0] * k

    def again(s, i):
        w2[i] = send_window(s, payload(nbytes, 100 + i))

    ts = [threading.Thread(target=again, args=(s, i))
          for i, s in enumerate(socks)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("round2_windows %s" % " ".join(map(str, w2)), flush=True)
    new, w3 = send_all(srcs, addr, port, nbytes, 200)
    print("new_windows %s" % " ".join(map(str, w3)), flush=True)
    wait_file(os.path.join(d, "round2"))
    for s in socks + new:
        s.close()
    return True


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    cmd = a[0]
    if cmd == "sink" and len(a) == 5:
        return cmd_sink(a[1], int(a[2]), int(a[3]), int(a[4]))
    if cmd == "mark" and len(a) == 7:
        return cmd_mark(a[1], a[2], int(a[3]), int(a[4]), int(a[5]),
                        int(a[6]))
    if cmd == "recv" and len(a) == 6:
        return cmd_recv(a[1], int(a[2]), int(a[3]), int(a[4]), a[5])
    if cmd == "send" and len(a) == 7:
        return cmd_send(a[1], int(a[2]), int(a[3]), int(a[4]), a[5], a[6])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
