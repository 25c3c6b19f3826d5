#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 200 concurrent connections through one listener, data both ways on
# each, every byte intact, over IPv4 and IPv6; each connection counted
# once as a passive open at the server and an active open at the client.
#
#   NDP_TEST_PROTO=tcp   same checks over TCP
#   NDP_CONC_N=200       number of connections
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

n=${NDP_CONC_N:-200}

xfer_setup
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 7

before=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "v4 $n connections, 100K up and 10K down each" \
	xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 100K 10K "$n" 300
mid=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "v6 $n connections, 10K up and 100K down each" \
	xfer_run "$ns_a" "$ns_b" fd00:1::2 6 10K 100K "$n" 300
after=$(xfer_stats "$ns_a" "$ns_b")

xfer_expect_delta "ndp: v4 server counted $n passive opens" "$before" "$mid" "$ns_b" "$n" PassiveOpens
xfer_expect_delta "ndp: v4 client counted $n active opens" "$before" "$mid" "$ns_a" "$n" ActiveOpens
xfer_expect_delta "ndp: v6 server counted $n passive opens" "$mid" "$after" "$ns_b" "$n" PassiveOpens
xfer_expect_delta "ndp: no connection reset" "$before" "$after" "$ns_b" 0 EstabResets OutRsts InRsts
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
