#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp in pFabric mode, with crafted NDP packets through a frozen port
# (see qdisc_lib.sh): eviction of the least urgent packet (ties: the
# arrival loses), dequeue of the earliest packet of the most urgent flow,
# control packets first; IPv4 and IPv6.  Priorities compare as unsigned
# 32-bit values (U32_MAX, the saturated "4 GiB or more", is least
# urgent), and a long random sequence with many ties, evictions and flows
# leaves in exactly the order of a reference model of the policy.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ndp_pktgen
ndp_lib_load_modules sch_ndp
sch_setup 1 || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 18

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
	sch_recv_start "$ns_rx" "$tmp/rx" --dport 5000 --count "$n" \
		--timeout-ms 60000 --idle-ms 5000 || return 1
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

# Priorities across the whole u32 range (psn: sport/prio): the order is
# the unsigned one; a signed or wrapping comparison puts 2^31.. first.
#   1: 1/4294967295  2: 2/4294967294  3: 3/0  4: 4/2147483648
#   5: 5/2147483647  6: 1/4294967295 (same flow as 1)
run -4 6 mode pfabric limit 16 -- data:sport=1:prio=4294967295 \
	data:sport=2:prio=4294967294 data:sport=3:prio=0 \
	data:sport=4:prio=2147483648 data:sport=5:prio=2147483647 \
	data:sport=1:prio=4294967295
ndp_lib_expect_eq "u32 priorities in unsigned order, U32_MAX last" \
	"3 5 4 2 1 6" "$(sch_pkts "$tmp/rx" psn)"

# Full buffer of saturated flows (prio U32_MAX: 4 GiB or more left): a
# more urgent arrival evicts the latest of them, a saturated arrival
# loses the tie, and a prio-0 arrival evicts too.
#   buffer 2: 1: 1/U32_MAX  2: 2/U32_MAX;  3: 3/U32_MAX loses (trimmed);
#   4: 4/7 evicts 2;  5: 5/0 evicts 1.  Release: 3 2 1 (headers), 5, 4.
run -4 5 mode pfabric limit 2 hlimit 32 -- data:sport=1:prio=4294967295 \
	data:sport=2:prio=4294967295 data:sport=3:prio=4294967295 \
	data:sport=4:prio=7 data:sport=5:prio=0
ndp_lib_expect_eq "saturated flows: ties lose, urgent ones evict" \
	"2 1|3 2 1 5 4" "$evict $arrival|$(sch_pkts "$tmp/rx" psn)"

# A long random sequence against a reference model of the policy:
# 300 packets of 7 flows through a buffer of 24, priorities from a small
# set (many ties, including U32_MAX and 2^31 +/- 1), so most arrivals
# overflow and both eviction and the tie rule are exercised.
# pfabric_model LIMIT < "sport prio" lines: the expected departure order
# (psn) when everything is queued before the first departure.
pfabric_model()
{
	awk -v limit="$1" '
	{ psn = NR; fl[psn] = $1 + 0; pr[psn] = $2 + 0
	  if (n < limit) { buf[n++] = psn; next }
	  w = 0
	  for (i = 1; i < n; i++) if (pr[buf[i]] >= pr[buf[w]]) w = i
	  if (pr[psn] >= pr[buf[w]]) { hq[nh++] = psn; next }
	  hq[nh++] = buf[w]
	  for (i = w; i < n - 1; i++) buf[i] = buf[i + 1]
	  buf[n - 1] = psn }
	END {
	  for (i = 0; i < nh; i++) out = out hq[i] " "
	  while (n > 0) {
	    b = 0
	    for (i = 1; i < n; i++) if (pr[buf[i]] < pr[buf[b]]) b = i
	    for (i = 0; i < n; i++) if (fl[buf[i]] == fl[buf[b]]) break
	    out = out buf[i] " "
	    for (; i < n - 1; i++) buf[i] = buf[i + 1]
	    n--
	  }
	  sub(/ $/, "", out); print out
	}'
}
prios=(0 1 5 5 100 2147483647 2147483648 4294967294 4294967295 4294967295)
RANDOM=4242
specs=() model_in=
for i in $(seq 300); do
	sp=$((RANDOM % 7 + 1))
	pr=${prios[$((RANDOM % ${#prios[@]}))]}
	specs+=("data:sport=$sp:prio=$pr:size=200")
	model_in+="$sp $pr"$'\n'
done
want=$(printf '%s' "$model_in" | pfabric_model 24)
run -4 300 mode pfabric limit 24 hlimit 400 -- "${specs[@]}"
rc=$?
ndp_lib_expect_eq "random 300: all verified, 276 trimmed" "0 276" \
	"$rc $(sch_summary "$tmp/rx" trimmed)"
ndp_lib_expect_eq "random 300: departure order of the reference model" \
	"$want" "$(sch_pkts "$tmp/rx" psn)"
ndp_lib_check "random 300: evictions and lost ties both happened" \
	test "$evict" -gt 0 -a "$arrival" -gt 0

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
