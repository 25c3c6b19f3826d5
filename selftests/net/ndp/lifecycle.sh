#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connection life cycle as tcp(7) users expect it (ndp_life.py does the
# socket calls):
#   - a path that dies under an established connection: after its
#     retransmissions run out, send() fails with ETIMEDOUT (the RTO
#     ceiling is lowered so that this takes seconds: net.ndp.rto_max_us,
#     or net.ipv4.tcp_retries2 for TCP);
#   - close() with data queued delivers it all, then end of stream; with
#     SO_LINGER {1, 0} it aborts: the peer gets ECONNRESET;
#   - a listener whose backlog is full refuses further first windows
#     (ListenOverflows); the senders' retransmissions get them in once the
#     application accepts, every byte intact (the clients have closed by
#     then: their orphaned sockets keep retrying).
#
#   NDP_TEST_PROTO=tcp   the same over TCP
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
ndp_lib_require_cmd python3 tc
helper=$(dirname "$0")/ndp_life.py
[ -r "$helper" ] || ndp_lib_skip_all "ndp_life.py missing"
life()
{
	python3 "$helper" -p "$XFER_PROTO" "$@"
}
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 9

# --- ETIMEDOUT ----------------------------------------------------------
if xfer_is_ndp; then
	rto_knob=net.ndp.rto_max_us rto_low=100000
else
	rto_knob=net.ipv4.tcp_retries2 rto_low=3
fi
rto_saved=$(ip netns exec "$ns_a" sysctl -n $rto_knob)
ip netns exec "$ns_a" sysctl -qw $rto_knob=$rto_low
timedout()
{
	local fam=$1 addr=$2 port d spid rc

	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/to.XXXXXX")
	ip netns exec "$ns_b" python3 "$helper" -p "$XFER_PROTO" sink "$addr" "$port" \
		>"$d/sink.out" 2>&1 &
	spid=$!
	xfer_wait_file "$d/sink.out" listening 20 || { cat "$d/sink.out"; return 1; }
	ip netns exec "$ns_a" python3 "$helper" -p "$XFER_PROTO" timedout "$addr" "$port" "$d" \
		>"$d/client.out" 2>&1 &
	local cpid=$!
	# Ready, or gone (it failed: its output says why).
	ndp_lib_wait 60000 bash -c "[ -e '$d/ready' ] || ! kill -0 $cpid 2>/dev/null"
	# Cut the path: everything a leaves is dropped.
	ip netns exec "$ns_a" tc qdisc add dev eth0 root netem loss 100%
	touch "$d/go"
	wait $cpid
	rc=$?
	ip netns exec "$ns_a" tc qdisc del dev eth0 root
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	cat "$d/client.out"
	return $rc
}
s0=$(xfer_stats "$ns_a")
ndp_lib_check "v4 dead path: send() fails with ETIMEDOUT" timedout 4 10.0.1.2
ndp_lib_check "v6 dead path: send() fails with ETIMEDOUT" timedout 6 fd00:1::2
s1=$(xfer_stats "$ns_a")
xfer_expect_moved "ndp: the timed-out connections count as EstabResets" \
	"$s0" "$s1" "$ns_a" EstabResets
# The rest needs the default retry budget: with the lowered ceiling an
# orphaned client gives up after ~1.3 s of refused first windows, less
# than a slow (debug) guest takes to accept the others one by one.
ip netns exec "$ns_a" sysctl -qw $rto_knob="$rto_saved"

# --- close and SO_LINGER ------------------------------------------------
linger()
{
	ip netns exec "$ns_b" timeout 120 python3 "$helper" -p "$XFER_PROTO" \
		linger "$1" 0 "$2"
}
ndp_lib_check "v4 close() with data queued: all of it, then end of stream" \
	linger 10.0.1.2 graceful
ndp_lib_check "v4 SO_LINGER {1, 0}: the peer gets ECONNRESET" linger 10.0.1.2 abort
ndp_lib_check "v6 SO_LINGER {1, 0}: the peer gets ECONNRESET" linger fd00:1::2 abort

# --- full backlog -------------------------------------------------------
refused_some()
{
	if xfer_is_ndp; then
		[ "$(ndp_lib_stat "$ns_b" ListenOverflows)" -gt 0 ] &&
			[ "$(ndp_lib_stat "$ns_b" AdmitChallenges)" -gt 0 ]
	else
		ip netns exec "$ns_b" awk '$1 == "TcpExt:" {
			if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 }
			else v = $c["ListenOverflows"] }
			END { exit !(v > 0) }' /proc/net/netstat
	fi
}

backlog()
{
	local n=4 port d spid rc=0 i pids=()

	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/bl.XXXXXX")
	ip netns exec "$ns_b" timeout 200 python3 "$helper" -p "$XFER_PROTO" \
		backlog 10.0.1.2 "$port" $n "$d" >"$d/server.out" 2>&1 &
	spid=$!
	xfer_wait_file "$d/server.out" listening 20 || { cat "$d/server.out"; return 1; }
	for i in $(seq 1 $n); do
		ip netns exec "$ns_a" timeout 200 python3 "$helper" -p "$XFER_PROTO" \
			client 10.0.1.2 "$port" "$i" >"$d/client.$i" 2>&1 &
		pids+=($!)
	done
	# Wait until the listener has refused something: NDP refuses and
	# challenges first windows, TCP counts the SYNs it dropped
	# (TcpExt ListenOverflows).
	ndp_lib_wait 10000 refused_some
	touch "$d/go"
	for i in $(seq 1 $n); do
		wait "${pids[$((i - 1))]}" || { rc=1; cat "$d/client.$i"; }
	done
	wait $spid || rc=1
	cat "$d/server.out"
	return $rc
}
s0=$(xfer_stats "$ns_b")
ndp_lib_check "backlog 1, 4 clients: all accepted later, intact" backlog
s1=$(xfer_stats "$ns_b")
xfer_expect_moved "ndp: the full backlog challenged or refused first windows" \
	"$s0" "$s1" "$ns_b" AdmitChallenges ListenOverflows
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
