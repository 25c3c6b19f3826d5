#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The socket backlog (net/ndp/input.c, ndp_backlog_shed(); ndp-transport.rst,
# "Locking"): packets that arrive while the application holds its socket
# wait in the backlog, up to a bound.  ndp_hold makes the receiving
# application hold its socket for as long as it takes a window (15 packets
# of 9000 bytes) to arrive: its send() copies from a page registered with
# userfaultfd, and the fault is resolved only once the window is in.
#
#   default buffers   the window fits in the backlog: every byte
#                     intact, nothing shed, nothing dropped;
#   tiny buffers      SO_RCVBUF and SO_SNDBUF at their minimum bound the
#                     backlog to about 80 KB, less than the window: what
#                     does not fit waits as its header (BacklogShed moves
#                     during the hold), nothing of the held window is
#                     dropped (BacklogDrop stays, from the fault until the
#                     server's send() returns, as ndp_hold counts it), the
#                     headers are NACKed and pulled again (the sender's
#                     RtxNack moves) and every byte arrives intact.
#                     Before the shed, the packets beyond the bound were
#                     dropped and waited for the sender's RTO.  The read
#                     of the rest through a 4 KB buffer is not judged on
#                     drops: each recv() owns the socket, and pulled
#                     packets that meet a full backlog then may find the
#                     header room full too (debug kernel, stop 40's CI:
#                     BacklogDrop 20 of 387 in one CI run, whose held
#                     window was 16 packets, at most ~160 KB against the
#                     ~340 KB of bound and header room); they are printed;
#   one ACK           the held window is answered by one ACK per run of
#                     consecutive psns (OutAcks below BacklogRcv), as a
#                     GRO batch is; before, each packet run from the
#                     backlog had an ACK of its own;
#   gone              the namespaces deleted, ndp.ko unloads: a shed
#                     packet gave its sender's write memory back.
#
# Skipped on a kernel without userfaultfd.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "the backlog counters are NDP-only"
xfer_setup
ndp_lib_require_cmd ndp_hold
NDP_MTU=9000 ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"

# shellcheck disable=SC2154 # ns_a, ns_b: set by ndp_topo_pair
# hold_run NAME ARGS...: ndp_hold from a to b; its KTAP lines become info,
# its result a check.  Sets $held (0: ran, 4: skipped, else failed).
hold_run()
{
	local out=$XFER_TMP/hold.$1

	shift
	ip netns exec "$ns_a" ndp_hold "$@" "/run/netns/$ns_b" 10.0.1.2 \
		"$(xfer_next_port)" >"$out" 2>&1
	held=$?
	sed 's/^/# /' "$out"
}

hold_run probe -S 64K -w 1
[ "$held" = 4 ] && ndp_lib_skip_all "no userfaultfd in this kernel"
ndp_lib_plan 11

# --- one ACK for what waited -------------------------------------------------
# 64 KB (8 packets of 9000 bytes, one pushed window on one path) all
# arrive while the server is held (-w 8); run from the backlog in one
# go, they owe one ACK, not one each.  The server's ACKs over the run:
# those and the first message's.
stp=$(xfer_stats "$ns_b")
hold_run ack -S 64K -w 8
stq=$(xfer_stats "$ns_b")
acks=$(xfer_delta "$stp" "$stq" "$ns_b" OutAcks)
blrcv=$(xfer_delta "$stp" "$stq" "$ns_b" BacklogRcv)
ndp_lib_info "held 64 KB: OutAcks $acks BacklogRcv $blrcv OutAckSpans $(xfer_delta "$stp" "$stq" "$ns_b" OutAckSpans)"
ndp_lib_check "what waited in the backlog got fewer ACKs than packets" \
	test "$held" = 0 -a "$blrcv" -ge 8 -a "$acks" -lt "$blrcv"

# --- default buffers -------------------------------------------------------
st0=$(xfer_stats "$ns_a" "$ns_b")
hold_run default
st1=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "default buffers: window held in the backlog, 1 MB intact" test "$held" = 0
ndp_lib_check "default buffers: nothing shed (BacklogShed)" \
	test "$(xfer_delta "$st0" "$st1" "$ns_b" BacklogShed)" -eq 0
ndp_lib_check "default buffers: nothing dropped (BacklogDrop)" \
	test "$(xfer_delta "$st0" "$st1" "$ns_b" BacklogDrop)" -eq 0
ndp_lib_check "default buffers: the backlog was used (BacklogRcv)" \
	test "$(xfer_delta "$st0" "$st1" "$ns_b" BacklogRcv)" -gt 0

# --- tiny buffers: the window exceeds the backlog's bound -------------------
hold_run tiny -b 1
st2=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_check "tiny buffers: window held in the backlog, 1 MB intact" test "$held" = 0
# hold_val KEY: a "# HOLD" value of the tiny run (empty if absent).
hold_val() { sed -n "s/^# HOLD .*[ ]$1=\([0-9]*\).*/\1/p" "$XFER_TMP/hold.tiny"; }
delta() { xfer_delta "$st1" "$st2" "$1" "$2"; }
ndp_lib_info "receiver: BacklogShed $(delta "$ns_b" BacklogShed) BacklogDrop $(delta "$ns_b" BacklogDrop) BacklogRcv $(delta "$ns_b" BacklogRcv) RcvQDrops $(delta "$ns_b" RcvQDrops) MemDrops $(delta "$ns_b" MemDrops) InCsumErrs $(delta "$ns_b" InCsumErrs) OutPulls $(delta "$ns_b" OutPulls) OutNacks $(delta "$ns_b" OutNacks) InData $(delta "$ns_b" InData) RoomAdverts $(delta "$ns_b" RoomAdverts) AcksHeld $(delta "$ns_b" AcksHeld)"
ndp_lib_info "sender: RtxNack $(delta "$ns_a" RtxNack) RtxTimeout $(delta "$ns_a" RtxTimeout) InPulls $(delta "$ns_a" InPulls) OutData $(delta "$ns_a" OutData) RoomCuts $(delta "$ns_a" RoomCuts) PushWindows $(delta "$ns_a" PushWindows)"
ndp_lib_info "held window: BacklogShed $(hold_val held_shed) BacklogDrop $(hold_val held_drop)"
ndp_lib_check "tiny buffers: DATA beyond the bound waited as headers (BacklogShed)" \
	test "$(hold_val held_shed)" -gt 0
ndp_lib_check "tiny buffers: nothing of the held window dropped (BacklogDrop)" \
	test "$(hold_val held_drop)" -eq 0
ndp_lib_check "tiny buffers: the sender resent on NACKs (RtxNack)" \
	test "$(xfer_delta "$st1" "$st2" "$ns_a" RtxNack)" -gt 0
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean

# A packet shed across the veth was still charged to its sender's write
# memory: if its truesize changed under that charge, the sender's socket,
# and with it ndp.ko, would stay for good.
ndp_lib_check "namespaces gone: ndp.ko unloads" ndp_lib_unload_ndp "$ns_a" "$ns_b"
modprobe ndp
ndp_lib_done
