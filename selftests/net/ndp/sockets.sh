#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every family/type/protocol combination of NDP sockets opens and closes,
# in the initial namespace and in a fresh one, and TCP is unaffected.
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd ndp_socktest
ndp_lib_load_modules ndp
ndp_topo_ns_new ns1 || ndp_lib_skip_all "cannot create a netns"

echo "# initial namespace"
ndp_socktest | sed 's/^/# /'
r1=${PIPESTATUS[0]}
echo "# fresh namespace"
ip netns exec "$ns1" ndp_socktest | sed 's/^/# /'
r2=${PIPESTATUS[0]}

ndp_lib_plan 3
ndp_lib_expect_eq "socket matrix in init_net" 0 "$r1"
ndp_lib_expect_eq "socket matrix in a new netns" 0 "$r2"
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
