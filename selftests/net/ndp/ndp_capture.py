#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of tools/wireshark/ndp-vm-capture-test (a real capture for
the Wireshark dissector).

In two network namespaces joined by a veth pair (made by the caller),
capture with an AF_PACKET socket on the client's veth while the client
sends a known byte stream over NDP to a server in the other namespace,
then print the capture as base64 between NDP-PCAP-BEGIN / NDP-PCAP-END and
the SHA-256 of what was sent (NDP-SENT).

  ndp_capture.py IFACE SERVER_ADDR PORT NBYTES    (run in the client netns)
"""
import base64
import hashlib
import os
import socket
import struct
import subprocess
import sys
import time

import ndp_pcap

SOCK_NDP = 7


def main():
    iface, addr, port, nbytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    payload = bytes((i * 7 + 3) & 0xff for i in range(nbytes))
    # Single packets on the wire, as a NIC sends them: with GSO on, a
    # veth carries a sender's batch whole, one frame (net/ndp/offload.c).
    subprocess.run(["ethtool", "-K", iface, "gso", "off"], check=True)
    cap = ndp_pcap.Capture(iface)   # bound: sees every frame from now on
    c = socket.socket(socket.AF_INET, SOCK_NDP, 0)
    c.connect((addr, port))
    c.sendall(payload)
    c.shutdown(socket.SHUT_WR)
    c.settimeout(60)
    while c.recv(4096):
        pass
    c.close()
    time.sleep(1.5)     # the last acknowledgements and the FIN's, on the wire
    frames = cap.stop()
    out = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
    for ts, fr, _ in frames:
        out += struct.pack('<IIII', int(ts), int((ts % 1) * 1e6), len(fr),
                           len(fr)) + fr
    print('NDP-SENT %d %s' % (nbytes, hashlib.sha256(payload).hexdigest()))
    print('NDP-PCAP-BEGIN')
    enc = base64.b64encode(out).decode()
    for i in range(0, len(enc), 76):
        print(enc[i:i + 76])
    print('NDP-PCAP-END')
    sys.stdout.flush()
    os._exit(0)


if __name__ == '__main__':
    main()
