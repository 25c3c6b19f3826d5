#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp and NDP carried in UDP (option udp-port), with encapsulated
# packets crafted by "ndp_pktgen send --udp PORT" (UDP checksum 0; ndp.ko
# is not needed) through a frozen switch port (see qdisc_lib.sh):
#  - udp-port is shown by tc; a bad value (70000, abc) is refused with a
#    clear message and changes nothing;
#  - encapsulated DATA overflowing the port is trimmed exactly as native
#    NDP (trim counts, trimmed psns, header priority and WRR order), and
#    every trimmed packet arrives with consistent IP and UDP lengths, UDP
#    checksum 0, a verifying NDP header checksum and no payload, IPv4 and
#    IPv6; a datagram that carries a UDP checksum keeps a valid one (the
#    switch computes it over what is left), IPv4 and IPv6;
#  - the encap counter counts the encapsulated NDP packets;
#  - UDP to another port, with udp-port off, with a UDP length that is
#    not the IP payload length, and IPv4 fragments are other traffic:
#    never trimmed;
#  - pFabric's per-flow order follows the NDP ports, not the UDP source
#    port, so a connection sprayed over source ports is one flow;
#  - a header overflowing the header queue returns to the sender with
#    the addresses swapped and both UDP ports as they were, IPv4 and IPv6;
#  - OPF detours: encapsulated unscheduled packets leave through a
#    sibling port (a second link from the switch to the receiver) with
#    detours 1 and a verifying header checksum, IPv4 and IPv6.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ndp_pktgen
ndp_lib_load_modules sch_ndp
sch_setup 1 || ndp_lib_skip_all "cannot build the topology"

PORT=6000
RX=10.0.100.1
RX6=fd00:100::1

# A second link from the switch to the receiver, tr2 - eth1, for detours:
# the receiver's prefixes are reachable through it by less preferred
# routes (what a FIB lookup restricted to tr2 finds); static neighbours.
ndp_topo_link "$ns_sw" tr2 "$ns_rx" eth1 ||
	ndp_lib_skip_all "cannot build the second link"
mac2=$(ip -n "$ns_rx" -br link show dev eth1 | awk '{ print $3 }')
ip -n "$ns_sw" route add 10.0.100.0/24 dev tr2 metric 1024 &&
	ip -n "$ns_sw" -6 route add fd00:100::/64 dev tr2 metric 1024 &&
	ip -n "$ns_sw" neigh replace $RX lladdr "$mac2" dev tr2 nud permanent &&
	ip -n "$ns_sw" neigh replace $RX6 lladdr "$mac2" dev tr2 nud permanent ||
	ndp_lib_skip_all "cannot route through the second link"

ndp_lib_plan 32

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"

# run FAMILY COUNT RECV-NS RECV-DEV RECV-ARGS... -- QDISC-OPTIONS... --
# SEND-ARGS...: fresh qdisc on tr, frozen port, receiver started, send
# (from h1 to the receiver's address of FAMILY), snapshot the counters
# (sch_xstat reads the snapshot), release; receiver output in $tmp/rx,
# its exit status returned.
run()
{
	local v=$1 n=$2 rns=$3 rdev=$4 dst=$RX ropts=() qopts=()
	shift 4
	while [ "$1" != -- ]; do ropts+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do qopts+=("$1"); shift; done
	shift
	[ "$v" = -6 ] && dst=$RX6
	sch_unsnap
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc "${qopts[@]}" || return 1
	sch_freeze $v || return 1
	ip netns exec "$rns" ndp_pktgen recv --dev "$rdev" --count "$n" \
		--timeout-ms 30000 --idle-ms 5000 "${ropts[@]}" \
		>"$tmp/rx" 2>"$tmp/rx.err" &
	sch_recv_pid=$!
	ndp_lib_wait 5000 grep -qs receiving "$tmp/rx.err"
	ip netns exec "$ns_h1" ndp_pktgen send $v --dst "$dst" "$@" >/dev/null || return 1
	sch_snap
	sch_release || return 1
	sch_recv_wait
}

# sum FIELD...: the receiver's summary fields, space separated.
sum()
{
	local f out=
	for f in "$@"; do out+="$(sch_summary "$tmp/rx" "$f") "; done
	echo "${out% }"
}

# frozen A B...: the snapshot's counters; other_qlen reads "6+" from 6 on
# (the switch's own IPv6 packets may wait there too).
frozen()
{
	local c v out=
	for c in "$@"; do
		v=$(sch_xstat "$c")
		[ "$c" = other_qlen ] && [ "$v" -ge 6 ] && v=6+
		out+="$v "
	done
	echo "${out% }"
}

# trimmed_psns: psns of the trimmed packets received, ascending.
trimmed_psns()
{
	grep '^pkt ' "$tmp/rx" | grep 'flags=trimmed' |
		sed 's/.* psn=\([0-9]*\) .*/\1/' | sort -n | tr '\n' ' '
}

# --- 1. the option ------------------------------------------------------
sch_tc qdisc del dev tr root 2>/dev/null
sch_qdisc limit 8 udp-port $PORT
ndp_lib_expect_eq "udp-port shown by tc" "udp-port $PORT" \
	"$(sch_tc qdisc show dev tr | grep -o 'udp-port [0-9]*')"
old=$(sch_tc qdisc show dev tr)
out=$(sch_tc qdisc change dev tr root ndp udp-port 70000 limit 4 2>&1 >/dev/null) &&
	out="accepted"
ndp_lib_expect_eq "udp-port 70000 refused with the range" \
	"ndp: invalid udp-port (0..65535, 0: off) \"70000\"" "$(echo "$out" | head -n 1)"
out=$(sch_tc qdisc change dev tr root ndp udp-port abc limit 4 2>&1 >/dev/null) &&
	out="accepted"
ndp_lib_expect_eq "udp-port abc refused" \
	"ndp: invalid udp-port (0..65535, 0: off) \"abc\"" "$(echo "$out" | head -n 1)"
ndp_lib_expect_eq "a refused change changes nothing" "$old" \
	"$(sch_tc qdisc show dev tr)"
sch_tc qdisc change dev tr root ndp udp-port 0
ndp_lib_expect_eq "udp-port 0 (off) is not shown" "" \
	"$(sch_tc qdisc show dev tr | grep -o 'udp-port [0-9]*')"

# --- 2. trimming, IPv4 and IPv6 -------------------------------------------
# limit 8, trim-prob 100, 30 encapsulated DATA packets: psn 9..30 trimmed
# to IP + UDP + 40 bytes.
for v in -4 -6; do
	run $v 30 "$ns_rx" eth0 --dport 5000 --udp $PORT -- \
		limit 8 hlimit 32 trim-prob 100 udp-port $PORT -- \
		--udp $PORT "data*30"
	rc=$?
	ndp_lib_expect_eq "$v encap: 22 arrivals trimmed, 22 headers and 8 data queued, 30 encap" \
		"22 0 22 8 30" "$(frozen trim_arrival trim_tail hdr_qlen data_qlen encap)"
	ndp_lib_expect_eq "$v encap: all 30 verify (NDP checksums, IP and UDP lengths, UDP checksum)" \
		"0 30 22 0 0 0 0" \
		"$rc $(sum pkts trimmed bad_hcsum bad_pcsum bad_len bad_ucsum)"
	ndp_lib_expect_eq "$v encap: psn 9..30 trimmed" "$(seq -s ' ' 9 30) " \
		"$(trimmed_psns)"
	ndp_lib_expect_eq "$v encap: trimmed = no payload, UDP length 48, checksum 0, ports kept" \
		"len=0 doff=10 x22|udport=$PORT ulen=48 ucsum=0 x22" \
		"$(grep '^pkt .*flags=trimmed' "$tmp/rx" | grep -o ' len=[0-9]* doff=[0-9]*' |
		   sort | uniq -c | awk '{ print $2, $3, "x" $1 }')|$(grep '^pkt .*flags=trimmed' "$tmp/rx" |
		   grep -o 'udport=[0-9]* ulen=[0-9]* ucsum=[0-9a-zA-Z]*' | sort | uniq -c |
		   awk '{ print $2, $3, $4, "x" $1 }')"
	ndp_lib_expect_eq "$v encap: release order is WRR, 10 headers per data packet" \
		"$(sch_wrr_expect 22 8 10)" "$(sch_classes "$tmp/rx")"
done

# A datagram that carries a UDP checksum (as NDP sends them): trimmed ones
# keep a valid checksum, recomputed over the headers left, IPv4 and IPv6.
for v in -4 -6; do
	run $v 6 "$ns_rx" eth0 --dport 5000 --udp $PORT -- \
		limit 2 hlimit 32 trim-prob 100 udp-port $PORT -- \
		--udp $PORT "data*6:ucsum=1:size=500"
	rc=$?
	ndp_lib_expect_eq "v${v#-} encap with a UDP checksum: 4 trimmed, every checksum verifies" \
		"0 6 4 0 0 0 4" \
		"$rc $(sum pkts trimmed bad_hcsum bad_len bad_ucsum) $(grep '^pkt .*flags=trimmed' "$tmp/rx" | grep -c 'ucsum=ok')"
done

# --- 3. other traffic ------------------------------------------------------
# other CASE FAMILY RECV-UDP-PORT QDISC-PORT SEND-ARGS...: 6 packets, none
# NDP: nothing trimmed or queued as NDP, all forwarded untrimmed.
other()
{
	local name=$1 v=$2 rport=$3 qport=$4
	shift 4
	run "$v" 6 "$ns_rx" eth0 --dport 5000 --udp "$rport" -- \
		limit 2 hlimit 32 trim-prob 100 udp-port "$qport" -- "$@"
	ndp_lib_expect_eq "$name: other traffic, forwarded untrimmed" \
		"0 0 0 0 0 6+|6 0" \
		"$(frozen trim_arrival trim_tail hdr_qlen data_qlen encap other_qlen)|$(sum pkts trimmed)"
}
other "another UDP port" -4 6001 $PORT --udp 6001 "data*6:size=500"
other "v6 another UDP port" -6 6001 $PORT --udp 6001 "data*6:size=500"
other "udp-port off" -4 $PORT 0 --udp $PORT "data*6:size=500"
other "UDP length not the IP payload length" -4 $PORT $PORT --udp $PORT "data*6:size=500:ulen=540"
other "IPv4 first fragments" -4 $PORT $PORT --udp $PORT "data*6:size=500:mf=1"

# --- 4. flows are NDP flows ---------------------------------------------
# pFabric sends the earliest packet of the most urgent packet's flow.
# psn 1 (prio 100) and psn 2 (prio 50) are one NDP flow (ports 4000 >
# 5000) sprayed over UDP source ports 49153 and 49154, psn 3 (prio 70)
# another: psn 2 is the most urgent, so psn 1 leaves first.  Were flows
# told apart by the UDP source port, psn 2 would.
run -4 3 "$ns_rx" eth0 --dport 5000 --udp $PORT -- \
	mode pfabric limit 8 udp-port $PORT -- \
	--udp $PORT "data:prio=100" "data:prio=50" "data:prio=70:sport=4001"
ndp_lib_expect_eq "pfabric: one NDP flow across UDP source ports (departure order)" \
	"1 2 3|49153 49154 49155" "$(sch_pkts "$tmp/rx" psn)|$(sch_pkts "$tmp/rx" usport)"

# --- 5. return to sender ---------------------------------------------------
# limit 4, hlimit 4, 12 packets: psn 9..12 come back to h1, UDP source
# port 49152 + psn and destination port PORT as sent.
for v in -4 -6; do
	back=$RX
	[ "$v" = -6 ] && back=$RX6
	run $v 4 "$ns_h1" eth0 --dport 5000 --udp $PORT -- \
		limit 4 hlimit 4 trim-prob 100 udp-port $PORT -- \
		--udp $PORT "data*12"
	rc=$?
	ndp_lib_expect_eq "$v encap rts: 4 returned, psn 9..12 with RTS and TRIMMED" \
		"4 0|9 10 11 12|trimmed,rts trimmed,rts trimmed,rts trimmed,rts" \
		"$(sch_xstat rts) $rc|$(sch_pkts "$tmp/rx" psn)|$(sch_pkts "$tmp/rx" flags)"
	ndp_lib_expect_eq "$v encap rts: addresses swapped, UDP ports as sent, lengths and checksums verify" \
		"$back|49161 49162 49163 49164|$PORT $PORT $PORT $PORT|48 48 48 48|0 0 0" \
		"$(sch_pkts "$tmp/rx" src | tr ' ' '\n' | sort -u)|$(sch_pkts "$tmp/rx" usport)|$(sch_pkts "$tmp/rx" udport)|$(sch_pkts "$tmp/rx" ulen)|$(sum bad_hcsum bad_len bad_ucsum)"
done

# --- 6. OPF detours ----------------------------------------------------------
# tr and tr2 in group 1 (t1, the arrival port, is in none), opf-thresh 4:
# 4 packets queue at tr, the next 8 unscheduled ones leave through tr2
# (captured on the receiver's eth1) with detours 1.
sch_tc qdisc replace dev tr2 root ndp group 1 ||
	ndp_lib_fail_all "sch_ndp refused the port group"
for v in -4 -6; do
	run $v 8 "$ns_rx" eth1 --dport 5000 --udp $PORT -- \
		limit 8 opf-thresh 4 detour on group 1 trim-prob 100 udp-port $PORT -- \
		--udp $PORT "data*4:size=500" "data*8:size=500:flags=unsched"
	rc=$?
	ndp_lib_expect_eq "$v encap detour: 8 unscheduled packets detoured through tr2, counted" \
		"0 8 8 4" "$rc $(sum pkts) $(frozen detour_out data_qlen)"
	ndp_lib_expect_eq "$v encap detour: detours=1, checksums and lengths verify, UDP intact" \
		"8 0 0 0" \
		"$(grep '^pkt .*flags=unsched ' "$tmp/rx" | grep ' hcsum=ok pcsum=ok ' |
		   grep -c " detours=1 usport=[0-9]* udport=$PORT ulen=548 ucsum=0$") $(sum bad_hcsum bad_len bad_ucsum)"
done
sch_tc qdisc del dev tr2 root

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
