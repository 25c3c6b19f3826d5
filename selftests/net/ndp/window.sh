#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Nothing beyond the first window before the peer has answered.  A
# sender that hears nothing from its peer (every packet the receiver sends
# back is dropped) may send its first window, net.ndp.init_window
# packets, and then only resend those on its retransmission timer,
# however the application writes: until the peer has ACKed, NACKed or
# pulled something, it may not know the connection's first psn (all SYN
# packets trimmed or returned) and could not place data without SYN.
# (Before the fix each send() after a LAST packet pushed another
# unscheduled window: 1 MB written in 64 KB send() calls went out whole -
# the incast stall of issue 6.)  Once the replies get through again, the
# transfer completes intact; with feedback from the start as well.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP-only (unscheduled windows)"
xfer_setup
ndp_lib_require_cmd python3 tc
ndp_lib_load_modules sch_netem
helper=$(dirname "$0")/ndp_life.py
ndp_lib_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 4

size=$((1024 * 1024))
chunk=$((64 * 1024))
win=$(ip netns exec "$ns_a" sysctl -n net.ndp.init_window)
ndp_lib_info "init_window $win; $size bytes written in send() calls of $chunk"
# The sender closes once everything is written, and an orphan that hears
# nothing for net.ndp.orphan_retries timeouts (about 6.5 s at the
# defaults) is aborted by design: a deaf phase stretched by a loaded host
# must not reach that (the receiver then saw a reset).  This test is
# about the window, so the orphan may wait longer.
ip netns exec "$ns_a" sysctl -qw net.ndp.orphan_retries=64
# Resolve the neighbours before the receiver's replies are cut.
ip netns exec "$ns_a" ping -c 1 -W 2 10.0.1.2 >/dev/null 2>&1
ip netns exec "$ns_a" ping -c 1 -W 2 fd00:1::2 >/dev/null 2>&1

# deaf FAMILY ADDR: the check; prints what it measured.
deaf()
{
	local addr=$1 port d vpid cpid s0 s1 new rc=0

	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/win.XXXXXX")
	ip netns exec "$ns_b" python3 "$helper" verify "$addr" "$port" $size \
		>"$d/verify.out" 2>&1 &
	vpid=$!
	xfer_wait_file "$d/verify.out" listening 20 || { cat "$d/verify.out"; return 1; }
	ip netns exec "$ns_b" tc qdisc add dev eth0 root netem loss 100% || return 1
	s0=$(xfer_stats "$ns_a")
	ip netns exec "$ns_a" python3 "$helper" chunks "$addr" "$port" $size $chunk \
		>"$d/chunks.out" 2>&1 &
	cpid=$!
	sleep 3
	s1=$(xfer_stats "$ns_a")
	new=$(( $(xfer_delta "$s0" "$s1" "$ns_a" OutData) -
		$(xfer_delta "$s0" "$s1" "$ns_a" RtxTimeout) ))
	echo "deaf sender: $new distinct DATA packets (OutData - RtxTimeout)"
	[ "$new" -gt 0 ] && [ "$new" -le "$win" ] || rc=1
	ip netns exec "$ns_b" tc qdisc del dev eth0 root
	wait $cpid || rc=1
	wait $vpid || rc=1
	cat "$d/chunks.out" "$d/verify.out"
	return $rc
}

for v in 4 6; do
	addr=10.0.1.2
	[ $v = 6 ] && addr=fd00:1::2
	ndp_lib_check "v$v peer silent: at most init_window new packets, then intact" \
		deaf "$addr"
done

# The same transfer with feedback: the windows after each LAST still go
# out (once it is acknowledged), so chunked writes do not stall.
fed()
{
	local port d vpid rc=0

	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/fed.XXXXXX")
	ip netns exec "$ns_b" python3 "$helper" verify 10.0.1.2 "$port" $size \
		>"$d/verify.out" 2>&1 &
	vpid=$!
	xfer_wait_file "$d/verify.out" listening 20 || { cat "$d/verify.out"; return 1; }
	ip netns exec "$ns_a" python3 "$helper" chunks 10.0.1.2 "$port" $size $chunk || rc=1
	wait $vpid || rc=1
	cat "$d/verify.out"
	return $rc
}
s0=$(xfer_stats "$ns_a")
ndp_lib_check "v4 with feedback: $size bytes in $chunk-byte send() calls, intact" fed
s1=$(xfer_stats "$ns_a")
ndp_lib_info "with feedback: OutData $(xfer_delta "$s0" "$s1" "$ns_a" OutData) Rtos $(xfer_delta "$s0" "$s1" "$ns_a" Rtos) RtoProbes $(xfer_delta "$s0" "$s1" "$ns_a" RtoProbes)"
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
