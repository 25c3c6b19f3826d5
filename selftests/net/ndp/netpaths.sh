#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NDP in the networks hosts really sit in (issue 26; "Deploying NDP" in
# ndp.rst): each cell moves bytes checked by SHA-256 at both ends and
# checks the counter that went wrong before the fix.
#
#   nat   client -- NAT (nftables masquerade, conntrack) -- server, the
#         server with no route to the client's network: NDP in UDP, the
#         client with net.ndp.udp_fixed_sport; two connections both ways
#         intact, the masquerade rule matched, no header checksum error at
#         either end (InCsumErrs: every packet failed before, as NDP's
#         header checksum covered the addresses NAT rewrote) and the
#         server answered at the port it saw (EncapOutPkts).  Native NDP
#         through a NAT cannot work (NAT rewrites addresses under the
#         native checksum and cannot tell NDP connections apart): not
#         tested;
#   vrf   both hosts' links in a VRF (table 10), sockets bound to it
#         (ndp_xfer -D): native NDP v4 and v6, and NDP in UDP v4 and v6
#         with net.ipv4.udp_l3mdev_accept=1, intact, no InErrs at the
#         receiver (the first packets were dropped as INVALID_PROTO: the
#         unicast check looked the peer up in the main table) and, in UDP,
#         no UDP NoPorts; and native v6 with a listener bound to no device
#         (its connections looked their routes up in the main table);
#   mtu   a 1500-byte device with a 1450-byte route to the peer, no router
#         to send ICMP: 8 MB each way v4 and v6 (and v4 in UDP) intact,
#         OutFragmented 0 at both ends (the packet size comes from the
#         route's MTU at connect() and at the passive open);
#   vxlan the issue's case: a VXLAN device of MTU 1500 over a 1500-byte
#         underlay, its peer's 1450.  The device lowers the inner route's
#         path MTU to 1450 for the first packet it cannot carry, and sends
#         no ICMP: 8 MB intact, PmtuRoute moved and OutFragmented at most
#         two initial windows (the packets cut and sent before the route
#         changed, and their resends); before the fix NDP kept its 1500-byte
#         packets and IP fragmented nearly all of them (5745 of 5889).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"
[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP-only (TCP needs none of this)"
xfer_setup
ndp_lib_require_cmd sysctl
PORT=9253
case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) size=${NDP_NETPATHS_SIZE:-1M}; big=${NDP_NETPATHS_BIG:-2M} ;;
*) size=${NDP_NETPATHS_SIZE:-2M}; big=${NDP_NETPATHS_BIG:-8M} ;;
esac

ndp_lib_plan 34

# udp_noports NS: the namespace's Udp NoPorts counter (/proc/net/snmp).
udp_noports()
{
	ip netns exec "$1" awk '$1 == "Udp:" && $2 ~ /^[0-9]/ { print $3 }' /proc/net/snmp
}

# udp_ports NS: NDP in UDP in that namespace (skips the script where the
# kernel has no UDP tunnels).
udp_ports()
{
	local ns

	for ns in "$@"; do
		ip netns exec "$ns" sysctl -qw net.ndp.udp_port=$PORT || return 1
	done
}

# --- NAT -------------------------------------------------------------
nat()
{
	local before after nft
	ndp_topo_ns_new ns_c ns_n ns_s || return 1
	ndp_topo_link "$ns_c" eth0 "$ns_n" in 1500 || return 1
	ndp_topo_link "$ns_s" eth0 "$ns_n" out 1500 || return 1
	ip -n "$ns_c" addr add 192.168.7.2/24 dev eth0
	ip -n "$ns_n" addr add 192.168.7.1/24 dev in
	ip -n "$ns_n" addr add 10.0.2.254/24 dev out
	ip -n "$ns_s" addr add 10.0.2.1/24 dev eth0
	ip -n "$ns_c" route add default via 192.168.7.1
	# The server knows only its own subnet: it can answer the NAT alone.
	ip netns exec "$ns_n" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$ns_n" nft -f - <<-EOF || return 1
	table ip nat {
		chain post {
			type nat hook postrouting priority srcnat; policy accept;
			oifname "out" counter masquerade
		}
	}
	EOF
	udp_ports "$ns_c" "$ns_s" || return 1
	ndp_lib_check "nat: the client sends from udp_port (udp_fixed_sport=1)" \
		ip netns exec "$ns_c" sysctl -qw net.ndp.udp_fixed_sport=1
	before=$(xfer_stats "$ns_c" "$ns_s")
	ndp_lib_check "nat: 2 connections in UDP through masquerade, both ways intact" \
		xfer_run "$ns_c" "$ns_s" 10.0.2.1 4 "$size" "$size" 2
	after=$(xfer_stats "$ns_c" "$ns_s")
	nft=$(ip netns exec "$ns_n" nft list chain ip nat post | awk '/masquerade/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }')
	ndp_lib_expect_ge "nat: the masquerade rule translated the flow" 1 "${nft:-0}"
	xfer_expect_delta "nat: no header checksum errors at the server (InCsumErrs)" \
		"$before" "$after" "$ns_s" 0 InCsumErrs
	xfer_expect_delta "nat: no header checksum errors at the client (InCsumErrs)" \
		"$before" "$after" "$ns_c" 0 InCsumErrs
	xfer_expect_moved "nat: the server sent in UDP (EncapOutPkts)" \
		"$before" "$after" "$ns_s" EncapOutPkts
}
if ! command -v nft >/dev/null 2>&1; then
	for t in "the client sends from udp_port (udp_fixed_sport=1)" \
		 "2 connections in UDP through masquerade, both ways intact" \
		 "the masquerade rule translated the flow" \
		 "no header checksum errors at the server (InCsumErrs)" \
		 "no header checksum errors at the client (InCsumErrs)" \
		 "the server sent in UDP (EncapOutPkts)"; do
		ndp_lib_skip "nat: $t" "no nft command"
	done
else
	nat || ndp_lib_fail "nat: topology" "could not build it (nft, conntrack, NAT modules?)"
fi

# --- VRF -------------------------------------------------------------
# vrf_pair: $ns_a and $ns_b joined by eth0, each eth0 in VRF "blue"
# (table 10) with the addresses of ndp_topo_pair: the main tables
# have no route to the peer.
vrf_pair()
{
	local ns i=1

	ndp_topo_ns_new ns_a ns_b || return 1
	ndp_topo_link "$ns_a" eth0 "$ns_b" eth0 1500 || return 1
	for ns in "$ns_a" "$ns_b"; do
		ip -n "$ns" link add blue type vrf table 10 || return 1
		ip -n "$ns" link set blue up
		# Enslaving cycles the link: IPv6 addresses come after.
		ip -n "$ns" link set eth0 master blue || return 1
		ip -n "$ns" addr add 10.0.1.$i/24 dev eth0
		ip -n "$ns" addr add fd00:1::$i/64 dev eth0 nodad
		ip netns exec "$ns" sysctl -qw net.ipv4.udp_l3mdev_accept=1
		i=$((i + 1))
	done
}

# vrf_cell NAME FAMILY ADDR [SERVER_DEV]: one transfer each way in the
# VRF (the server's sockets bound to SERVER_DEV, default the VRF), InErrs
# 0 at both ends, no UDP NoPorts.
vrf_cell()
{
	local name=$1 fa=$2 addr=$3 sdev=${4-blue} before after nb na
	before=$(xfer_stats "$ns_a" "$ns_b")
	nb=$(( $(udp_noports "$ns_a") + $(udp_noports "$ns_b") ))
	XFER_SERVER_DEV=$sdev XFER_CLIENT_DEV=blue \
		ndp_lib_check "vrf: $name, both ways intact" \
		xfer_run "$ns_a" "$ns_b" "$addr" "$fa" "$size" "$size"
	after=$(xfer_stats "$ns_a" "$ns_b")
	na=$(( $(udp_noports "$ns_a") + $(udp_noports "$ns_b") ))
	ndp_lib_expect_eq "vrf: $name, no InErrs at either end" "0 0" \
		"$(xfer_delta "$before" "$after" "$ns_a" InErrs) $(xfer_delta "$before" "$after" "$ns_b" InErrs)"
	ndp_lib_expect_eq "vrf: $name, no UDP NoPorts" 0 $((na - nb))
}
vrf()
{
	if ! vrf_pair; then
		ndp_lib_fail "vrf: topology" "no VRF device (CONFIG_NET_VRF)?"
		return 0
	fi
	vrf_cell "native v4" 4 10.0.1.2
	vrf_cell "native v6" 6 fd00:1::2
	# A listener bound to no device: its connections route in the VRF
	# their first packet came in.
	vrf_cell "native v6, listener unbound" 6 fd00:1::2 ""
	udp_ports "$ns_a" "$ns_b" || return 1
	vrf_cell "UDP v4" 4 10.0.1.2
	vrf_cell "UDP v6" 6 fd00:1::2
}
vrf

# --- a route MTU below the device MTU ----------------------------------
mtu_cell()
{
	local name=$1 fa=$2 addr=$3 before after
	before=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_check "mtu: $name, $big each way intact" \
		xfer_run "$ns_a" "$ns_b" "$addr" "$fa" "$big" "$big" 1 600
	after=$(xfer_stats "$ns_a" "$ns_b")
	xfer_expect_delta "mtu: $name, OutFragmented 0 at the client" \
		"$before" "$after" "$ns_a" 0 OutFragmented
	xfer_expect_delta "mtu: $name, OutFragmented 0 at the server" \
		"$before" "$after" "$ns_b" 0 OutFragmented
}

mtu()
{
	NDP_MTU=1500 ndp_topo_pair || return 1
	ip -n "$ns_a" route add 10.0.1.2/32 dev eth0 mtu 1450
	ip -n "$ns_b" route add 10.0.1.1/32 dev eth0 mtu 1450
	ip -n "$ns_a" -6 route add fd00:1::2/128 dev eth0 mtu 1450
	ip -n "$ns_b" -6 route add fd00:1::1/128 dev eth0 mtu 1450
	mtu_cell v4 4 10.0.1.2
	mtu_cell v6 6 fd00:1::2
	udp_ports "$ns_a" "$ns_b" || return 1
	mtu_cell "UDP v4" 4 10.0.1.2
}
mtu || ndp_lib_fail "mtu: topology"

vxlan()
{
	local before after iw
	ndp_topo_ns_new ns_a ns_b || return 1
	ndp_topo_link "$ns_a" eth0 "$ns_b" eth0 1500 || return 1
	ip -n "$ns_a" addr add 10.9.0.1/24 dev eth0
	ip -n "$ns_b" addr add 10.9.0.2/24 dev eth0
	# No lower device: MTU 1500 whatever the underlay carries.
	ip -n "$ns_a" link add vx0 mtu 1500 type vxlan id 42 remote 10.9.0.2 \
		dstport 4789 || return 1
	ip -n "$ns_b" link add vx0 type vxlan id 42 remote 10.9.0.1 \
		dstport 4789 dev eth0 || return 1
	ip -n "$ns_a" link set vx0 up
	ip -n "$ns_b" link set vx0 up
	ip -n "$ns_a" addr add 10.0.1.1/24 dev vx0
	ip -n "$ns_b" addr add 10.0.1.2/24 dev vx0
	iw=$(ip netns exec "$ns_a" sysctl -n net.ndp.init_window)
	before=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_check "vxlan: route MTU lowered by the device, $big intact" \
		xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 "$big" 0 1 600
	after=$(xfer_stats "$ns_a" "$ns_b")
	xfer_expect_moved "vxlan: the packet size followed the route (PmtuRoute)" \
		"$before" "$after" "$ns_a" PmtuRoute
	ndp_lib_expect_le "vxlan: OutFragmented at most two initial windows" \
		$((2 * iw)) "$(xfer_delta "$before" "$after" "$ns_a" OutFragmented)"
}
vxlan || ndp_lib_fail "vxlan: topology" "no VXLAN device (CONFIG_VXLAN)?"

ndp_lib_check "no kernel splat" ndp_lib_dmesg_clean
ndp_lib_done
