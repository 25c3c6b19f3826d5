/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sha256: a small SHA-256 (FIPS 180-4) for the NDP test programs, so that
 * each end of a transfer can print a digest of the bytes it saw without
 * piping through an external tool.
 */
#ifndef NDP_SHA256_H
#define NDP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN	32
#define SHA256_HEX_LEN		(2 * SHA256_DIGEST_LEN + 1)

struct sha256_ctx {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	uint8_t buf[64];	/* partial block */
	unsigned int fill;	/* bytes in @buf */
};

void sha256_init(struct sha256_ctx *c);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);
/* Finalise into lower-case hex (64 characters and a NUL). */
void sha256_final_hex(struct sha256_ctx *c, char out[SHA256_HEX_LEN]);

#endif /* NDP_SHA256_H */
