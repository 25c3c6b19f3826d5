#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A slow reader loses nothing it was sent, at the default knobs.  The
# receiver pulls only what fits its buffer, but pushed data is not asked
# for: a writer that catches up with the network ends each write with
# LAST, and once everything is acknowledged (ACKs leave on arrival, not on
# read) it pushes a new window.  A reader slower than the writer had the
# windows land in a receive queue already at twice SO_RCVBUF, and the
# receiver dropped them (RcvQDrops; 55 per run of 4 000 packets at MTU
# 9000 between two VMs, vmnet.sh).  The receiver now advertises its room
# for pushed data (NDP_OPT_ROOM, room.c) and the sender pushes no more.
#
# The writer sends 4 MB in 64 KB send() calls every 5 ms (12.8 MB/s); the
# reader, with SO_RCVBUF 64 KB, takes 8 KB every 5 ms (at most 1.6 MB/s).
# Checked at MTU 1500 over IPv4 and at MTU 9000 over IPv4 and IPv6:
#   - the data arrives intact;
#   - the receiver dropped nothing for its buffer (RcvQDrops, and
#     RcvQFullDrops after it advertised no room) or its protocol memory
#     (MemDrops): before room.c the MTU 9000 runs dropped 5 packets each
#     (pushed windows, and persist probes sent while the receiver held
#     its pulls back);
#   - at MTU 9000, the room option went out (RoomAdverts): the buffer
#     did fill (at MTU 1500 a 64 KB write is three windows, and pulls
#     carry most of it).
# The updates the receiver sent (RoomUpdates) and the persist probes the
# sender sent as headers (RoomProbes) are printed.  Then, with
# net.ndp.rto_min_us at 3 s so that no persist probe can carry the
# transfer:
#   - a reader that starts after 1 s, behind a writer whose every write
#     ends with LAST: the receiver's update resumes the held sender
#     (RoomUpdates moved, no RtoProbes; without the update 2 probes);
#   - a buffer too small for two packets (SO_RCVBUF 2 KB): the room is
#     one packet once the reader has emptied the queue, and at most 2 of
#     the 32 writes wait for a probe (an update can cross the ACK before
#     it on the wire).
# Last, at the default rto_min_us, the 4 MB case at MTU 9000 with the
# sender's DATA reordered (netem, 1 ms of delay with 1 ms of jitter):
# intact, and at most a fifth of the DATA packets dropped for the buffer.
# A pull is decided on the memory it sees, not on the pulls in flight, so
# their packets land above SO_RCVBUF; out of order they were refused
# there (158-276 drops in 473 packets, six runs) until out-of-order data
# was taken up to the room's bound (0-28, ndp_room_ooo_bound()).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP-only (receive room)"
xfer_setup
ndp_lib_require_cmd python3 ndpctl
helper=$(dirname "$0")/ndp_life.py
# shellcheck disable=SC2154 # ns_a, ns_b: set by ndp_topo_pair
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 19

size=$((4 * 1024 * 1024))
chunk=$((64 * 1024))

# slow ADDR [SIZE WRITE WRITE_GAP_MS READ READ_GAP_MS PAUSE_MS RCVBUF]:
# one transfer of SIZE bytes written WRITE bytes at a time WRITE_GAP_MS
# apart to a reader with SO_RCVBUF RCVBUF taking READ bytes every
# READ_GAP_MS, its first read PAUSE_MS after accept (defaults: the slow
# reader above, SO_RCVBUF 64 KB).  ndp_lib_check runs it in a subshell:
# the caller takes the counters around it.
slow()
{
	local addr=$1 sz=${2:-$size} wr=${3:-$chunk} wgap=${4:-5}
	local rd=${5:-8192} rgap=${6:-5} pause=${7:-0} rcvbuf=${8:-65536}
	local port d vpid rc=0

	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/rcvbuf.XXXXXX")
	ip netns exec "$ns_b" python3 "$helper" slowverify "$addr" "$port" \
		"$sz" "$rcvbuf" "$rd" "$rgap" "$pause" >"$d/verify.out" 2>&1 &
	vpid=$!
	xfer_wait_file "$d/verify.out" listening 20 ||
		{ cat "$d/verify.out"; return 1; }
	timeout 300 ip netns exec "$ns_a" python3 "$helper" chunks "$addr" \
		"$port" "$sz" "$wr" 0 "$wgap" >"$d/chunks.out" 2>&1 || rc=1
	wait $vpid || rc=1
	cat "$d/chunks.out" "$d/verify.out"
	return $rc
}

# quiet: no connection of an earlier case left in either namespace (an
# orphan's persist probe would count in the next case's delta).
quiet()
{
	[ "$(ndp_lib_conns "$ns_a")" = 0 ] && [ "$(ndp_lib_conns "$ns_b")" = 0 ]
}

for run in "1500 4 10.0.1.2" "9000 4 10.0.1.2" "9000 6 fd00:1::2"; do
	read -r mtu v addr <<<"$run"
	ip -n "$ns_a" link set eth0 mtu "$mtu"
	ip -n "$ns_b" link set eth0 mtu "$mtu"
	ndp_lib_wait 30000 quiet >/dev/null
	c0=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_check "MTU $mtu v$v: 4 MB to a slow reader, intact" slow "$addr"
	c1=$(xfer_stats "$ns_a" "$ns_b")
	xfer_expect_delta "MTU $mtu v$v: nothing dropped for the receive buffer (RcvQDrops, RcvQFullDrops)" \
		"$c0" "$c1" "$ns_b" 0 RcvQDrops RcvQFullDrops
	xfer_expect_delta "MTU $mtu v$v: nothing dropped for protocol memory (MemDrops)" \
		"$c0" "$c1" "$ns_b" 0 MemDrops
	# At MTU 1500 a 64 KB write is three windows: pulls carry most of
	# it and the buffer need not fill.
	[ "$mtu" = 9000 ] &&
		xfer_expect_moved "MTU $mtu v$v: the receiver advertised its room (RoomAdverts)" \
			"$c0" "$c1" "$ns_b" RoomAdverts
	ndp_lib_info "MTU $mtu v$v: receiver RoomAdverts $(xfer_delta "$c0" "$c1" "$ns_b" RoomAdverts) RoomUpdates $(xfer_delta "$c0" "$c1" "$ns_b" RoomUpdates) InData $(xfer_delta "$c0" "$c1" "$ns_b" InData); sender RoomCuts $(xfer_delta "$c0" "$c1" "$ns_a" RoomCuts) PushWindows $(xfer_delta "$c0" "$c1" "$ns_a" PushWindows) RtoProbes $(xfer_delta "$c0" "$c1" "$ns_a" RtoProbes) RoomProbes $(xfer_delta "$c0" "$c1" "$ns_a" RoomProbes) Rtos $(xfer_delta "$c0" "$c1" "$ns_a" Rtos)"
done

# The update.  A writer of 8 KB every 10 ms sends each write as one
# packet with LAST, pushed once the one before is acknowledged, so the
# receiver owes it no pull; a reader that waits 1 s before its first read
# lets the buffer fill and says so (room 0), and the sender holds the
# rest.  When the reader reads, the receiver's PULL that does not advance
# the counter (RoomUpdates) lets the sender go on.  Its fallback, the
# persist probe, waits at least rto_min_us: at 3 s, no probe may be
# needed (RtoProbes 0) for a 1 MB transfer that the reader starts after
# 1 s.  (At the default rto_min_us the probe may come first; the runs
# above show both ways work.)
ip -n "$ns_a" link set eth0 mtu 9000
ip -n "$ns_b" link set eth0 mtu 9000
rto_min=$(ip netns exec "$ns_a" sysctl -n net.ndp.rto_min_us)
ip netns exec "$ns_a" sysctl -qw net.ndp.rto_min_us=3000000
ndp_lib_wait 30000 quiet >/dev/null
c0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "update: 1 MB to a reader that starts after 1 s, intact" \
	slow 10.0.1.2 $((1024 * 1024)) 8192 10 65536 0 1000
c1=$(xfer_stats "$ns_a" "$ns_b")
xfer_expect_moved "update: the receiver said it has room again (RoomUpdates)" \
	"$c0" "$c1" "$ns_b" RoomUpdates
xfer_expect_delta "update: no persist probe was needed (RtoProbes)" \
	"$c0" "$c1" "$ns_a" 0 RoomProbes RtoProbes
ndp_lib_info "update: RoomAdverts $(xfer_delta "$c0" "$c1" "$ns_b" RoomAdverts) RoomCuts $(xfer_delta "$c0" "$c1" "$ns_a" RoomCuts) RcvQDrops $(xfer_delta "$c0" "$c1" "$ns_b" RcvQDrops RcvQFullDrops)"

# A buffer too small for two packets has no room to advertise, but an
# empty receive queue takes the next in-order packet whatever its size:
# once the reader has emptied it, the room is one packet, and the update
# says so.  256 KB in 8 KB writes every 10 ms to SO_RCVBUF 2 KB (the
# minimum) must not wait for persist probes (3 s each here).
ndp_lib_wait 30000 quiet >/dev/null
c0=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "tiny buffer: 256 KB in 8 KB writes to SO_RCVBUF 2 KB, intact" \
	slow 10.0.1.2 $((256 * 1024)) 8192 10 65536 0 0 2048
c1=$(xfer_stats "$ns_a" "$ns_b")
ip netns exec "$ns_a" sysctl -qw net.ndp.rto_min_us="$rto_min"
# At most 2 of the 32 writes may wait for a probe: the update (room 1)
# and the ACK before it (room 0) leave on different CPUs, the ACK after
# its socket's spinlock is dropped, and can cross on the wire; the sender
# then holds until its probe.  Without the rule every write waits for one.
probes=$(xfer_delta "$c0" "$c1" "$ns_a" RtoProbes)
ndp_lib_check "tiny buffer: persist probes for at most 2 of 32 writes (RtoProbes $probes)" \
	test "$probes" -le 2
ndp_lib_info "tiny buffer: RoomUpdates $(xfer_delta "$c0" "$c1" "$ns_b" RoomUpdates) RoomAdverts $(xfer_delta "$c0" "$c1" "$ns_b" RoomAdverts) RoomCuts $(xfer_delta "$c0" "$c1" "$ns_a" RoomCuts) RcvQDrops $(xfer_delta "$c0" "$c1" "$ns_b" RcvQDrops RcvQFullDrops) OutData $(xfer_delta "$c0" "$c1" "$ns_a" OutData)"

# Reordered.  netem's jitter reorders the sender's packets (its tfifo
# sends by time), pulled and pushed alike; the receiver's are not delayed.
modprobe sch_netem 2>/dev/null || true
if tc -n "$ns_a" qdisc add dev eth0 root netem delay 1ms 1ms 2>/dev/null; then
	ndp_lib_wait 30000 quiet >/dev/null
	c0=$(xfer_stats "$ns_a" "$ns_b")
	ndp_lib_check "reordered: 4 MB to a slow reader at MTU 9000, intact" \
		slow 10.0.1.2
	c1=$(xfer_stats "$ns_a" "$ns_b")
	tc -n "$ns_a" qdisc del dev eth0 root
	drops=$(xfer_delta "$c0" "$c1" "$ns_b" RcvQDrops RcvQFullDrops)
	data=$(xfer_delta "$c0" "$c1" "$ns_b" InData)
	ndp_lib_check "reordered: at most a fifth of the DATA dropped for the buffer ($drops of $data)" \
		test $((drops * 5)) -le "$data"
	ndp_lib_info "reordered: MemDrops $(xfer_delta "$c0" "$c1" "$ns_b" MemDrops) OutNacks $(xfer_delta "$c0" "$c1" "$ns_b" OutNacks) PushWindows $(xfer_delta "$c0" "$c1" "$ns_a" PushWindows) Rtos $(xfer_delta "$c0" "$c1" "$ns_a" Rtos)"
else
	ndp_lib_skip "reordered: 4 MB to a slow reader at MTU 9000, intact" "netem rejected"
	ndp_lib_skip "reordered: at most a fifth of the DATA dropped for the buffer" "netem rejected"
fi

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
