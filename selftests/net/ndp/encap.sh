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
#   sums          a second transfer at the learnt MTU: the UDP checksum is
#                 left to the devices (veth carries it unsummed) and covers
#                 the payload, so the receiver sums no payload: fewer than
#                 one skb_checksum() call (kprobe hits, the whole guest)
#                 per ten packets received, where NDP used to sum each;
#                 with the sender's checksum offload off (ethtool tx off)
#                 the transfer is intact, every captured datagram carries
#                 a UDP checksum that verifies and UDP counts no checksum
#                 error;
#   refused       a receiver without udp_port answers the datagrams with
#                 ICMP port unreachable: the connection fails with
#                 ECONNREFUSED (the ICMP's soft error), not ETIMEDOUT.
#
# Spreading through ECMP by UDP source port is in spray.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"
[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP in UDP is NDP-only"
xfer_setup
ndp_lib_require_cmd python3 sysctl ethtool ndp_pktgen
DP="python3 $NDP_LIB_DIR/ndp_dp.py"
PORT=9253
case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) size=${NDP_ENCAP_SIZE:-1M} ssize=512K ;;
*) size=${NDP_ENCAP_SIZE:-4M} ssize=1M ;;
esac

ndp_topo_ns_new ns_k || ndp_lib_skip_all "cannot create a namespace"
if ! ip netns exec "$ns_k" sysctl -qw net.ndp.udp_port=$PORT 2>"$XFER_TMP/eo"; then
	grep -q 'not supported' "$XFER_TMP/eo" &&
		ndp_lib_skip_all "this kernel has no UDP tunnels (CONFIG_NET_UDP_TUNNEL)"
fi
ip netns exec "$ns_k" sysctl -qw net.ndp.udp_port=0

ndp_lib_plan 31

# skb_checksum() calls, the software sums of a payload on its way (UDP's
# own verification and skb_checksum_help() included).
kprobe=0
ndp_lib_kprobe_add sum skb_checksum && kprobe=1

# udp_csum_errs NS: UDP's InCsumErrors, IPv4 and IPv6.
udp_csum_errs()
{
	ip netns exec "$1" awk '
	$1 == "Udp:" { if (!c) { for (i = 2; i <= NF; i++) if ($i == "InCsumErrors") c = i }
		       else s += $c }
	$1 == "Udp6InCsumErrors" { s += $2 }
	END { print s + 0 }' /proc/net/snmp /proc/net/snmp6
}

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
	sums "$fa" "$3" "$dst"
}

# sums FAMILY MTU DST: transfers at the learnt MTU (the first one re-cut
# what was queued when the route shrank, summing each new packet).
sums()
{
	local fa=$1 dst=$3 before after h d n e
	before=$(xfer_stats "$ns_rx")
	h=$(ndp_lib_kprobe_hits sum)
	ndp_lib_check "v$fa in UDP at mtu $2: transfer intact" \
		xfer_run "$ns_h1" "$ns_rx" "$dst" "$fa" "$ssize" 0
	after=$(xfer_stats "$ns_rx")
	d=$(xfer_delta "$before" "$after" "$ns_rx" InPkts)
	if [ $kprobe = 1 ]; then
		h=$(($(ndp_lib_kprobe_hits sum) - h))
		ndp_lib_check "v$fa: the receiver summed no payload ($h skb_checksum calls, $d packets)" \
			test $((h * 10)) -lt "$d"
	else
		ndp_lib_skip "v$fa: the receiver summed no payload" "no kprobe on skb_checksum"
	fi

	# A sender whose device does not offload checksums: the checksum is
	# on the wire.
	ip netns exec "$ns_h1" ethtool -K eth0 tx off >/dev/null 2>&1
	ip netns exec "$ns_rx" ndp_pktgen recv --dev eth0 --udp $PORT \
		--count 40 --timeout-ms 60000 --idle-ms 10000 \
		>"$XFER_TMP/cap" 2>"$XFER_TMP/cap.err" &
	n=$!
	ndp_lib_wait 5000 grep -qs receiving "$XFER_TMP/cap.err"
	e=$(udp_csum_errs "$ns_rx")
	ndp_lib_check "v$fa in UDP, sender's tx checksum offload off: transfer intact" \
		xfer_run "$ns_h1" "$ns_rx" "$dst" "$fa" "$ssize" 0
	wait "$n"
	ip netns exec "$ns_h1" ethtool -K eth0 tx on >/dev/null 2>&1
	ndp_lib_expect_eq "v$fa: 40 datagrams captured, each with a UDP checksum that verifies" \
		40 "$(grep -c '^pkt .* ucsum=ok$' "$XFER_TMP/cap")"
	ndp_lib_expect_eq "v$fa: UDP found no bad checksum (InCsumErrors)" \
		"$e" "$(udp_csum_errs "$ns_rx")"
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
