#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What sch_ndp takes from the wire, with crafted packets through a frozen
# switch port (see qdisc_lib.sh):
#  - trimming keeps the whole NDP header, options included (doff > 10):
#    the trimmed header arrives with doff*4 bytes, option bytes intact,
#    a verifying header checksum and a consistent IP length, IPv4 and
#    IPv6; a tap on the switch's ingress port, which shares the packets'
#    data, still sees the original, untrimmed packets;
#  - a doff that claims more than the packet holds is not trusted: the
#    packet is other traffic, forwarded unmodified;
#  - IPv4 fragments (first and non-first) of protocol NDP are not parsed:
#    other traffic, never trimmed;
#  - a header-class packet (control, or DATA marked trimmed) that carries
#    a payload gets no header priority: other traffic.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ndp_pktgen
ndp_lib_load_modules sch_ndp
sch_setup 1 || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 15

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"

# run FAMILY COUNT QDISC-OPTIONS -- SPECS...: frozen port, send, snapshot
# the counters (sch_xstat reads the snapshot), release; receiver output in
# $tmp/rx, its exit status returned.
run()
{
	sch_run "$tmp/rx" "$@"
}

# frozen A B...: the snapshot's values of counters A B ...; "other_qlen"
# reads "6+" when it is 6 or more: the switch's own packets (IPv6 MLD
# reports, router solicitations) may wait in the other queue too.
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

# 1. doff 16 (24 option bytes), limit 2, trim-prob 100: psn 3..6 trimmed
#    to IP + 64 bytes with the options intact.
for v in -4 -6; do
	run $v 6 limit 2 hlimit 32 trim-prob 100 -- "data*6:doff=16:size=500"
	rc=$?
	ndp_lib_expect_eq "$v doff 16: 6 packets verified (options, header checksum, lengths)" \
		"0 6 4 0 0 0" \
		"$rc $(sch_summary "$tmp/rx" pkts) $(sch_summary "$tmp/rx" trimmed) $(sch_summary "$tmp/rx" bad_opts) $(sch_summary "$tmp/rx" bad_hcsum) $(sch_summary "$tmp/rx" bad_len)"
	ndp_lib_expect_eq "$v doff 16: trimmed headers keep doff 16, options ok, no payload" \
		"len=0 doff=16 opts=ok x4" \
		"$(grep '^pkt .*flags=trimmed' "$tmp/rx" | grep -o ' len=[0-9]* doff=[0-9]* opts=[a-zA-Z-]*' |
		   sort | uniq -c | awk '{ print $2, $3, $4, "x" $1 }')"
done

# 2. A packet socket on the switch's ingress port t1 holds a clone of
#    every arriving packet (sharing its data; ip_forward's skb_cow() may
#    already unshare the headers); the forwarded packet is trimmed, the
#    tap's copy must stay intact.
ip netns exec "$ns_sw" ndp_pktgen recv --dev t1 --dport 5000 --count 6 \
	--timeout-ms 30000 --idle-ms 5000 >"$tmp/tap" 2>"$tmp/tap.err" &
tap_pid=$!
ndp_lib_wait 5000 grep -qs receiving "$tmp/tap.err"
run -4 6 limit 2 hlimit 32 trim-prob 100 -- "data*6:doff=12:size=800"
rc=$?
wait $tap_pid
tap_rc=$?
ndp_lib_expect_eq "clones: receiver sees 4 trimmed, options intact" "0 4 0" \
	"$rc $(sch_summary "$tmp/rx" trimmed) $(sch_summary "$tmp/rx" bad_opts)"
ndp_lib_expect_eq "clones: the ingress tap saw 6 intact packets" "0 6 0 0" \
	"$tap_rc $(sch_summary "$tmp/tap" pkts) $(sch_summary "$tmp/tap" trimmed) $(sch_summary "$tmp/tap" bad_pcsum)"

# 3. doff claims 160 bytes of header in a 60-byte NDP packet: not NDP.
run -4 6 limit 2 hlimit 32 trim-prob 100 -- "data*6:doff-lie=40:size=20"
ndp_lib_expect_eq "doff past the end: other traffic, nothing trimmed" \
	"0 0 0 6+" "$(frozen trim_arrival trim_tail data_qlen other_qlen)"
ndp_lib_expect_eq "doff past the end: forwarded unmodified" "6 0 0" \
	"$(sch_summary "$tmp/rx" pkts) $(sch_summary "$tmp/rx" trimmed) $(sch_summary "$tmp/rx" bad_len)"
run -6 6 limit 2 hlimit 32 trim-prob 100 -- "data*6:doff-lie=40:size=20"
ndp_lib_expect_eq "v6 doff past the end: other traffic" \
	"0 0 6+ 6" "$(frozen trim_arrival data_qlen other_qlen) $(sch_summary "$tmp/rx" pkts)"

# 4. IPv4 fragments carrying protocol NDP: a non-first fragment (offset
#    1480 bytes; its first bytes only look like an NDP header) and a first
#    fragment (MF): never parsed as NDP, never trimmed.
run -4 6 limit 2 hlimit 32 trim-prob 100 -- "data*6:frag=185"
ndp_lib_expect_eq "non-first fragments: other traffic, untouched" \
	"0 0 0 6+|6 0" "$(frozen trim_arrival trim_tail data_qlen other_qlen)|$(sch_summary "$tmp/rx" pkts) $(sch_summary "$tmp/rx" trimmed)"
run -4 6 limit 2 hlimit 32 trim-prob 100 -- "data*6:mf=1"
ndp_lib_expect_eq "first fragments: other traffic, untouched" \
	"0 0 0 6+|6 0" "$(frozen trim_arrival trim_tail data_qlen other_qlen)|$(sch_summary "$tmp/rx" pkts) $(sch_summary "$tmp/rx" trimmed)"

# 5. Header-class packets with a payload: no strict priority, no RTS.
run -4 6 limit 2 hlimit 2 -- "data*6:flags=trimmed:size=1000"
ndp_lib_expect_eq "trimmed flag with payload: other traffic, not returned" \
	"0 0 0 6+" "$(frozen hdr_qlen rts hdr_drops other_qlen)"
run -4 6 limit 2 hlimit 2 -- "ack*6:size=200"
ndp_lib_expect_eq "control packet with payload: other traffic" \
	"0 0 6+" "$(frozen hdr_qlen hdr_drops other_qlen)"
run -4 3 limit 2 hlimit 8 -- "ack*3"
ndp_lib_expect_eq "control packets without payload stay headers" \
	"3 0" "$(frozen hdr_qlen data_qlen)"

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
