/*
 * core_buf: growable byte buffer (see core_buf.h for the layout and invariants).
 */
#include "core/core_buf.h"

#include <string.h>

#include "core/core_mem.h"
#include "terse/status.h"

void core_buf_init(struct core_buf *b)
{
    b->p = NULL;
    b->off = 0;
    b->len = 0;
    b->cap = 0;
}

void core_buf_deinit(struct core_buf *b)
{
    core_free(b->p);
    core_buf_init(b);
}

void core_buf_compact(struct core_buf *b)
{
    if (b->off == 0) {
        return;
    }
    memmove(b->p, b->p + b->off, b->len - b->off);
    b->len -= b->off;
    b->off = 0;
}

int core_buf_reserve(struct core_buf *b, size_t n)
{
    size_t need, ncap;
    uint8_t *np;

    if (b->cap - b->len >= n) {
        return TERSE_OK;
    }
    if (b->off > 0 && b->cap - (b->len - b->off) >= n) {
        core_buf_compact(b);
        return TERSE_OK;
    }
    core_buf_compact(b);
    if (n > SIZE_MAX - b->len) {
        return TERSE_ENOMEM;
    }
    need = b->len + n;
    ncap = b->cap < 1024 ? 1024 : b->cap;
    while (ncap < need) {
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    }
    np = core_realloc(b->p, ncap);
    if (np == NULL) {
        return TERSE_ENOMEM;
    }
    b->p = np;
    b->cap = ncap;
    return TERSE_OK;
}

void core_buf_consume(struct core_buf *b, size_t n)
{
    b->off += n;
    if (b->off >= b->len) {
        b->off = 0;
        b->len = 0;
    }
}

void core_buf_shrink(struct core_buf *b, size_t keep_cap)
{
    uint8_t *np;

    if (b->len != b->off || b->cap <= keep_cap) {
        return;
    }
    b->off = 0;
    b->len = 0;
    if (keep_cap == 0) {
        core_free(b->p);
        b->p = NULL;
        b->cap = 0;
        return;
    }
    np = core_realloc(b->p, keep_cap);
    if (np != NULL) {
        b->p = np;
        b->cap = keep_cap;
    }
}

int core_buf_append(struct core_buf *b, const void *p, size_t n)
{
    int st;

    if (n == 0) {
        return TERSE_OK;
    }
    st = core_buf_reserve(b, n);
    if (st != TERSE_OK) {
        return st;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return TERSE_OK;
}
