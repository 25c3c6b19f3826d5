#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tracepoints of ndp.ko (events/ndp) and sch_ndp.ko (events/sch_ndp), read
# through tracefs as a user would: two senders push 1 MB each through a
# trimming switch port (sch_ndp limit 4) with 10 % loss on one sender's
# link, over IPv4; then the same over IPv6 into a port with a one-packet
# header queue (limit 2 hlimit 1), whose overflowing trimmed headers are
# returned to their senders; then a burst of
# crafted packets into a port with return-to-sender off, whose headers are
# dropped.  Each event must fire and carry the fields that identify what
# happened: ports, psn, packet type, and the psns must agree between the
# events of the two ends (a NACKed psn was trimmed at the receiver and is
# resent with RTX).  Connection state changes are the kernel's
# sock:inet_sock_set_state event (protocol 0xfd).  Skipped if tracefs is
# not available.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/xfer_lib.sh"

XFER_PROTO=ndp
xfer_setup
ndp_lib_require_cmd tc ndp_pktgen
ndp_lib_load_modules sch_ndp

T=$(ndp_lib_tracefs)
[ -d "$T/events" ] || ndp_lib_skip_all "no tracefs"
[ -d "$T/events/ndp" ] || ndp_lib_skip_all "ndp.ko has no tracepoints"
[ -d "$T/events/sch_ndp" ] || ndp_lib_skip_all "sch_ndp.ko has no tracepoints"

tmp=$(mktemp -d)
ndp_lib_at_exit "rm -rf $tmp"
ndp_lib_at_exit "echo 0 > $T/events/enable; echo 0 > $T/tracing_on; echo > $T/trace"

ndp_topo_switch 2 || ndp_lib_skip_all "cannot build the topology"
ip netns exec "$ns_rx" sysctl -qw net.ndp.link_rate_mbps=100
ip netns exec "$ns_h1" tc qdisc add dev eth0 root netem loss 10% ||
	ndp_lib_skip_all "no netem"
ndp_lib_plan 22

echo 0 > "$T/events/enable"
echo 4096 > "$T/buffer_size_kb"
echo 1 > "$T/events/ndp/enable"
echo 1 > "$T/events/sch_ndp/enable"
echo 1 > "$T/events/sock/inet_sock_set_state/enable"
echo 1 > "$T/tracing_on"

# run FAMILY ADDR QDISC-OPTIONS... : two 1 MB transfers into the port,
# trace in $tmp/trace.FAMILY.
run()
{
	local fam=$1 addr=$2 p1 p2 rc=0
	shift 2

	ip netns exec "$ns_sw" tc qdisc replace dev tr root ndp "$@" || return 1
	echo > "$T/trace"
	port1=$(xfer_next_port)
	port2=$(xfer_next_port)
	echo "$port1 $port2" > "$tmp/ports.$fam"
	XFER_PORT=$port1 xfer_run "$ns_h1" "$ns_rx" "$addr" "$fam" 1M 0 1 300 \
		>"$tmp/h1.$fam" 2>&1 &
	p1=$!
	XFER_PORT=$port2 xfer_run "$ns_h2" "$ns_rx" "$addr" "$fam" 1M 0 1 300 \
		>"$tmp/h2.$fam" 2>&1 &
	p2=$!
	wait $p1 || { rc=1; sed 's/^/h1: /' "$tmp/h1.$fam"; }
	wait $p2 || { rc=1; sed 's/^/h2: /' "$tmp/h2.$fam"; }
	cat "$T/trace" > "$tmp/trace.$fam"
	ip netns exec "$ns_sw" tc -s qdisc show dev tr | sed 's/^/# /'
	return $rc
}

# has FILE NAME REGEX: pass if an event line of FILE matches REGEX.
has()
{
	local f=$1 name=$2 re=$3

	if grep -qE "$re" "$f"; then
		ndp_lib_pass "$name"
		grep -E "$re" "$f" | head -n 1 | sed 's/^ */# /'
	else
		ndp_lib_fail "$name" "no line matches: $re"
		grep -cE ': (ndp|sch_ndp)_' "$f" | sed 's/^/# events traced: /'
	fi
}

ndp_lib_check "v4: two 1 MB transfers through a trimming port with loss, intact" \
	run 4 10.0.100.1 limit 4 hlimit 64 rate 100mbit
read -r port1 port2 < "$tmp/ports.4"
f=$tmp/trace.4
ip4='::ffff:10\.0\.1\.1'
rx4='::ffff:10\.0\.100\.1'
has "$f" "ndp_send_pkt: DATA from the sender, with its ports and psn" \
	"ndp_send_pkt: saddr=$ip4 daddr=$rx4 sport=[0-9]+ dport=$port1 type=DATA flags=[A-Z|]*.* psn=[0-9]+ .* len=[0-9]+"
has "$f" "ndp_recv_pkt: DATA at the receiver" \
	"ndp_recv_pkt: saddr=$ip4 daddr=$rx4 sport=[0-9]+ dport=$port1 type=DATA .*psn=[0-9]+"
has "$f" "ndp_send_pkt: NACK from the receiver" \
	"ndp_send_pkt: saddr=$rx4 daddr=::ffff:10\.0\.[12]\.1 sport=($port1|$port2) dport=[0-9]+ type=NACK"
has "$f" "ndp_recv_pkt: PULL at a sender" \
	"ndp_recv_pkt: saddr=$rx4 daddr=::ffff:10\.0\.[12]\.1 sport=($port1|$port2) dport=[0-9]+ type=PULL .*pull=[1-9]"
has "$f" "ndp_trim: the receiver saw trimmed headers (cause=switch)" \
	"ndp_trim: skaddr=[^ ]+ saddr=$rx4 daddr=::ffff:10\.0\.[12]\.1 sport=($port1|$port2) dport=[0-9]+ psn=[0-9]+ path=0 cause=switch"
has "$f" "ndp_nack: a sender got NACKs" \
	"ndp_nack: skaddr=[^ ]+ saddr=::ffff:10\.0\.[12]\.1 daddr=$rx4 sport=[0-9]+ dport=($port1|$port2) psn=[0-9]+"
has "$f" "ndp_pull: the receiver issued pulls" \
	"ndp_pull: skaddr=[^ ]+ saddr=$rx4 daddr=::ffff:10\.0\.[12]\.1 sport=($port1|$port2) dport=[0-9]+ ctr=[1-9][0-9]* piggyback=[01]"
has "$f" "ndp_rto: the lossy sender's timer expired" \
	"ndp_rto: skaddr=[^ ]+ saddr=$ip4 daddr=$rx4 sport=[0-9]+ dport=$port1 snd_una=[0-9]+ retries=[0-9]+ rto_us=[1-9]"
has "$f" "sch_ndp_trim: the port trimmed DATA of the transfers" \
	"sch_ndp_trim: dev=[0-9]+ handle=0x[0-9a-f]+ saddr=::ffff:10\.0\.[12]\.1 daddr=$rx4 sport=[0-9]+ dport=($port1|$port2) type=1 flags=0x[0-9a-f]+ psn=[0-9]+ len=[0-9]+ where=-"
has "$f" "sock:inet_sock_set_state: the NDP listener (protocol 0xfd)" \
	"inet_sock_set_state: family=AF_INET protocol=0xfd sport=$port1 .* newstate=TCP_LISTEN"
has "$f" "sock:inet_sock_set_state: NDP connections established" \
	"inet_sock_set_state: family=AF_INET protocol=0xfd sport=[0-9]+ dport=$port1 .* newstate=TCP_ESTABLISHED"

# The psns agree: a psn NACKed at a sender was trimmed at the receiver
# (same connection ports) and was sent again, marked RTX.
agree()
{
	local line sport dport psn

	while read -r line; do
		sport=$(sed -n 's/.* sport=\([0-9]*\) .*/\1/p' <<<"$line")
		dport=$(sed -n 's/.* dport=\([0-9]*\) .*/\1/p' <<<"$line")
		psn=$(sed -n 's/.* psn=\([0-9]*\) .*/\1/p' <<<"$line")
		grep -qE "ndp_trim: .* sport=$dport dport=$sport psn=$psn " "$f" ||
			continue
		grep -qE "ndp_send_pkt: .* sport=$sport dport=$dport type=DATA flags=[A-Z|]*RTX[A-Z|]* psn=$psn " "$f" ||
			continue
		echo "NACKed psn $psn of $sport->$dport: trimmed at the receiver, resent with RTX"
		return 0
	done < <(grep 'ndp_nack: ' "$f")
	echo "no NACKed psn found both trimmed at the receiver and resent"
	return 1
}
ndp_lib_check "psns agree: NACKed = trimmed at the receiver = resent with RTX" agree

# IPv6, a one-packet header queue at 10 Mbit/s (slow enough that even the
# debug kernel's senders overflow it): trimmed headers go back to the senders.
ip netns exec "$ns_h1" tc qdisc del dev eth0 root
ndp_lib_check "v6: two 1 MB transfers through a port returning headers, intact" \
	run 6 fd00:100::1 limit 2 hlimit 1 rate 10mbit
read -r port1 port2 < "$tmp/ports.6"
f=$tmp/trace.6
has "$f" "sch_ndp_rts: the port returned headers (v6 addresses)" \
	"sch_ndp_rts: dev=[0-9]+ handle=0x[0-9a-f]+ saddr=fd00:[12]::1 daddr=fd00:100::1 sport=[0-9]+ dport=($port1|$port2) type=1 flags=0x[0-9a-f]+ psn=[0-9]+"
has "$f" "ndp_rts: a sender got its headers back" \
	"ndp_rts: skaddr=[^ ]+ saddr=fd00:[12]::1 daddr=fd00:100::1 sport=[0-9]+ dport=($port1|$port2) psn=[0-9]+ path=[0-9]+"
has "$f" "ndp_recv_pkt: the returned header, flags TRIMMED|RTS" \
	"ndp_recv_pkt: saddr=fd00:100::1 daddr=fd00:[12]::1 sport=[0-9]+ dport=($port1|$port2) type=DATA flags=[A-Z|]*TRIMMED\|RTS"
rts_agree()
{
	local psn port

	read -r port psn < <(sed -n 's/.*ndp_rts: .* dport=\([0-9]*\) psn=\([0-9]*\) .*/\1 \2/p' "$f" | head -n 1)
	[ -n "$psn" ] || { echo "no ndp_rts event"; return 1; }
	grep -qE "sch_ndp_rts: .* dport=$port .* psn=$psn " "$f" ||
		{ echo "psn $psn to port $port not returned by the port"; return 1; }
	echo "psn $psn to port $port: returned by the port, received back by its sender"
}
ndp_lib_check "psns agree: returned by the port = received back" rts_agree
has "$f" "sock:inet_sock_set_state: v6 (AF_INET6)" \
	"inet_sock_set_state: family=AF_INET6 protocol=0xfd .* newstate=TCP_ESTABLISHED"

# Return to sender off and a one-packet header queue: crafted DATA packets (to a
# port nobody listens on) overflow the data queue, their headers drop.
drops()
{
	ip netns exec "$ns_sw" tc qdisc replace dev tr root ndp limit 1 hlimit 1 rts off rate 1mbit ||
		return 1
	echo > "$T/trace"
	ip netns exec "$ns_h1" ndp_pktgen send -4 --dst 10.0.100.1 --dport 9 --psn 100 "data*20" ||
		return 1
	ndp_lib_wait 5000 grep -q "sch_ndp_drop: .*where=hdr_full" "$T/trace"
	cat "$T/trace" > "$tmp/trace.drop"
}
ndp_lib_check "20 crafted DATA packets into limit 1 hlimit 1 rts off" drops
has "$tmp/trace.drop" "sch_ndp_drop: headers dropped (where=hdr_full), ports and psn" \
	"sch_ndp_drop: dev=[0-9]+ handle=0x[0-9a-f]+ saddr=::ffff:10\.0\.1\.1 daddr=$rx4 sport=[0-9]+ dport=9 type=1 flags=0x[0-9a-f]*4 psn=1[0-9][0-9] len=[0-9]+ where=hdr_full"

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
