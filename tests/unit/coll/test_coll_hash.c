/*
 * Unit tests for coll_hash: hashes and sets as chunked containers (1/2: against a model).
 *
 * A model (coll_hash_fixture.h: an array of fields and values) takes the same random puts
 * (plain, NX, XX), deletes, lookups and picks by rank as a container with tiny chunks (256 and
 * 1024 bytes; fields of 0..300 bytes, some values of up to 3 KiB, so single-element chunks
 * happen), in phases that grow and shrink it so that chunks split and merge hundreds of times,
 * with background compression in between so that reads meet LZ4 chunks; every few hundred
 * operations the container verifies, every read agrees with the model, its whole form passes
 * store_hash_check and builds an equal container. Then a scan gives every element present all
 * along exactly once, with splits and merges between its steps; and every rank maps to a
 * distinct element, all of them reached. test_coll_hash_edge.c has the rest.
 */
#include "coll/coll_hash.h"

#include "coll_hash_fixture.h"

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/form/store_hash.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ---- the randomized run ------------------------------------------------------------------ */

struct tally {
    size_t splits, shrinks, lz4_checks, alone; /* alone: chunks of one element over the size */
};

/* One random operation on c and the model; phase 0 grows, 1 shrinks. */
static void random_op(struct fix *f, struct coll *c, unsigned phase, size_t pool,
                      struct tally *t)
{
    struct model *m = &f->m;
    bool set = c->type == COLL_SET;
    static uint8_t fb[FMAX], vb[VMAX];
    unsigned op = (unsigned)(hfx_rnd() % 100);
    unsigned put_share = phase == 0 ? 65 : 15, del_share = 85 - put_share;
    size_t flen, vlen = hfx_value(vb, set);
    uint64_t chunks = c->tree.n_chunks;
    enum coll_hash_result res;
    const uint8_t *v;
    long i;

    if (m->n > 0 && hfx_rnd() % 2 == 0) {
        const struct el *e = &m->e[hfx_rnd() % m->n]; /* an element that is there */
        memcpy(fb, e->f, e->flen);
        flen = e->flen;
    } else {
        flen = hfx_field(fb, hfx_rnd() % pool);
    }
    i = hfx_find(m, fb, flen);
    if (op < put_share) {
        unsigned flags = op % 5 == 0 ? COLL_HASH_NX : op % 5 == 1 ? COLL_HASH_XX : 0;
        assert_int_equal(coll_hash_put(f->env, c, fb, flen, vb, vlen, flags, &res), TERSE_OK);
        if ((i >= 0 && flags == COLL_HASH_NX) || (i < 0 && flags == COLL_HASH_XX)) {
            assert_int_equal(res, COLL_HASH_UNTOUCHED);
        } else {
            assert_int_equal(res, i >= 0 ? COLL_HASH_UPDATED : COLL_HASH_ADDED);
            hfx_put(m, fb, flen, vb, vlen);
        }
        t->splits += c->tree.n_chunks > chunks && chunks > 0;
    } else if (op < put_share + del_share) {
        assert_int_equal(coll_hash_del(f->env, c, fb, flen), i >= 0 ? 1 : 0);
        if (i >= 0) {
            hfx_del(m, i);
        }
        t->shrinks += c->tree.n_chunks < chunks;
    } else if (op < 95) {
        int r = coll_hash_get(f->env, c, fb, flen, &v, &vlen);
        assert_int_equal(r, i >= 0 ? 1 : 0);
        if (i >= 0) {
            hfx_expect_get(f, c, &m->e[i]);
        }
    } else if (op < 97 && m->n > 0) {
        struct store_hash_kv kv;
        assert_int_equal(coll_hash_at(f->env, c, hfx_rnd() % m->n, &kv), TERSE_OK);
        (void)hfx_expect_in(m, &kv);
    } else {
        (void)coll_compress_step(f->env, 0, NULL, NULL, 1 + hfx_rnd() % 4000);
    }
}

/* steps operations, growing the container to hi elements, shrinking it to hi / 20, again. */
static void random_run(struct fix *f, enum coll_type type, uint32_t chunk, size_t steps,
                       size_t hi)
{
    size_t pool = 4 * hi, waves = 0;
    unsigned phase = 0;
    struct coll_hash_shape sh = {chunk};
    struct tally t = {0, 0, 0, 0};
    struct coll *c;

    hfx_reset(&f->m);
    assert_int_equal(coll_hash_create(f->env, type, &sh, &c), TERSE_OK);
    for (size_t s = 0; s < steps; s++) {
        if ((phase == 0 && f->m.n >= hi) || (phase == 1 && f->m.n <= hi / 20)) {
            phase ^= 1;
            waves++;
        }
        random_op(f, c, phase, pool, &t);
        if (s % 97 == 0) {
            assert_int_equal(coll_hash_verify(f->env, c), TERSE_OK);
        }
        if (s % 400 == 399) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            t.lz4_checks += (size_t)hfx_some_compressed(c);
            for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it);
                 coll_tree_next(&it)) {
                const struct coll_desc *d = coll_tree_desc(&it);
                t.alone += d->count == 1 && d->raw_len > chunk;
            }
            hfx_check_all(f, c, &sh);
        }
    }
    hfx_check_all(f, c, &sh);
    print_message("chunk %u %s: %zu waves, %zu splits, %zu chunks gone, %zu checks over LZ4 "
                  "chunks, %zu big elements alone\n", chunk, type == COLL_SET ? "set" : "hash",
                  waves, t.splits, t.shrinks, t.lz4_checks, t.alone);
    assert_true(waves >= 2);
    assert_true(t.splits >= 100);
    assert_true(t.shrinks >= 100);
    assert_true(t.lz4_checks > 0);
    assert_true(type == COLL_SET || t.alone > 0);
    /* Down to nothing: every chunk leaves, the form is empty, and it grows again. */
    while (f->m.n > 0) {
        assert_int_equal(coll_hash_del(f->env, c, f->m.e[0].f, f->m.e[0].flen), 1);
        hfx_del(&f->m, 0);
    }
    assert_int_equal(c->tree.n_chunks, 0);
    hfx_check_all(f, c, &sh);
    random_op(f, c, 0, pool, &t);
    coll_destroy(f->env, c);
}

static void test_random_hash_256(void **state)
{
    random_run(*state, COLL_HASH, 256, 20000, 600);
}

static void test_random_hash_1024(void **state)
{
    random_run(*state, COLL_HASH, 1024, 20000, 800);
}

static void test_random_set_256(void **state)
{
    random_run(*state, COLL_SET, 256, 20000, 1000);
}

static void test_random_set_1024(void **state)
{
    random_run(*state, COLL_SET, 1024, 40000, 2500);
}


/* ---- scans ---------------------------------------------------------------------------------- */

struct scan_seen {
    struct fix *f;
    uint8_t *stable_seen; /* per stable id: times given */
    size_t n_stable;
    size_t given;
};

/* Stable elements are ids [0, n_stable), fields "s<id>"; the others come and go. */
static size_t stable_field(uint8_t *b, size_t id)
{
    return (size_t)snprintf((char *)b, 32, "s%zu", id);
}

static int scan_fn(void *arg, const struct store_hash_kv *kv)
{
    struct scan_seen *s = arg;
    char b[32];

    (void)hfx_expect_in(&s->f->m, kv); /* given only if there, with its value */
    if (kv->flen > 1 && kv->f[0] == 's' && kv->flen < sizeof(b)) {
        memcpy(b, kv->f + 1, kv->flen - 1);
        b[kv->flen - 1] = 0;
        s->stable_seen[strtoul(b, NULL, 10)]++;
    }
    s->given++;
    return 0;
}

static void scan_run(struct fix *f, enum coll_type type, uint32_t chunk, size_t count)
{
    struct coll_hash_shape sh = {chunk};
    struct scan_seen ss = {f, NULL, 500, 0};
    struct tally t = {0, 0, 0, 0};
    size_t vol_lo = 50, vol_hi = 2000;
    bool grow = true;
    uint64_t cursor = 0, next = 0;
    enum coll_hash_result res;
    uint8_t fb[32], vb[VMAX];
    struct coll *c;
    size_t steps = 0, vol = 0;

    hfx_reset(&f->m);
    ss.stable_seen = calloc(ss.n_stable, 1);
    assert_non_null(ss.stable_seen);
    assert_int_equal(coll_hash_create(f->env, type, &sh, &c), TERSE_OK);
    for (size_t i = 0; i < ss.n_stable; i++) {
        size_t fl = stable_field(fb, i), vl = hfx_value(vb, type == COLL_SET);
        assert_int_equal(coll_hash_put(f->env, c, fb, fl, vb, vl, 0, &res), TERSE_OK);
        hfx_put(&f->m, fb, fl, vb, vl);
    }
    while (f->m.n < ss.n_stable + vol_hi / 2) {
        size_t fl = (size_t)snprintf((char *)fb, sizeof(fb), "v%zu", vol++);
        size_t vl = hfx_value(vb, type == COLL_SET);
        assert_int_equal(coll_hash_put(f->env, c, fb, fl, vb, vl, 0, &res), TERSE_OK);
        hfx_put(&f->m, fb, fl, vb, vl);
    }
    do {
        assert_int_equal(coll_hash_scan(f->env, c, cursor, count, scan_fn, &ss, &next),
                         TERSE_OK);
        assert_true(next == 0 || next > cursor);
        cursor = next;
        steps++;
        /* Between steps: volatile elements come (splits) and go (merges), in waves from
         * vol_lo to vol_hi of them. */
        for (int k = 0; k < 40; k++) {
            uint64_t chunks = c->tree.n_chunks;
            if (grow ? f->m.n >= ss.n_stable + vol_hi : f->m.n <= ss.n_stable + vol_lo) {
                grow = !grow;
            }
            if (grow) {
                size_t fl = (size_t)snprintf((char *)fb, sizeof(fb), "v%zu", vol++);
                size_t vl = hfx_value(vb, type == COLL_SET);
                assert_int_equal(coll_hash_put(f->env, c, fb, fl, vb, vl, 0, &res), TERSE_OK);
                hfx_put(&f->m, fb, fl, vb, vl);
                t.splits += c->tree.n_chunks > chunks;
            } else {
                long i;
                do {
                    i = (long)(hfx_rnd() % f->m.n);
                } while (f->m.e[i].f[0] == 's');
                assert_int_equal(coll_hash_del(f->env, c, f->m.e[i].f, f->m.e[i].flen), 1);
                hfx_del(&f->m, i);
                t.shrinks += c->tree.n_chunks < chunks;
            }
        }
        if (steps % 4 == 0) {
            /* The compressor merges cold neighbours cut by writes: chunks go there too. */
            uint64_t chunks = c->tree.n_chunks;
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            t.shrinks += chunks > c->tree.n_chunks ? chunks - c->tree.n_chunks : 0;
        }
    } while (cursor != 0);
    assert_int_equal(coll_hash_verify(f->env, c), TERSE_OK);
    for (size_t i = 0; i < ss.n_stable; i++) {
        assert_int_equal(ss.stable_seen[i], 1); /* exactly once */
    }
    print_message("scan count %zu: %zu steps, %zu splits, %zu chunks gone between them\n",
                  count, steps, t.splits, t.shrinks);
    assert_true(t.splits >= 20 && t.shrinks >= 20);
    free(ss.stable_seen);
    coll_destroy(f->env, c);
}

static void test_scan_guarantee(void **state)
{
    scan_run(*state, COLL_HASH, 256, 5);
    scan_run(*state, COLL_SET, 256, 10);
    scan_run(*state, COLL_HASH, 1024, 1);
}

/* A scan with nothing changing: the steps give every element once and stop at 0. */
static void test_scan_plain(void **state)
{
    struct fix *f = *state;
    struct coll_hash_shape sh = {512};
    struct scan_seen ss = {f, NULL, 3000, 0};
    enum coll_hash_result res;
    uint64_t cursor = 0, next;
    uint8_t fb[32];
    struct coll *c;

    hfx_reset(&f->m);
    ss.stable_seen = calloc(ss.n_stable, 1);
    assert_non_null(ss.stable_seen);
    assert_int_equal(coll_hash_create(f->env, COLL_SET, &sh, &c), TERSE_OK);
    assert_int_equal(coll_hash_scan(f->env, c, 0, 10, scan_fn, &ss, &next), TERSE_OK);
    assert_int_equal(next, 0);
    for (size_t i = 0; i < ss.n_stable; i++) {
        size_t fl = stable_field(fb, i);
        assert_int_equal(coll_hash_put(f->env, c, fb, fl, NULL, 0, COLL_HASH_NX, &res),
                         TERSE_OK);
        hfx_put(&f->m, fb, fl, NULL, 0);
    }
    do {
        size_t before = ss.given;
        assert_int_equal(coll_hash_scan(f->env, c, cursor, 100, scan_fn, &ss, &next),
                         TERSE_OK);
        assert_true(ss.given - before >= 100 || next == 0);
        cursor = next;
    } while (cursor != 0);
    assert_int_equal(ss.given, ss.n_stable);
    free(ss.stable_seen);
    coll_destroy(f->env, c);
}

/* ---- ranks ---------------------------------------------------------------------------------- */

static void test_ranks_one_to_one(void **state)
{
    struct fix *f = *state;
    struct coll *c = hfx_build(f, COLL_SET, 256, 2500);

    assert_true(c->tree.n_chunks > 100);
    hfx_check_walks(f, c); /* every rank a distinct element, all of them reached */
    coll_destroy(f->env, c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_hash_256, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_hash_1024, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_set_256, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_random_set_1024, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_scan_guarantee, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_scan_plain, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_ranks_one_to_one, hfx_setup, hfx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
