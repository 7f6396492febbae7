/*
 * persist_rdb_sink: where the RDB writer's bytes go (struct rdb_w: the caller's buffer, or a
 * block buffer flushed to a file descriptor with the CRC-64 of everything written), RDB
 * lengths and strings (integer encodings, LZF), and listpack entries, sized exactly before
 * they are written so a listpack's total can lead it.
 */
#include "persist/persist_rdb_internal.h"

#include <errno.h>
#include <liblzf/lzf.h>
#include <string.h>
#include <unistd.h>

#include "store/form/store_zset.h"
#include "terse/status.h"

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

int rdb_w_zset_pair(struct rdb_w *w, const struct store_hash_kv *kv)
{
    uint8_t b[8];
    double d;
    uint64_t u;

    if (kv->vlen != STORE_ZSET_SCORE_LEN) {
        return TERSE_ECORRUPT;
    }
    d = store_zset_score(kv->v);
    memcpy(&u, &d, sizeof(u));
    rdb_put_le(b, u, 8);
    rdb_w_string(w, kv->f, kv->flen);
    rdb_w_put(w, b, sizeof(b));
    return TERSE_OK;
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
