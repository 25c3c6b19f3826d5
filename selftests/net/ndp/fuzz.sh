#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation fuzzing of the receive path (ndp_fuzz) while real transfers
# run, both ends of one veth link fuzzing each other.  A user sees:
#   - every transfer (ndp_xfer, 4 connections both ways, IPv4 from a to b
#     and IPv6 from b to a, repeated while the fuzzers run) arrives intact,
#     SHA-256 identical: the fuzzers never give a forgery of a live
#     connection a valid header checksum (ndp_fuzz without -F), so nothing
#     they send may harm a transfer;
#   - no kernel warning (and the VM runner's splat check);
#   - with every client stopped and every server and decoy listener
#     killed, no connection stays (sock_diag, ndp_lib_conns) longer than the
#     protocol allows (net.ndp.rto_max_us 200 ms, 15 RTO expiries;
#     embryonic_timeout_ms 2000; a margin for the emulated guest):
#     leftovers are shown with the header of the file;
#   - two hosts whose echo services listen on the same port, echo clients
#     both ways, fuzzed with forgeries allowed (ndp_fuzz -F -l PORT: valid
#     checksums on any mutant, listener-to-listener packets with and
#     without PASSIVE): once the clients and fuzzers stop, PassiveOpens
#     stops moving at both hosts (no echo loop opening connections), and
#     once the echo services are killed no connection remains.
#
#   NDP_FUZZ_PACKETS  mutants in the transfer phase, both fuzzers together
#                     (default 20000; 4000 on the "-ndp-debug" and "-ndp-kcsan" kernels);
#                     the echo phase sends a quarter of it
#   NDP_FUZZ_RATE     mutants per second per fuzzer (default 250)
#   NDP_FUZZ_SEED     seed of the first fuzzer, the second uses SEED+1
#                     (default 1)
#   NDP_FUZZ_PCAP     directory: keep every injected frame (pcap, for
#                     "ndp_replay inject") there
#   NDP_FUZZ_REAP_S   how long connections may stay after the end
#                     (default 20 s, times NDP_TIME_FACTOR)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
xfer_is_ndp || ndp_lib_skip_all "NDP-only (mutated NDP packets)"
ndp_lib_require_cmd ndp_fuzz ndp_xfer python3 ndpctl
helper=$(dirname "$0")/ndp_load.py
life=$(dirname "$0")/ndp_life.py

case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) def_packets=4000 ;;
*) def_packets=20000 ;;
esac
packets=${NDP_FUZZ_PACKETS:-$def_packets}
rate=${NDP_FUZZ_RATE:-250}
seed=${NDP_FUZZ_SEED:-1}
reap_s=${NDP_FUZZ_REAP_S:-20}

ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 15
d=$XFER_TMP/fuzz
mkdir -p "$d"
for ns in "$ns_a" "$ns_b"; do
	ip netns exec "$ns" sysctl -qw net.ndp.rto_max_us=200000 \
		net.ndp.embryonic_timeout_ms=2000
done
ndp_lib_info "$packets mutants at $rate/s per fuzzer, seeds $seed and $((seed + 1))"

# fuzzer NS NAME SEED COUNT ARGS...: ndp_fuzz on NS's eth0, background.
fuzzer()
{
	local ns=$1 name=$2 s=$3 n=$4 w=()
	shift 4
	[ -n "${NDP_FUZZ_PCAP:-}" ] && w=(-w "$NDP_FUZZ_PCAP/$name.pcap")
	ip netns exec "$ns" ndp_fuzz -i eth0 -s "$s" -n "$n" -r "$rate" \
		-W 120 -v "${w[@]}" "$@" >"$d/$name.out" 2>"$d/$name.err" &
}


none_left()
{
	[ "$(ndp_lib_conns "$ns_a")" = 0 ] && [ "$(ndp_lib_conns "$ns_b")" = 0 ]
}

# reaped NAME: wait until neither namespace lists a connection (reap_s,
# times NDP_TIME_FACTOR).
reaped()
{
	local t0=$SECONDS na nb

	if ndp_lib_wait $((reap_s * 1000)) none_left 2>/dev/null; then
		ndp_lib_pass "$1"
		ndp_lib_info "all connections gone after $((SECONDS - t0)) s"
		return
	fi
	na=$(ndp_lib_conns "$ns_a")
	nb=$(ndp_lib_conns "$ns_b")
	ndp_lib_fail "$1" "$na (a) and $nb (b) connections left after $((SECONDS - t0)) s"
	for ns in "$ns_a" "$ns_b"; do
		ndp_lib_info "${ns%%-*}:"
		ndp_lib_sockets "$ns" | head -n 20 | sed 's/^/#   /'
	done
}

no_pids()
{
	local ns

	for ns in "$@"; do
		[ -z "$(ip netns pids "$ns")" ] || return 1
	done
}

# stop_ns NS...: kill every process in the namespaces, children included,
# and wait until they are gone.
stop_ns()
{
	local ns

	for ns in "$@"; do
		ip netns pids "$ns" | xargs -r kill -9 2>/dev/null
	done
	ndp_lib_wait 10000 no_pids "$@"
}

# --- phase 1: transfers under fuzzing ----------------------------------------
# Decoy listeners take the first windows that mutants with a new identity
# would open at the transfer's listener: a sink (accepts, reads) and a
# listener that never accepts, v4 and v6, in both namespaces.
d1=$(xfer_next_port)
d2=$(xfer_next_port)
for pair in "$ns_a 10.0.1.1" "$ns_a fd00:1::1" "$ns_b 10.0.1.2" "$ns_b fd00:1::2"; do
	set -- $pair
	ip netns exec "$1" python3 "$life" sink "$2" "$d1" >"$d/sink.$2" 2>&1 &
	ip netns exec "$1" python3 "$life" hold "$2" "$d2" 64 >"$d/hold.$2" 2>&1 &
	xfer_wait_file "$d/sink.$2" listening 30 || cat "$d/sink.$2"
	xfer_wait_file "$d/hold.$2" listening 30 || cat "$d/hold.$2"
done

s0=$(xfer_stats "$ns_a" "$ns_b")
fuzzer "$ns_a" fa "$seed" $((packets / 2)) -D "$d1,$d2"
fa=$!
fuzzer "$ns_b" fb $((seed + 1)) $((packets / 2)) -D "$d1,$d2"
fb=$!
rounds=0
bad=0
failed=
while :; do
	p4=$(xfer_next_port)
	p6=$(xfer_next_port)
	XFER_PORT=$p4 xfer_run "$ns_a" "$ns_b" 10.0.1.2 4 256K 64K 4 300 \
		>"$d/x4.$rounds" 2>&1 &
	x4=$!
	XFER_PORT=$p6 xfer_run "$ns_b" "$ns_a" fd00:1::1 6 256K 64K 4 300 \
		>"$d/x6.$rounds" 2>&1 &
	x6=$!
	wait $x4 || { bad=$((bad + 1)); failed+=" $p4"; sed "s/^/# round $rounds v4: /" "$d/x4.$rounds"; }
	wait $x6 || { bad=$((bad + 1)); failed+=" $p6"; sed "s/^/# round $rounds v6: /" "$d/x6.$rounds"; }
	rounds=$((rounds + 1))
	kill -0 $fa 2>/dev/null || kill -0 $fb 2>/dev/null || break
done
wait $fa
rca=$?
wait $fb
rcb=$?
s1=$(xfer_stats "$ns_a" "$ns_b")
for f in fa fb; do
	sed -n 's/^fuzz: /# '$f': /p' "$d/$f.out"
	[ -s "$d/$f.err" ] && grep -v '^ndp_fuzz: \(capturing\|injecting\)' "$d/$f.err" | sed 's/^/# /'
done
ndp_lib_check "both fuzzers ran to the end" test "$rca" = 0 -a "$rcb" = 0
inj=$(awk '/^fuzz: seed/ { s += $5 } END { print s + 0 }' "$d/fa.out" "$d/fb.out")
ndp_lib_check "every mutant was sent ($inj of $((packets / 2 * 2)))" \
	test "$inj" -eq $((packets / 2 * 2))
ndp_lib_info "$rounds rounds of transfers (2 x 4 connections each) under fuzzing"
# Silent corruption is always a bug: a transfer that completed with wrong
# bytes fails the test.  A transfer that failed visibly (reset, timeout,
# short) is a bug too, unless a mutant the receiver cannot tell from a
# real packet reached it: one whose header checksum stayed valid (the
# 16-bit ones' complement sum misses swapped or offsetting words) and
# carried the connection's ports, which ndp_fuzz -v logs with
# "hcsum=ok" (one changing the first psn a first-window packet implies
# was seen once in five runs: the connection then waits for psns the
# sender never sends).  Every failed transfer must have met one, and at
# most one may fail, so a systematic failure still fails the test.
corrupt=$(cat "$XFER_TMP"/run.*/client.out "$XFER_TMP"/run.*/server.out 2>/dev/null |
	awk '$1 == "conn" && $9 ~ /^(corrupt|long)/' | wc -l)
ndp_lib_check "no transfer delivered wrong bytes (SHA-256 of every completed one)" \
	test "$corrupt" = 0
ndp_lib_check "transfers under fuzzing: at most 1 of $((2 * rounds)) failed visibly ($bad)" \
	test "$bad" -le 1
# The mutants with a valid header checksum that carried a failed
# connection's ports, the last ones before it failed.
unexplained=0
for p in $failed; do
	keys=$(awk '$1 == "conn" && $9 != "ok" { print $2 }' \
		   "$XFER_TMP/run.$p/client.out" "$XFER_TMP/run.$p/server.out" | sort -u)
	# A run that failed with no failed connection listed: unexplained.
	[ -n "$keys" ] || unexplained=$((unexplained + 1))
	for key in $keys; do
		ndp_lib_info "mutants with port $key and a valid header checksum:"
		grep -h -E " ($key>[0-9]+|[0-9]+>$key) .*hcsum=ok" "$d/fa.out" "$d/fb.out" \
			>"$d/valid.$key"
		tail -n 25 "$d/valid.$key" | sed 's/^/#   /'
		[ -s "$d/valid.$key" ] || unexplained=$((unexplained + 1))
	done
done
ndp_lib_expect_eq "every failed connection met a mutant with a valid header checksum" \
	0 "$unexplained"
for ns in "$ns_a" "$ns_b"; do
	ndp_lib_info "${ns%%-*}: $(for c in InErrs InCsumErrs OutRsts InBadPulls \
		InBadReports InBadRsts PassiveOpens EmbryonicTimeouts ReplayRejected \
		EstabResets; do printf '%s %s ' $c "$(xfer_delta "$s0" "$s1" "$ns" $c)"; done)"
done
xfer_expect_moved "mutants were rejected as malformed (InErrs, both ends)" \
	"$s0" "$s1" "$ns_b" InErrs
xfer_expect_moved "mutants reached the checksum check (InCsumErrs)" \
	"$s0" "$s1" "$ns_b" InCsumErrs
xfer_expect_moved "mutants of no connection drew RSTs (OutRsts)" \
	"$s0" "$s1" "$ns_b" OutRsts
ndp_lib_check "no kernel warning after the transfer phase" ndp_lib_dmesg_clean

stop_ns "$ns_a" "$ns_b"
reaped "transfer phase: no connection left behind"

# --- phase 2: two echo services on one port, forgeries allowed --------------
port=$(xfer_next_port)
for pair in "$ns_a 10.0.1.1" "$ns_a fd00:1::1" "$ns_b 10.0.1.2" "$ns_b fd00:1::2"; do
	set -- $pair
	ip netns exec "$1" python3 "$helper" echo "$2" "$port" >"$d/echo.$2" 2>&1 &
	xfer_wait_file "$d/echo.$2" listening 30 || cat "$d/echo.$2"
done
ip netns exec "$ns_a" python3 "$helper" echoclient 10.0.1.2 "$port" "$d/stop" \
	>"$d/ca4" 2>&1 &
ip netns exec "$ns_a" python3 "$helper" echoclient fd00:1::2 "$port" "$d/stop" \
	>"$d/ca6" 2>&1 &
ip netns exec "$ns_b" python3 "$helper" echoclient 10.0.1.1 "$port" "$d/stop" \
	>"$d/cb4" 2>&1 &
ip netns exec "$ns_b" python3 "$helper" echoclient fd00:1::1 "$port" "$d/stop" \
	>"$d/cb6" 2>&1 &
fuzzer "$ns_a" ea $((seed + 2)) $((packets / 8)) -F -l "$port"
fa=$!
fuzzer "$ns_b" eb $((seed + 3)) $((packets / 8)) -F -l "$port"
fb=$!
wait $fa
rca=$?
wait $fb
rcb=$?
touch "$d/stop"
for c in ca4 ca6 cb4 cb6; do
	xfer_wait_file "$d/$c" done 60 || ndp_lib_info "echo client $c did not stop"
done
for f in ea eb; do
	sed -n 's/^fuzz: /# '$f': /p' "$d/$f.out"
done
ndp_lib_info "echo clients: $(cat "$d/ca4" "$d/ca6" "$d/cb4" "$d/cb6" | tr '\n' ';')"
ndp_lib_check "echo phase: both fuzzers ran to the end" test "$rca" = 0 -a "$rcb" = 0
ndp_lib_check "echo phase: the echo clients worked" \
	grep -q 'rounds [1-9]' "$d/ca4" "$d/cb4"
# Unaccepted connections end within embryonic_timeout_ms; let them.  Both
# sleeps are the check's meaning, not a wait for something: the first lets
# what the clients started end, the second is the quiet period in which
# nothing may open a connection.
sleep 4
e0=$(xfer_stats "$ns_a" "$ns_b")
sleep 6
e1=$(xfer_stats "$ns_a" "$ns_b")
ndp_lib_info "within 6 s after the clients stopped: a: PassiveOpens $(xfer_delta \
	"$e0" "$e1" "$ns_a" PassiveOpens) InPkts $(xfer_delta "$e0" "$e1" "$ns_a" \
	InPkts) conns $(ndp_lib_conns "$ns_a"); b: PassiveOpens $(xfer_delta "$e0" "$e1" \
	"$ns_b" PassiveOpens) InPkts $(xfer_delta "$e0" "$e1" "$ns_b" InPkts) conns $(ndp_lib_conns "$ns_b")"
po=$(($(xfer_delta "$e0" "$e1" "$ns_a" PassiveOpens) + \
      $(xfer_delta "$e0" "$e1" "$ns_b" PassiveOpens)))
ndp_lib_expect_eq "echo phase: PassiveOpens stops moving once clients stop" 0 "$po"
# What the echo services still hold (informational: an application may
# keep an idle connection as long as it likes).
for ns in "$ns_a" "$ns_b"; do
	[ "$(ndp_lib_conns "$ns")" -gt 0 ] || [ "$po" != 0 ] || continue
	ndp_lib_sockets "$ns" | head -n 8 | sed "s/^/# ${ns%%-*}: /"
done
stop_ns "$ns_a" "$ns_b"
reaped "echo phase: no connection left behind"
ndp_lib_check "no kernel warning" ndp_lib_dmesg_clean
ndp_lib_done
