/*
 * codec_sha1: SHA-1 through OpenSSL libcrypto, for the digests Redis defines with it (DEBUG
 * DIGEST). Not for security.
 */
#ifndef TERSE_CODEC_SHA1_H
#define TERSE_CODEC_SHA1_H

#include <stddef.h>
#include <stdint.h>

#define CODEC_SHA1_LEN 20

/* SHA-1 of n bytes (p may be NULL when n is 0) into out. TERSE_OK, or TERSE_ENOMEM when
 * libcrypto cannot set up its context (it allocates one per call: DEBUG paths only). */
int codec_sha1(const void *p, size_t n, uint8_t out[CODEC_SHA1_LEN]);

#endif /* TERSE_CODEC_SHA1_H */
