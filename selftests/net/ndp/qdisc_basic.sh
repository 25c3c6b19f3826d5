#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp attaches to and detaches from veth ports of a switch namespace,
# forwards traffic while attached, and survives attach/detach under load.
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd tc ping
ndp_lib_load_modules sch_ndp
ndp_lib_topo_switch 1 || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 5

ndp_lib_check "tc qdisc add dev tr root ndp" \
	ip netns exec "$ns_sw" tc qdisc add dev tr root ndp
ndp_lib_check "tc qdisc show lists ndp" \
	bash -c "ip netns exec $ns_sw tc qdisc show dev tr | grep -q '^qdisc ndp '"
ndp_lib_check "ping h1 -> rx through the ndp port" \
	ip netns exec "$ns_h1" ping -c 3 -i 0.2 -W 2 10.0.100.1

churn()
{
	local i pid
	ip netns exec "$ns_h1" ping -f -c 2000 -s 1000 10.0.100.1 >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 20); do
		ip netns exec "$ns_sw" tc qdisc replace dev tr root ndp || return 1
		ip netns exec "$ns_sw" tc qdisc del dev tr root || return 1
	done
	wait $pid
	return 0
}
ndp_lib_check "attach/detach 20 times under a ping flood" churn
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
