/*
 * s3_checksum: the checksums S3 accepts in an `x-amz-checksum-<alg>` header or trailer,
 * computed incrementally, and their wire form (standard base64 of the digest bytes, CRCs as
 * big-endian integers).
 *
 *   alg        library                               digest bytes   base64 chars
 *   crc32      zlib crc32 (IEEE, reflected)          4              8
 *   crc32c     ISA-L crc32_iscsi (Castagnoli)        4              8
 *   crc64nvme  table below (no Debian library has    8              12
 *              CRC-64/NVME; documented exception)
 *   sha1       OpenSSL EVP                           20             28
 *   sha256     OpenSSL EVP                           32             44
 *
 * A context is caller-owned memory: init (allocates one OpenSSL digest context for sha1 and
 * sha256, nothing for the CRCs), reset any number of times (no allocation), deinit.
 * Single-threaded per context.
 */
#ifndef S3_CHECKSUM_H
#define S3_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

enum s3_checksum_alg {
    S3_CHECKSUM_NONE = 0,
    S3_CHECKSUM_CRC32,
    S3_CHECKSUM_CRC32C,
    S3_CHECKSUM_CRC64NVME,
    S3_CHECKSUM_SHA1,
    S3_CHECKSUM_SHA256
};

#define S3_CHECKSUM_DIGEST_MAX 32 /* bytes of the largest digest (sha256) */
#define S3_CHECKSUM_B64_MAX 44    /* base64 characters of the largest digest, no NUL */
#define S3_CHECKSUM_NAME_MAX 9    /* strlen("crc64nvme") */

struct s3_checksum {
    enum s3_checksum_alg alg;
    uint32_t crc32;   /* running CRC-32 or CRC-32C state (zlib / ISA-L convention) */
    uint64_t crc64;   /* running CRC-64/NVME register (pre-inverted) */
    void *md;         /* EVP_MD_CTX for sha1/sha256, NULL otherwise; owned */
};

/*
 * s3_checksum_init: prepares `ck` (caller-owned) for `alg` and resets it.
 * Returns TERSE_OK, TERSE_EINVAL for an unknown alg, TERSE_ENOMEM if OpenSSL cannot allocate
 * its digest context (sha1/sha256 only). On error `ck` needs no deinit.
 */
int s3_checksum_init(struct s3_checksum *ck, enum s3_checksum_alg alg);

/* s3_checksum_deinit: releases what init acquired; safe on a zeroed or deinited context. */
void s3_checksum_deinit(struct s3_checksum *ck);

/* s3_checksum_reset: starts a new digest over empty input. Returns TERSE_OK or TERSE_ECRYPTO. */
int s3_checksum_reset(struct s3_checksum *ck);

/* s3_checksum_update: feeds `len` bytes of `p` (borrowed). Returns TERSE_OK or TERSE_ECRYPTO. */
int s3_checksum_update(struct s3_checksum *ck, const uint8_t *p, size_t len);

/*
 * s3_checksum_final_b64: writes the base64 of the digest so far into `dst` (room `dst_cap`,
 * NUL-terminated, at most S3_CHECKSUM_B64_MAX + 1 bytes) and its length to `*dst_len`.
 * The context must be reset before further use. Returns TERSE_OK, TERSE_EDSTSIZE when
 * dst_cap is short, TERSE_EINVAL for S3_CHECKSUM_NONE, TERSE_ECRYPTO if OpenSSL fails.
 */
int s3_checksum_final_b64(struct s3_checksum *ck, char *dst, size_t dst_cap, size_t *dst_len);

/* s3_checksum_name: "crc32", "crc32c", ... ("none" for NONE, "?" for unknown). Static text. */
const char *s3_checksum_name(enum s3_checksum_alg alg);

/* s3_checksum_upper: "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256" (the API's names). */
const char *s3_checksum_upper(enum s3_checksum_alg alg);

/* s3_checksum_b64_len: base64 length of alg's digest (0 for NONE or unknown). */
size_t s3_checksum_b64_len(enum s3_checksum_alg alg);

/*
 * s3_checksum_parse: alg for a lowercase or uppercase name ("crc32c", "SHA256", "none").
 * Returns TERSE_OK or TERSE_EINVAL (unknown name; *alg unchanged).
 */
int s3_checksum_parse(const char *name, enum s3_checksum_alg *alg);

#endif /* S3_CHECKSUM_H */
