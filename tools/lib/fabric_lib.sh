#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_lib.sh: a data-centre fabric of network namespaces (source it).
# A tool of the project's own, used by the front end tools/fabric, the
# benchmarks (ndp-bench-guest --set fabric, ndp-bench-fabric,
# ndp-bench-fct) and the selftests that need a fabric (fabric.sh,
# spray.sh); it depends on no test library.  Installed beside the tools
# (/ndp/bin in the guest; tools/bench/Makefile).  Functions are named fabric_*,
# internal ones __fabric_*.  See Documentation/networking/ndp-testing.rst,
# "Fabric testbed".
#
# Topologies (FABRIC_TOPO):
#
#   fattree    k-ary fat-tree (FABRIC_K, even): k pods of k/2 edge and k/2
#              aggregation switches, (k/2)^2 core switches, k^3/4 hosts
#              (k=4: 16 hosts, 8 edge, 8 aggregation, 4 core).  Edge j of
#              pod p links to every aggregation switch of pod p;
#              aggregation switch a of every pod links to cores
#              a*k/2 .. a*k/2 + k/2 - 1.
#   leafspine  FABRIC_LEAVES leaves, each linked to all FABRIC_SPINES
#              spines, FABRIC_HPL hosts per leaf.
#
# Addresses.  Host h of edge j in pod p (leaf-spine: host h of leaf l is
# "pod" l, edge 0) is 10.p.j.(h+2)/32 and fd00:p:j::(h+2)/128, its
# gateway 10.p.j.1 / fd00:p:j::1 on the edge switch (a rack is 10.p.j.0/24
# and fd00:p:j::/64); a pod (leaf) is 10.p.0.0/16 and fd00:p::/32.  Switch-to-switch links are numbered /31 and /127
# point-to-point nets from 172.16.0.0/12 and fd01::/64.
#
# Routing, as on a real fabric: upwards a default route through an ECMP
# nexthop group ("ip nexthop ... group") of every uplink, downwards one
# route per subnet (edge: host routes; aggregation: one /24 per edge; core
# and spine: one /16 per pod or leaf).  Every switch hashes with the
# custom policy (3), whose fields are
#
#   net.ipv4.fib_multipath_hash_fields = 0x37: addresses, protocol, ports
#       (TCP connections, and later NDP-over-UDP with its source port as
#       entropy, spread per flow);
#   net.ipv6.fib_multipath_hash_fields = 0x3f: the same plus the flow
#       label, NDP's only entropy over IPv6 since the kernel cannot see
#       its ports (policy 0 would ignore the ports, 1 the flow label).
#
# Policy 1 (L4) would do for TCP on paper, but when a packet already
# carries an L4 hash (skb->l4_hash: every TCP packet, hashed by its
# socket, and veth keeps it) policy 1 uses that hash as it is, in every
# switch alike (net/ipv4/route.c, fib_multipath_hash()): the seed below
# would then change nothing.  Policy 3 always hashes the packet's fields.
#
# Today's NDP (IPv4, or IPv6 with a constant flow label) thus hashes like
# one flow per connection; TCP connections spread over the cores.
#
# Every switch also gets its own net.ipv4.fib_multipath_hash_seed (it
# applies to IPv6 too) where the kernel has it (6.11 and later), as real
# fabrics seed each switch differently: with one hash function everywhere
# an aggregation switch picks the same index as the edge switch below it
# (both groups have k/2 members), so a pod's traffic would only ever use
# k/2 of the (k/2)^2 cores ("polarisation").  On older kernels (6.1) the
# hash has one random seed per boot for every namespace, and the
# polarisation stays: there each edge switch reaches only k/2 cores.
#
# Links.  Every switch port's egress runs "sch_ndp limit FABRIC_LIMIT rate
# R" (FABRIC_OLIMIT, if set, bounds its other-traffic queue, i.e. TCP);
# every host's eth0 runs sch_ndp at the host rate with a FABRIC_HOST_LIMIT
# buffer (the emulated NIC, which never trims in practice).  Host links run
# at FABRIC_RATE Mbit/s; switch-to-switch links at
#
#   FABRIC_RATE * (hosts per edge) / (uplinks per edge) / FABRIC_OVERSUB
#
# so FABRIC_OVERSUB=1 is full bisection and 2 halves the core's capacity.
# Hosts send MTU-sized packets (gso_max_segs 1), so queue limits count
# wire packets for TCP as for NDP.
#
# Per-core addresses (FABRIC_CORE_ADDRS=1, fat-tree, IPv4): host h of
# edge j in pod p also has 11+c.p.j.(h+2) for every core c, routed
# deterministically through core c (edge: 11+c.0.0.0/8 to the aggregation
# switch above that core; aggregation: to core c; core c: down to pod p),
# so that NDP's per-address paths ("ndpctl path add ... via 11+c.p.j.h")
# select a core: spraying that works today, without ECMP.
#
# Knobs (environment, read by fabric_build):
#   FABRIC_TOPO fattree | leafspine     FABRIC_K 4
#   FABRIC_LEAVES 4  FABRIC_SPINES 4    FABRIC_HPL 4 (hosts per leaf)
#   FABRIC_RATE 2 (Mbit/s; calibrated, see ndp-testing.rst)
#   FABRIC_OVERSUB 1    FABRIC_LIMIT 8    FABRIC_OLIMIT (qdisc default)
#   FABRIC_HOST_LIMIT 1000    FABRIC_MTU 9000
#   FABRIC_QDISC ndp | none (none: no qdisc, e.g. without sch_ndp)
#   FABRIC_UDP_PORT  sch_ndp's udp-port on every port: NDP carried in UDP
#                to that port is NDP to the switches (default: none)
#   FABRIC_PREFIX namespace name prefix (default "fab-")
#   FABRIC_CORE_ADDRS 0 | 1 (per-core addresses, see above)
#
# Namespaces: ${FABRIC_PREFIX}hI (host I, 0-based), ...eI, ...aI, ...cI
# (fat-tree edge, aggregation, core), ...lI, ...sI (leaf, spine).  A host's
# interface is eth0; a switch port is named after its peer: hJ (host J of
# this edge or leaf), aJ, eJ, cJ, pJ (core's port to pod J), sJ, lJ.
#
# fabric_destroy removes every namespace whose name starts with the
# prefix (so it also cleans up after a failed or interrupted build); the
# veths die with their namespaces.

# The emulated rate at which the guest CPU is not the bottleneck (measured
# with ndp-bench-fabric --set fabric-calibrate; ndp-testing.rst).
FABRIC_DEFAULT_RATE=2

# __fabric_knobs: read and validate the knobs into __fab_* variables.
__fabric_knobs()
{
	__fab_topo=${FABRIC_TOPO:-fattree}
	__fab_k=${FABRIC_K:-4}
	__fab_leaves=${FABRIC_LEAVES:-4}
	__fab_spines=${FABRIC_SPINES:-4}
	__fab_hpl=${FABRIC_HPL:-4}
	__fab_rate=${FABRIC_RATE:-$FABRIC_DEFAULT_RATE}
	__fab_oversub=${FABRIC_OVERSUB:-1}
	__fab_limit=${FABRIC_LIMIT:-8}
	__fab_olimit=${FABRIC_OLIMIT:-}
	__fab_udp=${FABRIC_UDP_PORT:-}
	__fab_hlimit=${FABRIC_HOST_LIMIT:-1000}
	__fab_mtu=${FABRIC_MTU:-9000}
	__fab_qdisc=${FABRIC_QDISC:-ndp}
	__fab_pfx=${FABRIC_PREFIX:-fab-}
	__fab_coreaddrs=${FABRIC_CORE_ADDRS:-0}

	local v
	for v in "$__fab_k" "$__fab_leaves" "$__fab_spines" "$__fab_hpl" \
		 "$__fab_limit" "$__fab_hlimit" "$__fab_mtu" ${__fab_olimit:+"$__fab_olimit"} \
		 ${__fab_udp:+"$__fab_udp"}; do
		case "$v" in
		''|*[!0-9]*) echo "fabric: '$v' is not a positive integer" >&2; return 1 ;;
		esac
	done
	if ! awk -v r="$__fab_rate" -v o="$__fab_oversub" 'BEGIN {
		exit !(r ~ /^[0-9]+(\.[0-9]+)?$/ && r > 0 && o ~ /^[0-9]+(\.[0-9]+)?$/ && o > 0) }'; then
		echo "fabric: FABRIC_RATE ($__fab_rate) and FABRIC_OVERSUB ($__fab_oversub) must be positive numbers" >&2
		return 1
	fi
	case "$__fab_topo" in
	fattree)
		if [ $((__fab_k % 2)) -ne 0 ] || [ "$__fab_k" -lt 2 ] || [ "$__fab_k" -gt 16 ]; then
			echo "fabric: FABRIC_K must be even, 2..16 (got $__fab_k)" >&2
			return 1
		fi
		__fab_half=$((__fab_k / 2))
		__fab_nhosts=$((__fab_k * __fab_half * __fab_half))
		# hosts per edge, uplinks per edge
		__fab_down=$__fab_half
		__fab_up=$__fab_half
		;;
	leafspine)
		if [ "$__fab_leaves" -lt 1 ] || [ "$__fab_leaves" -gt 200 ] ||
		   [ "$__fab_spines" -lt 1 ] || [ "$__fab_spines" -gt 64 ] ||
		   [ "$__fab_hpl" -lt 1 ] || [ "$__fab_hpl" -gt 200 ]; then
			echo "fabric: leaves 1..200, spines 1..64, hosts per leaf 1..200" >&2
			return 1
		fi
		__fab_nhosts=$((__fab_leaves * __fab_hpl))
		__fab_down=$__fab_hpl
		__fab_up=$__fab_spines
		;;
	*) echo "fabric: FABRIC_TOPO must be fattree or leafspine, not '$__fab_topo'" >&2; return 1 ;;
	esac
	case "$__fab_coreaddrs" in
	0) ;;
	1) [ "$__fab_topo" = fattree ] ||
		{ echo "fabric: FABRIC_CORE_ADDRS needs the fat-tree" >&2; return 1; } ;;
	*) echo "fabric: FABRIC_CORE_ADDRS must be 0 or 1" >&2; return 1 ;;
	esac
	case "$__fab_qdisc" in
	ndp|none) ;;
	*) echo "fabric: FABRIC_QDISC must be ndp or none" >&2; return 1 ;;
	esac
	case "$__fab_pfx" in
	''|*[!A-Za-z0-9_.-]*) echo "fabric: bad FABRIC_PREFIX '$__fab_pfx'" >&2; return 1 ;;
	esac
	# Rates in kbit/s, so that oversubscription may divide them.
	__fab_host_kbit=$(awk -v r="$__fab_rate" 'BEGIN { printf "%d", r * 1000 }')
	__fab_up_kbit=$(awk -v r="$__fab_rate" -v d="$__fab_down" -v u="$__fab_up" \
		-v o="$__fab_oversub" 'BEGIN { printf "%d", r * 1000 * d / u / o }')
	if [ "$__fab_up_kbit" -lt 8 ]; then
		echo "fabric: uplink rate below 8 kbit/s" >&2
		return 1
	fi
}

# ---- names and addresses (valid after fabric_build, or __fabric_knobs) ------

# fabric_nhosts: number of hosts.
fabric_nhosts()
{
	echo "$__fab_nhosts"
}

# fabric_host_pod I: pod (fat-tree) or leaf (leaf-spine) of host I.
fabric_host_pod()
{
	if [ "$__fab_topo" = fattree ]; then
		echo $(($1 / (__fab_half * __fab_half)))
	else
		echo $(($1 / __fab_hpl))
	fi
}

# fabric_host_rack I: global index of host I's edge switch (or leaf).
fabric_host_rack()
{
	if [ "$__fab_topo" = fattree ]; then
		echo $(($1 / __fab_half))
	else
		echo $(($1 / __fab_hpl))
	fi
}

# __fabric_host_addr I: set __p, __j, __h (pod, edge in pod, host in
# edge), __ip4, __ip6, __gw4, __gw6 of host I (no subshell: the build
# calls it for every host, and a fork costs milliseconds under TCG).
__fabric_host_addr()
{
	if [ "$__fab_topo" = fattree ]; then
		__p=$(($1 / (__fab_half * __fab_half)))
		__j=$((($1 / __fab_half) % __fab_half))
		__h=$(($1 % __fab_half))
	else
		__p=$(($1 / __fab_hpl))
		__j=0
		__h=$(($1 % __fab_hpl))
	fi
	__ip4=10.$__p.$__j.$((__h + 2))
	__gw4=10.$__p.$__j.1
	printf -v __ip6 'fd00:%x:%x::%x' "$__p" "$__j" $((__h + 2))
	printf -v __gw6 'fd00:%x:%x::1' "$__p" "$__j"
}

fabric_host_ns()
{
	echo "${__fab_pfx}h$1"
}

fabric_host_ip4()
{
	local __p __j __h __ip4 __ip6 __gw4 __gw6
	__fabric_host_addr "$1"
	echo "$__ip4"
}

fabric_host_ip6()
{
	local __p __j __h __ip4 __ip6 __gw4 __gw6
	__fabric_host_addr "$1"
	echo "$__ip6"
}

# fabric_top_switches: namespaces of the top tier (fat-tree cores, or
# spines), in order.
fabric_top_switches()
{
	local i
	if [ "$__fab_topo" = fattree ]; then
		for ((i = 0; i < __fab_half * __fab_half; i++)); do echo "${__fab_pfx}c$i"; done
	else
		for ((i = 0; i < __fab_spines; i++)); do echo "${__fab_pfx}s$i"; done
	fi
}

# fabric_switches: every switch namespace.
fabric_switches()
{
	local i
	if [ "$__fab_topo" = fattree ]; then
		for ((i = 0; i < __fab_k * __fab_half; i++)); do echo "${__fab_pfx}e$i"; done
		for ((i = 0; i < __fab_k * __fab_half; i++)); do echo "${__fab_pfx}a$i"; done
	else
		for ((i = 0; i < __fab_leaves; i++)); do echo "${__fab_pfx}l$i"; done
	fi
	fabric_top_switches
}

# fabric_hosts: every host namespace.
fabric_hosts()
{
	local i
	for ((i = 0; i < __fab_nhosts; i++)); do echo "${__fab_pfx}h$i"; done
}

# fabric_ns_list: namespaces that exist now with the prefix.
fabric_ns_list()
{
	ip netns list 2>/dev/null | awk -v p="${__fab_pfx:-${FABRIC_PREFIX:-fab-}}" \
		'index($1, p) == 1 { print $1 }'
}

# fabric_tx_pkts NS: packets sent by all of NS's interfaces but lo.
fabric_tx_pkts()
{
	ip netns exec "$1" awk -F'[: ]+' 'NR > 2 && $2 != "lo" { s += $12 } END { print s + 0 }' /proc/net/dev
}

# fabric_hosts_sysctl KEY=VALUE...: set sysctls in every host namespace.
fabric_hosts_sysctl()
{
	local ns
	for ns in $(fabric_hosts); do
		ip netns exec "$ns" sysctl -qw "$@" || return 1
	done
}

# ---- build ----------------------------------------------------------------------

# __fabric_linknet N: addresses of point-to-point link N: __a/__b (the
# /31), __a6/__b6 (the /127).
__fabric_linknet()
{
	local a=$((2 * $1))
	__a=172.$((16 + a / 65536)).$(((a / 256) % 256)).$((a % 256))
	__b=172.$((16 + a / 65536)).$(((a / 256) % 256)).$((a % 256 + 1))
	printf -v __a6 'fd01::%x:0' "$1"
	printf -v __b6 'fd01::%x:1' "$1"
}

# __fabric_add NS KIND LINE: queue LINE for NS's KIND batch (ip1: links
# and addresses, ip2: nexthops and routes, tc: qdiscs).
__fabric_add()
{
	echo "$3" >>"$__fab_tmp/$2.$1"
}

# __fabric_port NS IF KBIT LIMIT: an egress with the emulated rate.
__fabric_port()
{
	__fabric_add "$1" ip1 "link set dev $2 up"
	[ "$__fab_qdisc" = ndp ] || return 0
	local opt="limit $4${__fab_olimit:+ olimit $__fab_olimit}"
	opt+="${__fab_udp:+ udp-port $__fab_udp}"
	__fabric_add "$1" tc "qdisc add dev $2 root ndp $opt rate ${3}kbit"
}

# __fabric_veth NS1 IF1 NS2 IF2: a veth pair between two namespaces.
__fabric_veth()
{
	echo "link add name $2 netns $1 mtu $__fab_mtu up type veth peer name $4 netns $3 mtu $__fab_mtu" \
		>>"$__fab_tmp/root"
}

# __fabric_host I SWITCH_NS PORT: host I behind switch port PORT.  Each
# host link is its own point-to-point segment: the host's /32 and /128
# on one side, the rack's gateway address (the same on every host port
# of the switch) on the other, a host route per host in the switch, and
# an unreachable route for the rest of the rack's subnet (no loop up and
# down the tree for an unused address).
__fabric_host()
{
	local ns=${__fab_pfx}h$1 __p __j __h __ip4 __ip6 __gw4 __gw6 net6
	__fabric_host_addr "$1"
	local p=$__p j=$__j h=$__h ip4=$__ip4 ip6=$__ip6 gw4=$__gw4 gw6=$__gw6
	__fabric_veth "$ns" eth0 "$2" "$3"
	__fabric_add "$ns" ip1 "link set dev lo up"
	__fabric_add "$ns" ip1 "link set dev eth0 gso_max_segs 1"
	__fabric_port "$ns" eth0 "$__fab_host_kbit" "$__fab_hlimit"
	__fabric_add "$ns" ip1 "address add $ip4/32 dev eth0"
	__fabric_add "$ns" ip1 "address add $ip6/128 dev eth0 nodad"
	__fabric_add "$ns" ip2 "route add $gw4/32 dev eth0 scope link"
	__fabric_add "$ns" ip2 "route add default via $gw4 dev eth0"
	__fabric_add "$ns" ip2 "route add $gw6/128 dev eth0"
	__fabric_add "$ns" ip2 "route add ::/0 via $gw6 dev eth0"
	__fabric_port "$2" "$3" "$__fab_host_kbit" "$__fab_limit"
	__fabric_add "$2" ip1 "address add $gw4/32 dev $3"
	__fabric_add "$2" ip1 "address add $gw6/128 dev $3 nodad"
	__fabric_add "$2" ip2 "route add $ip4/32 dev $3 scope link"
	__fabric_add "$2" ip2 "route add $ip6/128 dev $3"
	if [ "$__fab_coreaddrs" = 1 ]; then
		local c
		for ((c = 0; c < __fab_half * __fab_half; c++)); do
			__fabric_add "$ns" ip1 "address add $((11 + c)).$p.$j.$((h + 2))/32 dev eth0"
			__fabric_add "$2" ip2 "route add $((11 + c)).$p.$j.$((h + 2))/32 dev $3 scope link"
		done
	fi
	if [ "$h" = 0 ]; then
		__fabric_add "$2" ip2 "route add unreachable 10.$p.$j.0/24"
		printf -v net6 'fd00:%x:%x::/64' "$p" "$j"
		__fabric_add "$2" ip2 "route add unreachable $net6"
	fi
}

# __fabric_uplink LOWER_NS LOWER_IF UPPER_NS UPPER_IF: a switch-to-switch
# link with its /31 and /127; appends the upper end's addresses to
# __fab_up4/__fab_up6 of LOWER (for its ECMP group) and returns the lower
# end's in __fab_lo4/__fab_lo6 (for UPPER's downward route).
__fabric_uplink()
{
	local __a __b __a6 __b6
	__fabric_linknet "$__fab_nlinks"
	# The upper end is created up, the lower end comes up in its own
	# namespace's batch before the nexthops through it (a nexthop needs
	# the carrier).
	__fabric_veth "$3" "$4" "$1" "$2"
	__fabric_port "$1" "$2" "$__fab_up_kbit" "$__fab_limit"
	__fabric_port "$3" "$4" "$__fab_up_kbit" "$__fab_limit"
	__fabric_add "$1" ip1 "address add $__a/31 dev $2"
	__fabric_add "$3" ip1 "address add $__b/31 dev $4"
	__fabric_add "$1" ip1 "address add $__a6/127 dev $2 nodad"
	__fabric_add "$3" ip1 "address add $__b6/127 dev $4 nodad"
	__fab_up4+=("$__b $2")
	__fab_up6+=("$__b6 $2")
	__fab_lo4=$__a
	__fab_lo6=$__a6
	__fab_hi4=$__b
	__fab_nlinks=$((__fab_nlinks + 1))
}

# __fabric_ecmp NS: NS's default routes through nexthop groups of the
# uplinks collected in __fab_up4/__fab_up6.
__fabric_ecmp()
{
	local i=0 g4="" g6="" e gw dev
	for e in "${__fab_up4[@]}"; do
		read -r gw dev <<<"$e"
		i=$((i + 1))
		__fabric_add "$1" ip2 "nexthop add id $i via $gw dev $dev"
		g4+=${g4:+/}$i
	done
	for e in "${__fab_up6[@]}"; do
		read -r gw dev <<<"$e"
		i=$((i + 1))
		__fabric_add "$1" ip2 "nexthop add id $i via $gw dev $dev"
		g6+=${g6:+/}$i
	done
	__fabric_add "$1" ip2 "nexthop add id 1000 group $g4"
	__fabric_add "$1" ip2 "nexthop add id 1006 group $g6"
	__fabric_add "$1" ip2 "route add default nhid 1000"
	__fabric_add "$1" ip2 "route add ::/0 nhid 1006"
	__fab_up4=()
	__fab_up6=()
}

__fabric_plan_fattree()
{
	local k=$__fab_k half=$__fab_half p j a m c i net6

	for ((i = 0; i < __fab_nhosts; i++)); do
		__fabric_host "$i" "${__fab_pfx}e$((i / half))" "h$((i % half))"
	done
	# Edge j of pod p (global p*half+j) to aggregation a of pod p.
	for ((p = 0; p < k; p++)); do
		for ((j = 0; j < half; j++)); do
			for ((a = 0; a < half; a++)); do
				__fabric_uplink "${__fab_pfx}e$((p * half + j))" "a$a" \
					"${__fab_pfx}a$((p * half + a))" "e$j"
				__fabric_add "${__fab_pfx}a$((p * half + a))" ip2 \
					"route add 10.$p.$j.0/24 via $__fab_lo4 dev e$j"
				printf -v net6 'fd00:%x:%x::/64' "$p" "$j"
				__fabric_add "${__fab_pfx}a$((p * half + a))" ip2 \
					"route add $net6 via $__fab_lo6 dev e$j"
				[ "$__fab_coreaddrs" = 1 ] || continue
				for ((m = 0; m < half; m++)); do
					c=$((a * half + m))
					__fabric_add "${__fab_pfx}e$((p * half + j))" ip2 \
						"route add $((11 + c)).0.0.0/8 via $__fab_hi4 dev a$a"
					__fabric_add "${__fab_pfx}a$((p * half + a))" ip2 \
						"route add $((11 + c)).$p.$j.0/24 via $__fab_lo4 dev e$j"
				done
			done
			__fabric_ecmp "${__fab_pfx}e$((p * half + j))"
		done
	done
	# Aggregation a of pod p to cores a*half .. a*half+half-1.
	for ((p = 0; p < k; p++)); do
		for ((a = 0; a < half; a++)); do
			for ((m = 0; m < half; m++)); do
				c=$((a * half + m))
				__fabric_uplink "${__fab_pfx}a$((p * half + a))" "c$m" \
					"${__fab_pfx}c$c" "p$p"
				__fabric_add "${__fab_pfx}c$c" ip2 "route add 10.$p.0.0/16 via $__fab_lo4 dev p$p"
				printf -v net6 'fd00:%x::/32' "$p"
				__fabric_add "${__fab_pfx}c$c" ip2 "route add $net6 via $__fab_lo6 dev p$p"
				[ "$__fab_coreaddrs" = 1 ] || continue
				__fabric_add "${__fab_pfx}a$((p * half + a))" ip2 \
					"route add $((11 + c)).0.0.0/8 via $__fab_hi4 dev c$m"
				__fabric_add "${__fab_pfx}c$c" ip2 \
					"route add $((11 + c)).$p.0.0/16 via $__fab_lo4 dev p$p"
			done
			__fabric_ecmp "${__fab_pfx}a$((p * half + a))"
		done
	done
}

__fabric_plan_leafspine()
{
	local l s i net6

	for ((i = 0; i < __fab_nhosts; i++)); do
		__fabric_host "$i" "${__fab_pfx}l$((i / __fab_hpl))" "h$((i % __fab_hpl))"
	done
	for ((l = 0; l < __fab_leaves; l++)); do
		for ((s = 0; s < __fab_spines; s++)); do
			__fabric_uplink "${__fab_pfx}l$l" "s$s" "${__fab_pfx}s$s" "l$l"
			__fabric_add "${__fab_pfx}s$s" ip2 "route add 10.$l.0.0/16 via $__fab_lo4 dev l$l"
			printf -v net6 'fd00:%x::/32' "$l"
			__fabric_add "${__fab_pfx}s$s" ip2 "route add $net6 via $__fab_lo6 dev l$l"
		done
		__fabric_ecmp "${__fab_pfx}l$l"
	done
}

# __fabric_run WHAT CMD...: run one step, show its error output on failure.
__fabric_run()
{
	local what=$1 out
	shift
	if ! out=$("$@" 2>&1); then
		echo "fabric: $what failed: $*" >&2
		printf '%s\n' "$out" | head -n 10 >&2
		return 1
	fi
}

# __fabric_phase NAME: note how long the build step NAME took.
__fabric_phase()
{
	local t

	t=$(date +%s%N)
	__fab_phases+="${__fab_phases:+, }$1 $(((t - __fab_t) / 1000000))"
	__fab_t=$t
}

# fabric_build: build the fabric the knobs describe.  Prints one line
# with its size and build time; on failure removes whatever it made and
# returns 1.  Sets FABRIC_BUILD_MS.
fabric_build()
{
	local t0 ns sw rc=0

	__fabric_knobs || return 1
	if [ -n "$(fabric_ns_list)" ]; then
		echo "fabric: namespaces with prefix '$__fab_pfx' exist already (fabric_destroy first)" >&2
		return 1
	fi
	t0=$(date +%s%N)
	__fab_t=$t0
	__fab_phases=
	__fab_tmp=$(mktemp -d /tmp/fabric.XXXXXX) || return 1
	__fab_nlinks=0
	__fab_up4=()
	__fab_up6=()
	: >"$__fab_tmp/root"
	if [ "$__fab_topo" = fattree ]; then
		__fabric_plan_fattree
	else
		__fabric_plan_leafspine
	fi
	sw=$(fabric_switches)
	__fabric_phase plan
	{
		for ns in $(fabric_hosts) $sw; do echo "netns add $ns"; done
	} >"$__fab_tmp/netns"
	for ns in $sw; do __fabric_add "$ns" ip1 "link set dev lo up"; done

	__fabric_run "creating namespaces" ip -b "$__fab_tmp/netns" || rc=1
	__fabric_phase namespaces
	if [ $rc = 0 ]; then
		__fabric_run "creating links" ip -b "$__fab_tmp/root" || rc=1
		__fabric_phase links
	fi
	if [ $rc = 0 ]; then
		local seed_key='' idx=0
		[ -e /proc/sys/net/ipv4/fib_multipath_hash_seed ] &&
			seed_key=net.ipv4.fib_multipath_hash_seed
		for ns in $sw; do
			idx=$((idx + 1))
			# The hash policies and seeds are explained at the top
			# of this file.
			__fabric_run "sysctl in $ns" ip netns exec "$ns" sysctl -qw \
				${seed_key:+$seed_key=$(((idx * 2654435761) % 4294967291 + 1))} \
				net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
				net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
				net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
				net.ipv4.fib_multipath_hash_policy=3 \
				net.ipv4.fib_multipath_hash_fields=55 \
				net.ipv6.fib_multipath_hash_policy=3 \
				net.ipv6.fib_multipath_hash_fields=63 || { rc=1; break; }
		done
	fi
	__fabric_phase sysctls
	# One batch per namespace: links up, addresses, then nexthops and
	# routes.  A link whose other end is not up yet has no carrier, and
	# its routes are marked linkdown until it has; they are used anyway
	# (ignore_routes_with_linkdown is 0).
	if [ $rc = 0 ]; then
		for ns in $(fabric_hosts) $sw; do
			cat "$__fab_tmp/ip1.$ns" "$__fab_tmp/ip2.$ns" >"$__fab_tmp/ip.$ns"
			__fabric_run "addresses and routes in $ns" ip -n "$ns" -b "$__fab_tmp/ip.$ns" ||
				{ rc=1; break; }
		done
		__fabric_phase "addresses and routes"
	fi
	if [ $rc = 0 ]; then
		for ns in $(fabric_hosts) $sw; do
			[ -s "$__fab_tmp/tc.$ns" ] || continue
			__fabric_run "qdiscs in $ns" tc -n "$ns" -b "$__fab_tmp/tc.$ns" || { rc=1; break; }
		done
		__fabric_phase qdiscs
	fi
	rm -rf "$__fab_tmp"
	if [ $rc != 0 ]; then
		fabric_destroy >/dev/null
		return 1
	fi
	FABRIC_BUILD_MS=$((($(date +%s%N) - t0) / 1000000))
	echo "fabric: $(fabric_describe): built in $FABRIC_BUILD_MS ms ($__fab_phases ms)"
}

# fabric_describe: one line naming the fabric.
fabric_describe()
{
	local what
	if [ "$__fab_topo" = fattree ]; then
		what="fat-tree k=$__fab_k: $__fab_nhosts hosts, $((__fab_k * __fab_half)) edge, $((__fab_k * __fab_half)) aggregation, $((__fab_half * __fab_half)) core switches"
	else
		what="leaf-spine: $__fab_leaves leaves x $__fab_spines spines, $__fab_hpl hosts per leaf"
	fi
	echo "$what; hosts $__fab_rate Mbit/s, uplinks $((__fab_up_kbit / 1000)) Mbit/s (oversubscription $__fab_oversub), qdisc $__fab_qdisc limit $__fab_limit${__fab_olimit:+ olimit $__fab_olimit}, MTU $__fab_mtu"
}

# fabric_destroy: kill every process in the prefix's namespaces and delete
# them.  Prints the number removed and the time taken; sets
# FABRIC_DESTROY_MS.  Safe to call when nothing exists.
fabric_destroy()
{
	local t0 list ns n=0 f

	[ -n "${__fab_pfx:-}" ] || __fab_pfx=${FABRIC_PREFIX:-fab-}
	t0=$(date +%s%N)
	list=$(fabric_ns_list)
	for ns in $list; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
	done
	if [ -n "$list" ]; then
		f=$(mktemp /tmp/fabric-del.XXXXXX)
		for ns in $list; do
			echo "netns del $ns"
			n=$((n + 1))
		done >"$f"
		ip -force -b "$f" >/dev/null 2>&1
		rm -f "$f"
	fi
	FABRIC_DESTROY_MS=$((($(date +%s%N) - t0) / 1000000))
	echo "fabric: removed $n namespaces in $FABRIC_DESTROY_MS ms"
	[ -z "$(fabric_ns_list)" ]
}

# fabric_show: the fabric's namespaces, routes of one edge/leaf and the
# per-top-switch packet counts.
fabric_show()
{
	local ns sw

	__fabric_knobs || return 1
	if [ -z "$(fabric_ns_list)" ]; then
		echo "fabric: no namespaces with prefix '$__fab_pfx'"
		return 1
	fi
	echo "$(fabric_describe)"
	echo "namespaces: $(fabric_ns_list | wc -l)"
	for ns in $(fabric_hosts); do
		[ -e "/run/netns/$ns" ] || continue
		printf '%-12s %-16s %s\n' "$ns" "$(fabric_host_ip4 "${ns#"${__fab_pfx}"h}")" \
			"$(fabric_host_ip6 "${ns#"${__fab_pfx}"h}")"
	done
	sw=$(fabric_switches | head -n1)
	echo "routes of $sw:"
	ip -n "$sw" route show | sed 's/^/  /'
	ip -n "$sw" -6 route show | grep -v '^fe80' | sed 's/^/  /'
	ip -n "$sw" nexthop show | sed 's/^/  /'
	echo "packets sent by each top-tier switch:"
	for ns in $(fabric_top_switches); do
		[ -e "/run/netns/$ns" ] && printf '  %-12s %s\n' "$ns" "$(fabric_tx_pkts "$ns")"
	done
}
