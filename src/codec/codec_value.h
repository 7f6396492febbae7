/*
 * codec_value: the server's stored form of a string value (internal to terse; the cachekit
 * envelope in include/terse/ is the interchange format).
 *
 * A stored value is self-describing: a small header (codec kind, original length, xxHash3-64
 * checksum of the original bytes) followed by the payload. The layout is documented in
 * codec_value.c and docs/formats/value.md. Values under CODEC_RAW_MAX bytes are stored raw;
 * larger ones go through LZ4 and are kept compressed only when that saves enough
 * (CODEC_LZ4_KEEP_SHIFT). With a zstd dictionary registered on the context
 * (codec_ctx_dict_add) and named at encode time (codec_value_encode_dict), a value is
 * compressed with zstd and that dictionary, and records the dictionary's id. Every decode
 * verifies the checksum over the decoded bytes and never leaves unverified bytes reported as a
 * value: on TERSE_ECORRUPT the caller must not use dst (the decoder also zeroes what it wrote).
 *
 * Threading: a struct codec_ctx belongs to one shard thread; it is created once and reused
 * (LZ4 state, zstd contexts), never per call. Functions that take no ctx are pure and may be
 * called from any thread.
 */
#ifndef TERSE_CODEC_VALUE_H
#define TERSE_CODEC_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "terse/alloc.h"

#define CODEC_RAW_MAX 128 /* values shorter than this are never compressed */

/* Largest original value the codec accepts, in bytes (512 MiB). */
#define CODEC_VALUE_MAX ((size_t)512 * 1024 * 1024)

/* Stored-format version, the high nibble of the first stored byte. */
#define CODEC_VALUE_VERSION 1

/* Largest RAW/LZ4 header: version/kind byte + 5-byte varint length + 8-byte checksum. A ZSTD
 * header adds CODEC_DICT_ID_LEN (at most CODEC_HEADER_ZSTD_MAX), but a ZSTD value is kept only
 * when it is shorter than the RAW form, so CODEC_VALUE_BOUND covers every kind. */
#define CODEC_HEADER_MAX 14
#define CODEC_DICT_ID_LEN 4 /* ZSTD: the dictionary id, u32 little-endian, after the checksum */
#define CODEC_HEADER_ZSTD_MAX (CODEC_HEADER_MAX + CODEC_DICT_ID_LEN)

/* Constant-expression worst case of codec_value_bound(n), for n <= CODEC_VALUE_MAX. */
#define CODEC_VALUE_BOUND(n) ((size_t)(n) + CODEC_HEADER_MAX)

/*
 * An LZ4 payload is kept only if it is at most n - (n >> CODEC_LZ4_KEEP_SHIFT) bytes for an
 * original of n bytes, i.e. it saves at least 1/16; otherwise the value is stored raw.
 */
#define CODEC_LZ4_KEEP_SHIFT 4

/* Dictionaries a context holds at once; ids are 1..UINT32_MAX (0 means "no dictionary"). */
#define CODEC_DICT_MAX 16
/* zstd level codec_ctx_dict_add digests a dictionary for when given 0. */
#define CODEC_ZSTD_LEVEL_DEFAULT 3
/* A ZSTD value declares at most this many original bytes per payload byte (a zstd frame can
 * expand far more; the encoder falls back to LZ4/RAW beyond it, the reader refuses it). */
#define CODEC_ZSTD_RATIO_MAX 1000

enum codec_kind {
    CODEC_RAW = 0,
    CODEC_LZ4 = 1,
    CODEC_ZSTD = 2 /* zstd with a dictionary registered on the context, id in the header */
};

struct codec_ctx;

struct codec_value_info {
    enum codec_kind kind;
    size_t orig_len;    /* bytes of the original value, <= CODEC_VALUE_MAX */
    size_t payload_len; /* bytes of the stored payload (after the header) */
    size_t header_len;  /* bytes of the header, <= CODEC_HEADER_ZSTD_MAX */
    uint32_t dict_id;   /* ZSTD: the dictionary's id (>= 1); 0 for RAW and LZ4 */
};

/* Creates a context (LZ4 state; zstd contexts come with the first codec_ctx_dict_add). alloc
 * may be NULL (libc); it is copied, and the allocator it names must outlive the context.
 * *out is written only on success.
 * Returns TERSE_OK, TERSE_EINVAL (out == NULL) or TERSE_ENOMEM (nothing leaked). */
int codec_ctx_create(struct codec_ctx **out, const terse_allocator *alloc);
/* Frees *pp and sets it to NULL; NULL or *pp == NULL is a no-op. */
void codec_ctx_destroy(struct codec_ctx **pp);

/* Worst-case stored size for an original of src_len bytes (<= CODEC_VALUE_BOUND(src_len)).
 * Meaningless (but never overflowing) beyond CODEC_VALUE_MAX. */
size_t codec_value_bound(size_t src_len);

/*
 * Encodes src into dst (dst_cap bytes; codec_value_bound(src_len) always suffices).
 * src: borrowed, src_len bytes (may be NULL when src_len == 0). dst: output buffer.
 * Chooses the codec; *dst_len is the stored size. Returns TERSE_OK, TERSE_EDSTSIZE, TERSE_EINVAL
 * (NULL c, dst_len, or src with src_len > 0) or TERSE_ETOOBIG (src_len beyond 512 MiB,
 * CODEC_VALUE_MAX). Does not allocate. Nothing is written past dst_cap.
 */
int codec_value_encode(struct codec_ctx *c, const void *src, size_t src_len, void *dst,
                       size_t dst_cap, size_t *dst_len);

/* Parses the header only (cheap: no checksum, no dictionary lookup). stored: borrowed.
 * TERSE_OK or TERSE_ECORRUPT (bad version/kind, truncated or non-minimal length, lengths
 * inconsistent with the kind or beyond CODEC_VALUE_MAX, ZSTD dictionary id 0). TERSE_EINVAL if
 * info is NULL. */
int codec_value_info(const void *stored, size_t stored_len, struct codec_value_info *info);

/*
 * Decodes the whole value into dst (dst_cap >= orig_len) and verifies the checksum.
 * *dst_len = orig_len on success. Returns TERSE_OK, TERSE_EDSTSIZE (checked after the header
 * and before any byte is written), TERSE_ECORRUPT (bad header, payload or checksum: dst
 * contents are garbage and must not be used), TERSE_ENOTFOUND (a ZSTD value whose dictionary
 * is not registered on c: nothing written, not counted as corrupt), TERSE_EINVAL (NULL c or
 * dst_len). Never writes past dst_cap nor past orig_len. Does not allocate.
 */
int codec_value_decode(struct codec_ctx *c, const void *stored, size_t stored_len, void *dst,
                       size_t dst_cap, size_t *dst_len);

/*
 * Trains a zstd dictionary (ZDICT_trainFromBuffer) from samples: n_samples samples stored back
 * to back in `samples` (borrowed), sample i being sample_lens[i] bytes. dict: output buffer of
 * dict_cap bytes (100 KiB is zstd's usual size; at least 1 KiB); *dict_len its length.
 * Returns TERSE_OK, TERSE_EINVAL (NULL arguments, n_samples 0 or beyond UINT_MAX, dict_cap
 * below 1 KiB, or zstd refuses the samples: too few or too small). Slow (seconds for a few MB)
 * and allocates through libc inside libzstd: a background job, never a request path. Any
 * thread.
 */
int codec_dict_train(const void *samples, const size_t *sample_lens, size_t n_samples, void *dict,
                     size_t dict_cap, size_t *dict_len);

/*
 * Registers dictionary `dict` (borrowed: copied and digested here, once, into a zstd CDict and
 * DDict through c's allocator) under `id` (1..UINT32_MAX) on c. level: zstd level 1..19, 0
 * means CODEC_ZSTD_LEVEL_DEFAULT. The first call also creates c's reusable zstd compression and
 * decompression contexts. Returns TERSE_OK, TERSE_EINVAL (NULL c or dict, id 0, dict_len 0,
 * bad level, id already registered), TERSE_ETOOBIG (CODEC_DICT_MAX dictionaries registered),
 * TERSE_ENOMEM (nothing registered, nothing leaked). Allocates; the shard's thread.
 */
int codec_ctx_dict_add(struct codec_ctx *c, uint32_t id, const void *dict, size_t dict_len,
                       int level);

/* Unregisters and frees dictionary id; values that name it then decode to TERSE_ENOTFOUND.
 * Returns TERSE_OK, TERSE_EINVAL (NULL c) or TERSE_ENOTFOUND. */
int codec_ctx_dict_remove(struct codec_ctx *c, uint32_t id);

/*
 * As codec_value_encode, with dictionary dict_id (0: no dictionary, exactly codec_value_encode).
 * For src_len >= CODEC_RAW_MAX the value is compressed with zstd and that dictionary (the
 * context's CCtx, reused) and kept as ZSTD if it is at most
 * src_len - (src_len >> CODEC_LZ4_KEEP_SHIFT) - CODEC_DICT_ID_LEN payload bytes and within
 * CODEC_ZSTD_RATIO_MAX; otherwise it goes the LZ4/RAW way. Same returns as codec_value_encode,
 * plus TERSE_ENOTFOUND (dict_id not registered: nothing written). Does not allocate.
 */
int codec_value_encode_dict(struct codec_ctx *c, uint32_t dict_id, const void *src,
                            size_t src_len, void *dst, size_t dst_cap, size_t *dst_len);

/*
 * A RAW value read in place: verifies the checksum over its payload and points *p at it
 * (*len bytes, inside stored; valid as long as stored is). TERSE_OK; TERSE_MORE when the value
 * is compressed (decode it instead); TERSE_ECORRUPT on a bad header or checksum. No copy, no
 * allocation.
 */
int codec_value_view(struct codec_ctx *c, const void *stored, size_t stored_len,
                     const uint8_t **p, size_t *len);

/* Flips one byte of the stored form (DEBUG CORRUPT-VALUE) so that the next decode fails:
 * a RAW payload's middle byte; an LZ4 block's last byte (always a literal, so the decoded bytes
 * change: a byte in the middle could be a match offset whose flip decodes to the same value);
 * a ZSTD payload's first byte (the frame magic: the frame no longer decodes); the first checksum
 * byte when the payload is empty. An unparsable header gets its middle
 * byte flipped. NULL or stored_len == 0 is a no-op. */
void codec_value_corrupt(void *stored, size_t stored_len);

/* ---- background compression (a value stored RAW first, compressed later) ---------------- */

/* Levels of codec_ctx_level_set: CODEC_LEVEL_FAST is the LZ4 acceleration codec_value_encode
 * uses; 1..CODEC_LEVEL_MAX are LZ4HC levels (smaller output, slower encode; the output is an
 * ordinary LZ4 block, so decoding costs the same). */
#define CODEC_LEVEL_FAST 0
#define CODEC_LEVEL_MAX 12

/*
 * Writes src in the RAW kind whatever its length (a memcpy and the xxHash3 checksum), for a
 * value to be compressed later by codec_value_recompress. Same arguments and returns as
 * codec_value_encode, but takes no context: pure, counts nothing, any thread.
 * dst_cap >= codec_value_bound(src_len) always suffices.
 */
int codec_value_encode_raw(const void *src, size_t src_len, void *dst, size_t dst_cap,
                           size_t *dst_len);

/*
 * Sets the level codec_value_recompress compresses at (CODEC_LEVEL_FAST..CODEC_LEVEL_MAX).
 * A level above CODEC_LEVEL_FAST needs the LZ4HC state (LZ4_sizeofStateHC(), about 256 KiB),
 * allocated here through c's allocator the first time and kept until codec_ctx_destroy, so
 * recompressing never allocates. Returns TERSE_OK, TERSE_EINVAL (NULL c, level out of range:
 * nothing changed) or TERSE_ENOMEM (the level is unchanged). The shard's thread.
 */
int codec_ctx_level_set(struct codec_ctx *c, int level);
/* The level codec_value_recompress compresses at now. */
int codec_ctx_level(const struct codec_ctx *c);

/*
 * Compresses a stored RAW value (as written by codec_value_encode_raw or codec_value_encode)
 * into dst at the context's level (codec_ctx_level_set; CODEC_LEVEL_FAST by default), keeping
 * it only under codec_value_encode's rule (at least 1/16 saved, CODEC_LZ4_KEEP_SHIFT).
 * stored: borrowed. On TERSE_OK *dst_len is the new stored length (LZ4 kind), or 0 when the
 * value stays as it is (too short, does not compress enough, or not RAW): nothing written.
 * dst_cap >= stored_len always suffices. The checksum is carried over from the RAW header,
 * not recomputed: bytes damaged while held raw still fail verification once compressed.
 * Counts the outcome in n_encoded (LZ4, or RAW when it stays raw). Returns TERSE_OK,
 * TERSE_ECORRUPT (the header does not parse: nothing written), TERSE_EINVAL (NULL c or
 * dst_len). Does not allocate. The shard's thread.
 */
int codec_value_recompress(struct codec_ctx *c, const void *stored, size_t stored_len, void *dst,
                           size_t dst_cap, size_t *dst_len);

/* Counters of one context, for INFO's terse section. */
struct codec_stats {
    uint64_t n_encoded[3];    /* values encoded per codec kind */
    uint64_t n_decoded;       /* successful decodes */
    uint64_t n_corrupt;       /* decodes that failed verification */
};
void codec_ctx_stats(const struct codec_ctx *c, struct codec_stats *out);

#endif /* TERSE_CODEC_VALUE_H */
