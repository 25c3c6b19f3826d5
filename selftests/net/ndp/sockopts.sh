#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Socket options and routes on the data path, seen on the wire (packets
# captured with an AF_PACKET socket, ndp_dp.py cap):
#
#   tos/ttl v4, tclass/hops v6   DATA packets carry the IP_TOS / IPV6_TCLASS
#                     (its DSCP; the ECN bits are ECT(0), net.ndp.ecn)
#                     and IP_TTL / IPV6_UNICAST_HOPS the sender set; the
#                     sender looked its route up at most 5 times for the
#                     whole transfer (RouteLookups: the route is cached);
#   DF, IP_OPTIONS    IPv4 packets leave through __ip_queue_xmit(): with
#                     IP_MTU_DISCOVER at its default every IPv4 packet of
#                     the tos/ttl transfer carries DF, either way; IP
#                     options are refused (ENOPROTOOPT);
#   ctrl_dscp         with net.ndp.ctrl_dscp=46 at the receiver its ACKs and
#                     PULLs carry DSCP 46 (TOS 0xb8), without it TOS 0;
#   SO_MARK           an ip rule sends marked packets over the second link:
#                     the DATA leaves there, none on the main route's link;
#   SO_BINDTODEVICE   the same with the socket bound to the second link;
#   route change      mid-transfer (the sender paused half way), the route
#                     over link 1 is deleted, one over link 2 added and
#                     link 1 taken down: the transfer completes intact and
#                     its second half went over link 2 (the cached route
#                     was noticed stale);
#   device down/up    mid-transfer, the only link goes down for a second
#                     and comes back: the transfer completes intact.
#
# Topology: $ns_a and $ns_b joined by two veth pairs, eth0 (10.0.1.0/24,
# fd00:1::/64) and eth1 (10.0.2.0/24, fd00:2::/64); each host has a
# loopback address (10.9.9.1 / fd09::1 and 10.9.9.2 / fd09::2) routed over
# eth0 by default.
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd python3 ip sysctl
ndp_lib_load_modules ndp

DP="python3 $NDP_LIB_DIR/ndp_dp.py"
TMP=$(mktemp -d /tmp/ndp-sockopts.XXXXXX)
ndp_lib_at_exit "rm -rf $TMP"
port=$((20000 + RANDOM % 20000))
# Bytes per transfer (NDP_SOCKOPTS_SIZE): 8 MB, 2 MB on the debug kernel.
case "$(uname -r)" in
*-ndp-debug*) SIZE=${NDP_SOCKOPTS_SIZE:-$((2 * 1024 * 1024))} ;;
*) SIZE=${NDP_SOCKOPTS_SIZE:-$((8 * 1024 * 1024))} ;;
esac

topo()
{
	ndp_topo_ns_new ns_a ns_b || return 1
	ndp_topo_link "$ns_a" eth0 "$ns_b" eth0 || return 1
	ndp_topo_link "$ns_a" eth1 "$ns_b" eth1 || return 1
	for ns in "$ns_a" "$ns_b"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 || return 1
	done
	ip -n "$ns_a" addr add 10.0.1.1/24 dev eth0
	ip -n "$ns_b" addr add 10.0.1.2/24 dev eth0
	ip -n "$ns_a" addr add 10.0.2.1/24 dev eth1
	ip -n "$ns_b" addr add 10.0.2.2/24 dev eth1
	ip -n "$ns_a" addr add fd00:1::1/64 dev eth0 nodad
	ip -n "$ns_b" addr add fd00:1::2/64 dev eth0 nodad
	ip -n "$ns_a" addr add fd00:2::1/64 dev eth1 nodad
	ip -n "$ns_b" addr add fd00:2::2/64 dev eth1 nodad
	ip -n "$ns_a" addr add 10.9.9.1/32 dev lo
	ip -n "$ns_b" addr add 10.9.9.2/32 dev lo
	ip -n "$ns_a" addr add fd09::1/128 dev lo nodad
	ip -n "$ns_b" addr add fd09::2/128 dev lo nodad
	ip -n "$ns_a" route add 10.9.9.2 via 10.0.1.2 dev eth0 metric 10
	ip -n "$ns_b" route add 10.9.9.1 via 10.0.1.1 dev eth0 metric 10
	ip -n "$ns_a" -6 route add fd09::2 via fd00:1::2 dev eth0 metric 10
	ip -n "$ns_b" -6 route add fd09::1 via fd00:1::1 dev eth0 metric 10
	# A second, worse route over eth1 (for SO_BINDTODEVICE).
	ip -n "$ns_a" route add 10.9.9.2 via 10.0.2.2 dev eth1 metric 20
	ip -n "$ns_a" -6 route add fd09::2 via fd00:2::2 dev eth1 metric 20
	# Marked packets take eth1 (SO_MARK).
	ip -n "$ns_a" route add 10.9.9.2 via 10.0.2.2 dev eth1 table 100
	ip -n "$ns_a" -6 route add fd09::2 via fd00:2::2 dev eth1 table 100
	ip -n "$ns_a" rule add fwmark 7 lookup 100
	ip -n "$ns_a" -6 rule add fwmark 7 lookup 100
	sleep 0.5	# neighbours and IPv6 addresses settle
}

# cap_start NS FILE [IFNAME]: capture NDP packets in NS into FILE.
cap_start()
{
	ip netns exec "$1" $DP cap $3 >"$2" 2>&1 &
	echo $! >"$2.pid"
	ndp_lib_wait 5000 grep -q capturing "$2"
}

cap_stop()
{
	kill "$(cat "$1.pid")" 2>/dev/null
	wait "$(cat "$1.pid")" 2>/dev/null
	return 0
}

# xfer FAMILY DST NAME [OPT=VALUE...]: one transfer a -> b; the client's
# and server's lines in $TMP/NAME.{c,s}; fails unless both say ok with
# the same byte count and digest.
xfer()
{
	local fa=$1 dst=$2 name=$3 spid
	shift 3

	port=$((port + 1))
	ip netns exec "$ns_b" $DP server "$fa" "$port" >"$TMP/$name.s" 2>"$TMP/$name.se" &
	spid=$!
	ndp_lib_wait 5000 grep -q listening "$TMP/$name.se"
	ip netns exec "$ns_a" $DP client "$fa" "$dst" "$port" "$SIZE" "$@" >"$TMP/$name.c" 2>&1
	wait "$spid"
	read -r cs cn cd <"$TMP/$name.c"
	read -r ss sn sd <"$TMP/$name.s"
	if [ "$cs" != ok ] || [ "$ss" != ok ] || [ "$cn" != "$SIZE" ] ||
	   [ "$sn" != "$SIZE" ] || [ "$cd" != "$sd" ]; then
		echo "client: $(cat "$TMP/$name.c")"
		echo "server: $(cat "$TMP/$name.s" "$TMP/$name.se")"
		return 1
	fi
	return 0
}

# count FILE AWK-CONDITION: captured packets matching the condition
# ($1 dir, $2 dev, $3 family, $4 type, $5 flags, $6 tos, $7 ttl, $8 len).
count()
{
	awk "\$1 == \"in\" || \$1 == \"out\" { if ($2) n++ } END { print n + 0 }" "$1"
}

# DATA with payload (not a header sent alone): type 1, no TRIMMED flag.
IS_DATA='$4 == 1 && int($5 / 4) % 2 == 0'
IS_CTRL='($4 == 2 || $4 == 4)'

# tos_ttl FAMILY DST NAME: TOS and TTL of DATA and control packets.
tos_ttl()
{
	local fa=$1 dst=$2 name=$3 f=$TMP/$3.cap n bad lk0 od0 lk od

	cap_start "$ns_b" "$f" eth0 || return 1
	lk0=$(ndp_lib_stat "$ns_a" RouteLookups)
	od0=$(ndp_lib_stat "$ns_a" OutData)
	xfer "$fa" "$dst" "$name" tos=0x28 ttl=33
	local rc=$?
	cap_stop "$f"
	[ $rc -eq 0 ] || { ndp_lib_fail "$name transfer"; return 0; }
	lk=$(($(ndp_lib_stat "$ns_a" RouteLookups) - lk0))
	od=$(($(ndp_lib_stat "$ns_a" OutData) - od0))
	ndp_lib_info "$name: $od DATA sent, $lk route lookups"
	if [ "$od" -gt 100 ] && [ "$lk" -le 5 ]; then
		ndp_lib_pass "$name route cached"
	else
		ndp_lib_fail "$name route cached" "$lk lookups for $od DATA packets"
	fi
	n=$(count "$f" "\$1 == \"in\" && $IS_DATA")
	# DSCP 10 from the socket, ECN bits ECT(0) from net.ndp.ecn (the
	# ECN bits are the transport's, as TCP's): tos 0x2a.
	bad=$(count "$f" "\$1 == \"in\" && $IS_DATA && (\$6 != 42 || \$7 != 33)")
	ndp_lib_info "$name: $n DATA packets, $bad without tos 0x2a (0x28 + ECT(0)) / ttl 33"
	if [ "$n" -gt 100 ] && [ "$bad" -eq 0 ]; then
		ndp_lib_pass "$name DATA carry tos and ttl"
	else
		ndp_lib_fail "$name DATA carry tos and ttl" "$(head -n 5 "$f")"
	fi
	# The receiver's own control packets: DSCP 46, the knob is set there.
	n=$(count "$f" "\$1 == \"out\" && $IS_CTRL")
	bad=$(count "$f" "\$1 == \"out\" && $IS_CTRL && \$6 != 184")
	ndp_lib_info "$name: $n ACK/PULL packets, $bad without DSCP 46"
	if [ "$n" -gt 100 ] && [ "$bad" -eq 0 ]; then
		ndp_lib_pass "$name ctrl_dscp on ACK and PULL"
	else
		ndp_lib_fail "$name ctrl_dscp on ACK and PULL" "$(grep '^out' "$f" | head -n 5)"
	fi
}

# via_eth1 NAME OPT: the DATA of a transfer with OPT left over eth1 only.
via_eth1()
{
	local name=$1 f=$TMP/$1.cap n0 n1
	shift

	cap_start "$ns_a" "$f" || return 1
	xfer 4 10.9.9.2 "$name" src=10.9.9.1 "$@"
	local rc=$?
	cap_stop "$f"
	[ $rc -eq 0 ] || { ndp_lib_fail "$name transfer"; return 0; }
	n0=$(count "$f" "\$1 == \"out\" && \$2 == \"eth0\" && $IS_DATA")
	n1=$(count "$f" "\$1 == \"out\" && \$2 == \"eth1\" && $IS_DATA")
	ndp_lib_info "$name: DATA out eth0 $n0, eth1 $n1"
	if [ "$n0" -eq 0 ] && [ "$n1" -gt 100 ]; then
		ndp_lib_pass "$name steers DATA to eth1"
	else
		ndp_lib_fail "$name steers DATA to eth1" "eth0 $n0, eth1 $n1"
	fi
}

route_change()
{
	local f=$TMP/rc.cap d=$TMP/rc.pause n0 n1 xpid

	mkdir -p "$d"
	port=$((port + 10))	# the subshell's xfer cannot move it for us
	cap_start "$ns_a" "$f" || return 1
	(
		xfer 4 10.9.9.2 rc src=10.9.9.1 pause="$d"
		echo $? >"$d/rc"
	) &
	xpid=$!
	if ! xfer_wait "$d/half"; then
		ndp_lib_fail "route change transfer" "never reached half way"
		wait "$xpid"
		cap_stop "$f"
		return 0
	fi
	# Everything from now on goes over eth1; eth0 is gone.
	ip -n "$ns_a" route del 10.9.9.2 via 10.0.1.2 dev eth0
	ip -n "$ns_b" route replace 10.9.9.1 via 10.0.2.1 dev eth1 metric 10
	ip -n "$ns_a" link set eth0 down
	touch "$d/go"
	wait "$xpid"
	cap_stop "$f"
	ndp_lib_check "route change transfer intact" test "$(cat "$d/rc")" = 0
	# Before the change every DATA packet took eth0 (the better route).
	n0=$(count "$f" "\$1 == \"out\" && \$2 == \"eth0\" && $IS_DATA")
	n1=$(count "$f" "\$1 == \"out\" && \$2 == \"eth1\" && $IS_DATA")
	ndp_lib_info "DATA over eth0 (before the change): $n0, over eth1 (after): $n1"
	ndp_lib_expect_ge "second half over the new route" 50 "$n1"
	ip -n "$ns_a" link set eth0 up
	ip -n "$ns_b" route replace 10.9.9.1 via 10.0.1.1 dev eth0 metric 10
	sleep 0.5
	ip -n "$ns_a" route add 10.9.9.2 via 10.0.1.2 dev eth0 metric 10
}

dev_flap()
{
	local fa=$1 dst=$2 name=$3 d=$TMP/$3.pause xpid

	mkdir -p "$d"
	port=$((port + 10))
	(
		xfer "$fa" "$dst" "$name" pause="$d"
		echo $? >"$d/rc"
	) &
	xpid=$!
	if ! xfer_wait "$d/half"; then
		ndp_lib_fail "$name transfer intact" "never reached half way"
		wait "$xpid"
		return 0
	fi
	touch "$d/go"
	ip -n "$ns_a" link set eth0 down
	sleep 1
	ip -n "$ns_a" link set eth0 up
	wait "$xpid"
	ndp_lib_check "$name transfer intact" test "$(cat "$d/rc")" = 0
}

xfer_wait()
{
	ndp_lib_wait 30000 test -e "$1"
}

ndp_lib_plan 16
topo || ndp_lib_skip_all "topology setup failed"
ip netns exec "$ns_b" sysctl -qw net.ndp.ctrl_dscp=46

tos_ttl 4 10.0.1.2 v4
tos_ttl 6 fd00:1::2 v6

# IPv4 output through __ip_queue_xmit(): DF by IP_MTU_DISCOVER's default,
# on DATA and control packets both ways (none was resent after a PMTU
# drop here); no room for IP options.
ndp_lib_expect_eq "v4 packets carry DF" 0 \
	"$(count "$TMP/v4.cap" "(\$1 == \"in\" || \$1 == \"out\") && \$9 != 1")"
# 253: the module's default protocol number (ndp_lib_load_modules).
ndp_lib_check "IP_OPTIONS refused with ENOPROTOOPT" \
	ip netns exec "$ns_a" python3 -c '
import errno, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 253)
try:
    s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, bytes([1, 1, 1, 0]))
except OSError as e:
    sys.exit(0 if e.errno == errno.ENOPROTOOPT else 1)
sys.exit(1)'

# Without the knob, control packets keep the receiving socket's TOS (0).
ip netns exec "$ns_b" sysctl -qw net.ndp.ctrl_dscp=0
f=$TMP/nodscp.cap
cap_start "$ns_b" "$f" eth0
xfer 4 10.0.1.2 nodscp tos=0x28
cap_stop "$f"
ndp_lib_expect_eq "ctrl_dscp 0 leaves ACK and PULL at tos 0" 0 \
	"$(count "$f" "\$1 == \"out\" && $IS_CTRL && \$6 != 0")"
ndp_lib_check "ctrl_dscp rejects 64" \
	bash -c "! ip netns exec $ns_b sysctl -qw net.ndp.ctrl_dscp=64 2>/dev/null"

via_eth1 mark mark=7
via_eth1 bindtodevice dev=eth1
route_change
dev_flap 4 10.0.1.2 flap-v4
ndp_lib_check "no kernel splat" ndp_lib_dmesg_clean
ndp_lib_done
