#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver's pull queue serves higher SO_PRIORITY first (strict
# priority between bands).  The receiver paces its pulls at 5 Mbit/s
# (net.ndp.link_rate_mbps), so the pull queue is the bottleneck (at 100
# Mbit/s the Python reader under TCG was, and full receive buffers take
# sockets off the pull queue whatever their priority; at 20 Mbit/s, on a
# host running four guests, one round in two went to the low priority
# flow, on main as on other trees: the guest, not the pacer, set the
# pace; probably too a pull timer firing late lets the pacer's catch-up
# reach the low band while the high one's packets are all in flight);
# one connection
# (priority 0) asks the sender for 2 MB, and when a quarter has arrived
# a second connection (priority 6) asks for 2 MB too.  With round robin
# the first would finish first (it has a 512 KB head start);
# with priority the second overtakes it.  Both sockets have room for the
# whole response (SO_RCVBUFFORCE), so that a slow reader cannot take
# them off the pull queue.  An ordering, not a timing, as long as the
# guest keeps up with 5 Mbit/s.  Three rounds, v4 and v6, every byte
# verified.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
ndp_lib_require_cmd python3
helper=$(dirname "$0")/ndp_life.py
xfer_is_ndp || ndp_lib_skip_all "TCP has no receiver-side priority"
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ip netns exec "$ns_a" sysctl -qw net.ndp.link_rate_mbps=5
ndp_lib_plan 3

port=$(xfer_next_port)
for addr in 10.0.1.2 fd00:1::2; do
	ip netns exec "$ns_b" python3 "$helper" serve "$addr" "$port" \
		>"$XFER_TMP/serve.$addr" 2>&1 &
	ndp_lib_at_exit "kill $! 2>/dev/null"
done
# Both servers, each in its own file: the first "listening" may be v6's.
for addr in 10.0.1.2 fd00:1::2; do
	xfer_wait_file "$XFER_TMP/serve.$addr" listening 20
done

prio()
{
	local addr=$1 i out

	for i in 1 2 3; do
		out=$(ip netns exec "$ns_a" timeout 150 python3 "$helper" prio \
			"$addr" "$port" $((2 * 1024 * 1024)) 2>&1)
		echo "round $i: $out"
		[ "$out" = "first: high" ] || return 1
	done
}
ndp_lib_check "v4 SO_PRIORITY 6 overtakes a 0 with a head start (3 rounds)" prio 10.0.1.2
ndp_lib_check "v6 SO_PRIORITY 6 overtakes a 0 with a head start (3 rounds)" prio fd00:1::2
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
