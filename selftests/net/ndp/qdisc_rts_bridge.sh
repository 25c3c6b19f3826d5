#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Return to sender through a Linux bridge: the switch namespace bridges
# the sender's port t1 and the receiver's port tr (br0), sch_ndp runs on
# tr, and the sender and the receiver share one subnet.  A header that
# overflows the header queue is returned: it must reach the sender
# (swapped addresses, RTS flag, verifying checksum), and the bridge must
# keep learning the sender's MAC on t1 only, the receiver's on tr: the
# returned frame re-enters tr as a frame from the receiver's side (MAC
# addresses swapped, MAC header reset), not as the sender's frame seen
# on the wrong port.  IPv4 and IPv6.  Also: the routed switch still
# returns headers after the bridge test (qdisc_trim.sh has the details).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ndp_pktgen bridge
ndp_lib_load_modules sch_ndp bridge

# Bridged topology; the names match qdisc_lib.sh ($ns_sw, tr, $ns_h1,
# receiver 10.0.100.1 / fd00:100::1) so that sch_freeze works unchanged.
bridge_setup()
{
	local rxmac
	ndp_topo_ns_new ns_sw ns_rx ns_h1 || return 1
	ndp_topo_link "$ns_rx" eth0 "$ns_sw" tr || return 1
	ndp_topo_link "$ns_h1" eth0 "$ns_sw" t1 || return 1
	ip -n "$ns_sw" link add br0 type bridge || return 1
	ip -n "$ns_sw" link set tr master br0 || return 1
	ip -n "$ns_sw" link set t1 master br0 || return 1
	ip -n "$ns_sw" link set br0 up || return 1
	ip -n "$ns_rx" addr add 10.0.100.1/24 dev eth0
	ip -n "$ns_rx" addr add fd00:100::1/64 dev eth0 nodad
	ip -n "$ns_h1" addr add 10.0.100.2/24 dev eth0
	ip -n "$ns_h1" addr add fd00:100::2/64 dev eth0 nodad
	rxmac=$(ip -n "$ns_rx" -br link show dev eth0 | awk '{ print $3 }')
	h1mac=$(ip -n "$ns_h1" -br link show dev eth0 | awk '{ print $3 }')
	# No neighbour resolution may have to cross a frozen port.
	ip -n "$ns_h1" neigh replace 10.0.100.1 lladdr "$rxmac" dev eth0 nud permanent || return 1
	ip -n "$ns_h1" neigh replace fd00:100::1 lladdr "$rxmac" dev eth0 nud permanent || return 1
	ip -n "$ns_rx" neigh replace 10.0.100.2 lladdr "$h1mac" dev eth0 nud permanent || return 1
	ip -n "$ns_rx" neigh replace fd00:100::2 lladdr "$h1mac" dev eth0 nud permanent || return 1
}

# fdb_ports MAC: the bridge ports on which br0 has learned MAC.
fdb_ports()
{
	ip netns exec "$ns_sw" bridge fdb show br br0 |
		awk -v m="$1" 'tolower($1) == tolower(m) && $2 == "dev" { print $3 }' |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

bridge_setup || ndp_lib_skip_all "cannot build the bridged topology"
ndp_lib_plan 12

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"

# The bridge learns both hosts where they are.
ndp_lib_check "ping across the bridge" ip netns exec "$ns_h1" ping -c 2 -W 2 10.0.100.1
ndp_lib_expect_eq "sender's MAC learned on t1 before the test" t1 "$(fdb_ports "$h1mac")"

# rts_burst FAMILY: limit 4, hlimit 4, 12 DATA packets, trim-prob 100:
# psn 5..8 trimmed and queued, psn 9..12 returned to h1.
rts_burst()
{
	local v=$1 dst=10.0.100.1
	[ "$v" = -6 ] && dst=fd00:100::1
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc limit 4 hlimit 4 trim-prob 100 || return 1
	sch_freeze $v || return 1
	sch_recv_start "$ns_h1" "$tmp/back" --dport 5000 --count 4 --timeout-ms 20000 || return 1
	ip netns exec "$ns_h1" ndp_pktgen send $v --dst "$dst" "data*12" >/dev/null || return 1
	sch_recv_wait
}

# Every FDB change while headers are returned: a wrong entry could be
# corrected by the sender's next frame (IPv6 router solicitations, MLD)
# before the end-state check looks.
ip netns exec "$ns_sw" bridge monitor fdb >"$tmp/monitor" 2>&1 &
mon_pid=$!
ndp_lib_at_exit "kill $mon_pid"

for v in -4 -6; do
	rts_burst $v
	rc=$?
	rx=10.0.100.1 h1=10.0.100.2
	[ $v = -6 ] && { rx=fd00:100::1; h1=fd00:100::2; }
	ndp_lib_expect_eq "$v bridged: 4 headers returned" 4 "$(sch_xstat rts)"
	ndp_lib_expect_eq "$v bridged: psn 9..12 reach the sender, swapped, RTS, verified" \
		"0|9 10 11 12|trimmed,rts|$rx $h1|0 0" \
		"$rc|$(sch_pkts "$tmp/back" psn)|$(sch_pkts "$tmp/back" flags | cut -d' ' -f1)|$(sch_pkts "$tmp/back" src | cut -d' ' -f1) $(sch_pkts "$tmp/back" dst | cut -d' ' -f1)|$(sch_summary "$tmp/back" bad_hcsum) $(sch_summary "$tmp/back" bad_len)"
	ndp_lib_expect_eq "$v bridged: FDB keeps the sender's MAC on t1 only" \
		t1 "$(fdb_ports "$h1mac")"
	sch_release
done

kill "$mon_pid"
wait "$mon_pid" 2>/dev/null
ndp_lib_expect_eq "FDB never moved the sender's MAC to tr" "" \
	"$(grep -i "^$h1mac dev tr " "$tmp/monitor")"
ndp_lib_expect_eq "receiver's MAC learned on tr only" tr \
	"$(fdb_ports "$(ip -n "$ns_rx" -br link show dev eth0 | awk '{ print $3 }')")"
ndp_lib_check "ping across the bridge after the returns" \
	ip netns exec "$ns_rx" ping -c 2 -W 2 10.0.100.2
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
