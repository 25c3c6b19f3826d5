#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""sendfile() and splice() into a stream socket (Python stdlib only), for
splice.sh.

    ndp_sendfile.py make FILE SIZE SEED
        write SIZE pseudo-random bytes (from SEED) to FILE
    ndp_sendfile.py [-p ndp|tcp] serve HOST PORT SIZE OLD [NEW [GO]]
        print "listening" once it listens, accept one connection with a
        64 KB receive buffer; with GO, wait
        until that file exists before reading; read to the end of stream
        and check it: SIZE bytes, each the byte of file OLD at its offset
        or, if NEW is given, of file NEW (a file changed while it was
        being sent); prints "rx BYTES ok new BLOCKS" (BLOCKS: how many
        4 KB blocks came as NEW has them) or what was wrong instead of ok
    ndp_sendfile.py [-p ndp|tcp] send HOST PORT FILE sendfile|splice|write [QUEUED]
        connect with a send buffer of twice FILE's size (SO_SNDBUFFORCE),
        send the whole of FILE with sendfile(2), through a pipe with
        splice(2), or read(2) and send(2) in 64 KB parts, touch QUEUED (if given) once the calls returned, shut
        down writing and wait for the end of stream; prints "tx BYTES"

Exit status 0 when everything was as expected, 1 otherwise.
"""
import os
import random
import socket
import sys
import time

SOCK_NDP = 7
SO_SNDBUFFORCE = 32
CHUNK = 4096


def sock(proto, host):
    fam = socket.AF_INET6 if ':' in host else socket.AF_INET
    kind = SOCK_NDP if proto == 'ndp' else socket.SOCK_STREAM
    return socket.socket(fam, kind, 0)


def make(path, size, seed):
    rnd = random.Random(seed)
    with open(path, 'wb') as f:
        left = size
        while left:
            n = min(left, 1 << 20)
            f.write(rnd.randbytes(n))
            left -= n


def check(data, old, new):
    """(None if every byte is OLD's or NEW's at its offset, else a reason;
    how many 4 KB blocks are NEW's)."""
    newer = 0
    if len(data) != len(old):
        return ('short' if len(data) < len(old) else 'long'), 0
    for off in range(0, len(data), CHUNK):
        got = data[off:off + CHUNK]
        if new and got == new[off:off + CHUNK]:
            newer += 1
            continue
        if got == old[off:off + CHUNK]:
            continue
        # A page may be torn by the write that changed it: byte by byte.
        for k, b in enumerate(got):
            if b != old[off + k] and not (new and b == new[off + k]):
                return 'corrupt@%d' % (off + k), newer
    return None, newer


def serve(proto, host, port, size, old_path, new_path, go):
    old = open(old_path, 'rb').read()[:size]
    new = open(new_path, 'rb').read()[:size] if new_path else None
    ls = sock(proto, host)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    ls.bind((host, port))
    ls.listen(1)
    print('listening', flush=True)
    s, _ = ls.accept()
    while go and not os.path.exists(go):
        time.sleep(0.05)
    buf = bytearray()
    while True:
        b = s.recv(1 << 20)
        if not b:
            break
        buf += b
    s.close()
    why, newer = check(bytes(buf), old, new)
    print('rx %d %s new %d' % (len(buf), why or 'ok', newer))
    return why is None


def send(proto, host, port, path, how, queued):
    size = os.path.getsize(path)
    s = sock(proto, host)
    s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 2 * size)
    s.connect((host, port))
    fd = os.open(path, os.O_RDONLY)
    sent = 0
    if how == 'write':
        while sent < size:
            b = os.read(fd, 1 << 16)
            if not b:
                break
            s.sendall(b)
            sent += len(b)
    elif how == 'sendfile':
        while sent < size:
            n = os.sendfile(s.fileno(), fd, sent, size - sent)
            if n <= 0:
                break
            sent += n
    else:
        pr, pw = os.pipe()
        while sent < size:
            n = os.splice(fd, pw, min(size - sent, 1 << 16))
            if n <= 0:
                break
            while n:
                m = os.splice(pr, s.fileno(), n)
                n -= m
                sent += m
        os.close(pr)
        os.close(pw)
    os.close(fd)
    if queued:
        open(queued, 'w').close()
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass
    s.close()
    print('tx %d' % sent)
    return sent == size


def main(argv):
    proto = 'ndp'
    if len(argv) > 2 and argv[1] == '-p':
        proto = argv[2]
        argv = argv[:1] + argv[3:]
    cmd = argv[1]
    if cmd == 'make':
        make(argv[2], int(argv[3]), int(argv[4]))
        return 0
    if cmd == 'serve':
        opt = argv[6:] + [None, None]
        return 0 if serve(proto, argv[2], int(argv[3]), int(argv[4]),
                          argv[5], opt[0], opt[1]) else 1
    if cmd == 'send':
        return 0 if send(proto, argv[2], int(argv[3]), argv[4], argv[5],
                         argv[6] if len(argv) > 6 else None) else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
