/*
 * persist_rdb_util: what the RDB writer and reader share: growable buffers, Redis's integer
 * spelling, the CRC-64, the writer's sink and listpack entries.
 *
 * CRC-64: Redis's crc64.c is CRC-64/Jones, reflected, init 0, no final xor; its check value
 * crc64(0, "123456789") is 0xe9c6d914c4b8d9ca. libisal's crc64_jones_refl(seed, ...) computes
 * the same polynomial reflected, but inverts the CRC on entry and on exit (its seed is the
 * previous result, so its check value for seed 0 is 0x3558e8e979f60d7e). Redis's CRC from crc
 * is therefore ~crc64_jones_refl(~crc, p, n): measured on this machine (libisal 2.30), it gives
 * 0xe9c6d914c4b8d9ca for "123456789", and tests/unit/persist/test_persist_rdb.c checks it.
 */
#include "persist/persist_rdb_internal.h"

#include <errno.h>
#include <isa-l/crc64.h>
#include <limits.h>
#include <liblzf/lzf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "terse/status.h"

/* ---- buffers -------------------------------------------------------------------------------- */

static void *a_alloc(const terse_allocator *a, size_t n)
{
    return a != NULL && a->alloc != NULL ? a->alloc(a->opaque, n) : malloc(n);
}

static void a_free(const terse_allocator *a, void *p)
{
    if (a != NULL && a->alloc != NULL) {
        a->free(a->opaque, p);
    } else {
        free(p);
    }
}

int rdb_buf_reserve(const terse_allocator *a, struct persist_rdb_buf *b, size_t n)
{
    size_t ncap;
    uint8_t *np;

    if (n <= b->cap) {
        return TERSE_OK;
    }
    ncap = b->cap < 256 ? 256 : b->cap;
    while (ncap < n) {
        ncap = ncap > SIZE_MAX / 2 ? n : ncap * 2;
    }
    np = a_alloc(a, ncap);
    if (np == NULL) {
        return TERSE_ENOMEM;
    }
    if (b->len > 0) {
        memcpy(np, b->p, b->len);
    }
    a_free(a, b->p);
    b->p = np;
    b->cap = ncap;
    return TERSE_OK;
}

int rdb_buf_put(const terse_allocator *a, struct persist_rdb_buf *b, const void *p, size_t n)
{
    int st;

    if (n > CODEC_VALUE_MAX || b->len > CODEC_VALUE_MAX - n) {
        return TERSE_ETOOBIG;
    }
    st = rdb_buf_reserve(a, b, b->len + n);
    if (st != TERSE_OK) {
        return st;
    }
    if (n > 0) {
        memcpy(b->p + b->len, p, n);
    }
    b->len += n;
    return TERSE_OK;
}

void rdb_buf_free(const terse_allocator *a, struct persist_rdb_buf *b)
{
    a_free(a, b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void persist_rdb_work_init(struct persist_rdb_work *w, const terse_allocator *alloc)
{
    memset(w, 0, sizeof(*w));
    if (alloc != NULL) {
        w->alloc = *alloc;
    }
}

void persist_rdb_work_deinit(struct persist_rdb_work *w)
{
    persist_rdb_work_trim(w, 0);
}

void persist_rdb_work_trim(struct persist_rdb_work *w, size_t keep)
{
    struct persist_rdb_buf *all[] = {&w->out, &w->blob, &w->str, &w->elems, &w->arr};

    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (all[i]->cap > keep) {
            rdb_buf_free(&w->alloc, all[i]);
        }
    }
}

/* ---- integers ------------------------------------------------------------------------------ */

bool rdb_parse_ll(const uint8_t *p, size_t n, long long *v)
{
    unsigned long long u = 0;
    size_t i = 0;
    bool neg = false;

    if (n == 0 || n > 20) {
        return false;
    }
    if (n == 1 && p[0] == '0') {
        *v = 0;
        return true;
    }
    if (p[0] == '-') {
        neg = true;
        i = 1;
        if (n == 1) {
            return false;
        }
    }
    if (p[i] < '1' || p[i] > '9') {
        return false;
    }
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') {
            return false;
        }
        if (u > (ULLONG_MAX - (unsigned)(p[i] - '0')) / 10) {
            return false;
        }
        u = u * 10 + (unsigned)(p[i] - '0');
    }
    if (neg) {
        if (u > (unsigned long long)LLONG_MAX + 1) {
            return false;
        }
        *v = u == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)u;
    } else {
        if (u > (unsigned long long)LLONG_MAX) {
            return false;
        }
        *v = (long long)u;
    }
    return true;
}

size_t rdb_format_ll(char *buf, long long v)
{
    return (size_t)snprintf(buf, 21, "%lld", v);
}

uint64_t persist_rdb_crc64(uint64_t crc, const void *p, size_t n)
{
    return ~crc64_jones_refl(~crc, p, n);
}

/* ---- the sink ------------------------------------------------------------------------------- */

void rdb_w_fail(struct rdb_w *w, int st)
{
    if (w->st == TERSE_OK) {
        w->st = st;
    }
}

static void write_fd(struct rdb_w *w, const uint8_t *p, size_t n)
{
    size_t done = 0;

    w->crc = persist_rdb_crc64(w->crc, p, n);
    while (done < n && w->st == TERSE_OK) {
        ssize_t k = write(w->fd, p + done, n - done);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            rdb_w_fail(w, TERSE_EIO);
            return;
        }
        done += (size_t)k;
    }
    w->flushed += n;
}

void rdb_w_flush(struct rdb_w *w)
{
    if (w->fd >= 0 && w->len > 0 && w->st == TERSE_OK) {
        write_fd(w, w->buf, w->len);
        w->len = 0;
    }
}

void rdb_w_put(struct rdb_w *w, const void *p, size_t n)
{
    if (w->st != TERSE_OK || n == 0) {
        return;
    }
    if (w->fd < 0) {
        if (w->len < w->cap) {
            size_t k = w->cap - w->len < n ? w->cap - w->len : n;
            memcpy(w->buf + w->len, p, k);
        }
        w->len += n;
        return;
    }
    if (w->len + n > w->cap) {
        rdb_w_flush(w);
    }
    if (n >= w->cap) {
        write_fd(w, p, n);
        return;
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void rdb_w_byte(struct rdb_w *w, uint8_t b)
{
    rdb_w_put(w, &b, 1);
}

void rdb_w_len(struct rdb_w *w, uint64_t len)
{
    uint8_t b[9];

    if (len < (1 << 6)) {
        b[0] = (uint8_t)len;
        rdb_w_put(w, b, 1);
    } else if (len < (1 << 14)) {
        b[0] = (uint8_t)(0x40 | (len >> 8));
        b[1] = (uint8_t)len;
        rdb_w_put(w, b, 2);
    } else if (len <= UINT32_MAX) {
        b[0] = 0x80;
        for (int i = 0; i < 4; i++) {
            b[1 + i] = (uint8_t)(len >> (24 - 8 * i));
        }
        rdb_w_put(w, b, 5);
    } else {
        b[0] = 0x81;
        for (int i = 0; i < 8; i++) {
            b[1 + i] = (uint8_t)(len >> (56 - 8 * i));
        }
        rdb_w_put(w, b, 9);
    }
}

/* An integer encoding for v, as Redis's rdbEncodeInteger: 0 when v needs more than 32 bits. */
static size_t encode_int(long long v, uint8_t *b)
{
    if (v >= INT8_MIN && v <= INT8_MAX) {
        b[0] = 0xC0 | RDB_ENC_INT8;
        b[1] = (uint8_t)v;
        return 2;
    }
    if (v >= INT16_MIN && v <= INT16_MAX) {
        b[0] = 0xC0 | RDB_ENC_INT16;
        rdb_put_le(b + 1, (uint64_t)v, 2);
        return 3;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
        b[0] = 0xC0 | RDB_ENC_INT32;
        rdb_put_le(b + 1, (uint64_t)v, 4);
        return 5;
    }
    return 0;
}

void rdb_w_string_ll(struct rdb_w *w, long long v)
{
    uint8_t b[5];
    char num[24];
    size_t n = encode_int(v, b);

    if (n > 0) {
        rdb_w_put(w, b, n);
        return;
    }
    n = rdb_format_ll(num, v);
    rdb_w_len(w, n);
    rdb_w_put(w, num, n);
}

/* LZF when it saves bytes (Redis's rdbSaveLzfStringObject): 1 when written. */
static bool write_lzf(struct rdb_w *w, const uint8_t *p, size_t n)
{
    unsigned int clen;

    if (n <= 4 || n > UINT32_MAX || rdb_buf_reserve(w->alloc, &w->ztmp, n) != TERSE_OK) {
        return false; /* not an error: written raw */
    }
    clen = lzf_compress(p, (unsigned int)n, w->ztmp.p, (unsigned int)(n - 4));
    if (clen == 0) {
        return false;
    }
    rdb_w_byte(w, 0xC0 | RDB_ENC_LZF);
    rdb_w_len(w, clen);
    rdb_w_len(w, n);
    rdb_w_put(w, w->ztmp.p, clen);
    return true;
}

void rdb_w_string(struct rdb_w *w, const uint8_t *p, size_t n)
{
    long long v;
    uint8_t b[5];
    size_t k;

    /* Redis tries the integer encodings up to 11 bytes: a canonical spelling in 32 bits. */
    if (n <= 11 && rdb_parse_ll(p, n, &v) && (k = encode_int(v, b)) > 0) {
        rdb_w_put(w, b, k);
        return;
    }
    if (w->compress && n > RDB_LZF_MIN && write_lzf(w, p, n)) {
        return;
    }
    rdb_w_len(w, n);
    rdb_w_put(w, p, n);
}

void rdb_w_stream_id(struct rdb_w *w, uint64_t ms, uint64_t seq)
{
    uint8_t b[16];

    for (int i = 0; i < 8; i++) {
        b[i] = (uint8_t)(ms >> (56 - 8 * i));
        b[8 + i] = (uint8_t)(seq >> (56 - 8 * i));
    }
    rdb_w_put(w, b, 16);
}

/* ---- listpack entries ------------------------------------------------------------------------ */

static size_t backlen_size(size_t l)
{
    return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
}

static void put_backlen(struct rdb_w *w, size_t l)
{
    uint8_t b[5];
    size_t n = backlen_size(l);

    /* Most significant 7 bits first; every byte but the first has its high bit set. */
    for (size_t i = 0; i < n; i++) {
        b[i] = (uint8_t)((l >> (7 * (n - 1 - i))) & 127);
        if (i > 0) {
            b[i] |= 128;
        }
    }
    rdb_w_put(w, b, n);
}

static size_t int_enc_size(long long v)
{
    if (v >= 0 && v <= 127) {
        return 1;
    }
    if (v >= -4096 && v <= 4095) {
        return 2;
    }
    if (v >= INT16_MIN && v <= INT16_MAX) {
        return 3;
    }
    if (v >= -8388608 && v <= 8388607) {
        return 4;
    }
    return v >= INT32_MIN && v <= INT32_MAX ? 5 : 9;
}

static size_t str_enc_size(size_t n)
{
    return n < 64 ? 1 + n : n < 4096 ? 2 + n : 5 + n;
}

size_t rdb_lp_int_size(long long v)
{
    size_t l = int_enc_size(v);
    return l + backlen_size(l);
}

size_t rdb_lp_str_size(const uint8_t *p, size_t n)
{
    long long v;
    size_t l;

    if (n <= 20 && rdb_parse_ll(p, n, &v)) {
        return rdb_lp_int_size(v);
    }
    l = str_enc_size(n);
    return l + backlen_size(l);
}

void rdb_lp_put_int(struct rdb_w *w, long long v)
{
    uint8_t b[9];
    size_t l = int_enc_size(v);
    uint64_t u = (uint64_t)v;

    switch (l) {
    case 1:
        b[0] = (uint8_t)v;
        break;
    case 2:
        u &= 0x1fff; /* 13-bit two's complement */
        b[0] = (uint8_t)(0xC0 | (u >> 8));
        b[1] = (uint8_t)u;
        break;
    default:
        b[0] = l == 3 ? 0xF1 : l == 4 ? 0xF2 : l == 5 ? 0xF3 : 0xF4;
        rdb_put_le(b + 1, u, (int)l - 1);
        break;
    }
    rdb_w_put(w, b, l);
    put_backlen(w, l);
}

void rdb_lp_put_str(struct rdb_w *w, const uint8_t *p, size_t n)
{
    uint8_t b[5];
    size_t h;
    long long v;

    if (n <= 20 && rdb_parse_ll(p, n, &v)) {
        rdb_lp_put_int(w, v);
        return;
    }
    if (n < 64) {
        b[0] = (uint8_t)(0x80 | n);
        h = 1;
    } else if (n < 4096) {
        b[0] = (uint8_t)(0xE0 | (n >> 8));
        b[1] = (uint8_t)n;
        h = 2;
    } else {
        b[0] = 0xF0;
        rdb_put_le(b + 1, n, 4);
        h = 5;
    }
    rdb_w_put(w, b, h);
    rdb_w_put(w, p, n);
    put_backlen(w, h + n);
}

void rdb_lp_put_header(struct rdb_w *w, size_t total, size_t count)
{
    uint8_t b[RDB_LP_HEADER];

    rdb_put_le(b, total, 4);
    rdb_put_le(b + 4, count < RDB_LP_COUNT_UNKNOWN ? count : RDB_LP_COUNT_UNKNOWN, 2);
    rdb_w_put(w, b, sizeof(b));
}
