#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# errno and poll semantics of NDP sockets as tcp(7) has them, across a
# veth link (the listener lives in the peer namespace): ECONNREFUSED,
# EAGAIN then EPOLLOUT, EPOLLRDHUP, SO_RCVTIMEO/SO_SNDTIMEO, EADDRINUSE,
# ENOTCONN, EPIPE/SIGPIPE, MSG_PEEK, MSG_WAITALL, getsockname/getpeername,
# EFAULT on a buffer with an unmapped page (nothing lost).
# Each line is one "ndp_xfer probe"; its own checks show on failure.
#
#   NDP_TEST_PROTO=tcp   same checks over TCP
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

probes="refused eagain rdhup rcvtimeo sndtimeo addrinuse notconn epipe peek waitall names efault"

xfer_setup
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan $((2 * $(echo $probes | wc -w) + 1))

probe()
{
	local fam=$1 name=$2 addr=$3 out rc

	out=$(ip netns exec "$ns_a" timeout 120 ndp_xfer -p "$XFER_PROTO" "-$fam" \
		probe "$name" -H "$addr" -N "/run/netns/$ns_b" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(not ok|#)' | grep -v '^# Totals:'
	return $rc
}

for fam in 4 6; do
	if [ $fam = 4 ]; then addr=10.0.1.2; else addr=fd00:1::2; fi
	for p in $probes; do
		ndp_lib_check "v$fam $p" probe $fam "$p" $addr
	done
done
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
