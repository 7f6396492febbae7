/*
 * persist_rdb_rbase: the RDB reader's primitives: bytes, lengths, counts and strings (raw,
 * integer-encoded, LZF). Every read is bounded by the payload; the reader's status is sticky
 * (the first failure is kept with its offset and reason, later reads return it).
 */
#include "persist/persist_rdb_internal.h"

#include <liblzf/lzf.h>
#include <string.h>

#include "terse/status.h"

/* ---- primitives ------------------------------------------------------------------------------ */

int rdb_r_fail(struct rdb_r *r, int st, const char *why)
{
    if (r->st == TERSE_OK) {
        r->st = st;
        r->err_off = (size_t)(r->p - r->start);
        r->why = why;
    }
    return r->st;
}

int rdb_r_raw(struct rdb_r *r, const uint8_t **p, size_t n)
{
    if (r->st != TERSE_OK) {
        return r->st;
    }
    if (n > (size_t)(r->end - r->p)) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "truncated");
    }
    *p = r->p;
    r->p += n;
    return TERSE_OK;
}

int rdb_r_byte(struct rdb_r *r, uint8_t *b)
{
    const uint8_t *p;
    int st = rdb_r_raw(r, &p, 1);

    if (st == TERSE_OK) {
        *b = *p;
    }
    return st;
}

int rdb_r_len(struct rdb_r *r, uint64_t *len, bool *enc)
{
    const uint8_t *p;
    uint8_t b;
    int n;

    if (rdb_r_byte(r, &b) != TERSE_OK) {
        return r->st;
    }
    if (enc != NULL) {
        *enc = false;
    }
    switch (b >> 6) {
    case 0:
        *len = b & 0x3F;
        return TERSE_OK;
    case 1:
        if (rdb_r_raw(r, &p, 1) != TERSE_OK) {
            return r->st;
        }
        *len = (uint64_t)(b & 0x3F) << 8 | p[0];
        return TERSE_OK;
    case 2:
        if (b != 0x80 && b != 0x81) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "unknown length encoding");
        }
        n = b == 0x80 ? 4 : 8;
        if (rdb_r_raw(r, &p, (size_t)n) != TERSE_OK) {
            return r->st;
        }
        *len = 0;
        for (int i = 0; i < n; i++) {
            *len = *len << 8 | p[i];
        }
        return TERSE_OK;
    default:
        if (enc == NULL) {
            return rdb_r_fail(r, TERSE_ECORRUPT, "an encoded string where a length belongs");
        }
        *enc = true;
        *len = b & 0x3F;
        return TERSE_OK;
    }
}

int rdb_r_count(struct rdb_r *r, uint64_t *n, size_t min_bytes)
{
    if (rdb_r_len(r, n, NULL) != TERSE_OK) {
        return r->st;
    }
    if (*n > (size_t)(r->end - r->p) / min_bytes) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "a count beyond the payload");
    }
    return TERSE_OK;
}

static int read_lzf(struct rdb_r *r, struct rdb_str *s, struct persist_rdb_buf *buf)
{
    uint64_t clen, ulen;
    const uint8_t *src;

    if (rdb_r_len(r, &clen, NULL) != TERSE_OK || rdb_r_len(r, &ulen, NULL) != TERSE_OK ||
        rdb_r_raw(r, &src, clen) != TERSE_OK) {
        return r->st;
    }
    if (ulen == 0 || clen == 0 || clen > UINT32_MAX || ulen > CODEC_VALUE_MAX ||
        ulen > clen * RDB_LZF_RATIO_MAX) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "an LZF block of impossible size");
    }
    buf->len = 0;
    if (rdb_buf_reserve(&r->w->alloc, buf, (size_t)ulen) != TERSE_OK) {
        return rdb_r_fail(r, TERSE_ENOMEM, "out of memory");
    }
    if (lzf_decompress(src, (unsigned)clen, buf->p, (unsigned)ulen) != ulen) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "an LZF block that does not decompress");
    }
    s->p = buf->p;
    s->len = (size_t)ulen;
    return TERSE_OK;
}

int rdb_r_string(struct rdb_r *r, struct rdb_str *s, struct persist_rdb_buf *buf)
{
    uint64_t len;
    bool enc;
    const uint8_t *p;

    if (rdb_r_len(r, &len, &enc) != TERSE_OK) {
        return r->st;
    }
    if (!enc) {
        if (rdb_r_raw(r, &s->p, len) != TERSE_OK) {
            return r->st;
        }
        s->len = (size_t)len;
        return TERSE_OK;
    }
    if (len == RDB_ENC_LZF) {
        return read_lzf(r, s, buf);
    }
    if (len > RDB_ENC_INT32) {
        return rdb_r_fail(r, TERSE_ECORRUPT, "unknown string encoding");
    }
    if (rdb_r_raw(r, &p, (size_t)1 << len) != TERSE_OK) {
        return r->st;
    }
    {
        int n = 1 << len;
        long long v = (long long)(int64_t)(rdb_get_le(p, n) << (64 - 8 * n)) >> (64 - 8 * n);
        s->len = rdb_format_ll(s->num, v);
        s->p = (const uint8_t *)s->num;
    }
    return TERSE_OK;
}
