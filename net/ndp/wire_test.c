// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the NDP wire format helpers (include/net/ndp_wire.h):
 * header checksum against an independent reference, its survival across
 * the in-flight changes switches make (trim flag, return to sender,
 * detours), header sanity checks, and the payload check with and
 * without a device's sum (CHECKSUM_COMPLETE).
 */
#include <kunit/test.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/ndp_wire.h>

/* Straightforward RFC 1071 sum, independent of the kernel's csum code. */
static u16 ndp_test_ref_sum(const void *data, size_t len, u32 sum)
{
	const u8 *p = data;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* Reference header checksum for IPv4 (pseudo-header + header). */
static u16 ndp_test_ref_v4(const struct ndphdr *nh, __be32 saddr,
			   __be32 daddr, u8 proto)
{
	u8 pseudo[12];
	u32 sum;

	memcpy(pseudo, &saddr, 4);
	memcpy(pseudo + 4, &daddr, 4);
	pseudo[8] = 0;
	pseudo[9] = proto;
	pseudo[10] = 0;
	pseudo[11] = NDP_HDR_LEN;
	sum = ndp_test_ref_sum(pseudo, sizeof(pseudo), 0);
	sum = ndp_test_ref_sum(nh, NDP_HDR_LEN, sum);
	return ~sum & 0xffff;
}

static void ndp_test_fill(struct ndphdr *nh)
{
	memset(nh, 0, sizeof(*nh));
	nh->source = htons(40000);
	nh->dest = htons(5000);
	nh->type = NDP_PKT_DATA;
	nh->doff = NDP_HDR_WORDS;
	nh->flags = htons(NDP_F_SYN | NDP_F_UNSCHED);
	nh->nonce = htonl(0xdeadbeef);
	nh->psn = htonl(0x12345678);
	nh->syn_off = htonl(3);
	nh->prio = htonl(1000000);
	nh->paylen = htons(8960);
	nh->path = 2;
	nh->pcsum = (__force __sum16)htons(0xabcd);
}

static void ndp_wire_test_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct ndphdr), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct ndphdr, nonce), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct ndphdr, prio), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct ndphdr, paylen), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct ndphdr, detours), 31);
	KUNIT_EXPECT_EQ(test, offsetof(struct ndphdr, hcsum), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct ndphdr, nsenders), 36);
}

static void ndp_wire_test_v4_csum(struct kunit *test)
{
	__be32 s = htonl(0x0a000101), d = htonl(0x0a006401);
	struct ndphdr nh, ref;

	ndp_test_fill(&nh);
	ref = nh;
	ndp_v4_hdr_csum_set(&nh, s, d, IPPROTO_NDP);
	KUNIT_EXPECT_EQ(test, ntohs((__force __be16)nh.hcsum),
			ndp_test_ref_v4(&ref, s, d, IPPROTO_NDP));
	KUNIT_EXPECT_TRUE(test, ndp_v4_hdr_csum_ok(&nh, s, d, IPPROTO_NDP));
	/* Another protocol number, address or any header bit: rejected. */
	KUNIT_EXPECT_FALSE(test, ndp_v4_hdr_csum_ok(&nh, s, d, IPPROTO_NDP + 1));
	KUNIT_EXPECT_FALSE(test, ndp_v4_hdr_csum_ok(&nh, s, d ^ htonl(1), IPPROTO_NDP));
	nh.psn ^= htonl(0x100);
	KUNIT_EXPECT_FALSE(test, ndp_v4_hdr_csum_ok(&nh, s, d, IPPROTO_NDP));
}

/* What a switch does in flight must keep the header checksum valid. */
static void ndp_wire_test_switch_updates(struct kunit *test)
{
	__be32 s = htonl(0xc0a80001), d = htonl(0xc0a80102);
	struct ndphdr nh;
	int i;

	ndp_test_fill(&nh);
	ndp_v4_hdr_csum_set(&nh, s, d, IPPROTO_NDP);

	ndp_hdr_update_flags(&nh, NDP_F_TRIMMED, 0);
	KUNIT_EXPECT_TRUE(test, ndp_hdr_has(&nh, NDP_F_TRIMMED));
	KUNIT_EXPECT_TRUE(test, ndp_v4_hdr_csum_ok(&nh, s, d, IPPROTO_NDP));
	KUNIT_EXPECT_TRUE(test, ndp_hdr_is_control(&nh));

	/* Return to sender: flag plus swapped addresses. */
	ndp_hdr_update_flags(&nh, NDP_F_RTS, 0);
	KUNIT_EXPECT_TRUE(test, ndp_v4_hdr_csum_ok(&nh, d, s, IPPROTO_NDP));

	ndp_hdr_update_flags(&nh, 0, NDP_F_TRIMMED | NDP_F_RTS);
	KUNIT_EXPECT_FALSE(test, ndp_hdr_has(&nh, NDP_F_TRIMMED));
	KUNIT_EXPECT_TRUE(test, ndp_v4_hdr_csum_ok(&nh, s, d, IPPROTO_NDP));

	for (i = 0; i < 300; i++)
		ndp_hdr_inc_detours(&nh);
	KUNIT_EXPECT_EQ(test, nh.detours, U8_MAX);
	KUNIT_EXPECT_EQ(test, nh.path, 2);
	KUNIT_EXPECT_TRUE(test, ndp_v4_hdr_csum_ok(&nh, s, d, IPPROTO_NDP));
}

static void ndp_wire_test_v6_csum(struct kunit *test)
{
	struct in6_addr s = { .s6_addr = { 0xfd, 0, 0, 1, [15] = 1 } };
	struct in6_addr d = { .s6_addr = { 0xfd, 0, 0, 0x64, [15] = 1 } };
	struct ndphdr nh;

	ndp_test_fill(&nh);
	ndp_v6_hdr_csum_set(&nh, &s, &d, IPPROTO_NDP);
	KUNIT_EXPECT_TRUE(test, ndp_v6_hdr_csum_ok(&nh, &s, &d, IPPROTO_NDP));
	ndp_hdr_update_flags(&nh, NDP_F_TRIMMED | NDP_F_RTS, 0);
	KUNIT_EXPECT_TRUE(test, ndp_v6_hdr_csum_ok(&nh, &d, &s, IPPROTO_NDP));
	d.s6_addr[15] ^= 1;
	KUNIT_EXPECT_FALSE(test, ndp_v6_hdr_csum_ok(&nh, &s, &d, IPPROTO_NDP));
}

/*
 * NDP in UDP: no address in the pseudo-header, so the sum is the one both
 * families' pseudo-headers give with all-zero addresses, and a NAT's
 * rewrite of the addresses leaves it valid.
 */
static void ndp_wire_test_udp_csum(struct kunit *test)
{
	struct in6_addr z6 = {};
	struct ndphdr nh, ref;

	ndp_test_fill(&nh);
	ref = nh;
	ndp_udp_hdr_csum_set(&nh, IPPROTO_NDP);
	KUNIT_EXPECT_EQ(test, ntohs((__force __be16)nh.hcsum),
			ndp_test_ref_v4(&ref, 0, 0, IPPROTO_NDP));
	KUNIT_EXPECT_TRUE(test, ndp_udp_hdr_csum_ok(&nh, IPPROTO_NDP));
	KUNIT_EXPECT_TRUE(test, ndp_v4_hdr_csum_ok(&nh, 0, 0, IPPROTO_NDP));
	KUNIT_EXPECT_TRUE(test, ndp_v6_hdr_csum_ok(&nh, &z6, &z6, IPPROTO_NDP));
	KUNIT_EXPECT_FALSE(test, ndp_udp_hdr_csum_ok(&nh, IPPROTO_NDP + 1));
	ndp_hdr_update_flags(&nh, NDP_F_TRIMMED, 0);
	KUNIT_EXPECT_TRUE(test, ndp_udp_hdr_csum_ok(&nh, IPPROTO_NDP));
}

static void ndp_wire_test_sanity(struct kunit *test)
{
	struct ndphdr nh;

	ndp_test_fill(&nh);
	KUNIT_EXPECT_TRUE(test, ndp_hdr_is_sane(&nh));
	KUNIT_EXPECT_FALSE(test, ndp_hdr_is_control(&nh));

	nh.type = 0;
	KUNIT_EXPECT_FALSE(test, ndp_hdr_is_sane(&nh));
	nh.type = NDP_PKT_MAX;
	KUNIT_EXPECT_FALSE(test, ndp_hdr_is_sane(&nh));
	nh.type = NDP_PKT_PULL;
	KUNIT_EXPECT_TRUE(test, ndp_hdr_is_sane(&nh));
	KUNIT_EXPECT_TRUE(test, ndp_hdr_is_control(&nh));

	nh.doff = NDP_HDR_WORDS - 1;
	KUNIT_EXPECT_FALSE(test, ndp_hdr_is_sane(&nh));
	nh.doff = NDP_HDR_WORDS + 1;
	KUNIT_EXPECT_TRUE(test, ndp_hdr_is_sane(&nh));

	nh.flags = htons(NDP_F_ALL + 1);	/* the lowest undefined bit */
	KUNIT_EXPECT_FALSE(test, ndp_hdr_is_sane(&nh));
	nh.flags = htons(NDP_F_ALL);
	KUNIT_EXPECT_TRUE(test, ndp_hdr_is_sane(&nh));
}

/*
 * Append to @skb an NDP header and @plen random payload bytes (*@pay),
 * the header's pcsum their checksum, which is returned.
 */
static __sum16 ndp_test_put_pkt(struct sk_buff *skb, unsigned int plen,
				u8 **pay)
{
	struct ndphdr *nh = skb_put(skb, NDP_HDR_LEN);

	ndp_test_fill(nh);
	*pay = skb_put(skb, plen);
	get_random_bytes(*pay, plen);
	nh->pcsum = (__force __sum16)htons(~ndp_test_ref_sum(*pay, plen, 0) &
					   0xffff);
	return nh->pcsum;
}

/*
 * ndp_pcsum_ok(): a packet as the receive handler sees it (header, then
 * payload), checked with no device sum, with a right one, with a device
 * sum that is wrong (the software check still accepts the intact payload)
 * and on a corrupt payload whose device sum is right (refused).
 */
static void ndp_wire_test_pcsum_complete(struct kunit *test)
{
	const unsigned int plen = 1445;	/* odd, as a payload may be */
	struct sk_buff *skb;
	__sum16 pcsum;
	u8 *pay;

	skb = alloc_skb(NDP_HDR_LEN + plen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	pcsum = ndp_test_put_pkt(skb, plen, &pay);

	skb->ip_summed = CHECKSUM_NONE;
	KUNIT_EXPECT_TRUE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN, plen, pcsum));

	skb->ip_summed = CHECKSUM_COMPLETE;
	skb->csum = skb_checksum(skb, 0, skb->len, 0);
	KUNIT_EXPECT_TRUE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN, plen, pcsum));
	KUNIT_EXPECT_FALSE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN, plen,
					      (__force __sum16)((__force u16)pcsum ^ 1)));

	skb->csum = csum_add(skb->csum, (__force __wsum)htonl(0x1234));
	KUNIT_EXPECT_TRUE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN, plen, pcsum));

	pay[100] ^= 0x40;
	skb->csum = skb_checksum(skb, 0, skb->len, 0);
	KUNIT_EXPECT_FALSE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN, plen, pcsum));
	skb->ip_summed = CHECKSUM_NONE;
	KUNIT_EXPECT_FALSE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN, plen, pcsum));
	/* Built here, not left memory: taken as it is, as TCP does. */
	skb->ip_summed = CHECKSUM_PARTIAL;
	KUNIT_EXPECT_TRUE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN, plen, pcsum));
	kfree_skb(skb);
}

/*
 * The sum encap.c's ndp_encap_csum() hands on for a datagram UDP verified:
 * minus the pseudo-header and the UDP header.  For a datagram whose UDP
 * checksum is right, it is the NDP packet's own sum, and the payload check
 * takes it: an intact payload passes, a corrupt one (its UDP checksum
 * made right again, as a device's sum would be) fails in software.
 */
static void ndp_wire_test_pcsum_from_udp(struct kunit *test)
{
	const unsigned int plen = 999;
	const __be32 saddr = htonl(0x0a000101), daddr = htonl(0x0a000202);
	unsigned int ulen = sizeof(struct udphdr) + NDP_HDR_LEN + plen;
	struct sk_buff *skb;
	struct udphdr *uh;
	__sum16 pcsum;
	__wsum sum;
	u8 *pay;
	int i;

	skb = alloc_skb(ulen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	uh = skb_put_zero(skb, sizeof(*uh));
	pcsum = ndp_test_put_pkt(skb, plen, &pay);
	uh->source = htons(49152);
	uh->dest = htons(6000);
	uh->len = htons(ulen);

	for (i = 0; i < 2; i++) {
		uh->check = 0;
		uh->check = csum_tcpudp_magic(saddr, daddr, ulen, IPPROTO_UDP,
					      skb_checksum(skb, 0, ulen, 0));
		sum = csum_partial(uh, sizeof(*uh),
				   csum_tcpudp_nofold(saddr, daddr, ulen,
						      IPPROTO_UDP, 0));
		__skb_pull(skb, sizeof(*uh));
		skb->csum = (__force __wsum)~(__force u32)sum;
		skb->ip_summed = CHECKSUM_COMPLETE;
		if (!i)
			KUNIT_EXPECT_TRUE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN,
							     plen, pcsum));
		else
			KUNIT_EXPECT_FALSE(test, ndp_pcsum_ok(skb, NDP_HDR_LEN,
							      plen, pcsum));
		__skb_push(skb, sizeof(*uh));
		pay[7] ^= 0x01;
	}
	kfree_skb(skb);
}

/*
 * ndp_hdr_opt(): the room option found after padding and an unknown
 * option, not found past EOL, with a wrong length, or when a length runs
 * past the header or is below 2 (the walk stops there).
 */
static void ndp_wire_test_options(struct kunit *test)
{
	static const u8 opts[12] = {
		NDP_OPT_NOP, 9, 3, 0xaa,	/* padding, an unknown kind */
		NDP_OPT_ROOM, NDP_OPT_ROOM_LEN, 0x01, 0x02,
		NDP_OPT_EOL,
	};
	struct {
		struct ndphdr nh;
		u8 opt[12];
	} __packed h;
	const u8 *v;

	ndp_test_fill(&h.nh);
	h.nh.type = NDP_PKT_ACK;
	KUNIT_EXPECT_NULL(test, ndp_hdr_opt(&h.nh, NDP_OPT_ROOM,
					    NDP_OPT_ROOM_LEN));

	h.nh.doff = NDP_HDR_WORDS + 3;
	memcpy(h.opt, opts, sizeof(h.opt));
	v = ndp_hdr_opt(&h.nh, NDP_OPT_ROOM, NDP_OPT_ROOM_LEN);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, (v[0] << 8) | v[1], 0x0102);
	KUNIT_EXPECT_NULL(test, ndp_hdr_opt(&h.nh, NDP_OPT_ROOM, 6));

	/* opt[2] is the unknown option's length. */
	h.opt[2] = 1;			/* a length below 2 ends the walk */
	KUNIT_EXPECT_NULL(test, ndp_hdr_opt(&h.nh, NDP_OPT_ROOM,
					    NDP_OPT_ROOM_LEN));
	h.opt[2] = 12;			/* past the header */
	KUNIT_EXPECT_NULL(test, ndp_hdr_opt(&h.nh, NDP_OPT_ROOM,
					    NDP_OPT_ROOM_LEN));
	h.opt[2] = 3;
	KUNIT_EXPECT_NOT_NULL(test, ndp_hdr_opt(&h.nh, NDP_OPT_ROOM,
						NDP_OPT_ROOM_LEN));
	h.opt[0] = NDP_OPT_EOL;
	KUNIT_EXPECT_NULL(test, ndp_hdr_opt(&h.nh, NDP_OPT_ROOM,
					    NDP_OPT_ROOM_LEN));
	h.opt[0] = NDP_OPT_NOP;
	h.nh.doff = NDP_HDR_WORDS + 1;	/* the option lies past doff */
	KUNIT_EXPECT_NULL(test, ndp_hdr_opt(&h.nh, NDP_OPT_ROOM,
					    NDP_OPT_ROOM_LEN));
}

/*
 * NDP_OPT_ACK: found after padding on a DATA header, verifies with the
 * checksum it was given, fails with any byte changed after it, and with a
 * span of 0 or above NDP_ACK_SPAN_MAX even when its checksum is right.
 */
static void ndp_wire_test_opt_ack(struct kunit *test)
{
	struct {
		struct ndphdr nh;
		u8 pad[4];
		struct ndp_opt_ack o;
	} __packed h;
	const struct ndp_opt_ack *o;
	const u8 *v;
	int i;

	ndp_test_fill(&h.nh);
	h.nh.doff = NDP_HDR_WORDS + (4 + NDP_OPT_ACK_LEN) / 4;
	memset(h.pad, NDP_OPT_NOP, sizeof(h.pad));
	h.o = (struct ndp_opt_ack) {
		.kind = NDP_OPT_ACK, .len = NDP_OPT_ACK_LEN,
		.psn = htonl(0x12345678), .cum = htonl(0x12345679),
		.path = 7, .acks = 1 | NDP_OPT_ACK_CE, .delay = htons(350),
	};
	h.o.csum = ndp_opt_ack_csum(&h.o);
	v = ndp_hdr_opt(&h.nh, NDP_OPT_ACK, NDP_OPT_ACK_LEN);
	KUNIT_ASSERT_PTR_EQ(test, v, (const u8 *)&h.o + 2);
	o = (const struct ndp_opt_ack *)(v - 2);
	KUNIT_EXPECT_TRUE(test, ndp_opt_ack_ok(o));

	for (i = 2; i < NDP_OPT_ACK_LEN; i++) {
		((u8 *)&h.o)[i] ^= 0x10;
		KUNIT_EXPECT_FALSE_MSG(test, ndp_opt_ack_ok(o),
				       "byte %d changed", i);
		((u8 *)&h.o)[i] ^= 0x10;
	}
	KUNIT_EXPECT_TRUE(test, ndp_opt_ack_ok(o));

	h.o.acks = NDP_ACK_SPAN_MAX;
	h.o.csum = 0;
	h.o.csum = ndp_opt_ack_csum(&h.o);
	KUNIT_EXPECT_TRUE(test, ndp_opt_ack_ok(o));
	h.o.acks = NDP_ACK_SPAN_MAX + 1;
	h.o.csum = 0;
	h.o.csum = ndp_opt_ack_csum(&h.o);
	KUNIT_EXPECT_FALSE(test, ndp_opt_ack_ok(o));
	h.o.acks = NDP_OPT_ACK_CE;	/* no psn reported */
	h.o.csum = 0;
	h.o.csum = ndp_opt_ack_csum(&h.o);
	KUNIT_EXPECT_FALSE(test, ndp_opt_ack_ok(o));
}

static struct kunit_case ndp_wire_test_cases[] = {
	KUNIT_CASE(ndp_wire_test_layout),
	KUNIT_CASE(ndp_wire_test_v4_csum),
	KUNIT_CASE(ndp_wire_test_switch_updates),
	KUNIT_CASE(ndp_wire_test_v6_csum),
	KUNIT_CASE(ndp_wire_test_udp_csum),
	KUNIT_CASE(ndp_wire_test_pcsum_from_udp),
	KUNIT_CASE(ndp_wire_test_sanity),
	KUNIT_CASE(ndp_wire_test_pcsum_complete),
	KUNIT_CASE(ndp_wire_test_options),
	KUNIT_CASE(ndp_wire_test_opt_ack),
	{}
};

static struct kunit_suite ndp_wire_test_suite = {
	.name = "ndp_wire",
	.test_cases = ndp_wire_test_cases,
};

kunit_test_suite(ndp_wire_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the NDP wire format helpers");
