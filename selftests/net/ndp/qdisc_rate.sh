#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp under load: the emulated link rate (measured at the receiver,
# within 10 %), TCP through the same port while NDP overflows it (bytes
# intact), options changed on a live qdisc under traffic, the qdisc as a
# child of tbf (parents' backlog accounting after trims and RTS), delete
# under traffic, namespace exit with a loaded port, module unload.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ping ndp_pktgen sha256sum
ndp_lib_load_modules sch_ndp
sch_setup 1 || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 15

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"
RX=10.0.100.1

# rate_measure KBIT N: N packets of 1254 IP bytes are queued on a
# frozen port, which is then released at rate KBIT; sets rate_kbit to the
# receiver's arrival rate (Ethernet header included, as the qdisc counts
# it; timestamps are taken when the packet leaves the switch's veth).
rate_measure()
{
	local kbit=$1 n=$2 pkts bytes span
	rate_kbit=0
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc limit 1000 hlimit 1000 || return 1
	sch_freeze || return 1
	sch_recv_start "$ns_rx" "$tmp/rx" --dport 5000 --count "$n" --quiet --timeout-ms 30000 || return 1
	ip netns exec "$ns_h1" ndp_pktgen send --dst $RX "data*$n:size=1200" >/dev/null || return 1
	sch_tc qdisc change dev tr root ndp rate "${kbit}kbit" || return 1
	sch_recv_wait || return 1
	pkts=$(sch_summary "$tmp/rx" pkts)
	bytes=$(sch_summary "$tmp/rx" bytes)
	span=$(sch_summary "$tmp/rx" span_us)
	[ "$span" -gt 0 ] || return 1
	rate_kbit=$(( (bytes + 14 * (pkts - 1)) * 8 * 1000 / span ))
}

# 10 and 25 Mbit/s, about 300 ms and 200 ms of transmission: long
# against the tens of milliseconds a busy TCG host may delay the last
# departure.  A kernel NDP_TIME_FACTOR times slower (the debug kernels)
# cannot forward that fast through the switch namespace: the debug
# kernel released 10 and 25 Mbit/s ports at 2.2 and 5.6 (one throttle
# per packet: the time to forward one set the pace, not the port), and
# with the rates divided by twice the factor, a 3.1 Mbit/s port at 2.1
# on a busy host.  There both rates are divided by four times the
# factor (625 kbit/s and 1.6 Mbit/s), with as many packets: the same
# accuracy is asked of the port, over a longer time.
slow=$((4 * NDP_TIME_FACTOR))
[ "$slow" -gt 4 ] || slow=1
for run in 10000:300 25000:500; do
	kbit=$((${run%:*} / slow))
	rate_measure "$kbit" "${run#*:}"
	ndp_lib_info "rate ${kbit}kbit: measured $rate_kbit kbit/s, throttled $(sch_xstat throttled) times"
	ndp_lib_check "rate ${kbit}kbit within 10 %" \
		test "$rate_kbit" -ge $((kbit * 9 / 10)) -a "$rate_kbit" -le $((kbit * 11 / 10))
done
ndp_lib_check "the rate throttled dequeue" test "$(sch_xstat throttled)" -gt 0

# TCP next to an overflowing NDP data queue.
tcp_check()
{
	local pid flood rc=0
	head -c 1000000 /dev/urandom >"$tmp/tcp.in"
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc limit 8 rate 20mbit || return 1
	ip netns exec "$ns_rx" ndp_pktgen tcp-sink --port 5001 --timeout-ms 30000 \
		>"$tmp/tcp.out" 2>"$tmp/tcp.err" &
	pid=$!
	ndp_lib_wait 5000 grep -q listening "$tmp/tcp.err"
	ip netns exec "$ns_h1" bash -c "for i in 1 2 3 4 5; do ndp_pktgen send --dst $RX 'data*200:size=1200' >/dev/null; done" &
	flood=$!
	ip netns exec "$ns_h1" bash -c "cat $tmp/tcp.in >/dev/tcp/$RX/5001" || rc=1
	wait $pid || rc=1
	wait $flood
	[ $rc -eq 0 ] || return 1
	[ "$(sha256sum <"$tmp/tcp.in")" = "$(sha256sum <"$tmp/tcp.out")" ]
}
ndp_lib_check "1 MB over TCP through an overflowing port, intact" tcp_check
ndp_lib_check "NDP was trimmed meanwhile" test $(($(sch_xstat trim_arrival) + $(sch_xstat trim_tail))) -gt 0
ndp_lib_check "TCP went through the other queue" test "$(sch_xstat other_bytes)" -gt 1000000

# flood_start / flood_stop: NDP data and headers plus a ping flood.
flood_start()
{
	ip netns exec "$ns_h1" bash -c "while :; do ndp_pktgen send --dst $RX 'data*50:size=1200' 'pull*20' >/dev/null; ndp_pktgen send -6 --dst fd00:100::1 'data*30' >/dev/null; done" &
	flood_pid=$!
	ip netns exec "$ns_h1" ping -f -s 500 10.0.100.1 >/dev/null 2>&1 &
	ping_pid=$!
}

flood_stop()
{
	kill "$flood_pid" "$ping_pid" 2>/dev/null
	wait "$flood_pid" "$ping_pid" 2>/dev/null
	return 0	# (not wait's status: the killed jobs')
}

# is_drained: the qdiscs of tr hold nothing (prints them).
is_drained()
{
	local out
	out=$(sch_tc -s qdisc show dev tr)
	echo "$out"
	! printf '%s\n' "$out" | grep -q 'backlog [1-9]\|backlog 0b [1-9]'
}

# drained: after the flood, the qdiscs drain to nothing (within 10 s; a
# backlog miscounted by a trim stays, and fails).
drained()
{
	ndp_lib_wait 10000 is_drained
}

live_change()
{
	local i
	sch_tc qdisc del dev tr root 2>/dev/null
	sch_qdisc limit 8 rate 5mbit || return 1
	flood_start
	for i in $(seq 10); do
		sch_tc qdisc change dev tr root ndp limit $((i % 5 + 1)) hlimit $((i % 3)) olimit $((i * 3)) mode pfabric || return 1
		sleep 0.1
		sch_tc qdisc change dev tr root ndp limit 20 wrr $i rate ${i}mbit mode ndp trim-prob $((i * 10)) rts $([ $((i % 2)) = 0 ] && echo on || echo off) || return 1
		sleep 0.1
	done
	sch_tc qdisc change dev tr root ndp rate unlimited
	flood_stop
	drained
}
ndp_lib_check "options changed 20 times under traffic, queues drain to 0" live_change
ndp_lib_check "RTS and trims happened under the flood" \
	test $(($(sch_xstat trim_arrival) + $(sch_xstat trim_tail) + $(sch_xstat pfabric_evict))) -gt 0

child_of_tbf()
{
	local i
	sch_tc qdisc del dev tr root 2>/dev/null
	# 5 Mbit/s, divided as the rate cells are on a slow kernel, whose
	# flood did not fill the child's 4-packet header queue through it.
	sch_tc qdisc add dev tr root handle 1: tbf rate $((5000 / slow))kbit \
		burst 20kb latency 50ms || return 1
	sch_tc qdisc add dev tr parent 1:1 handle 10: ndp limit 4 hlimit 4 || return 1
	flood_start
	# Flood until the child has returned headers (what the next check
	# counts).
	ndp_lib_wait 20000 child_rts >/dev/null
	flood_stop
	drained
}
# child_rts: the child ndp qdisc returned headers to their senders.
child_rts()
{
	test "$(sch_tc -s -j qdisc show dev tr | grep -o '"rts":[0-9][0-9]*' | cut -d: -f2)" -gt 0
}
ndp_lib_check "as a child of tbf: trims and RTS keep the parent's backlog right" child_of_tbf
ndp_lib_check "the child trimmed and returned headers" child_rts

delete_under_traffic()
{
	local i
	flood_start
	for i in $(seq 10); do
		sch_tc qdisc replace dev tr root ndp limit 4 rate 20mbit || return 1
		sleep 0.1
		sch_tc qdisc del dev tr root || return 1
	done
	sch_tc qdisc replace dev tr root ndp limit 4 rate 5mbit || return 1
	sleep 0.3
	sch_tc qdisc del dev tr root || return 1
	flood_stop
}
ndp_lib_check "delete a loaded qdisc under traffic 11 times" delete_under_traffic
ndp_lib_check "ping still works after all that" ip netns exec "$ns_h1" ping -c 2 -W 2 10.0.100.1
# Namespace exit with packets queued and the watchdog armed: the qdisc
# goes with the device, then the module is unused.
netns_exit()
{
	sch_qdisc limit 8 hlimit 0 || return 1
	sch_freeze || return 1
	ip netns exec "$ns_h1" ndp_pktgen send --dst $RX "data*20" "pull*5" >/dev/null || return 1
	[ "$(sch_xstat data_qlen)" = 8 ] || return 1
	ip netns del "$ns_sw"
}
ndp_lib_check "switch namespace deleted with a frozen, loaded port" netns_exit

ndp_lib_check "module unloads once unused" ndp_lib_wait 5000 modprobe -r sch_ndp
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
