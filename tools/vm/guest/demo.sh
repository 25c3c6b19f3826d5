#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What "tools/ndp-demo" shows inside the VM: the modules and sockets in
# brief, then the short benchmark (1 KB RPCs and a 7:1 incast, NDP against
# TCP on the same emulated switch) and its table of ratios.  The full set
# is "make bench" (Documentation/networking/ndp-bench.rst).
set -u
step() { printf '\n### %s\n' "$*"; }

step "Load the NDP modules"
modprobe ndp && modprobe sch_ndp || exit 1
grep -E '^(ndp|sch_ndp) ' /proc/modules
echo "IP protocol number: $(cat /sys/module/ndp/parameters/ipproto)"

step "Open NDP sockets (AF_INET and AF_INET6, SOCK_NDP and SOCK_STREAM/IPPROTO_NDP)"
/ndp/selftests/ndp_socktest | grep -E '^(ok|not ok)' | head -n 4
echo "knobs: $(sysctl -n net.ndp.init_window) packets initial window," \
	"$(sysctl -n net.ndp.rto_min_us) us RTO floor (net.ndp.*)"

step "Short benchmark: NDP vs TCP, 100 Mbit/s switch port, 8-packet buffer for both"
out=/tmp/ndp-bench
/ndp/bin/ndp-bench-guest --set short --out "$out" | grep -v '^SAMPLES '
rc=${PIPESTATUS[0]}

step "Table of ratios"
/ndp/bin/ndp-bench-table "$out/bench.txt"
[ "$rc" = 0 ] || { echo "NDP demo: the benchmark did not finish (exit $rc)"; exit 1; }
if grep -q '^BENCH .*status=FAIL' "$out/bench.txt"; then
	echo
	echo "NDP demo: some measurements FAILED (listed above); no figure is printed for them"
	exit 1
fi
echo
echo "NDP demo: done, every byte of every benchmark verified"
