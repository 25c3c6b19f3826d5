// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: the pull queue, the receiver's clock (paper section 3.2).
 *
 * One pull queue per network namespace and receiving device, shared by
 * every connection whose data arrives on that device.  Each arriving data
 * packet or trimmed header owes the sender one pull; the owed pulls wait
 * here and leave one at a time, spaced so that the data they elicit
 * arrives at the link rate:
 *
 *	interval = (size + Ethernet header) * 8 / (rate * pull_pacing_pct / 100)
 *
 * where size is what the pull is expected to bring: the device MTU, except
 * for the pull a trimmed header asks for, which brings back that packet,
 * whose length the header tells (&ndphdr.paylen).  A socket's owed pulls
 * are charged the average of their expected sizes, so the pulls for the
 * short tails of small messages do not leave the link idle for a whole
 * MTU's worth of time each.
 *
 * rate is net.ndp.link_rate_mbps if set, else the device's ethtool speed
 * (read from a work item under RTNL, as it cannot be read in softirq),
 * else 10000 Mb/s.  A softirq hrtimer (HRTIMER_MODE_ABS_SOFT) issues the
 * pulls; if it fires late (a loaded or emulated host), it issues the pulls
 * of the missed slots at once, at most NDP_PULL_BURST per expiry.
 *
 * Scheduling: sockets with owed pulls sit in one of NDP_PULL_BANDS lists
 * by socket priority (SO_PRIORITY, capped; higher is served first, strict
 * priority) and are served round robin inside a band, one pull per turn.
 * Each list entry holds a socket reference.
 *
 * PULLACK: when a pull is owed and no other socket waits in the queue and
 * the pacing slot is free, the pull rides on the ACK or NACK being sent.
 *
 * Receive memory: a socket whose receive buffer is full is taken off the
 * lists (pulls stay owed); recvmsg() puts it back once there is room, so
 * the receiver never asks for data it cannot hold.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "protocol.h"

#define NDP_PULL_BURST		4
#define NDP_DEFAULT_RATE_MBPS	10000
#define NDP_PULL_PENDING_MAX	65536

/* Time the packet a pull brings takes on the link; @bytes 0: an MTU. */
static u64 ndp_pullq_interval(struct ndp_pullq *pq, u32 bytes)
{
	struct ndp_net *nn = pq->nn;
	u64 rate = READ_ONCE(nn->link_rate_mbps);
	u32 mtu = READ_ONCE(pq->mtu);
	u32 pct = READ_ONCE(nn->pull_pacing_pct);
	u64 bits;

	if (!bytes || bytes > mtu)
		bytes = mtu;
	bits = ((u64)bytes + ETH_HLEN) * 8;

	if (!rate)
		rate = READ_ONCE(pq->rate_mbps) ?: NDP_DEFAULT_RATE_MBPS;
	/* bits / (Mb/s * pct / 100) in ns = bits * 1000 * 100 / (rate * pct) */
	return div64_u64(bits * 100000, rate * pct ?: 1);
}

/*
 * Whether a pull may go out: the data it brings must fit in the receive
 * buffer (one more packet of the last size seen).  Exception: when the
 * application has read everything and the next in-order packet is known
 * to need a retransmission, its pull goes anyway (in-order data is
 * accepted beyond the buffer, see ndp_rcv_data()), else out-of-order data
 * filling the buffer would wait for the RTO.
 */
bool ndp_rcv_has_room(const struct sock *sk)
{
	const struct ndp_sock *nsk = ndp_sk(sk);
	int rmem = atomic_read(&sk->sk_rmem_alloc);

	if (!rmem ||
	    rmem + READ_ONCE(nsk->rcv_tsize) <= READ_ONCE(sk->sk_rcvbuf))
		return true;
	return READ_ONCE(nsk->hole_nacked) &&
	       skb_queue_empty_lockless(&sk->sk_receive_queue);
}

static void ndp_pullq_rate_work(struct work_struct *work)
{
	struct ndp_pullq *pq = container_of(work, struct ndp_pullq, rate_work);
	struct ethtool_link_ksettings ks;
	struct net_device *dev;

	rtnl_lock();
	dev = __dev_get_by_index(pq->nn->net, pq->ifindex);
	if (dev) {
		WRITE_ONCE(pq->mtu, READ_ONCE(dev->mtu));
		if (!__ethtool_get_link_ksettings(dev, &ks) &&
		    ks.base.speed != SPEED_UNKNOWN && ks.base.speed)
			WRITE_ONCE(pq->rate_mbps, ks.base.speed);
	}
	rtnl_unlock();
}

/* Arm the timer for the next slot; pq->lock held. */
static void ndp_pullq_arm(struct ndp_pullq *pq)
{
	if (pq->armed || pq->nn->dying)
		return;
	pq->armed = true;
	hrtimer_start(&pq->timer, ns_to_ktime(pq->next_ns),
		      HRTIMER_MODE_ABS_SOFT);
}

static struct ndp_sock *ndp_pullq_pick(struct ndp_pullq *pq)
{
	int band;

	for (band = NDP_PULL_BANDS - 1; band >= 0; band--) {
		if (!list_empty(&pq->bands[band]))
			return list_first_entry(&pq->bands[band],
						struct ndp_sock, pq_node);
	}
	return NULL;
}

static int ndp_pull_band(const struct sock *sk)
{
	return min_t(u32, READ_ONCE(sk->sk_priority), NDP_PULL_BANDS - 1);
}

/* Send one PULL carrying @ctr; no lock held. */
static void ndp_pull_send(struct sock *sk, u32 ctr)
{
	struct sk_buff_head xmitq;
	struct sk_buff *skb;

	skb = ndp_ctrl_skb(sk, NDP_PKT_PULL, 0, 0);
	if (!skb)
		return;
	ndp_hdr(skb)->pull = htonl(ctr);
	NDP_INC_STATS(sock_net(sk), NDP_MIB_OUTPULLS);
	trace_ndp_pull(sk, ctr, false);
	__skb_queue_head_init(&xmitq);
	__skb_queue_tail(&xmitq, skb);
	ndp_xmit_queue(sk, &xmitq);
}

static enum hrtimer_restart ndp_pullq_timer(struct hrtimer *timer)
{
	struct ndp_pullq *pq = container_of(timer, struct ndp_pullq, timer);
	u64 now = ktime_get_ns();
	int budget = NDP_PULL_BURST;
	enum hrtimer_restart ret;

	while (budget > 0) {
		struct ndp_sock *nsk;
		struct sock *sk;
		u64 interval;
		u32 ctr, bytes;

		spin_lock(&pq->lock);
		if (pq->next_ns > now) {
			spin_unlock(&pq->lock);
			break;
		}
		nsk = ndp_pullq_pick(pq);
		if (!nsk) {
			spin_unlock(&pq->lock);
			break;
		}
		sk = (struct sock *)nsk;
		if (nsk->pull_pending && !ndp_rcv_has_room(sk)) {
			WRITE_ONCE(nsk->pq_blocked, true);
			/* recvmsg() may free memory at this very moment and
			 * read pq_blocked before we set it, so not unblock
			 * us: set it, then look again.  Pairs with the
			 * barrier in ndp_pull_unblock().
			 */
			smp_mb();
			if (ndp_rcv_has_room(sk))
				WRITE_ONCE(nsk->pq_blocked, false);
		}
		if (nsk->pq_blocked || !nsk->pull_pending) {
			/* Held back until recvmsg makes room (or void). */
			list_del(&nsk->pq_node);
			nsk->pq_linked = false;
			pq->active--;
			spin_unlock(&pq->lock);
			sock_put(sk);	/* the list's */
			continue;
		}
		/* Charge this pull the average expected size of those owed. */
		bytes = div_u64(nsk->pull_bytes, nsk->pull_pending);
		nsk->pull_bytes -= bytes;
		nsk->pull_pending--;
		ctr = ++nsk->pull_ctr;
		if (nsk->pull_pending) {
			/* Round robin: to the tail; keep a ref for the send. */
			list_move_tail(&nsk->pq_node,
				       &pq->bands[ndp_pull_band(sk)]);
			sock_hold(sk);
		} else {
			/* The list's reference becomes ours. */
			list_del(&nsk->pq_node);
			nsk->pq_linked = false;
			pq->active--;
		}
		interval = ndp_pullq_interval(pq, bytes);
		pq->interval_ns = interval;
		/* Catch up on missed slots, but never bank more than a burst. */
		pq->next_ns = max(pq->next_ns + interval,
				  now - (NDP_PULL_BURST - 1) * interval);
		spin_unlock(&pq->lock);

		ndp_pull_send(sk, ctr);
		sock_put(sk);
		budget--;
	}

	spin_lock(&pq->lock);
	if (pq->active && !pq->nn->dying) {
		hrtimer_set_expires(timer, ns_to_ktime(max(pq->next_ns, now + 1)));
		ret = HRTIMER_RESTART;
	} else {
		pq->armed = false;
		ret = HRTIMER_NORESTART;
	}
	spin_unlock(&pq->lock);
	return ret;
}

struct ndp_pullq *ndp_pullq_get(struct ndp_net *nn, int ifindex)
{
	struct ndp_pullq *pq, *new;
	struct net_device *dev;
	int i;

	spin_lock_bh(&nn->pullq_lock);
	list_for_each_entry(pq, &nn->pullq_list, node) {
		if (pq->ifindex == ifindex) {
			spin_unlock_bh(&nn->pullq_lock);
			return pq;
		}
	}
	spin_unlock_bh(&nn->pullq_lock);

	new = kzalloc(sizeof(*new), GFP_ATOMIC);
	if (!new)
		return NULL;
	new->nn = nn;
	new->ifindex = ifindex;
	spin_lock_init(&new->lock);
	for (i = 0; i < NDP_PULL_BANDS; i++)
		INIT_LIST_HEAD(&new->bands[i]);
	hrtimer_init(&new->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	new->timer.function = ndp_pullq_timer;
	INIT_WORK(&new->rate_work, ndp_pullq_rate_work);
	new->mtu = ETH_DATA_LEN;
	rcu_read_lock();
	dev = dev_get_by_index_rcu(nn->net, ifindex);
	if (dev)
		new->mtu = READ_ONCE(dev->mtu);
	rcu_read_unlock();
	new->interval_ns = ndp_pullq_interval(new, 0);

	spin_lock_bh(&nn->pullq_lock);
	list_for_each_entry(pq, &nn->pullq_list, node) {
		if (pq->ifindex == ifindex) {
			spin_unlock_bh(&nn->pullq_lock);
			kfree(new);
			return pq;
		}
	}
	if (nn->dying) {
		spin_unlock_bh(&nn->pullq_lock);
		kfree(new);
		return NULL;
	}
	list_add(&new->node, &nn->pullq_list);
	schedule_work(&new->rate_work);
	spin_unlock_bh(&nn->pullq_lock);
	return new;
}

static struct ndp_pullq *ndp_sk_pullq(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	if (!nsk->pq)
		nsk->pq = ndp_pullq_get(ndp_pernet(sock_net(sk)), nsk->ifindex);
	return nsk->pq;
}

/* pq->lock held. */
static void ndp_pull_link(struct ndp_pullq *pq, struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	if (nsk->pq_linked || nsk->pq_blocked || !nsk->pull_pending)
		return;
	sock_hold(sk);
	list_add_tail(&nsk->pq_node, &pq->bands[ndp_pull_band(sk)]);
	nsk->pq_linked = true;
	pq->active++;
	ndp_pullq_arm(pq);
}

/*
 * Owe the sender one pull, expected to bring a packet of @bytes (IP
 * packet; 0 if unknown: an MTU).  With @want_pullack, the pull may
 * instead be issued at once (returns true, *@pull_ctr set): the caller
 * sends it in the ACK or NACK.  Called under the socket lock.
 */
bool ndp_pull_enqueue(struct sock *sk, bool want_pullack, u32 bytes,
		      u32 *pull_ctr)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq = ndp_sk_pullq(sk);
	bool now_ok = false;
	u64 now;

	if (!pq || nsk->dead)
		return false;
	now = ktime_get_ns();
	spin_lock_bh(&pq->lock);
	if (want_pullack && !pq->active && pq->next_ns <= now &&
	    !nsk->pull_pending && ndp_rcv_has_room(sk)) {
		*pull_ctr = ++nsk->pull_ctr;
		pq->interval_ns = ndp_pullq_interval(pq, bytes);
		pq->next_ns = now + pq->interval_ns;
		now_ok = true;
	} else {
		/* Room again without a read (a NACKed hole may be pulled
		 * beyond the buffer, see ndp_rcv_has_room()).
		 */
		if (nsk->pq_blocked && ndp_rcv_has_room(sk))
			WRITE_ONCE(nsk->pq_blocked, false);
		if (nsk->pull_pending < NDP_PULL_PENDING_MAX) {
			u32 mtu = READ_ONCE(pq->mtu);

			nsk->pull_pending++;
			nsk->pull_bytes += bytes && bytes < mtu ? bytes : mtu;
		}
		ndp_pull_link(pq, sk);
	}
	spin_unlock_bh(&pq->lock);
	return now_ok;
}

/*
 * The sender's LAST packet arrived: drop the owed pulls except @keep (the
 * packets still missing, which need pulls to be retransmitted).
 */
void ndp_pull_trim(struct sock *sk, u32 keep)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq = nsk->pq;
	bool put = false;

	if (!pq)
		return;
	spin_lock_bh(&pq->lock);
	if (nsk->pull_pending > keep) {
		NDP_ADD_STATS(sock_net(sk), NDP_MIB_PULLSPURGED,
			      nsk->pull_pending - keep);
		nsk->pull_bytes = div_u64(nsk->pull_bytes * keep,
					  nsk->pull_pending);
		nsk->pull_pending = keep;
	}
	if (!nsk->pull_pending && nsk->pq_linked) {
		list_del(&nsk->pq_node);
		nsk->pq_linked = false;
		pq->active--;
		put = true;
	}
	spin_unlock_bh(&pq->lock);
	if (put)
		__sock_put(sk);	/* caller holds a reference */
}

/* Connection torn down: forget every owed pull. */
void ndp_pull_detach(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq = nsk->pq;
	bool put = false;

	if (!pq)
		return;
	spin_lock_bh(&pq->lock);
	nsk->pull_pending = 0;
	nsk->pull_bytes = 0;
	nsk->pq_blocked = false;
	if (nsk->pq_linked) {
		list_del(&nsk->pq_node);
		nsk->pq_linked = false;
		pq->active--;
		put = true;
	}
	spin_unlock_bh(&pq->lock);
	if (put)
		__sock_put(sk);	/* caller holds a reference */
}

/* recvmsg() freed receive memory: resume held-back pulls. */
void ndp_pull_unblock(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq = nsk->pq;

	if (!pq)
		return;
	/* The memory freed before pq_blocked is read: pairs with the
	 * barrier in ndp_pullq_timer(), so that one of us sees the other.
	 */
	smp_mb();
	if (!READ_ONCE(nsk->pq_blocked) || !ndp_rcv_has_room(sk))
		return;
	spin_lock_bh(&pq->lock);
	if (nsk->pq_blocked && !nsk->dead) {
		WRITE_ONCE(nsk->pq_blocked, false);
		ndp_pull_link(pq, sk);
	}
	spin_unlock_bh(&pq->lock);
}

int ndp_pull_net_init(struct ndp_net *nn)
{
	spin_lock_init(&nn->pullq_lock);
	INIT_LIST_HEAD(&nn->pullq_list);
	return 0;
}

/*
 * Namespace exit (also at module unload): no NDP socket of this namespace
 * exists any more (each holds a namespace reference, and the module
 * cannot go while sockets exist), so the queues are empty; stop the
 * timers and the rate work and free them.
 */
void ndp_pull_net_exit(struct ndp_net *nn)
{
	struct ndp_pullq *pq, *tmp;

	spin_lock_bh(&nn->pullq_lock);
	nn->dying = true;
	spin_unlock_bh(&nn->pullq_lock);
	list_for_each_entry_safe(pq, tmp, &nn->pullq_list, node) {
		spin_lock_bh(&pq->lock);
		pq->armed = true;	/* nobody re-arms from here on */
		spin_unlock_bh(&pq->lock);
		hrtimer_cancel(&pq->timer);
		cancel_work_sync(&pq->rate_work);
		WARN_ON_ONCE(pq->active);
		list_del(&pq->node);
		kfree(pq);
	}
}
