/*
 * libterse: the cachekit ByteStorage envelope in C.
 *
 * An envelope is the MessagePack array [compressed_data, checksum, original_size, format]:
 * compressed_data is one LZ4 block of the original bytes (written as bin; the legacy array of
 * byte-sized integers is read too), checksum is XXH3-64 of the original bytes as an array of 8
 * integers, most significant first, original_size is an unsigned integer and format a string
 * naming what the payload is (default "msgpack"). docs/formats/envelope.md is the format.
 *
 * Limits: input, block and original size are each at most TERSE_ENVELOPE_MAX bytes (512 MiB,
 * exactly 512 MiB allowed); original_size <= TERSE_ENVELOPE_RATIO_MAX * block length (computed
 * in 64 bits); MessagePack nesting at most TERSE_ENVELOPE_DEPTH_MAX; format at most
 * TERSE_ENVELOPE_FORMAT_MAX bytes on write.
 *
 * Strictness (decided here; upstream is laxer): the map form of the envelope and any bytes
 * after the envelope are refused with TERSE_EPROTO. Integers in a non-shortest width are read.
 *
 * Threading: every function may be called from any thread. The ctx-less functions keep one LZ4
 * state per thread (thread-local, initialised on first use) so a store never pays LZ4's full
 * table clear; a terse_ctx holds the same state explicitly, for callers that prefer that.
 */
#ifndef TERSE_TERSE_H
#define TERSE_TERSE_H

#include <stddef.h>
#include <stdint.h>

#include "terse/alloc.h"
#include "terse/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TERSE_ENVELOPE_MAX ((size_t)512 * 1024 * 1024) /* bytes: input, block, original */
#define TERSE_ENVELOPE_RATIO_MAX 1000                    /* original_size / block length */
#define TERSE_ENVELOPE_DEPTH_MAX 100                     /* MessagePack nesting on read */
#define TERSE_ENVELOPE_FORMAT_MAX 255                    /* format bytes on write */
#define TERSE_ENVELOPE_LITERAL_MAX 128 /* inputs shorter than this: literal-only block */

/* Constant-expression worst case of terse_envelope_bound(n) for n <= TERSE_ENVELOPE_MAX:
 * array(1) + bin header(5) + LZ4 bound + checksum(17) + size(5) + format(2 + FORMAT_MAX). */
#define TERSE_ENVELOPE_BOUND(n)                                                                   \
    ((size_t)(n) + (size_t)(n) / 255 + 16 + 1 + 5 + 17 + 5 + 2 + TERSE_ENVELOPE_FORMAT_MAX)

typedef struct terse_ctx terse_ctx;

/*
 * terse_envelope_bound: bytes of dst that always suffice for terse_envelope_store of src_len
 * bytes with any format of at most TERSE_ENVELOPE_FORMAT_MAX bytes. Pure; beyond
 * TERSE_ENVELOPE_MAX it returns the bound of TERSE_ENVELOPE_MAX (store refuses such input).
 */
size_t terse_envelope_bound(size_t src_len);

/*
 * terse_envelope_store: writes the envelope of src into dst.
 * src: borrowed, src_len bytes (NULL allowed when src_len == 0). format: borrowed NUL-terminated
 * string, NULL means "msgpack". dst: output buffer of dst_cap bytes; *dst_len gets the envelope
 * length. Inputs under TERSE_ENVELOPE_LITERAL_MAX bytes become a literal-only LZ4 block without
 * running the encoder; longer ones go through liblz4 with a reused state.
 * Returns TERSE_OK; TERSE_EDSTSIZE (dst_cap too small: dst holds garbage, nothing is written
 * past dst_cap); TERSE_ETOOBIG (src_len, block or envelope beyond TERSE_ENVELOPE_MAX);
 * TERSE_EINVAL (NULL dst_len, NULL src with src_len > 0, format longer than
 * TERSE_ENVELOPE_FORMAT_MAX). Does not allocate.
 */
int terse_envelope_store(const void *src, size_t src_len, const char *format, void *dst,
                         size_t dst_cap, size_t *dst_len);

/*
 * terse_envelope_size: validates env as far as possible without decompressing (size caps,
 * pre-scan, exact shape, ratio) and gives its original_size: the dst_cap retrieve needs.
 * env: borrowed. Returns TERSE_OK, TERSE_ETOOBIG (env_len, block or original_size beyond
 * TERSE_ENVELOPE_MAX), TERSE_EPROTO (not a well-formed envelope, trailing bytes, map form),
 * TERSE_ERATIO (empty block or original_size > TERSE_ENVELOPE_RATIO_MAX * block length),
 * TERSE_EINVAL (NULL original_size). Does not allocate.
 */
int terse_envelope_size(const void *env, size_t env_len, uint64_t *original_size);

/*
 * terse_envelope_retrieve: decodes env into dst and verifies it.
 * dst: output buffer of dst_cap bytes (needs original_size, see terse_envelope_size);
 * *dst_len = original_size on success. format: optional output (NULL: not returned) of
 * format_cap bytes, receives the format string NUL-terminated (an embedded NUL shortens it).
 * Every check of terse_envelope_size runs first, then the room checks (TERSE_EDSTSIZE: nothing
 * written); only then is dst written. Further returns: TERSE_ECORRUPT (the block does not
 * decode, or the checksum differs), TERSE_ELENGTH (the block decodes to a length other than
 * original_size). On any error the decoded bytes are wiped and dst must not be used. Allocates
 * (libc) only for the legacy array form of the block, a scratch copy of block-length bytes,
 * after all checks passed.
 */
int terse_envelope_retrieve(const void *env, size_t env_len, void *dst, size_t dst_cap,
                            size_t *dst_len, char *format, size_t format_cap);

/* What terse_envelope_inspect reports: views into the caller's env, valid while it is. */
typedef struct terse_envelope_info {
    uint64_t original_size; /* bytes retrieve produces, <= TERSE_ENVELOPE_MAX */
    uint64_t checksum;      /* XXH3-64 of the original bytes, as the envelope declares it */
    size_t block_len;       /* bytes of the LZ4 block (legacy form: its element count) */
    int legacy;             /* 1: the block is the legacy array of integers, 0: bin */
    const char *format;     /* the format string, NOT NUL-terminated: format_len bytes */
    size_t format_len;
} terse_envelope_info;

/*
 * terse_envelope_inspect: runs every check of terse_envelope_size (nothing is decompressed, so
 * the checksum is not verified) and describes env. env: borrowed; info: output. Returns what
 * terse_envelope_size returns (TERSE_EINVAL for NULL info). Does not allocate; any thread.
 */
int terse_envelope_inspect(const void *env, size_t env_len, terse_envelope_info *info);

/*
 * terse_ctx: an explicit codec context (LZ4 state, allocator) for callers that want no
 * thread-local state and their own allocator. terse_ctx_create: alloc may be NULL (libc);
 * returns TERSE_OK, TERSE_EINVAL (NULL out) or TERSE_ENOMEM (nothing leaked). One thread at a
 * time per context. terse_ctx_destroy frees *pp and sets it NULL; NULL-safe.
 */
int terse_ctx_create(terse_ctx **out, const terse_allocator *alloc);
void terse_ctx_destroy(terse_ctx **pp);

/* As terse_envelope_store / terse_envelope_retrieve, with c's LZ4 state and allocator (the
 * legacy-form scratch copy comes from c's allocator; TERSE_ENOMEM if it fails). */
int terse_envelope_store_ctx(terse_ctx *c, const void *src, size_t src_len, const char *format,
                             void *dst, size_t dst_cap, size_t *dst_len);
int terse_envelope_retrieve_ctx(terse_ctx *c, const void *env, size_t env_len, void *dst,
                                size_t dst_cap, size_t *dst_len, char *format,
                                size_t format_cap);

#ifdef __cplusplus
}
#endif

#endif /* TERSE_TERSE_H */
