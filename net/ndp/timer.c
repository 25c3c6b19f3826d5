// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: the retransmission timeout, for real loss only.
 *
 * NACKs repair trimmed packets without waiting; the RTO covers what
 * trimming cannot report: lost data, ACKs, NACKs or PULLs (corruption, a
 * full header queue, a failed link).  The timer runs whenever the send
 * queue is not empty.  On expiry the sender resends up to init_window
 * unacknowledged packets without waiting for pulls (or, if everything
 * sent was acknowledged but pulls for the rest never came, pushes up to
 * init_window new packets), and doubles the timeout, from
 * net.ndp.rto_min_us up to net.ndp.rto_max_us.  Acknowledged progress
 * resets the timeout to rto_min_us; any packet from the peer resets the
 * expiry count.  After NDP_RTO_RETRIES expiries in a row without hearing
 * from the peer, the connection fails with ETIMEDOUT.
 *
 * The timer is a timer_list (softirq) holding a socket reference while
 * pending (sk_reset_timer() / sk_stop_timer()).
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/jiffies.h>
#include <net/sock.h>

#include "protocol.h"

static void ndp_rto_fire(struct timer_list *t)
{
	struct ndp_sock *nsk = from_timer(nsk, t, rto_timer);
	struct sock *sk = (struct sock *)nsk;
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct sk_buff_head xmitq;
	int n;

	__skb_queue_head_init(&xmitq);
	spin_lock_bh(&nsk->lock);
	if (nsk->dead || skb_queue_empty(&nsk->sndq))
		goto out;
	if (timer_pending(&nsk->rto_timer))
		goto out;	/* re-armed meanwhile */
	if (++nsk->retries > NDP_RTO_RETRIES) {
		ndp_set_error(sk, ETIMEDOUT, &xmitq);
		goto out;
	}
	NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOS);
	n = ndp_resend_unacked(sk, &xmitq, READ_ONCE(nn->init_window));
	if (n) {
		NDP_ADD_STATS(sock_net(sk), NDP_MIB_RTXTIMEOUT, n);
	} else if (nsk->send_head) {
		/* Pulls were lost: push again. */
		nsk->idle = true;
		ndp_push(sk, &xmitq);
	}
	nsk->rto_us = min(nsk->rto_us * 2, READ_ONCE(nn->rto_max_us));
	ndp_rto_arm(sk);
out:
	spin_unlock_bh(&nsk->lock);
	ndp_xmit_queue(sk, &xmitq);
	sock_put(sk);
}

void ndp_timer_init(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	timer_setup(&nsk->rto_timer, ndp_rto_fire, 0);
	nsk->rto_us = READ_ONCE(ndp_pernet(sock_net(sk))->rto_min_us);
}

/* (Re)start the timer from now; socket lock held. */
void ndp_rto_arm(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	if (nsk->dead)
		return;
	sk_reset_timer(sk, &nsk->rto_timer,
		       jiffies + max(usecs_to_jiffies(nsk->rto_us), 1UL));
}

void ndp_rto_stop(struct sock *sk)
{
	sk_stop_timer(sk, &ndp_sk(sk)->rto_timer);
}
