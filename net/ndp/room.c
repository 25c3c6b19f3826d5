// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: receive room, the receiver's window for pushed data.
 *
 * Pulls never overfill a receive buffer: the receiver issues one only
 * when the packet it brings fits (pull.c, ndp_rcv_has_room()).  Pushed
 * data is not asked for.  A sender pushes a new window once everything it
 * sent is acknowledged (output.c, ndp_may_push_window()), and ACKs leave
 * when data arrives, not when it is read: a writer of 64 KB chunks to a
 * slow reader pushed a window after each chunk into a receive queue
 * already holding twice SO_RCVBUF, and the receiver dropped it
 * (RcvQDrops: 55 per run of about 4 000 packets at MTU 9000 between two
 * VMs, vmnet.sh; every one a pushed packet).
 *
 * So the receiver tells how much room it has, as TCP's window does, but
 * for pushed data only:
 *
 *  - Receiver.  Every ACK, NACK and PULL of a connection that has taken
 *    data carries the option NDP_OPT_ROOM (ndp-wire.rst, "Options") when
 *    its room for pushed data is below twice the namespace's init_window
 *    (in-order data is taken up to twice sk_rcvbuf, ndp_rcv_data(); the
 *    first sk_rcvbuf is left to what the pulls bring, so the room is
 *    sk_rcvbuf less what the receive memory holds beyond it, in packets
 *    of the largest truesize seen, less two), so
 *    that a window might not land whole; with more room it carries none,
 *    which sets no limit, and ACKs keep their 40 bytes (RoomAdverts).
 *  - Sender.  The value of the latest ACK, NACK or PULL is kept
 *    (ndp_sock_snd.peer_room; no option: U16_MAX) and a new window or a
 *    top-up is cut to it; none starts while it is 0 (RoomCuts counts the
 *    windows cut or held).  What a window left for the next write goes
 *    only within it, less what is in flight (ndp_push()).  Pulled data
 *    is not limited by it: the receiver paces that itself.
 *  - Update.  A receiver that advertised no room owes the sender word when
 *    its reader makes room: a PULL whose counter does not advance, which
 *    every sender takes as no pull, carrying the new room (RoomUpdates).
 *    It goes once the room reaches init_window packets or half what the
 *    buffer holds, not for every packet read (TCP's silly window
 *    avoidance).
 *  - Loss.  An update can be lost: the sender's persist probe (timer.c)
 *    stays, one per backed-off timeout.  While the peer's room is 0 it is
 *    the packet's header alone, marked TRIMMED as a switch would, on no
 *    path (RoomProbes): the receiver NACKs it with its room and pulls the
 *    packet when it has room, and no payload is dropped.  A whole packet
 *    that meets a receiver which advertised no room (a peer without this
 *    code) is dropped and counted in RcvQFullDrops, not RcvQDrops, as TCP
 *    counts drops at a zero window apart (TCPZeroWindowDrop).
 *
 * Peers without it: a receiver that sends no option leaves the sender
 * unlimited, as before; a sender that does not know the option skips it,
 * as every version skips unknown options, and a PULL that does not
 * advance the counter was always ignored.  No negotiation is needed.  The
 * header checksum does not cover options: a corrupt value can hold a
 * sender back until a pull or the persist probe comes, or let a window
 * through that the receiver drops and NACKs, nothing worse.
 *
 * Everything here runs under the socket lock.
 */

#include <net/sock.h>

#include "protocol.h"

/*
 * Room for pushed data in @sk's receive buffer, in packets, or U16_MAX:
 * no limit worth a word (nothing received yet, or room for two windows).
 * In-order data is taken up to twice sk_rcvbuf; pulls go while the
 * receive memory is below sk_rcvbuf, so what they bring, in flight or
 * queued, may fill the first half: pushed data gets the second, less what
 * already overflowed into it.  Counted in packets of the largest
 * truesize seen, less NDP_ROOM_SLACK for a packet larger still.  An
 * empty receive queue takes the next in-order packet whatever the memory
 * (ndp_rcv_data()): a buffer too small for more always has room for one.
 */
#define NDP_ROOM_SLACK	2

static u32 ndp_room_pkts(const struct sock *sk, u32 iw)
{
	const struct ndp_sock *nsk = ndp_sk(sk);
	u32 tsize = nsk->rcv.tsize_max;
	s64 room, rcvbuf;

	if (!tsize)
		return U16_MAX;
	rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	room = 2 * rcvbuf - max_t(s64, atomic_read(&sk->sk_rmem_alloc), rcvbuf);
	room = room > 0 ? div_u64(room, tsize) : 0;
	if (room >= 2 * (s64)iw + NDP_ROOM_SLACK)
		return U16_MAX;
	room -= NDP_ROOM_SLACK;
	if (room < 1 && skb_queue_empty_lockless(&sk->sk_receive_queue))
		return 1;
	return max_t(s64, room, 0);
}

/*
 * The bound of @sk's receive memory for out-of-order DATA: the room's,
 * twice sk_rcvbuf less NDP_ROOM_SLACK packets (at least sk_rcvbuf).
 * Pushed data was sent against the room, which counts it up to there in
 * any order, and pulls go while the memory is below sk_rcvbuf, so the
 * packets of the pulls in flight land above it: refused there when they
 * came out of order (reordered on the way, as between two guests over
 * virtio-net), they were NACKed and pulled again (netem with 1 ms of
 * jitter on a slow reader's veth: 160-280 RcvQDrops in 473 packets).  The
 * slack stays free for the in-order packets that fill the hole (taken up
 * to twice sk_rcvbuf).
 */
s64 ndp_room_ooo_bound(const struct sock *sk)
{
	s64 rcvbuf = READ_ONCE(sk->sk_rcvbuf);

	return max_t(s64, rcvbuf, 2 * rcvbuf -
		     (s64)NDP_ROOM_SLACK * ndp_sk(sk)->rcv.tsize_max);
}

/* The room @sk would advertise now, U16_MAX for none (no limit). */
u16 ndp_room_now(const struct sock *sk)
{
	return ndp_room_pkts(sk, READ_ONCE(ndp_pernet(sock_net(sk))->init_window));
}

/*
 * The room @room of @sk leaves on a packet now: remember it, and if it is
 * a limit, write the option at @p (NDP_OPT_ROOM_LEN bytes).  Returns
 * whether it wrote it.
 */
bool ndp_room_put(struct sock *sk, u16 room, u8 *p)
{
	ndp_sock_assert_locked(sk);
	ndp_sk(sk)->rcv.room_adv = room;
	if (room == U16_MAX)
		return false;
	p[0] = NDP_OPT_ROOM;
	p[1] = NDP_OPT_ROOM_LEN;
	p[2] = room >> 8;
	p[3] = room & 0xff;
	NDP_INC_STATS(sock_net(sk), NDP_MIB_ROOMADVERTS);
	return true;
}

/*
 * An ACK, NACK or PULL @skb of @sk (fixed header only, tailroom for the
 * option) is being built: add the room option if the buffer is short.
 */
void ndp_room_advertise(struct sock *sk, struct sk_buff *skb)
{
	u16 room = ndp_room_now(sk);

	if (room != U16_MAX && skb_tailroom(skb) < NDP_OPT_ROOM_LEN)
		room = U16_MAX;
	if (ndp_room_put(sk, room, skb_tail_pointer(skb))) {
		skb_put(skb, NDP_OPT_ROOM_LEN);
		ndp_hdr(skb)->doff = NDP_HDR_WORDS + NDP_OPT_ROOM_LEN / 4;
	}
}

/*
 * The room a received ACK, NACK or PULL @nh advertises (its doff * 4
 * bytes linear), U16_MAX if none.
 */
u16 ndp_room_of(const struct ndphdr *nh)
{
	const u8 *v = ndp_hdr_opt(nh, NDP_OPT_ROOM, NDP_OPT_ROOM_LEN);

	return v ? (v[0] << 8) | v[1] : U16_MAX;
}

/*
 * Packets of a new unscheduled window of @want that @sk may push now:
 * what the peer last said it has room for.  Counts the windows cut, and
 * a window held back (room 0) once until one goes.
 */
u32 ndp_room_cut(struct sock *sk, u32 want)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 room = nsk->snd.peer_room;

	ndp_sock_assert_locked(sk);
	if (want <= room) {
		nsk->snd.room_held = false;
		return want;
	}
	if (room || !nsk->snd.room_held)
		NDP_INC_STATS(sock_net(sk), NDP_MIB_ROOMCUTS);
	nsk->snd.room_held = !room;
	return room;
}

/*
 * The reader of @sk freed receive memory (recvmsg()).  If the last word
 * to the peer was "no room" and there is now room for a window, or for
 * half what the buffer holds (for a buffer of a packet or two: the queue
 * read empty), say so: a PULL that does not advance the counter, with the
 * room it now has (or no option: no limit).
 */
void ndp_room_update(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 iw = READ_ONCE(ndp_pernet(sock_net(sk))->init_window);
	struct ndp_pull_snap snap;
	struct sk_buff_head xmitq;
	struct sk_buff *skb;
	u32 room, full;

	ndp_sock_assert_locked(sk);
	if (nsk->rcv.room_adv || nsk->dead || !nsk->rcv.tsize_max)
		return;
	room = ndp_room_pkts(sk, iw);
	full = READ_ONCE(sk->sk_rcvbuf) / nsk->rcv.tsize_max;
	if (!room || (room < iw && room < full / 2))
		return;
	skb = ndp_ctrl_skb(sk, NDP_PKT_PULL, 0, 0);
	if (!skb)
		return;		/* the persist probe remains */
	ndp_pull_snapshot(sk, &snap);
	ndp_hdr(skb)->pull = htonl(snap.ctr);
	NDP_INC_STATS(sock_net(sk), NDP_MIB_ROOMUPDATES);
	__skb_queue_head_init(&xmitq);
	__skb_queue_tail(&xmitq, skb);
	ndp_xmit_queue(sk, &xmitq);
}
