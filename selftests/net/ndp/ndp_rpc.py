#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Persistent request/response over one connection (Python stdlib only),
for delack.sh.  Every request and response is a pattern of its sequence
number, checked byte for byte by the side that reads it.

    ndp_rpc.py [-p ndp|tcp] serve HOST PORT N SIZE DELAY_MS
        accept one connection, answer N requests of SIZE bytes, each
        with SIZE bytes after DELAY_MS milliseconds, then read to the
        end of stream; prints "served N"
    ndp_rpc.py [-p ndp|tcp] client HOST PORT N SIZE PAUSE_MS [READY]
        connect, send N requests of SIZE bytes, one after the other, each
        once the previous response is in; then touch READY (if given),
        keep the connection open and silent PAUSE_MS milliseconds, and
        close; prints "done N"

Exit status 0 when every byte was as expected, 1 otherwise.
"""
import socket
import sys
import time

SOCK_NDP = 7


def pattern(seq, size, resp):
    base = (seq * 31 + (17 if resp else 0)) & 0xff
    return bytes((base + k) & 0xff for k in range(size))


def read_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        b = s.recv(n - len(buf))
        if not b:
            raise EOFError('end of stream after %d of %d bytes' % (len(buf), n))
        buf += b
    return bytes(buf)


def sock(proto, host):
    fam = socket.AF_INET6 if ':' in host else socket.AF_INET
    if proto == 'ndp':
        return socket.socket(fam, SOCK_NDP, 0)
    return socket.socket(fam, socket.SOCK_STREAM, 0)


def serve(proto, host, port, n, size, delay_ms):
    ls = sock(proto, host)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(1)
    s, _ = ls.accept()
    for i in range(n):
        if read_exact(s, size) != pattern(i, size, False):
            raise ValueError('request %d corrupt' % i)
        if delay_ms:
            time.sleep(delay_ms / 1000.0)
        s.sendall(pattern(i, size, True))
    if s.recv(1):
        raise ValueError('data after the last request')
    s.close()
    print('served %d' % n)


def client(proto, host, port, n, size, pause_ms, ready=None):
    s = sock(proto, host)
    deadline = time.time() + 10
    while True:
        try:
            s.connect((host, port))
            break
        except OSError:
            # NDP has no handshake: connect() only fails locally; TCP
            # may race the server's listen().
            if time.time() > deadline:
                raise
            s.close()
            s = sock(proto, host)
            time.sleep(0.1)
    for i in range(n):
        s.sendall(pattern(i, size, False))
        if read_exact(s, size) != pattern(i, size, True):
            raise ValueError('response %d corrupt' % i)
    if ready:
        open(ready, 'w').close()
    time.sleep(pause_ms / 1000.0)
    s.close()
    print('done %d' % n)


def main(argv):
    proto = 'ndp'
    if len(argv) > 2 and argv[1] == '-p':
        proto = argv[2]
        argv = argv[:1] + argv[3:]
    try:
        cmd, host, port = argv[1], argv[2], int(argv[3])
        args = [int(a) for a in argv[4:7]]
        if cmd == 'serve':
            serve(proto, host, port, *args)
        elif cmd == 'client':
            client(proto, host, port, *args, *argv[7:8])
        else:
            raise IndexError
    except (IndexError, ValueError, TypeError) as e:
        if isinstance(e, ValueError) and str(e):
            print('ndp_rpc.py: FAIL: %s' % e, file=sys.stderr)
            return 1
        print(__doc__, file=sys.stderr)
        return 2
    except (OSError, EOFError) as e:
        print('ndp_rpc.py: FAIL: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
