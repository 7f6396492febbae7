/*
 * codec_value_write: writing the stored form (layout in codec_value.c): codec_value_encode
 * and _encode_dict (zstd with a dictionary when one is named and it keeps, else LZ4 when it
 * saves 1/CODEC_LZ4_KEEP_SHIFT, else RAW), and the two halves of background compression: the
 * write path's cheap RAW form (codec_value_encode_raw) and its later recompression to LZ4
 * (codec_value_recompress, at the context's level: codec_ctx_level_set in codec_value.c).
 */
#define LZ4_STATIC_LINKING_ONLY /* LZ4_compress_fast_extState_fastReset: liblz4.a is linked */
#include "codec/codec_value.h"

#include "codec/codec_value_internal.h"
#include "codec/codec_sum.h"
#include "terse/status.h"

#include <lz4.h>
#define LZ4_HC_STATIC_LINKING_ONLY /* LZ4_compress_HC_extStateHC_fastReset */
#include <lz4hc.h>
#include <string.h>
#include <zstd.h>

/* ---- encode ------------------------------------------------------------------------------ */

/* Tries LZ4 into out (room bytes). Returns the block size if it meets the keep rule, else 0. */
static size_t
lz4_try(struct codec_ctx *c, const uint8_t *src, size_t src_len, uint8_t *out, size_t room)
{
    size_t keep = codec_lz4_keep_max(src_len);
    int n;

    if (room > keep) {
        room = keep; /* the library stops (returns 0) as soon as the block would not be kept */
    }
    /* src_len <= CODEC_VALUE_MAX < LZ4_MAX_INPUT_SIZE, so both fit in int. */
    n = LZ4_compress_fast_extState_fastReset(c->lz4_state, (const char *)src, (char *)out,
                                             (int)src_len, (int)room, 1);
    return n > 0 ? (size_t)n : 0;
}

/* Tries zstd with dictionary d into out (room bytes). Returns the frame size if it meets the
 * ZSTD invariants of codec_value.c's file comment, else 0. */
static size_t
zstd_try(struct codec_ctx *c, const struct codec_dict *d, const uint8_t *src, size_t src_len,
         uint8_t *out, size_t room)
{
    size_t keep = codec_lz4_keep_max(src_len) - CODEC_DICT_ID_LEN, n;

    if (room > keep) {
        room = keep; /* zstd stops with dstSize_tooSmall once the frame would not be kept */
    }
    if (c->zcdict_ref != d->cdict) { /* referencing is sticky: only on a change */
        if (ZSTD_isError(ZSTD_CCtx_refCDict(c->zcctx, d->cdict))) {
            return 0;
        }
        c->zcdict_ref = d->cdict;
    }
    n = ZSTD_compress2(c->zcctx, out, room, src, src_len);
    if (ZSTD_isError(n) || n == 0 || (uint64_t)src_len > (uint64_t)n * CODEC_ZSTD_RATIO_MAX) {
        return 0;
    }
    return n;
}

int
codec_value_encode(struct codec_ctx *c, const void *src, size_t src_len, void *dst,
                   size_t dst_cap, size_t *dst_len)
{
    return codec_value_encode_dict(c, 0, src, src_len, dst, dst_cap, dst_len);
}

int
codec_value_encode_dict(struct codec_ctx *c, uint32_t dict_id, const void *src,
                        size_t src_len, void *dst, size_t dst_cap, size_t *dst_len)
{
    const struct codec_dict *d = NULL;
    uint8_t *out = dst;
    size_t hlen, plen = 0;
    enum codec_kind kind = CODEC_RAW;
    uint64_t sum;

    if (c == NULL || dst_len == NULL || (src == NULL && src_len > 0)) {
        return TERSE_EINVAL;
    }
    if (src_len > CODEC_VALUE_MAX) {
        return TERSE_ETOOBIG;
    }
    if (dict_id != 0 && (d = codec_dict_find(c, dict_id)) == NULL) {
        return TERSE_ENOTFOUND;
    }
    hlen = codec_header_len(src_len);
    if (dst == NULL || dst_cap < hlen) {
        return TERSE_EDSTSIZE;
    }
    if (src_len >= CODEC_RAW_MAX && d != NULL && dst_cap - hlen > CODEC_DICT_ID_LEN) {
        plen = zstd_try(c, d, src, src_len, out + hlen + CODEC_DICT_ID_LEN,
                        dst_cap - hlen - CODEC_DICT_ID_LEN);
        if (plen > 0) {
            kind = CODEC_ZSTD;
            hlen += CODEC_DICT_ID_LEN;
        }
    }
    if (src_len >= CODEC_RAW_MAX && kind == CODEC_RAW) {
        plen = lz4_try(c, src, src_len, out + hlen, dst_cap - hlen);
        kind = plen > 0 ? CODEC_LZ4 : CODEC_RAW;
    }
    if (kind == CODEC_RAW) {
        if (dst_cap - hlen < src_len) {
            return TERSE_EDSTSIZE;
        }
        if (src_len > 0) {
            memcpy(out + hlen, src, src_len);
        }
        plen = src_len;
    }
    sum = codec_sum(src, src_len);
    codec_header_put(out, kind, src_len, sum, d != NULL ? d->id : 0);
    c->stats.n_encoded[kind]++;
    *dst_len = hlen + plen;
    return TERSE_OK;
}

/* ---- background compression -------------------------------------------------------------- */

int
codec_value_encode_raw(const void *src, size_t src_len, void *dst, size_t dst_cap,
                       size_t *dst_len)
{
    uint8_t *out = dst;
    size_t hlen;
    uint64_t sum;

    if (dst_len == NULL || (src == NULL && src_len > 0)) {
        return TERSE_EINVAL;
    }
    if (src_len > CODEC_VALUE_MAX) {
        return TERSE_ETOOBIG;
    }
    hlen = codec_header_len(src_len);
    if (dst == NULL || dst_cap < hlen || dst_cap - hlen < src_len) {
        return TERSE_EDSTSIZE;
    }
    if (src_len > 0) {
        memcpy(out + hlen, src, src_len);
    }
    sum = codec_sum(src, src_len);
    codec_header_put(out, CODEC_RAW, src_len, sum, 0);
    *dst_len = hlen + src_len;
    return TERSE_OK;
}

int
codec_value_recompress(struct codec_ctx *c, const void *stored, size_t stored_len, void *dst,
                       size_t dst_cap, size_t *dst_len)
{
    struct codec_value_info info;
    const uint8_t *payload;
    size_t room;
    uint64_t sum;
    int n;

    if (c == NULL || dst_len == NULL) {
        return TERSE_EINVAL;
    }
    if (stored == NULL || codec_header_parse(stored, stored_len, &info, &sum) != TERSE_OK) {
        return TERSE_ECORRUPT;
    }
    *dst_len = 0;
    if (info.kind != CODEC_RAW) {
        return TERSE_OK; /* already compressed: nothing to do, nothing counted */
    }
    if (info.orig_len < CODEC_RAW_MAX || dst == NULL || dst_cap <= info.header_len) {
        c->stats.n_encoded[CODEC_RAW]++;
        return TERSE_OK;
    }
    payload = (const uint8_t *)stored + info.header_len;
    /* The LZ4 header is the RAW one with another kind: same length varint, same checksum. */
    room = dst_cap - info.header_len;
    if (room > codec_lz4_keep_max(info.orig_len)) {
        /* the encoder gives up once it would not be kept */
        room = codec_lz4_keep_max(info.orig_len);
    }
    if (c->level > CODEC_LEVEL_FAST) {
        n = LZ4_compress_HC_extStateHC_fastReset(c->lz4hc_state, (const char *)payload,
                                                 (char *)dst + info.header_len,
                                                 (int)info.orig_len, (int)room, c->level);
    } else {
        n = LZ4_compress_fast_extState_fastReset(c->lz4_state, (const char *)payload,
                                                 (char *)dst + info.header_len,
                                                 (int)info.orig_len, (int)room, 1);
    }
    if (n <= 0) {
        c->stats.n_encoded[CODEC_RAW]++;
        return TERSE_OK;
    }
    codec_header_put(dst, CODEC_LZ4, info.orig_len, sum, 0);
    c->stats.n_encoded[CODEC_LZ4]++;
    *dst_len = info.header_len + (size_t)n;
    return TERSE_OK;
}
