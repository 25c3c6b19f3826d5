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
 *   - any other DATA (payload sent to a connection that is over): RST;
 *   - ACK, NACK, PULL, RST: dropped silently (nothing is owed).
 * DATA with SYN is counted in ReplayRejected in every case: it would have
 * opened a connection without the record.  A late FIN (with or without
 * SYN) is thus acknowledged, creates nothing and draws no reset.  A new
 * connection on the same 4-tuple uses a new nonce and is unaffected.
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
	u8 reply = 0;
	struct ndp_tw *tw;
	bool found = false;
	u32 cum = 0;

	spin_lock_bh(&nn->twr_lock);
	hlist_for_each_entry(tw, ndp_tw_bucket(nn, fl), hnode) {
		if (!ndp_flow_match(&tw->fl, fl) ||
		    !time_before(jiffies, tw->expires))
			continue;
		found = true;
		if (nh->type != NDP_PKT_DATA)
			break;
		if (ndp_before(psn, tw->rcv_nxt)) {
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
		break;
	}
	spin_unlock_bh(&nn->twr_lock);
	if (!found)
		return false;
	if (nh->type == NDP_PKT_DATA && (flags & NDP_F_SYN))
		NDP_INC_STATS(net, NDP_MIB_REPLAYREJECTED);
	if (reply)
		ndp_send_reply(net, fl, reply, psn, cum);
	return true;
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
