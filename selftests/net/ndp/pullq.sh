#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pull queues follow their devices (pull.c, "Lifetime"): one queue per
# receiving device and namespace, kept in step with the device by a
# netdevice notifier and removed with it.  Hosts $ns_a (sender) and $ns_b
# (receiver) on one veth pair:
#
#   mtu             the MTU of both ends goes 9000 -> 1500 -> 9000 while a
#                   transfer runs (each change waits for data to arrive
#                   at the new size): the transfer completes sha256-intact;
#   dead socket     the receiver paces its pulls at 1 Mb/s
#                   (net.ndp.link_rate_mbps), so pulls wait in its queue,
#                   and is killed mid-transfer: PullsDeadSock moves (pulls
#                   owed by sockets torn down are withheld), and once the
#                   sockets are gone no PULL leaves (OutPulls stays put
#                   over several pull intervals);
#   churn           NDP_PULLQ_DEVS (50; 20 on the debug kernel) veth pairs, one connection
#                   across each, then all deleted, twice: PullQueuesAdded
#                   moves by a queue per device, and PullQueuesAdded -
#                   PullQueuesRemoved (the queues there are) comes back to
#                   where it was: the count does not grow with devices
#                   that came and went;
#   device deleted  the receiving device is deleted during a transfer:
#                   both ends fail with an errno within a deadline (not
#                   a hang), the receiver has no queue left, no kernel
#                   warning, the namespaces go and ndp.ko unloads.
#
# The queue count is PullQueuesAdded - PullQueuesRemoved of
# /proc/net/ndp_stat ("ndpctl stats").
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

[ "$XFER_PROTO" = ndp ] || ndp_lib_skip_all "pull queues are NDP's"
xfer_setup
ndp_lib_require_cmd rmmod modprobe python3 ndpctl
DP="python3 $NDP_LIB_DIR/ndp_dp.py"
rmmod ndp_diag 2>/dev/null

# The mtu transfer must outlast two MTU changes, each made once 20 more
# packets arrived, as seen by polling counters (seconds per poll on a
# loaded TCG guest): 8 MB ended between the two on 6.12 with 2 vCPUs.
case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) size=${NDP_PULLQ_SIZE:-8M} devs=${NDP_PULLQ_DEVS:-20} ;;
*) size=${NDP_PULLQ_SIZE:-32M} devs=${NDP_PULLQ_DEVS:-50} ;;
esac

# moved NS COUNTER FROM: COUNTER of NS is beyond FROM.
moved()
{
	[ "$(ndp_lib_stat "$1" "$2")" -gt "$3" ]
}

# queues NS: the pull queues NS has now.
queues()
{
	echo $(($(ndp_lib_stat "$1" PullQueuesAdded) -
		$(ndp_lib_stat "$1" PullQueuesRemoved)))
}

# exited PID: process PID is gone.
exited()
{
	! kill -0 "$1" 2>/dev/null
}

# no_socks NS: NS has no NDP socket left.
no_socks()
{
	[ "$(ndp_lib_conns "$1")" -eq 0 ]
}

ndp_lib_plan 15
ndp_topo_pair || exit 1

# --- mtu ------------------------------------------------------------------

set_mtu()
{
	ip -n "$ns_a" link set eth0 mtu "$1" && ip -n "$ns_b" link set eth0 mtu "$1"
}

# data_or_done NS FROM PID: data arrived in NS beyond InData FROM, or the
# transfer (PID) ended.
data_or_done()
{
	moved "$1" InData "$2" || exited "$3"
}

mtu_change()
{
	local port base m pid ok=0 live=0

	port=$(xfer_next_port)
	XFER_PORT=$port xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 "$size" 0 1 120 \
		>"$XFER_TMP/mtu.out" 2>&1 &
	pid=$!
	for m in 1500 9000; do
		base=$(ndp_lib_stat "$ns_b" InData)
		if ! ndp_lib_wait 60000 data_or_done "$ns_b" $((base + 20)) "$pid"; then
			echo "no data for 60 s before mtu $m"
			ok=1
			break
		fi
		exited "$pid" || live=$((live + 1))
		set_mtu "$m" || ok=1
	done
	wait "$pid" || ok=1
	cat "$XFER_TMP/mtu.out"
	echo "$live" >"$XFER_TMP/mtu.live"
	return $ok
}
ndp_lib_check "mtu 9000 -> 1500 -> 9000 under a transfer: intact" mtu_change
ndp_lib_expect_eq "mtu: both changes during the transfer" 2 \
	"$(cat "$XFER_TMP/mtu.live" 2>/dev/null || echo 0)"
ndp_lib_check "mtu: one queue for the receiving device" \
	test "$(queues "$ns_b")" -eq 1
ndp_lib_info "mtu: ${SECONDS}s"

# --- dead socket ----------------------------------------------------------

# Clients write all they send in one send() into a large buffer (no
# LAST in their first windows: pulls are owed, not pushed windows); the
# server reads one connection, the others wait in its accept queue.
dead_socket()
{
	local port d spid cpids=() pid base pulls i

	port=$(xfer_next_port)
	d=$XFER_TMP/dead
	mkdir -p "$d"
	ip netns exec "$ns_b" sysctl -qw net.ndp.link_rate_mbps=1 || return 1
	ip netns exec "$ns_b" $DP server 4 "$port" >"$d/s" 2>"$d/se" &
	spid=$!
	xfer_wait_file "$d/se" listening 10 || return 1
	for i in 1 2; do
		ip netns exec "$ns_a" $DP client 4 10.0.1.2 "$port" $((2 << 20)) \
			sndbuf=4194304 chunk=0 >"$d/c$i" 2>&1 &
		cpids+=($!)
	done
	base=$(ndp_lib_stat "$ns_b" InData)
	ndp_lib_wait 30000 moved "$ns_b" InData $((base + 8)) || return 1
	ndp_lib_info "receiver sockets before the kill:" \
		"$(ndp_lib_sockets "$ns_b" | tr '\n' ';')"
	kill -9 "$spid"
	wait "$spid" 2>/dev/null
	ndp_lib_wait 30000 no_socks "$ns_b" || { echo "receiver sockets left"; return 1; }
	ndp_lib_stat "$ns_b" PullsDeadSock >"$d/deadsock"
	# No PULL for the dead: over ~14 pull intervals (72 ms each at 1
	# Mb/s and MTU 9000) the counter must not move.
	pulls=$(ndp_lib_stat "$ns_b" OutPulls)
	ndp_lib_wait 1000 moved "$ns_b" OutPulls "$pulls" 2>/dev/null &&
		{ echo "OutPulls moved after the sockets died"; return 1; }
	ip netns exec "$ns_b" sysctl -qw net.ndp.link_rate_mbps=0
	# The senders learn it from an RST or their RTO.
	for pid in "${cpids[@]}"; do
		ndp_lib_wait 30000 exited "$pid" || echo "a sender still runs"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	return 0
}
before=$(ndp_lib_stat "$ns_b" PullsDeadSock)
ndp_lib_check "dead socket: no PULL leaves after the sockets died" dead_socket
ndp_lib_check "dead socket: PullsDeadSock moved" \
	test "$(cat "$XFER_TMP/dead/deadsock" 2>/dev/null || echo 0)" -gt "$before"
ndp_lib_info "dead socket: ${SECONDS}s"

# --- churn ----------------------------------------------------------------

# churn N: N veth pairs aN/bN with 10.2.N.0/24, one connection across
# each (receiver $ns_b), then deleted.
churn()
{
	local n=$1 i port d=$XFER_TMP/churn spid ok=0

	mkdir -p "$d"
	for i in $(seq "$n"); do
		echo "link add a$i netns $ns_a type veth peer name b$i netns $ns_b"
	done | ip -batch - || return 1
	for i in $(seq "$n"); do
		echo "addr add 10.2.$((i / 250)).$((i % 250 + 1))/32 dev a$i"
		echo "link set a$i up"
		echo "route add 10.3.$((i / 250)).$((i % 250 + 1))/32 dev a$i"
	done | ip -n "$ns_a" -batch - || return 1
	for i in $(seq "$n"); do
		echo "addr add 10.3.$((i / 250)).$((i % 250 + 1))/32 dev b$i"
		echo "link set b$i up"
		echo "route add 10.2.$((i / 250)).$((i % 250 + 1))/32 dev b$i"
	done | ip -n "$ns_b" -batch - || return 1
	port=$(xfer_next_port)
	ip netns exec "$ns_b" ndp_xfer -4 -P "$port" -T 60 server -n "$n" \
		-E 16K >"$d/s" 2>"$d/se" &
	spid=$!
	xfer_wait_file "$d/se" listening 10 || return 1
	# One shell for all clients: a process less per connection.
	ip netns exec "$ns_a" bash -c "for i in \$(seq $n); do
		ndp_xfer -4 -P $port -T 30 client -S 16K \
			-H 10.3.\$((i / 250)).\$((i % 250 + 1)) || exit 1
	done" >"$d/c" 2>&1 || ok=1
	wait "$spid" || ok=1
	for i in $(seq "$n"); do
		echo "link del b$i"
	done | ip -n "$ns_b" -batch - || return 1
	[ $ok -eq 0 ] || { tail -n 5 "$d/c" "$d/se"; return 1; }
}

q0=$(queues "$ns_b")
added0=$(ndp_lib_stat "$ns_b" PullQueuesAdded)
ndp_lib_check "churn: $devs devices, a connection each, deleted" churn "$devs"
q1=$(queues "$ns_b")
ndp_lib_check "churn: a queue per device" \
	test $(($(ndp_lib_stat "$ns_b" PullQueuesAdded) - added0)) -ge "$devs"
ndp_lib_check "churn: another $devs devices" churn "$devs"
q2=$(queues "$ns_b")
ndp_lib_info "queues: $q0 before, $q1 after round 1, $q2 after round 2"
ndp_lib_expect_eq "churn: queue count back after round 1" "$q0" "$q1"
ndp_lib_expect_eq "churn: queue count back after round 2" "$q0" "$q2"
ndp_lib_info "churn: ${SECONDS}s"

# --- device deleted -------------------------------------------------------

dev_deleted()
{
	local port d=$XFER_TMP/del spid cpid base rc=0 ns t0

	mkdir -p "$d"
	for ns in "$ns_a" "$ns_b"; do
		ip netns exec "$ns" sysctl -qw net.ndp.rto_max_us=100000 \
			net.ndp.orphan_retries=2 || return 1
	done
	port=$(xfer_next_port)
	ip netns exec "$ns_b" ndp_xfer -4 -P "$port" -T 60 -I 3 server \
		-E 256M >"$d/s" 2>"$d/se" &
	spid=$!
	xfer_wait_file "$d/se" listening 10 || return 1
	ip netns exec "$ns_a" ndp_xfer -4 -P "$port" -T 60 -I 3 client \
		-H 10.0.1.2 -S 256M >"$d/c" 2>&1 &
	cpid=$!
	base=$(ndp_lib_stat "$ns_b" InData)
	ndp_lib_wait 30000 moved "$ns_b" InData $((base + 20)) || return 1
	ip -n "$ns_b" link del eth0 || return 1
	t0=$SECONDS
	wait "$spid" && { echo "server succeeded?"; rc=1; }
	wait "$cpid" && { echo "client succeeded?"; rc=1; }
	echo $((SECONDS - t0)) >"$d/secs"
	cat "$d/s" "$d/c"
	# A status other than "ok" (an errno name, or short) on each end.
	grep -q '^conn .* ok$' "$d/s" "$d/c" && rc=1
	return $rc
}
ndp_lib_check "device deleted: both ends fail with an error" dev_deleted
ndp_lib_expect_le "device deleted: within 20 s" 20 \
	"$(cat "$XFER_TMP/del/secs" 2>/dev/null || echo 99)"
ndp_lib_expect_eq "device deleted: no queue left" 0 "$(queues "$ns_b")"
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean

# ndp_diag.ko (loaded by the sock_diag dumps above) holds ndp.ko: the
# helper unloads it first.
ndp_lib_check "namespaces gone: ndp.ko unloads" ndp_lib_unload_ndp "$ns_a" "$ns_b"
modprobe ndp
ndp_lib_info "total: ${SECONDS}s"
ndp_lib_done
