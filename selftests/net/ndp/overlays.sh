#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NDP over the links and stacked devices hosts are joined by (issue 26;
# "Deploying NDP" in ndp.rst), tried as a new user would: two namespaces
# joined by one kind of link, SIZE (8 MB) from the client to the server,
# checked by SHA-256 at both ends, over TCP (the baseline), native NDP
# and NDP in UDP, IPv4 and IPv6 inside the link.  The cells:
#
#   veth            a veth pair, MTU 1500;
#   vxlan4/-nocsum  VXLAN over an IPv4 underlay, UDP checksums on / off;
#   vxlan6/-nocsum  VXLAN over an IPv6 underlay, UDP checksums on / zero
#                   (udp6zerocsumtx/rx);
#   geneve          Geneve over IPv4;
#   bond-xor        two veth pairs bonded at both ends, balance-xor with
#                   xmit_hash_policy layer3+4;
#   bond-lacp       the same in 802.3ad (LACP, fast rate), once the
#                   aggregator carries traffic;
#   macvlan         a macvlan (bridge mode) on each end's veth;
#   ipvlan          an ipvlan (L2) on each end's veth;
#   bridge          the hosts on a Linux bridge in a third namespace with
#                   br_netfilter on and an nftables forward rule counting
#                   "meta l4proto 253" (it must see the native rows).
#
# The veths at the bottom of each cell stand for the wire: their
# segmentation and GRO offloads are off, so what they send is what a NIC
# would put on a cable.  For every row a packet socket on them
# (ndp_wiresize.py) counts the frames each end sent: the data went out in
# full-size frames, none longer than the link's MTU, none an IP fragment,
# and IP fragmented nothing (FragCreates, both ends).  NDP rows also check
# the mode they ran in (EncapOutPkts moved in UDP only).
#
#   NDP_OVERLAYS_CELLS="veth bridge"   run only these cells
#   NDP_OVERLAYS_SIZE=8M               bytes per row (2M on debug kernels)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"
[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "runs its own TCP rows"
xfer_setup
ndp_lib_require_cmd python3 ethtool sysctl nft
PORT=9253
case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) size=${NDP_OVERLAYS_SIZE:-2M} ;;
*) size=${NDP_OVERLAYS_SIZE:-8M} ;;
esac
bytes=$(xfer_bytes "$size")
cells=${NDP_OVERLAYS_CELLS:-veth vxlan4 vxlan4-nocsum vxlan6 vxlan6-nocsum geneve bond-xor bond-lacp macvlan ipvlan bridge}
rows="tcp4 ndp4 udp4 tcp6 ndp6 udp6"

# Two points per row, the bridge's counter, no splat.
ndp_lib_plan $(($(echo "$cells" | wc -w) * 2 * $(echo "$rows" | wc -w) + 1 +
		$(echo "$cells" | grep -cw bridge)))

# wire NS DEV...: DEVs are wires: no segmentation or GRO offload.
wire()
{
	local ns=$1 d f
	shift
	for d in "$@"; do
		for f in tso gso gro tx-gso-list tx-udp-segmentation \
			 tx-udp_tnl-segmentation tx-udp_tnl-csum-segmentation; do
			ip netns exec "$ns" ethtool -K "$d" "$f" off 2>/dev/null
		done
		ip netns exec "$ns" ethtool -k "$d" |
			grep -q '^generic-segmentation-offload: off' || return 1
	done
}

# veth_wire NS_A NS_B IF [MTU]: a veth pair IF-IF made a wire.
veth_wire()
{
	ndp_topo_link "$1" "$3" "$2" "$3" "${4:-1500}" || return 1
	wire "$1" "$3" && wire "$2" "$3"
}

# addrs DEV: the hosts' addresses (10.0.1.1/2, fd00:1::1/2) on DEV.
addrs()
{
	ip -n "$ns_a" addr add 10.0.1.1/24 dev "$1" || return 1
	ip -n "$ns_b" addr add 10.0.1.2/24 dev "$1" || return 1
	ip -n "$ns_a" addr add fd00:1::1/64 dev "$1" nodad || return 1
	ip -n "$ns_b" addr add fd00:1::2/64 dev "$1" nodad
}

# --- the cells: each sets ns_a, ns_b, wires_a, wires_b -----------------
cell_veth()
{
	veth_wire "$ns_a" "$ns_b" eth0 && addrs eth0
	wires_a=eth0 wires_b=eth0
}

# tunnel KIND UNDERLAY(4|6) OPTS...: a tunnel "tun0" over a wire eth0.
tunnel()
{
	local kind=$1 u=$2 la lb
	shift 2
	veth_wire "$ns_a" "$ns_b" eth0 || return 1
	if [ "$u" = 4 ]; then
		la=10.9.0.1 lb=10.9.0.2
		ip -n "$ns_a" addr add $la/24 dev eth0
		ip -n "$ns_b" addr add $lb/24 dev eth0
	else
		la=fd09::1 lb=fd09::2
		ip -n "$ns_a" addr add $la/64 dev eth0 nodad
		ip -n "$ns_b" addr add $lb/64 dev eth0 nodad
	fi
	# The tunnel's MTU: the wire's less what the encapsulation takes.
	ip -n "$ns_a" link add tun0 mtu $((1500 - 50 - 20 * (u == 6))) \
		type "$kind" id 42 remote $lb "$@" || return 1
	ip -n "$ns_b" link add tun0 mtu $((1500 - 50 - 20 * (u == 6))) \
		type "$kind" id 42 remote $la "$@" || return 1
	ip -n "$ns_a" link set tun0 up
	ip -n "$ns_b" link set tun0 up
	addrs tun0
	wires_a=eth0 wires_b=eth0
}
cell_vxlan4()		{ tunnel vxlan 4 dstport 4789 udpcsum; }
cell_vxlan4_nocsum()	{ tunnel vxlan 4 dstport 4789 noudpcsum; }
cell_vxlan6()		{ tunnel vxlan 6 dstport 4789 udpcsum; }
cell_vxlan6_nocsum()	{ tunnel vxlan 6 dstport 4789 udp6zerocsumtx udp6zerocsumrx; }
cell_geneve()		{ tunnel geneve 4; }

# bond MODE OPTS...: bond0 over two wires e0, e1 at each end.
bond()
{
	local ns
	veth_wire "$ns_a" "$ns_b" e0 && veth_wire "$ns_a" "$ns_b" e1 || return 1
	for ns in "$ns_a" "$ns_b"; do
		ip -n "$ns" link add bond0 type bond mode "$@" miimon 100 || return 1
		ip -n "$ns" link set e0 down
		ip -n "$ns" link set e1 down
		ip -n "$ns" link set e0 master bond0 || return 1
		ip -n "$ns" link set e1 master bond0 || return 1
		ip -n "$ns" link set bond0 up
	done
	addrs bond0
	wires_a="e0 e1" wires_b="e0 e1"
}
cell_bond_xor()		{ bond balance-xor xmit_hash_policy layer3+4; }
cell_bond_lacp()	{ bond 802.3ad lacp_rate fast xmit_hash_policy layer3+4; }

# upper KIND OPTS...: an upper device "up0" of that kind on each end's
# wire eth0, which has no address.
upper()
{
	local ns
	veth_wire "$ns_a" "$ns_b" eth0 || return 1
	for ns in "$ns_a" "$ns_b"; do
		ip -n "$ns" link add up0 link eth0 type "$@" || return 1
		ip -n "$ns" link set up0 up
	done
	addrs up0
	wires_a=eth0 wires_b=eth0
}
cell_macvlan()		{ upper macvlan mode bridge; }
cell_ipvlan()		{ upper ipvlan mode l2; }

cell_bridge()
{
	local f
	ndp_topo_ns_new ns_br || return 1
	modprobe br_netfilter 2>/dev/null
	ndp_topo_link "$ns_a" eth0 "$ns_br" pa 1500 || return 1
	ndp_topo_link "$ns_b" eth0 "$ns_br" pb 1500 || return 1
	wire "$ns_a" eth0 && wire "$ns_b" eth0 && wire "$ns_br" pa pb || return 1
	ip -n "$ns_br" link add br0 type bridge || return 1
	ip -n "$ns_br" link set pa master br0
	ip -n "$ns_br" link set pb master br0
	ip -n "$ns_br" link set br0 up
	for f in iptables ip6tables; do
		ip netns exec "$ns_br" sysctl -qw net.bridge.bridge-nf-call-$f=1 || return 1
	done
	ip netns exec "$ns_br" nft -f - <<-EOF || return 1
	table inet ndpcount {
		chain ndpfwd {
			type filter hook forward priority 0; policy accept;
			meta l4proto 253 counter
		}
	}
	EOF
	addrs eth0
	wires_a=eth0 wires_b=eth0
}

# bridge_count: packets the bridge namespace's "meta l4proto 253" rule saw.
bridge_count()
{
	ip netns exec "$ns_br" nft list chain inet ndpcount ndpfwd |
		awk '/l4proto/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

# --- the rows ------------------------------------------------------------
# frags NS: IPv4 and IPv6 fragments IP created in NS.
frags()
{
	# shellcheck disable=SC2016 # awk's own variables
	ip netns exec "$1" awk '
		$1 == "Ip:" && !h { for (i = 2; i <= NF; i++) c[$i] = i; h = 1; next }
		$1 == "Ip:" { s += $c["FragCreates"] }
		$1 == "Ip6FragCreates" { s += $2 }
		END { print s + 0 }' /proc/net/snmp /proc/net/snmp6
}

# size_start NS WIRES...: count NS's frames on its wires (ndp_wiresize.py)
# into $XFER_TMP/ws.NS until size_stop.
size_start()
{
	local ns=$1 out=$XFER_TMP/ws.$1
	shift
	ip netns exec "$ns" python3 "$NDP_LIB_DIR/ndp_wiresize.py" 1500 "$@" \
		>"$out" 2>&1 &
	echo $! >"$out.pid"
	xfer_wait_file "$out" ready 30
}

# size_stop NS: end NS's count (not in a subshell: it waits for its
# child); size_result NS: its line "full=N over=M frag=F max=L".
size_stop()
{
	local pid

	pid=$(cat "$XFER_TMP/ws.$1.pid")
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

size_result()
{
	grep '^full=' "$XFER_TMP/ws.$1"
}

# field LINE NAME: NAME=VALUE's value in LINE.
field()
{
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# row CELL ROW: one transfer and its two test points.
row()
{
	local cell=$1 r=$2 proto fam addr port=0 name before after
	local ra rb full over frag max f0 f1 want mode=ok
	case "$r" in
	tcp*) proto=tcp ;;
	ndp*) proto=ndp ;;
	udp*) proto=ndp port=$PORT ;;
	esac
	fam=${r#???}
	[ "$fam" = 4 ] && addr=10.0.1.2 || addr=fd00:1::2
	name="$cell: ${r%?} v$fam"
	if [ "$proto" = ndp ]; then
		ip netns exec "$ns_a" sysctl -qw net.ndp.udp_port=$port &&
		ip netns exec "$ns_b" sysctl -qw net.ndp.udp_port=$port ||
			mode="could not set net.ndp.udp_port=$port"
	fi
	f0=$(( $(frags "$ns_a") + $(frags "$ns_b") ))
	before=$(xfer_stats "$ns_a")
	# shellcheck disable=SC2086 # lists of devices
	if ! size_start "$ns_a" $wires_a || ! size_start "$ns_b" $wires_b; then
		ndp_lib_fail "$name, $size intact" "ndp_wiresize.py did not start: $(cat "$XFER_TMP"/ws.* | head -n 5)"
		ndp_lib_fail "$name, on the wire" "no count"
		return 0
	fi
	XFER_PROTO=$proto ndp_lib_check "$name, $size intact" \
		xfer_run "$ns_a" "$ns_b" "$addr" "$fam" "$size" 0 1 300
	size_stop "$ns_a"
	size_stop "$ns_b"
	ra=$(size_result "$ns_a")
	rb=$(size_result "$ns_b")
	after=$(xfer_stats "$ns_a")
	f1=$(( $(frags "$ns_a") + $(frags "$ns_b") ))
	if [ -z "$ra" ] || [ -z "$rb" ]; then
		ndp_lib_fail "$name, on the wire" "no count: $(cat "$XFER_TMP/ws.$ns_a" "$XFER_TMP/ws.$ns_b" | head -n 5)"
		return 0
	fi
	full=$(( $(field "$ra" full) + $(field "$rb" full) ))
	over=$(( $(field "$ra" over) + $(field "$rb" over) ))
	frag=$(( $(field "$ra" frag) + $(field "$rb" frag) + f1 - f0 ))
	max=$(field "$ra" max)
	# At least half of the data in full-size frames: the capture saw it.
	want=$((bytes / 1500 / 2))
	if [ "$proto" = ndp ]; then
		local enc
		enc=$(xfer_delta "$before" "$after" "$ns_a" EncapOutPkts)
		if [ "$port" = 0 ] && [ "$enc" != 0 ]; then
			mode="native, yet EncapOutPkts moved by $enc"
		elif [ "$port" != 0 ] && [ "$enc" = 0 ]; then
			mode="in UDP, yet EncapOutPkts did not move"
		fi
	fi
	if [ "$full" -ge "$want" ] && [ "$over" = 0 ] && [ "$frag" = 0 ] &&
	   [ "$mode" = ok ]; then
		ndp_lib_pass "$name, on the wire"
		ndp_lib_info "$name: $full full-size frames, longest $max bytes"
	else
		ndp_lib_fail "$name, on the wire" \
			"full-size frames $full (want >= $want), above the MTU $over, fragments $frag (want 0 and 0), longest $max; mode: $mode"
	fi
}

cell()
{
	local c=$1 r n
	ndp_topo_cleanup
	wires_a='' wires_b=''
	if ndp_topo_ns_new ns_a ns_b && "cell_${c//-/_}" >"$XFER_TMP/cell.log" 2>&1 &&
	   ndp_lib_wait $((30 * 1000)) ip netns exec "$ns_a" ping -c 1 -W 1 10.0.1.2 >/dev/null &&
	   ndp_lib_wait $((30 * 1000)) ip netns exec "$ns_a" ping -6 -c 1 -W 1 fd00:1::2 >/dev/null; then
		for r in $rows; do
			row "$c" "$r"
		done
	else
		n=$(($(echo "$rows" | wc -w) * 2))
		ndp_lib_fail "$c: topology" "could not build it or ping across: $(tail -n 3 "$XFER_TMP/cell.log")"
		for r in $(seq 2 "$n"); do
			ndp_lib_fail "$c: point $r" "no topology"
		done
		[ "$c" = bridge ] && ndp_lib_fail "bridge: nftables counter" "no topology"
		return 0
	fi
	if [ "$c" = bridge ]; then
		ndp_lib_expect_ge "bridge: the nftables rule counted native NDP (meta l4proto 253)" \
			$((bytes / 1500 / 2)) "$(bridge_count)"
	fi
}

for c in $cells; do
	cell "$c"
done

ndp_lib_check "no kernel splat" ndp_lib_dmesg_clean
ndp_lib_done
