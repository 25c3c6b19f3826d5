#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# At-most-once: the first window of a finished connection, captured on the
# client's link and re-injected byte for byte while the server still
# listens, creates no second connection; NDP counts it in ReplayRejected.
# NDP: before the replay, with net.ndp.max_tw_buckets 4, a flood of 24
# first windows whose connections nobody accepts (reset by the embryonic
# timeout) must not push the finished connection's time-wait record out;
# afterwards five more finished connections do (TwEvicted).
# Over TCP (NDP_TEST_PROTO=tcp) the client's SYNs are replayed instead and
# the same "no second connection" holds (the client resets the SYN-ACK).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
ndp_lib_require_cmd ndp_replay ethtool
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
# The first window as it crosses a wire: packet by packet.  With GSO on,
# the veth carries a sender's batch whole (net/ndp/offload.c), a frame no
# wire carries and no NIC sends.
ip netns exec "$ns_a" ethtool -K eth0 gso off ||
	ndp_lib_fail_all "ethtool -K eth0 gso off refused"
if xfer_is_ndp; then
	proto=253
	# Keep time-wait state longer than the test takes (both ends).
	for ns in "$ns_a" "$ns_b"; do
		ip netns exec "$ns" sysctl -qw net.ndp.time_wait_ms=60000 ||
			ndp_lib_info "cannot set net.ndp.time_wait_ms"
	done
	ip netns exec "$ns_b" sysctl -qw net.ndp.max_tw_buckets=4 \
		net.ndp.embryonic_timeout_ms=200 ||
		ndp_lib_info "cannot set the time-wait bound"
	ndp_lib_plan 12
else
	proto=6
	ndp_lib_plan 8
fi
life=$(dirname "$0")/ndp_life.py

rx_packets()
{
	ip -n "$1" -s link show eth0 | awk '/RX:/ { getline; print $2; exit }'
}

# capture_drained NS: every packet socket of NS has read what was queued
# to it (Rmem 0 in /proc/net/packet).
capture_drained()
{
	ip netns exec "$1" awk 'NR > 1 && $7 != 0 { busy = 1 } END { exit busy }' \
		/proc/net/packet
}

# rx_reached NS N: eth0 of NS received at least N packets.
rx_reached()
{
	[ "$(rx_packets "$1")" -ge "$2" ]
}

d=$XFER_TMP/replay
mkdir -p "$d"
port=$(xfer_next_port)

# The server serves one connection, then listens 30 s more and reports
# any further connection it accepts.
ip netns exec "$ns_b" ndp_xfer -p "$XFER_PROTO" -4 -P $port -T 120 \
	server -n 1 -S 1K -E 20000 -L 30 >"$d/server.out" 2>"$d/server.err" &
spid=$!
xfer_wait_file "$d/server.err" listening 10
ip netns exec "$ns_a" ndp_replay capture -i eth0 -d out -p $proto -c 64 -t 60 \
	-w "$d/first.pcap" >"$d/capture.out" 2>"$d/capture.err" &
cpid=$!
xfer_wait_file "$d/capture.err" capturing 10

ndp_lib_check "the original transfer is intact" \
	ip netns exec "$ns_a" ndp_xfer -p "$XFER_PROTO" -4 -P $port -T 60 \
	client -H 10.0.1.2 -S 20000 -E 1K
# The client is done, so its packets went past the capture's tap: stop
# the capture once it has read them all.
ndp_lib_wait 10000 capture_drained "$ns_a"
kill -TERM $cpid
wait $cpid
ncap=$(awk '{ print $2 }' "$d/capture.out")
ndp_lib_check "first-window packets captured (${ncap:-0})" test "${ncap:-0}" -gt 0
ndp_lib_info "$(ndp_replay show -r "$d/first.pcap" | head -n 4 | tr '\n' ';')"

# embryonic_flood: 24 first windows (distinct ports) to a listener that
# never accepts; each connection ends by the embryonic timeout.
embryonic_flood()
{
	local hport specs i f0 f1 n=24

	hport=$(xfer_next_port)
	ip netns exec "$ns_b" python3 "$life" hold 10.0.1.2 "$hport" 64 \
		>"$d/hold.out" 2>&1 &
	xfer_wait_file "$d/hold.out" listening 30 || cat "$d/hold.out"
	specs=
	for i in $(seq 1 $n); do
		specs+=" data:size=100:flags=syn,last:sport=$((5000 + i))"
	done
	f0=$(xfer_stats "$ns_b")
	# shellcheck disable=SC2086 # one SPEC per word
	ip netns exec "$ns_a" ndp_pktgen send -4 --dst 10.0.1.2 \
		--dport "$hport" --nonce 0x4242 $specs >/dev/null
	# (xfer_delta from nothing: the count in the snapshot f0)
	ndp_lib_wait_stat "$ns_b" EmbryonicTimeouts \
		$(($(xfer_delta "" "$f0" "$ns_b" EmbryonicTimeouts) + n)) 30000
	f1=$(xfer_stats "$ns_b")
	ndp_lib_expect_eq "flood: $n unaccepted connections timed out" $n \
		"$(xfer_delta "$f0" "$f1" "$ns_b" EmbryonicTimeouts)"
	ndp_lib_expect_eq "flood: no time-wait record evicted (TwEvicted)" 0 \
		"$(xfer_delta "$f0" "$f1" "$ns_b" TwEvicted)"
}
xfer_is_ndp && embryonic_flood

s0=$(xfer_stats "$ns_a" "$ns_b")
rx0=$(rx_packets "$ns_b")
ndp_lib_check "re-inject them on the client's link (twice)" bash -c \
	"ip netns exec $ns_a ndp_replay inject -i eth0 -r $d/first.pcap -g 1000 &&
	 sleep 0.5 &&
	 ip netns exec $ns_a ndp_replay inject -i eth0 -r $d/first.pcap -g 1000"
# The server must accept nothing: wait until the replayed packets arrived
# (and, NDP, went through ndp: InPkts) before counting what they did.
ndp_lib_wait 10000 rx_reached "$ns_b" $((rx0 + 2 * ${ncap:-1}))
xfer_is_ndp && xfer_wait_moved "$s0" "$ns_b" InPkts $((2 * ${ncap:-1})) 10000
rx1=$(rx_packets "$ns_b")
s1=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "the replayed packets reached the server's host ($rx0 -> $rx1)" \
	test $((rx1 - rx0)) -ge $((2 * ${ncap:-1}))

wait $spid
src=$?
extra=$(awk '$1 == "accepted" { print $4 }' "$d/server.out")
ndp_lib_expect_eq "the listener accepted no second connection" 0 "${extra:-missing}"
ndp_lib_expect_eq "the server exits cleanly" 0 "$src"
xfer_expect_moved "ndp: ReplayRejected moved at the server" "$s0" "$s1" "$ns_b" ReplayRejected

# Five more finished connections: six records at the server, at most
# four kept, the oldest evicted.
if xfer_is_ndp; then
	port=$(xfer_next_port)
	ip netns exec "$ns_b" ndp_xfer -p "$XFER_PROTO" -4 -P $port -T 120 \
		server -n 5 -S 1K -E 1K >"$d/server5.out" 2>"$d/server5.err" &
	spid=$!
	xfer_wait_file "$d/server5.err" listening 10
	s0=$(xfer_stats "$ns_b")
	ok=0
	for i in 1 2 3 4 5; do
		ip netns exec "$ns_a" ndp_xfer -p "$XFER_PROTO" -4 -P $port \
			-T 60 client -H 10.0.1.2 -S 1K -E 1K >/dev/null && ok=$((ok + 1))
	done
	wait $spid
	xfer_wait_moved "$s0" "$ns_b" TwEvicted 2 10000
	s1=$(xfer_stats "$ns_b")
	ndp_lib_expect_eq "five more connections intact" 5 "$ok"
	ndp_lib_expect_ge "max_tw_buckets 4: the oldest records evicted (TwEvicted)" \
		2 "$(xfer_delta "$s0" "$s1" "$ns_b" TwEvicted)"
fi
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
