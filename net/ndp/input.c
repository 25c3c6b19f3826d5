// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: receive path: demultiplexing, passive open and the handling of
 * each packet type.
 *
 * Demux (ndp_rcv): connection table by 4-tuple and nonce, then by ports
 * and nonce alone (multipath steers packets through other addresses, see
 * path.c); else time-wait (replays); else, for a first-window DATA packet (SYN), the listener of
 * the local address and port creates the connection; else RST.
 *
 * Receiver, per DATA packet (ndp_rcv_data):
 *   intact, new  -> queue (in order to the receive queue, else to the
 *                   out-of-order queue), ACK at once, owe one pull
 *                   (PULLACK if the pull queue is idle).  On LAST, drop
 *                   owed pulls beyond the packets still missing.
 *   trimmed      -> NACK at once, owe one pull.  A packet with a bad
 *                   payload checksum or that does not fit in receive
 *                   memory is handled as if trimmed (the sender resends
 *                   it when pulled).
 *   duplicate    -> ACK again, nothing else.
 * ACK and NACK echo the DATA packet's path id.
 * Sender, per ACK/NACK/PULL: see ndp_rcv_ack(), ndp_rcv_nack(),
 * ndp_rcv_pull(); ACK, NACK, and returned headers also feed the
 * scoreboard of the path they report on (path.c).  Every control packet
 * carries the receiver's cumulative ack (next expected psn) in syn_off.
 *
 * Locking, as TCP's (tcp_v4_rcv()): softirq takes the socket's spinlock
 * (bh_lock_sock()).  If no user owns the socket the packet is processed
 * at once and the packets it calls for are sent after the spinlock is
 * dropped.  If a user owns it (lock_sock(): a system call is running),
 * the packet waits in the socket's backlog, at most twice the socket's
 * receive plus send buffer (beyond: DATA waits as its header,
 * BacklogShed, see ndp_backlog_shed(); beyond that too: dropped,
 * BacklogDrop), and the user processes
 * it when it releases the socket (release_sock() -> ndp_backlog_rcv(),
 * BacklogRcv).  A listener is locked nested (the connection a first
 * window creates is locked inside it by sk_clone_lock()); a first window
 * for a listener its user owns waits in the listener's backlog the same
 * way.  Filter and IPsec policy are applied before a packet is queued.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <linux/filter.h>
#include <net/sock.h>
#include <net/xfrm.h>
#include <net/netfilter/nf_conntrack.h>

#include "protocol.h"

#define NDP_RCV_WINDOW	16384	/* psns ahead of rcv_nxt we accept */

/* ---------------------------------------------------------------------- */
/* Sender side: ACK, NACK, PULL.                                          */

static struct sk_buff *ndp_sndq_find(struct ndp_sock *nsk, u32 psn)
{
	if (ndp_before(psn, nsk->snd.una) || !ndp_before(psn, nsk->snd.nxt))
		return NULL;
	return ndp_rb_find(&nsk->snd.q, psn);
}

/*
 * Whether @psn can be a report on our packets: at most snd_nxt (included
 * if @incl: a cumulative ack), and no further back than our first psn or
 * NDP_RCV_WINDOW psns before snd_una (reordered old reports).  A peer can
 * only know these values from our packets: 32 random bits (isn) that an
 * off-path sender cannot see.
 */
static bool ndp_report_ok(const struct ndp_sock *nsk, u32 psn, bool incl)
{
	u32 back = min(nsk->snd.nxt - nsk->snd.isn,
		       nsk->snd.nxt - nsk->snd.una + NDP_RCV_WINDOW);
	u32 d = nsk->snd.nxt - psn;

	return d <= back && (incl || d);
}

/*
 * A report on a packet of ours that went out: the scoreboard learns.
 * Returns whether it was newly acknowledged.
 */
static bool ndp_mark_acked(struct sock *sk, struct sk_buff *skb, u8 path,
			   bool ce)
{
	struct ndp_skb_cb *cb = NDP_SKB_CB(skb);
	struct ndp_sock *nsk = ndp_sk(sk);

	ndp_sock_assert_locked(sk);
	if (!cb->sent || cb->acked)
		return false;
	cb->acked = 1;
	/* Our LAST arrived: the peer dropped the pulls it still owed. */
	if (cb->last)
		nsk->snd.pulls_owed = 0;
	if (cb->rtx) {
		cb->rtx = 0;
		nsk->snd.rtx_pending--;
	} else if (path == cb->path) {
		/* Reports on the transmission the path id names only. */
		ndp_path_feedback(sk, path, NDP_PATH_FB_ACK);
		if (ce)
			ndp_path_feedback(sk, path, NDP_PATH_FB_CE);
	}
	return true;
}

/*
 * @acks psns ending with @psn arrived on @path (0: none named, only the
 * cumulative ack @cum), marked CE if @ce; the peer held the ACK for
 * @delay_us (delack.c).  Returns whether snd_una advanced.
 */
static bool ndp_rcv_ack(struct sock *sk, u32 acks, u32 psn, u32 cum, u8 path,
			bool ce, u32 delay_us)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 una = nsk->snd.una, p = psn - acks + 1;
	struct sk_buff *skb = NULL;
	u64 sample_ns = 0;

	ndp_sock_assert_locked(sk);
	/* A span is consecutive psns: walk the queue, find only gaps. */
	for (; acks; acks--, p++) {
		if (!skb || NDP_SKB_CB(skb)->psn != p)
			skb = ndp_sndq_find(nsk, p);
		if (!skb)
			continue;
		/* An RTT sample from the newest packet sent once (Karn). */
		if (ndp_mark_acked(sk, skb, path, ce) &&
		    !NDP_SKB_CB(skb)->resent)
			sample_ns = max(sample_ns, NDP_SKB_CB(skb)->sent_ns);
		skb = skb_rb_next(skb);
	}
	/* No more off the sample than we allowed the peer to hold. */
	if (sample_ns)
		ndp_rtt_sample(sk, sample_ns,
			       min_t(u32, delay_us, nsk->delack.allow_us));
	/* Cumulative: everything before the peer's rcv_nxt arrived. */
	if (ndp_after(cum, una) && !ndp_after(cum, nsk->snd.nxt)) {
		for (skb = skb_rb_first(&nsk->snd.q); skb;
		     skb = skb_rb_next(skb)) {
			if (!ndp_before(NDP_SKB_CB(skb)->psn, cum))
				break;
			ndp_mark_acked(sk, skb, U8_MAX, false);
		}
	}
	ndp_clean_acked(sk);
	if (nsk->snd.una == una)
		return false;
	nsk->ever_acked = true;
	nsk->rto.orphan_rtos = 0;
	/* Progress: an earlier ICMP error was transient (as TCP). */
	if (READ_ONCE(sk->sk_err_soft))
		WRITE_ONCE(sk->sk_err_soft, 0);
	/* The oldest packet in flight arrived: the backoff ends. */
	nsk->rto.backoff = 0;
	if (RB_EMPTY_ROOT(&nsk->snd.q)) {
		/* All acknowledged after LAST: the peer dropped the pulls it
		 * owed us.  Without LAST it still owes them: they pay for
		 * the data a waiting writer queues next.
		 */
		if (nsk->snd.idle)
			nsk->snd.pulls_owed = 0;
		ndp_rto_stop(sk);
	} else {
		ndp_rto_arm(sk);
	}
	sk->sk_write_space(sk);
	return true;
}

/* Returns whether a packet of ours was newly marked for retransmission. */
static bool ndp_rcv_nack(struct sock *sk, u32 psn, u8 path, bool rts)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff *skb = ndp_sndq_find(nsk, psn);
	struct ndp_skb_cb *cb;

	if (!skb)
		return false;
	cb = NDP_SKB_CB(skb);
	if (!cb->sent || cb->acked || cb->rtx)
		return false;
	if (path == cb->path)
		ndp_path_feedback(sk, path, rts ? NDP_PATH_FB_RTS :
						  NDP_PATH_FB_NACK);
	cb->rtx = 1;
	nsk->snd.rtx_pending++;
	nsk->snd.topup_held = true;
	if (nsk->snd.idle) {
		/* It was our LAST: the peer owes us a pull for it. */
		nsk->snd.idle = false;
		nsk->snd.unsched = 0;
	}
	return true;
}

/*
 * An ACK or NACK of packets still queued (@n psns ending with @psn): the
 * peer owes a pull for each.
 */
static void ndp_rcv_owed(struct ndp_sock *nsk, u32 psn, u32 n)
{
	for (psn -= n - 1; n; n--, psn++)
		if (!ndp_before(psn, nsk->snd.una) &&
		    ndp_before(psn, nsk->snd.nxt))
			nsk->snd.pulls_owed++;
}

/*
 * How far apart the peer's pulls come while we wait for them: a moving
 * average (7/8 old, 1/8 new) of the gaps that started with something left
 * to send, kept times 8 in jiffies.  The RTO waits a few of these gaps
 * before presuming a pull lost (timer.c).
 */
static void ndp_pull_gap_sample(struct ndp_sock *nsk)
{
	unsigned long now = jiffies;

	if (nsk->snd.pull_waiting) {
		u32 gap8 = min_t(unsigned long, now - nsk->snd.pull_at,
				 NDP_PULL_GAP_MAX) * 8;

		nsk->snd.pull_gap8 = nsk->snd.pull_gap8 ?
				 nsk->snd.pull_gap8 - nsk->snd.pull_gap8 / 8 + gap8 / 8 :
				 gap8;
	}
	nsk->snd.pull_at = now;
}

/* Returns whether the pull counter advanced. */
static bool ndp_rcv_pull(struct sock *sk, u32 ctr, struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 n;

	if (!ndp_after(ctr, nsk->snd.pull_seen))
		return false;	/* old or reordered pull */
	/* One pull per packet the peer received: never more than we sent. */
	if (ndp_after(ctr, nsk->snd.tx_data)) {
		NDP_INC_STATS(sock_net(sk), NDP_MIB_INBADPULLS);
		return false;
	}
	n = ctr - nsk->snd.pull_seen;
	nsk->snd.pull_seen = ctr;
	nsk->snd.pulls_owed -= min(n, nsk->snd.pulls_owed);
	ndp_pull_gap_sample(nsk);
	nsk->snd.credit = min_t(u32, nsk->snd.credit + n, 1024);
	ndp_send_credit(sk, xmitq);
	nsk->snd.pull_waiting = !nsk->snd.credit &&
			    (nsk->snd.rtx_pending || nsk->snd.head);
	return true;
}

/*
 * A header of ours came back (return to sender, paper 3.2.4): the receiver
 * never saw it, so no pull will come for it.  It counts against the path
 * it took (as three NACKs) and is queued for retransmission.  It is resent
 * at once, on another path, when no pull is expected (else it would wait
 * for the RTO) or when recent feedback on its path is mostly ACKs (the
 * bounce met a passing burst); otherwise the next pull takes it.
 */
static void ndp_rcv_rts(struct sock *sk, u32 psn, u8 path,
			struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct net *net = sock_net(sk);
	struct sk_buff *skb;

	NDP_INC_STATS(net, NDP_MIB_INRTS);
	nsk->st.rts_rcvd++;
	trace_ndp_rts(sk, psn, path);
	skb = ndp_sndq_find(nsk, psn);
	if (!skb || !ndp_rcv_nack(sk, psn, path, true))
		return;
	if (!ndp_expects_pull(nsk)) {
		NDP_INC_STATS(net, NDP_MIB_RTSRESENT);
	} else if (ndp_path_mostly_acks(sk, path)) {
		NDP_INC_STATS(net, NDP_MIB_RTSRESENTPATH);
	} else {
		NDP_INC_STATS(net, NDP_MIB_RTSWAITPULL);
		return;
	}
	nsk->st.rtx_rts++;
	ndp_resend_now(sk, skb, xmitq);
}

/*
 * ICMP (plumbing.c) about DATA @psn of ours: the packet was dropped on
 * the way.  Called under the socket lock once the caller matched ports and
 * nonce; the psn must name a packet sent and not yet acknowledged, as TCP
 * wants the quoted sequence number inside its window, so that an off-path
 * host cannot shrink the MTU of a connection or fail it.
 *
 * @mtu (0: none): a smaller path MTU.  New packets are cut to fit it, and
 * so are the queued packets that never left (ndp_recut_unsent()); packets
 * already sent keep their psn and size, and those larger than the path
 * leave as IP fragments when resent (output.c).  The dropped packet is
 * resent at once, as a return to sender: the peer never saw it and owes
 * no pull for it.
 * @err (0: none): an unreachable error, kept as the soft error
 * (sk_err_soft) that ETIMEDOUT reports instead, as in TCP; with IP_RECVERR
 * or IPV6_RECVERR it is also reported at once (sk_err), as TCP does.
 *
 * Return: whether @psn was in flight (else the ICMP is ignored).
 */
bool ndp_rcv_icmp(struct sock *sk, u32 psn, u32 mtu, int err,
		  struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct net *net = sock_net(sk);
	struct sk_buff *skb;
	u32 mss;

	ndp_sock_assert_locked(sk);
	skb = ndp_sndq_find(nsk, psn);
	if (nsk->dead || !skb || !NDP_SKB_CB(skb)->sent ||
	    NDP_SKB_CB(skb)->acked)
		return false;
	if (err) {
		WRITE_ONCE(sk->sk_err_soft, err);
		NDP_INC_STATS(net, NDP_MIB_ICMPSOFTERRS);
		if (ndp_recverr(sk)) {
			WRITE_ONCE(sk->sk_err, err);
			sk_error_report(sk);
		}
		return true;
	}
	mss = ndp_mss_for(sk, mtu);
	if (mss < nsk->mss) {
		WRITE_ONCE(nsk->mss, mss);
		NDP_INC_STATS(net, NDP_MIB_PMTUEVENTS);
		/* What never left is cut again at the new size. */
		ndp_recut_unsent(sk, nsk->snd.head);
	}
	if (ndp_rcv_nack(sk, psn, U8_MAX, false)) {
		NDP_INC_STATS(net, NDP_MIB_PMTURESENT);
		ndp_resend_now(sk, skb, xmitq);
	}
	return true;
}

/* ---------------------------------------------------------------------- */
/* Receiver side: DATA.                                                   */

/* ACK or NACK (or RST) of DATA @psn that arrived on path @path. */
static struct sk_buff *ndp_send_ctrl(struct sock *sk, u8 type, u32 psn,
				     u8 path, bool pull, u32 ctr,
				     struct sk_buff_head *xmitq)
{
	struct net *net = sock_net(sk);
	struct sk_buff *skb;

	skb = ndp_ctrl_skb(sk, type, pull ? NDP_F_PULL : 0, psn);
	if (!skb)
		return NULL;
	ndp_hdr(skb)->path = path;
	if (pull) {
		ndp_hdr(skb)->pull = htonl(ctr);
		NDP_INC_STATS(net, NDP_MIB_OUTPULLS);
		trace_ndp_pull(sk, ctr, true);
		NDP_INC_STATS(net, NDP_MIB_OUTPULLACKS);
	}
	NDP_INC_STATS(net, type == NDP_PKT_ACK ? NDP_MIB_OUTACKS :
						  NDP_MIB_OUTNACKS);
	if (type == NDP_PKT_NACK)
		ndp_sk(sk)->st.nacks_sent++;
	__skb_queue_tail(xmitq, skb);
	return skb;
}

/*
 * DATA @psn had arrived before: ACK it again (our first ACK may be the
 * one lost), marked NDP_F_DUP so that a sender whose RTO resent it
 * learns the expiry was spurious (ndp_rcv_feedback()).
 */
static void ndp_send_dup_ack(struct sock *sk, u32 psn, u8 path,
			     struct sk_buff_head *xmitq)
{
	struct sk_buff *skb;

	NDP_INC_STATS(sock_net(sk), NDP_MIB_INDUPS);
	skb = ndp_send_ctrl(sk, NDP_PKT_ACK, psn, path, false, 0, xmitq);
	if (skb)
		ndp_hdr(skb)->flags |= htons(NDP_F_DUP);
}

static void ndp_ack_flush(struct sock *sk, struct ndp_ack_batch *ab,
			  struct sk_buff_head *xmitq)
{
	struct sk_buff *skb;

	if (!ab->n)
		return;
	skb = ndp_send_ctrl(sk, NDP_PKT_ACK, ab->psn, ab->path, ab->pull,
			    ab->ctr, xmitq);
	if (skb && ab->ce)
		ndp_hdr(skb)->flags |= htons(NDP_F_CE);
	if (skb && ab->n > 1) {
		ndp_hdr(skb)->acks = htons(ab->n);
		NDP_INC_STATS(sock_net(sk), NDP_MIB_OUTACKSPANS);
	}
	ab->n = 0;
	ab->pull = false;
}

/*
 * DATA @psn arrived intact (marked CE if @ce): ACK it now, or with its
 * run (@ab).  A run is all CE or all unmarked: the flag of its one ACK
 * speaks for every psn it reports.
 */
static void ndp_ack(struct sock *sk, struct ndp_ack_batch *ab, u32 psn,
		    u8 path, bool ce, bool pull, u32 ctr,
		    struct sk_buff_head *xmitq)
{
	struct sk_buff *skb;

	if (!ab) {
		skb = ndp_send_ctrl(sk, NDP_PKT_ACK, psn, path, pull, ctr,
				    xmitq);
		if (skb && ce)
			ndp_hdr(skb)->flags |= htons(NDP_F_CE);
		return;
	}
	if (ab->n && (psn != ab->psn + 1 || path != ab->path ||
		      ce != ab->ce || ab->n == NDP_ACK_SPAN_MAX))
		ndp_ack_flush(sk, ab, xmitq);
	ab->psn = psn;
	ab->path = path;
	ab->ce = ce;
	ab->n++;
	if (pull) {
		ab->pull = true;
		ab->ctr = ctr;
		/* A pull does not wait for the rest of a backlog run: the
		 * owner may take long over it, the sender's link not.
		 */
		if (ab == &ndp_sk(sk)->bl_ab)
			ndp_ack_flush(sk, ab, xmitq);
	}
}

/*
 * Insert into the out-of-order queue; false if @psn is already there.
 * Behind a hole packets mostly come in order: one after the highest
 * queued is linked to its right without a search.
 */
static bool ndp_ooo_insert(struct ndp_sock *nsk, struct sk_buff *skb)
{
	struct sk_buff *last = nsk->rcv.ooo_last;
	u32 psn = NDP_SKB_CB(skb)->psn;

	if (last && ndp_after(psn, NDP_SKB_CB(last)->psn)) {
		rb_link_node(&skb->rbnode, &last->rbnode,
			     &last->rbnode.rb_right);
		rb_insert_color(&skb->rbnode, &nsk->rcv.ooo);
	} else if (!ndp_rb_insert(&nsk->rcv.ooo, skb)) {
		return false;
	}
	if (!last || ndp_after(psn, NDP_SKB_CB(last)->psn))
		nsk->rcv.ooo_last = skb;
	nsk->rcv.ooo_len++;
	return true;
}

void ndp_purge_ooo(struct ndp_sock *nsk)
{
	struct sk_buff *skb;

	while ((skb = skb_rb_first(&nsk->rcv.ooo))) {
		rb_erase(&skb->rbnode, &nsk->rcv.ooo);
		kfree_skb(skb);
	}
	nsk->rcv.ooo_last = NULL;
	nsk->rcv.ooo_len = 0;
}

static bool ndp_ooo_has(struct ndp_sock *nsk, u32 psn)
{
	return ndp_rb_find(&nsk->rcv.ooo, psn);
}

/* Deliver one in-order packet; FIN ends the stream. */
static void ndp_deliver(struct sock *sk, struct sk_buff *skb)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	ndp_sock_assert_locked(sk);
	/* Read by the pull clock without the socket lock. */
	WRITE_ONCE(nsk->rcv.nxt, nsk->rcv.nxt + 1);
	WRITE_ONCE(nsk->rcv.hole_nacked, false);
	if (NDP_SKB_CB(skb)->flags & NDP_F_FIN) {
		nsk->rcv.fin = true;
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | RCV_SHUTDOWN);
	}
	if (skb->len)
		skb_queue_tail(&sk->sk_receive_queue, skb);
	else
		consume_skb(skb);
}

static void ndp_deliver_ooo(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff *skb;

	while ((skb = skb_rb_first(&nsk->rcv.ooo)) &&
	       !ndp_after(NDP_SKB_CB(skb)->psn, nsk->rcv.nxt)) {
		rb_erase(&skb->rbnode, &nsk->rcv.ooo);
		nsk->rcv.ooo_len--;
		if (skb == nsk->rcv.ooo_last)
			nsk->rcv.ooo_last = NULL;	/* the tree is empty */
		if (NDP_SKB_CB(skb)->psn == nsk->rcv.nxt)
			ndp_deliver(sk, skb);
		else
			kfree_skb(skb);	/* cannot happen: never queued */
	}
}

/*
 * Protocol memory (net.ndp.mem, see sock.c): beyond the pressure limit
 * only the next in-order packet is taken, so what is left up to the hard
 * limit serves data the application can read, which frees memory;
 * out-of-order data cannot be read (refusing the in-order packet while it
 * holds memory could stall every connection at once).  Refused data is
 * NACKed and pulled again later.
 */
static bool ndp_rmem_schedule(struct sock *sk, struct sk_buff *skb,
			      bool in_order)
{
	if (!in_order && sk_memory_allocated(sk) > sk_prot_mem_limits(sk, 1))
		return false;
	if (sk_rmem_schedule(sk, skb, skb->truesize))
		return true;
	/*
	 * The next in-order packet of a connection that holds out-of-order
	 * data is taken anyway, charged to the socket beyond the limit (its
	 * forward allocation goes negative until it is read, as TCP forces
	 * such charges): the memory only its delivery frees (send queues
	 * count towards the same limit) could otherwise stall it for good.
	 */
	return in_order && !RB_EMPTY_ROOT(&ndp_sk(sk)->rcv.ooo);
}

/* Packets below rcv_high not received yet: they still need pulls. */
static u32 ndp_missing(struct ndp_sock *nsk)
{
	return nsk->rcv.high - nsk->rcv.nxt - nsk->rcv.ooo_len;
}

/*
 * Where a switch trimmed @skb, as its DSCP says (sch_ndp's trim-dscp-host
 * and trim-dscp-fabric, matched by net.ndp.trim_dscp_host and
 * trim_dscp_fabric; 0 matches nothing): NDP_TRIM_LAST_HOP (the port
 * facing this host), NDP_TRIM_FABRIC or NDP_TRIM_SWITCH (not marked).
 * Counted in InTrimLastHop / InTrimFabric.
 */
static int ndp_trim_origin(struct net *net, const struct sk_buff *skb)
{
	const struct ndp_net *nn = ndp_pernet(net);
	u32 host = READ_ONCE(nn->trim_dscp_host);
	u32 fabric = READ_ONCE(nn->trim_dscp_fabric);
	u32 dscp;

	if (!host && !fabric)
		return NDP_TRIM_SWITCH;
	if (skb->protocol == htons(ETH_P_IP))
		dscp = ipv4_get_dsfield(ip_hdr(skb)) >> 2;
	else
		dscp = ipv6_get_dsfield(ipv6_hdr(skb)) >> 2;
	if (host && dscp == host) {
		NDP_INC_STATS(net, NDP_MIB_INTRIMLASTHOP);
		return NDP_TRIM_LAST_HOP;
	}
	if (fabric && dscp == fabric) {
		NDP_INC_STATS(net, NDP_MIB_INTRIMFABRIC);
		return NDP_TRIM_FABRIC;
	}
	return NDP_TRIM_SWITCH;
}

/*
 * Whether DATA @skb arrived marked CE: its IP header's ECN bits (carried
 * in UDP, the outer header's, which the tunnel switches marked; a GRO
 * batch merges only packets whose ECN bits agree).  Counted in InDataCE.
 */
static bool ndp_rcv_ce(struct net *net, const struct sk_buff *skb)
{
	u8 dsfield;

	if (skb->protocol == htons(ETH_P_IP))
		dsfield = ipv4_get_dsfield(ip_hdr(skb));
	else
		dsfield = ipv6_get_dsfield(ipv6_hdr(skb));
	if (!INET_ECN_is_ce(dsfield))
		return false;
	NDP_INC_STATS(net, NDP_MIB_INDATACE);
	return true;
}

static void ndp_rcv_data(struct sock *sk, struct sk_buff *skb,
			 const struct ndphdr *nh, struct sk_buff_head *xmitq,
			 struct ndp_ack_batch *ab)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct net *net = sock_net(sk);
	u16 flags = ntohs(nh->flags);
	u32 psn = ntohl(nh->psn);
	enum skb_drop_reason reason = SKB_DROP_REASON_NOT_SPECIFIED;
	bool trimmed = flags & NDP_F_TRIMMED;
	bool ce = ndp_rcv_ce(net, skb);
	u8 nack_path = nh->path;
	struct sk_buff *nack, *held;
	int cause;
	bool pull;
	u32 ctr = 0;
	int rmem;

	if (!nsk->rcv.isn_known) {
		/* Active side: the peer's first window tells its first psn. */
		reason = SKB_DROP_REASON_TCP_INVALID_SEQUENCE;
		if (!(flags & NDP_F_SYN))
			goto drop;
		WRITE_ONCE(nsk->rcv.nxt, psn - ntohl(nh->syn_off));
		nsk->rcv.high = nsk->rcv.nxt;
		nsk->rcv.isn_known = true;
	}
	ndp_pull_rcv_dev(sk, skb->skb_iif);
	ndp_pull_answered(sk);
	if (psn - nsk->rcv.nxt >= NDP_RCV_WINDOW) {
		reason = SKB_DROP_REASON_TCP_OVERWINDOW;
		if (ndp_before(psn, nsk->rcv.nxt)) {
			reason = SKB_DROP_REASON_TCP_OLD_DATA;
			ndp_send_dup_ack(sk, psn, nh->path, xmitq);
		}
		goto drop;
	}
	if (ndp_ooo_has(nsk, psn)) {
		reason = SKB_DROP_REASON_TCP_OLD_DATA;
		ndp_send_dup_ack(sk, psn, nh->path, xmitq);
		goto drop;
	}
	if (ndp_after(psn + 1, nsk->rcv.high))
		nsk->rcv.high = psn + 1;

	/* Data arriving after close() with nobody to read it: abort. */
	if (sock_flag(sk, SOCK_DEAD) && skb->len && !trimmed) {
		ndp_send_ctrl(sk, NDP_PKT_RST, psn, 0, false, 0, xmitq);
		NDP_INC_STATS(net, NDP_MIB_OUTRSTS);
		ndp_done(sk, xmitq);
		reason = NDP_DROP_SOCKET_CLOSE;
		goto drop;
	}

	/*
	 * The receive buffer: out-of-order data up to twice it less a
	 * reserve for the packets that fill the hole (ndp_room_ooo_bound()),
	 * in-order data up to twice it (ndp_add_backlog()).  The next
	 * in-order packet is taken beyond that when the reader has read
	 * everything, as TCP forces the charge of in-order data into an
	 * empty receive queue: out-of-order data alone may fill the buffer
	 * (one packet larger than a small SO_RCVBUF does), and only this
	 * packet's delivery frees it.  It was refused, NACKed and pulled
	 * again (the queue empty, the pull goes, ndp_rcv_has_room()) in a
	 * loop at the pull clock's rate: 2.7 million RcvQDrops in 120 s in
	 * backlog.sh, the transfer stalled.
	 */
	if (!trimmed) {
		rmem = atomic_read(&sk->sk_rmem_alloc);
		if (psn == nsk->rcv.nxt &&
		    skb_queue_empty(&sk->sk_receive_queue))
			rmem = 0;
		if (rmem && (rmem + skb->truesize > 2 * READ_ONCE(sk->sk_rcvbuf) ||
			     (psn != nsk->rcv.nxt &&
			      rmem + skb->truesize > ndp_room_ooo_bound(sk)))) {
			/* After "no room": a peer that ignores it (room.c). */
			NDP_INC_STATS(net, nsk->rcv.room_adv ?
				      NDP_MIB_RCVQDROPS :
				      NDP_MIB_RCVQFULLDROPS);
			reason = SKB_DROP_REASON_SOCKET_RCVBUFF;
			trace_ndp_trim(sk, psn, nh->path, NDP_TRIM_RCVBUF,
				       ce);
			trimmed = true;
		} else if (!ndp_rmem_schedule(sk, skb, psn == nsk->rcv.nxt)) {
			NDP_INC_STATS(net, NDP_MIB_MEMDROPS);
			reason = SKB_DROP_REASON_PROTO_MEM;
			trace_ndp_trim(sk, psn, nh->path, NDP_TRIM_MEM, ce);
			trimmed = true;
		}
	} else {
		/*
		 * A header is consumed; a bad payload checksum is a drop.
		 * The packet's own header says which: a corrupt one was not
		 * marked trimmed by a switch (ndp_rcv_conn_one()), and a
		 * switch's trim may keep part of the payload (trim-size).
		 * Not marked and no payload left: shed at a full backlog
		 * (ndp_backlog_shed()), this host's doing, not the path's.
		 */
		if (!skb->len && nh->paylen &&
		    !ndp_hdr_has(ndp_hdr(skb), NDP_F_TRIMMED)) {
			reason = SKB_DROP_REASON_SOCKET_BACKLOG;
			cause = NDP_TRIM_BACKLOG;
			nack_path = 0;
		} else if (ndp_hdr_has(ndp_hdr(skb), NDP_F_TRIMMED)) {
			NDP_INC_STATS(net, NDP_MIB_INTRIMMED);
			reason = NDP_SKB_CONSUMED;
			cause = ndp_trim_origin(net, skb);
		} else {
			NDP_INC_STATS(net, NDP_MIB_INTRIMMED);
			reason = SKB_DROP_REASON_SKB_CSUM;
			cause = NDP_TRIM_CSUM;
		}
		/*
		 * A last-hop trim says the receiver's link is busy, not the
		 * path: its NACK names no path (0), which the sender's
		 * scoreboard ignores (path.c).  Unless a switch before it
		 * marked the packet CE: then the path was busy too, and the
		 * NACK names it (one bad count, as the CE alone would be).
		 */
		if (cause == NDP_TRIM_LAST_HOP && !ce)
			nack_path = 0;
		nsk->st.trims_rcvd++;
		trace_ndp_trim(sk, psn, nh->path, cause, ce);
	}

	ndp_dasr_rcv(sk, psn, flags);
	if (trimmed) {
		if (psn == nsk->rcv.nxt)
			WRITE_ONCE(nsk->rcv.hole_nacked, true);
		/* Its pull brings this packet back: its size is known. */
		pull = ndp_pull_enqueue(sk, true,
					ntohs(nh->paylen) + NDP_HDR_LEN +
					(ndp_sk_v4(sk) ?
					 sizeof(struct iphdr) :
					 sizeof(struct ipv6hdr)),
					&ctr);
		nack = ndp_send_ctrl(sk, NDP_PKT_NACK, psn, nack_path, pull,
				     ctr, xmitq);
		if (nack && ce)
			ndp_hdr(nack)->flags |= htons(NDP_F_CE);
		goto drop;
	}

	NDP_INC_STATS(net, NDP_MIB_INDATA);
	nsk->st.data_rcvd++;
	NDP_SKB_CB(skb)->psn = psn;
	NDP_SKB_CB(skb)->offset = 0;
	NDP_SKB_CB(skb)->flags = flags & NDP_F_FIN;
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	skb_set_owner_r(skb, sk);
	WRITE_ONCE(nsk->rcv.tsize, skb->truesize);
	nsk->rcv.tsize_max = max(nsk->rcv.tsize_max, skb->truesize);
	if (psn == nsk->rcv.nxt) {
		ndp_deliver(sk, skb);
		ndp_deliver_ooo(sk);
	} else {
		ndp_ooo_insert(nsk, skb);
	}

	if (flags & NDP_F_LAST) {
		pull = false;
		ndp_pull_trim(sk, ndp_missing(nsk));
	} else {
		pull = ndp_pull_enqueue(sk, true, 0, &ctr);
	}
	/* An ACK held for the peer's previous LAST goes with this one: the
	 * peer did not wait for an answer (delack.c).
	 */
	held = ndp_delack_take(sk);
	if (held) {
		ndp_ack(sk, ab, ntohl(ndp_hdr(held)->psn), ndp_hdr(held)->path,
			ndp_hdr_has(ndp_hdr(held), NDP_F_CE), false, 0, xmitq);
		consume_skb(held);
	}
	/* A message's end with nothing missing: its ACK may ride on the
	 * answer (delack.c).
	 */
	if (!(flags & NDP_F_LAST) || ndp_missing(nsk) ||
	    !ndp_delack_hold(sk, psn, nh->path, ce, ntohs(nh->acks), xmitq))
		ndp_ack(sk, ab, psn, nh->path, ce, pull, ctr, xmitq);
	ndp_dasr_rcv_done(sk);
	if (ab)
		ab->ready = true;
	else
		sk->sk_data_ready(sk);
	if (nsk->rcv.fin) {
		if (ab) {
			ndp_ack_flush(sk, ab, xmitq);
			sk->sk_data_ready(sk);
			ab->ready = false;
		}
		sk->sk_state_change(sk);
		ndp_try_finish(sk, xmitq);
	}
	return;
drop:
	ndp_skb_free(sk, skb, reason);
}

/* ---------------------------------------------------------------------- */
/* Per connection dispatch.                                               */

/*
 * An RST is believed only if it names a psn the peer can only know from
 * our packets: one of ours it answers (no socket, data after close), or,
 * for an abort, the peer's own oldest unacknowledged psn, which lies at
 * most NDP_RCV_WINDOW behind what we expect next.
 */
static bool ndp_rst_ok(const struct ndp_sock *nsk, u32 psn)
{
	if (ndp_report_ok(nsk, psn, false))
		return true;
	return nsk->rcv.isn_known &&
	       (u32)(nsk->rcv.nxt - psn) <= NDP_RCV_WINDOW;
}

/*
 * ACK, NACK, PULL: feedback on what we sent.  Only a report on a psn of
 * ours is taken (see ndp_report_ok()); it also proves that the peer
 * receives what we send to its address.  Progress (something newly
 * acknowledged or NACKed, a valid pull) resets the RTO give-up count.
 */
static void ndp_rcv_feedback(struct sock *sk, const struct ndphdr *nh,
			     u16 room, struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u16 flags = ntohs(nh->flags);
	struct net *net = sock_net(sk);
	u32 cum = ntohl(nh->syn_off);
	u32 psn = ntohl(nh->psn);
	bool progress = false;
	u32 acks = 1;

	/* An ACK may report a span of psns: all of them must be ours. */
	if (nh->type == NDP_PKT_ACK && ntohs(nh->acks) > 1)
		acks = ntohs(nh->acks);
	if (!ndp_report_ok(nsk, cum, true) ||
	    (nh->type != NDP_PKT_PULL && !ndp_report_ok(nsk, psn, false)) ||
	    (acks > 1 && (acks > NDP_ACK_SPAN_MAX ||
			  !ndp_report_ok(nsk, psn - acks + 1, false)))) {
		NDP_INC_STATS(net, NDP_MIB_INBADREPORTS);
		return;
	}
	if (!nsk->addr_ok) {
		nsk->addr_ok = true;
		NDP_INC_STATS(net, NDP_MIB_ADDRVALIDATED);
	}
	nsk->snd.heard = jiffies;
	nsk->snd.peer_synced = true;
	nsk->snd.peer_room = room;	/* room.c */
	nsk->ever_heard = true;
	ndp_dasr_heard(sk, ntohs(nh->nsenders));
	/* A CE echo: the NACK already scores its path, an ACK's is scored
	 * per newly acknowledged packet (ndp_mark_acked()).
	 */
	if ((flags & NDP_F_CE) && nh->type != NDP_PKT_PULL)
		NDP_INC_STATS(net, NDP_MIB_INCEECHOES);
	switch (nh->type) {
	case NDP_PKT_ACK:
		NDP_INC_STATS(net, NDP_MIB_INACKS);
		nsk->st.acks_rcvd++;
		if ((flags & NDP_F_DUP) && acks == 1 && nsk->rto.psn_valid &&
		    psn == nsk->rto.psn) {
			/* The packet the timer resent had arrived. */
			nsk->rto.psn_valid = false;
			nsk->rto.backoff = 0;
			nsk->st.rto_spurious++;
			NDP_INC_STATS(net, NDP_MIB_RTOSPURIOUS);
		}
		ndp_rcv_owed(nsk, psn, acks);
		/* Without a pull, the pull field says how long it was
		 * held (delack.c).
		 */
		progress = ndp_rcv_ack(sk, acks, psn, cum, nh->path,
				       flags & NDP_F_CE,
				       flags & NDP_F_PULL ? 0 : ntohl(nh->pull));
		break;
	case NDP_PKT_NACK:
		NDP_INC_STATS(net, NDP_MIB_INNACKS);
		nsk->st.nacks_rcvd++;
		trace_ndp_nack(sk, psn, nh->path);
		ndp_rcv_owed(nsk, psn, 1);
		progress = ndp_rcv_ack(sk, 0, 0, cum, 0, false, 0);
		progress |= ndp_rcv_nack(sk, psn, nh->path, false);
		break;
	case NDP_PKT_PULL:
		flags |= NDP_F_PULL;
		progress = ndp_rcv_ack(sk, 0, 0, cum, 0, false, 0);
		break;
	}
	if (flags & NDP_F_PULL) {
		NDP_INC_STATS(net, NDP_MIB_INPULLS);
		progress |= ndp_rcv_pull(sk, ntohl(nh->pull), xmitq);
	}
	if (progress)
		nsk->rto.retries = 0;
}

/*
 * A CHALLENGE (admit.c): the peer created nothing for our first-window
 * packet @psn and asks for it again with its cookie echoed.  Taken only by
 * the opener, before it heard from the peer, about a packet of ours in
 * flight (a psn only our packets tell, so an off-path sender cannot make
 * us resend).  Every SYN packet sent from now on echoes the newest cookie;
 * this one is resent at once, once per challenge, so nothing is lost.
 */
static enum skb_drop_reason ndp_rcv_challenge(struct sock *sk,
					      const struct ndphdr *nh,
					      struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 psn = ntohl(nh->psn);
	struct sk_buff *skb;

	skb = ndp_sndq_find(nsk, psn);
	if (nsk->passive || nsk->snd.peer_synced || !skb ||
	    !(NDP_SKB_CB(skb)->flags & NDP_F_SYN) ||
	    !NDP_SKB_CB(skb)->sent) {
		NDP_INC_STATS(sock_net(sk), NDP_MIB_INBADCHALLENGES);
		return SKB_DROP_REASON_INVALID_PROTO;
	}
	NDP_INC_STATS(sock_net(sk), NDP_MIB_INCHALLENGES);
	nsk->admit.echo_cookie = ntohl(nh->pull);
	nsk->admit.echo_ok = true;
	if (ndp_rcv_nack(sk, psn, U8_MAX, false))
		ndp_resend_now(sk, skb, xmitq);
	return NDP_SKB_CONSUMED;
}

/*
 * Process @skb on connection @sk, lock held.  @opened: @skb is the packet
 * that just created @sk (ndp_passive_open() counted it for
 * anti-amplification).  @ab: @skb is part of a GRO batch, its ACK is
 * batched.  Returns why @skb is to be freed; *@pskb is NULL if consumed.
 */
static enum skb_drop_reason ndp_rcv_conn_one(struct sock *sk,
					     struct sk_buff **pskb,
					     bool corrupt, bool opened,
					     struct sk_buff_head *xmitq,
					     struct ndp_ack_batch *ab)
{
	struct sk_buff *skb = *pskb;
	const struct ndphdr *nh = ndp_hdr(skb);
	struct ndp_sock *nsk = ndp_sk(sk);
	struct net *net = sock_net(sk);
	struct ndphdr hdr = *nh;
	u16 flags = ntohs(hdr.flags);
	unsigned int len = skb->len + skb_network_header_len(skb);
	enum skb_drop_reason reason = NDP_SKB_CONSUMED;
	struct ndphdr ack;
	u16 room = U16_MAX;
	int acked = 0;

	ndp_sock_assert_locked(sk);
	if (nsk->dead) {
		/*
		 * Torn down while this packet waited for the lock or in the
		 * backlog (our FIN's ACK and the peer's FIN back to back):
		 * time-wait answers it, as it would have a moment later
		 * (ndp_done() adds its record before it unhashes).
		 */
		if (ndp_tw_rcv(net, skb, &nsk->flow))
			return NDP_SKB_CONSUMED;
		return NDP_DROP_SOCKET_CLOSE;
	}
	if (corrupt) {
		/* Handled as if trimmed; the received packet stays as is. */
		flags |= NDP_F_TRIMMED;
		hdr.flags = htons(flags);
	}
	/* Options: before the pull.  DATA with an ACK: as an ACK, no room
	 * option means no limit (delack.c holds no ACK that has one).
	 */
	if (hdr.type != NDP_PKT_DATA)
		room = ndp_room_of(nh);
	else if (!(flags & NDP_F_RTS))
		acked = ndp_delack_of(nh, &ack);
	if (acked > 0)
		room = ndp_room_of(nh);
	__skb_pull(skb, hdr.doff * 4);

	if (!nsk->addr_ok && !opened)
		nsk->amp_rx += len;
	switch (hdr.type) {
	case NDP_PKT_DATA:
		if (flags & NDP_F_RTS) {
			ndp_rcv_rts(sk, ntohl(hdr.psn), hdr.path, xmitq);
			break;
		}
		/* The opener's data never carries PASSIVE, the responder's
		 * always does.
		 */
		if (!(flags & NDP_F_PASSIVE) != nsk->passive) {
			NDP_INC_STATS(net, NDP_MIB_INERRS);
			reason = SKB_DROP_REASON_INVALID_PROTO;
			break;
		}
		nsk->ever_heard = true;
		/* An ACK riding on it (delack.c), with its own checksum:
		 * taken whether the payload is intact or not.
		 */
		if (acked < 0) {
			NDP_INC_STATS(net, NDP_MIB_INERRS);
		} else if (acked) {
			NDP_INC_STATS(net, NDP_MIB_INACKSONDATA);
			ack.nsenders = htons(nsk->dasr.peer_n);
			ndp_rcv_feedback(sk, &ack, room, xmitq);
		}
		ndp_rcv_data(sk, skb, &hdr, xmitq, ab);
		*pskb = NULL;
		break;
	case NDP_PKT_ACK:
	case NDP_PKT_NACK:
	case NDP_PKT_PULL:
		ndp_rcv_feedback(sk, &hdr, room, xmitq);
		break;
	case NDP_PKT_CHALLENGE:
		reason = ndp_rcv_challenge(sk, &hdr, xmitq);
		break;
	case NDP_PKT_TOKEN:
		/* From the responder, about what we sent (as feedback). */
		if (nsk->passive || !ndp_report_ok(nsk, ntohl(hdr.syn_off), true)) {
			NDP_INC_STATS(net, NDP_MIB_INBADTOKENS);
			reason = SKB_DROP_REASON_INVALID_PROTO;
			break;
		}
		NDP_INC_STATS(net, NDP_MIB_INTOKENS);
		ndp_admit_token_store(net, &nsk->flow, ntohl(hdr.pull));
		break;
	case NDP_PKT_RST:
		NDP_INC_STATS(net, NDP_MIB_INRSTS);
		if (!ndp_rst_ok(nsk, ntohl(hdr.psn))) {
			NDP_INC_STATS(net, NDP_MIB_INBADRSTS);
			reason = SKB_DROP_REASON_TCP_INVALID_SEQUENCE;
			break;
		}
		/* Refused only if the peer never spoke before: a passive
		 * socket (created by the peer's data) is always reset.
		 */
		ndp_set_error(sk, nsk->ever_acked || nsk->ever_heard ?
				  ECONNRESET : ECONNREFUSED, xmitq);
		break;
	}
	return reason;
}

/* After packets were processed on @sk: what they may have unblocked. */
static void ndp_rcv_conn_done(struct sock *sk, struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	if (nsk->dead)
		return;
	/* Data held back until the peer knew us or acknowledged what was
	 * in flight (a new window), or no pull was left to come, or by the
	 * amplification bound until it proved its address.
	 */
	if (nsk->snd.head || nsk->amp_blocked)
		ndp_push(sk, xmitq);
	/* The peer proved its address: a token for its next connections. */
	if (nsk->passive && nsk->addr_ok && !nsk->admit.token_sent)
		ndp_admit_send_token(sk, xmitq);
	if (nsk->snd.fin_acked)
		ndp_try_finish(sk, xmitq);
}

/*
 * Process @skb on connection @sk (see ndp_rcv_conn_one()), socket lock
 * held: by softirq, or by the user running the backlog.  Consumes @skb.
 */
static void ndp_rcv_conn_locked(struct sock *sk, struct sk_buff *skb,
				bool corrupt, bool opened,
				struct sk_buff_head *xmitq)
{
	enum skb_drop_reason reason;

	reason = ndp_rcv_conn_one(sk, &skb, corrupt, opened, xmitq, NULL);
	ndp_rcv_conn_done(sk, xmitq);
	ndp_skb_free(sk, skb, reason);
}

/*
 * Process @skb, which waited in @sk's backlog, as its owner runs it: its
 * ACK joins the run of &ndp_sock.bl_ab (ndp_backlog_done()).
 */
static void ndp_rcv_conn_backlog(struct sock *sk, struct sk_buff *skb,
				 bool corrupt, bool opened,
				 struct sk_buff_head *xmitq)
{
	enum skb_drop_reason reason;

	reason = ndp_rcv_conn_one(sk, &skb, corrupt, opened, xmitq,
				  &ndp_sk(sk)->bl_ab);
	ndp_rcv_conn_done(sk, xmitq);
	ndp_skb_free(sk, skb, reason);
}

/* Queue @skb to @sk's backlog with @extra bytes beyond the bound below. */
static bool __ndp_add_backlog(struct sock *sk, struct sk_buff *skb, u32 extra)
{
	u64 limit = 2 * (u64)READ_ONCE(sk->sk_rcvbuf) +
		    2 * (u64)READ_ONCE(sk->sk_sndbuf) + NDP_BACKLOG_SLACK +
		    extra;

	lockdep_assert_held(&sk->sk_lock.slock);
	BUILD_BUG_ON(NDP_BACKLOG_CB_OFF + sizeof(struct ndp_backlog_cb) >
		     sizeof_field(struct sk_buff, cb));
	return !sk_add_backlog(sk, skb, min_t(u64, limit, UINT_MAX));
}

/**
 * ndp_add_backlog() - leave a packet to the user owning a socket
 * @sk: the socket, its spinlock held (softirq), owned by a user.
 * @skb: the packet, its struct ndp_backlog_cb filled in.
 *
 * The bound counts the receive queue too (sk_rcvqueues_full()), so it
 * starts from what ndp_rcv_data() lets that queue hold, twice the receive
 * buffer for in-order data: with tcp_add_backlog()'s receive buffer
 * alone, a reader copying out a full queue had every packet that arrived
 * meanwhile dropped, and a lossless path saw real retransmission
 * timeouts.  Beyond it, twice the send buffer: the peer answers each
 * packet we have in flight (at most the send buffer's worth) with up to
 * an ACK and a PULL, each no larger than the packet, and a user stalled
 * while it owns the socket (a sender descheduled in sendmsg()) must not
 * see them dropped: on a loaded host one send buffer was too little
 * (xfer.sh met BacklogDrop).  NDP_BACKLOG_SLACK covers what arrives
 * beyond that during one system call.
 *
 * Return: false if @skb was not queued (counted in BacklogDrop; the
 * caller frees it), else true.
 */
bool ndp_add_backlog(struct sock *sk, struct sk_buff *skb)
{
	if (unlikely(!__ndp_add_backlog(sk, skb, 0))) {
		NDP_INC_STATS(sock_net(sk), NDP_MIB_BACKLOGDROP);
		return false;
	}
	return true;
}

/*
 * A packet of connection @sk found its backlog full (ndp_add_backlog()).
 * A DATA packet is not dropped: it leaves its payload here and waits as
 * its header, as if the last switch had trimmed it, in
 * NDP_BACKLOG_SHED_SLACK more room that only headers use (control
 * packets too: they are headers already).  Processed, the header is
 * NACKed and pulled again, a round trip, where a drop cost the sender an
 * RTO.  It goes to ndp_rcv_conn_one() as a corrupt packet does (taken as
 * trimmed); ndp_rcv_data() tells it by its length: no payload behind a
 * header that announces some and is not marked trimmed, which no wire
 * packet can be (ndp_data_is_valid() refuses it).  A corrupt packet is
 * shed alike: its payload is lost anyway, and its header asks for the
 * same NACK.  Returns whether @skb was queued; a shed DATA packet sets
 * *@shed.
 */
static bool ndp_backlog_shed(struct sock *sk, struct sk_buff *skb,
			     bool *shed)
{
	const struct ndphdr *nh = ndp_hdr(skb);
	unsigned int hlen = skb_transport_offset(skb) + nh->doff * 4;

	lockdep_assert_held(&sk->sk_lock.slock);
	*shed = false;
	if (nh->type == NDP_PKT_DATA && skb->len > hlen) {
		if (ndp_hdr_has(nh, NDP_F_TRIMMED | NDP_F_RTS))
			return false;
		/* Still charged to its sender across a veth (skb_scrub_packet()
		 * keeps the owner): its truesize changes below.
		 */
		skb_orphan(skb);
		if (pskb_trim(skb, hlen))
			return false;
		/* What the header alone holds (skb_condense(), which 6.1
		 * does not export): the payload's pages went with the trim.
		 */
		if (!skb->data_len)
			skb->truesize = SKB_TRUESIZE(skb_end_offset(skb));
		*shed = true;
	} else if (skb->len > hlen) {
		return false;
	}
	return __ndp_add_backlog(sk, skb, NDP_BACKLOG_SHED_SLACK);
}

/*
 * Queue packet @skb of connection @sk to its backlog (see
 * ndp_add_backlog()); returns why it is to be freed, or 0 (queued).
 */
static enum skb_drop_reason ndp_backlog_conn(struct sock *sk,
					     struct sk_buff *skb,
					     bool corrupt, bool opened)
{
	struct ndp_backlog_cb *bcb = NDP_BACKLOG_CB(skb);
	bool shed;

	memset(bcb, 0, sizeof(*bcb));
	bcb->kind = NDP_BL_CONN;
	bcb->corrupt = corrupt;
	bcb->opened = opened;
	if (likely(__ndp_add_backlog(sk, skb, 0)))
		return SKB_NOT_DROPPED_YET;
	if (ndp_backlog_shed(sk, skb, &shed)) {
		if (shed) {
			bcb->corrupt = 1;	/* taken as trimmed */
			NDP_INC_STATS(sock_net(sk), NDP_MIB_BACKLOGSHED);
		}
		return SKB_NOT_DROPPED_YET;
	}
	NDP_INC_STATS(sock_net(sk), NDP_MIB_BACKLOGDROP);
	return SKB_DROP_REASON_SOCKET_BACKLOG;
}

/* Process @skb on connection @sk, or leave it to the socket's owner. */
static void ndp_rcv_conn(struct sock *sk, struct sk_buff *skb, bool corrupt,
			 bool opened)
{
	enum skb_drop_reason reason = SKB_NOT_DROPPED_YET;
	struct sk_buff_head xmitq;

	__skb_queue_head_init(&xmitq);
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk))
		ndp_rcv_conn_locked(sk, skb, corrupt, opened, &xmitq);
	else
		reason = ndp_backlog_conn(sk, skb, corrupt, opened);
	bh_unlock_sock(sk);
	if (reason)
		ndp_skb_free(sk, skb, reason);
	ndp_xmit_queue(sk, &xmitq);
}

/* ---------------------------------------------------------------------- */
/* Passive open.                                                          */

/*
 * A passive connection receives data before anyone accepts it, so it is
 * charged to the listener's memory cgroup from its creation on (TCP
 * associates a child with the acceptor's cgroup in inet_csk_accept(), and
 * a module cannot call mem_cgroup_sk_alloc()).  Nothing is charged yet,
 * so nothing moves between cgroups; sk_prot_free() drops the reference.
 */
static void ndp_child_memcg(struct sock *sk, const struct sock *lsk)
{
	sk->sk_memcg = NULL;
#ifdef CONFIG_MEMCG
	if (mem_cgroup_sockets_enabled && lsk->sk_memcg &&
	    css_tryget(&lsk->sk_memcg->css))
		sk->sk_memcg = lsk->sk_memcg;
#endif
}

/*
 * Create the connection a first-window packet asks for, as a clone of the
 * listener, if admit.c lets it (@proof: NDP_F_ECHO or NDP_F_TOKEN if the
 * packet carried a valid cookie or token, else 0).  Returns the child
 * with a reference, or NULL (packet refused: the caller drops it, after a
 * challenge if *@challenge; the sender tries again).  *@created is false
 * when another packet of the window created the connection first; if
 * true, the caller wakes the listener (sk_data_ready) once it has dropped
 * its spinlock.  The listener is locked: its spinlock held (softirq) or
 * owned by its user running its backlog.
 */
static struct sock *ndp_passive_open(struct sock *lsk, struct sk_buff *skb,
				     const struct ndp_flow *fl, u16 proof,
				     bool *created, bool *challenge)
{
	const struct ndphdr *nh = ndp_hdr(skb);
	struct ndp_net *nn = ndp_pernet(sock_net(lsk));
	struct ndp_sock *lnsk = ndp_sk(lsk);
	struct ndp_sock *cnsk;
	struct sock *sk;
	u32 mtu;

	*created = false;
	*challenge = false;
	ndp_sock_assert_locked(lsk);
	/* Another packet of the same window may have won the race. */
	sk = ndp_conn_lookup(sock_net(lsk), fl);
	if (sk)
		goto out;
	if (lsk->sk_state != TCP_LISTEN || lnsk->dead)
		goto out;
	switch (ndp_admit_check(lsk, proof)) {
	case NDP_ADMIT_OPEN:
		break;
	case NDP_ADMIT_CHALLENGE:
		*challenge = true;
		goto out;
	case NDP_ADMIT_DROP:
		goto out;
	}

	sk = sk_clone_lock(lsk, GFP_ATOMIC);
	if (!sk)
		goto out;
	__acquire(&sk->sk_lock.slock);	/* sk_clone_lock() returns it locked */
	/* sk_clone_lock() copied the listener: undo what is not ours. */
	RCU_INIT_POINTER(inet_sk(sk)->inet_opt, NULL);
	inet_sk(sk)->mc_list = NULL;
	if (sk->sk_family == AF_INET6) {
		struct ipv6_pinfo *np = &((struct ndp6_sock *)sk)->inet6;

		inet_sk(sk)->pinet6 = np;
		memcpy(np, inet6_sk(lsk), sizeof(*np));
		RCU_INIT_POINTER(np->ipv6_mc_list, NULL);
		np->ipv6_ac_list = NULL;
		RCU_INIT_POINTER(np->opt, NULL);
		np->pktoptions = NULL;
		np->rxpmtu = NULL;
		sk->sk_v6_daddr = fl->raddr;
		sk->sk_v6_rcv_saddr = fl->laddr;
		np->saddr = fl->laddr;
	}
	/* An IPv4 flow, also on an AF_INET6 listener (dual stack). */
	if (fl->family == AF_INET) {
		inet_sk(sk)->inet_daddr = fl->raddr.s6_addr32[3];
		inet_sk(sk)->inet_rcv_saddr = fl->laddr.s6_addr32[3];
		inet_sk(sk)->inet_saddr = fl->laddr.s6_addr32[3];
	}
	ndp_compat_clear_fl_list(sk);
	ndp_child_memcg(sk, lsk);
	inet_sk(sk)->inet_dport = fl->rport;
	sk->sk_priority = READ_ONCE(lsk->sk_priority);

	ndp_sock_init_state(sk);
	cnsk = ndp_sk(sk);
	cnsk->passive = true;
	cnsk->born = jiffies;
	cnsk->nonce = fl->nonce;
	cnsk->flow = *fl;
	cnsk->flow.ifindex = lsk->sk_bound_dev_if;
	if (!lsk->sk_bound_dev_if && fl->ifindex) {
		/* Opened in a VRF: its routes are in the VRF's table. */
		cnsk->flow.ifindex = fl->ifindex;
		sk->sk_bound_dev_if = fl->ifindex;
	}
	if (fl->family == AF_INET6 &&
	    ipv6_addr_type(&fl->raddr) & IPV6_ADDR_LINKLOCAL) {
		/* A link-local peer is only reachable on its link (as TCP). */
		cnsk->flow.ifindex = skb->skb_iif;
		sk->sk_bound_dev_if = skb->skb_iif;
	}
	cnsk->ifindex = skb->skb_iif;
	cnsk->rcv.nxt = ntohl(nh->psn) - ntohl(nh->syn_off);
	cnsk->rcv.high = cnsk->rcv.nxt;
	cnsk->rcv.isn_known = true;
	/*
	 * The opening packet counts for anti-amplification before the
	 * child is visible: an application that accepts and writes at
	 * once must not find a budget of zero (it would be held until the
	 * peer's next packet, which may never come).
	 */
	cnsk->amp_rx = skb->len + skb_network_header_len(skb);
	cnsk->mss = ndp_mss_for(sk, ndp_route_mtu(sk, &mtu) ? ETH_DATA_LEN : mtu);
	cnsk->parent = lsk;
	cnsk->snd.syn_window = READ_ONCE(nn->init_window);
	ndp_rtt_init(sk);
	inet_sk_set_state(sk, TCP_ESTABLISHED);
	bh_unlock_sock(sk);

	/*
	 * sk_clone_lock() returned two references: the accept queue's
	 * (handed to the socket by accept()) and the caller's.  The
	 * connection table takes its own.
	 */
	if (ndp_conn_hash(sk)) {
		/* No memory to grow the table: refused, the sender retries. */
		cnsk->dead = true;
		sock_orphan(sk);
		sock_put(sk);
		sock_put(sk);
		sk = NULL;
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_EMBRYONICDROPS);
		goto out;
	}
	ndp_conn_hash_any(sk);
	list_add_tail(&cnsk->accept_q, &lnsk->accept_q);
	sk_acceptq_added(lsk);
	ndp_admit_queued(lsk, cnsk, proof);
	ndp_embryonic_arm(lsk, cnsk->born);
	NDP_INC_STATS(sock_net(lsk), NDP_MIB_PASSIVEOPENS);
	*created = true;
	if (nh->syn_off)
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_LATESYNOPENS);
out:
	return sk;
}

/*
 * The listener's part of a first-window packet after ndp_passive_open()
 * returned @sk (NULL: refused, after a challenge if @challenge).
 * Returns why @skb is to be freed if @sk is NULL.
 */
static enum skb_drop_reason ndp_listen_done(struct sock *lsk,
					    struct sock *sk,
					    struct sk_buff *skb,
					    const struct ndp_flow *fl,
					    bool created, bool challenge)
{
	if (created)
		lsk->sk_data_ready(lsk);
	if (sk || !challenge)
		return SKB_DROP_REASON_SOCKET_BACKLOG;	/* pressure, memory */
	ndp_admit_challenge(sock_net(lsk), skb, fl);
	return NDP_SKB_CONSUMED;
}

/*
 * A first-window packet that waited in the backlog of listener @lsk
 * (ndp_rcv()); its owner runs it.  Consumes @skb.
 */
static void ndp_listen_backlog_rcv(struct sock *lsk, struct sk_buff *skb)
{
	struct ndp_backlog_cb *bcb = NDP_BACKLOG_CB(skb);
	bool corrupt = bcb->corrupt, created, challenge;
	enum skb_drop_reason reason;
	u16 proof = bcb->proof;
	struct ndp_flow fl;
	struct sock *sk;

	if (skb->protocol == htons(ETH_P_IP))
		ndp_flow_rcv_v4(&fl, ip_hdr(skb), ndp_hdr(skb));
	else
		ndp_flow_rcv_v6(&fl, ipv6_hdr(skb), ndp_hdr(skb));
	fl.ifindex = ndp_l3mdev_oif(sock_net(lsk), skb->skb_iif);
	fl.encap_dport = bcb->encap_dport;
	sk = ndp_passive_open(lsk, skb, &fl, proof, &created, &challenge);
	reason = ndp_listen_done(lsk, sk, skb, &fl, created, challenge);
	if (!sk) {
		ndp_skb_free(NULL, skb, reason);
		return;
	}
	ndp_rcv_conn(sk, skb, corrupt, created);
	sock_put(sk);
}

/**
 * ndp_backlog_rcv() - proto.backlog_rcv: a packet that waited in the
 * backlog of @sk while a user owned it
 * @sk: the socket; its user owns it and is releasing it (release_sock()).
 * @skb: the packet (struct ndp_backlog_cb says what it is).
 *
 * Runs with BH disabled and under rcu_read_lock(), as the receive softirq
 * runs it (ip_local_deliver_finish() holds RCU), so that the receive path
 * sees one kind of context: the demux tables and routes are read under
 * RCU.
 *
 * Return: 0; @skb is always consumed.
 */
int ndp_backlog_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct ndp_backlog_cb *bcb = NDP_BACKLOG_CB(skb);
	struct sk_buff_head xmitq;

	NDP_INC_STATS(sock_net(sk), NDP_MIB_BACKLOGRCV);
	local_bh_disable();
	rcu_read_lock();
	switch (bcb->kind) {
	case NDP_BL_LISTEN:
		ndp_listen_backlog_rcv(sk, skb);
		break;
	case NDP_BL_ICMP4:
	case NDP_BL_ICMP6:
		ndp_err_backlog(sk, skb);
		break;
	default:
		__skb_queue_head_init(&xmitq);
		ndp_rcv_conn_backlog(sk, skb, bcb->corrupt, bcb->opened,
				     &xmitq);
		ndp_xmit_queue(sk, &xmitq);
		break;
	}
	rcu_read_unlock();
	local_bh_enable();
	return 0;
}

/**
 * ndp_backlog_done() - answer what the backlog brought
 * @sk: the socket, its user owning it, after running the backlog:
 *	from ndp_release_cb() (release_sock(), and __sk_flush_backlog()
 *	since 6.4) and after each sk_flush_backlog() of ours (6.1 has no
 *	callback there).
 *
 * The DATA that waited in the backlog was taken in one go and owes one
 * ACK per run of consecutive psns (&ndp_sock.bl_ab), the last one sent
 * here, and one wake-up of the reader.  A run's ACK that carries a pull
 * left at once (ndp_ack()).
 */
void ndp_backlog_done(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_ack_batch *ab = &nsk->bl_ab;
	struct sk_buff_head xmitq;
	bool ready;

	sock_owned_by_me(sk);
	if (!ab->n && !ab->ready)
		return;
	ready = ab->ready;
	ab->ready = false;
	if (nsk->dead) {
		ab->n = 0;
		ab->pull = false;
		return;
	}
	__skb_queue_head_init(&xmitq);
	local_bh_disable();
	rcu_read_lock();
	ndp_ack_flush(sk, ab, &xmitq);
	ndp_xmit_queue(sk, &xmitq);
	rcu_read_unlock();
	local_bh_enable();
	if (ready)
		sk->sk_data_ready(sk);
}

/* ---------------------------------------------------------------------- */
/* Demux.                                                                 */

/*
 * What a first-window packet proves about its sender's address (admit.c):
 * NDP_F_ECHO or NDP_F_TOKEN if it carries a valid cookie or token, else
 * 0.  A stale or forged one proves nothing (counted).
 */
static u16 ndp_rcv_proof(struct net *net, const struct ndp_flow *fl,
			 const struct ndphdr *nh, u16 flags)
{
	if (flags & NDP_F_ECHO) {
		if (ndp_admit_echo_ok(net, fl, ntohl(nh->pull)))
			return NDP_F_ECHO;
		NDP_INC_STATS(net, NDP_MIB_ADMITBADECHOES);
	} else if (flags & NDP_F_TOKEN) {
		if (ndp_admit_token_ok(net, fl, ntohl(nh->pull)))
			return NDP_F_TOKEN;
		NDP_INC_STATS(net, NDP_MIB_ADMITBADTOKENS);
	}
	return 0;
}

static bool ndp_data_is_valid(struct sk_buff *skb, const struct ndphdr *nh)
{
	unsigned int hlen = nh->doff * 4;
	unsigned int plen = skb->len - hlen;
	u16 flags = ntohs(nh->flags);

	if (flags & NDP_F_TRIMMED)
		return true;	/* length of what is left is irrelevant */
	if (plen != ntohs(nh->paylen))
		return false;
	if (!plen)
		return flags & NDP_F_FIN;
	return ndp_pcsum_ok(skb, hlen, plen, nh->pcsum);
}

/* IPsec policy for a packet of protocol ndp_ipproto (.no_policy is set). */
static bool ndp_policy_ok(struct sock *sk, struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return xfrm4_policy_check(sk, XFRM_POLICY_IN, skb);
	return xfrm6_policy_check(sk, XFRM_POLICY_IN, skb);
}

/*
 * What a socket applies before it takes a packet, as udp.c does: IPsec
 * policy, then socket filter and LSM (sk_filter_trim_cap() runs
 * security_sock_rcv_skb() first).  A filter may not cut a packet short:
 * its payload checksum would fail, so such a verdict drops it too.
 * Returns why the packet is dropped, or 0 (accepted).
 */
static enum skb_drop_reason ndp_sk_accepts(struct sock *sk,
					   struct sk_buff *skb)
{
	unsigned int len = skb->len;

	if (!ndp_policy_ok(sk, skb)) {
		NDP_INC_STATS(sock_net(sk), NDP_MIB_POLICYDROPS);
		return SKB_DROP_REASON_XFRM_POLICY;
	}
	if (sk_filter_trim_cap(sk, skb, ndp_hdr(skb)->doff * 4) ||
	    skb->len != len) {
		NDP_INC_STATS(sock_net(sk), NDP_MIB_FILTERDROPS);
		return SKB_DROP_REASON_SOCKET_FILTER;
	}
	return SKB_NOT_DROPPED_YET;
}

/*
 * Entry from the IPv4/IPv6 handlers: header checksum verified, transport
 * header set, @fl filled from the packet (local = destination).  Consumes
 * @skb.
 */
int ndp_rcv(struct sk_buff *skb, struct ndp_flow *fl)
{
	struct net *net = dev_net(skb->dev);
	struct ndphdr *nh = ndp_hdr(skb);
	enum skb_drop_reason reason = SKB_DROP_REASON_NOT_SPECIFIED;
	u16 flags = ntohs(nh->flags);
	bool corrupt = false, opened = false;
	struct sock *sk, *lsk;

	trace_ndp_recv_pkt(&fl->raddr, &fl->laddr, nh, skb->len);
	reason = SKB_DROP_REASON_OTHERHOST;
	if (skb->pkt_type != PACKET_HOST)
		goto drop;
	if (nh->type == NDP_PKT_DATA && (flags & NDP_F_RTS)) {
		/* Returned to sender: addresses swapped, ports not. */
		reason = SKB_DROP_REASON_INVALID_PROTO;
		if (!(flags & NDP_F_TRIMMED))
			goto drop;
		swap(fl->lport, fl->rport);
		sk = ndp_conn_lookup(net, fl);
		if (!sk)
			sk = ndp_conn_lookup_any(net, fl);
		if (sk)
			goto found;
		reason = SKB_DROP_REASON_NO_SOCKET;
		goto drop;
	}
	/*
	 * An echoed cookie or a token rides on the opener's first-window
	 * DATA only, one of them at most.
	 */
	if ((flags & (NDP_F_ECHO | NDP_F_TOKEN)) &&
	    (nh->type != NDP_PKT_DATA || (flags & NDP_F_PASSIVE) ||
	     !(flags & NDP_F_SYN) ||
	     (flags & (NDP_F_ECHO | NDP_F_TOKEN)) ==
	     (NDP_F_ECHO | NDP_F_TOKEN))) {
		NDP_INC_STATS(net, NDP_MIB_INERRS);
		reason = SKB_DROP_REASON_INVALID_PROTO;
		goto drop;
	}
	if (nh->type == NDP_PKT_DATA && !ndp_data_is_valid(skb, nh)) {
		if (ntohs(nh->paylen) != skb->len - nh->doff * 4) {
			NDP_INC_STATS(net, NDP_MIB_INERRS);
			reason = SKB_DROP_REASON_INVALID_PROTO;
			goto drop;
		}
		/* Corrupt payload, intact header: a NACK repairs it. */
		NDP_INC_STATS(net, NDP_MIB_INCSUMERRS);
		corrupt = true;
	}

	sk = ndp_conn_lookup(net, fl);
	if (!sk)
		sk = ndp_conn_lookup_any(net, fl);
	if (sk)
		goto found;
	if (!ndp_policy_ok(NULL, skb)) {
		NDP_INC_STATS(net, NDP_MIB_POLICYDROPS);
		reason = SKB_DROP_REASON_XFRM_POLICY;
		goto drop;
	}
	reason = SKB_DROP_REASON_NO_SOCKET;
	if (nh->type == NDP_PKT_RST) {
		NDP_INC_STATS(net, NDP_MIB_INRSTS);
		goto drop;
	}
	reason = NDP_SKB_CONSUMED;	/* answered from time-wait */
	if (ndp_tw_rcv(net, skb, fl))
		goto drop;
	if (nh->type == NDP_PKT_DATA && (flags & NDP_F_SYN) &&
	    !(flags & NDP_F_PASSIVE)) {
		bool challenge;
		u16 proof = 0;

		if (!fl->nonce || !ndp_peer_is_unicast(net, fl)) {
			NDP_INC_STATS(net, NDP_MIB_INERRS);
			reason = SKB_DROP_REASON_INVALID_PROTO;
			goto drop;
		}
		lsk = ndp_listener_lookup(net, fl, skb);
		if (lsk) {
			sk = NULL;
			reason = ndp_sk_accepts(lsk, skb);
			if (!reason)
				proof = ndp_rcv_proof(net, fl, nh, flags);
			if (reason)
				goto put_listener;
			/* Nested: sk_clone_lock() locks the child inside. */
			bh_lock_sock_nested(lsk);
			if (sock_owned_by_user(lsk)) {
				struct ndp_backlog_cb *bcb = NDP_BACKLOG_CB(skb);

				memset(bcb, 0, sizeof(*bcb));
				bcb->kind = NDP_BL_LISTEN;
				bcb->proof = proof;
				bcb->corrupt = corrupt;
				bcb->encap_dport = fl->encap_dport;
				reason = ndp_add_backlog(lsk, skb) ?
					SKB_NOT_DROPPED_YET :
					SKB_DROP_REASON_SOCKET_BACKLOG;
				bh_unlock_sock(lsk);
				sock_put(lsk);
				if (!reason)
					return 0;
				goto drop;
			}
			sk = ndp_passive_open(lsk, skb, fl, proof, &opened,
					      &challenge);
			bh_unlock_sock(lsk);
			reason = ndp_listen_done(lsk, sk, skb, fl, opened,
						 challenge);
put_listener:
			sock_put(lsk);
			if (sk)
				goto found_open;
			goto drop;	/* refused: the sender retries */
		}
	}
	NDP_INC_STATS(net, NDP_MIB_NOSOCK);
	reason = SKB_DROP_REASON_NO_SOCKET;
	if (nh->type == NDP_PKT_DATA)
		ndp_send_reply(net, fl, NDP_PKT_RST, ntohl(nh->psn), 0);
	goto drop;

found:
	reason = ndp_sk_accepts(sk, skb);
	if (reason) {
		sock_put(sk);
		goto drop;
	}
	ndp_rcv_conn(sk, skb, corrupt, false);
	sock_put(sk);
	return 0;
found_open:
	ndp_rcv_conn(sk, skb, corrupt, opened);
	sock_put(sk);
	return 0;
drop:
	ndp_skb_free(NULL, skb, reason);
	return 0;
}

/**
 * ndp_rcv_list() - receive a batch
 * @skb: its first packet, checked by the IP handler like any packet.
 * @list: the others (ndp_gro_unbatch()), each a whole NDP packet.
 * @fl: the flow, from @skb.
 * @gro: GRO built it (else a sender did; offload.c).
 *
 * A batch holds only consecutive DATA of one connection, each packet's
 * checksums verified by GRO or its header checked and its payload summed
 * by the sending kernel (offload.c), so the connection is looked up once, its
 * lock taken once and the batch answered by one ACK per run (struct
 * ndp_ack_batch); if a user owns the socket, each packet waits in its
 * backlog instead (one ACK each when the user runs it).  Each packet
 * still passes the socket's filter and policy.  Without the connection
 * (closed meanwhile) each packet goes the way of any packet.  Consumes
 * everything.
 */
int ndp_rcv_list(struct sk_buff *skb, struct sk_buff *list,
		 struct ndp_flow *fl, bool gro)
{
	struct net *net = dev_net(skb->dev);
	struct ndp_ack_batch ab = {};
	struct sk_buff *seg, *next;
	struct sk_buff_head xmitq;
	enum skb_drop_reason reason;
	struct sock *sk;
	bool owned;
	u32 n = 1;

	skb->next = list;
	for (seg = list; seg; seg = seg->next)
		n++;
	if (gro) {
		NDP_INC_STATS(net, NDP_MIB_INGROBATCHES);
		NDP_ADD_STATS(net, NDP_MIB_INGROPKTS, n);
	} else {
		NDP_ADD_STATS(net, NDP_MIB_INGSOSEGS, n);
	}
	NDP_ADD_STATS(net, NDP_MIB_INPKTS, n - 1);

	sk = skb->pkt_type == PACKET_HOST ? ndp_conn_lookup(net, fl) : NULL;
	if (!sk) {
		skb_list_walk_safe(skb, seg, next) {
			struct ndp_flow f = *fl;

			skb_mark_not_on_list(seg);
			ndp_rcv(seg, &f);
		}
		return 0;
	}

	__skb_queue_head_init(&xmitq);
	bh_lock_sock(sk);
	owned = sock_owned_by_user(sk);
	skb_list_walk_safe(skb, seg, next) {
		skb_mark_not_on_list(seg);
		trace_ndp_recv_pkt(&fl->raddr, &fl->laddr, ndp_hdr(seg),
				   seg->len);
		reason = ndp_sk_accepts(sk, seg);
		if (!reason && owned)
			reason = ndp_backlog_conn(sk, seg, false, false);
		else if (!reason)
			reason = ndp_rcv_conn_one(sk, &seg, false, false,
						  &xmitq, &ab);
		if (!owned || reason)
			ndp_skb_free(sk, seg, reason);
	}
	if (!owned) {
		ndp_ack_flush(sk, &ab, &xmitq);
		if (ab.ready)
			sk->sk_data_ready(sk);
		ndp_rcv_conn_done(sk, &xmitq);
	}
	bh_unlock_sock(sk);
	ndp_xmit_queue(sk, &xmitq);
	sock_put(sk);
	return 0;
}
