// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: round-trip time estimation and the retransmission timeout.
 *
 * Trimming reports nearly every loss at once, so the RTO (timer.c) is a
 * last resort: lost ACKs, NACKs or pulls, corruption, a failed link.  It
 * must never fire while the network is merely slow, and never wait
 * thousands of round trips on a fast one, so it comes from the path as
 * measured, not from a constant:
 *
 *   - Samples.  Each ACK naming a packet of ours that went out once and
 *     was not yet acknowledged gives one sample: now minus the time that
 *     packet left (the newest of a span; an ACK span is sent when its run
 *     ends).  Packets sent more than once give none (Karn's rule), nor do
 *     NACKs, returns to sender or cumulative acknowledgments.  An ACK
 *     the peer held to ride on its DATA says for how long (delack.c):
 *     that time is taken off the sample.
 *   - Estimator (RFC 6298, in TCP's fixed point): srtt and rttvar, plus a
 *     windowed minimum over NDP_MIN_RTT_WIN (reported, NDP_INFO).
 *   - Timeout: srtt + max(4 rttvar, NDP_RTO_QUEUE_PKTS packet times on
 *     the link, two clock ticks), at least net.ndp.rto_min_us and at
 *     most net.ndp.rto_max_us.  The packet-time term covers a sample
 *     taken with empty queues followed by a packet that waits behind a
 *     full switch port (the paper's 8-packet queues); the tick term
 *     covers the timer's own granularity.  On a 10 Gb/s data-centre link
 *     with an RTT of tens of microseconds this is a few milliseconds (the
 *     clock tick dominates); at 2 Mb/s with 9 KB packets it is
 *     srtt + 0.3 s.
 *   - A new connection starts from what the namespace last learnt about
 *     the same peer address (a small cache, as tcp_metrics): a
 *     zero-RTT first window that never collects samples of its own still
 *     gets a timer fitted to its path.  With nothing known, the timeout
 *     is net.ndp.rto_init_us.
 *   - Backoff (timer.c): each expiry doubles the wait until the oldest
 *     packet in flight is acknowledged; an expiry shown to be spurious
 *     (the peer marks its ACK of a duplicate NDP_F_DUP) undoes it.
 *
 * The per-peer cache is direct-mapped (NDP_PEER_SLOTS per namespace,
 * salted hash of the peer address, the last writer wins), written when a
 * connection that took samples ends and read when one starts, under
 * ndp_peer_net.lock.  Only connections whose peer acknowledged our data
 * take samples, so a spoofed address never writes an entry.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "protocol.h"

#define NDP_PEER_SLOTS		256
#define NDP_PEER_TTL		(600 * HZ)	/* older entries are ignored */
#define NDP_MIN_RTT_WIN		(10 * HZ)
#define NDP_RTO_QUEUE_PKTS	8
#define NDP_RTT_MAX_US		(60 * USEC_PER_SEC)

/**
 * struct ndp_peer_rtt - what the namespace last learnt about one peer
 * @addr: peer address (IPv4 mapped), the key.
 * @srtt_us8: smoothed RTT when the last connection with samples ended,
 *	microseconds times 8 (as &ndp_sock.srtt_us8).
 * @rttvar_us4: its RTT variation, microseconds times 4.
 * @stamp: jiffies when written (0: empty).
 */
struct ndp_peer_rtt {
	struct in6_addr	addr;
	u32		srtt_us8;
	u32		rttvar_us4;
	unsigned long	stamp;
};

/**
 * struct ndp_peer_net - the per-peer RTT cache of one namespace
 *	(&ndp_net.peer)
 * @lock: protects @slots (_bh).
 * @salt: hash salt of @slots.
 * @slots: the cache, NDP_PEER_SLOTS entries direct-mapped by salted peer
 *	address (a separate 8 KiB allocation, so that this struct does not
 *	push it to the next allocation size).
 *
 * Private to this file: allocated by ndp_peer_net_init(), freed by
 * ndp_peer_net_exit().
 */
struct ndp_peer_net {
	spinlock_t		lock;	/* @slots */
	u32			salt;
	struct ndp_peer_rtt	*slots;
};

int ndp_peer_net_init(struct ndp_net *nn)
{
	struct ndp_peer_net *pn;

	pn = kzalloc(sizeof(*pn), GFP_KERNEL);
	if (!pn)
		return -ENOMEM;
	pn->slots = kcalloc(NDP_PEER_SLOTS, sizeof(*pn->slots), GFP_KERNEL);
	if (!pn->slots)
		goto err_free;
	spin_lock_init(&pn->lock);
	pn->salt = get_random_u32();
	nn->peer = pn;
	return 0;

err_free:
	kfree(pn);
	return -ENOMEM;
}

void ndp_peer_net_exit(struct ndp_net *nn)
{
	struct ndp_peer_net *pn = nn->peer;

	nn->peer = NULL;
	kfree(pn->slots);
	kfree(pn);
}

static struct ndp_peer_rtt *ndp_peer_slot(struct ndp_net *nn,
					  const struct in6_addr *addr)
{
	u32 h = jhash(addr, sizeof(*addr), nn->peer->salt);

	return &nn->peer->slots[h & (NDP_PEER_SLOTS - 1)];
}

/* Time one MSS-sized packet takes on the link, microseconds. */
static u32 ndp_rtt_pkt_us(const struct sock *sk)
{
	const struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	u32 rate = READ_ONCE(nn->link_rate_mbps);
	struct ndp_pullq *pq;

	if (!rate) {
		rcu_read_lock();
		pq = rcu_dereference(nsk->pq);
		if (pq)
			rate = READ_ONCE(pq->rate_mbps);
		rcu_read_unlock();
	}
	if (!rate)
		rate = NDP_DEFAULT_RATE_MBPS;
	/* bits / (Mb/s) = microseconds */
	return (nsk->mss + NDP_HDR_LEN + sizeof(struct ipv6hdr) + ETH_HLEN) *
	       8 / rate;
}

/* The timeout before backoff from @srtt_us8 and @rttvar_us4. */
static u32 ndp_rto_calc(const struct sock *sk, u32 srtt_us8, u32 rttvar_us4)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	u64 var = max3((u64)rttvar_us4,
		       (u64)NDP_RTO_QUEUE_PKTS * ndp_rtt_pkt_us(sk),
		       (u64)jiffies_to_usecs(2));
	u64 rto = (srtt_us8 >> 3) + var;

	rto = max_t(u64, rto, READ_ONCE(nn->rto_min_us));
	return min_t(u64, rto, READ_ONCE(nn->rto_max_us));
}

/*
 * A new connection to flow.raddr, before it is hashed (nothing else can
 * reach it): its first timeout.
 */
void ndp_rtt_init(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 srtt8 = 0, var4 = 0;
	struct ndp_peer_rtt *e;

	spin_lock_bh(&nn->peer->lock);
	e = ndp_peer_slot(nn, &nsk->flow.raddr);
	if (e->stamp && time_before(jiffies, e->stamp + NDP_PEER_TTL) &&
	    ipv6_addr_equal(&e->addr, &nsk->flow.raddr)) {
		srtt8 = e->srtt_us8;
		var4 = e->rttvar_us4;
	}
	spin_unlock_bh(&nn->peer->lock);
	if (srtt8) {
		NDP_INC_STATS(sock_net(sk), NDP_MIB_RTTCACHEHITS);
		nsk->rto.us = ndp_rto_calc(sk, srtt8, var4);
	} else {
		nsk->rto.us = min(READ_ONCE(nn->rto_init_us),
				  READ_ONCE(nn->rto_max_us));
		nsk->rto.us = max(nsk->rto.us, READ_ONCE(nn->rto_min_us));
	}
}

/*
 * An ACK named a packet sent once at @sent_ns, not acknowledged before:
 * one RTT sample (RFC 6298).  Socket lock held.
 */
void ndp_rtt_sample(struct sock *sk, u64 sent_ns, u32 delay_us)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u64 now = ktime_get_ns();
	u32 m, err;

	ndp_sock_assert_locked(sk);
	if (now <= sent_ns)
		m = 1;
	else
		m = min_t(u64, div_u64(now - sent_ns, NSEC_PER_USEC),
			  NDP_RTT_MAX_US) ?: 1;
	/*
	 * The time the peer held its ACK (delack.c) is not the path's: it
	 * is taken off (it lies inside the round trip, so it is shorter
	 * than the sample; one that is not is ignored).  The caller bounds
	 * it by what we allowed, which ndp_rto_timeout() adds back, so a
	 * peer that overstates it cannot make the timer fire early.
	 */
	if (delay_us && m > delay_us)
		m -= delay_us;
	/* A windowed minimum: the smallest sample, or a newer one once it
	 * is older than the window (lib/win_minmax is not exported to
	 * modules on every supported kernel).
	 */
	if (!nsk->rtt.min_us || m <= nsk->rtt.min_us ||
	    (u32)jiffies - nsk->rtt.min_stamp > NDP_MIN_RTT_WIN) {
		nsk->rtt.min_us = m;
		nsk->rtt.min_stamp = (u32)jiffies;
	}
	if (!nsk->rtt.srtt_us8) {
		nsk->rtt.srtt_us8 = m << 3;
		nsk->rtt.rttvar_us4 = m << 1;	/* 4 * m / 2 */
	} else {
		/* rttvar = 3/4 rttvar + 1/4 |srtt - m|; srtt = 7/8 srtt + m/8 */
		err = abs((s32)((nsk->rtt.srtt_us8 >> 3) - m));
		nsk->rtt.rttvar_us4 += err - (nsk->rtt.rttvar_us4 >> 2);
		nsk->rtt.srtt_us8 += m - (nsk->rtt.srtt_us8 >> 3);
	}
	nsk->rtt.samples++;
	nsk->rtt.last_us = m;
	nsk->rto.us = ndp_rto_calc(sk, nsk->rtt.srtt_us8, nsk->rtt.rttvar_us4);
}

/* The connection ends: remember its path for the next one to the peer. */
void ndp_rtt_save(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_peer_rtt *e;

	if (!nsk->rtt.srtt_us8 || !nn->peer)
		return;
	spin_lock_bh(&nn->peer->lock);
	e = ndp_peer_slot(nn, &nsk->flow.raddr);
	e->addr = nsk->flow.raddr;
	e->srtt_us8 = nsk->rtt.srtt_us8;
	e->rttvar_us4 = nsk->rtt.rttvar_us4;
	e->stamp = jiffies ?: 1;
	spin_unlock_bh(&nn->peer->lock);
}

/* The timeout doubled per expiry since the oldest packet was acked. */
u32 ndp_rto_backed_off_us(const struct sock *sk)
{
	const struct ndp_sock *nsk = ndp_sk(sk);
	u64 us = (u64)nsk->rto.us << min_t(u8, nsk->rto.backoff, 31);

	return min_t(u64, us,
		     READ_ONCE(ndp_pernet(sock_net(sk))->rto_max_us));
}

/*
 * How long the timer waits now, in jiffies: ndp_rto_backed_off_us() plus
 * up to 1/8 of it at random, so that senders that started together do
 * not all resend together, plus the time our DATA lets the peer hold its
 * ACK (delack.c).
 */
unsigned long ndp_rto_timeout(const struct sock *sk)
{
	u32 us = ndp_rto_backed_off_us(sk);
	u32 jitter = ((u64)get_random_u32() * (us >> 3)) >> 32;

	return max(usecs_to_jiffies(us + jitter + ndp_sk(sk)->delack.allow_us),
		   1UL);
}
