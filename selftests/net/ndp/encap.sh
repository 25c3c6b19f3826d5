#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NDP carried in UDP (net.ndp.udp_port, net/ndp/encap.c; the format in
# ndp-wire.rst "NDP in UDP"):
#
#   knob          default 0; 70000 and a port another UDP socket holds are
#                 refused (sysctl and netlink) and change nothing; a set
#                 port is held by NDP in IPv4 and IPv6 (an application
#                 cannot bind it) and free again once reset to 0;
#   v4 / v6       hosts behind a router whose link towards the receiver has
#                 a smaller MTU (9000 -> 1500, 1500 -> 1280), both with
#                 udp_port set: the transfer completes sha256-intact, every
#                 NDP packet either host received came in UDP (InPkts moved
#                 exactly as EncapInPkts) and the sender sent in UDP
#                 (EncapOutPkts); the router's ICMP "fragmentation needed"
#                 / "packet too big" quoting a UDP datagram reached the
#                 connection (PmtuEvents moved, the route learnt the MTU);
#   refused       a receiver without udp_port answers the datagrams with
#                 ICMP port unreachable: the connection fails with
#                 ECONNREFUSED (the ICMP's soft error), not ETIMEDOUT.
#
# Spreading through ECMP by UDP source port is in spray.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"
[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP in UDP is NDP-only"
xfer_setup
ndp_lib_require_cmd python3 sysctl
DP="python3 $NDP_LIB_DIR/ndp_dp.py"
PORT=9253
case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) size=${NDP_ENCAP_SIZE:-1M} ;;
*) size=${NDP_ENCAP_SIZE:-4M} ;;
esac

ndp_topo_ns_new ns_k || ndp_lib_skip_all "cannot create a namespace"
if ! ip netns exec "$ns_k" sysctl -qw net.ndp.udp_port=$PORT 2>"$XFER_TMP/eo"; then
	grep -q 'not supported' "$XFER_TMP/eo" &&
		ndp_lib_skip_all "this kernel has no UDP tunnels (CONFIG_NET_UDP_TUNNEL)"
fi
ip netns exec "$ns_k" sysctl -qw net.ndp.udp_port=0

ndp_lib_plan 21

# bind_udp NS FAMILY PORT: whether an application can bind the port.
bind_udp()
{
	ip netns exec "$1" python3 -c '
import socket, sys
fa = socket.AF_INET if sys.argv[1] == "4" else socket.AF_INET6
s = socket.socket(fa, socket.SOCK_DGRAM)
if fa == socket.AF_INET6:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s.bind(("", int(sys.argv[2])))' "$2" "$3" 2>/dev/null
}

# --- the knob ---
knob()
{
	local ns=$ns_k hold
	ndp_lib_expect_eq "udp_port defaults to 0" 0 \
		"$(ip netns exec "$ns" sysctl -n net.ndp.udp_port)"
	ndp_lib_check "udp_port=70000 refused" \
		bash -c "! ip netns exec $ns sysctl -qw net.ndp.udp_port=70000 2>/dev/null"
	ip netns exec "$ns" python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("", 9300))
print("bound", flush=True)
time.sleep(60)' >"$XFER_TMP/hold" 2>&1 &
	hold=$!
	xfer_wait_file "$XFER_TMP/hold" bound 10
	ip netns exec "$ns" sysctl -w net.ndp.udp_port=9300 >/dev/null 2>"$XFER_TMP/inuse"
	ndp_lib_check "a port another socket holds: sysctl fails with EADDRINUSE" \
		grep -q 'Address already in use' "$XFER_TMP/inuse"
	ndp_lib_check "... and so does ndpctl param set" \
		bash -c "! ip netns exec $ns ndpctl param set udp_port 9300 2>/dev/null"
	kill "$hold" 2>/dev/null
	wait "$hold" 2>/dev/null
	ndp_lib_expect_eq "refused writes changed nothing" 0 \
		"$(ip netns exec "$ns" sysctl -n net.ndp.udp_port)"
	ip netns exec "$ns" ndpctl param set udp_port $PORT
	ndp_lib_expect_eq "ndpctl param set udp_port $PORT" $PORT \
		"$(ip netns exec "$ns" sysctl -n net.ndp.udp_port)"
	ndp_lib_check "the port is NDP's in IPv4 and IPv6" \
		bash -c "! bind_udp $ns 4 $PORT && ! bind_udp $ns 6 $PORT"
	ip netns exec "$ns" sysctl -qw net.ndp.udp_port=0
	ndp_lib_check "reset to 0: the port is free again" \
		bash -c "bind_udp $ns 4 $PORT && bind_udp $ns 6 $PORT"
}
export -f bind_udp
knob

# encap FAMILY HOST_MTU NARROW_MTU DST
encap()
{
	local fa=$1 dst=$4 before after d
	NDP_MTU=$2 ndp_topo_switch 1 || return 1
	ip -n "$ns_sw" link set tr mtu "$3"
	ip netns exec "$ns_h1" sysctl -qw net.ndp.udp_port=$PORT || return 1
	ip netns exec "$ns_rx" sysctl -qw net.ndp.udp_port=$PORT || return 1
	# Until every link has its qdisc (link-watch), packets are dropped.
	ndp_lib_wait 5000 ndp_lib_links_up "$ns_sw" "$ns_h1" "$ns_rx"
	before=$(xfer_stats "$ns_h1" "$ns_rx")
	ndp_lib_check "v$fa in UDP, $2 -> $3: transfer intact" \
		xfer_run "$ns_h1" "$ns_rx" "$dst" "$fa" "$size" 0
	after=$(xfer_stats "$ns_h1" "$ns_rx")
	xfer_expect_moved "v$fa: the sender sent in UDP (EncapOutPkts)" \
		"$before" "$after" "$ns_h1" EncapOutPkts
	d="$(xfer_delta "$before" "$after" "$ns_rx" InPkts) $(xfer_delta "$before" "$after" "$ns_h1" InPkts)"
	ndp_lib_expect_eq "v$fa: all NDP either host received came in UDP (InPkts rx tx)" \
		"$d" "$(xfer_delta "$before" "$after" "$ns_rx" EncapInPkts) $(xfer_delta "$before" "$after" "$ns_h1" EncapInPkts)"
	ndp_lib_info "v$fa: InPkts (receiver, sender) $d"
	xfer_expect_moved "v$fa: the router's ICMP reached the connection (PmtuEvents)" \
		"$before" "$after" "$ns_h1" PmtuEvents
	if [ "$fa" = 4 ]; then
		ndp_lib_check "v4 route learnt mtu $3" \
			bash -c "ip -n $ns_h1 route get $dst | grep -q 'mtu $3'"
	else
		ndp_lib_check "v6 route learnt mtu $3" \
			bash -c "ip -n $ns_h1 -6 route get $dst | grep -q 'mtu $3'"
	fi
}
encap 4 9000 1500 10.0.100.1 || ndp_lib_fail "v4 topology"
encap 6 1500 1280 fd00:100::1 || ndp_lib_fail "v6 topology"

# A sender in UDP, a receiver without the port.
refused()
{
	local before after
	NDP_MTU=9000 ndp_topo_switch 1 || return 1
	ip netns exec "$ns_h1" sysctl -qw net.ndp.udp_port=$PORT \
		net.ndp.rto_max_us=500000 || return 1
	before=$(xfer_stats "$ns_h1")
	ndp_lib_check "receiver without udp_port: ECONNREFUSED, not ETIMEDOUT" \
		ip netns exec "$ns_h1" $DP unreach 4 10.0.100.1 "$(xfer_next_port)" ECONNREFUSED
	after=$(xfer_stats "$ns_h1")
	xfer_expect_moved "receiver without udp_port: IcmpSoftErrors moved" \
		"$before" "$after" "$ns_h1" IcmpSoftErrors
}
refused || ndp_lib_fail "refused topology"
ndp_lib_check "no kernel splat" ndp_lib_dmesg_clean
ndp_lib_done
