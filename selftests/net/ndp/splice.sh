#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sendfile() and splice() to an NDP socket without a copy: from 6.5 the
# kernel hands the file's pages to sendmsg() with MSG_SPLICE_PAGES, before
# (6.1) one page at a time to NDP's sendpage, and NDP queues them by
# reference (net/ndp/output.c, ndp_splice_from_iter()), summing each
# packet's payload there and again at each retransmission.
#
#   sendfile, splice  8 MB from a tmpfs file, sendfile(2) over IPv4 and
#                     through a pipe with splice(2) over IPv6, at MTU 1500,
#                     and sendfile at MTU 9000: every byte intact; the
#                     sender's OutSplicedBytes moved by the file's size;
#                     the payload was not copied in (NDP's copy-in,
#                     ndp_copy_csum_from_iter(), ran at most 8 times in the
#                     whole guest during the transfer: once per packet
#                     before); one message: no LAST before the file's
#                     end (sendfile passes MSG_MORE), so at most 8 windows
#                     pushed for the 8 MB at MTU 9000 (1 measured; 47-63
#                     on 6.1 before, LAST at each page that drained the
#                     queue);
#   changed           a 2 MB file queued by sendfile() while the receiver
#                     (64 KB receive buffer) reads nothing, then rewritten
#                     in place before the receiver starts reading (GSO
#                     off at the sender, so that the receiver checks every
#                     packet): the
#                     transfer completes and every byte is the old or the
#                     new file's at its offset.  The packets still queued
#                     hold the file's pages, whose bytes changed after
#                     sendmsg() summed them: they fail the receiver's
#                     check once, are NACKed and resent with a fresh sum
#                     (InCsumErrs moves by at least a packet per 64 KB;
#                     without the fresh sum: NACKed for good, the transfer
#                     never ends, 4 million NACKs in 180 s when tried).
#
# Before ndp_splice_from_iter(): OutSplicedBytes did not exist and the
# copy-in ran once per packet (8 MB: about 5 800 calls at MTU 1500).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
xfer_is_ndp || ndp_lib_skip_all "NDP-only (OutSplicedBytes)"
ndp_lib_require_cmd python3 dd ethtool
helper=$(dirname "$0")/ndp_sendfile.py
[ -r "$helper" ] || ndp_lib_skip_all "ndp_sendfile.py missing"
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 12

# A tmpfs file: its page cache pages are what sendfile() splices.
tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"

# NDP's copy-in, once per packet or tail fill (the kernel's copy routines
# for a kernel iterator cannot be probed on 6.1: inline, or notrace
# assembly).
kprobe=1
ndp_lib_kprobe_add copyin ndp_copy_csum_from_iter || kprobe=0

d() { xfer_delta "$s0" "$s1" "$@"; }

# xfer NAME ADDR SIZE HOW [NEW]: send $tmp/file (SIZE bytes) from ns_a to
# ADDR in ns_b with HOW (sendfile or splice); the receiver checks it
# against $tmp/old, or also $tmp/NEW with a rewrite between queueing and
# reading.  Snapshots s0/s1 and copy-in counts c0/c1 bracket it.  One TAP
# point: both ends report every byte as expected.
xfer()
{
	local name=$1 addr=$2 size=$3 how=$4 new=${5:-} port

	port=$(xfer_next_port)
	rm -f "$tmp/queued" "$tmp/go"
	if [ -n "$new" ]; then
		ip netns exec "$ns_b" timeout -k 5 180 python3 "$helper" serve \
			"$addr" "$port" "$size" "$tmp/old" "$tmp/$new" "$tmp/go" \
			>"$tmp/srv" 2>&1 &
	else
		ip netns exec "$ns_b" timeout -k 5 180 python3 "$helper" serve \
			"$addr" "$port" "$size" "$tmp/old" >"$tmp/srv" 2>&1 &
	fi
	xfer_wait_file "$tmp/srv" '^listening' 20
	s0=$(xfer_stats "$ns_a" "$ns_b")
	c0=$(ndp_lib_kprobe_hits copyin)
	ip netns exec "$ns_a" timeout -k 5 180 python3 "$helper" send \
		"$addr" "$port" "$tmp/file" "$how" "$tmp/queued" \
		>"$tmp/cli" 2>&1 &
	if [ -n "$new" ]; then
		# Everything queued (sndbuf 2 x size) while the receiver
		# reads nothing: most of it waits in the send queue.
		ndp_lib_wait 60000 test -e "$tmp/queued" >/dev/null
		dd if="$tmp/$new" of="$tmp/file" bs=1M conv=notrunc status=none
		touch "$tmp/go"
	fi
	wait
	s1=$(xfer_stats "$ns_a" "$ns_b")
	c1=$(ndp_lib_kprobe_hits copyin)
	sed 's/^/# /' "$tmp/cli" "$tmp/srv"
	ndp_lib_check "$name: every byte as sent" \
		bash -c "grep -qx 'tx $size' $tmp/cli && grep -q '^rx $size ok' $tmp/srv"
	ndp_lib_info "$name: sender OutData $(d "$ns_a" OutData) RtxNack $(d "$ns_a" RtxNack) RtxTimeout $(d "$ns_a" RtxTimeout) RtsResent $(d "$ns_a" RtsResent) PushWindows $(d "$ns_a" PushWindows) OutTailFills $(d "$ns_a" OutTailFills); receiver AcksHeld $(d "$ns_b" AcksHeld)"
}

# expect_spliced NAME SIZE: the sender queued SIZE bytes by reference and
# copied nothing in.
expect_spliced()
{
	local name=$1 size=$2 copies=$((${c1:-0} - ${c0:-0}))

	ndp_lib_expect_eq "$name: OutSplicedBytes moved by the file's size" \
		"$size" "$(d "$ns_a" OutSplicedBytes)"
	if [ $kprobe = 1 ]; then
		ndp_lib_expect_le "$name: payload not copied in (copy-ins, whole guest)" \
			8 "$copies"
	else
		ndp_lib_skip "$name: payload not copied in" "no kprobe events"
	fi
}

size=$((8 << 20))
python3 "$helper" make "$tmp/old" "$size" 1
cp "$tmp/old" "$tmp/file"

xfer "v4 sendfile" 10.0.1.2 "$size" sendfile
expect_spliced "v4 sendfile" "$size"
xfer "v6 splice" fd00:1::2 "$size" splice
expect_spliced "v6 splice" "$size"

ip -n "$ns_a" link set dev eth0 mtu 9000
ip -n "$ns_b" link set dev eth0 mtu 9000
xfer "v4 sendfile, MTU 9000" 10.0.1.2 "$size" sendfile
expect_spliced "v4 sendfile, MTU 9000" "$size"
# One message: sendfile() passes MSG_MORE while more of the file follows,
# so no packet before the end carries LAST and the sender pushes no new
# window mid-file (each LAST made the receiver drop the pulls it owed
# and the sender wait for everything to be acknowledged, then push a new
# window: 47-63 windows per 8 MB on 6.1 before).
ndp_lib_expect_le "v4 sendfile, MTU 9000: no LAST mid-file (PushWindows)" \
	8 "$(d "$ns_a" PushWindows)"
ip -n "$ns_a" link set dev eth0 mtu 1500
ip -n "$ns_b" link set dev eth0 mtu 1500

# --- the file changes under the send ----------------------------------------
# GSO off at the sender: every packet leaves alone, and the receiver checks
# each (a local sender's batches are trusted unchecked, gso.sh), so every
# packet queued before the rewrite is caught, not only the few sent alone.
size=$((2 << 20))
python3 "$helper" make "$tmp/old" "$size" 3
python3 "$helper" make "$tmp/new" "$size" 4
cp "$tmp/old" "$tmp/file"
ip netns exec "$ns_a" ethtool -K eth0 gso off
xfer "changed" 10.0.1.2 "$size" sendfile new
ip netns exec "$ns_a" ethtool -K eth0 gso on
# The premise: queued packets left with the sums of the old bytes (all
# but the receive buffer's worth; asserted: one per 64 KB of the file).
ndp_lib_expect_ge "changed: the receiver caught stale sums (InCsumErrs)" \
	$((size >> 16)) "$(d "$ns_b" InCsumErrs)"
ndp_lib_info "changed: sender Rtos $(d "$ns_a" Rtos), InNacks $(d "$ns_a" InNacks)," \
	"$(sed -n 's/.* new \([0-9]*\)$/\1/p' "$tmp/srv") of $((size / 4096)) blocks new"

ndp_lib_done
