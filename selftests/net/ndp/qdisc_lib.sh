#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the sch_ndp selftests (qdisc_*.sh); source after lib.sh.
# Not a test by itself (not listed in TESTS).
#
# The tests build ndp_topo_switch and put sch_ndp on the switch port
# "tr" towards the receiver.  To make queue contents exact, a test
# "freezes" the port: it configures rate 8bit (1 byte/s) and sends one
# primer packet, which leaves at once and holds the next departure back
# for a minute or more; then it sends a burst (all queued), reads the
# counters, and "releases" the port with "tc qdisc change ... rate
# unlimited", which drains the queues in the order the qdisc chooses.

NDP_SCH_PRIMER_PORT=99	# receivers filter on --dport 5000; the primer is not seen

# sch_setup [N]: switch topology with N senders (default 1) and static
# neighbour entries on the switch, so no ARP/ND has to cross a frozen port.
sch_setup()
{
	local mac
	ndp_topo_switch "${1:-1}" || return 1
	mac=$(ip -n "$ns_rx" -br link show dev eth0 | awk '{ print $3 }')
	ip -n "$ns_sw" neigh replace 10.0.100.1 lladdr "$mac" dev tr nud permanent || return 1
	ip -n "$ns_sw" neigh replace fd00:100::1 lladdr "$mac" dev tr nud permanent || return 1
	for i in $(seq 1 "${1:-1}"); do
		local var=ns_h$i
		mac=$(ip -n "${!var}" -br link show dev eth0 | awk '{ print $3 }')
		ip -n "$ns_sw" neigh replace "10.0.$i.1" lladdr "$mac" dev "t$i" nud permanent
		ip -n "$ns_sw" neigh replace "fd00:$i::1" lladdr "$mac" dev "t$i" nud permanent
	done
	# The hosts resolve the switch once, before any test freezes it.
	ip netns exec "$ns_h1" ping -c 1 -W 2 10.0.100.1 >/dev/null 2>&1
	ip netns exec "$ns_h1" ping -c 1 -W 2 fd00:100::1 >/dev/null 2>&1
	return 0
}

# sch_tc ARGS...: tc in the switch namespace.
sch_tc()
{
	ip netns exec "$ns_sw" tc "$@"
}

# sch_qdisc OPTIONS...: (re)place the ndp qdisc on tr.
sch_qdisc()
{
	sch_tc qdisc replace dev tr root ndp "$@"
}

# sch_ndp_empty: sch_ndp's NDP queues (header and data) on tr are empty.
# The other class does not count: the switch's own IPv6 packets (MLD
# reports on a fresh link) may wait there, and they take no NDP turn.
sch_ndp_empty()
{
	sch_tc -s qdisc show dev tr |
		awk '$1 == "hdr:" || $1 == "data:" { if ($3 != 0) busy = 1; n++ }
		     END { exit !(n == 2 && !busy) }'
}

# sch_freeze [-6]: rate 8bit plus one primer packet through tr.  Waits
# until the primer has left the NDP queues: a slow guest (debug kernel)
# could otherwise still hold it when the test's burst arrives, and it
# would take a header turn in the burst's WRR order.  If another packet
# left first (one of the switch's own, in the other class), it holds the
# port and the primer stays queued: release the port and try again.
sch_freeze()
{
	local dst=10.0.100.1 v= try
	[ "${1:-}" = -6 ] && { dst=fd00:100::1; v=-6; }
	for try in 1 2 3 4 5; do
		sch_tc qdisc change dev tr root ndp rate 8bit || return 1
		ip netns exec "$ns_h1" ndp_pktgen send $v --dst "$dst" --psn 0 \
			"pull:dport=$NDP_SCH_PRIMER_PORT" >/dev/null
		ndp_lib_wait 3000 sch_ndp_empty 2>/dev/null && return 0
		echo "sch_freeze: attempt $try: the primer did not leave:" >&2
		sch_tc -s qdisc show dev tr >&2
		sch_release || return 1
		ndp_lib_wait 5000 sch_ndp_empty 2>/dev/null
	done
	return 1
}

# sch_release: let the frozen port drain at full speed.
sch_release()
{
	sch_tc qdisc change dev tr root ndp rate unlimited
}

# sch_recv_start NS OUT [ARGS...]: start "ndp_pktgen recv" in NS on eth0,
# output in OUT, and wait until it listens.  Sets sch_recv_pid.
sch_recv_start()
{
	local ns=$1 out=$2
	shift 2
	ip netns exec "$ns" ndp_pktgen recv --dev eth0 "$@" >"$out" 2>"$out.err" &
	sch_recv_pid=$!
	ndp_lib_wait 5000 grep -qs receiving "$out.err"
}

# sch_recv_wait: wait for the receiver; returns its exit status.
sch_recv_wait()
{
	wait "$sch_recv_pid"
}

# sch_run OUT FAMILY COUNT QDISC-OPTIONS -- SPECS...: tr's qdisc replaced
# by ndp with QDISC-OPTIONS and frozen, SPECS sent by ndp_pktgen from h1 to
# the receiver (10.0.100.1 or fd00:100::1 by FAMILY, -4 or -6), which
# waits for COUNT packets on port 5000 into OUT; the counters snapshotted
# (sch_xstat reads the snapshot), the port released.  Returns the
# receiver's exit status.
sch_run()
{
	local out=$1 v=$2 n=$3 dst=10.0.100.1 opts=()
	shift 3
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	[ "$v" = -6 ] && dst=fd00:100::1
	sch_unsnap
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc "${opts[@]}" || return 1
	sch_freeze "$v" || return 1
	sch_recv_start "$ns_rx" "$out" --dport 5000 --count "$n" \
		--timeout-ms 30000 --idle-ms 5000 || return 1
	ip netns exec "$ns_h1" ndp_pktgen send "$v" --dst "$dst" "$@" >/dev/null || return 1
	sch_snap
	sch_release || return 1
	sch_recv_wait
}

# sch_xstat NAME: an xstats counter of the ndp qdisc on tr (tc -s -j),
# from the snapshot taken by sch_snap if there is one, else read now.
sch_xstat()
{
	local json=${sch_snap_json:-$(sch_tc -s -j qdisc show dev tr)}
	printf '%s' "$json" | grep -o "\"$1\":[0-9][0-9]*" | head -n 1 | cut -d: -f2
}

# sch_snap / sch_unsnap: take / forget one snapshot for several sch_xstat.
sch_snap()
{
	sch_snap_json=$(sch_tc -s -j qdisc show dev tr)
}

sch_unsnap()
{
	sch_snap_json=
}

# sch_pkts OUT FIELD: the values of FIELD (psn, type, flags, ...) of the
# received packets in OUT, in arrival order, space separated.
sch_pkts()
{
	awk -v f="$2=" '/^pkt / { for (i = 1; i <= NF; i++) if (index($i, f) == 1) printf "%s ", substr($i, length(f) + 1) }' "$1" | sed 's/ $//'
}

# sch_summary OUT FIELD: a field of the receiver's summary line.
sch_summary()
{
	awk -v f="$2=" '/^summary / { for (i = 1; i <= NF; i++) if (index($i, f) == 1) print substr($i, length(f) + 1) }' "$1"
}

# sch_classes OUT: arrival order as letters: H (header/control), D (data).
sch_classes()
{
	awk '/^pkt / { c = "D"; for (i = 1; i <= NF; i++) if ($i ~ /^type=/ && $i != "type=data") c = "H"; else if ($i ~ /^flags=.*trimmed/) c = "H"; printf "%s", c } END { print "" }' "$1"
}

# sch_wrr_expect NH ND WRR: the order WRR gives NH queued headers and ND
# queued data packets.
sch_wrr_expect()
{
	local h=$1 d=$2 w=$3 sent=0 s=
	while [ $((h + d)) -gt 0 ]; do
		if [ "$h" -gt 0 ] && { [ "$d" -eq 0 ] || [ $sent -lt "$w" ]; }; then
			s+=H; h=$((h - 1))
			if [ "$d" -gt 0 ]; then sent=$((sent + 1)); else sent=0; fi
		else
			s+=D; d=$((d - 1)); sent=0
		fi
	done
	echo "$s"
}
