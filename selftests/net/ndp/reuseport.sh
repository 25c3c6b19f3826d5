#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Binding and listening as TCP (ndp-transport.rst, "Binding and
# listening"), in a fresh namespace over loopback, IPv4 and IPv6:
# - four SO_REUSEPORT listeners share a port; 64 connections, each
#   byte checked, are all accepted and every listener gets some; a
#   classic BPF program attached to the group steers; one listener
#   closes and 64 more all go to the other three;
# - a socket without SO_REUSEPORT, or another user's, gets EADDRINUSE;
# - one check per row of the bind/listen errno table;
# - dual stack: a [::] listener takes IPv4 clients (accepted as
#   v4-mapped) unless IPV6_V6ONLY, an AF_INET6 client reaches IPv4
#   through a v4-mapped address, the port rules across families; the
#   same with NDP carried in UDP.
# Each line is one ndp_reuseport run (kselftest_harness.h: one forked test
# per check, named fixture.variant.test, each with its own timeout) of one
# fixture, protocol and family; the run fails if any of its tests fails,
# and shows their "not ok" lines and logs.  "ndp_reuseport -- -l" lists
# the tests.
#
#   NDP_TEST_PROTO=tcp   same checks over TCP
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd ndp_reuseport
proto=${NDP_TEST_PROTO:-ndp}
[ "$proto" = ndp ] && ndp_lib_load_modules ndp
ndp_topo_ns_new ns || ndp_lib_skip_all "cannot create a netns"
ip -n "$ns" addr add 127.0.0.2/8 dev lo 2>/dev/null
# A second device for the SO_BINDTODEVICE row: a veth pair (dummy may
# not be there).
dev=
if ip -n "$ns" link add d0 type veth peer name d1 2>/dev/null; then
	ip -n "$ns" link set d0 up
	ip -n "$ns" link set d1 up
	dev=d0
fi

# run ARGS...: ndp_reuseport -p PROTO ARGS... in the namespace; its
# output without the harness's progress lines (RUN, OK, FAIL, counts):
# the failed tests' "not ok" lines and logs, skips, the tests' own
# comments.  The harness times each test (TEST_F_TIMEOUT, set for the
# debug kernel); the timeout here only bounds a run that hangs outside
# them.
run()
{
	local out rc

	out=$(ip netns exec "$ns" timeout $((600 * NDP_TIME_FACTOR)) \
		ndp_reuseport -p "$proto" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(not ok|ok .* # SKIP|#)' |
		grep -Ev '^# +(RUN|OK|FAIL) |^# (Totals:|Starting )'
	return $rc
}

ndp_lib_plan $((9 + (${#dev} ? 0 : 2)))
for fam in 4 6; do
	ndp_lib_check "v$fam: 4 SO_REUSEPORT listeners share the load, BPF steers, one closes" \
		run "-$fam" spread -n 4 -c 64
	# The other uid's tests SKIP (exit 0) when the child cannot setuid().
	out=$(run "-$fam" uid)
	rc=$?
	if [ $rc != 0 ]; then
		ndp_lib_fail "v$fam: another uid's SO_REUSEPORT bind gets EADDRINUSE" "$out"
	elif [[ $out == *"# SKIP"* ]]; then
		ndp_lib_skip "v$fam: another uid's SO_REUSEPORT bind gets EADDRINUSE" \
			"no second uid (setuid failed)"
	else
		ndp_lib_pass "v$fam: another uid's SO_REUSEPORT bind gets EADDRINUSE"
	fi
	if [ -n "$dev" ]; then
		ndp_lib_check "v$fam: bind/listen errno table" \
			run "-$fam" errno_table -D "$dev"
	else
		ndp_lib_check "v$fam: bind/listen errno table" run "-$fam" errno_table
		ndp_lib_skip "v$fam: same port on different devices" "no veth device"
	fi
done
ndp_lib_check "dual stack: [::] takes IPv4 unless IPV6_V6ONLY, v4-mapped connect, port rules" \
	run dual
# The same carried in UDP: an IPv4 datagram reaches an AF_INET6 listener.
if [ "$proto" = ndp ]; then
	ip netns exec "$ns" sysctl -qw net.ndp.udp_port=6652
	ndp_lib_check "dual stack in UDP (net.ndp.udp_port)" run dual
	ip netns exec "$ns" sysctl -qw net.ndp.udp_port=0
else
	ndp_lib_skip "dual stack in UDP (net.ndp.udp_port)" "TCP run"
fi
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
