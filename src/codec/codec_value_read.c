/*
 * codec_value_read: reading the stored form back (layout in codec_value.c). The header
 * reader (codec_header_parse, also behind codec_value_info and codec_value_recompress) checks
 * every invariant of the layout; a decode writes exactly orig_len bytes of room and verifies
 * the checksum over the decoded bytes before any of them counts as the value; and
 * codec_value_corrupt damages a stored value so that decoding it must fail (DEBUG
 * CORRUPT-VALUE, tests). The reader shares this file with decode so that the GET path's call
 * to it stays inside one object (a raw decode is ~270 Ir: bench/perf_ir_baselines.json).
 */
#include "codec/codec_value.h"

#include "codec/codec_value_internal.h"
#include "codec/codec_sum.h"
#include "terse/status.h"

#include <lz4.h>
#include <string.h>
#include <zstd.h>

#define VARINT_MAX 5       /* ceil(30 bits / 7): enough for CODEC_VALUE_MAX */
#define LZ4_MAX_EXPANSION 255 /* an LZ4 block never decodes to more than 255x its size */

/* ---- header ------------------------------------------------------------------------------ */

/* Reads a minimal LEB128 of at most VARINT_MAX bytes. Returns its length, or 0 if malformed. */
static size_t
varint_get(const uint8_t *p, size_t avail, uint64_t *v)
{
    uint64_t x = 0;
    size_t i;

    for (i = 0; i < avail && i < VARINT_MAX; i++) {
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if ((p[i] & 0x80) == 0) {
            if (i > 0 && p[i] == 0) {
                return 0; /* non-minimal: a length has exactly one spelling */
            }
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

static uint64_t
u64_get_le(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < CODEC_CHECKSUM_LEN; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

/* Checks the per-kind invariants of the file comment. */
static int
header_lengths_ok(enum codec_kind kind, size_t orig_len, size_t payload_len)
{
    if (kind == CODEC_RAW) {
        return payload_len == orig_len;
    }
    if (kind == CODEC_ZSTD) {
        return orig_len >= CODEC_RAW_MAX &&
               payload_len + CODEC_DICT_ID_LEN <= codec_lz4_keep_max(orig_len) &&
               (uint64_t)orig_len <= (uint64_t)payload_len * CODEC_ZSTD_RATIO_MAX;
    }
    return orig_len >= CODEC_RAW_MAX && payload_len <= codec_lz4_keep_max(orig_len) &&
           (uint64_t)orig_len <= (uint64_t)payload_len * LZ4_MAX_EXPANSION;
}

int
codec_header_parse(const uint8_t *p, size_t n, struct codec_value_info *info, uint64_t *sum)
{
    uint64_t orig = 0;
    size_t vlen, hlen;
    uint32_t dict_id = 0;
    unsigned kind;

    if (n < 1 + 1 + CODEC_CHECKSUM_LEN || (p[0] >> 4) != CODEC_VALUE_VERSION) {
        return TERSE_ECORRUPT;
    }
    kind = p[0] & 0x0f;
    if (kind != CODEC_RAW && kind != CODEC_LZ4 && kind != CODEC_ZSTD) {
        return TERSE_ECORRUPT;
    }
    vlen = varint_get(p + 1, n - 1, &orig);
    if (vlen == 0 || orig > CODEC_VALUE_MAX) {
        return TERSE_ECORRUPT;
    }
    hlen = 1 + vlen + CODEC_CHECKSUM_LEN;
    if (kind == CODEC_ZSTD) {
        hlen += CODEC_DICT_ID_LEN;
        if (n < hlen) {
            return TERSE_ECORRUPT;
        }
        for (int i = 0; i < CODEC_DICT_ID_LEN; i++) {
            dict_id |= (uint32_t)p[hlen - CODEC_DICT_ID_LEN + i] << (8 * i);
        }
        if (dict_id == 0) {
            return TERSE_ECORRUPT;
        }
    }
    if (n < hlen || !header_lengths_ok((enum codec_kind)kind, (size_t)orig, n - hlen)) {
        return TERSE_ECORRUPT;
    }
    info->kind = (enum codec_kind)kind;
    info->orig_len = (size_t)orig;
    info->header_len = hlen;
    info->payload_len = n - hlen;
    info->dict_id = dict_id;
    *sum = u64_get_le(p + 1 + vlen);
    return TERSE_OK;
}

int
codec_value_info(const void *stored, size_t stored_len, struct codec_value_info *info)
{
    uint64_t sum;

    if (info == NULL) {
        return TERSE_EINVAL;
    }
    if (stored == NULL) {
        return TERSE_ECORRUPT;
    }
    return codec_header_parse(stored, stored_len, info, &sum);
}

/* ---- decode ------------------------------------------------------------------------------ */

static int
decode_fail(struct codec_ctx *c, uint8_t *dst, size_t written)
{
    /* Unverified bytes are never left behind looking like a value. */
    if (written > 0) {
        memset(dst, 0, written);
    }
    c->stats.n_corrupt++;
    return TERSE_ECORRUPT;
}

int
codec_value_decode(struct codec_ctx *c, const void *stored, size_t stored_len, void *dst,
                   size_t dst_cap, size_t *dst_len)
{
    struct codec_value_info info;
    const uint8_t *payload;
    uint8_t *out = dst;
    uint64_t sum;
    int n;

    if (c == NULL || dst_len == NULL) {
        return TERSE_EINVAL;
    }
    if (stored == NULL || codec_header_parse(stored, stored_len, &info, &sum) != TERSE_OK) {
        return decode_fail(c, out, 0);
    }
    if (info.orig_len > dst_cap || (dst == NULL && info.orig_len > 0)) {
        return TERSE_EDSTSIZE;
    }
    payload = (const uint8_t *)stored + info.header_len;
    if (info.kind == CODEC_ZSTD) {
        const struct codec_dict *d = codec_dict_find(c, info.dict_id);
        size_t z;

        if (d == NULL) {
            return TERSE_ENOTFOUND; /* a missing dictionary is not damage to this value */
        }
        /* Capacity exactly orig_len: a frame that decodes to more fails instead. */
        z = ZSTD_decompress_usingDDict(c->zdctx, out, info.orig_len, payload, info.payload_len,
                                       d->ddict);
        if (ZSTD_isError(z) || z != info.orig_len) {
            return decode_fail(c, out, info.orig_len);
        }
    } else if (info.kind == CODEC_LZ4) {
        /* Capacity is exactly orig_len: a lying block cannot write past the declared size. */
        n = LZ4_decompress_safe((const char *)payload, (char *)out, (int)info.payload_len,
                                (int)info.orig_len);
        if (n < 0 || (size_t)n != info.orig_len) {
            return decode_fail(c, out, info.orig_len);
        }
    } else if (info.orig_len > 0) {
        memcpy(out, payload, info.orig_len);
    }
    if (codec_sum(out, info.orig_len) != sum) {
        return decode_fail(c, out, info.orig_len);
    }
    c->stats.n_decoded++;
    *dst_len = info.orig_len;
    return TERSE_OK;
}

int
codec_value_view(struct codec_ctx *c, const void *stored, size_t stored_len, const uint8_t **p,
                 size_t *len)
{
    struct codec_value_info info;
    const uint8_t *payload;
    uint64_t sum;

    if (stored == NULL || codec_header_parse(stored, stored_len, &info, &sum) != TERSE_OK) {
        return decode_fail(c, NULL, 0);
    }
    if (info.kind != CODEC_RAW) {
        return TERSE_MORE;
    }
    payload = (const uint8_t *)stored + info.header_len;
    if (codec_sum(payload, info.orig_len) != sum) {
        return decode_fail(c, NULL, 0);
    }
    c->stats.n_decoded++;
    *p = payload;
    *len = info.orig_len;
    return TERSE_OK;
}

void
codec_value_corrupt(void *stored, size_t stored_len)
{
    struct codec_value_info info;
    uint8_t *p = stored;
    uint64_t sum;
    size_t at;

    if (p == NULL || stored_len == 0) {
        return;
    }
    if (codec_header_parse(p, stored_len, &info, &sum) != TERSE_OK) {
        at = stored_len / 2; /* already unreadable: any byte will do */
    } else if (info.kind == CODEC_ZSTD) {
        at = info.header_len; /* the frame magic: the frame cannot decode any more */
    } else if (info.kind == CODEC_LZ4) {
        /* An encoder-made block ends in literals, so its last byte is a value byte: flipping it
         * always changes the decoded bytes. A byte in the middle could be a match offset that
         * happens to point at an identical copy and decode to the same, valid value. */
        at = stored_len - 1;
    } else if (info.payload_len > 0) {
        at = info.header_len + info.payload_len / 2;
    } else {
        at = info.header_len - CODEC_CHECKSUM_LEN; /* first checksum byte */
    }
    p[at] ^= 0xff;
}
