// SPDX-License-Identifier: GPL-2.0
/*
 * NDP switch port: trimming, header priority, return to sender, link-rate
 * emulation, pFabric.
 *
 * This qdisc makes the egress port of a Linux router or bridge behave like
 * a port of the switches described in the NDP paper (SIGCOMM 2017, §3.1),
 * so that a fabric of network namespaces joined by veth pairs reproduces
 * NDP's behaviour.  The full description, with every option and counter,
 * is Documentation/networking/ndp-sched.rst.
 *
 * Queues.  Each packet is classified once, at enqueue:
 *
 *  - header queue: NDP control packets (ACK, NACK, PULL, RST) and DATA
 *    packets already trimmed.  Limit @hlimit (default 2 x @limit).
 *  - data queue: NDP DATA packets with their payload.  Limit @limit
 *    packets (default 8, the paper's value).
 *  - other queue: everything else (TCP, UDP, ICMP, ARP, ND, fragments,
 *    malformed NDP), a plain FIFO of @olimit packets.
 *
 * NDP is recognised by the IP protocol number (module parameter ipproto,
 * which must match ndp.ko's) directly after a VLAN-free IPv4 header (not
 * a fragment) or a fixed IPv6 header without extension headers.  Every
 * length from the wire is checked against the packet before use: the
 * header with its options (doff) must lie within the IP packet, and a
 * header-class packet must carry no payload, else the packet is other
 * traffic.
 *
 * NDP over UDP.  With @udp_port set, a UDP datagram to that destination
 * port (IPv4 not a fragment, or directly after the IPv6 fixed header)
 * whose UDP length is exactly the IP payload length and whose payload
 * passes the same checks is NDP too, for every purpose below: the UDP
 * header only moves the NDP header 8 bytes further (cb->thoff) and marks
 * the packet (cb->encap) so that trimming also fixes the UDP length and
 * diverted packets are routed as UDP.  The flow hash uses the NDP ports,
 * never the UDP source port (path entropy: a sprayed connection stays
 * one flow).  The NDP header checksum's pseudo-header names ipproto, not
 * UDP (in UDP without the addresses, so that NATs leave it valid), and
 * the incremental updates below keep it valid either way; they also
 * leave the sum of the NDP header unchanged, hence any UDP checksum over
 * it.  The UDP checksum may be 0 (older senders, RFC 6935/6936), set,
 * or left to the device (CHECKSUM_PARTIAL at the UDP header: an NDP
 * sender on this host, over veth); trimming computes a non-zero or
 * device-left one over what is left, in both families, and a zero one
 * stays zero.  A UDP GSO datagram to the port (an NDP sender's batch in
 * UDP) is cut into its packets first, as native batches are (below).
 *
 * Enqueue.  A DATA packet that finds the data queue full does not get
 * dropped: with probability @trim_prob percent the arrival is trimmed,
 * otherwise the packet at the tail is and the arrival takes its place.
 * Trimming cuts the payload after the NDP header and its options (doff),
 * sets NDP_F_TRIMMED (the header checksum is updated incrementally, it
 * does not cover the payload), fixes the IP length (and the IPv4 header
 * checksum) and moves the packet to the header queue.  A header that
 * finds the header queue full is returned to its sender when @rts is on:
 * IP (and Ethernet) source and destination are swapped, NDP_F_RTS is set,
 * the packet is scrubbed like a looped-back one (dev_forward_skb()) and
 * re-enters the switch's stack as if the receiver had sent it on this
 * port (eth_type_trans(), netif_rx()), so the normal forwarding path, IP
 * or bridge, takes it back towards the sender, outside our lock.  Only
 * DATA headers that were not already returned are bounced; anything
 * else, or everything when @rts is off, is dropped.
 *
 * Trimming conventions of current switches (SAI, SONiC).  With
 * @trim_size set a trim keeps that many bytes of IP packet instead of the
 * headers alone, and a trimmed DATA packet no longer than @trim_size is a
 * header here (else, as with header-only trimming, other traffic).  With
 * @trim_dscp_host / @trim_dscp_fabric set, the port re-marks the packets
 * it trims with the DSCP of its role (@hostport), so that the receiver
 * can tell a last-hop trim from a fabric trim.  With @ce_thresh set, ECT
 * packets that join the data or the other queue at that length or more
 * are marked CE (never trimmed ones or headers).
 *
 * Dequeue.  Two classes share the link by deficit round robin by bytes
 * (@quantum): NDP (header + data queue) and other traffic, so TCP
 * coexists with NDP.  Within NDP, weighted round robin sends @wrr headers
 * for each data packet while both queues are backlogged, so headers go
 * first but cannot starve data.
 *
 * pFabric mode.  The data queue becomes a priority buffer keyed by
 * ndphdr.prio (remaining bytes of the flow; lower is more urgent).  When
 * it is full, the least urgent packet is evicted (trimmed) unless the
 * arrival is no more urgent than it (ties lose), in which case the arrival
 * is trimmed.  Dequeue picks the most urgent packet and sends the earliest
 * arrived packet of the same flow (5-tuple including NDP ports).  Headers
 * are always sent first.  The data queue stays a FIFO in arrival order
 * and is also indexed by two rbtrees, by (prio, arrival) and by (flow,
 * arrival), so eviction and dequeue cost O(log @limit); the index nodes
 * are preallocated by "change" (one per packet of @limit), never on the
 * datapath.
 *
 * Rate.  With @rate set, dequeue sends no faster than @rate bytes per
 * second (counting skb->len, i.e. the Ethernet header but not preamble,
 * FCS or gaps) and arms the qdisc watchdog for the next departure, so
 * queues build on fast veth links where they would on a real switch.
 *
 * Port groups, detours and deflection.  The sch_ndp instances on the
 * ports of one software switch (devices of one namespace) may form a
 * group (tc option "group"), so a port can send a packet through a
 * sibling port instead of its own (Documentation/networking/ndp-sched.rst,
 * "Detours and deflection").  OPF detours: a DATA packet marked
 * NDP_F_UNSCHED that finds the data queue at @opf_thresh packets or more,
 * and has taken fewer than @dcc_thresh detours, leaves through the
 * shorter of two random sibling ports, tried before trimming.  Dart
 * deflection: a flow's first packet that finds the queue at
 * @deflect_thresh or more takes an entry of the group's 8-entry table and
 * the whole flow follows one random sibling port in order, until its last
 * packet frees the entry.  Siblings are never host-facing ports, the port
 * the packet arrived on or this port.  A diverted packet gets the
 * link-layer header of the sibling's next hop (FIB lookup restricted to
 * that device, then its neighbour entry; a neighbour not yet resolved is
 * asked for and the packet is not diverted), its ndphdr.detours
 * incremented, and is transmitted from a per-CPU tasklet, never under
 * this port's lock.
 *
 * Invariants: sch->q.qlen and the backlog always equal the sums over the
 * three queues; packets only leave at dequeue, by trimming's drop or RTS
 * (accounted to the parents with qdisc_tree_reduce_backlog()), by reset,
 * or when "change" shrinks a limit.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/jhash.h>
#include <linux/rbtree.h>
#include <linux/random.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ip_fib.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/ndisc.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/neighbour.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/ndp_wire.h>
#include <net/ndp_compat.h>
#include <uapi/linux/ndp_sched.h>

#define CREATE_TRACE_POINTS
#include <trace/events/sch_ndp.h>

static unsigned int ndp_sch_ipproto = IPPROTO_NDP;
module_param_named(ipproto, ndp_sch_ipproto, uint, 0444);
MODULE_PARM_DESC(ipproto, "IP protocol number taken as NDP (default 253, must match ndp.ko)");

#define NDP_SCH_LIMIT_DEFAULT	8
#define NDP_SCH_OLIMIT_DEFAULT	1000
#define NDP_SCH_WRR_DEFAULT	10
#define NDP_SCH_TRIM_PROB_DEFAULT	50
/*
 * While the port stays backlogged, a watchdog that fires late is caught up
 * (the packets that became due leave back to back, no more than the queues
 * hold) for at most this much transmission time, so the average rate holds
 * on slow or busy machines (qemu TCG on a loaded host fires timers tens of
 * milliseconds late).  An idle port earns no credit: enqueue to an empty
 * qdisc restarts the schedule.
 */
#define NDP_SCH_RATE_CATCHUP_NS	(100 * NSEC_PER_MSEC)
#define NDP_SCH_TIMER_SLACK_NS	(10 * NSEC_PER_USEC)
#define NDP_SCH_DCC_DEFAULT	2	/* OPF: detours a packet may take */
/* Packets waiting in one CPU's queue for a sibling port, at most. */
#define NDP_SCH_XMITQ_MAX	1024
/* A deflection entry unused for this long is free (lost last packet). */
#define NDP_SCH_DEFLECT_IDLE	(2 * HZ)

enum ndp_sch_class {
	NDP_SCH_HDR,
	NDP_SCH_DATA,
	NDP_SCH_OTHER,
};

/* Per-packet state, in qdisc_skb_cb(skb)->data, set at enqueue. */
struct ndp_skb_cb {
	u32	prio;		/* ndphdr.prio, host order */
	u32	flow;		/* hash of the 5-tuple */
	u16	thoff;		/* NDP header offset from skb->data */
	u16	hlen;		/* NDP header length with options (doff * 4) */
	u16	pf;		/* pFabric index node, NDP_PF_NONE if none */
	u8	ipv;		/* 4 or 6 */
	u8	encap;		/* NDP over UDP: a UDP header precedes thoff */
};

#define NDP_PF_NONE	U16_MAX

/*
 * pFabric index: one node per packet of the data queue, in two rbtrees.
 * @prio_node orders all packets by urgency (prio, then arrival): the
 * leftmost is the most urgent packet (the earliest among equals), the
 * rightmost the least urgent (the latest among equals).  @flow_node orders
 * them by flow, then arrival: the first node of a flow is its earliest
 * packet.  The nodes come from an array of @limit entries allocated by
 * "change" (a data queue never holds more), so the datapath allocates
 * nothing.  @seq never wraps (64 bits).  Free nodes are chained through
 * @next_free.
 */
struct ndp_pf_node {
	struct rb_node		prio_node;
	struct rb_node		flow_node;
	union {
		struct sk_buff		*skb;
		struct ndp_pf_node	*next_free;
	};
	u64			seq;
	u32			prio;
	u32			flow;
};

static struct ndp_skb_cb *ndp_skb_cb(const struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct ndp_skb_cb));
	return (struct ndp_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* One of the three queues; qlen is skbs.qlen. */
struct ndp_queue {
	struct sk_buff_head	skbs;
	u32			backlog;	/* bytes (qdisc_pkt_len) */
};

/**
 * struct ndp_sched_data - private state of one sch_ndp instance
 * @hq: header queue (control packets and trimmed headers).
 * @dq: data queue (NDP DATA with payload).
 * @oq: other traffic.
 * @limit: data queue limit, packets.
 * @hlimit: header queue limit, packets; 0 means 2 x @limit.
 * @olimit: other queue limit, packets.
 * @wrr: headers sent per data packet when both are backlogged.
 * @quantum: DRR quantum between the NDP and the other class, bytes.
 * @trim_prob: percentage of data overflows that trim the arrival.
 * @rate: emulated link rate in bytes/s, 0 for none.
 * @rts: return headers to the sender when the header queue is full.
 * @mode: enum tc_ndp_mode.
 * @wrr_sent: headers sent since the last data packet while data waited.
 * @drr_turn: class whose turn it is (NDP_SCH_HDR stands for NDP).
 * @deficit: DRR deficit of the NDP class [0] and the other class [1].
 * @seed: flow hash seed.
 * @t_next: earliest departure of the next packet (rate), ktime ns.
 * @watchdog: rearms dequeue when the rate holds packets back.
 * @pf_nodes: pFabric index nodes; NULL outside pFabric mode.
 * @pf_size: number of @pf_nodes: @limit in pFabric mode, else 0.  Nonzero
 *	exactly when the data queue's packets are indexed.
 * @pf_free: free nodes.
 * @pf_prio: the data queue's packets by (prio, arrival).
 * @pf_flow: the data queue's packets by (flow, arrival).
 * @pf_seq: arrival counter of the data queue.
 * @group: port group, NULL if none; written under RTNL, read under RCU.
 * @gnode: entry in @group's port list.
 * @sch: this qdisc (for siblings that find us in the group).
 * @hostport: the port faces hosts: never a detour or deflection target.
 * @detour: OPF detours on.
 * @deflect: Dart deflection on.
 * @opf_thresh: data queue length that detours, packets; 0: limit - 2.
 * @dcc_thresh: detours a packet may have taken and still be detoured.
 * @deflect_thresh: data queue length that deflects, packets; 0: 2/3 limit.
 * @udp_port: UDP destination port of NDP over UDP, host order; 0: off.
 * @trim_size: IP length a trimmed packet keeps, bytes; 0: its headers.
 * @trim_dscp_host: DSCP a host-facing port (@hostport) gives the packets
 *	it trims; TC_NDP_DSCP_KEEP: unchanged.
 * @trim_dscp_fabric: the same for a fabric port (@hostport off).
 * @ce_thresh: queue length at which arriving ECT packets that are not
 *	trimmed are marked CE, packets; 0: off.
 * @stats: counters for dump_stats; the qlen/backlog fields are unused.
 *
 * Knobs are written under the qdisc tree lock with WRITE_ONCE() and read
 * with READ_ONCE() (dump reads them without the lock); everything else is
 * only touched under the qdisc root lock.
 */
struct ndp_sched_data {
	struct ndp_queue	hq;
	struct ndp_queue	dq;
	struct ndp_queue	oq;

	u32			limit;
	u32			hlimit;
	u32			olimit;
	u32			wrr;
	u32			quantum;
	u32			trim_prob;
	u64			rate;
	u8			rts;
	u8			mode;

	u32			wrr_sent;
	u8			drr_turn;
	u32			deficit[2];
	u32			seed;
	u64			t_next;
	struct qdisc_watchdog	watchdog;

	struct ndp_pf_node	*pf_nodes;
	u32			pf_size;
	struct ndp_pf_node	*pf_free;
	struct rb_root_cached	pf_prio;
	struct rb_root		pf_flow;
	u64			pf_seq;

	struct ndp_sch_group __rcu *group;
	struct list_head	gnode;
	struct Qdisc		*sch;
	u8			hostport;
	u8			detour;
	u8			deflect;
	u32			opf_thresh;
	u32			dcc_thresh;
	u32			deflect_thresh;
	u16			udp_port;
	u32			trim_size;
	u8			trim_dscp_host;
	u8			trim_dscp_fabric;
	u32			ce_thresh;

	struct tc_ndp_xstats	stats;
};

/**
 * struct ndp_defl_entry - one flow of a group's deflection table
 * @key: flow hash (addresses and ports) with the group's seed.
 * @ifindex: the port the flow is deflected to; 0 when the entry is free.
 * @used: jiffies of the flow's last packet; idle entries are free.
 */
struct ndp_defl_entry {
	u32		key;
	int		ifindex;
	unsigned long	used;
};

/**
 * struct ndp_sch_group - the ports of one software switch
 * @node: entry in the namespace's group list (RTNL).
 * @ports: member ports (ndp_sched_data.gnode); RCU list written under RTNL.
 * @id: group id, [1, TC_NDP_GROUP_MAX].
 * @nports: number of @ports (RTNL).
 * @seed: flow hash seed of the deflection table.
 * @lock: protects @defl; taken in softirq context, inside a port's
 *	qdisc lock, never the other way round.
 * @defl: Dart deflected-flow table.
 * @rcu: frees the group after the last port left.
 */
struct ndp_sch_group {
	struct list_head	node;
	struct list_head	ports;
	u32			id;
	u32			nports;
	u32			seed;
	spinlock_t		lock;	/* protects @defl */
	struct ndp_defl_entry	defl[TC_NDP_DEFLECT_FLOWS];
	struct rcu_head		rcu;
};

/* Per-namespace registry of port groups. */
struct ndp_sch_net {
	struct list_head	groups;
};

static unsigned int ndp_sch_net_id __read_mostly;

/* Neighbours to resolve, at most, per CPU between two tasklet runs. */
#define NDP_SCH_RESOLVE_MAX	8

/*
 * Per-CPU work done outside any qdisc lock by a tasklet: packets handed to
 * a sibling port, and neighbour entries to resolve (resolution may send a
 * solicitation through the sibling).  @resolve and @nresolve are protected
 * by @skbs.lock; each entry holds a neighbour reference.
 */
struct ndp_sch_xmitq {
	struct sk_buff_head	skbs;
	struct neighbour	*resolve[NDP_SCH_RESOLVE_MAX];
	unsigned int		nresolve;
	struct tasklet_struct	tasklet;
};

static DEFINE_PER_CPU(struct ndp_sch_xmitq, ndp_sch_xmitq);

static u32 ndp_sch_hlimit(const struct ndp_sched_data *q)
{
	u32 h = READ_ONCE(q->hlimit);

	return h ? h : 2 * READ_ONCE(q->limit);
}

static u32 ndp_sch_opf_thresh(const struct ndp_sched_data *q)
{
	u32 t = READ_ONCE(q->opf_thresh), limit = READ_ONCE(q->limit);

	return t ? t : max_t(u32, limit > 2 ? limit - 2 : 1, 1);
}

static u32 ndp_sch_deflect_thresh(const struct ndp_sched_data *q)
{
	u32 t = READ_ONCE(q->deflect_thresh);

	return t ? t : max_t(u32, READ_ONCE(q->limit) * 2 / 3, 1);
}

/*
 * pFabric urgency: a lower ndphdr.prio is more urgent.  prio is the
 * flow's remaining bytes saturated at U32_MAX, so every flow of 4 GiB or
 * more compares as equal and least urgent (then arrival order decides).
 * It is compared as the unsigned 32-bit value it is, never subtracted,
 * sign-converted or packed into a wider key with other bits.
 */
static bool ndp_pf_prio_less(struct rb_node *a, const struct rb_node *b)
{
	const struct ndp_pf_node *na = rb_entry(a, struct ndp_pf_node, prio_node);
	const struct ndp_pf_node *nb = rb_entry(b, struct ndp_pf_node, prio_node);

	if (na->prio != nb->prio)
		return na->prio < nb->prio;
	return na->seq < nb->seq;
}

static bool ndp_pf_flow_less(struct rb_node *a, const struct rb_node *b)
{
	const struct ndp_pf_node *na = rb_entry(a, struct ndp_pf_node, flow_node);
	const struct ndp_pf_node *nb = rb_entry(b, struct ndp_pf_node, flow_node);

	if (na->flow != nb->flow)
		return na->flow < nb->flow;
	return na->seq < nb->seq;
}

static int ndp_pf_flow_cmp(const void *key, const struct rb_node *b)
{
	u32 flow = *(const u32 *)key;
	u32 nflow = rb_entry(b, struct ndp_pf_node, flow_node)->flow;

	if (flow != nflow)
		return flow < nflow ? -1 : 1;
	return 0;
}

/* Index @skb, the newest packet of the data queue (pFabric mode only). */
static void ndp_pf_insert(struct ndp_sched_data *q, struct sk_buff *skb)
{
	struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	struct ndp_pf_node *n = q->pf_free;

	/* The queue never holds more than @limit == @pf_size packets. */
	if (WARN_ON_ONCE(!n)) {
		cb->pf = NDP_PF_NONE;
		return;
	}
	q->pf_free = n->next_free;
	n->skb = skb;
	n->seq = q->pf_seq++;
	n->prio = cb->prio;
	n->flow = cb->flow;
	cb->pf = n - q->pf_nodes;
	rb_add_cached(&n->prio_node, &q->pf_prio, ndp_pf_prio_less);
	rb_add(&n->flow_node, &q->pf_flow, ndp_pf_flow_less);
}

static void ndp_pf_remove(struct ndp_sched_data *q, struct sk_buff *skb)
{
	struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	struct ndp_pf_node *n;

	if (cb->pf == NDP_PF_NONE)
		return;
	n = &q->pf_nodes[cb->pf];
	cb->pf = NDP_PF_NONE;
	rb_erase_cached(&n->prio_node, &q->pf_prio);
	rb_erase(&n->flow_node, &q->pf_flow);
	n->next_free = q->pf_free;
	q->pf_free = n;
}

/* Forget every index entry (the data queue itself is left alone). */
static void ndp_pf_clear(struct ndp_sched_data *q)
{
	struct sk_buff *skb;
	u32 i;

	skb_queue_walk(&q->dq.skbs, skb)
		ndp_skb_cb(skb)->pf = NDP_PF_NONE;
	q->pf_prio = RB_ROOT_CACHED;
	q->pf_flow = RB_ROOT;
	q->pf_free = NULL;
	for (i = q->pf_size; i-- > 0; ) {
		q->pf_nodes[i].next_free = q->pf_free;
		q->pf_free = &q->pf_nodes[i];
	}
}

/* Index the whole data queue, in arrival order (O(n log n), "change"). */
static void ndp_pf_rebuild(struct ndp_sched_data *q)
{
	struct sk_buff *skb;

	ndp_pf_clear(q);
	if (!q->pf_size)
		return;
	skb_queue_walk(&q->dq.skbs, skb)
		ndp_pf_insert(q, skb);
}

/*
 * Every packet enters and leaves a queue here.  The data queue is always a
 * FIFO in arrival order (NDP mode, "change" and mode switches use it); in
 * pFabric mode its packets are also in the index.
 */
static void ndp_sch_q_add(struct Qdisc *sch, struct ndp_queue *nq,
			  struct sk_buff *skb)
{
	struct ndp_sched_data *q = qdisc_priv(sch);

	__skb_queue_tail(&nq->skbs, skb);
	nq->backlog += qdisc_pkt_len(skb);
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	if (nq == &q->dq && q->pf_size)
		ndp_pf_insert(q, skb);
}

static void ndp_sch_q_unlink(struct Qdisc *sch, struct ndp_queue *nq,
			     struct sk_buff *skb)
{
	struct ndp_sched_data *q = qdisc_priv(sch);

	if (nq == &q->dq && q->pf_size)
		ndp_pf_remove(q, skb);
	__skb_unlink(skb, &nq->skbs);
	nq->backlog -= qdisc_pkt_len(skb);
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
}

static struct ndphdr *ndp_sch_hdr(const struct sk_buff *skb)
{
	return (struct ndphdr *)(skb->data + ndp_skb_cb(skb)->thoff);
}

/* The UDP header of a classified NDP over UDP packet. */
static struct udphdr *ndp_sch_udp_hdr(const struct sk_buff *skb)
{
	return (struct udphdr *)(skb->data + ndp_skb_cb(skb)->thoff -
				 sizeof(struct udphdr));
}

/* Offset of the header after the IP header: NDP's, or UDP's if encapsulated. */
static unsigned int ndp_sch_l4off(const struct ndp_skb_cb *cb)
{
	return cb->thoff - (cb->encap ? sizeof(struct udphdr) : 0);
}

/*
 * NDP over UDP: whether the IP payload of @l4len bytes at @l4off is a UDP
 * datagram to @port that can carry NDP.  The UDP length must be the IP
 * payload length exactly (no trailer, no truncation).  The UDP checksum
 * may be zero, complete, or left to the device (CHECKSUM_PARTIAL, as NDP
 * sends it: a sender on this host, over veth); a checksum left to the
 * device must be this UDP header's, else the packet is not one NDP built.
 * Of GSO packets only UDP's own (SKB_GSO_UDP_L4, what an NDP sender
 * makes of a batch in UDP, net/ndp/output.c) can be NDP's; the enqueue
 * cuts them.  Returns the NDP header offset with *@l4len reduced to the
 * NDP packet (the batch's, for a GSO packet), or 0.
 */
static unsigned int ndp_sch_udp_thoff(struct sk_buff *skb, unsigned int l4off,
				      unsigned int *l4len, u16 port)
{
	const struct udphdr *uh;

	if ((skb_is_gso(skb) &&
	     skb_shinfo(skb)->gso_type & ~(SKB_GSO_UDP_L4 | SKB_GSO_DODGY)) ||
	    *l4len < sizeof(*uh) + NDP_HDR_LEN ||
	    !pskb_may_pull(skb, l4off + sizeof(*uh)))
		return 0;
	if (skb->ip_summed == CHECKSUM_PARTIAL &&
	    (skb_checksum_start_offset(skb) != l4off ||
	     skb->csum_offset != offsetof(struct udphdr, check)))
		return 0;
	uh = (const struct udphdr *)(skb->data + l4off);
	if (ntohs(uh->dest) != port || ntohs(uh->len) != *l4len)
		return 0;
	*l4len -= sizeof(*uh);
	return l4off + sizeof(*uh);
}

/*
 * Classify @skb and fill its ndp_skb_cb.  Only well-formed NDP packets
 * are NDP: IPv4 header (not a fragment) or IPv6 fixed header directly
 * followed by the NDP header, or by a UDP header to @udp_port and then
 * the NDP header, lengths consistent, header sane, the whole header with
 * its options (doff) inside the IP packet and linear, and no payload on
 * a header-class packet.  Anything else is other traffic and never
 * modified: nothing from the wire is trusted before these checks.
 */
static enum ndp_sch_class ndp_sch_classify(const struct ndp_sched_data *q,
					   struct sk_buff *skb)
{
	struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	int noff = skb_network_offset(skb);
	u16 udp_port = READ_ONCE(q->udp_port);
	u32 trim_size = READ_ONCE(q->trim_size);
	unsigned int l4off, thoff, l4len, hlen, iplen;
	const struct ndphdr *nh;
	u32 ports;
	u8 proto;

	cb->pf = NDP_PF_NONE;
	cb->encap = 0;
	if (noff < 0)
		return NDP_SCH_OTHER;

	switch (skb->protocol) {
	case htons(ETH_P_IP): {
		const struct iphdr *iph;
		unsigned int tot;

		if (!pskb_may_pull(skb, noff + sizeof(*iph)))
			return NDP_SCH_OTHER;
		iph = ip_hdr(skb);
		proto = iph->protocol;
		if (iph->version != 4 || iph->ihl < 5 || ip_is_fragment(iph) ||
		    (proto != ndp_sch_ipproto &&
		     (proto != IPPROTO_UDP || !udp_port)))
			return NDP_SCH_OTHER;
		tot = ntohs(iph->tot_len);
		if (tot < iph->ihl * 4 || noff + tot > skb->len)
			return NDP_SCH_OTHER;
		l4off = noff + iph->ihl * 4;
		l4len = tot - iph->ihl * 4;
		iplen = tot;
		cb->ipv = 4;
		break;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6h;

		if (!pskb_may_pull(skb, noff + sizeof(*ip6h)))
			return NDP_SCH_OTHER;
		ip6h = ipv6_hdr(skb);
		proto = ip6h->nexthdr;
		l4len = ntohs(ip6h->payload_len);
		if (ip6h->version != 6 ||
		    (proto != ndp_sch_ipproto &&
		     (proto != IPPROTO_UDP || !udp_port)) ||
		    noff + sizeof(*ip6h) + l4len > skb->len)
			return NDP_SCH_OTHER;
		l4off = noff + sizeof(*ip6h);
		iplen = sizeof(*ip6h) + l4len;
		cb->ipv = 6;
		break;
	}
	default:
		return NDP_SCH_OTHER;
	}

	if (proto == ndp_sch_ipproto) {
		thoff = l4off;
	} else {
		thoff = ndp_sch_udp_thoff(skb, l4off, &l4len, udp_port);
		if (!thoff)
			return NDP_SCH_OTHER;
		cb->encap = 1;
	}
	if (l4len < NDP_HDR_LEN || thoff > U16_MAX ||
	    !pskb_may_pull(skb, thoff + NDP_HDR_LEN))
		return NDP_SCH_OTHER;
	nh = (const struct ndphdr *)(skb->data + thoff);
	if (!ndp_hdr_is_sane(nh))
		return NDP_SCH_OTHER;
	/* doff is from the wire: the header must fit in the IP packet. */
	hlen = nh->doff * 4;
	if (hlen > l4len)
		return NDP_SCH_OTHER;
	/*
	 * Headers get strict priority: a control packet or a trimmed DATA
	 * packet that still carries a payload is not one (no NDP host or
	 * switch makes such a packet); do not let it jump the data queue.
	 * The exception is a trimmed DATA packet no longer than this port's
	 * @trim_size, which is what a port with the same trim size made.
	 */
	if (ndp_hdr_is_control(nh) && l4len != hlen &&
	    (nh->type != NDP_PKT_DATA || !trim_size || iplen > trim_size))
		return NDP_SCH_OTHER;
	if (hlen > NDP_HDR_LEN && !pskb_may_pull(skb, thoff + hlen))
		return NDP_SCH_OTHER;

	/* Pulls may have moved the data: read everything afresh. */
	nh = (const struct ndphdr *)(skb->data + thoff);
	ports = (u32)ntohs(nh->source) << 16 | ntohs(nh->dest);
	if (cb->ipv == 4)
		cb->flow = jhash_3words((__force u32)ip_hdr(skb)->saddr,
					(__force u32)ip_hdr(skb)->daddr, ports,
					q->seed);
	else
		cb->flow = jhash_3words(ipv6_addr_hash(&ipv6_hdr(skb)->saddr),
					ipv6_addr_hash(&ipv6_hdr(skb)->daddr),
					ports, q->seed);
	cb->thoff = thoff;
	cb->hlen = hlen;
	cb->prio = ntohl(nh->prio);
	return ndp_hdr_is_control(nh) ? NDP_SCH_HDR : NDP_SCH_DATA;
}

/*
 * The UDP header of @skb, an NDP over UDP packet just cut to its headers
 * (linear and writable; its checksum state reset): length of what is
 * left, and its checksum.  A datagram sent without one (zero, which NDP's
 * tunnel sockets accept in both families) keeps none; one that had a
 * checksum, complete or left to the device (@partial), gets it computed
 * here over what is left, the UDP and NDP headers.
 */
static void ndp_sch_udp_trimmed(struct sk_buff *skb, bool partial)
{
	struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	struct udphdr *uh = ndp_sch_udp_hdr(skb);
	unsigned int ulen = skb->len - ndp_sch_l4off(cb);
	__wsum sum;

	uh->len = htons(ulen);
	if (!uh->check && !partial)
		return;
	uh->check = 0;
	sum = csum_partial(uh, ulen, 0);
	if (cb->ipv == 4)
		uh->check = csum_tcpudp_magic(ip_hdr(skb)->saddr,
					      ip_hdr(skb)->daddr, ulen,
					      IPPROTO_UDP, sum);
	else
		uh->check = csum_ipv6_magic(&ipv6_hdr(skb)->saddr,
					    &ipv6_hdr(skb)->daddr, ulen,
					    IPPROTO_UDP, sum);
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
}

/* End of the IP packet @skb (classified NDP), as an offset from skb->data. */
static unsigned int ndp_sch_ip_end(const struct sk_buff *skb)
{
	unsigned int noff = skb_network_offset(skb);

	if (ndp_skb_cb(skb)->ipv == 4)
		return noff + ntohs(ip_hdr(skb)->tot_len);
	return noff + sizeof(struct ipv6hdr) + ntohs(ipv6_hdr(skb)->payload_len);
}

/*
 * Where a trim by this port ends @skb (classified NDP DATA): after its
 * headers, options included, or with @trim_size set after that many
 * bytes of IP packet, never inside the headers nor beyond the packet.
 */
static unsigned int ndp_sch_trim_end(const struct ndp_sched_data *q,
				     const struct sk_buff *skb)
{
	const struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	unsigned int hdr_end = cb->thoff + cb->hlen;
	u32 size = READ_ONCE(q->trim_size);

	if (!size)
		return hdr_end;
	return clamp(skb_network_offset(skb) + size, hdr_end,
		     max(hdr_end, ndp_sch_ip_end(skb)));
}

/*
 * Cut @skb (a classified NDP DATA packet, not queued) at @end, at least
 * its IP (and UDP) and NDP headers, options included (doff, validated by
 * classify), and mark it trimmed.  Works on nonlinear and cloned packets.
 * Returns 0 or a negative errno, in which case the packet is unchanged as
 * far as its receiver can tell.
 */
static int ndp_sch_trim(struct sk_buff *skb, unsigned int end)
{
	struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	unsigned int noff = skb_network_offset(skb);
	unsigned int old = skb->len, cut;
	bool partial = skb->ip_summed == CHECKSUM_PARTIAL;

	/*
	 * NDP builds no GSO packets here, and leaves no checksum to a device
	 * but the UDP one of NDP in UDP (classify checked where it is); do
	 * not guess.
	 */
	if (skb_is_gso(skb) || (partial && !cb->encap))
		return -EINVAL;
	if (skb_ensure_writable(skb, end) || pskb_trim(skb, end))
		return -ENOMEM;
	/*
	 * A receive-side checksum no longer describes the packet (payload
	 * gone, lengths and flags changed): the receiver checks in software.
	 * A UDP checksum left to the device is computed below instead.
	 */
	if (skb->ip_summed != CHECKSUM_NONE) {
		skb->ip_summed = CHECKSUM_NONE;
		skb->csum_level = 0;
	}

	if (cb->ipv == 4) {
		struct iphdr *iph = ip_hdr(skb);
		__be16 tot = htons(end - noff);

		csum_replace2(&iph->check, iph->tot_len, tot);
		iph->tot_len = tot;
	} else {
		ipv6_hdr(skb)->payload_len =
			htons(end - noff - sizeof(struct ipv6hdr));
	}
	ndp_hdr_update_flags(ndp_sch_hdr(skb), NDP_F_TRIMMED, 0);
	if (cb->encap)
		ndp_sch_udp_trimmed(skb, partial);

	cut = old - skb->len;
	if (qdisc_skb_cb(skb)->pkt_len > cut)
		qdisc_skb_cb(skb)->pkt_len -= cut;
	else
		qdisc_skb_cb(skb)->pkt_len = skb->len;
	return 0;
}

/*
 * Return the header @skb (not queued) to its sender.  Returns false, with
 * @skb untouched as far as its receiver can tell, if it is not a DATA
 * header or was returned already, if its link layer is neither Ethernet
 * nor absent, or on lack of memory; true once the packet is handed to the
 * stack.
 *
 * The packet carries the link-layer header for the forward next hop, so
 * instead of transmitting it here we turn it into the packet its receiver
 * would have sent back on this link and let it re-enter the stack as if
 * received on this port, the way dev_forward_skb() loops a packet back
 * (veth): IP addresses swapped and, on Ethernet, MAC addresses swapped
 * too, so the frame comes *from* the receiver's side of the link.  A
 * router (our own MAC is then the destination) routes it towards the
 * sender; a bridge whose port this is learns the receiver's MAC on this
 * port, which is right, and forwards it to the sender's port.  This
 * happens later in NET_RX softirq, not under our lock.  Everything the
 * forward path attached to the packet is reset as for a packet fresh from
 * the wire: owner, dst, conntrack, extensions, mark, timestamp, priority,
 * checksum state, queue mapping, control block; eth_type_trans() sets
 * skb->dev, pkt_type, protocol and the MAC header.
 */
static bool ndp_sch_rts(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	struct net_device *dev = qdisc_dev(sch);
	int noff = skb_network_offset(skb);
	struct ndphdr *nh = ndp_sch_hdr(skb);
	unsigned int thoff = cb->thoff, l4off = ndp_sch_l4off(cb);
	u8 ipv = cb->ipv;
	bool eth;

	if (nh->type != NDP_PKT_DATA || ndp_hdr_has(nh, NDP_F_RTS))
		return false;
	if (skb->ip_summed == CHECKSUM_PARTIAL || skb_is_gso(skb))
		return false;
	/* Ethernet with its header at skb->data, or no link layer at all. */
	eth = dev->type == ARPHRD_ETHER && noff == ETH_HLEN &&
	      skb_mac_header_was_set(skb) && skb_mac_offset(skb) == 0;
	if (!eth && noff != 0)
		return false;
	if (skb_ensure_writable(skb, thoff + NDP_HDR_LEN) ||
	    skb_orphan_frags(skb, GFP_ATOMIC))
		return false;

	trace_sch_ndp_rts(sch, skb, nh, qdisc_pkt_len(skb), SCH_NDP_NOT_DROPPED);
	/*
	 * Swapping addresses keeps the IPv4, NDP and UDP checksums.  NDP over
	 * UDP keeps both ports: the destination port is the tunnel port at
	 * both ends, so the sender's tunnel socket takes the packet back.
	 */
	if (ipv == 4) {
		struct iphdr *iph = ip_hdr(skb);

		swap(iph->saddr, iph->daddr);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		swap(ip6h->saddr, ip6h->daddr);
	}
	ndp_hdr_update_flags(ndp_sch_hdr(skb), NDP_F_RTS, 0);
	if (eth) {
		struct ethhdr *ethh = (struct ethhdr *)skb->data;
		u8 addr[ETH_ALEN];

		ether_addr_copy(addr, ethh->h_dest);
		ether_addr_copy(ethh->h_dest, ethh->h_source);
		ether_addr_copy(ethh->h_source, addr);
	}

	skb_orphan(skb);
	skb_scrub_packet(skb, true);
	memset(skb->cb, 0, sizeof(skb->cb));
	skb->priority = 0;
	skb->ip_summed = CHECKSUM_NONE;
	skb->csum_level = 0;
	skb_set_queue_mapping(skb, 0);
	if (eth) {
		skb->protocol = eth_type_trans(skb, dev);
	} else {
		/* No link-layer header: protocol stays, MAC header empty. */
		skb->dev = dev;
		skb_reset_mac_header(skb);
		skb->pkt_type = PACKET_HOST;
	}
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, l4off - noff);
	skb_reset_mac_len(skb);
	netif_rx(skb);
	return true;
}

/*
 * Give @skb, just trimmed by this port, the DSCP of this port's role, if
 * one is set, so that its receiver can tell where it was trimmed (a
 * host-facing port's trim is a last-hop trim).  The ECN bits are kept.
 * The IP header is writable (ndp_sch_trim()).
 */
static void ndp_sch_trim_remark(struct ndp_sched_data *q, struct sk_buff *skb)
{
	u8 dscp = READ_ONCE(q->hostport) ? READ_ONCE(q->trim_dscp_host) :
					   READ_ONCE(q->trim_dscp_fabric);

	if (dscp >= TC_NDP_DSCP_KEEP)
		return;
	if (ndp_skb_cb(skb)->ipv == 4)
		ipv4_change_dsfield(ip_hdr(skb), INET_ECN_MASK, dscp << 2);
	else
		ipv6_change_dsfield(ipv6_hdr(skb), INET_ECN_MASK, dscp << 2);
	q->stats.trim_remark++;
}

/*
 * Mark @skb CE if it is ECT and the queue it joins already holds @qlen
 * packets, at least @ce_thresh.  Packets trimmed here are never marked:
 * the trim says more.
 */
static void ndp_sch_ce(struct ndp_sched_data *q, struct sk_buff *skb, u32 qlen)
{
	u32 thresh = READ_ONCE(q->ce_thresh);

	if (thresh && qlen >= thresh && INET_ECN_set_ce(skb))
		q->stats.ce_mark++;
}

/*
 * Queue a header.  Returns NET_XMIT_SUCCESS (queued), NET_XMIT_DROP or
 * NET_XMIT_SUCCESS | __NET_XMIT_STOLEN (returned to sender).
 */
static int ndp_sch_hdr_enqueue(struct Qdisc *sch, struct sk_buff *skb,
			       struct sk_buff **to_free)
{
	struct ndp_sched_data *q = qdisc_priv(sch);

	if (likely(skb_queue_len(&q->hq.skbs) < ndp_sch_hlimit(q))) {
		ndp_sch_q_add(sch, &q->hq, skb);
		return NET_XMIT_SUCCESS;
	}
	if (READ_ONCE(q->rts) && ndp_sch_rts(sch, skb)) {
		q->stats.rts++;
		return NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
	}
	trace_sch_ndp_drop(sch, skb, ndp_sch_hdr(skb), qdisc_pkt_len(skb), SCH_NDP_DROP_HDR_FULL);
	q->stats.hdr_drops++;
	return ndp_compat_qdisc_drop(skb, sch, to_free,
				     NDP_QDISC_DROP_FULL);
}

/*
 * pFabric: the packet to trim when the data queue is full: the least
 * urgent buffered packet (the latest among equals), or @arrival if it is
 * no more urgent than that one.  O(log n).
 */
static struct sk_buff *ndp_sch_pfabric_victim(struct ndp_sched_data *q,
					      struct sk_buff *arrival)
{
	struct rb_node *last = rb_last(&q->pf_prio.rb_root);
	const struct ndp_pf_node *worst;

	if (!last)
		return arrival;
	worst = rb_entry(last, struct ndp_pf_node, prio_node);
	if (ndp_skb_cb(arrival)->prio >= worst->prio)
		return arrival;
	return worst->skb;
}

/*
 * pFabric: earliest-arrived packet of the flow of the most urgent one
 * (the most urgent is the earliest among equals).  O(log n).
 */
static struct sk_buff *ndp_sch_pfabric_pick(struct ndp_sched_data *q)
{
	struct rb_node *first = rb_first_cached(&q->pf_prio);
	const struct ndp_pf_node *best;
	struct rb_node *n;

	if (!first)
		return NULL;
	best = rb_entry(first, struct ndp_pf_node, prio_node);
	n = rb_find_first(&best->flow, &q->pf_flow, ndp_pf_flow_cmp);
	if (WARN_ON_ONCE(!n))
		return best->skb;
	return rb_entry(n, struct ndp_pf_node, flow_node)->skb;
}

/*
 * Neighbour of @dev's next hop towards the destination of @skb (a
 * classified NDP packet): a FIB lookup restricted to @dev, as routing
 * would have done had it picked @dev; NDP over UDP is looked up as the
 * UDP datagram it is (protocol and ports, for policy routing).  Called in
 * softirq context under RCU; the neighbour is not referenced (valid until
 * the RCU section ends).
 */
static struct neighbour *ndp_sch_nexthop4(struct sk_buff *skb,
					  struct net_device *dev)
{
	const struct iphdr *iph = ip_hdr(skb);
	struct flowi4 fl4 = {
		.flowi4_oif = dev->ifindex,
		.flowi4_iif = skb->skb_iif ? skb->skb_iif : LOOPBACK_IFINDEX,
		.flowi4_proto = ndp_sch_ipproto,
		.daddr = iph->daddr,
		.saddr = iph->saddr,
	};
	struct fib_result res;
	__be32 gw;

	if (ndp_skb_cb(skb)->encap) {
		const struct udphdr *uh = ndp_sch_udp_hdr(skb);

		fl4.flowi4_proto = IPPROTO_UDP;
		fl4.fl4_sport = uh->source;
		fl4.fl4_dport = uh->dest;
	}

	if (fib_lookup(dev_net(dev), &fl4, &res, 0) ||
	    res.type != RTN_UNICAST || !res.nhc || res.nhc->nhc_dev != dev)
		return ERR_PTR(-ENETUNREACH);
	if (res.nhc->nhc_gw_family == AF_INET)
		gw = res.nhc->nhc_gw.ipv4;
	else if (!res.nhc->nhc_gw_family)
		gw = iph->daddr;
	else
		return ERR_PTR(-EAFNOSUPPORT);
	return ip_neigh_gw4(dev, gw);
}

static struct neighbour *ndp_sch_nexthop6(struct sk_buff *skb,
					  struct net_device *dev)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	struct flowi6 fl6 = {
		.flowi6_oif = dev->ifindex,
		.flowi6_proto = ndp_sch_ipproto,
		.daddr = ip6h->daddr,
		.saddr = ip6h->saddr,
	};
	struct neighbour *n = ERR_PTR(-ENETUNREACH);
	struct dst_entry *dst;

	if (ndp_skb_cb(skb)->encap) {
		const struct udphdr *uh = ndp_sch_udp_hdr(skb);

		fl6.flowi6_proto = IPPROTO_UDP;
		fl6.fl6_sport = uh->source;
		fl6.fl6_dport = uh->dest;
	}
	/* Strict: with a source address the oif alone would only be a hint. */
	dst = ip6_route_output_flags(dev_net(dev), NULL, &fl6,
				     RT6_LOOKUP_F_IFACE);
	if (!dst->error && dst->dev == dev)
		n = ip_neigh_gw6(dev, rt6_nexthop((struct rt6_info *)dst,
						  &ip6h->daddr));
	dst_release(dst);
	return n;
}

/* Have this CPU's tasklet start the resolution of @n. */
static void ndp_sch_resolve_later(struct ndp_sch_xmitq *xq,
				  struct neighbour *n)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&xq->skbs.lock, flags);
	for (i = 0; i < xq->nresolve; i++)
		if (xq->resolve[i] == n)
			break;
	if (i == xq->nresolve && i < NDP_SCH_RESOLVE_MAX) {
		neigh_hold(n);
		xq->resolve[xq->nresolve++] = n;
	}
	spin_unlock_irqrestore(&xq->skbs.lock, flags);
	tasklet_schedule(&xq->tasklet);
}

/*
 * Send @skb (a classified NDP DATA packet, not queued, headed to this
 * port) through @dev instead: new link-layer header for @dev's next hop,
 * ndphdr.detours incremented, transmitted by this CPU's tasklet once the
 * qdisc lock is released.  Returns 0 when the packet is on its way, a
 * negative errno with the packet unchanged otherwise: no route or no
 * usable neighbour through @dev (a neighbour entry not yet resolved is
 * asked for, so later packets can take that port), no memory, or a full
 * tasklet queue.
 */
static int ndp_sch_divert(struct sk_buff *skb, struct net_device *dev)
{
	struct ndp_sch_xmitq *xq = this_cpu_ptr(&ndp_sch_xmitq);
	struct ndp_skb_cb *cb = ndp_skb_cb(skb);
	int noff = skb_network_offset(skb);
	unsigned int thoff = cb->thoff, l4off = ndp_sch_l4off(cb);
	u8 haddr[MAX_ADDR_LEN];
	struct neighbour *n;
	unsigned long flags;

	/* A UDP checksum left to the device: @dev's output fills it. */
	if (noff < 0 || skb_is_gso(skb) ||
	    (skb->ip_summed == CHECKSUM_PARTIAL && !cb->encap))
		return -EINVAL;
	if (dev->header_ops && !dev->header_ops->create)
		return -EOPNOTSUPP;
	if (skb_queue_len(&xq->skbs) >= NDP_SCH_XMITQ_MAX)
		return -ENOBUFS;
	n = cb->ipv == 4 ? ndp_sch_nexthop4(skb, dev) :
			    ndp_sch_nexthop6(skb, dev);
	if (IS_ERR_OR_NULL(n))
		return n ? PTR_ERR(n) : -ENETUNREACH;
	/*
	 * Not resolved yet: start resolution from the tasklet (it may
	 * transmit through @dev, which must not happen under this lock)
	 * and do not divert this packet.  A valid entry only needs
	 * neigh_event_send()'s bookkeeping (stale becomes delay), which
	 * sends nothing.
	 */
	if (!(READ_ONCE(n->nud_state) & NUD_VALID)) {
		ndp_sch_resolve_later(xq, n);
		return -EAGAIN;
	}
	if (neigh_event_send(n, NULL))
		return -EAGAIN;
	if (skb_cow_head(skb, LL_RESERVED_SPACE(dev)) ||
	    skb_ensure_writable(skb, thoff + NDP_HDR_LEN))
		return -ENOMEM;

	/* Nothing fails from here on. */
	ndp_hdr_inc_detours((struct ndphdr *)(skb->data + thoff));
	__skb_pull(skb, noff);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, l4off - noff);
	neigh_ha_snapshot(haddr, n, dev);
	if (dev->header_ops)
		dev_hard_header(skb, dev, ntohs(skb->protocol), haddr, NULL,
				skb->len);
	skb_reset_mac_header(skb);
	skb_reset_mac_len(skb);
	skb_dst_drop(skb);
	__vlan_hwaccel_clear_tag(skb);
	skb_set_queue_mapping(skb, 0);
	skb->dev = dev;
	dev_hold(dev);

	spin_lock_irqsave(&xq->skbs.lock, flags);
	__skb_queue_tail(&xq->skbs, skb);
	spin_unlock_irqrestore(&xq->skbs.lock, flags);
	tasklet_schedule(&xq->tasklet);
	return 0;
}

/* Transmit the packets diverted on this CPU so far, outside any qdisc lock. */
static void ndp_sch_xmit_tasklet(struct tasklet_struct *t)
{
	struct ndp_sch_xmitq *xq = from_tasklet(xq, t, tasklet);
	struct neighbour *resolve[NDP_SCH_RESOLVE_MAX];
	unsigned int i, nresolve;
	struct sk_buff_head list;
	struct sk_buff *skb;
	unsigned long flags;

	__skb_queue_head_init(&list);
	spin_lock_irqsave(&xq->skbs.lock, flags);
	skb_queue_splice_init(&xq->skbs, &list);
	nresolve = xq->nresolve;
	memcpy(resolve, xq->resolve, nresolve * sizeof(resolve[0]));
	xq->nresolve = 0;
	spin_unlock_irqrestore(&xq->skbs.lock, flags);

	for (i = 0; i < nresolve; i++) {
		neigh_event_send(resolve[i], NULL);
		neigh_release(resolve[i]);
	}
	while ((skb = __skb_dequeue(&list))) {
		struct net_device *dev = skb->dev;

		dev_queue_xmit(skb);
		dev_put(dev);
	}
}

static void ndp_sch_xmitq_purge(struct ndp_sch_xmitq *xq)
{
	struct sk_buff *skb;

	while (xq->nresolve)
		neigh_release(xq->resolve[--xq->nresolve]);

	while ((skb = skb_dequeue(&xq->skbs))) {
		struct net_device *dev = skb->dev;

		kfree_skb(skb);
		dev_put(dev);
	}
}

/*
 * Whether @s may take a packet of port @q that arrived on @iif: another
 * port of the same namespace, not facing hosts, not the arrival port, up.
 */
static bool ndp_sch_sibling_ok(const struct ndp_sched_data *q,
			       const struct ndp_sched_data *s, int iif)
{
	struct net_device *dev = qdisc_dev(s->sch);

	return s != q && !READ_ONCE(s->hostport) && dev->ifindex != iif &&
	       net_eq(dev_net(dev), dev_net(qdisc_dev(q->sch))) &&
	       netif_running(dev) && netif_carrier_ok(dev);
}

/*
 * Two distinct random eligible siblings (reservoir sampling); returns the
 * one with the shorter queue, or the only one, or NULL.  Under RCU.
 */
static struct ndp_sched_data *ndp_sch_pick_sibling(struct ndp_sched_data *q,
						   struct ndp_sch_group *g,
						   int iif)
{
	struct ndp_sched_data *s, *pick[2] = { NULL, NULL };
	u32 n = 0, r;

	list_for_each_entry_rcu(s, &g->ports, gnode) {
		if (!ndp_sch_sibling_ok(q, s, iif))
			continue;
		if (n < 2) {
			pick[n++] = s;
			continue;
		}
		r = reciprocal_scale(get_random_u32(), ++n);
		if (r < 2)
			pick[r] = s;
	}
	if (!pick[1])
		return pick[0];
	return READ_ONCE(pick[1]->sch->q.qlen) < READ_ONCE(pick[0]->sch->q.qlen) ?
	       pick[1] : pick[0];
}

/* The eligible sibling on @ifindex, or NULL.  Under RCU. */
static struct ndp_sched_data *ndp_sch_find_sibling(struct ndp_sched_data *q,
						   struct ndp_sch_group *g,
						   int ifindex, int iif)
{
	struct ndp_sched_data *s;

	list_for_each_entry_rcu(s, &g->ports, gnode)
		if (qdisc_dev(s->sch)->ifindex == ifindex)
			return ndp_sch_sibling_ok(q, s, iif) ? s : NULL;
	return NULL;
}

/* Flow key of @skb (a classified NDP packet) for the group's table. */
static u32 ndp_sch_group_key(const struct ndp_sch_group *g,
			     const struct sk_buff *skb)
{
	const struct ndphdr *nh = ndp_sch_hdr(skb);
	u32 ports = (u32)ntohs(nh->source) << 16 | ntohs(nh->dest);

	if (ndp_skb_cb(skb)->ipv == 4)
		return jhash_3words((__force u32)ip_hdr(skb)->saddr,
				    (__force u32)ip_hdr(skb)->daddr, ports,
				    g->seed);
	return jhash_3words(ipv6_addr_hash(&ipv6_hdr(skb)->saddr),
			    ipv6_addr_hash(&ipv6_hdr(skb)->daddr), ports,
			    g->seed);
}

static bool ndp_defl_busy(const struct ndp_defl_entry *e, unsigned long now)
{
	return e->ifindex && time_before(now, e->used + NDP_SCH_DEFLECT_IDLE);
}

/*
 * Dart in-order flow deflection: the sibling this packet's flow follows,
 * or NULL to send it here.  A flow already in the table follows its entry
 * (its last packet frees the entry); only a flow's first packet (SYN with
 * syn_off 0) of a short flow (prio, the bytes left including this packet,
 * at most TC_NDP_DEFLECT_SHORT) with deflection tokens left (detours
 * below TC_NDP_DEFLECT_TOKENS) may take a free entry, when the data queue
 * holds @deflect_thresh packets or more.
 */
static struct ndp_sched_data *ndp_sch_deflect(struct ndp_sched_data *q,
					      struct ndp_sch_group *g,
					      struct sk_buff *skb)
{
	const struct ndphdr *nh = ndp_sch_hdr(skb);
	int me = qdisc_dev(q->sch)->ifindex, iif = skb->skb_iif;
	unsigned long now = jiffies;
	struct ndp_defl_entry *e, *free = NULL;
	struct ndp_sched_data *s = NULL;
	u32 key = ndp_sch_group_key(g, skb);
	int i;

	spin_lock(&g->lock);
	for (i = 0; i < TC_NDP_DEFLECT_FLOWS; i++) {
		e = &g->defl[i];
		if (!ndp_defl_busy(e, now)) {
			if (!free)
				free = e;
			continue;
		}
		if (e->key != key)
			continue;
		/* Deflected here by a sibling: this port sends it. */
		if (e->ifindex == me)
			goto out;
		e->used = now;
		s = ndp_sch_find_sibling(q, g, e->ifindex, iif);
		if (!s)
			q->stats.detour_fail++;
		if (ndp_hdr_has(nh, NDP_F_LAST)) {
			e->ifindex = 0;
			q->stats.deflect_free++;
		}
		goto out;
	}

	if (!ndp_hdr_has(nh, NDP_F_SYN) || nh->syn_off ||
	    ntohl(nh->prio) > TC_NDP_DEFLECT_SHORT ||
	    nh->detours >= TC_NDP_DEFLECT_TOKENS ||
	    skb_queue_len(&q->dq.skbs) < ndp_sch_deflect_thresh(q))
		goto out;
	if (!free) {
		q->stats.deflect_full++;
		goto out;
	}
	s = ndp_sch_pick_sibling(q, g, iif);
	if (!s) {
		q->stats.detour_nosib++;
		goto out;
	}
	q->stats.deflect_new++;
	/* A one-packet flow needs no entry. */
	if (!ndp_hdr_has(nh, NDP_F_LAST)) {
		free->key = key;
		free->ifindex = qdisc_dev(s->sch)->ifindex;
		free->used = now;
	} else {
		q->stats.deflect_free++;
	}
out:
	spin_unlock(&g->lock);
	return s;
}

/*
 * Deflection, then OPF detour, for a DATA packet about to be queued here.
 * Returns true if the packet left through a sibling port.
 */
static bool ndp_sch_try_divert(struct ndp_sched_data *q, struct sk_buff *skb)
{
	struct ndp_sch_group *g = rcu_dereference_bh(q->group);
	const struct ndphdr *nh = ndp_sch_hdr(skb);
	struct ndp_sched_data *s;

	if (!g)
		return false;
	if (READ_ONCE(q->deflect)) {
		s = ndp_sch_deflect(q, g, skb);
		if (s) {
			if (!ndp_sch_divert(skb, qdisc_dev(s->sch))) {
				q->stats.deflect_out++;
				return true;
			}
			q->stats.detour_fail++;
		}
	}
	nh = ndp_sch_hdr(skb);
	/* Unscheduled first-window data only, never a retransmission. */
	if (!READ_ONCE(q->detour) || !ndp_hdr_has(nh, NDP_F_UNSCHED) ||
	    ndp_hdr_has(nh, NDP_F_RTX) || nh->detours >= READ_ONCE(q->dcc_thresh) ||
	    skb_queue_len(&q->dq.skbs) < ndp_sch_opf_thresh(q))
		return false;
	s = ndp_sch_pick_sibling(q, g, skb->skb_iif);
	if (!s) {
		q->stats.detour_nosib++;
		return false;
	}
	if (ndp_sch_divert(skb, qdisc_dev(s->sch))) {
		q->stats.detour_fail++;
		return false;
	}
	q->stats.detour_out++;
	return true;
}

/*
 * Queue a DATA packet; on overflow trim the arrival or a queued packet
 * and move the trimmed one to the header queue.  A queued victim that
 * leaves the qdisc (dropped or returned) or shrinks is reported through
 * @tree_n / @tree_len for the parents.
 */
static int ndp_sch_data_enqueue(struct Qdisc *sch, struct sk_buff *skb,
				struct sk_buff **to_free, int *tree_n,
				int *tree_len)
{
	struct ndp_sched_data *q = qdisc_priv(sch);
	unsigned int old_len, new_len;
	struct sk_buff *victim;
	int ret;

	/* Deflection and detours come before queueing and trimming. */
	if (ndp_sch_try_divert(q, skb))
		return NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;

	if (likely(skb_queue_len(&q->dq.skbs) < READ_ONCE(q->limit))) {
		ndp_sch_ce(q, skb, skb_queue_len(&q->dq.skbs));
		ndp_sch_q_add(sch, &q->dq, skb);
		return NET_XMIT_SUCCESS;
	}

	if (READ_ONCE(q->mode) == TC_NDP_MODE_PFABRIC)
		victim = ndp_sch_pfabric_victim(q, skb);
	else if (reciprocal_scale(get_random_u32(), 100) <
		 READ_ONCE(q->trim_prob))
		victim = skb;
	else
		victim = skb_peek_tail(&q->dq.skbs);

	if (victim == skb) {
		q->stats.trim_arrival++;
	} else {
		ndp_sch_q_unlink(sch, &q->dq, victim);
		ndp_sch_ce(q, skb, skb_queue_len(&q->dq.skbs));
		ndp_sch_q_add(sch, &q->dq, skb);
		if (READ_ONCE(q->mode) == TC_NDP_MODE_PFABRIC)
			q->stats.pfabric_evict++;
		else
			q->stats.trim_tail++;
	}

	old_len = qdisc_pkt_len(victim);
	if (unlikely(ndp_sch_trim(victim, ndp_sch_trim_end(q, victim)))) {
		q->stats.trim_fail++;
		trace_sch_ndp_drop(sch, victim, ndp_sch_hdr(victim), old_len,
				   SCH_NDP_DROP_TRIM_FAIL);
		q->stats.data_drops++;
		ret = ndp_compat_qdisc_drop(victim, sch, to_free,
					    NDP_QDISC_DROP_FULL);
	} else {
		new_len = qdisc_pkt_len(victim);
		ndp_sch_trim_remark(q, victim);
		trace_sch_ndp_trim(sch, victim, ndp_sch_hdr(victim), old_len, SCH_NDP_NOT_DROPPED);
		ret = ndp_sch_hdr_enqueue(sch, victim, to_free);
		if (victim != skb && ret == NET_XMIT_SUCCESS)
			*tree_len += old_len - new_len;
	}
	if (victim == skb)
		return ret;
	if (ret != NET_XMIT_SUCCESS) {
		*tree_n += 1;
		*tree_len += old_len;
	}
	return NET_XMIT_SUCCESS;
}

static int ndp_sch_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			       struct sk_buff **to_free)
{
	struct ndp_sched_data *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	int tree_n = 0, tree_len = 0;
	enum ndp_sch_class cls;
	int ret;

	/* The link was idle: no credit for the time it sent nothing. */
	if (!sch->q.qlen && READ_ONCE(q->rate)) {
		u64 now = ktime_get_ns();

		if (q->t_next < now)
			q->t_next = now;
	}

	cls = ndp_sch_classify(q, skb);
	if (cls != NDP_SCH_OTHER) {
		if (ndp_skb_cb(skb)->encap)
			q->stats.encap++;
		if (ndp_sch_hdr(skb)->detours)
			q->stats.detour_in++;
	}
	switch (cls) {
	case NDP_SCH_HDR:
		return ndp_sch_hdr_enqueue(sch, skb, to_free);
	case NDP_SCH_DATA:
		ret = ndp_sch_data_enqueue(sch, skb, to_free, &tree_n,
					   &tree_len);
		/* The parents will add @len for a queued arrival. */
		if (ret == NET_XMIT_SUCCESS && qdisc_pkt_len(skb) < len)
			tree_len += len - qdisc_pkt_len(skb);
		if (tree_n || tree_len)
			qdisc_tree_reduce_backlog(sch, tree_n, tree_len);
		return ret;
	default:
		break;
	}

	if (unlikely(skb_queue_len(&q->oq.skbs) >= READ_ONCE(q->olimit))) {
		q->stats.other_drops++;
		trace_sch_ndp_drop(sch, skb, NULL, qdisc_pkt_len(skb), SCH_NDP_DROP_OTHER_FULL);
		return ndp_compat_qdisc_drop(skb, sch, to_free,
					     NDP_QDISC_DROP_FULL);
	}
	ndp_sch_ce(q, skb, skb_queue_len(&q->oq.skbs));
	ndp_sch_q_add(sch, &q->oq, skb);
	return NET_XMIT_SUCCESS;
}

/*
 * A GSO packet of NDP (a batch of consecutive DATA packets built by a
 * sender on this host, perhaps in another namespace and forwarded whole
 * to this port, see net/ndp/offload.c) is cut into its packets
 * here, as sch_cake splits GSO packets, so that each is queued, trimmed,
 * detoured and sent on its own: a switch port trims packets, not
 * batches.  In UDP the batch is a UDP GSO datagram (SKB_GSO_UDP_L4) of
 * whole NDP packets, cut here the same way.  Other GSO traffic (TCP, UDP
 * to other ports) stays whole in the other queue.
 */
static int ndp_sch_enqueue_gso(struct sk_buff *skb, struct Qdisc *sch,
			       struct sk_buff **to_free)
{
	struct ndp_sched_data *q = qdisc_priv(sch);
	netdev_features_t features = netif_skb_features(skb);
	unsigned int len = qdisc_pkt_len(skb), qlen = 0;
	struct sk_buff *segs, *nskb;
	int n = 0, queued = 0;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);
	skb_list_walk_safe(segs, segs, nskb) {
		unsigned int slen = segs->len;

		skb_mark_not_on_list(segs);
		qdisc_skb_cb(segs)->pkt_len = slen;
		n++;
		if (ndp_sch_enqueue_one(segs, sch, to_free) ==
		    NET_XMIT_SUCCESS) {
			queued++;
			qlen += slen;
		}
	}
	q->stats.gso_split++;
	q->stats.gso_segs += n;
	consume_skb(skb);
	if (!queued)
		return NET_XMIT_DROP;
	/* The parents count one packet of @len for what we queued. */
	qdisc_tree_reduce_backlog(sch, 1 - queued, len - qlen);
	return NET_XMIT_SUCCESS;
}

static int ndp_sch_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct ndp_sched_data *q = qdisc_priv(sch);

	if (skb_is_gso(skb) && ndp_sch_classify(q, skb) != NDP_SCH_OTHER)
		return ndp_sch_enqueue_gso(skb, sch, to_free);
	return ndp_sch_enqueue_one(skb, sch, to_free);
}

/* Next packet of the NDP class, without removing it; *@from its queue. */
static struct sk_buff *ndp_sch_ndp_peek(struct ndp_sched_data *q,
					struct ndp_queue **from)
{
	bool has_hdr = !skb_queue_empty(&q->hq.skbs);
	bool has_data = !skb_queue_empty(&q->dq.skbs);

	if (has_hdr && (!has_data || READ_ONCE(q->mode) ==
			TC_NDP_MODE_PFABRIC || q->wrr_sent < READ_ONCE(q->wrr))) {
		*from = &q->hq;
		return skb_peek(&q->hq.skbs);
	}
	if (!has_data)
		return NULL;
	*from = &q->dq;
	if (READ_ONCE(q->mode) == TC_NDP_MODE_PFABRIC)
		return ndp_sch_pfabric_pick(q);
	return skb_peek(&q->dq.skbs);
}

/* Deficit round robin by bytes between NDP (turn 0) and other (turn 1). */
static struct sk_buff *ndp_sch_pick(struct ndp_sched_data *q,
				    struct ndp_queue **from)
{
	struct sk_buff *nskb, *oskb;
	struct ndp_queue *nfrom = NULL;
	u32 quantum = READ_ONCE(q->quantum);

	nskb = ndp_sch_ndp_peek(q, &nfrom);
	oskb = skb_peek(&q->oq.skbs);
	if (!oskb) {
		q->deficit[1] = 0;
		*from = nfrom;
		return nskb;
	}
	if (!nskb) {
		q->deficit[0] = 0;
		*from = &q->oq;
		return oskb;
	}
	for (;;) {
		u8 t = q->drr_turn;
		struct sk_buff *skb = t ? oskb : nskb;

		if (q->deficit[t] >= qdisc_pkt_len(skb)) {
			q->deficit[t] -= qdisc_pkt_len(skb);
			*from = t ? &q->oq : nfrom;
			return skb;
		}
		q->deficit[t] += quantum;
		q->drr_turn = !t;
	}
}

static struct sk_buff *ndp_sch_dequeue(struct Qdisc *sch)
{
	struct ndp_sched_data *q = qdisc_priv(sch);
	u64 rate = READ_ONCE(q->rate), now = 0;
	struct ndp_queue *from = NULL;
	struct sk_buff *skb;

	if (!sch->q.qlen)
		return NULL;
	if (rate) {
		now = ktime_get_ns();
		if (now < q->t_next) {
			q->stats.throttled++;
			qdisc_watchdog_schedule_range_ns(&q->watchdog, q->t_next,
							 NDP_SCH_TIMER_SLACK_NS);
			return NULL;
		}
	}

	skb = ndp_sch_pick(q, &from);
	if (unlikely(!skb))
		return NULL;
	ndp_sch_q_unlink(sch, from, skb);

	if (from == &q->hq) {
		q->stats.hdr_pkts++;
		q->stats.hdr_bytes += skb->len;
		q->wrr_sent = skb_queue_empty(&q->dq.skbs) ? 0 : q->wrr_sent + 1;
	} else if (from == &q->dq) {
		q->stats.data_pkts++;
		q->stats.data_bytes += skb->len;
		q->wrr_sent = 0;
	} else {
		q->stats.other_pkts++;
		q->stats.other_bytes += skb->len;
	}
	qdisc_bstats_update(sch, skb);

	if (rate) {
		if (now > q->t_next + NDP_SCH_RATE_CATCHUP_NS)
			q->t_next = now;
		q->t_next += div64_u64((u64)skb->len * NSEC_PER_SEC, rate);
	}
	return skb;
}

static void ndp_sch_purge(struct ndp_queue *nq)
{
	__skb_queue_purge(&nq->skbs);
	nq->backlog = 0;
}

static void ndp_sch_reset(struct Qdisc *sch)
{
	struct ndp_sched_data *q = qdisc_priv(sch);

	ndp_sch_purge(&q->hq);
	ndp_sch_purge(&q->dq);
	ndp_sch_purge(&q->oq);
	ndp_pf_clear(q);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
	q->wrr_sent = 0;
	q->deficit[0] = 0;
	q->deficit[1] = 0;
	q->t_next = 0;
}

static struct netlink_range_validation ndp_sch_limit_range = {
	.min = 1, .max = TC_NDP_LIMIT_MAX,
};

static struct netlink_range_validation ndp_sch_hlimit_range = {
	.min = 0, .max = TC_NDP_HLIMIT_MAX,
};

static struct netlink_range_validation ndp_sch_olimit_range = {
	.min = 1, .max = TC_NDP_OLIMIT_MAX,
};

static struct netlink_range_validation ndp_sch_wrr_range = {
	.min = 1, .max = TC_NDP_WRR_MAX,
};

static struct netlink_range_validation ndp_sch_quantum_range = {
	.min = TC_NDP_QUANTUM_MIN, .max = TC_NDP_QUANTUM_MAX,
};

static struct netlink_range_validation ndp_sch_group_range = {
	.min = 0, .max = TC_NDP_GROUP_MAX,
};

static struct netlink_range_validation ndp_sch_thresh_range = {
	.min = 0, .max = TC_NDP_THRESH_MAX,
};

static const struct nla_policy ndp_sch_policy[TCA_NDP_MAX + 1] = {
	[TCA_NDP_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ndp_sch_limit_range),
	[TCA_NDP_HLIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &ndp_sch_hlimit_range),
	[TCA_NDP_OLIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &ndp_sch_olimit_range),
	[TCA_NDP_WRR]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ndp_sch_wrr_range),
	[TCA_NDP_RATE]	= { .type = NLA_U64 },
	[TCA_NDP_RTS]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_NDP_MODE]	= NLA_POLICY_MAX(NLA_U8, TC_NDP_MODE_MAX),
	[TCA_NDP_TRIM_PROB] = NLA_POLICY_MAX(NLA_U32, 100),
	[TCA_NDP_QUANTUM] = NLA_POLICY_FULL_RANGE(NLA_U32,
						  &ndp_sch_quantum_range),
	[TCA_NDP_GROUP]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ndp_sch_group_range),
	[TCA_NDP_HOSTPORT] = NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_NDP_DETOUR] = NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_NDP_OPF_THRESH] = NLA_POLICY_FULL_RANGE(NLA_U32,
						     &ndp_sch_thresh_range),
	[TCA_NDP_DCC_THRESH] = NLA_POLICY_MAX(NLA_U32, TC_NDP_DCC_MAX),
	[TCA_NDP_DEFLECT] = NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_NDP_DEFLECT_THRESH] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &ndp_sch_thresh_range),
	[TCA_NDP_UDP_PORT] = { .type = NLA_U16 },
	/* The lower bound of a non-zero size is checked by change. */
	[TCA_NDP_TRIM_SIZE] = NLA_POLICY_MAX(NLA_U32, TC_NDP_TRIM_SIZE_MAX),
	[TCA_NDP_TRIM_DSCP_HOST] = NLA_POLICY_MAX(NLA_U8, TC_NDP_DSCP_KEEP),
	[TCA_NDP_TRIM_DSCP_FABRIC] = NLA_POLICY_MAX(NLA_U8, TC_NDP_DSCP_KEEP),
	[TCA_NDP_CE_THRESH] = NLA_POLICY_FULL_RANGE(NLA_U32,
						    &ndp_sch_thresh_range),
	[TCA_NDP_IPPROTO] = {
		.type = NLA_REJECT,
		.reject_message = "sch_ndp: ipproto is read only (module parameter)",
	},
};

/*
 * The policy's own range message does not name the option: say what the
 * rejected option accepts.  Keep in step with the policy above.  The UDP
 * port cannot be out of range, only of the wrong size (a u16 is 2 bytes).
 */
static void ndp_sch_explain(struct netlink_ext_ack *extack, int err)
{
	const struct nlattr *bad;

	if (!extack || !extack->bad_attr)
		return;
	bad = extack->bad_attr;
	if (err == -EINVAL && nla_type(bad) == TCA_NDP_UDP_PORT) {
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: udp-port must be a u16 in [0, 65535] (0: off)");
		return;
	}
	if (err != -ERANGE)
		return;
	switch (nla_type(bad)) {
	case TCA_NDP_LIMIT:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: limit must be in [1, 65535] packets");
		break;
	case TCA_NDP_HLIMIT:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: hlimit must be in [0, 131070] packets (0: 2 x limit)");
		break;
	case TCA_NDP_OLIMIT:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: olimit must be in [1, 65535] packets");
		break;
	case TCA_NDP_WRR:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: wrr must be in [1, 1024] headers per data packet");
		break;
	case TCA_NDP_RTS:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: rts must be 0 (off) or 1 (on)");
		break;
	case TCA_NDP_MODE:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: mode must be 0 (ndp) or 1 (pfabric)");
		break;
	case TCA_NDP_TRIM_PROB:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: trim-prob must be in [0, 100] percent");
		break;
	case TCA_NDP_QUANTUM:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: quantum must be in [256, 1048576] bytes");
		break;
	case TCA_NDP_GROUP:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: group must be in [0, 65535] (0: no group)");
		break;
	case TCA_NDP_HOSTPORT:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: hostport must be 0 (off) or 1 (on)");
		break;
	case TCA_NDP_DETOUR:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: detour must be 0 (off) or 1 (on)");
		break;
	case TCA_NDP_OPF_THRESH:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: opf-thresh must be in [0, 65535] packets (0: limit - 2)");
		break;
	case TCA_NDP_DCC_THRESH:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: dcc-thresh must be in [0, 15] detours");
		break;
	case TCA_NDP_DEFLECT:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: deflect must be 0 (off) or 1 (on)");
		break;
	case TCA_NDP_DEFLECT_THRESH:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: deflect-thresh must be in [0, 65535] packets (0: 2/3 of limit)");
		break;
	case TCA_NDP_TRIM_SIZE:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: trim-size must be 0 (headers only) or in [60, 1500] bytes");
		break;
	case TCA_NDP_TRIM_DSCP_HOST:
	case TCA_NDP_TRIM_DSCP_FABRIC:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: trim-dscp-host and trim-dscp-fabric must be in [0, 63] (64: keep)");
		break;
	case TCA_NDP_CE_THRESH:
		NL_SET_ERR_MSG_ATTR(extack, bad,
				    "sch_ndp: ce-thresh must be in [0, 65535] packets (0: off)");
		break;
	}
}

/* Group @id of @net, or NULL.  RTNL. */
static struct ndp_sch_group *ndp_sch_group_find(struct net *net, u32 id)
{
	struct ndp_sch_net *sn = net_generic(net, ndp_sch_net_id);
	struct ndp_sch_group *g;

	ASSERT_RTNL();
	list_for_each_entry(g, &sn->groups, node)
		if (g->id == id)
			return g;
	return NULL;
}

/*
 * Check that port @q may join group @id and find or allocate it; nothing
 * is linked yet.  *@newg is set to a new group the caller must link with
 * ndp_sch_group_join() or free.  RTNL.
 */
static int ndp_sch_group_prepare(struct ndp_sched_data *q, u32 id,
				 struct ndp_sch_group **newg,
				 struct netlink_ext_ack *extack)
{
	struct net_device *dev = qdisc_dev(q->sch);
	struct net *net = dev_net(dev);
	struct ndp_sch_net *sn = net_generic(net, ndp_sch_net_id);
	struct ndp_sch_group *g, *cur = rtnl_dereference(q->group);
	struct ndp_sched_data *s;

	*newg = NULL;
	if (!id || (cur && cur->id == id))
		return 0;
	list_for_each_entry(g, &sn->groups, node) {
		list_for_each_entry(s, &g->ports, gnode) {
			if (s != q && qdisc_dev(s->sch) == dev) {
				NL_SET_ERR_MSG(extack,
					       "sch_ndp: this device is already a port of a group");
				return -EBUSY;
			}
		}
	}
	g = ndp_sch_group_find(net, id);
	if (g) {
		if (g->nports >= TC_NDP_GROUP_PORTS_MAX) {
			NL_SET_ERR_MSG(extack,
				       "sch_ndp: the group is full (64 ports)");
			return -ENOSPC;
		}
		return 0;
	}
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g) {
		NL_SET_ERR_MSG(extack, "sch_ndp: no memory for the port group");
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&g->node);
	INIT_LIST_HEAD(&g->ports);
	g->id = id;
	g->seed = get_random_u32();
	spin_lock_init(&g->lock);
	*newg = g;
	return 0;
}

/* Leave the current group; the last port frees it.  RTNL. */
static void ndp_sch_group_leave(struct ndp_sched_data *q)
{
	struct ndp_sch_group *g = rtnl_dereference(q->group);

	ASSERT_RTNL();
	if (!g)
		return;
	list_del_rcu(&q->gnode);
	RCU_INIT_POINTER(q->group, NULL);
	if (--g->nports)
		return;
	list_del(&g->node);
	kfree_rcu(g, rcu);
}

/*
 * Move port @q to group @id (0: no group), with @newg from
 * ndp_sch_group_prepare().  Cannot fail.  RTNL.
 */
static void ndp_sch_group_join(struct ndp_sched_data *q, u32 id,
			       struct ndp_sch_group *newg)
{
	struct net *net = dev_net(qdisc_dev(q->sch));
	struct ndp_sch_group *g = rtnl_dereference(q->group);

	ASSERT_RTNL();
	if (g && g->id == id)
		return;
	ndp_sch_group_leave(q);
	if (!id)
		return;
	g = newg;
	if (g) {
		struct ndp_sch_net *sn = net_generic(net, ndp_sch_net_id);

		list_add_tail(&g->node, &sn->groups);
	} else {
		g = ndp_sch_group_find(net, id);
	}
	g->nports++;
	list_add_tail_rcu(&q->gnode, &g->ports);
	rcu_assign_pointer(q->group, g);
}

static int __net_init ndp_sch_net_init(struct net *net)
{
	struct ndp_sch_net *sn = net_generic(net, ndp_sch_net_id);

	INIT_LIST_HEAD(&sn->groups);
	return 0;
}

/*
 * The namespace's devices, and with them their qdiscs and groups, are gone
 * before this runs.  A port whose device moved to another namespace keeps
 * its group, which is only unlisted here; its last port frees it.
 */
static void __net_exit ndp_sch_net_exit(struct net *net)
{
	struct ndp_sch_net *sn = net_generic(net, ndp_sch_net_id);
	struct ndp_sch_group *g, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(g, tmp, &sn->groups, node)
		list_del_init(&g->node);
	rtnl_unlock();
}

static struct pernet_operations ndp_sch_net_ops = {
	.init	= ndp_sch_net_init,
	.exit	= ndp_sch_net_exit,
	.id	= &ndp_sch_net_id,
	.size	= sizeof(struct ndp_sch_net),
};

/* Drop from the head of @nq until it holds at most @max packets. */
static void ndp_sch_shrink(struct Qdisc *sch, struct ndp_queue *nq, u32 max,
			   int *n, int *len)
{
	while (skb_queue_len(&nq->skbs) > max) {
		struct sk_buff *skb = skb_peek(&nq->skbs);

		ndp_sch_q_unlink(sch, nq, skb);
		*n += 1;
		*len += qdisc_pkt_len(skb);
		trace_sch_ndp_drop(sch, skb, NULL, qdisc_pkt_len(skb), SCH_NDP_DROP_SHRINK);
		rtnl_qdisc_drop(skb, sch);
	}
}

static int ndp_sch_change(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct ndp_sched_data *q = qdisc_priv(sch);
	struct ndp_pf_node *nodes = NULL, *old_nodes = NULL;
	struct ndp_sch_group *cur, *newg = NULL;
	struct nlattr *tb[TCA_NDP_MAX + 1];
	int err, n = 0, len = 0;
	bool new_index = false;
	u32 limit, pf_size, group;
	u8 mode, detour, deflect;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_NDP_MAX, opt, ndp_sch_policy, extack);
	if (err < 0) {
		ndp_sch_explain(extack, err);
		return err;
	}
	if (tb[TCA_NDP_TRIM_SIZE]) {
		u32 size = nla_get_u32(tb[TCA_NDP_TRIM_SIZE]);

		if (size && size < TC_NDP_TRIM_SIZE_MIN) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_NDP_TRIM_SIZE],
					    "sch_ndp: trim-size must be 0 (headers only) or in [60, 1500] bytes");
			return -ERANGE;
		}
	}

	/*
	 * Port group: validate and allocate before changing anything.  Only
	 * "change" (under RTNL) writes the group and the detour switches.
	 */
	cur = rtnl_dereference(q->group);
	group = tb[TCA_NDP_GROUP] ? nla_get_u32(tb[TCA_NDP_GROUP]) :
				    cur ? cur->id : 0;
	detour = tb[TCA_NDP_DETOUR] ? nla_get_u8(tb[TCA_NDP_DETOUR]) :
				      q->detour;
	deflect = tb[TCA_NDP_DEFLECT] ? nla_get_u8(tb[TCA_NDP_DEFLECT]) :
					q->deflect;
	if (!group && (detour || deflect)) {
		NL_SET_ERR_MSG(extack,
			       "sch_ndp: detour and deflect need a port group (group ID)");
		return -EINVAL;
	}
	err = ndp_sch_group_prepare(q, group, &newg, extack);
	if (err)
		return err;

	/*
	 * pFabric mode needs its index sized to the limit; allocate it before
	 * changing anything, so a failure changes nothing.  Only "change"
	 * (under RTNL) writes limit and mode, so reading them here is stable.
	 */
	limit = tb[TCA_NDP_LIMIT] ? nla_get_u32(tb[TCA_NDP_LIMIT]) : q->limit;
	mode = tb[TCA_NDP_MODE] ? nla_get_u8(tb[TCA_NDP_MODE]) : q->mode;
	pf_size = mode == TC_NDP_MODE_PFABRIC ? limit : 0;
	if (pf_size != q->pf_size) {
		new_index = true;
		if (pf_size) {
			nodes = kvcalloc(pf_size, sizeof(*nodes), GFP_KERNEL);
			if (!nodes) {
				NL_SET_ERR_MSG(extack,
					       "sch_ndp: no memory for the pFabric index (one entry per packet of limit)");
				kfree(newg);
				return -ENOMEM;
			}
		}
	}

	sch_tree_lock(sch);
	if (tb[TCA_NDP_LIMIT])
		WRITE_ONCE(q->limit, nla_get_u32(tb[TCA_NDP_LIMIT]));
	if (tb[TCA_NDP_HLIMIT])
		WRITE_ONCE(q->hlimit, nla_get_u32(tb[TCA_NDP_HLIMIT]));
	if (tb[TCA_NDP_OLIMIT])
		WRITE_ONCE(q->olimit, nla_get_u32(tb[TCA_NDP_OLIMIT]));
	if (tb[TCA_NDP_WRR])
		WRITE_ONCE(q->wrr, nla_get_u32(tb[TCA_NDP_WRR]));
	if (tb[TCA_NDP_QUANTUM])
		WRITE_ONCE(q->quantum, nla_get_u32(tb[TCA_NDP_QUANTUM]));
	if (tb[TCA_NDP_TRIM_PROB])
		WRITE_ONCE(q->trim_prob, nla_get_u32(tb[TCA_NDP_TRIM_PROB]));
	if (tb[TCA_NDP_RTS])
		WRITE_ONCE(q->rts, nla_get_u8(tb[TCA_NDP_RTS]));
	if (tb[TCA_NDP_MODE])
		WRITE_ONCE(q->mode, nla_get_u8(tb[TCA_NDP_MODE]));
	if (tb[TCA_NDP_HOSTPORT])
		WRITE_ONCE(q->hostport, nla_get_u8(tb[TCA_NDP_HOSTPORT]));
	if (tb[TCA_NDP_DETOUR])
		WRITE_ONCE(q->detour, nla_get_u8(tb[TCA_NDP_DETOUR]));
	if (tb[TCA_NDP_OPF_THRESH])
		WRITE_ONCE(q->opf_thresh, nla_get_u32(tb[TCA_NDP_OPF_THRESH]));
	if (tb[TCA_NDP_DCC_THRESH])
		WRITE_ONCE(q->dcc_thresh, nla_get_u32(tb[TCA_NDP_DCC_THRESH]));
	if (tb[TCA_NDP_DEFLECT])
		WRITE_ONCE(q->deflect, nla_get_u8(tb[TCA_NDP_DEFLECT]));
	if (tb[TCA_NDP_DEFLECT_THRESH])
		WRITE_ONCE(q->deflect_thresh,
			   nla_get_u32(tb[TCA_NDP_DEFLECT_THRESH]));
	if (tb[TCA_NDP_UDP_PORT])
		WRITE_ONCE(q->udp_port, nla_get_u16(tb[TCA_NDP_UDP_PORT]));
	if (tb[TCA_NDP_TRIM_SIZE])
		WRITE_ONCE(q->trim_size, nla_get_u32(tb[TCA_NDP_TRIM_SIZE]));
	if (tb[TCA_NDP_TRIM_DSCP_HOST])
		WRITE_ONCE(q->trim_dscp_host,
			   nla_get_u8(tb[TCA_NDP_TRIM_DSCP_HOST]));
	if (tb[TCA_NDP_TRIM_DSCP_FABRIC])
		WRITE_ONCE(q->trim_dscp_fabric,
			   nla_get_u8(tb[TCA_NDP_TRIM_DSCP_FABRIC]));
	if (tb[TCA_NDP_CE_THRESH])
		WRITE_ONCE(q->ce_thresh, nla_get_u32(tb[TCA_NDP_CE_THRESH]));
	if (tb[TCA_NDP_RATE]) {
		WRITE_ONCE(q->rate, nla_get_u64(tb[TCA_NDP_RATE]));
		/* A new rate applies from now, not from the old schedule. */
		q->t_next = 0;
		if (sch->q.qlen)
			qdisc_watchdog_schedule_ns(&q->watchdog, ktime_get_ns());
	}

	if (new_index) {
		ndp_pf_clear(q);
		old_nodes = q->pf_nodes;
		q->pf_nodes = nodes;
		q->pf_size = 0;
	}
	ndp_sch_shrink(sch, &q->dq, q->limit, &n, &len);
	ndp_sch_shrink(sch, &q->hq, ndp_sch_hlimit(q), &n, &len);
	ndp_sch_shrink(sch, &q->oq, q->olimit, &n, &len);
	if (new_index) {
		q->pf_size = pf_size;
		ndp_pf_rebuild(q);
	}
	qdisc_tree_reduce_backlog(sch, n, len);
	sch_tree_unlock(sch);
	kvfree(old_nodes);
	ndp_sch_group_join(q, group, newg);
	return 0;
}

static int ndp_sch_init(struct Qdisc *sch, struct nlattr *opt,
			struct netlink_ext_ack *extack)
{
	struct ndp_sched_data *q = qdisc_priv(sch);

	__skb_queue_head_init(&q->hq.skbs);
	__skb_queue_head_init(&q->dq.skbs);
	__skb_queue_head_init(&q->oq.skbs);
	q->limit = NDP_SCH_LIMIT_DEFAULT;
	q->hlimit = 0;
	q->olimit = NDP_SCH_OLIMIT_DEFAULT;
	q->wrr = NDP_SCH_WRR_DEFAULT;
	q->quantum = clamp_t(u32, psched_mtu(qdisc_dev(sch)),
			     TC_NDP_QUANTUM_MIN, TC_NDP_QUANTUM_MAX);
	q->trim_prob = NDP_SCH_TRIM_PROB_DEFAULT;
	q->rate = 0;
	q->rts = 1;
	q->mode = TC_NDP_MODE_NDP;
	q->seed = get_random_u32();
	q->pf_prio = RB_ROOT_CACHED;
	q->pf_flow = RB_ROOT;
	q->sch = sch;
	INIT_LIST_HEAD(&q->gnode);
	q->dcc_thresh = NDP_SCH_DCC_DEFAULT;
	q->trim_dscp_host = TC_NDP_DSCP_KEEP;
	q->trim_dscp_fabric = TC_NDP_DSCP_KEEP;
	qdisc_watchdog_init(&q->watchdog, sch);

	return ndp_sch_change(sch, opt, extack);
}

/* Also runs when init failed: the queues are then empty. */
static void ndp_sch_destroy(struct Qdisc *sch)
{
	struct ndp_sched_data *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	ndp_sch_group_leave(q);
	ndp_sch_purge(&q->hq);
	ndp_sch_purge(&q->dq);
	ndp_sch_purge(&q->oq);
	kvfree(q->pf_nodes);
	q->pf_nodes = NULL;
	q->pf_size = 0;
}

static int ndp_sch_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ndp_sched_data *q = qdisc_priv(sch);
	struct ndp_sch_group *g;
	struct nlattr *opts;
	u32 group;

	rcu_read_lock();
	g = rcu_dereference(q->group);
	group = g ? g->id : 0;
	rcu_read_unlock();

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (nla_put_u32(skb, TCA_NDP_LIMIT, READ_ONCE(q->limit)) ||
	    nla_put_u32(skb, TCA_NDP_HLIMIT, ndp_sch_hlimit(q)) ||
	    nla_put_u32(skb, TCA_NDP_OLIMIT, READ_ONCE(q->olimit)) ||
	    nla_put_u32(skb, TCA_NDP_WRR, READ_ONCE(q->wrr)) ||
	    nla_put_u64_64bit(skb, TCA_NDP_RATE, READ_ONCE(q->rate),
			      TCA_NDP_PAD) ||
	    nla_put_u8(skb, TCA_NDP_RTS, READ_ONCE(q->rts)) ||
	    nla_put_u8(skb, TCA_NDP_MODE, READ_ONCE(q->mode)) ||
	    nla_put_u32(skb, TCA_NDP_TRIM_PROB, READ_ONCE(q->trim_prob)) ||
	    nla_put_u32(skb, TCA_NDP_QUANTUM, READ_ONCE(q->quantum)) ||
	    nla_put_u8(skb, TCA_NDP_IPPROTO, ndp_sch_ipproto) ||
	    nla_put_u32(skb, TCA_NDP_GROUP, group) ||
	    nla_put_u8(skb, TCA_NDP_HOSTPORT, READ_ONCE(q->hostport)) ||
	    nla_put_u8(skb, TCA_NDP_DETOUR, READ_ONCE(q->detour)) ||
	    nla_put_u32(skb, TCA_NDP_OPF_THRESH, ndp_sch_opf_thresh(q)) ||
	    nla_put_u32(skb, TCA_NDP_DCC_THRESH, READ_ONCE(q->dcc_thresh)) ||
	    nla_put_u8(skb, TCA_NDP_DEFLECT, READ_ONCE(q->deflect)) ||
	    nla_put_u32(skb, TCA_NDP_DEFLECT_THRESH,
			ndp_sch_deflect_thresh(q)) ||
	    nla_put_u16(skb, TCA_NDP_UDP_PORT, READ_ONCE(q->udp_port)) ||
	    nla_put_u32(skb, TCA_NDP_TRIM_SIZE, READ_ONCE(q->trim_size)) ||
	    nla_put_u8(skb, TCA_NDP_TRIM_DSCP_HOST,
		       READ_ONCE(q->trim_dscp_host)) ||
	    nla_put_u8(skb, TCA_NDP_TRIM_DSCP_FABRIC,
		       READ_ONCE(q->trim_dscp_fabric)) ||
	    nla_put_u32(skb, TCA_NDP_CE_THRESH, READ_ONCE(q->ce_thresh)))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int ndp_sch_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct ndp_sched_data *q = qdisc_priv(sch);
	struct tc_ndp_xstats st;

	sch_tree_lock(sch);
	st = q->stats;
	st.hdr_qlen = skb_queue_len(&q->hq.skbs);
	st.data_qlen = skb_queue_len(&q->dq.skbs);
	st.other_qlen = skb_queue_len(&q->oq.skbs);
	st.hdr_backlog = q->hq.backlog;
	st.data_backlog = q->dq.backlog;
	st.other_backlog = q->oq.backlog;
	sch_tree_unlock(sch);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct Qdisc_ops ndp_sch_ops __read_mostly = {
	.id		= "ndp",
	.priv_size	= sizeof(struct ndp_sched_data),
	.enqueue	= ndp_sch_enqueue,
	.dequeue	= ndp_sch_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= ndp_sch_init,
	.reset		= ndp_sch_reset,
	.destroy	= ndp_sch_destroy,
	.change		= ndp_sch_change,
	.dump		= ndp_sch_dump,
	.dump_stats	= ndp_sch_dump_stats,
	.owner		= THIS_MODULE,
};

/* Stop every CPU's tasklet and free what it still holds. */
static void ndp_sch_xmitq_stop(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ndp_sch_xmitq *xq = per_cpu_ptr(&ndp_sch_xmitq, cpu);

		tasklet_kill(&xq->tasklet);
		ndp_sch_xmitq_purge(xq);
	}
}

static int __init ndp_sch_module_init(void)
{
	int cpu, err;

	ndp_wire_build_bug_on();
	BUILD_BUG_ON(sizeof(struct ndp_skb_cb) > QDISC_CB_PRIV_LEN);
	if (!ndp_sch_ipproto || ndp_sch_ipproto > 255) {
		pr_err("sch_ndp: ipproto must be in [1, 255]\n");
		return -EINVAL;
	}
	for_each_possible_cpu(cpu) {
		struct ndp_sch_xmitq *xq = per_cpu_ptr(&ndp_sch_xmitq, cpu);

		skb_queue_head_init(&xq->skbs);
		tasklet_setup(&xq->tasklet, ndp_sch_xmit_tasklet);
	}
	err = register_pernet_subsys(&ndp_sch_net_ops);
	if (err)
		return err;
	err = register_qdisc(&ndp_sch_ops);
	if (err)
		unregister_pernet_subsys(&ndp_sch_net_ops);
	return err;
}

static void __exit ndp_sch_module_exit(void)
{
	unregister_qdisc(&ndp_sch_ops);
	unregister_pernet_subsys(&ndp_sch_net_ops);
	ndp_sch_xmitq_stop();
}

module_init(ndp_sch_module_init);
module_exit(ndp_sch_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("NDP switch port: trimming, header priority, pFabric, detours");
MODULE_ALIAS_NET_SCH("ndp");
