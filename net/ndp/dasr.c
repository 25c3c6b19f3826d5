// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: DASR, Dart's receiver-advertised sender count, both ends.
 *
 * Receiver.  Every namespace counts its active unique senders: peer
 * addresses that have a window of data in flight towards one of our
 * connections, or sent us DATA less than net.ndp.dasr_idle_ms ago.  The
 * count, n, goes out in the @nsenders field of every ACK, NACK and PULL
 * (ndp_ctrl_skb()).  A connection starts a "flow" on the peer's entry at
 * its first DATA packet (intact or trimmed) and ends it when everything up
 * to a packet marked LAST has arrived in order; the peer stays counted
 * while it has flows, and for the idle timeout after its last packet.
 *
 * Sender.  The n a peer advertised is remembered per peer address in the
 * same table (so a new connection to a receiver in an incast learns from
 * the others), for the idle timeout after it was last heard.  A new
 * unscheduled window (a new connection's first window, or a push after
 * LAST) towards a peer that advertised n > 1 is cut to ceil(IW / n)
 * packets, at least one; the rest is pulled as usual.
 *
 * Table.  One rhashtable of struct ndp_dasr_peer per namespace, keyed by
 * the peer address (IPv4 v4-mapped); rhashtable seeds its hash with a
 * random value per table, so a spoofer cannot choose the bucket.  Entries
 * are created only for connections that exist (a flow on a connection
 * socket; or feedback that passed ndp_report_ok(), which names a psn of
 * ours), and at most net.ndp.dasr_max_peers of them: beyond that a peer
 * is neither counted nor remembered (DasrPeersFull).  The count is thus
 * bounded by the number of connections a namespace accepts (listener
 * backlogs, net.ndp.max_embryonic) and by the cap; senders also clamp the
 * n they hear to their initial window.
 *
 * Locking.  Lookups run under RCU; per-packet updates of the times and of
 * the remembered n are lock-free (WRITE_ONCE(), read with READ_ONCE()).
 * Insertion, removal, the flow counts and the counted state change under
 * ndp_dasr_net.lock (_bh), once per window rather than per packet.  An
 * entry with flows is never freed (the connections point at it); others
 * are reaped by a timer that visits at most NDP_DASR_GC_BATCH entries per
 * run, and freed after a grace period.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/kernel.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include "protocol.h"

#define NDP_DASR_GC_BATCH	1024	/* entries one timer run visits */
#define NDP_DASR_GC_MIN		(HZ / 10)	/* shortest timer period */

/**
 * struct ndp_dasr_net - the DASR table of one namespace (&ndp_net.dasr)
 * @nn: owning namespace state (knobs).
 * @lock: serialises inserts and removals of @ht, @list, @count, @active
 *	and the entries' flow counts, and @dying (_bh).
 * @ht: struct ndp_dasr_peer by peer address (RCU lookups).
 * @list: the same entries, in the reaper's visiting order.
 * @count: entries in @ht.
 * @active: active unique senders, the n we advertise (written under
 *	@lock, read with READ_ONCE()).
 * @timer: reaps idle entries.
 * @dying: the namespace is going: no entry is added, the timer is not
 *	armed again.
 *
 * Private to this file: allocated by ndp_dasr_net_init(), freed by
 * ndp_dasr_net_exit().
 */
struct ndp_dasr_net {
	struct ndp_net		*nn;
	spinlock_t		lock;		/* table writers */
	struct rhashtable	ht;
	struct list_head	list;
	u32			count;
	u32			active;
	struct timer_list	timer;
	bool			dying;
};

/**
 * struct ndp_dasr_peer - what a namespace knows about one peer address
 * @node: in &ndp_dasr_net.ht.
 * @addr: the peer address (key; IPv4 v4-mapped).
 * @gc_node: in &ndp_dasr_net.list, visited round robin by the reaper.
 * @rcu: deferred free.
 * @rx_last: receiver: jiffies of the last DATA from the peer.
 * @rx_flows: receiver: our connections with a window from it in flight
 *	(under &ndp_dasr_net.lock).
 * @rx_counted: receiver: counted in &ndp_dasr_net.active (written under
 *	the lock, read without).
 * @tx_nsenders: sender: the n the peer advertised last.
 * @tx_heard: sender: jiffies @tx_nsenders was last heard.
 */
struct ndp_dasr_peer {
	struct rhash_head	node;
	struct in6_addr		addr;
	struct list_head	gc_node;
	struct rcu_head		rcu;
	unsigned long		rx_last;
	u32			rx_flows;
	bool			rx_counted;
	u16			tx_nsenders;
	unsigned long		tx_heard;
};

static const struct rhashtable_params ndp_dasr_params = {
	.key_len		= sizeof(struct in6_addr),
	.key_offset		= offsetof(struct ndp_dasr_peer, addr),
	.head_offset		= offsetof(struct ndp_dasr_peer, node),
	.automatic_shrinking	= true,
};

static unsigned long ndp_dasr_idle(const struct ndp_net *nn)
{
	return msecs_to_jiffies(READ_ONCE(nn->dasr_idle_ms));
}

static struct ndp_dasr_peer *ndp_dasr_lookup(struct ndp_net *nn,
					     const struct in6_addr *addr)
{
	return rhashtable_lookup(&nn->dasr->ht, addr, ndp_dasr_params);
}

/* Per-packet time stamp: written only when it changes (shared line). */
static void ndp_dasr_stamp(unsigned long *stamp)
{
	unsigned long now = jiffies;

	if (READ_ONCE(*stamp) != now)
		WRITE_ONCE(*stamp, now);
}

static void ndp_dasr_gc_arm(struct ndp_net *nn)
{
	unsigned long t = max(ndp_dasr_idle(nn) / 2, NDP_DASR_GC_MIN);

	lockdep_assert_held(&nn->dasr->lock);
	if (!nn->dasr->dying && !timer_pending(&nn->dasr->timer))
		mod_timer(&nn->dasr->timer, jiffies + t);
}

/* The entry of @addr, created if there is room.  Under the table lock. */
static struct ndp_dasr_peer *ndp_dasr_get(struct ndp_net *nn,
					  const struct in6_addr *addr)
{
	struct ndp_dasr_peer *p;

	lockdep_assert_held(&nn->dasr->lock);
	p = ndp_dasr_lookup(nn, addr);
	if (p)
		return p;
	if (nn->dasr->dying || nn->dasr->count >= READ_ONCE(nn->dasr_max_peers))
		goto full;
	p = kzalloc(sizeof(*p), GFP_ATOMIC | __GFP_NOWARN);
	if (!p)
		goto full;
	p->addr = *addr;
	p->rx_last = jiffies;
	p->tx_heard = jiffies;
	if (rhashtable_insert_fast(&nn->dasr->ht, &p->node, ndp_dasr_params)) {
		kfree(p);
		goto full;
	}
	list_add_tail(&p->gc_node, &nn->dasr->list);
	nn->dasr->count++;
	ndp_dasr_gc_arm(nn);
	return p;
full:
	NDP_INC_STATS(nn->net, NDP_MIB_DASRPEERSFULL);
	return NULL;
}

static void ndp_dasr_count(struct ndp_net *nn, struct ndp_dasr_peer *p)
{
	lockdep_assert_held(&nn->dasr->lock);
	if (p->rx_counted)
		return;
	WRITE_ONCE(p->rx_counted, true);
	WRITE_ONCE(nn->dasr->active, nn->dasr->active + 1);
}

static void ndp_dasr_uncount(struct ndp_net *nn, struct ndp_dasr_peer *p)
{
	lockdep_assert_held(&nn->dasr->lock);
	if (!p->rx_counted)
		return;
	WRITE_ONCE(p->rx_counted, false);
	WRITE_ONCE(nn->dasr->active, nn->dasr->active - 1);
}

/* A flow of @sk starts on its peer's entry.  Socket lock held. */
static void ndp_dasr_flow_start(struct sock *sk, struct ndp_net *nn)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_dasr_peer *p;

	ndp_sock_assert_locked(sk);
	spin_lock_bh(&nn->dasr->lock);
	p = ndp_dasr_get(nn, &nsk->flow.raddr);
	if (p) {
		p->rx_flows++;
		WRITE_ONCE(p->rx_last, jiffies);
		ndp_dasr_count(nn, p);
	}
	spin_unlock_bh(&nn->dasr->lock);
	nsk->dasr.rx = p;
	/* No room: not retried before this window ends (ndp_dasr_rcv_done). */
	nsk->dasr.full = !p;
}

/*
 * The flow of @sk ends (its window arrived, or the connection is torn
 * down): the peer stays counted for the idle timeout from now.
 */
static void ndp_dasr_flow_end(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_dasr_peer *p = nsk->dasr.rx;

	nsk->dasr.rx = NULL;
	nsk->dasr.last_valid = false;
	if (!p)
		return;
	spin_lock_bh(&nn->dasr->lock);
	if (!WARN_ON_ONCE(!p->rx_flows))
		p->rx_flows--;
	WRITE_ONCE(p->rx_last, jiffies);
	spin_unlock_bh(&nn->dasr->lock);
}

/*
 * Receiver: DATA packet @psn (intact or trimmed, not a duplicate) with
 * @flags arrived on @sk.  Socket lock held.
 */
void ndp_dasr_rcv(struct sock *sk, u32 psn, u16 flags)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_dasr_peer *p = nsk->dasr.rx;

	ndp_sock_assert_locked(sk);
	if (flags & NDP_F_LAST &&
	    (!nsk->dasr.last_valid || ndp_after(psn, nsk->dasr.last_psn))) {
		nsk->dasr.last_psn = psn;
		nsk->dasr.last_valid = true;
	}
	if (!p) {
		if (!nsk->dasr.full && READ_ONCE(nn->dasr_idle_ms))
			ndp_dasr_flow_start(sk, nn);
		return;
	}
	ndp_dasr_stamp(&p->rx_last);
	if (!READ_ONCE(p->rx_counted)) {
		spin_lock_bh(&nn->dasr->lock);
		ndp_dasr_count(nn, p);
		spin_unlock_bh(&nn->dasr->lock);
	}
}

/*
 * Receiver: after a packet was delivered (and acknowledged) on @sk: the
 * flow ends once everything up to the last LAST is in.  Under the socket
 * lock.
 */
void ndp_dasr_rcv_done(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	if (!nsk->dasr.last_valid ||
	    !ndp_after(nsk->rcv.nxt, nsk->dasr.last_psn) ||
	    nsk->rcv.nxt != nsk->rcv.high)
		return;
	nsk->dasr.full = false;
	ndp_dasr_flow_end(sk);
}

/* The connection is torn down or freed: its flow, if any, ends. */
void ndp_dasr_sock_release(struct sock *sk)
{
	ndp_dasr_flow_end(sk);
}

/* Receiver: the active senders of @net now (0: DASR off). */
u16 ndp_dasr_nsenders(struct net *net)
{
	struct ndp_net *nn = ndp_pernet(net);

	if (!READ_ONCE(nn->dasr_idle_ms))
		return 0;
	return min_t(u32, READ_ONCE(nn->dasr->active), U16_MAX);
}

/* Receiver: n for the @nsenders field of a control packet. */
u16 ndp_dasr_advertised(struct net *net)
{
	u16 n = ndp_dasr_nsenders(net);

	if (n > 1)
		NDP_INC_STATS(net, NDP_MIB_DASRADVERTISED);
	return n;
}

/*
 * Sender: the peer of @sk advertised @n in a report that passed
 * ndp_report_ok().  Socket lock held.
 */
void ndp_dasr_heard(struct sock *sk, u16 n)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	const struct in6_addr *addr = &nsk->flow.raddr;
	struct ndp_dasr_peer *p;

	ndp_sock_assert_locked(sk);
	nsk->dasr.peer_n = n;
	if (!READ_ONCE(nn->dasr_idle_ms))
		return;
	rcu_read_lock();
	p = ndp_dasr_lookup(nn, addr);
	if (p) {
		WRITE_ONCE(p->tx_nsenders, n);
		ndp_dasr_stamp(&p->tx_heard);
	}
	rcu_read_unlock();
	if (p || n <= 1)
		return;
	spin_lock_bh(&nn->dasr->lock);
	p = ndp_dasr_get(nn, addr);
	if (p) {
		WRITE_ONCE(p->tx_nsenders, n);
		WRITE_ONCE(p->tx_heard, jiffies);
	}
	spin_unlock_bh(&nn->dasr->lock);
}

/*
 * Sender: packets the new unscheduled window of @sk may push, out of the
 * initial window @iw.  Socket lock held.
 */
u32 ndp_dasr_window(struct sock *sk, u32 iw)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	unsigned long idle = ndp_dasr_idle(nn);
	struct ndp_dasr_peer *p;
	u32 n = 0, w;

	ndp_sock_assert_locked(sk);
	if (!idle || iw <= 1)
		return iw;
	rcu_read_lock();
	p = ndp_dasr_lookup(nn, &nsk->flow.raddr);
	if (p && time_before(jiffies, READ_ONCE(p->tx_heard) + idle))
		n = READ_ONCE(p->tx_nsenders);
	rcu_read_unlock();
	/* No room in the table: what this connection heard itself. */
	if (!p && time_before(jiffies, nsk->snd.heard + idle))
		n = nsk->dasr.peer_n;
	if (n <= 1)
		return iw;
	w = DIV_ROUND_UP(iw, min(n, iw));
	if (w < iw)
		NDP_INC_STATS(sock_net(sk), NDP_MIB_DASRSHRUNKWINDOWS);
	return w;
}

static void ndp_dasr_free(struct ndp_net *nn, struct ndp_dasr_peer *p)
{
	lockdep_assert_held(&nn->dasr->lock);
	ndp_dasr_uncount(nn, p);
	rhashtable_remove_fast(&nn->dasr->ht, &p->node, ndp_dasr_params);
	list_del(&p->gc_node);
	nn->dasr->count--;
	kfree_rcu(p, rcu);
}

/*
 * Reaper: uncount peers without flows idle for the timeout; free entries
 * that are neither counted nor remembered.  Visits at most
 * NDP_DASR_GC_BATCH entries, oldest visit first.
 */
static void ndp_dasr_gc(struct timer_list *t)
{
	struct ndp_dasr_net *dn = timer_container_of(dn, t, timer);
	struct ndp_net *nn = dn->nn;
	unsigned long idle = ndp_dasr_idle(nn), now = jiffies;
	struct ndp_dasr_peer *p, *tmp;
	u32 n;

	spin_lock_bh(&dn->lock);
	n = min_t(u32, dn->count, NDP_DASR_GC_BATCH);
	list_for_each_entry_safe(p, tmp, &dn->list, gc_node) {
		if (!n--)
			break;
		if (!p->rx_flows &&
		    !time_before(now, READ_ONCE(p->rx_last) + idle))
			ndp_dasr_uncount(nn, p);
		if (!p->rx_flows && !p->rx_counted &&
		    !time_before(now, READ_ONCE(p->tx_heard) + idle)) {
			ndp_dasr_free(nn, p);
			continue;
		}
		list_move_tail(&p->gc_node, &dn->list);
	}
	if (dn->count)
		ndp_dasr_gc_arm(nn);
	spin_unlock_bh(&dn->lock);
}

int ndp_dasr_net_init(struct ndp_net *nn)
{
	struct ndp_dasr_net *dn;
	int err;

	dn = kzalloc(sizeof(*dn), GFP_KERNEL);
	if (!dn)
		return -ENOMEM;
	dn->nn = nn;
	spin_lock_init(&dn->lock);
	INIT_LIST_HEAD(&dn->list);
	timer_setup(&dn->timer, ndp_dasr_gc, 0);
	err = rhashtable_init(&dn->ht, &ndp_dasr_params);
	if (err)
		goto err_free;
	nn->dasr = dn;
	return 0;

err_free:
	kfree(dn);
	return err;
}

/*
 * Namespace exit or module unload: every socket is gone, so no entry has
 * flows and nothing looks the table up any more.  The table is freed
 * once its timer is shut down.
 */
void ndp_dasr_net_exit(struct ndp_net *nn)
{
	struct ndp_dasr_net *dn = nn->dasr;
	struct ndp_dasr_peer *p, *tmp;

	spin_lock_bh(&dn->lock);
	dn->dying = true;
	spin_unlock_bh(&dn->lock);
	timer_shutdown_sync(&dn->timer);
	spin_lock_bh(&dn->lock);
	list_for_each_entry_safe(p, tmp, &dn->list, gc_node) {
		WARN_ON_ONCE(p->rx_flows);
		ndp_dasr_free(nn, p);
	}
	spin_unlock_bh(&dn->lock);
	rhashtable_destroy(&dn->ht);
	nn->dasr = NULL;
	kfree(dn);
}
