/*
 * codec_value: the server's stored form of a string value (internal to terse; the cachekit
 * envelope in include/terse/ is the interchange format).
 *
 * A stored value is self-describing: a small header (codec kind, original length, xxHash3-64
 * checksum of the original bytes) followed by the payload. The layout is documented in
 * codec_value.c and docs/formats/value.md. Values under CODEC_RAW_MAX bytes are stored raw;
 * larger ones go through LZ4 and are kept compressed only when that saves enough; zstd with a
 * dictionary is a later codec kind. Every decode verifies the checksum over the decoded bytes
 * and never leaves unverified bytes reported as a value: on TERSE_ECORRUPT the caller must not
 * use dst.
 *
 * Threading: a struct codec_ctx belongs to one shard thread; it is created once and reused
 * (LZ4 state, zstd contexts), never per call.
 */
#ifndef TERSE_CODEC_VALUE_H
#define TERSE_CODEC_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "terse/alloc.h"

#define CODEC_RAW_MAX 128 /* values shorter than this are never compressed */

enum codec_kind {
    CODEC_RAW = 0,
    CODEC_LZ4 = 1,
    CODEC_ZSTD = 2 /* reserved: zstd with a trained dictionary */
};

struct codec_ctx;

struct codec_value_info {
    enum codec_kind kind;
    size_t orig_len;    /* bytes of the original value */
    size_t payload_len; /* bytes of the stored payload (after the header) */
    size_t header_len;  /* bytes of the header */
};

/* Creates a context (LZ4 state and scratch). alloc may be NULL (libc).
 * Returns TERSE_OK or TERSE_ENOMEM. */
int codec_ctx_create(struct codec_ctx **out, const terse_allocator *alloc);
/* Frees *pp and sets it to NULL; NULL or *pp == NULL is a no-op. */
void codec_ctx_destroy(struct codec_ctx **pp);

/* Worst-case stored size for an original of src_len bytes. */
size_t codec_value_bound(size_t src_len);

/*
 * Encodes src into dst (dst_cap bytes; codec_value_bound(src_len) always suffices).
 * Chooses the codec; *dst_len is the stored size. Returns TERSE_OK, TERSE_EDSTSIZE, or
 * TERSE_ETOOBIG (src_len beyond 512 MiB). Does not allocate.
 */
int codec_value_encode(struct codec_ctx *c, const void *src, size_t src_len, void *dst,
                       size_t dst_cap, size_t *dst_len);

/* Parses the header only (cheap: no checksum). TERSE_OK or TERSE_ECORRUPT. */
int codec_value_info(const void *stored, size_t stored_len, struct codec_value_info *info);

/*
 * Decodes the whole value into dst (dst_cap >= orig_len) and verifies the checksum.
 * *dst_len = orig_len on success. Returns TERSE_OK, TERSE_EDSTSIZE, TERSE_ECORRUPT (bad
 * header, payload or checksum: dst contents are garbage and must not be used).
 */
int codec_value_decode(struct codec_ctx *c, const void *stored, size_t stored_len, void *dst,
                       size_t dst_cap, size_t *dst_len);

/* Flips one byte of the stored form (DEBUG CORRUPT-VALUE): the payload's middle byte, or the
 * checksum when the payload is empty. */
void codec_value_corrupt(void *stored, size_t stored_len);

/* Counters of one context, for INFO's terse section. */
struct codec_stats {
    uint64_t n_encoded[3];    /* values encoded per codec kind */
    uint64_t n_decoded;       /* successful decodes */
    uint64_t n_corrupt;       /* decodes that failed verification */
};
void codec_ctx_stats(const struct codec_ctx *c, struct codec_stats *out);

#endif /* TERSE_CODEC_VALUE_H */
