// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: ACKs that ride on DATA, so that a request and its response cost
 * one packet each way (1+1 per RPC), as TCP's delayed ACK does.
 *
 * The paper's receiver ACKs every DATA packet at once.  For a stream that
 * is what feeds the sender's scoreboard and pulls; at the end of a message
 * (a DATA packet with LAST, nothing missing before it, no pull to carry)
 * the ACK only tells the sender that the message arrived, and in an RPC
 * the response follows a few microseconds later.  Sent alone, that ACK
 * doubles the packets of a persistent RPC (2+2, against TCP's 1+1).
 *
 * So the receiver may hold that one ACK and put it on its own next DATA
 * to the peer as an option (NDP_OPT_ACK, struct ndp_opt_ack: the fields of
 * an ACK, the time it was held, and a checksum of its own, since neither
 * the header's nor the payload's checksum covers options).  Rules:
 *
 *   - The sender allows it: every DATA packet says in &ndphdr.acks how
 *     long its ACK may be held, in microseconds (net.ndp.ack_delay_us of
 *     the sender; older senders send 0).  A receiver holds at most that
 *     and at most its own net.ndp.ack_delay_us, so either end turns it
 *     off, and an older peer, which neither allows holds nor parses the
 *     option, is never sent one.
 *   - Only the ACK of a LAST packet that leaves nothing missing and
 *     carries no pull is held, and not while the receive room is 0
 *     (room.c); NACKs, PULLACKs, PULLs, duplicate ACKs and ACKs within a
 *     message never wait.  DATA carrying a held ACK carries the room as
 *     it is when it leaves, as an ACK would.  A socket that can send no
 *     more DATA (shut down for writing, closed) holds nothing.
 *   - One ACK is held per socket.  It leaves on the next DATA of ours that
 *     has room for the option (payload at most mss less the option), or
 *     with the ACK of the peer's next DATA (the peer did not wait for an
 *     answer: its LAST only ended what it had queued), in one span if
 *     they are consecutive, or
 *     alone: when that DATA has no room, when another ACK is to be held,
 *     or when the hold runs out (an hrtimer, AckHoldExpired), whether or
 *     not a user owns the socket then: it is built when it is held, and
 *     the timer only sends it.
 *   - The time it was held travels with it: in the option, or in the
 *     pull field of an ACK sent alone (without NDP_F_PULL), and the
 *     sender takes it off its RTT sample (as QUIC's ack_delay; not
 *     QUIC's floor at the minimum RTT, which never lets it off when every
 *     sample carries a hold), never more than it allowed.
 *   - The sender's retransmission timeout grows by what it allows
 *     (ndp_rto_timeout()), so a held ACK never makes the timer fire.
 *
 * Default 500 us: half of net.ndp.rto_min_us, so a message end lost for
 * real is resent at most half a timeout later (in practice less: the
 * timer's tick term, two ticks, dominates the timeout); longer than the
 * service time of the small requests this is for on a real host (tens of
 * microseconds), and far below TCP's 40 ms delayed ACK.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/hrtimer.h>
#include <net/sock.h>

#include "protocol.h"

/* What our DATA lets the peer hold its ACKs for: &ndphdr.acks. */
u16 ndp_delack_allow(struct sock *sk)
{
	u32 us = READ_ONCE(ndp_pernet(sock_net(sk))->ack_delay_us);

	ndp_sk(sk)->delack.allow_us = min_t(u32, us, U16_MAX);
	return ndp_sk(sk)->delack.allow_us;
}

/* Microseconds an ACK held since @since_ns has waited. */
static u32 ndp_delack_waited_us(u64 since_ns)
{
	u64 now = ktime_get_ns();

	return now > since_ns ?
	       min_t(u64, div_u64(now - since_ns, NSEC_PER_USEC), U16_MAX) : 0;
}

/*
 * Take the held ACK, if any: the caller sends it, folds it into another
 * ACK or drops it.  With the socket lock held; the timer takes it
 * without.
 */
struct sk_buff *ndp_delack_take(struct sock *sk)
{
	struct ndp_delack *d = &ndp_sk(sk)->delack;
	struct sk_buff *skb;

	ndp_sock_assert_locked(sk);
	/* Every DATA packet asks: no atomic when nothing is held. */
	if (!READ_ONCE(d->skb))
		return NULL;
	skb = xchg(&d->skb, NULL);

	/* 1: dequeued before it ran, its reference is ours to drop; -1:
	 * running, it drops its own; 0: it already ran.
	 */
	if (skb && hrtimer_try_to_cancel(&d->timer) == 1)
		__sock_put(sk);
	return skb;
}

/* Held ACK @skb leaves alone now, saying how long it waited. */
static void ndp_delack_send(struct sock *sk, struct sk_buff *skb,
			    struct sk_buff_head *xmitq)
{
	ndp_hdr(skb)->pull =
		htonl(ndp_delack_waited_us(NDP_SKB_CB(skb)->sent_ns));
	NDP_INC_STATS(sock_net(sk), NDP_MIB_OUTACKS);
	__skb_queue_tail(xmitq, skb);
}

/* Send the held ACK alone, now.  Socket lock held. */
void ndp_delack_flush(struct sock *sk, struct sk_buff_head *xmitq)
{
	struct sk_buff *skb = ndp_delack_take(sk);

	if (skb)
		ndp_delack_send(sk, skb, xmitq);
}

/*
 * DATA @psn, which arrived on @path (CE if @ce), ended a message and left
 * nothing missing: hold its ACK if the sender allows @allowed_us and we
 * can answer with DATA.  Returns whether the ACK was taken care of (held,
 * or sent alone at once when it carries the room); if not, the caller
 * ACKs it.  Socket lock held.
 *
 * The ACK is built now, as it would have left, and kept: the timer sends
 * it as it is if no DATA of ours takes it first, even while a user owns
 * the socket (a sender that waits for it to push its next window must
 * not wait for that user: ndp_xmit_queue() needs no lock).
 */
bool ndp_delack_hold(struct sock *sk, u32 psn, u8 path, bool ce,
		     u16 allowed_us, struct sk_buff_head *xmitq)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_delack *d = &nsk->delack;
	u32 us = min_t(u32, READ_ONCE(nn->ack_delay_us), allowed_us);
	struct sk_buff *skb;

	ndp_sock_assert_locked(sk);
	/*
	 * No room (room.c) is told at once: held, "no room" could reach the
	 * peer after the room update that follows it and hold the peer back
	 * until its persist probe.  (A stale room that is not 0 costs at
	 * worst a few pushed packets NACKed.)
	 */
	if (!us || nsk->dead || sock_flag(sk, SOCK_DEAD) ||
	    (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN) || !ndp_room_now(sk))
		return false;
	skb = ndp_ctrl_skb(sk, NDP_PKT_ACK, ce ? NDP_F_CE : 0, psn);
	if (!skb)
		return false;	/* the caller tries at once */
	ndp_hdr(skb)->path = path;
	/* When the DATA arrived; the skb is ours until it leaves. */
	NDP_SKB_CB(skb)->sent_ns = ktime_get_ns();
	ndp_delack_flush(sk, xmitq);
	/* The timer takes it with xchg(), after it was filled in. */
	smp_store_release(&d->skb, skb);
	if (!hrtimer_is_queued(&d->timer))
		sock_hold(sk);	/* the expiry's, ndp_delack_timer() drops it */
	hrtimer_start(&d->timer, ns_to_ktime((u64)us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
	NDP_INC_STATS(sock_net(sk), NDP_MIB_ACKSHELD);
	return true;
}

/*
 * DATA @skb (its payload only so far) is about to leave: put the held ACK
 * in front of the payload as NDP_OPT_ACK, with the receive room as it is
 * now if it is short (NDP_OPT_ROOM, as any ACK of ours would carry it,
 * room.c), if the packet has room for them; or send the ACK alone first.
 * Returns the option words pushed; the caller pushes the fixed header in
 * front of them and raises its doff by as many.  Socket lock held.
 */
u8 ndp_delack_push(struct sock *sk, struct sk_buff *skb,
		   struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 olen = NDP_OPT_ACK_LEN;
	const struct ndphdr *ah;
	struct ndp_opt_ack *o;
	struct sk_buff *ack;
	u16 room;

	ack = ndp_delack_take(sk);
	if (!ack)
		return 0;	/* nothing held, or the timer sent it */
	room = ndp_room_now(sk);
	if (room != U16_MAX)
		olen += NDP_OPT_ROOM_LEN;
	if (skb->len + olen > nsk->mss || skb_headroom(skb) < NDP_HEADROOM) {
		ndp_delack_send(sk, ack, xmitq);
		return 0;
	}
	if (room != U16_MAX)
		ndp_room_put(sk, room, skb_push(skb, NDP_OPT_ROOM_LEN));
	ah = ndp_hdr(ack);
	o = skb_push(skb, sizeof(*o));
	o->kind = NDP_OPT_ACK;
	o->len = NDP_OPT_ACK_LEN;
	o->csum = 0;
	o->psn = ah->psn;
	o->cum = htonl(READ_ONCE(nsk->rcv.nxt));
	o->path = ah->path;
	o->acks = 1 | (ndp_hdr_has(ah, NDP_F_CE) ? NDP_OPT_ACK_CE : 0);
	o->delay = htons(ndp_delack_waited_us(NDP_SKB_CB(ack)->sent_ns));
	o->csum = ndp_opt_ack_csum(o);
	consume_skb(ack);
	NDP_INC_STATS(sock_net(sk), NDP_MIB_ACKSONDATA);
	return olen / 4;
}

/*
 * The ACK DATA header @nh (doff * 4 bytes linear) carries, as the ACK
 * header it stands for in @ack: 1 if there is one, 0 if none, -EBADMSG
 * if it fails its checksum or names no valid span.
 */
int ndp_delack_of(const struct ndphdr *nh, struct ndphdr *ack)
{
	const struct ndp_opt_ack *o;
	const u8 *v;

	if (nh->doff == NDP_HDR_WORDS)
		return 0;
	v = ndp_hdr_opt(nh, NDP_OPT_ACK, NDP_OPT_ACK_LEN);
	if (!v)
		return 0;
	o = (const struct ndp_opt_ack *)(v - 2);
	if (!ndp_opt_ack_ok(o))
		return -EBADMSG;
	memset(ack, 0, sizeof(*ack));
	ack->type = NDP_PKT_ACK;
	ack->doff = NDP_HDR_WORDS;
	ack->flags = htons(o->acks & NDP_OPT_ACK_CE ? NDP_F_CE : 0);
	ack->psn = o->psn;
	ack->syn_off = o->cum;
	ack->path = o->path;
	ack->acks = htons(o->acks & NDP_OPT_ACK_SPAN);
	ack->pull = htonl(ntohs(o->delay));
	return 1;
}

/*
 * The hold ran out: the ACK leaves alone, without the socket lock (see
 * ndp_delack_hold()), unless our DATA or a newer hold took it first.
 */
static enum hrtimer_restart ndp_delack_timer(struct hrtimer *timer)
{
	struct ndp_sock *nsk = container_of(timer, struct ndp_sock,
					    delack.timer);
	struct sock *sk = (struct sock *)nsk;
	struct sk_buff_head xmitq;
	struct sk_buff *skb;

	__skb_queue_head_init(&xmitq);
	skb = xchg(&nsk->delack.skb, NULL);
	if (skb) {
		NDP_INC_STATS(sock_net(sk), NDP_MIB_ACKHOLDEXPIRED);
		ndp_delack_send(sk, skb, &xmitq);
		ndp_xmit_queue(sk, &xmitq);
	}
	sock_put(sk);
	return HRTIMER_NORESTART;
}

/* Connection torn down (ndp_done()): nothing is to be acknowledged. */
void ndp_delack_stop(struct sock *sk)
{
	kfree_skb(ndp_delack_take(sk));
}

void ndp_delack_init(struct sock *sk)
{
	hrtimer_setup(&ndp_sk(sk)->delack.timer, ndp_delack_timer,
		      CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
}
