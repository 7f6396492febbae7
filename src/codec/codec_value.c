/*
 * codec_value: stored form of a server string value (see codec_value.h, docs/formats/value.md).
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
#define LZ4_STATIC_LINKING_ONLY /* LZ4_compress_fast_extState_fastReset: liblz4.a is linked */
#include "codec/codec_value.h"

#include "codec/codec_alloc.h"

#include "codec/codec_varint.h"
#include "terse/status.h"

#include <limits.h>
#include <lz4.h>
#define LZ4_HC_STATIC_LINKING_ONLY /* LZ4_compress_HC_extStateHC_fastReset */
#include <lz4hc.h>
#include <string.h>
#include <xxhash.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStatic*, ZSTD_estimate*: zstd objects in our memory */
#include <zdict.h>
#include <zstd.h>

#define VARINT_MAX 5       /* ceil(30 bits / 7): enough for CODEC_VALUE_MAX */
#define CHECKSUM_LEN 8
#define LZ4_MAX_EXPANSION 255 /* an LZ4 block never decodes to more than 255x its size */

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

static void
u64_put_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < CHECKSUM_LEN; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static uint64_t
u64_get_le(const uint8_t *p)
{
    uint64_t v = 0;

    for (int i = 0; i < CHECKSUM_LEN; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static inline __attribute__((always_inline)) size_t
header_len_for(size_t orig_len)
{
    return 1 + codec_varint_len(orig_len) + CHECKSUM_LEN;
}

/* Inlined on purpose: it sits on every encode, and the raw encode's budget is ~250 Ir. */
static inline __attribute__((always_inline)) size_t
header_put(uint8_t *p, enum codec_kind kind, size_t orig_len, uint64_t sum, uint32_t dict_id)
{
    size_t n = 0;

    p[n++] = (uint8_t)((CODEC_VALUE_VERSION << 4) | (unsigned)kind);
    n += codec_varint_put(p + n, orig_len);
    u64_put_le(p + n, sum);
    n += CHECKSUM_LEN;
    if (kind == CODEC_ZSTD) {
        for (int i = 0; i < CODEC_DICT_ID_LEN; i++) {
            p[n++] = (uint8_t)(dict_id >> (8 * i));
        }
    }
    return n;
}

static size_t
lz4_keep_max(size_t orig_len)
{
    return orig_len - (orig_len >> CODEC_LZ4_KEEP_SHIFT);
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
               payload_len + CODEC_DICT_ID_LEN <= lz4_keep_max(orig_len) &&
               (uint64_t)orig_len <= (uint64_t)payload_len * CODEC_ZSTD_RATIO_MAX;
    }
    return orig_len >= CODEC_RAW_MAX && payload_len <= lz4_keep_max(orig_len) &&
           (uint64_t)orig_len <= (uint64_t)payload_len * LZ4_MAX_EXPANSION;
}

static int
header_parse(const uint8_t *p, size_t n, struct codec_value_info *info, uint64_t *sum)
{
    uint64_t orig = 0;
    size_t vlen, hlen;
    uint32_t dict_id = 0;
    unsigned kind;

    if (n < 1 + 1 + CHECKSUM_LEN || (p[0] >> 4) != CODEC_VALUE_VERSION) {
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
    hlen = 1 + vlen + CHECKSUM_LEN;
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
    return header_parse(stored, stored_len, info, &sum);
}

size_t
codec_value_bound(size_t src_len)
{
    if (src_len > CODEC_VALUE_MAX) {
        return CODEC_VALUE_BOUND(CODEC_VALUE_MAX);
    }
    return header_len_for(src_len) + src_len;
}

/* ---- encode ------------------------------------------------------------------------------ */

/* Tries LZ4 into out (room bytes). Returns the block size if it meets the keep rule, else 0. */
static size_t
lz4_try(struct codec_ctx *c, const uint8_t *src, size_t src_len, uint8_t *out, size_t room)
{
    size_t keep = lz4_keep_max(src_len);
    int n;

    if (room > keep) {
        room = keep; /* the library stops (returns 0) as soon as the block would not be kept */
    }
    /* src_len <= CODEC_VALUE_MAX < LZ4_MAX_INPUT_SIZE, so both fit in int. */
    n = LZ4_compress_fast_extState_fastReset(c->lz4_state, (const char *)src, (char *)out,
                                             (int)src_len, (int)room, 1);
    return n > 0 ? (size_t)n : 0;
}

static struct codec_dict *
dict_find(struct codec_ctx *c, uint32_t id)
{
    for (size_t i = 0; i < CODEC_DICT_MAX; i++) {
        if (c->dicts[i].id == id) {
            return &c->dicts[i];
        }
    }
    return NULL;
}

/* Tries zstd with dictionary d into out (room bytes). Returns the frame size if it meets the
 * ZSTD invariants of the file comment, else 0. */
static size_t
zstd_try(struct codec_ctx *c, const struct codec_dict *d, const uint8_t *src, size_t src_len,
         uint8_t *out, size_t room)
{
    size_t keep = lz4_keep_max(src_len) - CODEC_DICT_ID_LEN, n;

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
    if (dict_id != 0 && (d = dict_find(c, dict_id)) == NULL) {
        return TERSE_ENOTFOUND;
    }
    hlen = header_len_for(src_len);
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
    sum = src_len > 0 ? XXH3_64bits(src, src_len) : XXH3_64bits("", 0);
    header_put(out, kind, src_len, sum, d != NULL ? d->id : 0);
    c->stats.n_encoded[kind]++;
    *dst_len = hlen + plen;
    return TERSE_OK;
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
    if (stored == NULL || header_parse(stored, stored_len, &info, &sum) != TERSE_OK) {
        return decode_fail(c, out, 0);
    }
    if (info.orig_len > dst_cap || (dst == NULL && info.orig_len > 0)) {
        return TERSE_EDSTSIZE;
    }
    payload = (const uint8_t *)stored + info.header_len;
    if (info.kind == CODEC_ZSTD) {
        const struct codec_dict *d = dict_find(c, info.dict_id);
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
    if ((info.orig_len > 0 ? XXH3_64bits(out, info.orig_len) : XXH3_64bits("", 0)) != sum) {
        return decode_fail(c, out, info.orig_len);
    }
    c->stats.n_decoded++;
    *dst_len = info.orig_len;
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
    if (header_parse(p, stored_len, &info, &sum) != TERSE_OK) {
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
        at = info.header_len - CHECKSUM_LEN; /* first checksum byte */
    }
    p[at] ^= 0xff;
}

/* ---- dictionaries ------------------------------------------------------------------------ */

#define DICT_CAP_MIN 1024

int
codec_dict_train(const void *samples, const size_t *sample_lens, size_t n_samples, void *dict,
                 size_t dict_cap, size_t *dict_len)
{
    size_t n;

    if (samples == NULL || sample_lens == NULL || dict == NULL || dict_len == NULL ||
        n_samples == 0 || n_samples > UINT_MAX || dict_cap < DICT_CAP_MIN) {
        return TERSE_EINVAL;
    }
    n = ZDICT_trainFromBuffer(dict, dict_cap, samples, sample_lens, (unsigned)n_samples);
    if (ZDICT_isError(n)) {
        return TERSE_EINVAL;
    }
    *dict_len = n;
    return TERSE_OK;
}

/* What a static CCtx needs to compress with a dictionary digested at `level`, at any value
 * size up to CODEC_VALUE_MAX: the CDict's own parameters, or the ones zstd derives from the
 * source size (level, or zstd's default level for a CDict made by the advanced API). */
static size_t
cctx_need(int level, size_t dict_len, ZSTD_compressionParameters cp)
{
    size_t a = ZSTD_estimateCCtxSize_usingCParams(cp);
    size_t b = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, CODEC_VALUE_MAX,
                                                                   dict_len));
    size_t d = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(ZSTD_CLEVEL_DEFAULT,
                                                                   CODEC_VALUE_MAX, dict_len));

    a = a > b ? a : b;
    return a > d ? a : d;
}

/* Places a static CCtx in mem (cap bytes) with the frame options of the file comment. */
static ZSTD_CCtx *
cctx_place(void *mem, size_t cap)
{
    ZSTD_CCtx *z = ZSTD_initStaticCCtx(mem, cap);

    /* Our header carries length, checksum and dictionary id: the frame repeats none. */
    if (z == NULL || ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_dictIDFlag, 0))) {
        return NULL;
    }
    return z;
}

int
codec_ctx_dict_add(struct codec_ctx *c, uint32_t id, const void *dict, size_t dict_len,
                   int level)
{
    struct codec_dict *slot, d = { 0, NULL, NULL, NULL, NULL };
    ZSTD_compressionParameters cp;
    size_t csize, dsize, cneed, xsize = ZSTD_estimateDCtxSize();
    void *cctx_mem = NULL, *dctx_mem = NULL;
    ZSTD_CCtx *cctx = NULL;
    ZSTD_DCtx *dctx = NULL;
    int rc = TERSE_ENOMEM;

    if (level == 0) {
        level = CODEC_ZSTD_LEVEL_DEFAULT;
    }
    if (c == NULL || dict == NULL || dict_len == 0 || id == 0 || level < 1 ||
        level > ZSTD_maxCLevel() || dict_find(c, id) != NULL) {
        return TERSE_EINVAL;
    }
    slot = dict_find(c, 0);
    if (slot == NULL) {
        return TERSE_ETOOBIG;
    }
    /* Parameters for values of a few KiB: srcSize 0 = unknown, sized by the dictionary. */
    cp = ZSTD_getCParams(level, 0, dict_len);
    csize = ZSTD_estimateCDictSize_advanced(dict_len, cp, ZSTD_dlm_byCopy);
    dsize = ZSTD_estimateDDictSize(dict_len, ZSTD_dlm_byCopy);
    cneed = cctx_need(level, dict_len, cp);
    /* Everything this call needs is allocated first; on failure nothing changes. */
    d.cmem = c->alloc.alloc(c->alloc.opaque, csize);
    d.dmem = c->alloc.alloc(c->alloc.opaque, dsize);
    if (cneed > c->zcctx_cap) {
        cctx_mem = c->alloc.alloc(c->alloc.opaque, cneed);
    }
    if (c->zdctx == NULL) {
        dctx_mem = c->alloc.alloc(c->alloc.opaque, xsize);
    }
    if (d.cmem == NULL || d.dmem == NULL || (cneed > c->zcctx_cap && cctx_mem == NULL) ||
        (c->zdctx == NULL && dctx_mem == NULL)) {
        goto out;
    }
    rc = TERSE_EINVAL; /* from here on, only a dictionary zstd refuses can fail */
    d.cdict = ZSTD_initStaticCDict(d.cmem, csize, dict, dict_len, ZSTD_dlm_byCopy,
                                   ZSTD_dct_auto, cp);
    d.ddict = ZSTD_initStaticDDict(d.dmem, dsize, dict, dict_len, ZSTD_dlm_byCopy,
                                   ZSTD_dct_auto);
    if (cctx_mem != NULL) {
        cctx = cctx_place(cctx_mem, cneed);
    }
    if (dctx_mem != NULL) {
        dctx = ZSTD_initStaticDCtx(dctx_mem, xsize);
    }
    if (d.cdict == NULL || d.ddict == NULL || (cctx_mem != NULL && cctx == NULL) ||
        (dctx_mem != NULL && dctx == NULL)) {
        goto out;
    }
    if (cctx != NULL) { /* the larger context replaces the old one */
        c->alloc.free(c->alloc.opaque, c->zcctx_mem);
        c->zcctx = cctx;
        c->zcctx_mem = cctx_mem;
        c->zcctx_cap = cneed;
        c->zcdict_ref = NULL;
        cctx_mem = NULL;
    }
    if (dctx != NULL) {
        c->zdctx = dctx;
        c->zdctx_mem = dctx_mem;
        dctx_mem = NULL;
    }
    d.id = id;
    *slot = d;
    d.cmem = NULL;
    d.dmem = NULL;
    rc = TERSE_OK;
out:
    c->alloc.free(c->alloc.opaque, d.cmem);
    c->alloc.free(c->alloc.opaque, d.dmem);
    c->alloc.free(c->alloc.opaque, cctx_mem);
    c->alloc.free(c->alloc.opaque, dctx_mem);
    return rc;
}

int
codec_ctx_dict_remove(struct codec_ctx *c, uint32_t id)
{
    struct codec_dict *d;

    if (c == NULL) {
        return TERSE_EINVAL;
    }
    d = id != 0 ? dict_find(c, id) : NULL;
    if (d == NULL) {
        return TERSE_ENOTFOUND;
    }
    if (c->zcdict_ref == d->cdict) {
        (void)ZSTD_CCtx_refCDict(c->zcctx, NULL); /* never leave a dangling reference */
        c->zcdict_ref = NULL;
    }
    c->alloc.free(c->alloc.opaque, d->cmem);
    c->alloc.free(c->alloc.opaque, d->dmem);
    memset(d, 0, sizeof(*d));
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
    hlen = header_len_for(src_len);
    if (dst == NULL || dst_cap < hlen || dst_cap - hlen < src_len) {
        return TERSE_EDSTSIZE;
    }
    if (src_len > 0) {
        memcpy(out + hlen, src, src_len);
    }
    sum = src_len > 0 ? XXH3_64bits(src, src_len) : XXH3_64bits("", 0);
    header_put(out, CODEC_RAW, src_len, sum, 0);
    *dst_len = hlen + src_len;
    return TERSE_OK;
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
    if (stored == NULL || header_parse(stored, stored_len, &info, &sum) != TERSE_OK) {
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
    if (room > lz4_keep_max(info.orig_len)) {
        room = lz4_keep_max(info.orig_len); /* the encoder gives up once it would not be kept */
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
    header_put(dst, CODEC_LZ4, info.orig_len, sum, 0);
    c->stats.n_encoded[CODEC_LZ4]++;
    *dst_len = info.header_len + (size_t)n;
    return TERSE_OK;
}
