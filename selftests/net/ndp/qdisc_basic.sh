#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_ndp configuration through tc: defaults and every option shown by
# "tc qdisc show", change on a live qdisc, xstats in "tc -s" and JSON,
# clear errors (extack or plugin) for every bad value with nothing
# changed, traffic forwarded while attached, attach/detach churn.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/qdisc_lib.sh"

ndp_lib_require_cmd tc ping
ndp_lib_load_modules sch_ndp
sch_setup 1 || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 27

show()
{
	sch_tc qdisc show dev tr
}

# expect_err NAME TEXT OPTIONS...: "tc qdisc change ... ndp OPTIONS" fails
# and prints TEXT.
expect_err()
{
	local name=$1 text=$2
	shift 2
	ndp_lib_expect_err "$name" "$text" -- sch_tc qdisc change dev tr root ndp "$@"
}

ndp_lib_check "tc qdisc add dev tr root ndp" sch_tc qdisc add dev tr root ndp
ndp_lib_check "defaults shown" bash -c "ip netns exec $ns_sw tc qdisc show dev tr | grep -q 'qdisc ndp .* mode ndp limit 8p hlimit 16p olimit 1000p wrr 10 rate unlimited rts on trim-prob 50% quantum 9014 ipproto 253'"
ndp_lib_check "ping v4 through the port" ip netns exec "$ns_h1" ping -c 3 -i 0.2 -W 2 10.0.100.1
ndp_lib_check "ping v6 through the port" ip netns exec "$ns_h1" ping -c 3 -i 0.2 -W 2 fd00:100::1

ndp_lib_check "change every option" sch_tc qdisc change dev tr root ndp \
	limit 20 hlimit 50 olimit 300 wrr 4 rate 100mbit rts off mode pfabric \
	trim-prob 30 quantum 3000
ndp_lib_check "changed options shown" bash -c "ip netns exec $ns_sw tc qdisc show dev tr | grep -q 'mode pfabric limit 20p hlimit 50p olimit 300p wrr 4 rate 100Mbit rts off trim-prob 30% quantum 3000'"
ndp_lib_check "trim-prob accepts a % sign" sch_tc qdisc change dev tr root ndp trim-prob 75%
ndp_lib_check "hlimit 0 follows limit (2x)" bash -c "ip netns exec $ns_sw tc qdisc change dev tr root ndp hlimit 0 limit 12 && ip netns exec $ns_sw tc qdisc show dev tr | grep -q 'limit 12p hlimit 24p'"
ndp_lib_check "tc -s shows the xstats" bash -c "ip netns exec $ns_sw tc -s qdisc show dev tr | grep -q 'trimmed arrival 0 tail 0' && ip netns exec $ns_sw tc -s qdisc show dev tr | grep -q 'hdr: qlen 0'"
ndp_lib_check "tc -s -j has the xstats" bash -c "ip netns exec $ns_sw tc -s -j qdisc show dev tr | grep -q '\"pfabric_evict\":0'"

expect_err "limit 0 rejected" "Error: sch_ndp: limit must be in [1, 65535] packets" limit 0
expect_err "limit 70000 rejected" "limit must be in [1, 65535] packets" limit 70000
expect_err "hlimit 200000 rejected" "hlimit must be in [0, 131070] packets" hlimit 200000
expect_err "olimit 0 rejected" "olimit must be in [1, 65535] packets" olimit 0
expect_err "wrr 0 rejected" "wrr must be in [1, 1024]" wrr 0
expect_err "wrr 2000 rejected" "wrr must be in [1, 1024]" wrr 2000
expect_err "trim-prob 101 rejected" "trim-prob must be in [0, 100] percent" trim-prob 101
expect_err "quantum 100 rejected" "quantum must be in [256, 1048576] bytes" quantum 100
expect_err "mode foo rejected" 'invalid mode (ndp or pfabric) "foo"' mode foo
expect_err "rts maybe rejected" 'invalid rts (on or off) "maybe"' rts maybe
expect_err "limit abc rejected" 'invalid limit "abc"' limit abc
expect_err "rate junk rejected" 'invalid rate "fast"' rate fast
expect_err "unknown option rejected" 'unknown option "bogus"' bogus 1
ndp_lib_check "rejected changes changed nothing" bash -c "ip netns exec $ns_sw tc qdisc show dev tr | grep -q 'mode pfabric limit 12p hlimit 24p olimit 300p wrr 4 rate 100Mbit rts off trim-prob 75% quantum 3000'"
ndp_lib_check "a bad add creates no qdisc" bash -c "! ip netns exec $ns_sw tc qdisc add dev t1 root ndp limit 0 2>/dev/null && ! ip netns exec $ns_sw tc qdisc show dev t1 | grep -q 'qdisc ndp'"

churn()
{
	local i pid
	ip netns exec "$ns_h1" ping -f -c 2000 -s 1000 10.0.100.1 >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 20); do
		sch_tc qdisc replace dev tr root ndp limit 4 rate 50mbit || return 1
		sch_tc qdisc del dev tr root || return 1
	done
	wait $pid
	return 0
}
ndp_lib_check "attach/detach 20 times under a ping flood" churn
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
