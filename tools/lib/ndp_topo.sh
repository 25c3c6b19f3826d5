#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ndp_topo.sh: network namespaces joined by veth pairs, the small
# topologies the selftests and the benchmarks share.  Sourced by the
# selftests' lib.sh and by tools/bench (installed to /ndp/bin in the
# guest).  Namespaces created here are deleted by ndp_topo_cleanup, which
# the sourcing script runs on exit (lib.sh does; a tool sets its trap).
#
#   ndp_topo_ns_new VAR...         namespaces with random suffixes
#   ndp_topo_link NS1 IF1 NS2 IF2 [MTU]
#   ndp_topo_pair                  $ns_a - $ns_b
#   ndp_topo_switch [N]            $ns_h1..$ns_hN - $ns_sw - $ns_rx
#   ndp_topo_cleanup               kill what runs in them, delete them
#
# NDP_MTU (default 9000) is every link's MTU unless a call gives one.

# shellcheck disable=SC2154 # ns_a, ns_b, ns_sw, ns_rx: set by ndp_topo_ns_new
__ndp_topo_netns=()

# ndp_topo_ns_new VAR...: create namespaces with random suffixes, store
# their names in the given variables, bring lo up; no DAD (addresses are
# usable at once).
ndp_topo_ns_new()
{
	local var name
	for var in "$@"; do
		name="$var-$(printf '%04x%04x' $RANDOM $RANDOM)"
		ip netns add "$name" || return 1
		ip -n "$name" link set lo up
		ip netns exec "$name" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 2>/dev/null
		__ndp_topo_netns+=("$name")
		printf -v "$var" '%s' "$name"
	done
}

# ndp_topo_link NS1 IF1 NS2 IF2 [MTU]: veth pair between two namespaces.
ndp_topo_link()
{
	local mtu=${5:-${NDP_MTU:-9000}}
	ip link add "$2" netns "$1" mtu "$mtu" type veth peer name "$4" netns "$3" mtu "$mtu" || return 1
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

# ndp_topo_pair: hosts $ns_a (10.0.1.1, fd00:1::1) and $ns_b (10.0.1.2,
# fd00:1::2) joined by one veth pair (eth0 in both).
ndp_topo_pair()
{
	ndp_topo_ns_new ns_a ns_b || return 1
	ndp_topo_link "$ns_a" eth0 "$ns_b" eth0 || return 1
	ip -n "$ns_a" addr add 10.0.1.1/24 dev eth0
	ip -n "$ns_b" addr add 10.0.1.2/24 dev eth0
	ip -n "$ns_a" addr add fd00:1::1/64 dev eth0 nodad
	ip -n "$ns_b" addr add fd00:1::2/64 dev eth0 nodad
}

# ndp_topo_switch [N]: N senders ($ns_h1..$ns_hN, 10.0.I.1 and fd00:I::1)
# and one receiver $ns_rx (10.0.100.1, fd00:100::1) behind a router
# namespace $ns_sw.  The switch's port towards host X is "tX" (its egress
# is where sch_ndp goes: "tr" towards the receiver).  N defaults to 1.
ndp_topo_switch()
{
	local n=${1:-1} i var
	ndp_topo_ns_new ns_sw ns_rx || return 1
	ip netns exec "$ns_sw" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	ndp_topo_link "$ns_rx" eth0 "$ns_sw" tr || return 1
	ip -n "$ns_rx" addr add 10.0.100.1/24 dev eth0
	ip -n "$ns_rx" addr add fd00:100::1/64 dev eth0 nodad
	ip -n "$ns_sw" addr add 10.0.100.254/24 dev tr
	ip -n "$ns_sw" addr add fd00:100::fe/64 dev tr nodad
	ip -n "$ns_rx" route add default via 10.0.100.254
	ip -n "$ns_rx" -6 route add default via fd00:100::fe
	for i in $(seq 1 "$n"); do
		var=ns_h$i
		ndp_topo_ns_new "$var" || return 1
		ndp_topo_link "${!var}" eth0 "$ns_sw" "t$i" || return 1
		ip -n "${!var}" addr add "10.0.$i.1/24" dev eth0
		ip -n "${!var}" addr add "fd00:$i::1/64" dev eth0 nodad
		ip -n "$ns_sw" addr add "10.0.$i.254/24" dev "t$i"
		ip -n "$ns_sw" addr add "fd00:$i::fe/64" dev "t$i" nodad
		ip -n "${!var}" route add default via "10.0.$i.254"
		ip -n "${!var}" -6 route add default via "fd00:$i::fe"
	done
}

# ndp_topo_cleanup: kill every process in the namespaces created here and
# delete them.
ndp_topo_cleanup()
{
	local ns
	for ns in "${__ndp_topo_netns[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" >/dev/null 2>&1
	done
	__ndp_topo_netns=()
}
