/*
 * Unit tests for coll_zset: sorted sets as chunked containers (1/2: against an oracle).
 *
 * An oracle (coll_zset_fixture.h: a sorted array of (score, member)) takes the same random
 * ZADDs (every flag combination, the invalid ones refused), ZREMs, ZSCOREs, ZRANKs, score and
 * lex seeks (+-inf, exclusive), walks both ways from random ranks and remove_range of random
 * ranges (whole chunks included) as a set with tiny chunks (64 and 128 bytes: thousands of
 * splits and merges; members up to 700 bytes, so single-element chunks happen) and with 4096,
 * under score distributions of all zeros (+0 and -0: one long tie), a few integers with +-inf,
 * and wide doubles; with background compression in between so that reads meet LZ4 chunks.
 * Every few hundred operations the set verifies and equals the oracle by every read (a whole
 * ZSCAN included), its form byte for byte, and a set built back from its form; two runs keep
 * 3 and 5 bits of the member fingerprints, so the map's collisions happen all the time.
 * test_coll_zset_edge.c has the rest.
 */
#include "coll/coll_zset.h"

#include "coll_zset_fixture.h"

#include "core/core_mem.h"
#include "terse/status.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

struct tally {
    size_t ops, adds, updates, rems, ranges, range_els, whole_chunks, max_chunks, seeks;
};

/* remove_range's fn: copies what it is given (checked against the oracle), and may stop. */
struct seen {
    const struct zoracle *o;
    size_t from, k, stop_at; /* stop_at: refuse the element with this index (SIZE_MAX: none) */
};

static int seen_fn(void *arg, const struct store_zset_el *el)
{
    struct seen *s = arg;

    if (s->k == s->stop_at) {
        return 77;
    }
    zfx_expect_el(el, s->o, s->from + s->k);
    s->k++;
    return 0;
}

static const unsigned flag_sets[] = {
    0,
    COLL_ZSET_NX,
    COLL_ZSET_XX,
    COLL_ZSET_GT,
    COLL_ZSET_LT,
    COLL_ZSET_XX | COLL_ZSET_GT,
    COLL_ZSET_XX | COLL_ZSET_LT,
};

static void op_add(struct fix *f, struct coll *c, struct zoracle *o, const uint8_t *mb, size_t ml,
                   unsigned mode, struct tally *t)
{
    unsigned flags = flag_sets[hfx_rnd() % (sizeof(flag_sets) / sizeof(flag_sets[0]))];
    double s = zfx_score(mode), old = 12345, wold = 0;
    enum coll_zset_result res, want;
    bool had;

    zfx_add(o, mb, ml, s, flags, &want, &had, &wold);
    assert_int_equal(coll_zset_add(f->env, c, mb, ml, s, flags, &res, &old), TERSE_OK);
    assert_int_equal(res, want);
    if (had) {
        assert_memory_equal(&old, &wold, sizeof(old));
    } else {
        assert_true(old == 12345); /* left alone */
    }
    t->adds += want == COLL_ZSET_ADDED;
    t->updates += want == COLL_ZSET_UPDATED;
}

static void op_range(struct fix *f, struct coll *c, struct zoracle *o, struct tally *t)
{
    uint64_t start = hfx_rnd() % (o->n + 3), n, removed = 9999, chunks = c->tree.n_chunks;
    struct seen s = {o, (size_t)start, 0, SIZE_MAX};
    unsigned k = (unsigned)(hfx_rnd() % 10);
    int rc;

    n = k < 6 ? hfx_rnd() % 4 : k < 9 ? hfx_rnd() % 40 : hfx_rnd() % 20 == 0 ? o->n + 5
                                                          : hfx_rnd() % 300;
    if (hfx_rnd() % 8 == 0) {
        s.stop_at = (size_t)(hfx_rnd() % (n + 1));
    }
    rc = coll_zset_remove_range(f->env, c, start, n, seen_fn, &s, &removed);
    if (s.stop_at != SIZE_MAX && start + s.stop_at < o->n && s.stop_at < n) {
        assert_int_equal(rc, 77);
        assert_int_equal(removed, s.stop_at);
    } else {
        size_t want = start >= o->n ? 0 : (size_t)(n < o->n - start ? n : o->n - start);
        assert_int_equal(rc, TERSE_OK);
        assert_int_equal(removed, want);
    }
    assert_int_equal(s.k, removed);
    for (uint64_t i = 0; i < removed; i++) {
        zfx_remove(o, (size_t)start);
    }
    assert_int_equal(coll_count(c), o->n);
    t->ranges++;
    t->range_els += removed;
    t->whole_chunks += chunks > c->tree.n_chunks + 1 ? chunks - c->tree.n_chunks - 1 : 0;
}

static void op_seek(struct fix *f, struct coll *c, struct zoracle *o, unsigned mode)
{
    uint64_t rank = 0;
    bool ex = hfx_rnd() % 2 == 0;
    double s = o->n > 0 && hfx_rnd() % 2 ? o->e[hfx_rnd() % o->n].score : zfx_score(mode);

    if (hfx_rnd() % 10 == 0) {
        s = hfx_rnd() % 2 ? INFINITY : -INFINITY;
    }
    assert_int_equal(coll_zset_seek_score(f->env, c, s, ex, &rank), TERSE_OK);
    assert_int_equal(rank, zfx_seek_score(o, s, ex));
    if (mode == 0) {
        uint8_t mb[ZMMAX];
        size_t ml = o->n > 0 && hfx_rnd() % 2 ? o->e[hfx_rnd() % o->n].mlen : 0;

        if (ml > 0 || hfx_rnd() % 2) {
            ml = zfx_member(mb, hfx_rnd() % 5000, true);
        } else if (o->n > 0) {
            const struct store_zset_el *e = &o->e[hfx_rnd() % o->n];
            memcpy(mb, e->m, e->mlen);
            ml = e->mlen;
        }
        assert_int_equal(coll_zset_seek_lex(f->env, c, mb, ml, ex, &rank), TERSE_OK);
        assert_int_equal(rank, zfx_seek_lex(o, mb, ml, ex));
    }
}

/* One random operation; phase 0 grows, 1 shrinks. */
static void random_op(struct fix *f, struct coll *c, struct zoracle *o, unsigned mode,
                      unsigned phase, uint64_t pool, bool big, struct tally *t)
{
    static uint8_t mb[ZMMAX];
    unsigned op = (unsigned)(hfx_rnd() % 100);
    unsigned add_share = phase == 0 ? 70 : 25, rem_share = phase == 0 ? 2 : 40;
    size_t ml;
    long i;

    if (o->n > 0 && hfx_rnd() % 2 == 0) {
        const struct store_zset_el *e = &o->e[hfx_rnd() % o->n]; /* a member that is there */
        memcpy(mb, e->m, e->mlen);
        ml = e->mlen;
    } else {
        ml = zfx_member(mb, hfx_rnd() % pool, big);
    }
    i = zfx_find(o, mb, ml);
    t->ops++;
    if (op < add_share) {
        op_add(f, c, o, mb, ml, mode, t);
    } else if (op < add_share + rem_share) {
        assert_int_equal(coll_zset_rem(f->env, c, mb, ml), i >= 0 ? 1 : 0);
        if (i >= 0) {
            zfx_remove(o, (size_t)i);
            t->rems++;
        }
    } else if (op < add_share + rem_share + 10) {
        uint64_t rank = 0;
        double s = 0;
        int r = coll_zset_rank(f->env, c, mb, ml, &rank, &s);
        assert_int_equal(r, i >= 0 ? 1 : 0);
        if (i >= 0) {
            assert_int_equal(rank, (uint64_t)i);
            assert_memory_equal(&s, &o->e[i].score, sizeof(s));
        }
        r = coll_zset_score(f->env, c, mb, ml, &s);
        assert_int_equal(r, i >= 0 ? 1 : 0);
    } else if (op < add_share + rem_share + 20) {
        op_seek(f, c, o, mode);
        t->seeks++;
    } else if (op < add_share + rem_share + 22) {
        op_range(f, c, o, t);
    } else {
        struct coll_zset_it it;
        struct store_zset_el el;
        uint64_t from = hfx_rnd() % (o->n + 1);
        bool rev = hfx_rnd() % 2 == 0;
        size_t steps = 1 + hfx_rnd() % 150, k = 0;
        int rc;

        assert_int_equal(coll_zset_it_init(f->env, c, from, rev, &it), TERSE_OK);
        while (k < steps && (rc = coll_zset_it_next(f->env, &it, &el)) == 1) {
            zfx_expect_el(&el, o, rev ? (size_t)(from - k) : (size_t)(from + k));
            k++;
        }
        if (k < steps) {
            assert_int_equal(rc, 0);
        }
    }
    if (c->tree.n_chunks > t->max_chunks) {
        t->max_chunks = c->tree.n_chunks;
    }
}

static void run(struct fix *f, uint32_t chunk, unsigned mode, size_t ops, uint64_t pool,
                bool big)
{
    struct zoracle o = {0};
    struct coll_zset_shape sh = {chunk};
    struct tally t = {0};
    struct coll *c;

    assert_int_equal(coll_zset_create(f->env, &sh, &c), TERSE_OK);
    for (size_t k = 0; k < ops; k++) {
        unsigned phase = (k / (ops / 4)) % 2;
        random_op(f, c, &o, mode, phase, pool, big, &t);
        if (k % 97 == 0) {
            assert_int_equal(coll_zset_verify(f->env, c), TERSE_OK);
        }
        if (k % 1500 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        if (k % 2000 == 1999) {
            zfx_check_all(f, c, &o, chunk);
        }
    }
    zfx_check_all(f, c, &o, chunk);
    print_message("chunk %u mode %u: %zu ops, %zu added, %zu moved, %zu removed, %zu ranges "
                  "(%zu elements, %zu whole chunks), max %zu chunks, %zu left\n",
                  chunk, mode, t.ops, t.adds, t.updates, t.rems, t.ranges, t.range_els,
                  t.whole_chunks, t.max_chunks, o.n);
    assert_true(t.adds > ops / 10);
    assert_true(mode == 0 || t.updates > 0);
    assert_true(t.range_els > 0);
    if (chunk <= 128) {
        assert_true(t.max_chunks > 50);
    }
    coll_destroy(f->env, c);
    zfx_free(&o);
}

static void test_random_ties_64(void **state)
{
    run(*state, 64, 0, 30000, 30000, true);
}

static void test_random_ints_64(void **state)
{
    run(*state, 64, 1, 30000, 30000, true);
}

static void test_random_doubles_128(void **state)
{
    run(*state, 128, 2, 30000, 30000, true);
}

static void test_random_mix_128(void **state)
{
    run(*state, 128, 3, 30000, 30000, false);
}

static void test_random_ties_4096(void **state)
{
    run(*state, 4096, 0, 30000, 30000, true);
}

static void test_random_ints_4096(void **state)
{
    run(*state, 4096, 1, 30000, 30000, false);
}

/* Fingerprints of 5 bits: tens of members share each, so collisions meet ties, moves and
 * range removals all the time (the map's lists and their short entries). */
static void test_collisions_ints_64(void **state)
{
    struct fix *f = *state;

    coll_env_set_fp_bits(f->env, 5);
    run(f, 64, 1, 20000, 3000, false);
}

static void test_collisions_mix_128(void **state)
{
    struct fix *f = *state;

    coll_env_set_fp_bits(f->env, 3);
    run(f, 128, 3, 20000, 3000, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_ties_64, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_ints_64, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_doubles_128, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_mix_128, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_ties_4096, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_ints_4096, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_collisions_ints_64, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_collisions_mix_128, hfx_setup, hfx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
