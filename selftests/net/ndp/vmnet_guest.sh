#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guests' side of the separate-kernel test (vmnet.sh, run on the host
# with tools/vm/ndp-vm-net; not a selftest of its own).
#
#   vmnet_guest.sh up                 bring the virtio NIC up (/ndp/vmnet.env)
#   vmnet_guest.sh server|client [SIZE]
#   vmnet_guest.sh bench-server|bench-client [SIZE] [ROUNDS]
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
# "VMNET-BENCH PROTO ...".  The server ends when the client says so (a
# TCP connection to port 21999).
set -uo pipefail
export PATH=/ndp/selftests:/ndp/bin:/usr/sbin:/usr/bin:/sbin:/bin

# shellcheck source=/dev/null
. /ndp/vmnet.env

UDP_PORT=7253
cases=(tcp4 tcp6 ndp4 ndp6 udp4 udp6)
tfactor=${NDP_TIME_FACTOR:-1}

vmnet_dev()
{
	local d

	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$VMNET_MAC" ] && { basename "$d"; return 0; }
	done
	return 1
}

vmnet_up()
{
	local dev i

	hostname "vmnet-$VMNET_NAME"
	modprobe virtio_net || return 1
	for ((i = 0; i < 100; i++)); do
		dev=$(vmnet_dev) && break
		sleep 0.1
	done
	[ -n "${dev:-}" ] || { echo "vmnet: no NIC with MAC $VMNET_MAC"; return 1; }
	ip link set dev "$dev" mtu "$VMNET_MTU" up || return 1
	ip addr add "$VMNET_ADDR4/24" dev "$dev" || return 1
	ip -6 addr add "$VMNET_ADDR6/64" dev "$dev" nodad || return 1
	echo "vmnet: $dev up, mtu $VMNET_MTU, $VMNET_ADDR4 $VMNET_ADDR6"
	ethtool -k "$dev" | grep -E '^(rx-checksumming|tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):' |
		tr '\n' ' ' | sed "s/^/VMNET-FEAT side=$VMNET_NAME /; s/\$/\n/"
	VMNET_DEV=$dev
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
		$1 ~ /^(OutData|InData|GsoSegments|OutGsoPkts|OutGsoSegs|OutFragmented|EncapOutPkts|EncapInPkts|InCsumErrs|Rtos|RtxNack|DevTxPackets|DevRxPackets)$/ {
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
	local size=$1 rounds=$2 p port=5300 rc=0 k

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
	ndp_xfer -p tcp -4 -P 21998 -T 20 client -H "$VMNET_PEER4" -S 1 -E 1 >/dev/null 2>&1 || rc=1
	return $rc
}

case "${1:-}" in
bench-server|bench-client)
	vmnet_up || exit 1
	modprobe ndp || { echo "vmnet: cannot load ndp"; exit 1; }
	if [ "$1" = bench-server ]; then bench_server; else bench_client "${2:-16M}" "${3:-3}"; fi
	;;
up)
	vmnet_up
	;;
server|client)
	vmnet_up || exit 1
	modprobe ndp || { echo "vmnet: cannot load ndp"; exit 1; }
	failed=0
	for i in "${!cases[@]}"; do
		run_case "$i" "$1" "${2:-4M}" || failed=$((failed + 1))
	done
	exit $failed
	;;
*)
	echo "usage: vmnet_guest.sh up|server|client [SIZE]" >&2
	exit 2
	;;
esac
