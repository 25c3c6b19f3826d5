#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory accounting (net.ndp.mem, struct proto's limits, as tcp_mem): the
# receive and send memory of every NDP socket is charged to the protocol
# (/proc/net/protocols, "memory") and bounded by net.ndp.mem.  With a low
# pressure limit (128 pages) and reordering on the link (out-of-order
# packets wait in memory), eight connections at once still deliver every
# byte; the limit bites (MemDrops moves: out-of-order packets are refused,
# NACKed and pulled again, in-order ones still taken up to the hard limit,
# 1024 pages).  With the defaults it never does.  The protocol's total is
# kept per CPU in batches of up to 1 MB (SK_MEMORY_PCPU_RESERVE), so
# limits of a few pages would throttle every socket to one page: TCP's
# tcp_mem behaves the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "net.ndp.mem is NDP-only"
xfer_setup
ndp_lib_require_cmd tc sysctl
ndp_lib_load_modules sch_netem
NDP_MTU=1500 ndp_lib_topo_pair || ndp_lib_skip_all "cannot build the topology"
ip netns exec "$ns_a" tc qdisc add dev eth0 root netem delay 1ms reorder 50% 50% ||
	ndp_lib_skip_all "netem rejected reordering"
ndp_lib_plan 7

s0=$(xfer_stats "$ns_b")
ndp_lib_check "default limits: 8 connections of 512K intact" \
	xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 512K 0 8 300
s1=$(xfer_stats "$ns_b")
xfer_expect_delta "default limits: MemDrops stays" "$s0" "$s1" "$ns_b" 0 MemDrops

saved=$(sysctl -n net.ndp.mem)
ndp_lib_at_exit "sysctl -qw net.ndp.mem='$saved'"
ndp_lib_check "limits set to 64 128 1024 pages" sysctl -qw net.ndp.mem="64 128 1024"
ndp_lib_check "low limits: 8 connections of 512K intact" \
	xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 512K 0 8 300
s2=$(xfer_stats "$ns_b")
xfer_expect_moved "low limits: MemDrops moved" "$s1" "$s2" "$ns_b" MemDrops
ndp_lib_info "receiver: RcvQDrops $(xfer_delta "$s1" "$s2" "$ns_b" RcvQDrops) OutNacks $(xfer_delta "$s1" "$s2" "$ns_b" OutNacks)"
sysctl -qw net.ndp.mem="$saved"
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
