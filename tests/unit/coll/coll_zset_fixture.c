/*
 * coll_zset_fixture: the oracle and checks of the coll_zset tests (coll_zset_fixture.h).
 */
#include "coll_zset_fixture.h"

#include "terse/status.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

void zfx_free(struct zoracle *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free((uint8_t *)(uintptr_t)o->e[i].m);
    }
    free(o->e);
    memset(o, 0, sizeof(*o));
}

long zfx_find(const struct zoracle *o, const uint8_t *m, size_t mlen)
{
    for (size_t i = 0; i < o->n; i++) {
        if (o->e[i].mlen == mlen && (mlen == 0 || memcmp(o->e[i].m, m, mlen) == 0)) {
            return (long)i;
        }
    }
    return -1;
}

void zfx_insert(struct zoracle *o, const uint8_t *m, size_t mlen, double score)
{
    struct store_zset_el el = {m, mlen, score};
    size_t at = store_zset_lower_bound(o->e, o->n, &el);
    uint8_t *copy = malloc(mlen + 1);

    assert_non_null(copy);
    if (mlen > 0) {
        memcpy(copy, m, mlen);
    }
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 256;
        o->e = realloc(o->e, o->cap * sizeof(*o->e));
        assert_non_null(o->e);
    }
    memmove(o->e + at + 1, o->e + at, (o->n - at) * sizeof(*o->e));
    o->e[at] = (struct store_zset_el){copy, mlen, score};
    o->n++;
}

void zfx_remove(struct zoracle *o, size_t i)
{
    free((uint8_t *)(uintptr_t)o->e[i].m);
    memmove(o->e + i, o->e + i + 1, (o->n - i - 1) * sizeof(*o->e));
    o->n--;
}

void zfx_add(struct zoracle *o, const uint8_t *m, size_t mlen, double score, unsigned flags,
             enum coll_zset_result *result, bool *had, double *old)
{
    long i = zfx_find(o, m, mlen);

    *result = COLL_ZSET_UNTOUCHED;
    *had = i >= 0;
    if (i < 0) {
        if (!(flags & COLL_ZSET_XX)) {
            zfx_insert(o, m, mlen, score);
            *result = COLL_ZSET_ADDED;
        }
        return;
    }
    *old = o->e[i].score;
    if ((flags & COLL_ZSET_NX) || ((flags & COLL_ZSET_GT) && !(score > *old)) ||
        ((flags & COLL_ZSET_LT) && !(score < *old)) || score == *old) {
        return;
    }
    zfx_remove(o, (size_t)i);
    zfx_insert(o, m, mlen, score);
    *result = COLL_ZSET_UPDATED;
}

size_t zfx_seek_score(const struct zoracle *o, double s, bool exclusive)
{
    for (size_t i = 0; i < o->n; i++) {
        if (exclusive ? o->e[i].score > s : o->e[i].score >= s) {
            return i;
        }
    }
    return o->n;
}

size_t zfx_seek_lex(const struct zoracle *o, const uint8_t *m, size_t mlen, bool exclusive)
{
    for (size_t i = 0; i < o->n; i++) {
        int cmp = store_zset_member_cmp(o->e[i].m, o->e[i].mlen, m, mlen);
        if (exclusive ? cmp > 0 : cmp >= 0) {
            return i;
        }
    }
    return o->n;
}

size_t zfx_member(uint8_t *b, uint64_t id, bool big)
{
    uint64_t x = id * 0x9E3779B97F4A7C15ULL + 11;
    unsigned k = (unsigned)(x % 20);
    size_t n = id == 0    ? 0
               : k < 12   ? 1 + (x >> 8) % 12
               : k < 18   ? (x >> 8) % 40
               : big      ? 100 + (x >> 8) % (ZMMAX - 99)
                          : (x >> 8) % 40;

    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* A shared prefix makes long runs compare deep; the id's bytes make it unique. */
        b[i] = i < 8 ? (uint8_t)('a' + (id >> (4 * i)) % 16) : (uint8_t)('a' + x % 3);
    }
    return n;
}

double zfx_score(unsigned mode)
{
    uint64_t r = hfx_rnd();

    switch (mode) {
    case 0:
        return r % 2 ? 0.0 : -0.0;
    case 1:
        switch (r % 12) {
        case 0:
            return INFINITY;
        case 1:
            return -INFINITY;
        case 2:
            return -0.0;
        default:
            return (double)((int)(r >> 8) % 4);
        }
    case 2:
        if (r % 30 == 0) {
            return r % 60 == 0 ? INFINITY : -INFINITY;
        }
        return ldexp((double)(int64_t)(r >> 11) / (double)(1ull << 52), (int)(r % 40) - 20);
    default:
        return zfx_score((unsigned)(r >> 60) % 3);
    }
}

void zfx_expect_el(const struct store_zset_el *el, const struct zoracle *o, size_t i)
{
    assert_true(i < o->n);
    assert_int_equal(el->mlen, o->e[i].mlen);
    if (el->mlen > 0) {
        assert_memory_equal(el->m, o->e[i].m, el->mlen);
    }
    assert_memory_equal(&el->score, &o->e[i].score, sizeof(double));
}

/* Walks c from rank `from` (either way) for up to steps elements, against o. */
static void check_walk(struct fix *f, struct coll *c, const struct zoracle *o, uint64_t from,
                       bool reverse, size_t steps)
{
    struct coll_zset_it it;
    struct store_zset_el el;
    size_t k = 0;
    int rc;

    assert_int_equal(coll_zset_it_init(f->env, c, from, reverse, &it), TERSE_OK);
    while (k < steps && (rc = coll_zset_it_next(f->env, &it, &el)) == 1) {
        zfx_expect_el(&el, o, reverse ? (size_t)from - k : (size_t)from + k);
        k++;
    }
    if (k < steps) {
        assert_int_equal(rc, 0);
        assert_int_equal(k, from >= o->n ? 0 : reverse ? from + 1 : o->n - from);
    }
}

/* A scan's elements: each must be the oracle's, with its score, and given once. */
struct scan_seen {
    const struct zoracle *o;
    uint8_t *hit;
    size_t n;
};

static int scan_fn(void *arg, const struct store_zset_el *el)
{
    struct scan_seen *s = arg;
    long i = zfx_find(s->o, el->m, el->mlen);

    assert_true(i >= 0);
    assert_memory_equal(&el->score, &s->o->e[i].score, sizeof(el->score));
    assert_int_equal(s->hit[i], 0);
    s->hit[i] = 1;
    s->n++;
    return 0;
}

/* A whole ZSCAN in steps of a random COUNT gives every element exactly once. */
static void check_scan(struct fix *f, struct coll *c, const struct zoracle *o)
{
    struct scan_seen s = {o, calloc(o->n + 1, 1), 0};
    uint64_t cursor = 0;
    size_t steps = 0;

    assert_non_null(s.hit);
    do {
        assert_int_equal(coll_zset_scan(f->env, c, cursor, 1 + hfx_rnd() % 40, scan_fn, &s,
                                        &cursor),
                         TERSE_OK);
        steps++;
    } while (cursor != 0);
    assert_int_equal(s.n, o->n);
    assert_true(o->n < 2000 || steps > 1);
    free(s.hit);
}

void zfx_check_all(struct fix *f, struct coll *c, const struct zoracle *o, uint32_t chunk)
{
    struct coll_zset_shape sh = {chunk};
    size_t cap = coll_zset_form_size(c), len = 0, want_len = 0, len2 = 0;
    size_t ocap = store_zset_form_size(o->e, o->n) + 1;
    uint8_t *form = malloc(cap + 1), *want = malloc(ocap), *form2;
    struct coll *d;

    assert_non_null(form);
    assert_non_null(want);
    assert_int_equal(coll_zset_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_count(c), o->n);
    assert_int_equal(store_zset_form_write(o->e, o->n, want, ocap, &want_len), TERSE_OK);
    assert_int_equal(coll_zset_to_form(f->env, c, form, cap, &len), TERSE_OK);
    assert_int_equal(len, want_len);
    if (len > 0) {
        assert_memory_equal(form, want, len);
        assert_int_equal(coll_zset_to_form(f->env, c, form, len - 1, &len2), TERSE_ETOOBIG);
    }
    /* whole walks, and walks from random ranks */
    check_walk(f, c, o, 0, false, SIZE_MAX);
    if (o->n > 0) {
        check_walk(f, c, o, o->n - 1, true, SIZE_MAX);
    }
    for (int k = 0; k < 8; k++) {
        uint64_t from = hfx_rnd() % (o->n + 2);
        check_walk(f, c, o, from, k % 2 == 1, 1 + hfx_rnd() % 200);
    }
    check_scan(f, c, o);
    /* ranks and scores of a sample */
    for (size_t i = 0; i < o->n; i += 1 + hfx_rnd() % 7) {
        uint64_t rank = 0;
        double s = 0;
        assert_int_equal(coll_zset_rank(f->env, c, o->e[i].m, o->e[i].mlen, &rank, &s), 1);
        assert_int_equal(rank, i);
        assert_memory_equal(&s, &o->e[i].score, sizeof(s));
        assert_int_equal(coll_zset_score(f->env, c, o->e[i].m, o->e[i].mlen, &s), 1);
        assert_memory_equal(&s, &o->e[i].score, sizeof(s));
    }
    /* the form builds an equal set */
    if (len > 0) {
        assert_int_equal(coll_zset_from_form(f->env, form, len, &sh, &d), TERSE_OK);
        assert_int_equal(coll_zset_verify(f->env, d), TERSE_OK);
        form2 = malloc(coll_zset_form_size(d));
        assert_non_null(form2);
        assert_int_equal(coll_zset_to_form(f->env, d, form2, coll_zset_form_size(d), &len2),
                         TERSE_OK);
        assert_int_equal(len2, len);
        assert_memory_equal(form2, want, len);
        free(form2);
        coll_destroy(f->env, d);
    }
    free(form);
    free(want);
}

struct coll *zfx_build(struct fix *f, struct zoracle *o, uint32_t chunk, size_t n, unsigned mode,
                       bool big)
{
    struct coll_zset_shape sh = {chunk};
    enum coll_zset_result res, want;
    uint8_t mb[ZMMAX];
    struct coll *c;
    double old = 0, wold = 0;
    bool had;

    zfx_free(o);
    assert_int_equal(coll_zset_create(f->env, &sh, &c), TERSE_OK);
    for (size_t i = 0; i < n; i++) {
        size_t ml = zfx_member(mb, i + 1, big);
        double s = zfx_score(mode);
        zfx_add(o, mb, ml, s, 0, &want, &had, &wold);
        assert_int_equal(coll_zset_add(f->env, c, mb, ml, s, 0, &res, &old), TERSE_OK);
        assert_int_equal(res, want);
    }
    return c;
}
