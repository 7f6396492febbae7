/*
 * codec_value_dict: zstd dictionaries for the value codec: training one from samples
 * (codec_dict_train) and registering or removing one on a context (codec_ctx_dict_add,
 * _remove). A registered dictionary is digested once for each direction into static zstd
 * objects in memory the context's allocator gives (struct codec_dict), and the context's one
 * compression context is grown to the largest need of any dictionary, so a warm encode or
 * decode never allocates.
 */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStatic*, ZSTD_estimate*: zstd objects in our memory */
#include "codec/codec_value.h"

#include "codec/codec_value_internal.h"
#include "terse/status.h"

#include <limits.h>
#include <string.h>
#include <zdict.h>
#include <zstd.h>

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

/* Places a static CCtx in mem (cap bytes) with the frame options of codec_value.c's file
 * comment (the value header carries length, checksum and dictionary id). */
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
        level > ZSTD_maxCLevel() || codec_dict_find(c, id) != NULL) {
        return TERSE_EINVAL;
    }
    slot = codec_dict_find(c, 0);
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
    d = id != 0 ? codec_dict_find(c, id) : NULL;
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
