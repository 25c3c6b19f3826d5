#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Connection life-cycle probes for lifecycle.sh (Python stdlib only).

    ndp_life.py [-p ndp|tcp] sink HOST PORT
        accept connections forever, read each to its end, never answer
    ndp_life.py [-p ndp|tcp] timedout HOST PORT DIR
        connect, send, touch DIR/ready, wait for DIR/go (the path is then
        cut), keep sending: expect ETIMEDOUT from send() or recv()
    ndp_life.py [-p ndp|tcp] linger HOST PORT MODE
        MODE "graceful": send 64 KB and close: the server must read all of
        it, then end of stream.  MODE "abort": the same with SO_LINGER
        {1, 0}: the server must see ECONNRESET, not a clean end.
    ndp_life.py [-p ndp|tcp] backlog HOST PORT N DIR
        listen with backlog 1 and accept nothing until DIR/go exists, then
        accept N connections and check each one's 20 KB (from "client")
    ndp_life.py [-p ndp|tcp] client HOST PORT ID
        send 20 KB of pattern ID and close (for backlog)
    ndp_life.py [-p ndp|tcp] serve HOST PORT
        answer each 8-byte request (a length) with that many bytes
    ndp_life.py [-p ndp|tcp] prio HOST PORT SIZE
        two connections to HOST: the first (SO_PRIORITY 0) asks for SIZE
        bytes, and once a quarter of them is in, the second (SO_PRIORITY
        6) asks for SIZE too; prints which response completed first
    ndp_life.py [-p ndp|tcp] chunks HOST PORT SIZE CHUNK [SNDBUF [GAP_MS]]
        send SIZE bytes of pattern 7 in send() calls of CHUNK bytes, with
        a send buffer for all of it (SO_SNDBUFFORCE) or of SNDBUF bytes,
        GAP_MS milliseconds between calls, then close; prints the most
        data the socket held unsent (SIOCOUTQNSD) just before a call
    ndp_life.py [-p ndp|tcp] verify HOST PORT SIZE
        accept one connection and check that it brings exactly SIZE bytes
        of pattern 7, then end of stream (from "chunks")
    ndp_life.py [-p ndp|tcp] slowverify HOST PORT SIZE RCVBUF READ GAP_MS
                                [PAUSE_MS]
        as verify, with SO_RCVBUF RCVBUF on the listener (the connection
        inherits it), reading READ bytes at a time with GAP_MS
        milliseconds between reads (a reader slower than the network),
        the first read PAUSE_MS after accept()
    ndp_life.py [-p ndp|tcp] zsend HOST PORT SIZE
        send SIZE zero bytes, then close
    ndp_life.py [-p ndp|tcp] zverify HOST PORT SIZE
        accept one connection and check that it brings exactly SIZE zero
        bytes, then end of stream, within 30 s of silence

    ndp_life.py [-p ndp|tcp] rrserve HOST PORT N ORDER LINGER
        serve N short connections in one loop (no thread or process per
        connection): read a 100-byte request, send a 2000-byte response,
        then close at once (ORDER "server": the server closes first) or
        after the client's end of stream (ORDER "client"); then keep
        listening LINGER seconds and count connections beyond N
    ndp_life.py [-p ndp|tcp] rrclient HOST PORT N ORDER
        N connections one after the other, each sends a request and
        reads the response: to the end of stream (ORDER "server"), or
        exactly 2000 bytes, then closes first (ORDER "client")
    ndp_life.py [-p ndp|tcp] idle HOST PORT DIR
        connect, send 1000 bytes, touch DIR/ready, wait for DIR/go, send
        1000 bytes more: the connection must still work
    ndp_life.py [-p ndp|tcp] hold HOST PORT BACKLOG [drop]
        listen with BACKLOG and never accept; "drop" attaches a socket
        filter that drops every packet (SO_ATTACH_FILTER); runs until
        killed

Every command prints one line "ok ..." or "FAIL ..." and exits 0 or 1.
"""

import array
import ctypes
import errno
import fcntl
import os
import socket
import struct
import sys
import time

SOCK_NDP = 7
SO_SNDBUFFORCE = 32             # not in Python's socket module
SO_RCVBUFFORCE = 33
SIOCOUTQNSD = 0x894B            # linux/sockios.h


def fail(msg):
    print("FAIL " + msg, flush=True)
    sys.exit(1)


def ok(msg):
    print("ok " + msg, flush=True)
    sys.exit(0)


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def new_socket(proto, host):
    kind = SOCK_NDP if proto == "ndp" else socket.SOCK_STREAM
    return socket.socket(family(host), kind, 0)


def pattern(ident, n):
    block = bytes((ident * 31 + i) & 0xFF for i in range(251))
    return (block * (n // len(block) + 1))[:n]


def wait_file(path, secs):
    end = time.monotonic() + secs
    while not os.path.exists(path):
        if time.monotonic() > end:
            fail("timed out waiting for " + path)
        time.sleep(0.05)


def read_to_end(c):
    """Everything the peer sends on @c until end of stream."""
    got = bytearray()
    while True:
        b = c.recv(65536)
        if not b:
            return bytes(got)
        got += b


def listen(proto, host, port, backlog):
    s = new_socket(proto, host)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(backlog)
    return s


def connect(proto, host, port):
    s = new_socket(proto, host)
    s.settimeout(60)
    if "%" in host:         # link-local: the scope goes in the 4-tuple
        addr, ifname = host.split("%")
        s.connect((addr, port, 0, socket.if_nametoindex(ifname)))
    else:
        s.connect((host, port))
    return s


def serve_forever(ls, handle):
    """Accept connections forever; each is handled by handle(conn) in a
    child process (any socket error ends it), zombies are reaped."""
    while True:
        c, _ = ls.accept()
        if os.fork() == 0:
            ls.close()
            try:
                handle(c)
            except OSError:
                pass
            os._exit(0)
        c.close()
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass


def cmd_sink(proto, host, port):
    ls = listen(proto, host, port, 64)
    print("listening", flush=True)

    def drain(c):
        while c.recv(65536):
            pass
    serve_forever(ls, drain)


def cmd_timedout(proto, host, port, d):
    s = connect(proto, host, port)
    s.sendall(pattern(1, 64 * 1024))
    open(os.path.join(d, "ready"), "w").close()
    wait_file(os.path.join(d, "go"), 60)
    s.settimeout(120)
    start = time.monotonic()
    buf = pattern(2, 64 * 1024)
    try:
        while time.monotonic() - start < 110:
            s.send(buf)
    except OSError as e:
        # socket.timeout is TimeoutError, as is OSError(ETIMEDOUT): only
        # the kernel's error has an errno.
        if e.errno is None:
            fail("send() still blocked after 120 s")
        if e.errno == errno.ETIMEDOUT:
            ok("send() failed with ETIMEDOUT after %.1f s" %
               (time.monotonic() - start))
        fail("send() failed with %s, not ETIMEDOUT" %
             errno.errorcode.get(e.errno, e.errno))
    fail("send() kept succeeding for 110 s over a dead path")


def cmd_linger(proto, host, port, mode):
    ls = listen(proto, host, 0, 1)
    lport = ls.getsockname()[1]
    data = pattern(3, 64 * 1024)
    pid = os.fork()
    if pid == 0:
        ls.close()
        s = connect(proto, host, lport)
        s.sendall(data)
        if mode == "abort":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
        s.close()
        os._exit(0)
    ls.settimeout(60)
    c, _ = ls.accept()
    os.waitpid(pid, 0)
    time.sleep(1)               # let the abort (or the end) arrive first
    c.settimeout(60)
    got = bytearray()
    try:
        while True:
            b = c.recv(65536)
            if not b:
                break
            got += b
    except OSError as e:
        if mode == "abort" and e.errno == errno.ECONNRESET:
            ok("abortive close: the peer got ECONNRESET after %d bytes" %
               len(got))
        fail("recv() failed with %s after %d bytes" %
             (errno.errorcode.get(e.errno, e.errno), len(got)))
    if mode == "abort":
        fail("abortive close ended cleanly after %d bytes" % len(got))
    if bytes(got) != data:
        fail("graceful close: %d of %d bytes, %s" %
             (len(got), len(data),
              "intact prefix" if data.startswith(bytes(got)) else "corrupt"))
    ok("graceful close: all %d bytes, then end of stream" % len(got))


def cmd_backlog(proto, host, port, n, d):
    ls = listen(proto, host, port, 1)
    print("listening", flush=True)
    wait_file(os.path.join(d, "go"), 120)
    ls.settimeout(120)
    seen = set()
    for _ in range(n):
        c, _ = ls.accept()
        c.settimeout(120)
        got = read_to_end(c)
        c.close()
        if len(got) != 20 * 1024:
            fail("a connection brought %d bytes, not 20480" % len(got))
        ident = next((i for i in range(1, n + 1)
                      if got == pattern(i, len(got))), None)
        if ident is None or ident in seen:
            fail("a connection's bytes match no client (or a duplicate)")
        seen.add(ident)
    ok("backlog 1: all %d connections accepted later, bytes intact" % n)


def cmd_client(proto, host, port, ident):
    s = connect(proto, host, port)
    s.sendall(pattern(ident, 20 * 1024))
    s.close()
    ok("client %d sent 20480 bytes" % ident)


def cmd_chunks(proto, host, port, size, chunk, sndbuf=0, gap_ms=0):
    s = new_socket(proto, host)
    s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, sndbuf or 4 * size)
    s.settimeout(120)
    s.connect((host, port))
    data = pattern(7, size)
    unsent = array.array("i", [0])
    most = 0
    for off in range(0, size, chunk):
        if off and gap_ms:
            time.sleep(gap_ms / 1000)
        fcntl.ioctl(s.fileno(), SIOCOUTQNSD, unsent)
        most = max(most, unsent[0])
        s.sendall(data[off:off + chunk])
    s.close()
    ok("sent %d bytes in send() calls of %d; most unsent before a call %d"
       % (size, chunk, most))


def cmd_verify(proto, host, port, size):
    ls = listen(proto, host, port, 1)
    ls.settimeout(120)
    print("listening", flush=True)
    c, _ = ls.accept()
    c.settimeout(120)
    got = read_to_end(c)
    if got != pattern(7, size):
        fail("%d of %d bytes, %s" % (len(got), size, "intact prefix"
             if pattern(7, size).startswith(got) else "corrupt"))
    ok("all %d bytes intact, then end of stream" % size)


def cmd_slowverify(proto, host, port, size, rcvbuf, read, gap_ms,
                   pause_ms=0):
    ls = new_socket(proto, host)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    ls.bind((host, port))
    ls.listen(1)
    ls.settimeout(120)
    print("listening", flush=True)
    c, _ = ls.accept()
    c.settimeout(120)
    want = pattern(7, size)
    got = bytearray()
    time.sleep(pause_ms / 1000)
    while True:
        b = c.recv(read)
        if not b:
            break
        got += b
        if got != want[:len(got)]:
            fail("corrupt within the first %d bytes" % len(got))
        time.sleep(gap_ms / 1000)
    if len(got) != size:
        fail("%d of %d bytes" % (len(got), size))
    ok("all %d bytes intact, read %d at a time every %d ms, then end of "
       "stream" % (size, read, gap_ms))


def cmd_zsend(proto, host, port, size):
    s = connect(proto, host, port)
    s.sendall(bytes(size))
    s.close()
    ok("sent %d zero bytes" % size)


def cmd_zverify(proto, host, port, size):
    ls = listen(proto, host, port, 1)
    ls.settimeout(60)
    print("listening", flush=True)
    c, _ = ls.accept()
    c.settimeout(30)
    try:
        got = read_to_end(c)
    except socket.timeout:
        fail("stalled: the zero bytes did not arrive within 30 s")
    if got != bytes(size):
        fail("%d of %d zero bytes, %s" % (len(got), size, "intact prefix"
             if not any(got) else "corrupt"))
    ok("all %d zero bytes intact, then end of stream" % size)


def cmd_serve(proto, host, port):
    ls = listen(proto, host, port, 16)
    print("listening", flush=True)

    def answer(c):
        while True:
            req = c.recv(8, socket.MSG_WAITALL)
            if len(req) != 8:
                break
            c.sendall(pattern(5, struct.unpack("!Q", req)[0]))
    serve_forever(ls, answer)


def cmd_prio(proto, host, port, size):
    import select
    conns = []
    for prio in (0, 6):
        s = new_socket(proto, host)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, prio)
        # Room for the whole response: a full receive buffer takes a
        # socket off the pull queue whatever its priority, and then the
        # reader's speed (Python, under TCG, on a busy host) would decide
        # the order instead of the pull queue.
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 * size)
        s.settimeout(120)
        s.connect((host, port))
        conns.append(s)
    want = pattern(5, size)
    got = [bytearray(), bytearray()]
    conns[0].sendall(struct.pack("!Q", size))
    while len(got[0]) < size // 4:      # the low-priority flow is well on
        b = conns[0].recv(65536)
        if not b:
            fail("connection 0 closed early")
        got[0] += b
    conns[1].sendall(struct.pack("!Q", size))
    order = []
    end = time.monotonic() + 120
    while len(order) < 2:
        if time.monotonic() > end:
            fail("responses incomplete after 120 s: %d and %d of %d bytes" %
                 (len(got[0]), len(got[1]), size))
        busy = [s for i, s in enumerate(conns) if i not in order]
        ready, _, _ = select.select(busy, [], [], 1)
        for s in ready:
            i = conns.index(s)
            b = s.recv(65536)
            if not b:
                fail("connection %d closed early" % i)
            got[i] += b
            if len(got[i]) >= size:
                order.append(i)
    for i in (0, 1):
        if bytes(got[i]) != want:
            fail("response %d corrupt or long (%d bytes)" % (i, len(got[i])))
    print("first: %s" % ("high" if order[0] == 1 else "low"), flush=True)
    sys.exit(0)


RR_REQ = 100
RR_RESP = 2000


def cmd_rrserve(proto, host, port, n, order, linger):
    ls = listen(proto, host, port, 64)
    ls.settimeout(120)
    print("listening", flush=True)
    errors = 0
    for _ in range(n):
        c, _ = ls.accept()
        c.settimeout(60)
        try:
            req = c.recv(RR_REQ, socket.MSG_WAITALL)
            if req != pattern(1, RR_REQ):
                errors += 1
            c.sendall(pattern(2, RR_RESP))
            if order == "client" and read_to_end(c):
                errors += 1
        except OSError as e:
            print("server: %s" % errno.errorcode.get(e.errno, str(e)),
                  flush=True)
            errors += 1
        c.close()
    extra = 0
    ls.settimeout(0.2)
    end = time.monotonic() + linger
    while time.monotonic() < end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        extra += 1
        c.close()
    msg = "accepted %d extra %d errors %d" % (n, extra, errors)
    if extra or errors:
        fail(msg)
    ok(msg)


def cmd_rrclient(proto, host, port, n, order):
    errors = 0
    for _ in range(n):
        try:
            s = connect(proto, host, port)
            s.sendall(pattern(1, RR_REQ))
            if order == "server":
                got = read_to_end(s)
            else:
                got = s.recv(RR_RESP, socket.MSG_WAITALL)
            if got != pattern(2, RR_RESP):
                errors += 1
            s.close()
        except OSError as e:
            print("client: %s" % errno.errorcode.get(e.errno, str(e)),
                  flush=True)
            errors += 1
    msg = "connects %d errors %d" % (n, errors)
    if errors:
        fail(msg)
    ok(msg)


def cmd_idle(proto, host, port, d):
    s = connect(proto, host, port)
    s.sendall(pattern(3, 1000))
    open(os.path.join(d, "ready"), "w").close()
    wait_file(os.path.join(d, "go"), 120)
    try:
        s.sendall(pattern(3, 1000))
        time.sleep(0.5)
        s.sendall(pattern(3, 1000))
    except OSError as e:
        fail("the connection broke: %s" % errno.errorcode.get(e.errno, e))
    ok("the connection still works")


SO_ATTACH_FILTER = 26


def attach_drop_filter(s):
    """Classic BPF "ret #0": the socket drops every packet."""
    insns = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0))
    prog = struct.pack("HL", 1, ctypes.addressof(insns))
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, prog)
    return insns            # keep the buffer alive


def cmd_hold(proto, host, port, backlog, drop):
    ls = listen(proto, host, port, backlog)
    keep = attach_drop_filter(ls) if drop else None
    print("listening", flush=True)
    while True:
        time.sleep(3600)
    del keep


def main():
    args = sys.argv[1:]
    proto = "ndp"
    if len(args) >= 2 and args[0] == "-p":
        proto = args[1]
        args = args[2:]
    if proto not in ("ndp", "tcp") or len(args) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    cmd, host, port = args[0], args[1], int(args[2])
    rest = args[3:]
    if cmd == "sink":
        cmd_sink(proto, host, port)
    elif cmd == "timedout" and len(rest) == 1:
        cmd_timedout(proto, host, port, rest[0])
    elif cmd == "linger" and len(rest) == 1 and rest[0] in ("graceful",
                                                             "abort"):
        cmd_linger(proto, host, port, rest[0])
    elif cmd == "backlog" and len(rest) == 2:
        cmd_backlog(proto, host, port, int(rest[0]), rest[1])
    elif cmd == "client" and len(rest) == 1:
        cmd_client(proto, host, port, int(rest[0]))
    elif cmd == "chunks" and 2 <= len(rest) <= 4:
        cmd_chunks(proto, host, port, *[int(a) for a in rest])
    elif cmd == "verify" and len(rest) == 1:
        cmd_verify(proto, host, port, int(rest[0]))
    elif cmd == "slowverify" and len(rest) in (4, 5):
        cmd_slowverify(proto, host, port, *[int(a) for a in rest])
    elif cmd == "zsend" and len(rest) == 1:
        cmd_zsend(proto, host, port, int(rest[0]))
    elif cmd == "zverify" and len(rest) == 1:
        cmd_zverify(proto, host, port, int(rest[0]))
    elif cmd == "serve" and not rest:
        cmd_serve(proto, host, port)
    elif cmd == "prio" and len(rest) == 1:
        cmd_prio(proto, host, port, int(rest[0]))
    elif cmd == "rrserve" and len(rest) == 3 and rest[1] in ("server",
                                                             "client"):
        cmd_rrserve(proto, host, port, int(rest[0]), rest[1], float(rest[2]))
    elif cmd == "rrclient" and len(rest) == 2 and rest[1] in ("server",
                                                              "client"):
        cmd_rrclient(proto, host, port, int(rest[0]), rest[1])
    elif cmd == "idle" and len(rest) == 1:
        cmd_idle(proto, host, port, rest[0])
    elif cmd == "hold" and len(rest) in (1, 2):
        cmd_hold(proto, host, port, int(rest[0]),
                 len(rest) == 2 and rest[1] == "drop")
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
