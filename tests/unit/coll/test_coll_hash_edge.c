/*
 * Unit tests for coll_hash: hashes and sets as chunked containers (2/2: the edges).
 *
 * A corrupted container (RAW or LZ4 chunks) answers TERSE_ECORRUPT to every lookup, write,
 * walk, scan, pick and conversion, and never gives bytes; bad forms are refused and keep
 * nothing; each allocation of a put or a delete failing in turn gives TERSE_ENOMEM and leaves
 * the container as it was; lookups, walks, picks, scans and rewrites of a hot chunk in place
 * allocate nothing; elements bigger than a chunk live alone. Each test ends with nothing
 * leaked (the fixture's teardown).
 */
#include "coll/coll_hash.h"

#include "coll/coll_hash_internal.h"
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

/* ---- corruption, bad forms, failed allocations, allocation-free reads ---------------------- */

static int never_fn(void *arg, const struct store_hash_kv *kv)
{
    (void)arg;
    (void)kv;
    fail_msg("a scan of a corrupt container gave an element");
    return 0;
}

static void corrupt_run(struct fix *f, bool compress)
{
    struct coll *c = hfx_build(f, COLL_HASH, 512, 800);
    struct store_hash_kv kv;
    struct coll_hash_it it;
    enum coll_hash_result res;
    const uint8_t *v = NULL;
    size_t vlen = 0, len;
    uint64_t next;
    uint8_t *form = malloc(coll_hash_form_size(c));

    assert_non_null(form);
    if (compress) {
        (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        assert_true(hfx_some_compressed(c));
    }
    coll_corrupt(c);
    assert_int_equal(coll_hash_verify(f->env, c), TERSE_ECORRUPT);
    for (size_t i = 0; i < f->m.n; i++) {
        const struct el *e = &f->m.e[i];
        assert_int_equal(coll_hash_get(f->env, c, e->f, e->flen, &v, &vlen), TERSE_ECORRUPT);
        assert_null(v); /* no view given */
        assert_int_equal(coll_hash_put(f->env, c, e->f, e->flen, e->f, 1, 0, &res),
                         TERSE_ECORRUPT);
        assert_int_equal(coll_hash_del(f->env, c, e->f, e->flen), TERSE_ECORRUPT);
    }
    assert_int_equal(coll_hash_it_init(f->env, c, &it), TERSE_OK);
    assert_int_equal(coll_hash_it_next(f->env, &it, &kv), TERSE_ECORRUPT);
    for (uint64_t cur = 0; cur < UINT64_MAX / 16 * 15; cur += UINT64_MAX / 16) {
        assert_int_equal(coll_hash_scan(f->env, c, cur, 10, never_fn, NULL, &next),
                         TERSE_ECORRUPT);
    }
    for (uint64_t r = 0; r < coll_count(c); r += 13) {
        assert_int_equal(coll_hash_at(f->env, c, r, &kv), TERSE_ECORRUPT);
    }
    assert_int_equal(coll_hash_to_form(f->env, c, form, coll_hash_form_size(c), &len),
                     TERSE_ECORRUPT);
    assert_int_equal(coll_count(c), f->m.n); /* the failed writes changed nothing */
    free(form);
    coll_destroy(f->env, c);
}

static void test_corrupt_never_returns_bytes(void **state)
{
    corrupt_run(*state, false);
    corrupt_run(*state, true);
}

static void test_bad_forms(void **state)
{
    struct fix *f = *state;
    struct coll_hash_shape sh = {256}, zero = {0};
    static const uint8_t dup[] = {2, 1, 'a', 1, 'x', 1, 'a', 0};
    static const uint8_t valued[] = {1, 1, 'a', 1, 'x'};
    static const uint8_t empty[] = {0};
    static const uint8_t lying[] = {100, 1, 'a', 0};
    static const uint8_t extra[] = {1, 1, 'a', 0, 9};
    static const uint8_t ok[] = {2, 1, 'a', 0, 1, 'b', 0};
    struct coll *c = NULL;

    assert_int_equal(coll_hash_from_form(f->env, COLL_HASH, dup, sizeof(dup), &sh, &c),
                     TERSE_ECORRUPT);
    assert_int_equal(coll_hash_from_form(f->env, COLL_SET, valued, sizeof(valued), &sh, &c),
                     TERSE_ECORRUPT);
    assert_int_equal(coll_hash_from_form(f->env, COLL_HASH, empty, 1, &sh, &c), TERSE_ECORRUPT);
    assert_int_equal(coll_hash_from_form(f->env, COLL_HASH, lying, 4, &sh, &c), TERSE_ECORRUPT);
    assert_int_equal(coll_hash_from_form(f->env, COLL_HASH, extra, 5, &sh, &c), TERSE_ECORRUPT);
    assert_int_equal(coll_hash_from_form(f->env, COLL_HASH, ok, 0, &sh, &c), TERSE_ECORRUPT);
    for (size_t cut = 1; cut < sizeof(ok); cut++) {
        assert_int_equal(coll_hash_from_form(f->env, COLL_SET, ok, cut, &sh, &c),
                         TERSE_ECORRUPT);
    }
    assert_null(c);
    assert_int_equal(coll_hash_from_form(f->env, COLL_LIST, ok, 7, &sh, &c), TERSE_EINVAL);
    assert_int_equal(coll_hash_from_form(f->env, COLL_SET, ok, 7, &zero, &c), TERSE_EINVAL);
    assert_int_equal(coll_hash_from_form(f->env, COLL_SET, ok, 7, &sh, &c), TERSE_OK);
    assert_int_equal(coll_count(c), 2);
    {
        enum coll_hash_result res;
        assert_int_equal(coll_hash_put(f->env, c, ok + 2, 1, ok, 1, 0, &res), TERSE_EINVAL);
        assert_int_equal(coll_hash_put(f->env, c, ok + 2, 1, NULL, 0,
                                       COLL_HASH_NX | COLL_HASH_XX, &res), TERSE_EINVAL);
    }
    assert_int_equal(coll_hash_verify(f->env, c), TERSE_OK);
    coll_destroy(f->env, c);
}

/* Each allocation of a put or a delete failing in turn: TERSE_ENOMEM, and nothing changed. */
static void test_oom(void **state)
{
    struct fix *f = *state;
    struct coll *c = hfx_build(f, COLL_HASH, 256, 600);
    uint8_t fb[FMAX], vb[VMAX];
    size_t failed = 0;

    for (int k = 0; k < 300; k++) {
        bool del = k % 2 == 1 && f->m.n > 0;
        size_t fl = hfx_field(fb, 10000 + (uint64_t)k), vl = hfx_value(vb, false);
        long i = del ? (long)(hfx_rnd() % f->m.n) : -1;
        int r;

        if (del) {
            memcpy(fb, f->m.e[i].f, f->m.e[i].flen);
            fl = f->m.e[i].flen;
        }
        if (k % 7 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
        for (uint64_t nth = 1;; nth++) {
            enum coll_hash_result res = COLL_HASH_UNTOUCHED;
            coll_env_trim(f->env, 0); /* no spare blocks: every block is allocated, and may fail */
            core_mem_fail_after(nth);
            r = del ? coll_hash_del(f->env, c, fb, fl)
                    : coll_hash_put(f->env, c, fb, fl, vb, vl, 0, &res);
            core_mem_fail_after(0);
            if (r != TERSE_ENOMEM) {
                break;
            }
            failed++;
            assert_int_equal(res, COLL_HASH_UNTOUCHED);
            assert_int_equal(coll_hash_verify(f->env, c), TERSE_OK);
            assert_int_equal(coll_count(c), f->m.n);
            if (del) {
                hfx_expect_get(f, c, &f->m.e[i]);
            } else {
                assert_int_equal(coll_hash_get(f->env, c, fb, fl, NULL, NULL), 0);
            }
        }
        assert_int_equal(r, del ? 1 : TERSE_OK);
        if (del) {
            hfx_del(&f->m, i);
        } else {
            hfx_put(&f->m, fb, fl, vb, vl);
        }
    }
    print_message("%zu failed allocations, each leaving the hash unchanged\n", failed);
    assert_true(failed > 50);
    hfx_check_all(f, c, &(struct coll_hash_shape){256});
    coll_destroy(f->env, c);
}

static uint64_t n_allocs(void)
{
    struct core_mem_stats st;

    core_mem_stats_get(&st);
    return st.n_alloc + st.n_realloc;
}

static int count_fn(void *arg, const struct store_hash_kv *kv)
{
    (void)kv;
    (*(size_t *)arg)++;
    return 0;
}

/* Reads, walks, scans and rewrites of a hot chunk in place allocate nothing. */
static void test_no_alloc_steady(void **state)
{
    struct fix *f = *state;
    struct coll *c = hfx_build(f, COLL_HASH, 1024, 1500);
    struct store_hash_kv kv;
    struct coll_hash_it it;
    enum coll_hash_result res;
    uint8_t vb[16];
    uint64_t a0, next;
    size_t given = 0;

    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    hfx_check_all(f, c, &(struct coll_hash_shape){1024}); /* warms the env's buffers */
    a0 = n_allocs();
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < f->m.n; i++) {
            hfx_expect_get(f, c, &f->m.e[i]);
            assert_int_equal(coll_hash_at(f->env, c, i, &kv), TERSE_OK);
        }
        assert_int_equal(coll_hash_it_init(f->env, c, &it), TERSE_OK);
        while (coll_hash_it_next(f->env, &it, &kv) == 1) {
        }
        for (uint64_t cur = 0;; cur = next) {
            assert_int_equal(coll_hash_scan(f->env, c, cur, 20, count_fn, &given, &next),
                             TERSE_OK);
            if (next == 0) {
                break;
            }
        }
    }
    assert_int_equal(n_allocs(), a0);
    /* A field rewritten again and again with values of one size: the first rewrite may take a
     * new block (its chunk was compressed), the others write in place. */
    for (int k = 0; k < 200; k++) {
        memset(vb, 'a' + k % 26, sizeof(vb));
        assert_int_equal(coll_hash_put(f->env, c, f->m.e[7].f, f->m.e[7].flen, vb, sizeof(vb),
                                       0, &res), TERSE_OK);
        assert_int_equal(res, COLL_HASH_UPDATED);
        if (k == 0) {
            a0 = n_allocs();
        }
    }
    assert_int_equal(n_allocs(), a0);
    hfx_put(&f->m, f->m.e[7].f, f->m.e[7].flen, vb, sizeof(vb));
    hfx_check_all(f, c, &(struct coll_hash_shape){1024});
    coll_destroy(f->env, c);
    coll_env_trim(f->env, 0);
}

/* Every chunk of c within lim raw bytes but for one element alone; returns their bytes. */
static size_t chunks_within(const struct coll *c, size_t lim)
{
    size_t bytes = 0;

    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        const struct coll_desc *d = coll_tree_desc(&it);
        assert_true(d->raw_len <= lim || d->count == 1);
        bytes += d->raw_len;
    }
    return bytes;
}

/* Adds the set member "<prefix> <i>" (new) to c under flags and to the model; its length. */
static size_t add_member(struct fix *f, struct coll *c, uint8_t *fb, const char *prefix,
                         uint64_t i, unsigned flags)
{
    enum coll_hash_result res;
    size_t fl = (size_t)snprintf((char *)fb, FMAX, "%s %llu", prefix, (unsigned long long)i);

    assert_int_equal(coll_hash_put(f->env, c, fb, fl, NULL, 0, flags, &res), TERSE_OK);
    assert_int_equal(res, COLL_HASH_ADDED);
    hfx_put(&f->m, fb, fl, NULL, 0);
    return fl;
}

/* A value bigger than a chunk lives alone; small neighbours split away from it. */
static void test_big_elements(void **state)
{
    struct fix *f = *state;
    struct coll *c = hfx_build(f, COLL_HASH, 256, 0);
    enum coll_hash_result res;
    static uint8_t big[VMAX];
    uint8_t fb[FMAX];

    memset(big, 'z', sizeof(big));
    for (uint64_t i = 1; i <= 60; i++) {
        size_t fl = hfx_field(fb, i);
        size_t vl = i % 3 == 0 ? sizeof(big) : i % 5;
        assert_int_equal(coll_hash_put(f->env, c, fb, fl, big, vl, 0, &res), TERSE_OK);
        hfx_put(&f->m, fb, fl, big, vl);
        assert_int_equal(coll_hash_verify(f->env, c), TERSE_OK);
    }
    (void)chunks_within(c, 256);
    hfx_check_all(f, c, &(struct coll_hash_shape){256});
    coll_destroy(f->env, c);
}

/* A put into a settled chunk (merged by the compressor up to 3/4 of the chunk size) leaves its
 * element in a chunk of at most the hot size; the rest of the old chunk stays in pieces of its
 * elements, none past the chunk size, ranges in order (verify), every element found. */
static void test_put_into_cold_chunk(void **state)
{
    struct fix *f = *state;
    struct coll *c = hfx_build(f, COLL_SET, 4096, 3000);
    uint8_t fb[FMAX];
    size_t big = 0;

    for (int i = 0; i < 4; i++) {
        (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    }
    for (struct coll_it it = coll_tree_begin(&c->tree); coll_it_valid(&it); coll_tree_next(&it)) {
        big += coll_tree_desc(&it)->raw_len > coll_hot_bytes(c);
    }
    assert_true(big > 0);
    for (uint64_t i = 0; i < 300; i++) {
        size_t fl = add_member(f, c, fb, "cold chunk member", i, 0);
        struct coll_it at;
        const struct coll_desc *d;

        coll_hash_seek(c, coll_hash_of(c, fb, fl), &at);
        d = coll_tree_desc(&at);
        assert_true(d->raw_len <= coll_hot_bytes(c) || d->count == 1);
    }
    (void)chunks_within(c, 4096);
    hfx_check_all(f, c, &(struct coll_hash_shape){4096});
    coll_destroy(f->env, c);
}

/* Puts with COLL_HASH_BULK (a load's) cut chunks past 3/4 of the chunk size, not past the hot
 * size: the container is held in chunks of a bulk build's size, each within 3/4 of it. */
static void test_bulk_puts_cut_big_chunks(void **state)
{
    struct fix *f = *state;
    struct coll_hash_shape sh = {4096};
    uint8_t fb[FMAX];
    size_t bytes;
    struct coll *c;

    hfx_reset(&f->m);
    assert_int_equal(coll_hash_create(f->env, COLL_SET, &sh, &c), TERSE_OK);
    for (uint64_t i = 0; i < 3000; i++) {
        (void)add_member(f, c, fb, "bulk member", i, COLL_HASH_NX | COLL_HASH_BULK);
    }
    bytes = chunks_within(c, 4096 * 3 / 4);
    /* hot-sized chunks would be over eight times as many */
    assert_true(c->tree.n_chunks * coll_hot_bytes(c) * 2 < bytes);
    hfx_check_all(f, c, &sh);
    coll_destroy(f->env, c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_corrupt_never_returns_bytes, hfx_setup,
                                        hfx_teardown),
        cmocka_unit_test_setup_teardown(test_bad_forms, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_oom, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_no_alloc_steady, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_big_elements, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_put_into_cold_chunk, hfx_setup, hfx_teardown),
        cmocka_unit_test_setup_teardown(test_bulk_puts_cut_big_chunks, hfx_setup, hfx_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
