// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: time-wait at both ends, for at-most-once connection setup.
 *
 * Any first-window packet can create a connection, so a duplicated or
 * replayed one arriving after the connection ended would open a second
 * one and deliver its data twice.  When a connection ends (both FINs
 * exchanged, close, reset or timeout), each end keeps a small record of
 * the 4-tuple, the nonce and the next psn it expected, for
 * net.ndp.time_wait_ms (0 disables).  A packet that matches a record:
 *   - DATA with SYN: counted in ReplayRejected and dropped (acknowledged
 *     when it is older than the expected psn, so a peer that missed our
 *     ACK can finish);
 *   - other DATA: ACKed if old or a bare FIN, else answered with RST (data
 *     sent to a closed socket);
 *   - ACK, NACK, PULL, RST: dropped silently.
 * A new connection on the same 4-tuple uses a new nonce and is unaffected.
 *
 * Records live in a per-netns hash (at most NDP_TW_MAX, the oldest is
 * evicted first) and are reaped by one per-netns timer.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/slab.h>
#include <linux/jiffies.h>

#include "protocol.h"

struct ndp_tw {
	struct hlist_node	hnode;
	struct list_head	lnode;
	struct ndp_flow		fl;
	u32			rcv_nxt;
	unsigned long		expires;
};

static struct hlist_head *ndp_tw_bucket(struct ndp_net *nn,
					const struct ndp_flow *fl)
{
	return &nn->twr_hash[hash_32(ndp_flow_hash(fl), NDP_TW_HASH_BITS)];
}

static void ndp_tw_free(struct ndp_net *nn, struct ndp_tw *tw)
{
	hlist_del(&tw->hnode);
	list_del(&tw->lnode);
	nn->twr_count--;
	kfree(tw);
}

static void ndp_tw_reap(struct timer_list *t)
{
	struct ndp_net *nn = from_timer(nn, t, twr_timer);
	struct ndp_tw *tw, *tmp;
	unsigned long next = 0;
	bool any = false;

	spin_lock_bh(&nn->twr_lock);
	list_for_each_entry_safe(tw, tmp, &nn->twr_list, lnode) {
		if (time_after_eq(jiffies, tw->expires)) {
			ndp_tw_free(nn, tw);
			continue;
		}
		if (!any || time_before(tw->expires, next))
			next = tw->expires;
		any = true;
	}
	if (any && !nn->dying)
		mod_timer(&nn->twr_timer, next);
	spin_unlock_bh(&nn->twr_lock);
}

void ndp_tw_add(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 ms = READ_ONCE(nn->time_wait_ms);
	struct ndp_tw *tw;

	if (!ms || !nsk->nonce)
		return;
	tw = kmalloc(sizeof(*tw), GFP_ATOMIC);
	if (!tw)
		return;
	tw->fl = nsk->flow;
	tw->rcv_nxt = nsk->rcv_nxt;
	tw->expires = jiffies + msecs_to_jiffies(ms);

	spin_lock_bh(&nn->twr_lock);
	if (nn->dying) {
		spin_unlock_bh(&nn->twr_lock);
		kfree(tw);
		return;
	}
	if (nn->twr_count >= NDP_TW_MAX)
		ndp_tw_free(nn, list_first_entry(&nn->twr_list, struct ndp_tw,
						 lnode));
	hlist_add_head(&tw->hnode, ndp_tw_bucket(nn, &tw->fl));
	list_add_tail(&tw->lnode, &nn->twr_list);
	nn->twr_count++;
	if (!timer_pending(&nn->twr_timer) ||
	    time_before(tw->expires, nn->twr_timer.expires))
		mod_timer(&nn->twr_timer, tw->expires);
	spin_unlock_bh(&nn->twr_lock);
}

/*
 * Whether @fl matches a live time-wait record; if so *@rcv_nxt is the
 * next psn that connection expected.
 */
bool ndp_tw_lookup(struct net *net, const struct ndp_flow *fl, u32 *rcv_nxt)
{
	struct ndp_net *nn = ndp_pernet(net);
	struct ndp_tw *tw;
	bool found = false;

	spin_lock_bh(&nn->twr_lock);
	hlist_for_each_entry(tw, ndp_tw_bucket(nn, fl), hnode) {
		if (ndp_flow_match(&tw->fl, fl) &&
		    time_before(jiffies, tw->expires)) {
			*rcv_nxt = tw->rcv_nxt;
			found = true;
			break;
		}
	}
	spin_unlock_bh(&nn->twr_lock);
	return found;
}

void ndp_tw_net_init(struct ndp_net *nn)
{
	int i;

	spin_lock_init(&nn->twr_lock);
	INIT_LIST_HEAD(&nn->twr_list);
	for (i = 0; i < ARRAY_SIZE(nn->twr_hash); i++)
		INIT_HLIST_HEAD(&nn->twr_hash[i]);
	timer_setup(&nn->twr_timer, ndp_tw_reap, 0);
}

/* Namespace exit: ndp_pull_net_exit() already set nn->dying. */
void ndp_tw_net_exit(struct ndp_net *nn)
{
	struct ndp_tw *tw, *tmp;

	spin_lock_bh(&nn->twr_lock);
	nn->dying = true;
	spin_unlock_bh(&nn->twr_lock);
	timer_shutdown_sync(&nn->twr_timer);
	list_for_each_entry_safe(tw, tmp, &nn->twr_list, lnode)
		ndp_tw_free(nn, tw);
}
