#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric testbed (fabric_lib.sh): a k=4 fat-tree of namespaces (16
# hosts, 8 edge, 8 aggregation, 4 core switches, sch_ndp on every port,
# ECMP nexthop groups upwards) and a 4 x 4 leaf-spine (2 hosts per leaf)
# with an oversubscription of 2, built and destroyed:
#
#   build          the fat-tree builds (its time is printed); 36 namespaces;
#   reachability   every host pings two others over IPv4 (same edge,
#                  another pod) and two over IPv6 (same pod, another pod);
#   transfers      an NDP and a TCP transfer across pods arrive intact
#                  (ndp_xfer: every byte checked, SHA-256 at both ends),
#                  IPv4 and IPv6;
#   ECMP           16 TCP connections from one host to a host in another
#                  pod: the cores' packet counters show more than one core
#                  carried them; one NDP connection (unsprayed today) puts
#                  all its DATA through a single core;
#   per-core paths with FABRIC_CORE_ADDRS=1 and four "ndpctl path"s via
#                  the receiver's per-core addresses, one NDP connection's
#                  DATA crosses all four cores (each at least 10 %);
#   destroy        no namespace of the fabric and no veth left;
#   leaf-spine     (2 hosts per leaf) builds with its uplinks at the
#                  oversubscribed rate (rate x 2 hosts / 4 spines / 2),
#                  reachability sample, an NDP transfer across leaves,
#                  TCP spread over more than one spine, destroy;
#   failed build   a build that fails half-way (a qdisc option tc rejects)
#                  leaves nothing behind.
#
#   FABRIC_RATE    link rate in Mbit/s (default 20: these are correctness
#                  checks, which hold whether or not the emulated CPU keeps
#                  up; at the benchmarks' calibrated rate, 2 Mbit/s, the
#                  transfers would take four times as long)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"
# The fabric is a tool of the project (tools/lib), installed with the
# tools (/ndp/bin in the guest) or beside the tests by "make install".
ndp_lib_source_tool fabric_lib.sh

xfer_setup
ndp_lib_require_cmd tc ping sysctl
ndp_lib_load_modules ndp sch_ndp

FABRIC_PREFIX="ft$(printf '%04x' $RANDOM)-"
export FABRIC_PREFIX
ndp_lib_at_exit "fabric_destroy"
rate=${FABRIC_RATE:-20}
veths0=$(ip -o link show type veth | wc -l)

ndp_lib_plan 31

# build NAME: fabric_build in this shell (it sets the names the other
# fabric_* functions use), as one test point.
build()
{
	local f=$XFER_TMP/build.out

	if fabric_build >"$f" 2>&1; then
		ndp_lib_pass "$1"
		sed 's/^/# /' "$f"
	else
		ndp_lib_fail "$1" "fabric_build failed"
		sed 's/^/#   /' "$f"
	fi
}

# ping_sample OFFSETS: every host pings host (i + off) % n for each offset,
# IPv4 for the first half of OFFSETS, IPv6 for the rest; all hosts at once.
# Prints the failures.
ping_sample()
{
	local n i off fam d pids=() f=$XFER_TMP/ping.$RANDOM
	n=$(fabric_nhosts)
	: >"$f"
	for ((i = 0; i < n; i++)); do
		(
			fam=4
			for off in "$@"; do
				[ "$off" = / ] && { fam=6; continue; }
				d=$(((i + off) % n))
				if [ $fam = 4 ]; then a=$(fabric_host_ip4 "$d"); else a=$(fabric_host_ip6 "$d"); fi
				# one reply within 5 s (asks every 0.2 s)
				ip netns exec "$(fabric_host_ns "$i")" ping -"$fam" -c 1 -i 0.2 -w 5 "$a" \
					>/dev/null 2>&1 || echo "h$i -> h$d ($a) failed" >>"$f"
			done
		) &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$f"
	[ ! -s "$f" ]
}

# tops_snap: per top-tier switch, packets sent (all ports).
tops_snap()
{
	local ns
	for ns in $(fabric_top_switches); do echo -n "$(fabric_tx_pkts "$ns") "; done
}

# top_ndp_data DEV: per top-tier switch, NDP DATA packets sch_ndp sent
# out of port DEV (a core's port towards one pod: one direction only; the
# receiver's FIN, a DATA packet too, goes back by another hash).
top_ndp_data()
{
	local ns
	for ns in $(fabric_top_switches); do
		tc -n "$ns" -s -j qdisc show dev "$1" |
			awk '{ if (match($0, /"data_pkts":[0-9]+/)) printf "%s ", substr($0, RSTART + 12, RLENGTH - 12); else printf "0 "; exit }'
	done
}

# spread_over BEFORE AFTER MIN: at least two switches moved by MIN packets.
spread_over()
{
	awk -v b="$1" -v a="$2" -v min="$3" 'BEGIN {
		n = split(b, x, " "); split(a, y, " ")
		printf "per switch:"
		for (i = 1; i <= n; i++) { d = y[i] - x[i]; printf " %d", d; if (d >= min) k++ }
		printf " (%d carried at least %d)\n", k, min
		exit k < 2 }'
}

# one_switch BEFORE AFTER: exactly one switch moved by more than 100.
one_switch()
{
	awk -v b="$1" -v a="$2" 'BEGIN {
		n = split(b, x, " "); split(a, y, " ")
		printf "per switch:"
		for (i = 1; i <= n; i++) { d = y[i] - x[i]; printf " %d", d; if (d > 100) k++; if (d > 0) m++ }
		printf "\n"
		exit !(k == 1 && m == 1) }'
}

no_leftovers()
{
	local left
	left=$(fabric_ns_list)
	[ -z "$left" ] || { echo "namespaces left: $left"; return 1; }
	[ "$(ip -o link show type veth | wc -l)" = "$veths0" ] ||
		{ echo "veths in the root namespace:"; ip -o link show type veth; return 1; }
}

# tcp_xfer: xfer_run over TCP.
tcp_xfer()
{
	XFER_PROTO=tcp xfer_run "$@"
}

# --- fat-tree -------------------------------------------------------------------
export FABRIC_TOPO=fattree FABRIC_K=4 FABRIC_RATE=$rate FABRIC_CORE_ADDRS=1
build "fat-tree k=4 builds"
ndp_lib_expect_eq "fat-tree: 36 namespaces" 36 "$(fabric_ns_list | wc -l)"
fabric_hosts_sysctl net.ndp.link_rate_mbps="${rate%.*}"

# v4: same edge (+1), another pod (+5); v6: same pod (+2), another pod
# (+10).  (Each ping is a process: 48 per family took 46 s under TCG on
# a busy host.)
t0=$(date +%s%N)
ndp_lib_check "fat-tree: 32 host pairs reach each other over IPv4" ping_sample 1 5
ndp_lib_check "fat-tree: 32 host pairs reach each other over IPv6" ping_sample / 2 10
ndp_lib_info "pings took $(( ($(date +%s%N) - t0) / 1000000 )) ms"

ndp_lib_check "fat-tree: NDP across pods, IPv4, intact" \
	xfer_run "$(fabric_host_ns 0)" "$(fabric_host_ns 13)" "$(fabric_host_ip4 13)" 4 512K 64K
ndp_lib_check "fat-tree: NDP across pods, IPv6, intact" \
	xfer_run "$(fabric_host_ns 6)" "$(fabric_host_ns 9)" "$(fabric_host_ip6 9)" 6 512K 64K
ndp_lib_check "fat-tree: TCP across pods, IPv4, intact" \
	tcp_xfer "$(fabric_host_ns 3)" "$(fabric_host_ns 14)" "$(fabric_host_ip4 14)" 4 512K 64K
ndp_lib_check "fat-tree: TCP across pods, IPv6, intact" \
	tcp_xfer "$(fabric_host_ns 10)" "$(fabric_host_ns 1)" "$(fabric_host_ip6 1)" 6 512K 64K

# ECMP: 16 TCP connections h0 -> h12 (pod 0 to pod 3).
c0=$(tops_snap)
ndp_lib_check "fat-tree: 16 TCP connections across pods, IPv4, intact" \
	tcp_xfer "$(fabric_host_ns 0)" "$(fabric_host_ns 12)" "$(fabric_host_ip4 12)" 4 128K 0 16
c1=$(tops_snap)
ndp_lib_check "fat-tree: ECMP spread the TCP connections over more than one core" \
	spread_over "$c0" "$c1" 30
ndp_lib_info "IPv4 TCP, packets per core: $(spread_over "$c0" "$c1" 30)"
c0=$(tops_snap)
ndp_lib_check "fat-tree: 16 TCP connections across pods, IPv6, intact" \
	tcp_xfer "$(fabric_host_ns 2)" "$(fabric_host_ns 8)" "$(fabric_host_ip6 8)" 6 128K 0 16
c1=$(tops_snap)
ndp_lib_check "fat-tree: ECMP spread the IPv6 TCP connections over more than one core" \
	spread_over "$c0" "$c1" 30
ndp_lib_info "IPv6 TCP, packets per core: $(spread_over "$c0" "$c1" 30)"

# NDP today: one connection hashes like one flow (host 11 is in pod 2).
d0=$(top_ndp_data p2)
ndp_lib_check "fat-tree: NDP 2 MB across pods intact" \
	xfer_run "$(fabric_host_ns 4)" "$(fabric_host_ns 11)" "$(fabric_host_ip4 11)" 4 2M 0
d1=$(top_ndp_data p2)
ndp_lib_check "fat-tree: one unsprayed NDP connection's DATA crossed a single core" \
	one_switch "$d0" "$d1"
ndp_lib_info "NDP DATA per core: $(one_switch "$d0" "$d1")"

# Spraying that works today: four paths, one per core, through host 11's
# per-core addresses (FABRIC_CORE_ADDRS).
dst=$(fabric_host_ip4 11)
add_core_paths()
{
	local c
	for c in 0 1 2 3; do
		ip netns exec "$(fabric_host_ns 4)" ndpctl path add id $((c + 1)) \
			dst "$dst/32" via "$((11 + c)).${dst#10.}" || return 1
	done
	ip netns exec "$(fabric_host_ns 4)" ndpctl path show
}
ndp_lib_check "fat-tree: four NDP paths via the per-core addresses" add_core_paths
# Spreading alone is measured: no path may be excluded meanwhile.
ip netns exec "$(fabric_host_ns 4)" sysctl -qw net.ndp.sb_nack_abs_pct=100
d0=$(top_ndp_data p2)
ndp_lib_check "fat-tree: NDP 2 MB over four paths intact" \
	xfer_run "$(fabric_host_ns 4)" "$(fabric_host_ns 11)" "$dst" 4 2M 0
d1=$(top_ndp_data p2)
# every_switch BEFORE AFTER: every switch carried at least 10 % of the total.
every_switch()
{
	awk -v b="$1" -v a="$2" 'BEGIN {
		n = split(b, x, " "); split(a, y, " ")
		printf "per switch:"
		for (i = 1; i <= n; i++) { d[i] = y[i] - x[i]; t += d[i]; printf " %d", d[i] }
		printf "\n"
		if (t < 100) exit 1
		for (i = 1; i <= n; i++) if (d[i] < t / 10) exit 1 }'
}
ndp_lib_check "fat-tree: its DATA sprayed over all four cores" every_switch "$d0" "$d1"
ndp_lib_info "NDP DATA per core, four paths: $(every_switch "$d0" "$d1")"

t0=$(date +%s%N)
ndp_lib_check "fat-tree: destroy" fabric_destroy
ndp_lib_info "destroy $(( ($(date +%s%N) - t0) / 1000000 )) ms"
ndp_lib_check "fat-tree: no namespace or veth left" no_leftovers

# --- leaf-spine, oversubscribed 2:1 ---------------------------------------------
export FABRIC_TOPO=leafspine FABRIC_LEAVES=4 FABRIC_SPINES=4 FABRIC_HPL=2 FABRIC_OVERSUB=2 FABRIC_CORE_ADDRS=0
build "leaf-spine 4 x 4, 2 hosts per leaf, oversubscription 2, builds"
ndp_lib_expect_eq "leaf-spine: 16 namespaces" 16 "$(fabric_ns_list | wc -l)"
fabric_hosts_sysctl net.ndp.link_rate_mbps="${rate%.*}"
# uplink = rate x hosts per leaf / spines / oversubscription
up=$(awk -v r="$rate" 'BEGIN { printf "%d", r * 1000 * 2 / 4 / 2 }')
leaf_rates()
{
	local h s
	h=$(tc -n "${FABRIC_PREFIX}l0" qdisc show dev h0 | grep -o 'rate [^ ]*')
	s=$(tc -n "${FABRIC_PREFIX}s0" qdisc show dev l0 | grep -o 'rate [^ ]*')
	echo "host port: $h, spine port: $s"
	[ "$(tc -n "${FABRIC_PREFIX}l0" -j qdisc show dev s1 | grep -o '"rate":[0-9]*')" = "\"rate\":$((up * 1000 / 8))" ]
}
ndp_lib_check "leaf-spine: uplinks at a quarter of the host rate" leaf_rates
ndp_lib_info "$(leaf_rates)"
ndp_lib_check "leaf-spine: 32 host pairs reach each other (v4, v6)" ping_sample 1 3 / 5 6
ndp_lib_check "leaf-spine: NDP across leaves, IPv6, intact" \
	xfer_run "$(fabric_host_ns 1)" "$(fabric_host_ns 6)" "$(fabric_host_ip6 6)" 6 512K 64K
c0=$(tops_snap)
ndp_lib_check "leaf-spine: 16 TCP connections across leaves intact" \
	tcp_xfer "$(fabric_host_ns 2)" "$(fabric_host_ns 7)" "$(fabric_host_ip4 7)" 4 128K 0 16
c1=$(tops_snap)
ndp_lib_check "leaf-spine: ECMP spread them over more than one spine" spread_over "$c0" "$c1" 30
ndp_lib_info "TCP packets per spine: $(spread_over "$c0" "$c1" 30)"
ndp_lib_check "leaf-spine: destroy" fabric_destroy
ndp_lib_check "leaf-spine: no namespace or veth left" no_leftovers

# --- a build that fails half-way -------------------------------------------------
# (a small leaf-spine: the path through the builder is the same)
export FABRIC_LEAVES=2 FABRIC_SPINES=2 FABRIC_HPL=1 FABRIC_OVERSUB=1
failed_build()
{
	# sch_ndp takes limit 1..65535: the namespaces, links and routes
	# exist when tc refuses the first qdisc.
	! FABRIC_LIMIT=70000 fabric_build
}
ndp_lib_check "a build failing at its qdiscs reports failure" failed_build
ndp_lib_check "the failed build left no namespace or veth" no_leftovers
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
