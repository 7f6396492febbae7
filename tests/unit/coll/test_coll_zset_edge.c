/*
 * Unit tests for coll_zset: sorted sets as chunked containers (2/2: the edges).
 *
 * The score key orders every non-NaN double and joins -0 with 0; bad arguments
 * and bad forms are refused and keep nothing; 100,000 members of one score
 * (ZRANGEBYLEX's case) are added in random order, ranked, seeked by member and
 * removed, with +0 and -0 keeping their bits; a flipped byte in one chunk makes
 * every read of that chunk TERSE_ECORRUPT and every write to it change nothing,
 * while other chunks still answer; each allocation of an add, a move, a removal
 * and a remove_range failing in turn leaves both containers verifying and equal
 * to the oracle; copies are deep, destroy and lazy release free everything (the
 * fixture's teardown checks core_mem_used), coll_mem counts the map,
 * compression keeps reads right.
 */
#include "coll/coll_zset.h"

#include "coll_zset_fixture.h"

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "terse/status.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

static void test_score_key(void **state)
{
    static const double v[] = {-INFINITY, -DBL_MAX, -1e300, -2.5, -1.0,  -DBL_MIN, -4.9e-324, 0.0,
                               4.9e-324,  DBL_MIN,  1.0,    2.5,  1e300, DBL_MAX,  INFINITY};
    size_t n = sizeof(v) / sizeof(v[0]);

    (void)state;
    assert_true(coll_zset_score_key(-0.0) == coll_zset_score_key(0.0));
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            uint64_t a = coll_zset_score_key(v[i]), b = coll_zset_score_key(v[j]);
            assert_true((v[i] < v[j]) == (a < b));
            assert_true((v[i] == v[j]) == (a == b));
        }
    }
    for (int k = 0; k < 100000; k++) {
        double a = zfx_score(2), b = zfx_score(2);
        assert_true((a < b) == (coll_zset_score_key(a) < coll_zset_score_key(b)));
    }
}

static void test_bad_args(void **state)
{
    struct fix *f = *state;
    struct coll_zset_shape sh = {128}, zero = {0};
    enum coll_zset_result res;
    struct coll *c = NULL;
    uint64_t rank;
    double old;
    /* pairs: "a"@1 "b"@2 */
    static const uint8_t ok[] = {2, 1,   'a', 8, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f,
                                 1, 'b', 8,   0, 0, 0, 0, 0, 0, 0, 0x40};
    uint8_t bad[sizeof(ok)];

    assert_int_equal(coll_zset_create(f->env, &zero, &c), TERSE_EINVAL);
    assert_null(c);
    assert_int_equal(coll_zset_from_form(f->env, ok, sizeof(ok), &zero, &c), TERSE_EINVAL);
    /* unsorted: a@2 then b@1 */
    memcpy(bad, ok, sizeof(ok));
    bad[10] = 0;
    bad[11] = 0x40;
    bad[21] = 0xf0;
    bad[22] = 0x3f;
    assert_int_equal(coll_zset_from_form(f->env, bad, sizeof(bad), &sh, &c), TERSE_ECORRUPT);
    /* one member under two scores: a@1, a@2 */
    memcpy(bad, ok, sizeof(ok));
    bad[13] = 'a';
    assert_int_equal(coll_zset_from_form(f->env, bad, sizeof(bad), &sh, &c), TERSE_ECORRUPT);
    /* NaN */
    memcpy(bad, ok, sizeof(ok));
    bad[10] = 0xf8;
    bad[11] = 0x7f;
    assert_int_equal(coll_zset_from_form(f->env, bad, sizeof(bad), &sh, &c), TERSE_ECORRUPT);
    /* a score of 7 bytes, a lying count, cut short, nothing */
    memcpy(bad, ok, sizeof(ok));
    bad[3] = 7;
    assert_int_equal(coll_zset_from_form(f->env, bad, sizeof(bad), &sh, &c), TERSE_ECORRUPT);
    memcpy(bad, ok, sizeof(ok));
    bad[0] = 3;
    assert_int_equal(coll_zset_from_form(f->env, bad, sizeof(bad), &sh, &c), TERSE_ECORRUPT);
    for (size_t cut = 0; cut < sizeof(ok); cut++) {
        assert_int_equal(coll_zset_from_form(f->env, ok, cut, &sh, &c), TERSE_ECORRUPT);
    }
    assert_null(c);
    assert_int_equal(coll_zset_from_form(f->env, ok, sizeof(ok), &sh, &c), TERSE_OK);
    assert_int_equal(coll_count(c), 2);
    assert_int_equal(coll_zset_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_zset_add(f->env, c, ok + 2, 1, NAN, 0, &res, &old), TERSE_EINVAL);
    assert_int_equal(
        coll_zset_add(f->env, c, ok + 2, 1, 1, COLL_ZSET_NX | COLL_ZSET_XX, &res, &old),
        TERSE_EINVAL);
    assert_int_equal(
        coll_zset_add(f->env, c, ok + 2, 1, 1, COLL_ZSET_NX | COLL_ZSET_GT, &res, &old),
        TERSE_EINVAL);
    assert_int_equal(
        coll_zset_add(f->env, c, ok + 2, 1, 1, COLL_ZSET_GT | COLL_ZSET_LT, &res, &old),
        TERSE_EINVAL);
    assert_int_equal(coll_zset_add(f->env, c, ok + 2, 1, 1, 0x40, &res, &old), TERSE_EINVAL);
    assert_int_equal(coll_zset_add(f->env, c, ok + 2, 1, 1,
                                   COLL_ZSET_KNOWN_ABSENT | COLL_ZSET_KNOWN_AT, &res, &old),
                     TERSE_EINVAL);
    assert_int_equal(coll_zset_seek_score(f->env, c, NAN, false, &rank), TERSE_EINVAL);
    /* -0 for a member at 0 changes nothing; the stored sign is the one given
     * first */
    assert_int_equal(coll_zset_add(f->env, c, (const uint8_t *)"z", 1, -0.0, 0, &res, &old),
                     TERSE_OK);
    assert_int_equal(res, COLL_ZSET_ADDED);
    assert_int_equal(coll_zset_add(f->env, c, (const uint8_t *)"z", 1, 0.0, 0, &res, &old),
                     TERSE_OK);
    assert_int_equal(res, COLL_ZSET_UNTOUCHED);
    assert_int_equal(coll_zset_score(f->env, c, (const uint8_t *)"z", 1, &old), 1);
    assert_true(old == 0 && signbit(old));
    assert_int_equal(coll_zset_rank(f->env, c, (const uint8_t *)"z", 1, &rank, &old), 1);
    assert_int_equal(rank, 0);
    assert_int_equal(coll_zset_verify(f->env, c), TERSE_OK);
    coll_destroy(f->env, c);
}

static int cmp_member(const void *a, const void *b)
{
    const struct store_zset_el *x = a, *y = b;
    return store_zset_member_cmp(x->m, x->mlen, y->m, y->mlen);
}

/* 100,000 members at one score (+0 and -0), in random order: every call stays
 * O(log n). */
static void test_one_score_100k(void **state)
{
    struct fix *f = *state;
    struct coll_zset_shape sh = {4096};
    const size_t n = 100000;
    struct zoracle o = {0};
    enum coll_zset_result res;
    struct coll *c;
    clock_t t0 = clock();
    double old;

    o.e = calloc(n, sizeof(*o.e));
    assert_non_null(o.e);
    o.cap = n;
    assert_int_equal(coll_zset_create(f->env, &sh, &c), TERSE_OK);
    for (size_t i = 0; i < n; i++) {
        /* a random permutation of "m%06zu" members: i * a prime mod n */
        size_t id = (i * 48271u) % n;
        uint8_t *m = malloc(16);
        int len;

        assert_non_null(m);
        len = snprintf((char *)m, 16, "m%06zu%s", id, id % 3 == 0 ? "x" : "");
        o.e[o.n++] = (struct store_zset_el){m, (size_t)len, id % 2 ? -0.0 : 0.0};
        assert_int_equal(
            coll_zset_add(f->env, c, m, (size_t)len, o.e[o.n - 1].score, 0, &res, &old), TERSE_OK);
        assert_int_equal(res, COLL_ZSET_ADDED);
    }
    qsort(o.e, o.n, sizeof(*o.e), cmp_member);
    print_message("100000 adds at one score: %.2f s, %llu chunks\n",
                  (double)(clock() - t0) / CLOCKS_PER_SEC, (unsigned long long)c->tree.n_chunks);
    assert_true(c->tree.n_chunks > 300);
    zfx_check_all(f, c, &o, 4096);
    for (int k = 0; k < 3000; k++) {
        size_t i = (size_t)(hfx_rnd() % o.n);
        uint8_t probe[16];
        size_t plen = o.e[i].mlen;
        uint64_t rank;
        bool ex = k % 2 == 0;

        memcpy(probe, o.e[i].m, plen);
        if (k % 3 == 0) {
            plen--; /* a prefix: between members */
        }
        assert_int_equal(coll_zset_seek_lex(f->env, c, probe, plen, ex, &rank), TERSE_OK);
        assert_int_equal(rank, zfx_seek_lex(&o, probe, plen, ex));
        assert_int_equal(coll_zset_seek_score(f->env, c, 0.0, ex, &rank), TERSE_OK);
        assert_int_equal(rank, ex ? o.n : 0);
    }
    for (int k = 0; k < 5000; k++) {
        size_t i = (size_t)(hfx_rnd() % o.n);
        uint64_t rank;
        assert_int_equal(coll_zset_rank(f->env, c, o.e[i].m, o.e[i].mlen, &rank, &old), 1);
        assert_int_equal(rank, i);
        if (k % 2 == 0) {
            assert_int_equal(coll_zset_rem(f->env, c, o.e[i].m, o.e[i].mlen), 1);
            zfx_remove(&o, i);
        }
    }
    zfx_check_all(f, c, &o, 4096);
    print_message("... and the reads and removes: %.2f s in all\n",
                  (double)(clock() - t0) / CLOCKS_PER_SEC);
    coll_destroy(f->env, c);
    zfx_free(&o);
}

static int never_fn(void *arg, const struct store_zset_el *el)
{
    (void)arg;
    (void)el;
    fail_msg("remove_range gave an element of a corrupt chunk");
    return 0;
}

/* A flipped byte in one chunk: its reads fail, its writes change nothing,
 * others answer. */
static void corrupt_run(struct fix *f, bool compress)
{
    struct zoracle o = {0};
    struct coll *c = zfx_build(f, &o, 256, 800, 2, false);
    struct coll_zset_it it;
    struct store_zset_el el;
    enum coll_zset_result res;
    struct coll_it ti;
    struct coll_chunk *ch;
    uint64_t r0, cnt, rank, removed, within;
    size_t len, cap = coll_zset_form_size(c);
    uint8_t *form = malloc(cap), saved;
    double s, old;

    assert_non_null(form);
    if (compress) {
        (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        assert_true(hfx_some_compressed(c));
    }
    assert_true(coll_tree_seek_rank(&c->tree, o.n / 2, &ti, &within));
    r0 = coll_tree_rank_of(&ti);
    cnt = coll_tree_desc(&ti)->count;
    ch = coll_tree_desc(&ti)->chunk;
    saved = ch->data[ch->len - 1];
    ch->data[ch->len - 1] ^= 0x21;
    assert_int_equal(coll_zset_verify(f->env, c), TERSE_ECORRUPT);
    for (uint64_t r = r0; r < r0 + cnt; r++) {
        const struct store_zset_el *e = &o.e[r];
        assert_int_equal(coll_zset_rank(f->env, c, e->m, e->mlen, &rank, &s), TERSE_ECORRUPT);
        assert_int_equal(coll_zset_rem(f->env, c, e->m, e->mlen), TERSE_ECORRUPT);
        assert_int_equal(coll_zset_add(f->env, c, e->m, e->mlen, e->score + 1e-9, 0, &res, &old),
                         TERSE_ECORRUPT);
        assert_int_equal(res, COLL_ZSET_UNTOUCHED);
        assert_int_equal(
            coll_zset_add(f->env, c, (const uint8_t *)"new", 3, e->score, 0, &res, &old),
            TERSE_ECORRUPT);
        assert_int_equal(coll_zset_it_init(f->env, c, r, r % 2 == 0, &it), TERSE_OK);
        assert_int_equal(coll_zset_it_next(f->env, &it, &el), TERSE_ECORRUPT);
        assert_int_equal(coll_zset_remove_range(f->env, c, r, 3, never_fn, NULL, &removed),
                         TERSE_ECORRUPT);
        assert_int_equal(removed, 0);
        assert_int_equal(coll_zset_seek_score(f->env, c, e->score, true, &rank), TERSE_ECORRUPT);
    }
    /* a walk up to the chunk gives everything before it, then fails */
    assert_int_equal(coll_zset_it_init(f->env, c, 0, false, &it), TERSE_OK);
    for (uint64_t r = 0; r < r0; r++) {
        assert_int_equal(coll_zset_it_next(f->env, &it, &el), 1);
        zfx_expect_el(&el, &o, (size_t)r);
    }
    assert_int_equal(coll_zset_it_next(f->env, &it, &el), TERSE_ECORRUPT);
    /* other chunks still answer */
    for (uint64_t r = 0; r < o.n; r++) {
        if (r >= r0 && r < r0 + cnt) {
            continue;
        }
        assert_int_equal(coll_zset_rank(f->env, c, o.e[r].m, o.e[r].mlen, &rank, &s), 1);
        assert_int_equal(rank, r);
    }
    assert_int_equal(coll_zset_to_form(f->env, c, form, cap, &len), TERSE_ECORRUPT);
    assert_int_equal(coll_count(c), o.n);
    ch->data[ch->len - 1] = saved;
    zfx_check_all(f, c, &o, 256); /* the failed writes changed nothing */
    /* the whole set damaged: the map's reads fail too */
    coll_corrupt(c);
    assert_int_equal(coll_zset_score(f->env, c, o.e[0].m, o.e[0].mlen, &s), TERSE_ECORRUPT);
    assert_int_equal(coll_zset_verify(f->env, c), TERSE_ECORRUPT);
    free(form);
    coll_destroy(f->env, c);
    zfx_free(&o);
}

static void test_corrupt_chunk(void **state)
{
    corrupt_run(*state, false);
    corrupt_run(*state, true);
}

/* Checks c against o after a failed call: verifies, same form. */
static void expect_same(struct fix *f, struct coll *c, const struct zoracle *o)
{
    size_t cap = coll_zset_form_size(c), len, wlen;
    uint8_t *form = malloc(cap), *want = malloc(store_zset_form_size(o->e, o->n) + 1);

    assert_non_null(form);
    assert_non_null(want);
    assert_int_equal(coll_zset_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_zset_to_form(f->env, c, form, cap, &len), TERSE_OK);
    assert_int_equal(
        store_zset_form_write(o->e, o->n, want, store_zset_form_size(o->e, o->n), &wlen), TERSE_OK);
    assert_int_equal(len, wlen);
    assert_memory_equal(form, want, len);
    free(form);
    free(want);
}

/* Each allocation of an add, a move, a removal, a remove_range failing in turn.
 */
static void test_oom(void **state)
{
    struct fix *f = *state;
    struct zoracle o = {0};
    struct coll *c = zfx_build(f, &o, 128, 500, 1, true);
    size_t failed = 0, kinds[4] = {0};
    uint8_t mb[ZMMAX];

    for (int k = 0; k < 240; k++) {
        unsigned kind = (unsigned)k % 4;
        size_t ml = zfx_member(mb, 100000 + (uint64_t)k, true), i = 0;
        double s = zfx_score(1);
        uint64_t start = hfx_rnd() % (o.n + 1), n = 1 + hfx_rnd() % 30, removed = 0;
        enum coll_zset_result res = COLL_ZSET_UNTOUCHED;
        int r;

        if (kind == 1 || kind == 2) {
            i = (size_t)(hfx_rnd() % o.n);
            memcpy(mb, o.e[i].m, o.e[i].mlen);
            ml = o.e[i].mlen;
            while (kind == 1 && s == o.e[i].score) {
                s = zfx_score(1);
            }
        }
        if (k % 9 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        for (uint64_t nth = 1;; nth++) {
            double old;

            res = COLL_ZSET_UNTOUCHED;
            coll_env_trim(f->env, 0); /* no spare blocks: every block is allocated, and may fail */
            core_mem_fail_after(nth);
            r = kind <= 1   ? coll_zset_add(f->env, c, mb, ml, s, 0, &res, &old)
                : kind == 2 ? coll_zset_rem(f->env, c, mb, ml)
                            : coll_zset_remove_range(f->env, c, start, n, NULL, NULL, &removed);
            core_mem_fail_after(0);
            if (r != TERSE_ENOMEM) {
                break;
            }
            failed++;
            kinds[kind]++;
            assert_int_equal(res, COLL_ZSET_UNTOUCHED);
            if (kind == 3) {
                /* a prefix of the range went, from both */
                for (uint64_t j = 0; j < removed; j++) {
                    zfx_remove(&o, (size_t)start);
                }
                n -= removed;
            }
            expect_same(f, c, &o);
        }
        if (kind <= 1) {
            enum coll_zset_result want;
            bool had;
            double wold;
            assert_int_equal(r, TERSE_OK);
            zfx_add(&o, mb, ml, s, 0, &want, &had, &wold);
            assert_int_equal(res, want);
            assert_true(kind == 0 || want == COLL_ZSET_UPDATED);
        } else if (kind == 2) {
            assert_int_equal(r, 1);
            zfx_remove(&o, i);
        } else {
            assert_int_equal(r, TERSE_OK);
            for (uint64_t j = 0; j < removed; j++) {
                zfx_remove(&o, (size_t)start);
            }
        }
        if (k % 20 == 0) {
            expect_same(f, c, &o);
        }
    }
    print_message("%zu failed allocations (add %zu, move %zu, rem %zu, range %zu), each "
                  "leaving the set as the oracle\n",
                  failed, kinds[0], kinds[1], kinds[2], kinds[3]);
    for (int k = 0; k < 4; k++) {
        assert_true(kinds[k] > 20);
    }
    zfx_check_all(f, c, &o, 128);
    coll_destroy(f->env, c);
    zfx_free(&o);
}

/* Copies, coll_mem, compression, destroy and lazy release. */
static void test_life(void **state)
{
    struct fix *f = *state;
    struct zoracle o = {0}, o2 = {0};
    struct coll *c = zfx_build(f, &o, 256, 3000, 3, false), *d, *small;
    struct coll_env_stats st0, st;
    enum coll_zset_result res;
    double old;
    size_t rounds = 0;

    coll_env_stats_get(f->env, &st0);
    /* coll_mem counts both containers */
    assert_true(coll_mem(c) == c->bytes + c->tree.bytes + c->aux->bytes + c->aux->tree.bytes);
    assert_true(c->aux->bytes > 1000);
    /* a deep copy: changing it leaves the original */
    assert_int_equal(coll_copy(f->env, c, &d), TERSE_OK);
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_colls, st0.n_colls + 2);
    assert_true(d->aux != NULL && d->aux != c->aux);
    assert_int_equal(coll_mem(d) > 0, 1);
    for (size_t i = 0; i < o.n; i++) {
        zfx_insert(&o2, o.e[i].m, o.e[i].mlen, o.e[i].score);
    }
    for (size_t k = 0; k < 500; k++) {
        size_t i = (size_t)(hfx_rnd() % o2.n);
        if (k % 2 == 0) {
            assert_int_equal(coll_zset_rem(f->env, d, o2.e[i].m, o2.e[i].mlen), 1);
            zfx_remove(&o2, i);
        } else {
            uint8_t m[ZMMAX];
            size_t ml = zfx_member(m, 900000 + k, false);
            double s = zfx_score(2);
            bool had;
            enum coll_zset_result want;
            zfx_add(&o2, m, ml, s, 0, &want, &had, &old);
            assert_int_equal(coll_zset_add(f->env, d, m, ml, s, 0, &res, &old), TERSE_OK);
            assert_int_equal(res, want);
        }
    }
    zfx_check_all(f, c, &o, 256);
    zfx_check_all(f, d, &o2, 256);
    /* background compression reaches both the order and the map; reads stay right
     */
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    assert_true(hfx_some_compressed(c));
    assert_true(hfx_some_compressed(c->aux));
    zfx_check_all(f, c, &o, 256);
    /* destroy frees both */
    coll_destroy(f->env, d);
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_colls, st0.n_colls);
    /* a small set is freed at once by release, a big one lazily, in bounded steps
     */
    assert_int_equal(coll_zset_create(f->env, &(struct coll_zset_shape){256}, &small), TERSE_OK);
    assert_int_equal(coll_zset_add(f->env, small, (const uint8_t *)"a", 1, 1, 0, &res, &old),
                     TERSE_OK);
    coll_release(f->env, small);
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_colls, st0.n_colls);
    assert_int_equal(st.n_lazy, 0);
    assert_true(coll_mem(c) > COLL_FREE_NOW_MAX);
    coll_release(f->env, c);
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_lazy, 1);
    assert_true(st.lazy_bytes > COLL_FREE_NOW_MAX);
    while (st.n_lazy > 0) {
        (void)coll_free_step(f->env, 4096);
        coll_env_stats_get(f->env, &st);
        rounds++;
    }
    assert_true(rounds > 10);
    assert_int_equal(st.n_colls, st0.n_colls - 2);
    assert_int_equal(st.lazy_bytes, 0);
    assert_int_equal(st.n_pending, 0);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0); /* nothing left on the pending list */
    zfx_free(&o);
    zfx_free(&o2);
}

/* Members bigger than a chunk live alone; small ones split away from them. */
static void test_big_members(void **state)
{
    struct fix *f = *state;
    struct zoracle o = {0};
    struct coll *c = zfx_build(f, &o, 64, 0, 0, true);
    static uint8_t big[3000];
    enum coll_zset_result res, want;
    double old;
    bool had;

    memset(big, 'q', sizeof(big));
    for (uint64_t i = 1; i <= 120; i++) {
        size_t ml = i % 3 == 0 ? 100 + i * 20 : i % 7;
        double s = (double)(i % 4);
        big[0] = (uint8_t)('a' + i % 26);
        big[1] = (uint8_t)('a' + i / 26);
        zfx_add(&o, big, ml, s, 0, &want, &had, &old);
        assert_int_equal(coll_zset_add(f->env, c, big, ml, s, 0, &res, &old), TERSE_OK);
        assert_int_equal(res, want);
        assert_int_equal(coll_zset_verify(f->env, c), TERSE_OK);
    }
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        assert_true(d->raw_len <= 64 || d->count == 1);
    }
    zfx_check_all(f, c, &o, 64);
    coll_destroy(f->env, c);
    zfx_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_key),
        cmocka_unit_test_setup_teardown(test_bad_args, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_one_score_100k, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_chunk, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_oom, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_life, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_big_members, hfx_setup, hfx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
