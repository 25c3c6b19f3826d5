// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the demux hashes (hash.c): a remote sender chooses the
 * addresses, ports and nonce of the packets it sends, so every byte of
 * the key must reach the hash, and the per-table random seed must change
 * every bucket, or the sender could aim all its connections at one chain.
 */
#include <kunit/test.h>
#include <linux/random.h>

#include "protocol.h"

#define NDP_HASH_KEY_BYTES	offsetofend(struct ndp_flow, nonce)

static void ndp_hash_test_key(struct ndp_flow *fl, u16 family)
{
	memset(fl, 0, sizeof(*fl));
	get_random_bytes(fl, NDP_HASH_KEY_BYTES);
	fl->family = family;
}

/* Any one bit of addresses, ports or nonce moves the connection's bucket. */
static void ndp_hash_test_every_bit(struct kunit *test)
{
	u32 seed = get_random_u32();
	struct ndp_flow fl, mut;
	unsigned int bit;
	u32 h;

	ndp_hash_test_key(&fl, AF_INET6);
	h = ndp_flow_hashfn(&fl, 0, seed);
	for (bit = 0; bit < NDP_HASH_KEY_BYTES * 8; bit++) {
		mut = fl;
		((u8 *)&mut)[bit / 8] ^= 1 << (bit % 8);
		KUNIT_EXPECT_NE_MSG(test, ndp_flow_hashfn(&mut, 0, seed), h,
				    "key bit %u does not reach the hash", bit);
	}
	mut = fl;
	mut.family = AF_INET;
	KUNIT_EXPECT_NE(test, ndp_flow_hashfn(&mut, 0, seed), h);
}

/* The ports-and-nonce table: ports, nonce and family, and nothing else. */
static void ndp_hash_test_any(struct kunit *test)
{
	u32 seed = get_random_u32();
	struct ndp_flow fl, mut;
	u32 h;

	ndp_hash_test_key(&fl, AF_INET);
	h = ndp_any_hashfn(&fl, 0, seed);
	mut = fl;
	mut.nonce ^= 1;
	KUNIT_EXPECT_NE(test, ndp_any_hashfn(&mut, 0, seed), h);
	mut = fl;
	mut.lport ^= htons(1);
	KUNIT_EXPECT_NE(test, ndp_any_hashfn(&mut, 0, seed), h);
	mut = fl;
	mut.rport ^= htons(0x8000);
	KUNIT_EXPECT_NE(test, ndp_any_hashfn(&mut, 0, seed), h);
	mut = fl;
	mut.family = AF_INET6;
	KUNIT_EXPECT_NE(test, ndp_any_hashfn(&mut, 0, seed), h);
	/* Multipath steers a connection through other addresses. */
	mut = fl;
	mut.raddr.s6_addr32[0] ^= htonl(1);
	mut.laddr.s6_addr32[3] ^= htonl(1);
	KUNIT_EXPECT_EQ(test, ndp_any_hashfn(&mut, 0, seed), h);
}

/*
 * The seed (rhashtable draws one at random per table and on each rehash)
 * changes the hash of every key: keys that share a bucket under one seed,
 * as a sender would pick them, are spread under another.
 */
static void ndp_hash_test_seed(struct kunit *test)
{
	u32 s1 = get_random_u32(), s2 = s1 ^ get_random_u32_inclusive(1, U32_MAX);
	unsigned int i, same = 0, any_same = 0;
	struct ndp_flow fl;

	for (i = 0; i < 256; i++) {
		ndp_hash_test_key(&fl, i & 1 ? AF_INET : AF_INET6);
		same += ndp_flow_hashfn(&fl, 0, s1) == ndp_flow_hashfn(&fl, 0, s2);
		any_same += ndp_any_hashfn(&fl, 0, s1) ==
			    ndp_any_hashfn(&fl, 0, s2);
	}
	KUNIT_EXPECT_EQ(test, same, 0);
	KUNIT_EXPECT_EQ(test, any_same, 0);
}

static struct kunit_case ndp_hash_test_cases[] = {
	KUNIT_CASE(ndp_hash_test_every_bit),
	KUNIT_CASE(ndp_hash_test_any),
	KUNIT_CASE(ndp_hash_test_seed),
	{}
};

static struct kunit_suite ndp_hash_test_suite = {
	.name = "ndp_hash",
	.test_cases = ndp_hash_test_cases,
};

kunit_test_suite(ndp_hash_test_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the NDP demux hashes");
