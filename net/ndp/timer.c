// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: the retransmission timeout, for real loss only.
 *
 * NACKs repair trimmed packets without waiting; the RTO covers what
 * trimming cannot report: lost data, ACKs, NACKs or PULLs (corruption, a
 * full header queue, a failed link).  The timer runs whenever the send
 * queue is not empty.  On expiry:
 *
 *   - the oldest packet sent at least a timeout ago and never reported
 *     on (neither ACKed nor NACKed) is resent, without waiting for a
 *     pull, and only that one: the timeout is a last resort and may be
 *     spurious (a path slower than its samples said), so one expiry
 *     costs one packet, never a window pushed into a full queue.  If the
 *     loss was real, the next expiry resends the next packet (the
 *     receiver, on getting it, pulls and NACKs as usual).  The timer
 *     only measures from the oldest such packet's transmission: a
 *     packet just sent on a pull is not late;
 *   - if every packet sent was reported on, what is left (NACKed packets,
 *     unsent data) waits for the peer's pulls.  In a large incast a pull
 *     can be many timeouts away (32 senders at 100 Mbit/s with 9 KB
 *     packets: one pull per sender every 23 ms), so nothing is sent
 *     while the peer's last ACK, NACK or PULL came within the last
 *     timeout or within NDP_PULL_GAPS_WAIT average gaps between its pulls
 *     (input.c measures them), at most rto_max_us: the timer is only
 *     re-armed.  After that much silence the pulls are presumed lost and
 *     one packet goes out as a probe (its arrival makes the peer pull
 *     again).  Resending the NACKed packets instead would push them,
 *     unscheduled, into the very queue that trimmed them.  The probe is
 *     counted in RtoProbes, not in Rtos: the silence may be a receiver
 *     whose buffer is full (TCP's closed window), and TCP's persist
 *     probes are not timeouts either.
 *
 * A timer that runs NDP_RTO_LATE_TICKS or more late (a stalled CPU)
 * waits one more tick before acting, so that ACKs queued meanwhile are
 * processed first (RtoLate).
 *
 * The timeout itself comes from RTT samples (rtt.c).  Each real expiry
 * doubles the wait (ndp_sock.backoff), up to net.ndp.rto_max_us, and the
 * backoff holds until the oldest packet in flight is acknowledged
 * (snd_una advances), or until the peer shows the expiry was spurious
 * (an ACK marked NDP_F_DUP for the packet the timer resent).  Every
 * wait gets up to 1/8 more at random, so that senders that started
 * together do not resend together.  Progress (something of ours newly
 * acknowledged or NACKed, a valid pull) resets the expiry count.  After
 * NDP_RTO_RETRIES expiries in a row without progress, the connection
 * fails with ETIMEDOUT (or the soft error an ICMP unreachable left,
 * ndp_rcv_icmp()).  An orphan (closed by its application) is reset after
 * net.ndp.orphan_retries expiries in a row without an acknowledgment, or
 * earlier after a soft error (an ICMP unreachable, or no route to the
 * peer) once its timer has backed off to net.ndp.rto_max_us, as TCP's
 * tcp_orphan_retries().
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

	ndp_sock_assert_locked(lsk);
	if (tmo && !lnsk->dead && !timer_pending(&lnsk->rto.timer))
		sk_reset_timer(lsk, &lnsk->rto.timer, born + tmo);
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

	ndp_sock_assert_locked(lsk);
	if (!tmo)
		return;
	list_for_each_entry_safe(child, tmp, &lnsk->accept_q, accept_q) {
		if (time_before(jiffies, child->born + tmo)) {
			sk_reset_timer(lsk, &lnsk->rto.timer,
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

/*
 * The RTO of connection @sk expired; socket lock held, by softirq or by
 * the user releasing it (ndp_rto_deferred(): @late_ok false, the backlog
 * was just processed).  Packets to send go to @xmitq.
 */
static void ndp_rto_work(struct sock *sk, struct sk_buff_head *xmitq,
			 bool late_ok)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	unsigned long rto;
	u64 oldest, rto_ns, now;
	int n;

	ndp_sock_assert_locked(sk);
	if (sk->sk_state == TCP_LISTEN || nsk->dead ||
	    RB_EMPTY_ROOT(&nsk->snd.q))
		return;
	if (timer_pending(&nsk->rto.timer))
		return;	/* re-armed meanwhile */
	/* A packet is late only after the peer's longest ACK hold too. */
	rto = max(usecs_to_jiffies(nsk->rto.us + nsk->delack.allow_us), 1UL);
	rto_ns = (u64)jiffies_to_usecs(rto) * NSEC_PER_USEC;
	now = ktime_get_ns();
	if (ndp_oldest_unreported(nsk, &oldest)) {
		if (now < oldest + rto_ns) {
			/* All in flight went out less than a timeout ago. */
			nsk->rto.late = false;
			sk_reset_timer(sk, &nsk->rto.timer, jiffies +
				       nsecs_to_jiffies(oldest + rto_ns - now) + 1);
			return;
		}
	} else {
		/* Everything was reported on: the peer owes us pulls. */
		unsigned long wait = nsk->snd.pull_gap8 / 8 * NDP_PULL_GAPS_WAIT;

		wait = clamp(wait, rto,
			     max(usecs_to_jiffies(READ_ONCE(nn->rto_max_us)),
				 rto));
		if (time_before(jiffies, nsk->snd.heard + wait)) {
			NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOWAITPULL);
			nsk->rto.late = false;
			sk_reset_timer(sk, &nsk->rto.timer, nsk->snd.heard + wait);
			return;
		}
	}
	/*
	 * A timer that ran NDP_RTO_LATE_TICKS or more late means this CPU
	 * was stalled (a softirq backlog, a descheduled vCPU): the peer's
	 * ACKs may be waiting in the receive queues, which run after the
	 * timers.  They get one tick before anything is presumed lost.
	 */
	if (late_ok && !nsk->rto.late &&
	    time_after_eq(jiffies,
			  nsk->rto.timer.expires + NDP_RTO_LATE_TICKS)) {
		nsk->rto.late = true;
		NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOLATE);
		sk_reset_timer(sk, &nsk->rto.timer, jiffies + 1);
		return;
	}
	nsk->rto.late = false;
	if (++nsk->rto.retries > NDP_RTO_RETRIES) {
		/* An ICMP error said why, as TCP reports it (input.c). */
		ndp_set_error(sk, READ_ONCE(sk->sk_err_soft) ? : ETIMEDOUT,
			      xmitq);
		return;
	}
	if (nsk->orphan &&
	    (++nsk->rto.orphan_rtos > READ_ONCE(nn->orphan_retries) ||
	     (READ_ONCE(sk->sk_err_soft) &&
	      ndp_rto_backed_off_us(sk) >= READ_ONCE(nn->rto_max_us)))) {
		/*
		 * Nobody reads: the peer must take our data, not only NACK.
		 * A soft error (an unreachable peer or no route, cleared by
		 * progress) ends an orphan early only once its timer has
		 * backed off to the ceiling, as tcp_orphan_retries() does
		 * once the RTO is at TCP_RTO_MAX: one ICMP error, which a
		 * corrupt copy of a packet can draw from a router, must not
		 * end a connection that is still being served.
		 */
		NDP_INC_STATS(sock_net(sk), NDP_MIB_ORPHANTIMEOUTS);
		ndp_abort(sk, xmitq);
		return;
	}
	trace_ndp_rto(sk, nsk->snd.una, nsk->rto.retries, ndp_rto_backed_off_us(sk),
		      nsk->rtt.srtt_us8 >> 3, nsk->rtt.rttvar_us4 >> 2, nsk->rto.backoff);
	n = ndp_resend_unacked(sk, xmitq, 1, now - rto_ns);
	if (n) {
		/* A packet presumed lost: a retransmission timeout proper. */
		NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOS);
		nsk->st.rtos++;
		NDP_ADD_STATS(sock_net(sk), NDP_MIB_RTXTIMEOUT, n);
		nsk->st.rtx_timeout += n;
	} else {
		/*
		 * Everything sent was reported on and the peer went quiet:
		 * its pulls were lost, or it holds them back because its
		 * receive buffer is full (a closed window, in TCP's words).
		 * One packet probes, as TCP's persist timer does; it is not
		 * counted as a timeout, but it backs off and counts towards
		 * giving up like one.
		 */
		NDP_INC_STATS(sock_net(sk), NDP_MIB_RTOPROBES);
		nsk->snd.credit = 1;
		/* The peer said it has no room: its header alone (room.c). */
		nsk->snd.probe_hdr = !nsk->snd.peer_room;
		ndp_send_credit(sk, xmitq);
		nsk->snd.probe_hdr = false;
	}
	if ((u64)nsk->rto.us << nsk->rto.backoff < READ_ONCE(nn->rto_max_us))
		nsk->rto.backoff++;
	ndp_rto_arm(sk);
}

/*
 * The timer of a connection (the RTO) or of a listener (the embryonic
 * timeout).  A user owning the socket gets the RTO's work, done when it
 * releases the socket (ndp_release_cb(), as TCP's deferred timers); a
 * listener's timeout is not urgent: it is tried again a little later, as
 * TCP's keepalive timer does.
 */
static void ndp_rto_fire(struct timer_list *t)
{
	struct ndp_sock *nsk = timer_container_of(nsk, t, rto.timer);
	struct sock *sk = (struct sock *)nsk;
	struct ndp_sock *child, *tmp;
	struct sk_buff_head xmitq;
	LIST_HEAD(expired);

	__skb_queue_head_init(&xmitq);
	bh_lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		if (nsk->dead || timer_pending(&nsk->rto.timer))
			goto out;
		if (sock_owned_by_user(sk))
			sk_reset_timer(sk, &nsk->rto.timer,
				       jiffies + max(HZ / 20, 1));
		else
			ndp_embryonic_expire(sk, &expired);
		goto out;
	}
	if (!sock_owned_by_user(sk)) {
		ndp_rto_work(sk, &xmitq, true);
	} else if (!test_and_set_bit(NDP_RTO_DEFERRED, &nsk->deferred)) {
		sock_hold(sk);	/* ndp_release_cb() drops it */
		NDP_INC_STATS(sock_net(sk), NDP_MIB_DEFERRED);
	}
out:
	bh_unlock_sock(sk);
	ndp_xmit_queue(sk, &xmitq);
	list_for_each_entry_safe(child, tmp, &expired, accept_q) {
		list_del_init(&child->accept_q);
		ndp_abort_child((struct sock *)child);
	}
	sock_put(sk);
}

/* NDP_RTO_DEFERRED: the user releasing @sk runs the expiry it held up. */
void ndp_rto_deferred(struct sock *sk, struct sk_buff_head *xmitq)
{
	ndp_rto_work(sk, xmitq, false);
}

void ndp_timer_init(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	timer_setup(&nsk->rto.timer, ndp_rto_fire, 0);
	nsk->snd.heard = jiffies;
	nsk->rto.us = READ_ONCE(ndp_pernet(sock_net(sk))->rto_init_us);
}

/* (Re)start the timer from now; socket lock held. */
void ndp_rto_arm(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	ndp_sock_assert_locked(sk);
	if (nsk->dead)
		return;
	nsk->rto.late = false;
	sk_reset_timer(sk, &nsk->rto.timer, jiffies + ndp_rto_timeout(sk));
}

void ndp_rto_stop(struct sock *sk)
{
	sk_stop_timer(sk, &ndp_sk(sk)->rto.timer);
}
