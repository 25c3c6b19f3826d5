/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP wire format: the one header every NDP packet carries, shared by the
 * transport (ndp.ko) and the switch-port qdisc (sch_ndp.ko).
 *
 * This file holds the wire format and the helpers that only depend on it
 * (parsing, header checksum, trimming arithmetic).  The normative
 * description, with field diagrams and the rules for each packet type, is
 * Documentation/networking/ndp-wire.rst; keep both in step.
 *
 * Checklist for adding a packet type or flag:
 *   1. add it to enum ndp_pkt_type / NDP_F_* below, never reuse a value;
 *   2. describe it in Documentation/networking/ndp-wire.rst;
 *   3. teach ndp_hdr_is_control() whether switches treat it as a header;
 *   4. handle it in the receive path, or make the receiver count and drop it.
 */
#ifndef _NET_NDP_WIRE_H
#define _NET_NDP_WIRE_H

#include <linux/types.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <uapi/linux/ndp.h>

/**
 * enum ndp_pkt_type - value of &ndphdr.type
 * @NDP_PKT_DATA: payload-carrying packet (possibly trimmed to its header).
 * @NDP_PKT_ACK: data packet @psn arrived intact (PULLACK with NDP_F_PULL).
 * @NDP_PKT_NACK: header of data packet @psn arrived trimmed; sender queues
 *	it for retransmission (sends it at once if NDP_F_PULL is set).
 * @NDP_PKT_PULL: pull counter advanced; send that many packets.
 * @NDP_PKT_RST: control reply: no socket for this packet (nothing listens,
 *	or the connection is gone).  Carries the offending @nonce and @psn.
 * @NDP_PKT_CHALLENGE: control reply to a first-window DATA packet the
 *	receiver would not create state for (admission pressure): carries
 *	that packet's @nonce and @psn and a cookie in @pull, which the
 *	sender echoes (NDP_F_ECHO) when it sends that packet again.  Never
 *	larger than the packet it answers.
 * @NDP_PKT_TOKEN: control packet of a passive connection whose peer proved
 *	its address: a token in @pull the opener may present in later first
 *	windows to this server address (NDP_F_TOKEN); @syn_off is the
 *	cumulative ack, as in ACK.
 * @NDP_PKT_MAX: number of types, first invalid value.
 */
enum ndp_pkt_type {
	NDP_PKT_DATA	= 1,
	NDP_PKT_ACK	= 2,
	NDP_PKT_NACK	= 3,
	NDP_PKT_PULL	= 4,
	NDP_PKT_RST	= 5,
	NDP_PKT_CHALLENGE = 6,
	NDP_PKT_TOKEN	= 7,
	NDP_PKT_MAX,
};

/* &ndphdr.flags bits (host order values, the field is big endian). */
#define NDP_F_SYN	0x0001	/* first-window DATA; @syn_off is valid */
#define NDP_F_LAST	0x0002	/* last DATA packet of the data queued so far */
#define NDP_F_TRIMMED	0x0004	/* payload cut by a switch (set by switches) */
#define NDP_F_RTS	0x0008	/* returned to sender (set by switches) */
#define NDP_F_UNSCHED	0x0010	/* pushed, not pulled (first window, OPF) */
#define NDP_F_PULL	0x0020	/* ACK/NACK also carries a pull (@pull) */
#define NDP_F_FIN	0x0040	/* DATA: sender shut down writing after this */
#define NDP_F_RTX	0x0080	/* DATA: a retransmission */
#define NDP_F_PASSIVE	0x0100	/* DATA: from the responder; never opens */
#define NDP_F_ECHO	0x0200	/* SYN DATA: @pull echoes a CHALLENGE cookie */
#define NDP_F_TOKEN	0x0400	/* SYN DATA: @pull carries a TOKEN's token */
#define NDP_F_DUP	0x0800	/* ACK: the DATA it reports had arrived before */
#define NDP_F_ALL	0x0fff	/* every defined flag */
/* Flags a switch may change in flight; the header checksum is updated. */
#define NDP_F_SWITCH	(NDP_F_TRIMMED | NDP_F_RTS)

#define NDP_HDR_WORDS	10	/* header length in 32-bit words */

/**
 * struct ndphdr - the NDP header, 40 bytes, after the IPv4/IPv6 header
 * @source: source port.
 * @dest: destination port.
 * @type: &enum ndp_pkt_type.
 * @doff: header length in 32-bit words; NDP_HDR_WORDS today.  Receivers
 *	drop packets whose @doff is smaller; larger values leave room for
 *	options, which are skipped.
 * @flags: NDP_F_* bits.
 * @nonce: connection nonce, chosen at random (never zero) by the side that
 *	opens the connection and echoed on every packet of the connection in
 *	both directions.  Identifies the incarnation of a 4-tuple so that a
 *	replayed first window is recognised by time-wait state.
 * @psn: DATA: packet sequence number.  ACK/NACK/RST: the psn reported on.
 * @syn_off: DATA with SYN: offset of @psn from the first psn of the
 *	connection, so any first-window packet can create the connection.
 *	ACK/NACK/PULL: cumulative ack, the next psn the receiver waits for.
 * @pull: PULL, or ACK/NACK with NDP_F_PULL: the per-connection pull
 *	counter, incremented by one for each pull the receiver issues.
 *	CHALLENGE: the cookie.  DATA with NDP_F_ECHO (SYN, not PASSIVE):
 *	the cookie of a CHALLENGE, echoed.  DATA with NDP_F_TOKEN (SYN, not
 *	PASSIVE, never with NDP_F_ECHO): a token.  TOKEN: the token.
 *	Other DATA: 0.
 * @prio: DATA: bytes of the flow left to send when this packet was sent,
 *	including this one, saturated at U32_MAX (pFabric priority: lower is
 *	more urgent).  Control packets: 0.
 * @paylen: payload length as sent (before any trimming).
 * @path: path id the sender chose (echoed in ACK/NACK for scoreboards).
 * @detours: number of times switches detoured this packet (OPF).
 * @hcsum: header checksum: Internet checksum over a pseudo-header
 *	(source and destination address, protocol, header length) and the
 *	header with @hcsum zero.  It does not cover the payload, so it stays
 *	valid after trimming; switches that change @flags or @detours update
 *	it incrementally.  Swapping source and destination (return to sender)
 *	leaves it valid, as the sum is commutative.
 * @pcsum: payload checksum: Internet checksum of the payload alone, 0 when
 *	there is no payload.  Not checked on trimmed packets; 0x0000 and
 *	0xffff compare equal (ndp_pcsum_equal()).
 * @nsenders: ACK/NACK: number of senders currently active towards the
 *	receiver (Dart DASR hint, 0 = unknown).  DATA: 0.
 * @acks: ACK: how many consecutive psns, ending with @psn, arrived intact
 *	on path @path and are reported by this one ACK (a batch received
 *	at once, see GRO in ndp-transport.rst); 0 and 1 both mean @psn
 *	alone, at most NDP_ACK_SPAN_MAX.  Other types: zero on send,
 *	ignored on receive.
 */
struct ndphdr {
	__be16	source;
	__be16	dest;
	__u8	type;
	__u8	doff;
	__be16	flags;
	__be32	nonce;
	__be32	psn;
	__be32	syn_off;
	__be32	pull;
	__be32	prio;
	__be16	paylen;
	__u8	path;
	__u8	detours;
	__sum16	hcsum;
	__sum16	pcsum;
	__be16	nsenders;
	__be16	acks;
};

/* Most psns one ACK reports (&ndphdr.acks); a larger value is refused. */
#define NDP_ACK_SPAN_MAX	64

#define NDP_HDR_LEN	((int)sizeof(struct ndphdr))

static inline void ndp_wire_build_bug_on(void)
{
	BUILD_BUG_ON(sizeof(struct ndphdr) != NDP_HDR_WORDS * 4);
	BUILD_BUG_ON(offsetof(struct ndphdr, hcsum) != 32);
	BUILD_BUG_ON(NDP_PKT_MAX > 16);
}

static inline struct ndphdr *ndp_hdr(const struct sk_buff *skb)
{
	return (struct ndphdr *)skb_transport_header(skb);
}

static inline bool ndp_hdr_has(const struct ndphdr *nh, u16 flag)
{
	return nh->flags & htons(flag);
}

/*
 * Whether a switch queues this packet as a "header" (high priority): every
 * control packet and every DATA packet already trimmed.
 */
static inline bool ndp_hdr_is_control(const struct ndphdr *nh)
{
	return nh->type != NDP_PKT_DATA || ndp_hdr_has(nh, NDP_F_TRIMMED);
}

/* Sanity of the fixed part: type known, header long enough, no junk flags. */
static inline bool ndp_hdr_is_sane(const struct ndphdr *nh)
{
	return nh->type >= NDP_PKT_DATA && nh->type < NDP_PKT_MAX &&
	       nh->doff >= NDP_HDR_WORDS &&
	       !(nh->flags & ~htons(NDP_F_ALL));
}

/*
 * Whether two payload checksums are the same value.  One's complement has
 * two zeros: a payload whose sum is zero (all zero bytes) folds to 0xffff
 * when summed from 0 (skb_checksum()) and to 0x0000 when summed from ~0,
 * as the architectures' csum-and-copy helpers do; both are correct.
 */
static inline bool ndp_pcsum_equal(__sum16 a, __sum16 b)
{
	return (__force u16)a % 0xffff == (__force u16)b % 0xffff;
}

/*
 * Whether the payload of the packet at @skb->data (a header of @hlen bytes,
 * then @plen bytes of payload, nothing after) sums to @pcsum.  When the
 * device summed the packet (CHECKSUM_COMPLETE: skb->csum covers every byte
 * from @skb->data on), the payload's sum is that minus the header's, with
 * no pass over the payload.  A mismatch is confirmed in software, as
 * __skb_checksum_complete() does, since a device's sum may be wrong.
 */
static inline bool ndp_pcsum_ok(const struct sk_buff *skb, unsigned int hlen,
				unsigned int plen, __sum16 pcsum)
{
	if (skb->ip_summed == CHECKSUM_COMPLETE && skb->len == hlen + plen &&
	    ndp_pcsum_equal(csum_fold(csum_sub(skb->csum,
					       skb_checksum(skb, 0, hlen, 0))),
			    pcsum))
		return true;
	return ndp_pcsum_equal(csum_fold(skb_checksum(skb, hlen, plen, 0)),
			       pcsum);
}

/* Checksum of the header alone (hcsum field included as it is). */
static inline __wsum ndp_hdr_csum_partial(const struct ndphdr *nh)
{
	return csum_partial(nh, NDP_HDR_LEN, 0);
}

static inline __sum16 ndp_v4_hdr_csum(const struct ndphdr *nh,
				      __be32 saddr, __be32 daddr, u8 proto)
{
	return csum_tcpudp_magic(saddr, daddr, NDP_HDR_LEN, proto,
				 ndp_hdr_csum_partial(nh));
}

static inline __sum16 ndp_v6_hdr_csum(const struct ndphdr *nh,
				      const struct in6_addr *saddr,
				      const struct in6_addr *daddr, u8 proto)
{
	return csum_ipv6_magic(saddr, daddr, NDP_HDR_LEN, proto,
			       ndp_hdr_csum_partial(nh));
}

/* Fill @nh->hcsum; the caller has written every other field. */
static inline void ndp_v4_hdr_csum_set(struct ndphdr *nh, __be32 saddr,
				       __be32 daddr, u8 proto)
{
	nh->hcsum = 0;
	nh->hcsum = ndp_v4_hdr_csum(nh, saddr, daddr, proto);
}

static inline void ndp_v6_hdr_csum_set(struct ndphdr *nh,
				       const struct in6_addr *saddr,
				       const struct in6_addr *daddr, u8 proto)
{
	nh->hcsum = 0;
	nh->hcsum = ndp_v6_hdr_csum(nh, saddr, daddr, proto);
}

/* A header whose checksum verifies sums (with its hcsum) to zero. */
static inline bool ndp_v4_hdr_csum_ok(const struct ndphdr *nh, __be32 saddr,
				      __be32 daddr, u8 proto)
{
	return !ndp_v4_hdr_csum(nh, saddr, daddr, proto);
}

static inline bool ndp_v6_hdr_csum_ok(const struct ndphdr *nh,
				      const struct in6_addr *saddr,
				      const struct in6_addr *daddr, u8 proto)
{
	return !ndp_v6_hdr_csum(nh, saddr, daddr, proto);
}

/*
 * Set or clear switch-owned flags in flight and keep the header checksum
 * valid (RFC 1624 incremental update).  The header must be writable.
 */
static inline void ndp_hdr_update_flags(struct ndphdr *nh, u16 set, u16 clear)
{
	__be16 old = nh->flags;
	__be16 new = (old | htons(set)) & ~htons(clear);

	if (old == new)
		return;
	nh->flags = new;
	csum_replace2(&nh->hcsum, old, new);
}

/* Increment @detours (saturating) and keep the header checksum valid. */
static inline void ndp_hdr_inc_detours(struct ndphdr *nh)
{
	__be16 old, new;
	u8 *w = &nh->path;	/* @path and @detours share one 16-bit word */

	if (nh->detours == U8_MAX)
		return;
	old = *(__be16 *)w;
	nh->detours++;
	new = *(__be16 *)w;
	csum_replace2(&nh->hcsum, old, new);
}

#endif /* _NET_NDP_WIRE_H */
