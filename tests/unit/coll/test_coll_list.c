/*
 * Unit tests for coll_list: lists as chunked containers.
 *
 * A model (an array of byte strings) takes the same random pushes, pops, LSETs, LINSERTs,
 * trims and LREMs as a list with tiny chunks (so ends seal and refill, chunks split and are
 * rewritten all the time), with background compression steps in between; after each step the
 * list verifies and every read (index, walks both ways from random starts, the whole form)
 * agrees with the model. Then: a corrupted list answers TERSE_ECORRUPT to reads, never other
 * bytes; copies are independent; lazy free frees everything.
 */
#include "coll/coll_list.h"

#include "codec/codec_value.h"
#include "core/core_mem.h"
#include "store/form/store_list.h"
#include "terse/status.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define MAXN 4000
#define ELMAX 40

struct model {
    uint8_t el[MAXN][ELMAX];
    size_t len[MAXN];
    size_t n;
};

static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

struct fix {
    struct coll_env *env;
    struct codec_ctx *codec;
    struct model m;
};

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    assert_int_equal(codec_ctx_create(&f->codec, NULL), TERSE_OK);
    assert_int_equal(coll_env_create(&f->env), TERSE_OK);
    coll_env_set_codec(f->env, f->codec);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;

    coll_env_destroy(&f->env);
    codec_ctx_destroy(&f->codec);
    free(f);
    return 0;
}

/* A random element: short, often repeated (so LREM finds matches), sometimes compressible. */
static size_t make_el(uint8_t *b)
{
    size_t n = rnd() % ELMAX;
    unsigned kind = (unsigned)(rnd() % 4);

    for (size_t i = 0; i < n; i++) {
        b[i] = kind == 0 ? (uint8_t)('a' + rnd() % 3) : kind == 1 ? 'x' : (uint8_t)rnd();
    }
    return n;
}

static void m_insert(struct model *m, size_t i, const uint8_t *el, size_t n)
{
    memmove(&m->el[i + 1], &m->el[i], (m->n - i) * sizeof(m->el[0]));
    memmove(&m->len[i + 1], &m->len[i], (m->n - i) * sizeof(m->len[0]));
    memcpy(m->el[i], el, n);
    m->len[i] = n;
    m->n++;
}

static void m_delete(struct model *m, size_t i)
{
    memmove(&m->el[i], &m->el[i + 1], (m->n - i - 1) * sizeof(m->el[0]));
    memmove(&m->len[i], &m->len[i + 1], (m->n - i - 1) * sizeof(m->len[0]));
    m->n--;
}

static void expect_el(const struct model *m, size_t i, const uint8_t *el, size_t len)
{
    assert_int_equal(len, m->len[i]);
    if (len > 0) {
        assert_memory_equal(el, m->el[i], len);
    }
}

static void check_all(struct fix *f, struct coll *c)
{
    struct model *m = &f->m;
    struct coll_list_it it;
    const uint8_t *el;
    size_t len;

    assert_int_equal(coll_list_verify(f->env, c), TERSE_OK);
    assert_int_equal(coll_count(c), m->n);
    assert_int_equal(coll_list_it_init(f->env, c, 0, false, &it), TERSE_OK);
    for (size_t i = 0; i < m->n; i++) {
        assert_int_equal(coll_list_it_next(f->env, &it, &el, &len), 1);
        expect_el(m, i, el, len);
    }
    assert_int_equal(coll_list_it_next(f->env, &it, &el, &len), 0);
    if (m->n > 0) {
        size_t start = rnd() % m->n;
        assert_int_equal(coll_list_it_init(f->env, c, start, true, &it), TERSE_OK);
        for (size_t i = start + 1; i-- > 0;) {
            assert_int_equal(coll_list_it_next(f->env, &it, &el, &len), 1);
            expect_el(m, i, el, len);
        }
        assert_int_equal(coll_list_it_next(f->env, &it, &el, &len), 0);
        start = rnd() % m->n;
        assert_int_equal(coll_list_it_init(f->env, c, start, false, &it), TERSE_OK);
        for (size_t i = start; i < m->n && i < start + 30; i++) {
            assert_int_equal(coll_list_it_next(f->env, &it, &el, &len), 1);
            expect_el(m, i, el, len);
        }
        for (int k = 0; k < 5; k++) {
            size_t i = rnd() % m->n;
            assert_int_equal(coll_list_index(f->env, c, i, &el, &len), TERSE_OK);
            expect_el(m, i, el, len);
        }
    }
}

static void random_run(struct fix *f, uint32_t chunk_max, uint32_t chunk_n, size_t steps,
                       size_t start_n)
{
    struct coll_list_shape sh = {chunk_max, chunk_n, 1};
    struct model *m = &f->m;
    struct coll *c;
    uint8_t el[ELMAX];

    m->n = 0;
    assert_int_equal(coll_list_create(f->env, &sh, &c), TERSE_OK);
    /* Grown first (both ends, compression between), so the tree has many chunks. */
    while (m->n < start_n) {
        size_t n = make_el(el);
        bool left = rnd() % 3 == 0;
        assert_int_equal(coll_list_push(f->env, c, left, el, n), TERSE_OK);
        m_insert(m, left ? 0 : m->n, el, n);
        if (m->n % 97 == 0) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
    }
    check_all(f, c);
    for (size_t s = 0; s < steps; s++) {
        unsigned op = (unsigned)(rnd() % 100);
        const uint8_t *got;
        size_t gl, n = make_el(el);

        if (op < 30 && m->n < MAXN - 10) {
            bool left = rnd() & 1;
            assert_int_equal(coll_list_push(f->env, c, left, el, n), TERSE_OK);
            m_insert(m, left ? 0 : m->n, el, n);
        } else if (op < 50) {
            bool left = rnd() & 1;
            int r = coll_list_pop(f->env, c, left, &got, &gl);
            if (m->n == 0) {
                assert_int_equal(r, 0);
            } else {
                assert_int_equal(r, 1);
                expect_el(m, left ? 0 : m->n - 1, got, gl);
                m_delete(m, left ? 0 : m->n - 1);
            }
        } else if (op < 60 && m->n > 0) {
            size_t i = rnd() % m->n;
            assert_int_equal(coll_list_set(f->env, c, i, el, n), TERSE_OK);
            memcpy(m->el[i], el, n);
            m->len[i] = n;
        } else if (op < 72 && m->n < MAXN - 10) {
            size_t i = rnd() % (m->n + 1);
            assert_int_equal(coll_list_insert(f->env, c, i, el, n), TERSE_OK);
            m_insert(m, i, el, n);
        } else if (op < 78 && m->n > 0) {
            bool front = rnd() & 1;
            size_t k = m->n > 200 ? rnd() % 6 : rnd() % (m->n / 4 + 2);
            if (k > m->n) {
                k = m->n;
            }
            assert_int_equal(coll_list_trim(f->env, c, front, k), TERSE_OK);
            for (size_t i = 0; i < k; i++) {
                m_delete(m, front ? 0 : m->n - 1);
            }
        } else if (op < 84 && m->n > 0) {
            /* LREM of an element that is there, with a skip and a max. */
            size_t pick = rnd() % m->n, nel = m->len[pick];
            uint8_t target[ELMAX];
            uint64_t skip = rnd() % 3;
            uint64_t max = rnd() % 4 == 0 && m->n < 300 ? UINT64_MAX : rnd() % 5 + 1;
            uint64_t removed = 0, want = 0, sk = skip, mx = max;
            memcpy(target, m->el[pick], nel);
            assert_int_equal(coll_list_remove(f->env, c, target, nel, skip, max, &removed),
                             TERSE_OK);
            for (size_t i = 0; i < m->n;) {
                if (m->len[i] == nel && memcmp(m->el[i], target, nel) == 0) {
                    if (sk > 0) {
                        sk--;
                    } else if (mx > 0) {
                        mx--;
                        want++;
                        m_delete(m, i);
                        continue;
                    }
                }
                i++;
            }
            assert_int_equal(removed, want);
        } else if (op < 90) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 1 + rnd() % 2000);
        } else if (m->n > 0) {
            size_t i = rnd() % m->n;
            assert_int_equal(coll_list_index(f->env, c, i, &got, &gl), TERSE_OK);
            expect_el(m, i, got, gl);
        }
        if (m->n < 400 || s % 20 == 0) {
            assert_int_equal(coll_list_verify(f->env, c), TERSE_OK);
        }
        if (s % 50 == 0 || m->n < 30) {
            check_all(f, c);
        }
    }
    check_all(f, c);
    /* The whole list as one form, and back. */
    {
        size_t cap = coll_list_form_size(c), out_len = 0;
        uint8_t *form = malloc(cap + 1);
        struct coll *d;
        assert_non_null(form);
        assert_int_equal(coll_list_to_form(f->env, c, form, cap, &out_len), TERSE_OK);
        if (m->n > 0) {
            assert_int_equal(store_list_check(form, out_len), TERSE_OK);
            assert_int_equal(coll_list_from_form(f->env, form, out_len, &sh, &d), TERSE_OK);
            check_all(f, d);
            coll_destroy(f->env, d);
        }
        free(form);
    }
    coll_destroy(f->env, c);
}

static void test_random_tiny_chunks(void **state)
{
    random_run(*state, 64, 0, 20000, 0);
}

static void test_random_small_chunks(void **state)
{
    random_run(*state, 300, 0, 20000, 2500);
}

static void test_random_growing(void **state)
{
    /* Mostly pushes: thousands of elements over hundreds of tiny chunks (a tree of several
     * levels), every other operation at random places. */
    random_run(*state, 48, 0, 12000, 3500);
}

static void test_random_counted_chunks(void **state)
{
    /* list-max-listpack-size 3: chunks of three elements at most, whatever their bytes. */
    random_run(*state, 8192, 3, 12000, 2000);
}

static void test_queue_pattern(void **state)
{
    /* RPUSH then LPOP, as a job queue does: every element comes back in order. */
    struct fix *f = *state;
    struct coll *c;
    char b[32];
    const uint8_t *el;
    size_t len;

    struct coll_list_shape sh = {256, 0, 1};

    assert_int_equal(coll_list_create(f->env, &sh, &c), TERSE_OK);
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(b, sizeof(b), "job:%d", i);
        assert_int_equal(coll_list_push(f->env, c, false, (const uint8_t *)b, (size_t)n), TERSE_OK);
        if (i % 3 == 2) {
            (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
        }
    }
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(b, sizeof(b), "job:%d", i);
        assert_int_equal(coll_list_pop(f->env, c, true, &el, &len), 1);
        assert_int_equal(len, (size_t)n);
        assert_memory_equal(el, b, len);
    }
    assert_int_equal(coll_list_pop(f->env, c, true, &el, &len), 0);
    assert_int_equal(coll_list_verify(f->env, c), TERSE_OK);
    coll_destroy(f->env, c);
}

static void test_corrupt_never_returns_bytes(void **state)
{
    struct fix *f = *state;
    struct coll *c;
    uint8_t b[64];
    const uint8_t *el;
    size_t len;
    struct coll_list_it it;
    int st;

    struct coll_list_shape sh = {128, 0, 1};

    assert_int_equal(coll_list_create(f->env, &sh, &c), TERSE_OK);
    for (int i = 0; i < 500; i++) {
        memset(b, 'a' + i % 26, sizeof(b));
        assert_int_equal(coll_list_push(f->env, c, i % 2, b, 20 + (size_t)(i % 40)), TERSE_OK);
    }
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    (void)coll_compress_step(f->env, 0, NULL, NULL, 0);
    coll_corrupt(c);
    assert_int_equal(coll_list_verify(f->env, c), TERSE_ECORRUPT);
    for (uint64_t i = 0; i < coll_count(c); i += 7) {
        assert_int_equal(coll_list_index(f->env, c, i, &el, &len), TERSE_ECORRUPT);
    }
    st = coll_list_it_init(f->env, c, 0, false, &it);
    if (st == TERSE_OK) {
        assert_int_equal(coll_list_it_next(f->env, &it, &el, &len), TERSE_ECORRUPT);
    } else {
        assert_int_equal(st, TERSE_ECORRUPT);
    }
    assert_true(coll_list_pop(f->env, c, true, &el, &len) == TERSE_ECORRUPT);
    assert_true(coll_list_pop(f->env, c, false, &el, &len) == TERSE_ECORRUPT);
    coll_destroy(f->env, c);
}

static void test_copy_and_lazy_free(void **state)
{
    struct fix *f = *state;
    struct coll *c, *d;
    uint8_t b[100];
    uint64_t before = core_mem_used();
    struct coll_env_stats st;

    memset(b, 'q', sizeof(b));
    struct coll_list_shape sh = {1024, 0, 1};

    assert_int_equal(coll_list_create(f->env, &sh, &c), TERSE_OK);
    for (int i = 0; i < 20000; i++) {
        b[0] = (uint8_t)i;
        assert_int_equal(coll_list_push(f->env, c, false, b, sizeof(b)), TERSE_OK);
    }
    assert_int_equal(coll_copy(f->env, c, &d), TERSE_OK);
    assert_int_equal(coll_list_verify(f->env, d), TERSE_OK);
    assert_int_equal(coll_count(d), 20000);
    assert_int_equal(coll_list_trim(f->env, c, true, 19000), TERSE_OK);
    assert_int_equal(coll_count(d), 20000); /* independent */
    assert_int_equal(coll_list_verify(f->env, d), TERSE_OK);
    coll_release(f->env, d); /* big: queued */
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_lazy, 1);
    while (coll_free_step(f->env, 4096) > 0) {
    }
    coll_env_stats_get(f->env, &st);
    assert_int_equal(st.n_lazy, 0);
    assert_int_equal(st.lazy_bytes, 0);
    coll_destroy(f->env, c);
    coll_env_trim(f->env, 0);
    assert_int_equal(core_mem_used(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_random_tiny_chunks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_small_chunks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_growing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_counted_chunks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_pattern, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_never_returns_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_and_lazy_free, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
