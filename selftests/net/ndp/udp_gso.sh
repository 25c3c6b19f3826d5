#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NDP in UDP sent in batches (net/ndp/output.c, ndp_udp_gso_batch()): a
# run of consecutive DATA packets of one path leaves as one UDP datagram
# with UDP segmentation offload (SKB_GSO_UDP_L4, as QUIC's UDP_SEGMENT),
# every gso_size bytes one whole NDP packet, which veth carries whole and
# UDP, a device or sch_ndp cuts into the packets.
#
#   batches          udp_port set on both ends, transfers intact over
#                    IPv4 and IPv6 at MTU 1500 and 9000; OutGsoPkts and
#                    OutGsoSegs move at the sender (several packets each),
#                    and the sender's veth sent fewer frames than half the
#                    NDP packets it carried in UDP (EncapOutPkts): one per
#                    packet before; and no payload was summed on the way
#                    (skb_checksum calls below a tenth of the packets:
#                    UDP cut each batch summing every segment while the
#                    tunnel socket asked for final checksums);
#   gso off          "ethtool -K eth0 gso off": no batches, one frame per
#                    packet, transfers intact;
#   sch_ndp          the sender's own egress runs sch_ndp (udp-port set)
#                    with a tiny queue: batches are cut at enqueue (xstats
#                    gso_split), trimmed per packet (the receiver's
#                    InTrimmed moves, the sender resends on NACKs),
#                    transfers intact;
#   gone             the namespaces deleted, ndp.ko unloads: no batch kept
#                    a socket's write memory or a page.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

# shellcheck disable=SC2034 # read by lib.sh
NDP_MTU=1500
PORT=9253

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP in UDP is NDP-only"
xfer_setup
ndp_lib_require_cmd ethtool tc sysctl
ndp_lib_load_modules sch_ndp
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
# shellcheck disable=SC2154 # ns_a, ns_b: set by ndp_topo_pair
if ! ip netns exec "$ns_a" sysctl -qw net.ndp.udp_port=$PORT 2>/dev/null; then
	ndp_lib_skip_all "this kernel has no UDP tunnels (CONFIG_NET_UDP_TUNNEL)"
fi
ip netns exec "$ns_b" sysctl -qw net.ndp.udp_port=$PORT
ndp_lib_plan 24

A() { ip netns exec "$ns_a" "$@"; }

# skb_checksum() calls in the whole guest: software sums of a payload
# (UDP cutting a batch with final checksums would sum every segment).
kprobe=0
ndp_lib_kprobe_add sum skb_checksum && kprobe=1

# sch_xstat NS DEV FIELD: a numeric field of sch_ndp's xstats.
sch_xstat()
{
	ip netns exec "$1" tc -s -j qdisc show dev "$2" |
		awk -v f="\"$3\":" '{ i = index($0, f); if (!i) { print 0; exit }
			s = substr($0, i + length(f)); print s + 0; exit }'
}

# tx: frames a's veth sent (one per skb: a batch is one).
tx() { A bash -c "cat /sys/class/net/eth0/statistics/tx_packets"; }

# batched BEFORE AFTER T0 T1: the sender sent batches of several packets
# and its veth fewer frames than half the packets it sent in UDP.
batched()
{
	local p s e f
	p=$(xfer_delta "$1" "$2" "$ns_a" OutGsoPkts)
	s=$(xfer_delta "$1" "$2" "$ns_a" OutGsoSegs)
	e=$(xfer_delta "$1" "$2" "$ns_a" EncapOutPkts)
	f=$(($4 - $3))
	echo "$p batches carried $s packets; EncapOutPkts $e, veth frames $f"
	[ "$p" -gt 0 ] && [ "$s" -gt "$p" ] && [ "$((2 * f))" -lt "$e" ]
}

# --- batches at MTU 1500 and 9000 --------------------------------------------
A ethtool -k eth0 | grep -E '^(generic-segmentation-offload|scatter-gather|tx-udp-segmentation):' | sed 's/^/# /'
for mtu in 1500 9000; do
	A ip link set eth0 mtu $mtu
	ip -n "$ns_b" link set eth0 mtu $mtu
	s0=$(xfer_stats "$ns_a" "$ns_b")
	t0=$(tx)
	h0=$(ndp_lib_kprobe_hits sum)
	ndp_lib_check "mtu $mtu: v4 2M a->b intact" \
		xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 2M 0 1 120
	ndp_lib_check "mtu $mtu: v6 2M a->b intact" \
		xfer_run "$ns_a" "$ns_b" fd00:1::2 6 2M 0 1 120
	ndp_lib_check "mtu $mtu: v4 512K both ways intact" \
		xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 512K 512K 1 120
	t1=$(tx)
	h1=$(ndp_lib_kprobe_hits sum)
	s1=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_check "mtu $mtu: batches, fewer veth frames than half the packets" \
		batched "$s0" "$s1" "$t0" "$t1"
	xfer_expect_moved "mtu $mtu: b received in UDP" "$s0" "$s1" "$ns_b" EncapInPkts
	if [ $kprobe = 1 ]; then
		d=$(xfer_delta "$s0" "$s1" "$ns_b" EncapInPkts)
		ndp_lib_check "mtu $mtu: no payload summed on the way ($((h1 - h0)) skb_checksum calls, $d packets)" \
			test $(((h1 - h0) * 10)) -lt "$d"
	else
		ndp_lib_skip "mtu $mtu: no payload summed on the way" "no kprobe on skb_checksum"
	fi
	xfer_expect_delta "mtu $mtu: no checksum errors at b" "$s0" "$s1" "$ns_b" 0 \
		InCsumErrs InErrs
done
A ip link set eth0 mtu 1500
ip -n "$ns_b" link set eth0 mtu 1500

# --- GSO off: one frame per packet -----------------------------------------------
ndp_lib_check "ethtool -K eth0 gso off" A ethtool -K eth0 gso off
s0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "gso off: v4 1M a->b intact" xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 1M 0 1 120
s1=$(xfer_stats "$ns_a" "$ns_b")
xfer_expect_delta "gso off: no batches" "$s0" "$s1" "$ns_a" 0 OutGsoPkts OutGsoSegs
A ethtool -K eth0 gso on

# --- sch_ndp on the sender's egress: cut at enqueue, trimmed per packet ------
if A tc qdisc add dev eth0 root ndp limit 4 rate 100mbit udp-port $PORT; then
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
	ndp_lib_info "sch_ndp cut $split batches into $segs packets"
	split_ok() { [ "$split" -gt 0 ] && [ "$segs" -gt "$split" ]; }
	ndp_lib_check "sch_ndp at a: batches cut at enqueue" split_ok
	xfer_expect_moved "sch_ndp at a: b saw trimmed headers, per packet" \
		"$s0" "$s1" "$ns_b" InTrimmed
	xfer_expect_moved "sch_ndp at a: a resent on NACK" "$s0" "$s1" "$ns_a" RtxNack
	A tc qdisc del dev eth0 root
	ip netns exec "$ns_b" sysctl -qw net.ndp.link_rate_mbps=0
else
	for t in "sch_ndp at a: v4 2M a->b intact" "sch_ndp at a: v6 2M a->b intact" \
		 "sch_ndp at a: batches cut at enqueue" \
		 "sch_ndp at a: b saw trimmed headers, per packet" \
		 "sch_ndp at a: a resent on NACK"; do
		ndp_lib_skip "$t" "sch_ndp with rate and udp-port unavailable"
	done
fi

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_check "namespaces gone: ndp.ko unloads" ndp_lib_unload_ndp "$ns_a" "$ns_b"
modprobe ndp
ndp_lib_done
