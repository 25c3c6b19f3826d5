/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP: private declarations shared by the files of ndp.ko.
 *
 * Where each mechanism of the paper lives:
 *   plumbing.c  module load/unload, IP handlers, per-netns setup
 *   sock.c      the socket API (bind ... close, sockopts, poll)
 *   hash.c      port and connection tables
 *   input.c     receive demux, per packet type handling, passive open
 *   output.c    building and sending packets, first window, pull-driven
 *               sending, retransmission queue
 *   path.c      multipath: path choice per DATA packet, per-path
 *               scoreboards, exclusion of outlier paths
 *   pull.c      the pull queue (one per netns and receiving device)
 *   timer.c     retransmission timeout with backoff
 *   timewait.c  time-wait records at both ends, replay rejection
 *   room.c      receive room: what the receiver has room for in pushed
 *               data (NDP_OPT_ROOM), what the sender pushes with it
 *   dasr.c      Dart's receiver-advertised sender count (per-netns
 *               table of peer addresses), both ends
 *   admit.c     admission of first windows under pressure: budgets,
 *               stateless challenges, tokens and the opener's token cache
 *   ctrl.c      net.ndp.* knobs;  proc.c  /proc/net/ndp_stat
 *
 * Locking, outermost first (ndp-transport.rst, "Locking"):
 *   the socket lock      the kernel's, as TCP's: all protocol state of one
 *                        connection or listener.  Process context owns
 *                        it (lock_sock()); softirq (receive) and timers
 *                        hold its spinlock (bh_lock_sock()) and, when a
 *                        user owns the socket, leave packets in its
 *                        backlog (ndp_backlog_rcv()) and work in
 *                        ndp_sock.deferred (ndp_release_cb()).  Packets
 *                        are handed to IP after the spinlock is dropped,
 *                        or by the owner.  Asserted by
 *                        ndp_sock_assert_locked().
 *   listener, then child (passive open: sk_clone_lock() under the
 *                        listener's spinlock, taken nested).
 *   ndp_pullq.lock       pull queue lists and the per-socket pull fields.
 *   ndp_pull_net.queues  (xa_lock, _bh) the pull queue table (pull.c).
 *   table locks          ndp_hash_net.{bind,conn}_lock, ndp_tw_net.lock,
 *                        innermost.
 *   ndp_path_net.sb_lock scoreboard exclusion decisions, innermost.
 *   ndp_sock.dst_lock    (_bh) the routes cached per steered path
 *                        (output.c), innermost; taken without the
 *                        socket lock when packets are handed to IP.
 *   ndp_dasr_net.lock    (_bh) DASR table inserts and removals, flow
 *                        counts (dasr.c), innermost; lookups under RCU.
 *   ndp_peer_net.lock    (_bh) the per-peer RTT cache (rtt.c), innermost.
 *   ndp_admit_keys.lock, ndp_admit_cache.lock  (_bh) challenge and token
 *                        keys, the token cache (admit.c, in
 *                        ndp_admit_net), innermost.
 *   Paths (ndp_path_net.paths) are read under RCU; their scoreboards
 *   are atomics, so the data path never takes ndp_path_net.lock.
 */
#ifndef _NDP_PROTOCOL_H
#define _NDP_PROTOCOL_H

#include <linux/types.h>
#include <linux/udp.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/ndp_wire.h>
#include <linux/siphash.h>
#include <net/ndp_compat.h>

#include "mib.h"

/* IP protocol number in use (module parameter "ipproto"). */
extern unsigned int ndp_ipproto;

#define NDP_BIND_HASH_BITS	8
#define NDP_PULL_BANDS		8	/* strict priority bands of a pull queue */
#define NDP_PULL_QUANTUM_MAX	64	/* net.ndp.pull_quantum, packets */
/* Link speed assumed when neither link_rate_mbps nor ethtool tells one. */
#define NDP_DEFAULT_RATE_MBPS	10000
/* An RTO this many jiffies late waits one more tick for the receive path. */
#define NDP_RTO_LATE_TICKS	2
#define NDP_RTO_RETRIES		15	/* RTO expiries without news: give up */
#define NDP_PULL_GAP_MAX	HZ	/* longest pull gap sampled, jiffies */
#define NDP_PULL_GAPS_WAIT	4	/* pull gaps of silence: a pull is lost */
#define NDP_PATHS_PER_DST	64	/* paths one connection rotates over */
#define NDP_SPRAY_PATHS_MAX	NDP_PATHS_PER_DST /* net.ndp.spray_paths */
#define NDP_DST_SLOTS		8	/* routes cached per connection for paths */
/* Room in front of a packet for link, IP and NDP headers. */
#define NDP_HEADROOM		(MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr) + NDP_HDR_LEN)

/*
 * Batches (offload.c).  A sender's batch (NDP_SKB_GSO_BATCH) keeps each
 * packet whole, behind its own NDP header, on the frag_list: veth,
 * bridges and the local stack pass it on whole (NETIF_F_GSO_FRAGLIST),
 * and it is cut where a device or a qdisc needs single packets.  A batch
 * GRO built (NDP_SKB_GSO_TYPE | SKB_GSO_FRAGLIST) has the same layout and
 * a bit no device declares among its features: only the receive handler
 * takes it.  NDP_F_GSO_TAIL: the flags only the last packet of a batch
 * may carry.
 */
#define NDP_SKB_GSO_BATCH	SKB_GSO_FRAGLIST
#define NDP_SKB_GSO_TYPE	SKB_GSO_TUNNEL_REMCSUM
#define NDP_F_GSO_TAIL		(NDP_F_LAST | NDP_F_FIN)
/* Packets of a sender's batch, at most (offload.c). */
#define NDP_GSO_SEGS_MAX	64
/* Packets GRO chains into one batch, at most (one ACK reports them). */
#define NDP_GRO_MAX_SEGS	NDP_ACK_SPAN_MAX

/* &ndphdr.prio of packet @i of a batch whose first packet has @prio. */
static inline u32 ndp_gso_prio(u32 prio, u32 i, u32 mss)
{
	return prio == U32_MAX ? U32_MAX : prio - i * mss;
}

struct ndp_admit_net;
struct ndp_dasr_net;
struct ndp_path_net;
struct ndp_peer_net;
struct ndp_tw_net;
struct ndp_hash_net;
struct ndp_pull_net;
struct ndp_encap_net;

/**
 * struct ndp_net - per-network-namespace state of ndp.ko
 * @ctl_table_hdr: registered net.ndp sysctl table.
 * @ctl_mem_hdr: net.ndp.mem (initial namespace only, see sock.c).
 * @init_window: packets pushed before the first pull (net.ndp.init_window).
 * @rto_min_us: lower bound of the retransmission timeout, microseconds
 *	(an admin may raise it; the timeout itself comes from RTT samples).
 * @rto_max_us: retransmission timeout ceiling (backoff cap), microseconds.
 * @rto_init_us: timeout of a connection to a peer with no RTT known yet.
 * @link_rate_mbps: pull pacing rate; 0 = use the device's ethtool speed,
 *	falling back to 10000.
 * @pull_pacing_pct: fraction of the link rate pulls aim at, percent.
 * @ack_delay_us: longest a held ACK waits to ride on our DATA
 *	(net.ndp.ack_delay_us, delack.c), microseconds; also what our DATA
 *	lets the peer hold its ACKs for.  0: every ACK leaves at once.
 * @pull_quantum: most packets one pull grants (pull.c, "Quanta"); also
 *	the longest run of packets a sprayed connection keeps on one path
 *	(path.c).  1: a pull per packet, as the paper's.
 * @time_wait_ms: lifetime of time-wait state at both ends.
 * @max_tw_buckets: time-wait records per namespace, at most; beyond it
 *	the oldest record is evicted.
 * @max_embryonic: connections created by unproven first windows and not
 *	yet accepted, per namespace (admit.c: beyond it, first windows are
 *	challenged).
 * @max_listen_embryonic: the same, per listener (at most its backlog).
 * @embryonic_timeout_ms: a connection created by a first window and not
 *	accepted within this time is reset (0: never).
 * @amp_factor: a passive connection sends at most this many times the
 *	bytes it received until the peer proves its address (0: no bound).
 * @ctrl_dscp: DSCP of control packets (ACK, NACK, PULL, RST and headers
 *	sent without payload); 0: the socket's own TOS / traffic class.
 * @trim_dscp_host: DSCP with which host-facing switch ports mark the
 *	packets they trim (sch_ndp trim-dscp-host): a last-hop trim; 0: none.
 * @trim_dscp_fabric: the same for fabric ports: a fabric trim; 0: none.
 * @ecn: DATA with payload leaves ECT(0) (in UDP: the outer header), so
 *	that switches that mark rather than trim can say CE (0: not ECT).
 * @max_orphans: closed connections still delivering data, at most.
 * @orphan_retries: RTO expiries without an acknowledgment before an
 *	orphan is reset.
 * @orphans: closed connections still delivering data (orphans).
 * @mib: per-cpu event counters.
 * @net: back pointer.
 * @admit: challenge and token keys, the token cache and the count of
 *	embryonic connections (private to admit.c).
 * @token_lifetime_s: a token is valid this long, up to twice that.
 * @hash: the port and connection tables and their locks (private to
 *	hash.c).
 * @tw: the time-wait records, their lock and reaper (private to
 *	timewait.c).
 * @pull: the pull queues by receiving device (private to pull.c).
 * @sb_min_samples: scoreboard: ACKs + NACKs a path needs before it can
 *	be judged (net.ndp.sb_min_samples).
 * @sb_nack_mean_pct: scoreboard: a path is an outlier when its NACK ratio
 *	exceeds this percentage of the mean ratio of all paths ...
 * @sb_nack_abs_pct: ... and exceeds this absolute percentage.
 * @sb_decay_ms: scoreboard counts are halved every this many ms (0: never).
 * @sb_exclude_ms: how long an outlier path stays excluded.
 * @spray_paths: IPv6 flow-label paths a connection uses towards a peer
 *	no configured path applies to (path.c); 1: none, the plain route.
 * @path: the configured paths, their lock and the scoreboard's
 *	exclusion lock (private to path.c; netlink.c goes through
 *	ndp_paths_lock(), ndp_path_find() and the like).
 * @detour_mark: packets at the head of each unscheduled window marked
 *	NDP_F_UNSCHED, eligible for switch detours (net.ndp.detour_mark).
 * @dasr_idle_ms: DASR idle timeout: a peer without flows stops counting
 *	as an active sender, and the n it advertised is forgotten, this
 *	long after its last packet (0: DASR off, nsenders sent as 0 and
 *	ignored).
 * @dasr_max_peers: entries of the DASR table, at most.
 * @dasr: the DASR table, its lock and reaper (private to dasr.c).
 * @encap: the UDP tunnel sockets of @udp_port and the lock that changes
 *	them (private to encap.c).
 * @peer: the per-peer RTT cache and its lock (private to rtt.c).
 */
struct ndp_net {
	struct ctl_table_header	*ctl_table_hdr;
	struct ctl_table_header	*ctl_mem_hdr;
	u32			init_window;
	u32			rto_min_us;
	u32			rto_max_us;
	u32			rto_init_us;
	u32			link_rate_mbps;
	u32			pull_pacing_pct;
	u32			pull_quantum;
	u32			ack_delay_us;
	u32			time_wait_ms;
	u32			max_tw_buckets;
	u32			max_embryonic;
	u32			max_listen_embryonic;
	u32			embryonic_timeout_ms;
	u32			amp_factor;
	u32			ctrl_dscp;
	u32			trim_dscp_host;
	u32			trim_dscp_fabric;
	u32			ecn;
	u32			max_orphans;
	u32			orphan_retries;
	atomic_t		orphans;
	struct ndp_mib __percpu	*mib;

	struct net		*net;
	struct ndp_admit_net	*admit;
	u32			token_lifetime_s;
	struct ndp_hash_net	*hash;
	struct ndp_tw_net	*tw;
	struct ndp_pull_net	*pull;
	u32			sb_min_samples;
	u32			sb_nack_mean_pct;
	u32			sb_nack_abs_pct;
	u32			sb_decay_ms;
	u32			sb_exclude_ms;
	u32			spray_paths;
	struct ndp_path_net	*path;
	u32			detour_mark;
	u32			dasr_idle_ms;
	u32			dasr_max_peers;
	struct ndp_dasr_net	*dasr;
	struct ndp_encap_net	*encap;
	u32			udp_port;
	u32			udp_fixed_sport;
	struct sock		*ctl_sk4;	/* replies of no socket */
	struct sock		*ctl_sk6;	/* (output.c) */
	struct ndp_peer_net	*peer;
};

extern unsigned int ndp_net_id;

static inline struct ndp_net *ndp_pernet(const struct net *net)
{
	return net_generic(net, ndp_net_id);
}

#define NDP_INC_STATS(net, field) \
	SNMP_INC_STATS(ndp_pernet(net)->mib, field)
#define NDP_ADD_STATS(net, field, val) \
	SNMP_ADD_STATS(ndp_pernet(net)->mib, field, val)

/**
 * struct ndp_pullq - the pull queue of one receiving device in one netns
 * @nn: owning namespace state.
 * @ifindex: the device whose incoming link the pulls pace.
 * @refcnt: one for &ndp_pull_net.queues while the device is registered, one
 *	per socket whose &ndp_sock.pq points here (pull.c, "Lifetime").
 * @lock: protects the lists and the pull fields of member sockets.
 * @bands: sockets with pending pulls, per priority band (higher index is
 *	served first), round robin inside a band.
 * @active: number of sockets linked on @bands.
 * @armed: @timer is queued or running and will re-arm itself as needed.
 * @dead: the device went away (or the namespace): nothing links or arms
 *	any more (written under @lock, read locklessly by sockets).
 * @timer: softirq hrtimer issuing the pulls the elapsed time pays for.
 * @next_ns: the pull clock (ktime ns): when the link will have brought
 *	what was pulled so far; pulls may leave while it is not after now,
 *	and it never lags now by more than the bank (pull.c).
 * @interval_ns: link time of the last pull issued (its cost).
 * @pass: timer expiries so far; with &ndp_sock_pull.pass, bounds what one
 *	expiry pulls for a socket by its free receive room.
 * @mtu: device MTU (size of a pull of unknown size); follows the device.
 * @rate_mbps: device speed read under RTNL (0 = unknown); follows it.
 * @byte_fp: link time of one byte in 2^-16 ns at @byte_rate Mb/s and
 *	@byte_pct pacing, the rate and pacing it was computed for (pull.c,
 *	ndp_pullq_interval()); under @lock once the queue is published.
 * @late_ns: how late the timer's expiries fire, a moving average (1/8);
 *	sizes the quantum (pull.c, "Quanta").
 * @hold_ns: a lone socket owed less than a quantum waits until then for
 *	the rest of it (pull.c, "Quanta").
 * @rate_work: first read of the device speed (a queue is created in
 *	softirq; the netdevice notifier reads it on later changes).
 * @rcu: freed after a grace period (lockless readers of &ndp_sock.pq).
 */
struct ndp_pullq {
	struct ndp_net		*nn;
	int			ifindex;
	refcount_t		refcnt;
	spinlock_t		lock;		/* lists, member pull fields */
	struct list_head	bands[NDP_PULL_BANDS];
	u32			active;
	bool			armed;
	bool			dead;
	struct hrtimer		timer;
	u64			next_ns;
	u64			interval_ns;
	u64			late_ns;
	u64			hold_ns;
	u32			pass;
	u32			mtu;
	u32			rate_mbps;
	u64			byte_fp;
	u32			byte_rate;
	u32			byte_pct;
	struct delayed_work	rate_work;
	struct rcu_head		rcu;
};

/*
 * Addresses of one packet or connection, from the point of view of this
 * host.  IPv4 addresses are kept in v4-mapped form so one lookup serves
 * both families; @family says which header to build.  @flowlabel is
 * set only in the copy made for a packet on a flow-label path (path.c);
 * 0 otherwise, and never part of a lookup key.  @ifindex: the device
 * routes towards the peer are bound to (SO_BINDTODEVICE, a link-local
 * peer's link, or the VRF a packet arrived in), 0 for none.
 * @encap_dport: NDP in UDP, the UDP port the peer receives at when it
 * is not net.ndp.udp_port (a peer behind a NAT, ndp_encap_rport());
 * packets to it then leave from udp_port.  Neither is a lookup key.
 */
struct ndp_flow {
	struct in6_addr	laddr;
	struct in6_addr	raddr;
	__be16		lport;
	__be16		rport;
	u32		nonce;
	u16		family;
	int		ifindex;
	__be32		flowlabel;
	__be16		encap_sport;
	__be16		encap_dport;
};

/**
 * struct ndp_skb_cb - per-packet state while a packet is queued by NDP
 * @sent_ns: send queue: ktime_get_ns() of the last transmission (RTO,
 *	RTT samples).
 * @psn: packet sequence number.
 * @offset: receive queue: bytes already read.  Send queue: byte offset of
 *	the packet in the stream (for &ndphdr.prio).
 * @flags: NDP_F_SYN / NDP_F_FIN given at queueing time.
 * @pcsum: payload checksum, computed once when the data was copied in
 *	(or spliced); for @spliced data again at each retransmission
 *	(ndp_send_data()).
 * @sent: transmitted at least once.
 * @resent: transmitted more than once: no RTT sample from it (Karn).
 * @acked: acknowledged (selectively; freed when it reaches the head).
 * @rtx: NACKed (or returned to sender), waiting for a pull to be resent.
 * @path: send queue: path id of the last transmission (0: plain route).
 * @spliced: send queue: the payload includes pages taken by reference
 *	(MSG_SPLICE_PAGES), which their owner may still change.
 */
struct ndp_skb_cb {
	u64		sent_ns;
	u32		psn;
	u32		offset;
	u16		flags;
	__sum16		pcsum;
	u8		sent:1,
			resent:1,
			acked:1,
			rtx:1,
			last:1,
			spliced:1;
	u8		path;
};

#define NDP_SKB_CB(skb)	((struct ndp_skb_cb *)&((skb)->cb[0]))

/**
 * struct ndp_dst_slot - the route of one steered path of a connection
 * @dst: cached route (holds a reference), or NULL.
 * @laddr: @raddr: @mark: @oif: what it was looked up with; a path
 *	re-created with other addresses or a new mark misses.
 * @cookie: IPv6 route cookie for dst->ops->check().
 * @id: path id.
 */
struct ndp_dst_slot {
	struct dst_entry	*dst;
	struct in6_addr		laddr;
	struct in6_addr		raddr;
	u32			mark;
	int			oif;
	u32			cookie;
	u8			id;
};

/**
 * struct ndp_sock_admit - a connection's admission state (admit.c)
 * @unproven: listener: children on its accept queue created by unproven
 *	first windows.
 * @held: child: counted in its listener's @unproven and in
 *	&ndp_admit_net.embryonic while on the accept queue.
 * @echo_ok: active side: @echo_cookie came in a CHALLENGE; every SYN
 *	packet sent from now on echoes it (NDP_F_ECHO).
 * @echo_cookie: that cookie.
 * @token_sent: passive side: the TOKEN was sent.
 * @token_looked: active side: the token cache was consulted ...
 * @token_ok: ... and had @token for the peer's address.
 * @token: that token.
 *
 * Under the socket lock.
 */
struct ndp_sock_admit {
	u32		unproven;
	bool		held;
	bool		echo_ok;
	bool		token_sent;
	bool		token_looked;
	bool		token_ok;
	u32		echo_cookie;
	u32		token;
};

/**
 * struct ndp_rto - a connection's retransmission timeout (timer.c)
 * @timer: the timer (holds a socket reference when armed).
 * @us: current timeout before backoff, microseconds (rtt.c: from the RTT
 *	estimate, or the peer cache, or net.ndp.rto_init_us).
 * @backoff: expiries since the oldest packet in flight was last
 *	acknowledged; the timer waits @us << @backoff (at most
 *	net.ndp.rto_max_us).
 * @late: the timer ran late and was given one more tick.
 * @psn_valid: @psn is set ...
 * @psn: ... to the last packet an expiry resent: an ACK marked NDP_F_DUP
 *	for it shows the expiry was spurious.
 * @retries: expiries since the peer last made progress (acknowledged,
 *	NACKed or validly pulled something of ours).
 * @orphan_rtos: expiries since something was last acknowledged.
 *
 * Under the socket lock; the handler takes it (or defers to
 * ndp_release_cb(): NDP_RTO_DEFERRED).
 */
struct ndp_rto {
	struct timer_list	timer;
	u32			us;
	u8			backoff;
	bool			late;
	bool			psn_valid;
	u32			psn;
	u32			retries;
	u32			orphan_rtos;
};

/**
 * struct ndp_rtt - a connection's RTT estimate (rtt.c)
 * @srtt_us8: smoothed RTT, microseconds times 8 (0: no sample yet).
 * @rttvar_us4: RTT variation, microseconds times 4.
 * @min_us: minimum RTT over the last NDP_MIN_RTT_WIN or so, microseconds
 *	(0: no sample).
 * @min_stamp: jiffies of the sample @min_us came from.
 * @samples: samples taken (Karn's rule: from packets sent once).
 * @last_us: the latest sample, microseconds.
 *
 * Under the socket lock.
 */
struct ndp_rtt {
	u32	srtt_us8;
	u32	rttvar_us4;
	u32	min_us;
	u32	min_stamp;
	u32	samples;
	u32	last_us;
};

/**
 * struct ndp_sock_pull - a receiving connection's place in its pull queue
 * @node: in one of the queue's bands while it has pending pulls.
 * @linked: on @node.
 * @blocked: pulls held back because the receive buffer is full.
 * @mem_out: beyond the protocol memory's pressure limit, a pull is out:
 *	the next one waits for the packet it brings ("Receive memory").
 * @pending: pulls owed to the peer, not yet sent.
 * @bytes: sum of the packet sizes @pending are expected to bring.
 * @pass: the &ndp_pullq.pass in which @pass_n pulls were issued.
 * @pass_n: pulls issued to this connection in that timer expiry.
 * @ctr: pulls sent so far (&ndphdr.pull).
 *
 * Written under the lock of the socket's queue (ndp_sock.pq), reached
 * through ndp_sock_pull() which asserts it; lockless readers use
 * READ_ONCE() and say why.  pull.c only.
 */
struct ndp_sock_pull {
	struct list_head	node;
	bool			linked;
	bool			blocked;
	bool			mem_out;
	u32			pending;
	u64			bytes;
	u32			pass;
	u32			pass_n;
	u32			ctr;
};

/**
 * struct ndp_sock_stats - a connection's own counters
 * @rtx_nack: @rtx_timeout: @rtx_rts: DATA retransmissions by cause
 *	(pulled after a NACK, by the RTO, at once after a return to sender).
 * @rtos: RTO expiries that resent a packet presumed lost.
 * @rto_spurious: RTO expiries found spurious (the peer reported the
 *	packet the timer resent as a duplicate).
 * @acks_rcvd: @nacks_rcvd: @rts_rcvd: feedback on our DATA.
 * @data_rcvd: DATA packets accepted.
 * @trims_rcvd: trimmed headers received.
 * @nacks_sent: NACKs sent.
 *
 * Under the socket lock; NDP_INFO and sock_diag (ndp_get_info()) read
 * them under it too.
 */
struct ndp_sock_stats {
	u32	rtx_nack;
	u32	rtx_timeout;
	u32	rtx_rts;
	u32	rtos;
	u32	rto_spurious;
	u32	acks_rcvd;
	u32	nacks_rcvd;
	u32	rts_rcvd;
	u32	data_rcvd;
	u32	trims_rcvd;
	u32	nacks_sent;
};

/**
 * struct ndp_sock_dasr - a connection's DASR state (dasr.c)
 * @rx: receiver: the DASR entry of the peer while this connection has a
 *	flow counted on it, else NULL.
 * @last_psn: receiver: highest psn seen marked LAST ...
 * @last_valid: ... if any since the flow started.
 * @full: receiver: the DASR table had no room for this window's flow;
 *	not retried before the window ends.
 * @peer_n: sender: the nsenders the peer advertised last.
 *
 * Under the socket lock.
 */
struct ndp_sock_dasr {
	struct ndp_dasr_peer	*rx;
	u32			last_psn;
	bool			last_valid;
	bool			full;
	u16			peer_n;
};

/**
 * struct ndp_sock_snd - a connection's sending side
 * @q: packets from @una on, sent and unsent: an rbtree keyed by
 *	psn (as TCP's retransmission queue), so reports find their packet in
 *	O(log n); walked in psn order with skb_rb_first() / skb_rb_next().
 * @q_len: packets in @q.
 * @head: first never-sent packet in @q, or NULL.
 * @isn: our first psn.
 * @syn_window: packets from @isn on that carry SYN (active side: the
 *	init_window at connect time; passive side: 0).
 * @unsched: packets the current unscheduled window may still push.
 * @unsched_mark: of which the first this many are marked NDP_F_UNSCHED
 *	(eligible for detour, net.ndp.detour_mark).
 * @push_window: packets the last unscheduled window was given (init_window,
 *	or less after DASR).
 * @una: oldest unacknowledged psn.
 * @nxt: psn of the next packet queued by sendmsg.
 * @bytes: bytes queued by sendmsg so far (stream offset).
 * @pull_seen: last pull counter received.
 * @tx_data: DATA packets transmitted so far: the peer issues at most one
 *	pull per packet it receives, so its pull counter never exceeds it.
 * @pulls_owed: estimate of the pulls the peer still owes us: one per
 *	packet newly ACKed or NACKed, minus each pull received (floor 0);
 *	0 again when our LAST is acknowledged (the peer drops what it
 *	owed at LAST).
 * @credit: packets the peer's pulls allow us to send.
 * @peer_room: packets the peer's last ACK, NACK or PULL said it has room
 *	for (NDP_OPT_ROOM), U16_MAX: no limit; new windows and top-ups are
 *	cut to it (room.c).
 * @room_held: a window is held back by a room of 0 (counted once).
 * @probe_hdr: the persist probe being sent goes as its header alone
 *	(the peer's room is 0, room.c); set around ndp_send_credit().
 * @rtx_pending: packets in @q marked for retransmission.
 * @idle: last packet sent carried NDP_F_LAST: new data is pushed again
 *	(once @peer_synced and all sent is acknowledged, see ndp_push()).
 * @topup_held: a packet of this window was NACKed or came back (RTS):
 *	the network or the peer is refusing data, so pulls clock the rest
 *	and the window is not topped up (ndp_window_top_up()) until the
 *	next one starts.
 * @writer_waiting: a sendmsg() sleeps for send buffer space, or the last
 *	one said MSG_MORE: more data is coming, so no packet carries
 *	NDP_F_LAST and the peer keeps pulling (cleared when a write without
 *	MSG_MORE returns or the FIN is queued).
 * @first_sent: the first window went out.
 * @peer_synced: the peer ACKed, NACKed or pulled our data, so it knows our
 *	isn and can place packets without SYN.
 * @fin_queued: a FIN packet is in @q.
 * @fin_acked: our FIN was acknowledged.
 * @heard: jiffies of the peer's last ACK, NACK or PULL (its own data
 *	does not count: it says nothing about the pulls it owes us).
 * @pull_at: jiffies of the last pull counter advance.
 * @pull_gap8: average gap between pulls while waiting for them, jiffies
 *	times 8 (0: no sample yet).
 * @pull_waiting: after the last pull, something was left to send.
 *
 * Under the socket lock; @fin_acked is also read without it (WRITE_ONCE).
 */
struct ndp_sock_snd {
	struct rb_root		q;
	u32			q_len;
	struct sk_buff		*head;
	u32			isn;
	u32			syn_window;
	u32			unsched;
	u32			unsched_mark;
	u32			push_window;
	u32			una;
	u32			nxt;
	u64			bytes;
	u32			pull_seen;
	u32			tx_data;
	u32			pulls_owed;
	u32			credit;
	u16			peer_room;
	bool			room_held;
	bool			probe_hdr;
	u32			rtx_pending;
	bool			idle;
	bool			topup_held;
	bool			writer_waiting;
	bool			first_sent;
	bool			peer_synced;
	bool			fin_queued;
	bool			fin_acked;
	unsigned long		heard;
	unsigned long		pull_at;
	u32			pull_gap8;
	bool			pull_waiting;
};

/**
 * struct ndp_sock_mp - a connection's multipath state (path.c)
 * @round: multipath: the current round, a random permutation of the
 *	usable path ids towards the peer (path.c).
 * @len: entries in @round.
 * @pos: next entry of @round to use; a new round starts at @len.
 * @spray: the connection's flow-label paths, or NULL (path.c); set once
 *	under the socket lock, freed with the socket.
 * @burst: packets the sender is about to send together (a pull's credit,
 *	a pushed window; ndp_path_burst()): each sprayed path takes up to
 *	that many in a row.
 * @stick: packets still to take path @last before the next pick.
 * @last: path of the last new packet picked.
 *
 * Under the socket lock.
 */
struct ndp_sock_mp {
	u8			round[NDP_PATHS_PER_DST];
	u8			len;
	u8			pos;
	u8			burst;
	u8			stick;
	u8			last;
	struct ndp_spray	*spray;
};

/**
 * struct ndp_sock_rcv - a connection's receiving side
 * @nxt: next in-order psn expected.
 * @high: one past the highest psn seen (data or header).
 * @isn_known: the peer's first psn is known (set at creation).
 * @ooo: out-of-order packets, an rbtree keyed by psn.
 * @ooo_last: the highest psn in @ooo (appending after it, the common
 *	case behind one hole, needs no search), or NULL when empty.
 * @ooo_len: packets in @ooo.
 * @fin: the peer's FIN was delivered in order.
 * @hole_nacked: we NACKed @nxt (it will come back when pulled).
 * @tsize: truesize of the last data packet accepted (memory estimate
 *	for the next one).
 * @tsize_max: the largest truesize of a data packet accepted (the
 *	receive room's unit, room.c: a short last packet must not make the
 *	room look larger).
 * @room_adv: the room for pushed data our last ACK, NACK or PULL
 *	advertised, in packets; U16_MAX: no limit (room.c).
 * @bytes_read: bytes the application read.
 *
 * Under the socket lock; @nxt is also read by the pull clock without it
 * (WRITE_ONCE/READ_ONCE).
 */
struct ndp_sock_rcv {
	u32			nxt;
	u32			high;
	bool			isn_known;
	struct rb_root		ooo;
	struct sk_buff		*ooo_last;
	u32			ooo_len;
	bool			fin;
	bool			hole_nacked;
	u32			tsize;
	u32			tsize_max;
	u16			room_adv;
	u64			bytes_read;
};

/**
 * struct ndp_delack - an ACK held to ride on our next DATA (delack.c)
 * @timer: softirq hrtimer sending it alone when the hold runs out; holds
 *	a socket reference while queued.
 * @skb: the held ACK, built when it was held (its cb's sent_ns: when the
 *	DATA it reports arrived); whoever takes it (xchg()) sends it: our
 *	DATA under the socket lock, or the timer without it.
 * @allow_us: what our DATA lets the peer hold its ACKs for (&ndphdr.acks
 *	of our last DATA): added to our retransmission timeout.
 */
struct ndp_delack {
	struct hrtimer	timer;
	struct sk_buff	*skb;
	u16		allow_us;
};

/**
 * struct ndp_ack_batch - the ACK owed for a run of DATA received at once
 * @psn: last psn of the run.
 * @n: psns in the run (0: nothing owed).
 * @path: path they all came on.
 * @ce: they all arrived marked CE (or all unmarked).
 * @ctr: the pull counter to send if @pull (the latest one: pulls are
 *	cumulative).
 * @pull: a pull rides on the ACK.
 * @ready: data was queued for the reader: wake it once, at the end.
 *
 * A batch from GRO (ndp_rcv_list()) is answered by one ACK per run of
 * consecutive psns, whose &ndphdr.acks tells the sender how many psns it
 * reports: the sender still learns of every packet, at once, as the
 * paper asks, but from one packet per batch instead of one per packet.
 * So is what waited in a socket's backlog (&ndp_sock.bl_ab): its owner
 * runs it in one go, ndp_backlog_done() answers it when that is over.
 */
struct ndp_ack_batch {
	u32	psn;
	u32	ctr;
	u16	n;
	u8	path;
	bool	ce;
	bool	pull;
	bool	ready;
};

/**
 * struct ndp_sock - an NDP socket
 * @inet: inet_sock base; must be first.
 * @bind_node: in &ndp_hash_net.bind_hash while @bound.
 * @conn_node: in &ndp_hash_net.conn_ht while @hashed.
 * @conn_any_node: in &ndp_hash_net.conn_any_ht while @any_hashed.
 * @conn_tuple_node: in &ndp_hash_net.conn_tuple_ht while @hashed.
 * @conn_list_node: in &ndp_hash_net.conn_list while @hashed.
 * @bound: owns its local port in the bind table.
 * @hashed: reachable by received packets (holds a socket reference).
 * @any_hashed: also reachable by ports and nonce alone.
 * @user_seen: an application holds or held the socket (connect() or
 *	accept()): when it ends, time-wait protects what it delivered.
 * @orphan: closed by the application, counted in &ndp_net.orphans.
 * @dead: torn down; nothing may be queued or armed any more.
 * @passive: created by a peer's first window (responder): our DATA
 *	carries NDP_F_PASSIVE.
 * @addr_ok: the peer proved it receives what we send to its address: it
 *	reported on a psn of ours, which it can only know from our packets
 *	(always true on the active side).  Until then a passive connection
 *	sends at most net.ndp.amp_factor times what it received.
 * @amp_rx: bytes received from the peer while !@addr_ok.
 * @amp_tx: DATA bytes sent to the peer while !@addr_ok.
 * @amp_blocked: the bound held a packet back; the next packet from the
 *	peer tries again.
 * @born: jiffies the connection was created (embryonic timeout).
 * @admit: admission state (admit.c).
 * @nonce: connection nonce (0 until connected).
 * @flow: addresses, ports and nonce of the connection (set once connected;
 *	immutable afterwards, so readable without the socket lock).
 * @mss: payload bytes per packet.
 * @dst_cookie: IPv6 route cookie of the plain route in sk_dst_cache.
 * @dst_lock: protects @dst_slots.
 * @dst_slots: routes of steered paths (multipath), by id modulo
 *	NDP_DST_SLOTS; released when the socket is destroyed.
 * @accept_q: listener: children not yet accepted, oldest first (its
 *	length is sk_ack_backlog).  Child: entry.
 * @parent: child: the listener while queued for accept.
 * @snd: the sending side (output.c, input.c for the reports).
 * @mp: multipath state (path.c).
 * @rto: retransmission timeout (timer.c).
 * @rtt: RTT estimate (rtt.c).
 * @ever_acked: something we sent was acknowledged (RST -> ECONNRESET).
 * @ever_heard: the peer sent us something other than an RST (idem).
 * @rcv: the receiving side (input.c, sock.c for recvmsg()).
 * @delack: an ACK held to ride on our DATA (delack.c).
 * @ifindex: device the peer's data arrives on (picks the pull queue).
 * @pq: pull queue, set on first use, changed under the socket lock and
 *	the old queue's lock; RCU for lockless readers (pull.c).
 * @pull: the receiver's pulls, under the lock of @pq (pull.c).
 * @st: per-connection counters (NDP_INFO, sock_diag).
 * @dasr: DASR state (dasr.c).
 *
 * @bl_ab: the ACK owed for the DATA its owner ran from the backlog
 *	(ndp_backlog_rcv()), sent by ndp_backlog_done() once the backlog is
 *	run; the owner's only.
 * @deferred: work a timer or the pull clock found the socket owned by a
 *	user for (NDP_*_DEFERRED bits, each holding a socket reference),
 *	done by ndp_release_cb() when the owner releases the socket.
 * @pull_defer_ctr: the pull counter of the PULL deferred by
 *	NDP_PULL_DEFERRED (the latest: pull counters are cumulative).
 *
 * Everything is under the socket lock (ndp_sock_assert_locked()) unless
 * its line, or its sub-structure's comment, says otherwise.
 */
struct ndp_sock {
	struct inet_sock	inet;
	struct ndp_ack_batch	bl_ab;
	unsigned long		deferred;	/* NDP_*_DEFERRED bits */
	u32			pull_defer_ctr;
	struct hlist_node	bind_node;
	struct rhash_head	conn_node;
	struct rhash_head	conn_any_node;
	struct rhlist_head	conn_tuple_node;
	struct list_head	conn_list_node;
	bool			bound;
	bool			hashed;
	bool			any_hashed;
	bool			user_seen;
	bool			orphan;
	bool			dead;
	bool			passive;
	bool			addr_ok;
	bool			amp_blocked;
	u64			amp_rx;
	u64			amp_tx;
	unsigned long		born;
	struct ndp_sock_admit	admit;
	u32			nonce;
	struct ndp_flow		flow;
	u32			mss;
	u32			dst_cookie;
	spinlock_t		dst_lock;	/* dst_slots */
	struct ndp_dst_slot	dst_slots[NDP_DST_SLOTS];

	struct list_head	accept_q;
	struct sock		*parent;

	struct ndp_sock_snd	snd;
	struct ndp_sock_mp	mp;
	struct ndp_rto		rto;
	struct ndp_rtt		rtt;

	bool			ever_acked;
	bool			ever_heard;
	struct ndp_sock_rcv	rcv;
	struct ndp_delack	delack;

	int			ifindex;
	struct ndp_pullq __rcu	*pq;
	struct ndp_sock_pull	pull;

	struct ndp_sock_stats	st;

	struct ndp_sock_dasr	dasr;
};

/* ipv6_pinfo must be last: 6.1 finds it from the end of the object. */
struct ndp6_sock {
	struct ndp_sock		ndp;
	struct ipv6_pinfo	inet6;
};

static inline struct ndp_sock *ndp_sk(const struct sock *sk)
{
	return (struct ndp_sock *)sk;
}

/*
 * Whether the connection of @sk speaks IPv4 on the wire: an AF_INET
 * socket, or an AF_INET6 one whose peer is an IPv4-mapped address (dual
 * stack, as TCP's ipv6_mapped: such a socket keeps both the mapped
 * sk_v6_* addresses and the inet_* IPv4 ones, and its &ndp_sock.flow is
 * that of an IPv4 connection).
 */
static inline bool ndp_sk_v4(const struct sock *sk)
{
	return sk->sk_family == AF_INET ||
	       ipv6_addr_v4mapped(&sk->sk_v6_daddr);
}

/*
 * The socket lock is held, by either of its two kinds of owner: a user
 * (lock_sock(), also while it runs the backlog and ndp_release_cb()) or
 * softirq and timers (bh_lock_sock(), on a socket no user owns).  Every
 * function that reads or writes a connection's send, receive or path
 * state asserts it, so that lockdep checks the contract its comment
 * states.
 */
static inline void ndp_sock_assert_locked(const struct sock *sk)
{
	lockdep_assert(lockdep_sock_is_held(sk));
}

/*
 * Work softirq or a timer leaves to the user owning the socket; each set
 * bit holds a socket reference (ndp_release_cb() drops it).
 */
enum {
	NDP_RTO_DEFERRED,	/* the RTO timer expired (timer.c) */
	NDP_PULL_DEFERRED,	/* a PULL is to be sent (pull.c) */
	NDP_ABORT_DEFERRED,	/* reset an unaccepted child (sock.c) */
};

/*
 * What a packet waiting in a socket's backlog needs besides itself,
 * behind struct ndp_skb_cb in skb->cb (input.c).
 */
struct ndp_backlog_cb {
	u32	psn;		/* ICMP: the quoted psn */
	u32	mtu;		/* ICMP: the path MTU reported, or 0 */
	int	err;		/* ICMP: the error reported, or 0 */
	u16	proof;		/* listener: ndp_rcv_proof() */
	u8	kind;		/* NDP_BL_* */
	u8	corrupt:1,	/* DATA with a bad payload checksum */
		opened:1;	/* the packet that created the connection */
	__be16	encap_dport;	/* listener: &ndp_flow.encap_dport */
};

enum {
	NDP_BL_CONN,		/* a packet of the connection */
	NDP_BL_LISTEN,		/* a first-window packet for a listener */
	NDP_BL_ICMP4,		/* an ICMP error quoting our packet (a clone) */
	NDP_BL_ICMP6,
};

#define NDP_BACKLOG_CB_OFF	ALIGN(sizeof(struct ndp_skb_cb), 8)
/* Backlog room beyond the socket's buffers (tcp_add_backlog()'s 64 KB). */
#define NDP_BACKLOG_SLACK	(64 * 1024)
/*
 * Beyond that, room for headers only (shed DATA, control packets).  The
 * backlog's length only returns to 0 once __release_sock() has run all
 * of it, so what arrives while it runs counts on top of what it runs.  A
 * header costs about 832 bytes of truesize (x86-64): 256 KB hold some
 * 300.  64 KB (78 headers) ran out in backlog.sh on a debug kernel, whose
 * backlog runs slowly (BacklogDrop 1 beside 75 shed).
 */
#define NDP_BACKLOG_SHED_SLACK	(256 * 1024)
/* A system call lets the backlog in every so many packets it queues. */
#define NDP_FLUSH_PKTS		16
#define NDP_BACKLOG_CB(skb) \
	((struct ndp_backlog_cb *)&((skb)->cb[NDP_BACKLOG_CB_OFF]))

/* Serial number arithmetic on psns and pull counters. */
static inline bool ndp_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool ndp_after(u32 a, u32 b)
{
	return ndp_before(b, a);
}

/*
 * NDP_F_SYN if packet @psn lies within the first window of the connection
 * (its psn - isn is the syn_off it carries), else 0.
 */
static inline u16 ndp_syn_flag(const struct ndp_sock *nsk, u32 psn)
{
	return psn - nsk->snd.isn < nsk->snd.syn_window ? NDP_F_SYN : 0;
}

/*
 * Send and out-of-order queues: rbtrees of packets keyed by psn; every
 * psn in one tree lies within 2^31 of the others, so serial number order
 * is a total order on them.
 */
bool ndp_rb_insert(struct rb_root *root, struct sk_buff *skb);
struct sk_buff *ndp_rb_find(const struct rb_root *root, u32 psn);

/* ctrl.c */
int ndp_ctrl_net_init(struct net *net, struct ndp_net *nn);
void ndp_ctrl_net_exit(struct net *net, struct ndp_net *nn);

/**
 * struct ndp_path - one path of the namespace (NDP_CMD_PATH_ADD)
 * @node: in &ndp_path_net.paths (RCU), or in &ndp_spray.head.
 * @rcu: deferred free.
 * @id: path id, carried in &ndphdr.path.
 * @family: AF_INET or AF_INET6 (of all addresses below).
 * @dst: peer prefix the path applies to (v4-mapped for IPv4).
 * @dst_plen: prefix length, in bits of the family's address.
 * @via_dst: alternative destination that steers through one spine, or any.
 * @via_src: alternative source address, or any.
 * @fwmark: routing mark for the path's packets (0: none).
 * @excluded_until: jiffies until which the scoreboard excludes the path;
 *	0 while usable.  Set and cleared with cmpxchg() (path.c).
 * @acks: @nacks: @rtos: @rts: @ces: scoreboard counts, netns-wide (all
 *	connections using the path), halved every net.ndp.sb_decay_ms and
 *	zeroed when an excluded path is re-admitted.
 * @decay_stamp: jiffies of the last halving.
 * @exclusions: times the scoreboard excluded the path (never decayed).
 * @tx: DATA packets sent on the path, retransmissions included (never
 *	decayed, wraps at 2^32).
 * @rtx: of which retransmissions.
 * @flowlabel: a flow-label path of one connection (struct ndp_spray): the
 *	IPv6 flow label its packets carry (network order, 20 bits, never
 *	0); 0 for a configured path.
 */
struct ndp_path {
	struct list_head	node;
	struct rcu_head		rcu;
	u32			id;
	u16			family;
	struct in6_addr		dst;
	u8			dst_plen;
	struct in6_addr		via_dst;
	struct in6_addr		via_src;
	u32			fwmark;
	unsigned long		excluded_until;
	atomic_t		acks;
	atomic_t		nacks;
	atomic_t		rtos;
	atomic_t		rts;
	atomic_t		ces;
	unsigned long		decay_stamp;
	atomic_t		exclusions;
	atomic_t		tx;
	atomic_t		rtx;
	__be32			flowlabel;
	__be16			encap_sport;
};

/**
 * struct ndp_spray - the flow-label paths of one connection (path.c)
 * @head: @path linked in id order, walked like &ndp_path_net.paths.
 * @n: entries in @path.
 * @path: ids 1..@n, each with its own label and scoreboard.
 */
struct ndp_spray {
	struct list_head	head;
	u8			n;
	struct ndp_path		path[];
};

/* ctrl.c: the knobs, also for netlink (NDP_CMD_PARAM_*). */
struct ndp_param {
	const char	*name;
	size_t		offset;		/* into struct ndp_net */
	u32		min;
	u32		max;
};

bool ndp_ctrl_param(unsigned int i, struct ndp_param *p);
int ndp_ctrl_param_write(struct net *net, const struct ndp_param *p, u32 val);
bool ndp_ctrl_param_find(const char *name, struct ndp_param *p);

/* netlink.c */
int ndp_nl_init(void);
void ndp_nl_exit(void);
void ndp_nl_path_event(struct net *net, const struct ndp_path *p, u8 cmd);
extern const char * const ndp_mib_names[NDP_MIB_MAX];

/* proc.c */
int ndp_proc_net_init(struct net *net);
void ndp_proc_net_exit(struct net *net);

/* hash.c */
int ndp_hash_net_init(struct ndp_net *nn);
void ndp_hash_net_exit(struct ndp_net *nn);
int ndp_get_port(struct sock *sk, unsigned short snum);
void ndp_unbind(struct sock *sk);
int ndp_listen_start(struct sock *sk);
void ndp_listen_stop(struct sock *sk);
void ndp_sk_flow(const struct sock *sk, struct ndp_flow *fl);
int ndp_conn_hash(struct sock *sk);
void ndp_conn_hash_any(struct sock *sk);
u32 ndp_flow_hashfn(const void *data, u32 len, u32 seed);
u32 ndp_any_hashfn(const void *data, u32 len, u32 seed);
int ndp_conn_batch(struct ndp_net *nn, unsigned long *pos,
		   struct sock **batch, int n);
int ndp_bind_batch(struct ndp_net *nn, unsigned long *pos,
		   struct sock **batch, int n);
void ndp_conn_unhash(struct sock *sk);
/* The flow of a received IPv4 packet, from its receiver's side. */
static inline void ndp_flow_rcv_v4(struct ndp_flow *fl, const struct iphdr *iph,
				   const struct ndphdr *nh)
{
	memset(fl, 0, sizeof(*fl));
	fl->family = AF_INET;
	ipv6_addr_set_v4mapped(iph->daddr, &fl->laddr);
	ipv6_addr_set_v4mapped(iph->saddr, &fl->raddr);
	fl->lport = nh->dest;
	fl->rport = nh->source;
	fl->nonce = ntohl(nh->nonce);
}

/* The flow of a received IPv6 packet, from its receiver's side. */
static inline void ndp_flow_rcv_v6(struct ndp_flow *fl,
				   const struct ipv6hdr *ip6h,
				   const struct ndphdr *nh)
{
	memset(fl, 0, sizeof(*fl));
	fl->family = AF_INET6;
	fl->laddr = ip6h->daddr;
	fl->raddr = ip6h->saddr;
	fl->lport = nh->dest;
	fl->rport = nh->source;
	fl->nonce = ntohl(nh->nonce);
}

struct sock *ndp_conn_lookup(struct net *net, const struct ndp_flow *fl);
struct sock *ndp_conn_lookup_any(struct net *net, const struct ndp_flow *fl);
struct sock *ndp_conn_find(struct net *net, const struct ndp_flow *key,
			   bool (*match)(struct sock *sk, const void *arg),
			   const void *arg);
struct sock *ndp_bound_find(struct net *net, u16 port,
			    bool (*match)(struct sock *sk, const void *arg),
			    const void *arg);
bool ndp_flow_match(const struct ndp_flow *a, const struct ndp_flow *b);
struct sock *ndp_listener_lookup(struct net *net, const struct ndp_flow *fl,
				 struct sk_buff *skb);

/* sock.c */
extern struct proto ndp_prot;
extern long sysctl_ndp_mem[3];
void ndp_mem_init(void);
void ndp_encap_seed_init(void);
void ndp_hash_seed_init(void);
extern struct proto ndpv6_prot;
void ndp_proto_v6_init(void);
extern const struct proto_ops ndp_inet_ops;
extern const struct proto_ops ndp_inet6_ops;
int ndp_accept_common(struct socket *sock, struct socket *newsock, int flags,
		      bool kern);
void ndp_sock_init_state(struct sock *sk);
void ndp_done(struct sock *sk, struct sk_buff_head *xmitq);
void ndp_set_error(struct sock *sk, int err, struct sk_buff_head *xmitq);
void ndp_try_finish(struct sock *sk, struct sk_buff_head *xmitq);
void ndp_abort_child(struct sock *sk);
void ndp_release_cb(struct sock *sk);
void ndp_abort(struct sock *sk, struct sk_buff_head *xmitq);
void ndp_get_info(struct sock *sk, struct ndp_info *info, bool secrets);
int ndp_diag_destroy_sk(struct sock *sk, int err);

/* encap.c: NDP carried in UDP, where the kernel has UDP tunnels. */
#if IS_ENABLED(CONFIG_NET_UDP_TUNNEL)
int ndp_encap_set_port(struct net *net, u32 port);
int ndp_encap_net_init(struct ndp_net *nn);
void ndp_encap_net_exit(struct ndp_net *nn);
void ndp_encap_net_free(struct ndp_net *nn);
__be16 ndp_encap_sport(const struct ndp_flow *fl);
__be16 ndp_encap_sport_random(void);
__be16 ndp_encap_rport(struct net *net, __be16 sport);
void ndp_encap_xmit(struct sock *sk, const struct ndp_flow *fl,
		    struct dst_entry *dst, struct sk_buff *skb, __be16 dport,
		    u8 tos);
#else
static inline int ndp_encap_set_port(struct net *net, u32 port)
{
	return port ? -EOPNOTSUPP : 0;
}

static inline int ndp_encap_net_init(struct ndp_net *nn)
{
	return 0;
}

static inline void ndp_encap_net_exit(struct ndp_net *nn) {}
static inline void ndp_encap_net_free(struct ndp_net *nn) {}

static inline __be16 ndp_encap_sport(const struct ndp_flow *fl)
{
	return 0;
}

static inline __be16 ndp_encap_sport_random(void)
{
	return 0;
}

static inline void ndp_encap_xmit(struct sock *sk,
				  const struct ndp_flow *fl,
				  struct dst_entry *dst, struct sk_buff *skb,
				  __be16 dport, u8 tos)
{
	dst_release(dst);
	kfree_skb(skb);
}
#endif

/* plumbing.c */
int ndp_v4_rcv(struct sk_buff *skb);
int ndp_v6_rcv(struct sk_buff *skb);
int ndp_udp_rcv(struct sk_buff *skb, __be16 rport);
int ndp_l3mdev_oif(struct net *net, int ifindex);
void ndp_err(struct sk_buff *skb, struct net *net, struct ndp_flow *fl,
	     const struct ndphdr *q, u32 mtu, int err);
void ndp_v4_icmp(struct sk_buff *skb, unsigned int off, u32 info);
void ndp_v6_icmp(struct sk_buff *skb, u8 type, u8 code, unsigned int off,
		 __be32 info);

/* input.c */
int ndp_rcv(struct sk_buff *skb, struct ndp_flow *fl);
int ndp_backlog_rcv(struct sock *sk, struct sk_buff *skb);
void ndp_err_backlog(struct sock *sk, struct sk_buff *skb);
bool ndp_add_backlog(struct sock *sk, struct sk_buff *skb);
void ndp_backlog_done(struct sock *sk);
int ndp_rcv_list(struct sk_buff *skb, struct sk_buff *list,
		 struct ndp_flow *fl, bool gro);
bool ndp_rcv_icmp(struct sock *sk, u32 psn, u32 mtu, int err,
		  struct sk_buff_head *xmitq);
void ndp_purge_ooo(struct ndp_sock *nsk);

/* offload.c */
int ndp_offload_init(void);
void ndp_offload_exit(void);
u32 ndp_batch_ok(const struct sk_buff *skb);
struct sk_buff *ndp_gro_unbatch(struct sk_buff *skb, bool *freed, bool *gro);

/* output.c */
int ndp_copy_csum_from_iter(struct sock *sk, struct sk_buff *skb,
			    struct iov_iter *from, u32 len, u32 *copied);
int ndp_splice_from_iter(struct sock *sk, struct sk_buff *skb,
			 struct iov_iter *from, int msg_flags, u32 len,
			 u32 *copied);
u32 ndp_mss_for(struct sock *sk, u32 mtu);
int ndp_route_mtu(struct sock *sk, u32 *mtu);
bool ndp_peer_is_unicast(struct net *net, const struct ndp_flow *fl);
void ndp_xmit_queue(struct sock *sk, struct sk_buff_head *xmitq);
struct sk_buff *ndp_ctrl_skb(struct sock *sk, u8 type, u16 flags, u32 psn);
void ndp_send_challenge(struct net *net, const struct ndp_flow *fl, u32 psn,
			u32 cookie);
int ndp_ctl_sk_init(struct net *net, struct ndp_net *nn);
void ndp_ctl_sk_exit(struct ndp_net *nn);
void ndp_send_reply(struct net *net, const struct ndp_flow *fl, u8 type,
		    u32 psn, u32 cum);
void ndp_push(struct sock *sk, struct sk_buff_head *xmitq);
bool ndp_expects_pull(const struct ndp_sock *nsk);
void ndp_send_credit(struct sock *sk, struct sk_buff_head *xmitq);
bool ndp_oldest_unreported(struct ndp_sock *nsk, u64 *sent_ns);
int ndp_resend_unacked(struct sock *sk, struct sk_buff_head *xmitq, u32 max,
		       u64 cutoff_ns);
void ndp_clean_acked(struct sock *sk);
void ndp_resend_now(struct sock *sk, struct sk_buff *skb,
		    struct sk_buff_head *xmitq);
void ndp_recut_unsent(struct sock *sk, struct sk_buff *from);
void ndp_purge_sndq(struct sock *sk);
void ndp_dst_release_all(struct sock *sk);

/* path.c */

/* What the scoreboard of a path learns about one packet. */
enum ndp_path_fb {
	NDP_PATH_FB_ACK,
	NDP_PATH_FB_NACK,
	NDP_PATH_FB_RTS,
	NDP_PATH_FB_RTO,
	NDP_PATH_FB_CE,
};

int ndp_path_net_init(struct ndp_net *nn);
void ndp_path_net_exit(struct ndp_net *nn);
void ndp_paths_lock(struct ndp_net *nn);
void ndp_paths_unlock(struct ndp_net *nn);
struct ndp_path *ndp_path_find(struct ndp_net *nn, u32 id);
void ndp_path_insert(struct ndp_net *nn, struct ndp_path *p);
void ndp_path_remove(struct ndp_net *nn, struct ndp_path *p);
struct ndp_path *ndp_path_next_rcu(struct ndp_net *nn, struct ndp_path *p);
void ndp_path_burst(struct sock *sk, u32 n);
u8 ndp_path_pick(struct sock *sk, u8 avoid, bool syn);
void ndp_path_sent(struct sock *sk, u8 id, bool rtx);
bool ndp_path_steer(struct sock *sk, u8 id, const struct ndp_flow *fl,
		    struct ndp_flow *out, u32 *mark);
void ndp_path_spray_free(struct sock *sk);
void ndp_path_feedback(struct sock *sk, u8 id, enum ndp_path_fb fb);
bool ndp_path_mostly_acks(struct sock *sk, u8 id);

/* pull.c */
int ndp_pull_net_init(struct ndp_net *nn);
void ndp_pull_net_exit(struct ndp_net *nn);
int ndp_pull_init(void);
void ndp_pull_exit(void);
void ndp_pull_rcv_dev(struct sock *sk, int ifindex);
void ndp_pull_sk_destruct(struct sock *sk);
bool ndp_pull_enqueue(struct sock *sk, bool want_pullack, u32 bytes,
		      u32 *pull_ctr);
void ndp_pull_trim(struct sock *sk, u32 keep);
void ndp_pull_detach(struct sock *sk);
void ndp_pull_unblock(struct sock *sk);
void ndp_pull_answered(struct sock *sk);
/* The pull fields of a socket, read under its queue's lock. */
struct ndp_pull_snap {
	u32	pending;
	u32	ctr;
	bool	blocked;
	bool	linked;
};

void ndp_pull_snapshot(struct sock *sk, struct ndp_pull_snap *snap);
void ndp_pull_deferred(struct sock *sk, struct sk_buff_head *xmitq);
bool ndp_rcv_has_room(const struct sock *sk);

/* delack.c */
void ndp_delack_init(struct sock *sk);
bool ndp_delack_hold(struct sock *sk, u32 psn, u8 path, bool ce,
		     u16 allowed_us, struct sk_buff_head *xmitq);
void ndp_delack_flush(struct sock *sk, struct sk_buff_head *xmitq);
u8 ndp_delack_push(struct sock *sk, struct sk_buff *skb,
		   struct sk_buff_head *xmitq);
struct sk_buff *ndp_delack_take(struct sock *sk);
u16 ndp_delack_allow(struct sock *sk);
void ndp_delack_stop(struct sock *sk);
int ndp_delack_of(const struct ndphdr *nh, struct ndphdr *ack);

/* room.c */
void ndp_room_advertise(struct sock *sk, struct sk_buff *skb);
u16 ndp_room_now(const struct sock *sk);
bool ndp_room_put(struct sock *sk, u16 room, u8 *p);
u16 ndp_room_of(const struct ndphdr *nh);
u32 ndp_room_cut(struct sock *sk, u32 want);
void ndp_room_update(struct sock *sk);
s64 ndp_room_ooo_bound(const struct sock *sk);

/* dasr.c */
int ndp_dasr_net_init(struct ndp_net *nn);
void ndp_dasr_net_exit(struct ndp_net *nn);
void ndp_dasr_rcv(struct sock *sk, u32 psn, u16 flags);
void ndp_dasr_rcv_done(struct sock *sk);
void ndp_dasr_sock_release(struct sock *sk);
u16 ndp_dasr_nsenders(struct net *net);
u16 ndp_dasr_advertised(struct net *net);
void ndp_dasr_heard(struct sock *sk, u16 n);
u32 ndp_dasr_window(struct sock *sk, u32 iw);

/* rtt.c */
int ndp_peer_net_init(struct ndp_net *nn);
void ndp_peer_net_exit(struct ndp_net *nn);
void ndp_rtt_init(struct sock *sk);
void ndp_rtt_sample(struct sock *sk, u64 sent_ns, u32 delay_us);
void ndp_rtt_save(struct sock *sk);
u32 ndp_rto_backed_off_us(const struct sock *sk);
unsigned long ndp_rto_timeout(const struct sock *sk);
/* admit.c */
enum ndp_admit_verdict {
	NDP_ADMIT_OPEN,
	NDP_ADMIT_CHALLENGE,
	NDP_ADMIT_DROP,
};

int ndp_admit_net_init(struct ndp_net *nn);
void ndp_admit_net_exit(struct ndp_net *nn);
bool ndp_admit_token_ok(struct net *net, const struct ndp_flow *fl, u32 token);
void ndp_admit_send_token(struct sock *sk, struct sk_buff_head *xmitq);
void ndp_admit_token_store(struct net *net, const struct ndp_flow *fl,
			   u32 token);
u16 ndp_admit_tx_flags(struct sock *sk);
void ndp_admit_tx_fill(struct sock *sk, struct ndphdr *nh, u16 flags);
bool ndp_admit_echo_ok(struct net *net, const struct ndp_flow *fl, u32 cookie);
enum ndp_admit_verdict ndp_admit_check(struct sock *lsk, u16 proof);
void ndp_admit_queued(struct sock *lsk, struct ndp_sock *child, u16 proof);
void ndp_admit_dequeued(struct sock *lsk, struct ndp_sock *child);
void ndp_admit_challenge(struct net *net, const struct sk_buff *skb,
			 const struct ndp_flow *fl);

/* timer.c */
void ndp_timer_init(struct sock *sk);
void ndp_rto_arm(struct sock *sk);
void ndp_rto_stop(struct sock *sk);
void ndp_rto_deferred(struct sock *sk, struct sk_buff_head *xmitq);
void ndp_embryonic_arm(struct sock *lsk, unsigned long born);

/* timewait.c */
int ndp_tw_net_init(struct ndp_net *nn);
void ndp_tw_net_exit(struct ndp_net *nn);
void ndp_tw_add(struct sock *sk);

/**
 * struct ndp_tw_diag - a time-wait record as a sock_diag dump reports it
 * @fl: the connection's 4-tuple, nonce, family and interface.
 * @sock_family: the family of the socket the connection had: AF_INET6 for
 *	an IPv4 connection of an IPv6 socket (v4-mapped addresses), which
 *	dumps report as TCP reports its time-wait sockets.
 * @cookie: the socket cookie the connection had (0 if none was made).
 * @expires: jiffies at which the record ends.
 * @id: the record's id (&ndp_tw_net.next_id), for resuming a dump.
 */
struct ndp_tw_diag {
	struct ndp_flow	fl;
	u16		sock_family;
	u64		cookie;
	unsigned long	expires;
	unsigned long	id;
};

int ndp_tw_batch(struct ndp_net *nn, unsigned long *pos,
		 struct ndp_tw_diag *batch, int n);
bool ndp_tw_rcv(struct net *net, struct sk_buff *skb,
		const struct ndp_flow *fl);

/*
 * Freeing a received or queued packet: with a drop reason
 * (Documentation/networking/ndp.rst, "Drop reasons"), or NDP_SKB_CONSUMED
 * for one that was handled (consume_skb(), no drop is reported).
 */
#define NDP_SKB_CONSUMED	SKB_NOT_DROPPED_YET

static inline void ndp_skb_free(struct sock *sk, struct sk_buff *skb,
				enum skb_drop_reason reason)
{
	if (reason == NDP_SKB_CONSUMED)
		consume_skb(skb);
	else
		ndp_compat_skb_drop(sk, skb, reason);
}

/* Tracepoints (include/trace/events/ndp.h, created in trace.c). */
#include <trace/events/ndp.h>

#endif /* _NDP_PROTOCOL_H */
