#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unmodified Debian binaries run over NDP through the ndpize shim: netcat,
# python3 -m http.server with curl, iperf3, redis-server with
# redis-benchmark.  Each is proven to have used NDP: the NDP counters of
# both namespaces move and the TCP counters of both do not.  Also: port
# selectors keep other sockets on TCP, TCP options are accepted, the debug
# switch logs conversions.
#
# NDP_TEST_PROTO=tcp runs the same applications over plain TCP (baseline).
. "$(dirname "$0")/lib.sh"

proto=${NDP_TEST_PROTO:-ndp}
ndp_lib_require_cmd nc curl iperf3 redis-server redis-benchmark redis-cli python3 sha256sum
if [ "$proto" = ndp ]; then
	ndp_lib_require_cmd ndpize
	ndp_lib_load_modules ndp
	run() { ndpize run "$@"; }
else
	run() { "$@"; }
fi
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 13

A=10.0.1.1
B=10.0.1.2
tmp=$(mktemp -d /tmp/ndpize.XXXXXX)
ndp_lib_at_exit "rm -rf $tmp"

tcp_segs() {	# tcp_segs NS: TCP segments in+out of the namespace
	ip netns exec "$1" awk '/^Tcp:/ && ++n == 2 { print $11 + $12 }' /proc/net/snmp
}
ndp_data() {	# ndp_data NS: NDP DATA packets in+out of the namespace
	echo $(( $(ndp_lib_stat "$1" InData) + $(ndp_lib_stat "$1" OutData) ))
}
snapshot() {
	s_tcp_a=$(tcp_segs "$ns_a"); s_tcp_b=$(tcp_segs "$ns_b")
	if [ "$proto" = ndp ]; then
		s_ndp_a=$(ndp_data "$ns_a"); s_ndp_b=$(ndp_data "$ns_b")
	fi
}
# used_ndp NAME: NDP moved in both namespaces and TCP in neither.
used_ndp() {
	local ta tb
	ta=$(tcp_segs "$ns_a"); tb=$(tcp_segs "$ns_b")
	if [ "$proto" != ndp ]; then
		[ "$ta" -gt "$s_tcp_a" ] && [ "$tb" -gt "$s_tcp_b" ]
		return
	fi
	[ "$(ndp_data "$ns_a")" -gt "$s_ndp_a" ] || { echo "no NDP data in $ns_a"; return 1; }
	[ "$(ndp_data "$ns_b")" -gt "$s_ndp_b" ] || { echo "no NDP data in $ns_b"; return 1; }
	[ "$ta" = "$s_tcp_a" ] || { echo "TCP moved in $ns_a: $s_tcp_a -> $ta"; return 1; }
	[ "$tb" = "$s_tcp_b" ] || { echo "TCP moved in $ns_b: $s_tcp_b -> $tb"; return 1; }
}
# srv_waits PID: true if a process started by PID sleeps waiting for a
# connection (accept, poll, select, epoll).
srv_waits() {
	local p w kids
	kids=$(awk -v root="$1" '
		{ split($0, f, ") "); split(f[2], g, " "); pp[substr($1, 1)] = g[2] }
		END { q[root] = 1; do { n = 0
			for (c in pp) if (!(c in q) && (pp[c] in q)) { q[c] = 1; n++ } } while (n)
			for (c in q) print c }' /proc/[0-9]*/stat 2>/dev/null)
	for p in $kids; do
		w=$(cat "/proc/$p/wchan" 2>/dev/null)
		case "$w" in
		*accept*|*wait_woken*|*select*|*poll*|*sk_wait*) return 0 ;;
		esac
	done
	return 1
}
# wait_srv PID: until srv_waits PID (30 s at most, times NDP_TIME_FACTOR).
# NDP listeners do not show in ss, so readiness is read from the server's
# wait channel instead.
wait_srv() {
	ndp_lib_wait 30000 srv_waits "$1" 2>/dev/null ||
		echo "# server $1 not seen waiting for connections"
}

# RTO expiries of both namespaces (NDP): a lossless veth gives the timer
# no reason to fire (rtt.c; the first connection to a peer starts from
# net.ndp.rto_init_us, later ones from the RTT cache).
rtos() { [ "$proto" = ndp ] && echo $(( $(ndp_lib_stat "$ns_a" Rtos) + $(ndp_lib_stat "$ns_b" Rtos) )); }
spurious() { [ "$proto" = ndp ] && echo $(( $(ndp_lib_stat "$ns_a" RtoSpurious) + $(ndp_lib_stat "$ns_b" RtoSpurious) )); }
rtos0=$(rtos)
spurious0=$(spurious)

head -c 3000000 /dev/urandom >"$tmp/file"
want=$(sha256sum <"$tmp/file" | cut -d' ' -f1)

# --- netcat ------------------------------------------------------------------
snapshot
ip netns exec "$ns_b" bash -c "$(declare -f run); run nc -l -N $B 5000 >$tmp/nc.out" &
srv=$!
wait_srv $srv
ip netns exec "$ns_a" bash -c "$(declare -f run); run nc -N $B 5000 <$tmp/file"
wait $srv
ndp_lib_expect_eq "netcat: 3 MB file arrives intact (sha256)" "$want" \
	"$(sha256sum <"$tmp/nc.out" | cut -d' ' -f1)"
ndp_lib_check "netcat: went over $proto, not the other" used_ndp

# --- python3 http.server + curl ---------------------------------------------
mkdir -p "$tmp/www"
head -c 10000000 /dev/urandom >"$tmp/www/big"
want10=$(sha256sum <"$tmp/www/big" | cut -d' ' -f1)
snapshot
ip netns exec "$ns_b" bash -c "$(declare -f run); run python3 -m http.server --bind $B --directory $tmp/www 8000 >$tmp/http.log 2>&1" &
srv=$!
ndp_lib_at_exit "kill $srv"
wait_srv $srv
ip netns exec "$ns_a" bash -c "$(declare -f run); run curl -sS --max-time 300 -o $tmp/curl.out http://$B:8000/big"
ndp_lib_expect_eq "http.server + curl: 10 MB file intact (sha256)" "$want10" \
	"$(sha256sum <"$tmp/curl.out" 2>/dev/null | cut -d' ' -f1)"
kill $srv 2>/dev/null; wait $srv 2>/dev/null
ndp_lib_check "http.server + curl: went over $proto, not the other" used_ndp

# --- iperf3 ------------------------------------------------------------------
snapshot
ip netns exec "$ns_b" bash -c "$(declare -f run); run iperf3 -s -1 -B $B -p 5201 >$tmp/iperf-s.log 2>&1" &
srv=$!
wait_srv $srv
iperf_run() {
	ip netns exec "$ns_a" bash -c "$(declare -f run); run iperf3 -c $B -p 5201 -n 20M -J >$tmp/iperf.json 2>&1" || return 1
	grep -q '"sum_received"' "$tmp/iperf.json"
}
ndp_lib_check "iperf3: client and server complete a 20 MB test" iperf_run
wait $srv 2>/dev/null
ndp_lib_info "iperf3: $(grep -m1 -o '"bits_per_second":[^,]*' "$tmp/iperf.json" | tail -n1)"
ndp_lib_check "iperf3: went over $proto, not the other" used_ndp

# --- redis ---------------------------------------------------------------------
snapshot
ip netns exec "$ns_b" bash -c "$(declare -f run); run redis-server --bind $B --port 6379 --save '' --appendonly no --protected-mode no --daemonize no --dir $tmp >$tmp/redis.log 2>&1" &
srv=$!
ndp_lib_at_exit "kill $srv"
wait_srv $srv
redis_rw() {
	local v
	ip netns exec "$ns_a" bash -c "$(declare -f run); run redis-cli -h $B set ndpkey $want" | grep -q OK || return 1
	v=$(ip netns exec "$ns_a" bash -c "$(declare -f run); run redis-cli -h $B get ndpkey")
	[ "$v" = "$want" ]
}
ndp_lib_check "redis-cli: SET then GET returns the value" redis_rw
bench() {
	ip netns exec "$ns_a" bash -c "$(declare -f run); run redis-benchmark -h $B -n 2000 -c 8 -t set,get -q" >"$tmp/bench.out" 2>&1 || return 1
	cat "$tmp/bench.out"
	[ "$(grep -c 'requests per second' "$tmp/bench.out")" -ge 2 ]
}
ndp_lib_check "redis-benchmark: SET and GET complete" bench
sed 's/^/# /' "$tmp/bench.out" | tr '\r' '\n' | grep 'per second'
kill $srv 2>/dev/null; wait $srv 2>/dev/null
ndp_lib_check "redis: went over $proto, not the other" used_ndp

if [ "$proto" != ndp ]; then
	ndp_lib_skip "selector keeps port 5001 on TCP" "NDP_TEST_PROTO=tcp"
	ndp_lib_skip "TCP options accepted, debug log" "NDP_TEST_PROTO=tcp"
	ndp_lib_skip "no RTO expiry on a lossless path" "NDP_TEST_PROTO=tcp"
	ndp_lib_skip "RTO expiries shown spurious" "NDP_TEST_PROTO=tcp"
	ndp_lib_done
fi
for c in Rtos RtoProbes RtxTimeout RtoWaitPull RtoSpurious RtoLate RttCacheHits \
	 BacklogDrop RcvQDrops MemDrops InErrs InCsumErrs InGsoPkts; do
	ndp_lib_info "$c: a $(ndp_lib_stat "$ns_a" $c), b $(ndp_lib_stat "$ns_b" $c)"
done
# As rtt.sh: none expected; a loaded host's vCPU stalls may make one or
# two, spurious (with the old 20 ms constant timer: 28).  A kernel
# NDP_TIME_FACTOR times slower (the debug kernel: 5 and 6 on a loaded
# host) stalls as many times longer: the allowance scales with it, still
# far below the old timer's count.  If several expiries happened, the
# peer must have shown at least one of them spurious, as rtt.sh checks
# (RtoSpurious).  A single one may not be: an expiry answered by a
# time-wait record cannot be shown so, and with batches the servers'
# connections end sooner after their last packet.  2 of 5 runs on
# 2026-11-29 (tree 2b9a11e) had exactly one expiry not shown spurious;
# its cause is not known (the drop counters printed above were added
# after them, and the 3 runs since had no expiry).
nrto=$(($(rtos) - rtos0))
ndp_lib_expect_le "the applications met (almost) no RTO expiry on a lossless path (Rtos)" \
	$((2 * ${NDP_TIME_FACTOR:-1})) "$nrto"
ndp_lib_check "RTO expiries on a lossless path shown spurious by the peer" \
	test "$nrto" -le 1 -o $(($(spurious) - spurious0)) -ge 1

# --- selectors and options -------------------------------------------------------
selector() {
	local t0 n0
	t0=$(tcp_segs "$ns_b"); n0=$(ndp_data "$ns_b")
	# Port 5002 is selected: NDP.  Port 5001 is not: TCP.
	ip netns exec "$ns_b" ndpize -p 5002 run nc -l -N $B 5001 >"$tmp/sel1" &
	srv=$!
	wait_srv $srv
	echo tcp-data | ip netns exec "$ns_a" ndpize -p 5002 run nc -N $B 5001 || return 1
	wait
	[ "$(cat "$tmp/sel1")" = tcp-data ] || return 1
	[ "$(tcp_segs "$ns_b")" -gt "$t0" ] || { echo "port 5001 did not use TCP"; return 1; }
	[ "$(ndp_data "$ns_b")" = "$n0" ] || { echo "port 5001 used NDP"; return 1; }
	ip netns exec "$ns_b" ndpize -p 5002 run nc -l -N $B 5002 >"$tmp/sel2" &
	srv=$!
	wait_srv $srv
	t0=$(tcp_segs "$ns_b")
	echo ndp-data | ip netns exec "$ns_a" ndpize -n 10.0.1.0/24 run nc -N $B 5002 || return 1
	wait
	[ "$(cat "$tmp/sel2")" = ndp-data ] || return 1
	[ "$(tcp_segs "$ns_b")" = "$t0" ] || { echo "port 5002 used TCP"; return 1; }
	[ "$(ndp_data "$ns_b")" -gt "$n0" ]
}
ndp_lib_check "selectors: -p/-n pick NDP, other ports stay TCP" selector

options() {
	ip netns exec "$ns_a" ndpize -d run python3 - <<'PY' 2>"$tmp/dbg"
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
assert s.getsockopt(socket.SOL_SOCKET, socket.SO_PROTOCOL) == 253, "not NDP"
for o in (socket.TCP_NODELAY, socket.TCP_KEEPIDLE, socket.TCP_KEEPINTVL,
          socket.TCP_KEEPCNT, socket.TCP_CORK, socket.TCP_QUICKACK):
    s.setsockopt(socket.IPPROTO_TCP, o, 1)
assert s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
try:
    s.setsockopt(socket.IPPROTO_TCP, 14, b"x" * 80)   # TCP_MD5SIG
    raise SystemExit("TCP_MD5SIG accepted")
except OSError as e:
    assert e.errno == 92, e   # ENOPROTOOPT
s.close()
PY
	local rc=$?
	cat "$tmp/dbg"
	[ $rc -eq 0 ] && grep -q 'NDP fd' "$tmp/dbg"
}
ndp_lib_check "TCP options accepted or refused as documented; -d logs" options
ndp_lib_done
