/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP wire format: kernel helpers for the one header every NDP packet
 * carries, shared by the transport (ndp.ko) and the switch-port qdisc
 * (sch_ndp.ko).
 *
 * The header itself (struct ndphdr, the packet types, the NDP_F_* flags
 * and the option room) is defined once, in the UAPI header
 * include/uapi/linux/ndp.h, which the tools and tests include as
 * <linux/ndp.h>.  This file holds the helpers that only depend on it
 * (parsing, header checksum, trimming arithmetic).  The normative
 * description, with field diagrams and the rules for each packet type, is
 * Documentation/networking/ndp-wire.rst; keep all three in step.
 *
 * Checklist for adding a packet type, flag or option:
 *   1. add it to enum ndp_pkt_type / NDP_F_* in include/uapi/linux/ndp.h,
 *      never reuse a value;
 *   2. describe it in Documentation/networking/ndp-wire.rst;
 *   3. teach ndp_hdr_is_control() whether switches treat it as a header;
 *   4. handle it in the receive path, or make the receiver count and drop it;
 *   5. teach the Python helpers (selftests/net/ndp/ndp_wire.py) and the
 *      Wireshark dissector (tools/wireshark/ndp.lua): tools/wire-check,
 *      run by the static stage of tools/ndp-test, fails until they agree.
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

static inline void ndp_wire_build_bug_on(void)
{
	BUILD_BUG_ON(sizeof(struct ndphdr) != NDP_HDR_WORDS * 4);
	BUILD_BUG_ON(offsetof(struct ndphdr, hcsum) != 32);
	BUILD_BUG_ON(NDP_PKT_MAX > 16);
	BUILD_BUG_ON(sizeof(struct ndp_opt_ack) != NDP_OPT_ACK_LEN);
	BUILD_BUG_ON(NDP_OPT_ACK_SPAN < NDP_ACK_SPAN_MAX);
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
 * The value of option @kind with @len bytes in all (kind and length
 * included) in header @nh, whose doff * 4 bytes the caller made linear:
 * its first value byte, or NULL if the header has no such option.  The
 * walk stops at NDP_OPT_EOL and at a length below 2 or past the header;
 * an option of @kind with another length is not taken.
 */
static inline const u8 *ndp_hdr_opt(const struct ndphdr *nh, u8 kind, u8 len)
{
	const u8 *p = (const u8 *)(nh + 1);
	const u8 *end = (const u8 *)nh + nh->doff * 4;

	while (p < end) {
		if (*p == NDP_OPT_EOL)
			break;
		if (*p == NDP_OPT_NOP) {
			p++;
			continue;
		}
		if (end - p < 2 || p[1] < 2 || p[1] > end - p)
			break;
		if (p[0] == kind && p[1] == len)
			return p + 2;
		p += p[1];
	}
	return NULL;
}

/*
 * The checksum of NDP_OPT_ACK @o with its csum field as it is: 0 when the
 * option verifies; with csum 0, the value to put there.  It covers the
 * option alone (no pseudo-header: the option rides on a packet of the
 * connection, whose header checksum covers the addresses).
 */
static inline __sum16 ndp_opt_ack_csum(const struct ndp_opt_ack *o)
{
	return csum_fold(csum_partial(o, sizeof(*o), 0));
}

/* Whether NDP_OPT_ACK @o verifies and reports a span the ACK rules allow. */
static inline bool ndp_opt_ack_ok(const struct ndp_opt_ack *o)
{
	u8 span = o->acks & NDP_OPT_ACK_SPAN;

	return !ndp_opt_ack_csum(o) && span && span <= NDP_ACK_SPAN_MAX;
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
 * then @plen bytes of payload, nothing after) sums to @pcsum.  A packet
 * built by this host that has not left memory (CHECKSUM_PARTIAL: NDP in
 * UDP over veth, its UDP checksum left to a device) is taken as it is, as
 * TCP takes such a segment (skb_csum_unnecessary()).  When the device
 * summed the packet (CHECKSUM_COMPLETE: skb->csum covers every byte from
 * @skb->data on; encap.c derives it from a verified UDP checksum), the
 * payload's sum is that minus the header's, with no pass over the
 * payload.  A mismatch is confirmed in software, as
 * __skb_checksum_complete() does, since a device's sum may be wrong.
 */
static inline bool ndp_pcsum_ok(const struct sk_buff *skb, unsigned int hlen,
				unsigned int plen, __sum16 pcsum)
{
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		return true;
	if (skb->ip_summed == CHECKSUM_COMPLETE && skb->len == hlen + plen &&
	    ndp_pcsum_equal(csum_fold(csum_sub(skb->csum,
					       skb_headlen(skb) >= hlen ?
					       csum_partial(skb->data, hlen, 0) :
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
 * NDP carried in UDP: the pseudo-header names no address, only the
 * protocol and the header length (the sum IPv4's and IPv6's pseudo-headers
 * have with all-zero addresses, the same in both families).  A NAT
 * rewrites the outer addresses and fixes the UDP checksum that covers
 * them; the NDP header stays valid.  See ndp-wire.rst, "NDP in UDP".
 */
static inline __sum16 ndp_udp_hdr_csum(const struct ndphdr *nh, u8 proto)
{
	return csum_tcpudp_magic(0, 0, NDP_HDR_LEN, proto,
				 ndp_hdr_csum_partial(nh));
}

static inline void ndp_udp_hdr_csum_set(struct ndphdr *nh, u8 proto)
{
	nh->hcsum = 0;
	nh->hcsum = ndp_udp_hdr_csum(nh, proto);
}

static inline bool ndp_udp_hdr_csum_ok(const struct ndphdr *nh, u8 proto)
{
	return !ndp_udp_hdr_csum(nh, proto);
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
