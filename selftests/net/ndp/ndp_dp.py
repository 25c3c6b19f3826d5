#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Data-path probes for sockopts.sh and pmtu.sh (Python stdlib only).

    ndp_dp.py cap [IFNAME]
        capture NDP packets (IP protocol 253) on IFNAME or on every
        interface with an AF_PACKET socket until killed; one line per
        packet: "DIR IFNAME FAMILY TYPE FLAGS TOS TTL LEN DF", DIR "in"
        or "out", TOS the IPv4 TOS byte or the IPv6 traffic class, TTL
        the TTL or hop limit, TYPE the NDP packet type (1 DATA, 2 ACK,
        3 NACK, 4 PULL, 5 RST), LEN the IP packet length, DF the IPv4
        DF bit (1 or 0; "-" for IPv6); all decimal
    ndp_dp.py server FAMILY PORT
        accept one connection, read it to its end; prints
        "ok BYTES SHA256"
    ndp_dp.py client FAMILY HOST PORT SIZE [OPT=VALUE...]
        connect, send SIZE bytes of a fixed pseudo-random stream, close;
        prints "ok BYTES SHA256".  Options, applied before connect():
        src=ADDR (bind), sport=N (bind), tos=N (IP_TOS / IPV6_TCLASS), ttl=N (IP_TTL /
        IPV6_UNICAST_HOPS), mark=N (SO_MARK), dev=IFNAME
        (SO_BINDTODEVICE), pause=DIR (after half of the data: touch
        DIR/half, wait for DIR/go), sndbuf=N (SO_SNDBUFFORCE: beyond
        net.core.wmem_max), chunk=N (bytes per send(), 0: all of SIZE in
        one; default 65536)

    ndp_dp.py unreach FAMILY HOST PORT ERRNO
        connect, send 20 KB, read: the error must be ERRNO (a name, such
        as EHOSTUNREACH); prints "ok ERRNO"
    ndp_dp.py spoof SRC DST SPORT DPORT NONCE MTU
        send an ICMP "fragmentation needed" (MTU) to SRC, quoting an NDP
        DATA packet from SRC:SPORT to DST:DPORT with NONCE and psn 0, as
        an off-path host could forge it

FAMILY is 4 or 6.  Exit status 0 on success, 1 on failure.
"""

import errno
import hashlib
import os
import random
import signal
import socket
import struct
import sys
import time

import ndp_wire

NDP_PROTO = ndp_wire.IPPROTO_NDP
ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
PACKET_OUTGOING = 4
SO_MARK = 36
SO_BINDTODEVICE = 25
SO_SNDBUFFORCE = 32
CHUNK = 65536


def fam(arg):
    return socket.AF_INET if arg == "4" else socket.AF_INET6


def cap(ifname):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM,
                      socket.htons(ETH_P_ALL))
    if ifname:
        s.bind((ifname, 0))
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    print("capturing", flush=True)
    while True:
        data, addr = s.recvfrom(65535)
        dev, proto, pkttype = addr[0], addr[1], addr[2]
        d = "out" if pkttype == PACKET_OUTGOING else "in"
        if proto == ETH_P_IP and len(data) >= 20 + 8:
            ihl = (data[0] & 0x0F) * 4
            if data[9] != NDP_PROTO or len(data) < ihl + 8:
                continue
            tos, ttl, tot = data[1], data[8], struct.unpack("!H", data[2:4])[0]
            df = (data[6] >> 6) & 1
            nh = data[ihl:]
            fa = 4
        elif proto == ETH_P_IPV6 and len(data) >= 40 + 8:
            if data[6] != NDP_PROTO:
                continue
            tos = ((data[0] & 0x0F) << 4) | (data[1] >> 4)
            ttl = data[7]
            tot = 40 + struct.unpack("!H", data[4:6])[0]
            nh = data[40:]
            fa = 6
            df = "-"
        else:
            continue
        typ = ndp_wire.field(nh, "type")
        flags = ndp_wire.field(nh, "flags")
        print(f"{d} {dev} {fa} {typ} {flags} {tos} {ttl} {tot} {df}",
              flush=True)


def server(fa, port):
    ls = socket.socket(fam(fa), socket.SOCK_STREAM, NDP_PROTO)
    ls.bind(("::" if fa == "6" else "0.0.0.0", port))
    ls.listen(4)
    print("listening", file=sys.stderr, flush=True)
    ls.settimeout(120)
    c, _ = ls.accept()
    c.settimeout(120)
    h = hashlib.sha256()
    n = 0
    while True:
        b = c.recv(CHUNK)
        if not b:
            break
        h.update(b)
        n += len(b)
    c.close()
    print(f"ok {n} {h.hexdigest()}", flush=True)


def wait_for(path, secs):
    end = time.time() + secs
    while not os.path.exists(path):
        if time.time() > end:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.05)


def client(fa, host, port, size, opts):
    s = socket.socket(fam(fa), socket.SOCK_STREAM, NDP_PROTO)
    if "src" in opts or "sport" in opts:
        any_addr = "::" if fa == "6" else "0.0.0.0"
        s.bind((opts.get("src", any_addr), int(opts.get("sport", 0))))
    if "tos" in opts:
        if fa == "4":
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, int(opts["tos"], 0))
        else:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS,
                         int(opts["tos"], 0))
    if "ttl" in opts:
        if fa == "4":
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, int(opts["ttl"]))
        else:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS,
                         int(opts["ttl"]))
    if "mark" in opts:
        s.setsockopt(socket.SOL_SOCKET, SO_MARK, int(opts["mark"], 0))
    if "dev" in opts:
        s.setsockopt(socket.SOL_SOCKET, SO_BINDTODEVICE,
                     opts["dev"].encode())
    if "sndbuf" in opts:
        s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, int(opts["sndbuf"]))
    chunk = int(opts.get("chunk", CHUNK)) or size
    s.settimeout(120)
    s.connect((host, port))
    rnd = random.Random(1)
    h = hashlib.sha256()
    n = 0
    paused = "pause" not in opts
    while n < size:
        if not paused and n >= size // 2:
            open(os.path.join(opts["pause"], "half"), "w").close()
            wait_for(os.path.join(opts["pause"], "go"), 60)
            paused = True
        b = rnd.randbytes(min(chunk, size - n))
        s.sendall(b)
        h.update(b)
        n += len(b)
    s.close()
    print(f"ok {n} {h.hexdigest()}", flush=True)


def unreach(fa, host, port, want):
    s = socket.socket(fam(fa), socket.SOCK_STREAM, NDP_PROTO)
    s.settimeout(300)
    try:
        s.connect((host, port))
        s.sendall(bytes(20000))
        s.recv(1)
    except OSError as e:
        name = errno.errorcode.get(e.errno, str(e.errno))
        if name == want:
            print(f"ok {name}", flush=True)
            return
        raise OSError(e.errno, f"got {name} ({e}), want {want}") from e
    raise OSError(0, f"no error, want {want}")


def csum(b):
    if len(b) % 2:
        b += b"\0"
    t = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while t >> 16:
        t = (t & 0xFFFF) + (t >> 16)
    return ~t & 0xFFFF


def spoof(src, dst, sport, dport, nonce, mtu):
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 9000, 1, 0x4000, 63,
                      NDP_PROTO, 0, socket.inet_aton(src),
                      socket.inet_aton(dst))
    nh = ndp_wire.pack(source=sport, dest=dport, type=ndp_wire.PKT_DATA,
                       doff=ndp_wire.HDR_WORDS, nonce=nonce)
    icmp = struct.pack("!BBHHH", 3, 4, 0, 0, mtu) + iph + nh
    icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(icmp, (src, 0))
    print("ok spoofed", flush=True)


def main():
    a = sys.argv[1:]
    try:
        if a[0] == "cap":
            cap(a[1] if len(a) > 1 else None)
        elif a[0] == "unreach":
            unreach(a[1], a[2], int(a[3]), a[4])
        elif a[0] == "spoof":
            spoof(a[1], a[2], int(a[3]), int(a[4]), int(a[5], 0), int(a[6]))
        elif a[0] == "server":
            server(a[1], int(a[2]))
        elif a[0] == "client":
            opts = dict(o.split("=", 1) for o in a[5:])
            client(a[1], a[2], int(a[3]), int(a[4]), opts)
        else:
            print(__doc__, file=sys.stderr)
            return 1
    except (OSError, TimeoutError) as e:
        print(f"FAIL {e}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
