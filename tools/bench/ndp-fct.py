#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Flow-completion-time load for ndp-bench-fct (Python stdlib only).

    ndp-fct.py plan --hosts N --hpl H [--seed S] [--secs D] [--warm W]
                    [--incast-every T] [--fanin F] [--iso-every M]
                    [--max-size BYTES] [--bg-frac F] [--rate MBIT]
        the flows of one run, on stdout, one per line:
            B SRC DST BPS            a background flow at BPS (app-paced)
            F ID KIND START SRC DST SIZE
        KIND is incastK (the K-th incast) or iso; START is seconds after
        t0.  Incast senders and isolated flows' ends are in other racks
        (hosts H*r .. H*r+H-1 form rack r).  Sizes: one of three buckets
        (0-10 KB, 10-50 KB, 50-100 KB, KB = 1024 bytes) at random, then
        uniform in it, so every bucket has about a third of the flows.
    ndp-fct.py host --index I --plan FILE --addrs A0,A1,... --proto ndp|tcp
                    --port P --t0-file FILE --bg-end SECS [--timeout S]
                    [--bg-chunk BYTES] --out FILE
        one host's part: a server on ADDRS[I]:P (thread per connection),
        the background flows and the flows this host sends.  A flow:
        connect, send a 16-byte header and SIZE payload bytes, wait for
        the receiver application's 1-byte verdict (sent once it has read
        and checked every byte), close; FCT = connect() to verdict.
        Prints "ready" once listening, then waits for T0-FILE to hold t0
        (seconds since the epoch; flow start times count from it), prints
        "clientdone" once its flows and background are over; then serves until SIGTERM, when it writes
        OUT: per flow "F ID status fct_us late_ms rtos" (rtos: the RTO
        expiries of the sender's socket, NDP_INFO ndpi_rtos or TCP_INFO
        tcpi_total_rto, -1 if unknown), per flow received "R ID rtos"
        (the receiver's socket, likewise), per background flow
        "B bytes secs", and its namespace's counter deltas "C name value".
        A background flow writes BG-CHUNK (64 KB) bytes at a time, at
        fixed intervals (fewer system calls: Python under TCG is slow).
    ndp-fct.py report --plan FILE --conf NAME --rate MBIT --rtt0-us US
                      [--mss BYTES] [--extra "k=v ..."] [--ideal] OUT...
        BENCH and SAMPLES lines of one configuration from the hosts' OUT
        files; with --ideal, the line of the ideal FCTs instead.
"""

import argparse
import errno
import math
import os
import random
import signal
import socket
import struct
import sys
import threading
import time

SOCK_NDP = 7
MAGIC = 0x4e444643  # "NDFC"
HDR = struct.Struct("!IIQ")
BG_SIZE = (1 << 64) - 1
KB = 1024
BUCKETS = ((0, 10 * KB), (10 * KB, 50 * KB), (50 * KB, 100 * KB))
PERIOD = 251
PATTERN = bytes(i % PERIOD for i in range(100 * KB + 2 * PERIOD + 65536))
SOL_NDP, NDP_INFO = 253, 1
NDPI_RTOS_OFF = 108         # offsetof(struct ndp_info, ndpi_rtos)
TCPI_TOTAL_RTO_OFF = 240    # offsetof(struct tcp_info, tcpi_total_rto), Linux 6.7+
RX_RTOS, RX_LOCK = {}, threading.Lock()


def sock_rtos(s):
    """RTO expiries of socket s so far (NDP or TCP), -1 if unknown."""
    try:
        if s.type == SOCK_NDP or s.proto == 253:
            b = s.getsockopt(SOL_NDP, NDP_INFO, 256)
            if len(b) >= NDPI_RTOS_OFF + 4:
                return struct.unpack_from("I", b, NDPI_RTOS_OFF)[0]
        else:
            b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
            if len(b) >= TCPI_TOTAL_RTO_OFF + 2:
                return struct.unpack_from("H", b, TCPI_TOTAL_RTO_OFF)[0]
    except OSError:
        pass
    return -1


def load_plan(path):
    bg, flows = [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "B":
                bg.append((int(w[1]), int(w[2]), float(w[3])))
            elif w[0] == "F":
                flows.append({"id": int(w[1]), "kind": w[2], "start": float(w[3]),
                              "src": int(w[4]), "dst": int(w[5]), "size": int(w[6])})
    return bg, flows


# ---- plan ---------------------------------------------------------------------

def cmd_plan(a):
    rng = random.Random(a.seed)
    n, hpl = a.hosts, a.hpl
    rack = [i // hpl for i in range(n)]

    def size():
        lo, hi = BUCKETS[rng.randrange(len(BUCKETS))]
        return rng.randint(lo + 1, min(hi, a.max_size))

    # Background: a random derangement, each flow at bg_frac of the link.
    while True:
        d = list(range(n))
        rng.shuffle(d)
        if all(d[i] != i for i in range(n)):
            break
    for i in range(n):
        print("B %d %d %.0f" % (i, d[i], a.bg_frac * a.rate * 1e6))
    fid = 0
    t, k = a.warm, 0
    while t < a.warm + a.secs:
        dst = rng.randrange(n)
        others = [h for h in range(n) if rack[h] != rack[dst]]
        for src in rng.sample(others, min(a.fanin, len(others))):
            print("F %d incast%d %.3f %d %d %d" % (fid, k, t, src, dst, size()))
            fid += 1
        k += 1
        t += a.incast_every
    t = a.warm + rng.expovariate(1.0 / a.iso_every)
    while t < a.warm + a.secs:
        src = rng.randrange(n)
        dst = rng.choice([h for h in range(n) if rack[h] != rack[src]])
        print("F %d iso %.3f %d %d %d" % (fid, t, src, dst, size()))
        fid += 1
        t += rng.expovariate(1.0 / a.iso_every)


# ---- host ---------------------------------------------------------------------

def new_socket(proto):
    s = socket.socket(socket.AF_INET, SOCK_NDP if proto == "ndp" else socket.SOCK_STREAM, 0)
    if proto == "tcp":
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def recv_exact(c, n):
    buf = bytearray()
    while len(buf) < n:
        b = c.recv(n - len(buf))
        if not b:
            return None
        buf += b
    return bytes(buf)


def serve(c):
    try:
        c.settimeout(300)
        h = recv_exact(c, HDR.size)
        if h is None:
            return
        magic, fid, size = HDR.unpack(h)
        if magic != MAGIC:
            return
        if size == BG_SIZE:
            while c.recv(65536, socket.MSG_WAITALL):
                pass
            return
        off, ok = fid % PERIOD, True
        pos = 0
        while pos < size:
            # MSG_WAITALL: one wake-up per 64 KB, not per packet (every
            # system call counts under TCG)
            b = c.recv(min(65536, size - pos), socket.MSG_WAITALL)
            if not b:
                return
            if b != PATTERN[off + pos:off + pos + len(b)]:
                ok = False
            pos += len(b)
        c.sendall(b"K" if ok else b"X")
        while c.recv(4096):
            pass
        with RX_LOCK:
            RX_RTOS[fid] = sock_rtos(c)
    except OSError:
        pass
    finally:
        c.close()


def server(ls):
    while True:
        try:
            c, _ = ls.accept()
        except OSError:
            continue
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def read_counters():
    """This namespace's NDP counters and TCP retransmission counters."""
    v = {}
    try:
        with open("/proc/net/ndp_stat") as f:
            for line in f:
                w = line.split()
                if len(w) == 2 and w[1].isdigit():
                    v[w[0]] = int(w[1])
    except OSError:
        pass
    for path, want in (("/proc/net/snmp", ("RetransSegs",)),
                       ("/proc/net/netstat", ("TCPTimeouts",))):
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for i in range(0, len(lines) - 1, 2):
            names, vals = lines[i].split(), lines[i + 1].split()
            if names[0] not in ("Tcp:", "TcpExt:"):
                continue
            for nm, vl in zip(names[1:], vals[1:]):
                if nm in want:
                    v[nm] = int(vl)
    return v


def cmd_host(a):
    bgs, flows = load_plan(a.plan)
    addrs = a.addrs.split(",")
    me = a.index
    before = read_counters()
    ls = new_socket(a.proto)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addrs[me], a.port))
    ls.listen(256)
    threading.Thread(target=server, args=(ls,), daemon=True).start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print("ready", flush=True)
    while True:
        try:
            with open(a.t0_file) as f:
                a.t0 = float(f.read())
            break
        except (OSError, ValueError):
            time.sleep(0.1)

    res, bgres, lock = [], [], threading.Lock()

    def sleep_until(t):
        while True:
            d = t - time.time()
            if d <= 0:
                return
            time.sleep(min(d, 1.0))

    def run_flow(f):
        late = (time.time() - (a.t0 + f["start"])) * 1000
        st, fct, rtos = "ok", 0.0, -1
        t1 = time.monotonic()
        s = None
        try:
            s = new_socket(a.proto)
            s.settimeout(a.timeout)
            s.connect((addrs[f["dst"]], a.port))
            s.sendall(HDR.pack(MAGIC, f["id"], f["size"]) +
                      PATTERN[f["id"] % PERIOD:f["id"] % PERIOD + f["size"]])
            left = a.timeout - (time.monotonic() - t1)
            if left <= 0:
                raise socket.timeout()
            s.settimeout(left)
            r = s.recv(1)
            fct = (time.monotonic() - t1) * 1e6
            st = {b"K": "ok", b"X": "corrupt", b"": "eof"}.get(r, "bad")
            rtos = sock_rtos(s)
        except socket.timeout:
            st = "timeout"
        except OSError as e:
            st = errno.errorcode.get(e.errno, "oserror") if e.errno else "oserror"
        finally:
            if s is not None:
                if rtos < 0:
                    rtos = sock_rtos(s)
                s.close()
        with lock:
            res.append("F %d %s %.0f %.1f %d" % (f["id"], st, fct, late, rtos))

    def run_bg(dst, bps):
        chunk = a.bg_chunk
        sent, t1 = 0, time.time()
        s = None
        try:
            s = new_socket(a.proto)
            s.settimeout(30)
            s.connect((addrs[dst], a.port))
            s.sendall(HDR.pack(MAGIC, 0, BG_SIZE))
            buf = bytes(chunk)
            nxt = time.time()
            end = a.t0 + a.bg_end
            while nxt < end and not stop.is_set():
                sleep_until(nxt)
                s.sendall(buf)
                sent += chunk
                nxt += chunk * 8 / bps
                now = time.time()
                if now - nxt > 0.5:
                    nxt = now  # fell behind (the network held us): no catch-up burst
        except OSError:
            pass
        finally:
            if s is not None:
                s.close()
        with lock:
            bgres.append("B %d %.3f" % (sent, time.time() - t1))

    threads = []
    sleep_until(a.t0)
    for src, dst, bps in bgs:
        if src == me:
            t = threading.Thread(target=run_bg, args=(dst, bps))
            t.start()
            threads.append(t)
    for f in sorted((f for f in flows if f["src"] == me), key=lambda f: f["start"]):
        sleep_until(a.t0 + f["start"])
        t = threading.Thread(target=run_flow, args=(f,))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    print("clientdone", flush=True)
    while not stop.wait(0.5):
        pass
    after = read_counters()
    with open(a.out + ".tmp", "w") as f:
        for line in res + bgres:
            f.write(line + "\n")
        with RX_LOCK:
            for fid in sorted(RX_RTOS):
                f.write("R %d %d\n" % (fid, RX_RTOS[fid]))
        for k in sorted(after):
            f.write("C %s %d\n" % (k, after[k] - before.get(k, 0)))
    os.rename(a.out + ".tmp", a.out)
    os._exit(0)


# ---- report -------------------------------------------------------------------

def pct(sorted_vals, p):
    """Nearest rank; values may include inf (flows that did not complete)."""
    if not sorted_vals:
        return float("nan")
    i = max(1, math.ceil(p / 100.0 * len(sorted_vals)))
    return sorted_vals[i - 1]


def fmt(v):
    if v != v:
        return "nan"
    if v == float("inf"):
        return "inf"
    return "%.0f" % v


def stats(prefix, vals):
    """n, p50 and p99 of VALS (inf for failed flows) as k=v words."""
    v = sorted(vals)
    return "%sn=%d %sp50_us=%s %sp99_us=%s" % (prefix, len(v), prefix, fmt(pct(v, 50)),
                                               prefix, fmt(pct(v, 99)))


def bucket(size):
    for i, (lo, hi) in enumerate(BUCKETS):
        if lo < size <= hi:
            return i + 1
    return len(BUCKETS)


def ideal_us(f, a):
    # Payload at the link rate, plus the last packet's store-and-forward
    # over the hops after the sender's link (two uplink hops at twice the
    # rate, the last hop at the rate: two packet times), plus the base RTT.
    last = min(f["size"], a.mss)
    return (f["size"] + 2 * last) * 8 / a.rate + a.rtt0_us


def cmd_report(a):
    _, flows = load_plan(a.plan)
    byid = {f["id"]: f for f in flows}
    got, bgb, bgs, ctr, late = {}, 0, 0.0, {}, 0.0
    srto, rrto = {}, {}
    for path in a.outs:
        try:
            with open(path) as f:
                for line in f:
                    w = line.split()
                    if w[0] == "F":
                        got[int(w[1])] = (w[2], float(w[3]))
                        late = max(late, float(w[4]))
                        if len(w) > 5:
                            srto[int(w[1])] = int(w[5])
                    elif w[0] == "R":
                        rrto[int(w[1])] = int(w[2])
                    elif w[0] == "B":
                        bgb += int(w[1])
                        bgs += float(w[2])
                    elif w[0] == "C":
                        ctr[w[1]] = ctr.get(w[1], 0) + int(w[2])
        except OSError:
            pass
    fct, status = {}, {}
    for fid, f in byid.items():
        if a.ideal:
            fct[fid], status[fid] = ideal_us(f, a), "ok"
        else:
            st, us = got.get(fid, ("missing", 0.0))
            status[fid] = st
            fct[fid] = us if st == "ok" else float("inf")
    done = [fct[i] for i in fct if status[i] == "ok"]
    allv = list(fct.values())
    fails = {}
    for st in status.values():
        if st != "ok":
            fails[st] = fails.get(st, 0) + 1
    words = ["BENCH scen=fct conf=%s status=ok flows=%d done=%d" % (a.conf, len(allv), len(done)),
             "mean_us=%s" % fmt(sum(done) / len(done) if done else float("nan")),
             stats("", allv)]
    for b in range(1, len(BUCKETS) + 1):
        words.append(stats("b%d_" % b, [fct[i] for i in fct if bucket(byid[i]["size"]) == b]))
    words.append(stats("incast_", [fct[i] for i in fct if byid[i]["kind"] != "iso"]))
    words.append(stats("iso_", [fct[i] for i in fct if byid[i]["kind"] == "iso"]))
    if not a.ideal:
        words.append("late_max_ms=%.0f" % late)
        if bgs > 0:
            nbg = sum(1 for line in open(a.plan) if line.startswith("B "))
            words.append("bg_load=%.3f" % (bgb * 8 / (bgs / max(nbg, 1)) / nbg / (a.rate * 1e6)))
        for k in ("OutUnsched", "PushWindows", "DasrShrunkWindows", "InTrimmed", "OutNacks",
                  "Rtos", "RtxTimeout", "RtoSpurious", "InDups", "RetransSegs", "TCPTimeouts"):
            if k in ctr:
                words.append("h_%s=%d" % (k, ctr[k]))
        if fails:
            words.append("failed=" + ",".join("%s:%d" % kv for kv in sorted(fails.items())))
        # flows that met an RTO: the sender's or the receiver's socket
        # had at least one expiry (flows whose sockets could not be read
        # count as unknown)
        met, known, met_inc, met_iso, fct_met = 0, 0, 0, 0, []
        for fid in byid:
            sv, rv = srto.get(fid, -1), rrto.get(fid, -1)
            if sv < 0 and rv < 0:
                continue
            known += 1
            if max(sv, 0) + max(rv, 0) > 0:
                met += 1
                fct_met.append(fct[fid])
                if byid[fid]["kind"] == "iso":
                    met_iso += 1
                else:
                    met_inc += 1
        words.append("rto_flows=%d rto_known=%d rto_flows_incast=%d rto_flows_iso=%d "
                     "rto_snd_expiries=%d rto_rcv_expiries=%d" % (
                         met, known, met_inc, met_iso,
                         sum(v for v in srto.values() if v > 0),
                         sum(v for v in rrto.values() if v > 0)))
        words.append(stats("rto_", fct_met))
    if a.extra:
        words.append(a.extra)
    print(" ".join(words))
    print("SAMPLES scen=fct conf=%s : %s" % (
        a.conf, " ".join("%d:%s" % (byid[i]["size"], fmt(fct[i])) for i in sorted(fct))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("plan")
    q.add_argument("--hosts", type=int, required=True)
    q.add_argument("--hpl", type=int, required=True)
    q.add_argument("--seed", type=int, default=12)
    q.add_argument("--secs", type=float, default=50)
    q.add_argument("--warm", type=float, default=5)
    q.add_argument("--incast-every", type=float, default=4)
    q.add_argument("--fanin", type=int, default=8)
    q.add_argument("--iso-every", type=float, default=0.5)
    q.add_argument("--max-size", type=int, default=100 * KB)
    q.add_argument("--bg-frac", type=float, default=0.3)
    q.add_argument("--rate", type=float, default=2)
    q = sub.add_parser("host")
    q.add_argument("--index", type=int, required=True)
    q.add_argument("--plan", required=True)
    q.add_argument("--addrs", required=True)
    q.add_argument("--proto", choices=("ndp", "tcp"), required=True)
    q.add_argument("--port", type=int, required=True)
    q.add_argument("--t0-file", required=True)
    q.add_argument("--bg-end", type=float, required=True)
    q.add_argument("--timeout", type=float, default=40)
    q.add_argument("--bg-chunk", type=int, default=64 * KB)
    q.add_argument("--out", required=True)
    q = sub.add_parser("report")
    q.add_argument("--plan", required=True)
    q.add_argument("--conf", required=True)
    q.add_argument("--rate", type=float, required=True)
    q.add_argument("--rtt0-us", type=float, required=True)
    q.add_argument("--mss", type=int, default=8948)
    q.add_argument("--extra", default="")
    q.add_argument("--ideal", action="store_true")
    q.add_argument("outs", nargs="*")
    a = p.parse_args()
    {"plan": cmd_plan, "host": cmd_host, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
