#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What "tools/ndp-demo" shows inside the VM.
set -u
step() { printf '\n### %s\n' "$*"; }

step "Load the NDP modules"
modprobe ndp && modprobe sch_ndp || exit 1
grep -E '^(ndp|sch_ndp) ' /proc/modules
echo "IP protocol number: $(cat /sys/module/ndp/parameters/ipproto)"

step "Open NDP sockets (AF_INET and AF_INET6, SOCK_NDP and SOCK_STREAM/IPPROTO_NDP)"
/ndp/selftests/ndp_socktest matrix | grep -E '^(ok|not ok)' | head -n 12

step "Per-namespace knobs (net.ndp.*)"
sysctl net.ndp

step "A switch port with the ndp qdisc"
ip link add sw0 type veth peer name sw1
tc qdisc add dev sw0 root ndp && tc qdisc show dev sw0
tc qdisc del dev sw0 root; ip link del sw0

step "Counters (/proc/net/ndp_stat)"
cat /proc/net/ndp_stat | head -n 8
echo
echo "NDP demo: done"
