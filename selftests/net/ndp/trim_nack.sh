#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Trimming: two senders push through a switch port running sch_ndp with a
# tiny data queue towards one receiver.  The port trims payloads instead
# of dropping them; the receiver sees trimmed headers and answers with
# NACKs, the senders retransmit on NACK (no RTO needed), and every byte
# arrives intact.  Skipped cleanly while sch_ndp lacks the options.
#
#   NDP_TEST_PROTO=tcp   the same transfers over TCP through the same port
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

qopts=${NDP_TRIM_QDISC:-limit 4 rate 100mbit}

xfer_setup
ndp_lib_require_cmd tc
ndp_lib_load_modules sch_ndp
ndp_topo_switch 2 || ndp_lib_skip_all "cannot build the topology"
if ! err=$(ip netns exec "$ns_sw" tc qdisc add dev tr root ndp $qopts 2>&1); then
	ndp_lib_skip_all "tc qdisc add dev tr root ndp $qopts: ${err:-rejected}"
fi
ndp_lib_info "switch port tr: ndp $qopts"
# The receiver paces its pulls for its own link; here the bottleneck is the
# switch port's emulated rate, so tell the receiver (as a deployment
# would set the knob to the real link rate).
rate=$(printf '%s\n' "$qopts" | sed -n 's/.*rate \([0-9]*\)mbit.*/\1/p')
if xfer_is_ndp && [ -n "$rate" ]; then
	ip netns exec "$ns_rx" sysctl -qw net.ndp.link_rate_mbps="$rate" ||
		ndp_lib_info "cannot set net.ndp.link_rate_mbps=$rate"
	ndp_lib_info "receiver: net.ndp.link_rate_mbps=$rate"
fi
ndp_lib_plan 6

# Two hosts, two connections each, at the same time (an incast on tr).
incast()
{
	local fam=$1 addr=$2 port1 port2 p1 p2 rc=0

	# ports picked here: in "cmd &" the expansions run in the background
	port1=$(xfer_next_port)
	port2=$(xfer_next_port)
	XFER_PORT=$port1 xfer_run "$ns_h1" "$ns_rx" "$addr" "$fam" 2M 0 2 300 \
		>"$XFER_TMP/h1.$fam" 2>&1 &
	p1=$!
	XFER_PORT=$port2 xfer_run "$ns_h2" "$ns_rx" "$addr" "$fam" 2M 0 2 300 \
		>"$XFER_TMP/h2.$fam" 2>&1 &
	p2=$!
	wait $p1 || { rc=1; sed 's/^/h1: /' "$XFER_TMP/h1.$fam"; }
	wait $p2 || { rc=1; sed 's/^/h2: /' "$XFER_TMP/h2.$fam"; }
	return $rc
}

s0=$(xfer_stats "$ns_h1" "$ns_h2" "$ns_rx")
ndp_lib_check "v4 2x2 flows of 2M into one trimming port, intact" incast 4 10.0.100.1
ndp_lib_check "v6 2x2 flows of 2M into one trimming port, intact" incast 6 fd00:100::1
s1=$(xfer_stats "$ns_h1" "$ns_h2" "$ns_rx")
ip netns exec "$ns_sw" tc -s qdisc show dev tr | sed 's/^/# /'

xfer_expect_moved "ndp: the receiver saw trimmed headers" "$s0" "$s1" "$ns_rx" InTrimmed
xfer_expect_moved "ndp: the receiver sent NACKs" "$s0" "$s1" "$ns_rx" OutNacks
moved_rtx()
{
	local d1 d2
	d1=$(xfer_delta "$s0" "$s1" "$ns_h1" RtxNack)
	d2=$(xfer_delta "$s0" "$s1" "$ns_h2" RtxNack)
	echo "RtxNack moved by $d1 (h1) and $d2 (h2)"
	[ $((d1 + d2)) -gt 0 ]
}
if xfer_is_ndp; then
	ndp_lib_check "ndp: the senders retransmitted on NACK" moved_rtx
	ndp_lib_info "$(for ns in "$ns_h1" "$ns_h2"; do
		echo -n "${ns%%-*}: RtxTimeout $(xfer_delta "$s0" "$s1" "$ns" RtxTimeout) "
	done)"
else
	ndp_lib_skip "ndp: the senders retransmitted on NACK" "counters are NDP-only"
fi
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
