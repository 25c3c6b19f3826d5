#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Servers and clients for fuzz.sh and flood.sh (Python stdlib only).

    ndp_load.py [-p ndp|tcp] echo HOST PORT
        echo service: accept forever, send back every byte of each
        connection until its end of stream, then close (one thread per
        connection); prints "listening"
    ndp_load.py [-p ndp|tcp] echoclient HOST PORT STOPFILE
        until STOPFILE exists: connect, send 1000 bytes, read 1000 back,
        compare, close; then prints "done rounds N errors E corrupt C"
        (errors and corrupt echoes are counted, not fatal: the fuzzer may
        forge packets of these connections)
    ndp_load.py [-p ndp|tcp] slowaccept HOST PORT BACKLOG SECS
        listen with BACKLOG, accept one connection every SECS seconds and
        close it at once; prints "listening", runs until killed

Runs until killed unless said otherwise.
"""

import os
import socket
import sys
import threading
import time

SOCK_NDP = 7


def new_socket(proto, host):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    kind = SOCK_NDP if proto == "ndp" else socket.SOCK_STREAM
    return socket.socket(fam, kind, 0)


def listen(proto, host, port, backlog):
    s = new_socket(proto, host)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(backlog)
    print("listening", flush=True)
    return s


def cmd_echo(proto, host, port):
    ls = listen(proto, host, port, 64)

    def serve(c):
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                c.sendall(b)
        except OSError:
            pass
        c.close()

    while True:
        c, _ = ls.accept()
        c.settimeout(30)
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def cmd_echoclient(proto, host, port, stopfile):
    rounds = errors = corrupt = 0
    n = 0
    while not os.path.exists(stopfile):
        n += 1
        msg = bytes((n * 7 + i) & 0xFF for i in range(1000))
        s = new_socket(proto, host)
        s.settimeout(10)
        try:
            s.connect((host, port))
            s.sendall(msg)
            s.shutdown(socket.SHUT_WR)
            got = bytearray()
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
            if bytes(got) != msg:
                corrupt += 1
            rounds += 1
        except OSError:
            errors += 1
            time.sleep(0.1)
        s.close()
    print("done rounds %d errors %d corrupt %d" % (rounds, errors, corrupt),
          flush=True)


def cmd_slowaccept(proto, host, port, backlog, secs):
    ls = listen(proto, host, port, backlog)
    while True:
        time.sleep(secs)
        c, _ = ls.accept()
        c.close()


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
    if cmd == "echo" and not rest:
        cmd_echo(proto, host, port)
    elif cmd == "echoclient" and len(rest) == 1:
        cmd_echoclient(proto, host, port, rest[0])
    elif cmd == "slowaccept" and len(rest) == 2:
        cmd_slowaccept(proto, host, port, int(rest[0]), float(rest[1]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
