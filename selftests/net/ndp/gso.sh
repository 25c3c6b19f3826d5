#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Segmentation offload (GSO): a sender whose route's device does software
# GSO (veth: "generic-segmentation-offload" on) sends runs of consecutive
# DATA packets as super-packets: the very packets it would have sent
# alone, each whole on a frag_list (net/ndp/offload.c), which veth and
# the local stack carry whole and a device or qdisc that needs single
# packets cuts.
#
#   gso on           transfers intact over IPv4 and IPv6, MTU 1500 and
#                    9000; OutGsoPkts and OutGsoSegs move at the sender,
#                    every super-packet crosses the veth whole (nothing cut
#                    at a: GsoSegments stays 0) and reaches the receive
#                    handler (InGsoPkts moves, InGsoSegs == the sender's
#                    OutGsoSegs); at MTU 9000 with
#                    data waiting for pulls (push window 2, pulls at
#                    1 Mbit/s), 64 KB writes leave full packets, not one
#                    short packet per write (OutTailFills);
#   multipath        two steered paths: transfers intact;
#   gso off          "ethtool -K eth0 gso off": no super-packets at all;
#   sch_ndp, sender  the sender's own egress runs sch_ndp with a tiny
#                    queue: super-packets are split at enqueue (xstats
#                    gso_split) and trimming happens per packet (receiver
#                    InTrimmed, NACKs), transfers intact;
#   switch, GRO on   a router namespace forwarding with GRO and rx-gro-list
#                    on its veths (so NDP's GRO callback sees every packet
#                    there and must build no batch: no local connection)
#                    and sch_ndp on the receiver's port: two senders, their
#                    super-packets forwarded whole and split by sch_ndp,
#                    trimmed per packet, transfers intact;
#   whole            super-packets delivered unsegmented over lo (tc
#                    mirred from its egress to its ingress) are taken apart
#                    by the receive handler (InGsoPkts), transfers intact;
#   gone             the namespaces deleted, ndp.ko unloads: no batch kept
#                    a socket's write memory.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

NDP_MTU=1500

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "GSO counters are NDP-only"
xfer_setup
ndp_lib_require_cmd ethtool tc sha256sum
ndp_lib_load_modules sch_ndp
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 43

A() { ip netns exec "$ns_a" "$@"; }

# sch_xstat NS DEV FIELD: a numeric field of sch_ndp's xstats.
sch_xstat()
{
	ip netns exec "$1" tc -s -j qdisc show dev "$2" |
		awk -v f="\"$3\":" '{ i = index($0, f); if (!i) { print 0; exit }
			s = substr($0, i + length(f)); print s + 0; exit }'
}

# gso_ratio BEFORE AFTER: more packets than super-packets at the sender.
gso_ratio()
{
	local p s
	p=$(xfer_delta "$1" "$2" "$ns_a" OutGsoPkts)
	s=$(xfer_delta "$1" "$2" "$ns_a" OutGsoSegs)
	echo "$p super-packets carried $s packets"
	[ "$p" -gt 0 ] && [ "$s" -gt "$p" ]
}

# gso_whole BEFORE AFTER [any]: every packet sent inside a super-packet
# reached b inside one (veth passes them whole and its queue drops
# nothing), and none was cut at a; some were sent, unless "any".
gso_whole()
{
	local s r c
	s=$(xfer_delta "$1" "$2" "$ns_a" OutGsoSegs)
	r=$(xfer_delta "$1" "$2" "$ns_b" InGsoSegs)
	c=$(xfer_delta "$1" "$2" "$ns_a" GsoSegments)
	echo "a: OutGsoSegs $s, GsoSegments $c; b: InGsoSegs $r"
	{ [ "$s" -gt 0 ] || [ "${3:-}" = any ]; } && [ "$s" = "$r" ] && [ "$c" = 0 ]
}

# --- GSO on (the default), MTU 1500 -----------------------------------------
A ethtool -k eth0 | grep -E '^(generic-segmentation-offload|scatter-gather):' | sed 's/^/# /'
s0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "mtu 1500: v4 1M a->b intact" xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 1M 0 1 120
ndp_lib_check "mtu 1500: v6 1M a->b intact" xfer_run "$ns_a" "$ns_b" fd00:1::2 6 1M 0 1 120
ndp_lib_check "mtu 1500: v4 512K both ways intact" \
	xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 512K 512K 1 120
s1=$(xfer_stats "$ns_a" "$ns_b")
xfer_expect_moved "a sent super-packets" "$s0" "$s1" "$ns_a" OutGsoPkts
ndp_lib_check "super-packets carry several packets" gso_ratio "$s0" "$s1"
ndp_lib_check "every super-packet crossed the veth whole" gso_whole "$s0" "$s1"
xfer_expect_moved "b received data" "$s0" "$s1" "$ns_b" InData
xfer_expect_moved "super-packets reached b's receive handler" "$s0" "$s1" \
	"$ns_b" InGsoPkts
xfer_expect_delta "no checksum errors at b" "$s0" "$s1" "$ns_b" 0 InCsumErrs InErrs
xfer_expect_delta "no IP fragments" "$s0" "$s1" "$ns_a" 0 OutFragmented

# --- MTU 9000 ------------------------------------------------------------------
mtu9000()
{
	A ip link set eth0 mtu 9000 && ip -n "$ns_b" link set eth0 mtu 9000
}
ndp_lib_check "mtu 9000 set" mtu9000
s0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "mtu 9000: v4 2M a->b intact" xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 2M 0 1 120
ndp_lib_check "mtu 9000: v6 2M a->b intact" xfer_run "$ns_a" "$ns_b" fd00:1::2 6 2M 0 1 120
s1=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "mtu 9000: super-packets carry several packets" gso_ratio "$s0" "$s1"
ndp_lib_check "mtu 9000: every super-packet crossed the veth whole" \
	gso_whole "$s0" "$s1"
xfer_expect_delta "mtu 9000: no checksum errors at b" "$s0" "$s1" "$ns_b" 0 \
	InCsumErrs InErrs

# full_packets BEFORE AFTER BYTES: ndp_xfer writes 64 KB at a time, which
# is 7.4 packets at this MTU.  A write fills the unsent packet the last one
# left short (OutTailFills) instead of cutting a short packet of its own,
# so the DATA packets sent first (OutData less retransmissions) are within
# 4 % (and 4 packets: a FIN, windows pushed while the queue was empty) of
# BYTES / 8900 (the payload of one packet is 8920 bytes over IPv6 and more
# over IPv4); one short packet per write would be 8 per 64 KB, 9 % more.
# Measured: 236 for 2 MB with, 257 without.
full_packets()
{
	local d r n max

	d=$(xfer_delta "$1" "$2" "$ns_a" OutData)
	r=$(xfer_delta "$1" "$2" "$ns_a" RtxNack RtxTimeout)
	n=$((d - r))
	max=$(($3 / 8900 * 104 / 100 + 4))
	echo "$n DATA packets for $3 bytes (at most $max; retransmitted $r)"
	[ "$n" -le "$max" ]
}
# At the defaults each 64 KB write (8 packets) fits in the window a
# sender pushes when its queue has run dry (init_window, 15), and a TCG
# guest's ndp_xfer (it hashes what it writes, about 1 MB/s) is slower than
# the veth: every write is pushed whole as it comes, its last packet
# short, as TCP's would be with TCP_NODELAY.  Reported, not checked:
ndp_lib_info "mtu 9000, defaults:" "$(full_packets "$s0" "$s1" $((4 << 20)))"
# With a push window of 2 packets and the receiver pulling at 1 Mbit/s,
# most of each write waits for pulls, and the next write completes the
# short packet the previous one left.
iw=$(ip netns exec "$ns_a" sysctl -n net.ndp.init_window)
ip netns exec "$ns_a" sysctl -qw net.ndp.init_window=2
ip netns exec "$ns_b" sysctl -qw net.ndp.link_rate_mbps=1
s0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "mtu 9000, paced: v4 2M a->b intact" \
	xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 2M 0 1 120
s1=$(xfer_stats "$ns_a" "$ns_b")
ip netns exec "$ns_b" sysctl -qw net.ndp.link_rate_mbps=0
ip netns exec "$ns_a" sysctl -qw net.ndp.init_window="$iw"
xfer_expect_moved "mtu 9000, paced: writes filled unsent packets" "$s0" "$s1" \
	"$ns_a" OutTailFills
ndp_lib_check "mtu 9000, paced: 64 KB writes leave full packets" \
	full_packets "$s0" "$s1" $((2 << 20))

# --- multipath: two steered paths to b's other addresses ---------------------
paths()
{
	ip -n "$ns_b" addr add 10.0.1.3/24 dev eth0 &&
	ip -n "$ns_b" addr add 10.0.1.4/24 dev eth0 &&
	ip -n "$ns_b" addr add fd00:1::3/64 dev eth0 nodad &&
	ip -n "$ns_b" addr add fd00:1::4/64 dev eth0 nodad &&
	A ndpctl path add id 1 dst 10.0.1.2/32 via 10.0.1.3 &&
	A ndpctl path add id 2 dst 10.0.1.2/32 via 10.0.1.4 &&
	A ndpctl path add id 11 dst fd00:1::2/128 via fd00:1::3 &&
	A ndpctl path add id 12 dst fd00:1::2/128 via fd00:1::4
}
if command -v ndpctl >/dev/null && paths; then
	s0=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_check "multipath: v4 2M a->b intact" \
		xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 2M 0 1 120
	ndp_lib_check "multipath: v6 2M a->b intact" \
		xfer_run "$ns_a" "$ns_b" fd00:1::2 6 2M 0 1 120
	s1=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_info "multipath: OutGsoPkts $(xfer_delta "$s0" "$s1" "$ns_a" OutGsoPkts)," \
		"OutGsoSegs $(xfer_delta "$s0" "$s1" "$ns_a" OutGsoSegs)," \
		"OutData $(xfer_delta "$s0" "$s1" "$ns_a" OutData)"
	A ndpctl path show | sed 's/^/# /'
	# Configured paths change every packet (path.c, "Bursts"): what
	# batches there are (first windows take path 0) crossed whole.
	ndp_lib_check "multipath: every super-packet crossed the veth whole" \
		gso_whole "$s0" "$s1" any
	for id in 1 2 11 12; do A ndpctl path del id $id; done
else
	for t in "multipath: v4 2M a->b intact" "multipath: v6 2M a->b intact" \
		 "multipath: every super-packet crossed the veth whole"; do
		ndp_lib_skip "$t" "ndpctl or the paths unavailable"
	done
fi

# --- GSO off: no super-packets -------------------------------------------------
ndp_lib_check "ethtool -K eth0 gso off" A ethtool -K eth0 gso off
s0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "gso off: v4 1M a->b intact" xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 1M 0 1 120
ndp_lib_check "gso off: v6 1M a->b intact" xfer_run "$ns_a" "$ns_b" fd00:1::2 6 1M 0 1 120
s1=$(xfer_stats "$ns_a" "$ns_b")
xfer_expect_delta "gso off: no super-packets" "$s0" "$s1" "$ns_a" 0 \
	OutGsoPkts OutGsoSegs GsoSegments
A ethtool -K eth0 gso on

# --- sch_ndp on the sender's egress: split at enqueue, trimmed per packet -----
if A tc qdisc add dev eth0 root ndp limit 4 rate 100mbit; then
	ip netns exec "$ns_b" sysctl -qw net.ndp.link_rate_mbps=100
	s0=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_check "sch_ndp at a: v4 2M a->b intact" \
		xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 2M 0 1 300
	ndp_lib_check "sch_ndp at a: v6 2M a->b intact" \
		xfer_run "$ns_a" "$ns_b" fd00:1::2 6 2M 0 1 300
	s1=$(xfer_stats "$ns_a" "$ns_b")
	A tc -s qdisc show dev eth0 | sed 's/^/# /'
	split=$(sch_xstat "$ns_a" eth0 gso_split)
	segs=$(sch_xstat "$ns_a" eth0 gso_segs)
	ndp_lib_info "sch_ndp split $split super-packets into $segs packets"
	split_ok() { [ "$split" -gt 0 ] && [ "$segs" -gt "$split" ]; }
	ndp_lib_check "sch_ndp at a: super-packets split at enqueue" split_ok
	trimmed_ok()
	{
		local t
		t=$(( $(sch_xstat "$ns_a" eth0 trim_arrival) +
		      $(sch_xstat "$ns_a" eth0 trim_tail) ))
		echo "sch_ndp trimmed $t packets"
		[ "$t" -gt 0 ]
	}
	ndp_lib_check "sch_ndp at a: packets trimmed" trimmed_ok
	xfer_expect_moved "sch_ndp at a: b saw trimmed headers, per packet" \
		"$s0" "$s1" "$ns_b" InTrimmed
	xfer_expect_moved "sch_ndp at a: a resent on NACK" "$s0" "$s1" "$ns_a" RtxNack
	A tc qdisc del dev eth0 root
else
	for t in "sch_ndp at a: v4 2M a->b intact" "sch_ndp at a: v6 2M a->b intact" \
		 "sch_ndp at a: super-packets split at enqueue" \
		 "sch_ndp at a: packets trimmed" \
		 "sch_ndp at a: b saw trimmed headers, per packet" \
		 "sch_ndp at a: a resent on NACK"; do
		ndp_lib_skip "$t" "sch_ndp with rate unavailable"
	done
fi

# --- a switch forwarding with GRO on, trimming on the receiver's port ---------
switch()
{
	local i
	ndp_topo_switch 2 || return 1
	for i in t1 t2 tr; do
		ip netns exec "$ns_sw" ethtool -K "$i" gro on rx-gro-list on || return 1
	done
	# 10 Mbit/s: even the debug kernel's senders overflow the port (at
	# 100 Mbit/s it trimmed nothing there, and this phase is about trimming).
	ip netns exec "$ns_sw" tc qdisc add dev tr root ndp limit 4 rate 10mbit || return 1
	ip netns exec "$ns_rx" sysctl -qw net.ndp.link_rate_mbps=10
	ip netns exec "$ns_sw" ethtool -k tr | grep -E '^generic-receive-offload:' | sed 's/^/# tr /'
}
incast()
{
	local fam=$1 addr=$2 port1 port2 p1 p2 rc=0

	port1=$(xfer_next_port)
	port2=$(xfer_next_port)
	XFER_PORT=$port1 xfer_run "$ns_h1" "$ns_rx" "$addr" "$fam" 1M 0 1 300 \
		>"$XFER_TMP/h1.$fam" 2>&1 &
	p1=$!
	XFER_PORT=$port2 xfer_run "$ns_h2" "$ns_rx" "$addr" "$fam" 1M 0 1 300 \
		>"$XFER_TMP/h2.$fam" 2>&1 &
	p2=$!
	wait $p1 || { rc=1; sed 's/^/h1: /' "$XFER_TMP/h1.$fam"; }
	wait $p2 || { rc=1; sed 's/^/h2: /' "$XFER_TMP/h2.$fam"; }
	return $rc
}
if switch; then
	s0=$(xfer_stats "$ns_h1" "$ns_h2" "$ns_rx")
	ndp_lib_check "switch, gro on: v4 2 senders intact" incast 4 10.0.100.1
	ndp_lib_check "switch, gro on: v6 2 senders intact" incast 6 fd00:100::1
	s1=$(xfer_stats "$ns_h1" "$ns_h2" "$ns_rx")
	ip netns exec "$ns_sw" tc -s qdisc show dev tr | sed 's/^/# /'
	xfer_expect_moved "switch, gro on: the senders sent super-packets" \
		"$s0" "$s1" "$ns_h1" OutGsoPkts
	sw_split() { [ "$(sch_xstat "$ns_sw" tr gso_split)" -gt 0 ]; }
	ndp_lib_check "switch, gro on: forwarded whole, split by sch_ndp" sw_split
	xfer_expect_moved "switch, gro on: the receiver saw trimmed headers" \
		"$s0" "$s1" "$ns_rx" InTrimmed
else
	for t in "switch, gro on: v4 2 senders intact" \
		 "switch, gro on: v6 2 senders intact" \
		 "switch, gro on: the senders sent super-packets" \
		 "switch, gro on: forwarded whole, split by sch_ndp" \
		 "switch, gro on: the receiver saw trimmed headers"; do
		ndp_lib_skip "$t" "cannot build the switch (ethtool -K gro, sch_ndp)"
	done
fi
# --- a super-packet delivered whole over lo: the receive handler takes it apart
# mirred from the egress of lo to its ingress.
rx_whole()
{
	ndp_topo_ns_new ns_l || return 1
	ip -n "$ns_l" link set lo mtu 1500 || return 1
	# mirred drops the route: IPv4 then takes a local source arriving
	# on lo for a martian unless accept_local is set.
	ip netns exec "$ns_l" sysctl -qw net.ipv4.conf.all.accept_local=1 \
		net.ipv4.conf.lo.accept_local=1 || return 1
	ip -n "$ns_l" addr add 10.9.0.1/32 dev lo &&
	ip -n "$ns_l" addr add fd09::1/128 dev lo nodad || return 1
	ip netns exec "$ns_l" tc qdisc add dev lo root handle 1: prio || return 1
	ip netns exec "$ns_l" tc filter add dev lo parent 1: protocol ip prio 1 \
		u32 match ip protocol 253 0xff \
		action mirred ingress redirect dev lo || return 1
	ip netns exec "$ns_l" tc filter add dev lo parent 1: protocol ipv6 prio 2 \
		u32 match ip6 protocol 253 0xff \
		action mirred ingress redirect dev lo
}
if rx_whole; then
	s0=$(xfer_stats "$ns_l")
	ndp_lib_check "whole super-packets: v4 1M intact" \
		xfer_run "$ns_l" "$ns_l" 10.9.0.1 4 1M 0 1 120
	ndp_lib_check "whole super-packets: v6 1M intact" \
		xfer_run "$ns_l" "$ns_l" fd09::1 6 1M 0 1 120
	s1=$(xfer_stats "$ns_l")
	xfer_expect_moved "whole super-packets: taken apart by the receive handler" \
		"$s0" "$s1" "$ns_l" InGsoPkts
	xfer_expect_delta "whole super-packets: no errors" "$s0" "$s1" "$ns_l" 0 \
		InCsumErrs InErrs
else
	for t in "whole super-packets: v4 1M intact" \
		 "whole super-packets: v6 1M intact" \
		 "whole super-packets: taken apart by the receive handler" \
		 "whole super-packets: no errors"; do
		ndp_lib_skip "$t" "tc mirred on lo unavailable"
	done
fi
# Every socket is released once its namespace goes: a batch taken apart
# while still charged to its sender (lo, above) once kept that socket's
# write memory, and with it ndp.ko, for good.
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_check "namespaces gone: ndp.ko unloads" ndp_lib_unload_ndp \
	"$ns_a" "$ns_b" "${ns_l:-}" "${ns_h1:-}" "${ns_h2:-}" "${ns_sw:-}" \
	"${ns_rx:-}"
modprobe ndp
ndp_lib_done
