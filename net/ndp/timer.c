// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: the retransmission timeout, for real loss only.
 *
 * NACKs repair trimmed packets without waiting; the RTO covers what
 * trimming cannot report: lost data, ACKs, NACKs or PULLs (corruption, a
 * full header queue, a failed link).  The timer runs whenever the send
 * queue is not empty.  On expiry:
 *
 *   - packets sent at least a timeout ago and never reported on (neither
 *     ACKed nor NACKed) are resent, up to init_window of them, without
 *     waiting for pulls (the timer only measures from the oldest such
 *     packet's transmission: a packet just sent on a pull is not late);
 *   - if every packet sent was reported on, what is left (NACKed packets,
 *     unsent data) waits for the peer's pulls.  In a large incast a pull
 *     can be many minimum timeouts away (32 senders at 100 Mbit/s with
 *     9 KB packets: one pull per sender every 23 ms), so nothing is sent
 *     while the peer's last ACK, NACK or PULL came within the last
 *     timeout or within NDP_PULL_GAPS_WAIT average gaps between its pulls
 *     (input.c measures them), at most rto_max_us: the timer is only
 *     re-armed.  After that much silence the pulls are presumed lost and
 *     one packet goes out as a probe (its arrival makes the peer pull
 *     again).  Resending the NACKed packets instead would push them,
 *     unscheduled, into the very queue that trimmed them.
 *
 * Each real expiry doubles the timeout, from net.ndp.rto_min_us up to
 * net.ndp.rto_max_us.  Acknowledged progress resets the timeout to
 * rto_min_us; progress (something of ours newly acknowledged or NACKed,
 * a valid pull) resets the expiry count.  After NDP_RTO_RETRIES expiries
 * in a row without progress, the connection fails with ETIMEDOUT (or the
 * soft error an ICMP unreachable left, ndp_rcv_icmp()).  An
 * orphan (closed by its application) is reset after
 * net.ndp.orphan_retries expiries in a row without an acknowledgment.
 *
 * The timer is a timer_list (softirq) holding a socket reference while
 * pending (sk_reset_timer() / sk_stop_timer()).
 *
 * A listener sends no data, so its timer serves another purpose: it
 * resets connections that first windows created and that nobody accepted
 * within net.ndp.embryonic_timeout_ms.  Without a handshake, a first window
 * from a spoofed address creates such a connection as easily as a real
 * one; the timeout plays the part of TCP's SYN-RECV timeout, so that
 * neither the listener's backlog nor the namespace-wide max_embryonic
 * stays full for good.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/jiffies.h>
#include <net/sock.h>

#include "protocol.h"

static unsigned long ndp_embryonic_timeout(const struct sock *sk)
{
	u32 ms = READ_ONCE(ndp_pernet(sock_net(sk))->embryonic_timeout_ms);

	return ms ? max(msecs_to_jiffies(ms), 1UL) : 0;
}

/* A child was queued for accept at @born; listener lock held. */
void ndp_embryonic_arm(struct sock *lsk, unsigned long born)
{
	unsigned long tmo = ndp_embryonic_timeout(lsk);
	struct ndp_sock *lnsk = ndp_sk(lsk);

	lockdep_assert_held(&lnsk->lock);
	if (tmo && !lnsk->dead && !timer_pending(&lnsk->rto_timer))
		sk_reset_timer(lsk, &lnsk->rto_timer, born + tmo);
}

/*
 * Listener lock held: move the children queued longer than the timeout
 * (the oldest are first) to @expired and re-arm for the next one.
 */
static void ndp_embryonic_expire(struct sock *lsk, struct list_head *expired)
{
	unsigned long tmo = ndp_embryonic_timeout(lsk);
	struct ndp_sock *lnsk = ndp_sk(lsk);
	struct ndp_sock *child, *tmp;

	lockdep_assert_held(&lnsk->lock);
	if (!tmo)
		return;
	list_for_each_entry_safe(child, tmp, &lnsk->accept_q, accept_q) {
		if (time_before(jiffies, child->born + tmo)) {
			sk_reset_timer(lsk, &lnsk->rto_timer,
				       child->born + tmo);
			break;
		}
		list_move_tail(&child->accept_q, expired);
		child->parent = NULL;
		sk_acceptq_removed(lsk);
		ndp_admit_dequeued(lsk, child);
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_EMBRYONICTIMEOUTS);
	}
}

static void ndp_rto_fire(struct timer_list *t)
{
	struct ndp_sock *nsk = from_timer(nsk, t, rto_timer);
	struct sock *sk = (struct sock *)nsk;
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	unsigned long rto, oldest;
	struct ndp_sock *child, *tmp;
	struct sk_buff_head xmitq;
	LIST_HEAD(expired);
	int n;

	__skb_queue_head_init(&xmitq);
	spin_lock_bh(&nsk->lock);
	if (sk->sk_state == TCP_LISTEN && !nsk->dead) {
		if (!timer_pending(&nsk->rto_timer))
			ndp_embryonic_expire(sk, &expired);
		goto out;
	}
	if (nsk->dead || RB_EMPTY_ROOT(&nsk->sndq))
		goto out;
	if (timer_pending(&nsk->rto_timer))
		goto out;	/* re-armed meanwhile */
	rto = max(usecs_to_jiffies(nsk->rto_us), 1UL);
	if (ndp_oldest_unreported(nsk, &oldest)) {
		if (time_before(jiffies, oldest + rto)) {
			/* All in flight went out less than a timeout ago. */
			sk_reset_timer(sk, &nsk->rto_timer, oldest + rto);
			goto out;
		}
	} else {
		/* Everything was reported on: the peer owes us pulls. */
		unsigned long wait = nsk->pull_gap8 / 8 * NDP_PULL_GAPS_WAIT;

		wait = clamp(wait, rto,
			     max(usecs_to_jiffies(READ_ONCE(nn->rto_max_us)),
				 rto));
		if (time_before(jiffies, nsk->heard + wait)) {
			NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOWAITPULL);
			sk_reset_timer(sk, &nsk->rto_timer, nsk->heard + wait);
			goto out;
		}
	}
	if (++nsk->retries > NDP_RTO_RETRIES) {
		/* An ICMP error said why, as TCP reports it (input.c). */
		ndp_set_error(sk, READ_ONCE(sk->sk_err_soft) ? : ETIMEDOUT,
			      &xmitq);
		goto out;
	}
	if (nsk->orphan &&
	    ++nsk->orphan_rtos > READ_ONCE(nn->orphan_retries)) {
		/* Nobody reads: the peer must take our data, not only NACK. */
		NDP_INC_STATS(sock_net(sk), NDP_MIB_ORPHANTIMEOUTS);
		ndp_abort(sk, &xmitq);
		goto out;
	}
	NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOS);
	nsk->st_rtos++;
	trace_ndp_rto(sk, nsk->snd_una, nsk->retries, nsk->rto_us);
	n = ndp_resend_unacked(sk, &xmitq, READ_ONCE(nn->init_window),
			       jiffies - rto);
	if (n) {
		NDP_ADD_STATS(sock_net(sk), NDP_MIB_RTXTIMEOUT, n);
		nsk->st_rtx_timeout += n;
	} else {
		/* Pulls were lost: probe with one packet. */
		NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOPROBES);
		nsk->credit = 1;
		ndp_send_credit(sk, &xmitq);
	}
	nsk->rto_us = min(nsk->rto_us * 2, READ_ONCE(nn->rto_max_us));
	ndp_rto_arm(sk);
out:
	spin_unlock_bh(&nsk->lock);
	ndp_xmit_queue(sk, &xmitq);
	list_for_each_entry_safe(child, tmp, &expired, accept_q) {
		list_del_init(&child->accept_q);
		ndp_abort_child((struct sock *)child);
	}
	sock_put(sk);
}

void ndp_timer_init(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	timer_setup(&nsk->rto_timer, ndp_rto_fire, 0);
	nsk->heard = jiffies;
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
