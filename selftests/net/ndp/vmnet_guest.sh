#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guests' side of the separate-kernel test (vmnet.sh, run on the host
# with tools/vm/ndp-vm-net; not a selftest of its own).
#
#   vmnet_guest.sh up                 bring the virtio NIC up (/ndp/vmnet.env)
#   vmnet_guest.sh switch [OPTS]      the switch guest (ndp-vm-net -s):
#                                     sch_ndp OPTS on both ports
#   vmnet_guest.sh server|client [SIZE]
#   vmnet_guest.sh bench-server|bench-client [SIZE] [ROUNDS] [rpc]
#
# server and client run the same cases in the same order: TCP (the
# baseline), native NDP and NDP in UDP (net.ndp.udp_port), each over IPv4
# and IPv6, SIZE bytes (default 4M) each way at once with ndp_xfer, which
# checks every byte received.  Before each case the server starts the
# transfer's listener, then a TCP "ready" listener; the client connects to
# the latter until it answers (a deadline, no fixed sleep), then starts
# the transfer.  Lines for the host, one per case and side:
#
#   VMNET-XFER case=C side=S conn 0 tx N SHA rx N SHA STATUS  (ndp_xfer)
#   VMNET-CASE case=C side=S rc=RC
#   VMNET-STAT case=C side=S NAME=DELTA ...   (NDP counters, device packets)
#   VMNET-STATALL case=C side=S NAME=DELTA ...   (every counter that moved)
#   VMNET-FEAT side=S FEATURE: on|off ...     (ethtool -k of the NIC)
#
# Exit status: the number of cases that failed on this side.
#
# bench-*: one bulk flow of SIZE (default 16M) from B to A, ROUNDS
# (default 3) rounds, TCP then native NDP over IPv4 (tools/ndpperf -m
# bulk, bytes verified); the client prints ndpperf's result lines as
# "VMNET-BENCH PROTO ...".  With "rpc" the client then runs, TCP (with
# TCP_NODELAY) then NDP, 2000 persistent 1 KB RPCs (ndpperf -m rr) and 20
# rounds of an 8-flow fan-in of 64 KB answers into the client (-m incast
# -N 8; all eight flows from the one server guest).  The server ends when the client says
# so (a TCP connection to port 21998).
set -uo pipefail
export PATH=/ndp/selftests:/ndp/bin:/usr/sbin:/usr/bin:/sbin:/bin

# shellcheck source=/dev/null
. /ndp/vmnet.env

UDP_PORT=7253
cases=(tcp4 tcp6 ndp4 ndp6 udp4 udp6)
tfactor=${NDP_TIME_FACTOR:-1}

# vmnet_dev MAC: the NIC with that MAC address.
vmnet_dev()
{
	local d

	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

# vmnet_nic MAC ADDR4 ADDR6: bring that NIC up with those addresses; its
# name in VMNET_DEV.
vmnet_nic()
{
	local dev i

	for ((i = 0; i < 100; i++)); do
		dev=$(vmnet_dev "$1") && break
		sleep 0.1
	done
	[ -n "${dev:-}" ] || { echo "vmnet: no NIC with MAC $1"; return 1; }
	ip link set dev "$dev" mtu "$VMNET_MTU" up || return 1
	ip addr add "$2/24" dev "$dev" || return 1
	ip -6 addr add "$3/64" dev "$dev" nodad || return 1
	echo "vmnet: $dev up, mtu $VMNET_MTU, $2 $3"
	ethtool -k "$dev" | grep -E '^(rx-checksumming|tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' |
		tr '\n' ' ' | sed "s/^/VMNET-FEAT side=$VMNET_NAME dev=$dev /; s/\$/\n/"
	VMNET_DEV=$dev
}

vmnet_up()
{
	hostname "vmnet-$VMNET_NAME"
	modprobe virtio_net || return 1
	vmnet_nic "$VMNET_MAC" "$VMNET_ADDR4" "$VMNET_ADDR6" || return 1
	# Behind a switch guest (ndp-vm-net -s): the peer is routed through it.
	if [ -n "${VMNET_GW4:-}" ]; then
		ip route add default via "$VMNET_GW4" || return 1
		ip -6 route add default via "$VMNET_GW6" || return 1
	fi
}

# switch_done: tell the switch guest, if any, that this side is done
# (its "done" listener, port 21997 at this side's switch port).
switch_done()
{
	[ -n "${VMNET_GW4:-}" ] || return 0
	ndp_xfer -p tcp -4 -P 21997 -T 20 client -H "$VMNET_GW4" -S 1 -E 1 >/dev/null 2>&1
}

# switch_run [QDISC OPTIONS]: the switch guest: both ports up, routing
# between them, sch_ndp as the root qdisc of each (the options given, or
# its defaults), until both hosts said they are done; then each port's
# qdisc statistics as "VMNET-QDISC port=N <line>".
switch_run()
{
	local p0 p1 p rc=0

	hostname vmnet-switch
	modprobe virtio_net || return 1
	modprobe sch_ndp || { echo "vmnet: cannot load sch_ndp"; return 1; }
	vmnet_nic "$VMNET_MAC" "$VMNET_ADDR4" "$VMNET_ADDR6" || return 1
	p0=$VMNET_DEV
	vmnet_nic "$VMNET_MAC1" "$VMNET_ADDR4_1" "$VMNET_ADDR6_1" || return 1
	p1=$VMNET_DEV
	sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 || return 1
	for p in "$p0" "$p1"; do
		# shellcheck disable=SC2068 # the options, word by word
		tc qdisc replace dev "$p" root ndp $@ || { echo "vmnet: sch_ndp refused: $*"; return 1; }
	done
	echo "VMNET-SWITCH ready: $p0 $p1, sch_ndp $*"
	# Each host connects once when it is done.
	ndp_xfer -p tcp -4 -P 21997 -T $((3600 * tfactor)) server -n 2 -S 1 -E 1 >/dev/null 2>&1 ||
		rc=1
	for p in "$p0" "$p1"; do
		tc -s qdisc show dev "$p" | sed "s/^/VMNET-QDISC port=$p /"
		echo "VMNET-PORT port=$p tx_packets=$(cat "/sys/class/net/$p/statistics/tx_packets")" \
			"rx_dropped=$(cat "/sys/class/net/$p/statistics/rx_dropped")"
	done
	return $rc
}

# counters NAME...: "NAME VALUE" lines: NDP's, then the NIC's packets.
counters()
{
	awk '{ print $1, $2 }' /proc/net/ndp_stat
	echo "DevTxPackets $(cat "/sys/class/net/$VMNET_DEV/statistics/tx_packets")"
	echo "DevRxPackets $(cat "/sys/class/net/$VMNET_DEV/statistics/rx_packets")"
}

stat_delta()	# stat_delta CASE BEFORE AFTER
{
	awk -v c="$1" -v s="$VMNET_NAME" '
		NR == FNR { b[$1] = $2; next }
		$1 ~ /^(OutData|InData|GsoSegments|OutGsoPkts|OutGsoSegs|OutFragmented|EncapOutPkts|EncapInPkts|InCsumErrs|Rtos|RtxNack|RcvQDrops|DevTxPackets|DevRxPackets)$/ {
			line = line " " $1 "=" ($2 - b[$1])
		}
		$2 != b[$1] { all = all " " $1 "=" ($2 - b[$1]) }
		END {
			print "VMNET-STAT case=" c " side=" s line
			print "VMNET-STATALL case=" c " side=" s all
		}' "$2" "$3"
}

run_case()	# run_case INDEX SIDE SIZE
{
	local i=$1 side=$2 size=$3 c=${cases[$1]} proto fam peer port rport
	local tmo=$((300 * tfactor)) rc=0 spid k

	proto=${c%?}
	fam=${c#???}
	if [ "$fam" = 4 ]; then peer=$VMNET_PEER4; else peer=$VMNET_PEER6; fi
	port=$((20000 + i))
	rport=$((21000 + i))
	if [ "$proto" = udp ]; then
		sysctl -qw net.ndp.udp_port=$UDP_PORT || return 1
		proto=ndp
	else
		sysctl -qw net.ndp.udp_port=0 || return 1
	fi
	counters >"/tmp/before.$c"
	if [ "$side" = server ]; then
		ndp_xfer -p "$proto" "-$fam" -P "$port" -T "$tmo" -I 60 server -n 1 \
			-S "$size" -E "$size" >"/tmp/out.$c" 2>"/tmp/err.$c" &
		spid=$!
		for ((k = 0; k < 200 * tfactor; k++)); do
			grep -q listening "/tmp/err.$c" && break
			kill -0 $spid 2>/dev/null || break
			sleep 0.05
		done
		# The ready barrier: returns once the client has connected.
		ndp_xfer -p tcp -4 -P "$rport" -T "$tmo" server -n 1 -S 1 -E 1 >/dev/null 2>&1 ||
			rc=1
		wait $spid || rc=1
	else
		# The server guest may still be booting for the first case.
		for ((k = 0; k < 600 * tfactor; k++)); do
			ndp_xfer -p tcp -4 -P "$rport" -T 20 client -H "$VMNET_PEER4" -S 1 -E 1 \
				>/dev/null 2>&1 && break
			sleep 0.2
		done
		ndp_xfer -p "$proto" "-$fam" -P "$port" -T "$tmo" -I 60 client -H "$peer" -n 1 \
			-S "$size" -E "$size" >"/tmp/out.$c" 2>"/tmp/err.$c" || rc=1
	fi
	counters >"/tmp/after.$c"
	sed -n "s/^conn /VMNET-XFER case=$c side=$VMNET_NAME conn /p" "/tmp/out.$c"
	[ "$rc" = 0 ] || sed "s/^/# $c: /" "/tmp/err.$c" | head -n 10
	stat_delta "$c" "/tmp/before.$c" "/tmp/after.$c"
	echo "VMNET-CASE case=$c side=$VMNET_NAME rc=$rc"
	return $rc
}

bench_server()
{
	local p rc=0 pids=()

	for p in tcp ndp; do
		ndpperf -s -p "$p" -4 -P $((5300 + ${#pids[@]})) &
		pids+=($!)
	done
	# Ready, then done: two connections to the barrier port.
	ndp_xfer -p tcp -4 -P 21999 -T $((3600 * tfactor)) server -n 1 -S 1 -E 1 >/dev/null 2>&1 || rc=1
	ndp_xfer -p tcp -4 -P 21998 -T $((3600 * tfactor)) server -n 1 -S 1 -E 1 >/dev/null 2>&1 || rc=1
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	return $rc
}

bench_client()
{
	local size=$1 rounds=$2 rpc=$3 p port=5300 rc=0 k nodelay

	for ((k = 0; k < 600 * tfactor; k++)); do
		ndp_xfer -p tcp -4 -P 21999 -T 20 client -H "$VMNET_PEER4" -S 1 -E 1 \
			>/dev/null 2>&1 && break
		sleep 0.2
	done
	for p in tcp ndp; do
		ndpperf -c "$VMNET_PEER4" -p "$p" -4 -P $port -m bulk -r "$size" -n "$rounds" \
			-T $((600 * tfactor)) >"/tmp/bench.$p" 2>&1 || rc=1
		sed "s/^/VMNET-BENCH $p mtu $VMNET_MTU: /" "/tmp/bench.$p"
		port=$((port + 1))
	done
	[ -n "$rpc" ] || { bench_done; return $rc; }
	# Persistent 1 KB RPCs (TCP with TCP_NODELAY, as in the ops bench)
	# and an 8:1 fan-in of 64 KB answers into this guest (all eight flows
	# from the server guest: one sending kernel, not eight hosts).
	port=5300
	for p in tcp ndp; do
		nodelay=()
		[ "$p" = tcp ] && nodelay=(-D)
		ndpperf -c "$VMNET_PEER4" -p "$p" -4 -P $port -m rr -n 2000 -w 100 "${nodelay[@]}" \
			-T $((600 * tfactor)) -q >"/tmp/rr.$p" 2>&1 || rc=1
		sed "s/^/VMNET-BENCH $p mtu $VMNET_MTU: /" "/tmp/rr.$p"
		ndpperf -c "$VMNET_PEER4" -p "$p" -4 -P $port -m incast -N 8 -R 64K -n 20 -w 2 \
			-T $((600 * tfactor)) -q >"/tmp/incast.$p" 2>&1 || rc=1
		sed "s/^/VMNET-BENCH $p mtu $VMNET_MTU: /" "/tmp/incast.$p"
		port=$((port + 1))
	done
	bench_done
	return $rc
}

# bench_done: tell the server the client is done.
bench_done()
{
	ndp_xfer -p tcp -4 -P 21998 -T 20 client -H "$VMNET_PEER4" -S 1 -E 1 >/dev/null 2>&1
}

case "${1:-}" in
bench-server|bench-client)
	vmnet_up || exit 1
	modprobe ndp || { echo "vmnet: cannot load ndp"; exit 1; }
	if [ "$1" = bench-server ]; then bench_server; else bench_client "${2:-16M}" "${3:-3}" "${4:-}"; fi
	rc=$?
	switch_done
	exit $rc
	;;
up)
	vmnet_up
	;;
switch)
	shift
	switch_run "$@"
	;;
server|client)
	vmnet_up || exit 1
	modprobe ndp || { echo "vmnet: cannot load ndp"; exit 1; }
	failed=0
	for i in "${!cases[@]}"; do
		run_case "$i" "$1" "${2:-4M}" || failed=$((failed + 1))
	done
	switch_done
	exit $failed
	;;
*)
	echo "usage: vmnet_guest.sh up|switch|server|client|bench-server|bench-client ..." >&2
	exit 2
	;;
esac
