/*
 * codec_value: stored form of a server string value (see codec_value.h, docs/formats/value.md).
 * This file holds the format below, the context (create, destroy, stats, recompression level)
 * and codec_value_bound; the codec is split by job: codec_value_write.c (encode, the raw form,
 * background recompression), codec_value_read.c (the header reader, decode, the damage a
 * test or DEBUG asks for), codec_value_dict.c (zstd dictionaries); what they share is in
 * codec_value_internal.h.
 *
 *   byte 0        1 .. 5               +8                      payload_len bytes
 *   +-----------+--------------------+-----------------------+--------------------------+
 *   | ver | kind| orig_len (LEB128,  | xxh3-64 of the        | payload: the original    |
 *   | 4b  | 4b  | minimal, <= 512MiB)| ORIGINAL bytes, LE    | bytes (RAW) or an LZ4    |
 *   +-----------+--------------------+-----------------------+ block (LZ4)              |
 *                                                            +--------------------------+
 *   ZSTD (kind 2): the checksum is followed by the dictionary id (u32 LE, >= 1), then the
 *   payload is one zstd frame (no content size, no zstd checksum, no zstd dictionary id)
 *   compressed with that dictionary.
 *   payload_len = stored_len - header_len (the store keeps the stored length).
 *
 * Invariants every accepted header satisfies (and the encoder only produces):
 *   - version == CODEC_VALUE_VERSION, kind is RAW, LZ4 or ZSTD;
 *   - orig_len <= CODEC_VALUE_MAX and its varint is minimal (one spelling per length);
 *   - RAW: payload_len == orig_len;
 *   - LZ4: orig_len >= CODEC_RAW_MAX, payload_len <= orig_len - (orig_len >> KEEP_SHIFT) (the
 *     encoder's keep rule) and orig_len <= 255 * payload_len (LZ4's maximum expansion), so a
 *     corrupted length cannot ask for a huge destination from a tiny payload;
 *   - ZSTD: dict_id != 0, orig_len >= CODEC_RAW_MAX, payload_len + CODEC_DICT_ID_LEN <= the LZ4
 *     keep limit (so a ZSTD value is always shorter than its RAW form) and
 *     orig_len <= CODEC_ZSTD_RATIO_MAX * payload_len.
 *
 * Why LZ4 must save 1/16: a compressed value costs an LZ4 decode on every GET (about 0.24 us
 * per 128 B-1 KiB value here) where a raw one costs a memcpy; below ~6% saving the memory won is
 * smaller than the header noise of a few values and not worth that latency, and real cache
 * values that compress at all usually save far more (corpus average 2.25x).
 */
#include "codec/codec_value.h"

#include "codec/codec_alloc.h"
#include "codec/codec_value_internal.h"
#include "terse/status.h"

#include <lz4.h>
#include <lz4hc.h>
#include <string.h>

/* ---- context ----------------------------------------------------------------------------- */

int
codec_ctx_create(struct codec_ctx **out, const terse_allocator *alloc)
{
    terse_allocator a;
    struct codec_ctx *c;
    int lz4_size = LZ4_sizeofState();

    if (out == NULL || codec_alloc_pick(alloc, &a) != TERSE_OK) {
        return TERSE_EINVAL;
    }
    c = a.alloc(a.opaque, sizeof(*c));
    if (c == NULL) {
        return TERSE_ENOMEM;
    }
    memset(c, 0, sizeof(*c));
    c->alloc = a;
    c->lz4_state = a.alloc(a.opaque, (size_t)lz4_size);
    if (c->lz4_state == NULL) {
        a.free(a.opaque, c);
        return TERSE_ENOMEM;
    }
    /* The full table clear happens once here; encodes then use the cheap fast reset. */
    if (LZ4_initStream(c->lz4_state, (size_t)lz4_size) == NULL) {
        a.free(a.opaque, c->lz4_state);
        a.free(a.opaque, c);
        return TERSE_ENOMEM;
    }
    *out = c;
    return TERSE_OK;
}

void
codec_ctx_destroy(struct codec_ctx **pp)
{
    struct codec_ctx *c;

    if (pp == NULL || *pp == NULL) {
        return;
    }
    c = *pp;
    for (size_t i = 0; i < CODEC_DICT_MAX; i++) {
        c->alloc.free(c->alloc.opaque, c->dicts[i].cmem);
        c->alloc.free(c->alloc.opaque, c->dicts[i].dmem);
    }
    c->alloc.free(c->alloc.opaque, c->zcctx_mem);
    c->alloc.free(c->alloc.opaque, c->zdctx_mem);
    c->alloc.free(c->alloc.opaque, c->lz4_state);
    c->alloc.free(c->alloc.opaque, c->lz4hc_state);
    c->alloc.free(c->alloc.opaque, c);
    *pp = NULL;
}

void
codec_ctx_stats(const struct codec_ctx *c, struct codec_stats *out)
{
    if (out == NULL) {
        return;
    }
    if (c == NULL) {
        memset(out, 0, sizeof(*out));
        return;
    }
    *out = c->stats;
}

int
codec_ctx_level(const struct codec_ctx *c)
{
    return c->level;
}

int
codec_ctx_level_set(struct codec_ctx *c, int level)
{
    if (c == NULL || level < CODEC_LEVEL_FAST || level > CODEC_LEVEL_MAX) {
        return TERSE_EINVAL;
    }
    if (level > CODEC_LEVEL_FAST && c->lz4hc_state == NULL) {
        int size = LZ4_sizeofStateHC();
        void *st = c->alloc.alloc(c->alloc.opaque, (size_t)size);

        if (st == NULL) {
            return TERSE_ENOMEM;
        }
        /* The full clear happens once; recompressions use the fast reset. */
        if (LZ4_initStreamHC(st, (size_t)size) == NULL) {
            c->alloc.free(c->alloc.opaque, st);
            return TERSE_ENOMEM;
        }
        c->lz4hc_state = st;
    }
    c->level = level;
    return TERSE_OK;
}

size_t
codec_value_bound(size_t src_len)
{
    if (src_len > CODEC_VALUE_MAX) {
        return CODEC_VALUE_BOUND(CODEC_VALUE_MAX);
    }
    return codec_header_len(src_len) + src_len;
}
