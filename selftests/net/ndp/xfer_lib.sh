#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the transfer tests (xfer.sh, concurrent.sh, loss.sh, ...),
# sourced after lib.sh.  Functions are named xfer_*.
#
# NDP_TEST_PROTO=tcp runs every check over TCP instead of NDP (the same
# socket API); counter assertions are NDP-only and skip over TCP.

XFER_PROTO=${NDP_TEST_PROTO:-ndp}
case "$XFER_PROTO" in
ndp|tcp) ;;
*) ndp_lib_skip_all "NDP_TEST_PROTO must be ndp or tcp, not '$XFER_PROTO'" ;;
esac

XFER_TMP=$(mktemp -d /tmp/ndp-xfer.XXXXXX)
ndp_lib_at_exit "rm -rf $XFER_TMP"
echo $((20000 + RANDOM % 20000)) >"$XFER_TMP/port"

# xfer_next_port: a port no earlier run of this script used.  Kept in a
# file because ndp_lib_check runs its command in a subshell.
xfer_next_port()
{
	local p

	p=$(cat "$XFER_TMP/port")
	echo $((p + 1)) >"$XFER_TMP/port"
	echo "$p"
}

# xfer_setup: prerequisites common to every transfer test.
xfer_setup()
{
	ndp_lib_require_cmd ndp_xfer ip awk
	[ "$XFER_PROTO" = ndp ] && ndp_lib_load_modules ndp
	ndp_lib_info "protocol: $XFER_PROTO"
}

# xfer_is_ndp: true when counter assertions apply.
xfer_is_ndp()
{
	[ "$XFER_PROTO" = ndp ]
}

# xfer_wait_file FILE PATTERN [SECS]: wait until FILE contains PATTERN,
# at most SECS (default 10) x NDP_TIME_FACTOR (ndp_lib_wait).
__xfer_file_has()
{
	grep -q "$2" "$1" 2>/dev/null
}

xfer_wait_file()
{
	ndp_lib_wait $((${3:-10} * 1000)) __xfer_file_has "$1" "$2"
}

# xfer_bytes SIZE: SIZE with an optional K/M/G suffix (powers of 1024),
# in bytes, as ndp_xfer reads it.
xfer_bytes()
{
	local n=${1%[KkMmGg]}

	case "$1" in
	*[Kk]) echo $((n * 1024)) ;;
	*[Mm]) echo $((n * 1024 * 1024)) ;;
	*[Gg]) echo $((n * 1024 * 1024 * 1024)) ;;
	*) echo "$1" ;;
	esac
}

# xfer_compare CLIENT_OUT SERVER_OUT CONNS CLIENT_SEND SERVER_SEND: both
# ends reported CONNS connections, all "ok", with the right byte counts,
# and each direction's digest is the same at its sender and its receiver.
xfer_compare()
{
	awk -v n="$3" -v cs="$(xfer_bytes "$4")" -v ss="$(xfer_bytes "$5")" '
	FNR == 1 { side++ }
	$1 != "conn" { next }
	side == 1 { ctx[$2] = $4 " " $5; crx[$2] = $7 " " $8; cst[$2] = $9; nc++
		    if ($4 != cs) { print "client conn " $2 " sent " $4 " bytes, not " cs; bad++ } }
	side == 2 { stx[$2] = $4 " " $5; srx[$2] = $7 " " $8; sst[$2] = $9; ns++
		    if ($4 != ss) { print "server conn " $2 " sent " $4 " bytes, not " ss; bad++ } }
	END {
		if (nc != n) { print "client reported " nc + 0 " connections, expected " n; bad++ }
		if (ns != n) { print "server reported " ns + 0 " connections, expected " n; bad++ }
		for (k in ctx) {
			if (cst[k] != "ok") { print "client conn " k ": " cst[k]; bad++ }
			if (!(k in stx)) { print "conn " k " unknown to the server"; bad++; continue }
			if (sst[k] != "ok") { print "server conn " k ": " sst[k]; bad++ }
			if (ctx[k] != srx[k]) { print "conn " k " client->server: sent " ctx[k] ", received " srx[k]; bad++
				if (cst[k] == "ok") print "conn " k ": the client finished and closed, its last bytes never arrived" }
			if (stx[k] != crx[k]) { print "conn " k " server->client: sent " stx[k] ", received " crx[k]; bad++
				if (sst[k] == "ok") print "conn " k ": the server finished and closed, its last bytes never arrived" }
		}
		exit bad > 0
	}' "$1" "$2"
}

# xfer_run CLIENT_NS SERVER_NS SERVER_ADDR FAMILY CLIENT_SEND SERVER_SEND
#          [CONNS] [TIMEOUT_S]
# One transfer: server in SERVER_NS, client in CLIENT_NS, each
# connection sending CLIENT_SEND bytes up and SERVER_SEND bytes down at
# the same time; checked with xfer_compare.  Output: diagnostics only.
# XFER_PORT overrides the port (for runs started in the background);
# XFER_SERVER_DEV and XFER_CLIENT_DEV bind that side's sockets to a device
# (a VRF, ndp_xfer -D).  XFER_START=FILE is a start barrier for runs in
# the background: once its server listens, the client, already in its
# namespace, creates FILE.<pid> and starts when FILE exists (60 s at
# most, times NDP_TIME_FACTOR), so that runs started one after the other
# send at the same time.  XFER_HOLD=FILE: the client's connections stay
# connected after sending until FILE exists (ndp_xfer -W).  A connection
# that moves nothing for 30 s x NDP_TIME_FACTOR fails (ndp_xfer -I), a
# run longer than TIMEOUT_S (default 120) x NDP_TIME_FACTOR too (-T).
xfer_run()
{
	local cns=$1 sns=$2 addr=$3 fam=$4 csend=$5 ssend=$6
	local conns=${7:-1} tmo=${8:-120} port=${XFER_PORT:-$(xfer_next_port)}
	local d=$XFER_TMP/run.$port spid crc src pre=()
	# ndp_xfer's limits on a transfer that makes no progress (30 s) and
	# on the whole run (TIMEOUT_S) are deadlines like the others: a
	# kernel NDP_TIME_FACTOR times slower (the debug kernels) backs its
	# RTO off as many times longer.
	local idle=$((30 * ${NDP_TIME_FACTOR:-1}))
	tmo=$((tmo * ${NDP_TIME_FACTOR:-1}))

	mkdir -p "$d"
	ip netns exec "$sns" ndp_xfer -p "$XFER_PROTO" "-$fam" -P "$port" -T "$tmo" -I "$idle" \
		${XFER_SERVER_DEV:+-D "$XFER_SERVER_DEV"} server -n "$conns" -S "$ssend" -E "$csend" \
		>"$d/server.out" 2>"$d/server.err" &
	spid=$!
	if ! xfer_wait_file "$d/server.err" listening 10; then
		echo "server did not start listening:"
		cat "$d/server.err"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		return 1
	fi
	[ -n "${XFER_START:-}" ] && pre=(bash -c '
		: >"$0.$$"
		for ((i = 0; i < 1200 * ${NDP_TIME_FACTOR:-1}; i++)); do
			[ -e "$0" ] && exec "$@"
			sleep 0.05
		done
		echo "start barrier $0 not lifted" >&2
		exit 1' "$XFER_START")
	ip netns exec "$cns" "${pre[@]}" ndp_xfer -p "$XFER_PROTO" "-$fam" -P "$port" -T "$tmo" -I "$idle" \
		${XFER_CLIENT_DEV:+-D "$XFER_CLIENT_DEV"} client -H "$addr" -n "$conns" -S "$csend" -E "$ssend" \
		${XFER_HOLD:+-W "$XFER_HOLD"} \
		>"$d/client.out" 2>"$d/client.err"
	crc=$?
	wait "$spid"
	src=$?
	if ! xfer_compare "$d/client.out" "$d/server.out" "$conns" "$csend" "$ssend" ||
	   [ $crc -ne 0 ] || [ $src -ne 0 ]; then
		echo "client exit $crc, server exit $src"
		for f in client.err server.err; do
			[ -s "$d/$f" ] && sed "s/^/$f: /" "$d/$f" | head -n 10
		done
		head -n 5 "$d/client.out" "$d/server.out"
		xfer_is_ndp && xfer_diag "$cns" "$sns"
		return 1
	fi
	return 0
}

# xfer_diag CLIENT_NS SERVER_NS: after a failed transfer, what each side's
# NDP knows: its non-zero counters and its sockets (orphans included), so
# a rare failure in CI leaves enough to explain it.
xfer_diag()
{
	local ns side=client

	for ns in "$1" "$2"; do
		ip netns exec "$ns" awk -v s="$side" '$2 != 0 { c = c " " $1 "=" $2 }
			END { print s " counters:" c }' /proc/net/ndp_stat
		command -v ndpctl >/dev/null &&
			ip netns exec "$ns" ndpctl sockets 2>&1 | sed "s/^/$side sockets: /" | head -n 8
		side=server
	done
}

# xfer_stats NS...: snapshot of the NDP counters of each namespace, as
# "NS COUNTER VALUE" lines (empty over TCP).
xfer_stats()
{
	local ns

	xfer_is_ndp || return 0
	for ns in "$@"; do
		ip netns exec "$ns" awk -v ns="$ns" '{ print ns, $1, $2 }' /proc/net/ndp_stat
	done
}

# xfer_delta BEFORE AFTER NS COUNTER...: sum over the COUNTERs of how far
# they moved in NS between two xfer_stats snapshots (strings).
xfer_delta()
{
	local before=$1 after=$2 ns=$3
	shift 3
	awk -v ns="$ns" -v list="$*" '
	BEGIN { n = split(list, want, " "); for (i = 1; i <= n; i++) w[want[i]] = 1 }
	$1 == ns && ($2 in w) { if (FNR == NR) b[$2] = $3; else a[$2] = $3 }
	END { s = 0; for (k in w) s += a[k] - b[k]; print s }' \
		<(printf '%s\n' "$before") <(printf '%s\n' "$after")
}

# xfer_expect_moved NAME BEFORE AFTER NS COUNTER...: pass if the sum of
# the counters grew (NDP only; skipped over TCP).
xfer_expect_moved()
{
	local name=$1 before=$2 after=$3 ns=$4 d
	shift 4

	if ! xfer_is_ndp; then
		ndp_lib_skip "$name" "counters are NDP-only"
		return 0
	fi
	d=$(xfer_delta "$before" "$after" "$ns" "$@")
	if [ "${d:-0}" -gt 0 ]; then
		ndp_lib_pass "$name"
		ndp_lib_info "$* moved by $d"
	else
		ndp_lib_fail "$name" "$* did not move in ${ns%%-*} (delta ${d:-?})"
	fi
}

# xfer_expect_delta NAME BEFORE AFTER NS EXPECTED COUNTER...: exact delta.
xfer_expect_delta()
{
	local name=$1 before=$2 after=$3 ns=$4 want=$5 d
	shift 5

	if ! xfer_is_ndp; then
		ndp_lib_skip "$name" "counters are NDP-only"
		return 0
	fi
	d=$(xfer_delta "$before" "$after" "$ns" "$@")
	ndp_lib_expect_eq "$name" "$want" "$d"
}

# xfer_wait_moved SNAP NS NAME[,NAME...] N [TIMEOUT_MS]: wait until the sum
# of those counters of NS grew by at least N since snapshot SNAP (taken by
# xfer_stats), at most TIMEOUT_MS (default 30000) x NDP_TIME_FACTOR; see
# ndp_lib_wait_stat.  Returns 1 on timeout, or at once over TCP.
xfer_wait_moved()
{
	local base

	xfer_is_ndp || return 1
	base=$(printf '%s\n' "$1" | awk -v ns="$2" -v l="$3" '
		BEGIN { n = split(l, w, ","); for (i = 1; i <= n; i++) x[w[i]] = 1 }
		$1 == ns && ($2 in x) { s += $3 }
		END { print s + 0 }')
	ndp_lib_wait_stat "$2" "$3" $((base + $4)) "${5:-30000}"
}
