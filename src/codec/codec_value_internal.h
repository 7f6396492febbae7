/*
 * codec_value_internal: what the files of the value codec share (codec_value.c,
 * codec_value_write.c, codec_value_read.c, codec_value_dict.c); nothing outside them
 * includes it. The header writer and the dictionary lookup sit on every encode and decode,
 * so they are static inline here, as they were inside one file (the raw encode's budget is
 * ~250 Ir: bench/perf_ir_baselines.json).
 */
#ifndef TERSE_CODEC_VALUE_INTERNAL_H
#define TERSE_CODEC_VALUE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "codec/codec_value.h"
#include "codec/codec_varint.h"
#include "terse/alloc.h"

#define CODEC_CHECKSUM_LEN 8 /* xxh3-64 of the original bytes, little endian */

/*
 * One registered dictionary, digested once for each direction. Every zstd object here is
 * "static" (placed by zstd in memory we allocate through the context's allocator and sized by
 * zstd's own estimate): zstd never allocates behind our back, a warm encode or decode cannot
 * allocate at all, and a failed allocation is ours to report (libzstd 1.5.4 crashes in
 * ZSTD_createCDict_advanced when its allocator fails).
 */
struct codec_dict {
    uint32_t id;               /* 1..UINT32_MAX; 0 marks a free slot */
    const ZSTD_CDict *cdict;   /* lives in cmem */
    const ZSTD_DDict *ddict;   /* lives in dmem */
    void *cmem;                /* owned: ZSTD_estimateCDictSize_advanced bytes */
    void *dmem;                /* owned: ZSTD_estimateDDictSize bytes */
};

struct codec_ctx {
    terse_allocator alloc; /* copy of the creator's allocator (or the libc one) */
    void *lz4_state;       /* LZ4_sizeofState() bytes, initialised once, owned */
    ZSTD_CCtx *zcctx;      /* static, in zcctx_mem; made with the first dictionary, reused */
    void *zcctx_mem;       /* owned, zcctx_cap bytes: the largest need of any dictionary */
    size_t zcctx_cap;
    ZSTD_DCtx *zdctx;      /* static, in zdctx_mem (ZSTD_estimateDCtxSize bytes), reused */
    void *zdctx_mem;       /* owned */
    const ZSTD_CDict *zcdict_ref; /* the CDict zcctx references now (NULL: none) */
    struct codec_dict dicts[CODEC_DICT_MAX]; /* unordered; id 0 = free */
    struct codec_stats stats;
    void *lz4hc_state;     /* LZ4_sizeofStateHC() bytes, owned; NULL until a level > FAST */
    int level;             /* codec_value_recompress's level, CODEC_LEVEL_FAST..MAX */
};

/* ---- header (layout in codec_value.c) ---- */

/* Parses and checks the header of a stored value of n bytes (the invariants of codec_value.c's
 * file comment); *info and *sum (the checksum it carries) on TERSE_OK, else TERSE_ECORRUPT.
 * In codec_value_read.c. */
int codec_header_parse(const uint8_t *p, size_t n, struct codec_value_info *info,
                       uint64_t *sum);

static inline void
codec_u64_put_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < CODEC_CHECKSUM_LEN; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline __attribute__((always_inline)) size_t
codec_header_len(size_t orig_len)
{
    return 1 + codec_varint_len(orig_len) + CODEC_CHECKSUM_LEN;
}

/* Inlined on purpose: it sits on every encode, and the raw encode's budget is ~250 Ir. */
static inline __attribute__((always_inline)) size_t
codec_header_put(uint8_t *p, enum codec_kind kind, size_t orig_len, uint64_t sum, uint32_t dict_id)
{
    size_t n = 0;

    p[n++] = (uint8_t)((CODEC_VALUE_VERSION << 4) | (unsigned)kind);
    n += codec_varint_put(p + n, orig_len);
    codec_u64_put_le(p + n, sum);
    n += CODEC_CHECKSUM_LEN;
    if (kind == CODEC_ZSTD) {
        for (int i = 0; i < CODEC_DICT_ID_LEN; i++) {
            p[n++] = (uint8_t)(dict_id >> (8 * i));
        }
    }
    return n;
}

/* The longest LZ4 payload kept for an original of orig_len bytes (CODEC_LZ4_KEEP_SHIFT). */
static inline size_t
codec_lz4_keep_max(size_t orig_len)
{
    return orig_len - (orig_len >> CODEC_LZ4_KEEP_SHIFT);
}

/* The context's dictionary of this id, or NULL (id 0: a free slot). */
static inline struct codec_dict *
codec_dict_find(struct codec_ctx *c, uint32_t id)
{
    for (size_t i = 0; i < CODEC_DICT_MAX; i++) {
        if (c->dicts[i].id == id) {
            return &c->dicts[i];
        }
    }
    return NULL;
}

#endif /* TERSE_CODEC_VALUE_INTERNAL_H */
