#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A lossy path in both directions (netem: 10 % loss, reordering,
# duplication) still delivers every byte intact, and NDP recovers by
# retransmission: RTO (RtxTimeout/Rtos) or NACK (RtxNack) counters move at
# the senders and the receivers see duplicates.
#
#   NDP_TEST_PROTO=tcp   same transfers over TCP (no counter checks)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

netem="delay 1ms reorder 25% 50% loss 10% duplicate 5%"

xfer_setup
ndp_lib_require_cmd tc
ndp_lib_load_modules sch_netem
# 1500-byte packets: a 1 MB transfer is ~700 of them, enough for the
# loss and duplication to hit every kind of packet many times.
NDP_MTU=1500 ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
for ns in "$ns_a" "$ns_b"; do
	ip netns exec "$ns" tc qdisc add dev eth0 root netem $netem ||
		ndp_lib_skip_all "netem rejected: $netem"
done
if xfer_is_ndp; then
	for ns in "$ns_a" "$ns_b"; do
		ndp_lib_info "${ns%%-*}: $(ip netns exec "$ns" sysctl -n net.ndp.rto_min_us \
			net.ndp.rto_max_us net.ndp.init_window 2>/dev/null | tr '\n' ' ')" \
			"(rto_min_us rto_max_us init_window)"
	done
fi
ndp_lib_info "netem on both eth0: $netem"
ndp_lib_plan 9

s0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "v4 1M a->b over a lossy path" xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 1M 0 1 300
s1=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "v4 1M b->a over a lossy path" xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 0 1M 1 300
s2=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "v4 1M both ways over a lossy path" xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 1M 1M 1 300
ndp_lib_check "v6 1M both ways, 4 connections, over a lossy path" \
	xfer_run "$ns_a" "$ns_b" fd00:1::2 6 1M 1M 4 300
s3=$(xfer_stats "$ns_a" "$ns_b")

xfer_expect_moved "ndp: a->b sender retransmitted" "$s0" "$s1" "$ns_a" RtxTimeout Rtos RtxNack
xfer_expect_moved "ndp: b->a sender retransmitted" "$s1" "$s2" "$ns_b" RtxTimeout Rtos RtxNack
xfer_expect_moved "ndp: b saw duplicate data" "$s0" "$s3" "$ns_b" InDups
xfer_expect_moved "ndp: a saw duplicate data" "$s0" "$s3" "$ns_a" InDups
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
