#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path MTU: a sender and a receiver behind a router namespace whose link
# towards the receiver has a smaller MTU than the hosts' links.  The
# sender's first packets are too big; the router answers with ICMP
# "fragmentation needed" (IPv4, 9000 -> 1500) or "packet too big" (IPv6,
# 1500 -> 1280):
#
#   v4 / v6 transfer    completes sha256-intact (ndp_xfer) and the sender's
#                       PmtuEvents counter moved; its route learnt the MTU;
#   v4 / v6 re-cut      the same paths, the whole transfer in one send()
#                       into a 2 MB send buffer (rto_min_us 200 ms, so
#                       that no RTO probe leaves while it copies): the
#                       buffer fills before the first window leaves, so
#                       the ICMP finds packets queued at the old size and
#                       never sent.  They are cut again at the new size
#                       (PmtuRecut moves) and only packets sent before the
#                       ICMP leave as IP fragments: OutFragmented stays
#                       within the first window (plus one as a margin)
#                       plus the retransmissions of any cause (no timing
#                       in it); the transfer is sha256-intact;
#   spoofed ICMP        a forged "fragmentation needed" (MTU 1000) quoting
#                       the ports of a live connection with a wrong nonce
#                       changes nothing: IcmpIgnored moves, PmtuEvents does
#                       not, the route keeps its MTU, the transfer
#                       completes intact;
#   host unreachable    a connection to an address the router cannot
#                       resolve fails with EHOSTUNREACH (the ICMP's soft
#                       error), not ETIMEDOUT; IcmpSoftErrors moved;
#   transient, orphan   v4 / v6: 2 MB written at once and closed; the
#                       router sends two packets from its 1.5th MB on to
#                       an unreachable route (fwmark rule), and so answers
#                       them with ICMP unreachable.  The writer is an
#                       orphan by then, and one soft error must not end
#                       it (as TCP, only once its RTO is at the ceiling):
#                       IcmpSoftErrors moved, OrphanTimeouts did not, all
#                       2 MB arrive, at the default knobs.  (A corrupt
#                       IPv6 address draws such an ICMP: gro.sh's netem.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "the PMTU counters are NDP-only"
xfer_setup
ndp_lib_require_cmd python3

DP="python3 $NDP_LIB_DIR/ndp_dp.py"
# Bytes per transfer (NDP_PMTU_SIZE): 4M, 1M on the debug kernel.
case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) size=${NDP_PMTU_SIZE:-1M} ;;
*) size=${NDP_PMTU_SIZE:-4M} ;;
esac

# pmtu FAMILY HOST_MTU NARROW_MTU DST
pmtu()
{
	local fa=$1 dst=$4 before after

	NDP_MTU=$2 ndp_topo_switch 1 || return 1
	ip -n "$ns_sw" link set tr mtu "$3"
	# Until every link has its qdisc (link-watch), packets are dropped.
	ndp_lib_wait 5000 ndp_lib_links_up "$ns_sw" "$ns_h1" "$ns_rx"
	before=$(xfer_stats "$ns_h1")
	ndp_lib_check "v$fa $2 -> $3: transfer intact" \
		xfer_run "$ns_h1" "$ns_rx" "$dst" "$fa" "$size" 0
	after=$(xfer_stats "$ns_h1")
	xfer_expect_moved "v$fa $2 -> $3: PmtuEvents moved" "$before" "$after" \
		"$ns_h1" PmtuEvents
	ndp_lib_info "v$fa: resent $(xfer_delta "$before" "$after" "$ns_h1" PmtuResent)," \
		"re-cut $(xfer_delta "$before" "$after" "$ns_h1" PmtuRecut)," \
		"retransmitted $(xfer_delta "$before" "$after" "$ns_h1" \
			PmtuResent RtxNack RtxTimeout RtsResent RtsResentPath)," \
		"fragmented $(xfer_delta "$before" "$after" "$ns_h1" OutFragmented)"
	if [ "$fa" = 4 ]; then
		ndp_lib_check "v4 route learnt mtu $3" \
			bash -c "ip -n $ns_h1 route get $dst | grep -q 'mtu $3'"
	else
		ndp_lib_check "v6 route learnt mtu $3" \
			bash -c "ip -n $ns_h1 -6 route get $dst | grep -q 'mtu $3'"
	fi
}

# recut FAMILY HOST_MTU NARROW_MTU DST
recut()
{
	local fa=$1 dst=$4 d=$XFER_TMP/recut$1 port spid before after
	local iw frag rtx

	port=$(xfer_next_port)
	mkdir -p "$d"
	NDP_MTU=$2 ndp_topo_switch 1 || return 1
	ip -n "$ns_sw" link set tr mtu "$3"
	# Until every link has its qdisc (link-watch), packets are dropped.
	ndp_lib_wait 5000 ndp_lib_links_up "$ns_sw" "$ns_h1" "$ns_rx"
	iw=$(ip netns exec "$ns_h1" sysctl -n net.ndp.init_window) || return 1
	# No RTO probe while send() still copies (slow kernels): a probe
	# would bring the ICMP before the buffer filled.
	ip netns exec "$ns_h1" sysctl -qw net.ndp.rto_min_us=200000 || return 1
	before=$(xfer_stats "$ns_h1")
	ip netns exec "$ns_rx" $DP server "$fa" "$port" >"$d/s" 2>"$d/se" &
	spid=$!
	xfer_wait_file "$d/se" listening 10
	ip netns exec "$ns_h1" $DP client "$fa" "$dst" "$port" \
		"$(xfer_bytes "$size")" sndbuf=1048576 chunk=0 >"$d/c" 2>&1
	wait "$spid"
	after=$(xfer_stats "$ns_h1")
	read -r cs cn cd <"$d/c"
	read -r ss sn sd <"$d/s"
	ndp_lib_check "v$fa $2 -> $3 in one send(): transfer intact" \
		test "$cs $ss $cn $cd" = "ok ok $sn $sd"
	xfer_expect_moved "v$fa $2 -> $3: unsent packets re-cut (PmtuRecut)" \
		"$before" "$after" "$ns_h1" PmtuRecut
	# What may leave as fragments: the first window (cut and sent before
	# the ICMP came; those behind the dropped one may leave after the
	# route learnt the MTU) and retransmissions, which keep their size.
	# One window more as a margin (an RTO probe racing the ICMP); without
	# re-cutting, hundreds of packets fragment.
	frag=$(xfer_delta "$before" "$after" "$ns_h1" OutFragmented)
	rtx=$(xfer_delta "$before" "$after" "$ns_h1" PmtuResent RtxNack \
		RtxTimeout RtsResent RtsResentPath)
	ndp_lib_info "v$fa one send(): first window $iw, retransmitted $rtx"
	ndp_lib_expect_le "v$fa $2 -> $3: only packets sent before the ICMP fragmented" \
		$((2 * iw + rtx)) "$frag"
}

spoofed()
{
	local d=$XFER_TMP/spoof port=$(xfer_next_port) spid cpid before after
	local sport=$((port + 1000))

	mkdir -p "$d"
	NDP_MTU=9000 ndp_topo_switch 1 || return 1
	# Until every link has its qdisc (link-watch), packets are dropped.
	ndp_lib_wait 5000 ndp_lib_links_up "$ns_sw" "$ns_h1" "$ns_rx"
	ip netns exec "$ns_rx" $DP server 4 "$port" >"$d/s" 2>"$d/se" &
	spid=$!
	xfer_wait_file "$d/se" listening 10
	ip netns exec "$ns_h1" $DP client 4 10.0.100.1 "$port" "$(xfer_bytes "$size")" \
		sport="$sport" pause="$d" >"$d/c" 2>&1 &
	cpid=$!
	ndp_lib_wait 30000 test -e "$d/half"
	before=$(xfer_stats "$ns_h1")
	# Any nonce but the connection's: 2^32 - 1 guesses out of 2^32 miss.
	ip netns exec "$ns_sw" $DP spoof 10.0.1.1 10.0.100.1 "$sport" "$port" \
		0x5eed5eed 1000 >/dev/null
	# The ICMP error is counted when it arrives: wait for that, not 0.5 s.
	ndp_lib_wait_stat "$ns_h1" IcmpIgnored \
		$(($(xfer_delta "" "$before" "$ns_h1" IcmpIgnored) + 1)) 10000
	after=$(xfer_stats "$ns_h1")
	touch "$d/go"
	wait "$cpid"
	wait "$spid"
	ndp_lib_expect_eq "spoofed ICMP: ignored" 1 \
		"$(xfer_delta "$before" "$after" "$ns_h1" IcmpIgnored)"
	ndp_lib_expect_eq "spoofed ICMP: no PMTU event" 0 \
		"$(xfer_delta "$before" "$after" "$ns_h1" PmtuEvents)"
	ndp_lib_check "spoofed ICMP: route mtu unchanged" \
		bash -c "! ip -n $ns_h1 route get 10.0.100.1 | grep -q 'mtu 1000'"
	read -r cs cn cd <"$d/c"
	read -r ss sn sd <"$d/s"
	ndp_lib_check "spoofed ICMP: transfer intact" \
		test "$cs $ss $cn $cd" = "ok ok $sn $sd"
}

# An unreachable host behind the router: its ICMP host unreachable (after
# the router's ARP gives up) is the connection's soft error, which the
# timeout reports instead of ETIMEDOUT, as TCP.
unreachable()
{
	local before after

	NDP_MTU=9000 ndp_topo_switch 1 || return 1
	ip netns exec "$ns_h1" sysctl -qw net.ndp.rto_max_us=500000 || return 1
	before=$(xfer_stats "$ns_h1")
	ndp_lib_check "host unreachable: EHOSTUNREACH, not ETIMEDOUT" \
		ip netns exec "$ns_h1" $DP unreach 4 10.0.100.99 "$(xfer_next_port)" EHOSTUNREACH
	after=$(xfer_stats "$ns_h1")
	xfer_expect_moved "host unreachable: IcmpSoftErrors moved" "$before" \
		"$after" "$ns_h1" IcmpSoftErrors
}

# transient FAMILY DST: see the top of this file.
transient()
{
	local fa=$1 dst=$2 port s0 s1 d=$XFER_TMP/transient$1 vpid
	local life="python3 $NDP_LIB_DIR/ndp_life.py"

	mkdir -p "$d"
	NDP_MTU=9000 ndp_topo_switch 1 || return 1
	ndp_lib_wait 5000 ndp_lib_links_up "$ns_sw" "$ns_h1" "$ns_rx"
	# A packet is counted before it is judged, a sender's batch whole
	# (up to 64 KB: it is forwarded unsegmented): 80 KB stops after a
	# batch or two, or eight 9000-byte packets.
	ip netns exec "$ns_sw" nft -f - <<-EOF || return 1
	table inet transient {
		chain pre {
			type filter hook prerouting priority mangle; policy accept;
			iifname "t1" meta l4proto 253 quota over 1536 kbytes quota until 80 kbytes counter meta mark set 0x99
		}
	}
	EOF
	ip -n "$ns_sw" -"$fa" rule add fwmark 0x99 table 99 || return 1
	ip -n "$ns_sw" -"$fa" route add unreachable default table 99 || return 1
	port=$(xfer_next_port)
	ip netns exec "$ns_rx" $life verify "$dst" "$port" 2097152 \
		>"$d/verify.out" 2>&1 &
	vpid=$!
	xfer_wait_file "$d/verify.out" listening 20 || cat "$d/verify.out"
	s0=$(xfer_stats "$ns_h1")
	timeout 60 ip netns exec "$ns_h1" $life chunks "$dst" "$port" \
		2097152 2097152 >"$d/chunks.out" 2>&1
	wait "$vpid"
	s1=$(xfer_stats "$ns_h1")
	ndp_lib_info "v$fa: $(ip netns exec "$ns_sw" nft list chain inet transient pre | grep -o 'counter packets [0-9]*')" \
		"sent to the unreachable route"
	ndp_lib_check "v$fa transient unreachable, orphan: all 2 MB arrive" \
		grep -q '^ok' "$d/verify.out"
	grep -q '^ok' "$d/verify.out" ||
		sed 's/^/#   /' "$d/verify.out" "$d/chunks.out"
	xfer_expect_moved "v$fa transient unreachable, orphan: a soft error" \
		"$s0" "$s1" "$ns_h1" IcmpSoftErrors
	xfer_expect_delta "v$fa transient unreachable, orphan: not reset" \
		"$s0" "$s1" "$ns_h1" 0 OrphanTimeouts
}

ndp_lib_plan 25
pmtu 4 9000 1500 10.0.100.1 || ndp_lib_fail "v4 topology"
pmtu 6 1500 1280 fd00:100::1 || ndp_lib_fail "v6 topology"
recut 4 9000 1500 10.0.100.1 || ndp_lib_fail "v4 re-cut topology"
recut 6 1500 1280 fd00:100::1 || ndp_lib_fail "v6 re-cut topology"
spoofed || ndp_lib_fail "spoof topology"
unreachable || ndp_lib_fail "unreachable topology"
if command -v nft >/dev/null 2>&1; then
	transient 4 10.0.100.1 || ndp_lib_fail "v4 transient topology"
	transient 6 fd00:100::1 || ndp_lib_fail "v6 transient topology"
else
	for f in 4 6; do
		for t in "all 2 MB arrive" "a soft error" "not reset"; do
			ndp_lib_skip "v$f transient unreachable, orphan: $t" "no nft"
		done
	done
fi
ndp_lib_check "no kernel splat" ndp_lib_dmesg_clean
ndp_lib_done
