#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Byte-exact transfers between two namespaces: 1 B to 16 MB, client to
# server, server to client and both at once, over IPv4 and IPv6, plus one
# 64 MB transfer per family.  Every byte is checked by the receiver and
# each direction's SHA-256 must match at both ends.  Packets that arrive
# while the application holds the socket lock (in sendmsg or recvmsg) wait
# in the socket's backlog: BacklogRcv must move, with every byte intact,
# and none may be dropped there (BacklogDrop stays 0 on this lossless pair).
#
#   NDP_TEST_PROTO=tcp   same checks over TCP
#   NDP_XFER_SIZES="1 1K"  sizes of the matrix (default below)
#   NDP_XFER_BIG=64M     the large transfer ("" to leave it out)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

sizes=${NDP_XFER_SIZES:-1 1K 100K 1M 16M}
big=${NDP_XFER_BIG-64M}

xfer_setup
ndp_lib_require_cmd sha256sum python3
ndp_topo_pair || ndp_lib_skip_all "cannot build the topology"

nsizes=$(echo $sizes | wc -w)
ndp_lib_plan $((2 * 3 * nsizes + (${#big} ? 2 : 0) + 4 + 1 + 3 + 2))

before=$(xfer_stats "$ns_a" "$ns_b")
for fam in 4 6; do
	if [ $fam = 4 ]; then addr=10.0.1.2; else addr=fd00:1::2; fi
	for s in $sizes; do
		# generous for TCG, short enough that a stuck transport fails fast
		t=$((30 + $(xfer_bytes "$s") / 100000))
		ndp_lib_check "v$fam $s a->b" xfer_run "$ns_a" "$ns_b" $addr $fam "$s" 0 1 $t
		ndp_lib_check "v$fam $s b->a" xfer_run "$ns_a" "$ns_b" $addr $fam 0 "$s" 1 $t
		ndp_lib_check "v$fam $s both ways" xfer_run "$ns_a" "$ns_b" $addr $fam "$s" "$s" 1 $t
	done
	[ -n "$big" ] && ndp_lib_check "v$fam $big a->b" \
		xfer_run "$ns_a" "$ns_b" $addr $fam "$big" 0 1 600
done
after=$(xfer_stats "$ns_a" "$ns_b")

# All-zero payloads: their one's complement sum is zero, which a
# checksum computed while copying (seeded with ~0) writes as 0x0000 and
# one computed afterwards as 0xffff: the same value, which the receiver
# must accept (before the fix it NACKed such a packet forever).
zeros()
{
	local addr=$1 size=$2 port d vpid rc=0

	port=$(xfer_next_port)
	d=$(mktemp -d "$XFER_TMP/zeros.XXXXXX")
	ip netns exec "$ns_b" python3 "$life" -p "$XFER_PROTO" zverify "$addr" "$port" "$size" \
		>"$d/verify.out" 2>&1 &
	vpid=$!
	xfer_wait_file "$d/verify.out" listening 20 || { cat "$d/verify.out"; return 1; }
	ip netns exec "$ns_a" python3 "$life" -p "$XFER_PROTO" zsend "$addr" "$port" "$size" || rc=1
	wait $vpid || rc=1
	cat "$d/verify.out"
	return $rc
}
life=$(dirname "$0")/ndp_life.py
for z in 1 100000; do
	ndp_lib_check "v4 $z zero bytes intact" zeros 10.0.1.2 $z
	ndp_lib_check "v6 $z zero bytes intact" zeros fd00:1::2 $z
done

# The digests are SHA-256 indeed: a transferred stream, regenerated
# from its key, through sha256sum gives the digest both ends reported.
digest_check()
{
	local line key bytes sha want

	ndp_xfer selftest >/dev/null || { echo "SHA-256 known answers fail"; return 1; }
	line=$(grep -h "^conn .* tx [1-9]" "$XFER_TMP"/run*/client.out | tail -n 1)
	read -r _ key _ bytes sha _ <<<"$line"
	[ -n "$sha" ] || { echo "no transfer to check"; return 1; }
	want=$(ndp_xfer gen -S "$bytes" -k "$key" -d c | sha256sum | cut -d' ' -f1)
	[ "$want" = "$sha" ] || { echo "conn $key: ndp_xfer says $sha, sha256sum $want"; return 1; }
}
ndp_lib_check "SHA-256 matches sha256sum" digest_check

xfer_expect_moved "ndp: a sent data packets" "$before" "$after" "$ns_a" OutData
xfer_expect_moved "ndp: b received data packets" "$before" "$after" "$ns_b" InData

# The socket backlog: during the transfers above (all intact) the
# receive softirq found sockets owned by their application and left
# packets in their backlogs, processed at release_sock().
if xfer_is_ndp; then
	bl_a=$(xfer_delta "$before" "$after" "$ns_a" BacklogRcv)
	bl_b=$(xfer_delta "$before" "$after" "$ns_b" BacklogRcv)
	bd_a=$(xfer_delta "$before" "$after" "$ns_a" BacklogDrop)
	bd_b=$(xfer_delta "$before" "$after" "$ns_b" BacklogDrop)
	bl_drop=$((bd_a + bd_b))
	ndp_lib_info "BacklogRcv a $bl_a b $bl_b, BacklogDrop a $bd_a b $bd_b"
	if [ $((bl_a + bl_b)) -gt 0 ]; then
		ndp_lib_pass "ndp: packets processed from the socket backlog"
	else
		ndp_lib_fail "ndp: packets processed from the socket backlog" \
			"BacklogRcv did not move"
	fi
	# A lossless pair: holding the socket must not cost packets (the
	# backlog's bound leaves room for a full receive queue, and long
	# system calls let the backlog in as they go).
	if [ "$bl_drop" -eq 0 ]; then
		ndp_lib_pass "ndp: no packet dropped at the socket backlog"
	else
		ndp_lib_fail "ndp: no packet dropped at the socket backlog" \
			"BacklogDrop moved by $bl_drop"
	fi
else
	ndp_lib_skip "ndp: packets processed from the socket backlog" "counters are NDP-only"
	ndp_lib_skip "ndp: no packet dropped at the socket backlog" "counters are NDP-only"
fi
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
