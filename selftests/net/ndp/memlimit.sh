#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# net.ndp.mem_max_kb: the receive memory of a namespace's sockets taken
# together.  With a bound of a few packets and reordering on the link
# (out-of-order packets wait in memory), eight connections at once still
# deliver every byte; the bound bites (MemDrops moves: refused packets are
# NACKed and pulled again).  With the default (0, no bound) it never does.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "net.ndp.mem_max_kb is NDP-only"
xfer_setup
ndp_lib_require_cmd tc sysctl
ndp_lib_load_modules sch_netem
NDP_MTU=1500 ndp_lib_topo_pair || ndp_lib_skip_all "cannot build the topology"
ip netns exec "$ns_a" tc qdisc add dev eth0 root netem delay 1ms reorder 50% 50% ||
	ndp_lib_skip_all "netem rejected reordering"
ndp_lib_plan 6

s0=$(xfer_stats "$ns_b")
ndp_lib_check "no bound: 8 connections of 512K intact" \
	xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 512K 0 8 300
s1=$(xfer_stats "$ns_b")
xfer_expect_delta "no bound: MemDrops stays" "$s0" "$s1" "$ns_b" 0 MemDrops

ndp_lib_check "bound set to 16 KiB" ip netns exec "$ns_b" sysctl -qw net.ndp.mem_max_kb=16
ndp_lib_check "16 KiB bound: 8 connections of 512K intact" \
	xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 512K 0 8 300
s2=$(xfer_stats "$ns_b")
xfer_expect_moved "16 KiB bound: MemDrops moved" "$s1" "$s2" "$ns_b" MemDrops
ndp_lib_info "receiver: RcvQDrops $(xfer_delta "$s1" "$s2" "$ns_b" RcvQDrops) OutNacks $(xfer_delta "$s1" "$s2" "$ns_b" OutNacks)"
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
