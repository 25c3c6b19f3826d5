#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver's pull clock (net/ndp/pull.c) tracks the link at any MTU,
# and does not pull more than a slow link can bring.
#
# 1. CPU bound: NDP_PULLCLOCK_FLOWS (4) bulk flows at once into one
#    receiver over an unshaped veth pair at MTU 1500 (10 Gb/s as far as NDP
#    knows: a 1500-byte packet lasts 1.2 us).  With several flows the
#    receiver's pulls wait in its queue and leave from the clock's timer,
#    whose softirq runs late under load (from ksoftirqd, beside the busy
#    flows): elapsed time must pay for every pull it covers, not one
#    expiry for at most 4 pulls as the clock before did.  Checks: the
#    expiries issued more than 4 pulls each on average (PullsTimer /
#    PullTimerRuns), and NDP's goodput reaches NDP_PULLCLOCK_RATIO_PCT
#    percent of TCP's measured in the same run, TCP sending MTU-sized
#    packets too (gso_max_segs 1) so that both pay the same per-packet
#    cost and host load moves both alike.
# 2. Paced: one flow at MTU 9000 and at MTU 1500 through a 100 Mbit/s
#    sch_ndp port (8-packet buffer, net.ndp.link_rate_mbps 100): goodput
#    below the rate, and the receiver does not overrun the port (trimmed
#    headers at most NDP_PULLCLOCK_TRIM_PCT percent, default 20, of the
#    data packets: a clock pulling twice the rate would trim about half).
# 3. A long path at MTU 9000: 20 Mbit/s sch_ndp port, netem delay
#    NDP_PULLCLOCK_DELAY_MS (30) each way, so the pipe holds the whole
#    window (init_window packets, about 150 KB).  Reported, not checked:
#    how many windows the sender opened (PushWindows) in 2 transfers of
#    $bytes.  A bulk writer that keeps the queue full opens 2 per
#    connection (the first, and one for the FIN); every time the queue
#    runs dry the last packet goes out marked LAST, the receiver drops
#    the pulls it owed, and the next write pushes a new unscheduled
#    window.  On a loaded TCG host this path showed 50 to 82 windows
#    whatever the send buffer: the writer was slower than the path
#    (ndp-bench.rst, "Where the permutation's packets are trimmed").
. "$(dirname "$0")/lib.sh"

# Why 30 %: NDP moves every MTU packet alone where TCP batches (issue 25:
# at MTU 1500 on a veth pair NDP reached 0.30x TCP's bulk goodput with
# GSO on), so the ratio measures the clock only against a floor: with
# the clock before aae8f01 (one expiry paid for at most 4 pulls) this run
# measured 0.23, with it 0.39 (and 0.41, 0.50 on 2026-11-28).  The cause
# the floor protects against is proved by the counters, not the ratio:
# the expiries must issue more than 4 pulls each on average (PullsTimer /
# PullTimerRuns).  Raise the floor as the batched data path lands.
ratio_pct=${NDP_PULLCLOCK_RATIO_PCT:-30}
delay_ms=${NDP_PULLCLOCK_DELAY_MS:-30}
trim_pct=${NDP_PULLCLOCK_TRIM_PCT:-20}
flows=${NDP_PULLCLOCK_FLOWS:-4}
bytes=${NDP_PULLCLOCK_BYTES:-4M}

ndp_lib_require_cmd ndpperf tc
ndp_lib_load_modules ndp sch_ndp sch_netem
ndp_lib_plan 10

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"

# bulk NS PROTO DST PORT FLOWS: goodput of FLOWS flows of $bytes each at
# once, two rounds (the median), in kbit/s on stdout; ndpperf checks
# every byte.
bulk()
{
	local out
	out=$(timeout -k 5 300 ip netns exec "$1" ndpperf -c "$3" -p "$2" -P "$4" \
		-m bulk -r "$bytes" -N "$5" -n 2 -T 250 2>"$tmp/$2.err") ||
		{ tail -n 3 "$tmp/$2.err" >&2; return 1; }
	echo "$out" | sed -n 's/^RESULT .*goodput_mbps=\([0-9.]*\).*/\1/p' |
		awk '{ printf "%d\n", $1 * 1000 }'
}

stat() { local v; v=$(ndp_lib_stat "$@"); echo "${v:-0}"; }
ratio() { awk -v n="${1:-0}" -v t="${2:-1}" 'BEGIN { printf "%.2f", n / (t ? t : 1) }'; }

# ---- 1. CPU bound, unshaped veth, MTU 1500, several flows ------------------
NDP_MTU=1500 ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
for ns in "$ns_a" "$ns_b"; do
	ip -n "$ns" link set dev eth0 gso_max_segs 1
done
ip netns exec "$ns_b" ndpperf -s -p tcp -P 5401 >"$tmp/srv-tcp" 2>&1 &
ip netns exec "$ns_b" ndpperf -s -p ndp -P 5402 >"$tmp/srv-ndp" 2>&1 &
ndp_lib_wait 10000 grep -q listening "$tmp/srv-tcp"
ndp_lib_wait 10000 grep -q listening "$tmp/srv-ndp"

tcp=$(bulk "$ns_a" tcp 10.0.1.2 5401 "$flows")
ndp_lib_check "TCP: $flows flows at MTU 1500 intact (${tcp:-0} kbit/s)" test -n "$tcp"
r0=$(stat "$ns_b" PullTimerRuns); p0=$(stat "$ns_b" PullsTimer)
o0=$(stat "$ns_b" OutPulls); a0=$(stat "$ns_b" OutPullAcks)
ndp=$(bulk "$ns_a" ndp 10.0.1.2 5402 "$flows")
ndp_lib_check "NDP: $flows flows at MTU 1500 intact (${ndp:-0} kbit/s)" test -n "$ndp"
r1=$(stat "$ns_b" PullTimerRuns); p1=$(stat "$ns_b" PullsTimer)
o1=$(stat "$ns_b" OutPulls); a1=$(stat "$ns_b" OutPullAcks)
runs=$((r1 - r0)); pulls=$((p1 - p0))
ndp_lib_info "MTU 1500 veth, $flows flows: TCP ${tcp:-0} kbit/s, NDP ${ndp:-0} kbit/s" \
	"(NDP/TCP $(ratio "$ndp" "$tcp")); timer: $pulls pulls in $runs expiries;" \
	"PULL packets $((o1 - o0)), of which PULLACKs $((a1 - a0))"
ndp_lib_check "MTU 1500: NDP >= ${ratio_pct}% of TCP with $flows flows" \
	test $(( ${ndp:-0} * 100 )) -ge $(( ${tcp:-1} * ratio_pct ))
ndp_lib_check "MTU 1500: the clock's expiries issue > 4 pulls each on average" \
	test "$pulls" -gt $((4 * runs)) -a "$runs" -gt 0

# ---- 2. Paced: 100 Mbit/s sch_ndp port, MTU 9000 and 1500 -------------------
paced()	# MTU PORT
{
	local port d0 d1 t0 t1 data trims

	NDP_MTU=$1 ndp_topo_switch 1 || return 1
	for ns in "$ns_rx" "$ns_h1"; do
		ip -n "$ns" link set dev eth0 gso_max_segs 1
		ip netns exec "$ns" sysctl -qw net.ndp.link_rate_mbps=100
	done
	ip netns exec "$ns_sw" tc qdisc add dev tr root ndp limit 8 olimit 8 rate 100mbit
	ip netns exec "$ns_sw" tc qdisc add dev t1 root ndp limit 8 olimit 8 rate 100mbit
	ip netns exec "$ns_rx" ndpperf -s -p ndp -P "$2" >"$tmp/srv-ndp-$1" 2>&1 &
	ndp_lib_wait 10000 grep -q listening "$tmp/srv-ndp-$1"
	d0=$(stat "$ns_rx" InData); t0=$(stat "$ns_rx" InTrimmed)
	port=$(bulk "$ns_h1" ndp 10.0.100.1 "$2" 1)
	d1=$(stat "$ns_rx" InData); t1=$(stat "$ns_rx" InTrimmed)
	data=$((d1 - d0)); trims=$((t1 - t0))
	ndp_lib_info "100 Mbit/s port, MTU $1: NDP ${port:-0} kbit/s; $data data packets, $trims trimmed"
	ndp_lib_check "paced, MTU $1: bulk intact, goodput below the rate" \
		test -n "$port" -a "${port:-0}" -le 100000
	ndp_lib_check "paced, MTU $1: no over-pulling (trimmed <= ${trim_pct}% of data)" \
		test $((trims * 100)) -le $((data * trim_pct)) -a "$data" -gt 0
}
paced 9000 5403 || ndp_lib_skip_all "cannot build the switch"
paced 1500 5404 || ndp_lib_skip_all "cannot build the switch"

# ---- 3. Long path, MTU 9000: one window per connection -----------------------
longpath()
{
	local w0 w1 gp

	NDP_MTU=9000 ndp_topo_switch 1 || return 1
	for ns in "$ns_rx" "$ns_h1"; do
		ip -n "$ns" link set dev eth0 gso_max_segs 1
		ip netns exec "$ns" sysctl -qw net.ndp.link_rate_mbps=20
		ip netns exec "$ns" tc qdisc add dev eth0 root netem delay "${delay_ms}ms" limit 10000
	done
	ip netns exec "$ns_sw" tc qdisc add dev tr root ndp limit 8 olimit 8 rate 20mbit
	ip netns exec "$ns_sw" tc qdisc add dev t1 root ndp limit 8 olimit 8 rate 20mbit
	ip netns exec "$ns_rx" ndpperf -s -p ndp -P 5405 >"$tmp/srv-ndp-long" 2>&1 &
	ndp_lib_wait 10000 grep -q listening "$tmp/srv-ndp-long"
	ndp_lib_info "long path: net.ndp.init_window $(ip netns exec "$ns_h1" sysctl -n net.ndp.init_window)," \
		"net.core.wmem_default $(ip netns exec "$ns_h1" sysctl -n net.core.wmem_default)"
	w0=$(stat "$ns_h1" PushWindows)
	gp=$(bulk "$ns_h1" ndp 10.0.100.1 5405 1)
	w1=$(stat "$ns_h1" PushWindows)
	ndp_lib_info "long path, 20 Mbit/s, ${delay_ms} ms each way, MTU 9000: NDP ${gp:-0} kbit/s;" \
		"windows opened by the sender: $((w1 - w0)) in 2 connections"
	ndp_lib_check "long path: bulk intact" test -n "$gp"
}
longpath || ndp_lib_skip_all "cannot build the long path"
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
