#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Spraying through a standard ECMP fabric with IPv6 flow labels, no ndpctl
# path configured (path.c, "Flow-label paths"), on the k=4 fat-tree of
# fabric_lib.sh (its switches hash the flow label, policy 3):
#
#   unsprayed      net.ndp.spray_paths=1: one IPv6 connection's DATA
#                  crosses a single core (today's behaviour);
#   one connection spray_paths=32: the same transfer's DATA crosses at
#                  least three cores (each at least 5 % of it);
#   spread         16 connections, 512 KB each: every core's share of the
#                  DATA lies within 15 percentage points of every other's
#                  (max - min <= 15; a 6.1 kernel has no per-switch hash
#                  seed, so a pod reaches only half of the cores there:
#                  checked as "more than one core");
#   first window   16 connections of 64 KB (every packet carries SYN): their
#                  DATA crosses every core (each at least 10 %; 6.1: more
#                  than one);
#   late SYN       the receiver drops the first packet of a connection
#                  (SYN, syn_off 0) with a tc u32 filter until it has seen
#                  it: the connection opens on a later SYN packet
#                  (LateSynOpens moves) and the transfer arrives intact;
#   in UDP         net.ndp.udp_port on every host (NDP carried in UDP, the
#                  switches' sch_ndp with the same udp-port; their hash
#                  covers UDP ports): 16 IPv4 and then 16 IPv6 connections
#                  of 512 KB, every core's share within 15 points (6.1:
#                  more than one core), IPv4 first windows over every
#                  core, and a 4:1 incast from other racks that the
#                  switches trim (InTrimmed at the receiver), all intact,
#                  with no path configured;
#   blackhole      mid-transfer, the core that carried most of the pair's
#                  DATA drops everything towards the receiver's pod once
#                  about four packets went that way (an nftables quota):
#                  the transfer completes intact, and
#                  the sender's scoreboards exclude labels (PathExcluded).
#
#   FABRIC_RATE    link rate in Mbit/s (default 20, as fabric.sh; divided
#                  by NDP_TIME_FACTOR on a kernel that many times slower,
#                  whose senders did not fill the incast's port at 20).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"
# The fabric is a tool of the project (tools/lib), installed with the
# tools (/ndp/bin in the guest) or beside the tests by "make install".
ndp_lib_source_tool fabric_lib.sh

xfer_setup
ndp_lib_require_cmd tc sysctl
ndp_lib_load_modules ndp sch_ndp

FABRIC_PREFIX="sp$(printf '%04x' $RANDOM)-"
export FABRIC_PREFIX
ndp_lib_at_exit "fabric_destroy"
rate=${FABRIC_RATE:-$((20 / NDP_TIME_FACTOR))}

ndp_lib_plan 26

UDP_PORT=9253
export FABRIC_TOPO=fattree FABRIC_K=4 FABRIC_RATE=$rate FABRIC_CORE_ADDRS=0 \
	FABRIC_UDP_PORT=$UDP_PORT
if fabric_build >"$XFER_TMP/build.out" 2>&1; then
	ndp_lib_pass "fat-tree k=4 builds"
else
	ndp_lib_fail "fat-tree k=4 builds" "fabric_build failed"
	sed 's/^/#   /' "$XFER_TMP/build.out"
	ndp_lib_done
fi
fabric_hosts_sysctl net.ndp.link_rate_mbps="${rate%.*}"
# Spreading alone is measured first: no label may be excluded meanwhile.
fabric_hosts_sysctl net.ndp.sb_nack_abs_pct=100
# The retransmission timer runs at its defaults: it comes from RTT samples
# (rtt.c).  (With the old 20 ms constant the first runs of this test
# resent most packets by RTO for nothing, 545 of 702 DATA packets, and
# such a resent SYN packet that waited out the receiver's 1 s time-wait
# behind them in the sender's 1000-packet NIC queue opened a second
# connection; it ran with rto_min_us 250 ms.)  Time-wait stays sized for
# this fabric: at 20 Mbit/s a sender's 1000-packet NIC queue holds 3.6 s
# of 9000-byte packets, longer than the default 1 s.
fabric_hosts_sysctl net.ndp.time_wait_ms=10000

# Per-switch hash seeds (6.11+) let every pod reach every core.
seeded=0
[ -e /proc/sys/net/ipv4/fib_multipath_hash_seed ] && seeded=1

# top_ndp_data DEV: per core, NDP DATA packets sch_ndp sent out of port
# DEV (towards one pod).
top_ndp_data()
{
	local ns
	for ns in $(fabric_top_switches); do
		tc -n "$ns" -s -j qdisc show dev "$1" |
			awk '{ if (match($0, /"data_pkts":[0-9]+/)) printf "%s ", substr($0, RSTART + 12, RLENGTH - 12); else printf "0 "; exit }'
	done
}

# cores BEFORE AFTER MODE [ARG]: judge per-core DATA counts.
#   one        exactly one core moved by more than 100, no other moved
#   min K PCT  at least K cores carried PCT % of the total or more
#   range PP   max share - min share <= PP percentage points
cores()
{
	awk -v b="$1" -v a="$2" -v mode="$3" -v x="$4" -v y="$5" 'BEGIN {
		n = split(b, u, " "); split(a, v, " ")
		printf "per core:"
		for (i = 1; i <= n; i++) { d[i] = v[i] - u[i]; t += d[i]; printf " %d", d[i] }
		if (t < 50) { printf " (too few)\n"; exit 1 }
		lo = 100; hi = 0
		for (i = 1; i <= n; i++) {
			s = 100 * d[i] / t
			if (s < lo) lo = s
			if (s > hi) hi = s
			if (d[i] > 100) big++
			if (d[i] > 0) moved++
			if (s >= y) k++
		}
		printf " (shares %.1f..%.1f %%)\n", lo, hi
		if (mode == "one") exit !(big == 1 && moved == 1)
		if (mode == "min") exit k < x
		if (mode == "range") exit hi - lo > x
		exit 1 }'
}

# busiest BEFORE AFTER: index of the core that moved most.
busiest()
{
	awk -v b="$1" -v a="$2" 'BEGIN {
		n = split(b, u, " "); split(a, v, " "); m = -1
		for (i = 1; i <= n; i++) if (v[i] - u[i] > m) { m = v[i] - u[i]; c = i - 1 }
		print c }'
}

snd=$(fabric_host_ns 4)
rcv=$(fabric_host_ns 11)	# pod 2
dst=$(fabric_host_ip6 11)

# counters NAME BEFORE AFTER: what the sender and receiver saw (info).
counters()
{
	local c out=''
	for c in OutData Rtos RtxTimeout RtxNack RtxOtherPath PathExcluded; do
		out+=" $c $(xfer_delta "$2" "$3" "$snd" "$c")"
	done
	out+=" | receiver:"
	for c in InData InTrimmed InDups PassiveOpens LateSynOpens ReplayRejected; do
		out+=" $c $(xfer_delta "$2" "$3" "$rcv" "$c")"
	done
	ndp_lib_info "$1, sender:$out"
}

# --- unsprayed: today's behaviour ---
ip netns exec "$snd" sysctl -qw net.ndp.spray_paths=1
d0=$(top_ndp_data p2)
s0=$(xfer_stats "$snd" "$rcv")
ndp_lib_check "spray_paths=1: NDP 1 MB over IPv6 intact" \
	xfer_run "$snd" "$rcv" "$dst" 6 1M 0
s1=$(xfer_stats "$snd" "$rcv")
counters "spray_paths=1" "$s0" "$s1"
d1=$(top_ndp_data p2)
ndp_lib_check "spray_paths=1: its DATA crossed a single core" cores "$d0" "$d1" one
ndp_lib_info "spray_paths=1: $(cores "$d0" "$d1" one)"

# --- one sprayed connection ---
ip netns exec "$snd" sysctl -qw net.ndp.spray_paths=32
ndp_lib_expect_eq "no ndpctl path configured" "" "$(ip netns exec "$snd" ndpctl path show)"
d0=$(top_ndp_data p2)
s0=$(xfer_stats "$snd" "$rcv")
ndp_lib_check "spray_paths=32: NDP 1 MB over IPv6 intact" \
	xfer_run "$snd" "$rcv" "$dst" 6 1M 0
s1=$(xfer_stats "$snd" "$rcv")
counters "spray_paths=32" "$s0" "$s1"
d1=$(top_ndp_data p2)
if [ $seeded = 1 ]; then
	ndp_lib_check "spray_paths=32: one connection's DATA crossed three cores or more" \
		cores "$d0" "$d1" min 3 5
else
	ndp_lib_check "spray_paths=32: one connection's DATA crossed more than one core" \
		cores "$d0" "$d1" min 2 5
fi
ndp_lib_info "spray_paths=32, one connection: $(cores "$d0" "$d1" min 3 5)"

# --- 16 connections ---
d0=$(top_ndp_data p2)
s0=$(xfer_stats "$snd" "$rcv")
ndp_lib_check "16 sprayed connections, 512 KB each, intact" \
	xfer_run "$snd" "$rcv" "$dst" 6 512K 0 16
s1=$(xfer_stats "$snd" "$rcv")
counters "16 x 512 KB" "$s0" "$s1"
d1=$(top_ndp_data p2)
if [ $seeded = 1 ]; then
	ndp_lib_check "16 connections: core shares within 15 points" cores "$d0" "$d1" range 15
else
	ndp_lib_check "16 connections: more than one core (6.1: no per-switch seed)" \
		cores "$d0" "$d1" min 2 5
fi
ndp_lib_info "16 connections: $(cores "$d0" "$d1" range 15)"
hot=$(busiest "$d0" "$d1")

# --- first windows only ---
d0=$(top_ndp_data p2)
s0=$(xfer_stats "$snd" "$rcv")
ndp_lib_check "16 connections of one first window each, intact" \
	xfer_run "$snd" "$rcv" "$dst" 6 64K 0 16
s1=$(xfer_stats "$snd" "$rcv")
counters "16 x 64 KB" "$s0" "$s1"
d1=$(top_ndp_data p2)
if [ $seeded = 1 ]; then
	ndp_lib_check "first windows: every core carried 10 % or more" cores "$d0" "$d1" min 4 10
else
	ndp_lib_check "first windows: more than one core (6.1: no per-switch seed)" \
		cores "$d0" "$d1" min 2 5
fi
ndp_lib_info "first windows: $(cores "$d0" "$d1" min 4 10)"

# --- NDP in UDP: spread by UDP source ports, IPv4 and IPv6 ---
udp_spread()
{
	local fa=$1 addr=$2 d0 d1 s0 s1
	d0=$(top_ndp_data p2)
	s0=$(xfer_stats "$snd" "$rcv")
	ndp_lib_check "in UDP: 16 IPv$fa connections, 512 KB each, intact" \
		xfer_run "$snd" "$rcv" "$addr" "$fa" 512K 0 16
	s1=$(xfer_stats "$snd" "$rcv")
	counters "in UDP, IPv$fa, 16 x 512 KB" "$s0" "$s1"
	ndp_lib_check "in UDP, IPv$fa: everything received came in UDP" \
		test "$(xfer_delta "$s0" "$s1" "$rcv" InPkts)" = \
		"$(xfer_delta "$s0" "$s1" "$rcv" EncapInPkts)" -a \
		"$(xfer_delta "$s0" "$s1" "$rcv" InPkts)" -gt 0
	d1=$(top_ndp_data p2)
	if [ $seeded = 1 ]; then
		ndp_lib_check "in UDP, IPv$fa: core shares within 15 points" \
			cores "$d0" "$d1" range 15
	else
		ndp_lib_check "in UDP, IPv$fa: more than one core (6.1: no per-switch seed)" \
			cores "$d0" "$d1" min 2 5
	fi
	ndp_lib_info "in UDP, IPv$fa: $(cores "$d0" "$d1" range 15)"
}
# at_barrier FILE N: N clients wait at xfer_run's start barrier FILE.
at_barrier()
{
	local n=$2

	set -- "$1".*
	[ -e "$1" ] && [ $# -ge "$n" ]
}

# Four senders in other racks, eight connections each, to the receiver: four
# links' worth of first windows meet at its edge switch's port, whose
# 8-packet queue trims (one sender's 16 connections share its own link
# and seldom trim at all).
udp_incast()
{
	local h pids=() rc=0 base go=$XFER_TMP/incast.go
	base=$(xfer_next_port)
	# The switches trim only where first windows overlap (later data is
	# pulled, and a sender pushes no window on top of its own packets
	# in flight): eight connections per sender.  The four senders must
	# overlap too: each starts
	# one "ip netns exec" after the other (seconds on a loaded guest), so
	# all wait at a start barrier until the last one is ready.
	for h in 0 1 5 8; do
		XFER_START=$go XFER_PORT=$((base + 100 + h)) xfer_run "$(fabric_host_ns "$h")" "$rcv" \
			"$(fabric_host_ip4 11)" 4 128K 0 8 >"$XFER_TMP/incast.$h" 2>&1 &
		pids+=($!)
	done
	ndp_lib_wait 60000 at_barrier "$go" 4 ||
		echo "not all senders reached the start barrier"
	touch "$go"
	for h in "${pids[@]}"; do
		wait "$h" || rc=1
	done
	xfer_stats "$rcv" >"$XFER_TMP/incast.stats"
	[ $rc = 0 ] || cat "$XFER_TMP"/incast.[0-9]*
	return $rc
}
if fabric_hosts_sysctl net.ndp.udp_port=$UDP_PORT; then
	ndp_lib_expect_eq "in UDP: no ndpctl path configured" "" \
		"$(ip netns exec "$snd" ndpctl path show)"
	udp_spread 4 "$(fabric_host_ip4 11)"
	udp_spread 6 "$dst"
	d0=$(top_ndp_data p2)
	ndp_lib_check "in UDP: 16 IPv4 first windows, intact" \
		xfer_run "$snd" "$rcv" "$(fabric_host_ip4 11)" 4 64K 0 16
	d1=$(top_ndp_data p2)
	if [ $seeded = 1 ]; then
		ndp_lib_check "in UDP: IPv4 first windows, every core 10 % or more" \
			cores "$d0" "$d1" min 4 10
	else
		ndp_lib_check "in UDP: IPv4 first windows, more than one core" \
			cores "$d0" "$d1" min 2 5
	fi
	ndp_lib_info "in UDP, first windows: $(cores "$d0" "$d1" min 4 10)"
	is0=$(xfer_stats "$rcv")
	ndp_lib_check "in UDP: 4:1 incast from other racks, intact" udp_incast
	xfer_expect_moved "in UDP: the switches trimmed it, the receiver got the headers" \
		"$is0" "$(cat "$XFER_TMP/incast.stats")" "$rcv" InTrimmed
	fabric_hosts_sysctl net.ndp.udp_port=0
else
	for _ in $(seq 11); do
		ndp_lib_skip "in UDP" "net.ndp.udp_port refused (no UDP tunnels?)"
	done
fi

# --- a connection opened by a later SYN packet ---
# Receiver's ingress: drop IPv6 NDP (next header 253) DATA (type 1 at
# 40 + 4) with SYN (flags bit 0 at 40 + 6) and syn_off 0 (40 + 16).
# filter_hit NS: the drop filter has dropped a packet.  u32's own "success"
# count needs CONFIG_CLS_U32_PERF, which the debug kernels lack (there the
# wait ran to its deadline and the filter kept dropping the first
# packet's resends); the drop action's statistics come with any kernel
# that has the action.
filter_hit()
{
	tc -n "$1" -s filter show dev eth0 ingress |
		grep -qE 'success [1-9]|Sent [0-9]+ bytes [1-9][0-9]* pkt'
}

late_syn()
{
	local lso0 lso1 pid hit=0 f=$XFER_TMP/late.out
	local cns ns dst13
	cns=$(fabric_host_ns 0)
	ns=$(fabric_host_ns 13)
	dst13=$(fabric_host_ip6 13)
	tc -n "$ns" qdisc add dev eth0 clsact || return 1
	tc -n "$ns" filter add dev eth0 ingress pref 10 protocol ipv6 u32 \
		match u8 253 0xff at 6 match u8 1 0xff at 44 \
		match u16 0x0001 0x0001 at 46 match u32 0 0xffffffff at 56 \
		action drop || return 1
	lso0=$(ndp_lib_stat "$ns" LateSynOpens)
	xfer_run "$cns" "$ns" "$dst13" 6 64K 0 >"$f" 2>&1 &
	pid=$!
	ndp_lib_wait 20000 filter_hit "$ns" 2>/dev/null && hit=1
	tc -n "$ns" qdisc del dev eth0 clsact
	wait "$pid" || { echo "transfer failed:"; cat "$f"; return 1; }
	lso1=$(ndp_lib_stat "$ns" LateSynOpens)
	echo "first packet dropped: $hit, LateSynOpens $lso0 -> $lso1" | tee -a "$f"
	[ $hit = 1 ] && [ "$lso1" -gt "$lso0" ]
}
ndp_lib_check "first packet dropped: a later SYN opens the connection, intact" late_syn
ndp_lib_info "$(tail -n 1 "$XFER_TMP"/late.out 2>/dev/null)"

# --- a blackholed core link mid-transfer ---
# Judged after two losses, and excluded for the rest of the transfer.
# The core drops everything towards pod 2 once about four packets
# (MTU 9000) went that way during the transfer: an nftables quota in its
# forward hook, so that "mid-transfer" does not depend on how fast the
# guest polls a counter (a netem qdisc put in place after polling
# OutData could miss a transfer that finished first).
# The scoreboard forgets over sb_decay_ms (100 ms by default): on a kernel
# NDP_TIME_FACTOR times slower, whose links here are as many times slower
# too, two losses of one label come that many times squared further
# apart (the debug kernel excluded nothing at 100 ms): the decay is
# stretched by both (100 ms at factor 1, the default).
ip netns exec "$snd" sysctl -qw net.ndp.spray_paths=16 net.ndp.sb_nack_abs_pct=30 \
	net.ndp.sb_min_samples=2 net.ndp.sb_exclude_ms=60000 \
	net.ndp.sb_decay_ms=$((100 * NDP_TIME_FACTOR * NDP_TIME_FACTOR))
core="${FABRIC_PREFIX}c$hot"
ex0=$(ndp_lib_stat "$snd" PathExcluded)
s0=$(xfer_stats "$snd" "$rcv")
# bh_drops: packets the core's blackhole dropped.
bh_drops()
{
	ip netns exec "$core" nft list chain inet ndp_bh blackhole 2>/dev/null |
		awk '/quota over/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}
blackhole()
{
	local f=$XFER_TMP/bh.out
	ip netns exec "$core" nft -f - <<-EOF || return 1
		table inet ndp_bh {
			chain blackhole {
				type filter hook forward priority 0; policy accept;
				oifname "p2" quota over 36000 bytes counter drop
			}
		}
	EOF
	xfer_run "$snd" "$rcv" "$dst" 6 4M 0 1 240 >"$f" 2>&1 ||
		{ echo "transfer failed:"; cat "$f"; return 1; }
}
ndp_lib_check "core $hot blackholed towards pod 2 mid-transfer: 4 MB intact" blackhole
ex1=$(ndp_lib_stat "$snd" PathExcluded)
s1=$(xfer_stats "$snd" "$rcv")
counters "blackhole" "$s0" "$s1"
bh=$(bh_drops)
ndp_lib_info "blackhole: ${bh:-?} packets dropped"
ndp_lib_check "the blackhole met the transfer and the scoreboard excluded labels (PathExcluded)" \
	test "${bh:-0}" -gt 0 -a "$ex1" -gt "$ex0"

ndp_lib_check "destroy" fabric_destroy
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
