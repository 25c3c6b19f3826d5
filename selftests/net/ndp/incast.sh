#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Incast and bulk through a small, rate-emulated switch port: the load of
# the benchmarks (Documentation/networking/ndp-bench.rst), as a
# correctness test.  32 senders answer the receiver at once through one
# sch_ndp port with an 8-packet data queue, over persistent connections
# and in rounds (the pull queue goes idle and busy again on every round),
# then the same with new connections, then one bulk flow.  Every byte must
# arrive intact and every transfer must finish: a stalled connection
# fails here (its deadline is generous, this is not a timing test).
#
#   NDP_TEST_PROTO=tcp   the same load over TCP through the same port
#   NDP_INCAST_QDISC     switch port options (default "limit 8 rate 100mbit")
#   NDP_INCAST_REPEAT    run the persistent incasts this many times (default
#                        1; a soak for rare stalls)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

qopts=${NDP_INCAST_QDISC:-limit 8 rate 100mbit}
fanin=${NDP_INCAST_FANIN:-32}
repeat=${NDP_INCAST_REPEAT:-1}

xfer_setup
ndp_lib_require_cmd tc ndpperf
ndp_lib_load_modules sch_ndp
ndp_topo_switch $fanin || ndp_lib_skip_all "cannot build the topology"
if ! err=$(ip netns exec "$ns_sw" tc qdisc add dev tr root ndp $qopts 2>&1); then
	ndp_lib_fail_all "tc qdisc add dev tr root ndp $qopts: ${err:-rejected}"
fi
ndp_lib_info "switch port tr: ndp $qopts"
rate=$(printf '%s\n' "$qopts" | sed -n 's/.*rate \([0-9]*\)mbit.*/\1/p')
if xfer_is_ndp && [ -n "$rate" ]; then
	ip netns exec "$ns_rx" sysctl -qw net.ndp.link_rate_mbps="$rate"
	ndp_lib_info "receiver: net.ndp.link_rate_mbps=$rate"
fi
# The counter checks need the premise of a 32:1 incast (a pull gap longer
# than the minimum RTO); smaller fan-ins (the debug kernel's run) check
# delivery only and print the counters.
full=0
[ "$fanin" -ge 32 ] && full=1
ndp_lib_plan $((3 + 3 * repeat + 2 * full))

hosts=()
for i in $(seq 1 $fanin); do
	hosts+=("10.0.$i.1")
done
hostlist=$(IFS=,; echo "${hosts[*]}")
port=$(xfer_next_port)
for i in $(seq 1 $fanin); do
	var=ns_h$i
	ip netns exec "${!var}" ndpperf -s -p "$XFER_PROTO" -P "$port" \
		>>"$XFER_TMP/server.log" 2>&1 &
	ndp_lib_at_exit "kill $! 2>/dev/null"
done
# servers_up N: N servers said they listen.
servers_up()
{
	[ "$(grep -c 'server listening' "$XFER_TMP/server.log")" -ge "$1" ]
}
ndp_lib_wait 10000 servers_up "$fanin"

# perf NAME ARGS...: one ndpperf client in the receiver's namespace; it
# verifies every response's bytes and exits non-zero on any error.
perf()
{
	local rc pid t=0

	timeout -k 5 400 ip netns exec "$ns_rx" ndpperf -p "$XFER_PROTO" \
		-P "$port" -q "$@" >"$XFER_TMP/perf.out" 2>"$XFER_TMP/perf.err" &
	pid=$!
	# A round still running after 200 s is stalled (they take seconds):
	# dump every socket while the connections still exist, to stderr.
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		[ $t = 200 ] && sockets_dump >&2
	done
	wait $pid
	rc=$?
	grep '^RESULT' "$XFER_TMP/perf.out"
	[ $rc = 0 ] && return 0
	echo "ndpperf exit $rc"
	sed '/^sockets after/,$d' "$XFER_TMP/perf.err" | tail -n 5
	return 1
}

# stat_line NS LABEL: the counters of NS that tell how connections end.
stat_line()
{
	ip netns exec "$1" awk -v h="$2" -v want=" EstabResets OutRsts InRsts NoSocket Rtos RtoProbes InRts RtsResent RtsWaitPull ReplayRejected EmbryonicDrops ListenOverflows EmbryonicTimeouts PassiveOpens ActiveOpens InDups InErrs InCsumErrs " \
		'$2 != 0 && index(want, " " $1 " ") { s = s " " $1 "=" $2 }
		 END { print h " counters:" s }' /proc/net/ndp_stat
}

# ndp_socks NS: every NDP socket of NS with its NDP_INFO (the patched ss,
# else ndpctl's one line per socket).
ndp_socks()
{
	if ss --help 2>&1 | grep -q -- '--ndp'; then
		ip netns exec "$1" ss -nai --ndp
	else
		ip netns exec "$1" ndpctl sockets
	fi
}

# sockets_dump: the sockets of the receiver and of every sender.
sockets_dump()
{
	local i var
	echo "sockets after 200 s:"
	ndp_socks "$ns_rx" | sed 's/^/rx: /'
	for i in $(seq 1 $fanin); do
		var=ns_h$i
		ndp_socks "${!var}" | sed "s/^/h$i: /"
		stat_line "${!var}" "h$i"
		echo "h$i neigh: $(ip -n "${!var}" neigh show | tr '\n' ' ')"
	done
	stat_line "$ns_rx" rx
	echo "switch neigh: $(ip -n "$ns_sw" neigh show | grep -v REACHABLE | tr '\n' ' ')"
	echo "softnet_stat (per cpu: processed dropped squeezed):"
	awk '{ print strtonum("0x" $1), strtonum("0x" $2), strtonum("0x" $3) }' \
		/proc/net/softnet_stat 2>/dev/null || cat /proc/net/softnet_stat
	echo "server log:"
	tail -n 20 "$XFER_TMP/server.log"
}

allns=("$ns_rx")
for i in $(seq 1 $fanin); do
	var=ns_h$i
	allns+=("${!var}")
done
# incast_check NAME ARGS...: ndp_lib_check of one ndpperf incast; a round
# that never completes also shows the socket dump taken while it hung.
incast_check()
{
	local name=$1 out
	shift
	if out=$(perf "$@" 2>&1); then
		ndp_lib_pass "$name"
		return
	fi
	ndp_lib_fail "$name" "command failed: perf $*"
	printf '%s\n' "$out" | sed 's/^/#   /'
	if printf '%s\n' "$out" | grep -q 'incast round timed out'; then
		sed -n '/^sockets after/,$p' "$XFER_TMP/perf.err" | sed 's/^/#   /'
	fi
}

s0=$(xfer_stats "${allns[@]}")
for r in $(seq 1 "$repeat"); do
	sfx=
	[ "$repeat" -gt 1 ] && sfx=" (pass $r)"
	incast_check "$fanin:1 incast of 100K, 5 rounds, persistent, intact$sfx" \
		-c "$hostlist" -m incast -N $fanin -R 100K -n 5 -w 1 -T 300
	incast_check "$fanin:1 incast of 1M, 3 rounds, persistent, intact$sfx" \
		-c "$hostlist" -m incast -N $fanin -R 1M -n 3 -w 0 -T 300
	incast_check "$fanin:1 incast of 300K, 3 rounds, persistent, intact$sfx" \
		-c "$hostlist" -m incast -N $fanin -R 300K -n 3 -w 0 -T 300
done

# The senders' counters summed: in a 32:1 incast a sender waits for its
# pulls longer than the minimum RTO (one pull per sender every 23 ms), and
# the RTO must not resend what was NACKed (nor what was sent just now on a
# pull): almost every retransmission must be one a NACK asked for.  The
# bound is 10 %: 51 % before that fix; since, 0 % on 6.12 and 4.6-4.9 %
# on Debian's 6.1 guest (not diagnosed: packets neither ACKed nor NACKed
# within the timeout there), so 5 % was too close to a passing 6.1 run.
rto_share()
{
	awk -v rx="$ns_rx" '
	$1 == rx { next }
	FNR == NR { b[$2] += $3; next }
	{ a[$2] += $3 }
	END {
		d = a["OutData"] - b["OutData"]; t = a["RtxTimeout"] - b["RtxTimeout"]
		printf "senders: OutData %d RtxNack %d RtxTimeout %d Rtos %d", d,
			a["RtxNack"] - b["RtxNack"], t, a["Rtos"] - b["Rtos"]
		printf " RtoWaitPull %d RtoProbes %d\n",
			a["RtoWaitPull"] - b["RtoWaitPull"], a["RtoProbes"] - b["RtoProbes"]
		exit !(d > 0 && t * 100 < d * 10)
	}' <(printf '%s\n' "$s0") <(printf '%s\n' "$s1")
}

# New connections: one ndp_xfer transfer of 1M from every host at once.
newconns()
{
	local i var pids=() rc=0 p

	for i in $(seq 1 $fanin); do
		var=ns_h$i
		p=$(xfer_next_port)
		XFER_PORT=$p xfer_run "${!var}" "$ns_rx" 10.0.100.1 4 1M 0 1 300 \
			>"$XFER_TMP/nc.$i" 2>&1 &
		pids+=($!)
	done
	i=0
	for p in "${pids[@]}"; do
		i=$((i + 1))
		wait "$p" || { rc=1; sed "s/^/h$i: /" "$XFER_TMP/nc.$i"; }
	done
	return $rc
}
ndp_lib_check "$fanin new connections of 1M into one port at once, intact" newconns
ndp_lib_check "one bulk flow of 32M, intact" \
	xfer_run "$ns_h1" "$ns_rx" 10.0.100.1 4 32M 0 1 400
s1=$(xfer_stats "${allns[@]}")
ip netns exec "$ns_sw" tc -s qdisc show dev tr | sed 's/^/# /'
if [ $full = 0 ]; then
	xfer_is_ndp && ndp_lib_info "$(rto_share)"
elif xfer_is_ndp; then
	xfer_expect_moved "ndp: the port trimmed and the receiver NACKed" \
		"$s0" "$s1" "$ns_rx" OutNacks
	ndp_lib_info "$(rto_share)"
	ndp_lib_check "ndp: timeouts resent under 10% of the data (NACKed packets wait for pulls)" \
		rto_share
else
	ndp_lib_skip "ndp: the port trimmed and the receiver NACKed" "counters are NDP-only"
	ndp_lib_skip "ndp: timeouts resent under 10% of the data" "counters are NDP-only"
fi
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
