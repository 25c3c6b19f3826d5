#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Drop reasons, as the skb:kfree_skb tracepoint (dropwatch, perf, bpftrace)
# reports them for ndp.ko and sch_ndp.ko (see "Drop reasons" in
# Documentation/networking/ndp.rst): a packet with a bad header checksum
# is dropped with SKB_CSUM and one to a port nobody listens on with
# NO_SOCKET, v4 and v6; during transfers over a link that loses and
# duplicates packets, duplicates are reported as TCP_OLD_DATA and no packet
# freed by ndp.ko is reported without a reason (ACK, NACK and PULL packets
# that were handled are consumed, not dropped); headers a switch port
# cannot queue are dropped with QDISC_DROP.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

XFER_PROTO=ndp
xfer_setup
ndp_lib_require_cmd tc ndp_pktgen
ndp_lib_load_modules sch_ndp

T=$(ndp_lib_tracefs)
[ -d "$T/events/skb/kfree_skb" ] || ndp_lib_skip_all "no tracefs or no skb:kfree_skb"
grep -q reason "$T/events/skb/kfree_skb/format" ||
	ndp_lib_skip_all "skb:kfree_skb has no reason field"

# 6.12 prints the location as a symbol ("ndp_rcv+0x41b/0x1e30 [ndp]"),
# 6.1 as a hashed pointer: there a drop cannot be attributed to ndp.ko
# and only its reason is checked.
ndp_tag='\[ndp\]'
grep -q 'location=%pS' "$T/events/skb/kfree_skb/format" || ndp_tag=
tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"
ndp_lib_at_exit "echo 0 > $T/events/enable; echo > $T/trace"

ndp_topo_switch 1 || ndp_lib_skip_all "cannot build the topology"
# Without symbolic locations (6.1) the "no drop without a reason" check
# cannot tell ndp.ko's drops from others': it is left out of the plan
# (not skipped: CI counts a skip as a failure).
ndp_lib_plan $((${#ndp_tag} ? 10 : 9))

echo 0 > "$T/events/enable"
echo 4096 > "$T/buffer_size_kb"
echo 1 > "$T/events/skb/kfree_skb/enable"
echo 1 > "$T/tracing_on"

# traced RE: the trace so far, in $tmp/crafted, has a line matching RE.
traced()
{
	cat "$T/trace" > "$tmp/crafted"
	grep -qE "$1" "$tmp/crafted"
}

# crafted NAME FAMILY DST REASON SPEC: send SPEC from h1 to port 9 of DST;
# pass if ndp.ko dropped it with REASON.
crafted()
{
	local name=$1 fam=$2 dst=$3 reason=$4 spec=$5 re

	echo > "$T/trace"
	ip netns exec "$ns_h1" ndp_pktgen send "-$fam" --dst "$dst" --dport 9 "$spec" \
		>/dev/null || { ndp_lib_fail "$name" "ndp_pktgen failed"; return; }
	# Any function of ndp.ko ("ndp_rcv", "__ndp_v4_rcv", ...).
	re="kfree_skb: .*location=_*ndp_[a-z0-9_]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[ndp\].* reason: $reason"
	[ -n "$ndp_tag" ] || re="kfree_skb: .* reason: $reason\$"
	# The drop happens in the sender's softirq; wait for it with a
	# deadline rather than a fixed sleep.
	if ndp_lib_wait 10000 traced "$re" 2>/dev/null; then
		ndp_lib_pass "$name"
		grep -E "$re" "$tmp/crafted" | head -n 1 | sed 's/^ */# /'
	else
		ndp_lib_fail "$name" "no ndp.ko drop with reason $reason"
		grep 'kfree_skb:' "$tmp/crafted" | head -n 5 | sed 's/^ */# /'
	fi
}

crafted "v4: bad header checksum -> SKB_CSUM" 4 10.0.100.1 SKB_CSUM "data:badhcsum=1"
crafted "v6: bad header checksum -> SKB_CSUM" 6 fd00:100::1 SKB_CSUM "data:badhcsum=1"
crafted "v4: no socket -> NO_SOCKET" 4 10.0.100.1 NO_SOCKET "data"
crafted "v6: no socket -> NO_SOCKET" 6 fd00:100::1 NO_SOCKET "data"

# Transfers both ways over links that lose and duplicate packets.
ip netns exec "$ns_h1" tc qdisc add dev eth0 root netem loss 3% duplicate 10% ||
	ndp_lib_skip_all "no netem"
ip netns exec "$ns_rx" tc qdisc add dev eth0 root netem loss 3% duplicate 10%
echo > "$T/trace"
ndp_lib_check "v4: 1 MB each way over loss 3% duplicate 10%, intact" \
	xfer_run "$ns_h1" "$ns_rx" 10.0.100.1 4 1M 1M 1 300
ndp_lib_check "v6: 1 MB each way over loss 3% duplicate 10%, intact" \
	xfer_run "$ns_h1" "$ns_rx" fd00:100::1 6 1M 1M 1 300
cat "$T/trace" > "$tmp/xfer"
grep 'kfree_skb: .*\[ndp\]' "$tmp/xfer" | sed 's/.*location=\([a-z0-9_]*\).* reason: \(.*\)/\1 \2/' |
	sort | uniq -c | sed 's/^ */# ndp.ko drops: /'
dups()
{
	grep -qE "kfree_skb: .*$ndp_tag.* reason: TCP_OLD_DATA" "$tmp/xfer"
}
ndp_lib_check "duplicates dropped as TCP_OLD_DATA" dups
unspecified()
{
	local n

	n=$(grep -cE 'kfree_skb: .*\[ndp\].* reason: NOT_SPECIFIED' "$tmp/xfer")
	grep -E 'kfree_skb: .*\[ndp\].* reason: NOT_SPECIFIED' "$tmp/xfer" | head -n 5
	echo "$n ndp.ko drops without a reason"
	[ "$n" = 0 ]
}
if [ -n "$ndp_tag" ]; then
	ndp_lib_check "no ndp.ko drop without a reason (handled packets consumed)" unspecified
else
	ndp_lib_info "not checked: skb:kfree_skb does not print the location as a symbol"
fi
ip netns exec "$ns_h1" tc qdisc del dev eth0 root
ip netns exec "$ns_rx" tc qdisc del dev eth0 root

# A switch port that can queue one header and returns none.
qdrop()
{
	ip netns exec "$ns_sw" tc qdisc replace dev tr root ndp limit 1 hlimit 1 rts off rate 10kbit ||
		return 1
	echo > "$T/trace"
	ip netns exec "$ns_h1" ndp_pktgen send -4 --dst 10.0.100.1 --dport 9 "data*20" >/dev/null ||
		return 1
	# The drop happens as the packets reach the port: wait for it (the
	# check used to pass on whatever the trace held: its status was
	# head's).
	ndp_lib_wait 10000 traced 'kfree_skb: .* reason: QDISC_DROP' || return 1
	grep -E 'kfree_skb: .* reason: QDISC_DROP' "$tmp/crafted" | head -n 1
}
ndp_lib_check "sch_ndp: headers it cannot queue -> QDISC_DROP" qdrop

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
