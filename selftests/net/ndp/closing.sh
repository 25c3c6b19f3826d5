#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# At-most-once on close, with the short request/response connections of a
# real server (ndp_life.py rrserve/rrclient, one loop, no thread per
# connection): N connections in a row where the server closes first, then
# N where the client closes first.  A user sees:
#   - as many accepts as connects, and no connection accepted after the
#     last one (the server keeps listening longer than time-wait lasts:
#     a late FIN that outlived its time-wait record would open one);
#   - no error at either end, no RST sent or received, no reset;
# and the counters show why: the late FINs (which carry SYN while they
# are inside the client's first window) are acknowledged from time-wait
# (TwFinAcked), not retransmitted until it expires (RtxTimeout stays far
# below one per connection; before the fix it was about six).
#
#   NDP_TEST_PROTO=tcp   the same over TCP (counter checks skip)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
ndp_lib_require_cmd python3
helper=$(dirname "$0")/ndp_life.py
n=${NDP_CLOSING_CONNS:-40}
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 12

# round ORDER: N connections, ORDER closes first.
round()
{
	local order=$1 port d spid rc s0 s1 tw
	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/$order.XXXXXX")
	tw=1000
	xfer_is_ndp && tw=$(ip netns exec "$ns_b" sysctl -n net.ndp.time_wait_ms)
	s0=$(xfer_stats "$ns_a" "$ns_b")
	# Listen on after the last connection for three time-wait periods.
	ip netns exec "$ns_b" python3 "$helper" -p "$XFER_PROTO" rrserve \
		10.0.1.2 "$port" "$n" "$order" "$((3 * tw / 1000 + 2))" \
		>"$d/server.out" 2>&1 &
	spid=$!
	xfer_wait_file "$d/server.out" listening 20 || cat "$d/server.out"
	ip netns exec "$ns_a" python3 "$helper" -p "$XFER_PROTO" rrclient \
		10.0.1.2 "$port" "$n" "$order" >"$d/client.out" 2>&1
	rc=$?
	wait $spid
	ndp_lib_check "$order closes first: $n connects, no client error" \
		test $rc -eq 0
	[ $rc -eq 0 ] || cat "$d/client.out"
	ndp_lib_check "$order closes first: accepts == connects, none later" \
		grep -q "^ok accepted $n extra 0 errors 0" "$d/server.out"
	grep -q '^ok' "$d/server.out" || cat "$d/server.out"
	s1=$(xfer_stats "$ns_a" "$ns_b")
	xfer_expect_delta "$order closes first: no RST sent" "$s0" "$s1" \
		"$ns_a" 0 OutRsts
	xfer_expect_delta "$order closes first: no RST sent by the server" \
		"$s0" "$s1" "$ns_b" 0 OutRsts
	if xfer_is_ndp; then
		ndp_lib_expect_le "$order closes first: no retransmission storm" \
			$((n / 2)) "$(xfer_delta "$s0" "$s1" "$ns_a" RtxTimeout)"
		ndp_lib_info "late FINs acknowledged from time-wait: a=$(xfer_delta \
			"$s0" "$s1" "$ns_a" TwFinAcked) b=$(xfer_delta "$s0" "$s1" \
			"$ns_b" TwFinAcked); resets: a=$(xfer_delta "$s0" "$s1" \
			"$ns_a" EstabResets) b=$(xfer_delta "$s0" "$s1" "$ns_b" \
			EstabResets)"
		xfer_expect_delta "$order closes first: no connection reset" \
			"$s0" "$s1" "$ns_a" 0 EstabResets InRsts
	else
		ndp_lib_skip "$order closes first: no retransmission storm" \
			"counters are NDP-only"
		ndp_lib_skip "$order closes first: no connection reset" \
			"counters are NDP-only"
	fi
}

round server
round client
ndp_lib_done
