#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Quick end-to-end check of the NDP transport (ndp_smoke): v4 and v6
# transfers of 1 B, 100 KB and 10 MB each way checked byte for byte,
# ECONNREFUSED without a listener, 20 concurrent connections; then the
# counters moved, every socket is gone and ndp.ko unloads cleanly.
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd ndp_smoke
ndp_lib_load_modules ndp
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"

ndp_smoke "/run/netns/$ns_a" "/run/netns/$ns_b" 10.0.1.2 fd00:1::2 \
	| sed 's/^/# /'
rc=${PIPESTATUS[0]}

ndp_lib_plan 7
ndp_lib_expect_eq "ndp_smoke checks" 0 "$rc"
ndp_lib_check "ACKs and pulls were sent" \
	test "$(ndp_lib_stat "$ns_b" OutAcks)" -gt 0 -a "$(ndp_lib_stat "$ns_b" OutPulls)" -gt 0
ndp_lib_check "refused connections got RSTs" \
	test "$(ndp_lib_stat "$ns_b" OutRsts)" -gt 0 -a "$(ndp_lib_stat "$ns_a" InRsts)" -gt 0
ndp_lib_check "passive opens counted" \
	test "$(ndp_lib_stat "$ns_b" PassiveOpens)" -ge 46

# Orphans finish once their FIN is acknowledged; then the module goes.
unloaded()
{
	local i

	ip netns del "$ns_a"
	ip netns del "$ns_b"
	# ndp_diag.ko (ss, ndpctl sockets: autoloaded by earlier tests or
	# by a failed transfer's diagnostics) holds ndp.ko, not a socket.
	rmmod ndp_diag 2>/dev/null
	ndp_lib_wait 30000 modprobe -r ndp 2>/dev/null && return 0
	echo "modprobe -r ndp still refused after $((30 * NDP_TIME_FACTOR)) s:"
	ndp_lib_module_busy ndp
	return 1
}
ndp_lib_check "ndp.ko unloads after the sockets close" unloaded
ndp_lib_check "ndp.ko loads again" modprobe ndp
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
