// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: the socket API: a reliable, ordered byte stream (as TCP) with a
 * zero-RTT open.
 *
 * States (sk_state, TCP numbering so that generic inet code works):
 *   TCP_CLOSE        new; or finished (both FINs exchanged and ours
 *                    acknowledged), reset, timed out.
 *   TCP_LISTEN       listen().
 *   TCP_ESTABLISHED  connect() (sends nothing: zero RTT) or a connection
 *                    created by a first-window packet (accept()).
 * Half-close is tracked by sk_shutdown; FIN is a DATA packet with no
 * payload, sequenced and acknowledged like data.
 *
 * Ending a connection: shutdown(SHUT_WR) or close() queue a FIN.  A
 * connection ends (ndp_done(): unhashed, timers stopped, queues freed,
 * time-wait record made) when our FIN is acknowledged and either the
 * peer's FIN arrived or the socket was closed; or at once on RST, on RTO
 * give-up (ETIMEDOUT), on close() with unread data or SO_LINGER 0 (RST
 * sent, as TCP), and when data arrives for a closed socket (RST sent).
 * After close() the socket lives on as an orphan until its data and FIN
 * are acknowledged; SO_LINGER with a timeout makes close() wait for that.
 * Orphans are bounded as TCP bounds them: at most net.ndp.max_orphans per
 * namespace (close() beyond it resets the connection: OrphanOverflows),
 * and an orphan whose data the peer stops acknowledging, even while it
 * still NACKs or pulls, is reset after net.ndp.orphan_retries RTO
 * expiries (OrphanTimeouts, timer.c).
 *
 * Memory is accounted as TCP and UDP do it: every packet queued for
 * sending (until acknowledged) or receiving (until read) is charged to
 * the socket's forward allocation, to the protocol's total
 * (ndp_memory_allocated, limited by the net.ndp.mem triple of the initial
 * namespace, shown in /proc/net/protocols) and, for sockets created by
 * socket(), to their memory cgroup.  Beyond the hard limit sendmsg()
 * waits and received data is refused (NACKed, pulled again later); beyond
 * the pressure limit out-of-order data is refused too (input.c).  Every
 * change of sk_forward_alloc happens under the socket lock (the receive
 * softirq charges holding its spinlock while no user owns the socket;
 * recvmsg() frees read packets and sendmsg() reserves memory owning it):
 * the counter is not atomic.
 *
 * Locking (ndp-transport.rst, "Locking"): system calls own the socket
 * with lock_sock() and nothing else; while they do, softirq leaves
 * packets in the socket's backlog (input.c) and timers and the pull
 * clock leave their work in ndp_sock.deferred, which ndp_release_cb()
 * does when release_sock() runs.
 *
 * Errors as TCP: ECONNREFUSED when the peer's first word is an RST (it
 * never acknowledged nor sent anything), ECONNRESET after, ETIMEDOUT when the RTO gives up;
 * they are reported once by the next send/recv (or SO_ERROR), then EPIPE
 * on send (with SIGPIPE unless MSG_NOSIGNAL) and EOF on recv.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/sockios.h>
#include <asm/ioctls.h>
#include <net/inet_common.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/transp_v6.h>

#include "protocol.h"

static atomic_long_t ndp_memory_allocated ____cacheline_aligned_in_smp;
static DEFINE_PER_CPU(int, ndp_memory_per_cpu_fw_alloc);
long sysctl_ndp_mem[3] __read_mostly;
/* What a socket may always hold, even beyond the hard limit (as UDP). */
static int ndp_mem_min = PAGE_SIZE;

/* Defaults of net.ndp.mem, in pages, sized from memory as udp_mem is. */
void ndp_mem_init(void)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);

	sysctl_ndp_mem[0] = limit / 4 * 3;
	sysctl_ndp_mem[1] = limit;
	sysctl_ndp_mem[2] = sysctl_ndp_mem[0] * 2;
}

/* ---------------------------------------------------------------------- */
/* State helpers (socket lock held).                                      */

void ndp_sock_init_state(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	memset((char *)nsk + sizeof(struct inet_sock), 0,
	       sizeof(struct ndp_sock) - sizeof(struct inet_sock));
	spin_lock_init(&nsk->dst_lock);
	INIT_HLIST_NODE(&nsk->bind_node);
	INIT_LIST_HEAD(&nsk->conn_list_node);
	INIT_LIST_HEAD(&nsk->accept_q);
	nsk->snd.q = RB_ROOT;
	nsk->rcv.ooo = RB_ROOT;
	INIT_LIST_HEAD(&nsk->pull.node);
	nsk->snd.isn = get_random_u32();
	nsk->snd.una = nsk->snd.isn;
	nsk->snd.nxt = nsk->snd.isn;
	nsk->snd.idle = true;
	nsk->snd.peer_room = U16_MAX;
	nsk->rcv.room_adv = U16_MAX;
	nsk->mss = 1024;
	ndp_timer_init(sk);
	ndp_delack_init(sk);
}

/* Tear the connection down; see the comment at the top. */
void ndp_done(struct sock *sk, struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	ndp_sock_assert_locked(sk);
	if (nsk->dead)
		return;
	/* Read under a pull queue's lock (pull.c). */
	WRITE_ONCE(nsk->dead, true);
	if (nsk->orphan) {
		nsk->orphan = false;
		atomic_dec(&ndp_pernet(sock_net(sk))->orphans);
	}
	inet_sk_set_state(sk, TCP_CLOSE);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	ndp_rto_stop(sk);
	ndp_delack_stop(sk);
	ndp_rtt_save(sk);
	ndp_purge_sndq(sk);
	ndp_purge_ooo(nsk);
	ndp_pull_detach(sk);
	ndp_dasr_sock_release(sk);
	ndp_tw_add(sk);
	ndp_conn_unhash(sk);
	if (!sock_flag(sk, SOCK_DEAD))
		sk->sk_state_change(sk);
}

void ndp_set_error(struct sock *sk, int err, struct sk_buff_head *xmitq)
{
	ndp_sock_assert_locked(sk);
	if (ndp_sk(sk)->dead)
		return;
	WRITE_ONCE(sk->sk_err, err);
	NDP_INC_STATS(sock_net(sk), NDP_MIB_ESTABRESETS);
	ndp_done(sk, xmitq);
	if (!sock_flag(sk, SOCK_DEAD))
		sk_error_report(sk);
}

/* Both directions finished, or ours finished after close(). */
void ndp_try_finish(struct sock *sk, struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	ndp_sock_assert_locked(sk);
	if (nsk->dead || !nsk->snd.fin_acked)
		return;
	if (nsk->rcv.fin || sock_flag(sk, SOCK_DEAD))
		ndp_done(sk, xmitq);
}

/* Send RST to the peer and tear down. */
void ndp_abort(struct sock *sk, struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff *skb;

	ndp_sock_assert_locked(sk);
	if (nsk->dead)
		return;
	if (nsk->nonce) {
		/* Our oldest unacknowledged psn: the peer checks it against
		 * what it expects from us (input.c, ndp_rst_ok()).  A peer
		 * that never reported on our data may not know our psns (we
		 * only received): then name its last in-order packet, which
		 * ndp_rst_ok() takes as a report on its own data.
		 */
		u32 psn = nsk->snd.una;

		if (!nsk->snd.peer_synced && nsk->st.data_rcvd)
			psn = nsk->rcv.nxt - 1;
		skb = ndp_ctrl_skb(sk, NDP_PKT_RST, 0, psn);
		if (skb) {
			__skb_queue_tail(xmitq, skb);
			NDP_INC_STATS(sock_net(sk), NDP_MIB_OUTRSTS);
		}
	}
	ndp_done(sk, xmitq);
}

static void ndp_rto_ensure(struct sock *sk)
{
	if (!timer_pending(&ndp_sk(sk)->rto.timer))
		ndp_rto_arm(sk);
}

/*
 * Append a packet (data or FIN) to the send queue; with @push, send what
 * we may.  sendmsg() queues all it can before pushing, so that LAST marks
 * the end of what the application wrote, not the end of one packet.
 */
static void ndp_queue_skb(struct sock *sk, struct sk_buff *skb, u16 flags,
			  bool push, struct sk_buff_head *xmitq)
{
	struct ndp_skb_cb *cb = NDP_SKB_CB(skb);
	struct ndp_sock *nsk = ndp_sk(sk);

	ndp_sock_assert_locked(sk);
	cb->psn = nsk->snd.nxt++;
	cb->offset = (u32)nsk->snd.bytes;
	cb->flags = flags | ndp_syn_flag(nsk, cb->psn);
	nsk->snd.bytes += skb->len;
	ndp_rb_insert(&nsk->snd.q, skb);	/* the highest psn: never present */
	WRITE_ONCE(nsk->snd.q_len, nsk->snd.q_len + 1);
	if (!nsk->snd.head)
		nsk->snd.head = skb;
	sk_wmem_queued_add(sk, skb->truesize);
	sk_mem_charge(sk, skb->truesize);
	if (push)
		ndp_push(sk, xmitq);
	ndp_rto_ensure(sk);
}

/* Send what we may; the user owns the socket (sendmsg()). */
static void ndp_push_locked(struct sock *sk)
{
	struct sk_buff_head xmitq;

	__skb_queue_head_init(&xmitq);
	if (!ndp_sk(sk)->dead)
		ndp_push(sk, &xmitq);
	ndp_xmit_queue(sk, &xmitq);
}

static struct sk_buff *ndp_fin_alloc(struct sock *sk)
{
	struct sk_buff *skb = alloc_skb(NDP_HEADROOM, sk->sk_allocation);

	if (skb) {
		skb_reserve(skb, NDP_HEADROOM);
		memset(skb->cb, 0, sizeof(skb->cb));
		/* A FIN is never refused: charged even beyond the limit. */
		sk_wmem_schedule(sk, skb->truesize);
	}
	return skb;
}

static void ndp_queue_fin(struct sock *sk, struct sk_buff *fin,
			  struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	if (nsk->snd.fin_queued || nsk->dead) {
		kfree_skb(fin);
		return;
	}
	nsk->snd.fin_queued = true;
	nsk->snd.writer_waiting = false;
	ndp_queue_skb(sk, fin, NDP_F_FIN, true, xmitq);
}

/* ---------------------------------------------------------------------- */
/* struct proto.                                                          */

/* sk_write_space: wake writers once half the send buffer is free. */
static void ndp_write_space(struct sock *sk)
{
	struct socket *sock = sk->sk_socket;
	struct socket_wq *wq;

	if (!sock || !__sk_stream_is_writeable(sk, 1))
		return;
	clear_bit(SOCK_NOSPACE, &sock->flags);
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM |
						      EPOLLWRBAND);
	if (wq && wq->fasync_list && !(sk->sk_shutdown & SEND_SHUTDOWN))
		sock_wake_async(wq, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

/*
 * The routes cached for steered paths go with the socket (output.c), and
 * a DASR flow never ended.
 */
static void ndp_sk_destruct(struct sock *sk)
{
	ndp_dasr_sock_release(sk);	/* never torn down: a failed open */
	ndp_dst_release_all(sk);
	ndp_path_spray_free(sk);
	ndp_pull_sk_destruct(sk);
	if (sk->sk_family == AF_INET6)
		inet6_sock_destruct(sk);
	else
		inet_sock_destruct(sk);
}

static int ndp_init_sock(struct sock *sk)
{
	ndp_sock_init_state(sk);
	sk->sk_destruct = ndp_sk_destruct;
	sk->sk_write_space = ndp_write_space;
	sock_set_flag(sk, SOCK_USE_WRITE_QUEUE);
	/* Lookups run under RCU (hash.c): free after a grace period. */
	sock_set_flag(sk, SOCK_RCU_FREE);
	return 0;
}

/* Only reached through sk_common_release() when socket creation fails. */
static void ndp_destroy_sock(struct sock *sk)
{
	struct sk_buff_head xmitq;

	__skb_queue_head_init(&xmitq);
	lock_sock(sk);
	ndp_done(sk, &xmitq);
	release_sock(sk);
	__skb_queue_purge(&xmitq);
}

static int ndp_hash(struct sock *sk)
{
	return 0;
}

/*
 * Unaccepted child of a closing listener, or one that nobody accepted in
 * time (timer.c): reset it.  The caller unlinked it from the accept queue
 * and passes the queue's reference; it holds no socket spinlock (process
 * context or softirq).  A user may own the child (sock_diag): then the
 * reset is deferred to its release (NDP_ABORT_DEFERRED, which takes over
 * the reference).
 */
void ndp_abort_child(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff_head xmitq;
	bool put = true;

	__skb_queue_head_init(&xmitq);
	sock_orphan(sk);
	local_bh_disable();
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		ndp_abort(sk, &xmitq);
	} else if (!test_and_set_bit(NDP_ABORT_DEFERRED, &nsk->deferred)) {
		put = false;
		NDP_INC_STATS(sock_net(sk), NDP_MIB_DEFERRED);
	}
	bh_unlock_sock(sk);
	local_bh_enable();
	ndp_xmit_queue(sk, &xmitq);
	if (put)
		sock_put(sk);	/* the accept queue's reference */
}

/**
 * ndp_release_cb() - proto.release_cb: the work deferred while a user
 * owned @sk
 * @sk: the socket; release_sock() holds its spinlock, the user still owns
 *	it and holds a reference.
 *
 * First the ACK the backlog just run owes (ndp_backlog_done()).  Then
 * what an RTO expiry, a PULL or the reset of an unaccepted child found
 * the socket owned for (NDP_*_DEFERRED in ndp_sock.deferred, each bit
 * with a socket reference), as tcp_release_cb() does TCP's.
 */
void ndp_release_cb(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff_head xmitq;

	ndp_backlog_done(sk);
	if (!READ_ONCE(nsk->deferred))
		return;
	__skb_queue_head_init(&xmitq);
	if (test_and_clear_bit(NDP_ABORT_DEFERRED, &nsk->deferred)) {
		ndp_abort(sk, &xmitq);
		__sock_put(sk);		/* the accept queue's reference */
	}
	if (test_and_clear_bit(NDP_RTO_DEFERRED, &nsk->deferred)) {
		ndp_rto_deferred(sk, &xmitq);
		__sock_put(sk);
	}
	if (test_and_clear_bit(NDP_PULL_DEFERRED, &nsk->deferred)) {
		ndp_pull_deferred(sk, &xmitq);
		__sock_put(sk);
	}
	ndp_xmit_queue(sk, &xmitq);
}

/*
 * Let in what waited in the backlog during a long system call, and
 * answer it: 6.1's __sk_flush_backlog() does not call ndp_release_cb()
 * (later kernels do, and this finds nothing left).
 */
static bool ndp_flush_backlog(struct sock *sk)
{
	if (!sk_flush_backlog(sk))
		return false;
	ndp_backlog_done(sk);
	return true;
}

static void ndp_unlisten(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_sock *child, *tmp;
	LIST_HEAD(children);

	ndp_listen_stop(sk);
	inet_sk_set_state(sk, TCP_CLOSE);
	list_for_each_entry(child, &nsk->accept_q, accept_q)
		ndp_admit_dequeued(sk, child);
	list_splice_init(&nsk->accept_q, &children);
	WRITE_ONCE(sk->sk_ack_backlog, 0);
	list_for_each_entry_safe(child, tmp, &children, accept_q) {
		list_del_init(&child->accept_q);
		child->parent = NULL;
		ndp_abort_child((struct sock *)child);
	}
}

static void ndp_close(struct sock *sk, long timeout)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff_head xmitq;
	struct sk_buff *fin = NULL;
	bool abort;

	__skb_queue_head_init(&xmitq);
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		ndp_unlisten(sk);
		goto orphan;
	}
	abort = (sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime) ||
		!skb_queue_empty(&sk->sk_receive_queue);
	if (!abort && !nsk->snd.fin_queued && nsk->nonce && !nsk->dead)
		fin = ndp_fin_alloc(sk);

	if (!nsk->nonce)
		ndp_done(sk, &xmitq);
	else if (abort || (!fin && !nsk->snd.fin_queued))
		ndp_abort(sk, &xmitq);
	else if (fin)
		ndp_queue_fin(sk, fin, &xmitq);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	ndp_xmit_queue(sk, &xmitq);

	if (timeout && !nsk->dead) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		add_wait_queue(sk_sleep(sk), &wait);
		while (timeout && !READ_ONCE(nsk->dead) &&
		       !READ_ONCE(nsk->snd.fin_acked) && !signal_pending(current))
			sk_wait_event(sk, &timeout, READ_ONCE(nsk->dead) ||
				      READ_ONCE(nsk->snd.fin_acked), &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
	}
orphan:
	sock_orphan(sk);
	if (sk->sk_state != TCP_ESTABLISHED)
		ndp_done(sk, &xmitq);
	else
		ndp_try_finish(sk, &xmitq);
	if (!nsk->dead) {
		struct ndp_net *nn = ndp_pernet(sock_net(sk));

		if (atomic_inc_return(&nn->orphans) >
		    READ_ONCE(nn->max_orphans)) {
			atomic_dec(&nn->orphans);
			NDP_INC_STATS(sock_net(sk), NDP_MIB_ORPHANOVERFLOWS);
			ndp_abort(sk, &xmitq);
		} else {
			nsk->orphan = true;
		}
	}
	ndp_xmit_queue(sk, &xmitq);
	ndp_unbind(sk);
	release_sock(sk);
	sock_put(sk);	/* the user's reference */
}

static int ndp_setsockopt(struct sock *sk, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	/*
	 * IP options would go into every IPv4 packet (__ip_queue_xmit())
	 * without the mss making room for them: not offered, as before
	 * the kernel built NDP's IPv4 header.
	 */
	if (level == SOL_IP && optname == IP_OPTIONS)
		return -ENOPROTOOPT;
	if (level == SOL_IP)
		return ip_setsockopt(sk, level, optname, optval, optlen);
	if (level == SOL_IPV6 && sk->sk_family == AF_INET6)
		return ipv6_setsockopt(sk, level, optname, optval, optlen);
	return -ENOPROTOOPT;
}

/* Bytes waiting to be read; socket lock held (recvmsg moves offsets). */
static u32 ndp_rcvq_bytes(struct sock *sk)
{
	struct sk_buff_head *q = &sk->sk_receive_queue;
	struct sk_buff *skb;
	unsigned long flags;
	u64 bytes = 0;

	sock_owned_by_me(sk);
	spin_lock_irqsave(&q->lock, flags);
	skb_queue_walk(q, skb)
		bytes += skb->len - NDP_SKB_CB(skb)->offset;
	spin_unlock_irqrestore(&q->lock, flags);
	return min_t(u64, bytes, INT_MAX);
}

/* Payload in the send queue: all of it, or only what was never sent. */
static u32 ndp_sndq_bytes(struct ndp_sock *nsk, bool unsent_only)
{
	struct sk_buff *skb;
	u64 bytes = 0;

	ndp_sock_assert_locked((struct sock *)nsk);
	skb = unsent_only ? nsk->snd.head : skb_rb_first(&nsk->snd.q);
	for (; skb; skb = skb_rb_next(skb))
		if (!NDP_SKB_CB(skb)->acked)
			bytes += skb->len;
	return min_t(u64, bytes, INT_MAX);
}

/**
 * ndp_get_info - fill struct ndp_info for NDP_INFO and sock_diag
 * @sk: the socket; process context, no lock held.
 * @info: filled completely.
 * @secrets: the caller may see the connection nonce (CAP_NET_ADMIN).
 */
void ndp_get_info(struct sock *sk, struct ndp_info *info, bool secrets)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_pull_snap pulls;
	bool slow;

	BUILD_BUG_ON(sizeof(struct ndp_info) != 176);
	BUILD_BUG_ON(offsetof(struct ndp_info, ndpi_push_window) != 144);
	BUILD_BUG_ON(offsetof(struct ndp_info, ndpi_bytes_sent) != 8);
	BUILD_BUG_ON(offsetof(struct ndp_info, ndpi_nonce) != 24);
	BUILD_BUG_ON(offsetof(struct ndp_info, ndpi_pulls_sent) != 140);

	memset(info, 0, sizeof(*info));
	info->ndpi_version = NDP_INFO_VERSION;
	/* A snapshot: the spinlock alone unless a user owns the socket. */
	slow = lock_sock_fast(sk);
	info->ndpi_state = sk->sk_state;
	if (sk->sk_state == TCP_LISTEN) {
		/* As TCP: the accept queue and its limit. */
		info->ndpi_rcvq_bytes = READ_ONCE(sk->sk_ack_backlog);
		info->ndpi_sndq_bytes = READ_ONCE(sk->sk_max_ack_backlog);
		unlock_sock_fast(sk, slow);
		return;
	}
	info->ndpi_rcvq_bytes = ndp_rcvq_bytes(sk);
	info->ndpi_bytes_received = nsk->rcv.bytes_read;
	ndp_pull_snapshot(sk, &pulls);

	info->ndpi_flags = (nsk->passive ? NDP_INFO_F_PASSIVE : 0) |
			   (nsk->addr_ok ? NDP_INFO_F_ADDR_OK : 0) |
			   (nsk->snd.peer_synced ? NDP_INFO_F_PEER_SYNCED : 0) |
			   (nsk->snd.fin_queued ? NDP_INFO_F_FIN_SENT : 0) |
			   (nsk->snd.fin_acked ? NDP_INFO_F_FIN_ACKED : 0) |
			   (nsk->rcv.fin ? NDP_INFO_F_FIN_RCVD : 0) |
			   (nsk->orphan ? NDP_INFO_F_ORPHAN : 0);
	info->ndpi_paths = nsk->mp.len;
	info->ndpi_mss = nsk->mss;
	info->ndpi_nonce = secrets ? nsk->nonce : 0;
	info->ndpi_rto_us = ndp_rto_backed_off_us(sk);
	info->ndpi_backoff = nsk->rto.retries;
	info->ndpi_srtt_us = nsk->rtt.srtt_us8 >> 3;
	info->ndpi_rttvar_us = nsk->rtt.rttvar_us4 >> 2;
	info->ndpi_min_rtt_us = nsk->rtt.min_us;
	info->ndpi_rtt_samples = nsk->rtt.samples;
	info->ndpi_rto_backoff = nsk->rto.backoff;
	info->ndpi_rto_spurious = nsk->st.rto_spurious;
	info->ndpi_rtt_last_us = nsk->rtt.last_us;
	info->ndpi_pull_gap_us = jiffies_to_usecs(nsk->snd.pull_gap8 / 8);
	info->ndpi_snd_una = nsk->snd.una;
	info->ndpi_snd_nxt = nsk->snd.nxt;
	info->ndpi_rcv_nxt = nsk->rcv.nxt;
	info->ndpi_rcv_high = nsk->rcv.high;
	info->ndpi_sndq_pkts = nsk->snd.nxt - nsk->snd.una;
	info->ndpi_unsent_pkts = nsk->snd.head ?
		nsk->snd.nxt - NDP_SKB_CB(nsk->snd.head)->psn : 0;
	info->ndpi_rtx_pending = nsk->snd.rtx_pending;
	info->ndpi_ooo_pkts = nsk->rcv.ooo_len;
	info->ndpi_sndq_bytes = ndp_sndq_bytes(nsk, false);
	info->ndpi_credit = nsk->snd.credit;
	info->ndpi_pull_pending = pulls.pending;
	info->ndpi_bytes_sent = nsk->snd.bytes;
	info->ndpi_data_sent = nsk->snd.tx_data;
	info->ndpi_rtx_nack = nsk->st.rtx_nack;
	info->ndpi_rtx_timeout = nsk->st.rtx_timeout;
	info->ndpi_rtx_rts = nsk->st.rtx_rts;
	info->ndpi_rtos = nsk->st.rtos;
	info->ndpi_acks_rcvd = nsk->st.acks_rcvd;
	info->ndpi_nacks_rcvd = nsk->st.nacks_rcvd;
	info->ndpi_rts_rcvd = nsk->st.rts_rcvd;
	info->ndpi_pulls_rcvd = nsk->snd.pull_seen;
	info->ndpi_data_rcvd = nsk->st.data_rcvd;
	info->ndpi_trims_rcvd = nsk->st.trims_rcvd;
	info->ndpi_nacks_sent = nsk->st.nacks_sent;
	info->ndpi_pulls_sent = pulls.ctr;
	info->ndpi_push_window = nsk->snd.push_window;
	info->ndpi_peer_nsenders = nsk->dasr.peer_n;
	info->ndpi_nsenders = ndp_dasr_nsenders(sock_net(sk));
	unlock_sock_fast(sk, slow);
}
EXPORT_SYMBOL_GPL(ndp_get_info);

/* getsockopt(SOL_NDP, NDP_INFO): a prefix of struct ndp_info, as TCP_INFO. */
static int ndp_getsockopt_info(struct sock *sk, char __user *optval,
			       int __user *optlen)
{
	struct ndp_info info;
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	/* The nonce lets its holder forge packets of the connection. */
	ndp_get_info(sk, &info,
		     ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN));
	len = min_t(unsigned int, len, sizeof(info));
	if (put_user(len, optlen) || copy_to_user(optval, &info, len))
		return -EFAULT;
	return 0;
}

static int ndp_getsockopt(struct sock *sk, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	if (level == SOL_IP)
		return ip_getsockopt(sk, level, optname, optval, optlen);
	if (level == SOL_IPV6 && sk->sk_family == AF_INET6)
		return ipv6_getsockopt(sk, level, optname, optval, optlen);
	if (level != SOL_NDP)
		return -ENOPROTOOPT;
	switch (optname) {
	case NDP_INFO:
		return ndp_getsockopt_info(sk, optval, optlen);
	}
	return -ENOPROTOOPT;
}

/*
 * SIOCINQ (FIONREAD): bytes waiting to be read; SIOCOUTQ: payload not yet
 * acknowledged; SIOCOUTQNSD: payload never sent.  EINVAL on a listener,
 * as TCP.
 */
int ndp_ioctl(struct sock *sk, int cmd, int *karg)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	bool slow;

	switch (cmd) {
	case SIOCINQ:
		if (inet_sk_state_load(sk) == TCP_LISTEN)
			return -EINVAL;
		slow = lock_sock_fast(sk);
		*karg = ndp_rcvq_bytes(sk);
		unlock_sock_fast(sk, slow);
		return 0;
	case SIOCOUTQ:
	case SIOCOUTQNSD:
		if (inet_sk_state_load(sk) == TCP_LISTEN)
			return -EINVAL;
		slow = lock_sock_fast(sk);
		*karg = ndp_sndq_bytes(nsk, cmd == SIOCOUTQNSD);
		unlock_sock_fast(sk, slow);
		return 0;
	}
	return -ENOIOCTLCMD;
}

/*
 * sock_diag SOCK_DESTROY (ss -K): abort a connection as TCP does, with
 * an RST to the peer and ECONNABORTED for the application.  Listeners
 * are not destroyed (EOPNOTSUPP): closing them is their owner's call; a
 * socket that is not (or no longer) a connection is left alone.
 */
int ndp_diag_destroy_sk(struct sock *sk, int err)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff_head xmitq;
	int ret = 0;

	__skb_queue_head_init(&xmitq);
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (!nsk->dead && nsk->nonce) {
		WRITE_ONCE(sk->sk_err, err);
		ndp_abort(sk, &xmitq);
		if (!sock_flag(sk, SOCK_DEAD))
			sk_error_report(sk);
	}
	ndp_xmit_queue(sk, &xmitq);
out:
	release_sock(sk);
	return ret;
}

struct proto ndp_prot = {
	.name		= "NDP",
	.owner		= THIS_MODULE,
	.init		= ndp_init_sock,
	.destroy	= ndp_destroy_sock,
	.close		= ndp_close,
	.setsockopt	= ndp_setsockopt,
	.getsockopt	= ndp_getsockopt,
	.ioctl		= ndp_compat_ioctl,
	.diag_destroy	= ndp_diag_destroy_sk,
	.backlog_rcv	= ndp_backlog_rcv,
	.release_cb	= ndp_release_cb,
	.hash		= ndp_hash,
	.unhash		= ndp_unbind,
	.get_port	= ndp_get_port,
	.no_autobind	= true,
	.memory_allocated = &ndp_memory_allocated,
	.per_cpu_fw_alloc = &ndp_memory_per_cpu_fw_alloc,
	.sysctl_mem	= sysctl_ndp_mem,
	.sysctl_rmem	= &ndp_mem_min,
	.sysctl_wmem	= &ndp_mem_min,
	.obj_size	= sizeof(struct ndp_sock),
};

struct proto ndpv6_prot;

/*
 * The AF_INET6 proto is ndp_prot with its own name and socket object (as
 * mptcp_proto_v6_init()); before either is registered.
 */
void ndp_proto_v6_init(void)
{
	ndpv6_prot = ndp_prot;
	strscpy(ndpv6_prot.name, "NDPv6", sizeof(ndpv6_prot.name));
	ndpv6_prot.obj_size = sizeof(struct ndp6_sock);
	ndp_proto_set_ipv6_pinfo(&ndpv6_prot,
				 offsetof(struct ndp6_sock, inet6));
}

/* ---------------------------------------------------------------------- */
/* struct proto_ops.                                                      */

/* Route to the peer, pick the source address; returns the path MTU. */
static int ndp_connect_v4(struct sock *sk, struct sockaddr *uaddr,
			  int addr_len, u32 *mtu, int *ifindex)
{
	struct sockaddr_in *usin = (struct sockaddr_in *)uaddr;
	struct inet_sock *inet = inet_sk(sk);
	struct flowi4 fl4;
	struct rtable *rt;
	__be32 daddr;

	if (addr_len < sizeof(*usin))
		return -EINVAL;
	if (usin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	daddr = usin->sin_addr.s_addr;
	if (ipv4_is_multicast(daddr) || ipv4_is_lbcast(daddr) ||
	    ipv4_is_zeronet(daddr))
		return -ENETUNREACH;
	rt = ip_route_output_ports(sock_net(sk), &fl4, sk, daddr,
				   inet->inet_saddr, usin->sin_port,
				   inet->inet_sport, ndp_ipproto, 0,
				   sk->sk_bound_dev_if);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (rt->rt_flags & (RTCF_MULTICAST | RTCF_BROADCAST)) {
		ip_rt_put(rt);
		return -ENETUNREACH;
	}
	*mtu = dst_mtu(&rt->dst);
	*ifindex = rt->dst.dev->ifindex;
	ip_rt_put(rt);
	if (!inet->inet_saddr)
		inet->inet_saddr = fl4.saddr;
	if (!inet->inet_rcv_saddr)
		inet->inet_rcv_saddr = fl4.saddr;
	inet->inet_daddr = daddr;
	inet->inet_dport = usin->sin_port;
	return 0;
}

/*
 * An AF_INET6 socket connecting to an IPv4-mapped address speaks IPv4
 * (dual stack, as tcp_v6_connect()): unless it is IPV6_V6ONLY, the IPv4
 * route and addresses are chosen as for an AF_INET socket and mirrored,
 * mapped, in its sk_v6_* addresses.
 */
static int ndp_connect_mapped(struct sock *sk, struct sockaddr_in6 *usin,
			      u32 *mtu, int *ifindex)
{
	struct inet_sock *inet = inet_sk(sk);
	struct sockaddr_in sin = {
		.sin_family	= AF_INET,
		.sin_port	= usin->sin6_port,
		.sin_addr.s_addr = usin->sin6_addr.s6_addr32[3],
	};
	int err;

	if (ipv6_only_sock(sk))
		return -ENETUNREACH;
	err = ndp_connect_v4(sk, (struct sockaddr *)&sin, sizeof(sin), mtu,
			     ifindex);
	if (err)
		return err;
	ipv6_addr_set_v4mapped(inet->inet_daddr, &sk->sk_v6_daddr);
	ipv6_addr_set_v4mapped(inet->inet_rcv_saddr, &sk->sk_v6_rcv_saddr);
	ipv6_addr_set_v4mapped(inet->inet_saddr, &inet6_sk(sk)->saddr);
	return 0;
}

static int ndp_connect_v6(struct sock *sk, struct sockaddr *uaddr,
			  int addr_len, u32 *mtu, int *ifindex)
{
	struct sockaddr_in6 *usin = (struct sockaddr_in6 *)uaddr;
	struct ipv6_pinfo *np = inet6_sk(sk);
	int oif = sk->sk_bound_dev_if;
	struct dst_entry *dst;
	struct flowi6 fl6;
	int type;

	if (addr_len < SIN6_LEN_RFC2133)
		return -EINVAL;
	if (usin->sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	type = ipv6_addr_type(&usin->sin6_addr);
	if (type == IPV6_ADDR_MAPPED)
		return ndp_connect_mapped(sk, usin, mtu, ifindex);
	if (type & IPV6_ADDR_MULTICAST || type == IPV6_ADDR_ANY)
		return -ENETUNREACH;
	/* Bound to an IPv4-mapped address: IPv4 peers only. */
	if (ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr))
		return -ENETUNREACH;
	if (type & IPV6_ADDR_LINKLOCAL) {
		if (addr_len >= sizeof(*usin) && usin->sin6_scope_id)
			oif = usin->sin6_scope_id;
		if (!oif)
			return -EINVAL;
	}
	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_proto = ndp_ipproto;
	fl6.daddr = usin->sin6_addr;
	fl6.saddr = sk->sk_v6_rcv_saddr;
	fl6.flowi6_oif = oif;
	fl6.flowi6_mark = sk->sk_mark;
	fl6.fl6_dport = usin->sin6_port;
	fl6.fl6_sport = inet_sk(sk)->inet_sport;
	dst = ip6_dst_lookup_flow(sock_net(sk), sk, &fl6, NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	*mtu = dst_mtu(dst);
	*ifindex = dst->dev->ifindex;
	dst_release(dst);
	if (ipv6_addr_any(&sk->sk_v6_rcv_saddr)) {
		sk->sk_v6_rcv_saddr = fl6.saddr;
		np->saddr = fl6.saddr;
	}
	sk->sk_v6_daddr = usin->sin6_addr;
	inet_sk(sk)->inet_dport = usin->sin6_port;
	if (oif != sk->sk_bound_dev_if)
		sk->sk_bound_dev_if = oif;
	return 0;
}

int ndp_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len,
		int flags)
{
	struct sock *sk = sock->sk;
	struct ndp_sock *nsk = ndp_sk(sk);
	int ifindex = 0, err;
	u32 mtu = 0, nonce;

	if (addr_len < sizeof(uaddr->sa_family))
		return -EINVAL;
	lock_sock(sk);
	err = -EISCONN;
	if (sk->sk_state != TCP_CLOSE || nsk->nonce)
		goto out;
	if (sk->sk_family == AF_INET)
		err = ndp_connect_v4(sk, uaddr, addr_len, &mtu, &ifindex);
	else
		err = ndp_connect_v6(sk, uaddr, addr_len, &mtu, &ifindex);
	if (err)
		goto out;
	if (!nsk->bound) {
		err = ndp_get_port(sk, 0);
		if (err) {
			/* No ephemeral port: connect() says so as TCP's. */
			if (err == -EADDRINUSE)
				err = -EADDRNOTAVAIL;
			inet_sk(sk)->inet_dport = 0;
			goto out;
		}
	}
	do {
		nonce = get_random_u32();
	} while (!nonce);

	nsk->nonce = nonce;
	nsk->addr_ok = true;	/* we chose the peer's address */
	nsk->user_seen = true;
	ndp_sk_flow(sk, &nsk->flow);
	nsk->mss = ndp_mss_for(sk, mtu);
	nsk->ifindex = ifindex;
	nsk->snd.syn_window = READ_ONCE(ndp_pernet(sock_net(sk))->init_window);
	ndp_rtt_init(sk);
	err = ndp_conn_hash(sk);
	if (err) {
		/* The same 4-tuple and nonce exist (or no memory). */
		nsk->nonce = 0;
		nsk->user_seen = false;
		inet_sk(sk)->inet_dport = 0;
		err = err == -EEXIST ? -EADDRNOTAVAIL : err;
		goto out;
	}
	ndp_conn_hash_any(sk);
	inet_sk_set_state(sk, TCP_ESTABLISHED);
	sock->state = SS_CONNECTED;
	NDP_INC_STATS(sock_net(sk), NDP_MIB_ACTIVEOPENS);
out:
	release_sock(sk);
	return err;
}

static int ndp_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct ndp_sock *nsk = ndp_sk(sk);
	int err;

	lock_sock(sk);
	err = -EINVAL;
	if (sock->state != SS_UNCONNECTED)
		goto out;
	if (sk->sk_state == TCP_LISTEN) {
		WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
		err = 0;
		goto out;
	}
	if (sk->sk_state != TCP_CLOSE || nsk->nonce || nsk->dead)
		goto out;
	if (!nsk->bound) {
		err = ndp_get_port(sk, 0);
		if (err)
			goto out;
	}
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	err = ndp_listen_start(sk);
out:
	release_sock(sk);
	return err;
}

int ndp_accept_common(struct socket *sock, struct socket *newsock, int flags,
		      bool kern)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = sock->sk;
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_sock *child = NULL;
	struct sock *newsk;
	long timeo;
	int err = 0;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & O_NONBLOCK);
	/*
	 * Exclusive, as inet_csk_wait_for_connect(): a new connection wakes
	 * one of the threads blocked in accept(), not all of them.
	 */
	add_wait_queue_exclusive(sk_sleep(sk), &wait);
	for (;;) {
		if (sk->sk_state != TCP_LISTEN) {
			err = -EINVAL;
			break;
		}
		child = list_first_entry_or_null(&nsk->accept_q,
						 struct ndp_sock, accept_q);
		if (child) {
			list_del_init(&child->accept_q);
			sk_acceptq_removed(sk);
			ndp_admit_dequeued(sk, child);
			child->parent = NULL;
			WRITE_ONCE(child->user_seen, true);
		}
		if (child)
			break;
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo,
			      !list_empty(&nsk->accept_q) ||
			      sk->sk_state != TCP_LISTEN, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	if (err)
		return err;

	newsk = (struct sock *)child;
	lock_sock(newsk);
	sock_graft(newsk, newsock);
	newsock->state = SS_CONNECTED;
	release_sock(newsk);
	return 0;
}

/*
 * The unsent data packet at the tail of the send queue if it has room:
 * a write fills it up before cutting a new packet, so that writes smaller
 * than the MSS, or not multiples of it, leave full packets behind rather
 * than one short packet each (tcp_sendmsg_locked() fills its tail skb the
 * same way).  A packet transmitted once is never grown: its copies are in
 * flight and the receiver may hold its psn.
 */
static struct sk_buff *ndp_sndq_tail_room(struct sock *sk, u32 mss)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_skb_cb *cb;
	struct sk_buff *skb;

	ndp_sock_assert_locked(sk);
	if (!nsk->snd.head || nsk->dead)
		return NULL;
	skb = skb_rb_last(&nsk->snd.q);
	cb = NDP_SKB_CB(skb);
	if (cb->sent || cb->flags & NDP_F_FIN || skb->len >= mss ||
	    skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS)
		return NULL;
	return skb;
}

/*
 * Append @len bytes of @msg to @skb: copied and summed, or for sendfile()
 * and splice() (MSG_SPLICE_PAGES) taken by page reference (output.c).
 */
static int ndp_fill_from_msg(struct sock *sk, struct sk_buff *skb,
			     struct msghdr *msg, bool splice, u32 len,
			     u32 *done)
{
	if (splice)
		return ndp_splice_from_iter(sk, skb, &msg->msg_iter,
					    msg->msg_flags, len, done);
	return ndp_copy_csum_from_iter(sk, skb, &msg->msg_iter, len, done);
}

/* @splice: take @msg's pages by reference (sendfile(), splice()). */
static int __ndp_sendmsg(struct sock *sk, struct msghdr *msg, size_t len,
			 bool splice)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	int flags = msg->msg_flags;
	struct sk_buff_head xmitq;
	bool queued = false, no_tail = false;
	size_t copied = 0;
	u32 pkts = 0, mss, done;
	long timeo;
	int err = 0;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	__skb_queue_head_init(&xmitq);
	lock_sock(sk);
	timeo = sock_sndtimeo(sk, flags & MSG_DONTWAIT);
	do {
		struct sk_buff *skb;
		size_t size;

		if (sk->sk_err) {
			err = -EPIPE;	/* sk_stream_error() reports sk_err */
			goto out_err;
		}
		if ((sk->sk_shutdown & SEND_SHUTDOWN) ||
		    sk->sk_state != TCP_ESTABLISHED) {
			err = -EPIPE;
			goto out_err;
		}
		if (!len)
			break;
		if (!sk_stream_memory_free(sk))
			goto wait_memory;
		mss = READ_ONCE(nsk->mss);
		skb = no_tail ? NULL : ndp_sndq_tail_room(sk, mss);
		if (skb) {
			size = min_t(size_t, len - copied, mss - skb->len);
			if (!sk_wmem_schedule(sk, size))
				goto wait_memory;
			err = ndp_fill_from_msg(sk, skb, msg, splice, size, &done);
			/* What was copied stays in the packet, error or not. */
			sk_wmem_queued_add(sk, done);
			sk_mem_charge(sk, done);
			nsk->snd.bytes += done;
			copied += done;
			queued |= done != 0;
			NDP_INC_STATS(sock_net(sk), NDP_MIB_OUTTAILFILLS);
			if (err == -ENOMEM) {
				err = 0;
				goto wait_memory;
			}
			if (err && err != -EMSGSIZE)
				goto out_err;
			/* -EMSGSIZE: out of fragments, the next part cuts a
			 * packet (the splice limit, net.core.max_skb_frags,
			 * may lie below what ndp_sndq_tail_room() checks).
			 */
			no_tail = err == -EMSGSIZE;
			err = 0;
			continue;
		}
		no_tail = false;
		size = min_t(size_t, len - copied, mss);
		/* An empty head for the headers; the payload goes into page
		 * fragments shared with the neighbouring packets, charged by
		 * the bytes copied (ndp_copy_csum_from_iter()).  With its
		 * fast clone: the transmission (output.c, ndp_data_clone()).
		 */
		skb = alloc_skb_fclone(NDP_HEADROOM, sk->sk_allocation);
		if (!skb) {
			err = -ENOBUFS;
			goto out_err;
		}
		skb_reserve(skb, NDP_HEADROOM);
		if (!sk_wmem_schedule(sk, skb->truesize + size)) {
			/* Beyond net.ndp.mem: wait as for a full buffer. */
			kfree_skb(skb);
			goto wait_memory;
		}
		memset(skb->cb, 0, sizeof(skb->cb));
		err = ndp_fill_from_msg(sk, skb, msg, splice, size, &done);
		/* Spliced pages beyond the fragment limit: the next packet. */
		if (err == -EMSGSIZE && done) {
			size = done;
			err = 0;
		}
		if (err) {
			iov_iter_revert(&msg->msg_iter, done);
			kfree_skb(skb);
			if (err == -ENOMEM) {
				/* No page: memory pressure, wait for room. */
				err = 0;
				goto wait_memory;
			}
			goto out_err;
		}

		if (nsk->dead) {
			kfree_skb(skb);
			continue;	/* reports the error above */
		}
		ndp_queue_skb(sk, skb, 0, false, &xmitq);
		queued = true;
		copied += size;
		/*
		 * A long send holds the socket: every NDP_FLUSH_PKTS packets
		 * the ACKs and PULLs that waited in the backlog meanwhile are
		 * processed (as tcp_sendmsg_locked() does), so that they
		 * neither overflow it nor wait for the end of the call.
		 */
		if (!(++pkts % NDP_FLUSH_PKTS) && ndp_flush_backlog(sk) &&
		    queued) {
			ndp_push_locked(sk);
			queued = false;
		}
		continue;

wait_memory:
		/*
		 * More is coming: no LAST until a write completes or the FIN
		 * is queued.  Also for a non-blocking writer told EAGAIN,
		 * which comes back on write space (a partial or interrupted
		 * write leaves the flag set for the same reason).
		 */
		nsk->snd.writer_waiting = true;
		if (queued) {
			ndp_push_locked(sk);
			queued = false;
		}
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		err = sk_stream_wait_memory(sk, &timeo);
		if (err)
			goto out_err;
	} while (copied < len);
	/* MSG_MORE: the message goes on, no LAST until a write ends it. */
	nsk->snd.writer_waiting = !!(flags & MSG_MORE);
	if (queued)
		ndp_push_locked(sk);
	release_sock(sk);
	return copied;

out_err:
	if (queued)
		ndp_push_locked(sk);
	if (copied) {
		release_sock(sk);
		return copied;
	}
	err = sk_stream_error(sk, flags, err);
	release_sock(sk);
	return err;
}

static int ndp_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	return __ndp_sendmsg(sock->sk, msg, len, ndp_msg_splice(msg));
}

#ifdef NDP_HAVE_SENDPAGE
/*
 * sendfile() and splice() before 6.5: one page (or part of one) per call,
 * taken by reference as from 6.5 on (ndp_compat.h).  A page that may not
 * be referenced (slab) is copied, as sock_no_sendpage() would.
 */
static ssize_t ndp_sendpage(struct socket *sock, struct page *page,
			    int offset, size_t size, int flags)
{
	struct msghdr msg = { .msg_flags = flags };
	struct bio_vec bvec;

	if (!sendpage_ok(page))
		return sock_no_sendpage(sock, page, offset, size, flags);
	bvec_set_page(&bvec, page, size, offset);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bvec, 1, size);
	return __ndp_sendmsg(sock->sk, &msg, size, true);
}
#endif

/* Copy queued data without consuming it. */
static int ndp_peek(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct sk_buff *skb;
	int copied = 0;

	skb_queue_walk(&sk->sk_receive_queue, skb) {
		u32 off = NDP_SKB_CB(skb)->offset;
		size_t chunk = min_t(size_t, skb->len - off, len - copied);

		if (skb_copy_datagram_msg(skb, off, msg, chunk))
			return copied ?: -EFAULT;
		copied += chunk;
		if (copied >= len)
			break;
	}
	return copied;
}

static int ndp_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		       int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = sock->sk;
	struct ndp_sock *nsk = ndp_sk(sk);
	bool freed = false;
	int copied = 0;
	long timeo;
	int target;

	if (flags & (MSG_OOB | MSG_ERRQUEUE))
		return -EOPNOTSUPP;
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN ||
	    (!nsk->nonce && !sk->sk_err)) {
		copied = -ENOTCONN;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	add_wait_queue(sk_sleep(sk), &wait);
	while (copied < len) {
		struct sk_buff *skb = skb_peek(&sk->sk_receive_queue);

		if (skb && (flags & MSG_PEEK)) {
			copied = ndp_peek(sk, msg, len);
			break;
		}
		if (skb) {
			struct ndp_skb_cb *cb = NDP_SKB_CB(skb);
			size_t chunk = min_t(size_t, skb->len - cb->offset,
					     len - copied);

			if (skb_copy_datagram_msg(skb, cb->offset, msg, chunk)) {
				copied = copied ?: -EFAULT;
				break;
			}
			copied += chunk;
			nsk->rcv.bytes_read += chunk;
			cb->offset += chunk;
			if (cb->offset >= skb->len) {
				skb_unlink(skb, &sk->sk_receive_queue);
				consume_skb(skb);	/* uncharged: we own sk */
				freed = true;
				/*
				 * Data that arrived while we copied waits in
				 * the backlog: let it in now, into the room
				 * just freed, rather than at release_sock()
				 * (a long read would overflow the backlog).
				 */
				ndp_flush_backlog(sk);
			}
			continue;
		}
		if (copied >= target)
			break;
		if (copied && (sk->sk_err || sk->sk_state == TCP_CLOSE ||
			       (sk->sk_shutdown & RCV_SHUTDOWN) ||
			       signal_pending(current)))
			break;
		if (sk->sk_err) {
			copied = sock_error(sk);
			break;
		}
		if ((sk->sk_shutdown & RCV_SHUTDOWN) ||
		    sk->sk_state == TCP_CLOSE)
			break;
		if (!timeo) {
			copied = copied ?: -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			copied = copied ?: sock_intr_errno(timeo);
			break;
		}
		if (freed) {
			ndp_pull_unblock(sk);
			ndp_room_update(sk);
			freed = false;
		}
		sk_wait_event(sk, &timeo,
			      !skb_queue_empty(&sk->sk_receive_queue) ||
			      READ_ONCE(sk->sk_err) ||
			      (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
			      sk->sk_state == TCP_CLOSE, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	if (freed) {
		ndp_pull_unblock(sk);
		ndp_room_update(sk);
	}
out:
	release_sock(sk);
	return copied;
}

static int ndp_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct ndp_sock *nsk = ndp_sk(sk);
	struct sk_buff_head xmitq;
	struct sk_buff *fin = NULL;
	int err = 0;

	how++;		/* SHUT_RD/WR/RDWR -> RCV/SEND_SHUTDOWN bits */
	if ((how & ~SHUTDOWN_MASK) || !how)
		return -EINVAL;
	__skb_queue_head_init(&xmitq);
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		if (how & RCV_SHUTDOWN) {
			ndp_unlisten(sk);
			sk->sk_state_change(sk);
		}
		goto out;
	}
	if (sk->sk_state != TCP_ESTABLISHED) {
		err = -ENOTCONN;
		goto out;
	}
	if ((how & SEND_SHUTDOWN) && !nsk->snd.fin_queued) {
		fin = ndp_fin_alloc(sk);
		if (!fin) {
			err = -ENOMEM;
			goto out;
		}
	}
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
	if (fin)
		ndp_queue_fin(sk, fin, &xmitq);
	ndp_xmit_queue(sk, &xmitq);
	sk->sk_state_change(sk);
out:
	release_sock(sk);
	return err;
}

static __poll_t ndp_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct ndp_sock *nsk = ndp_sk(sk);
	__poll_t mask = 0;
	int state, shutdown;

	sock_poll_wait(file, sock, wait);
	state = inet_sk_state_load(sk);
	if (state == TCP_LISTEN)
		return list_empty(&nsk->accept_q) ? 0 : EPOLLIN | EPOLLRDNORM;

	shutdown = READ_ONCE(sk->sk_shutdown);
	if (shutdown == SHUTDOWN_MASK || state == TCP_CLOSE)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (!skb_queue_empty_lockless(&sk->sk_receive_queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!(shutdown & SEND_SHUTDOWN)) {
		if (sk_stream_is_writeable(sk)) {
			mask |= EPOLLOUT | EPOLLWRNORM;
		} else {
			sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
			set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
			/* Paired with clear_bit() ordering in ndp_write_space(). */
			smp_mb__after_atomic();
			if (sk_stream_is_writeable(sk))
				mask |= EPOLLOUT | EPOLLWRNORM;
		}
	} else {
		mask |= EPOLLOUT | EPOLLWRNORM;
	}
	/* Paired with WRITE_ONCE() of sk_err in ndp_set_error(). */
	smp_rmb();
	if (READ_ONCE(sk->sk_err) ||
	    !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR;
	return mask;
}

const struct proto_ops ndp_inet_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= inet_bind,
	.connect	= ndp_compat_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= ndp_compat_accept,
	.getname	= inet_getname,
	.poll		= ndp_poll,
	.ioctl		= inet_ioctl,
	.listen		= ndp_listen,
	.shutdown	= ndp_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= ndp_sendmsg,
	.recvmsg	= ndp_recvmsg,
#ifdef NDP_HAVE_SENDPAGE
	.sendpage	= ndp_sendpage,
#endif
	.mmap		= sock_no_mmap,
};

const struct proto_ops ndp_inet6_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= inet6_bind,
	.connect	= ndp_compat_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= ndp_compat_accept,
	.getname	= inet6_getname,
	.poll		= ndp_poll,
	.ioctl		= inet6_ioctl,
	.listen		= ndp_listen,
	.shutdown	= ndp_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= ndp_sendmsg,
	.recvmsg	= ndp_recvmsg,
#ifdef NDP_HAVE_SENDPAGE
	.sendpage	= ndp_sendpage,
#endif
	.mmap		= sock_no_mmap,
};
