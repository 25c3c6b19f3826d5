#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NDP between separate kernels, run on the HOST (root, qemu, dumpcap):
# two TCG guests joined by virtio-net through taps in a bridge
# (tools/vm/ndp-vm-net), at MTU 1500 and 9000.  In each, guest A serves
# and guest B connects (vmnet_guest.sh): TCP (the baseline), native NDP
# and NDP in UDP (net.ndp.udp_port), IPv4 and IPv6, SIZE each way at once
# with ndp_xfer.  Checks, per MTU:
#
#   - both guests' commands and kernels were clean (ndp-vm-net's verdict);
#   - every transfer intact: each receiver checked every byte, and each
#     direction's SHA-256 is the same in both guests;
#   - NDP: host-side capture of guest A's tap: NDP frames seen (at least
#     one per MTU of data sent), none longer than MTU + 14, no IP
#     fragment;
#   - NDP native: every super-packet a guest built (OutGsoSegs) was cut in
#     that guest (GsoSegments): virtio-net does not take NDP's GSO type;
#   - through the switch guest: the same, and its sch_ndp (udp-port set)
#     sent at least the four NDP transfers' data packets on each port as
#     NDP data, those in UDP recognised (its encap counter).
#
# TCP's frames longer than the MTU are printed, not judged: they are TSO
# super-packets that the virtio header carries to the other guest.
#
#   NDP_VMNET_KERNEL=6.12   the guests' kernel (tools/vm/ndp-vm --kernel)
#   NDP_VMNET_MTUS="1500 9000"
#   NDP_VMNET_SWITCH_MTUS=1500  MTUs at which the same runs again through a
#                           third guest, a software switch routing between
#                           the two links with sch_ndp on its ports
#                           (default options and udp-port; ndp-vm-net -s);
#                           "" for none
#   NDP_VMNET_SIZE=4M       bytes each way per transfer
#   NDP_VMNET_IMAGE=DIR     an image built before (ndp-vm --image) instead
#                           of building one
#   NDP_VMNET_KEEP=DIR      keep consoles and captures in DIR
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../../.." && pwd)
kernel=${NDP_VMNET_KERNEL:-6.12}
mtus=${NDP_VMNET_MTUS:-1500 9000}
switch_mtus=${NDP_VMNET_SWITCH_MTUS-1500}
size=${NDP_VMNET_SIZE:-4M}
udp_port=7253	# vmnet_guest.sh's
cases="tcp4 tcp6 ndp4 ndp6 udp4 udp6"

[ "$(id -u)" = 0 ] || ndp_lib_skip_all "needs root (network namespace, taps)"
ndp_lib_require_cmd qemu-system-x86_64 dumpcap python3 ip cpio
[ -c /dev/net/tun ] || ndp_lib_skip_all "no /dev/net/tun"

work=$(mktemp -d /tmp/ndp-vmnet.XXXXXX)
trap 'rm -rf "$work"' EXIT
keep=${NDP_VMNET_KEEP:-}

bytes=$(python3 -c 'import sys; s = sys.argv[1]; m = {"K": 1 << 10, "M": 1 << 20}
print(int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s))' "$size")

# Each MTU alone, then each of NDP_VMNET_SWITCH_MTUS through a switch.
runs=
for mtu in $mtus; do runs="$runs $mtu"; done
for mtu in $switch_mtus; do runs="$runs sw$mtu"; done
nruns=$(echo "$runs" | wc -w)
nsw=$(echo "$switch_mtus" | wc -w)
ndp_lib_plan $((nruns * (1 + 6 + 4 + 2) + nsw))

t0=$SECONDS
image=${NDP_VMNET_IMAGE:-}
if [ -z "$image" ]; then
	image=$work/image
	if ! "$top/tools/vm/ndp-vm" --kernel "$kernel" --build --image "$image" \
		>"$work/image.log" 2>&1; then
		sed 's/^/# /' "$work/image.log" | tail -n 30
		ndp_lib_skip_all "could not build the image"
	fi
	ndp_lib_info "image built in $((SECONDS - t0)) s"
fi

# field LINE NAME: the value of NAME=VALUE in LINE.
field()
{
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# check_intact DIR CASE: both sides ok, byte counts and digests agree.
check_intact()
{
	local d=$1 c=$2 la lb atxn atx arxn arx ast btxn btx brxn brx bst

	la=$(grep -h "^VMNET-XFER case=$c side=a " "$d/console-a.log")
	lb=$(grep -h "^VMNET-XFER case=$c side=b " "$d/console-b.log")
	[ -n "$la" ] && [ -n "$lb" ] || { echo "no result line: a '$la' b '$lb'"; return 1; }
	echo "a: $la"
	echo "b: $lb"
	# conn KEY tx N SHA rx N SHA STATUS
	read -r _ _ _ atxn atx _ arxn arx ast <<<"${la#*side=a }"
	read -r _ _ _ btxn btx _ brxn brx bst <<<"${lb#*side=b }"
	[ "$ast" = ok ] && [ "$bst" = ok ] || { echo "status a $ast b $bst"; return 1; }
	[ "$atxn" = "$bytes" ] && [ "$arxn" = "$bytes" ] && [ "$btxn" = "$bytes" ] &&
		[ "$brxn" = "$bytes" ] || { echo "byte counts differ from $bytes"; return 1; }
	[ "$atx" = "$brx" ] && [ "$btx" = "$arx" ] || { echo "digests differ"; return 1; }
}

# check_wire COUNTS CASE MTU: NDP frames seen, none over MTU, no fragment.
check_wire()
{
	local line mtu=$3 n over frags

	line=$(grep "^$2 " "$1") || { echo "no $2 frame captured"; return 1; }
	read -r _ _ n _ over _ _ _ frags <<<"$line"
	echo "$line"
	[ "$n" -ge $((bytes / mtu)) ] || { echo "only $n frames for $bytes bytes"; return 1; }
	[ "$over" = 0 ] && [ "$frags" = 0 ]
}

# check_cut DIR CASE: each side cut every super-packet it built.
check_cut()
{
	local d=$1 c=$2 g line built cut

	for g in a b; do
		line=$(grep -h "^VMNET-STAT case=$c side=$g " "$d/console-$g.log") ||
			{ echo "no counters of $g"; return 1; }
		built=$(field "$line" OutGsoSegs)
		cut=$(field "$line" GsoSegments)
		echo "$g: built $built segments in $(field "$line" OutGsoPkts) super-packets, cut $cut"
		[ "$built" = "$cut" ] || return 1
	done
}

# rcvq_drops DIR: RcvQDrops summed over every NDP case of both guests.
rcvq_drops()
{
	grep -h '^VMNET-STAT case=' "$1/console-a.log" "$1/console-b.log" |
		tr ' ' '\n' | sed -n 's/^RcvQDrops=//p' | awk '{ s += $1 } END { print s + 0 }'
}

# check_switch DIR MTU: on each port the switch guest's sch_ndp (with
# udp-port) sent at least the four NDP transfers' data packets (native
# and in UDP, v4 and v6) as NDP data, two of them recognised in UDP.
check_switch()
{
	local d=$1 mtu=$2 p n e ports=0

	for p in $(sed -n 's/^VMNET-QDISC port=\([^ ]*\) .*/\1/p' "$d/console-s.log" | sort -u); do
		n=$(sed -n "s/^VMNET-QDISC port=$p .*data: .* sent \([0-9]*\) pkts.*/\1/p" "$d/console-s.log")
		e=$(sed -n "s/^VMNET-QDISC port=$p .*encap: \([0-9]*\).*/\1/p" "$d/console-s.log")
		echo "port $p: ${n:-no} NDP data packets sent, ${e:-no} NDP packets in UDP"
		[ "${n:-0}" -ge $((4 * bytes / mtu)) ] && [ "${e:-0}" -ge $((2 * bytes / mtu)) ] ||
			return 1
		ports=$((ports + 1))
	done
	[ "$ports" = 2 ]
}

for run in $runs; do
	mtu=${run#sw}
	d=$work/$run
	mkdir -p "$d"
	t1=$SECONDS
	rc=0
	sw=()
	label="mtu $mtu"
	if [ "$run" != "$mtu" ]; then
		sw=(-s "/ndp/selftests/vmnet_guest.sh switch udp-port $udp_port")
		label="switch mtu $mtu"
	fi
	"$top/tools/vm/ndp-vm-net" --image "$image" --mtu "$mtu" --timeout 900 \
		--pcap "$d/tapa.pcap" --log-dir "$d" "${sw[@]}" \
		-a "/ndp/selftests/vmnet_guest.sh server $size" \
		-b "/ndp/selftests/vmnet_guest.sh client $size" >"$d/run.log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		ndp_lib_pass "$label: the guests ran clean"
	else
		ndp_lib_fail "$label: the guests ran clean" "ndp-vm-net exit $rc"
		sed 's/^/#   /' "$d/run.log" | tail -n 40
		grep -h '^# ' "$d"/console-?.log 2>/dev/null | sed 's/^/#   /' | head -n 20
	fi
	ndp_lib_info "$label: guests ran $((SECONDS - t1)) s"
	grep -h '^ndp-vm-net: tap' "$d/run.log" | sed 's/^/# /'
	grep -h '^VMNET-FEAT' "$d"/console-?.log 2>/dev/null | sed 's/^/# /'
	counts=$d/counts
	python3 "$(dirname "$0")/vmnet_pcap.py" "$d/tapa.pcap" "$mtu" "$udp_port" >"$counts" 2>&1 ||
		: >"$counts"
	sed "s/^/# $label wire: /" "$counts"
	for c in $cases; do
		ndp_lib_check "$label $c: transfer intact" check_intact "$d" "$c"
	done
	for c in ndp4 ndp6 udp4 udp6; do
		ndp_lib_check "$label $c: no frame above the MTU" check_wire "$counts" "$c" "$mtu"
	done
	for c in ndp4 ndp6; do
		ndp_lib_check "$label $c: super-packets cut in the guest" check_cut "$d" "$c"
		grep -h "^VMNET-STAT case=$c " "$d"/console-?.log | sed 's/^/# /'
	done
	# Printed, not judged: receivers still drop data for want of buffer
	# on these lossless links in some runs (ndp-testing.rst; issue 25).
	ndp_lib_info "$label: RcvQDrops over all cases of both guests: $(rcvq_drops "$d")"
	if [ ${#sw[@]} -gt 0 ]; then
		ndp_lib_check "$label: sch_ndp on the switch guest forwarded the NDP data" \
			check_switch "$d" "$mtu"
		grep -h '^VMNET-QDISC\|^VMNET-PORT' "$d/console-s.log" 2>/dev/null | sed 's/^/# /'
	fi
	if [ -n "$keep" ]; then
		mkdir -p "$keep"
		cp -a "$d" "$keep/"
	fi
done
ndp_lib_info "total $((SECONDS - t0)) s"
ndp_lib_done
