#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# net.ndp.* sysctls: present in every namespace with their documented
# defaults, bounded (out-of-range writes fail and change nothing), and
# independent per namespace.
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd sysctl
ndp_lib_load_modules ndp
ndp_topo_ns_new ns1 ns2 || ndp_lib_skip_all "cannot create a netns"

# name default min max
knobs="init_window 15 1 1024
rto_min_us 1000 100 120000000
rto_max_us 60000000 100 120000000
rto_init_us 200000 100 120000000
link_rate_mbps 0 0 1000000
pull_pacing_pct 99 1 100
pull_quantum 4 1 64
ack_delay_us 500 0 65535
time_wait_ms 1000 0 600000
max_tw_buckets 65536 1 16777216
max_embryonic 1024 1 1048576
max_listen_embryonic 128 1 1048576
embryonic_timeout_ms 60000 0 600000
token_lifetime_s 3600 1 604800
amp_factor 3 0 1000
max_orphans 65536 0 16777216
orphan_retries 8 1 255
sb_min_samples 100 1 1000000
sb_nack_mean_pct 125 100 1000
sb_nack_abs_pct 30 1 100
sb_decay_ms 100 0 60000
sb_exclude_ms 1000 1 600000
spray_paths 16 1 64
detour_mark 1024 0 1024
dasr_idle_ms 2000 0 600000
dasr_max_peers 4096 1 1048576
udp_fixed_sport 0 0 1
trim_dscp_host 0 0 63
trim_dscp_fabric 0 0 63
ecn 1 0 1"
# udp_port opens UDP tunnel sockets: where the kernel has none
# (CONFIG_NET_UDP_TUNNEL off, as on the debug kernel) any port but 0 is
# refused, which encap.sh reports as a skip.
if ip netns exec "$ns1" sysctl -qw net.ndp.udp_port=65535 2>/dev/null; then
	ip netns exec "$ns1" sysctl -qw net.ndp.udp_port=0
	knobs+=$'\nudp_port 0 0 65535'
fi

ndp_lib_plan $(( $(echo "$knobs" | wc -l) * 3 + 5 ))

sc() { ip netns exec "$1" sysctl -n "net.ndp.$2" 2>/dev/null; }

while read -r knob def min max; do
	ndp_lib_expect_eq "$knob defaults to $def" "$def" "$(sc "$ns1" "$knob")"
	bounds()
	{
		local v
		! ip netns exec "$ns1" sysctl -qw "net.ndp.$knob=$((max + 1))" 2>/dev/null || return 1
		if [ "$min" -gt 0 ]; then
			! ip netns exec "$ns1" sysctl -qw "net.ndp.$knob=$((min - 1))" 2>/dev/null || return 1
		fi
		! ip netns exec "$ns1" sysctl -qw "net.ndp.$knob=junk" 2>/dev/null || return 1
		v=$(sc "$ns1" "$knob")
		[ "$v" = "$def" ] || { echo "value changed to $v"; return 1; }
		ip netns exec "$ns1" sysctl -qw "net.ndp.$knob=$max" || return 1
		[ "$(sc "$ns1" "$knob")" = "$max" ] || return 1
		ip netns exec "$ns1" sysctl -qw "net.ndp.$knob=$min" || return 1
		[ "$(sc "$ns1" "$knob")" = "$min" ]
	}
	ndp_lib_check "$knob rejects out-of-range values and accepts [$min, $max]" bounds
	ndp_lib_expect_eq "$knob in another netns is untouched" "$def" "$(sc "$ns2" "$knob")"
done <<<"$knobs"

# net.ndp.mem: global (struct proto's limits), so only in the initial
# namespace, like net.ipv4.tcp_mem.
mem_triple()
{
	local lo pr hi
	read -r lo pr hi < /proc/sys/net/ndp/mem || return 1
	echo "net.ndp.mem = $lo $pr $hi"
	[ "$lo" -gt 0 ] && [ "$pr" -ge "$lo" ] && [ "$hi" -ge "$pr" ]
}
ndp_lib_check "net.ndp.mem: low <= pressure <= high in the initial netns" mem_triple
ndp_lib_check "net.ndp.mem is absent from other namespaces" \
	ip netns exec "$ns1" test ! -e /proc/sys/net/ndp/mem

ndp_lib_check "/proc/net/ndp_stat is per netns" \
	ip netns exec "$ns2" grep -q '^InPkts 0$' /proc/net/ndp_stat

netns_churn()
{
	local i n
	for i in $(seq 20); do
		n=churn-$i-$RANDOM
		ip netns add "$n" || return 1
		ip netns exec "$n" sysctl -qw net.ndp.init_window=7 || return 1
		ip netns del "$n" || return 1
	done
}
ndp_lib_check "20 namespaces created and deleted" netns_churn
ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
