// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: time-wait at both ends, for at-most-once connection setup.
 *
 * Any first-window packet can create a connection, so a duplicated or
 * replayed one arriving after the connection ended would open a second
 * one and deliver its data twice.  When a connection ends (both FINs
 * exchanged, close, reset or timeout), each end keeps a small record of
 * the 4-tuple, the nonce and the next psn it expected, for
 * net.ndp.time_wait_ms (0 disables).  A packet that matches a record
 * never reaches a listener, whatever its flags:
 *   - DATA older than the expected psn (a duplicate, a replay, or a
 *     retransmission whose ACK was lost): ACKed with the expected psn as
 *     cumulative ack, so a peer that missed our ACK can finish;
 *   - the peer's FIN without payload at the expected psn (it closed after
 *     we finished, e.g. the server closed first and the connection ended
 *     when its own FIN was acknowledged): ACKed, and the record now
 *     expects the psn after it, as an open socket would;
 *   - a record that never heard from the peer (it closed before anything
 *     of the peer's arrived) knows no expected psn: the peer's FIN alone,
 *     as the first packet of its stream (SYN, syn_off 0, no payload), is
 *     ACKed; anything else is RST, never compared with an unknown psn;
 *   - any other DATA (payload sent to a connection that is over): RST;
 *   - ACK, NACK, PULL, RST: dropped silently (nothing is owed).
 * DATA with SYN is counted in ReplayRejected in every case: it would have
 * opened a connection without the record.  A late FIN (with or without
 * SYN) is thus acknowledged, creates nothing and draws no reset.  A new
 * connection on the same 4-tuple uses a new nonce and is unaffected.
 *
 * Records live in a per-netns rhashtable (salted jhash of the whole key,
 * grows with the number of records, RCU lookups) and on a list in the
 * order they were made, which is the order they expire in while
 * time_wait_ms stays the same; the reaper (one timer per netns) frees
 * from the head and stops at the first record still alive.  At most
 * net.ndp.max_tw_buckets records exist (as tcp_max_tw_buckets): beyond
 * that the oldest is evicted (TwEvicted), which ends its replay
 * protection early.  Connections
 * that no application ever saw (reset before accept()) make no record:
 * a replay can deliver their data at most once, and a flood of spoofed
 * first windows, whose connections end that way, cannot push the
 * records of real connections out.
 *
 * sock_diag dumps (diag.c) list the live records as TCP lists its
 * time-wait sockets: ndp_tw_batch() copies a few at a time under the
 * lock.  Records get increasing ids and are only ever added at the tail
 * and freed from the head, so a dump resumes at the first id it has not
 * reported, whatever was reaped in between.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/slab.h>
#include <linux/jiffies.h>
#include <linux/rhashtable.h>

#include "protocol.h"

/**
 * struct ndp_tw_net - the time-wait records of one namespace (&ndp_net.tw)
 * @nn: owning namespace state (knobs).
 * @lock: serialises writers of @ht, @list, @count, @next_id, @dying and
 *	the records' rcv_nxt (_bh).
 * @ht: records by 4-tuple and nonce (RCU lookups).
 * @list: records, oldest first.
 * @count: number of records.
 * @next_id: id of the next record (ids grow along @list; dumps resume
 *	by id).
 * @timer: reaps expired records.
 * @dying: the namespace is going: no record is added, the reaper is not
 *	armed again.
 *
 * Private to this file: allocated by ndp_tw_net_init(), freed by
 * ndp_tw_net_exit().
 */
struct ndp_tw_net {
	struct ndp_net		*nn;
	spinlock_t		lock;		/* writers of the records */
	struct rhashtable	ht;
	struct list_head	list;
	u32			count;
	unsigned long		next_id;
	struct timer_list	timer;
	bool			dying;
};

struct ndp_tw {
	struct rhash_head	hnode;
	struct list_head	lnode;
	struct rcu_head		rcu;
	struct ndp_flow		fl;
	u16			sock_family;
	u32			rcv_nxt;
	bool			rcv_known;
	unsigned long		expires;
	unsigned long		id;
	u64			cookie;
};

static u32 ndp_tw_obj_hashfn(const void *data, u32 len, u32 seed)
{
	return ndp_flow_hashfn(&((const struct ndp_tw *)data)->fl, 0, seed);
}

static int ndp_tw_cmpfn(struct rhashtable_compare_arg *arg, const void *obj)
{
	return !ndp_flow_match(arg->key, &((const struct ndp_tw *)obj)->fl);
}

static const struct rhashtable_params ndp_tw_params = {
	.head_offset		= offsetof(struct ndp_tw, hnode),
	.hashfn			= ndp_flow_hashfn,
	.obj_hashfn		= ndp_tw_obj_hashfn,
	.obj_cmpfn		= ndp_tw_cmpfn,
	.automatic_shrinking	= true,
};

/* The table lock held. */
static void ndp_tw_free(struct ndp_net *nn, struct ndp_tw *tw)
{
	lockdep_assert_held(&nn->tw->lock);
	rhashtable_remove_fast(&nn->tw->ht, &tw->hnode, ndp_tw_params);
	list_del(&tw->lnode);
	nn->tw->count--;
	kfree_rcu(tw, rcu);
}

static void ndp_tw_reap(struct timer_list *t)
{
	struct ndp_tw_net *twn = timer_container_of(twn, t, timer);
	struct ndp_net *nn = twn->nn;
	struct ndp_tw *tw, *tmp;

	spin_lock_bh(&twn->lock);
	list_for_each_entry_safe(tw, tmp, &twn->list, lnode) {
		if (time_before(jiffies, tw->expires)) {
			if (!twn->dying)
				mod_timer(&twn->timer, tw->expires);
			break;
		}
		ndp_tw_free(nn, tw);
	}
	spin_unlock_bh(&twn->lock);
}

void ndp_tw_add(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 ms = READ_ONCE(nn->time_wait_ms);
	struct ndp_tw *tw;

	/* Nobody accepted it: nothing was delivered to protect. */
	if (!ms || !nsk->nonce || !nsk->user_seen)
		return;
	tw = kmalloc(sizeof(*tw), GFP_ATOMIC);
	if (!tw)
		return;
	tw->fl = nsk->flow;
	tw->sock_family = sk->sk_family;
	tw->rcv_nxt = nsk->rcv.nxt;
	tw->rcv_known = nsk->rcv.isn_known;
	tw->expires = jiffies + msecs_to_jiffies(ms);
	/* As TCP's time-wait sockets, the record keeps the socket's cookie. */
	tw->cookie = atomic64_read(&sk->sk_cookie);

	spin_lock_bh(&nn->tw->lock);
	if (nn->tw->dying)
		goto drop;
	/* The bound may have been lowered: evict down to it. */
	while (nn->tw->count >= READ_ONCE(nn->max_tw_buckets)) {
		ndp_tw_free(nn, list_first_entry(&nn->tw->list, struct ndp_tw,
						 lnode));
		NDP_INC_STATS(sock_net(sk), NDP_MIB_TWEVICTED);
	}
	if (rhashtable_lookup_insert_key(&nn->tw->ht, &tw->fl, &tw->hnode,
					 ndp_tw_params))
		goto drop;	/* a record of it exists, or no memory */
	tw->id = nn->tw->next_id++;
	list_add_tail(&tw->lnode, &nn->tw->list);
	nn->tw->count++;
	if (!timer_pending(&nn->tw->timer))
		mod_timer(&nn->tw->timer, tw->expires);
	spin_unlock_bh(&nn->tw->lock);
	return;
drop:
	spin_unlock_bh(&nn->tw->lock);
	kfree(tw);
}

/*
 * Handle a packet for which no connection exists if it matches a live
 * time-wait record (see the top of this file).  Returns false if none
 * matches; the caller owns @skb either way.
 */
bool ndp_tw_rcv(struct net *net, struct sk_buff *skb,
		const struct ndp_flow *fl)
{
	const struct ndphdr *nh = ndp_hdr(skb);
	struct ndp_net *nn = ndp_pernet(net);
	u16 flags = ntohs(nh->flags);
	u32 psn = ntohl(nh->psn);
	struct ndp_tw *tw;
	u8 reply = 0;
	u32 cum = 0;

	rcu_read_lock();
	tw = rhashtable_lookup(&nn->tw->ht, fl, ndp_tw_params);
	if (!tw || !time_before(jiffies, READ_ONCE(tw->expires))) {
		rcu_read_unlock();
		return false;
	}
	if (nh->type == NDP_PKT_DATA) {
		spin_lock_bh(&nn->tw->lock);
		if (!tw->rcv_known) {
			/* Nothing came from the peer: its first psn is
			 * known only from a first-window packet.  A FIN
			 * alone that opens its stream (it closed without
			 * sending) is acknowledged; anything else is data
			 * that can no longer be delivered.
			 */
			if ((flags & NDP_F_SYN) && (flags & NDP_F_FIN) &&
			    !nh->syn_off && !ntohs(nh->paylen) &&
			    !(flags & NDP_F_TRIMMED)) {
				tw->rcv_nxt = psn + 1;
				tw->rcv_known = true;
				reply = NDP_PKT_ACK;
				NDP_INC_STATS(net, NDP_MIB_TWFINACKED);
			} else {
				reply = NDP_PKT_RST;
			}
		} else if (ndp_before(psn, tw->rcv_nxt)) {
			reply = NDP_PKT_ACK;
		} else if (psn == tw->rcv_nxt && (flags & NDP_F_FIN) &&
			   !ntohs(nh->paylen) && !(flags & NDP_F_TRIMMED)) {
			tw->rcv_nxt++;
			reply = NDP_PKT_ACK;
			NDP_INC_STATS(net, NDP_MIB_TWFINACKED);
		} else {
			reply = NDP_PKT_RST;
		}
		cum = tw->rcv_nxt;
		spin_unlock_bh(&nn->tw->lock);
	}
	rcu_read_unlock();
	if (nh->type == NDP_PKT_DATA && (flags & NDP_F_SYN))
		NDP_INC_STATS(net, NDP_MIB_REPLAYREJECTED);
	if (reply)
		ndp_send_reply(net, fl, reply, psn, cum);
	return true;
}

/*
 * For dumps: copies of up to @n live records whose id is at least *@pos,
 * oldest first; *@pos becomes the id after the last one copied.  Returns
 * the number copied, fewer than @n once the list is exhausted.
 */
int ndp_tw_batch(struct ndp_net *nn, unsigned long *pos,
		 struct ndp_tw_diag *batch, int n)
{
	struct ndp_tw *tw;
	int got = 0;

	spin_lock_bh(&nn->tw->lock);
	list_for_each_entry(tw, &nn->tw->list, lnode) {
		if (got == n)
			break;
		/* Ids grow along the list; an expired one awaits the reaper. */
		if ((long)(tw->id - *pos) < 0 ||
		    !time_before(jiffies, tw->expires))
			continue;
		batch[got].fl = tw->fl;
		batch[got].sock_family = tw->sock_family;
		batch[got].cookie = tw->cookie;
		batch[got].expires = tw->expires;
		batch[got].id = tw->id;
		*pos = tw->id + 1;
		got++;
	}
	spin_unlock_bh(&nn->tw->lock);
	return got;
}
EXPORT_SYMBOL_GPL(ndp_tw_batch);

int ndp_tw_net_init(struct ndp_net *nn)
{
	struct ndp_tw_net *twn;
	int err;

	twn = kzalloc(sizeof(*twn), GFP_KERNEL);
	if (!twn)
		return -ENOMEM;
	twn->nn = nn;
	spin_lock_init(&twn->lock);
	INIT_LIST_HEAD(&twn->list);
	timer_setup(&twn->timer, ndp_tw_reap, 0);
	err = rhashtable_init(&twn->ht, &ndp_tw_params);
	if (err)
		goto err_free;
	nn->tw = twn;
	return 0;

err_free:
	kfree(twn);
	return err;
}

/*
 * Namespace exit: no record is added after this.  The records are freed
 * once the reaper's timer is shut down.
 */
void ndp_tw_net_exit(struct ndp_net *nn)
{
	struct ndp_tw_net *twn = nn->tw;
	struct ndp_tw *tw, *tmp;

	spin_lock_bh(&twn->lock);
	twn->dying = true;
	spin_unlock_bh(&twn->lock);
	timer_shutdown_sync(&twn->timer);
	spin_lock_bh(&twn->lock);
	list_for_each_entry_safe(tw, tmp, &twn->list, lnode)
		ndp_tw_free(nn, tw);
	spin_unlock_bh(&twn->lock);
	rhashtable_destroy(&twn->ht);
	nn->tw = NULL;
	kfree(twn);
}
