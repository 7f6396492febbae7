/*
 * persist_rdb_util: what the RDB writer and reader share: growable buffers, Redis's integer
 * spelling and the CRC-64 (the writer's sink and listpack entries: persist_rdb_sink.c).
 *
 * CRC-64: Redis's crc64.c is CRC-64/Jones, reflected, init 0, no final xor; its check value
 * crc64(0, "123456789") is 0xe9c6d914c4b8d9ca. libisal's crc64_jones_refl(seed, ...) computes
 * the same polynomial reflected, but inverts the CRC on entry and on exit (its seed is the
 * previous result, so its check value for seed 0 is 0x3558e8e979f60d7e). Redis's CRC from crc
 * is therefore ~crc64_jones_refl(~crc, p, n): measured on this machine (libisal 2.30), it gives
 * 0xe9c6d914c4b8d9ca for "123456789", and tests/unit/persist/test_persist_rdb.c checks it.
 */
#include "persist/persist_rdb_internal.h"

#include <isa-l/crc64.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
