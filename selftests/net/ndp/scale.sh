#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Many concurrent connections to one host (ndp_scale, one epoll loop at
# each end).  A user sees, over NDP:
#   - NDP_SCALE_CONNS (default 2000; 500 on the "-ndp-debug" and "-ndp-kcsan" kernels)
#     connections through one listener all connect, each proven by an
#     echoed 64-byte message, intact;
#   - 2000 request/responses, each on a connection picked at random among
#     them, all intact;
#   - once the client exits and the server is killed, no connection is
#     left (sock_diag) and the kernel log is clean.
# The same run over TCP is shown for comparison: kernel memory per idle
# connection (Slab delta over connections, both ends, as the server runs
# on the same kernel) and time per request/response (never asserted).
#
#   NDP_SCALE_SWEEP="100 1000 10000"   benchmark instead: for each count,
#       NDP and TCP, one RESULT line each and a table of memory per
#       connection and request/response time, with the ratios NDP/TCP and
#       against the smallest count (run by tools/bench/ndp-scale; needs
#       about 2 GB of guest memory for 10000)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
xfer_is_ndp || ndp_lib_skip_all "compares NDP with TCP itself"
ndp_lib_require_cmd ndp_scale ndpctl
case "$(uname -r)" in
*-ndp-debug*|*-ndp-kcsan*) def_conns=500 ;;
*) def_conns=2000 ;;
esac
conns=${NDP_SCALE_CONNS:-$def_conns}
sweep=${NDP_SCALE_SWEEP:-}
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
# Enough ephemeral ports and unaccepted connections for a fast opener.
for ns in "$ns_a" "$ns_b"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_local_port_range="10000 65000"
	ip netns exec "$ns" sysctl -qw net.ndp.max_embryonic=4096 2>/dev/null
done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
d=$XFER_TMP/scale
mkdir -p "$d"

# server_idle PROTO: the server (ns_b) holds no connection but its
# listener (time-wait records aside).
server_idle()
{
	if [ "$1" = tcp ]; then
		ip netns exec "$ns_b" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
			awk '$4 ~ /^[0-9A-F][0-9A-F]$/ && $4 != "0A" && $4 != "06" { n++ }
			     END { exit n > 0 }'
	else
		[ "$(ndp_lib_conns "$ns_b")" = 0 ]
	fi
}

# run PROTO N: server in ns_b, client in ns_a; prints the RESULT line.
run()
{
	local proto=$1 n=$2 port spid rc

	port=$(xfer_next_port)
	ip netns exec "$ns_b" ndp_scale server -p "$proto" -P "$port" -b 10.0.1.2 \
		2>"$d/server.$proto.$n" &
	spid=$!
	xfer_wait_file "$d/server.$proto.$n" listening 30 >/dev/null
	ip netns exec "$ns_a" ndp_scale client -p "$proto" -P "$port" -H 10.0.1.2 \
		-n "$n" -r 2000 -T 900 >"$d/client.$proto.$n" 2>&1
	rc=$?
	# Let the server see every close before it goes.
	ndp_lib_wait 30000 server_idle "$proto" >&2
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	grep RESULT "$d/client.$proto.$n" || cat "$d/client.$proto.$n"
	return $rc
}

field()
{
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"
}

conns()
{
	echo $(($(ndp_lib_conns "$ns_a") + $(ndp_lib_conns "$ns_b")))
}

# left: the connections left in both namespaces, once none are (at most
# 30 s, scaled).
left()
{
	ndp_lib_wait 30000 none_left 2>/dev/null
	conns
}

none_left()
{
	[ "$(conns)" = 0 ]
}

if [ -n "$sweep" ]; then
	ndp_lib_plan 1
	printf '# %6s %5s %10s %9s %10s %9s\n' conns proto B/conn rr_us \
		"B ratio" "rr ratio"
	bad=0
	declare -A base_u=()
	for n in $sweep; do
		for proto in ndp tcp; do
			r=$(run "$proto" "$n") || bad=1
			echo "# $r"
			printf -v "r_$proto" '%s' "$r"
		done
		for proto in ndp tcp; do
			r=r_$proto
			b=$(field bytes_per_conn "${!r}")
			u=$(field rr_us "${!r}")
			[ -n "${base_u[$proto]:-}" ] || base_u[$proto]=$u
			printf '# %6s %5s %10s %9s %10s %9s\n' "$n" "$proto" "$b" "$u" \
				"$(awk -v a="$(field bytes_per_conn "$r_ndp")" \
				   -v b="$(field bytes_per_conn "$r_tcp")" \
				   'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
				"$(awk -v a="$u" -v b="${base_u[$proto]}" \
				   'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
		done
	done
	echo "# (B ratio: NDP/TCP memory per connection; rr ratio: against the smallest count)"
	ndp_lib_check "every connection and exchange intact" test $bad = 0
	ndp_lib_done
fi

ndp_lib_plan 5
r=$(run ndp "$conns")
rc=$?
ndp_lib_info "$r"
ndp_lib_expect_eq "NDP: all $conns connections connected" "$conns" \
	"$(field connected "$r")"
ndp_lib_check "NDP: every echo and request/response intact" \
	test $rc = 0 -a "$(field corrupt "$r")" = 0 -a "$(field rr_bad "$r")" = 0
ndp_lib_expect_eq "NDP: no connection left afterwards" 0 "$(left)"
r2=$(run tcp "$conns")
ndp_lib_info "$r2"
ndp_lib_info "per connection: NDP $(field bytes_per_conn "$r") B, TCP $(field \
	bytes_per_conn "$r2") B; request/response NDP $(field rr_us "$r") us, \
TCP $(field rr_us "$r2") us"
ndp_lib_expect_eq "TCP comparison run complete" "$conns" "$(field connected "$r2")"
ndp_lib_check "no kernel warning" ndp_lib_dmesg_clean
ndp_lib_done
