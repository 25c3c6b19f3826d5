#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of detours and of Dart's receiver-advertised sender count
# (issue 12), on two namespaces joined by a veth pair (MTU 1500).
#
# 1. Detour marks.  With net.ndp.init_window 8 and net.ndp.detour_mark M,
#    a capture of the sender's DATA shows, on every connection, the SYN
#    packets with syn_off 0..M-1 marked NDP_F_UNSCHED and no other packet
#    marked: not the rest of the first window, not pulled data (a mark
#    only on the first min(M, 8) packets of a pushed window: the first
#    window, or the FIN pushed after LAST), not a retransmission;
#    OutUnsched equals the marks captured.  For M = 3, 0 and the default
#    (every packet of a window); and for M = 3 with 10 % of the sender's
#    packets lost, so that the RTO resends some: none of them marked.
# 2. DASR.  K senders (K source addresses of one namespace) send to one
#    receiver at once; the receiver reads nothing until all K connections
#    are there, so every transfer is still in flight while all K count:
#    its NDP_INFO shows nsenders = K, every sender hears K, the second
#    unscheduled window of each connection and the first window of new
#    connections are cut to ceil(8 / K) (DasrShrunkWindows moves), while
#    the first windows of the incast were not all cut.  Every transfer is
#    checked (SHA-256).  No timing assertions: the idle timeout is 60 s.
#    Before that, dasr_max_peers 1: of two senders one is counted; after,
#    dasr_idle_ms 0 turns the advertisement off.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "NDP-only (unscheduled windows)"
xfer_setup
ndp_lib_require_cmd python3 tc
ndp_lib_load_modules sch_netem
helper=$(dirname "$0")/ndp_dasr.py
k=4
iw=8

ndp_topo_ns_new ns_s ns_r || ndp_lib_skip_all "cannot create namespaces"
ndp_topo_link "$ns_s" eth0 "$ns_r" eth0 1500 || ndp_lib_skip_all "no veth"
ip -n "$ns_s" addr add 10.0.1.1/24 dev eth0
srcs=""
for i in $(seq 1 $k); do
	ip -n "$ns_s" addr add "10.0.1.1$i/24" dev eth0
	srcs+="${srcs:+,}10.0.1.1$i"
done
ip -n "$ns_r" addr add 10.0.1.2/24 dev eth0
# The receiver counts nobody during part 1 (its sender would still count
# in part 2); the sender remembers what it hears for a minute.
ip netns exec "$ns_s" sysctl -qw net.ndp.init_window=$iw net.ndp.dasr_idle_ms=60000
ip netns exec "$ns_r" sysctl -qw net.ndp.init_window=$iw net.ndp.dasr_idle_ms=0
ip netns exec "$ns_s" ping -c 1 -W 2 10.0.1.2 >/dev/null 2>&1
ndp_lib_plan 23

# --- 1. detour marks ------------------------------------------------------
conns=4
nbytes=$((64 * 1024))

# mark M: one run; prints the helper's report and the counter deltas.
mark()
{
	local m=$1 port d s0 s1 rc=0

	ip netns exec "$ns_s" sysctl -qw net.ndp.detour_mark="$m"
	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/mark.XXXXXX")
	ip netns exec "$ns_r" python3 "$helper" sink 10.0.1.2 "$port" $conns $nbytes \
		>"$d/sink.out" 2>&1 &
	xfer_wait_file "$d/sink.out" listening 20 || { cat "$d/sink.out"; return 1; }
	s0=$(xfer_stats "$ns_s")
	ip netns exec "$ns_s" python3 "$helper" mark eth0 10.0.1.2 "$port" $conns $nbytes \
		$((m < iw ? m : iw)) >"$d/mark.out" 2>&1 || rc=1
	wait $! || rc=1
	s1=$(xfer_stats "$ns_s")
	cat "$d/mark.out" "$d/sink.out"
	echo "windows $(xfer_delta "$s0" "$s1" "$ns_s" PushWindows)"
	echo "outunsched $(xfer_delta "$s0" "$s1" "$ns_s" OutUnsched)"
	return $rc
}

# field OUT NAME: the value after NAME in a report.
field()
{
	printf '%s\n' "$1" | awk -v n="$2" '$1 == n { $1 = ""; sub(/^ /, ""); print }'
}

default_mark=$(ip netns exec "$ns_s" sysctl -n net.ndp.detour_mark)
for m in 3 0 default; do
	mm=$m
	[ "$m" = default ] && mm=$default_mark
	want=$(( mm < iw ? mm : iw ))
	first=$(seq -s, $conns | sed "s/[0-9]*/0-$((want - 1))/g")
	[ "$want" = 0 ] && first=$(seq -s, $conns | sed 's/[0-9]*/none/g')
	out=$(mark "$mm")
	rc=$?
	printf '%s\n' "$out" | sed 's/^/#   /'
	ndp_lib_expect_eq "mark $m: $conns transfers intact, the first $want of each first window marked" \
		"0 $conns/$conns $first" \
		"$rc $(field "$out" intact) $(field "$out" first_marks)"
	ndp_lib_expect_eq "mark $m: no mark on pulled data or a retransmission" \
		"0 0" "$(field "$out" marked_pulled) $(field "$out" marked_rtx)"
	win=$(field "$out" windows)
	unsched=$(field "$out" outunsched)
	ok=no
	[ "$(field "$out" marked)" = "$unsched" ] &&
		[ "$unsched" -le $((want * ${win:-0})) ] && [ "${win:-0}" -ge $conns ] && ok=yes
	ndp_lib_expect_eq "mark $m: OutUnsched = the marks captured, at most $want per window ($unsched, $win windows)" \
		yes "$ok"
	ndp_lib_expect_ge "mark $m: first-window packets beyond the marks go unmarked" \
		$((conns * (iw - want))) "$(field "$out" unmarked_after)"
done
# Retransmissions: 10 % of the sender's packets lost (after the capture
# point is never reached: netem drops before the device), so the RTO
# resends some; none of them may carry the mark.
ip netns exec "$ns_s" tc qdisc add dev eth0 root netem loss 10%
out=$(mark 3)
rc=$?
ip netns exec "$ns_s" tc qdisc del dev eth0 root
printf '%s\n' "$out" | sed 's/^/#   /'
rtx=$(field "$out" conns | awk '{ print $NF }')
ndp_lib_expect_eq "mark 3, 10% loss: intact, retransmissions sent, none marked, no mark on pulled data" \
	"0 $conns/$conns yes 0 0" \
	"$rc $(field "$out" intact) $([ "${rtx:-0}" -gt 0 ] && echo yes || echo no) $(field "$out" marked_rtx) $(field "$out" marked_pulled)"
ip netns exec "$ns_s" sysctl -qw net.ndp.detour_mark="$default_mark"

# --- 2. DASR --------------------------------------------------------------
# dasr_run K NBYTES: one recv/send pair of the helper (K senders);
# leaves the reports in $recv and $send, the exit codes in $src and $rrc.
dasr_run()
{
	local d port rpid

	d=$(mktemp -d "$XFER_TMP/dasr.XXXXXX")
	port=$(xfer_next_port)
	ip netns exec "$ns_r" python3 "$helper" recv 10.0.1.2 "$port" "$1" "$2" "$d" \
		>"$d/recv.out" 2>&1 &
	rpid=$!
	if xfer_wait_file "$d/recv.out" listening 20; then
		ip netns exec "$ns_s" python3 "$helper" send 10.0.1.2 "$port" "$1" "$2" "$d" "$srcs" \
			>"$d/send.out" 2>&1
		src=$?
	else
		src=1
	fi
	wait $rpid
	rrc=$?
	recv=$(cat "$d/recv.out")
	send=$(cat "$d/send.out")
	printf '%s\n' "$recv" "$send" | sed 's/^/#   /'
}

# The table's bound first (it is empty: the receiver counted nobody so
# far): with room for one peer, a second sender is neither counted nor
# remembered, and the transfers do not care.
ip netns exec "$ns_r" sysctl -qw net.ndp.dasr_idle_ms=60000 net.ndp.dasr_max_peers=1
s0=$(xfer_stats "$ns_r")
dasr_run 2 $((128 * 1024))
s1=$(xfer_stats "$ns_r")
ndp_lib_expect_eq "dasr_max_peers 1: two senders, one counted, DasrPeersFull moved, intact" \
	"0 0 1 yes 6/6" \
	"$src $rrc $(field "$recv" nsenders) $([ "$(xfer_delta "$s0" "$s1" "$ns_r" DasrPeersFull)" -gt 0 ] && echo yes || echo no) $(field "$recv" intact)"
ip netns exec "$ns_r" sysctl -qw net.ndp.dasr_max_peers=4096

dbytes=$((512 * 1024))
s0=$(xfer_stats "$ns_s" "$ns_r")
dasr_run $k $dbytes
s1=$(xfer_stats "$ns_s" "$ns_r")
shrunk=$(( (iw + k - 1) / k ))
kk=$(printf "$k %.0s" $(seq $k) | sed 's/ $//')
ss=$(printf "$shrunk %.0s" $(seq $k) | sed 's/ $//')
ndp_lib_expect_eq "dasr: every transfer intact (3 x $k)" "0 0 $((3 * k))/$((3 * k))" \
	"$src $rrc $(field "$recv" intact)"
ndp_lib_expect_eq "dasr: the receiver counts $k active senders, still after the incast" \
	"$k $k" "$(field "$recv" nsenders) $(field "$recv" nsenders_after)"
ndp_lib_expect_eq "dasr: every sender heard nsenders $k" "$kk" "$(field "$send" peer_nsenders)"
w1=$(field "$send" round1_windows)
max1=$(printf '%s\n' $w1 | sort -n | tail -1)
ndp_lib_expect_eq "dasr: the incast's first windows were not all cut" "$iw" "$max1"
ndp_lib_expect_eq "dasr: second windows cut to ceil($iw/$k), new connections' too" \
	"$ss / $ss" "$(field "$send" round2_windows) / $(field "$send" new_windows)"
ndp_lib_expect_ge "dasr: DasrShrunkWindows counts them" $((2 * k)) \
	"$(xfer_delta "$s0" "$s1" "$ns_s" DasrShrunkWindows)"
ndp_lib_expect_ge "dasr: DasrAdvertised moved at the receiver" 1 \
	"$(xfer_delta "$s0" "$s1" "$ns_r" DasrAdvertised)"

# --- 3. knobs: dasr_idle_ms 0 advertises nothing --------------------------
ip netns exec "$ns_r" sysctl -qw net.ndp.dasr_idle_ms=0
s0=$(xfer_stats "$ns_r")
dasr_run 2 $((128 * 1024))
s1=$(xfer_stats "$ns_r")
ndp_lib_expect_eq "dasr off: nsenders 0, nothing advertised, intact" "0 0 0 0 6/6" \
	"$src $rrc $(field "$recv" nsenders) $(xfer_delta "$s0" "$s1" "$ns_r" DasrAdvertised) $(field "$recv" intact)"
ndp_lib_check "no kernel splat" ndp_lib_dmesg_clean
ndp_lib_done
