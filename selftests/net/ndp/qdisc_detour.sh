#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp port groups, OPF detours and Dart deflection on a small
# leaf-spine of namespaces (built here, see topo below):
#
#   h1 --p1-+              +-- sp1 --+
#   h2 --p2-+-- leaf1 -----+-- sp2 --+-- leaf2 -- rx
#               (u1,u2,u3) +-- sp3 --+
#
# leaf1 routes the receiver's prefixes through u1 (sp1), with less
# preferred routes through u2 and u3, so a packet headed to rx is headed
# to u1 and a detour finds a route through u2 or u3; p1 and p2 are
# host-facing ports.  Every
# leaf1 port runs sch_ndp in group 1.  Crafted packets (ndp_pktgen) go
# through a frozen u1 (see qdisc_lib.sh: rate 8bit plus a primer) so the
# data queue length is exact; ndp_pktgen recv on the spines, the hosts and
# the receiver counts what arrives where.
#  - only DATA marked NDP_F_UNSCHED (not NDP_F_RTX) is detoured, and only
#    once u1's data queue holds opf-thresh packets; IPv4 and IPv6;
#  - detoured packets arrive at sp2/sp3 with detours + 1, checksums valid,
#    never at a host, never back at the port they came from; a packet
#    that already took dcc-thresh detours is trimmed, not detoured;
#  - NDP transfers (incast plus a background transfer) through leaf1 with
#    detours on arrive sha256-intact and detours happen;
#  - Dart: a short flow's first packet above deflect-thresh takes a table
#    entry, the whole flow follows one sibling in order, its last packet
#    frees the entry; long flows are never deflected;
#  - bad tc input is refused with the documented message and changes
#    nothing; a device cannot join twice;
#  - deleting a namespace with groups configured and unloading sch_ndp
#    leave no splat.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

ndp_lib_require_cmd tc ndp_pktgen ndp_xfer
ndp_lib_load_modules sch_ndp ndp

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"

# lnk NS1 IF1 NS2 IF2 N: veth pair, 10.N.0.1/24 + fd00:N::1/64 on IF1 and
# .2 / ::2 on IF2.
lnk()
{
	ndp_topo_link "$1" "$2" "$3" "$4" 1500 || return 1
	ip -n "$1" addr add "10.$5.0.1/24" dev "$2"
	ip -n "$3" addr add "10.$5.0.2/24" dev "$4"
	ip -n "$1" addr add "fd00:$5::1/64" dev "$2" nodad
	ip -n "$3" addr add "fd00:$5::2/64" dev "$4" nodad
}

# rt NS PREFIX4 VIA4 PREFIX6 VIA6
rt()
{
	ip -n "$1" route replace "$2" via "$3"
	ip -n "$1" -6 route replace "$4" via "$5"
}

topo()
{
	local s ns
	ndp_topo_ns_new h1 h2 leaf1 sp1 sp2 sp3 leaf2 rx || return 1
	for ns in "$leaf1" "$sp1" "$sp2" "$sp3" "$leaf2"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 || return 1
	done
	lnk "$h1" eth0 "$leaf1" p1 1 || return 1	# h1 10.1.0.1
	lnk "$h2" eth0 "$leaf1" p2 2 || return 1	# h2 10.2.0.1
	for s in 1 2 3; do
		ns=sp$s
		lnk "$leaf1" "u$s" "${!ns}" sd "1$s" || return 1	# 10.1S.0.0/24
		lnk "${!ns}" se "$leaf2" "s$s" "2$s" || return 1	# 10.2S.0.0/24
	done
	lnk "$leaf2" rr "$rx" eth0 100 || return 1		# rx 10.100.0.2
	ip -n "$rx" addr add 10.101.0.2/24 dev eth0
	ip -n "$rx" addr add fd00:101::2/64 dev eth0 nodad
	ip -n "$leaf2" addr add 10.101.0.1/24 dev rr
	ip -n "$leaf2" addr add fd00:101::1/64 dev rr nodad
	rt "$h1" default 10.1.0.2 default fd00:1::2
	rt "$h2" default 10.2.0.2 default fd00:2::2
	rt "$rx" default 10.100.0.1 default fd00:100::1
	# leaf1: the receiver's prefixes only through sp1 (u1).
	rt "$leaf1" 10.100.0.0/16 10.11.0.2 fd00:100::/63 fd00:11::2
	rt "$leaf1" 10.101.0.0/24 10.11.0.2 fd00:101::/64 fd00:11::2
	# Less preferred routes through sp2 and sp3: what a detour through
	# u2 or u3 finds (a FIB lookup restricted to that device).
	for s in 2 3; do
		ip -n "$leaf1" route add 10.100.0.0/16 via "10.1$s.0.2" metric "200$s"
		ip -n "$leaf1" route add 10.101.0.0/24 via "10.1$s.0.2" metric "200$s"
		ip -n "$leaf1" -6 route add fd00:100::/63 via "fd00:1$s::2" metric "200$s"
		ip -n "$leaf1" -6 route add fd00:101::/64 via "fd00:1$s::2" metric "200$s"
	done
	for s in 1 2 3; do
		ns=sp$s
		rt "${!ns}" 10.100.0.0/24 "10.2$s.0.2" fd00:100::/64 "fd00:2$s::2"
		rt "${!ns}" 10.101.0.0/24 "10.2$s.0.2" fd00:101::/64 "fd00:2$s::2"
		rt "${!ns}" 10.1.0.0/16 "10.1$s.0.1" fd00:1::/63 "fd00:1$s::1"
		rt "${!ns}" 10.2.0.0/16 "10.1$s.0.1" fd00:2::/64 "fd00:1$s::1"
		rt "$leaf2" 10.1$s.0.0/24 "10.2$s.0.1" fd00:1$s::/64 "fd00:2$s::1"
	done
	rt "$leaf2" 10.1.0.0/16 10.21.0.1 fd00:1::/63 fd00:21::1
	rt "$leaf2" 10.2.0.0/16 10.21.0.1 fd00:2::/64 fd00:21::1
	# sp2 reaches 10.101.0.0/24 through leaf1 (u2) for the arrival-port
	# test; its detoured packets for that prefix would go back, so that
	# prefix is only used by packets sp2 itself sends.
	return 0
}

# Resolve every neighbour on the paths before any port is frozen.  leaf1's
# neighbours behind u1 are made permanent: a port frozen for a minute
# holds the neighbour probes of traffic it carries, the entry fails, and
# the next packet's ARP or ND solicitation takes the one departure a
# frozen port allows, ahead of freeze's primer.
warm()
{
	local ns a mac
	for a in 10.100.0.2 fd00:100::2 10.101.0.2 fd00:101::2; do
		for ns in "$h1" "$h2" "$sp1" "$sp2" "$sp3"; do
			ip netns exec "$ns" ping -c 1 -W 2 "$a" >/dev/null 2>&1
		done
	done
	for a in 10.12.0.2 10.13.0.2 fd00:12::2 fd00:13::2 10.11.0.2 fd00:11::2; do
		ip netns exec "$leaf1" ping -c 1 -W 2 "$a" >/dev/null 2>&1
	done
	mac=$(ip -n "$sp1" -br link show dev sd | awk '{ print $3 }')
	ip -n "$leaf1" neigh replace 10.11.0.2 lladdr "$mac" dev u1 nud permanent &&
		ip -n "$leaf1" neigh replace fd00:11::2 lladdr "$mac" dev u1 nud permanent
}

topo || ndp_lib_skip_all "cannot build the leaf-spine topology"
warm || ndp_lib_skip_all "cannot pin leaf1's neighbours behind u1"

ndp_lib_plan 30

# Every leaf1 port in group 1; p1, p2 face hosts.
L1TC()
{
	ip netns exec "$leaf1" tc "$@"
}

group_up()
{
	local d
	for d in p1 p2 u1 u2 u3; do
		L1TC qdisc del dev $d root 2>/dev/null
	done
	for d in p1 p2; do
		L1TC qdisc add dev $d root ndp group 1 hostport on || return 1
	done
	for d in u2 u3; do
		L1TC qdisc add dev $d root ndp group 1 || return 1
	done
	L1TC qdisc add dev u1 root ndp group 1 "$@"
}

# The qdisc_lib.sh helpers work on $ns_sw/tr: point them at leaf1/u1.
ns_sw=$leaf1
sch_qdisc() { L1TC qdisc replace dev u1 root ndp "$@"; }
sch_tc() { L1TC "$@"; }

# freeze FAMILY: u1 held back for a minute (rate 8bit + one primer).  If
# another packet took the one departure first (the primer is then held),
# release and try again, up to three times.
freeze()
{
	local dst=10.100.0.2 v= i
	[ "$1" = -6 ] && { dst=fd00:100::2; v=-6; }
	for i in 1 2 3; do
		L1TC qdisc change dev u1 root ndp rate 8bit || return 1
		ip netns exec "$h1" ndp_pktgen send $v --dst "$dst" --psn 0 \
			"pull:dport=$NDP_SCH_PRIMER_PORT" >/dev/null
		ndp_lib_wait 10000 u1_drained && return 0
		ndp_lib_info "freeze $i: the primer did not leave u1" \
			"(other packets sent: $(xs u1 other_pkts))"
		release
		ndp_lib_wait 10000 u1_drained || return 1
	done
	return 1
}

release()
{
	L1TC qdisc change dev u1 root ndp rate unlimited
}

# xs DEV NAME: xstats counter of leaf1's DEV.
xs()
{
	L1TC -s -j qdisc show dev "$1" | grep -o "\"$2\":[0-9]*" | head -n 1 | cut -d: -f2
}

# rx_start NS DEV OUT: ndp_pktgen recv in the background (dport 5000),
# until rx_stop; every packet line is flushed as it arrives.
rx_pids=()
rx_start()
{
	ip netns exec "$1" ndp_pktgen recv --dev "$2" --dport 5000 \
		--timeout-ms 600000 --idle-ms 600000 >"$3" 2>"$3.err" &
	rx_pids+=($!)
	ndp_lib_wait 10000 grep -q receiving "$3.err" 2>/dev/null
}

rx_stop()
{
	local p
	for p in "${rx_pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rx_pids=()
}

# u1_drained: u1's NDP queues are empty.
u1_drained()
{
	L1TC -s qdisc show dev u1 |
		awk '$1 == "hdr:" || $1 == "data:" { if ($3 != 0) b = 1; n++ }
		     END { exit !(n == 2 && !b) }'
}

# cnt OUT [PATTERN]: packets (lines "pkt ") of OUT matching PATTERN.
cnt()
{
	grep '^pkt ' "$1" | grep -c -- "${2:-.}"
}

# rxsum OUT: "packets trimmed bad reordered" of a receiver's output.
rxsum()
{
	awk '/^pkt / { n++; if ($0 ~ /flags=[^ ]*trimmed/) t++; if ($0 ~ /=BAD/) b++
		for (i = 1; i <= NF; i++) if ($i ~ /^psn=/) p = substr($i, 5) + 0
		if (n > 1 && p < last) r++; last = p }
	     END { printf "%d %d %d %d\n", n, t, b, r }' "$1"
}

# u1_sum NAME...: the sum of those xstats counters of u1.
u1_sum()
{
	L1TC -s -j qdisc show dev u1 | awk -v l="$*" '
		BEGIN { n = split(l, w, " "); for (i = 1; i <= n; i++) x["\"" w[i] "\""] = 1 }
		{ while (match($0, /"[a-z_]+":[0-9]+/)) {
			kv = substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH)
			split(kv, f, ":"); if ((f[1] in x) && !(f[1] in seen)) { s += f[2]; seen[f[1]] = 1 } } }
		END { print s + 0 }'
}

# Where u1 puts a packet that arrives: queued (trimmed or not), sent,
# dropped, detoured, deflected or returned to its sender.
U1_FATES="hdr_qlen data_qlen hdr_pkts data_pkts hdr_drops data_drops detour_out deflect_out rts"

# u1_took N: u1 has dealt with N packets since u1_base.
u1_took()
{
	[ $(($(u1_sum $U1_FATES) - u1_base)) -ge "$1" ]
}

# arrived N: N packets (port 5000) reached the receiver and the spines.
arrived()
{
	[ "$(cnt "$tmp/rx")" -ge "$1" ] &&
		[ $(($(cnt "$tmp/sp1") + $(cnt "$tmp/sp2") + $(cnt "$tmp/sp3"))) -ge "$1" ]
}

# spec_pkts SPEC...: how many packets those ndp_pktgen specs send.
spec_pkts()
{
	local s n=0 k
	for s in "$@"; do
		s=${s%%:*}
		k=1
		case $s in *\**) k=${s#*\*} ;; esac
		n=$((n + k))
	done
	echo $n
}

# burst FAMILY SENDER-NS DST SPECS...: with every receiver listening and
# u1 frozen, send, wait until u1 has dealt with every packet, snapshot
# u1, release, wait until u1 has drained and what it held (less what it
# dropped or returned) arrived, stop the receivers.
burst()
{
	local v=$1 sns=$2 dst=$3 f n d0
	shift 3
	for f in h1 h2 sp1 sp2 sp3 rx; do
		local dev=sd
		case $f in h1|h2|rx) dev=eth0 ;; esac
		rx_start "${!f}" "$dev" "$tmp/$f" || return 1
	done
	freeze "$v" || { rx_stop; return 1; }
	n=$(spec_pkts "$@")
	u1_base=$(u1_sum $U1_FATES)
	d0=$(u1_sum hdr_drops data_drops rts)
	ip netns exec "$sns" ndp_pktgen send $v --dst "$dst" "$@" >/dev/null ||
		{ rx_stop; return 1; }
	ndp_lib_wait 20000 u1_took "$n"
	snap=$(L1TC -s -j qdisc show dev u1)
	release
	ndp_lib_wait 60000 u1_drained
	ndp_lib_wait 20000 arrived $((n - ($(u1_sum hdr_drops data_drops rts) - d0)))
	rx_stop
}

# sn NAME: counter from the snapshot taken by burst.
sn()
{
	printf '%s' "$snap" | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# --- 1. OPF eligibility, IPv4 and IPv6 -------------------------------
# limit 8, opf-thresh 4: the first 4 packets queue at u1, then 8
# unscheduled packets are detoured, 4 scheduled ones (no UNSCHED) queue
# (the queue is then full) and 4 RTX|UNSCHED ones are trimmed, never
# detoured.
for v in -4 -6; do
	dst=10.100.0.2
	[ $v = -6 ] && dst=fd00:100::2
	group_up limit 8 opf-thresh 4 dcc-thresh 2 detour on trim-prob 100 ||
		ndp_lib_fail_all "sch_ndp refused the port group"
	burst $v "$h1" "$dst" "data*4:size=500" "data*8:size=500:flags=unsched" \
		"data*4:size=500" "data*4:size=500:flags=unsched,rtx"
	rc=$?
	det=$(($(cnt "$tmp/sp2") + $(cnt "$tmp/sp3")))
	ndp_lib_expect_eq "$v opf: 8 unscheduled packets detoured to sp2/sp3, counted" \
		"0 8 8" "$rc $det $(sn detour_out)"
	ndp_lib_expect_eq "$v opf: every detoured packet is unsched, not rtx, detours=1, checksums ok" \
		"8" "$(cat "$tmp/sp2" "$tmp/sp3" | grep '^pkt ' | grep 'flags=unsched ' |
			grep ' hcsum=ok pcsum=ok ' | grep -c ' detours=1$')"
	ndp_lib_expect_eq "$v opf: nothing to the hosts, nothing detoured back, sp1 gets the rest" \
		"0 0 12" "$(cnt "$tmp/h1") $(cnt "$tmp/h2") $(cnt "$tmp/sp1")"
	ndp_lib_expect_eq "$v opf: the receiver gets all 20, the 4 rtx trimmed, all verified" \
		"20 4 0" "$(rxsum "$tmp/rx" | cut -d' ' -f1-3)"
done

# --- 2. the detour cap (dcc-thresh) ------------------------------------
# Unscheduled packets that took 1 detour are detoured (arrive with 2);
# those that took 2 already are queued or trimmed, never detoured.
group_up limit 8 opf-thresh 4 dcc-thresh 2 detour on trim-prob 100
burst -4 "$h1" 10.100.0.2 "data*4:size=500" "data*4:size=500:flags=unsched:detours=1" \
	"data*4:size=500:flags=unsched:detours=2"
ndp_lib_expect_eq "dcc: only the packets below the cap are detoured" \
	"4 4" "$(cat "$tmp/sp2" "$tmp/sp3" | grep -c ' detours=2$') $(sn detour_out)"
ndp_lib_expect_eq "dcc: no packet arrives with more than dcc-thresh detours" \
	"0" "$(cat "$tmp/rx" "$tmp/sp1" "$tmp/sp2" "$tmp/sp3" | grep '^pkt ' |
		grep -vc ' detours=[012]$')"
ndp_lib_expect_eq "dcc: u1 counted the 8 arrivals with earlier detours" \
	"8" "$(sn detour_in)"
group_up limit 8 opf-thresh 4 dcc-thresh 0 detour on trim-prob 100
burst -4 "$h1" 10.100.0.2 "data*12:size=500:flags=unsched"
ndp_lib_expect_eq "dcc-thresh 0: nothing is detoured" \
	"0 0" "$(($(cnt "$tmp/sp2") + $(cnt "$tmp/sp3"))) $(sn detour_out)"

# --- 3. never back to the arrival port ---------------------------------
# sp2 sends to 10.101.0.2 through leaf1 (arrives on u2, headed to u1):
# the only sibling is u3.
ip -n "$sp2" route replace 10.101.0.0/24 via 10.12.0.1
group_up limit 8 opf-thresh 4 detour on trim-prob 100
burst -4 "$sp2" 10.101.0.2 "data*4:size=500" "data*8:size=500:flags=unsched"
ndp_lib_expect_eq "arrival port: all 8 detours leave through u3, none back to sp2" \
	"8 0 8" "$(cnt "$tmp/sp3") $(cnt "$tmp/sp2") $(sn detour_out)"
ip -n "$sp2" route replace 10.101.0.0/24 via 10.22.0.2

# --- 4. no sibling: hosts only -----------------------------------------
group_up limit 8 opf-thresh 4 detour on trim-prob 100
L1TC qdisc change dev u2 root ndp hostport on
L1TC qdisc change dev u3 root ndp hostport on
burst -4 "$h1" 10.100.0.2 "data*4:size=500" "data*4:size=500:flags=unsched"
ndp_lib_expect_eq "no eligible sibling: counted, nothing detoured, nothing to hostports" \
	"4 0 0" "$(sn detour_nosib) $(sn detour_out) $(($(cnt "$tmp/sp2") + $(cnt "$tmp/sp3") + $(cnt "$tmp/h2")))"

# --- 5. Dart deflection -------------------------------------------------
# deflect-thresh 4: 4 packets of another flow (sport 4001) fill u1; the
# short flow's first packet (syn, syn_off 0, prio 6000) allocates an
# entry; its 6 packets all leave through one sibling, in order; the last
# frees the entry.  A long flow (prio 1 MB) and a flow whose first packet
# is not its first psn are not deflected.
group_up limit 8 deflect on deflect-thresh 4 trim-prob 100
burst -4 "$h1" 10.100.0.2 "data*4:size=500:sport=4001" \
	"data:size=1000:flags=syn:prio=6000" "data*4:size=1000:prio=5000" \
	"data:size=1000:flags=last:prio=1000" \
	"data:size=1000:flags=syn:prio=1000000:sport=4002" \
	"data:size=1000:flags=last:prio=1000"
a=$(grep -c 'sport=4000' "$tmp/sp2"); b=$(grep -c 'sport=4000' "$tmp/sp3")
ndp_lib_expect_eq "deflect: the 6 packets of the short flow, and only they, leave through one sibling" \
	"6 0" "$(( a > b ? a : b )) $(( a > b ? b : a ))"
f=$tmp/sp2; [ "$b" -gt "$a" ] && f=$tmp/sp3
ndp_lib_expect_eq "deflect: in order, intact, detours=1" \
	"0 0 6" "$(grep 'sport=4000' "$f" | rxsum /dev/stdin | awk '{ print $4, $3 }') $(grep -c ' detours=1$' "$f")"
ndp_lib_expect_eq "deflect: counters new 1 out 6 freed 1; long flow not deflected" \
	"1 6 1 0" "$(sn deflect_new) $(sn deflect_out) $(sn deflect_free) $(grep -c 'sport=4002' "$tmp/sp2" "$tmp/sp3" | awk -F: '{ s += $2 } END { print s }')"
ndp_lib_expect_eq "deflect: the freed flow's next packet is not deflected" \
	"1" "$(grep -c 'sport=4000' "$tmp/sp1")"

# --- 6. NDP transfers with detours on -----------------------------------
# u1 at 20 Mbit/s with limit 8: an incast of 4 connections from h1 and 4
# from h2 (their first windows meet at u1) plus a background transfer.
incast()
{
	local fam=$1 dst=$2 p1 p2 rc=0 pid
	p1=$(xfer_next_port); p2=$(xfer_next_port)
	XFER_PORT=$p1 xfer_run "$h1" "$rx" "$dst" "$fam" 256K 0 4 300 &
	pid=$!
	XFER_PORT=$p2 xfer_run "$h2" "$rx" "$dst" "$fam" 256K 0 4 300 || rc=1
	wait $pid || rc=1
	return $rc
}
group_up limit 8 detour on rate 20mbit
bgp=$(xfer_next_port)
XFER_PORT=$bgp xfer_run "$h2" "$rx" 10.100.0.2 4 1M 0 1 300 >"$tmp/bg.out" 2>&1 &
bg=$!
ndp_lib_check "xfer: incast of 8 connections plus background, detours on, sha256 intact (IPv4)" \
	incast 4 10.100.0.2
wait $bg
ndp_lib_expect_eq "xfer: the background transfer is intact" "0" "$?"
ndp_lib_expect_ge "xfer: IPv4 first-window packets were detoured" 1 "$(xs u1 detour_out)"
before=$(xs u1 detour_out)
ndp_lib_check "xfer: incast of 8 connections, detours on, sha256 intact (IPv6)" \
	incast 6 fd00:100::2
ndp_lib_expect_ge "xfer: IPv6 first-window packets were detoured" 1 \
	"$(( $(xs u1 detour_out) - before ))"
ndp_lib_info "u1: $(L1TC -s qdisc show dev u1 | grep -E 'detour|trimmed' | tr -s ' \n' ' ')"

# --- 7. bad input --------------------------------------------------------
# tc_err ARGS...: tc's error message (it must fail), without "Error: ".
tc_err()
{
	L1TC qdisc change dev u2 root ndp "$@" 2>&1 >/dev/null && echo "accepted"
}

# has NAME TEXT OUTPUT: pass if OUTPUT contains TEXT.
has()
{
	case "$3" in
	*"$2"*) ndp_lib_pass "$1" ;;
	*) ndp_lib_fail "$1" "expected '$2' in '$3'" ;;
	esac
}
cfg()
{
	L1TC -j qdisc show dev u2 | grep -o '"[a-z_]*":[^,}]*' | grep -E '"(group|limit|detour|hostport|dcc_thresh)"' | tr '\n' ' '
}
L1TC qdisc replace dev u2 root ndp group 1 limit 8
old=$(cfg)
has "bad input: group 70000 refused" \
	"sch_ndp: group must be in [0, 65535] (0: no group)" \
	"$(tc_err group 70000 limit 4)"
has "bad input: dcc-thresh 16 refused" \
	"sch_ndp: dcc-thresh must be in [0, 15] detours" \
	"$(tc_err dcc-thresh 16 limit 4)"
has "bad input: detour without a group refused" \
	"sch_ndp: detour and deflect need a port group (group ID)" \
	"$(tc_err group 0 detour on limit 4)"
ndp_lib_expect_eq "bad input: a refused change leaves the old configuration" \
	"$old" "$(cfg)"
# One device, two sch_ndp instances (mq children): the second cannot join.
ip -n "$leaf1" link add mq0 numtxqueues 2 type veth peer name mq1 numtxqueues 2
ip -n "$leaf1" link set mq0 up
L1TC qdisc replace dev mq0 root handle 1: mq
L1TC qdisc replace dev mq0 parent 1:1 ndp group 1
has "bad input: a device cannot join twice" \
	"sch_ndp: this device is already a port of a group" \
	"$(L1TC qdisc replace dev mq0 parent 1:2 ndp group 2 2>&1 >/dev/null)"
ndp_lib_expect_eq "group, hostport and detour settings are shown by tc" \
	"group 1 hostport on detour off" \
	"$(L1TC qdisc show dev p1 | grep -o 'group [0-9]* hostport [a-z]* detour [a-z]*')"

# --- 8. teardown with groups configured ----------------------------------
teardown()
{
	local n
	for n in "$h1" "$h2" "$leaf1" "$sp1" "$sp2" "$sp3" "$leaf2" "$rx"; do
		ip netns del "$n"
	done
	ndp_lib_wait 60000 rmmod sch_ndp 2>/dev/null
	! lsmod | grep -q '^sch_ndp ' && modprobe sch_ndp && ndp_lib_dmesg_clean
}
ndp_lib_check "namespace deletion with groups configured, then rmmod sch_ndp: no splat" \
	teardown

ndp_lib_done
