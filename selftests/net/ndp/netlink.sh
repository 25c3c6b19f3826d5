#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "ndp" generic netlink family through ndpctl: paths, parameters,
# counters, sockets and the events group; extack messages for bad input;
# CAP_NET_ADMIN for changes; per-netns isolation; the kernel's YNL cli
# (tools/net/ynl/cli.py) against Documentation/netlink/specs/ndp.yaml.
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd ndpctl ip sysctl setpriv
ndp_lib_load_modules ndp
# ndpctl sockets loads ndp_diag.ko, which holds ndp.ko: unload it after.
ndp_lib_at_exit "rmmod ndp_diag"
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"

ndp_lib_plan 41

A() { ip netns exec "$ns_a" "$@"; }
B() { ip netns exec "$ns_b" "$@"; }

# expect_err NAME ERRNO_TEXT EXTACK_TEXT CMD...: CMD fails and its stderr
# carries the kernel's extack message and errno text.
expect_err()
{
	local name=$1 errtext=$2 msg=$3
	shift 3
	ndp_lib_expect_err "$name" "$msg" "$errtext" -- "$@"
}

# --- YNL ------------------------------------------------------------------
# The kernel's own YNL cli, driven by Documentation/netlink/specs/ndp.yaml:
# the generated policies and permissions (net/ndp/netlink_gen.c) at work.
ynl() { python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" --no-schema "$@"; }
if command -v python3 >/dev/null && [ -f "$NDP_LIB_DIR/ynl/cli.py" ] &&
   python3 -c 'import yaml' 2>/dev/null; then
	ynl_params() { ip netns exec "$ns_a" python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" \
		--no-schema --dump param-get --output-json |
		grep -q '"param-name": "init_window", "param-value": 15, "param-min": 1, "param-max": 1024'; }
	ndp_lib_check "ynl: param-get dump lists init_window with its range" ynl_params
	ndp_lib_check "ynl: path-add (IPv4 via destination)" \
		A python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" --no-schema \
		--do path-add --json '{"path-id": 9, "path-dst": "0a090000", "path-dst-plen": 16, "path-via-dst": "0a090101"}'
	ynl_get() {
		local out
		out=$(ip netns exec "$ns_a" python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" \
			--no-schema --do path-get --json '{"path-id": 9}' --output-json) || return 1
		echo "$out"
		python3 -c 'import json, sys
p = json.loads(sys.argv[1])
want = {"path-id": 9, "path-dst": "0a090000", "path-dst-plen": 16,
	"path-via-dst": "0a090101", "path-state": "usable"}
sys.exit(any(p.get(k) != v for k, v in want.items()) or "path-score" not in p)' "$out"
	}
	ndp_lib_check "ynl: path-get returns what path-add set" ynl_get
	ndp_lib_check "ynl: ndpctl sees the path added through YNL" \
		bash -c "ip netns exec $ns_a ndpctl path show id 9 | grep -q '^id 9 dst 10.9.0.0/16 via 10.9.1.1 '"
	ynl_err() {	# ynl_err TEXT JSON: path-add fails, output carries TEXT
		local out
		out=$(ip netns exec "$ns_a" python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" \
			--no-schema --do path-add --json "$2" 2>&1) && { echo "accepted: $2"; return 1; }
		[[ $out == *"$1"* ]] || { echo "$out"; return 1; }
	}
	ndp_lib_check "ynl: the generated policy refuses path-id 0 (range 1..255)" \
		ynl_err "integer out of range" '{"path-id": 0, "path-dst": "0a090000", "path-via-dst": "0a090101"}'
	ndp_lib_check "ynl: a 2-byte address is refused with extack" \
		ynl_err "address must be 4 (IPv4) or 16 (IPv6) bytes" '{"path-id": 8, "path-dst": "0a09", "path-via-dst": "0a090101"}'
	ndp_lib_check "ynl: the generated policy refuses an attribute path-add does not take" \
		ynl_err "Invalid argument" '{"path-id": 8, "path-dst": "0a090000", "path-via-dst": "0a090101", "param-value": 1}'
	ynl_unpriv() {
		local out
		out=$(ip netns exec "$ns_a" setpriv --reuid 65534 --regid 65534 --clear-groups \
			python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" --no-schema \
			--do path-del --json '{"path-id": 9}' 2>&1) && return 1
		[[ $out == *"Operation not permitted"* ]] || { echo "$out"; return 1; }
	}
	ndp_lib_check "ynl: unprivileged path-del refused (uns-admin-perm)" ynl_unpriv
	ndp_lib_check "ynl: path-del" \
		A python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" --no-schema \
		--do path-del --json '{"path-id": 9}'
	ynl_counters() { ip netns exec "$ns_a" python3 "$NDP_LIB_DIR/ynl/cli.py" --spec "$NDP_LIB_DIR/ndp.yaml" \
		--no-schema --do counters-get --output-json | grep -q '"name": "OutData"'; }
	ndp_lib_check "ynl: counters-get names the MIB counters" ynl_counters
else
	for t in "ynl: param-get dump lists init_window with its range" \
		 "ynl: path-add (IPv4 via destination)" "ynl: path-get returns what path-add set" \
		 "ynl: ndpctl sees the path added through YNL" \
		 "ynl: the generated policy refuses path-id 0 (range 1..255)" \
		 "ynl: a 2-byte address is refused with extack" \
		 "ynl: the generated policy refuses an attribute path-add does not take" \
		 "ynl: unprivileged path-del refused (uns-admin-perm)" "ynl: path-del" \
		 "ynl: counters-get names the MIB counters"; do
		ndp_lib_skip "$t" "no python3, PyYAML or YNL cli"
	done
fi

# --- params ----------------------------------------------------------------
ndp_lib_check "param show lists init_window with its range" \
	bash -c "ip netns exec $ns_a ndpctl param show | grep -qx 'init_window 15 range \[1, 1024\]'"
ndp_lib_check "param show lists the scoreboard knobs at their defaults" \
	bash -c "ip netns exec $ns_a ndpctl param show > /tmp/nl_params.$$ &&
		grep -qx 'sb_min_samples 100 range \[1, 1000000\]' /tmp/nl_params.$$ &&
		grep -qx 'sb_nack_mean_pct 125 range \[100, 1000\]' /tmp/nl_params.$$ &&
		grep -qx 'sb_nack_abs_pct 30 range \[1, 100\]' /tmp/nl_params.$$ &&
		grep -qx 'sb_decay_ms 100 range \[0, 60000\]' /tmp/nl_params.$$ &&
		grep -qx 'sb_exclude_ms 1000 range \[1, 600000\]' /tmp/nl_params.$$"
rm -f /tmp/nl_params.$$
ndp_lib_check "param set is seen by the sysctl" \
	bash -c "ip netns exec $ns_a ndpctl param set init_window 20 &&
		[ \$(ip netns exec $ns_a sysctl -n net.ndp.init_window) = 20 ]"
expect_err "param set above the maximum is refused with extack" \
	"Numerical result out of range" "value out of the parameter's range" \
	A ndpctl param set sb_nack_abs_pct 101
ndp_lib_expect_eq "refused param set changed nothing" 30 \
	"$(A sysctl -n net.ndp.sb_nack_abs_pct)"
expect_err "param set of an unknown name is refused with extack" \
	"No such file or directory" "unknown parameter" \
	A ndpctl param set no_such_knob 1
ndp_lib_check "sysctl rejects the new knobs out of range" \
	bash -c "! ip netns exec $ns_a sysctl -qw net.ndp.sb_nack_mean_pct=99 2>/dev/null &&
		! ip netns exec $ns_a sysctl -qw net.ndp.sb_exclude_ms=0 2>/dev/null &&
		[ \$(ip netns exec $ns_a sysctl -n net.ndp.sb_nack_mean_pct) = 125 ]"

# --- paths -----------------------------------------------------------------
ndp_lib_check "path add (IPv4, via destination)" \
	A ndpctl path add id 1 dst 10.0.1.0/24 via 10.0.1.2
ndp_lib_check "path add (IPv6, source and fwmark)" \
	A ndpctl path add id 7 dst fd00:1::/64 src fd00:1::1 fwmark 0x17
ndp_lib_check "path show lists both with their scoreboards" \
	bash -c "ip netns exec $ns_a ndpctl path show > /tmp/nl_paths.$$ &&
		grep -qx 'id 1 dst 10.0.1.0/24 via 10.0.1.2 state usable acks 0 nacks 0 rtos 0 rts 0 exclusions 0 tx 0 rtx 0 ces 0' /tmp/nl_paths.$$ &&
		grep -q '^id 7 dst fd00:1::/64 src fd00:1::1 fwmark 0x17 state usable' /tmp/nl_paths.$$ &&
		[ \$(wc -l < /tmp/nl_paths.$$) = 2 ]"
rm -f /tmp/nl_paths.$$
ndp_lib_check "path show id 7 returns that path" \
	bash -c "ip netns exec $ns_a ndpctl path show id 7 | grep -q '^id 7 '"
expect_err "duplicate path id refused" "File exists" "a path with this id exists" \
	A ndpctl path add id 1 dst 10.0.1.0/24 via 10.0.1.2
expect_err "path id 0 refused by the policy" "Numerical result out of range" "integer out of range" \
	A ndpctl path add id 0 dst 10.0.1.0/24 via 10.0.1.2
expect_err "path without via, src or fwmark refused" "Invalid argument" \
	"a path needs a via destination, a via source or a fwmark" \
	A ndpctl path add id 2 dst 10.0.1.0/24
expect_err "path mixing families refused" "Invalid argument" \
	"address family differs from the destination's" \
	A ndpctl path add id 2 dst 10.0.1.0/24 via fd00:1::2
expect_err "path with host bits beyond the prefix refused" "Invalid argument" \
	"destination has bits set beyond the prefix length" \
	A ndpctl path add id 2 dst 10.0.1.1/24 via 10.0.1.2
expect_err "IPv4 prefix longer than 32 refused" "Invalid argument" \
	"IPv4 prefix length must be at most 32" \
	A ndpctl path add id 2 dst 10.0.1.0/33 via 10.0.1.2
expect_err "path add without dst names the missing attribute" "Invalid argument" \
	"missing attribute: path dst" A ndpctl path add id 2 via 10.0.1.2
expect_err "path del without id names the missing attribute" "Invalid argument" \
	"missing attribute: path id" A ndpctl path del
expect_err "deleting an unknown path refused" "No such file or directory" \
	"no path with this id" A ndpctl path del id 99

# --- privileges ------------------------------------------------------------
nobody() { ip netns exec "$ns_a" setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
expect_err "unprivileged path add refused (EPERM)" "Operation not permitted" "" \
	nobody ndpctl path add id 3 dst 10.0.1.0/24 via 10.0.1.2
expect_err "unprivileged param set refused (EPERM)" "Operation not permitted" "" \
	nobody ndpctl param set init_window 3
ndp_lib_check "unprivileged reads are allowed" \
	bash -c "ip netns exec $ns_a setpriv --reuid 65534 --regid 65534 --clear-groups ndpctl path show | grep -q '^id 1 ' &&
		ip netns exec $ns_a setpriv --reuid 65534 --regid 65534 --clear-groups ndpctl stats >/dev/null"

# --- per-netns isolation ---------------------------------------------------
ndp_lib_expect_eq "paths are per netns" "" "$(B ndpctl path show)"
ndp_lib_expect_eq "params are per netns" "init_window 15 range [1, 1024]" \
	"$(B ndpctl param show init_window)"

# --- events ----------------------------------------------------------------
mon=$(mktemp)
A ndpctl monitor >"$mon" 2>&1 &
monpid=$!
ndp_lib_at_exit "kill $monpid"
ndp_lib_wait 5000 grep -q monitoring "$mon"
A ndpctl path add id 5 dst 10.0.1.0/24 fwmark 5
A ndpctl path del id 5
ndp_lib_wait 5000 grep -q DELETED "$mon"
kill "$monpid" 2>/dev/null
ndp_lib_check "monitor reports path add and delete" \
	bash -c "grep -q '^\[ADDED\] id 5 dst 10.0.1.0/24 fwmark 0x5' $mon &&
		grep -q '^\[DELETED\] id 5 ' $mon"
rm -f "$mon"
ndp_lib_check "path del removes the path" \
	bash -c "ip netns exec $ns_a ndpctl path del id 7 &&
		! ip netns exec $ns_a ndpctl path show | grep -q '^id 7 '"

# --- counters and sockets --------------------------------------------------
srverr=$(mktemp)
ndp_lib_at_exit "rm -f $srverr"
B ndp_xfer -p ndp -4 -P 5999 -T 60 server -n 1 -S 0 -E 4000000 >/dev/null 2>"$srverr" &
srv=$!
ndp_lib_at_exit "kill $srv"
ndp_lib_wait 10000 grep -q listening "$srverr"
ndp_lib_check "sockets lists the listener" \
	bash -c "ip netns exec $ns_b ndpctl sockets | grep -q '^LISTEN .*:5999 '"
# A client that stays connected until killed: a transfer could finish
# between two polls on a fast run.
A python3 -c "import socket, time
s = socket.socket(socket.AF_INET, 7, 0)
s.connect(('10.0.1.2', 5999))
s.send(b'x' * 1000)
time.sleep(60)" &
cli=$!
ndp_lib_at_exit "kill $cli"
estab_listed()
{
	A ndpctl sockets | grep -q '^ESTAB  10.0.1.1:[0-9]* 10.0.1.2:5999 nonce 0x'
}
seen=
ndp_lib_wait 10000 estab_listed && seen=1
ndp_lib_expect_eq "sockets lists the connection with its nonce" 1 "$seen"
kill "$cli" 2>/dev/null
wait "$cli" 2>/dev/null
stats_match()
{
	local n v pv
	while read -r n v; do
		pv=$(ip netns exec "$ns_a" awk -v n="$n" '$1 == n { print $2 }' /proc/net/ndp_stat)
		[ -n "$pv" ] || { echo "$n not in /proc/net/ndp_stat"; return 1; }
		[ "$v" -le "$pv" ] || { echo "$n: $v > $pv"; return 1; }
	done < <(ip netns exec "$ns_a" ndpctl stats)
	[ "$(ip netns exec "$ns_a" ndpctl stats | wc -l)" = \
	  "$(ip netns exec "$ns_a" wc -l < /proc/net/ndp_stat)" ] &&
	[ "$(ip netns exec "$ns_a" ndpctl stats | awk '$1 == "OutData" { print $2 }')" -gt 0 ]
}
ndp_lib_check "stats matches /proc/net/ndp_stat" stats_match

netns_with_paths()
{
	local i n
	for i in $(seq 5); do
		n=nlpaths-$i-$RANDOM
		ip netns add "$n" || return 1
		ip netns exec "$n" ndpctl path add id 1 dst 10.9.0.0/16 via 10.9.1.1 || return 1
		ip netns exec "$n" ndpctl path add id 2 dst 10.9.0.0/16 via 10.9.2.1 || return 1
		ip netns del "$n" || return 1
	done
}
ndp_lib_check "namespaces with paths are deleted cleanly" netns_with_paths

ndp_lib_done
