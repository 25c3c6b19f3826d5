#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp trimming, header priority, WRR and return to sender, with
# crafted NDP bursts through a frozen switch port (see qdisc_lib.sh):
# exact trim counts and which packets get trimmed for trim-prob 100/0/50,
# every trimmed header verifies at the receiver (IPv4 and IPv6), headers
# leave before queued data, the WRR order is exact under saturation, and
# a header that overflows the header queue comes back to the sender with
# swapped addresses (or is dropped with rts off).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ndp_pktgen
ndp_lib_load_modules sch_ndp
sch_setup 1 || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 25

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"
RX=10.0.100.1

# burst FAMILY COUNT QDISC-OPTIONS...: frozen port, COUNT data packets
# from h1, counters read while frozen, then released; receiver output in
# $tmp/rx.
burst()
{
	local v=$1 n=$2 dst=$RX
	shift 2
	[ "$v" = -6 ] && dst=fd00:100::1
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc "$@" || return 1
	sch_freeze $v || return 1
	sch_recv_start "$ns_rx" "$tmp/rx" --dport 5000 --count "$n" --timeout-ms 20000 || return 1
	ip netns exec "$ns_h1" ndp_pktgen send $v --dst "$dst" "data*$n" >/dev/null || return 1
	sch_snap
	frozen_arrival=$(sch_xstat trim_arrival)
	frozen_tail=$(sch_xstat trim_tail)
	frozen_hq=$(sch_xstat hdr_qlen)
	frozen_dq=$(sch_xstat data_qlen)
	sch_unsnap
	sch_release || return 1
	sch_recv_wait
}

# 1. trim-prob 100: limit 8, 30 packets: exactly 22 arrivals trimmed,
#    psn 9..30; the first 8 intact.
burst -4 30 limit 8 hlimit 32 trim-prob 100
rc=$?
ndp_lib_expect_eq "v4 receiver verified 30 packets" 0 "$rc"
ndp_lib_expect_eq "trim-prob 100: 22 arrivals trimmed" "22 0" "$frozen_arrival $frozen_tail"
ndp_lib_expect_eq "frozen queues hold 22 headers and 8 data" "22 8" "$frozen_hq $frozen_dq"
trimmed=$(grep '^pkt ' "$tmp/rx" | grep 'flags=trimmed' | sed 's/.* psn=\([0-9]*\) .*/\1/' | sort -n | tr '\n' ' ')
ndp_lib_expect_eq "trim-prob 100: psn 9..30 trimmed" "$(seq -s ' ' 9 30) " "$trimmed"
ndp_lib_expect_eq "every trimmed v4 header verifies" "22 0 0" \
	"$(sch_summary "$tmp/rx" trimmed) $(sch_summary "$tmp/rx" bad_hcsum) $(sch_summary "$tmp/rx" bad_len)"
ndp_lib_expect_eq "intact data verifies (payload checksum and bytes)" "8 0" \
	"$(($(sch_summary "$tmp/rx" data) - $(sch_summary "$tmp/rx" trimmed))) $(sch_summary "$tmp/rx" bad_pcsum)"
ndp_lib_expect_eq "release order: WRR 10 headers per data packet" \
	"$(sch_wrr_expect 22 8 10)" "$(sch_classes "$tmp/rx")"

# 2. trim-prob 0: the tail is trimmed each time: psn 8..29 trimmed,
#    1..7 and 30 intact.
burst -4 30 limit 8 hlimit 32 trim-prob 0
ndp_lib_expect_eq "trim-prob 0: 22 tails trimmed" "0 22" "$frozen_arrival $frozen_tail"
trimmed=$(grep '^pkt ' "$tmp/rx" | grep 'flags=trimmed' | sed 's/.* psn=\([0-9]*\) .*/\1/' | sort -n | tr '\n' ' ')
ndp_lib_expect_eq "trim-prob 0: psn 8..29 trimmed" "$(seq -s ' ' 8 29) " "$trimmed"
intact=$(grep '^pkt ' "$tmp/rx" | grep -v 'flags=trimmed' | sed 's/.* psn=\([0-9]*\) .*/\1/' | tr '\n' ' ')
ndp_lib_expect_eq "trim-prob 0: psn 1..7 and 30 intact, in order" "$(seq -s ' ' 1 7) 30 " "$intact"

# 3. trim-prob 50 (default): still exactly 22 trims, split both ways.
burst -4 30 limit 8 hlimit 32
ndp_lib_expect_eq "trim-prob 50: 22 trims in all" 22 $((frozen_arrival + frozen_tail))
ndp_lib_check "trim-prob 50: both arrivals and tails trimmed" \
	test "$frozen_arrival" -gt 0 -a "$frozen_tail" -gt 0
ndp_lib_expect_eq "trim-prob 50: 30 packets, all headers verify" "30 22 0" \
	"$(sch_summary "$tmp/rx" pkts) $(sch_summary "$tmp/rx" trimmed) $(sch_summary "$tmp/rx" bad_hcsum)"

# 4. IPv6.
burst -6 30 limit 8 hlimit 32
rc=$?
ndp_lib_expect_eq "v6: 30 packets verified, 22 trimmed" "0 30 22 0" \
	"$rc $(sch_summary "$tmp/rx" pkts) $(sch_summary "$tmp/rx" trimmed) $(sch_summary "$tmp/rx" bad_hcsum)"

# 5. Headers leave before queued data: 5 data, then 5 pulls.
sch_tc qdisc del dev tr root 2>/dev/null
sch_qdisc limit 8
sch_freeze
sch_recv_start "$ns_rx" "$tmp/rx" --dport 5000 --count 10
ip netns exec "$ns_h1" ndp_pktgen send --dst $RX "data*5" "pull*5" >/dev/null
sch_release
sch_recv_wait
ndp_lib_expect_eq "pulls sent after data leave first" "HHHHHDDDDD" "$(sch_classes "$tmp/rx")"
ndp_lib_expect_eq "pulls in order, then data in order" "6 7 8 9 10 1 2 3 4 5" "$(sch_pkts "$tmp/rx" psn)"

# 6. WRR under saturation: wrr 3, 40 headers and 20 data interleaved.
sch_tc qdisc del dev tr root 2>/dev/null
sch_qdisc limit 20 hlimit 100 wrr 3
sch_freeze
sch_recv_start "$ns_rx" "$tmp/rx" --dport 5000 --count 60
specs=()
for i in $(seq 20); do specs+=("ack" "data" "nack"); done
ip netns exec "$ns_h1" ndp_pktgen send --dst $RX "${specs[@]}" >/dev/null
sch_release
sch_recv_wait
ndp_lib_expect_eq "wrr 3: exactly 3 headers per data packet" \
	"$(sch_wrr_expect 40 20 3)" "$(sch_classes "$tmp/rx")"
ndp_lib_expect_eq "wrr 3: data order kept" "$(seq -s ' ' 2 3 59)" \
	"$(grep 'type=data' "$tmp/rx" | sed 's/.* psn=\([0-9]*\) .*/\1/' | tr '\n' ' ' | sed 's/ $//')"

# 7. Return to sender: limit 4, hlimit 4, 12 packets, trim-prob 100:
#    psn 5..8 trimmed and queued, psn 9..12 bounced to h1.
sch_tc qdisc del dev tr root 2>/dev/null
sch_qdisc limit 4 hlimit 4 trim-prob 100
sch_freeze
sch_recv_start "$ns_h1" "$tmp/back" --dport 5000 --count 4 --timeout-ms 10000
ip netns exec "$ns_h1" ndp_pktgen send --dst $RX "data*12" >/dev/null
sch_recv_wait
ndp_lib_expect_eq "4 headers returned to the sender" 4 "$(sch_xstat rts)"
ndp_lib_expect_eq "returned: psn 9..12 with RTS and TRIMMED" \
	"9 10 11 12|trimmed,rts trimmed,rts trimmed,rts trimmed,rts" \
	"$(sch_pkts "$tmp/back" psn)|$(sch_pkts "$tmp/back" flags)"
ndp_lib_expect_eq "returned: addresses swapped" "$RX 10.0.1.1" \
	"$(sch_pkts "$tmp/back" src | cut -d' ' -f1) $(sch_pkts "$tmp/back" dst | cut -d' ' -f1)"
ndp_lib_expect_eq "returned headers verify at the sender" "0 0" \
	"$(sch_summary "$tmp/back" bad_hcsum) $(sch_summary "$tmp/back" bad_len)"
sch_release

# 7b. The same over IPv6.
sch_tc qdisc del dev tr root 2>/dev/null
sch_qdisc limit 4 hlimit 4 trim-prob 100
sch_freeze -6
sch_recv_start "$ns_h1" "$tmp/back" --dport 5000 --count 4 --timeout-ms 10000
ip netns exec "$ns_h1" ndp_pktgen send -6 --dst fd00:100::1 "data*12" >/dev/null
sch_recv_wait
ndp_lib_expect_eq "v6 returned: psn 9..12, swapped, verified" \
	"9 10 11 12|fd00:100::1 fd00:1::1|0" \
	"$(sch_pkts "$tmp/back" psn)|$(sch_pkts "$tmp/back" src | cut -d' ' -f1) $(sch_pkts "$tmp/back" dst | cut -d' ' -f1)|$(sch_summary "$tmp/back" bad_hcsum)"
sch_release

# 8. rts off: the same overflow is dropped, nothing comes back.
sch_tc qdisc del dev tr root 2>/dev/null
sch_qdisc limit 4 hlimit 4 trim-prob 100 rts off
sch_freeze
sch_recv_start "$ns_h1" "$tmp/back" --dport 5000 --timeout-ms 1500
ip netns exec "$ns_h1" ndp_pktgen send --dst $RX "data*12" >/dev/null
sch_recv_wait
ndp_lib_expect_eq "rts off: 4 header drops, 0 returned" "4 0 0" \
	"$(sch_xstat hdr_drops) $(sch_xstat rts) $(sch_summary "$tmp/back" pkts)"
sch_release

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
