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
# The writer sends 4 MB in 64 KB send() calls every 10 ms (6.4 MB/s); the
# reader, with SO_RCVBUF 128 KB, takes 16 KB every 5 ms (at most 3.2 MB/s).
# Checked at MTU 1500 over IPv4 and at MTU 9000 over IPv4 and IPv6:
#   - the data arrives intact;
#   - the receiver dropped nothing for its buffer (RcvQDrops) or its
#     protocol memory (MemDrops): before room.c, the MTU 9000 runs
#     dropped 4-6 packets each;
#   - the room option went out (RoomAdverts): the buffer did fill.
# Persist probes the receiver drops after it advertised no room
# (RcvQFullDrops) and the updates it sent (RoomUpdates) are printed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP-only (receive room)"
xfer_setup
ndp_lib_require_cmd python3
helper=$(dirname "$0")/ndp_life.py
# shellcheck disable=SC2154 # ns_a, ns_b: set by ndp_topo_pair
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 13

size=$((4 * 1024 * 1024))
chunk=$((64 * 1024))

# slow ADDR: one transfer to the slow reader; counters in $c0 and $c1.
slow()
{
	local addr=$1 port d vpid rc=0

	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/rcvbuf.XXXXXX")
	ip netns exec "$ns_b" python3 "$helper" slowverify "$addr" "$port" \
		"$size" 131072 16384 5 >"$d/verify.out" 2>&1 &
	vpid=$!
	xfer_wait_file "$d/verify.out" listening 20 ||
		{ cat "$d/verify.out"; return 1; }
	c0=$(xfer_stats "$ns_a" "$ns_b")
	timeout 300 ip netns exec "$ns_a" python3 "$helper" chunks "$addr" \
		"$port" "$size" "$chunk" 0 10 >"$d/chunks.out" 2>&1 || rc=1
	wait $vpid || rc=1
	c1=$(xfer_stats "$ns_a" "$ns_b")
	cat "$d/chunks.out" "$d/verify.out"
	return $rc
}

for run in "1500 4 10.0.1.2" "9000 4 10.0.1.2" "9000 6 fd00:1::2"; do
	read -r mtu v addr <<<"$run"
	ip -n "$ns_a" link set eth0 mtu "$mtu"
	ip -n "$ns_b" link set eth0 mtu "$mtu"
	c0='' c1=''
	ndp_lib_check "MTU $mtu v$v: 4 MB to a slow reader, intact" slow "$addr"
	xfer_expect_delta "MTU $mtu v$v: nothing dropped for the receive buffer (RcvQDrops)" \
		"$c0" "$c1" "$ns_b" 0 RcvQDrops
	xfer_expect_delta "MTU $mtu v$v: nothing dropped for protocol memory (MemDrops)" \
		"$c0" "$c1" "$ns_b" 0 MemDrops
	xfer_expect_moved "MTU $mtu v$v: the receiver advertised its room (RoomAdverts)" \
		"$c0" "$c1" "$ns_b" RoomAdverts
	ndp_lib_info "MTU $mtu v$v: receiver RoomUpdates $(xfer_delta "$c0" "$c1" "$ns_b" RoomUpdates) RcvQFullDrops $(xfer_delta "$c0" "$c1" "$ns_b" RcvQFullDrops) InData $(xfer_delta "$c0" "$c1" "$ns_b" InData); sender RoomCuts $(xfer_delta "$c0" "$c1" "$ns_a" RoomCuts) PushWindows $(xfer_delta "$c0" "$c1" "$ns_a" PushWindows) RtoProbes $(xfer_delta "$c0" "$c1" "$ns_a" RtoProbes) Rtos $(xfer_delta "$c0" "$c1" "$ns_a" Rtos)"
done

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
