#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Server and client of admit.sh (Python stdlib only).

    ndp_admit.py serve HOST PORT BACKLOG INTERVAL LEGIT RELEASE
        listen with BACKLOG and accept one connection every INTERVAL
        seconds (0: as fast as they come).  A connection from an address
        starting with LEGIT is served in a thread: read to end of stream,
        answer "LEN SHA256" and close; any other is closed at once.  With
        a file name as RELEASE ("-": none), accept nothing until that
        file exists, and nothing more once a LEGIT connection was found:
        a listener that does not accept, but for the one client the test
        waits for.  Prints "listening", runs until killed.
    ndp_admit.py client HOST PORT SIZE TIMEOUT SEED
        connect, send SIZE bytes (a function of SEED), shut down writing,
        read the answer and check it: prints "ok ..." or "FAIL ..." and
        exits 0 or 1.  Every step is bounded by TIMEOUT seconds.
"""

import hashlib
import os
import random
import socket
import sys
import threading
import time

SOCK_NDP = 7


def fam(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def serve_one(c):
    h = hashlib.sha256()
    n = 0
    try:
        c.settimeout(60)
        while True:
            b = c.recv(65536)
            if not b:
                break
            h.update(b)
            n += len(b)
        c.sendall(("%d %s\n" % (n, h.hexdigest())).encode())
    except OSError:
        pass
    c.close()


def cmd_serve(host, port, backlog, interval, legit, release):
    ls = socket.socket(fam(host), SOCK_NDP, 0)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(backlog)
    print("listening", flush=True)
    while release != "-" and not os.path.exists(release):
        time.sleep(0.1)
    while True:
        if interval > 0:
            time.sleep(interval)
        c, peer = ls.accept()
        if peer[0].startswith(legit):
            threading.Thread(target=serve_one, args=(c,), daemon=True).start()
            if release != "-":
                break
        else:
            c.close()
    while True:
        time.sleep(3600)


def cmd_client(host, port, size, timeout, seed):
    data = random.Random(seed).randbytes(size)
    s = socket.socket(fam(host), SOCK_NDP, 0)
    s.settimeout(timeout)
    t0 = time.monotonic()
    try:
        s.connect((host, port))
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        ans = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            ans += b
    except OSError as e:
        print("FAIL %s after %.1f s" % (e, time.monotonic() - t0), flush=True)
        sys.exit(1)
    want = "%d %s" % (size, hashlib.sha256(data).hexdigest())
    if ans.decode(errors="replace").strip() != want:
        print("FAIL answer %r, want %r" % (ans[:100], want), flush=True)
        sys.exit(1)
    print("ok %d bytes in %.1f s" % (size, time.monotonic() - t0), flush=True)


def main():
    a = sys.argv[1:]
    if len(a) == 7 and a[0] == "serve":
        cmd_serve(a[1], int(a[2]), int(a[3]), float(a[4]), a[5], a[6])
    elif len(a) == 6 and a[0] == "client":
        cmd_client(a[1], int(a[2]), int(a[3]), float(a[4]), int(a[5]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
