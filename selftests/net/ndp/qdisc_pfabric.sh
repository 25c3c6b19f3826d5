#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp in pFabric mode, with crafted NDP packets through a frozen port
# (see qdisc_lib.sh): eviction of the least urgent packet (ties: the
# arrival loses), dequeue of the earliest packet of the most urgent flow,
# control packets first; IPv4 and IPv6.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ndp_pktgen
ndp_lib_load_modules sch_ndp
sch_setup 1 || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 13

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"

# run FAMILY COUNT QDISC-OPTIONS -- SPECS...: frozen port, send, read the
# counters, release; receiver output in $tmp/rx.
run()
{
	local v=$1 n=$2 dst=10.0.100.1 opts=()
	shift 2
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	[ "$v" = -6 ] && dst=fd00:100::1
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc "${opts[@]}" || return 1
	sch_freeze $v || return 1
	sch_recv_start "$ns_rx" "$tmp/rx" --dport 5000 --count "$n" || return 1
	ip netns exec "$ns_h1" ndp_pktgen send $v --dst "$dst" "$@" >/dev/null || return 1
	sch_snap
	evict=$(sch_xstat pfabric_evict)
	arrival=$(sch_xstat trim_arrival)
	sch_unsnap
	sch_release || return 1
	sch_recv_wait
}

# Eviction, buffer of 4 (psn: sport/prio):
#   1: 1/50  2: 2/10  3: 1/40  4: 3/30        buffer full
#   5: 2/5   evicts 1 (the least urgent)
#   6: 3/40  ties with 3 (40): the arrival loses, 6 is trimmed
#   7: 4/20  evicts 3
# Release: headers 1 6 3 first; then the most urgent is 5 (prio 5) whose
# flow's earliest packet is 2; then 5; then 7 (20), then 4 (30).
evict_specs=(data:sport=1:prio=50 data:sport=2:prio=10 data:sport=1:prio=40
	     data:sport=3:prio=30 data:sport=2:prio=5 data:sport=3:prio=40
	     data:sport=4:prio=20)
for v in -4 -6; do
	run $v 7 mode pfabric limit 4 hlimit 32 -- "${evict_specs[@]}"
	rc=$?
	ndp_lib_expect_eq "$v evictions 2, arrivals trimmed 1" "2 1" "$evict $arrival"
	ndp_lib_expect_eq "$v departure order 1 6 3 2 5 7 4" "1 6 3 2 5 7 4" "$(sch_pkts "$tmp/rx" psn)"
	ndp_lib_expect_eq "$v trimmed exactly 1 6 3" \
		"trimmed trimmed trimmed - - - -" "$(sch_pkts "$tmp/rx" flags)"
	ndp_lib_expect_eq "$v all 7 verify" "0 0 0" \
		"$rc $(sch_summary "$tmp/rx" bad_hcsum) $(sch_summary "$tmp/rx" bad_pcsum)"
done

# Dequeue order without overflow (psn: flow/prio):
#   1: A/300  2: B/250  3: A/200  4: C/150  5: B/50  6: A/100
# Most urgent 5 (B) -> B's earliest, 2; then 5; then 6 (A) -> 1; 3; 6;
# then 4.
run -4 6 mode pfabric limit 16 -- data:sport=10:prio=300 \
	data:sport=20:prio=250 data:sport=10:prio=200 data:sport=30:prio=150 \
	data:sport=20:prio=50 data:sport=10:prio=100
ndp_lib_expect_eq "earliest packet of the most urgent flow first" \
	"2 5 1 3 6 4" "$(sch_pkts "$tmp/rx" psn)"
ndp_lib_expect_eq "no eviction below the limit" "0 0" "$evict $arrival"

# Two flows (psn: sport/prio): 1: 7/90  2: 8/80  3: 7/10  4: 8/20.
# 3 is the most urgent -> its flow's earliest, 1; then 3; then 4 -> 2; 4.
run -4 4 mode pfabric limit 16 -- data:sport=7:prio=90 data:sport=8:prio=80 \
	data:sport=7:prio=10 data:sport=8:prio=20
ndp_lib_expect_eq "per-flow order kept, flows by urgency" "1 3 2 4" \
	"$(sch_pkts "$tmp/rx" psn)"

# Control packets always first, even against the most urgent data.
run -4 5 mode pfabric limit 16 -- data:prio=1 data:prio=1 data:prio=1 \
	ack pull
ndp_lib_expect_eq "control first" "HHDDD" "$(sch_classes "$tmp/rx")"

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
