#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Orphans (connections closed by their application with data still to
# deliver) are bounded as TCP bounds them:
#   - net.ndp.max_orphans: a close() beyond it resets the connection
#     (OrphanOverflows) instead of leaving one more orphan;
#   - net.ndp.orphan_retries: an orphan whose peer stops taking its data
#     (a receiver that never reads: it still NACKs the probes, which
#     keeps an open connection alive) is reset after that many RTO
#     expiries without an acknowledgement (OrphanTimeouts);
# and nothing stays hashed afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
xfer_is_ndp || ndp_lib_skip_all "NDP-only knobs"
ndp_lib_require_cmd python3 ndpctl
helper=$(dirname "$0")/ndp_life.py
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 5

d=$XFER_TMP/orphans
mkdir -p "$d"
port=$(xfer_next_port)
# A listener that never accepts: its connections' receive buffers fill.
ip netns exec "$ns_b" python3 "$helper" hold 10.0.1.2 "$port" 16 \
	>"$d/hold.out" 2>&1 &
xfer_wait_file "$d/hold.out" listening 20 || cat "$d/hold.out"
# First a long-lived orphan (many retries at the default RTO ceiling).
ip netns exec "$ns_a" sysctl -qw net.ndp.max_orphans=1 \
	net.ndp.orphan_retries=255

s0=$(xfer_stats "$ns_a")
# Each client queues 2 MB (more than the receiver's buffer) and closes.
for i in 1 2; do
	ndp_lib_check "client $i: 2 MB queued, close() returns" \
		timeout 60 ip netns exec "$ns_a" python3 "$helper" chunks \
		10.0.1.2 "$port" 2097152 65536
done
s1=$(xfer_stats "$ns_a")
xfer_expect_delta "max_orphans 1: the second close() resets" \
	"$s0" "$s1" "$ns_a" 1 OrphanOverflows
# Now the first orphan may only wait two quick RTOs.
ip netns exec "$ns_a" sysctl -qw net.ndp.orphan_retries=2 \
	net.ndp.rto_max_us=100000

# no_conns: the client holds no connection.
no_conns() { [ "$(ndp_lib_conns "$ns_a")" = 0 ]; }
ndp_lib_wait 10000 no_conns
s2=$(xfer_stats "$ns_a")
xfer_expect_delta "orphan_retries 2: the orphan the peer never reads is reset" \
	"$s0" "$s2" "$ns_a" 1 OrphanTimeouts
ndp_lib_expect_eq "no connection left at the client" 0 "$(ndp_lib_conns "$ns_a")"
ndp_lib_done
