/*
 * codec_sha1: SHA-1 through OpenSSL libcrypto, for the digests Redis defines with it (DEBUG
 * DIGEST, the names of Lua scripts). Not for security.
 */
#ifndef TERSE_CODEC_SHA1_H
#define TERSE_CODEC_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define CODEC_SHA1_LEN 20

/* SHA-1 of n bytes (p may be NULL when n is 0) into out. TERSE_OK, or TERSE_ENOMEM when
 * libcrypto cannot set up its context (it allocates one per call: DEBUG paths only). */
int codec_sha1(const void *p, size_t n, uint8_t out[CODEC_SHA1_LEN]);

/* A digest context kept for many digests (EVAL hashes every script body it runs): the
 * algorithm is fetched and the context allocated once, at create. */
struct codec_sha1_ctx;
/* TERSE_OK or TERSE_ENOMEM. */
int codec_sha1_ctx_create(struct codec_sha1_ctx **out);
/* Frees the context; *pp = NULL; NULL and *pp == NULL are no-ops. */
void codec_sha1_ctx_destroy(struct codec_sha1_ctx **pp);
/* codec_sha1 on a kept context. TERSE_OK, or TERSE_ENOMEM when libcrypto fails. */
int codec_sha1_ctx_digest(struct codec_sha1_ctx *ctx, const void *p, size_t n,
                          uint8_t out[CODEC_SHA1_LEN]);

#endif /* TERSE_CODEC_SHA1_H */
