#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory cgroups see NDP buffers: a listener runs in a cgroup v2 group
# with the memory controller and accepts nothing; four clients send to it.
# The connections' receive queues (data that arrived before any accept())
# are charged to the listener's group (memory.stat "sock"), and the charge
# goes once the listener exits.  Over TCP (NDP_TEST_PROTO=tcp) the SYN
# backlog's children are charged only at accept(), so this is NDP only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

xfer_setup
xfer_is_ndp || ndp_lib_skip_all "NDP only (TCP charges children at accept())"
cg=/sys/fs/cgroup
# Not applicable on a kernel without cgroups (the KCSAN kernel built before
# its fragment gained them), also
# under NDP_EXPECT_ALL, as kunit.sh on kernels without KUnit.
if ! grep -qw cgroup2 /proc/filesystems; then
	echo "TAP version 13"
	echo "1..0 # SKIP kernel without cgroup2: not applicable"
	exit $KSFT_SKIP
fi
if ! grep -q "^cgroup2 $cg " /proc/mounts; then
	mkdir -p "$cg"
	mount -t cgroup2 none "$cg" 2>/dev/null ||
		ndp_lib_skip_all "cannot mount cgroup2 on $cg"
fi
grep -qw memory "$cg/cgroup.controllers" 2>/dev/null ||
	ndp_lib_skip_all "no memory controller"
echo +memory >"$cg/cgroup.subtree_control" 2>/dev/null
grp=$cg/ndp_memcg.$$
mkdir "$grp" || ndp_lib_skip_all "cannot create a cgroup"
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"
ndp_lib_plan 4
life=$(dirname "$0")/ndp_life.py
d=$XFER_TMP/memcg
mkdir -p "$d"

sock_bytes() { awk '$1 == "sock" { print $2 }' "$grp/memory.stat"; }
# sock_ge N / sock_le N: the group's socket memory is at least / at most N.
sock_ge() { [ "$(sock_bytes)" -ge "$1" ]; }
sock_le() { [ "$(sock_bytes)" -le "$1" ]; }

cleanup_memcg()
{
	[ -n "${hpid:-}" ] && kill "$hpid" 2>/dev/null
	for p in ${cpids:-}; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rmdir "$grp" 2>/dev/null
}
trap cleanup_memcg EXIT

port=$(xfer_next_port)
# The listener joins the group before it creates its socket.
bash -c "echo \$\$ >$grp/cgroup.procs && exec ip netns exec $ns_b \
	python3 $life hold 10.0.1.2 $port 16" >"$d/hold.out" 2>&1 &
hpid=$!
xfer_wait_file "$d/hold.out" listening 30 || cat "$d/hold.out"
m0=$(sock_bytes)
cpids=
for i in 1 2 3 4; do
	ip netns exec "$ns_a" ndp_xfer -p ndp -4 -P "$port" -T 60 \
		client -H 10.0.1.2 -S 4M -E 0 >"$d/client.$i" 2>&1 &
	cpids+=" $!"
done
# Wait for the receive queues to fill (bounded by their buffers).
ndp_lib_wait 20000 sock_ge $((256 * 1024))
m1=$(sock_bytes)
ndp_lib_info "memory.stat sock: $m0 before, $m1 with four unaccepted connections"
ndp_lib_expect_ge "unaccepted connections' data charged to the listener's cgroup" \
	$((256 * 1024)) "${m1:-0}"
ndp_lib_check "the cgroup's memory.current covers it" \
	test "$(cat "$grp/memory.current")" -ge "${m1:-0}"

for p in $cpids; do kill "$p" 2>/dev/null; done
kill "$hpid"
wait "$hpid" 2>/dev/null
hpid=
ndp_lib_wait 20000 sock_le $((64 * 1024))
m2=$(sock_bytes)
ndp_lib_info "memory.stat sock: $m2 after the listener exited"
ndp_lib_expect_le "the charge goes when the connections go" $((64 * 1024)) "${m2:-1}"
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
