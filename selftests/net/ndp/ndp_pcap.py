# SPDX-License-Identifier: GPL-2.0
"""AF_PACKET capture for the Python helpers of the selftests (ndp_dasr.py,
and ndp_capture.py, the Wireshark test's helper).

    cap = ndp_pcap.Capture("eth0")  # bound: sees every frame from now on
    ...                             # the traffic
    for ts, frame, pkttype in cap.stop():
        if pkttype == socket.PACKET_OUTGOING: ...

The socket is bound before Capture() returns, so the caller starts its
traffic at once instead of sleeping until a capture thread is ready.
stop() also takes what was queued when it was called.
"""
import socket
import threading
import time

ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33         # not in Python's socket module


class Capture:
    def __init__(self, iface):
        self.frames = []
        self._stop = threading.Event()
        self._s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(ETH_P_ALL))
        # Room for the bursts a pull clock paid by elapsed time releases:
        # frames dropped here would be missing from the capture.
        self._s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
        self._s.bind((iface, 0))
        self._s.settimeout(0.2)
        self._t = threading.Thread(target=self._run)
        self._t.start()

    def _take(self):
        data, sa = self._s.recvfrom(65535)
        self.frames.append((time.time(), data, sa[2]))

    def _run(self):
        while not self._stop.is_set():
            try:
                self._take()
            except socket.timeout:
                continue
        self._s.setblocking(False)
        while True:
            try:
                self._take()
            except BlockingIOError:
                break
        self._s.close()

    def stop(self):
        """End the capture; return its frames as (time, frame, pkttype)."""
        self._stop.set()
        self._t.join()
        return self.frames
