#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Which congestion signals count against a path (issue 26): a sender and
# a receiver joined through four spines and one leaf, sch_ndp on every
# spine's port towards the leaf (fabric ports, trim-dscp-fabric 20) and
# on the leaf's port towards the receiver (the edge: hostport on,
# trim-dscp-host 10).  The receiver has one address per spine
# (10.9.K.2, reached only through spine K; four configured paths), all
# behind the one edge port; net.ndp.trim_dscp_host / trim_dscp_fabric
# are set to match at the receiver.  Its pulls run at 100 mbit/s, faster
# than the port each phase slows down, so that port's queue fills.
#
#   congested edge   the edge port at 4 mbit/s: its trims arrive as
#                    last-hop trims (InTrimLastHop), their NACKs name no
#                    path: no path's scoreboard counts them (only NACKs
#                    of the receiver's own drops, RcvQDrops) and none is
#                    excluded;
#   congested core   spine 3's port at 1 mbit/s (limit 8): fabric trims
#                    (InTrimFabric), NACKs on path 3, which is excluded
#                    (PathExcluded, ndpctl: exclusions);
#   CE in the core   spine 3's port at 1 mbit/s with room for the queue
#                    (limit 1000) and ce-thresh 2: DATA is ECT(0)
#                    (net.ndp.ecn), spine 3 marks it CE instead of
#                    trimming, the receiver counts and echoes the marks
#                    (InDataCE, and NACK/ACK with NDP_F_CE: InCEEchoes at
#                    the sender), the sender scores them against path 3
#                    (PathCE, ndpctl: ces) and excludes it; the other
#                    paths saw no CE;
#   ECN off          the same with net.ndp.ecn 0 at the sender: nothing
#                    marked, echoed or scored.
#
# Every check reads counters or the scoreboard (ndpctl path show), never
# a timing.  The scoreboard is tuned as in multipath.sh for a slow guest
# (sb_decay_ms 1000, sb_min_samples 50), and on a kernel NDP_TIME_FACTOR
# times slower (the debug kernels), as there, the decay is that many
# times longer, the sample floor and spine 3's 1 mbit/s that many times
# lower: at 1 mbit/s such a guest never filled the port.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "path scoreboards are NDP-only"
xfer_setup
ndp_lib_require_cmd tc ndpctl sysctl
ndp_lib_load_modules sch_ndp
NDP_MTU=1500

# --- topology -------------------------------------------------------------
# tx sK 10.1.K.1 -- lk 10.1.K.254 spine K tr 10.3.K.1 (sch_ndp)
#   -- uK 10.3.K.2 leaf lf0 10.0.0.254 (sch_ndp, edge) -- rx0 rx 10.0.0.2,
#   10.9.K.2/32.  Replies: rx -> leaf -> spine 1 -> tx.
topo()
{
	local k sp ns
	ndp_topo_ns_new ns_tx ns_rx ns_leaf ns_sp1 ns_sp2 ns_sp3 ns_sp4 || return 1
	for ns in "$ns_tx" "$ns_rx" "$ns_leaf" "$ns_sp1" "$ns_sp2" "$ns_sp3" "$ns_sp4"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 || return 1
	done
	ip netns exec "$ns_leaf" sysctl -qw net.ipv4.ip_forward=1 || return 1
	ndp_topo_link "$ns_leaf" lf0 "$ns_rx" rx0 || return 1
	ip -n "$ns_leaf" addr add 10.0.0.254/24 dev lf0
	ip -n "$ns_rx" addr add 10.0.0.2/24 dev rx0
	for k in 1 2 3 4; do
		sp=ns_sp$k
		sp=${!sp}
		ip netns exec "$sp" sysctl -qw net.ipv4.ip_forward=1 || return 1
		ndp_topo_link "$ns_tx" "s$k" "$sp" lk || return 1
		ndp_topo_link "$sp" tr "$ns_leaf" "u$k" || return 1
		ip -n "$ns_tx" addr add "10.1.$k.1/24" dev "s$k"
		ip -n "$sp" addr add "10.1.$k.254/24" dev lk
		ip -n "$sp" addr add "10.3.$k.1/24" dev tr
		ip -n "$ns_leaf" addr add "10.3.$k.2/24" dev "u$k"
		ip -n "$ns_rx" addr add "10.9.$k.2/32" dev rx0
		ip -n "$ns_tx" route add "10.9.$k.2/32" via "10.1.$k.254"
		ip -n "$sp" route add 10.9.0.0/16 via "10.3.$k.2"
		ip -n "$sp" route add 10.0.0.0/24 via "10.3.$k.2"
		# returned-to-sender headers go back the way they came
		ip -n "$sp" route add 10.1.0.0/16 via "10.1.$k.1"
	done
	ip -n "$ns_leaf" route add 10.9.0.0/16 dev lf0
	ip -n "$ns_leaf" route add 10.1.0.0/16 via 10.3.1.1
	ip -n "$ns_rx" route add 10.1.0.0/16 via 10.0.0.254
	# From here what NDP provides: a refusal is a failure (2), not a skip.
	ip netns exec "$ns_rx" sysctl -qw net.ndp.link_rate_mbps=100 \
		net.ndp.trim_dscp_host=10 net.ndp.trim_dscp_fabric=20 || return 2
	ip netns exec "$ns_tx" sysctl -qw \
		net.ndp.sb_decay_ms=$((1000 * NDP_TIME_FACTOR)) \
		net.ndp.sb_min_samples=$((50 / NDP_TIME_FACTOR)) || return 2
	for k in 1 2 3 4; do
		port spine "$k" || return 2
	done
	port edge || return 2
}

# port spine K|edge [OPTIONS...]: (re)configure that port's sch_ndp; the
# roles and trim DSCPs always, OPTIONS for the phase (none: line rate).
port()
{
	local ns dev role
	if [ "$1" = edge ]; then
		ns=$ns_leaf dev=lf0 role="hostport on"
		shift
	else
		ns=ns_sp$2 dev=tr role="hostport off"
		ns=${!ns}
		shift 2
	fi
	ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null
	# At line rate a port is meant to be no bottleneck: room for the
	# bursts pulls in quanta bring (a grant per path, several grants
	# per pull expiry), which a slow guest's softirq drains late (7
	# fabric trims in 3 373 with the default limit of 8 in a full-suite
	# run of the batch code).
	[ $# -eq 0 ] && set -- limit 64
	# shellcheck disable=SC2086
	ip netns exec "$ns" tc qdisc add dev "$dev" root ndp $role \
		trim-dscp-host 10 trim-dscp-fabric 20 "$@"
}

topo
case $? in
0) ;;
2) ndp_lib_fail_all "net.ndp sysctls or sch_ndp options (hostport, trim DSCPs) refused" ;;
*) ndp_lib_skip_all "cannot build the topology" ;;
esac
ndp_lib_plan 20

TX() { ip netns exec "$ns_tx" "$@"; }

# paths_fresh: the four paths, deleted and added again (zeroed scoreboards).
paths_fresh()
{
	local k
	for k in 1 2 3 4; do
		TX ndpctl path del id "$k" 2>/dev/null
	done
	for k in 1 2 3 4; do
		TX ndpctl path add id "$k" dst 10.9.0.0/16 via "10.9.$k.2" || return 1
	done
}

# path_field ID FIELD: a field of "ndpctl path show id ID" at the sender.
path_field()
{
	TX ndpctl path show id "$1" |
		awk -v f="$2" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }'
}

# fields FIELD: that field of paths 1..4, e.g. "0 0 12 0".
fields()
{
	echo "$(path_field 1 "$1") $(path_field 2 "$1") $(path_field 3 "$1") $(path_field 4 "$1")"
}

# --- congested edge: last-hop trims -------------------------------------------
ndp_lib_check "edge: four paths" paths_fresh
port edge rate 4mbit limit 8
st0=$(xfer_stats "$ns_tx" "$ns_rx")
ndp_lib_check "edge: transfer intact" xfer_run "$ns_tx" "$ns_rx" 10.9.1.2 4 1M 0
st1=$(xfer_stats "$ns_tx" "$ns_rx")
TX ndpctl path show | sed 's/^/# /'
xfer_expect_moved "edge: last-hop trims at the receiver" "$st0" "$st1" "$ns_rx" InTrimLastHop
xfer_expect_delta "edge: no fabric trim" "$st0" "$st1" "$ns_rx" 0 InTrimFabric
# Last-hop trims NACK with path 0.  What else NACKs names its path: a
# receive-buffer or memory drop (the reader in a slow guest falls behind:
# RcvQDrops seen on 7.3 and once on 6.12), a bad payload checksum or a
# trim by a port that marks no DSCP (InTrimmed beyond InTrimLastHop;
# InTrimmed counts both).  The counts on the scoreboards decay, so they
# may not exceed those NACKs: with none of them every path's count must
# be 0.
other=$(( $(xfer_delta "$st0" "$st1" "$ns_rx" RcvQDrops MemDrops InTrimmed) -
	  $(xfer_delta "$st0" "$st1" "$ns_rx" InTrimLastHop) ))
ndp_lib_info "edge: receiver RcvQDrops $(xfer_delta "$st0" "$st1" "$ns_rx" RcvQDrops) MemDrops $(xfer_delta "$st0" "$st1" "$ns_rx" MemDrops) InCsumErrs $(xfer_delta "$st0" "$st1" "$ns_rx" InCsumErrs) InTrimmed $(xfer_delta "$st0" "$st1" "$ns_rx" InTrimmed) InTrimLastHop $(xfer_delta "$st0" "$st1" "$ns_rx" InTrimLastHop); sender InNacks $(xfer_delta "$st0" "$st1" "$ns_tx" InNacks)"
ndp_lib_check "edge: no last-hop trim scored (nacks $(fields nacks), at most $other other NACKs)" \
	awk -v n="$(fields nacks)" -v o="$other" 'BEGIN { split(n, x, " ")
		exit !(x[1] + x[2] + x[3] + x[4] <= o) }'
ndp_lib_expect_eq "edge: no path excluded" "0 0 0 0" "$(fields exclusions)"
port edge

# --- congested core port: fabric trims ---------------------------------------------
core=$((1000 / NDP_TIME_FACTOR))kbit
ndp_lib_check "core: four paths" paths_fresh
port spine 3 rate "$core" limit 8
st0=$(xfer_stats "$ns_tx" "$ns_rx")
# Four connections: a pulled connection keeps about init_window packets
# in flight, and a sender pushes no window on top of its own packets in
# flight, so one connection sprayed over four paths seldom holds more
# than the port's 8 packets on spine 3; four do from their first windows.
ndp_lib_check "core: transfer intact" xfer_run "$ns_tx" "$ns_rx" 10.9.1.2 4 512K 0 4
st1=$(xfer_stats "$ns_tx" "$ns_rx")
TX ndpctl path show | sed 's/^/# /'
xfer_expect_moved "core: fabric trims at the receiver" "$st0" "$st1" "$ns_rx" InTrimFabric
ndp_lib_check "core: path 3 excluded, the others not ($(fields exclusions))" \
	awk -v e="$(fields exclusions)" 'BEGIN { split(e, x, " ")
		exit !(x[3] >= 1 && x[1] == 0 && x[2] == 0 && x[4] == 0) }'
xfer_expect_moved "core: PathExcluded moved" "$st0" "$st1" "$ns_tx" PathExcluded
port spine 3

# --- CE in the core ------------------------------------------------------------------
ndp_lib_check "ce: four paths" paths_fresh
port spine 3 rate "$core" limit 1000 ce-thresh 2
st0=$(xfer_stats "$ns_tx" "$ns_rx")
ndp_lib_check "ce: transfer intact" xfer_run "$ns_tx" "$ns_rx" 10.9.1.2 4 1M 0
st1=$(xfer_stats "$ns_tx" "$ns_rx")
TX ndpctl path show | sed 's/^/# /'
ce=$(ip netns exec "$ns_sp3" tc -s -j qdisc show dev tr |
	sed -n 's/.*"ce_mark":\([0-9]*\).*/\1/p')
ndp_lib_info "spine 3 marked ${ce:-?} packets CE"
xfer_expect_moved "ce: the receiver saw CE-marked DATA" "$st0" "$st1" "$ns_rx" InDataCE
xfer_expect_moved "ce: the sender got CE echoes" "$st0" "$st1" "$ns_tx" InCEEchoes
xfer_expect_moved "ce: CE scored against a path" "$st0" "$st1" "$ns_tx" PathCE
ndp_lib_check "ce: path 3 excluded, the others not ($(fields exclusions); ces $(fields ces))" \
	awk -v e="$(fields exclusions)" -v c="$(fields ces)" 'BEGIN {
		split(e, x, " "); split(c, y, " ")
		exit !(x[3] >= 1 && x[1] + x[2] + x[4] == 0 &&
		       y[1] + y[2] + y[4] == 0) }'

# --- the same without ECT ----------------------------------------------------------------
ndp_lib_check "ecn off: four paths" paths_fresh
TX sysctl -qw net.ndp.ecn=0
port spine 3 rate "$core" limit 1000 ce-thresh 2
st0=$(xfer_stats "$ns_tx" "$ns_rx")
xfer_run "$ns_tx" "$ns_rx" 10.9.1.2 4 256K 0 >/dev/null 2>&1
st1=$(xfer_stats "$ns_tx" "$ns_rx")
ndp_lib_expect_eq "ecn off: nothing marked, echoed or scored" "0 0 0" \
	"$(xfer_delta "$st0" "$st1" "$ns_rx" InDataCE) $(xfer_delta "$st0" "$st1" "$ns_tx" InCEEchoes) $(xfer_delta "$st0" "$st1" "$ns_tx" PathCE)"
TX sysctl -qw net.ndp.ecn=1
port spine 3
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
