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
 * (read under RTNL: by a work item when the queue is created in softirq,
 * then by the netdevice notifier on every change), else 10000 Mb/s.
 *
 * The clock: @next_ns is when the link will have brought everything
 * pulled so far; a pull may leave while it is not after now, and costs
 * its interval.  Elapsed time pays for pulls, not timer expiries: a
 * softirq hrtimer (HRTIMER_MODE_ABS_SOFT), armed for @next_ns, issues on
 * each expiry every pull the time since the last one pays for, however
 * late it fires (under load its softirq runs from ksoftirqd, milliseconds
 * late; at 10 Gb/s a 1500-byte packet lasts 1.2 us).  Idle or late time
 * is banked up to
 *
 *	bank = max((NDP_PULL_BURST - 1) intervals, NDP_PULL_BANK_NS of link time)
 *
 * so one expiry asks for at most bank + one quantum of link time: at
 * 100 Mb/s 4 MTU packets (the first term decides up to about 3 Gb/s at
 * MTU 1500 and at any rate at MTU 9000 below 15 Gb/s), at 10 Gb/s 50 us,
 * about 41 packets of 1500 bytes or 7 of 9000.  Over any interval T the
 * pulls ask for at most rate * pct * T + bank + a quantum (below): the
 * receiver never asks for more than its link can bring.  Consecutive pulls of one socket in
 * one expiry leave as one PULL whose counter advances by their number.
 * One expiry issues at most as many pulls to a socket as its free
 * receive room holds packets of the last size seen, so that a socket
 * whose buffer was nearly full does not get a whole bank of data.
 *
 * Quanta.  A turn gives a socket a quantum of pulls, not one: one PULL
 * whose counter advances by up to
 *
 *	quantum = min(net.ndp.pull_quantum,
 *		      ceil(max(NDP_PULL_QUANTUM_NS, timer lateness) / interval))
 *
 * packets (and no more than it owes or its receive room holds).  The
 * clock lends the quantum: it is issued at once and paid for by the
 * intervals that follow (@next_ns moves by all of them), so over any
 * interval T the pulls still ask for at most rate * pct * T + bank +
 * one quantum.  The sender sends a grant as one batch on one path
 * (path.c, "Bursts"): one super-packet out, one GRO batch in, one ACK
 * for the batch where GRO runs.  The quantum covers the timer's real
 * granularity (how late its expiries fire, a moving average @late_ns)
 * but never exceeds pull_quantum, 4 by default: the paper's switch port
 * holds 8 packets, so two quanta of different senders meeting there
 * fit, where the packets of one pull per packet interleave.  At low
 * rates, where an interval is longer than NDP_PULL_QUANTUM_NS and the
 * timer is on time, the quantum is one packet, as in the paper.
 *
 * What the pacer costs, a quantum of 4 (one pull per packet before):
 * at 10 Gb/s and MTU 1500 (833 k packets/s) 208 k PULLs/s, at MTU 9000
 * (139 k/s) 35 k; at 100 Gb/s 2.1 M and 347 k PULLs/s, the MTU 1500
 * case more than a core can build: there a fabric with deeper ports
 * raises pull_quantum (64: 130 k PULLs/s).  Expiries are bounded by the
 * timer, not the rate: one expiry issues every quantum the elapsed time
 * (and the bank) pays for, to as many sockets; at 100 Gb/s the bank
 * (50 us) holds 4.2 k packets of 1500 bytes, NDP_PULL_BATCH_MAX (128)
 * pulls per expiry bound its softirq time.  No 64-bit division per pull:
 * a quantum's link time is a multiplication by the cached link time of a
 * byte (ndp_pullq_interval()), plus a 32-bit division for the average
 * size of what the socket is owed; its size takes one more per expiry.
 *
 * Scheduling: sockets with owed pulls sit in one of NDP_PULL_BANDS lists
 * by socket priority (SO_PRIORITY, capped; higher is served first, strict
 * priority) and are served round robin inside a band, one quantum per
 * turn.  Each list entry holds a socket reference.
 *
 * PULLACK: when a pull is owed and no other socket waits in the queue and
 * the clock has credit, the pull rides on the ACK or NACK being sent,
 * with the socket's other owed pulls the credit pays for (the counter
 * advances by their number), once a quantum is owed: a socket owed less
 * waits for the rest of the sender's batch, at most the link time the
 * missing packets take (@hold_ns; the timer sends what is owed then).
 *
 * Receive memory: a socket whose receive buffer is full is taken off the
 * lists (pulls stay owed); recvmsg() puts it back once there is room, so
 * the receiver never asks for data it cannot hold.  Beyond the low limit
 * of net.ndp.mem the room is what the socket is sure to be given (one
 * page, ndp_rcv_mem_short()), whatever its buffer size.  Beyond the
 * pressure limit, where out-of-order data is refused (input.c), a socket
 * has one pull out at a time (nsk->pull.mem_out, cleared by the next
 * DATA or header that arrives for it): a pull issued while the packet
 * before it is still on its way would bring an out-of-order packet to
 * be refused, NACKed and pulled again, round after round until the hole
 * is filled (up to 23 refusals per packet delivered in memlimit.sh).  A lost
 * pull costs the sender's persist probe (timer.c), as a lost pull does
 * anyway.
 *
 * Dead sockets: the clock picks a socket under pq->lock and sends its PULL
 * after dropping it; ndp_done() may run in between.  The PULL is built
 * under the socket lock (bh_lock_sock()), under which ndp_done() sets
 * nsk->dead, and withheld for a dead socket; pulls owed at teardown are
 * forgotten.  Both count in PullsDeadSock.  A socket its user owns gets
 * the PULL deferred (NDP_PULL_DEFERRED, the latest counter kept in
 * nsk->pull_defer_ctr): it leaves from ndp_release_cb() when the user
 * releases the socket, dead or not checked again there (DeferredWork).
 *
 * Lifetime.  Queues are found by ifindex in the namespace's xarray, not by
 * a walk over every device the namespace ever had (a module cannot hang
 * state off struct net_device).  A queue is created on a device's first
 * data, only while the device is registered: the device lookup and the
 * insert share one RCU section, and unregistering unlists the device and
 * waits for a grace period before NETDEV_UNREGISTER, so a queue never
 * outlives its device unnoticed.  A netdevice notifier follows the device
 * (under RTNL): NETDEV_UP, CHANGE and CHANGEMTU re-read the MTU and the
 * speed (WRITE_ONCE; the pacer reads them with READ_ONCE); NETDEV_UNREGISTER
 * takes the queue out of the table and out of service (ndp_pullq_remove():
 * dead, timer and rate work cancelled, waiting sockets unlinked with their
 * owed pulls dropped, PullsDevGone).  Those sockets fall back to the RTO
 * path: the sender probes for the pulls it misses, and the data arrives
 * on a device that has a queue, which the socket joins
 * (ndp_pull_rcv_dev()).
 *
 * Why a reference count and RCU, not a re-lookup by ifindex on each use:
 * nsk->pq is used on every data packet, and by the pull clock and rtt.c
 * without the socket lock.  So the table holds one reference while the device is
 * registered, and each socket whose pq points at the queue holds one
 * until it is torn down (ndp_done()) or lets go of a dead queue; nsk->pq
 * is __rcu, changes under the socket lock and the old queue's lock, and the
 * last reference frees the queue after a grace period (kfree_rcu()), so
 * a lockless reader under rcu_read_lock() never sees freed memory.  The
 * timer and the work are stopped before the table's reference goes, so
 * the last put has nothing to cancel.  Namespace exit finds the table
 * empty (devices go first); module unload unregisters the notifier first,
 * which replays NETDEV_UNREGISTER for every device.
 *
 * Locks: the socket lock (owned by a user, or its spinlock held by
 * softirq), then pq->lock, then the table's xa_lock (_bh).  The clock
 * never holds pq->lock while it takes a socket's spinlock.
 * A socket's pull fields (&struct ndp_sock_pull) are written under the
 * lock of its queue: ndp_sock_pull() asserts it.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "protocol.h"

/**
 * struct ndp_pull_net - the pull queues of one namespace
 * @queues: struct ndp_pullq by receiving device ifindex; its lock (_bh)
 *	serialises inserts, removals and @dying.
 * @dying: the namespace is going: no queue is added any more.
 *
 * Private to this file (&ndp_net.pull): allocated by ndp_pull_net_init(),
 * freed by ndp_pull_net_exit().
 */
struct ndp_pull_net {
	struct xarray	queues;
	bool		dying;
};

#define NDP_PULL_BURST		4	/* bank floor: pulls of one late expiry */
#define NDP_PULL_BANK_NS	(50 * NSEC_PER_USEC)	/* bank, link time */
#define NDP_PULL_QUANTUM_NS	(10 * NSEC_PER_USEC)	/* quantum floor, link time */
#define NDP_PULL_BATCH_MAX	128	/* pulls per expiry (softirq time) */
#define NDP_PULL_PENDING_MAX	65536

#define NDP_PULL_FP_SHIFT	16	/* &ndp_pullq.byte_fp: 2^-16 ns per byte */

/*
 * Time the packet a pull brings takes on the link; @bytes 0: an MTU.
 * The link time of a byte is kept for the rate and pacing it was
 * computed for, so the division is made when one of them changes, not
 * per pull: a pull costs a multiplication.  Rounded up: the pacer errs
 * towards pulling slower than the link (by less than 0.2 % at 1 Tb/s).
 * At 1 Mb/s and 1 % pacing a byte lasts 800 us: 65 549 bytes times 2^16
 * times that fits in 64 bits.
 */
static u64 ndp_pullq_interval(struct ndp_pullq *pq, u32 bytes)
	__must_hold(&pq->lock)
{
	struct ndp_net *nn = pq->nn;
	u32 rate = READ_ONCE(nn->link_rate_mbps);
	u32 mtu = READ_ONCE(pq->mtu);
	u32 pct = READ_ONCE(nn->pull_pacing_pct);

	lockdep_assert_held(&pq->lock);
	if (!bytes || bytes > mtu)
		bytes = mtu;
	if (!rate)
		rate = READ_ONCE(pq->rate_mbps) ?: NDP_DEFAULT_RATE_MBPS;
	pct = max(pct, 1U);
	if (unlikely(rate != pq->byte_rate || pct != pq->byte_pct)) {
		/* 8 bits / (Mb/s * pct / 100) in ns = 800 000 / (rate * pct) */
		pq->byte_fp = DIV64_U64_ROUND_UP(800000ULL << NDP_PULL_FP_SHIFT,
						 (u64)rate * pct);
		pq->byte_rate = rate;
		pq->byte_pct = pct;
	}
	return ((u64)bytes + ETH_HLEN) * pq->byte_fp >> NDP_PULL_FP_SHIFT;
}

/*
 * Whether the protocol's memory, not the receive buffer, decides what
 * @sk can take: beyond the low limit of net.ndp.mem a socket is only
 * sure of what it holds below sysctl_rmem (one page;
 * __sk_mem_raise_allocated()), and beyond the pressure limit
 * out-of-order data is refused (input.c).  A packet pulled into memory
 * that is not there is refused, NACKed and pulled again at once: a loop
 * at the pull clock's rate that starves the reader whose reads would
 * end it (millions of MemDrops per second).  So the pull waits, as for
 * a full buffer, until the reader frees what the socket holds.
 */
static bool ndp_rcv_mem_short(const struct sock *sk, int rmem)
{
	if (sk_memory_allocated(sk) <= sk_prot_mem_limits(sk, 0))
		return false;
	return rmem >= READ_ONCE(*sk->sk_prot->sysctl_rmem);
}

/* Beyond the pressure limit: out-of-order data is refused (input.c). */
static bool ndp_rcv_mem_pressure(const struct sock *sk)
{
	return sk_memory_allocated(sk) > sk_prot_mem_limits(sk, 1);
}

/*
 * @nsk's pull fields: written under the lock of its queue @pq, which the
 * pull clock holds without the socket lock.
 */
static struct ndp_sock_pull *ndp_sock_pull(struct ndp_sock *nsk,
					   struct ndp_pullq *pq)
	__must_hold(&pq->lock)
{
	lockdep_assert_held(&pq->lock);
	return &nsk->pull;
}

/* A pull leaves for @nsk: beyond the pressure limit, the only one out. */
static void ndp_pull_issued(struct ndp_sock *nsk)
{
	if (ndp_rcv_mem_pressure((struct sock *)nsk))
		WRITE_ONCE(nsk->pull.mem_out, true);
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

	if (READ_ONCE(nsk->pull.mem_out) && ndp_rcv_mem_pressure(sk))
		return false;
	if (!rmem)
		return true;
	if (ndp_rcv_mem_short(sk, rmem))
		return READ_ONCE(nsk->rcv.hole_nacked) && READ_ONCE(nsk->rcv.ooo_len) &&
		       skb_queue_empty_lockless(&sk->sk_receive_queue);
	if (rmem + READ_ONCE(nsk->rcv.tsize) <= READ_ONCE(sk->sk_rcvbuf))
		return true;
	return READ_ONCE(nsk->rcv.hole_nacked) &&
	       skb_queue_empty_lockless(&sk->sk_receive_queue);
}

/*
 * Packets of the last size seen that the receive buffer still has room
 * for, at least one (ndp_rcv_has_room() decides whether any pull goes).
 */
static u32 ndp_rcv_room_pkts(const struct sock *sk)
{
	int rmem = atomic_read(&sk->sk_rmem_alloc);
	int room = READ_ONCE(sk->sk_rcvbuf) - rmem;
	u32 tsize = max_t(u32, READ_ONCE(ndp_sk(sk)->rcv.tsize), 1);

	/* Beyond the low memory limit: one packet at a time. */
	if (sk_memory_allocated(sk) > sk_prot_mem_limits(sk, 0))
		return 1;
	return room > 0 ? max_t(u32, room / tsize, 1) : 1;
}

/*
 * Credit the clock may bank: NDP_PULL_BURST - 1 pulls of @interval, or
 * NDP_PULL_BANK_NS of link time, whichever is more.
 */
static u64 ndp_pullq_bank(u64 interval)
{
	return max_t(u64, (NDP_PULL_BURST - 1) * interval, NDP_PULL_BANK_NS);
}

/*
 * The quantum (see "Quanta" at the top): how many pulls one turn of a
 * socket takes.  pq->lock held; at most one 32-bit division.
 */
static u32 ndp_pullq_quantum(struct ndp_pullq *pq)
	__must_hold(&pq->lock)
{
	u32 max = READ_ONCE(pq->nn->pull_quantum);
	u64 span = max_t(u64, NDP_PULL_QUANTUM_NS, pq->late_ns);
	u64 interval = max_t(u64, pq->interval_ns, 1);

	if (max <= 1)
		return 1;
	if (span >= (u64)max * interval)
		return max;
	/* span < 64 intervals: a 32-bit divisor unless one interval alone
	 * exceeds 4 s, when the quantum is one packet.
	 */
	if (interval > U32_MAX)
		return 1;
	return max_t(u32, div_u64(span + interval - 1, interval), 1);
}

/*
 * Charge @n of @nsk's owed pulls (at most those owed), each the average
 * expected size of those owed, to the clock at @now; pq->lock held,
 * pulls owed.  The clock lends a quantum: it is issued at once and paid
 * for by the intervals that follow.  Returns the pull counter to send.
 * The caller moves or unlinks the socket.
 */
static u32 ndp_pullq_take(struct ndp_pullq *pq, struct ndp_sock *nsk, u64 now,
			  u32 n)
	__must_hold(&pq->lock)
{
	struct ndp_sock_pull *pl = ndp_sock_pull(nsk, pq);
	u32 bytes = div_u64(pl->bytes, pl->pending);
	u64 interval = ndp_pullq_interval(pq, bytes);

	n = clamp(n, 1U, pl->pending);
	pl->pending -= n;
	pl->bytes = pl->pending ? pl->bytes - (u64)bytes * n : 0;
	pq->interval_ns = interval;
	/* Catch up on the time elapsed, but never bank more than the bank. */
	pq->next_ns = max(pq->next_ns, now - min(now, ndp_pullq_bank(interval))) +
		      n * interval;
	ndp_pull_issued(nsk);
	pl->ctr += n;
	return pl->ctr;
}

/* Read the device's MTU and speed; RTNL held (ethtool needs it). */
static void ndp_pullq_read_dev(struct ndp_pullq *pq, struct net_device *dev)
{
	struct ethtool_link_ksettings ks;
	u32 rate = 0;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(dev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN)
		rate = ks.base.speed;
	/* Pairs with the READ_ONCE()s of ndp_pullq_interval(). */
	WRITE_ONCE(pq->mtu, READ_ONCE(dev->mtu));
	WRITE_ONCE(pq->rate_mbps, rate);
}

/*
 * First read of the device speed of a queue created in softirq.  The
 * netdevice notifier cancels this work while it holds RTNL, so it never
 * waits for RTNL: it tries, and comes back a jiffy later if RTNL is busy.
 */
static void ndp_pullq_rate_work(struct work_struct *work)
{
	struct ndp_pullq *pq = container_of(to_delayed_work(work),
					    struct ndp_pullq, rate_work);
	struct net_device *dev;

	if (!rtnl_trylock()) {
		schedule_delayed_work(&pq->rate_work, 1);
		return;
	}
	dev = __dev_get_by_index(pq->nn->net, pq->ifindex);
	if (dev)
		ndp_pullq_read_dev(pq, dev);
	rtnl_unlock();
}

/* Arm the timer for the next slot, or the end of a lone socket's hold. */
static void ndp_pullq_arm(struct ndp_pullq *pq)
	__must_hold(&pq->lock)
{
	lockdep_assert_held(&pq->lock);
	if (pq->armed || pq->dead)
		return;
	pq->armed = true;
	hrtimer_start(&pq->timer, ns_to_ktime(max(pq->next_ns, pq->hold_ns)),
		      HRTIMER_MODE_ABS_SOFT);
}

static struct ndp_sock *ndp_pullq_pick(struct ndp_pullq *pq)
	__must_hold(&pq->lock)
{
	int band;

	lockdep_assert_held(&pq->lock);
	for (band = NDP_PULL_BANDS - 1; band >= 0; band--) {
		if (!list_empty(&pq->bands[band]))
			return list_first_entry(&pq->bands[band],
						struct ndp_sock, pull.node);
	}
	return NULL;
}

static int ndp_pull_band(const struct sock *sk)
{
	return min_t(u32, READ_ONCE(sk->sk_priority), NDP_PULL_BANDS - 1);
}

/*
 * Build the PULL carrying @ctr onto @xmitq, socket lock held; none for a
 * dead socket (@n pulls withheld).
 */
static void ndp_pull_build(struct sock *sk, u32 ctr, u32 n,
			   struct sk_buff_head *xmitq)
{
	struct sk_buff *skb;

	ndp_sock_assert_locked(sk);
	if (ndp_sk(sk)->dead) {
		NDP_ADD_STATS(sock_net(sk), NDP_MIB_PULLSDEADSOCK, n);
		return;
	}
	skb = ndp_ctrl_skb(sk, NDP_PKT_PULL, 0, 0);
	if (!skb)
		return;
	ndp_hdr(skb)->pull = htonl(ctr);
	NDP_INC_STATS(sock_net(sk), NDP_MIB_OUTPULLS);
	trace_ndp_pull(sk, ctr, false);
	__skb_queue_tail(xmitq, skb);
}

/*
 * Send one PULL carrying @ctr, for @n pulls taken from the clock; no lock
 * held on entry, softirq (the hrtimer's).  The socket may have been torn
 * down since the clock picked it (ndp_done() runs under the socket lock
 * and only then detaches it from the queue): the PULL is built under the
 * socket lock, and not at all for a dead socket, so that none is sent
 * after ndp_done().  A socket its user owns gets it when the user
 * releases it (ndp_pull_deferred()).
 */
static void ndp_pull_send(struct sock *sk, u32 ctr, u32 n)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff_head xmitq;

	__skb_queue_head_init(&xmitq);
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		ndp_pull_build(sk, ctr, n, &xmitq);
	} else {
		nsk->pull_defer_ctr = ctr;
		if (!test_and_set_bit(NDP_PULL_DEFERRED, &nsk->deferred)) {
			sock_hold(sk);	/* ndp_release_cb() drops it */
			NDP_INC_STATS(sock_net(sk), NDP_MIB_DEFERRED);
		}
	}
	bh_unlock_sock(sk);
	ndp_xmit_queue(sk, &xmitq);
}

/* NDP_PULL_DEFERRED: the user releasing @sk sends the PULL it held up. */
void ndp_pull_deferred(struct sock *sk, struct sk_buff_head *xmitq)
{
	ndp_pull_build(sk, ndp_sk(sk)->pull_defer_ctr, 1, xmitq);
}

/*
 * Issue every owed pull the clock pays for, at most NDP_PULL_BATCH_MAX,
 * in priority and round-robin order; consecutive pulls of one socket
 * leave as one PULL.  A socket gets at most its free receive room's worth
 * per expiry (ndp_rcv_room_pkts()); when every socket left has had that,
 * the expiry ends and the next comes one interval later.
 */
static enum hrtimer_restart ndp_pullq_timer(struct hrtimer *timer)
{
	struct ndp_pullq *pq = container_of(timer, struct ndp_pullq, timer);
	u64 now = ktime_get_ns();
	struct sock *held = NULL;	/* its PULL not sent yet, with a ref */
	LIST_HEAD(aside);		/* capped this run, still linked */
	int issued = 0;
	enum hrtimer_restart ret;
	bool capped = false;
	u32 held_ctr = 0, held_n = 0, pass, quantum;
	u64 late = ktime_to_ns(hrtimer_get_expires(timer));

	spin_lock(&pq->lock);
	pass = ++pq->pass;
	/* How late expiries fire, a moving average; bounded. */
	late = min_t(u64, now - min(now, late), NSEC_PER_SEC);
	pq->late_ns = pq->late_ns - (pq->late_ns >> 3) + (late >> 3);
	quantum = ndp_pullq_quantum(pq);
	spin_unlock(&pq->lock);

	while (issued < NDP_PULL_BATCH_MAX) {
		struct ndp_sock_pull *pl;
		struct ndp_sock *nsk;
		u32 ctr, n, room;
		struct sock *sk;

		spin_lock(&pq->lock);
		if (pq->next_ns > now) {
			spin_unlock(&pq->lock);
			break;
		}
		nsk = ndp_pullq_pick(pq);
		if (!nsk) {
			/* Only sockets whose room is spoken for are left. */
			capped = !list_empty(&aside);
			spin_unlock(&pq->lock);
			break;
		}
		sk = (struct sock *)nsk;
		pl = ndp_sock_pull(nsk, pq);
		if (pl->pending && !ndp_rcv_has_room(sk)) {
			WRITE_ONCE(pl->blocked, true);
			/* recvmsg() may free memory at this very moment and
			 * read pull.blocked before we set it, so not unblock
			 * us: set it, then look again.  Pairs with the
			 * barrier in ndp_pull_unblock().
			 */
			smp_mb();
			if (ndp_rcv_has_room(sk))
				WRITE_ONCE(pl->blocked, false);
		}
		if (pl->blocked || !pl->pending) {
			/* Held back until recvmsg makes room (or void). */
			list_del(&pl->node);
			pl->linked = false;
			pq->active--;
			spin_unlock(&pq->lock);
			sock_put(sk);	/* the list's */
			continue;
		}
		if (pl->pass != pass) {
			pl->pass = pass;
			pl->pass_n = 0;
		}
		room = ndp_rcv_room_pkts(sk);
		if (pl->pass_n >= room) {
			/*
			 * Its free receive room is spoken for: set aside
			 * until the end of this run, so that the next socket
			 * (of its band or a lower one) gets the credit.  It
			 * stays linked; ndp_pull_link() leaves it where it
			 * is, and an unlink under pq->lock works from here.
			 */
			list_move_tail(&pl->node, &aside);
			spin_unlock(&pq->lock);
			continue;
		}
		/* A quantum, within the room and what is owed. */
		n = min3(quantum, pl->pending, room - pl->pass_n);
		ctr = ndp_pullq_take(pq, nsk, now, n);
		pl->pass_n += n;
		if (pl->pending) {
			/* Round robin: to the tail; keep a ref for the send. */
			list_move_tail(&pl->node,
				       &pq->bands[ndp_pull_band(sk)]);
			sock_hold(sk);
		} else {
			/* The list's reference becomes ours. */
			list_del(&pl->node);
			pl->linked = false;
			pq->active--;
		}
		spin_unlock(&pq->lock);
		issued += n;

		if (held == sk) {
			/* The same socket again: one PULL for both. */
			held_ctr = ctr;
			held_n += n;
			sock_put(sk);	/* still held for the first */
			continue;
		}
		if (held) {
			ndp_pull_send(held, held_ctr, held_n);
			sock_put(held);
		}
		held = sk;
		held_ctr = ctr;
		held_n = n;
	}
	if (held) {
		ndp_pull_send(held, held_ctr, held_n);
		sock_put(held);
	}
	if (issued) {
		NDP_INC_STATS(pq->nn->net, NDP_MIB_PULLTIMERRUNS);
		NDP_ADD_STATS(pq->nn->net, NDP_MIB_PULLSTIMER, issued);
	}

	spin_lock(&pq->lock);
	while (!list_empty(&aside)) {
		struct ndp_sock *nsk = list_first_entry(&aside, struct ndp_sock,
							pull.node);

		list_move_tail(&nsk->pull.node,
			       &pq->bands[ndp_pull_band((struct sock *)nsk)]);
	}
	if (pq->active && !pq->dead) {
		u64 next = pq->next_ns;

		if (capped)	/* wait for the pulled data or a read */
			next = max(next, now) + pq->interval_ns;
		hrtimer_set_expires(timer, ns_to_ktime(max(next, now + 1)));
		ret = HRTIMER_RESTART;
	} else {
		pq->armed = false;
		ret = HRTIMER_NORESTART;
	}
	spin_unlock(&pq->lock);
	return ret;
}

/* ---------------------------------------------------------------------- */
/* Lifetime: see "Lifetime" at the top.                                   */

static void ndp_pullq_put(struct ndp_pullq *pq)
{
	/* The last reference: out of the table, timer and work stopped. */
	if (refcount_dec_and_test(&pq->refcnt))
		kfree_rcu(pq, rcu);
}

/*
 * The queue of @ifindex with a reference for the caller, created if the
 * device exists; NULL if it does not (or no memory).  Softirq or process
 * context, BH disabled.
 */
static struct ndp_pullq *ndp_pullq_get(struct ndp_net *nn, int ifindex)
{
	struct ndp_pullq *pq, *new;
	struct net_device *dev;
	int i;

	/*
	 * One RCU section from the device lookup to the insert: a device
	 * is unlisted, then synchronize_net(), then NETDEV_UNREGISTER, so
	 * a queue inserted here for a device found here is removed by the
	 * notifier, never left behind for a device that is gone.
	 */
	rcu_read_lock();
	pq = xa_load(&nn->pull->queues, ifindex);
	if (pq && refcount_inc_not_zero(&pq->refcnt))
		goto out;
	pq = NULL;
	dev = dev_get_by_index_rcu(nn->net, ifindex);
	if (!dev)
		goto out;
	new = kzalloc(sizeof(*new), GFP_ATOMIC);
	if (!new)
		goto out;
	new->nn = nn;
	new->ifindex = ifindex;
	refcount_set(&new->refcnt, 2);	/* the table's and the caller's */
	spin_lock_init(&new->lock);
	for (i = 0; i < NDP_PULL_BANDS; i++)
		INIT_LIST_HEAD(&new->bands[i]);
	hrtimer_setup(&new->timer, ndp_pullq_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
	INIT_DELAYED_WORK(&new->rate_work, ndp_pullq_rate_work);
	new->mtu = READ_ONCE(dev->mtu);
	spin_lock_bh(&new->lock);	/* for the assertion: not yet shared */
	new->interval_ns = ndp_pullq_interval(new, 0);
	spin_unlock_bh(&new->lock);

	xa_lock_bh(&nn->pull->queues);
	if (nn->pull->dying) {
		xa_unlock_bh(&nn->pull->queues);
		kfree(new);
		goto out;
	}
	pq = __xa_cmpxchg(&nn->pull->queues, ifindex, NULL, new, GFP_ATOMIC);
	if (pq) {
		/* Another CPU was first (or no memory for the slot). */
		xa_unlock_bh(&nn->pull->queues);
		kfree(new);
		if (xa_is_err(pq) || !refcount_inc_not_zero(&pq->refcnt))
			pq = NULL;
		goto out;
	}
	schedule_delayed_work(&new->rate_work, 0);
	xa_unlock_bh(&nn->pull->queues);
	NDP_INC_STATS(nn->net, NDP_MIB_PULLQADDED);
	pq = new;
out:
	rcu_read_unlock();
	return pq;
}

/*
 * Take a queue out of service, once it is out of the table: nothing links
 * or arms from here on; the timer and the rate work are stopped; the
 * sockets waiting in it lose their owed pulls (the sender's RTO probes
 * for them, and the data then arrives on a device that has a queue) and
 * are unlinked.  Their &ndp_sock.pq still points here, with a reference:
 * each lets go on its next packet or at teardown.  Drops the table's
 * reference.  Process context (RTNL for a device, or namespace exit).
 */
static void ndp_pullq_remove(struct ndp_pullq *pq)
{
	struct ndp_net *nn = pq->nn;
	struct ndp_sock *nsk;
	u32 dropped = 0;

	spin_lock_bh(&pq->lock);
	WRITE_ONCE(pq->dead, true);
	spin_unlock_bh(&pq->lock);
	/* Not re-armed once dead: a running expiry ends and stays off. */
	hrtimer_cancel(&pq->timer);
	/* Safe under RTNL: the work only tries RTNL. */
	cancel_delayed_work_sync(&pq->rate_work);

	spin_lock_bh(&pq->lock);
	while ((nsk = ndp_pullq_pick(pq))) {
		struct ndp_sock_pull *pl = ndp_sock_pull(nsk, pq);

		list_del_init(&pl->node);
		pl->linked = false;
		pq->active--;
		dropped += pl->pending;
		pl->pending = 0;
		pl->bytes = 0;
		spin_unlock_bh(&pq->lock);
		sock_put((struct sock *)nsk);	/* the list's */
		spin_lock_bh(&pq->lock);
	}
	WARN_ON_ONCE(pq->active);
	spin_unlock_bh(&pq->lock);
	if (dropped)
		NDP_ADD_STATS(nn->net, NDP_MIB_PULLSDEVGONE, dropped);
	NDP_INC_STATS(nn->net, NDP_MIB_PULLQREMOVED);
	ndp_pullq_put(pq);
}

/* The socket's queue; socket lock held. */
static struct ndp_pullq *ndp_sk_pq(struct ndp_sock *nsk)
{
	return rcu_dereference_protected(nsk->pq,
					 lockdep_sock_is_held((struct sock *)nsk));
}

/*
 * The socket lets go of its queue: it is torn down (@mib
 * NDP_MIB_PULLSDEADSOCK) or the device went away (NDP_MIB_PULLSDEVGONE);
 * the pulls it still owes are dropped and counted in @mib.  @nsk->pq
 * changes under the old queue's lock, so that ndp_pull_unblock(), which
 * holds only that lock, sees either the queue it knows or another one.
 */
static void ndp_pull_leave(struct sock *sk, struct ndp_pullq *pq, int mib)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_sock_pull *pl;
	bool put = false;
	u32 dropped;

	ndp_sock_assert_locked(sk);
	spin_lock_bh(&pq->lock);
	pl = ndp_sock_pull(nsk, pq);
	dropped = pl->pending;
	pl->pending = 0;
	pl->bytes = 0;
	WRITE_ONCE(pl->blocked, false);
	if (pl->linked) {
		list_del_init(&pl->node);
		pl->linked = false;
		pq->active--;
		put = true;
	}
	rcu_assign_pointer(nsk->pq, NULL);
	spin_unlock_bh(&pq->lock);
	if (dropped)
		NDP_ADD_STATS(sock_net(sk), mib, dropped);
	if (put)
		__sock_put(sk);	/* the list's; the caller holds one */
	ndp_pullq_put(pq);
}

/*
 * A data packet or trimmed header arrived on @ifindex: the device picks
 * the queue on first use, and again once the queue's device went away.
 * Socket lock held.
 */
void ndp_pull_rcv_dev(struct sock *sk, int ifindex)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq = ndp_sk_pq(nsk);

	ndp_sock_assert_locked(sk);
	if (pq) {
		if (!READ_ONCE(pq->dead))
			return;
		ndp_pull_leave(sk, pq, NDP_MIB_PULLSDEVGONE);
	}
	nsk->ifindex = ifindex;
}

static struct ndp_pullq *ndp_sk_pullq(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq = ndp_sk_pq(nsk);

	if (!pq) {
		pq = ndp_pullq_get(ndp_pernet(sock_net(sk)), nsk->ifindex);
		rcu_assign_pointer(nsk->pq, pq);
	}
	return pq;
}

static void ndp_pull_link(struct ndp_pullq *pq, struct sock *sk)
	__must_hold(&pq->lock)
{
	struct ndp_sock_pull *pl = ndp_sock_pull(ndp_sk(sk), pq);

	if (pl->linked || pl->blocked || !pl->pending || pq->dead)
		return;
	sock_hold(sk);
	list_add_tail(&pl->node, &pq->bands[ndp_pull_band(sk)]);
	pl->linked = true;
	pq->active++;
	ndp_pullq_arm(pq);
}

/*
 * Owe the sender one pull, expected to bring a packet of @bytes (IP
 * packet; 0 if unknown: an MTU).  With @want_pullack, the pull may
 * instead be issued at once (returns true, *@pull_ctr set): the caller
 * sends it in the ACK or NACK.
 */
bool ndp_pull_enqueue(struct sock *sk, bool want_pullack, u32 bytes,
		      u32 *pull_ctr)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	bool now_ok = false, put = false;
	struct ndp_sock_pull *pl;
	struct ndp_pullq *pq;
	u64 now;

	ndp_sock_assert_locked(sk);
	if (nsk->dead)
		return false;
	pq = ndp_sk_pullq(sk);
	if (!pq)
		return false;
	now = ktime_get_ns();
	spin_lock_bh(&pq->lock);
	if (pq->dead) {
		/* The device is going: no pull from here (RTO path). */
		spin_unlock_bh(&pq->lock);
		ndp_pull_leave(sk, pq, NDP_MIB_PULLSDEVGONE);
		return false;
	}
	pl = ndp_sock_pull(nsk, pq);
	/* Room again without a read (a NACKed hole may be pulled beyond
	 * the buffer, see ndp_rcv_has_room()).
	 */
	if (pl->blocked && ndp_rcv_has_room(sk))
		WRITE_ONCE(pl->blocked, false);
	if (pl->pending < NDP_PULL_PENDING_MAX) {
		u32 mtu = READ_ONCE(pq->mtu);

		pl->pending++;
		pl->bytes += bytes && bytes < mtu ? bytes : mtu;
	}
	/*
	 * The only socket owed pulls, and the clock has credit: the credit
	 * is all its own, so its pulls ride on this ACK or NACK rather than
	 * wait for the timer, a quantum at a time ("Quanta" at the top).
	 * Less than a quantum owed: the rest of the sender's batch is on
	 * its way; the pulls wait for it, at most the link time it takes.
	 */
	if (want_pullack && (!pq->active || (pl->linked && pq->active == 1)) &&
	    !pl->blocked && pq->next_ns <= now && ndp_rcv_has_room(sk)) {
		u32 n = 0, room = ndp_rcv_room_pkts(sk);
		u32 quantum = min(ndp_pullq_quantum(pq), room);

		if (pl->pending >= quantum) {
			while (pl->pending && n < room &&
			       n < NDP_PULL_BATCH_MAX &&
			       (!n || (pq->next_ns <= now &&
				       !READ_ONCE(pl->mem_out)))) {
				u32 k = min3(quantum, pl->pending, room - n);

				*pull_ctr = ndp_pullq_take(pq, nsk, now, k);
				n += k;
			}
			now_ok = true;
		} else if (!pl->linked) {
			pq->hold_ns = now + (quantum - pl->pending) *
					    pq->interval_ns;
		}
	}
	if (!pl->pending && pl->linked) {
		list_del(&pl->node);
		pl->linked = false;
		pq->active--;
		put = true;
	}
	ndp_pull_link(pq, sk);
	spin_unlock_bh(&pq->lock);
	if (put)
		__sock_put(sk);	/* the list's; the caller holds one */
	return now_ok;
}

/*
 * The sender's LAST packet arrived: drop the owed pulls except @keep (the
 * packets still missing, which need pulls to be retransmitted).
 */
void ndp_pull_trim(struct sock *sk, u32 keep)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_sock_pull *pl;
	struct ndp_pullq *pq;
	bool put = false;

	ndp_sock_assert_locked(sk);
	pq = ndp_sk_pq(nsk);
	if (!pq)
		return;
	spin_lock_bh(&pq->lock);
	pl = ndp_sock_pull(nsk, pq);
	if (pl->pending > keep) {
		NDP_ADD_STATS(sock_net(sk), NDP_MIB_PULLSPURGED,
			      pl->pending - keep);
		pl->bytes = div_u64(pl->bytes * keep, pl->pending);
		pl->pending = keep;
	}
	if (!pl->pending && pl->linked) {
		list_del(&pl->node);
		pl->linked = false;
		pq->active--;
		put = true;
	}
	spin_unlock_bh(&pq->lock);
	if (put)
		__sock_put(sk);	/* caller holds a reference */
}

/*
 * Connection torn down (ndp_done(), nsk->dead already set): forget every
 * owed pull (counted as withheld for a dead socket) and let go of the
 * queue.
 */
void ndp_pull_detach(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq;

	ndp_sock_assert_locked(sk);
	pq = ndp_sk_pq(nsk);
	if (pq)
		ndp_pull_leave(sk, pq, NDP_MIB_PULLSDEADSOCK);
}

/* Last reference to the socket: a queue it still points to (never torn
 * down through ndp_done()) is let go of; nothing else can see it.
 */
void ndp_pull_sk_destruct(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq = rcu_dereference_protected(nsk->pq, true);

	if (pq) {
		WARN_ON_ONCE(nsk->pull.linked);
		RCU_INIT_POINTER(nsk->pq, NULL);
		ndp_pullq_put(pq);
	}
}

static void ndp_pull_snap_read(const struct ndp_sock *nsk,
			       struct ndp_pull_snap *snap)
{
	snap->pending = nsk->pull.pending;
	snap->ctr = nsk->pull.ctr;
	snap->blocked = nsk->pull.blocked;
	snap->linked = nsk->pull.linked;
}

/*
 * The socket's pull fields for NDP_INFO and sock_diag.
 * The pull clock changes them under the queue's lock without the socket
 * lock, so they are read under that lock too.  Socket lock held (by the
 * owner or its spinlock): the socket's queue does not change meanwhile,
 * and without one the fields change only under the socket lock.
 */
void ndp_pull_snapshot(struct sock *sk, struct ndp_pull_snap *snap)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq;

	ndp_sock_assert_locked(sk);
	pq = ndp_sk_pq(nsk);
	if (!pq) {
		ndp_pull_snap_read(nsk, snap);
		return;
	}
	spin_lock_bh(&pq->lock);
	ndp_pull_snap_read(nsk, snap);
	spin_unlock_bh(&pq->lock);
}

/*
 * recvmsg() freed receive memory: resume held-back pulls.  Called under
 * lock_sock(), so @nsk->pq does not change; it is still read under RCU
 * and checked again under the queue's lock, as the pull clock reads it.
 */
void ndp_pull_unblock(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pullq *pq;

	sock_owned_by_me(sk);
	rcu_read_lock();
	pq = rcu_dereference(nsk->pq);
	if (!pq)
		goto out;
	/* The memory freed before pull.blocked is read: pairs with the
	 * barrier in ndp_pullq_timer(), so that one of us sees the other.
	 */
	smp_mb();
	if (!READ_ONCE(nsk->pull.blocked) || !ndp_rcv_has_room(sk))
		goto out;
	spin_lock_bh(&pq->lock);
	if (nsk->pull.blocked && !READ_ONCE(nsk->dead) && !pq->dead &&
	    rcu_access_pointer(nsk->pq) == pq) {
		WRITE_ONCE(nsk->pull.blocked, false);
		ndp_pull_link(pq, sk);
	}
	spin_unlock_bh(&pq->lock);
out:
	rcu_read_unlock();
}

/*
 * DATA (or its header) arrived for @sk: a pull it had out beyond the
 * pressure limit is answered, and the next may go.  Socket lock held.
 */
void ndp_pull_answered(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	ndp_sock_assert_locked(sk);
	if (!READ_ONCE(nsk->pull.mem_out))
		return;
	WRITE_ONCE(nsk->pull.mem_out, false);
	ndp_pull_unblock(sk);
}

/* ---------------------------------------------------------------------- */
/* Following the devices.                                                 */

static int ndp_pull_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ndp_net *nn;
	struct ndp_pullq *pq;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}
	/*
	 * Every namespace has our state while it has devices: ours is made
	 * before its devices, and they go before it (pernet devices exit
	 * first); the notifier is registered after and unregistered before
	 * the pernet operations.
	 */
	nn = ndp_pernet(dev_net(dev));
	if (event == NETDEV_UNREGISTER) {
		pq = xa_erase_bh(&nn->pull->queues, dev->ifindex);
		if (pq)
			ndp_pullq_remove(pq);
		return NOTIFY_DONE;
	}
	/* Only removed under RTNL (or at namespace exit, after the devices). */
	pq = xa_load(&nn->pull->queues, dev->ifindex);
	if (pq)
		ndp_pullq_read_dev(pq, dev);
	return NOTIFY_DONE;
}

static struct notifier_block ndp_pull_netdev_nb = {
	.notifier_call	= ndp_pull_netdev_event,
};

int ndp_pull_init(void)
{
	return register_netdevice_notifier(&ndp_pull_netdev_nb);
}

/* Replays NETDEV_UNREGISTER for every device: every queue goes. */
void ndp_pull_exit(void)
{
	unregister_netdevice_notifier(&ndp_pull_netdev_nb);
}

int ndp_pull_net_init(struct ndp_net *nn)
{
	struct ndp_pull_net *pn = kzalloc(sizeof(*pn), GFP_KERNEL);

	if (!pn)
		return -ENOMEM;
	xa_init_flags(&pn->queues, XA_FLAGS_LOCK_BH);
	nn->pull = pn;
	return 0;
}

/*
 * Namespace exit (also at module unload): no NDP socket of this namespace
 * exists any more (each holds a namespace reference, and the module
 * cannot go while sockets exist), and its devices are gone, so the table
 * is normally empty already; what is left goes as with its device.
 */
void ndp_pull_net_exit(struct ndp_net *nn)
{
	struct ndp_pull_net *pn = nn->pull;
	struct ndp_pullq *pq;
	unsigned long idx;

	xa_lock_bh(&pn->queues);
	pn->dying = true;
	xa_unlock_bh(&pn->queues);
	xa_for_each(&pn->queues, idx, pq) {
		xa_erase_bh(&pn->queues, idx);
		WARN_ON_ONCE(refcount_read(&pq->refcnt) != 1);
		ndp_pullq_remove(pq);
	}
	xa_destroy(&pn->queues);
	kfree(pn);
	nn->pull = NULL;
}
